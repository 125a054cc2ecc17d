/*
 * Dense LDLᵀ without pivoting (include/gala/ldlt.h), kernels cl/ldlt.cl.
 *
 * Per matrix of order n (see the figure in cl/ldlt.cl):
 *   n <= NBF (the largest fused size):  one ldlt_fused pass in local memory;
 *   n  > NBF:  blocked right-looking steps of width NBP (ldlt_panel, ldlt_trsm, ldlt_update)
 *              up to kt = ceil((n − NBF)/NBP)·NBP, then ldlt_fused on the trailing block.
 * ldlt_fused is compiled per size class NB (4, 8, ..., NBF): MPG matrices of a class share a
 * work-group. Variable batches are binned by class; the per-matrix descriptors (offset, n,
 * lda, caller's index, kt) go to the device in one upload. The per-matrix status (info and
 * pivot counts) lives in a device int array read back at the end.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../blas/blas_common.h"
#include "../core/kernel.h"
#include "gala/ldlt.h"
#include "la_common.h"
#include "../../cl/ldlt_abi.h"

/* Typed launches of the LDLᵀ kernels, from their argument lists (cl/ldlt_abi.h) */
GALA_LAUNCHER(ldlt_launch_fused, LDLT_ARGS_fused)
GALA_LAUNCHER(ldlt_launch_panel, LDLT_ARGS_panel)
GALA_LAUNCHER(ldlt_launch_trsm, LDLT_ARGS_trsm)
GALA_LAUNCHER(ldlt_launch_update, LDLT_ARGS_update)
GALA_LAUNCHER(ldlt_launch_solve, LDLT_ARGS_solve)

#define LDLT_SLOT_DESC 2
#define LDLT_SLOT_STATUS 3
#define LDLT_MIN_NB 4

typedef struct ldlt_cfg {
    int nbf;      /* largest fused order (power of two, >= nbp) */
    int fused_wg; /* lanes of a fused work-group */
    int nbp, wgp, ts, wg;
} ldlt_cfg;

static int pow2_floor(long v)
{
    int p = 1;
    while ((long)p * 2 <= v) p *= 2;
    return p;
}

static void ldlt_config(const gala_context *ctx, gala_dtype dt, ldlt_cfg *c)
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    const long maxwg = gala_max_wg(ctx);
    const size_t es = gala_dtype_size(dt);
    c->nbp = pow2_floor(T->ldlt.nbp);
    c->wgp = pow2_floor(T->ldlt.wgp);
    c->ts = pow2_floor(T->ldlt.ts);
    c->wg = pow2_floor(T->ldlt.wg);
    c->fused_wg = pow2_floor(T->ldlt.fused_wg);
    c->nbf = pow2_floor(T->ldlt.nb_max);
    if (c->nbp < 4) c->nbp = 4;
    if (c->wgp > maxwg) c->wgp = pow2_floor(maxwg);
    while ((long)c->ts * c->ts > maxwg) c->ts /= 2;
    if (c->wg > maxwg) c->wg = pow2_floor(maxwg);
    if (c->fused_wg > maxwg) c->fused_wg = pow2_floor(maxwg);
    /* the panel kernel's local memory must fit */
    size_t lmem = ctx->info.local_mem_bytes ? ctx->info.local_mem_bytes : 32768;
    while (c->nbp > 4 && ((size_t)c->nbp * c->nbp + (size_t)c->wgp * (c->nbp + 1)) * es > lmem) {
        if (c->wgp > c->nbp) c->wgp /= 2; else c->nbp /= 2;
    }
    /* one fused matrix of the largest class must fit in local memory */
    while (c->nbf > LDLT_MIN_NB && (size_t)c->nbf * c->nbf * es > lmem) c->nbf /= 2;
    if (c->nbf < c->nbp) c->nbp = c->nbf;
    if (c->nbf < LDLT_MIN_NB) c->nbf = LDLT_MIN_NB;
}

/* Size class (power of two >= m, at least LDLT_MIN_NB) of a fused block of order m. */
static int ldlt_class(int m)
{
    int nb = LDLT_MIN_NB;
    while (nb < m) nb *= 2;
    return nb;
}

