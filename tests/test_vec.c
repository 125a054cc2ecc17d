/* Batched vector operations (blas.h) on every target, against double references. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct { int n, batch; } shape;
static const shape shapes[] = {{0, 3}, {1, 1}, {2, 7}, {3, 50000}, {5, 10000}, {7, 1000}, {31, 7},
                               {32, 1}, {33, 100}, {257, 7}, {1000, 3}, {4099, 2}, {10, 0}};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

/* A strided batch in a buffer: values, offset and stride, with gaps that stay poisoned. */
typedef struct {
    size_t off, stride, len;
    double *v;
} layout;

static layout make(tu_rng *r, int n, int batch, double scale)
{
    layout L;
    L.off = (size_t)tu_int(r, 0, 5);
    L.stride = (size_t)n + (size_t)tu_int(r, 0, 3);
    L.len = L.off + (batch ? (size_t)(batch - 1) * L.stride + (size_t)n : 0) + 1;
    L.v = malloc(L.len * sizeof(double));
    for (size_t i = 0; i < L.len; ++i) L.v[i] = scale * tu_normal(r);
    return L;
}

static double at(const layout *L, int b, int i) { return L->v[L->off + (size_t)b * L->stride + (size_t)i]; }

START_TEST(axpby_matches_reference)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    double eps = tu_eps(dt);
    for (int s = 0; s < NSHAPES; ++s) {
        int n = shapes[s].n, batch = shapes[s].batch;
        for (int zero_beta = 0; zero_beta < 2; ++zero_beta) {
            layout x = make(&r, n, batch, 1), y = make(&r, n, batch, 1);
            tu_round(dt, x.v, x.len);
            tu_round(dt, y.v, y.len);
            double alpha = tu_normal(&r), beta = zero_beta ? 0 : tu_normal(&r);
            tu_round(dt, &alpha, 1);
            tu_round(dt, &beta, 1);
            if (zero_beta) /* beta = 0 must not read y: poison it */
                for (size_t i = 0; i < y.len; ++i) y.v[i] = NAN;
            gala_buffer *bx = tu_upload(ctx, dt, x.v, x.len), *by = tu_upload(ctx, dt, y.v, y.len);
            TU_OK(ctx, gala_axpby_batched(ctx, n, alpha, bx, x.off, x.stride, beta, by, y.off,
                                          y.stride, batch));
            double *out = malloc(y.len * sizeof(double));
            tu_download(by, 0, out, y.len);
            for (int b = 0; b < batch; ++b)
                for (int i = 0; i < n; ++i) {
                    double yv = zero_beta ? 0 : at(&y, b, i);
                    double ref = alpha * at(&x, b, i) + beta * yv;
                    double tol = 4 * eps * (fabs(alpha * at(&x, b, i)) + fabs(beta * yv)) + 1e-300;
                    double got = out[y.off + (size_t)b * y.stride + (size_t)i];
                    TU_ASSERT(fabs(got - ref) <= tol, _i, "axpby n=%d batch=%d item %d elem %d: "
                              "got %.17g want %.17g", n, batch, b, i, got, ref);
                }
            /* elements outside the items are untouched */
            for (size_t k = 0; k < y.off; ++k)
                TU_ASSERT(isnan(out[k]) == isnan(y.v[k]) && (isnan(out[k]) || out[k] == y.v[k]),
                          _i, "axpby wrote before the first item");
            gala_buffer_free(bx);
            gala_buffer_free(by);
            free(out); free(x.v); free(y.v);
        }
    }
}
END_TEST

