/* Shared machinery of the dense factorizations (see la_common.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "la_common.h"
#include "../core/blas3.h"
#include "../../cl/lagemm_abi.h"

GALA_LAUNCHER(lagemm_launch, LAGEMM_ARGS_gemm_upd)

gala_status la_check_uplo(gala_context *ctx, const char *fn, gala_uplo uplo)
{
    if (uplo != GALA_LOWER && uplo != GALA_UPPER)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "%s: uplo = %d is neither GALA_LOWER nor GALA_UPPER", fn, (int)uplo);
    return GALA_OK;
}

gala_status la_check_strided(gala_context *ctx, const char *fn, const char *name,
                             const gala_buffer *buf, gala_dtype dtype, size_t off, int rows,
                             int cols, int ld, size_t stride, int batch, int output)
{
    if (ld < (rows > 1 ? rows : 1))
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "%s: leading dimension of %s is %d, less than max(1, %d)", fn, name, ld,
                          rows);
    int ovf = 0;
    size_t item = gala_mat_extent((size_t)rows, (size_t)cols, (size_t)ld, &ovf);
    size_t ext = gala_span(item, stride, (size_t)batch, &ovf);
    if (ovf) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the size of %s overflows", fn, name);
    GALA_TRY(gala_check_buf(ctx, fn, name, buf, dtype, off, ext));
    if (output && batch > 1 && item > 0 && stride < item) {
        /* allowed only when the matrices are stacked inside one stripe of ld rows */
        size_t r0 = off % (size_t)ld;
        if (stride < (size_t)rows || r0 + (size_t)(batch - 1) * stride + (size_t)rows > (size_t)ld)
            return gala_error(ctx, GALA_ERR_INVALID_ARG,
                              "%s: the matrices of %s overlap (stride %zu, each spans %zu elements)",
                              fn, name, stride, item);
    }
    return GALA_OK;
}

typedef struct span_ref {
    size_t lo, hi;
    int idx;
} span_ref;

static int span_cmp(const void *a, const void *b)
{
    const span_ref *x = a, *y = b;
    return x->lo < y->lo ? -1 : (x->lo > y->lo ? 1 : (x->idx < y->idx ? -1 : x->idx > y->idx));
}

/* The extent of matrix b (rows × cols at leading dimension ld, 0 when empty), checked
 * against the buffer; GALA_OK or the error, with the matrix named. */
static gala_status vb_extent(gala_context *ctx, const char *fn, const char *name,
                             const gala_buffer *buf, const int *rows, const int *cols,
                             const size_t *off, const int *ld, int b, size_t *ext)
{
    const int r = rows[b], c = cols ? cols[b] : rows[b];
    if (r < 0 || c < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: matrix %d of %s has a negative size "
                          "(%d×%d)", fn, b, name, r, c);
    if (ld[b] < (r > 1 ? r : 1))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: matrix %d of %s: leading dimension %d "
                          "is less than max(1, %d)", fn, b, name, ld[b], r);
    int ovf = 0;
    if (sizeof(size_t) >= 8) /* int sizes: (c - 1)·ld + r < 2⁶³, no overflow to check */
        *ext = r == 0 || c == 0 ? 0 : (size_t)(c - 1) * (size_t)ld[b] + (size_t)r;
    else
        *ext = gala_mat_extent((size_t)r, (size_t)c, (size_t)ld[b], &ovf);
    if (ovf)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: matrix %d of %s: size overflows", fn,
                          b, name);
    if (*ext > 0 && (off[b] > buf->count || *ext > buf->count - off[b]))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: matrix %d of %s needs elements [%zu, "
                          "%zu) but the buffer has %zu", fn, b, name, off[b], off[b] + *ext,
                          buf->count);
    return GALA_OK;
}

