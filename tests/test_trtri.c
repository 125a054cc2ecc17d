/* Triangular inverse (trtri.h) on every target, against double references and the identity.
 *
 * Inputs are well-conditioned triangular matrices of two kinds:
 *   kind 0  L = D·(I − E), E >= 0 strictly lower with entries in [0, 2/n), D = ±(0.5..1.5):
 *           every entry of L⁻¹ (column j has the sign of 1/d_j) is a sum of terms of one
 *           sign, so each entry is accurate to a few n·eps relative: checked componentwise;
 *   kind 1  random signs, rows diagonally dominant by a factor 2: checked normwise.
 * The other triangle of A and every element that must not be written hold NaN; unit
 * diagonals hold NaN too (they must not be read). Outputs start as NaN and every element
 * outside the written triangles must come back unchanged. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "core/internal.h" /* gala_fault_arm: failures injected into the library */

/* One matrix of a case: order, offsets and leading dimensions in the host copies. */
typedef struct tmat {
    int n, lda, ldb;
    size_t ao, bo;
} tmat;

typedef struct tcase {
    int upper, unit, inplace, kind, batch;
    tmat *m;
    size_t la, lb;
    double *A;  /* storage of A (in place: also B before the call) */
    double *B0; /* B before the call */
    int *want;  /* expected info (NULL: all 0) */
} tcase;

static size_t pos(size_t off, int ld, int upper, int i, int j)
{
    return upper ? off + (size_t)j + (size_t)i * (size_t)ld : off + (size_t)i + (size_t)j * (size_t)ld;
}

static double lval(const tcase *c, const tmat *m, int i, int j)
{
    if (j > i) return 0;
    if (i == j && c->unit) return 1;
    return c->A[pos(m->ao, m->lda, c->upper, i, j)];
}

static int log2i(int n)
{
    int l = 0;
    while ((1 << l) < n) ++l;
    return l;
}

/* Fill the referenced triangle of each matrix (logical lower L). */
static void fill(tcase *c, tu_rng *r, gala_dtype dt)
{
    for (size_t k = 0; k < c->la; ++k) c->A[k] = NAN;
    for (int b = 0; b < c->batch; ++b) {
        const tmat *m = &c->m[b];
        const int n = m->n;
        for (int i = 0; i < n; ++i) {
            const double sgn = tu_uniform(r) < 0.5 ? -1 : 1;
            const double d = c->kind == 0 ? sgn * (0.5 + tu_uniform(r)) : sgn;
            double rowsum = 0;
            for (int j = 0; j < i; ++j) {
                double v;
                if (c->kind == 0) v = -(c->unit ? 1 : d) * tu_uniform(r) * 2.0 / n;
                else v = (2 * tu_uniform(r) - 1) * (c->unit ? 0.5 / i : 1);
                c->A[pos(m->ao, m->lda, c->upper, i, j)] = v;
                rowsum += fabs(v);
            }
            c->A[pos(m->ao, m->lda, c->upper, i, i)] =
                c->unit ? NAN : (c->kind == 0 ? d : d * (1 + 2 * rowsum));
        }
    }
    tu_round(dt, c->A, c->la);
}

/* Make the host arrays for matrices already placed in c->m. */
static void alloc_case(tcase *c)
{
    size_t la = 1, lb = 1;
    for (int b = 0; b < c->batch; ++b) {
        const tmat *m = &c->m[b];
        if (m->n == 0) continue;
        size_t ea = m->ao + (size_t)(m->n - 1) * (size_t)m->lda + (size_t)m->n;
        size_t eb = m->bo + (size_t)(m->n - 1) * (size_t)m->ldb + (size_t)m->n;
        if (ea > la) la = ea;
        if (eb > lb) lb = eb;
    }
    if (c->inplace) la = lb = la > lb ? la : lb;
    c->la = la + 3;
    c->lb = lb + 3;
    c->A = malloc(c->la * sizeof(double));
    c->B0 = malloc(c->lb * sizeof(double));
    ck_assert_ptr_nonnull(c->A);
    ck_assert_ptr_nonnull(c->B0);
}

static void free_case(tcase *c)
{
    free(c->A);
    free(c->B0);
    free(c->m);
    free(c->want);
}

/* Reference inverse column j of L (double): r[i] for i >= j. Ld: L dense (n×n, logical
 * lower, unit diagonal filled in), or NULL to read A. */
