/* potrf_trsm (cl/potrf.cl: the family; compiled with TRSM = 1) */
#if defined(TRSM) && TRSM
#ifndef RVST
#define RVST 0 /* potrf.trsm_rvec */
#endif
/* potrf_trsm: the rows below the diagonal block of a panel, once a DIAG launch (potrf_panel,
 * mode HEAD | DIAG: rows < N only, W[wo + s] = its first unwritten column) has factored the
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
KERNEL void potrf_trsm(GALA_PARAMS(POTRF_ARGS_trsm))
{
    /* L_jj. RVST = 1: staged with whole RVEC stores and read back only as RVEC (PF_VEC) or
     * element by element through rv_get (PT_LS): Mesa's Rusticl (22.3, llvmpipe) read zeros
     * from element 8 on through a REAL pointer into this RVEC array at N = 8. RVST = 0:
     * through that REAL pointer, the reciprocals in a second pass (NVIDIA's rows: the RVST
     * form made order 64 in double 15 % slower on the H200, perhaps from its divisions at
     * every staged element, which the compiler cannot leave out before it knows k == j). */
    LOCAL_ARRAY RVEC lsv[N * N / RVW];
#if RVST
#define PT_LS(e) rv_get(lsv[(e) / RVW], (e) % RVW)
#else
    LOCAL REAL *ls = (LOCAL REAL *)lsv;
#define PT_LS(e) ls[e]
#endif
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
     * for each load in turn: T3) */
#if RVST
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
#else
    UNROLL_LOOP
    for (int i = 0; i < (N * N + WG - 1) / WG; ++i) {
        const int e = t + i * WG, k = e % N, j = e / N;
        REAL v = (REAL)(k == j ? 1 : 0);
        if (e < N * N && k >= j && k < ncols) v = P[gala_lidx(k, j, ld, up)];
        if (e < N * N) ls[e] = v;
    }
    LOCAL_BARRIER();
    for (int j = t; j < ncols; j += WG) ls[j * N + j] = (REAL)1 / ls[j * N + j];
    LOCAL_BARRIER();
#endif
    /* rows past the panel stay to the end, inactive: with a return here PoCL (Debian 12)
     * computed wrong rows in the unrolled form (test_potrf potrf_unrolled) */
    const int act = row < mrows;
    REAL r[N];
    UNROLL_LOOP
    for (int k = 0; k < N; ++k) r[k] = act && k < ncols ? P[gala_lidx(row, k, ld, up)] : (REAL)0;
    int bad = LA_BIG;
    UNROLL_LOOP
    for (int k = N - 1; k >= 0; --k)
        if (!gala_finite(r[k])) bad = k;
    if (bad != LA_BIG) atomic_min(&nfm[nfo + s], j0 + bad);
    UNROLL_LOOP
    for (int j = 0; j < N; ++j) {
        const REAL x = r[j] * PT_LS(j * N + j);
        r[j] = x;
#if PF_VEC
#if RVST
        LOCAL const RVEC *cv = lsv + j * N / RVW;
#else
        LOCAL const RVEC *cv = (LOCAL const RVEC *)(ls + j * N);
#endif
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
