/*
 * Kernel fallbacks (issue 39): when the device's compiler fails to build a program (a
 * vendor compiler's bug, e.g. clang-15 for gfx1100 crashing on potrf_pair in double), the
 * routine uses another form of the same computation, reports it (gala_context_fallbacks,
 * gala-info) and the kernel cache remembers the failure, so that the next context on the
 * device does not build it again. The failures are simulated with GALA_FAULT_BUILD_MATCH (a
 * build of a matching program fails as a compiler's failure would) on the host backend, in
 * double; results are checked against a Cholesky factor computed here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kernel.h" /* gala_dry_begin: the QP setup's dry pass */
#include "testutil.h"

enum { B = 3 };

/* SPD matrices from the seed: A = M·Mᵀ/n + I. */
static void spd(tu_rng *r, int n, double *a)
{
    double *m = malloc(sizeof(double) * (size_t)n * n);
    ck_assert(m != NULL);
    for (int i = 0; i < n * n; ++i) m[i] = tu_normal(r);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double s = i == j ? 1 : 0;
            for (int k = 0; k < n; ++k) s += m[i + k * n] * m[j + k * n] / n;
            a[i + (size_t)j * n] = s;
        }
    free(m);
}

/* Lower Cholesky factor in place (column-major), upper triangle left alone. */
static void chol(int n, double *a)
{
    for (int j = 0; j < n; ++j) {
        double d = a[j + j * n];
        for (int k = 0; k < j; ++k) d -= a[j + k * n] * a[j + k * n];
        d = sqrt(d);
        a[j + j * n] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = a[i + j * n];
            for (int k = 0; k < j; ++k) s -= a[i + k * n] * a[j + k * n];
            a[i + j * n] = s / d;
        }
    }
}

static char cache_dir[256];

static gala_context *fresh_ctx(const char *match, const char *tune)
{
    setenv("GALA_CACHE_DIR", cache_dir, 1);
    if (match) setenv("GALA_FAULT_BUILD_MATCH", match, 1);
    else unsetenv("GALA_FAULT_BUILD_MATCH");
    if (tune) setenv("GALA_TUNE", tune, 1);
    else unsetenv("GALA_TUNE");
    return tu_host_ctx(1);
}

static void env_clear(void)
{
    unsetenv("GALA_FAULT_BUILD_MATCH");
    unsetenv("GALA_TUNE");
}

/* potrf_batched of order n on ctx: the factor checked against chol(); returns the
 * context's fallback lines in text. */
static void potrf_checked(gala_context *ctx, int n, const char *what, char *text, size_t cap,
                          int *count)
{
    gala_device_info di;
    TU_OK(ctx, gala_context_info(ctx, &di));
    const gala_dtype dt = di.fp64 ? GALA_DOUBLE : GALA_FLOAT;
    tu_rng r = tu_rng_for(what, 0);
    const size_t nn = (size_t)n * n;
    double *a = malloc(sizeof(double) * nn * B), *want = malloc(sizeof(double) * nn * B),
           *got = malloc(sizeof(double) * nn * B);
    ck_assert(a && want && got);
    for (int b = 0; b < B; ++b) spd(&r, n, a + b * nn);
    memcpy(want, a, sizeof(double) * nn * B);
    for (int b = 0; b < B; ++b) chol(n, want + b * nn);
    gala_buffer *A = tu_upload(ctx, dt, a, nn * B);
    int info[B] = {-1, -1, -1};
    TU_OK(ctx, gala_potrf_batched(ctx, GALA_LOWER, n, A, 0, n, nn, B, info));
    tu_download(A, 0, got, nn * B);
    double err = 0;
    for (int b = 0; b < B; ++b) {
        ck_assert_int_eq(info[b], 0);
        for (int j = 0; j < n; ++j)
            for (int i = j; i < n; ++i)
                err = fmax(err, fabs(got[b * nn + i + j * n] - want[b * nn + i + j * n]));
    }
    ck_assert_msg(err < (dt == GALA_DOUBLE ? 1e-11 : 1e-4), "%s: potrf n = %d differs from the reference by %g "
                  "[GALA_TEST_SEED=%llu]", what, n, err, (unsigned long long)tu_seed());
    gala_buffer_free(A);
    TU_OK(ctx, gala_context_fallbacks(ctx, text, cap, count));
    free(a); free(want); free(got);
}

