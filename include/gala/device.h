/**
 * @file device.h
 * @brief Contexts (a backend and one device), device buffers, and device information.
 *
 * A ::gala_context binds gala to one device through one backend: OpenCL (any vendor,
 * kernels compiled at run time), CUDA (NVIDIA, a build variant) or HOST (plain C on the
 * calling thread and the context's worker threads; the reference implementation). All work
 * submitted to a context runs in submission order on one queue (OpenCL command queue, CUDA
 * stream; on HOST each call returns when its work is done).
 *
 * Threads: a context and its buffers must not be used by two threads at the same time.
 * Different contexts are fully independent and may be used concurrently from different
 * threads. To share one context between threads, serialize every call on it (and the
 * reads of gala_last_error()) with your own mutex.
 */
#ifndef GALA_DEVICE_H
#define GALA_DEVICE_H

#include "gala/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A context: one backend and one device (declared in common.h too). */
typedef struct gala_context gala_context;
/** A typed device buffer owned by a context (declared in common.h too). */
typedef struct gala_buffer gala_buffer;

/** Backends. AUTO picks a GPU (a CUDA GPU, then an OpenCL GPU), else HOST (plain C on every
 *  core, options.host_threads). An OpenCL CPU device (PoCL, Rusticl's llvmpipe) is used
 *  only when asked for: backend OPENCL, or a platform or device selection. */
typedef enum gala_backend {
    GALA_BACKEND_AUTO = 0,   /**< a GPU (OpenCL, then CUDA), else HOST; the default */
    GALA_BACKEND_OPENCL = 1, /**< OpenCL: any vendor's GPU or CPU device */
    GALA_BACKEND_CUDA = 2,   /**< CUDA: NVIDIA GPUs (builds with the CUDA toolkit) */
    GALA_BACKEND_HOST = 3    /**< plain C on the calling thread and the context's threads */
} gala_backend;

/** Options for gala_context_create(). Initialize with gala_context_options_default(). */
typedef struct gala_context_options {
    /** Backend to use; GALA_BACKEND_AUTO by default. */
    gala_backend backend;
    /** Platform to use (OpenCL): NULL for any, a decimal index, or a case-insensitive
     *  substring of the platform name. */
    const char *platform;
    /** Device to use: NULL for the first suitable one, a decimal index (within the chosen
     *  platform), or a case-insensitive substring of the device name. */
    const char *device;
    /** When nonzero (the default), the environment variables GALA_BACKEND, GALA_PLATFORM
     *  and GALA_DEVICE override the three fields above. */
    int use_environment;
    /** When nonzero, enable device-side timing (gala_timer_*); default 0. */
    int profiling;
    /** Interoperability (CUDA backend): an existing CUstream / cudaStream_t to run on, or
     *  NULL to create one. All gala work on the context is ordered on this stream. The
     *  context then uses the stream's CUDA context and device (a device selection must
     *  match it); with backend AUTO it selects CUDA, with OPENCL or HOST it is
     *  GALA_ERR_INVALID_ARG. The stream must outlive the gala context (see docs/cuda.md). */
    void *native_stream;
    /** HOST backend: the most threads one call uses (the calling thread and the context's
     *  workers, started at the first call that wants them): batched launches run their
     *  independent matrices or QPs on them, with results bitwise equal to one thread's.
     *  0 (the default): one per core the process may run on (at most 64); 1: the calling
     *  thread only. The environment variable GALA_HOST_THREADS caps it further, whatever
     *  use_environment says (an invalid value is GALA_ERR_INVALID_ARG). */
    int host_threads;
} gala_context_options;

