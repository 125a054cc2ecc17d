/* Problem generators: the families of osqp_benchmarks (same definitions, seeded, statistically
 * equivalent — not bit-identical to numpy) and the double integrator of Dyro's writeup.
 * Differences from the Python generators are listed in docs/qp.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gala/qp.h"

/* ------------------------------------------------------------------ random numbers */
typedef struct { uint64_t s[4]; } grng;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static grng rng_seed(uint64_t seed, int family, int n)
{
    grng r;
    uint64_t x = seed ^ ((uint64_t)family << 48) ^ ((uint64_t)(unsigned)n << 20);
    for (int i = 0; i < 4; ++i) r.s[i] = splitmix(&x);
    return r;
}
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t rng_next(grng *r)
{
    uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return res;
}
static double unif(grng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }
static double randn(grng *r)
{
    double u1 = unif(r), u2 = unif(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ------------------------------------------------------------------ triplets -> CSC */
typedef struct { int i, j; double v; } trip;
typedef struct { trip *t; size_t n, cap; int ok; } tlist;

static void tadd(tlist *L, int i, int j, double v)
{
    if (!L->ok) return;
    if (L->n == L->cap) {
        size_t nc = L->cap ? 2 * L->cap : 1024;
        trip *t = gala_realloc(L->t, nc * sizeof *t);
        if (!t) { L->ok = 0; return; }
        L->t = t;
        L->cap = nc;
    }
    L->t[L->n].i = i; L->t[L->n].j = j; L->t[L->n].v = v;
    L->n++;
}
static int tcmp(const void *a, const void *b)
{
    const trip *x = a, *y = b;
    if (x->j != y->j) return x->j < y->j ? -1 : 1;
    return x->i < y->i ? -1 : (x->i > y->i);
}
/* Build an m×n CSC (duplicates summed; with upper, entries below the diagonal dropped). */
static gala_status to_csc(tlist *L, int m, int n, int upper, gala_csc *A)
{
    if (!L->ok) return GALA_ERR_OUT_OF_MEMORY;
    qsort(L->t, L->n, sizeof(trip), tcmp);
    A->m = m; A->n = n;
    A->p = gala_calloc((size_t)n + 1, sizeof(int));
    A->i = gala_malloc(sizeof(int) * (L->n ? L->n : 1));
    A->x = gala_malloc(sizeof(double) * (L->n ? L->n : 1));
    if (!A->p || !A->i || !A->x) return GALA_ERR_OUT_OF_MEMORY;
    int nz = 0, pi = -1, pj = -1;
    for (size_t k = 0; k < L->n; ++k) {
        const trip *t = &L->t[k];
        if (upper && t->i > t->j) continue;
        if (t->i == pi && t->j == pj) {
            A->x[nz - 1] += t->v;
            continue;
        }
        pi = t->i;
        pj = t->j;
        A->i[nz] = t->i;
        A->x[nz] = t->v;
        A->p[t->j + 1]++;
        ++nz;
    }
    for (int j = 0; j < n; ++j) A->p[j + 1] += A->p[j];
    L->n = 0;
    return GALA_OK;
}

/* exactly round(density·m·n) distinct positions, uniform (selection sampling), N(0,1) values,
 * added with an offset and a scale */
static void sprandn(grng *r, tlist *L, int m, int n, double density, int i0, int j0, double scale)
{
    long long N = (long long)m * n, k = llround(density * (double)N), sel = 0;
    for (long long t = 0; t < N && sel < k; ++t) {
        if ((double)(N - t) * unif(r) < (double)(k - sel)) {
            tadd(L, i0 + (int)(t % m), j0 + (int)(t / m), scale * randn(r));
            ++sel;
        }
    }
}

static gala_status alloc_vecs(gala_qp_problem *p, int n, int m)
{
    p->n = n; p->m = m; p->owned = 1;
    p->q = gala_calloc((size_t)n, sizeof(double));
    p->l = gala_calloc((size_t)(m ? m : 1), sizeof(double));
    p->u = gala_calloc((size_t)(m ? m : 1), sizeof(double));
    return (p->q && p->l && p->u) ? GALA_OK : GALA_ERR_OUT_OF_MEMORY;
}

/* y = A x for a triplet-free CSC */
static void csc_mv(const gala_csc *A, const double *x, double *y)
{
    for (int i = 0; i < A->m; ++i) y[i] = 0;
    for (int j = 0; j < A->n; ++j)
        for (int k = A->p[j]; k < A->p[j + 1]; ++k) y[A->i[k]] += A->x[k] * x[j];
}

/* P = M Mᵀ + 0.01 I (upper triangle) with M = sprandn(n, n, 0.15) */
static gala_status random_P(grng *r, int n, tlist *L, gala_csc *P)
{
    tlist Mt = {0};
    Mt.ok = 1;
    sprandn(r, &Mt, n, n, 0.15, 0, 0, 1);
    gala_csc M = {0};
    gala_status st = to_csc(&Mt, n, n, 0, &M);
    /* rows of M: M Mᵀ(i,k) = Σ_j M(i,j) M(k,j): for each column j, all pairs */
    double *D = st == GALA_OK ? gala_calloc((size_t)n * (size_t)n, sizeof(double)) : NULL;
    if (st == GALA_OK && !D) st = GALA_ERR_OUT_OF_MEMORY;
    for (int j = 0; st == GALA_OK && j < n; ++j)
        for (int a = M.p[j]; a < M.p[j + 1]; ++a)
            for (int b = M.p[j]; b < M.p[j + 1]; ++b)
                D[(size_t)M.i[b] * n + M.i[a]] += M.x[a] * M.x[b];
    for (int j = 0; st == GALA_OK && j < n; ++j)
        for (int i = 0; i <= j; ++i) {
            double v = D[(size_t)j * n + i] + (i == j ? 0.01 : 0);
            if (v != 0) tadd(L, i, j, v);
        }
    if (st == GALA_OK) st = to_csc(L, n, n, 1, P);
    gala_free(D);
    gala_free(M.p); gala_free(M.i); gala_free(M.x);
    gala_free(Mt.t);
    return st;
}

static gala_status gen_random(grng *r, int n, gala_qp_problem *p)
{
    int m = 10 * n;
    tlist L = {0};
    L.ok = 1;
    gala_status st = alloc_vecs(p, n, m);
    if (st == GALA_OK) st = random_P(r, n, &L, &p->P);
    for (int j = 0; st == GALA_OK && j < n; ++j) p->q[j] = randn(r);
    if (st == GALA_OK) { sprandn(r, &L, m, n, 0.15, 0, 0, 1); st = to_csc(&L, m, n, 0, &p->A); }
    double *v = gala_malloc(sizeof(double) * (size_t)n);
    if (st == GALA_OK && !v) st = GALA_ERR_OUT_OF_MEMORY;
    for (int j = 0; st == GALA_OK && j < n; ++j) v[j] = randn(r);
    if (st == GALA_OK) {
        csc_mv(&p->A, v, p->u);
        for (int i = 0; i < m; ++i) { p->u[i] += unif(r); p->l[i] = -INFINITY; }
    }
    gala_free(v);
    gala_free(L.t);
    return st;
}

static gala_status gen_equality(grng *r, int n, gala_qp_problem *p)
{
    int m = n / 2;
    tlist L = {0};
    L.ok = 1;
    gala_status st = alloc_vecs(p, n, m);
    if (st == GALA_OK) st = random_P(r, n, &L, &p->P);
    for (int j = 0; st == GALA_OK && j < n; ++j) p->q[j] = randn(r);
    if (st == GALA_OK) { sprandn(r, &L, m, n, 0.15, 0, 0, 1); st = to_csc(&L, m, n, 0, &p->A); }
    double *v = gala_malloc(sizeof(double) * (size_t)n);
    if (st == GALA_OK && !v) st = GALA_ERR_OUT_OF_MEMORY;
    for (int j = 0; st == GALA_OK && j < n; ++j) v[j] = randn(r);
    if (st == GALA_OK) {
        csc_mv(&p->A, v, p->u);
        for (int i = 0; i < m; ++i) p->l[i] = p->u[i];
    }
    gala_free(v);
    gala_free(L.t);
    return st;
}

/* ---- small dense helpers (row-major k×k) for the control family */
static void mm(int a, int b, int c, const double *X, const double *Y, double *Z) /* Z = X·Y */
{
    for (int i = 0; i < a; ++i)
        for (int k = 0; k < c; ++k) {
            double s = 0;
            for (int j = 0; j < b; ++j) s += X[i * b + j] * Y[j * c + k];
            Z[i * c + k] = s;
        }
}
static void tr(int a, int b, const double *X, double *Y) /* Y = Xᵀ (X a×b) */
{
    for (int i = 0; i < a; ++i)
        for (int j = 0; j < b; ++j) Y[j * a + i] = X[i * b + j];
}
/* solve S X = B for SPD S (k×k), B k×c, by Cholesky; in place in B */
static int spd_solve(int k, double *S, int c, double *B)
{
    for (int j = 0; j < k; ++j) {
        double d = S[j * k + j];
        for (int t = 0; t < j; ++t) d -= S[j * k + t] * S[j * k + t];
        if (!(d > 0)) return 1;
        d = sqrt(d);
        S[j * k + j] = d;
        for (int i = j + 1; i < k; ++i) {
            double v = S[i * k + j];
            for (int t = 0; t < j; ++t) v -= S[i * k + t] * S[j * k + t];
            S[i * k + j] = v / d;
        }
    }
    for (int col = 0; col < c; ++col) {
        for (int i = 0; i < k; ++i) {
            double v = B[i * c + col];
            for (int t = 0; t < i; ++t) v -= S[i * k + t] * B[t * c + col];
            B[i * c + col] = v / S[i * k + i];
        }
        for (int i = k - 1; i >= 0; --i) {
            double v = B[i * c + col];
            for (int t = i + 1; t < k; ++t) v -= S[t * k + i] * B[t * c + col];
            B[i * c + col] = v / S[i * k + i];
        }
    }
    return 0;
}

static gala_status gen_control(grng *r, int nx, gala_qp_problem *p)
{
    const int T = 10, nu = nx / 2 > 0 ? nx / 2 : 1;
    const int n = (T + 1) * nx + T * nu, m = 2 * (T + 1) * nx + T * nu;
    size_t kk = (size_t)nx * nx;
    double *Ad = gala_calloc(kk, sizeof(double)), *Bd = gala_calloc((size_t)nx * nu, sizeof(double));
    double *W = gala_calloc(6 * kk + 8 * (size_t)nx * nu + (size_t)nu * nu * 4 + 16, sizeof(double));
    double *Q = gala_calloc((size_t)nx, sizeof(double)), *X = gala_calloc(kk, sizeof(double));
    tlist L = {0};
    L.ok = 1;
    gala_status st = (Ad && Bd && W && Q && X) ? alloc_vecs(p, n, m) : GALA_ERR_OUT_OF_MEMORY;
    if (st != GALA_OK) goto done;
    for (int i = 0; i < nx; ++i)
        for (int j = 0; j < nx; ++j) Ad[i * nx + j] = (i == j) + 0.1 * randn(r);
    {
        /* spectral radius by Gelfand's formula on repeated squares; eigenvalues with
         * |λ| >= 0.99 are pulled inside the unit circle as λ/(|λ| + 0.01) in the Python
         * generator: here the whole matrix is scaled by 1/(ρ + 0.01) when ρ >= 0.99 */
        double *S = W, *S2 = W + kk, lg = 0;
        memcpy(S, Ad, kk * sizeof(double));
        for (int it = 0; it < 8; ++it) {
            double nrm = 0;
            for (size_t e = 0; e < kk; ++e) nrm = fmax(nrm, fabs(S[e]));
            if (nrm == 0) break;
            for (size_t e = 0; e < kk; ++e) S[e] /= nrm;
            lg = 2 * (lg + log(nrm));
            mm(nx, nx, nx, S, S, S2);
            memcpy(S, S2, kk * sizeof(double));
        }
        double nrm = 0;
        for (size_t e = 0; e < kk; ++e) nrm = fmax(nrm, fabs(S[e]));
        double rho = nrm > 0 ? exp((lg + log(nrm)) / 256.0) : 0;
        if (rho >= 0.99)
            for (size_t e = 0; e < kk; ++e) Ad[e] /= rho + 0.01;
    }
    for (int i = 0; i < nx * nu; ++i) Bd[i] = randn(r);
    {
        int *mask = gala_malloc(sizeof(int) * (size_t)nx);
        if (!mask) { st = GALA_ERR_OUT_OF_MEMORY; goto done; }
        for (int i = 0; i < nx; ++i) mask[i] = unif(r) < 0.7;
        for (int i = 0; i < nx; ++i) Q[i] = unif(r) * mask[i];
        gala_free(mask);
    }
    const double Rr = 0.1;
    {
        /* terminal cost: the discrete Riccati solution by value iteration
         * X ← Q + AᵀXA − AᵀXB (R + BᵀXB)⁻¹ BᵀXA */
        double *At = W, *XA = W + kk, *AtXA = W + 2 * kk, *Xn = W + 3 * kk;
        double *XB = W + 4 * kk, *S = XB + (size_t)nx * nu, *G = S + (size_t)nu * nu;
        double *Bt = G + (size_t)nu * nx, *BtXA = Bt + (size_t)nu * nx, *AtXB = BtXA + (size_t)nu * nx;
        tr(nx, nx, Ad, At);
        tr(nx, nu, Bd, Bt);
        for (int i = 0; i < nx; ++i) X[i * nx + i] = Q[i];
        for (int it = 0; it < 5000; ++it) {
            mm(nx, nx, nx, X, Ad, XA);
            mm(nx, nx, nx, At, XA, AtXA);
            mm(nx, nx, nu, X, Bd, XB);
            mm(nu, nx, nu, Bt, XB, S);
            for (int i = 0; i < nu; ++i) S[i * nu + i] += Rr;
            mm(nu, nx, nx, Bt, XA, BtXA);
            memcpy(G, BtXA, sizeof(double) * (size_t)nu * nx);
            if (spd_solve(nu, S, nx, G)) break;
            mm(nx, nx, nu, At, XB, AtXB);
            double diff = 0;
            for (int i = 0; i < nx; ++i)
                for (int j = 0; j < nx; ++j) {
                    double s = AtXA[i * nx + j] + (i == j ? Q[i] : 0);
                    for (int t = 0; t < nu; ++t) s -= AtXB[i * nu + t] * G[t * nx + j];
                    Xn[i * nx + j] = s;
                }
            for (int i = 0; i < nx; ++i)
                for (int j = 0; j < nx; ++j) {
                    double v = 0.5 * (Xn[i * nx + j] + Xn[j * nx + i]);
                    diff = fmax(diff, fabs(v - X[i * nx + j]));
                    X[i * nx + j] = v;
                }
            if (diff < 1e-12 * (1 + fabs(X[0]))) break;
        }
    }
    /* P = 2·blkdiag(I_T ⊗ Q, QN, I_T ⊗ R) */
    for (int k = 0; k < T; ++k)
        for (int i = 0; i < nx; ++i)
            if (Q[i] != 0) tadd(&L, k * nx + i, k * nx + i, 2 * Q[i]);
    for (int i = 0; i < nx; ++i)
        for (int j = i; j < nx; ++j)
            if (X[i * nx + j] != 0) tadd(&L, T * nx + i, T * nx + j, 2 * X[i * nx + j]);
    for (int k = 0; k < T * nu; ++k) tadd(&L, (T + 1) * nx + k, (T + 1) * nx + k, 2 * Rr);
    st = to_csc(&L, n, n, 1, &p->P);
    if (st != GALA_OK) goto done;
    /* A = [Aeq; I 0; 0 I] */
    for (int k = 0; k <= T; ++k)
        for (int i = 0; i < nx; ++i) tadd(&L, k * nx + i, k * nx + i, -1);
    for (int k = 1; k <= T; ++k)
        for (int i = 0; i < nx; ++i) {
            for (int j = 0; j < nx; ++j)
                if (Ad[i * nx + j] != 0) tadd(&L, k * nx + i, (k - 1) * nx + j, Ad[i * nx + j]);
            for (int j = 0; j < nu; ++j)
                tadd(&L, k * nx + i, (T + 1) * nx + (k - 1) * nu + j, Bd[i * nu + j]);
        }
    for (int v = 0; v < n; ++v) tadd(&L, (T + 1) * nx + v, v, 1);
    st = to_csc(&L, m, n, 0, &p->A);
    if (st != GALA_OK) goto done;
    {
        double *umin = W, *xmin = W + nu;
        for (int j = 0; j < nu; ++j) umin[j] = -unif(r);
        for (int i = 0; i < nx; ++i) xmin[i] = -1 - unif(r);
        for (int i = 0; i < nx; ++i) {
            double x0 = 0.5 * xmin[i] + unif(r) * (-0.5 * xmin[i] - 0.5 * xmin[i]);
            p->l[i] = p->u[i] = -x0;
        }
        for (int i = nx; i < (T + 1) * nx; ++i) p->l[i] = p->u[i] = 0;
        for (int k = 0; k <= T; ++k)
            for (int i = 0; i < nx; ++i) {
                p->l[(T + 1) * nx + k * nx + i] = xmin[i];
                p->u[(T + 1) * nx + k * nx + i] = -xmin[i];
            }
        for (int k = 0; k < T; ++k)
            for (int j = 0; j < nu; ++j) {
                p->l[2 * (T + 1) * nx + k * nu + j] = umin[j];
                p->u[2 * (T + 1) * nx + k * nu + j] = -umin[j];
            }
    }
done:
    gala_free(Ad); gala_free(Bd); gala_free(W); gala_free(Q); gala_free(X); gala_free(L.t);
    return st;
}

static gala_status gen_portfolio(grng *r, int k, gala_qp_problem *p)
{
    int na = 100 * k, n = na + k, m = 1 + k + na;
    tlist L = {0};
    L.ok = 1;
    gala_status st = alloc_vecs(p, n, m);
    tlist F = {0};
    F.ok = 1;
    if (st == GALA_OK) sprandn(r, &F, na, k, 0.5, 0, 0, 1);
    for (int i = 0; st == GALA_OK && i < na; ++i) tadd(&L, i, i, 2 * unif(r) * sqrt((double)k));
    for (int i = 0; st == GALA_OK && i < k; ++i) tadd(&L, na + i, na + i, 2);
    if (st == GALA_OK) st = to_csc(&L, n, n, 1, &p->P);
    for (int i = 0; st == GALA_OK && i < na; ++i) p->q[i] = -randn(r); /* −μ/γ, γ = 1 */
    if (st == GALA_OK) {
        for (int j = 0; j < na; ++j) tadd(&L, 0, j, 1);                       /* 1ᵀx = 1 */
        for (size_t e = 0; e < F.n; ++e) tadd(&L, 1 + F.t[e].j, F.t[e].i, F.t[e].v); /* Fᵀx − y = 0 */
        for (int i = 0; i < k; ++i) tadd(&L, 1 + i, na + i, -1);
        for (int j = 0; j < na; ++j) tadd(&L, 1 + k + j, j, 1);               /* 0 <= x <= 1 */
        st = to_csc(&L, m, n, 0, &p->A);
    }
    if (st == GALA_OK) {
        p->l[0] = p->u[0] = 1;
        for (int i = 1; i <= k; ++i) p->l[i] = p->u[i] = 0;
        for (int j = 0; j < na; ++j) { p->l[1 + k + j] = 0; p->u[1 + k + j] = 1; }
    }
    gala_free(F.t);
    gala_free(L.t);
    return st;
}

/* data matrix rows for lasso / huber: Ad = sprandn(md, nf, 0.15) */
static gala_status gen_lasso(grng *r, int nf, gala_qp_problem *p)
{
    int md = 100 * nf, n = nf + md + nf, m = md + 2 * nf;
    tlist L = {0}, Dm = {0};
    L.ok = Dm.ok = 1;
    gala_status st = alloc_vecs(p, n, m);
    double *xt = gala_calloc((size_t)nf, sizeof(double)), *b = gala_calloc((size_t)md, sizeof(double));
    if (st == GALA_OK && (!xt || !b)) st = GALA_ERR_OUT_OF_MEMORY;
    if (st == GALA_OK) sprandn(r, &Dm, md, nf, 0.15, 0, 0, 1);
    for (int j = 0; st == GALA_OK && j < nf; ++j) xt[j] = (unif(r) > 0.5) * randn(r) / sqrt((double)nf);
    for (size_t e = 0; st == GALA_OK && e < Dm.n; ++e) b[Dm.t[e].i] += Dm.t[e].v * xt[Dm.t[e].j];
    for (int i = 0; st == GALA_OK && i < md; ++i) b[i] += randn(r);
    double lmax = 0;
    for (int j = 0; st == GALA_OK && j < nf; ++j) {
        double s = 0;
        for (size_t e = 0; e < Dm.n; ++e) if (Dm.t[e].j == j) s += Dm.t[e].v * b[Dm.t[e].i];
        lmax = fmax(lmax, fabs(s));
    }
    double lam = lmax / 5;
    for (int i = 0; st == GALA_OK && i < md; ++i) tadd(&L, nf + i, nf + i, 2);
    if (st == GALA_OK) st = to_csc(&L, n, n, 1, &p->P);
    for (int j = 0; st == GALA_OK && j < nf; ++j) p->q[nf + md + j] = lam;
    if (st == GALA_OK) {
        for (size_t e = 0; e < Dm.n; ++e) tadd(&L, Dm.t[e].i, Dm.t[e].j, Dm.t[e].v);
        for (int i = 0; i < md; ++i) tadd(&L, i, nf + i, -1);
        for (int j = 0; j < nf; ++j) {
            tadd(&L, md + j, j, 1); tadd(&L, md + j, nf + md + j, -1);
            tadd(&L, md + nf + j, j, 1); tadd(&L, md + nf + j, nf + md + j, 1);
        }
        st = to_csc(&L, m, n, 0, &p->A);
    }
    if (st == GALA_OK) {
        for (int i = 0; i < md; ++i) p->l[i] = p->u[i] = b[i];
        for (int j = 0; j < nf; ++j) {
            p->l[md + j] = -INFINITY; p->u[md + j] = 0;
            p->l[md + nf + j] = 0; p->u[md + nf + j] = INFINITY;
        }
    }
    gala_free(xt); gala_free(b); gala_free(L.t); gala_free(Dm.t);
    return st;
}

static gala_status gen_huber(grng *r, int nf, gala_qp_problem *p)
{
    int md = 100 * nf, n = nf + 3 * md, m = 3 * md;
    tlist L = {0}, Dm = {0};
    L.ok = Dm.ok = 1;
    gala_status st = alloc_vecs(p, n, m);
    double *xt = gala_calloc((size_t)nf, sizeof(double)), *b = gala_calloc((size_t)md, sizeof(double));
    if (st == GALA_OK && (!xt || !b)) st = GALA_ERR_OUT_OF_MEMORY;
    if (st == GALA_OK) sprandn(r, &Dm, md, nf, 0.15, 0, 0, 1);
    for (int j = 0; st == GALA_OK && j < nf; ++j) xt[j] = randn(r) / sqrt((double)nf);
    for (size_t e = 0; st == GALA_OK && e < Dm.n; ++e) b[Dm.t[e].i] += Dm.t[e].v * xt[Dm.t[e].j];
    for (int i = 0; st == GALA_OK && i < md; ++i)
        b[i] += unif(r) < 0.95 ? 0.5 * randn(r) : 10 * unif(r);
    for (int i = 0; st == GALA_OK && i < md; ++i) tadd(&L, nf + i, nf + i, 1);
    if (st == GALA_OK) st = to_csc(&L, n, n, 1, &p->P);
    for (int i = 0; st == GALA_OK && i < 2 * md; ++i) p->q[nf + md + i] = 1;
    if (st == GALA_OK) {
        /* [Ad −I −I I; 0 0 I 0; 0 0 0 I], vars (x, z, r, s) */
        for (size_t e = 0; e < Dm.n; ++e) tadd(&L, Dm.t[e].i, Dm.t[e].j, Dm.t[e].v);
        for (int i = 0; i < md; ++i) {
            tadd(&L, i, nf + i, -1); tadd(&L, i, nf + md + i, -1); tadd(&L, i, nf + 2 * md + i, 1);
            tadd(&L, md + i, nf + md + i, 1);
            tadd(&L, 2 * md + i, nf + 2 * md + i, 1);
        }
        st = to_csc(&L, m, n, 0, &p->A);
    }
    if (st == GALA_OK) {
        for (int i = 0; i < md; ++i) p->l[i] = p->u[i] = b[i];
        for (int i = md; i < m; ++i) { p->l[i] = 0; p->u[i] = INFINITY; }
    }
    gala_free(xt); gala_free(b); gala_free(L.t); gala_free(Dm.t);
    return st;
}

static gala_status gen_svm(grng *r, int nf, gala_qp_problem *p)
{
    int md = 100 * nf, half = md / 2, n = nf + md, m = 2 * md;
    tlist L = {0}, Dm = {0};
    L.ok = Dm.ok = 1;
    gala_status st = alloc_vecs(p, n, m);
    if (st == GALA_OK) sprandn(r, &Dm, md, nf, 0.15, 0, 0, 1);
    double sq = sqrt((double)nf);
    for (int j = 0; st == GALA_OK && j < nf; ++j) tadd(&L, j, j, 1);
    if (st == GALA_OK) st = to_csc(&L, n, n, 1, &p->P);
    for (int i = 0; st == GALA_OK && i < md; ++i) p->q[nf + i] = 0.5; /* γ/2 with γ = 1 */
    if (st == GALA_OK) {
        /* rows: b_i·(A_i/√n ± (A_i≠0)/n) x − t_i <= −1, with b = +1 (first half), −1 */
        for (size_t e = 0; e < Dm.n; ++e) {
            int i = Dm.t[e].i;
            double sgn = i < half ? 1.0 : -1.0, v = Dm.t[e].v / sq + sgn / nf;
            tadd(&L, i, Dm.t[e].j, sgn * v);
        }
        for (int i = 0; i < md; ++i) { tadd(&L, i, nf + i, -1); tadd(&L, md + i, nf + i, 1); }
        st = to_csc(&L, m, n, 0, &p->A);
    }
    if (st == GALA_OK) {
        for (int i = 0; i < md; ++i) { p->l[i] = -INFINITY; p->u[i] = -1; }
        for (int i = md; i < m; ++i) { p->l[i] = 0; p->u[i] = INFINITY; }
    }
    gala_free(L.t); gala_free(Dm.t);
    return st;
}

gala_status gala_qp_double_integrator(int T, double pos0, double vel0, gala_qp_problem *p)
{
    if (!p || T < 1 || T > 100000 || !isfinite(pos0) || !isfinite(vel0))
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_double_integrator: bad argument");
    memset(p, 0, sizeof *p);
    const double dt = 0.1;
    /* vars: x_1..x_T (2 each), u_0..u_{T-1}; rows: x_{k+1} − A x_k − B u_k = 0, |u_k| <= 1 */
    int n = 3 * T, m = 3 * T;
    tlist L = {0};
    L.ok = 1;
    gala_status st = alloc_vecs(p, n, m);
    for (int j = 0; st == GALA_OK && j < n; ++j) tadd(&L, j, j, 1);
    if (st == GALA_OK) st = to_csc(&L, n, n, 1, &p->P);
    if (st == GALA_OK) {
        for (int k = 0; k < T; ++k) {
            int r0 = 2 * k, xk = 2 * k, xkm = 2 * (k - 1), uk = 2 * T + k;
            tadd(&L, r0, xk, 1); tadd(&L, r0 + 1, xk + 1, 1);
            if (k > 0) { tadd(&L, r0, xkm, -1); tadd(&L, r0, xkm + 1, -dt); tadd(&L, r0 + 1, xkm + 1, -1); }
            tadd(&L, r0, uk, -0.5 * dt * dt);
            tadd(&L, r0 + 1, uk, -dt);
            tadd(&L, 2 * T + k, uk, 1);
        }
        st = to_csc(&L, m, n, 0, &p->A);
    }
    if (st == GALA_OK) {
        p->l[0] = p->u[0] = pos0 + dt * vel0;
        p->l[1] = p->u[1] = vel0;
        for (int i = 2; i < 2 * T; ++i) p->l[i] = p->u[i] = 0;
        for (int k = 0; k < T; ++k) { p->l[2 * T + k] = -1; p->u[2 * T + k] = 1; }
        snprintf(p->name, sizeof p->name, "double_integrator_T%d", T);
    }
    gala_free(L.t);
    if (st != GALA_OK) {
        gala_qp_problem_free(p);
        return gala_error(NULL, st, "gala_qp_double_integrator: no memory");
    }
    return GALA_OK;
}

const char *gala_qp_family_name(gala_qp_family f)
{
    switch (f) {
    case GALA_QP_GEN_RANDOM: return "random";
    case GALA_QP_GEN_EQUALITY: return "eq";
    case GALA_QP_GEN_CONTROL: return "control";
    case GALA_QP_GEN_PORTFOLIO: return "portfolio";
    case GALA_QP_GEN_LASSO: return "lasso";
    case GALA_QP_GEN_HUBER: return "huber";
    case GALA_QP_GEN_SVM: return "svm";
    case GALA_QP_GEN_DOUBLE_INTEGRATOR: return "double_integrator";
    default: return "unknown";
    }
}

gala_status gala_qp_generate(gala_qp_family family, int n, uint64_t seed, gala_qp_problem *p)
{
    if (!p) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_generate: problem is NULL");
    memset(p, 0, sizeof *p);
    if (n < 1 || n > 100000)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_generate: n = %d out of range", n);
    if (family == GALA_QP_GEN_DOUBLE_INTEGRATOR) {
        grng r = rng_seed(seed, family, n);
        double pos = 2 * unif(&r) - 1, vel = 2 * unif(&r) - 1;
        return gala_qp_double_integrator(n, pos, vel, p);
    }
    grng r = rng_seed(seed, family, n);
    gala_status st;
    switch (family) {
    case GALA_QP_GEN_RANDOM: st = gen_random(&r, n, p); break;
    case GALA_QP_GEN_EQUALITY: st = gen_equality(&r, n, p); break;
    case GALA_QP_GEN_CONTROL: st = gen_control(&r, n, p); break;
    case GALA_QP_GEN_PORTFOLIO: st = gen_portfolio(&r, n, p); break;
    case GALA_QP_GEN_LASSO: st = gen_lasso(&r, n, p); break;
    case GALA_QP_GEN_HUBER: st = gen_huber(&r, n, p); break;
    case GALA_QP_GEN_SVM: st = gen_svm(&r, n, p); break;
    default:
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_generate: unknown family %d", (int)family);
    }
    p->owned = 1;
    if (st != GALA_OK) {
        gala_qp_problem_free(p);
        return gala_error(NULL, st, "gala_qp_generate: no memory");
    }
    snprintf(p->name, sizeof p->name, "%s_n%d_s%llu", gala_qp_family_name(family), n,
             (unsigned long long)seed);
    return GALA_OK;
}
