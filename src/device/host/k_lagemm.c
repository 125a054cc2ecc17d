/*
 * Host versions of cl/lagemm.cl: same names, same arguments (cl/lagemm_abi.h), same contracts
 * (see the comments of the .cl file), computed with plain loops over the matrices of the
 * launch. The launch geometry is ignored: every contract is stated independently of it.
 */
#ifndef REAL
#include "host_kernels.h"
#include "k_la.h"
#include "../../../cl/lagemm_abi.h"

#define HOST_TEMPLATE "k_lagemm.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_lagemm[] = {
    K(gemm_upd, GALA_HOST_SIG(LAGEMM_ARGS_gemm_upd)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

/* strides of an operand view X(i, p): address = base + i·si + p·sp */
static void SUF(op_strides)(int src, int tr, int up, ptrdiff_t l0, ptrdiff_t l1, ptrdiff_t *si,
                            ptrdiff_t *sp)
{
    /* logical (r, c) of M0: up ? c + r·l0 : r + c·l0; of M1: r + c·l1 */
    ptrdiff_t sr, sc;
    if (src) { sr = 1; sc = l1; }
    else if (up) { sr = l0; sc = 1; }
    else { sr = 1; sc = l0; }
    *si = tr ? sc : sr;
    *sp = tr ? sr : sc;
}

static void SUF(gemm_upd_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                              int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int mx = HINT(3), mcap = HINT(4), nx = HINT(5), ncap = HINT(6);
    const int nsrc = HINT(7), kx = HINT(8), kcap = HINT(9);
    const REAL alpha = HREAL(10);
    const int mask = HINT(11);
    const int asrc = HINT(12), ar0 = HINT(13), ac0 = HINT(14), atr = HINT(15);
    const int bsrc = HINT(16), br0 = HINT(17), bc0 = HINT(18), btr = HINT(19);
    const int csrc = HINT(20), cr0 = HINT(21), cc0 = HINT(22);
    REAL *M0 = HBUF(REAL, 23);
    const ptrdiff_t m0o = HLONG(24), m0s = HLONG(26);
    const int ld0 = HINT(25), up = HINT(27);
    REAL *M1 = HBUF(REAL, 28);
    const ptrdiff_t m1o = HLONG(29), m1s = HLONG(31);
    const int ld1 = HINT(30), n = HINT(32), nrhs = HINT(33);
    const int *desc = HBUF(int, 34);
    const ptrdiff_t dofs = HLONG(35);
    const int vb = HINT(36);
    const int *info = HBUF(int, 37);
    const ptrdiff_t io = HLONG(38);
    const int skipdead = HINT(39);
    const hmat m0 = mat_at(s, n, ld0, m0o, m0s, desc, dofs, vb);
    const hrhs m1 = rhs_at(s, nrhs, ld1, m1o, m1s, desc, dofs, vb);
    const int nb = m0.n, nr = m1.nrhs, l0 = m0.ld, l1 = m1.ld, idx = m0.idx;
    const ptrdiff_t b0 = m0.base, b1 = m1.base;
    const int M = imin(mcap, nb - mx), NN = imin(ncap, (nsrc ? nr : nb) - nx);
    const int K = imin(kcap, nb - kx);
    if (M <= 0 || NN <= 0 || K <= 0) return;
    if (skipdead && info[io + idx] > 0) return;
    ptrdiff_t ai, ap, bj, bp, ci, cj;
    SUF(op_strides)(asrc, atr, up, l0, l1, &ai, &ap);
    SUF(op_strides)(bsrc, btr, up, l0, l1, &bj, &bp);
    SUF(op_strides)(csrc, 0, up, l0, l1, &ci, &cj);
    const REAL *Ab = (asrc ? M1 + b1 : M0 + b0) + ar0 * (atr ? ap : ai) + ac0 * (atr ? ai : ap);
    const REAL *Bb = (bsrc ? M1 + b1 : M0 + b0) + br0 * (btr ? bp : bj) + bc0 * (btr ? bj : bp);
    REAL *Cb = (csrc ? M1 + b1 : M0 + b0) + cr0 * ci + cc0 * cj;
    for (int j = 0; j < NN; ++j) {
        int i0 = mask ? cc0 + j - cr0 : 0; /* mask: logical row >= logical column */
        if (i0 < 0) i0 = 0;
        for (int p = 0; p < K; ++p) {
            const REAL b = alpha * Bb[j * bj + p * bp];
            const REAL *a = Ab + p * ap;
            REAL *c = Cb + j * cj;
            for (int i = i0; i < M; ++i) c[i * ci] += a[i * ai] * b;
        }
    }
}

/* one matrix per item: its M × N × K product (the caps bound every matrix's) */
static gala_status SUF(gemm_upd)(const gala_host_launch *L)
{
    const int count = HINT(0);
    return gala_host_items(L, "gemm_upd", count, (double)count * HINT(4) * HINT(6) * HINT(9),
                           SUF(gemm_upd_one), NULL, 0, NULL);
}

#endif
