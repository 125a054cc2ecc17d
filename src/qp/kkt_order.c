/* The fill-reducing orders of the KKT systems that polishing and the derivative's host path
 * factor on the host (qd_ldlt.c): for each distinct pair of P and A patterns of the batch,
 * SuiteSparse AMD's order of the whole KKT pattern [P, Aᵀ; A, ·] with every row of A, made
 * at the first polish or derivative and kept until the solver goes (updates keep the
 * patterns). A QP's system holds only its active rows: the whole order restricted to them
 * (gala_qd_restrict) keeps L within the whole matrix's fill (a fill path of a principal
 * submatrix's graph is one of the whole graph's), so one analysis serves every active set.
 * OSQP's control QPs (nx = 10: 160 variables, 270 rows) factor in 3.6·10⁴ multiply-adds so,
 * against 5.7·10⁴ to 2.6·10⁶ in the order x-then-rows as more rows are active. The whole
 * matrix's factor in the order bounds every restriction's, so a system whose own order
 * costs at most twice that keeps it (gala_qd_fact_make: no permutation where few rows are
 * active). Polishing OSQP's benchmark families, four QPs of size 5 each on one core: portfolio
 * 83 → 1.9 ms, Huber 135 → 3.2, lasso 11.3 → 0.7, SVM 5.9 → 0.6, control QPs unchanged
 * (docs/perf/2026-11-29-h200-kkt-order; the order made per QP there: their patterns differ).
 * Without AMD in the build, or without memory for it, K's own order is kept. */
#include <stdlib.h>
#include <string.h>

#include "la/sparse_ldlt.h"
#include "qd_ldlt.h"
#include "qp_internal.h"

struct qp_kkt_orders {
    int *pair;    /* per slot: its pair of patterns */
    int npairs;
    int *rep;     /* per pair: a slot that has it */
    int **order;  /* per pair: n + m indices, or NULL (K's own order) */
    double *flops; /* per pair: the multiply-adds of the whole KKT matrix's factor in it */
};

void gala_qp_kkt_orders_free(gala_qp_solver *s)
{
    struct qp_kkt_orders *o = s ? s->kkt_orders : NULL;
    if (!o) return;
    for (int g = 0; o->order && g < o->npairs; ++g) gala_free(o->order[g]);
    gala_free(o->order);
    gala_free(o->flops);
    gala_free(o->pair);
    gala_free(o->rep);
    gala_free(o);
    s->kkt_orders = NULL;
}

const int *gala_qp_kkt_order(const gala_qp_solver *s, int sl, double *flops)
{
    const struct qp_kkt_orders *o = s->kkt_orders;
    *flops = o ? o->flops[o->pair[sl]] : 0;
    return o ? o->order[o->pair[sl]] : NULL;
}

int gala_qp_kkt_order_of(int n, int m, const int *Pp, const int *Pi, const int *Ap,
                         const int *Ai, int *order, double *flops)
{
    const int N = n + m;
    const size_t nz = (size_t)Pp[n] + (size_t)Ap[n] + (size_t)N;
    /* the pattern (kp, ki; gala_qd_kkt with every row of A), its permuted copy (cp, ci),
     * pinv, the rows' positions and the symbolic step's arrays (flag: N + 2, gala_qd_kkt's
     * fill; lp: N + 1) */
    int *kp = gala_malloc(sizeof(int) * (2 * ((size_t)N + 2 + nz) + 5 * (size_t)N + (size_t)m + 4));
    if (!kp) return -1;
    int *ki = kp + N + 2, *cp = ki + nz, *ci = cp + N + 2, *pinv = ci + nz, *pos = pinv + N;
    int *parent = pos + m + 1, *lnz = parent + N, *lp = lnz + N, *flag = lp + N + 1;
    for (int i = 0; i < m; ++i) pos[i] = n + i;
    gala_qd_kkt(n, m, Pp, Pi, NULL, Ap, Ai, NULL, pos, NULL, 0, NULL, NULL, 0, NULL, 0, kp, ki,
                NULL, NULL, flag);
    const int r = gala_amd_order(N, kp, ki, order);
    if (r == 0) {
        /* its factor's multiply-adds: those of any restriction are at most these */
        for (int k = 0; k < N; ++k) pinv[order[k]] = k;
        gala_qd_permute(N, kp, ki, NULL, pinv, cp, ci, NULL, flag);
        *flops = gala_qd_symbolic(N, cp, ci, parent, lnz, lp, flag);
    }
    gala_free(kp);
    return r;
}

/* The orders of pairs [b, e) */
static void order_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    gala_qp_solver *s = arg;
    struct qp_kkt_orders *o = s->kkt_orders;
    for (long g = b; g < e; ++g) {
        const int sl = o->rep[g];
        const qp_pat *tp = &s->patterns[s->p_pattern[sl]], *ta = &s->patterns[s->a_pattern[sl]];
        int *ord = gala_malloc(sizeof(int) * ((size_t)tp->cols + (size_t)ta->rows + 1));
        if (ord && gala_qp_kkt_order_of(tp->cols, ta->rows, tp->p, tp->i, ta->p, ta->i, ord,
                                        &o->flops[g])) {
            gala_free(ord);
            ord = NULL;
        }
        o->order[g] = ord;
    }
}

typedef struct { int p, a, sl; } pair_key;

static int cmp_key(const void *x, const void *y)
{
    const pair_key *a = x, *b = y;
    if (a->p != b->p) return a->p < b->p ? -1 : 1;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->sl > b->sl) - (a->sl < b->sl);
}

void gala_qp_kkt_orders_make(gala_qp_solver *s)
{
    if (s->kkt_orders || s->nvalid < 1) return;
    const int nv = s->nvalid;
    struct qp_kkt_orders *o = gala_calloc(1, sizeof *o);
    pair_key *key = gala_malloc(sizeof *key * (size_t)nv);
    if (o) {
        o->pair = gala_malloc(sizeof(int) * (size_t)nv);
        o->rep = gala_malloc(sizeof(int) * (size_t)nv);
    }
    if (!o || !key || !o->pair || !o->rep) goto fail;
    /* the distinct pairs: the slots sorted by (P pattern, A pattern, slot) */
    for (int sl = 0; sl < nv; ++sl) key[sl] = (pair_key){s->p_pattern[sl], s->a_pattern[sl], sl};
    qsort(key, (size_t)nv, sizeof *key, cmp_key);
    for (int t = 0; t < nv; ++t) {
        if (t == 0 || key[t].p != key[t - 1].p || key[t].a != key[t - 1].a)
            o->rep[o->npairs++] = key[t].sl;
        o->pair[key[t].sl] = o->npairs - 1;
    }
    o->order = gala_calloc((size_t)o->npairs, sizeof *o->order);
    o->flops = gala_calloc((size_t)o->npairs, sizeof *o->flops);
    if (!o->order || !o->flops) goto fail;
    s->kkt_orders = o;
    gala_par(s->ctx, s->nthreads, o->npairs, 1, order_range, s);
    gala_free(key);
    return;
fail:
    gala_free(key);
    s->kkt_orders = o; /* freed as a made set is: no orders yet, so none are kept */
    gala_qp_kkt_orders_free(s);
}
