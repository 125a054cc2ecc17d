/* Bad input to the core (contexts, buffers, timers) and the batched vector routines
 * (blas.h): NULL pointers, negative and zero sizes, ranges outside buffers, size_t
 * overflow, overlapping outputs, mixed and wrong element types, buffers of another context,
 * NaN/Inf semantics, empty batches. Each rejected call gives its documented status and a
 * message naming the function, leaves no buffer behind and writes nothing. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>

#include "badinput.h"

static gala_context *other_ctx(void) { return tu_host_ctx(1); }

START_TEST(context_arguments)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    gala_context *c = (gala_context *)1;
    gala_context_options o;
    gala_context_options_default(&o);
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_context_create", gala_context_create(&o, NULL));
    o.backend = (gala_backend)99;
    o.use_environment = 0;
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_context_create", gala_context_create(&o, &c));
    ck_assert_ptr_null(c);
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    o.use_environment = 0;
    o.native_stream = &o; /* a CUDA stream on another backend */
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_context_create", gala_context_create(&o, &c));
    ck_assert_ptr_null(c);
    /* bad environment values are argument errors too */
    gala_context_options_default(&o);
    setenv("GALA_BACKEND", "no-such-backend", 1);
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "GALA_BACKEND", gala_context_create(&o, &c));
    unsetenv("GALA_BACKEND");
    ck_assert_ptr_null(c);
    if (gala_backend_available(GALA_BACKEND_OPENCL)) {
        o.backend = GALA_BACKEND_OPENCL;
        o.use_environment = 0;
        o.device = "no such device anywhere";
        BAD0(t, NULL, GALA_ERR_NO_DEVICE, NULL, gala_context_create(&o, &c));
        ck_assert_ptr_null(c);
    }
    if (!gala_backend_available(GALA_BACKEND_CUDA)) {
        gala_context_options_default(&o);
        o.backend = GALA_BACKEND_CUDA;
        o.use_environment = 0;
        BAD0(t, NULL, GALA_ERR_NOT_SUPPORTED, "cuda", gala_context_create(&o, &c));
    }
    ck_assert_int_eq(gala_context_destroy(NULL), GALA_OK);
    gala_device_info info;
    gala_stats stats;
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_context_info", gala_context_info(NULL, &info));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_context_info", gala_context_info(ctx, NULL));
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_context_stats", gala_context_stats(NULL, &stats));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_context_stats", gala_context_stats(ctx, NULL));
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_finish", gala_finish(NULL));
    int count = -1;
    gala_device_desc d[2];
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_device_list", gala_device_list(d, 2, NULL));
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_device_list", gala_device_list(NULL, 2, &count));
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_device_list", gala_device_list(d, -1, &count));
    ck_assert_int_eq(gala_device_list(NULL, 0, &count), GALA_OK);
    ck_assert_int_ge(count, 1); /* the host backend at least */
    /* names of unknown values */
    ck_assert_str_eq(gala_status_string((gala_status)12345), "unknown status");
    ck_assert_str_eq(gala_dtype_name((gala_dtype)99), "unknown");
    ck_assert_uint_eq(gala_dtype_size((gala_dtype)99), 0);
    ck_assert_str_eq(gala_backend_name((gala_backend)99), "unknown");
    ck_assert_int_eq(gala_backend_available((gala_backend)99), 0);
    ck_assert_str_eq(gala_last_error(ctx), gala_last_error(ctx)); /* never NULL */
}
END_TEST

