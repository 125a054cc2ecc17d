/*
 * The QP kernels' contract (issue 38): what cl/qp.cl, the host kernels
 * (src/device/host/k_qp.c) and the driver (src/qp) share, written once in the subset of C
 * that C11 and OpenCL C have in common. cl/qp.cl includes it (gala_kernel_source expands
 * the #include), the C files include it as a header.
 *
 *   layouts      meta (QP_M_*), state (QP_S_*), info (QP_I_*), vector kinds (QP_V_*),
 *                qtab (QP_T_*), kq (QP_KQ_*), the PCG workspace (QP_PW_*, QP_PS_*)
 *   flags        qp_kkt_update's (QP_KKT_*)
 *   constants    OSQP's (QP_RHO_MIN ...), in the kernels' REAL (QP_REAL_C)
 *   arguments    per kernel an X-list QP_ARGS_<name>(F, X): F(kind, type, name) for the
 *                first argument, X(...) for the others; kind B a buffer of `type`, I int,
 *                L 64-bit index (gidx), R real (REAL). From it: the kernel's parameters
 *                (GALA_PARAMS, cl/common.clh), the host kernel's signature (GALA_HOST_SIG,
 *                host_kernels.h) and the driver's typed launch (GALA_LAUNCHER,
 *                src/core/kernel.h). tools/check-abi.py (CTest abi_once) fails when one of
 *                them is written out by hand again.
 * The per-QP rules both sides run (state resets, adaptive ρ) are in cl/qp_rules.h.
 */
#ifndef GALA_QP_ABI_H
#define GALA_QP_ABI_H

/* a real constant: the kernels' REAL (cl/qp.cl defines it so), a double in C */
#ifndef QP_REAL_C
#define QP_REAL_C(x) (x)
#endif

/* meta: per device QP ("slot"), ints. The sparsity patterns (row pointers rp, column
 * indices ci) are stored once per distinct pattern; the values mv once per slot (once for
 * the batch in the shared strategy). Row pointers count from the start of their block:
 * entry k of P's row j is (ci[PC + k], mv[PV + k]) for k in rp[PP + j] .. rp[PP + j + 1]. */
#define QP_NMETA 20
#define QP_M_N 0
#define QP_M_M 1
#define QP_M_XO 2   /* n-vector offset */
#define QP_M_ZO 3   /* m-vector offset */
#define QP_M_KO 4   /* K⁻¹ offset / KALIGN */
#define QP_M_CO 5   /* row kinds offset (ZO, or 0 when the batch shares them) */
#define QP_M_PP 6   /* P, full symmetric, CSR: row pointers (rp) */
#define QP_M_PC 7   /*   column indices (ci) */
#define QP_M_PV 8   /*   values (mv) */
#define QP_M_AP 9   /* A, CSR */
#define QP_M_AC 10
#define QP_M_AV 11
#define QP_M_TP 12  /* Aᵀ, CSR (= A's CSC) */
#define QP_M_TC 13
#define QP_M_TV 14
#define QP_M_RO 15  /* raw (unscaled, CSC) values: P's upper triangle then A, in raw */
#define QP_M_PM 16  /* CSC -> CSR map of P: 2 per entry (its row, its mirror or -1), in map */
#define QP_M_AM 17  /* CSC -> CSR map of A: 1 per entry, in map */
#define QP_M_PNZ 18 /* entries of P's upper triangle */
#define QP_M_ANZ 19 /* entries of A */

/* state: per QP, ints */
#define QP_NSTATE 6
#define QP_S_STATUS 0
#define QP_S_ITER 1
#define QP_S_RHOUPD 2
#define QP_S_RUNG 3
#define QP_S_SEEN 4    /* the rungs visited this solve: bit k % 31 for rung k */
#define QP_S_REVISIT 5 /* ladder moves this solve to a rung already visited */

