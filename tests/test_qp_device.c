/* QP vectors in device memory (qp.h: gala_qp_update_vectors_device,
 * gala_qp_get_solution_device, gala_qp_warm_start_device) on every target.
 *
 * The reference is the host API on a twin solver: two solvers are set up from the same
 * problems with the same settings; one gets every update through gala_qp_update_vectors
 * (k = -1, double arrays), the other through the device call with the same values in
 * device buffers, and both are solved. Every value the tests send is a multiple of 1/64 of
 * modest size, exactly representable in float and double, so both paths put the same bits
 * into the solver: statuses, iteration counts, objectives, messages and x, y must then be
 * bitwise equal on the same target (the solves run the same kernels on the same data).
 * On the host backend the buffers alternate between gala_buffer_create and
 * gala_buffer_wrap of host arrays. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "qp_build.h"
#include "qp_compare.h"

/* ------------------------------------------------------------------ helpers */

/* a multiple of 1/64 (exact in float and double) */
static double grid(double v) { return round(v * 64) / 64; }

/* A random QP of n variables and m rows with grid values: P = diagonal + a few entries
 * (diagonally dominant), A dense-ish, l ≤ u with some infinite and equality rows. */
static gala_qp_problem random_qp(tu_rng *r, int n, int m)
{
    double *P = calloc((size_t)(n * n), sizeof(double)), *A = calloc((size_t)(m * n + 1), sizeof(double));
    double *q = malloc(sizeof(double) * (size_t)n), *l = malloc(sizeof(double) * (size_t)(m + 1));
    double *u = malloc(sizeof(double) * (size_t)(m + 1));
    for (int j = 0; j < n; ++j) {
        P[j * n + j] = n + grid(tu_uniform(r));
        if (j + 1 < n) P[j * n + j + 1] = grid(tu_normal(r) / 4);
        q[j] = grid(tu_normal(r));
    }
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j)
            if (tu_uniform(r) < 0.6) A[i * n + j] = grid(tu_normal(r));
        A[i * n + i % n] = 1;
        const double c = grid(tu_normal(r)), w = grid(0.25 + tu_uniform(r));
        const int kind = tu_int(r, 0, 5);
        l[i] = kind == 0 ? -INFINITY : c - w;
        u[i] = kind == 1 ? INFINITY : (kind == 2 ? l[i] : c + w);
    }
    gala_qp_problem p = make_qp(n, m, P, q, A, l, u);
    free(P); free(A); free(q); free(l); free(u);
    return p;
}

/* The vectors of a batch in the caller's layout (batch order, every QP's n and m). */
typedef struct {
    double *q, *l, *u;
    size_t hn, hm;
} bvec;

static bvec bvec_of(const gala_qp_problem *pb, int count)
{
    bvec v;
    v.hn = v.hm = 0;
    for (int k = 0; k < count; ++k) {
        v.hn += (size_t)pb[k].n;
        v.hm += (size_t)pb[k].m;
    }
    v.q = malloc(sizeof(double) * (v.hn + 1));
    v.l = malloc(sizeof(double) * (v.hm + 1));
    v.u = malloc(sizeof(double) * (v.hm + 1));
    size_t a = 0, b = 0;
    for (int k = 0; k < count; ++k) {
        memcpy(v.q + a, pb[k].q, sizeof(double) * (size_t)pb[k].n);
        if (pb[k].m) memcpy(v.l + b, pb[k].l, sizeof(double) * (size_t)pb[k].m);
        if (pb[k].m) memcpy(v.u + b, pb[k].u, sizeof(double) * (size_t)pb[k].m);
        a += (size_t)pb[k].n;
        b += (size_t)pb[k].m;
    }
    return v;
}

static void bvec_free(bvec *v)
{
    free(v->q); free(v->l); free(v->u);
}

/* New grid values: q moved, every finite bound moved by one delta per row (the row keeps
 * its kind: equalities stay equalities). */
static void perturb(tu_rng *r, bvec *v)
{
    for (size_t j = 0; j < v->hn; ++j) v->q[j] = grid(v->q[j] + tu_normal(r) / 4);
    for (size_t i = 0; i < v->hm; ++i) {
        const double d = grid(tu_normal(r) / 8);
        if (isfinite(v->l[i])) v->l[i] = grid(v->l[i] + d);
        if (isfinite(v->u[i])) v->u[i] = grid(v->u[i] + d);
        if (v->l[i] > v->u[i]) v->u[i] = v->l[i]; /* rounding of an equality row */
    }
}

/* New lower bounds alone (or upper bounds alone), valid against the kept other bound and
 * of the same kinds: l moves down (u up) on rows that are not equalities. */
static void perturb_l(tu_rng *r, bvec *v)
{
    for (size_t i = 0; i < v->hm; ++i)
        if (isfinite(v->l[i]) && v->l[i] < v->u[i]) v->l[i] = grid(v->l[i] - fabs(tu_normal(r)) / 8);
}

static void perturb_u(tu_rng *r, bvec *v)
{
    for (size_t i = 0; i < v->hm; ++i)
        if (isfinite(v->u[i]) && v->l[i] < v->u[i]) v->u[i] = grid(v->u[i] + fabs(tu_normal(r)) / 8);
}

