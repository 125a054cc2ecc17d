/* The sparse linear-system strategy of the QP solver (docs/qp.md): OSQP's direct method.
 * Each QP's quasi-definite KKT matrix
 *
 *     [ P + σI        Aᵀ     ]      (n + m)×(n + m), upper triangle in CSC
 *     [   A      −diag(1/ρ)  ]
 *
 * is factored by gala_sparse_ldlt (src/la): one symbolic analysis (AMD) per distinct pair of
 * P and A patterns, all QPs factored by one launch (groups), refactored in place when ρ
 * changes. One ADMM iteration is two launches for the whole batch: the batched sparse solve
 * and qp_kkt_update (cl/qp.cl; z̃ from the solve's second block ν, as OSQP, and the next
 * iteration's right-hand side; qp_kkt_rhs makes a launch's first), four with the refinement
 * step of float (qp_kkt_resid and a second solve); the termination check is the dense
 * strategy's qp_check. Nothing here is O(n²): this is the strategy for QPs
 * whose dense K would be large, and for one sparse QP on the host backend. */
#include <stdlib.h>

#include "qp_internal.h"

#define NKQ 3 /* kq per slot: matrix index in the factor object, value-map offset, entries */

typedef struct {
    qp_linsys base;
    int ngroups, total;
    gala_sparse_ldlt_symbolic **sym;
    int *gcount;  /* QPs per group */
    int *qslot;   /* per matrix: its slot */
    int *kq;      /* per slot: NKQ ints (host copy) */
    int *info, *inertia, *flag;
    int refine;   /* one step of iterative refinement per solve */
    size_t kstride, bstride;
    gala_sparse_ldlt *F;
    gala_buffer *b_kq, *b_kmap, *b_kv, *b_kb, *b_kx;
} qp_sparse;

static void sparse_destroy(qp_linsys *ls)
{
    qp_sparse *p = (qp_sparse *)ls;
    gala_qp_linsys_release_base(ls);
    for (int g = 0; p->sym && g < p->ngroups; ++g) gala_sparse_ldlt_symbolic_destroy(p->sym[g]);
    gala_sparse_ldlt_destroy(p->F);
    gala_buffer_free(p->b_kq);
    gala_buffer_free(p->b_kmap);
    gala_buffer_free(p->b_kv);
    gala_buffer_free(p->b_kb);
    gala_buffer_free(p->b_kx);
    void *ptrs[] = {p->sym, p->gcount, p->qslot, p->kq, p->info, p->flag}; /* inertia: in info */
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; ++i) gala_free(ptrs[i]);
    gala_free(p);
}

/* The KKT pattern of a group (upper CSC in kp, ki) and its value map (see cl/qp.cl,
 * qp_kkt_values), from P's upper CSC pattern tp and A's pattern ta. The device holds P as
 * its full symmetric CSR and A as CSR (layout.c, gala_qp_build_pattern): entry e of P's column j is
 * the value at position pos[2e] of its row; A's row i lists its entries by column. */
static gala_status kkt_pattern(gala_qp_solver *s, const qp_pat *tp, const qp_pat *ta, int *kp,
                               int *ki, int *map)
{
    const int n = tp->cols, m = ta->rows;
    const size_t nz = tp->nnz > 0 ? (size_t)tp->nnz : 1; /* P's full CSR: <= 2·nnz entries */
    const size_t nf = (size_t)(n > m ? n : m) + 1;
    int *rp = gala_malloc(sizeof(int) * ((size_t)n + 1 + 4 * nz + nf + (size_t)m + 1));
    if (!rp) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    int *ci = rp + n + 1, *pos = ci + 2 * nz, *fill = pos + 2 * nz, *arow = fill + nf;
    qp_pat t = *tp;
    t.rp = t.ci = t.map = 0;
    gala_qp_build_pattern(&t, rp, ci, pos, fill);
    int e = 0;
    kp[0] = 0;
    for (int j = 0; j < n; ++j) {
        int diag = 0;
        for (int k = tp->p[j]; k < tp->p[j + 1]; ++k) {
            const int r = tp->i[k];
            ki[e] = r;
            map[e++] = 8 * pos[2 * k] + (r == j ? 1 : 0);
            diag |= r == j;
        }
        if (!diag) { /* σ alone */
            ki[e] = j;
            map[e++] = 2;
        }
        kp[j + 1] = e;
    }
    /* column n + i: row i of A (increasing column, as A's CSR), then −1/ρ_i */
    for (int i = 0; i <= m; ++i) arow[i] = 0;
    for (int k = 0; k < ta->nnz; ++k) arow[ta->i[k] + 1]++;
    for (int i = 0; i < m; ++i) arow[i + 1] += arow[i];
    const int base = kp[n];
    for (int i = 0; i < m; ++i) {
        kp[n + i + 1] = base + arow[i + 1] + i + 1;
        fill[i] = base + arow[i] + i;
        ki[kp[n + i + 1] - 1] = n + i;
        map[kp[n + i + 1] - 1] = 8 * i + 4;
    }
    for (int j = 0; j < n; ++j)
        for (int k = ta->p[j]; k < ta->p[j + 1]; ++k) {
            const int i = ta->i[k], p = fill[i]++;
            ki[p] = j;
            map[p] = 8 * (arow[i] + (p - (base + arow[i] + i))) + 3;
        }
    gala_free(rp);
    return GALA_OK;
}

