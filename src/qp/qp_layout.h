/* Layout of the QP solver's device data, shared by the driver (src/qp) and the host
 * kernels (src/device/host/k_qp.c). The same numbers are #defined in cl/qp.cl. */
#ifndef GALA_QP_LAYOUT_H
#define GALA_QP_LAYOUT_H

/* meta: per QP, ints */
#define QP_NMETA 8
#define QP_M_N 0
#define QP_M_M 1
#define QP_M_XO 2
#define QP_M_ZO 3
#define QP_M_PP 4
#define QP_M_AP 5
#define QP_M_TP 6
#define QP_M_KO 7

/* state: per QP, ints */
#define QP_NSTATE 4
#define QP_S_STATUS 0
#define QP_S_ITER 1
#define QP_S_RHOUPD 2
#define QP_S_RUNG 3

/* info: per QP, reals */
#define QP_NINFO 8
#define QP_I_RHO 0
#define QP_I_C 1
#define QP_I_PRIM 2
#define QP_I_DUAL 3
#define QP_I_OBJ 4
#define QP_I_GAP 5
#define QP_I_RHOEST 6
#define QP_I_DOBJ 7

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

#define QP_KALIGN 32

#define QP_RHO_MIN 1e-6
#define QP_RHO_MAX 1e6
#define QP_RHO_EQ 1e3
#define QP_INFTY 1e30
#define QP_INFV 1e26
#define QP_DIVTOL 1e-30
#define QP_MIN_SCALING 1e-4
#define QP_MAX_SCALING 1e4

#endif
