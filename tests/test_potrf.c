/*
 * Cholesky factorization (potrf.h) on every target: residuals ‖L·Lᵀ − A‖/‖A‖ and agreement
 * with LAPACKE s/dpotrf, the other triangle and the gaps between matrices untouched (NaN
 * poison), single / batched / variable batches, every algorithm (fused, blocked, BLAS-3
 * left- and right-looking, tall block columns in sub-steps: small thresholds through
 * GALA_TUNE), failures (info), bad arguments.
 *
 * Sizes: n = 1 … 1000 on every target; n = 3000 once (host, double) and n = 4096 once
 * (float, the OpenCL target when there is one, else the host); under sanitizers the two
 * large cases are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "la_check.h"

static int is_up(int k) { return k & 1; }

/* `count` matrices of order n at a uniform stride (one random ld >= n, a random gap of 0..2
 * after each, from offset 2), every element NaN: the layout of a strided batch. */
static la_layout strided_layout(tu_rng *r, int count, int n)
{
    la_layout L = la_layout_make(r, 1, &n, NULL, 3);
    const int ld = L.m[0].ld;
    const size_t stride = (size_t)ld * (size_t)n + (size_t)tu_int(r, 0, 2);
    free(L.m);
    free(L.v);
    L.count = count;
    L.m = calloc((size_t)count, sizeof *L.m);
    for (int b = 0; b < count; ++b) {
        L.m[b].n = L.m[b].cols = n;
        L.m[b].ld = ld;
        L.m[b].off = 2 + (size_t)b * stride;
    }
    L.len = 2 + (size_t)count * stride + 1;
    L.v = malloc(L.len * sizeof *L.v);
    for (size_t i = 0; i < L.len; ++i) L.v[i] = NAN;
    return L;
}

/* Factor `count` SPD matrices of orders n[] laid out in one buffer, through the single,
 * batched (uniform n, when all equal and the layout is strided) or variable-batch API, and
 * check everything. api: 0 single (count 1), 1 batched, 2 vbatched. */
static void run_case(int ti, tu_rng *r, int count, const int *n, int up, int api, const char *what)
{
    gala_context *ctx = tu_ctx(ti);
    gala_dtype dt = tu_target_get(ti)->dtype;
    const double eps = tu_eps(dt);
    la_layout L = api == 1 ? strided_layout(r, count, n[0]) : la_layout_make(r, count, n, NULL, 3);
    double **G = calloc((size_t)count, sizeof *G);
    int nmax = 0;
    for (int b = 0; b < count; ++b) {
        if (n[b] > nmax) nmax = n[b];
        G[b] = malloc(((size_t)n[b] * n[b] + 1) * sizeof(double));
        la_spd(r, n[b], 0.5 + tu_uniform(r), dt, G[b]);
        la_put_tri(&L, b, up, G[b]);
    }
    gala_buffer *buf = la_upload(ctx, dt, &L);
    int *info = malloc(((size_t)count + 1) * sizeof *info);
    for (int b = 0; b <= count; ++b) info[b] = -12345;
    gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
    if (api == 0) {
        TU_OK(ctx, gala_potrf(ctx, ul, n[0], buf, L.m[0].off, L.m[0].ld, info));
    } else if (api == 1) {
        TU_OK(ctx, gala_potrf_batched(ctx, ul, n[0], buf, L.m[0].off, L.m[0].ld,
                                      count > 1 ? L.m[1].off - L.m[0].off : 0, count, info));
    } else {
        la_vb vb = la_vb_of(&L);
        TU_OK(ctx, gala_potrf_vbatched(ctx, ul, vb.n, buf, vb.off, vb.ld, count, info));
        la_vb_free(&vb);
    }
    TU_ASSERT(info[count] == -12345, ti, "%s: info written past the batch", what);
    double *out = malloc(L.len * sizeof *out);
    tu_download(buf, 0, out, L.len);
    for (int b = 0; b < count; ++b) {
        const int nb = n[b];
        TU_ASSERT(info[b] == 0, ti, "%s: matrix %d (n = %d): info %d", what, b, nb, info[b]);
        if (nb == 0) continue;
        double res = la_chol_residual(&L, b, up, out, G[b]);
        double tol = 4.0 * (nb + 2) * eps;
        TU_ASSERT(res <= tol, ti, "%s: matrix %d (n = %d, %s): ‖LLᵀ−A‖/‖A‖ = %.3g > %.3g", what,
                  b, nb, up ? "upper" : "lower", res, tol);
        /* against LAPACK on the first and last matrices (all of them for small batches) */
        if (b == 0 || b == count - 1 || count <= 8) {
            double *R = malloc(((size_t)nb * nb + 1) * sizeof *R);
            memcpy(R, G[b], (size_t)nb * nb * sizeof *R);
            TU_ASSERT(la_ref_potrf(nb, dt, R) == 0, ti, "reference potrf failed");
            double num = 0, den = 0;
            for (int j = 0; j < nb; ++j)
                for (int i = j; i < nb; ++i) {
                    double d = out[la_at(&L.m[b], up, i, j)] - R[i + (size_t)j * nb];
                    num += d * d;
                    den += R[i + (size_t)j * nb] * R[i + (size_t)j * nb];
                }
            double rel = sqrt(num / den), rtol = 16.0 * (nb + 2) * eps;
            TU_ASSERT(rel <= rtol, ti, "%s: matrix %d (n = %d): ‖L − L_lapack‖/‖L‖ = %.3g > %.3g",
                      what, b, nb, rel, rtol);
            free(R);
        }
    }
    la_assert_untouched(ti, &L, up, out, what);
    free(out);
    free(info);
    gala_buffer_free(buf);
    for (int b = 0; b < count; ++b) free(G[b]);
    free(G);
    la_layout_free(&L);
}

static const int sizes[] = {1, 2, 3, 16, 31, 32, 33, 64, 65, 127, 128, 129, 500};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

START_TEST(potrf_sizes)
{
    tu_rng r = tu_rng_for(__func__, _i);
    for (int s = 0; s < NSIZES; ++s) {
        int n = sizes[s], n3[3] = {n, n, n};
        char what[64];
        snprintf(what, sizeof what, "single n=%d", n);
        run_case(_i, &r, 1, &n, is_up(s), 0, what);
        snprintf(what, sizeof what, "batched n=%d", n);
        run_case(_i, &r, 3, n3, !is_up(s), 1, what);
    }
}
END_TEST

START_TEST(potrf_n1000)
{
    tu_rng r = tu_rng_for(__func__, _i);
    int n = 1000;
    run_case(_i, &r, 1, &n, 0, 0, "single n=1000");
}
END_TEST

/* The BLAS-3 path (single large matrices: left- and right-looking, panel rows by TRSM and by
 * gala's panel kernels, diagonal blocks whole and in steps) and the blocked path with other
 * panel widths,
 * at small n through lowered thresholds. */
