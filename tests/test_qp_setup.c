/* The QP solver's setup paths (docs/qp.md, "Setup"), on every target: host threads give
 * bit-identical results; the shared strategy is detected exactly when P, A (pattern and
 * values) and the row kinds agree, whether the matrices are the very same arrays or equal
 * copies, and not otherwise; QPs sharing only a sparsity pattern solve as they do alone;
 * row kinds that differ only after scaling invalidate that QP; the profile adds up;
 * update_matrices gives what a fresh setup gives. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "testutil.h"

/* ------------------------------------------------------------------ helpers */

/* A deep copy the test owns (owned = 1: released by gala_qp_problem_free). */
static gala_qp_problem copy_qp(const gala_qp_problem *p)
{
    gala_qp_problem d = *p;
    int pn = p->P.p[p->n], an = p->A.p[p->n];
    d.P.p = malloc(sizeof(int) * (size_t)(p->n + 1));
    d.P.i = malloc(sizeof(int) * (size_t)(pn + 1));
    d.P.x = malloc(sizeof(double) * (size_t)(pn + 1));
    d.A.p = malloc(sizeof(int) * (size_t)(p->n + 1));
    d.A.i = malloc(sizeof(int) * (size_t)(an + 1));
    d.A.x = malloc(sizeof(double) * (size_t)(an + 1));
    d.q = malloc(sizeof(double) * (size_t)p->n);
    d.l = malloc(sizeof(double) * (size_t)(p->m + 1));
    d.u = malloc(sizeof(double) * (size_t)(p->m + 1));
    memcpy(d.P.p, p->P.p, sizeof(int) * (size_t)(p->n + 1));
    memcpy(d.P.i, p->P.i, sizeof(int) * (size_t)pn);
    memcpy(d.P.x, p->P.x, sizeof(double) * (size_t)pn);
    memcpy(d.A.p, p->A.p, sizeof(int) * (size_t)(p->n + 1));
    memcpy(d.A.i, p->A.i, sizeof(int) * (size_t)an);
    memcpy(d.A.x, p->A.x, sizeof(double) * (size_t)an);
    memcpy(d.q, p->q, sizeof(double) * (size_t)p->n);
    memcpy(d.l, p->l, sizeof(double) * (size_t)p->m);
    memcpy(d.u, p->u, sizeof(double) * (size_t)p->m);
    d.owned = 1;
    return d;
}

static gala_qp_settings settings_for(int target)
{
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.dtype = tu_target_get(target)->dtype;
    return s;
}

/* Setup + solve; the solver is returned (to destroy). */
static gala_qp_solver *solve(int target, const gala_qp_problem *pb, int count,
                             const gala_qp_settings *s)
{
    gala_context *ctx = tu_ctx(target);
    gala_qp_solver *sv = NULL;
    TU_OK(ctx, gala_qp_setup(ctx, pb, count, s, &sv));
    TU_OK(ctx, gala_qp_solve(sv));
    return sv;
}

/* QP k of a against QP ka of b: status, iterations, objective and solution; bitwise
 * (exact = 1) or within a relative tolerance. */
static void same_result(int target, const gala_qp_solver *a, int k, const gala_qp_solver *b,
                        int kb, int exact, double tol, const char *what)
{
    gala_qp_info ia, ib;
    TU_OK(NULL, gala_qp_get_info(a, k, &ia));
    TU_OK(NULL, gala_qp_get_info(b, kb, &ib));
    TU_ASSERT(ia.status == ib.status, target, "%s: QP %d: status %d against %d", what, k,
              ia.status, ib.status);
    if (exact)
        TU_ASSERT(ia.iter == ib.iter, target, "%s: QP %d: %d against %d iterations", what, k,
                  ia.iter, ib.iter);
    const double *xa, *ya, *xb, *yb;
    TU_OK(NULL, gala_qp_get_solution(a, k, &xa, &ya, NULL, NULL));
    TU_OK(NULL, gala_qp_get_solution(b, kb, &xb, &yb, NULL, NULL));
    if (ia.status != GALA_QP_SOLVED && ia.status != GALA_QP_SOLVED_INACCURATE) return;
    if (exact) {
        TU_ASSERT(ia.obj_val == ib.obj_val, target, "%s: QP %d: objective %.17g against %.17g",
                  what, k, ia.obj_val, ib.obj_val);
        TU_ASSERT(xa[0] == xb[0] && ya[0] == yb[0], target, "%s: QP %d: x or y differ", what, k);
    } else {
        TU_ASSERT(fabs(ia.obj_val - ib.obj_val) <= tol * (1 + fabs(ib.obj_val)), target,
                  "%s: QP %d: objective %.12g against %.12g", what, k, ia.obj_val, ib.obj_val);
    }
}

