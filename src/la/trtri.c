/*
 * gala_trtri, gala_trtri_batched, gala_trtri_vbatched: B = A⁻¹ for triangular A
 * (kernels cl/trtri.cl, algorithm and figures in docs/trtri.md).
 *
 * Paths:
 *   fused    n <= trtri.fused_max: one launch of diag_inv with NB = the smallest power of
 *            two >= n (at least 8); each block is a whole matrix, info computed on the way.
 *   blocked  larger n: trtri_check + trtri_info (per-matrix info, before anything is
 *            written, so failing matrices stay untouched), diag_inv on the diagonal blocks
 *            of order trtri.nb, then the doubling rounds s = nb, 2nb, ... < n, each one
 *            inv_lower_tri_multiply + neg_rect_lower_tri_multiply for all block pairs of all
 *            matrices.
 * Variable batches sort the matrices by path and size (bins of equal NB for the fused path,
 * descending n for the blocked one), upload one int array of records and task lists, and
 * then make the same launches as a uniform batch: one per bin, and one per kernel and round
 * for the blocked matrices together.
 *
 * Workspace (gala_scratch, owned by the context; callers of trtri must not keep data in
 * these slots across the call): slot TR_SLOT_INT holds ints
 *     [ info: batch | flag | records (vbatched) | task lists (vbatched) | check codes ]
 * and slot TR_SLOT_REAL the products T of one doubling round (the largest round decides).
 * The call ends by reading the flag (or the info array when the caller wants it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "la_common.h"
#include "../../cl/trtri_abi.h"

/* Typed launches of the trtri kernels, from their argument lists (cl/trtri_abi.h) */
GALA_LAUNCHER(trtri_launch_diag_inv, TRTRI_ARGS_diag_inv)
GALA_LAUNCHER(trtri_launch_inv_mul, TRTRI_ARGS_inv_lower_tri_multiply)
GALA_LAUNCHER(trtri_launch_neg_mul, TRTRI_ARGS_neg_rect_lower_tri_multiply)
GALA_LAUNCHER(trtri_launch_check, TRTRI_ARGS_trtri_check)
GALA_LAUNCHER(trtri_launch_info, TRTRI_ARGS_trtri_info)
enum { TR_SLOT_INT = 2, TR_SLOT_REAL = 3 };

typedef struct tr_params {
    int fused_max; /* largest n of the fused path (power of two, 0..64) */
    int nb;        /* diagonal block order of the blocked path (power of two, 8..64) */
    int cpt;       /* columns of X per work-item in diag_inv when 16 <= NB <= 32 (1 or 2) */
    int wg;        /* target work-group size of diag_inv (sets blocks per group) */
    int ts, tk, wpt; /* product tiles */
    int minb;        /* products: work-groups per SM asked of the CUDA compiler (0: none) */
    int cwg;       /* work-group size of trtri_check */
    int unroll;    /* UNR: unroll the register loops (GPUs) or not (CPU compilers) */
    int vec;       /* VEC: diag_inv reads L's columns as 16-byte vectors */
    int split;     /* SPLIT: diag_inv of order >= 16 as two half blocks and two products */
} tr_params;

/* One call: arguments after validation. Uniform batches use n..b_stride; variable batches
 * read everything from the records (n = 0, offsets 0 in the launches). */
typedef struct tr_call {
    const char *fn;
    gala_context *ctx;
    gala_dtype dt;
    int upper, unit, batch;
    const gala_buffer *A;
    gala_buffer *B;
    int n, lda, ldb;
    size_t a_off, b_off, a_stride, b_stride;
    gala_buffer *ib; /* int workspace */
    size_t flag_idx;
} tr_call;

static int is_pow2(long v) { return v > 0 && (v & (v - 1)) == 0; }

static int pow2_at_least(int n, int lo)
{
    int p = lo;
    while (p < n) p <<= 1;
    return p;
}

/* diag_inv's local memory (cl/trtri.cl): per block an nb×LDL column array (LDL = nb + the
 * 16-byte vector's width with VEC when nb is a multiple of it, else nb + 1), nb pivots, nb/cpt ints */
static size_t di_local_bytes(int nb, int cpt, int mpg, size_t es, int vec)
{
    const int rvw = (int)(16 / es), ldl = vec && nb % rvw == 0 ? nb + rvw : nb + 1;
    return (size_t)mpg * (((size_t)nb * (size_t)ldl + (size_t)nb) * es +
                          (size_t)(nb / cpt) * sizeof(int));
}

static size_t mm_local_bytes(int ts, int tk, size_t es) { return 2 * (size_t)tk * (size_t)(ts + 1) * es; }

