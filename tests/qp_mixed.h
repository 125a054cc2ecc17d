/*
 * The mixed batch of the chunk and multi-device tests (test_qp_chunk, test_qp_multi); their
 * comparison of results is qp_compare.h's. Header only; needs testutil.h.
 */
#ifndef GALA_TESTS_QP_MIXED_H
#define GALA_TESTS_QP_MIXED_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gala/gala.h"
#include "qp_build.h"
#include "qp_compare.h"
#include "testutil.h"

/* A mixed batch: control (sizes 2..5), random (3..5) and equality (4..7) QPs from seeded
 * generators, with a primal-infeasible, a dual-infeasible and a non-convex QP among them;
 * bad >= 0: QP bad has a NaN in q (rejected at setup), and so has QP count / 2. */
static inline void qp_mixed_batch(tu_rng *r, gala_qp_problem *pb, int count, int bad)
{
    double I2[] = {1, 0, 0, 1}, qz[] = {0, 0};
    for (int k = 0; k < count; ++k) {
        const uint64_t seed = (uint64_t)tu_int(r, 1, 1000000);
        const int f = tu_int(r, 0, 2);
        gala_qp_family fam = f == 0 ? GALA_QP_GEN_CONTROL : (f == 1 ? GALA_QP_GEN_RANDOM : GALA_QP_GEN_EQUALITY);
        const int size = f == 0 ? tu_int(r, 2, 5) : (f == 1 ? tu_int(r, 3, 5) : tu_int(r, 4, 7));
        if (k % 11 == 5) { /* x1 >= 1 and x1 <= 0 */
            double Ap[] = {1, 0, 1, 0}, lp[] = {1, -INFINITY}, up[] = {INFINITY, 0};
            pb[k] = make_qp(2, 2, I2, qz, Ap, lp, up);
        } else if (k % 11 == 7) { /* min −x1 − x2, x >= 0, P = 0 */
            double P0[] = {0, 0, 0, 0}, qd[] = {-1, -1}, Ad[] = {1, 0, 0, 1}, ld[] = {0, 0},
                   ud[] = {INFINITY, INFINITY};
            pb[k] = make_qp(2, 2, P0, qd, Ad, ld, ud);
        } else if (k % 11 == 9) { /* P indefinite */
            double Pn[] = {-1, 0, 0, 1}, An[] = {1, 0, 0, 1}, ln[] = {-1, -1}, un[] = {1, 1};
            pb[k] = make_qp(2, 2, Pn, qz, An, ln, un);
        } else {
            ck_assert_int_eq(gala_qp_generate(fam, size, seed, &pb[k]), GALA_OK);
        }
    }
    if (bad >= 0) {
        pb[bad].q[0] = NAN;
        pb[count / 2].q[pb[count / 2].n - 1] = NAN;
    }
}

static inline void qp_free_batch(gala_qp_problem *pb, int count)
{
    for (int k = 0; k < count; ++k) free_qp(&pb[k]);
}

#endif
