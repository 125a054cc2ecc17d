/* Solution polishing (OSQP's polish.c, on the host in double, per solved QP): guess the
 * active constraints from the scaled z, y; solve the reduced KKT system
 *     [P̂ + δI   Â_actᵀ] [x̂]   [−q̂   ]
 *     [Â_act    −δI   ] [ŷ_a] = [b_act]
 * by a dense LDLᵀ (quasi-definite: no pivoting needed) with `polish_refine_iter` steps of
 * iterative refinement against the unregularized matrix; accept the result when its residuals
 * are smaller, as OSQP does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qp_polish.h"

/* In-place LDLᵀ of a dense symmetric N×N (column-major, lower used); 0 or the failing column. */
static int ldlt(int N, double *K, double *d)
{
    for (int j = 0; j < N; ++j) {
        double dj = K[(size_t)j * N + j];
        for (int k = 0; k < j; ++k) dj -= K[(size_t)k * N + j] * K[(size_t)k * N + j] * d[k];
        if (dj == 0 || !isfinite(dj)) return j + 1;
        d[j] = dj;
        for (int i = j + 1; i < N; ++i) {
            double v = K[(size_t)j * N + i];
            for (int k = 0; k < j; ++k) v -= K[(size_t)k * N + i] * K[(size_t)k * N + j] * d[k];
            K[(size_t)j * N + i] = v / dj;
        }
    }
    return 0;
}

static void ldlt_solve(int N, const double *L, const double *d, double *b)
{
    for (int j = 0; j < N; ++j)
        for (int i = j + 1; i < N; ++i) b[i] -= L[(size_t)j * N + i] * b[j];
    for (int j = 0; j < N; ++j) b[j] /= d[j];
    for (int j = N - 1; j >= 0; --j)
        for (int i = j + 1; i < N; ++i) b[j] -= L[(size_t)j * N + i] * b[i];
}

int gala_qp_polish_one(const gala_qp_problem *p, const double *D, const double *E, double c,
                       const double *xs, const double *zs, const double *ys, const double *ls,
                       const double *us, double delta, int refine, double prim_res,
                       double dual_res, double *x, double *y, double *obj, double *prim_out,
                       double *dual_out)
{
    int n = p->n, m = p->m;
    int *act = gala_malloc(sizeof(int) * (size_t)(m + 1));
    if (!act) return -2;
    int na = 0;
    for (int i = 0; i < m; ++i) {
        if (zs[i] - ls[i] < -ys[i] || p->l[i] == p->u[i]) act[i] = -1;
        else if (us[i] - zs[i] < ys[i]) act[i] = 1;
        else act[i] = 0;
        na += act[i] != 0;
    }
    if (na == 0) {
        gala_free(act);
        return 2;
    }
    int N = n + na;
    int *row = gala_malloc(sizeof(int) * (size_t)na);
    int *pos = gala_malloc(sizeof(int) * (size_t)(m + 1));
    double *K = gala_calloc((size_t)N * (size_t)N, sizeof(double));
    double *K0 = gala_calloc((size_t)N * (size_t)N, sizeof(double));
    double *dv = gala_malloc(sizeof(double) * (size_t)N), *b = gala_malloc(sizeof(double) * (size_t)N);
    double *sol = gala_malloc(sizeof(double) * (size_t)N), *r = gala_malloc(sizeof(double) * (size_t)N);
    double *ax = gala_calloc((size_t)(m + 1), sizeof(double)), *res = gala_calloc((size_t)n, sizeof(double));
    int rc = -2;
    if (!row || !pos || !K || !K0 || !dv || !b || !sol || !r || !ax || !res) goto done;
    for (int i = 0, a = 0; i < m; ++i) {
        pos[i] = -1;
        if (act[i]) { row[a] = i; pos[i] = n + a; ++a; }
    }
    /* unregularized K0 (both triangles) in the scaled space; K = K0 + diag(δ, −δ) */
    for (int j = 0; j < n; ++j)
        for (int e = p->P.p[j]; e < p->P.p[j + 1]; ++e) {
            int i = p->P.i[e];
            double v = c * D[i] * p->P.x[e] * D[j];
            K0[(size_t)j * N + i] = v;
            K0[(size_t)i * N + j] = v;
        }
    for (int j = 0; j < n; ++j)
        for (int e = p->A.p[j]; e < p->A.p[j + 1]; ++e) {
            int i = p->A.i[e];
            if (pos[i] < 0) continue;
            double v = E[i] * p->A.x[e] * D[j];
            K0[(size_t)j * N + pos[i]] = v;
            K0[(size_t)pos[i] * N + j] = v;
        }
    memcpy(K, K0, sizeof(double) * (size_t)N * (size_t)N);
    for (int j = 0; j < n; ++j) K[(size_t)j * N + j] += delta;
    for (int a = 0; a < na; ++a) K[(size_t)(n + a) * N + n + a] -= delta;
    for (int j = 0; j < n; ++j) b[j] = -c * D[j] * p->q[j];
    for (int a = 0; a < na; ++a) {
        int i = row[a];
        b[n + a] = act[i] < 0 ? ls[i] : us[i];
    }
    if (ldlt(N, K, dv)) {
        rc = -2;
        goto done;
    }
    memcpy(sol, b, sizeof(double) * (size_t)N);
    ldlt_solve(N, K, dv, sol);
    for (int it = 0; it < refine; ++it) {
        for (int i = 0; i < N; ++i) {
            double v = b[i];
            for (int j = 0; j < N; ++j) v -= K0[(size_t)j * N + i] * sol[j];
            r[i] = v;
        }
        ldlt_solve(N, K, dv, r);
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
    rc = ok ? 1 : -1;
done:
    gala_free(act); gala_free(row); gala_free(pos); gala_free(K); gala_free(K0); gala_free(dv); gala_free(b); gala_free(sol); gala_free(r);
    gala_free(ax); gala_free(res);
    return rc;
}
