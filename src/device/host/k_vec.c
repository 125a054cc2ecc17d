/* Host versions of cl/vec.cl and cl/gemv.cl (same names, same arguments). */
#ifndef REAL
#include <math.h>

#include "host_kernels.h"

#define HOST_TEMPLATE "k_vec.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_vec[] = {
    K(axpby, "ilrbllrbll"),
    K(ew_mul, "ilbllbllbll"),
    K(clamp_box, "ilbllbllbllbll"),
    K(norm_inf, "iiibllbl"),
    K(dot_prod, "iiibllbllbl"),
    {NULL, NULL, NULL, NULL},
};
const gala_host_kernel gala_host_gemv[] = {
    K(gemv_n, "iiirblilbllrbll"),
    K(gemv_t, "iiiirblilbllrbll"),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

static gala_status SUF(axpby)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = n ? HLONG(1) / n : 0;
    const REAL alpha = HREAL(2), beta = HREAL(6);
    const REAL *x = HBUF(REAL, 3) + HLONG(4);
    REAL *y = HBUF(REAL, 7) + HLONG(8);
    const ptrdiff_t xs = HLONG(5), ys = HLONG(9);
    for (ptrdiff_t b = 0; b < batch; ++b)
        for (ptrdiff_t i = 0; i < n; ++i) {
            REAL *yp = y + b * ys + i;
            *yp = beta == 0 ? alpha * x[b * xs + i] : alpha * x[b * xs + i] + beta * *yp;
        }
    return GALA_OK;
}

static gala_status SUF(ew_mul)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = n ? HLONG(1) / n : 0;
    const REAL *x = HBUF(REAL, 2) + HLONG(3), *y = HBUF(REAL, 5) + HLONG(6);
    REAL *z = HBUF(REAL, 8) + HLONG(9);
    const ptrdiff_t xs = HLONG(4), ys = HLONG(7), zs = HLONG(10);
    for (ptrdiff_t b = 0; b < batch; ++b)
        for (ptrdiff_t i = 0; i < n; ++i) z[b * zs + i] = x[b * xs + i] * y[b * ys + i];
    return GALA_OK;
}

static gala_status SUF(clamp_box)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = n ? HLONG(1) / n : 0;
    const REAL *x = HBUF(REAL, 2) + HLONG(3), *l = HBUF(REAL, 5) + HLONG(6);
    const REAL *u = HBUF(REAL, 8) + HLONG(9);
    REAL *y = HBUF(REAL, 11) + HLONG(12);
    const ptrdiff_t xs = HLONG(4), ls = HLONG(7), us = HLONG(10), ys = HLONG(13);
    for (ptrdiff_t b = 0; b < batch; ++b)
        for (ptrdiff_t i = 0; i < n; ++i) {
            REAL v = x[b * xs + i], lv = l[b * ls + i], uv = u[b * us + i];
            v = v < lv ? lv : v;
            y[b * ys + i] = v > uv ? uv : v;
        }
    return GALA_OK;
}

static gala_status SUF(norm_inf)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = HINT(1);
    const REAL *x = HBUF(REAL, 3) + HLONG(4);
    const ptrdiff_t xs = HLONG(5);
    REAL *res = HBUF(REAL, 6) + HLONG(7);
    for (ptrdiff_t b = 0; b < batch; ++b) {
        REAL m = 0;
        for (ptrdiff_t i = 0; i < n; ++i) {
            REAL a = (REAL)fabs((double)x[b * xs + i]);
            if (a != a || m != m) m = m + a; /* NaN propagates */
            else if (a > m) m = a;
        }
        res[b] = m;
    }
    return GALA_OK;
}

static gala_status SUF(dot_prod)(const gala_host_launch *L)
{
    const ptrdiff_t n = HINT(0), batch = HINT(1);
    const REAL *x = HBUF(REAL, 3) + HLONG(4), *y = HBUF(REAL, 6) + HLONG(7);
    const ptrdiff_t xs = HLONG(5), ys = HLONG(8);
    REAL *res = HBUF(REAL, 9) + HLONG(10);
    for (ptrdiff_t b = 0; b < batch; ++b) {
        REAL s = 0;
        for (ptrdiff_t i = 0; i < n; ++i) s += x[b * xs + i] * y[b * ys + i];
        res[b] = s;
    }
    return GALA_OK;
}

/* gemv_n / gemv_t: the batch count is not an argument; it is the launch's group count
 * divided by the groups per item. */
static gala_status SUF(gemv_n)(const gala_host_launch *L)
{
    const ptrdiff_t m = HINT(0), n = HINT(1), rg = HINT(2);
    const ptrdiff_t batch = (ptrdiff_t)(L->dims->global[0] / L->dims->local[0]) / rg;
    const REAL alpha = HREAL(3), beta = HREAL(11);
    const REAL *A = HBUF(REAL, 4) + HLONG(5), *x = HBUF(REAL, 8) + HLONG(9);
    const ptrdiff_t lda = HINT(6), as = HLONG(7), xs = HLONG(10), ys = HLONG(14);
    REAL *y = HBUF(REAL, 12) + HLONG(13);
    for (ptrdiff_t b = 0; b < batch; ++b) {
        const REAL *Ab = A + b * as, *xb = x + b * xs;
        REAL *yb = y + b * ys;
        for (ptrdiff_t i = 0; i < m; ++i) {
            REAL acc = 0;
            for (ptrdiff_t j = 0; j < n; ++j) acc += Ab[j * lda + i] * xb[j];
            yb[i] = beta == 0 ? alpha * acc : alpha * acc + beta * yb[i];
        }
    }
    return GALA_OK;
}

static gala_status SUF(gemv_t)(const gala_host_launch *L)
{
    const ptrdiff_t m = HINT(0), n = HINT(1), cg = HINT(3);
    const ptrdiff_t batch = (ptrdiff_t)(L->dims->global[0] / L->dims->local[0]) / cg;
    const REAL alpha = HREAL(4), beta = HREAL(12);
    const REAL *A = HBUF(REAL, 5) + HLONG(6), *x = HBUF(REAL, 9) + HLONG(10);
    const ptrdiff_t lda = HINT(7), as = HLONG(8), xs = HLONG(11), ys = HLONG(15);
    REAL *y = HBUF(REAL, 13) + HLONG(14);
    for (ptrdiff_t b = 0; b < batch; ++b) {
        const REAL *Ab = A + b * as, *xb = x + b * xs;
        REAL *yb = y + b * ys;
        for (ptrdiff_t j = 0; j < n; ++j) {
            REAL acc = 0;
            for (ptrdiff_t i = 0; i < m; ++i) acc += Ab[j * lda + i] * xb[i];
            yb[j] = beta == 0 ? alpha * acc : alpha * acc + beta * yb[j];
        }
    }
    return GALA_OK;
}

#endif
