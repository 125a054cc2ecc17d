/*
 * Inverse of SPD matrices from the Cholesky factor (potri) on every target: the uplo
 * triangle of A⁻¹ against the explicit inverse (LAPACKE s/dpotri when available, else a
 * double solve), ‖A·X − I‖ / (‖A‖·‖X‖), the other triangle and the gaps untouched, single /
 * batched / variable batches, the fused and blocked lauum, failures reported by trtri
 * (zero diagonal, NaN) with the good matrices still inverted and the failed ones left as
 * they were, bad arguments. Factors come from gala_potrf (test_potrf.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/kernel.h"
#include "la_check.h"

/* Explicit inverse of an SPD G (n×n, full) in double: lower triangle into Xref. */
static void ref_inverse(int n, gala_dtype dt, const double *G, double *Xref)
{
    memcpy(Xref, G, (size_t)n * n * sizeof *Xref);
#ifdef GALA_TEST_LAPACKE
    (void)dt;
    LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, Xref, n);
    LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', n, Xref, n);
#else
    /* Gauss-Jordan on the full matrix (SPD: no pivoting needed) */
    double *W = malloc((size_t)n * 2 * n * sizeof *W);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 2 * n; ++j) W[i + (size_t)j * n] = j < n ? G[i + (size_t)j * n] : (j - n == i);
    for (int k = 0; k < n; ++k) {
        double p = W[k + (size_t)k * n];
        for (int j = 0; j < 2 * n; ++j) W[k + (size_t)j * n] /= p;
        for (int i = 0; i < n; ++i) {
            if (i == k) continue;
            double f = W[i + (size_t)k * n];
            for (int j = 0; j < 2 * n; ++j) W[i + (size_t)j * n] -= f * W[k + (size_t)j * n];
        }
    }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) Xref[i + (size_t)j * n] = W[i + (size_t)(j + n) * n];
    free(W);
    (void)dt;
#endif
}

/* the context run_inverse uses instead of the target's (potri_small_local_memory) */
static gala_context *ctx_instead;