static void ref_col(const tcase *c, const tmat *m, const double *Ld, int j, double *r)
{
    const int n = m->n;
    for (int i = 0; i < n; ++i) r[i] = i == j;
    for (int k = j; k < n; ++k) {
        if (Ld) {
            const double *lk = Ld + (size_t)k * n;
            const double xk = r[k] / lk[k];
            r[k] = xk;
            for (int i = k + 1; i < n; ++i) r[i] -= lk[i] * xk;
        } else {
            const double xk = r[k] / lval(c, m, k, k);
            r[k] = xk;
            for (int i = k + 1; i < n; ++i) r[i] -= lval(c, m, i, k) * xk;
        }
    }
}

/* Check matrix m of the result: sampled columns (all when n <= 1200) componentwise (kind 0)
 * or normwise (kind 1) against the double reference, and the residual of L·X = I. */
static void check_matrix(const tcase *c, int b, const double *out, char *written, int ti)
{
    const tmat *m = &c->m[b];
    const int n = m->n;
    const gala_dtype dt = tu_target_get(ti)->dtype;
    const double eps = tu_eps(dt), lg = 1 + log2i(n);
    const int all = n <= 1200;
    double *r = malloc((size_t)n * sizeof(double)), *x = malloc((size_t)n * sizeof(double));
    double *X = all ? malloc((size_t)n * (size_t)n * sizeof(double)) : NULL;
    double *Ld = all ? malloc((size_t)n * (size_t)n * sizeof(double)) : NULL;
    for (int j = 0; Ld && j < n; ++j)
        for (int i = 0; i < n; ++i) Ld[(size_t)j * n + i] = lval(c, m, i, j);
    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_nonnull(x);
    double err = 0, rnorm = 0;
    int ncols = all ? n : 24;
    for (int jc = 0; jc < ncols; ++jc) {
        int j = jc;
        if (!all) {
            const int pick[8] = {0, 1, 63, 64, n / 2, n - 65, n - 2, n - 1};
            j = jc < 8 ? pick[jc] : (int)((unsigned)(jc * 2654435761u) % (unsigned)n);
        }
        ref_col(c, m, Ld, j, r);
        for (int i = j; i < n; ++i) {
            const size_t k = pos(m->bo, m->ldb, c->upper, i, j);
            if (i == j && c->unit) {
                x[i] = 1;
                continue;
            }
            written[k] = 1;
            x[i] = out[k];
            if (c->kind == 0) {
                const double tol = (2.0 * n * lg + 8) * eps * fabs(r[i]);
                TU_ASSERT(fabs(x[i] - r[i]) <= tol, ti, "n=%d matrix %d: X(%d,%d) = %.17g, want "
                          "%.17g (tol %.3g) [%s %s %s]", n, b, i, j, x[i], r[i], tol,
                          c->upper ? "upper" : "lower", c->unit ? "unit" : "non-unit",
                          c->inplace ? "in place" : "out of place");
            }
            err += (x[i] - r[i]) * (x[i] - r[i]);
            rnorm += r[i] * r[i];
        }
        if (X) {
            for (int i = 0; i < j; ++i) X[(size_t)j * n + i] = 0;
            for (int i = j; i < n; ++i) X[(size_t)j * n + i] = x[i];
        }
    }
    TU_ASSERT(sqrt(err) <= 8 * n * lg * eps * sqrt(rnorm), ti, "n=%d matrix %d: ‖X − X_ref‖ = %.3g "
              "‖X_ref‖ = %.3g (kind %d)", n, b, sqrt(err), sqrt(rnorm), c->kind);
    if (X) {
        /* ‖L·X − I‖_F / (‖L‖_F·‖X‖_F) */
        double res = 0, ln = 0, xn = 0;
        double *col = malloc((size_t)n * sizeof(double));
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < n; ++i) col[i] = -(i == j);
            for (int k = j; k < n; ++k) {
                const double xkj = X[(size_t)j * n + k], *lk = Ld + (size_t)k * n;
                for (int i = k; i < n; ++i) col[i] += lk[i] * xkj;
            }
            for (int i = j; i < n; ++i) {
                res += col[i] * col[i];
                ln += Ld[(size_t)j * n + i] * Ld[(size_t)j * n + i];
                xn += X[(size_t)j * n + i] * X[(size_t)j * n + i];
            }
        }
        free(col);
        free(Ld);
        const double rel = sqrt(res) / (sqrt(ln) * sqrt(xn));
        TU_ASSERT(rel <= 4 * n * eps, ti, "n=%d matrix %d: ‖L·X − I‖/(‖L‖‖X‖) = %.3g > %.3g", n,
                  b, rel, 4 * n * eps);
        free(X);
    } else {
        /* all of X through a random product: X·(L·v) = v, bound |X|·|L|·|v| */
        double *v = r, *y = malloc((size_t)n * sizeof(double)), *ya = malloc((size_t)n * sizeof(double));
        double *z = malloc((size_t)n * sizeof(double)), *za = malloc((size_t)n * sizeof(double));
        for (int i = 0; i < n; ++i) v[i] = (double)((i * 7919) % 13) - 6 + 0.25;
        for (int i = 0; i < n; ++i) {
            double s = 0, sa = 0;
            for (int k = 0; k <= i; ++k) {
                s += lval(c, m, i, k) * v[k];
                sa += fabs(lval(c, m, i, k) * v[k]);
            }
            y[i] = s;
            ya[i] = sa;
        }
        for (int i = 0; i < n; ++i) z[i] = za[i] = 0;
        for (int j = 0; j < n; ++j)
            for (int i = j; i < n; ++i) {
                const size_t k = pos(m->bo, m->ldb, c->upper, i, j);
                const double xij = (i == j && c->unit) ? 1 : out[k];
                if (!(i == j && c->unit)) written[k] = 1;
                z[i] += xij * y[j];
                za[i] += fabs(xij) * ya[j];
            }
        for (int i = 0; i < n; ++i)
            TU_ASSERT(fabs(z[i] - v[i]) <= 4 * n * lg * eps * za[i], ti, "n=%d matrix %d: "
                      "(X·L·v)[%d] = %.17g, want %.17g", n, b, i, z[i], v[i]);
        free(y); free(ya); free(z); free(za);
    }
    free(r);
    free(x);
}

