/*
 * potrf_panel (cl/potrf.cl: coordinates, matrices, events) factors the column panel
 * P = L[j0 : n, j0 : j0+nc) of every matrix, where nc = min(N, min(wlim, n) - j0):
 * right-looking inside the panel, one work-item per row of P holding that row in registers
 * (REAL r[N], loops fully unrolled so that r stays in registers), one work-group barrier per
 * column. Also the fused launches' last resort: every device builds it.
 *
 *      column j of the step:            j0      j0+nc
 *                                   j0  [d . . .]          d: diagonal, sqrt by everyone
 *    each row i > j owns r[·]          [x d . .]          x: r[j] /= sqrt(d)
 *    and reads the column of the       [x x d .]          then r[k] -= r[j]·col[k] / d
 *    diagonal block from local         [x x x d]             for k > j (col[] in local)
 *    memory (col[], written by the     [x x x x]  rows below the diagonal block:
 *    rows < nc before the barrier)     [x x x x]  same update, they only read col[]
 *
 * Two geometries (nchunks):
 *   nchunks = 0  "fused": the whole matrix is one panel (n <= N, j0 = 0): N work-items per
 *                matrix, WG/N matrices per work-group. Each matrix is read once and written
 *                once; info is written for every matrix of the launch (POTRF_MODE_INFO).
 *   nchunks > 0  "chunked": one matrix per work-group; work-items 0..N-1 own the panel rows
 *                0..N-1 (the diagonal block, recomputed identically by every work-group of
 *                the matrix) and work-items N..WG-1 own rows N + c·(WG-N) + t of chunk
 *                c = group % nchunks. Info is read first (a matrix with info > 0 from an
 *                earlier panel is skipped, info = -c limits events to columns < c, see
 *                potrf_scan) and updated on a new event. With one chunk the work-group
 *                writes all its rows. With several, every work-group reads rows 0..N-1, so
 *                they are written by a second launch: TAIL writes rows >= N only and no
 *                info, then HEAD (nchunks = 1) factors and writes rows < N and info. Or
 *                (the default, potrf.split): SPLIT does both in one launch, chunk 0
 *                putting rows < N (lower coordinates, leading dimension N) and its first
 *                unwritten column into W[wo + s·POTRF_SPLIT_W(N) ...], and COPY (nchunks
 *                = 1) copies them into A: a copy instead of a second factorization of the
 *                diagonal block. Or (potrf.psolve) HEAD | DIAG (in the fused geometry at
 *                j0: WG/N matrices per group) factors and writes rows < N, info, and its
 *                first unwritten column into W[wo + s], and potrf_trsm solves the rows
 *                below. The info-reading modes (all but INFO) work in either geometry.
 *                (Modes: POTRF_MODE_*.)
 */
