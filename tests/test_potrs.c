/*
 * Solves with a Cholesky factor (potrs) on every target: residuals ‖A·X − B‖ / (‖A‖·‖X‖ +
 * ‖B‖) in double against the original SPD matrices, with 1 and 17 right-hand sides (and
 * more than one pass per work-group), both triangles, single / batched (also with one
 * factor shared by the batch) / variable batches, the fused, blocked and TRSM paths, and
 * everything outside the right-hand sides untouched. The factors come from one
 * gala_potrf_vbatched call (tested in test_potrf.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "la_check.h"

typedef struct solve_case {
    int count, api, up, shared; /* api: 0 single, 1 batched, 2 vbatched; shared: a_stride 0 */
    const int *n, *nrhs;
} solve_case;

static void run_solve(int ti, tu_rng *r, const solve_case *c, const char *what)
{
    gala_context *ctx = tu_ctx(ti);
    gala_dtype dt = tu_target_get(ti)->dtype;
    const double eps = tu_eps(dt);
    const int count = c->count, up = c->up;
    /* factors: one layout; right-hand sides: another, in a separate buffer */
    int nf = c->shared ? 1 : count;
    la_layout LA = la_layout_make(r, nf, c->n, NULL, 2);
    la_layout LB = la_layout_make(r, count, c->n, c->nrhs, 2);
    if (c->api == 1 && count > 1) {
        /* uniform strides for the batched API: re-lay both */
        la_layout_free(&LA);
        la_layout_free(&LB);
        const int n = c->n[0], k = c->nrhs[0];
        const int lda = n + tu_int(r, 0, 2), ldb = (n > 1 ? n : 1) + tu_int(r, 0, 2);
        const size_t as = c->shared ? 0 : (size_t)lda * n + (size_t)tu_int(r, 0, 3);
        const size_t bs = (size_t)ldb * k + (size_t)tu_int(r, 0, 3);
        LA.count = nf;
        LA.m = calloc((size_t)nf, sizeof *LA.m);
        LB.count = count;
        LB.m = calloc((size_t)count, sizeof *LB.m);
        for (int b = 0; b < nf; ++b) LA.m[b] = (la_mat){n, lda, n, 1 + (size_t)b * as};
        for (int b = 0; b < count; ++b) LB.m[b] = (la_mat){n, ldb, k, 3 + (size_t)b * bs};
        LA.len = 1 + (size_t)(nf - 1) * as + (size_t)lda * n + 1;
        LB.len = 3 + (size_t)(count - 1) * bs + (size_t)ldb * k + 1;
        LA.v = malloc(LA.len * sizeof *LA.v);
        LB.v = malloc(LB.len * sizeof *LB.v);
        for (size_t i = 0; i < LA.len; ++i) LA.v[i] = NAN;
        for (size_t i = 0; i < LB.len; ++i) LB.v[i] = NAN;
    }
    double **G = calloc((size_t)nf, sizeof *G);
    for (int b = 0; b < nf; ++b) {
        const int n = c->n[b];
        G[b] = malloc(((size_t)n * n + 1) * sizeof(double));
        la_spd(r, n, 0.5 + tu_uniform(r), dt, G[b]);
        la_put_tri(&LA, b, up, G[b]);
    }
    for (int b = 0; b < count; ++b) {
        const la_mat *m = &LB.m[b];
        for (int j = 0; j < m->cols; ++j)
            for (int i = 0; i < m->n; ++i) LB.v[m->off + (size_t)i + (size_t)j * m->ld] = tu_normal(r);
    }
    tu_round(dt, LB.v, LB.len);
    gala_buffer *bA = la_upload(ctx, dt, &LA), *bB = la_upload(ctx, dt, &LB);
    const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
    /* factor: one call for all (thousands of single calls cost a launch and a read each,
     * which on Mesa's llvmpipe is about a millisecond) */
    {
        la_vb vb = la_vb_of(&LA);
        TU_OK(ctx, gala_potrf_vbatched(ctx, ul, vb.n, bA, vb.off, vb.ld, nf, NULL));
        la_vb_free(&vb);
    }
    double *fac = malloc(LA.len * sizeof *fac);
    tu_download(bA, 0, fac, LA.len);
    /* solve */
    if (c->api == 0) {
        TU_OK(ctx, gala_potrs(ctx, ul, c->n[0], c->nrhs[0], bA, LA.m[0].off, LA.m[0].ld, bB,
                              LB.m[0].off, LB.m[0].ld));
    } else if (c->api == 1) {
        size_t as = c->shared || count < 2 ? 0 : LA.m[1].off - LA.m[0].off;
        size_t bs = count < 2 ? 0 : LB.m[1].off - LB.m[0].off;
        TU_OK(ctx, gala_potrs_batched(ctx, ul, c->n[0], c->nrhs[0], bA, LA.m[0].off, LA.m[0].ld,
                                      as, bB, LB.m[0].off, LB.m[0].ld, bs, count));
    } else {
        size_t *ao = malloc((size_t)count * sizeof *ao), *bo = malloc((size_t)count * sizeof *bo);
        int *lda = malloc((size_t)count * sizeof *lda), *ldb = malloc((size_t)count * sizeof *ldb);
        for (int b = 0; b < count; ++b) {
            const la_mat *ma = &LA.m[c->shared ? 0 : b];
            ao[b] = ma->off;
            lda[b] = ma->ld;
            bo[b] = LB.m[b].off;
            ldb[b] = LB.m[b].ld;
        }
        TU_OK(ctx, gala_potrs_vbatched(ctx, ul, c->n, c->nrhs, bA, ao, lda, bB, bo, ldb, count));
        free(ao);
        free(bo);
        free(lda);
        free(ldb);
    }
    double *X = malloc(LB.len * sizeof *X), *fac2 = malloc(LA.len * sizeof *fac2);
    tu_download(bB, 0, X, LB.len);
    tu_download(bA, 0, fac2, LA.len);
    for (size_t e = 0; e < LA.len; ++e)
        TU_ASSERT((isnan(fac[e]) && isnan(fac2[e])) || fac[e] == fac2[e], ti,
                  "%s: potrs changed the factor buffer at %zu", what, e);
    for (int b = 0; b < count; ++b) {
        const la_mat *m = &LB.m[b];
        const int n = m->n, k = m->cols;
        const double *Gb = G[c->shared ? 0 : b];
        double na = 0, nx = 0, nb = 0, nr = 0;
        for (size_t e = 0; e < (size_t)n * n; ++e) na += Gb[e] * Gb[e];
        for (int j = 0; j < k; ++j) {
            const double *x = X + m->off + (size_t)j * m->ld, *bb = LB.v + m->off + (size_t)j * m->ld;
            for (int i = 0; i < n; ++i) {
                double s = 0;
                for (int p = 0; p < n; ++p) s += Gb[i + (size_t)p * n] * x[p];
                nr += (s - bb[i]) * (s - bb[i]);
                nx += x[i] * x[i];
                nb += bb[i] * bb[i];
            }
        }
        double res = sqrt(nr) / (sqrt(na) * sqrt(nx) + sqrt(nb) + 1e-300);
        double tol = 8.0 * (n + 2) * eps;
        TU_ASSERT(res == res && res <= tol, ti, "%s: matrix %d (n = %d, nrhs = %d, %s): residual "
                  "%.3g > %.3g", what, b, n, k, up ? "upper" : "lower", res, tol);
    }
    unsigned char *mask = la_mask(&LB, up, 0);
    long bad = la_untouched(&LB, mask, X);
    TU_ASSERT(bad < 0, ti, "%s: element %ld outside the right-hand sides changed", what, bad);
    free(mask);
    free(X);
    free(fac);
    free(fac2);
    gala_buffer_free(bA);
    gala_buffer_free(bB);
    for (int b = 0; b < nf; ++b) free(G[b]);
    free(G);
    la_layout_free(&LA);
    la_layout_free(&LB);
}