gala_status la_check_vbatched(gala_context *ctx, const char *fn, const char *name,
                              const gala_buffer *buf, gala_dtype dtype, const int *rows,
                              const int *cols, const size_t *off, const int *ld, int batch,
                              int output)
{
    if (batch == 0) return GALA_OK;
    if (!rows || !off || !ld)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: a size, offset or leading-dimension "
                          "array of %s is NULL", fn, name);
    if (!buf) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: buffer %s is NULL", fn, name);
    /* one pass; outputs laid out in ascending, disjoint order (the usual packing) need no
     * more: a later matrix starting at or after the end of the one before cannot overlap any
     * earlier one */
    size_t hi = 0, ext = 0; /* hi: end of the last nonempty matrix so far (0: none) */
    int ascending = 1, b = 0;
    if (sizeof(size_t) >= 8) {
        /* the same tests as vb_extent without its calls and messages (a variable batch has
         * up to millions of matrices); the first failing one gets its message below */
        const size_t cnt = buf->count;
        for (; b < batch; ++b) {
            const int r = rows[b], c = cols ? cols[b] : r, l = ld[b];
            if ((r | c) < 0 || l < (r > 1 ? r : 1)) break;
            ext = r == 0 || c == 0 ? 0 : (size_t)(c - 1) * (size_t)l + (size_t)r;
            if (ext == 0) continue;
            if (off[b] > cnt || ext > cnt - off[b]) break;
            if (off[b] < hi) ascending = 0;
            hi = off[b] + ext;
        }
        if (!output) ascending = 1;
    }
    for (; b < batch; ++b) {
        GALA_TRY(vb_extent(ctx, fn, name, buf, rows, cols, off, ld, b, &ext));
        if (ext == 0 || !output) continue;
        if (off[b] < hi) ascending = 0;
        hi = off[b] + ext;
    }
    GALA_TRY(gala_check_buf(ctx, fn, name, buf, dtype, 0, 0));
    if (!output || ascending) return GALA_OK;
    /* any other order: sort the spans and look at neighbours */
    span_ref *sp = gala_malloc((size_t)batch * sizeof *sp);
    if (!sp) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    int ns = 0;
    for (b = 0; b < batch; ++b) {
        (void)vb_extent(ctx, fn, name, buf, rows, cols, off, ld, b, &ext); /* checked above */
        if (ext == 0) continue;
        sp[ns].lo = off[b];
        sp[ns].hi = off[b] + ext;
        sp[ns].idx = b;
        ns++;
    }
    gala_status st = GALA_OK;
    gala_sort(sp, (size_t)ns, sizeof *sp, span_cmp);
    for (int i = 1; i < ns; ++i) {
        if (sp[i].lo < sp[i - 1].hi) {
            st = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: matrices %d and %d of %s overlap",
                            fn, sp[i - 1].idx, sp[i].idx, name);
            break;
        }
    }
    gala_free(sp);
    return st;
}

gala_status la_check_batched_inplace(gala_context *ctx, const char *fn, gala_uplo uplo, int n,
                                     const gala_buffer *A, size_t a_off, int lda,
                                     size_t a_stride, int batch)
{
    GALA_TRY(gala_check_ctx(ctx, fn));
    GALA_TRY(la_check_uplo(ctx, fn, uplo));
    if (n < 0 || batch < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: negative size (n = %d, batch = %d)", fn,
                          n, batch);
    GALA_TRY(la_check_strided(ctx, fn, "A", A, 0, a_off, n, n, lda, a_stride, batch, 1));
    return gala_check_float_type(ctx, fn, A->dtype);
}