/* A device buffer holding v[0 .. n) at offset off (the rest NaN), made by
 * gala_buffer_create, or on the host backend (wrap) by gala_buffer_wrap of a host array
 * (*mem, freed by dbuf_free). */
typedef struct {
    gala_buffer *b;
    void *mem;
} dbuf;

static dbuf dbuf_make(gala_context *ctx, gala_dtype dt, const double *v, size_t off, size_t n,
                      size_t total, int wrap)
{
    dbuf d = {NULL, NULL};
    const size_t cap = total ? total : 1, es = dt == GALA_FLOAT ? sizeof(float) : sizeof(double);
    void *h = malloc(cap * es);
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < cap; ++i) {
        const double x = i >= off && i < off + n && v ? v[i - off] : NAN;
        if (dt == GALA_FLOAT) ((float *)h)[i] = (float)x;
        else ((double *)h)[i] = x;
    }
    if (wrap) {
        TU_OK(ctx, gala_buffer_wrap(ctx, dt, cap, h, &d.b));
        d.mem = h;
    } else {
        TU_OK(ctx, gala_buffer_create(ctx, dt, cap, &d.b));
        TU_OK(ctx, gala_buffer_write(d.b, 0, cap, h));
        free(h);
    }
    return d;
}

static void dbuf_free(dbuf *d)
{
    gala_buffer_free(d->b);
    free(d->mem);
    d->b = NULL;
    d->mem = NULL;
}

/* Twin solvers: h gets the host API, d the device API. */
typedef struct {
    gala_context *ctx;
    int target;
    gala_dtype dt;
    const gala_qp_problem *pb;
    int count;
    gala_qp_solver *h, *d;
    size_t hn, hm;
    int calls; /* alternates the buffer kinds on the host backend */
} twins;

/* Set up both; 0 when the strategy is not in this build (SPARSE_LDLT without AMD). */
static int twins_setup(twins *t, gala_context *ctx, int target, const gala_qp_problem *pb,
                       int count, const gala_qp_settings *s)
{
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->target = target;
    t->dt = s->dtype;
    t->pb = pb;
    t->count = count;
    for (int k = 0; k < count; ++k) {
        t->hn += (size_t)(pb[k].n > 0 ? pb[k].n : 0);
        t->hm += (size_t)(pb[k].m > 0 ? pb[k].m : 0);
    }
    gala_status st = gala_qp_setup(ctx, pb, count, s, &t->h);
    if (st == GALA_ERR_NOT_SUPPORTED) return 0;
    TU_ASSERT(st == GALA_OK, target, "setup: %s", gala_last_error(ctx));
    TU_OK(ctx, gala_qp_setup(ctx, pb, count, s, &t->d));
    return 1;
}

static void twins_free(twins *t)
{
    gala_qp_destroy(t->h);
    gala_qp_destroy(t->d);
}

/* Whether the next buffers wrap host arrays: every other call on the host backend (on
 * OpenCL gala_buffer_wrap takes a cl_mem, not a host pointer). */
static int host_backend(const twins *t) { return tu_target_get(t->target)->backend == GALA_BACKEND_HOST; }
static int wrap_now(twins *t) { return host_backend(t) && (t->calls++ & 1); }

/* The same update on both: host arrays to h, device buffers (at offsets 0, 5, 2) to d;
 * NULL keeps a vector. */
static void twins_update(twins *t, const double *q, const double *l, const double *u)
{
    TU_OK(t->ctx, gala_qp_update_vectors(t->h, -1, q, l, u));
    const int w = wrap_now(t);
    dbuf bq = {NULL, NULL}, bl = {NULL, NULL}, bu = {NULL, NULL};
    if (q) bq = dbuf_make(t->ctx, t->dt, q, 0, t->hn, t->hn, w);
    if (l) bl = dbuf_make(t->ctx, t->dt, l, 5, t->hm, t->hm + 7, w);
    if (u) bu = dbuf_make(t->ctx, t->dt, u, 2, t->hm, t->hm + 2, host_backend(t) && !w);
    TU_OK(t->ctx, gala_qp_update_vectors_device(t->d, bq.b, 0, bl.b, 5, bu.b, 2));
    /* the device call only queued work: the buffers are the caller's until it ran */
    TU_OK(t->ctx, gala_finish(t->ctx));
    dbuf_free(&bq);
    dbuf_free(&bl);
    dbuf_free(&bu);
}

/* x and y of d through gala_qp_get_solution_device into buffers poisoned first with NaN
 * (every entry of a solved QP must be written), then with 777 (every entry of a QP
 * without a solution must become NaN, the guards before and after must stay), compared
 * bitwise with h's gala_qp_get_solution. */
