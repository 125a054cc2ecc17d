/**
 * @file qp_derivative.h
 * @brief Derivatives of QP solutions: OSQP 1.x's adjoint derivative, for a whole batch.
 *
 * Given the gradient of a scalar loss L with respect to every QP's solution (dL/dx, dL/dy),
 * gala_qp_adjoint_derivative_compute() gives the gradients of L with respect to each QP's
 * data q, l, u and the values of P and A in their own sparsity patterns, through the KKT
 * conditions at the returned solution (docs/derivatives.md has the mathematics). The
 * functions mirror OSQP's osqp_adjoint_derivative_compute / _get_mat / _get_vec; with
 * dy = 0 the results agree with OSQP's. Each QP's active rows are reduced to an n×n system,
 * formed and factored for the whole batch on the solver's device, in double where the
 * device has fp64 (else in float); the iterative refinement is done in double.
 *
 * Layouts: dx, dq, dl, du are in batch order as gala_qp_get_solutions (Σn, Σm over every
 * QP of the batch); dPx, dAx hold the values of the QPs with valid data one after another
 * in the CSC order given at setup (as gala_qp_update_matrices with k = -1), P's upper
 * triangle as stored. dP(i,j) is ∂L/∂P(i,j) of the symmetric matrix P, as OSQP gives it: an
 * off-diagonal stored value stands for both P(i,j) and P(j,i), so the derivative with
 * respect to that stored number is 2·dP(i,j).
 *
 * Per QP a gala_qp_deriv_status; a QP whose derivative is not GALA_QP_DERIV_OK gets NaN in
 * every output. The call itself succeeds when only some QPs fail.
 */
#ifndef GALA_QP_DERIVATIVE_H
#define GALA_QP_DERIVATIVE_H

#include "gala/qp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Per-QP outcome of gala_qp_adjoint_derivative_compute(). */
typedef enum gala_qp_deriv_status {
    GALA_QP_DERIV_OK = 0,           /**< gradients computed */
    GALA_QP_DERIV_NOT_COMPUTED = 1, /**< no gala_qp_adjoint_derivative_compute since the
                                         last solve */
    GALA_QP_DERIV_NOT_SOLVED = 2,   /**< the QP's status is not GALA_QP_SOLVED (as OSQP,
                                         which refuses other statuses) */
    GALA_QP_DERIV_NOT_FINITE = 3,   /**< dx or dy of this QP holds NaN or ±Inf, or a
                                         gradient came out non-finite */
    GALA_QP_DERIV_SINGULAR = 4      /**< the KKT system is singular for this right-hand side
                                         (e.g. linearly dependent equality rows with dy ≠ 0):
                                         the factorization failed or iterative refinement
                                         did not reach a small residual */
} gala_qp_deriv_status;

/**
 * @brief Compute the adjoint derivative of every QP of a solved batch.
 * @param solver  a solver after gala_qp_solve().
 * @param dx      dL/dx, Σn values in batch order, or NULL (zero).
 * @param dy      dL/dy, Σm values in batch order, or NULL (zero).
 * @return GALA_OK (per-QP outcomes: gala_qp_adjoint_derivative_status);
 *         GALA_ERR_INVALID_ARG (NULL solver, not solved yet); GALA_ERR_NOT_SUPPORTED (a
 *         chunked batch); GALA_ERR_OUT_OF_MEMORY; device errors.
 */
GALA_API gala_status gala_qp_adjoint_derivative_compute(gala_qp_solver *solver, const double *dx,
                                                        const double *dy);

/**
 * @brief Per-QP outcome of the last gala_qp_adjoint_derivative_compute(): count ints
 * (gala_qp_deriv_status), GALA_QP_DERIV_NOT_COMPUTED for all before it and after a solve.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver or status).
 */
GALA_API gala_status gala_qp_adjoint_derivative_status(const gala_qp_solver *solver, int *status);

/**
 * @brief dL/dq (Σn), dL/dl and dL/du (Σm), batch order; any may be NULL. For an equality row
 * (l = u) the gradient goes to du when y ≥ 0 and to dl when y < 0 (OSQP's convention), the
 * other is 0; for an infinite bound it is 0. NaN for a QP whose status is not OK.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver, no derivative computed).
 */
GALA_API gala_status gala_qp_adjoint_derivative_get_vec(const gala_qp_solver *solver, double *dq,
                                                        double *dl, double *du);

/**
 * @brief dL/dP and dL/dA values per QP in its own patterns (layout above); either may be
 * NULL. NaN for a QP whose status is not OK.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver, no derivative computed).
 */
GALA_API gala_status gala_qp_adjoint_derivative_get_mat(const gala_qp_solver *solver, double *dPx,
                                                        double *dAx);

/**
 * @brief For a batch whose QPs share P's and A's patterns (e.g. one P and A, different
 * vectors): the sum over the QPs with valid data of their dL/dP and dL/dA values, in the
 * shared pattern (nnz of P, nnz of A). Either may be NULL. NaN entries when some such QP's
 * derivative status is not OK (check the statuses).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver, no derivative computed, patterns that
 *         differ between QPs, no QP with valid data).
 */
GALA_API gala_status gala_qp_adjoint_derivative_get_mat_sum(const gala_qp_solver *solver,
                                                            double *dPx, double *dAx);

/**
 * @brief The layout of gala_qp_adjoint_derivative_get_mat (and of gala_qp_update_matrices
 * with k = -1): per QP the number of values of P (upper triangle as stored) and of A it has
 * there, in pnz[k] and anz[k] (count ints each; either may be NULL). A QP rejected at setup
 * (invalid data) has no place: 0 and 0. Needs no derivative: the layout is fixed at setup.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver); GALA_ERR_NOT_SUPPORTED (a chunked
 *         batch, as gala_qp_adjoint_derivative_compute).
 */
GALA_API gala_status gala_qp_adjoint_derivative_mat_nnz(const gala_qp_solver *solver, int *pnz,
                                                        int *anz);

#ifdef __cplusplus
}
#endif

#endif
