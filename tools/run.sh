#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   tools/run.sh demo       install what gala needs, build it, run the demo on the default device
#                           (gala-info, the README example, then gala-qp: 500 generated MPC QPs
#                           and the 24 Maros-Meszaros problems of tests/data, each as one batch;
#                           then the Python package, installed into .venv, and its demo)
#   tools/run.sh test       install, build with warnings as errors, run the whole test suite
#                           (C, then Python: the package installed into .venv, pytest), and
#                           build the API reference (Doxygen, warnings as errors) into
#                           build/docs/api/html
#   tools/run.sh python     only install the Python package into .venv (pip install .)
#   tools/run.sh sanitize   build the host-backend tests with AddressSanitizer + UBSan and run them
#   tools/run.sh tsan       build with ThreadSanitizer and run the concurrency tests (host + OpenCL)
#   tools/run.sh coverage   build with gcov instrumentation, run the whole suite, print each file
#                           of src/ with the lines no test runs (installs gcovr)
#   tools/run.sh setup      only install the Debian packages
# Builds go to build/ (build-asan/ for sanitize). Needs root or sudo for apt-get.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PKGS=(cmake make gcc clang pkg-config ca-certificates
      ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
      libclblast-dev check libsubunit-dev libsuitesparse-dev mesa-opencl-icd
      liblapacke-dev libopenblas-dev valgrind g++ python3-venv python3-dev doxygen
      clang-15 llvm-spirv-15 libopenmpi-dev openmpi-bin)

# The Python package's build and test dependencies (PyPI), installed into .venv.
PY_PKGS=(nanobind scikit-build-core numpy scipy pytest osqp qpsolvers)

setup() {
    local missing=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "installing: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

jobs() { nproc 2>/dev/null || echo 2; }

# The sanitizer builds (sanitize, tsan): Debug at -O1, as the sanitizers' documentation
# advises (the same checks; the host kernels 3-4 times faster than at -O0)
SAN_OPT='-DCMAKE_C_FLAGS_DEBUG=-g -O1'

# The Python package in a virtual environment of the checkout (.venv; Debian's own Python is
# externally managed): its dependencies, then `pip install .` (scikit-build-core builds the
# library and the extension in build-py/, reused by the next install).
python_env() {
    [ -x .venv/bin/python ] || python3 -m venv .venv
    .venv/bin/python -m pip install -q "${PY_PKGS[@]}"
    # PyTorch, the test reference of gala.torch: its CPU build, where its index can be reached
    # (PyPI's build brings gigabytes of CUDA libraries); without it those tests are skipped
    .venv/bin/python -c "import torch" 2>/dev/null ||
        .venv/bin/python -m pip install -q --retries 1 --timeout 20 \
            --index-url https://download.pytorch.org/whl/cpu torch ||
        echo "tools/run.sh: PyTorch's CPU index cannot be reached: gala.torch's tests are skipped"
    CMAKE_BUILD_PARALLEL_LEVEL="$(jobs)" .venv/bin/python -m pip install -q --no-build-isolation \
        --config-settings=cmake.define.GALA_WERROR=ON "$@" .
}

# The end of the demo: gala-qp on the default device, in double where it has fp64. Sizes keep it
# under a minute on two CPU cores with PoCL (44 s measured with empty kernel caches, most of
# it compiling the kernels; about 5 s once they are cached).
demo_qp() {
    local qp=./build/tools/gala-qp rc=0
    echo
    # which device the demo runs on: a GPU, else the host backend on every core (gala-info's
    # line, written by the demo step before; GALA_BACKEND etc. override the choice)
    grep '^default device' build/gala-info.txt 2>/dev/null || true
    echo "== gala-qp: 500 MPC QPs (OSQP's control benchmark, nx = 10: 160 variables, 270 constraints)"
    "$qp" solve --generate mpc:10x500 --precision auto --summary
    echo
    echo "== gala-qp: the Maros-Meszaros problems of tests/data in one batch, eps 1e-5, against OPT"
    "$qp" solve tests/data/maros_meszaros --eps 1e-5 --precision auto \
        --reference tests/data/maros_meszaros/00README.QP || rc=$?
    # exit 1 means some QPs are not solved: PRIMALC1, QBANDM and QSHARE1B at these settings, as
    # with OSQP (docs/maros_meszaros.md); 2 or 3 are real failures
    [ "$rc" -le 1 ] || exit "$rc"
}

build() {
    local dir=$1; shift
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DGALA_WERROR=ON "$@"
    cmake --build "$dir" -j"$(jobs)"
}

case "${1:-}" in
setup) setup ;;
demo)
    setup
    build build
    ./build/tools/gala-info | tee build/gala-info.txt
    ./build/tests/readme_example
    demo_qp
    echo
    echo "== Python: the gala package (pip install . into .venv) and python/examples/demo.py"
    python_env
    .venv/bin/python python/examples/demo.py
    ;;