/* Run the case's call (by `how`: 0 single, 1 batched with the uniform layout, 2 vbatched)
 * and check everything. */
static void run_case(tcase *c, int how, size_t a_stride, size_t b_stride, int ti)
{
    gala_context *ctx = tu_ctx(ti);
    const gala_dtype dt = tu_target_get(ti)->dtype;
    if (c->inplace) memcpy(c->B0, c->A, c->lb * sizeof(double));
    else
        for (size_t k = 0; k < c->lb; ++k) c->B0[k] = NAN;
    gala_buffer *bA = tu_upload(ctx, dt, c->A, c->la);
    gala_buffer *bB = c->inplace ? bA : tu_upload(ctx, dt, c->B0, c->lb);
    int *info = malloc(((size_t)c->batch + 1) * sizeof(int));
    for (int b = 0; b <= c->batch; ++b) info[b] = -12345;
    const gala_uplo uplo = c->upper ? GALA_UPPER : GALA_LOWER;
    const gala_diag diag = c->unit ? GALA_UNIT : GALA_NON_UNIT;
    gala_status s;
    if (how == 0) {
        s = gala_trtri(ctx, uplo, diag, c->m[0].n, bA, c->m[0].ao, c->m[0].lda, bB, c->m[0].bo,
                       c->m[0].ldb, info);
    } else if (how == 1) {
        s = gala_trtri_batched(ctx, uplo, diag, c->m[0].n, bA, c->m[0].ao, c->m[0].lda, a_stride,
                               bB, c->m[0].bo, c->m[0].ldb, b_stride, c->batch, info);
    } else {
        int *nv = malloc((size_t)c->batch * sizeof(int) + 1), *lda = malloc((size_t)c->batch * sizeof(int) + 1);
        int *ldb = malloc((size_t)c->batch * sizeof(int) + 1);
        size_t *ao = malloc((size_t)c->batch * sizeof(size_t) + 1), *bo = malloc((size_t)c->batch * sizeof(size_t) + 1);
        for (int b = 0; b < c->batch; ++b) {
            nv[b] = c->m[b].n; lda[b] = c->m[b].lda; ldb[b] = c->m[b].ldb;
            ao[b] = c->m[b].ao; bo[b] = c->m[b].bo;
        }
        s = gala_trtri_vbatched(ctx, uplo, diag, nv, bA, ao, lda, bB, bo, ldb, c->batch, info);
        free(nv); free(lda); free(ldb); free(ao); free(bo);
    }
    gala_status want_s = GALA_OK;
    for (int b = 0; c->want && b < c->batch; ++b) {
        if (c->want[b] < 0) want_s = GALA_ERR_NOT_FINITE;
        else if (c->want[b] > 0 && want_s == GALA_OK) want_s = GALA_ERR_SINGULAR;
    }
    TU_ASSERT(s == want_s, ti, "trtri (how %d, batch %d, n0 %d) returned %s, want %s: %s", how,
              c->batch, c->m[0].n, gala_status_string(s), gala_status_string(want_s),
              gala_last_error(ctx));
    for (int b = 0; b < c->batch; ++b)
        TU_ASSERT(info[b] == (c->want ? c->want[b] : 0), ti, "info[%d] = %d, want %d (n = %d)", b,
                  info[b], c->want ? c->want[b] : 0, c->m[b].n);
    TU_ASSERT(info[c->batch] == -12345, ti, "info written past the batch");
    double *out = malloc(c->lb * sizeof(double));
    char *written = calloc(c->lb, 1);
    tu_download(bB, 0, out, c->lb);
    for (int b = 0; b < c->batch; ++b)
        if (c->m[b].n > 0 && !(c->want && c->want[b])) check_matrix(c, b, out, written, ti);
    for (size_t k = 0; k < c->lb; ++k) {
        if (written[k]) continue;
        TU_ASSERT(out[k] == c->B0[k] || (isnan(out[k]) && isnan(c->B0[k])), ti, "element %zu "
                  "outside the results changed: %.17g -> %.17g", k, c->B0[k], out[k]);
    }
    free(out);
    free(written);
    free(info);
    if (!c->inplace) gala_buffer_free(bB);
    gala_buffer_free(bA);
}

