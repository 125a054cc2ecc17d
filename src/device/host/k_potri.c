/*
 * Host versions of cl/potri.cl: same names, same arguments (cl/potri_abi.h), same contracts
 * (see the comments of the .cl file), computed with plain loops over the matrices of the
 * launch. The launch geometry is ignored: every contract is stated independently of it.
 */
#ifndef REAL
#include "host_kernels.h"
#include "k_la.h"
#include "../../../cl/potri_abi.h"

#define HOST_TEMPLATE "k_potri.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_potri[] = {
    K(lauum_fused, GALA_HOST_SIG(POTRI_ARGS_lauum_fused)),
    K(trmm_lt, GALA_HOST_SIG(POTRI_ARGS_trmm_lt)),
    K(copy_mask, GALA_HOST_SIG(POTRI_ARGS_copy_mask)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

static void SUF(lauum_fused_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                                 int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int n = HINT(0), j0 = HINT(1);
    REAL *A = HBUF(REAL, 3);
    const ptrdiff_t ao = HLONG(4), as = HLONG(6);
    const int lda = HINT(5), up = HINT(7);
    const int *desc = HBUF(int, 8);
    const ptrdiff_t dofs = HLONG(9);
    const int vb = HINT(10);
    const int N = (int)HDEF("N", 32);
    const hmat mm = mat_at(s, n, lda, ao, as, desc, dofs, vb);
    const int nb = mm.n, ld = mm.ld;
    const ptrdiff_t base = mm.base;
    const int nbk = imin(N, nb - j0);
    if (nbk <= 0) return;
    REAL *T = A + base + lidx(j0, j0, ld, up);
    /* out(i, j) for i >= j uses rows >= i only: go row by row, top down */
    for (int i = 0; i < nbk; ++i)
        for (int j = 0; j <= i; ++j) {
            REAL acc = 0;
            for (int k = i; k < nbk; ++k) acc += T[lidx(k, i, ld, up)] * T[lidx(k, j, ld, up)];
            T[lidx(i, j, ld, up)] = acc;
        }
}

/* one matrix per item */
static gala_status SUF(lauum_fused)(const gala_host_launch *L)
{
    const int count = HINT(2);
    const double N = (double)HDEF("N", 32);
    return gala_host_items(L, "lauum_fused", count, count * N * N * N / 6,
                           SUF(lauum_fused_one), NULL, 0, NULL);
}

static gala_status SUF(copy_mask)(const gala_host_launch *L)
{
    const int m = HINT(0), nc = HINT(1), lds = HINT(4), ldd = HINT(7), mask = HINT(8);
    const REAL *S = HBUF(REAL, 2);
    REAL *D = HBUF(REAL, 5);
    const ptrdiff_t so = HLONG(3), dof = HLONG(6);
    for (int j = 0; j < nc; ++j)
        for (int i = 0; i < m; ++i) {
            const int zero =
                (mask == POTRI_ZERO_UPPER && i < j) || (mask == POTRI_ZERO_LOWER && i > j);
            D[dof + i + (ptrdiff_t)j * ldd] = zero ? (REAL)0 : S[so + i + (ptrdiff_t)j * lds];
        }
    return GALA_OK;
}

static void SUF(trmm_lt_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                             int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int n = HINT(0), I = HINT(1);
    REAL *A = HBUF(REAL, 4);
    const ptrdiff_t ao = HLONG(5), as = HLONG(7);
    const int lda = HINT(6), up = HINT(8);
    const int *desc = HBUF(int, 9);
    const ptrdiff_t dofs = HLONG(10);
    const int vb = HINT(11);
    const int N = (int)HDEF("N", 32);
    const hmat mm = mat_at(s, n, lda, ao, as, desc, dofs, vb);
    const int nb = mm.n, ld = mm.ld;
    const ptrdiff_t base = mm.base;
    const int nbk = imin(N, nb - I);
    if (nbk <= 0) return;
    REAL *W = A + base;
    for (int c = 0; c < I; ++c)
        for (int r = 0; r < nbk; ++r) {
            REAL acc = 0;
            for (int k = r; k < nbk; ++k)
                acc += W[lidx(I + k, I + r, ld, up)] * W[lidx(I + k, c, ld, up)];
            W[lidx(I + r, c, ld, up)] = acc;
        }
}

/* one matrix per item: I columns of the block row times its N × N triangle */
static gala_status SUF(trmm_lt)(const gala_host_launch *L)
{
    const int count = HINT(2);
    const double N = (double)HDEF("N", 32);
    return gala_host_items(L, "trmm_lt", count, count * HINT(1) * N * N / 2, SUF(trmm_lt_one),
                           NULL, 0, NULL);
}

#endif
