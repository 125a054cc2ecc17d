/*
 * The host backend's BLAS-3 (gala_blas3_ops): plain C, one thread, float and double from
 * one template. GEMM and SYRK are cache-blocked: an MB×KB block of alpha·op(A) and a KB×NB
 * block of op(B) are packed contiguously (which also takes care of transposes), then each
 * column of the C block is updated with unit-stride loops the compiler vectorizes. SYRK
 * skips the blocks outside its triangle and masks the diagonal blocks. TRSM works column
 * by column (axpy form), which keeps the inner loops unit-stride for the common cases.
 */
#ifndef REAL
#include <stdlib.h>
#include <string.h>

#include "host_kernels.h"

#define MB 64
#define KB 256
#define NB 64

#define HOST_TEMPLATE "blas3.c"
#include "host_template.h"

static gala_status oom(gala_context *ctx)
{
    return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "host BLAS-3: no memory for packing buffers");
}

static gala_status h_gemm(gala_context *ctx, gala_dtype dt, gala_trans ta, gala_trans tb, int m,
                          int n, int k, double alpha, const gala_buffer *A, size_t a_off, int lda,
                          const gala_buffer *B, size_t b_off, int ldb, double beta, gala_buffer *C,
                          size_t c_off, int ldc)
{
    int ok = dt == GALA_DOUBLE
                 ? gemm_d(ta == GALA_TRANS, tb == GALA_TRANS, m, n, k, alpha,
                          (const double *)A->handle + a_off, lda, (const double *)B->handle + b_off,
                          ldb, beta, (double *)C->handle + c_off, ldc)
                 : gemm_f(ta == GALA_TRANS, tb == GALA_TRANS, m, n, k, (float)alpha,
                          (const float *)A->handle + a_off, lda, (const float *)B->handle + b_off,
                          ldb, (float)beta, (float *)C->handle + c_off, ldc);
    return ok ? GALA_OK : oom(ctx);
}

static gala_status h_syrk(gala_context *ctx, gala_dtype dt, gala_uplo uplo, gala_trans t, int n,
                          int k, double alpha, const gala_buffer *A, size_t a_off, int lda,
                          double beta, gala_buffer *C, size_t c_off, int ldc)
{
    int lower = uplo == GALA_LOWER, tr = t == GALA_TRANS;
    int ok = dt == GALA_DOUBLE
                 ? syrk_d(lower, tr, n, k, alpha, (const double *)A->handle + a_off, lda, beta,
                          (double *)C->handle + c_off, ldc)
                 : syrk_f(lower, tr, n, k, (float)alpha, (const float *)A->handle + a_off, lda,
                          (float)beta, (float *)C->handle + c_off, ldc);
    return ok ? GALA_OK : oom(ctx);
}

static gala_status h_trsm(gala_context *ctx, gala_dtype dt, gala_side side, gala_uplo uplo,
                          gala_trans t, gala_diag diag, int m, int n, double alpha,
                          const gala_buffer *A, size_t a_off, int lda, gala_buffer *B,
                          size_t b_off, int ldb)
{
    (void)ctx;
    int left = side == GALA_LEFT, lower = uplo == GALA_LOWER, tr = t == GALA_TRANS;
    int unit = diag == GALA_UNIT;
    if (dt == GALA_DOUBLE)
        trsm_d(left, lower, tr, unit, m, n, alpha, (const double *)A->handle + a_off, lda,
               (double *)B->handle + b_off, ldb);
    else
        trsm_f(left, lower, tr, unit, m, n, (float)alpha, (const float *)A->handle + a_off, lda,
               (float *)B->handle + b_off, ldb);
    return GALA_OK;
}

const gala_blas3_ops gala_host_blas3 = {h_gemm, h_syrk, h_trsm, NULL};

#else /* template body, compiled once per REAL */

