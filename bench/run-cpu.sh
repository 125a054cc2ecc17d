#!/usr/bin/env bash
# bench/run-cpu.sh: the benchmark suite on this machine's CPU, CI-sized (--quick), so that
# users without a GPU know what they get (issue 7, the CPU section of docs/performance.md).
#
#     bash bench/run-cpu.sh [RESULTS-DIR]        (default /tmp/gala-cpu-results)
#
# Builds gala (Release, tests off) in $GALA_CPU_BUILD (default /tmp/gala-cpu-build, outside
# the repository) with -j$(nproc), then runs with --quick, one step after another:
#   bench_ceiling, bench_trtri, bench_potrf, bench_ldlt (sparse + --dense), bench_qp
#     on the host backend (gala's C reference, every core: GALA_HOST_THREADS caps it) and
#     on OpenCL through PoCL;
#   ref_lapack (LAPACKE / OpenBLAS, OPENBLAS_NUM_THREADS=1) on the same cases, and its CPU
#     ceilings (memcpy bandwidth, one-thread GEMM);
#   QDLDL on the sparse LDLᵀ cases when its public source is in $QDLDL_SRC (default .qdldl/;
#     never committed), built in /tmp;
#   OSQP (pip install osqp) on bench_qp's instances, one core and all cores;
# and bench/report.py over the results (report.md and plots/ in RESULTS-DIR).
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are left as the environment sets them (recorded in
# env.txt and in ref_lapack's header). Each step is logged; summary.txt has one line per
# step (PASS, FAIL, TIMEOUT, SKIP). Environment: CPU_REPS (default 5), CPU_STEP_SECONDS
# (limit of one step, default 1200), PYTHON (default python3).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
SRC=$PWD
W=${1:-/tmp/gala-cpu-results}
BUILD=${GALA_CPU_BUILD:-/tmp/gala-cpu-build}
QDLDL_SRC=${QDLDL_SRC:-$SRC/.qdldl}
REPS=${CPU_REPS:-5}
LIMIT=${CPU_STEP_SECONDS:-1200}
PY=${PYTHON:-python3}
JOBS=$(nproc 2>/dev/null || echo 2)
START=$(date +%s)
mkdir -p "$W"
SUMMARY=$W/summary.txt
: >"$SUMMARY"
FAILED=0
if [ -z "${GALA_GIT_COMMIT:-}" ]; then
    GALA_GIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
fi
export GALA_GIT_COMMIT GALA_CACHE_DIR="$BUILD/kcache" PYTHONUNBUFFERED=1

record() { # VERDICT NAME SECONDS RC LOG [WHY]
    printf '%-7s %-16s %5ss rc=%-3s %s %s\n' "$1" "$2" "$3" "$4" "$5" "${6:-}" | tee -a "$SUMMARY"
    case $1 in FAIL | TIMEOUT) FAILED=1 ;; esac
}
step() { # NAME LOG CMD...: run CMD with its output in $W/LOG
    local name=$1 log=$2 t0 rc verdict why=""
    shift 2
    t0=$(date +%s)
    timeout --kill-after=10 "$LIMIT" "$@" >"$W/$log" 2>&1
    rc=$?
    verdict=PASS
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then verdict=TIMEOUT
    elif [ $rc -ne 0 ]; then verdict=FAIL why="(last line: $(tail -1 "$W/$log" | cut -c1-120))"; fi
    record $verdict "$name" $(($(date +%s) - t0)) $rc "$log" "$why"
}

{
    echo "date: $(date -u +%FT%TZ)   host: $(hostname)   cores: $JOBS"
    echo "commit: $GALA_GIT_COMMIT"
    echo "command: bash bench/run-cpu.sh"
    lscpu 2>/dev/null | grep -E '^(Model name|CPU\(s\)|Thread|L2|L3)'
    echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-unset}"
    gcc --version | head -1
    clinfo -l 2>&1
    $PY -c 'import osqp; print("osqp", osqp.__version__)' 2>&1 | tail -1
} >"$W/env.txt" 2>&1
record PASS environment 0 0 env.txt

step build build.log bash -c "cmake -S '$SRC' -B '$BUILD' -DCMAKE_BUILD_TYPE=Release \
    -DGALA_BUILD_TESTS=OFF -DGALA_BUILD_BENCH=ON && cmake --build '$BUILD' -j$JOBS"