START_TEST(buffer_arguments)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    gala_buffer *b = (gala_buffer *)1, *x = NULL, *f = NULL, *in = NULL;
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_buffer_create", gala_buffer_create(NULL, dt, 4, &b));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_create", gala_buffer_create(ctx, dt, 4, NULL));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_create", gala_buffer_create(ctx, (gala_dtype)0, 4, &b));
    ck_assert_ptr_null(b);
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_create", gala_buffer_create(ctx, dt, 0, &b));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_create",
        gala_buffer_create(ctx, GALA_DOUBLE, SIZE_MAX / 4, &b)); /* bytes overflow */
    /* representable but far too large: the device (or host) cannot hold it */
    BAD(t, ctx, GALA_ERR_DEVICE_MEMORY, "", gala_buffer_create(ctx, GALA_FLOAT, SIZE_MAX / 8, &b));
    ck_assert_ptr_null(b);
    ck_assert_int_eq(gala_buffer_free(NULL), GALA_OK);
    ck_assert_uint_eq(gala_buffer_count(NULL), 0);
    ck_assert_int_eq(gala_buffer_dtype(NULL), 0);
    ck_assert_ptr_null(gala_buffer_context(NULL));

    /* x: double, or int on a device without fp64, which refuses double buffers */
    double v[16] = {0}, w[16] = {0};
    gala_device_info di;
    TU_OK(ctx, gala_context_info(ctx, &di));
    if (!di.fp64) {
        BAD(t, ctx, GALA_ERR_NOT_SUPPORTED, "gala_buffer_create",
            gala_buffer_create(ctx, GALA_DOUBLE, 16, &b));
        printf("buffer_arguments: device '%s' has no fp64: x is an int buffer\n", di.device_name);
    }
    TU_OK(ctx, gala_buffer_create(ctx, di.fp64 ? GALA_DOUBLE : GALA_INT, 16, &x));
    TU_OK(ctx, gala_buffer_create(ctx, GALA_FLOAT, 16, &f));
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, 16, &in));
    TU_OK(ctx, gala_buffer_write(x, 0, 16, v));
    BAD0(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_write", gala_buffer_write(NULL, 0, 1, v));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_write", gala_buffer_write(x, 0, 1, NULL));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_write", gala_buffer_write(x, 16, 1, v));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_write", gala_buffer_write(x, 8, 9, v));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_write", gala_buffer_write(x, SIZE_MAX, 2, v));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_write", gala_buffer_write(x, 1, SIZE_MAX, v));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_write_async", gala_buffer_write_async(x, 0, 17, v));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_read", gala_buffer_read(x, 0, 17, w));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_read", gala_buffer_read(x, 0, 2, NULL));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_read_async", gala_buffer_read_async(x, 17, 0, w));
    ck_assert_int_eq(gala_buffer_write(x, 16, 0, NULL), GALA_OK); /* nothing to do */
    ck_assert_int_eq(gala_buffer_read(x, 3, 0, NULL), GALA_OK);
    /* one NULL buffer: the message goes to the other one's context */
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_copy", gala_buffer_copy(NULL, 0, x, 0, 1));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_copy", gala_buffer_copy(x, 0, NULL, 0, 1));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_copy", gala_buffer_copy(x, 0, f, 0, 1));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_copy", gala_buffer_copy(x, 0, x, 4, 8));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_copy", gala_buffer_copy(x, 10, x, 0, 7));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_copy", gala_buffer_copy(x, SIZE_MAX, x, 0, 2));
    gala_context *o = other_ctx();
    gala_buffer *ox = NULL;
    TU_OK(o, gala_buffer_create(o, GALA_DOUBLE, 16, &ox));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_copy", gala_buffer_copy(ox, 0, x, 0, 1));
    BAD0(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_fill", gala_buffer_fill(NULL, 0, 1, 0));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_fill", gala_buffer_fill(x, 15, 2, 0));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_fill", gala_buffer_fill(in, 0, 1, 1e10));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_fill", gala_buffer_fill(in, 0, 1, NAN));
    /* nothing above wrote x */
    TU_OK(ctx, gala_buffer_read(x, 0, 16, w));
    for (int i = 0; i < 16; ++i) ck_assert(w[i] == 0);

    /* wrap */
    double mem[8];
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_buffer_wrap", gala_buffer_wrap(NULL, dt, 8, mem, &b));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_wrap", gala_buffer_wrap(ctx, dt, 8, mem, NULL));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_wrap", gala_buffer_wrap(ctx, dt, 8, NULL, &b));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_wrap", gala_buffer_wrap(ctx, dt, 0, mem, &b));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_wrap", gala_buffer_wrap(ctx, (gala_dtype)7, 8, mem, &b));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_wrap", gala_buffer_wrap(ctx, GALA_DOUBLE, SIZE_MAX / 2, mem, &b));
    if (tu_target_get(t)->backend == GALA_BACKEND_HOST)
        BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_buffer_wrap",
            gala_buffer_wrap(ctx, GALA_DOUBLE, 4, (char *)mem + 1, &b));
    ck_assert_ptr_null(b);

    /* timers */
    gala_timer *tm = NULL, *tm2 = NULL;
    double ms;
    BAD0(t, NULL, GALA_ERR_INVALID_ARG, "gala_timer_record", gala_timer_record(NULL, &tm));
    BAD(t, ctx, GALA_ERR_INVALID_ARG, "gala_timer_record", gala_timer_record(ctx, NULL));
    BAD0(t, ctx, GALA_ERR_INVALID_ARG, "gala_timer_elapsed_ms", gala_timer_elapsed_ms(NULL, NULL, &ms));
    if (gala_timer_record(o, &tm) == GALA_OK) {
        BAD(t, o, GALA_ERR_INVALID_ARG, "gala_timer_elapsed_ms", gala_timer_elapsed_ms(tm, tm, NULL));
        if (gala_timer_record(ctx, &tm2) == GALA_OK)
            BAD(t, o, GALA_ERR_INVALID_ARG, "gala_timer_elapsed_ms", gala_timer_elapsed_ms(tm, tm2, &ms));
    }
    ck_assert_int_eq(gala_timer_free(NULL), GALA_OK);
    gala_timer_free(tm);
    gala_timer_free(tm2);
    gala_buffer_free(x);
    gala_buffer_free(f);
    gala_buffer_free(in);
    gala_buffer_free(ox);
    gala_context_destroy(o);
}
END_TEST

