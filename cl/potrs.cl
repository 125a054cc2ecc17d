/*
 * potrs: triangular solves with a Cholesky factor, for strided and variable-size batches
 * (src/la/potrs.c). L coordinates and descriptors as in potrf.cl; B is plain column-major.
 *
 * potrs_fused works on the diagonal block D = L[j0 : j0+nb, j0 : j0+nb] (nb = min(N, n_b −
 * j0)) and the rows j0 .. j0+nb−1 of every right-hand side of B:
 *   mode 1: forward   D·Y = B   (rows own their row of D in registers; step j: row j
 *                                divides and publishes y_j in local memory, one barrier,
 *                                rows i > j subtract D(i,j)·y_j)
 *   mode 2: backward  Dᵀ·X = B  (rows own their column of D: D(k, i) for k >= i; steps run
 *                                j = nb−1 .. 0: row j divides and publishes x_j, rows i < j
 *                                subtract D(j,i)·x_j)
 *   mode 3: both: the whole solve A·X = B for n <= N in one launch (D = L).
 * Right-hand sides are processed RC at a time (registers), any number of them: work-group g
 * takes matrix group g % mgroups and the columns [rg·rpg, rg·rpg + rpg) of rg = g / mgroups.
 * N work-items per matrix, WG/N matrices per work-group; every element of D is read once per
 * pass and work-group.
 *
 *       forward, step j:                      backward, step j:
 *        [d       ]  [y_j] → local            [d x x x]  x_j → local
 *        [x d     ]    rows i > j:             [  d x x]   rows i < j:
 *        [x x d   ]    y_i −= D(i,j)·y_j       [    d x]   x_i −= D(j,i)·x_j
 *
 * gala-defines: N=32 WG=128 RC=4 UNROLL=1
 * -D parameters: N (block order, a power of two <= 64), WG (work-group size, a multiple of
 *                N), RC (right-hand sides per pass), UNROLL (0 or 1).
 */

/* UNROLL = 1: unroll the loops over register arrays completely (GPUs keep the arrays in
 * registers); UNROLL = 0: keep them rolled (CPU OpenCL compiles much faster, and private
 * arrays live on the stack there anyway). */
#if UNROLL
#define UNROLL_LOOP _Pragma("unroll")
#else
#define UNROLL_LOOP _Pragma("unroll 1")
#endif


#define DSZ 10 /* ints per matrix descriptor (src/la/la_common.h) */
#define MPG (WG / N)

DEVFN gidx ps_desc_off(GLOBAL const int *d, int k)
{
    return (gidx)(unsigned int)d[k] | ((gidx)d[k + 1] << 32);
}

DEVFN gidx ps_lidx(int i, int j, int ld, int up)
{
    return up ? (gidx)j + (gidx)i * ld : (gidx)i + (gidx)j * ld;
}

