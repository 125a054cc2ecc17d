/* Bad input to the sparse routines (gala_csc_validate, sparse LDLᵀ), the QP solver and the
 * QPS reader/writer: malformed CSC data of every kind, NaN/Inf values, singular matrices,
 * indefinite KKT matrices (wrong inertia), bad settings, invalid QPs inside a batch (the
 * others still solved), non-convex and infeasible QPs, missing and malformed files. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>

#include "badinput.h"
#include "kkt_gen.h"

static double n01(void *p) { return tu_normal(p); }
static double u01(void *p) { return tu_uniform(p); }

START_TEST(csc_validate_cases)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    /* 3×3 upper triangle: (0,0) (0,1) (1,1) (2,2) */
    int p[4] = {0, 1, 3, 4}, i[4] = {0, 0, 1, 2};
    double x[4] = {1, 2, 3, 4};
    gala_csc A = {3, 3, p, i, x};
    const char *f = "A";
    TU_OK(ctx, gala_csc_validate(ctx, "A", &A, 1));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_csc_validate", gala_csc_validate(ctx, "A", NULL, 0));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_csc_validate", gala_csc_validate(ctx, NULL, &A, 0));
    gala_csc B = A;
    B.m = -1;
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, f, gala_csc_validate(ctx, "A", &B, 0));
    B = A;
    B.m = 4;
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, f, gala_csc_validate(ctx, "A", &B, 1)); /* not square */
    TU_OK(ctx, gala_csc_validate(ctx, "A", &B, 0));
    B = A;
    B.p = NULL;
    BAD(t, ctx, GALA_ERR_INVALID_ARG, f, gala_csc_validate(ctx, "A", &B, 0));
    B = A;
    B.i = NULL;
    BAD(t, ctx, GALA_ERR_INVALID_ARG, f, gala_csc_validate(ctx, "A", &B, 0));
    int p0[4] = {1, 1, 3, 4}, pd[4] = {0, 3, 1, 4}, ir[4] = {0, 0, 5, 2}, iu[4] = {0, 1, 0, 2},
        idup[4] = {0, 1, 1, 2}, ilow[4] = {0, 0, 1, 0};
    B = A; B.p = p0;
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, f, gala_csc_validate(ctx, "A", &B, 0));
    B = A; B.p = pd;
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, f, gala_csc_validate(ctx, "A", &B, 0));
    B = A; B.i = ir;
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, f, gala_csc_validate(ctx, "A", &B, 0));
    B = A; B.i = iu;
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, f, gala_csc_validate(ctx, "A", &B, 0));
    B = A; B.i = idup;
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, "duplicate", gala_csc_validate(ctx, "A", &B, 0));
    B = A; /* entry (2, 1) below the diagonal */
    B.p = (int[]){0, 1, 3, 3};
    B.i = (int[]){0, 1, 2, 0};
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, "below the diagonal", gala_csc_validate(ctx, "A", &B, 1));
    (void)ilow;
    double xn[4] = {1, NAN, 3, 4}, xi[4] = {1, 2, -INFINITY, 4};
    B = A; B.x = xn;
    BAD(t, ctx, GALA_ERR_NOT_FINITE, f, gala_csc_validate(ctx, "A", &B, 0));
    B = A; B.x = xi;
    BAD(t, ctx, GALA_ERR_NOT_FINITE, f, gala_csc_validate(ctx, "A", &B, 0));
    B = A; B.x = xn;
    BAD0(t, NULL, GALA_ERR_NOT_FINITE, f, gala_csc_validate(NULL, "A", &B, 0)); /* thread slot */
    gala_csc E = {0, 0, (int[]){0}, NULL, NULL}; /* empty is valid */
    TU_OK(ctx, gala_csc_validate(ctx, "E", &E, 1));
}
END_TEST

