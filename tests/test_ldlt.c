/* Dense LDLᵀ (ldlt.h) on every target: factor, inertia, info, solves, uniform and variable
 * batches, both triangles, against double references computed here. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "testutil.h"

/* A random quasi-definite matrix of order n with n1 positive pivots: [H, Bᵀ; B, −G] (H, G
 * diagonally dominant SPD) under a random symmetric permutation, full storage, column-major
 * with leading dimension n. */
static void gen_qd(tu_rng *r, int n, int n1, double *A)
{
    int *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
    double *M = malloc((size_t)(n ? n * n : 1) * sizeof *M);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = tu_int(r, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    const double sc = 1.0 / sqrt((double)(n ? n : 1));
    for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i) {
            const int same = (i < n1) == (j < n1);
            M[j * n + i] = M[i * n + j] = (same ? 0.5 : 1.0) * sc * tu_normal(r);
        }
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j)
            if (j != i && ((i < n1) == (j < n1))) s += fabs(M[j * n + i]);
        M[i * n + i] = (i < n1 ? 1 : -1) * (0.5 + s + tu_uniform(r));
    }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) A[j * n + i] = M[perm[j] * n + perm[i]];
    free(perm);
    free(M);
}

/* max |A − L·D·Lᵀ| and max (|L|·|D|·|Lᵀ|) over the lower triangle; F is the factor (lower
 * storage, ld n). */
static void recon_error(int n, const double *A, const double *F, double *err, double *scale)
{
    *err = 0;
    *scale = 0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double s = 0, sa = 0;
            for (int k = 0; k <= j; ++k) {
                const double lik = i == k ? 1 : F[k * n + i], ljk = j == k ? 1 : F[k * n + j];
                s += lik * F[k * n + k] * ljk;
                sa += fabs(lik * F[k * n + k] * ljk);
            }
            const double e = fabs(A[j * n + i] - s);
            if (!(e <= *err)) *err = e;
            if (sa > *scale) *scale = sa;
        }
}

static double max_abs(const double *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; ++i) m = fmax(m, fabs(v[i]));
    return m;
}

/* ‖A·x − b‖∞ / (‖A‖∞·‖x‖∞ + ‖b‖∞) for one right-hand side */
static double solve_residual(int n, const double *A, const double *x, const double *b)
{
    double rn = 0, an = 0;
    for (int i = 0; i < n; ++i) {
        double s = -b[i], ra = 0;
        for (int j = 0; j < n; ++j) {
            s += A[j * n + i] * x[j];
            ra += fabs(A[j * n + i]);
        }
        if (!(fabs(s) <= rn)) rn = fabs(s);
        an = fmax(an, ra);
    }
    return rn / (an * max_abs(x, (size_t)n) + max_abs(b, (size_t)n) + 1e-300);
}

/* Store the triangle `upper` of the n×n matrix M (ld n) into buf at off with leading
 * dimension ld; the other triangle and the padding stay NaN. */
static void place(double *buf, size_t off, int ld, int n, const double *M, int upper)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            if (upper ? i <= j : i >= j) buf[off + (size_t)j * ld + i] = M[j * n + i];
}

/* Read the factor back into lower storage (ld n), checking that the other triangle and the
 * padding are still NaN. */
static int extract(const double *buf, size_t off, int ld, int n, int upper, double *F)
{
    int ok = 1;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < ld; ++i) {
            const double v = buf[off + (size_t)j * ld + i];
            const int in = i < n && (upper ? i <= j : i >= j);
            if (in) {
                if (upper) F[i * n + j] = v; else F[j * n + i] = v;
            } else if (!isnan(v)) {
                ok = 0;
            }
        }
    return ok;
}

