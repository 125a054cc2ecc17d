/* gala_ew_mul_batched: z_b = x_b ∘ y_b (kernel vec.cl:ew_mul). */
#include "blas_common.h"

gala_status gala_ew_mul_batched(gala_context *ctx, int n, const gala_buffer *x, size_t x_off,
                                size_t x_stride, const gala_buffer *y, size_t y_off,
                                size_t y_stride, gala_buffer *z, size_t z_off, size_t z_stride,
                                int batch)
{
    static const char fn[] = "gala_ew_mul_batched";
    gala_vec_arg v[3] = {{"x", x, x_off, x_stride}, {"y", y, y_off, y_stride},
                         {"z", z, z_off, z_stride}};
    gala_dtype dt;
    GALA_TRY(gala_vec_check(ctx, fn, n, batch, v, 3, 2, &dt));
    long long total = (long long)n * batch;
    if (total == 0) return GALA_OK;
    gala_program_key key;
    gala_kernel *k;
    gala_key_init(&key, "vec", dt);
    gala_key_def(&key, "WG", gala_tuned(ctx, dt)->vec.wg);
    GALA_TRY(gala_kernel_get(ctx, &key, "ew_mul", &k));
    gala_dims d = gala_vec_dims(ctx, total);
    return vec_launch_ew_mul(ctx, k, &d, n, total, x, (long long)x_off, (long long)x_stride, y,
                             (long long)y_off, (long long)y_stride, z, (long long)z_off,
                             (long long)z_stride);
}