START_TEST(sparse_ldlt_arguments)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    tu_rng r = tu_rng_for("sparse_args", t);
    kkt_rng g = {n01, u01, &r};
    gala_csc K;
    kkt_random(&g, 6, 4, 2, 2, &K);
    const int nnz = K.p[K.n], N = K.n;
    gala_sparse_ldlt_symbolic *S = (gala_sparse_ldlt_symbolic *)1;
    gala_sparse_ldlt *F = (gala_sparse_ldlt *)1;
    const gala_status E = GALA_ERR_INVALID_ARG;
    const char *fa = "gala_sparse_ldlt_analyze";
    gala_sparse_ldlt_options o;
    gala_sparse_ldlt_options_default(&o);
    gala_sparse_ldlt_options_default(NULL);
    BAD(t, ctx, E, fa, gala_sparse_ldlt_analyze(ctx, NULL, NULL, &S));
    ck_assert_ptr_null(S);
    BAD(t, ctx, E, fa, gala_sparse_ldlt_analyze(ctx, &K, NULL, NULL));
    o.expected_positive = N + 1;
    BAD(t, ctx, E, fa, gala_sparse_ldlt_analyze(ctx, &K, &o, &S));
    gala_sparse_ldlt_options_default(&o);
    o.ordering = (gala_ordering)9;
    BAD(t, ctx, E, fa, gala_sparse_ldlt_analyze(ctx, &K, &o, &S));
    o.ordering = GALA_ORDERING_USER;
    BAD(t, ctx, E, fa, gala_sparse_ldlt_analyze(ctx, &K, &o, &S)); /* perm NULL */
    int perm[16];
    for (int k = 0; k < N; ++k) perm[k] = k;
    perm[3] = 2; /* not a permutation */
    o.perm = perm;
    BAD(t, ctx, E, fa, gala_sparse_ldlt_analyze(ctx, &K, &o, &S));
    perm[3] = N; /* out of range */
    BAD(t, ctx, E, fa, gala_sparse_ldlt_analyze(ctx, &K, &o, &S));
    gala_csc Kb = K;
    Kb.n = N - 1; /* not square */
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, fa, gala_sparse_ldlt_analyze(ctx, &Kb, NULL, &S));
    int pneg[16]; /* a pattern without values whose p[n] is negative */
    memcpy(pneg, K.p, (size_t)(N + 1) * sizeof *pneg);
    pneg[N] = -1;
    Kb = K;
    Kb.x = NULL;
    Kb.p = pneg;
    BAD(t, ctx, GALA_ERR_INVALID_MATRIX, fa, gala_sparse_ldlt_analyze(ctx, &Kb, NULL, &S));
    double save = K.x[1];
    K.x[1] = NAN;
    BAD(t, ctx, GALA_ERR_NOT_FINITE, fa, gala_sparse_ldlt_analyze(ctx, &K, NULL, &S));
    K.x[1] = save;
    ck_assert_ptr_null(S);
    gala_sparse_ldlt_stats st;
    BAD0(t, ctx, E, NULL, gala_sparse_ldlt_symbolic_stats(NULL, &st));
    BAD0(t, ctx, E, NULL, gala_sparse_ldlt_symbolic_perm(NULL, perm));
    gala_sparse_ldlt_symbolic_destroy(NULL);
    gala_sparse_ldlt_destroy(NULL);
    ck_assert_int_eq(gala_sparse_ldlt_batch(NULL), 0);
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &K, NULL, &S));
    BAD0(t, ctx, E, NULL, gala_sparse_ldlt_symbolic_stats(S, NULL));
    BAD0(t, ctx, E, NULL, gala_sparse_ldlt_symbolic_perm(S, NULL));

    double *xv = malloc((size_t)nnz * 2 * sizeof *xv);
    for (int q = 0; q < 2; ++q) memcpy(xv + (size_t)q * nnz, K.x, (size_t)nnz * sizeof *xv);
    gala_buffer *x = tu_upload(ctx, dt, xv, (size_t)nnz * 2), *xi = NULL, *xo = NULL;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, (size_t)nnz * 2, &xi));
    xo = tu_other_precision(ctx, dt, (size_t)nnz * 2, "sparse LDLT: mixed precisions");
    const char *ff = "gala_sparse_ldlt_factor";
    BAD0(t, ctx, E, ff, gala_sparse_ldlt_factor(NULL, S, 2, x, 0, nnz, 1, &F, NULL, NULL));
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor(ctx, NULL, 2, x, 0, nnz, 1, &F, NULL, NULL));
    ck_assert_ptr_null(F);
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor(ctx, S, 2, x, 0, nnz, 1, NULL, NULL, NULL));
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor(ctx, S, -2, x, 0, nnz, 1, &F, NULL, NULL));
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor(ctx, S, 2, NULL, 0, nnz, 1, &F, NULL, NULL));
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor(ctx, S, 3, x, 0, nnz, 1, &F, NULL, NULL)); /* outside */
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor(ctx, S, 2, x, 1, nnz, 1, &F, NULL, NULL));
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor(ctx, S, 2, x, 0, SIZE_MAX / 2, 1, &F, NULL, NULL));
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor(ctx, S, 2, xi, 0, nnz, 1, &F, NULL, NULL));
    const gala_sparse_ldlt_symbolic *Sg[2] = {S, NULL};
    int bg[2] = {1, 1}, bneg[2] = {1, -1};
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor_groups(ctx, 0, Sg, bg, x, 0, nnz, 1, &F, NULL, NULL));
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor_groups(ctx, 2, Sg, bg, x, 0, nnz, 1, &F, NULL, NULL));
    Sg[1] = S;
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor_groups(ctx, 2, Sg, bneg, x, 0, nnz, 1, &F, NULL, NULL));
    BAD(t, ctx, E, ff, gala_sparse_ldlt_factor_groups(ctx, 2, Sg, NULL, x, 0, nnz, 1, &F, NULL, NULL));
    ck_assert_ptr_null(F);

    TU_OK(ctx, gala_sparse_ldlt_factor(ctx, S, 2, x, 0, nnz, 1, &F, NULL, NULL));
    ck_assert_int_eq(gala_sparse_ldlt_batch(F), 2);
    const char *fr = "gala_sparse_ldlt_refactor", *fs = "gala_sparse_ldlt_solve";
    BAD0(t, ctx, E, fr, gala_sparse_ldlt_refactor(NULL, x, 0, nnz, 1, NULL, NULL));
    BAD(t, ctx, E, fr, gala_sparse_ldlt_refactor(F, NULL, 0, nnz, 1, NULL, NULL));
    if (xo) BAD(t, ctx, E, fr, gala_sparse_ldlt_refactor(F, xo, 0, nnz, 1, NULL, NULL)); /* type */
    BAD(t, ctx, E, fr, gala_sparse_ldlt_refactor(F, x, 5, nnz, 1, NULL, NULL));
    gala_buffer *b = tu_poisoned(ctx, dt, (size_t)4 * N), *X = tu_poisoned(ctx, dt, (size_t)4 * N);
    BAD0(t, ctx, E, fs, gala_sparse_ldlt_solve(NULL, 1, b, 0, N, 0, 1, X, 0, N, 0, 1));
    BAD(t, ctx, E, fs, gala_sparse_ldlt_solve(F, -1, b, 0, N, 0, 1, X, 0, N, 0, 1));
    BAD(t, ctx, E, fs, gala_sparse_ldlt_solve(F, 1, NULL, 0, N, 0, 1, X, 0, N, 0, 1));
    BAD(t, ctx, E, fs, gala_sparse_ldlt_solve(F, 1, b, 3 * (size_t)N, N, 0, 1, X, 0, N, 0, 1));
    BAD(t, ctx, E, fs, gala_sparse_ldlt_solve(F, 1, b, 0, N, 0, 1, b, 1, N, 0, 1)); /* X overlaps B */
    BAD(t, ctx, E, fs, gala_sparse_ldlt_solve(F, 1, b, 0, N, 0, 1, X, 0, 0, 0, 1)); /* solutions overlap */
    BAD(t, ctx, E, fs, gala_sparse_ldlt_solve(F, 1, b, 0, N, 0, 1, X, 0, N, 0, 0)); /* x_estride 0 */
    TU_ASSERT(strstr(gala_last_error(ctx), "x_estride is 0") != NULL, t, "%s", gala_last_error(ctx));
    if (xo) BAD(t, ctx, E, fs, gala_sparse_ldlt_solve(F, 1, b, 0, N, 0, 1, xo, 0, N, 0, 1));
    /* nothing written by the rejected solves */
    double *v = malloc((size_t)4 * N * sizeof *v);
    tu_download(X, 0, v, (size_t)4 * N);
    for (int k = 0; k < 4 * N; ++k) TU_ASSERT(isnan(v[k]), t, "X written by a rejected solve");
    TU_OK(ctx, gala_sparse_ldlt_solve(F, 0, b, 0, N, 0, 1, X, 0, N, 0, 1)); /* nrhs 0 */
    free(v);
    free(xv);
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    gala_buffer_free(x);
    gala_buffer_free(xi);
    gala_buffer_free(xo);
    gala_buffer_free(b);
    gala_buffer_free(X);
    kkt_free(&K);
}
END_TEST