static void run_inverse(int ti, tu_rng *r, int count, const int *n, int up, int api,
                        const char *what)
{
    gala_context *ctx = ctx_instead ? ctx_instead : tu_ctx(ti);
    gala_dtype dt = tu_target_get(ti)->dtype;
    const double eps = tu_eps(dt);
    la_layout L = la_layout_make(r, count, n, NULL, 3);
    if (api == 1 && count > 1) { /* uniform stride */
        const int ld = L.m[0].ld;
        const size_t stride = (size_t)ld * n[0] + 1;
        for (int b = 0; b < count; ++b) L.m[b].off = 1 + (size_t)b * stride, L.m[b].ld = ld;
        free(L.v);
        L.len = 1 + (size_t)count * stride + 1;
        L.v = malloc(L.len * sizeof *L.v);
        for (size_t i = 0; i < L.len; ++i) L.v[i] = NAN;
    }
    double **G = calloc((size_t)count, sizeof *G);
    for (int b = 0; b < count; ++b) {
        G[b] = malloc(((size_t)n[b] * n[b] + 1) * sizeof(double));
        la_spd(r, n[b], 1.0 + tu_uniform(r), dt, G[b]);
        la_put_tri(&L, b, up, G[b]);
    }
    gala_buffer *buf = la_upload(ctx, dt, &L);
    const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
    int *info = malloc(((size_t)count + 1) * sizeof *info);
    la_vb vb = la_vb_of(&L);
    /* the factors, by one call (a launch per matrix costs a millisecond on llvmpipe) */
    TU_OK(ctx, gala_potrf_vbatched(ctx, ul, vb.n, buf, vb.off, vb.ld, count, NULL));
    if (api == 0) {
        TU_OK(ctx, gala_potri(ctx, ul, n[0], buf, L.m[0].off, L.m[0].ld, info));
    } else if (api == 1) {
        TU_OK(ctx, gala_potri_batched(ctx, ul, n[0], buf, L.m[0].off, L.m[0].ld,
                                      count > 1 ? L.m[1].off - L.m[0].off : 0, count, info));
    } else {
        TU_OK(ctx, gala_potri_vbatched(ctx, ul, n, buf, vb.off, vb.ld, count, info));
    }
    la_vb_free(&vb);
    double *out = malloc(L.len * sizeof *out);
    tu_download(buf, 0, out, L.len);
    for (int b = 0; b < count; ++b) {
        const int nb = n[b];
        TU_ASSERT(info[b] == 0, ti, "%s: matrix %d: info %d", what, b, info[b]);
        if (nb == 0) continue;
        double *X = malloc((size_t)nb * nb * sizeof *X), *R = malloc((size_t)nb * nb * sizeof *R);
        for (int j = 0; j < nb; ++j)
            for (int i = j; i < nb; ++i)
                X[i + (size_t)j * nb] = X[j + (size_t)i * nb] = out[la_at(&L.m[b], up, i, j)];
        ref_inverse(nb, dt, G[b], R);
        double num = 0, den = 0, na = 0, nx = 0, res = 0;
        for (int j = 0; j < nb; ++j)
            for (int i = j; i < nb; ++i) {
                double d = X[i + (size_t)j * nb] - R[i + (size_t)j * nb];
                num += d * d;
                den += R[i + (size_t)j * nb] * R[i + (size_t)j * nb];
            }
        for (int j = 0; j < nb; ++j)
            for (int i = 0; i < nb; ++i) {
                double s = 0;
                for (int k = 0; k < nb; ++k) s += G[b][i + (size_t)k * nb] * X[k + (size_t)j * nb];
                s -= i == j;
                res += s * s;
                na += G[b][i + (size_t)j * nb] * G[b][i + (size_t)j * nb];
                nx += X[i + (size_t)j * nb] * X[i + (size_t)j * nb];
            }
        const double rel = sqrt(num / den), rr = sqrt(res) / (sqrt(na) * sqrt(nx));
        const double tol = 16.0 * (nb + 2) * eps;
        TU_ASSERT(rel <= tol * 4, ti, "%s: matrix %d (n = %d, %s): ‖X − A⁻¹‖/‖A⁻¹‖ = %.3g > %.3g",
                  what, b, nb, up ? "upper" : "lower", rel, tol * 4);
        TU_ASSERT(rr <= tol, ti, "%s: matrix %d (n = %d): ‖AX − I‖/(‖A‖‖X‖) = %.3g > %.3g", what,
                  b, nb, rr, tol);
        free(X);
        free(R);
    }
    la_assert_untouched(ti, &L, up, out, what);
    free(out);
    free(info);
    gala_buffer_free(buf);
    for (int b = 0; b < count; ++b) free(G[b]);
    free(G);
    la_layout_free(&L);
}

static const int sizes[] = {1, 2, 3, 16, 33, 64, 65, 130, 200};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

START_TEST(potri_sizes)
{
    tu_rng r = tu_rng_for(__func__, _i);
    for (int s = 0; s < NSIZES; ++s) {
        int n = sizes[s], n3[3] = {n, n, n};
        char what[64];
        snprintf(what, sizeof what, "single n=%d", n);
        run_inverse(_i, &r, 1, &n, s & 1, 0, what);
        snprintf(what, sizeof what, "batched n=%d", n);
        run_inverse(_i, &r, 3, n3, !(s & 1), 1, what);
    }
    int big[200];
    for (int b = 0; b < 200; ++b) big[b] = 12;
    run_inverse(_i, &r, 200, big, 0, 1, "batch 200 of n=12");
}
END_TEST

START_TEST(potri_vbatched)
{
    tu_rng r = tu_rng_for(__func__, _i);
    for (int rep = 0; rep < 2; ++rep) {
        int n[60];
        for (int b = 0; b < 60; ++b) {
            double u = tu_uniform(&r);
            n[b] = u < 0.05 ? 0 : u < 0.5 ? tu_int(&r, 1, 16) : u < 0.85 ? tu_int(&r, 17, 64)
                                                              : tu_int(&r, 65, 150);
        }
        run_inverse(_i, &r, 60, n, rep, 2, "vbatched");
    }
}
END_TEST

