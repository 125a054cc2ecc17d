#!/usr/bin/env python3
"""Reference timings for bench_ldlt --dense: torch.linalg.ldl_factor / ldl_solve on the same
cases (batches of quasi-definite K = [H B^T; B -G], n = 8..300).

torch's LDL^T is LAPACK's sytrf (Bunch-Kaufman pivoting; cuSOLVER or MAGMA on CUDA), gala's
is without pivoting (quasi-definite matrices need none), so the work differs a little; the
comparison is what a torch user would call. bench_ldlt's timed factor includes a copy of the
batch (it restores the input); ldl_factor writes a new tensor, which is about the same traffic.

Output: one header object, then one JSON object per line with "kind" ("dense"), "n", "batch",
"dtype", "median_ms" (factor of the whole batch), "min_ms", "max_ms",
"factor_ms_per_matrix", "solve_ms_per_matrix" (one right-hand side per matrix). Slow cases
(a call over 0.2 s: torch may loop over the batch) are timed with 3 repeats.

    python3 bench/ref_ldlt.py [--quick] [--dtype float|double|both] [--out torch_ldlt.json]
"""
import torch

import refutil

FULL = [(8, 20000), (32, 2000), (64, 500), (128, 100), (300, 10)]
QUICK = [(8, 2000), (32, 200), (128, 10)]


def quasi_definite(batch, n, dtype, dev, gen):
    """[H B^T; B -G]: off-diagonal N(0, 1/n), diagonal +-(2 + sqrt(n)) (bench_ldlt --dense)."""
    e = torch.randn(batch, n, n, generator=gen, device=dev, dtype=dtype) / n ** 0.5
    e = torch.tril(e, -1)
    d = torch.full((n,), 2.0 + n ** 0.5, device=dev, dtype=dtype)
    d[n // 2:] *= -1
    return e + e.transpose(-1, -2) + torch.diag(d)


def main():
    a = refutil.parser().parse_args()
    dev, lines = refutil.begin("ref_ldlt.py", "ldlt-reference",
                               "torch.linalg.ldl_factor / ldl_solve", a)
    gen = torch.Generator(device=dev)
    gen.manual_seed(7)
    for dt, name in refutil.dtypes(a.dtype):
        for n, batch in (QUICK if a.quick else FULL):
            K = quasi_definite(batch, n, dt, dev, gen)
            B = torch.randn(batch, n, 1, generator=gen, device=dev, dtype=dt)
            LD, piv = torch.linalg.ldl_factor(K)
            fmed, flo, fhi = refutil.time_ms(lambda K=K: torch.linalg.ldl_factor(K), a.warmup, a.reps, slow_s=0.2)
            smed, _, _ = refutil.time_ms(lambda LD=LD, piv=piv, B=B: torch.linalg.ldl_solve(LD, piv, B),
                                         a.warmup, a.reps, slow_s=0.2)
            rec = {"kind": "dense", "n": n, "batch": batch, "dtype": name,
                   "median_ms": round(fmed, 6), "min_ms": round(flo, 6), "max_ms": round(fhi, 6),
                   "factor_ms_per_matrix": fmed / batch, "solve_ms_per_matrix": smed / batch}
            refutil.emit(lines, rec)
            del K, B, LD, piv
            torch.cuda.empty_cache()
    refutil.finish(lines, a.out)


if __name__ == "__main__":
    main()
