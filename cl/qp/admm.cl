#if QP_HAS(3) /* qp_admm, qp_check and their helpers */
/*
 * qp_admm — one work-group owns TB QPs (TB = 1: per-QP K⁻¹; TB > 1: QPs sharing P and A,
 * with K⁻¹ from a ρ ladder) and runs `iters` ADMM iterations with x, z, y (and x̃, r) in
 * local memory (VLOCAL = 1) or in global memory (VLOCAL = 0, large QPs):
 *
 *     r  = σx − q + Aᵀ(ρ∘z − y)          one work-item per (column j, QB QPs) [Aᵀ rows]
 *     x̃  = K⁻¹ r                          one work-item per (row i, QB QPs): Σ_j K[i + j·n]·r_j
 *     x  = αx̃ + (1−α)x                    coalesced over i (column-major K)
 *     z̃  = A x̃ ; ẑ = αz̃ + (1−α)z         one work-item per (row i, QB QPs)    [A rows]
 *     z  = Π[l,u](ẑ + y/ρ) ; y += ρ(ẑ − z)
 *
 * then, when asked, the termination check of OSQP 1.0 (residuals, tolerances, duality gap,
 * primal/dual infeasibility, non-convexity, ρ estimate) with reductions in local memory
 * only, and writes the QP's status. Finished QPs leave the launch lists (qp_compact_*)
 * and are skipped by the launches before that.
 */
/* ------------------------------------------------------------------------------------ */
/* qp_admm: as above. Group g owns the QPs list[g·TB + t], t < TB (-1 for   */
/* an empty slot); with TB > 1 they share n, m, the matrices and the ρ ladder (nrungs > 0). */
/* One work-group per tile: launch ceil(nlist / TB) groups.                               */
/* ------------------------------------------------------------------------------------ */
#if VLOCAL && TB > 1 && defined(TL) && TL
/* TL = 1, the tile layout: a tile's vectors in local memory side by side, element i of QP t
 * at i·TS + t (TS = TB + RVW), so that the QB QPs a work-item serves are adjacent: one RVEC
 * read gives RVW of them (the K⁻¹ product reads R that way), and the padding of one RVEC per
 * row keeps the RVEC reads of neighbouring rows in the sparse loops off each other's banks.
 * TL = 0: each QP's vector contiguous (element i of QP t at t·NCAP + i).
 *
 *          t = 0   1  ...  TB-1 | pad
 *   i = 0  [ v00  v01 ... v0,TB-1 | . . ]   one row of TS REALs per element
 *   i = 1  [ v10  v11 ...         | . . ]
 */
#define QP_TLAYOUT 1
#define TS (TB + RVW)
#define VW(t, i) lw[(i) * TS + (t)]
#define VX(t, j) lx[(j) * TS + (t)]
#define VR(t, j) lr[(j) * TS + (t)]
#define VXT(t, j) lxt[(j) * TS + (t)]
#define VZ(t, i) lz[(i) * TS + (t)]
#define VY(t, i) ly[(i) * TS + (t)]
#define RK(i) lct[i] /* row kinds, shared by the tile: in local memory */
#elif VLOCAL
#define VW(t, i) lw[(t) * MCAP + (i)]
#define VX(t, j) lx[(t) * NCAP + (j)]
#define VR(t, j) lr[(t) * NCAP + (j)]
#define VXT(t, j) lxt[(t) * NCAP + (j)]
#define VZ(t, i) lz[(t) * MCAP + (i)]
#define VY(t, i) ly[(t) * MCAP + (i)]
#define RK(i) lct[i] /* row kinds, shared by the tile: in local memory */
#else
#define VW(t, i) vm[QP_V_W * mtot + czo[t] + (i)]
#define VX(t, j) vn[QP_V_X * ntot + cxo[t] + (j)]
#define VR(t, j) vn[QP_V_R * ntot + cxo[t] + (j)]
#define VXT(t, j) vn[QP_V_XT * ntot + cxo[t] + (j)]
#define VZ(t, i) vm[QP_V_Z * mtot + czo[t] + (i)]
#define VY(t, i) vm[QP_V_Y * mtot + czo[t] + (i)]
#define RK(i) ctype[co + (i)]
#endif
#define GQ(t, j) vn[QP_V_Q * ntot + cxo[t] + (j)]
#define GD(t, j) vn[QP_V_D * ntot + cxo[t] + (j)]
#define GXP(t, j) vn[QP_V_XPREV * ntot + cxo[t] + (j)]
#define GL(t, i) vm[QP_V_L * mtot + czo[t] + (i)]
#define GU(t, i) vm[QP_V_U * mtot + czo[t] + (i)]
#define GE(t, i) vm[QP_V_E * mtot + czo[t] + (i)]
#define GYP(t, i) vm[QP_V_YPREV * mtot + czo[t] + (i)]
#define GCT(t, i) ctype[co + (i)]
/* q, l, u: in local memory for one QP per work-group (TB = 1, VLOCAL), else read */
#if VLOCAL && TB == 1
#define LQ(t, j) lq[j]
#define LL(t, i) ll[i]
#define LU(t, i) lu[i]
#else
#define LQ(t, j) GQ(t, j)
#define LL(t, i) GL(t, i)
#define LU(t, i) GU(t, i)
#endif

