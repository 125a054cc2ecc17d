/* Numerical robustness:
 *  - potrf/potrs on ill-conditioned SPD matrices (condition 1e8 in double, 1e4 in float):
 *    backward errors ‖A − L·Lᵀ‖_F/‖A‖_F and ‖A·x − b‖/(‖A‖‖x‖) of order n·eps;
 *  - trtri on ill-conditioned triangular matrices (condition ~1e7 .. 1e13): the residual
 *    ‖T·X − I‖_F/(‖T‖_F‖X‖_F) of order n·eps;
 *  - the QP solver in float32 on the Maros–Meszaros subset: any status may come out (float
 *    often cannot reach the tolerances), but never NaN where a value is reported.
 * The bounds are a small multiple of n·eps (BOUND below): a factorization with an error
 * of a few ulps per entry in the wrong place fails them (see the self-check test). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define BOUND 1.0 /* × n·eps: the worst measured is about 0.1 on host and PoCL (docs/reliability.md) */

/* A = Q·diag(λ)·Qᵀ with λ from 1 down to 1/cond (log-spaced), Q a product of n random
 * Householder reflections; full n×n, column-major, rounded to dt and symmetrized. */
static void ill_spd(tu_rng *r, int n, double cond, gala_dtype dt, double *A)
{
    double *Q = calloc((size_t)n * n, sizeof *Q), *v = malloc((size_t)n * sizeof *v);
    for (int i = 0; i < n; ++i) Q[i + (size_t)i * n] = 1;
    for (int h = 0; h < n; ++h) { /* Q ← Q·(I − 2vvᵀ/vᵀv) */
        double vv = 0;
        for (int i = 0; i < n; ++i) { v[i] = tu_normal(r); vv += v[i] * v[i]; }
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += Q[i + (size_t)k * n] * v[k];
            for (int k = 0; k < n; ++k) Q[i + (size_t)k * n] -= 2 * s * v[k] / vv;
        }
    }
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double s = 0;
            for (int k = 0; k < n; ++k) {
                double lam = n > 1 ? pow(cond, -(double)k / (n - 1)) : 1;
                s += Q[i + (size_t)k * n] * lam * Q[j + (size_t)k * n];
            }
            A[i + (size_t)j * n] = A[j + (size_t)i * n] = s;
        }
    tu_round(dt, A, (size_t)n * n);
    free(Q);
    free(v);
}

static double fro(const double *A, size_t len)
{
    double s = 0;
    for (size_t i = 0; i < len; ++i) s += A[i] * A[i];
    return sqrt(s);
}

/* ‖A − F·Fᵀ‖_F / ‖A‖_F for F the lower triangle of a matrix at out (ld n) or the upper
 * (F = Uᵀ). */
static double chol_backward(int n, const double *A, const double *out, int up)
{
    double num = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int k = 0; k <= (i < j ? i : j); ++k) {
                double fi = up ? out[k + (size_t)i * n] : out[i + (size_t)k * n];
                double fj = up ? out[k + (size_t)j * n] : out[j + (size_t)k * n];
                s += fi * fj;
            }
            double d = s - A[i + (size_t)j * n];
            num += d * d;
        }
    double r = sqrt(num) / fro(A, (size_t)n * n);
    return r == r ? r : INFINITY;
}