typedef struct { int p, a, first, count, nnz, dim; } sp_group;

/* Groups: the distinct (P pattern, A pattern) pairs, in order of first appearance (a linear
 * scan per slot over a table keyed by the P pattern would do for huge mixes; batches have
 * few distinct pairs); gof: per slot its group; *kmapn: value-map entries of all groups.
 * More than cap groups: *ng_out = cap + 1 and nothing else is set (AUTO, few patterns). */
static gala_status sparse_groups(const gala_qp_solver *s, int cap, sp_group *grp, int *gof,
                                 int *ng_out, size_t *kmapn_out)
{
    const int nv = s->nvalid;
    int ng = 0;
    size_t kmapn = 0;
    for (int sl = 0; sl < nv; ++sl) {
        const int pp = s->p_pattern[sl], pa = s->a_pattern[sl];
        int g = 0;
        for (g = 0; g < ng && !(grp[g].p == pp && grp[g].a == pa); ++g) {}
        if (g == ng && ng == cap) {
            *ng_out = cap + 1;
            return GALA_OK;
        }
        if (g == ng) {
            const qp_pat *tp = &s->patterns[pp], *ta = &s->patterns[pa];
            /* value-map entries are 8·position + kind in an int */
            if ((size_t)tp->nnz >= (1u << 27) || (size_t)ta->nnz >= (1u << 28) ||
                (size_t)ta->rows >= (1u << 28) || (size_t)tp->cols + (size_t)ta->rows +
                (size_t)tp->nnz + (size_t)ta->nnz >= 0x7fffffffu) {
                return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: QP %d is too "
                                  "large for the sparse strategy", s->qp_of[sl]);
            }
            int diag = 0;
            for (int j = 0; j < tp->cols; ++j)
                diag += tp->p[j + 1] > tp->p[j] && tp->i[tp->p[j + 1] - 1] == j;
            grp[ng].p = pp;
            grp[ng].a = pa;
            grp[ng].count = 0;
            grp[ng].dim = tp->cols + ta->rows;
            grp[ng].nnz = tp->nnz + (tp->cols - diag) + ta->nnz + ta->rows;
            kmapn += (size_t)grp[ng].nnz;
            ++ng;
        }
        grp[g].count++;
        gof[sl] = g;
    }
    *ng_out = ng;
    *kmapn_out = kmapn;
    return GALA_OK;
}

/* Per group: the KKT pattern, the value map (into kmap, *moff entries in all), the symbolic
 * analysis (n positive pivots expected). */
static gala_status sparse_analyze(gala_qp_solver *s, qp_sparse *p, sp_group *grp, int *kmap,
                                  size_t *moff_out)
{
    gala_context *ctx = s->ctx;
    const int ng = p->ngroups;
    gala_status st = GALA_OK;
    size_t moff = 0, first = 0;
    for (int g = 0; st == GALA_OK && g < ng; ++g) {
        const qp_pat *tp = &s->patterns[grp[g].p], *ta = &s->patterns[grp[g].a];
        const int dim = grp[g].dim;
        int *kp = gala_malloc(sizeof(int) * ((size_t)dim + 1 + (size_t)grp[g].nnz));
        if (!kp) {
            st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
            break;
        }
        st = kkt_pattern(s, tp, ta, kp, kp + dim + 1, kmap + moff);
        if (st == GALA_OK) {
            gala_csc K = {dim, dim, kp, kp + dim + 1, NULL};
            gala_sparse_ldlt_options o;
            gala_sparse_ldlt_options_default(&o);
            o.expected_positive = tp->cols;
            st = gala_sparse_ldlt_analyze(ctx, &K, &o, &p->sym[g]);
        }
        gala_free(kp);
        grp[g].first = (int)first;
        p->gcount[g] = grp[g].count;
        if ((size_t)grp[g].nnz > p->kstride) p->kstride = (size_t)grp[g].nnz;
        if ((size_t)dim > p->bstride) p->bstride = (size_t)dim;
        first += (size_t)grp[g].count;
        moff += (size_t)grp[g].nnz;
    }
    *moff_out = moff;
    return st;
}