START_TEST(potrf_blas3_paths)
{
    tu_rng r = tu_rng_for(__func__, _i);
    /* on OpenCL the BLAS-3 is CLBlast, whose kernels take long to compile on CPU devices:
     * its paths run in float there (double through CLBlast is covered by test_blas3) */
    const int skip_b3 = tu_target_get(_i)->backend != GALA_BACKEND_HOST &&
                        tu_target_get(_i)->dtype == GALA_DOUBLE;
    static const char *tunes[] = {
        "potrf.blas3_min=100,potrf.blas3_nb=64,potrf.left=1,potrf.half=1",
        "potrf.blas3_min=100,potrf.blas3_nb=128,potrf.left=0,potrf.trsm=0,potrf.half=1",
        "potrf.blas3_min=100,potrf.blas3_nb=96,potrf.nb=32,potrf.left=0,potrf.inner=1",
        /* the tall block column in sub-steps: 3 of 32 columns, then (n = 257) a short one */
        ("potrf.blas3_min=100,potrf.blas3_nb=96,potrf.nb=32,potrf.left=0,potrf.blas3_tnb=32,"
         "potrf.trsm=0"),
        "potrf.blas3_min=100,potrf.blas3_nb=192,potrf.trsm=1,potrf.inner=2,potrf.blas3_pnb=32",
        /* lookahead: column k on the second queue while the first updates column k + 1 */
        "potrf.blas3_min=100,potrf.blas3_nb=32,potrf.lookahead=1,potrf.reserve=1",
        "potrf.blas3_min=100,potrf.blas3_nb=64,potrf.lookahead=1,potrf.trsm=1,potrf.inner=2",
        "potrf.blas3_min=100,potrf.blas3_nb=64,potrf.lookahead=1,potrf.trsm=0",
        /* right-looking lookahead: column k + 1 on the second queue, the trailing triangle on
         * the first; with sub-steps, and with TRSM (n = 70 in steps of 64: two columns, no
         * trailing triangle) */
        "potrf.blas3_min=60,potrf.blas3_nb=64,potrf.left=0,potrf.lookahead_right=1,potrf.trsm=0",
        ("potrf.blas3_min=60,potrf.blas3_nb=96,potrf.nb=32,potrf.left=0,potrf.lookahead_right=1,"
         "potrf.trsm=0,potrf.blas3_tnb=32"),
        "potrf.blas3_min=60,potrf.blas3_nb=32,potrf.left=0,potrf.lookahead_right=1,potrf.trsm=1",
        "potrf.nb=32,potrf.panel_wg=64,potrf.fused_max=16,lagemm.tile=128,lagemm.sv=0,potrf.ob=64",
    };
    static const int ns[] = {150, 257, 70};
    const int last = (int)(sizeof tunes / sizeof *tunes) - 1; /* no BLAS-3: every target */
    for (int t = skip_b3 ? last : 0; t <= last; ++t) {
        la_tune(tunes[t]);
        for (int k = 0; k < 3; ++k) {
            char what[160];
            snprintf(what, sizeof what, "n=%d with %s", ns[k], tunes[t]);
            int n = ns[k], n2[2] = {n, n};
            run_case(_i, &r, 1, &n, (t + k) & 1, 0, what);
            if (t == last) run_case(_i, &r, 2, n2, (t + k + 1) & 1, 1, what);
        }
        la_tune(NULL);
    }
}
END_TEST

/* One target each: n = 3000 (host, double) and n >= 4096 (float on OpenCL if present). */
static int big_target(int want_opencl_float)
{
    int host_double = -1, ocl_float = -1, host_float = -1;
    for (int i = 0; i < tu_target_count(); ++i) {
        const tu_target *t = tu_target_get(i);
        if (t->backend == GALA_BACKEND_HOST && t->dtype == GALA_DOUBLE && host_double < 0) host_double = i;
        if (t->backend == GALA_BACKEND_HOST && t->dtype == GALA_FLOAT && host_float < 0) host_float = i;
        if (t->backend != GALA_BACKEND_HOST && t->dtype == GALA_FLOAT && ocl_float < 0) ocl_float = i;
    }
    if (want_opencl_float) return ocl_float >= 0 ? ocl_float : host_float;
    return host_double;
}

START_TEST(potrf_large)
{
    if (LA_SANITIZED) return;
    tu_rng r = tu_rng_for(__func__, _i);
    if (_i == big_target(0)) {
        int n = 3000;
        run_case(_i, &r, 1, &n, 0, 0, "single n=3000");
    }
    if (_i == big_target(1)) {
        /* on a slow device n = 1100: still one matrix past potrf.blas3_min (1024) with the
         * default steps of 256, the last one ragged (76 columns) */
        int n = tu_size(4096, 1100, "potrf_large, single float");
        char what[48];
        snprintf(what, sizeof what, "single n=%d", n);
        run_case(_i, &r, 1, &n, 1, 0, what);
    }
}
END_TEST

START_TEST(potrf_batches)
{
    tu_rng r = tu_rng_for(__func__, _i);
    static const struct { int n, batch; } cases[] = {
        {16, 1000}, {33, 1000}, {8, 50000}, {5, 1}, {100, 60}, {3, 1000}};
    for (int c = 0; c < 6; ++c) {
        /* on a slow device 5000 for the tens of thousands (still thousands), 250 for the
         * thousands (several full work-groups and a partial one) */
        const int count = cases[c].batch >= 1000
                              ? tu_size(cases[c].batch, cases[c].batch > 1000 ? 5000 : 250,
                                        "potrf_batches")
                              : cases[c].batch;
        int *n = malloc((size_t)count * sizeof *n);
        for (int b = 0; b < count; ++b) n[b] = cases[c].n;
        char what[64];
        snprintf(what, sizeof what, "batch %d of n=%d", count, cases[c].n);
        run_case(_i, &r, count, n, c & 1, 1, what);
        free(n);
    }
}
END_TEST

START_TEST(potrf_vbatched)
{
    tu_rng r = tu_rng_for(__func__, _i);
    for (int rep = 0; rep < 2; ++rep) {
        const int count = rep ? 40 : 300;
        int *n = malloc((size_t)count * sizeof *n);
        for (int b = 0; b < count; ++b) {
            double u = tu_uniform(&r);
            n[b] = u < 0.05 ? 0 : u < 0.4 ? tu_int(&r, 1, 8) : u < 0.8 ? tu_int(&r, 9, 70)
                                                             : tu_int(&r, 71, rep ? 300 : 160);
        }
        run_case(_i, &r, count, n, rep, 2, rep ? "vbatched, large" : "vbatched");
        free(n);
    }
    /* all empty, and an empty batch */
    gala_context *ctx = tu_ctx(_i);
    gala_buffer *buf = tu_poisoned(ctx, tu_target_get(_i)->dtype, 4);
    int zeros[3] = {0, 0, 0}, lds[3] = {1, 1, 1}, info[3] = {7, 7, 7};
    size_t offs[3] = {0, 1, 2};
    TU_OK(ctx, gala_potrf_vbatched(ctx, GALA_LOWER, zeros, buf, offs, lds, 3, info));
    TU_ASSERT(info[0] == 0 && info[1] == 0 && info[2] == 0, _i, "info of empty matrices");
    TU_OK(ctx, gala_potrf_vbatched(ctx, GALA_LOWER, NULL, buf, NULL, NULL, 0, NULL));
    gala_buffer_free(buf);
}
END_TEST

/* One round of the layout-reuse test: fresh SPD values in every matrix of L (the rest NaN),
 * factored through gala_potrf_vbatched with the caller's arrays nn, ld, off as they stand;
 * a matrix with nn[b] = 0 must keep its values (it is left out), the others are checked,
 * and so is every element outside them. */
static void vb_round(int ti, tu_rng *r, la_layout *L, const int *nn, const int *ld,
                     const size_t *off, const char *what)
{
    gala_context *ctx = tu_ctx(ti);
    gala_dtype dt = tu_target_get(ti)->dtype;
    const double eps = tu_eps(dt);
    const int count = L->count;
    for (size_t i = 0; i < L->len; ++i) L->v[i] = NAN;
    double **G = calloc((size_t)count, sizeof *G);
    for (int b = 0; b < count; ++b) {
        const int nb = L->m[b].n;
        G[b] = malloc(((size_t)nb * nb + 1) * sizeof(double));
        la_spd(r, nb, 0.5 + tu_uniform(r), dt, G[b]);
        la_put_tri(L, b, 0, G[b]);
    }
    gala_buffer *buf = la_upload(ctx, dt, L);
    int *info = malloc((size_t)count * sizeof *info);
    for (int b = 0; b < count; ++b) info[b] = -12345;
    TU_OK(ctx, gala_potrf_vbatched(ctx, GALA_LOWER, nn, buf, off, ld, count, info));
    double *out = malloc(L->len * sizeof *out);
    tu_download(buf, 0, out, L->len);
    la_layout K = *L; /* the matrices factored: those left out are checked as untouched */
    K.m = malloc((size_t)count * sizeof *K.m);
    for (int b = 0; b < count; ++b) {
        const int nb = L->m[b].n;
        K.m[b] = L->m[b];
        TU_ASSERT(info[b] == 0, ti, "%s: matrix %d (n = %d): info %d", what, b, nb, info[b]);
        if (nn[b] == 0) K.m[b].n = K.m[b].cols = 0;
        if (nb == 0 || nn[b] == 0) continue;
        double res = la_chol_residual(L, b, 0, out, G[b]), tol = 4.0 * (nb + 2) * eps;
        TU_ASSERT(res <= tol, ti, "%s: matrix %d (n = %d): ‖LLᵀ−A‖/‖A‖ = %.3g > %.3g", what, b,
                  nb, res, tol);
    }
    la_assert_untouched(ti, &K, 0, out, what); /* K's values are L's */
    free(K.m);
    free(out);
    free(info);
    gala_buffer_free(buf);
    for (int b = 0; b < count; ++b) free(G[b]);
    free(G);
}

