/*
 * gala_buffer_wrap: caller-owned memory used as gala buffers without copies, on every
 * target (host pointers, OpenCL cl_mem, CUDA device pointers). The wrapped memory is read
 * and written by gala operations, survives gala_buffer_free and context destruction, and
 * bad arguments are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "testutil.h"

#ifdef GALA_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "device/opencl/opencl.h"
#endif

enum { N = 257 };

/* y = 3·x + y through gala on wrapped buffers; checks y afterwards through `check`. */
static void axpby_on(gala_context *ctx, int ti, gala_buffer *x, gala_buffer *y)
{
    TU_OK(ctx, gala_axpby_batched(ctx, N, 3, x, 0, N, 1, y, 0, N, 1));
    double out[N];
    tu_download(y, 0, out, N);
    for (int i = 0; i < N; ++i)
        TU_ASSERT(out[i] == 3.0 * i + 1, ti, "element %d: %g", i, out[i]);
}

START_TEST(wrap_arguments_are_checked)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_buffer *own, *w = (gala_buffer *)1;
    TU_OK(ctx, gala_buffer_create(ctx, dt, N, &own));
    void *native = own->handle;
    ck_assert_int_eq(gala_buffer_wrap(NULL, dt, N, native, &w), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_buffer_wrap(ctx, dt, N, native, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_buffer_wrap(ctx, (gala_dtype)99, N, native, &w), GALA_ERR_INVALID_ARG);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(gala_buffer_wrap(ctx, dt, 0, native, &w), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_buffer_wrap(ctx, dt, N, NULL, &w), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_buffer_wrap(ctx, dt, SIZE_MAX / 2, native, &w), GALA_ERR_INVALID_ARG);
    if (tu_target_get(_i)->backend != GALA_BACKEND_OPENCL) { /* pointers: alignment */
        ck_assert_int_eq(gala_buffer_wrap(ctx, dt, 4, (char *)native + 2, &w), GALA_ERR_INVALID_ARG);
        ck_assert_msg(strstr(gala_last_error(ctx), "aligned"), "%s", gala_last_error(ctx));
    }
    ck_assert_ptr_null(w);
    gala_buffer_free(own);
}
END_TEST

/* Wrap the memory of a gala buffer a second time: the two buffers alias. */
START_TEST(wrapped_memory_aliases_its_owner)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    double xv[N];
    for (int i = 0; i < N; ++i) xv[i] = i;
    gala_buffer *x = tu_upload(ctx, dt, xv, N), *y = tu_poisoned(ctx, dt, N), *wx, *wy;
    TU_OK(ctx, gala_buffer_fill(y, 0, N, 1));
    gala_stats s0, s1;
    TU_OK(ctx, gala_context_stats(ctx, &s0));
    TU_OK(ctx, gala_buffer_wrap(ctx, dt, N, x->handle, &wx));
    TU_OK(ctx, gala_buffer_wrap(ctx, dt, N, y->handle, &wy));
    ck_assert_uint_eq(gala_buffer_count(wx), N);
    ck_assert_int_eq(gala_buffer_dtype(wx), dt);
    ck_assert_ptr_eq(gala_buffer_context(wx), ctx);
    TU_OK(ctx, gala_context_stats(ctx, &s1));
    ck_assert_int_eq(s1.buffers_live, s0.buffers_live + 2);
    axpby_on(ctx, _i, wx, wy);
    /* the owner sees the result; freeing the wrappers leaves its memory alone */
    gala_buffer_free(wx);
    gala_buffer_free(wy);
    TU_OK(ctx, gala_context_stats(ctx, &s1));
    ck_assert_int_eq(s1.buffers_live, s0.buffers_live);
    ck_assert_uint_eq(s1.bytes_live, s0.bytes_live);
    double out[N];
    tu_download(y, 0, out, N);
    for (int i = 0; i < N; ++i) TU_ASSERT(out[i] == 3.0 * i + 1, _i, "owner element %d: %g", i, out[i]);
    gala_buffer_free(x);
    gala_buffer_free(y);
}
END_TEST