/* The ladder's damping: a QP whose estimate jumps between rungs (it lies between two, or
 * a residual near 0 throws it to the ladder's end) can cycle through the same rungs at
 * every adaptive step and never converge. A move to a rung visited before in the same
 * solve goes one rung toward it; after QP_LADDER_REVISITS such moves the QP stays on its
 * rung for the rest of the solve (docs/qp.md; the move: QP_LADDER_DAMP, cl/qp_rules.h). */
#define QP_LADDER_REVISITS 4
#define QP_RUNG_BIT(k) (1 << ((k) % 31))

/* hstat: per slot, why a QP is invalid: 0 valid, 1 decided on the host (its data), 2 + i
 * row i's kind differs from the batch's shared kinds (shared strategy, after scaling) */
#define QP_H_HOST 1
#define QP_H_KIND 2

/* qtab: per QP of the batch (rejected ones too, in batch order), ints: where its vectors
 * are in the caller's arrays of the device-vector calls (vectors_device.c) */
#define QP_NQT 5
#define QP_T_SLOT 0 /* its slot, or -1 (rejected at setup) */
#define QP_T_N 1    /* n and m (0 for a QP rejected with invalid sizes) */
#define QP_T_M 2
#define QP_T_XO 3   /* offset of its n-vector: the n of the QPs before it */
#define QP_T_ZO 4   /* offset of its m-vector */

/* verdicts of qp_vec_in: per slot, ints (code, first bad entry or row) and reals (values) */
#define QP_VD_OK 0
#define QP_VD_Q 1      /* q[index] is not finite */
#define QP_VD_BOUNDS 2 /* the bounds of row index are invalid */

/* info: per QP, reals */
#define QP_NINFO 10
#define QP_I_RHO 0
#define QP_I_C 1
#define QP_I_PRIM 2
#define QP_I_DUAL 3
#define QP_I_OBJ 4
#define QP_I_GAP 5
#define QP_I_RHOEST 6
#define QP_I_DOBJ 7
#define QP_I_SPRIM 8 /* the residuals of the scaled problem (qp_check; PCG's tolerance) */
#define QP_I_SDUAL 9

/* kinds of n-vectors (vn) and m-vectors (vm) */
#define QP_V_X 0
#define QP_V_XPREV 1
#define QP_V_XT 2
#define QP_V_R 3
#define QP_V_Q 4
#define QP_V_D 5
#define QP_V_W2 6
#define QP_NV 7
#define QP_V_Z 0
#define QP_V_Y 1
#define QP_V_YPREV 2
#define QP_V_L 3
#define QP_V_U 4
#define QP_V_E 5
#define QP_V_W 6
#define QP_MV 7

/* PCG strategy workspace (linsys_pcg.c): n-vector sections of ntot at each slot's XO, then
 * one m-vector section at QP_PW_NV·ntot + ZO; per slot QP_NPST reals of tolerance state.
 * The CG iterate lives in the slot's right-hand side (b₁'s entries). */
#define QP_PW_B 0   /* reduced right-hand side */
#define QP_PW_R 1   /* residual */
#define QP_PW_P 2   /* search direction */
#define QP_PW_KP 3  /* K times it */
#define QP_PW_MI 4  /* inverse Jacobi preconditioner */
#define QP_PW_NV 5
#define QP_PS_EPS 0 /* the last tolerance */
#define QP_PS_RED 1 /* the reduction factor */
#define QP_PS_ZERO 2 /* consecutive solves without a CG iteration */
#define QP_NPST 3
#define QP_CG_TOL_MIN QP_REAL_C(1e-7)
#define QP_KALIGN 32

/* qp_kkt_update's flags (its corr argument): add the refinement's correction kc to the
 * solution kx; the solution holds ν in entries n .. n + m − 1 (the sparse KKT solve, whose
 * z̃ is then OSQP's (z − y/ρ) + ν/ρ; PCG gives x̃ only: z̃ = Ax̃); with NU, write the next
 * iteration's right-hand side into kc (qp_kkt_rhs fused: one launch less per iteration),
 * and with NEXT_LAST that next iteration is a launch's last (x and y go to the previous
 * iterate's copies, as qp_kkt_rhs's last) */
