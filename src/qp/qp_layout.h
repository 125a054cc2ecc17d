/* Layout of the QP solver's device data, shared by the driver (src/qp) and the host
 * kernels (src/device/host/k_qp.c). The same numbers are #defined in cl/qp.cl. */
#ifndef GALA_QP_LAYOUT_H
#define GALA_QP_LAYOUT_H

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
#define QP_NSTATE 4
#define QP_S_STATUS 0
#define QP_S_ITER 1
#define QP_S_RHOUPD 2
#define QP_S_RUNG 3

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
#define QP_CG_TOL_MIN 1e-7
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

#define QP_RHO_MIN 1e-6
#define QP_RHO_MAX 1e6
#define QP_RHO_EQ 1e3
#define QP_INFTY 1e30
#define QP_INFV 1e26
#define QP_DIVTOL 1e-30
#define QP_MIN_SCALING 1e-4
#define QP_MAX_SCALING 1e4

#endif
