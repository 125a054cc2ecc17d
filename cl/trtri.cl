/*
 * trtri: batched triangular inverse X = L⁻¹ (Stan's diag_inv / doubling scheme, for many
 * matrices at once). docs/trtri.md explains the algorithm; the figures below show what each
 * kernel reads and writes.
 *
 * Logical view. Every kernel works on a lower-triangular matrix L. An upper-triangular input
 * U is read as L = Uᵀ by index mapping (logical (i, j) is stored at (j, i)); its inverse is
 * written back the same way, so U⁻¹ = (L⁻¹)ᵀ lands in U's triangle. Global memory is always
 * read and written in storage order (consecutive work-items on consecutive rows of a
 * column), and the transposition happens in local memory or in the thread mapping.
 *
 * Batches. A launch covers `ntask` tasks; a task is (matrix m, start row/column). Tasks are
 * implicit (m = m0 + t / per, start = (t % per)·step: uniform batches and size bins) or read
 * as int pairs from ib[task_off + TRTRI_TW·t] (variable batches). A matrix is implicit (n,
 * A + a_off + m·a_stride, lda, ...: uniform batches; info slot m) or read from the record
 * ib[meta_off + TRTRI_MW·m] = {n, lda, ldb, a_off lo, hi, b_off lo, hi, info slot, first
 * check task} (variable batches; TRTRI_R_*). ib[0 .. batch) is the per-matrix info,
 * ib[flag_idx] becomes 1 when any matrix fails (several work-items may store the same 1
 * there). Layouts and argument lists: cl/trtri_abi.h.
 *
 * Kernels (each group is compiled only when its -D parameters are given, so a program key
 * carries only what its kernels need):
 *   NB, CPT, MPG, UNR,  diag_inv                     invert diagonal blocks of order <= NB,
 *   VEC, SPLIT                                       or whole matrices (fused path)
 *   TS, TK, WPT, UNR,   inv_lower_tri_multiply       T  = C2·A3   (one doubling round)
 *   MINB
 *                       neg_rect_lower_tri_multiply  B3 = −T·C1
 *   CWG                 trtri_check, trtri_info      per-matrix info before the blocked path
 *
 * gala-defines: NB=32 CPT=1 MPG=4 UNR=1 VEC=1 SPLIT=1 TS=64 TK=16 WPT=4 CWG=256 MINB=3
 * -D parameters: NB (block order, a power of two <= 64), CPT (columns of X per work-item, 1
 * or 2; the host uses 2 only for NB <= 32), MPG (blocks per work-group), VEC (0 or 1: read
 * L's columns as RVEC vectors, when NB is a multiple of RVW), SPLIT (0 or 1, CPT = 1: invert
 * the two half blocks side by side, then the off-diagonal block by two products; step 3),
 * TS (output tile of the products, a power of two), TK (depth of a product step, divides
 * TS), WPT (outputs per work-item per dimension, TS/WPT work-items per dimension), CWG
 * (work-group size of trtri_check, a power of two), UNR (1: unroll the register loops
 * fully, as GPUs need to keep x and acc in registers; 0: keep them as loops, which CPU
 * compilers such as PoCL's build many times faster), MINB (0: no
 * hint; else work-groups per SM the CUDA compiler must fit the products into).
 */

/* the records, task lists and argument lists shared with the host (cl/trtri_abi.h) */
#include "trtri_abi.h"

DEVFN int tr_min(int a, int b) { return a < b ? a : b; }

/* Whether v is NaN or ±Inf (v − v is NaN exactly then; no fast-math is used). */
DEVFN int tr_bad(REAL v) { return !(v - v == (REAL)0); }

#include "trtri_rules.h"


