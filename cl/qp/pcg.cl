#if QP_HAS(2) /* the PCG strategy's kernels */
/* ------------------------------------------------------------------------------------ */
/* The PCG strategy (src/qp/linsys_pcg.c; OSQP's indirect method): the ADMM iteration of  */
/* the sparse strategy with the KKT solve replaced by preconditioned conjugate gradients  */
/* on the reduced system                                                                   */
/*                                                                                          */
/*     (P + σI + Aᵀdiag(ρ)A) x̃ = b₁ + Aᵀ(ρ∘b₂),    [b₁; b₂] = [σx − q; z − y/ρ] (qp_kkt_rhs)*/
/*                                                                                          */
/* with the Jacobi preconditioner M = diag(P) + σ + Σᵢ ρᵢA²ᵢⱼ, warm started from the ADMM  */
/* iterate x; qp_kkt_update then takes x̃ as from the sparse solve (it forms z̃ = Ax̃ itself).*/
/* Nothing is O(n²): K is applied through P (full CSR), A and Aᵀ (CSR). One work-group per */
/* listed QP; its vectors in the workspace pw (sections of ntot, PW_*, at the QP's xo, and */
/* one m-vector section at QP_PW_NV·ntot + zo); the CG iterate in the QP's b₁ entries of kb.  */
/* ------------------------------------------------------------------------------------ */

/* qp_pcg_precond: for each listed QP with its refactor flag set (every listed QP when all
 * != 0): M⁻¹ into pw; a diagonal entry with P_jj + σ ≤ 0 (or not finite) means P + σI is
 * not positive definite: the QP's status becomes NON_CVX (9), as the dense strategy's
 * failed factorization. One work-group per QP. */
KERNEL void qp_pcg_precond(GALA_PARAMS(QP_ARGS_pcg_precond))
{
    LOCAL_ARRAY int bad[1];
    const int lid = (int)LID(0);
    const gidx g = GRP(0);
    if (g >= nlist) return;
    const int b = list[g];
    if (!all && !refac[b]) return;
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int n = mt[QP_M_N];
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    GLOBAL const int *ct = ctype + mt[QP_M_CO];
    const REAL rho = info[(gidx)b * QP_NINFO + QP_I_RHO];
    GLOBAL REAL *mi = pw + QP_PW_MI * ntot + mt[QP_M_XO];
    if (lid == 0) bad[0] = 0;
    LOCAL_BARRIER();
    int fail = 0;
    for (int j = lid; j < n; j += WG) {
        REAL pd = 0, d;
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] == j) pd += Pv[k];
        d = pd + sigma;
        if (!(d > 0) || !(d < QP_INFTY)) fail = 1;
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) d += qp_rho_row(ct[Tc[k]], rho) * Tv[k] * Tv[k];
        mi[j] = d > 0 ? (REAL)1 / d : (REAL)1;
    }
    if (fail) bad[0] = 1;
    LOCAL_BARRIER();
    if (lid == 0 && bad[0]) state[(gidx)b * QP_NSTATE + QP_S_STATUS] = 9;
}

/* K·v for the n-vector v in two halves, ordered by the caller's barriers: tm = ρ∘(A·v)
 * over rows i < mb, then entry j: σ·v_j + (P·v)_j + (Aᵀtm)_j. */
#define QP_PCG_AV(src, mb)                                                                  \
    for (int i = lid; i < (mb); i += WG) {                                                  \
        REAL a_ = 0;                                                                        \
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) a_ += Av[k] * (src)[Ac[k]];                 \
        tm[i] = qp_rho_row(ct[i], rho) * a_;                                                \
    }
#define QP_PCG_KV(j, src, out)                                                              \
    {                                                                                       \
        REAL a_ = sigma * (src)[j];                                                         \
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) a_ += Pv[k] * (src)[Pc[k]];                 \
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) a_ += Tv[k] * tm[Tc[k]];                    \
        out = a_;                                                                           \
    }
/* Reduce a (max), c (max), d (sum) over the work-group; every work-item gets the results
 * in ra, rc, rd. No loop holds a barrier (WG a multiple of 32). */
