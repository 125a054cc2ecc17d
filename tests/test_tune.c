/* Tuning values: gala_tune_set / gala_tune_get, the order of precedence (GALA_TUNE, the
 * context's values, the device rows, the defaults), device rows matched on a context's
 * device fields, and a routine run under a set value giving what GALA_TUNE gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "testutil.h"

static char *saved_env;

static void env_save(void)
{
    saved_env = getenv("GALA_TUNE") ? strdup(getenv("GALA_TUNE")) : NULL;
    unsetenv("GALA_TUNE");
}

static void env_restore(void)
{
    if (saved_env) setenv("GALA_TUNE", saved_env, 1);
    free(saved_env);
    saved_env = NULL;
}

static long get(gala_context *ctx, const char *key, gala_dtype dt)
{
    long v = -12345;
    TU_OK(ctx, gala_tune_get(ctx, key, dt, &v));
    return v;
}

START_TEST(set_and_get)
{
    env_save();
    gala_context *ctx = tu_host_ctx(0);
    ck_assert_int_eq(get(ctx, "potrf.nb", GALA_FLOAT), GALA_TUNE_DEFAULT(potrf, nb));
    /* dtype 0: both precisions */
    TU_OK(ctx, gala_tune_set(ctx, "potrf.nb", 0, 32));
    ck_assert_int_eq(get(ctx, "potrf.nb", GALA_FLOAT), 32);
    ck_assert_int_eq(get(ctx, "potrf.nb", GALA_DOUBLE), 32);
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->potrf.nb, 32);
    /* one precision, over the value for both */
    TU_OK(ctx, gala_tune_set(ctx, "potrf.nb", GALA_FLOAT, 16));
    ck_assert_int_eq(gala_tuned(ctx, GALA_FLOAT)->potrf.nb, 16);
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->potrf.nb, 32);
    /* a switch */
    TU_OK(ctx, gala_tune_set(ctx, "potrf.left", GALA_DOUBLE, 0));
    ck_assert(!gala_tuned(ctx, GALA_DOUBLE)->potrf.left);
    ck_assert(gala_tuned(ctx, GALA_FLOAT)->potrf.left);
    /* the other family members keep their defaults; another context is untouched */
    ck_assert_int_eq(gala_tuned(ctx, GALA_FLOAT)->potrf.wg, GALA_TUNE_DEFAULT(potrf, wg));
    gala_context *other = tu_host_ctx(0);
    ck_assert_int_eq(gala_tuned(other, GALA_FLOAT)->potrf.nb, GALA_TUNE_DEFAULT(potrf, nb));
    /* keys with one value per context take dtype 0 */
    TU_OK(ctx, gala_tune_set(ctx, "staging.max_mb", 0, 7));
    ck_assert_int_eq(get(ctx, "staging.max_mb", 0), 7);
    ck_assert_int_eq(gala_tuned(ctx, 0)->staging.max_mb, 7);
    /* a family whose name has a dot */
    TU_OK(ctx, gala_tune_set(ctx, "clblast.xgemm.mwg", GALA_DOUBLE, 128));
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->clblast_xgemm.mwg, 128);
    TU_OK(ctx, gala_context_destroy(other));
    TU_OK(ctx, gala_context_destroy(ctx));
    env_restore();
}
END_TEST

/* The message names what is wrong; nothing changes. */
static void expect_invalid(gala_context *ctx, gala_status s, const char *words)
{
    ck_assert_int_eq(s, GALA_ERR_INVALID_ARG);
    const char *m = gala_last_error(ctx);
    ck_assert_msg(strstr(m, words) != NULL, "message \"%s\" lacks \"%s\"", m, words);
}

