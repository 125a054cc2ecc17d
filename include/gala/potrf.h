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
 * Precision: that of the buffers (float or double; A and B of one call share it). Batches
 * and offsets: la.h. Matrices of an output batch may not share elements (they may be
 * stacked inside one leading dimension); in potrs the factors are only read, so one
 * factor may serve a whole batch (a_stride = 0), but B may not overlap A.
 *
 * Failures in detail (potrf). Columns of L are taken in order (with GALA_UPPER, column k of
 * L is row k of the stored upper triangle, U = Lᵀ); the first event decides info: a NaN or
 * Inf in column k of L's part of the input, or a non-finite pivot, gives -k; a pivot <= 0
 * gives k (a NaN in the same column wins). Columns 1..k-1 of L then hold the factor of the
 * leading minor of order k-1; the others hold unspecified values. A
 * value that overflows to Inf during the factorization is reported at the column where the
 * algorithm meets it, which can differ between the fused and the blocked algorithms.
 *
 * Algorithms and their crossovers (tuning table, docs/cholesky.md): n <= 64 one fused
 * kernel (each matrix read and written once); larger batches a blocked algorithm of gala's
 * own kernels; one matrix of n >= 1024 BLAS-3 updates (CLBlast on OpenCL, cuBLAS on CUDA)
 * with gala's kernels for the panels.
 *
 * Errors: GALA_ERR_INVALID_ARG, GALA_ERR_NOT_POSITIVE_DEFINITE (potrf), GALA_ERR_SINGULAR
 * (potri), GALA_ERR_NOT_FINITE, GALA_ERR_NOT_SUPPORTED, GALA_ERR_DEVICE_MEMORY,
 * GALA_ERR_KERNEL_BUILD, GALA_ERR_DEVICE. Arguments are checked before any work starts;
 * a numerical failure leaves the other matrices of the batch factored.
 *
 * Workspace: the routines use the context's scratch buffers (internal: slots 1 and 3, 4-6
 * for the variable-batch layouts kept for reuse; potri through trtri also 2).
 */
#ifndef GALA_POTRF_H
#define GALA_POTRF_H

#include "gala/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gala_context;
struct gala_buffer;

/**
 * @brief Cholesky factorization of one n×n SPD matrix in place.
 * @param uplo  GALA_LOWER (A = L·Lᵀ) or GALA_UPPER (A = Uᵀ·U); only that triangle is read
 *              and written.
 * @param n     order (>= 0).
 * @param A     float or double buffer; the matrix is at A[a_off] with leading dimension lda.
 * @param lda   >= max(1, n).
 * @param info  receives 0, k > 0 (leading minor k not positive definite) or -k (NaN/Inf
 *              at column k); may be NULL.
 * @return GALA_OK; GALA_ERR_NOT_POSITIVE_DEFINITE or GALA_ERR_NOT_FINITE (see info);
 *         GALA_ERR_INVALID_ARG, ... (file comment). Waits for the device.
 */
GALA_API gala_status gala_potrf(struct gala_context *ctx, gala_uplo uplo, int n,
                                struct gala_buffer *A, size_t a_off, int lda, int *info);

/**
 * @brief Cholesky factorization of `batch` n×n matrices, matrix b at A[a_off + b·a_stride].
 * @param info  host array of `batch` ints (la.h), or NULL.
 * @return GALA_OK when every matrix was factored; otherwise GALA_ERR_NOT_FINITE if any met
 *         a NaN/Inf, else GALA_ERR_NOT_POSITIVE_DEFINITE, with gala_last_error() naming
 *         the first failing matrix and column. Waits for the device (reads one int when
 *         nothing failed, the info array otherwise).
 */
GALA_API gala_status gala_potrf_batched(struct gala_context *ctx, gala_uplo uplo, int n,
                                        struct gala_buffer *A, size_t a_off, int lda,
                                        size_t a_stride, int batch, int *info);

/**
 * @brief Cholesky factorization of `batch` matrices of orders n[b] at A[a_off[b]] with
 *        leading dimensions lda[b] (host arrays; all in the buffer A). One call, grouped by
 *        size internally; matrices of order 0 are skipped (info 0).
 * @return as gala_potrf_batched.
 */
GALA_API gala_status gala_potrf_vbatched(struct gala_context *ctx, gala_uplo uplo, const int *n,
                                         struct gala_buffer *A, const size_t *a_off,
                                         const int *lda, int batch, int *info);

