#!/usr/bin/env bash
# call 4: the ADMM kernels compiled for their work-group (reqd_work_group_size / launch
# bounds): compare.sh HEAD (A) against the working tree (B) on NVIDIA's OpenCL and CUDA;
# then test_qp of B on both GPU backends at full scale.
set -uo pipefail
source .device/setup.sh
export GALA_CACHE_DIR=/tmp/kc
O=$OUT/r; mkdir -p $O
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
(cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release -DGALA_CUDA_ARCHS=90 > $O/buildc.log 2>&1 && cmake --build /tmp/b -j16 >> $O/buildc.log 2>&1) || { el "C build failed"; tail -20 $O/buildc.log; }
el "B built"
for be in opencl cuda; do
  OUT=$O/cmp-$be JOBS=16 CMAKE_ARGS="-DGALA_CUDA_ARCHS=90" timeout 200 bash bench/compare.sh .rev/head.tar.gz . qp 3 $be > $O/compare-$be.txt 2>&1
  el "compare $be rc $?"; grep -vE "^\[|^#" $O/compare-$be.txt | tail -6
done
left=$(( 570 - ($(date +%s) - T0) ))
(cd /tmp/b && GALA_PLATFORM=nvidia GALA_TEST_BACKENDS=opencl,cuda CK_DEFAULT_TIMEOUT=0 CK_LOG_FILE_NAME=$O/test_qp.log timeout $left ./tests/test_qp > $O/test_qp.txt 2>&1; echo "test_qp rc $?" >> $O/test_qp.txt); tail -4 $O/test_qp.txt
el "done"
cd $OUT && tar czf r.tgz r && rm -rf r
