/*
 * Solves with a Cholesky factor: gala_potrs, gala_potrs_batched, gala_potrs_vbatched.
 * A·X = B with A = L·Lᵀ (or Uᵀ·U): forward solve with L, then backward with Lᵀ.
 *
 *   n <= potrs.fused_max   one launch of potrs_fused (both passes; any nrhs, RC columns per
 *                          pass, column groups spread over work-groups).
 *   larger n               blocked: for each diagonal block of width potrs.nb, the block
 *                          solve (potrs_fused, one pass) and a gemm_upd of the rows below
 *                          (forward) or of the block from the rows below (backward).
 *   one matrix, n >= potrf.blas3_min and nrhs >= potrs.blas3_nrhs (or below
 *   potrs.sweep_rhs_min), backend with BLAS-3:
 *                          two TRSM calls.
 *   other single matrices of order >= potrs.sweep_min:
 *                          ps_sweep: the diagonal blocks inverted by trtri, then one
 *                          potrs_sweep launch per block and pass (cl/potrs.cl).
 * Variable batches: buckets / sorted run as in potrf.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/blas3.h"
#include "la_common.h"
#include "../../cl/potrs_abi.h"

/* Typed launches of the potrs kernels, from their argument lists (cl/potrs_abi.h) */
GALA_LAUNCHER(potrs_launch_fused, POTRS_ARGS_fused)
GALA_LAUNCHER(potrs_launch_sweep, POTRS_ARGS_sweep)

typedef struct ps_cfg {
    int fused_max, min_bucket, nb, wg, rc, rpg, blas3_min, blas3_nrhs;
    int rl; /* potrs.rl: the blocked backward pass right-looking (1) or left-looking (0) */
    int sw_min;     /* potrs.sweep_min: single matrices of this order and more: ps_sweep */
    int sw_rhs_min; /* potrs.sweep_rhs_min: fewer right-hand sides go to TRSM where it exists */
} ps_cfg;

/* potrs_sweep's shape (potrs.sweep_nb / _wg / _rc / _tl): block order N, work-group WG,
 * right-hand sides per group RC, work-items per row TL of the row-wise products. */
typedef struct ps_shape {
    int nb, wg, rc, tl;
} ps_shape;

static int clampi(long v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : (int)v); }

/* maxrhs: the most right-hand sides of a matrix of the call; no work-item is given more
 * columns than that (RC = 4 with one right-hand side left three of every four idle). */
static void ps_config(const gala_context *ctx, gala_dtype dt, int maxrhs, ps_cfg *c)
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    c->nb = la_pow2(clampi(T->potrs.nb, 8, 64), 8);
    c->fused_max = clampi(T->potrs.fused_max, 0, 64);
    c->min_bucket = la_pow2(clampi(T->la.min_bucket, 1, 64), 1);
    c->wg = la_wg(ctx, T->potrs.wg, 8);
    c->rc = clampi(T->potrs.rc, 1, 16);
    if (maxrhs >= 1 && c->rc > maxrhs) c->rc = maxrhs;
    c->rpg = c->rc * clampi(T->potrs.chunks, 1, 1 << 20);
    c->blas3_min = clampi(T->potrf.blas3_min, 1, 1 << 30);
    c->blas3_nrhs = clampi(T->potrs.blas3_nrhs, 1, 1 << 30);
    c->rl = T->potrs.rl;
    c->sw_min = clampi(T->potrs.sweep_min, 0, 1 << 30);
    c->sw_rhs_min = clampi(T->potrs.sweep_rhs_min, 1, 1 << 30);
}

/* The sweep's shape for nrhs right-hand sides (cl/potrs.cl): N <= WG <= N·N, at most 64
 * elements of a block per work-item, WG/N <= TL <= N, RC <= nrhs, and its local memory
 * (v, r: N·RC each, partial sums: max(WG, N·TL)·RC) within the device's. Only for calls
 * that may take the sweep. Returns 0 when nothing fits (no sweep then). */
