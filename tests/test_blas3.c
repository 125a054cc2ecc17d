/*
 * The internal BLAS-3 (src/core/blas3.h) on every target that has one (host loops,
 * CLBlast on OpenCL): GEMM in the four transpose combinations, SYRK for both triangles and
 * transposes, TRSM in all 16 side/uplo/transpose/diag combinations, against double
 * references; beta = 0 must not read C (poisoned with NaN); elements outside the outputs
 * (and the other triangle of SYRK) stay untouched; argument checks, including disjoint
 * blocks of one matrix (accepted) and overlapping ones (rejected); GEMMs ordered across the
 * two lanes of a context; the GEMM kernel parameters that tuning data hands to the BLAS
 * library (CLBlast's Xgemm on OpenCL): applied when valid, kept when not, same results.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/blas3.h"
#include "la_check.h"
#include "testutil.h"

typedef struct view {
    size_t off;
    int rows, cols, ld;
} view;

static double *rand_buf(tu_rng *r, size_t len, gala_dtype dt)
{
    double *v = malloc(len * sizeof *v);
    for (size_t i = 0; i < len; ++i) v[i] = tu_normal(r);
    tu_round(dt, v, len);
    return v;
}

static double at(const double *v, const view *x, int i, int j)
{
    return v[x->off + (size_t)i + (size_t)j * x->ld];
}

static view mkview(tu_rng *r, size_t *pos, int rows, int cols)
{
    view x;
    x.rows = rows;
    x.cols = cols;
    x.ld = (rows > 1 ? rows : 1) + tu_int(r, 0, 3);
    x.off = *pos + (size_t)tu_int(r, 0, 2);
    *pos = x.off + (size_t)x.ld * (size_t)cols;
    return x;
}

/* check C against ref inside the view (where mask allows), untouched elsewhere */
static void check_out(int ti, const char *what, const double *got, const double *before,
                      const double *ref, size_t len, const view *c, int mask, double tol)
{
    for (size_t e = 0; e < len; ++e) {
        int inside = 0;
        if (e >= c->off) {
            size_t rel = e - c->off, i = rel % (size_t)c->ld, j = rel / (size_t)c->ld;
            inside = (int)i < c->rows && (int)j < c->cols &&
                     (mask == 0 || (mask == 1 && i >= j) || (mask == 2 && i <= j));
        }
        if (inside) {
            TU_ASSERT(fabs(got[e] - ref[e]) <= tol * (1 + fabs(ref[e])), ti,
                      "%s: element %zu: got %.10g, want %.10g", what, e, got[e], ref[e]);
        } else {
            TU_ASSERT((isnan(got[e]) && isnan(before[e])) || got[e] == before[e], ti,
                      "%s: element %zu outside the output changed (%g -> %g)", what, e,
                      before[e], got[e]);
        }
    }
}

/* C = alpha·op(A)·op(B) + beta·C (37×29, k = 23; offsets and padded leading dimensions)
 * against a double reference, every element of the buffer; beta = 0: C is NaN first and
 * must not be read. */
static void gemm_case(int ti, gala_context *ctx, gala_dtype dt, tu_rng *r, gala_trans ta,
                      gala_trans tb, double alpha, double beta, const char *what)
{
    const double tol = 64 * tu_eps(dt);
    const int m = 37, n = 29, k = 23;
    size_t pos = 1;
    view a = mkview(r, &pos, ta == GALA_NO_TRANS ? m : k, ta == GALA_NO_TRANS ? k : m);
    view b = mkview(r, &pos, tb == GALA_NO_TRANS ? k : n, tb == GALA_NO_TRANS ? n : k);
    view c = mkview(r, &pos, m, n);
    const size_t len = pos + 2;
    double *v = rand_buf(r, len, dt);
    if (beta == 0) /* beta = 0: C must not be read */
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) v[c.off + (size_t)i + (size_t)j * c.ld] = NAN;
    double *ref = malloc(len * sizeof *ref), *got = malloc(len * sizeof *got);
    memcpy(ref, v, len * sizeof *ref);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double s = 0;
            for (int p = 0; p < k; ++p)
                s += (ta == GALA_NO_TRANS ? at(v, &a, i, p) : at(v, &a, p, i)) *
                     (tb == GALA_NO_TRANS ? at(v, &b, p, j) : at(v, &b, j, p));
            double *cr = &ref[c.off + (size_t)i + (size_t)j * c.ld];
            *cr = alpha * s + (beta == 0 ? 0 : beta * *cr);
        }
    gala_buffer *buf = tu_upload(ctx, dt, v, len);
    TU_OK(ctx, gala_gemm(ctx, ta, tb, m, n, k, alpha, buf, a.off, a.ld, buf, b.off, b.ld, beta,
                         buf, c.off, c.ld));
    tu_download(buf, 0, got, len);
    check_out(ti, what, got, v, ref, len, &c, 0, tol * k);
    gala_buffer_free(buf);
    free(v);
    free(ref);
    free(got);
}

