/*
 * qp: the batched ADMM QP solver (OSQP's algorithm) — every per-QP step runs here, for the
 * whole batch: scaling, forming and inverting the reduced matrix, the ADMM iterations, the
 * termination / infeasibility tests, ρ decisions, and counting the QPs still running.
 *
 * Data of QP b (all scaled in place by qp_scale):
 *   meta[b·QP_NMETA + ...]   n, m, offsets of its n-vectors, m-vectors, K⁻¹ (/QP_KALIGN), row
 *                         kinds; per matrix block (P full symmetric CSR, A CSR, Aᵀ CSR) the
 *                         offsets of its row pointers (rp), column indices (ci), values (mv);
 *                         its raw CSC values and the CSC -> CSR maps (qp_expand)
 *   vn[k·ntot + xo + j]   n-vectors, kind k: X, XPREV, XT, R, Q, D, W2 (refinement, output)
 *   vm[k·mtot + zo + i]   m-vectors, kind k: Z, Y, YPREV, L, U, E, W (refinement, output)
 *   ctype[co + i]         row kind: 0 free (ρ_i = 1e-6), 1 inequality (ρ), 2 equality (1e3·ρ)
 *   rp, ci                row pointers (from the block's start) and column indices, stored
 *                         once per distinct sparsity pattern (QPs of one pattern share them)
 *   mv                    values, per QP (once for the batch in the shared strategy)
 *   K[ko·QP_KALIGN ...]      n×n column-major K⁻¹ = (P + σI + Aᵀdiag(ρ)A)⁻¹
 *   state[b·QP_NSTATE + ...] status (0 running), iterations, ρ updates, ladder rung
 *   info[b·QP_NINFO + ...]   ρ, cost scale c, residuals, objective, gap, ρ estimate, dual
 *                         objective, the residuals of the scaled problem
 *
 * qp_admm — one work-group owns TB QPs (TB = 1: per-QP K⁻¹; TB > 1: QPs sharing P and A,
 * with K⁻¹ from a ρ ladder) and runs `iters` ADMM iterations with x, z, y (and x̃, r) in
 * local memory (VLOCAL = 1) or in global memory (VLOCAL = 0, large QPs):
 *
 *     r  = σx − q + Aᵀ(ρ∘z − y)          one work-item per (column j, QB QPs) [Aᵀ rows]
 *     x̃  = K⁻¹ r                          one work-item per (row i, QB QPs): Σ_j K[i + j·n]·r_j
 *     x  = αx̃ + (1−α)x                    coalesced over i (column-major K)
 *     z̃  = A x̃ ; ẑ = αz̃ + (1−α)z         one work-item per (row i, QB QPs)    [A rows]
 *     z  = Π[l,u](ẑ + y/ρ) ; y += ρ(ẑ − z)
 *
 * then, when asked, the termination check of OSQP 1.0 (residuals, tolerances, duality gap,
 * primal/dual infeasibility, non-convexity, ρ estimate) with reductions in local memory
 * only, and writes the QP's status. Finished QPs leave the launch lists (qp_compact_*)
 * and are skipped by the launches before that.
 *
 * gala-defines: WG=128 TB=4 NCAP=128 MCAP=128 VLOCAL=1 REFINE=1 KS=1 RB=2 QB=4 MINB=4 TL=1
 * -D parameters: WG (work-group size, a multiple of 32), TB (QPs per work-group, power of
 * two <= WG), NCAP / MCAP (local capacity per QP for n- and m-vectors), VLOCAL (1: vectors
 * in local memory), REFINE (1: one step of iterative refinement per solve, for float), KS
 * (TB = 1: column slices of the K⁻¹ product), RB (TB > 1: rows of the K⁻¹ product per
 * work-item), QB (TB > 1: QPs per work-item in the K⁻¹ product and the sparse products),
 * MINB (qp_admm: work-groups per SM the CUDA compiler must fit), TL (TB > 1: 1 for the tile
 * layout of the local vectors, below). The other kernels use WG only.
 */

/* QP_PART: which kernels this program holds, so that no program compiles kernels its call
 * never launches (compiling dominates a first call: docs/design.md, "The first call").
 * Absent or 0: every kernel; 1: the utility kernels (scaling, K, vectors, counts; the
 * solver's key without a bin); 2: the sparse and PCG strategies' qp_kkt_* and qp_pcg*;
 * 3: qp_admm and qp_check (a bin's key). */
#ifndef QP_PART
#define QP_PART 0
#endif
#define QP_HAS(p) (QP_PART == 0 || QP_PART == (p))

/* QPs whose K⁻¹ products one work-item computes together (register blocking; -D QB, a
 * divisor of TB, else 4 or TB) */
#ifndef QB
#if TB >= 4
#define QB 4
#else
#define QB TB
#endif
#endif
#if TB % QB != 0
#error "QB must divide TB"
#endif

/* column slices of the K⁻¹ product of one QP per work-group (-D KS; TB = 1 with the
 * vectors in local memory only) */
#if VLOCAL && TB == 1 && defined(KS)
#define KSPLIT KS
#else
#define KSPLIT 1
#endif
/* rows of the K⁻¹ product per work-item in a tile (-D RB, TB > 1) */
#if defined(RB) && RB > 1 && TB > 1
#define RBLK RB
#else
#define RBLK 1
#endif

#if defined(KFAC) && KFAC
#error "qp.factor = 2 (KFAC: Cholesky factors solved every iteration) is implemented by the host backend's kernels only"
#endif

/* the layouts, constants and argument lists shared with the host (cl/qp_abi.h) */
#define QP_REAL_C(x) ((REAL)(x))
#include "qp_abi.h"
#ifdef GALA_DOUBLE
#define QP_DEADZONE ((REAL)QP_DEADZONE_d)
#else
#define QP_DEADZONE ((REAL)QP_DEADZONE_f)
#endif

/* the matrix blocks of a QP: row pointers, column indices, values */
#define QP_MATS(mt)                                                                         \
    GLOBAL const int *Pp = rp + (mt)[QP_M_PP], *Pc = ci + (mt)[QP_M_PC];                    \
    GLOBAL const int *Ap = rp + (mt)[QP_M_AP], *Ac = ci + (mt)[QP_M_AC];                    \
    GLOBAL const int *Tp = rp + (mt)[QP_M_TP], *Tc = ci + (mt)[QP_M_TC]
#define QP_VALS(mt, Q)                                                                      \
    Q REAL *Pv = mv + (mt)[QP_M_PV], *Av = mv + (mt)[QP_M_AV], *Tv = mv + (mt)[QP_M_TV]

DEVFN REAL qp_rho_row(int ct, REAL rho)
{
    return ct == 0 ? QP_RHO_MIN : (ct == 2 ? QP_RHO_EQ * rho : rho);
}

/* max that propagates NaN */
DEVFN REAL qp_max(REAL a, REAL b) { return (a != a || b != b) ? a + b : (a > b ? a : b); }
DEVFN REAL qp_abs(REAL a) { return a < 0 ? -a : a; }
DEVFN REAL qp_limit(REAL v) { return v < QP_MIN_SCALING ? (REAL)1 : (v > QP_MAX_SCALING ? QP_MAX_SCALING : v); }

/* Projection of v onto the polar of the recession cone of [l, u]. */
DEVFN REAL qp_polar(REAL v, REAL l, REAL u)
{
    if (u > QP_INFV) return l < -QP_INFV ? (REAL)0 : (v < 0 ? v : (REAL)0);
    if (l < -QP_INFV) return v > 0 ? v : (REAL)0;
    return v;
}
/* u·max(v, 0) + l·min(v, 0) */
DEVFN REAL qp_support(REAL v, REAL l, REAL u) { return v > 0 ? u * v : (v < 0 ? l * v : (REAL)0); }

/* ------------------------------------------------------------------------------------ */
/* Reductions over the work-items of one QP column: item lid works for column lid % TB;  */
/* reduce four values at once (op bit k: 1 = sum, 0 = max); the results of column t are  */
/* left in part[k·WG + t]. Every work-item must call it.                                */
/* ------------------------------------------------------------------------------------ */
/* A macro: every work-item stores its partial values, then a tree halves the live range
 * [0, n_) while it holds more than one partial per column (the half a multiple of tb, so a
 * column's partials stay in its column), and work-items t < tb combine what is left
 * serially (nothing when tb divides the halvings down to tb). The tree is one loop with a
 * uniform, compile-time trip count and a barrier per step, not nested in another loop
 * (PoCL mishandles barriers in loops nested in other loops). The serial form it replaces
 * had one work-item per column combine wg/tb partials: 4·256 dependent local loads per
 * reduction for one QP per work-group of 256, five reductions per qp_check. */
#define QP_RED4(part, lid, wg, tb, a, b, c, d, ops)                                         \
    {                                                                                       \
        LOCAL_BARRIER();                                                                    \
        part[lid] = (a);                                                                    \
        part[(wg) + lid] = (b);                                                             \
        part[2 * (wg) + lid] = (c);                                                         \
        part[3 * (wg) + lid] = (d);                                                         \
        int n_ = (wg);                                                                      \
        for (int h_ = ((wg) / (tb) + 1) / 2 * (tb); (wg) % (tb) == 0 && n_ > (tb);          \
             h_ = (h_ / (tb) + 1) / 2 * (tb)) {                                             \
            LOCAL_BARRIER();                                                                \
            if (lid + h_ < n_) {                                                            \
                for (int k_ = 0; k_ < 4; ++k_) {                                            \
                    const REAL p_ = part[k_ * (wg) + lid], q_ = part[k_ * (wg) + lid + h_]; \
                    part[k_ * (wg) + lid] = (((ops) >> k_) & 1) ? p_ + q_ : qp_max(p_, q_); \
                }                                                                           \
            }                                                                               \
            n_ = h_;                                                                        \
        }                                                                                   \
        LOCAL_BARRIER();                                                                    \
        if (lid < (tb) && n_ > (tb)) {                                                      \
            for (int k_ = 0; k_ < 4; ++k_) {                                                \
                REAL acc_ = part[k_ * (wg) + lid];                                          \
                for (int r_ = lid + (tb); r_ < n_; r_ += (tb)) {                            \
                    REAL q_ = part[k_ * (wg) + r_];                                         \
                    acc_ = (((ops) >> k_) & 1) ? acc_ + q_ : qp_max(acc_, q_);              \
                }                                                                           \
                part[k_ * (wg) + lid] = acc_;                                               \
            }                                                                               \
        }                                                                                   \
        LOCAL_BARRIER();                                                                    \
    }

/* ------------------------------------------------------------------------------------ */
/* Ruiz equilibration and cost scaling as OSQP's scale_data, one round per launch of        */
/* qp_scale_norms + qp_scale_update (the host loops `scaling` times), then qp_scale_apply.  */
/* D, E (1 on entry) and c = info[QP_I_C] (1 on entry) accumulate; the matrices are scaled     */
/* once, at the end, so norms are computed on the fly: |c·D_i P_ij D_j|, |E_i A_ij D_j|.   */
/* P's column norms are those of its upper triangle (i <= j; row j of the full symmetric P  */
/* restricted to columns <= j), in the Ruiz step and the cost scaling: OSQP 1.x's builtin   */
/* scale_data takes csc_col_norm_inf of the upper triangle it stores (OSQP 0.6 took the     */
/* symmetric matrix); so gala's scaling, and hence its iterates, are OSQP 1.x's.            */
/* One work-group per QP; R and YPREV hold the round's factors.                             */
/* (Separate kernels: PoCL mishandles several barrier regions inside a loop.)               */
/* ------------------------------------------------------------------------------------ */
#define QP_SCALE_PROLOGUE                                                                   \
    const gidx g = GRP(0);                                                                  \
    const int ok = g < nlist;                                                               \
    const int b = ok ? list[g] : 0;                                                         \
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;                                       \
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;                             \
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];                                          \
    QP_MATS(mt);                                                                            \
    GLOBAL REAL *Dv = vn + QP_V_D * ntot + xo, *Dt = vn + QP_V_R * ntot + xo;               \
    GLOBAL REAL *q = vn + QP_V_Q * ntot + xo;                                               \
    GLOBAL REAL *Ev = vm + QP_V_E * mtot + zo, *Et = vm + QP_V_YPREV * mtot + zo;           \
    const REAL c = info[(gidx)b * QP_NINFO + QP_I_C];                                       \
    const int lid = (int)LID(0)

KERNEL void qp_scale_norms(GALA_PARAMS(QP_ARGS_scale_norms))
{
    QP_SCALE_PROLOGUE;
    QP_VALS(mt, GLOBAL const);
    (void)q;
    for (int j = lid; j < n; j += WG) {
        REAL nrm = 0, dj = Dv[j];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] <= j) nrm = qp_max(nrm, qp_abs(c * dj * Pv[k] * Dv[Pc[k]]));
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) nrm = qp_max(nrm, qp_abs(Ev[Tc[k]] * Tv[k] * dj));
        Dt[j] = (REAL)1 / sqrt(qp_limit(nrm));
    }
    for (int i = lid; i < m; i += WG) {
        REAL nrm = 0, ei = Ev[i];
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) nrm = qp_max(nrm, qp_abs(ei * Av[k] * Dv[Ac[k]]));
        Et[i] = (REAL)1 / sqrt(qp_limit(nrm));
    }
}

