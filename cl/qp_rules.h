/*
 * Per-QP rules of the QP solver that the kernels (cl/qp/) and the host kernels
 * (src/device/host/k_qp.c) both run, written once: the state words' resets and the
 * adaptive-ρ step (its ρ estimate, the decision to change ρ, the ladder's step). Included
 * after cl/qp_abi.h (cl/qp/common.clh, k_qp.c), in the subset of C that C11 and OpenCL C
 * have in common, with QP_REAL_C giving REALs on both sides.
 *
 * The macros expand to the kernels' text token for token (tools/cl-same.py: the programs
 * stay the same, so a change here is not a change of a kernel's speed), hence their form:
 *   - statements, the last without its ';' (the caller writes it), no do { } while (0);
 *   - arguments used as they are, not parenthesized: pass names, elements (x[i]) or, where
 *     a condition is asked for, a condition (!exact && adapt), nothing of lower precedence;
 *   - declarations in the caller's scope where the comment says so.
 */
#ifndef GALA_QP_RULES_H
#define GALA_QP_RULES_H

/* ------------------------------------------------------------------ state resets */

/* A QP's state words at its setup (qp_init): running, or INVALID (12) where invalid != 0
 * (hstat[b]); no iterations, no ρ updates; on rung rung0, the only rung visited. */
#define QP_STATE_INIT(st, invalid, rung0)                                                 \
    st[QP_S_STATUS] = invalid ? 12 : 0;                                                  \
    st[QP_S_ITER] = 0;                                                                   \
    st[QP_S_RHOUPD] = 0;                                                                 \
    st[QP_S_RUNG] = rung0;                                                               \
    st[QP_S_SEEN] = QP_RUNG_BIT(rung0);                                                  \
    st[QP_S_REVISIT] = 0

/* A slot's state words before a solve (qp_reset, keep != 0: the ladder rung and a NON_CVX
 * (9) status stay, for a warm or a cold start alike) or after an update (keep = 0: back to
 * rung rung0): INVALID (12) where invalid != 0, else running; no iterations, no ρ updates;
 * the current rung the only one visited. Declares old, the status before. */
#define QP_STATE_RESET(st, invalid, keep, rung0)                                          \
    const int old = st[QP_S_STATUS];                                                     \
    st[QP_S_STATUS] = invalid ? 12 : (keep && old == 9 ? 9 : 0);                         \
    st[QP_S_ITER] = 0;                                                                   \
    st[QP_S_RHOUPD] = 0;                                                                 \
    if (!keep) st[QP_S_RUNG] = rung0;                                                    \
    st[QP_S_SEEN] = QP_RUNG_BIT(st[QP_S_RUNG]);                                          \
    st[QP_S_REVISIT] = 0

/* ------------------------------------------------------------------ adaptive ρ */

/* OSQP's balance of the residuals, from those of the scaled problem and their tolerances
 * (the ∞-norms of the check): declares pn and dn, each residual relative to its
 * tolerance, and ratio = sqrt(pn / dn), the factor OSQP's ρ estimate applies to ρ. */
#define QP_RHO_BALANCE(pn, dn, ratio, prims, ptols, duals, dtols)                        \
    const REAL pn = prims / (ptols + QP_DIVTOL);                                         \
    const REAL dn = duals / (dtols + QP_DIVTOL);                                         \
    const REAL ratio = sqrt(pn / dn)

