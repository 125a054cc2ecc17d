/**
 * @file trtri.h
 * @brief Triangular inverse, for one matrix, uniform batches and variable batches.
 *
 * B = A⁻¹ for triangular A (lower or upper, unit or non-unit diagonal), float or double (the
 * type of the buffers). B may be A itself (same buffer, offset and leading dimension, and for
 * batches the same stride: in place) or a separate matrix that does not overlap A. Only the
 * uplo triangle of A is read and only that triangle of B is written; with GALA_UNIT the
 * diagonal is neither read nor written (the inverse has a unit diagonal too). Any n >= 0
 * works without padding; n = 0 or batch = 0 does nothing.
 *
 * Batches and info follow la.h. info[b] = k > 0: A_b(k,k) is exactly zero (singular, the
 * first such k); -k: a NaN or Inf in column k of A_b's referenced triangle (the first such
 * column; reported even when the matrix is also singular). A failing matrix is left
 * untouched (B_b keeps its contents), all others are inverted. The call waits for the
 * device: it reads info back (or, with info NULL, one flag word); the status is GALA_OK,
 * GALA_ERR_NOT_FINITE if any matrix had a NaN/Inf, else GALA_ERR_SINGULAR, and
 * gala_last_error() names the first failing matrix and its column.
 *
 * The matrices of a batched B must not share elements (b_stride >= the extent of one
 * matrix, or an interleaved layout with b_stride >= n and ldb >= b_stride·(batch−1) + n);
 * inputs may (a_stride = 0 inverts one A into every B_b).
 *
 * Workspace: the context's scratch slots 2 and 3 (see docs/trtri.md); no other device
 * allocation per call.
 *
 * Errors: GALA_ERR_INVALID_ARG (NULL context, buffer or size array, negative n or batch,
 * lda or ldb < max(1, n), bad uplo/diag, ranges outside the buffers, B overlapping A without
 * being A, overlapping outputs, buffers of another context, int buffers, mixed float and
 * double, sizes that overflow); GALA_ERR_SINGULAR; GALA_ERR_NOT_FINITE;
 * GALA_ERR_NOT_SUPPORTED (double without fp64); GALA_ERR_DEVICE_MEMORY (workspace);
 * GALA_ERR_OUT_OF_MEMORY (host); GALA_ERR_KERNEL_BUILD; GALA_ERR_DEVICE. On an argument
 * error nothing is written (not even info).
 */
#ifndef GALA_TRTRI_H
#define GALA_TRTRI_H

#include "gala/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gala_context;
struct gala_buffer;

/**
 * @brief Inverse of one n×n triangular matrix: B = A⁻¹.
 * @param ctx   context of the buffers.
 * @param uplo  GALA_LOWER or GALA_UPPER: the triangle of A that is read (and of B written).
 * @param diag  GALA_NON_UNIT, or GALA_UNIT (diagonal taken as 1, neither read nor written).
 * @param n     order, >= 0.
 * @param A     the matrix at A[a_off], column-major with leading dimension lda >= max(1, n).
 * @param B     the inverse at B[b_off] with ldb >= max(1, n); B = A with b_off = a_off and
 *              ldb = lda inverts in place.
 * @param info  one int (0, k or -k as above), or NULL.
 * @return GALA_OK or an error listed in the file comment.
 */
GALA_API gala_status gala_trtri(struct gala_context *ctx, gala_uplo uplo, gala_diag diag, int n,
                                const struct gala_buffer *A, size_t a_off, int lda,
                                struct gala_buffer *B, size_t b_off, int ldb, int *info);

/**
 * @brief Inverses of `batch` n×n triangular matrices: B_b = A_b⁻¹, A_b at
 * A[a_off + b·a_stride], B_b at B[b_off + b·b_stride], one call for the whole batch.
 * Arguments as for gala_trtri(); batch >= 0; info: `batch` ints, or NULL. In place needs
 * B = A with equal offsets, leading dimensions and strides.
 */
GALA_API gala_status gala_trtri_batched(struct gala_context *ctx, gala_uplo uplo, gala_diag diag,
                                        int n, const struct gala_buffer *A, size_t a_off, int lda,
                                        size_t a_stride, struct gala_buffer *B, size_t b_off,
                                        int ldb, size_t b_stride, int batch, int *info);

/**
 * @brief Inverses of `batch` triangular matrices of sizes n[b] >= 0: A_b at A[a_off[b]] with
 * leading dimension lda[b] >= max(1, n[b]), B_b at B[b_off[b]] with ldb[b] (host arrays of
 * `batch` entries, NULL only when batch = 0), one call: the matrices are sorted by size on
 * the host and run in a few launches, none per matrix. Matrix b is inverted in place when
 * A = B, a_off[b] = b_off[b] and lda[b] = ldb[b]. info: `batch` ints, or NULL.
 */
GALA_API gala_status gala_trtri_vbatched(struct gala_context *ctx, gala_uplo uplo, gala_diag diag,
                                         const int *n, const struct gala_buffer *A,
                                         const size_t *a_off, const int *lda,
                                         struct gala_buffer *B, const size_t *b_off,
                                         const int *ldb, int batch, int *info);

#ifdef __cplusplus
}
#endif

#endif /* GALA_TRTRI_H */
