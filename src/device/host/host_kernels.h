/*
 * The host backend's kernels: plain C implementations of the contract of each kernel in
 * cl/, with the same name and the same argument list. A launch calls the function for the
 * program's element type once; it may ignore the launch geometry and compute the whole
 * result with loops, unless a kernel's contract depends on the geometry.
 *
 * Each family file (k_<family>.c) compiles its kernels for float and double from one
 * template and exports a table; host.c lists the tables.
 */
#ifndef GALA_HOST_KERNELS_H
#define GALA_HOST_KERNELS_H

#include "../../core/kernel.h"

typedef struct gala_host_launch {
    struct gala_context *ctx;
    const gala_program_key *key;
    const gala_dims *dims;
    int nargs;
    const gala_arg *args;
} gala_host_launch;

typedef gala_status (*gala_host_fn)(const gala_host_launch *L);

/** A host kernel: name, argument signature (one letter per argument: b buffer, i int,
 *  l 64-bit index, r real), and its float and double versions. */
typedef struct gala_host_kernel {
    const char *name;
    const char *sig;
    gala_host_fn f32, f64;
} gala_host_kernel;

typedef struct gala_host_family {
    const char *family;
    const gala_host_kernel *kernels; /* terminated by a NULL name */
} gala_host_family;

/* Argument access inside host kernels (REAL is the template's element type). */
#define HBUF(T, k_) ((T *)L->args[k_].v.buf->handle)
#define HINT(k_) (L->args[k_].v.i)
#define HLONG(k_) ((ptrdiff_t)L->args[k_].v.l)
#define HREAL(k_) ((REAL)L->args[k_].v.r)
#define HDEF(name, fallback) gala_key_value(L->key, name, fallback)

/* The words of cl/common.clh that the kernels' shared helpers (cl/<family>_rules.h, in the
 * subset of C that C11 and OpenCL C share) are written with, in C */
#define DEVFN static inline
#define GLOBAL
typedef ptrdiff_t gidx;

/* Threads for a launch (host.c). A kernel whose items (QPs, matrices, tasks: what a device
 * runs as independent work-groups) write disjoint memory runs them with
 *
 *     const int nt = gala_host_threads(L, items, work);
 *     gala_host_par(L, nt, items, body, &job);      (body(job, begin, end, tid))
 *
 * gala_host_threads is work / host.par_work (a tuning key), at most the context's threads
 * (options.host_threads, GALA_HOST_THREADS) and the items, and 1 below two: `work` is the
 * launch's estimated multiply-adds (or element touches), and a launch of a few microseconds
 * gains nothing from a second thread. Each item is computed by the same code as on one thread, so the results are
 * bitwise those of one thread; writes that several items make alike (a "some matrix
 * failed" flag) and allocations are done by the caller, before or after the loop, never in
 * the body. tid (0 .. nt - 1) indexes per-thread scratch allocated before the loop. */
int gala_host_threads(const gala_host_launch *L, long items, double work);
void gala_host_par(const gala_host_launch *L, int nthreads, long items, gala_par_fn fn, void *arg);

/* The common form: item(L, arg, i, wk, hit) for i in [0, count) on gala_host_threads(L,
 * count, work) threads (arg: the caller's, e.g. the launch's arguments unpacked once), wk
 * pointing to wbytes of scratch of the thread's own (NULL when wbytes is
 * 0), hit to a word of the thread's own, zeroed first, where an item records what every
 * item that has it would write alike (a launch's "some matrix failed" flag): *any_hit
 * (may be NULL) receives the OR of them, for the caller to write once. GALA_OK, or
 * GALA_ERR_OUT_OF_MEMORY when the scratch cannot be had (nothing ran). */
typedef void (*gala_host_item)(const gala_host_launch *L, const void *arg, long i, void *wk,
                               int *hit);
gala_status gala_host_items(const gala_host_launch *L, const char *name, long count, double work,
                            gala_host_item item, const void *arg, size_t wbytes, int *any_hit);

/* A host kernel's signature from its family's argument list (cl/<family>_abi.h, the list
 * the .cl kernel's parameters and the driver's launch are made from):
 *     {"qp_expand", GALA_HOST_SIG(QP_ARGS_expand), qp_expand_f, qp_expand_d} */
#define GALA_SIG_B "b"
#define GALA_SIG_I "i"
#define GALA_SIG_L "l"
#define GALA_SIG_R "r"
#define GALA_SIG_ONE(k, t, n) GALA_SIG_##k
#define GALA_HOST_SIG(LIST) LIST(GALA_SIG_ONE, GALA_SIG_ONE)

/* The family tables (one per k_<family>.c). */
extern const gala_host_kernel gala_host_vec[];
extern const gala_host_kernel gala_host_gemv[];
extern const gala_host_kernel gala_host_qp[];
extern const gala_host_kernel gala_host_potrf[];
extern const gala_host_kernel gala_host_potrs[];
extern const gala_host_kernel gala_host_potri[];
extern const gala_host_kernel gala_host_lagemm[];
extern const gala_host_kernel gala_host_trtri[];
extern const gala_host_kernel gala_host_ldlt[];
extern const gala_host_kernel gala_host_sldlt[];
extern const gala_host_kernel gala_host_gemm_tc[];

/* The host backend's BLAS-3 (blas3.c). */
extern const gala_blas3_ops gala_host_blas3;

#endif