/* A layout of count matrices (5 % empty, the rest in the fused buckets and past them) and
 * its caller arrays. */
static la_layout vb_layout(tu_rng *r, int count, int **nn, int **ld, size_t **off)
{
    int *n = malloc((size_t)count * sizeof *n);
    for (int b = 0; b < count; ++b) {
        double u = tu_uniform(r);
        n[b] = u < 0.05 ? 0 : u < 0.4 ? tu_int(r, 1, 8) : u < 0.85 ? tu_int(r, 9, 64)
                                                         : tu_int(r, 65, 100);
    }
    n[1] = 20; /* the test empties matrix 1 */
    la_layout L = la_layout_make(r, count, n, NULL, 3);
    *nn = n;
    *ld = malloc((size_t)count * sizeof **ld);
    *off = malloc((size_t)count * sizeof **off);
    for (int b = 0; b < count; ++b) {
        (*ld)[b] = L.m[b].ld;
        (*off)[b] = L.m[b].off;
    }
    return L;
}

/* The context keeps the descriptors of its last variable batches (la.vb_memo): a call that
 * repeats a layout reuses them. Every change of the caller's arrays in place (an order, a
 * leading dimension, the offsets), the routines between the calls that share the
 * descriptors' machinery (potrs, potri: trtri and lauum), more layouts than the context
 * keeps, and the same with the memo off: each round is checked in full. */
START_TEST(potrf_vb_layout_reuse)
{
    tu_rng r = tu_rng_for(__func__, _i);
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    const int count = 48;
    int *nn, *ld;
    size_t *off;
    la_layout L = vb_layout(&r, count, &nn, &ld, &off);
    vb_round(_i, &r, &L, nn, ld, off, "first call");
    vb_round(_i, &r, &L, nn, ld, off, "the same arrays");
    /* an order set to 0 in place: matrix 1 (still holding values) must be left alone */
    nn[1] = 0;
    vb_round(_i, &r, &L, nn, ld, off, "matrix 1 emptied in place");
    nn[1] = 20;
    vb_round(_i, &r, &L, nn, ld, off, "matrix 1 back");
    /* leading dimensions cut to the order in place (each matrix then spans fewer elements) */
    for (int b = 0; b < count; ++b) ld[b] = L.m[b].ld = nn[b] > 1 ? nn[b] : 1;
    vb_round(_i, &r, &L, nn, ld, off, "leading dimensions changed in place");
    /* every matrix one element further on, in place */
    {
        double *v = realloc(L.v, (L.len + 1) * sizeof *v);
        L.v = v;
        L.len++;
        for (int b = 0; b < count; ++b) off[b] = ++L.m[b].off;
    }
    vb_round(_i, &r, &L, nn, ld, off, "offsets moved in place");
    /* potrs and potri on the same layout in between (their own descriptors; potri's trtri
     * and lauum), then potrf again: matrices 4·I, so the solve gives b/4 and the inverse I/4 */
    {
        for (size_t i = 0; i < L.len; ++i) L.v[i] = NAN;
        for (int b = 0; b < count; ++b)
            for (int j = 0; j < nn[b]; ++j)
                for (int i = j; i < nn[b]; ++i) L.v[la_at(&L.m[b], 0, i, j)] = i == j ? 4.0 : 0.0;
        gala_buffer *A = la_upload(ctx, dt, &L);
        int *k1 = malloc((size_t)count * sizeof *k1), *info = malloc((size_t)count * sizeof *info);
        size_t *boff = malloc((size_t)count * sizeof *boff), blen = 0;
        for (int b = 0; b < count; ++b) {
            k1[b] = 1;
            boff[b] = blen;
            blen += (size_t)(nn[b] > 1 ? nn[b] : 1);
        }
        double *bv = malloc(blen * sizeof *bv);
        for (size_t i = 0; i < blen; ++i) bv[i] = 1.0;
        gala_buffer *B = tu_upload(ctx, dt, bv, blen);
        int *ldb = malloc((size_t)count * sizeof *ldb);
        for (int b = 0; b < count; ++b) ldb[b] = nn[b] > 1 ? nn[b] : 1;
        TU_OK(ctx, gala_potrf_vbatched(ctx, GALA_LOWER, nn, A, off, ld, count, info));
        TU_OK(ctx, gala_potrs_vbatched(ctx, GALA_LOWER, nn, k1, A, off, ld, B, boff, ldb, count));
        TU_OK(ctx, gala_potri_vbatched(ctx, GALA_LOWER, nn, A, off, ld, count, info));
        double *out = malloc(L.len * sizeof *out);
        tu_download(A, 0, out, L.len);
        tu_download(B, 0, bv, blen);
        for (int b = 0; b < count; ++b)
            for (int i = 0; i < nn[b]; ++i) {
                const double d = out[la_at(&L.m[b], 0, i, i)], x = bv[boff[b] + (size_t)i];
                TU_ASSERT(fabs(d - 0.25) <= 8 * tu_eps(dt) && fabs(x - 0.25) <= 8 * tu_eps(dt),
                          _i, "potrs / potri between the rounds: matrix %d, row %d: x = %g, "
                          "inverse %g (both should be 0.25)", b, i, x, d);
            }
        free(out);
        free(bv);
        free(k1);
        free(ldb);
        free(info);
        free(boff);
        gala_buffer_free(A);
        gala_buffer_free(B);
    }
    vb_round(_i, &r, &L, nn, ld, off, "after potrs and potri");
    /* more layouts than the context keeps, twice round */
    la_layout M[4];
    int *mn[4], *mld[4];
    size_t *moff[4];
    for (int k = 0; k < 4; ++k) M[k] = vb_layout(&r, 20 + 7 * k, &mn[k], &mld[k], &moff[k]);
    for (int round = 0; round < 2; ++round)
        for (int k = 0; k < 4; ++k) {
            char what[64];
            snprintf(what, sizeof what, "layout %d of 4, round %d", k, round);
            vb_round(_i, &r, &M[k], mn[k], mld[k], moff[k], what);
        }
    /* with the memo off, then on again: the three layouts kept before (M[1..3]) still right,
     * whichever of their slots the calls without the memo used */
    la_tune("la.vb_memo=0");
    vb_round(_i, &r, &L, nn, ld, off, "memo off");
    vb_round(_i, &r, &M[0], mn[0], mld[0], moff[0], "memo off, another layout");
    la_tune(NULL);
    for (int k = 1; k < 4; ++k) vb_round(_i, &r, &M[k], mn[k], mld[k], moff[k], "memo on again");
    /* a batch above the largest one kept (la.vb_memo): built every time, the rest kept */
    la_tune("la.vb_memo=30");
    vb_round(_i, &r, &L, nn, ld, off, "a batch of 48 above la.vb_memo=30");
    vb_round(_i, &r, &M[0], mn[0], mld[0], moff[0], "a batch of 20 below it");
    vb_round(_i, &r, &L, nn, ld, off, "48 again");
    vb_round(_i, &r, &M[0], mn[0], mld[0], moff[0], "20 again");
    la_tune(NULL);
    for (int k = 1; k < 4; ++k)
        vb_round(_i, &r, &M[k], mn[k], mld[k], moff[k], "after the large batch");
    for (int k = 0; k < 4; ++k) {
        free(mn[k]);
        free(mld[k]);
        free(moff[k]);
        la_layout_free(&M[k]);
    }
    free(nn);
    free(ld);
    free(off);
    la_layout_free(&L);
}
END_TEST