/* GEMM in the four transpose cases (beta 0 and -0.5), SYRK in both triangles and
 * transposes (beta 0 and 1) */
static void gemm_syrk_all(int ti, gala_context *ctx, gala_dtype dt, tu_rng *rp, const char *gw,
                          const char *sw)
{
    tu_rng r = *rp;
    for (int t = 0; t < 8; ++t)
        gemm_case(ti, ctx, dt, &r, (t & 1) ? GALA_TRANS : GALA_NO_TRANS,
                  (t & 2) ? GALA_TRANS : GALA_NO_TRANS, 1.5, (t & 4) ? -0.5 : 0.0, gw);
    const double tol = 64 * tu_eps(dt);
    const int n = 29, k = 23;
    for (int t = 0; t < 8; ++t) {
        gala_uplo ul = (t & 1) ? GALA_UPPER : GALA_LOWER;
        gala_trans tr = (t & 2) ? GALA_TRANS : GALA_NO_TRANS;
        const double alpha = -0.75, beta = (t & 4) ? 0.0 : 1.0;
        size_t pos = 0;
        view a = mkview(&r, &pos, tr == GALA_NO_TRANS ? n : k, tr == GALA_NO_TRANS ? k : n);
        view c = mkview(&r, &pos, n, n);
        const size_t len = pos + 1;
        double *v = rand_buf(&r, len, dt);
        for (int j = 0; j < n; ++j) /* the other triangle: NaN, must stay */
            for (int i = 0; i < n; ++i)
                if ((ul == GALA_LOWER && i < j) || (ul == GALA_UPPER && i > j) || beta == 0)
                    v[c.off + (size_t)i + (size_t)j * c.ld] = NAN;
        double *ref = malloc(len * sizeof *ref), *got = malloc(len * sizeof *got);
        memcpy(ref, v, len * sizeof *ref);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                if ((ul == GALA_LOWER && i < j) || (ul == GALA_UPPER && i > j)) continue;
                double s = 0;
                for (int p = 0; p < k; ++p)
                    s += (tr == GALA_NO_TRANS ? at(v, &a, i, p) * at(v, &a, j, p)
                                              : at(v, &a, p, i) * at(v, &a, p, j));
                double *cr = &ref[c.off + (size_t)i + (size_t)j * c.ld];
                *cr = alpha * s + (beta == 0 ? 0 : beta * *cr);
            }
        gala_buffer *buf = tu_upload(ctx, dt, v, len);
        TU_OK(ctx, gala_syrk(ctx, ul, tr, n, k, alpha, buf, a.off, a.ld, beta, buf, c.off, c.ld));
        tu_download(buf, 0, got, len);
        check_out(ti, sw, got, v, ref, len, &c, ul == GALA_LOWER ? 1 : 2, tol * k);
        gala_buffer_free(buf);
        free(v);
        free(ref);
        free(got);
    }
    *rp = r;
}

