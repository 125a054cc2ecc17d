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
 * The batched updates of src/la (la_gemm_upd) use the same kernel under lagemm.tc and
 * lagemm.tc_* for strided batches.
 */
#include <stdio.h>
#include <string.h>

#include "blas3.h"
#include "kernel.h"

GALA_LAUNCHER(gemm_tc_launch, GEMM_TC_ARGS_gemm_tc)

static int clamp_pow2(long v, int lo, int hi)
{
    int p = lo;
    while (p < hi && p * 2 <= v) p *= 2;
    return p;
}

/* The kernel's tuning values under pfx ("blas3" or "lagemm"): tc, tc_wm, tc_wn, tc_wgm,
 * tc_wgn, tc_kt. */
static void tc_values(gala_context *ctx, const char *pfx, gala_dtype dt, long v[6])
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    if (strcmp(pfx, "lagemm") == 0) {
        const gala_tune_lagemm *t = &T->lagemm;
        const long x[6] = {t->tc, t->tc_wm, t->tc_wn, t->tc_wgm, t->tc_wgn, t->tc_kt};
        memcpy(v, x, sizeof x);
    } else {
        const gala_tune_blas3 *t = &T->blas3;
        const long x[6] = {t->tc, t->tc_wm, t->tc_wn, t->tc_wgm, t->tc_wgn, t->tc_kt};
        memcpy(v, x, sizeof x);
    }
}

/* The kernel's tiles from its tuning values. */
static void tc_config(const long v[6], gala_tc_tiles *c)
{
    c->wm = clamp_pow2(v[1], 1, 8);
    c->wn = clamp_pow2(v[2], 1, 8);
    c->wgm = clamp_pow2(v[3], 1, 8);
    c->wgn = clamp_pow2(v[4], 1, 8);
    c->kt = clamp_pow2(v[5], 4, 64);
    c->tm = 8 * c->wm * c->wgm;
    c->tn = 8 * c->wn * c->wgn;
    c->nth = 32 * c->wgm * c->wgn;
}

/* Whether the tiles can run on this device for an m×n product: the work-group within the
 * device's limit, two local buffers of kt × (tile + 4) for X and Y within the 48 KiB that
 * CUDA's static shared memory (and NVIDIA's OpenCL) allow, one matrix's launch within 2³¹
 * items. */
static int tc_fits(const gala_context *ctx, gala_dtype dt, const gala_tc_tiles *c, int m, int n)
{
    if (ctx->info.backend != GALA_BACKEND_HOST && (size_t)c->nth > ctx->info.max_work_group_size)
        return 0;
    if (2 * (size_t)c->kt * (size_t)(c->tm + 4 + c->tn + 4) * gala_dtype_size(dt) > 48 * 1024)
        return 0;
    const long long tiles = (long long)((m + c->tm - 1) / c->tm) * ((n + c->tn - 1) / c->tn);
    return tiles <= 0x7fffffffLL / c->nth;
}

int gala_tc_mode(gala_context *ctx, const char *pfx, gala_dtype dt, int m, int n,
                 gala_tc_tiles *tiles)
{
    long tv[6];
    tc_values(ctx, pfx, dt, tv);
    const long v = tv[0];
    if (v <= 0) return 0;
    tc_config(tv, tiles);
    if (!tc_fits(ctx, dt, tiles, m, n)) return 0;
    /* the mma instruction exists on NVIDIA's devices only (sm_80 and later: the tuning rows
     * name them); elsewhere the same tiles with multiply-adds */
    const int nv = ctx->info.backend == GALA_BACKEND_CUDA ||
                   (ctx->info.backend == GALA_BACKEND_OPENCL &&
                    strstr(ctx->info.vendor_name, "NVIDIA") != NULL);
    return v >= 2 && dt == GALA_DOUBLE && nv ? 2 : 1;
}

gala_status gala_tc_run(gala_context *ctx, gala_dtype dt, int mode, const gala_tc_tiles *t,
                        const gala_tc_call *a)
{
    if (a->count <= 0 || a->m <= 0 || a->n <= 0) return GALA_OK;
    const gala_tc_tiles c = *t;
    const long long tiles_m = (a->m + c.tm - 1) / c.tm, tiles_n = (a->n + c.tn - 1) / c.tn;
    const long long tiles = tiles_m * tiles_n;
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
    /* matrices per launch: within 2³¹ work-items (tc_fits: one matrix always fits) */
    int per = (int)(0x7fffffffLL / (tiles * c.nth));
    if (per < 1) per = 1;
    const gala_buffer *info = a->info ? a->info : a->c.buf;
    for (int s0 = 0; s0 < a->count; s0 += per) {
        const int cnt = a->count - s0 < per ? a->count - s0 : per;
        const size_t d = (size_t)s0;
        const gala_dims dims = gala_dims_1d((size_t)cnt * (size_t)tiles * nth, nth);
        GALA_TRY(gemm_tc_launch(ctx, kern, &dims, a->m, a->n, a->k, a->alpha, a->beta, a->x.buf,
                                (long long)(a->x.o + d * a->x.ss), (long long)a->x.si,
                                (long long)a->x.sp, (long long)a->x.ss, a->y.buf,
                                (long long)(a->y.o + d * a->y.ss), (long long)a->y.si,
                                (long long)a->y.sp, (long long)a->y.ss, a->c.buf,
                                (long long)(a->c.o + d * a->c.ss), (long long)a->c.si,
                                (long long)a->c.sp, (long long)a->c.ss, (int)tiles_m, (int)tiles,
                                a->tri, info, (long long)(a->io + d), a->skipdead));
    }
    return GALA_OK;
}
