/**
 * @file potrf.h
 * @brief Cholesky factorization (potrf), solves with the factor (potrs), and the inverse
 * of an SPD matrix (potri), for one matrix, uniform batches and variable batches.
 *
 * potrf: A = L·Lᵀ (uplo = GALA_LOWER, L overwrites the lower triangle) or A = Uᵀ·U
 * (GALA_UPPER), in place; the other triangle is not touched. info[b] = k > 0: the leading
 * minor of order k is not positive definite; -k: NaN/Inf met at column k (la.h).
 * potrs: solves A·X = B with the factor from potrf, for nrhs >= 0 right-hand sides, in
 * place in B (n×nrhs, leading dimension ldb); no info (the factor is assumed valid).
 * potri: overwrites the factor with the uplo triangle of A⁻¹ (through gala's trtri), info
 * as for trtri.
 *
 * Errors: GALA_ERR_INVALID_ARG, GALA_ERR_NOT_POSITIVE_DEFINITE (potrf), GALA_ERR_SINGULAR
 * (potri), GALA_ERR_NOT_FINITE, GALA_ERR_NOT_SUPPORTED, GALA_ERR_DEVICE_MEMORY,
 * GALA_ERR_KERNEL_BUILD, GALA_ERR_DEVICE.
 */
#ifndef GALA_POTRF_H
#define GALA_POTRF_H

#include "gala/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gala_context;
struct gala_buffer;

GALA_API gala_status gala_potrf(struct gala_context *ctx, gala_uplo uplo, int n,
                                struct gala_buffer *A, size_t a_off, int lda, int *info);
GALA_API gala_status gala_potrf_batched(struct gala_context *ctx, gala_uplo uplo, int n,
                                        struct gala_buffer *A, size_t a_off, int lda,
                                        size_t a_stride, int batch, int *info);
GALA_API gala_status gala_potrf_vbatched(struct gala_context *ctx, gala_uplo uplo, const int *n,
                                         struct gala_buffer *A, const size_t *a_off,
                                         const int *lda, int batch, int *info);

GALA_API gala_status gala_potrs(struct gala_context *ctx, gala_uplo uplo, int n, int nrhs,
                                const struct gala_buffer *A, size_t a_off, int lda,
                                struct gala_buffer *B, size_t b_off, int ldb);
GALA_API gala_status gala_potrs_batched(struct gala_context *ctx, gala_uplo uplo, int n, int nrhs,
                                        const struct gala_buffer *A, size_t a_off, int lda,
                                        size_t a_stride, struct gala_buffer *B, size_t b_off,
                                        int ldb, size_t b_stride, int batch);
GALA_API gala_status gala_potrs_vbatched(struct gala_context *ctx, gala_uplo uplo, const int *n,
                                         const int *nrhs, const struct gala_buffer *A,
                                         const size_t *a_off, const int *lda,
                                         struct gala_buffer *B, const size_t *b_off,
                                         const int *ldb, int batch);

GALA_API gala_status gala_potri(struct gala_context *ctx, gala_uplo uplo, int n,
                                struct gala_buffer *A, size_t a_off, int lda, int *info);
GALA_API gala_status gala_potri_batched(struct gala_context *ctx, gala_uplo uplo, int n,
                                        struct gala_buffer *A, size_t a_off, int lda,
                                        size_t a_stride, int batch, int *info);
GALA_API gala_status gala_potri_vbatched(struct gala_context *ctx, gala_uplo uplo, const int *n,
                                         struct gala_buffer *A, const size_t *a_off,
                                         const int *lda, int batch, int *info);

#ifdef __cplusplus
}
#endif

#endif /* GALA_POTRF_H */