typedef struct { int n, batch; } shape;
static const shape shapes[] = {{1, 1},  {2, 3},   {3, 3000}, {4, 500},  {5, 7},  {8, 2000},
                               {13, 5}, {16, 64}, {31, 3},   {32, 40},  {33, 9}, {47, 2},
                               {64, 3}, {65, 2},  {100, 2},  {127, 1},  {129, 2}, {200, 1},
                               {300, 1}, {0, 4}};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static double tol_factor(gala_dtype dt, int n) { return 8.0 * (n + 2) * tu_eps(dt); }

/* Factor + solve a uniform batch; checks reconstruction, inertia, untouched memory, solve. */
static void run_uniform(int ti, tu_rng *r, int n, int batch, int upper, int nrhs)
{
    gala_context *ctx = tu_ctx(ti);
    const gala_dtype dt = tu_target_get(ti)->dtype;
    const int lda = n + tu_int(r, 0, 3) + (n == 0);
    const size_t stride = (size_t)lda * (size_t)(n ? n : 1) + (size_t)tu_int(r, 0, 5);
    const size_t off = (size_t)tu_int(r, 0, 4);
    const size_t len = off + (batch ? (size_t)(batch - 1) * stride + (size_t)lda * n : 0) + 1;
    double *buf = malloc(len * sizeof *buf), *mats = malloc((size_t)batch * n * n * sizeof *mats + 8);
    int *n1 = malloc((size_t)batch * sizeof *n1 + 4);
    for (size_t i = 0; i < len; ++i) buf[i] = NAN;
    for (int b = 0; b < batch; ++b) {
        double *M = mats + (size_t)b * n * n;
        n1[b] = tu_int(r, 0, n);
        gen_qd(r, n, n1[b], M);
        tu_round(dt, M, (size_t)n * n);
        place(buf, off + (size_t)b * stride, lda, n, M, upper);
    }
    gala_buffer *bA = tu_upload(ctx, dt, buf, len);
    int *info = malloc((size_t)batch * sizeof *info + 4), *iner = malloc((size_t)batch * 2 * sizeof *iner + 8);
    for (int b = 0; b < batch; ++b) info[b] = iner[2 * b] = iner[2 * b + 1] = -77;
    gala_uplo ul = upper ? GALA_UPPER : GALA_LOWER;
    if (batch == 1 && stride > 0 && n % 2)
        TU_OK(ctx, gala_ldlt(ctx, ul, n, bA, off, lda, info, iner));
    else
        TU_OK(ctx, gala_ldlt_batched(ctx, ul, n, bA, off, lda, stride, batch, info, iner));
    double *out = malloc(len * sizeof *out), *F = malloc((size_t)(n ? n * n : 1) * sizeof *F);
    tu_download(bA, 0, out, len);
    const double tol = tol_factor(dt, n);
    for (int b = 0; b < batch; ++b) {
        TU_ASSERT(info[b] == 0, ti, "n=%d matrix %d: info %d", n, b, info[b]);
        TU_ASSERT(iner[2 * b] == n1[b] && iner[2 * b + 1] == n - n1[b], ti,
                  "n=%d matrix %d: inertia (%d, %d), want (%d, %d)", n, b, iner[2 * b],
                  iner[2 * b + 1], n1[b], n - n1[b]);
        TU_ASSERT(extract(out, off + (size_t)b * stride, lda, n, upper, F), ti,
                  "n=%d matrix %d (%s): wrote outside its triangle", n, b, upper ? "upper" : "lower");
        double err, scale;
        recon_error(n, mats + (size_t)b * n * n, F, &err, &scale);
        TU_ASSERT(err <= tol * scale, ti, "n=%d %s matrix %d: |A - LDL'| = %.3g > %.3g", n,
                  upper ? "upper" : "lower", b, err, tol * scale);
    }
    for (size_t i = 0; i < off; ++i) TU_ASSERT(isnan(out[i]), ti, "wrote before the batch");
    TU_ASSERT(isnan(out[len - 1]), ti, "wrote after the batch");

    /* solve with nrhs right-hand sides, B in its own buffer */
    if (nrhs >= 0 && n > 0) {
        const int ldb = n + tu_int(r, 0, 2);
        const size_t bstride = (size_t)ldb * (size_t)(nrhs ? nrhs : 1) + (size_t)tu_int(r, 0, 3);
        const size_t boff = (size_t)tu_int(r, 0, 3);
        const size_t blen = boff + (size_t)(batch - 1) * bstride + (size_t)ldb * (size_t)nrhs + 1;
        double *bv = malloc(blen * sizeof *bv), *xv = malloc(blen * sizeof *xv);
        for (size_t i = 0; i < blen; ++i) bv[i] = NAN;
        for (int b = 0; b < batch; ++b)
            for (int c = 0; c < nrhs; ++c)
                for (int i = 0; i < n; ++i)
                    bv[boff + b * bstride + (size_t)c * ldb + i] = tu_normal(r);
        tu_round(dt, bv, blen);
        gala_buffer *bB = tu_upload(ctx, dt, bv, blen);
        if (batch == 1 && n % 2)
            TU_OK(ctx, gala_ldlt_solve(ctx, ul, n, nrhs, bA, off, lda, bB, boff, ldb));
        else
            TU_OK(ctx, gala_ldlt_solve_batched(ctx, ul, n, nrhs, bA, off, lda, stride, bB, boff,
                                               ldb, bstride, batch));
        tu_download(bB, 0, xv, blen);
        const double stol = 4.0 * (n + 2) * tu_eps(dt) * 8;
        for (int b = 0; b < batch; ++b)
            for (int c = 0; c < nrhs; ++c) {
                const size_t o = boff + b * bstride + (size_t)c * ldb;
                const double res = solve_residual(n, mats + (size_t)b * n * n, xv + o, bv + o);
                TU_ASSERT(res <= stol, ti, "solve n=%d nrhs=%d matrix %d rhs %d: residual %.3g > "
                          "%.3g", n, nrhs, b, c, res, stol);
                for (int i = n; i < ldb && c + 1 < nrhs; ++i)
                    TU_ASSERT(isnan(xv[o + i]), ti, "solve wrote into B's padding");
            }
        TU_ASSERT(isnan(xv[blen - 1]), ti, "solve wrote after B");
        gala_buffer_free(bB);
        free(bv);
        free(xv);
    }
    gala_buffer_free(bA);
    free(buf); free(mats); free(n1); free(info); free(iner); free(out); free(F);
}