/* ------------------------------------------------------------------ threads */

/* A mixed batch: control QPs of a few sizes (their own P patterns, A patterns shared by the
 * same sizes), double integrators, and invalid QPs. */
static int mixed_batch(gala_qp_problem *pb, int cap)
{
    int k = 0;
    for (int i = 0; i < cap; ++i) {
        if (i % 7 == 3) {
            TU_OK(NULL, gala_qp_double_integrator(6 + i % 3, 0.3 * i, -0.2, &pb[k]));
        } else {
            TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, 2 + i % 3, 100 + (uint64_t)i, &pb[k]));
        }
        if (i % 11 == 5) pb[k].q[0] = NAN;                         /* invalid data */
        if (i % 13 == 6 && pb[k].m > 1) pb[k].l[1] = pb[k].u[1] + 1; /* l > u */
        ++k;
    }
    return k;
}

START_TEST(threads_give_identical_results)
{
    enum { B = 60 };
    gala_qp_problem pb[B];
    int n = mixed_batch(pb, B);
    gala_qp_settings s = settings_for(_i);
    s.threads = 1;
    gala_qp_solver *one = solve(_i, pb, n, &s);
    s.threads = 4;
    gala_qp_solver *four = solve(_i, pb, n, &s);
    s.threads = 3;
    s.profile = 1; /* profiling waits between phases: the results stay the same */
    gala_qp_solver *prof = solve(_i, pb, n, &s);
    int invalid = 0;
    for (int k = 0; k < n; ++k) {
        same_result(_i, one, k, four, k, 1, 0, "threads 1 / 4");
        same_result(_i, one, k, prof, k, 1, 0, "threads 1 / 3 with profile");
        gala_qp_info in;
        TU_OK(NULL, gala_qp_get_info(four, k, &in));
        if (in.status == GALA_QP_INVALID_DATA) {
            ++invalid;
            TU_ASSERT(in.message[0] != 0, _i, "QP %d: invalid without a message", k);
            const double *x;
            TU_OK(NULL, gala_qp_get_solution(four, k, &x, NULL, NULL, NULL));
            TU_ASSERT(isnan(x[0]), _i, "QP %d: invalid QP with a solution", k);
        }
    }
    TU_ASSERT(invalid >= 5, _i, "only %d invalid QPs in the mixed batch", invalid);
    gala_qp_destroy(one);
    gala_qp_destroy(four);
    gala_qp_destroy(prof);
    for (int k = 0; k < n; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* ------------------------------------------------------------------ profile */

START_TEST(profile_adds_up)
{
    gala_context *ctx = tu_ctx(_i);
    enum { B = 12 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, 3, 7 + (uint64_t)k, &pb[k]));
    gala_qp_settings s = settings_for(_i);
    gala_qp_solver *sv = NULL;
    gala_qp_profile pr;
    /* off: nothing recorded */
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &sv));
    TU_OK(ctx, gala_qp_solve(sv));
    TU_OK(ctx, gala_qp_get_profile(sv, &pr));
    TU_ASSERT(!pr.enabled, _i, "profile enabled by default");
    for (int p = 0; p < GALA_QP_NPHASES; ++p)
        TU_ASSERT(pr.seconds[p] == 0 && pr.calls[p] == 0, _i, "phase %s recorded with profile off",
                  gala_qp_phase_name(p));
    gala_qp_destroy(sv);
    /* on: the setup phases add up to the setup time, the solve phases to the solve's */
    s.profile = 1;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &sv));
    double t0 = gala_now();
    TU_OK(ctx, gala_qp_solve(sv));
    double tsolve = gala_now() - t0;
    TU_OK(ctx, gala_qp_get_profile(sv, &pr));
    TU_ASSERT(pr.enabled, _i, "profile not enabled");
    gala_qp_info in;
    TU_OK(ctx, gala_qp_get_info(sv, 0, &in));
    double setup = 0, solve_ = 0;
    for (int p = 0; p <= GALA_QP_PHASE_SETUP_OTHER; ++p) setup += pr.seconds[p];
    for (int p = GALA_QP_PHASE_ITERATE; p < GALA_QP_NPHASES; ++p) solve_ += pr.seconds[p];
    TU_ASSERT(fabs(setup - in.setup_time) <= 0.05 * in.setup_time + 1e-3, _i,
              "setup phases add up to %g s, setup took %g s", setup, in.setup_time);
    TU_ASSERT(solve_ <= tsolve + 1e-3 && solve_ >= 0.9 * tsolve - 1e-3, _i,
              "solve phases add up to %g s, solve took %g s", solve_, tsolve);
    const int must[] = {GALA_QP_PHASE_VALIDATE, GALA_QP_PHASE_UPLOAD, GALA_QP_PHASE_SCALE,
                        GALA_QP_PHASE_FACTOR, GALA_QP_PHASE_ITERATE, GALA_QP_PHASE_CHECK,
                        GALA_QP_PHASE_SYNC, GALA_QP_PHASE_COLLECT};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; ++i)
        TU_ASSERT(pr.calls[must[i]] > 0, _i, "phase %s never entered",
                  gala_qp_phase_name(must[i]));
    TU_ASSERT(pr.calls[GALA_QP_PHASE_POLISH] == 0, _i, "polish without polishing");
    TU_ASSERT(!strcmp(gala_qp_phase_name(GALA_QP_PHASE_ITERATE), "iterate") &&
              !strcmp(gala_qp_phase_name(GALA_QP_NPHASES), "unknown"), _i, "phase names");
    TU_ASSERT(gala_qp_get_profile(NULL, &pr) == GALA_ERR_INVALID_ARG &&
              gala_qp_get_profile(sv, NULL) == GALA_ERR_INVALID_ARG, _i, "NULL arguments");
    gala_qp_destroy(sv);
    s.profile = 2;
    TU_ASSERT(gala_qp_setup(ctx, pb, B, &s, &sv) == GALA_ERR_INVALID_ARG, _i, "profile = 2");
    s.profile = 0;
    s.threads = -1;
    TU_ASSERT(gala_qp_setup(ctx, pb, B, &s, &sv) == GALA_ERR_INVALID_ARG, _i, "threads = -1");
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* ------------------------------------------------------------------ shared detection */