#define QP_KKT_CORR 1
#define QP_KKT_NU 2
#define QP_KKT_NEXT 4
#define QP_KKT_NEXT_LAST 8

#define QP_RHO_MIN QP_REAL_C(1e-6)
#define QP_RHO_MAX QP_REAL_C(1e6)
#define QP_RHO_EQ QP_REAL_C(1e3)
#define QP_INFTY QP_REAL_C(1e30)
#define QP_INFV QP_REAL_C(1e26)
#define QP_DIVTOL QP_REAL_C(1e-30)
#define QP_MIN_SCALING QP_REAL_C(1e-4)
#define QP_MAX_SCALING QP_REAL_C(1e4)

/* kq: per slot of the sparse strategy, ints: its matrix in the factor object, the offset of
 * its group's value map, its KKT entries */
#define QP_NKQ 3
#define QP_KQ_Q 0
#define QP_KQ_MAP 1
#define QP_KQ_NNZ 2

/* reals per QP of qp_check's result slots (R_* in cl/qp.cl) */
#define QP_NRES 20

/* below this, the polar part of a multiplier counts as zero (float, double) */
#define QP_DEADZONE_f 1e-10
#define QP_DEADZONE_d 1e-15

/* ------------------------------------------------------------------ arguments */

/* qp_scale_norms, qp_scale_update */
#define QP_ARGS_scale_norms(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, const int, rp)         \
    X(B, const int, ci) X(B, const REAL, mv) X(B, REAL, vn) X(L, gidx, ntot) X(B, REAL, vm)  \
    X(L, gidx, mtot) X(B, REAL, info)

/* qp_scale_apply */
#define QP_ARGS_scale_apply(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, const int, rp)         \
    X(B, const int, ci) X(B, REAL, mv) X(B, REAL, vn) X(L, gidx, ntot) X(B, REAL, vm)        \
    X(L, gidx, mtot) X(B, REAL, info) X(B, int, ctype) X(I, int, rho_is_vec)

/* qp_form_k */
#define QP_ARGS_form_k(F, X) \
    F(B, const int, meta) X(B, const int, jqp) X(B, const int, jko) X(B, const REAL, jrho)   \
    X(I, int, jrs) X(I, int, jro) X(B, const int, flag) X(I, int, njobs) X(B, const int, rp) \
    X(B, const int, ci) X(B, const REAL, mv) X(B, const int, ctype) X(B, REAL, K)            \
    X(R, REAL, sigma) X(I, int, lower)

/* qp_chol_inv */
#define QP_ARGS_chol_inv(F, X) \
    F(B, const int, meta) X(B, const int, jqp) X(B, const int, jko) X(B, int, flag)          \
    X(I, int, njobs) X(B, REAL, K) X(B, int, jinfo) X(B, int, state) X(I, int, set_status)

/* qp_mirror */
#define QP_ARGS_mirror(F, X) \
    F(B, const int, meta) X(B, const int, jqp) X(B, const int, jko) X(B, int, flag)          \
    X(I, int, njobs) X(B, REAL, K)

/* qp_expand */
#define QP_ARGS_expand(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, const int, map)        \
    X(B, const REAL, raw) X(B, REAL, mv)

/* qp_init */
#define QP_ARGS_init(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, int, state)            \
    X(B, REAL, info) X(B, REAL, vn) X(L, gidx, ntot) X(B, REAL, vm) X(L, gidx, mtot)         \
    X(B, const int, hstat) X(R, REAL, rho) X(I, int, rung0) X(I, int, keep_rho)

/* qp_reset */
#define QP_ARGS_reset(F, X) \
    F(B, int, state) X(B, const int, hstat) X(I, int, nslots) X(I, int, keep)                \
    X(I, int, rung0)

