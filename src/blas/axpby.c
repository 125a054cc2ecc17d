/* gala_axpby_batched: y_b = alpha·x_b + beta·y_b (kernel vec.cl:axpby). */
#include "blas_common.h"

gala_status gala_axpby_batched(gala_context *ctx, int n, double alpha, const gala_buffer *x,
                               size_t x_off, size_t x_stride, double beta, gala_buffer *y,
                               size_t y_off, size_t y_stride, int batch)
{
    static const char fn[] = "gala_axpby_batched";
    gala_vec_arg v[2] = {{"x", x, x_off, x_stride}, {"y", y, y_off, y_stride}};
    gala_dtype dt;
    GALA_TRY(gala_vec_check(ctx, fn, n, batch, v, 2, 1, &dt));
    long long total = (long long)n * batch;
    if (total == 0) return GALA_OK;
    gala_program_key key;
    gala_kernel *k;
    gala_key_init(&key, "vec", dt);
    gala_key_def(&key, "WG", gala_tuned(ctx, dt)->vec.wg);
    GALA_TRY(gala_kernel_get(ctx, &key, "axpby", &k));
    gala_dims d = gala_vec_dims(ctx, total);
    return vec_launch_axpby(ctx, k, &d, n, total, alpha, x, (long long)x_off, (long long)x_stride,
                            beta, y, (long long)y_off, (long long)y_stride);
}
