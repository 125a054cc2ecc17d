/*
 * The potrs kernels' contract (cl/potrs.cl, src/device/host/k_potrs.c, src/la/potrs.c),
 * written once as cl/qp_abi.h says. Matrices of a variable batch come from descriptors
 * (cl/la_abi.h) when vb = 1.
 */
#ifndef GALA_POTRS_ABI_H
#define GALA_POTRS_ABI_H

#include "la_abi.h"

/* potrs_fused's mode: the passes over its diagonal block (both: the whole solve) */
#define POTRS_FWD 1 /* D·Y = B */
#define POTRS_BWD 2 /* Dᵀ·X = B */

/* potrs_sweep's mode (bits) */
#define POTRS_SW_UPDATE 1 /* the groups' blocks −= their product with the solved block k */
#define POTRS_SW_BWD 2    /* the backward pass (blocks above k), else forward (below) */
#define POTRS_SW_INV 4    /* group 0's block = D⁻¹·block */
#define POTRS_SW_INVT 8   /* group 0's block = D⁻ᵀ·block */

/* potrs_fused: the block at j0 of `count` matrices, right-hand sides in groups of rpg */
#define POTRS_ARGS_fused(F, X) \
    F(I, int, n) X(I, int, nrhs) X(I, int, j0) X(I, int, count) X(I, int, maxrhs)           \
    X(I, int, rpg) X(I, int, mode) X(B, const REAL, A) X(L, gidx, ao) X(I, int, lda)        \
    X(L, gidx, as) X(I, int, up) X(B, REAL, B) X(L, gidx, bo) X(I, int, ldb) X(L, gidx, bs) \
    X(B, const int, desc) X(L, gidx, dofs) X(I, int, vb)

/* potrs_sweep: step k of one matrix; the inverted diagonal blocks at W + wo + b·N·N */
#define POTRS_ARGS_sweep(F, X) \
    F(I, int, n) X(I, int, nrhs) X(I, int, k) X(I, int, mode) X(B, const REAL, A)           \
    X(L, gidx, ao) X(I, int, lda) X(I, int, up) X(B, const REAL, W) X(L, gidx, wo)          \
    X(B, REAL, B) X(L, gidx, bo) X(I, int, ldb)

#endif