static void twins_compare_solutions(twins *t, const char *what)
{
    const size_t xo = 3, yo = 1, gx = xo + t->hn + 4, gy = yo + t->hm + 2;
    double *hx = malloc(sizeof(double) * gx), *hy = malloc(sizeof(double) * gy);
    for (int pass = 0; pass < 2; ++pass) {
        const int w = wrap_now(t);
        dbuf bx = dbuf_make(t->ctx, t->dt, NULL, 0, 0, gx, w);
        dbuf by = dbuf_make(t->ctx, t->dt, NULL, 0, 0, gy, w);
        if (pass) {
            TU_OK(t->ctx, gala_buffer_fill(bx.b, 0, gx, 777));
            TU_OK(t->ctx, gala_buffer_fill(by.b, 0, gy, 777));
        }
        TU_OK(t->ctx, gala_qp_get_solution_device(t->d, bx.b, xo, by.b, yo));
        tu_download(bx.b, 0, hx, gx);
        tu_download(by.b, 0, hy, gy);
        dbuf_free(&bx);
        dbuf_free(&by);
        size_t a = xo, b = yo;
        for (int k = 0; k < t->count; ++k) {
            const int n = t->pb[k].n > 0 ? t->pb[k].n : 0, m = t->pb[k].m > 0 ? t->pb[k].m : 0;
            const double *x = NULL, *y = NULL;
            TU_OK(t->ctx, gala_qp_get_solution(t->h, k, &x, &y, NULL, NULL));
            /* in the dtype: a polished solution is computed in double on the host */
#define TU_DT(v) (t->dt == GALA_FLOAT ? (double)(float)(v) : (v))
            for (int j = 0; j < n; ++j)
                TU_ASSERT(qp_same_real(hx[a + (size_t)j], TU_DT(x[j])), t->target,
                          "%s, pass %d: QP %d x[%d] = %.17g on the device, %.17g by the host API",
                          what, pass, k, j, hx[a + (size_t)j], x[j]);
            for (int i = 0; i < m; ++i)
                TU_ASSERT(qp_same_real(hy[b + (size_t)i], TU_DT(y[i])), t->target,
                          "%s, pass %d: QP %d y[%d] = %.17g on the device, %.17g by the host API",
                          what, pass, k, i, hy[b + (size_t)i], y[i]);
            a += (size_t)n;
            b += (size_t)m;
#undef TU_DT
        }
        const double guard = pass ? 777 : NAN;
        for (size_t i = 0; i < xo; ++i) TU_ASSERT(qp_same_real(hx[i], guard), t->target, "%s: x guard %zu", what, i);
        for (size_t i = a; i < gx; ++i) TU_ASSERT(qp_same_real(hx[i], guard), t->target, "%s: x guard %zu", what, i);
        for (size_t i = 0; i < yo; ++i) TU_ASSERT(qp_same_real(hy[i], guard), t->target, "%s: y guard %zu", what, i);
        for (size_t i = b; i < gy; ++i) TU_ASSERT(qp_same_real(hy[i], guard), t->target, "%s: y guard %zu", what, i);
    }
    free(hx);
    free(hy);
}

/* Info of both, before a solve (messages) or after it (everything but times). */
static void twins_compare_info(twins *t, const char *what)
{
    for (int k = 0; k < t->count; ++k) {
        gala_qp_info a, b;
        TU_OK(t->ctx, gala_qp_get_info(t->h, k, &a));
        TU_OK(t->ctx, gala_qp_get_info(t->d, k, &b));
        qp_same_info(t->target, &a, &b, k, what);
    }
}

static void twins_solve_compare(twins *t, const char *what)
{
    TU_OK(t->ctx, gala_qp_solve(t->h));
    TU_OK(t->ctx, gala_qp_solve(t->d));
    twins_compare_info(t, what);
    twins_compare_solutions(t, what);
}

static int status_of(gala_qp_solver *s, int k)
{
    gala_qp_info in;
    TU_OK(NULL, gala_qp_get_info(s, k, &in));
    return in.status;
}

static int solved(int st) { return st == GALA_QP_SOLVED || st == GALA_QP_SOLVED_INACCURATE; }

/* The sequence every strategy runs: solve; a full update; l alone; invalid data in two QPs
 * (a NaN in q of QP bad_q, l > u in row 0 of QP bad_b, unless bad_b < 0) with messages
 * before the solve; l alone again (QP bad_q's kept q is valid: it recovers, QP bad_b does
 * not); valid data for every QP; a row of QP kq (unless kq < 0) changed from inequality to
 * equality; a host update of u alone after a device update (the host copies are read back
 * first) and a device update of u alone after a host update (the device's copy is
 * refreshed first). */
