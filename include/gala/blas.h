/**
 * @file blas.h
 * @brief Batched vector operations and batched dense matrix-vector products.
 *
 * Every routine works on a strided batch: item b (0 <= b < batch) of a vector argument x
 * starts at element x_off + b·x_stride of buffer x; item b of a matrix argument A starts at
 * a_off + b·a_stride, column-major with leading dimension lda. All buffers of one call must
 * belong to the same context and have the same floating-point type (float or double), which
 * is the precision of the computation; per-item results (dot, norms) go to a buffer of that
 * same type. All routines are asynchronous: they return once the work is queued.
 *
 * Sizes are int (negative values are rejected); offsets and strides are size_t. A size of 0
 * or a batch of 0 is valid and does nothing (reductions then write 0 for each item).
 *
 * Errors common to all routines: GALA_ERR_INVALID_ARG (NULL context or buffer, buffers of
 * another context, mixed or non-floating types, negative sizes, lda < rows, a range that
 * does not fit in its buffer, an output overlapping an input where not allowed);
 * GALA_ERR_NOT_SUPPORTED (double on a device without fp64); GALA_ERR_KERNEL_BUILD;
 * GALA_ERR_DEVICE.
 */
#ifndef GALA_BLAS_H
#define GALA_BLAS_H

#include "gala/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gala_context;
struct gala_buffer;

/**
 * @brief y_b = alpha·x_b + beta·y_b for every item b, each of length n.
 * With beta = 0, y is not read (NaN in y does not propagate). x and y may be the same
 * buffer only with identical offset and stride (y_b = (alpha + beta)·y_b).
 */
GALA_API gala_status gala_axpby_batched(struct gala_context *ctx, int n, double alpha,
                                        const struct gala_buffer *x, size_t x_off, size_t x_stride,
                                        double beta, struct gala_buffer *y, size_t y_off,
                                        size_t y_stride, int batch);

/**
 * @brief Element-wise product z_b = x_b ∘ y_b (z may alias x or y exactly).
 */
GALA_API gala_status gala_ew_mul_batched(struct gala_context *ctx, int n,
                                         const struct gala_buffer *x, size_t x_off, size_t x_stride,
                                         const struct gala_buffer *y, size_t y_off, size_t y_stride,
                                         struct gala_buffer *z, size_t z_off, size_t z_stride,
                                         int batch);

/**
 * @brief Projection onto a box: y_b = min(max(x_b, l_b), u_b), element-wise
 * (y may alias x exactly). Bounds may be ±Inf. Where l > u the result is u.
 */
GALA_API gala_status gala_clamp_batched(struct gala_context *ctx, int n,
                                        const struct gala_buffer *x, size_t x_off, size_t x_stride,
                                        const struct gala_buffer *l, size_t l_off, size_t l_stride,
                                        const struct gala_buffer *u, size_t u_off, size_t u_stride,
                                        struct gala_buffer *y, size_t y_off, size_t y_stride,
                                        int batch);

/**
 * @brief Infinity norm per item: res[r_off + b] = max_i |x_b[i]| (0 for n = 0).
 * A NaN anywhere in x_b gives NaN for that item.
 */
GALA_API gala_status gala_norm_inf_batched(struct gala_context *ctx, int n,
                                           const struct gala_buffer *x, size_t x_off,
                                           size_t x_stride, struct gala_buffer *res, size_t r_off,
                                           int batch);

/**
 * @brief Dot product per item: res[r_off + b] = Σ_i x_b[i]·y_b[i] (0 for n = 0).
 */
GALA_API gala_status gala_dot_batched(struct gala_context *ctx, int n,
                                      const struct gala_buffer *x, size_t x_off, size_t x_stride,
                                      const struct gala_buffer *y, size_t y_off, size_t y_stride,
                                      struct gala_buffer *res, size_t r_off, int batch);

/**
 * @brief Batched dense matrix-vector product y_b = alpha·op(A_b)·x_b + beta·y_b.
 * @param trans GALA_NO_TRANS: op(A) = A (m×n), x has n and y has m elements;
 *              GALA_TRANS: op(A) = Aᵀ, x has m and y has n elements.
 * @param m, n  rows and columns of every A_b.
 * @param lda   leading dimension, >= max(1, m).
 * With beta = 0, y is not read. y must not overlap A or x.
 */
GALA_API gala_status gala_gemv_batched(struct gala_context *ctx, gala_trans trans, int m, int n,
                                       double alpha, const struct gala_buffer *A, size_t a_off,
                                       int lda, size_t a_stride, const struct gala_buffer *x,
                                       size_t x_off, size_t x_stride, double beta,
                                       struct gala_buffer *y, size_t y_off, size_t y_stride,
                                       int batch);

#ifdef __cplusplus
}
#endif

#endif /* GALA_BLAS_H */
