/* ------------------------------------------------------------------------------------ */
/* qp_vec_update (gala_qp_update_vectors): the listed QPs' new q (which & 1), l (& 2) and  */
/* u (& 4) were written unscaled into Q, L, U: scale them with the QP's D, E, c and        */
/* recompute the row kinds. A changed kind updates ctype and asks for a refactorization    */
/* (refac); with shared != 0 (kinds shared by the batch) it makes the QP INVALID as        */
/* qp_shared_apply does (hstat = QP_H_KIND + the first such row), and agreeing kinds clear    */
/* such an earlier mark. One work-group per QP.                                            */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_vec_update(GALA_PARAMS(QP_ARGS_vec_update))
{
    LOCAL_ARRAY REAL part[4 * WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0) < nlist ? GRP(0) : 0;
    const int ok = GRP(0) < nlist;
    const int b = list[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    GLOBAL const REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
    GLOBAL REAL *q = vn + QP_V_Q * ntot + mt[QP_M_XO];
    GLOBAL REAL *l = vm + QP_V_L * mtot + mt[QP_M_ZO], *u = vm + QP_V_U * mtot + mt[QP_M_ZO];
    GLOBAL int *ct = ctype + mt[QP_M_CO];
    const REAL c = info[(gidx)b * QP_NINFO + QP_I_C];
    if (which & 1)
        for (int j = lid; j < n; j += WG) q[j] *= c * D[j];
    REAL first = 0; /* m − (first row whose kind changed), 0 if none */
    for (int i = lid; i < m; i += WG) {
        const REAL lv = (which & 2) ? l[i] * E[i] : l[i], uv = (which & 4) ? u[i] * E[i] : u[i];
        l[i] = lv;
        u[i] = uv;
        int t = 1;
        if (lv < -QP_INFV && uv > QP_INFV) t = 0;
        else if (uv - lv < (REAL)1e-4) t = 2;
        t = rho_is_vec ? t : 1;
        if (t != ct[i]) {
            if (first == 0) first = (REAL)(m - i);
            if (!shared) ct[i] = t;
        }
    }
    QP_RED4(part, lid, WG, 1, first, 0, 0, 0, 0);
    if (ok && lid == 0) {
        if (!shared) {
            if (part[0] > 0) refac[b] = 1;
        } else {
            qp_kind_mark(hstat, state, b, part[0] > 0 ? m - (int)part[0] : -1);
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_warm (gala_qp_warm_start): the listed QPs' x (which & 1) and y (which & 2) were      */
/* written unscaled into XT and YPREV: x = x/D, y = c·y/E (scaled), then z = A x when x   */
/* was given (OSQP's warm start). Not W: W2 and W keep the last solve's unscaled results   */
/* (qp_unscale) until the next solve, for gala_qp_get_solution_device. YPREV is scratch    */
/* between solves (the scaling uses it too; an iteration writes it before a check reads    */
/* it). One work-group per QP.                                                             */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_warm(GALA_PARAMS(QP_ARGS_warm))
{
    const int lid = (int)LID(0);
    const gidx g = GRP(0) < nlist ? GRP(0) : 0;
    const int ok = GRP(0) < nlist;
    const int b = list[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    (void)Pp;
    (void)Pc;
    (void)Tp;
    (void)Tc;
    (void)Pv;
    (void)Tv;
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    GLOBAL REAL *x = vn + QP_V_X * ntot + xo, *y = vm + QP_V_Y * mtot + zo, *z = vm + QP_V_Z * mtot + zo;
    GLOBAL const REAL *xr = vn + QP_V_XT * ntot + xo, *yr = vm + QP_V_YPREV * mtot + zo;
    GLOBAL const REAL *D = vn + QP_V_D * ntot + xo, *E = vm + QP_V_E * mtot + zo;
    const REAL c = info[(gidx)b * QP_NINFO + QP_I_C];
    if (which & 1)
        for (int j = lid; j < n; j += WG) x[j] = xr[j] / D[j];
    if (which & 2)
        for (int i = lid; i < m; i += WG) y[i] = c * yr[i] / E[i];
    GLOBAL_BARRIER();
    if (which & 1)
        for (int i = lid; i < m; i += WG) {
            REAL s = 0;
            for (int k = Ap[i]; k < Ap[i + 1]; ++k) s += Av[k] * x[Ac[k]];
            z[i] = s;
        }
}
