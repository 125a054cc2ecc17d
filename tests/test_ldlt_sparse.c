/* Sparse LDLᵀ (ldlt.h) on every target: analyze / factor / refactor / solve of random
 * quasi-definite KKT matrices (random sparse QPs and MPC block-banded patterns), batches
 * sharing a pattern and heterogeneous batches, failures and malformed inputs. The reference
 * is a plain sparse LDLᵀ written here, itself checked against a dense LDLᵀ on small cases. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kkt_gen.h"
#include "testutil.h"

static double g_normal(void *s) { return tu_normal((tu_rng *)s); }
static double g_uniform(void *s) { return tu_uniform((tu_rng *)s); }
static kkt_rng kr(tu_rng *r)
{
    kkt_rng g = {g_normal, g_uniform, r};
    return g;
}

/* ------------------------------------------------------------------ references */

/* Full symmetric y = K·x from the upper triangle; also ‖K‖∞ (max row sum). */
static double kmul(const gala_csc *K, const double *xv, double *y)
{
    const int n = K->n;
    double *rs = calloc((size_t)n + 1, sizeof *rs), an = 0;
    for (int i = 0; i < n; ++i) y[i] = 0;
    for (int j = 0; j < n; ++j)
        for (int p = K->p[j]; p < K->p[j + 1]; ++p) {
            const int i = K->i[p];
            y[i] += K->x[p] * xv[j];
            rs[i] += fabs(K->x[p]);
            if (i != j) {
                y[j] += K->x[p] * xv[i];
                rs[j] += fabs(K->x[p]);
            }
        }
    for (int i = 0; i < n; ++i) an = fmax(an, rs[i]);
    free(rs);
    return an;
}

/* ‖K x − b‖∞ / (‖K‖∞‖x‖∞ + ‖b‖∞) */
static double residual(const gala_csc *K, const double *xv, const double *b)
{
    const int n = K->n;
    double *y = malloc(((size_t)n + 1) * sizeof *y), rn = 0, xn = 0, bn = 0;
    const double an = kmul(K, xv, y);
    for (int i = 0; i < n; ++i) {
        const double d = fabs(y[i] - b[i]);
        if (!(d <= rn)) rn = d; /* NaN propagates */
        xn = fmax(xn, fabs(xv[i]));
        bn = fmax(bn, fabs(b[i]));
    }
    free(y);
    return rn / (an * xn + bn + 1e-300);
}

/* Reference sparse LDLᵀ of P·K·Pᵀ (perm[k] = original index of pivot k), left-looking with a
 * dense accumulator; columns of L as (row, value) lists, rows as (column) lists. Returns info
 * as gala defines it; d receives the pivots, npos/nneg the inertia of the nonzero finite ones.
 * Columns are kept so that ref_solve can use them. */
typedef struct ref_fact {
    int n;
    int *cp, *ci;   /* CSC of L (unsorted rows), filled as columns complete */
    double *cx, *d;
    int *perm;
} ref_fact;

static int ref_ldlt(const gala_csc *K, const int *perm, ref_fact *F, int *npos, int *nneg)
{
    const int n = K->n;
    int *pinv = malloc(((size_t)n + 1) * sizeof *pinv);
    for (int k = 0; k < n; ++k) pinv[perm[k]] = k;
    /* lower triangle of C = P K Pᵀ by columns: entries (row > col) */
    int *cc = calloc((size_t)n + 1, sizeof *cc);
    double *diag = calloc((size_t)n + 1, sizeof *diag);
    for (int j = 0; j < n; ++j)
        for (int p = K->p[j]; p < K->p[j + 1]; ++p) {
            int a = pinv[K->i[p]], b = pinv[j];
            if (a == b) diag[a] += K->x[p];
            else cc[(a < b ? a : b) + 1]++;
        }
    for (int j = 0; j < n; ++j) cc[j + 1] += cc[j];
    int *cr = malloc(((size_t)cc[n] + 1) * sizeof *cr), *fill = malloc(((size_t)n + 1) * sizeof *fill);
    double *cv = malloc(((size_t)cc[n] + 1) * sizeof *cv);
    memcpy(fill, cc, (size_t)n * sizeof *fill);
    for (int j = 0; j < n; ++j)
        for (int p = K->p[j]; p < K->p[j + 1]; ++p) {
            int a = pinv[K->i[p]], b = pinv[j];
            if (a == b) continue;
            int lo = a < b ? a : b, hi = a < b ? b : a, q = fill[lo]++;
            cr[q] = hi;
            cv[q] = K->x[p];
        }
    /* factor */
    int cap = 4 * (cc[n] + n) + 16, len = 0;
    F->n = n;
    F->cp = malloc(((size_t)n + 1) * sizeof *F->cp);
    F->ci = malloc((size_t)cap * sizeof *F->ci);
    F->cx = malloc((size_t)cap * sizeof *F->cx);
    F->d = malloc(((size_t)n + 1) * sizeof *F->d);
    F->perm = malloc(((size_t)n + 1) * sizeof *F->perm);
    memcpy(F->perm, perm, (size_t)n * sizeof *perm);
    int **rows = calloc((size_t)n + 1, sizeof *rows), *rlen = calloc((size_t)n + 1, sizeof *rlen),
        *rcap = calloc((size_t)n + 1, sizeof *rcap);
    int **rpos = calloc((size_t)n + 1, sizeof *rpos);
    double *acc = calloc((size_t)n + 1, sizeof *acc);
    char *mark = calloc((size_t)n + 1, 1);
    int *touched = malloc(((size_t)n + 1) * sizeof *touched);
    int info = 0;
    *npos = *nneg = 0;
    for (int j = 0; j < n; ++j) {
        int nt = 0;
        double dj = diag[j];
        for (int q = cc[j]; q < cc[j + 1]; ++q) {
            acc[cr[q]] = cv[q];
            if (!mark[cr[q]]) { mark[cr[q]] = 1; touched[nt++] = cr[q]; }
        }
        for (int a = 0; a < rlen[j]; ++a) {
            const int k = rows[j][a], pjk = rpos[j][a];
            const double ljk = F->cx[pjk], t = ljk * F->d[k];
            dj -= ljk * t;
            for (int p = F->cp[k]; p < F->cp[k + 1]; ++p) {
                const int i = F->ci[p];
                if (i <= j) continue;
                acc[i] -= F->cx[p] * t;
                if (!mark[i]) { mark[i] = 1; touched[nt++] = i; }
            }
        }
        F->d[j] = dj;
        if (!(dj - dj == 0)) { if (!info) info = -(j + 1); }
        else if (dj == 0) { if (!info) info = j + 1; }
        else if (dj > 0) ++*npos;
        else ++*nneg;
        F->cp[j] = len;
        if (len + nt > cap) {
            cap = 2 * (len + nt);
            F->ci = realloc(F->ci, (size_t)cap * sizeof *F->ci);
            F->cx = realloc(F->cx, (size_t)cap * sizeof *F->cx);
        }
        for (int a = 0; a < nt; ++a) {
            const int i = touched[a];
            F->ci[len] = i;
            F->cx[len] = acc[i] / dj;
            if (rlen[i] == rcap[i]) {
                rcap[i] = rcap[i] ? 2 * rcap[i] : 4;
                rows[i] = realloc(rows[i], (size_t)rcap[i] * sizeof **rows);
                rpos[i] = realloc(rpos[i], (size_t)rcap[i] * sizeof **rpos);
            }
            rows[i][rlen[i]] = j;
            rpos[i][rlen[i]++] = len;
            len++;
            acc[i] = 0;
            mark[i] = 0;
        }
        F->cp[j + 1] = len;
    }
    for (int i = 0; i < n; ++i) { free(rows[i]); free(rpos[i]); }
    free(rows); free(rpos); free(rlen); free(rcap); free(acc); free(mark); free(touched);
    free(pinv); free(cc); free(diag); free(cr); free(cv); free(fill);
    return info;
}