static const int sizes[] = {1, 2, 5, 16, 32, 33, 64, 65, 130, 300};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

START_TEST(potrs_sizes)
{
    tu_rng r = tu_rng_for(__func__, _i);
    for (int s = 0; s < NSIZES; ++s)
        for (int q = 0; q < 2; ++q) {
            const int k = q ? 17 : 1;
            int n3[3] = {sizes[s], sizes[s], sizes[s]}, k3[3] = {k, k, k};
            char what[64];
            snprintf(what, sizeof what, "single n=%d nrhs=%d", sizes[s], k);
            solve_case c1 = {1, 0, (s + q) & 1, 0, n3, k3};
            run_solve(_i, &r, &c1, what);
            snprintf(what, sizeof what, "batched n=%d nrhs=%d", sizes[s], k);
            solve_case c3 = {3, 1, (s + q + 1) & 1, 0, n3, k3};
            run_solve(_i, &r, &c3, what);
        }
}
END_TEST

/* The blocked backward pass both ways (potrs.rl: 1 right-looking, the default; 0
 * left-looking): single, batched and variable batches (orders of one to five blocks, so
 * that a matrix is active in some steps only), both triangles, 1 and 17 right-hand sides. */
START_TEST(potrs_backward_forms)
{
    tu_rng r = tu_rng_for(__func__, _i);
    /* potrs.sweep_min=0: the single matrix of order 257 takes the blocked path too */
    static const char *tunes[] = {"potrs.rl=0,potrs.sweep_min=0", "potrs.rl=1,potrs.sweep_min=0"};
    for (int t = 0; t < 2; ++t) {
        la_tune(tunes[t]);
        for (int q = 0; q < 2; ++q) {
            const int k = q ? 17 : 1;
            int n1[3] = {257, 257, 257}, nv[3] = {300, 70, 129}, k3[3] = {k, k, k};
            char what[96];
            snprintf(what, sizeof what, "n=257 nrhs=%d with %s", k, tunes[t]);
            solve_case c1 = {1, 0, (t + q) & 1, 0, n1, k3};
            run_solve(_i, &r, &c1, what);
            solve_case c3 = {3, 1, (t + q + 1) & 1, 0, n1, k3};
            run_solve(_i, &r, &c3, what);
            snprintf(what, sizeof what, "vbatched 300/70/129 nrhs=%d with %s", k, tunes[t]);
            solve_case cv = {3, 2, (t + q) & 1, 0, nv, k3};
            run_solve(_i, &r, &cv, what);
        }
    }
    la_tune(NULL);
}
END_TEST