/* potrf_pair fails to build: potrf_panel factors the launch, the fallback is reported, and
 * a second context without the simulated failure does not build potrf_pair again (the
 * kernel cache remembers); with a new cache folder it builds and uses potrf_pair. */
START_TEST(pair_falls_back_and_is_remembered)
{
    char text[2048];
    int count = -1;
    gala_context *ctx = fresh_ctx("|PAIR=1", "potrf.pair=32");
    potrf_checked(ctx, 32, "pair", text, sizeof text, &count);
    ck_assert_msg(count == 1 && strstr(text, "PAIR=1") && strstr(text, "-> potrf_panel"),
                  "fallbacks %d: '%s'", count, text);
    gala_context_destroy(ctx);

    ctx = fresh_ctx(NULL, "potrf.pair=32");
    potrf_checked(ctx, 32, "pair", text, sizeof text, &count);
    ck_assert_msg(count == 1 && strstr(text, "-> potrf_panel"),
                  "the kernel cache did not remember the failed build: fallbacks %d '%s'",
                  count, text);
    ck_assert_msg(strstr(gala_last_error(ctx), "before") != NULL, "last error: %s",
                  gala_last_error(ctx));
    gala_context_destroy(ctx);

    char other[300];
    snprintf(other, sizeof other, "%s/other", cache_dir);
    setenv("GALA_CACHE_DIR", other, 1);
    unsetenv("GALA_FAULT_BUILD_MATCH");
    ctx = tu_host_ctx(1);
    potrf_checked(ctx, 32, "pair", text, sizeof text, &count);
    ck_assert_msg(count == 0 && text[0] == '\0', "fallback without a failure: '%s'", text);
    gala_context_destroy(ctx);
    env_clear();
}
END_TEST

/* potrf_panel of register rows 16 fails (clang-15 for gfx1100 in double): rows of 32. */
START_TEST(panel_falls_back_to_longer_rows)
{
    char text[2048];
    int count = -1;
    gala_context *ctx = fresh_ctx("potrf|double|N=16|", NULL);
    potrf_checked(ctx, 13, "panel16", text, sizeof text, &count);
    ck_assert_msg(count == 1 && strstr(text, "N=16") && strstr(text, "-> potrf_panel N=32"),
                  "fallbacks %d: '%s'", count, text);
    gala_context_destroy(ctx);
    env_clear();
}
END_TEST

/* potri's LAUUM of blocks of 64 fails (clang-15 for gfx1100): blocks of 32. The inverse is
 * checked as A·A⁻¹ = I. */
START_TEST(potri_falls_back_to_smaller_blocks)
{
    const int n = 50;
    const size_t nn = (size_t)n * n;
    gala_context *ctx = fresh_ctx("potri|double|N=64|", NULL);
    tu_rng r = tu_rng_for("potri", 0);
    double *a = malloc(sizeof(double) * nn), *inv = malloc(sizeof(double) * nn);
    ck_assert(a && inv);
    spd(&r, n, a);
    gala_buffer *A = tu_upload(ctx, GALA_DOUBLE, a, nn);
    int info = -1;
    TU_OK(ctx, gala_potrf_batched(ctx, GALA_LOWER, n, A, 0, n, nn, 1, &info));
    ck_assert_int_eq(info, 0);
    TU_OK(ctx, gala_potri_batched(ctx, GALA_LOWER, n, A, 0, n, nn, 1, &info));
    ck_assert_int_eq(info, 0);
    tu_download(A, 0, inv, nn);
    double err = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k) {
                const double v = k >= j ? inv[k + j * n] : inv[j + k * n]; /* lower stored */
                s += a[i + k * n] * v;
            }
            err = fmax(err, fabs(s - (i == j)));
        }
    ck_assert_msg(err < 1e-9, "A·A⁻¹ differs from I by %g [GALA_TEST_SEED=%llu]", err,
                  (unsigned long long)tu_seed());
    char text[2048];
    int count = -1;
    TU_OK(ctx, gala_context_fallbacks(ctx, text, sizeof text, &count));
    ck_assert_msg(count == 1 && strstr(text, "N=64") && strstr(text, "blocks of 32"),
                  "fallbacks %d: '%s'", count, text);
    gala_buffer_free(A);
    gala_context_destroy(ctx);
    free(a); free(inv);
    env_clear();
}
END_TEST

