#!/usr/bin/env bash
# A (.rev/base.tar.gz) against B (this tree): gala.torch layer, alternating rounds; profile B.
set -uo pipefail
source .device/setup.sh
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=/tmp/kc
R=$PWD
mkdir -p $OUT/ab; cp .device/layer_ab.sh .device/lay.py .device/layerprof.py $OUT/ab/; git log -1 --format=%h > $OUT/ab/rev.txt 2>/dev/null
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
mkdir -p /tmp/A && tar -xzf .rev/base.tar.gz -C /tmp/A
build() { cd $1 && CMAKE_BUILD_PARALLEL_LEVEL=8 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/py$2 --config-settings=build-dir=/tmp/b$2 --config-settings=cmake.define.GALA_CUDA_ARCHS=none . > $OUT/ab/build$2.log 2>&1; echo "build $2 rc $?"; }
t0=$(date +%s)
build /tmp/A A & build $R B & wait
echo "built in $(( $(date +%s) - t0 )) s"
cd $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/ab/env.txt; nproc >> $OUT/ab/env.txt; date -u >> $OUT/ab/env.txt
for r in 1 2 3; do for v in A B; do
  echo "== round $r $v"
  PYTHONPATH=/tmp/py$v:/tmp/site timeout 200 python3 bench/bench_torch.py --solvers gala --batches 100,1000 --rounds 5 --json $OUT/ab/r${r}_$v.json 2>&1 | grep -E "^batch"
done; done
[ "${QPTH:-1}" = 1 ] && PYTHONPATH=/tmp/pyB:/tmp/site timeout 200 python3 bench/bench_torch.py --solvers gala,qpth --batches 1000 --rounds 3 --json $OUT/ab/qpth_B.json 2>&1 | grep -E "^batch"
for v in A B; do echo "== direct $v"; PYTHONPATH=/tmp/py$v:/tmp/site timeout 120 python3 .device/lay.py 1000 0 cuda torch 2>&1 | grep rep; done
PYTHONPATH=/tmp/pyB:/tmp/site timeout 120 python3 .device/layerprof.py 1000 > $OUT/ab/prof_B.txt 2>&1; tail -3 $OUT/ab/prof_B.txt
PYTHONPATH=/tmp/pyA:/tmp/site timeout 120 python3 .device/layerprof.py 1000 > $OUT/ab/prof_A.txt 2>&1; tail -3 $OUT/ab/prof_A.txt
[ "${TESTS:-1}" = 1 ] && (cd /tmp && PYTHONPATH=/tmp/pyB:/tmp/site timeout 200 python3 -m pytest $R/python/tests/test_derivative.py $R/python/tests/test_gpu.py -q -x -p no:cacheprovider 2>&1 | tail -3)
