/*
 * The CUDA backend. Without a GPU (here and in CI): a CUDA context fails cleanly with
 * GALA_ERR_NO_DEVICE, device lists and AUTO still work, the driver functions the backend
 * needs all exist (checked against the toolkit's stub libcuda), cuBLAS loads. With a GPU:
 * contexts on a caller's stream, wrapped device pointers, 8-byte fills, cuBLAS BLAS-3,
 * and the launch checks against each kernel's parameter list.
 */
#define _POSIX_C_SOURCE 200809L
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/kernel.h"
#include "device/cuda/nvrtc_compile.h"
#include "testutil.h"

extern char **environ;
static char self_path[4096];

static gala_context *cuda_ctx(void *stream, gala_status *status)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_CUDA;
    o.use_environment = 0;
    o.native_stream = stream;
    gala_context *ctx = NULL;
    gala_status s = gala_context_create(&o, &ctx);
    if (status) *status = s;
    return s == GALA_OK ? ctx : NULL;
}

/* A CUDA context for the GPU-only tests, or NULL after saying why they are skipped. */
static gala_context *gpu_or_skip(const char *test)
{
    gala_status s;
    gala_context *ctx = cuda_ctx(NULL, &s);
    if (!ctx)
        fprintf(stderr, "%s: skipped, needs a CUDA GPU (%s)\n", test, gala_last_error(NULL));
    return ctx;
}

START_TEST(no_gpu_is_reported_cleanly)
{
    ck_assert_int_eq(gala_backend_available(GALA_BACKEND_CUDA), 1);
    gala_status s;
    gala_context *ctx = cuda_ctx(NULL, &s);
    if (ctx) { /* a GPU is here: it must look like one */
        gala_device_info in;
        TU_OK(ctx, gala_context_info(ctx, &in));
        ck_assert_int_eq(in.backend, GALA_BACKEND_CUDA);
        ck_assert_str_eq(in.backend_name, "cuda");
        ck_assert_str_eq(in.platform_name, "CUDA");
        ck_assert_msg(strncmp(in.device_version, "sm_", 3) == 0, "%s", in.device_version);
        ck_assert_int_eq(in.is_gpu, 1);
        ck_assert_int_eq(in.fp64, 1);
        ck_assert_int_eq(in.subgroup_size, 32);
        ck_assert_int_ge(in.compute_units, 1);
        ck_assert_uint_ge(in.max_work_group_size, 256);
        ck_assert_uint_ge(in.local_mem_bytes, 16384);
        ck_assert_uint_gt(in.global_mem_bytes, 0);
        gala_context_destroy(ctx);
        return;
    }
    ck_assert_int_eq(s, GALA_ERR_NO_DEVICE);
    const char *msg = gala_last_error(NULL);
    ck_assert_msg(strstr(msg, "CUDA") || strstr(msg, "cuda"), "message: %s", msg);
    fprintf(stderr, "no CUDA device here: %s\n", msg);

    /* a caller's stream on another backend is a usage error; with AUTO it means CUDA */
    gala_context_options o;
    gala_context_options_default(&o);
    o.use_environment = 0;
    o.backend = GALA_BACKEND_HOST;
    o.native_stream = (void *)0x1; /* never dereferenced: there is no driver here */
    ck_assert_int_eq(gala_context_create(&o, &ctx), GALA_ERR_INVALID_ARG);
    ck_assert_ptr_null(ctx);
    o.backend = GALA_BACKEND_AUTO;
    ck_assert_int_eq(gala_context_create(&o, &ctx), GALA_ERR_NO_DEVICE);
    ck_assert_ptr_null(ctx);

    /* AUTO falls back to another device */
    o.native_stream = NULL;
    TU_OK(NULL, gala_context_create(&o, &ctx));
    gala_device_info in;
    TU_OK(ctx, gala_context_info(ctx, &in));
    ck_assert_int_ne(in.backend, GALA_BACKEND_CUDA);
    gala_context_destroy(ctx);
}
END_TEST