#ifdef NB
/*
 * diag_inv: inverts one block of order nb <= NB per task, MPG tasks per work-group, TPM =
 * NB/CPT work-items per block; work-item c owns columns c (and c + TPM) of X = L⁻¹.
 *
 *   task (m, start):   A_m                                  B_m
 *                      [ .               ]                  [ .               ]
 *                      [ . ■             ]    inverse of    [ . □             ]
 *                      [ . . ■■          ]    ■ written     [ . . □□          ]
 *                      [ . . ■■■  <- nb  ]    to □          [ . . □□□         ]
 *                      [ . . . . .       ]                  [ . . . . .       ]
 *   the diagonal block at (start, start), nb = min(NB, n − start); nothing else is touched.
 *
 *   1. load: the nb×nb triangle is read column by column (coalesced) into local memory,
 *      logical L(i, k) at ls[k·LDL + i] (upper input: transposed on the way), zero
 *      elsewhere; rd[k] = 1 / L(k, k) (1 for a unit diagonal).
 *   2. fused = 1 (the block is the whole matrix): NaN/Inf and zero diagonals found while
 *      loading are reduced per block into info; a failing matrix is not written.
 *      fused = 0 (blocked path): the info computed by trtri_check is read instead.
 *   3. solve L·x = e_c in registers, right-looking (x_k ·= rd[k]; x_i −= L(i, k)·x_k for
 *      i > k), every L(i, k) a broadcast read of local memory; loops fully unrolled so x
 *      stays in registers (NB·CPT of them).
 *   4. X goes through local memory (reusing ls) and is written back in storage order.
 */
#define TPM (NB / CPT)
#if VEC && NB % RVW == 0
#define TR_VEC 1
#define LDL (NB + RVW) /* column stride: RVEC-aligned columns; RVEC stores in step 4 hit
                          distinct banks (4·c mod 32 words) */
#else
#define TR_VEC 0
#define LDL (NB + 1)
#endif
#define SLOT (NB * LDL)
#define TR_LCH (NB < 16 ? NB : 16) /* columns whose reads are in flight together (step 1) */
#if UNR
#define TR_PRAGMA_UNROLL _Pragma("unroll")
#else
#define TR_PRAGMA_UNROLL
#endif
#ifndef SPLIT
#define SPLIT 0
#endif
#define SH (NB / 2) /* SPLIT: order of the two diagonal blocks */
#define SQ (NB / 4) /* SPLIT: rows or columns of a product per lane */

