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

/* gemv_n / gemv_t: the batch count is not an argument; it is the launch's group count
 * divided by the groups per item. */
static void SUF(gemv_n_one)(const gala_host_launch *L, const void *arg, long b, void *wk,
                            int *hit)
{
    (void)arg, (void)wk, (void)hit;
    const ptrdiff_t m = HINT(0), n = HINT(1);
    const REAL alpha = HREAL(3), beta = HREAL(11);
    const ptrdiff_t lda = HINT(6);
    const REAL *Ab = HBUF(REAL, 4) + HLONG(5) + b * HLONG(7);
    const REAL *xb = HBUF(REAL, 8) + HLONG(9) + b * HLONG(10);
    REAL *yb = HBUF(REAL, 12) + HLONG(13) + b * HLONG(14);
    for (ptrdiff_t i = 0; i < m; ++i) {
        REAL acc = 0;
        for (ptrdiff_t j = 0; j < n; ++j) acc += Ab[j * lda + i] * xb[j];
        yb[i] = beta == 0 ? alpha * acc : alpha * acc + beta * yb[i];
    }
}

static gala_status SUF(gemv_n)(const gala_host_launch *L)
{
    const ptrdiff_t m = HINT(0), n = HINT(1), rg = HINT(2);
    const ptrdiff_t batch = (ptrdiff_t)(L->dims->global[0] / L->dims->local[0]) / rg;
    return gala_host_items(L, "gemv_n", batch, (double)batch * m * n, SUF(gemv_n_one), NULL, 0,
                           NULL);
}

static void SUF(gemv_t_one)(const gala_host_launch *L, const void *arg, long b, void *wk,
                            int *hit)
{
    (void)arg, (void)wk, (void)hit;
    const ptrdiff_t m = HINT(0), n = HINT(1);
    const REAL alpha = HREAL(4), beta = HREAL(12);
    const ptrdiff_t lda = HINT(7);
    const REAL *Ab = HBUF(REAL, 5) + HLONG(6) + b * HLONG(8);
    const REAL *xb = HBUF(REAL, 9) + HLONG(10) + b * HLONG(11);
    REAL *yb = HBUF(REAL, 13) + HLONG(14) + b * HLONG(15);
    for (ptrdiff_t j = 0; j < n; ++j) {
        REAL acc = 0;
        for (ptrdiff_t i = 0; i < m; ++i) acc += Ab[j * lda + i] * xb[i];
        yb[j] = beta == 0 ? alpha * acc : alpha * acc + beta * yb[j];
    }
}

static gala_status SUF(gemv_t)(const gala_host_launch *L)
{
    const ptrdiff_t m = HINT(0), n = HINT(1), cg = HINT(3);
    const ptrdiff_t batch = (ptrdiff_t)(L->dims->global[0] / L->dims->local[0]) / cg;
    return gala_host_items(L, "gemv_t", batch, (double)batch * m * n, SUF(gemv_t_one), NULL, 0,
                           NULL);
}

#endif
