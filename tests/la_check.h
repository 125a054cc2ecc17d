/*
 * Helpers of the dense-factorization tests (test_potrf.c, test_potrs.c, test_potri.c):
 * seeded SPD matrices laid out with offsets, leading dimensions and strides in one buffer
 * whose every other element is NaN (so writes outside the referenced triangles show), the
 * residual ‖L·Lᵀ − A‖_F / ‖A‖_F in double, and the LAPACK(E)/CBLAS reference when the
 * build found it (GALA_TEST_LAPACKE).
 */
#ifndef GALA_LA_CHECK_H
#define GALA_LA_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef GALA_TEST_LAPACKE
#include <cblas.h>
#include <lapacke.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define LA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LA_SANITIZED 1
#endif
#endif
#ifndef LA_SANITIZED
#define LA_SANITIZED 0
#endif

/* One matrix of a test layout. */
typedef struct la_mat {
    int n, ld, cols; /* cols: columns (n for square matrices, nrhs for right-hand sides) */
    size_t off;
} la_mat;

/* A whole buffer's worth of matrices: host copy v (what was uploaded). */
typedef struct la_layout {
    int count;
    la_mat *m;
    size_t len;
    double *v;
} la_layout;

/* Logical L(i, j) of a matrix stored lower (up = 0) or upper. */
static inline size_t la_at(const la_mat *m, int up, int i, int j)
{
    return up ? m->off + (size_t)j + (size_t)i * (size_t)m->ld
              : m->off + (size_t)i + (size_t)j * (size_t)m->ld;
}

/* Layout of `count` matrices of orders n[b] (cols[b] columns, or square when cols is NULL):
 * random leading-dimension pads and gaps; everything NaN. */
static inline la_layout la_layout_make(tu_rng *r, int count, const int *n, const int *cols,
                                       int max_pad)
{
    la_layout L;
    L.count = count;
    L.m = calloc((size_t)(count ? count : 1), sizeof *L.m);
    size_t pos = (size_t)tu_int(r, 0, 3);
    for (int b = 0; b < count; ++b) {
        la_mat *m = &L.m[b];
        m->n = n[b];
        m->cols = cols ? cols[b] : n[b];
        m->ld = (n[b] > 1 ? n[b] : 1) + tu_int(r, 0, max_pad);
        m->off = pos;
        pos += (size_t)m->ld * (size_t)(m->cols > 0 ? m->cols : 0) + (size_t)tu_int(r, 0, 3);
    }
    L.len = pos + 1;
    L.v = malloc(L.len * sizeof *L.v);
    for (size_t i = 0; i < L.len; ++i) L.v[i] = NAN;
    return L;
}

static inline void la_layout_free(la_layout *L)
{
    free(L->m);
    free(L->v);
}

/* An SPD matrix G = M·Mᵀ/n + shift·I (full, column-major n×n, leading dimension n), rounded
 * to dt. shift > 0 keeps the condition number moderate. */
static inline void la_spd(tu_rng *r, int n, double shift, gala_dtype dt, double *G)
{
    if (n == 0) return;
    double *M = malloc((size_t)n * (size_t)n * sizeof *M + 8);
    for (size_t i = 0; i < (size_t)n * (size_t)n; ++i) M[i] = tu_normal(r);
#ifdef GALA_TEST_LAPACKE
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0 / n, M, n, 0.0, G, n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) G[i + (size_t)j * n] = G[j + (size_t)i * n];
#else
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += M[i + (size_t)k * n] * M[j + (size_t)k * n];
            G[i + (size_t)j * n] = G[j + (size_t)i * n] = s / n;
        }
#endif
    for (int i = 0; i < n; ++i) G[i + (size_t)i * n] += shift;
    tu_round(dt, G, (size_t)n * (size_t)n);
    free(M);
}

/* Write the referenced triangle of G into matrix m of a layout. */
static inline void la_put_tri(la_layout *L, int b, int up, const double *G)
{
    const la_mat *m = &L->m[b];
    for (int j = 0; j < m->n; ++j)
        for (int i = j; i < m->n; ++i) L->v[la_at(m, up, i, j)] = G[i + (size_t)j * m->n];
}

/* ‖L·Lᵀ − G‖_F / ‖G‖_F over the lower triangle, L read from out (matrix b of L). */
static inline double la_chol_residual(const la_layout *L, int b, int up, const double *out,
                                      const double *G)
{
    const la_mat *m = &L->m[b];
    const int n = m->n;
    double *F = calloc((size_t)n * (size_t)n + 1, sizeof *F), *P = malloc(((size_t)n * n + 1) * 8);
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) F[i + (size_t)j * n] = out[la_at(m, up, i, j)];
#ifdef GALA_TEST_LAPACKE
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0, F, n, 0.0, P, n);
#else
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double s = 0;
            for (int k = 0; k <= j; ++k) s += F[i + (size_t)k * n] * F[j + (size_t)k * n];
            P[i + (size_t)j * n] = s;
        }
#endif
    double num = 0, den = 0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double d = P[i + (size_t)j * n] - G[i + (size_t)j * n];
            num += d * d;
            den += G[i + (size_t)j * n] * G[i + (size_t)j * n];
        }
    free(F);
    free(P);
    double res = den > 0 ? sqrt(num / den) : sqrt(num);
    return res == res ? res : INFINITY;
}

/* Elements of `out` that no matrix may write (mask[e] == 0) must equal the upload bit for
 * bit (NaN stays NaN). Returns the first offending index or -1. */
