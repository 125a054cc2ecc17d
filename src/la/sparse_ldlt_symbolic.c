/*
 * Sparse LDLᵀ, symbolic phase (host): ordering, permuted pattern, elimination tree, column
 * counts, pattern of L, levels, and the flat schedules that the kernels of cl/sldlt.cl walk.
 *
 * With C = P·A·Pᵀ (upper triangle) and L its factor:
 *   - etree: parent[i] = min{ j > i : L(j,i) != 0 }; the nonzeros of row k of L are the
 *     nodes met walking up the tree from every i < k with C(i,k) != 0, stopping at k
 *     (or at a node already met for this k). One pass gives the column counts, a second
 *     pass writes the row indices (columns come out sorted because k increases).
 *   - level[j] = 0 for leaves, 1 + max level of the children otherwise: columns of one
 *     level depend only on lower levels, so they can be computed at the same time.
 *   - factor schedule, column j (left-looking): for every k with L(j,k) != 0, the tail of
 *     column k below row j is subtracted, times t = L(j,k)·d_k, from column j; the tail
 *     rows are a subset of column j's rows, and runs of them that land on consecutive
 *     positions of column j become one fixed-size instruction {len, src, dst, k}.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sparse_ldlt.h"

#ifdef GALA_HAVE_AMD
#include <amd.h>
#endif

void gala_sparse_ldlt_options_default(gala_sparse_ldlt_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->ordering = GALA_ORDERING_AMD;
    o->perm = NULL;
    o->expected_positive = -1;
}

void gala_sparse_ldlt_symbolic_destroy(gala_sparse_ldlt_symbolic *s)
{
    if (!s) return;
    gala_free(s->perm);
    gala_free(s->img);
    gala_free(s);
}

gala_status gala_sparse_ldlt_symbolic_stats(const gala_sparse_ldlt_symbolic *s,
                                            gala_sparse_ldlt_stats *st)
{
    if (!s || !st)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_sparse_ldlt_symbolic_stats: NULL argument");
    st->n = s->n;
    st->nnz_a = s->nnz_a;
    st->nnz_l = s->nnz_l;
    st->flops = s->flops;
    st->levels = s->nlev;
    st->max_level_width = s->max_width;
    st->instructions = s->nins;
    return GALA_OK;
}

gala_status gala_sparse_ldlt_symbolic_perm(const gala_sparse_ldlt_symbolic *s, int *perm)
{
    if (!s || (!perm && s->n > 0))
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_sparse_ldlt_symbolic_perm: NULL argument");
    if (s->n > 0) memcpy(perm, s->perm, (size_t)s->n * sizeof *perm);
    return GALA_OK;
}

/* ------------------------------------------------------------------ ordering */

int gala_amd_order(int n, const int *p, const int *i, int *perm)
{
#ifdef GALA_HAVE_AMD
    if (n <= 1) {
        for (int k = 0; k < n; ++k) perm[k] = k;
        return 0;
    }
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_defaults(control);
    const int r = amd_order(n, p, i, perm, control, info);
    if (r == AMD_OUT_OF_MEMORY) return -1;
    return r == AMD_OK || r == AMD_OK_BUT_JUMBLED ? 0 : -2;
#else
    (void)n; (void)p; (void)i; (void)perm;
    return -3;
#endif
}

static gala_status order(gala_context *ctx, const gala_csc *A, const gala_sparse_ldlt_options *o,
                         int *perm)
{
    static const char fn[] = "gala_sparse_ldlt_analyze";
    const int n = A->n;
    switch (o->ordering) {
    case GALA_ORDERING_NATURAL:
        for (int k = 0; k < n; ++k) perm[k] = k;
        return GALA_OK;
    case GALA_ORDERING_USER: {
        if (!o->perm && n > 0)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: ordering USER but options.perm is NULL", fn);
        char *seen = gala_calloc((size_t)n + 1, 1);
        if (!seen) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        for (int k = 0; k < n; ++k) {
            const int v = o->perm[k];
            if (v < 0 || v >= n || seen[v]) {
                gala_free(seen);
                return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: options.perm is not a "
                                  "permutation of 0..%d (perm[%d] = %d)", fn, n - 1, k, v);
            }
            seen[v] = 1;
            perm[k] = v;
        }
        gala_free(seen);
        return GALA_OK;
    }
    case GALA_ORDERING_AMD: {
        const int r = gala_amd_order(n, A->p, A->i, perm);
        if (r == -1) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: AMD ran out of memory", fn);
        if (r == -3)
            return gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "%s: gala was built without SuiteSparse "
                              "AMD; use GALA_ORDERING_NATURAL or GALA_ORDERING_USER", fn);
        if (r != 0)
            return gala_error(ctx, GALA_ERR_INTERNAL, "%s: AMD rejected a validated matrix", fn);
        return GALA_OK;
    }
    }
    return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: unknown ordering %d", fn, (int)o->ordering);
}

