#define _POSIX_C_SOURCE 200809L
/*
 * gala-info's per-family self-test (gala_selftest.h). Every family gets a tiny batch whose
 * exact answer is built in: the matrices are made from a known factor whose entries are
 * small multiples of 2⁻⁷, so that the input is exact in float as well as in double and the
 * exact factor is the known one; the computed answer must lie within a few hundred units
 * of rounding of it (the matrices are well conditioned: diagonally dominant factors).
 * The dense families take one variable batch of orders 1, 5 and 7.
 */
#include "gala_selftest.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Orders of the dense batches: within every family's smallest size class, so that each
 * family compiles one or two programs (a first run compiles them: seconds on a GPU, more on
 * CPU implementations; the kernel cache keeps them for the next run) */
enum { NB = 3, NMAX = 7 };
static const int orders[NB] = {1, 5, NMAX};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double eps_of(gala_dtype dt) { return dt == GALA_FLOAT ? 0x1.0p-23 : 0x1.0p-52; }

/* ---------------------------------------------------------------- buffers in either precision */

static gala_status upload(gala_context *ctx, gala_dtype dt, const double *v, size_t n,
                          gala_buffer **out)
{
    *out = NULL;
    gala_status s = gala_buffer_create(ctx, dt, n ? n : 1, out);
    if (s != GALA_OK || n == 0) return s;
    if (dt == GALA_DOUBLE) return gala_buffer_write(*out, 0, n, v);
    float *f = malloc(n * sizeof *f);
    if (!f) return GALA_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; ++i) f[i] = (float)v[i];
    s = gala_buffer_write(*out, 0, n, f);
    free(f);
    return s;
}

static gala_status download(const gala_buffer *b, gala_dtype dt, double *v, size_t n)
{
    if (dt == GALA_DOUBLE) return gala_buffer_read(b, 0, n, v);
    float *f = malloc((n ? n : 1) * sizeof *f);
    if (!f) return GALA_ERR_OUT_OF_MEMORY;
    gala_status s = gala_buffer_read(b, 0, n, f);
    for (size_t i = 0; s == GALA_OK && i < n; ++i) v[i] = f[i];
    free(f);
    return s;
}

/* ---------------------------------------------------------------- known matrices */

/* Off-diagonal entry (i > j) of the known factors: a multiple of 2⁻⁷ in [−1/64, 1/64] */
static double offdiag(int i, int j) { return (double)((i * 7 + j * 3) % 5 - 2) / 128.0; }

/* L (lower, column-major n×n): diagonal 2, 3 or 4 (unit: 1), entries above it 0 */
static void known_l(int n, int unit, double *L)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            L[i + (size_t)j * n] = i == j ? (unit ? 1.0 : 2.0 + i % 3) : i > j ? offdiag(i, j) : 0;
}

/* D of the LDLᵀ test: ±(2 + i mod 3), every other pivot negative */
static double known_d(int i) { return (i % 2 ? -1.0 : 1.0) * (2.0 + i % 3); }

/* full symmetric A = L·diag(d)·Lᵀ (d NULL: identity), exact in float and double */
static void make_a(int n, const double *L, int ldl, double *A)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int k = 0; k <= (i < j ? i : j); ++k)
                s += L[i + (size_t)k * n] * (ldl ? known_d(k) : 1.0) * L[j + (size_t)k * n];
            A[i + (size_t)j * n] = s;
        }
}

/* the right-hand sides' exact solution: small integers */
static double known_x(int i, int r) { return (double)((i * 5 + r * 3) % 7 - 3); }

/* a wrong answer: r's status, and its detail "wrong answer: " and what fmt says */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void wrong(gst_result *r, const char *fmt, ...)
{
    static const char head[] = "wrong answer: ";
    memcpy(r->detail, head, sizeof head);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->detail + sizeof head - 1, sizeof r->detail - (sizeof head - 1), fmt, ap);
    va_end(ap);
    r->status = GALA_ERR_INTERNAL;
}

/* first entry where |got − want| > tol, into r->detail; returns 1 when all are within */
static int close_all(gst_result *r, const char *what, int b, const double *got,
                     const double *want, size_t n, double tol)
{
    for (size_t e = 0; e < n; ++e) {
        const double d = fabs(got[e] - want[e]);
        if (!(d <= tol)) {
            wrong(r, "%s of item %d, entry %zu: %.9g, expected %.9g (tolerance %.2g)", what, b, e,
                  got[e], want[e], tol);
            return 0;
        }
    }
    return 1;
}

