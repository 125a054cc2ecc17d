/*
 * Core internals shared by every layer: the context and buffer structures, errors,
 * argument checks, and small utilities. Nothing here knows about OpenCL or CUDA.
 */
#ifndef GALA_CORE_INTERNAL_H
#define GALA_CORE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "gala/gala.h"
#include "../device/device.h"
#include "tuning.h"

#define GALA_INTERNAL __attribute__((visibility("hidden")))

/* GALA_CLONES_V3: a hot host loop also built for x86-64-v3 (AVX2, FMA) and picked when the
 * library is loaded (function multiversioning; GCC and Clang on x86-64 Linux), since the
 * default build targets baseline x86-64. Off under ThreadSanitizer, whose runtime starts
 * after the ifunc resolvers run (a crash). GALA_CLONE_INLINE: a helper inlined into each. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GALA_NO_CLONES 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define GALA_NO_CLONES 1
#endif
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(GALA_NO_CLONES)
#define GALA_CLONES_V3 __attribute__((target_clones("arch=x86-64-v3", "default")))
#define GALA_CLONE_INLINE __attribute__((always_inline)) inline
#else
#define GALA_CLONES_V3
#define GALA_CLONE_INLINE inline
#endif

struct gala_program_entry;

struct gala_buffer {
    struct gala_context *ctx;
    gala_dtype dtype;
    size_t count;
    size_t bytes;
    void *handle; /* backend memory handle (host pointer, cl_mem, CUdeviceptr) */
    int owned;    /* 0 for wrapped caller memory */
    struct gala_buffer *prev, *next;
    /* parking (gala_buffers_park): the object a buffer was made for (ctx->buf_owner when it
     * was created; NULL: none), and while parked (handle NULL, no device memory) the host
     * copy of its contents (NULL: the contents were dropped) */
    const void *owner;
    void *host_copy;
    void *host_pin; /* pinned = 1: the host copy is page-locked, host_pin its backend handle */
    int pinned;
    int parked;
    /* the host copy holds what the device memory holds: made by the last park or unpark,
     * and no operation has written the buffer on the device since (so the next park need
     * not read it back) */
    int host_current;
};

/** An operation is about to write b's device memory: its host copy (if any) is no longer
 *  current (the next park reads it back). Every writing path of the core calls it: writes,
 *  copies, fills, kernel launches (for every buffer argument but those an argument list
 *  declares const), BLAS-3 outputs. */
static inline void gala_buffer_touch(const struct gala_buffer *b)
{
    if (b) ((struct gala_buffer *)b)->host_current = 0;
}

enum { GALA_MAX_FALLBACKS = 8 };

struct gala_context {
    const gala_device_ops *ops;
    void *impl;
    gala_device_info info;
    int profiling;

    /* last error: a message owned by the context */
    char *err;
    size_t err_cap;

    /* kernel programs compiled in this context */
    struct gala_program_entry *programs;
    /* threads building prefetched programs (gala_kernel_prefetch), started at first use */
    struct gala_builder *builder;
    /* > 0: a dry pass (gala_dry_begin): the kernels asked for are queued on the build
     * threads, and launches, copies, fills and BLAS calls do nothing; reads give zeros */
    int dry;
    struct gala_kernel *dry_kernel;

    /* live buffers */
    struct gala_buffer *buffers;
    /* the owner that buffers made now are tagged with (gala_buffer_owner; NULL: none) */
    const void *buf_owner;

    /* scratch buffers reused by algorithms (see gala_scratch). Slots 1-3 are shared by the
     * dense routines (each call rewrites what it needs); 4-6 hold the descriptors of
     * variable batches that vb_memo keeps across calls (src/la/la_common.c) */
    struct gala_buffer *scratch[8];

    /* the dense routines' record of variable-batch layouts already uploaded, released by
     * vb_memo_free at gala_context_destroy (owned by src/la) */
    void *vb_memo;
    void (*vb_memo_free)(void *);

    /* host worker threads of parallel loops (see gala_par), started at first use */
    struct gala_pool *pool;

    /* the failure word of batched factorizations in mapped host memory (gala_flag_word);
     * flag_host NULL: not made yet or not available (flag_tried) */
    struct gala_buffer *flag_buf;
    volatile int *flag_host;
    int flag_tried;