PF_KERNEL void potrf_panel(GALA_PARAMS(POTRF_ARGS_panel))
{
    LOCAL_ARRAY RVEC colv[(2 * WG + RVW - 1) / RVW]; /* RVEC: aligned for the VEC reads */
    LOCAL REAL *col = (LOCAL REAL *)colv;
    LOCAL_ARRAY int nf[WG];
    const int t = (int)LID(0);
    const int chunked = nchunks > 0;
    const int slot = chunked ? 0 : t / N;
    const int lt = chunked ? t : t % N;
    const gidx s = chunked ? GRP(0) / nchunks : GRP(0) * (WG / N) + slot;
    const int chunk = chunked ? (int)(GRP(0) - s * nchunks) : 0;
    const int row = lt < N ? lt : N + chunk * (WG - N) + (lt - N);

    int nb, ld, idx;
    gidx base;
    pf_matrix(s, count, n, lda, ao, as, vb, desc, dofs, &nb, &ld, &base, &idx);
    const int wl = min(wlim, nb);
    const int ncols = min(N, wl - j0);      /* columns of this panel (<= 0: nothing to do) */
    const int mrows = nb - j0;               /* rows of this panel */
    int lim = LA_BIG;                        /* events only at columns < lim */
    int dead = ncols <= 0;
    pf_prior(info, io + idx, mode, j0, &dead, &lim);
    /* chunked work-groups hold one matrix: leave early when there is nothing to do */
#if SPLITK
    const int toW = (mode & POTRF_MODE_SPLIT) != 0; /* rows < N go to W */
#else
    /* fused launches: the SPLIT / COPY code compiled out (it cost the fused kernel 5-27 % on
     * the H200); a literal, not a const int: clang (PoCL) warns about a constant variable in
     * a && chain */
#define toW 0
#endif
    const gidx wb = wo + s * POTRF_SPLIT_W(N);       /* this matrix's N×N + 1 in W */
    if (chunked && (dead || (chunk > 0 && N + chunk * (WG - N) >= mrows))) {
        if (toW && chunk == 0 && t == 0 && s < count) W[wb + N * N] = 0; /* nothing to copy */
        return;
    }

    const int tail = (mode & POTRF_MODE_TAIL) != 0, head = (mode & POTRF_MODE_HEAD) != 0;
    const int active = !dead && row < mrows && !(head && row >= N);
    GLOBAL REAL *P = A + base + gala_lidx(j0, j0, ld, up);
#if SPLITK
    if (mode & POTRF_MODE_COPY) {
        /* COPY: the rows < N a SPLIT launch left in W, up to its first unwritten column */
        const int stopw = (int)W[wb + N * N];
        if (active && row < N)
            for (int k = 0; k < ncols && k < stopw && k <= row; ++k)
                P[gala_lidx(row, k, ld, up)] = W[wb + row + (gidx)k * N];
        return;
    }
#endif

    REAL r[N];
    UNROLL_LOOP
    for (int k = 0; k < N; ++k) {
        REAL v = (REAL)(k == row ? 1 : 0);
        if (active && k < ncols && k <= row) v = P[gala_lidx(row, k, ld, up)];
        r[k] = v;
    }
    nf[t] = 0;
    LOCAL_BARRIER();

    int ev = 0;
    LOCAL REAL *cb = col + slot * N;
    LOCAL int *fl = nf + slot * N;
    /* SEL = 1: every index of r[] is a compile-time constant once the k loops are unrolled.
     * NVIDIA's OpenCL compiler does not unroll this j loop (it holds a barrier), and any r[j]
     * there put r on the stack (ptxas: 32 to 512 bytes; the kernel ran at a third of its
     * CUDA twin's speed), so r[j] is read by a select over k and written in the update
     * loop. SEL = 0: plain r[j], for compilers that unroll the j loop too (NVRTC, where the
     * selects made N = 64 four times slower) and CPUs (r is memory there anyway). */
    UNROLL_LOOP
    for (int j = 0; j < N; ++j) {
        LOCAL REAL *c = cb + (j & 1) * WG;
#if SEL
        REAL rj = r[0];
        UNROLL_LOOP
        for (int k = 1; k < N; ++k)
            if (k == j) rj = r[k];
#else
        const REAL rj = r[j];
#endif
        if (active && row >= j) {
            if (row < ncols) c[row] = rj;
            if (row < N && !gala_finite(rj)) fl[j] = 1;
        }
        LOCAL_BARRIER();
        if (j < ncols && !dead) {
            const REAL d = c[j];
            if (ev == 0 && j0 + j < lim) {
                if (fl[j] || !gala_finite(d)) ev = -(j0 + j + 1);
                else if (d <= (REAL)0) ev = j0 + j + 1;
            }
            /* one reciprocal square root instead of a square root and two divisions per
             * column (all three are long instruction sequences in double on GPUs, and they
             * sat on the serial path of every column); d = 0 or NaN is an event, its
             * column is not written */
            const REAL isd = rsqrt(d);
            const REAL sd = d * isd;
            /* PF_HALF (N = 64, warps of 32): the rows of the first half (one warp) have no
             * entries right of column N/2 − 1, so their update stops there (a warp-uniform
             * branch between two unrolled copies): a third fewer multiply-adds per matrix */
#if PF_HALF
#define PF_UPDATE_ROWS(BODY)                                                                \
    if (row < N / 2) {                                                                      \
        BODY(N / 2)                                                                         \
    } else {                                                                                \
        BODY(N)                                                                             \
    }
#else
#define PF_UPDATE_ROWS(BODY) BODY(N)
#endif
#if SEL
            if (row >= j) {
                /* row == j: the diagonal becomes sqrt(d); row > j: l = r[j] / sqrt(d), and
                 * r[k] -= l·c[k] / sqrt(d) for k > j (k < KN) */
                const REAL l = row == j ? sd : rj * isd;
                const REAL li = row == j ? (REAL)0 : l * isd;
#if PF_VEC
                /* c[] read RVW at a time (c is RVEC-aligned: slot·N and WG are multiples
                 * of RVW); groups wholly at or left of j are skipped (j is uniform) */
#define PF_SEL_BODY(KN)                                                                     \
    {                                                                                       \
        LOCAL const RVEC *cv = (LOCAL const RVEC *)c;                                       \
        UNROLL_LOOP                                                                         \
        for (int q = 0; q < (KN) / RVW; ++q) {                                              \
            if (q * RVW + RVW - 1 >= j) {                                                   \
                const RVEC v = cv[q];                                                       \
                UNROLL_LOOP                                                                 \
                for (int e = 0; e < RVW; ++e) {                                             \
                    const int k = q * RVW + e;                                              \
                    if (k == j) r[k] = l;                                                   \
                    else if (k > j) r[k] -= li * rv_get(v, e);                              \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
    }
#else
#define PF_SEL_BODY(KN)                                                                     \
    {                                                                                       \
        UNROLL_LOOP                                                                         \
        for (int k = 0; k < (KN); ++k) {                                                    \
            if (k == j) r[k] = l;                                                           \
            else if (k > j) r[k] -= li * c[k];                                              \
        }                                                                                   \
    }
#endif
                PF_UPDATE_ROWS(PF_SEL_BODY)
            }
#else
            if (row == j) {
                r[j] = sd;
            } else if (row > j) {
                const REAL l = rj * isd;
                const REAL li = l * isd;
                r[j] = l;
#if PF_VEC
#define PF_PLAIN_BODY(KN)                                                                   \
    {                                                                                       \
        LOCAL const RVEC *cv = (LOCAL const RVEC *)c;                                       \
        UNROLL_LOOP                                                                         \
        for (int q = 0; q < (KN) / RVW; ++q) {                                              \
            if (q * RVW + RVW - 1 > j) {                                                    \
                const RVEC v = cv[q];                                                       \
                UNROLL_LOOP                                                                 \
                for (int e = 0; e < RVW; ++e)                                               \
                    if (q * RVW + e > j) r[q * RVW + e] -= li * rv_get(v, e);               \
            }                                                                               \
        }                                                                                   \
    }
#else
#define PF_PLAIN_BODY(KN)                                                                   \
    {                                                                                       \
        UNROLL_LOOP                                                                         \
        for (int k = 1; k < (KN); ++k)                                                      \
            if (k > j) r[k] -= li * c[k];                                                   \
    }
#endif
                PF_UPDATE_ROWS(PF_PLAIN_BODY)
            }
#endif
        }
    }

    if (dead) return;
    const int stop = ev != 0 ? (ev > 0 ? ev : -ev) - 1 - j0 : N; /* first column not written */
    const int write_rows = row >= N ? !head : (!tail && (!chunked || chunk == 0));
    if (active && write_rows && toW && row < N) {
        UNROLL_LOOP
        for (int k = 0; k < N; ++k)
            if (k < ncols && k < stop && k <= row) W[wb + row + (gidx)k * N] = r[k];
    } else if (active && write_rows) {
        UNROLL_LOOP
        for (int k = 0; k < N; ++k)
            if (k < ncols && k < stop && k <= row) P[gala_lidx(row, k, ld, up)] = r[k];
    }
    if (toW && chunk == 0 && t == 0) W[wb + N * N] = (REAL)stop;
    if ((mode & POTRF_MODE_DIAG) && lt == 0) W[wo + s] = (REAL)stop; /* for potrf_trsm */
    if (lt == 0 && !tail && (!chunked || chunk == 0)) {
        if (mode & POTRF_MODE_INFO) info[io + idx] = ev;
        else if (ev != 0) info[io + idx] = ev;
        if (ev != 0) flag[fo] = epoch;
    }
}
#if !SPLITK
#undef toW
#endif
