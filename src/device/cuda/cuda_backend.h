/*
 * CUDA backend internals shared by its files (cuda.c, cuda_blas.c, cuda_driver.c).
 *
 * The driver API (libcuda.so.1) is not linked: it is opened with dlopen at first use, so
 * that a library built with CUDA still loads, and falls back to another backend, on a
 * machine without the NVIDIA driver (CI, CPU-only nodes). NVRTC is linked; cuBLAS is
 * opened at its first use (cuda_blas.c).
 *
 * Calls go through gala_cu()->NAME(...), where NAME is the driver function as cuda.h
 * spells it: the header's macros (cuMemAlloc -> cuMemAlloc_v2, ...) apply to the member
 * names and to the symbols looked up, so the table always matches the header's prototypes.
 */
#ifndef GALA_CUDA_BACKEND_H
#define GALA_CUDA_BACKEND_H

#include <cuda.h>

#include "../../core/internal.h"
#include "nvrtc_compile.h"

/* Every driver function the backend uses. */
#define GALA_CU_FUNCS(X)                                                                   \
    X(cuInit)                                                                              \
    X(cuDriverGetVersion)                                                                  \
    X(cuGetErrorName)                                                                      \
    X(cuGetErrorString)                                                                    \
    X(cuDeviceGetCount)                                                                    \
    X(cuDeviceGet)                                                                         \
    X(cuDeviceGetName)                                                                     \
    X(cuDeviceGetAttribute)                                                                \
    X(cuDeviceTotalMem)                                                                    \
    X(cuDevicePrimaryCtxRetain)                                                            \
    X(cuDevicePrimaryCtxRelease)                                                           \
    X(cuCtxPushCurrent)                                                                    \
    X(cuCtxPopCurrent)                                                                     \
    X(cuCtxGetDevice)                                                                      \
    X(cuStreamGetCtx)                                                                      \
    X(cuStreamCreate)                                                                      \
    X(cuStreamCreateWithPriority)                                                          \
    X(cuCtxGetStreamPriorityRange)                                                         \
    X(cuStreamWaitEvent)                                                                   \
    X(cuStreamDestroy)                                                                     \
    X(cuStreamSynchronize)                                                                 \
    X(cuMemAlloc)                                                                          \
    X(cuMemFree)                                                                           \
    X(cuMemHostAlloc)                                                                      \
    X(cuMemFreeHost)                                                                       \
    X(cuMemHostGetDevicePointer)                                                           \
    X(cuMemcpyHtoDAsync)                                                                   \
    X(cuMemcpyDtoHAsync)                                                                   \
    X(cuMemcpyDtoDAsync)                                                                   \
    X(cuMemsetD32Async)                                                                    \
    X(cuMemGetAddressRange)                                                                \
    X(cuPointerGetAttribute)                                                               \
    X(cuModuleLoadDataEx)                                                                  \
    X(cuModuleUnload)                                                                      \
    X(cuModuleGetFunction)                                                                 \
    X(cuFuncGetAttribute)                                                                  \
    X(cuLaunchKernel)                                                                      \
    X(cuEventCreate)                                                                       \
    X(cuEventRecord)                                                                       \
    X(cuEventSynchronize)                                                                  \
    X(cuEventElapsedTime)                                                                  \
    X(cuEventDestroy)

#define GALA_CU_MEMBER(f) __typeof__(&f) f;
typedef struct gala_cu_api {
    GALA_CU_FUNCS(GALA_CU_MEMBER)
    /* Optional (NULL when the driver lacks it): sizes of a kernel's parameters, used to
     * check every launch against the kernel's signature. */
    CUresult (*cuFuncGetParamInfo)(CUfunction f, size_t index, size_t *offset, size_t *size);
} gala_cu_api;
#undef GALA_CU_MEMBER

/** The driver API, loaded once (thread-safe); NULL when unavailable, with the reason in
 *  *why (a static string). Does not call cuInit. */
GALA_INTERNAL const gala_cu_api *gala_cu(const char **why);

/** Map a driver error to a status with a message "what failed: NAME (code): text". */
GALA_INTERNAL gala_status gala_cu_fail(const struct gala_context *ctx, CUresult r,
                                       const char *what);

#define GALA_CUDA_MAX_PARAMS 64

/** A kernel: its function and what a launch checks. */
typedef struct gala_cu_kernel {
    CUfunction fn;
    int max_threads; /* this kernel's limit (registers), <= the device's */
    int nparams;     /* -1 when the driver cannot tell */
    unsigned char psize[GALA_CUDA_MAX_PARAMS];
    char name[64];
} gala_cu_kernel;

/** The state of a CUDA context (ctx->impl). */
typedef struct gala_cu_state {
    CUdevice dev;
    int ordinal;      /* the device's index among CUDA devices */
    CUcontext cuctx;  /* the device's primary context, or the native stream's context */
    int ctx_retained; /* 1 when we hold a reference on the primary context */
    CUstream stream;  /* the current lane's stream: every operation goes there */
    CUstream base;    /* lane 0: the context's stream */
    CUstream side;    /* lane 1: created at first use, highest priority; or NULL */
    CUevent lane_ev;  /* recorded on one lane for the other to wait on */
    int lane;         /* the current lane */
    int own_stream;   /* 0 for options.native_stream */
    int cc;           /* compute capability, e.g. 90 */
    int arch;         /* NVRTC target, e.g. 90 */
    int cubin;        /* 1: compile to CUBIN for sm_<arch>; 0: PTX for compute_<arch> */
    char id[512];     /* device part of cache keys */
    void *blas;       /* cublasHandle_t of lane 0, created at first BLAS-3 call */
    void *blas_side;  /* cublasHandle_t of lane 1 (its own workspace), idem */
    int reserve;      /* SMs that lane 0's BLAS-3 leaves to lane 1 (lane_reserve) */
    int reserve_set;  /* the reservation applied to the lane-0 handle */
    int have_store;   /* a prebuilt kernel store was found (store.c) */
    gala_cuda_store store;
    CUmodule fill_mod; /* built-in 8-byte fill kernel, built at first use */
    CUfunction fill_fn;
} gala_cu_state;

#define GALA_CU_ST(ctx) ((gala_cu_state *)(ctx)->impl)

/** Make the context's CUDA context current on this thread (push); gala_cu_leave pops it.
 *  Every entry point that calls the driver is bracketed by the two. */
GALA_INTERNAL gala_status gala_cu_enter(const struct gala_context *ctx);
GALA_INTERNAL void gala_cu_leave(const struct gala_context *ctx);

/** The cuBLAS table (cuda_blas.c) and its teardown at context close (context pushed). */
GALA_INTERNAL extern const gala_blas3_ops gala_cuda_blas3_ops;
GALA_INTERNAL void gala_cuda_blas_release(struct gala_context *ctx);

#endif /* GALA_CUDA_BACKEND_H */
