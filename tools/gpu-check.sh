#!/usr/bin/env bash
# tools/gpu-check.sh: the GPU machine's check of the CUDA and OpenCL backends (issue 6).
#
# Run from the repository root on the GPU machine (NVIDIA H100/H200, CUDA 13), with the
# Debian packages of ../shared/device/fetch-debs.sh carried in .device/:
#
#     bash tools/gpu-check.sh
#
# It sources .device/setup.sh (OpenCL ICD loader, headers, CLBlast, Check, ...), builds
# with OpenCL + CUDA into $GALA_GPU_BUILD (default /tmp/gala-build, outside the repo),
# then, each step logged under $OUT (default /tmp/out):
#   1. env.txt          GPU, driver, toolkit, OpenCL platforms, commit
#   2. build.log        configure + build (warnings are counted, not fatal, on this machine)
#   3. gala-info.txt    every device and its self-test
#   4. ctest-cuda.log           GALA_TEST_BACKENDS=host,cuda        whole suite
#      ctest-opencl-nvidia.log  GALA_TEST_BACKENDS=opencl GALA_PLATFORM=nvidia
#   5. ctest-opencl-pocl.log    GALA_TEST_BACKENDS=opencl GALA_PLATFORM=portable
#      (PoCL on the CPU; $GPU_CHECK_POCL_TESTS, a ctest -R regex, narrows it)
#   6. sanitizer/<tool>-<test>.log  compute-sanitizer memcheck (with leak check) and
#      racecheck over the kernel tests on CUDA (GALA_TEST_BACKENDS=cuda, -lineinfo);
#      $GPU_CHECK_SANITIZE_TESTS (a bash regex on the test name) narrows it
#   7. bench-vec-{cuda,opencl-nvidia}.{txt,json}  bench_vec --quick on both GPU backends
# and summary.txt: one line per step,
#     VERDICT  STEP  SECONDSs rc=CODE LOG
# VERDICT is PASS, FAIL, TIMEOUT or SKIP (not enough time left, or a missing tool).
# Steps share a deadline of $GPU_CHECK_SECONDS (default 470 s) so the whole run fits in the
# device tool's 10 minutes; later steps are skipped rather than cut off. Exit code 0 when
# no step failed or timed out.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
SRC=$PWD
OUT=${OUT:-/tmp/out}
BUILD=${GALA_GPU_BUILD:-/tmp/gala-build}
DEADLINE=${GPU_CHECK_SECONDS:-470}
JOBS=$(nproc 2>/dev/null || echo 8)
START=$(date +%s)
mkdir -p "$OUT/sanitizer"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
FAILED=0

if [ -f .device/setup.sh ] && [ -z "${OCL_ICD_VENDORS:-}" ]; then
    # shellcheck disable=SC1091
    source .device/setup.sh
fi
export PATH="$PATH:/usr/local/cuda/bin"

left() { echo $((DEADLINE - ($(date +%s) - START))); }

record() { # VERDICT NAME SECONDS RC LOG
    printf '%-7s %-34s %4ss rc=%-3s %s\n' "$1" "$2" "$3" "$4" "$5" | tee -a "$SUMMARY"
    case $1 in FAIL | TIMEOUT) FAILED=1 ;; esac
}

# step NAME LOG MIN_SECONDS CMD...: run CMD (output to $OUT/LOG) within the time left.
step() {
    local name=$1 log=$2 need=$3
    shift 3
    local rem t0 rc verdict
    rem=$(left)
    if [ "$rem" -lt "$need" ]; then
        record SKIP "$name" 0 - "$log (only ${rem}s left)"
        return 0
    fi
    t0=$(date +%s)
    timeout --kill-after=10 "$rem" "$@" >"$OUT/$log" 2>&1
    rc=$?
    verdict=PASS
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then verdict=TIMEOUT; elif [ $rc -ne 0 ]; then verdict=FAIL; fi
    record $verdict "$name" $(($(date +%s) - t0)) $rc "$log"
    return $rc
}

# ------------------------------------------------------------------ 1. environment
{
    echo "date: $(date -u +%FT%TZ)   host: $(hostname)   cores: $JOBS"
    echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown) $(git status --short 2>/dev/null | wc -l) changed files"
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1
    nvcc --version 2>&1 | tail -2
    command -v compute-sanitizer && compute-sanitizer --version 2>&1 | tail -1
    cmake --version | head -1
    gcc --version | head -1
    echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-unset}"
    clinfo -l 2>&1
} >"$OUT/env.txt" 2>&1
record PASS environment 0 0 env.txt

# ------------------------------------------------------------------ 2. build
# shellcheck disable=SC2317 # run through bash -c
build() {
    # the prebuilt CUDA kernels for this GPU only (docs/cuda.md): a third of the default
    # list's compile time, and test_cuda_store checks the store on the GPU
    cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGALA_WITH_CUDA=ON \
        -DGALA_WITH_OPENCL=ON -DGALA_BUILD_BENCH=ON -DGALA_CUDA_ARCHS=native &&
        cmake --build "$BUILD" -j"$JOBS"
}
export -f build
export SRC BUILD JOBS
if ! step build build.log 60 bash -c build; then
    echo "build failed: see $OUT/build.log" | tee -a "$SUMMARY"
    exit 1
