/*
 * The potri kernels' contract (cl/potri.cl, src/device/host/k_potri.c, src/la/potri.c),
 * written once as cl/qp_abi.h says. Matrices of a variable batch come from descriptors
 * (cl/la_abi.h) when vb = 1.
 */
#ifndef GALA_POTRI_ABI_H
#define GALA_POTRI_ABI_H

#include "la_abi.h"

/* copy_mask's mask: which entries of the copy are set to 0 */
#define POTRI_ZERO_NONE 0
#define POTRI_ZERO_UPPER 1 /* i < j */
#define POTRI_ZERO_LOWER 2 /* i > j */

/* lauum_fused: the diagonal block at j0 of `count` matrices */
#define POTRI_ARGS_lauum_fused(F, X) \
    F(I, int, n) X(I, int, j0) X(I, int, count) X(B, REAL, A) X(L, gidx, ao) X(I, int, lda) \
    X(L, gidx, as) X(I, int, up) X(B, const int, desc) X(L, gidx, dofs) X(I, int, vb)

/* trmm_lt: block row I, ncg groups of columns per matrix */
#define POTRI_ARGS_trmm_lt(F, X) \
    F(I, int, n) X(I, int, I) X(I, int, count) X(I, int, ncg) X(B, REAL, A) X(L, gidx, ao)  \
    X(I, int, lda) X(L, gidx, as) X(I, int, up) X(B, const int, desc) X(L, gidx, dofs)      \
    X(I, int, vb)

/* copy_mask: the m×nc block at S[so] (leading dimension lds) to D[dof] (ldd) */
#define POTRI_ARGS_copy_mask(F, X) \
    F(I, int, m) X(I, int, nc) X(B, const REAL, S) X(L, gidx, so) X(I, int, lds)            \
    X(B, REAL, D) X(L, gidx, dof) X(I, int, ldd) X(I, int, mask)

#endif
