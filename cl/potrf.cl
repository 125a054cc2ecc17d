/*
 * potrf: Cholesky factorization of strided or variable-size batches (src/la/potrf.c).
 *
 * Coordinates. Every kernel works on the factor L in "L coordinates": for uplo = lower,
 * L(i,j) is stored at A[base + i + j·ld]; for uplo = upper the stored U = Lᵀ, so L(i,j) is
 * at A[base + j + i·ld]. One code path therefore serves both triangles; `up` selects the
 * mapping at run time.
 *
 * Matrices of a launch. vb = 0: matrix s of the launch is at A[ao + s·as] with order n and
 * leading dimension lda; its info slot is s. vb = 1: descriptor s (DSZ ints, see
 * src/la/la_common.h) gives order, leading dimension, 64-bit offset and the caller's index
 * of the matrix (its info slot).
 *
 * potrf_panel factors the column panel P = L[j0 : n, j0 : j0+nc) of every matrix, where
 * nc = min(N, min(wlim, n) - j0): right-looking inside the panel, one work-item per row of
 * P holding that row in registers (REAL r[N], loops fully unrolled so that r stays in
 * registers), one work-group barrier per column.
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
 *                once; info is written for every matrix of the launch (mode = 1).
 *   nchunks > 0  "chunked": one matrix per work-group; work-items 0..N-1 own the panel rows
 *                0..N-1 (the diagonal block, recomputed identically by every work-group of
 *                the matrix) and work-items N..WG-1 own rows N + c·(WG-N) + t of chunk
 *                c = group % nchunks. Info is read first (a matrix with info > 0 from an
 *                earlier panel is skipped, info = -c limits events to columns < c, see
 *                potrf_scan) and updated on a new event. With one chunk the work-group
 *                writes all its rows. With several, every work-group reads rows 0..N-1, so
 *                they are written by a second launch: mode 2 (TAIL) writes rows >= N only
 *                and no info, then mode 4 (HEAD, nchunks = 1) factors and writes rows < N
 *                and info. Or (the default, potrf.split): mode 8 (SPLIT) does both in one
 *                launch, chunk 0 putting rows < N (lower coordinates, leading dimension N)
 *                and its first unwritten column into W[wo + s·(N·N + 1) ...], and mode 16
 *                (COPY, nchunks = 1) copies them into A: a copy instead of a second
 *                factorization of the diagonal block. Or (potrf.psolve) mode 4 | 32 (DIAG,
 *                in the fused geometry at j0: WG/N matrices per group) factors and writes
 *                rows < N, info, and its first unwritten column into W[wo + s], and
 *                potrf_trsm solves the rows below. The info-reading modes (all but 1) work
 *                in either geometry.
 *
 * Events (la.h info). At column j (global, 1-based j+1): if a row < N of the work-group has
 * a non-finite value in column j, or the pivot d is not finite: -(j+1); else if d <= 0:
 * j+1. The first event of a matrix is kept; columns at and after it are not written back
 * (they keep their previous contents). The event flags of a column are exchanged in local
 * memory before the barrier that publishes the column, so all work-items of a matrix agree.
 * Any event also stores `epoch` into flag[fo] (the host's cheap "anything failed?" test).
 *
 * potrf_scan / potrf_scan_finish (used before the chunked path): find for every matrix the
 * first column of L holding a NaN or Inf in the referenced triangle, and initialize info to
 * -(that column) or 0. potrf_scan: one work-group per (matrix, block of scb stored
 * columns; the host makes blocks narrow enough to fill the device, e.g. 8 columns for one
 * matrix of order 16384), coalesced reads down the stored columns; a block that finds one
 * folds its minimum into the matrix's tmp slot by an atomic minimum.
 * potrf_scan_finish: one work-item per matrix turns its slot into info.
 *
 * gala-defines: N=32 WG=128 UNROLL=1 SEL=1 VEC=1 SPLITK=1 MINB=4 HALF=1
 * gala-defines(potrf_lane): N=8 WG=64 UNROLL=1 LANE=1 CH=64
 * gala-defines(potrf_pair): N=32 WG=128 UNROLL=1 PAIR=1 PDIAG=1
 * gala-defines(potrf_trsm): N=64 WG=128 UNROLL=1 VEC=1 TRSM=1
 * gala-defines(potrf_tile): N=64 WG=288 UNROLL=1 TILE=1 TS=4 MPG=2
 * -D parameters: N (panel width and register row length, a power of two <= 64),
 *                WG (work-group size, a power of two, a multiple of N), UNROLL (0 or 1),
 *                SEL (0 or 1: how potrf_panel indexes its register row, see there),
 *                VEC (0 or 1: read the column in local memory as RVEC vectors, where N
 *                is a multiple of RVW), HALF (0 or 1, N = 64: the first 32 rows stop their
 *                update at column 31), SPLITK (1: the modes SPLIT and
 *                COPY exist; the host compiles them only for chunked launches), MINB
 *                (potrf_panel: work-groups per SM the CUDA compiler must fit; 0: none),
 *                LANE (1: compile potrf_lane), CH (its reads in flight per work-item, a
 *                divisor of N·N), PAIR (1: compile potrf_pair; PDIAG 1: with its DIAG
 *                form), TRSM (1: compile
 *                potrf_trsm), TILE (1: compile potrf_tile), TS, MPG (its tile size and
 *                matrices per work-group).
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
#define PF_VEC (VEC && N % RVW == 0) /* vector reads need whole RVEC groups in a row */
#ifndef HALF
#define HALF 0
#endif
#define PF_HALF (HALF && N == 64) /* see the update in potrf_panel */
#define BIGCOL 0x7fffffff