/* One variable batch of the dense orders, matrix b at off[b] with lda = n (one buffer). */
typedef struct dense_batch {
    int n[NB], lda[NB];
    size_t off[NB], total;
} dense_batch;

static void dense_layout(dense_batch *d, int cols_per_n)
{
    d->total = 0;
    for (int b = 0; b < NB; ++b) {
        d->n[b] = orders[b];
        d->lda[b] = orders[b];
        d->off[b] = d->total;
        d->total += (size_t)orders[b] * (size_t)(cols_per_n ? cols_per_n : orders[b]);
    }
}

/* ---------------------------------------------------------------- families */

/* A dense family's batch (orders 1, 5, 7): the known factor L (ldl: unit, with D's pivots
 * stored on its diagonal, as gala_ldlt returns them), A made from it and uploaded to bA,
 * right-hand sides B = A·X of the known X (two per matrix), and room for the answers. */
typedef struct dense_case {
    dense_batch da, db; /* A, L: n×n; B, X: n×2 */
    double *L, *A, *got, *B, *X;
    gala_buffer *bA, *bB;
} dense_case;

static void dense_case_free(dense_case *c)
{
    gala_buffer_free(c->bA);
    gala_buffer_free(c->bB);
    free(c->L);
    free(c->A);
    free(c->got);
    free(c->B);
    free(c->X);
}

static gala_status dense_case_make(dense_case *c, gala_context *ctx, gala_dtype dt, int ldl)
{
    memset(c, 0, sizeof *c);
    dense_layout(&c->da, 0);
    dense_layout(&c->db, 2);
    c->L = calloc(c->da.total, sizeof *c->L);
    c->A = calloc(c->da.total, sizeof *c->A);
    c->got = calloc(c->da.total, sizeof *c->got);
    c->B = calloc(c->db.total, sizeof *c->B);
    c->X = calloc(c->db.total, sizeof *c->X);
    if (!c->L || !c->A || !c->got || !c->B || !c->X) return GALA_ERR_OUT_OF_MEMORY;
    for (int b = 0; b < NB; ++b) {
        const int n = orders[b];
        double *L = c->L + c->da.off[b], *A = c->A + c->da.off[b];
        known_l(n, ldl, L);
        make_a(n, L, ldl, A);
        for (int k = 0; k < 2; ++k)
            for (int i = 0; i < n; ++i) {
                double v = 0;
                for (int p = 0; p < n; ++p) v += A[i + (size_t)p * n] * known_x(p, k);
                c->B[c->db.off[b] + i + (size_t)k * n] = v;
                c->X[c->db.off[b] + i + (size_t)k * n] = known_x(i, k);
            }
        if (ldl)
            for (int i = 0; i < n; ++i) L[i + (size_t)i * n] = known_d(i); /* storage */
    }
    return upload(ctx, dt, c->A, c->da.total, &c->bA);
}

/* the factor in bA (what of the factorization) against the known one; its strict upper
 * triangle, where A is left, not compared */
static gala_status dense_check_factor(dense_case *c, gala_dtype dt, const char *what, double tol,
                                      gst_result *r)
{
    gala_status s = download(c->bA, dt, c->got, c->da.total);
    for (int b = 0; s == GALA_OK && b < NB; ++b) {
        const int n = orders[b];
        double *got = c->got + c->da.off[b];
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < j; ++i) got[i + (size_t)j * n] = 0;
        if (!close_all(r, what, b, got, c->L + c->da.off[b], (size_t)n * n, tol)) break;
    }
    return s;
}

/* the batch's solve with the factor in bA (gala_potrs_vbatched, gala_ldlt_solve_vbatched):
 * B's solution against X */
typedef gala_status (*dense_solve_fn)(gala_context *ctx, gala_uplo uplo, const int *n,
                                      const int *nrhs, const gala_buffer *A, const size_t *a_off,
                                      const int *lda, gala_buffer *B, const size_t *b_off,
                                      const int *ldb, int batch);

static gala_status dense_check_solve(dense_case *c, gala_context *ctx, gala_dtype dt,
                                     dense_solve_fn solve, double tol, gst_result *r)
{
    const int nrhs[NB] = {2, 2, 2};
    gala_status s = upload(ctx, dt, c->B, c->db.total, &c->bB);
    if (s == GALA_OK)
        s = solve(ctx, GALA_LOWER, c->da.n, nrhs, c->bA, c->da.off, c->da.lda, c->bB, c->db.off,
                  c->db.lda, NB);
    if (s == GALA_OK) s = download(c->bB, dt, c->got, c->db.total);
    for (int b = 0; s == GALA_OK && b < NB; ++b)
        if (!close_all(r, "X", b, c->got + c->db.off[b], c->X + c->db.off[b],
                       (size_t)orders[b] * 2, tol))
            break;
    return s;
}

