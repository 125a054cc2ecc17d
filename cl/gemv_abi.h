/*
 * The gemv kernels' contract (cl/gemv.cl, src/device/host/k_gemv.c, src/blas/gemv.c),
 * written once as cl/qp_abi.h says: per kernel an argument X-list GEMV_ARGS_<name>(F, X).
 *
 * Item b: A_b column-major m×n at A[ao + b·as] with leading dimension lda, x_b at
 * x[xo + b·xs], y_b at y[yo + b·ys]; y_b = alpha·op(A_b)·x_b + beta·y_b.
 */
#ifndef GALA_GEMV_ABI_H
#define GALA_GEMV_ABI_H

/* gemv_n: op(A) = A; row_groups work-groups of rows per item */
#define GEMV_ARGS_gemv_n(F, X) \
    F(I, int, m) X(I, int, n) X(I, int, row_groups) X(R, REAL, alpha) X(B, const REAL, A)   \
    X(L, gidx, ao) X(I, int, lda) X(L, gidx, as) X(B, const REAL, x) X(L, gidx, xo)         \
    X(L, gidx, xs) X(R, REAL, beta) X(B, REAL, y) X(L, gidx, yo) X(L, gidx, ys)

/* gemv_t: op(A) = Aᵀ; segments of S lanes per column, col_groups work-groups per item */
#define GEMV_ARGS_gemv_t(F, X) \
    F(I, int, m) X(I, int, n) X(I, int, S) X(I, int, col_groups) X(R, REAL, alpha)          \
    X(B, const REAL, A) X(L, gidx, ao) X(I, int, lda) X(L, gidx, as) X(B, const REAL, x)    \
    X(L, gidx, xo) X(L, gidx, xs) X(R, REAL, beta) X(B, REAL, y) X(L, gidx, yo)             \
    X(L, gidx, ys)

#endif
