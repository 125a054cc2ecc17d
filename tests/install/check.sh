#!/usr/bin/env bash
# Installs the build tree into a temporary prefix (with the prebuilt CUDA kernels beside the
# library when the build made them), then builds the README example against it twice: with
# CMake's find_package(gala) and with pkg-config. Usage: check.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
test -f "$tmp/prefix/include/gala/gala.h"
# the prebuilt CUDA kernels (GALA_CUDA_ARCHS), when built: beside the library, every entry
if [ -f "$build/gala-cuda-kernels/index.txt" ]; then
    store=$(ls -d "$tmp"/prefix/lib*/gala-cuda-kernels | head -1)
    cmp "$build/gala-cuda-kernels/index.txt" "$store/index.txt"
    [ "$(grep -c '^entry' "$store/index.txt")" = "$(ls "$store" | grep -c '\.bin$')" ]
fi
cmake -S "$here" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/cfg.log"
cmake --build "$tmp/consumer" > "$tmp/build.log"
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64:${LD_LIBRARY_PATH:-}" "$tmp/consumer/consumer"
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
flags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs gala)
cc "$here/../readme_example.c" $flags -o "$tmp/pc_consumer"
LD_LIBRARY_PATH="$(dirname "$libdir"):${LD_LIBRARY_PATH:-}" "$tmp/pc_consumer"
echo "install check passed (find_package and pkg-config)"
