/*
 * gala's own GEMM kernel (cl/gemm_tc.cl) behind gala_gemm and gala_syrk, where the tuning
 * data asks for it instead of the backend's BLAS (blas3.tc; docs/cholesky.md, "gala's own
 * GEMM"). NVIDIA's OpenCL has no library that uses the FP64 tensor cores; this kernel
 * reaches them through inline PTX (blas3.tc = 2), or runs the same tiles with plain
 * multiply-adds on any OpenCL or CUDA device (blas3.tc = 1, for tests).
 *
 * Tuning values: blas3.tc (0 off, 1 plain, 2 tensor cores in double, plain in float; the
 * host backend's version of the kernel is plain loops), blas3.tc_wm / tc_wn (8×8 tiles per
 * warp), tc_wgm / tc_wgn (warps per group), tc_kt (depth of a local-memory step). Tiles that
 * do not fit the device (work-group, local memory) leave the product to the library.
 */
#include "blas3.h"
#include "kernel.h"

static int clamp_pow2(long v, int lo, int hi)
{
    int p = lo;
    while (p < hi && p * 2 <= v) p *= 2;
    return p;
}

/* The kernel's tiles from the tuning data. */
typedef struct tc_cfg {
    int wm, wn, wgm, wgn, kt, tm, tn, nth;
} tc_cfg;

static void tc_config(gala_context *ctx, gala_dtype dt, tc_cfg *c)
{
    c->wm = clamp_pow2(gala_tune(ctx, "blas3.tc_wm", dt, 4), 1, 8);
    c->wn = clamp_pow2(gala_tune(ctx, "blas3.tc_wn", dt, 4), 1, 8);
    c->wgm = clamp_pow2(gala_tune(ctx, "blas3.tc_wgm", dt, 2), 1, 8);
    c->wgn = clamp_pow2(gala_tune(ctx, "blas3.tc_wgn", dt, 2), 1, 8);
    c->kt = clamp_pow2(gala_tune(ctx, "blas3.tc_kt", dt, 8), 4, 64);
    c->tm = 8 * c->wm * c->wgm;
    c->tn = 8 * c->wn * c->wgn;
    c->nth = 32 * c->wgm * c->wgn;
}

/* Whether the tiles can run on this device for an m×n product: the work-group within the
 * device's limit, two local buffers of kt × (tile + 4) for X and Y within the 48 KiB that
 * CUDA's static shared memory (and NVIDIA's OpenCL) allow, the launch within 2³¹ items. */
static int tc_fits(const gala_context *ctx, gala_dtype dt, const tc_cfg *c, int m, int n)
{
    if (ctx->ops->backend != GALA_BACKEND_HOST && (size_t)c->nth > ctx->info.max_work_group_size)
        return 0;
    if (2 * (size_t)c->kt * (size_t)(c->tm + 4 + c->tn + 4) * gala_dtype_size(dt) > 48 * 1024)
        return 0;
    const long long tiles = (long long)((m + c->tm - 1) / c->tm) * ((n + c->tn - 1) / c->tn);
    return tiles <= 0x7fffffffLL / c->nth;
}

int gala_tc_mode(gala_context *ctx, gala_dtype dt, int m, int n)
{
    const long v = gala_tune(ctx, "blas3.tc", dt, 0);
    if (v <= 0) return 0;
    tc_cfg c;
    tc_config(ctx, dt, &c);
    if (!tc_fits(ctx, dt, &c, m, n)) return 0;
    return v >= 2 && dt == GALA_DOUBLE ? 2 : 1;
}

gala_status gala_tc_product(gala_context *ctx, gala_dtype dt, int mode, int tri, int m, int n,
                            int k, double alpha, const gala_buffer *A, size_t xo, size_t xi,
                            size_t xp, const gala_buffer *B, size_t yo, size_t yi, size_t yp,
                            double beta, gala_buffer *C, size_t co, int ldc)
{
    tc_cfg c;
    tc_config(ctx, dt, &c);
    const long long tiles_m = (m + c.tm - 1) / c.tm, tiles_n = (n + c.tn - 1) / c.tn;
    gala_program_key key;
    gala_key_init(&key, "gemm_tc", dt);
    gala_key_def(&key, "WM", c.wm);
    gala_key_def(&key, "WN", c.wn);
    gala_key_def(&key, "WGM", c.wgm);
    gala_key_def(&key, "WGN", c.wgn);
    gala_key_def(&key, "KT", c.kt);
    gala_key_def(&key, "TC", mode == 2);
    gala_kernel *kern = NULL;
    GALA_TRY(gala_kernel_get(ctx, &key, "gemm_tc", &kern));
    const size_t nth = (size_t)c.nth;
    const gala_dims dims = gala_dims_1d((size_t)(tiles_m * tiles_n) * nth, nth);
    return GALA_LAUNCH(ctx, kern, &dims, ga_int(m), ga_int(n), ga_int(k), ga_real(alpha),
                       ga_real(beta), ga_buf(A), ga_long((long long)xo), ga_long((long long)xi),
                       ga_long((long long)xp), ga_buf(B), ga_long((long long)yo),
                       ga_long((long long)yi), ga_long((long long)yp), ga_buf(C),
                       ga_long((long long)co), ga_int(ldc), ga_int((int)tiles_m), ga_int(tri));
}
