/*
 * Host versions of cl/potrs.cl: same names, same arguments (cl/potrs_abi.h), same contracts
 * (see the comments of the .cl file), computed with plain loops over the matrices of the
 * launch. The launch geometry is ignored: every contract is stated independently of it.
 */
#ifndef REAL
#include "host_kernels.h"
#include "k_la.h"
#include "../../../cl/potrs_abi.h"

#define HOST_TEMPLATE "k_potrs.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_potrs[] = {
    K(potrs_fused, GALA_HOST_SIG(POTRS_ARGS_fused)),
    K(potrs_sweep, GALA_HOST_SIG(POTRS_ARGS_sweep)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

static void SUF(potrs_fused_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                                 int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int n = HINT(0), nrhs = HINT(1), j0 = HINT(2), mode = HINT(6);
    const REAL *A = HBUF(REAL, 7);
    const ptrdiff_t ao = HLONG(8), as = HLONG(10);
    const int lda = HINT(9), up = HINT(11);
    REAL *B = HBUF(REAL, 12);
    const ptrdiff_t bo = HLONG(13), bs = HLONG(15);
    const int ldb = HINT(14);
    const int *desc = HBUF(int, 16);
    const ptrdiff_t dofs = HLONG(17);
    const int vb = HINT(18);
    const int N = (int)HDEF("N", 32);
    const hmat ma = mat_at(s, n, lda, ao, as, desc, dofs, vb);
    const hrhs mb = rhs_at(s, nrhs, ldb, bo, bs, desc, dofs, vb);
    const int la = ma.ld;
    const int nbk = imin(N, ma.n - j0);
    if (nbk <= 0) return;
    const REAL *D = A + ma.base + lidx(j0, j0, la, up);
    for (int c = 0; c < mb.nrhs; ++c) {
        REAL *x = B + mb.base + j0 + (ptrdiff_t)c * mb.ld;
        if (mode & POTRS_FWD)
            for (int j = 0; j < nbk; ++j) {
                x[j] /= D[lidx(j, j, la, up)];
                for (int i = j + 1; i < nbk; ++i) x[i] -= D[lidx(i, j, la, up)] * x[j];
            }
        if (mode & POTRS_BWD)
            for (int j = nbk - 1; j >= 0; --j) {
                x[j] /= D[lidx(j, j, la, up)];
                for (int i = 0; i < j; ++i) x[i] -= D[lidx(j, i, la, up)] * x[j];
            }
    }
}

/* one matrix per item: its right-hand sides against the block of order N at j0 */
static gala_status SUF(potrs_fused)(const gala_host_launch *L)
{
    const int count = HINT(3);
    const double N = (double)HDEF("N", 32);
    return gala_host_items(L, "potrs_fused", count, count * HINT(1) * N * N,
                           SUF(potrs_fused_one), NULL, 0, NULL);
}

/* potrs_sweep's contract (cl/potrs.cl) for every right-hand side: the groups of the
 * launch are the blocks below k (forward), above k (backward) or block k alone (no UPDATE);
 * the first of them also applies its diagonal block's inverse from W. */
static gala_status SUF(potrs_sweep)(const gala_host_launch *L)
{
    const int n = HINT(0), nrhs = HINT(1), k = HINT(2), mode = HINT(3);
    const REAL *A = HBUF(REAL, 4);
    const ptrdiff_t ao = HLONG(5);
    const int lda = HINT(6), up = HINT(7);
    const REAL *W = HBUF(REAL, 8);
    const ptrdiff_t wo = HLONG(9);
    REAL *B = HBUF(REAL, 10);
    const ptrdiff_t bo = HLONG(11);
    const int ldb = HINT(12);
    const int N = (int)HDEF("N", 128), nblk = (n + N - 1) / N, bwd = (mode & POTRS_SW_BWD) != 0;
    const int groups = (mode & POTRS_SW_UPDATE) ? (bwd ? k : nblk - 1 - k) : 1;
    REAL r[256];
    if (N > 256) return GALA_ERR_INTERNAL;
    for (int c = 0; c < nrhs; ++c) {
        REAL *x = B + bo + (ptrdiff_t)c * ldb;
        for (int g = 0; g < groups; ++g) {
            const int ob = (mode & POTRS_SW_UPDATE) ? (bwd ? k - 1 - g : k + 1 + g) : k;
            const int o0 = ob * N, np = imin(N, n - o0);
            for (int p = 0; p < np; ++p) r[p] = x[o0 + p];
            if (mode & POTRS_SW_UPDATE) {
                /* T(p, j) = forward L(o0 + p, k0 + j), backward L(k0 + j, o0 + p), at
                 * T[p·sp + j·sj]; the loop along the stored columns innermost */
                const int k0 = k * N, nk = imin(N, n - k0);
                const ptrdiff_t si = up ? lda : 1, sc = up ? 1 : lda;
                const ptrdiff_t sp = bwd ? sc : si, sj = bwd ? si : sc;
                const REAL *T = A + ao + (bwd ? k0 * si + o0 * sc : o0 * si + k0 * sc);
                if (sp == 1) {
                    for (int j = 0; j < nk; ++j)
                        for (int p = 0; p < np; ++p) r[p] -= T[p + j * sj] * x[k0 + j];
                } else {
                    for (int p = 0; p < np; ++p) {
                        REAL sum = 0;
                        for (int j = 0; j < nk; ++j) sum += T[p * sp + j] * x[k0 + j];
                        r[p] -= sum;
                    }
                }
            }
            if (g == 0) {
                const REAL *D = W + wo + (ptrdiff_t)ob * N * N;
                if (mode & POTRS_SW_INV) /* r = D⁻¹·r, bottom up */
                    for (int p = np - 1; p >= 0; --p) {
                        REAL sum = 0;
                        for (int j = 0; j <= p; ++j) sum += D[lidx(p, j, N, up)] * r[j];
                        r[p] = sum;
                    }
                if (mode & POTRS_SW_INVT) /* r = D⁻ᵀ·r, top down */
                    for (int p = 0; p < np; ++p) {
                        REAL sum = 0;
                        for (int j = p; j < np; ++j) sum += D[lidx(j, p, N, up)] * r[j];
                        r[p] = sum;
                    }
            }
            for (int p = 0; p < np; ++p) x[o0 + p] = r[p];
        }
    }
    return GALA_OK;
}

#endif