START_TEST(ew_mul_and_clamp_match_reference)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    double eps = tu_eps(dt);
    for (int s = 0; s < NSHAPES; ++s) {
        int n = shapes[s].n, batch = shapes[s].batch;
        layout x = make(&r, n, batch, 2), y = make(&r, n, batch, 2), l = make(&r, n, batch, 1),
               u = make(&r, n, batch, 1);
        for (size_t i = 0; i < l.len; ++i) {
            double a = l.v[i] - 0.5;
            l.v[i] = tu_uniform(&r) < 0.1 ? -INFINITY : a;
        }
        for (size_t i = 0; i < u.len; ++i) {
            size_t li = i < l.len ? i : 0;
            u.v[i] = tu_uniform(&r) < 0.1 ? INFINITY : (isinf(l.v[li]) ? 0 : l.v[li]) + fabs(u.v[i]);
        }
        /* u has the same layout only if offsets agree; keep l and u in separate layouts */
        tu_round(dt, x.v, x.len); tu_round(dt, y.v, y.len);
        tu_round(dt, l.v, l.len); tu_round(dt, u.v, u.len);
        gala_buffer *bx = tu_upload(ctx, dt, x.v, x.len), *by = tu_upload(ctx, dt, y.v, y.len);
        gala_buffer *bl = tu_upload(ctx, dt, l.v, l.len), *bu = tu_upload(ctx, dt, u.v, u.len);
        size_t zlen = (size_t)n * (size_t)batch + 1;
        gala_buffer *bz = tu_poisoned(ctx, dt, zlen), *bc = tu_poisoned(ctx, dt, zlen);
        TU_OK(ctx, gala_ew_mul_batched(ctx, n, bx, x.off, x.stride, by, y.off, y.stride, bz, 1,
                                       (size_t)n, batch));
        TU_OK(ctx, gala_clamp_batched(ctx, n, bx, x.off, x.stride, bl, l.off, l.stride, bu, u.off,
                                      u.stride, bc, 1, (size_t)n, batch));
        double *z = malloc(zlen * sizeof(double)), *c = malloc(zlen * sizeof(double));
        tu_download(bz, 0, z, zlen);
        tu_download(bc, 0, c, zlen);
        TU_ASSERT(isnan(z[0]) && isnan(c[0]), _i, "element before the output was written");
        for (int b = 0; b < batch; ++b)
            for (int i = 0; i < n; ++i) {
                size_t k = 1 + (size_t)b * (size_t)n + (size_t)i;
                double ref = at(&x, b, i) * at(&y, b, i);
                TU_ASSERT(fabs(z[k] - ref) <= eps * fabs(ref), _i,
                          "ew_mul n=%d item %d elem %d: got %.17g want %.17g", n, b, i, z[k], ref);
                double lo = at(&l, b, i), hi = at(&u, b, i), xv = at(&x, b, i);
                double cref = xv < lo ? lo : xv;
                cref = cref > hi ? hi : cref;
                TU_ASSERT(c[k] == cref, _i, "clamp n=%d item %d elem %d: got %.17g want %.17g "
                          "(x %.17g, l %.17g, u %.17g)", n, b, i, c[k], cref, xv, lo, hi);
            }
        gala_buffer_free(bx); gala_buffer_free(by); gala_buffer_free(bl); gala_buffer_free(bu);
        gala_buffer_free(bz); gala_buffer_free(bc);
        free(x.v); free(y.v); free(l.v); free(u.v); free(z); free(c);
    }
}
END_TEST

START_TEST(reductions_match_reference)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    double eps = tu_eps(dt);
    for (int s = 0; s < NSHAPES; ++s) {
        int n = shapes[s].n, batch = shapes[s].batch;
        layout x = make(&r, n, batch, 3), y = make(&r, n, batch, 1);
        tu_round(dt, x.v, x.len);
        tu_round(dt, y.v, y.len);
        gala_buffer *bx = tu_upload(ctx, dt, x.v, x.len), *by = tu_upload(ctx, dt, y.v, y.len);
        gala_buffer *bn = tu_poisoned(ctx, dt, (size_t)batch + 2), *bd = tu_poisoned(ctx, dt, (size_t)batch + 2);
        TU_OK(ctx, gala_norm_inf_batched(ctx, n, bx, x.off, x.stride, bn, 1, batch));
        TU_OK(ctx, gala_dot_batched(ctx, n, bx, x.off, x.stride, by, y.off, y.stride, bd, 1, batch));
        double *nr = malloc(((size_t)batch + 2) * sizeof(double)), *dr = malloc(((size_t)batch + 2) * sizeof(double));
        tu_download(bn, 0, nr, (size_t)batch + 2);
        tu_download(bd, 0, dr, (size_t)batch + 2);
        TU_ASSERT(isnan(nr[0]) && isnan(nr[batch + 1]) && isnan(dr[0]) && isnan(dr[batch + 1]),
                  _i, "reduction wrote outside its result range");
        for (int b = 0; b < batch; ++b) {
            double m = 0, d = 0, da = 0;
            for (int i = 0; i < n; ++i) {
                m = fmax(m, fabs(at(&x, b, i)));
                d += at(&x, b, i) * at(&y, b, i);
                da += fabs(at(&x, b, i) * at(&y, b, i));
            }
            TU_ASSERT(nr[1 + b] == m, _i, "norm_inf n=%d item %d: got %.17g want %.17g", n, b,
                      nr[1 + b], m);
            double tol = 2 * (n + 1) * eps * da;
            TU_ASSERT(fabs(dr[1 + b] - d) <= tol, _i, "dot n=%d item %d: got %.17g want %.17g "
                      "(tol %.3g)", n, b, dr[1 + b], d, tol);
        }
        gala_buffer_free(bx); gala_buffer_free(by); gala_buffer_free(bn); gala_buffer_free(bd);
        free(x.v); free(y.v); free(nr); free(dr);
    }
}
END_TEST

