/* Validation of the caller's QPs at setup (one pass, on several threads), and the
 * comparison of every QP with the reference QP (the first valid one) that the shared
 * strategy and the pattern table need. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"

/* The checks of gala_csc_validate without building messages (the fast path); on failure
 * gala_csc_validate itself says why. */
static int csc_ok(const gala_csc *A, int upper)
{
    if (A->m < 0 || A->n < 0 || (upper && A->m != A->n) || !A->p || A->p[0] != 0) return 0;
    for (int j = 0; j < A->n; ++j)
        if (A->p[j + 1] < A->p[j]) return 0;
    if (A->p[A->n] > 0 && (!A->i || !A->x)) return 0;
    for (int j = 0; j < A->n; ++j) {
        const int k0 = A->p[j], k1 = A->p[j + 1], lim = upper ? j : A->m - 1;
        int prev = -1;
        for (int k = k0; k < k1; ++k) {
            const int r = A->i[k];
            if (r <= prev || r > lim || !isfinite(A->x[k])) return 0;
            prev = r;
        }
    }
    return 1;
}

/* Row kind from unscaled bounds, as the shared-strategy test compares them: 0 free,
 * 2 equality, 1 otherwise. */
static unsigned char raw_kind(double l, double u)
{
    return l <= -QP_INFTY && u >= QP_INFTY ? 0 : (l == u ? 2 : 1);
}

/* Whether q is finite and every row's bounds are valid (l ≤ u, neither NaN, l < +∞,
 * u > −∞). Setup runs it over every QP of a batch (10000 and more, about half of the
 * validation's instructions), so it is one pass without early exits, with 64-bit flags that
 * the x86-64-v3 clone vectorizes; the message comes from invalid_problem's slow loops. */
GALA_CLONES_V3 static int vectors_ok(int n, int m, const double *q, const double *l, const double *u)
{
    int64_t bad = 0;
    for (int j = 0; j < n; ++j) bad |= -(int64_t)!(fabs(q[j]) <= DBL_MAX);
    for (int i = 0; i < m; ++i) {
        const double a = l[i], b = u[i];
        bad |= -(int64_t)(!(a <= b) | (a == INFINITY) | (b == -INFINITY));
    }
    return !bad;
}

/* Whether some row's kind (raw_kind of its bounds clamped to ±1e30) differs from rk's:
 * shared-matrix batches compare every QP's rows with the reference's, and share them as a
 * rule, so the loop does not stop at the first difference; vectorized like vectors_ok. */
GALA_CLONES_V3 static int kinds_differ(int m, const double *l, const double *u,
                                       const unsigned char *rk)
{
    int64_t diff = 0;
    for (int i = 0; i < m; ++i) {
        diff |= (int64_t)(raw_kind(qp_clamp_inf(l[i]), qp_clamp_inf(u[i])) ^ rk[i]);
    }
    return diff != 0;
}

/* Validate one problem; skip_p / skip_a: the matrix is (pointer-)identical to one already
 * validated. On failure write the reason into msg and return nonzero. */
static int invalid_problem(const gala_qp_problem *p, int skip_p, int skip_a, char *msg, size_t cap)
{
    if (p->n < 1) { snprintf(msg, cap, "n = %d: need at least one variable", p->n); return 1; }
    if (p->m < 0) { snprintf(msg, cap, "m = %d < 0", p->m); return 1; }
    if (p->P.m != p->n || p->P.n != p->n) {
        snprintf(msg, cap, "P is %d×%d, expected %d×%d", p->P.m, p->P.n, p->n, p->n);
        return 1;
    }
    if (p->A.m != p->m || p->A.n != p->n) {
        snprintf(msg, cap, "A is %d×%d, expected %d×%d", p->A.m, p->A.n, p->m, p->n);
        return 1;
    }
    if (!p->q || (p->m > 0 && (!p->l || !p->u))) { snprintf(msg, cap, "q, l or u is NULL"); return 1; }
    if (!skip_p && !csc_ok(&p->P, 1)) {
        gala_csc_validate(NULL, "P", &p->P, 1); /* the message, on this thread */
        snprintf(msg, cap, "%s", gala_last_error(NULL));
        return 1;
    }
    if (!skip_a && !csc_ok(&p->A, 0)) {
        gala_csc_validate(NULL, "A", &p->A, 0);
        snprintf(msg, cap, "%s", gala_last_error(NULL));
        return 1;
    }
    if (!isfinite(p->c0)) { snprintf(msg, cap, "c0 is not finite"); return 1; }
    if (vectors_ok(p->n, p->m, p->q, p->l, p->u)) return 0;
    for (int j = 0; j < p->n; ++j)
        if (!isfinite(p->q[j])) { snprintf(msg, cap, "q[%d] = %g", j, p->q[j]); return 1; }
    for (int i = 0; i < p->m; ++i) {
        const double l = p->l[i], u = p->u[i];
        if (isnan(l) || isnan(u) || l == INFINITY || u == -INFINITY) {
            snprintf(msg, cap, "bounds of row %d are (%g, %g)", i, l, u);
            return 1;
        }
        if (l > u) {
            snprintf(msg, cap, "l[%d] = %g > u[%d] = %g", i, l, i, u);
            return 1;
        }
    }
    return 0;
}

int gala_qp_same_pattern(const gala_csc *a, const gala_csc *b)
{
    if (a->m != b->m || a->n != b->n) return 0;
    if (a->p == b->p && a->i == b->i) return 1;
    if (memcmp(a->p, b->p, sizeof(int) * (size_t)(a->n + 1))) return 0;
    size_t nz = (size_t)a->p[a->n];
    return !nz || a->i == b->i || !memcmp(a->i, b->i, sizeof(int) * nz);
}

