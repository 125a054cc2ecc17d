/* Solution polishing (OSQP's polish.c, on the host in double, per solved QP): guess the
 * active constraints from the scaled z, y; solve the reduced KKT system
 *     [P̂ + δI   Â_actᵀ] [x̂]   [−q̂   ]
 *     [Â_act    −δI   ] [ŷ_a] = [b_act]
 * by a sparse LDLᵀ (quasi-definite: no pivoting needed) in the order of its pattern
 * with `polish_refine_iter` steps of iterative refinement against the unregularized matrix;
 * accept the result when its residuals are smaller, as OSQP does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qd_ldlt.h"
#include "qp_polish.h"

/* Copy factor F (order N = n + na; active rows row[0..na)) and the scaling into *rec
 * (grown if needed, within the budget; dropped when it does not fit). */
static void keep_fact(const qp_keep *kp, const gala_qd_fact *F, int n, int na, const int *row,
                      const double *D, const double *E, double c)
{
    qp_kept *r = *kp->rec;
    const int N = F->N, nl = F->lp[N];
    const size_t nd = (size_t)nl + 3 * (size_t)N + (size_t)n + (size_t)na;
    const size_t ni = (size_t)nl + 3 * (size_t)N + 1 + (size_t)na;
    const size_t need = sizeof(qp_kept) + sizeof(double) * nd + sizeof(int) * ni;
    if (r && (r->bytes < need || need > *kp->left)) {
        gala_free(r);
        r = *kp->rec = NULL;
    }
    if (need > *kp->left) return;
    if (!r) {
        if (!(r = *kp->rec = gala_malloc(need))) return;
        r->bytes = need;
    }
    *kp->left -= r->bytes < *kp->left ? r->bytes : *kp->left;
    double *dv = (double *)(r + 1);
    int *iv = (int *)(dv + nd);
    r->gen = kp->gen;
    r->N = N;
    r->n = n;
    r->na = na;
    r->flops = F->flops;
    r->F = *F;
    r->F.lx = dv;
    r->F.d = dv + nl;
    r->F.t = r->F.d + N;
    r->sx = r->F.t + N;
    r->sc = r->sx + n;
    r->F.lp = iv;
    r->F.lnz = iv + N + 1;
    r->F.li = r->F.lnz + N;
    r->F.perm = F->perm ? r->F.li + nl : NULL;
    r->arow = r->F.li + nl + N;
    memcpy(r->F.lx, F->lx, sizeof(double) * (size_t)nl);
    memcpy(r->F.d, F->d, sizeof(double) * (size_t)N);
    memcpy(r->F.lp, F->lp, sizeof(int) * ((size_t)N + 1));
    memcpy(r->F.lnz, F->lnz, sizeof(int) * (size_t)N);
    memcpy(r->F.li, F->li, sizeof(int) * (size_t)nl);
    if (F->perm) memcpy(r->F.perm, F->perm, sizeof(int) * (size_t)N);
    memcpy(r->arow, row, sizeof(int) * (size_t)na);
    const double rc = sqrt(c);
    for (int j = 0; j < n; ++j) r->sx[j] = rc * D[j];
    for (int a = 0; a < na; ++a) r->sc[a] = E[row[a]] / rc;
}

void gala_qp_kept_free(qp_kept **recs, int count)
{
    for (int k = 0; recs && k < count; ++k) {
        gala_free(recs[k]);
        recs[k] = NULL;
    }
}