static void run_sequence(twins *t, tu_rng *r, int bad_q, int bad_b, int kq, int kq_row,
                         const char *name)
{
    char what[160];
#define WHAT(s) (snprintf(what, sizeof what, "%s: %s", name, s), what)
    twins_solve_compare(t, WHAT("first solve"));
    bvec v = bvec_of(t->pb, t->count);
    perturb(r, &v);
    twins_update(t, v.q, v.l, v.u);
    twins_compare_info(t, WHAT("after a full update, before the solve"));
    twins_solve_compare(t, WHAT("full update"));
    perturb_l(r, &v);
    twins_update(t, NULL, v.l, NULL);
    twins_solve_compare(t, WHAT("l alone"));
    int nsolved = 0;
    for (int k = 0; k < t->count; ++k) nsolved += solved(status_of(t->h, k));
    TU_ASSERT(nsolved > 0, t->target, "%s: nothing solved", name);
    /* invalid data */
    size_t qo = 0, bo = 0;
    for (int k = 0; k < bad_q; ++k) qo += (size_t)t->pb[k].n;
    for (int k = 0; k < bad_b; ++k) bo += (size_t)t->pb[k].m; /* bad_b < 0: none */
    bvec w = bvec_of(t->pb, t->count);
    memcpy(w.q, v.q, sizeof(double) * v.hn);
    memcpy(w.l, v.l, sizeof(double) * v.hm);
    memcpy(w.u, v.u, sizeof(double) * v.hm);
    w.q[qo + 1] = NAN;
    if (bad_b >= 0) {
        w.l[bo] = 1024; /* above any kept u */
        w.u[bo] = 1000;
    }
    twins_update(t, w.q, w.l, w.u);
    twins_compare_info(t, WHAT("invalid data, before the solve"));
    gala_qp_info in;
    TU_OK(t->ctx, gala_qp_get_info(t->d, bad_q, &in));
    TU_ASSERT(strstr(in.message, "q[1]") != NULL, t->target, "%s: message '%s'", name, in.message);
    if (bad_b >= 0) {
        TU_OK(t->ctx, gala_qp_get_info(t->d, bad_b, &in));
        TU_ASSERT(strstr(in.message, "row 0") != NULL, t->target, "%s: message '%s'", name, in.message);
    }
    twins_solve_compare(t, WHAT("invalid data"));
    int others = 0;
    for (int k = 0; k < t->count; ++k) {
        const int st = status_of(t->d, k);
        if (k == bad_q || k == bad_b)
            TU_ASSERT(st == GALA_QP_INVALID_DATA, t->target, "%s: QP %d status %d after invalid "
                      "data", name, k, st);
        else
            others += solved(st);
    }
    TU_ASSERT(others > 0 || t->count <= 2, t->target, "%s: no other QP solved next to the "
              "invalid ones", name);
    /* l alone: QP bad_q is valid again (its q is the last valid one), bad_b is not */
    if (bad_b >= 0) w.l[bo] = INFINITY;
    twins_update(t, NULL, w.l, NULL);
    twins_solve_compare(t, WHAT("l alone after invalid data"));
    if (bad_b >= 0)
        TU_ASSERT(status_of(t->d, bad_b) == GALA_QP_INVALID_DATA, t->target, "%s: QP %d", name, bad_b);
    TU_ASSERT(status_of(t->d, bad_q) != GALA_QP_INVALID_DATA, t->target, "%s: QP %d", name, bad_q);
    /* valid data everywhere: every QP as before */
    perturb(r, &v);
    twins_update(t, v.q, v.l, v.u);
    twins_solve_compare(t, WHAT("valid data again"));
    for (int k = 0; k < t->count; ++k)
        if (k == bad_q || k == bad_b)
            TU_ASSERT(status_of(t->d, k) != GALA_QP_INVALID_DATA, t->target, "%s: QP %d not "
                      "restored", name, k);
    /* a row changes kind: inequality -> equality */
    if (kq >= 0) {
        size_t ko = 0;
        for (int k = 0; k < kq; ++k) ko += (size_t)t->pb[k].m;
        v.u[ko + (size_t)kq_row] = v.l[ko + (size_t)kq_row];
        twins_update(t, NULL, v.l, v.u);
        twins_solve_compare(t, WHAT("a row becomes an equality"));
    }
    /* host update of u alone after a device update (validated against the l the device
     * update left), then a device update of u alone after a host update */
    perturb(r, &v);
    twins_update(t, NULL, v.l, v.u);
    perturb_u(r, &v);
    TU_OK(t->ctx, gala_qp_update_vectors(t->h, -1, NULL, NULL, v.u));
    TU_OK(t->ctx, gala_qp_update_vectors(t->d, -1, NULL, NULL, v.u));
    twins_solve_compare(t, WHAT("host update after a device update"));
    for (int j = 0; j < t->pb[0].n; ++j) v.q[j] = grid(v.q[j] + 0.25); /* QP 0's q */
    TU_OK(t->ctx, gala_qp_update_vectors(t->h, 0, v.q, NULL, NULL));
    TU_OK(t->ctx, gala_qp_update_vectors(t->d, 0, v.q, NULL, NULL));
    perturb_u(r, &v);
    twins_update(t, NULL, NULL, v.u);
    twins_solve_compare(t, WHAT("device update after a host update"));
    bvec_free(&v);
    bvec_free(&w);
#undef WHAT
}

static gala_qp_settings settings_for(int target)
{
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.dtype = tu_target_get(target)->dtype;
    s.max_iter = 2000;
    return s;
}

/* ------------------------------------------------------------------ tests */

/* A heterogeneous batch (different n and m; QP 3 rejected at setup: l > u, its n and m keep
 * their place in the caller's layout) through the per-QP strategies. */