/* The adaptive-ρ step of a QP (st, inf: its state words and info reals), as OSQP: at every
 * adaptive_rho_interval-th iteration whether or not it is a termination check, after the
 * check and only if it did not stop the QP (when: !exact && adapt), the last iteration
 * included (the new ρ then serves the next solve).
 *   The estimate rn = ρ·ratio, clamped to [QP_RHO_MIN, QP_RHO_MAX] (OSQP's clamp: NaN gives
 * QP_RHO_MIN), replaces ρ when it is more than rho_tol times larger or smaller. Unlike
 * OSQP, a residual that is exactly 0 (x on its bounds in float: Ax = z) leaves ρ as it is:
 * its ratio says nothing of the balance and would send ρ to RHO_MIN or RHO_MAX, where y or
 * z stops moving.
 *   With a ladder (nrungs > 0 rungs of ρ, lrho[k], usable where rungok[k] != 0) ρ moves to
 * the usable rung nearest rn (in ratio), damped against cycles (QP_LADDER_DAMP); without,
 * ρ becomes rn and refac_b (the QP's refactorization flag) is set. A change counts in
 * QP_S_RHOUPD.
 *   Last, info.rho_estimate (QP_I_RHOEST): OSQP's estimate at the end of a solve, from the
 * last iterate and the ρ then in use; every check keeps it current. Declares re. */
#define QP_RHO_ADAPT(when, pn, dn, ratio, rho, rho_tol, nrungs, lrho, rungok, st, inf, refac_b) \
    if (when && pn > 0 && dn > 0) {                                                      \
        REAL rn = rho * ratio;                                                           \
        rn = rn > QP_RHO_MIN ? rn : QP_RHO_MIN;                                          \
        rn = rn < QP_RHO_MAX ? rn : QP_RHO_MAX;                                          \
        if (rn > rho * rho_tol || rn < rho / rho_tol) {                                  \
            if (nrungs > 0) {                                                            \
                int best = st[QP_S_RUNG];                                                \
                REAL bd = QP_INFTY;                                                      \
                for (int k = 0; k < nrungs; ++k) {                                       \
                    if (!rungok[k]) continue;                                            \
                    const REAL r1 = lrho[k] / rn, r2 = rn / lrho[k];                     \
                    const REAL dist = r1 > r2 ? r1 : r2;                                 \
                    if (dist < bd) { bd = dist; best = k; }                              \
                }                                                                        \
                QP_LADDER_DAMP(st, best, rungok);                                        \
                if (best != st[QP_S_RUNG]) {                                             \
                    st[QP_S_RUNG] = best;                                                \
                    inf[QP_I_RHO] = lrho[best];                                          \
                    st[QP_S_RHOUPD] += 1;                                                \
                }                                                                        \
            } else {                                                                     \
                inf[QP_I_RHO] = rn;                                                      \
                refac_b = 1;                                                             \
                st[QP_S_RHOUPD] += 1;                                                    \
            }                                                                            \
        }                                                                                \
    }                                                                                    \
    REAL re = inf[QP_I_RHO] * ratio;                                                     \
    re = re > QP_RHO_MIN ? re : QP_RHO_MIN;                                              \
    inf[QP_I_RHOEST] = re < QP_RHO_MAX ? re : QP_RHO_MAX

/* The ladder's damping (QP_LADDER_REVISITS, cl/qp_abi.h), the damped move: best, the
 * usable rung nearest the estimate (rungok[k] != 0), becomes the rung to move to (the
 * current one: none), the revisits and the visited rungs of st counted. */
#define QP_LADDER_DAMP(st, best, rungok)                                                 \
    do {                                                                                 \
        const int cur_ = (st)[QP_S_RUNG];                                                \
        if ((best) != cur_ && ((st)[QP_S_SEEN] & QP_RUNG_BIT(best))) {                   \
            const int dir_ = (best) > cur_ ? 1 : -1;                                     \
            int k_ = cur_ + dir_;                                                        \
            while (k_ != (best) && !(rungok)[k_]) k_ += dir_;                            \
            (best) = (st)[QP_S_REVISIT] < QP_LADDER_REVISITS ? k_ : cur_;                \
            (st)[QP_S_REVISIT] += (best) != cur_;                                        \
        }                                                                                \
        if ((best) != cur_) (st)[QP_S_SEEN] |= QP_RUNG_BIT(best);                        \
    } while (0)

#endif
