#!/usr/bin/env bash
set -uo pipefail
source .device/setup.sh
export GALA_CACHE_DIR=/tmp/kc
R=$PWD
cmake -S . -B /tmp/bc -DCMAKE_BUILD_TYPE=Release -DGALA_CUDA_ARCHS=none -DGALA_BUILD_TESTS=OFF > /tmp/cm.log 2>&1 || tail -20 /tmp/cm.log
cmake --build /tmp/bc -j16 --target gala > /tmp/bd.log 2>&1 || tail -20 /tmp/bd.log
gcc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -I/tmp/bc/include .device/layer2.c -o /tmp/l2 -L/tmp/bc -lgala -Wl,-rpath,/tmp/bc || exit 1
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz" ; cat /sys/devices/system/clocksource/clocksource0/current_clocksource; which perf
for be in cuda host; do for th in 1 2 4 8 16; do /tmp/l2 1000 $th $be | tail -2; done; done