static int ps_sweep_shape(const gala_context *ctx, gala_dtype dt, int nrhs, ps_shape *h)
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    h->wg = la_wg(ctx, T->potrs.sweep_wg, 16);
    h->nb = la_pow2(clampi(T->potrs.sweep_nb, 16, 256), 16);
    h->tl = la_pow2(clampi(T->potrs.sweep_tl, 1, 32), 1);
    h->rc = clampi(T->potrs.sweep_rc, 1, 16);
    if (nrhs >= 1 && h->rc > nrhs) h->rc = nrhs;
    const size_t es = gala_dtype_size(dt);
    for (;;) {
        if (h->nb > h->wg) h->nb = h->wg;
        while (h->nb * h->nb < h->wg) h->wg /= 2;
        while (h->nb * h->nb / h->wg > 64) h->nb /= 2;
        if (h->tl > h->nb) h->tl = h->nb;
        if (h->tl < h->wg / h->nb) h->tl = h->wg / h->nb;
        const size_t part = (size_t)(h->wg > h->nb * h->tl ? h->wg : h->nb * h->tl);
        if ((2 * (size_t)h->nb + part) * (size_t)h->rc * es <= ctx->info.local_mem_bytes)
            return 1;
        if (h->rc > 1) h->rc /= 2;
        else if (h->wg > 16) h->wg /= 2;
        else return 0;
    }
}

/* potrs_fused on the first `count` matrices of s: block j0 of order <= N, `mode` passes
 * (POTRS_FWD, POTRS_BWD or both). */
static gala_status ps_fused(gala_context *ctx, gala_dtype dt, int up, const la_set *s, int count,
                            const ps_cfg *c, int N, int j0, int mode)
{
    if (count <= 0 || s->nrhs <= 0) return GALA_OK;
    const int wg = c->wg > N ? c->wg : N;
    gala_program_key key;
    gala_kernel *k;
    gala_key_init(&key, "potrs", dt);
    gala_key_def(&key, "N", N);
    gala_key_def(&key, "WG", wg);
    gala_key_def(&key, "RC", c->rc);
    gala_key_def(&key, "UNROLL", gala_tuned(ctx, dt)->la.unroll);
    GALA_TRY(gala_kernel_get(ctx, &key, "potrs_fused", &k));
    const int mpg = wg / N;
    const long long mgroups = ((long long)count + mpg - 1) / mpg;
    const long long rgroups = ((long long)s->nrhs + c->rpg - 1) / c->rpg;
    if (mgroups * rgroups > (1LL << 31) - 1)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "potrs: %lld work-groups are too many for one "
                          "launch (batch × right-hand sides too large)", mgroups * rgroups);
    gala_dims d = gala_dims_1d((size_t)(mgroups * rgroups) * (size_t)wg, (size_t)wg);
    return potrs_launch_fused(ctx, k, &d, s->n, s->nrhs, j0, count, s->nrhs, c->rpg, mode, s->A,
                              (long long)s->a_off, s->lda, (long long)s->a_stride, up, s->B,
                              (long long)s->b_off, s->ldb, (long long)s->b_stride, s->desc,
                              (long long)s->dofs, s->vb);
}