START_TEST(norm_inf_propagates_nan)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    double v[300];
    for (int i = 0; i < 300; ++i) v[i] = i;
    v[200] = NAN;
    gala_buffer *bx = tu_upload(ctx, dt, v, 300), *bn = tu_poisoned(ctx, dt, 3);
    TU_OK(ctx, gala_buffer_fill(bn, 0, 3, 0));
    TU_OK(ctx, gala_norm_inf_batched(ctx, 100, bx, 0, 100, bn, 0, 3));
    double out[3];
    tu_download(bn, 0, out, 3);
    TU_ASSERT(out[0] == 99 && isnan(out[2]) && out[1] == 199, _i,
              "norm_inf with a NaN: got %g %g %g", out[0], out[1], out[2]);
    gala_buffer_free(bx);
    gala_buffer_free(bn);
}
END_TEST

START_TEST(vec_bad_arguments)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *x = tu_poisoned(ctx, dt, 100), *y = tu_poisoned(ctx, dt, 100), *i32;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 100, &i32));
    ck_assert_int_eq(gala_axpby_batched(NULL, 10, 1, x, 0, 10, 1, y, 0, 10, 10), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_axpby_batched(ctx, -1, 1, x, 0, 10, 1, y, 0, 10, 10), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_axpby_batched(ctx, 10, 1, x, 0, 10, 1, y, 0, 10, -2), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_axpby_batched(ctx, 10, 1, NULL, 0, 10, 1, y, 0, 10, 10), GALA_ERR_INVALID_ARG);
    /* one element past the end */
    ck_assert_int_eq(gala_axpby_batched(ctx, 10, 1, x, 1, 10, 1, y, 0, 10, 10), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "too small") != NULL, "message: %s", gala_last_error(ctx));
    ck_assert_int_eq(gala_axpby_batched(ctx, 10, 1, i32, 0, 10, 1, y, 0, 10, 10), GALA_ERR_INVALID_ARG);
    /* stride overflow */
    ck_assert_int_eq(gala_axpby_batched(ctx, 10, 1, x, 0, SIZE_MAX / 2, 1, y, 0, 10, 10), GALA_ERR_INVALID_ARG);
    /* partial overlap of output and input */
    ck_assert_int_eq(gala_axpby_batched(ctx, 10, 1, x, 0, 10, 1, x, 5, 10, 9), GALA_ERR_INVALID_ARG);
    /* output items overlapping each other */
    ck_assert_int_eq(gala_axpby_batched(ctx, 10, 1, x, 0, 10, 1, y, 0, 5, 10), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_norm_inf_batched(ctx, 10, x, 0, 10, x, 0, 10), GALA_ERR_INVALID_ARG);
    /* exact aliasing is allowed, and zero sizes do nothing */
    TU_OK(ctx, gala_buffer_fill(x, 0, 100, 2));
    TU_OK(ctx, gala_axpby_batched(ctx, 10, 1, x, 0, 10, 1, x, 0, 10, 10));
    TU_OK(ctx, gala_axpby_batched(ctx, 0, 1, x, 0, 10, 1, y, 0, 10, 10));
    double v[100];
    tu_download(x, 0, v, 100);
    for (int i = 0; i < 100; ++i) ck_assert(v[i] == 4);
    gala_context *other = NULL;
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    TU_OK(NULL, gala_context_create(&o, &other));
    gala_buffer *ox = tu_poisoned(other, dt, 100);
    ck_assert_int_eq(gala_axpby_batched(ctx, 10, 1, ox, 0, 10, 1, y, 0, 10, 10), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(ctx), "another context") != NULL, "%s", gala_last_error(ctx));
    gala_context_destroy(other);
    gala_buffer_free(x); gala_buffer_free(y); gala_buffer_free(i32);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vec");
    TCase *tc = tcase_create("vec");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, axpby_matches_reference, 0, nt);
    tcase_add_loop_test(tc, ew_mul_and_clamp_match_reference, 0, nt);
    tcase_add_loop_test(tc, reductions_match_reference, 0, nt);
    tcase_add_loop_test(tc, norm_inf_propagates_nan, 0, nt);
    tcase_add_loop_test(tc, vec_bad_arguments, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