KERNEL void potrs_fused(const int n, const int nrhs, const int j0, const int count,
                        const int maxrhs, const int rpg, const int mode, GLOBAL const REAL *A,
                        const gidx ao,
                        const int lda, const gidx as, const int up, GLOBAL REAL *B,
                        const gidx bo, const int ldb, const gidx bs, GLOBAL const int *desc,
                        const gidx dofs, const int vb)
{
    LOCAL_ARRAY REAL buf[2 * MPG * RC];
    const int t = (int)LID(0);
    const int slot = t / N, row = t % N;
    const gidx mgroups = (count + MPG - 1) / MPG;
    const gidx rg = GRP(0) / mgroups;
    const gidx s = (GRP(0) - rg * mgroups) * MPG + slot;
    const int cb = (int)rg * rpg, ce = min(maxrhs, cb + rpg);
    int nb = 0, nr = 0, la = lda, lb = ldb;
    gidx abase = 0, bbase = 0;
    if (s < count) {
        if (vb) {
            GLOBAL const int *d = desc + (dofs + s) * DSZ;
            nb = d[0];
            la = d[1];
            abase = ps_desc_off(d, 2);
            nr = d[5];
            lb = d[6];
            bbase = ps_desc_off(d, 7);
        } else {
            nb = n;
            nr = nrhs;
            abase = ao + s * as;
            bbase = bo + s * bs;
        }
    }
    const int nbk = min(N, nb - j0);
    const int ne = min(nr, ce); /* this group's columns end here for this matrix */
    const int active = row < nbk;
    GLOBAL const REAL *D = A + abase + ps_lidx(j0, j0, la, up);
    GLOBAL REAL *X = B + bbase + j0;
    LOCAL REAL *sb = buf + slot * RC;
    REAL r[N];

    if (mode & 1) {
        /* row `row` of D: D(row, k), k <= row; the reciprocal of D(row, row) once, so that
         * the chain of the solve multiplies (a division is a long sequence of instructions
         * where it is correctly rounded: CUDA's default) */
        REAL dg = (REAL)1;
        UNROLL_LOOP
        for (int k = 0; k < N; ++k) {
            REAL v = (REAL)(k == row ? 1 : 0);
            if (active && k <= row) v = D[ps_lidx(row, k, la, up)];
            r[k] = v;
            if (k == row) dg = v; /* a select: one division below, not N predicated ones */
        }
        const REAL dinv = (REAL)1 / dg;
        for (int c0 = cb; c0 < ce; c0 += RC) {
            REAL x[RC];
            UNROLL_LOOP
            for (int q = 0; q < RC; ++q)
                x[q] = (active && c0 + q < ne) ? X[row + (gidx)(c0 + q) * lb] : (REAL)0;
            UNROLL_LOOP
            for (int j = 0; j < N; ++j) {
                LOCAL REAL *c = sb + (j & 1) * (MPG * RC);
                if (row == j) {
                    UNROLL_LOOP
                    for (int q = 0; q < RC; ++q) {
                        x[q] *= dinv;
                        c[q] = x[q];
                    }
                }
                LOCAL_BARRIER();
                if (row > j) {
                    UNROLL_LOOP
                    for (int q = 0; q < RC; ++q) x[q] -= r[j] * c[q];
                }
            }
            UNROLL_LOOP
            for (int q = 0; q < RC; ++q)
                if (active && c0 + q < ne) X[row + (gidx)(c0 + q) * lb] = x[q];
        }
    }
    if (mode & 2) {
        /* column `row` of D: D(k, row), k >= row */
        REAL dg = (REAL)1;
        UNROLL_LOOP
        for (int k = 0; k < N; ++k) {
            REAL v = (REAL)(k == row ? 1 : 0);
            if (active && k >= row && k < nbk) v = D[ps_lidx(k, row, la, up)];
            r[k] = v;
            if (k == row) dg = v;
        }
        const REAL dinv = (REAL)1 / dg;
        for (int c0 = cb; c0 < ce; c0 += RC) {
            REAL x[RC];
            UNROLL_LOOP
            for (int q = 0; q < RC; ++q)
                x[q] = (active && c0 + q < ne) ? X[row + (gidx)(c0 + q) * lb] : (REAL)0;
            UNROLL_LOOP
            for (int jj = 0; jj < N; ++jj) {
                const int j = N - 1 - jj;
                LOCAL REAL *c = sb + (jj & 1) * (MPG * RC);
                if (row == j) {
                    UNROLL_LOOP
                    for (int q = 0; q < RC; ++q) {
                        x[q] *= dinv;
                        c[q] = x[q];
                    }
                }
                LOCAL_BARRIER();
                if (row < j) {
                    UNROLL_LOOP
                    for (int q = 0; q < RC; ++q) x[q] -= r[j] * c[q];
                }
            }
            UNROLL_LOOP
            for (int q = 0; q < RC; ++q)
                if (active && c0 + q < ne) X[row + (gidx)(c0 + q) * lb] = x[q];
        }
    }
}