/* ------------------------------------------------------------------ growable int array */

typedef struct ivec {
    int *v;
    size_t len, cap;
} ivec;

/* append the instruction {len, src, dst, k} (cl/sldlt_abi.h) */
static int ivec_push_ins(ivec *a, int len, int src, int dst, int k)
{
    if (a->len + SLDLT_INS > a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 4096;
        if (nc > (size_t)INT_MAX) {
            if (a->len + SLDLT_INS > (size_t)INT_MAX) return 0;
            nc = (size_t)INT_MAX;
        }
        int *nv = gala_realloc(a->v, nc * sizeof *nv);
        if (!nv) return 0;
        a->v = nv;
        a->cap = nc;
    }
    int *I = a->v + a->len;
    I[SLDLT_I_LEN] = len;
    I[SLDLT_I_SRC] = src;
    I[SLDLT_I_DST] = dst;
    I[SLDLT_I_K] = k;
    a->len += SLDLT_INS;
    return 1;
}

/* ------------------------------------------------------------------ analysis */

typedef struct work {
    int *pinv, *cp, *ci, *corig, *parent, *cnt, *lp, *li, *next, *flag, *level, *rp, *rcol,
        *rpos, *order, *posj, *cost;
    int *amap;
    ivec ins;
} work;

static void work_free(work *w)
{
    int **arrs[] = {&w->pinv, &w->cp, &w->ci, &w->corig, &w->parent, &w->cnt, &w->lp, &w->li,
                    &w->next, &w->flag, &w->level, &w->rp, &w->rcol, &w->rpos, &w->order,
                    &w->posj, &w->cost, &w->amap, &w->ins.v};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; ++i) {
        gala_free(*arrs[i]);
        *arrs[i] = NULL;
    }
}

static int *ialloc(size_t n) { return gala_malloc((n ? n : 1) * sizeof(int)); }

/* Level order of the tasks: level ascending, then cost descending (similar work side by
 * side in a warp), then index. */
typedef struct task_key {
    int level, cost, j;
} task_key;
static int cmp_task(const void *a, const void *b)
{
    const task_key *x = a, *y = b;
    if (x->level != y->level) return x->level < y->level ? -1 : 1;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return x->j < y->j ? -1 : (x->j > y->j);
}

