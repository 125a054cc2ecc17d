/*
 * Inverse of SPD matrices from their Cholesky factors: gala_potri, gala_potri_batched,
 * gala_potri_vbatched. A = L·Lᵀ ⇒ A⁻¹ = L⁻ᵀ·L⁻¹ = Wᵀ·W with W = L⁻¹:
 *   1. W = L⁻¹ in place by gala_trtri (batched / vbatched as the call);
 *   2. lower(Wᵀ·W) in place (LAPACK's lauum), on the matrices trtri inverted:
 *      n <= potri.nb: one launch of lauum_fused per size bucket;
 *      larger: blocked in LAPACK's order, for each block row I of width N:
 *        W[I, 0:I] ← W[I,I]ᵀ·W[I, 0:I]                 (trmm_lt)
 *        W[I, I]   ← lower(W[I,I]ᵀ·W[I,I])              (lauum_fused)
 *        W[I, 0:I] += W[I+N:, I]ᵀ·W[I+N:, 0:I]          (gemm_upd)
 *        W[I, I]   += lower(W[I+N:, I]ᵀ·W[I+N:, I])     (gemm_upd, masked)
 *      Block row I reads only rows below it, which are still W.
 *      One matrix of order >= potri.blas3_min, where the backend has BLAS-3: the same order
 *      in block rows of potri.blas3_nb, each by one GEMM and one SYRK of its block column
 *      (pi_lauum_blas3).
 * Matrices that trtri reports (zero diagonal, NaN/Inf) are left as trtri left them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/blas3.h"
#include "la_common.h"
#include "../../cl/potri_abi.h"

/* Typed launches of the potri kernels, from their argument lists (cl/potri_abi.h) */
GALA_LAUNCHER(potri_launch_lauum, POTRI_ARGS_lauum_fused)
GALA_LAUNCHER(potri_launch_trmm, POTRI_ARGS_trmm_lt)
GALA_LAUNCHER(potri_launch_copy, POTRI_ARGS_copy_mask)

typedef struct pi_cfg {
    int nb, min_bucket, wg;
    int blas3_min; /* one matrix of order >= blas3_min: pi_lauum_blas3 (BLAS-3 backends) */
    int blas3_nb;  /* its block rows (a multiple of nb) */
} pi_cfg;

static void pi_config(const gala_context *ctx, gala_dtype dt, pi_cfg *c)
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    long nb = T->potri.nb;
    c->nb = la_pow2(nb < 8 ? 8 : nb > 64 ? 64 : (int)nb, 8);
    /* lauum_fused and trmm_lt stage an N×(N + 1) block in local memory: 33 KB for N = 64 in
     * double, more than a device with 32 KiB has (issue 39) */
    const size_t lmem = ctx->info.local_mem_bytes;
    while (c->nb > 8 && lmem && (size_t)c->nb * (size_t)(c->nb + 1) * gala_dtype_size(dt) > lmem)
        c->nb /= 2;
    long mb = T->la.min_bucket;
    c->min_bucket = la_pow2(mb < 1 ? 1 : mb > 64 ? 64 : (int)mb, 1);
    c->wg = la_wg(ctx, T->potri.wg, 8);
    long b3 = T->potri.blas3_min;
    c->blas3_min = b3 < 1 ? 1 : b3 > (1L << 30) ? 1 << 30 : (int)b3;
    long bnb = T->potri.blas3_nb;
    bnb = bnb < c->nb ? c->nb : bnb > (1L << 20) ? 1L << 20 : bnb;
    c->blas3_nb = (int)(bnb / c->nb * c->nb);
}

static gala_status pi_kernel(gala_context *ctx, gala_dtype dt, int N, int wg, const char *name,
                             gala_kernel **k)
{
    gala_program_key key;
    gala_key_init(&key, "potri", dt);
    gala_key_def(&key, "N", N);
    gala_key_def(&key, "WG", wg);
    gala_key_def(&key, "UNROLL", gala_tuned(ctx, dt)->la.unroll);
    return gala_kernel_get(ctx, &key, name, k);
}

