set -uo pipefail
source .device/setup.sh
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=/tmp/kc
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
CMAKE_BUILD_PARALLEL_LEVEL=16 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/pyB --config-settings=build-dir=/tmp/bB --config-settings=cmake.define.GALA_CUDA_ARCHS=none . > /tmp/bB.log 2>&1 || tail /tmp/bB.log
mkdir -p $OUT/inter; git log -1 --format=%h > $OUT/inter/rev.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $OUT/inter/rev.txt; date -u >> $OUT/inter/rev.txt
PYTHONPATH=/tmp/pyB:/tmp/site timeout 400 python3 bench/bench_torch.py --solvers gala,qpth --batches 100,1000 --rounds 5 --interleave --json $OUT/inter/torch.json 2>&1 | tee $OUT/inter/torch.txt