/* Tuning values, made consistent with each other and with the device's limits. */
static void tr_get_params(const gala_context *ctx, gala_dtype dt, tr_params *p)
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    const size_t es = gala_dtype_size(dt), lmem = ctx->info.local_mem_bytes;
    const long maxwg = gala_max_wg(ctx);
    long v; /* a value this device cannot use falls back to the key's default */
    v = T->trtri.nb;
    p->nb = is_pow2(v) && v >= 8 && v <= 64 ? (int)v : (int)GALA_TUNE_DEFAULT(trtri, nb);
    v = T->trtri.cpt;
    p->cpt = v == 2 ? 2 : 1;
    p->vec = T->trtri.vec;
    p->split = T->trtri.split;
    v = T->trtri.wg;
    p->wg = v >= 1 && v <= maxwg ? (int)v : (int)GALA_TUNE_DEFAULT(trtri, wg);
    /* the diagonal blocks must fit one work-group's local memory */
    while (p->nb > 8 && (di_local_bytes(p->nb, 1, 1, es, p->vec) > lmem || p->nb > maxwg)) p->nb /= 2;
    v = T->trtri.fused_max;
    p->fused_max = is_pow2(v) && v <= 64 ? (int)v : (v == 0 ? 0 : (int)GALA_TUNE_DEFAULT(trtri, fused_max));
    if (p->fused_max > p->nb) p->fused_max = p->nb;
    /* product tiles: TS×TS outputs, (TS/WPT)² work-items; rounds with s < TS use TS = s */
    v = T->trtri.ts;
    p->ts = is_pow2(v) && v >= 8 && v <= 256 ? (int)v : (int)GALA_TUNE_DEFAULT(trtri, ts);
    v = T->trtri.wpt;
    p->wpt = is_pow2(v) && v <= p->ts / 2 && v <= 16 ? (int)v : (int)GALA_TUNE_DEFAULT(trtri, wpt);
    p->minb = (int)T->trtri.minb;
    if (p->minb < 0) p->minb = 0;
    while ((long)(p->ts / p->wpt) * (p->ts / p->wpt) > maxwg) p->wpt *= 2;
    v = T->trtri.tk;
    p->tk = is_pow2(v) && v <= p->nb ? (int)v : 8; /* unusable: a depth any nb takes */
    while (p->tk > 1 && mm_local_bytes(p->ts, p->tk, es) > lmem) p->tk /= 2;
    p->unroll = T->trtri.unroll;
    v = T->trtri.check_wg;
    p->cwg = is_pow2(v) && v <= maxwg ? (int)v : 64; /* unusable: a group any device has */
}

/* ---------------------------------------------------------------- launches */

static gala_status launch_diag(tr_call *c, const tr_params *p, int nb, int fused, long long meta_off,
                               long long task_off, int m0, int per, int step, int ntask)
{
    if (ntask == 0) return GALA_OK;
    const size_t es = gala_dtype_size(c->dt), lmem = c->ctx->info.local_mem_bytes;
    const long maxwg = gala_max_wg(c->ctx);
    /* two columns per work-item only up to NB = 32: with NB = 64 the unrolled solve would be
     * twice as long, more than LLVM-based compilers unroll (x would leave the registers) */
    const int split = p->split && nb >= 16;
    const int cpt = nb >= 16 && nb <= 32 && !split ? p->cpt : 1, tpm = nb / cpt;
    int mpg = p->wg / tpm > 1 ? p->wg / tpm : 1;
    while (mpg > 1 && (di_local_bytes(nb, cpt, mpg, es, p->vec) > lmem || (long)mpg * tpm > maxwg)) --mpg;
    if (di_local_bytes(nb, cpt, mpg, es, p->vec) > lmem || tpm > maxwg)
        return gala_error(c->ctx, GALA_ERR_INTERNAL, "%s: diag_inv with NB = %d does not fit "
                          "device '%s'", c->fn, nb, c->ctx->info.device_name);
    gala_program_key key;
    gala_kernel *k;
    gala_key_init(&key, "trtri", c->dt);
    gala_key_def(&key, "NB", nb);
    gala_key_def(&key, "CPT", cpt);
    gala_key_def(&key, "MPG", mpg);
    gala_key_def(&key, "UNR", p->unroll);
    gala_key_def(&key, "VEC", p->vec);
    gala_key_def(&key, "SPLIT", split);
    GALA_TRY(gala_kernel_get(c->ctx, &key, "diag_inv", &k));
    const size_t groups = ((size_t)ntask + (size_t)mpg - 1) / (size_t)mpg;
    gala_dims d = gala_dims_1d(groups * (size_t)mpg * (size_t)tpm, (size_t)mpg * (size_t)tpm);
    return trtri_launch_diag_inv(c->ctx, k, &d, c->upper, c->unit, fused, c->ib,
                                 (long long)c->flag_idx, meta_off, task_off, m0, per, step, ntask,
                                 c->n, c->A, (long long)c->a_off, c->lda, (long long)c->a_stride,
                                 c->B, (long long)c->b_off, c->ldb, (long long)c->b_stride);
}

