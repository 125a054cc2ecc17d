/* The host's sparse LDLᵀ of quasi-definite KKT systems (src/qp/qd_ldlt.c: polishing and the
 * adjoint derivative's host path) in the fill-reducing order of their patterns
 * (src/qp/kkt_order.c), restricted to each system's active rows: the same solutions as in
 * the systems' own order, residuals at rounding level, L within the fill of the whole
 * matrix's, far fewer multiply-adds on OSQP's control QPs; and the statuses of a factor
 * too dear or singular. No device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qp/qd_ldlt.h"
#include "qp/qp_internal.h"
#include "testutil.h"

/* One system of QP p: rows with act[i] != 0 (W, rd: random weights and diagonal), K's upper
 * triangle into up, ui, ux; returns N. */
typedef struct {
    int n, m, N;
    int *pos, *row, *up, *ui, *fill;
    double *ux, *W, *rd;
} kkt;

static void kkt_build(kkt *k, const gala_qp_problem *p, const unsigned char *act, tu_rng *r)
{
    k->n = p->n;
    k->m = p->m;
    const int nu = p->n + p->m + p->P.p[p->n] + p->A.p[p->n];
    k->pos = malloc(sizeof(int) * (size_t)(p->m + 1));
    k->row = malloc(sizeof(int) * (size_t)(p->m + 1));
    k->up = malloc(sizeof(int) * (size_t)(p->n + p->m + 2));
    k->fill = malloc(sizeof(int) * (size_t)(p->n + p->m + 2));
    k->ui = malloc(sizeof(int) * (size_t)nu);
    k->ux = malloc(sizeof(double) * (size_t)nu);
    k->W = malloc(sizeof(double) * (size_t)(p->m + 1));
    k->rd = malloc(sizeof(double) * (size_t)(p->m + 1));
    int na = 0;
    for (int i = 0; i < p->m; ++i) {
        k->W[i] = 0.5 + tu_uniform(r);
        k->rd[i] = 0.1 + tu_uniform(r);
        k->pos[i] = act[i] ? p->n + na : -1;
        if (act[i]) k->row[na++] = i;
    }
    k->N = p->n + na;
    gala_qd_kkt(p->n, na, p->P.p, p->P.i, p->P.x, p->A.p, p->A.i, p->A.x, k->pos, k->row, 1,
                NULL, k->W, 1e-3, k->rd, 1e-3, k->up, k->ui, k->ux, NULL, k->fill);
}

static void kkt_free(kkt *k)
{
    free(k->pos); free(k->row); free(k->up); free(k->fill);
    free(k->ui); free(k->ux); free(k->W); free(k->rd);
}

/* r = K v − b from K's upper triangle; returns ‖r‖∞ */
static double resid(const kkt *k, const double *v, const double *b, double *r)
{
    for (int j = 0; j < k->N; ++j) r[j] = -b[j];
    for (int j = 0; j < k->N; ++j)
        for (int e = k->up[j]; e < k->up[j + 1]; ++e) {
            const int i = k->ui[e];
            r[i] += k->ux[e] * v[j];
            if (i != j) r[j] += k->ux[e] * v[i];
        }
    double mx = 0;
    for (int j = 0; j < k->N; ++j) mx = fmax(mx, fabs(r[j]));
    return mx;
}