static gala_status pi_lauum_diag(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                                 int count, const pi_cfg *c, int N, int j0)
{
    if (count <= 0) return GALA_OK;
    gala_kernel *k;
    GALA_TRY(pi_kernel(ctx, dt, N, c->wg, "lauum_fused", &k));
    const int lmpg = N >= 32 ? 1 : 32 / N, local = lmpg * N;
    const size_t groups = ((size_t)count + (size_t)lmpg - 1) / (size_t)lmpg;
    gala_dims d = gala_dims_1d(groups * (size_t)local, (size_t)local);
    return potri_launch_lauum(ctx, k, &d, s->n, j0, count, s->A, (long long)s->a_off, s->lda,
                              (long long)s->a_stride, up, s->desc, (long long)s->dofs, s->vb);
}

static gala_status pi_trmm(gala_context *ctx, gala_dtype dt, int up, const la_set *s, int count,
                           const pi_cfg *c, int I)
{
    if (count <= 0 || I <= 0) return GALA_OK;
    gala_kernel *k;
    GALA_TRY(pi_kernel(ctx, dt, c->nb, c->wg, "trmm_lt", &k));
    const int ncg = (I + c->wg - 1) / c->wg;
    gala_dims d = gala_dims_1d((size_t)count * (size_t)ncg * (size_t)c->wg, (size_t)c->wg);
    return potri_launch_trmm(ctx, k, &d, s->n, I, count, ncg, s->A, (long long)s->a_off, s->lda,
                             (long long)s->a_stride, up, s->desc, (long long)s->dofs, s->vb);
}

/* lower(Wᵀ·W) in place for every matrix of s. */
static gala_status pi_lauum(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                            const pi_cfg *c)
{
    const int nmax = la_nmax(s), N = c->nb;
    const int Nd = nmax <= N ? la_pow2(nmax, c->min_bucket) : N;
    /* a device that fails to build the program of blocks of Nd (clang-15 for gfx1100
     * crashes on N = 64, issue 39): the blocked path with blocks of half that */
    gala_kernel *probe;
    const gala_status st = pi_kernel(ctx, dt, Nd, c->wg, "lauum_fused", &probe);
    if (gala_build_rejected(ctx, st) && Nd >= 16) {
        pi_cfg half = *c;
        half.nb = Nd / 2;
        GALA_TRY(pi_lauum(ctx, dt, up, s, &half));
        char used[48];
        snprintf(used, sizeof used, "lauum in blocks of %d", half.nb);
        gala_kernel_fallback(ctx, used);
        return GALA_OK;
    }
    if (st != GALA_OK) return st;
    if (nmax <= N) return pi_lauum_diag(ctx, dt, up, s, s->count, c, Nd, 0);
    for (int I = 0; I < nmax; I += N) {
        const int cnt = la_active(s, I);
        GALA_TRY(pi_trmm(ctx, dt, up, s, cnt, c, I));
        GALA_TRY(pi_lauum_diag(ctx, dt, up, s, cnt, c, N, I));
        const int J = I + N, cnt2 = la_active(s, J);
        if (cnt2 <= 0) continue;
        la_dim m = {I, N, 0}, kk = {J, LA_BIG, 0};
        la_op A = {0, J, I, 1};
        if (I > 0) {
            la_dim nn = {0, I, 0};
            la_op B = {0, J, 0, 1}, C = {0, I, 0, 0};
            GALA_TRY(la_gemm_upd(ctx, dt, up, s, cnt2, m, nn, kk, N, I, 1.0, 0, A, B, C, NULL, 0));
        }
        la_dim nn = {I, N, 0};
        la_op B = {0, J, I, 1}, C = {0, I, I, 0};
        GALA_TRY(la_gemm_upd(ctx, dt, up, s, cnt2, m, nn, kk, N, N, 1.0, 1, A, B, C, NULL, 0));
    }
    return GALA_OK;
}

/* copy_mask (cl/potri.cl): the m×nc block at S[so] (leading dimension lds) to D[dof]
 * (ldd), zero above (mask POTRI_ZERO_UPPER) or below (POTRI_ZERO_LOWER) its diagonal. */
