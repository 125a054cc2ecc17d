#!/usr/bin/env python3
"""Reference timings for bench_trtri: torch.linalg.solve_triangular(L, I) on the same cases.

Prints (and with --out writes) JSON: one header object, then one object per line with
"kind", "n", "batch", "dtype", "median_ms", "min_ms", "max_ms" (CUDA events, median over
--reps calls after --warmup). bench_trtri --ref FILE reads it and prints speedups.

Variable batches ("vbatched") have no torch equivalent: they are timed as one batched call
per distinct size (the sizes are the same as bench_trtri's: n_b = 1 + (x_b >> 8) mod nmax,
x_b = (1103515245·b + 12345) mod 2^31), which favours torch (no size mixing).

    python3 bench/ref_trtri.py [--quick] [--dtype float|double|both] [--out torch.json]
"""
import torch

import refutil
from refutil import time_ms, var_sizes

FULL = [("batched", 32, 50000), ("batched", 64, 20000), ("batched", 128, 5000),
        ("batched", 256, 1000), ("batched", 512, 200), ("single", 4096, 1),
        ("single", 8192, 1), ("vbatched", 64, 50000), ("vbatched", 512, 500)]
QUICK = [("batched", 32, 2000), ("batched", 64, 500), ("batched", 128, 100),
         ("batched", 256, 20), ("batched", 512, 4), ("single", 1024, 1),
         ("vbatched", 64, 2000), ("vbatched", 512, 20)]


def lower(batch, n, dtype, dev, gen):
    """Well-conditioned lower triangles L = D(I - E) as in bench_trtri / test_trtri."""
    u = torch.rand(batch, n, generator=gen, device=dev, dtype=dtype)
    d = torch.where(u < 0.5, -1.0, 1.0).to(dtype) * (0.5 + 2 * (u - 0.5).abs())
    e = torch.rand(batch, n, n, generator=gen, device=dev, dtype=dtype) * (2.0 / n)
    L = -d.unsqueeze(-1) * torch.tril(e, -1)
    return L + torch.diag_embed(d)


def main():
    a = refutil.parser().parse_args()
    dev, lines = refutil.begin("ref_trtri.py", "trtri-reference",
                               "torch.linalg.solve_triangular(L, I, upper=False)", a)
    gen = torch.Generator(device=dev)
    gen.manual_seed(42)
    for dt, name in refutil.dtypes(a.dtype):
        for kind, n, batch in (QUICK if a.quick else FULL):
            if kind == "vbatched":
                sizes = var_sizes(batch, n)
                groups = []
                for m in sorted(set(sizes)):
                    cnt = sizes.count(m)
                    L = lower(cnt, m, dt, dev, gen)
                    groups.append((L, torch.eye(m, device=dev, dtype=dt).expand(cnt, m, m)))

                def fn(groups=groups):
                    for L, I in groups:
                        torch.linalg.solve_triangular(L, I, upper=False)
            else:
                L = lower(batch, n, dt, dev, gen)
                I = torch.eye(n, device=dev, dtype=dt).expand(batch, n, n)
                if kind == "single":
                    L, I = L[0], I[0]

                def fn(L=L, I=I):
                    torch.linalg.solve_triangular(L, I, upper=False)
            med, lo, hi = time_ms(fn, a.warmup, a.reps)
            rec = {"kind": kind, "n": n, "batch": batch, "dtype": name, "median_ms": round(med, 6),
                   "min_ms": round(lo, 6), "max_ms": round(hi, 6)}
            refutil.emit(lines, rec)
            del fn
            torch.cuda.empty_cache()
    refutil.finish(lines, a.out)


if __name__ == "__main__":
    main()