B=$BUILD/bench
if [ ! -x "$B/bench_trtri" ]; then
    echo "build failed: see $W/build.log" | tee -a "$SUMMARY"
    exit 1
fi

# QDLDL from its public source (for the sparse LDLᵀ reference), outside the repository
QD=()
if [ -f "$QDLDL_SRC/CMakeLists.txt" ]; then
    if cmake -S "$QDLDL_SRC" -B /tmp/qdldl-cpu-build -DCMAKE_BUILD_TYPE=Release >"$W/qdldl.log" 2>&1 &&
        cmake --build /tmp/qdldl-cpu-build -j"$JOBS" >>"$W/qdldl.log" 2>&1; then
        QD=(--qdldl /tmp/qdldl-cpu-build/out/libqdldl.so)
        record PASS qdldl-build 0 0 qdldl.log
    else
        record FAIL qdldl-build 0 1 qdldl.log
    fi
else
    record SKIP qdldl-build 0 - - "(no QDLDL source in $QDLDL_SRC)"
fi

C=(--reps "$REPS" --warmup 1 --quick)
for be in host pocl; do
    if [ $be = host ]; then args=(--backend host); else args=(--backend opencl --platform portable); fi
    step "ceiling $be" "gala_ceiling_$be.txt" "$B/bench_ceiling" "${args[@]}" "${C[@]}" \
        --json "$W/gala_ceiling_$be.json"
    step "trtri $be" "gala_trtri_$be.txt" "$B/bench_trtri" "${args[@]}" "${C[@]}" \
        --json "$W/gala_trtri_$be.json"
    step "potrf $be" "gala_potrf_$be.txt" "$B/bench_potrf" "${args[@]}" "${C[@]}" \
        --json "$W/gala_potrf_$be.json"
    # the host backend's sparse rows (and QDLDL's) come with the PoCL run, whose second
    # context is the host backend; the host run does the dense part only
    ld=(--dense --no-sparse)
    [ $be = pocl ] && ld=(--dense --host-max-batch 1000 ${QD[@]+"${QD[@]}"})
    step "ldlt $be" "gala_ldlt_$be.txt" "$B/bench_ldlt" "${args[@]}" "${C[@]}" "${ld[@]}" \
        --json "$W/gala_ldlt_$be.json"
    dump=()
    [ $be = host ] && mkdir -p "$W/qpdump" && dump=(--dump "$W/qpdump" --dump-count 200)
    step "qp $be" "gala_qp_$be.txt" "$B/bench_qp" "${args[@]}" --quick ${dump[@]+"${dump[@]}"} \
        --json "$W/gala_qp_$be.json"
done

if [ -x "$B/ref_lapack" ]; then
    for fam in ceiling trtri potrf ldlt; do
        step "lapacke $fam" "lapacke_$fam.log" env OPENBLAS_NUM_THREADS=1 "$B/ref_lapack" \
            --family "$fam" --quick --reps "$REPS" --out "$W/lapacke_$fam.json"
    done
else
    record SKIP lapacke 0 - - "(ref_lapack not built: liblapacke-dev / libopenblas-dev missing)"
fi

if ! $PY -c 'import osqp, scipy' 2>/dev/null; then
    record SKIP osqp 0 - - "(osqp or scipy not importable: pip install osqp)"
elif [ ! -s "$W/qpdump/control.gqp" ]; then
    record SKIP osqp 0 - - "(no QP instances: the qp host step did not write them)"
else
    for fam in control di; do
        step "osqp $fam" "osqp_$fam.log" bash -c "$PY '$SRC/bench/ref_osqp.py' '$W/qpdump/$fam.gqp' \
            --family $fam --procs $JOBS --count 200 --compare '$W/gala_qp_host.json' >'$W/osqp_$fam.json'"
    done
fi
rm -rf "$W/qpdump"

step report report.log "$PY" "$SRC/bench/report.py" "$W" --out "$W/report.md" --plots "$W/plots" \
    --plot-prefix cpu_ --title "CPU run (--quick)"
echo "total $(($(date +%s) - START)) s; results in $W" | tee -a "$SUMMARY"
exit $FAILED