/* Failing matrices: info, status, message, and the good ones still factored. */
enum { F_GOOD, F_PD, F_NAN, F_ZERO, F_INF, F_PD_BEFORE_NAN, F_NAN_BEFORE_PD };

/* Make matrix kind `kind` (full symmetric G, n×n); returns the info expected. */
static int make_failing(tu_rng *r, int n, int kind, gala_dtype dt, double *G)
{
    la_spd(r, n, 1.0, dt, G);
    if (kind == F_GOOD) return 0;
    if (kind == F_ZERO) {
        memset(G, 0, (size_t)n * n * sizeof *G);
        return 1;
    }
    const int k = tu_int(r, 2, n - 1); /* 1-based failing column, 2 <= k < n */
    int pd = kind == F_PD || kind == F_PD_BEFORE_NAN || kind == F_NAN_BEFORE_PD;
    int pd_col = kind == F_NAN_BEFORE_PD ? n : k;
    if (pd) {
        /* leading minor of order pd_col: d = −G(p,p)/2 < 0 at column p = pd_col − 1 */
        double *R = malloc((size_t)n * n * sizeof *R);
        memcpy(R, G, (size_t)n * n * sizeof *R);
        la_ref_potrf(n, GALA_DOUBLE, R);
        const int p = pd_col - 1;
        double s = 0;
        for (int j = 0; j < p; ++j) s += R[p + (size_t)j * n] * R[p + (size_t)j * n];
        G[p + (size_t)p * n] = s - 0.5 * G[p + (size_t)p * n];
        tu_round(dt, &G[p + (size_t)p * n], 1);
        free(R);
    }
    if (kind == F_PD) return k;
    if (kind == F_NAN || kind == F_INF) {
        /* a NaN below the diagonal in column k, or an Inf on it */
        const int c = k - 1, i = kind == F_NAN ? tu_int(r, c + 1, n - 1) : c;
        G[i + (size_t)c * n] = G[c + (size_t)i * n] = kind == F_NAN ? NAN : INFINITY;
        return -k;
    }
    if (kind == F_PD_BEFORE_NAN) {
        const int c = tu_int(r, k, n - 1), i = tu_int(r, c, n - 1); /* column after k */
        G[i + (size_t)c * n] = G[c + (size_t)i * n] = NAN;
        return k;
    }
    /* F_NAN_BEFORE_PD: NaN in column c < n, the minor of order n fails */
    const int c = tu_int(r, 0, n - 2), i = tu_int(r, c, n - 1);
    G[i + (size_t)c * n] = G[c + (size_t)i * n] = NAN;
    return -(c + 1);
}

/* Good and failing matrices of order n, both triangles, failures of every kind and of
 * positive definiteness only: api 0 one call per matrix, 1 one variable batch, 2 one strided
 * batch. info of each, the good ones' residuals, the columns before a failure against
 * LAPACK's factor of the leading minor, nothing written outside the triangles. */
static void run_failures(int ti, tu_rng *r, int n, int api, const char *what)
{
    gala_context *ctx = tu_ctx(ti);
    gala_dtype dt = tu_target_get(ti)->dtype;
    const double eps = tu_eps(dt);
    static const int kinds[] = {F_GOOD, F_PD, F_NAN, F_GOOD, F_ZERO, F_INF, F_PD_BEFORE_NAN,
                                F_NAN_BEFORE_PD, F_PD};
    const int count = (int)(sizeof kinds / sizeof kinds[0]);
    for (int up = 0; up < 2; ++up) {
        for (int pdonly = 0; pdonly < 2; ++pdonly) {
            int nn[16];
            for (int b = 0; b < count; ++b) nn[b] = n;
            la_layout L = api == 2 ? strided_layout(r, count, n)
                                   : la_layout_make(r, count, nn, NULL, 2);
            double *G[16];
            int expect[16], got[16];
            for (int b = 0; b < count; ++b) {
                int kind = kinds[b];
                if (pdonly && kind != F_GOOD && kind != F_ZERO) kind = F_PD;
                G[b] = malloc((size_t)n * n * sizeof(double));
                expect[b] = make_failing(r, n, kind, dt, G[b]);
                la_put_tri(&L, b, up, G[b]);
            }
            gala_buffer *buf = la_upload(ctx, dt, &L);
            gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
            gala_status st = GALA_OK;
            if (api == 0) {
                /* one call per matrix */
                for (int b = 0; b < count; ++b) {
                    gala_status s1 = gala_potrf(ctx, ul, n, buf, L.m[b].off, L.m[b].ld, &got[b]);
                    gala_status want = expect[b] == 0 ? GALA_OK
                                       : expect[b] < 0 ? GALA_ERR_NOT_FINITE
                                                       : GALA_ERR_NOT_POSITIVE_DEFINITE;
                    TU_ASSERT(s1 == want, ti, "%s: matrix %d: status %s, expected %s (%s)", what, b,
                              gala_status_string(s1), gala_status_string(want), gala_last_error(ctx));
                }
            } else {
                int ld[16];
                size_t off[16];
                for (int b = 0; b < count; ++b) {
                    ld[b] = L.m[b].ld;
                    off[b] = L.m[b].off;
                }
                st = api == 2 ? gala_potrf_batched(ctx, ul, n, buf, off[0], ld[0], off[1] - off[0],
                                                   count, got)
                              : gala_potrf_vbatched(ctx, ul, nn, buf, off, ld, count, got);
                gala_status want = pdonly ? GALA_ERR_NOT_POSITIVE_DEFINITE : GALA_ERR_NOT_FINITE;
                TU_ASSERT(st == want, ti, "%s: status %s, expected %s", what,
                          gala_status_string(st), gala_status_string(want));
                TU_ASSERT(strstr(gala_last_error(ctx), "matrix 1") != NULL, ti,
                          "%s: message does not name matrix 1: %s", what, gala_last_error(ctx));
            }
            double *out = malloc(L.len * sizeof *out);
            tu_download(buf, 0, out, L.len);
            for (int b = 0; b < count; ++b) {
                TU_ASSERT(got[b] == expect[b], ti, "%s (%s, %s): matrix %d: info %d, expected %d",
                          what, up ? "upper" : "lower", pdonly ? "PD failures" : "mixed", b,
                          got[b], expect[b]);
                if (expect[b] == 0) {
                    double res = la_chol_residual(&L, b, up, out, G[b]);
                    TU_ASSERT(res <= 4.0 * (n + 2) * eps, ti, "%s: good matrix %d: residual %.3g",
                              what, b, res);
                } else if (expect[b] > 1) {
                    /* columns before the failing one hold the factor of the leading minor */
                    const int k = expect[b] - 1;
                    double *R = malloc((size_t)k * k * sizeof *R);
                    for (int j = 0; j < k; ++j)
                        for (int i = 0; i < k; ++i) R[i + (size_t)j * k] = G[b][i + (size_t)j * n];
                    TU_ASSERT(la_ref_potrf(k, dt, R) == 0, ti, "reference of the minor failed");
                    for (int j = 0; j < k; ++j)
                        for (int i = j; i < k; ++i) {
                            double x = out[la_at(&L.m[b], up, i, j)], y = R[i + (size_t)j * k];
                            TU_ASSERT(fabs(x - y) <= 64.0 * (n + 2) * eps * (1 + fabs(y)), ti,
                                      "%s: failed matrix %d: L(%d,%d) = %g, expected %g", what, b,
                                      i, j, x, y);
                        }
                    free(R);
                }
            }
            unsigned char *mask = la_mask(&L, up, 1);
            TU_ASSERT(la_untouched(&L, mask, out) < 0, ti, "%s: wrote outside the triangles", what);
            free(mask);
            free(out);
            gala_buffer_free(buf);
            for (int b = 0; b < count; ++b) free(G[b]);
            la_layout_free(&L);
        }
    }
}

