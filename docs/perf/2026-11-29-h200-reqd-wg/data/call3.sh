#!/usr/bin/env bash
# call 3: NVIDIA OpenCL qp_admm: f0c1136 against HEAD, and HEAD without the kernel's own
# work-group limit (GALA_PROBE_NOMAX, a probe build), alternating; the limits reported.
set -uo pipefail
source .device/setup.sh
export GALA_CACHE_DIR=/tmp/kc
O=$OUT/r; mkdir -p $O
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
mkdir -p /tmp/A /tmp/P && tar xzf .rev/f0c.tar.gz -C /tmp/A && tar xzf .rev/head.tar.gz -C /tmp/P
sed -i '/^static size_t ocl_kernel_max_wg(gala_context \*ctx, void \*k)$/{n;a\    if (getenv("GALA_PROBE_NOMAX")) return 0;
}' /tmp/P/src/device/opencl/opencl.c
python3 - <<'PY'
p='/tmp/P/src/device/opencl/opencl.c'; s=open(p).read()
old='''                                 &v, NULL) != CL_SUCCESS)
        v = 0;
    return v;'''
assert old in s
s=s.replace(old, old.replace('    return v;','    if (getenv("GALA_PROBE_PRINT")) fprintf(stderr, "probe: kernel max wg %zu\\n", v);\n    return v;'))
open(p,'w').write(s)
PY
for t in A P; do (cmake -S /tmp/$t -B /tmp/b$t -DCMAKE_BUILD_TYPE=Release -DGALA_CUDA_ARCHS=none > $O/build$t.log 2>&1 && cmake --build /tmp/b$t --target bench_qp -j8 >> $O/build$t.log 2>&1; echo "build $t rc $?") & done; wait
el "built"
B="--backend opencl --family control --batches 10000 --dtypes float,double --reps 3 --breakdown"
GALA_PROBE_PRINT=1 timeout 100 /tmp/bP/bench/bench_qp $B > $O/print.txt 2>&1; grep probe $O/print.txt | sort | uniq -c
for r in 1 2 3; do
  timeout 60 /tmp/bA/bench/bench_qp $B > $O/A-r$r.txt 2>&1
  timeout 60 /tmp/bP/bench/bench_qp $B > $O/P-r$r.txt 2>&1
  GALA_PROBE_NOMAX=1 timeout 60 /tmp/bP/bench/bench_qp $B > $O/N-r$r.txt 2>&1
  for v in A P N; do for dt in float double; do
    echo "$v r$r $dt: $(grep -E "$dt +batch   10000" $O/$v-r$r.txt | sed 's/.*batch   10000: *//;s/(setup.*mean/mean/')  iterate $(grep -A9 "breakdown control $dt" $O/$v-r$r.txt | grep iterate | awk '{print $2}')"
  done; done
done
el "done"
cd $OUT && tar czf r.tgz r && rm -rf r