static gala_status launch_check(tr_call *c, const tr_params *p, long long part_off,
                                long long meta_off, long long task_off, int m0, int per, int cols,
                                int ntask, int nm, int ninfo)
{
    gala_program_key key;
    gala_kernel *kc, *ki;
    gala_key_init(&key, "trtri", c->dt);
    gala_key_def(&key, "CWG", p->cwg);
    GALA_TRY(gala_kernel_get(c->ctx, &key, "trtri_check", &kc));
    GALA_TRY(gala_kernel_get(c->ctx, &key, "trtri_info", &ki));
    gala_dims d = gala_dims_1d((size_t)ntask * (size_t)p->cwg, (size_t)p->cwg);
    GALA_TRY(trtri_launch_check(c->ctx, kc, &d, c->upper, c->unit, c->ib, part_off, meta_off,
                                task_off, m0, per, cols, ntask, c->n, c->A, (long long)c->a_off,
                                c->lda, (long long)c->a_stride));
    const size_t local = c->ctx->info.max_work_group_size >= 64 ? 64 : 1;
    d = gala_dims_1d((size_t)ninfo, local);
    return trtri_launch_info(c->ctx, ki, &d, c->ib, part_off, (long long)c->flag_idx, meta_off, nm,
                             ninfo, per, cols, c->n);
}

static gala_status launch_round(tr_call *c, const tr_params *p, gala_buffer *T, long long meta_off,
                                long long task_off, int m0, int per, int step, int ntask, int s,
                                int ldt)
{
    if (ntask == 0) return GALA_OK;
    /* the tile shrinks with s (same work-items, fewer outputs each) */
    int ts = p->ts, wpt = p->wpt;
    while (ts > s && ts > 8) {
        ts /= 2;
        wpt = wpt > 1 ? wpt / 2 : 1;
    }
    const int tk = p->tk < ts ? p->tk : ts;
    gala_program_key key;
    gala_kernel *k1, *k2;
    gala_key_init(&key, "trtri", c->dt);
    gala_key_def(&key, "TS", ts);
    gala_key_def(&key, "TK", tk);
    gala_key_def(&key, "WPT", wpt);
    gala_key_def(&key, "UNR", p->unroll);
    gala_key_def(&key, "MINB", p->minb);
    GALA_TRY(gala_kernel_get(c->ctx, &key, "inv_lower_tri_multiply", &k1));
    GALA_TRY(gala_kernel_get(c->ctx, &key, "neg_rect_lower_tri_multiply", &k2));
    const int tiles_r = (ldt + ts - 1) / ts, tiles_c = s / ts;
    const size_t nt = (size_t)(ts / wpt) * (size_t)(ts / wpt);
    const size_t groups = (size_t)ntask * (size_t)tiles_r * (size_t)tiles_c;
    gala_dims d = gala_dims_1d(groups * nt, nt);
    GALA_TRY(trtri_launch_inv_mul(c->ctx, k1, &d, c->upper, c->unit, c->ib, meta_off, task_off, m0,
                                  per, step, ntask, s, ldt, tiles_r, tiles_c, c->n, c->A,
                                  (long long)c->a_off, c->lda, (long long)c->a_stride, c->B,
                                  (long long)c->b_off, c->ldb, (long long)c->b_stride, T));
    return trtri_launch_neg_mul(c->ctx, k2, &d, c->upper, c->unit, c->ib, meta_off, task_off, m0,
                                per, step, ntask, s, ldt, tiles_r, tiles_c, c->n, c->B,
                                (long long)c->b_off, c->ldb, (long long)c->b_stride, T);
}

/* Pairs of the round with blocks of order s in a matrix of order n. */
static long long round_pairs(long long n, long long s) { return n > s ? (n - s + 2 * s - 1) / (2 * s) : 0; }

/* Columns per trtri_check task: about 16 elements per work-item. */
static int check_cols(const tr_params *p, int n)
{
    long long cols = (16LL * p->cwg + n - 1) / (n > 0 ? n : 1);
    if (cols < 1) cols = 1;
    if (cols > n) cols = n;
    return (int)cols;
}

/* ---------------------------------------------------------------- results */