START_TEST(ill_conditioned_potrf_potrs)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    const double eps = tu_eps(dt), cond = dt == GALA_DOUBLE ? 1e8 : 1e4;
    tu_rng r = tu_rng_for("ill_potrf", t);
    static const int sizes[] = {7, 33, 70}; /* fused, fused (N = 64), blocked */
    double worst_f = 0, worst_s = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (int up = 0; up < 2; ++up) {
            const int n = sizes[si], B = 3;
            const size_t nn = (size_t)n * n;
            double *A = malloc(nn * B * sizeof *A), *out = malloc(nn * B * sizeof *out);
            for (int b = 0; b < B; ++b) ill_spd(&r, n, cond, dt, A + nn * b);
            gala_buffer *bA = tu_upload(ctx, dt, A, nn * B);
            int info[3] = {9, 9, 9};
            const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
            TU_OK(ctx, gala_potrf_batched(ctx, ul, n, bA, 0, n, nn, B, info));
            tu_download(bA, 0, out, nn * B);
            for (int b = 0; b < B; ++b) {
                double be = chol_backward(n, A + nn * b, out + nn * b, up);
                worst_f = fmax(worst_f, be / (n * eps));
                TU_ASSERT(info[b] == 0 && be <= BOUND * n * eps, t,
                          "n %d up %d matrix %d: ‖A − LLᵀ‖/‖A‖ = %.3g = %.3g n·eps (bound %g)", n,
                          up, b, be, be / (n * eps), BOUND);
            }
            /* potrs: b = A·x_true, then the residual of the computed x */
            double *bv = malloc((size_t)n * B * sizeof *bv), *x = malloc((size_t)n * B * sizeof *x);
            for (int b = 0; b < B; ++b)
                for (int i = 0; i < n; ++i) bv[(size_t)b * n + i] = tu_normal(&r);
            tu_round(dt, bv, (size_t)n * B);
            gala_buffer *bb = tu_upload(ctx, dt, bv, (size_t)n * B);
            TU_OK(ctx, gala_potrs_batched(ctx, ul, n, 1, bA, 0, n, nn, bb, 0, n, (size_t)n, B));
            tu_download(bb, 0, x, (size_t)n * B);
            for (int b = 0; b < B; ++b) {
                const double *Ab = A + nn * b, *xb = x + (size_t)b * n, *rb = bv + (size_t)b * n;
                double num = 0;
                for (int i = 0; i < n; ++i) {
                    double s = 0;
                    for (int k = 0; k < n; ++k) s += Ab[i + (size_t)k * n] * xb[k];
                    num += (s - rb[i]) * (s - rb[i]);
                }
                double be = sqrt(num) / (fro(Ab, nn) * fro(xb, (size_t)n));
                be = be == be ? be : INFINITY;
                worst_s = fmax(worst_s, be / (n * eps));
                TU_ASSERT(be <= BOUND * n * eps, t,
                          "n %d up %d system %d: ‖Ax − b‖/(‖A‖‖x‖) = %.3g = %.3g n·eps", n, up, b,
                          be, be / (n * eps));
            }
            free(A);
            free(out);
            free(bv);
            free(x);
            gala_buffer_free(bA);
            gala_buffer_free(bb);
        }
    if (getenv("GALA_TEST_VERBOSE"))
        printf("%s: worst backward errors: potrf %.3g n·eps, potrs %.3g n·eps\n",
               tu_target_get(t)->name, worst_f, worst_s);
}
END_TEST

/* The bound is tight enough to catch a wrong factor: one column of a correct factor off by
 * a relative 64·n·eps pushes the backward error past it. The column with the largest norm:
 * LLᵀ then moves by (2δ + δ²)·l lᵀ, and ‖l‖² ≥ ‖L‖²_F / n ≥ ‖A‖_F / n, so the error is at
 * least 128·eps (a single entry, L(0, 0), moved it by less than n·eps when A(0, 0) was
 * small: seed 12786084509). */
