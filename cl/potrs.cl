/*
 * potrs: triangular solves with a Cholesky factor, for strided and variable-size batches
 * (src/la/potrs.c). L coordinates and descriptors as in potrf.cl; B is plain column-major.
 *
 * potrs_fused works on the diagonal block D = L[j0 : j0+nb, j0 : j0+nb] (nb = min(N, n_b −
 * j0)) and the rows j0 .. j0+nb−1 of every right-hand side of B:
 *   mode POTRS_FWD: forward   D·Y = B   (rows own their row of D in registers; step j:
 *                       row j divides and publishes y_j in local memory, one barrier,
 *                       rows i > j subtract D(i,j)·y_j)
 *   mode POTRS_BWD: backward  Dᵀ·X = B  (rows own their column of D: D(k, i) for k >= i;
 *                       steps run j = nb−1 .. 0: row j divides and publishes x_j, rows
 *                       i < j subtract D(j,i)·x_j)
 *   both: the whole solve A·X = B for n <= N in one launch (D = L).
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
 * potrs_sweep (SWEEP = 1, below): one matrix in blocks of N rows, inverted diagonal blocks.
 *
 * gala-defines: N=32 WG=128 RC=4 UNROLL=1
 * gala-defines(potrs_sweep): N=128 WG=512 RC=4 TL=8 UNROLL=1 SWEEP=1
 * -D parameters: N (block order, a power of two <= 64), WG (work-group size, a multiple of
 *                N), RC (right-hand sides per pass), UNROLL (0 or 1); potrs_sweep's below.
 */

/* UNROLL = 1: unroll the loops over register arrays completely (GPUs keep the arrays in
 * registers); UNROLL = 0: keep them rolled (CPU OpenCL compiles much faster, and private
 * arrays live on the stack there anyway). */
#if UNROLL
#define UNROLL_LOOP _Pragma("unroll")
#else
#define UNROLL_LOOP _Pragma("unroll 1")
#endif


/* the descriptors, modes and argument lists shared with the host (cl/potrs_abi.h) */
#include "potrs_abi.h"

#define MPG (WG / N)

DEVFN gidx ps_desc_off(GLOBAL const int *d, int k)
{
    return (gidx)(unsigned int)d[k] | ((gidx)d[k + 1] << 32);
}

DEVFN gidx ps_lidx(int i, int j, int ld, int up)
{
    return up ? (gidx)j + (gidx)i * ld : (gidx)i + (gidx)j * ld;
}