START_TEST(heterogeneous_matches_host_api)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 7 };
    static const int sizes[B][2] = {{4, 3}, {7, 5}, {3, 6}, {2, 1}, {9, 4}, {5, 0}, {6, 6}};
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k) pb[k] = random_qp(&r, sizes[k][0], sizes[k][1]);
    pb[3].l[0] = 2;
    pb[3].u[0] = 1; /* rejected at setup */
    /* QP 4's row 1: an inequality with finite bounds (made an equality later) */
    pb[4].l[1] = -1;
    pb[4].u[1] = 1.5;
    static const int strategies[] = {GALA_QP_LINSYS_DENSE, GALA_QP_LINSYS_SPARSE_LDLT,
                                     GALA_QP_LINSYS_PCG};
    for (size_t v = 0; v < sizeof strategies / sizeof strategies[0]; ++v) {
        gala_qp_settings s = settings_for(_i);
        s.linsys_solver = strategies[v];
        twins t;
        if (!twins_setup(&t, ctx, _i, pb, B, &s)) continue;
        TU_ASSERT(gala_qp_linsys_used(t.d) == strategies[v], _i, "strategy %d", gala_qp_linsys_used(t.d));
        char name[64];
        snprintf(name, sizeof name, "heterogeneous, strategy %d", strategies[v]);
        run_sequence(&t, &r, 1, 6, 4, 1, name);
        twins_free(&t);
    }
    for (int k = 0; k < B; ++k) free_qp(&pb[k]);
}
END_TEST

/* A uniform batch of double integrators (the k×n row-major layout) in the shared strategy
 * (a row changing kind makes the QP INVALID_DATA there) and in the dense one. */
START_TEST(uniform_matches_host_api)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 21 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k) {
        TU_OK(NULL, gala_qp_double_integrator(8, grid(2 * tu_uniform(&r) - 1), grid(tu_uniform(&r) - 0.5), &pb[k]));
        for (int i = 0; i < pb[k].m; ++i) { /* grid bounds: the generator's are not */
            pb[k].l[i] = isfinite(pb[k].l[i]) ? grid(pb[k].l[i]) : pb[k].l[i];
            pb[k].u[i] = isfinite(pb[k].u[i]) ? grid(pb[k].u[i]) : pb[k].u[i];
        }
    }
    /* a row of inequality kind (|u| ≤ 1 of the controls): the last row */
    const int row = pb[0].m - 1;
    TU_ASSERT(pb[0].l[row] < pb[0].u[row], _i, "row %d is not an inequality", row);
    static const int strategies[] = {GALA_QP_LINSYS_DENSE_SHARED, GALA_QP_LINSYS_DENSE};
    for (int v = 0; v < 2; ++v) {
        gala_qp_settings s = settings_for(_i);
        s.linsys_solver = strategies[v];
        twins t;
        TU_ASSERT(twins_setup(&t, ctx, _i, pb, B, &s), _i, "setup");
        TU_ASSERT(gala_qp_linsys_used(t.d) == strategies[v], _i, "strategy %d", gala_qp_linsys_used(t.d));
        char name[64];
        snprintf(name, sizeof name, "uniform, strategy %d", strategies[v]);
        run_sequence(&t, &r, 2, 9, 5, row, name);
        if (v == 0) {
            gala_qp_info in;
            TU_OK(ctx, gala_qp_get_info(t.d, 5, &in));
            TU_ASSERT(in.status == GALA_QP_INVALID_DATA && strstr(in.message, "kind"), _i,
                      "shared, a row's kind changed: status %d, '%s'", in.status, in.message);
        }
        twins_free(&t);
    }
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* Every status without a solution gives NaN x and y (primal and dual infeasible,
 * non-convex, rejected at setup, invalid after an update), the solved ones their
 * solution; polishing's solutions reach the device buffers. */
