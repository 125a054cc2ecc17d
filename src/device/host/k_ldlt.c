/* Host versions of cl/ldlt.cl (same names, same arguments: cl/ldlt_abi.h, same contracts). */
#ifndef REAL
#include <math.h>
#include <stdlib.h>

#include "host_kernels.h"
#include "../../../cl/ldlt_abi.h"

/* matrix b of a launch (cl/ldlt_rules.h; DEVFN, GLOBAL, gidx: host_kernels.h) */
#include "../../../cl/ldlt_rules.h"

#define HOST_TEMPLATE "k_ldlt.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_ldlt[] = {
    K(ldlt_fused, GALA_HOST_SIG(LDLT_ARGS_fused)),
    K(ldlt_panel, GALA_HOST_SIG(LDLT_ARGS_panel)),
    K(ldlt_trsm, GALA_HOST_SIG(LDLT_ARGS_trsm)),
    K(ldlt_update, GALA_HOST_SIG(LDLT_ARGS_update)),
    K(ldlt_solve, GALA_HOST_SIG(LDLT_ARGS_solve)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

static int SUF(hl_bad)(REAL d) { return !(d - d == (REAL)0); }

/* Right-looking LDLᵀ of the m×m block a (column-major, ld lda_, lower part, unscaled columns
 * as in the kernel); returns info relative to k0 and counts. */
static int SUF(hl_factor_block)(REAL *a, int m, int ld, int k0, int *np, int *nn)
{
    for (int k = 0; k < m; ++k) {
        const REAL d = a[k * ld + k];
        if (SUF(hl_bad)(d)) return -(k0 + k + 1);
        if (d == (REAL)0) return k0 + k + 1;
        if (d > (REAL)0) ++*np; else ++*nn;
        for (int i = k + 1; i < m; ++i) {
            const REAL f = a[k * ld + i] / d;
            for (int j = k + 1; j <= i; ++j) a[j * ld + i] -= f * a[k * ld + j];
        }
    }
    return 0;
}

static void SUF(ldlt_fused_one)(const gala_host_launch *L, const void *arg, long b_, void *wk,
                                int *hit)
{
    (void)arg;
    (void)hit;
    const ptrdiff_t b = b_;
    const int var = HINT(0), upper = HINT(1), n = HINT(4), lda = HINT(5), kt = HINT(6);
    REAL *A = HBUF(REAL, 7);
    const ptrdiff_t a_off = HLONG(8), a_stride = HLONG(9);
    const int *desc = HBUF(int, 10) + HLONG(11);
    int *st = HBUF(int, 12);
    const int NBv = (int)HDEF("NB", 64);
    REAL *a = wk;
    const ldlt_mat d = ldlt_get(var, desc, 0, b, n, lda, kt, a_off, a_stride);
    const int m = d.n - d.kt;
    if (m <= 0 || st[LA_NST * d.idx + LA_ST_INFO] != 0) return;
    const ptrdiff_t rs = upper ? d.ld : 1, cs = upper ? 1 : d.ld;
    REAL *base = A + d.off + (ptrdiff_t)d.kt * (rs + cs);
    for (int j = 0; j < m; ++j)
        for (int i = j; i < m; ++i) a[j * NBv + i] = base[i * rs + j * cs];
    int np = 0, nn = 0;
    const int info = SUF(hl_factor_block)(a, m, NBv, d.kt, &np, &nn);
    if (info == 0)
        for (int j = 0; j < m; ++j)
            for (int i = j; i < m; ++i)
                base[i * rs + j * cs] = i == j ? a[j * NBv + j] : a[j * NBv + i] / a[j * NBv + j];
    if (info) st[LA_NST * d.idx + LA_ST_INFO] = info;
    st[LA_NST * d.idx + LA_ST_POS] += np;
    st[LA_NST * d.idx + LA_ST_NEG] += nn;
}

/* one matrix per item, each thread with its NB × NB block */
static gala_status SUF(ldlt_fused)(const gala_host_launch *L)
{
    const int count = HINT(2), n = HINT(4), NBv = (int)HDEF("NB", 64);
    return gala_host_items(L, "ldlt_fused", count, (double)count * n * n * n / 6,
                           SUF(ldlt_fused_one), NULL, (size_t)NBv * (size_t)NBv * sizeof(REAL),
                           NULL);
}

static void SUF(ldlt_panel_one)(const gala_host_launch *L, const void *arg, long b_, void *wk,
                                int *hit)
{
    (void)arg;
    (void)hit;
    const ptrdiff_t b = b_;
    const int var = HINT(0), upper = HINT(1), n = HINT(3), lda = HINT(4), kt = HINT(5);
    REAL *A = HBUF(REAL, 6);
    const ptrdiff_t a_off = HLONG(7), a_stride = HLONG(8);
    const int *desc = HBUF(int, 9) + HLONG(10);
    int *st = HBUF(int, 11);
    const int k0 = HINT(12);
    const int nb = (int)HDEF("NBP", 32);
    REAL *a = wk;
    const ldlt_mat d = ldlt_get(var, desc, 0, b, n, lda, kt, a_off, a_stride);
    if (k0 >= d.kt || st[LA_NST * d.idx + LA_ST_INFO] != 0) return;
    const ptrdiff_t rs = upper ? d.ld : 1, cs = upper ? 1 : d.ld;
    REAL *base = A + d.off + (ptrdiff_t)k0 * (rs + cs);
    for (int j = 0; j < nb; ++j)
        for (int i = j; i < nb; ++i) a[j * nb + i] = base[i * rs + j * cs];
    int np = 0, nn = 0;
    const int info = SUF(hl_factor_block)(a, nb, nb, k0, &np, &nn);
    if (info) st[LA_NST * d.idx + LA_ST_INFO] = info;
    st[LA_NST * d.idx + LA_ST_POS] += np;
    st[LA_NST * d.idx + LA_ST_NEG] += nn;
    if (info) return;
    for (int j = 0; j < nb; ++j)
        for (int i = j; i < nb; ++i)
            base[i * rs + j * cs] = i == j ? a[j * nb + j] : a[j * nb + i] / a[j * nb + j];
}

/* one matrix per item, each thread with its NBP × NBP block */
static gala_status SUF(ldlt_panel)(const gala_host_launch *L)
{
    const int count = HINT(2), nb = (int)HDEF("NBP", 32);
    return gala_host_items(L, "ldlt_panel", count, (double)count * nb * nb * nb / 6,
                           SUF(ldlt_panel_one), NULL, (size_t)nb * (size_t)nb * sizeof(REAL), NULL);
}

static void SUF(ldlt_trsm_one)(const gala_host_launch *L, const void *arg, long b_, void *wk,
                               int *hit)
{
    (void)arg;
    (void)hit;
    const ptrdiff_t b = b_;
    const int var = HINT(0), upper = HINT(1), n = HINT(3), lda = HINT(4), kt = HINT(5);
    REAL *A = HBUF(REAL, 6);
    const ptrdiff_t a_off = HLONG(7), a_stride = HLONG(8);
    const int *desc = HBUF(int, 9) + HLONG(10);
    const int *st = HBUF(int, 11);
    const int k0 = HINT(12);
    const int nb = (int)HDEF("NBP", 32);
    REAL *w = wk;
    const ldlt_mat d = ldlt_get(var, desc, 0, b, n, lda, kt, a_off, a_stride);
    if (k0 >= d.kt || st[LA_NST * d.idx + LA_ST_INFO] != 0) return;
    const ptrdiff_t rs = upper ? d.ld : 1, cs = upper ? 1 : d.ld;
    REAL *base = A + d.off + (ptrdiff_t)k0 * (rs + cs);
    for (int r = nb; k0 + r < d.n; ++r) {
        for (int j = 0; j < nb; ++j) {
            REAL s = base[r * rs + j * cs];
            for (int p = 0; p < j; ++p) s -= base[j * rs + p * cs] * w[p];
            w[j] = s;
        }
        for (int j = 0; j < nb; ++j) base[r * rs + j * cs] = w[j] / base[j * (rs + cs)];
    }
}

/* one matrix per item */
static gala_status SUF(ldlt_trsm)(const gala_host_launch *L)
{
    const int count = HINT(2), n = HINT(3), nb = (int)HDEF("NBP", 32);
    return gala_host_items(L, "ldlt_trsm", count, (double)count * n * nb * nb / 2,
                           SUF(ldlt_trsm_one), NULL, (size_t)nb * sizeof(REAL), NULL);
}

static void SUF(ldlt_update_one)(const gala_host_launch *L, const void *arg, long b_, void *wk,
                                 int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const ptrdiff_t b = b_;
    const int var = HINT(0), upper = HINT(1), n = HINT(3), lda = HINT(4), kt = HINT(5);
    REAL *A = HBUF(REAL, 6);
    const ptrdiff_t a_off = HLONG(7), a_stride = HLONG(8);
    const int *desc = HBUF(int, 9) + HLONG(10);
    const int *st = HBUF(int, 11);
    const int k0 = HINT(12);
    const int nb = (int)HDEF("NBP", 32);
    const ldlt_mat d = ldlt_get(var, desc, 0, b, n, lda, kt, a_off, a_stride);
    if (k0 >= d.kt || st[LA_NST * d.idx + LA_ST_INFO] != 0) return;
    const ptrdiff_t rs = upper ? d.ld : 1, cs = upper ? 1 : d.ld;
    REAL *base = A + d.off + (ptrdiff_t)k0 * (rs + cs);
    const int m = d.n - k0 - nb;
    for (int gj = 0; gj < m; ++gj)
        for (int gi = gj; gi < m; ++gi) {
            REAL acc = 0;
            for (int p = 0; p < nb; ++p)
                acc += base[(nb + gi) * rs + p * cs] * base[p * (rs + cs)] *
                       base[(nb + gj) * rs + p * cs];
            base[(nb + gi) * rs + (nb + gj) * cs] -= acc;
        }
}

/* one matrix per item */
static gala_status SUF(ldlt_update)(const gala_host_launch *L)
{
    const int count = HINT(2), n = HINT(3), nb = (int)HDEF("NBP", 32);
    return gala_host_items(L, "ldlt_update", count, (double)count * n * n * nb,
                           SUF(ldlt_update_one), NULL, 0, NULL);
}

static void SUF(ldlt_solve_one)(const gala_host_launch *L, const void *arg, long p_, void *wk,
                                int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const ptrdiff_t p = p_;
    const int var = HINT(0), upper = HINT(1), n = HINT(4), nrhs = HINT(5);
    const REAL *A = HBUF(REAL, 7);
    const ptrdiff_t a_off = HLONG(8);
    const int lda = HINT(9);
    const ptrdiff_t a_stride = HLONG(10);
    REAL *B = HBUF(REAL, 11);
    const ptrdiff_t b_off = HLONG(12);
    const int ldb = HINT(13);
    const ptrdiff_t b_stride = HLONG(14);
    const int *desc = HBUF(int, 15) + HLONG(16);
    const ptrdiff_t bb = p / nrhs;
    const int r = (int)(p - bb * nrhs);
    int nn;
    ptrdiff_t rs, cs;
    const REAL *Lm;
    REAL *x;
    if (var) {
        const int *dd = desc + LDLT_DSZ * bb;
        if (r >= dd[LDLT_S_NRHS]) return;
        nn = dd[LDLT_S_N];
        rs = upper ? dd[LDLT_S_LDA] : 1;
        cs = upper ? 1 : dd[LDLT_S_LDA];
        Lm = A + ldlt_off(dd + LDLT_S_AOFF);
        x = B + ldlt_off(dd + LDLT_S_BOFF) + (ptrdiff_t)r * dd[LDLT_S_LDB];
    } else {
        nn = n;
        rs = upper ? lda : 1;
        cs = upper ? 1 : lda;
        Lm = A + a_off + bb * a_stride;
        x = B + b_off + bb * b_stride + (ptrdiff_t)r * ldb;
    }
    for (int j = 0; j < nn; ++j)
        for (int i = j + 1; i < nn; ++i) x[i] -= Lm[i * rs + j * cs] * x[j];
    for (int i = 0; i < nn; ++i) x[i] /= Lm[i * (rs + cs)];
    for (int j = nn - 1; j >= 0; --j)
        for (int i = 0; i < j; ++i) x[i] -= Lm[j * rs + i * cs] * x[j];
}

/* one (matrix, right-hand side) pair per item */
static gala_status SUF(ldlt_solve)(const gala_host_launch *L)
{
    const long count = HLONG(2);
    const int n = HINT(4) > HINT(6) ? HINT(4) : HINT(6); /* a variable batch's largest */
    return gala_host_items(L, "ldlt_solve", count, (double)count * n * n * 2,
                           SUF(ldlt_solve_one), NULL, 0, NULL);
}

#endif
