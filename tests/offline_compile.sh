#!/usr/bin/env bash
# The offline compile test (issue 39, part 2): every program gala can ask for
# (tests/offline_programs.c writes the list: family, build options, vendor, local memory,
# whether an AMD GPU asks for it) compiled with
# Debian's clang-15 for AMD GPUs (amdgcn-amd-amdhsa: gfx90a, the MI200 series, and gfx1100,
# RDNA3) and to SPIR-V (spir64 through llvm-spirv-15: what Intel's runtime and Mesa's Rusticl
# consume). Any error fails the test, except the compiler crashes listed in KNOWN below, each
# with the runtime fallback that covers it. Programs with NVIDIA-only code (inline PTX) are
# compiled for no other target.
#
# Optimization levels (the time goes to -O2 on fully unrolled order-64 panels: clang-15
# spends 10-30 s on each, mostly in register coalescing; -O0 takes 0.2 s a program):
#   gfx1100  -O2 (middle end and backend, as a runtime compiles) for every program an AMD
#            GPU asks for (the defaults and the AMD devices' own tuning) and every program
#            of a known crash (they need -O2); -O0 for those only other vendors' tuning
#            rows ask for (an AMD GPU never matches NVIDIA's rows: potrf_pair, ...).
#   gfx90a   -O0 for every program: the front end and the AMDGPU backend (instruction
#            selection, register allocation) for the MI200 series, with what differs from
#            gfx1100 (wave64, fp64 at full rate); the optimizer's crashes are looked for on
#            gfx1100, where all known ones are, and every known crash of a target keeps -O2.
#   spirv    -O0 for every program, as runtimes take it.
#
# usage: offline_compile.sh CL_DIR PROGRAM_LIST TARGET...     (targets: gfx90a gfx1100 spirv)
# env:   GALA_OFFLINE_JOBS (parallel compiles, default nproc), CLANG, LLVM_SPIRV
set -uo pipefail
cl_dir=$1 list=$2; shift 2
targets=("$@")
CLANG=${CLANG:-clang-15}
LLVM_SPIRV=${LLVM_SPIRV:-llvm-spirv-15}
jobs=${GALA_OFFLINE_JOBS:-$(nproc 2>/dev/null || echo 2)}

# Compiler crashes that no reasonable rewrite of the kernel avoids:
#   target|family|options-substring|message|fallback
# potrf_pair in double for gfx1100 (order 32; the programs of order 64 build since potrf_pair's
# DIAG form has a program of its own): clang-15's AMDGPU backend fails register allocation
# ("register rewriting failed: cycle in copy bundle"; LLVM 15.0.6, Debian 12). Only NVIDIA's
# rows ask for potrf_pair, but a user's GALA_TUNE may: at run time a failed build of
# potrf_pair makes potrf fall back to potrf_panel of the same order (src/la/potrf.c,
# pf_fused), remembered in the kernel cache and reported by gala-info.
# potrf_panel N = 16 in double for gfx1100: the same crash; the fused launch falls back to
# potrf_panel with register rows of 32 (which factors every n <= 16 as well).
# potri N = 64 (float and double) for gfx1100: clang-15 aborts ("malloc(): unsorted double
# linked list corrupted", a heap corruption in the AMDGPU backend) in some runs, not all (3
# of 5 builds of the same program, 2026-11-28): a pass is a pass, an abort is this crash;
# potri's LAUUM falls back to its blocked path in blocks of 32 (src/la/potri.c, pi_lauum).
KNOWN=(
  "gfx1100|potrf|-DREAL=double*-DPAIR=1|cycle in copy bundle|potrf_pair -> potrf_panel (src/la/potrf.c, pf_fused)"
  "gfx1100|potrf|-DREAL=double*-DN=16 -DSEL=*-DSPLITK=0|cycle in copy bundle|potrf_panel N=16 -> potrf_panel N=32 (src/la/potrf.c, pf_fused)"
  "gfx1100|potri|-DN=64 |malloc(): unsorted double linked list corrupted|lauum N=64 -> blocks of 32 (src/la/potri.c, pi_lauum)"
)

for t in "${targets[@]}"; do
  case $t in gfx90a|gfx1100) ;; spirv) command -v "$LLVM_SPIRV" >/dev/null || { echo "no $LLVM_SPIRV (Debian: llvm-spirv-15)"; exit 1; } ;;
  *) echo "unknown target $t"; exit 2 ;; esac