/* potrf of A = L·Lᵀ gives L; with solve, potrs of B = A·X then gives X */
static void test_chol(gala_context *ctx, gala_dtype dt, int solve, gst_result *r)
{
    const double tol = 64.0 * NMAX * eps_of(dt) * 4.0;
    dense_case c;
    int info[NB];
    gala_status s = dense_case_make(&c, ctx, dt, 0);
    if (s == GALA_OK)
        s = gala_potrf_vbatched(ctx, GALA_LOWER, c.da.n, c.bA, c.da.off, c.da.lda, NB, info);
    if (s == GALA_OK)
        s = solve ? dense_check_solve(&c, ctx, dt, gala_potrs_vbatched, tol * 8.0, r)
                  : dense_check_factor(&c, dt, "L", tol, r);
    if (s != GALA_OK) r->status = s;
    dense_case_free(&c);
}

/* trtri of the known L (non-unit) and of its unit form: L·B = I */
static void test_trtri(gala_context *ctx, gala_dtype dt, gst_result *r)
{
    const double tol = 64.0 * NMAX * eps_of(dt);
    dense_batch d;
    dense_layout(&d, 0);
    double *L = calloc(d.total, sizeof *L), *got = calloc(d.total, sizeof *got);
    double *I = calloc((size_t)NMAX * NMAX, sizeof *I), *P = calloc((size_t)NMAX * NMAX, sizeof *P);
    gala_buffer *bL = NULL, *bB = NULL;
    int info[NB];
    gala_status s = L && got && I && P ? GALA_OK : GALA_ERR_OUT_OF_MEMORY;
    for (int unit = 0; s == GALA_OK && unit < 2 && r->status == GALA_OK; ++unit) {
        for (int b = 0; b < NB; ++b) known_l(orders[b], unit, L + d.off[b]);
        gala_buffer_free(bL);
        gala_buffer_free(bB);
        bL = bB = NULL;
        s = upload(ctx, dt, L, d.total, &bL);
        if (s == GALA_OK) s = upload(ctx, dt, L, d.total, &bB); /* the strict upper part: 0 */
        if (s == GALA_OK)
            s = gala_trtri_vbatched(ctx, GALA_LOWER, unit ? GALA_UNIT : GALA_NON_UNIT, d.n, bL,
                                    d.off, d.lda, bB, d.off, d.lda, NB, info);
        if (s == GALA_OK) s = download(bB, dt, got, d.total);
        for (int b = 0; s == GALA_OK && b < NB; ++b) {
            const int n = orders[b];
            const double *Lb = L + d.off[b], *Bb = got + d.off[b];
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i) {
                    double v = 0; /* (L·B)(i, j) over the lower triangles, unit diagonals as 1 */
                    for (int k = j; k <= i; ++k)
                        v += (k == i && unit ? 1.0 : Lb[i + (size_t)k * n]) *
                             (k == j && unit ? 1.0 : Bb[k + (size_t)j * n]);
                    P[i + (size_t)j * n] = v;
                    I[i + (size_t)j * n] = i == j;
                }
            if (!close_all(r, unit ? "L·B (unit)" : "L·B", b, P, I, (size_t)n * n, tol)) break;
        }
    }
    if (s != GALA_OK) r->status = s;
    gala_buffer_free(bL);
    gala_buffer_free(bB);
    free(L);
    free(got);
    free(I);
    free(P);
}

/* dense LDLᵀ of A = L·D·Lᵀ (unit L, D of both signs): L, D, inertia; then a solve for X */
static void test_ldlt(gala_context *ctx, gala_dtype dt, gst_result *r)
{
    const double tol = 64.0 * NMAX * eps_of(dt) * 4.0;
    dense_case c;
    int info[NB], inertia[2 * NB];
    gala_status s = dense_case_make(&c, ctx, dt, 1);
    if (s == GALA_OK)
        s = gala_ldlt_vbatched(ctx, GALA_LOWER, c.da.n, c.bA, c.da.off, c.da.lda, NB, info, inertia);
    if (s == GALA_OK) s = dense_check_factor(&c, dt, "L and D", tol, r);
    for (int b = 0; s == GALA_OK && b < NB && r->status == GALA_OK; ++b) {
        const int pos = (orders[b] + 1) / 2, neg = orders[b] / 2;
        if (inertia[2 * b] != pos || inertia[2 * b + 1] != neg)
            wrong(r, "inertia of item %d is (%d, %d), expected (%d, %d)", b, inertia[2 * b],
                  inertia[2 * b + 1], pos, neg);
    }
    if (s == GALA_OK && r->status == GALA_OK)
        s = dense_check_solve(&c, ctx, dt, gala_ldlt_solve_vbatched, tol * 8.0, r);
    if (s != GALA_OK) r->status = s;
    dense_case_free(&c);
}