KERNEL void qp_scale_update(GALA_PARAMS(QP_ARGS_scale_norms))
{
    LOCAL_ARRAY REAL part[4 * WG];
    QP_SCALE_PROLOGUE;
    QP_VALS(mt, GLOBAL const);
    (void)Ap;
    (void)Ac;
    (void)Tp;
    (void)Tc;
    (void)Av;
    (void)Tv;
    for (int j = lid; j < n; j += WG) Dv[j] *= Dt[j];
    for (int i = lid; i < m; i += WG) Ev[i] *= Et[i];
    GLOBAL_BARRIER();
    /* cost scaling: mean column norm of the scaled P and the norm of the scaled q */
    REAL sum = 0, qn = 0;
    for (int j = lid; j < n; j += WG) {
        REAL nrm = 0, dj = Dv[j];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] <= j) nrm = qp_max(nrm, qp_abs(c * dj * Pv[k] * Dv[Pc[k]]));
        sum += nrm;
        qn = qp_max(qn, qp_abs(c * dj * q[j]));
    }
    QP_RED4(part, lid, WG, 1, sum, qn, 0, 0, 1);
    if (ok && lid == 0) {
        REAL ct = qp_max(part[0] / (REAL)(n > 0 ? n : 1), qp_limit(part[WG]));
        info[(gidx)b * QP_NINFO + QP_I_C] = c / qp_limit(ct);
    }
}