gala_status gala_sparse_ldlt_analyze(gala_context *ctx, const gala_csc *A,
                                     const gala_sparse_ldlt_options *opts,
                                     gala_sparse_ldlt_symbolic **out)
{
    static const char fn[] = "gala_sparse_ldlt_analyze";
    if (!out) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: sym is NULL", fn);
    *out = NULL;
    if (!A) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: A is NULL", fn);
    gala_sparse_ldlt_options o;
    if (opts) o = *opts; else gala_sparse_ldlt_options_default(&o);
    if (o.expected_positive < -1 || o.expected_positive > A->n)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: options.expected_positive = %d is not "
                          "-1 or in 0..n = %d", fn, o.expected_positive, A->n);
    /* validate the pattern (values too when given); the messages name this function */
    static const char name[] = "gala_sparse_ldlt_analyze: A";
    if (A->x || !A->p || A->n < 0 || A->p[A->n] == 0) {
        GALA_TRY(gala_csc_validate(ctx, name, A, 1));
    } else {
        if (A->p[A->n] < 0)
            return gala_error(ctx, GALA_ERR_INVALID_MATRIX, "%s: p[n] = %d is negative", name,
                              A->p[A->n]);
        double *zeros = gala_calloc((size_t)A->p[A->n], sizeof *zeros);
        if (!zeros) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        gala_csc tmp = *A;
        tmp.x = zeros;
        gala_status s = gala_csc_validate(ctx, name, &tmp, 1);
        gala_free(zeros);
        GALA_TRY(s);
    }
    const int n = A->n, nnza = A->p[n];

    gala_sparse_ldlt_symbolic *S = gala_calloc(1, sizeof *S);
    work w;
    memset(&w, 0, sizeof w);
    if (!S) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    S->n = n;
    S->nnz_a = nnza;
    S->expected_pos = o.expected_positive;
    S->perm = ialloc((size_t)n);
    w.pinv = ialloc((size_t)n);
    w.cp = ialloc((size_t)n + 1);
    w.ci = ialloc((size_t)nnza);
    w.corig = ialloc((size_t)nnza);
    w.parent = ialloc((size_t)n);
    w.cnt = ialloc((size_t)n);
    w.lp = ialloc((size_t)n + 1);
    w.next = ialloc((size_t)n + 1);
    w.flag = ialloc((size_t)n);
    w.level = ialloc((size_t)n);
    w.order = ialloc((size_t)n);
    w.posj = ialloc((size_t)n);
    w.cost = ialloc((size_t)n);
    w.amap = ialloc(SLDLT_AM * (size_t)nnza);
    gala_status st = GALA_OK;