START_TEST(shared_detection)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    enum { B = 9 };
    gala_qp_problem pb[B], alias[B];
    for (int k = 0; k < B; ++k) {
        TU_OK(NULL, gala_qp_double_integrator(8, 1.5 - 0.3 * k, 0.1 * k - 0.4, &pb[k]));
        /* the same QPs with P and A given as QP 0's very arrays (one controller's matrices) */
        alias[k] = pb[k];
        alias[k].P = pb[0].P;
        alias[k].A = pb[0].A;
    }
    gala_qp_settings s = settings_for(_i);
    s.max_iter = 200;
    s.check_termination = 0;
    s.adaptive_rho = GALA_QP_ADAPTIVE_RHO_DISABLED;
    s.rho = 10;
    gala_qp_solver *copies = solve(_i, pb, B, &s), *same = solve(_i, alias, B, &s);
    TU_ASSERT(gala_qp_linsys_used(copies) == GALA_QP_LINSYS_DENSE_SHARED, _i, "equal copies: %d",
              gala_qp_linsys_used(copies));
    TU_ASSERT(gala_qp_linsys_used(same) == GALA_QP_LINSYS_DENSE_SHARED, _i, "the same arrays: %d",
              gala_qp_linsys_used(same));
    for (int k = 0; k < B; ++k) same_result(_i, copies, k, same, k, 1, 0, "copies / same arrays");
    gala_qp_destroy(copies);
    gala_qp_destroy(same);

    /* negative cases: one QP differs in a value of A, in P's pattern, in a row's kind */
    gala_qp_problem mod[B];
    for (int c = 0; c < 3; ++c) {
        for (int k = 0; k < B; ++k) mod[k] = pb[k];
        gala_qp_problem d = copy_qp(&pb[5]);
        const char *what = "";
        if (c == 0) {
            d.A.x[d.A.p[d.n] - 1] *= 1.0000001;
            what = "an A value";
        } else if (c == 1) {
            /* P = I plus an upper entry (0, 1): P's pattern changes, still convex */
            gala_csc P = {d.n, d.n, malloc(sizeof(int) * (size_t)(d.n + 1)),
                          malloc(sizeof(int) * (size_t)(d.n + 1)), malloc(sizeof(double) * (size_t)(d.n + 1))};
            int e = 0;
            for (int j = 0; j < d.n; ++j) {
                P.p[j] = e;
                if (j == 1) { P.i[e] = 0; P.x[e++] = 0.25; }
                P.i[e] = j;
                P.x[e++] = 1.0;
            }
            P.p[d.n] = e;
            free(d.P.p); free(d.P.i); free(d.P.x);
            d.P = P;
            what = "P's pattern";
        } else {
            /* an input row becomes an equality (kind 2 instead of 1) */
            d.l[d.m - 1] = d.u[d.m - 1] = 0.5;
            what = "a row kind";
        }
        mod[5] = d;
        gala_qp_solver *sv = solve(_i, mod, B, &s);
        TU_ASSERT(gala_qp_linsys_used(sv) == GALA_QP_LINSYS_DENSE, _i, "%s differs, yet %d", what,
                  gala_qp_linsys_used(sv));
        /* the per-QP strategy solves it as the QP alone */
        gala_qp_solver *alone = solve(_i, &mod[5], 1, &s);
        same_result(_i, sv, 5, alone, 0, 0, dt == GALA_FLOAT ? 1e-4 : 1e-9, what);
        gala_qp_destroy(alone);
        gala_qp_destroy(sv);
        gala_qp_settings f = s;
        f.linsys_solver = GALA_QP_LINSYS_DENSE_SHARED;
        gala_qp_solver *bad = (gala_qp_solver *)1;
        TU_ASSERT(gala_qp_setup(ctx, mod, B, &f, &bad) == GALA_ERR_INVALID_ARG && bad == NULL, _i,
                  "forced shared with %s differing", what);
        gala_qp_problem_free(&d);
    }

    /* the first QP invalid: the others are still shared (the reference is the first valid) */
    for (int k = 0; k < B; ++k) mod[k] = pb[k];
    gala_qp_problem d0 = copy_qp(&pb[0]);
    d0.q[2] = INFINITY;
    mod[0] = d0;
    gala_qp_solver *sv = solve(_i, mod, B, &s), *ref = solve(_i, pb + 1, B - 1, &s);
    TU_ASSERT(gala_qp_linsys_used(sv) == GALA_QP_LINSYS_DENSE_SHARED, _i, "invalid first QP: %d",
              gala_qp_linsys_used(sv));
    gala_qp_info in;
    TU_OK(NULL, gala_qp_get_info(sv, 0, &in));
    TU_ASSERT(in.status == GALA_QP_INVALID_DATA && strstr(in.message, "q[2]"), _i,
              "QP 0: status %d, message '%s'", in.status, in.message);
    for (int k = 1; k < B; ++k) same_result(_i, sv, k, ref, k - 1, 1, 0, "after an invalid QP");
    gala_qp_destroy(sv);
    gala_qp_destroy(ref);
    gala_qp_problem_free(&d0);

    /* kinds equal as given (l < u) but not after scaling (u − l below 1e-4 in one QP): that
     * QP cannot share the others' ρ and is invalid */
    for (int k = 0; k < B; ++k) mod[k] = pb[k];
    gala_qp_problem d1 = copy_qp(&pb[3]);
    d1.l[d1.m - 1] = 0.2;
    d1.u[d1.m - 1] = 0.2 + 1e-9;
    mod[3] = d1;
    sv = solve(_i, mod, B, &s);
    TU_ASSERT(gala_qp_linsys_used(sv) == GALA_QP_LINSYS_DENSE_SHARED, _i, "kinds after scaling: %d",
              gala_qp_linsys_used(sv));
    TU_OK(NULL, gala_qp_get_info(sv, 3, &in));
    TU_ASSERT(in.status == GALA_QP_INVALID_DATA && strstr(in.message, "kind differs"), _i,
              "QP 3: status %d, message '%s'", in.status, in.message);
    TU_OK(NULL, gala_qp_get_info(sv, 4, &in));
    /* QP 4 runs as usual: solved, or stopped at max_iter (within the ×10 tolerances in float:
     * solved inaccurate) */
    TU_ASSERT(in.status == GALA_QP_MAX_ITER_REACHED || in.status == GALA_QP_SOLVED ||
                  in.status == GALA_QP_SOLVED_INACCURATE, _i, "QP 4: status %d", in.status);
    gala_qp_destroy(sv);
    gala_qp_problem_free(&d1);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* ------------------------------------------------------------------ patterns */

