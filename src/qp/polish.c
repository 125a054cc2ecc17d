/* Solution polishing (OSQP's polish.c, on the host in double, per solved QP): guess the
 * active constraints from the scaled z, y; solve the reduced KKT system
 *     [P̂ + δI   Â_actᵀ] [x̂]   [−q̂   ]
 *     [Â_act    −δI   ] [ŷ_a] = [b_act]
 * by an LDLᵀ (quasi-definite: no pivoting needed; dense storage, work only on the nonzeros)
 * with `polish_refine_iter` steps of iterative refinement against the unregularized matrix;
 * accept the result when its residuals are smaller, as OSQP does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qp_polish.h"

/* In-place LDLᵀ of a dense symmetric N×N (column-major, lower used); 0 or the failing column.
 *
 * Right-looking over each column's nonzeros: column k's L entries are formed once d_k is
 * known, and the product L(i,k)·L(j,k)·d_k is subtracted from every (i, j) where both are
 * nonzero. Entry (i, j) still receives its terms in increasing k and each term is the same
 * product as in the left-looking dot product L(i,j) = (K(i,j) − Σ_k L(i,k)L(j,k)d_k) / d_j,
 * so the factor is that one's to the bit; the terms left out are exact zeros (a KKT matrix
 * is sparse: for OSQP's benchmark QPs the work falls from O(N³) to a few percent of it).
 * The row indices of each column's nonzeros go to ci[cp[k]..cp[k+1]) (ascending), for the
 * solves. */
static int ldlt(int N, double *K, double *d, int *cp, int *ci)
{
    cp[0] = 0;
    for (int k = 0; k < N; ++k) {
        double dk = K[(size_t)k * N + k];
        if (dk == 0 || !isfinite(dk)) return k + 1;
        d[k] = dk;
        double *Lk = K + (size_t)k * N;
        int *idx = ci + cp[k], cnt = 0;
        for (int i = k + 1; i < N; ++i)
            if (Lk[i] != 0) {
                Lk[i] /= dk;
                idx[cnt++] = i;
            }
        cp[k + 1] = cp[k] + cnt;
        for (int a = 0; a < cnt; ++a) {
            int j = idx[a];
            double ljk = Lk[j], *Kj = K + (size_t)j * N;
            Kj[j] -= ljk * ljk * dk;
            for (int b = a + 1; b < cnt; ++b) Kj[idx[b]] -= Lk[idx[b]] * ljk * dk;
        }
    }
    return 0;
}

