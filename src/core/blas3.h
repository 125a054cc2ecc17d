/*
 * Internal BLAS-3 (column-major, offsets and leading dimensions in elements), checked and
 * dispatched to the backend's table (gala_blas3_ops in src/device/device.h): CLBlast on
 * OpenCL, cuBLAS on CUDA, cache-blocked C loops on the host backend.
 *
 * When the backend has no BLAS-3 (OpenCL built without CLBlast, a backend that leaves
 * ops->blas3 NULL), every call returns GALA_ERR_NOT_SUPPORTED; algorithms ask
 * gala_blas3_available() first and fall back to gala's own kernels.
 *
 * Checks: ctx, enums, sizes >= 0, leading dimensions, buffers of ctx with one floating
 * type and the accessed ranges inside them, and that the output does not overlap an input
 * (two sub-matrices of one buffer with the same leading dimension are compared as
 * rectangles, so disjoint blocks of one matrix are fine). Zero-sized outputs return at
 * once. Calls are asynchronous, ordered on the context's queue.
 */
#ifndef GALA_CORE_BLAS3_H
#define GALA_CORE_BLAS3_H

#include "internal.h"
#include "../../cl/gemm_tc_abi.h"

/** Whether the context's backend provides BLAS-3. */
GALA_INTERNAL int gala_blas3_available(const struct gala_context *ctx);

/** The backend GEMM kernel's parameters that gala set for dt (CLBlast's Xgemm on OpenCL:
 *  the sixteen clblast.xgemm.* values in CLBlast's order), up to cap; returns how many
 *  (0: none set, the BLAS library's own choice stands). Call after a BLAS-3 call. */
GALA_INTERNAL int gala_blas3_kernel_params(struct gala_context *ctx, gala_dtype dt, long *out,
                                           int cap);

/** C = alpha·op(A)·op(B) + beta·C; C is m×n, op(A) m×k, op(B) k×n. With k = 0 or alpha = 0
 *  and beta = 1 nothing is done. */
GALA_INTERNAL gala_status gala_gemm(struct gala_context *ctx, gala_trans ta, gala_trans tb, int m,
                                    int n, int k, double alpha, const struct gala_buffer *A,
                                    size_t a_off, int lda, const struct gala_buffer *B,
                                    size_t b_off, int ldb, double beta, struct gala_buffer *C,
                                    size_t c_off, int ldc);

/** The uplo triangle of C (n×n) = alpha·op(A)·op(A)ᵀ + beta·C; op(A) = A (n×k) for
 *  GALA_NO_TRANS, Aᵀ (A k×n) for GALA_TRANS. The other triangle is not touched. */
GALA_INTERNAL gala_status gala_syrk(struct gala_context *ctx, gala_uplo uplo, gala_trans t, int n,
                                    int k, double alpha, const struct gala_buffer *A,
                                    size_t a_off, int lda, double beta, struct gala_buffer *C,
                                    size_t c_off, int ldc);

/** Solve op(A)·X = alpha·B (side left, A m×m) or X·op(A) = alpha·B (right, A n×n) for X,
 *  which overwrites B (m×n); A triangular (uplo, diag). */
GALA_INTERNAL gala_status gala_trsm(struct gala_context *ctx, gala_side side, gala_uplo uplo,
                                    gala_trans t, gala_diag diag, int m, int n, double alpha,
                                    const struct gala_buffer *A, size_t a_off, int lda,
                                    struct gala_buffer *B, size_t b_off, int ldb);

/** The tiles of cl/gemm_tc.cl: wm×wn mma tiles of 8×8 per warp, wgm×wgn warps per group,
 *  steps of kt; tm×tn the group's tile, nth its work-items. */
typedef struct gala_tc_tiles {
    int wm, wn, wgm, wgn, kt, tm, tn, nth;
} gala_tc_tiles;

/** gala's own GEMM kernel for an m×n product of this context and dtype (cl/gemm_tc.cl),
 *  as the tuning values under `pfx` ask (pfx.tc; "blas3" for gala_gemm / gala_syrk,
 *  "lagemm" for the batched updates of src/la): 0 none (the caller's other path; also when
 *  the tuned tiles do not fit the device or the product), 1 plain multiply-adds, 2 FP64
 *  tensor cores (double on NVIDIA devices only; 1 elsewhere). When nonzero, *tiles holds the
 *  tiles (pfx.tc_*) for gala_tc_run. */
GALA_INTERNAL int gala_tc_mode(struct gala_context *ctx, const char *pfx, gala_dtype dt, int m,
                               int n, gala_tc_tiles *tiles);

/** One operand of gala_tc_run: element (i, p) of matrix s at buf[o + s·ss + i·si + p·sp]
 *  (for C: (i, j) at o + s·ss + i·si + j·sp). */
typedef struct gala_tc_view {
    const struct gala_buffer *buf;
    size_t o, si, sp, ss;
} gala_tc_view;

/** C_s = alpha·X_s·Y_sᵀ + beta·C_s for s < count: X m×k, Y n×k; tri GEMM_TC_LOWER
 *  (GEMM_TC_UPPER) writes only i >= j (i <= j), GEMM_TC_ALL every element
 *  (cl/gemm_tc_abi.h); skipdead = 1 leaves the matrices whose info[io + s] > 0. */
typedef struct gala_tc_call {
    int count, m, n, k, tri;
    double alpha, beta;
    gala_tc_view x, y, c;
    const struct gala_buffer *info;
    size_t io;
    int skipdead;
} gala_tc_call;

/** Launch cl/gemm_tc.cl for `c` in mode `mode` with `tiles` (gala_tc_mode's nonzero answer
 *  and tiles for this product's m, n). Arguments already checked by the caller. */
GALA_INTERNAL gala_status gala_tc_run(struct gala_context *ctx, gala_dtype dt, int mode,
                                      const gala_tc_tiles *tiles, const gala_tc_call *c);

#endif
