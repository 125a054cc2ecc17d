/*
 * Per-QP rules of the QP solver that the kernels (cl/qp/) and the host kernels
 * (src/device/host/k_qp.c) both run, written once: the state words' resets, the
 * termination status of a check and the adaptive-ρ step (its ρ estimate, the decision to
 * change ρ, the ladder's step). Included
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

/* A shared-strategy QP b whose row kinds were compared with the batch's (first: the first
 * row that differs, or -1): INVALID (12) with hstat = QP_H_KIND + first, or such an earlier
 * mark (gone after an update) cleared; invalid data (QP_H_HOST) stay so whatever the kinds.
 * idx_t: the side's index type for the state array (gidx, ptrdiff_t). */
#define QP_KIND_MARK(hstat, state, b, first, idx_t)                                      \
    if (hstat[b] == QP_H_HOST) return;                                                   \
    if (first >= 0) {                                                                    \
        hstat[b] = QP_H_KIND + first;                                                    \
        state[(idx_t)b * QP_NSTATE + QP_S_STATUS] = 12;                                  \
    } else if (hstat[b] >= QP_H_KIND) {                                                  \
        hstat[b] = 0;                                                                    \
        state[(idx_t)b * QP_NSTATE + QP_S_STATUS] = 0;                                   \
    }

/* ------------------------------------------------------------------ termination */

/* A QP's status at a termination check (when: check || final_status) and at the last
 * iteration (final_status: the status a QP still running gets there, else 0), OSQP's tests
 * on the residuals of the check: NON_CVX (9) where a residual is NaN or above infty; else
 * SOLVED (1), PRIMAL_INFEASIBLE (3) or DUAL_INFEASIBLE (5) at the exact tolerances, and at
 * the last iteration a second pass at ten times them (2, 4, 6: the inaccurate ones), else
 * final_status; written to st[QP_S_STATUS]. Declares status and exact (the exact pass's
 * verdict, which the adaptive-ρ step reads). The check's sums: ptol, dtol (the tolerances'
 * relative parts), ndy_of, lhs, atdy (δy's norm, its support-function sign and ‖Aᵀδy‖),
 * ndx_of, qdx, pdx (δx's norm, qᵀδx, ‖Pδx‖), VIOL(pass) (a function-like macro: A·δx's
 * violations at pass's tolerance), xpx, qx, sup (xᵀPx, qᵀx, the support function of y);
 * c, cinv the cost scaling, U unscaled termination; QMAX, QABS the NaN-propagating max and
 * the absolute value of the side's REAL; infty, divtol the limits as the side spells them. */
#define QP_TERM_STATUS(when, st, final_status, prim, dual, m, U, c, cinv, dualgap, eps_abs,   \
                       eps_rel, eps_pinf, eps_dinf, ptol, dtol, ndy_of, lhs, atdy, ndx_of, qdx, \
                       pdx, VIOL, xpx, qx, sup, QMAX, QABS, infty, divtol)                   \
    int status = 0, exact = 0;                                                           \
    if (when) {                                                                          \
        if (!(prim <= infty) || !(dual <= infty)) {                                      \
            status = exact = 9;                                                          \
        } else {                                                                         \
            for (int pass = 0; pass < (final_status ? 2 : 1) && !status; ++pass) {       \
                const REAL f = pass ? (REAL)10 : (REAL)1;                                \
                const REAL ea = f * eps_abs, er = f * eps_rel;                           \
                const REAL epi = f * eps_pinf, edi = f * eps_dinf;                       \
                int prim_ok = 1, pinf = 0, dinf = 0, gap_ok = 1;                         \
                if (m > 0) {                                                             \
                    prim_ok = prim < ea + er * ptol;                                     \
                    const REAL ndy = ndy_of;                                             \
                    if (!prim_ok && ndy > divtol && lhs < 0)                             \
                        pinf = atdy < epi * ndy;                                         \
                }                                                                        \
                const int dual_ok = dual < ea + er * (U ? cinv : (REAL)1) * dtol;        \
                const REAL ndx = ndx_of;                                                 \
                if (!dual_ok && ndx > divtol && qdx < 0 &&                               \
                    pdx < (U ? c : (REAL)1) * edi * ndx)                                 \
                    dinf = VIOL(pass) == 0;                                              \
                if (dualgap) {                                                           \
                    const REAL s = U ? cinv : (REAL)1;                                   \
                    const REAL gtol = ea + er * s * QMAX(QABS(xpx), QMAX(QABS(qx), QABS(sup))); \
                    gap_ok = QABS(s * (xpx + qx + sup)) < gtol;                          \
                }                                                                        \
                if (prim_ok && dual_ok && gap_ok) status = pass ? 2 : 1;                 \
                else if (pinf) status = pass ? 4 : 3;                                    \
                else if (dinf) status = pass ? 6 : 5;                                    \
                if (!pass) exact = status;                                               \
            }                                                                            \
            if (!status && final_status) status = final_status;                          \
        }                                                                                \
        st[QP_S_STATUS] = status;                                                        \
    }

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
