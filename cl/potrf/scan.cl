/*
 * potrf_scan / potrf_scan_finish (used before the chunked path): find for every matrix the
 * first column of L holding a NaN or Inf in the referenced triangle, and initialize info to
 * -(that column) or 0. potrf_scan: one work-group per (matrix, block of scb stored
 * columns; the host makes blocks narrow enough to fill the device, e.g. 8 columns for one
 * matrix of order 16384), coalesced reads down the stored columns; a block that finds one
 * folds its minimum into the matrix's tmp slot by an atomic minimum.
 * potrf_scan_finish: one work-item per matrix turns its slot into info.
 */

/* Smallest L-column holding a non-finite value, per (matrix, block of scb stored columns),
 * folded into tmp[to + s] (LA_BIG before the launch) by an atomic minimum — only by blocks
 * that found one. Lower storage: stored column c holds L(c.., c): candidate c. Upper
 * storage: stored column c holds U(0..c, c) = L(c, 0..c): candidate = the stored row. */
KERNEL void potrf_scan(GALA_PARAMS(POTRF_ARGS_scan))
{
    LOCAL_ARRAY int red[WG];
    const int t = (int)LID(0);
    const gidx s = GRP(0) / nblk;
    const int blk = (int)(GRP(0) - s * nblk);
    int nb = n, ld = lda;
    gidx base = ao + s * as;
    if (vb) {
        GLOBAL const int *d = desc + (dofs + s) * LA_DSZ;
        nb = d[LA_D_N];
        ld = d[LA_D_LDA];
        base = gala_desc_off(d, LA_D_AOFF);
    }
    int best = LA_BIG;
    const int c0 = blk * scb, c1 = min(nb, c0 + scb);
    for (int c = c0; c < c1; ++c) {
        GLOBAL const REAL *colp = A + base + (gidx)c * ld;
        const int lo = up ? 0 : c, hi = up ? c + 1 : nb;
        for (int i = lo + t; i < hi; i += WG) {
            const int cand = up ? i : c;
            if (cand < best && !gala_finite(colp[i])) best = cand;
        }
    }
    red[t] = best;
    for (int h = WG / 2; h > 0; h >>= 1) {
        LOCAL_BARRIER();
        if (t < h && red[t + h] < red[t]) red[t] = red[t + h];
    }
    if (t == 0 && red[0] != LA_BIG) atomic_min(&tmp[to + s], red[0]);
}

/* The folded minimum tmp[to + s] of matrix s into its info: potrf_scan_finish sets info
 * from it (-(column + 1), or 0); potrf_merge (the blocked path with potrf.psolve, which has
 * no potrf_scan) weighs potrf_trsm's non-finite rows against the events the panels wrote:
 * the earlier column wins, a non-finite value over a pivot event in the same column. */
DEVFN void pf_fold(GALA_PARAMS(POTRF_ARGS_fold), const int merge)
{
    const gidx s = GID(0);
    if (s >= count) return;
    const int best = tmp[to + s];
    const int idx = vb ? desc[(dofs + s) * LA_DSZ + LA_D_IDX] : (int)s;
    if (!merge) info[io + idx] = best == LA_BIG ? 0 : -(best + 1);
    if (best == LA_BIG) return;
    const int cur = merge ? info[io + idx] : 0;
    if (cur == 0 || best <= (cur > 0 ? cur : -cur) - 1) {
        info[io + idx] = -(best + 1);
        flag[fo] = epoch;
    }
}
KERNEL void potrf_scan_finish(GALA_PARAMS(POTRF_ARGS_fold))
{
    pf_fold(GALA_ARGNAMES(POTRF_ARGS_fold), 0);
}
KERNEL void potrf_merge(GALA_PARAMS(POTRF_ARGS_fold))
{
    pf_fold(GALA_ARGNAMES(POTRF_ARGS_fold), 1);
}