test)
    setup
    # no prebuilt CUDA kernels (docs/cuda.md): without a GPU nothing would load them, and on
    # two cores they take 15 minutes; test_cuda_store checks the tool with a store of its own
    build build -DGALA_CUDA_ARCHS=none
    ctest --test-dir build --output-on-failure -j"$(jobs)"
    # the API reference: every public function, type and enum value documented (about 1 s)
    cmake --build build --target docs
    python_env --config-settings=cmake.define.GALA_CUDA_ARCHS=none
    GALA_CACHE_DIR="$PWD/build/kcache" .venv/bin/python -m pytest python/tests -q -rs
    ;;
python)
    setup
    python_env
    ;;
sanitize)
    setup
    # host backend only (no OpenCL or MPI runtime inside the sanitized process: their own
    # allocations would count as leaks), leaks checked; no CUDA either: without a GPU its
    # only test is test_nvrtc, NVRTC compiling every kernel (5-8 minutes on two cores),
    # which the test command has already run. -O1, as the sanitizers' documentation advises:
    # the same checks, and the host kernels 3-4 times faster than at -O0 (the run took 7.5
    # minutes at -O0, test_trtri alone 3.6)
    build build-asan -DCMAKE_BUILD_TYPE=Debug "$SAN_OPT" \
        -DGALA_SANITIZE=address,undefined -DGALA_WITH_OPENCL=OFF -DGALA_WITH_CUDA=OFF \
        -DGALA_WITH_MPI=OFF -DGALA_BUILD_BENCH=OFF
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ctest --test-dir build-asan --output-on-failure -j"$(jobs)"
    ;;
tsan)
    setup
    # the concurrency tests only: threads (every routine, own and shared contexts), kcache
    # (threads and processes filling one cache folder), qp_setup (the QP solver's host
    # loops on the context's worker threads), host_threads (every host kernel that runs
    # its items on the worker threads), qp_multi (a QP batch on several contexts, a thread
    # per device) and qp_chunk (a batch's chunks pipelined on a context and its twin, a
    # thread per slot), host and OpenCL
    # -O1 (as for sanitize), and two tests at a time: at -O0 one after the other they took 6
    # minutes, test_qp_chunk alone 4
    cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug "$SAN_OPT" \
        -DGALA_WERROR=ON -DGALA_SANITIZE=thread \
        -DGALA_BUILD_BENCH=OFF -DGALA_BUILD_TOOLS=OFF
    cmake --build build-tsan -j"$(jobs)" --target test_threads test_kcache test_qp_setup \
        test_host_threads test_qp_multi test_qp_chunk
    TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -j"$(jobs)" \
        -R "^test_(threads|kcache|qp_setup|host_threads|qp_multi|qp_chunk)$"
    ;;
coverage)
    PKGS+=(gcovr)
    setup
    # atomic counters: the library's worker threads would otherwise race on them (gcov then
    # reports negative counts); processes merge their .gcda files under a lock
    rm -rf build-cov
    cmake -S . -B build-cov -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_FLAGS="--coverage -fprofile-update=atomic -O1" -DGALA_BUILD_BENCH=OFF
    cmake --build build-cov -j"$(jobs)"
    ctest --test-dir build-cov --output-on-failure -j"$(jobs)"
    gcovr --root . --filter 'src/' --sort-uncovered --gcov-ignore-parse-errors build-cov
    ;;
*)
    echo "usage: tools/run.sh demo|test|python|sanitize|tsan|coverage|setup" >&2
    exit 2
    ;;
esac