START_TEST(device_list_works)
{
    int n = -1;
    TU_OK(NULL, gala_device_list(NULL, 0, &n));
    ck_assert_int_ge(n, 1);
    gala_device_desc *d = calloc((size_t)n, sizeof *d);
    int n2 = -1;
    TU_OK(NULL, gala_device_list(d, n, &n2));
    ck_assert_int_eq(n2, n);
    ck_assert_int_eq(d[n - 1].backend, GALA_BACKEND_HOST);
    int ncuda = 0;
    for (int i = 0; i < n; ++i) {
        if (d[i].backend != GALA_BACKEND_CUDA) continue;
        ck_assert_str_eq(d[i].platform_name, "CUDA");
        ck_assert_int_eq(d[i].is_gpu, 1);
        ck_assert_int_eq(d[i].device_index, ncuda);
        ck_assert(d[i].device_name[0] != '\0');
        ++ncuda;
    }
    gala_context *ctx = cuda_ctx(NULL, NULL);
    ck_assert_int_eq(ncuda > 0, ctx != NULL);
    gala_context_destroy(ctx);
    if (n > 1) { /* a short array is filled as far as it goes */
        TU_OK(NULL, gala_device_list(d, 1, &n2));
        ck_assert_int_eq(n2, n);
    }
    free(d);
}
END_TEST

