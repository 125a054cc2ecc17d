/* Host versions of cl/vec.cl (same names, same arguments: cl/vec_abi.h). */
#ifndef REAL
#include <math.h>

#include "host_kernels.h"
#include "../../../cl/vec_abi.h"

#define HOST_TEMPLATE "k_vec.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_vec[] = {
    K(axpby, GALA_HOST_SIG(VEC_ARGS_axpby)),
    K(ew_mul, GALA_HOST_SIG(VEC_ARGS_ew_mul)),
    K(clamp_box, GALA_HOST_SIG(VEC_ARGS_clamp_box)),
    K(norm_inf, GALA_HOST_SIG(VEC_ARGS_norm_inf)),
    K(dot_prod, GALA_HOST_SIG(VEC_ARGS_dot_prod)),
    K(loop_probe, GALA_HOST_SIG(VEC_ARGS_loop_probe)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

/* One vector of the batch per item (host_kernels.h): the public functions refuse outputs
 * that overlap each other or an input they do not alias exactly (src/blas/blas_common.c),
 * so the items write disjoint elements; each item computes as on one thread, reductions in
 * the same order. */

/* loop_probe (gala_loop_limit's probe of OpenCL devices): the host has no loop limit; the
 * same loop, for the contract that every kernel has a host version */
static gala_status SUF(loop_probe)(const gala_host_launch *L)
{
    const int n = (int)HINT(0);
    int *out = HBUF(int, 1), c = 0;
    for (int i = 0; i < n; ++i) {
        c += 1 + out[1 + (i & 1)];
        out[3] = c;
    }
    out[0] = c;
    return GALA_OK;
}

static void SUF(axpby_one)(const gala_host_launch *L, const void *arg, long b, void *wk, int *hit)
{
    (void)arg, (void)wk, (void)hit;
    const ptrdiff_t n = HINT(0);
    const REAL alpha = HREAL(2), beta = HREAL(6);
    const REAL *x = HBUF(REAL, 3) + HLONG(4) + b * HLONG(5);
    REAL *y = HBUF(REAL, 7) + HLONG(8) + b * HLONG(9);
    for (ptrdiff_t i = 0; i < n; ++i) {
        REAL *yp = y + i;
        *yp = beta == 0 ? alpha * x[i] : alpha * x[i] + beta * *yp;
    }
}

static gala_status SUF(axpby)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = n ? HLONG(1) / n : 0;
    return gala_host_items(L, "axpby", batch, (double)batch * n, SUF(axpby_one), NULL, 0, NULL);
}

static void SUF(ew_mul_one)(const gala_host_launch *L, const void *arg, long b, void *wk, int *hit)
{
    (void)arg, (void)wk, (void)hit;
    const ptrdiff_t n = HINT(0);
    const REAL *x = HBUF(REAL, 2) + HLONG(3) + b * HLONG(4);
    const REAL *y = HBUF(REAL, 5) + HLONG(6) + b * HLONG(7);
    REAL *z = HBUF(REAL, 8) + HLONG(9) + b * HLONG(10);
    for (ptrdiff_t i = 0; i < n; ++i) z[i] = x[i] * y[i];
}

static gala_status SUF(ew_mul)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = n ? HLONG(1) / n : 0;
    return gala_host_items(L, "ew_mul", batch, (double)batch * n, SUF(ew_mul_one), NULL, 0, NULL);
}

static void SUF(clamp_one)(const gala_host_launch *L, const void *arg, long b, void *wk, int *hit)
{
    (void)arg, (void)wk, (void)hit;
    const ptrdiff_t n = HINT(0);
    const REAL *x = HBUF(REAL, 2) + HLONG(3) + b * HLONG(4);
    const REAL *l = HBUF(REAL, 5) + HLONG(6) + b * HLONG(7);
    const REAL *u = HBUF(REAL, 8) + HLONG(9) + b * HLONG(10);
    REAL *y = HBUF(REAL, 11) + HLONG(12) + b * HLONG(13);
    for (ptrdiff_t i = 0; i < n; ++i) {
        REAL v = x[i], lv = l[i], uv = u[i];
        v = v < lv ? lv : v;
        y[i] = v > uv ? uv : v;
    }
}

static gala_status SUF(clamp_box)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = n ? HLONG(1) / n : 0;
    return gala_host_items(L, "clamp_box", batch, (double)batch * n, SUF(clamp_one), NULL, 0,
                           NULL);
}

static void SUF(norm_one)(const gala_host_launch *L, const void *arg, long b, void *wk, int *hit)
{
    (void)arg, (void)wk, (void)hit;
    const ptrdiff_t n = HINT(0);
    const REAL *x = HBUF(REAL, 3) + HLONG(4) + b * HLONG(5);
    REAL *res = HBUF(REAL, 6) + HLONG(7);
    REAL m = 0;
    for (ptrdiff_t i = 0; i < n; ++i) {
        REAL a = (REAL)fabs((double)x[i]);
        if (a != a || m != m) m = m + a; /* NaN propagates */
        else if (a > m) m = a;
    }
    res[b] = m;
}

static gala_status SUF(norm_inf)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = HINT(1);
    return gala_host_items(L, "norm_inf", batch, (double)batch * n, SUF(norm_one), NULL, 0, NULL);
}

static void SUF(dot_one)(const gala_host_launch *L, const void *arg, long b, void *wk, int *hit)
{
    (void)arg, (void)wk, (void)hit;
    const ptrdiff_t n = HINT(0);
    const REAL *x = HBUF(REAL, 3) + HLONG(4) + b * HLONG(5);
    const REAL *y = HBUF(REAL, 6) + HLONG(7) + b * HLONG(8);
    REAL *res = HBUF(REAL, 9) + HLONG(10);
    REAL s = 0;
    for (ptrdiff_t i = 0; i < n; ++i) s += x[i] * y[i];
    res[b] = s;
}

static gala_status SUF(dot_prod)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = HINT(1);
    return gala_host_items(L, "dot_prod", batch, (double)batch * n, SUF(dot_one), NULL, 0, NULL);
}

#endif