/* A batch of KKT matrices: 0 and 4 good, 1 with a NaN, 2 all zero (pivot 1 exactly zero),
 * 3 = −K (quasi-definite with the wrong inertia for expected_positive = n). */
START_TEST(sparse_ldlt_bad_matrices_in_a_batch)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    tu_rng r = tu_rng_for("sparse_bad", t);
    kkt_rng g = {n01, u01, &r};
    gala_csc K;
    const int nv = 7;
    kkt_random(&g, nv, 5, 2, 2, &K);
    const int nnz = K.p[K.n], N = K.n, Q = 5;
    double *vals = malloc((size_t)nnz * Q * sizeof *vals);
    for (int q = 0; q < Q; ++q) {
        kkt_values(&K, nv, &g);
        for (int e = 0; e < nnz; ++e) vals[(size_t)q * nnz + e] = K.x[e];
    }
    vals[(size_t)1 * nnz + nnz / 2] = NAN;
    for (int e = 0; e < nnz; ++e) {
        vals[(size_t)2 * nnz + e] = 0;
        vals[(size_t)3 * nnz + e] = -vals[(size_t)3 * nnz + e];
    }
    tu_round(dt, vals, (size_t)nnz * Q);
    gala_sparse_ldlt_options o;
    gala_sparse_ldlt_options_default(&o);
    o.expected_positive = nv;
    gala_sparse_ldlt_symbolic *S = NULL;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &K, &o, &S));
    gala_buffer *x = tu_upload(ctx, dt, vals, (size_t)nnz * Q);
    gala_sparse_ldlt *F = NULL;
    int info[5], inertia[10];
    gala_status s = gala_sparse_ldlt_factor(ctx, S, Q, x, 0, nnz, 1, &F, info, inertia);
    TU_ASSERT(s == GALA_ERR_NOT_FINITE, t, "status %s", gala_status_string(s));
    TU_ASSERT(F != NULL, t, "no factor object after a numerical failure");
    TU_ASSERT(info[0] == 0 && info[1] < 0 && info[2] == 1 && info[3] == 0 && info[4] == 0, t,
              "info %d %d %d %d %d", info[0], info[1], info[2], info[3], info[4]);
    TU_ASSERT(inertia[0] == nv && inertia[1] == N - nv && inertia[6] == N - nv && inertia[7] == nv,
              t, "inertia");
    /* solve: the good matrices give correct solutions */
    double *rhs = malloc((size_t)N * Q * sizeof *rhs), *sol = malloc((size_t)N * Q * sizeof *sol);
    for (int k = 0; k < N * Q; ++k) rhs[k] = tu_normal(&r);
    tu_round(dt, rhs, (size_t)N * Q);
    gala_buffer *b = tu_upload(ctx, dt, rhs, (size_t)N * Q);
    TU_OK(ctx, gala_sparse_ldlt_solve(F, 1, b, 0, N, 0, 1, b, 0, N, 0, 1));
    tu_download(b, 0, sol, (size_t)N * Q);
    for (int q = 0; q < Q; q += 4) {
        double num = 0, den = 0;
        for (int i = 0; i < N; ++i) {
            double y = 0;
            for (int j = 0; j < N; ++j)
                for (int e = K.p[j]; e < K.p[j + 1]; ++e) {
                    int ii = K.i[e];
                    double a = vals[(size_t)q * nnz + e];
                    if (ii == i) y += a * sol[(size_t)q * N + j];
                    else if (j == i) y += a * sol[(size_t)q * N + ii];
                }
            num += (y - rhs[(size_t)q * N + i]) * (y - rhs[(size_t)q * N + i]);
            den += rhs[(size_t)q * N + i] * rhs[(size_t)q * N + i];
        }
        TU_ASSERT(sqrt(num / den) < 1e4 * tu_eps(dt), t, "good matrix %d: residual %g", q,
                  sqrt(num / den));
    }
    /* without the NaN: singular first, then only the wrong inertia */
    vals[(size_t)1 * nnz + nnz / 2] = 1;
    gala_buffer_free(x);
    x = tu_upload(ctx, dt, vals, (size_t)nnz * Q);
    s = gala_sparse_ldlt_refactor(F, x, 0, nnz, 1, info, NULL);
    TU_ASSERT(s == GALA_ERR_SINGULAR && info[2] == 1, t, "%s", gala_status_string(s));
    TU_ASSERT(strstr(gala_last_error(ctx), "matrix 2 ") != NULL, t, "%s", gala_last_error(ctx));
    /* values of 5 matrices starting at matrix 3 of the buffer: past its end */
    s = gala_sparse_ldlt_refactor(F, x, 3 * (size_t)nnz, nnz, 1, info, inertia);
    TU_ASSERT(s == GALA_ERR_INVALID_ARG, t, "refactor past the buffer: %s", gala_status_string(s));
    for (int e = 0; e < nnz; ++e) vals[(size_t)2 * nnz + e] = vals[e];
    gala_buffer_free(x);
    x = tu_upload(ctx, dt, vals, (size_t)nnz * Q);
    s = gala_sparse_ldlt_refactor(F, x, 0, nnz, 1, info, inertia);
    TU_ASSERT(s == GALA_ERR_WRONG_INERTIA && info[3] == 0 && inertia[6] == N - nv, t, "%s",
              gala_status_string(s));
    TU_ASSERT(strstr(gala_last_error(ctx), "matrix 3 ") != NULL, t, "%s", gala_last_error(ctx));
    for (int e = 0; e < nnz; ++e) vals[(size_t)3 * nnz + e] = -vals[(size_t)3 * nnz + e];
    gala_buffer_free(x);
    x = tu_upload(ctx, dt, vals, (size_t)nnz * Q);
    TU_OK(ctx, gala_sparse_ldlt_refactor(F, x, 0, nnz, 1, info, inertia));
    free(rhs);
    free(sol);
    free(vals);
    gala_buffer_free(b);
    gala_buffer_free(x);
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    kkt_free(&K);
}
END_TEST