/* A uniform batch: matrices at a_off + b·a_stride (B likewise), random gaps. */
static void uniform_case(tu_rng *r, int ti, int how, int n, int batch, int upper, int unit,
                         int inplace, int kind)
{
    tcase c;
    memset(&c, 0, sizeof c);
    c.upper = upper; c.unit = unit; c.inplace = inplace; c.kind = kind; c.batch = batch;
    c.m = malloc((size_t)(batch ? batch : 1) * sizeof(tmat));
    const int n1 = n > 1 ? n : 1;
    const int lda = n1 + tu_int(r, 0, 2) * (n < 100 ? 1 : 3), ldb = inplace ? lda : n1 + tu_int(r, 0, 2);
    const size_t ea = (size_t)(n ? n - 1 : 0) * (size_t)lda + (size_t)n;
    const size_t eb = (size_t)(n ? n - 1 : 0) * (size_t)ldb + (size_t)n;
    const size_t as = ea + (size_t)tu_int(r, 0, 5), bs = inplace ? as : eb + (size_t)tu_int(r, 0, 5);
    const size_t ao = (size_t)tu_int(r, 0, 4), bo = inplace ? ao : (size_t)tu_int(r, 0, 4);
    c.m[0] = (tmat){n, lda, ldb, ao, bo};
    for (int b = 1; b < batch; ++b) c.m[b] = (tmat){n, lda, ldb, ao + (size_t)b * as, bo + (size_t)b * bs};
    alloc_case(&c);
    fill(&c, r, tu_target_get(ti)->dtype);
    run_case(&c, how, as, bs, ti);
    free_case(&c);
}

START_TEST(trtri_single_sizes)
{
    tu_rng r = tu_rng_for(__func__, _i);
    static const int sizes[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 100, 257, 1000};
    for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s) {
        const int n = sizes[s];
        const int combos = n <= 100 ? 8 : 2;
        for (int k = 0; k < combos; ++k) {
            const int v = n <= 100 ? k : (k + s) % 8;
            uniform_case(&r, _i, 0, n, 1, v & 1, (v >> 1) & 1, (v >> 2) & 1, (k + s) & 1);
        }
    }
}
END_TEST

START_TEST(trtri_large)
{
    /* one n >= 4000 per target: ragged last block and pairs (4099 = 64·64 + 3: its last
     * round, s = 4096, pairs 4096 rows with 3); on a slow device n = 1027 = 16·64 + 3: the
     * same ragged block and last pair (s = 1024 with 3 rows), the same programs, without
     * the rounds of s = 2048 and 4096 (the same kernels over more tiles) */
    tu_rng r = tu_rng_for(__func__, _i);
    const int upper = tu_target_get(_i)->dtype == GALA_FLOAT;
    uniform_case(&r, _i, 0, tu_size(4099, 1027, "trtri_large"), 1, upper, 0, 1, 0);
}
END_TEST

START_TEST(trtri_batched)
{
    tu_rng r = tu_rng_for(__func__, _i);
    typedef struct { int n, batch; } nb;
    static const nb cases[] = {{3, 10000}, {17, 1000}, {32, 1000}, {64, 7}, {33, 7},
                               {65, 7},    {130, 7},   {200, 1},  {8, 1},  {0, 5}, {5, 0}};
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); ++k)
        uniform_case(&r, _i, 1, cases[k].n, cases[k].batch, k & 1, (k >> 1) & 1, (k >> 2) & 1,
                     k % 3 == 0);
}
END_TEST

