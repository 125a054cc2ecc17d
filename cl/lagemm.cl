/*
 * lagemm: the batched, tiled matrix-product update of the blocked factorizations and solves
 * (src/la/potrf.c, potrs.c, potri.c):
 *
 *     C(i, j) += alpha · Σ_p A(i, p) · B(j, p)      i < m_b, j < n_b, p < k_b
 *
 * for every matrix b of a strided or descriptor batch. The three operands are views of two
 * matrices per batch item: M0 (the factor: logical L coordinates, stored lower or, when
 * up = 1, as U = Lᵀ) and M1 (plain column-major, e.g. the right-hand sides). Operand X is
 * the view X(i, p) = Msrc(r0 + i, c0 + p), or Msrc(r0 + p, c0 + i) when tr = 1, so
 * transposes and both triangles cost nothing. Sizes depend on the matrix (variable batches):
 * m_b = min(mcap, n_b − mx), n_b' = min(ncap, (nsrc ? nrhs_b : n_b) − nx),
 * k_b = min(kcap, n_b − kx). With mask = 1 only entries on or below the diagonal of C's
 * logical coordinates (r0 + i >= c0 + j) are written: the SYRK of the Cholesky update
 * never touches the other triangle. With skipdead = 1, matrices whose info is > 0 (failed
 * factorization) are skipped.
 *
 * One work-group computes a TM×TN tile of C for one matrix (group = matrix·tiles + tile,
 * all in dimension 0). Per step of TK, the A and B slices are staged in local memory with
 * the load order chosen so that neighbouring work-items read neighbouring addresses of
 * whichever index is contiguous in memory; each of the TDM×TDN work-items accumulates a
 * (TM/TDM)×(TN/TDN) block in registers (rows tx + TDM·a, columns ty + TDN·b).
 *
 *            p →  (TK at a time)               j →
 *        i [ A tile  TM×TK ]   ·   [ B tile TN×TK ]ᵀ   →  C tile TM×TN (read, += , write)
 *
 * Tiles wholly above the diagonal under mask = 1 exit at once.
 *
 * gala-defines: TM=64 TN=64 TK=16 TDM=16 TDN=16 UNROLL=1 MINB=3 SV=1
 * -D parameters: TM, TN (tile), TK (depth of a local-memory step), TDM, TDN (work-items
 *                along rows and columns; TM % TDM == 0, TN % TDN == 0), UNROLL (0 or 1),
 *                MINB (0: no hint; else work-groups per SM the CUDA compiler must fit),
 *                SV (1: the views as strided arrays; 0: each element through lg_addr).
 */

/* UNROLL = 1: unroll the loops over register arrays completely (GPUs keep the arrays in
 * registers); UNROLL = 0: keep them rolled (CPU OpenCL compiles much faster, and private
 * arrays live on the stack there anyway). */
#if UNROLL
#define UNROLL_LOOP _Pragma("unroll")
#else
#define UNROLL_LOOP _Pragma("unroll 1")
#endif


/* the argument list and the descriptors, shared with the host (cl/lagemm_abi.h) */
#include "lagemm_abi.h"
#define WPTM (TM / TDM)
#define WPTN (TN / TDN)
#define NTH (TDM * TDN)

DEVFN gidx lg_desc_off(GLOBAL const int *d, int k)
{
    return (gidx)(unsigned int)d[k] | ((gidx)d[k + 1] << 32);
}

/* Address of logical element (r, c) of matrix src: M0 in L coordinates, M1 plain. */
DEVFN gidx lg_addr(int src, int r, int c, int up, int l0, int l1)
{
    if (src) return (gidx)r + (gidx)c * l1;
    return up ? (gidx)c + (gidx)r * l0 : (gidx)r + (gidx)c * l0;
}

