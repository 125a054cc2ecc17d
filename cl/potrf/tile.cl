/* potrf_tile (cl/potrf.cl: the family; compiled with TILE = 1) */
#if defined(TILE) && TILE
/*
 * potrf_tile: fused launches of order n <= N (potrf.tile) with the lower triangle of L cut
 * into TS×TS tiles, one tile per work-item, held in registers, factored right-looking a
 * block column of TS columns per step. Against potrf_panel (one row per work-item, one
 * barrier and one pivot chain per column, N multiply-adds per column whether the row has
 * that many entries or not): a work-item holds only entries of the triangle, a step costs
 * two barriers for TS columns, the update is a rank-TS product (TS³ multiply-adds from 2·TS
 * vector reads), and work-items whose tile column is finished stop computing; the tile
 * order puts them in the same warps, so whole warps go idle.
 *
 *      tiles of one matrix (N = 16, TS = 4: 10 tiles)      step J (block column J):
 *        K=0 K=1 K=2 K=3                                    1. the tiles (I, J) put their
 *      [ 0  .   .   .  ]  I=0    q = tile index,               tile into pb and flag
 *      [ 1  4   .   .  ]  I=1    column-major over             non-finite values (barrier)
 *      [ 2  5   7   .  ]  I=2    the tile triangle          2. each of them factors the
 *      [ 3  6   8   9  ]  I=3                                  diagonal block from pb, solves
 *                                                               its rows, puts them in sb
 *    work-item t: matrix slot t % MPG, tile q = t / MPG         (barrier)
 *    (tile-major: one warp holds the same few tiles of      3. every tile (I, K > J):
 *    MPG matrices, so early tiles finish together)             x -= sb[rows I]·sb[rows K]ᵀ
 *
 * The diagonal tiles also hold their upper entries (zero on load, updated, never stored or
 * read into the lower ones). Elements beyond a matrix's order n are the identity, as in
 * potrf_panel, and tiles wholly beyond it do nothing (a variable batch's order 33 in a
 * launch of 64 costs 45 of 136 tiles): the matrix's own tiles read only rows < n, and no
 * tile of theirs is at or right of a tile column wholly past n. Events and info are
 * potrf_panel's, per column (the flags from step 1, the pivots from step 2); the tiles of
 * a block column all find the same ones, the diagonal tile publishes them in evb for the
 * rest, and the diagonal tile holding row n - 1, which sees every column < n, writes
 * info. Arguments are potrf_panel's (fused mode only).
 * -D TS (2 or 4, dividing N), MPG (matrices per work-group; WG = MPG·tiles rounded up to a
 * multiple of 32 by the host: work-items past the last tile only join the barriers), MINB
 * (groups per SM: the register budget, which sets the speed here; see potrf.tile_minb),
 * PT_STREAM (1: the update reads one column of the block column at a time, 2·TS operand
 * registers instead of 2·TS²: potrf.tile_stream).
 */
#ifndef TS
#define TS 4
#endif
#ifndef MPG
#define MPG 1
#endif
#ifndef PT_STREAM
#define PT_STREAM 0
#endif
#if N % TS != 0 || (TS != 2 && TS != 4)
#error "potrf_tile: TS must be 2 or 4 and divide N"
#endif
#define PT_NT (N / TS)                   /* tile rows */
#define PT_NTT (PT_NT * (PT_NT + 1) / 2) /* tiles of the lower triangle */
#define PT_LV (TS % RVW == 0)            /* tiles read and written as RVEC vectors */
#define PT_NV (TS / RVW)                 /* RVECs per tile column (PT_LV) */
/* Local memory per matrix slot is padded by PT_PAD elements: the work-items of one tile in
 * the MPG matrices of a group sit side by side, and an unpadded slot stride (a multiple of
 * 128 bytes) put them on the same banks. With 16-byte reads, 8 work-items share a bank
 * cycle: the padding spreads the slots over the 8 16-byte bank groups. */
#if MPG == 1
#define PT_PAD 0
#elif !PT_LV
#define PT_PAD 1
#elif PT_NV >= 2
#define PT_PAD RVW
#else
#define PT_PAD (MPG >= 8 ? RVW : RVW * (8 / MPG))
#endif

