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