START_TEST(outputs_without_solution_are_nan)
{
    gala_context *ctx = tu_ctx(_i);
    double I2[] = {1, 0, 0, 1}, Z2[] = {0, 0, 0, 0}, q1[] = {1, -1}, A2[] = {1, 0, 1, 0};
    double lp[] = {0, -1}, up[] = {2, 1};
    double li[] = {1, -2}, ui[] = {1, -2};                /* x1 = 1 and x1 = −2: infeasible */
    double A1[] = {1, 0}, l1[] = {-INFINITY}, u1[] = {0}; /* P = 0, q = (1, −1): unbounded */
    double Pn[] = {-1, 0, 0, 1};                          /* indefinite */
    enum { B = 6 };
    gala_qp_problem pb[B] = {
        make_qp(2, 2, I2, q1, A2, lp, up), /* solved */
        make_qp(2, 2, I2, q1, A2, li, ui), /* primal infeasible */
        make_qp(2, 1, Z2, q1, A1, l1, u1), /* dual infeasible */
        make_qp(2, 2, Pn, q1, I2, lp, up), /* non-convex */
        make_qp(2, 2, I2, q1, A2, lp, up), /* rejected at setup (below) */
        make_qp(2, 2, I2, q1, A2, lp, up), /* solved */
    };
    pb[4].l[1] = 3; /* l > u */
    for (int pol = 0; pol < 2; ++pol) {
        gala_qp_settings s = settings_for(_i);
        s.polishing = pol;
        twins t;
        TU_ASSERT(twins_setup(&t, ctx, _i, pb, B, &s), _i, "setup");
        twins_solve_compare(&t, pol ? "statuses, polished" : "statuses");
        static const int want[B] = {GALA_QP_SOLVED, GALA_QP_PRIMAL_INFEASIBLE,
                                    GALA_QP_DUAL_INFEASIBLE, GALA_QP_NON_CVX,
                                    GALA_QP_INVALID_DATA, GALA_QP_SOLVED};
        for (int k = 0; k < B; ++k) {
            const int st = status_of(t.d, k);
            const int ok = st == want[k] || (want[k] == GALA_QP_PRIMAL_INFEASIBLE &&
                                             st == GALA_QP_PRIMAL_INFEASIBLE_INACCURATE) ||
                           (want[k] == GALA_QP_DUAL_INFEASIBLE && st == GALA_QP_DUAL_INFEASIBLE_INACCURATE);
            TU_ASSERT(ok, _i, "QP %d: status %d, expected %d", k, st, want[k]);
        }
        if (pol) {
            gala_qp_info in;
            TU_OK(ctx, gala_qp_get_info(t.d, 0, &in));
            TU_ASSERT(in.status_polish == 1, _i, "QP 0 not polished: %d", in.status_polish);
        }
        /* x of the device buffers: finite for 0 and 5, NaN for 1 to 4 (checked against the
         * host API by twins_compare_solutions; here on its own) */
        gala_buffer *bx = tu_poisoned(ctx, t.dt, 12), *by = tu_poisoned(ctx, t.dt, 11);
        TU_OK(ctx, gala_buffer_fill(bx, 0, 12, 5));
        TU_OK(ctx, gala_buffer_fill(by, 0, 11, 5));
        TU_OK(ctx, gala_qp_get_solution_device(t.d, bx, 0, by, 0));
        double hx[12], hy[11];
        tu_download(bx, 0, hx, 12);
        tu_download(by, 0, hy, 11);
        for (int k = 0; k < B; ++k)
            for (int j = 0; j < 2; ++j)
                TU_ASSERT(isnan(hx[2 * k + j]) == (k >= 1 && k <= 4), _i, "QP %d: x[%d] = %g", k,
                          j, hx[2 * k + j]);
        /* y: m = 2, 2, 1, 2, 2, 2 */
        for (int i = 0; i < 11; ++i) {
            const int k = i < 2 ? 0 : (i < 4 ? 1 : (i < 5 ? 2 : (i < 7 ? 3 : (i < 9 ? 4 : 5))));
            TU_ASSERT(isnan(hy[i]) == (k >= 1 && k <= 4), _i, "y[%d] (QP %d) = %g", i, k, hy[i]);
        }
        /* x alone, y alone */
        TU_OK(ctx, gala_buffer_fill(bx, 0, 12, 5));
        TU_OK(ctx, gala_qp_get_solution_device(t.d, bx, 0, NULL, 0));
        tu_download(bx, 0, hx, 12);
        TU_ASSERT(!isnan(hx[0]) && isnan(hx[2]), _i, "x alone");
        TU_OK(ctx, gala_qp_get_solution_device(t.d, NULL, 0, by, 0));
        gala_buffer_free(bx);
        gala_buffer_free(by);
        twins_free(&t);
    }
    for (int k = 0; k < B; ++k) free_qp(&pb[k]);
}
END_TEST

/* A batch of one QP and one of 3000 small QPs of different sizes (dense), and 2500
 * double integrators (shared), each updated through both paths. */
START_TEST(batch_sizes)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    gala_qp_settings s = settings_for(_i);
    /* one QP */
    gala_qp_problem one = random_qp(&r, 6, 4);
    twins t;
    TU_ASSERT(twins_setup(&t, ctx, _i, &one, 1, &s), _i, "setup");
    run_sequence(&t, &r, 0, -1, -1, 0, "one QP");
    twins_free(&t);
    free_qp(&one);
    /* 3000 small QPs of different sizes (on a slow device 600: still hundreds per size
     * class), then 2500 double integrators (500) */
    const int NB = tu_size(3000, 600, "batch_sizes: small QPs");
    const int ND = tu_size(2500, 500, "batch_sizes: double integrators");
    gala_qp_problem *pb = calloc((size_t)NB, sizeof *pb);
    ck_assert_ptr_nonnull(pb);
    for (int k = 0; k < NB; ++k) pb[k] = random_qp(&r, 2 + k % 4, 1 + k % 3);
    s.linsys_solver = GALA_QP_LINSYS_DENSE;
    TU_ASSERT(twins_setup(&t, ctx, _i, pb, NB, &s), _i, "setup");
    twins_solve_compare(&t, "thousands of QPs");
    bvec v = bvec_of(pb, NB);
    perturb(&r, &v);
    v.q[4] = INFINITY; /* QP 1's q[2] (QP 0 has n = 2, QP 1 n = 3) */
    twins_update(&t, v.q, v.l, v.u);
    twins_solve_compare(&t, "thousands of QPs, updated");
    TU_ASSERT(status_of(t.d, 1) == GALA_QP_INVALID_DATA, _i, "QP 1: %d", status_of(t.d, 1));
    bvec_free(&v);
    twins_free(&t);
    for (int k = 0; k < NB; ++k) free_qp(&pb[k]);
    /* 2500 double integrators, shared */
    for (int k = 0; k < ND; ++k) {
        TU_OK(NULL, gala_qp_double_integrator(4, grid(2 * tu_uniform(&r) - 1), grid(tu_uniform(&r) - 0.5), &pb[k]));
        for (int i = 0; i < pb[k].m; ++i) {
            pb[k].l[i] = isfinite(pb[k].l[i]) ? grid(pb[k].l[i]) : pb[k].l[i];
            pb[k].u[i] = isfinite(pb[k].u[i]) ? grid(pb[k].u[i]) : pb[k].u[i];
        }
    }
    s.linsys_solver = GALA_QP_LINSYS_AUTO;
    TU_ASSERT(twins_setup(&t, ctx, _i, pb, ND, &s), _i, "setup");
    TU_ASSERT(gala_qp_linsys_used(t.d) == GALA_QP_LINSYS_DENSE_SHARED, _i, "not shared");
    twins_solve_compare(&t, "double integrators");
    v = bvec_of(pb, ND);
    perturb(&r, &v);
    twins_update(&t, NULL, v.l, v.u);
    twins_solve_compare(&t, "double integrators, new bounds");
    bvec_free(&v);
    twins_free(&t);
    for (int k = 0; k < ND; ++k) gala_qp_problem_free(&pb[k]);
    free(pb);
}
END_TEST

