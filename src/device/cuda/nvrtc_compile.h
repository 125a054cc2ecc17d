/*
 * Kernel compilation for the CUDA backend with NVRTC, separate from the driver so that it
 * runs (and is tested, tests/test_nvrtc.c) on machines without a GPU. No CUDA types here.
 *
 * The source is what the core hands every backend: cl/common.clh followed by
 * cl/<family>.cl; NVRTC defines __CUDACC_RTC__, which selects the CUDA half of common.clh.
 */
#ifndef GALA_NVRTC_COMPILE_H
#define GALA_NVRTC_COMPILE_H

#include <stddef.h>

#include "../../core/internal.h"

#define GALA_NVRTC_MAX_ARGS 48

/** The NVRTC command line of one program: argv points into buf; text is the same
 *  arguments joined by spaces (part of the disk-cache key). */
typedef struct gala_nvrtc_args {
    int argc;
    const char *argv[GALA_NVRTC_MAX_ARGS];
    char buf[2048];
    char text[2048];
} gala_nvrtc_args;

/**
 * Build the NVRTC arguments for a target and the core's option string.
 * @param target   "sm_90" (real architecture: CUBIN) or "compute_90" (virtual: PTX).
 * @param options  the core's options, e.g. "-DREAL=double -DGALA_DOUBLE=1 -DWG=256".
 *                 -D, -U and -w pass through; the OpenCL options -cl-fast-relaxed-math,
 *                 -cl-mad-enable, -cl-denorms-are-zero map to their NVRTC equivalents,
 *                 -cl-std=* is dropped; anything else is GALA_ERR_KERNEL_BUILD.
 * The fixed options come first: --gpu-architecture=<target>, --std=c++17,
 * -default-device, then the words of $GALA_NVRTC_OPTIONS (e.g. "-lineinfo"), then the
 * converted options.
 */
GALA_INTERNAL gala_status gala_nvrtc_args_make(const struct gala_context *ctx, const char *target,
                                               const char *options, gala_nvrtc_args *args);

/**
 * Compile source with args. cubin: 1 to return the CUBIN (the target must be sm_XX),
 * 0 for the PTX (NUL included in *size). *image is freed with gala_free.
 * Errors: GALA_ERR_KERNEL_BUILD with "<what> failed to compile with NVRTC (<arguments>);
 * compiler log:" and NVRTC's log in the message; GALA_ERR_OUT_OF_MEMORY.
 */
GALA_INTERNAL gala_status gala_nvrtc_compile(const struct gala_context *ctx, const char *what,
                                             const char *prog_name, const char *source,
                                             const gala_nvrtc_args *args, int cubin,
                                             void **image, size_t *size);

/** NVRTC's version (e.g. 13, 0). */
GALA_INTERNAL void gala_nvrtc_version(int *major, int *minor);

/** The NVRTC target for a device of compute capability cc (e.g. 90): *arch receives the
 *  highest architecture NVRTC supports that is <= cc, *exact whether it equals cc (then
 *  compile CUBIN for sm_<arch>; else PTX for compute_<arch>, which the driver compiles).
 *  Returns 0 when NVRTC supports no architecture <= cc (device too old). */
GALA_INTERNAL int gala_nvrtc_pick_arch(int cc, int *arch, int *exact);

/** Oldest and newest architectures this NVRTC supports (e.g. 75 and 121). */
GALA_INTERNAL void gala_nvrtc_arch_range(int *oldest, int *newest);

/** CUDA C source of the backend's built-in kernels (the 8-byte fill), compiled like the
 *  families; exposed for tests/test_nvrtc.c. */
GALA_INTERNAL const char *gala_cuda_builtin_source(void);

/* ---------------------------------------------------------------- prebuilt kernels */

/** The store's folder beside the library (the shared library's folder, or the folder of
 *  the program or Python extension gala is linked into) and its index file. */
#define GALA_CUDA_STORE_DIRNAME "gala-cuda-kernels"
#define GALA_CUDA_STORE_INDEX "index.txt"
#define GALA_CUDA_STORE_MAX_TARGETS 16

/** A prebuilt kernel store (store.c; docs/cuda.md, "Prebuilt kernels"): its folder and the
 *  targets its index lists ("sm_90" CUBIN, "compute_90" PTX). */
typedef struct gala_cuda_store {
    char dir[4096];
    int ntargets;
    char targets[GALA_CUDA_STORE_MAX_TARGETS][16];
} gala_cuda_store;

/** Open the store in dir: 1 when its index lists at least one target, else 0. */
GALA_INTERNAL int gala_cuda_store_open_dir(const char *dir, gala_cuda_store *st);

/** The store a context uses: $GALA_CUDA_STORE when set (a folder; "0" turns the store off),
 *  else GALA_CUDA_STORE_DIRNAME beside the file holding the library's code, else the
 *  installed location. 1 when one is found. */
GALA_INTERNAL int gala_cuda_store_open(gala_cuda_store *st);

/** The identity of a program in a store (gala_kstore_*): a tag, the NVRTC arguments'
 *  text (target, fixed options, -D options) and the source. NULL when out of memory;
 *  free with gala_free. */
GALA_INTERNAL char *gala_cuda_store_id(const gala_nvrtc_args *args, const char *source,
                                       size_t *len);

/** The targets of the store a device of compute capability cc can load, best first: CUBIN
 *  for sm_<cc>, then older CUBINs of the same major version, then PTX of the newest
 *  virtual architecture <= cc. Returns their number (at most cap). */
GALA_INTERNAL int gala_cuda_store_candidates(const gala_cuda_store *st, int cc, char out[][16],
                                             int cap);

/** Look a program up (family, assembled source, the core's options) for a device of
 *  compute capability cc: 1 with the image (free with gala_free; PTX ends with its NUL)
 *  and the target it was built for, 0 on a miss. A corrupt entry is a miss. */
GALA_INTERNAL int gala_cuda_store_find(const gala_cuda_store *st, int cc, const char *family,
                                       const char *source, const char *options, void **image,
                                       size_t *size, char *target, size_t target_cap);

/** Load cuBLAS now (it is otherwise opened at the first BLAS-3 call): 1 when it and every
 *  function the backend uses are there, else 0 with the reason in *why. For tests. */
GALA_INTERNAL int gala_cuda_blas_load(const char **why);

/** The CUstream of a CUDA context (for tests of options.native_stream). */
GALA_INTERNAL void *gala_cuda_stream(struct gala_context *ctx);

#endif /* GALA_NVRTC_COMPILE_H */