/* ------------------------------------------------------------------ QP */

typedef struct qpb {
    gala_qp_problem p;
    int Pp[5], Pi[8], Ap[5], Ai[8];
    double Px[8], Ax[8], q[4], l[4], u[4];
} qpb;

/* min ½ Σ d_j x_j² + q_j x_j, −1 <= x <= 1: x = clamp(−q/d). */
static void box(qpb *b, double d0, const double *qv)
{
    memset(b, 0, sizeof *b);
    for (int j = 0; j < 4; ++j) {
        b->Pp[j] = b->Ap[j] = j;
        b->Pi[j] = b->Ai[j] = j;
        b->Px[j] = j == 0 ? d0 : 1 + j;
        b->Ax[j] = 1;
        b->q[j] = qv[j];
        b->l[j] = -1;
        b->u[j] = 1;
    }
    b->Pp[4] = b->Ap[4] = 4;
    b->p.n = b->p.m = 4;
    b->p.P = (gala_csc){4, 4, b->Pp, b->Pi, b->Px};
    b->p.A = (gala_csc){4, 4, b->Ap, b->Ai, b->Ax};
    b->p.q = b->q;
    b->p.l = b->l;
    b->p.u = b->u;
}

START_TEST(qp_arguments_and_invalid_qps)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    const double qv[4] = {0.5, -3, 1, 0.25};
    enum { C = 7 };
    qpb b[C];
    gala_qp_problem pb[C];
    for (int k = 0; k < C; ++k) box(&b[k], 1, qv);
    b[1].q[2] = NAN;                         /* NaN in q */
    b[2].l[1] = 2;                           /* l > u */
    b[3].Pi[1] = 3;                          /* P entry below the diagonal ((3, 1)) */
    b[4].p.A.m = 3;                          /* A's rows do not match m */
    b[5].Px[0] = -1;                         /* not convex */
    b[6].Ax[3] = INFINITY;                   /* Inf in A */
    for (int k = 0; k < C; ++k) pb[k] = b[k].p;
    gala_qp_settings set;
    gala_qp_settings_default(&set);
    gala_qp_settings_default(NULL);
    set.dtype = dt;
    set.eps_abs = set.eps_rel = dt == GALA_FLOAT ? 1e-5 : 1e-8;
    gala_qp_solver *s = (gala_qp_solver *)1;
    const gala_status E = GALA_ERR_INVALID_ARG;
    const char *f = "gala_qp_setup";
    BAD0(t, ctx, E, f, gala_qp_setup(NULL, pb, C, &set, &s));
    ck_assert_ptr_null(s);
    BAD(t, ctx, E, f, gala_qp_setup(ctx, NULL, C, &set, &s));
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, 0, &set, &s));
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &set, NULL));
    gala_qp_settings bad = set;
    bad.rho = 0;
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.alpha = 2;
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.dtype = GALA_INT;
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.max_iter = 0;
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.eps_abs = NAN;
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.linsys_solver = (gala_qp_linsys)5; /* no such strategy */
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.cg_max_iter = 0; /* checked whatever the strategy, as OSQP validates it */
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.cg_tol_fraction = NAN;
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.cg_tol_reduction = -1;
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    bad = set;
    bad.linsys_solver = GALA_QP_LINSYS_DENSE_SHARED; /* the QPs do not share P */
    BAD(t, ctx, E, f, gala_qp_setup(ctx, pb, C, &bad, &s));
    ck_assert_ptr_null(s);
    BAD0(t, ctx, E, NULL, gala_qp_solve(NULL));
    ck_assert_int_eq(gala_qp_count(NULL), 0);
    ck_assert_int_eq(gala_qp_linsys_used(NULL), -1);
    ck_assert_int_eq(gala_qp_destroy(NULL), GALA_OK);

    /* the invalid QPs are marked, the valid one is solved */
    TU_OK(ctx, gala_qp_setup(ctx, pb, C, &set, &s));
    gala_qp_info info;
    const double *x;
    BAD(t, ctx, E, NULL, gala_qp_get_solution(s, 0, &x, NULL, NULL, NULL)); /* not solved yet */
    TU_OK(ctx, gala_qp_solve(s));
    static const int want[C] = {GALA_QP_SOLVED, GALA_QP_INVALID_DATA, GALA_QP_INVALID_DATA,
                                GALA_QP_INVALID_DATA, GALA_QP_INVALID_DATA, GALA_QP_NON_CVX,
                                GALA_QP_INVALID_DATA};
    for (int k = 0; k < C; ++k) {
        TU_OK(ctx, gala_qp_get_info(s, k, &info));
        TU_ASSERT(info.status == want[k], t, "QP %d: %s (%s)", k, gala_qp_status_string(info.status),
                  info.message);
        if (want[k] == GALA_QP_INVALID_DATA)
            TU_ASSERT(info.message[0] != '\0', t, "QP %d: invalid without a reason", k);
    }
    TU_OK(ctx, gala_qp_get_solution(s, 0, &x, NULL, NULL, NULL));
    for (int j = 0; j < 4; ++j) {
        double w = fmin(1, fmax(-1, -qv[j] / b[0].Px[j]));
        TU_ASSERT(fabs(x[j] - w) < (dt == GALA_FLOAT ? 2e-3 : 1e-5), t, "x[%d] = %g, want %g", j, x[j], w);
    }
    BAD(t, ctx, E, NULL, gala_qp_get_info(s, C, &info));
    BAD(t, ctx, E, NULL, gala_qp_get_info(s, -1, &info));
    BAD(t, ctx, E, NULL, gala_qp_get_info(s, 0, NULL));
    BAD(t, ctx, E, NULL, gala_qp_get_solution(s, C, &x, NULL, NULL, NULL));
    BAD(t, ctx, E, NULL, gala_qp_update_vectors(s, C, qv, NULL, NULL));
    BAD(t, ctx, E, NULL, gala_qp_update_vectors(s, -2, qv, NULL, NULL));
    BAD(t, ctx, E, NULL, gala_qp_update_matrices(s, C, NULL, NULL));
    BAD(t, ctx, E, NULL, gala_qp_warm_start(s, C, NULL, NULL));
    /* NaN through an update makes that QP invalid until good data come back */
    double qn[4] = {0.5, NAN, 1, 0.25};
    TU_OK(ctx, gala_qp_update_vectors(s, 0, qn, NULL, NULL));
    TU_OK(ctx, gala_qp_solve(s));
    TU_OK(ctx, gala_qp_get_info(s, 0, &info));
    TU_ASSERT(info.status == GALA_QP_INVALID_DATA, t, "after a NaN update: %s",
              gala_qp_status_string(info.status));
    TU_OK(ctx, gala_qp_update_vectors(s, 0, qv, NULL, NULL));
    TU_OK(ctx, gala_qp_solve(s));
    TU_OK(ctx, gala_qp_get_info(s, 0, &info));
    TU_ASSERT(info.status == GALA_QP_SOLVED, t, "after a good update: %s",
              gala_qp_status_string(info.status));
    gala_qp_destroy(s);

    /* primal infeasible: x_0 in [2, 3] and in [−1, 1] (two rows on x_0) */
    qpb inf;
    box(&inf, 1, qv);
    inf.Pp[4] = 4;
    int Ap[5] = {0, 2, 3, 4, 5}, Ai[5] = {0, 4, 1, 2, 3};
    double Ax[5] = {1, 1, 1, 1, 1}, l[5] = {-1, -1, -1, -1, 2}, u[5] = {1, 1, 1, 1, 3};
    inf.p.m = 5;
    inf.p.A = (gala_csc){5, 4, Ap, Ai, Ax};
    inf.p.l = l;
    inf.p.u = u;
    TU_OK(ctx, gala_qp_setup(ctx, &inf.p, 1, &set, &s));
    TU_OK(ctx, gala_qp_solve(s));
    TU_OK(ctx, gala_qp_get_info(s, 0, &info));
    TU_ASSERT(info.status == GALA_QP_PRIMAL_INFEASIBLE ||
                  info.status == GALA_QP_PRIMAL_INFEASIBLE_INACCURATE,
              t, "infeasible QP: %s", gala_qp_status_string(info.status));
    const double *cert;
    TU_OK(ctx, gala_qp_get_solution(s, 0, &x, NULL, &cert, NULL));
    TU_ASSERT(isnan(x[0]), t, "an infeasible QP has no x (NaN), got %g", x[0]);
    for (int i = 0; i < 5; ++i) TU_ASSERT(isfinite(cert[i]), t, "certificate[%d] = %g", i, cert[i]);
    gala_qp_destroy(s);
}
END_TEST