START_TEST(potrs_many_rhs)
{
    tu_rng r = tu_rng_for(__func__, _i);
    static const int ns[] = {20, 100};
    for (int s = 0; s < 2; ++s) {
        int n2[2] = {ns[s], ns[s]}, k2[2] = {101, 101};
        solve_case c = {2, 1, s, 0, n2, k2};
        run_solve(_i, &r, &c, "nrhs=101");
    }
}
END_TEST

START_TEST(potrs_batches)
{
    tu_rng r = tu_rng_for(__func__, _i);
    /* a batch of tens of thousands; on a slow device 5000 (still thousands, several
     * work-groups' worth of passes) */
    static const struct { int n, nrhs, batch, shared; } cases[] = {
        {8, 1, 50000, 0}, {16, 17, 1000, 0}, {3, 2, 1000, 1}, {70, 1, 40, 1}};
    for (int t = 0; t < 4; ++t) {
        const int count = t ? cases[t].batch : tu_size(cases[t].batch, 5000, "potrs_batches");
        int *n = malloc((size_t)count * sizeof *n), *k = malloc((size_t)count * sizeof *k);
        for (int b = 0; b < count; ++b) {
            n[b] = cases[t].n;
            k[b] = cases[t].nrhs;
        }
        char what[96];
        snprintf(what, sizeof what, "batch %d n=%d nrhs=%d%s", count, cases[t].n,
                 cases[t].nrhs, cases[t].shared ? " (one shared factor)" : "");
        solve_case c = {count, 1, t & 1, cases[t].shared, n, k};
        run_solve(_i, &r, &c, what);
        free(n);
        free(k);
    }
}
END_TEST

START_TEST(potrs_vbatched)
{
    tu_rng r = tu_rng_for(__func__, _i);
    for (int rep = 0; rep < 2; ++rep) {
        const int count = 120;
        int n[120], k[120];
        for (int b = 0; b < count; ++b) {
            double u = tu_uniform(&r);
            n[b] = u < 0.05 ? 0 : u < 0.5 ? tu_int(&r, 1, 16) : u < 0.85 ? tu_int(&r, 17, 64)
                                                              : tu_int(&r, 65, 200);
            k[b] = tu_uniform(&r) < 0.05 ? 0 : tu_int(&r, 1, rep ? 40 : 3);
        }
        solve_case c = {count, 2, rep, 0, n, k};
        run_solve(_i, &r, &c, "vbatched");
    }
}
END_TEST