START_TEST(blas3_gemm_syrk)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    if (!gala_blas3_available(ctx)) {
        gala_buffer *b = tu_poisoned(ctx, dt, 16);
        ck_assert_int_eq(gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, 2, 2, 2, 1, b, 0, 2, b, 4, 2,
                                   0, b, 8, 2), GALA_ERR_NOT_SUPPORTED);
        gala_buffer_free(b);
        return;
    }
    gemm_syrk_all(_i, ctx, dt, &r, "gemm", "syrk");
}
END_TEST

/* gala's own GEMM kernel (cl/gemm_tc.cl, blas3.tc; loops on the host backend): tiles of 16×8 with
 * steps of 4 (several tiles, tiles above the SYRK triangle skipped, k not a multiple of the
 * step) and the default tiles; the tensor-core form too where the device is NVIDIA's and
 * the dtype double. */
START_TEST(blas3_own_kernel)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    if (!gala_blas3_available(ctx)) return;
    gala_device_info info;
    gala_context_info(ctx, &info);
    const int tc = dt == GALA_DOUBLE && strstr(info.vendor_name, "NVIDIA") != NULL ? 2 : 1;
    gala_tc_tiles tiles;
    for (int mode = 1; mode <= tc; ++mode)
        for (int small = 0; small < 2; ++small) {
            char tune[200], gw[240], sw[240];
            snprintf(tune, sizeof tune, "blas3.tc=%d%s", mode,
                     small ? ",blas3.tc_wm=1,blas3.tc_wn=1,blas3.tc_wgm=2,blas3.tc_wgn=1,"
                             "blas3.tc_kt=4" : "");
            snprintf(gw, sizeof gw, "gemm with %s", tune);
            snprintf(sw, sizeof sw, "syrk with %s", tune);
            la_tune(tune);
            ck_assert_int_eq(gala_tc_mode(ctx, "blas3", dt, 37, 29, &tiles), mode);
            gemm_syrk_all(_i, ctx, dt, &r, gw, sw);
            la_tune(NULL);
        }
    /* tiles whose two local buffers exceed 48 KiB: the library computes instead */
    la_tune("blas3.tc=2,blas3.tc_kt=64");
    ck_assert_int_eq(gala_tc_mode(ctx, "blas3", dt, 37, 29, &tiles), 0);
    gemm_syrk_all(_i, ctx, dt, &r, "gemm, tiles too large for the kernel",
                  "syrk, tiles too large for the kernel");
    la_tune(NULL);
}
END_TEST

/* Whether target i runs the TRSM tests: where there is BLAS-3, and in float only on OpenCL
 * (CLBlast's double TRSM takes long to compile on CPU OpenCL) */
static int trsm_runs(gala_context *ctx, int i)
{
    return gala_blas3_available(ctx) &&
           (tu_target_get(i)->backend == GALA_BACKEND_HOST || tu_target_get(i)->dtype != GALA_DOUBLE);
}