#if !(defined(SWEEP) && SWEEP)
KERNEL void potrs_fused(GALA_PARAMS(POTRS_ARGS_fused))
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
            GLOBAL const int *d = desc + (dofs + s) * LA_DSZ;
            nb = d[LA_D_N];
            la = d[LA_D_LDA];
            abase = ps_desc_off(d, LA_D_AOFF);
            nr = d[LA_D_NRHS];
            lb = d[LA_D_LDB];
            bbase = ps_desc_off(d, LA_D_BOFF);
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

    if (mode & POTRS_FWD) {
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
    if (mode & POTRS_BWD) {
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
#endif /* potrs_fused */

#if defined(SWEEP) && SWEEP
/*
 * potrs_sweep: A·X = B for one matrix of order n (> N) and few right-hand sides, in blocks
 * of N rows, one launch per block and pass (src/la/potrs.c, ps_sweep). The host first puts
 * the inverses of the diagonal blocks of L in W (trtri: block b at W + wo + b·N·N, leading
 * dimension N, in the factor's triangle), so no launch runs a chain of N dependent steps:
 * every step is a product. Launch k of a pass, on the rows of B in blocks of N:
 *
 *    forward (UPDATE | INV):                 backward (UPDATE | BWD | INVT):
 *    block k of B holds y_k (final)           block k of B holds x_k (final)
 *    ┌───┐                                    ┌───┬───┬───┐
 *    │ y │                                    │   │ ▒ │ x │ ← rows of block k
 *    ├───┼───┐   group 0: rows of block k+1,  └───┴───┴───┘
 *    │ ▒ │   │   then y_{k+1} = D⁻¹·r          group 0: block k−1, then x_{k−1} = D⁻ᵀ·r
 *    ├───┤       (D = L's block (k+1, k+1))   group g: block k−1−g: r −= L(k, b)ᵀ·x_k
 *    │ ▒ │   group g: block k+1+g:
 *    └───┘        r −= L(b, k)·y_k
 *
 * Group g of dimension 0 owns one block b of output rows (r = B[b·N .. b·N + N), columns
 * GRP(1)·RC .. + RC), subtracts the product with the solved block k, and group 0, whose
 * block is then final, also multiplies it by its diagonal inverse (INV: D⁻¹; INVT: D⁻ᵀ;
 * both: the forward pass's last block turned into the backward pass's first). Without
 * UPDATE (the first launch) group 0 only applies the inverses to block k. Groups read block
 * k of B and write only their own rows: no two groups of a launch touch the same element.
 * Dimension 0 has exactly the groups of the blocks below k (forward: nblk − 1 − k) or above
 * it (backward: k), or one (no UPDATE). Modes: POTRS_SW_* (cl/potrs_abi.h).
 *
 * Every group runs the same three phases, each a product of an N × N block with N-vectors
 * (sw_part, a barrier, sw_sum, a barrier), a phase that does not apply to it reading
 * nothing: r −= T·v (UPDATE), r = D⁻¹·r (INV, group 0), r = D⁻ᵀ·r (INVT, group 0).
 * T(p, j) is read as T[p·sp + j·sj] with sp or sj equal to 1. With sp = 1 (the forward
 * update on a lower factor, the backward one on an upper) work-item (p, s) = (t mod N,
 * t / N) takes j = s, s + WG/N, ...: a warp reads 32 consecutive elements of a column.
 * With sj = 1, TL work-items share a row p and read TL consecutive elements of it (one
 * 32-byte sector in float with TL = 8). Each work-item holds its N·N/WG elements of the
 * block in registers, all read before the first multiply; partial sums meet in local
 * memory (part), one work-item per output adds them. The critical path of a pass is group
 * 0's: two such blocks read per launch (its part of L, its inverse).
 *
 * -D parameters: N (block order, a power of two), WG (work-group size, N <= WG <= N·TL,
 * N·N/WG elements per work-item), RC (right-hand sides per group), TL (work-items per row
 * of the sj = 1 products, a power of two <= N), UNROLL, SWEEP = 1.
 */
#ifndef TL
#define TL 8
#endif
#define SW_S (WG / N)        /* slices of the depth, sp = 1 products */
#define SW_PR (WG / TL)      /* rows side by side, sj = 1 products */
#define SW_M (N / SW_PR)     /* rows per work-item, sj = 1 */
#define SW_Q (N * N / WG)    /* elements of an N × N block per work-item */
#define SW_PART (WG > N * TL ? WG : N * TL)
#if WG % N != 0 || WG % TL != 0 || (N * N) % WG != 0 || SW_M < 1 || TL > N
#error "potrs_sweep: needs N <= WG <= N·TL, N·N a multiple of WG, TL <= N (powers of two)"
#endif

/* The first half of a product out = T·v over an N × N block (T(p, j) read as
 * T[p·sp + j·sj], one of sp, sj being 1): the partial sums of work-item t in part. Rows
 * p < np and columns j < nj only; tri 1: j <= p only, tri 2: j >= p only (the other
 * triangle of an inverse block is not read); v must be 0 from nj on. Every work-item
 * issues all of its SW_Q reads before it multiplies: one round trip to memory per block,
 * not one per element. No barrier here (nor in sw_sum): the kernel's barriers are
 * unconditional, which CPU OpenCL compiles far faster than barriers under branches. */
DEVFN void sw_part(GLOBAL const REAL *T, gidx sp, gidx sj, int np, int nj, int tri,
                   LOCAL const REAL *v, LOCAL REAL *part, int t)
{
    REAL a[SW_Q];
    if (sp == 1) {
        const int p = t % N, s = t / N;
        const int jlo = tri == 2 ? p : 0, jhi = tri == 1 ? min(nj, p + 1) : nj;
        GLOBAL const REAL *tp = T + p;
        UNROLL_LOOP
        for (int q = 0; q < SW_Q; ++q) {
            const int j = s + q * SW_S;
            a[q] = p < np && j >= jlo && j < jhi ? tp[(gidx)j * sj] : (REAL)0;
        }
        REAL acc[RC];
        UNROLL_LOOP
        for (int c = 0; c < RC; ++c) acc[c] = (REAL)0;
        UNROLL_LOOP
        for (int q = 0; q < SW_Q; ++q) {
            UNROLL_LOOP
            for (int c = 0; c < RC; ++c) acc[c] += a[q] * v[(s + q * SW_S) * RC + c];
        }
        UNROLL_LOOP
        for (int c = 0; c < RC; ++c) part[(s * N + p) * RC + c] = acc[c];
    } else {
        const int l = t % TL, p0 = t / TL;
        UNROLL_LOOP
        for (int m = 0; m < SW_M; ++m) {
            const int p = p0 + m * SW_PR;
            const int jlo = tri == 2 ? p : 0, jhi = tri == 1 ? min(nj, p + 1) : nj;
            GLOBAL const REAL *tp = T + (gidx)p * sp;
            UNROLL_LOOP
            for (int q = 0; q < N / TL; ++q) {
                const int j = l + q * TL;
                a[m * (N / TL) + q] = p < np && j >= jlo && j < jhi ? tp[j] : (REAL)0;
            }
        }
        UNROLL_LOOP
        for (int m = 0; m < SW_M; ++m) {
            REAL acc[RC];
            UNROLL_LOOP
            for (int c = 0; c < RC; ++c) acc[c] = (REAL)0;
            UNROLL_LOOP
            for (int q = 0; q < N / TL; ++q) {
                UNROLL_LOOP
                for (int c = 0; c < RC; ++c)
                    acc[c] += a[m * (N / TL) + q] * v[(l + q * TL) * RC + c];
            }
            UNROLL_LOOP
            for (int c = 0; c < RC; ++c) part[((p0 + m * SW_PR) * TL + l) * RC + c] = acc[c];
        }
    }
}

/* The second half (after a barrier): out[p·RC + c] = the sum of the partial sums of row p
 * (minus it with sub: out −= T·v), for the layout of sw_part's (dot = sp != 1). */
DEVFN void sw_sum(int dot, int sub, LOCAL const REAL *part, LOCAL REAL *out, int t)
{
    for (int e = t; e < N * RC; e += WG) {
        const int p = e / RC, c = e % RC;
        REAL sum = (REAL)0;
        if (dot)
            for (int q = 0; q < TL; ++q) sum += part[(p * TL + q) * RC + c];
        else
            for (int q = 0; q < SW_S; ++q) sum += part[q * N * RC + e];
        out[e] = sub ? out[e] - sum : sum;
    }
}

/* KERNEL_MINB: the work-group size as a launch bound (.reqntid on NVIDIA: registers capped
 * so that WG work-items fit one SM; without it the compiler's choice allowed only 384 of
 * 512) */
KERNEL_MINB(WG, 1) void potrs_sweep(GALA_PARAMS(POTRS_ARGS_sweep))
{
    LOCAL_ARRAY REAL v[N * RC];  /* the solved block k, v[j·RC + c] */
    LOCAL_ARRAY REAL r[N * RC];  /* this group's rows */
    LOCAL_ARRAY REAL part[SW_PART * RC];
    const int t = (int)LID(0), g = (int)GRP(0), c0 = (int)GRP(1) * RC;
    const int bwd = (mode & POTRS_SW_BWD) != 0;
    const int ob = (mode & POTRS_SW_UPDATE) ? (bwd ? k - 1 - g : k + 1 + g) : k; /* its block */
    const int o0 = ob * N, np = min(N, n - o0);
    const int k0 = k * N, nk = min(N, n - k0);
    GLOBAL REAL *Bc = B + bo;
    for (int e = t; e < N * RC; e += WG) {
        const int p = e % N, c = e / N; /* consecutive work-items: consecutive rows */
        const int in = c0 + c < nrhs;
        r[p * RC + c] = p < np && in ? Bc[o0 + p + (gidx)(c0 + c) * ldb] : (REAL)0;
        v[p * RC + c] = p < nk && in && (mode & POTRS_SW_UPDATE) ? Bc[k0 + p + (gidx)(c0 + c) * ldb]
                                                               : (REAL)0;
    }
    LOCAL_BARRIER();
    /* L(i, j) at i·si + j·sc; an inverse block D⁻¹(i, j) at i·di + j·dc (the factor's
     * triangle, leading dimension N) */
    const gidx ld = lda, si = up ? ld : 1, sc = up ? 1 : ld;
    const gidx di = up ? N : 1, dc = up ? 1 : N;
    GLOBAL const REAL *D = W + wo + (gidx)ob * N * N;
    for (int ph = 0; ph < 3; ++ph) {
        /* 0: r −= T·v, T(p, j) = forward L(o0 + p, k0 + j), backward L(k0 + j, o0 + p)
         *    (UPDATE); 1: r = D⁻¹·r (INV, group 0); 2: r = D⁻ᵀ·r (INVT, group 0) */
        const int on = ph == 0 ? (mode & POTRS_SW_UPDATE)
                               : g == 0 && (mode & (ph == 1 ? POTRS_SW_INV : POTRS_SW_INVT));
        GLOBAL const REAL *T = ph ? D : A + ao + (bwd ? k0 * si + o0 * sc : o0 * si + k0 * sc);
        const gidx sp = ph == 0 ? (bwd ? sc : si) : (ph == 1 ? di : dc);
        const gidx sj = ph == 0 ? (bwd ? si : sc) : (ph == 1 ? dc : di);
        sw_part(T, sp, sj, on ? np : 0, ph ? np : nk, ph, ph ? r : v, part, t);
        LOCAL_BARRIER();
        if (on) sw_sum(sp != 1, ph == 0, part, r, t);
        LOCAL_BARRIER();
    }
    for (int e = t; e < N * RC; e += WG) {
        const int p = e % N, c = e / N;
        if (p < np && c0 + c < nrhs) Bc[o0 + p + (gidx)(c0 + c) * ldb] = r[p * RC + c];
    }
}
#endif
