/*
 * The internal device interface: what a backend (OpenCL, CUDA, host) implements.
 *
 * A backend is a table of function pointers (gala_device_ops). The core (src/core) owns
 * contexts, buffers, the program cache and errors, and calls a backend only through this
 * table; algorithm code (src/blas, src/la, src/qp) calls the core's kernel API
 * (src/core/kernel.h) and never a backend directly.
 *
 * Kernels: every kernel lives in cl/<family>.cl, compiled at run time with -D options (the
 * element type REAL and the tuning parameters of a gala_program_key). GPU backends compile
 * that source (OpenCL: clBuildProgram; CUDA: NVRTC behind cl/common.clh's translation
 * macros). The host backend instead looks the family up in its registry of C functions
 * (src/device/host/), which implement each kernel's contract as plain loops.
 */
#ifndef GALA_DEVICE_INTERNAL_H
#define GALA_DEVICE_INTERNAL_H

#include "gala/gala.h"

#define GALA_MAX_KDEFS 16
#define GALA_KDEF_NAME 32

/** One compile-time parameter of a kernel program: -D<name>=<value>. */
typedef struct gala_kdef {
    char name[GALA_KDEF_NAME];
    long long value;
} gala_kdef;

/** What identifies a compiled program: family (cl/<family>.cl), element type, -D values. */
typedef struct gala_program_key {
    const char *family;
    gala_dtype dtype;
    int ndefs;
    gala_kdef defs[GALA_MAX_KDEFS];
} gala_program_key;

/** Kinds of kernel arguments. Buffers carry no offset: kernels take offsets explicitly. */
typedef enum gala_arg_kind {
    GALA_ARG_BUF = 1,  /**< a gala_buffer (cl_mem, device pointer, or host pointer) */
    GALA_ARG_INT = 2,  /**< 32-bit int */
    GALA_ARG_LONG = 3, /**< 64-bit index (gidx in kernels) */
    GALA_ARG_REAL = 4  /**< a scalar converted to the program's REAL type */
} gala_arg_kind;

typedef struct gala_arg {
    gala_arg_kind kind;
    int ro; /* a buffer the kernel only reads (its argument list says const): the core's
             * record of device writes (parking) skips it; backends ignore it */
    union {
        const struct gala_buffer *buf;
        int i;
        long long l;
        double r;
    } v;
} gala_arg;

/** Launch geometry, OpenCL-style: global sizes are multiples of local sizes. */
typedef struct gala_dims {
    int ndim;
    size_t global[3];
    size_t local[3];
} gala_dims;

struct gala_context;
struct gala_context_options;

/** BLAS-3 a backend may offer (OpenCL: CLBlast; CUDA: cuBLAS; host: loops). Offsets and
 *  leading dimensions in elements; column-major; asynchronous on the context's queue. */
typedef struct gala_blas3_ops {
    gala_status (*gemm)(struct gala_context *ctx, gala_dtype dt, gala_trans ta, gala_trans tb,
                        int m, int n, int k, double alpha, const struct gala_buffer *A,
                        size_t a_off, int lda, const struct gala_buffer *B, size_t b_off, int ldb,
                        double beta, struct gala_buffer *C, size_t c_off, int ldc);
    gala_status (*syrk)(struct gala_context *ctx, gala_dtype dt, gala_uplo uplo, gala_trans t,
                        int n, int k, double alpha, const struct gala_buffer *A, size_t a_off,
                        int lda, double beta, struct gala_buffer *C, size_t c_off, int ldc);
    gala_status (*trsm)(struct gala_context *ctx, gala_dtype dt, gala_side side, gala_uplo uplo,
                        gala_trans t, gala_diag diag, int m, int n, double alpha,
                        const struct gala_buffer *A, size_t a_off, int lda,
                        struct gala_buffer *B, size_t b_off, int ldb);
    /** Optional: the GEMM kernel parameters this context set for dt, up to cap of them
     *  (the count; 0 when the library's own choice stands). For tuning sweeps. */
    int (*kernel_params)(struct gala_context *ctx, gala_dtype dt, long *out, int cap);
} gala_blas3_ops;

