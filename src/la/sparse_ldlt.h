/*
 * Sparse LDLᵀ internals shared by the symbolic analysis (sparse_ldlt_symbolic.c) and the
 * numeric driver (sparse_ldlt.c). The layout of the schedule image is the contract with the
 * kernels of cl/sldlt.cl and their host twins (src/device/host/k_sldlt.c); docs/ldlt.md has
 * the figures.
 */
#ifndef GALA_LA_SPARSE_LDLT_H
#define GALA_LA_SPARSE_LDLT_H

#include "../core/kernel.h"
#include "gala/ldlt.h"

/* Ints per column task / instruction / solve task / group descriptor. */
#define SLDLT_TASK 8
#define SLDLT_INS 4
#define SLDLT_STASK 8
#define SLDLT_GDESC 32

/* Fields of a column task (factor): task j = column j of L (elimination order). */
enum { T_J = 0, T_INS0, T_INS1, T_L0, T_L1, T_A0, T_A1, T_COST };
/* Fields of an instruction: len, src, dst, k (k >= 0 starts a column update cmod(j, k)):
 *   if k >= 0:  l = V[src − 1] (= L(j,k)),  t = l·D[k],  D[j] −= l·t
 *   V[dst + r] −= V[src + r]·t,  r = 0 .. len−1                                    */
enum { I_LEN = 0, I_SRC, I_DST, I_K };
/* Fields of a solve task (task i = node i): node i, perm[i], row range of L(i,:) in frow,
 * column range of L(:,i) in V/bidx. */
enum { S_I = 0, S_PI, S_R0, S_R1, S_L0, S_L1 };

/* Group descriptor (ints), one per pattern of a factor object. Offsets into the schedule
 * buffer are absolute (ints); V and workspace bases are 64-bit (low, high). */
enum {
    G_BATCH = 0, /* matrices in the group */
    G_Q0,        /* global index of its first matrix */
    G_N,         /* order */
    G_NNZL,      /* entries of L below the diagonal; D[j] is V[NNZL + j] */
    G_NLEV,      /* levels */
    G_LDV,       /* V element e of matrix b at V[vbase + e·ldv + b] */
    G_LEV, G_TASK, G_INS, G_AMAP, G_STASK, G_FROW, G_BIDX, G_LP, G_LI, G_APTR,
    G_VBASE_LO, G_VBASE_HI,
    G_WBASE_LO, G_WBASE_HI, /* baseline kernel workspace (ints 3n, reals n per matrix) */
    G_LDW,
    G_NNZA,
    G_LORD, /* level order of the tasks: lord[lev[l]..lev[l+1]) are the tasks of level l */
    G_STEPS /* the launches the work is split into (devices that cut long loops short):
             * {nfac, nsolve, fac[0..nfac], then nsolve × {f0, f1, b0, b1}}: factor launch s
             * does tasks fac[s] .. fac[s+1]−1; solve launch s the forward tasks f0 .. f1−1,
             * then the backward tasks b0−1 down to b1. One launch each without a limit:
             * {1, 1, 0, n, 0, n, n, 0} */
};

struct gala_sparse_ldlt_symbolic {
    int n, nnz_a, nnz_l, nlev, max_width, expected_pos;
    long long nins;
    double flops;
    int *perm; /* perm[k] = original index of pivot k */
    /* the schedule image: all int arrays the kernels read, one allocation */
    int *img;
    size_t img_len;
    size_t o_lev, o_task, o_ins, o_amap, o_stask, o_frow, o_bidx, o_lp, o_li, o_aptr, o_lord;
};

#endif