static gala_status pi_copy(gala_context *ctx, gala_dtype dt, int m, int nc, gala_buffer *S,
                           size_t so, int lds, gala_buffer *D, size_t dof, int ldd, int mask,
                           const pi_cfg *c)
{
    gala_kernel *k;
    GALA_TRY(pi_kernel(ctx, dt, c->nb, c->wg, "copy_mask", &k));
    const size_t wg = (size_t)c->wg, e = (size_t)m * (size_t)nc;
    gala_dims d = gala_dims_1d((e + wg - 1) / wg * wg, wg);
    return potri_launch_copy(ctx, k, &d, m, nc, S, (long long)so, lds, D, (long long)dof, ldd, mask);
}

/*
 * lower(Wᵀ·W) in place for one matrix of order n (s->count == 1, strided) through the
 * backend's BLAS-3, LAPACK's blocked lauum in block rows of NB = potri.blas3_nb. Block row
 * I (rows I .. J = I + ib, L coordinates) needs Z = W[I:n, I:J] with the upper triangle of
 * its top ib×ib block T zero (T is lower triangular; the stored matrix holds the caller's
 * data there), copied to scratch:
 *
 *          0          I      J
 *     I  [ X  X  X  ][ T       ]    1. Z ← [T; R] with T's upper triangle 0  (copy_mask)
 *        [ X  X  X  ][ T  T    ]    2. X ← Zᵀ·W[I:n, 0:I]  (GEMM into scratch, copy_mask back)
 *     J  [ B  B  B  ][ R  R    ]    3. T ← lower(Zᵀ·Z)     (SYRK)
 *        [ B  B  B  ][ R  R    ]
 *
 * which is LAPACK's TRMM + GEMM and LAUU2 + SYRK with one product each. Block row I reads
 * only rows I.. of W, still holding W: the rows above it are done, those below untouched.
 * Upper storage holds the transposes (Zᵀ stored ib × (n − I), X as its transpose).
 */
static gala_status pi_lauum_blas3(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                                  const pi_cfg *c)
{
    gala_buffer *W = (gala_buffer *)s->A, *Z;
    const size_t o = s->a_off;
    const int n = s->n, lda = s->lda, NB = c->blas3_nb < n ? c->blas3_nb : n;
    /* Z (at most n×NB), then the product (NB×n) */
    GALA_TRY(gala_scratch(ctx, LA_SCRATCH_PANEL, dt, 2 * (size_t)n * (size_t)NB, &Z));
    const size_t po = (size_t)n * (size_t)NB;
    for (int I = 0; I < n; I += NB) {
        const int ib = n - I < NB ? n - I : NB, m = n - I;
        if (up) {
            /* Zᵀ: ib × m at (I, I), zero below the diagonal of its left ib×ib block */
            GALA_TRY(pi_copy(ctx, dt, ib, m, W, o + la_loff(up, I, I, lda), lda, Z, 0, ib,
                             POTRI_ZERO_LOWER, c));
            if (I > 0) {
                /* in memory: Xᵀ (I × ib at row 0, column I) = W[0:I, I:n]·(Zᵀ)ᵀ */
                GALA_TRY(gala_gemm(ctx, GALA_NO_TRANS, GALA_TRANS, I, ib, m, 1.0, W,
                                   o + la_loff(up, I, 0, lda), lda, Z, 0, ib, 0.0, Z, po, I));
                GALA_TRY(pi_copy(ctx, dt, I, ib, Z, po, I, W, o + la_loff(up, I, 0, lda), lda,
                                 POTRI_ZERO_NONE, c));
            }
            GALA_TRY(gala_syrk(ctx, GALA_UPPER, GALA_NO_TRANS, ib, m, 1.0, Z, 0, ib, 0.0, W,
                               o + la_loff(up, I, I, lda), lda));
        } else {
            /* Z: m × ib at (I, I), zero above the diagonal of its top ib×ib block */
            GALA_TRY(pi_copy(ctx, dt, m, ib, W, o + la_loff(up, I, I, lda), lda, Z, 0, m,
                             POTRI_ZERO_UPPER, c));
            if (I > 0) {
                /* X (ib × I at (I, 0)) = Zᵀ·W[I:n, 0:I] */
                GALA_TRY(gala_gemm(ctx, GALA_TRANS, GALA_NO_TRANS, ib, I, m, 1.0, Z, 0, m, W,
                                   o + la_loff(up, I, 0, lda), lda, 0.0, Z, po, ib));
                GALA_TRY(pi_copy(ctx, dt, ib, I, Z, po, ib, W, o + la_loff(up, I, 0, lda), lda,
                                 POTRI_ZERO_NONE, c));
            }
            GALA_TRY(gala_syrk(ctx, GALA_LOWER, GALA_TRANS, ib, m, 1.0, Z, 0, m, 0.0, W,
                               o + la_loff(up, I, I, lda), lda));
        }
    }
    return GALA_OK;
}