START_TEST(bad_arguments)
{
    env_save();
    gala_context *ctx = tu_host_ctx(0);
    long v = 0;
    expect_invalid(ctx, gala_tune_set(ctx, "potrf.nbb", 0, 32), "unknown tuning key \"potrf.nbb\"");
    expect_invalid(ctx, gala_tune_set(ctx, "potrf", 0, 32), "\"potrf\"");
    expect_invalid(ctx, gala_tune_set(ctx, "nb", 0, 32), "\"nb\"");
    expect_invalid(ctx, gala_tune_set(ctx, "xgemm.mwg", 0, 32), "\"xgemm.mwg\"");
    expect_invalid(ctx, gala_tune_get(ctx, "qp.nope", 0, &v), "unknown tuning key \"qp.nope\"");
    expect_invalid(ctx, gala_tune_set(ctx, NULL, 0, 32), "key is NULL");
    /* out of range: the range is in the message */
    expect_invalid(ctx, gala_tune_set(ctx, "potrf.nb", 0, 65), "65 is outside the range of \"potrf.nb\" (8 to 64)");
    expect_invalid(ctx, gala_tune_set(ctx, "potrf.left", GALA_FLOAT, 2), "\"potrf.left\" (0 to 1)");
    expect_invalid(ctx, gala_tune_set(ctx, "qp.rb", GALA_DOUBLE, 0), "0 is outside");
    ck_assert_int_eq(get(ctx, "potrf.nb", 0), GALA_TUNE_DEFAULT(potrf, nb));
    /* dtypes */
    expect_invalid(ctx, gala_tune_set(ctx, "potrf.nb", GALA_INT, 32), "dtype 3");
    expect_invalid(ctx, gala_tune_set(ctx, "potrf.nb", (gala_dtype)9, 32), "dtype 9");
    expect_invalid(ctx, gala_tune_set(ctx, "staging.max_mb", GALA_FLOAT, 1), "one value per context");
    expect_invalid(ctx, gala_tune_get(ctx, "la.vb_memo", GALA_DOUBLE, &v), "one value per context");
    expect_invalid(ctx, gala_tune_get(ctx, "potrf.nb", 0, NULL), "value is NULL");
    /* no context: the thread's message */
    ck_assert_int_eq(gala_tune_set(NULL, "potrf.nb", 0, 32), GALA_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(gala_last_error(NULL), "gala_tune_set"));
    ck_assert_int_eq(gala_tune_get(NULL, "potrf.nb", 0, &v), GALA_ERR_INVALID_ARG);
    TU_OK(ctx, gala_context_destroy(ctx));
    env_restore();
}
END_TEST

/* GALA_TUNE > gala_tune_set > device row > default. */
START_TEST(precedence)
{
    env_save();
    gala_context *ctx = tu_host_ctx(0);
    /* the host backend's row for qp.factor (2) over the default (1) */
    ck_assert_int_eq(GALA_TUNE_DEFAULT(qp, factor), 1);
    ck_assert_int_eq(get(ctx, "qp.factor", GALA_DOUBLE), 2);
    TU_OK(ctx, gala_tune_set(ctx, "qp.factor", 0, 0));
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->qp.factor, 0);
    setenv("GALA_TUNE", "qp.factor=1", 1);
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->qp.factor, 1);
    ck_assert_int_eq(get(ctx, "qp.factor", GALA_FLOAT), 1);
    /* GALA_TUNE's values are not range-checked: the reader clamps them */
    setenv("GALA_TUNE", "qp.factor=1,potrf.nb=1000", 1);
    ck_assert_int_eq(get(ctx, "potrf.nb", GALA_FLOAT), 1000);
    unsetenv("GALA_TUNE");
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->qp.factor, 0);
    ck_assert_int_eq(gala_tuned(ctx, GALA_FLOAT)->potrf.nb, GALA_TUNE_DEFAULT(potrf, nb));
    TU_OK(ctx, gala_context_destroy(ctx));
    env_restore();
}
END_TEST

/* Rows match on backend, vendor or platform, device name ('|': alternatives) and dtype; the
 * most specific wins. The context is told it is another device. */
static void pretend(gala_context *ctx, gala_backend b, const char *platform, const char *vendor,
                    const char *device)
{
    ctx->info.backend = b;
    snprintf(ctx->info.platform_name, sizeof ctx->info.platform_name, "%s", platform);
    snprintf(ctx->info.vendor_name, sizeof ctx->info.vendor_name, "%s", vendor);
    snprintf(ctx->info.device_name, sizeof ctx->info.device_name, "%s", device);
    gala_tune_invalidate(ctx);
}