START_TEST(restricted_orders)
{
    tu_rng r = tu_rng_for("qd_ldlt_orders", 0);
    static const struct { gala_qp_family f; int size; } cases[] = {
        {GALA_QP_GEN_CONTROL, 2}, {GALA_QP_GEN_CONTROL, 4}, {GALA_QP_GEN_CONTROL, 10},
        {GALA_QP_GEN_RANDOM, 7}, {GALA_QP_GEN_RANDOM, 20}, {GALA_QP_GEN_EQUALITY, 30},
        {GALA_QP_GEN_DOUBLE_INTEGRATOR, 13}};
    static const double frac[] = {0, 0.2, 0.5, 1};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        gala_qp_problem p;
        ck_assert_int_eq(gala_qp_generate(cases[c].f, cases[c].size, tu_seed() + c, &p), GALA_OK);
        const int n = p.n, m = p.m;
        int *order = malloc(sizeof(int) * (size_t)(n + m + 1));
        double of = -1;
        const int ro = gala_qp_kkt_order_of(n, m, p.P.p, p.P.i, p.A.p, p.A.i, order, &of);
        if (ro == -3) {
            printf("restricted_orders: skipped (gala built without SuiteSparse AMD)\n");
            free(order);
            gala_qp_problem_free(&p);
            return;
        }
        ck_assert_int_eq(ro, 0);
        /* a permutation of 0 .. n + m − 1 */
        unsigned char *seen = calloc((size_t)(n + m + 1), 1), *act = malloc((size_t)m + 1);
        for (int t = 0; t < n + m; ++t) {
            ck_assert(order[t] >= 0 && order[t] < n + m && !seen[order[t]]);
            seen[order[t]] = 1;
        }
        /* the whole matrix's L: every restricted one lies within its fill */
        memset(act, 1, (size_t)m + 1);
        kkt whole;
        kkt_build(&whole, &p, act, &r);
        gala_host_scratch w0[2] = {{0}}, w1[2] = {{0}};
        gala_qd_fact Fw;
        ck_assert_int_eq(gala_qd_fact_make(&Fw, w0, n, m, whole.pos, order, 0, whole.N, whole.up,
                                           whole.ui, whole.ux, INFINITY), GALA_QD_OK);
        const int lnz_whole = Fw.lp[whole.N];
        ck_assert_msg(Fw.perm && Fw.flops == of, "the whole matrix: %g multiply-adds, the "
                      "order's %g", Fw.flops, of);
        kkt_free(&whole);
        for (size_t a = 0; a < sizeof frac / sizeof frac[0]; ++a) {
            for (int i = 0; i < m; ++i) act[i] = p.l[i] == p.u[i] || tu_uniform(&r) < frac[a];
            kkt k;
            kkt_build(&k, &p, act, &r);
            const int N = k.N;
            const size_t vb = sizeof(double) * (size_t)N;
            double *b = malloc(vb), *x0 = malloc(vb), *x1 = malloc(vb), *rv = malloc(vb);
            for (int j = 0; j < N; ++j) b[j] = tu_normal(&r);
            gala_qd_fact F0, F1;
            /* the scratch blocks reused from the previous system (as a thread's are) */
            ck_assert_int_eq(gala_qd_fact_make(&F0, w0, n, m, k.pos, NULL, 0, N, k.up, k.ui, k.ux,
                                               INFINITY), GALA_QD_OK);
            ck_assert_int_eq(gala_qd_fact_make(&F1, w1, n, m, k.pos, order, 0, N, k.up, k.ui, k.ux,
                                               INFINITY), GALA_QD_OK);
            ck_assert_ptr_null(F0.perm);
            /* with a bound of 0 the order is taken, unless K's own factor has no multiply-adds
             * at all (a diagonal K: e.g. a random QP with diagonal P and no active row, seed
             * 9820690085), which nothing beats */
            ck_assert_msg(F1.perm || F0.flops == 0, "%s %d, %.0f%% rows: own order kept with "
                          "%g multiply-adds against a bound of 0", gala_qp_family_name(cases[c].f),
                          cases[c].size, 100 * frac[a], F0.flops);
            /* the whole matrix's factor bounds the restriction's; with that bound the own
             * order is kept where it costs at most twice as much */
            ck_assert_msg(F1.flops <= of, "%g multiply-adds restricted, %g whole", F1.flops, of);
            gala_host_scratch w2[2] = {{0}};
            gala_qd_fact F2;
            ck_assert_int_eq(gala_qd_fact_make(&F2, w2, n, m, k.pos, order, of, N, k.up, k.ui,
                                               k.ux, INFINITY), GALA_QD_OK);
            ck_assert(F2.perm ? F0.flops > 2 * of && F2.flops == F1.flops : F2.flops == F0.flops);
            ck_assert(F2.flops <= fmax(F1.flops, fmin(F0.flops, 2 * of)));
            gala_host_scratch_release(w2, 2);
            for (int j = 0; j < N; ++j) F1.t[j] = NAN; /* the permuted solve's workspace */
            memcpy(x0, b, sizeof(double) * (size_t)N);
            memcpy(x1, b, sizeof(double) * (size_t)N);
            gala_qd_fact_solve(&F0, x0);
            gala_qd_fact_solve(&F1, x1);
            double kn = 0, xn = 0, bn = 0;
            for (int e = 0; e < k.up[N]; ++e) kn = fmax(kn, fabs(k.ux[e]));
            for (int j = 0; j < N; ++j) {
                xn = fmax(xn, fabs(x0[j]));
                bn = fmax(bn, fabs(b[j]));
            }
            const double rn = resid(&k, x1, b, rv), tol = 1e-10 * (kn * xn * N + bn);
            ck_assert_msg(rn <= tol, "%s %d, %.0f%% rows: ordered residual %g > %g "
                          "[GALA_TEST_SEED=%llu]", gala_qp_family_name(cases[c].f),
                          cases[c].size, 100 * frac[a], rn, tol, (unsigned long long)tu_seed());
            for (int j = 0; j < N; ++j)
                ck_assert_msg(fabs(x1[j] - x0[j]) <= 1e-8 * (xn + 1), "%s %d: x[%d] %.15g "
                              "ordered, %.15g not [GALA_TEST_SEED=%llu]",
                              gala_qp_family_name(cases[c].f), cases[c].size, j, x1[j], x0[j],
                              (unsigned long long)tu_seed());
            ck_assert_msg(F1.lp[N] <= lnz_whole, "%s %d: L has %d entries, the whole "
                          "matrix's %d", gala_qp_family_name(cases[c].f), cases[c].size,
                          F1.lp[N], lnz_whole);
            /* OSQP's control QPs: the order is what makes them cheap (nx = 10, half the
             * bounds active: 3.6·10⁴ against 7.4·10⁵ multiply-adds when measured) */
            if (cases[c].f == GALA_QP_GEN_CONTROL && cases[c].size >= 4 && frac[a] >= 0.5)
                ck_assert_msg(4 * F1.flops < F0.flops, "control %d: %g multiply-adds ordered, "
                              "%g not", cases[c].size, F1.flops, F0.flops);
            free(b); free(x0); free(x1); free(rv);
            kkt_free(&k);
        }
        gala_host_scratch_release(w0, 2);
        gala_host_scratch_release(w1, 2);
        free(seen);
        free(act);
        free(order);
        gala_qp_problem_free(&p);
    }
}
END_TEST

