/* Host versions of cl/trtri.cl (same names, same arguments: cl/trtri_abi.h, same contracts;
 * see the comments there). Each launch runs all of its tasks with plain loops, in the
 * program's precision. */
#ifndef REAL
#include <math.h>
#include <stdlib.h>

#include "host_kernels.h"
#include "../../../cl/trtri_abi.h"

static int tr_min(int a, int b) { return a < b ? a : b; }

/* the kernels' bookkeeping, in C (DEVFN, GLOBAL, gidx: host_kernels.h) */
#include "../../../cl/trtri_rules.h"

#define HOST_TEMPLATE "k_trtri.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_trtri[] = {
    K(diag_inv, GALA_HOST_SIG(TRTRI_ARGS_diag_inv)),
    K(inv_lower_tri_multiply, GALA_HOST_SIG(TRTRI_ARGS_inv_lower_tri_multiply)),
    K(neg_rect_lower_tri_multiply, GALA_HOST_SIG(TRTRI_ARGS_neg_rect_lower_tri_multiply)),
    K(trtri_check, GALA_HOST_SIG(TRTRI_ARGS_trtri_check)),
    K(trtri_info, GALA_HOST_SIG(TRTRI_ARGS_trtri_info)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

static int SUF(tr_bad)(REAL v) { return !(v - v == (REAL)0); }

/* task t of diag_inv: its diagonal block inverted into B; with `fused` first its checks
 * (info into ib[M.id], *hit when the launch's flag is due) */
static void SUF(diag_inv_one)(const gala_host_launch *L, const void *arg, long t, void *wk,
                              int *hit)
{
    (void)arg;
    (void)wk;
    const int upper = HINT(0), unit = HINT(1), fused = HINT(2);
    int *ib = HBUF(int, 3);
    const ptrdiff_t meta_off = HLONG(5), task_off = HLONG(6);
    const int m0 = HINT(7), per = HINT(8), step = HINT(9), n = HINT(11);
    const REAL *A = HBUF(REAL, 12);
    REAL *B = HBUF(REAL, 16);
    const int NBv = (int)HDEF("NB", 0);
    REAL X[64 * 64];
    {
        const tr_task tk = tr_get_task(ib, task_off, m0, per, step, t);
        const tr_mat M = tr_get_mat(ib, meta_off, tk.m, n, HLONG(13), HINT(14), HLONG(15),
                                    HLONG(17), HINT(18), HLONG(19));
        const int nb = tr_min(NBv, M.n - tk.start);
        const ptrdiff_t ao = M.ao + (ptrdiff_t)tk.start * (1 + (ptrdiff_t)M.lda);
        const ptrdiff_t bo = M.bo + (ptrdiff_t)tk.start * (1 + (ptrdiff_t)M.ldb);
        if (fused) {
            /* first bad storage column: NaN/Inf wins over a zero diagonal */
            int nan_q = LA_BIG, zero_q = LA_BIG;
            for (int q = 0; q < nb; ++q) {
                const int p0 = upper ? 0 : q, p1 = upper ? q + 1 : nb;
                for (int p = p0; p < p1; ++p) {
                    if (p == q && unit) continue;
                    const REAL v = A[ao + p + (ptrdiff_t)q * M.lda];
                    if (SUF(tr_bad)(v)) nan_q = tr_min(nan_q, q);
                    else if (p == q && v == 0) zero_q = tr_min(zero_q, q);
                }
            }
            const int info = nan_q != LA_BIG ? -(nan_q + 1) : zero_q != LA_BIG ? zero_q + 1 : 0;
            ib[M.id] = info; /* the fused path has one task per matrix */
            if (info != 0) {
                *hit = 1;
                return;
            }
        } else if (ib[M.id] != 0) {
            return;
        }
        /* X = L⁻¹ column by column (right-looking forward substitution), X(i, j) at
         * X[j·nb + i], L(i, k) read through the logical mapping */
        for (int j = 0; j < nb; ++j) {
            REAL *x = X + (ptrdiff_t)j * nb;
            for (int i = 0; i < nb; ++i) x[i] = i == j;
            for (int k = j; k < nb; ++k) {
                const REAL d = unit ? (REAL)1 : A[tr_at(ao, M.lda, upper, k, k)];
                const REAL xk = x[k] * ((REAL)1 / d);
                x[k] = xk;
                for (int i = k + 1; i < nb; ++i) x[i] -= A[tr_at(ao, M.lda, upper, i, k)] * xk;
            }
        }
        for (int j = 0; j < nb; ++j)
            for (int i = unit ? j + 1 : j; i < nb; ++i)
                B[tr_at(bo, M.ldb, upper, i, j)] = X[(ptrdiff_t)j * nb + i];
    }
}

/* one task (diagonal block) per item; the flag written once after them */
static gala_status SUF(diag_inv)(const gala_host_launch *L)
{
    int *ib = HBUF(int, 3);
    const ptrdiff_t flag_idx = HLONG(4);
    const int ntask = HINT(10);
    const int NBv = (int)HDEF("NB", 0);
    if (NBv < 1 || NBv > 64)
        return gala_error(L->ctx, GALA_ERR_INTERNAL, "diag_inv: NB = %d is not in [1, 64]", NBv);
    int hit = 0;
    GALA_TRY(gala_host_items(L, "diag_inv", ntask, (double)ntask * NBv * NBv * NBv / 3,
                             SUF(diag_inv_one), NULL, 0, &hit));
    if (hit) ib[flag_idx] = 1;
    return GALA_OK;
}

/* C(i, k) of a diagonal block of B: masked above the diagonal, 1 on it when unit. */
static REAL SUF(tr_tri)(const REAL *B, ptrdiff_t off, int ld, int upper, int unit, int i, int k)
{
    if (k > i) return 0;
    if (k == i && unit) return 1;
    return B[tr_at(off, ld, upper, i, k)];
}

/* task t: T's block of the task (its own) from C2 (copied into the thread's dense lower
 * triangle wk, s × s, so that the inner loop runs down columns) and A3 */
static void SUF(ilt_one)(const gala_host_launch *L, const void *arg, long t, void *wk, int *hit)
{
    (void)arg;
    (void)hit;
    const int upper = HINT(0), unit = HINT(1);
    const int *ib = HBUF(int, 2);
    const ptrdiff_t meta_off = HLONG(3), task_off = HLONG(4);
    const int m0 = HINT(5), per = HINT(6), step = HINT(7), s = HINT(9);
    const int ldt = HINT(10), n = HINT(13);
    const REAL *A = HBUF(REAL, 14), *B = HBUF(REAL, 18);
    REAL *T = HBUF(REAL, 22);
    REAL *C = wk;
    {
        const tr_task tk = tr_get_task(ib, task_off, m0, per, step, t);
        const tr_mat M = tr_get_mat(ib, meta_off, tk.m, n, HLONG(15), HINT(16), HLONG(17),
                                    HLONG(19), HINT(20), HLONG(21));
        if (ib[M.id] != 0) return;
        const int s2 = tr_min(s, M.n - tk.start - s);
        if (s2 <= 0) return;
        const ptrdiff_t c2 = tr_at(M.bo, M.ldb, upper, tk.start + s, tk.start + s);
        const ptrdiff_t a3 = tr_at(M.ao, M.lda, upper, tk.start + s, tk.start);
        REAL *Tt = T + t * (ptrdiff_t)ldt * s;
        for (int k = 0; k < s2; ++k)
            for (int i = k; i < s2; ++i)
                C[(ptrdiff_t)k * s2 + i] = SUF(tr_tri)(B, c2, M.ldb, upper, unit, i, k);
        /* four columns of T at a time (s is a multiple of the block order, >= 8) */
        for (int j = 0; j < s; j += 4) {
            REAL *t0 = Tt + (ptrdiff_t)j * ldt, *t1 = t0 + ldt, *t2 = t1 + ldt, *t3 = t2 + ldt;
            for (int i = 0; i < s2; ++i) t0[i] = t1[i] = t2[i] = t3[i] = 0;
            for (int k = 0; k < s2; ++k) {
                const REAL a0 = A[tr_at(a3, M.lda, upper, k, j)];
                const REAL a1 = A[tr_at(a3, M.lda, upper, k, j + 1)];
                const REAL a2 = A[tr_at(a3, M.lda, upper, k, j + 2)];
                const REAL a3v = A[tr_at(a3, M.lda, upper, k, j + 3)];
                const REAL *ck = C + (ptrdiff_t)k * s2;
                for (int i = k; i < s2; ++i) {
                    const REAL cv = ck[i];
                    t0[i] += cv * a0;
                    t1[i] += cv * a1;
                    t2[i] += cv * a2;
                    t3[i] += cv * a3v;
                }
            }
        }
    }
}

static gala_status SUF(inv_lower_tri_multiply)(const gala_host_launch *L)
{
    const int ntask = HINT(8), s = HINT(9);
    return gala_host_items(L, "inv_lower_tri_multiply", ntask, (double)ntask * s * s * s / 2,
                           SUF(ilt_one), NULL, (size_t)s * (size_t)s * sizeof(REAL), NULL);
}

/* task t: its block B3 = −T·C1, four columns at a time through the thread's 4·s scratch */
static void SUF(nrlt_one)(const gala_host_launch *L, const void *arg, long t, void *wk, int *hit)
{
    (void)arg;
    (void)hit;
    const int upper = HINT(0), unit = HINT(1);
    const int *ib = HBUF(int, 2);
    const ptrdiff_t meta_off = HLONG(3), task_off = HLONG(4);
    const int m0 = HINT(5), per = HINT(6), step = HINT(7), s = HINT(9);
    const int ldt = HINT(10), n = HINT(13);
    REAL *B = HBUF(REAL, 14);
    const REAL *T = HBUF(REAL, 18);
    REAL *acc = wk;
    {
        const tr_task tk = tr_get_task(ib, task_off, m0, per, step, t);
        const tr_mat M = tr_get_mat(ib, meta_off, tk.m, n, 0, 1, 0, HLONG(15), HINT(16),
                                    HLONG(17));
        if (ib[M.id] != 0) return;
        const int s2 = tr_min(s, M.n - tk.start - s);
        if (s2 <= 0) return;
        const ptrdiff_t c1 = tr_at(M.bo, M.ldb, upper, tk.start, tk.start);
        const ptrdiff_t b3 = tr_at(M.bo, M.ldb, upper, tk.start + s, tk.start);
        const REAL *Tt = T + t * (ptrdiff_t)ldt * s;
        /* four columns of B3 at a time; C1(k, j..j+3) is zero above the diagonal */
        for (int j = 0; j < s; j += 4) {
            REAL *u0 = acc, *u1 = acc + s, *u2 = acc + 2 * s, *u3 = acc + 3 * s;
            for (int i = 0; i < s2; ++i) u0[i] = u1[i] = u2[i] = u3[i] = 0;
            for (int k = j; k < s; ++k) {
                const REAL c0 = SUF(tr_tri)(B, c1, M.ldb, upper, unit, k, j);
                const REAL c1v = SUF(tr_tri)(B, c1, M.ldb, upper, unit, k, j + 1);
                const REAL c2 = SUF(tr_tri)(B, c1, M.ldb, upper, unit, k, j + 2);
                const REAL c3 = SUF(tr_tri)(B, c1, M.ldb, upper, unit, k, j + 3);
                const REAL *tc = Tt + (ptrdiff_t)k * ldt;
                for (int i = 0; i < s2; ++i) {
                    const REAL tv = tc[i];
                    u0[i] += tv * c0;
                    u1[i] += tv * c1v;
                    u2[i] += tv * c2;
                    u3[i] += tv * c3;
                }
            }
            for (int jj = 0; jj < 4; ++jj)
                for (int i = 0; i < s2; ++i) B[tr_at(b3, M.ldb, upper, i, j + jj)] = -acc[jj * s + i];
        }
    }
}

static gala_status SUF(neg_rect_lower_tri_multiply)(const gala_host_launch *L)
{
    const int ntask = HINT(8), s = HINT(9);
    return gala_host_items(L, "neg_rect_lower_tri_multiply", ntask,
                           (double)ntask * s * s * s / 2, SUF(nrlt_one), NULL,
                           4 * (size_t)s * sizeof(REAL), NULL);
}

/* task t: the first bad column of its columns into ib[part_off + t] */
static void SUF(check_one)(const gala_host_launch *L, const void *arg, long t, void *wk, int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int upper = HINT(0), unit = HINT(1);
    int *ib = HBUF(int, 2);
    const ptrdiff_t part_off = HLONG(3), meta_off = HLONG(4), task_off = HLONG(5);
    const int m0 = HINT(6), per = HINT(7), step = HINT(8), n = HINT(10);
    const REAL *A = HBUF(REAL, 11);
    const tr_task tk = tr_get_task(ib, task_off, m0, per, step, t);
    const tr_mat M = tr_get_mat(ib, meta_off, tk.m, n, HLONG(12), HINT(13), HLONG(14), 0, 1, 0);
    const int qend = tr_min(tk.start + step, M.n);
    int code = LA_BIG;
    for (int q = tk.start; q < qend; ++q) {
        const int p0 = upper ? 0 : q, p1 = upper ? q + 1 : M.n;
        const REAL *col = A + M.ao + (ptrdiff_t)q * M.lda;
        for (int p = p0; p < p1; ++p) {
            if (p == q && unit) continue;
            if (SUF(tr_bad)(col[p])) code = tr_min(code, q + 1);
            else if (p == q && col[p] == 0) code = tr_min(code, M.n + 1 + q);
        }
    }
    ib[part_off + t] = code;
}

static gala_status SUF(trtri_check)(const gala_host_launch *L)
{
    const int step = HINT(8), ntask = HINT(9), n = HINT(10);
    return gala_host_items(L, "trtri_check", ntask, (double)ntask * step * n / 2,
                           SUF(check_one), NULL, 0, NULL);
}

static gala_status SUF(trtri_info)(const gala_host_launch *L)
{
    int *ib = HBUF(int, 0);
    const ptrdiff_t part_off = HLONG(1), flag_idx = HLONG(2), meta_off = HLONG(3);
    const int m0 = HINT(4), count = HINT(5), per = HINT(6), cols = HINT(7), n = HINT(8);
    for (ptrdiff_t j = 0; j < count; ++j) {
        const ptrdiff_t m = m0 + j;
        int nm = n, id = (int)m;
        ptrdiff_t first = m * per, np = per;
        if (meta_off >= 0) {
            const int *r = ib + meta_off + TRTRI_MW * m;
            nm = r[TRTRI_R_N];
            id = r[TRTRI_R_IDX];
            first = r[TRTRI_R_CHECK];
            np = (nm + cols - 1) / cols;
        }
        int code = LA_BIG;
        for (ptrdiff_t k = 0; k < np; ++k) code = tr_min(code, ib[part_off + first + k]);
        const int info = code == LA_BIG ? 0 : (code <= nm ? -code : code - nm);
        ib[id] = info;
        if (info != 0) ib[flag_idx] = 1;
    }
    return GALA_OK;
}

#endif