/* One operand's TK-deep slice of a tile into local memory: S[pp·(T + 1) + ii] for row (or
 * column) ii < T of the tile and step pp < TK, zero outside the matrix; FLIP: the operand is
 * walked along pp first (consecutive work-items on consecutive addresses either way). Used
 * for A (T = TM rows) and B (T = TN columns) alike.
 * GU_LOAD_SV: the strided view SRC[ii·SI + (p0 + pp)·SP], REM rows left in the matrix;
 * GU_LOAD_LG: logical element (R0 + ·, C0 + ·) through lg_addr (TR: the operand is read
 * transposed), rows X0 + ii < LIM. */
#define GU_SLICE_INDEX(T, FLIP, ii, pp, e)                                                  \
    if (FLIP) { pp = (e) % TK; ii = (e) / TK; } else { ii = (e) % (T); pp = (e) / (T); }
#define GU_LOAD_SV(S, SRC, T, FLIP, REM, SI, SP)                                            \
    for (int e = t; e < (T) * TK; e += NTH) {                                               \
        int ii, pp;                                                                         \
        GU_SLICE_INDEX(T, FLIP, ii, pp, e)                                                  \
        REAL v = 0;                                                                         \
        if (ii < (REM) && pp < prem) v = (SRC)[ii * (SI) + (p0 + pp) * (SP)];               \
        (S)[pp * ((T) + 1) + ii] = v;                                                       \
    }
#define GU_LOAD_LG(S, MSRC, SRC, T, FLIP, TR, R0, C0, X0, LIM)                              \
    for (int e = t; e < (T) * TK; e += NTH) {                                               \
        int ii, pp;                                                                         \
        GU_SLICE_INDEX(T, FLIP, ii, pp, e)                                                  \
        REAL v = 0;                                                                         \
        if ((X0) + ii < (LIM) && p0 + pp < K) {                                             \
            const int rr = (TR) ? (R0) + p0 + pp : (R0) + (X0) + ii;                        \
            const int cc = (TR) ? (C0) + (X0) + ii : (C0) + p0 + pp;                        \
            v = (MSRC)[lg_addr(SRC, rr, cc, up, l0, l1)];                                   \
        }                                                                                   \
        (S)[pp * ((T) + 1) + ii] = v;                                                       \
    }

/* MINB > 0: at least MINB work-groups per SM (CUDA caps registers to fit them) */
#if defined(MINB) && MINB > 0
#define GU_KERNEL KERNEL_MINB(NTH, MINB)
#else
#define GU_KERNEL KERNEL
#endif