START_TEST(shared_patterns_solve_as_alone)
{
    gala_dtype dt = tu_target_get(_i)->dtype;
    /* control QPs of two sizes interleaved: A's pattern shared within a size, P's patterns
     * (Q's random mask) mostly distinct; each QP against itself alone */
    enum { B = 14 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, k % 2 ? 3 : 4, 500 + (uint64_t)k, &pb[k]));
    gala_qp_settings s = settings_for(_i);
    gala_qp_solver *sv = solve(_i, pb, B, &s);
    TU_ASSERT(gala_qp_linsys_used(sv) == GALA_QP_LINSYS_DENSE, _i, "strategy %d",
              gala_qp_linsys_used(sv));
    for (int k = 0; k < B; ++k) {
        gala_qp_solver *one = solve(_i, &pb[k], 1, &s);
        same_result(_i, sv, k, one, 0, 0, dt == GALA_FLOAT ? 1e-3 : 1e-7, "batch / alone");
        gala_qp_destroy(one);
    }
    gala_qp_destroy(sv);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* ------------------------------------------------------------------ updates */

START_TEST(update_matrices_as_fresh_setup)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    enum { B = 6 };
    gala_qp_problem pb[B], nw[B];
    for (int k = 0; k < B; ++k) {
        TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, 3, 900 + (uint64_t)k, &pb[k]));
        nw[k] = copy_qp(&pb[k]);
    }
    /* new values for QP 2's P and A, and for every QP's A (k = -1) */
    for (int e = 0; e < nw[2].P.p[nw[2].n]; ++e) nw[2].P.x[e] *= 1.5;
    size_t atot = 0;
    for (int k = 0; k < B; ++k) atot += (size_t)pb[k].A.p[pb[k].n];
    double *Ax = malloc(sizeof(double) * atot);
    size_t o = 0;
    for (int k = 0; k < B; ++k)
        for (int e = 0; e < nw[k].A.p[nw[k].n]; ++e) {
            nw[k].A.x[e] *= 1 + 0.05 * ((e + k) % 3);
            Ax[o++] = nw[k].A.x[e];
        }
    gala_qp_settings s = settings_for(_i);
    s.warm_starting = 0; /* compare solves from the same start, with the same ρ (an update
                          * keeps the ρ adaptive ρ chose, as OSQP does) */
    s.adaptive_rho = GALA_QP_ADAPTIVE_RHO_DISABLED;
    gala_qp_solver *sv = NULL;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &sv));
    TU_OK(ctx, gala_qp_solve(sv));
    TU_OK(ctx, gala_qp_update_matrices(sv, 2, nw[2].P.x, NULL));
    TU_OK(ctx, gala_qp_update_matrices(sv, -1, NULL, Ax));
    TU_OK(ctx, gala_qp_solve(sv));
    gala_qp_solver *fresh = solve(_i, nw, B, &s);
    for (int k = 0; k < B; ++k)
        same_result(_i, sv, k, fresh, k, 0, dt == GALA_FLOAT ? 1e-4 : 1e-9, "updated / fresh");
    gala_qp_destroy(sv);
    gala_qp_destroy(fresh);
    free(Ax);
    for (int k = 0; k < B; ++k) {
        gala_qp_problem_free(&pb[k]);
        gala_qp_problem_free(&nw[k]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qp_setup");
    TCase *tc = tcase_create("qp_setup");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, threads_give_identical_results, 0, nt);
    tcase_add_loop_test(tc, profile_adds_up, 0, nt);
    tcase_add_loop_test(tc, shared_detection, 0, nt);
    tcase_add_loop_test(tc, shared_patterns_solve_as_alone, 0, nt);
    tcase_add_loop_test(tc, update_matrices_as_fresh_setup, 0, nt);
    suite_add_tcase(s, tc);
    int rc = tu_run(s);
    tu_release();
    return rc;
}
