#!/usr/bin/env bash
# Two (or more) revisions of gala, the same cases, one machine, one call: builds the
# benchmarks of REV_A and REV_B side by side, runs the cases in alternating rounds (A, B, B,
# A, ...) so that both share the same minutes, and prints each case's medians and the ratio
# B/A. Use it before and after every kernel or tuning change (DEVELOPERS.md: a speed-up
# claimed across calls or machines is not measured). REV_B may list several revisions
# (B1,B2,...): all are built and run in the same rounds, each compared with A (a bisection
# in one call).
#
#   bash bench/compare.sh REV_A REV_B[,REV_C,...] [CASES] [ROUNDS] [BACKEND]
#
#   REV_A, REV_B  git revisions (anything `git archive` takes), `.` for the working tree, a
#                 directory holding a source tree, or a tarball of one (`git archive REV |
#                 gzip >REV.tar.gz`: for a machine whose clone lacks the revision)
#   CASES         comma-separated, default qp,potrf:32,potrf:64:
#                   qp          bench_qp: control and double integrator at $BATCH (10000)
#                   qp-sparse   bench_qp: control at $BATCH through the sparse LDLᵀ strategy
#                   potrf:N     bench_potrf --op potrf --only batched --n N --batch $LA_BATCH
#                   potrs:N     the same with --op potrs
#                   potri:N     the same with --op potri
#                   potrf1:N    one matrix of order N: bench_potrf --only single --n N (also
#                               potrs1:N, potri1:N); e.g. GALA_TUNE=potrf.trsm=1 for a path
#                               that is not the default (GALA_TUNE applies to both sides)
#                   trtri       bench_trtri's batched cases (its own sizes)
#                 each in float and double ($DTYPES: float,double)
#   ROUNDS        rounds of A then B (default 5)
#   BACKEND       cuda, opencl (NVIDIA's platform when it has one, else the first) or host
#                 (default cuda when nvidia-smi works, else host)
#
# Environment: BATCH (QP batch, 10000), LA_BATCH (potrf/potrs/potri batch, 20000), DTYPES,
# OUT (results folder, default ./out/compare), CMAKE_ARGS (added to both builds), JOBS;
# TUNE_A, TUNE_B: GALA_TUNE for side A and for the B sides only (ahead of the caller's
# GALA_TUNE, so they win). A tuning change in one build: `TUNE_B=qp.wg=512 bash
# bench/compare.sh . . qp` (the same revision on two sides is built once).
# On the GPU machine: `source .device/setup.sh` first. Output: one line per case and dtype,
# the medians over rounds of A and B (QPs/s for qp, with mean iterations; ms for the dense
# routines) and B/A as a speed ratio (> 1: B is faster); every run's JSON in $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# -ge 2 ] || { sed -n '2,30p' "$0"; exit 2; }
rev_a=$1 rev_b=$2 cases=${3:-qp,potrf:32,potrf:64} rounds=${4:-5}
if [ -n "${5:-}" ]; then backend=$5
elif nvidia-smi -L >/dev/null 2>&1; then backend=cuda
else backend=host; fi
batch=${BATCH:-10000} la_batch=${LA_BATCH:-20000} dtypes=${DTYPES:-float,double}
OUT=${OUT:-$PWD/out/compare}
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d /tmp/gala-compare.XXXXXX)
mkdir -p "$OUT"