GU_KERNEL void gemm_upd(GALA_PARAMS(LAGEMM_ARGS_gemm_upd))
{
    LOCAL_ARRAY REAL As[TK * (TM + 1)];
    LOCAL_ARRAY REAL Bs[TK * (TN + 1)];
    const int t = (int)LID(0);
    const int tx = t % TDM, ty = t / TDM;
    const int tiles = tiles_m * tiles_n;
    const gidx s = GRP(0) / tiles;
    const int tt = (int)(GRP(0) - s * tiles);
    const int ti = tt % tiles_m, tj = tt / tiles_m;
    if (s >= count) return;

    int nb = n, nr = nrhs, l0 = ld0, l1 = ld1, idx = (int)s;
    gidx b0 = m0o + s * m0s, b1 = m1o + s * m1s;
    if (vb) {
        GLOBAL const int *d = desc + (dofs + s) * LA_DSZ;
        nb = d[LA_D_N];
        l0 = d[LA_D_LDA];
        b0 = lg_desc_off(d, LA_D_AOFF);
        idx = d[LA_D_IDX];
        nr = d[LA_D_NRHS];
        l1 = d[LA_D_LDB];
        b1 = lg_desc_off(d, LA_D_BOFF);
    }
    const int M = min(mcap, nb - mx);
    const int NN = min(ncap, (nsrc ? nr : nb) - nx);
    const int K = min(kcap, nb - kx);
    const int i0 = ti * TM, jq0 = tj * TN;
    if (M <= 0 || NN <= 0 || K <= 0 || i0 >= M || jq0 >= NN) return;
    if (mask && cr0 + i0 + TM - 1 < cc0 + jq0) return;
    if (skipdead && info[io + idx] > 0) return;

    GLOBAL REAL *MA = asrc ? M1 + b1 : M0 + b0;
    GLOBAL REAL *MB = bsrc ? M1 + b1 : M0 + b0;
    GLOBAL REAL *MC = csrc ? M1 + b1 : M0 + b0;
    /* whether consecutive p are consecutive in memory */
    const int aflip = atr ^ (asrc == 0 && up);
    const int bflip = btr ^ (bsrc == 0 && up);
#if SV
    /* each view as a strided array: X(i, p) = base[i·si + p·sp] (one of si, sp is 1), with
     * the tile's first row folded into the base, so a load is one multiply-add (fewer
     * registers: with MINB, CUDA fits 3-4 work-groups per SM without spilling) */
    const int la = asrc ? l1 : l0, lb = bsrc ? l1 : l0;
    GLOBAL const REAL *Ab = MA + lg_addr(asrc, atr ? ar0 : ar0 + i0, atr ? ac0 + i0 : ac0, up, l0, l1);
    GLOBAL const REAL *Bb = MB + lg_addr(bsrc, btr ? br0 : br0 + jq0, btr ? bc0 + jq0 : bc0, up, l0, l1);
    const gidx a_si = aflip ? la : 1, a_sp = aflip ? 1 : la;
    const gidx b_si = bflip ? lb : 1, b_sp = bflip ? 1 : lb;
    const int mrem = M - i0, nrem = NN - jq0;
#endif

    REAL acc[WPTM][WPTN];
    UNROLL_LOOP
    for (int a = 0; a < WPTM; ++a)
        UNROLL_LOOP
        for (int b = 0; b < WPTN; ++b) acc[a][b] = 0;

    for (int p0 = 0; p0 < K; p0 += TK) {
#if SV
        const int prem = K - p0;
        GU_LOAD_SV(As, Ab, TM, aflip, mrem, a_si, a_sp);
        GU_LOAD_SV(Bs, Bb, TN, bflip, nrem, b_si, b_sp);
#else
        /* the element's logical coordinates mapped through lg_addr (NVIDIA's OpenCL compiler
         * does better with this form in float: run J6) */
        GU_LOAD_LG(As, MA, asrc, TM, aflip, atr, ar0, ac0, i0, M);
        GU_LOAD_LG(Bs, MB, bsrc, TN, bflip, btr, br0, bc0, jq0, NN);
#endif
        LOCAL_BARRIER();
        UNROLL_LOOP
        for (int pp = 0; pp < TK; ++pp) {
            REAL av[WPTM], bv[WPTN];
            UNROLL_LOOP
            for (int a = 0; a < WPTM; ++a) av[a] = As[pp * (TM + 1) + tx + TDM * a];
            UNROLL_LOOP
            for (int b = 0; b < WPTN; ++b) bv[b] = Bs[pp * (TN + 1) + ty + TDN * b];
            UNROLL_LOOP
            for (int a = 0; a < WPTM; ++a)
                UNROLL_LOOP
                for (int b = 0; b < WPTN; ++b) acc[a][b] += av[a] * bv[b];
        }
        LOCAL_BARRIER();
    }

    UNROLL_LOOP
    for (int a = 0; a < WPTM; ++a) {
        const int i = i0 + tx + TDM * a;
        UNROLL_LOOP
        for (int b = 0; b < WPTN; ++b) {
            const int j = jq0 + ty + TDN * b;
            if (i < M && j < NN && (!mask || cr0 + i >= cc0 + j)) {
                GLOBAL REAL *cp = MC + lg_addr(csrc, cr0 + i, cc0 + j, up, l0, l1);
                *cp += alpha * acc[a][b];
            }
        }
    }
}