#define FAIL(status_, ...)                                                                 \
    do {                                                                                   \
        st = gala_error(ctx, status_, __VA_ARGS__);                                        \
        goto done;                                                                         \
    } while (0)
    if (!S->perm || !w.pinv || !w.cp || !w.ci || !w.corig || !w.parent || !w.cnt || !w.lp ||
        !w.next || !w.flag || !w.level || !w.order || !w.posj || !w.cost || !w.amap)
        FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: no host memory (n = %d, nnz = %d)", fn, n, nnza);
    st = order(ctx, A, &o, S->perm);
    if (st != GALA_OK) goto done;
    for (int k = 0; k < n; ++k) w.pinv[S->perm[k]] = k;

    /* C = upper triangle of P·A·Pᵀ, rows sorted: bucket entries by row, then by column */
    {
        int *rcnt = w.flag; /* reuse as counters */
        memset(rcnt, 0, (size_t)n * sizeof *rcnt);
        int *tr = ialloc((size_t)nnza), *tc = ialloc((size_t)nnza), *te = ialloc((size_t)nnza),
            *rptr = ialloc((size_t)n + 1);
        if (!tr || !tc || !te || !rptr) {
            gala_free(tr); gala_free(tc); gala_free(te); gala_free(rptr);
            FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        }
        for (int j = 0; j < n; ++j)
            for (int p = A->p[j]; p < A->p[j + 1]; ++p) {
                int a = w.pinv[A->i[p]], b = w.pinv[j];
                rcnt[a < b ? a : b]++;
            }
        rptr[0] = 0;
        for (int r = 0; r < n; ++r) rptr[r + 1] = rptr[r] + rcnt[r];
        for (int r = 0; r < n; ++r) rcnt[r] = rptr[r];
        for (int j = 0; j < n; ++j)
            for (int p = A->p[j]; p < A->p[j + 1]; ++p) {
                int a = w.pinv[A->i[p]], b = w.pinv[j], lo = a < b ? a : b, hi = a < b ? b : a;
                int q = rcnt[lo]++;
                tr[q] = lo;
                tc[q] = hi;
                te[q] = p;
            }
        /* now by column, stable: rows come out increasing */
        memset(w.cp, 0, ((size_t)n + 1) * sizeof *w.cp);
        for (int q = 0; q < nnza; ++q) w.cp[tc[q] + 1]++;
        for (int c = 0; c < n; ++c) w.cp[c + 1] += w.cp[c];
        for (int c = 0; c < n; ++c) w.next[c] = w.cp[c];
        for (int q = 0; q < nnza; ++q) {
            int d = w.next[tc[q]]++;
            w.ci[d] = tr[q];
            w.corig[d] = te[q];
        }
        gala_free(tr); gala_free(tc); gala_free(te); gala_free(rptr);
    }

    /* elimination tree and column counts (entries of L below the diagonal per column) */
    for (int k = 0; k < n; ++k) {
        w.parent[k] = -1;
        w.flag[k] = k;
        w.cnt[k] = 0;
        for (int p = w.cp[k]; p < w.cp[k + 1]; ++p) {
            int i = w.ci[p];
            while (i < k && w.flag[i] != k) {
                if (w.parent[i] == -1) w.parent[i] = k;
                w.cnt[i]++;
                w.flag[i] = k;
                i = w.parent[i];
            }
        }
    }
    w.lp[0] = 0;
    for (int k = 0; k < n; ++k) {
        if (w.lp[k] > INT_MAX - w.cnt[k])
            FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: L would have more than 2^31 - 1 entries", fn);
        w.lp[k + 1] = w.lp[k] + w.cnt[k];
    }
    const int nnzl = w.lp[n];
    S->nnz_l = nnzl;
    w.li = ialloc((size_t)nnzl);
    w.rp = ialloc((size_t)n + 1);
    w.rcol = ialloc((size_t)nnzl);
    w.rpos = ialloc((size_t)nnzl);
    if (!w.li || !w.rp || !w.rcol || !w.rpos) FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);

    /* row indices of L (sorted within columns) */
    for (int k = 0; k < n; ++k) w.next[k] = w.lp[k];
    for (int k = 0; k < n; ++k) {
        w.flag[k] = k;
        for (int p = w.cp[k]; p < w.cp[k + 1]; ++p) {
            int i = w.ci[p];
            while (i < k && w.flag[i] != k) {
                w.li[w.next[i]++] = k;
                w.flag[i] = k;
                i = w.parent[i];
            }
        }
    }
    /* rows of L: for row i, the (column, position) pairs in increasing column order */
    memset(w.rp, 0, ((size_t)n + 1) * sizeof *w.rp);
    for (int p = 0; p < nnzl; ++p) w.rp[w.li[p] + 1]++;
    for (int i = 0; i < n; ++i) w.rp[i + 1] += w.rp[i];
    for (int i = 0; i < n; ++i) w.next[i] = w.rp[i];
    for (int j = 0; j < n; ++j)
        for (int p = w.lp[j]; p < w.lp[j + 1]; ++p) {
            int q = w.next[w.li[p]]++;
            w.rcol[q] = j;
            w.rpos[q] = p;
        }

    /* levels */
    for (int j = 0; j < n; ++j) w.level[j] = 0;
    S->nlev = n ? 1 : 0;
    for (int j = 0; j < n; ++j) {
        const int pa = w.parent[j];
        if (pa >= 0 && w.level[pa] < w.level[j] + 1) w.level[pa] = w.level[j] + 1;
        if (w.level[j] + 1 > S->nlev) S->nlev = w.level[j] + 1;
    }

    /* values map: entry q of C (original entry corig[q]) → V position */
    {
        /* group by L column lo = row of C entry; diag → nnzl + lo */
        int *aptr = w.flag; /* counts per column, reused */
        memset(aptr, 0, (size_t)n * sizeof *aptr);
        for (int q = 0; q < nnza; ++q) aptr[w.ci[q]]++;
        /* positions: prefix sums into next[] */
        int acc = 0;
        for (int j = 0; j < n; ++j) {
            w.next[j] = acc;
            acc += aptr[j];
            aptr[j] = w.next[j];
        }
        w.next[n] = acc;
        /* for every column hi of C, its rows lo < hi are rows of L(:, lo) = hi: find the
         * position of row hi in column lo by a search (columns are sorted) */
        for (int hi = 0; hi < n; ++hi)
            for (int q = w.cp[hi]; q < w.cp[hi + 1]; ++q) {
                const int lo = w.ci[q];
                int dst;
                if (lo == hi) {
                    dst = nnzl + lo;
                } else {
                    int a = w.lp[lo], b = w.lp[lo + 1] - 1;
                    while (a < b) {
                        int mid = a + (b - a) / 2;
                        if (w.li[mid] < hi) a = mid + 1; else b = mid;
                    }
                    if (a >= w.lp[lo + 1] || w.li[a] != hi)
                        FAIL(GALA_ERR_INTERNAL, "%s: entry (%d, %d) missing from the pattern of L",
                             fn, hi, lo);
                    dst = a;
                }
                const int slot = aptr[lo]++;
                w.amap[SLDLT_AM * slot + SLDLT_AM_A] = w.corig[q];
                w.amap[SLDLT_AM * slot + SLDLT_AM_V] = dst;
            }
        /* next[j] .. next[j+1] is column j's range in amap */
    }

    /* factor schedule: instructions of each column, in natural order first */
    int *ins_beg = w.order; /* temporarily: first instruction of column j */
    {
        /* at least one instruction per entry of L (its column update), about two (runs):
         * sized once, so that the vector is not copied as it grows (Maros–Meszaros: 1.2–2.2
         * per entry) */
        const size_t guess = (2 * (size_t)nnzl + 64) * SLDLT_INS;
        w.ins.v = guess < (size_t)INT_MAX ? gala_malloc(guess * sizeof *w.ins.v) : NULL;
        w.ins.cap = w.ins.v ? guess : 0;
        for (int i = 0; i < n; ++i) w.posj[i] = -1;
        double fma = 0;
        for (int j = 0; j < n; ++j) {
            ins_beg[j] = (int)(w.ins.len / SLDLT_INS);
            for (int p = w.lp[j]; p < w.lp[j + 1]; ++p) w.posj[w.li[p]] = p;
            long long cost = 0;
            for (int q = w.rp[j]; q < w.rp[j + 1]; ++q) {
                const int k = w.rcol[q], pjk = w.rpos[q], end = w.lp[k + 1];
                int first = 1, p = pjk + 1;
                fma += 1 + (end - p);
                cost += 1 + (end - p);
                if (p == end) {
                    if (!ivec_push_ins(&w.ins, 0, p, 0, k))
                        FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: the factor schedule does not fit in "
                             "memory", fn);
                    continue;
                }
                while (p < end) {
                    const int d0 = w.posj[w.li[p]];
                    if (d0 < 0)
                        FAIL(GALA_ERR_INTERNAL, "%s: row %d of column %d missing in column %d",
                             fn, w.li[p], k, j);
                    int len = 1;
                    while (p + len < end && w.posj[w.li[p + len]] == d0 + len) ++len;
                    if (!ivec_push_ins(&w.ins, len, p, d0, first ? k : -1))
                        FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: the factor schedule does not fit in "
                             "memory", fn);
                    first = 0;
                    p += len;
                }
            }
            for (int p = w.lp[j]; p < w.lp[j + 1]; ++p) w.posj[w.li[p]] = -1;
            w.cost[j] = cost > INT_MAX ? INT_MAX : (int)cost;
        }
        S->flops = fma;
        S->nins = (long long)(w.ins.len / SLDLT_INS);
    }

    /* level order of the columns (tasks) */
    {
        task_key *keys = gala_malloc((size_t)(n ? n : 1) * sizeof *keys);
        int *ord = ialloc((size_t)n);
        if (!keys || !ord) {
            gala_free(keys);
            gala_free(ord);
            FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        }
        for (int j = 0; j < n; ++j) {
            keys[j].level = w.level[j];
            keys[j].cost = w.cost[j];
            keys[j].j = j;
        }
        qsort(keys, (size_t)n, sizeof *keys, cmp_task);
        for (int t = 0; t < n; ++t) ord[t] = keys[t].j;
        gala_free(keys);

        /* image layout */
        const size_t nl = (size_t)S->nlev + 1, nt = (size_t)n * SLDLT_TASK,
                     ni = w.ins.len, na = SLDLT_AM * (size_t)nnza, ns = (size_t)n * SLDLT_STASK,
                     nf = SLDLT_FR * (size_t)nnzl, nb = (size_t)nnzl, nlp = (size_t)n + 1,
                     nli = (size_t)nnzl, nap = (size_t)n + 1, nlo = (size_t)n;
        S->o_lev = 0;
        S->o_task = S->o_lev + nl;
        S->o_ins = S->o_task + nt;
        S->o_amap = S->o_ins + ni;
        S->o_stask = S->o_amap + na;
        S->o_frow = S->o_stask + ns;
        S->o_bidx = S->o_frow + nf;
        S->o_lp = S->o_bidx + nb;
        S->o_li = S->o_lp + nlp;
        S->o_aptr = S->o_li + nli;
        S->o_lord = S->o_aptr + nap;
        S->img_len = S->o_lord + nlo;
        if (S->img_len > (size_t)INT_MAX) {
            gala_free(ord);
            FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: the schedule has more than 2^31 - 1 ints", fn);
        }
        S->img = ialloc(S->img_len);
        if (!S->img) {
            gala_free(ord);
            FAIL(GALA_ERR_OUT_OF_MEMORY, "%s: no host memory for the schedule", fn);
        }
        int *lev = S->img + S->o_lev, *task = S->img + S->o_task, *stask = S->img + S->o_stask;
        memset(lev, 0, nl * sizeof *lev);
        for (int j = 0; j < n; ++j) lev[w.level[j] + 1]++;
        S->max_width = 0;
        for (int l = 0; l < S->nlev; ++l) {
            if (lev[l + 1] > S->max_width) S->max_width = lev[l + 1];
            lev[l + 1] += lev[l];
        }
        /* tasks (column j = task j) in elimination order: one lane walking all of them in
         * this order keeps recently computed columns in cache; the level order (for column
         * workers sharing a level) is the list lord, ranges lev[l]..lev[l+1] */
        memcpy(S->img + S->o_lord, ord, nlo * sizeof(int));
        for (int j = 0; j < n; ++j) {
            const int t = j;
            int *T = task + (size_t)t * SLDLT_TASK;
            T[SLDLT_T_J] = j;
            T[SLDLT_T_INS0] = ins_beg[j];
            T[SLDLT_T_INS1] = j + 1 < n ? ins_beg[j + 1] : (int)S->nins;
            T[SLDLT_T_L0] = w.lp[j];
            T[SLDLT_T_L1] = w.lp[j + 1];
            T[SLDLT_T_A0] = w.next[j];
            T[SLDLT_T_A1] = w.next[j + 1];
            T[SLDLT_T_COST] = w.cost[j];
            int *U = stask + (size_t)t * SLDLT_STASK;
            U[SLDLT_S_I] = j;
            U[SLDLT_S_PI] = S->perm[j];
            U[SLDLT_S_R0] = w.rp[j];
            U[SLDLT_S_R1] = w.rp[j + 1];
            U[SLDLT_S_L0] = w.lp[j];
            U[SLDLT_S_L1] = w.lp[j + 1];
            U[6] = U[7] = 0;
        }
        gala_free(ord);
        if (ni) memcpy(S->img + S->o_ins, w.ins.v, ni * sizeof(int));
        if (na) memcpy(S->img + S->o_amap, w.amap, na * sizeof(int));
        int *frow = S->img + S->o_frow, *bidx = S->img + S->o_bidx;
        for (int q = 0; q < nnzl; ++q) {
            frow[SLDLT_FR * q + SLDLT_FR_V] = w.rpos[q];
            frow[SLDLT_FR * q + SLDLT_FR_X] = S->perm[w.rcol[q]];
        }
        for (int p = 0; p < nnzl; ++p) bidx[p] = S->perm[w.li[p]];
        memcpy(S->img + S->o_lp, w.lp, nlp * sizeof(int));
        if (nli) memcpy(S->img + S->o_li, w.li, nli * sizeof(int));
        memcpy(S->img + S->o_aptr, w.next, nap * sizeof(int));
    }
#undef FAIL
done:
    work_free(&w);
    if (st != GALA_OK) {
        gala_sparse_ldlt_symbolic_destroy(S);
        return st;
    }
    *out = S;
    return GALA_OK;
}