/* The TRSM path (one matrix, BLAS-3) and other block widths, through lowered thresholds. */
START_TEST(potrs_paths)
{
    tu_rng r = tu_rng_for(__func__, _i);
    const int clblast_double = tu_target_get(_i)->backend != GALA_BACKEND_HOST &&
                               tu_target_get(_i)->dtype == GALA_DOUBLE;
    int n = 150;
    if (!clblast_double) { /* CLBlast's double kernels: see test_potrf.c */
        /* 17 right-hand sides, and one (CUDA's default: potrs.sweep_rhs_min = 2 there) */
        static const int ks[] = {17, 1};
        la_tune("potrf.blas3_min=100,potrs.blas3_nrhs=1");
        for (int up = 0; up < 2; ++up)
            for (int q = 0; q < 2; ++q) {
                solve_case c = {1, 0, up, 0, &n, &ks[q]};
                run_solve(_i, &r, &c, q ? "TRSM path, one right-hand side" : "TRSM path");
            }
    }
    la_tune("potrs.nb=16,potrs.fused_max=8,potrs.rc=3,potrs.chunks=2,la.min_bucket=8");
    int n3[3] = {40, 40, 40}, k3[3] = {7, 7, 7};
    for (int up = 0; up < 2; ++up) {
        solve_case c = {3, 1, up, 0, n3, k3};
        run_solve(_i, &r, &c, "blocked, nb=16, rc=3");
    }
    la_tune(NULL);
}
END_TEST

/* The updates of strided batches (factor and solve) through gala's GEMM kernel (lagemm.tc;
 * la_own_gemm_tunes): single and batched, both triangles, 1 and 17 right-hand sides, orders
 * of one and several blocks, and the blocked solve's narrow blocks. */
START_TEST(potrs_own_gemm)
{
    tu_rng r = tu_rng_for(__func__, _i);
    const char *tunes[LA_OWN_GEMM];
    const int nt = la_own_gemm_tunes(tu_ctx(_i), tu_target_get(_i)->dtype, tunes);
    static const int ns[] = {65, 130};
    for (int t = 0; t < nt; ++t) {
        la_tune(tunes[t]);
        for (int s = 0; s < 2; ++s)
            for (int q = 0; q < 2; ++q) {
                const int k = q ? 17 : 1;
                int n3[3] = {ns[s], ns[s], ns[s]}, k3[3] = {k, k, k};
                char what[200];
                snprintf(what, sizeof what, "n=%d nrhs=%d with %s", ns[s], k, tunes[t]);
                solve_case c1 = {1, 0, (t + s + q) & 1, 0, n3, k3};
                run_solve(_i, &r, &c1, what);
                solve_case c3 = {3, 1, (t + s + q + 1) & 1, 0, n3, k3};
                run_solve(_i, &r, &c3, what);
            }
        char tune[300];
        snprintf(tune, sizeof tune, "potrs.nb=16,potrs.fused_max=8,potrs.rc=3,potrs.chunks=2,"
                 "la.min_bucket=8,%s", tunes[t]);
        la_tune(tune);
        int n3[3] = {40, 40, 40}, k3[3] = {7, 7, 7};
        for (int up = 0; up < 2; ++up) {
            solve_case c = {3, 1, up, 0, n3, k3};
            run_solve(_i, &r, &c, tune);
        }
        la_tune(NULL);
    }
}
END_TEST

/* The sweep of one matrix (potrs_sweep, inverted diagonal blocks): through the single and
 * the batched API (batch 1); orders of one block (a launch that applies both inverses),
 * two whole blocks, and several blocks with a partial last one; right-hand sides fewer
 * than, equal to and more than one group's RC (a partial last group); both triangles;
 * narrow blocks and work-groups (products with sp = 1 over several slices, sj = 1 with TL
 * equal to and above WG/N) and the default geometry. Few distinct programs: each costs a
 * compilation (CPU OpenCL in CI). */