START_TEST(ldlt_uniform_lower)
{
    tu_rng r = tu_rng_for(__func__, _i);
    for (int s = 0; s < NSHAPES; ++s)
        run_uniform(_i, &r, shapes[s].n, shapes[s].batch, 0, s % 3 == 0 ? 1 : (s % 3 == 1 ? 3 : 0));
}
END_TEST

START_TEST(ldlt_uniform_upper)
{
    tu_rng r = tu_rng_for(__func__, _i);
    static const int ns[] = {1, 2, 7, 16, 40, 64, 70, 150, 257};
    for (int s = 0; s < (int)(sizeof ns / sizeof ns[0]); ++s)
        run_uniform(_i, &r, ns[s], ns[s] < 50 ? 37 : 1, 1, 2);
}
END_TEST

START_TEST(ldlt_large_batch_small_n)
{
    tu_rng r = tu_rng_for(__func__, _i);
    run_uniform(_i, &r, 6, 10000, 0, 1);
    run_uniform(_i, &r, 70, 300, 0, 1);
}
END_TEST

/* Variable sizes, including 0, the fused classes and the blocked path, in one buffer. */
START_TEST(ldlt_vbatched)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    const int batch = 60;
    int n[60], lda[60], nrhs[60], ldb[60], n1[60];
    size_t aoff[60], boff[60], alen = 3, blen = 5;
    double *mats[60];
    for (int b = 0; b < batch; ++b) {
        n[b] = b % 10 == 0 ? tu_int(&r, 65, 170) : (b % 7 == 0 ? 0 : tu_int(&r, 1, 64));
        lda[b] = n[b] + tu_int(&r, 0, 3) + (n[b] == 0);
        nrhs[b] = tu_int(&r, 0, 3);
        ldb[b] = n[b] + tu_int(&r, 0, 2) + (n[b] == 0);
        aoff[b] = alen;
        alen += (size_t)lda[b] * (size_t)n[b] + (size_t)tu_int(&r, 0, 3);
        boff[b] = blen;
        blen += (size_t)ldb[b] * (size_t)nrhs[b] + (size_t)tu_int(&r, 0, 3);
        n1[b] = tu_int(&r, 0, n[b]);
        mats[b] = malloc((size_t)(n[b] ? n[b] * n[b] : 1) * sizeof(double));
        gen_qd(&r, n[b], n1[b], mats[b]);
        tu_round(dt, mats[b], (size_t)n[b] * n[b]);
    }
    const int upper = (int)(tu_seed() % 2);
    double *buf = malloc(alen * sizeof *buf), *bv = malloc(blen * sizeof *bv);
    for (size_t i = 0; i < alen; ++i) buf[i] = NAN;
    for (size_t i = 0; i < blen; ++i) bv[i] = NAN;
    for (int b = 0; b < batch; ++b) {
        place(buf, aoff[b], lda[b], n[b], mats[b], upper);
        for (int c = 0; c < nrhs[b]; ++c)
            for (int i = 0; i < n[b]; ++i) bv[boff[b] + (size_t)c * ldb[b] + i] = tu_normal(&r);
    }
    tu_round(dt, bv, blen);
    gala_buffer *bA = tu_upload(ctx, dt, buf, alen), *bB = tu_upload(ctx, dt, bv, blen);
    int info[60], iner[120];
    const gala_uplo ul = upper ? GALA_UPPER : GALA_LOWER;
    TU_OK(ctx, gala_ldlt_vbatched(ctx, ul, n, bA, aoff, lda, batch, info, iner));
    TU_OK(ctx, gala_ldlt_solve_vbatched(ctx, ul, n, nrhs, bA, aoff, lda, bB, boff, ldb, batch));
    double *out = malloc(alen * sizeof *out), *xv = malloc(blen * sizeof *xv);
    tu_download(bA, 0, out, alen);
    tu_download(bB, 0, xv, blen);
    for (int b = 0; b < batch; ++b) {
        TU_ASSERT(info[b] == 0 && iner[2 * b] == n1[b] && iner[2 * b + 1] == n[b] - n1[b], _i,
                  "vbatched matrix %d (n=%d): info %d inertia (%d, %d) want (%d, %d)", b, n[b],
                  info[b], iner[2 * b], iner[2 * b + 1], n1[b], n[b] - n1[b]);
        double *F = malloc((size_t)(n[b] ? n[b] * n[b] : 1) * sizeof *F), err, scale;
        TU_ASSERT(extract(out, aoff[b], lda[b], n[b], upper, F), _i,
                  "vbatched matrix %d wrote outside its triangle", b);
        recon_error(n[b], mats[b], F, &err, &scale);
        TU_ASSERT(err <= tol_factor(dt, n[b]) * scale, _i, "vbatched matrix %d (n=%d): "
                  "|A - LDL'| = %.3g", b, n[b], err);
        for (int c = 0; c < nrhs[b]; ++c) {
            const size_t o = boff[b] + (size_t)c * ldb[b];
            const double res = solve_residual(n[b], mats[b], xv + o, bv + o);
            TU_ASSERT(res <= 32.0 * (n[b] + 2) * tu_eps(dt), _i, "vbatched solve matrix %d "
                      "(n=%d) rhs %d: residual %.3g", b, n[b], c, res);
        }
        free(F);
        free(mats[b]);
    }
    for (size_t i = 0; i < 3; ++i) TU_ASSERT(isnan(out[i]) && isnan(xv[i]), _i, "wrote before");
    gala_buffer_free(bA);
    gala_buffer_free(bB);
    free(buf); free(bv); free(out); free(xv);
}
END_TEST

