/* ------------------------------------------------------------------------------------ */
/* qp_form_k: for job g with flag[g] != 0: K = P + σI + Aᵀdiag(ρ)A (dense, column-major)  */
/* of QP jqp[g] with ρ = jrho[g·jrs + jro], at K[jko[g]·QP_KALIGN]. One work-group per job:  */
/* the block is zeroed by all work-items (coalesced), then work-item j owns column j:     */
/*     K(:, j) = P(:, j) + σe_j + Σ_{r: A_rj ≠ 0} ρ_r A_rj A(r, :)ᵀ                       */
/* With lower != 0 only K(i, j), i >= j, is formed (what a lower Cholesky reads).         */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_form_k(GALA_PARAMS(QP_ARGS_form_k))
{
    const int lid = (int)LID(0);
    const gidx g = GRP(0) < njobs ? GRP(0) : 0;
    const int active = GRP(0) < njobs && flag[g] != 0;
    const int b = jqp[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    /* no early exit around the barrier (PoCL): an inactive group runs every loop 0 times */
    const int n = active ? mt[QP_M_N] : 0;
    const gidx co = mt[QP_M_CO];
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    const REAL rho = jrho[g * jrs + jro];
    GLOBAL REAL *Kb = K + (gidx)jko[g] * QP_KALIGN;
    const gidx nn = (gidx)n * n;
    for (gidx idx = lid; idx < nn; idx += WG) Kb[idx] = 0;
    GLOBAL_BARRIER();
    for (int j = lid; j < n; j += WG) {
        GLOBAL REAL *col = Kb + (gidx)j * n;
        const int lo = lower ? j : 0;
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] >= lo) col[Pc[k]] += Pv[k];
        col[j] += sigma;
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
            const int r = Tc[k];
            const REAL w = qp_rho_row(ctype[co + r], rho) * Tv[k];
            for (int k2 = Ap[r]; k2 < Ap[r + 1]; ++k2)
                if (Ac[k2] >= lo) col[Ac[k2]] += w * Av[k2];
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_chol_inv: in place K ← K⁻¹ by the symmetric sweep (Gauss–Jordan without pivoting,   */
/* stable for SPD): for each k, with d = K(k,k) > 0:                                       */
/*     K(i,j) −= K(i,k)K(k,j)/d (i,j ≠ k);  K(i,k), K(k,j) /= d;  K(k,k) = −1/d           */
/* which leaves −K⁻¹; a pivot d ≤ 0 (or NaN) means K is not positive definite: jinfo[g] = */
/* k + 1, and with set_status the QP's status becomes NON_CVX (9). flag[g] is cleared.     */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_chol_inv(GALA_PARAMS(QP_ARGS_chol_inv))
{
    const int lid = (int)LID(0);
    /* one work-group per job; no early exit (return, continue, break) around barriers:
     * every work-item runs the same trip counts */
    {
        const gidx g = GRP(0) < njobs ? GRP(0) : 0;
        const int active = GRP(0) < njobs && flag[g] != 0;
        const int b = jqp[g];
        const int n = active ? meta[(gidx)b * QP_NMETA + QP_M_N] : 0;
        GLOBAL REAL *A = K + (gidx)jko[g] * QP_KALIGN;
        const gidx nn = (gidx)n * n;
        int fail = 0;
        GLOBAL_BARRIER();
        for (int k = 0; k < n; ++k) {
            const REAL d = A[(gidx)k * n + k];
            if (!fail && !(d > 0)) fail = k + 1;
            if (!fail) {
                for (gidx idx = lid; idx < nn; idx += WG) {
                    const gidx j = idx / n, i = idx - j * n;
                    if (i != k && j != k) A[idx] -= A[(gidx)k * n + i] * A[j * n + k] / d;
                }
            }
            GLOBAL_BARRIER();
            if (!fail) {
                for (int i = lid; i < n; i += WG) {
                    if (i != k) {
                        A[(gidx)k * n + i] /= d;
                        A[(gidx)i * n + k] /= d;
                    }
                }
                if (lid == 0) A[(gidx)k * n + k] = -(REAL)1 / d;
            }
            GLOBAL_BARRIER();
        }
        if (active && !fail)
            for (gidx idx = lid; idx < nn; idx += WG) A[idx] = -A[idx];
        if (active && lid == 0) {
            jinfo[g] = fail;
            flag[g] = 0;
            if (fail && set_status) state[(gidx)b * QP_NSTATE + QP_S_STATUS] = 9;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_mirror: for job g with flag[g] != 0: copy the lower triangle of the n×n matrix at    */
/* K[jko[g]·QP_KALIGN] to its upper triangle (after gala_potri, which writes one triangle);    */
/* with ok[g] != 0 only; clears flag[g]. One work-group per job, no barrier.               */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_mirror(GALA_PARAMS(QP_ARGS_mirror))
{
    const gidx g = GRP(0);
    if (g >= njobs || !flag[g]) return;
    const int n = meta[(gidx)jqp[g] * QP_NMETA + QP_M_N];
    GLOBAL REAL *A = K + (gidx)jko[g] * QP_KALIGN;
    const gidx nn = (gidx)n * n;
    for (gidx idx = LID(0); idx < nn; idx += WG) {
        const gidx j = idx / n, i = idx - j * n;
        if (i < j) A[idx] = A[i * n + j];
    }
}