/* Variable batches: sizes 0..300 in one buffer, random order, gaps and leading dimensions. */
static void var_case(tu_rng *r, int ti, int batch, int nmax, int upper, int unit, int inplace)
{
    tcase c;
    memset(&c, 0, sizeof c);
    c.upper = upper; c.unit = unit; c.inplace = inplace; c.kind = (batch + upper) & 1;
    c.batch = batch;
    c.m = malloc((size_t)batch * sizeof(tmat));
    size_t ao = (size_t)tu_int(r, 0, 3), bo = (size_t)tu_int(r, 0, 3);
    for (int b = 0; b < batch; ++b) {
        const double u = tu_uniform(r);
        const int n = u < 0.05 ? 0 : u < 0.6 ? tu_int(r, 1, 64) : tu_int(r, 1, nmax);
        const int lda = (n ? n : 1) + tu_int(r, 0, 3), ldb = inplace ? lda : (n ? n : 1) + tu_int(r, 0, 3);
        c.m[b] = (tmat){n, lda, ldb, ao, inplace ? ao : bo};
        ao += (size_t)(n ? n - 1 : 0) * (size_t)lda + (size_t)n + (size_t)tu_int(r, 0, 4);
        bo += (size_t)(n ? n - 1 : 0) * (size_t)ldb + (size_t)n + (size_t)tu_int(r, 0, 4);
    }
    alloc_case(&c);
    fill(&c, r, tu_target_get(ti)->dtype);
    run_case(&c, 2, 0, 0, ti);
    free_case(&c);
}

START_TEST(trtri_vbatched)
{
    tu_rng r = tu_rng_for(__func__, _i);
    var_case(&r, _i, 150, 300, 0, 0, 0);
    var_case(&r, _i, 60, 300, 1, 0, 1);
    var_case(&r, _i, 40, 200, 0, 1, 1);
    var_case(&r, _i, 40, 200, 1, 1, 0);
    var_case(&r, _i, 1, 300, 0, 0, 0);
}
END_TEST

/* Singular and NaN/Inf matrices: documented info, status and message; the others are
 * still inverted and the failing ones are left untouched. how: 1 batched, 2 vbatched. */
static void bad_case(tu_rng *r, int ti, int n, int how, int upper, int inplace, int only_singular)
{
    gala_context *ctx = tu_ctx(ti);
    const int batch = 7;
    tcase c;
    memset(&c, 0, sizeof c);
    c.upper = upper; c.inplace = inplace; c.kind = 0; c.batch = batch;
    c.m = malloc((size_t)batch * sizeof(tmat));
    c.want = calloc((size_t)batch, sizeof(int));
    const size_t ea = (size_t)(n - 1) * (size_t)n + (size_t)n;
    for (int b = 0; b < batch; ++b) c.m[b] = (tmat){n, n, n, (size_t)b * ea, (size_t)b * ea};
    alloc_case(&c);
    fill(&c, r, tu_target_get(ti)->dtype);
    const int j = n / 2, i = n - 1; /* logical positions */
    const tmat *m = c.m;
    /* matrix 1: zero diagonal at column j+1 and a later one */
    c.A[pos(m[1].ao, n, upper, j, j)] = 0;
    c.A[pos(m[1].ao, n, upper, n - 1, n - 1)] = 0;
    c.want[1] = j + 1;
    /* matrix 6: zero in the first column */
    c.A[pos(m[6].ao, n, upper, 0, 0)] = 0;
    c.want[6] = 1;
    if (!only_singular) {
        /* matrix 2: NaN at logical (i, j): storage column j+1 (lower) or i+1 (upper) */
        c.A[pos(m[2].ao, n, upper, i, j)] = NAN;
        c.want[2] = -(upper ? i + 1 : j + 1);
        /* matrix 4: Inf on the diagonal at 1 and zero at 0: NaN/Inf wins */
        c.A[pos(m[4].ao, n, upper, 1, 1)] = INFINITY;
        c.A[pos(m[4].ao, n, upper, 0, 0)] = 0;
        c.want[4] = -2;
        /* matrix 5: -Inf below the diagonal */
        c.A[pos(m[5].ao, n, upper, n - 1, 0)] = -INFINITY;
        c.want[5] = -(upper ? n : 1);
    }
    run_case(&c, how, ea, ea, ti);
    const char *msg = gala_last_error(ctx);
    TU_ASSERT(strstr(msg, only_singular ? "first failing matrix: 1" : "NaN/Inf: 2") != NULL, ti,
              "message does not name the first failing matrix: %s", msg);
    free_case(&c);
}

