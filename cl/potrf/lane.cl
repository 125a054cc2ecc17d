/* potrf_lane (cl/potrf.cl: the family; compiled with LANE = 1) */
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
 * exists here (j0 = 0, POTRF_MODE_INFO, info written for every matrix). Local memory:
 * WG·(PF_SP·sizeof(REAL) + 16) bytes; the host picks WG to fit.
 */
#define LN_NN (N * N)
#define LN_P(i, j) ((j) * N - (j) * ((j) - 1) / 2 + (i) - (j)) /* packed L(i, j), i >= j */
#if LN_NN % CH != 0
#error "potrf_lane: CH must divide N*N"
#endif

KERNEL void potrf_lane(GALA_PARAMS(POTRF_ARGS_panel))
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
