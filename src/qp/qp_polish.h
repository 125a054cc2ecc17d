/* Polishing of one solved QP on the host (polish.c). */
#ifndef GALA_QP_POLISH_H
#define GALA_QP_POLISH_H

#include "core/internal.h"
#include "gala/qp.h"
#include "qd_ldlt.h"

/** A polished QP's factor, kept for the adjoint derivative (polish.c; derivative.c's
 *  host_one refines with it instead of factoring its own system): the LDLᵀ of the
 *  regularized scaled system [cDPD + δI, D A_actᵀ E; E A_act D, −δI], and the scaling that
 *  maps it to the derivative's unscaled one: sx = √c·D (n), sc = E/√c of the active rows
 *  arow (na, ascending). One block of `bytes`, reused by the next polish of the same QP;
 *  valid while gen equals the solver's kept_gen (a solve or update_matrices moves it). */
typedef struct qp_kept {
    size_t bytes;
    unsigned gen;
    int N, n, na;
    double flops;
    gala_qd_fact F;     /* its arrays in this block */
    double *sx, *sc;
    int *arow;
} qp_kept;

/** Where polishing keeps factors: the QP's slot for its record (NULL: keep none) and the
 *  calling thread's remaining byte budget. */
typedef struct {
    qp_kept **rec;
    size_t *left;
    unsigned gen;
} qp_keep;

/** Polish QP p from its scaled iterates (zs, ys: they choose the active rows), scaled
 *  bounds (ls, us) and scaling (D, E, c); its KKT system factored in `order` (n + m:
 *  gala_qp_kkt_order's, with its bound order_flops, as gala_qd_fact_make; NULL: x first,
 *  then the active rows), in the calling thread's scratch blocks ws[0..3]. On success
 *  writes the unscaled polished x (n), y (m), objective and residuals; with keep (and its
 *  budget), the factor too (qp_kept).
 *  Returns OSQP's status_polish: 1 success (x, y written), -1 not better (x, y written but
 *  to be discarded), 2 no active constraint, -2 linear-system failure or no memory. */
GALA_INTERNAL int gala_qp_polish_one(const gala_qp_problem *p, const int *order,
                                     double order_flops, gala_host_scratch ws[4],
                                     const double *D, const double *E, double c,
                                     const double *zs, const double *ys, const double *ls,
                                     const double *us, double delta, int refine,
                                     double prim_res, double dual_res, double *x, double *y,
                                     double *obj, double *prim_out, double *dual_out,
                                     const qp_keep *keep);

/** Release the kept factors of `count` QPs (recs may be NULL). */
GALA_INTERNAL void gala_qp_kept_free(qp_kept **recs, int count);

#endif