static void ref_solve(const ref_fact *F, const double *b, double *xv)
{
    const int n = F->n;
    double *y = malloc(((size_t)n + 1) * sizeof *y);
    for (int k = 0; k < n; ++k) y[k] = b[F->perm[k]];
    for (int j = 0; j < n; ++j)
        for (int p = F->cp[j]; p < F->cp[j + 1]; ++p) y[F->ci[p]] -= F->cx[p] * y[j];
    for (int j = 0; j < n; ++j) y[j] /= F->d[j];
    for (int j = n - 1; j >= 0; --j)
        for (int p = F->cp[j]; p < F->cp[j + 1]; ++p) y[j] -= F->cx[p] * y[F->ci[p]];
    for (int k = 0; k < n; ++k) xv[F->perm[k]] = y[k];
    free(y);
}

static void ref_free(ref_fact *F)
{
    free(F->cp); free(F->ci); free(F->cx); free(F->d); free(F->perm);
}

/* ------------------------------------------------------------------ helpers */

/* Values of `batch` matrices sharing the pattern of K, in a buffer: interleaved
 * (x[e·ld + q]) or strided (x[q·ld + e]); matrix 0 keeps K's values, the others get new
 * values on the same pattern (kept in vals[q·nnz + e]). */
typedef struct layout {
    size_t off, ms, es, len;
} layout;

static layout make_layout(tu_rng *r, int interleaved, int batch, int nnz)
{
    layout L;
    L.off = (size_t)tu_int(r, 0, 3);
    if (interleaved) {
        L.ms = 1;
        L.es = (size_t)batch + (size_t)tu_int(r, 0, 2);
    } else {
        L.es = 1;
        L.ms = (size_t)nnz + (size_t)tu_int(r, 0, 2);
    }
    L.len = L.off + (size_t)(batch ? batch - 1 : 0) * L.ms + (size_t)(nnz ? nnz - 1 : 0) * L.es + 2;
    return L;
}

static double *batch_values(tu_rng *r, gala_dtype dt, gala_csc *K, int n, int batch, double *vals)
{
    const int nnz = K->p[K->n];
    kkt_rng g = kr(r);
    double *save = malloc(((size_t)nnz + 1) * sizeof *save);
    memcpy(save, K->x, (size_t)nnz * sizeof *save);
    for (int q = 0; q < batch; ++q) {
        if (q) kkt_values(K, n, &g);
        tu_round(dt, K->x, (size_t)nnz);
        memcpy(vals + (size_t)q * nnz, K->x, (size_t)nnz * sizeof *vals);
    }
    memcpy(K->x, save, (size_t)nnz * sizeof *save);
    tu_round(dt, K->x, (size_t)nnz);
    free(save);
    return vals;
}

/* observed worst over seeds: 8.5e-7 (float), 1.6e-15 (double) */
static double solve_tol(gala_dtype dt) { return dt == GALA_FLOAT ? 2e-5 : 5e-14; }

/* Factor a batch sharing K's pattern (AMD), solve one rhs per matrix, check info, inertia
 * (n positive, m negative) and every residual. */
