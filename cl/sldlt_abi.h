/*
 * The sparse LDLᵀ kernels' contract (cl/sldlt.cl, src/device/host/k_sldlt.c, and the driver
 * src/la/sparse_ldlt.c with its symbolic analysis sparse_ldlt_symbolic.c, which writes the
 * schedule), written once as cl/qp_abi.h says; docs/ldlt.md has the figures.
 *
 *   gd     SLDLT_GDESC ints per group (one pattern of a factor object): SLDLT_G_*; offsets
 *          into the schedule buffer sc are absolute (ints), V and workspace bases 64-bit
 *   sc     the schedules of all groups, sections at the offsets of gd: column tasks
 *          (SLDLT_T_*), their instructions (SLDLT_I_*), the map of A's entries (SLDLT_AM_*),
 *          solve tasks (SLDLT_S_*), rows of L (SLDLT_FR_*), bidx, lp, li, aptr, the level
 *          order lord[lev[l] .. lev[l + 1]), and the launch steps (SLDLT_SP_*)
 *   st     per matrix q of all groups: st[LA_NST·q + LA_ST_*] (cl/la_abi.h)
 */
#ifndef GALA_SLDLT_ABI_H
#define GALA_SLDLT_ABI_H

#include "la_abi.h"

/* group descriptor */
#define SLDLT_GDESC 32
#define SLDLT_G_BATCH 0  /* matrices in the group */
#define SLDLT_G_Q0 1     /* global index of its first matrix */
#define SLDLT_G_N 2      /* order */
#define SLDLT_G_NNZL 3   /* entries of L below the diagonal; D[j] is V[NNZL + j] */
#define SLDLT_G_NLEV 4   /* levels */
#define SLDLT_G_LDV 5    /* V element e of matrix b at V[vbase + e·ldv + b] */
#define SLDLT_G_LEV 6    /* offsets in sc of the sections: */
#define SLDLT_G_TASK 7
#define SLDLT_G_INS 8
#define SLDLT_G_AMAP 9
#define SLDLT_G_STASK 10
#define SLDLT_G_FROW 11
#define SLDLT_G_BIDX 12
#define SLDLT_G_LP 13
#define SLDLT_G_LI 14
#define SLDLT_G_APTR 15
#define SLDLT_G_VBASE 16 /* V's base (two ints: low, high) */
#define SLDLT_G_WBASE 18 /* baseline kernel workspace (two ints): reals n, ints SLDLT_IW·n per
                          * matrix */
#define SLDLT_G_LDW 20
#define SLDLT_G_NNZA 21
#define SLDLT_G_LORD 22  /* level order of the tasks */
#define SLDLT_G_STEPS 23 /* the launch steps (SLDLT_SP_*) */

/* column task j of the factorization (column j of L, elimination order) */
#define SLDLT_TASK 8
#define SLDLT_T_J 0
#define SLDLT_T_INS0 1 /* its instructions */
#define SLDLT_T_INS1 2
#define SLDLT_T_L0 3   /* its entries of L in V */
#define SLDLT_T_L1 4
#define SLDLT_T_A0 5   /* its entries of A in amap */
#define SLDLT_T_A1 6
#define SLDLT_T_COST 7

/* instruction {len, src, dst, k} (k >= 0 starts a column update cmod(j, k)):
 *   if k >= 0:  l = V[src − 1] (= L(j,k)),  t = l·D[k],  D[j] −= l·t
 *   V[dst + r] −= V[src + r]·t,  r = 0 .. len−1 */
#define SLDLT_INS 4
#define SLDLT_I_LEN 0
#define SLDLT_I_SRC 1
#define SLDLT_I_DST 2
#define SLDLT_I_K 3

/* amap: per entry of A (CSC order within a column task's range) its index in A and its
 * position in V */
#define SLDLT_AM 2
#define SLDLT_AM_A 0
#define SLDLT_AM_V 1

/* solve task of node i: i, perm[i], its row of L in frow, its column of L in V / bidx */
#define SLDLT_STASK 8
#define SLDLT_S_I 0
#define SLDLT_S_PI 1
#define SLDLT_S_R0 2
#define SLDLT_S_R1 3
#define SLDLT_S_L0 4
#define SLDLT_S_L1 5

/* frow: row i of L, per entry its position in V and perm[its column] */
#define SLDLT_FR 2
#define SLDLT_FR_V 0
#define SLDLT_FR_X 1

/* the launch steps of a group (devices that cut a work-item's loops short split the work,
 * gala_loop_limit): {nfac, nsolve, fac[0 .. nfac], nsolve × {f0, f1, b0, b1}}; factor launch
 * s does tasks fac[s] .. fac[s+1]−1; solve launch s the forward tasks f0 .. f1−1, then the
 * backward tasks b0−1 down to b1. One launch each without a limit: {1, 1, 0, n, 0, n, n, 0} */
#define SLDLT_SP_NFAC 0
#define SLDLT_SP_NSOLVE 1
#define SLDLT_SP_FAC 2
#define SLDLT_SP_SOLVE0 3 /* solve launch s at SLDLT_SP_SOLVE0 + nfac + SLDLT_SP_SW·s */
#define SLDLT_SP_SW 4
#define SLDLT_SP_F0 0
#define SLDLT_SP_F1 1
#define SLDLT_SP_B0 2
#define SLDLT_SP_B1 3

/* the baseline kernel's int workspace: head, link, first per element */
#define SLDLT_IW 3

/* sldlt_factor: launch `step` of every group's factorization (flat schedule) */
#define SLDLT_ARGS_factor(F, X) \
    F(I, int, ngroups) X(B, const int, gd) X(B, const int, sc) X(B, const REAL, x)          \
    X(L, gidx, x_off) X(L, gidx, x_ms) X(L, gidx, x_es) X(B, REAL, V) X(B, int, st)         \
    X(I, int, step)

/* sldlt_factor_cols: the baseline (left-looking by columns with linked lists) */
#define SLDLT_ARGS_factor_cols(F, X) \
    F(I, int, ngroups) X(B, const int, gd) X(B, const int, sc) X(B, const REAL, x)          \
    X(L, gidx, x_off) X(L, gidx, x_ms) X(L, gidx, x_es) X(B, REAL, V) X(B, REAL, W)         \
    X(B, int, IW) X(B, int, st)

/* sldlt_solve: launch `step` of X = A⁻¹·B, in Xs (copy = 1: B copied into Xs first; not
 * named X, a list's parameter) */
#define SLDLT_ARGS_solve(F, X) \
    F(I, int, ngroups) X(B, const int, gd) X(B, const int, sc) X(B, const REAL, V)          \
    X(I, int, nrhs) X(I, int, copy) X(B, const REAL, B) X(L, gidx, b_off) X(L, gidx, b_ms)  \
    X(L, gidx, b_rs) X(L, gidx, b_es) X(B, REAL, Xs) X(L, gidx, x_off) X(L, gidx, x_ms)      \
    X(L, gidx, x_rs) X(L, gidx, x_es) X(I, int, step)

#endif
