#if QP_HAS(2) /* the sparse and PCG strategies' kernels: qp_kkt_*, qp_pcg* */
/* ------------------------------------------------------------------------------------ */
/* The sparse strategy (src/qp/linsys_sparse.c). Each QP's quasi-definite KKT matrix         */
/*                                                                                          */
/*     [ P + σI        Aᵀ     ]    upper triangle, CSC, n + m columns: column j < n holds  */
/*     [   A      −diag(1/ρ)  ]    P's column j (+ σ on the diagonal), column n + i holds  */
/*                                 A's row i, then −1/ρ_i                                   */
/*                                                                                          */
/* is factored by gala_sparse_ldlt (one symbolic analysis per pair of P and A patterns);    */
/* one ADMM iteration is one batched sparse solve and qp_kkt_update (which also makes the  */
/* next right-hand side; qp_kkt_rhs a launch's first), the same iteration as qp_admm with   */
/* K⁻¹r replaced by the solve:                                                               */
/*     [x̃; ν] = KKT⁻¹ [σx − q; z − y/ρ],  x ← αx̃ + (1 − α)x,  z̃ = z + (ν − y)/ρ (= Ax̃),    */
/*     ẑ = αz̃ + (1 − α)z,  z ← Π(ẑ + y/ρ),  y ← y + ρ(ẑ − z).                               */
/* kq per slot (QP_NKQ ints): its matrix in the factor object, the offset of its group's value */
/* map, the KKT entries. Map entry 8·k + type: 0 P's CSR value k, 1 the same + σ (diagonal),*/
/* 2 σ alone (no diagonal entry in P), 3 A's CSR value k, 4 −1/ρ of row k. One work-group   */
/* per listed QP; kb holds one right-hand side (then solution) of n + m entries per matrix,*/
/* entry e of matrix q at kb[q·kbm + e·kbe] (interleaved: kbm = 1, kbe = batch).             */
/* ------------------------------------------------------------------------------------ */
/* 1/ρ of a row from the kernel's rv0 (free), rv1 (inequality), rv2 (equality), as OSQP's
 * rho_inv_vec: products instead of per-row divisions */
#define QP_RINV(c) ((c) == 0 ? rv0 : ((c) == 2 ? rv2 : rv1))

/* qp_kkt_rhs / _update / _resid: the listed QP of this work-group, if it still runs (else the
 * work-group returns: these kernels have no barrier), and its KKT column q0 = q·kbm. */
#define QP_KKT_QP                                                                           \
    const int lid = (int)LID(0);                                                            \
    const gidx g = GRP(0);                                                                  \
    if (g >= nlist) return;                                                                 \
    const int b = list[g];                                                                  \
    if (state[(gidx)b * QP_NSTATE + QP_S_STATUS] != 0) return;                              \
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;                                       \
    const int n = mt[QP_M_N], m = mt[QP_M_M];                                               \
    GLOBAL const int *ct = ctype + mt[QP_M_CO];                                             \
    const REAL rho = info[(gidx)b * QP_NINFO + QP_I_RHO];                                   \
    const gidx q0 = (gidx)kq[(gidx)b * QP_NKQ + QP_KQ_Q] * kbm