DEVFN int gala_finite(REAL x) { return fabs(x) < REAL_INF; }

DEVFN gidx gala_desc_off(GLOBAL const int *d, int k)
{
    return (gidx)(unsigned int)d[k] | ((gidx)d[k + 1] << 32);
}

/* Matrix s of a launch (see "Matrices of a launch" above): its order (0 for s >= count),
 * leading dimension, base offset and info slot. */
DEVFN void pf_matrix(gidx s, int count, int n, int lda, gidx ao, gidx as, int vb,
                     GLOBAL const int *desc, gidx dofs, int *nb, int *ld, gidx *base, int *idx)
{
    *nb = 0;
    *ld = lda;
    *base = 0;
    *idx = 0;
    if (s >= count) return;
    if (vb) {
        GLOBAL const int *d = desc + (dofs + s) * DSZ;
        *nb = d[0];
        *ld = d[1];
        *base = gala_desc_off(d, 2);
        *idx = d[4];
    } else {
        *nb = n;
        *base = ao + s * as;
        *idx = (int)s;
    }
}

/* The events earlier launches left in a matrix's info (info[i]), for a panel launch at j0
 * whose mode does not write info unconditionally (mode & 1: the first): a pivot event at a
 * column < j0 ends the matrix (*dead); one at a column >= j0 was written by a sibling
 * work-group of this launch and is found again identically here; a non-finite value at
 * column c allows events only before it (*lim = c). */
DEVFN void pf_prior(GLOBAL const int *info, gidx i, int mode, int j0, int *dead, int *lim)
{
    if (*dead || (mode & 1)) return;
    const int inf0 = info[i];
    if (inf0 > 0 && inf0 <= j0) *dead = 1;
    else if (inf0 < 0) *lim = -inf0 - 1;
}

/* Address of L(i, j) relative to a matrix base. */
DEVFN gidx gala_lidx(int i, int j, int ld, int up)
{
    return up ? (gidx)j + (gidx)i * ld : (gidx)i + (gidx)j * ld;
}

/* MINB > 0 (-D, potrf.minb / potrf.pair_minb): at least MINB work-groups per SM (CUDA caps
 * the registers); potrf_panel and potrf_pair */
#if defined(MINB) && MINB > 0
#define PF_KERNEL KERNEL_MINB(WG, MINB)
#else
#define PF_KERNEL KERNEL
#endif
/* The arguments of every potrf_panel-style launch (potrf_panel, potrf_lane, potrf_pair: the
 * host launches them alike, src/la/potrf.c) */
#define PF_PARAMS                                                                           \
    const int n, const int j0, const int wlim, const int count, const int nchunks,          \
        GLOBAL REAL *A, const gidx ao, const int lda, const gidx as, const int up,          \
        GLOBAL const int *desc, const gidx dofs, const int vb, GLOBAL int *info,            \
        const gidx io, GLOBAL int *flag, const gidx fo, const int epoch, const int mode,    \
        GLOBAL REAL *W, const gidx wo
PF_KERNEL void potrf_panel(PF_PARAMS)
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
    int lim = BIGCOL;                        /* events only at columns < lim */
    int dead = ncols <= 0;
    pf_prior(info, io + idx, mode, j0, &dead, &lim);
    /* chunked work-groups hold one matrix: leave early when there is nothing to do */
#if SPLITK
    const int toW = (mode & 8) != 0;                 /* SPLIT: rows < N go to W */
#else
    /* fused launches: the SPLIT / COPY code compiled out (it cost the fused kernel 5-27 % on
     * the H200); a literal, not a const int: clang (PoCL) warns about a constant variable in
     * a && chain */
#define toW 0
#endif
    const gidx wb = wo + s * (N * N + 1);            /* this matrix's N×N + 1 in W */
    if (chunked && (dead || (chunk > 0 && N + chunk * (WG - N) >= mrows))) {
        if (toW && chunk == 0 && t == 0 && s < count) W[wb + N * N] = 0; /* nothing to copy */
        return;
    }

    const int tail = (mode & 2) != 0, head = (mode & 4) != 0;
    const int active = !dead && row < mrows && !(head && row >= N);
    GLOBAL REAL *P = A + base + gala_lidx(j0, j0, ld, up);
