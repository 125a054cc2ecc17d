#!/usr/bin/env bash
set -uo pipefail
source .device/setup.sh
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=/tmp/kc
R=$PWD; mkdir -p $OUT/ab2
if [ ! -d /tmp/pyB ]; then
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
mkdir -p /tmp/A && tar -xzf .rev/base.tar.gz -C /tmp/A
build() { cd $1 && CMAKE_BUILD_PARALLEL_LEVEL=8 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/py$2 --config-settings=build-dir=/tmp/b$2 --config-settings=cmake.define.GALA_CUDA_ARCHS=none . > $OUT/ab2/build$2.log 2>&1; echo "build $2 rc $?"; }
build /tmp/A A & build $R B & wait
fi
cd $R
for r in 1 2 3 4 5 6; do for v in A B; do
  echo -n "round $r $v: "
  PYTHONPATH=/tmp/py$v:/tmp/site timeout 100 python3 bench/bench_torch.py --solvers gala --batches 1000 --rounds 7 --json $OUT/ab2/r${r}_$v.json 2>&1 | grep -E "^batch"
done; done
for env in "" "OMP_NUM_THREADS=1" ; do echo "== layerprof B $env"; env $env PYTHONPATH=/tmp/pyB:/tmp/site timeout 100 python3 .device/layerprof.py 1000 2>&1 | grep -E "^batch|^layer|polish'"| sed "s/.*'polish': (\([0-9.]*\).*/polish phase \1/"; done