/** The table a backend implements. Sizes and offsets of mem_* are in bytes. */
typedef struct gala_device_ops {
    gala_backend backend;
    const char *name;

    /** Count the devices this backend sees (platform-major); fill up to cap descs. */
    gala_status (*list)(gala_device_desc *descs, int cap, int *count);
    /** Open the device chosen by the selectors (NULL: first suitable; prefer_gpu: only
     *  GPUs when nonzero, only non-GPUs when negative, any when zero). Fills ctx->impl and
     *  ctx->info; sets a message and returns GALA_ERR_NO_DEVICE if nothing matches. */
    gala_status (*open)(struct gala_context *ctx, const struct gala_context_options *opts,
                        const char *platform_sel, const char *device_sel, int prefer_gpu);
    void (*close)(struct gala_context *ctx);
    gala_status (*finish)(struct gala_context *ctx);

    gala_status (*mem_alloc)(struct gala_context *ctx, size_t bytes, void **handle);
    void (*mem_free)(struct gala_context *ctx, void *handle);
    gala_status (*mem_write)(struct gala_context *ctx, void *handle, size_t off, size_t bytes,
                             const void *src, int blocking);
    gala_status (*mem_read)(struct gala_context *ctx, void *handle, size_t off, size_t bytes,
                            void *dst, int blocking);
    gala_status (*mem_copy)(struct gala_context *ctx, void *src, size_t src_off, void *dst,
                            size_t dst_off, size_t bytes);
    gala_status (*mem_fill)(struct gala_context *ctx, void *handle, size_t off, size_t bytes,
                            const void *pattern, size_t pattern_bytes);

    /** Compile (or load from the disk cache) the program for key; source is the full text
     *  (common header + family), options the -D string. *from_cache tells which. */
    gala_status (*program_build)(struct gala_context *ctx, const gala_program_key *key,
                                 const char *source, const char *options, void **program,
                                 int *from_cache);
    void (*program_free)(struct gala_context *ctx, void *program);
    gala_status (*kernel_create)(struct gala_context *ctx, void *program, const char *name,
                                 void **kernel);
    void (*kernel_free)(struct gala_context *ctx, void *kernel);
    /** Optional: the most work-items per work-group this kernel can run (its registers or
     *  local memory may allow fewer than the device's maximum); 0: the device's maximum. */
    size_t (*kernel_max_wg)(struct gala_context *ctx, void *kernel);
    gala_status (*launch)(struct gala_context *ctx, void *kernel, const gala_program_key *key,
                          const gala_dims *dims, int nargs, const gala_arg *args);

    gala_status (*timer_record)(struct gala_context *ctx, void **timer);
    gala_status (*timer_elapsed)(struct gala_context *ctx, void *start, void *stop, double *ms);
    void (*timer_free)(struct gala_context *ctx, void *timer);

    /** Optional: a second lane (queue / stream) for work that may overlap the first.
     *  Lane 0 is the context's queue (the caller's stream under interop); lane 1 is an
     *  internal one, created at first use, of higher priority where the device has
     *  priorities. lane_select(l): every later operation of the context (copies, fills,
     *  launches, BLAS-3, timers) goes to lane l. lane_wait(l, on): the work submitted to
     *  lane l from now on waits for all the work submitted so far to lane on (creating lane
     *  1 if it does not exist yet, so that the order holds from its first use).
     *  lane_reserve(units): BLAS-3 calls on lane 0 leave that many compute units to lane 1
     *  (0: all units; a hint, ignored where the BLAS cannot limit itself). finish and
     *  mem_free wait for both lanes. NULL hooks: one lane (the host backend, where every
     *  operation is synchronous); the core then treats the calls as done. The core checks
     *  the lane numbers (0 or 1) before calling the hooks. */
    gala_status (*lane_select)(struct gala_context *ctx, int lane);
    gala_status (*lane_wait)(struct gala_context *ctx, int lane, int on);
    gala_status (*lane_reserve)(struct gala_context *ctx, int units);

    /** Optional: open ctx as a twin of parent (src/core/internal.h, gala_context_twin): the
     *  same device and memory (parent's buffer handles are valid in ctx's operations and
     *  the reverse), a queue or stream of its own (lane 0; lane 1 made at first use as
     *  usual), ctx->info as parent's. Fills ctx->impl. NULL: the backend has no twins.
     *  Errors: GALA_ERR_NOT_SUPPORTED (this parent cannot have one) or the driver's. */
    gala_status (*twin)(struct gala_context *ctx, struct gala_context *parent);

    /** Optional BLAS-3 (NULL when the backend has none). */
    const gala_blas3_ops *blas3;

    /** Optional: check caller-owned memory for gala_buffer_wrap() (native handle, extent
     *  in bytes, element size) and give the handle to store (NULL hook: the native value
     *  is the handle as is). Errors: GALA_ERR_INVALID_ARG with a message. */
    gala_status (*mem_wrap)(struct gala_context *ctx, void *native, size_t bytes,
                            size_t elem_size, void **handle);

    /** Optional: page-locked host memory of `bytes` (transfers from and to it run at the
     *  bus's speed and asynchronously; pageable memory goes through the driver's staging at
     *  a fraction of it). *ptr is the host address, *handle what host_free needs. NULL hooks
     *  (the host backend): plain memory serves. Errors: a status; nothing is allocated. */
    gala_status (*host_alloc)(struct gala_context *ctx, size_t bytes, void **ptr, void **handle);
    void (*host_free)(struct gala_context *ctx, void *ptr, void *handle);

    /** Optional: `bytes` of zeroed page-locked host memory that kernels write through
     *  *handle (a buffer handle) and the host reads at *ptr once gala_finish has returned,
     *  with no copy (CUDA's mapped memory). NULL hooks: gala_flag_word falls back to a
     *  device buffer that is read back. mapped_free takes both. Errors: a status. */
    gala_status (*mapped_alloc)(struct gala_context *ctx, size_t bytes, void **handle, void **ptr);
    void (*mapped_free)(struct gala_context *ctx, void *handle, void *ptr);
} gala_device_ops;

/* The backends compiled into this build (NULL where absent). */
extern const gala_device_ops gala_host_ops;
const gala_device_ops *gala_opencl_ops(void);
const gala_device_ops *gala_cuda_ops(void);

#endif /* GALA_DEVICE_INTERNAL_H */