#if SPLITK
    if (mode & 16) {
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
    if ((mode & 32) && lt == 0) W[wo + s] = (REAL)stop; /* DIAG: for potrf_trsm */
    if (lt == 0 && !tail && (!chunked || chunk == 0)) {
        if (mode & 1) info[io + idx] = ev;
        else if (ev != 0) info[io + idx] = ev;
        if (ev != 0) flag[fo] = epoch;
    }
}
#if !SPLITK
#undef toW
#endif

#if defined(TRSM) && TRSM
/* potrf_trsm: the rows below the diagonal block of a panel, once a DIAG launch (potrf_panel,
 * mode 4 | 32: rows < N only, W[wo + s] = its first unwritten column) has factored the
 * block: L_below = A_below·L_jj⁻ᵀ. Chunked geometry without the block's rows: work-group
 * g = s·nchunks + c holds rows N + c·WG + t of matrix s's panel, one per work-item, in
 * registers. The group stages L_jj in local memory (column-major, leading dimension N, the
 * reciprocal of the pivot on the diagonal; identity beyond the panel's ncols columns), then
 * every work-item solves its row by columns with no barrier (all read the same element:
 * broadcasts, RVW at a time):
 *
 *      panel columns j0 .. j0+N             x_j = r[j]·(1 / L(j, j))
 *   [ L_jj  (local) ]  rows < N             r[k] −= x_j·L(k, j),   k = j+1 .. N−1
 *   [ r r r r r r r ]  row of work-item t   (j, k literal once unrolled: the triangle's
 *   [ r r r r r r r ]                        N(N−1)/2 multiply-adds, no selects)
 *
 * Same events as the chunked panel kernel: a matrix with info in (0, j0] is skipped, and
 * columns from W's stop on are not written. Its rows' non-finite inputs, which no event of
 * the DIAG launch covers, go to nfm[nfo + s] as the smallest such column (atomic minimum;
 * potrf_merge folds it into info at the end, in place of potrf_scan before). Arguments as
 * potrf_panel (mode unused), then nfm and nfo. */
KERNEL void potrf_trsm(PF_PARAMS, GLOBAL int *nfm, const gidx nfo)
{
    /* L_jj, read as RVEC (PF_VEC) or one element at a time through PT_LS: Mesa's Rusticl
     * (22.3, llvmpipe) read back zeros from element 8 on through a REAL pointer into this
     * RVEC array at N = 8 (the same stores, read as RVEC, held the right values) */
    LOCAL_ARRAY RVEC lsv[N * N / RVW];
#define PT_LS(e) rv_get(lsv[(e) / RVW], (e) % RVW)
    const int t = (int)LID(0);
    const gidx s = GRP(0) / nchunks;
    const int chunk = (int)(GRP(0) - s * nchunks);
    const int row = N + chunk * WG + t;
    int nb, ld, idx;
    gidx base;
    pf_matrix(s, count, n, lda, ao, as, vb, desc, dofs, &nb, &ld, &base, &idx);
    const int ncols = min(N, min(wlim, nb) - j0);
    const int mrows = nb - j0;
    /* uniform over the group: leave before the barrier */
    if (s >= count || ncols <= 0 || N + chunk * WG >= mrows) return;
    const int inf0 = info[io + idx];
    if (inf0 > 0 && inf0 <= j0) return;
    const int stop = min(ncols, (int)W[wo + s]);
    GLOBAL REAL *P = A + base + gala_lidx(j0, j0, ld, up);
    /* unrolled, so that a work-item's loads can all be in flight (the rolled loop waited
     * for each load in turn: T3), the pivots' reciprocals on the way, whole RVEC stores */
    UNROLL_LOOP
    for (int i = 0; i < (N * N / RVW + WG - 1) / WG; ++i) {
        const int q = t + i * WG;
        RVEC w;
        UNROLL_LOOP
        for (int u = 0; u < RVW; ++u) {
            const int e = q * RVW + u, k = e % N, j = e / N;
            REAL v = (REAL)(k == j ? 1 : 0);
            if (e < N * N && k >= j && k < ncols) v = P[gala_lidx(k, j, ld, up)];
            if (k == j && k < ncols) v = (REAL)1 / v;
            rv_set(&w, u, v);
        }
        if (q < N * N / RVW) lsv[q] = w;
    }
    LOCAL_BARRIER();
    /* rows past the panel stay to the end, inactive: with a return here PoCL (Debian 12)
     * computed wrong rows in the unrolled form (test_potrf potrf_unrolled) */
    const int act = row < mrows;
    REAL r[N];
    UNROLL_LOOP
    for (int k = 0; k < N; ++k) r[k] = act && k < ncols ? P[gala_lidx(row, k, ld, up)] : (REAL)0;
    int bad = BIGCOL;
    UNROLL_LOOP
    for (int k = N - 1; k >= 0; --k)
        if (!gala_finite(r[k])) bad = k;
    if (bad != BIGCOL) atomic_min(&nfm[nfo + s], j0 + bad);
    UNROLL_LOOP
    for (int j = 0; j < N; ++j) {
        const REAL x = r[j] * PT_LS(j * N + j);
        r[j] = x;
#if PF_VEC
        LOCAL const RVEC *cv = lsv + j * N / RVW;
        UNROLL_LOOP
        for (int q = 0; q < N / RVW; ++q) {
            if (q * RVW + RVW - 1 > j) {
                const RVEC v = cv[q];
                UNROLL_LOOP
                for (int e = 0; e < RVW; ++e)
                    if (q * RVW + e > j) r[q * RVW + e] -= x * rv_get(v, e);
            }
        }
#else
        UNROLL_LOOP
        for (int k = 1; k < N; ++k)
            if (k > j) r[k] -= x * PT_LS(j * N + k);
#endif
    }
#undef PT_LS
    UNROLL_LOOP
    for (int k = 0; k < N; ++k)
        if (act && k < stop) P[gala_lidx(row, k, ld, up)] = r[k];
}
#endif