START_TEST(device_rows)
{
    env_save();
    gala_context *ctx = tu_host_ctx(0);
    const gala_device_info keep = ctx->info;
    pretend(ctx, GALA_BACKEND_OPENCL, "NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H200");
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->potrf.p32_min, 1000); /* device + dtype */
    ck_assert_int_eq(gala_tuned(ctx, GALA_FLOAT)->potrf.p32_min, 0);
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->potrf.pair, 64);      /* device over vendor */
    ck_assert_int_eq(gala_tuned(ctx, GALA_FLOAT)->qp.rb, 1);             /* dtype breaks the tie */
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->qp.rb, 2);
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->clblast_xgemm.mwg, 128);
    ck_assert_int_eq(gala_tuned(ctx, 0)->potrf.pair, 64);                /* no dtype: dtype-free rows */
    ck_assert_int_eq(gala_tuned(ctx, 0)->clblast_xgemm.mwg, 0);
    pretend(ctx, GALA_BACKEND_OPENCL, "NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H100 80GB HBM3");
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->potrf.p32_min, 0);
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->potrf.pair, 64);
    pretend(ctx, GALA_BACKEND_OPENCL, "NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA A100");
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->potrf.pair, 32);
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->clblast_xgemm.mwg, 0);
    pretend(ctx, GALA_BACKEND_CUDA, "CUDA", "NVIDIA", "NVIDIA H200");
    ck_assert_int_eq(gala_tuned(ctx, GALA_DOUBLE)->qp.tile_bytes, 47104);
    ck_assert_int_eq(gala_tuned(ctx, GALA_FLOAT)->qp.tile_bytes, 0);
    ck_assert(gala_tuned(ctx, GALA_FLOAT)->potrf.trsm);
    /* the vendor may be in the platform's name */
    pretend(ctx, GALA_BACKEND_OPENCL, "Portable Computing Language", "GenuineIntel", "cpu");
    ck_assert(!gala_tuned(ctx, GALA_FLOAT)->la.unroll);
    ck_assert_int_eq(gala_tuned(ctx, GALA_FLOAT)->la.min_bucket, 32);
    ck_assert(!gala_tuned(ctx, GALA_FLOAT)->potrf.trsm); /* a backend row */
    /* and what the context is: the host backend */
    ctx->info = keep;
    gala_tune_invalidate(ctx);
    ck_assert(gala_tuned(ctx, GALA_FLOAT)->la.unroll);
    ck_assert_int_eq(gala_tuned(ctx, GALA_FLOAT)->qp.sparse_n, 1024);
    TU_OK(ctx, gala_context_destroy(ctx));
    env_restore();
}
END_TEST

/* A Cholesky factorization on the blocked path under gala_tune_set gives bit for bit what
 * the same values in GALA_TUNE give. */
static void factor(gala_context *ctx, int n, int batch, double *out)
{
    const size_t nn = (size_t)n * n;
    double *a = malloc(sizeof(double) * nn * batch);
    tu_rng r = tu_rng_for("tune_factor", 0);
    for (int b = 0; b < batch; ++b) {
        double *m = a + nn * b;
        for (size_t i = 0; i < nn; ++i) m[i] = 0.1 * tu_uniform(&r);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < i; ++j) m[(size_t)i * n + j] = m[(size_t)j * n + i];
        for (int i = 0; i < n; ++i) m[(size_t)i * n + i] += n;
    }
    gala_buffer *A = tu_upload(ctx, GALA_DOUBLE, a, nn * batch);
    int *info = calloc((size_t)batch, sizeof(int));
    TU_OK(ctx, gala_potrf_batched(ctx, GALA_LOWER, n, A, 0, n, nn, batch, info));
    for (int b = 0; b < batch; ++b) ck_assert_int_eq(info[b], 0);
    tu_download(A, 0, out, nn * batch);
    TU_OK(ctx, gala_buffer_free(A));
    free(info);
    free(a);
}

START_TEST(set_values_drive_the_routines)
{
    env_save();
    const int n = 150, batch = 3;
    const size_t len = (size_t)n * n * batch;
    double *by_env = malloc(sizeof(double) * len), *by_set = malloc(sizeof(double) * len);
    gala_context *ctx = tu_host_ctx(0);
    setenv("GALA_TUNE", "potrf.nb=16,potrf.ob=0,potrf.psolve=0", 1);
    factor(ctx, n, batch, by_env);
    unsetenv("GALA_TUNE");
    TU_OK(ctx, gala_context_destroy(ctx));
    ctx = tu_host_ctx(0);
    TU_OK(ctx, gala_tune_set(ctx, "potrf.nb", GALA_DOUBLE, 16));
    TU_OK(ctx, gala_tune_set(ctx, "potrf.ob", 0, 0));
    TU_OK(ctx, gala_tune_set(ctx, "potrf.psolve", 0, 0));
    factor(ctx, n, batch, by_set);
    ck_assert(memcmp(by_env, by_set, sizeof(double) * len) == 0);
    TU_OK(ctx, gala_context_destroy(ctx));
    free(by_env);
    free(by_set);
    env_restore();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tune");
    TCase *tc = tcase_create("tune");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, set_and_get);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, precedence);
    tcase_add_test(tc, device_rows);
    tcase_add_test(tc, set_values_drive_the_routines);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