/* The dense strategy's work in one iteration of a QP of pattern pair (tp, ta), in
 * multiply-adds: the products with A and Aᵀ (which the sparse iteration does not have, its
 * solve gives ν), and the product with K⁻¹ (n²) or, where the device keeps K's Cholesky
 * factor (qp.factor = 2: the host backend), the two solves within the factor's envelope:
 * 2·Σ_j (j − the first row of column j of K = P + σI + AᵀρA, from the patterns, as the
 * host kernels' kprof) + 1). rmin: scratch of ta->rows ints. */
static double dense_work(const gala_qp_solver *s, const qp_pat *tp, const qp_pat *ta, int *rmin)
{
    const int n = tp->cols, m = ta->rows;
    const double prod = 2.0 * ta->nnz;
    if (!s->k_factored) return prod + (double)n * n;
    for (int i = 0; i < m; ++i) rmin[i] = n;
    for (int j = 0; j < n; ++j)
        for (int k = ta->p[j]; k < ta->p[j + 1]; ++k)
            if (j < rmin[ta->i[k]]) rmin[ta->i[k]] = j;
    double env = 0;
    for (int j = 0; j < n; ++j) {
        int f = j;
        for (int k = tp->p[j]; k < tp->p[j + 1]; ++k) f = tp->i[k] < f ? tp->i[k] : f;
        for (int k = ta->p[j]; k < ta->p[j + 1]; ++k) f = rmin[ta->i[k]] < f ? rmin[ta->i[k]] : f;
        env += j - f + 1;
    }
    return prod + 2 * env;
}

/* AUTO (linsys.c: a QP reached qp.sparse_n variables, or the device analyzes batches of at
 * most qp.sparse_patterns patterns): keep the strategy only when its iteration costs less
 * than the dense one's, from the QPs' sparsity: per QP a solve with the factors,
 * 4·nnz(L) + 2·(n + m), plus qp.sparse_fixed for the batch (a sparse iteration is two
 * launches, the dense strategy launches once per termination check), weighted by
 * qp.sparse_weight (percent: one of these multiply-adds against one of dense_work's, which
 * stream contiguous rows), against dense_work.
 *
 * Before any analysis (sym NULL) nnz(L) is estimated from the KKT matrix's own entries below
 * the diagonal, which L has whatever the fill, times `fill`: with fill 1 a bound (if even
 * that is dearer the QPs are dense: tiny QPs, or dense rows of A as in the random QPs of
 * the benchmark families, and no AMD runs); below qp.sparse_n, SPARSE_FILL: the analysis
 * costs about as much as the dense set-up, and a QP that would win only with a factor of
 * fewer entries wins little per iteration (Maros–Meszaros: L has 1.45–3× the KKT's entries
 * below the diagonal, the control family 1.7×). After the analysis, the factors' own nnz(L).
 * *err: no host memory for the scratch. */
#define SPARSE_FILL 1.5
static int sparse_dearer(gala_qp_solver *s, int ngroups, const sp_group *grp,
                         gala_sparse_ldlt_symbolic *const *sym, double fill, gala_status *err)
{
    const gala_tune_qp *tq = &gala_tuned(s->ctx, s->dt)->qp;
    double sparse = (double)tq->sparse_fixed, dense = 0;
    int mmax = 1;
    for (int g = 0; g < ngroups; ++g)
        if (s->patterns[grp[g].a].rows > mmax) mmax = s->patterns[grp[g].a].rows;
    int *rmin = gala_malloc(sizeof(int) * (size_t)mmax);
    if (!rmin) {
        *err = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
        return 1;
    }
    *err = GALA_OK;
    for (int g = 0; g < ngroups; ++g) {
        double nnzl = fill * ((double)grp[g].nnz - grp[g].dim); /* KKT's strict triangle */
        if (sym) {
            gala_sparse_ldlt_stats t;
            gala_sparse_ldlt_symbolic_stats(sym[g], &t);
            nnzl = (double)t.nnz_l;
        }
        sparse += grp[g].count * (4.0 * nnzl + 2.0 * grp[g].dim);
        dense += grp[g].count * dense_work(s, &s->patterns[grp[g].p], &s->patterns[grp[g].a], rmin);
    }
    gala_free(rmin);
    return (double)tq->sparse_weight / 100 * sparse > dense;
}