/* Smallest L-column holding a non-finite value, per (matrix, block of scb stored columns),
 * folded into tmp[to + s] (BIGCOL before the launch) by an atomic minimum — only by blocks
 * that found one. Lower storage: stored column c holds L(c.., c): candidate c. Upper
 * storage: stored column c holds U(0..c, c) = L(c, 0..c): candidate = the stored row. */
KERNEL void potrf_scan(const int n, const int count, const int nblk, const int scb,
                       GLOBAL const REAL *A, const gidx ao, const int lda, const gidx as,
                       const int up, GLOBAL const int *desc, const gidx dofs, const int vb,
                       GLOBAL int *tmp, const gidx to)
{
    LOCAL_ARRAY int red[WG];
    const int t = (int)LID(0);
    const gidx s = GRP(0) / nblk;
    const int blk = (int)(GRP(0) - s * nblk);
    int nb = n, ld = lda;
    gidx base = ao + s * as;
    if (vb) {
        GLOBAL const int *d = desc + (dofs + s) * DSZ;
        nb = d[0];
        ld = d[1];
        base = gala_desc_off(d, 2);
    }
    int best = BIGCOL;
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
    if (t == 0 && red[0] != BIGCOL) atomic_min(&tmp[to + s], red[0]);
}

/* The folded minimum tmp[to + s] of matrix s into its info: potrf_scan_finish sets info
 * from it (-(column + 1), or 0); potrf_merge (the blocked path with potrf.psolve, which has
 * no potrf_scan) weighs potrf_trsm's non-finite rows against the events the panels wrote:
 * the earlier column wins, a non-finite value over a pivot event in the same column. */
#define PF_FOLD_PARAMS                                                                      \
    const int count, GLOBAL const int *desc, const gidx dofs, const int vb,                 \
        GLOBAL const int *tmp, const gidx to, GLOBAL int *info, const gidx io,              \
        GLOBAL int *flag, const gidx fo, const int epoch
DEVFN void pf_fold(PF_FOLD_PARAMS, const int merge)
{
    const gidx s = GID(0);
    if (s >= count) return;
    const int best = tmp[to + s];
    const int idx = vb ? desc[(dofs + s) * DSZ + 4] : (int)s;
    if (!merge) info[io + idx] = best == BIGCOL ? 0 : -(best + 1);
    if (best == BIGCOL) return;
    const int cur = merge ? info[io + idx] : 0;
    if (cur == 0 || best <= (cur > 0 ? cur : -cur) - 1) {
        info[io + idx] = -(best + 1);
        flag[fo] = epoch;
    }
}
#define PF_FOLD_ARGS count, desc, dofs, vb, tmp, to, info, io, flag, fo, epoch
KERNEL void potrf_scan_finish(PF_FOLD_PARAMS) { pf_fold(PF_FOLD_ARGS, 0); }
KERNEL void potrf_merge(PF_FOLD_PARAMS) { pf_fold(PF_FOLD_ARGS, 1); }