START_TEST(blas3_trsm)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    if (!trsm_runs(ctx, _i)) return;
    const double tol = 256 * tu_eps(dt);
    const int m = 23, n = 17;
    for (int t = 0; t < 16; ++t) {
        gala_side side = (t & 1) ? GALA_RIGHT : GALA_LEFT;
        gala_uplo ul = (t & 2) ? GALA_UPPER : GALA_LOWER;
        gala_trans tr = (t & 4) ? GALA_TRANS : GALA_NO_TRANS;
        gala_diag dg = (t & 8) ? GALA_UNIT : GALA_NON_UNIT;
        const int ka = side == GALA_LEFT ? m : n;
        size_t pos = 0;
        view a = mkview(&r, &pos, ka, ka), b = mkview(&r, &pos, m, n);
        const size_t len = pos + 1;
        double *v = rand_buf(&r, len, dt);
        /* a well-conditioned triangle; the other triangle NaN (never read), and the
         * diagonal NaN too when it is unit */
        for (int j = 0; j < ka; ++j)
            for (int i = 0; i < ka; ++i) {
                double *x = &v[a.off + (size_t)i + (size_t)j * a.ld];
                if ((ul == GALA_LOWER && i < j) || (ul == GALA_UPPER && i > j)) *x = NAN;
                else if (i == j) *x = dg == GALA_UNIT ? NAN : 2 + tu_uniform(&r);
                else *x = 0.3 * tu_normal(&r) / ka;
            }
        tu_round(dt, v, len);
        double *got = malloc(len * sizeof *got), *ref = malloc(len * sizeof *ref);
        const double alpha = 2.0;
        gala_buffer *buf = tu_upload(ctx, dt, v, len);
        TU_OK(ctx, gala_trsm(ctx, side, ul, tr, dg, m, n, alpha, buf, a.off, a.ld, buf, b.off, b.ld));
        tu_download(buf, 0, got, len);
        /* check op(A)·X = alpha·B (left) or X·op(A) = alpha·B (right) with X = got */
        memcpy(ref, v, len * sizeof *ref);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) {
                double s = 0;
                for (int p = 0; p < ka; ++p) {
                    int ar = side == GALA_LEFT ? i : p, ac = side == GALA_LEFT ? p : j;
                    if (tr == GALA_TRANS) { int q = ar; ar = ac; ac = q; }
                    double av;
                    if (ar == ac) av = dg == GALA_UNIT ? 1 : at(v, &a, ar, ac);
                    else if ((ul == GALA_LOWER && ar < ac) || (ul == GALA_UPPER && ar > ac)) av = 0;
                    else av = at(v, &a, ar, ac);
                    s += av * (side == GALA_LEFT ? at(got, &b, p, j) : at(got, &b, i, p));
                }
                TU_ASSERT(fabs(s - alpha * at(v, &b, i, j)) <= tol * (1 + fabs(s)), _i,
                          "trsm case %d: residual at (%d,%d): %g vs %g", t, i, j, s,
                          alpha * at(v, &b, i, j));
                ref[b.off + (size_t)i + (size_t)j * b.ld] = got[b.off + (size_t)i + (size_t)j * b.ld];
            }
        check_out(_i, "trsm", got, v, ref, len, &b, 0, 0);
        gala_buffer_free(buf);
        free(v);
        free(got);
        free(ref);
    }
}
END_TEST

/* TRSM writes B and nothing else, also while another lane writes the same buffer. Lane 0
 * runs a GEMM on a buffer of its own and then fills the 4096 elements just before B; lane
 * 1, not ordered after it, solves for B (at the end of the buffer, A at its start). CLBlast's
 * own TRSM copies the buffer's whole range up to B's end into a temporary at its start and
 * back at its end, which undid the fill whenever it fell in between (most rounds on PoCL;
 * potrf's lookahead factored upper matrices wrongly at random for the same reason); gala's
 * call hands CLBlast a private copy of B. Each round's result is read. */
START_TEST(blas3_trsm_lanes)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    if (!trsm_runs(ctx, _i)) return;
    const int m = 256, n = 64, nw = 64, rounds = 4;
    const size_t near = 4096, pre = (size_t)m * m + near, len = pre + (size_t)m * n;
    double *v = malloc(len * sizeof *v), *got = malloc(len * sizeof *got);
    /* A = 2·I (its other triangle NaN, never read), B random: each solve halves B exactly */
    for (size_t i = 0; i < pre; ++i) v[i] = 0;
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < m; ++i) v[i + (size_t)j * m] = i == j ? 2 : i < j ? NAN : 0;
    for (size_t i = pre; i < len; ++i) v[i] = tu_normal(&r);
    tu_round(dt, v, len);
    gala_buffer *buf = tu_upload(ctx, dt, v, len);
    gala_buffer *w = tu_poisoned(ctx, dt, 2 * (size_t)nw * nw);
    TU_OK(ctx, gala_buffer_fill(w, 0, (size_t)nw * nw, 0.25));
    double half = 1;
    for (int k = 0; k < rounds; ++k) {
        const double want = 3 + k;
        half /= 2;
        TU_OK(ctx, gala_lane_wait(ctx, 1, 0)); /* lane 1 exists and follows the upload */
        TU_OK(ctx, gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, nw, nw, nw, 1.0, w, 0, nw, w, 0,
                             nw, 0.0, w, (size_t)nw * nw, nw));
        TU_OK(ctx, gala_buffer_fill(buf, pre - near, near, want));
        TU_OK(ctx, gala_lane_select(ctx, 1));
        TU_OK(ctx, gala_trsm(ctx, GALA_LEFT, GALA_LOWER, GALA_NO_TRANS, GALA_NON_UNIT, m, n, 1.0,
                             buf, 0, m, buf, pre, m));
        TU_OK(ctx, gala_lane_join(ctx, GALA_OK));
        tu_download(buf, 0, got, len);
        for (size_t i = pre - near; i < pre; ++i)
            TU_ASSERT(got[i] == want, _i, "round %d: element %zu before B is %g; the fill on "
                      "the other lane wrote %g", k, i, got[i], want);
        for (size_t i = pre; i < len; ++i)
            TU_ASSERT(got[i] == v[i] * half, _i, "round %d: B element %zu is %g, expected %g", k,
                      i - pre, got[i], v[i] * half);
    }
    gala_buffer_free(w);
    gala_buffer_free(buf);
    free(v);
    free(got);
}
END_TEST

