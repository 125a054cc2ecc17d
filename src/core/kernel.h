/*
 * The kernel API used by algorithm code: get a compiled kernel by family and name, launch
 * it with typed arguments. Programs are compiled at first use per context and option set,
 * and cached on disk (see kcache.c).
 */
#ifndef GALA_CORE_KERNEL_H
#define GALA_CORE_KERNEL_H

#include "internal.h"

typedef struct gala_kernel gala_kernel;

/** Start a key for family and dtype with no -D parameters. */
GALA_INTERNAL void gala_key_init(gala_program_key *key, const char *family, gala_dtype dtype);
/** Add -D<name>=<value> to a key (the names must be at most 31 characters). */
GALA_INTERNAL void gala_key_def(gala_program_key *key, const char *name, long long value);

/** Find or build the program for key and return its kernel `name`. The pointer stays
 *  valid for the context's lifetime. Errors: GALA_ERR_KERNEL_BUILD (log in the last error),
 *  GALA_ERR_NOT_SUPPORTED (double without fp64), GALA_ERR_DEVICE. */
GALA_INTERNAL gala_status gala_kernel_get(struct gala_context *ctx, const gala_program_key *key,
                                          const char *name, gala_kernel **kernel);

/** The most work-items per work-group kernel k can run: the device's maximum, or less where
 *  the backend says the kernel's registers or local memory allow fewer (CUDA's
 *  MAX_THREADS_PER_BLOCK, OpenCL's CL_KERNEL_WORK_GROUP_SIZE). A launch of more fails with
 *  GALA_ERR_DEVICE; a routine whose programs take their work-group as a parameter (the QP
 *  solver's ADMM classes) asks this first and builds a smaller one instead. */
GALA_INTERNAL size_t gala_kernel_max_wg(const struct gala_context *ctx, const gala_kernel *k);

/** After gala_kernel_get failed with GALA_ERR_KERNEL_BUILD, a routine that goes on with
 *  another form of the same computation (a vendor compiler rejected or crashed on the
 *  first; issue 39) says so: the failed program and `used` are kept in the context's list
 *  that gala_context_fallbacks returns, and gala-info prints. The failure itself is already
 *  remembered in the kernel cache, so later contexts on the device do not build it again. */
GALA_INTERNAL void gala_kernel_fallback(struct gala_context *ctx, const char *used);

/** Whether status s of gala_kernel_get is the device's compiler rejecting the program (a
 *  log, or remembered from before): the case a routine falls back for. Not an injected
 *  fault, a lack of memory or a lost device: those are returned to the caller. */
GALA_INTERNAL int gala_build_rejected(const struct gala_context *ctx, gala_status s);

/** Start building the programs of keys[0..n) not in the context yet, on build threads
 *  ($GALA_BUILD_THREADS, else one per core, the caller's thread counting as one), and
 *  return at once: a later gala_kernel_get of one of them waits for its build, or builds it
 *  itself if no thread has started it. Compiling is most of a first call (docs/design.md,
 *  "The first call"), so a routine prefetches the programs it knows it will need, together.
 *  Never fails visibly: keys that cannot be built now (bad key, double without fp64, no
 *  memory, a failed build) are built again by gala_kernel_get, which reports the error; a
 *  build the compiler rejected is not built again but reported by gala_kernel_get as a
 *  direct build's rejection (gala_build_rejected), so routines fall back the same way.
 *  No-op on the host backend and with one build thread. */
GALA_INTERNAL gala_status gala_kernel_prefetch(struct gala_context *ctx,
                                               const gala_program_key *keys, int n);

/** A dry pass: between gala_dry_begin and gala_dry_end a routine runs for the kernels it
 *  asks for, not for its results. Every program it asks for is queued on the build threads
 *  (gala_kernel_prefetch) and gala_kernel_get returns a stand-in; launches, buffer copies and
 *  fills and BLAS-3 calls do nothing; buffer reads give zeros (every matrix factored, no
 *  event); writes (descriptor uploads) and allocations are real, and no fault is injected.
 *  So a routine whose dispatch picks among many programs (potrf) queues exactly the ones its
 *  real call will ask for, declared once, in its own code. gala_dry_begin returns 0 (and
 *  starts nothing) where prefetching does nothing: the host backend, one build thread. The
 *  caller runs the routine with the same arguments, ignores its status, calls
 *  gala_dry_end, then makes the real call. */
GALA_INTERNAL int gala_dry_begin(struct gala_context *ctx);
GALA_INTERNAL void gala_dry_end(struct gala_context *ctx);

/** Launch a kernel. Global sizes must be multiples of local sizes. */
GALA_INTERNAL gala_status gala_kernel_launch(struct gala_context *ctx, gala_kernel *kernel,
                                             const gala_dims *dims, int nargs,
                                             const gala_arg *args);

/** The program key a kernel was built with (host kernels read dtype and -D values). */
GALA_INTERNAL const gala_program_key *gala_kernel_key(const gala_kernel *kernel);

/** The -D value `name` of a key, or fallback when absent. */
GALA_INTERNAL long long gala_key_value(const gala_program_key *key, const char *name,
                                       long long fallback);

/** The full kernel source of a family: common header + cl/<family>.cl with the cl/ files it
 *  #includes expanded in place (its ABI header, cl/potrf/'s forms; embedded, or read from
 *  $GALA_CL_DIR). Caller frees with gala_free. */
