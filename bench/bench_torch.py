#!/usr/bin/env python3
"""Forward + backward through a batch of QPs as a PyTorch layer (issue 43): gala.torch's
QPFunction against qpth's QPFunction (OptNet, batched, on the same GPU) and OSQP's
``osqp.nn.torch.OSQP`` layer (the CPU), on the same QPs, in the same call, with the
gradients' agreement reported beside the times.

    python3 bench/bench_torch.py [--family control] [--size 10] [--batches 100,1000]
        [--dtype float64] [--device cuda] [--backend cuda] [--rounds 3]
        [--solvers gala,qpth,osqp] [--osqp-max 1000] [--interleave] [--json out.json]
        [--save-grads PREFIX]

Each QP is a generated one (gala.problems.generate, OSQP's benchmark families), passed as
dense tensors P (k, n, n), q (k, n), A (k, m, n), l, u (k, m), every one requiring its
gradient (P + reg·I, the same for every solver: qpth factors P and needs it definite;
--reg, default 1e-6); the loss is Σ w·x with a fixed random w. A generated QP that the
layer's settings leave unsolved (max_iter; OSQP stops on it alike) is replaced by the next
seed, so that every solver differentiates solutions. The input tensors are made
once, on the device, before the rounds (as a layer's inputs come from the layers before
it); one round = forward, backward (the inputs' gradients reset first) and a device
synchronization; the median of ``--rounds`` rounds after one untimed warm-up is reported as
QPs per second (forward + backward); with ``--interleave`` the solvers' rounds alternate
(gala, qpth, ..., gala, qpth, ...), so that a host or GPU whose speed drifts during the call
weighs on every solver alike. qpth takes the same QPs in its form
(equalities Ax = b where l = u, inequalities Gx ≤ h from the finite bounds); its
tolerance is its default. gala and OSQP's layer use eps 1e-5 with polishing (gala.torch's
defaults). Agreement: the largest |∂L/∂q| difference relative to the largest entry, against
gala's, per solver. For gala the medians of the forward and the backward pass are printed
beside the total.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np
import scipy.sparse as spa

try:
    import torch
except ImportError:  # pragma: no cover
    sys.exit("bench_torch.py needs PyTorch")

import gala
import gala.problems
import gala.torch as gtorch


def solvable(family: str, size: int, k: int, reg: float, context, seed: int = 1):
    """k generated QPs that the layer's settings solve, and how many seeds were passed over.

    Some QPs of the random family need more than max_iter (4000) ADMM iterations at eps 1e-5:
    OSQP 1.1.3 stops on them at the same iteration as gala with the same status, x is then no
    solution and has no derivative (gala.torch raises). Those seeds are replaced by the next
    ones (one untimed gala solve of the batch per pass)."""
    ps, nxt, skipped = [], seed, 0
    while len(ps) < k:
        new = [gala.problems.generate(family, size, nxt + j) for j in range(k - len(ps))]
        nxt += len(new)
        qps = [(p.P + reg * spa.eye(p.n, format="csc"), p.q, p.A, p.l, p.u) for p in new]
        ok = gala.QPBatch.from_problems(qps, context=context, **gtorch.DEFAULT_SETTINGS).solve().solved
        ps += [p for p, good in zip(new, ok) if good]
        skipped += int(np.count_nonzero(~ok))
    return ps, skipped


def dense_batch(ps, reg: float):
    """The QPs as dense arrays (P full symmetric, + reg·I)."""
    k, n, m = len(ps), ps[0].n, ps[0].m
    P = np.empty((k, n, n))
    A = np.empty((k, m, n))
    for j, p in enumerate(ps):
        U = p.P.toarray()
        P[j] = U + U.T - np.diag(np.diag(U)) + reg * np.eye(n)
        A[j] = p.A.toarray()
    q = np.stack([p.q for p in ps])
    l = np.stack([p.l for p in ps])
    u = np.stack([p.u for p in ps])
    return P, q, A, l, u


def timed(fn, rounds: int, sync) -> tuple[float, object]:
    out = fn()  # warm-up (kernels, caches)
    times = []
    for _ in range(rounds):
        sync()
        t = time.perf_counter()
        out = fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def interleaved(fns: dict, rounds: int, sync) -> dict:
    """timed() of every solver, their rounds alternating: {solver: (median, output)}."""
    outs = {s: fn() for s, fn in fns.items()}  # warm-ups
    times = {s: [] for s in fns}
    for _ in range(rounds):
        for s, fn in fns.items():
            sync()
            t = time.perf_counter()
            outs[s] = fn()
            sync()
            times[s].append(time.perf_counter() - t)
    for s, fn in fns.items():
        fn.round_s = times[s]
    return {s: (statistics.median(times[s]), outs[s]) for s in fns}


def leaves(arrays, dt, device):
    """The inputs as leaf tensors requiring gradients, made once."""
    return [torch.tensor(a, dtype=dt, device=device, requires_grad=True) for a in arrays]


def reset(ts):
    for t in ts:
        t.grad = None


def run_gala(P, q, A, l, u, w, dt, device, context, sync):
    ts = leaves((P, q, A, l, u), dt, device)

    def go():
        reset(ts)
        t0 = time.perf_counter()
        x, _ = gtorch.QPFunction.apply(*ts, {"context": context})
        sync()
        t1 = time.perf_counter()
        (x * w).sum().backward()
        sync()
        go.split.append((t1 - t0, time.perf_counter() - t1))
        return ts[1].grad.detach().cpu().numpy()
    go.split = []
    return go


def run_qpth(P, q, A, l, u, w, dt, device):
    try:  # qpth imports cvxpy for a solver this benchmark does not use
        import cvxpy  # noqa: F401
    except ImportError:
        import types
        sys.modules["cvxpy"] = types.ModuleType("cvxpy")
    from qpth.qp import QPFunction, QPSolvers
    eq = np.all(l == u, axis=0)                   # the same rows in every QP of the family
    up = ~eq & np.all(np.isfinite(u), axis=0)
    lo = ~eq & np.all(np.isfinite(l), axis=0)
    G = np.concatenate([A[:, up], -A[:, lo]], axis=1)
    h = np.concatenate([u[:, up], -l[:, lo]], axis=1)
    Ae, be = A[:, eq], u[:, eq]
    ts = leaves((P, q, G, h, Ae, be), dt, device)

    def go():
        reset(ts)
        x = QPFunction(verbose=-1, solver=QPSolvers.PDIPM_BATCHED)(*ts)
        (x * w).sum().backward()
        return ts[1].grad.detach().cpu().numpy()
    return go


def run_osqp(P, q, A, l, u, w, dt):
    from osqp.nn.torch import OSQP
    n, m = P.shape[1], A.shape[1]
    Pu = spa.csc_matrix(np.ones((n, n))).tocoo()  # dense patterns (its backward wants P whole)
    Af = spa.csc_matrix(np.ones((m, n))).tocoo()
    layer = OSQP((Pu.row, Pu.col), (n, n), (Af.row, Af.col), (m, n), eps_abs=1e-5, eps_rel=1e-5)
    wc = w.detach().cpu()
    Pv, Av = leaves((P[:, Pu.row, Pu.col], A[:, Af.row, Af.col]), dt, "cpu")
    ts = leaves((q, l, u), dt, "cpu")

    def go():
        reset([Pv, Av] + ts)
        x = layer(Pv, ts[0], Av, ts[1], ts[2])
        (x * wc).sum().backward()
        return ts[0].grad.detach().numpy()
    return go


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", default="control")
    ap.add_argument("--size", type=int, default=10)
    ap.add_argument("--batches", default="100,1000")
    ap.add_argument("--dtype", default="float64", choices=("float32", "float64"))
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--backend", default=None, help="gala backend (default: cuda on a GPU, else host)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--solvers", default="gala,qpth,osqp")
    ap.add_argument("--osqp-max", type=int, default=1000, help="largest batch for OSQP's CPU layer")
    ap.add_argument("--reg", type=float, default=1e-6,
                    help="added to P's diagonal for every solver (qpth needs P positive definite)")
    ap.add_argument("--interleave", action="store_true",
                    help="alternate the solvers' timed rounds instead of running each solver's in a row")
    ap.add_argument("--json", default=None)
    ap.add_argument("--save-grads", default=None, metavar="PREFIX",
                    help="save gala's ∂L/∂q of each batch as PREFIX-<batch>.npy")
    a = ap.parse_args()
    dt = getattr(torch, a.dtype)
    backend = a.backend or ("cuda" if a.device == "cuda" else "host")
    context = gala.Context(backend=backend)
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    solvers = a.solvers.split(",")
    rows = []
    print(f"# {a.family} size {a.size}, {a.dtype}, torch device {a.device}, gala backend {backend}, "
          f"torch {torch.__version__}, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}")
    for k in (int(b) for b in a.batches.split(",")):
        ps, skipped = solvable(a.family, a.size, k, a.reg, context)
        if skipped:
            print(f"batch {k:6d}  {skipped} generated QPs not solved within max_iter at the layer's "
                  "settings (OSQP neither): replaced by further seeds")
        P, q, A, l, u = dense_batch(ps, a.reg)
        w = torch.tensor(np.random.default_rng(k).standard_normal(q.shape), dtype=dt, device=a.device)
        ref = None
        fns, timed_out = {}, {}
        for s in solvers:
            if s == "osqp" and k > a.osqp_max:
                continue
            try:
                if s == "gala":
                    fns[s] = run_gala(P, q, A, l, u, w, dt, a.device, context, sync)
                elif s == "qpth":
                    fns[s] = run_qpth(P, q, A, l, u, w, dt, a.device)
                else:
                    fns[s] = run_osqp(P, q, A, l, u, w, dt)
                if not a.interleave:
                    timed_out[s] = timed(fns[s], a.rounds, sync)
            except Exception as e:  # a solver that cannot take the batch (memory, ...)
                fns.pop(s, None)
                print(f"batch {k:6d}  {s:5s}  failed: {type(e).__name__}: {str(e)[:200]}")
                rows.append(dict(solver=s, batch=k, error=f"{type(e).__name__}: {str(e)[:200]}"))
        if a.interleave:
            timed_out = interleaved(fns, a.rounds, sync)
        for s in solvers:
            if s not in timed_out:
                continue
            t, g = timed_out[s]
            fn = fns[s]
            if s == "gala":
                ref = g
                if a.save_grads:
                    np.save(f"{a.save_grads}-{k}.npy", g)
            agree = (float(np.max(np.abs(g - ref)) / max(1e-300, np.max(np.abs(ref))))
                     if ref is not None and s != "gala" else None)
            rows.append(dict(solver=s, batch=k, seconds=t, qps_per_s=k / t, grad_q_rel_diff=agree,
                             seeds_replaced=skipped,
                             n=int(q.shape[1]), m=int(l.shape[1]), dtype=a.dtype,
                             round_s=getattr(fn, "round_s", None)))
            split = ""
            if s == "gala" and fn.split[1:]:  # the timed rounds' forward and backward
                fw = statistics.median(f for f, _ in fn.split[1:])
                bw = statistics.median(b for _, b in fn.split[1:])
                rows[-1].update(forward_s=fw, backward_s=bw)
                split = f"  [forward {fw:.4f} s, backward {bw:.4f} s]"
            print(f"batch {k:6d}  {s:5s}  {k / t:12.1f} QPs/s (forward + backward, {t:.4f} s)"
                  + (f"  |dq − gala's| / |gala's| = {agree:.2e}" if agree is not None else "") + split)
        base = {r["solver"]: r for r in rows if r["batch"] == k and "qps_per_s" in r}
        if "gala" in base:
            for s, r in base.items():
                if s != "gala":
                    print(f"batch {k:6d}  gala / {s}: {base['gala']['qps_per_s'] / r['qps_per_s']:.1f}×")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"bench": "torch", "family": a.family, "size": a.size, "device": a.device,
                       "backend": backend, "results": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