    /* page-locked host staging kept for reuse (see gala_staging_take) */
    void *stg_ptr, *stg_handle;
    size_t stg_bytes;
    int stg_lent;

    gala_stats stats;

    /* program builds that failed (the key text of the last one), and the fallbacks the
     * routines took instead (see gala_kernel_fallback): "failed program -> form used" */
    char build_failed[512];
    int build_rejected; /* set by a backend when its compiler rejected the last build (a log,
                           not a lack of memory or a lost device): only that is remembered */
    char fallbacks[GALA_MAX_FALLBACKS][640];
    int nfallbacks;

    /* gala_loop_limit's answer: -1 not measured yet, 0 no limit found, else the most loop
     * iterations a work-item ran */
    long loop_limit;

    /* the tuning values, resolved once per precision (see tuning.c) */
    gala_tune_cache tune;

    /* a twin (gala_context_twin): the context whose device and memory it shares; NULL */
    struct gala_context *twin_of;
};

/* ---------------------------------------------------------------- errors */

/** Record a formatted message on ctx (or the thread's slot when ctx is NULL) and return
 *  status, so callers write `return gala_error(ctx, GALA_ERR_..., "fmt", ...)`. */
GALA_INTERNAL gala_status gala_error(const struct gala_context *ctx, gala_status status,
                                     const char *fmt, ...) __attribute__((format(printf, 3, 4)));
GALA_INTERNAL gala_status gala_verror(const struct gala_context *ctx, gala_status status,
                                      const char *fmt, va_list ap);
/** Append text to the last error (e.g. a compiler log). */
GALA_INTERNAL void gala_error_append(const struct gala_context *ctx, const char *text);
GALA_INTERNAL void gala_error_clear(const struct gala_context *ctx);

#define GALA_TRY(expr)                                                                     \
    do {                                                                                   \
        gala_status gala_try_s_ = (expr);                                                  \
        if (gala_try_s_ != GALA_OK) return gala_try_s_;                                    \
    } while (0)

/* ---------------------------------------------------------------- checks */

/** Check that ctx is not NULL (message on the thread slot otherwise). */
GALA_INTERNAL gala_status gala_check_ctx(const struct gala_context *ctx, const char *fn);

/** Check a buffer argument: not NULL, of ctx, of type dtype (0 = any floating type), and
 *  that elements [off, off + extent) lie inside it (extent 0 always fits). */
GALA_INTERNAL gala_status gala_check_buf(const struct gala_context *ctx, const char *fn,
                                         const char *name, const struct gala_buffer *b,
                                         gala_dtype dtype, size_t off, size_t extent);

/** Elements spanned by a strided batch of `batch` items of `item` elements each:
 *  (batch-1)·stride + item, or 0 when batch or item is 0. Returns GALA_ERR_INVALID_ARG
 *  through *st on overflow. */
GALA_INTERNAL size_t gala_span(size_t item, size_t stride, size_t batch, int *overflow);
/** The device's largest work-group, or 256 when it reports none. */
static inline long gala_max_wg(const struct gala_context *ctx)
{
    return ctx->info.max_work_group_size ? (long)ctx->info.max_work_group_size : 256;
}

/** How many loop iterations one work-item of this device may run, counted over all the
 *  loops of a launch, before the implementation cuts them short without an error (Mesa's
 *  llvmpipe under Rusticl: 65535; issue 39): measured once per context by a probe kernel
 *  (cl/vec.cl, loop_probe) on OpenCL devices; 0 where there is no such limit (the host
 *  backend, CUDA, an OpenCL device whose probe ran to the end) or the probe could not run.
 *  Routines whose work-items loop long (the sparse LDLᵀ) split their launches below it. */
GALA_INTERNAL long gala_loop_limit(struct gala_context *ctx);

/** Extent of a column-major m×n matrix with leading dimension ld: (n-1)·ld + m. */
GALA_INTERNAL size_t gala_mat_extent(size_t m, size_t n, size_t ld, int *overflow);
/** qsort, skipped when the array is in order already (the overlap checks of variable
 *  batches sort their spans; callers usually lay matrices out in order, and then the check
 *  costs one pass). */
