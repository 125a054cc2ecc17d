/* ------------------------------------------------------------------------------------ */
/* Ruiz equilibration and cost scaling as OSQP's scale_data, one round per launch of        */
/* qp_scale_norms + qp_scale_update (the host loops `scaling` times), then qp_scale_apply.  */
/* D, E (1 on entry) and c = info[QP_I_C] (1 on entry) accumulate; the matrices are scaled     */
/* once, at the end, so norms are computed on the fly: |c·D_i P_ij D_j|, |E_i A_ij D_j|.   */
/* P's column norms are those of its upper triangle (i <= j; row j of the full symmetric P  */
/* restricted to columns <= j), in the Ruiz step and the cost scaling: OSQP 1.x's builtin   */
/* scale_data takes csc_col_norm_inf of the upper triangle it stores (OSQP 0.6 took the     */
/* symmetric matrix); so gala's scaling, and hence its iterates, are OSQP 1.x's.            */
/* One work-group per QP; R and YPREV hold the round's factors.                             */
/* (Separate kernels: PoCL mishandles several barrier regions inside a loop.)               */
/* ------------------------------------------------------------------------------------ */
#define QP_SCALE_PROLOGUE                                                                   \
    const gidx g = GRP(0);                                                                  \
    const int ok = g < nlist;                                                               \
    const int b = ok ? list[g] : 0;                                                         \
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;                                       \
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;                             \
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];                                          \
    QP_MATS(mt);                                                                            \
    GLOBAL REAL *Dv = vn + QP_V_D * ntot + xo, *Dt = vn + QP_V_R * ntot + xo;               \
    GLOBAL REAL *q = vn + QP_V_Q * ntot + xo;                                               \
    GLOBAL REAL *Ev = vm + QP_V_E * mtot + zo, *Et = vm + QP_V_YPREV * mtot + zo;           \
    const REAL c = info[(gidx)b * QP_NINFO + QP_I_C];                                       \
    const int lid = (int)LID(0)

KERNEL void qp_scale_norms(GALA_PARAMS(QP_ARGS_scale_norms))
{
    QP_SCALE_PROLOGUE;
    QP_VALS(mt, GLOBAL const);
    (void)q;
    for (int j = lid; j < n; j += WG) {
        REAL nrm = 0, dj = Dv[j];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] <= j) nrm = qp_max(nrm, qp_abs(c * dj * Pv[k] * Dv[Pc[k]]));
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) nrm = qp_max(nrm, qp_abs(Ev[Tc[k]] * Tv[k] * dj));
        Dt[j] = (REAL)1 / sqrt(qp_limit(nrm));
    }
    for (int i = lid; i < m; i += WG) {
        REAL nrm = 0, ei = Ev[i];
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) nrm = qp_max(nrm, qp_abs(ei * Av[k] * Dv[Ac[k]]));
        Et[i] = (REAL)1 / sqrt(qp_limit(nrm));
    }
}

KERNEL void qp_scale_update(GALA_PARAMS(QP_ARGS_scale_norms))
{
    LOCAL_ARRAY REAL part[4 * WG];
    QP_SCALE_PROLOGUE;
    QP_VALS(mt, GLOBAL const);
    (void)Ap;
    (void)Ac;
    (void)Tp;
    (void)Tc;
    (void)Av;
    (void)Tv;
    for (int j = lid; j < n; j += WG) Dv[j] *= Dt[j];
    for (int i = lid; i < m; i += WG) Ev[i] *= Et[i];
    GLOBAL_BARRIER();
    /* cost scaling: mean column norm of the scaled P and the norm of the scaled q */
    REAL sum = 0, qn = 0;
    for (int j = lid; j < n; j += WG) {
        REAL nrm = 0, dj = Dv[j];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] <= j) nrm = qp_max(nrm, qp_abs(c * dj * Pv[k] * Dv[Pc[k]]));
        sum += nrm;
        qn = qp_max(qn, qp_abs(c * dj * q[j]));
    }
    QP_RED4(part, lid, WG, 1, sum, qn, 0, 0, 1);
    if (ok && lid == 0) {
        REAL ct = qp_max(part[0] / (REAL)(n > 0 ? n : 1), qp_limit(part[WG]));
        info[(gidx)b * QP_NINFO + QP_I_C] = c / qp_limit(ct);
    }
}

KERNEL void qp_scale_apply(GALA_PARAMS(QP_ARGS_scale_apply))
{
    QP_SCALE_PROLOGUE;
    QP_VALS(mt, GLOBAL);
    (void)Dt;
    (void)Et;
    GLOBAL REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    for (int j = lid; j < n; j += WG) {
        REAL dj = Dv[j];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) Pv[k] *= c * dj * Dv[Pc[k]];
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) Tv[k] *= Ev[Tc[k]] * dj;
        q[j] *= c * dj;
    }
    for (int i = lid; i < m; i += WG) {
        REAL ei = Ev[i];
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) Av[k] *= ei * Dv[Ac[k]];
        REAL lv = l[i] * ei, uv = u[i] * ei;
        l[i] = lv;
        u[i] = uv;
        int t = 1;
        if (lv < -QP_INFV && uv > QP_INFV) t = 0;
        else if (uv - lv < (REAL)1e-4) t = 2;
        ctype[mt[QP_M_CO] + i] = rho_is_vec ? t : 1;
    }
}
