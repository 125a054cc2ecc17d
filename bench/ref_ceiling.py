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
import argparse
import datetime
import json
import sys

import torch

from refutil import time_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="n = 2048 instead of 8192")
    ap.add_argument("--n", type=int, default=None, help="GEMM order (default 8192)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("ref_ceiling.py needs a CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    n = a.n or (2048 if a.quick else 8192)
    header = {"bench": "ceiling-reference",
              "what": "torch copy_ (1 GiB) and torch.matmul (TF32 off)",
              "device": torch.cuda.get_device_name(dev), "torch": torch.__version__,
              "cuda": torch.version.cuda,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "warmup": a.warmup, "reps": a.reps}
    lines = [json.dumps(header)]
    print(lines[0], flush=True)

    elems = 1 << 28  # 1 GiB of float, as bench_ceiling (bu_copy_gbs)
    src = torch.ones(elems, device=dev, dtype=torch.float32)
    dst = torch.empty_like(src)
    med, lo, hi = time_ms(lambda: dst.copy_(src), a.warmup, a.reps)
    rec = {"kind": "copy", "n": elems, "batch": 1, "dtype": "float", "median_ms": round(med, 6),
           "min_ms": round(lo, 6), "max_ms": round(hi, 6),
           "gbs": round(2 * 4 * elems / (med * 1e6), 1)}
    lines.append(json.dumps(rec))
    print(lines[-1], flush=True)
    del src, dst
    torch.cuda.empty_cache()

    for dt, name in ((torch.float32, "float"), (torch.float64, "double")):
        gen = torch.Generator(device=dev)
        gen.manual_seed(1)
        A = torch.rand(n, n, generator=gen, device=dev, dtype=dt)
        B = torch.rand(n, n, generator=gen, device=dev, dtype=dt)
        C = torch.empty(n, n, device=dev, dtype=dt)
        med, lo, hi = time_ms(lambda: torch.matmul(A, B, out=C), a.warmup, a.reps)
        rec = {"kind": "gemm", "n": n, "batch": 1, "dtype": name, "median_ms": round(med, 6),
               "min_ms": round(lo, 6), "max_ms": round(hi, 6),
               "gflops": round(2.0 * n ** 3 / (med * 1e6), 1)}
        lines.append(json.dumps(rec))
        print(lines[-1], flush=True)
        del A, B, C
        torch.cuda.empty_cache()
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