/* In a child process (the driver library is loaded once per process). */
static int child_with_driver(const char *driver, const char *expect)
{
    setenv("GALA_CUDA_DRIVER", driver, 1);
    char *argv[] = {self_path, "--driver-child", (char *)expect, NULL};
    pid_t pid;
    int st = 0;
    if (posix_spawn(&pid, self_path, NULL, NULL, argv, environ) != 0) return -1;
    unsetenv("GALA_CUDA_DRIVER");
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int driver_child(const char *expect)
{
    gala_status s;
    gala_context *ctx = cuda_ctx(NULL, &s);
    const char *msg = gala_last_error(NULL);
    fprintf(stderr, "driver %s: %s: %s\n", getenv("GALA_CUDA_DRIVER"), gala_status_string(s), msg);
    if (ctx || s != GALA_ERR_NO_DEVICE || !strstr(msg, expect) || strstr(msg, "lacks")) return 1;
    int n = 0;
    if (gala_device_list(NULL, 0, &n) != GALA_OK || n < 1) return 2;
    return 0;
}

START_TEST(driver_symbols_exist_and_stub_is_no_device)
{
#ifdef GALA_CUDA_STUB
    /* every driver function is looked up before cuInit, so reaching cuInit's error means
     * all of them exist in the toolkit's libcuda */
    ck_assert_int_eq(child_with_driver(GALA_CUDA_STUB, "(34)"), 0); /* CUDA_ERROR_STUB_LIBRARY */
#else
    fprintf(stderr, "driver symbol check skipped: no stub libcuda.so in the toolkit\n");
#endif
    ck_assert_int_eq(child_with_driver("/nonexistent/libcuda.so.1", "cannot be loaded"), 0);
}
END_TEST

START_TEST(cublas_loads)
{
    const char *why = "";
    ck_assert_msg(gala_cuda_blas_load(&why), "%s", why);
}
END_TEST

/* ------------------------------------------------------------ GPU only */

START_TEST(gpu_native_stream_and_wrapped_pointers)
{
    gala_context *c1 = gpu_or_skip(__func__);
    if (!c1) return;
    void *stream = gala_cuda_stream(c1);
    ck_assert_ptr_nonnull(stream);
    gala_context_options o;
    gala_context_options_default(&o);
    o.use_environment = 0;
    o.native_stream = stream; /* AUTO + a stream = CUDA */
    gala_context *c2;
    TU_OK(NULL, gala_context_create(&o, &c2));
    ck_assert_ptr_eq(gala_cuda_stream(c2), stream);
    gala_device_info in;
    TU_OK(c2, gala_context_info(c2, &in));
    ck_assert_int_eq(in.backend, GALA_BACKEND_CUDA);

    enum { N = 1000 };
    double hx[N], hy[N];
    for (int i = 0; i < N; ++i) { hx[i] = i; hy[i] = 1; }
    gala_buffer *x, *y, *wx, *wy;
    TU_OK(c1, gala_buffer_create(c1, GALA_DOUBLE, N, &x));
    TU_OK(c1, gala_buffer_create(c1, GALA_DOUBLE, N, &y));
    TU_OK(c1, gala_buffer_write(x, 0, N, hx));
    TU_OK(c1, gala_buffer_write(y, 0, N, hy));
    /* c2 works on c1's memory, on the same stream: no synchronization needed */
    TU_OK(c2, gala_buffer_wrap(c2, GALA_DOUBLE, N, x->handle, &wx));
    TU_OK(c2, gala_buffer_wrap(c2, GALA_DOUBLE, N, y->handle, &wy));
    TU_OK(c2, gala_axpby_batched(c2, N, 2, wx, 0, N, 1, wy, 0, N, 1));
    TU_OK(c1, gala_buffer_read(y, 0, N, hy));
    for (int i = 0; i < N; ++i) ck_assert_double_eq(hy[i], 2.0 * i + 1);

    /* a wrapped sub-range, and what is refused */
    gala_buffer *sub, *bad = NULL;
    TU_OK(c2, gala_buffer_wrap(c2, GALA_DOUBLE, N - 10, (char *)x->handle + 80, &sub));
    double v;
    TU_OK(c2, gala_buffer_read(sub, 0, 1, &v));
    ck_assert_double_eq(v, 10);
    ck_assert_int_eq(gala_buffer_wrap(c2, GALA_DOUBLE, N, (char *)x->handle + 80, &bad),
                     GALA_ERR_INVALID_ARG); /* runs past the allocation */
    ck_assert_msg(strstr(gala_last_error(c2), "past the end"), "%s", gala_last_error(c2));
    ck_assert_int_eq(gala_buffer_wrap(c2, GALA_DOUBLE, 4, (char *)x->handle + 4, &bad),
                     GALA_ERR_INVALID_ARG); /* misaligned */
    ck_assert_int_eq(gala_buffer_wrap(c2, GALA_DOUBLE, 4, hx, &bad), GALA_ERR_INVALID_ARG);
    ck_assert_ptr_null(bad);
    gala_stats st;
    TU_OK(c2, gala_context_stats(c2, &st));
    ck_assert_int_eq(st.buffers_live, 3);
    gala_buffer_free(sub);
    gala_buffer_free(wx);
    gala_buffer_free(wy);
    TU_OK(c2, gala_context_destroy(c2)); /* leaves the stream and the memory alone */
    TU_OK(c1, gala_axpby_batched(c1, N, 1, x, 0, N, 0, y, 0, N, 1));
    TU_OK(c1, gala_buffer_read(y, 0, N, hy));
    for (int i = 0; i < N; ++i) ck_assert_double_eq(hy[i], i);
    gala_context_destroy(c1);
}
END_TEST

START_TEST(gpu_fills)
{
    gala_context *ctx = gpu_or_skip(__func__);
    if (!ctx) return;
    const size_t N = 17000001; /* more than 65535 blocks of 256 */
    gala_buffer *d, *f;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_DOUBLE, N, &d));
    TU_OK(ctx, gala_buffer_create(ctx, GALA_FLOAT, 1000, &f));
    TU_OK(ctx, gala_buffer_fill(d, 0, N, 1.5)); /* halves differ: the fill kernel */
    TU_OK(ctx, gala_buffer_fill(d, 3, 5, NAN));
    TU_OK(ctx, gala_buffer_fill(d, 100, 7, 0.0)); /* halves equal: cuMemsetD32 */
    TU_OK(ctx, gala_buffer_fill(f, 1, 998, -2.5));
    double *h = malloc(N * sizeof *h);
    float hf[1000];
    TU_OK(ctx, gala_buffer_read(d, 0, N, h));
    TU_OK(ctx, gala_buffer_read(f, 0, 1000, hf));
    for (size_t i = 0; i < N; ++i) {
        if (i >= 3 && i < 8) ck_assert_msg(isnan(h[i]), "element %zu: %g", i, h[i]);
        else if (i >= 100 && i < 107) ck_assert_msg(h[i] == 0, "element %zu: %g", i, h[i]);
        else if (h[i] != 1.5) ck_abort_msg("element %zu: %g, expected 1.5", i, h[i]);
    }
    for (int i = 1; i < 999; ++i) ck_assert_float_eq(hf[i], -2.5f);
    free(h);
    gala_context_destroy(ctx);
}
END_TEST

