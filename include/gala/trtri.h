/**
 * @file trtri.h
 * @brief Triangular inverse, for one matrix, uniform batches and variable batches.
 *
 * B = A⁻¹ for triangular A (lower or upper, unit or non-unit diagonal). B may be A itself
 * (same buffer, offset and leading dimension: in place) or a separate matrix that does not
 * overlap A. Only the uplo triangle of A is read and only that triangle of B is written.
 * Conventions for batches and info: la.h. info[b] = k > 0: A_b(k,k) is zero (singular);
 * -k: a NaN/Inf in column k.
 *
 * Errors: GALA_ERR_INVALID_ARG (NULL, negative n or batch, lda or ldb < max(1, n), bad
 * uplo/diag, ranges outside the buffers, partial overlap of A and B, mixed types);
 * GALA_ERR_SINGULAR; GALA_ERR_NOT_FINITE; GALA_ERR_NOT_SUPPORTED (double without fp64);
 * GALA_ERR_DEVICE_MEMORY (workspace); GALA_ERR_KERNEL_BUILD; GALA_ERR_DEVICE.
 */
#ifndef GALA_TRTRI_H
#define GALA_TRTRI_H

#include "gala/gala.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gala_context;
struct gala_buffer;

/** @brief Inverse of one n×n triangular matrix: B = A⁻¹. */
GALA_API gala_status gala_trtri(struct gala_context *ctx, gala_uplo uplo, gala_diag diag, int n,
                                const struct gala_buffer *A, size_t a_off, int lda,
                                struct gala_buffer *B, size_t b_off, int ldb, int *info);

/** @brief Inverses of `batch` n×n triangular matrices: B_b = A_b⁻¹, A_b at
 *  A[a_off + b·a_stride], B_b at B[b_off + b·b_stride]. */
GALA_API gala_status gala_trtri_batched(struct gala_context *ctx, gala_uplo uplo, gala_diag diag,
                                        int n, const struct gala_buffer *A, size_t a_off, int lda,
                                        size_t a_stride, struct gala_buffer *B, size_t b_off,
                                        int ldb, size_t b_stride, int batch, int *info);

/** @brief Inverses of `batch` triangular matrices of sizes n[b]: A_b at A[a_off[b]] with
 *  leading dimension lda[b], B_b at B[b_off[b]] with ldb[b] (host arrays). */
GALA_API gala_status gala_trtri_vbatched(struct gala_context *ctx, gala_uplo uplo, gala_diag diag,
                                         const int *n, const struct gala_buffer *A,
                                         const size_t *a_off, const int *lda,
                                         struct gala_buffer *B, const size_t *b_off,
                                         const int *ldb, int batch, int *info);

#ifdef __cplusplus
}
#endif

#endif /* GALA_TRTRI_H */
