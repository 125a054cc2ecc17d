#!/usr/bin/env bash
# call 4: A (.rev/base.tar.gz = a47171a) against B (this tree: host work blocks kept by the
# context), gala.torch at batch 1000, alternating rounds.
set -uo pipefail
source .device/setup.sh
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=/tmp/kc
R=$PWD; O=$OUT/r; mkdir -p $O
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
mkdir -p /tmp/A && tar -xzf .rev/base.tar.gz -C /tmp/A
build() { cd $1 && CMAKE_BUILD_PARALLEL_LEVEL=8 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/py$2 --config-settings=build-dir=/tmp/bp$2 --config-settings=cmake.define.GALA_CUDA_ARCHS=none . > $O/buildpy$2.log 2>&1; echo "py build $2 rc $?"; }
build /tmp/A A & PA=$!; build $R B & PB=$!; wait $PA $PB
el "built"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/env.txt; date -u >> $O/env.txt
for r in 1 2 3 4 5 6; do for v in A B; do
  PYTHONPATH=/tmp/py$v:/tmp/site timeout 40 python3 bench/bench_torch.py --solvers gala --batches 1000 --rounds 3 --json $O/ab_r${r}_$v.json 2>&1 | grep -E "^batch" | head -1 | sed "s/^/r$r $v: /"
done; done 2>&1 | tee $O/ab.txt
el "done"
cd $OUT && tar czf r.tgz r && rm -rf r