START_TEST(blas3_arguments)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *A = tu_poisoned(ctx, dt, 400), *I32;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 400, &I32));
    ck_assert_int_eq(gala_gemm(NULL, GALA_NO_TRANS, GALA_NO_TRANS, 2, 2, 2, 1, A, 0, 2, A, 4, 2, 0,
                               A, 8, 2), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_gemm(ctx, (gala_trans)0, GALA_NO_TRANS, 2, 2, 2, 1, A, 0, 2, A, 4, 2, 0,
                               A, 8, 2), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, -2, 2, 2, 1, A, 0, 2, A, 4, 2, 0,
                               A, 8, 2), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, 3, 2, 2, 1, A, 0, 2, A, 4, 2, 0,
                               A, 8, 3), GALA_ERR_INVALID_ARG); /* lda < m */
    ck_assert_int_eq(gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, 2, 2, 2, 1, A, 0, 2, A, 4, 2, 0,
                               A, 399, 2), GALA_ERR_INVALID_ARG); /* C past the end */
    ck_assert_int_eq(gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, 2, 2, 2, 1, A, 0, 2, A, 4, 2, 0,
                               A, 2, 2), GALA_ERR_INVALID_ARG); /* C overlaps A */
    ck_assert_msg(strstr(gala_last_error(ctx), "overlaps") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, 2, 2, 2, 1, I32, 0, 2, A, 4, 2, 0,
                               A, 8, 2), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_syrk(ctx, (gala_uplo)3, GALA_NO_TRANS, 2, 2, 1, A, 0, 2, 0, A, 8, 2),
                     GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trsm(ctx, GALA_LEFT, GALA_LOWER, GALA_NO_TRANS, (gala_diag)1, 2, 2, 1,
                               A, 0, 2, A, 8, 2), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trsm(ctx, (gala_side)1, GALA_LOWER, GALA_NO_TRANS, GALA_UNIT, 2, 2, 1,
                               A, 0, 2, A, 8, 2), GALA_ERR_INVALID_ARG);
    /* disjoint blocks of one 20×20 matrix (ld 20): upper-Cholesky update pattern
     * U[4:8, 4:8] -= U[0:4, 4:8]ᵀ·U[0:4, 4:8] interleaves columns but shares no element */
    const int expect = gala_blas3_available(ctx) ? GALA_OK : GALA_ERR_NOT_SUPPORTED;
    TU_OK(ctx, gala_buffer_fill(A, 0, 400, 0.5));
    ck_assert_int_eq(gala_syrk(ctx, GALA_UPPER, GALA_TRANS, 4, 4, -1, A, 4 * 20, 20, 1, A,
                               4 + 4 * 20, 20), expect);
    ck_assert_int_eq(gala_syrk(ctx, GALA_UPPER, GALA_TRANS, 4, 5, -1, A, 4 * 20, 20, 1, A,
                               4 + 4 * 20, 20), GALA_ERR_INVALID_ARG); /* row 4 shared */
    ck_assert_int_eq(gala_gemm(ctx, GALA_NO_TRANS, GALA_TRANS, 12, 4, 4, -1, A, 8, 20, A, 4, 20, 1,
                               A, 8 + 4 * 20, 20), expect);
    /* zero sizes succeed without touching anything */
    TU_OK(ctx, gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, 0, 2, 2, 1, A, 0, 1, A, 4, 2, 0, A, 8, 1));
    TU_OK(ctx, gala_syrk(ctx, GALA_LOWER, GALA_NO_TRANS, 3, 0, 1, A, 0, 3, 1, A, 8, 3));
    gala_buffer_free(A);
    gala_buffer_free(I32);
}
END_TEST

