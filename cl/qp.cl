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
 * The kernels, by the part of the solver that launches them (src/qp), one file each under
 * cl/qp/ (the order below is the program's; QP_PART, in common.clh, selects the parts a
 * program holds):
 *   common.clh          the program's parameters, shared helpers (qp_max, QP_RED4, ...)
 *   scale.cl            qp_scale_norms, qp_scale_update, qp_scale_apply: Ruiz scaling
 *   kinv.cl             qp_form_k, qp_chol_inv, qp_mirror: K⁻¹ of the dense strategies
 *   setup.cl            qp_expand, qp_init, qp_reset, qp_shared_apply: data at setup
 *   update.cl           qp_vec_update, qp_warm: updates and warm starts
 *   vectors_device.cl   qp_vec_check, qp_vec_in, qp_sol_out, qp_warm_in: the caller's
 *                       device buffers (src/qp/vectors_device.c)
 *   kkt.cl              qp_kkt_values, qp_kkt_rhs, qp_kkt_update, qp_kkt_resid: the sparse
 *                       strategy (QP_PART 2)
 *   pcg.cl              qp_pcg_precond, qp_pcg: the PCG strategy (QP_PART 2)
 *   results.cl          qp_unscale, qp_count, qp_compact_count, qp_compact_write
 *   admm.cl             qp_admm, qp_check: the iterations and the termination check
 *                       (QP_PART 3)
 * Layouts, flags and argument lists: cl/qp_abi.h.
 *
 * gala-defines: WG=128 TB=4 NCAP=128 MCAP=128 VLOCAL=1 REFINE=1 KS=1 RB=2 QB=4 MINB=4 TL=1
 * -D parameters: WG (work-group size, a multiple of 32), TB (QPs per work-group, power of
 * two <= WG), NCAP / MCAP (local capacity per QP for n- and m-vectors), VLOCAL (1: vectors
 * in local memory), REFINE (1: one step of iterative refinement per solve, for float), KS
 * (TB = 1: column slices of the K⁻¹ product), RB (TB > 1: rows of the K⁻¹ product per
 * work-item), QB (TB > 1: QPs per work-item in the K⁻¹ product and the sparse products),
 * MINB (qp_admm, qp_check: work-groups per SM the CUDA compiler must fit), REQD_WG (1:
 * qp_admm and qp_check compiled for exactly WG work-items), TL (TB > 1: 1 for the tile
 * layout of the local vectors, admm.cl). The other kernels use WG only.
 */
#include "qp/common.clh"
#include "qp/scale.cl"
#include "qp/kinv.cl"
#include "qp/setup.cl"
#include "qp/update.cl"
#include "qp/vectors_device.cl"
#include "qp/kkt.cl"
#include "qp/pcg.cl"
#include "qp/results.cl"
#include "qp/admm.cl"
