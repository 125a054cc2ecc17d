/*
 * The trtri kernels' contract (cl/trtri.cl, src/device/host/k_trtri.c, src/la/trtri.c),
 * written once as cl/qp_abi.h says.
 *
 * The int buffer ib of a call: ib[0 .. batch) the per-matrix info, ib[flag_idx] the flag
 * (1 when any matrix fails), and for variable batches TRTRI_MW ints per matrix record at
 * ib[meta_off + TRTRI_MW·m] and the task lists: TRTRI_TW ints {matrix, start row/column}
 * per task at ib[task_off + TRTRI_TW·t] (meta_off, task_off < 0: uniform batches, matrix
 * and tasks implicit).
 */
#ifndef GALA_TRTRI_ABI_H
#define GALA_TRTRI_ABI_H

#include "la_abi.h"

/* a matrix record (variable batches) */
#define TRTRI_MW 9
#define TRTRI_R_N 0     /* order */
#define TRTRI_R_LDA 1   /* leading dimensions of A and B */
#define TRTRI_R_LDB 2
#define TRTRI_R_AOFF 3  /* element offset of A: low 32 bits, then high 32 bits */
#define TRTRI_R_BOFF 5  /* element offset of B (two ints) */
#define TRTRI_R_IDX 7   /* index in the caller's batch (its info slot) */
#define TRTRI_R_CHECK 8 /* its first trtri_check task */

/* a task */
#define TRTRI_TW 2
#define TRTRI_T_M 0     /* the matrix (record) */
#define TRTRI_T_START 1 /* the first row / column of its block or block pair */

/* diag_inv: the diagonal blocks of order <= NB of ntask tasks inverted from A into B
 * (fused = 1: the block is the whole matrix, checked while loading) */
#define TRTRI_ARGS_diag_inv(F, X) \
    F(I, int, upper) X(I, int, unit) X(I, int, fused) X(B, int, ib) X(L, gidx, flag_idx)    \
    X(L, gidx, meta_off) X(L, gidx, task_off) X(I, int, m0) X(I, int, per) X(I, int, step)  \
    X(I, int, ntask) X(I, int, n) X(B, const REAL, A) X(L, gidx, a_off) X(I, int, lda)      \
    X(L, gidx, a_stride) X(B, REAL, B) X(L, gidx, b_off) X(I, int, ldb) X(L, gidx, b_stride)

/* inv_lower_tri_multiply: T = C2·A3 of one doubling round (blocks of order s) */
#define TRTRI_ARGS_inv_lower_tri_multiply(F, X) \
    F(I, int, upper) X(I, int, unit) X(B, const int, ib) X(L, gidx, meta_off)               \
    X(L, gidx, task_off) X(I, int, m0) X(I, int, per) X(I, int, step) X(I, int, ntask)      \
    X(I, int, s) X(I, int, ldt) X(I, int, tiles_r) X(I, int, tiles_c) X(I, int, n)          \
    X(B, const REAL, A) X(L, gidx, a_off) X(I, int, lda) X(L, gidx, a_stride)               \
    X(B, const REAL, B) X(L, gidx, b_off) X(I, int, ldb) X(L, gidx, b_stride) X(B, REAL, T)

/* neg_rect_lower_tri_multiply: B3 = −T·C1 */
#define TRTRI_ARGS_neg_rect_lower_tri_multiply(F, X) \
    F(I, int, upper) X(I, int, unit) X(B, const int, ib) X(L, gidx, meta_off)               \
    X(L, gidx, task_off) X(I, int, m0) X(I, int, per) X(I, int, step) X(I, int, ntask)      \
    X(I, int, s) X(I, int, ldt) X(I, int, tiles_r) X(I, int, tiles_c) X(I, int, n)          \
    X(B, REAL, B) X(L, gidx, b_off) X(I, int, ldb) X(L, gidx, b_stride) X(B, const REAL, T)

/* trtri_check: per task the smallest code of its columns into ib[part_off + t] */
#define TRTRI_ARGS_trtri_check(F, X) \
    F(I, int, upper) X(I, int, unit) X(B, int, ib) X(L, gidx, part_off) X(L, gidx, meta_off) \
    X(L, gidx, task_off) X(I, int, m0) X(I, int, per) X(I, int, step) X(I, int, ntask)      \
    X(I, int, n) X(B, const REAL, A) X(L, gidx, a_off) X(I, int, lda) X(L, gidx, a_stride)

/* trtri_info: the codes of each matrix's check tasks into its info */
#define TRTRI_ARGS_trtri_info(F, X) \
    F(B, int, ib) X(L, gidx, part_off) X(L, gidx, flag_idx) X(L, gidx, meta_off)            \
    X(I, int, m0) X(I, int, count) X(I, int, per) X(I, int, cols) X(I, int, n)

#endif
