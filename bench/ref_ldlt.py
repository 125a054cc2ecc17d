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
import argparse
import datetime
import json
import sys

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
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--dtype", default="both", choices=["float", "double", "both"])
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("ref_ldlt.py needs a CUDA device")
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev)
    gen.manual_seed(7)
    header = {"bench": "ldlt-reference", "what": "torch.linalg.ldl_factor / ldl_solve",
              "device": torch.cuda.get_device_name(dev), "torch": torch.__version__,
              "cuda": torch.version.cuda,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "warmup": a.warmup, "reps": a.reps}
    lines = [json.dumps(header)]
    print(lines[0], flush=True)
    dtypes = {"float": [torch.float32], "double": [torch.float64],
              "both": [torch.float32, torch.float64]}[a.dtype]
    for dt in dtypes:
        name = "float" if dt == torch.float32 else "double"
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
            lines.append(json.dumps(rec))
            print(lines[-1], flush=True)
            del K, B, LD, piv
            torch.cuda.empty_cache()
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