/* x̃ = K⁻¹R (SECOND: x̃ += K⁻¹R, the refinement step), then with FINAL x = αx̃ + (1 − α)x.
 * TB = 1: work-item (slice ks, row i) sums row i over 1/KSPLIT of the columns; the slices'
 *   partial sums meet in local memory (lks) and the row's owner adds them. Reads of K⁻¹
 *   are coalesced over i (column-major), the KSPLIT slices keep every work-item busy and
 *   double the loads in flight.
 * TB > 1: work-item (QP group tg, row slot i0) computes rows i0 + r·⌈n/RB⌉, r < RB, for
 *   the QB QPs t0 .. t0 + QB − 1: per column one load of K⁻¹ per row serves QB products
 *   (the QPs of one rung share K⁻¹), one load of R per QP serves RB rows. */
/* SUM = Σ_{J0 <= j < J1} Kt[j·n]·VR(0, j): part of row i of K⁻¹ (Kt = K⁻¹ + i; K⁻¹ is
 * column-major, so neighbouring work-items read neighbouring addresses) times the right-hand
 * side of QP 0 of the tile, with four partial sums to keep four loads in flight. */
#define QP_KDOT(Kt, J0, J1, SUM)                                                            \
    do {                                                                                    \
        REAL a0_ = 0, a1_ = 0, a2_ = 0, a3_ = 0;                                            \
        int j_ = (J0);                                                                      \
        for (; j_ + 4 <= (J1); j_ += 4) {                                                   \
            a0_ += (Kt)[(gidx)j_ * n] * VR(0, j_);                                          \
            a1_ += (Kt)[(gidx)(j_ + 1) * n] * VR(0, j_ + 1);                                \
            a2_ += (Kt)[(gidx)(j_ + 2) * n] * VR(0, j_ + 2);                                \
            a3_ += (Kt)[(gidx)(j_ + 3) * n] * VR(0, j_ + 3);                                \
        }                                                                                   \
        for (; j_ < (J1); ++j_) a0_ += (Kt)[(gidx)j_ * n] * VR(0, j_);                      \
        (SUM) = (a0_ + a1_) + (a2_ + a3_);                                                  \
    } while (0)
#if KSPLIT > 1
#define QP_KINV(SECOND, FINAL)                                                              \
    do {                                                                                    \
        const int ch_ = (n + KSPLIT - 1) / KSPLIT;                                          \
        for (int idx = lid; idx < KSPLIT * n; idx += WG) {                                  \
            const int ks = idx / n, i = idx - ks * n;                                       \
            const int j0 = ks * ch_, j1 = j0 + ch_ < n ? j0 + ch_ : n;                      \
            GLOBAL const REAL *Kt = K + cko[0] + i;                                         \
            REAL part_;                                                                     \
            QP_KDOT(Kt, j0, j1, part_);                                                     \
            lks[ks * NCAP + i] = part_;                                                     \
        }                                                                                   \
        LOCAL_BARRIER();                                                                    \
        for (int i = lid; i < n && cact[0]; i += WG) {                                      \
            REAL sum = 0;                                                                   \
            for (int ks = 0; ks < KSPLIT; ++ks) sum += lks[ks * NCAP + i];                  \
            const REAL xt = (SECOND) ? VXT(0, i) + sum : sum;                               \
            VXT(0, i) = xt;                                                                 \
            if (FINAL) VX(0, i) = alpha * xt + ((REAL)1 - alpha) * VX(0, i);                \
        }                                                                                   \
    } while (0)
#elif TB == 1
#define QP_KINV(SECOND, FINAL)                                                              \
    do {                                                                                    \
        for (int i = lid; i < n && cact[0]; i += WG) {                                      \
            GLOBAL const REAL *Kt = K + cko[0] + i;                                         \
            REAL sum;                                                                       \
            QP_KDOT(Kt, 0, n, sum);                                                         \
            const REAL xt = (SECOND) ? VXT(0, i) + sum : sum;                               \
            VXT(0, i) = xt;                                                                 \
            if (FINAL) VX(0, i) = alpha * xt + ((REAL)1 - alpha) * VX(0, i);                \
        }                                                                                   \
    } while (0)
#else
/* column j of the tile's product: sa[r][c] += K⁻¹(row r, j)·R(j, QP t0 + c) for the QB QPs
 * (kr: the column's RBLK values); with the tile layout R(j, t0 .. t0 + QB − 1) is QB/RVW
 * RVEC reads (t0 and TS multiples of RVW) instead of QB scalar ones */