/* qp_shared_apply */
#define QP_ARGS_shared_apply(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, REAL, vn)              \
    X(L, gidx, ntot) X(B, REAL, vm) X(L, gidx, mtot) X(B, REAL, info) X(B, const int, ctype) \
    X(B, int, state) X(B, int, hstat) X(I, int, rho_is_vec)

/* qp_vec_update */
#define QP_ARGS_vec_update(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, REAL, vn)              \
    X(L, gidx, ntot) X(B, REAL, vm) X(L, gidx, mtot) X(B, const REAL, info) X(B, int, ctype) \
    X(B, int, refac) X(B, int, state) X(B, int, hstat) X(I, int, which) X(I, int, shared)    \
    X(I, int, rho_is_vec)

/* qp_warm */
#define QP_ARGS_warm(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, const int, rp)         \
    X(B, const int, ci) X(B, const REAL, mv) X(B, REAL, vn) X(L, gidx, ntot) X(B, REAL, vm)  \
    X(L, gidx, mtot) X(B, const REAL, info) X(I, int, which)

/* qp_vec_check */
#define QP_ARGS_vec_check(F, X) \
    F(B, const int, meta) X(B, const int, qtab) X(I, int, count) X(B, const REAL, q)         \
    X(L, gidx, qoff) X(B, const REAL, l) X(L, gidx, loff) X(B, const REAL, u)                \
    X(L, gidx, uoff) X(B, const REAL, raw) X(L, gidx, ntot) X(L, gidx, mtot)                 \
    X(B, int, hstat) X(B, int, verd) X(B, REAL, vbad) X(I, int, which)

/* qp_vec_in */
#define QP_ARGS_vec_in(F, X) \
    F(B, const int, meta) X(B, const int, qtab) X(I, int, count) X(B, const REAL, q)         \
    X(L, gidx, qoff) X(B, const REAL, l) X(L, gidx, loff) X(B, const REAL, u)                \
    X(L, gidx, uoff) X(B, REAL, vn) X(L, gidx, ntot) X(B, REAL, vm) X(L, gidx, mtot)         \
    X(B, REAL, raw) X(B, const int, verd) X(I, int, which)

/* qp_sol_out */
#define QP_ARGS_sol_out(F, X) \
    F(B, const int, meta) X(B, const int, qtab) X(I, int, count) X(B, const int, osol)       \
    X(B, const REAL, vn) X(L, gidx, ntot) X(B, const REAL, vm) X(L, gidx, mtot)              \
    X(B, REAL, x) X(L, gidx, xoff) X(B, REAL, y) X(L, gidx, yoff) X(I, int, which)

/* qp_warm_in */
#define QP_ARGS_warm_in(F, X) \
    F(B, const int, meta) X(B, const int, qtab) X(I, int, count) X(B, const REAL, x)         \
    X(L, gidx, xoff) X(B, const REAL, y) X(L, gidx, yoff) X(B, REAL, vn) X(L, gidx, ntot)    \
    X(B, REAL, vm) X(L, gidx, mtot) X(I, int, which)

/* qp_kkt_values */
#define QP_ARGS_kkt_values(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, const int, kq)         \
    X(B, const int, kmap) X(B, const REAL, mv) X(B, const int, ctype) X(B, const REAL, info) \
    X(B, REAL, kv) X(L, gidx, kstride) X(R, REAL, sigma)

/* qp_kkt_rhs */
#define QP_ARGS_kkt_rhs(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, const int, state)      \
    X(B, const int, kq) X(B, REAL, vn) X(L, gidx, ntot) X(B, REAL, vm) X(L, gidx, mtot)      \
    X(B, const int, ctype) X(B, const REAL, info) X(B, REAL, kb) X(L, gidx, kbm)             \
    X(L, gidx, kbe) X(R, REAL, sigma) X(I, int, last)