KERNEL void diag_inv(GALA_PARAMS(TRTRI_ARGS_diag_inv))
{
    LOCAL_ARRAY RVEC lsv[(MPG * SLOT + RVW - 1) / RVW]; /* RVEC: aligned for vector reads */
    LOCAL REAL *ls = (LOCAL REAL *)lsv;
    LOCAL_ARRAY REAL rd[MPG * NB];
    LOCAL_ARRAY int red[MPG * TPM];
    const int lid = (int)LID(0), slot = lid / TPM, c = lid - slot * TPM;
    const gidx t = GRP(0) * MPG + slot;
    int nb = 0, skip = 1, la = 1, lb = 1, id = 0;
    gidx ao = 0, bo = 0;
    if (t < ntask) {
        const tr_task tk = tr_get_task(ib, task_off, m0, per, step, t);
        const tr_mat M = tr_get_mat(ib, meta_off, tk.m, n, a_off, lda, a_stride, b_off, ldb,
                                    b_stride);
        nb = tr_min(NB, M.n - tk.start);
        la = M.lda;
        lb = M.ldb;
        ao = M.ao + (gidx)tk.start * (1 + (gidx)la);
        bo = M.bo + (gidx)tk.start * (1 + (gidx)lb);
        id = M.id;
        skip = fused ? 0 : ib[id] != 0;
    }
    LOCAL REAL *L = ls + slot * SLOT;
    LOCAL REAL *r = rd + slot * NB;

    /* 1. load (storage element (p, q) is logical (i, k)) and look for NaN / zero pivots.
     * Work-item c reads its row p of every column, the indices clamped into the nb×nb
     * block, so that every read is valid and none sits behind a branch: the reads of a chunk
     * of TR_LCH columns are all in flight before the first is used (inside branches each
     * waited for the one before). What lies outside the triangle becomes 0 afterwards; the
     * other triangle is read but never used. */
    int code = LA_BIG;
    const int nl = nb > 0 ? nb - 1 : 0; /* an idle slot (nb = 0) reads A[0] */
    for (int h = 0; h < CPT; ++h) {
        const int p = c + h * TPM;
        GLOBAL const REAL *Ap = A + ao + tr_min(p, nl);
        const int sb = upper ? p * LDL : p, ss = upper ? 1 : LDL; /* ls index sb + q·ss */
        TR_PRAGMA_UNROLL
        for (int q0 = 0; q0 < NB; q0 += TR_LCH) {
            REAL v[TR_LCH];
            TR_PRAGMA_UNROLL
            for (int e = 0; e < TR_LCH; ++e) v[e] = Ap[(gidx)tr_min(q0 + e, nl) * la];
            TR_PRAGMA_UNROLL
            for (int e = 0; e < TR_LCH; ++e) {
                const int q = q0 + e, dg = p == q;
                const int in = p < nb && q < nb && (upper ? p <= q : p >= q);
                const int chk = in && !(dg && unit);
                if (chk && tr_bad(v[e])) code = tr_min(code, q + 1);
                else if (chk && dg && v[e] == (REAL)0) code = tr_min(code, NB + 1 + q);
                L[sb + q * ss] = in ? (dg && unit ? (REAL)1 : v[e]) : (REAL)0;
            }
        }
    }
    red[lid] = code;
    LOCAL_BARRIER();
    for (int h = 0; h < CPT; ++h) {
        const int p = c + h * TPM;
        r[p] = p < nb ? (REAL)1 / L[p * LDL + p] : (REAL)1;
    }
    /* 2. per-block minimum of the codes: NaN at column q -> q+1, zero pivot -> NB+1+q */
    if (fused) {
        for (int s = TPM / 2; s > 0; s >>= 1) {
            if (c < s) red[lid] = tr_min(red[lid], red[lid + s]);
            LOCAL_BARRIER();
        }
        const int mc = red[slot * TPM];
        const int info = mc == LA_BIG ? 0 : (mc <= NB ? -mc : mc - NB);
        if (t < ntask) {
            if (c == 0) {
                ib[id] = info;
                if (info != 0) ib[flag_idx] = 1;
            }
            skip = info != 0;
        }
    } else {
        LOCAL_BARRIER();
    }

/* x_i −= L(i, k)·a for i > k: column k of L read RVW at a time when TR_VEC (groups wholly
 * at or above the diagonal skipped; k is a constant once unrolled) */
#if CPT == 2
#define TR_X1(i, l) x1[i] -= (l) * a1
#else
#define TR_X1(i, l)
#endif
#if TR_VEC
#define TR_COLUMN_UPDATE(Lb, k, N)                                                          \
    do {                                                                                    \
        LOCAL const RVEC *Lk = (LOCAL const RVEC *)((Lb) + (k) * LDL);                      \
        TR_PRAGMA_UNROLL                                                                    \
        for (int g = 0; g < (N) / RVW; ++g) {                                               \
            if (g * RVW + RVW - 1 > (k)) {                                                  \
                const RVEC lv = Lk[g];                                                      \
                TR_PRAGMA_UNROLL                                                            \
                for (int e = 0; e < RVW; ++e) {                                             \
                    const int i = g * RVW + e;                                              \
                    if (i > (k)) {                                                          \
                        const REAL l = rv_get(lv, e);                                       \
                        x0[i] -= l * a0;                                                    \
                        TR_X1(i, l);                                                        \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
    } while (0)
#else
#define TR_COLUMN_UPDATE(Lb, k, N)                                                          \
    do {                                                                                    \
        TR_PRAGMA_UNROLL                                                                    \
        for (int i = 1; i < (N); ++i) {                                                     \
            if (i > (k)) {                                                                  \
                const REAL l = (Lb)[(k) * LDL + i];                                         \
                x0[i] -= l * a0;                                                            \
                TR_X1(i, l);                                                                \
            }                                                                               \
        }                                                                                   \
    } while (0)
#endif
/* v[0..N) from / to local memory at p, RVW at a time when TR_VEC (p 16-byte aligned) */
#if TR_VEC
#define TR_TW RVW
#define TR_LOAD(v, p, N)                                                                    \
    do {                                                                                    \
        TR_PRAGMA_UNROLL                                                                    \
        for (int g_ = 0; g_ < (N) / RVW; ++g_) {                                            \
            const RVEC t_ = ((LOCAL const RVEC *)(p))[g_];                                  \
            TR_PRAGMA_UNROLL                                                                \
            for (int e_ = 0; e_ < RVW; ++e_) (v)[g_ * RVW + e_] = rv_get(t_, e_);           \
        }                                                                                   \
    } while (0)
#define TR_STORE(p, v, N)                                                                   \
    do {                                                                                    \
        TR_PRAGMA_UNROLL                                                                    \
        for (int g_ = 0; g_ < (N) / RVW; ++g_) {                                            \
            RVEC t_;                                                                        \
            TR_PRAGMA_UNROLL                                                                \
            for (int e_ = 0; e_ < RVW; ++e_) rv_set(&t_, e_, (v)[g_ * RVW + e_]);           \
            ((LOCAL RVEC *)(p))[g_] = t_;                                                   \
        }                                                                                   \
    } while (0)
#else
#define TR_TW 1
#define TR_LOAD(v, p, N)                                                                    \
    do {                                                                                    \
        TR_PRAGMA_UNROLL                                                                    \
        for (int i_ = 0; i_ < (N); ++i_) (v)[i_] = (p)[i_];                                 \
    } while (0)
#define TR_STORE(p, v, N)                                                                   \
    do {                                                                                    \
        TR_PRAGMA_UNROLL                                                                    \
        for (int i_ = 0; i_ < (N); ++i_) (p)[i_] = (v)[i_];                                 \
    } while (0)
#endif
#if SPLIT
    /* 3. (SPLIT) L = [L11 0; L21 L22] with blocks of order SH = NB/2; X = L⁻¹ = [X11 0; X21 X22].
     *
     *     A: half g of the lanes inverts L_gg     B: T = L21·X11      C: X21 = −X22·T
     *        (lane cc: column cc of X_gg)           (lane: row cc of T,  (lane: column cc of X21,
     *      [ ■ .  ]   [ □ .  ]                       columns g·SQ..+SQ)   rows g·SQ..+SQ)
     *      [ . ■  ]   [ . □  ]                     [ .  . ]             [ .  . ]
     *                                              [ ■□ . ]             [ □■ ■ ]
     *
     * Every lane solves a triangle of order SH (instead of NB) and each product visits only
     * the nonzero triangle of its triangular factor, with bounds that depend on the half g
     * only: about half the multiply-adds of the one-column-per-lane solve of order NB and
     * half the registers. In local memory X11 is kept twice, by columns (its final place)
     * and by rows in the unused upper-right block (row k of X11 at column SH + k: B reads it
     * as broadcast vectors); T goes over L21 once B is done, X21 over T once C is done. */
    const int g = c / SH, cc = c - g * SH, o = g * SH;
    REAL x0[SH];
    TR_PRAGMA_UNROLL
    for (int i = 0; i < SH; ++i) x0[i] = i == cc ? (REAL)1 : (REAL)0;
    /* A: right-looking, no skipped steps (x_k is 0 for k < cc, so those steps change nothing;
     * a failing matrix is not written) */
    TR_PRAGMA_UNROLL
    for (int k = 0; k < SH; ++k) {
        const REAL a0 = x0[k] * r[o + k];
        x0[k] = a0;
        TR_COLUMN_UPDATE(L + o * LDL + o, k, SH);
    }
    LOCAL_BARRIER();
    if (g == 0) {
        TR_STORE(L + cc * LDL, x0, SH);
        TR_PRAGMA_UNROLL
        for (int i = 0; i < SH; ++i) L[(SH + i) * LDL + cc] = x0[i];
    } else {
        TR_STORE(L + (SH + cc) * LDL + SH, x0, SH);
    }
    LOCAL_BARRIER();
    REAL acc[SQ];
    TR_PRAGMA_UNROLL
    for (int j = 0; j < SQ; ++j) acc[j] = 0;
    /* B: T(cc, j) = Σ_{k ≥ j} L21(cc, k)·X11(k, j), j = g·SQ + jj */
#define TR_PHASE_B(G)                                                                       \
    TR_PRAGMA_UNROLL                                                                        \
    for (int k = (G) * SQ; k < SH; ++k) {                                                   \
        const REAL l = L[k * LDL + SH + cc];                                                \
        REAL xr[SQ];                                                                        \
        TR_LOAD(xr, L + (SH + k) * LDL + (G) * SQ, SQ);                                     \
        TR_PRAGMA_UNROLL                                                                    \
        for (int jj = 0; jj < SQ; ++jj)                                                     \
            if ((G) * SQ + jj <= k) acc[jj] += l * xr[jj];                                  \
    }
    if (g == 0) {
        TR_PHASE_B(0)
    } else {
        TR_PHASE_B(1)
    }
    LOCAL_BARRIER();
    TR_PRAGMA_UNROLL
    for (int jj = 0; jj < SQ; ++jj) {
        L[(g * SQ + jj) * LDL + SH + cc] = acc[jj];
        acc[jj] = 0;
    }
    LOCAL_BARRIER();
    /* C: X21(i, cc) = −Σ_{k ≤ i} X22(i, k)·T(k, cc), i = g·SQ + ii; T's column cc is read
     * RVW at a time (one vector per lane, conflict-free with LDL ≡ 4 words mod 32) */
#define TR_PHASE_C(G)                                                                       \
    TR_PRAGMA_UNROLL                                                                        \
    for (int k0 = 0; k0 < (G) * SQ + SQ; k0 += TR_TW) {                                     \
        REAL tv[TR_TW];                                                                     \
        TR_LOAD(tv, L + cc * LDL + SH + k0, TR_TW);                                         \
        TR_PRAGMA_UNROLL                                                                    \
        for (int e = 0; e < TR_TW; ++e) {                                                   \
            const int k = k0 + e;                                                           \
            REAL xc[SQ];                                                                    \
            TR_LOAD(xc, L + (SH + k) * LDL + SH + (G) * SQ, SQ);                            \
            TR_PRAGMA_UNROLL                                                                \
            for (int ii = 0; ii < SQ; ++ii)                                                 \
                if ((G) * SQ + ii >= k) acc[ii] -= xc[ii] * tv[e];                          \
        }                                                                                   \
    }
    if (g == 0) {
        TR_PHASE_C(0)
    } else {
        TR_PHASE_C(1)
    }
    LOCAL_BARRIER();
    TR_STORE(L + cc * LDL + SH + g * SQ, acc, SQ);
#else
    /* 3. columns c (and c + TPM) of X in registers */
    REAL x0[NB];
#if CPT == 2
    REAL x1[NB];
#endif
#if UNR
#pragma unroll
#endif
    for (int i = 0; i < NB; ++i) {
        x0[i] = i == c ? (REAL)1 : (REAL)0;
#if CPT == 2
        x1[i] = i == c + TPM ? (REAL)1 : (REAL)0;
#endif
    }
    /* Right-looking solve: x_k ·= 1/L(k,k); x_i −= L(i,k)·x_k for i > k. Steps k < c change
     * nothing (x is zero there) and are skipped. Every loop has a constant trip count, and
     * for NB > 32 the k loop is written twice (halves), so that each unrolled nest stays
     * under the size limits of LLVM-based compilers and x keeps constant register indices. */
#if NB > 32
#define TR_KH (NB / 2)
#else
#define TR_KH NB
#endif
#if UNR
#pragma unroll
#endif
    for (int k = 0; k < TR_KH; ++k) {
        if (k >= c && k < nb) {
            const REAL rk = r[k];
            const REAL a0 = x0[k] * rk;
            x0[k] = a0;
#if CPT == 2
            const REAL a1 = x1[k] * rk;
            x1[k] = a1;
#endif
            TR_COLUMN_UPDATE(L, k, NB);
        }
    }
#if NB > 32
#if UNR
#pragma unroll
#endif
    for (int k = TR_KH; k < NB; ++k) {
        if (k >= c && k < nb) {
            const REAL rk = r[k];
            const REAL a0 = x0[k] * rk;
            x0[k] = a0;
#if CPT == 2
            const REAL a1 = x1[k] * rk;
            x1[k] = a1;
#endif
            TR_COLUMN_UPDATE(L, k, NB);
        }
    }
#endif

    /* 4. X(i, c) to ls[c·LDL + i] (with TR_VEC one 16-byte store per RVW values: the 8
     * work-items of a quarter warp hit distinct banks), then out in storage order */
    LOCAL_BARRIER();
    TR_STORE(L + c * LDL, x0, NB);
#if CPT == 2
    TR_STORE(L + (c + TPM) * LDL, x1, NB);
#endif
#endif /* SPLIT */
    LOCAL_BARRIER();
    if (!skip) {
        for (int h = 0; h < CPT; ++h) {
            const int p = c + h * TPM;
            GLOBAL REAL *Bp = B + bo + p;
            const int sb = upper ? p * LDL : p, ss = upper ? 1 : LDL;
            TR_PRAGMA_UNROLL
            for (int q = 0; q < NB; ++q)
                if (q < nb && p < nb && (upper ? p <= q : p >= q) && !(unit && p == q))
                    Bp[(gidx)q * lb] = L[sb + q * ss];
        }
    }
}
#endif /* NB */

#ifdef TS
/* acc[wi][wj] += As(R + wi·TT, kk)·Bs(kk, C + wj·TT) over the TK columns of the operand tiles in
 * local memory (one step of both product kernels: rows R, columns C of the work-item) */
#if UNR
#define TR_KK_UNROLL _Pragma("unroll")
#else
#define TR_KK_UNROLL
#endif
#define TR_TILE_STEP(R, C)                                                                  \
    do {                                                                                    \
        TR_KK_UNROLL                                                                        \
        for (int kk = 0; kk < TK; ++kk) {                                                   \
            REAL a[WPT], b[WPT];                                                            \
            _Pragma("unroll") for (int w = 0; w < WPT; ++w) {                               \
                a[w] = As[kk * LDT + (R) + w * TT];                                         \
                b[w] = Bs[kk * LDT + (C) + w * TT];                                         \
            }                                                                               \
            _Pragma("unroll") for (int wi = 0; wi < WPT; ++wi)                              \
                _Pragma("unroll") for (int wj = 0; wj < WPT; ++wj)                          \
                    acc[wi][wj] += a[wi] * b[wj];                                           \
        }                                                                                   \
    } while (0)
/*
 * One doubling round for every block pair of every matrix. With the diagonal blocks of order
 * s already inverted (C1, C2 in B), the pair starting at `start` gets its off-diagonal block:
 *
 *        start      start+s                             logical L (lower)
 *          [ C1       |          ]  <- s rows
 *          [----------+------    ]
 *          [ A3 (s2×s)| C2       ]  <- s2 = min(s, n − start − s) rows
 *
 *   inv_lower_tri_multiply:       T  = C2·A3       (C2 from B, A3 from A; T in workspace)
 *   neg_rect_lower_tri_multiply:  B3 = −T·C1       (C1 from B; written over A3's place in B)
 *
 * A work-group computes one TS×TS tile (I, J) of the s2×s result of one task, with
 * (TS/WPT)² work-items each holding WPT×WPT results in registers; operand tiles of depth
 * TK pass through local memory. Triangular operands are masked (their other triangle in B
 * is the caller's data) and only their nonzero range is visited: k ≤ (I+1)·TS for C2,
 * k ≥ J·TS for C1. Matrices whose info is nonzero are skipped. T of task t is the s2×s
 * block at T + t·ldt·s with leading dimension ldt.
 */
#define TT (TS / WPT)
#define NT (TT * TT)
#define LDT (TS + 1)
/* MINB > 0: at least MINB work-groups per SM (CUDA caps the products' registers to fit) */
#if defined(MINB) && MINB > 0
#define TR_PRODUCT KERNEL_MINB(NT, MINB)
#else
#define TR_PRODUCT KERNEL
#endif

/* Load the R×C logical tile at (r0, c0) of the matrix whose logical (0, 0) is at src[off]
 * into dst[(r − r0)·dr + (c − c0)·dc]. Out of range (r >= rmax or c >= cmax) gives 0; with
 * tri, entries above the diagonal give 0 and a unit diagonal gives 1. Consecutive
 * work-items read consecutive storage elements. */
DEVFN void tr_load(LOCAL REAL *dst, const int dr, const int dc, GLOBAL const REAL *src,
                   const gidx off, const int ld, const int upper, const int R, const int C,
                   const int r0, const int c0, const int rmax, const int cmax, const int tri,
                   const int unit, const int lid)
{
    for (int e = lid; e < R * C; e += NT) {
        int rr, cc;
        if (upper) {
            cc = e % C;
            rr = e / C;
        } else {
            rr = e % R;
            cc = e / R;
        }
        const int row = r0 + rr, col = c0 + cc;
        REAL v = 0;
        if (row < rmax && col < cmax && (!tri || col <= row)) {
            if (tri && unit && col == row) v = 1;
            else v = src[tr_at(off, ld, upper, row, col)];
        }
        dst[rr * dr + cc * dc] = v;
    }
}

TR_PRODUCT void inv_lower_tri_multiply(GALA_PARAMS(TRTRI_ARGS_inv_lower_tri_multiply))
{
    LOCAL_ARRAY REAL As[TK * LDT];
    LOCAL_ARRAY REAL Bs[TK * LDT];
    const int tiles = tiles_r * tiles_c;
    const gidx t = GRP(0) / tiles;
    const int tile = (int)(GRP(0) - t * tiles);
    if (t >= ntask) return;
    const int I = tile % tiles_r, J = tile / tiles_r;
    const tr_task tk = tr_get_task(ib, task_off, m0, per, step, t);
    const tr_mat M = tr_get_mat(ib, meta_off, tk.m, n, a_off, lda, a_stride, b_off, ldb, b_stride);
    if (ib[M.id] != 0) return;
    const int s2 = tr_min(s, M.n - tk.start - s);
    if (I * TS >= s2) return;
    const gidx c2 = tr_at(M.bo, M.ldb, upper, tk.start + s, tk.start + s);
    const gidx a3 = tr_at(M.ao, M.lda, upper, tk.start + s, tk.start);
    const int lid = (int)LID(0), tx = lid % TT, ty = lid / TT;
    REAL acc[WPT][WPT];
#pragma unroll
    for (int wi = 0; wi < WPT; ++wi)
#pragma unroll
        for (int wj = 0; wj < WPT; ++wj) acc[wi][wj] = 0;
    const int kend = tr_min((I + 1) * TS, s2);
    for (int k0 = 0; k0 < kend; k0 += TK) {
        tr_load(As, 1, LDT, B, c2, M.ldb, upper, TS, TK, I * TS, k0, s2, s2, 1, unit, lid);
        tr_load(Bs, LDT, 1, A, a3, M.lda, upper, TK, TS, k0, J * TS, s2, s, 0, 0, lid);
        LOCAL_BARRIER();
        TR_TILE_STEP(tx, ty);
        LOCAL_BARRIER();
    }
    GLOBAL REAL *Tt = T + t * (gidx)ldt * s;
#pragma unroll
    for (int wi = 0; wi < WPT; ++wi) {
        const int i = I * TS + tx + wi * TT;
        if (i < s2) {
#pragma unroll
            for (int wj = 0; wj < WPT; ++wj)
                Tt[i + (gidx)(J * TS + ty + wj * TT) * ldt] = acc[wi][wj];
        }
    }
}

TR_PRODUCT void neg_rect_lower_tri_multiply(GALA_PARAMS(TRTRI_ARGS_neg_rect_lower_tri_multiply))
{
    LOCAL_ARRAY REAL As[TK * LDT];
    LOCAL_ARRAY REAL Bs[TK * LDT];
    const int tiles = tiles_r * tiles_c;
    const gidx t = GRP(0) / tiles;
    const int tile = (int)(GRP(0) - t * tiles);
    if (t >= ntask) return;
    const int I = tile % tiles_r, J = tile / tiles_r;
    const tr_task tk = tr_get_task(ib, task_off, m0, per, step, t);
    const tr_mat M = tr_get_mat(ib, meta_off, tk.m, n, 0, 1, 0, b_off, ldb, b_stride);
    if (ib[M.id] != 0) return;
    const int s2 = tr_min(s, M.n - tk.start - s);
    if (I * TS >= s2) return;
    const gidx c1 = tr_at(M.bo, M.ldb, upper, tk.start, tk.start);
    const gidx b3 = tr_at(M.bo, M.ldb, upper, tk.start + s, tk.start);
    const gidx to = t * (gidx)ldt * s;
    /* upper: transposed thread mapping, so that the stores below stay coalesced */
    const int lid = (int)LID(0), ri = upper ? lid / TT : lid % TT, ci = upper ? lid % TT : lid / TT;
    REAL acc[WPT][WPT];
#pragma unroll
    for (int wi = 0; wi < WPT; ++wi)
#pragma unroll
        for (int wj = 0; wj < WPT; ++wj) acc[wi][wj] = 0;
    for (int k0 = J * TS; k0 < s; k0 += TK) {
        tr_load(As, 1, LDT, T, to, ldt, 0, TS, TK, I * TS, k0, s2, s, 0, 0, lid);
        tr_load(Bs, LDT, 1, B, c1, M.ldb, upper, TK, TS, k0, J * TS, s, s, 1, unit, lid);
        LOCAL_BARRIER();
        TR_TILE_STEP(ri, ci);
        LOCAL_BARRIER();
    }
#pragma unroll
    for (int wi = 0; wi < WPT; ++wi) {
        const int i = I * TS + ri + wi * TT;
        if (i < s2) {
#pragma unroll
            for (int wj = 0; wj < WPT; ++wj)
                B[tr_at(b3, M.ldb, upper, i, J * TS + ci + wj * TT)] = -acc[wi][wj];
        }
    }
}
#endif /* TS */

#ifdef CWG
/*
 * trtri_check: task (m, start) scans storage columns [start, start + step) of A_m's
 * triangle (CWG work-items down each column, coalesced) and stores the smallest code
 *   q + 1          NaN/Inf in column q (0-based),       or
 *   n + 1 + q      zero diagonal entry A(q, q) (non-unit only),   LA_BIG when clean
 * in ib[part_off + t]. The tasks of one matrix are consecutive.
 *
 *   columns:     start    start+step
 *   A_m:  [ \      |::::::|         ]   ::: read (the referenced triangle only)
 */
KERNEL void trtri_check(GALA_PARAMS(TRTRI_ARGS_trtri_check))
{
    LOCAL_ARRAY int red[CWG];
    const gidx t = GRP(0);
    if (t >= ntask) return;
    const int lid = (int)LID(0);
    const tr_task tk = tr_get_task(ib, task_off, m0, per, step, t);
    const tr_mat M = tr_get_mat(ib, meta_off, tk.m, n, a_off, lda, a_stride, 0, 1, 0);
    const int qend = tr_min(tk.start + step, M.n);
    int code = LA_BIG;
    for (int q = tk.start; q < qend; ++q) {
        const int p0 = upper ? 0 : q, p1 = upper ? q + 1 : M.n;
        GLOBAL const REAL *col = A + M.ao + (gidx)q * M.lda;
        for (int p = p0 + lid; p < p1; p += CWG) {
            if (p == q && unit) continue;
            const REAL v = col[p];
            if (tr_bad(v)) code = tr_min(code, q + 1);
            else if (p == q && v == (REAL)0) code = tr_min(code, M.n + 1 + q);
        }
    }
    red[lid] = code;
    for (int h = CWG / 2; h > 0; h >>= 1) {
        LOCAL_BARRIER();
        if (lid < h) red[lid] = tr_min(red[lid], red[lid + h]);
    }
    if (lid == 0) ib[part_off + t] = red[0];
}

/*
 * trtri_info: one work-item per matrix m0 .. m0 + count − 1 combines the codes of its
 * check tasks (per of them from m·per, or ceil(n / cols) from its record) into info:
 * −(q+1) for NaN/Inf (first such column), q+1 for a zero pivot, 0 otherwise; NaN wins.
 */
KERNEL void trtri_info(GALA_PARAMS(TRTRI_ARGS_trtri_info))
{
    const gidx j = GID(0);
    if (j >= count) return;
    const gidx m = m0 + j;
    int nm = n, id = (int)m;
    gidx first = m * per, np = per;
    if (meta_off >= 0) {
        GLOBAL const int *r = ib + meta_off + TRTRI_MW * m;
        nm = r[TRTRI_R_N];
        id = r[TRTRI_R_IDX];
        first = r[TRTRI_R_CHECK];
        np = (nm + cols - 1) / cols;
    }
    int code = LA_BIG;
    for (gidx k = 0; k < np; ++k) code = tr_min(code, ib[part_off + first + k]);
    const int info = code == LA_BIG ? 0 : (code <= nm ? -code : code - nm);
    ib[id] = info;
    if (info != 0) ib[flag_idx] = 1;
}
#endif /* CWG */