/* Read the outcome back and turn it into info and a status (la.h). */
static gala_status tr_result(tr_call *c, int *info, const int *nv)
{
    const int batch = c->batch;
    int *inf = info, *tmp = NULL;
    if (!info) {
        int flag = 0;
        GALA_TRY(gala_buffer_read(c->ib, c->flag_idx, 1, &flag));
        if (!flag) return GALA_OK;
        tmp = gala_malloc((size_t)batch * sizeof *tmp);
        if (!tmp) return gala_error(c->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory for info", c->fn);
        inf = tmp;
    }
    gala_status s = gala_buffer_read(c->ib, 0, (size_t)batch, inf);
    if (s != GALA_OK) {
        gala_free(tmp);
        return s;
    }
    int nfail = 0, first = -1, first_nan = -1;
    for (int b = 0; b < batch; ++b) {
        if (nv && nv[b] == 0) inf[b] = 0; /* never launched */
        if (inf[b] == 0) continue;
        ++nfail;
        if (first < 0) first = b;
        if (inf[b] < 0 && first_nan < 0) first_nan = b;
    }
    s = GALA_OK;
    if (nfail) {
        const int f = first_nan >= 0 ? first_nan : first, k = inf[f] < 0 ? -inf[f] : inf[f];
        s = first_nan >= 0 ? GALA_ERR_NOT_FINITE : GALA_ERR_SINGULAR;
        gala_error(c->ctx, s, "%s: %d of %d matri%s failed; %s%d: %s column %d", c->fn, nfail,
                   batch, batch == 1 ? "x" : "ces",
                   first_nan >= 0 ? "first matrix with NaN/Inf: " : "first failing matrix: ", f,
                   inf[f] < 0 ? "NaN or Inf in" : "zero diagonal entry (singular) in", k);
        if (first_nan >= 0 && first != first_nan) {
            char more[96];
            snprintf(more, sizeof more, "; first singular matrix %d (column %d)", first, inf[first]);
            gala_error_append(c->ctx, more);
        }
    }
    gala_free(tmp);
    return s;
}

/* ---------------------------------------------------------------- uniform batches */

static gala_status run_uniform(tr_call *c, int *info, int wait)
{
    gala_context *ctx = c->ctx;
    tr_params p;
    tr_get_params(ctx, c->dt, &p);
    const int n = c->n, batch = c->batch;
    const int fused = n <= p.fused_max;
    const int cols = fused ? 1 : check_cols(&p, n);
    const long long nct = fused ? 0 : ((long long)n + cols - 1) / cols;
    const long long nblk = ((long long)n + p.nb - 1) / p.nb;
    if ((long long)batch * (fused ? 1 : (nct > nblk ? nct : nblk)) > 0x7fffffffLL)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: batch = %d of order %d is too many "
                          "blocks for one call", c->fn, batch, n);
    const size_t part_off = (size_t)batch + 1;
    GALA_TRY(gala_scratch(ctx, TR_SLOT_INT, GALA_INT, part_off + (size_t)batch * (size_t)nct, &c->ib));
    c->flag_idx = (size_t)batch;
    GALA_TRY(gala_buffer_fill(c->ib, c->flag_idx, 1, 0));
    if (fused) {
        GALA_TRY(launch_diag(c, &p, pow2_at_least(n, 8), 1, -1, -1, 0, 1, 0, batch));
    } else {
        /* workspace of the largest round */
        size_t tmax = 0;
        for (long long s = p.nb; s < n; s *= 2) {
            const long long ldt = s < n - s ? s : n - s;
            const size_t need = (size_t)batch * (size_t)round_pairs(n, s) * (size_t)ldt * (size_t)s;
            if (need > tmax) tmax = need;
        }
        gala_buffer *T = NULL;
        GALA_TRY(gala_scratch(ctx, TR_SLOT_REAL, c->dt, tmax, &T));
        GALA_TRY(launch_check(c, &p, (long long)part_off, -1, -1, 0, (int)nct, cols,
                              (int)(batch * nct), 0, batch));
        GALA_TRY(launch_diag(c, &p, p.nb, 0, -1, -1, 0, (int)nblk, p.nb, (int)(batch * nblk)));
        for (long long s = p.nb; s < n; s *= 2) {
            const long long P = round_pairs(n, s), ldt = s < n - s ? s : n - s;
            if ((long long)batch * P > 0x7fffffffLL)
                return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: too many blocks", c->fn);
            GALA_TRY(launch_round(c, &p, T, -1, -1, 0, (int)P, (int)(2 * s), (int)(batch * P),
                                  (int)s, (int)ldt));
        }
    }
    return wait ? tr_result(c, info, NULL) : GALA_OK;
}

/* A uniform batch whose arguments are checked: its tr_call, then run_uniform (wait: read
 * info back and say which matrices failed). */
static gala_status tr_uniform(const char *fn, gala_context *ctx, int upper, int unit, int n,
                              const gala_buffer *A, size_t a_off, int lda, size_t a_stride,
                              gala_buffer *B, size_t b_off, int ldb, size_t b_stride, int batch,
                              int *info, int wait)
{
    tr_call c;
    memset(&c, 0, sizeof c);
    c.fn = fn;
    c.ctx = ctx;
    c.dt = A->dtype;
    c.upper = upper;
    c.unit = unit;
    c.batch = batch;
    c.A = A;
    c.B = B;
    c.n = n;
    c.lda = lda;
    c.ldb = ldb;
    c.a_off = a_off;
    c.b_off = b_off;
    c.a_stride = a_stride;
    c.b_stride = b_stride;
    return run_uniform(&c, info, wait);
}