KERNEL void qp_scale_apply(GALA_PARAMS(QP_ARGS_scale_apply))
{
    QP_SCALE_PROLOGUE;
    QP_VALS(mt, GLOBAL);
    (void)Dt;
    (void)Et;
    GLOBAL REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    for (int j = lid; j < n; j += WG) {
        REAL dj = Dv[j];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) Pv[k] *= c * dj * Dv[Pc[k]];
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) Tv[k] *= Ev[Tc[k]] * dj;
        q[j] *= c * dj;
    }
    for (int i = lid; i < m; i += WG) {
        REAL ei = Ev[i];
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) Av[k] *= ei * Dv[Ac[k]];
        REAL lv = l[i] * ei, uv = u[i] * ei;
        l[i] = lv;
        u[i] = uv;
        int t = 1;
        if (lv < -QP_INFV && uv > QP_INFV) t = 0;
        else if (uv - lv < (REAL)1e-4) t = 2;
        ctype[mt[QP_M_CO] + i] = rho_is_vec ? t : 1;
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_form_k: for job g with flag[g] != 0: K = P + σI + Aᵀdiag(ρ)A (dense, column-major)  */
/* of QP jqp[g] with ρ = jrho[g·jrs + jro], at K[jko[g]·QP_KALIGN]. One work-group per job:  */
/* the block is zeroed by all work-items (coalesced), then work-item j owns column j:     */
/*     K(:, j) = P(:, j) + σe_j + Σ_{r: A_rj ≠ 0} ρ_r A_rj A(r, :)ᵀ                       */
/* With lower != 0 only K(i, j), i >= j, is formed (what a lower Cholesky reads).         */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_form_k(GALA_PARAMS(QP_ARGS_form_k))
{
    const int lid = (int)LID(0);
    const gidx g = GRP(0) < njobs ? GRP(0) : 0;
    const int active = GRP(0) < njobs && flag[g] != 0;
    const int b = jqp[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    /* no early exit around the barrier (PoCL): an inactive group runs every loop 0 times */
    const int n = active ? mt[QP_M_N] : 0;
    const gidx co = mt[QP_M_CO];
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    const REAL rho = jrho[g * jrs + jro];
    GLOBAL REAL *Kb = K + (gidx)jko[g] * QP_KALIGN;
    const gidx nn = (gidx)n * n;
    for (gidx idx = lid; idx < nn; idx += WG) Kb[idx] = 0;
    GLOBAL_BARRIER();
    for (int j = lid; j < n; j += WG) {
        GLOBAL REAL *col = Kb + (gidx)j * n;
        const int lo = lower ? j : 0;
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] >= lo) col[Pc[k]] += Pv[k];
        col[j] += sigma;
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
            const int r = Tc[k];
            const REAL w = qp_rho_row(ctype[co + r], rho) * Tv[k];
            for (int k2 = Ap[r]; k2 < Ap[r + 1]; ++k2)
                if (Ac[k2] >= lo) col[Ac[k2]] += w * Av[k2];
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_chol_inv: in place K ← K⁻¹ by the symmetric sweep (Gauss–Jordan without pivoting,   */
/* stable for SPD): for each k, with d = K(k,k) > 0:                                       */
/*     K(i,j) −= K(i,k)K(k,j)/d (i,j ≠ k);  K(i,k), K(k,j) /= d;  K(k,k) = −1/d           */
/* which leaves −K⁻¹; a pivot d ≤ 0 (or NaN) means K is not positive definite: jinfo[g] = */
/* k + 1, and with set_status the QP's status becomes NON_CVX (9). flag[g] is cleared.     */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_chol_inv(GALA_PARAMS(QP_ARGS_chol_inv))
{
    const int lid = (int)LID(0);
    /* one work-group per job; no early exit (return, continue, break) around barriers:
     * every work-item runs the same trip counts */
    {
        const gidx g = GRP(0) < njobs ? GRP(0) : 0;
        const int active = GRP(0) < njobs && flag[g] != 0;
        const int b = jqp[g];
        const int n = active ? meta[(gidx)b * QP_NMETA + QP_M_N] : 0;
        GLOBAL REAL *A = K + (gidx)jko[g] * QP_KALIGN;
        const gidx nn = (gidx)n * n;
        int fail = 0;
        GLOBAL_BARRIER();
        for (int k = 0; k < n; ++k) {
            const REAL d = A[(gidx)k * n + k];
            if (!fail && !(d > 0)) fail = k + 1;
            if (!fail) {
                for (gidx idx = lid; idx < nn; idx += WG) {
                    const gidx j = idx / n, i = idx - j * n;
                    if (i != k && j != k) A[idx] -= A[(gidx)k * n + i] * A[j * n + k] / d;
                }
            }
            GLOBAL_BARRIER();
            if (!fail) {
                for (int i = lid; i < n; i += WG) {
                    if (i != k) {
                        A[(gidx)k * n + i] /= d;
                        A[(gidx)i * n + k] /= d;
                    }
                }
                if (lid == 0) A[(gidx)k * n + k] = -(REAL)1 / d;
            }
            GLOBAL_BARRIER();
        }
        if (active && !fail)
            for (gidx idx = lid; idx < nn; idx += WG) A[idx] = -A[idx];
        if (active && lid == 0) {
            jinfo[g] = fail;
            flag[g] = 0;
            if (fail && set_status) state[(gidx)b * QP_NSTATE + QP_S_STATUS] = 9;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_mirror: for job g with flag[g] != 0: copy the lower triangle of the n×n matrix at    */
/* K[jko[g]·QP_KALIGN] to its upper triangle (after gala_potri, which writes one triangle);    */
/* with ok[g] != 0 only; clears flag[g]. One work-group per job, no barrier.               */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_mirror(GALA_PARAMS(QP_ARGS_mirror))
{
    const gidx g = GRP(0);
    if (g >= njobs || !flag[g]) return;
    const int n = meta[(gidx)jqp[g] * QP_NMETA + QP_M_N];
    GLOBAL REAL *A = K + (gidx)jko[g] * QP_KALIGN;
    const gidx nn = (gidx)n * n;
    for (gidx idx = LID(0); idx < nn; idx += WG) {
        const gidx j = idx / n, i = idx - j * n;
        if (i < j) A[idx] = A[i * n + j];
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_expand: the CSR values of every listed QP from its raw CSC values (unscaled):        */
/*   P's upper CSC entry e -> rows map[PM + 2e] and (mirror, or -1) map[PM + 2e + 1] of the */
/*   full symmetric P; A's CSC entry e -> map[AM + e] in A's CSR and e in Aᵀ's (A's CSC). */
/*     raw: [P.x (PNZ) | A.x (ANZ)]  --map-->  mv: [P rows | A rows | Aᵀ rows]              */
/* One work-group per QP, no barrier.                                                      */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_expand(GALA_PARAMS(QP_ARGS_expand))
{
    const int lid = (int)LID(0);
    for (gidx g = GRP(0); g < nlist; g += NGRP(0)) {
        GLOBAL const int *mt = meta + (gidx)list[g] * QP_NMETA;
        const int pnz = mt[QP_M_PNZ], anz = mt[QP_M_ANZ];
        GLOBAL const REAL *r = raw + mt[QP_M_RO];
        GLOBAL const int *pm = map + mt[QP_M_PM], *am = map + mt[QP_M_AM];
        QP_VALS(mt, GLOBAL);
        for (int e = lid; e < pnz; e += WG) {
            const REAL v = r[e];
            Pv[pm[2 * e]] = v;
            if (pm[2 * e + 1] >= 0) Pv[pm[2 * e + 1]] = v;
        }
        for (int e = lid; e < anz; e += WG) {
            const REAL v = r[pnz + e];
            Av[am[e]] = v;
            Tv[e] = v;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_init: per listed QP before scaling: info = (ρ = rho unless keep_rho, c = 1, the     */
/* rest 0), D = 1, E = 1, state = (running, or INVALID where hstat != 0; 0 iterations,    */
/* 0 ρ updates, rung rung0). One work-group per QP, no barrier.                            */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_init(GALA_PARAMS(QP_ARGS_init))
{
    const int lid = (int)LID(0);
    for (gidx g = GRP(0); g < nlist; g += NGRP(0)) {
        const int b = list[g];
        GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        GLOBAL REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
        for (int j = lid; j < n; j += WG) D[j] = 1;
        for (int i = lid; i < m; i += WG) E[i] = 1;
        if (lid < QP_NINFO && !(lid == QP_I_RHO && keep_rho))
            info[(gidx)b * QP_NINFO + lid] = lid == QP_I_RHO ? rho : (lid == QP_I_C ? (REAL)1 : (REAL)0);
        if (lid == 0) {
            GLOBAL int *st = state + (gidx)b * QP_NSTATE;
            st[QP_S_STATUS] = hstat[b] ? 12 : 0;
            st[QP_S_ITER] = 0;
            st[QP_S_RHOUPD] = 0;
            st[QP_S_RUNG] = rung0;
            st[QP_S_SEEN] = QP_RUNG_BIT(rung0);
            st[QP_S_REVISIT] = 0;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_reset: the state of every slot before a solve (keep != 0: the ladder rung and a     */
/* NON_CVX status stay) or after an update (keep = 0: rung = rung0): status INVALID where  */
/* hstat != 0, else running; iterations and ρ updates 0. One work-item per slot.          */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_reset(GALA_PARAMS(QP_ARGS_reset))
{
    const gidx b = GID(0);
    if (b >= nslots) return;
    GLOBAL int *st = state + b * QP_NSTATE;
    const int old = st[QP_S_STATUS];
    st[QP_S_STATUS] = hstat[b] ? 12 : (keep && old == 9 ? 9 : 0);
    st[QP_S_ITER] = 0;
    st[QP_S_RHOUPD] = 0;
    if (!keep) st[QP_S_RUNG] = rung0;
    st[QP_S_SEEN] = QP_RUNG_BIT(st[QP_S_RUNG]);
    st[QP_S_REVISIT] = 0;
}

/* A shared-strategy QP b whose row kinds were compared with the batch's (first: the first
 * row that differs, or -1): INVALID with hstat = QP_H_KIND + first, or such an earlier mark
 * (gone after an update) cleared; invalid data (QP_H_HOST) stay so whatever the kinds. */
DEVFN void qp_kind_mark(GLOBAL int *hstat, GLOBAL int *state, const int b, const int first)
{
    if (hstat[b] == QP_H_HOST) return;
    if (first >= 0) {
        hstat[b] = QP_H_KIND + first;
        state[(gidx)b * QP_NSTATE + QP_S_STATUS] = 12;
    } else if (hstat[b] >= QP_H_KIND) {
        hstat[b] = 0;
        state[(gidx)b * QP_NSTATE + QP_S_STATUS] = 0;
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_shared_apply (shared strategy): list[0] is the reference QP, already scaled; every   */
/* other listed QP takes its D, E and c, scales its own q, l, u and compares its row kinds */
/* with the reference's ctype[0 .. m): a difference makes it INVALID (hstat = QP_H_KIND + the */
/* first such row; an earlier such mark is cleared when the kinds agree again). One        */
/* work-group per QP.                                                                      */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_shared_apply(GALA_PARAMS(QP_ARGS_shared_apply))
{
    LOCAL_ARRAY REAL part[4 * WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0);
    const int ok = g > 0 && g < nlist;
    const int b = ok ? list[g] : list[0], r = list[0];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA, *mr = meta + (gidx)r * QP_NMETA;
    /* no early exit around barriers: the reference's group runs its loops 0 times */
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    GLOBAL REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
    GLOBAL const REAL *D0 = vn + QP_V_D * ntot + mr[QP_M_XO], *E0 = vm + QP_V_E * mtot + mr[QP_M_ZO];
    GLOBAL REAL *q = vn + QP_V_Q * ntot + mt[QP_M_XO];
    GLOBAL REAL *l = vm + QP_V_L * mtot + mt[QP_M_ZO], *u = vm + QP_V_U * mtot + mt[QP_M_ZO];
    const REAL c = info[(gidx)r * QP_NINFO + QP_I_C];
    for (int j = lid; j < n; j += WG) {
        D[j] = D0[j];
        q[j] *= c * D0[j];
    }
    REAL first = 0; /* m − (first row whose kind differs), 0 if none */
    for (int i = lid; i < m; i += WG) {
        const REAL e = E0[i], lv = l[i] * e, uv = u[i] * e;
        E[i] = e;
        l[i] = lv;
        u[i] = uv;
        int t = 1;
        if (lv < -QP_INFV && uv > QP_INFV) t = 0;
        else if (uv - lv < (REAL)1e-4) t = 2;
        if ((rho_is_vec ? t : 1) != ctype[mr[QP_M_CO] + i] && first == 0) first = (REAL)(m - i);
    }
    QP_RED4(part, lid, WG, 1, first, 0, 0, 0, 0);
    if (ok && lid == 0) {
        info[(gidx)b * QP_NINFO + QP_I_C] = c;
        qp_kind_mark(hstat, state, b, part[0] > 0 ? m - (int)part[0] : -1);
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_vec_update (gala_qp_update_vectors): the listed QPs' new q (which & 1), l (& 2) and  */
/* u (& 4) were written unscaled into Q, L, U: scale them with the QP's D, E, c and        */
/* recompute the row kinds. A changed kind updates ctype and asks for a refactorization    */
/* (refac); with shared != 0 (kinds shared by the batch) it makes the QP INVALID as        */
/* qp_shared_apply does (hstat = QP_H_KIND + the first such row), and agreeing kinds clear    */
/* such an earlier mark. One work-group per QP.                                            */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_vec_update(GALA_PARAMS(QP_ARGS_vec_update))
{
    LOCAL_ARRAY REAL part[4 * WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0) < nlist ? GRP(0) : 0;
    const int ok = GRP(0) < nlist;
    const int b = list[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    GLOBAL const REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
    GLOBAL REAL *q = vn + QP_V_Q * ntot + mt[QP_M_XO];
    GLOBAL REAL *l = vm + QP_V_L * mtot + mt[QP_M_ZO], *u = vm + QP_V_U * mtot + mt[QP_M_ZO];
    GLOBAL int *ct = ctype + mt[QP_M_CO];
    const REAL c = info[(gidx)b * QP_NINFO + QP_I_C];
    if (which & 1)
        for (int j = lid; j < n; j += WG) q[j] *= c * D[j];
    REAL first = 0; /* m − (first row whose kind changed), 0 if none */
    for (int i = lid; i < m; i += WG) {
        const REAL lv = (which & 2) ? l[i] * E[i] : l[i], uv = (which & 4) ? u[i] * E[i] : u[i];
        l[i] = lv;
        u[i] = uv;
        int t = 1;
        if (lv < -QP_INFV && uv > QP_INFV) t = 0;
        else if (uv - lv < (REAL)1e-4) t = 2;
        t = rho_is_vec ? t : 1;
        if (t != ct[i]) {
            if (first == 0) first = (REAL)(m - i);
            if (!shared) ct[i] = t;
        }
    }
    QP_RED4(part, lid, WG, 1, first, 0, 0, 0, 0);
    if (ok && lid == 0) {
        if (!shared) {
            if (part[0] > 0) refac[b] = 1;
        } else {
            qp_kind_mark(hstat, state, b, part[0] > 0 ? m - (int)part[0] : -1);
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_warm (gala_qp_warm_start): the listed QPs' x (which & 1) and y (which & 2) were      */
/* written unscaled into XT and YPREV: x = x/D, y = c·y/E (scaled), then z = A x when x   */
/* was given (OSQP's warm start). Not W: W2 and W keep the last solve's unscaled results   */
/* (qp_unscale) until the next solve, for gala_qp_get_solution_device. YPREV is scratch    */
/* between solves (the scaling uses it too; an iteration writes it before a check reads    */
/* it). One work-group per QP.                                                             */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_warm(GALA_PARAMS(QP_ARGS_warm))
{
    const int lid = (int)LID(0);
    const gidx g = GRP(0) < nlist ? GRP(0) : 0;
    const int ok = GRP(0) < nlist;
    const int b = list[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    (void)Pp;
    (void)Pc;
    (void)Tp;
    (void)Tc;
    (void)Pv;
    (void)Tv;
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    GLOBAL REAL *x = vn + QP_V_X * ntot + xo, *y = vm + QP_V_Y * mtot + zo, *z = vm + QP_V_Z * mtot + zo;
    GLOBAL const REAL *xr = vn + QP_V_XT * ntot + xo, *yr = vm + QP_V_YPREV * mtot + zo;
    GLOBAL const REAL *D = vn + QP_V_D * ntot + xo, *E = vm + QP_V_E * mtot + zo;
    const REAL c = info[(gidx)b * QP_NINFO + QP_I_C];
    if (which & 1)
        for (int j = lid; j < n; j += WG) x[j] = xr[j] / D[j];
    if (which & 2)
        for (int i = lid; i < m; i += WG) y[i] = c * yr[i] / E[i];
    GLOBAL_BARRIER();
    if (which & 1)
        for (int i = lid; i < m; i += WG) {
            REAL s = 0;
            for (int k = Ap[i]; k < Ap[i + 1]; ++k) s += Av[k] * x[Ac[k]];
            z[i] = s;
        }
}

/* ------------------------------------------------------------------------------------ */
/* Vectors in the caller's device memory (src/qp/vectors_device.c). The caller's arrays    */
/* hold every QP's vector one after another in batch order, QPs rejected at setup too;    */
/* qtab[k·QP_NQT + ...] gives QP k's slot (or -1), n, m and offsets there (XO, ZO):          */
/*                                                                                         */
/*   caller q  [ QP 0: n0 | QP 1 (rejected): n1 | QP 2: n2 ]    l, u, x, y alike           */
/*                  |                              |                                       */
/*   slots     [ slot 0   |              slot 1    ]            (vn, vm sections, raw)     */
/* ------------------------------------------------------------------------------------ */

DEVFN int qp_finite(REAL v) { return v == v && v != REAL_INF && v != -REAL_INF; }
DEVFN REAL qp_clamp_inf(REAL v) { return v > QP_INFTY ? QP_INFTY : (v < -QP_INFTY ? -QP_INFTY : v); }
/* invalid bounds of one row, as gala_qp_update_vectors tests them */
DEVFN int qp_bounds_bad(REAL lv, REAL uv)
{
    return lv != lv || uv != uv || lv > uv || lv == REAL_INF || uv == -REAL_INF;
}

/* ------------------------------------------------------------------------------------ */
/* qp_vec_check, qp_vec_in (gala_qp_update_vectors_device): every QP's new q (which & 1),  */
/* l (& 2) and u (& 4) from the caller's buffers, validated as gala_qp_update_vectors      */
/* validates them, then put into the slot layout, unscaled (qp_vec_update scales them):    */
/*                                                                                         */
/*   caller q, l, u --qp_vec_check--> verd, vbad, hstat   (per slot)                       */
/*                  --qp_vec_in-----> raw [ q (ntot) | l (mtot) | u (mtot) ]  kept copy,   */
/*                                    vn Q, vm L, U        bounds clamped to ±1e30         */
/*                                                                                         */
/* qp_vec_check: valid means q finite and per row no NaN, l ≤ u, l < +∞, u > −∞, with a    */
/* NULL vector's kept values from raw. verd[2b], verd[2b + 1]: the VD code (0 valid, 1 q,  */
/* 2 bounds) and the first bad entry or row; vbad[2b], vbad[2b + 1]: its values (q: one;   */
/* bounds: l, u); hstat = QP_H_HOST when invalid, an QP_H_HOST mark cleared when valid.          */
/* qp_vec_in, by the verdict: valid, the new values go to raw and to the given sections;   */
/* invalid, raw keeps its values and the given sections get them again (as the host path   */
/* uploads its kept copies). Two kernels, not the copies after the reduction's barrier    */
/* loop: PoCL has lost writes of such regions (docs/qp.md, "Limitations"), and the copies  */
/* need no barrier. One work-group per QP (count groups); rejected QPs (slot -1) do        */
/* nothing.                                                                                */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_vec_check(GALA_PARAMS(QP_ARGS_vec_check))
{
    LOCAL_ARRAY int rq_[WG];
    LOCAL_ARRAY int rl_[WG];
    const int lid = (int)LID(0);
    const gidx k = GRP(0) < count ? GRP(0) : 0;
    GLOBAL const int *qt = qtab + k * QP_NQT;
    const int b = qt[QP_T_SLOT];
    const int ok = GRP(0) < count && b >= 0;
    GLOBAL const int *mt = meta + (gidx)(b >= 0 ? b : 0) * QP_NMETA;
    /* no early exit around the barriers: a rejected QP's group runs its loops 0 times */
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    const gidx cq = qoff + qt[QP_T_XO], cl = loff + qt[QP_T_ZO], cu = uoff + qt[QP_T_ZO];
    GLOBAL const REAL *rl = raw + ntot + mt[QP_M_ZO], *ru = raw + ntot + mtot + mt[QP_M_ZO];
    const int wq = which & 1, wl = which & 2, wu = which & 4;
    int bq = n, bl = m; /* this work-item's first bad entry of q, first bad row */
    for (int j = lid; wq && j < n; j += WG)
        if (bq == n && !qp_finite(q[cq + j])) bq = j;
    for (int i = lid; i < m; i += WG) {
        const REAL lv = wl ? l[cl + i] : rl[i], uv = wu ? u[cu + i] : ru[i];
        if (bl == m && qp_bounds_bad(lv, uv)) bl = i;
    }
    rq_[lid] = bq;
    rl_[lid] = bl;
    for (int s = WG >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lid < s) {
            rq_[lid] = min(rq_[lid], rq_[lid + s]);
            rl_[lid] = min(rl_[lid], rl_[lid + s]);
        }
    }
    if (ok && lid == 0) { /* work-item 0 made the last step of the tree */
        const int fq = rq_[0], fl = rl_[0];
        const int code = fq < n ? 1 : (fl < m ? 2 : 0);
        verd[2 * (gidx)b] = code;
        verd[2 * (gidx)b + 1] = code == 1 ? fq : (code == 2 ? fl : 0);
        vbad[2 * (gidx)b] = code == 1 ? q[cq + fq] : (code == 2 ? (wl ? l[cl + fl] : rl[fl]) : (REAL)0);
        vbad[2 * (gidx)b + 1] = code == 2 ? (wu ? u[cu + fl] : ru[fl]) : (REAL)0;
        if (code) hstat[b] = QP_H_HOST;
        else if (hstat[b] == QP_H_HOST) hstat[b] = 0;
    }
}

KERNEL void qp_vec_in(GALA_PARAMS(QP_ARGS_vec_in))
{
    const int lid = (int)LID(0);
    for (gidx k = GRP(0); k < count; k += NGRP(0)) {
        GLOBAL const int *qt = qtab + k * QP_NQT;
        const int b = qt[QP_T_SLOT];
        if (b < 0) continue;
        GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M], valid = verd[2 * (gidx)b] == 0;
        const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
        const gidx cq = qoff + qt[QP_T_XO], cl = loff + qt[QP_T_ZO], cu = uoff + qt[QP_T_ZO];
        GLOBAL REAL *rq = raw + xo, *rl = raw + ntot + zo, *ru = raw + ntot + mtot + zo;
        GLOBAL REAL *Q = vn + QP_V_Q * ntot + xo, *L = vm + QP_V_L * mtot + zo, *U = vm + QP_V_U * mtot + zo;
        for (int j = lid; (which & 1) && j < n; j += WG) {
            const REAL v = valid ? q[cq + j] : rq[j];
            rq[j] = v;
            Q[j] = v;
        }
        for (int i = lid; (which & 2) && i < m; i += WG) {
            const REAL v = valid ? qp_clamp_inf(l[cl + i]) : rl[i];
            rl[i] = v;
            L[i] = v;
        }
        for (int i = lid; (which & 4) && i < m; i += WG) {
            const REAL v = valid ? qp_clamp_inf(u[cu + i]) : ru[i];
            ru[i] = v;
            U[i] = v;
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_sol_out (gala_qp_get_solution_device): every QP's unscaled x (which & 1) and y (& 2) */
/* of the last solve, from the output sections (qp_unscale) into the caller's buffers:    */
/*                                                                                         */
/*   vn W2 [ slot 0 | slot 1 ]  -->  x [ QP 0: n0 | QP 1: NaN (n1) | QP 2: n2 ]            */
/*   vm W  [ slot 0 | slot 1 ]  -->  y [ QP 0: m0 | QP 1: NaN (m1) | QP 2: m2 ]            */
/*                                                                                         */
/* NaN where osol[k] = 0 (no solution: not solved, infeasible, non-convex, invalid data,  */
/* rejected at setup). One work-group per QP, no barrier.                                  */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_sol_out(GALA_PARAMS(QP_ARGS_sol_out))
{
    const int lid = (int)LID(0);
    for (gidx k = GRP(0); k < count; k += NGRP(0)) {
        GLOBAL const int *qt = qtab + k * QP_NQT;
        const int b = qt[QP_T_SLOT], n = qt[QP_T_N], m = qt[QP_T_M];
        const int sol = b >= 0 && osol[k];
        GLOBAL const int *mt = meta + (gidx)(sol ? b : 0) * QP_NMETA;
        GLOBAL const REAL *ox = vn + QP_V_W2 * ntot + mt[QP_M_XO], *oy = vm + QP_V_W * mtot + mt[QP_M_ZO];
        const gidx cx = xoff + qt[QP_T_XO], cy = yoff + qt[QP_T_ZO];
        for (int j = lid; (which & 1) && j < n; j += WG) x[cx + j] = sol ? ox[j] : REAL_NAN;
        for (int i = lid; (which & 2) && i < m; i += WG) y[cy + i] = sol ? oy[i] : REAL_NAN;
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_warm_in (gala_qp_warm_start_device): every QP's x (which & 1) and y (& 2) from the  */
/* caller's buffers into XT and YPREV of its slot, unscaled, for qp_warm:                 */
/*   x [ QP 0: n0 | QP 1 (rejected) | QP 2: n2 ]  -->  vn XT [ slot 0 | slot 1 ]           */
/* One work-group per QP, no barrier.                                                      */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_warm_in(GALA_PARAMS(QP_ARGS_warm_in))
{
    const int lid = (int)LID(0);
    for (gidx k = GRP(0); k < count; k += NGRP(0)) {
        GLOBAL const int *qt = qtab + k * QP_NQT;
        const int b = qt[QP_T_SLOT];
        if (b < 0) continue;
        GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        GLOBAL REAL *tx = vn + QP_V_XT * ntot + mt[QP_M_XO], *ty = vm + QP_V_YPREV * mtot + mt[QP_M_ZO];
        for (int j = lid; (which & 1) && j < n; j += WG) tx[j] = x[xoff + qt[QP_T_XO] + j];
        for (int i = lid; (which & 2) && i < m; i += WG) ty[i] = y[yoff + qt[QP_T_ZO] + i];
    }
}

#if QP_HAS(2) /* the sparse and PCG strategies' kernels: qp_kkt_*, qp_pcg* */
/* ------------------------------------------------------------------------------------ */
/* The sparse strategy (src/qp/linsys_sparse.c). Each QP's quasi-definite KKT matrix         */
/*                                                                                          */
/*     [ P + σI        Aᵀ     ]    upper triangle, CSC, n + m columns: column j < n holds  */
/*     [   A      −diag(1/ρ)  ]    P's column j (+ σ on the diagonal), column n + i holds  */
/*                                 A's row i, then −1/ρ_i                                   */
/*                                                                                          */
/* is factored by gala_sparse_ldlt (one symbolic analysis per pair of P and A patterns);    */
/* one ADMM iteration is one batched sparse solve and qp_kkt_update (which also makes the  */
/* next right-hand side; qp_kkt_rhs a launch's first), the same iteration as qp_admm with   */
/* K⁻¹r replaced by the solve:                                                               */
/*     [x̃; ν] = KKT⁻¹ [σx − q; z − y/ρ],  x ← αx̃ + (1 − α)x,  z̃ = z + (ν − y)/ρ (= Ax̃),    */
/*     ẑ = αz̃ + (1 − α)z,  z ← Π(ẑ + y/ρ),  y ← y + ρ(ẑ − z).                               */
/* kq per slot (QP_NKQ ints): its matrix in the factor object, the offset of its group's value */
/* map, the KKT entries. Map entry 8·k + type: 0 P's CSR value k, 1 the same + σ (diagonal),*/
/* 2 σ alone (no diagonal entry in P), 3 A's CSR value k, 4 −1/ρ of row k. One work-group   */
/* per listed QP; kb holds one right-hand side (then solution) of n + m entries per matrix,*/
/* entry e of matrix q at kb[q·kbm + e·kbe] (interleaved: kbm = 1, kbe = batch).             */
/* ------------------------------------------------------------------------------------ */
/* 1/ρ of a row from the kernel's rv0 (free), rv1 (inequality), rv2 (equality), as OSQP's
 * rho_inv_vec: products instead of per-row divisions */
#define QP_RINV(c) ((c) == 0 ? rv0 : ((c) == 2 ? rv2 : rv1))

/* qp_kkt_rhs / _update / _resid: the listed QP of this work-group, if it still runs (else the
 * work-group returns: these kernels have no barrier), and its KKT column q0 = q·kbm. */
#define QP_KKT_QP                                                                           \
    const int lid = (int)LID(0);                                                            \
    const gidx g = GRP(0);                                                                  \
    if (g >= nlist) return;                                                                 \
    const int b = list[g];                                                                  \
    if (state[(gidx)b * QP_NSTATE + QP_S_STATUS] != 0) return;                              \
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;                                       \
    const int n = mt[QP_M_N], m = mt[QP_M_M];                                               \
    GLOBAL const int *ct = ctype + mt[QP_M_CO];                                             \
    const REAL rho = info[(gidx)b * QP_NINFO + QP_I_RHO];                                   \
    const gidx q0 = (gidx)kq[(gidx)b * QP_NKQ + QP_KQ_Q] * kbm

KERNEL void qp_kkt_values(GALA_PARAMS(QP_ARGS_kkt_values))
{
    const int lid = (int)LID(0);
    const gidx g = GRP(0);
    if (g >= nlist) return;
    const int b = list[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA, *k3 = kq + (gidx)b * QP_NKQ;
    GLOBAL const REAL *Pv = mv + mt[QP_M_PV], *Av = mv + mt[QP_M_AV];
    GLOBAL const int *map = kmap + k3[QP_KQ_MAP], *ct = ctype + mt[QP_M_CO];
    GLOBAL REAL *v = kv + (gidx)k3[QP_KQ_Q] * kstride;
    const REAL rho = info[(gidx)b * QP_NINFO + QP_I_RHO];
    const int nnz = k3[QP_KQ_NNZ];
    for (int e = lid; e < nnz; e += WG) {
        const int c = map[e], k = c >> 3, t = c & 7;
        REAL val;
        if (t == 0) val = Pv[k];
        else if (t == 1) val = Pv[k] + sigma;
        else if (t == 2) val = sigma;
        else if (t == 3) val = Av[k];
        else val = -(REAL)1 / qp_rho_row(ct[k], rho);
        v[e] = val;
    }
}

KERNEL void qp_kkt_rhs(GALA_PARAMS(QP_ARGS_kkt_rhs))
{
    QP_KKT_QP;
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    GLOBAL REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    GLOBAL const REAL *q = vn + QP_V_Q * ntot + xo;
    GLOBAL REAL *z = vm + QP_V_Z * mtot + zo, *y = vm + QP_V_Y * mtot + zo;
    GLOBAL REAL *yp = vm + QP_V_YPREV * mtot + zo;
    GLOBAL REAL *r = kb + q0;
    for (int j = lid; j < n; j += WG) {
        r[j * kbe] = sigma * x[j] - q[j];
        if (last) xp[j] = x[j];
    }
    const REAL rv0 = (REAL)1 / qp_rho_row(0, rho), rv1 = (REAL)1 / rho;
    const REAL rv2 = (REAL)1 / qp_rho_row(2, rho);
    for (int i = lid; i < m; i += WG) {
        r[(n + i) * kbe] = z[i] - QP_RINV(ct[i]) * y[i];
        if (last) yp[i] = y[i];
    }
}

KERNEL void qp_kkt_update(GALA_PARAMS(QP_ARGS_kkt_update))
{
    QP_KKT_QP;
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    GLOBAL const int *Ap = rp + mt[QP_M_AP], *Ac = ci + mt[QP_M_AC];
    GLOBAL const REAL *Av = mv + mt[QP_M_AV];
    GLOBAL REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    GLOBAL const REAL *q = vn + QP_V_Q * ntot + xo;
    GLOBAL REAL *z = vm + QP_V_Z * mtot + zo, *y = vm + QP_V_Y * mtot + zo;
    GLOBAL REAL *yp = vm + QP_V_YPREV * mtot + zo;
    GLOBAL const REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    GLOBAL const REAL *xt = kx + q0, *xc = kc + q0;
    /* QP_KKT_NEXT: the next iteration's right-hand side into kc, each entry after its read */
    GLOBAL REAL *r = kc + q0;
    const int fix = corr & QP_KKT_CORR, nu = corr & QP_KKT_NU;
    const int next = nu && (corr & QP_KKT_NEXT), nlast = next && (corr & QP_KKT_NEXT_LAST);
    const REAL rv0 = (REAL)1 / qp_rho_row(0, rho), rv1 = (REAL)1 / rho;
    const REAL rv2 = (REAL)1 / qp_rho_row(2, rho);
    /* x̃ (and ν) = the solve (+ its correction, refinement) */
#define QP_XT(e) (fix ? xt[(e) * kbe] + xc[(e) * kbe] : xt[(e) * kbe])
    for (int j = lid; j < n; j += WG) {
        const REAL xn = alpha * QP_XT(j) + ((REAL)1 - alpha) * x[j];
        x[j] = xn;
        if (next) { /* qp_kkt_rhs's, fused */
            r[j * kbe] = sigma * xn - q[j];
            if (nlast) xp[j] = xn;
        }
    }
    for (int i = lid; i < m; i += WG) {
        const REAL ri = qp_rho_row(ct[i], rho), rv = QP_RINV(ct[i]);
        const REAL zold = z[i], yold = y[i];
        REAL zt = 0;
        if (nu) { /* OSQP's z̃ = (z − y/ρ) + ν/ρ: the KKT solve's second block */
            zt = (zold - rv * yold) + rv * QP_XT(n + i);
        } else {
            for (int k = Ap[i]; k < Ap[i + 1]; ++k) zt += Av[k] * QP_XT(Ac[k]);
        }
        const REAL zh = alpha * zt + ((REAL)1 - alpha) * zold;
        REAL zn = zh + rv * yold;
        zn = zn < l[i] ? l[i] : zn;
        zn = zn > u[i] ? u[i] : zn;
        const REAL yn = yold + ri * (zh - zn);
        y[i] = yn;
        z[i] = zn;
        if (next) {
            r[(n + i) * kbe] = zn - rv * yn;
            if (nlast) yp[i] = yn;
        }
    }
    if (iters && lid == 0) state[(gidx)b * QP_NSTATE + QP_S_ITER] += iters;
#undef QP_XT
}

/* qp_kkt_resid (refinement, float by default): kb ← kb − KKT·kx, the residual of the solve
 * kx of the right-hand side kb, with KKT applied through P (full CSR), A and Aᵀ; the next
 * solve of kb is the correction qp_kkt_update adds. */
KERNEL void qp_kkt_resid(GALA_PARAMS(QP_ARGS_kkt_resid))
{
    QP_KKT_QP;
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    GLOBAL REAL *r = kb + q0;
    GLOBAL const REAL *v = kx + q0;
    for (int j = lid; j < n; j += WG) {
        REAL a = sigma * v[j * kbe];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) a += Pv[k] * v[Pc[k] * kbe];
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) a += Tv[k] * v[(n + Tc[k]) * kbe];
        r[j * kbe] -= a;
    }
    for (int i = lid; i < m; i += WG) {
        REAL a = -v[(n + i) * kbe] / qp_rho_row(ct[i], rho);
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) a += Av[k] * v[Ac[k] * kbe];
        r[(n + i) * kbe] -= a;
    }
}

/* ------------------------------------------------------------------------------------ */
/* The PCG strategy (src/qp/linsys_pcg.c; OSQP's indirect method): the ADMM iteration of  */
/* the sparse strategy with the KKT solve replaced by preconditioned conjugate gradients  */
/* on the reduced system                                                                   */
/*                                                                                          */
/*     (P + σI + Aᵀdiag(ρ)A) x̃ = b₁ + Aᵀ(ρ∘b₂),    [b₁; b₂] = [σx − q; z − y/ρ] (qp_kkt_rhs)*/
/*                                                                                          */
/* with the Jacobi preconditioner M = diag(P) + σ + Σᵢ ρᵢA²ᵢⱼ, warm started from the ADMM  */
/* iterate x; qp_kkt_update then takes x̃ as from the sparse solve (it forms z̃ = Ax̃ itself).*/
/* Nothing is O(n²): K is applied through P (full CSR), A and Aᵀ (CSR). One work-group per */
/* listed QP; its vectors in the workspace pw (sections of ntot, PW_*, at the QP's xo, and */
/* one m-vector section at QP_PW_NV·ntot + zo); the CG iterate in the QP's b₁ entries of kb.  */
/* ------------------------------------------------------------------------------------ */

/* qp_pcg_precond: for each listed QP with its refactor flag set (every listed QP when all
 * != 0): M⁻¹ into pw; a diagonal entry with P_jj + σ ≤ 0 (or not finite) means P + σI is
 * not positive definite: the QP's status becomes NON_CVX (9), as the dense strategy's
 * failed factorization. One work-group per QP. */
KERNEL void qp_pcg_precond(GALA_PARAMS(QP_ARGS_pcg_precond))
{
    LOCAL_ARRAY int bad[1];
    const int lid = (int)LID(0);
    const gidx g = GRP(0);
    if (g >= nlist) return;
    const int b = list[g];
    if (!all && !refac[b]) return;
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int n = mt[QP_M_N];
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    GLOBAL const int *ct = ctype + mt[QP_M_CO];
    const REAL rho = info[(gidx)b * QP_NINFO + QP_I_RHO];
    GLOBAL REAL *mi = pw + QP_PW_MI * ntot + mt[QP_M_XO];
    if (lid == 0) bad[0] = 0;
    LOCAL_BARRIER();
    int fail = 0;
    for (int j = lid; j < n; j += WG) {
        REAL pd = 0, d;
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] == j) pd += Pv[k];
        d = pd + sigma;
        if (!(d > 0) || !(d < QP_INFTY)) fail = 1;
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) d += qp_rho_row(ct[Tc[k]], rho) * Tv[k] * Tv[k];
        mi[j] = d > 0 ? (REAL)1 / d : (REAL)1;
    }
    if (fail) bad[0] = 1;
    LOCAL_BARRIER();
    if (lid == 0 && bad[0]) state[(gidx)b * QP_NSTATE + QP_S_STATUS] = 9;
}

/* K·v for the n-vector v in two halves, ordered by the caller's barriers: tm = ρ∘(A·v)
 * over rows i < mb, then entry j: σ·v_j + (P·v)_j + (Aᵀtm)_j. */
#define QP_PCG_AV(src, mb)                                                                  \
    for (int i = lid; i < (mb); i += WG) {                                                  \
        REAL a_ = 0;                                                                        \
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) a_ += Av[k] * (src)[Ac[k]];                 \
        tm[i] = qp_rho_row(ct[i], rho) * a_;                                                \
    }
#define QP_PCG_KV(j, src, out)                                                              \
    {                                                                                       \
        REAL a_ = sigma * (src)[j];                                                         \
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) a_ += Pv[k] * (src)[Pc[k]];                 \
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) a_ += Tv[k] * tm[Tc[k]];                    \
        out = a_;                                                                           \
    }
/* Reduce a (max), c (max), d (sum) over the work-group; every work-item gets the results
 * in ra, rc, rd. No loop holds a barrier (WG a multiple of 32). */
#define QP_PCG_RED(a, c, d, ra, rc, rd)                                                     \
    {                                                                                       \
        part[lid] = (a);                                                                    \
        part[WG + lid] = (c);                                                               \
        part[2 * WG + lid] = (d);                                                           \
        LOCAL_BARRIER();                                                                    \
        if (lid < 32) {                                                                     \
            REAL x_ = part[lid], y_ = part[WG + lid], w_ = part[2 * WG + lid];              \
            for (int r_ = lid + 32; r_ < WG; r_ += 32) {                                    \
                x_ = qp_max(x_, part[r_]);                                                  \
                y_ = qp_max(y_, part[WG + r_]);                                             \
                w_ += part[2 * WG + r_];                                                    \
            }                                                                               \
            part[3 * WG + lid] = x_;                                                        \
            part[3 * WG + 32 + lid] = y_;                                                   \
            part[3 * WG + 64 + lid] = w_;                                                   \
        }                                                                                   \
        LOCAL_BARRIER();                                                                    \
        ra = part[3 * WG];                                                                  \
        rc = part[3 * WG + 32];                                                             \
        rd = part[3 * WG + 64];                                                             \
        for (int r_ = 1; r_ < 32; ++r_) {                                                   \
            ra = qp_max(ra, part[3 * WG + r_]);                                             \
            rc = qp_max(rc, part[3 * WG + 32 + r_]);                                        \
            rd += part[3 * WG + 64 + r_];                                                   \
        }                                                                                   \
        LOCAL_BARRIER();                                                                    \
    }

/* qp_pcg: one reduced solve per listed running QP (iteration it0 + 1 of this launch's
 * batch of iterations): the right-hand side from kb (qp_kkt_rhs; slot b's n + m entries at
 * XO + ZO, so a batch of mixed sizes takes Σ(n + m)), the solution x̃ left in its first n
 * entries. The tolerance is OSQP's (cuda_pcg_interface.c): at the solve's
 * first ADMM iteration cg_tol_fraction·‖b‖∞ (1 when ‖b‖∞ < 1e-7); later
 * max(min(red·√(prim_res·dual_res), the last tolerance), 1e-7), red = cg_tol_fraction
 * halved after cg_tol_reduction consecutive solves without a CG iteration, with the
 * scaled problem's residuals of the last termination check (info, as OSQP's
 * scaled_prim_res and scaled_dual_res; until this solve's first check, every chk
 * iterations, the last tolerance stays). At most maxit CG iterations; the loop ends for the
 * whole work-group at once (its exit test reads only values every work-item holds alike).
 * pᵀKp ≤ 0 (or NaN): K is not positive definite: status NON_CVX (9). */
KERNEL void qp_pcg(GALA_PARAMS(QP_ARGS_pcg))
{
    LOCAL_ARRAY REAL part[3 * WG + 96];
    const int lid = (int)LID(0);
    const gidx g = GRP(0);
    if (g >= nlist) return;
    const int b = list[g];
    GLOBAL int *st = state + (gidx)b * QP_NSTATE;
    if (st[QP_S_STATUS] != 0) return; /* the whole work-group: before any barrier */
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int n = mt[QP_M_N], m = mt[QP_M_M];
    QP_MATS(mt);
    QP_VALS(mt, GLOBAL const);
    GLOBAL const int *ct = ctype + mt[QP_M_CO];
    GLOBAL const REAL *inf = info + (gidx)b * QP_NINFO;
    const REAL rho = inf[QP_I_RHO];
    const gidx xo = mt[QP_M_XO];
    GLOBAL REAL *B = pw + QP_PW_B * ntot + xo, *R = pw + QP_PW_R * ntot + xo;
    GLOBAL REAL *Pd = pw + QP_PW_P * ntot + xo, *KP = pw + QP_PW_KP * ntot + xo;
    GLOBAL const REAL *MI = pw + QP_PW_MI * ntot + xo;
    GLOBAL REAL *tm = pw + QP_PW_NV * ntot + mt[QP_M_ZO];
    /* the QP's n + m entries of kb, after the earlier slots': [b₁; b₂] on entry; X, the CG
     * iterate, takes b₁'s place, so x̃ is left where qp_kkt_update reads it */
    GLOBAL REAL *X = kb + xo + mt[QP_M_ZO];
    GLOBAL const REAL *x0 = vn + QP_V_X * ntot + xo;
    GLOBAL REAL *ps = pst + (gidx)b * QP_NPST;
    /* B = b₁ + Aᵀ(ρ∘b₂) (rows of Aᵀ; b₂ = X[n ...] is only read), then X = x */
    for (int j = lid; j < n; j += WG) {
        REAL a = X[j];
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
            const int i = Tc[k];
            a += Tv[k] * qp_rho_row(ct[i], rho) * X[n + i];
        }
        B[j] = a;
        X[j] = x0[j];
    }
    GLOBAL_BARRIER();
    QP_PCG_AV(X, m);
    GLOBAL_BARRIER();
    REAL rn = 0, ry = 0, bn = 0;
    for (int j = lid; j < n; j += WG) {
        REAL kx;
        QP_PCG_KV(j, X, kx);
        const REAL r = B[j] - kx, y = MI[j] * r;
        R[j] = r;
        Pd[j] = y;
        rn = qp_max(rn, qp_abs(r));
        ry += r * y;
        bn = qp_max(bn, qp_abs(B[j]));
    }
    REAL rnorm, bnorm, rty, unused;
    QP_PCG_RED(rn, bn, ry, rnorm, bnorm, rty);
    const int admm = st[QP_S_ITER] + it0 + 1;
    REAL red = ps[QP_PS_RED], eps;
    int zero = (int)ps[QP_PS_ZERO];
    if (admm == 1) {
        red = tolfrac;
        zero = 0;
        eps = bnorm < QP_CG_TOL_MIN ? (REAL)1 : bnorm * red;
    } else {
        if (zero >= tolred) {
            red *= (REAL)0.5;
            zero = 0;
        }
        /* the residuals are this solve's once it has had a check (chk = 0: none, those of
         * the last solve or 0) */
        const REAL pd = inf[QP_I_SPRIM] * inf[QP_I_SDUAL], prev = ps[QP_PS_EPS];
        eps = (chk == 0 || admm > chk) && pd >= 0 && pd < QP_INFTY ? red * sqrt(pd) : prev;
        eps = eps < prev ? eps : prev;
        eps = eps > QP_CG_TOL_MIN ? eps : QP_CG_TOL_MIN;
    }
    int iters = 0, live = rnorm > eps, ncvx = 0;
    for (int it = 0; it < maxit && live; ++it) { /* live: the same in every work-item */
        GLOBAL_BARRIER();
        QP_PCG_AV(Pd, m);
        GLOBAL_BARRIER();
        REAL pk = 0;
        for (int j = lid; j < n; j += WG) {
            REAL kp;
            QP_PCG_KV(j, Pd, kp);
            KP[j] = kp;
            pk += Pd[j] * kp;
        }
        REAL pkp;
        QP_PCG_RED((REAL)0, (REAL)0, pk, unused, unused, pkp);
        if (!(pkp > 0)) {
            ncvx = 1;
            live = 0;
        }
        const REAL al = live ? rty / pkp : (REAL)0;
        rn = 0;
        ry = 0;
        for (int j = lid; j < (live ? n : 0); j += WG) {
            X[j] += al * Pd[j];
            const REAL r = R[j] - al * KP[j], y = MI[j] * r;
            R[j] = r;
            rn = qp_max(rn, qp_abs(r));
            ry += r * y;
        }
        REAL rnew, rtn;
        QP_PCG_RED(rn, (REAL)0, ry, rnew, unused, rtn);
        if (live) {
            ++iters;
            const REAL be = rtn / rty;
            rty = rtn;
            for (int j = lid; j < n; j += WG) Pd[j] = MI[j] * R[j] + be * Pd[j]; /* Y + βp */
            live = rnew > eps;
        }
    }
    if (lid == 0) {
        ps[QP_PS_EPS] = eps;
        ps[QP_PS_RED] = red;
        ps[QP_PS_ZERO] = (REAL)(iters == 0 ? zero + 1 : 0);
        if (ncvx) st[QP_S_STATUS] = 9;
    }
}

#endif /* QP_HAS(2) */

/* ------------------------------------------------------------------------------------ */
/* qp_unscale (results): per listed QP, into the output n-vector W2 and m-vector W:        */
/*   with a solution (status 1, 2, 7, 8, 10): x = D∘x, y = E∘y/c                          */
/*   primal infeasible (3, 4): W = E∘Π(y − y_prev) / its ‖·‖∞ (the certificate)          */
/*   dual infeasible (5, 6):   W2 = D∘(x − x_prev) / its ‖·‖∞                            */
/* Π: projection on the polar of the recession cone of [l, u]. One work-group per QP.    */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_unscale(GALA_PARAMS(QP_ARGS_unscale))
{
    LOCAL_ARRAY REAL part[4 * WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0) < nlist ? GRP(0) : 0;
    const int ok = GRP(0) < nlist;
    const int b = list[g];
    GLOBAL const int *mt = meta + (gidx)b * QP_NMETA;
    const int st = state[(gidx)b * QP_NSTATE + QP_S_STATUS];
    const int sol = st == 1 || st == 2 || st == 7 || st == 8 || st == 10;
    const int pinf = st == 3 || st == 4, dinf = st == 5 || st == 6;
    const int n = ok ? mt[QP_M_N] : 0, m = ok ? mt[QP_M_M] : 0;
    const gidx xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    GLOBAL const REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    GLOBAL const REAL *D = vn + QP_V_D * ntot + xo, *E = vm + QP_V_E * mtot + zo;
    GLOBAL const REAL *y = vm + QP_V_Y * mtot + zo, *yp = vm + QP_V_YPREV * mtot + zo;
    GLOBAL const REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    GLOBAL REAL *ox = vn + QP_V_W2 * ntot + xo, *oy = vm + QP_V_W * mtot + zo;
    const REAL c = info[(gidx)b * QP_NINFO + QP_I_C];
    REAL nx = 0, ny = 0;
    for (int j = lid; j < n; j += WG) {
        const REAL v = sol ? D[j] * x[j] : (dinf ? D[j] * (x[j] - xp[j]) : (REAL)0);
        ox[j] = v;
        nx = qp_max(nx, qp_abs(v));
    }
    for (int i = lid; i < m; i += WG) {
        const REAL v = sol ? E[i] * y[i] / c : (pinf ? E[i] * qp_polar(y[i] - yp[i], l[i], u[i]) : (REAL)0);
        oy[i] = v;
        ny = qp_max(ny, qp_abs(v));
    }
    QP_RED4(part, lid, WG, 1, nx, ny, 0, 0, 0);
    const REAL sx = part[0], sy = part[WG];
    if (dinf && sx > 0)
        for (int j = lid; j < n; j += WG) ox[j] /= sx;
    if (pinf && sy > 0)
        for (int i = lid; i < m; i += WG) oy[i] /= sy;
}

/* ------------------------------------------------------------------------------------ */
/* qp_count: out[0] = QPs still running, out[1] = QPs waiting for a refactorization.       */
/* One work-group.                                                                         */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_count(GALA_PARAMS(QP_ARGS_count))
{
    LOCAL_ARRAY int c0[WG];
    LOCAL_ARRAY int c1[WG];
    const int lid = (int)LID(0);
    int a = 0, r = 0;
    for (int g = lid; g < nlist; g += WG) {
        const int b = list[g];
        a += state[(gidx)b * QP_NSTATE + QP_S_STATUS] == 0;
        r += refac[b] != 0;
    }
    c0[lid] = a;
    c1[lid] = r;
    for (int s = WG >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lid < s) {
            c0[lid] += c0[lid + s];
            c1[lid] += c1[lid + s];
        }
    }
    if (lid == 0) {
        out[0] = c0[0];
        out[1] = c1[0];
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_compact_count, qp_compact_write: the QPs of a launch list that are still running,   */
/* in list order, into alist (gala_qp_compact), so that qp_admm and qp_check launch one    */
/* work-group per running tile, not per listed one. One work-group per chunk of WG list    */
/* entries; the first kernel counts each chunk's running QPs into ccnt[chunk], the second */
/* gives the chunk its offset (the counts before it) and each running entry its rank in    */
/* the chunk, and the last chunk writes the total to out[slot].                            */
/*                                                                                         */
/*   list   [ a  b  c  d | e  f  g  h | i  j ]   chunks of WG (here 4)                    */
/*   running  1  0  1  1   0  0  1  0   1  1                                               */
/*   ccnt   [     3      |     1      |  2   ]   offsets 0, 3, 4; out[slot] = 6            */
/*   alist  [ a  c  d  g  i  j ]                                                           */
/* ------------------------------------------------------------------------------------ */
KERNEL void qp_compact_count(GALA_PARAMS(QP_ARGS_compact_count))
{
    LOCAL_ARRAY int c0[WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0), e = g * WG + lid;
    c0[lid] = e < nlist && state[(gidx)list[e] * QP_NSTATE + QP_S_STATUS] == 0;
    for (int s = WG >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lid < s) c0[lid] += c0[lid + s];
    }
    if (lid == 0) ccnt[g] = c0[0];
}

KERNEL void qp_compact_write(GALA_PARAMS(QP_ARGS_compact_write))
{
    LOCAL_ARRAY int c0[WG];
    LOCAL_ARRAY int fl[WG];
    const int lid = (int)LID(0);
    const gidx g = GRP(0), e = g * WG + lid;
    const int nchunks = (nlist + WG - 1) / WG;
    int before = 0;
    for (gidx k = lid; k < g; k += WG) before += ccnt[k];
    c0[lid] = before;
    const int run = e < nlist && state[(gidx)list[e] * QP_NSTATE + QP_S_STATUS] == 0;
    fl[lid] = run;
    for (int s = WG >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lid < s) c0[lid] += c0[lid + s];
    }
    LOCAL_BARRIER();
    if (run) {
        int rank = 0;
        for (int k = 0; k < lid; ++k) rank += fl[k];
        alist[c0[0] + rank] = list[e];
    }
    if (lid == 0 && g == nchunks - 1) out[slot] = c0[0] + ccnt[g];
}

#if QP_HAS(3) /* qp_admm, qp_check and their helpers */
/* ------------------------------------------------------------------------------------ */
/* qp_admm: see the header comment. Group g owns the QPs list[g·TB + t], t < TB (-1 for   */
/* an empty slot); with TB > 1 they share n, m, the matrices and the ρ ladder (nrungs > 0). */
/* One work-group per tile: launch ceil(nlist / TB) groups.                               */
/* ------------------------------------------------------------------------------------ */
#if VLOCAL && TB > 1 && defined(TL) && TL
/* TL = 1, the tile layout: a tile's vectors in local memory side by side, element i of QP t
 * at i·TS + t (TS = TB + RVW), so that the QB QPs a work-item serves are adjacent: one RVEC
 * read gives RVW of them (the K⁻¹ product reads R that way), and the padding of one RVEC per
 * row keeps the RVEC reads of neighbouring rows in the sparse loops off each other's banks.
 * TL = 0: each QP's vector contiguous (element i of QP t at t·NCAP + i).
 *
 *          t = 0   1  ...  TB-1 | pad
 *   i = 0  [ v00  v01 ... v0,TB-1 | . . ]   one row of TS REALs per element
 *   i = 1  [ v10  v11 ...         | . . ]
 */
#define QP_TLAYOUT 1
#define TS (TB + RVW)
#define VW(t, i) lw[(i) * TS + (t)]
#define VX(t, j) lx[(j) * TS + (t)]
#define VR(t, j) lr[(j) * TS + (t)]
#define VXT(t, j) lxt[(j) * TS + (t)]
#define VZ(t, i) lz[(i) * TS + (t)]
#define VY(t, i) ly[(i) * TS + (t)]
#define RK(i) lct[i] /* row kinds, shared by the tile: in local memory */
#elif VLOCAL
#define VW(t, i) lw[(t) * MCAP + (i)]
#define VX(t, j) lx[(t) * NCAP + (j)]
#define VR(t, j) lr[(t) * NCAP + (j)]
#define VXT(t, j) lxt[(t) * NCAP + (j)]
#define VZ(t, i) lz[(t) * MCAP + (i)]
#define VY(t, i) ly[(t) * MCAP + (i)]
#define RK(i) lct[i] /* row kinds, shared by the tile: in local memory */
#else
#define VW(t, i) vm[QP_V_W * mtot + czo[t] + (i)]
#define VX(t, j) vn[QP_V_X * ntot + cxo[t] + (j)]
#define VR(t, j) vn[QP_V_R * ntot + cxo[t] + (j)]
#define VXT(t, j) vn[QP_V_XT * ntot + cxo[t] + (j)]
#define VZ(t, i) vm[QP_V_Z * mtot + czo[t] + (i)]
#define VY(t, i) vm[QP_V_Y * mtot + czo[t] + (i)]
#define RK(i) ctype[co + (i)]
#endif
#define GQ(t, j) vn[QP_V_Q * ntot + cxo[t] + (j)]
#define GD(t, j) vn[QP_V_D * ntot + cxo[t] + (j)]
#define GXP(t, j) vn[QP_V_XPREV * ntot + cxo[t] + (j)]
#define GL(t, i) vm[QP_V_L * mtot + czo[t] + (i)]
#define GU(t, i) vm[QP_V_U * mtot + czo[t] + (i)]
#define GE(t, i) vm[QP_V_E * mtot + czo[t] + (i)]
#define GYP(t, i) vm[QP_V_YPREV * mtot + czo[t] + (i)]
#define GCT(t, i) ctype[co + (i)]
/* q, l, u: in local memory for one QP per work-group (TB = 1, VLOCAL), else read */
#if VLOCAL && TB == 1
#define LQ(t, j) lq[j]
#define LL(t, i) ll[i]
#define LU(t, i) lu[i]
#else
#define LQ(t, j) GQ(t, j)
#define LL(t, i) GL(t, i)
#define LU(t, i) GU(t, i)
#endif

/* x̃ = K⁻¹R (SECOND: x̃ += K⁻¹R, the refinement step), then with FINAL x = αx̃ + (1 − α)x.
 * TB = 1: work-item (slice ks, row i) sums row i over 1/KSPLIT of the columns; the slices'
 *   partial sums meet in local memory (lks) and the row's owner adds them. Reads of K⁻¹
 *   are coalesced over i (column-major), the KSPLIT slices keep every work-item busy and
 *   double the loads in flight.
 * TB > 1: work-item (QP group tg, row slot i0) computes rows i0 + r·⌈n/RB⌉, r < RB, for
 *   the QB QPs t0 .. t0 + QB − 1: per column one load of K⁻¹ per row serves QB products
 *   (the QPs of one rung share K⁻¹), one load of R per QP serves RB rows. */
/* SUM = Σ_{J0 <= j < J1} Kt[j·n]·VR(0, j): part of row i of K⁻¹ (Kt = K⁻¹ + i; K⁻¹ is
 * column-major, so neighbouring work-items read neighbouring addresses) times the right-hand
 * side of QP 0 of the tile, with four partial sums to keep four loads in flight. */
#define QP_KDOT(Kt, J0, J1, SUM)                                                            \
    do {                                                                                    \
        REAL a0_ = 0, a1_ = 0, a2_ = 0, a3_ = 0;                                            \
        int j_ = (J0);                                                                      \
        for (; j_ + 4 <= (J1); j_ += 4) {                                                   \
            a0_ += (Kt)[(gidx)j_ * n] * VR(0, j_);                                          \
            a1_ += (Kt)[(gidx)(j_ + 1) * n] * VR(0, j_ + 1);                                \
            a2_ += (Kt)[(gidx)(j_ + 2) * n] * VR(0, j_ + 2);                                \
            a3_ += (Kt)[(gidx)(j_ + 3) * n] * VR(0, j_ + 3);                                \
        }                                                                                   \
        for (; j_ < (J1); ++j_) a0_ += (Kt)[(gidx)j_ * n] * VR(0, j_);                      \
        (SUM) = (a0_ + a1_) + (a2_ + a3_);                                                  \
    } while (0)
#if KSPLIT > 1
#define QP_KINV(SECOND, FINAL)                                                              \
    do {                                                                                    \
        const int ch_ = (n + KSPLIT - 1) / KSPLIT;                                          \
        for (int idx = lid; idx < KSPLIT * n; idx += WG) {                                  \
            const int ks = idx / n, i = idx - ks * n;                                       \
            const int j0 = ks * ch_, j1 = j0 + ch_ < n ? j0 + ch_ : n;                      \
            GLOBAL const REAL *Kt = K + cko[0] + i;                                         \
            REAL part_;                                                                     \
            QP_KDOT(Kt, j0, j1, part_);                                                     \
            lks[ks * NCAP + i] = part_;                                                     \
        }                                                                                   \
        LOCAL_BARRIER();                                                                    \
        for (int i = lid; i < n && cact[0]; i += WG) {                                      \
            REAL sum = 0;                                                                   \
            for (int ks = 0; ks < KSPLIT; ++ks) sum += lks[ks * NCAP + i];                  \
            const REAL xt = (SECOND) ? VXT(0, i) + sum : sum;                               \
            VXT(0, i) = xt;                                                                 \
            if (FINAL) VX(0, i) = alpha * xt + ((REAL)1 - alpha) * VX(0, i);                \
        }                                                                                   \
    } while (0)
#elif TB == 1
#define QP_KINV(SECOND, FINAL)                                                              \
    do {                                                                                    \
        for (int i = lid; i < n && cact[0]; i += WG) {                                      \
            GLOBAL const REAL *Kt = K + cko[0] + i;                                         \
            REAL sum;                                                                       \
            QP_KDOT(Kt, 0, n, sum);                                                         \
            const REAL xt = (SECOND) ? VXT(0, i) + sum : sum;                               \
            VXT(0, i) = xt;                                                                 \
            if (FINAL) VX(0, i) = alpha * xt + ((REAL)1 - alpha) * VX(0, i);                \
        }                                                                                   \
    } while (0)
#else
/* column j of the tile's product: sa[r][c] += K⁻¹(row r, j)·R(j, QP t0 + c) for the QB QPs
 * (kr: the column's RBLK values); with the tile layout R(j, t0 .. t0 + QB − 1) is QB/RVW
 * RVEC reads (t0 and TS multiples of RVW) instead of QB scalar ones */
#if defined(QP_TLAYOUT) && QB % RVW == 0 && TB % RVW == 0
#define QP_KINV_COLUMN(j)                                                                   \
    do {                                                                                    \
        LOCAL const RVEC *rv_ = (LOCAL const RVEC *)(lr + (j) * TS + t0);                   \
        for (int cv = 0; cv < QB / RVW; ++cv) {                                             \
            const RVEC v_ = rv_[cv];                                                        \
            for (int e = 0; e < RVW; ++e) {                                                 \
                const REAL rv = rv_get(v_, e);                                              \
                for (int r = 0; r < RBLK; ++r) sa[r][cv * RVW + e] += kr[r] * rv;           \
            }                                                                               \
        }                                                                                   \
    } while (0)
#else
#define QP_KINV_COLUMN(j)                                                                   \
    do {                                                                                    \
        for (int c = 0; c < QB; ++c) {                                                      \
            const REAL rv = VR(t0 + c, (j));                                                \
            for (int r = 0; r < RBLK; ++r) sa[r][c] += kr[r] * rv;                          \
        }                                                                                   \
    } while (0)
#endif
#define QP_KINV(SECOND, FINAL)                                                              \
    do {                                                                                    \
        const int rs_n = (n + RBLK - 1) / RBLK;                                             \
        for (int idx = lid; idx < (TB / QB) * rs_n; idx += WG) {                            \
            const int tg = idx / rs_n, i0 = idx - tg * rs_n, t0 = tg * QB;                  \
            int ir[RBLK];                                                                   \
            for (int r = 0; r < RBLK; ++r) ir[r] = i0 + r * rs_n < n ? i0 + r * rs_n : i0;  \
            int same = 1;                                                                   \
            for (int c = 1; c < QB; ++c) same = same && cko[t0 + c] == cko[t0];             \
            REAL sa[RBLK][QB];                                                              \
            for (int r = 0; r < RBLK; ++r)                                                  \
                for (int c = 0; c < QB; ++c) sa[r][c] = 0;                                  \
            if (same) {                                                                     \
                GLOBAL const REAL *Kt = K + cko[t0];                                        \
                for (int j = 0; j < n; ++j) {                                               \
                    REAL kr[RBLK];                                                          \
                    for (int r = 0; r < RBLK; ++r) kr[r] = Kt[ir[r] + (gidx)j * n];         \
                    QP_KINV_COLUMN(j);                                                      \
                }                                                                           \
            } else {                                                                        \
                for (int c = 0; c < QB; ++c) {                                              \
                    GLOBAL const REAL *Kt = K + cko[t0 + c];                                \
                    for (int j = 0; j < n; ++j) {                                           \
                        const REAL rv = VR(t0 + c, j);                                      \
                        for (int r = 0; r < RBLK; ++r) sa[r][c] += Kt[ir[r] + (gidx)j * n] * rv;\
                    }                                                                       \
                }                                                                           \
            }                                                                               \
            for (int c = 0; c < QB; ++c) {                                                  \
                const int t = t0 + c;                                                       \
                if (!cact[t]) continue;                                                     \
                for (int r = 0; r < RBLK; ++r) {                                            \
                    const int i = i0 + r * rs_n;                                            \
                    if (i < n) {                                                            \
                        const REAL xt = (SECOND) ? VXT(t, i) + sa[r][c] : sa[r][c];         \
                        VXT(t, i) = xt;                                                     \
                        if (FINAL) VX(t, i) = alpha * xt + ((REAL)1 - alpha) * VX(t, i);    \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
    } while (0)
#endif

/* The tile of a work-group in qp_admm and qp_check (same parameter names in both):
 * QP_TILE_FIRST sets B0 to the first QP of tile g that is still running (-1: none);
 * QP_TILE_CACHE has work-items t < TB put QP t's index, activity, vector offsets, K⁻¹ offset
 * (its own or its ladder rung's) and ρ into the local arrays cqp, cact, cxo, czo, cko, crho. */
#define QP_TILE_FIRST(B0)                                                                   \
    do {                                                                                    \
        for (int t_ = 0; t_ < TB; ++t_) {                                                   \
            const gidx li_ = g * TB + t_;                                                   \
            const int b_ = li_ < nlist ? list[li_] : -1;                                    \
            if (b_ >= 0 && state[(gidx)b_ * QP_NSTATE + QP_S_STATUS] == 0) {                \
                (B0) = b_;                                                                  \
                break;                                                                      \
            }                                                                               \
        }                                                                                   \
    } while (0)
#define QP_TILE_CACHE(B0)                                                                   \
    do {                                                                                    \
        if (lid < TB) {                                                                     \
            const int t_ = lid;                                                             \
            const gidx li_ = g * TB + t_;                                                   \
            const int b_ = li_ < nlist ? list[li_] : -1;                                    \
            const int act_ = b_ >= 0 && state[(gidx)b_ * QP_NSTATE + QP_S_STATUS] == 0;     \
            cqp[t_] = b_;                                                                   \
            cact[t_] = act_;                                                                \
            const int bb_ = act_ ? b_ : ((B0) < 0 ? 0 : (B0));                              \
            cxo[t_] = meta[(gidx)bb_ * QP_NMETA + QP_M_XO];                                 \
            czo[t_] = meta[(gidx)bb_ * QP_NMETA + QP_M_ZO];                                 \
            if (nrungs > 0) {                                                               \
                const int rung_ = state[(gidx)bb_ * QP_NSTATE + QP_S_RUNG];                 \
                cko[t_] = ((gidx)lad_ko + (gidx)rung_ * lad_ks) * QP_KALIGN;                \
                crho[t_] = lrho[rung_];                                                     \
            } else {                                                                        \
                cko[t_] = (gidx)meta[(gidx)bb_ * QP_NMETA + QP_M_KO] * QP_KALIGN;           \
                crho[t_] = info[(gidx)bb_ * QP_NINFO + QP_I_RHO];                           \
            }                                                                               \
        }                                                                                   \
    } while (0)

/* result slots per column */
#define R_PRIM 0
#define R_PRIMS 1
#define R_PTOL 2
#define R_PTOLS 3
#define R_SUP 4
#define R_NDY 5
#define R_LHS 6
#define R_DUAL 7
#define R_DUALS 8
#define R_DTOL 9
#define R_DTOLS 10
#define R_XPX 11
#define R_QX 12
#define R_NDX 13
#define R_QDX 14
#define R_ATDY 15
#define R_PDX 16
#define R_VIOL0 17
#define R_VIOL1 18

/* ACC[c] += Σ_k RV[k]·V(T0 + c, RC[k]) over row ROW of a CSR block (RP, RC, RV), for the QB
 * QPs T0 .. T0 + QB − 1 of a tile: the row's indices and values are read once for all. */
#define QP_ROW_TIMES(RP, RC, RV, ROW, V, T0, ACC)                                           \
    for (int k_ = (RP)[ROW]; k_ < (RP)[(ROW) + 1]; ++k_) {                                  \
        const int j_ = (RC)[k_];                                                            \
        const REAL v_ = (RV)[k_];                                                           \
        for (int c_ = 0; c_ < QB; ++c_) (ACC)[c_] += v_ * V((T0) + c_, j_);                 \
    }

/* The parameters of qp_admm and qp_check: the host launches both with one argument list
 * (ADMM_ARGS in src/qp/solver.c). */
/* MINB > 0 (-D, qp.minb): at least MINB work-groups per SM (CUDA caps the registers) */
#if defined(MINB) && MINB > 0
#define QP_ADMM_KERNEL KERNEL_MINB(WG, MINB)
#else
#define QP_ADMM_KERNEL KERNEL
#endif
QP_ADMM_KERNEL void qp_admm(GALA_PARAMS(QP_ARGS_admm))
{
#if defined(QP_TLAYOUT)
    /* the tile layout (VX above); RVEC arrays for the alignment of the vector reads */
    LOCAL_ARRAY RVEC lxv[(NCAP * TS + RVW - 1) / RVW];
    LOCAL_ARRAY RVEC lrv[(NCAP * TS + RVW - 1) / RVW];
    LOCAL_ARRAY RVEC lxtv[(NCAP * TS + RVW - 1) / RVW];
    LOCAL_ARRAY RVEC lzv[(MCAP * TS + RVW - 1) / RVW];
    LOCAL_ARRAY RVEC lyv[(MCAP * TS + RVW - 1) / RVW];
    LOCAL REAL *lx = (LOCAL REAL *)lxv, *lr = (LOCAL REAL *)lrv, *lxt = (LOCAL REAL *)lxtv;
    LOCAL REAL *lz = (LOCAL REAL *)lzv, *ly = (LOCAL REAL *)lyv;
    LOCAL_ARRAY int lct[MCAP];
#if REFINE
    LOCAL_ARRAY RVEC lwv[(MCAP * TS + RVW - 1) / RVW];
    LOCAL REAL *lw = (LOCAL REAL *)lwv;
#endif
#elif VLOCAL
    LOCAL_ARRAY REAL lx[TB * NCAP];
    LOCAL_ARRAY REAL lr[TB * NCAP];
    LOCAL_ARRAY REAL lxt[TB * NCAP];
    LOCAL_ARRAY REAL lz[TB * MCAP];
    LOCAL_ARRAY REAL ly[TB * MCAP];
    LOCAL_ARRAY int lct[MCAP];
#if REFINE
    LOCAL_ARRAY REAL lw[TB * MCAP];
#endif
#if TB == 1
    LOCAL_ARRAY REAL lq[NCAP];
    LOCAL_ARRAY REAL ll[MCAP];
    LOCAL_ARRAY REAL lu[MCAP];
#endif
#if KSPLIT > 1
    LOCAL_ARRAY REAL lks[KSPLIT * NCAP];
#endif
#endif
    LOCAL_ARRAY int cqp[TB];
    LOCAL_ARRAY int cact[TB];
    LOCAL_ARRAY gidx cxo[TB];
    LOCAL_ARRAY gidx czo[TB];
    LOCAL_ARRAY gidx cko[TB];
    LOCAL_ARRAY REAL crho[TB];
    const int lid = (int)LID(0);

    {
        const gidx g = GRP(0);
        /* the QPs of this group; b0 is a valid one whose n, m and matrices all share */
        int b0 = -1;
        QP_TILE_FIRST(b0);
        /* b0 < 0: nothing to do; the loops below then run zero times (no early exit around
         * barriers, for PoCL) */
        GLOBAL const int *mt = meta + (gidx)(b0 < 0 ? 0 : b0) * QP_NMETA;
        const int n = b0 < 0 ? 0 : mt[QP_M_N], m = b0 < 0 ? 0 : mt[QP_M_M];
        const int iters_g = b0 < 0 ? 0 : iters;
        QP_MATS(mt);
        QP_VALS(mt, GLOBAL const);
        const gidx co = mt[QP_M_CO]; /* row kinds: the QP's own (TB = 1) or the tile's shared */
        (void)co;
        QP_TILE_CACHE(b0);
        LOCAL_BARRIER();
#if VLOCAL
        for (int idx = lid; idx < TB * n; idx += WG) {
            const int t = idx / n, j = idx - t * n;
            VX(t, j) = vn[QP_V_X * ntot + cxo[t] + j];
        }
        for (int idx = lid; idx < TB * m; idx += WG) {
            const int t = idx / m, i = idx - t * m;
            VZ(t, i) = vm[QP_V_Z * mtot + czo[t] + i];
            VY(t, i) = vm[QP_V_Y * mtot + czo[t] + i];
        }
        for (int i = lid; i < m; i += WG) lct[i] = ctype[co + i];
#if TB == 1
        for (int j = lid; j < n; j += WG) lq[j] = GQ(0, j);
        for (int i = lid; i < m; i += WG) {
            ll[i] = GL(0, i);
            lu[i] = GU(0, i);
        }
#endif
        LOCAL_BARRIER();
#endif
        for (int it = 0; it < iters_g; ++it) {
            const int last = it == iters_g - 1;
            /* r = σx − q + Aᵀ(ρz − y). The sparse loops (here and below) give each
             * work-item one row for QB QPs of the tile: the row's indices and values are
             * read once for all of them (they share the matrices). */
            for (int idx = lid; idx < (TB / QB) * n; idx += WG) {
                const int t0 = idx / n * QB, j = idx - idx / n * n;
                REAL s[QB];
                for (int c = 0; c < QB; ++c) s[c] = sigma * VX(t0 + c, j) - LQ(t0 + c, j);
                for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
                    const int i = Tc[k], rk = RK(i);
                    const REAL v = Tv[k];
                    for (int c = 0; c < QB; ++c)
                        s[c] += v * (qp_rho_row(rk, crho[t0 + c]) * VZ(t0 + c, i) - VY(t0 + c, i));
                }
                for (int c = 0; c < QB; ++c) {
                    const int t = t0 + c;
                    if (!cact[t]) continue;
                    VR(t, j) = s[c];
                    if (last) GXP(t, j) = VX(t, j);
                }
            }
            GLOBAL_BARRIER();
#if REFINE
            /* x̃ = K⁻¹r, then one step of iterative refinement with K applied sparsely:
             * w = ρ∘(A x̃); r ← r − (σx̃ + P x̃ + Aᵀw); x̃ ← x̃ + K⁻¹r (float: removes the
             * bias of the explicit inverse); x = αx̃ + (1 − α)x. Compile-time, so that no
             * barrier sits in a branch. */
            QP_KINV(0, 0);
            GLOBAL_BARRIER();
            for (int idx = lid; idx < (TB / QB) * m; idx += WG) {
                const int t0 = idx / m * QB, i = idx - idx / m * m;
                REAL a[QB];
                for (int c = 0; c < QB; ++c) a[c] = 0;
                QP_ROW_TIMES(Ap, Ac, Av, i, VXT, t0, a);
                const int rk = RK(i);
                for (int c = 0; c < QB; ++c)
                    if (cact[t0 + c]) VW(t0 + c, i) = qp_rho_row(rk, crho[t0 + c]) * a[c];
            }
            GLOBAL_BARRIER();
            for (int idx = lid; idx < (TB / QB) * n; idx += WG) {
                const int t0 = idx / n * QB, j = idx - idx / n * n;
                REAL kx[QB];
                for (int c = 0; c < QB; ++c) kx[c] = sigma * VXT(t0 + c, j);
                QP_ROW_TIMES(Pp, Pc, Pv, j, VXT, t0, kx);
                QP_ROW_TIMES(Tp, Tc, Tv, j, VW, t0, kx);
                for (int c = 0; c < QB; ++c)
                    if (cact[t0 + c]) VR(t0 + c, j) -= kx[c];
            }
            GLOBAL_BARRIER();
            QP_KINV(1, 1);
#else
            /* x̃ = K⁻¹ r ; x = αx̃ + (1 − α)x */
            QP_KINV(0, 1);
#endif
            GLOBAL_BARRIER();
            /* z̃ = A x̃ ; z, y updates */
            for (int idx = lid; idx < (TB / QB) * m; idx += WG) {
                const int t0 = idx / m * QB, i = idx - idx / m * m;
                REAL za[QB];
                for (int c = 0; c < QB; ++c) za[c] = 0;
                QP_ROW_TIMES(Ap, Ac, Av, i, VXT, t0, za);
                const int rk = RK(i);
                for (int c = 0; c < QB; ++c) {
                    const int t = t0 + c;
                    if (!cact[t]) continue;
                    const REAL zt = za[c];
                    const REAL rho = qp_rho_row(rk, crho[t]);
                    const REAL zold = VZ(t, i), yold = VY(t, i);
                    const REAL zh = alpha * zt + ((REAL)1 - alpha) * zold;
                    REAL zn = zh + yold / rho;
                    const REAL lv = LL(t, i), uv = LU(t, i);
                    zn = zn < lv ? lv : zn;
                    zn = zn > uv ? uv : zn;
                    if (last) GYP(t, i) = yold;
                    VY(t, i) = yold + rho * (zh - zn);
                    VZ(t, i) = zn;
                }
            }
            GLOBAL_BARRIER();
        }

        LOCAL_BARRIER();
        /* store the iterates, count the iterations */
#if VLOCAL
        for (int idx = lid; idx < TB * n; idx += WG) {
            const int t = idx / n, j = idx - t * n;
            if (cact[t]) vn[QP_V_X * ntot + cxo[t] + j] = VX(t, j);
        }
        for (int idx = lid; idx < TB * m; idx += WG) {
            const int t = idx / m, i = idx - t * m;
            if (cact[t]) {
                vm[QP_V_Z * mtot + czo[t] + i] = VZ(t, i);
                vm[QP_V_Y * mtot + czo[t] + i] = VY(t, i);
            }
        }
#endif
        if (lid < TB && cact[lid]) state[(gidx)cqp[lid] * QP_NSTATE + QP_S_ITER] += iters_g;
    }
}

/* ------------------------------------------------------------------------------------ */
/* qp_check: the termination check of OSQP 1.0 for the QPs of a tile, after qp_admm has    */
/* stored the iterates: residuals, tolerances, duality gap, infeasibility, non-convexity,  */
/* ρ estimate and decision; reductions in local memory only. A kernel of its own (not the */
/* tail of qp_admm): PoCL mishandles barriers that follow barrier loops in one kernel.     */
/* ------------------------------------------------------------------------------------ */
#define GX(t, j) vn[QP_V_X * ntot + cxo[t] + (j)]
#define GZ(t, i) vm[QP_V_Z * mtot + czo[t] + (i)]
#define GY(t, i) vm[QP_V_Y * mtot + czo[t] + (i)]

KERNEL void qp_check(GALA_PARAMS(QP_ARGS_admm))
{
    LOCAL_ARRAY REAL part[4 * WG];
    LOCAL_ARRAY REAL res[TB * QP_NRES];
    LOCAL_ARRAY int cqp[TB];
    LOCAL_ARRAY int cact[TB];
    LOCAL_ARRAY gidx cxo[TB];
    LOCAL_ARRAY gidx czo[TB];
    LOCAL_ARRAY gidx cko[TB];
    LOCAL_ARRAY REAL crho[TB];
    const int lid = (int)LID(0);

    {
        const gidx g = GRP(0);
        /* the QPs of this group; b0 is a valid one whose n, m and matrices all share */
        int b0 = -1;
        QP_TILE_FIRST(b0);
        /* b0 < 0: nothing to do; the loops below then run zero times (no early exit around
         * barriers, for PoCL) */
        GLOBAL const int *mt = meta + (gidx)(b0 < 0 ? 0 : b0) * QP_NMETA;
        const int n = b0 < 0 ? 0 : mt[QP_M_N], m = b0 < 0 ? 0 : mt[QP_M_M];
        QP_MATS(mt);
        QP_VALS(mt, GLOBAL const);
        const gidx co = mt[QP_M_CO];
        (void)co;
        QP_TILE_CACHE(b0);
        LOCAL_BARRIER();
        const int U = !scaled_term;
        const int t = lid % TB, rstep = WG / TB;
        const int ok = cact[t];
        /* pass 1: rows */
        REAL a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0s = 0, b1 = 0, b2 = 0;
        if (ok) {
            for (int i = lid / TB; i < m; i += rstep) {
                REAL ax = 0;
                for (int k = Ap[i]; k < Ap[i + 1]; ++k) ax += Av[k] * GX(t, Ac[k]);
                const REAL zi = GZ(t, i), yi = GY(t, i), lv = GL(t, i), uv = GU(t, i);
                const REAL ei = GE(t, i), sc = U ? (REAL)1 / ei : (REAL)1;
                const REAL pr = qp_abs(ax - zi);
                a0 = qp_max(a0, pr * sc);
                a1 = qp_max(a1, pr);
                a2 = qp_max(a2, qp_max(qp_abs(ax), qp_abs(zi)) * sc);
                a3 = qp_max(a3, qp_max(qp_abs(ax), qp_abs(zi)));
                REAL yp = qp_polar(yi, lv, uv);
                if (qp_abs(yp) < QP_DEADZONE) yp = 0;
                b0s += qp_support(yp, lv, uv);
                const REAL dyp = qp_polar(yi - GYP(t, i), lv, uv);
                b1 = qp_max(b1, qp_abs(dyp) * (U ? ei : (REAL)1));
                b2 += qp_support(dyp, lv, uv);
            }
        }
        QP_RED4(part, lid, WG, TB, a0, a1, a2, a3, 0);
        if (lid < TB) {
            res[lid * QP_NRES + R_PRIM] = part[lid];
            res[lid * QP_NRES + R_PRIMS] = part[WG + lid];
            res[lid * QP_NRES + R_PTOL] = part[2 * WG + lid];
            res[lid * QP_NRES + R_PTOLS] = part[3 * WG + lid];
        }
        QP_RED4(part, lid, WG, TB, b0s, b1, b2, 0, 5);
        if (lid < TB) {
            res[lid * QP_NRES + R_SUP] = part[lid];
            res[lid * QP_NRES + R_NDY] = part[WG + lid];
            res[lid * QP_NRES + R_LHS] = part[2 * WG + lid];
        }
        /* pass 2: columns */
        REAL c0 = 0, c1 = 0, c2 = 0, c3 = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0, e0 = 0, e1 = 0;
        if (ok) {
            for (int j = lid / TB; j < n; j += rstep) {
                REAL px = 0, aty = 0, atdy = 0, pdx = 0;
                for (int k = Pp[j]; k < Pp[j + 1]; ++k) {
                    const int c = Pc[k];
                    px += Pv[k] * GX(t, c);
                    pdx += Pv[k] * (GX(t, c) - GXP(t, c));
                }
                for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
                    const int i = Tc[k];
                    const REAL yi = GY(t, i);
                    aty += Tv[k] * yi;
                    atdy += Tv[k] * qp_polar(yi - GYP(t, i), GL(t, i), GU(t, i));
                }
                const REAL xj = GX(t, j), qj = GQ(t, j), dj = GD(t, j);
                const REAL sc = U ? (REAL)1 / dj : (REAL)1;
                const REAL dr = qp_abs(px + qj + aty);
                const REAL tn = qp_max(qp_abs(qj), qp_max(qp_abs(aty), qp_abs(px)));
                c0 = qp_max(c0, dr * sc);
                c1 = qp_max(c1, dr);
                c2 = qp_max(c2, tn * sc);
                c3 = qp_max(c3, tn);
                const REAL dx = xj - GXP(t, j);
                d0 += xj * px;
                d1 += qj * xj;
                d2 = qp_max(d2, qp_abs(dx) * (U ? dj : (REAL)1));
                d3 += qj * dx;
                e0 = qp_max(e0, qp_abs(atdy) * sc);
                e1 = qp_max(e1, qp_abs(pdx) * sc);
            }
        }
        QP_RED4(part, lid, WG, TB, c0, c1, c2, c3, 0);
        if (lid < TB) {
            res[lid * QP_NRES + R_DUAL] = part[lid];
            res[lid * QP_NRES + R_DUALS] = part[WG + lid];
            res[lid * QP_NRES + R_DTOL] = part[2 * WG + lid];
            res[lid * QP_NRES + R_DTOLS] = part[3 * WG + lid];
        }
        QP_RED4(part, lid, WG, TB, d0, d1, d2, d3, 1 | 2 | 8);
        if (lid < TB) {
            res[lid * QP_NRES + R_XPX] = part[lid];
            res[lid * QP_NRES + R_QX] = part[WG + lid];
            res[lid * QP_NRES + R_NDX] = part[2 * WG + lid];
            res[lid * QP_NRES + R_QDX] = part[3 * WG + lid];
        }
        QP_RED4(part, lid, WG, TB, e0, e1, 0, 0, 0);
        if (lid < TB) {
            res[lid * QP_NRES + R_ATDY] = part[lid];
            res[lid * QP_NRES + R_PDX] = part[WG + lid];
        }
        LOCAL_BARRIER();
        /* pass 3: A·δx in the recession cone of [l, u], for the exact and the ×10 tolerance */
        REAL v0 = 0, v1 = 0;
        if (ok) {
            const REAL ndx = res[t * QP_NRES + R_NDX];
            const REAL tol0 = eps_dinf * ndx, tol1 = 10 * eps_dinf * ndx;
            for (int i = lid / TB; i < m; i += rstep) {
                REAL adx = 0;
                for (int k = Ap[i]; k < Ap[i + 1]; ++k) {
                    const int c = Ac[k];
                    adx += Av[k] * (GX(t, c) - GXP(t, c));
                }
                if (U) adx /= GE(t, i);
                const REAL lv = GL(t, i), uv = GU(t, i);
                v0 += ((uv < QP_INFV && adx > tol0) || (lv > -QP_INFV && adx < -tol0)) ? 1 : 0;
                v1 += ((uv < QP_INFV && adx > tol1) || (lv > -QP_INFV && adx < -tol1)) ? 1 : 0;
            }
        }
        QP_RED4(part, lid, WG, TB, v0, v1, 0, 0, 3);
        if (lid < TB) {
            res[lid * QP_NRES + R_VIOL0] = part[lid];
            res[lid * QP_NRES + R_VIOL1] = part[WG + lid];
        }
        LOCAL_BARRIER();

        /* decisions, one work-item per QP */
        if (lid < TB && cact[lid]) {
            const int b = cqp[lid];
            GLOBAL REAL *inf = info + (gidx)b * QP_NINFO;
            GLOBAL int *st = state + (gidx)b * QP_NSTATE;
            LOCAL REAL *R = res + lid * QP_NRES;
            const REAL c = inf[QP_I_C], cinv = (REAL)1 / c;
            const REAL prim = R[R_PRIM];
            const REAL dual = (U ? cinv : (REAL)1) * R[R_DUAL];
            const REAL xpx = R[R_XPX], qx = R[R_QX], sup = R[R_SUP];
            inf[QP_I_PRIM] = prim;
            inf[QP_I_DUAL] = dual;
            inf[QP_I_SPRIM] = R[R_PRIMS];
            inf[QP_I_SDUAL] = R[R_DUALS];
            inf[QP_I_OBJ] = cinv * ((REAL)0.5 * xpx + qx);
            inf[QP_I_DOBJ] = cinv * ((REAL)-0.5 * xpx - sup);
            inf[QP_I_GAP] = cinv * (xpx + qx + sup);
            /* the status: at a termination check (check) and at the last iteration
             * (final_status); `exact` is that of the exact tolerances, before the ×10 pass */
            int status = 0, exact = 0;
            if (check || final_status) {
                if (!(prim <= QP_INFTY) || !(dual <= QP_INFTY)) {
                    status = exact = 9;
                } else {
                    for (int pass = 0; pass < (final_status ? 2 : 1) && !status; ++pass) {
                        const REAL f = pass ? (REAL)10 : (REAL)1;
                        const REAL ea = f * eps_abs, er = f * eps_rel;
                        const REAL epi = f * eps_pinf, edi = f * eps_dinf;
                        int prim_ok = 1, pinf = 0, dinf = 0, gap_ok = 1;
                        if (m > 0) {
                            prim_ok = prim < ea + er * R[R_PTOL];
                            const REAL ndy = R[R_NDY];
                            if (!prim_ok && ndy > QP_DIVTOL && R[R_LHS] < 0)
                                pinf = R[R_ATDY] < epi * ndy;
                        }
                        const int dual_ok = dual < ea + er * (U ? cinv : (REAL)1) * R[R_DTOL];
                        const REAL ndx = R[R_NDX];
                        if (!dual_ok && ndx > QP_DIVTOL && R[R_QDX] < 0 &&
                            R[R_PDX] < (U ? c : (REAL)1) * edi * ndx)
                            dinf = R[pass ? R_VIOL1 : R_VIOL0] == 0;
                        if (dualgap) {
                            const REAL s = U ? cinv : (REAL)1;
                            const REAL gtol = ea + er * s * qp_max(qp_abs(xpx), qp_max(qp_abs(qx), qp_abs(sup)));
                            gap_ok = qp_abs(s * (xpx + qx + sup)) < gtol;
                        }
                        if (prim_ok && dual_ok && gap_ok) status = pass ? 2 : 1;
                        else if (pinf) status = pass ? 4 : 3;
                        else if (dinf) status = pass ? 6 : 5;
                        if (!pass) exact = status;
                    }
                    if (!status && final_status) status = final_status;
                }
                st[QP_S_STATUS] = status;
            }
            /* adaptive ρ, as OSQP: at every adaptive_rho_interval-th iteration whether or not
             * it is a termination check, after the check and only if it did not stop the QP,
             * the last iteration included (the new ρ then serves the next solve). OSQP's
             * clamp: NaN gives OSQP_RHO_MIN. Unlike OSQP, a residual that is exactly 0 (x on
             * its bounds in float: Ax = z) leaves ρ as it is: its ratio says nothing of the
             * balance and would send ρ to RHO_MIN or RHO_MAX, where y or z stops moving.
             * The ladder is damped against cycles (QP_LADDER_REVISITS). */
            const REAL rho = crho[lid];
            const REAL pn = R[R_PRIMS] / (R[R_PTOLS] + QP_DIVTOL);
            const REAL dn = R[R_DUALS] / (R[R_DTOLS] + QP_DIVTOL);
            const REAL ratio = sqrt(pn / dn);
            if (!exact && adapt && pn > 0 && dn > 0) {
                REAL rn = rho * ratio;
                rn = rn > QP_RHO_MIN ? rn : QP_RHO_MIN;
                rn = rn < QP_RHO_MAX ? rn : QP_RHO_MAX;
                if (rn > rho * rho_tol || rn < rho / rho_tol) {
                    if (nrungs > 0) {
                        int best = st[QP_S_RUNG];
                        REAL bd = QP_INFTY;
                        for (int k = 0; k < nrungs; ++k) {
                            if (!rungok[k]) continue;
                            const REAL r1 = lrho[k] / rn, r2 = rn / lrho[k];
                            const REAL dist = r1 > r2 ? r1 : r2;
                            if (dist < bd) { bd = dist; best = k; }
                        }
                        const int cur = st[QP_S_RUNG];
                        if (best != cur && (st[QP_S_SEEN] & QP_RUNG_BIT(best))) {
                            /* a revisit: one usable rung toward best, or none after QP_LADDER_REVISITS */
                            const int dir = best > cur ? 1 : -1;
                            int k = cur + dir;
                            while (k != best && !rungok[k]) k += dir;
                            best = st[QP_S_REVISIT] < QP_LADDER_REVISITS ? k : cur;
                            st[QP_S_REVISIT] += best != cur;
                        }
                        if (best != cur) {
                            st[QP_S_SEEN] |= QP_RUNG_BIT(best);
                            st[QP_S_RUNG] = best;
                            inf[QP_I_RHO] = lrho[best];
                            st[QP_S_RHOUPD] += 1;
                        }
                    } else {
                        inf[QP_I_RHO] = rn;
                        refac[b] = 1;
                        st[QP_S_RHOUPD] += 1;
                    }
                }
            }
            /* info.rho_estimate: OSQP's estimate at the end of a solve, from the last iterate
             * and the ρ then in use; every check keeps it current */
            REAL re = inf[QP_I_RHO] * ratio;
            re = re > QP_RHO_MIN ? re : QP_RHO_MIN;
            inf[QP_I_RHOEST] = re < QP_RHO_MAX ? re : QP_RHO_MAX;
        }
    }
}

#endif /* QP_HAS(3) */