/** What gala_context_info() reports about a context's device. */
typedef struct gala_device_info {
    gala_backend backend;      /**< backend actually in use (never AUTO) */
    char backend_name[16];     /**< "opencl", "cuda" or "host" */
    char platform_name[128];   /**< OpenCL platform, "CUDA", or "host" */
    char device_name[128];     /**< device name as the driver reports it */
    char vendor_name[128];     /**< device vendor */
    char driver_version[64];   /**< driver version string */
    char device_version[64];   /**< e.g. "OpenCL 3.0 CUDA", "sm_90" */
    int is_gpu;                /**< 1 for a GPU */
    int compute_units;         /**< compute units / multiprocessors / host threads used
                                    (HOST: the most threads a call uses, options.host_threads) */
    size_t global_mem_bytes;   /**< device memory size */
    size_t max_alloc_bytes;    /**< largest single allocation */
    size_t local_mem_bytes;    /**< local (shared) memory per work-group */
    size_t max_work_group_size;/**< largest work-group (thread block) */
    int subgroup_size;         /**< warp / SIMD width the kernels are tuned for (1 on host) */
    int fp64;                  /**< 1 if double precision is supported */
} gala_device_info;

/** @brief Fill @p opts with the defaults (AUTO backend, environment overrides on). */
GALA_API void gala_context_options_default(gala_context_options *opts);

/**
 * @brief Create a context on one device.
 * @param opts  options, or NULL for the defaults.
 * @param ctx   receives the new context; set to NULL on failure.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (ctx NULL, bad option or environment value);
 *         GALA_ERR_NO_DEVICE (nothing matches the selection); GALA_ERR_NOT_SUPPORTED (the
 *         backend is not part of this build); GALA_ERR_DEVICE; GALA_ERR_OUT_OF_MEMORY.
 *         On failure gala_last_error(NULL) on the same thread says why.
 */
GALA_API gala_status gala_context_create(const gala_context_options *opts, gala_context **ctx);

/**
 * @brief Wait for all work, then release the context and everything cached in it.
 * Buffers must be freed before; any that remain are freed here. NULL is accepted.
 * @return GALA_OK, or GALA_ERR_DEVICE if waiting for outstanding work failed (the
 *         context is released anyway).
 */
GALA_API gala_status gala_context_destroy(gala_context *ctx);

/**
 * @brief Describe the device of a context.
 * @return GALA_OK, or GALA_ERR_INVALID_ARG if an argument is NULL.
 */
GALA_API gala_status gala_context_info(const gala_context *ctx, gala_device_info *info);

/**
 * @brief Message describing the last failure on @p ctx ("" when none).
 * With ctx NULL: the last failure of gala_context_create() or of a call given a NULL
 * context, on the calling thread. The string stays valid until the next call on the
 * same context (or thread, for NULL).
 */
GALA_API const char *gala_last_error(const gala_context *ctx);

/**
 * @brief Block until all work submitted to the context has completed.
 * @return GALA_OK; GALA_ERR_DEVICE if the device reported a failure of earlier work.
 */
GALA_API gala_status gala_finish(gala_context *ctx);

/** @brief Name of a backend: "auto", "opencl", "cuda", "host". */
GALA_API const char *gala_backend_name(gala_backend backend);

/**
 * @brief Whether this build contains a backend (HOST always; OPENCL and CUDA if compiled in).
 * @return 1 or 0.
 */
GALA_API int gala_backend_available(gala_backend backend);


/** One device that gala can see, as listed by gala_device_list(). */
typedef struct gala_device_desc {
    gala_backend backend;    /**< OPENCL, CUDA or HOST */
    int platform_index;      /**< index of the OpenCL platform (0 for CUDA and HOST) */
    int device_index;        /**< index of the device within its platform */
    int is_gpu;              /**< 1 for a GPU */
    char platform_name[128]; /**< the OpenCL platform's name ("CUDA", "host" otherwise) */
    char device_name[128];   /**< the device's name, as gala-info prints it */
} gala_device_desc;

/**
 * @brief List every device of every backend in this build (the HOST backend last).
 * @param descs    array of @p capacity entries to fill, or NULL to only count.
 * @param capacity entries available in @p descs.
 * @param count    receives the number of devices found (may exceed capacity).
 * @return GALA_OK; GALA_ERR_INVALID_ARG. A backend whose driver is missing or broken
 *         contributes no devices and is not an error.
 */
GALA_API gala_status gala_device_list(gala_device_desc *descs, int capacity, int *count);