/* ------------------------------------------------------------------ blas.h */

START_TEST(vector_arguments)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    gala_context *o = other_ctx();
    gala_buffer *x = tu_poisoned(ctx, dt, 64), *y = tu_poisoned(ctx, dt, 64);
    gala_buffer *r = tu_poisoned(ctx, dt, 8), *in = tu_poisoned(ctx, GALA_INT, 64), *ox = NULL;
    gala_buffer *m = NULL;
    TU_OK(o, gala_buffer_create(o, dt, 64, &ox));
    m = tu_other_precision(ctx, dt, 64, "vector_arguments: mixed precisions"); /* an error */
    const gala_status E = GALA_ERR_INVALID_ARG;
    const char *A = "gala_axpby_batched";
    BAD0(t, ctx, E, A, gala_axpby_batched(NULL, 4, 1, x, 0, 4, 1, y, 0, 4, 2));
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, -1, 1, x, 0, 4, 1, y, 0, 4, 2));
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, x, 0, 4, 1, y, 0, 4, -2));
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, NULL, 0, 4, 1, y, 0, 4, 2));
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, x, 0, 4, 1, NULL, 0, 4, 2));
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, ox, 0, 4, 1, y, 0, 4, 2));
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, in, 0, 4, 1, y, 0, 4, 2));
    if (m) BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, m, 0, 4, 1, y, 0, 4, 2));
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, x, 0, 4, 1, y, 60, 4, 2));   /* outside */
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, x, 0, SIZE_MAX / 2, 1, y, 0, 4, 3)); /* overflow */
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, x, 0, 4, 1, y, 0, 3, 2));    /* items of y overlap */
    BAD(t, ctx, E, A, gala_axpby_batched(ctx, 4, 1, x, 0, 4, 1, x, 2, 4, 2));    /* y overlaps x */
    const char *W = "gala_ew_mul_batched";
    BAD(t, ctx, E, W, gala_ew_mul_batched(ctx, 4, x, 0, 4, y, 0, 4, x, 1, 4, 2));
    BAD(t, ctx, E, W, gala_ew_mul_batched(ctx, 4, x, 0, 4, y, 0, 4, NULL, 0, 4, 2));
    BAD(t, ctx, E, W, gala_ew_mul_batched(ctx, 4, x, 0, 4, in, 0, 4, y, 0, 4, 2));
    const char *C = "gala_clamp_batched";
    BAD(t, ctx, E, C, gala_clamp_batched(ctx, 4, x, 0, 4, y, 0, 4, r, 0, 8, y, 32, 4, 2)); /* u outside */
    BAD(t, ctx, E, C, gala_clamp_batched(ctx, 4, x, 0, 4, y, 0, 4, y, 0, 4, y, 2, 4, 2));  /* out overlaps */
    const char *N = "gala_norm_inf_batched", *D = "gala_dot_batched";
    BAD(t, ctx, E, N, gala_norm_inf_batched(ctx, 4, x, 0, 4, r, 6, 3));           /* res outside */
    BAD(t, ctx, E, N, gala_norm_inf_batched(ctx, 4, x, 0, 4, in, 0, 2));
    BAD(t, ctx, E, N, gala_norm_inf_batched(ctx, 4, x, 0, 4, NULL, 0, 2));
    BAD(t, ctx, E, D, gala_dot_batched(ctx, 4, x, 0, 4, y, 0, 4, x, 2, 2));        /* res inside x */
    BAD(t, ctx, E, D, gala_dot_batched(ctx, 4, x, 0, 4, ox, 0, 4, r, 0, 2));
    const char *G = "gala_gemv_batched";
    BAD(t, ctx, E, G, gala_gemv_batched(ctx, (gala_trans)0, 2, 2, 1, x, 0, 2, 4, y, 0, 2, 0, r, 0, 2, 2));
    BAD(t, ctx, E, G, gala_gemv_batched(ctx, GALA_NO_TRANS, 3, 2, 1, x, 0, 2, 6, y, 0, 2, 0, r, 0, 3, 2)); /* lda < m */
    BAD(t, ctx, E, G, gala_gemv_batched(ctx, GALA_NO_TRANS, -3, 2, 1, x, 0, 3, 6, y, 0, 2, 0, r, 0, 3, 2));
    BAD(t, ctx, E, G, gala_gemv_batched(ctx, GALA_NO_TRANS, 3, 2, 1, x, 0, 3, 6, y, 0, 2, 0, x, 0, 3, 2)); /* y overlaps A */
    BAD(t, ctx, E, G, gala_gemv_batched(ctx, GALA_NO_TRANS, 3, 2, 1, x, 0, 3, 6, y, 0, 2, 0, y, 1, 3, 2)); /* y overlaps x */
    BAD(t, ctx, E, G, gala_gemv_batched(ctx, GALA_NO_TRANS, 3, 2, 1, x, 0, 3, 6, y, 0, 2, 0, r, 0, 2, 2)); /* y items overlap */
    BAD(t, ctx, E, G, gala_gemv_batched(ctx, GALA_TRANS, 3, 2, 1, x, 0, 3, SIZE_MAX / 3, y, 0, 3, 0, r, 0, 2, 4));
    BAD(t, ctx, E, G, gala_gemv_batched(ctx, GALA_NO_TRANS, 3, 2, 1, x, 0, 3, 6, in, 0, 2, 0, r, 0, 3, 2));
    /* nothing was written: y and r are still all NaN */
    double v[64];
    tu_download(y, 0, v, 64);
    for (int i = 0; i < 64; ++i) ck_assert_msg(isnan(v[i]), "y[%d] written by a rejected call", i);
    tu_download(r, 0, v, 8);
    for (int i = 0; i < 8; ++i) ck_assert_msg(isnan(v[i]), "r[%d] written by a rejected call", i);

    /* empty work is valid and does nothing, except that reductions of n = 0 give 0 */
    TU_OK(ctx, gala_axpby_batched(ctx, 0, 1, x, 0, 0, 1, y, 0, 0, 5));
    TU_OK(ctx, gala_axpby_batched(ctx, 5, 1, x, 0, 5, 1, y, 0, 5, 0));
    TU_OK(ctx, gala_gemv_batched(ctx, GALA_NO_TRANS, 0, 0, 1, x, 0, 1, 0, y, 0, 0, 0, r, 0, 0, 3));
    TU_OK(ctx, gala_gemv_batched(ctx, GALA_NO_TRANS, 3, 2, 1, x, 0, 3, 6, y, 0, 2, 0, r, 0, 3, 0));
    tu_download(y, 0, v, 64);
    for (int i = 0; i < 64; ++i) ck_assert(isnan(v[i]));
    TU_OK(ctx, gala_norm_inf_batched(ctx, 0, x, 0, 0, r, 0, 3));
    TU_OK(ctx, gala_dot_batched(ctx, 0, x, 0, 0, y, 0, 0, r, 3, 3));
    tu_download(r, 0, v, 8);
    for (int i = 0; i < 6; ++i) ck_assert_msg(v[i] == 0, "reduction of n = 0: r[%d] = %g", i, v[i]);
    ck_assert(isnan(v[6]) && isnan(v[7]));
    gala_buffer_free(x);
    gala_buffer_free(y);
    gala_buffer_free(r);
    gala_buffer_free(in);
    gala_buffer_free(m);
    gala_buffer_free(ox);
    gala_context_destroy(o);
}
END_TEST

