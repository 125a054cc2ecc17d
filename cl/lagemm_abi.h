/*
 * The lagemm kernel's contract (cl/lagemm.cl, src/device/host/k_lagemm.c, la_gemm_upd in
 * src/la/la_common.c), written once as cl/qp_abi.h says. Matrices of a variable batch are
 * read from descriptors (cl/la_abi.h) when vb = 1.
 *
 * gemm_upd: C(i, j) += alpha·Σ_p A(i, p)·B(j, p) for every matrix of the launch; operand X
 * (A, B, C) is a view of M0 (xsrc = 0: the factor, L coordinates) or M1 (xsrc = 1: plain
 * column-major) from row xr0, column xc0, transposed when xtr = 1; the sizes are
 * min(mcap, n_b − mx), min(ncap, (nsrc ? nrhs_b : n_b) − nx), min(kcap, n_b − kx); mask = 1
 * writes only C's logical lower triangle, skipdead = 1 skips matrices with info > 0.
 */
#ifndef GALA_LAGEMM_ABI_H
#define GALA_LAGEMM_ABI_H

#include "la_abi.h"

#define LAGEMM_ARGS_gemm_upd(F, X) \
    F(I, int, count) X(I, int, tiles_m) X(I, int, tiles_n) X(I, int, mx) X(I, int, mcap)     \
    X(I, int, nx) X(I, int, ncap) X(I, int, nsrc) X(I, int, kx) X(I, int, kcap)             \
    X(R, REAL, alpha) X(I, int, mask) X(I, int, asrc) X(I, int, ar0) X(I, int, ac0)         \
    X(I, int, atr) X(I, int, bsrc) X(I, int, br0) X(I, int, bc0) X(I, int, btr)             \
    X(I, int, csrc) X(I, int, cr0) X(I, int, cc0) X(B, REAL, M0) X(L, gidx, m0o)            \
    X(I, int, ld0) X(L, gidx, m0s) X(I, int, up) X(B, REAL, M1) X(L, gidx, m1o)             \
    X(I, int, ld1) X(L, gidx, m1s) X(I, int, n) X(I, int, nrhs) X(B, const int, desc)       \
    X(L, gidx, dofs) X(I, int, vb) X(B, const int, info) X(L, gidx, io) X(I, int, skipdead)

#endif
