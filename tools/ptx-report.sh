#!/usr/bin/env bash
# tools/ptx-report.sh [CACHE_DIR]: registers, stack frames and spills of every kernel that
# NVIDIA's OpenCL driver compiled into gala's kernel cache (its binaries are PTX). A stack
# frame means a private array was not kept in registers (e.g. a loop the driver did not
# unroll): the usual cause of an OpenCL kernel running slower than its CUDA twin.
# Needs ptxas (CUDA toolkit). Default folder: $GALA_CACHE_DIR or ~/.cache/gala.
set -uo pipefail
dir=${1:-${GALA_CACHE_DIR:-$HOME/.cache/gala}}
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-34s %-32s %5s %7s %7s\n' "cache entry" kernel regs "stack" spills
for f in "$dir"/*.bin; do
    [ -e "$f" ] || continue
    # the cache header is 48 bytes (src/core/kcache.c); NVIDIA's payload is PTX text
    tail -c +49 "$f" | tr -d '\000' >"$tmp/k.ptx"
    grep -q '^\.version' "$tmp/k.ptx" || continue
    "$ptxas" -arch=sm_90 -v "$tmp/k.ptx" -o /dev/null 2>&1 |
        awk -v e="$(basename "$f" .bin)" '
            /Compiling entry function/ { k = $0; sub(/.*function ./, "", k); sub(/. for .*/, "", k) }
            /bytes stack frame/ { st = $1; sp = $5 + $9 }
            /Used [0-9]+ registers/ { r = $5; printf "%-34s %-32s %5s %7s %7s\n", e, k, r, st, sp }'
done