static inline long la_untouched(const la_layout *L, const unsigned char *mask, const double *out)
{
    for (size_t e = 0; e < L->len; ++e) {
        if (mask[e]) continue;
        double a = L->v[e], b = out[e];
        if (!((isnan(a) && isnan(b)) || a == b)) return (long)e;
    }
    return -1;
}

/* Mask of the referenced triangles (square matrices) or whole matrices (tri = 0). */
static inline unsigned char *la_mask(const la_layout *L, int up, int tri)
{
    unsigned char *mask = calloc(L->len, 1);
    for (int b = 0; b < L->count; ++b) {
        const la_mat *m = &L->m[b];
        for (int j = 0; j < m->cols; ++j)
            for (int i = tri ? j : 0; i < m->n; ++i)
                mask[tri ? la_at(m, up, i, j) : m->off + (size_t)i + (size_t)j * m->ld] = 1;
    }
    return mask;
}

/* Assert that every element of out outside the referenced triangles of L's matrices (lower,
 * or upper when up) is as uploaded; what names the case. */
static inline void la_assert_untouched(int ti, const la_layout *L, int up, const double *out,
                                       const char *what)
{
    unsigned char *mask = la_mask(L, up, 1);
    const long bad = la_untouched(L, mask, out);
    free(mask);
    TU_ASSERT(bad < 0, ti, "%s: element %ld outside the referenced triangles changed (%g -> %g)",
              what, bad, bad >= 0 ? L->v[bad] : 0.0, bad >= 0 ? out[bad] : 0.0);
}

/* Reference factor of G (lower, n×n, leading dimension n) in dt's precision: LAPACKE
 * s/dpotrf when available, else unblocked loops in double. Returns the info. */
static inline int la_ref_potrf(int n, gala_dtype dt, double *G)
{
#ifdef GALA_TEST_LAPACKE
    if (dt == GALA_FLOAT) {
        float *f = malloc((size_t)n * n * sizeof *f + 4);
        for (size_t i = 0; i < (size_t)n * n; ++i) f[i] = (float)G[i];
        int info = LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', n, f, n);
        for (size_t i = 0; i < (size_t)n * n; ++i) G[i] = f[i];
        free(f);
        return info;
    }
    return LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, G, n);
#else
    (void)dt;
    for (int j = 0; j < n; ++j) {
        double d = G[j + (size_t)j * n];
        for (int k = 0; k < j; ++k) d -= G[j + (size_t)k * n] * G[j + (size_t)k * n];
        if (!(d > 0)) return j + 1;
        d = sqrt(d);
        G[j + (size_t)j * n] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = G[i + (size_t)j * n];
            for (int k = 0; k < j; ++k) s -= G[i + (size_t)k * n] * G[j + (size_t)k * n];
            G[i + (size_t)j * n] = s / d;
        }
    }
    return 0;
#endif
}

/* A layout's orders, leading dimensions and offsets as the vbatched calls take them
 * (arrays of at least one element, so that a batch of 0 has valid pointers). */
typedef struct la_vb {
    int *n, *ld;
    size_t *off;
} la_vb;

static inline la_vb la_vb_of(const la_layout *L)
{
    const size_t cnt = L->count > 0 ? (size_t)L->count : 1;
    la_vb v = {malloc(cnt * sizeof(int)), malloc(cnt * sizeof(int)), malloc(cnt * sizeof(size_t))};
    for (int b = 0; b < L->count; ++b) {
        v.n[b] = L->m[b].n;
        v.ld[b] = L->m[b].ld;
        v.off[b] = L->m[b].off;
    }
    return v;
}

static inline void la_vb_free(la_vb *v)
{
    free(v->n);
    free(v->ld);
    free(v->off);
}

/* Upload / download a layout. */
static inline gala_buffer *la_upload(gala_context *ctx, gala_dtype dt, const la_layout *L)
{
    return tu_upload(ctx, dt, L->v, L->len);
}

/* Run a block with GALA_TUNE set (tests of code paths chosen by size thresholds). The
 * run's own GALA_TUNE (e.g. a kernel variant under test on a GPU) stays in force for the keys
 * v does not set: v comes first, and the first value of a key wins. NULL: back to the run's. */
static inline void la_tune(const char *v)
{
    static int have_base;
    static char base[512];
    if (!have_base) {
        const char *e = getenv("GALA_TUNE");
        snprintf(base, sizeof base, "%s", e ? e : "");
        have_base = 1;
    }
    if (!v && !base[0]) {
        unsetenv("GALA_TUNE");
        return;
    }
    char all[1024];
    snprintf(all, sizeof all, "%s%s%s", v ? v : "", v && base[0] ? "," : "", base);
    setenv("GALA_TUNE", all, 1);
}

/* Tunings that send the updates of strided batches through gala's GEMM kernel
 * (cl/gemm_tc.cl, lagemm.tc): its plain form with the default tiles and with small ones
 * (8×16 tiles of two warps, steps of 4: many partial tiles), and where the device is
 * NVIDIA's and the dtype double the tensor-core form. Returns how many of LA_OWN_GEMM's. */
#define LA_OWN_GEMM 3
static inline int la_own_gemm_tunes(gala_context *ctx, gala_dtype dt, const char **t)
{
    gala_device_info info;
    gala_context_info(ctx, &info);
    t[0] = "lagemm.tc=1";
    t[1] = "lagemm.tc=1,lagemm.tc_wm=1,lagemm.tc_wn=2,lagemm.tc_wgm=2,lagemm.tc_wgn=1,"
           "lagemm.tc_kt=4";
    t[2] = "lagemm.tc=2";
    return dt == GALA_DOUBLE && strstr(info.vendor_name, "NVIDIA") != NULL ? 3 : 2;
}

#endif
