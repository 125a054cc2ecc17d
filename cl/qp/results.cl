/* ------------------------------------------------------------------------------------ */
/* qp_unscale (results): per listed QP, into the output n-vector W2 and m-vector W:        */
/*   with a solution (status 1, 2, 7, 8, 10): x = D∘x, y = E∘y/c                          */
/*   primal infeasible (3, 4): W = E∘Π(y − y_prev) / its ‖·‖∞ (the certificate)          */
/*   dual infeasible (5, 6):   W2 = D∘(x − x_prev) / its ‖·‖∞                            */
/* Π: projection on the polar of the recession cone of [l, u]. One work-group per QP.    */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_unscale(GALA_PARAMS(QP_ARGS_unscale))
{
    LOCAL_ARRAY REAL part[4 * WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0) < nlist ? GRP(0) : 0;
    const int ok = GRP(0) < nlist;
    const int b = list[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int st = state[(gidx)b * QP_NSTATE + QP_S_STATUS];
    const int sol = st == 1 || st == 2 || st == 7 || st == 8 || st == 10;
    const int pinf = st == 3 || st == 4, dinf = st == 5 || st == 6;
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    GLOBAL const REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    GLOBAL const REAL *D = vn + QP_V_D * ntot + xo, *E = vm + QP_V_E * mtot + zo;
    GLOBAL const REAL *y = vm + QP_V_Y * mtot + zo, *yp = vm + QP_V_YPREV * mtot + zo;
    GLOBAL const REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    GLOBAL REAL *ox = vn + QP_V_W2 * ntot + xo, *oy = vm + QP_V_W * mtot + zo;
    const REAL c = info[(gidx)b * QP_NINFO + QP_I_C];
    REAL nx = 0, ny = 0;
    for (int j = lid; j < n; j += WG) {
        const REAL v = sol ? D[j] * x[j] : (dinf ? D[j] * (x[j] - xp[j]) : (REAL)0);
        ox[j] = v;
        nx = qp_max(nx, qp_abs(v));
    }
    for (int i = lid; i < m; i += WG) {
        const REAL v = sol ? E[i] * y[i] / c : (pinf ? E[i] * qp_polar(y[i] - yp[i], l[i], u[i]) : (REAL)0);
        oy[i] = v;
        ny = qp_max(ny, qp_abs(v));
    }
    QP_RED4(part, lid, WG, 1, nx, ny, 0, 0, 0);
    const REAL sx = part[0], sy = part[WG];
    if (dinf && sx > 0)
        for (int j = lid; j < n; j += WG) ox[j] /= sx;
    if (pinf && sy > 0)
        for (int i = lid; i < m; i += WG) oy[i] /= sy;
}

/* ------------------------------------------------------------------------------------ */
/* qp_count: out[0] = QPs still running, out[1] = QPs waiting for a refactorization.       */
/* One work-group.                                                                         */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_count(GALA_PARAMS(QP_ARGS_count))
{
    LOCAL_ARRAY int c0[WG];
    LOCAL_ARRAY int c1[WG];
    const int lid = (int)LID(0);
    int a = 0, r = 0;
    for (int g = lid; g < nlist; g += WG) {
        const int b = list[g];
        a += state[(gidx)b * QP_NSTATE + QP_S_STATUS] == 0;
        r += refac[b] != 0;
    }
    c0[lid] = a;
    c1[lid] = r;
    for (int s = WG >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lid < s) {
            c0[lid] += c0[lid + s];
            c1[lid] += c1[lid + s];
        }
    }
    if (lid == 0) {
        out[0] = c0[0];
        out[1] = c1[0];
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_compact_count, qp_compact_write: the QPs of a launch list that are still running,   */
/* in list order, into alist (gala_qp_compact), so that qp_admm and qp_check launch one    */
/* work-group per running tile, not per listed one. One work-group per chunk of WG list    */
/* entries; the first kernel counts each chunk's running QPs into ccnt[chunk], the second */
/* gives the chunk its offset (the counts before it) and each running entry its rank in    */
/* the chunk, and the last chunk writes the total to out[slot].                            */
/*                                                                                         */
/*   list   [ a  b  c  d | e  f  g  h | i  j ]   chunks of WG (here 4)                    */
/*   running  1  0  1  1   0  0  1  0   1  1                                               */
/*   ccnt   [     3      |     1      |  2   ]   offsets 0, 3, 4; out[slot] = 6            */
/*   alist  [ a  c  d  g  i  j ]                                                           */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_compact_count(GALA_PARAMS(QP_ARGS_compact_count))
{
    LOCAL_ARRAY int c0[WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0), e = g * WG + lid;
    c0[lid] = e < nlist && state[(gidx)list[e] * QP_NSTATE + QP_S_STATUS] == 0;
    for (int s = WG >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lid < s) c0[lid] += c0[lid + s];
    }
    if (lid == 0) ccnt[g] = c0[0];
}

KERNEL void qp_compact_write(GALA_PARAMS(QP_ARGS_compact_write))
{
    LOCAL_ARRAY int c0[WG];
    LOCAL_ARRAY int fl[WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0), e = g * WG + lid;
    const int nchunks = (nlist + WG - 1) / WG;
    int before = 0;
    for (gidx k = lid; k < g; k += WG) before += ccnt[k];
    c0[lid] = before;
    const int run = e < nlist && state[(gidx)list[e] * QP_NSTATE + QP_S_STATUS] == 0;
    fl[lid] = run;
    for (int s = WG >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lid < s) c0[lid] += c0[lid + s];
    }
    LOCAL_BARRIER();
    if (run) {
        int rank = 0;
        for (int k = 0; k < lid; ++k) rank += fl[k];
        alist[c0[0] + rank] = list[e];
    }
    if (lid == 0 && g == nchunks - 1) out[slot] = c0[0] + ccnt[g];
}