START_TEST(potrf_failures)
{
    tu_rng r = tu_rng_for(__func__, _i);
    run_failures(_i, &r, 20, 1, "fused, vbatched n=20");
    run_failures(_i, &r, 20, 0, "fused, single n=20");
    run_failures(_i, &r, 150, 1, "blocked, vbatched n=150");
    /* multi-chunk panels of a batch by one factoring launch and a copy */
    la_tune("potrf.psolve=0,potrf.split=2");
    run_failures(_i, &r, 150, 1, "blocked with SPLIT, vbatched n=150");
    la_tune("potrf.ob=0"); /* the default takes outer blocks of 128 */
    run_failures(_i, &r, 150, 1, "blocked without outer blocks, vbatched n=150");
    la_tune(NULL);
    if (tu_target_get(_i)->backend == GALA_BACKEND_HOST || tu_target_get(_i)->dtype == GALA_FLOAT) {
        la_tune("potrf.blas3_min=100,potrf.blas3_nb=64");
        run_failures(_i, &r, 150, 0, "BLAS-3 path, single n=150");
        la_tune("potrf.blas3_min=100,potrf.blas3_nb=96,potrf.nb=32,potrf.inner=1");
        run_failures(_i, &r, 150, 0, "BLAS-3 path, diagonal blocks in steps, single n=150");
        la_tune("potrf.blas3_min=100,potrf.blas3_nb=128,potrf.trsm=0,potrf.blas3_tnb=64");
        run_failures(_i, &r, 150, 0, "BLAS-3 path, tall block columns in sub-steps, n=150");
        la_tune("potrf.blas3_min=100,potrf.blas3_nb=128,potrf.trsm=1,potrf.inner=2");
        run_failures(_i, &r, 150, 0, "BLAS-3 path, tall panels in the block, single n=150");
        la_tune("potrf.blas3_min=100,potrf.blas3_nb=32,potrf.lookahead=1");
        run_failures(_i, &r, 150, 0, "BLAS-3 path with lookahead, single n=150");
        la_tune("potrf.blas3_min=100,potrf.blas3_nb=32,potrf.left=0,potrf.lookahead_right=1");
        run_failures(_i, &r, 150, 0, "BLAS-3 path, right-looking lookahead, single n=150");
        la_tune(NULL);
    }
    /* batched API with failures, and info = NULL */
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    double z[2 * 9] = {0};
    for (int i = 0; i < 9; i += 4) z[i] = 1; /* identity, then zeros */
    gala_buffer *buf = tu_upload(ctx, dt, z, 18);
    int info[2] = {5, 5};
    ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, buf, 0, 3, 9, 2, info),
                     GALA_ERR_NOT_POSITIVE_DEFINITE);
    TU_ASSERT(info[0] == 0 && info[1] == 1, _i, "info %d %d, expected 0 1", info[0], info[1]);
    ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, buf, 0, 3, 9, 2, NULL),
                     GALA_ERR_NOT_POSITIVE_DEFINITE);
    TU_OK(ctx, gala_potrf_batched(ctx, GALA_LOWER, 3, buf, 0, 3, 9, 1, NULL));
    gala_buffer_free(buf);
}
END_TEST

/* gala_potrf_batched_async: info on the device, same values as the synchronous call. */
START_TEST(potrf_async)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    static const int ns[] = {20, 100};
    static const int kinds[] = {F_GOOD, F_PD, F_GOOD, F_NAN, F_GOOD};
    for (int t = 0; t < 2; ++t) {
        const int n = ns[t], count = 5;
        const size_t stride = (size_t)n * n + 3;
        double *v = malloc((stride * count + 1) * sizeof *v), *G = malloc((size_t)n * n * sizeof *G);
        int expect[5];
        for (size_t e = 0; e < stride * count + 1; ++e) v[e] = NAN;
        for (int b = 0; b < count; ++b) {
            expect[b] = make_failing(&r, n, kinds[b], dt, G);
            for (int j = 0; j < n; ++j)
                for (int i = j; i < n; ++i) v[(size_t)b * stride + i + (size_t)j * n] = G[i + (size_t)j * n];
        }
        gala_buffer *A = tu_upload(ctx, dt, v, stride * count + 1), *Ib;
        TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 7, &Ib));
        TU_OK(ctx, gala_buffer_fill(Ib, 0, 7, -777));
        TU_OK(ctx, gala_potrf_batched_async(ctx, GALA_LOWER, n, A, 0, n, stride, count, Ib, 1));
        TU_OK(ctx, gala_finish(ctx));
        double got[7];
        tu_download(Ib, 0, got, 7);
        TU_ASSERT(got[0] == -777 && got[6] == -777, _i, "async info written outside its range");
        for (int b = 0; b < count; ++b)
            TU_ASSERT(got[1 + b] == expect[b], _i, "async n=%d: info[%d] = %g, expected %d", n, b,
                      got[1 + b], expect[b]);
        /* argument errors are still returned */
        ck_assert_int_eq(gala_potrf_batched_async(ctx, GALA_LOWER, n, A, 0, n, stride, count, A, 0),
                         GALA_ERR_INVALID_ARG);
        ck_assert_int_eq(gala_potrf_batched_async(ctx, GALA_LOWER, n, A, 0, n, stride, count, Ib, 3),
                         GALA_ERR_INVALID_ARG);
        TU_OK(ctx, gala_potrf_batched_async(ctx, GALA_LOWER, 0, A, 0, 1, 1, 4, Ib, 0));
        tu_download(Ib, 0, got, 4);
        TU_ASSERT(got[0] == 0 && got[3] == 0, _i, "n = 0 must give info 0");
        gala_buffer_free(A);
        gala_buffer_free(Ib);
        free(v);
        free(G);
    }
}
END_TEST

/* Injected failures (allocation, build, launch, transfer) at every step of a sequence of
 * potrf / potrs / potri calls: the error is reported, nothing leaks (checked by ASan in the
 * sanitizer run and by the live-buffer count), and the next calls work. Host targets. */
static gala_status fault_sequence(gala_context *ctx, gala_dtype dt, gala_buffer *A,
                                  gala_buffer *B, const double *init, size_t len)
{
    static const int n[4] = {5, 70, 0, 20}, k[4] = {2, 1, 3, 4}, ld[4] = {5, 70, 1, 20};
    static const size_t off[4] = {0, 25, 4925, 4926}, boff[4] = {0, 10, 80, 83};
    int info[4];
    gala_status st;
    if (dt == GALA_DOUBLE) {
        st = gala_buffer_write(A, 0, len, init);
    } else {
        float *f = malloc(len * sizeof *f);
        for (size_t i = 0; i < len; ++i) f[i] = (float)init[i];
        st = gala_buffer_write(A, 0, len, f);
        free(f);
    }
    if (st == GALA_OK) st = gala_potrf_vbatched(ctx, GALA_LOWER, n, A, off, ld, 4, info);
    if (st == GALA_OK) st = gala_potrs_vbatched(ctx, GALA_LOWER, n, k, A, off, ld, B, boff, ld, 4);
    if (st == GALA_OK) st = gala_potri_batched(ctx, GALA_UPPER, 20, A, 4926, 20, 0, 1, info);
    if (st == GALA_OK) st = gala_potrf(ctx, GALA_LOWER, 70, A, 25, 70, info);
    return st;
}