/* op(X)(i, p) of a column-major X: X(i,p), or X(p,i) when transposed */
#define OPX(X, tr, i, p, ld) ((tr) ? (X)[(ptrdiff_t)(p) + (ptrdiff_t)(i) * (ld)] \
                                   : (X)[(ptrdiff_t)(i) + (ptrdiff_t)(p) * (ld)])

/* C += alpha·op(A)·op(B) on the entries allowed by mask (0 all, 1 i >= j, 2 i <= j). */
static int SUF(gemm_acc)(int ta, int tb, int m, int n, int k, REAL alpha, const REAL *A,
                         ptrdiff_t lda, const REAL *B, ptrdiff_t ldb, REAL *C, ptrdiff_t ldc,
                         int mask)
{
    REAL *Ap = malloc(sizeof(REAL) * MB * KB), *Bp = malloc(sizeof(REAL) * KB * NB);
    REAL *Ct = malloc(sizeof(REAL) * MB * NB);
    if (!Ap || !Bp || !Ct) {
        free(Ap);
        free(Bp);
        free(Ct);
        return 0;
    }
    for (int j0 = 0; j0 < n; j0 += NB) {
        const int nb = n - j0 < NB ? n - j0 : NB;
        for (int p0 = 0; p0 < k; p0 += KB) {
            const int kb = k - p0 < KB ? k - p0 : KB;
            int packed_b = 0;
            for (int i0 = 0; i0 < m; i0 += MB) {
                const int mb = m - i0 < MB ? m - i0 : MB;
                if (mask == 1 && i0 + mb - 1 < j0) continue;      /* wholly above */
                if (mask == 2 && i0 > j0 + nb - 1) continue;      /* wholly below */
                if (!packed_b) {
                    for (int j = 0; j < nb; ++j)
                        for (int p = 0; p < kb; ++p) Bp[j * kb + p] = OPX(B, !tb, j0 + j, p0 + p, ldb);
                    packed_b = 1;
                }
                for (int p = 0; p < kb; ++p)
                    for (int i = 0; i < mb; ++i) Ap[p * mb + i] = alpha * OPX(A, ta, i0 + i, p0 + p, lda);
                const int split = (mask == 1 && i0 < j0 + nb - 1) || (mask == 2 && i0 + mb - 1 > j0);
                for (int j = 0; j < nb; ++j) {
                    REAL *cj = split ? Ct + j * mb : C + (ptrdiff_t)(j0 + j) * ldc + i0;
                    if (split) memset(cj, 0, sizeof(REAL) * (size_t)mb);
                    const REAL *bj = Bp + j * kb;
                    for (int p = 0; p < kb; ++p) {
                        const REAL b = bj[p];
                        const REAL *ap = Ap + p * mb;
                        for (int i = 0; i < mb; ++i) cj[i] += ap[i] * b;
                    }
                }
                if (split) {
                    for (int j = 0; j < nb; ++j)
                        for (int i = 0; i < mb; ++i) {
                            const int gi = i0 + i, gj = j0 + j;
                            if ((mask == 1 && gi >= gj) || (mask == 2 && gi <= gj))
                                C[(ptrdiff_t)gj * ldc + gi] += Ct[j * mb + i];
                        }
                }
            }
        }
    }
    free(Ap);
    free(Bp);
    free(Ct);
    return 1;
}

/* C = beta·C on the entries allowed by mask; beta = 0 writes zeros without reading C. */
static void SUF(scale)(int m, int n, REAL beta, REAL *C, ptrdiff_t ldc, int mask)
{
    if (beta == 1) return;
    for (int j = 0; j < n; ++j) {
        int lo = mask == 1 ? j : 0, hi = mask == 2 ? (j + 1 < m ? j + 1 : m) : m;
        REAL *cj = C + (ptrdiff_t)j * ldc;
        for (int i = lo; i < hi; ++i) cj[i] = beta == 0 ? (REAL)0 : beta * cj[i];
    }
}