START_TEST(potrs_sweep)
{
    tu_rng r = tu_rng_for(__func__, _i);
    static const struct { const char *tune; int n[2], k[2]; } cases[] = {
        {"potrs.sweep_min=1,potrs.fused_max=8,potrs.sweep_nb=16,potrs.sweep_wg=64,"
         "potrs.sweep_rc=2,potrs.sweep_tl=4",
         {16, 70}, {1, 3}},
        {"potrs.sweep_min=1,potrs.fused_max=8,potrs.sweep_nb=32,potrs.sweep_wg=32,"
         "potrs.sweep_rc=3,potrs.sweep_tl=32",
         {64, 97}, {3, 4}},
        {"potrs.sweep_min=1", {100, 300}, {1, 17}},
    };
    for (int t = 0; t < 3; ++t) {
        la_tune(cases[t].tune);
        for (int a = 0; a < 2; ++a)
            for (int q = 0; q < 2; ++q) {
                int n1 = cases[t].n[a], k1 = cases[t].k[q];
                char what[300];
                snprintf(what, sizeof what, "sweep n=%d nrhs=%d with %s", n1, k1, cases[t].tune);
                solve_case c = {1, (a + q) & 1, (a + q + t) & 1, 0, &n1, &k1};
                run_solve(_i, &r, &c, what);
            }
    }
    la_tune(NULL);
}
END_TEST

/* A factor with a zero on its diagonal: the sweep's inverted block is refused by trtri and
 * the solution is NaN/Inf, not finite values from stale workspace (as substitution would
 * give Inf). */
START_TEST(potrs_sweep_singular)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    la_tune("potrs.sweep_min=1,potrs.fused_max=8,potrs.sweep_nb=16,potrs.sweep_wg=64");
    const int n = 50;
    for (int up = 0; up < 2; ++up) {
        double *L = calloc((size_t)n * n, sizeof *L), *x = malloc((size_t)n * sizeof *x);
        for (int i = 0; i < n; ++i) L[i + (size_t)i * n] = 2.0;
        L[20 + (size_t)20 * n] = 0.0; /* block 1 of 16 */
        for (int i = 0; i < n; ++i) x[i] = 1.0;
        gala_buffer *bA = tu_upload(ctx, dt, L, (size_t)n * n), *bB = tu_upload(ctx, dt, x, n);
        for (int i = 0; i < n; ++i) x[i] = 0.0;
        TU_OK(ctx, gala_potrs(ctx, up ? GALA_UPPER : GALA_LOWER, n, 1, bA, 0, n, bB, 0, n));
        tu_download(bB, 0, x, n);
        int nonfinite = 0;
        for (int i = 0; i < n; ++i) nonfinite += !isfinite(x[i]);
        TU_ASSERT(nonfinite > 0, _i, "zero pivot at 20 (%s): every element of x finite (x[20] "
                  "= %g)", up ? "upper" : "lower", x[20]);
        gala_buffer_free(bA);
        gala_buffer_free(bB);
        free(L);
        free(x);
    }
    la_tune(NULL);
}
END_TEST

START_TEST(potrs_unrolled)
{
    if (tu_target_get(_i)->backend == GALA_BACKEND_HOST) return;
    tu_rng r = tu_rng_for(__func__, _i);
    /* N = 8 only: CPU OpenCL compiles unrolled barrier loops slowly */
    la_tune("la.unroll=1,la.min_bucket=8,potrs.fused_max=8,potrs.nb=8,potrs.rc=2,lagemm.tile=16,"
            "lagemm.td=4,lagemm.tk=8");
    int n3[3] = {6, 6, 6}, m3[3] = {21, 21, 21}, k3[3] = {5, 5, 5};
    solve_case c = {3, 1, 0, 0, n3, k3}, d = {3, 1, 1, 0, m3, k3};
    run_solve(_i, &r, &c, "unrolled fused");
    run_solve(_i, &r, &d, "unrolled blocked");
    la_tune(NULL);
}
END_TEST