/* Memory that gala never allocated: malloc on the host, clCreateBuffer on OpenCL. */
START_TEST(foreign_memory)
{
    gala_context *ctx = tu_ctx(_i);
    const tu_target *t = tu_target_get(_i);
    size_t es = gala_dtype_size(t->dtype);
    double xv[N], yv[N];
    for (int i = 0; i < N; ++i) { xv[i] = i; yv[i] = 1; }
    void *hx = malloc(N * es), *hy = malloc(N * es);
    for (int i = 0; i < N; ++i) {
        if (t->dtype == GALA_DOUBLE) { ((double *)hx)[i] = xv[i]; ((double *)hy)[i] = yv[i]; }
        else { ((float *)hx)[i] = (float)xv[i]; ((float *)hy)[i] = (float)yv[i]; }
    }
    gala_buffer *wx, *wy;
    if (t->backend == GALA_BACKEND_HOST) {
        TU_OK(ctx, gala_buffer_wrap(ctx, t->dtype, N, hx, &wx));
        TU_OK(ctx, gala_buffer_wrap(ctx, t->dtype, N, hy, &wy));
        axpby_on(ctx, _i, wx, wy);
        /* the caller's memory holds the result directly */
        double v = t->dtype == GALA_DOUBLE ? ((double *)hy)[5] : ((float *)hy)[5];
        ck_assert_double_eq(v, 16);
        gala_buffer_free(wx);
        gala_buffer_free(wy);
    }
#ifdef GALA_HAVE_OPENCL
    else if (t->backend == GALA_BACKEND_OPENCL) {
        cl_command_queue q = gala_opencl_queue(ctx);
        cl_context clctx;
        ck_assert_int_eq(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof clctx, &clctx, NULL),
                         CL_SUCCESS);
        cl_int e;
        cl_mem mx = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * es, hx, &e);
        ck_assert_int_eq(e, CL_SUCCESS);
        cl_mem my = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * es, hy, &e);
        ck_assert_int_eq(e, CL_SUCCESS);
        TU_OK(ctx, gala_buffer_wrap(ctx, t->dtype, N, mx, &wx));
        TU_OK(ctx, gala_buffer_wrap(ctx, t->dtype, N, my, &wy));
        axpby_on(ctx, _i, wx, wy);
        gala_buffer_free(wx);
        gala_buffer_free(wy);
        /* still the caller's: readable with OpenCL after gala let go */
        ck_assert_int_eq(clEnqueueReadBuffer(q, my, CL_TRUE, 0, N * es, hy, 0, NULL, NULL), CL_SUCCESS);
        double v = t->dtype == GALA_DOUBLE ? ((double *)hy)[5] : ((float *)hy)[5];
        ck_assert_double_eq(v, 16);
        clReleaseMemObject(mx);
        clReleaseMemObject(my);
    }
#endif
    else if (t->backend == GALA_BACKEND_CUDA) {
        /* host memory is not device memory */
        gala_buffer *bad = NULL;
        ck_assert_int_eq(gala_buffer_wrap(ctx, t->dtype, N, hx, &bad), GALA_ERR_INVALID_ARG);
        ck_assert_ptr_null(bad);
    }
    free(hx);
    free(hy);
}
END_TEST

/* Destroying a context with wrapped buffers left in it frees only gala's records. */
START_TEST(context_destruction_leaves_wrapped_memory)
{
    gala_context *ctx = tu_host_ctx(0);
    double *mem = malloc(8 * sizeof *mem);
    for (int i = 0; i < 8; ++i) mem[i] = i;
    gala_buffer *w;
    TU_OK(ctx, gala_buffer_wrap(ctx, GALA_DOUBLE, 8, mem, &w));
    TU_OK(ctx, gala_buffer_fill(w, 2, 3, -1));
    TU_OK(NULL, gala_context_destroy(ctx));
    ck_assert_double_eq(mem[1], 1);
    ck_assert_double_eq(mem[3], -1);
    ck_assert_double_eq(mem[5], 5);
    free(mem); /* ASan reports a double free if gala had freed it */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("interop");
    TCase *tc = tcase_create("interop");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, wrap_arguments_are_checked, 0, nt);
    tcase_add_loop_test(tc, wrapped_memory_aliases_its_owner, 0, nt);
    tcase_add_loop_test(tc, foreign_memory, 0, nt);
    tcase_add_test(tc, context_destruction_leaves_wrapped_memory);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