gala_status la_trtri_nowait(gala_context *ctx, int up, int n, const gala_buffer *A, size_t a_off,
                            int lda, size_t a_stride, gala_buffer *B, size_t b_off, int ldb,
                            size_t b_stride, int batch)
{
    if (batch == 0 || n == 0) return GALA_OK;
    return tr_uniform("trtri", ctx, up != 0, 0, n, A, a_off, lda, a_stride, B, b_off, ldb,
                      b_stride, batch, NULL, 0);
}

/* ---------------------------------------------------------------- argument checks */

static gala_status check_common(gala_context *ctx, const char *fn, gala_uplo uplo, gala_diag diag,
                                int batch)
{
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (uplo != GALA_LOWER && uplo != GALA_UPPER)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: uplo = %d is not GALA_LOWER or "
                          "GALA_UPPER", fn, (int)uplo);
    if (diag != GALA_NON_UNIT && diag != GALA_UNIT)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: diag = %d is not GALA_NON_UNIT or "
                          "GALA_UNIT", fn, (int)diag);
    if (batch < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: batch = %d is negative", fn, batch);
    return GALA_OK;
}

static gala_status batched(const char *fn, gala_context *ctx, gala_uplo uplo, gala_diag diag,
                           int n, const gala_buffer *A, size_t a_off, int lda, size_t a_stride,
                           gala_buffer *B, size_t b_off, int ldb, size_t b_stride, int batch,
                           int *info)
{
    GALA_TRY(check_common(ctx, fn, uplo, diag, batch));
    if (n < 0) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: n = %d is negative", fn, n);
    const int n1 = n > 1 ? n : 1;
    if (lda < n1) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: lda = %d < max(1, n = %d)", fn, lda, n);
    if (ldb < n1) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: ldb = %d < max(1, n = %d)", fn, ldb, n);
    int ovf = 0;
    const size_t ea = n ? gala_mat_extent((size_t)n, (size_t)n, (size_t)lda, &ovf) : 0;
    const size_t eb = n ? gala_mat_extent((size_t)n, (size_t)n, (size_t)ldb, &ovf) : 0;
    const size_t sa = gala_span(ea, a_stride, (size_t)batch, &ovf);
    const size_t sb = gala_span(eb, b_stride, (size_t)batch, &ovf);
    if (ovf) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: sizes overflow", fn);
    GALA_TRY(gala_check_buf(ctx, fn, "A", A, 0, a_off, sa));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    GALA_TRY(gala_check_buf(ctx, fn, "B", B, dt, b_off, sb));
    const int inplace = A == B && a_off == b_off && lda == ldb && (a_stride == b_stride || batch <= 1);
    if (!inplace && gala_ranges_overlap(A, a_off, sa, B, b_off, sb))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: B overlaps A without being A (same "
                          "offset, leading dimension and stride)", fn);
    /* the matrices of B must not share elements: each after the other, or interleaved
     * column by column */
    if (batch > 1 && n > 0 && b_stride < eb &&
        !(b_stride >= (size_t)n && (size_t)ldb >= b_stride * (size_t)(batch - 1) + (size_t)n))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: b_stride = %zu makes the matrices of B "
                          "overlap (n = %d, ldb = %d)", fn, b_stride, n, ldb);
    if (info)
        for (int b = 0; b < batch; ++b) info[b] = 0;
    if (batch == 0 || n == 0) return GALA_OK;
    return tr_uniform(fn, ctx, uplo == GALA_UPPER, diag == GALA_UNIT, n, A, a_off, lda, a_stride,
                      B, b_off, ldb, b_stride, batch, info, 1);
}

gala_status gala_trtri(gala_context *ctx, gala_uplo uplo, gala_diag diag, int n,
                       const gala_buffer *A, size_t a_off, int lda, gala_buffer *B, size_t b_off,
                       int ldb, int *info)
{
    return batched("gala_trtri", ctx, uplo, diag, n, A, a_off, lda, 0, B, b_off, ldb, 0, 1, info);
}

gala_status gala_trtri_batched(gala_context *ctx, gala_uplo uplo, gala_diag diag, int n,
                               const gala_buffer *A, size_t a_off, int lda, size_t a_stride,
                               gala_buffer *B, size_t b_off, int ldb, size_t b_stride, int batch,
                               int *info)
{
    return batched("gala_trtri_batched", ctx, uplo, diag, n, A, a_off, lda, a_stride, B, b_off,
                   ldb, b_stride, batch, info);
}

