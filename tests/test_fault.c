/* Fault injection in the device layer: a failing allocation, build, launch or transfer
 * gives an error, leaks nothing, and leaves the context usable. */
#include <string.h>

#include "core/internal.h"
#include "testutil.h"

static int axpby_once(gala_context *ctx, gala_dtype dt, gala_status *st)
{
    gala_buffer *x = NULL, *y = NULL;
    double v[32];
    for (int i = 0; i < 32; ++i) v[i] = i;
    *st = gala_buffer_create(ctx, dt, 32, &x);
    if (*st == GALA_OK) *st = gala_buffer_create(ctx, dt, 32, &y);
    if (*st == GALA_OK) *st = gala_buffer_fill(x, 0, 32, 1);
    if (*st == GALA_OK) *st = gala_buffer_fill(y, 0, 32, 2);
    if (*st == GALA_OK) *st = gala_axpby_batched(ctx, 8, 1, x, 0, 8, 1, y, 0, 8, 4);
    if (*st == GALA_OK) {
        double out[32];
        if (dt == GALA_DOUBLE) *st = gala_buffer_read(y, 0, 32, out);
        else {
            float f[32];
            *st = gala_buffer_read(y, 0, 32, f);
            for (int i = 0; i < 32; ++i) out[i] = f[i];
        }
        for (int i = 0; *st == GALA_OK && i < 32; ++i)
            if (out[i] != 3) *st = GALA_ERR_INTERNAL;
    }
    gala_buffer_free(x);
    gala_buffer_free(y);
    (void)v;
    return *st == GALA_OK;
}

START_TEST(each_fault_kind_is_reported_and_recovered)
{
    static const struct { gala_fault_kind kind; gala_status expect; const char *name; } kinds[] = {
        {GALA_FAULT_ALLOC, GALA_ERR_DEVICE_MEMORY, "alloc"},
        {GALA_FAULT_BUILD, GALA_ERR_KERNEL_BUILD, "build"},
        {GALA_FAULT_LAUNCH, GALA_ERR_DEVICE, "launch"},
        {GALA_FAULT_TRANSFER, GALA_ERR_DEVICE, "transfer"},
    };
    gala_dtype dt = tu_target_get(_i)->dtype;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        /* a fresh context, so that the build fault hits a real build */
        gala_context_options o;
        gala_context_options_default(&o);
        o.backend = tu_target_get(_i)->backend;
        gala_context *ctx;
        TU_OK(NULL, gala_context_create(&o, &ctx));
        gala_status st;
        gala_fault_arm(kinds[k].kind, 1);
        ck_assert_msg(!axpby_once(ctx, dt, &st), "%s fault did not fail", kinds[k].name);
        ck_assert_msg(st == kinds[k].expect, "%s fault gave %s", kinds[k].name,
                      gala_status_string(st));
        ck_assert_msg(strstr(gala_last_error(ctx), "injected") != NULL, "%s",
                      gala_last_error(ctx));
        gala_stats s;
        gala_context_stats(ctx, &s);
        ck_assert_int_eq(s.buffers_live, 0);
        ck_assert_msg(axpby_once(ctx, dt, &st), "%s: the next call failed: %s", kinds[k].name,
                      gala_last_error(ctx));
        gala_context_destroy(ctx);
    }
    gala_fault_arm(GALA_FAULT_ALLOC, 0);
}
END_TEST

START_TEST(second_allocation_fails)
{
    gala_context *ctx = tu_ctx(_i);
    gala_dtype dt = tu_target_get(_i)->dtype;
    gala_status st;
    gala_fault_arm(GALA_FAULT_ALLOC, 2); /* x succeeds, y fails: x must be released */
    ck_assert(!axpby_once(ctx, dt, &st));
    ck_assert_int_eq(st, GALA_ERR_DEVICE_MEMORY);
    gala_stats s;
    gala_context_stats(ctx, &s);
    ck_assert_int_eq(s.buffers_live, 0);
    ck_assert(axpby_once(ctx, dt, &st));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fault");
    TCase *tc = tcase_create("fault");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, each_fault_kind_is_reported_and_recovered, 0, nt);
    tcase_add_loop_test(tc, second_allocation_fails, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
