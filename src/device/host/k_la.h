/*
 * What the host kernels of the dense factorizations (k_potrf.c, k_potrs.c, k_potri.c,
 * k_lagemm.c) share: a launch's matrix and right-hand sides from its uniform arguments or
 * its descriptor (cl/la_abi.h), and L coordinates.
 */
#ifndef GALA_HOST_K_LA_H
#define GALA_HOST_K_LA_H

#include <stddef.h>

#include "../../../cl/la_abi.h"

/* the 64-bit offset at d[k], d[k + 1] (low, high) of a descriptor */
static inline ptrdiff_t desc_off(const int *d, int k)
{
    return (ptrdiff_t)((unsigned long long)(unsigned int)d[k] |
                       ((unsigned long long)(unsigned int)d[k + 1] << 32));
}

/* Matrix s of a launch: its order, leading dimension, base offset and info slot (from the
 * launch's uniform arguments, or from descriptor s when vb). */
typedef struct {
    int n, ld, idx;
    ptrdiff_t base;
} hmat;

static inline hmat mat_at(int s, int n, int lda, ptrdiff_t ao, ptrdiff_t as, const int *desc,
                          ptrdiff_t dofs, int vb)
{
    hmat m = {n, lda, s, ao + (ptrdiff_t)s * as};
    if (vb) {
        const int *d = desc + (dofs + s) * LA_DSZ;
        m.n = d[LA_D_N];
        m.ld = d[LA_D_LDA];
        m.base = desc_off(d, LA_D_AOFF);
        m.idx = d[LA_D_IDX];
    }
    return m;
}

/* The right-hand sides of matrix s (potrs' B, gemm_upd's second matrix): how many, their
 * leading dimension and base offset (from the launch's uniform arguments, or from
 * descriptor s when vb). */
typedef struct {
    int nrhs, ld;
    ptrdiff_t base;
} hrhs;

static inline hrhs rhs_at(int s, int nrhs, int ldb, ptrdiff_t bo, ptrdiff_t bs, const int *desc,
                          ptrdiff_t dofs, int vb)
{
    hrhs r = {nrhs, ldb, bo + (ptrdiff_t)s * bs};
    if (vb) {
        const int *d = desc + (dofs + s) * LA_DSZ;
        r.nrhs = d[LA_D_NRHS];
        r.ld = d[LA_D_LDB];
        r.base = desc_off(d, LA_D_BOFF);
    }
    return r;
}

/* offset of logical L(i, j) */
static inline ptrdiff_t lidx(ptrdiff_t i, ptrdiff_t j, ptrdiff_t ld, int up)
{
    return up ? j + i * ld : i + j * ld;
}

static inline int imin(int a, int b) { return a < b ? a : b; }

#endif
