/*
 * The QP tests' comparison of two solvers' results for the same QP (a chunked solver and
 * one batch, the device API and the host API): qp_same_info asserts that two infos agree
 * bit for bit, times excepted (status, iterations, rho updates, polish status, every real,
 * the message). Reals are the same when their bits are, or when both are NaN. Header only;
 * needs testutil.h.
 */
#ifndef GALA_TESTS_QP_COMPARE_H
#define GALA_TESTS_QP_COMPARE_H

#include <math.h>
#include <string.h>

#include "gala/gala.h"
#include "testutil.h"

static inline int qp_same_real(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* QP k's infos a (the reference) and b (the solver under test); what names the step. */
static inline void qp_same_info(int target, const gala_qp_info *a, const gala_qp_info *b, int k,
                                const char *what)
{
    TU_ASSERT(a->status == b->status && a->iter == b->iter && a->rho_updates == b->rho_updates &&
                  a->status_polish == b->status_polish,
              target, "%s: QP %d: %s after %d iterations (%d rho updates, polish %d), against %s "
              "after %d (%d, %d)", what, k, gala_qp_status_string(a->status), a->iter,
              a->rho_updates, a->status_polish, gala_qp_status_string(b->status), b->iter,
              b->rho_updates, b->status_polish);
    TU_ASSERT(qp_same_real(a->obj_val, b->obj_val) && qp_same_real(a->dual_obj_val, b->dual_obj_val) &&
                  qp_same_real(a->prim_res, b->prim_res) && qp_same_real(a->dual_res, b->dual_res) &&
                  qp_same_real(a->duality_gap, b->duality_gap) &&
                  qp_same_real(a->rho_estimate, b->rho_estimate) && qp_same_real(a->rho, b->rho),
              target, "%s: QP %d: objective %.17g / %.17g, dual %.17g / %.17g, residuals %.17g "
              "%.17g / %.17g %.17g, gap %.17g / %.17g, rho estimate %.17g / %.17g, rho %.17g / "
              "%.17g", what, k, a->obj_val, b->obj_val, a->dual_obj_val, b->dual_obj_val,
              a->prim_res, b->prim_res, a->dual_res, b->dual_res, a->duality_gap, b->duality_gap,
              a->rho_estimate, b->rho_estimate, a->rho, b->rho);
    TU_ASSERT(strcmp(a->message, b->message) == 0, target, "%s: QP %d: messages '%s' and '%s'",
              what, k, a->message, b->message);
}

#endif
