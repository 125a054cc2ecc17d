/* potrf_pair (cl/potrf.cl: the family; compiled with PAIR = 1) */
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

PF_KERNEL void potrf_pair(GALA_PARAMS(POTRF_ARGS_panel))
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
    int lim = LA_BIG; /* events only at columns < lim */
    int dead = m <= 0;
    pf_prior(info, io + idx, mode, jd, &dead, &lim);
    base += (gidx)jd * (gidx)(ld + 1); /* L(jd, jd) in either triangle */
#else
    const int jd = 0, m = nb, lim = LA_BIG;
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
        if (mode & POTRF_MODE_DIAG) W[wo + s] = (REAL)stop; /* for potrf_trsm */
        if ((mode & POTRF_MODE_INFO) || ev != 0) info[io + idx] = ev;
        if (ev != 0) flag[fo] = epoch;
    }
}
#endif