START_TEST(trtri_singular_and_nan)
{
    tu_rng r = tu_rng_for(__func__, _i);
    for (int k = 0; k < 8; ++k) {
        const int n = k & 1 ? 100 : 10; /* fused and blocked paths */
        bad_case(&r, _i, n, 1 + ((k >> 1) & 1), (k >> 2) & 1, k & 1, 0);
    }
    bad_case(&r, _i, 20, 1, 0, 0, 1);
    bad_case(&r, _i, 80, 2, 1, 1, 1);
    /* unit diagonal: zeros and NaNs on the diagonal are not referenced */
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    for (int n = 5; n <= 70; n += 65) {
        double *a = malloc((size_t)n * n * sizeof(double));
        for (int q = 0; q < n * n; ++q) a[q] = 0;
        for (int q = 0; q < n; ++q) a[q * n + q] = q % 2 ? NAN : 0;
        gala_buffer *bA = tu_upload(ctx, dt, a, (size_t)n * n);
        int info = 7;
        TU_OK(ctx, gala_trtri(ctx, GALA_LOWER, GALA_UNIT, n, bA, 0, n, bA, 0, n, &info));
        ck_assert_int_eq(info, 0);
        /* without an info array the status still tells: NaN in column 2 wins over the zero
         * in column 1 */
        ck_assert_int_eq(gala_trtri(ctx, GALA_LOWER, GALA_NON_UNIT, n, bA, 0, n, bA, 0, n, NULL),
                         GALA_ERR_NOT_FINITE);
        ck_assert_msg(strstr(gala_last_error(ctx), "NaN/Inf: 0: NaN or Inf in column 2") != NULL,
                      "%s", gala_last_error(ctx));
        TU_OK(ctx, gala_buffer_fill(bA, n + 1, 1, 3));
        ck_assert_int_eq(gala_trtri(ctx, GALA_LOWER, GALA_NON_UNIT, n, bA, 0, n, bA, 0, n, NULL),
                         GALA_ERR_NOT_FINITE);
        ck_assert_msg(strstr(gala_last_error(ctx), "column 4") != NULL, "%s", gala_last_error(ctx));
        gala_buffer_free(bA);
        free(a);
    }
}
END_TEST