/* lauum on the matrices with good[b] != 0 of a variable batch (sizes n[b], host arrays). */
static gala_status pi_lauum_v(gala_context *ctx, gala_dtype dt, int up, gala_buffer *A,
                              const int *n, const size_t *a_off, const int *lda, int batch,
                              const int *good, const pi_cfg *c)
{
    int *ng = gala_malloc((size_t)batch * sizeof *ng);
    if (!ng) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "potri: no host memory");
    for (int b = 0; b < batch; ++b) ng[b] = good[b] ? n[b] : 0;
    la_vb vb;
    gala_status st = la_desc_build(ctx, ng, NULL, a_off, lda, NULL, NULL, batch, c->nb,
                                   c->min_bucket, &vb);
    gala_free(ng);
    for (int r = 0; r < vb.nruns && st == GALA_OK; ++r) {
        la_set s;
        memset(&s, 0, sizeof s);
        s.vb = 1;
        s.count = vb.runs[r].count;
        s.n = vb.runs[r].nmax;
        s.A = A;
        s.desc = vb.desc;
        s.dofs = vb.runs[r].first;
        s.nlist = vb.nlist + vb.runs[r].first;
        st = vb.runs[r].bucket ? pi_lauum_diag(ctx, dt, up, &s, s.count, c, vb.runs[r].bucket, 0)
                               : pi_lauum(ctx, dt, up, &s, c);
    }
    la_vb_release(&vb);
    return st;
}

/* After trtri: the status to return and its message, restated for potri. */
static gala_status pi_report(gala_context *ctx, const char *fn, gala_status st, const int *info,
                             int batch)
{
    if (st == GALA_OK) return GALA_OK;
    int first = -1, nfail = 0;
    for (int b = 0; b < batch; ++b)
        if (info[b] != 0) {
            if (first < 0) first = b;
            nfail++;
        }
    if (first < 0) return gala_error(ctx, st, "%s: trtri failed without an info entry", fn);
    if (info[first] > 0)
        return gala_error(ctx, st, "%s: %d of %d matrices failed; the first, matrix %d: diagonal "
                          "entry %d of the factor is zero", fn, nfail, batch, first, info[first]);
    return gala_error(ctx, st, "%s: %d of %d matrices failed; the first, matrix %d: NaN or Inf "
                      "at column %d", fn, nfail, batch, first, -info[first]);
}

static int numerical(gala_status s) { return s == GALA_ERR_SINGULAR || s == GALA_ERR_NOT_FINITE; }