/* x of the box QP b solved: clamp(−q/d, −1, 1) per coordinate, d scaled by ps. */
static void assert_box_x(int t, gala_qp_solver *s, int k, const qpb *b, double ps, const char *what)
{
    const double tol = tu_target_get(t)->dtype == GALA_FLOAT ? 2e-3 : 1e-5;
    gala_qp_info info;
    const double *x;
    TU_OK(NULL, gala_qp_get_info(s, k, &info));
    TU_ASSERT(info.status == GALA_QP_SOLVED, t, "%s: QP %d: %s (%s)", what, k,
              gala_qp_status_string(info.status), info.message);
    TU_OK(NULL, gala_qp_get_solution(s, k, &x, NULL, NULL, NULL));
    for (int j = 0; j < 4; ++j) {
        const double w = fmin(1, fmax(-1, -b->q[j] / (ps * b->Px[j])));
        TU_ASSERT(fabs(x[j] - w) < tol, t, "%s: QP %d: x[%d] = %g, want %g", what, k, j, x[j], w);
    }
}

/* The update calls' errors and per-QP verdicts: NaN / Inf matrix values (an error of the
 * call, nothing changed), an update of a QP rejected at setup (nothing to do), and in the
 * shared strategy an update of one QP's matrices, values that differ between QPs, and a
 * row that changes kind (that QP invalid until its kinds agree again, the others solved). */