/* Zero and non-finite pivots in the fused and in the blocked path, next to good matrices. */
START_TEST(ldlt_failures)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    static const int ns[] = {2, 20, 64, 200};
    for (int s = 0; s < 4; ++s) {
        const int n = ns[s], batch = 5;
        const size_t stride = (size_t)n * n;
        double *buf = malloc(stride * batch * sizeof *buf);
        int n1[5];
        for (int b = 0; b < batch; ++b) {
            n1[b] = tu_int(&r, 0, n);
            gen_qd(&r, n, n1[b], buf + b * stride);
        }
        /* matrix 1: exactly zero pivot at column z (decoupled column, zero diagonal) */
        const int z = n / 2;
        double *M = buf + 1 * stride;
        for (int i = 0; i < n; ++i) M[z * n + i] = M[i * n + z] = 0;
        /* matrix 2: [1 1; 1 1] leading block gives pivot 2 = 1 − 1 = 0 after elimination */
        M = buf + 2 * stride;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
                if (i < 2 || j < 2) M[j * n + i] = (i < 2 && j < 2) ? 1 : 0;
        /* matrix 3: NaN below the diagonal at (n−1, 0): pivot n is the first NaN */
        buf[3 * stride + 0 * n + (n - 1)] = NAN;
        buf[3 * stride + (size_t)(n - 1) * n + 0] = NAN;
        tu_round(dt, buf, stride * batch);
        gala_buffer *bA = tu_upload(ctx, dt, buf, stride * batch);
        int info[5], iner[10];
        gala_status st = gala_ldlt_batched(ctx, GALA_LOWER, n, bA, 0, n, stride, batch, info, iner);
        TU_ASSERT(st == GALA_ERR_NOT_FINITE, _i, "n=%d: status %s", n, gala_status_string(st));
        TU_ASSERT(strstr(gala_last_error(ctx), "matrix 3") != NULL, _i, "message: %s",
                  gala_last_error(ctx));
        TU_ASSERT(info[0] == 0 && info[4] == 0, _i, "n=%d: good matrices got info %d %d", n,
                  info[0], info[4]);
        TU_ASSERT(iner[0] == n1[0] && iner[8] == n1[4], _i, "n=%d: inertia of good matrices", n);
        TU_ASSERT(info[1] == z + 1, _i, "n=%d: zero pivot at %d: info %d", n, z + 1, info[1]);
        TU_ASSERT(iner[2] + iner[3] == z, _i, "n=%d: %d pivots before the zero one, counted %d",
                  n, z, iner[2] + iner[3]);
        TU_ASSERT(info[2] == 2, _i, "n=%d: [1 1; 1 1]: info %d", n, info[2]);
        TU_ASSERT(info[3] == -n, _i, "n=%d: NaN: info %d, want %d", n, info[3], -n);
        /* only the singular ones: GALA_ERR_SINGULAR naming matrix 1 */
        gala_buffer_free(bA);
        bA = tu_upload(ctx, dt, buf, stride * 3);
        st = gala_ldlt_batched(ctx, GALA_LOWER, n, bA, 0, n, stride, 3, info, NULL);
        TU_ASSERT(st == GALA_ERR_SINGULAR && info[1] == z + 1 && info[2] == 2, _i,
                  "n=%d: status %s info %d %d", n, gala_status_string(st), info[1], info[2]);
        TU_ASSERT(strstr(gala_last_error(ctx), "matrix 1") != NULL, _i, "message: %s",
                  gala_last_error(ctx));
        gala_buffer_free(bA);
        free(buf);
    }
}
END_TEST