START_TEST(potrs_bad_arguments)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *A = tu_poisoned(ctx, dt, 100), *B = tu_poisoned(ctx, dt, 100), *I32;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 100, &I32));
    ck_assert_int_eq(gala_potrs(NULL, GALA_LOWER, 3, 1, A, 0, 3, B, 0, 3), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrs(ctx, (gala_uplo)0, 3, 1, A, 0, 3, B, 0, 3), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrs(ctx, GALA_LOWER, 3, -1, A, 0, 3, B, 0, 3), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrs(ctx, GALA_LOWER, 3, 1, A, 0, 3, B, 0, 2), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "gala_potrs:") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_potrs(ctx, GALA_LOWER, 3, 40, A, 0, 3, B, 0, 3), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrs(ctx, GALA_LOWER, 3, 1, A, 0, 3, I32, 0, 3), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrs(ctx, GALA_LOWER, 3, 1, I32, 0, 3, B, 0, 3), GALA_ERR_INVALID_ARG);
    /* B overlapping A */
    ck_assert_int_eq(gala_potrs(ctx, GALA_LOWER, 3, 2, A, 0, 3, A, 5, 3), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "overlap") != NULL, "%s", gala_last_error(ctx));
    /* right-hand sides of a batch overlapping each other; a shared factor is fine */
    ck_assert_int_eq(gala_potrs_batched(ctx, GALA_LOWER, 3, 2, A, 0, 3, 9, B, 0, 3, 3, 4),
                     GALA_ERR_INVALID_ARG);
    double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, rhs[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    gala_buffer *E = tu_upload(ctx, dt, eye, 9), *R = tu_upload(ctx, dt, rhs, 12);
    TU_OK(ctx, gala_potrs_batched(ctx, GALA_UPPER, 3, 1, E, 0, 3, 0, R, 0, 3, 3, 4));
    double out[12];
    tu_download(R, 0, out, 12);
    for (int i = 0; i < 12; ++i) ck_assert(out[i] == rhs[i]);
    /* variable batches */
    int n2[2] = {3, 3}, k2[2] = {1, 1}, ld2[2] = {3, 3};
    size_t ao[2] = {0, 9}, bo[2] = {0, 3}, bov[2] = {0, 1};
    ck_assert_int_eq(gala_potrs_vbatched(ctx, GALA_LOWER, n2, NULL, A, ao, ld2, B, bo, ld2, 2),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrs_vbatched(ctx, GALA_LOWER, n2, k2, A, ao, ld2, B, bov, ld2, 2),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrs_vbatched(ctx, GALA_LOWER, n2, k2, A, ao, ld2, A, bo, ld2, 2),
                     GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "overlaps") != NULL, "%s", gala_last_error(ctx));
    /* zero sizes do nothing */
    TU_OK(ctx, gala_potrs(ctx, GALA_LOWER, 0, 5, A, 0, 1, B, 0, 1));
    TU_OK(ctx, gala_potrs(ctx, GALA_LOWER, 3, 0, A, 0, 3, B, 0, 3));
    TU_OK(ctx, gala_potrs_vbatched(ctx, GALA_LOWER, NULL, NULL, A, NULL, NULL, B, NULL, NULL, 0));
    double v[100];
    tu_download(B, 0, v, 100);
    for (int i = 0; i < 100; ++i) ck_assert(isnan(v[i]));
    gala_buffer_free(A);
    gala_buffer_free(B);
    gala_buffer_free(E);
    gala_buffer_free(R);
    gala_buffer_free(I32);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("potrs");
    TCase *tc = tcase_create("potrs");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, potrs_sizes, 0, nt);
    tcase_add_loop_test(tc, potrs_backward_forms, 0, nt);
    tcase_add_loop_test(tc, potrs_many_rhs, 0, nt);
    tcase_add_loop_test(tc, potrs_batches, 0, nt);
    tcase_add_loop_test(tc, potrs_vbatched, 0, nt);
    tcase_add_loop_test(tc, potrs_paths, 0, nt);
    tcase_add_loop_test(tc, potrs_own_gemm, 0, nt);
    tcase_add_loop_test(tc, potrs_sweep, 0, nt);
    tcase_add_loop_test(tc, potrs_sweep_singular, 0, nt);
    tcase_add_loop_test(tc, potrs_unrolled, 0, nt);
    tcase_add_loop_test(tc, potrs_bad_arguments, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