int gala_qp_polish_one(const gala_qp_problem *p, const int *order, double order_flops,
                       gala_host_scratch ws[4],
                       const double *D, const double *E, double c,
                       const double *zs, const double *ys, const double *ls,
                       const double *us, double delta, int refine, double prim_res,
                       double dual_res, double *x, double *y, double *obj, double *prim_out,
                       double *dual_out, const qp_keep *keep)
{
    int n = p->n, m = p->m;
    int *act = gala_host_scratch_get(&ws[3], sizeof(int) * (size_t)(m + 1));
    if (!act) return -2;
    int na = 0;
    for (int i = 0; i < m; ++i) {
        if (zs[i] - ls[i] < -ys[i] || p->l[i] == p->u[i]) act[i] = -1;
        else if (us[i] - zs[i] < ys[i]) act[i] = 1;
        else act[i] = 0;
        na += act[i] != 0;
    }
    if (na == 0) return 2;
    int N = n + na;
    /* K0's upper triangle: P's stored entries (upper, rows ascending: validated) and those of
     * A's active rows, plus room for every diagonal */
    int nu = N;
    nu += p->P.p[n];
    for (int e = 0; e < p->A.p[n]; ++e) nu += act[p->A.i[e]] != 0;
    /* one block for everything but the factorization (ws[0], ws[1]): the vectors, K's upper
     * triangle by columns (ux; K0's diagonal d0; up, ui) and the rows' positions */
    const size_t nd = 4 * (size_t)N + (size_t)(m + 1) + (size_t)n + (size_t)nu;
    const size_t ni = (size_t)na + (size_t)(m + 1) + 2 * ((size_t)N + 2) + (size_t)nu;
    double *b = gala_host_scratch_get(&ws[2], sizeof(double) * nd + sizeof(int) * ni);
    if (!b) return -2;
    memset(b, 0, sizeof(double) * nd);
    double *sol = b + N, *r = sol + N, *d0 = r + N;
    double *ax = d0 + N, *res = ax + (m + 1), *ux = res + n;
    int *row = (int *)(b + nd), *pos = row + na, *up = pos + (m + 1), *fill = up + (N + 2);
    int *ui = fill + (N + 2);
    for (int i = 0, a = 0; i < m; ++i) {
        pos[i] = -1;
        if (act[i]) { row[a] = i; pos[i] = n + a; ++a; }
    }
    /* unregularized K0 in the scaled space (d0: its diagonal), K = K0 + diag(δ, −δ), by the
     * columns of its upper triangle */
    gala_qd_kkt(n, na, p->P.p, p->P.i, p->P.x, p->A.p, p->A.i, p->A.x, pos, row, c, D, E, delta,
                NULL, delta, up, ui, ux, d0, fill);
    for (int j = 0; j < n; ++j) b[j] = -c * D[j] * p->q[j];
    for (int a = 0; a < na; ++a) {
        int i = row[a];
        b[n + a] = act[i] < 0 ? ls[i] : us[i];
    }
    gala_qd_fact F;
    if (gala_qd_fact_make(&F, ws, n, m, pos, order, order_flops, N, up, ui, ux, INFINITY))
        return -2;
    memcpy(sol, b, sizeof(double) * (size_t)N);
    gala_qd_fact_solve(&F, sol);
    for (int it = 0; it < refine; ++it) {
        /* r = b − K0·sol from K0's upper triangle (each off-diagonal entry twice) */
        for (int j = 0; j < N; ++j) {
            double v = b[j] - d0[j] * sol[j];
            const double sj = sol[j];
            for (int e = up[j]; e < up[j + 1] - 1; ++e) {
                v -= ux[e] * sol[ui[e]];
                r[ui[e]] -= ux[e] * sj;
            }
            r[j] = v;
        }
        gala_qd_fact_solve(&F, r);
        for (int i = 0; i < N; ++i) sol[i] += r[i];
    }
    /* scaled polished iterates: ŷ from the active rows, then OSQP's projection trick
     * y ← (ŷ + Âx̂) − Π(ŷ + Âx̂), z = Π(ŷ + Âx̂) */
    for (int j = 0; j < n; ++j)
        for (int e = p->A.p[j]; e < p->A.p[j + 1]; ++e) ax[p->A.i[e]] += E[p->A.i[e]] * p->A.x[e] * D[j] * sol[j];
    double pr = 0, du = 0, o = p->c0;
    for (int i = 0; i < m; ++i) {
        double yi = pos[i] >= 0 ? sol[pos[i]] : 0;
        double t = yi + ax[i], zc = t < ls[i] ? ls[i] : (t > us[i] ? us[i] : t);
        double yp = t - zc;
        y[i] = E[i] * yp / c;                     /* unscaled */
        pr = fmax(pr, fabs(ax[i] - zc) / E[i]);   /* ‖E⁻¹(Âx̂ − ẑ)‖∞ */
    }
    for (int j = 0; j < n; ++j) x[j] = D[j] * sol[j];
    /* dual residual and objective, unscaled: Px + q + Aᵀy */
    for (int j = 0; j < n; ++j) {
        res[j] += p->q[j];
        o += p->q[j] * x[j];
        for (int e = p->P.p[j]; e < p->P.p[j + 1]; ++e) {
            int i = p->P.i[e];
            res[i] += p->P.x[e] * x[j];
            if (i != j) res[j] += p->P.x[e] * x[i];
            o += (i == j ? 0.5 : 1.0) * p->P.x[e] * x[i] * x[j];
        }
        for (int e = p->A.p[j]; e < p->A.p[j + 1]; ++e) res[j] += p->A.x[e] * y[p->A.i[e]];
    }
    for (int j = 0; j < n; ++j) du = fmax(du, fabs(res[j]));
    *obj = o;
    *prim_out = pr;
    *dual_out = du;
    int ok = (pr < prim_res && du < dual_res) || (pr < prim_res && dual_res < 1e-10) ||
             (du < dual_res && prim_res < 1e-10);
    if (ok && keep && keep->rec) keep_fact(keep, &F, n, na, row, D, E, c);
    return ok ? 1 : -1;
}
