#!/usr/bin/env python3
"""Solve the QP instances dumped by bench_qp (--dump DIR) with OSQP's Python package, on one
core and on all cores (multiprocessing, one process per core, one QP after another per
process), with the same settings as bench_qp, and print JSON.

  python3 bench/ref_osqp.py DIR/control.gqp --family control [--procs 16] [--count N]
  python3 bench/ref_osqp.py DIR/di.gqp --family di
  python3 bench/ref_osqp.py DIR/control.gqp --family control --compare gala.json
  python3 bench/ref_osqp.py DIR/di.gqp --family di --reuse --procs 1

Needs: numpy, scipy, osqp (pip install osqp numpy scipy). File format: bench/README.md.
Each QP is set up and solved separately (setup + solve timed), as the OSQP baseline in
gpu-baselines.md. All cores: the instances are split into --procs contiguous parts, one
process each; the rate is the count over the slowest process's setup + solve time (process
start-up, imports and reading the file are not counted; "all_cores_wall_s" includes them). --compare reads bench_qp's JSON and reports the largest relative
difference between the objectives of the first QPs ("obj_first") for the same family.

--reuse (for batches whose QPs share P and A, as bench_qp's di family): one OSQP setup with
the first QP, then for each QP update(q, l, u) and solve, with warm starting off so each
solve starts from zero as a fresh setup would; the rates count one setup and every update
and solve. That is how an OSQP user with one controller re-solves it from many states, and
it is a faster reference than a setup per QP (the default, as gpu-baselines.md). The script
does not check that the matrices are shared: it uses the first QP's.
"""
import argparse
import json
import multiprocessing as mp
import os
import struct
import sys
import time

import numpy as np
import scipy.sparse as sp


def read_gqp(path, count=None):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"GALAQP1\n":
        sys.exit(f"{path}: not a GALAQP1 file")
    (total,) = struct.unpack_from("<i", data, 8)
    off = 12
    n_read = total if count is None else min(count, total)
    qps = []
    for _ in range(n_read):
        n, m, nnzp, nnza = struct.unpack_from("<4i", data, off)
        off += 16

        def ints(k):
            nonlocal off
            v = np.frombuffer(data, dtype="<i4", count=k, offset=off)
            off += 4 * k
            return v

        def dbls(k):
            nonlocal off
            v = np.frombuffer(data, dtype="<f8", count=k, offset=off)
            off += 8 * k
            return v

        Pp, Pi, Px, q = ints(n + 1), ints(nnzp), dbls(nnzp), dbls(n)
        Ap, Ai, Ax, l, u = ints(n + 1), ints(nnza), dbls(nnza), dbls(m), dbls(m)
        P = sp.csc_matrix((Px, Pi, Pp), shape=(n, n))
        A = sp.csc_matrix((Ax, Ai, Ap), shape=(m, n))
        qps.append((P, q.copy(), A, np.clip(l, -1e30, 1e30), np.clip(u, -1e30, 1e30)))
    return qps


def settings(family):
    s = dict(verbose=False, polishing=False, eps_abs=1e-3, eps_rel=1e-3)
    if family == "di":
        # 200 fixed iterations as Dyro's writeup and gpu-baselines.md
        s.update(max_iter=200, check_termination=0, adaptive_rho=False, rho=10.0)
    return s


def solve_range(args):
    path, family, lo, hi, reuse = args
    import osqp  # imported in the worker

    qps = read_gqp(path)[lo:hi]
    st = settings(family)
    iters, objs, status = [], [], []
    t0 = time.perf_counter()
    solver = None
    if reuse and qps:
        P, q, A, l, u = qps[0]
        solver = osqp.OSQP()
        solver.setup(P=P, q=q, A=A, l=l, u=u, warm_starting=False, **st)
    for P, q, A, l, u in qps:
        if reuse:
            solver.update(q=q, l=l, u=u)
        else:
            solver = osqp.OSQP()
            solver.setup(P=P, q=q, A=A, l=l, u=u, **st)
        res = solver.solve()
        iters.append(res.info.iter)
        objs.append(res.info.obj_val)
        status.append(res.info.status)
    return time.perf_counter() - t0, iters, objs, status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--family", required=True, choices=["control", "di", "hetero", "uniform"])
    ap.add_argument("--procs", type=int, default=os.cpu_count())
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--compare", default=None, help="bench_qp JSON to compare objectives with")
    ap.add_argument("--reuse", action="store_true",
                    help="one setup, then update(q, l, u) and solve per QP (shared P and A)")
    a = ap.parse_args()
    import osqp

    n = len(read_gqp(a.file, a.count))
    out = {"bench": "ref_osqp", "family": a.family, "file": a.file, "count": n,
           "osqp_version": osqp.__version__ if hasattr(osqp, "__version__") else "unknown",
           "settings": settings(a.family), "reuse": a.reuse}
    # one core
    t, iters, objs, status = solve_range((a.file, a.family, 0, n, a.reuse))
    out["one_core_qps_per_s"] = n / t
    out["mean_iter"] = float(np.mean(iters))
    out["obj_first"] = [float(v) for v in objs[:100]]
    out["solved"] = sum(1 for s in status if s == "solved")
    # all cores: split the instances into procs contiguous ranges
    procs = max(1, a.procs)
    bounds = [(a.file, a.family, n * i // procs, n * (i + 1) // procs, a.reuse)
              for i in range(procs)]
    t0 = time.perf_counter()
    with mp.Pool(procs) as pool:
        parts = pool.map(solve_range, bounds)
    wall = time.perf_counter() - t0
    out["all_cores_procs"] = procs
    # The solving itself runs in parallel; starting the processes, importing osqp and reading
    # the instances in each does not belong to OSQP's throughput (it would dominate small
    # counts), so the rate is over the slowest worker's setup + solve time. The wall time
    # with all of that is kept too.
    out["all_cores_qps_per_s"] = n / max(p[0] for p in parts)
    out["all_cores_wall_s"] = wall
    if a.compare:
        with open(a.compare) as f:
            doc = json.load(f)
        runs = doc["results"] if isinstance(doc, dict) else doc
        for r in runs:
            # only the timed batch rows (bench_qp also writes cold first calls and phases)
            if r.get("family") != a.family or "qps_per_s" not in r:
                continue
            g = r.get("obj_first", [])
            if isinstance(g, str):
                g = [float(v) for v in g.split(",") if v]
            k = min(len(g), len(objs))
            rel = [abs(g[i] - objs[i]) / (1 + abs(objs[i])) for i in range(k)
                   if g[i] is not None and objs[i] is not None]
            out.setdefault("compare", []).append(
                {"dtype": r["dtype"], "batch": r["batch"], "qps_per_s": r["qps_per_s"],
                 "speedup_vs_one_core": r["qps_per_s"] / out["one_core_qps_per_s"],
                 "speedup_vs_all_cores": r["qps_per_s"] / out["all_cores_qps_per_s"],
                 "max_rel_obj_diff": max(rel) if rel else None})
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