GALA_INTERNAL void gala_sort(void *base, size_t n, size_t size,
                             int (*cmp)(const void *, const void *));

/** Multiply with overflow detection. */
GALA_INTERNAL int gala_mul_overflow(size_t a, size_t b, size_t *out);

/** Whether two element ranges of the same buffer overlap. */
GALA_INTERNAL int gala_ranges_overlap(const struct gala_buffer *a, size_t a_lo, size_t a_n,
                                      const struct gala_buffer *b, size_t b_lo, size_t b_n);

/** The floating type all floating buffers must share; checks double support. */
GALA_INTERNAL gala_status gala_check_float_type(const struct gala_context *ctx, const char *fn,
                                                gala_dtype dtype);

/* ---------------------------------------------------------------- memory */

GALA_INTERNAL void *gala_malloc(size_t bytes);
GALA_INTERNAL void *gala_calloc(size_t n, size_t size);
GALA_INTERNAL void *gala_realloc(void *p, size_t bytes);
GALA_INTERNAL void gala_free(void *p);

/** Scratch memory one thread reuses over the items of a parallel loop (gala_par): a
 *  malloc and free of some hundred KB per item makes glibc hand pages back to the system and
 *  fault them in again, in every thread at once (the adjoint derivative's host loop, 1000
 *  control QPs on an H200 host's 16 cores: 17–22 ms that way, 13 ms without the churn).
 *  Grown as needed, never shrunk; zero-initialize the struct, free with
 *  gala_host_scratch_release. */
typedef struct gala_host_scratch {
    void *p;
    size_t cap;
} gala_host_scratch;
/** At least `bytes` bytes (contents undefined, earlier pointers from s invalid), or NULL. */
GALA_INTERNAL void *gala_host_scratch_get(gala_host_scratch *s, size_t bytes);
/** Free the blocks s[0 .. count) (a loop's threads' sets, one array) and zero them. */
GALA_INTERNAL void gala_host_scratch_release(gala_host_scratch *s, size_t count);

/* Lanes (src/device/device.h, gala_device_ops.lane_*): an algorithm may put work on a
 * second queue of the context so that it overlaps the first. It must end on lane 0 with
 * lane 0 waiting for lane 1 (gala_lane_join) before it returns, on errors too. No-ops on a
 * backend with one lane. */
GALA_INTERNAL gala_status gala_lane_select(struct gala_context *ctx, int lane);
GALA_INTERNAL gala_status gala_lane_wait(struct gala_context *ctx, int lane, int on);
GALA_INTERNAL gala_status gala_lane_reserve(struct gala_context *ctx, int units);
/** Back to lane 0, which waits for lane 1; BLAS-3 reservations dropped. Returns s when s is
 *  an error (the first error wins), else the status of the join. */
GALA_INTERNAL gala_status gala_lane_join(struct gala_context *ctx, gala_status s);

/* Twins (the QP solver's pipelined chunks, src/qp/chunk.c): a second context on a
 * context's device that shares its memory (its buffers may be passed to the other's
 * operations) but queues its work on a queue or stream of its own, so that two threads, one
 * per context, overlap their transfers and kernels. The caller orders work across the two
 * (gala_finish). A twin has its parent's gala_tune_set values (so that a routine makes the
 * same choices on both) and is destroyed (gala_context_destroy) before its parent.
 * GALA_ERR_NOT_SUPPORTED where the backend or the parent cannot have one (a CUDA context on
 * a caller's stream, whose work must stay on that stream). */
GALA_INTERNAL gala_status gala_context_twin(struct gala_context *parent, struct gala_context **twin);
/** The twin takes its parent's gala_tune_set values again where they changed. */
GALA_INTERNAL void gala_context_twin_sync(struct gala_context *twin);
/** Whether a buffer of context a may be used by operations of context b: the same context,
 *  or twins of one. */
GALA_INTERNAL int gala_same_memory(const struct gala_context *a, const struct gala_context *b);

/* Parking (the QP solver's chunks, src/qp/chunk.c): the buffers made for one object are
 * tagged with it; parking copies their contents to host memory and releases their device
 * memory, unparking gives both back. The gala_buffer objects stay valid meanwhile, so the
 * object's pointers do not change. A parked buffer is read, written, filled and copied in
 * its host copy (a host operation, checked for injected transfer faults as a device one);
 * a kernel launch that names one fails with GALA_ERR_INTERNAL. */
