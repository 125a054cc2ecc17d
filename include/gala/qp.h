/**
 * @file qp.h
 * @brief Quadratic programs: minimize ½xᵀPx + qᵀx + c0 subject to l ≤ Ax ≤ u.
 *
 * A problem lives on the host in double precision; the solver converts it to the
 * precision it runs in. P is given by its upper triangle. Bounds may be ±INFINITY (IEEE);
 * equal bounds make an equality row.
 */
#ifndef GALA_QP_H
#define GALA_QP_H

#include "gala/common.h"
#include "gala/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One QP. Either built by the caller (owned = 0: gala never frees its arrays) or
 *  allocated by gala (a reader or generator; owned = 1: release with
 *  gala_qp_problem_free()). */
typedef struct gala_qp_problem {
    char name[64]; /**< name for reports ("" if none) */
    int n;         /**< variables */
    int m;         /**< constraints (rows of A) */
    gala_csc P;    /**< n×n, upper triangle, positive semidefinite */
    double *q;     /**< linear cost, n entries */
    gala_csc A;    /**< m×n constraint matrix */
    double *l;     /**< lower bounds, m entries (-INFINITY: none) */
    double *u;     /**< upper bounds, m entries (+INFINITY: none) */
    double c0;     /**< constant term of the objective */
    int owned;     /**< 1 if the arrays were allocated by gala */
} gala_qp_problem;

/**
 * @brief Release the arrays of a problem gala allocated (owned = 1) and zero the struct.
 * Problems with owned = 0 are only zeroed. NULL is accepted.
 * @return GALA_OK.
 */
GALA_API gala_status gala_qp_problem_free(gala_qp_problem *problem);

#ifdef __cplusplus
}
#endif

#endif /* GALA_QP_H */