static int SUF(gemm)(int ta, int tb, int m, int n, int k, REAL alpha, const REAL *A, ptrdiff_t lda,
                     const REAL *B, ptrdiff_t ldb, REAL beta, REAL *C, ptrdiff_t ldc)
{
    SUF(scale)(m, n, beta, C, ldc, 0);
    if (k == 0 || alpha == 0) return 1;
    return SUF(gemm_acc)(ta, tb, m, n, k, alpha, A, lda, B, ldb, C, ldc, 0);
}

static int SUF(syrk)(int lower, int tr, int n, int k, REAL alpha, const REAL *A, ptrdiff_t lda,
                     REAL beta, REAL *C, ptrdiff_t ldc)
{
    const int mask = lower ? 1 : 2;
    SUF(scale)(n, n, beta, C, ldc, mask);
    if (k == 0 || alpha == 0) return 1;
    /* op(A)·op(A)ᵀ: first factor op(A), second op(A)ᵀ */
    return SUF(gemm_acc)(tr, !tr, n, n, k, alpha, A, lda, A, lda, C, ldc, mask);
}

/* Triangular solves, column-oriented. opA(i,k) = A(i,k), or A(k,i) when transposed; op(A)
 * is lower when (lower xor tr). */
static void SUF(trsm)(int left, int lower, int tr, int unit, int m, int n, REAL alpha,
                      const REAL *A, ptrdiff_t lda, REAL *B, ptrdiff_t ldb)
{
    const int olow = lower ^ tr;
    SUF(scale)(m, n, alpha, B, ldb, 0);
    if (left) {
        /* op(A)·X = B, each column of B independently */
        for (int j = 0; j < n; ++j) {
            REAL *x = B + (ptrdiff_t)j * ldb;
            if (olow) {
                for (int kk = 0; kk < m; ++kk) {
                    if (!unit) x[kk] /= OPX(A, tr, kk, kk, lda);
                    const REAL xk = x[kk];
                    if (xk == 0) continue;
                    for (int i = kk + 1; i < m; ++i) x[i] -= OPX(A, tr, i, kk, lda) * xk;
                }
            } else {
                for (int kk = m - 1; kk >= 0; --kk) {
                    if (!unit) x[kk] /= OPX(A, tr, kk, kk, lda);
                    const REAL xk = x[kk];
                    if (xk == 0) continue;
                    for (int i = 0; i < kk; ++i) x[i] -= OPX(A, tr, i, kk, lda) * xk;
                }
            }
        }
    } else {
        /* X·op(A) = B: column j of X from the finished columns */
        if (!olow) {
            for (int j = 0; j < n; ++j) {
                REAL *xj = B + (ptrdiff_t)j * ldb;
                for (int kk = 0; kk < j; ++kk) {
                    const REAL a = OPX(A, tr, kk, j, lda);
                    if (a == 0) continue;
                    const REAL *xk = B + (ptrdiff_t)kk * ldb;
                    for (int i = 0; i < m; ++i) xj[i] -= xk[i] * a;
                }
                if (!unit) {
                    const REAL d = OPX(A, tr, j, j, lda);
                    for (int i = 0; i < m; ++i) xj[i] /= d;
                }
            }
        } else {
            for (int j = n - 1; j >= 0; --j) {
                REAL *xj = B + (ptrdiff_t)j * ldb;
                for (int kk = j + 1; kk < n; ++kk) {
                    const REAL a = OPX(A, tr, kk, j, lda);
                    if (a == 0) continue;
                    const REAL *xk = B + (ptrdiff_t)kk * ldb;
                    for (int i = 0; i < m; ++i) xj[i] -= xk[i] * a;
                }
                if (!unit) {
                    const REAL d = OPX(A, tr, j, j, lda);
                    for (int i = 0; i < m; ++i) xj[i] /= d;
                }
            }
        }
    }
}

#undef OPX

#endif