static void ref_gemm(int m, int n, int k, double al, const double *A, int lda, const double *B,
                     int ldb, double be, double *C, int ldc)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double s = 0;
            for (int l = 0; l < k; ++l) s += A[i + l * lda] * B[l + j * ldb];
            C[i + j * ldc] = al * s + be * C[i + j * ldc];
        }
}

START_TEST(gpu_blas3_through_cublas)
{
    gala_context *ctx = gpu_or_skip(__func__);
    if (!ctx) return;
    const gala_blas3_ops *b3 = ctx->ops->blas3;
    ck_assert_ptr_nonnull(b3);
    gala_dtype dt = _i ? GALA_FLOAT : GALA_DOUBLE;
    double tol = _i ? 1e-4 : 1e-12;
    enum { M = 37, K = 19, NN = 23, OFF = 3 };
    tu_rng r = tu_rng_for(__func__, _i);
    double A[OFF + M * K], B[OFF + K * NN], C[OFF + M * NN], R[OFF + M * NN];
    for (int i = 0; i < OFF + M * K; ++i) A[i] = tu_normal(&r);
    for (int i = 0; i < OFF + K * NN; ++i) B[i] = tu_normal(&r);
    for (int i = 0; i < OFF + M * NN; ++i) C[i] = tu_normal(&r);
    tu_round(dt, A, OFF + M * K);
    tu_round(dt, B, OFF + K * NN);
    tu_round(dt, C, OFF + M * NN);
    gala_buffer *bA = tu_upload(ctx, dt, A, OFF + M * K), *bB = tu_upload(ctx, dt, B, OFF + K * NN),
                *bC = tu_upload(ctx, dt, C, OFF + M * NN);
    /* gemm: C = 0.5·A·B − C */
    TU_OK(ctx, b3->gemm(ctx, dt, GALA_NO_TRANS, GALA_NO_TRANS, M, NN, K, 0.5, bA, OFF, M, bB, OFF,
                        K, -1, bC, OFF, M));
    memcpy(R, C, sizeof C);
    ref_gemm(M, NN, K, 0.5, A + OFF, M, B + OFF, K, -1, R + OFF, M);
    tu_download(bC, 0, C, OFF + M * NN);
    for (int i = 0; i < OFF + M * NN; ++i)
        ck_assert_msg(fabs(C[i] - R[i]) <= tol * (1 + fabs(R[i])), "gemm %d: %g vs %g", i, C[i], R[i]);

    /* syrk (lower): C = A·Aᵀ on the M×M lower triangle */
    double S[M * M], AT[M * K];
    gala_buffer *bS = tu_upload(ctx, dt, (double[M * M]){0}, M * M);
    TU_OK(ctx, b3->syrk(ctx, dt, GALA_LOWER, GALA_NO_TRANS, M, K, 1, bA, OFF, M, 0, bS, 0, M));
    tu_download(bS, 0, S, M * M);
    for (int i = 0; i < M; ++i)
        for (int l = 0; l < K; ++l) AT[l + i * K] = A[OFF + i + l * M];
    for (int j = 0; j < M; ++j)
        for (int i = j; i < M; ++i) {
            double s = 0;
            for (int l = 0; l < K; ++l) s += A[OFF + i + l * M] * AT[l + j * K];
            ck_assert_msg(fabs(S[i + j * M] - s) <= tol * (1 + fabs(s)), "syrk (%d,%d)", i, j);
        }

    /* trsm: solve L·X = B with L = lower triangle of S + M·I (well conditioned) */
    for (int i = 0; i < M; ++i) S[i + i * M] += M;
    double X[M * NN], Bm[M * NN];
    for (int i = 0; i < M * NN; ++i) Bm[i] = tu_normal(&r);
    tu_round(dt, S, M * M);
    tu_round(dt, Bm, M * NN);
    gala_buffer *bL = tu_upload(ctx, dt, S, M * M), *bX = tu_upload(ctx, dt, Bm, M * NN);
    TU_OK(ctx, b3->trsm(ctx, dt, GALA_LEFT, GALA_LOWER, GALA_NO_TRANS, GALA_NON_UNIT, M, NN, 2, bL,
                        0, M, bX, 0, M));
    tu_download(bX, 0, X, M * NN);
    for (int j = 0; j < NN; ++j)
        for (int i = 0; i < M; ++i) { /* (L·X)(i,j) = 2·B(i,j) */
            double s = 0;
            for (int l = 0; l <= i; ++l) s += S[i + l * M] * X[l + j * M];
            ck_assert_msg(fabs(s - 2 * Bm[i + j * M]) <= 100 * tol * (1 + fabs(s)), "trsm (%d,%d)", i, j);
        }
    ck_assert_int_eq(b3->gemm(ctx, GALA_INT, GALA_NO_TRANS, GALA_NO_TRANS, 1, 1, 1, 1, bA, 0, 1, bA,
                              0, 1, 0, bC, 0, 1), GALA_ERR_INVALID_ARG);
    gala_context_destroy(ctx);
}
END_TEST

