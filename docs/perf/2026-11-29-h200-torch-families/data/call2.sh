#!/usr/bin/env bash
# call 2: random family at 1e4 (seeds not solved by OSQP's settings replaced); CUDA float
# qp_admm against NVIDIA OpenCL: NVRTC option variants, registers.
set -uo pipefail
source .device/setup.sh
export PYTHONUNBUFFERED=1 GALA_CACHE_DIR=/tmp/kc
O=$OUT/r; mkdir -p $O
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
(cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release -DGALA_CUDA_ARCHS=90 > $O/buildc.log 2>&1 && cmake --build /tmp/b -j16 >> $O/buildc.log 2>&1) || { el "C build failed"; tail -20 $O/buildc.log; }
el "C built"
(CMAKE_BUILD_PARALLEL_LEVEL=6 python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/pyB --config-settings=build-dir=/tmp/bpB --config-settings=cmake.define.GALA_CUDA_ARCHS=none . > $O/buildpy.log 2>&1; echo "py build rc $?" >> $O/buildpy.log) &
PB=$!
cd /tmp/b
for r in 1 2; do
  for v in default fast ftz precdiv; do
    case $v in default) opt="";; fast) opt="--use_fast_math";; ftz) opt="--ftz=true";; precdiv) opt="--prec-div=false --prec-sqrt=false";; esac
    GALA_NVRTC_OPTIONS="$opt" timeout 90 ./bench/bench_qp --backend cuda --family control --batches 10000 --dtypes float --reps 3 --breakdown > $O/opt-$v-r$r.txt 2>&1
    echo "$v r$r: $(grep -E 'batch   10000' $O/opt-$v-r$r.txt | head -1)  iterate $(grep iterate $O/opt-$v-r$r.txt | awk '{print $2}')"
  done
  timeout 60 ./bench/bench_qp --backend opencl --family control --batches 10000 --dtypes float --reps 3 --breakdown > $O/ocl-r$r.txt 2>&1
  echo "opencl r$r: $(grep -E 'batch   10000' $O/ocl-r$r.txt | head -1)  iterate $(grep iterate $O/ocl-r$r.txt | awk '{print $2}')"
done
el "variants done"
timeout 90 ncu --clock-control none --kernel-name qp_admm --launch-count 3 --metrics launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic ./bench/bench_qp --backend cuda --family control --batches 10000 --dtypes float --reps 1 > $O/ncu-admm.txt 2>&1
el "ncu done"
cd - >/dev/null
wait $PB; tail -1 $O/buildpy.log; el "py built"
export PYTHONPATH=/tmp/pyB:/tmp/site
timeout 200 python3 bench/bench_torch.py --family random --size 10 --solvers gala,qpth --batches 10000 --rounds 5 --interleave --json $O/random1e4.json 2>&1 | tee $O/random1e4.txt | grep -E "^batch|^#|rror"
el "all done"
cd $OUT && tar czf r.tgz r && rm -rf r