#define QP_PCG_RED(a, c, d, ra, rc, rd)                                                     \
    {                                                                                       \
        part[lid] = (a);                                                                    \
        part[WG + lid] = (c);                                                               \
        part[2 * WG + lid] = (d);                                                           \
        LOCAL_BARRIER();                                                                    \
        if (lid < 32) {                                                                     \
            REAL x_ = part[lid], y_ = part[WG + lid], w_ = part[2 * WG + lid];              \
            for (int r_ = lid + 32; r_ < WG; r_ += 32) {                                    \
                x_ = qp_max(x_, part[r_]);                                                  \
                y_ = qp_max(y_, part[WG + r_]);                                             \
                w_ += part[2 * WG + r_];                                                    \
            }                                                                               \
            part[3 * WG + lid] = x_;                                                        \
            part[3 * WG + 32 + lid] = y_;                                                   \
            part[3 * WG + 64 + lid] = w_;                                                   \
        }                                                                                   \
        LOCAL_BARRIER();                                                                    \
        ra = part[3 * WG];                                                                  \
        rc = part[3 * WG + 32];                                                             \
        rd = part[3 * WG + 64];                                                             \
        for (int r_ = 1; r_ < 32; ++r_) {                                                   \
            ra = qp_max(ra, part[3 * WG + r_]);                                             \
            rc = qp_max(rc, part[3 * WG + 32 + r_]);                                        \
            rd += part[3 * WG + 64 + r_];                                                   \
        }                                                                                   \
        LOCAL_BARRIER();                                                                    \
    }

/* qp_pcg: one reduced solve per listed running QP (iteration it0 + 1 of this launch's
 * batch of iterations): the right-hand side from kb (qp_kkt_rhs; slot b's n + m entries at
 * XO + ZO, so a batch of mixed sizes takes Σ(n + m)), the solution x̃ left in its first n
 * entries. The tolerance is OSQP's (cuda_pcg_interface.c): at the solve's
 * first ADMM iteration cg_tol_fraction·‖b‖∞ (1 when ‖b‖∞ < 1e-7); later
 * max(min(red·√(prim_res·dual_res), the last tolerance), 1e-7), red = cg_tol_fraction
 * halved after cg_tol_reduction consecutive solves without a CG iteration, with the
 * scaled problem's residuals of the last termination check (info, as OSQP's
 * scaled_prim_res and scaled_dual_res; until this solve's first check, every chk
 * iterations, the last tolerance stays). At most maxit CG iterations; the loop ends for the
 * whole work-group at once (its exit test reads only values every work-item holds alike).
 * pᵀKp ≤ 0 (or NaN): K is not positive definite: status NON_CVX (9). */
