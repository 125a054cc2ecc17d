/*
 * The gemm_tc kernel's contract (cl/gemm_tc.cl, src/device/host/k_gemm_tc.c,
 * src/core/blas3_tc.c), written once as cl/qp_abi.h says.
 *
 * Matrix s of `count` (the launch's groups / tiles): X(i, p) = A[xo0 + s·xs + i·xi + p·xp],
 * Y(j, p) = B[yo0 + s·ys + j·yi + p·yp], C(i, j) at C[co0 + s·cs + i·ci + j·cj];
 * C = alpha·X·Yᵀ + beta·C (C not read when beta = 0), only the triangle `tri` says; with
 * skipdead = 1 a matrix whose info[io + s] > 0 is left alone.
 */
#ifndef GALA_GEMM_TC_ABI_H
#define GALA_GEMM_TC_ABI_H

/* tri: which elements of C are written */
#define GEMM_TC_ALL 0
#define GEMM_TC_LOWER 1 /* i >= j (a SYRK's lower triangle) */
#define GEMM_TC_UPPER 2 /* i <= j */

#define GEMM_TC_ARGS_gemm_tc(F, X) \
    F(I, int, m) X(I, int, n) X(I, int, k) X(R, REAL, alpha) X(R, REAL, beta)               \
    X(B, const REAL, A) X(L, gidx, xo0) X(L, gidx, xi) X(L, gidx, xp) X(L, gidx, xs)        \
    X(B, const REAL, B) X(L, gidx, yo0) X(L, gidx, yi) X(L, gidx, yp) X(L, gidx, ys)        \
    X(B, REAL, C) X(L, gidx, co0) X(L, gidx, ci) X(L, gidx, cj) X(L, gidx, cs)              \
    X(I, int, tiles_m) X(I, int, tiles) X(I, int, tri) X(B, const int, info) X(L, gidx, io)  \
    X(I, int, skipdead)

#endif
