/*
 * Generators of quasi-definite KKT matrices K = [P + σI, Aᵀ; A, −diag(1/ρ)] (upper triangle,
 * CSC, the form OSQP factors) for the sparse LDLᵀ tests and benchmark. Header only; the
 * caller supplies the random numbers (normal and uniform on [0, 1)) through callbacks.
 *
 *   kkt_random:  random sparse QP: P symmetric, diagonally dominant (so P + σI is positive
 *                definite), about `pdeg` off-diagonal entries per column; A with 1..adeg
 *                entries per row at random columns.
 *   kkt_mpc:     linear MPC over a horizon N with nx states and nu inputs, variables
 *                (x_0, u_0, x_1, u_1, ..., u_{N−1}, x_N); cost blocks Q (dense SPD nx×nx),
 *                R (diagonal); constraints: x_0 = x_init, x_{k+1} = A x_k + B u_k (dense A,
 *                B), bounds on every u_k and x_k. Block-banded: n = (N+1)·nx + N·nu,
 *                m = (N+1)·nx + N·nu + (N+1)·nx, so n + m = 16N + 12 for nx = 4, nu = 2.
 *
 * Both return n (variables) and m (constraints), and fill `csc` (arrays malloc'ed; free with
 * kkt_free). The values are a function of the pattern and the callbacks, so calling
 * kkt_values again (same pattern, new random values, new ρ) gives a refactor test.
 */
#ifndef GALA_TESTS_KKT_GEN_H
#define GALA_TESTS_KKT_GEN_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gala/gala.h" /* not sparse.h first: qp.h, reached through gala.h, needs gala_csc */

typedef struct kkt_rng {
    double (*normal)(void *);
    double (*uniform)(void *);
    void *state;
} kkt_rng;

/* Triplets of the upper triangle, assembled into CSC. */
typedef struct kkt_trip {
    int n, len, cap;
    int *r, *c;
    double *v;
} kkt_trip;

static inline void kkt_add(kkt_trip *t, int r, int c, double v)
{
    if (r > c) { int s = r; r = c; c = s; }
    if (t->len == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->r = realloc(t->r, (size_t)t->cap * sizeof *t->r);
        t->c = realloc(t->c, (size_t)t->cap * sizeof *t->c);
        t->v = realloc(t->v, (size_t)t->cap * sizeof *t->v);
    }
    t->r[t->len] = r;
    t->c[t->len] = c;
    t->v[t->len] = v;
    t->len++;
}

/* Sum duplicates, sort, build CSC (upper triangle, square n). */
static inline void kkt_assemble(kkt_trip *t, gala_csc *A)
{
    const int n = t->n;
    int *cnt = calloc((size_t)n + 1, sizeof *cnt), *pos;
    for (int k = 0; k < t->len; ++k) cnt[t->c[k] + 1]++;
    for (int j = 0; j < n; ++j) cnt[j + 1] += cnt[j];
    pos = malloc(((size_t)n + 1) * sizeof *pos);
    memcpy(pos, cnt, ((size_t)n + 1) * sizeof *pos);
    int *ri = malloc((size_t)(t->len ? t->len : 1) * sizeof *ri);
    double *rv = malloc((size_t)(t->len ? t->len : 1) * sizeof *rv);
    for (int k = 0; k < t->len; ++k) {
        int q = pos[t->c[k]]++;
        ri[q] = t->r[k];
        rv[q] = t->v[k];
    }
    A->m = A->n = n;
    A->p = malloc(((size_t)n + 1) * sizeof *A->p);
    A->i = malloc((size_t)(t->len ? t->len : 1) * sizeof *A->i);
    A->x = malloc((size_t)(t->len ? t->len : 1) * sizeof *A->x);
    int nz = 0;
    A->p[0] = 0;
    for (int j = 0; j < n; ++j) {
        /* insertion sort of the column, then merge duplicates */
        for (int a = cnt[j] + 1; a < cnt[j + 1]; ++a) {
            int r = ri[a];
            double v = rv[a];
            int b = a - 1;
            while (b >= cnt[j] && ri[b] > r) { ri[b + 1] = ri[b]; rv[b + 1] = rv[b]; --b; }
            ri[b + 1] = r;
            rv[b + 1] = v;
        }
        for (int a = cnt[j]; a < cnt[j + 1]; ++a) {
            if (nz > A->p[j] && A->i[nz - 1] == ri[a]) {
                A->x[nz - 1] += rv[a];
            } else {
                A->i[nz] = ri[a];
                A->x[nz] = rv[a];
                nz++;
            }
        }
        A->p[j + 1] = nz;
    }
    free(cnt); free(pos); free(ri); free(rv);
    free(t->r); free(t->c); free(t->v);
    memset(t, 0, sizeof *t);
}