/* The matrices' order (group by group, slots in order within a group: kq, qslot) and the
 * device buffers. */
static gala_status sparse_buffers(gala_qp_solver *s, qp_sparse *p, const sp_group *grp,
                                  const int *gof, const int *kmap, size_t moff)
{
    gala_context *ctx = s->ctx;
    const int nv = s->nvalid, ng = p->ngroups;
    gala_status st = GALA_OK;
    size_t *mo = gala_malloc(sizeof(size_t) * (ng ? (size_t)ng : 1));
    if (!mo) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    if (st == GALA_OK) {
        size_t o = 0;
        for (int g = 0; g < ng; ++g) {
            mo[g] = o;
            o += (size_t)grp[g].nnz;
        }
        int *nextg = gala_malloc(sizeof(int) * (size_t)ng);
        if (!nextg) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
        for (int g = 0; st == GALA_OK && g < ng; ++g) nextg[g] = grp[g].first;
        for (int sl = 0; st == GALA_OK && sl < nv; ++sl) {
            const int g = gof[sl], q = nextg[g]++;
            p->kq[NKQ * sl] = q;
            p->kq[NKQ * sl + 1] = (int)mo[g];
            p->kq[NKQ * sl + 2] = grp[g].nnz;
            p->qslot[q] = sl;
        }
        gala_free(nextg);
    }
    gala_free(mo);
    if (st == GALA_OK && moff > 0x7fffffffu) /* the value-map offsets in kq are ints */
        st = gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: the KKT matrices of the "
                        "batch are too large");
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, NKQ * (size_t)nv, &p->b_kq);
    if (st == GALA_OK) st = gala_buffer_write(p->b_kq, 0, NKQ * (size_t)nv, p->kq);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, moff ? moff : 1, &p->b_kmap);
    if (st == GALA_OK && moff) st = gala_buffer_write(p->b_kmap, 0, moff, kmap);
    if (st == GALA_OK) st = gala_buffer_create(ctx, s->dt, p->kstride * (size_t)nv, &p->b_kv);
    if (st == GALA_OK) st = gala_buffer_create(ctx, s->dt, p->bstride * (size_t)nv, &p->b_kb);
    /* refinement (settings.refine; auto: in float, where the LDLᵀ of the quasi-definite KKT
     * matrix loses digits to the 1e3·ρ of equality rows): the solution goes to kx, the
     * residual and its correction to kb */
    p->refine = s->set.refine < 0 ? s->dt == GALA_FLOAT : s->set.refine;
    if (st == GALA_OK && p->refine)
        st = gala_buffer_create(ctx, s->dt, p->bstride * (size_t)nv, &p->b_kx);
    if (st == GALA_OK) st = gala_qp_check_class(s, &p->base);
    return st;
}

