/* Polishing of one solved QP on the host (polish.c). */
#ifndef GALA_QP_POLISH_H
#define GALA_QP_POLISH_H

#include "core/internal.h"
#include "gala/qp.h"

/** Polish QP p from its scaled iterates (zs, ys: they choose the active rows), scaled
 *  bounds (ls, us) and scaling (D, E, c); its KKT system factored in `order` (n + m:
 *  gala_qp_kkt_order's, with its bound order_flops, as gala_qd_fact_make; NULL: x first,
 *  then the active rows), in the calling thread's scratch blocks ws[0..3]. On success
 *  writes the unscaled polished x (n), y (m), objective and residuals.
 *  Returns OSQP's status_polish: 1 success (x, y written), -1 not better (x, y written but
 *  to be discarded), 2 no active constraint, -2 linear-system failure or no memory. */
GALA_INTERNAL int gala_qp_polish_one(const gala_qp_problem *p, const int *order,
                                     double order_flops, gala_host_scratch ws[4],
                                     const double *D, const double *E, double c,
                                     const double *zs, const double *ys, const double *ls,
                                     const double *us, double delta, int refine,
                                     double prim_res, double dual_res, double *x, double *y,
                                     double *obj, double *prim_out, double *dual_out);

#endif
