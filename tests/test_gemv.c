/* Batched gemv (blas.h) on every target, against a double reference. */
#include <stdlib.h>

#include "testutil.h"

typedef struct { int m, n, batch; } shape;
static const shape shapes[] = {{1, 1, 1},   {2, 3, 7},    {5, 1, 1000}, {1, 7, 3},  {33, 17, 5},
                               {64, 64, 2}, {100, 37, 3}, {257, 129, 2}, {0, 5, 3}, {5, 0, 3},
                               {10, 10, 5000}, {300, 2, 4}};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

START_TEST(gemv_matches_reference)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    double eps = tu_eps(dt);
    for (int s = 0; s < NSHAPES; ++s) {
        for (int tr = 0; tr < 2; ++tr) {
            int m = shapes[s].m, n = shapes[s].n, batch = shapes[s].batch;
            gala_trans trans = tr ? GALA_TRANS : GALA_NO_TRANS;
            int xl = tr ? m : n, yl = tr ? n : m;
            int lda = (m > 1 ? m : 1) + tu_int(&r, 0, 3);
            size_t as = (size_t)lda * (size_t)n + (size_t)tu_int(&r, 0, 5);
            size_t xs = (size_t)xl + 1, ys = (size_t)yl + (size_t)tu_int(&r, 0, 2);
            size_t ao = 3, xo = 1, yo = 2;
            size_t alen = ao + (size_t)batch * as + 1, xlen = xo + (size_t)batch * xs + 1,
                   ylen = yo + (size_t)batch * ys + 1;
            double *A = malloc(alen * sizeof *A), *x = malloc(xlen * sizeof *x),
                   *y = malloc(ylen * sizeof *y), *out = malloc(ylen * sizeof *out);
            for (size_t i = 0; i < alen; ++i) A[i] = tu_normal(&r);
            for (size_t i = 0; i < xlen; ++i) x[i] = tu_normal(&r);
            for (size_t i = 0; i < ylen; ++i) y[i] = tu_normal(&r);
            tu_round(dt, A, alen); tu_round(dt, x, xlen); tu_round(dt, y, ylen);
            double alpha = tu_normal(&r), beta = (s % 3 == 0) ? 0 : tu_normal(&r);
            tu_round(dt, &alpha, 1); tu_round(dt, &beta, 1);
            gala_buffer *bA = tu_upload(ctx, dt, A, alen), *bx = tu_upload(ctx, dt, x, xlen),
                        *by = tu_upload(ctx, dt, y, ylen);
            TU_OK(ctx, gala_gemv_batched(ctx, trans, m, n, alpha, bA, ao, lda, as, bx, xo, xs,
                                         beta, by, yo, ys, batch));
            tu_download(by, 0, out, ylen);
            for (int b = 0; b < batch; ++b) {
                const double *Ab = A + ao + (size_t)b * as, *xb = x + xo + (size_t)b * xs;
                for (int k = 0; k < yl; ++k) {
                    double acc = 0, mag = 0;
                    for (int t = 0; t < xl; ++t) {
                        double a = tr ? Ab[(size_t)k * lda + t] : Ab[(size_t)t * lda + k];
                        acc += a * xb[t];
                        mag += fabs(a * xb[t]);
                    }
                    double yv = y[yo + (size_t)b * ys + (size_t)k];
                    double ref = alpha * acc + (beta == 0 ? 0 : beta * yv);
                    double tol = 2 * (xl + 2) * eps * (fabs(alpha) * mag + fabs(beta * yv)) + 1e-300;
                    double got = out[yo + (size_t)b * ys + (size_t)k];
                    TU_ASSERT(fabs(got - ref) <= tol, _i, "gemv %s m=%d n=%d batch=%d item %d "
                              "row %d: got %.17g want %.17g", tr ? "T" : "N", m, n, batch, b, k,
                              got, ref);
                }
                /* the gap after each item is untouched */
                for (size_t k = (size_t)yl; k < ys; ++k) {
                    size_t at = yo + (size_t)b * ys + k;
                    TU_ASSERT(out[at] == y[at], _i, "gemv wrote into the gap after item %d", b);
                }
            }
            gala_buffer_free(bA); gala_buffer_free(bx); gala_buffer_free(by);
            free(A); free(x); free(y); free(out);
        }
    }
}
END_TEST

START_TEST(gemv_bad_arguments)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *A = tu_poisoned(ctx, dt, 100), *x = tu_poisoned(ctx, dt, 10),
                *y = tu_poisoned(ctx, dt, 10);
    ck_assert_int_eq(gala_gemv_batched(ctx, GALA_NO_TRANS, 10, 10, 1, A, 0, 9, 100, x, 0, 10, 0, y,
                                       0, 10, 1), GALA_ERR_INVALID_ARG); /* lda < m */
    ck_assert_int_eq(gala_gemv_batched(ctx, (gala_trans)5, 10, 10, 1, A, 0, 10, 100, x, 0, 10, 0,
                                       y, 0, 10, 1), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_gemv_batched(ctx, GALA_NO_TRANS, 10, 10, 1, A, 1, 10, 100, x, 0, 10, 0,
                                       y, 0, 10, 1), GALA_ERR_INVALID_ARG); /* A too small */
    ck_assert_int_eq(gala_gemv_batched(ctx, GALA_NO_TRANS, 5, 5, 1, A, 0, 5, 25, x, 0, 5, 0, A,
                                       10, 5, 1), GALA_ERR_INVALID_ARG); /* y inside A */
    ck_assert_int_eq(gala_gemv_batched(ctx, GALA_NO_TRANS, -1, 5, 1, A, 0, 5, 25, x, 0, 5, 0, y,
                                       0, 5, 1), GALA_ERR_INVALID_ARG);
    gala_buffer_free(A); gala_buffer_free(x); gala_buffer_free(y);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemv");
    TCase *tc = tcase_create("gemv");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, gemv_matches_reference, 0, nt);
    tcase_add_loop_test(tc, gemv_bad_arguments, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