static void check_batch(int ti, tu_rng *r, gala_csc *K, int n, int batch, int interleaved)
{
    gala_context *ctx = tu_ctx(ti);
    const gala_dtype dt = tu_target_get(ti)->dtype;
    const int N = K->n, nnz = K->p[N];
    gala_sparse_ldlt_options o;
    gala_sparse_ldlt_options_default(&o);
    o.expected_positive = n;
    gala_sparse_ldlt_symbolic *S = NULL;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, K, &o, &S));
    double *vals = malloc(((size_t)batch * nnz + 1) * sizeof *vals);
    batch_values(r, dt, K, n, batch, vals);
    layout L = make_layout(r, interleaved, batch, nnz);
    double *buf = malloc(L.len * sizeof *buf);
    for (size_t i = 0; i < L.len; ++i) buf[i] = NAN;
    for (int q = 0; q < batch; ++q)
        for (int e = 0; e < nnz; ++e) buf[L.off + q * L.ms + e * L.es] = vals[(size_t)q * nnz + e];
    gala_buffer *bx = tu_upload(ctx, dt, buf, L.len);
    int *info = malloc(((size_t)batch + 1) * sizeof *info), *iner = malloc((2 * (size_t)batch + 2) * sizeof *iner);
    gala_sparse_ldlt *F = NULL;
    TU_OK(ctx, gala_sparse_ldlt_factor(ctx, S, batch, bx, L.off, L.ms, L.es, &F, info, iner));
    ck_assert_int_eq(gala_sparse_ldlt_batch(F), batch);
    for (int q = 0; q < batch; ++q)
        TU_ASSERT(info[q] == 0 && iner[2 * q] == n && iner[2 * q + 1] == N - n, ti,
                  "N=%d batch=%d matrix %d: info %d inertia (%d, %d), want (%d, %d)", N, batch,
                  q, info[q], iner[2 * q], iner[2 * q + 1], n, N - n);
    /* right-hand sides: strided layout with a gap, solution in a separate poisoned buffer */
    const size_t bms = (size_t)N + 1, blen = (size_t)batch * bms + 1;
    double *bv = malloc(blen * sizeof *bv), *xv = malloc(blen * sizeof *xv);
    for (size_t i = 0; i < blen; ++i) bv[i] = tu_normal(r);
    tu_round(dt, bv, blen);
    gala_buffer *bb = tu_upload(ctx, dt, bv, blen), *bX = tu_poisoned(ctx, dt, blen);
    TU_OK(ctx, gala_sparse_ldlt_solve(F, 1, bb, 0, bms, 0, 1, bX, 0, bms, 0, 1));
    tu_download(bX, 0, xv, blen);
    gala_csc Kq = *K;
    double worst = 0;
    for (int q = 0; q < batch; ++q) {
        Kq.x = vals + (size_t)q * nnz;
        const double res = residual(&Kq, xv + q * bms, bv + q * bms);
        if (!(res <= worst)) worst = res;
        TU_ASSERT(res <= solve_tol(dt), ti, "N=%d (n=%d) batch=%d %s matrix %d: residual %.3g",
                  N, n, batch, interleaved ? "interleaved" : "strided", q, res);
        TU_ASSERT(isnan(xv[q * bms + N]), ti, "solve wrote into the gap after matrix %d", q);
    }
    /* the reference agrees on matrix 0 (inertia above; solution here, loosely) */
    if (N <= 2000) {
        int *perm = malloc(((size_t)N + 1) * sizeof *perm), np, nn;
        TU_OK(ctx, gala_sparse_ldlt_symbolic_perm(S, perm));
        ref_fact R;
        Kq.x = vals;
        TU_ASSERT(ref_ldlt(&Kq, perm, &R, &np, &nn) == 0 && np == n && nn == N - n, ti,
                  "reference: inertia (%d, %d)", np, nn);
        double *xr = malloc(((size_t)N + 1) * sizeof *xr), dx = 0, xn = 0;
        ref_solve(&R, bv, xr);
        for (int i = 0; i < N; ++i) {
            dx = fmax(dx, fabs(xr[i] - xv[i]));
            xn = fmax(xn, fabs(xr[i]));
        }
        TU_ASSERT(dx <= (dt == GALA_FLOAT ? 1e-2 : 1e-8) * (xn + 1), ti,
                  "N=%d: solution differs from the reference by %.3g (|x| %.3g)", N, dx, xn);
        ref_free(&R);
        free(perm);
        free(xr);
    }
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    gala_buffer_free(bx); gala_buffer_free(bb); gala_buffer_free(bX);
    free(vals); free(buf); free(info); free(iner); free(bv); free(xv);
}

/* ------------------------------------------------------------------ tests */