/* Failures come from trtri on the factor: a zero diagonal entry, a NaN. */
START_TEST(potri_failures)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    static const int ns[] = {10, 90};
    for (int t = 0; t < 2; ++t)
        for (int api = 0; api < 2; ++api) {
            const int n = ns[t], count = 4;
            int nn[4] = {n, n, n, n};
            la_layout L = la_layout_make(&r, count, nn, NULL, 1);
            if (api == 0) { /* uniform stride for the batched API */
                const int ld = n;
                for (int b = 0; b < count; ++b) L.m[b].ld = ld, L.m[b].off = (size_t)b * ld * n;
            }
            double *G = malloc((size_t)n * n * sizeof *G);
            int expect[4] = {0, 0, 0, 0};
            for (int b = 0; b < count; ++b) {
                la_spd(&r, n, 1.0, dt, G);
                la_put_tri(&L, b, 0, G);
            }
            gala_buffer *buf = la_upload(ctx, dt, &L);
            for (int b = 0; b < count; ++b)
                TU_OK(ctx, gala_potrf(ctx, GALA_LOWER, n, buf, L.m[b].off, L.m[b].ld, NULL));
            tu_download(buf, 0, L.v, L.len); /* the factors, as the reference "before" */
            /* matrix 1: zero diagonal at k; matrix 3: NaN in column k (below the diagonal) */
            const int k1 = tu_int(&r, 1, n), k3 = tu_int(&r, 1, n - 1);
            L.v[la_at(&L.m[1], 0, k1 - 1, k1 - 1)] = 0;
            L.v[la_at(&L.m[3], 0, n - 1, k3 - 1)] = NAN;
            expect[1] = k1;
            expect[3] = -k3;
            gala_buffer_free(buf);
            buf = la_upload(ctx, dt, &L);
            int info[4];
            gala_status st;
            if (api == 0) {
                st = gala_potri_batched(ctx, GALA_LOWER, n, buf, 0, n, (size_t)n * n, count, info);
            } else {
                int ld[4];
                size_t off[4];
                for (int b = 0; b < count; ++b) ld[b] = L.m[b].ld, off[b] = L.m[b].off;
                st = gala_potri_vbatched(ctx, GALA_LOWER, nn, buf, off, ld, count, info);
            }
            TU_ASSERT(st == GALA_ERR_NOT_FINITE, _i, "potri with failures: status %s (%s)",
                      gala_status_string(st), gala_last_error(ctx));
            TU_ASSERT(strstr(gala_last_error(ctx), "gala_potri") && strstr(gala_last_error(ctx), "matrix 1"),
                      _i, "message: %s", gala_last_error(ctx));
            double *out = malloc(L.len * sizeof *out);
            tu_download(buf, 0, out, L.len);
            for (int b = 0; b < count; ++b) {
                TU_ASSERT(info[b] == expect[b], _i, "n=%d: info[%d] = %d, expected %d", n, b,
                          info[b], expect[b]);
                if (expect[b] == 0) continue;
                for (int j = 0; j < n; ++j) /* failed: left as it was */
                    for (int i = j; i < n; ++i) {
                        size_t e = la_at(&L.m[b], 0, i, j);
                        TU_ASSERT((isnan(out[e]) && isnan(L.v[e])) || out[e] == L.v[e], _i,
                                  "n=%d: failed matrix %d changed at (%d,%d)", n, b, i, j);
                    }
            }
            /* a good one is the inverse: A·X = I with A from its factor */
            for (int b = 0; b < count; b += 2) {
                double *F = calloc((size_t)n * n, sizeof *F), *X = malloc((size_t)n * n * sizeof *X);
                for (int j = 0; j < n; ++j)
                    for (int i = j; i < n; ++i) {
                        F[i + (size_t)j * n] = L.v[la_at(&L.m[b], 0, i, j)];
                        X[i + (size_t)j * n] = X[j + (size_t)i * n] = out[la_at(&L.m[b], 0, i, j)];
                    }
                double worst = 0;
                for (int j = 0; j < n; ++j)
                    for (int i = 0; i < n; ++i) {
                        /* (F·Fᵀ·X)(i,j) */
                        double s = 0;
                        for (int p = 0; p < n; ++p) {
                            double fx = 0;
                            for (int q = p; q < n; ++q) fx += F[q + (size_t)p * n] * X[q + (size_t)j * n];
                            s += F[i + (size_t)p * n] * fx;
                        }
                        worst = fmax(worst, fabs(s - (i == j)));
                    }
                TU_ASSERT(worst <= 64.0 * n * tu_eps(dt) * 10, _i, "n=%d: good matrix %d: max |AX − I| = %.3g",
                          n, b, worst);
                free(F);
                free(X);
            }
            free(out);
            free(G);
            gala_buffer_free(buf);
            la_layout_free(&L);
        }
}
END_TEST