/* The object (*out; NULL when only_if_cheaper finds it dearer than the dense strategy). */
static gala_status sparse_make(gala_qp_solver *s, int only_if_cheaper, qp_linsys **out)
{
    gala_context *ctx = s->ctx;
    const int nv = s->nvalid;
    qp_sparse *p = gala_calloc(1, sizeof *p);
    if (!p) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    p->base.ops = &gala_qp_linsys_sparse;
    *out = &p->base;
    sp_group *grp = gala_malloc(sizeof *grp * (size_t)nv);
    int *gof = gala_malloc(sizeof(int) * (size_t)nv);
    int *kmap = NULL;
    p->kq = gala_malloc(sizeof(int) * NKQ * (size_t)nv);
    p->qslot = gala_malloc(sizeof(int) * (size_t)nv);
    p->info = gala_malloc(sizeof(int) * 3 * (size_t)nv); /* info, then 2 per matrix inertia */
    p->flag = gala_malloc(sizeof(int) * (size_t)nv);
    gala_status st = GALA_OK;
    if (!grp || !gof || !p->kq || !p->qslot || !p->info || !p->flag) {
        st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
        goto done;
    }
    p->inertia = p->info + nv;
    int ng = 0;
    size_t kmapn = 0, moff = 0;
    /* AUTO below qp.sparse_n: only batches of few patterns (one analysis each) */
    const gala_tune_qp *tq = &gala_tuned(ctx, s->dt)->qp;
    const int small = only_if_cheaper && gala_qp_auto_max_n(s) < (int)tq->sparse_n;
    const int cap = small ? (int)(tq->sparse_patterns < nv ? tq->sparse_patterns : nv) : nv;
    st = sparse_groups(s, cap, grp, gof, &ng, &kmapn);
    if (st != GALA_OK) goto done;
    if (only_if_cheaper &&
        (ng > cap || sparse_dearer(s, ng, grp, NULL, small ? SPARSE_FILL : 1, &st))) {
        sparse_destroy(&p->base); /* too many patterns, or dearer before any analysis */
        *out = NULL;
        goto done;
    }
    p->ngroups = ng;
    p->total = nv;
    p->sym = gala_calloc((size_t)ng, sizeof *p->sym);
    p->gcount = gala_malloc(sizeof(int) * (size_t)ng);
    kmap = gala_malloc(sizeof(int) * (kmapn ? kmapn : 1));
    if (!p->sym || !p->gcount || !kmap)
        st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    if (st == GALA_OK) st = sparse_analyze(s, p, grp, kmap, &moff);
    gala_status es = GALA_OK;
    if (only_if_cheaper && (st == GALA_ERR_NOT_SUPPORTED ||
                            (st == GALA_OK && sparse_dearer(s, ng, grp, p->sym, 1, &es)))) {
        if (es != GALA_OK) {
            st = es;
            goto done;
        }
        gala_error_clear(ctx); /* no AMD in this build, or dearer */
        sparse_destroy(&p->base);
        *out = NULL;
        st = GALA_OK;
        goto done;
    }
    if (st == GALA_OK) st = sparse_buffers(s, p, grp, gof, kmap, moff);
done:
    gala_free(kmap);
    gala_free(grp);
    gala_free(gof);
    return st;
}

/* KKT values of every QP from the scaled P, A and each QP's ρ, then the numeric
 * factorization (the first call allocates the factor object). A flagged QP whose KKT matrix
 * has not n positive pivots (P + σI not positive definite), or a zero or NaN pivot, is
 * non-convex, as in the dense strategy. */
static gala_status sparse_setup(gala_qp_solver *s, qp_linsys **out)
{
    return sparse_make(s, 0, out);
}

gala_status gala_qp_sparse_setup_if_cheaper(gala_qp_solver *s, qp_linsys **out)
{
    return sparse_make(s, 1, out);
}

static gala_status sparse_refactor(qp_sparse *p, gala_qp_solver *s, int all_flagged)
{
    const int nv = s->nvalid;
    gala_kernel *kv;
    GALA_TRY(gala_qp_kernel(s, "qp_kkt_values", &kv));
    gala_dims d = gala_dims_1d((size_t)nv * QP_UTIL_WG, QP_UTIL_WG);
    GALA_TRY(qp_launch_kkt_values(s->ctx, kv, &d, s->b_meta, s->b_slots, nv,
                         p->b_kq, p->b_kmap, s->b_vals, s->b_ctype,
                         s->b_info, p->b_kv, (long long)p->kstride,
                         s->set.sigma));
    gala_qp_prof(s, GALA_QP_PHASE_FORM_K);
    gala_status f;
    if (!p->F)
        f = gala_sparse_ldlt_factor_groups(s->ctx, p->ngroups,
                                           (const gala_sparse_ldlt_symbolic *const *)p->sym,
                                           p->gcount, p->b_kv, 0, p->kstride, 1, &p->F, p->info,
                                           p->inertia);
    else
        f = gala_sparse_ldlt_refactor(p->F, p->b_kv, 0, p->kstride, 1, p->info, p->inertia);
    gala_qp_prof(s, GALA_QP_PHASE_FACTOR);
    if (f != GALA_OK && f != GALA_ERR_NOT_FINITE && f != GALA_ERR_SINGULAR &&
        f != GALA_ERR_WRONG_INERTIA)
        return f;
    if (f != GALA_OK) gala_error_clear(s->ctx);
    if (all_flagged)
        for (int i = 0; i < nv; ++i) p->flag[i] = 1;
    else
        GALA_TRY(gala_buffer_read(s->b_refactor, 0, (size_t)nv, p->flag));
    for (int q = 0; q < nv; ++q) {
        const int sl = p->qslot[q];
        const int n = s->meta[(size_t)sl * QP_NMETA + QP_M_N];
        if (p->flag[sl] && (p->info[q] != 0 || p->inertia[2 * q] != n)) {
            int v = GALA_QP_NON_CVX;
            GALA_TRY(gala_buffer_write(s->b_state, (size_t)sl * QP_NSTATE + QP_S_STATUS, 1, &v));
        }
    }
    return gala_buffer_fill(s->b_refactor, 0, (size_t)nv, 0);
}