/* The reference against a dense LDLᵀ of P·K·Pᵀ on small random KKT matrices. */
START_TEST(reference_matches_dense)
{
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    for (int rep = 0; rep < 40; ++rep) {
        const int n = tu_int(&r, 1, 30), m = tu_int(&r, 0, 30), N = n + m;
        gala_csc K;
        kkt_random(&g, n, m, 2, 3, &K);
        int *perm = malloc((size_t)N * sizeof *perm);
        for (int i = 0; i < N; ++i) perm[i] = i;
        for (int i = N - 1; i > 0; --i) {
            int j = tu_int(&r, 0, i), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        double *D = calloc((size_t)N * N, sizeof *D);
        int *pinv = malloc((size_t)N * sizeof *pinv);
        for (int k = 0; k < N; ++k) pinv[perm[k]] = k;
        for (int j = 0; j < N; ++j)
            for (int p = K.p[j]; p < K.p[j + 1]; ++p) {
                int a = pinv[K.i[p]], b = pinv[j];
                D[b * N + a] = D[a * N + b] = K.x[p];
            }
        for (int k = 0; k < N; ++k) { /* dense right-looking, L below, D on the diagonal */
            for (int i = k + 1; i < N; ++i) {
                const double l = D[k * N + i] / D[k * N + k];
                for (int j = k + 1; j <= i; ++j) D[j * N + i] -= l * D[k * N + j];
            }
            for (int i = k + 1; i < N; ++i) D[k * N + i] /= D[k * N + k];
        }
        ref_fact R;
        int np, nn;
        ck_assert_int_eq(ref_ldlt(&K, perm, &R, &np, &nn), 0);
        ck_assert_msg(np == n && nn == m, "reference inertia (%d, %d), want (%d, %d)", np, nn, n, m);
        for (int j = 0; j < N; ++j) {
            ck_assert_msg(fabs(R.d[j] - D[j * N + j]) <= 1e-12 * (1 + fabs(D[j * N + j])),
                          "pivot %d: %g vs dense %g", j, R.d[j], D[j * N + j]);
            double *col = calloc((size_t)N, sizeof *col);
            for (int p = R.cp[j]; p < R.cp[j + 1]; ++p) col[R.ci[p]] = R.cx[p];
            for (int i = j + 1; i < N; ++i)
                ck_assert_msg(fabs(col[i] - D[j * N + i]) <= 1e-11 * (1 + fabs(D[j * N + i])),
                              "L(%d,%d): %g vs dense %g [seed %llu]", i, j, col[i], D[j * N + i],
                              (unsigned long long)tu_seed());
            free(col);
        }
        ref_free(&R);
        free(D); free(pinv); free(perm);
        kkt_free(&K);
    }
}
END_TEST

START_TEST(random_kkt_single_and_batches)
{
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    static const int sizes[][3] = {{1, 1, 1},  {2, 0, 1},  {1, 3, 1},    {7, 5, 100},
                                   {30, 20, 3}, {60, 90, 100}, {200, 150, 1}, {400, 600, 2},
                                   {900, 600, 1}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        gala_csc K;
        kkt_random(&g, sizes[s][0], sizes[s][1], 2, 3, &K);
        check_batch(_i, &r, &K, sizes[s][0], sizes[s][2], (int)(s % 2));
        kkt_free(&K);
    }
}
END_TEST

START_TEST(mpc_kkt)
{
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    static const int hz[][2] = {{1, 3}, {24, 100}, {124, 2}, {312, 1}}; /* n + m = 28, 396, 1996, 5004 */
    for (int s = 0; s < 4; ++s) {
        gala_csc K;
        int m;
        const int n = kkt_mpc(&g, hz[s][0], 4, 2, &K, &m);
        ck_assert_int_eq(n + m, 16 * hz[s][0] + 12);
        check_batch(_i, &r, &K, n, hz[s][1], s != 1);
        kkt_free(&K);
    }
}
END_TEST

START_TEST(batch_10000_shared_pattern)
{
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    gala_csc K;
    kkt_random(&g, 12, 9, 2, 3, &K);
    check_batch(_i, &r, &K, 12, 10000, 1);
    kkt_free(&K);
}
END_TEST

/* Three patterns in one factor object; values of all matrices in one buffer (strided by the
 * largest nnz), right-hand sides and solutions in place, two of them per matrix. */
START_TEST(heterogeneous_groups)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    gala_csc K[3];
    int nv[3], m, batch[3] = {5, 40, 2};
    nv[0] = kkt_mpc(&g, 6, 4, 2, &K[0], &m);
    kkt_random(&g, 40, 25, 2, 3, &K[1]);
    nv[1] = 40;
    kkt_random(&g, 3, 2, 1, 2, &K[2]);
    nv[2] = 3;
    gala_sparse_ldlt_symbolic *S[3];
    int maxnnz = 0, maxN = 0, total = 0;
    for (int k = 0; k < 3; ++k) {
        gala_sparse_ldlt_options o;
        gala_sparse_ldlt_options_default(&o);
        o.expected_positive = nv[k];
        TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &K[k], &o, &S[k]));
        if (K[k].p[K[k].n] > maxnnz) maxnnz = K[k].p[K[k].n];
        if (K[k].n > maxN) maxN = K[k].n;
        total += batch[k];
    }
    const size_t ms = (size_t)maxnnz + 1;
    double *buf = malloc(((size_t)total * ms + 1) * sizeof *buf);
    double **vals = malloc((size_t)total * sizeof *vals);
    for (size_t i = 0; i < (size_t)total * ms + 1; ++i) buf[i] = NAN;
    int q = 0;
    for (int k = 0; k < 3; ++k) {
        const int nnz = K[k].p[K[k].n];
        for (int b = 0; b < batch[k]; ++b, ++q) {
            vals[q] = malloc((size_t)nnz * sizeof **vals);
            batch_values(&r, dt, &K[k], nv[k], 1, vals[q]);
            kkt_values(&K[k], nv[k], &g); /* next matrix of the group differs */
            memcpy(buf + (size_t)q * ms, vals[q], (size_t)nnz * sizeof *buf);
        }
    }
    gala_buffer *bx = tu_upload(ctx, dt, buf, (size_t)total * ms + 1);
    int info[47], iner[94];
    gala_sparse_ldlt *F;
    const gala_sparse_ldlt_symbolic *cs[3] = {S[0], S[1], S[2]};
    TU_OK(ctx, gala_sparse_ldlt_factor_groups(ctx, 3, cs, batch, bx, 0, ms, 1, &F, info, iner));
    ck_assert_int_eq(gala_sparse_ldlt_batch(F), total);
    /* two rhs per matrix, in place: element i of rhs r of matrix q at q·2·(maxN+1) + r·(maxN+1) + i */
    const size_t bms = 2 * ((size_t)maxN + 1), blen = (size_t)total * bms;
    double *bv = malloc(blen * sizeof *bv), *xv = malloc(blen * sizeof *xv);
    for (size_t i = 0; i < blen; ++i) bv[i] = tu_normal(&r);
    tu_round(dt, bv, blen);
    gala_buffer *bb = tu_upload(ctx, dt, bv, blen);
    TU_OK(ctx, gala_sparse_ldlt_solve(F, 2, bb, 0, bms, (size_t)maxN + 1, 1, bb, 0, bms,
                                      (size_t)maxN + 1, 1));
    tu_download(bb, 0, xv, blen);
    q = 0;
    for (int k = 0; k < 3; ++k)
        for (int b = 0; b < batch[k]; ++b, ++q) {
            TU_ASSERT(info[q] == 0 && iner[2 * q] == nv[k] && iner[2 * q + 1] == K[k].n - nv[k],
                      _i, "group %d item %d: info %d inertia (%d, %d)", k, b, info[q], iner[2 * q],
                      iner[2 * q + 1]);
            gala_csc Kq = K[k];
            Kq.x = vals[q];
            for (int rr = 0; rr < 2; ++rr) {
                const size_t o = (size_t)q * bms + (size_t)rr * (maxN + 1);
                const double res = residual(&Kq, xv + o, bv + o);
                TU_ASSERT(res <= solve_tol(dt), _i, "group %d item %d rhs %d: residual %.3g", k,
                          b, rr, res);
                for (int i = K[k].n; i <= maxN; ++i)
                    TU_ASSERT(xv[o + i] == bv[o + i], _i, "solve touched element %d beyond n = %d",
                              i, K[k].n);
            }
            free(vals[q]);
        }
    gala_sparse_ldlt_destroy(F);
    for (int k = 0; k < 3; ++k) {
        gala_sparse_ldlt_symbolic_destroy(S[k]);
        kkt_free(&K[k]);
    }
    gala_buffer_free(bx);
    gala_buffer_free(bb);
    free(buf); free(vals); free(bv); free(xv);
}
END_TEST