START_TEST(bound_catches_a_wrong_factor)
{
    const int t = _i;
    const gala_dtype dt = tu_target_get(t)->dtype;
    const double eps = tu_eps(dt);
    tu_rng r = tu_rng_for("bound_self_check", t);
    const int n = 20;
    double A[400], L[400];
    ill_spd(&r, n, dt == GALA_DOUBLE ? 1e8 : 1e4, dt, A);
    memcpy(L, A, sizeof L);
    for (int j = 0; j < n; ++j) { /* plain Cholesky in double */
        double d = L[j + j * n];
        for (int k = 0; k < j; ++k) d -= L[j + k * n] * L[j + k * n];
        L[j + j * n] = sqrt(d);
        for (int i = j + 1; i < n; ++i) {
            double s = L[i + j * n];
            for (int k = 0; k < j; ++k) s -= L[i + k * n] * L[j + k * n];
            L[i + j * n] = s / L[j + j * n];
        }
    }
    ck_assert(chol_backward(n, A, L, 0) <= BOUND * n * eps);
    int kmax = 0;
    double best = -1;
    for (int k = 0; k < n; ++k) {
        double c = 0;
        for (int i = k; i < n; ++i) c += L[i + k * n] * L[i + k * n];
        if (c > best) {
            best = c;
            kmax = k;
        }
    }
    for (int i = kmax; i < n; ++i) L[i + kmax * n] *= 1 + 64 * n * eps;
    ck_assert_msg(chol_backward(n, A, L, 0) > BOUND * n * eps, "column %d: %g", kmax,
                  chol_backward(n, A, L, 0));
}
END_TEST

START_TEST(ill_conditioned_trtri)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    const double eps = tu_eps(dt);
    tu_rng r = tu_rng_for("ill_trtri", t);
    /* kind 0: unit diagonal with −1 below (inverse entries 2^(i−j−1)): condition ~2^n;
     * kind 1: diagonal graded from 1 to 1e-6 (1e-3 in float), small random entries below. */
    static const int sizes[] = {24, 40};
    double worst = 0;
    for (int kind = 0; kind < 2; ++kind)
        for (size_t si = 0; si < 2; ++si)
            for (int up = 0; up < 2; ++up) {
                const int n = sizes[si];
                const size_t nn = (size_t)n * n;
                double *T = calloc(nn, sizeof *T), *X = malloc(nn * sizeof *X);
                for (int j = 0; j < n; ++j)
                    for (int i = 0; i < n; ++i) {
                        if (up ? i > j : i < j) continue;
                        double grade = pow(dt == GALA_DOUBLE ? 1e-6 : 1e-3, (double)j / (n - 1));
                        T[i + (size_t)j * n] = kind == 0 ? (i == j ? 1 : -1)
                                                         : (i == j ? grade * (1 + tu_uniform(&r))
                                                                   : tu_normal(&r) / n);
                    }
                tu_round(dt, T, nn);
                gala_buffer *bT = tu_upload(ctx, dt, T, nn);
                int info = 9;
                const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
                TU_OK(ctx, gala_trtri(ctx, ul, GALA_NON_UNIT, n, bT, 0, n, bT, 0, n, &info));
                tu_download(bT, 0, X, nn);
                for (int j = 0; j < n; ++j) /* the other triangle is not the inverse's */
                    for (int i = 0; i < n; ++i)
                        if (up ? i > j : i < j) X[i + (size_t)j * n] = 0;
                double num = 0;
                for (int j = 0; j < n; ++j)
                    for (int i = 0; i < n; ++i) {
                        double s = 0;
                        for (int k = 0; k < n; ++k) s += T[i + (size_t)k * n] * X[k + (size_t)j * n];
                        s -= i == j;
                        num += s * s;
                    }
                double res = sqrt(num) / (fro(T, nn) * fro(X, nn));
                res = res == res ? res : INFINITY;
                worst = fmax(worst, res / (n * eps));
                TU_ASSERT(info == 0 && res <= BOUND * n * eps, t,
                          "kind %d n %d up %d: ‖TX − I‖/(‖T‖‖X‖) = %.3g = %.3g n·eps", kind, n, up,
                          res, res / (n * eps));
                free(T);
                free(X);
                gala_buffer_free(bT);
            }
    if (getenv("GALA_TEST_VERBOSE"))
        printf("%s: worst trtri residual %.3g n·eps\n", tu_target_get(t)->name, worst);
}
END_TEST