static int same_csc_values(const gala_csc *a, const gala_csc *b)
{
    size_t nz = (size_t)a->p[a->n];
    return !nz || a->x == b->x || !memcmp(a->x, b->x, sizeof(double) * nz);
}

static uint64_t pattern_hash(const gala_csc *M)
{
    uint64_t h = gala_qp_hash_ints(&M->m, 1, 0x243f6a8885a308d3ULL);
    h = gala_qp_hash_ints(M->p, (size_t)M->n + 1, h);
    return gala_qp_hash_ints(M->i, (size_t)M->p[M->n], h);
}

/* Pass 1 over the caller's QPs, on several threads: validation, and against the reference
 * QP r (the first valid one, validated first): whether its P / A patterns, their values and
 * its row kinds are the same (the shared strategy), else the patterns' hashes (qp_scan). */
typedef struct {
    const gala_qp_problem *pb;
    gala_qp_solver *s;
    qp_scan *scan;
    int r;                      /* the reference QP */
    const unsigned char *rkind; /* its row kinds */
    int want_shared;            /* compare values and kinds (AUTO or DENSE_SHARED) */
} scan_job;

static void scan_one(scan_job *j, int k)
{
    const gala_qp_problem *p = &j->pb[k], *r = &j->pb[j->r];
    qp_scan *sc = &j->scan[k];
    gala_qp_info *in = &j->s->info[k];
    /* matrices given as the very arrays of the reference (and the same sizes) are not
     * validated or compared again, */
    const int dims = p->n == r->n && p->m == r->m;
    const int ptr_p = dims && p->P.m == r->P.m && p->P.n == r->P.n && p->P.p == r->P.p &&
                      p->P.i == r->P.i && p->P.x == r->P.x;
    const int ptr_a = dims && p->A.m == r->A.m && p->A.n == r->A.n && p->A.p == r->A.p &&
                      p->A.i == r->A.i && p->A.x == r->A.x;
    /* nor are matrices equal to the reference's, bit for bit (compared first: a memcmp is
     * cheaper than the per-entry checks, and parametric batches repeat their matrices) */
    const int pat_p = ptr_p || (dims && gala_qp_same_pattern(&p->P, &r->P));
    const int pat_a = ptr_a || (dims && gala_qp_same_pattern(&p->A, &r->A));
    const int val_p = ptr_p || (pat_p && same_csc_values(&p->P, &r->P));
    const int val_a = ptr_a || (pat_a && same_csc_values(&p->A, &r->A));
    if (k != j->r && invalid_problem(p, val_p, val_a, in->message, sizeof in->message)) {
        sc->bad = 1;
        return;
    }
    sc->same_pp = (unsigned char)pat_p;
    sc->same_ap = (unsigned char)pat_a;
    if (!sc->same_pp) sc->ph = pattern_hash(&p->P);
    if (!sc->same_ap) sc->ah = pattern_hash(&p->A);
    if (j->want_shared && sc->same_pp && sc->same_ap && val_p && val_a)
        sc->same_vals = (unsigned char)!kinds_differ(p->m, p->l, p->u, j->rkind);
}

static void scan_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    scan_job *j = arg;
    for (long k = b; k < e; ++k)
        if (k > j->r) scan_one(j, (int)k); /* QPs before the reference are invalid */
}

gala_status gala_qp_validate(gala_qp_solver *s, const gala_qp_problem *pb, size_t hn, size_t hm,
                             qp_scan *scan, int *ref, int *same_data)
{
    const int count = s->count;
    int r = 0;
    for (; r < count; ++r) {
        if (!invalid_problem(&pb[r], 0, 0, s->info[r].message, sizeof s->info[r].message)) break;
        scan[r].bad = 1;
    }
    if (r < count) {
        /* work: the vectors and the matrices, as if every QP were as large as the reference */
        const double work = (double)hn + 2.0 * (double)hm +
                            3.0 * (double)count * ((double)pb[r].P.p[pb[r].n] + (double)pb[r].A.p[pb[r].n]);
        s->nthreads = gala_qp_threads_for(s->set.threads, work);
        unsigned char *rkind = gala_malloc((size_t)pb[r].m + 1);
        if (!rkind) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
        for (int i = 0; i < pb[r].m; ++i) rkind[i] = raw_kind(qp_clamp_inf(pb[r].l[i]), qp_clamp_inf(pb[r].u[i]));
        scan_job sj = {pb, s, scan, r, rkind, s->set.linsys_solver == GALA_QP_LINSYS_AUTO ||
                                                  s->set.linsys_solver == GALA_QP_LINSYS_DENSE_SHARED};
        scan_one(&sj, r);
        gala_par(s->ctx, s->nthreads, count, 64, scan_range, &sj);
        gala_free(rkind);
    } else {
        s->nthreads = 1;
    }
    int same = 1;
    for (int k = 0; k < count; ++k) {
        if (scan[k].bad) {
            s->host_status[k] = GALA_QP_INVALID_DATA;
            s->info[k].status = GALA_QP_INVALID_DATA;
            continue;
        }
        s->slot[k] = s->nvalid;
        s->qp_of[s->nvalid++] = k;
        same = same && scan[k].same_vals;
    }
    gala_qp_prof(s, GALA_QP_PHASE_VALIDATE);
    *ref = r;
    *same_data = same;
    return GALA_OK;
}