/* gala_qp_warm_start_device does what gala_qp_warm_start(-1) does: the same iterations and
 * results bitwise. In double, from a solution found to a 100× tighter tolerance, the re-solve
 * stops within two checks. Not in float: from a solution that only just met the tolerance,
 * ADMM may drift back above it first (seed 65753779316: 175 iterations), and a 100× tighter
 * tolerance may be out of float's reach (seed 5: max_iter); there it must be solved. */
START_TEST(warm_start_matches_host_api)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 4 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k) pb[k] = random_qp(&r, 3 + k, 2 + k);
    gala_qp_settings s = settings_for(_i), tight = s;
    tight.eps_abs /= 100;
    tight.eps_rel /= 100;
    twins t;
    TU_ASSERT(twins_setup(&t, ctx, _i, pb, B, &tight), _i, "setup");
    twins_solve_compare(&t, "before the warm start");
    TU_OK(ctx, gala_qp_update_settings(t.h, &s));
    TU_OK(ctx, gala_qp_update_settings(t.d, &s));
    bvec v = bvec_of(pb, B);
    size_t a = 0, b = 0;
    for (int k = 0; k < B; ++k) {
        const double *x, *y;
        TU_OK(ctx, gala_qp_get_solution(t.h, k, &x, &y, NULL, NULL));
        memcpy(v.q + a, x, sizeof(double) * (size_t)pb[k].n); /* q holds x, l holds y */
        memcpy(v.l + b, y, sizeof(double) * (size_t)pb[k].m);
        a += (size_t)pb[k].n;
        b += (size_t)pb[k].m;
    }
    for (int variant = 0; variant < 3; ++variant) { /* x and y, x alone, y alone */
        const double *hx = variant != 2 ? v.q : NULL, *hy = variant != 1 ? v.l : NULL;
        TU_OK(ctx, gala_qp_cold_start(t.h));
        TU_OK(ctx, gala_qp_cold_start(t.d));
        TU_OK(ctx, gala_qp_warm_start(t.h, -1, hx, hy));
        const int w = wrap_now(&t);
        dbuf bx = {NULL, NULL}, by = {NULL, NULL};
        if (hx) bx = dbuf_make(ctx, t.dt, hx, 1, t.hn, t.hn + 1, w);
        if (hy) by = dbuf_make(ctx, t.dt, hy, 0, t.hm, t.hm, w);
        TU_OK(ctx, gala_qp_warm_start_device(t.d, bx.b, 1, by.b, 0));
        TU_OK(ctx, gala_finish(ctx));
        dbuf_free(&bx);
        dbuf_free(&by);
        twins_solve_compare(&t, "warm started");
        if (variant == 0)
            for (int k = 0; k < B; ++k) {
                gala_qp_info in;
                TU_OK(ctx, gala_qp_get_info(t.d, k, &in));
                TU_ASSERT(solved(in.status) && (s.dtype == GALA_FLOAT || in.iter <= 2 * s.check_termination), _i,
                          "QP %d warm: status %d after %d iterations", k, in.status, in.iter);
            }
    }
    bvec_free(&v);
    twins_free(&t);
    for (int k = 0; k < B; ++k) free_qp(&pb[k]);
}
END_TEST

