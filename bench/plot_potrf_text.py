#!/usr/bin/env python3
"""Plot GB/s and GFLOP/s against n from bench_potrf's text output (the table it prints),
for gala on each device block of the file and for torch from the same rows' "torch ms"
column (same byte and flop counts: 2·n²·size and n³/3 per matrix, bench_potrf's).

  python3 bench/plot_potrf_text.py LOG --out potrf.png [--kind potrf_batched] [--title T]

For runs made without --json (bench/report.py plots the JSON rows of run-gpu.sh).
Needs matplotlib.
"""
import argparse
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path, kind):
    """{(backend, dtype): [(n, batch, ms, torch_ms), ...]} from the device blocks of a log,
    and {backend: measured copy GB/s}."""
    out, copy, backend = {}, {}, None
    for line in open(path):
        m = re.match(r"# device: (\w+) /", line)
        if m:
            backend = {"opencl": "OpenCL", "cuda": "CUDA", "host": "host"}.get(m.group(1), m.group(1))
            continue
        m = re.match(r"# measured copy bandwidth: ([0-9.]+) GB/s", line)
        if m and backend:
            copy[backend] = float(m.group(1))
            continue
        f = line.split()
        if len(f) >= 11 and f[0] == kind and backend:
            n, batch, dt, ms = int(f[1]), int(f[2]), f[3], float(f[4])
            tms = float(f[10]) if f[10] != "-" else None
            out.setdefault((backend, dt), []).append((n, batch, ms, tms))
    return out, copy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--out", required=True)
    ap.add_argument("--kind", default="potrf_batched")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    rows, copy = read(a.log, a.kind)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    torch_done = set()
    for (backend, dt), pts in sorted(rows.items()):
        size = 4 if dt == "float" else 8
        pts.sort()
        ns = [p[0] for p in pts]
        gbs = [2 * n * n * size * b / (ms * 1e-3) / 1e9 for n, b, ms, _ in pts]
        gfl = [n ** 3 / 3 * b / (ms * 1e-3) / 1e9 for n, b, ms, _ in pts]
        style = "-" if dt == "float" else "--"
        axes[0].plot(ns, gbs, style, marker="o", label="gala %s %s" % (backend, dt))
        axes[1].plot(ns, gfl, style, marker="o", label="gala %s %s" % (backend, dt))
        if dt not in torch_done and all(p[3] for p in pts):
            torch_done.add(dt)
            tg = [2 * n * n * size * b / (t * 1e-3) / 1e9 for n, b, _, t in pts]
            tf = [n ** 3 / 3 * b / (t * 1e-3) / 1e9 for n, b, _, t in pts]
            axes[0].plot(ns, tg, style, color="black", marker="x", label="torch %s" % dt)
            axes[1].plot(ns, tf, style, color="black", marker="x", label="torch %s" % dt)
    if copy:
        top = max(copy.values())
        axes[0].axhline(top, color="grey", linestyle=":", linewidth=1)
        axes[0].text(min(min(p[0] for p in v) for v in rows.values()), top * 1.05,
                     "copy bandwidth: " + ", ".join("%s %.0f" % kv for kv in sorted(copy.items()))
                     + " GB/s", fontsize=7, color="grey")
    for ax, what in zip(axes, ("GB/s (matrix read + written once)", "GFLOP/s (n³/3 per matrix)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(fontsize=7, loc="lower right")
    fig.suptitle(a.title or a.kind)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