static inline void kkt_free(gala_csc *A)
{
    free(A->p); free(A->i); free(A->x);
    memset(A, 0, sizeof *A);
}

/* New values on the pattern of a KKT matrix from kkt_random or kkt_mpc (n variables): the
 * variable block gets diagonally dominant values (positive definite), the constraint block
 * A random values, the lower-right diagonal −1/ρ with ρ in [0.1, 10]. */
static inline void kkt_values(gala_csc *K, int n, kkt_rng *g)
{
    const int N = K->n;
    double *rowsum = calloc((size_t)N + 1, sizeof *rowsum);
    for (int j = 0; j < N; ++j)
        for (int p = K->p[j]; p < K->p[j + 1]; ++p) {
            const int i = K->i[p];
            if (i == j) continue;
            const double v = g->normal(g->state) * (j < n ? 0.5 : 1.0);
            K->x[p] = v;
            if (j < n) { rowsum[i] += fabs(v); rowsum[j] += fabs(v); }
        }
    for (int j = 0; j < N; ++j)
        for (int p = K->p[j]; p < K->p[j + 1]; ++p)
            if (K->i[p] == j)
                K->x[p] = j < n ? 0.5 + rowsum[j] + g->uniform(g->state) + 1e-6
                                : -1.0 / (0.1 + 9.9 * g->uniform(g->state));
    free(rowsum);
}

static inline int kkt_rand_int(kkt_rng *g, int lo, int hi)
{
    int v = lo + (int)(g->uniform(g->state) * (hi - lo + 1));
    return v > hi ? hi : v;
}

/* Random sparse QP: n variables, m constraints. */
static inline void kkt_random(kkt_rng *g, int n, int m, int pdeg, int adeg, gala_csc *K)
{
    kkt_trip t;
    memset(&t, 0, sizeof t);
    t.n = n + m;
    for (int j = 0; j < n; ++j) {
        kkt_add(&t, j, j, 1);
        for (int d = 0; d < pdeg && n > 1; ++d) {
            int i = kkt_rand_int(g, 0, n - 1);
            if (i != j) kkt_add(&t, i, j, 0);
        }
    }
    for (int r = 0; r < m; ++r) {
        const int c = kkt_rand_int(g, 1, adeg);
        for (int d = 0; d < c && n > 0; ++d) kkt_add(&t, kkt_rand_int(g, 0, n - 1), n + r, 0);
        kkt_add(&t, n + r, n + r, -1);
    }
    kkt_assemble(&t, K);
    kkt_values(K, n, g);
}

/* MPC over horizon N (see the file comment). Returns n; *m_out gets m. */
static inline int kkt_mpc(kkt_rng *g, int N, int nx, int nu, gala_csc *K, int *m_out)
{
    const int n = (N + 1) * nx + N * nu;
    const int m = (N + 1) * nx + N * nu + (N + 1) * nx;
    kkt_trip t;
    memset(&t, 0, sizeof t);
    t.n = n + m;
    /* variable index of x_k(i) and u_k(i) */
#define KX(k, i) ((k) * (nx + nu) + (i))
#define KU(k, i) ((k) * (nx + nu) + nx + (i))
    for (int k = 0; k <= N; ++k) {
        for (int a = 0; a < nx; ++a)
            for (int b = a; b < nx; ++b) kkt_add(&t, KX(k, a), KX(k, b), 0);
        if (k < N)
            for (int a = 0; a < nu; ++a) kkt_add(&t, KU(k, a), KU(k, a), 0);
    }
    int row = n;
    for (int i = 0; i < nx; ++i, ++row) { /* x_0 = x_init */
        kkt_add(&t, KX(0, i), row, 0);
        kkt_add(&t, row, row, 0);
    }
    for (int k = 0; k < N; ++k) /* x_{k+1} − A x_k − B u_k = 0 */
        for (int i = 0; i < nx; ++i, ++row) {
            for (int j = 0; j < nx; ++j) kkt_add(&t, KX(k, j), row, 0);
            for (int j = 0; j < nu; ++j) kkt_add(&t, KU(k, j), row, 0);
            kkt_add(&t, KX(k + 1, i), row, 0);
            kkt_add(&t, row, row, 0);
        }
    for (int k = 0; k < N; ++k) /* input bounds */
        for (int i = 0; i < nu; ++i, ++row) {
            kkt_add(&t, KU(k, i), row, 0);
            kkt_add(&t, row, row, 0);
        }
    for (int k = 0; k <= N; ++k) /* state bounds */
        for (int i = 0; i < nx; ++i, ++row) {
            kkt_add(&t, KX(k, i), row, 0);
            kkt_add(&t, row, row, 0);
        }
#undef KX
#undef KU
    kkt_assemble(&t, K);
    kkt_values(K, n, g);
    *m_out = m;
    return n;
}

#endif