/* The updates of strided batches (factor and product) through gala's GEMM kernel
 * (lagemm.tc; la_own_gemm_tunes): single and batched, both triangles, orders of one and
 * several blocks. */
START_TEST(potri_own_gemm)
{
    tu_rng r = tu_rng_for(__func__, _i);
    const char *tunes[LA_OWN_GEMM];
    const int nt = la_own_gemm_tunes(tu_ctx(_i), tu_target_get(_i)->dtype, tunes);
    static const int ns[] = {65, 130};
    for (int t = 0; t < nt; ++t) {
        la_tune(tunes[t]);
        for (int s = 0; s < 2; ++s) {
            int n = ns[s], n3[3] = {n, n, n};
            char what[200];
            snprintf(what, sizeof what, "n=%d with %s", n, tunes[t]);
            run_inverse(_i, &r, 1, &n, (t + s) & 1, 0, what);
            run_inverse(_i, &r, 3, n3, (t + s + 1) & 1, 1, what);
        }
        la_tune(NULL);
    }
}
END_TEST

/* One matrix through the BLAS-3 lauum (pi_lauum_blas3): block rows of potri.blas3_nb (one,
 * several, a partial last one; widths of 64, 96, 128 and 256), both triangles; and with the
 * defaults, one block row (300) and two (1030). On backends without BLAS-3 these take the
 * N-row form. */
START_TEST(potri_blas3)
{
    tu_rng r = tu_rng_for(__func__, _i);
    static const struct { const char *tune; int n; } cases[] = {
        {"potri.blas3_min=1,potri.blas3_nb=128", 1},
        {"potri.blas3_min=1,potri.blas3_nb=128", 100},
        {"potri.blas3_min=1,potri.blas3_nb=128", 300},
        {"potri.blas3_min=2,potri.blas3_nb=64", 130},
        {"potri.blas3_min=64,potri.blas3_nb=96,potri.nb=32", 200},
        {"potri.blas3_min=64,potri.blas3_nb=256,potri.nb=16", 257},
        {NULL, 300},
        {NULL, 1030},
    };
    for (int t = 0; t < (int)(sizeof cases / sizeof cases[0]); ++t) {
        la_tune(cases[t].tune);
        int n = cases[t].n;
        char what[160];
        for (int up = 0; up < 2; ++up) {
            if (n > 500 && up != (_i & 1)) continue; /* one triangle per target at 1030 */
            snprintf(what, sizeof what, "single n=%d with %s", n,
                     cases[t].tune ? cases[t].tune : "the defaults");
            run_inverse(_i, &r, 1, &n, up, 0, what);
        }
        la_tune(NULL);
    }
}
END_TEST