/* Program key of the fused class nb (the class nbf also serves the other kernels). */
static void ldlt_key(const gala_context *ctx, gala_dtype dt, const ldlt_cfg *c, int nb,
                     gala_program_key *key, int *S, int *mpg)
{
    const size_t es = gala_dtype_size(dt);
    size_t lmem = ctx->info.local_mem_bytes ? ctx->info.local_mem_bytes : 32768;
    int s = nb < c->fused_wg ? nb : c->fused_wg;
    int m = c->fused_wg / s;
    while (m > 1 && (size_t)m * nb * nb * es > lmem / 2) m /= 2;
    gala_key_init(key, "ldlt", dt);
    gala_key_def(key, "NB", nb);
    gala_key_def(key, "S", s);
    gala_key_def(key, "MPG", m);
    gala_key_def(key, "NBP", c->nbp);
    gala_key_def(key, "WGP", c->wgp);
    gala_key_def(key, "TS", c->ts);
    gala_key_def(key, "WG", c->wg);
    if (S) *S = s;
    if (mpg) *mpg = m;
}

static gala_status ldlt_kernel(gala_context *ctx, gala_dtype dt, const ldlt_cfg *c, int nb,
                               const char *name, gala_kernel **k, int *S, int *mpg)
{
    gala_program_key key;
    ldlt_key(ctx, dt, c, nb, &key, S, mpg);
    return gala_kernel_get(ctx, &key, name, k);
}

static int ldlt_tail_start(int n, const ldlt_cfg *c)
{
    if (n <= c->nbf) return 0;
    return (n - c->nbf + c->nbp - 1) / c->nbp * c->nbp;
}

static void put_off(int *d, size_t off)
{
    d[0] = (int)(unsigned)(off & 0xffffffffu);
    d[1] = (int)(off >> 32);
}

/* Read the status array back and turn it into info, inertia, status and message. */
static gala_status ldlt_report(gala_context *ctx, const char *fn, const gala_buffer *st,
                               int batch, int *info, int *inertia)
{
    int *h = gala_malloc((size_t)batch * LA_NST * sizeof *h);
    if (!h) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    gala_status s = gala_buffer_read(st, 0, (size_t)batch * LA_NST, h);
    if (s != GALA_OK) { gala_free(h); return s; }
    int first_nf = -1, first_sing = -1;
    for (int b = 0; b < batch; ++b) {
        if (info) info[b] = h[LA_NST * b + LA_ST_INFO];
        if (inertia) {
            inertia[2 * b] = h[LA_NST * b + LA_ST_POS];
            inertia[2 * b + 1] = h[LA_NST * b + LA_ST_NEG];
        }
        if (h[LA_NST * b + LA_ST_INFO] < 0 && first_nf < 0) first_nf = b;
        if (h[LA_NST * b + LA_ST_INFO] > 0 && first_sing < 0) first_sing = b;
    }
    s = GALA_OK;
    if (first_nf >= 0)
        s = gala_error(ctx, GALA_ERR_NOT_FINITE, "%s: matrix %d: pivot %d is NaN or Inf", fn,
                       first_nf, -h[LA_NST * first_nf + LA_ST_INFO]);
    else if (first_sing >= 0)
        s = gala_error(ctx, GALA_ERR_SINGULAR, "%s: matrix %d: pivot %d is zero", fn, first_sing,
                       h[LA_NST * first_sing + LA_ST_INFO]);
    gala_free(h);
    return s;
}

static void clear_results(int batch, int *info, int *inertia)
{
    if (info) memset(info, 0, (size_t)batch * sizeof *info);
    if (inertia) memset(inertia, 0, (size_t)batch * 2 * sizeof *inertia);
}

/* ------------------------------------------------------------------------------ factor */

