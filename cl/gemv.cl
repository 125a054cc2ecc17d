/*
 * gemv: batched dense matrix-vector products y_b = alpha·op(A_b)·x_b + beta·y_b,
 * A_b column-major m×n at A[ao + b·as] with leading dimension lda.
 *
 * gemv_n (op(A) = A): one work-item per row i of one item; the work-groups of all items
 * are laid out along dimension 0 (group g: item g / row_groups, row tile g % row_groups).
 * Neighbouring work-items read neighbouring rows of each column: coalesced.
 *
 *         A_b (m×n)          x_b
 *     i → [ a a a a a ]      [x]        y_b[i] = Σ_j A_b(i,j)·x_b[j]
 *         [ a a a a a ]  ·   [x]
 *
 * gemv_t (op(A) = Aᵀ): one segment of S lanes per output column j (the reduction scheme of
 * vec.cl): the lanes read column j top to bottom (coalesced), then reduce in local memory.
 * WG/S columns share a work-group.
 *
 * gala-defines: WG=256
 * -D parameters: WG (work-group size of gemv_t, a power of two).
 */

/* the argument lists shared with the host (cl/gemv_abi.h) */
#include "gemv_abi.h"

KERNEL void gemv_n(GALA_PARAMS(GEMV_ARGS_gemv_n))
{
    const gidx b = GRP(0) / row_groups;
    const gidx i = (GRP(0) - b * row_groups) * LSZ(0) + LID(0);
    if (i >= m) return;
    GLOBAL const REAL *Ab = A + ao + b * as;
    GLOBAL const REAL *xb = x + xo + b * xs;
    REAL acc = 0;
    for (int j = 0; j < n; ++j) acc += ELEM(Ab, i, j, lda) * xb[j];
    GLOBAL REAL *yp = y + yo + b * ys + i;
    *yp = (beta == (REAL)0) ? alpha * acc : alpha * acc + beta * *yp;
}

KERNEL void gemv_t(GALA_PARAMS(GEMV_ARGS_gemv_t))
{
    LOCAL_ARRAY REAL part[WG];
    const int lid = (int)LID(0), lane = lid & (S - 1);
    const gidx b = GRP(0) / col_groups;
    const gidx j = (GRP(0) - b * col_groups) * (WG / S) + lid / S;
    REAL acc = 0;
    if (j < n) {
        GLOBAL const REAL *col = A + ao + b * as + j * (gidx)lda;
        GLOBAL const REAL *xb = x + xo + b * xs;
        for (int i = lane; i < m; i += S) acc += col[i] * xb[i];
    }
    part[lid] = acc;
    for (int s = S >> 1; s > 0; s >>= 1) {
        LOCAL_BARRIER();
        if (lane < s) part[lid] += part[lid + s];
    }
    if (lane == 0 && j < n) {
        GLOBAL REAL *yp = y + yo + b * ys + j;
        *yp = (beta == (REAL)0) ? alpha * part[lid] : alpha * part[lid] + beta * *yp;
    }
}
