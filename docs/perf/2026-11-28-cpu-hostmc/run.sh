#!/usr/bin/env bash
# The host backend on every core against OSQP on the same QPs and cores (issue 37, "the user
# without a GPU"), in one run, rounds alternating so that every row shares the same minutes:
#
#     bash docs/perf/2026-11-28-cpu-hostmc/run.sh [OUT-DIR] [ROUNDS]
#
# Needs a Release build in build/ (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release) and a
# Python with osqp 1.1.3, numpy, scipy ($PY, default /tmp/v/bin/python: python3 -m venv
# /tmp/v && /tmp/v/bin/pip install osqp numpy scipy). Per round:
#   gala-qp solve --generate mpc:10x500 --summary   on the default device (the host backend
#                                                    here) with GALA_HOST_THREADS=1 and =2,
#                                                    and with --backend opencl (PoCL; its
#                                                    kernel cache filled before the rounds)
#   bench/ref_osqp.py on the same 500 instances (dumped by bench_qp): one core, and two
#                                                    processes
#   bench_potrf --op potrf --only batched --batch 10000 --n 16|32|64 (double), 1 and 2 threads
# and the medians at the end (QPs/s: setup + solve; potrf: median ms of 7 calls).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 2
OUT=${1:-/tmp/hostmc}
ROUNDS=${2:-5}
PY=${PY:-/tmp/v/bin/python}
B=build
mkdir -p "$OUT"
export GALA_CACHE_DIR=${GALA_CACHE_DIR:-$PWD/build/kcache}
unset GALA_BACKEND GALA_PLATFORM GALA_DEVICE GALA_TUNE

{
    date -u +"date %Y-%m-%dT%H:%M:%SZ"
    echo "commit $(git rev-parse --short HEAD)"
    echo "cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
    "$PY" -c "import osqp; print('osqp', osqp.__version__)"
    uptime
} | tee "$OUT/env.txt"
"$B/bench/bench_qp" --backend host --family control --batches 1 --dtypes double --reps 1 \
    --dump "$OUT" --dump-count 500 >"$OUT/dump.log" 2>&1
"$B/tools/gala-qp" solve --generate mpc:10x500 --backend opencl --summary >"$OUT/pocl_warm.txt" 2>&1

qps() { sed -n 's/.*; \([0-9.]*\) QPs\/s.*/\1/p' "$1"; }
for r in $(seq 1 "$ROUNDS"); do
    for t in 1 2; do
        GALA_HOST_THREADS=$t "$B/tools/gala-qp" solve --generate mpc:10x500 --summary \
            >"$OUT/qp_host${t}_$r.txt" 2>&1
        echo "host$t $(qps "$OUT/qp_host${t}_$r.txt")" >>"$OUT/qp_rows.txt"
    done
    "$B/tools/gala-qp" solve --generate mpc:10x500 --backend opencl --summary \
        >"$OUT/qp_pocl_$r.txt" 2>&1
    echo "pocl $(qps "$OUT/qp_pocl_$r.txt")" >>"$OUT/qp_rows.txt"
    "$PY" bench/ref_osqp.py "$OUT/control.gqp" --family control --procs 2 >"$OUT/osqp_$r.json"
    "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print('osqp1', d['one_core_qps_per_s']); print('osqp2', d['all_cores_qps_per_s'])" \
        "$OUT/osqp_$r.json" >>"$OUT/qp_rows.txt"
    for n in 16 32 64; do
        for t in 1 2; do
            GALA_HOST_THREADS=$t "$B/bench/bench_potrf" --backend host --op potrf --only batched \
                --n $n --batch 10000 --dtype double --reps 7 >"$OUT/potrf_${n}_${t}_$r.txt" 2>&1
            echo "potrf$n.t$t $(awk '/^potrf_batched/ {print $5}' "$OUT/potrf_${n}_${t}_$r.txt")" \
                >>"$OUT/potrf_rows.txt"
        done
    done
    echo "round $r done $(date -u +%H:%M:%S)"
done
uptime >>"$OUT/env.txt"
"$PY" - "$OUT" <<'EOF'
import statistics, sys, collections
out = sys.argv[1]
for f in ("qp_rows.txt", "potrf_rows.txt"):
    rows = collections.OrderedDict()
    for line in open(f"{out}/{f}"):
        k, v = line.split()
        rows.setdefault(k, []).append(float(v))
    for k, v in rows.items():
        print(f"{k:12s} median {statistics.median(v):10.2f}   all {' '.join(f'{x:.1f}' for x in v)}")
EOF
