#!/usr/bin/env bash
# bench/run-gpu.sh: gala's whole benchmark suite and its references on the GPU machine, in one
# call of the device tool (10 minutes, build included), then the report (issue 7).
#
#     GALA_GIT_COMMIT=$(git rev-parse --short HEAD) bash bench/run-gpu.sh
#
# Run from anywhere in the repository (it changes to the root). It sources .device/setup.sh
# (OpenCL ICD loader, CLBlast, SuiteSparse, ...: ../shared/device/README.md) when it is there,
# installs carried wheels from .whl/ (osqp; optional matplotlib) into /tmp/site, builds gala
# (OpenCL + CUDA, Release, tests off) in $GALA_GPU_BUILD outside the repository, and runs,
# the headline cases first (README's table: the QP batches against OSQP, batched Cholesky),
# so that a call that runs short leaves out the least important rows, never those:
#   qp        bench_qp (control and double integrator, batches 1..100000, float and double) on
#             OpenCL-NVIDIA and CUDA, ref_osqp.py on the same instances (one core and all
#             cores; the double integrator also --reuse), the double integrator with declared
#             shared matrices
#   potrf     bench_potrf (potrf, potrs, potri) on CUDA, OpenCL-NVIDIA; ref_potrf.py
#   ceilings  bench_ceiling (copy bandwidth, GEMM through CLBlast / cuBLAS) on CUDA and
#             OpenCL-NVIDIA; ref_ceiling.py (torch copy, torch.matmul fp32 without TF32 and fp64)
#   trtri     bench_trtri on CUDA and OpenCL-NVIDIA, ref_trtri.py
#   qp (rest) the heterogeneous-batch pair, one QP on the host backend
#   ldlt      bench_ldlt (sparse MPC KKT batches + dense) on OpenCL-NVIDIA and CUDA, with QDLDL
#             when its source is carried in .qdldl/; ref_ldlt.py (torch.linalg.ldl_factor)
#   vec       bench_vec --quick on both backends (last: the QP solver's vector kernels)
# then bench/report.py over everything, and packs under $OUT (at most 3 files):
#   summary.txt      one line per step: VERDICT STEP SECONDS rc=CODE MODE LOG [why]
#                    VERDICT is PASS, FAIL, TIMEOUT or SKIP; MODE is full or quick
#   report.md        the tables (and the list of targets with their measured ratios)
#   results.tar.gz   every JSON, log and PNG (re-run bench/report.py on it anywhere)
# results.tar.gz is rewritten after every step, so a call cut off at its limit still brings
# back all finished steps.
#
# Time: every step has a full and a quick budget (PLAN below). A step runs in full when the
# time left, less the quick budgets of all later steps and a reserve for the report, covers
# its full budget; otherwise quick when the time left covers its quick budget; otherwise it
# is skipped and summary.txt says so. A running step is stopped at twice its budget (TIMEOUT;
# the rows it wrote are kept). The budgets are rough expectations on an H100/H200 with 16
# cores (trtri's full run took 12 s there on 2026-11-22); a step that ends early leaves its
# time to the later ones, which then run in full.
#
# Environment:
#   OUT                where the files to bring back go (the device tool sets it; /tmp/out)
#   GALA_GPU_BUILD     build folder (default /tmp/gala-bench-build; reused when present)
#   RUN_GPU_SECONDS    time for all steps, build and report included (default 570)
#   RUN_GPU_QUICK=1    run every step in its quick form
#   RUN_GPU_ONLY       comma-separated families to run (ceiling,trtri,potrf,qp,ldlt,vec)
#   RUN_GPU_REPS       timed repeats per case (default 10; 2 warm-up runs)
#   GALA_GIT_COMMIT    commit recorded in every JSON (the machine may not have .git)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
SRC=$PWD
OUT=${OUT:-/tmp/out}
BUILD=${GALA_GPU_BUILD:-/tmp/gala-bench-build}
DEADLINE=${RUN_GPU_SECONDS:-570}
REPORT_RESERVE=30
QUICK_ALL=${RUN_GPU_QUICK:-0}
ONLY=${RUN_GPU_ONLY:-ceiling,trtri,potrf,qp,ldlt,vec}
REPS=${RUN_GPU_REPS:-10}
W=/tmp/gala-bench-results
JOBS=$(nproc 2>/dev/null || echo 8)
START=$(date +%s)
COMMAND="bash bench/run-gpu.sh${RUN_GPU_QUICK:+ (RUN_GPU_QUICK=$RUN_GPU_QUICK)}${RUN_GPU_ONLY:+ (RUN_GPU_ONLY=$RUN_GPU_ONLY)}"
rm -rf "$W"
mkdir -p "$OUT" "$W"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
FAILED=0