START_TEST(ldlt_bad_arguments)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *A = tu_poisoned(ctx, dt, 100), *B = tu_poisoned(ctx, dt, 100), *I;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 100, &I));
    int info[4];
    ck_assert_int_eq(gala_ldlt(NULL, GALA_LOWER, 3, A, 0, 3, info, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt(ctx, (gala_uplo)0, 3, A, 0, 3, info, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt(ctx, GALA_LOWER, -1, A, 0, 3, info, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt(ctx, GALA_LOWER, 3, A, 0, 2, info, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt(ctx, GALA_LOWER, 3, NULL, 0, 3, info, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt(ctx, GALA_LOWER, 10, A, 1, 10, info, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt(ctx, GALA_LOWER, 3, I, 0, 3, info, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt_batched(ctx, GALA_LOWER, 3, A, 0, 3, 2, 2, info, NULL),
                     GALA_ERR_INVALID_ARG); /* overlapping matrices */
    ck_assert_int_eq(gala_ldlt_batched(ctx, GALA_LOWER, 3, A, 0, 3, SIZE_MAX / 4, 3, info, NULL),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt_batched(ctx, GALA_LOWER, 3, A, 0, 3, 9, -1, info, NULL),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt_solve(ctx, GALA_LOWER, 3, 2, A, 0, 3, A, 5, 3),
                     GALA_ERR_INVALID_ARG); /* B overlaps A */
    ck_assert_int_eq(gala_ldlt_solve(ctx, GALA_LOWER, 3, -2, A, 0, 3, B, 0, 3), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt_solve(ctx, GALA_LOWER, 3, 2, A, 0, 3, B, 0, 2), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt_solve(ctx, GALA_LOWER, 3, 40, A, 0, 3, B, 0, 3), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "B") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_ldlt_solve(ctx, GALA_LOWER, 3, 1, A, 0, 3, I, 0, 3), GALA_ERR_INVALID_ARG);
    int nv[2] = {3, -1}, ldv[2] = {3, 3};
    size_t ov[2] = {0, 9};
    ck_assert_int_eq(gala_ldlt_vbatched(ctx, GALA_LOWER, nv, A, ov, ldv, 2, info, NULL),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_ldlt_vbatched(ctx, GALA_LOWER, NULL, A, ov, ldv, 2, info, NULL),
                     GALA_ERR_INVALID_ARG);
    nv[1] = 11;
    ck_assert_int_eq(gala_ldlt_vbatched(ctx, GALA_LOWER, nv, A, ov, ldv, 2, info, NULL),
                     GALA_ERR_INVALID_ARG); /* lda < n */
    ldv[1] = 11;
    ck_assert_int_eq(gala_ldlt_vbatched(ctx, GALA_LOWER, nv, A, ov, ldv, 2, info, NULL),
                     GALA_ERR_INVALID_ARG); /* outside A */
    ck_assert_msg(strstr(gala_last_error(ctx), "matrix 1") != NULL, "%s", gala_last_error(ctx));
    /* zero sizes do nothing and succeed */
    info[0] = 5;
    TU_OK(ctx, gala_ldlt(ctx, GALA_LOWER, 0, A, 0, 1, info, NULL));
    ck_assert_int_eq(info[0], 0);
    TU_OK(ctx, gala_ldlt_batched(ctx, GALA_UPPER, 3, A, 0, 3, 9, 0, NULL, NULL));
    TU_OK(ctx, gala_ldlt_solve(ctx, GALA_LOWER, 3, 0, A, 0, 3, B, 0, 3));
    gala_buffer_free(A);
    gala_buffer_free(B);
    gala_buffer_free(I);
}
END_TEST


/* Allocations, transfers and launches fail in turn: the injected status comes back, nothing
 * is left behind, and the next call works. */
START_TEST(ldlt_fault_injection)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    const int n = 100, nb = 3;
    double *M = malloc((size_t)n * n * sizeof *M);
    gen_qd(&r, n, n / 2, M);
    gala_buffer *bA = tu_poisoned(ctx, dt, (size_t)n * n * nb), *bB = tu_poisoned(ctx, dt, (size_t)n * nb);
    static const gala_fault_kind kinds[] = {GALA_FAULT_ALLOC, GALA_FAULT_TRANSFER, GALA_FAULT_LAUNCH};
    for (int kk = 0; kk < 3; ++kk) {
        int failures = 0;
        for (long at = 1; at <= 12; ++at) {
            for (int b = 0; b < nb; ++b) {
                gala_buffer *t = tu_upload(ctx, dt, M, (size_t)n * n);
                TU_OK(ctx, gala_buffer_copy(t, 0, bA, (size_t)b * n * n, (size_t)n * n));
                gala_buffer_free(t);
            }
            TU_OK(ctx, gala_buffer_fill(bB, 0, (size_t)n * nb, 1));
            gala_stats s0, s1;
            gala_context_stats(ctx, &s0);
            const int nv[3] = {n, 40, 7}, ld[3] = {n, n, n}, nr[3] = {1, 1, 1};
            const size_t ao[3] = {0, (size_t)n * n, 2 * (size_t)n * n}, bo[3] = {0, (size_t)n, 2 * (size_t)n};
            int info[3];
            gala_fault_arm(kinds[kk], at);
            gala_status st = gala_ldlt_batched(ctx, GALA_LOWER, n, bA, 0, n, (size_t)n * n, 2, info, NULL);
            if (st == GALA_OK)
                st = gala_ldlt_solve_batched(ctx, GALA_LOWER, n, 1, bA, 0, n, (size_t)n * n, bB, 0, n, (size_t)n, 2);
            if (st == GALA_OK) st = gala_ldlt_vbatched(ctx, GALA_UPPER, nv, bA, ao, ld, 3, info, NULL);
            if (st == GALA_OK)
                st = gala_ldlt_solve_vbatched(ctx, GALA_UPPER, nv, nr, bA, ao, ld, bB, bo, ld, 3);
            gala_fault_arm(kinds[kk], 0);
            TU_ASSERT(st == GALA_OK || st == GALA_ERR_DEVICE_MEMORY || st == GALA_ERR_DEVICE, _i,
                      "fault kind %d at %ld: %s", kk, at, gala_status_string(st));
            failures += st != GALA_OK;
            gala_context_stats(ctx, &s1);
            TU_ASSERT(s1.buffers_live == s0.buffers_live, _i, "buffers left behind");
        }
        /* the workspaces may already be large enough (no allocation): only transfers and
         * launches must have failed */
        TU_ASSERT(failures > 0 || kinds[kk] == GALA_FAULT_ALLOC, _i, "fault kind %d never hit", kk);
    }
    /* and the context still works */
    gala_buffer *t = tu_upload(ctx, dt, M, (size_t)n * n);
    int info, in[2];
    TU_OK(ctx, gala_ldlt(ctx, GALA_LOWER, n, t, 0, n, &info, in));
    ck_assert(info == 0 && in[0] == n / 2);
    gala_buffer_free(t);
    gala_buffer_free(bA);
    gala_buffer_free(bB);
    free(M);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ldlt");
    TCase *tc = tcase_create("ldlt");
    const int nt = tu_target_count();
    tcase_add_loop_test(tc, ldlt_uniform_lower, 0, nt);
    tcase_add_loop_test(tc, ldlt_uniform_upper, 0, nt);
    tcase_add_loop_test(tc, ldlt_large_batch_small_n, 0, nt);
    tcase_add_loop_test(tc, ldlt_vbatched, 0, nt);
    tcase_add_loop_test(tc, ldlt_failures, 0, nt);
    tcase_add_loop_test(tc, ldlt_bad_arguments, 0, nt);
    tcase_add_loop_test(tc, ldlt_fault_injection, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
