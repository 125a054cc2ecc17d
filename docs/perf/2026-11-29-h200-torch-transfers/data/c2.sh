#!/usr/bin/env bash
# call 2: C build + GPU tests (test_qp, test_qp_derivative: CUDA + NVIDIA OpenCL); python builds
# of A (.rev/base.tar.gz) and B (this tree); layer A/B rounds; B against qpth interleaved;
# B's step profile; pytest (GPU, derivative) on B.
set -uo pipefail
source .device/setup.sh
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=/tmp/kc
R=$PWD; O=$OUT/r; mkdir -p $O
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
(cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release -DGALA_CUDA_ARCHS=90 > $O/buildc.log 2>&1 && cmake --build /tmp/b -j16 >> $O/buildc.log 2>&1) || { el "C build failed"; tail -20 $O/buildc.log; }
el "C built"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/env.txt; nproc >> $O/env.txt; date -u >> $O/env.txt
(cd /tmp/b && GALA_PLATFORM=nvidia GALA_TEST_BACKENDS=cuda,opencl CK_DEFAULT_TIMEOUT=0 CK_LOG_FILE_NAME=$O/test_qp.log timeout 240 ./tests/test_qp > $O/test_qp.txt 2>&1; echo "test_qp rc $?" >> $O/test_qp.txt) &
TQ=$!
mkdir -p /tmp/A && tar -xzf .rev/base.tar.gz -C /tmp/A
build() { cd $1 && CMAKE_BUILD_PARALLEL_LEVEL=6 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/py$2 --config-settings=build-dir=/tmp/bp$2 --config-settings=cmake.define.GALA_CUDA_ARCHS=none . > $O/buildpy$2.log 2>&1; echo "py build $2 rc $?"; }
build /tmp/A A & PA=$!; build $R B & PB=$!; wait $PA $PB; wait $TQ
el "py built, test_qp done"; tail -3 $O/test_qp.txt
(cd /tmp/b && GALA_PLATFORM=nvidia GALA_TEST_BACKENDS=cuda,opencl CK_DEFAULT_TIMEOUT=0 CK_LOG_FILE_NAME=$O/test_qpd.log timeout 120 ./tests/test_qp_derivative > $O/test_qpd.txt 2>&1; echo "rc $?" >> $O/test_qpd.txt); tail -2 $O/test_qpd.txt
el "derivative tests done"
for r in 1 2 3 4 5; do for v in A B; do
  PYTHONPATH=/tmp/py$v:/tmp/site timeout 60 python3 bench/bench_torch.py --solvers gala --batches 1000 --rounds 3 --json $O/ab_r${r}_$v.json 2>&1 | grep -E "^batch" | head -2 | sed "s/^/r$r $v: /"
done; done 2>&1 | tee $O/ab.txt
el "A/B done"
PYTHONPATH=/tmp/pyB:/tmp/site timeout 100 python3 bench/bench_torch.py --solvers gala,qpth --batches 1000 --rounds 5 --interleave --json $O/qpth_B.json 2>&1 | tee $O/qpth_B.txt | tail -4
el "qpth done"
PYTHONPATH=/tmp/pyB:/tmp/site timeout 60 python3 .device/lstep.py 1000 5 2>&1 | tee $O/lstep_B.txt | tail -32
el "lstep done"
(cd /tmp && PYTHONPATH=/tmp/pyB:/tmp/site timeout 150 python3 -m pytest $R/python/tests/test_gpu.py $R/python/tests/test_derivative.py -q -x -p no:cacheprovider 2>&1 | tail -5) | tee $O/pytest.txt
el "all done"
cd $OUT && tar czf r.tgz r && rm -rf r
