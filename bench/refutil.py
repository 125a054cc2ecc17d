"""Shared helper of the PyTorch reference scripts (bench/ref_*.py): CUDA-event timing.
Import it as `from refutil import time_ms` (the scripts run as `python3 bench/ref_x.py`,
so bench/ is on the path)."""
import time

import torch


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