/* Refactor after a value change (new P, new ρ) with another layout, no new analysis. */
START_TEST(refactor_after_value_change)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    gala_csc K;
    int m;
    const int n = kkt_mpc(&g, 10, 4, 2, &K, &m), N = n + m, nnz = K.p[N], batch = 7;
    gala_sparse_ldlt_symbolic *S;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &K, NULL, &S));
    double *v1 = malloc((size_t)batch * nnz * sizeof *v1), *v2 = malloc((size_t)batch * nnz * sizeof *v2);
    batch_values(&r, dt, &K, n, batch, v1);
    kkt_values(&K, n, &g);
    batch_values(&r, dt, &K, n, batch, v2);
    /* v1 interleaved, v2 strided */
    double *b1 = malloc((size_t)batch * nnz * sizeof *b1);
    for (int q = 0; q < batch; ++q)
        for (int e = 0; e < nnz; ++e) b1[(size_t)e * batch + q] = v1[(size_t)q * nnz + e];
    gala_buffer *x1 = tu_upload(ctx, dt, b1, (size_t)batch * nnz), *x2 = tu_upload(ctx, dt, v2, (size_t)batch * nnz);
    gala_sparse_ldlt *F;
    TU_OK(ctx, gala_sparse_ldlt_factor(ctx, S, batch, x1, 0, 1, (size_t)batch, &F, NULL, NULL));
    double *bv = malloc((size_t)batch * N * sizeof *bv), *xv = malloc((size_t)batch * N * sizeof *xv);
    for (int i = 0; i < batch * N; ++i) bv[i] = tu_normal(&r);
    tu_round(dt, bv, (size_t)batch * N);
    gala_buffer *bb = tu_upload(ctx, dt, bv, (size_t)batch * N), *bX = tu_poisoned(ctx, dt, (size_t)batch * N);
    for (int round = 0; round < 2; ++round) {
        if (round == 1) {
            gala_stats s0, s1;
            gala_context_stats(ctx, &s0);
            TU_OK(ctx, gala_sparse_ldlt_refactor(F, x2, 0, (size_t)nnz, 1, NULL, NULL));
            gala_context_stats(ctx, &s1);
            TU_ASSERT(s1.buffers_live == s0.buffers_live && s1.programs_built == s0.programs_built,
                      _i, "refactor allocated buffers or built programs");
        }
        /* interleaved right-hand sides this time: element i of matrix q at i·batch + q */
        TU_OK(ctx, gala_sparse_ldlt_solve(F, 1, bb, 0, 1, 0, (size_t)batch, bX, 0, 1, 0, (size_t)batch));
        tu_download(bX, 0, xv, (size_t)batch * N);
        double *xq = malloc((size_t)N * sizeof *xq), *bq = malloc((size_t)N * sizeof *bq);
        for (int q = 0; q < batch; ++q) {
            for (int i = 0; i < N; ++i) {
                xq[i] = xv[(size_t)i * batch + q];
                bq[i] = bv[(size_t)i * batch + q];
            }
            gala_csc Kq = K;
            Kq.x = (round ? v2 : v1) + (size_t)q * nnz;
            const double res = residual(&Kq, xq, bq);
            TU_ASSERT(res <= solve_tol(dt), _i, "round %d matrix %d: residual %.3g", round, q, res);
            if (round == 1) { /* the old values must not solve the new system */
                Kq.x = v1 + (size_t)q * nnz;
                const double old = residual(&Kq, xq, bq);
                TU_ASSERT(old > 1e-3 && old > 50 * res, _i, "matrix %d: refactor did not change "
                          "the factor (residual with the old values %.3g, new %.3g)", q, old, res);
            }
        }
        free(xq);
        free(bq);
    }
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    gala_buffer_free(x1); gala_buffer_free(x2); gala_buffer_free(bb); gala_buffer_free(bX);
    free(v1); free(v2); free(b1); free(bv); free(xv);
    kkt_free(&K);
}
END_TEST

/* Zero pivot, NaN, wrong inertia: documented statuses, info and messages, next to good
 * matrices that still factor. */
START_TEST(failures)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    gala_csc K;
    const int n = 20, m = 15, N = n + m;
    kkt_random(&g, n, m, 2, 3, &K);
    const int nnz = K.p[N];
    tu_round(dt, K.x, (size_t)nnz);
    gala_sparse_ldlt_options o;
    gala_sparse_ldlt_options_default(&o);
    o.expected_positive = n;
    gala_sparse_ldlt_symbolic *S;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &K, &o, &S));
    int perm[35], pinv[35];
    TU_OK(ctx, gala_sparse_ldlt_symbolic_perm(S, perm));
    for (int k = 0; k < N; ++k) pinv[perm[k]] = k;
    /* 4 matrices: good, zero pivot, NaN, wrong inertia (sign of one P diagonal flipped and
     * the column decoupled so the flip is exact) */
    double *v = malloc(4 * (size_t)nnz * sizeof *v);
    for (int q = 0; q < 4; ++q) memcpy(v + (size_t)q * nnz, K.x, (size_t)nnz * sizeof *v);
    const int zc = 3; /* original column made exactly zero: decoupled and zero diagonal */
    for (int j = 0; j < N; ++j)
        for (int p = K.p[j]; p < K.p[j + 1]; ++p)
            if (K.i[p] == zc || j == zc) {
                v[1 * (size_t)nnz + p] = 0;
                v[3 * (size_t)nnz + p] = (K.i[p] == j) ? -2 : 0;
            }
    v[2 * (size_t)nnz + K.p[N] - 1] = NAN; /* the last diagonal entry */
    gala_buffer *bx = tu_upload(ctx, dt, v, 4 * (size_t)nnz);
    int info[4], iner[8];
    gala_sparse_ldlt *F = NULL;
    gala_status st = gala_sparse_ldlt_factor(ctx, S, 4, bx, 0, (size_t)nnz, 1, &F, info, iner);
    TU_ASSERT(st == GALA_ERR_NOT_FINITE && F != NULL, _i, "status %s", gala_status_string(st));
    TU_ASSERT(strstr(gala_last_error(ctx), "matrix 2") != NULL, _i, "message: %s", gala_last_error(ctx));
    TU_ASSERT(info[0] == 0 && iner[0] == n && iner[1] == m, _i, "good matrix: info %d (%d, %d)",
              info[0], iner[0], iner[1]);
    TU_ASSERT(info[1] == pinv[zc] + 1, _i, "zero pivot: info %d, want %d", info[1], pinv[zc] + 1);
    TU_ASSERT(info[2] < 0, _i, "NaN: info %d", info[2]);
    { /* the reference knows where the NaN shows up first */
        gala_csc Kq = K;
        Kq.x = v + 2 * (size_t)nnz;
        ref_fact R;
        int np, nn;
        const int ri = ref_ldlt(&Kq, perm, &R, &np, &nn);
        TU_ASSERT(info[2] == ri, _i, "NaN: info %d, reference %d", info[2], ri);
        ref_free(&R);
    }
    TU_ASSERT(info[3] == 0 && iner[6] == n - 1 && iner[7] == m + 1, _i,
              "flipped sign: info %d inertia (%d, %d)", info[3], iner[6], iner[7]);
    /* without the NaN: GALA_ERR_SINGULAR names matrix 1 and the original column */
    {
        gala_buffer *good = tu_upload(ctx, dt, K.x, (size_t)nnz);
        TU_OK(ctx, gala_buffer_copy(good, 0, bx, 2 * (size_t)nnz, (size_t)nnz));
        gala_buffer_free(good);
    }
    st = gala_sparse_ldlt_refactor(F, bx, 0, (size_t)nnz, 1, info, iner);
    TU_ASSERT(st == GALA_ERR_SINGULAR && info[2] == 0, _i, "status %s, info[2] %d",
              gala_status_string(st), info[2]);
    char want[64];
    snprintf(want, sizeof want, "original column %d", zc);
    TU_ASSERT(strstr(gala_last_error(ctx), "matrix 1") && strstr(gala_last_error(ctx), want), _i,
              "message: %s", gala_last_error(ctx));
    /* only the wrong-inertia matrix: GALA_ERR_WRONG_INERTIA */
    st = gala_sparse_ldlt_refactor(F, bx, 0, 0, 1, info, iner); /* all four = matrix 0 */
    TU_ASSERT(st == GALA_OK, _i, "four copies of a good matrix: %s", gala_status_string(st));
    gala_sparse_ldlt_destroy(F);
    st = gala_sparse_ldlt_factor(ctx, S, 1, bx, 3 * (size_t)nnz, (size_t)nnz, 1, &F, info, iner);
    TU_ASSERT(st == GALA_ERR_WRONG_INERTIA && info[0] == 0 && iner[0] == n - 1, _i,
              "status %s info %d inertia (%d, %d)", gala_status_string(st), info[0], iner[0], iner[1]);
    TU_ASSERT(strstr(gala_last_error(ctx), "quasi-definite") != NULL, _i, "message: %s",
              gala_last_error(ctx));
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    /* natural ordering: a zero pivot at a known index */
    o.ordering = GALA_ORDERING_NATURAL;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &K, &o, &S));
    st = gala_sparse_ldlt_factor(ctx, S, 1, bx, (size_t)nnz, (size_t)nnz, 1, &F, info, NULL);
    TU_ASSERT(st == GALA_ERR_SINGULAR && info[0] == zc + 1, _i, "natural order: %s info %d",
              gala_status_string(st), info[0]);
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    gala_buffer_free(bx);
    free(v);
    kkt_free(&K);
}
END_TEST