/* The same on a compiling backend (OpenCL), with potrf's programs queued on build threads by
 * a dry pass, as the QP setup queues them (docs/design.md, "The first call"): the rejection
 * of potrf_pair on a build thread is remembered and reported as a direct build's, so the
 * real call falls back to potrf_panel the same way, and a second context's threads do not
 * build it again. Skipped without an OpenCL device. */
START_TEST(prefetched_rejection_falls_back_the_same_way)
{
    int t = -1;
    for (int i = 0; i < tu_target_count() && t < 0; ++i)
        if (tu_target_get(i)->backend == GALA_BACKEND_OPENCL) t = i;
    if (t < 0) {
        printf("prefetched_rejection_falls_back_the_same_way: skipped, no OpenCL device\n");
        return;
    }
    setenv("GALA_BUILD_THREADS", "2", 1);
    for (int round = 0; round < 2; ++round) {
        setenv("GALA_CACHE_DIR", cache_dir, 1);
        setenv("GALA_FAULT_BUILD_MATCH", "|PAIR=1", 1);
        setenv("GALA_TUNE", "potrf.pair=32", 1);
        if (round == 1) unsetenv("GALA_FAULT_BUILD_MATCH"); /* remembered, not simulated */
        gala_context_options o;
        gala_context_options_default(&o);
        o.backend = GALA_BACKEND_OPENCL;
        gala_context *ctx = NULL;
        TU_OK(NULL, gala_context_create(&o, &ctx));
        gala_device_info di;
        TU_OK(ctx, gala_context_info(ctx, &di));
        const gala_dtype dt = di.fp64 ? GALA_DOUBLE : GALA_FLOAT;
        const size_t nn = 32 * 32;
        gala_buffer *A = NULL;
        TU_OK(ctx, gala_buffer_create(ctx, dt, nn * B, &A));
        int info[B];
        ck_assert_int_eq(gala_dry_begin(ctx), 1);
        (void)gala_potrf_batched(ctx, GALA_LOWER, 32, A, 0, 32, nn, B, info);
        gala_dry_end(ctx);
        gala_buffer_free(A);
        char text[2048];
        int count = -1;
        potrf_checked(ctx, 32, "pair", text, sizeof text, &count);
        ck_assert_msg(count == 1 && strstr(text, "PAIR=1") && strstr(text, "-> potrf_panel"),
                      "round %d: fallbacks %d: '%s'", round, count, text);
        if (round == 1)
            ck_assert_msg(strstr(gala_last_error(ctx), "before") != NULL,
                          "built again on a build thread: last error %s", gala_last_error(ctx));
        gala_context_destroy(ctx);
    }
    unsetenv("GALA_BUILD_THREADS");
    env_clear();
}
END_TEST

START_TEST(fallbacks_bad_arguments)
{
    gala_context *ctx = tu_host_ctx(0);
    char text[8];
    ck_assert_int_eq(gala_context_fallbacks(NULL, text, sizeof text, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_context_fallbacks(ctx, NULL, 8, NULL), GALA_ERR_INVALID_ARG);
    ck_assert(strstr(gala_last_error(ctx), "text") != NULL);
    ck_assert_int_eq(gala_context_fallbacks(ctx, text, 0, NULL), GALA_ERR_INVALID_ARG);
    gala_context_destroy(ctx);
}
END_TEST

int main(void)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/gala-test-fallback-%d", (int)getpid());
    tu_rm_tree(cache_dir);
    Suite *s = suite_create("fallback");
    TCase *tc = tcase_create("fallback");
    tcase_add_test(tc, pair_falls_back_and_is_remembered);
    tcase_add_test(tc, panel_falls_back_to_longer_rows);
    tcase_add_test(tc, potri_falls_back_to_smaller_blocks);
    tcase_add_test(tc, prefetched_rejection_falls_back_the_same_way);
    tcase_add_test(tc, fallbacks_bad_arguments);
    suite_add_tcase(s, tc);
    int rc = tu_run(s);
    tu_rm_tree(cache_dir);
    return rc;
}