/** Counters of a context, for diagnostics (gala-info) and tests. */
typedef struct gala_stats {
    long programs_built;       /**< kernel programs compiled from source */
    long programs_from_cache;  /**< kernel programs loaded from the on-disk cache */
    long kernels_launched;     /**< kernel launches */
    long buffers_live;         /**< buffers currently allocated */
    size_t bytes_live;         /**< bytes held by those buffers */
    long kernel_fallbacks;     /**< kernel programs the device failed to build, for which a
                                    routine used another form (gala_context_fallbacks) */
} gala_stats;

/** @brief Read the counters of a context. @return GALA_OK; GALA_ERR_INVALID_ARG. */
GALA_API gala_status gala_context_stats(const gala_context *ctx, gala_stats *stats);

/**
 * @brief The kernel fallbacks a context took: programs the device's compiler rejected (or
 * crashed on), each with the form of the routine used instead, as lines
 * "family|type|NAME=value|... -> kernel" separated by newlines (at most 8 kept). A failed
 * build is remembered in the kernel cache, so later contexts on the same device and driver
 * go to the fallback without building it again (docs/portability.md).
 * @param text  receives the lines ("" when none), truncated to @p cap bytes.
 * @param count receives the number of fallbacks (may be NULL).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (ctx or text NULL, cap 0).
 */
GALA_API gala_status gala_context_fallbacks(const gala_context *ctx, char *text, size_t cap,
                                            int *count);

/* ------------------------------------------------------------------------------------ */
/* Tuning                                                                                */
/* ------------------------------------------------------------------------------------ */

/**
 * @brief Set a tuning value (work-group sizes, tile shapes, crossovers between algorithms)
 * on one context.
 *
 * Every key is listed, with its default, range and meaning, in docs/tuning.md
 * ("potrf.nb", "qp.rb", ...). A key's value for a context and a precision is, first to
 * last: the environment variable GALA_TUNE="key=value,key=value" (for experiments; every
 * context of the process, values not range-checked), the value set here, the device's row
 * in gala's tuning table, the key's default. A value applies from the next call that reads
 * it (a QP solver reads most of its values at setup).
 *
 * @param ctx   the context.
 * @param key   the key's name.
 * @param dtype GALA_FLOAT or GALA_DOUBLE for that precision only, 0 for both (the only
 *              choice for the keys with one value per context, e.g. "staging.max_mb").
 * @param value within the key's range.
 * @return GALA_OK; GALA_ERR_INVALID_ARG for a NULL context, an unknown key, a dtype the key
 *         does not take, or a value outside its range (the message names which).
 */
GALA_API gala_status gala_tune_set(gala_context *ctx, const char *key, gala_dtype dtype,
                                   long value);

/**
 * @brief The tuning value of @p key that applies on this context for @p dtype (0: the value
 * read for no particular precision), after GALA_TUNE, gala_tune_set(), the device's rows
 * and the default.
 * @return GALA_OK; GALA_ERR_INVALID_ARG as gala_tune_set(), or a NULL @p value.
 */
GALA_API gala_status gala_tune_get(const gala_context *ctx, const char *key, gala_dtype dtype,
                                   long *value);

/* ------------------------------------------------------------------------------------ */
/* Buffers                                                                               */
/* ------------------------------------------------------------------------------------ */

/**
 * @brief Allocate a device buffer of @p count elements of type @p dtype.
 * The contents are undefined until written.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, bad dtype, count 0, count·size overflows);
 *         GALA_ERR_DEVICE_MEMORY (the device cannot hold it).
 */
GALA_API gala_status gala_buffer_create(gala_context *ctx, gala_dtype dtype, size_t count,
                                        gala_buffer **buf);

/** @brief Release a buffer (waits for nothing; pending work that uses it stays valid on
 *  OpenCL and CUDA). NULL is accepted. @return GALA_OK. */
GALA_API gala_status gala_buffer_free(gala_buffer *buf);

/** @brief Number of elements of a buffer (0 for NULL). */
GALA_API size_t gala_buffer_count(const gala_buffer *buf);

/** @brief Element type of a buffer (0 for NULL). */
GALA_API gala_dtype gala_buffer_dtype(const gala_buffer *buf);

/** @brief The context a buffer belongs to (NULL for NULL). */
GALA_API gala_context *gala_buffer_context(const gala_buffer *buf);

