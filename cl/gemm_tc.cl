/*
 * gemm_tc: gala's own GEMM / SYRK for the BLAS-3 calls of src/core/blas3.c where the tuning
 * data asks for it (blas3.tc; src/core/blas3_tc.c), written for the FP64 tensor cores of
 * NVIDIA GPUs (sm_80 and later), which OpenCL reaches only through inline PTX:
 *
 *     C(i, j) = alpha · Σ_p X(i, p) · Y(j, p) + beta · C(i, j)     i < m, j < n, p < k
 *
 * with X(i, p) = A[xo + i·xi + p·xp] and Y(j, p) = B[yo + j·yi + p·yp], so that op(A) and
 * op(B)ᵀ of every transpose case are views (strides 1 and ld, or ld and 1), and C(i, j) at
 * C[co + i·ci + j·cj]. With tri = GEMM_TC_LOWER only C(i, j) with i >= j is written (the
 * lower triangle of a SYRK), with GEMM_TC_UPPER only i <= j; tiles wholly outside that
 * triangle return at once.
 *
 * Batches (the updates of src/la's batched factorizations, lagemm.tc): matrix s of `count`
 * adds s·xs, s·ys, s·cs to the three offsets; the groups of one matrix are consecutive
 * (tiles of them). With skipdead = 1 a matrix whose info[io + s] is > 0 (a failed
 * factorization) is left alone.
 *
 * One work-group computes a TM×TN tile of C; its WGM×WGN warps each own a (8·WM)×(8·WN)
 * block of the tile, held as WM×WN accumulators of the 8×8 result of one
 * mma.m8n8k4 (two values per work-item: row lane/4, columns 2·(lane%4) + 0, 1):
 *
 *            p →  (KT at a time, staged in local memory as Xs[p][i], Ys[p][j]; two
 *                  buffers: step s + 1 is read from global memory into registers and
 *                  stored into the other buffer while step s is multiplied)
 *        i [ X tile TM×KT ] · [ Y tile TN×KT ]ᵀ  →  C tile TM×TN
 *
 *        TN = 8·WN·WGN columns
 *      ┌────────┬────────┬───
 *      │ warp 0 │ warp 2 │      each warp: WM×WN mma tiles of 8×8; per step of 4 in p,
 *      │ 8WM ×  │        │      one X fragment per row tile (X(i0 + lane/4, p + lane%4))
 *      ├────────┼────────┼───   and one Y fragment per column tile, then WM·WN mma
 *      │ warp 1 │ warp 3 │
 *
 * TC = 0 computes the same accumulators with plain multiply-adds from local memory (any
 * OpenCL device, e.g. PoCL in the tests; same indices, same stores), TC = 1 with the
 * tensor-core instruction (double only; the host sets it only where the tuning data says
 * so). The same source compiles through NVRTC for the CUDA backend (its asm syntax is
 * CUDA's), where cuBLAS is the faster choice and no row selects this kernel.
 * Local memory: 2·KT·(TM + 4 + TN + 4) values, at most 48 KiB (checked by the host).
 *
 * gala-defines: WM=4 WN=4 WGM=2 WGN=2 KT=8 TC=0
 * -D parameters: WM, WN (8×8 tiles per warp along rows and columns), WGM, WGN (warps per
 *                group along rows and columns), KT (depth of a local-memory step, multiple
 *                of 4), TC (1: mma.sync through inline PTX; only with REAL = double).
 */

/* the argument list and tri's values, shared with the host (cl/gemm_tc_abi.h) */
#include "gemm_tc_abi.h"

#define TM (8 * WM * WGM)
#define TN (8 * WN * WGN)
#define NTH (32 * WGM * WGN)
#define XLD (TM + 4) /* padded rows of the local tiles: fragment reads avoid bank conflicts */
#define YLD (TN + 4)