static gala_status sparse_update_rho(qp_linsys *ls, gala_qp_solver *s)
{
    return sparse_refactor((qp_sparse *)ls, s, 0);
}

static gala_status sparse_update_matrices(qp_linsys *ls, gala_qp_solver *s)
{
    return sparse_refactor((qp_sparse *)ls, s, 1);
}

static gala_status sparse_solve(qp_linsys *ls, gala_qp_solver *s, int iters, int check,
                                int adapt, int fin)
{
    qp_sparse *p = (qp_sparse *)ls;
    const qp_bin *c = &ls->one;
    gala_buffer *list = c->compacted ? c->alist : c->list;
    const int nlist = c->acount;
    if (nlist <= 0) return GALA_OK;
    gala_kernel *kr, *ku, *ke = NULL;
    GALA_TRY(gala_qp_kernel(s, "qp_kkt_rhs", &kr));
    GALA_TRY(gala_qp_kernel(s, "qp_kkt_update", &ku));
    if (p->refine) GALA_TRY(gala_qp_kernel(s, "qp_kkt_resid", &ke));
    gala_dims d = gala_dims_1d((size_t)nlist * QP_UTIL_WG, QP_UTIL_WG);
    const long long ntot = (long long)s->ntot, mtot = (long long)s->mtot;
    /* right-hand sides interleaved (entry e of matrix q at q + e·total): the solve's
     * work-items, one per matrix, then read neighbouring addresses */
    const size_t tot = (size_t)p->total;
    gala_buffer *kx = p->refine ? p->b_kx : p->b_kb;
    for (int it = 0; it < iters; ++it) {
        const int last = it == iters - 1;
        /* the right-hand side: here for a launch's first iteration, then from the update */
        if (it == 0)
            GALA_TRY(qp_launch_kkt_rhs(s->ctx, kr, &d, s->b_meta, list, nlist,
                                 s->b_state, p->b_kq, s->b_nvec,
                                 ntot, s->b_mvec, mtot,
                                 s->b_ctype, s->b_info, p->b_kb,
                                 1, (long long)tot, s->set.sigma,
                                 last));
        GALA_TRY(gala_sparse_ldlt_solve(p->F, 1, p->b_kb, 0, 1, 0, tot, kx, 0, 1, 0, tot));
        if (p->refine) {
            GALA_TRY(qp_launch_kkt_resid(s->ctx, ke, &d, s->b_meta, list, nlist,
                                 s->b_state, p->b_kq, s->b_rowptr,
                                 s->b_colidx, s->b_vals, s->b_ctype,
                                 s->b_info, p->b_kb, kx, 1,
                                 (long long)tot, s->set.sigma));
            GALA_TRY(gala_sparse_ldlt_solve(p->F, 1, p->b_kb, 0, 1, 0, tot, p->b_kb, 0, 1, 0, tot));
        }
        /* z̃ from the solve's ν (QP_KKT_NU): no product with A per iteration; the next
         * iteration's right-hand side into kb (QP_KKT_NEXT) */
        const int fl = QP_KKT_NU | (p->refine ? QP_KKT_CORR : 0) |
                       (last ? 0 : QP_KKT_NEXT | (it + 2 == iters ? QP_KKT_NEXT_LAST : 0));
        GALA_TRY(qp_launch_kkt_update(s->ctx, ku, &d, s->b_meta, list, nlist,
                             s->b_state, p->b_kq, s->b_rowptr,
                             s->b_colidx, s->b_vals, s->b_nvec, ntot,
                             s->b_mvec, mtot, s->b_ctype,
                             s->b_info, kx, p->b_kb, fl,
                             1, (long long)tot, s->set.alpha,
                             s->set.sigma, (last ? iters : 0)));
    }
    if (iters > 0) gala_qp_prof(s, GALA_QP_PHASE_ITERATE);
    if (check || adapt || fin) GALA_TRY(gala_qp_launch_admm(s, ls, c, 0, check, adapt, fin));
    return GALA_OK;
}

const qp_linsys_ops gala_qp_linsys_sparse = {
    GALA_QP_LINSYS_SPARSE_LDLT, sparse_setup, sparse_solve, sparse_update_rho,
    sparse_update_matrices, NULL, sparse_destroy,
};