gala_status la_check_vbatched_inplace(gala_context *ctx, const char *fn, gala_uplo uplo,
                                      const int *n, const gala_buffer *A, const size_t *a_off,
                                      const int *lda, int batch)
{
    GALA_TRY(gala_check_ctx(ctx, fn));
    GALA_TRY(la_check_uplo(ctx, fn, uplo));
    if (batch < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: batch = %d is negative", fn, batch);
    if (batch == 0) return GALA_OK;
    GALA_TRY(la_check_vbatched(ctx, fn, "A", A, 0, n, NULL, a_off, lda, batch, 1));
    return gala_check_float_type(ctx, fn, A->dtype);
}

static atomic_int la_epoch_counter;

gala_status la_info_begin(gala_context *ctx, int batch, size_t tmp, gala_buffer *user_info,
                          size_t user_off, la_info *li)
{
    const size_t nin = user_info ? 0 : (size_t)batch;
    memset(li, 0, sizeof *li);
    gala_buffer *mapped;
    gala_flag_word(ctx, &mapped, &li->host_flag);
    /* the flag word first (unless it lives in mapped host memory), then the internal info
     * array, then the caller's temporary space */
    const size_t f = li->host_flag ? 0 : 1;
    gala_buffer *sc = NULL;
    if (f + nin + tmp > 0)
        GALA_TRY(gala_scratch(ctx, LA_SCRATCH_INFO, GALA_INT, f + nin + tmp, &sc));
    li->flag = li->host_flag ? mapped : sc;
    li->fo = 0;
    li->info = user_info ? user_info : sc;
    li->io = user_info ? user_off : f;
    li->tmp = sc;
    li->to = f + nin;
    /* a fresh nonzero epoch; stale flags from earlier calls (or other users of the slot)
     * only cost a read of the info array, which is authoritative */
    int e = atomic_fetch_add(&la_epoch_counter, 1) & 0x3fffffff;
    li->epoch = e + 1;
    return GALA_OK;
}

gala_status la_info_end(gala_context *ctx, const char *fn, const la_info *li, int batch, int *info,
                        const int *nvb, gala_status numerical, const char *what_pre,
                        const char *what_post)
{
    /* zero the caller's info while the device still works (the common case: nothing
     * failed): for a batch of 100000 that is 400 KB of host writes off the wait */
    if (info) memset(info, 0, (size_t)batch * sizeof *info);
    int flag = 0;
    if (li->host_flag) {
        GALA_TRY(gala_finish(ctx)); /* then the kernels' writes are visible */
        flag = *li->host_flag;
    } else {
        GALA_TRY(gala_buffer_read(li->flag, li->fo, 1, &flag));
    }
    if (flag != li->epoch) return GALA_OK;
    int *v = info ? info : gala_malloc((size_t)batch * sizeof *v);
    if (!v) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory for info", fn);
    gala_status st = gala_buffer_read(li->info, li->io, (size_t)batch, v);
    if (st == GALA_OK) {
        int first = -1, nfail = 0, nonfinite = 0;
        for (int b = 0; b < batch; ++b) {
            if (nvb && nvb[b] == 0) v[b] = 0;
            if (v[b] == 0) continue;
            if (first < 0) first = b;
            nfail++;
            if (v[b] < 0) nonfinite = 1;
        }
        if (first >= 0) {
            int k = v[first];
            st = nonfinite ? GALA_ERR_NOT_FINITE : numerical;
            if (k > 0)
                gala_error(ctx, st, "%s: %d of %d matrices failed; the first, matrix %d: %s%d%s",
                           fn, nfail, batch, first, what_pre, k, what_post);
            else
                gala_error(ctx, st, "%s: %d of %d matrices failed; the first, matrix %d: NaN or "
                           "Inf at column %d", fn, nfail, batch, first, -k);
        }
    }
    if (v != info) gala_free(v);
    return st;
}

void la_desc_put(int *d, int n, int lda, size_t aoff, int idx, int nrhs, int ldb, size_t boff)
{
    d[LA_D_N] = n;
    d[LA_D_LDA] = lda;
    d[LA_D_AOFF] = (int)(unsigned int)(aoff & 0xffffffffu);
    d[LA_D_AOFF + 1] = (int)(unsigned int)((unsigned long long)aoff >> 32);
    d[LA_D_IDX] = idx;
    d[LA_D_NRHS] = nrhs;
    d[LA_D_LDB] = ldb;
    d[LA_D_BOFF] = (int)(unsigned int)(boff & 0xffffffffu);
    d[LA_D_BOFF + 1] = (int)(unsigned int)((unsigned long long)boff >> 32);
    d[LA_D_PAD] = 0;
}

int la_pow2(int n, int lo)
{
    int p = lo > 0 ? lo : 1;
    while (p < n) p <<= 1;
    return p;
}

typedef struct n_idx {
    int n, idx;
} n_idx;

static int by_n_desc(const void *a, const void *b)
{
    const n_idx *x = a, *y = b;
    if (x->n != y->n) return x->n > y->n ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

/* Small bucket of a matrix of order m (0 < m <= small): lg with min_bucket << lg the
 * smallest power of two >= max(m, min_bucket). */
static int bucket_lg(int m, int min_bucket)
{
    int lg = 0;
    while ((min_bucket << lg) < m) ++lg;
    return lg;
}

/* ---- variable batches' descriptors, kept across calls
 * An MPC loop factors the same sizes at the same offsets every step, and potrf is often
 * followed by potrs or potri on the same batch. The context keeps the inputs of its last
 * LA_VB_MEMO builds with their device descriptors (each in its own scratch slot, which
 * nothing else writes); a call whose arrays equal a kept build's reads them with memcmp
 * instead of building and uploading 40 bytes per matrix again. */
typedef struct vb_entry {
    unsigned long long used; /* when last used (the memo's clock); 0: empty */
    int batch, small, min_bucket, has; /* has: 1 nrhs, 2 b_off, 4 ldb given */
    int nruns;
    la_run runs[8];
    void *mem; /* the copies below, one block of cap bytes */
    size_t cap;
    size_t *a_off, *b_off;
    int *n, *lda, *nrhs, *ldb, *nlist;
} vb_entry;

typedef struct vb_memo {
    vb_entry e[LA_VB_MEMO];
    unsigned long long clock;
} vb_memo;

static void vb_memo_free(void *p)
{
    vb_memo *m = p;
    if (!m) return;
    for (int i = 0; i < LA_VB_MEMO; ++i) gala_free(m->e[i].mem);
    gala_free(m);
}

static vb_memo *vb_memo_get(gala_context *ctx)
{
    if (!ctx->vb_memo) {
        ctx->vb_memo = gala_calloc(1, sizeof(vb_memo));
        if (ctx->vb_memo) ctx->vb_memo_free = vb_memo_free;
    }
    return ctx->vb_memo;
}

static int same_ints(const int *kept, const int *a, int batch)
{
    return !memcmp(kept, a, (size_t)batch * sizeof *a);
}

static int vb_match(const vb_entry *e, const int *n, const int *nrhs, const size_t *a_off,
                    const int *lda, const size_t *b_off, const int *ldb, int batch, int small,
                    int min_bucket, int has)
{
    if (!e->used || e->batch != batch || e->small != small || e->min_bucket != min_bucket ||
        e->has != has)
        return 0;
    return same_ints(e->n, n, batch) && same_ints(e->lda, lda, batch) &&
           !memcmp(e->a_off, a_off, (size_t)batch * sizeof *a_off) &&
           (!nrhs || same_ints(e->nrhs, nrhs, batch)) && (!ldb || same_ints(e->ldb, ldb, batch)) &&
           (!b_off || !memcmp(e->b_off, b_off, (size_t)batch * sizeof *b_off));
}

/* Keep a build's inputs and nlist (total descriptors) in e; 0 when there is no memory for
 * them (the entry stays empty). */
static int vb_keep(vb_entry *e, const int *n, const int *nrhs, const size_t *a_off,
                   const int *lda, const size_t *b_off, const int *ldb, int batch, int small,
                   int min_bucket, int has, const int *nl, int total, const la_run *runs,
                   int nruns)
{
    const size_t B = (size_t)batch, need = B * sizeof(size_t) * (b_off ? 2 : 1) +
                                           (B * (2 + !!nrhs + !!ldb) + (size_t)total) * sizeof(int);
    if (e->cap < need) {
        gala_free(e->mem);
        e->mem = gala_malloc(need);
        e->cap = e->mem ? need : 0;
        if (!e->mem) return 0;
    }
    char *p = e->mem;
#define VB_TAKE(dst, src, type)                                                             \
    do {                                                                                    \
        (dst) = NULL;                                                                       \
        if (src) {                                                                          \
            (dst) = (type *)(void *)p;                                                      \
            memcpy((dst), (src), B * sizeof(type));                                         \
            p += B * sizeof(type);                                                          \
        }                                                                                   \
    } while (0)
    VB_TAKE(e->a_off, a_off, size_t);
    VB_TAKE(e->b_off, b_off, size_t);
    VB_TAKE(e->n, n, int);
    VB_TAKE(e->lda, lda, int);
    VB_TAKE(e->nrhs, nrhs, int);
    VB_TAKE(e->ldb, ldb, int);
#undef VB_TAKE
    e->nlist = (int *)(void *)p;
    if (total) memcpy(e->nlist, nl, (size_t)total * sizeof *nl);
    if (nruns) memcpy(e->runs, runs, (size_t)nruns * sizeof *runs);
    e->nruns = nruns;
    e->batch = batch;
    e->small = small;
    e->min_bucket = min_bucket;
    e->has = has;
    return 1;
}

void la_vb_release(la_vb *vb)
{
    gala_free(vb->own);
    memset(vb, 0, sizeof *vb);
}

gala_status la_desc_build(gala_context *ctx, const int *n, const int *nrhs, const size_t *a_off,
                          const int *lda, const size_t *b_off, const int *ldb, int batch,
                          int small, int min_bucket, la_vb *vb)
{
    memset(vb, 0, sizeof *vb);
    const int has = (nrhs ? 1 : 0) | (b_off ? 2 : 0) | (ldb ? 4 : 0);
    /* la.vb_memo: the largest batch kept (0: none). A kept batch's descriptors take at most
     * 40 MB of device memory; a larger batch is built in the first entry's slot, as every
     * batch was before there was a memo */
    const long keep = gala_tuned(ctx, 0)->la.vb_memo;
    const int use = keep > 0 && batch <= keep && vb_memo_get(ctx);
    vb_memo *m = ctx->vb_memo;
    int slot = 0; /* the entry (and its scratch slot) this build goes to */
    if (use) {
        for (int i = 0; i < LA_VB_MEMO; ++i) {
            vb_entry *e = &m->e[i];
            if (vb_match(e, n, nrhs, a_off, lda, b_off, ldb, batch, small, min_bucket, has)) {
                e->used = ++m->clock;
                vb->desc = e->nruns ? ctx->scratch[LA_SCRATCH_VB + i] : NULL;
                vb->nlist = e->nlist;
                if (e->nruns) memcpy(vb->runs, e->runs, (size_t)e->nruns * sizeof *e->runs);
                vb->nruns = e->nruns;
                return GALA_OK;
            }
            if (e->used < m->e[slot].used) slot = i; /* empty, else least recently used */
        }
    }
    if (m) m->e[slot].used = 0; /* its descriptors are about to be replaced */
    /* pass 1: how many matrices each bucket gets (a counting sort: the caller's order
     * inside a small bucket, buckets ascending, then the large run sorted by n desc) */
    int cnt[8] = {0}, nmax[8] = {0}, rmax[8] = {0}, n_large = 0, total = 0;
    for (int b = 0; b < batch; ++b) {
        if (n[b] == 0 || (nrhs && nrhs[b] == 0)) continue;
        const int r = nrhs ? nrhs[b] : 0;
        int k = 7; /* the large run */
        if (n[b] <= small) k = bucket_lg(n[b], min_bucket);
        else n_large++;
        cnt[k]++;
        if (n[b] > nmax[k]) nmax[k] = n[b];
        if (r > rmax[k]) rmax[k] = r;
        total++;
    }
    /* small buckets are lg 0..6 (small <= 64); slot 7 is the large run */
    size_t pos[8];
    size_t at = 0;
    for (int k = 0; k < 8; ++k) {
        pos[k] = at;
        if (!cnt[k]) continue;
        vb->runs[vb->nruns].first = at;
        vb->runs[vb->nruns].count = cnt[k];
        vb->runs[vb->nruns].bucket = k < 7 ? min_bucket << k : 0;
        vb->runs[vb->nruns].nmax = nmax[k];
        vb->runs[vb->nruns].rhsmax = rmax[k];
        vb->nruns++;
        at += (size_t)cnt[k];
    }
    if (total == 0) {
        /* every matrix is empty: nothing to upload, and nothing to build next time */
        if (use && vb_keep(&m->e[slot], n, nrhs, a_off, lda, b_off, ldb, batch, small,
                           min_bucket, has, NULL, 0, NULL, 0))
            m->e[slot].used = ++m->clock;
        return GALA_OK;
    }
    int *d = gala_malloc((size_t)total * LA_DSZ * sizeof *d);
    int *nl = gala_malloc((size_t)total * sizeof *nl);
    n_idx *ni = n_large ? gala_malloc((size_t)n_large * sizeof *ni) : NULL;
    if (!d || !nl || (n_large && !ni)) {
        gala_free(d);
        gala_free(nl);
        gala_free(ni);
        memset(vb, 0, sizeof *vb);
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no host memory for matrix descriptors");
    }
    /* pass 2: small matrices straight to their slots, large ones collected for the sort */
    int il = 0;
    for (int b = 0; b < batch; ++b) {
        if (n[b] == 0 || (nrhs && nrhs[b] == 0)) continue;
        if (n[b] > small) {
            ni[il].n = n[b];
            ni[il].idx = b;
            ++il;
            continue;
        }
        const size_t i = pos[bucket_lg(n[b], min_bucket)]++;
        la_desc_put(d + i * LA_DSZ, n[b], lda[b], a_off[b], b, nrhs ? nrhs[b] : 0,
                    ldb ? ldb[b] : 1, b_off ? b_off[b] : 0);
        nl[i] = n[b];
    }
    if (n_large) {
        qsort(ni, (size_t)n_large, sizeof *ni, by_n_desc);
        for (int k = 0; k < n_large; ++k) {
            const int bb = ni[k].idx;
            const size_t i = pos[7]++;
            la_desc_put(d + i * LA_DSZ, n[bb], lda[bb], a_off[bb], bb, nrhs ? nrhs[bb] : 0,
                        ldb ? ldb[bb] : 1, b_off ? b_off[bb] : 0);
            nl[i] = n[bb];
        }
        gala_free(ni);
    }
    gala_status st = gala_scratch(ctx, LA_SCRATCH_VB + slot, GALA_INT, (size_t)total * LA_DSZ,
                                  &vb->desc);
    if (st == GALA_OK) st = gala_buffer_write(vb->desc, 0, (size_t)total * LA_DSZ, d);
    gala_free(d);
    if (st != GALA_OK) {
        gala_free(nl);
        memset(vb, 0, sizeof *vb);
        return st;
    }
    /* kept for the next calls when there is memory for the copies; else this call owns nl */
    if (use && vb_keep(&m->e[slot], n, nrhs, a_off, lda, b_off, ldb, batch, small, min_bucket,
                       has, nl, total, vb->runs, vb->nruns)) {
        m->e[slot].used = ++m->clock;
        vb->nlist = m->e[slot].nlist;
        gala_free(nl);
    } else {
        vb->nlist = nl;
        vb->own = nl;
    }
    return GALA_OK;
}

int la_active(const la_set *s, int j)
{
    if (!s->vb) return s->n > j ? s->count : 0;
    int lo = 0, hi = s->count; /* nlist descending: first index with nlist <= j */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s->nlist[mid] > j) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int la_wg(const gala_context *ctx, long want, int lo)
{
    const long mx = gala_max_wg(ctx);
    if (want > mx) want = mx;
    int p = 1;
    while ((long)p * 2 <= want) p <<= 1;
    return p < lo ? lo : p;
}

int la_nmax(const la_set *s) { return s->vb ? (s->count ? s->nlist[0] : 0) : s->n; }

la_set la_sub(const la_set *s, int start, int count)
{
    la_set r = *s;
    r.count = count;
    if (s->vb) {
        r.dofs = s->dofs + (size_t)start;
        r.nlist = s->nlist ? s->nlist + start : NULL;
    } else {
        r.a_off = s->a_off + (size_t)start * s->a_stride;
        r.b_off = s->b_off + (size_t)start * s->b_stride;
        r.info_base = s->info_base + (size_t)start;
    }
    return r;
}

/* Element (r, c) of a strided set's matrix src (0: M0 in logical L coordinates, stored as
 * U = Lᵀ when up; 1: M1 plain) at r·*ar + c·*ac from the matrix's first element. */
static void upd_strides(const la_set *s, int up, int src, size_t *ar, size_t *ac)
{
    const size_t ld = (size_t)(src ? s->ldb : s->lda);
    *ar = src || !up ? 1 : ld;
    *ac = src || !up ? ld : 1;
}

/* One operand of la_gemm_upd as a gemm_tc view: X(i, p) = Msrc(r0 + i, c0 + p), or
 * Msrc(r0 + p, c0 + i) when tr. */
static gala_tc_view upd_view(const la_set *s, int up, la_op o)
{
    size_t ar, ac;
    upd_strides(s, up, o.src, &ar, &ac);
    const gala_buffer *M1 = s->B ? s->B : s->A;
    gala_tc_view v = {o.src ? M1 : s->A, (o.src ? s->b_off : s->a_off) + (size_t)o.r0 * ar +
                      (size_t)o.c0 * ac, o.tr ? ac : ar, o.tr ? ar : ac,
                      o.src ? s->b_stride : s->a_stride};
    return v;
}

/* la_gemm_upd of a strided set through gala's GEMM kernel (cl/gemm_tc.cl; lagemm.tc): one
 * size for every matrix; under mask (C's block on the diagonal, c.r0 = c.c0) C's logical
 * lower triangle is the kernel's GEMM_TC_LOWER, whichever triangle stores it. */
static gala_status upd_tc(gala_context *ctx, gala_dtype dt, int mode, const gala_tc_tiles *t,
                          int up, const la_set *s, int count, la_dim m, la_dim n, la_dim k,
                          double alpha, int mask, la_op a, la_op b, la_op c,
                          const la_info *li, int skipdead)
{
    const int mm = s->n - m.x < m.cap ? s->n - m.x : m.cap;
    const int ns = n.src ? s->nrhs : s->n;
    const int nn = ns - n.x < n.cap ? ns - n.x : n.cap;
    const int kk = s->n - k.x < k.cap ? s->n - k.x : k.cap;
    if (mm <= 0 || nn <= 0 || kk <= 0) return GALA_OK;
    gala_tc_view cv = upd_view(s, up, (la_op){c.src, c.r0, c.c0, 0});
    gala_tc_call call = {count, mm, nn, kk, mask ? GEMM_TC_LOWER : GEMM_TC_ALL, alpha, 1.0,
                         upd_view(s, up, a), upd_view(s, up, b), cv,
                         li && skipdead ? li->info : NULL,
                         li && skipdead ? li->io + s->info_base : 0, li && skipdead};
    return gala_tc_run(ctx, dt, mode, t, &call);
}

gala_status la_gemm_upd(gala_context *ctx, gala_dtype dt, int up, const la_set *s, int count,
                        la_dim m, la_dim n, la_dim k, int mmax, int nmax, double alpha, int mask,
                        la_op a, la_op b, la_op c, const la_info *li, int skipdead)
{
    if (count <= 0 || mmax <= 0 || nmax <= 0) return GALA_OK;
    if (!s->vb && (!mask || c.r0 == c.c0)) {
        gala_tc_tiles tiles;
        const int tc = gala_tc_mode(ctx, "lagemm", dt, mmax, nmax, &tiles);
        if (tc) return upd_tc(ctx, dt, tc, &tiles, up, s, count, m, n, k, alpha, mask, a, b,
                              c, li, skipdead);
    }
    int tile = (int)gala_tuned(ctx, dt)->lagemm.tile;
    int tk = (int)gala_tuned(ctx, dt)->lagemm.tk;
    int td = (int)gala_tuned(ctx, dt)->lagemm.td;
    if (td < 1) td = 1;
    while ((size_t)(td * td) > ctx->info.max_work_group_size && td > 1) td /= 2;
    if (tile < td) tile = td;
    tile = tile / td * td;
    if (tk < 1) tk = 1;
    /* the staged slices, TK·(TM + 1 + TN + 1) REALs, within the device's local memory and
     * the 48 KiB of static shared memory a CUDA kernel may have: a deeper slice than fits
     * (e.g. lagemm.tk = 32 with tiles of 128 in double: 66 KB) is halved */
    size_t cap = ctx->info.local_mem_bytes;
    if (cap == 0 || cap > 48 * 1024) cap = 48 * 1024;
    while (tk > 1 && (size_t)tk * (size_t)(2 * tile + 2) * gala_dtype_size(dt) > cap) tk /= 2;
    gala_program_key key;
    gala_kernel *kern;
    gala_key_init(&key, "lagemm", dt);
    gala_key_def(&key, "TM", tile);
    gala_key_def(&key, "TN", tile);
    gala_key_def(&key, "TK", tk);
    gala_key_def(&key, "TDM", td);
    gala_key_def(&key, "TDN", td);
    gala_key_def(&key, "UNROLL", gala_tuned(ctx, dt)->la.unroll);
    gala_key_def(&key, "MINB", gala_tuned(ctx, dt)->lagemm.minb);
    gala_key_def(&key, "SV", gala_tuned(ctx, dt)->lagemm.sv);
    GALA_TRY(gala_kernel_get(ctx, &key, "gemm_upd", &kern));
    const int tm = (mmax + tile - 1) / tile, tn = (nmax + tile - 1) / tile;
    const long long tiles = (long long)tm * tn;
    int per = (int)((1LL << 30) / tiles);
    if (per < 1) per = 1;
    const gala_buffer *M1 = s->B ? s->B : s->A;
    const gala_buffer *dsc = s->desc ? s->desc : s->A;
    const gala_buffer *inf = li ? li->info : dsc;
    for (int start = 0; start < count; start += per) {
        int cnt = count - start < per ? count - start : per;
        la_set t = la_sub(s, start, cnt);
        gala_dims d = gala_dims_1d((size_t)cnt * (size_t)tiles * (size_t)(td * td),
                                   (size_t)(td * td));
        GALA_TRY(lagemm_launch(ctx, kern, &d, cnt, tm, tn, m.x, m.cap, n.x, n.cap, n.src, k.x,
                               k.cap, alpha, mask, a.src, a.r0, a.c0, a.tr, b.src, b.r0, b.c0, b.tr,
                               c.src, c.r0, c.c0, t.A, (long long)t.a_off, t.lda,
                               (long long)t.a_stride, up, M1, (long long)t.b_off, t.ldb,
                               (long long)t.b_stride, t.n, t.nrhs, dsc, (long long)t.dofs, t.vb,
                               inf, li ? (long long)(li->io + t.info_base) : 0, skipdead));
    }
    return GALA_OK;
}

typedef struct ab_span {
    size_t lo, hi;
    int idx, is_b;
} ab_span;

static int ab_span_cmp(const void *a, const void *b)
{
    const ab_span *x = a, *y = b;
    return x->lo < y->lo ? -1 : (x->lo > y->lo);
}

gala_status la_check_ab_disjoint(gala_context *ctx, const char *fn, const gala_buffer *A,
                                 const gala_buffer *B, const int *n, const int *nrhs,
                                 const size_t *a_off, const int *lda, const size_t *b_off,
                                 const int *ldb, int batch)
{
    if (A != B || batch <= 0) return GALA_OK;
    ab_span *sp = gala_malloc(2 * (size_t)batch * sizeof *sp);
    if (!sp) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    int ns = 0;
    for (int b = 0; b < batch; ++b) {
        int ovf = 0;
        size_t ea = gala_mat_extent((size_t)n[b], (size_t)n[b], (size_t)lda[b], &ovf);
        size_t eb = gala_mat_extent((size_t)n[b], (size_t)nrhs[b], (size_t)ldb[b], &ovf);
        if (ea) sp[ns++] = (ab_span){a_off[b], a_off[b] + ea, b, 0};
        if (eb) sp[ns++] = (ab_span){b_off[b], b_off[b] + eb, b, 1};
    }
    gala_sort(sp, (size_t)ns, sizeof *sp, ab_span_cmp);
    /* sweep in order of the first element, remembering the furthest end of the A spans and
     * of the B spans seen so far: a span that starts before the furthest end of a B span
     * (or, for a B span, of an A span) shares an element with it */
    size_t a_hi = 0, b_hi = 0;
    int a_idx = -1, b_idx = -1;
    gala_status st = GALA_OK;
    for (int i = 0; i < ns && st == GALA_OK; ++i) {
        if (b_idx >= 0 && sp[i].lo < b_hi)
            st = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: %s of matrix %d overlaps B of matrix %d",
                            fn, sp[i].is_b ? "B" : "A", sp[i].idx, b_idx);
        else if (sp[i].is_b && a_idx >= 0 && sp[i].lo < a_hi)
            st = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: B of matrix %d overlaps A of matrix %d",
                            fn, sp[i].idx, a_idx);
        if (sp[i].is_b && (b_idx < 0 || sp[i].hi > b_hi)) { b_hi = sp[i].hi; b_idx = sp[i].idx; }
        if (!sp[i].is_b && (a_idx < 0 || sp[i].hi > a_hi)) { a_hi = sp[i].hi; a_idx = sp[i].idx; }
    }
    gala_free(sp);
    return st;
}