START_TEST(potrf_faults)
{
    if (tu_target_get(_i)->backend != GALA_BACKEND_HOST) return;
    const gala_dtype dt = tu_target_get(_i)->dtype;
    static const struct { gala_fault_kind kind; gala_status expect; } kinds[] = {
        {GALA_FAULT_ALLOC, GALA_ERR_DEVICE_MEMORY}, {GALA_FAULT_BUILD, GALA_ERR_KERNEL_BUILD},
        {GALA_FAULT_LAUNCH, GALA_ERR_DEVICE}, {GALA_FAULT_TRANSFER, GALA_ERR_DEVICE}};
    /* identity blocks make every matrix SPD whatever the layout */
    const size_t len = 5326;
    double *init = calloc(len, sizeof *init);
    static const int n[4] = {5, 70, 0, 20};
    static const size_t off[4] = {0, 25, 4925, 4926};
    for (int b = 0; b < 4; ++b)
        for (int i = 0; i < n[b]; ++i) init[off[b] + (size_t)i * (n[b] + 1)] = 2.0 + i;
    for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; ++q) {
        int hits = 0;
        for (int at = 1; at <= 60; ++at) {
            gala_context *ctx = tu_host_ctx(0);
            gala_buffer *A, *B;
            TU_OK(ctx, gala_buffer_create(ctx, dt, len, &A));
            TU_OK(ctx, gala_buffer_create(ctx, dt, 200, &B));
            TU_OK(ctx, gala_buffer_fill(B, 0, 200, 1.0));
            gala_fault_arm(kinds[q].kind, at);
            gala_status st = fault_sequence(ctx, dt, A, B, init, len);
            gala_fault_arm(kinds[q].kind, 0);
            TU_ASSERT(st == GALA_OK || st == kinds[q].expect, _i,
                      "fault kind %d at %d: status %s (%s)", (int)kinds[q].kind, at,
                      gala_status_string(st), gala_last_error(ctx));
            gala_stats stats;
            gala_context_stats(ctx, &stats);
            TU_ASSERT(stats.buffers_live == 2, _i, "fault kind %d at %d: %ld live buffers",
                      (int)kinds[q].kind, at, stats.buffers_live);
            TU_OK(ctx, fault_sequence(ctx, dt, A, B, init, len));
            gala_context_destroy(ctx);
            if (st == GALA_OK) break; /* the sequence ran out of operations of this kind */
            hits++;
        }
        TU_ASSERT(hits > 0, _i, "no injected fault of kind %d was hit", (int)kinds[q].kind);
        if (getenv("GALA_TEST_VERBOSE"))
            fprintf(stderr, "fault kind %d: %d injection points\n", (int)kinds[q].kind, hits);
    }
    free(init);
}
END_TEST

/* A strided pair of order 100, the second with a NaN below the first diagonal block (rows
 * below, found by potrf_trsm): info 0 and -11, each in its own slot (with potrf.lanes_n the
 * pair is two halves on two lanes, each with its own range of non-finite slots). */
static void run_strided_nan_n(int ti, tu_rng *r, int n, const char *what)
{
    gala_context *ctx = tu_ctx(ti);
    const gala_dtype dt = tu_target_get(ti)->dtype;
    double *G = malloc(2 * (size_t)n * n * sizeof *G);
    la_spd(r, n, 1.0, dt, G);
    la_spd(r, n, 1.0, dt, G + (size_t)n * n);
    G[(size_t)n * n + (size_t)(n - 20) + (size_t)10 * n] = NAN; /* L(n − 20, 10) of matrix 1 */
    gala_buffer *b = tu_upload(ctx, dt, G, 2 * (size_t)n * n);
    int info[2] = {7, 7};
    const gala_status st =
        gala_potrf_batched(ctx, GALA_LOWER, n, b, 0, n, (size_t)n * n, 2, info);
    TU_ASSERT(st == GALA_ERR_NOT_FINITE && info[0] == 0 && info[1] == -11, ti,
              "%s: status %s, info %d %d, expected NOT_FINITE, 0 -11", what,
              gala_status_string(st), info[0], info[1]);
    gala_buffer_free(b);
    free(G);
}

static void run_strided_nan(int ti, tu_rng *r, const char *what)
{
    run_strided_nan_n(ti, r, 100, what);
}

/* Each order of ns[0..nn) under the current tuning (named by tune), as one matrix and as
 * a strided batch of `batch` (at most 8), in alternating triangles (t shifts the start). */
static void run_orders(int ti, tu_rng *r, const int *ns, int nn, int batch, int t,
                       const char *tune)
{
    for (int k = 0; k < nn; ++k) {
        char what[200];
        snprintf(what, sizeof what, "n=%d with %s", ns[k], tune);
        int n = ns[k], nb[8];
        for (int b = 0; b < batch; ++b) nb[b] = n;
        run_case(ti, r, 1, &n, (t + k) & 1, 0, what);
        run_case(ti, r, batch, nb, (t + k + 1) & 1, 1, what);
    }
}

/* Strided batches of order 33..64 as two panels of 32 (potrf.p32_min; the default on the
 * H200 in double, with the DIAG launches by potrf_pair): orders 33, 40, 63, 64, both
 * triangles, single matrices (which keep the fused launch) and batches, a NaN below the first
 * panel, failures in either panel; with potrf.p32_vb variable batches' bucket of 33..64 too
 * (mixed with other buckets and larger orders, and failures in it). */
START_TEST(potrf_two_panels)
{
    tu_rng r = tu_rng_for(__func__, _i);
    /* the third: the two panels' DIAG launches by potrf_pair at N = 32 (the H200's form) */
    static const char *tunes[] = {
        "potrf.p32_min=2",
        "potrf.p32_min=2,potrf.psolve=0",
        "potrf.p32_min=2,potrf.p32_vb=1,potrf.pair=32,potrf.pair_min=16",
    };
    static const int ns[] = {33, 40, 63, 64};
    for (int t = 0; t < 3; ++t) {
        la_tune(tunes[t]);
        run_orders(_i, &r, ns, 4, 5, t, tunes[t]);
        char what[160];
        snprintf(what, sizeof what, "strided pair n=64 with a NaN, with %s", tunes[t]);
        run_strided_nan_n(_i, &r, 64, what);
        snprintf(what, sizeof what, "strided failures n=64 with %s", tunes[t]);
        run_failures(_i, &r, 64, 2, what);
        snprintf(what, sizeof what, "strided failures n=45 with %s", tunes[t]);
        run_failures(_i, &r, 45, 2, what);
        int nv[30];
        for (int b = 0; b < 30; ++b) nv[b] = b < 20 ? tu_int(&r, 33, 64) : tu_int(&r, 0, 100);
        snprintf(what, sizeof what, "vbatched orders 33..64 and 0..100 with %s", tunes[t]);
        run_case(_i, &r, 30, nv, t & 1, 2, what);
        snprintf(what, sizeof what, "failures, vbatched n=64 with %s", tunes[t]);
        run_failures(_i, &r, 64, 1, what);
        la_tune(NULL);
    }
}
END_TEST

/* Panels solved as their diagonal block then the rows below (potrf.psolve, the default: a
 * DIAG launch and potrf_trsm, no potrf_scan), and the chunked panel kernel with the scan
 * (psolve = 0): one chunk and several (psolve_wg 32), panels of 64 and of 32, a last panel
 * narrower than N under an outer-block limit (n = 150: block 128, then 22 columns), single /
 * batched / variable batches, both triangles, failures in every panel position (NaN in rows
 * below a diagonal block, before and after a pivot event), strided batches in two halves on
 * two lanes (potrf.lanes_n), the DIAG launches by potrf_pair (potrf.pair_diag) with
 * potrf_trsm's scalar staging (potrf.trsm_rvec = 0, NVIDIA's; the default elsewhere is the
 * vector staging), and
 * (psolve = 2) the BLAS-3 path's tall panels. */