START_TEST(fact_statuses)
{
    /* K = [0 1; 1 0] (upper: column 1 holds (0, 1) and its diagonal 0): a zero first pivot */
    int kp[] = {0, 1, 3}, ki[] = {0, 0, 1}, pos[] = {1};
    double kx[] = {0, 1, 0};
    gala_host_scratch ws[2] = {{0}};
    gala_qd_fact F;
    ck_assert_int_eq(gala_qd_fact_make(&F, ws, 1, 1, pos, NULL, 0, 2, kp, ki, kx, INFINITY),
                     GALA_QD_SINGULAR);
    /* a NaN pivot */
    kx[0] = NAN;
    ck_assert_int_eq(gala_qd_fact_make(&F, ws, 1, 1, pos, NULL, 0, 2, kp, ki, kx, INFINITY),
                     GALA_QD_SINGULAR);
    /* [2 1; 1 −3]: factors; too dear for a limit below its one multiply-add, L not made */
    kx[0] = 2;
    kx[2] = -3;
    int order[] = {1, 0};
    gala_host_scratch_release(&ws[1], 1);
    ck_assert_int_eq(gala_qd_fact_make(&F, ws, 1, 1, pos, order, 0, 2, kp, ki, kx, 0.5),
                     GALA_QD_DEAR);
    ck_assert_ptr_null(F.li);
    ck_assert_ptr_null(ws[1].p);
    ck_assert_int_eq(gala_qd_fact_make(&F, ws, 1, 1, pos, order, 0, 2, kp, ki, kx, 1), GALA_QD_OK);
    ck_assert(F.perm && F.perm[0] == 1 && F.perm[1] == 0);
    double b[] = {3, -2}; /* x = (1, 1) */
    gala_qd_fact_solve(&F, b);
    ck_assert_msg(fabs(b[0] - 1) < 1e-15 && fabs(b[1] - 1) < 1e-15, "x = (%g, %g)", b[0], b[1]);
    gala_host_scratch_release(ws, 2);
    ck_assert_ptr_null(ws[0].p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qd_ldlt");
    TCase *tc = tcase_create("qd_ldlt");
    tcase_add_test(tc, restricted_orders);
    tcase_add_test(tc, fact_statuses);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
