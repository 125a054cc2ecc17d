/* ------------------------------------------------------------------------------------ */
/* Vectors in the caller's device memory (src/qp/vectors_device.c). The caller's arrays    */
/* hold every QP's vector one after another in batch order, QPs rejected at setup too;    */
/* qtab[k·QP_NQT + ...] gives QP k's slot (or -1), n, m and offsets there (XO, ZO):          */
/*                                                                                         */
/*   caller q  [ QP 0: n0 | QP 1 (rejected): n1 | QP 2: n2 ]    l, u, x, y alike           */
/*                  |                              |                                       */
/*   slots     [ slot 0   |              slot 1    ]            (vn, vm sections, raw)     */
/* ------------------------------------------------------------------------------------ */

DEVFN int qp_finite(REAL v) { return v == v && v != REAL_INF && v != -REAL_INF; }
DEVFN REAL qp_clamp_inf(REAL v) { return v > QP_INFTY ? QP_INFTY : (v < -QP_INFTY ? -QP_INFTY : v); }
/* invalid bounds of one row, as gala_qp_update_vectors tests them */
DEVFN int qp_bounds_bad(REAL lv, REAL uv)
{
    return lv != lv || uv != uv || lv > uv || lv == REAL_INF || uv == -REAL_INF;
}

/* ------------------------------------------------------------------------------------ */
/* qp_vec_check, qp_vec_in (gala_qp_update_vectors_device): every QP's new q (which & 1),  */
/* l (& 2) and u (& 4) from the caller's buffers, validated as gala_qp_update_vectors      */
/* validates them, then put into the slot layout, unscaled (qp_vec_update scales them):    */
/*                                                                                         */
/*   caller q, l, u --qp_vec_check--> verd, vbad, hstat   (per slot)                       */
/*                  --qp_vec_in-----> raw [ q (ntot) | l (mtot) | u (mtot) ]  kept copy,   */
/*                                    vn Q, vm L, U        bounds clamped to ±1e30         */
/*                                                                                         */
/* qp_vec_check: valid means q finite and per row no NaN, l ≤ u, l < +∞, u > −∞, with a    */
/* NULL vector's kept values from raw. verd[2b], verd[2b + 1]: the VD code (0 valid, 1 q,  */
/* 2 bounds) and the first bad entry or row; vbad[2b], vbad[2b + 1]: its values (q: one;   */
/* bounds: l, u); hstat = QP_H_HOST when invalid, an QP_H_HOST mark cleared when valid.          */
/* qp_vec_in, by the verdict: valid, the new values go to raw and to the given sections;   */
/* invalid, raw keeps its values and the given sections get them again (as the host path   */
/* uploads its kept copies). Two kernels, not the copies after the reduction's barrier    */
/* loop: PoCL has lost writes of such regions (docs/qp.md, "Limitations"), and the copies  */
/* need no barrier. One work-group per QP (count groups); rejected QPs (slot -1) do        */
/* nothing.                                                                                */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_vec_check(GALA_PARAMS(QP_ARGS_vec_check))
{
    LOCAL_ARRAY int rq_[WG];
    LOCAL_ARRAY int rl_[WG];
    const int lid = (int)LID(0);
    const gidx k = GRP(0) < count ? GRP(0) : 0;
    GLOBAL const int *qt = qtab + k * QP_NQT;
    const int b = qt[QP_T_SLOT];
    const int ok = GRP(0) < count && b >= 0;
    GLOBAL const int *mt = meta + (gidx)(b >= 0 ? b : 0) * QP_NMETA;
    /* no early exit around the barriers: a rejected QP's group runs its loops 0 times */
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    const gidx cq = qoff + qt[QP_T_XO], cl = loff + qt[QP_T_ZO], cu = uoff + qt[QP_T_ZO];
    GLOBAL const REAL *rl = raw + ntot + mt[QP_M_ZO], *ru = raw + ntot + mtot + mt[QP_M_ZO];
    const int wq = which & 1, wl = which & 2, wu = which & 4;
    int bq = n, bl = m; /* this work-item's first bad entry of q, first bad row */
    for (int j = lid; wq && j < n; j += WG)
        if (bq == n && !qp_finite(q[cq + j])) bq = j;
    for (int i = lid; i < m; i += WG) {
        const REAL lv = wl ? l[cl + i] : rl[i], uv = wu ? u[cu + i] : ru[i];
        if (bl == m && qp_bounds_bad(lv, uv)) bl = i;
    }
    rq_[lid] = bq;
    rl_[lid] = bl;
    for (int s = WG >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lid < s) {
            rq_[lid] = min(rq_[lid], rq_[lid + s]);
            rl_[lid] = min(rl_[lid], rl_[lid + s]);
        }
    }
    if (ok && lid == 0) { /* work-item 0 made the last step of the tree */
        const int fq = rq_[0], fl = rl_[0];
        const int code = fq < n ? 1 : (fl < m ? 2 : 0);
        verd[2 * (gidx)b] = code;
        verd[2 * (gidx)b + 1] = code == 1 ? fq : (code == 2 ? fl : 0);
        vbad[2 * (gidx)b] = code == 1 ? q[cq + fq] : (code == 2 ? (wl ? l[cl + fl] : rl[fl]) : (REAL)0);
        vbad[2 * (gidx)b + 1] = code == 2 ? (wu ? u[cu + fl] : ru[fl]) : (REAL)0;
        if (code) hstat[b] = QP_H_HOST;
        else if (hstat[b] == QP_H_HOST) hstat[b] = 0;
    }
}