START_TEST(malformed_inputs)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    gala_sparse_ldlt_symbolic *S = (gala_sparse_ldlt_symbolic *)1;
    /* 3×3: columns {0}, {0,1}, {1,2} */
    int p[4] = {0, 1, 3, 5}, i[5] = {0, 0, 1, 1, 2};
    double x[5] = {4, 1, 4, 1, -3};
    gala_csc A = {3, 3, p, i, x};
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &A, NULL, &S));
    gala_sparse_ldlt_stats stt;
    TU_OK(ctx, gala_sparse_ldlt_symbolic_stats(S, &stt));
    ck_assert_int_eq(stt.n, 3);
    ck_assert_int_eq((int)stt.nnz_a, 5);
    gala_sparse_ldlt_symbolic_destroy(S);
#define BAD(status, substr)                                                                 \
    do {                                                                                    \
        S = (gala_sparse_ldlt_symbolic *)1;                                                 \
        gala_status s_ = gala_sparse_ldlt_analyze(ctx, &A, NULL, &S);                       \
        TU_ASSERT(s_ == (status) && S == NULL, _i, "line %d: status %s", __LINE__,          \
                  gala_status_string(s_));                                                  \
        TU_ASSERT(strstr(gala_last_error(ctx), substr) != NULL, _i, "line %d: message %s",  \
                  __LINE__, gala_last_error(ctx));                                          \
    } while (0)
    i[2] = 2; i[1] = 0; p[2] = 3; /* column 1: rows 0, 2 → entry below the diagonal */
    BAD(GALA_ERR_INVALID_MATRIX, "below the diagonal");
    i[2] = 0; /* column 1: rows 0, 0 → duplicate */
    BAD(GALA_ERR_INVALID_MATRIX, "duplicate");
    i[1] = 1; i[2] = 0; /* unsorted */
    BAD(GALA_ERR_INVALID_MATRIX, "unsorted");
    i[1] = 0; i[2] = 1;
    i[4] = 3; /* out of range */
    BAD(GALA_ERR_INVALID_MATRIX, "outside");
    i[4] = 2;
    p[2] = 6; /* decreasing pointers */
    BAD(GALA_ERR_INVALID_MATRIX, "decrease");
    p[2] = 3;
    A.m = 4;
    BAD(GALA_ERR_INVALID_MATRIX, "square");
    A.m = 3;
    x[3] = NAN;
    BAD(GALA_ERR_NOT_FINITE, "entry");
    x[3] = 1;
    A.x = NULL; /* pattern only is fine */
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &A, NULL, &S));
    gala_sparse_ldlt_symbolic_destroy(S);
    A.x = x;
    ck_assert_int_eq(gala_sparse_ldlt_analyze(ctx, NULL, NULL, &S), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_analyze(ctx, &A, NULL, NULL), GALA_ERR_INVALID_ARG);
    gala_sparse_ldlt_options o;
    gala_sparse_ldlt_options_default(&o);
    o.ordering = GALA_ORDERING_USER;
    int bad_perm[3] = {0, 2, 2};
    o.perm = bad_perm;
    ck_assert_int_eq(gala_sparse_ldlt_analyze(ctx, &A, &o, &S), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "permutation") != NULL, "%s", gala_last_error(ctx));
    o.perm = NULL;
    ck_assert_int_eq(gala_sparse_ldlt_analyze(ctx, &A, &o, &S), GALA_ERR_INVALID_ARG);
    o.ordering = (gala_ordering)7;
    ck_assert_int_eq(gala_sparse_ldlt_analyze(ctx, &A, &o, &S), GALA_ERR_INVALID_ARG);
    gala_sparse_ldlt_options_default(&o);
    o.expected_positive = 4;
    ck_assert_int_eq(gala_sparse_ldlt_analyze(ctx, &A, &o, &S), GALA_ERR_INVALID_ARG);
    /* factor and solve arguments */
    int good_perm[3] = {2, 0, 1};
    gala_sparse_ldlt_options_default(&o);
    o.ordering = GALA_ORDERING_USER;
    o.perm = good_perm;
    o.expected_positive = 2;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &A, &o, &S));
    gala_buffer *bx = tu_upload(ctx, dt, x, 5), *I, *b3 = tu_poisoned(ctx, dt, 3);
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 16, &I));
    gala_sparse_ldlt *F = (gala_sparse_ldlt *)1;
    ck_assert_int_eq(gala_sparse_ldlt_factor(ctx, S, 2, bx, 0, 5, 1, &F, NULL, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_ptr_null(F);
    ck_assert_int_eq(gala_sparse_ldlt_factor(ctx, S, 1, bx, 1, 5, 1, &F, NULL, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_factor(ctx, S, -1, bx, 0, 5, 1, &F, NULL, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_factor(ctx, S, 1, I, 0, 5, 1, &F, NULL, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_factor(ctx, NULL, 1, bx, 0, 5, 1, &F, NULL, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_factor(ctx, S, 1, bx, 0, 5, SIZE_MAX / 2, &F, NULL, NULL), GALA_ERR_INVALID_ARG);
    int info = -1, iner[2];
    TU_OK(ctx, gala_sparse_ldlt_factor(ctx, S, 1, bx, 0, 5, 1, &F, &info, iner));
    ck_assert(info == 0 && iner[0] == 2 && iner[1] == 1);
    ck_assert_int_eq(gala_sparse_ldlt_solve(F, 1, b3, 0, 3, 0, 1, b3, 1, 3, 0, 1), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_solve(F, 2, b3, 0, 3, 3, 1, b3, 0, 3, 3, 1), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_solve(F, -1, b3, 0, 3, 0, 1, b3, 0, 3, 0, 1), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_solve(F, 1, I, 0, 3, 0, 1, b3, 0, 3, 0, 1), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_solve(NULL, 1, b3, 0, 3, 0, 1, b3, 0, 3, 0, 1), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_sparse_ldlt_refactor(F, bx, 3, 5, 1, NULL, NULL), GALA_ERR_INVALID_ARG);
    gala_buffer *other = tu_other_precision(ctx, dt, 5, "malformed_inputs: mixed precisions");
    if (other) {
        ck_assert_int_eq(gala_sparse_ldlt_refactor(F, other, 0, 5, 1, NULL, NULL), GALA_ERR_INVALID_ARG);
        gala_buffer_free(other);
    }
    /* a 3-vector solve in place gives A⁻¹·b */
    double bvec[3] = {1, 2, 3}, xs[3];
    TU_OK(ctx, gala_buffer_write(b3, 0, 3, dt == GALA_DOUBLE ? (const void *)bvec : (const void *)(float[3]){1, 2, 3}));
    TU_OK(ctx, gala_sparse_ldlt_solve(F, 1, b3, 0, 3, 0, 1, b3, 0, 3, 0, 1));
    tu_download(b3, 0, xs, 3);
    ck_assert_msg(residual(&A, xs, bvec) < solve_tol(dt), "3x3 residual %g", residual(&A, xs, bvec));
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_destroy(NULL);
    gala_sparse_ldlt_symbolic_destroy(S);
    gala_sparse_ldlt_symbolic_destroy(NULL);
    /* empty matrix and empty batch */
    int p0[1] = {0};
    gala_csc E = {0, 0, p0, NULL, NULL};
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &E, NULL, &S));
    TU_OK(ctx, gala_sparse_ldlt_factor(ctx, S, 3, bx, 0, 0, 1, &F, NULL, NULL));
    TU_OK(ctx, gala_sparse_ldlt_solve(F, 1, b3, 0, 0, 0, 1, b3, 0, 0, 0, 1));
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    gala_buffer_free(bx); gala_buffer_free(I); gala_buffer_free(b3);
#undef BAD
}
END_TEST

/* The same checks with the launch shapes that the policy would not pick here: column
 * workers sharing levels (barriers), and the column-by-column baseline kernel. */
START_TEST(worker_shapes_and_baseline)
{
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    static const char *tunes[] = {"sldlt.mb=4,sldlt.cw=16", "sldlt.mb=1,sldlt.cw=64",
                                  "sldlt.baseline=1,sldlt.mb=16"};
    for (int t = 0; t < 3; ++t) {
        setenv("GALA_TUNE", tunes[t], 1);
        gala_csc K;
        int m;
        const int n = kkt_mpc(&g, 8, 4, 2, &K, &m);
        check_batch(_i, &r, &K, n, t == 1 ? 1 : 9, t % 2);
        kkt_free(&K);
        kkt_random(&g, 150, 120, 3, 3, &K);
        check_batch(_i, &r, &K, 150, 3, 0);
        kkt_free(&K);
        unsetenv("GALA_TUNE");
    }
}
END_TEST

/* Factor and solve of K's values on ctx (one matrix): the solution of K·x = 1..N in x; the
 * launches it took in *launches. Returns the factor's status. */
static gala_status solve_once(gala_context *ctx, gala_dtype dt, const gala_csc *K, double *x,
                              long long *launches)
{
    const int N = K->n, nnz = K->p[N];
    gala_stats st0, st1;
    gala_context_stats(ctx, &st0);
    gala_sparse_ldlt_symbolic *S;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, K, NULL, &S));
    gala_buffer *bx = tu_upload(ctx, dt, K->x, (size_t)nnz);
    for (int i = 0; i < N; ++i) x[i] = 1 + i % 7;
    gala_buffer *bb = tu_upload(ctx, dt, x, (size_t)N);
    gala_sparse_ldlt *F = NULL;
    int info, iner[2];
    gala_status s = gala_sparse_ldlt_factor(ctx, S, 1, bx, 0, (size_t)nnz, 1, &F, &info, iner);
    if (s == GALA_OK) {
        TU_OK(ctx, gala_sparse_ldlt_solve(F, 1, bb, 0, (size_t)N, 0, 1, bb, 0, (size_t)N, 0, 1));
        tu_download(bb, 0, x, (size_t)N);
    }
    gala_context_stats(ctx, &st1);
    *launches = st1.kernels_launched - st0.kernels_launched;
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    gala_buffer_free(bx);
    gala_buffer_free(bb);
    return s;
}

/* A device that stops a work-item's loops after a number of iterations (Mesa's llvmpipe:
 * 65535 in all, silently; gala_loop_limit, issue 39): the factorization and the solve are
 * split into launches below it, with bitwise the same results as at the device's own limit
 * (one launch each on most devices); a column
 * longer than the limit is refused, not computed wrong. The limit is set with the tuning key
 * la.loop_limit, so the split runs on every device. */
START_TEST(loop_limit_splits_launches)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    gala_csc K;
    int m;
    const int n = kkt_mpc(&g, 124, 4, 2, &K, &m), N = n + m;
    tu_round(dt, K.x, (size_t)K.p[N]);
    double *one = malloc((size_t)N * sizeof *one), *split = malloc((size_t)N * sizeof *split);
    long long l1, l2;
    unsetenv("GALA_TUNE"); /* the device's own limit: none, or llvmpipe's */
    TU_OK(ctx, solve_once(ctx, dt, &K, one, &l1));
    setenv("GALA_TUNE", "la.loop_limit=3000", 1);
    TU_OK(ctx, solve_once(ctx, dt, &K, split, &l2));
    TU_ASSERT(l1 >= 2 && l2 > l1 + 10, _i, "launches: %lld at the device's limit, %lld at 3000",
              l1, l2);
    for (int i = 0; i < N; ++i)
        TU_ASSERT(one[i] == split[i], _i, "x[%d] = %.17g split, %.17g in one launch", i,
                  split[i], one[i]);
    /* a limit below one column's loops */
    setenv("GALA_TUNE", "la.loop_limit=40", 1);
    ck_assert_int_eq(solve_once(ctx, dt, &K, split, &l2), GALA_ERR_NOT_SUPPORTED);
    TU_ASSERT(strstr(gala_last_error(ctx), "loop iterations") != NULL, _i, "message: %s",
              gala_last_error(ctx));
    unsetenv("GALA_TUNE");
    kkt_free(&K);
    free(one);
    free(split);
}
END_TEST