/* Lanes (src/device/device.h): a chain of GEMMs X_{k+1} = X_k·M alternating between the
 * context's queue and the second lane, ordered only by gala_lane_wait, gives the sequential
 * result (the outputs start as NaN, so a product that ran before its input was written shows);
 * gala_lane_join returns the error it is given; lane 2 does not exist. On the host backend
 * (no lanes) the same calls run in order. */
START_TEST(blas3_lanes)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    const int has_lanes = tu_target_get(_i)->backend != GALA_BACKEND_HOST;
    ck_assert_int_eq(gala_lane_select(ctx, 2), has_lanes ? GALA_ERR_INVALID_ARG : GALA_OK);
    ck_assert_int_eq(gala_lane_join(ctx, GALA_ERR_INTERNAL), GALA_ERR_INTERNAL);
    if (!gala_blas3_available(ctx)) return;
    const int n = 160, steps = 6;
    const size_t nn = (size_t)n * n, len = nn * (size_t)(steps + 2);
    double *v = malloc(len * sizeof *v), *ref = malloc(len * sizeof *ref), *got = malloc(len * sizeof *got);
    /* M = 0.9·I + E, |E_ij| <= 0.1/n: products neither grow nor vanish */
    for (size_t i = 0; i < nn; ++i) v[i] = (2 * tu_uniform(&r) - 1) * 0.1 / n;
    for (int i = 0; i < n; ++i) v[(size_t)i * (n + 1)] += 0.9;
    for (size_t i = nn; i < 2 * nn; ++i) v[i] = tu_normal(&r);
    for (size_t i = 2 * nn; i < len; ++i) v[i] = NAN;
    tu_round(dt, v, 2 * nn);
    memcpy(ref, v, len * sizeof *ref);
    for (int k = 0; k < steps; ++k) {
        const double *x = ref + (size_t)(k + 1) * nn;
        double *y = ref + (size_t)(k + 2) * nn;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                double acc = 0;
                for (int p = 0; p < n; ++p) acc += x[i + (size_t)p * n] * ref[p + (size_t)j * n];
                y[i + (size_t)j * n] = acc;
            }
    }
    gala_buffer *buf = tu_upload(ctx, dt, v, len);
    /* a long product on lane 0 first (into a buffer of its own), so that the first product
     * on lane 1 would overtake X_1 if it were not ordered after it; lane 1 is created by the
     * first wait, which must still order it after this */
    const int nw = 384;
    gala_buffer *w = tu_poisoned(ctx, dt, 2 * (size_t)nw * nw);
    TU_OK(ctx, gala_buffer_fill(w, 0, (size_t)nw * nw, 0.25));
    for (int q = 0; q < 3; ++q)
        TU_OK(ctx, gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, nw, nw, nw, 1.0, w, 0, nw, w, 0, nw,
                             0.0, w, (size_t)nw * nw, nw));
    for (int k = 0; k < steps; ++k) {
        const int lane = k & 1;
        TU_OK(ctx, gala_lane_wait(ctx, lane, !lane));
        TU_OK(ctx, gala_lane_select(ctx, lane));
        TU_OK(ctx, gala_gemm(ctx, GALA_NO_TRANS, GALA_NO_TRANS, n, n, n, 1.0, buf,
                             (size_t)(k + 1) * nn, n, buf, 0, n, 0.0, buf, (size_t)(k + 2) * nn, n));
    }
    TU_OK(ctx, gala_lane_join(ctx, GALA_OK));
    tu_download(buf, 0, got, len);
    for (int k = 1; k <= steps; ++k) {
        const double tol = 8.0 * k * n * tu_eps(dt) * 4.0; /* |X| entries are O(1) */
        for (size_t e = 0; e < nn; ++e) {
            const size_t at_ = (size_t)(k + 1) * nn + e;
            TU_ASSERT(fabs(got[at_] - ref[at_]) <= tol * (1 + fabs(ref[at_])), _i,
                      "product %d of the lane chain: element %zu = %g, expected %g", k, e,
                      got[at_], ref[at_]);
        }
    }
    gala_buffer_free(w);
    gala_buffer_free(buf);
    free(v);
    free(ref);
    free(got);
}
END_TEST