static gala_status ps_blocked(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                              const ps_cfg *c)
{
    const int N = c->nb, nmax = la_nmax(s);
    for (int j0 = 0; j0 < nmax; j0 += N) {
        GALA_TRY(ps_fused(ctx, dt, up, s, la_active(s, j0), c, N, j0, POTRS_FWD));
        const int j1 = j0 + N;
        if (j1 >= nmax) break;
        /* B[j1:n, :] −= L[j1:n, j0:j1] · Y[j0:j1, :] */
        la_dim m = {j1, LA_BIG, 0}, nn = {0, LA_BIG, 1}, kk = {j0, N, 0};
        la_op A = {0, j1, j0, 0}, B = {1, j0, 0, 1}, C = {1, j1, 0, 0};
        GALA_TRY(la_gemm_upd(ctx, dt, up, s, la_active(s, j1), m, nn, kk, nmax - j1, s->nrhs,
                             -1.0, 0, A, B, C, NULL, 0));
    }
    /* Backward. Left-looking, block j0 first takes the rows below it in one product,
     * X[j0:j1] −= L[j1:n, j0:j1]ᵀ·X[j1:n]: N rows of C and a reduction n − j1 deep, a single
     * tile per matrix that walks the whole depth (for one matrix of 16384, the step ran on one
     * work-group). Right-looking, each solved block updates the rows above it,
     * X[0:j0] −= L[j0:j1, 0:j0]ᵀ·X[j0:j1]: j0 rows of C, depth N, as wide as the forward
     * pass's updates; the same flops. */
    for (int j0 = (nmax - 1) / N * N; j0 >= 0; j0 -= N) {
        const int j1 = j0 + N;
        if (!c->rl && j1 < nmax) {
            /* X[j0:j1, :] −= L[j1:n, j0:j1]ᵀ · X[j1:n, :] */
            la_dim m = {j0, N, 0}, nn = {0, LA_BIG, 1}, kk = {j1, LA_BIG, 0};
            la_op A = {0, j1, j0, 1}, B = {1, j1, 0, 1}, C = {1, j0, 0, 0};
            GALA_TRY(la_gemm_upd(ctx, dt, up, s, la_active(s, j1), m, nn, kk, N, s->nrhs, -1.0, 0,
                                 A, B, C, NULL, 0));
        }
        GALA_TRY(ps_fused(ctx, dt, up, s, la_active(s, j0), c, N, j0, POTRS_BWD));
        if (c->rl && j0 > 0) {
            /* X[0:j0, :] −= L[j0:j1, 0:j0]ᵀ · X[j0:j1, :] */
            la_dim m = {0, j0, 0}, nn = {0, LA_BIG, 1}, kk = {j0, N, 0};
            la_op A = {0, j0, 0, 1}, B = {1, j0, 0, 1}, C = {1, 0, 0, 0};
            GALA_TRY(la_gemm_upd(ctx, dt, up, s, la_active(s, j0), m, nn, kk, j0, s->nrhs, -1.0, 0,
                                 A, B, C, NULL, 0));
        }
    }
    return GALA_OK;
}

/* One launch of potrs_sweep: `groups` blocks of output rows, step kb, mode md (POTRS_SW_*),
 * cg groups of right-hand sides. */
static gala_status ps_sweep_launch(gala_context *ctx, gala_kernel *k, const la_set *s, int up,
                                   gala_buffer *W, int wg, size_t cg, int groups, int kb, int md)
{
    gala_dims d = gala_dims_2d((size_t)groups * (size_t)wg, cg, (size_t)wg, 1);
    return potrs_launch_sweep(ctx, k, &d, s->n, s->nrhs, kb, md, s->A, (long long)s->a_off, s->lda,
                              up, W, 0, s->B, (long long)s->b_off, s->ldb);
}

/* One matrix (s->count == 1, strided) by potrs_sweep (cl/potrs.cl): the inverses of the
 * diagonal blocks of order N = potrs.sweep_nb into W (the LA_SCRATCH_PANEL slot; NaN first,
 * so a block trtri refuses, a zero or NaN on the diagonal, gives NaN results instead of
 * stale values), then one launch per block and pass, 2·ceil(n/N) − 1 in all, against about
 * four per block of ps_blocked with its narrower blocks. Every launch is a product, so
 * the passes are bound by launches and by reading L once each, not by chains of
 * dependent column steps. */
static gala_status ps_sweep(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                            const ps_shape *h)
{
    const int n = s->n, N = h->nb, nblk = (n + N - 1) / N, full = n / N, RC = h->rc;
    gala_buffer *W;
    GALA_TRY(gala_scratch(ctx, LA_SCRATCH_PANEL, dt, (size_t)nblk * (size_t)N * (size_t)N, &W));
    GALA_TRY(gala_buffer_fill(W, 0, (size_t)nblk * (size_t)N * (size_t)N, NAN));
    const size_t dstep = (size_t)N * ((size_t)s->lda + 1); /* diagonal block to the next */
    GALA_TRY(la_trtri_nowait(ctx, up, N, s->A, s->a_off, s->lda, dstep, W, 0, N, (size_t)N * N,
                             full));
    if (full < nblk)
        GALA_TRY(la_trtri_nowait(ctx, up, n - full * N, s->A, s->a_off + (size_t)full * dstep,
                                 s->lda, 0, W, (size_t)full * N * N, N, 0, 1));
    gala_program_key key;
    gala_kernel *k;
    gala_key_init(&key, "potrs", dt);
    gala_key_def(&key, "N", N);
    gala_key_def(&key, "WG", h->wg);
    gala_key_def(&key, "RC", RC);
    gala_key_def(&key, "TL", h->tl);
    gala_key_def(&key, "UNROLL", gala_tuned(ctx, dt)->la.unroll);
    gala_key_def(&key, "SWEEP", 1);
    GALA_TRY(gala_kernel_get(ctx, &key, "potrs_sweep", &k));
    const size_t cg = ((size_t)s->nrhs + (size_t)RC - 1) / (size_t)RC; /* <= 65535: ps_run */
    const int inv = POTRS_SW_INV, invt = POTRS_SW_INVT, upd = POTRS_SW_UPDATE, bwd = POTRS_SW_BWD;
    GALA_TRY(ps_sweep_launch(ctx, k, s, up, W, h->wg, cg, 1, 0, nblk == 1 ? inv | invt : inv));
    for (int b = 0; b + 1 < nblk; ++b) /* forward: the blocks below b */
        GALA_TRY(ps_sweep_launch(ctx, k, s, up, W, h->wg, cg, nblk - 1 - b, b,
                                 b + 2 == nblk ? upd | inv | invt : upd | inv));
    for (int b = nblk - 1; b > 0; --b) /* backward: the blocks above b */
        GALA_TRY(ps_sweep_launch(ctx, k, s, up, W, h->wg, cg, b, b, upd | bwd | invt));
    return GALA_OK;
}