KERNEL void qp_vec_in(GALA_PARAMS(QP_ARGS_vec_in))
{
    const int lid = (int)LID(0);
    for (gidx k = GRP(0); k < count; k += NGRP(0)) {
        GLOBAL const int *qt = qtab + k * QP_NQT;
        const int b = qt[QP_T_SLOT];
        if (b < 0) continue;
        GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M], valid = verd[2 * (gidx)b] == 0;
        const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
        const gidx cq = qoff + qt[QP_T_XO], cl = loff + qt[QP_T_ZO], cu = uoff + qt[QP_T_ZO];
        GLOBAL REAL *rq = raw + xo, *rl = raw + ntot + zo, *ru = raw + ntot + mtot + zo;
        GLOBAL REAL *Q = vn + QP_V_Q * ntot + xo, *L = vm + QP_V_L * mtot + zo, *U = vm + QP_V_U * mtot + zo;
        for (int j = lid; (which & 1) && j < n; j += WG) {
            const REAL v = valid ? q[cq + j] : rq[j];
            rq[j] = v;
            Q[j] = v;
        }
        for (int i = lid; (which & 2) && i < m; i += WG) {
            const REAL v = valid ? qp_clamp_inf(l[cl + i]) : rl[i];
            rl[i] = v;
            L[i] = v;
        }
        for (int i = lid; (which & 4) && i < m; i += WG) {
            const REAL v = valid ? qp_clamp_inf(u[cu + i]) : ru[i];
            ru[i] = v;
            U[i] = v;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_sol_out (gala_qp_get_solution_device): every QP's unscaled x (which & 1) and y (& 2) */
/* of the last solve, from the output sections (qp_unscale) into the caller's buffers:    */
/*                                                                                         */
/*   vn W2 [ slot 0 | slot 1 ]  -->  x [ QP 0: n0 | QP 1: NaN (n1) | QP 2: n2 ]            */
/*   vm W  [ slot 0 | slot 1 ]  -->  y [ QP 0: m0 | QP 1: NaN (m1) | QP 2: m2 ]            */
/*                                                                                         */
/* NaN where osol[k] = 0 (no solution: not solved, infeasible, non-convex, invalid data,  */
/* rejected at setup). One work-group per QP, no barrier.                                  */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_sol_out(GALA_PARAMS(QP_ARGS_sol_out))
{
    const int lid = (int)LID(0);
    for (gidx k = GRP(0); k < count; k += NGRP(0)) {
        GLOBAL const int *qt = qtab + k * QP_NQT;
        const int b = qt[QP_T_SLOT], n = qt[QP_T_N], m = qt[QP_T_M];
        const int sol = b >= 0 && osol[k];
        GLOBAL const int *mt = meta + (gidx)(sol ? b : 0) * QP_NMETA;
        GLOBAL const REAL *ox = vn + QP_V_W2 * ntot + mt[QP_M_XO], *oy = vm + QP_V_W * mtot + mt[QP_M_ZO];
        const gidx cx = xoff + qt[QP_T_XO], cy = yoff + qt[QP_T_ZO];
        for (int j = lid; (which & 1) && j < n; j += WG) x[cx + j] = sol ? ox[j] : REAL_NAN;
        for (int i = lid; (which & 2) && i < m; i += WG) y[cy + i] = sol ? oy[i] : REAL_NAN;
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_warm_in (gala_qp_warm_start_device): every QP's x (which & 1) and y (& 2) from the  */
/* caller's buffers into XT and YPREV of its slot, unscaled, for qp_warm:                 */
/*   x [ QP 0: n0 | QP 1 (rejected) | QP 2: n2 ]  -->  vn XT [ slot 0 | slot 1 ]           */
/* One work-group per QP, no barrier.                                                      */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_warm_in(GALA_PARAMS(QP_ARGS_warm_in))
{
    const int lid = (int)LID(0);
    for (gidx k = GRP(0); k < count; k += NGRP(0)) {
        GLOBAL const int *qt = qtab + k * QP_NQT;
        const int b = qt[QP_T_SLOT];
        if (b < 0) continue;
        GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        GLOBAL REAL *tx = vn + QP_V_XT * ntot + mt[QP_M_XO], *ty = vm + QP_V_YPREV * mtot + mt[QP_M_ZO];
        for (int j = lid; (which & 1) && j < n; j += WG) tx[j] = x[xoff + qt[QP_T_XO] + j];
        for (int i = lid; (which & 2) && i < m; i += WG) ty[i] = y[yoff + qt[QP_T_ZO] + i];
    }
}
