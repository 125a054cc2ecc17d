#!/usr/bin/env bash
# Issue 41's CPU target: the host backend, one QP at a time, on the 24 Maros–Meszaros files
# of tests/data (eps 1e-5, max_iter 4000, each solver's own setup + solve time, best of 3)
# against OSQP 1.1.3 on the same files — in one run whose rounds share the same minutes:
#
#     bash docs/perf/2026-11-28-cpu-mm/run.sh [OUT-DIR] [ROUNDS] [BASE-GALA-QP]
#
# Needs a Release build in build/ and a Python with osqp, numpy, scipy ($PY, default
# /work/main/.venv/bin/python). BASE-GALA-QP: a gala-qp built at the commit to compare with
# (the issue's figures: main at aba3174), timed as that commit's script did, one process per
# run ("cold"; it has no --repeat). Per round, each an interleaved bench/ref_mm_osqp.py call
# (gala-qp alone then OSQP, file by file, best of 3 each):
#   before  BASE-GALA-QP, cold
#   cold    build/tools/gala-qp, cold (one process per run, as the issue measured)
#   warm    build/tools/gala-qp --repeat 3 (best of 3 in one process, as OSQP's)
# then summary.txt: per configuration and round the totals, gala/OSQP, and the medians.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 2
OUT=${1:-/tmp/cpu-mm}
ROUNDS=${2:-3}
BASE=${3:-}
PY=${PY:-/work/main/.venv/bin/python}
MM=tests/data/maros_meszaros
mkdir -p "$OUT"
unset GALA_BACKEND GALA_PLATFORM GALA_DEVICE GALA_TUNE GALA_HOST_THREADS
{
    date -u +"date %Y-%m-%dT%H:%M:%SZ"
    echo "commit $(git rev-parse --short HEAD)"
    echo "cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
    "$PY" -c "import osqp, numpy, scipy; print('osqp', osqp.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__)"
    gcc --version | head -1
    uptime
} | tee "$OUT/env.txt"
run() { # name gala-qp extra-args...
    local name=$1 exe=$2
    shift 2
    "$PY" bench/ref_mm_osqp.py "$MM" --eps 1e-5 --max-iter 4000 --reference "$MM/00README.QP" \
        --gala-qp "$exe" --backends host --reps 3 --rounds 1 --interleave "$@" \
        --json "$OUT/${name}_$r.json" --markdown "$OUT/${name}_$r.md" 2>"$OUT/${name}_$r.log"
    grep "^round" "$OUT/${name}_$r.log" | sed "s/^/$name /"
}
for r in $(seq 1 "$ROUNDS"); do
    echo "round $r $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
    [ -n "$BASE" ] && run before "$BASE" --gala-cold
    run cold build/tools/gala-qp --gala-cold
    run warm build/tools/gala-qp
done | tee "$OUT/rounds.txt"
uptime >>"$OUT/env.txt"
"$PY" - "$OUT" <<'PYEOF' | tee "$OUT/summary.txt"
# rows.csv: every (configuration, round, file) time; summary: per configuration the totals
# per round, their medians and ratios, and per file the median over the rounds
import csv, glob, json, os, statistics, sys
out = sys.argv[1]
rows = []
for f in sorted(glob.glob(os.path.join(out, "*_*.json"))):
    name, rnd = os.path.basename(f)[:-5].rsplit("_", 1)
    d = json.load(open(f))
    load = d["rounds"][0]["loadavg"]
    osqp = {p["name"]: p for p in d["problems"]}
    for p in d["gala"][0]["problems"]:
        o = osqp[p["name"]]
        rows.append(dict(config=name, round=int(rnd), load=round(load, 2), file=p["name"],
                         gala_ms=round(1e3 * p["alone_time"], 4), osqp_ms=round(1e3 * o["time"], 4),
                         linsys=p.get("alone_linsys", ""), gala_status=p.get("alone_status", p["status"]),
                         gala_iter=p.get("alone_iterations", p["iterations"]), osqp_status=o["status"],
                         osqp_iter=o["iterations"]))
with open(os.path.join(out, "rows.csv"), "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
configs = sorted({r["config"] for r in rows}, key=["before", "cold", "warm"].index)
for c in configs:
    rs = [r for r in rows if r["config"] == c]
    rounds = sorted({r["round"] for r in rs})
    tot = [(sum(r["gala_ms"] for r in rs if r["round"] == k), sum(r["osqp_ms"] for r in rs if r["round"] == k),
            next(r["load"] for r in rs if r["round"] == k)) for k in rounds]
    print(f"{c}: gala / OSQP per round (ms, load): " +
          "; ".join(f"{g:.0f} / {o:.0f} = {g / o:.2f} ({l:.1f})" for g, o, l in tot))
    sparse = sorted({r["file"] for r in rs if r["linsys"] == "sparse-ldlt"})
    print(f"  median gala {statistics.median(g for g, _, _ in tot):.0f} ms, OSQP "
          f"{statistics.median(o for _, o, _ in tot):.0f} ms, ratio "
          f"{statistics.median(g / o for g, o, _ in tot):.2f} (rounds {min(g / o for g, o, _ in tot):.2f}"
          f"-{max(g / o for g, o, _ in tot):.2f}); sparse alone: {', '.join(sparse) or '-'}")
    same = all(r["gala_status"] == r["osqp_status"] and r["gala_iter"] == r["osqp_iter"] for r in rs)
    print(f"  statuses and iterations equal to OSQP's on every file: {same}")
print("\nper file, median over the rounds (ms): " + ", ".join(f"{c} gala" for c in configs) + ", OSQP")
files = sorted({r["file"] for r in rows})
for f in files:
    med = [statistics.median(r["gala_ms"] for r in rows if r["config"] == c and r["file"] == f) for c in configs]
    o = statistics.median(r["osqp_ms"] for r in rows if r["file"] == f)
    print(f"  {f:10s} " + " ".join(f"{m:8.2f}" for m in med) + f" {o:8.2f}")
PYEOF
