/* ------------------------------------------------------------------------------------ */
/* qp_expand: the CSR values of every listed QP from its raw CSC values (unscaled):        */
/*   P's upper CSC entry e -> rows map[PM + 2e] and (mirror, or -1) map[PM + 2e + 1] of the */
/*   full symmetric P; A's CSC entry e -> map[AM + e] in A's CSR and e in Aᵀ's (A's CSC). */
/*     raw: [P.x (PNZ) | A.x (ANZ)]  --map-->  mv: [P rows | A rows | Aᵀ rows]              */
/* One work-group per QP, no barrier.                                                      */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_expand(GALA_PARAMS(QP_ARGS_expand))
{
    const int lid = (int)LID(0);
    for (gidx g = GRP(0); g < nlist; g += NGRP(0)) {
        GLOBAL const int *mt = meta + (gidx)list[g] * QP_NMETA;
        const int pnz = mt[QP_M_PNZ], anz = mt[QP_M_ANZ];
        GLOBAL const REAL *r = raw + mt[QP_M_RO];
        GLOBAL const int *pm = map + mt[QP_M_PM], *am = map + mt[QP_M_AM];
        QP_VALS(mt, GLOBAL);
        for (int e = lid; e < pnz; e += WG) {
            const REAL v = r[e];
            Pv[pm[2 * e]] = v;
            if (pm[2 * e + 1] >= 0) Pv[pm[2 * e + 1]] = v;
        }
        for (int e = lid; e < anz; e += WG) {
            const REAL v = r[pnz + e];
            Av[am[e]] = v;
            Tv[e] = v;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_init: per listed QP before scaling: info = (ρ = rho unless keep_rho, c = 1, the     */
/* rest 0), D = 1, E = 1, state = (running, or INVALID where hstat != 0; 0 iterations,    */
/* 0 ρ updates, rung rung0). One work-group per QP, no barrier.                            */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_init(GALA_PARAMS(QP_ARGS_init))
{
    const int lid = (int)LID(0);
    for (gidx g = GRP(0); g < nlist; g += NGRP(0)) {
        const int b = list[g];
        GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        GLOBAL REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
        for (int j = lid; j < n; j += WG) D[j] = 1;
        for (int i = lid; i < m; i += WG) E[i] = 1;
        if (lid < QP_NINFO && !(lid == QP_I_RHO && keep_rho))
            info[(gidx)b * QP_NINFO + lid] = lid == QP_I_RHO ? rho : (lid == QP_I_C ? (REAL)1 : (REAL)0);
        if (lid == 0) {
            GLOBAL int *st = state + (gidx)b * QP_NSTATE;
            QP_STATE_INIT(st, hstat[b], rung0);
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_reset: the state of every slot before a solve (keep != 0: the ladder rung and a     */
/* NON_CVX status stay) or after an update (keep = 0: rung = rung0): status INVALID where  */
/* hstat != 0, else running; iterations and ρ updates 0. One work-item per slot.          */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_reset(GALA_PARAMS(QP_ARGS_reset))
{
    const gidx b = GID(0);
    if (b >= nslots) return;
    GLOBAL int *st = state + b * QP_NSTATE;
    QP_STATE_RESET(st, hstat[b], keep, rung0);
}

/* A shared-strategy QP b whose row kinds were compared with the batch's (first: the first
 * row that differs, or -1): INVALID with hstat = QP_H_KIND + first, or such an earlier mark
 * (gone after an update) cleared; invalid data (QP_H_HOST) stay so whatever the kinds. */
DEVFN void qp_kind_mark(GLOBAL int *hstat, GLOBAL int *state, const int b, const int first)
{
    QP_KIND_MARK(hstat, state, b, first, gidx);
}

/* ------------------------------------------------------------------------------------ */
/* qp_shared_apply (shared strategy): list[0] is the reference QP, already scaled; every   */
/* other listed QP takes its D, E and c, scales its own q, l, u and compares its row kinds */
/* with the reference's ctype[0 .. m): a difference makes it INVALID (hstat = QP_H_KIND + the */
/* first such row; an earlier such mark is cleared when the kinds agree again). One        */
/* work-group per QP.                                                                      */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_shared_apply(GALA_PARAMS(QP_ARGS_shared_apply))
{
    LOCAL_ARRAY REAL part[4 * WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0);
    const int ok = g > 0 && g < nlist;
    const int b = ok ? list[g] : list[0], r = list[0];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA, *mr = meta + (gidx)r * QP_NMETA;
    /* no early exit around barriers: the reference's group runs its loops 0 times */
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    GLOBAL REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
    GLOBAL const REAL *D0 = vn + QP_V_D * ntot + mr[QP_M_XO], *E0 = vm + QP_V_E * mtot + mr[QP_M_ZO];
    GLOBAL REAL *q = vn + QP_V_Q * ntot + mt[QP_M_XO];
    GLOBAL REAL *l = vm + QP_V_L * mtot + mt[QP_M_ZO], *u = vm + QP_V_U * mtot + mt[QP_M_ZO];
    const REAL c = info[(gidx)r * QP_NINFO + QP_I_C];
    for (int j = lid; j < n; j += WG) {
        D[j] = D0[j];
        q[j] *= c * D0[j];
    }
    REAL first = 0; /* m − (first row whose kind differs), 0 if none */
    for (int i = lid; i < m; i += WG) {
        const REAL e = E0[i], lv = l[i] * e, uv = u[i] * e;
        E[i] = e;
        l[i] = lv;
        u[i] = uv;
        int t = 1;
        if (lv < -QP_INFV && uv > QP_INFV) t = 0;
        else if (uv - lv < (REAL)1e-4) t = 2;
        if ((rho_is_vec ? t : 1) != ctype[mr[QP_M_CO] + i] && first == 0) first = (REAL)(m - i);
    }
    QP_RED4(part, lid, WG, 1, first, 0, 0, 0, 0);
    if (ok && lid == 0) {
        info[(gidx)b * QP_NINFO + QP_I_C] = c;
        qp_kind_mark(hstat, state, b, part[0] > 0 ? m - (int)part[0] : -1);
    }
}