static void ldlt_solve(int N, const double *L, const double *d, const int *cp, const int *ci,
                       double *b)
{
    for (int j = 0; j < N; ++j)
        for (int e = cp[j]; e < cp[j + 1]; ++e) b[ci[e]] -= L[(size_t)j * N + ci[e]] * b[j];
    for (int j = 0; j < N; ++j) b[j] /= d[j];
    for (int j = N - 1; j >= 0; --j)
        for (int e = cp[j]; e < cp[j + 1]; ++e) b[j] -= L[(size_t)j * N + ci[e]] * b[ci[e]];
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
    /* K0's entries: P's stored ones and those of A's active rows, both triangles */
    int nz0 = 0;
    for (int j = 0; j < n; ++j)
        for (int e = p->P.p[j]; e < p->P.p[j + 1]; ++e) nz0 += p->P.i[e] == j ? 1 : 2;
    for (int e = 0; e < p->A.p[n]; ++e) nz0 += act[p->A.i[e]] != 0 ? 2 : 0;
    int *row = gala_malloc(sizeof(int) * (size_t)na);
    int *pos = gala_malloc(sizeof(int) * (size_t)(m + 1));
    double *K = gala_malloc(sizeof(double) * (size_t)N * (size_t)N);
    double *dv = gala_malloc(sizeof(double) * (size_t)N), *b = gala_malloc(sizeof(double) * (size_t)N);
    double *sol = gala_malloc(sizeof(double) * (size_t)N), *r = gala_malloc(sizeof(double) * (size_t)N);
    double *ax = gala_calloc((size_t)(m + 1), sizeof(double)), *res = gala_calloc((size_t)n, sizeof(double));
    /* the nonzeros of L's columns (at most N(N−1)/2); K0 by rows (kp, ki, kx: CSR, columns
     * ascending) and the same entries by rows in any order (tc, tv) on the way there */
    int *cp = gala_malloc(sizeof(int) * ((size_t)N + 1));
    int *ci = gala_malloc(sizeof(int) * ((size_t)N * (size_t)(N - 1) / 2 + 1));
    int *kp = gala_calloc((size_t)N + 2, sizeof(int)), *fill = gala_malloc(sizeof(int) * ((size_t)N + 1));
    int *ki = gala_malloc(sizeof(int) * ((size_t)nz0 + 1)), *tc = gala_malloc(sizeof(int) * ((size_t)nz0 + 1));
    double *kx = gala_malloc(sizeof(double) * ((size_t)nz0 + 1)), *tv = gala_malloc(sizeof(double) * ((size_t)nz0 + 1));
    int rc = -2;
    if (!row || !pos || !K || !dv || !b || !sol || !r || !ax || !res || !cp || !ci || !kp ||
        !fill || !ki || !tc || !kx || !tv)
        goto done;
    for (int i = 0, a = 0; i < m; ++i) {
        pos[i] = -1;
        if (act[i]) { row[a] = i; pos[i] = n + a; ++a; }
    }
    /* unregularized K0 (symmetric) in the scaled space, the values as the dense K0 had them;
     * K = K0 + diag(δ, −δ). Rows counted, then the entries bucketed by row (tc, tv), then
     * by column in ascending row order (ki, kx): K0's columns with rows ascending, which
     * are its rows with columns ascending */
    for (int j = 0; j < n; ++j) {
        for (int e = p->P.p[j]; e < p->P.p[j + 1]; ++e) {
            int i = p->P.i[e];
            kp[i + 1]++;
            if (i != j) kp[j + 1]++;
        }
        for (int e = p->A.p[j]; e < p->A.p[j + 1]; ++e)
            if (pos[p->A.i[e]] >= 0) {
                kp[pos[p->A.i[e]] + 1]++;
                kp[j + 1]++;
            }
    }
    for (int i = 0; i < N; ++i) kp[i + 1] += kp[i];
    memcpy(fill, kp, sizeof(int) * (size_t)N);
    for (int j = 0; j < n; ++j) {
        for (int e = p->P.p[j]; e < p->P.p[j + 1]; ++e) {
            int i = p->P.i[e];
            double v = c * D[i] * p->P.x[e] * D[j];
            tc[fill[i]] = j;
            tv[fill[i]++] = v;
            if (i != j) {
                tc[fill[j]] = i;
                tv[fill[j]++] = v;
            }
        }
        for (int e = p->A.p[j]; e < p->A.p[j + 1]; ++e) {
            int i = p->A.i[e];
            if (pos[i] < 0) continue;
            double v = E[i] * p->A.x[e] * D[j];
            tc[fill[pos[i]]] = j;
            tv[fill[pos[i]]++] = v;
            tc[fill[j]] = pos[i];
            tv[fill[j]++] = v;
        }
    }
    memcpy(fill, kp, sizeof(int) * (size_t)N);
    for (int i = 0; i < N; ++i)
        for (int e = kp[i]; e < kp[i + 1]; ++e) {
            ki[fill[tc[e]]] = i;
            kx[fill[tc[e]]++] = tv[e];
        }
    /* K: the lower triangle, dense, column-major */
    for (int j = 0; j < N; ++j) {
        double *Kj = K + (size_t)j * N;
        memset(Kj + j, 0, sizeof(double) * (size_t)(N - j));
        for (int e = kp[j]; e < kp[j + 1]; ++e)
            if (ki[e] >= j) Kj[ki[e]] = kx[e];
    }
    for (int j = 0; j < n; ++j) K[(size_t)j * N + j] += delta;
    for (int a = 0; a < na; ++a) K[(size_t)(n + a) * N + n + a] -= delta;
    for (int j = 0; j < n; ++j) b[j] = -c * D[j] * p->q[j];
    for (int a = 0; a < na; ++a) {
        int i = row[a];
        b[n + a] = act[i] < 0 ? ls[i] : us[i];
    }
    if (ldlt(N, K, dv, cp, ci)) {
        rc = -2;
        goto done;
    }
    memcpy(sol, b, sizeof(double) * (size_t)N);
    ldlt_solve(N, K, dv, cp, ci, sol);
    for (int it = 0; it < refine; ++it) {
        for (int i = 0; i < N; ++i) {
            double v = b[i];
            for (int e = kp[i]; e < kp[i + 1]; ++e) v -= kx[e] * sol[ki[e]];
            r[i] = v;
        }
        ldlt_solve(N, K, dv, cp, ci, r);
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
    gala_free(act); gala_free(row); gala_free(pos); gala_free(K); gala_free(dv); gala_free(b); gala_free(sol); gala_free(r);
    gala_free(ax); gala_free(res); gala_free(cp); gala_free(ci); gala_free(kp); gala_free(fill);
    gala_free(ki); gala_free(tc); gala_free(kx); gala_free(tv);
    return rc;
}