#if defined(LANE) && LANE
/* Staging (potrf_lane): the G matrices of a
 * work-group (G·N·N stored elements, matrices g0 .. g0+G-1 of the launch) move between
 * global and local memory WG elements per step. In step k, work-item t holds stored row
 * r = t mod N of stored column c = kc + tc of matrix m = km + tm, with (tm, tc, r) the
 * digits of t in base N and k·WG/N = km·N + kc: a warp covers whole columns of consecutive
 * matrices (contiguous reads for a packed batch), and an element's address is a per-item
 * part plus a per-step part. In local memory L(i, j) of matrix m sits at
 * m·PF_SP + i + j·PF_LD (leading dimension N+1, odd stride: consecutive work-items hit
 * distinct banks for either triangle). Elements outside a matrix's order (sord[m] < N, 0
 * for no matrix) are the identity: L of diag(A, I) is diag(L_A, I).
 *
 *        global, stored lower (column-major)        local, matrix m (leading dim. N+1)
 *        m=0        m=1                             m=0: a00 a10 a20 . | . a11 a21 . | ...
 *        [a00 .  .  ][b00 .  .  ] ...               m=1: b00 b10 b20 . | ...
 *        [a10 a11 .  ][b10 b11 .  ]
 *        [a20 a21 a22][b20 b21 b22]
 *
 * Steps run CHN at a time: CHN reads in flight per work-item. Needs WG, N powers of two,
 * WG >= N; the local arrays stg (G·PF_SP), sbase, sord, sld (G) and g0 in scope. */
#define PF_LD (N + 1)
#define PF_SP (N * PF_LD + 1)
#define PF_STG_ITEM                                                                         \
    const int sr_ = t % N, sc_ = (t / N) % N, sm_ = t / (N * N);                            \
    const int sloc_ = sm_ * PF_SP + (up ? sc_ + sr_ * PF_LD : sr_ + sc_ * PF_LD);           \
    const gidx sglob_ = ao + (g0 + sm_) * as + (gidx)sc_ * lda + sr_;
#define PF_STG_STEP(k)                                                                      \
    const int km_ = (k) * (WG / N) / N, kc_ = (k) * (WG / N) % N;                           \
    const int m_ = km_ + sm_, c_ = kc_ + sc_, nm_ = sord[m_];                               \
    const int keep_ = up ? c_ >= sr_ : sr_ >= c_, inside_ = sr_ < nm_ && c_ < nm_;           \
    const int loc_ = sloc_ + km_ * PF_SP + (up ? kc_ : kc_ * PF_LD);                        \
    const gidx ga_ = vb ? sbase[m_] + sr_ + (gidx)c_ * sld[m_]                              \
                        : sglob_ + (gidx)km_ * as + (gidx)kc_ * lda;
#define PF_STG_LOAD(STEPS, CHN)                                                             \
    _Pragma("unroll 1") for (int k0_ = 0; k0_ < (STEPS); k0_ += (CHN))                      \
    {                                                                                       \
        REAL v_[CHN];                                                                       \
        UNROLL_LOOP                                                                         \
        for (int kk_ = 0; kk_ < (CHN); ++kk_) {                                             \
            PF_STG_STEP(k0_ + kk_)                                                          \
            v_[kk_] = (REAL)(sr_ == c_ ? 1 : 0);                                            \
            if (keep_ && inside_) v_[kk_] = A[ga_];                                         \
            (void)loc_;                                                                     \
        }                                                                                   \
        UNROLL_LOOP                                                                         \
        for (int kk_ = 0; kk_ < (CHN); ++kk_) {                                             \
            PF_STG_STEP(k0_ + kk_)                                                          \
            if (keep_) stg[loc_] = v_[kk_];                                                 \
            (void)inside_;                                                                  \
            (void)ga_;                                                                      \
        }                                                                                   \
    }
#define PF_STG_STORE(STEPS, CHN)                                                            \
    _Pragma("unroll 1") for (int k0_ = 0; k0_ < (STEPS); k0_ += (CHN))                      \
    {                                                                                       \
        UNROLL_LOOP                                                                         \
        for (int kk_ = 0; kk_ < (CHN); ++kk_) {                                             \
            PF_STG_STEP(k0_ + kk_)                                                          \
            if (keep_ && inside_) A[ga_] = stg[loc_];                                       \
        }                                                                                   \
    }
#ifndef CH
#define CH 16
#endif

/*
 * potrf_lane: fused launches of order n <= N (potrf.lane) with one work-item per matrix.
 * The row-per-work-item potrf_panel spends N lanes and a barrier per column on each matrix;
 * at N = 8 and 16 that overhead, not memory, set its speed. A work-group of WG work-items
 * owns WG consecutive matrices of the launch:
 *
 *   1. load   the group's matrices into local memory (staging, PF_STG_LOAD above)
 *   2. factor work-item t copies L of matrix t into registers (N(N+1)/2 values, every index
 *             a constant once the loops are unrolled), factors it right-looking with no
 *             barrier, records its event as potrf_panel does, and puts the columns before
 *             its first event back (the others keep the loaded values)
 *   3. store  the referenced triangles back (PF_STG_STORE).
 *
 * Arguments are potrf_panel's (the host launches either the same way); only its fused mode
 * exists here (j0 = 0, mode 1, info written for every matrix). Local memory:
 * WG·(PF_SP·sizeof(REAL) + 16) bytes; the host picks WG to fit.
 */