static gala_status ps_run(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                          const ps_cfg *c)
{
    const int nmax = la_nmax(s);
    if (nmax <= c->fused_max)
        return ps_fused(ctx, dt, up, s, s->count, c, la_pow2(nmax, c->min_bucket), 0,
                        POTRS_FWD | POTRS_BWD);
    /* (the sweep's groups of right-hand sides are a launch's second dimension: at most
     * 65535 of them; more right-hand sides than that take the other paths) */
    ps_shape h;
    const int sweep = !s->vb && s->count == 1 && c->sw_min > 0 && nmax >= c->sw_min &&
                      ps_sweep_shape(ctx, dt, s->nrhs, &h) &&
                      ((size_t)s->nrhs + (size_t)h.rc - 1) / (size_t)h.rc <= 65535;
    if (!s->vb && s->count == 1 && nmax >= c->blas3_min &&
        (s->nrhs >= c->blas3_nrhs || (sweep && s->nrhs < c->sw_rhs_min)) &&
        gala_blas3_available(ctx)) {
        gala_buffer *B = (gala_buffer *)s->B;
        const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
        const gala_trans t1 = up ? GALA_TRANS : GALA_NO_TRANS;
        const gala_trans t2 = up ? GALA_NO_TRANS : GALA_TRANS;
        GALA_TRY(gala_trsm(ctx, GALA_LEFT, ul, t1, GALA_NON_UNIT, nmax, s->nrhs, 1.0, s->A,
                           s->a_off, s->lda, B, s->b_off, s->ldb));
        return gala_trsm(ctx, GALA_LEFT, ul, t2, GALA_NON_UNIT, nmax, s->nrhs, 1.0, s->A, s->a_off,
                         s->lda, B, s->b_off, s->ldb);
    }
    if (sweep) return ps_sweep(ctx, dt, up, s, &h);
    return ps_blocked(ctx, dt, up, s, c);
}