gala_status gala_ldlt_batched(gala_context *ctx, gala_uplo uplo, int n, gala_buffer *A,
                              size_t a_off, int lda, size_t a_stride, int batch, int *info,
                              int *inertia)
{
    static const char fn[] = "gala_ldlt_batched";
    /* sizes, lda, extent, overflow, and matrices that share elements (a_stride < n, or
     * a_stride >= n with matrices that do not fit side by side within lda) */
    GALA_TRY(la_check_batched_inplace(ctx, fn, uplo, n, A, a_off, lda, a_stride, batch));
    const gala_dtype dt = A->dtype;
    clear_results(batch, info, inertia);
    if (batch == 0 || n == 0) return GALA_OK;

    ldlt_cfg c;
    ldlt_config(ctx, dt, &c);
    gala_buffer *st;
    GALA_TRY(gala_scratch(ctx, LDLT_SLOT_STATUS, GALA_INT, (size_t)batch * LA_NST, &st));
    GALA_TRY(gala_buffer_fill(st, 0, (size_t)batch * LA_NST, 0));
    const int kt = ldlt_tail_start(n, &c), up = uplo == GALA_UPPER;
    gala_kernel *k;
    for (int k0 = 0; k0 < kt; k0 += c.nbp) {
        const int m = n - k0 - c.nbp;
        const int rgroups = m > 0 ? (m + c.wgp - 1) / c.wgp : 1;
        GALA_TRY(ldlt_kernel(ctx, dt, &c, c.nbf, "ldlt_panel", &k, NULL, NULL));
        gala_dims d = gala_dims_1d((size_t)batch * (size_t)c.wgp, (size_t)c.wgp);
        GALA_TRY(ldlt_launch_panel(ctx, k, &d, 0, up, batch, n, lda, kt, A, (long long)a_off,
                                   (long long)a_stride, st, 0, st, k0));
        GALA_TRY(ldlt_kernel(ctx, dt, &c, c.nbf, "ldlt_trsm", &k, NULL, NULL));
        d = gala_dims_1d((size_t)batch * (size_t)rgroups * (size_t)c.wgp, (size_t)c.wgp);
        GALA_TRY(ldlt_launch_trsm(ctx, k, &d, 0, up, batch, n, lda, kt, A, (long long)a_off,
                                  (long long)a_stride, st, 0, st, k0, rgroups));
        const int T = (m + c.ts - 1) / c.ts;
        GALA_TRY(ldlt_kernel(ctx, dt, &c, c.nbf, "ldlt_update", &k, NULL, NULL));
        d = gala_dims_1d((size_t)batch * (size_t)T * (size_t)T * (size_t)(c.ts * c.ts),
                         (size_t)(c.ts * c.ts));
        GALA_TRY(ldlt_launch_update(ctx, k, &d, 0, up, batch, n, lda, kt, A, (long long)a_off,
                                    (long long)a_stride, st, 0, st, k0, T));
    }
    const int m = n - kt, nb = ldlt_class(m);
    int S, mpg;
    GALA_TRY(ldlt_kernel(ctx, dt, &c, nb, "ldlt_fused", &k, &S, &mpg));
    const size_t groups = ((size_t)batch + (size_t)mpg - 1) / (size_t)mpg;
    gala_dims d = gala_dims_1d(groups * (size_t)(S * mpg), (size_t)(S * mpg));
    GALA_TRY(ldlt_launch_fused(ctx, k, &d, 0, up, batch, m, n, lda, kt, A, (long long)a_off,
                               (long long)a_stride, st, 0, st));
    return ldlt_report(ctx, fn, st, batch, info, inertia);
}

gala_status gala_ldlt(gala_context *ctx, gala_uplo uplo, int n, gala_buffer *A, size_t a_off,
                      int lda, int *info, int *inertia)
{
    return gala_ldlt_batched(ctx, uplo, n, A, a_off, lda, 0, 1, info, inertia);
}

