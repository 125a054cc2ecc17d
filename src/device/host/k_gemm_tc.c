/* Host version of cl/gemm_tc.cl (same name, same arguments): the product with loops. */
#ifndef REAL
#include "host_kernels.h"

#define REAL float
#define SUF(x) x##_f
#include "k_gemm_tc.c"
#undef REAL
#undef SUF
#define REAL double
#define SUF(x) x##_d
#include "k_gemm_tc.c"
#undef REAL
#undef SUF

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_gemm_tc[] = {
    K(gemm_tc, "iiirr" "blll" "blll" "bli" "ii"),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

/* C(i, j) = alpha·Σ_p X(i, p)·Y(j, p) + beta·C(i, j), only i >= j (tri 1) or i <= j (tri 2);
 * beta = 0 does not read C. The sum runs in double for both element types. */
static gala_status SUF(gemm_tc)(const gala_host_launch *L)
{
    const int m = HINT(0), n = HINT(1), k = HINT(2), ldc = HINT(15), tri = HINT(17);
    const REAL alpha = HREAL(3), beta = HREAL(4);
    const REAL *A = HBUF(REAL, 5), *B = HBUF(REAL, 9);
    REAL *C = HBUF(REAL, 13);
    const ptrdiff_t xo = HLONG(6), xi = HLONG(7), xp = HLONG(8);
    const ptrdiff_t yo = HLONG(10), yi = HLONG(11), yp = HLONG(12), co = HLONG(14);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            if ((tri == 1 && i < j) || (tri == 2 && i > j)) continue;
            double s = 0;
            for (int p = 0; p < k; ++p)
                s += (double)A[xo + i * xi + p * xp] * (double)B[yo + j * yi + p * yp];
            REAL *c = C + co + i + (ptrdiff_t)j * ldc;
            *c = beta == 0 ? alpha * (REAL)s : alpha * (REAL)s + beta * *c;
        }
    return GALA_OK;
}

#endif