# name  family  full-seconds  quick-seconds   (in the order they run)
PLAN="
build         core      90  90
gala-info     core      15  10
warm          core      90  60
qp-ocl        qp        80  20
qp-cuda       qp        70  20
qp-osqp       qp        30  15
qp-shared     qp        25  10
potrf-cuda    potrf     90  20
potrf-ocl     potrf    150  30
potrf-torch   potrf     50  25
ceiling-cuda  ceiling   15  10
ceiling-ocl   ceiling   25  15
ceiling-torch ceiling   20  15
trtri-cuda    trtri     20  10
trtri-ocl     trtri     20  10
trtri-torch   trtri     25  15
qp-hetero     qp        35  10
qp-host       qp        10   8
ldlt-ocl      ldlt      40  20
ldlt-cuda     ldlt      30  15
ldlt-torch    ldlt      25  10
vec-ocl       vec       10   8
vec-cuda      vec       10   8
"

wanted() { # FAMILY: whether RUN_GPU_ONLY includes it
    [ "$1" = core ] || [[ ",$ONLY," == *",$1,"* ]]
}
REST_QUICK=0
while read -r name fam full quick; do
    [ -n "$name" ] && wanted "$fam" && REST_QUICK=$((REST_QUICK + quick))
done <<<"$PLAN"

note() { echo "$*" | tee -a "$SUMMARY"; }
left() { echo $((DEADLINE - ($(date +%s) - START))); }
pack() { tar czf "$OUT/results.tar.gz.part" -C "$W" . 2>/dev/null && mv "$OUT/results.tar.gz.part" "$OUT/results.tar.gz"; }
record() { # VERDICT NAME SECONDS RC MODE LOG [WHY]
    printf '%-7s %-14s %4ss rc=%-3s %-5s %s %s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:-}" | tee -a "$SUMMARY"
    case $1 in FAIL | TIMEOUT) FAILED=1 ;; esac
}

# step NAME LOG FUNCTION: run FUNCTION full|quick (a function exported below), output to
# $W/LOG, in the mode and within the time the plan allows.
step() {
    local name=$1 log=$2 fn=$3 fam full quick rem mode budget lim t0 rc verdict
    read -r fam full quick < <(awk -v n="$name" '$1 == n {print $2, $3, $4}' <<<"$PLAN")
    wanted "$fam" || return 0
    REST_QUICK=$((REST_QUICK - quick))
    rem=$(($(left) - REPORT_RESERVE))
    if [ "$QUICK_ALL" = 1 ]; then mode=quick budget=$quick
    elif [ $((rem - REST_QUICK)) -ge "$full" ]; then mode=full budget=$full
    elif [ "$rem" -ge "$quick" ]; then mode=quick budget=$quick
    else
        record SKIP "$name" 0 - - "$log" "(only ${rem}s left before the report's reserve; needs ${quick}s)"
        return 0
    fi
    lim=$((budget * 2))
    [ "$lim" -gt "$rem" ] && lim=$rem
    t0=$(date +%s)
    timeout --kill-after=5 "$lim" bash -c "$fn \"\$0\"" "$mode" >"$W/$log" 2>&1
    rc=$?
    verdict=PASS
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then verdict=TIMEOUT
    elif [ $rc -eq 3 ]; then verdict=SKIP
    elif [ $rc -ne 0 ]; then verdict=FAIL; fi
    local why=""
    [ $verdict = TIMEOUT ] && why="(stopped at ${lim}s; rows written before are kept)"
    [ $verdict = SKIP ] && why="($(tail -1 "$W/$log"))"
    [ $verdict = FAIL ] && why="(last line: $(tail -1 "$W/$log" | cut -c1-120))"
    record $verdict "$name" $(($(date +%s) - t0)) $rc $mode "$log" "$why"
    pack
    return 0
}

# ------------------------------------------------------------------ environment
if [ -f .device/setup.sh ] && [ -z "${OCL_ICD_VENDORS:-}" ]; then
    # shellcheck disable=SC1091
    source .device/setup.sh