GALA_INTERNAL gala_status gala_kernel_source(const struct gala_context *ctx, const char *family,
                                             char **source);

/** Names of the embedded kernel families (for tests and tools that compile them all). */
GALA_INTERNAL int gala_kernel_family_count(void);
GALA_INTERNAL const char *gala_kernel_family_name(int i);

/** The programs this context has asked for, in no particular order: for i = 0, 1, ... the
 *  i-th one's family and build options (as the OpenCL backend gets them: -DREAL=... and the
 *  key's -D values sorted by name). Returns 0 past the last one. For the offline compile
 *  test (tests/offline_programs.c), which collects every program gala can ask for. */
GALA_INTERNAL int gala_program_nth(const struct gala_context *ctx, int i, char *family,
                                   size_t family_cap, char *options, size_t options_cap);

/* Argument constructors. */
static inline gala_arg ga_buf(const struct gala_buffer *b) {
    gala_arg a; a.kind = GALA_ARG_BUF; a.ro = 0; a.v.buf = b; return a;
}
/** A buffer the kernel only reads (ro nonzero), as a typed launch knows from its list. */
static inline gala_arg ga_buf_ro(const struct gala_buffer *b, int ro) {
    gala_arg a = ga_buf(b); a.ro = ro; return a;
}
static inline gala_arg ga_int(int i) {
    gala_arg a; a.kind = GALA_ARG_INT; a.ro = 0; a.v.i = i; return a;
}
static inline gala_arg ga_long(long long l) {
    gala_arg a; a.kind = GALA_ARG_LONG; a.ro = 0; a.v.l = l; return a;
}
static inline gala_arg ga_real(double r) {
    gala_arg a; a.kind = GALA_ARG_REAL; a.ro = 0; a.v.r = r; return a;
}

/** Launch with an argument list: GALA_LAUNCH(ctx, k, &dims, ga_buf(x), ga_long(off), ...). */
#define GALA_LAUNCH(ctx, k, dims, ...)                                                     \
    gala_kernel_launch((ctx), (k), (dims),                                                 \
                       (int)(sizeof((gala_arg[]){__VA_ARGS__}) / sizeof(gala_arg)),        \
                       (gala_arg[]){__VA_ARGS__})

/** A typed launch generated from a family's argument list (cl/<family>_abi.h, the list the
 *  .cl kernel's parameters and the host kernel's signature are made from):
 *      GALA_LAUNCHER(qp_launch_expand, QP_ARGS_expand)
 *  defines static inline gala_status qp_launch_expand(ctx, kernel, dims, meta, list, ...),
 *  one C parameter per kernel argument (buffer, int, long long, double), so that the compiler
 *  checks a launch's count and kinds of arguments against the kernel's. */
#define GALA_LPARAM_B(n) , const struct gala_buffer *n
#define GALA_LPARAM_I(n) , int n
#define GALA_LPARAM_L(n) , long long n
#define GALA_LPARAM_R(n) , double n
#define GALA_LPARAM(k, t, n) GALA_LPARAM_##k(n)
/* a list's type text that begins with "const ": a buffer the kernel only reads */
#define GALA_CONST_TEXT(s)                                                                 \
    (sizeof(s) > 6 && (s)[0] == 'c' && (s)[1] == 'o' && (s)[2] == 'n' && (s)[3] == 's' &&  \
     (s)[4] == 't' && (s)[5] == ' ')
#define GALA_LARG_B(t, n) ga_buf_ro(n, GALA_CONST_TEXT(#t))
#define GALA_LARG_I(t, n) ga_int(n)
#define GALA_LARG_L(t, n) ga_long(n)
#define GALA_LARG_R(t, n) ga_real(n)
#define GALA_LARG(k, t, n) GALA_LARG_##k(t, n),
#define GALA_LAUNCHER(fn, LIST)                                                            \
    static inline gala_status fn(struct gala_context *ctx_, gala_kernel *k_,               \
                                 const gala_dims *dims_ LIST(GALA_LPARAM, GALA_LPARAM))    \
    {                                                                                      \
        const gala_arg a_[] = {LIST(GALA_LARG, GALA_LARG)};                                \
        return gala_kernel_launch(ctx_, k_, dims_, (int)(sizeof a_ / sizeof a_[0]), a_);   \
    }

/** 1-D geometry: global = ceil(n / local)·local. */
static inline gala_dims gala_dims_1d(size_t n, size_t local) {
    gala_dims d; d.ndim = 1;
    d.local[0] = local; d.global[0] = (n + local - 1) / local * local;
    d.global[1] = d.global[2] = d.local[1] = d.local[2] = 1;
    return d;
}
/** 2-D geometry with global[i] rounded up to a multiple of local[i]. */
static inline gala_dims gala_dims_2d(size_t n0, size_t n1, size_t l0, size_t l1) {
    gala_dims d; d.ndim = 2;
    d.local[0] = l0; d.local[1] = l1; d.local[2] = 1;
    d.global[0] = (n0 + l0 - 1) / l0 * l0; d.global[1] = (n1 + l1 - 1) / l1 * l1;
    d.global[2] = 1;
    return d;
}

#endif /* GALA_CORE_KERNEL_H */
