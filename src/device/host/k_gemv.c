/* Host versions of cl/gemv.cl (same names, same arguments: cl/gemv_abi.h). */
#ifndef REAL
#include "host_kernels.h"
#include "../../../cl/gemv_abi.h"

#define HOST_TEMPLATE "k_gemv.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_gemv[] = {
    K(gemv_n, GALA_HOST_SIG(GEMV_ARGS_gemv_n)),
    K(gemv_t, GALA_HOST_SIG(GEMV_ARGS_gemv_t)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

/* One matrix of the batch per item (host_kernels.h): the public function refuses a y that
 * overlaps A, x or another item's y (src/blas/gemv.c), so the items write disjoint
 * elements; each item computes as on one thread, its sums in the same order. */

/* Item b of gemv_n (trans 0) or gemv_t (trans 1): y_b = alpha·op(A_b)·x_b + beta·y_b, each
 * entry of y_b one sum along a row of op(A_b), in order (beta 0: y_b not read). The two
 * argument lists (cl/gemv_abi.h) differ only before alpha (gemv_n: row_groups; gemv_t: S,
 * col_groups), so gemv_t's arguments from alpha on are gemv_n's one later. trans is a
 * constant at both calls: each kernel gets the loop of its own strides (gemv_t's inner loop
 * runs down a column of A, contiguous). */
static inline void SUF(gemv_item)(const gala_host_launch *L, long b, const int trans)
{
    enum { ALPHA = 3, A = 4, AO = 5, LDA = 6, AS = 7, X = 8, XO = 9, XS = 10, BETA = 11, Y = 12,
           YO = 13, YS = 14 }; /* gemv_n's */
    const int t = trans != 0;
    const ptrdiff_t m = HINT(0), n = HINT(1), lda = HINT(LDA + t);
    const REAL alpha = HREAL(ALPHA + t), beta = HREAL(BETA + t);
    const REAL *Ab = HBUF(REAL, A + t) + HLONG(AO + t) + b * HLONG(AS + t);
    const REAL *xb = HBUF(REAL, X + t) + HLONG(XO + t) + b * HLONG(XS + t);
    REAL *yb = HBUF(REAL, Y + t) + HLONG(YO + t) + b * HLONG(YS + t);
    const ptrdiff_t ny = t ? n : m, nx = t ? m : n;     /* op(A_b): ny × nx */
    const ptrdiff_t sr = t ? lda : 1, sq = t ? 1 : lda; /* op(A_b)(r, q) at Ab[r·sr + q·sq] */
    for (ptrdiff_t r = 0; r < ny; ++r) {
        REAL acc = 0;
        for (ptrdiff_t q = 0; q < nx; ++q) acc += Ab[r * sr + q * sq] * xb[q];
        yb[r] = beta == 0 ? alpha * acc : alpha * acc + beta * yb[r];
    }
}

static void SUF(gemv_n_one)(const gala_host_launch *L, const void *arg, long b, void *wk,
                            int *hit)
{
    (void)arg, (void)wk, (void)hit;
    SUF(gemv_item)(L, b, 0);
}

static void SUF(gemv_t_one)(const gala_host_launch *L, const void *arg, long b, void *wk,
                            int *hit)
{
    (void)arg, (void)wk, (void)hit;
    SUF(gemv_item)(L, b, 1);
}

/* The batch count is not an argument: it is the launch's group count divided by the
 * groups per item (gemv_n's row_groups, gemv_t's col_groups). */
static gala_status SUF(gemv_items)(const gala_host_launch *L, const char *name, ptrdiff_t groups,
                                   gala_host_item item)
{
    const ptrdiff_t m = HINT(0), n = HINT(1);
    const ptrdiff_t batch = (ptrdiff_t)(L->dims->global[0] / L->dims->local[0]) / groups;
    return gala_host_items(L, name, batch, (double)batch * m * n, item, NULL, 0, NULL);
}

static gala_status SUF(gemv_n)(const gala_host_launch *L)
{
    return SUF(gemv_items)(L, "gemv_n", HINT(2), SUF(gemv_n_one));
}

static gala_status SUF(gemv_t)(const gala_host_launch *L)
{
    return SUF(gemv_items)(L, "gemv_t", HINT(3), SUF(gemv_t_one));
}

#endif
