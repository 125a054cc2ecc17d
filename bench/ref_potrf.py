#!/usr/bin/env python3
"""Reference timings for bench_potrf: PyTorch (cuSOLVER / MAGMA) on the same cases.

    potrf_*        torch.linalg.cholesky(A)           (checks info: waits, like gala_potrf*)
    potrf_async_*  torch.linalg.cholesky_ex(A)        (no check: no wait, like ..._async)
    potrs1_*, potrs17_*  torch.cholesky_solve(B, L)   (1 and 17 right-hand sides)
    potri_*        torch.cholesky_inverse(L)

Prints (and with --out writes) JSON: one header object, then one object per line with
"kind", "n", "batch", "dtype", "median_ms", "min_ms", "max_ms" (CUDA events around each
call, median over --reps calls after --warmup). bench_potrf --ref FILE reads it and prints
the speedups.

Matrices as in bench_potrf: A = I + E, E symmetric with |E_ij| <= 0.4/n. Variable batches
("vbatched") have no torch equivalent: they are timed as one batched call per distinct size
(sizes n_b = 1 + (x_b >> 8) mod nmax, x_b = (1103515245·b + 12345) mod 2^31, as
bench_potrf), which favours torch (no size mixing).

    python3 bench/ref_potrf.py [--quick] [--dtype float|double|both] [--op potrf|potrs|potri|all]
                               [--n N] [--out torch_potrf.json]
"""
import torch

import refutil
from refutil import time_ms, var_sizes

POTRF_FULL = [("batched", 8, 100000), ("batched", 16, 100000), ("batched", 32, 50000),
              ("batched", 64, 20000), ("batched", 128, 5000), ("batched", 256, 1000),
              ("batched", 512, 200), ("single", 1024, 1), ("single", 2048, 1),
              ("single", 4096, 1), ("single", 8192, 1), ("single", 16384, 1),
              ("vbatched", 64, 50000), ("vbatched", 512, 500)]
POTRF_QUICK = [("batched", 8, 5000), ("batched", 32, 2000), ("batched", 64, 500),
               ("batched", 128, 100), ("batched", 512, 4), ("single", 1024, 1),
               ("vbatched", 64, 2000), ("vbatched", 512, 20)]
POTRI_FULL = [("batched", 32, 50000), ("batched", 64, 20000), ("batched", 128, 5000),
              ("batched", 256, 1000), ("single", 256, 1), ("single", 512, 1),
              ("single", 4096, 1), ("vbatched", 64, 50000)]
POTRI_QUICK = [("batched", 32, 2000), ("batched", 128, 100), ("single", 1024, 1),
               ("vbatched", 64, 2000)]


def spd(batch, n, dtype, dev, gen):
    """A = I + E, E symmetric, |E_ij| <= 0.4/n (strongly diagonally dominant)."""
    e = (torch.rand(batch, n, n, generator=gen, device=dev, dtype=dtype) - 0.5) * (0.8 / n)
    e = torch.tril(e, -1)
    return e + e.transpose(-1, -2) + torch.eye(n, device=dev, dtype=dtype)


def make_call(op, A, L, B):
    if op == "potrf":
        return lambda: torch.linalg.cholesky(A)
    if op == "potrf_async":
        return lambda: torch.linalg.cholesky_ex(A)
    if op.startswith("potrs"):
        return lambda: torch.cholesky_solve(B, L)
    return lambda: torch.cholesky_inverse(L)


def main():
    ap = refutil.parser()
    ap.add_argument("--op", default="all", choices=["potrf", "potrs", "potri", "all"])
    ap.add_argument("--n", type=int, default=0,
                    help="only the cases of this order (as bench_potrf --n)")
    a = ap.parse_args()
    dev, lines = refutil.begin(
        "ref_potrf.py", "potrf-reference",
        "torch.linalg.cholesky / cholesky_ex / cholesky_solve / cholesky_inverse", a)
    gen = torch.Generator(device=dev)
    gen.manual_seed(42)
    ops = [("potrf", 0), ("potrf_async", 0), ("potrs1", 1), ("potrs17", 17), ("potri", 0)]
    for dt, name in refutil.dtypes(a.dtype):
        for op, nrhs in ops:
            family = "potri" if op == "potri" else ("potrs" if op.startswith("potrs") else "potrf")
            if a.op not in ("all", family):
                continue
            cases = (POTRI_QUICK if a.quick else POTRI_FULL) if op == "potri" else \
                    (POTRF_QUICK if a.quick else POTRF_FULL)
            for kind, n, batch in cases:
                if a.n and n != a.n:
                    continue
                if op == "potrf_async" and kind == "vbatched":
                    continue
                if kind == "vbatched":
                    sizes = var_sizes(batch, n)
                    calls = []
                    for m in sorted(set(sizes)):
                        A = spd(sizes.count(m), m, dt, dev, gen)
                        L = torch.linalg.cholesky(A)
                        B = torch.rand(A.shape[0], m, max(nrhs, 1), generator=gen, device=dev,
                                       dtype=dt)
                        calls.append(make_call(op, A, L, B))

                    def fn(calls=calls):
                        for c in calls:
                            c()
                else:
                    A = spd(batch, n, dt, dev, gen)
                    if kind == "single":
                        A = A[0]
                    L = torch.linalg.cholesky(A)
                    shape = (n, max(nrhs, 1)) if kind == "single" else (batch, n, max(nrhs, 1))
                    B = torch.rand(*shape, generator=gen, device=dev, dtype=dt)
                    fn = make_call(op, A, L, B)
                med, lo, hi = time_ms(fn, a.warmup, a.reps)
                rec = {"kind": "%s_%s" % (op, kind), "n": n, "batch": batch, "dtype": name,
                       "median_ms": round(med, 6), "min_ms": round(lo, 6), "max_ms": round(hi, 6)}
                if nrhs:
                    rec["nrhs"] = nrhs
                refutil.emit(lines, rec)
                del fn
                torch.cuda.empty_cache()
    refutil.finish(lines, a.out)


if __name__ == "__main__":
    main()
