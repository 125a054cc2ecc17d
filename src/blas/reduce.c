/* gala_norm_inf_batched and gala_dot_batched: per-item reductions (kernels vec.cl:norm_inf,
 * vec.cl:dot), one segment of S lanes per item (see vec.cl). */
#include "blas_common.h"

static gala_status reduce(gala_context *ctx, const char *fn, const char *kname, int n,
                          const gala_vec_arg *v, int nv, gala_buffer *res, size_t r_off, int batch)
{
    gala_dtype dt;
    GALA_TRY(gala_vec_check(ctx, fn, n, batch, v, nv, -1, &dt));
    GALA_TRY(gala_check_buf(ctx, fn, "res", res, dt, r_off, (size_t)batch));
    for (int i = 0; i < nv; ++i) {
        int ovf = 0;
        size_t ext = gala_span((size_t)n, v[i].stride, (size_t)batch, &ovf);
        if (gala_ranges_overlap(v[i].buf, v[i].off, ext, res, r_off, (size_t)batch))
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: res overlaps %s", fn, v[i].name);
    }
    if (batch == 0) return GALA_OK;
    int wg = (int)gala_tuned(ctx, dt)->vec.wg;
    if ((size_t)wg > ctx->info.max_work_group_size) wg = (int)ctx->info.max_work_group_size;
    wg = gala_pow2_at_least(wg, wg) == wg ? wg : 64;
    int S = gala_pow2_at_least(n, wg);
    size_t per_group = (size_t)(wg / S), groups = ((size_t)batch + per_group - 1) / per_group;
    gala_program_key key;
    gala_kernel *k;
    gala_key_init(&key, "vec", dt);
    gala_key_def(&key, "WG", wg);
    GALA_TRY(gala_kernel_get(ctx, &key, kname, &k));
    gala_dims d = gala_dims_1d(groups * (size_t)wg, (size_t)wg);
    if (nv == 1)
        return vec_launch_norm_inf(ctx, k, &d, n, batch, S, v[0].buf, (long long)v[0].off,
                                   (long long)v[0].stride, res, (long long)r_off);
    return vec_launch_dot_prod(ctx, k, &d, n, batch, S, v[0].buf, (long long)v[0].off,
                               (long long)v[0].stride, v[1].buf, (long long)v[1].off,
                               (long long)v[1].stride, res, (long long)r_off);
}

gala_status gala_norm_inf_batched(gala_context *ctx, int n, const gala_buffer *x, size_t x_off,
                                  size_t x_stride, gala_buffer *res, size_t r_off, int batch)
{
    gala_vec_arg v[1] = {{"x", x, x_off, x_stride}};
    return reduce(ctx, "gala_norm_inf_batched", "norm_inf", n, v, 1, res, r_off, batch);
}

gala_status gala_dot_batched(gala_context *ctx, int n, const gala_buffer *x, size_t x_off,
                             size_t x_stride, const gala_buffer *y, size_t y_off, size_t y_stride,
                             gala_buffer *res, size_t r_off, int batch)
{
    gala_vec_arg v[2] = {{"x", x, x_off, x_stride}, {"y", y, y_off, y_stride}};
    return reduce(ctx, "gala_dot_batched", "dot_prod", n, v, 2, res, r_off, batch);
}