fi
echo "        (build: $(grep -c 'warning:' "$OUT/build.log") compiler warnings)" | tee -a "$SUMMARY"

# ------------------------------------------------------------------ 3. gala-info
step gala-info gala-info.txt 20 "$BUILD/tools/gala-info"

# ------------------------------------------------------------------ 4. suites on the GPU
suite() { # NAME LOG MIN ENV... -- CTEST-ARGS...
    local name=$1 log=$2 need=$3
    shift 3
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    step "$name" "$log" "$need" env "${envs[@]}" ctest --test-dir "$BUILD" --output-on-failure \
        --timeout 600 "$@"
}
suite "ctest host+cuda" ctest-cuda.log 30 GALA_TEST_BACKENDS=host,cuda -- -j4
suite "ctest opencl nvidia" ctest-opencl-nvidia.log 30 \
    GALA_TEST_BACKENDS=opencl GALA_PLATFORM=nvidia -- -j4

# ------------------------------------------------------------------ 5. PoCL
suite "ctest opencl pocl" ctest-opencl-pocl.log 60 \
    GALA_TEST_BACKENDS=opencl GALA_PLATFORM=portable -- -j"$((JOBS / 2))" \
    ${GPU_CHECK_POCL_TESTS:+-R "$GPU_CHECK_POCL_TESTS"}

# ------------------------------------------------------------------ 6. compute-sanitizer
# Kernel tests: every test program but the ones about compilation, caching, host threads
# and fault injection. Each (tool, test) pair is one log; four run at a time.
sanitize_one() { # TOOL TEST
    local tool=$1 t=$2 extra=()
    # API errors are not reported: gala checks the return code of every CUDA call itself,
    # and some tests make calls that must fail (e.g. wrapping a pointer that is not device
    # memory). Memory errors, races and leaks are what these runs are for.
    [ "$tool" = memcheck ] && extra=(--leak-check full --report-api-errors no)
    GALA_TEST_BACKENDS=cuda GALA_NVRTC_OPTIONS=-lineinfo GALA_CACHE_DIR="$BUILD/kcache-sanitizer" \
        CK_DEFAULT_TIMEOUT=0 compute-sanitizer --tool "$tool" ${extra[@]+"${extra[@]}"} --error-exitcode 99 \
        --target-processes application-only \
        --print-limit 40 "$BUILD/tests/$t"
}
export -f sanitize_one
if command -v compute-sanitizer >/dev/null; then
    pairs=()
    for exe in "$BUILD"/tests/test_*; do
        t=$(basename "$exe")
        case $t in test_nvrtc | test_kcache | test_fault | test_threads | test_qps) continue ;; esac
        [ -n "${GPU_CHECK_SANITIZE_TESTS:-}" ] && ! [[ $t =~ $GPU_CHECK_SANITIZE_TESTS ]] && continue
        pairs+=("memcheck $t" "racecheck $t")
    done
    rem=$(left)
    if [ "$rem" -lt 60 ]; then
        record SKIP compute-sanitizer 0 - "only ${rem}s left"
    else
        t0=$(date +%s)
        printf '%s\n' "${pairs[@]}" | timeout --kill-after=10 "$((rem - 10))" xargs -P 4 -L 1 \
            bash -c 'sanitize_one "$0" "$1" >"'"$OUT"'/sanitizer/$0-$1.log" 2>&1; echo "$? $0 $1"' \
            >"$OUT/sanitizer/results.txt" 2>&1
        dt=$(($(date +%s) - t0))
        for p in "${pairs[@]}"; do
            read -r tool t <<<"$p"
            rc=$(awk -v a="$tool" -v b="$t" '$2 == a && $3 == b {print $1}' "$OUT/sanitizer/results.txt")
            log="sanitizer/$tool-$t.log"
            if [ -z "$rc" ]; then record TIMEOUT "sanitizer $tool $t" "$dt" - "$log"
            elif [ "$rc" = 0 ]; then record PASS "sanitizer $tool $t" "$dt" 0 "$log"
            else record FAIL "sanitizer $tool $t" "$dt" "$rc" "$log"; fi
        done
    fi
else
    record SKIP compute-sanitizer 0 - "compute-sanitizer not found"
fi

# ------------------------------------------------------------------ 7. first CUDA vs OpenCL timings
if [ -x "$BUILD/bench/bench_vec" ]; then
    step "bench_vec cuda" bench-vec-cuda.txt 30 "$BUILD/bench/bench_vec" --quick --backend cuda \
        --json "$OUT/bench-vec-cuda.json"
    step "bench_vec opencl nvidia" bench-vec-opencl-nvidia.txt 30 "$BUILD/bench/bench_vec" --quick \
        --backend opencl --platform nvidia --json "$OUT/bench-vec-opencl-nvidia.json"
fi

echo "total $(($(date +%s) - START)) s; logs in $OUT" | tee -a "$SUMMARY"
exit $FAILED