gala_status gala_ldlt_vbatched(gala_context *ctx, gala_uplo uplo, const int *n, gala_buffer *A,
                               const size_t *a_off, const int *lda, int batch, int *info,
                               int *inertia)
{
    static const char fn[] = "gala_ldlt_vbatched";
    GALA_TRY(gala_check_ctx(ctx, fn));
    GALA_TRY(la_check_uplo(ctx, fn, uplo));
    if (batch < 0) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: batch = %d is negative", fn, batch);
    if (batch > 0 && (!n || !a_off || !lda))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: n, a_off or lda is NULL", fn);
    if (!A) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: A is NULL", fn);
    /* sizes, leading dimensions, extents, type, and no two matrices sharing an element */
    GALA_TRY(la_check_vbatched(ctx, fn, "A", A, 0, n, NULL, a_off, lda, batch, 1));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    clear_results(batch, info, inertia);
    if (batch == 0) return GALA_OK;

    ldlt_cfg c;
    ldlt_config(ctx, dt, &c);
    const int up = uplo == GALA_UPPER;
    /* descriptors: the blocked set first, then one run per fused class */
    int nclass = 0;
    while ((LDLT_MIN_NB << nclass) <= c.nbf) ++nclass;
    int cnt[32] = {0}, mmax[32] = {0}, start[33];
    int nlarge = 0, nmax_large = 0, kt_max = 0;
    for (int b = 0; b < batch; ++b) {
        if (n[b] == 0) continue;
        const int kt = ldlt_tail_start(n[b], &c), m = n[b] - kt;
        int cl = 0;
        while ((LDLT_MIN_NB << cl) < m) ++cl;
        cnt[cl]++;
        if (m > mmax[cl]) mmax[cl] = m;
        if (kt > 0) {
            nlarge++;
            if (n[b] > nmax_large) nmax_large = n[b];
            if (kt > kt_max) kt_max = kt;
        }
    }
    start[0] = nlarge;
    for (int cl = 0; cl < nclass; ++cl) start[cl + 1] = start[cl] + cnt[cl];
    const int ndesc = start[nclass];
    if (ndesc == 0) return GALA_OK;
    int *h = gala_malloc((size_t)ndesc * LDLT_DSZ * sizeof *h);
    if (!h) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    int fill[32], lfill = 0;
    for (int cl = 0; cl < nclass; ++cl) fill[cl] = start[cl];
    for (int b = 0; b < batch; ++b) {
        if (n[b] == 0) continue;
        const int kt = ldlt_tail_start(n[b], &c), m = n[b] - kt;
        int cl = 0;
        while ((LDLT_MIN_NB << cl) < m) ++cl;
        int rows[2] = {fill[cl]++, kt > 0 ? lfill++ : -1};
        for (int r = 0; r < 2; ++r) {
            if (rows[r] < 0) continue;
            int *d = h + LDLT_DSZ * rows[r];
            memset(d, 0, LDLT_DSZ * sizeof *d);
            put_off(d + LDLT_D_OFF, a_off[b]);
            d[LDLT_D_N] = n[b];
            d[LDLT_D_LDA] = lda[b];
            d[LDLT_D_IDX] = b;
            d[LDLT_D_KT] = kt;
        }
    }
    gala_buffer *desc, *st;
    gala_status s = gala_scratch(ctx, LDLT_SLOT_DESC, GALA_INT, (size_t)ndesc * LDLT_DSZ, &desc);
    if (s == GALA_OK) s = gala_buffer_write(desc, 0, (size_t)ndesc * LDLT_DSZ, h);
    gala_free(h);
    GALA_TRY(s);
    GALA_TRY(gala_scratch(ctx, LDLT_SLOT_STATUS, GALA_INT, (size_t)batch * LA_NST, &st));
    GALA_TRY(gala_buffer_fill(st, 0, (size_t)batch * LA_NST, 0));
    gala_kernel *k;
    for (int k0 = 0; k0 < kt_max; k0 += c.nbp) {
        const int m = nmax_large - k0 - c.nbp;
        const int rgroups = m > 0 ? (m + c.wgp - 1) / c.wgp : 1;
        GALA_TRY(ldlt_kernel(ctx, dt, &c, c.nbf, "ldlt_panel", &k, NULL, NULL));
        gala_dims d = gala_dims_1d((size_t)nlarge * (size_t)c.wgp, (size_t)c.wgp);
        GALA_TRY(ldlt_launch_panel(ctx, k, &d, 1, up, nlarge, 0, 1, 0, A, 0, 0, desc, 0, st, k0));
        GALA_TRY(ldlt_kernel(ctx, dt, &c, c.nbf, "ldlt_trsm", &k, NULL, NULL));
        d = gala_dims_1d((size_t)nlarge * (size_t)rgroups * (size_t)c.wgp, (size_t)c.wgp);
        GALA_TRY(ldlt_launch_trsm(ctx, k, &d, 1, up, nlarge, 0, 1, 0, A, 0, 0, desc, 0, st, k0,
                                  rgroups));
        const int T = m > 0 ? (m + c.ts - 1) / c.ts : 1;
        GALA_TRY(ldlt_kernel(ctx, dt, &c, c.nbf, "ldlt_update", &k, NULL, NULL));
        d = gala_dims_1d((size_t)nlarge * (size_t)T * (size_t)T * (size_t)(c.ts * c.ts),
                         (size_t)(c.ts * c.ts));
        GALA_TRY(ldlt_launch_update(ctx, k, &d, 1, up, nlarge, 0, 1, 0, A, 0, 0, desc, 0, st, k0, T));
    }
    for (int cl = 0; cl < nclass; ++cl) {
        if (!cnt[cl]) continue;
        int S, mpg;
        GALA_TRY(ldlt_kernel(ctx, dt, &c, LDLT_MIN_NB << cl, "ldlt_fused", &k, &S, &mpg));
        const size_t groups = ((size_t)cnt[cl] + (size_t)mpg - 1) / (size_t)mpg;
        gala_dims d = gala_dims_1d(groups * (size_t)(S * mpg), (size_t)(S * mpg));
        GALA_TRY(ldlt_launch_fused(ctx, k, &d, 1, up, cnt[cl], mmax[cl], 0, 1, 0, A, 0, 0, desc,
                                   (long long)LDLT_DSZ * start[cl], st));
    }
    return ldlt_report(ctx, fn, st, batch, info, inertia);
}