/** Tag the buffers made from now on with owner (NULL: no tag); returns the previous tag. */
GALA_INTERNAL const void *gala_buffer_owner(struct gala_context *ctx, const void *owner);
/** Park every buffer of owner (wrapped ones excepted): its contents go to host memory (the
 *  ndrop buffers of drop[] lose theirs), its device memory is released; all or nothing (on
 *  failure every buffer stays where it was). pinned: a host copy made now is page-locked
 *  where the backend has such memory (transfers at the bus's speed; plain memory where the
 *  backend has none or refuses).
 *  *host_bytes (may be NULL) receives the host bytes the owner's parked buffers hold. */
GALA_INTERNAL gala_status gala_buffers_park(struct gala_context *ctx, const void *owner,
                                            struct gala_buffer *const *drop, int ndrop,
                                            int pinned, size_t *host_bytes);
/** Give every parked buffer of owner device memory and its contents back (a dropped one:
 *  memory only, contents undefined), all or nothing. A buffer keeps its host copy for the
 *  next park (released with the buffer). */
GALA_INTERNAL gala_status gala_buffers_unpark(struct gala_context *ctx, const void *owner);
/** Whether any buffer of owner is parked. */
GALA_INTERNAL int gala_buffers_parked(const struct gala_context *ctx, const void *owner);

/** Get scratch buffer `slot` of at least `count` elements of dtype, growing it when
 *  needed. The buffer stays owned by the context; contents are undefined. */
GALA_INTERNAL gala_status gala_scratch(struct gala_context *ctx, int slot, gala_dtype dtype,
                                       size_t count, struct gala_buffer **out);

/** Borrow the context's page-locked host block of at least `bytes` (grown when needed, kept
 *  until the context is destroyed; one borrower at a time). Returns NULL, and the caller
 *  uses ordinary memory, when the backend has no page-locked memory, the block is lent,
 *  `bytes` is above the `staging.max_mb` tuning value (default 1024), or the allocation
 *  fails (no error is left on the context). Transfers from and to it may run while the
 *  host goes on; the borrower waits for them before reusing the memory. */
GALA_INTERNAL void *gala_staging_take(struct gala_context *ctx, size_t bytes);
/** The context's failure word where the backend has mapped host memory (CUDA): *buf is an
 *  int buffer of one element that kernels may write, *host where the host reads it after
 *  gala_finish (a finish is cheaper than a 4-byte copy back: about 10 against 15 µs on an
 *  H200). *buf = NULL and *host = NULL where there is none (read a device word instead).
 *  Made at first use; released with the context. Never fails. */
GALA_INTERNAL void gala_flag_word(struct gala_context *ctx, struct gala_buffer **buf,
                                  volatile int **host);
/** Give back a block from gala_staging_take (NULL: nothing). */
GALA_INTERNAL void gala_staging_give(struct gala_context *ctx, void *p);

/** A range of items [begin, end) of a parallel loop, run by worker `tid` (0 = the caller). */
typedef void (*gala_par_fn)(void *arg, long begin, long end, int tid);
/** Run fn over [0, count) in chunks of `chunk` items handed out in order to up to nthreads
 *  threads: the caller and the context's worker threads (src/core/pool.c: started at first
 *  use, kept until the context is destroyed). The loop always completes: without workers
 *  (none could be started, ctx NULL, nthreads <= 1) the caller runs all of it. */
GALA_INTERNAL void gala_par(struct gala_context *ctx, int nthreads, long count, long chunk,
                            gala_par_fn fn, void *arg);
/** Cores this process may run on (its CPU affinity, else the online CPUs), 1 to 64: the
 *  most threads gala_par can use. */
GALA_INTERNAL int gala_cpu_count(void);
/** The host's physical memory in bytes (0 when the system does not say). */
GALA_INTERNAL size_t gala_host_memory_bytes(void);
/** Stop and join a context's workers (gala_context_destroy). */
GALA_INTERNAL void gala_pool_free(struct gala_pool *p);

/* ---------------------------------------------------------------- fault injection */

