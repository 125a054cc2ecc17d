/*
 * Small QPs written as dense arrays, for the QP tests: make_qp builds a gala_qp_problem from
 * P (upper triangle taken, dense n×n row-major, zeros skipped), q, A (dense m×n row-major),
 * l and u; free_qp frees it (or a problem the library allocated, p->owned). Header only.
 */
#ifndef GALA_TESTS_QP_BUILD_H
#define GALA_TESTS_QP_BUILD_H

#include <stdlib.h>
#include <string.h>

#include "gala/gala.h"

/* M = the dense row-major m×n array d in CSC, zeros skipped; upper: only i <= j. */
static inline void csc_from_dense(gala_csc *M, int m, int n, const double *d, int upper)
{
    M->m = m;
    M->n = n;
    M->p = calloc((size_t)n + 1, sizeof(int));
    M->i = malloc(sizeof(int) * (size_t)(m * n + 1));
    M->x = malloc(sizeof(double) * (size_t)(m * n + 1));
    int nz = 0;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) {
            if (upper && i > j) continue;
            double v = d[i * n + j];
            if (v == 0) continue;
            M->i[nz] = i;
            M->x[nz++] = v;
        }
        M->p[j + 1] = nz;
    }
}

static inline gala_qp_problem make_qp(int n, int m, const double *P, const double *q,
                                      const double *A, const double *l, const double *u)
{
    gala_qp_problem p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.m = m;
    csc_from_dense(&p.P, n, n, P, 1);
    csc_from_dense(&p.A, m, n, A, 0);
    p.q = malloc(sizeof(double) * (size_t)n);
    p.l = malloc(sizeof(double) * (size_t)(m + 1));
    p.u = malloc(sizeof(double) * (size_t)(m + 1));
    memcpy(p.q, q, sizeof(double) * (size_t)n);
    if (m) memcpy(p.l, l, sizeof(double) * (size_t)m);
    if (m) memcpy(p.u, u, sizeof(double) * (size_t)m);
    return p;
}

static inline void free_qp(gala_qp_problem *p)
{
    if (p->owned) {
        gala_qp_problem_free(p);
        return;
    }
    free(p->P.p); free(p->P.i); free(p->P.x); free(p->A.p); free(p->A.i); free(p->A.x);
    free(p->q); free(p->l); free(p->u);
    memset(p, 0, sizeof *p);
}

#endif