PF_KERNEL void potrf_tile(GALA_PARAMS(POTRF_ARGS_panel))
{
#define PT_SS (N * TS + PT_PAD) /* slot stride */
    LOCAL_ARRAY RVEC pbv[(MPG * PT_SS + RVW - 1) / RVW]; /* block column J as loaded */
    LOCAL_ARRAY RVEC sbv[(MPG * PT_SS + RVW - 1) / RVW]; /* block column J factored */
    LOCAL_ARRAY int evb[MPG];                             /* events so far, per matrix */
    LOCAL_ARRAY int nf[MPG * (N + 1)];
    const int t = (int)LID(0);
    const int slot = t % MPG, qt = t / MPG;
    const gidx s = GRP(0) * MPG + slot;
    int nb, ld, idx;
    gidx base;
    pf_matrix(s, count, n, lda, ao, as, vb, desc, dofs, &nb, &ld, &base, &idx);
    int q = qt, K = 0;
    if (qt < PT_NTT)
        while (q >= PT_NT - K) {
            q -= PT_NT - K;
            ++K;
        }
    /* no tile, or a tile wholly past the order (the identity, which nothing else reads) */
    const int dead = qt >= PT_NTT || nb <= 0 || TS * (K + q) >= nb;
    const int I = dead ? -1 : K + q; /* tile (I, K); dead: (-1, -1), never K >= J */
    const int last = !dead && I == K && I == (nb - 1) / TS; /* tracks every column < n */
    if (dead) K = -1;
    const int i0 = TS * I, k0 = TS * K;
    GLOBAL REAL *T = A + base + (dead ? 0 : gala_lidx(i0, k0, ld, up));
    /* whole tile inside the order, RVEC-aligned in memory (i0 and k0 are multiples of TS) */
    const int vec = PT_LV && !dead && i0 + TS <= nb && ld % RVW == 0 && base % RVW == 0;

    REAL x[TS][TS]; /* x[a][b] = L(i0 + a, k0 + b) */
    UNROLL_LOOP
    for (int a = 0; a < TS; ++a) {
        UNROLL_LOOP
        for (int b = 0; b < TS; ++b) x[a][b] = (REAL)(i0 + a == k0 + b ? 1 : 0);
    }
#if PT_LV
    if (vec) {
        /* lower storage: tile column b is TS consecutive elements; upper: tile row a */
        UNROLL_LOOP
        for (int p = 0; p < TS; ++p) {
            UNROLL_LOOP
            for (int v = 0; v < PT_NV; ++v) {
                const RVEC w = *(GLOBAL const RVEC *)(T + v * RVW + (gidx)p * ld);
                UNROLL_LOOP
                for (int e = 0; e < RVW; ++e) {
                    if (up) x[p][v * RVW + e] = rv_get(w, e);
                    else x[v * RVW + e][p] = rv_get(w, e);
                }
            }
        }
        if (I == K) {
            UNROLL_LOOP
            for (int a = 0; a < TS; ++a) {
                UNROLL_LOOP
                for (int b = a + 1; b < TS; ++b) x[a][b] = 0;
            }
        }
    } else
#endif
    if (!dead) {
        UNROLL_LOOP
        for (int a = 0; a < TS; ++a) {
            UNROLL_LOOP
            for (int b = 0; b < TS; ++b)
                if (i0 + a < nb && k0 + b <= i0 + a)
                    x[a][b] = T[gala_lidx(a, b, ld, up)];
        }
    }
    for (int e = t; e < MPG * (N + 1); e += WG) nf[e] = 0;
    LOCAL_BARRIER();

    int ev = 0;
    LOCAL int *fl = nf + slot * (N + 1);
#if PT_LV
#define PT_PUT(c, col)                                                                      \
    UNROLL_LOOP                                                                             \
    for (int v = 0; v < PT_NV; ++v) {                                                       \
        RVEC p_;                                                                            \
        UNROLL_LOOP                                                                         \
        for (int e = 0; e < RVW; ++e) rv_set(&p_, e, x[v * RVW + e][col]);                 \
        *(LOCAL RVEC *)((c) + i0 + v * RVW) = p_;                                           \
    }
#define PT_GET(dst, c, r0)                                                                  \
    UNROLL_LOOP                                                                             \
    for (int v = 0; v < PT_NV; ++v) {                                                       \
        const RVEC g_ = *(LOCAL const RVEC *)((c) + (r0) + v * RVW);                        \
        UNROLL_LOOP                                                                         \
        for (int e = 0; e < RVW; ++e) dst[v * RVW + e] = rv_get(g_, e);                     \
    }
#else
#define PT_PUT(c, col)                                                                      \
    UNROLL_LOOP                                                                             \
    for (int a = 0; a < TS; ++a) (c)[i0 + a] = x[a][col];
#define PT_GET(dst, c, r0)                                                                  \
    UNROLL_LOOP                                                                             \
    for (int a = 0; a < TS; ++a) dst[a] = (c)[(r0) + a];
#endif
    /* block column J of TS columns per step, two barriers:
     *   1. the tiles (I, J) put their tile as it stands (updated by the block columns < J)
     *      into pb (column b at pb + b·N) and flag non-finite values of their columns
     *   2. each of them factors the diagonal block from pb (the same TS pivots in each:
     *      events as potrf_panel's, per column), solves its rows against it (its tile of
     *      L), puts that into sb; the diagonal one also puts the events into evb
     *   3. every tile with K > J: x -= (rows I of sb)·(rows K of sb)ᵀ, TS³ multiply-adds,
     *      and reads the events
     * Factoring the diagonal block once, by its own work-item before the first barrier,
     * was slower on the H200 (V6: 0.375 against 0.319 ms, float n = 64, CUDA): it put a
     * serial chain behind that tile's own update. */
    LOCAL REAL *pb = (LOCAL REAL *)pbv + slot * PT_SS, *sb = (LOCAL REAL *)sbv + slot * PT_SS;
    _Pragma("unroll 1") for (int J = 0; J < PT_NT; ++J)
    {
        if (K == J) {
            UNROLL_LOOP
            for (int b = 0; b < TS; ++b) {
                PT_PUT(pb + b * N, b)
                int bad = 0;
                UNROLL_LOOP
                for (int a = 0; a < TS; ++a)
                    if (I > J || a >= b) bad |= !gala_finite(x[a][b]);
                if (bad) fl[TS * J + b] = 1;
            }
        }
        LOCAL_BARRIER();
        if (K == J) {
            REAL D[TS][TS], isd[TS]; /* D[b][a]: column b of the diagonal block, row a */
            UNROLL_LOOP
            for (int b = 0; b < TS; ++b) PT_GET(D[b], pb + b * N, TS * J)
            UNROLL_LOOP
            for (int b = 0; b < TS; ++b) {
                REAL d = D[b][b];
                UNROLL_LOOP
                for (int m = 0; m < b; ++m) d -= D[m][b] * D[m][b];
                const int j = TS * J + b;
                if (ev == 0 && j < nb) {
                    if (fl[j] || !gala_finite(d)) ev = -(j + 1);
                    else if (d <= (REAL)0) ev = j + 1;
                }
                isd[b] = rsqrt(d);
                D[b][b] = d * isd[b];
                UNROLL_LOOP
                for (int a = b + 1; a < TS; ++a) {
                    REAL v = D[b][a];
                    UNROLL_LOOP
                    for (int m = 0; m < b; ++m) v -= D[m][a] * D[m][b];
                    D[b][a] = v * isd[b];
                }
            }
            /* this tile's rows: x = x·L_JJ⁻ᵀ (for I = J, the factor itself) */
            UNROLL_LOOP
            for (int a = 0; a < TS; ++a) {
                UNROLL_LOOP
                for (int b = 0; b < TS; ++b) {
                    REAL v = x[a][b];
                    UNROLL_LOOP
                    for (int m = 0; m < b; ++m) v -= x[a][m] * D[m][b];
                    x[a][b] = v * isd[b];
                }
            }
            UNROLL_LOOP
            for (int b = 0; b < TS; ++b) PT_PUT(sb + b * N, b)
            if (I == J) evb[slot] = ev;
        }
        LOCAL_BARRIER();
        if (K > J) {
#if PT_STREAM
            /* one column b of the block column at a time: 2·TS registers for the operands
             * instead of 2·TS² (the same products in the same order) */
            UNROLL_LOOP
            for (int b = 0; b < TS; ++b) {
                REAL u[TS], w[TS]; /* u[a] = L(i0 + a, TS·J + b), w alike for k0 */
                PT_GET(u, sb + b * N, i0)
                PT_GET(w, sb + b * N, k0)
                UNROLL_LOOP
                for (int a = 0; a < TS; ++a) {
                    UNROLL_LOOP
                    for (int c = 0; c < TS; ++c) x[a][c] -= u[a] * w[c];
                }
            }
#else
            REAL u[TS][TS], w[TS][TS]; /* u[b][a] = L(i0 + a, TS·J + b), w alike for k0 */
            UNROLL_LOOP
            for (int b = 0; b < TS; ++b) {
                PT_GET(u[b], sb + b * N, i0)
                PT_GET(w[b], sb + b * N, k0)
            }
            UNROLL_LOOP
            for (int a = 0; a < TS; ++a) {
                UNROLL_LOOP
                for (int c = 0; c < TS; ++c) {
                    REAL v = x[a][c];
                    UNROLL_LOOP
                    for (int b = 0; b < TS; ++b) v -= u[b][a] * w[b][c];
                    x[a][c] = v;
                }
            }
#endif
            ev = evb[slot];
        }
    }
#undef PT_PUT
#undef PT_GET
#undef PT_SS

    if (dead) return;
    const int stop = ev != 0 ? (ev > 0 ? ev : -ev) - 1 : N; /* first column not written */
#if PT_LV
    if (vec && I > K && k0 + TS <= stop) {
        UNROLL_LOOP
        for (int p = 0; p < TS; ++p) {
            UNROLL_LOOP
            for (int v = 0; v < PT_NV; ++v) {
                RVEC w;
                UNROLL_LOOP
                for (int e = 0; e < RVW; ++e)
                    rv_set(&w, e, up ? x[p][v * RVW + e] : x[v * RVW + e][p]);
                *(GLOBAL RVEC *)(T + v * RVW + (gidx)p * ld) = w;
            }
        }
    } else
#endif
    {
        UNROLL_LOOP
        for (int a = 0; a < TS; ++a) {
            UNROLL_LOOP
            for (int b = 0; b < TS; ++b)
                if (i0 + a < nb && k0 + b <= i0 + a && k0 + b < stop)
                    T[gala_lidx(a, b, ld, up)] = x[a][b];
        }
    }
    if (last) {
        info[io + idx] = ev;
        if (ev != 0) flag[fo] = epoch;
    }
}
#endif