typedef enum gala_fault_kind {
    GALA_FAULT_ALLOC = 0,
    GALA_FAULT_BUILD = 1,
    GALA_FAULT_LAUNCH = 2,
    GALA_FAULT_TRANSFER = 3,
    GALA_FAULT_KINDS = 4
} gala_fault_kind;

/** Returns 1 when the next operation of this kind must fail (test hook: environment
 *  GALA_FAULT="alloc:N,build:N,launch:N,transfer:N,alloc_over:BYTES" or gala_fault_arm();
 *  docs/reliability.md). The counters are process-wide. */
GALA_INTERNAL int gala_fault_hit(gala_fault_kind kind);
/** Suspend (+1) or resume (-1) fault injection on the calling thread (a dry pass counts no
 *  operations). */
GALA_INTERNAL void gala_fault_pause(int delta);
/** Make the n-th next operation of a kind fail (n >= 1), or disarm with n = 0. */
GALA_INTERNAL void gala_fault_arm(gala_fault_kind kind, long n);
/** Operations of a kind still to pass before the armed one fails (0: disarmed, or the
 *  fault has fired). Tests use it to learn whether a call reached the armed operation. */
GALA_INTERNAL long gala_fault_pending(gala_fault_kind kind);
/** A simulated small device (test hook: GALA_FAULT="alloc_over:BYTES" or
 *  gala_fault_alloc_limit()): every device allocation (buffers and workspaces) of more than
 *  BYTES bytes fails with GALA_ERR_DEVICE_MEMORY as a full device would; 0 turns it off. */
GALA_INTERNAL int gala_fault_alloc_refused(size_t bytes);
GALA_INTERNAL void gala_fault_alloc_limit(size_t bytes);
/** Kernels that take many registers (test hook: GALA_FAULT="kernel_wg:N" or
 *  gala_fault_kernel_wg_limit()): every kernel reports a limit of N work-items per
 *  work-group (gala_kernel_max_wg), and a launch of more fails as on such a device; 0 turns
 *  it off. */
GALA_INTERNAL size_t gala_fault_kernel_wg(void);
GALA_INTERNAL void gala_fault_kernel_wg_limit(size_t wg);

/* ---------------------------------------------------------------- utilities */

GALA_INTERNAL uint64_t gala_fnv1a(const void *data, size_t n, uint64_t h);
#define GALA_FNV_INIT 1469598103934665603ULL
GALA_INTERNAL int gala_strcasestr_match(const char *haystack, const char *needle);
/** Whether haystack contains (case-insensitively) one of the '|'-separated alternatives of
 *  pattern, e.g. "H100|H200" (the device names of tuning rows). */
GALA_INTERNAL int gala_name_match_any(const char *haystack, const char *pattern);
GALA_INTERNAL void gala_strlcpy(char *dst, const char *src, size_t cap);
/** Monotonic wall clock in seconds. */
GALA_INTERNAL double gala_now(void);

/* ---------------------------------------------------------------- tuning */

/** The tuning values for this context's device and a precision (GALA_FLOAT, GALA_DOUBLE;
 *  0 or GALA_INT for the keys read for no precision): every key's default
 *  (tuning_keys.h), overridden by the device rows of tuning_table.h, gala_tune_set() and
 *  GALA_TUNE. Resolved at the first read and kept until GALA_TUNE changes or
 *  gala_tune_set() is called; never NULL. */
GALA_INTERNAL const gala_tuning *gala_tuned(const struct gala_context *ctx, gala_dtype dtype);
/** Resolve again at the next read (tests that change the context's device fields). */
GALA_INTERNAL void gala_tune_invalidate(struct gala_context *ctx);
/** Release what the context keeps (context destruction). */
GALA_INTERNAL void gala_tune_free(struct gala_context *ctx);
/** Row i of the tuning table (tuning_table.h), for the offline compile test, which poses as
 *  every row's device: its key's family prefix and name, backend (0: any), vendor and
 *  device (NULL: any); returns 0 past the last one. */
GALA_INTERNAL int gala_tune_row(int i, const char **family, const char **key,
                                gala_backend *backend, const char **vendor,
                                const char **device);

#endif /* GALA_CORE_INTERNAL_H */
