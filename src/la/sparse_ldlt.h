/*
 * Sparse LDLᵀ internals shared by the symbolic analysis (sparse_ldlt_symbolic.c) and the
 * numeric driver (sparse_ldlt.c). The layout of the schedule image is the contract with the
 * kernels of cl/sldlt.cl and their host twins, written once in cl/sldlt_abi.h; docs/ldlt.md
 * has the figures.
 */
#ifndef GALA_LA_SPARSE_LDLT_H
#define GALA_LA_SPARSE_LDLT_H

#include "../core/kernel.h"
#include "gala/ldlt.h"
/* the layout of the schedule image (SLDLT_*): the contract with the kernels */
#include "../../cl/sldlt_abi.h"

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

/** SuiteSparse AMD's fill-reducing order of the n×n pattern (p, i: CSC of either triangle or
 *  both; jumbled or duplicated entries accepted): perm[k] = the index eliminated k-th.
 *  Returns 0; -1: no memory; -2: AMD rejected the pattern; -3: gala was built without AMD.
 *  The one place gala calls AMD (sparse_ldlt_symbolic.c). */
GALA_INTERNAL int gala_amd_order(int n, const int *p, const int *i, int *perm);

#endif