#if defined(QP_TLAYOUT) && QB % RVW == 0 && TB % RVW == 0
#define QP_KINV_COLUMN(j)                                                                   \
    do {                                                                                    \
        LOCAL const RVEC *rv_ = (LOCAL const RVEC *)(lr + (j) * TS + t0);                   \
        for (int cv = 0; cv < QB / RVW; ++cv) {                                             \
            const RVEC v_ = rv_[cv];                                                        \
            for (int e = 0; e < RVW; ++e) {                                                 \
                const REAL rv = rv_get(v_, e);                                              \
                for (int r = 0; r < RBLK; ++r) sa[r][cv * RVW + e] += kr[r] * rv;           \
            }                                                                               \
        }                                                                                   \
    } while (0)
#else
#define QP_KINV_COLUMN(j)                                                                   \
    do {                                                                                    \
        for (int c = 0; c < QB; ++c) {                                                      \
            const REAL rv = VR(t0 + c, (j));                                                \
            for (int r = 0; r < RBLK; ++r) sa[r][c] += kr[r] * rv;                          \
        }                                                                                   \
    } while (0)
#endif
#define QP_KINV(SECOND, FINAL)                                                              \
    do {                                                                                    \
        const int rs_n = (n + RBLK - 1) / RBLK;                                             \
        for (int idx = lid; idx < (TB / QB) * rs_n; idx += WG) {                            \
            const int tg = idx / rs_n, i0 = idx - tg * rs_n, t0 = tg * QB;                  \
            int ir[RBLK];                                                                   \
            for (int r = 0; r < RBLK; ++r) ir[r] = i0 + r * rs_n < n ? i0 + r * rs_n : i0;  \
            int same = 1;                                                                   \
            for (int c = 1; c < QB; ++c) same = same && cko[t0 + c] == cko[t0];             \
            REAL sa[RBLK][QB];                                                              \
            for (int r = 0; r < RBLK; ++r)                                                  \
                for (int c = 0; c < QB; ++c) sa[r][c] = 0;                                  \
            if (same) {                                                                     \
                GLOBAL const REAL *Kt = K + cko[t0];                                        \
                for (int j = 0; j < n; ++j) {                                               \
                    REAL kr[RBLK];                                                          \
                    for (int r = 0; r < RBLK; ++r) kr[r] = Kt[ir[r] + (gidx)j * n];         \
                    QP_KINV_COLUMN(j);                                                      \
                }                                                                           \
            } else {                                                                        \
                for (int c = 0; c < QB; ++c) {                                              \
                    GLOBAL const REAL *Kt = K + cko[t0 + c];                                \
                    for (int j = 0; j < n; ++j) {                                           \
                        const REAL rv = VR(t0 + c, j);                                      \
                        for (int r = 0; r < RBLK; ++r) sa[r][c] += Kt[ir[r] + (gidx)j * n] * rv;\
                    }                                                                       \
                }                                                                           \
            }                                                                               \
            for (int c = 0; c < QB; ++c) {                                                  \
                const int t = t0 + c;                                                       \
                if (!cact[t]) continue;                                                     \
                for (int r = 0; r < RBLK; ++r) {                                            \
                    const int i = i0 + r * rs_n;                                            \
                    if (i < n) {                                                            \
                        const REAL xt = (SECOND) ? VXT(t, i) + sa[r][c] : sa[r][c];         \
                        VXT(t, i) = xt;                                                     \
                        if (FINAL) VX(t, i) = alpha * xt + ((REAL)1 - alpha) * VX(t, i);    \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
    } while (0)
#endif

/* The tile of a work-group in qp_admm and qp_check (same parameter names in both):
 * QP_TILE_FIRST sets B0 to the first QP of tile g that is still running (-1: none);
 * QP_TILE_CACHE has work-items t < TB put QP t's index, activity, vector offsets, K⁻¹ offset
 * (its own or its ladder rung's) and ρ into the local arrays cqp, cact, cxo, czo, cko, crho. */
#define QP_TILE_FIRST(B0)                                                                   \
    do {                                                                                    \
        for (int t_ = 0; t_ < TB; ++t_) {                                                   \
            const gidx li_ = g * TB + t_;                                                   \
            const int b_ = li_ < nlist ? list[li_] : -1;                                    \
            if (b_ >= 0 && state[(gidx)b_ * QP_NSTATE + QP_S_STATUS] == 0) {                \
                (B0) = b_;                                                                  \
                break;                                                                      \
            }                                                                               \
        }                                                                                   \
    } while (0)
#define QP_TILE_CACHE(B0)                                                                   \
    do {                                                                                    \
        if (lid < TB) {                                                                     \
            const int t_ = lid;                                                             \
            const gidx li_ = g * TB + t_;                                                   \
            const int b_ = li_ < nlist ? list[li_] : -1;                                    \
            const int act_ = b_ >= 0 && state[(gidx)b_ * QP_NSTATE + QP_S_STATUS] == 0;     \
            cqp[t_] = b_;                                                                   \
            cact[t_] = act_;                                                                \
            const int bb_ = act_ ? b_ : ((B0) < 0 ? 0 : (B0));                              \
            cxo[t_] = meta[(gidx)bb_ * QP_NMETA + QP_M_XO];                                 \
            czo[t_] = meta[(gidx)bb_ * QP_NMETA + QP_M_ZO];                                 \
            if (nrungs > 0) {                                                               \
                const int rung_ = state[(gidx)bb_ * QP_NSTATE + QP_S_RUNG];                 \
                cko[t_] = ((gidx)lad_ko + (gidx)rung_ * lad_ks) * QP_KALIGN;                \
                crho[t_] = lrho[rung_];                                                     \
            } else {                                                                        \
                cko[t_] = (gidx)meta[(gidx)bb_ * QP_NMETA + QP_M_KO] * QP_KALIGN;           \
                crho[t_] = info[(gidx)bb_ * QP_NINFO + QP_I_RHO];                           \
            }                                                                               \
        }                                                                                   \
    } while (0)

/* result slots per column */
#define R_PRIM 0
#define R_PRIMS 1
#define R_PTOL 2
#define R_PTOLS 3
#define R_SUP 4
#define R_NDY 5
#define R_LHS 6
#define R_DUAL 7
#define R_DUALS 8
#define R_DTOL 9
#define R_DTOLS 10
#define R_XPX 11
#define R_QX 12
#define R_NDX 13
#define R_QDX 14
#define R_ATDY 15
#define R_PDX 16
#define R_VIOL0 17
#define R_VIOL1 18

/* ACC[c] += Σ_k RV[k]·V(T0 + c, RC[k]) over row ROW of a CSR block (RP, RC, RV), for the QB
 * QPs T0 .. T0 + QB − 1 of a tile: the row's indices and values are read once for all. */
#define QP_ROW_TIMES(RP, RC, RV, ROW, V, T0, ACC)                                           \
    for (int k_ = (RP)[ROW]; k_ < (RP)[(ROW) + 1]; ++k_) {                                  \
        const int j_ = (RC)[k_];                                                            \
        const REAL v_ = (RV)[k_];                                                           \
        for (int c_ = 0; c_ < QB; ++c_) (ACC)[c_] += v_ * V((T0) + c_, j_);                 \
    }

/* The parameters of qp_admm and qp_check: the host launches both with one argument list
 * (ADMM_ARGS in src/qp/solver.c). */
/* REQD_WG (-D, qp.reqd_wg): both compiled for their class's work-group of exactly WG
 * work-items (OpenCL's reqd_work_group_size, CUDA's __launch_bounds__), the compiler fitting
 * their registers to it. Without it the host asks what each kernel can run and narrows the
 * class to that: NVIDIA's OpenCL answers 256 for every kernel (H200, control QPs in float:
 * iterations 40.2 ms instead of 26.4), while CUDA's answer, from the registers the compiler
 * chose freely, runs the shared-matrix classes faster than fitted ones (H200, double
 * integrator: 1.15-1.24x).
 * MINB > 0 (-D, qp.minb): at least MINB work-groups per SM (CUDA caps the registers). */
#if defined(MINB) && MINB > 0
#define QP_ADMM_KERNEL KERNEL_MINB(WG, MINB)
#elif defined(REQD_WG) && REQD_WG
#define QP_ADMM_KERNEL KERNEL_MINB(WG, 1)
#else
#define QP_ADMM_KERNEL KERNEL
#endif
QP_ADMM_KERNEL void qp_admm(GALA_PARAMS(QP_ARGS_admm))
{
#if defined(QP_TLAYOUT)
    /* the tile layout (VX above); RVEC arrays for the alignment of the vector reads */
    LOCAL_ARRAY RVEC lxv[(NCAP * TS + RVW - 1) / RVW];
    LOCAL_ARRAY RVEC lrv[(NCAP * TS + RVW - 1) / RVW];
    LOCAL_ARRAY RVEC lxtv[(NCAP * TS + RVW - 1) / RVW];
    LOCAL_ARRAY RVEC lzv[(MCAP * TS + RVW - 1) / RVW];
    LOCAL_ARRAY RVEC lyv[(MCAP * TS + RVW - 1) / RVW];
    LOCAL REAL *lx = (LOCAL REAL *)lxv, *lr = (LOCAL REAL *)lrv, *lxt = (LOCAL REAL *)lxtv;
    LOCAL REAL *lz = (LOCAL REAL *)lzv, *ly = (LOCAL REAL *)lyv;
    LOCAL_ARRAY int lct[MCAP];
#if REFINE
    LOCAL_ARRAY RVEC lwv[(MCAP * TS + RVW - 1) / RVW];
    LOCAL REAL *lw = (LOCAL REAL *)lwv;
#endif
#elif VLOCAL
    LOCAL_ARRAY REAL lx[TB * NCAP];
    LOCAL_ARRAY REAL lr[TB * NCAP];
    LOCAL_ARRAY REAL lxt[TB * NCAP];
    LOCAL_ARRAY REAL lz[TB * MCAP];
    LOCAL_ARRAY REAL ly[TB * MCAP];
    LOCAL_ARRAY int lct[MCAP];
#if REFINE
    LOCAL_ARRAY REAL lw[TB * MCAP];
#endif
#if TB == 1
    LOCAL_ARRAY REAL lq[NCAP];
    LOCAL_ARRAY REAL ll[MCAP];
    LOCAL_ARRAY REAL lu[MCAP];
#endif
#if KSPLIT > 1
    LOCAL_ARRAY REAL lks[KSPLIT * NCAP];
#endif
#endif
    LOCAL_ARRAY int cqp[TB];
    LOCAL_ARRAY int cact[TB];
    LOCAL_ARRAY gidx cxo[TB];
    LOCAL_ARRAY gidx czo[TB];
    LOCAL_ARRAY gidx cko[TB];
    LOCAL_ARRAY REAL crho[TB];
    const int lid = (int)LID(0);

    {
        const gidx g = GRP(0);
        /* the QPs of this group; b0 is a valid one whose n, m and matrices all share */
        int b0 = -1;
        QP_TILE_FIRST(b0);
        /* b0 < 0: nothing to do; the loops below then run zero times (no early exit around
         * barriers, for PoCL) */
        GLOBAL const int *mt = meta + (gidx)(b0 < 0 ? 0 : b0) * QP_NMETA;
        const int n = b0 < 0 ? 0 : mt[QP_M_N], m = b0 < 0 ? 0 : mt[QP_M_M];
        const int iters_g = b0 < 0 ? 0 : iters;
        QP_MATS(mt);
        QP_VALS(mt, GLOBAL const);
        const gidx co = mt[QP_M_CO]; /* row kinds: the QP's own (TB = 1) or the tile's shared */
        (void)co;
        QP_TILE_CACHE(b0);
        LOCAL_BARRIER();
#if VLOCAL
        for (int idx = lid; idx < TB * n; idx += WG) {
            const int t = idx / n, j = idx - t * n;
            VX(t, j) = vn[QP_V_X * ntot + cxo[t] + j];
        }
        for (int idx = lid; idx < TB * m; idx += WG) {
            const int t = idx / m, i = idx - t * m;
            VZ(t, i) = vm[QP_V_Z * mtot + czo[t] + i];
            VY(t, i) = vm[QP_V_Y * mtot + czo[t] + i];
        }
        for (int i = lid; i < m; i += WG) lct[i] = ctype[co + i];
#if TB == 1
        for (int j = lid; j < n; j += WG) lq[j] = GQ(0, j);
        for (int i = lid; i < m; i += WG) {
            ll[i] = GL(0, i);
            lu[i] = GU(0, i);
        }
#endif
        LOCAL_BARRIER();
#endif
        for (int it = 0; it < iters_g; ++it) {
            const int last = it == iters_g - 1;
            /* r = σx − q + Aᵀ(ρz − y). The sparse loops (here and below) give each
             * work-item one row for QB QPs of the tile: the row's indices and values are
             * read once for all of them (they share the matrices). */
            for (int idx = lid; idx < (TB / QB) * n; idx += WG) {
                const int t0 = idx / n * QB, j = idx - idx / n * n;
                REAL s[QB];
                for (int c = 0; c < QB; ++c) s[c] = sigma * VX(t0 + c, j) - LQ(t0 + c, j);
                for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
                    const int i = Tc[k], rk = RK(i);
                    const REAL v = Tv[k];
                    for (int c = 0; c < QB; ++c)
                        s[c] += v * (qp_rho_row(rk, crho[t0 + c]) * VZ(t0 + c, i) - VY(t0 + c, i));
                }
                for (int c = 0; c < QB; ++c) {
                    const int t = t0 + c;
                    if (!cact[t]) continue;
                    VR(t, j) = s[c];
                    if (last) GXP(t, j) = VX(t, j);
                }
            }
            GLOBAL_BARRIER();
#if REFINE
            /* x̃ = K⁻¹r, then one step of iterative refinement with K applied sparsely:
             * w = ρ∘(A x̃); r ← r − (σx̃ + P x̃ + Aᵀw); x̃ ← x̃ + K⁻¹r (float: removes the
             * bias of the explicit inverse); x = αx̃ + (1 − α)x. Compile-time, so that no
             * barrier sits in a branch. */
            QP_KINV(0, 0);
            GLOBAL_BARRIER();
            for (int idx = lid; idx < (TB / QB) * m; idx += WG) {
                const int t0 = idx / m * QB, i = idx - idx / m * m;
                REAL a[QB];
                for (int c = 0; c < QB; ++c) a[c] = 0;
                QP_ROW_TIMES(Ap, Ac, Av, i, VXT, t0, a);
                const int rk = RK(i);
                for (int c = 0; c < QB; ++c)
                    if (cact[t0 + c]) VW(t0 + c, i) = qp_rho_row(rk, crho[t0 + c]) * a[c];
            }
            GLOBAL_BARRIER();
            for (int idx = lid; idx < (TB / QB) * n; idx += WG) {
                const int t0 = idx / n * QB, j = idx - idx / n * n;
                REAL kx[QB];
                for (int c = 0; c < QB; ++c) kx[c] = sigma * VXT(t0 + c, j);
                QP_ROW_TIMES(Pp, Pc, Pv, j, VXT, t0, kx);
                QP_ROW_TIMES(Tp, Tc, Tv, j, VW, t0, kx);
                for (int c = 0; c < QB; ++c)
                    if (cact[t0 + c]) VR(t0 + c, j) -= kx[c];
            }
            GLOBAL_BARRIER();
            QP_KINV(1, 1);
#else
            /* x̃ = K⁻¹ r ; x = αx̃ + (1 − α)x */
            QP_KINV(0, 1);
#endif
            GLOBAL_BARRIER();
            /* z̃ = A x̃ ; z, y updates */
            for (int idx = lid; idx < (TB / QB) * m; idx += WG) {
                const int t0 = idx / m * QB, i = idx - idx / m * m;
                REAL za[QB];
                for (int c = 0; c < QB; ++c) za[c] = 0;
                QP_ROW_TIMES(Ap, Ac, Av, i, VXT, t0, za);
                const int rk = RK(i);
                for (int c = 0; c < QB; ++c) {
                    const int t = t0 + c;
                    if (!cact[t]) continue;
                    const REAL zt = za[c];
                    const REAL rho = qp_rho_row(rk, crho[t]);
                    const REAL zold = VZ(t, i), yold = VY(t, i);
                    const REAL zh = alpha * zt + ((REAL)1 - alpha) * zold;
                    REAL zn = zh + yold / rho;
                    const REAL lv = LL(t, i), uv = LU(t, i);
                    zn = zn < lv ? lv : zn;
                    zn = zn > uv ? uv : zn;
                    if (last) GYP(t, i) = yold;
                    VY(t, i) = yold + rho * (zh - zn);
                    VZ(t, i) = zn;
                }
            }
            GLOBAL_BARRIER();
        }

        LOCAL_BARRIER();
        /* store the iterates, count the iterations */
#if VLOCAL
        for (int idx = lid; idx < TB * n; idx += WG) {
            const int t = idx / n, j = idx - t * n;
            if (cact[t]) vn[QP_V_X * ntot + cxo[t] + j] = VX(t, j);
        }
        for (int idx = lid; idx < TB * m; idx += WG) {
            const int t = idx / m, i = idx - t * m;
            if (cact[t]) {
                vm[QP_V_Z * mtot + czo[t] + i] = VZ(t, i);
                vm[QP_V_Y * mtot + czo[t] + i] = VY(t, i);
            }
        }
#endif
        if (lid < TB && cact[lid]) state[(gidx)cqp[lid] * QP_NSTATE + QP_S_ITER] += iters_g;
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_check: the termination check of OSQP 1.0 for the QPs of a tile, after qp_admm has    */
/* stored the iterates: residuals, tolerances, duality gap, infeasibility, non-convexity,  */
/* ρ estimate and decision; reductions in local memory only. A kernel of its own (not the */
/* tail of qp_admm): PoCL mishandles barriers that follow barrier loops in one kernel.     */
/* ------------------------------------------------------------------------------------ */
#define GX(t, j) vn[QP_V_X * ntot + cxo[t] + (j)]
#define GZ(t, i) vm[QP_V_Z * mtot + czo[t] + (i)]
#define GY(t, i) vm[QP_V_Y * mtot + czo[t] + (i)]

QP_ADMM_KERNEL void qp_check(GALA_PARAMS(QP_ARGS_admm))
{
    LOCAL_ARRAY REAL part[4 * WG];
    LOCAL_ARRAY REAL res[TB * QP_NRES];
    LOCAL_ARRAY int cqp[TB];
    LOCAL_ARRAY int cact[TB];
    LOCAL_ARRAY gidx cxo[TB];
    LOCAL_ARRAY gidx czo[TB];
    LOCAL_ARRAY gidx cko[TB];
    LOCAL_ARRAY REAL crho[TB];
    const int lid = (int)LID(0);

    {
        const gidx g = GRP(0);
        /* the QPs of this group; b0 is a valid one whose n, m and matrices all share */
        int b0 = -1;
        QP_TILE_FIRST(b0);
        /* b0 < 0: nothing to do; the loops below then run zero times (no early exit around
         * barriers, for PoCL) */
        GLOBAL const int *mt = meta + (gidx)(b0 < 0 ? 0 : b0) * QP_NMETA;
        const int n = b0 < 0 ? 0 : mt[QP_M_N], m = b0 < 0 ? 0 : mt[QP_M_M];
        QP_MATS(mt);
        QP_VALS(mt, GLOBAL const);
        const gidx co = mt[QP_M_CO];
        (void)co;
        QP_TILE_CACHE(b0);
        LOCAL_BARRIER();
        const int U = !scaled_term;
        const int t = lid % TB, rstep = WG / TB;
        const int ok = cact[t];
        /* pass 1: rows */
        REAL a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0s = 0, b1 = 0, b2 = 0;
        if (ok) {
            for (int i = lid / TB; i < m; i += rstep) {
                REAL ax = 0;
                for (int k = Ap[i]; k < Ap[i + 1]; ++k) ax += Av[k] * GX(t, Ac[k]);
                const REAL zi = GZ(t, i), yi = GY(t, i), lv = GL(t, i), uv = GU(t, i);
                const REAL ei = GE(t, i), sc = U ? (REAL)1 / ei : (REAL)1;
                const REAL pr = qp_abs(ax - zi);
                a0 = qp_max(a0, pr * sc);
                a1 = qp_max(a1, pr);
                a2 = qp_max(a2, qp_max(qp_abs(ax), qp_abs(zi)) * sc);
                a3 = qp_max(a3, qp_max(qp_abs(ax), qp_abs(zi)));
                REAL yp = qp_polar(yi, lv, uv);
                if (qp_abs(yp) < QP_DEADZONE) yp = 0;
                b0s += qp_support(yp, lv, uv);
                const REAL dyp = qp_polar(yi - GYP(t, i), lv, uv);
                b1 = qp_max(b1, qp_abs(dyp) * (U ? ei : (REAL)1));
                b2 += qp_support(dyp, lv, uv);
            }
        }
        QP_RED4(part, lid, WG, TB, a0, a1, a2, a3, 0);
        if (lid < TB) {
            res[lid * QP_NRES + R_PRIM] = part[lid];
            res[lid * QP_NRES + R_PRIMS] = part[WG + lid];
            res[lid * QP_NRES + R_PTOL] = part[2 * WG + lid];
            res[lid * QP_NRES + R_PTOLS] = part[3 * WG + lid];
        }
        QP_RED4(part, lid, WG, TB, b0s, b1, b2, 0, 5);
        if (lid < TB) {
            res[lid * QP_NRES + R_SUP] = part[lid];
            res[lid * QP_NRES + R_NDY] = part[WG + lid];
            res[lid * QP_NRES + R_LHS] = part[2 * WG + lid];
        }
        /* pass 2: columns */
        REAL c0 = 0, c1 = 0, c2 = 0, c3 = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0, e0 = 0, e1 = 0;
        if (ok) {
            for (int j = lid / TB; j < n; j += rstep) {
                REAL px = 0, aty = 0, atdy = 0, pdx = 0;
                for (int k = Pp[j]; k < Pp[j + 1]; ++k) {
                    const int c = Pc[k];
                    px += Pv[k] * GX(t, c);
                    pdx += Pv[k] * (GX(t, c) - GXP(t, c));
                }
                for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
                    const int i = Tc[k];
                    const REAL yi = GY(t, i);
                    aty += Tv[k] * yi;
                    atdy += Tv[k] * qp_polar(yi - GYP(t, i), GL(t, i), GU(t, i));
                }
                const REAL xj = GX(t, j), qj = GQ(t, j), dj = GD(t, j);
                const REAL sc = U ? (REAL)1 / dj : (REAL)1;
                const REAL dr = qp_abs(px + qj + aty);
                const REAL tn = qp_max(qp_abs(qj), qp_max(qp_abs(aty), qp_abs(px)));
                c0 = qp_max(c0, dr * sc);
                c1 = qp_max(c1, dr);
                c2 = qp_max(c2, tn * sc);
                c3 = qp_max(c3, tn);
                const REAL dx = xj - GXP(t, j);
                d0 += xj * px;
                d1 += qj * xj;
                d2 = qp_max(d2, qp_abs(dx) * (U ? dj : (REAL)1));
                d3 += qj * dx;
                e0 = qp_max(e0, qp_abs(atdy) * sc);
                e1 = qp_max(e1, qp_abs(pdx) * sc);
            }
        }
        QP_RED4(part, lid, WG, TB, c0, c1, c2, c3, 0);
        if (lid < TB) {
            res[lid * QP_NRES + R_DUAL] = part[lid];
            res[lid * QP_NRES + R_DUALS] = part[WG + lid];
            res[lid * QP_NRES + R_DTOL] = part[2 * WG + lid];
            res[lid * QP_NRES + R_DTOLS] = part[3 * WG + lid];
        }
        QP_RED4(part, lid, WG, TB, d0, d1, d2, d3, 1 | 2 | 8);
        if (lid < TB) {
            res[lid * QP_NRES + R_XPX] = part[lid];
            res[lid * QP_NRES + R_QX] = part[WG + lid];
            res[lid * QP_NRES + R_NDX] = part[2 * WG + lid];
            res[lid * QP_NRES + R_QDX] = part[3 * WG + lid];
        }
        QP_RED4(part, lid, WG, TB, e0, e1, 0, 0, 0);
        if (lid < TB) {
            res[lid * QP_NRES + R_ATDY] = part[lid];
            res[lid * QP_NRES + R_PDX] = part[WG + lid];
        }
        LOCAL_BARRIER();
        /* pass 3: A·δx in the recession cone of [l, u], for the exact and the ×10 tolerance */
        REAL v0 = 0, v1 = 0;
        if (ok) {
            const REAL ndx = res[t * QP_NRES + R_NDX];
            const REAL tol0 = eps_dinf * ndx, tol1 = 10 * eps_dinf * ndx;
            for (int i = lid / TB; i < m; i += rstep) {
                REAL adx = 0;
                for (int k = Ap[i]; k < Ap[i + 1]; ++k) {
                    const int c = Ac[k];
                    adx += Av[k] * (GX(t, c) - GXP(t, c));
                }
                if (U) adx /= GE(t, i);
                const REAL lv = GL(t, i), uv = GU(t, i);
                v0 += ((uv < QP_INFV && adx > tol0) || (lv > -QP_INFV && adx < -tol0)) ? 1 : 0;
                v1 += ((uv < QP_INFV && adx > tol1) || (lv > -QP_INFV && adx < -tol1)) ? 1 : 0;
            }
        }
        QP_RED4(part, lid, WG, TB, v0, v1, 0, 0, 3);
        if (lid < TB) {
            res[lid * QP_NRES + R_VIOL0] = part[lid];
            res[lid * QP_NRES + R_VIOL1] = part[WG + lid];
        }
        LOCAL_BARRIER();

        /* decisions, one work-item per QP */
        if (lid < TB && cact[lid]) {
            const int b = cqp[lid];
            GLOBAL REAL *inf = info + (gidx)b * QP_NINFO;
            GLOBAL int *st = state + (gidx)b * QP_NSTATE;
            LOCAL REAL *R = res + lid * QP_NRES;
            const REAL c = inf[QP_I_C], cinv = (REAL)1 / c;
            const REAL prim = R[R_PRIM];
            const REAL dual = (U ? cinv : (REAL)1) * R[R_DUAL];
            const REAL xpx = R[R_XPX], qx = R[R_QX], sup = R[R_SUP];
            inf[QP_I_PRIM] = prim;
            inf[QP_I_DUAL] = dual;
            inf[QP_I_SPRIM] = R[R_PRIMS];
            inf[QP_I_SDUAL] = R[R_DUALS];
            inf[QP_I_OBJ] = cinv * ((REAL)0.5 * xpx + qx);
            inf[QP_I_DOBJ] = cinv * ((REAL)-0.5 * xpx - sup);
            inf[QP_I_GAP] = cinv * (xpx + qx + sup);
            /* the status: at a termination check (check) and at the last iteration
             * (final_status); `exact` is that of the exact tolerances, before the ×10 pass */
#define QP_VIOL_(pass) R[pass ? R_VIOL1 : R_VIOL0]
            QP_TERM_STATUS(check || final_status, st, final_status, prim, dual, m, U, c, cinv,
                           dualgap, eps_abs, eps_rel, eps_pinf, eps_dinf, R[R_PTOL], R[R_DTOL],
                           R[R_NDY], R[R_LHS], R[R_ATDY], R[R_NDX], R[R_QDX], R[R_PDX], QP_VIOL_,
                           xpx, qx, sup, qp_max, qp_abs, QP_INFTY, QP_DIVTOL);
#undef QP_VIOL_
            /* adaptive ρ and the ρ estimate (cl/qp_rules.h) */
            const REAL rho = crho[lid];
            QP_RHO_BALANCE(pn, dn, ratio, R[R_PRIMS], R[R_PTOLS], R[R_DUALS], R[R_DTOLS]);
            QP_RHO_ADAPT(!exact && adapt, pn, dn, ratio, rho, rho_tol, nrungs, lrho, rungok, st, inf,
                         refac[b]);
        }
    }
}

#endif /* QP_HAS(3) */