#define LN_NN (N * N)
#define LN_P(i, j) ((j) * N - (j) * ((j) - 1) / 2 + (i) - (j)) /* packed L(i, j), i >= j */
#if LN_NN % CH != 0
#error "potrf_lane: CH must divide N*N"
#endif

KERNEL void potrf_lane(PF_PARAMS)
{
    LOCAL_ARRAY REAL stg[WG * PF_SP];
    LOCAL_ARRAY gidx sbase[WG];
    LOCAL_ARRAY int sord[WG], sld[WG];
    const int t = (int)LID(0);
    const gidx g0 = GRP(0) * WG, s = g0 + t; /* the group's first matrix; this item's */
    int nb, ld, idx;
    gidx base;
    pf_matrix(s, count, n, lda, ao, as, vb, desc, dofs, &nb, &ld, &base, &idx);
    sord[t] = nb;
    sld[t] = ld;
    sbase[t] = base;
    PF_STG_ITEM
    LOCAL_BARRIER();

    /* 1. load */
    PF_STG_LOAD(LN_NN, CH)
    LOCAL_BARRIER();

    /* 2. factor matrix t in registers */
    LOCAL REAL *my = stg + t * PF_SP;
    REAL a[N * (N + 1) / 2];
    UNROLL_LOOP
    for (int j = 0; j < N; ++j) {
        UNROLL_LOOP
        for (int i = j; i < N; ++i) a[LN_P(i, j)] = my[i + j * PF_LD];
    }
    int ev = 0;
    UNROLL_LOOP
    for (int j = 0; j < N; ++j) {
        const REAL d = a[LN_P(j, j)];
        int bad = !gala_finite(d);
        UNROLL_LOOP
        for (int i = j + 1; i < N; ++i) bad |= !gala_finite(a[LN_P(i, j)]);
        if (ev == 0) {
            if (bad) ev = -(j + 1);
            else if (d <= (REAL)0) ev = j + 1;
        }
        const REAL isd = rsqrt(d);
        a[LN_P(j, j)] = d * isd;
        UNROLL_LOOP
        for (int i = j + 1; i < N; ++i) a[LN_P(i, j)] *= isd;
        UNROLL_LOOP
        for (int q = j + 1; q < N; ++q) {
            const REAL lq = a[LN_P(q, j)];
            UNROLL_LOOP
            for (int i = q; i < N; ++i) a[LN_P(i, q)] -= a[LN_P(i, j)] * lq;
        }
    }
    /* columns from the first event on keep what the load left in local memory, so the
     * store leaves them as they were (as potrf_panel does) */
    const int stop = ev != 0 ? (ev > 0 ? ev : -ev) - 1 : N;
    UNROLL_LOOP
    for (int j = 0; j < N; ++j) {
        if (j < stop) {
            UNROLL_LOOP
            for (int i = j; i < N; ++i) my[i + j * PF_LD] = a[LN_P(i, j)];
        }
    }
    if (s < count) {
        info[io + idx] = ev;
        if (ev != 0) flag[fo] = epoch;
    }
    LOCAL_BARRIER();

    /* 3. store */
    PF_STG_STORE(LN_NN, CH)
}
#endif

#if defined(PAIR) && PAIR
/*
 * potrf_pair: fused launches of order n <= N (potrf.pair; N = 16, 32 or 64) with two rows
 * per work-item: work-item l of a matrix holds rows l (entries 0..N/2-1 only: xa) and
 * N-1-l (xb), so N/2 work-items share one matrix, WG/(N/2) matrices per work-group.
 * Against potrf_panel (one row per work-item): each column's barrier, pivot, event test and
 * reciprocal square root serve two rows; a read of the column in local memory feeds both
 * rows' multiply-adds; and the short row stops its update at column N/2 - 1 (no entries
 * right of its diagonal), so a matrix costs 38 % fewer multiply-adds at N = 32.
 *
 *      rows of work-item l:        l          (xa: columns 0 .. N/2-1)
 *                              N-1-l          (xb: columns 0 .. N-1)
 *      column j (one barrier):  rows put their value of column j in local memory;
 *                               every work-item reads the column (RVEC vectors, the
 *                               pivot among them) and updates its rows (right-looking,
 *                               as potrf_panel)
 *
 * The column loop is written out N times (PP_COL with a literal j): compilers that keep a
 * loop holding a barrier rolled (NVIDIA's OpenCL) then still index xa / xb with constants.
 * The instruction stream is what sets this kernel's speed (docs/cholesky.md): vector reads
 * of the column, no branches in the publication and the update, and rows addressed by a
 * walking pointer took it from 4749 to about 2750 PTX instructions per work-item at N = 32.
 * Events, info and the columns kept after an event are potrf_panel's; arguments are
 * potrf_panel's. Modes: fused (1, j0 = 0: every matrix whole, info always written) and DIAG
 * (4 | 32, optionally | 1: the N×N diagonal block at (j0, j0) of each matrix alone, as
 * potrf_panel's DIAG launch before potrf_trsm: events at columns j0 + j, none from column
 * lim on when info holds an earlier non-finite column, a matrix whose info is in (0, j0]
 * skipped, the first unwritten column of the block in W[wo + s]). The host launches DIAG
 * only where no matrix's block is cut by wlim (wlim >= j0 + N), so the block is square:
 * order min(N, n_s - j0). The DIAG form is compiled only with -D PDIAG=1 (a program of its
 * own): without it j0 = 0, no event limit and the order is nb, as constants. Compiled in,
 * the run-time offset, limit and order cost the fused launches at N = 64 in double 1.66x
 * (H100, 0.44 -> 0.73 ms at b = 20000: the kernel sits at the register limit there).
 */