START_TEST(potri_unrolled)
{
    if (tu_target_get(_i)->backend == GALA_BACKEND_HOST) return;
    tu_rng r = tu_rng_for(__func__, _i);
    la_tune("la.unroll=1,la.min_bucket=8,potri.nb=8,lagemm.tile=16,lagemm.td=4,lagemm.tk=8");
    int n3[3] = {6, 6, 6}, m3[3] = {21, 21, 21};
    run_inverse(_i, &r, 3, n3, 0, 1, "unrolled fused lauum");
    run_inverse(_i, &r, 3, m3, 1, 1, "unrolled blocked lauum");
    la_tune(NULL);
}
END_TEST

/* A device with 32 KiB of local memory (Mesa's llvmpipe has that much, and so may a GPU):
 * potri's blocks of 64 stage 64·65 values, 33 KB in double, so it takes blocks of 32 there
 * (and keeps 64 in float, 17 KB); the inverse is right either way. A context of the
 * target's device that reports 32 KiB (smaller than the device has: safe). */
START_TEST(potri_small_local_memory)
{
    const tu_target *t = tu_target_get(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = t->backend;
    TU_OK(NULL, gala_context_create(&o, &ctx_instead));
    ctx_instead->info.local_mem_bytes = 32768;
    int n = 100;
    run_inverse(_i, &r, 1, &n, _i & 1, 0, "n=100 with 32 KiB of local memory");
    int n64 = 0;
    char fam[32], opts[768];
    for (int i = 0; gala_program_nth(ctx_instead, i, fam, sizeof fam, opts, sizeof opts); ++i)
        if (strcmp(fam, "potri") == 0) {
            const char *d = strstr(opts, " -DN=64");
            n64 += d && (d[7] == ' ' || d[7] == '\0');
        }
    if (t->dtype == GALA_DOUBLE)
        TU_ASSERT(n64 == 0, _i, "potri asked for blocks of 64 in double with 32 KiB");
    else
        TU_ASSERT(n64 > 0, _i, "potri did not use blocks of 64 in float with 32 KiB");
    gala_context_destroy(ctx_instead);
    ctx_instead = NULL;
}
END_TEST

START_TEST(potri_bad_arguments)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *A = tu_poisoned(ctx, dt, 100);
    int info[4];
    ck_assert_int_eq(gala_potri(NULL, GALA_LOWER, 3, A, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potri(ctx, (gala_uplo)1, 3, A, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potri(ctx, GALA_LOWER, 3, A, 0, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "gala_potri:") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_potri(ctx, GALA_LOWER, 11, A, 0, 11, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potri_batched(ctx, GALA_LOWER, 3, A, 0, 3, 5, 2, info),
                     GALA_ERR_INVALID_ARG);
    int n2[2] = {3, 3}, ld2[2] = {3, 3};
    size_t off2[2] = {0, 4};
    ck_assert_int_eq(gala_potri_vbatched(ctx, GALA_LOWER, n2, A, off2, ld2, 2, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potri_vbatched(ctx, GALA_LOWER, n2, A, NULL, ld2, 2, info),
                     GALA_ERR_INVALID_ARG);
    info[0] = 3;
    TU_OK(ctx, gala_potri(ctx, GALA_LOWER, 0, A, 0, 1, info));
    ck_assert_int_eq(info[0], 0);
    TU_OK(ctx, gala_potri_vbatched(ctx, GALA_UPPER, NULL, A, NULL, NULL, 0, NULL));
    double v[100];
    tu_download(A, 0, v, 100);
    for (int i = 0; i < 100; ++i) ck_assert(isnan(v[i]));
    gala_buffer_free(A);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("potri");
    TCase *tc = tcase_create("potri");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, potri_sizes, 0, nt);
    tcase_add_loop_test(tc, potri_vbatched, 0, nt);
    tcase_add_loop_test(tc, potri_failures, 0, nt);
    tcase_add_loop_test(tc, potri_own_gemm, 0, nt);
    tcase_add_loop_test(tc, potri_blas3, 0, nt);
    tcase_add_loop_test(tc, potri_unrolled, 0, nt);
    tcase_add_loop_test(tc, potri_small_local_memory, 0, nt);
    tcase_add_loop_test(tc, potri_bad_arguments, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