/* ---------------------------------------------------------------- variable batches */

typedef struct tr_iv {
    size_t lo, hi;
    int out, id;
} tr_iv;

static int iv_cmp(const void *x, const void *y)
{
    const tr_iv *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->id - b->id;
}

/* Outputs may not overlap anything but their own input (exactly: in place). */
static gala_status check_var_overlap(gala_context *ctx, const char *fn, const int *n,
                                     const gala_buffer *A, const size_t *a_off, const int *lda,
                                     const gala_buffer *B, const size_t *b_off, const int *ldb,
                                     int batch)
{
    tr_iv *iv = gala_malloc(2 * (size_t)batch * sizeof *iv);
    if (!iv) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    size_t k = 0;
    for (int b = 0; b < batch; ++b) {
        if (n[b] == 0) continue;
        int ovf = 0;
        const size_t eb = gala_mat_extent((size_t)n[b], (size_t)n[b], (size_t)ldb[b], &ovf);
        iv[k++] = (tr_iv){b_off[b], b_off[b] + eb, 1, b};
        if (A == B && !(a_off[b] == b_off[b] && lda[b] == ldb[b])) {
            const size_t ea = gala_mat_extent((size_t)n[b], (size_t)n[b], (size_t)lda[b], &ovf);
            iv[k++] = (tr_iv){a_off[b], a_off[b] + ea, 0, b};
        }
    }
    gala_sort(iv, k, sizeof *iv, iv_cmp);
    size_t end_all = 0, end_out = 0;
    int id_all = -1, id_out = -1;
    gala_status s = GALA_OK;
    for (size_t i = 0; i < k && s == GALA_OK; ++i) {
        if (iv[i].out && iv[i].lo < end_all)
            s = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: B_%d overlaps matrix %d of A or B", fn,
                           iv[i].id, id_all);
        else if (!iv[i].out && iv[i].lo < end_out)
            s = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: A_%d overlaps B_%d", fn, iv[i].id, id_out);
        if (iv[i].hi > end_all) { end_all = iv[i].hi; id_all = iv[i].id; }
        if (iv[i].out && iv[i].hi > end_out) { end_out = iv[i].hi; id_out = iv[i].id; }
    }
    gala_free(iv);
    return s;
}

typedef struct tr_item {
    int group; /* fused bin (log2 NB) or 100 for the blocked path */
    int n, id;
} tr_item;

static int item_cmp(const void *x, const void *y)
{
    const tr_item *a = x, *b = y;
    if (a->group != b->group) return a->group - b->group;
    if (a->n != b->n) return b->n - a->n;
    return a->id - b->id;
}

static int ilog2(int v)
{
    int l = 0;
    while ((1 << l) < v) ++l;
    return l;
}

