"""Shared helpers of the PyTorch reference scripts (bench/ref_*.py): the common options, the
output (a header object, then one JSON object per line, printed and with --out written),
the variable-batch sizes of the gala benchmarks, and CUDA-event timing. The scripts run as
`python3 bench/ref_x.py`, so bench/ is on the path and `import refutil` finds this file."""
import argparse
import datetime
import json
import sys
import time

import torch


def parser(quick_help=None, dtype=True):
    """An ArgumentParser with --quick, --warmup, --reps, --out and (dtype) --dtype."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help=quick_help)
    if dtype:
        ap.add_argument("--dtype", default="both", choices=["float", "double", "both"])
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out")
    return ap


def begin(script, bench, what, a):
    """Exit when there is no CUDA device; else print the header and return (device, lines)."""
    if not torch.cuda.is_available():
        sys.exit("%s needs a CUDA device" % script)
    dev = torch.device("cuda")
    header = {"bench": bench, "what": what,
              "device": torch.cuda.get_device_name(dev), "torch": torch.__version__,
              "cuda": torch.version.cuda,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "warmup": a.warmup, "reps": a.reps}
    lines = []
    emit(lines, header)
    return dev, lines


def emit(lines, rec):
    """Print one output object and keep it for finish()."""
    lines.append(json.dumps(rec))
    print(lines[-1], flush=True)


def finish(lines, path):
    """Write the output objects to path (--out), if given."""
    if path:
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")


def dtypes(choice):
    """(torch dtype, name) pairs of --dtype float|double|both."""
    pairs = [(torch.float32, "float"), (torch.float64, "double")]
    return [p for p in pairs if choice in ("both", p[1])]


def var_sizes(batch, nmax):
    """Orders of a variable batch as bench_trtri / bench_potrf draw them:
    n_b = 1 + (x_b >> 8) mod nmax, x_b = (1103515245·b + 12345) mod 2^31."""
    return [1 + (((1103515245 * b + 12345) & 0x7FFFFFFF) >> 8) % nmax for b in range(batch)]


def time_ms(fn, warmup, reps, slow_s=None):
    """Median, min and max of `reps` CUDA-event timings of fn() after `warmup` calls.

    With slow_s, a first call longer than slow_s seconds cuts the run to no warm-up and
    3 repeats (large cases that would not fit the time budget otherwise)."""
    if slow_s is not None:
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        if time.perf_counter() - t0 > slow_s:
            warmup, reps = 0, 3
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    out.sort()
    k = len(out)
    med = out[k // 2] if k % 2 else 0.5 * (out[k // 2 - 1] + out[k // 2])
    return med, out[0], out[-1]

