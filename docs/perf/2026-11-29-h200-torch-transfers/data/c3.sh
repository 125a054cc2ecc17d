#!/usr/bin/env bash
# call 3: final tree. C build; python build (with test_potrf small in parallel); test_qp on
# CUDA + NVIDIA OpenCL alone; gala.torch against qpth interleaved at batches 100 and 1000.
set -uo pipefail
source .device/setup.sh
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=/tmp/kc
R=$PWD; O=$OUT/r; mkdir -p $O
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
git log -1 --format='%h %s' > $O/rev.txt 2>/dev/null || true
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
(cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release -DGALA_CUDA_ARCHS=90 > $O/buildc.log 2>&1 && cmake --build /tmp/b -j16 >> $O/buildc.log 2>&1) || { el "C build failed"; tail -20 $O/buildc.log; }
el "C built"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/env.txt; nproc >> $O/env.txt; date -u >> $O/env.txt
(cd /tmp/b && GALA_PLATFORM=nvidia GALA_TEST_BACKENDS=cuda,opencl GALA_TEST_SCALE=small CK_DEFAULT_TIMEOUT=0 CK_LOG_FILE_NAME=$O/test_potrf.log timeout 200 ./tests/test_potrf > $O/test_potrf.txt 2>&1; echo "test_potrf rc $?" >> $O/test_potrf.txt) &
TP=$!
CMAKE_BUILD_PARALLEL_LEVEL=12 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/pyB --config-settings=build-dir=/tmp/bpB --config-settings=cmake.define.GALA_CUDA_ARCHS=none . > $O/buildpy.log 2>&1; echo "py build rc $?"
wait $TP; tail -2 $O/test_potrf.txt
el "py built, potrf done"
(cd /tmp/b && GALA_PLATFORM=nvidia GALA_TEST_BACKENDS=cuda,opencl CK_DEFAULT_TIMEOUT=0 CK_LOG_FILE_NAME=$O/test_qp.log timeout 270 ./tests/test_qp > $O/test_qp.txt 2>&1; echo "test_qp rc $?" >> $O/test_qp.txt); tail -3 $O/test_qp.txt
el "test_qp done"
PYTHONPATH=/tmp/pyB:/tmp/site timeout 150 python3 bench/bench_torch.py --solvers gala,qpth --batches 100,1000 --rounds 5 --interleave --json $O/qpth.json 2>&1 | tee $O/qpth.txt | grep -E "^batch|^#"
el "all done"
cd $OUT && tar czf r.tgz r && rm -rf r
