#!/usr/bin/env bash
# A user's first call, measured: `gala-qp solve --generate mpc:10x100` with an empty kernel
# cache (GALA_CACHE_DIR, POCL_CACHE_DIR and CUDA's own cache all fresh), then the same command
# with the cache filled, for each backend and precision, in alternating rounds over one or
# more builds (issue 37: the first call within 5 s on CUDA and 10 s on OpenCL).
#
#   bash bench/cold-start.sh [BUILD_DIR ...]        (default: build)
#
# BUILD_DIR: a CMake build folder holding tools/gala-qp. Environment: BACKENDS (default
# "cuda opencl" where nvidia-smi works, else "opencl host"), PRECISIONS ("float double"),
# ROUNDS (3), PROBLEM (mpc:10x100), OUT (./out/cold-start). On the GPU machine source
# .device/setup.sh first. Prints, per build, backend and precision, the median and range of
# the cold and warm wall seconds; writes cold-start.txt (those lines), runs.csv (every run)
# and, per cold run of the first round, the order and time after start at which each
# kernel program reached the cache (timeline-*.txt: what the first call spent its time on).
# runs.csv's `compiled` is the number of programs a run compiled (entries it added to the
# kernel cache): on CUDA with the prebuilt kernels (docs/cuda.md), the programs the store
# lacked. GALA_CUDA_STORE=0 in the environment measures without the store.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
builds=("$@")
[ ${#builds[@]} -eq 0 ] && builds=(build)
if [ -z "${BACKENDS:-}" ]; then
    if nvidia-smi -L >/dev/null 2>&1; then BACKENDS="cuda opencl"; else BACKENDS="opencl host"; fi
fi
PRECISIONS=${PRECISIONS:-float double} ROUNDS=${ROUNDS:-3} PROBLEM=${PROBLEM:-mpc:10x100}
OUT=${OUT:-$PWD/out/cold-start}
mkdir -p "$OUT"
plat=()
if clinfo -l 2>/dev/null | grep -qi nvidia; then plat=(--platform nvidia); fi
work=$(mktemp -d /tmp/gala-cold.XXXXXX)
echo "build,backend,precision,round,kind,wall_s,rc,compiled" >"$OUT/runs.csv"
{
    date -u +%FT%TZ
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
    echo "cores $(nproc), GALA_BUILD_THREADS=${GALA_BUILD_THREADS:-default}, problem $PROBLEM"
    for b in "${builds[@]}"; do echo "build $b"; done
} | tee "$OUT/env.txt"

one() { # BUILD BACKEND PRECISION ROUND KIND CACHE [ENTRIES_BEFORE]: one timed run, appended to runs.csv
    local b=$1 be=$2 p=$3 r=$4 kind=$5 cache=$6 args=() t0 t1 rc
    [ "$be" = opencl ] && args=("${plat[@]}")
    t0=$(date +%s.%N)
    GALA_CACHE_DIR=$cache POCL_CACHE_DIR=$cache/pocl CUDA_CACHE_PATH=$cache/cuda \
        "$b/tools/gala-qp" solve --generate "$PROBLEM" --backend "$be" "${args[@]}" \
        --precision "$p" >"$work/last.txt" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    local before=${7:-0} n
    n=$(find "$cache" -maxdepth 1 -name '*.bin' ! -name 'failed-*' 2>/dev/null | wc -l)
    echo "$b,$be,$p,$r,$kind,$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}'),$rc,$((n - before))" >>"$OUT/runs.csv"
    [ $rc -eq 0 ] || { echo "$b $be $p: rc $rc" >&2; tail -5 "$work/last.txt" >&2; }
    echo "$t0"
}
for r in $(seq 1 "$ROUNDS"); do
    for be in $BACKENDS; do
        for p in $PRECISIONS; do
            for i in "${!builds[@]}"; do
                b=${builds[$i]} cache=$work/cache-$i-$be-$p-$r
                t0=$(one "$b" "$be" "$p" "$r" cold "$cache")
                if [ "$r" = 1 ]; then # what reached the cache when, after the start
                    find "$cache" -maxdepth 1 2>/dev/null -name '*.bin' -printf '%T@ %f\n' | sort -n |
                        awk -v t0="$t0" '{printf "%7.2f s  %s\n", $1 - t0, $2}' \
                            >"$OUT/timeline-$i-$be-$p.txt"
                fi
                n=$(find "$cache" -maxdepth 1 -name '*.bin' ! -name 'failed-*' 2>/dev/null | wc -l)
                one "$b" "$be" "$p" "$r" warm "$cache" "$n" >/dev/null
                rm -rf "$cache"
            done
        done
    done
done
python3 - "$OUT/runs.csv" <<'PYEOF' | tee "$OUT/cold-start.txt"
import csv, statistics, sys
rows, compiled = {}, {}
for x in csv.DictReader(open(sys.argv[1])):
    k = (x["build"], x["backend"], x["precision"], x["kind"])
    rows.setdefault(k, []).append(float(x["wall_s"]))
    compiled.setdefault(k, []).append(int(x["compiled"]))
print(f"{'build':28} {'backend':8} {'precision':9} {'cold s (range)':>22} {'warm s (range)':>22}"
      f" {'compiled cold':>14}")
for (b, be, p, kind), v in sorted(rows.items()):
    if kind != "cold":
        continue
    w = rows.get((b, be, p, "warm"), [float("nan")])
    fmt = lambda v: f"{statistics.median(v):6.2f} ({min(v):.2f}-{max(v):.2f})"
    c = compiled[(b, be, p, kind)]
    print(f"{b[-28:]:28} {be:8} {p:9} {fmt(v):>22} {fmt(w):>22} {min(c):>6}-{max(c)}")
PYEOF
rm -rf "$work"
