/* Sparse LDLᵀ of a quasi-definite matrix (polish.c's reduced KKT systems, derivative.c's
 * adjoint systems); qd_ldlt.h says how to call it. Nothing allocates: gala_qd_fact_make
 * takes the caller's scratch blocks. */
#include <math.h>
#include <string.h>

#include "qd_ldlt.h"

/* Column j < n: P's column j (the diagonal kept aside, then last); column n + a: the active
 * row a of A, its entries bucketed by row in one pass over A's columns (so ascending). ux
 * NULL: the pattern alone (Px, Ax, W, rd, d0 unread). */
void gala_qd_kkt(int n, int na, const int *Pp, const int *Pi, const double *Px, const int *Ap,
                 const int *Ai, const double *Ax, const int *pos, const int *arow, double c,
                 const double *D, const double *W, double xreg, const double *rd, double rreg,
                 int *up, int *ui, double *ux, double *d0, int *fill)
{
    const int N = n + na;
    memset(fill, 0, sizeof(int) * ((size_t)N + 2));
    for (int e = 0; e < Ap[n]; ++e)
        if (pos[Ai[e]] >= 0) fill[pos[Ai[e]] + 1]++;
    up[0] = 0;
    for (int j = 0; j < n; ++j) {
        const double dj = D ? D[j] : 1;
        double djj = 0;
        int o = up[j];
        for (int e = Pp[j]; e < Pp[j + 1]; ++e) {
            const int i = Pi[e];
            const double v = ux ? c * (D ? D[i] : 1) * Px[e] * dj : 0;
            if (i == j) {
                djj = v;
                continue;
            }
            ui[o] = i;
            if (ux) ux[o] = v;
            ++o;
        }
        if (d0 && ux) d0[j] = djj;
        ui[o] = j;
        if (ux) ux[o] = djj + xreg;
        up[j + 1] = ++o;
    }
    for (int a = 0; a < na; ++a) {
        const int k = n + a;
        up[k + 1] = up[k] + fill[k + 1] + 1;
        fill[k] = up[k]; /* where its next entry goes */
        ui[up[k + 1] - 1] = k;
        if (ux) ux[up[k + 1] - 1] = -((rd ? rd[arow[a]] : 0) + rreg);
    }
    for (int j = 0; j < n; ++j)
        for (int e = Ap[j]; e < Ap[j + 1]; ++e) {
            const int i = Ai[e], k = pos[i];
            if (k < 0) continue;
            if (ux) ux[fill[k]] = W[i] * Ax[e] * (D ? D[j] : 1);
            ui[fill[k]++] = j;
        }
}

/* The elimination tree: row k of L is the set of nodes reached from the rows i < k of K's
 * column k by climbing the tree, each reached once (flag). */
void gala_qd_etree(int N, const int *kp, const int *ki, int *parent, int *lnz, int *flag)
{
    for (int k = 0; k < N; ++k) {
        parent[k] = -1;
        flag[k] = k;
        lnz[k] = 0;
        for (int e = kp[k]; e < kp[k + 1]; ++e)
            for (int i = ki[e]; i < k && flag[i] != k; i = parent[i]) {
                if (parent[i] == -1) parent[i] = k;
                lnz[i]++;
                flag[i] = k;
            }
    }
}

/* Up-looking: row k of L by a sparse triangular solve L(0:k,0:k) D y = K(0:k, k) over the
 * reach of column k's rows in the tree, in topological order (pattern[top..N));
 * d_k = K(k,k) − Σ y_i L(k,i). Column i's rows are appended in increasing k. Work: the
 * factor's flops, not N². */
int gala_qd_factor(int N, const int *kp, const int *ki, const double *kx, const int *parent,
                const int *lp, int *lnz, int *li, double *lx, double *d, int *flag, int *stack,
                int *pattern, double *y)
{
    for (int k = 0; k < N; ++k) {
        int top = N;
        flag[k] = k;
        lnz[k] = 0;
        for (int e = kp[k]; e < kp[k + 1]; ++e) {
            int i = ki[e];
            y[i] += kx[e];
            int len = 0;
            for (; i < k && flag[i] != k; i = parent[i]) {
                stack[len++] = i;
                flag[i] = k;
            }
            while (len > 0) pattern[--top] = stack[--len];
        }
        double dk = y[k];
        y[k] = 0;
        for (int t = top; t < N; ++t) {
            const int i = pattern[t];
            const double yi = y[i];
            y[i] = 0;
            const int e0 = lp[i], e1 = lp[i] + lnz[i];
            for (int e = e0; e < e1; ++e) y[li[e]] -= lx[e] * yi;
            const double lki = yi / d[i];
            dk -= lki * yi;
            li[e1] = k;
            lx[e1] = lki;
            lnz[i]++;
        }
        if (dk == 0 || !isfinite(dk)) return k + 1;
        d[k] = dk;
    }
    return 0;
}

