/*
 * What the dense factorizations' kernel families share with each other and with their
 * drivers (src/la), written once in the subset of C that C11 and OpenCL C have in common
 * (issue 38; cl/qp_abi.h says how a family's contract is written). Included by the
 * families' own headers (cl/potrf_abi.h, potrs_abi.h, potri_abi.h, lagemm_abi.h,
 * trtri_abi.h, ldlt_abi.h, sldlt_abi.h), so by their kernels, host kernels and drivers.
 *
 *   descriptors  LA_D_*: a matrix of a variable batch, LA_DSZ ints, uploaded once per call
 *                (la_desc_build); potrf, potrs, potri and lagemm read descriptor s at
 *                desc[(dofs + s)·LA_DSZ] when their argument vb is 1
 *   LA_BIG       "no column": a panel's column limit without a limit, and the starting
 *                value of potrf_scan's per-matrix minimum (no non-finite value found)
 *   status       LA_ST_*: the LDLᵀ families' per-matrix status, LA_NST ints per matrix
 *                (ldlt, sldlt): info, then the counts of positive and negative pivots
 */
#ifndef GALA_LA_ABI_H
#define GALA_LA_ABI_H

#define LA_D_N 0    /* order n_b */
#define LA_D_LDA 1  /* leading dimension of A_b */
#define LA_D_AOFF 2 /* element offset of A_b: low 32 bits, then high 32 bits */
#define LA_D_IDX 4  /* index of the matrix in the caller's batch (its info slot) */
#define LA_D_NRHS 5 /* right-hand sides (potrs) */
#define LA_D_LDB 6  /* leading dimension of B_b */
#define LA_D_BOFF 7 /* element offset of B_b (two ints) */
#define LA_D_PAD 9  /* unused (0) */
#define LA_DSZ 10

#define LA_BIG 0x7fffffff

/* st[LA_NST·q + ...] of matrix q: info (0; k > 0: a zero pivot at column k; −k: a NaN or
 * Inf at column k), then the positive and the negative pivots (the inertia) */
#define LA_ST_INFO 0
#define LA_ST_POS 1
#define LA_ST_NEG 2
#define LA_NST 3

#endif
