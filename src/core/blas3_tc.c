/*
 * gala's own GEMM kernel (cl/gemm_tc.cl) behind gala_gemm and gala_syrk, where the tuning
 * data asks for it instead of the backend's BLAS (blas3.tc; docs/cholesky.md, "gala's own
 * GEMM"). NVIDIA's OpenCL has no library that uses the FP64 tensor cores; this kernel
 * reaches them through inline PTX (blas3.tc = 2), or runs the same tiles with plain
 * multiply-adds on any OpenCL or CUDA device (blas3.tc = 1, for tests).
 *
 * Tuning values: blas3.tc (0 off, 1 plain, 2 tensor cores in double, plain in float; the
 * host backend's version of the kernel is plain loops), blas3.tc_wm / tc_wn (8×8 tiles per
 * warp), tc_wgm / tc_wgn (warps per group), tc_kt (depth of a local-memory step).
 */
#include "blas3.h"
#include "kernel.h"

int gala_tc_mode(gala_context *ctx, gala_dtype dt)
{
    const long v = gala_tune(ctx, "blas3.tc", dt, 0);
    if (v <= 0) return 0;
    return v >= 2 && dt == GALA_DOUBLE ? 2 : 1;
}

static int clamp_pow2(long v, int lo, int hi)
{
    int p = lo;
    while (p < hi && p * 2 <= v) p *= 2;
    return p;
}

gala_status gala_tc_product(gala_context *ctx, gala_dtype dt, int tri, int m, int n, int k,
                            double alpha, const gala_buffer *A, size_t xo, size_t xi, size_t xp,
                            const gala_buffer *B, size_t yo, size_t yi, size_t yp, double beta,
                            gala_buffer *C, size_t co, int ldc)
{
    const int wm = clamp_pow2(gala_tune(ctx, "blas3.tc_wm", dt, 4), 1, 8);
    const int wn = clamp_pow2(gala_tune(ctx, "blas3.tc_wn", dt, 4), 1, 8);
    const int wgm = clamp_pow2(gala_tune(ctx, "blas3.tc_wgm", dt, 2), 1, 8);
    const int wgn = clamp_pow2(gala_tune(ctx, "blas3.tc_wgn", dt, 2), 1, 8);
    const int kt = clamp_pow2(gala_tune(ctx, "blas3.tc_kt", dt, 8), 4, 64);
    const int tm = 8 * wm * wgm, tn = 8 * wn * wgn, nth = 32 * wgm * wgn;
    if (nth > (int)ctx->info.max_work_group_size && ctx->ops->backend != GALA_BACKEND_HOST)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "gemm_tc: %d warps per group", wgm * wgn);
    /* two local buffers of kt × (tile + 4) for X and Y: within the 48 KiB that CUDA's static
     * shared memory (and NVIDIA's OpenCL) allow */
    const size_t lbytes = 2 * (size_t)kt * (size_t)(tm + 4 + tn + 4) * gala_dtype_size(dt);
    if (lbytes > 48 * 1024)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "gemm_tc: tiles %d×%d with steps of %d need "
                          "%zu bytes of local memory (at most 49152)", tm, tn, kt, lbytes);
    const long long tiles_m = (m + tm - 1) / tm, tiles_n = (n + tn - 1) / tn;
    if (tiles_m * tiles_n > 0x7fffffffLL / nth)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "gemm_tc: %d×%d is too many tiles", m, n);
    gala_program_key key;
    gala_key_init(&key, "gemm_tc", dt);
    gala_key_def(&key, "WM", wm);
    gala_key_def(&key, "WN", wn);
    gala_key_def(&key, "WGM", wgm);
    gala_key_def(&key, "WGN", wgn);
    gala_key_def(&key, "KT", kt);
    gala_key_def(&key, "TC", gala_tc_mode(ctx, dt) == 2);
    gala_kernel *kern = NULL;
    GALA_TRY(gala_kernel_get(ctx, &key, "gemm_tc", &kern));
    const gala_dims dims = gala_dims_1d((size_t)(tiles_m * tiles_n) * (size_t)nth, (size_t)nth);
    return GALA_LAUNCH(ctx, kern, &dims, ga_int(m), ga_int(n), ga_int(k), ga_real(alpha),
                       ga_real(beta), ga_buf(A), ga_long((long long)xo), ga_long((long long)xi),
                       ga_long((long long)xp), ga_buf(B), ga_long((long long)yo),
                       ga_long((long long)yi), ga_long((long long)yp), ga_buf(C),
                       ga_long((long long)co), ga_int(ldc), ga_int((int)tiles_m), ga_int(tri));
}