/**
 * @brief gala_potrf_batched without waiting: the per-matrix info goes to the device buffer
 *        `info` (GALA_INT, `batch` elements at info_off) and the call returns once the work
 *        is queued. Numerical failures are therefore not part of the returned status (read
 *        info after gala_finish() or with gala_buffer_read()); argument errors are.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (also for an info buffer that is not GALA_INT, too
 *         small, or of another context); GALA_ERR_NOT_SUPPORTED; GALA_ERR_DEVICE_MEMORY;
 *         GALA_ERR_KERNEL_BUILD; GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_potrf_batched_async(struct gala_context *ctx, gala_uplo uplo, int n,
                                              struct gala_buffer *A, size_t a_off, int lda,
                                              size_t a_stride, int batch,
                                              struct gala_buffer *info, size_t info_off);

/**
 * @brief Solve A·X = B for one matrix from its Cholesky factor (as left by gala_potrf with
 *        the same uplo): B (n×nrhs at B[b_off], leading dimension ldb >= max(1, n)) is
 *        overwritten by X. Any nrhs >= 0. Does not wait for the device. The factor is not
 *        checked: a zero, NaN or Inf on its diagonal gives NaN or Inf in X, not a status.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (sizes, ranges, B overlapping A, mixed types);
 *         GALA_ERR_NOT_SUPPORTED; GALA_ERR_DEVICE_MEMORY; GALA_ERR_KERNEL_BUILD;
 *         GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_potrs(struct gala_context *ctx, gala_uplo uplo, int n, int nrhs,
                                const struct gala_buffer *A, size_t a_off, int lda,
                                struct gala_buffer *B, size_t b_off, int ldb);

/**
 * @brief gala_potrs for `batch` systems: factor b at A[a_off + b·a_stride] (a_stride may
 *        be 0: one factor for all), right-hand sides b at B[b_off + b·b_stride].
 * @return as gala_potrs.
 */
GALA_API gala_status gala_potrs_batched(struct gala_context *ctx, gala_uplo uplo, int n, int nrhs,
                                        const struct gala_buffer *A, size_t a_off, int lda,
                                        size_t a_stride, struct gala_buffer *B, size_t b_off,
                                        int ldb, size_t b_stride, int batch);

/**
 * @brief gala_potrs for `batch` systems of orders n[b] with nrhs[b] right-hand sides:
 *        factor b at A[a_off[b]] (lda[b]), right-hand sides at B[b_off[b]] (ldb[b]); host
 *        arrays. Systems with n[b] = 0 or nrhs[b] = 0 are skipped. The call uploads its
 *        matrix descriptors with a blocking write, which also waits for earlier work.
 * @return as gala_potrs.
 */
GALA_API gala_status gala_potrs_vbatched(struct gala_context *ctx, gala_uplo uplo, const int *n,
                                         const int *nrhs, const struct gala_buffer *A,
                                         const size_t *a_off, const int *lda,
                                         struct gala_buffer *B, const size_t *b_off,
                                         const int *ldb, int batch);

/**
 * @brief Inverse of one SPD matrix from its Cholesky factor (as left by gala_potrf with
 *        the same uplo): the uplo triangle of A⁻¹ overwrites the factor. Computed as
 *        W = L⁻¹ (gala_trtri) then A⁻¹ = Wᵀ·W in place. From order potri.blas3_min
 *        (default 256) on, where the backend has BLAS-3, Wᵀ·W goes through it in block
 *        rows of potri.blas3_nb (default 1024) with 2·n·potri.blas3_nb elements of device
 *        scratch, kept by the context.
 * @param info  receives trtri's info: k > 0 when the factor's diagonal entry k is zero,
 *              -k for a NaN/Inf in column k; may be NULL.
 * @return GALA_OK; GALA_ERR_SINGULAR or GALA_ERR_NOT_FINITE (see info); others as potrf.
 *         Waits for the device.
 */
GALA_API gala_status gala_potri(struct gala_context *ctx, gala_uplo uplo, int n,
                                struct gala_buffer *A, size_t a_off, int lda, int *info);

/** @brief gala_potri for a strided batch (la.h); info as gala_trtri_batched. */
GALA_API gala_status gala_potri_batched(struct gala_context *ctx, gala_uplo uplo, int n,
                                        struct gala_buffer *A, size_t a_off, int lda,
                                        size_t a_stride, int batch, int *info);

/** @brief gala_potri for a variable batch (la.h); info as gala_trtri_vbatched. */
GALA_API gala_status gala_potri_vbatched(struct gala_context *ctx, gala_uplo uplo, const int *n,
                                         struct gala_buffer *A, const size_t *a_off,
                                         const int *lda, int batch, int *info);

#ifdef __cplusplus
}
#endif

#endif /* GALA_POTRF_H */
