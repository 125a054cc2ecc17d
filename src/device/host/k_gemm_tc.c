/* Host version of cl/gemm_tc.cl (same name, same arguments: cl/gemm_tc_abi.h): the product
 * with loops. */
#ifndef REAL
#include "host_kernels.h"
#include "../../../cl/gemm_tc_abi.h"

#define HOST_TEMPLATE "k_gemm_tc.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_gemm_tc[] = {
    K(gemm_tc, GALA_HOST_SIG(GEMM_TC_ARGS_gemm_tc)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

/* For each matrix s of the grid (groups / tiles of them): C(i, j) = alpha·Σ_p X(i, p)·Y(j, p)
 * + beta·C(i, j), only i >= j (GEMM_TC_LOWER) or i <= j (GEMM_TC_UPPER); beta = 0 does not
 * read C; matrices with info > 0 left alone under skipdead. The sum runs in double for both
 * element types. */
static gala_status SUF(gemm_tc)(const gala_host_launch *L)
{
    const int m = HINT(0), n = HINT(1), k = HINT(2), tiles = HINT(21), tri = HINT(22);
    const int skipdead = HINT(25);
    const REAL alpha = HREAL(3), beta = HREAL(4);
    const REAL *A = HBUF(REAL, 5), *B = HBUF(REAL, 10);
    REAL *C = HBUF(REAL, 15);
    const int *info = HBUF(int, 23);
    const ptrdiff_t xi = HLONG(7), xp = HLONG(8), xs = HLONG(9);
    const ptrdiff_t yi = HLONG(12), yp = HLONG(13), ys = HLONG(14);
    const ptrdiff_t ci = HLONG(17), cj = HLONG(18), cs = HLONG(19), io = HLONG(24);
    const ptrdiff_t count = (ptrdiff_t)(L->dims->global[0] / L->dims->local[0]) / tiles;
    for (ptrdiff_t mat = 0; mat < count; ++mat) {
        if (skipdead && info[io + mat] > 0) continue;
        const ptrdiff_t xo = HLONG(6) + mat * xs, yo = HLONG(11) + mat * ys;
        const ptrdiff_t co = HLONG(16) + mat * cs;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) {
                if ((tri == GEMM_TC_LOWER && i < j) || (tri == GEMM_TC_UPPER && i > j)) continue;
                double s = 0;
                for (int p = 0; p < k; ++p)
                    s += (double)A[xo + i * xi + p * xp] * (double)B[yo + j * yi + p * yp];
                REAL *c = C + co + i * ci + j * cj;
                *c = beta == 0 ? alpha * (REAL)s : alpha * (REAL)s + beta * *c;
            }
    }
    return GALA_OK;
}

#endif