/* ------------------------------------------------------------------------------- solve */

static gala_status solve_launch(gala_context *ctx, gala_dtype dt, const ldlt_cfg *c, int var,
                                int up, long long npairs, int nmaxv, int n, int nrhs,
                                const gala_buffer *A, size_t a_off, int lda, size_t a_stride,
                                gala_buffer *B, size_t b_off, int ldb, size_t b_stride,
                                const gala_buffer *desc, long long d_off)
{
    gala_kernel *k;
    GALA_TRY(ldlt_kernel(ctx, dt, c, c->nbf, "ldlt_solve", &k, NULL, NULL));
    const int S = gala_pow2_at_least(nmaxv, c->wg);
    const long long per = c->wg / S, groups = (npairs + per - 1) / per;
    gala_dims d = gala_dims_1d((size_t)groups * (size_t)c->wg, (size_t)c->wg);
    return ldlt_launch_solve(ctx, k, &d, var, up, npairs, S, n, nrhs, nmaxv, A, (long long)a_off,
                             lda, (long long)a_stride, B, (long long)b_off, ldb,
                             (long long)b_stride, desc, d_off);
}

gala_status gala_ldlt_solve_batched(gala_context *ctx, gala_uplo uplo, int n, int nrhs,
                                    const gala_buffer *A, size_t a_off, int lda, size_t a_stride,
                                    gala_buffer *B, size_t b_off, int ldb, size_t b_stride,
                                    int batch)
{
    static const char fn[] = "gala_ldlt_solve_batched";
    GALA_TRY(gala_check_ctx(ctx, fn));
    GALA_TRY(la_check_uplo(ctx, fn, uplo));
    if (n < 0 || nrhs < 0 || batch < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "%s: negative size (n = %d, nrhs = %d, batch = %d)", fn, n, nrhs, batch);
    if (lda < (n > 1 ? n : 1))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: lda = %d < max(1, n = %d)", fn, lda, n);
    if (ldb < (n > 1 ? n : 1))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: ldb = %d < max(1, n = %d)", fn, ldb, n);
    int ovf = 0;
    size_t a_ext = gala_span(gala_mat_extent((size_t)n, (size_t)n, (size_t)lda, &ovf), a_stride,
                             (size_t)batch, &ovf);
    size_t b_item = gala_mat_extent((size_t)n, (size_t)nrhs, (size_t)ldb, &ovf);
    size_t b_ext = gala_span(b_item, b_stride, (size_t)batch, &ovf);
    if (ovf) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: sizes overflow", fn);
    GALA_TRY(gala_check_buf(ctx, fn, "A", A, 0, a_off, a_ext));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    GALA_TRY(gala_check_buf(ctx, fn, "B", B, dt, b_off, b_ext));
    if (batch > 1 && b_item > 0 && b_stride < b_item)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "%s: b_stride = %zu < ldb·(nrhs−1) + n = %zu: right-hand sides overlap",
                          fn, b_stride, b_item);
    if (gala_ranges_overlap(A, a_off, a_ext, B, b_off, b_ext))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: B overlaps A", fn);
    if (batch == 0 || n == 0 || nrhs == 0) return GALA_OK;
    ldlt_cfg c;
    ldlt_config(ctx, dt, &c);
    return solve_launch(ctx, dt, &c, 0, uplo == GALA_UPPER, (long long)batch * nrhs, n, n, nrhs, A,
                        a_off, lda, a_stride, B, b_off, ldb, b_stride, B, 0);
}