KERNEL void qp_kkt_values(GALA_PARAMS(QP_ARGS_kkt_values))
{
    const int lid = (int)LID(0);
    const gidx g = GRP(0);
    if (g >= nlist) return;
    const int b = list[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA, *k3 = kq + (gidx)b * QP_NKQ;
    GLOBAL const REAL *Pv = mv + mt[QP_M_PV], *Av = mv + mt[QP_M_AV];
    GLOBAL const int *map = kmap + k3[QP_KQ_MAP], *ct = ctype + mt[QP_M_CO];
    GLOBAL REAL *v = kv + (gidx)k3[QP_KQ_Q] * kstride;
    const REAL rho = info[(gidx)b * QP_NINFO + QP_I_RHO];
    const int nnz = k3[QP_KQ_NNZ];
    for (int e = lid; e < nnz; e += WG) {
        const int c = map[e], k = c >> 3, t = c & 7;
        REAL val;
        if (t == 0) val = Pv[k];
        else if (t == 1) val = Pv[k] + sigma;
        else if (t == 2) val = sigma;
        else if (t == 3) val = Av[k];
        else val = -(REAL)1 / qp_rho_row(ct[k], rho);
        v[e] = val;
    }
}

KERNEL void qp_kkt_rhs(GALA_PARAMS(QP_ARGS_kkt_rhs))
{
    QP_KKT_QP;
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    GLOBAL REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    GLOBAL const REAL *q = vn + QP_V_Q * ntot + xo;
    GLOBAL REAL *z = vm + QP_V_Z * mtot + zo, *y = vm + QP_V_Y * mtot + zo;
    GLOBAL REAL *yp = vm + QP_V_YPREV * mtot + zo;
    GLOBAL REAL *r = kb + q0;
    for (int j = lid; j < n; j += WG) {
        r[j * kbe] = sigma * x[j] - q[j];
        if (last) xp[j] = x[j];
    }
    const REAL rv0 = (REAL)1 / qp_rho_row(0, rho), rv1 = (REAL)1 / rho;
    const REAL rv2 = (REAL)1 / qp_rho_row(2, rho);
    for (int i = lid; i < m; i += WG) {
        r[(n + i) * kbe] = z[i] - QP_RINV(ct[i]) * y[i];
        if (last) yp[i] = y[i];
    }
}

KERNEL void qp_kkt_update(GALA_PARAMS(QP_ARGS_kkt_update))
{
    QP_KKT_QP;
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    GLOBAL const int *Ap = rp + mt[QP_M_AP], *Ac = ci + mt[QP_M_AC];
    GLOBAL const REAL *Av = mv + mt[QP_M_AV];
    GLOBAL REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    GLOBAL const REAL *q = vn + QP_V_Q * ntot + xo;
    GLOBAL REAL *z = vm + QP_V_Z * mtot + zo, *y = vm + QP_V_Y * mtot + zo;
    GLOBAL REAL *yp = vm + QP_V_YPREV * mtot + zo;
    GLOBAL const REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    GLOBAL const REAL *xt = kx + q0, *xc = kc + q0;
    /* QP_KKT_NEXT: the next iteration's right-hand side into kc, each entry after its read */
    GLOBAL REAL *r = kc + q0;
    const int fix = corr & QP_KKT_CORR, nu = corr & QP_KKT_NU;
    const int next = nu && (corr & QP_KKT_NEXT), nlast = next && (corr & QP_KKT_NEXT_LAST);
    const REAL rv0 = (REAL)1 / qp_rho_row(0, rho), rv1 = (REAL)1 / rho;
    const REAL rv2 = (REAL)1 / qp_rho_row(2, rho);
    /* x̃ (and ν) = the solve (+ its correction, refinement) */
#define QP_XT(e) (fix ? xt[(e) * kbe] + xc[(e) * kbe] : xt[(e) * kbe])
    for (int j = lid; j < n; j += WG) {
        const REAL xn = alpha * QP_XT(j) + ((REAL)1 - alpha) * x[j];
        x[j] = xn;
        if (next) { /* qp_kkt_rhs's, fused */
            r[j * kbe] = sigma * xn - q[j];
            if (nlast) xp[j] = xn;
        }
    }
    for (int i = lid; i < m; i += WG) {
        const REAL ri = qp_rho_row(ct[i], rho), rv = QP_RINV(ct[i]);
        const REAL zold = z[i], yold = y[i];
        REAL zt = 0;
        if (nu) { /* OSQP's z̃ = (z − y/ρ) + ν/ρ: the KKT solve's second block */
            zt = (zold - rv * yold) + rv * QP_XT(n + i);
        } else {
            for (int k = Ap[i]; k < Ap[i + 1]; ++k) zt += Av[k] * QP_XT(Ac[k]);
        }
        const REAL zh = alpha * zt + ((REAL)1 - alpha) * zold;
        REAL zn = zh + rv * yold;
        zn = zn < l[i] ? l[i] : zn;
        zn = zn > u[i] ? u[i] : zn;
        const REAL yn = yold + ri * (zh - zn);
        y[i] = yn;
        z[i] = zn;
        if (next) {
            r[(n + i) * kbe] = zn - rv * yn;
            if (nlast) yp[i] = yn;
        }
    }
    if (iters && lid == 0) state[(gidx)b * QP_NSTATE + QP_S_ITER] += iters;
#undef QP_XT
}

/* qp_kkt_resid (refinement, float by default): kb ← kb − KKT·kx, the residual of the solve
 * kx of the right-hand side kb, with KKT applied through P (full CSR), A and Aᵀ; the next
 * solve of kb is the correction qp_kkt_update adds. */
KERNEL void qp_kkt_resid(GALA_PARAMS(QP_ARGS_kkt_resid))
{
    QP_KKT_QP;
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    GLOBAL REAL *r = kb + q0;
    GLOBAL const REAL *v = kx + q0;
    for (int j = lid; j < n; j += WG) {
        REAL a = sigma * v[j * kbe];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) a += Pv[k] * v[Pc[k] * kbe];
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) a += Tv[k] * v[(n + Tc[k]) * kbe];
        r[j * kbe] -= a;
    }
    for (int i = lid; i < m; i += WG) {
        REAL a = -v[(n + i) * kbe] / qp_rho_row(ct[i], rho);
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) a += Av[k] * v[Ac[k] * kbe];
        r[(n + i) * kbe] -= a;
    }
}
#endif /* QP_HAS(2) */
