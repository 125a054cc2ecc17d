/*
 * Per-QP rules of the QP solver that the kernels (cl/qp/) and the host kernels
 * (src/device/host/k_qp.c) both run, written once: the state words' resets. Included
 * after cl/qp_abi.h (cl/qp/common.clh, k_qp.c), in the subset of C that C11 and OpenCL C
 * have in common.
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

#endif