gala_status gala_ldlt_solve(gala_context *ctx, gala_uplo uplo, int n, int nrhs, const gala_buffer *A,
                            size_t a_off, int lda, gala_buffer *B, size_t b_off, int ldb)
{
    return gala_ldlt_solve_batched(ctx, uplo, n, nrhs, A, a_off, lda, 0, B, b_off, ldb, 0, 1);
}

gala_status gala_ldlt_solve_vbatched(gala_context *ctx, gala_uplo uplo, const int *n,
                                     const int *nrhs, const gala_buffer *A, const size_t *a_off,
                                     const int *lda, gala_buffer *B, const size_t *b_off,
                                     const int *ldb, int batch)
{
    static const char fn[] = "gala_ldlt_solve_vbatched";
    GALA_TRY(gala_check_ctx(ctx, fn));
    GALA_TRY(la_check_uplo(ctx, fn, uplo));
    if (batch < 0) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: batch = %d is negative", fn, batch);
    if (batch > 0 && (!n || !nrhs || !a_off || !lda || !b_off || !ldb))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: a size or offset array is NULL", fn);
    if (!A || !B) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: A or B is NULL", fn);
    /* the factors (read), then the right-hand sides: different systems must not share
     * elements, nor touch any factor */
    GALA_TRY(la_check_vbatched(ctx, fn, "A", A, 0, n, NULL, a_off, lda, batch, 0));
    GALA_TRY(la_check_vbatched(ctx, fn, "B", B, A->dtype, n, nrhs, b_off, ldb, batch, 1));
    GALA_TRY(la_check_ab_disjoint(ctx, fn, A, B, n, nrhs, a_off, lda, b_off, ldb, batch));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    if (batch == 0) return GALA_OK;
    ldlt_cfg c;
    ldlt_config(ctx, dt, &c);
    /* bins by lanes per right-hand side: powers of two up to the work-group */
    int nbin = 0;
    while ((1 << nbin) < c.wg) ++nbin;
    ++nbin;
    int cnt[32] = {0}, nmx[32] = {0}, rmx[32] = {0}, start[33];
    for (int b = 0; b < batch; ++b) {
        if (n[b] == 0 || nrhs[b] == 0) continue;
        int bi = 0;
        while ((1 << bi) < n[b] && bi < nbin - 1) ++bi;
        cnt[bi]++;
        if (n[b] > nmx[bi]) nmx[bi] = n[b];
        if (nrhs[b] > rmx[bi]) rmx[bi] = nrhs[b];
    }
    start[0] = 0;
    for (int bi = 0; bi < nbin; ++bi) start[bi + 1] = start[bi] + cnt[bi];
    const int nd = start[nbin];
    if (nd == 0) return GALA_OK;
    int *h = gala_malloc((size_t)nd * LDLT_DSZ * sizeof *h), fill[32];
    if (!h) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    for (int bi = 0; bi < nbin; ++bi) fill[bi] = start[bi];
    for (int b = 0; b < batch; ++b) {
        if (n[b] == 0 || nrhs[b] == 0) continue;
        int bi = 0;
        while ((1 << bi) < n[b] && bi < nbin - 1) ++bi;
        int *d = h + LDLT_DSZ * fill[bi]++;
        put_off(d + LDLT_S_AOFF, a_off[b]);
        put_off(d + LDLT_S_BOFF, b_off[b]);
        d[LDLT_S_N] = n[b];
        d[LDLT_S_LDA] = lda[b];
        d[LDLT_S_LDB] = ldb[b];
        d[LDLT_S_NRHS] = nrhs[b];
    }
    gala_buffer *desc;
    gala_status s = gala_scratch(ctx, LDLT_SLOT_DESC, GALA_INT, (size_t)nd * LDLT_DSZ, &desc);
    if (s == GALA_OK) s = gala_buffer_write(desc, 0, (size_t)nd * LDLT_DSZ, h);
    gala_free(h);
    GALA_TRY(s);
    for (int bi = 0; bi < nbin; ++bi) {
        if (!cnt[bi]) continue;
        GALA_TRY(solve_launch(ctx, dt, &c, 1, uplo == GALA_UPPER, (long long)cnt[bi] * rmx[bi],
                              nmx[bi], 0, rmx[bi], A, 0, 1, 0, B, 0, 1, 0, desc,
                              (long long)LDLT_DSZ * start[bi]));
    }
    return GALA_OK;
}