START_TEST(blas3_kernel_params)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    if (!gala_blas3_available(ctx)) return;
    /* CLBlast's kernel 0 with 32×32 tiles of 4×4 per work-item, A in local memory only,
     * strided M: valid, and unlike CLBlast's own rows; then MWG = 40, which breaks
     * MWG % (MDIMC·VWM) = 0 and must not be applied */
    static const char *good =
        "clblast.xgemm.mwg=32,clblast.xgemm.nwg=32,clblast.xgemm.kwg=16,clblast.xgemm.kwi=2,"
        "clblast.xgemm.mdimc=8,clblast.xgemm.ndimc=8,clblast.xgemm.mdima=8,clblast.xgemm.ndimb=8,"
        "clblast.xgemm.vwm=2,clblast.xgemm.vwn=1,clblast.xgemm.sa=1,clblast.xgemm.sb=0,"
        "clblast.xgemm.strm=1,clblast.xgemm.strn=0,clblast.xgemm.gemmk=0,clblast.xgemm.kreg=1";
    static const long want[16] = {0, 1, 16, 2, 8, 8, 32, 8, 8, 32, 1, 0, 1, 0, 2, 1};
    const int has = tu_target_get(_i)->backend == GALA_BACKEND_OPENCL;
    for (int step = 0; step < 2; ++step) {
        char tune[400];
        /* blas3.tc=0: the BLAS library's GEMM, not gala's own kernel (the H200's rows) */
        snprintf(tune, sizeof tune, "blas3.tc=0,%s%s", step ? "clblast.xgemm.mwg=40," : "", good);
        la_tune(tune);
        gemm_case(_i, ctx, dt, &r, GALA_NO_TRANS, GALA_TRANS, 1.0, 0.5,
                  step ? "gemm, invalid parameters" : "gemm, tuned parameters");
        long got[16] = {0};
        const int n = gala_blas3_kernel_params(ctx, dt, got, 16);
        la_tune(NULL);
        if (!has) {
            TU_ASSERT(n == 0, _i, "a backend without kernel parameters reported %d", n);
            continue;
        }
        TU_ASSERT(n == 16, _i, "step %d: %d kernel parameters reported, want 16", step, n);
        for (int p = 0; p < 16; ++p)
            TU_ASSERT(got[p] == want[p], _i, "step %d: parameter %d is %ld, want %ld", step, p,
                      got[p], want[p]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("blas3");
    TCase *tc = tcase_create("blas3");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, blas3_gemm_syrk, 0, nt);
    tcase_add_loop_test(tc, blas3_own_kernel, 0, nt);
    tcase_add_loop_test(tc, blas3_trsm, 0, nt);
    tcase_add_loop_test(tc, blas3_trsm_lanes, 0, nt);
    tcase_add_loop_test(tc, blas3_arguments, 0, nt);
    tcase_add_loop_test(tc, blas3_lanes, 0, nt);
    tcase_add_loop_test(tc, blas3_kernel_params, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
