/*
 * The QP tests' comparison of two solvers' results for the same QPs. qp_same_info asserts
 * that two infos agree, times excepted (status, iterations, rho updates, polish status,
 * every real, the message): reals by their bits, or, where two NaNs may come from
 * different paths (the device API against the host API, test_qp_device), with any two NaNs
 * the same. qp_same_results compares whole batches bit for bit, NaNs included: a chunked
 * or multi-device solver against one batch (test_qp_chunk, test_qp_multi), which promise
 * the very same arithmetic, so that a NaN of another sign or payload is another path and a
 * failure. Header only; needs testutil.h.
 */
#ifndef GALA_TESTS_QP_COMPARE_H
#define GALA_TESTS_QP_COMPARE_H

#include <math.h>
#include <string.h>

#include "gala/gala.h"
#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>

/* n doubles of a and b bit for bit */
static inline int qp_same_bits(const double *a, const double *b, size_t n)
{
    return n == 0 || memcmp(a, b, sizeof(double) * n) == 0;
}

/* a and b the same: by their bits, or (nan_bits 0) both NaN */
static inline int qp_same_real_as(double a, double b, int nan_bits)
{
    return (!nan_bits && isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static inline int qp_same_real(double a, double b) { return qp_same_real_as(a, b, 0); }

/* QP k's infos a (the reference) and b (the solver under test), reals as qp_same_real_as;
 * what names the step. */
static inline void qp_same_info_as(int target, const gala_qp_info *a, const gala_qp_info *b,
                                   int k, const char *what, int nan_bits)
{
    TU_ASSERT(a->status == b->status && a->iter == b->iter && a->rho_updates == b->rho_updates &&
                  a->status_polish == b->status_polish,
              target, "%s: QP %d: %s after %d iterations (%d rho updates, polish %d), against %s "
              "after %d (%d, %d)", what, k, gala_qp_status_string(a->status), a->iter,
              a->rho_updates, a->status_polish, gala_qp_status_string(b->status), b->iter,
              b->rho_updates, b->status_polish);
#define QP_SAME_R_(f) qp_same_real_as(a->f, b->f, nan_bits)
    TU_ASSERT(QP_SAME_R_(obj_val) && QP_SAME_R_(dual_obj_val) && QP_SAME_R_(prim_res) &&
                  QP_SAME_R_(dual_res) && QP_SAME_R_(duality_gap) && QP_SAME_R_(rho_estimate) &&
                  QP_SAME_R_(rho),
              target, "%s: QP %d: objective %.17g / %.17g, dual %.17g / %.17g, residuals %.17g "
              "%.17g / %.17g %.17g, gap %.17g / %.17g, rho estimate %.17g / %.17g, rho %.17g / "
              "%.17g", what, k, a->obj_val, b->obj_val, a->dual_obj_val, b->dual_obj_val,
              a->prim_res, b->prim_res, a->dual_res, b->dual_res, a->duality_gap, b->duality_gap,
              a->rho_estimate, b->rho_estimate, a->rho, b->rho);
#undef QP_SAME_R_
    TU_ASSERT(strcmp(a->message, b->message) == 0, target, "%s: QP %d: messages '%s' and '%s'",
              what, k, a->message, b->message);
}

static inline void qp_same_info(int target, const gala_qp_info *a, const gala_qp_info *b, int k,
                                const char *what)
{
    qp_same_info_as(target, a, b, k, what, 0);
}

/* A NaN no solver writes: an output left unwritten keeps it and differs from any result. */
static inline void qp_poison(double *x, size_t n)
{
    const uint64_t bits = 0x7ff4deadbeef0001ull;
    for (size_t i = 0; i < n; ++i) memcpy(&x[i], &bits, sizeof bits);
}

/* Every QP's info (times excepted, reals by their bits) and solution (x, y, certificates)
 * of a (the reference) and b (solved, when solved is set), bit for bit, through the getters
 * of one QP, of several infos, and of every solution (into NaN-poisoned arrays); the QPs
 * skip_k0 .. skip_k1 - 1 are not compared (nor, then, the whole-batch solutions). */
static inline void qp_same_results(int target, gala_qp_solver *a, gala_qp_solver *b,
                                   const gala_qp_problem *pb, int count, int solved, int skip_k0,
                                   int skip_k1, const char *what)
{
    size_t nx = 0, ny = 0;
    for (int k = 0; k < count; ++k) {
        const int n = pb[k].n > 0 ? pb[k].n : 0, m = pb[k].m > 0 ? pb[k].m : 0;
        nx += (size_t)n;
        ny += (size_t)m;
        if (k >= skip_k0 && k < skip_k1) continue;
        gala_qp_info ia, ib;
        TU_OK(NULL, gala_qp_get_info(a, k, &ia));
        TU_OK(NULL, gala_qp_get_info(b, k, &ib));
        qp_same_info_as(target, &ia, &ib, k, what, 1);
        if (!solved) continue;
        const double *xa, *ya, *pa, *da, *xb, *yb, *pbc, *db;
        TU_OK(NULL, gala_qp_get_solution(a, k, &xa, &ya, &pa, &da));
        TU_OK(NULL, gala_qp_get_solution(b, k, &xb, &yb, &pbc, &db));
        TU_ASSERT(qp_same_bits(xa, xb, (size_t)n) && qp_same_bits(ya, yb, (size_t)m), target,
                  "%s: QP %d (%s): solutions differ: x0 %.17g and %.17g", what, k,
                  gala_qp_status_string(ia.status), n ? xa[0] : 0.0, n ? xb[0] : 0.0);
        TU_ASSERT(qp_same_bits(pa, pbc, (size_t)m) && qp_same_bits(da, db, (size_t)n), target,
                  "%s: QP %d: certificates differ", what, k);
    }
    gala_qp_info *fa = malloc(sizeof *fa * (size_t)(count + 1)), *fb = malloc(sizeof *fb * (size_t)(count + 1));
    TU_OK(NULL, gala_qp_get_infos(a, 0, count, fa));
    TU_OK(NULL, gala_qp_get_infos(b, 0, count, fb));
    for (int k = 0; k < count; ++k)
        TU_ASSERT((k >= skip_k0 && k < skip_k1) ||
                      (fa[k].status == fb[k].status && fa[k].iter == fb[k].iter),
                  target, "%s: get_infos: QP %d", what, k);
    free(fa);
    free(fb);
    if (!solved || skip_k1 > skip_k0) return;
    double *x = malloc(sizeof(double) * (2 * nx + 2 * ny + 1)), *y = x + nx, *x2 = y + ny, *y2 = x2 + nx;
    qp_poison(x, 2 * (nx + ny));
    TU_OK(NULL, gala_qp_get_solutions(a, x, y));
    TU_OK(NULL, gala_qp_get_solutions(b, x2, y2));
    TU_ASSERT(qp_same_bits(x, x2, nx + ny), target, "%s: gala_qp_get_solutions differ", what);
    free(x);
}

#endif