done
command -v "$CLANG" >/dev/null || { echo "no $CLANG (Debian: clang-15)"; exit 1; }
[ -s "$list" ] || { echo "empty program list $list"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the source as gala_kernel_source assembles it: common.clh, then the family's file (the cl/
# files it includes, "<family>_abi.h" or "potrf/panel.cl", found through -I cl_dir)
for f in "$cl_dir"/*.cl; do
  fam=$(basename "$f" .cl)
  { printf '#line 1 "common.clh"\n'; cat "$cl_dir/common.clh"; printf '\n#line 1 "%s.cl"\n' "$fam"; cat "$f"; printf '\n'; } > "$work/$fam.cl"
done

# one compile: target, family, options, id, optimization; writes OK / KNOWN / FAIL with the log
one() {
  local t=$1 fam=$2 opts=$3 id=$4 opt=$5 log="$work/$4.$1.log" rc
  local common=(-x cl -cl-std=CL1.2 -Xclang -finclude-default-header -Werror=implicit-function-declaration -I "$cl_dir")
  case $t in
    gfx90a|gfx1100)
      # shellcheck disable=SC2086
      "$CLANG" "${common[@]}" -target amdgcn-amd-amdhsa -mcpu="$t" -nogpulib "$opt" -c $opts \
        "$work/$fam.cl" -o "$work/$id.$t.o" >"$log" 2>&1; rc=$? ;;
    spirv)
      # unoptimized, as runtimes take it (llvm-spirv-15 cannot translate LLVM's freeze)
      # shellcheck disable=SC2086
      { "$CLANG" "${common[@]}" -target spir64 -O0 -emit-llvm -c $opts "$work/$fam.cl" \
          -o "$work/$id.$t.bc" && "$LLVM_SPIRV" "$work/$id.$t.bc" -o "$work/$id.$t.spv"; } \
        >"$log" 2>&1; rc=$? ;;
  esac
  rm -f "$work/$id.$t.o" "$work/$id.$t.bc" "$work/$id.$t.spv"
  if [ $rc -eq 0 ]; then echo "OK $t $opt $fam $opts"; return; fi
  local k kt kf kopt kmsg kfb
  while IFS= read -r k; do
    [ -n "$k" ] || continue
    IFS='|' read -r kt kf kopt kmsg kfb <<<"$k"
    # shellcheck disable=SC2053
    if [ "$kt" = "$t" ] && [ "$kf" = "$fam" ] && [[ "$opts" == *$kopt* ]] && grep -q "$kmsg" "$log"; then
      echo "KNOWN $t $opt $fam $opts: $kmsg; runtime fallback $kfb"; return
    fi
  done <<<"$KNOWN_S"
  echo "FAIL $t $opt $fam $opts"; sed 's/^/    /' "$log" | head -20
}
export -f one
export CLANG LLVM_SPIRV work cl_dir
KNOWN_S=$(printf '%s\n' "${KNOWN[@]}")
export KNOWN_S

# whether target / family / options match a known crash (compiled at -O2, which shows it)
known_program() {
  local k kt kf kopt kmsg kfb
  for k in "${KNOWN[@]}"; do
    IFS='|' read -r kt kf kopt kmsg kfb <<<"$k"
    # shellcheck disable=SC2053
    [ "$kt" = "$1" ] && [ "$kf" = "$2" ] && [[ "$3" == *$kopt* ]] && return 0
  done
  return 1
}

start=$(date +%s)
i=0
while IFS=$'\t' read -r fam opts vendor lmem amd; do
  i=$((i + 1))
  for t in "${targets[@]}"; do
    # NVIDIA-only code (inline PTX) is compiled for NVIDIA's devices only
    [ "$vendor" = nvidia ] && { echo "SKIP $t $fam $opts (NVIDIA only)" >>"$work/skipped"; continue; }
    # asked for only on devices with more local memory than AMD's 64 KiB (gala sizes its
    # kernels from what the device reports, so an AMD GPU never asks for this one)
    case $t in gfx*) [ "${lmem:-0}" -gt 65536 ] && {
      echo "SKIP $t $fam $opts (only for devices with $lmem bytes of local memory)" >>"$work/skipped"; continue; } ;; esac
    opt=-O0
    if known_program "$t" "$fam" "$opts" || { [ "$t" = gfx1100 ] && [ "${amd:-1}" = 1 ]; }; then
      opt=-O2
    fi
    printf '%s\0%s\0%s\0%s\0%s\0' "$t" "$fam" "$opts" "$i" "$opt"
  done
done <"$list" | xargs -0 -n5 -P"$jobs" bash -c 'one "$@"' _ >"$work/results"

ok=$(grep -c '^OK ' "$work/results"); known=$(grep -c '^KNOWN ' "$work/results")
o2=$(grep -c '^[A-Z]* [a-z0-9]* -O2 ' "$work/results")
fail=$(grep -c '^FAIL ' "$work/results"); skipped=$(cat "$work/skipped" 2>/dev/null | wc -l)
grep -v '^OK ' "$work/results"
[ -f "$work/skipped" ] && cat "$work/skipped"
echo "offline compile (${targets[*]}): $((ok + known + fail)) builds of $(wc -l <"$list") programs:" \
     "$ok passed, $known known compiler crashes (covered by a fallback), $fail failed" \
     "($o2 of them at -O2)," \
     "$skipped skipped (NVIDIA-only, or more local memory than the target has); $(( $(date +%s) - start )) s with $jobs jobs"
[ "$fail" -eq 0 ]