START_TEST(potrf_psolve)
{
    tu_rng r = tu_rng_for(__func__, _i);
    const int b3 = tu_target_get(_i)->backend == GALA_BACKEND_HOST ||
                   tu_target_get(_i)->dtype == GALA_FLOAT; /* CLBlast: as potrf_blas3_paths */
    static const char *tunes[] = {
        "potrf.psolve=0", /* the chunked panel kernel and potrf_scan instead */
        "potrf.psolve=1,potrf.psolve_wg=32,potrf.nb=32,potrf.ob=96",
        /* DIAG launches by potrf_pair (potrf.pair_diag, the H100/H200's form), and NVIDIA's
         * scalar staging in potrf_trsm (potrf.trsm_rvec = 0) */
        "potrf.psolve=1,potrf.psolve_wg=64,potrf.ob=0,potrf.pair=64,potrf.pair_min=16,potrf.trsm_rvec=0",
        "potrf.lanes_n=65,potrf.lanes_min=2", /* strided batches in two halves, two lanes */
        "potrf.psolve=2,potrf.psolve_wg=32,potrf.blas3_min=100,potrf.blas3_nb=128,potrf.trsm=0",
    };
    static const int ns[] = {65, 127, 150, 257};
    const int ntunes = (int)(sizeof tunes / sizeof *tunes) - (b3 ? 0 : 1);
    /* on a slow device potrf_pair's DIAG launches at order 16 (panels of 16): see
     * potrf_fused_forms for why */
    const int small = tu_size(2, 1, "potrf_psolve: potrf_pair's DIAG launches at order 16") == 1;
    for (int t = 0; t < ntunes; ++t) {
        la_tune(t == 2 && small ? "potrf.psolve=1,potrf.psolve_wg=64,potrf.ob=0,potrf.pair=16,"
                                  "potrf.pair_min=16,potrf.nb=16"
                                : tunes[t]);
        run_orders(_i, &r, ns, 4, 3, t, tunes[t]);
        int n[40];
        for (int b = 0; b < 40; ++b) n[b] = tu_int(&r, 0, 300);
        char what[160];
        snprintf(what, sizeof what, "vbatched orders 0..300 with %s", tunes[t]);
        run_case(_i, &r, 40, n, t & 1, 2, what);
        snprintf(what, sizeof what, "failures, vbatched n=150 with %s", tunes[t]);
        run_failures(_i, &r, 150, 1, what);
        snprintf(what, sizeof what, "strided pair with a NaN, with %s", tunes[t]);
        run_strided_nan(_i, &r, what);
        if (t == ntunes - 1) {
            snprintf(what, sizeof what, "failures, single n=150 with %s", tunes[t]);
            run_failures(_i, &r, 150, 0, what);
        }
        la_tune(NULL);
    }
}
END_TEST

/* The updates of strided batches through gala's GEMM kernel (lagemm.tc; la_own_gemm_tunes):
 * single and batched, both triangles, orders across one and several panels and outer
 * blocks, a strided pair with a NaN (its update skipped once it failed), failures of one
 * matrix. */
START_TEST(potrf_own_gemm)
{
    tu_rng r = tu_rng_for(__func__, _i);
    const char *tunes[LA_OWN_GEMM];
    const int nt = la_own_gemm_tunes(tu_ctx(_i), tu_target_get(_i)->dtype, tunes);
    static const int ns[] = {65, 127, 150, 257};
    for (int t = 0; t < nt; ++t) {
        la_tune(tunes[t]);
        run_orders(_i, &r, ns, 4, 3, t, tunes[t]);
        char what[200];
        snprintf(what, sizeof what, "strided pair with a NaN, with %s", tunes[t]);
        run_strided_nan(_i, &r, what);
        snprintf(what, sizeof what, "failures, single n=150 with %s", tunes[t]);
        run_failures(_i, &r, 150, 0, what);
        la_tune(NULL);
    }
}
END_TEST

/* The fused kernels' other forms: potrf_lane (one work-item per matrix, potrf.lane),
 * potrf_pair (two rows per work-item, potrf.pair) and potrf_tile (a tile of L per
 * work-item, potrf.tile; tiles of 4 and 2, 2 to 5 matrices per group, register caps, the
 * update's operands at once or a column at a time) at the orders they take: full and
 * partial work-groups, both triangles, single / batched / variable batches (larger orders mixed in go to the other kernels in the same call),
 * failures, the unrolled form the GPUs compile. */
START_TEST(potrf_fused_forms)
{
    tu_rng r = tu_rng_for(__func__, _i);
    static const struct { const char *tune; int nmax; } forms[] = {
        {"potrf.lane=16,la.min_bucket=8", 16},
        {"potrf.lane=16,potrf.lane_wg=32,potrf.lane_ch=64,la.min_bucket=4", 16},
        {"potrf.lane=8,la.unroll=1,la.min_bucket=8", 8},
        {"potrf.pair=64,potrf.pair_min=16,la.min_bucket=8", 64},
        {"potrf.pair=64,potrf.pair_min=16,potrf.wg=32,la.min_bucket=16", 64},
        {"potrf.pair=16,potrf.pair_min=16,la.unroll=1,la.min_bucket=16,potrf.fused_max=16", 16},
        {"potrf.tile=64,potrf.tile_min=8,la.min_bucket=8,potrf.p32_min=0", 64},
        {"potrf.tile=64,potrf.tile_min=8,potrf.tile_ts=2,potrf.tile_mpg=3,potrf.tile_minb=2,"
         "potrf.tile_stream=1,la.min_bucket=8,potrf.p32_min=0", 64},
        {"potrf.tile=16,potrf.tile_min=8,potrf.tile_mpg=5,la.unroll=1,la.min_bucket=8,"
         "potrf.fused_max=16", 16},
        {"potrf.tile=64,potrf.tile_min=8,potrf.tile_mpg=4,potrf.tile_minb=3,la.min_bucket=8,"
         "potrf.tile_stream=1,potrf.p32_min=0", 64},
    };
    const int nforms = (int)(sizeof forms / sizeof forms[0]);
    /* On a slow device every form and option set at order 16 at most (pair and tile of 16,
     * batches of hundreds): Mesa's llvmpipe compiles potrf_pair of 32 in 14 s and of 64 in
     * minutes (a barrier per column, each a suspension point of its coroutine), for forms
     * only NVIDIA's tuning rows turn on; PoCL and the GPUs run them at every order. */
    const int small = tu_size(2, 1, "potrf_fused_forms: orders up to 16, batches of 300") == 1;
    for (int t = 0; t < nforms; ++t) {
        char tune_small[150];
        const char *tune = forms[t].tune;
        const int nmax = small && forms[t].nmax > 16 ? 16 : forms[t].nmax;
        if (small) {
            /* potrf.pair=64 / potrf.tile=64 -> 16 */
            snprintf(tune_small, sizeof tune_small, "%s", tune);
            for (char *p = tune_small; (p = strstr(p, "=64")) != NULL; p += 3) p[1] = '1', p[2] = '6';
            tune = tune_small;
        }
        la_tune(tune);
        static const int ns[] = {1, 2, 3, 4, 5, 8, 9, 13, 16, 17, 31, 33, 64};
        for (int k = 0; k < (int)(sizeof ns / sizeof ns[0]) && ns[k] <= nmax; ++k) {
            if (nmax > 16 && ns[k] < 8 && ns[k] != 1 && ns[k] != 5) continue;
            char what[256];
            snprintf(what, sizeof what, "n=%d with %s", ns[k], tune);
            int n = ns[k], n3[3] = {n, n, n};
            run_case(_i, &r, 1, &n, (t + k) & 1, 0, what);
            run_case(_i, &r, 3, n3, (t + k + 1) & 1, 1, what);
        }
        const int big = small ? (t & 1 ? 201 : 333) : t & 1 ? 1000 : 2085; /* not a multiple of any group size */
        int *n = malloc((size_t)(big > 300 ? big : 300) * sizeof *n); /* then 300 orders */
        for (int b = 0; b < big; ++b) n[b] = nmax > 16 ? 27 : nmax == 8 ? 7 : 16;
        char what[256];
        snprintf(what, sizeof what, "batch %d of n=%d with %s", big, n[0], tune);
        run_case(_i, &r, big, n, t & 1, 1, what);
        for (int b = 0; b < 300; ++b) n[b] = tu_int(&r, 0, nmax + nmax / 4);
        snprintf(what, sizeof what, "vbatched orders 0..%d with %s", nmax + nmax / 4, tune);
        run_case(_i, &r, 300, n, !(t & 1), 2, what);
        free(n);
        const int nf = nmax == 8 ? 7 : nmax == 16 ? 13 : 29;
        snprintf(what, sizeof what, "failures, vbatched n=%d with %s", nf, tune);
        run_failures(_i, &r, nf, 1, what);
        if (t == 0 || t == 3) {
            snprintf(what, sizeof what, "failures, single n=%d with %s", nf, tune);
            run_failures(_i, &r, nf, 0, what);
        }
        /* a failed matrix keeps its columns from the event on: factoring [I, 0] again gives
         * the same non-positive-definite pivot, not a NaN written by the first call */
        gala_context *ctx = tu_ctx(_i);
        double z[2 * 9] = {0};
        for (int e = 0; e < 9; e += 4) z[e] = 1;
        gala_buffer *zb = tu_upload(ctx, tu_target_get(_i)->dtype, z, 18);
        for (int rep = 0; rep < 2; ++rep) {
            int info[2] = {5, 5};
            ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, zb, 0, 3, 9, 2, info),
                             GALA_ERR_NOT_POSITIVE_DEFINITE);
            TU_ASSERT(info[0] == 0 && info[1] == 1, _i, "%s, call %d: info %d %d, expected 0 1",
                      tune, rep, info[0], info[1]);
        }
        gala_buffer_free(zb);
        la_tune(NULL);
    }
}
END_TEST