START_TEST(trtri_bad_arguments)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *A = tu_poisoned(ctx, dt, 100), *B = tu_poisoned(ctx, dt, 100), *I, *O = NULL;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 100, &I));
    O = tu_other_precision(ctx, dt, 100, "trtri_bad_arguments: mixed precisions");
    const gala_uplo L = GALA_LOWER;
    const gala_diag N = GALA_NON_UNIT;
    int info[4];
    ck_assert_int_eq(gala_trtri(NULL, L, N, 3, A, 0, 3, B, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri(ctx, (gala_uplo)0, N, 3, A, 0, 3, B, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "uplo") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_trtri(ctx, L, (gala_diag)1, 3, A, 0, 3, B, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri(ctx, L, N, -1, A, 0, 3, B, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, A, 0, 2, B, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "lda") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, A, 0, 3, B, 0, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri(ctx, L, N, 0, A, 0, 0, B, 0, 1, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, NULL, 0, 3, B, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, A, 0, 3, NULL, 0, 3, info), GALA_ERR_INVALID_ARG);
    /* past the end: 10×10 at offset 1 needs 101 elements */
    ck_assert_int_eq(gala_trtri(ctx, L, N, 10, A, 1, 10, B, 0, 10, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "too small") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_trtri(ctx, L, N, 10, A, 0, 10, B, 1, 10, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, I, 0, 3, B, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, A, 0, 3, I, 0, 3, info), GALA_ERR_INVALID_ARG);
    if (O) ck_assert_int_eq(gala_trtri(ctx, L, N, 3, A, 0, 3, O, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "expected") != NULL, "%s", gala_last_error(ctx));
    /* partial overlap of A and B */
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, A, 0, 3, A, 1, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "overlaps") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, A, 0, 3, A, 0, 4, info), GALA_ERR_INVALID_ARG);
    /* batched: negative batch, overlapping outputs, stride overflow */
    ck_assert_int_eq(gala_trtri_batched(ctx, L, N, 3, A, 0, 3, 9, B, 0, 3, 9, -1, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri_batched(ctx, L, N, 3, A, 0, 3, 9, B, 0, 3, 4, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri_batched(ctx, L, N, 3, A, 0, 3, 9, B, 0, 3, 0, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri_batched(ctx, L, N, 3, A, 0, 3, SIZE_MAX / 2, B, 0, 3, 9, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri_batched(ctx, L, N, 3, A, 0, 3, 9, B, 0, 3, 9, 12, info), GALA_ERR_INVALID_ARG);
    /* a stride-0 input is fine (one matrix inverted into each output) */
    double l3[9] = {2, 1, 1, 0, 4, 1, 0, 0, 8};
    gala_buffer *A3 = tu_upload(ctx, dt, l3, 9);
    TU_OK(ctx, gala_trtri_batched(ctx, L, N, 3, A3, 0, 3, 0, B, 0, 3, 9, 3, info));
    double out[27];
    tu_download(B, 0, out, 27);
    for (int b = 0; b < 3; ++b) {
        ck_assert(out[9 * b] == 0.5 && out[9 * b + 4] == 0.25 && out[9 * b + 8] == 0.125);
        ck_assert(fabs(out[9 * b + 1] + 0.125) < 1e-6 && isnan(out[9 * b + 3]));
    }
    /* interleaved outputs (matrix b at b·3, ld 9) are fine */
    TU_OK(ctx, gala_trtri_batched(ctx, L, N, 3, A3, 0, 3, 0, B, 0, 9, 3, 3, info));
    /* nothing to do */
    TU_OK(ctx, gala_trtri_batched(ctx, L, N, 3, A, 0, 3, 9, B, 0, 3, 9, 0, NULL));
    info[0] = 5;
    TU_OK(ctx, gala_trtri_batched(ctx, L, N, 0, A, 0, 1, 9, B, 0, 1, 9, 1, info));
    ck_assert_int_eq(info[0], 0);
    /* vbatched */
    int n2[2] = {3, 3}, ld2[2] = {3, 3}, badn[2] = {3, -1};
    size_t o2[2] = {0, 9}, ob[2] = {0, 5}, far[2] = {0, 95};
    ck_assert_int_eq(gala_trtri_vbatched(ctx, L, N, NULL, A, o2, ld2, B, o2, ld2, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri_vbatched(ctx, L, N, badn, A, o2, ld2, B, o2, ld2, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "n[1]") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_trtri_vbatched(ctx, L, N, n2, A, o2, ld2, B, ob, ld2, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "overlaps") != NULL, "%s", gala_last_error(ctx));
    /* the same overlap with the matrices listed out of order (the check sorts them then) */
    size_t obr[2] = {5, 0};
    ck_assert_int_eq(gala_trtri_vbatched(ctx, L, N, n2, A, o2, ld2, B, obr, ld2, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "overlaps") != NULL, "%s", gala_last_error(ctx));
    /* out of order but disjoint passes the argument checks (A holds NaN here: the call then
     * reports that, per matrix, not an argument error) */
    size_t orev[2] = {9, 0};
    gala_status srev = gala_trtri_vbatched(ctx, L, N, n2, A, o2, ld2, B, orev, ld2, 2, info);
    ck_assert_msg(srev != GALA_ERR_INVALID_ARG, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_trtri_vbatched(ctx, L, N, n2, A, o2, ld2, B, far, ld2, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "matrix 1") != NULL, "%s", gala_last_error(ctx));
    ck_assert_int_eq(gala_trtri_vbatched(ctx, L, N, n2, A, o2, ld2, A, ob, ld2, 2, info), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_trtri_vbatched(ctx, GALA_UPPER, GALA_UNIT, NULL, A, NULL, NULL, B, NULL, NULL, 0, NULL), GALA_OK);
    gala_context *other = NULL;
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    TU_OK(NULL, gala_context_create(&o, &other));
    gala_buffer *oa = tu_poisoned(other, dt, 100);
    ck_assert_int_eq(gala_trtri(ctx, L, N, 3, oa, 0, 3, B, 0, 3, info), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "another context") != NULL, "%s", gala_last_error(ctx));
    gala_context_destroy(other);
    gala_buffer_free(A); gala_buffer_free(B); gala_buffer_free(I); gala_buffer_free(A3);
    gala_buffer_free(O);
}
END_TEST

/* Other tuning values than the target's defaults (GALA_TUNE is read at every call), so
 * that every target also runs the kernel variants other devices use: unrolled register
 * loops, two columns per work-item, small blocks and tiles (several rounds, several tiles
 * per block pair), large tiles that shrink in the first round, no fused path (the blocked
 * path for n <= 64 and its info), the split diag_inv (NB = 16 with scalar local reads, and
 * the default orders) and the one-column-per-lane solve. */
START_TEST(trtri_tuning_variants)
{
    tu_rng r = tu_rng_for(__func__, _i);
    static const char *tunes[] = {
        ("trtri.unroll=1,trtri.nb=16,trtri.fused_max=16,trtri.cpt=2,trtri.split=0,trtri.ts=16,"
         "trtri.wpt=2,trtri.tk=8,trtri.wg=64,trtri.check_wg=64"),
        "trtri.cpt=2,trtri.split=0,trtri.ts=128,trtri.wpt=8,trtri.tk=16",
        "trtri.fused_max=0,trtri.nb=32,trtri.ts=16,trtri.wpt=1,trtri.tk=4,trtri.cpt=1,trtri.split=1",
        "trtri.split=1,trtri.nb=16,trtri.fused_max=16,trtri.vec=0,trtri.wg=32",
        "trtri.split=1",
    };
    static const int sizes[] = {16, 13, 7, 50, 64, 40, 150};
    char *saved = getenv("GALA_TUNE") ? strdup(getenv("GALA_TUNE")) : NULL;
    for (int t = 0; t < (int)(sizeof tunes / sizeof tunes[0]); ++t) {
        setenv("GALA_TUNE", tunes[t], 1);
        for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); ++k)
            uniform_case(&r, _i, k & 1, sizes[k], k & 1 ? 3 : 1, (k + t) & 1, k == 2, (k >> 1) & 1, k & 1);
        var_case(&r, _i, 30, 130, t & 1, 0, t == 1);
        bad_case(&r, _i, 40, 1 + (t & 1), t & 1, 1, 0);
    }
    if (saved) setenv("GALA_TUNE", saved, 1);
    else unsetenv("GALA_TUNE");
    free(saved);
}
END_TEST

/* Injected failures of the workspace allocation, of a launch in the middle of the blocked
 * path and of a transfer come back as statuses, leave no state behind (a fresh context
 * has no workspace yet), and the next call works. ASan (tools/run.sh sanitize) checks
 * that nothing leaks on these paths. */
START_TEST(trtri_injected_faults)
{
    const tu_target *tg = tu_target_get(_i);
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = tg->backend;
    gala_context *ctx = NULL;
    TU_OK(NULL, gala_context_create(&o, &ctx));
    const int n = 100;
    double *a = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n; ++i) a[(size_t)i * n + i] = 2;
    gala_buffer *A = tu_upload(ctx, tg->dtype, a, (size_t)n * n);
    int info = 5, nv[2] = {n, 10}, ld[2] = {n, 10};
    size_t off[2] = {0, 0};
    static const struct { gala_fault_kind kind; long nth; gala_status want; } f[] = {
        {GALA_FAULT_ALLOC, 1, GALA_ERR_DEVICE_MEMORY}, {GALA_FAULT_ALLOC, 2, GALA_ERR_DEVICE_MEMORY},
        {GALA_FAULT_LAUNCH, 3, GALA_ERR_DEVICE},       {GALA_FAULT_TRANSFER, 1, GALA_ERR_DEVICE},
        {GALA_FAULT_TRANSFER, 2, GALA_ERR_DEVICE},
    };
    for (int k = 0; k < (int)(sizeof f / sizeof f[0]); ++k) {
        for (int v = 0; v < 2; ++v) {
            gala_fault_arm(f[k].kind, f[k].nth);
            const gala_status s =
                v ? gala_trtri_vbatched(ctx, GALA_LOWER, GALA_NON_UNIT, nv, A, off, ld, A, off, ld, 1, &info)
                  : gala_trtri(ctx, GALA_LOWER, GALA_NON_UNIT, n, A, 0, n, A, 0, n, &info);
            gala_fault_arm(f[k].kind, 0);
            /* the fault may hit an operation that this path does not have (then: success) */
            TU_ASSERT(s == f[k].want || s == GALA_OK, _i, "fault %d/%ld (%s): got %s: %s",
                      (int)f[k].kind, f[k].nth, v ? "vbatched" : "single", gala_status_string(s),
                      gala_last_error(ctx));
            if (s != GALA_OK)
                TU_ASSERT(strstr(gala_last_error(ctx), "injected") != NULL, _i, "%s",
                          gala_last_error(ctx));
        }
    }
    /* afterwards everything works: the inverse of 2·I is I/2 */
    gala_buffer_free(A);
    A = tu_upload(ctx, tg->dtype, a, (size_t)n * n);
    TU_OK(ctx, gala_trtri(ctx, GALA_LOWER, GALA_NON_UNIT, n, A, 0, n, A, 0, n, &info));
    double *out = malloc((size_t)n * n * sizeof(double));
    tu_download(A, 0, out, (size_t)n * n);
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i)
            TU_ASSERT(out[(size_t)j * n + i] == (i == j ? 0.5 : 0), _i, "X(%d,%d) = %g", i, j,
                      out[(size_t)j * n + i]);
    free(out);
    free(a);
    gala_buffer_free(A);
    gala_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trtri");
    TCase *tc = tcase_create("trtri");
    const int nt = tu_target_count();
    tcase_add_loop_test(tc, trtri_bad_arguments, 0, nt);
    tcase_add_loop_test(tc, trtri_single_sizes, 0, nt);
    tcase_add_loop_test(tc, trtri_batched, 0, nt);
    tcase_add_loop_test(tc, trtri_vbatched, 0, nt);
    tcase_add_loop_test(tc, trtri_singular_and_nan, 0, nt);
    tcase_add_loop_test(tc, trtri_tuning_variants, 0, nt);
    tcase_add_loop_test(tc, trtri_injected_faults, 0, nt);
    tcase_add_loop_test(tc, trtri_large, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