/* sparse LDLᵀ of two quasi-definite KKT matrices [H, Bᵀ; B, −2I] (H tridiagonal, 8 + 4
 * rows, values scaled per matrix): info 0, inertia (8, 4), and K·x = b solved for a known x */
enum { SH = 8, SG = 4, SN = SH + SG, SBATCH = 2 };

static void test_sparse_ldlt(gala_context *ctx, gala_dtype dt, gst_result *r)
{
    const double tol = 1024.0 * eps_of(dt);
    /* upper triangle, column by column: H's (j−1, j), (j, j); Bᵀ's (2c, 8+c), (2c+1, 8+c)
     * and the diagonal −2 of column 8 + c */
    int p[SN + 1], i[3 * SN];
    double hv[3 * SN];
    int nnz = 0;
    for (int j = 0; j < SN; ++j) {
        p[j] = nnz;
        if (j < SH) {
            if (j > 0) { i[nnz] = j - 1; hv[nnz++] = -1.0; }
            i[nnz] = j; hv[nnz++] = 4.0;
        } else {
            const int c = j - SH;
            i[nnz] = 2 * c; hv[nnz++] = 1.0;
            i[nnz] = 2 * c + 1; hv[nnz++] = 0.5;
            i[nnz] = j; hv[nnz++] = -2.0;
        }
    }
    p[SN] = nnz;
    gala_csc K = {SN, SN, p, i, hv};
    double x[SBATCH * 3 * SN], rhs[SBATCH * SN], want[SBATCH * SN], got[SBATCH * SN];
    for (int q = 0; q < SBATCH; ++q) {
        for (int e = 0; e < nnz; ++e) x[q * nnz + e] = hv[e] * (i[e] < SH ? 1.0 + q : 1.0);
        for (int k = 0; k < SN; ++k) {
            want[q * SN + k] = known_x(k, q);
            rhs[q * SN + k] = 0;
        }
        for (int j = 0; j < SN; ++j) /* b = K·x from the upper triangle, both halves */
            for (int e = p[j]; e < p[j + 1]; ++e) {
                const double v = x[q * nnz + e];
                rhs[q * SN + i[e]] += v * want[q * SN + j];
                if (i[e] != j) rhs[q * SN + j] += v * want[q * SN + i[e]];
            }
    }
    gala_sparse_ldlt_options o;
    gala_sparse_ldlt_options_default(&o);
    o.ordering = GALA_ORDERING_NATURAL; /* no dependence on the build's AMD */
    o.expected_positive = SH;
    gala_sparse_ldlt_symbolic *sym = NULL;
    gala_sparse_ldlt *F = NULL;
    gala_buffer *bx = NULL, *bb = NULL;
    int info[SBATCH], inertia[2 * SBATCH];
    gala_status s = gala_sparse_ldlt_analyze(ctx, &K, &o, &sym);
    if (s == GALA_OK) s = upload(ctx, dt, x, (size_t)SBATCH * nnz, &bx);
    if (s == GALA_OK)
        s = gala_sparse_ldlt_factor(ctx, sym, SBATCH, bx, 0, (size_t)nnz, 1, &F, info, inertia);
    for (int q = 0; s == GALA_OK && q < SBATCH && r->status == GALA_OK; ++q)
        if (info[q] != 0 || inertia[2 * q] != SH || inertia[2 * q + 1] != SG)
            wrong(r, "item %d has info %d and inertia (%d, %d), expected 0 and (%d, %d)", q,
                  info[q], inertia[2 * q], inertia[2 * q + 1], SH, SG);
    if (s == GALA_OK && r->status == GALA_OK) {
        s = upload(ctx, dt, rhs, (size_t)SBATCH * SN, &bb);
        if (s == GALA_OK) s = gala_sparse_ldlt_solve(F, 1, bb, 0, SN, SN, 1, bb, 0, SN, SN, 1);
        if (s == GALA_OK) s = download(bb, dt, got, (size_t)SBATCH * SN);
        for (int q = 0; s == GALA_OK && q < SBATCH; ++q)
            if (!close_all(r, "x", q, got + q * SN, want + q * SN, SN, tol)) break;
    }
    if (s != GALA_OK) r->status = s;
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(sym);
    gala_buffer_free(bx);
    gala_buffer_free(bb);
}