static gala_status ps_batched(const char *fn, gala_context *ctx, gala_uplo uplo, int n, int nrhs,
                              const gala_buffer *A, size_t a_off, int lda, size_t a_stride,
                              gala_buffer *B, size_t b_off, int ldb, size_t b_stride, int batch)
{
    GALA_TRY(gala_check_ctx(ctx, fn));
    GALA_TRY(la_check_uplo(ctx, fn, uplo));
    if (n < 0 || nrhs < 0 || batch < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: negative size (n = %d, nrhs = %d, "
                          "batch = %d)", fn, n, nrhs, batch);
    GALA_TRY(la_check_strided(ctx, fn, "A", A, 0, a_off, n, n, lda, a_stride, batch, 0));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    GALA_TRY(la_check_strided(ctx, fn, "B", B, dt, b_off, n, nrhs, ldb, b_stride, batch, 1));
    if (A == B && batch > 0 && n > 0 && nrhs > 0) {
        int ovf = 0;
        size_t ea = gala_span(gala_mat_extent((size_t)n, (size_t)n, (size_t)lda, &ovf), a_stride,
                              (size_t)batch, &ovf);
        size_t eb = gala_span(gala_mat_extent((size_t)n, (size_t)nrhs, (size_t)ldb, &ovf),
                              b_stride, (size_t)batch, &ovf);
        if (gala_ranges_overlap(A, a_off, ea, B, b_off, eb))
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: B overlaps A", fn);
    }
    if (n == 0 || nrhs == 0 || batch == 0) return GALA_OK;
    ps_cfg c;
    ps_config(ctx, dt, nrhs, &c);
    la_set s;
    memset(&s, 0, sizeof s);
    s.count = batch;
    s.n = n;
    s.nrhs = nrhs;
    s.A = A;
    s.a_off = a_off;
    s.lda = lda;
    s.a_stride = a_stride;
    s.B = B;
    s.b_off = b_off;
    s.ldb = ldb;
    s.b_stride = b_stride;
    s.desc = A;
    return ps_run(ctx, dt, uplo == GALA_UPPER, &s, &c);
}

gala_status gala_potrs_batched(gala_context *ctx, gala_uplo uplo, int n, int nrhs,
                               const gala_buffer *A, size_t a_off, int lda, size_t a_stride,
                               gala_buffer *B, size_t b_off, int ldb, size_t b_stride, int batch)
{
    return ps_batched("gala_potrs_batched", ctx, uplo, n, nrhs, A, a_off, lda, a_stride, B, b_off,
                      ldb, b_stride, batch);
}

gala_status gala_potrs(gala_context *ctx, gala_uplo uplo, int n, int nrhs, const gala_buffer *A,
                       size_t a_off, int lda, gala_buffer *B, size_t b_off, int ldb)
{
    return ps_batched("gala_potrs", ctx, uplo, n, nrhs, A, a_off, lda, 0, B, b_off, ldb, 0, 1);
}

gala_status gala_potrs_vbatched(gala_context *ctx, gala_uplo uplo, const int *n, const int *nrhs,
                                const gala_buffer *A, const size_t *a_off, const int *lda,
                                gala_buffer *B, const size_t *b_off, const int *ldb, int batch)
{
    static const char fn[] = "gala_potrs_vbatched";
    GALA_TRY(gala_check_ctx(ctx, fn));
    GALA_TRY(la_check_uplo(ctx, fn, uplo));
    if (batch < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: batch = %d is negative", fn, batch);
    if (batch == 0) return GALA_OK;
    if (!nrhs) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: nrhs is NULL", fn);
    GALA_TRY(la_check_vbatched(ctx, fn, "A", A, 0, n, NULL, a_off, lda, batch, 0));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    GALA_TRY(la_check_vbatched(ctx, fn, "B", B, dt, n, nrhs, b_off, ldb, batch, 1));
    GALA_TRY(la_check_ab_disjoint(ctx, fn, A, B, n, nrhs, a_off, lda, b_off, ldb, batch));
    int maxrhs = 0;
    for (int b = 0; b < batch; ++b)
        if (nrhs[b] > maxrhs) maxrhs = nrhs[b];
    ps_cfg c;
    ps_config(ctx, dt, maxrhs, &c);
    la_vb vb;
    GALA_TRY(la_desc_build(ctx, n, nrhs, a_off, lda, b_off, ldb, batch, c.fused_max,
                           c.min_bucket, &vb));
    gala_status st = GALA_OK;
    for (int r = 0; r < vb.nruns && st == GALA_OK; ++r) {
        la_set s;
        memset(&s, 0, sizeof s);
        s.vb = 1;
        s.count = vb.runs[r].count;
        s.n = vb.runs[r].nmax;
        s.nrhs = vb.runs[r].rhsmax;
        s.A = A;
        s.B = B;
        s.desc = vb.desc;
        s.dofs = vb.runs[r].first;
        s.nlist = vb.nlist + vb.runs[r].first;
        if (vb.runs[r].bucket)
            st = ps_fused(ctx, dt, uplo == GALA_UPPER, &s, s.count, &c, vb.runs[r].bucket, 0,
                          POTRS_FWD | POTRS_BWD);
        else
            st = ps_blocked(ctx, dt, uplo == GALA_UPPER, &s, &c);
    }
    la_vb_release(&vb);
    return st;
}