/* The configuration GPUs run (loops unrolled) exercised on this device at small orders. */
START_TEST(potrf_unrolled)
{
    if (tu_target_get(_i)->backend == GALA_BACKEND_HOST) return;
    tu_rng r = tu_rng_for(__func__, _i);
    /* N = 8 only: CPU OpenCL compiles unrolled barrier loops slowly */
    la_tune("la.unroll=1,la.min_bucket=8,potrf.fused_max=8,potrf.nb=8,potrf.wg=16,"
            "potrf.panel_wg=16,lagemm.tile=16,lagemm.td=4,lagemm.tk=8");
    static const int ns[] = {5, 8, 30};
    for (int k = 0; k < 3; ++k) {
        int n = ns[k], n3[3] = {n, n, n};
        run_case(_i, &r, 3, n3, k & 1, 1, "unrolled kernels");
    }
    la_tune(NULL);
}
END_TEST

START_TEST(potrf_bad_arguments)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *A = tu_poisoned(ctx, dt, 100), *I32;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 100, &I32));
    int info[4];
    ck_assert_int_eq(gala_potrf(NULL, GALA_LOWER, 3, A, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf(ctx, (gala_uplo)7, 3, A, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "uplo") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_potrf(ctx, GALA_LOWER, -1, A, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf(ctx, GALA_LOWER, 4, A, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "leading dimension") != NULL, "%s",
                  gala_last_error(ctx));
    ck_assert_int_eq(gala_potrf(ctx, GALA_LOWER, 10, A, 1, 10, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "too small") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_potrf(ctx, GALA_LOWER, 3, NULL, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf(ctx, GALA_LOWER, 3, I32, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, A, 0, 3, 9, -1, info),
                     GALA_ERR_INVALID_ARG);
    /* matrices of a batch overlapping, or past the end */
    ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, A, 0, 3, 4, 3, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "overlap") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, A, 0, 3, 0, 2, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, A, 0, 3, 9, 12, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, A, 0, 3, SIZE_MAX / 2, 3, info),
                     GALA_ERR_INVALID_ARG);
    /* vertically stacked matrices (stride 3 inside ld 9) are fine: three identity blocks */
    double eye[81];
    for (int i = 0; i < 81; ++i) eye[i] = (i % 9) % 3 == (i / 9) && i / 9 < 3 ? 1 : 0;
    gala_buffer *S = tu_upload(ctx, dt, eye, 81);
    TU_OK(ctx, gala_potrf_batched(ctx, GALA_LOWER, 3, S, 0, 9, 3, 3, info));
    ck_assert_int_eq(gala_potrf_batched(ctx, GALA_LOWER, 3, S, 1, 9, 3, 3, info),
                     GALA_ERR_INVALID_ARG);
    gala_buffer_free(S);
    /* variable batches */
    int n2[2] = {3, 3}, ld2[2] = {3, 3}, nneg[2] = {3, -1}, ldbad[2] = {3, 2};
    size_t off2[2] = {0, 9}, offov[2] = {0, 5}, offout[2] = {0, 95};
    ck_assert_int_eq(gala_potrf_vbatched(ctx, GALA_LOWER, NULL, A, off2, ld2, 2, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf_vbatched(ctx, GALA_LOWER, nneg, A, off2, ld2, 2, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "matrix 1") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_potrf_vbatched(ctx, GALA_LOWER, n2, A, off2, ldbad, 2, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf_vbatched(ctx, GALA_LOWER, n2, A, offov, ld2, 2, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "overlap") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_potrf_vbatched(ctx, GALA_LOWER, n2, A, offout, ld2, 2, info),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_potrf_vbatched(ctx, GALA_LOWER, n2, A, off2, ld2, -3, info),
                     GALA_ERR_INVALID_ARG);
    /* a buffer of another context */
    gala_context *other;
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    TU_OK(NULL, gala_context_create(&o, &other));
    gala_buffer *X = tu_poisoned(other, dt, 100);
    ck_assert_int_eq(gala_potrf(ctx, GALA_LOWER, 3, X, 0, 3, info), GALA_ERR_INVALID_ARG);
    gala_context_destroy(other);
    /* n = 0 and batch = 0 do nothing and succeed */
    info[0] = 9;
    TU_OK(ctx, gala_potrf(ctx, GALA_LOWER, 0, A, 0, 1, info));
    ck_assert_int_eq(info[0], 0);
    TU_OK(ctx, gala_potrf_batched(ctx, GALA_UPPER, 5, A, 0, 5, 25, 0, NULL));
    double v[100];
    tu_download(A, 0, v, 100);
    for (int i = 0; i < 100; ++i) ck_assert(isnan(v[i]));
    gala_buffer_free(A);
    gala_buffer_free(I32);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("potrf");
    TCase *tc = tcase_create("potrf");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, potrf_sizes, 0, nt);
    tcase_add_loop_test(tc, potrf_n1000, 0, nt);
    tcase_add_loop_test(tc, potrf_blas3_paths, 0, nt);
    tcase_add_loop_test(tc, potrf_large, 0, nt);
    tcase_add_loop_test(tc, potrf_batches, 0, nt);
    tcase_add_loop_test(tc, potrf_vbatched, 0, nt);
    tcase_add_loop_test(tc, potrf_vb_layout_reuse, 0, nt);
    tcase_add_loop_test(tc, potrf_failures, 0, nt);
    tcase_add_loop_test(tc, potrf_async, 0, nt);
    tcase_add_loop_test(tc, potrf_faults, 0, nt);
    tcase_add_loop_test(tc, potrf_psolve, 0, nt);
    tcase_add_loop_test(tc, potrf_own_gemm, 0, nt);
    tcase_add_loop_test(tc, potrf_two_panels, 0, nt);
    tcase_add_loop_test(tc, potrf_fused_forms, 0, nt);
    tcase_add_loop_test(tc, potrf_unrolled, 0, nt);
    tcase_add_loop_test(tc, potrf_bad_arguments, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