# --- the two builds, in parallel ------------------------------------------------------------
source_of() { # REV DIR: the tree of REV (or the working tree for '.') in DIR
    if [ "$1" = . ]; then
        git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -x -C "$2"
    elif [ -d "$1" ]; then
        cp -a "$1/." "$2"
    elif [ -f "$1" ]; then
        tar -xf "$1" -C "$2"
    else
        git archive "$1" | tar -x -C "$2"
    fi
}
build() { # SIDE REV
    local src=$work/src-$1 dir=$work/build-$1
    mkdir -p "$src"
    source_of "$2" "$src" || { echo "compare.sh: no revision '$2'" >&2; return 1; }
    # shellcheck disable=SC2086
    cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DGALA_BUILD_TESTS=OFF \
        -DGALA_BUILD_TOOLS=OFF ${CMAKE_ARGS:-} >"$work/$1.cmake.log" 2>&1 &&
        cmake --build "$dir" -j"$jobs" --target bench_qp bench_potrf bench_trtri \
            >"$work/$1.build.log" 2>&1 || { tail -20 "$work/$1.build.log" >&2; return 1; }
}
IFS=, read -ra revs_b <<<"$rev_b"
sides=(a) revs=("$rev_a") pids=()
for i in "${!revs_b[@]}"; do sides+=("b$((i + 1))"); revs+=("${revs_b[$i]}"); done
[ ${#revs_b[@]} -eq 1 ] && sides=(a b)
for i in "${!sides[@]}"; do
    j=0 # a revision already built for an earlier side is built once
    while [ "$j" -lt "$i" ] && [ "${revs[$j]}" != "${revs[$i]}" ]; do j=$((j + 1)); done
    [ "$j" -lt "$i" ] && continue
    build "${sides[$i]}" "${revs[$i]}" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || exit 1; done
for i in "${!sides[@]}"; do
    j=0
    while [ "${revs[$j]}" != "${revs[$i]}" ]; do j=$((j + 1)); done
    [ "$j" -lt "$i" ] && ln -s "$work/build-${sides[$j]}" "$work/build-${sides[$i]}"
done
describe() { # REV
    if [ "$1" = . ]; then echo "working tree of $(git rev-parse --short HEAD 2>/dev/null)"
    elif [ -e "$1" ]; then echo "source tree $1"
    else git rev-parse --short "$1"; fi
}
{
    for i in "${!sides[@]}"; do
        t=${TUNE_B:-}
        [ "$i" = 0 ] && t=${TUNE_A:-}
        echo "${sides[$i]} ${revs[$i]} $(describe "${revs[$i]}")${t:+ with GALA_TUNE=$t}"
    done
    echo "backend $backend, cases $cases, rounds $rounds, dtypes $dtypes, date $(date -u +%FT%TZ)"
} | tee "$OUT/compare-env.txt"

plat=()
if [ "$backend" = opencl ] && clinfo -l 2>/dev/null | grep -qi nvidia; then plat=(--platform nvidia); fi
dt_arg=both
[ "$dtypes" = float ] && dt_arg=float
[ "$dtypes" = double ] && dt_arg=double

run_case() { # SIDE ROUND CASE
    local side=$1 r=$2 c=$3 bin=$work/build-$1/bench tag json
    tag=$(echo "$c" | tr ':' '_')
    json=$OUT/${tag}_${side}_$r.json
    export GALA_CACHE_DIR=$work/kcache-$side
    local tune=${TUNE_B:-}
    [ "$side" = a ] && tune=${TUNE_A:-}
    tune=$tune${tune:+${caller_tune:+,}}$caller_tune
    if [ -n "$tune" ]; then export GALA_TUNE=$tune; else unset GALA_TUNE; fi
    case "$c" in
    qp) "$bin/bench_qp" --backend "$backend" "${plat[@]}" --family control,di --batches "$batch" \
            --dtypes "$dtypes" --reps 3 --json "$json" ;;
    qp-sparse) "$bin/bench_qp" --backend "$backend" "${plat[@]}" --family control --batches "$batch" \
            --linsys sparse-ldlt --dtypes "$dtypes" --reps 3 --json "$json" ;;
    potrf:*|potrs:*|potri:*)
        "$bin/bench_potrf" --backend "$backend" "${plat[@]}" --op "${c%%:*}" --only batched \
            --n "${c#*:}" --batch "$la_batch" --dtype "$dt_arg" --reps 10 --json "$json" ;;
    potrf1:*|potrs1:*|potri1:*)
        "$bin/bench_potrf" --backend "$backend" "${plat[@]}" --op "${c%%1:*}" --only single \
            --n "${c#*:}" --dtype "$dt_arg" --reps 5 --json "$json" ;;
    trtri) "$bin/bench_trtri" --backend "$backend" "${plat[@]}" --only batched --dtype "$dt_arg" \
            --quick --json "$json" ;;
    *) echo "compare.sh: unknown case '$c'" >&2; return 2 ;;
    esac >"${json%.json}.txt" 2>&1 || echo "round $r, side $side, case $c failed (${json%.json}.txt)" >&2
}
caller_tune=${GALA_TUNE:-}
IFS=, read -ra case_list <<<"$cases"
# one untimed run per side first: kernel compilation and caches, outside the rounds
for c in "${case_list[@]}"; do for s in "${sides[@]}"; do run_case "$s" 0 "$c"; done; done
# the order of the sides turns every round (A B, B A, A B, ...): in three same-call
# comparisons of 2026-11-28 the side that ran second was 2-5 % slower on the double
# integrator's 10⁴ QPs (16 ms, most of it host-side setup) whatever the revisions
for r in $(seq 1 "$rounds"); do
    order=("${sides[@]}")
    if [ $((r % 2)) = 0 ]; then
        order=()
        for ((i = ${#sides[@]} - 1; i >= 0; i--)); do order+=("${sides[i]}"); done
    fi
    for c in "${case_list[@]}"; do for s in "${order[@]}"; do run_case "$s" "$r" "$c"; done; done
done

python3 - "$OUT" "$rounds" "$cases" "$batch" "${sides[*]}" <<'PYEOF' | tee "$OUT/compare.txt"
import json, statistics, sys
out, rounds, cases, batch = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4])
sides = sys.argv[5].split()
rows = {}  # (case, key) -> side -> {"v": [...], "it": [...]}
for c in cases:
    tag = c.replace(":", "_")
    for side in sides:
        for r in range(1, rounds + 1):
            try:
                j = json.load(open(f"{out}/{tag}_{side}_{r}.json"))
            except (OSError, ValueError):
                continue
            for x in j["results"]:
                if c.startswith("qp"):
                    if x.get("bench") != "qp" or x.get("batch") != batch or "qps_per_s" not in x:
                        continue
                    key, val, it = f"{x['family']}{'-sparse' if c == 'qp-sparse' else ''} {x['dtype']} {batch}", x["qps_per_s"], x.get("mean_iter")
                    so = x.get("solve_s")
                else:
                    if "median_ms" not in x or "async" in x.get("kind", ""):
                        continue
                    key, val, it = f"{x['kind']} n={x['n']} b={x['batch']} {x['dtype']}", x["median_ms"], None
                    so = None
                d = rows.setdefault((c, key), {}).setdefault(side, {"v": [], "it": [], "so": []})
                d["v"].append(val)
                if so is not None:
                    d["so"].append(1e3 * so)
                if it is not None:
                    d["it"].append(it)
for b in sides[1:]:
    print(f"{'case':44} {'A':>11} {b.upper():>11} {b.upper() + '/A speed':>10}  rounds A/{b.upper()}  iterations A/{b.upper()}  solve ms A/{b.upper()}")
    for (c, key), v in rows.items():
        pair = ("a", b)
        med = {s: statistics.median(v[s]["v"]) if s in v else float("nan") for s in pair}
        qp = c.startswith("qp")
        unit = "QPs/s" if qp else "ms"
        speed = med[b] / med["a"] if qp else med["a"] / med[b]
        its = "/".join(f"{statistics.median(v[s]['it']):.1f}" if s in v and v[s]["it"] else "-" for s in pair)
        n = "/".join(str(len(v[s]["v"])) if s in v else "0" for s in pair)
        # the solve alone (qp): what a kernel or tuning change moves, without the set-up's
        # host-side spread
        so = "/".join(f"{statistics.median(v[s]['so']):.2f}" if s in v and v[s]["so"] else "-" for s in pair)
        print(f"{key + ' (' + unit + ')':44} {med['a']:11.4g} {med[b]:11.4g} {speed:10.3f}  {n:>10}  {its:>13}  {so}")
PYEOF
rm -rf "$work"