START_TEST(qp_update_errors)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    const double qv[4] = {0.5, -3, 1, 0.25}, qw[4] = {-0.5, 0.2, -4, 1};
    gala_qp_settings set;
    gala_qp_settings_default(&set);
    set.dtype = dt;
    set.eps_abs = set.eps_rel = dt == GALA_FLOAT ? 1e-5 : 1e-8;
    const gala_status E = GALA_ERR_INVALID_ARG;
    gala_qp_info info;

    /* own matrices (DENSE): QP 2 has a 3×4 P, QP 3 a NaN bound */
    enum { C = 4 };
    qpb b[C];
    gala_qp_problem pb[C];
    for (int k = 0; k < C; ++k) box(&b[k], 1 + k, k % 2 ? qw : qv);
    b[2].p.P.m = 3;
    b[3].l[2] = NAN;
    for (int k = 0; k < C; ++k) pb[k] = b[k].p;
    gala_qp_solver *s;
    TU_OK(ctx, gala_qp_setup(ctx, pb, C, &set, &s));
    ck_assert_int_eq(gala_qp_linsys_used(s), GALA_QP_LINSYS_DENSE);
    double Pn[4] = {1, NAN, 3, 4}, An[4] = {1, 1, INFINITY, 1};
    BAD(t, ctx, GALA_ERR_NOT_FINITE, "gala_qp_update_matrices", gala_qp_update_matrices(s, 0, Pn, NULL));
    TU_ASSERT(strstr(gala_last_error(ctx), "QP 0: P value 1") != NULL, t, "message: %s",
              gala_last_error(ctx));
    BAD(t, ctx, GALA_ERR_NOT_FINITE, "gala_qp_update_matrices", gala_qp_update_matrices(s, 1, NULL, An));
    TU_ASSERT(strstr(gala_last_error(ctx), "QP 1: A value 2") != NULL, t, "message: %s",
              gala_last_error(ctx));
    TU_OK(ctx, gala_qp_update_matrices(s, 0, NULL, NULL));
    TU_OK(ctx, gala_qp_update_vectors(s, 2, qv, NULL, NULL)); /* rejected at setup: no-op */
    TU_OK(ctx, gala_qp_update_matrices(s, 3, b[3].Px, NULL));
    TU_OK(ctx, gala_qp_solve(s));
    assert_box_x(t, s, 0, &b[0], 1, "after the refused updates");
    assert_box_x(t, s, 1, &b[1], 1, "after the refused updates");
    static const char *why[C] = {NULL, NULL, "P is 3", "bounds of row 2"};
    for (int k = 2; k < C; ++k) {
        TU_OK(ctx, gala_qp_get_info(s, k, &info));
        TU_ASSERT(info.status == GALA_QP_INVALID_DATA && strstr(info.message, why[k]), t,
                  "QP %d: %s (%s), want invalid data with '%s'", k,
                  gala_qp_status_string(info.status), info.message, why[k]);
    }
    gala_qp_destroy(s);

    /* the same P and A in every QP: the shared strategy */
    enum { S = 3 };
    qpb c[S];
    gala_qp_problem ps[S];
    for (int k = 0; k < S; ++k) {
        box(&c[k], 2, k == 1 ? qw : qv);
        ps[k] = c[k].p;
    }
    TU_OK(ctx, gala_qp_setup(ctx, ps, S, &set, &s));
    ck_assert_int_eq(gala_qp_linsys_used(s), GALA_QP_LINSYS_DENSE_SHARED);
    double P3[3 * 4];
    for (int k = 0; k < S; ++k)
        for (int j = 0; j < 4; ++j) P3[4 * k + j] = 2 * c[k].Px[j];
    BAD(t, ctx, E, "gala_qp_update_matrices", gala_qp_update_matrices(s, 0, P3, NULL));
    P3[4 * 1 + 2] += 1; /* QP 1's third value differs */
    BAD(t, ctx, E, "gala_qp_update_matrices", gala_qp_update_matrices(s, -1, P3, NULL));
    TU_ASSERT(strstr(gala_last_error(ctx), "QP 1 differs") != NULL, t, "message: %s",
              gala_last_error(ctx));
    TU_OK(ctx, gala_qp_solve(s));
    for (int k = 0; k < S; ++k) assert_box_x(t, s, k, &c[k], 1, "shared, after the refused updates");
    P3[4 * 1 + 2] -= 1;
    TU_OK(ctx, gala_qp_update_matrices(s, -1, P3, NULL));
    TU_OK(ctx, gala_qp_solve(s));
    for (int k = 0; k < S; ++k) assert_box_x(t, s, k, &c[k], 2, "shared, P doubled");
    /* QP 1's row 0 becomes an equality: QP 1 invalid, the others solved */
    double l1[4] = {0.5, -1, -1, -1}, u1[4] = {0.5, 1, 1, 1}, lb[4] = {-1, -1, -1, -1},
           ub[4] = {1, 1, 1, 1};
    TU_OK(ctx, gala_qp_update_vectors(s, 1, NULL, l1, u1));
    TU_OK(ctx, gala_qp_solve(s));
    TU_OK(ctx, gala_qp_get_info(s, 1, &info));
    TU_ASSERT(info.status == GALA_QP_INVALID_DATA && strstr(info.message, "row 0"), t,
              "QP 1 with an equality row: %s (%s)", gala_qp_status_string(info.status),
              info.message);
    assert_box_x(t, s, 0, &c[0], 2, "shared, beside the QP whose row changed kind");
    assert_box_x(t, s, 2, &c[2], 2, "shared, beside the QP whose row changed kind");
    TU_OK(ctx, gala_qp_update_vectors(s, 1, NULL, lb, ub));
    TU_OK(ctx, gala_qp_solve(s));
    for (int k = 0; k < S; ++k) assert_box_x(t, s, k, &c[k], 2, "shared, kinds agree again");
    /* every QP's q at once (k = -1), QP 2's with a NaN: QP 2 invalid, the others updated;
     * then QP 2 good again */
    double qall[S * 4];
    for (int k = 0; k < S; ++k)
        for (int j = 0; j < 4; ++j) qall[4 * k + j] = c[k].q[j] = -c[k].q[j];
    qall[4 * 2 + 1] = NAN;
    TU_OK(ctx, gala_qp_update_vectors(s, -1, qall, NULL, NULL));
    TU_OK(ctx, gala_qp_solve(s));
    TU_OK(ctx, gala_qp_get_info(s, 2, &info));
    TU_ASSERT(info.status == GALA_QP_INVALID_DATA, t, "QP 2 after a NaN in q: %s",
              gala_qp_status_string(info.status));
    for (int k = 0; k < 2; ++k) assert_box_x(t, s, k, &c[k], 2, "shared, q of every QP, one NaN");
    qall[4 * 2 + 1] = c[2].q[1];
    TU_OK(ctx, gala_qp_update_vectors(s, -1, qall, NULL, NULL));
    TU_OK(ctx, gala_qp_solve(s));
    for (int k = 0; k < S; ++k) assert_box_x(t, s, k, &c[k], 2, "shared, q of every QP, all good");
    gala_qp_destroy(s);

    /* a shared batch whose P is not convex (K not positive definite with the first ρ):
     * every QP NON_CVX, with a NaN objective, before any iteration */
    for (int k = 0; k < S; ++k) {
        box(&c[k], -1, k == 1 ? qw : qv);
        ps[k] = c[k].p;
    }
    TU_OK(ctx, gala_qp_setup(ctx, ps, S, &set, &s));
    ck_assert_int_eq(gala_qp_linsys_used(s), GALA_QP_LINSYS_DENSE_SHARED);
    TU_OK(ctx, gala_qp_solve(s));
    for (int k = 0; k < S; ++k) {
        TU_OK(ctx, gala_qp_get_info(s, k, &info));
        TU_ASSERT(info.status == GALA_QP_NON_CVX && isnan(info.obj_val) && info.iter == 0, t,
                  "shared, P not convex: QP %d %s, objective %g, %d iterations", k,
                  gala_qp_status_string(info.status), info.obj_val, info.iter);
    }
    gala_qp_destroy(s);

    /* every status has a name of its own */
    for (int a = GALA_QP_SOLVED; a <= GALA_QP_INVALID_DATA; ++a) {
        TU_ASSERT(strcmp(gala_qp_status_string(a), "unknown status") != 0, t, "status %d", a);
        for (int z = GALA_QP_SOLVED; z < a; ++z)
            TU_ASSERT(strcmp(gala_qp_status_string(a), gala_qp_status_string(z)) != 0, t,
                      "statuses %d and %d share a name", z, a);
    }
    ck_assert_str_eq(gala_qp_status_string(0), "unknown status");
}
END_TEST