/**
 * @brief Copy @p count elements from host memory into the buffer at element @p offset.
 * Blocking: returns when @p src may be reused.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, range outside the buffer); GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_buffer_write(gala_buffer *dst, size_t offset, size_t count,
                                       const void *src);

/**
 * @brief Copy @p count elements from the buffer at element @p offset into host memory.
 * Blocking: waits for earlier work on the context, returns when @p dst holds the data.
 * @return GALA_OK; GALA_ERR_INVALID_ARG; GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_buffer_read(const gala_buffer *src, size_t offset, size_t count,
                                      void *dst);

/**
 * @brief Asynchronous gala_buffer_write(): @p src must stay valid and unchanged until
 * gala_finish() returns.
 */
GALA_API gala_status gala_buffer_write_async(gala_buffer *dst, size_t offset, size_t count,
                                             const void *src);

/**
 * @brief Asynchronous gala_buffer_read(): @p dst holds the data only after gala_finish().
 */
GALA_API gala_status gala_buffer_read_async(const gala_buffer *src, size_t offset, size_t count,
                                            void *dst);

/**
 * @brief Copy @p count elements between two buffers of the same type and context
 * (asynchronous). The ranges may not overlap when src == dst.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (types or contexts differ, range, overlap).
 */
GALA_API gala_status gala_buffer_copy(const gala_buffer *src, size_t src_offset, gala_buffer *dst,
                                      size_t dst_offset, size_t count);

/**
 * @brief Set @p count elements starting at @p offset to @p value (converted to the
 * buffer's type; asynchronous).
 * @return GALA_OK; GALA_ERR_INVALID_ARG.
 */
GALA_API gala_status gala_buffer_fill(gala_buffer *buf, size_t offset, size_t count, double value);

/**
 * @brief Use caller-owned device memory as a gala buffer, without copying (interop).
 *
 * @p native is, per backend:
 *   - CUDA: a CUdeviceptr (cudaMalloc / cuMemAlloc / managed memory) cast to void*, on the
 *     context's device; it must be aligned to the element size. The driver is asked where
 *     the pointer lives: memory of another device, host memory, or a range that runs past
 *     the end of its allocation is rejected. Order your own work with gala's through
 *     options.native_stream (or gala_finish()).
 *   - OpenCL: a cl_mem of the context's cl_context holding at least count elements (not
 *     checked: OpenCL cannot tell).
 *   - HOST: a host pointer to count elements, aligned to the element size.
 * The buffer behaves like one from gala_buffer_create(); gala_buffer_free() (or destroying
 * the context) releases only gala's record: the memory stays the caller's, who must keep
 * it alive until then and until work queued on it has finished.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, bad dtype, count 0, size overflow,
 *         misaligned or foreign memory); GALA_ERR_NOT_SUPPORTED (double without fp64);
 *         GALA_ERR_OUT_OF_MEMORY.
 */
GALA_API gala_status gala_buffer_wrap(gala_context *ctx, gala_dtype dtype, size_t count,
                                      void *native, gala_buffer **buf);

/* ------------------------------------------------------------------------------------ */
/* Device timers (for benchmarks): elapsed device time between two points of the queue.  */
/* ------------------------------------------------------------------------------------ */

/** A point recorded in a context's queue: gala_timer_record(), gala_timer_elapsed_ms(), gala_timer_free(). */
typedef struct gala_timer gala_timer;

/**
 * @brief Record a point in the context's queue.
 * Needs a context created with options.profiling = 1 on OpenCL; on HOST and CUDA it
 * always works. @return GALA_OK; GALA_ERR_NOT_SUPPORTED; GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_timer_record(gala_context *ctx, gala_timer **timer);

/**
 * @brief Milliseconds of device time between two recorded points (waits for both).
 * @return GALA_OK; GALA_ERR_INVALID_ARG; GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_timer_elapsed_ms(gala_timer *start, gala_timer *stop, double *ms);

/** @brief Release a timer point. NULL is accepted. @return GALA_OK. */
GALA_API gala_status gala_timer_free(gala_timer *timer);

#ifdef __cplusplus
}
#endif

#endif /* GALA_DEVICE_H */