static gala_status run_var(tr_call *c, const int *nv, const size_t *a_off, const int *lda,
                           const size_t *b_off, const int *ldb, int *info)
{
    gala_context *ctx = c->ctx;
    const int batch = c->batch;
    tr_params p;
    tr_get_params(ctx, c->dt, &p);
    tr_item *items = gala_malloc((size_t)batch * sizeof *items);
    if (!items) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", c->fn);
    int nm = 0, nlarge = 0, nmax = 0;
    for (int b = 0; b < batch; ++b) {
        if (nv[b] == 0) continue;
        const int small = nv[b] <= p.fused_max;
        items[nm++] = (tr_item){small ? ilog2(pow2_at_least(nv[b], 8)) : 100, nv[b], b};
        if (!small) {
            ++nlarge;
            if (nv[b] > nmax) nmax = nv[b];
        }
    }
    /* order: fused bins by NB, n descending inside a bin (a counting sort: n <= 64), then
     * the blocked matrices by n descending (qsort, usually few) */
    {
        int cnt[66] = {0}, at[66];
        for (int i = 0; i < nm; ++i)
            if (items[i].group != 100) cnt[items[i].n]++;
        int k = 0;
        for (int lo = 1, hi = 8; lo <= p.fused_max; lo = hi + 1, hi *= 2)
            for (int v = hi < p.fused_max ? hi : p.fused_max; v >= lo; --v) {
                at[v] = k;
                k += cnt[v];
            }
        tr_item *sorted = gala_malloc((size_t)(nm ? nm : 1) * sizeof *sorted);
        if (!sorted) {
            gala_free(items);
            return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", c->fn);
        }
        int kl = k;
        for (int i = 0; i < nm; ++i) sorted[items[i].group != 100 ? at[items[i].n]++ : kl++] = items[i];
        gala_free(items);
        items = sorted;
        qsort(items + k, (size_t)(nm - k), sizeof *items, item_cmp);
    }
    const int first_large = nm - nlarge;
    const int cols = nlarge ? check_cols(&p, nmax) : 1;

    /* sizes of the task lists */
    long long nct = 0, ndt = 0, nrt = 0;
    size_t tmax = 0;
    for (int i = first_large; i < nm; ++i) {
        nct += (items[i].n + cols - 1) / cols;
        ndt += (items[i].n + p.nb - 1) / p.nb;
    }
    for (long long s = p.nb; s < nmax; s *= 2) {
        long long nr = 0;
        for (int i = first_large; i < nm; ++i) nr += round_pairs(items[i].n, s);
        nrt += nr;
        const long long ldt = s < nmax - s ? s : nmax - s;
        if ((size_t)nr * (size_t)ldt * (size_t)s > tmax) tmax = (size_t)nr * (size_t)ldt * (size_t)s;
        if (nr > 0x7fffffffLL) nct = -1;
    }
    if (nct < 0 || nct > 0x7fffffffLL || ndt > 0x7fffffffLL) {
        gala_free(items);
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: too many blocks for one call", c->fn);
    }
    /* int workspace: info | flag | records | check tasks | diag tasks | round tasks | codes */
    const size_t meta_off = (size_t)batch + 1;
    const size_t ct_off = meta_off + (size_t)TRTRI_MW * (size_t)nm;
    const size_t dt_off = ct_off + TRTRI_TW * (size_t)nct;
    const size_t rt_off = dt_off + TRTRI_TW * (size_t)ndt;
    const size_t part_off = rt_off + TRTRI_TW * (size_t)nrt;
    const size_t up_n = part_off - (size_t)batch; /* flag .. round tasks */
    int *up = gala_malloc(up_n * sizeof *up);
    gala_status st = up ? GALA_OK : gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", c->fn);
    if (st == GALA_OK) {
        int *rec = up + 1, *ct = up + (ct_off - (size_t)batch), *dtk = up + (dt_off - (size_t)batch);
        int *rt = up + (rt_off - (size_t)batch);
        up[0] = 0; /* flag */
        long long kc = 0, kd = 0;
        for (int i = 0; i < nm; ++i) {
            const int b = items[i].id, nb_ = items[i].n;
            int *r = rec + (size_t)TRTRI_MW * (size_t)i;
            r[TRTRI_R_N] = nb_;
            r[TRTRI_R_LDA] = lda[b];
            r[TRTRI_R_LDB] = ldb[b];
            r[TRTRI_R_AOFF] = (int)(uint32_t)((uint64_t)a_off[b] & 0xffffffffu);
            r[TRTRI_R_AOFF + 1] = (int)((uint64_t)a_off[b] >> 32);
            r[TRTRI_R_BOFF] = (int)(uint32_t)((uint64_t)b_off[b] & 0xffffffffu);
            r[TRTRI_R_BOFF + 1] = (int)((uint64_t)b_off[b] >> 32);
            r[TRTRI_R_IDX] = b;
            r[TRTRI_R_CHECK] = (int)kc;
            if (i < first_large) continue;
            for (int q = 0; q < nb_; q += cols, ++kc) {
                ct[TRTRI_TW * kc + TRTRI_T_M] = i;
                ct[TRTRI_TW * kc + TRTRI_T_START] = q;
            }
            for (int q = 0; q < nb_; q += p.nb, ++kd) {
                dtk[TRTRI_TW * kd + TRTRI_T_M] = i;
                dtk[TRTRI_TW * kd + TRTRI_T_START] = q;
            }
        }
        long long kr = 0;
        for (long long s = p.nb; s < nmax; s *= 2)
            for (int i = first_large; i < nm; ++i)
                for (long long q = 0; q + s < items[i].n; q += 2 * s, ++kr) {
                    rt[TRTRI_TW * kr + TRTRI_T_M] = i;
                    rt[TRTRI_TW * kr + TRTRI_T_START] = (int)q;
                }
        st = gala_scratch(ctx, TR_SLOT_INT, GALA_INT, part_off + (size_t)nct, &c->ib);
    }
    c->flag_idx = (size_t)batch;
    if (st == GALA_OK) st = gala_buffer_write(c->ib, (size_t)batch, up_n, up);
    gala_free(up);
    /* fused bins */
    for (int i = 0; st == GALA_OK && i < first_large;) {
        int j = i;
        while (j < first_large && items[j].group == items[i].group) ++j;
        st = launch_diag(c, &p, 1 << items[i].group, 1, (long long)meta_off, -1, i, 1, 0, j - i);
        i = j;
    }
    /* blocked matrices */
    if (st == GALA_OK && nlarge) {
        gala_buffer *T = NULL;
        st = gala_scratch(ctx, TR_SLOT_REAL, c->dt, tmax, &T);
        if (st == GALA_OK)
            st = launch_check(c, &p, (long long)part_off, (long long)meta_off, (long long)ct_off,
                              0, 1, cols, (int)nct, first_large, nlarge);
        if (st == GALA_OK)
            st = launch_diag(c, &p, p.nb, 0, (long long)meta_off, (long long)dt_off, 0, 1, 0,
                             (int)ndt);
        long long kr = 0;
        for (long long s = p.nb; st == GALA_OK && s < nmax; s *= 2) {
            long long nr = 0;
            for (int i = first_large; i < nm; ++i) nr += round_pairs(items[i].n, s);
            const long long ldt = s < nmax - s ? s : nmax - s;
            st = launch_round(c, &p, T, (long long)meta_off,
                              (long long)(rt_off + TRTRI_TW * (size_t)kr), 0, 1, 0, (int)nr,
                              (int)s, (int)ldt);
            kr += nr;
        }
    }
    gala_free(items);
    if (st != GALA_OK) return st;
    return tr_result(c, info, nv);
}

