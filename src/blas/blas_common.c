#include "blas_common.h"

int gala_pow2_at_least(long long n, int cap)
{
    int p = 1;
    while (p < n && p < cap) p <<= 1;
    return p;
}

gala_status gala_vec_check(gala_context *ctx, const char *fn, int n, int batch,
                           const gala_vec_arg *v, int nv, int out, gala_dtype *dtype)
{
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (n < 0) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: n = %d is negative", fn, n);
    if (batch < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: batch = %d is negative", fn, batch);
    for (int i = 0; i < nv; ++i) {
        int ovf = 0;
        size_t ext = gala_span((size_t)n, v[i].stride, (size_t)batch, &ovf);
        GALA_TRY(gala_check_buf(ctx, fn, v[i].name, v[i].buf, 0, v[i].off, ovf ? SIZE_MAX : ext));
        if (v[i].buf->dtype != v[0].buf->dtype)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: %s is %s but %s is %s", fn,
                              v[i].name, gala_dtype_name(v[i].buf->dtype), v[0].name,
                              gala_dtype_name(v[0].buf->dtype));
        if (batch > 1 && n > 0 && v[i].stride < (size_t)n && i == out)
            return gala_error(ctx, GALA_ERR_INVALID_ARG,
                              "%s: stride of output %s (%zu) is smaller than n (%d): items overlap",
                              fn, v[i].name, v[i].stride, n);
    }
    if (out >= 0) {
        int ovf = 0;
        size_t oext = gala_span((size_t)n, v[out].stride, (size_t)batch, &ovf);
        for (int i = 0; i < nv; ++i) {
            if (i == out || v[i].buf != v[out].buf) continue;
            if (v[i].off == v[out].off && v[i].stride == v[out].stride) continue; /* exact alias */
            size_t ext = gala_span((size_t)n, v[i].stride, (size_t)batch, &ovf);
            if (gala_ranges_overlap(v[i].buf, v[i].off, ext, v[out].buf, v[out].off, oext))
                return gala_error(ctx, GALA_ERR_INVALID_ARG,
                                  "%s: output %s overlaps input %s without aliasing it exactly",
                                  fn, v[out].name, v[i].name);
        }
    }
    *dtype = v[0].buf->dtype;
    return gala_check_float_type(ctx, fn, *dtype);
}

gala_dims gala_vec_dims(const gala_context *ctx, long long total)
{
    const size_t local = 256;
    size_t groups = (size_t)((total + (long long)local - 1) / (long long)local);
    size_t cap = (size_t)gala_tuned(ctx, 0)->vec.max_groups;
    if (groups > cap) groups = cap;
    if (groups == 0) groups = 1;
    return gala_dims_1d(groups * local, local);
}
