/* gala_gemv_batched: y_b = alpha·op(A_b)·x_b + beta·y_b (kernels gemv.cl:gemv_n, gemv_t). */
#include "blas_common.h"

gala_status gala_gemv_batched(gala_context *ctx, gala_trans trans, int m, int n, double alpha,
                              const gala_buffer *A, size_t a_off, int lda, size_t a_stride,
                              const gala_buffer *x, size_t x_off, size_t x_stride, double beta,
                              gala_buffer *y, size_t y_off, size_t y_stride, int batch)
{
    static const char fn[] = "gala_gemv_batched";
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (trans != GALA_NO_TRANS && trans != GALA_TRANS)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: trans = %d is not GALA_NO_TRANS or "
                          "GALA_TRANS", fn, (int)trans);
    if (m < 0 || n < 0 || batch < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: negative size (m = %d, n = %d, batch = %d)",
                          fn, m, n, batch);
    if (lda < (m > 1 ? m : 1))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: lda = %d < max(1, m = %d)", fn, lda, m);
    const int xlen = trans == GALA_NO_TRANS ? n : m, ylen = trans == GALA_NO_TRANS ? m : n;
    int ovf = 0;
    size_t a_ext = gala_span(gala_mat_extent((size_t)m, (size_t)n, (size_t)lda, &ovf), a_stride,
                             (size_t)batch, &ovf);
    size_t x_ext = gala_span((size_t)xlen, x_stride, (size_t)batch, &ovf);
    size_t y_ext = gala_span((size_t)ylen, y_stride, (size_t)batch, &ovf);
    if (ovf) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: sizes overflow", fn);
    GALA_TRY(gala_check_buf(ctx, fn, "A", A, 0, a_off, a_ext));
    gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    GALA_TRY(gala_check_buf(ctx, fn, "x", x, dt, x_off, x_ext));
    GALA_TRY(gala_check_buf(ctx, fn, "y", y, dt, y_off, y_ext));
    if (batch > 1 && ylen > 0 && y_stride < (size_t)ylen)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: y_stride < length of y: items overlap", fn);
    if (gala_ranges_overlap(y, y_off, y_ext, A, a_off, a_ext) ||
        gala_ranges_overlap(y, y_off, y_ext, x, x_off, x_ext))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: y overlaps A or x", fn);
    if (batch == 0 || ylen == 0) return GALA_OK;

    gala_program_key key;
    gala_kernel *k;
    int wg = (int)gala_tuned(ctx, dt)->gemv.wg;
    if ((size_t)wg > ctx->info.max_work_group_size) wg = (int)ctx->info.max_work_group_size;
    gala_key_init(&key, "gemv", dt);
    gala_key_def(&key, "WG", wg);
    if (trans == GALA_NO_TRANS) {
        int local = (int)gala_tuned(ctx, dt)->gemv.n_local;
        int want = gala_pow2_at_least(m < 32 ? 32 : m, local);
        local = want < local ? want : local;
        if ((size_t)local > ctx->info.max_work_group_size) local = (int)ctx->info.max_work_group_size;
        int row_groups = (m + local - 1) / local;
        GALA_TRY(gala_kernel_get(ctx, &key, "gemv_n", &k));
        gala_dims d = gala_dims_1d((size_t)batch * (size_t)row_groups * (size_t)local, (size_t)local);
        return gemv_launch_n(ctx, k, &d, m, n, row_groups, alpha, A, (long long)a_off, lda,
                             (long long)a_stride, x, (long long)x_off, (long long)x_stride, beta, y,
                             (long long)y_off, (long long)y_stride);
    }
    int S = gala_pow2_at_least(m, wg);
    int per_group = wg / S, col_groups = (n + per_group - 1) / per_group;
    GALA_TRY(gala_kernel_get(ctx, &key, "gemv_t", &k));
    gala_dims d = gala_dims_1d((size_t)batch * (size_t)col_groups * (size_t)wg, (size_t)wg);
    return gemv_launch_t(ctx, k, &d, m, n, S, col_groups, alpha, A, (long long)a_off, lda,
                         (long long)a_stride, x, (long long)x_off, (long long)x_stride, beta, y,
                         (long long)y_off, (long long)y_stride);
}