/* three QPs min ½xᵀPx + qᵀx, P = diag(p0, p1), s.t. −1 <= x <= 1 and x0 + x1 <= 10: q puts
 * the unconstrained minimum at (a, b), so the solution is (a, b) clamped to the box */
enum { QN = 3 };

static void test_qp(gala_context *ctx, gala_dtype dt, gst_result *r)
{
    static const double a[QN] = {0.5, 2.0, -0.25}, b[QN] = {-3.0, 0.75, 1.5};
    int pp[3] = {0, 1, 2}, pi[2] = {0, 1}, ap[3] = {0, 2, 4}, ai[4] = {0, 2, 1, 2};
    double px[QN][2], q[QN][2], ax[4] = {1, 1, 1, 1};
    double l[3] = {-1, -1, -INFINITY}, u[3] = {1, 1, 10};
    gala_qp_problem pr[QN];
    memset(pr, 0, sizeof pr);
    for (int k = 0; k < QN; ++k) {
        px[k][0] = 1.0 + k;
        px[k][1] = 2.0;
        q[k][0] = -px[k][0] * a[k];
        q[k][1] = -px[k][1] * b[k];
        pr[k].n = 2;
        pr[k].m = 3;
        pr[k].P = (gala_csc){2, 2, pp, pi, px[k]};
        pr[k].A = (gala_csc){3, 2, ap, ai, ax};
        pr[k].q = q[k];
        pr[k].l = l;
        pr[k].u = u;
    }
    gala_qp_settings st;
    gala_qp_settings_default(&st);
    st.dtype = dt;
    st.eps_abs = st.eps_rel = dt == GALA_FLOAT ? 1e-5 : 1e-8;
    const double tol = dt == GALA_FLOAT ? 1e-3 : 1e-6;
    gala_qp_solver *sv = NULL;
    gala_status s = gala_qp_setup(ctx, pr, QN, &st, &sv);
    if (s == GALA_OK) s = gala_qp_solve(sv);
    for (int k = 0; s == GALA_OK && k < QN && r->status == GALA_OK; ++k) {
        gala_qp_info in;
        const double *x = NULL;
        s = gala_qp_get_info(sv, k, &in);
        if (s == GALA_OK && in.status != GALA_QP_SOLVED) {
            wrong(r, "QP %d: status %s after %d iterations", k, gala_qp_status_string(in.status),
                  in.iter);
            break;
        }
        if (s == GALA_OK) s = gala_qp_get_solution(sv, k, &x, NULL, NULL, NULL);
        if (s == GALA_OK) {
            const double w[2] = {fmin(fmax(a[k], -1), 1), fmin(fmax(b[k], -1), 1)};
            close_all(r, "x", k, x, w, 2, tol);
        }
    }
    if (s != GALA_OK) r->status = s;
    gala_qp_destroy(sv);
}

static void test_potrf(gala_context *ctx, gala_dtype dt, gst_result *r)
{
    test_chol(ctx, dt, 0, r);
}

static void test_potrs(gala_context *ctx, gala_dtype dt, gst_result *r)
{
    test_chol(ctx, dt, 1, r);
}

/* the families, in the order gala-info lists them */
static const struct {
    const char *name;
    void (*run)(gala_context *ctx, gala_dtype dt, gst_result *r);
} families[GST_FAMILIES] = {
    {"potrf", test_potrf},
    {"potrs", test_potrs},
    {"trtri", test_trtri},
    {"ldlt", test_ldlt},
    {"sparse-ldlt", test_sparse_ldlt},
    {"qp", test_qp},
};

const char *gst_family_name(int f) { return families[f].name; }

void gst_run(gala_context *ctx, gala_dtype dt, int f, gst_result *r)
{
    memset(r, 0, sizeof *r);
    const double t0 = now();
    families[f].run(ctx, dt, r);
    r->seconds = now() - t0;
    if (r->status != GALA_OK && !r->detail[0])
        snprintf(r->detail, sizeof r->detail, "%s: %s", gala_status_string(r->status),
                 gala_last_error(ctx));
}