START_TEST(gpu_launches_are_checked_against_the_kernel)
{
    gala_context *ctx = gpu_or_skip(__func__);
    if (!ctx) return;
    gala_program_key key;
    gala_key_init(&key, "vec", GALA_DOUBLE);
    gala_key_def(&key, "WG", 256);
    gala_kernel *k;
    TU_OK(ctx, gala_kernel_get(ctx, &key, "axpby", &k));
    gala_buffer *x;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_DOUBLE, 8, &x));
    gala_dims d = gala_dims_1d(8, 64);
    /* right: (n, total, alpha, x, xo, xs, beta, y, yo, ys) */
    TU_OK(ctx, GALA_LAUNCH(ctx, k, &d, ga_int(8), ga_long(8), ga_real(1), ga_buf(x), ga_long(0),
                           ga_long(8), ga_real(0), ga_buf(x), ga_long(0), ga_long(8)));
    gala_status s = GALA_LAUNCH(ctx, k, &d, ga_int(8), ga_long(8), ga_real(1), ga_buf(x));
    gala_status s2 = GALA_LAUNCH(ctx, k, &d, ga_int(8), ga_int(8), ga_real(1), ga_buf(x), ga_long(0),
                                 ga_long(8), ga_real(0), ga_buf(x), ga_long(0), ga_long(8));
    if (s == GALA_OK && s2 == GALA_OK) {
        fprintf(stderr, "%s: this driver cannot report kernel parameters (cuFuncGetParamInfo)\n",
                __func__);
    } else {
        ck_assert_int_eq(s, GALA_ERR_INTERNAL);
        ck_assert_int_eq(s2, GALA_ERR_INTERNAL);
        ck_assert_msg(strstr(gala_last_error(ctx), "argument 1"), "%s", gala_last_error(ctx));
    }
    TU_OK(ctx, gala_finish(ctx));
    gala_context_destroy(ctx);
}
END_TEST

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n > 0) self_path[n] = '\0';
    if (argc > 2 && strcmp(argv[1], "--driver-child") == 0) return driver_child(argv[2]);
    Suite *s = suite_create("cuda");
    TCase *tc = tcase_create("cuda");
    tcase_add_test(tc, no_gpu_is_reported_cleanly);
    tcase_add_test(tc, device_list_works);
    tcase_add_test(tc, driver_symbols_exist_and_stub_is_no_device);
    tcase_add_test(tc, cublas_loads);
    tcase_add_test(tc, gpu_native_stream_and_wrapped_pointers);
    tcase_add_test(tc, gpu_fills);
    tcase_add_loop_test(tc, gpu_blas3_through_cublas, 0, 2);
    tcase_add_test(tc, gpu_launches_are_checked_against_the_kernel);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
