#!/usr/bin/env python3
"""The device's ceilings through PyTorch, for bench_ceiling and bench/report.py.

    copy   device-to-device copy of 1 GiB (torch.Tensor.copy_), bytes read + written: "gbs"
    gemm   torch.matmul of n x n matrices, float (TF32 off: OpenCL cannot use tensor cores,
           so the float rate is the plain FP32 one) and double: "gflops" = 2n^3 / time

Output: the format of the other ref_*.py scripts (one header object, then one JSON object per
line with "kind", "n", "batch", "dtype", "median_ms", "min_ms", "max_ms"), timed with CUDA
events, median over --reps after --warmup.

    python3 bench/ref_ceiling.py [--quick] [--n 8192] [--out torch_ceiling.json]
"""
import torch

import refutil
from refutil import time_ms


def main():
    ap = refutil.parser(quick_help="n = 2048 instead of 8192", dtype=False)
    ap.add_argument("--n", type=int, default=None, help="GEMM order (default 8192)")
    a = ap.parse_args()
    dev, lines = refutil.begin("ref_ceiling.py", "ceiling-reference",
                               "torch copy_ (1 GiB) and torch.matmul (TF32 off)", a)
    torch.backends.cuda.matmul.allow_tf32 = False
    n = a.n or (2048 if a.quick else 8192)

    elems = 1 << 28  # 1 GiB of float, as bench_ceiling (bu_copy_gbs)
    src = torch.ones(elems, device=dev, dtype=torch.float32)
    dst = torch.empty_like(src)
    med, lo, hi = time_ms(lambda: dst.copy_(src), a.warmup, a.reps)
    rec = {"kind": "copy", "n": elems, "batch": 1, "dtype": "float", "median_ms": round(med, 6),
           "min_ms": round(lo, 6), "max_ms": round(hi, 6),
           "gbs": round(2 * 4 * elems / (med * 1e6), 1)}
    refutil.emit(lines, rec)
    del src, dst
    torch.cuda.empty_cache()

    for dt, name in refutil.dtypes("both"):
        gen = torch.Generator(device=dev)
        gen.manual_seed(1)
        A = torch.rand(n, n, generator=gen, device=dev, dtype=dt)
        B = torch.rand(n, n, generator=gen, device=dev, dtype=dt)
        C = torch.empty(n, n, device=dev, dtype=dt)
        med, lo, hi = time_ms(lambda: torch.matmul(A, B, out=C), a.warmup, a.reps)
        rec = {"kind": "gemm", "n": n, "batch": 1, "dtype": name, "median_ms": round(med, 6),
               "min_ms": round(lo, 6), "max_ms": round(hi, 6),
               "gflops": round(2.0 * n ** 3 / (med * 1e6), 1)}
        refutil.emit(lines, rec)
        del A, B, C
        torch.cuda.empty_cache()
    refutil.finish(lines, a.out)


if __name__ == "__main__":
    main()