#define PP_H (N / 2)
#if N != 16 && N != 32 && N != 64
#error "potrf_pair: N must be 16, 32 or 64"
#endif
#define PP_MPG (WG / PP_H) /* matrices per work-group */

PF_KERNEL void potrf_pair(PF_PARAMS)
{
    /* two buffers (columns j and j + 1), RVEC-aligned for the vector reads */
    LOCAL_ARRAY RVEC colv[2 * PP_MPG * N / RVW];
    LOCAL_ARRAY int nf[PP_MPG * N];
    LOCAL_ARRAY int csl[WG]; /* the stride again after the column loop, see the write-back */
    const int t = (int)LID(0);
    const int slot = t / PP_H, l = t % PP_H;
    const gidx s = GRP(0) * PP_MPG + slot;
    int nb, ld, idx;
    gidx base;
    pf_matrix(s, count, n, lda, ao, as, vb, desc, dofs, &nb, &ld, &base, &idx);
    /* the block of this launch: the whole matrix (fused, jd = 0) or its diagonal block at
     * (jd, jd) (DIAG), of order m */
#if defined(PDIAG) && PDIAG
    const int jd = j0;
    const int m = min(N, min(wlim, nb) - jd);
    int lim = BIGCOL; /* events only at columns < lim */
    int dead = m <= 0;
    pf_prior(info, io + idx, mode, jd, &dead, &lim);
    base += (gidx)jd * (gidx)(ld + 1); /* L(jd, jd) in either triangle */
#else
    const int jd = 0, m = nb, lim = BIGCOL;
    const int dead = nb <= 0;
#endif
    const int ra = l, rb = N - 1 - l;
    const int acta = !dead && ra < m, actb = !dead && rb < m;
    /* row r of L at A + base + gala_lidx(r, 0) + k·cs (k = column): one stride for either
     * triangle, so the loads and stores walk a row pointer instead of forming both
     * triangles' 64-bit offsets per element and selecting one (the row offsets are written
     * out rather than called through gala_lidx: that form gave ptxas 2 more registers in
     * double and 21 more PTX instructions in float) */
    const gidx cs = up ? 1 : (gidx)ld;
    csl[t] = (int)cs;
    REAL xa[PP_H], xb[N];
    {
        /* walking pointers (one add per element), and the last column to read as one
         * bound (-1: an inactive row reads nothing) */
        GLOBAL const REAL *pa = A + base + (up ? (gidx)ra * ld : (gidx)ra);
        GLOBAL const REAL *pb = A + base + (up ? (gidx)rb * ld : (gidx)rb);
        const int lima = acta ? ra : -1, limb = actb ? rb : -1;
        UNROLL_LOOP
        for (int k = 0; k < PP_H; ++k) {
            REAL v = (REAL)(k == ra ? 1 : 0);
            if (k <= lima) v = *pa;
            pa += cs;
            xa[k] = v;
        }
        UNROLL_LOOP
        for (int k = 0; k < N; ++k) {
            REAL v = (REAL)(k == rb ? 1 : 0);
            if (k <= limb) v = *pb;
            pb += cs;
            xb[k] = v;
        }
    }
    LOCAL int *fl = nf + slot * N;
    fl[ra] = 0;
    fl[rb] = 0;
    LOCAL_BARRIER();

    int ev = 0;
    /* Column j: every row puts its value of column j into its slot of the column buffer
     * (rows above the column, r < j, an entry right of their diagonal, which no one
     * reads); after the barrier every work-item reads the column as RVEC vectors (one
     * local read per RVW entries, the pivot included) and updates both rows without a
     * branch: a row above the column takes the same steps on entries right of its
     * diagonal, which are neither published nor stored, so they may hold anything. */
#define PP_COL(j)                                                                           \
    {                                                                                       \
        LOCAL REAL *c = (LOCAL REAL *)colv + ((j) & 1) * (PP_MPG * N) + slot * N;           \
        LOCAL const RVEC *cv = (LOCAL const RVEC *)c;                                       \
        const int ja = (j) < PP_H ? (j) : 0; /* xa's index (used only when j < N/2) */    \
        const REAL raj = xa[ja], rbj = xb[j];                                               \
        /* every row publishes, without a branch: slots of rows above the column (r < j)  \
         * get entries right of their diagonal, which no one reads (the update reads       \
         * k > j, the pivot k = j); only rows >= j flag non-finite values */               \
        if ((j) < PP_H) {                                                                   \
            c[ra] = raj;                                                                    \
            if ((ra >= (j)) & !gala_finite(raj)) fl[j] = 1;                                 \
        }                                                                                   \
        c[rb] = rbj;                                                                        \
        if ((rb >= (j)) & !gala_finite(rbj)) fl[j] = 1;                                     \
        LOCAL_BARRIER();                                                                    \
        if (!dead) {                                                                        \
            const RVEC v0 = cv[(j) / RVW];                                                  \
            const REAL d = rv_get(v0, (j) % RVW);                                           \
            /* d is row j's own published value: fl[j] covers its finiteness too */       \
            if (ev == 0 && jd + (j) < lim) {                                                \
                if (fl[j]) ev = -(jd + (j) + 1);                                            \
                else if (d <= (REAL)0) ev = jd + (j) + 1;                                   \
            }                                                                               \
            const REAL isd = rsqrt(d), sd = d * isd;                                        \
            const REAL la = ra == (j) ? sd : raj * isd;                                     \
            const REAL lia = ra == (j) ? (REAL)0 : la * isd;                                \
            const REAL lb = rb == (j) ? sd : rbj * isd;                                     \
            const REAL lib = rb == (j) ? (REAL)0 : lb * isd;                                \
            if ((j) < PP_H) xa[ja] = la;                                                    \
            xb[j] = lb;                                                                     \
            UNROLL_LOOP                                                                     \
            for (int q = (j) / RVW; q < N / RVW; ++q) {                                     \
                const RVEC v = q == (j) / RVW ? v0 : cv[q];                                 \
                UNROLL_LOOP                                                                 \
                for (int e = 0; e < RVW; ++e) {                                             \
                    const int k = q * RVW + e;                                              \
                    if (k > (j)) {                                                          \
                        const REAL ck = rv_get(v, e);                                       \
                        if (k < PP_H) xa[k < PP_H ? k : 0] -= lia * ck;                     \
                        xb[k] -= lib * ck;                                                  \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
    }
#define PP_COLS8(b)                                                                         \
    PP_COL(b) PP_COL(b + 1) PP_COL(b + 2) PP_COL(b + 3)                                     \
    PP_COL(b + 4) PP_COL(b + 5) PP_COL(b + 6) PP_COL(b + 7)
    PP_COLS8(0)
    PP_COLS8(8)
#if N >= 32
    PP_COLS8(16)
    PP_COLS8(24)
#endif
#if N >= 64
    PP_COLS8(32)
    PP_COLS8(40)
    PP_COLS8(48)
    PP_COLS8(56)
#endif
#undef PP_COLS8
#undef PP_COL

    if (dead) return;
    /* first column of the block not written */
    const int stop = ev != 0 ? (ev > 0 ? ev : -ev) - 1 - jd : N;
    {
        /* the addresses formed again from a stride read back from local memory, which the
         * compiler cannot prove equal to the load's: otherwise it keeps the load's 3N/2
         * 64-bit addresses live across the column loop (127 registers against 82 at
         * N = 32 in float, ptxas for sm_90). cs2 == 1 stands for up: with ld = 1 (an
         * order-1 matrix) both triangles' row offsets are the same */
        const gidx cs2 = csl[t];
        GLOBAL REAL *pa = A + base + (cs2 == 1 ? (gidx)ra * ld : (gidx)ra);
        GLOBAL REAL *pb = A + base + (cs2 == 1 ? (gidx)rb * ld : (gidx)rb);
        /* the last column to write as one bound: the row's diagonal, or before the event */
        const int lima = acta ? min(ra, stop - 1) : -1, limb = actb ? min(rb, stop - 1) : -1;
        UNROLL_LOOP
        for (int k = 0; k < PP_H; ++k) {
            if (k <= lima) *pa = xa[k];
            pa += cs2;
        }
        UNROLL_LOOP
        for (int k = 0; k < N; ++k) {
            if (k <= limb) *pb = xb[k];
            pb += cs2;
        }
    }
    if (l == 0) {
        if (mode & 32) W[wo + s] = (REAL)stop; /* DIAG: for potrf_trsm */
        if ((mode & 1) || ev != 0) info[io + idx] = ev;
        if (ev != 0) flag[fo] = epoch;
    }
}
#endif

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

PF_KERNEL void potrf_tile(PF_PARAMS)
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