START_TEST(qps_files)
{
    const int t = _i;
    gala_qp_problem p;
    memset(&p, 0xff, sizeof p);
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, NULL, gala_qp_read_qps(NULL, &p));
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, NULL, gala_qp_read_qps("x.qps", NULL));
    BAD0(t, NULL, GALA_ERR_IO, "/nonexistent/dir/none.qps", gala_qp_read_qps("/nonexistent/dir/none.qps", &p));
    TU_ASSERT(p.n == 0 && p.q == NULL && p.owned == 0, t, "problem not zeroed on failure");
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, NULL, gala_qp_read_qps_ex(GALA_TEST_DATA_DIR "/maros_meszaros/HS21.QPS", 0x100u, &p, NULL));
    BAD0(t, NULL, GALA_ERR_IO, NULL, gala_qp_read_qps("/", &p)); /* a folder */
    static const char bad[] = "NAME X\nROWS\n N OBJ\n L R1\nCOLUMNS\n C1 R9 1\nENDATA\n";
    BAD0(t, NULL, GALA_ERR_PARSE, "<memory>:6:", gala_qp_read_qps_mem(bad, sizeof bad - 1, 0, &p, NULL));
    static const char bin[] = "NAME \x01\x02\xff\xfe\n\0\0\0ROWS";
    BAD0(t, NULL, GALA_ERR_PARSE, NULL, gala_qp_read_qps_mem(bin, sizeof bin - 1, 0, &p, NULL));
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, NULL, gala_qp_read_qps_mem(NULL, 5, 0, &p, NULL));
    TU_ASSERT(gala_qp_read_qps_mem(NULL, 0, 0, &p, NULL) != GALA_OK || p.n == 0, t, "empty input");
    gala_qp_problem_free(&p);
    ck_assert_int_eq(gala_qp_problem_free(NULL), GALA_OK);
    /* writer (output to /dev/null) */
    FILE *null = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(null);
    qpb b;
    const double qv[4] = {1, 2, 3, 4};
    box(&b, 1, qv);
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, NULL, gala_qp_write_qps(NULL, &b.p));
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, NULL, gala_qp_write_qps("/tmp/x.qps", NULL));
    BAD0(t, NULL, GALA_ERR_IO, NULL, gala_qp_write_qps("/nonexistent/dir/out.qps", &b.p));
    b.l[2] = NAN;
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, NULL, gala_qp_write_qps_stream(null, &b.p));
    b.l[2] = 3; /* l > u on a bound row (an identity row written as BOUNDS): expressible */
    TU_OK(NULL, gala_qp_write_qps_stream(null, &b.p));
    b.Ax[2] = 2; /* now rows 0..2 are constraint rows: l > u there is rejected */
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "l = 3 > u = 1", gala_qp_write_qps_stream(null, &b.p));
    b.Ax[2] = 1;
    b.l[2] = -1;
    b.p.A.m = 5;
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, NULL, gala_qp_write_qps_stream(null, &b.p));
    b.p.A.m = 4;
    b.Px[1] = NAN;
    BAD0(t, NULL, GALA_ERR_NOT_FINITE, NULL, gala_qp_write_qps_stream(null, &b.p));
    b.Px[1] = 2;
    TU_OK(NULL, gala_qp_write_qps_stream(null, &b.p));
    fclose(null);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("badinput_sparse_qp");
    TCase *tc = tcase_create("badinput_sparse_qp");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, csc_validate_cases, 0, nt);
    tcase_add_loop_test(tc, sparse_ldlt_arguments, 0, nt);
    tcase_add_loop_test(tc, sparse_ldlt_bad_matrices_in_a_batch, 0, nt);
    tcase_add_loop_test(tc, qp_arguments_and_invalid_qps, 0, nt);
    tcase_add_loop_test(tc, qp_update_errors, 0, nt);
    tcase_add_test(tc, qps_files);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