static gala_status pi_batched(const char *fn, gala_context *ctx, gala_uplo uplo, int n,
                              gala_buffer *A, size_t a_off, int lda, size_t a_stride, int batch,
                              int *info)
{
    GALA_TRY(la_check_batched_inplace(ctx, fn, uplo, n, A, a_off, lda, a_stride, batch));
    const gala_dtype dt = A->dtype;
    if (n == 0 || batch == 0) {
        if (info) memset(info, 0, (size_t)batch * sizeof *info);
        return GALA_OK;
    }
    int *inf = info ? info : gala_malloc((size_t)batch * sizeof *inf);
    if (!inf) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    gala_status st = gala_trtri_batched(ctx, uplo, GALA_NON_UNIT, n, A, a_off, lda, a_stride, A,
                                        a_off, lda, a_stride, batch, inf);
    if (st == GALA_OK || numerical(st)) {
        pi_cfg c;
        pi_config(ctx, dt, &c);
        const int up = uplo == GALA_UPPER;
        gala_status s2;
        if (st == GALA_OK) {
            la_set s;
            memset(&s, 0, sizeof s);
            s.count = batch;
            s.n = n;
            s.A = A;
            s.a_off = a_off;
            s.lda = lda;
            s.a_stride = a_stride;
            s.desc = A;
            s2 = batch == 1 && n >= c.blas3_min && gala_blas3_available(ctx)
                     ? pi_lauum_blas3(ctx, dt, up, &s, &c)
                     : pi_lauum(ctx, dt, up, &s, &c);
        } else {
            /* only the inverted matrices: as a variable batch of the good ones */
            int *nn = gala_malloc((size_t)batch * sizeof *nn), *ld = gala_malloc((size_t)batch * sizeof *ld);
            int *good = gala_malloc((size_t)batch * sizeof *good);
            size_t *off = gala_malloc((size_t)batch * sizeof *off);
            if (!nn || !ld || !good || !off) {
                s2 = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
            } else {
                for (int b = 0; b < batch; ++b) {
                    nn[b] = n;
                    ld[b] = lda;
                    off[b] = a_off + (size_t)b * a_stride;
                    good[b] = inf[b] == 0;
                }
                s2 = pi_lauum_v(ctx, dt, up, A, nn, off, ld, batch, good, &c);
            }
            gala_free(nn);
            gala_free(ld);
            gala_free(good);
            gala_free(off);
        }
        st = s2 != GALA_OK ? s2 : pi_report(ctx, fn, st, inf, batch);
    }
    if (inf != info) gala_free(inf);
    return st;
}

gala_status gala_potri_batched(gala_context *ctx, gala_uplo uplo, int n, gala_buffer *A,
                               size_t a_off, int lda, size_t a_stride, int batch, int *info)
{
    return pi_batched("gala_potri_batched", ctx, uplo, n, A, a_off, lda, a_stride, batch, info);
}

gala_status gala_potri(gala_context *ctx, gala_uplo uplo, int n, gala_buffer *A, size_t a_off,
                       int lda, int *info)
{
    return pi_batched("gala_potri", ctx, uplo, n, A, a_off, lda, 0, 1, info);
}

gala_status gala_potri_vbatched(gala_context *ctx, gala_uplo uplo, const int *n, gala_buffer *A,
                                const size_t *a_off, const int *lda, int batch, int *info)
{
    static const char fn[] = "gala_potri_vbatched";
    GALA_TRY(la_check_vbatched_inplace(ctx, fn, uplo, n, A, a_off, lda, batch));
    if (batch == 0) return GALA_OK;
    const gala_dtype dt = A->dtype;
    int *inf = info ? info : gala_malloc((size_t)batch * sizeof *inf);
    int *good = gala_malloc((size_t)batch * sizeof *good);
    gala_status st = GALA_OK;
    if (!inf || !good) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    if (st == GALA_OK)
        st = gala_trtri_vbatched(ctx, uplo, GALA_NON_UNIT, n, A, a_off, lda, A, a_off, lda, batch,
                                 inf);
    if (st == GALA_OK || numerical(st)) {
        pi_cfg c;
        pi_config(ctx, dt, &c);
        for (int b = 0; b < batch; ++b) good[b] = inf[b] == 0;
        gala_status s2 = pi_lauum_v(ctx, dt, uplo == GALA_UPPER, A, n, a_off, lda, batch, good, &c);
        st = s2 != GALA_OK ? s2 : pi_report(ctx, fn, st, inf, batch);
    }
    if (inf != info) gala_free(inf);
    gala_free(good);
    return st;
}
