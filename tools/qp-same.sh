#!/usr/bin/env bash
# tools/qp-same.sh BUILD OUT [DEVICE_BACKEND]: issue 38's before/after check of the QP solver.
# Records, into OUT, what a build's gala-qp and libgala give (host double and float, and
# DEVICE_BACKEND = opencl by default, or cuda): every linsys strategy on generated batches
# (MPC, double integrator: the shared ladder), the Maros-Meszaros set, mixed batches, AUTO's
# sparse choice and its fallback, qp.factor = 0, polishing, iterations per launch, scaled
# termination, warm starts from solution files, and tools/qp_same_updates.c (updates, warm
# and cold starts). The JSON reports lose their timings; the rest is bits. Compare two
# builds (e.g. main's in build-before/ and a branch's in build/) with
#     tools/qp-same.sh build-before /tmp/before && tools/qp-same.sh build /tmp/after
#     diff -r /tmp/before /tmp/after && echo bitwise identical
# Needs a Release build with the tools and the shared library (BUILD/libgala.so), python3, cc.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
B=$(realpath "$1"); O=$2; DEV=${3:-opencl}; rm -rf "$O"; mkdir -p "$O"
export GALA_CACHE_DIR=${GALA_CACHE_DIR:-$B/kcache}
QP=$B/tools/gala-qp
MM=$PWD/tests/data/maros_meszaros
${CC:-cc} -O1 -Iinclude tools/qp_same_updates.c -L"$B" -lgala -Wl,-rpath,"$B" -o "$O/upd" || exit 1
n=0
run() { # name args...
  local name=$1; shift
  mkdir -p $O/$name
  local env=""
  case "$*" in *GALA_TUNE_DUMMY2*) env="qp.factor=0";; *GALA_TUNE_DUMMY*) env="qp.sparse_n=100";; esac
  local a=(); for x in "$@"; do case $x in GALA_TUNE_DUMMY*) ;; *) a+=("$x");; esac; done
  GALA_TUNE=$env nice -n 5 $QP solve "${a[@]}" --json -o $O/$name/r.json --solution-dir $O/$name/sol -q --no-progress > $O/$name/stdout 2>$O/$name/stderr
  echo "rc $?" >> $O/$name/stdout
  # drop times
  python3 - $O/$name/r.json <<'PY'
import json,sys
p=sys.argv[1]
try: d=json.load(open(p))
except Exception as e: sys.exit(0)
def strip(o):
    if isinstance(o,dict): return {k:strip(v) for k,v in o.items() if 'time' not in k and 'per_second' not in k}
    if isinstance(o,list): return [strip(v) for v in o]
    return o
json.dump(strip(d),open(p,'w'),indent=1,sort_keys=True)
PY
  sed -i '/^time/d;/QPs\/s/d' $O/$name/stdout
}
for prec in double float; do
  for ls in auto dense dense-shared sparse-ldlt pcg; do
    run h-mpc-$prec-$ls --generate mpc:10x40 --backend host --precision $prec --linsys $ls
  done
  for ls in auto dense sparse-ldlt pcg; do
    run h-mm-$prec-$ls $MM --backend host --precision $prec --linsys $ls --max-iter 2000
  done
  run h-mix-$prec-auto $MM --generate random:8x6 --generate lasso:3x5 --generate portfolio:2x4 --generate svm:2x3 --generate huber:1x2 --generate eq:20x3 --backend host --precision $prec
  run h-di-$prec-auto --generate di:20x50 --backend host --precision $prec
  run h-big-$prec-auto --generate control:60x2 --backend host --precision $prec  # sparse_n auto choice?
done
for prec in double float; do
  for ls in auto dense-shared dense sparse-ldlt pcg; do
    run h-di-$prec-$ls --generate di:15x30 --backend host --precision $prec --linsys $ls
  done
  run h-autosparse-$prec $MM --generate lasso:2x2 --backend host --precision $prec --max-iter 1000 GALA_TUNE_DUMMY
  run h-factor0-$prec $MM --generate di:10x5 --backend host --precision $prec --max-iter 1000 GALA_TUNE_DUMMY2
done
run h-mm-polish $MM --backend host --precision double --polish --max-iter 2000
run h-mm-ipl $MM --backend host --iters-per-launch 7 --check-termination 10 --max-iter 1000
run h-mm-scaled $MM --backend host --scaled-termination --no-rho-vec --adaptive-rho off --scaling 3
run h-mm-warm $MM --backend host --warm-start $O/h-mm-double-auto/sol
run h-mpc-warm --generate mpc:10x40 --backend host --warm-start $O/h-mpc-double-dense/sol --linsys dense
for prec in float double; do
  for ls in auto dense dense-shared sparse-ldlt pcg; do
    run o-di-$prec-$ls --generate di:12x20 --backend $DEV --precision $prec --linsys $ls
    run o-mpc-$prec-$ls --generate mpc:6x20 --backend $DEV --precision $prec --linsys $ls
  done
  run o-mm-$prec-auto $MM --backend $DEV --precision $prec --max-iter 1000
done
for be in host $DEV; do for dt in double float; do for ls in 0 1 2 3 4; do
  nice -n 5 $O/upd $be $dt $ls 3 4 6 > $O/upd-$be-$dt-$ls.txt 2>&1
done; nice -n 5 $O/upd $be $dt 0 1 5 7 mixed > $O/upd-$be-$dt-mixed.txt 2>&1
  for ls in 0 2; do nice -n 5 $O/upd $be $dt $ls 8 10 5 > $O/upd-$be-$dt-di-$ls.txt 2>&1; done
  GALA_TUNE=qp.sparse_n=50 nice -n 5 $O/upd $be $dt 0 1 60 3 mixed > $O/upd-$be-$dt-autosparse.txt 2>&1
done; done
rm $O/upd
