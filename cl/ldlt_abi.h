/*
 * The dense LDLᵀ kernels' contract (cl/ldlt.cl, src/device/host/k_ldlt.c, src/la/ldlt.c),
 * written once as cl/qp_abi.h says.
 *
 * Matrices: var = 0, a uniform batch (matrix b at A[a_off + b·a_stride], order n, leading
 * dimension lda, tail start kt); var = 1, matrix b of a launch described by LDLT_DSZ ints at
 * desc[d_off + LDLT_DSZ·b] (LDLT_D_* for the factorization, LDLT_S_* for the solve). Status
 * of the caller's matrix q: st[LA_NST·q + LA_ST_*] (cl/la_abi.h); a matrix whose info is
 * nonzero is skipped by every later kernel.
 */
#ifndef GALA_LDLT_ABI_H
#define GALA_LDLT_ABI_H

#include "la_abi.h"

#define LDLT_DSZ 8
/* a matrix of the factorization */
#define LDLT_D_OFF 0 /* element offset of A_b: low 32 bits, then high 32 bits */
#define LDLT_D_N 2   /* order */
#define LDLT_D_LDA 3 /* leading dimension */
#define LDLT_D_IDX 4 /* index in the caller's batch (its status slot) */
#define LDLT_D_KT 5  /* start of the trailing block that ldlt_fused factors */
/* a matrix of the solve */
#define LDLT_S_AOFF 0 /* element offset of A_b (two ints) */
#define LDLT_S_BOFF 2 /* element offset of B_b (two ints) */
#define LDLT_S_N 4
#define LDLT_S_LDA 5
#define LDLT_S_LDB 6
#define LDLT_S_NRHS 7

/* ldlt_fused: the trailing block A[kt:n, kt:n] (order <= mmax) of nmat matrices */
#define LDLT_ARGS_fused(F, X) \
    F(I, int, var) X(I, int, upper) X(I, int, nmat) X(I, int, mmax) X(I, int, n)            \
    X(I, int, lda) X(I, int, kt) X(B, REAL, A) X(L, gidx, a_off) X(L, gidx, a_stride)       \
    X(B, const int, desc) X(L, gidx, d_off) X(B, int, st)

/* the blocked steps' arguments: nmat matrices, panel at k0 */
#define LDLT_ARGS_step(F, X) \
    F(I, int, var) X(I, int, upper) X(I, int, nmat) X(I, int, n) X(I, int, lda)             \
    X(I, int, kt) X(B, REAL, A) X(L, gidx, a_off) X(L, gidx, a_stride) X(B, const int, desc) \
    X(L, gidx, d_off)

/* ldlt_panel: factor the panel's diagonal block */
#define LDLT_ARGS_panel(F, X) LDLT_ARGS_step(F, X) X(B, int, st) X(I, int, k0)

/* ldlt_trsm: the rows below it, in rgroups groups of rows */
#define LDLT_ARGS_trsm(F, X) \
    LDLT_ARGS_step(F, X) X(B, const int, st) X(I, int, k0) X(I, int, rgroups)

/* ldlt_update: the trailing matrix in ntiles × ntiles tiles */
#define LDLT_ARGS_update(F, X) \
    LDLT_ARGS_step(F, X) X(B, const int, st) X(I, int, k0) X(I, int, ntiles)

/* ldlt_solve: npairs (matrix, right-hand side) pairs, segments of S_ lanes */
#define LDLT_ARGS_solve(F, X) \
    F(I, int, var) X(I, int, upper) X(L, gidx, npairs) X(I, int, S_) X(I, int, n)           \
    X(I, int, nrhs) X(I, int, nmax) X(B, const REAL, A) X(L, gidx, a_off) X(I, int, lda)    \
    X(L, gidx, a_stride) X(B, REAL, B) X(L, gidx, b_off) X(I, int, ldb)                     \
    X(L, gidx, b_stride) X(B, const int, desc) X(L, gidx, d_off)

#endif