KERNEL void qp_pcg(GALA_PARAMS(QP_ARGS_pcg))
{
    LOCAL_ARRAY REAL part[3 * WG + 96];
    const int lid = (int)LID(0);
    const gidx g = GRP(0);
    if (g >= nlist) return;
    const int b = list[g];
    GLOBAL int *st = state + (gidx)b * QP_NSTATE;
    if (st[QP_S_STATUS] != 0) return; /* the whole work-group: before any barrier */
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int n = mt[QP_M_N], m = mt[QP_M_M];
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    GLOBAL const int *ct = ctype + mt[QP_M_CO];
    GLOBAL const REAL *inf = info + (gidx)b * QP_NINFO;
    const REAL rho = inf[QP_I_RHO];
    const gidx xo = mt[QP_M_XO];
    GLOBAL REAL *B = pw + QP_PW_B * ntot + xo, *R = pw + QP_PW_R * ntot + xo;
    GLOBAL REAL *Pd = pw + QP_PW_P * ntot + xo, *KP = pw + QP_PW_KP * ntot + xo;
    GLOBAL const REAL *MI = pw + QP_PW_MI * ntot + xo;
    GLOBAL REAL *tm = pw + QP_PW_NV * ntot + mt[QP_M_ZO];
    /* the QP's n + m entries of kb, after the earlier slots': [b₁; b₂] on entry; X, the CG
     * iterate, takes b₁'s place, so x̃ is left where qp_kkt_update reads it */
    GLOBAL REAL *X = kb + xo + mt[QP_M_ZO];
    GLOBAL const REAL *x0 = vn + QP_V_X * ntot + xo;
    GLOBAL REAL *ps = pst + (gidx)b * QP_NPST;
    /* B = b₁ + Aᵀ(ρ∘b₂) (rows of Aᵀ; b₂ = X[n ...] is only read), then X = x */
    for (int j = lid; j < n; j += WG) {
        REAL a = X[j];
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
            const int i = Tc[k];
            a += Tv[k] * qp_rho_row(ct[i], rho) * X[n + i];
        }
        B[j] = a;
        X[j] = x0[j];
    }
    GLOBAL_BARRIER();
    QP_PCG_AV(X, m);
    GLOBAL_BARRIER();
    REAL rn = 0, ry = 0, bn = 0;
    for (int j = lid; j < n; j += WG) {
        REAL kx;
        QP_PCG_KV(j, X, kx);
        const REAL r = B[j] - kx, y = MI[j] * r;
        R[j] = r;
        Pd[j] = y;
        rn = qp_max(rn, qp_abs(r));
        ry += r * y;
        bn = qp_max(bn, qp_abs(B[j]));
    }
    REAL rnorm, bnorm, rty, unused;
    QP_PCG_RED(rn, bn, ry, rnorm, bnorm, rty);
    const int admm = st[QP_S_ITER] + it0 + 1;
    REAL red = ps[QP_PS_RED], eps;
    int zero = (int)ps[QP_PS_ZERO];
    if (admm == 1) {
        red = tolfrac;
        zero = 0;
        eps = bnorm < QP_CG_TOL_MIN ? (REAL)1 : bnorm * red;
    } else {
        if (zero >= tolred) {
            red *= (REAL)0.5;
            zero = 0;
        }
        /* the residuals are this solve's once it has had a check (chk = 0: none, those of
         * the last solve or 0) */
        const REAL pd = inf[QP_I_SPRIM] * inf[QP_I_SDUAL], prev = ps[QP_PS_EPS];
        eps = (chk == 0 || admm > chk) && pd >= 0 && pd < QP_INFTY ? red * sqrt(pd) : prev;
        eps = eps < prev ? eps : prev;
        eps = eps > QP_CG_TOL_MIN ? eps : QP_CG_TOL_MIN;
    }
    int iters = 0, live = rnorm > eps, ncvx = 0;
    for (int it = 0; it < maxit && live; ++it) { /* live: the same in every work-item */
        GLOBAL_BARRIER();
        QP_PCG_AV(Pd, m);
        GLOBAL_BARRIER();
        REAL pk = 0;
        for (int j = lid; j < n; j += WG) {
            REAL kp;
            QP_PCG_KV(j, Pd, kp);
            KP[j] = kp;
            pk += Pd[j] * kp;
        }
        REAL pkp;
        QP_PCG_RED((REAL)0, (REAL)0, pk, unused, unused, pkp);
        if (!(pkp > 0)) {
            ncvx = 1;
            live = 0;
        }
        const REAL al = live ? rty / pkp : (REAL)0;
        rn = 0;
        ry = 0;
        for (int j = lid; j < (live ? n : 0); j += WG) {
            X[j] += al * Pd[j];
            const REAL r = R[j] - al * KP[j], y = MI[j] * r;
            R[j] = r;
            rn = qp_max(rn, qp_abs(r));
            ry += r * y;
        }
        REAL rnew, rtn;
        QP_PCG_RED(rn, (REAL)0, ry, rnew, unused, rtn);
        if (live) {
            ++iters;
            const REAL be = rtn / rty;
            rty = rtn;
            for (int j = lid; j < n; j += WG) Pd[j] = MI[j] * R[j] + be * Pd[j]; /* Y + βp */
            live = rnew > eps;
        }
    }
    if (lid == 0) {
        ps[QP_PS_EPS] = eps;
        ps[QP_PS_RED] = red;
        ps[QP_PS_ZERO] = (REAL)(iters == 0 ? zero + 1 : 0);
        if (ncvx) st[QP_S_STATUS] = 9;
    }
}

#endif /* QP_HAS(2) */
