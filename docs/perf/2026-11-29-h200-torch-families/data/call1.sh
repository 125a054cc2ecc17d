#!/usr/bin/env bash
# session 2026-11-29b call 1: issue 43's bench (control + random, batches 1e2-1e4) and
# issue 41's kernel profile of potrf/potri at n = 160, b = 1e4.
set -uo pipefail
source .device/setup.sh
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=/tmp/kc
O=$OUT/r; mkdir -p $O
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $O/env.txt; nproc >> $O/env.txt; date -u >> $O/env.txt
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
(cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release -DGALA_CUDA_ARCHS=90 > $O/buildc.log 2>&1 && cmake --build /tmp/b -j16 >> $O/buildc.log 2>&1) || { el "C build failed"; tail -20 $O/buildc.log; }
el "C built"
(CMAKE_BUILD_PARALLEL_LEVEL=10 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/pyB --config-settings=build-dir=/tmp/bpB --config-settings=cmake.define.GALA_CUDA_ARCHS=none . > $O/buildpy.log 2>&1; echo "py build rc $?" >> $O/buildpy.log) &
PB=$!
cd /tmp/b
for dt in float double; do
  ./bench/bench_potrf --backend cuda --op potri --only batched --n 160 --batch 10000 --reps 5 --dtype $dt > $O/potri-$dt.txt 2>&1
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel ./bench/bench_potrf --backend cuda --op potri --only batched --n 160 --batch 10000 --reps 1 --warmup 1 --dtype $dt > $O/ncu-potri-$dt.txt 2>&1
  el "ncu $dt rc $?"
done
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel ./bench/bench_qp --backend cuda --family control --batches 10000 --dtypes float --reps 1 > $O/ncu-qp-float.txt 2>&1
el "ncu qp rc $?"
cd - >/dev/null
wait $PB; tail -1 $O/buildpy.log; el "py built"
export PYTHONPATH=/tmp/pyB:/tmp/site
B="timeout 150 python3 bench/bench_torch.py"
$B --family random --size 10 --solvers gala,qpth,osqp --osqp-max 1000 --batches 100,1000,10000 --rounds 5 --interleave --json $O/random.json 2>&1 | tee $O/random.txt | grep -E "^batch|^#|rror"
el "random done"
$B --family control --solvers gala,qpth,osqp --osqp-max 100 --batches 100,1000 --rounds 5 --interleave --json $O/control.json 2>&1 | tee $O/control.txt | grep -E "^batch|^#|rror"
el "control done"
left=$(( 560 - ($(date +%s) - T0) ))
timeout $left python3 bench/bench_torch.py --family control --solvers gala,qpth --batches 10000 --rounds 1 --json $O/control1e4.json 2>&1 | tee $O/control1e4.txt | grep -E "^batch|^#|rror"
el "all done"
cd $OUT && tar czf r.tgz r && rm -rf r