/* qp_kkt_update */
#define QP_ARGS_kkt_update(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, int, state)            \
    X(B, const int, kq) X(B, const int, rp) X(B, const int, ci) X(B, const REAL, mv)         \
    X(B, REAL, vn) X(L, gidx, ntot) X(B, REAL, vm) X(L, gidx, mtot) X(B, const int, ctype)   \
    X(B, const REAL, info) X(B, const REAL, kx) X(B, REAL, kc) X(I, int, corr)               \
    X(L, gidx, kbm) X(L, gidx, kbe) X(R, REAL, alpha) X(R, REAL, sigma) X(I, int, iters)

/* qp_kkt_resid */
#define QP_ARGS_kkt_resid(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, const int, state)      \
    X(B, const int, kq) X(B, const int, rp) X(B, const int, ci) X(B, const REAL, mv)         \
    X(B, const int, ctype) X(B, const REAL, info) X(B, REAL, kb) X(B, const REAL, kx)        \
    X(L, gidx, kbm) X(L, gidx, kbe) X(R, REAL, sigma)

/* qp_pcg_precond */
#define QP_ARGS_pcg_precond(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, int, state)            \
    X(B, const int, refac) X(I, int, all) X(B, const int, rp) X(B, const int, ci)            \
    X(B, const REAL, mv) X(B, const int, ctype) X(B, const REAL, info) X(B, REAL, pw)        \
    X(L, gidx, ntot) X(R, REAL, sigma)

/* qp_pcg */
#define QP_ARGS_pcg(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, int, state)            \
    X(B, const int, rp) X(B, const int, ci) X(B, const REAL, mv) X(B, const REAL, vn)        \
    X(L, gidx, ntot) X(B, const int, ctype) X(B, const REAL, info) X(B, REAL, kb)            \
    X(B, REAL, pw) X(B, REAL, pst) X(R, REAL, sigma) X(I, int, maxit) X(I, int, tolred)      \
    X(R, REAL, tolfrac) X(I, int, it0) X(I, int, chk)

/* qp_unscale */
#define QP_ARGS_unscale(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, REAL, vn)              \
    X(L, gidx, ntot) X(B, REAL, vm) X(L, gidx, mtot) X(B, const REAL, info)                  \
    X(B, const int, state)

/* qp_count */
#define QP_ARGS_count(F, X) \
    F(B, const int, list) X(I, int, nlist) X(B, const int, state) X(B, const int, refac)     \
    X(B, int, out)

/* qp_compact_count */
#define QP_ARGS_compact_count(F, X) \
    F(B, const int, list) X(I, int, nlist) X(B, const int, state) X(B, int, ccnt)

/* qp_compact_write */
#define QP_ARGS_compact_write(F, X) \
    F(B, const int, list) X(I, int, nlist) X(B, const int, state) X(B, const int, ccnt)      \
    X(B, int, alist) X(B, int, out) X(I, int, slot)

/* qp_admm, qp_check */
#define QP_ARGS_admm(F, X) \
    F(B, const int, meta) X(B, const int, list) X(I, int, nlist) X(B, int, state)            \
    X(B, REAL, info) X(B, int, refac) X(B, const int, rp) X(B, const int, ci)                \
    X(B, const REAL, mv) X(B, const REAL, K) X(B, REAL, vn) X(L, gidx, ntot) X(B, REAL, vm)  \
    X(L, gidx, mtot) X(B, const int, ctype) X(B, const REAL, lrho) X(B, const int, rungok)   \
    X(I, int, nrungs) X(I, int, lad_ko) X(I, int, lad_ks) X(I, int, iters) X(I, int, check)  \
    X(I, int, adapt) X(I, int, final_status) X(I, int, scaled_term) X(I, int, dualgap)       \
    X(R, REAL, sigma) X(R, REAL, alpha) X(R, REAL, eps_abs) X(R, REAL, eps_rel)              \
    X(R, REAL, eps_pinf) X(R, REAL, eps_dinf) X(R, REAL, rho_tol)

#endif