#define EXPECT_ARG(call, word)                                                              \
    do {                                                                                    \
        gala_status st_ = (call);                                                           \
        TU_ASSERT(st_ == GALA_ERR_INVALID_ARG, _i, "%s returned %d", #call, st_);           \
        TU_ASSERT(strstr(gala_last_error(ctx), word) != NULL, _i, "%s: message '%s' does "   \
                  "not name '%s'", #call, gala_last_error(ctx), word);                      \
    } while (0)

/* Argument errors: GALA_ERR_INVALID_ARG with a message naming the argument, nothing
 * changed (the solver still solves as its twin). */
START_TEST(argument_errors)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    gala_qp_problem pb[2] = {random_qp(&r, 3, 2), random_qp(&r, 4, 3)};
    gala_qp_settings s = settings_for(_i);
    twins t;
    TU_ASSERT(twins_setup(&t, ctx, _i, pb, 2, &s), _i, "setup");
    const gala_dtype other = t.dt == GALA_FLOAT ? GALA_DOUBLE : GALA_FLOAT;
    gala_buffer *q = tu_poisoned(ctx, t.dt, 7), *l = tu_poisoned(ctx, t.dt, 5);
    gala_buffer *wrong = NULL, *ints = NULL, *foreign = NULL;
    if (other == GALA_FLOAT || tu_target_get(_i)->backend == GALA_BACKEND_HOST)
        TU_OK(ctx, gala_buffer_create(ctx, other, 7, &wrong));
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 7, &ints));
    gala_context *ctx2 = tu_host_ctx(0);
    TU_OK(ctx2, gala_buffer_create(ctx2, t.dt, 7, &foreign));
    /* get_solution before any solve */
    EXPECT_ARG(gala_qp_get_solution_device(t.d, q, 0, l, 0), "not solved");
    TU_ASSERT(gala_qp_update_vectors_device(NULL, q, 0, NULL, 0, NULL, 0) == GALA_ERR_INVALID_ARG &&
                  strstr(gala_last_error(NULL), "solver"), _i, "NULL: '%s'", gala_last_error(NULL));
    TU_ASSERT(gala_qp_get_solution_device(NULL, q, 0, NULL, 0) == GALA_ERR_INVALID_ARG, _i, "NULL");
    TU_ASSERT(gala_qp_warm_start_device(NULL, q, 0, NULL, 0) == GALA_ERR_INVALID_ARG, _i, "NULL");
    if (wrong) EXPECT_ARG(gala_qp_update_vectors_device(t.d, wrong, 0, NULL, 0, NULL, 0), "q");
    EXPECT_ARG(gala_qp_update_vectors_device(t.d, NULL, 0, ints, 0, NULL, 0), "l");
    EXPECT_ARG(gala_qp_update_vectors_device(t.d, NULL, 0, NULL, 0, foreign, 0), "u");
    EXPECT_ARG(gala_qp_update_vectors_device(t.d, q, 1, NULL, 0, NULL, 0), "q"); /* 7 − 1 < 7 */
    EXPECT_ARG(gala_qp_update_vectors_device(t.d, NULL, 0, l, 1, NULL, 0), "l");
    EXPECT_ARG(gala_qp_update_vectors_device(t.d, q, (size_t)-3, NULL, 0, NULL, 0), "q");
    EXPECT_ARG(gala_qp_warm_start_device(t.d, q, 2, NULL, 0), "x");
    EXPECT_ARG(gala_qp_warm_start_device(t.d, NULL, 0, foreign, 0), "y");
    twins_solve_compare(&t, "after the refused calls"); /* nothing was changed */
    EXPECT_ARG(gala_qp_get_solution_device(t.d, q, 1, NULL, 0), "x");
    EXPECT_ARG(gala_qp_get_solution_device(t.d, NULL, 0, l, 3), "y");
    EXPECT_ARG(gala_qp_get_solution_device(t.d, ints, 0, NULL, 0), "x");
    EXPECT_ARG(gala_qp_get_solution_device(t.d, foreign, 0, NULL, 0), "x");
    /* x and y in one buffer: side by side is fine, overlapping is not */
    gala_buffer *xy = tu_poisoned(ctx, t.dt, 12);
    TU_OK(ctx, gala_qp_get_solution_device(t.d, xy, 0, xy, 7));
    EXPECT_ARG(gala_qp_get_solution_device(t.d, xy, 0, xy, 6), "overlap");
    TU_OK(ctx, gala_qp_get_solution_device(t.d, NULL, 0, NULL, 0));
    gala_buffer_free(xy);
    /* a batch whose every QP was rejected at setup: updates accepted, outputs NaN */
    gala_qp_problem bad = random_qp(&r, 3, 2);
    bad.l[0] = bad.u[0] + 1;
    gala_qp_solver *sb;
    TU_OK(ctx, gala_qp_setup(ctx, &bad, 1, &s, &sb));
    TU_OK(ctx, gala_qp_update_vectors_device(sb, q, 0, l, 0, l, 0));
    TU_OK(ctx, gala_qp_solve(sb));
    gala_buffer *bx = tu_poisoned(ctx, t.dt, 3);
    TU_OK(ctx, gala_buffer_fill(bx, 0, 3, 1));
    TU_OK(ctx, gala_qp_get_solution_device(sb, bx, 0, NULL, 0));
    double hx[3];
    tu_download(bx, 0, hx, 3);
    TU_ASSERT(isnan(hx[0]) && isnan(hx[2]), _i, "rejected QP: x = %g", hx[0]);
    gala_buffer_free(bx);
    gala_qp_destroy(sb);
    free_qp(&bad);
    gala_buffer_free(q);
    gala_buffer_free(l);
    gala_buffer_free(wrong);
    gala_buffer_free(ints);
    gala_buffer_free(foreign);
    gala_context_destroy(ctx2);
    twins_free(&t);
    free_qp(&pb[0]);
    free_qp(&pb[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qp_device");
    TCase *tc = tcase_create("qp_device");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, argument_errors, 0, nt);
    tcase_add_loop_test(tc, heterogeneous_matches_host_api, 0, nt);
    tcase_add_loop_test(tc, uniform_matches_host_api, 0, nt);
    tcase_add_loop_test(tc, outputs_without_solution_are_nan, 0, nt);
    tcase_add_loop_test(tc, warm_start_matches_host_api, 0, nt);
    tcase_add_loop_test(tc, batch_sizes, 0, nt);
    suite_add_tcase(s, tc);
    int rc = tu_run(s);
    tu_release();
    return rc;
}
