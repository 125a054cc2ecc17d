/* QP generators (qp.h): the documented sizes (qp-reference.md's measured sizes for the
 * osqp_benchmarks families), well-formed data, determinism in the seed, and the statistics
 * that make them equivalent to the Python generators. No device needed. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static int nnz(const gala_csc *A) { return A->p[A->n]; }

static void check_wellformed(const gala_qp_problem *p, const char *what)
{
    ck_assert_msg(gala_csc_validate(NULL, "P", &p->P, 1) == GALA_OK, "%s: P: %s", what,
                  gala_last_error(NULL));
    ck_assert_msg(gala_csc_validate(NULL, "A", &p->A, 0) == GALA_OK, "%s: A: %s", what,
                  gala_last_error(NULL));
    ck_assert_msg(p->P.m == p->n && p->P.n == p->n && p->A.m == p->m && p->A.n == p->n,
                  "%s: matrix sizes", what);
    for (int j = 0; j < p->n; ++j) ck_assert_msg(isfinite(p->q[j]), "%s: q[%d]", what, j);
    for (int i = 0; i < p->m; ++i)
        ck_assert_msg(!isnan(p->l[i]) && !isnan(p->u[i]) && p->l[i] <= p->u[i],
                      "%s: bounds of row %d: %g %g", what, i, p->l[i], p->u[i]);
    ck_assert_msg(p->owned == 1, "%s: owned", what);
}

START_TEST(control_sizes)
{
    /* qp-reference.md: nx = 2 → 32/54 (nnz A 136); 10 → 160/270 (nnz A 1770); 20 → 320/540
     * (6540); 50 → 800/1350 (38850). nnz(A) = T·nx² + 2(T+1)nx + T·nx·nu + T·nu exactly (Ad
     * and Bd are dense): it matches the measured values for nx = 10, 20, 50; for nx = 2 the
     * formula gives 114 (the measured 136 has 22 = (T+1)·nx more: explicit zeros of scipy,
     * presumably). nnz triu(P) depends on Q's random mask (measured 43, 165, 450, 1905). */
    static const int nx[] = {2, 10, 20, 50}, n[] = {32, 160, 320, 800}, m[] = {54, 270, 540, 1350},
                     annz[] = {114, 1770, 6540, 38850}, pnnz[] = {43, 165, 450, 1905};
    for (int c = 0; c < 4; ++c) {
        gala_qp_problem p;
        ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_CONTROL, nx[c], 1, &p), GALA_OK);
        check_wellformed(&p, "control");
        ck_assert_int_eq(p.n, n[c]);
        ck_assert_int_eq(p.m, m[c]);
        ck_assert_int_eq(nnz(&p.A), annz[c]);
        /* P: 2Q on the T diagonal blocks (70% mask), QN dense upper, 2R: within ±25% */
        ck_assert_msg(abs(nnz(&p.P) - pnnz[c]) <= pnnz[c] / 4 + 3, "nx = %d: nnz triu(P) = %d, "
                      "Python %d", nx[c], nnz(&p.P), pnnz[c]);
        /* first nx rows: equality −x0 with x0 in half the state box */
        for (int i = 0; i < nx[c]; ++i) {
            ck_assert(p.l[i] == p.u[i]);
            double xmax = p.u[2 * (10 + 1) * nx[c] - (10 + 1) * nx[c] + i]; /* state box row */
            ck_assert_msg(fabs(p.l[i]) <= 0.5 * xmax + 1e-12, "x0 outside half the box");
        }
        gala_qp_problem_free(&p);
    }
}
END_TEST