/* Documented NaN/Inf semantics: beta = 0 does not read y; a NaN makes only its own item's
 * norm NaN; clamp with l > u gives u; ±Inf bounds. */
START_TEST(vector_nan_semantics)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    double xv[12] = {1, -2, 3, NAN, 5, 6, -7, 8, INFINITY, 1, 2, 3};
    gala_buffer *x = tu_upload(ctx, dt, xv, 12), *y = tu_poisoned(ctx, dt, 12);
    gala_buffer *r = tu_poisoned(ctx, dt, 3);
    TU_OK(ctx, gala_axpby_batched(ctx, 4, 2, x, 0, 4, 0, y, 0, 4, 3));
    double v[12];
    tu_download(y, 0, v, 12);
    for (int i = 0; i < 12; ++i)
        if (!isnan(xv[i])) TU_ASSERT(v[i] == 2 * xv[i], t, "axpby beta=0 [%d] = %g", i, v[i]);
    TU_OK(ctx, gala_norm_inf_batched(ctx, 4, x, 0, 4, r, 0, 3));
    tu_download(r, 0, v, 3);
    TU_ASSERT(isnan(v[0]) && v[1] == 8 && isinf(v[2]), t, "norms %g %g %g", v[0], v[1], v[2]);
    double lv[4] = {0, -INFINITY, 5, 0}, uv[4] = {1, 0, 4, INFINITY}, cv[4] = {-3, 3, 0, 9};
    gala_buffer *l = tu_upload(ctx, dt, lv, 4), *u = tu_upload(ctx, dt, uv, 4), *c = tu_upload(ctx, dt, cv, 4);
    TU_OK(ctx, gala_clamp_batched(ctx, 4, c, 0, 4, l, 0, 4, u, 0, 4, c, 0, 4, 1));
    tu_download(c, 0, v, 4);
    TU_ASSERT(v[0] == 0 && v[1] == 0 && v[2] == 4 && v[3] == 9, t, "clamp %g %g %g %g", v[0],
              v[1], v[2], v[3]);
    gala_buffer_free(x);
    gala_buffer_free(y);
    gala_buffer_free(r);
    gala_buffer_free(l);
    gala_buffer_free(u);
    gala_buffer_free(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("badinput");
    TCase *tc = tcase_create("badinput");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, context_arguments, 0, nt);
    tcase_add_loop_test(tc, buffer_arguments, 0, nt);
    tcase_add_loop_test(tc, vector_arguments, 0, nt);
    tcase_add_loop_test(tc, vector_nan_semantics, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