/* forward with L, D, backward with Lᵀ */
void gala_qd_solve(int N, const int *lp, const int *lnz, const int *li, const double *lx,
                       const double *d, double *b)
{
    for (int j = 0; j < N; ++j)
        for (int e = lp[j]; e < lp[j] + lnz[j]; ++e) b[li[e]] -= lx[e] * b[j];
    for (int j = 0; j < N; ++j) b[j] /= d[j];
    for (int j = N - 1; j >= 0; --j)
        for (int e = lp[j]; e < lp[j] + lnz[j]; ++e) b[j] -= lx[e] * b[li[e]];
}

void gala_qd_restrict(int n, int m, const int *order, const int *pos, int *perm, int *pinv)
{
    for (int t = 0, k = 0; t < n + m; ++t) {
        const int f = order[t], j = f < n ? f : pos[f - n];
        if (j < 0) continue;
        perm[k] = j;
        pinv[j] = k++;
    }
}

void gala_qd_permute(int N, const int *kp, const int *ki, const double *kx, const int *pinv,
                     int *cp, int *ci, double *cx, int *w)
{
    memset(w, 0, sizeof(int) * (size_t)N);
    for (int j = 0; j < N; ++j)
        for (int e = kp[j]; e < kp[j + 1]; ++e) {
            const int a = pinv[ki[e]], b = pinv[j];
            w[a > b ? a : b]++;
        }
    cp[0] = 0;
    for (int j = 0; j < N; ++j) {
        cp[j + 1] = cp[j] + w[j];
        w[j] = cp[j];
    }
    for (int j = 0; j < N; ++j)
        for (int e = kp[j]; e < kp[j + 1]; ++e) {
            const int a = pinv[ki[e]], b = pinv[j], c = a > b ? a : b;
            if (cx) cx[w[c]] = kx[e];
            ci[w[c]++] = a < b ? a : b;
        }
}

double gala_qd_symbolic(int N, const int *kp, const int *ki, int *parent, int *lnz, int *lp,
                        int *flag)
{
    gala_qd_etree(N, kp, ki, parent, lnz, flag);
    double flops = 0;
    lp[0] = 0;
    for (int j = 0; j < N; ++j) {
        flops += (double)lnz[j] * (double)lnz[j];
        lp[j + 1] = lp[j] + lnz[j];
    }
    return flops;
}

int gala_qd_fact_make(gala_qd_fact *f, gala_host_scratch ws[2], int n, int m, const int *pos,
                      const int *order, double order_flops, int N, const int *kp, const int *ki,
                      const double *kx, double max_flops)
{
    memset(f, 0, sizeof *f);
    f->N = N;
    const size_t nz = (size_t)kp[N], NN = (size_t)N;
    /* doubles: C's values, d, y (zero), t; then ints: perm, pinv, C's columns (cp, ci),
     * parent, flag, stack, pattern, lnz, lp */
    double *cx = gala_host_scratch_get(&ws[0], sizeof(double) * (nz + 3 * NN + 1) +
                                                   sizeof(int) * (9 * NN + 2 + nz));
    if (!cx) return GALA_QD_NOMEM;
    double *y = cx + nz;
    f->d = y + N;
    f->t = f->d + N;
    int *perm = (int *)(f->t + N + 1), *pinv = perm + N, *cp = pinv + N, *ci = cp + N + 1;
    int *parent = ci + nz, *flag = parent + N, *stack = flag + N, *pattern = stack + N;
    f->lnz = pattern + N;
    f->lp = f->lnz + N;
    memset(y, 0, sizeof(double) * NN);
    /* K's own order unless its factor costs more than twice the order's bound (below that,
     * permuting K and a second symbolic step cost about what the factor would save) */
    f->flops = gala_qd_symbolic(N, kp, ki, parent, f->lnz, f->lp, flag);
    if (order && f->flops > 2 * order_flops) {
        gala_qd_restrict(n, m, order, pos, perm, pinv);
        gala_qd_permute(N, kp, ki, kx, pinv, cp, ci, cx, flag);
        f->perm = perm;
        kp = cp;
        ki = ci;
        kx = cx;
        f->flops = gala_qd_symbolic(N, kp, ki, parent, f->lnz, f->lp, flag);
    }
    if (f->flops > max_flops) return GALA_QD_DEAR;
    const size_t nl = (size_t)f->lp[N] + 1;
    f->lx = gala_host_scratch_get(&ws[1], (sizeof(double) + sizeof(int)) * nl);
    if (!f->lx) return GALA_QD_NOMEM;
    f->li = (int *)(f->lx + nl);
    if (gala_qd_factor(N, kp, ki, kx, parent, f->lp, f->lnz, f->li, f->lx, f->d, flag, stack,
                       pattern, y))
        return GALA_QD_SINGULAR;
    return GALA_QD_OK;
}

void gala_qd_fact_solve(gala_qd_fact *f, double *b)
{
    if (!f->perm) {
        gala_qd_solve(f->N, f->lp, f->lnz, f->li, f->lx, f->d, b);
        return;
    }
    for (int k = 0; k < f->N; ++k) f->t[k] = b[f->perm[k]];
    gala_qd_solve(f->N, f->lp, f->lnz, f->li, f->lx, f->d, f->t);
    for (int k = 0; k < f->N; ++k) b[f->perm[k]] = f->t[k];
}