/* float32 QP on the whole Maros–Meszaros subset in one batch: no NaN in reported values. */
START_TEST(qp_float_maros_meszaros_no_nan)
{
    const int t = _i;
    if (tu_target_get(t)->dtype != GALA_FLOAT) return;
    gala_context *ctx = tu_ctx(t);
    DIR *d = opendir(GALA_TEST_DATA_DIR "/maros_meszaros");
    ck_assert_ptr_nonnull(d);
    gala_qp_problem pb[64];
    char names[64][64];
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) && count < 64) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".QPS") != 0) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/maros_meszaros/%s", GALA_TEST_DATA_DIR, e->d_name);
        TU_ASSERT(gala_qp_read_qps(path, &pb[count]) == GALA_OK, t, "%s: %.200s", e->d_name,
                  gala_last_error(NULL));
        snprintf(names[count], sizeof names[count], "%.60s", e->d_name);
        count++;
    }
    closedir(d);
    ck_assert_int_ge(count, 20);
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.dtype = GALA_FLOAT;
    s.max_iter = 4000;
    gala_qp_solver *sv;
    TU_OK(ctx, gala_qp_setup(ctx, pb, count, &s, &sv));
    TU_OK(ctx, gala_qp_solve(sv));
    int solved = 0;
    for (int k = 0; k < count; ++k) {
        gala_qp_info in;
        const double *x, *y, *pc, *dc;
        TU_OK(ctx, gala_qp_get_info(sv, k, &in));
        TU_OK(ctx, gala_qp_get_solution(sv, k, &x, &y, &pc, &dc));
        TU_ASSERT(in.status >= GALA_QP_SOLVED && in.status <= GALA_QP_NON_CVX &&
                      in.status != GALA_QP_TIME_LIMIT_REACHED,
                  t, "%s: status %d (%s)", names[k], in.status, in.message);
        solved += in.status == GALA_QP_SOLVED;
        const int has_x = in.status == GALA_QP_SOLVED || in.status == GALA_QP_SOLVED_INACCURATE ||
                          in.status == GALA_QP_MAX_ITER_REACHED;
        if (has_x) {
            TU_ASSERT(!isnan(in.obj_val) && isfinite(in.prim_res) && isfinite(in.dual_res), t,
                      "%s (%s): obj %g prim %g dual %g", names[k], gala_qp_status_string(in.status),
                      in.obj_val, in.prim_res, in.dual_res);
            for (int j = 0; j < pb[k].n; ++j)
                TU_ASSERT(!isnan(x[j]), t, "%s (%s): x[%d] is NaN", names[k],
                          gala_qp_status_string(in.status), j);
            for (int i = 0; i < pb[k].m; ++i)
                TU_ASSERT(!isnan(y[i]), t, "%s (%s): y[%d] is NaN", names[k],
                          gala_qp_status_string(in.status), i);
        }
        if (in.status == GALA_QP_PRIMAL_INFEASIBLE || in.status == GALA_QP_PRIMAL_INFEASIBLE_INACCURATE)
            for (int i = 0; i < pb[k].m; ++i)
                TU_ASSERT(isfinite(pc[i]), t, "%s: certificate[%d] = %g", names[k], i, pc[i]);
        if (in.status == GALA_QP_DUAL_INFEASIBLE || in.status == GALA_QP_DUAL_INFEASIBLE_INACCURATE)
            for (int j = 0; j < pb[k].n; ++j)
                TU_ASSERT(isfinite(dc[j]), t, "%s: certificate[%d] = %g", names[k], j, dc[j]);
        if (getenv("GALA_TEST_VERBOSE"))
            printf("float MM %-14s %-28s iter %5d obj %.6g\n", names[k],
                   gala_qp_status_string(in.status), in.iter, in.obj_val);
    }
    TU_ASSERT(solved >= count / 2, t, "only %d of %d solved in float", solved, count);
    gala_qp_destroy(sv);
    for (int k = 0; k < count; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("robust");
    TCase *tc = tcase_create("robust");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, ill_conditioned_potrf_potrs, 0, nt);
    tcase_add_loop_test(tc, bound_catches_a_wrong_factor, 0, nt);
    tcase_add_loop_test(tc, ill_conditioned_trtri, 0, nt);
    tcase_add_loop_test(tc, qp_float_maros_meszaros_no_nan, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