/* Every allocation, transfer, build and launch of analyze/factor/refactor/solve fails in
 * turn: the call returns the injected error, and no device buffer is left behind (the
 * sanitizer run checks host memory). */
START_TEST(fault_injection)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    kkt_rng g = kr(&r);
    gala_csc K;
    int m;
    const int n = kkt_mpc(&g, 3, 4, 2, &K, &m), N = n + m, nnz = K.p[N];
    (void)n;
    gala_sparse_ldlt_symbolic *S;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &K, NULL, &S));
    gala_buffer *bx = tu_upload(ctx, dt, K.x, (size_t)nnz), *bb = tu_poisoned(ctx, dt, 3 * (size_t)N);
    TU_OK(ctx, gala_buffer_fill(bb, 0, 3 * (size_t)N, 1));
    static const gala_fault_kind kinds[] = {GALA_FAULT_ALLOC, GALA_FAULT_TRANSFER,
                                            GALA_FAULT_LAUNCH, GALA_FAULT_BUILD};
    for (int kk = 0; kk < 4; ++kk) {
        int nfail = 0;
        for (long at = 1; at <= 12; ++at) {
            gala_stats s0, s1;
            gala_context_stats(ctx, &s0);
            gala_fault_arm(kinds[kk], at);
            gala_sparse_ldlt *F = NULL;
            gala_status st = gala_sparse_ldlt_factor(ctx, S, 3, bx, 0, 0, 1, &F, NULL, NULL);
            if (st == GALA_OK) st = gala_sparse_ldlt_refactor(F, bx, 0, 0, 1, NULL, NULL);
            if (st == GALA_OK)
                st = gala_sparse_ldlt_solve(F, 1, bb, 0, (size_t)N, 0, 1, bb, 0, (size_t)N, 0, 1);
            gala_fault_arm(kinds[kk], 0);
            TU_ASSERT(st == GALA_OK || st == GALA_ERR_DEVICE_MEMORY || st == GALA_ERR_DEVICE ||
                      st == GALA_ERR_KERNEL_BUILD, _i, "fault kind %d at %ld: status %s: %s", kk,
                      at, gala_status_string(st), gala_last_error(ctx));
            if (st != GALA_OK) {
                ++nfail;
                TU_ASSERT(F == NULL || st != GALA_ERR_DEVICE_MEMORY, _i, "F returned on failure");
            }
            gala_sparse_ldlt_destroy(F);
            gala_context_stats(ctx, &s1);
            TU_ASSERT(s1.buffers_live == s0.buffers_live, _i, "fault kind %d at %ld: %ld buffers "
                      "left behind", kk, at, s1.buffers_live - s0.buffers_live);
        }
        /* kernels are cached after the first call: builds never fail here */
        TU_ASSERT(nfail > 0 || kinds[kk] == GALA_FAULT_BUILD, _i, "fault kind %d never hit", kk);
    }
    gala_buffer_free(bx);
    gala_buffer_free(bb);
    gala_sparse_ldlt_symbolic_destroy(S);
    kkt_free(&K);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ldlt_sparse");
    TCase *tc = tcase_create("ldlt_sparse");
    const int nt = tu_target_count();
    tcase_add_test(tc, reference_matches_dense);
    tcase_add_loop_test(tc, random_kkt_single_and_batches, 0, nt);
    tcase_add_loop_test(tc, mpc_kkt, 0, nt);
    tcase_add_loop_test(tc, batch_10000_shared_pattern, 0, nt);
    tcase_add_loop_test(tc, heterogeneous_groups, 0, nt);
    tcase_add_loop_test(tc, refactor_after_value_change, 0, nt);
    tcase_add_loop_test(tc, failures, 0, nt);
    tcase_add_loop_test(tc, malformed_inputs, 0, nt);
    tcase_add_loop_test(tc, worker_shapes_and_baseline, 0, nt);
    tcase_add_loop_test(tc, loop_limit_splits_launches, 0, nt);
    tcase_add_loop_test(tc, fault_injection, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