gala_status gala_trtri_vbatched(gala_context *ctx, gala_uplo uplo, gala_diag diag, const int *n,
                                const gala_buffer *A, const size_t *a_off, const int *lda,
                                gala_buffer *B, const size_t *b_off, const int *ldb, int batch,
                                int *info)
{
    static const char fn[] = "gala_trtri_vbatched";
    GALA_TRY(check_common(ctx, fn, uplo, diag, batch));
    if (batch > 0 && (!n || !a_off || !lda || !b_off || !ldb))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: n, a_off, lda, b_off and ldb must not "
                          "be NULL", fn);
    GALA_TRY(gala_check_buf(ctx, fn, "A", A, 0, 0, 0));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    GALA_TRY(gala_check_buf(ctx, fn, "B", B, dt, 0, 0));
    int b = 0;
    if (sizeof(size_t) >= 8) {
        /* the tests of the loop below without its calls (a variable batch has up to
         * millions of matrices; int sizes cannot overflow a 64-bit extent): the first
         * matrix that fails gets its message there */
        const size_t ca = A->count, cb = B->count;
        for (; b < batch; ++b) {
            const int nb = n[b], n1 = nb > 1 ? nb : 1;
            if (nb < 0 || lda[b] < n1 || ldb[b] < n1) break;
            if (nb == 0) continue;
            const size_t ea = (size_t)(nb - 1) * (size_t)lda[b] + (size_t)nb;
            const size_t eb = (size_t)(nb - 1) * (size_t)ldb[b] + (size_t)nb;
            if (a_off[b] > ca || ea > ca - a_off[b] || b_off[b] > cb || eb > cb - b_off[b]) break;
        }
    }
    for (; b < batch; ++b) {
        if (n[b] < 0)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: n[%d] = %d is negative", fn, b, n[b]);
        const int n1 = n[b] > 1 ? n[b] : 1;
        if (lda[b] < n1 || ldb[b] < n1)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: matrix %d: lda = %d, ldb = %d, "
                              "both must be >= max(1, n = %d)", fn, b, lda[b], ldb[b], n[b]);
        if (n[b] == 0) continue;
        int ovf = 0;
        const size_t ea = gala_mat_extent((size_t)n[b], (size_t)n[b], (size_t)lda[b], &ovf);
        const size_t eb = gala_mat_extent((size_t)n[b], (size_t)n[b], (size_t)ldb[b], &ovf);
        if (ovf) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: matrix %d: sizes overflow", fn, b);
        /* the matrix number is formatted only on failure: this loop runs for every matrix
         * of the batch (an snprintf per matrix was half of the host time of 50000 small
         * matrices) */
        gala_status s = gala_check_buf(ctx, fn, "A", A, dt, a_off[b], ea);
        if (s == GALA_OK) s = gala_check_buf(ctx, fn, "B", B, dt, b_off[b], eb);
        if (s != GALA_OK) {
            char num[40];
            snprintf(num, sizeof num, " (matrix %d)", b);
            gala_error_append(ctx, num);
            return s;
        }
    }
    GALA_TRY(check_var_overlap(ctx, fn, n, A, a_off, lda, B, b_off, ldb, batch));
    if (info)
        for (b = 0; b < batch; ++b) info[b] = 0;
    int any = 0;
    for (b = 0; b < batch && !any; ++b) any = n[b] > 0;
    if (!any) return GALA_OK;
    tr_call c;
    memset(&c, 0, sizeof c);
    c.fn = fn;
    c.ctx = ctx;
    c.dt = dt;
    c.upper = uplo == GALA_UPPER;
    c.unit = diag == GALA_UNIT;
    c.batch = batch;
    c.A = A;
    c.B = B;
    c.lda = 1;
    c.ldb = 1;
    return run_var(&c, n, a_off, lda, b_off, ldb, info);
}
