/* gala_clamp_batched: y_b = min(max(x_b, l_b), u_b) (kernel vec.cl:clamp_box). */
#include "blas_common.h"

gala_status gala_clamp_batched(gala_context *ctx, int n, const gala_buffer *x, size_t x_off,
                               size_t x_stride, const gala_buffer *l, size_t l_off, size_t l_stride,
                               const gala_buffer *u, size_t u_off, size_t u_stride, gala_buffer *y,
                               size_t y_off, size_t y_stride, int batch)
{
    static const char fn[] = "gala_clamp_batched";
    gala_vec_arg v[4] = {{"x", x, x_off, x_stride}, {"l", l, l_off, l_stride},
                         {"u", u, u_off, u_stride}, {"y", y, y_off, y_stride}};
    gala_dtype dt;
    GALA_TRY(gala_vec_check(ctx, fn, n, batch, v, 4, 3, &dt));
    long long total = (long long)n * batch;
    if (total == 0) return GALA_OK;
    gala_program_key key;
    gala_kernel *k;
    gala_key_init(&key, "vec", dt);
    gala_key_def(&key, "WG", gala_tuned(ctx, dt)->vec.wg);
    GALA_TRY(gala_kernel_get(ctx, &key, "clamp_box", &k));
    gala_dims d = gala_vec_dims(ctx, total);
    return vec_launch_clamp_box(ctx, k, &d, n, total, x, (long long)x_off, (long long)x_stride, l,
                                (long long)l_off, (long long)l_stride, u, (long long)u_off,
                                (long long)u_stride, y, (long long)y_off, (long long)y_stride);
}