START_TEST(other_family_sizes)
{
    gala_qp_problem p;
    /* random QP: m = 10n, nnz(A) = round(0.15·m·n) exactly; qp-reference: n = 10 → 100 / 150,
     * n = 20 → 200 / 600, n = 50 → 500 / 3750 */
    static const int rn[] = {10, 20, 50}, ra[] = {150, 600, 3750};
    for (int c = 0; c < 3; ++c) {
        ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_RANDOM, rn[c], 1, &p), GALA_OK);
        check_wellformed(&p, "random");
        ck_assert_int_eq(p.m, 10 * rn[c]);
        ck_assert_int_eq(nnz(&p.A), ra[c]);
        for (int i = 0; i < p.m; ++i) ck_assert(p.l[i] == -INFINITY && isfinite(p.u[i]));
        /* P = MMᵀ + 0.01 I: a full diagonal */
        for (int j = 0; j < p.n; ++j) {
            int k = p.P.p[j + 1] - 1;
            ck_assert(k >= p.P.p[j] && p.P.i[k] == j && p.P.x[k] >= 0.01 - 1e-15);
        }
        gala_qp_problem_free(&p);
    }
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_EQUALITY, 20, 3, &p), GALA_OK);
    check_wellformed(&p, "eq");
    ck_assert_int_eq(p.m, 10);
    ck_assert_int_eq(nnz(&p.A), 30);
    for (int i = 0; i < p.m; ++i) ck_assert(p.l[i] == p.u[i]);
    gala_qp_problem_free(&p);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_PORTFOLIO, 3, 3, &p), GALA_OK);
    check_wellformed(&p, "portfolio");
    ck_assert_int_eq(p.n, 303);
    ck_assert_int_eq(p.m, 304);
    gala_qp_problem_free(&p);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_LASSO, 2, 3, &p), GALA_OK);
    check_wellformed(&p, "lasso");
    ck_assert_int_eq(p.n, 2 + 200 + 2);
    ck_assert_int_eq(p.m, 200 + 4);
    gala_qp_problem_free(&p);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_HUBER, 2, 3, &p), GALA_OK);
    check_wellformed(&p, "huber");
    ck_assert_int_eq(p.n, 2 + 600);
    ck_assert_int_eq(p.m, 600);
    gala_qp_problem_free(&p);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_SVM, 2, 3, &p), GALA_OK);
    check_wellformed(&p, "svm");
    ck_assert_int_eq(p.n, 2 + 200);
    ck_assert_int_eq(p.m, 400);
    gala_qp_problem_free(&p);
    /* Dyro's double integrator: horizon 37 → 111 variables, 111 rows (74 dynamics equalities,
     * 37 input bounds |u| <= 1), P = I, q = 0 */
    ck_assert_int_eq(gala_qp_double_integrator(37, 1.0, -0.5, &p), GALA_OK);
    check_wellformed(&p, "double integrator");
    ck_assert_int_eq(p.n, 111);
    ck_assert_int_eq(p.m, 111);
    ck_assert_int_eq(nnz(&p.P), 111);
    int eq = 0, box = 0;
    for (int i = 0; i < p.m; ++i) {
        eq += p.l[i] == p.u[i];
        box += p.l[i] == -1 && p.u[i] == 1;
    }
    ck_assert_int_eq(eq, 74);
    ck_assert_int_eq(box, 37);
    for (int j = 0; j < p.n; ++j) ck_assert(p.q[j] == 0);
    gala_qp_problem_free(&p);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_DOUBLE_INTEGRATOR, 37, 5, &p), GALA_OK);
    ck_assert_int_eq(p.n, 111);
    gala_qp_problem_free(&p);
    /* errors */
    ck_assert_int_eq(gala_qp_generate((gala_qp_family)99, 3, 1, &p), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_CONTROL, 0, 1, &p), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_CONTROL, 3, 1, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_str_eq(gala_qp_family_name(GALA_QP_GEN_CONTROL), "control");
}
END_TEST

START_TEST(seeded_and_statistical)
{
    /* same seed, same problem; other seed, other problem */
    gala_qp_problem a, b, c;
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_RANDOM, 30, 42, &a), GALA_OK);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_RANDOM, 30, 42, &b), GALA_OK);
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_RANDOM, 30, 43, &c), GALA_OK);
    ck_assert(nnz(&a.A) == nnz(&b.A) && !memcmp(a.A.x, b.A.x, sizeof(double) * (size_t)nnz(&a.A)));
    ck_assert(memcmp(a.A.x, c.A.x, sizeof(double) * (size_t)nnz(&a.A)) != 0);
    /* values of A are N(0, 1), positions uniform: mean ≈ 0, variance ≈ 1; every column hit */
    double s = 0, s2 = 0;
    int N = nnz(&a.A), empty = 0;
    for (int k = 0; k < N; ++k) { s += a.A.x[k]; s2 += a.A.x[k] * a.A.x[k]; }
    for (int j = 0; j < a.n; ++j) empty += a.A.p[j + 1] == a.A.p[j];
    double mean = s / N, var = s2 / N - mean * mean;
    ck_assert_msg(fabs(mean) < 5 / sqrt((double)N) && fabs(var - 1) < 0.15, "A values: mean %g "
                  "var %g over %d", mean, var, N);
    ck_assert_int_eq(empty, 0);
    /* u = A v + δ with δ ∈ [0, 1): the fictitious v is feasible, so the QP is feasible */
    gala_qp_problem_free(&a);
    gala_qp_problem_free(&b);
    gala_qp_problem_free(&c);
    /* control: the dynamics are stable (ρ(Ad) < 1 after the generator's correction): the
     * free response from the box edge stays bounded over a long horizon */
    gala_qp_problem p;
    ck_assert_int_eq(gala_qp_generate(GALA_QP_GEN_CONTROL, 6, 9, &p), GALA_OK);
    int nx = 6;
    double Ad[36], x[6], y[6];
    /* rows nx..2nx-1 of A hold [Ad −I] on columns 0..2nx-1 */
    memset(Ad, 0, sizeof Ad);
    for (int j = 0; j < nx; ++j)
        for (int k = p.A.p[j]; k < p.A.p[j + 1]; ++k)
            if (p.A.i[k] >= nx && p.A.i[k] < 2 * nx) Ad[(p.A.i[k] - nx) * nx + j] = p.A.x[k];
    for (int i = 0; i < nx; ++i) x[i] = 1;
    for (int t = 0; t < 2000; ++t) {
        for (int i = 0; i < nx; ++i) {
            y[i] = 0;
            for (int j = 0; j < nx; ++j) y[i] += Ad[i * nx + j] * x[j];
        }
        memcpy(x, y, sizeof x);
    }
    double nrm = 0;
    for (int i = 0; i < nx; ++i) nrm = fmax(nrm, fabs(x[i]));
    ck_assert_msg(nrm < 1e-3, "Ad^2000 x = %g: not stable", nrm);
    gala_qp_problem_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qp_gen");
    TCase *tc = tcase_create("qp_gen");
    tcase_add_test(tc, control_sizes);
    tcase_add_test(tc, other_family_sizes);
    tcase_add_test(tc, seeded_and_statistical);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
