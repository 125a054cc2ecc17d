#!/usr/bin/env bash
# The Python package on the GPU machine, in one call: build it with the CUDA and OpenCL
# backends, run its tests (python/tests, test_gpu.py included) and bench/bench_python.py.
#
#   source .device/setup.sh; bash bench/run-gpu-python.sh [tests|bench|all]
#
# Needs: .device (../shared/device/README.md: OpenCL, CLBlast, SuiteSparse), and the wheels the
# machine lacks in .whl (osqp, qpsolvers for cp312; docs/python.md). Results and logs go to
# $OUT (default ./out): pytest.log, bench_batch_*.json, bench_single.json, env.txt.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
what=${1:-all}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=${GALA_CACHE_DIR:-/tmp/gala-kcache}
if ls .whl/*.whl >/dev/null 2>&1; then
    $PY -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
{
    date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    $PY -c 'import sys, numpy, scipy, torch; print(sys.version.split()[0], numpy.__version__, scipy.__version__, torch.__version__)'
    git log -1 --format='%h %s' 2>/dev/null || true
} >"$OUT/env.txt" 2>&1
start=$(date +%s)
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) $PY -m pip install -q --no-build-isolation --no-deps \
    --target /tmp/gala-py --config-settings=build-dir=/tmp/gala-pybuild . >"$OUT/build.log" 2>&1 ||
    { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }
export PYTHONPATH=/tmp/gala-py:${PYTHONPATH:-}
echo "built in $(( $(date +%s) - start )) s"
$PY -c 'import gala; print(gala.devices())' | tee -a "$OUT/env.txt"
rc=0
if [ "$what" = tests ] || [ "$what" = all ]; then
    (cd /tmp && $PY -m pytest "$OLDPWD/python/tests" -q -rs -x -p no:cacheprovider 2>&1) | tee "$OUT/pytest.log" | tail -25
    rc=${PIPESTATUS[0]}
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
    for b in cuda opencl; do
        (cd /tmp && $PY "$OLDPWD/bench/bench_python.py" batch --backend $b --rounds 7) 2>&1 | tee "$OUT/bench_batch_$b.txt" | tail -4
    done
    (cd /tmp && $PY "$OLDPWD/bench/bench_python.py" single --rounds 5) 2>&1 | tee "$OUT/bench_single.txt" | tail -3
fi
exit $rc