/* Staging of a rows_t × KT slice of a view (element (r, p) at base + r·sr + p·sp) into
 * local S[p·ld + r], EX elements per work-item: work-item tid takes e = tid + s·NTH,
 * s < EX, with neighbouring work-items on neighbouring addresses of whichever index has
 * stride 1. Its (r, p) and offsets are fixed per s, so they are computed once; each step
 * of KT loads into registers (the next step's while the current one is multiplied) and
 * then stores them to local memory. Elements outside r < rows, p < k read as zero; tiles
 * wholly inside (the common case) skip those tests. */
#define EXX ((TM * KT + NTH - 1) / NTH)
#define EXY ((TN * KT + NTH - 1) / NTH)

DEVFN void gtc_coords(int e, int rows_t, gidx sr, int *r, int *p)
{
    /* past the end (when NTH does not divide rows_t·KT): a second copy of the last element */
    if (e >= rows_t * KT) e = rows_t * KT - 1;
    if (sr == 1) {
        *r = e % rows_t;
        *p = e / rows_t;
    } else {
        *p = e % KT;
        *r = e / KT;
    }
}

KERNEL void gemm_tc(GALA_PARAMS(GEMM_TC_ARGS_gemm_tc))
{
    LOCAL_ARRAY REAL Xs[2 * KT * XLD]; /* two buffers: step s in buffer s % 2 */
    LOCAL_ARRAY REAL Ys[2 * KT * YLD];
    const int tid = (int)LID(0);
    const gidx mat = GRP(0) / tiles;
    const int g = (int)(GRP(0) - mat * tiles);
    const int bi = g % tiles_m, bj = g / tiles_m;
    const int i_base = bi * TM, j_base = bj * TN;

    /* tiles wholly outside the triangle, failed matrices (uniform in the group: before any
     * barrier) */
    if (tri == GEMM_TC_LOWER && i_base + TM - 1 < j_base) return;
    if (tri == GEMM_TC_UPPER && i_base > j_base + TN - 1) return;
    if (skipdead && info[io + mat] > 0) return;
    const gidx xo = xo0 + mat * xs, yo = yo0 + mat * ys, co = co0 + mat * cs;
    const int lane = tid % 32, warp = tid / 32;
    const int wi = (warp % WGM) * 8 * WM, wj = (warp / WGM) * 8 * WN;
    const int lr = lane >> 2, lc = lane & 3;
    REAL acc[WM][WN][2];
#pragma unroll
    for (int a = 0; a < WM; ++a)
#pragma unroll
        for (int b = 0; b < WN; ++b) acc[a][b][0] = acc[a][b][1] = (REAL)0;

    /* per staged element: local index, global offset at p0 = 0, row and depth */
    int xl[EXX], yl[EXY], xrw[EXX], xpp[EXX], yrw[EXY], ypp[EXY];
    gidx xg[EXX], yg[EXY];
    REAL xv[EXX], yv[EXY];
    const int xfull = i_base + TM <= m, yfull = j_base + TN <= n;
#pragma unroll
    for (int s = 0; s < EXX; ++s) {
        int r, p;
        gtc_coords(tid + s * NTH, TM, xi, &r, &p);
        xl[s] = p * XLD + r;
        xrw[s] = i_base + r;
        xpp[s] = p;
        xg[s] = xo + (gidx)(i_base + r) * xi + (gidx)p * xp;
    }
#pragma unroll
    for (int s = 0; s < EXY; ++s) {
        int r, p;
        gtc_coords(tid + s * NTH, TN, yi, &r, &p);
        yl[s] = p * YLD + r;
        yrw[s] = j_base + r;
        ypp[s] = p;
        yg[s] = yo + (gidx)(j_base + r) * yi + (gidx)p * yp;
    }
#define GTC_LOAD(p0)                                                                       \
    {                                                                                      \
        const int inner = (p0) + KT <= k;                                                  \
        _Pragma("unroll") for (int s = 0; s < EXX; ++s) xv[s] =                            \
            (inner && xfull) || (xrw[s] < m && (p0) + xpp[s] < k)                          \
                ? A[xg[s] + (gidx)(p0) * xp] : (REAL)0;                                    \
        _Pragma("unroll") for (int s = 0; s < EXY; ++s) yv[s] =                            \
            (inner && yfull) || (yrw[s] < n && (p0) + ypp[s] < k)                          \
                ? B[yg[s] + (gidx)(p0) * yp] : (REAL)0;                                    \
    }
#define GTC_STORE(buf)                                                                     \
    {                                                                                      \
        _Pragma("unroll") for (int s = 0; s < EXX; ++s) Xs[(buf) * KT * XLD + xl[s]] = xv[s]; \
        _Pragma("unroll") for (int s = 0; s < EXY; ++s) Ys[(buf) * KT * YLD + yl[s]] = yv[s]; \
    }
    /* one barrier per step: step s reads buffer s % 2 while the work-items store step
     * s + 1 into the other, which every work-item finished reading before the barrier that
     * ended step s − 1 */
    GTC_LOAD(0);
    GTC_STORE(0);
    LOCAL_BARRIER();
    for (int p0 = 0, cur = 0; p0 < k; p0 += KT, cur ^= 1) {
        const int more = p0 + KT < k;
        if (more) GTC_LOAD(p0 + KT);
        LOCAL const REAL *Xc = Xs + cur * KT * XLD, *Yc = Ys + cur * KT * YLD;
#pragma unroll
        for (int q = 0; q < KT; q += 4) {
#if TC && GALA_DOUBLE
            REAL xf[WM], yf[WN];
#pragma unroll
            for (int a = 0; a < WM; ++a) xf[a] = Xc[(q + lc) * XLD + wi + 8 * a + lr];
#pragma unroll
            for (int b = 0; b < WN; ++b) yf[b] = Yc[(q + lc) * YLD + wj + 8 * b + lr];
#pragma unroll
            for (int a = 0; a < WM; ++a)
#pragma unroll
                for (int b = 0; b < WN; ++b) {
                    REAL d0, d1;
                    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 "
                                 "{%0,%1}, {%2}, {%3}, {%4,%5};"
                                 : "=d"(d0), "=d"(d1)
                                 : "d"(xf[a]), "d"(yf[b]), "d"(acc[a][b][0]), "d"(acc[a][b][1]));
                    acc[a][b][0] = d0;
                    acc[a][b][1] = d1;
                }
#else
#pragma unroll
            for (int t = 0; t < 4; ++t)
#pragma unroll
                for (int a = 0; a < WM; ++a) {
                    const REAL x = Xc[(q + t) * XLD + wi + 8 * a + lr];
#pragma unroll
                    for (int b = 0; b < WN; ++b) {
                        const int c = wj + 8 * b + 2 * lc;
                        acc[a][b][0] = fma(x, Yc[(q + t) * YLD + c], acc[a][b][0]);
                        acc[a][b][1] = fma(x, Yc[(q + t) * YLD + c + 1], acc[a][b][1]);
                    }
                }
#endif
        }
        if (more) GTC_STORE(cur ^ 1);
        LOCAL_BARRIER();
    }

#pragma unroll
    for (int a = 0; a < WM; ++a)
#pragma unroll
        for (int b = 0; b < WN; ++b)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int i = i_base + wi + 8 * a + lr, j = j_base + wj + 8 * b + 2 * lc + h;
                if (i < m && j < n && (tri != GEMM_TC_LOWER || i >= j) &&
                    (tri != GEMM_TC_UPPER || i <= j)) {
                    const gidx o = co + (gidx)i * ci + (gidx)j * cj;
                    C[o] = beta == (REAL)0 ? alpha * acc[a][b][h]
                                           : alpha * acc[a][b][h] + beta * C[o];
                }
            }
}