fi
export PATH="$PATH:/usr/local/cuda/bin"
if [ -z "${GALA_GIT_COMMIT:-}" ]; then
    GALA_GIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
fi
export GALA_GIT_COMMIT GALA_CACHE_DIR="$BUILD/kcache" PYTHONUNBUFFERED=1
# carried wheels: osqp alone first (what the QP comparison needs), then the rest together
# (optional: matplotlib and its dependencies for the plots). A failure is reported, not fatal:
# the steps that need a package say so.
WHEELS="none carried"
if compgen -G ".whl/*.whl" >/dev/null; then
    WHEELS=""
    pipi() { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site "$@" >>"$W/wheels.log" 2>&1; }
    first=() rest=()
    for f in .whl/*.whl; do
        case ${f#.whl/} in osqp-*) first+=("$f") ;; *) rest+=("$f") ;; esac
    done
    for group in first rest; do
        declare -n g=$group
        [ ${#g[@]} -eq 0 ] && continue
        if pipi "${g[@]}"; then WHEELS="$WHEELS installed:"; else WHEELS="$WHEELS FAILED (wheels.log):"; fi
        for f in "${g[@]}"; do WHEELS="$WHEELS ${f#.whl/}"; done
        unset -n g
    done
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
{
    echo "date: $(date -u +%FT%TZ)   host: $(hostname)   cores: $JOBS"
    echo "commit: $GALA_GIT_COMMIT"
    echo "command: $COMMAND"
    echo "budget: ${DEADLINE}s (report reserve ${REPORT_RESERVE}s), quick=$QUICK_ALL, families=$ONLY, reps=$REPS"
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm --format=csv 2>&1
    nvcc --version 2>&1 | tail -1
    cmake --version | head -1
    python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
    python3 -c 'import osqp; print("osqp", osqp.__version__)' 2>&1 | tail -1
    python3 -c 'import matplotlib; print("matplotlib", matplotlib.__version__)' 2>&1 | tail -1
    echo "wheels: $WHEELS"
    echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-unset}"
    clinfo -l 2>&1
    lscpu 2>/dev/null | grep -E '^(Model name|CPU\(s\))'
} >"$W/env.txt" 2>&1
record PASS environment 0 0 - env.txt
note "        commit $GALA_GIT_COMMIT; wheels $WHEELS"
# what later steps will need, said once here so a failure below is self-explanatory
[ -f .device/setup.sh ] ||
    note "WARNING no .device/setup.sh: carry .device (../shared/device/README.md), else no OpenCL ICD loader and no CLBlast"
grep -q "NVIDIA" <(clinfo -l 2>/dev/null) ||
    note "WARNING clinfo lists no NVIDIA OpenCL platform: the OpenCL steps will fail"
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null ||
    note "WARNING python3 has no torch with CUDA: the torch references will fail"
python3 -c 'import osqp' 2>/dev/null ||
    note "WARNING osqp not importable: carry its wheel in .whl/ (docs/performance.md); OSQP is skipped"

# ------------------------------------------------------------------ the steps
# Each s_* function takes the mode (full|quick) and runs one step; exit status 3 means
# "skipped" with the reason as the last line of output.
BIN=$BUILD/bench
export SRC BUILD JOBS W BIN REPS ONLY

# shellcheck disable=SC2317,SC2046 # functions run through bash -c; option lists split on purpose
{
qflag() { [ "$1" = quick ] && echo --quick; }
refopt() { [ -s "$1" ] && echo "--ref $1"; }
need() { [ -x "$1" ] || { echo "$1 was not built"; exit 3; }; }
common() { echo "--reps $REPS --warmup 2"; }
s_build() {
    cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGALA_WITH_CUDA=ON \
        -DGALA_WITH_OPENCL=ON -DGALA_BUILD_TESTS=OFF -DGALA_BUILD_BENCH=ON &&
        cmake --build "$BUILD" -j"$JOBS"
}
s_info() { "$BUILD/tools/gala-info"; }
# Kernel compilation on a cold machine: a first QP call compiled for 33-41 s (H200, 2026-11-26),
# and each program is compiled by one thread, one after another, inside the timed steps (the
# qp steps ran out of time before measuring). This step runs small cases of the wanted
# families, many processes at once, to fill the kernel cache ($GALA_CACHE_DIR) that the
# measuring steps then read. Only compilation is wanted from it: its output is discarded.
s_warm() {
    local cmds=() be dt f n o
    local bes=("--backend opencl --platform nvidia" "--backend cuda")
    for be in "${bes[@]}"; do
        for dt in float double; do
            if wanted qp; then
                for f in control di hetero uniform; do
                    cmds+=("$BIN/bench_qp $be --family $f --dtypes $dt --batches 1000 --reps 1")
                done
            fi
            if wanted potrf; then
                for n in 8 16 32 64 128 256 512 1024 2048 4096 8192 16384; do
                    cmds+=("$BIN/bench_potrf $be --dtype $dt --n $n --reps 1 --warmup 0")
                done
            fi
            if wanted trtri; then
                for o in batched single vbatched; do
                    cmds+=("$BIN/bench_trtri $be --dtype $dt --only $o --reps 1 --warmup 0")
                done
            fi
        done
    done
    [ ${#cmds[@]} -eq 0 ] && { echo "no family to warm"; exit 3; }
    echo "${#cmds[@]} processes, $JOBS at a time"
    printf '%s\n' "${cmds[@]}" | xargs -P "$JOBS" -I{} sh -c '{} >/dev/null 2>&1 || echo "failed: {}"'
    ls "$GALA_CACHE_DIR" 2>/dev/null | wc -l | sed 's/^/programs in the kernel cache: /'
}
s_ceiling() { # BACKEND-ARGS... (mode last)
    local mode=${*: -1}
    need "$BIN/bench_ceiling"
    "$BIN/bench_ceiling" "${@:1:$#-1}" $(common) $(qflag "$mode")
}
s_ceiling_ocl() { s_ceiling --backend opencl --platform nvidia --json "$W/gala_ceiling_ocl.json" "$1"; }
s_ceiling_cuda() { s_ceiling --backend cuda --json "$W/gala_ceiling_cuda.json" "$1"; }
s_ceiling_torch() {
    python3 "$SRC/bench/ref_ceiling.py" --reps "$REPS" $(qflag "$1") >"$W/torch_ceiling.json"
}
s_trtri_torch() { python3 "$SRC/bench/ref_trtri.py" --reps "$REPS" $(qflag "$1") >"$W/torch_trtri.json"; }
s_trtri() { # TAG BACKEND-ARGS... MODE
    local tag=$1 mode=${*: -1}
    need "$BIN/bench_trtri"
    "$BIN/bench_trtri" "${@:2:$#-2}" $(common) $(qflag "$mode") $(refopt "$W/torch_trtri.json") \
        --json "$W/gala_trtri_$tag.json"
}
s_trtri_ocl() { s_trtri ocl --backend opencl --platform nvidia "$1"; }
s_trtri_cuda() { s_trtri cuda --backend cuda "$1"; }
s_potrf_torch() { python3 "$SRC/bench/ref_potrf.py" --reps "$REPS" $(qflag "$1") >"$W/torch_potrf.json"; }
s_potrf() { # TAG BACKEND-ARGS... MODE
    local tag=$1 mode=${*: -1}
    need "$BIN/bench_potrf"
    "$BIN/bench_potrf" "${@:2:$#-2}" $(common) $(qflag "$mode") $(refopt "$W/torch_potrf.json") \
        --json "$W/gala_potrf_$tag.json"
}
s_potrf_ocl() { s_potrf ocl --backend opencl --platform nvidia "$1"; }
# CUDA: only potrf (its targets: n = 16384, and CUDA within 1.1x of OpenCL per case), so that
# the whole suite fits; potrs and potri are measured on OpenCL
s_potrf_cuda() { s_potrf cuda --backend cuda --op potrf "$1"; }
s_qp() { # TAG BACKEND-ARGS... MODE
    local tag=$1 mode=${*: -1} batches=1,100,1000,10000,100000 secs=90
    need "$BIN/bench_qp"
    [ "$mode" = quick ] && batches=1,100,1000 secs=40
    "$BIN/bench_qp" "${@:2:$#-2}" --batches "$batches" --max-seconds $secs \
        --json "$W/gala_qp_$tag.json"
}
s_qp_ocl() {
    mkdir -p "$W/qpdump" # bench_qp --dump writes DIR/<family>.gqp into an existing folder
    s_qp ocl --backend opencl --platform nvidia --dump "$W/qpdump" --dump-count 2000 "$1"
}
s_qp_cuda() { s_qp cuda --backend cuda "$1"; }
# the double integrator again, every QP given the first QP's P and A arrays (declared shared
# matrices: setup validates and compares them once), both backends, the largest batch only
s_qp_shared() {
    local b=10000
    need "$BIN/bench_qp"
    [ "$1" = quick ] && b=1000
    "$BIN/bench_qp" --backend opencl --platform nvidia --family di --share-matrices --batches $b \
        --json "$W/gala_qp_shared_ocl.json" &&
        "$BIN/bench_qp" --backend cuda --family di --share-matrices --batches $b \
            --json "$W/gala_qp_shared_cuda.json"
}
s_qp_hetero() {
    need "$BIN/bench_qp"
    "$BIN/bench_qp" --backend opencl --platform nvidia --family hetero,uniform --batches 1000 \
        --json "$W/gala_qp_hetero_ocl.json" &&
        "$BIN/bench_qp" --backend cuda --family hetero,uniform --batches 1000 \
            --json "$W/gala_qp_hetero_cuda.json"
}
# the QPs of a family that qp-osqp gives OSQP (its first ones), by mode
osqp_count() { if [ "$1" = quick ]; then echo 500; else echo 2000; fi; }
# the host backend on one thread: batch 1, and OSQP's instances, so that both solve the same QPs
s_qp_host() {
    local count
    need "$BIN/bench_qp"
    count=$(osqp_count "$1")
    "$BIN/bench_qp" --backend host --family control --batches 1,$count --dtypes double \
        --json "$W/gala_qp_host.json"
}
s_qp_osqp() {
    python3 -c 'import osqp, scipy' 2>/dev/null ||
        { echo "osqp or scipy not importable: carry the osqp wheel in .whl/ (docs/performance.md)"; exit 3; }
    [ -s "$W/qpdump/control.gqp" ] || { echo "no dumped instances (qp-ocl did not run)"; exit 3; }
    local count procs
    count=$(osqp_count "$1")
    procs=$(nproc)
    local cmp=()
    [ -s "$W/gala_qp_ocl.json" ] && cmp=(--compare "$W/gala_qp_ocl.json")
    python3 "$SRC/bench/ref_osqp.py" "$W/qpdump/control.gqp" --family control --procs "$procs" \
        --count "$count" "${cmp[@]}" >"$W/osqp_control.json" &&
        python3 "$SRC/bench/ref_osqp.py" "$W/qpdump/di.gqp" --family di --procs "$procs" \
            --count "$count" "${cmp[@]}" >"$W/osqp_di.json" &&
        python3 "$SRC/bench/ref_osqp.py" "$W/qpdump/di.gqp" --family di --procs "$procs" \
            --count "$count" --reuse >"$W/osqp_di_reuse.json"
}
# The host backend's rows (one core) come with the OpenCL run (batches up to 100: time per
# matrix does not depend on the batch there); the CUDA run has none.
s_ldlt() { # TAG BACKEND-ARGS... MODE
    local tag=$1 mode=${*: -1} q=()
    need "$BIN/bench_ldlt"
    [ -s /tmp/qdldl-build/out/libqdldl.so ] && q=(--qdldl /tmp/qdldl-build/out/libqdldl.so)
    if [ "$mode" = quick ]; then
        "$BIN/bench_ldlt" "${@:2:$#-2}" $(common) --horizons 24,124 --batches 1,100,1000 \
            --dense "${q[@]}" --json "$W/gala_ldlt_$tag.json"
    else
        "$BIN/bench_ldlt" "${@:2:$#-2}" $(common) --horizons 24,124 --batches 1,100,1000,10000 \
            --baseline --dense "${q[@]}" --json "$W/gala_ldlt_$tag.json"
    fi
}
s_ldlt_ocl() {
    # QDLDL from its public source, when carried in .qdldl/ (never committed)
    if [ -f "$SRC/.qdldl/CMakeLists.txt" ] && [ ! -s /tmp/qdldl-build/out/libqdldl.so ]; then
        cmake -S "$SRC/.qdldl" -B /tmp/qdldl-build -DCMAKE_BUILD_TYPE=Release >/dev/null &&
            cmake --build /tmp/qdldl-build -j"$JOBS" >/dev/null ||
            echo "# QDLDL build failed: measured without it"
    fi
    s_ldlt ocl --backend opencl --platform nvidia --host-max-batch 100 "$1"
}
s_ldlt_cuda() { s_ldlt cuda --backend cuda --host-max-batch 0 "$1"; }
s_ldlt_torch() { python3 "$SRC/bench/ref_ldlt.py" --reps "$REPS" $(qflag "$1") >"$W/torch_ldlt.json"; }
s_vec() { # TAG BACKEND-ARGS... MODE
    local tag=$1
    need "$BIN/bench_vec"
    "$BIN/bench_vec" "${@:2:$#-2}" --quick $(common) --json "$W/gala_vec_$tag.json"
}
s_vec_ocl() { s_vec ocl --backend opencl --platform nvidia "$1"; }
s_vec_cuda() { s_vec cuda --backend cuda "$1"; }
}
export -f qflag refopt need common wanted osqp_count s_build s_info s_warm s_ceiling s_ceiling_ocl s_ceiling_cuda s_ceiling_torch s_trtri_torch \
    s_trtri s_trtri_ocl s_trtri_cuda s_potrf_torch s_potrf s_potrf_ocl s_potrf_cuda s_qp s_qp_ocl \
    s_qp_cuda s_qp_shared s_qp_hetero s_qp_host s_qp_osqp s_ldlt s_ldlt_ocl s_ldlt_cuda s_ldlt_torch s_vec \
    s_vec_ocl s_vec_cuda

step build build.log s_build
if [ ! -x "$BIN/bench_trtri" ]; then
    note "build FAILED: nothing to measure; the end of build.log:"
    tail -25 "$W/build.log" >>"$SUMMARY"
    pack
    exit 1
fi
note "        (build: $(grep -c 'warning:' "$W/build.log") compiler warnings)"
step gala-info gala-info.txt s_info
step warm warm.log s_warm
step qp-ocl gala_qp_ocl.txt s_qp_ocl
step qp-cuda gala_qp_cuda.txt s_qp_cuda
step qp-osqp osqp.log s_qp_osqp
step qp-shared gala_qp_shared.txt s_qp_shared
step potrf-cuda gala_potrf_cuda.txt s_potrf_cuda
step potrf-ocl gala_potrf_ocl.txt s_potrf_ocl
step potrf-torch torch_potrf.log s_potrf_torch
step ceiling-cuda gala_ceiling_cuda.txt s_ceiling_cuda
step ceiling-ocl gala_ceiling_ocl.txt s_ceiling_ocl
step ceiling-torch torch_ceiling.log s_ceiling_torch
step trtri-cuda gala_trtri_cuda.txt s_trtri_cuda
step trtri-ocl gala_trtri_ocl.txt s_trtri_ocl
step trtri-torch torch_trtri.log s_trtri_torch
step qp-hetero gala_qp_hetero_ocl.txt s_qp_hetero
step qp-host gala_qp_host.txt s_qp_host
step ldlt-ocl gala_ldlt_ocl.txt s_ldlt_ocl
step ldlt-cuda gala_ldlt_cuda.txt s_ldlt_cuda
step ldlt-torch torch_ldlt.log s_ldlt_torch
step vec-ocl gala_vec_ocl.txt s_vec_ocl
step vec-cuda gala_vec_cuda.txt s_vec_cuda
rm -rf "$W/qpdump" # instances: regenerated by bench_qp --dump, not worth bringing back

# ------------------------------------------------------------------ report
t0=$(date +%s)
cp "$SUMMARY" "$W/summary.txt"
rem=$((DEADLINE + 25 - ($(date +%s) - START)))
[ "$rem" -lt 5 ] && rem=5
timeout --kill-after=3 "$rem" python3 "$SRC/bench/report.py" "$W" --out "$W/report.md" \
    --plots "$W/plots" --title "GPU run" >"$W/report.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
    record PASS report $(($(date +%s) - t0)) 0 - report.md
    cp "$W/report.md" "$OUT/report.md"
else
    record FAIL report $(($(date +%s) - t0)) $rc - report.log "(last line: $(tail -1 "$W/report.log" | cut -c1-120))"
fi
note "total $(($(date +%s) - START)) s; everything in results.tar.gz (re-run: python3 bench/report.py DIR)"
cp "$SUMMARY" "$W/summary.txt"
pack
exit $FAILED
