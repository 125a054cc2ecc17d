/*
 * The settings table (include/gala/qp_settings.h): the generated defaults, descriptions,
 * range checks, reading and writing by index, names, and the fixed-at-setup rule of
 * gala_qp_update_settings, on the host backend (the table does not depend on the device).
 */
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The defaults OSQP 1.x documents for the settings the table flags as OSQP's (osqp_api_constants.h,
 * written out here as the independent reference). */
static const struct {
    const char *name;
    double value;
} osqp_defaults[] = {
    {"warm_starting", 1}, {"scaling", 10}, {"polishing", 0}, {"rho", 0.1}, {"rho_is_vec", 1},
    {"sigma", 1e-6}, {"alpha", 1.6}, {"cg_max_iter", 20}, {"cg_tol_reduction", 10},
    {"cg_tol_fraction", 0.15}, {"adaptive_rho", 1}, {"adaptive_rho_interval", 50},
    {"adaptive_rho_fraction", 0.4}, {"adaptive_rho_tolerance", 5}, {"max_iter", 4000},
    {"eps_abs", 1e-3}, {"eps_rel", 1e-3}, {"eps_prim_inf", 1e-4}, {"eps_dual_inf", 1e-4},
    {"scaled_termination", 0}, {"check_termination", 25}, {"time_limit", 1e10}, {"delta", 1e-6},
    {"polish_refine_iter", 3},
};

START_TEST(defaults_and_descriptions)
{
    gala_qp_settings s;
    memset(&s, 0x5a, sizeof s);
    gala_qp_settings_default(&s);
    const int n = gala_qp_settings_count();
    ck_assert_int_ge(n, 30);
    for (int i = 0; i < n; ++i) {
        const gala_qp_setting_desc *d = NULL;
        TU_OK(NULL, gala_qp_settings_field(i, &d));
        ck_assert_msg(d && d->name && d->help && d->help[0], "row %d", i);
        double v = NAN;
        TU_OK(NULL, gala_qp_settings_get(&s, i, &v));
        ck_assert_msg(v == d->def, "%s: default %g, table %g", d->name, v, d->def);
        int j = -1;
        TU_OK(NULL, gala_qp_settings_find(d->name, &j));
        ck_assert_int_eq(j, i);
        if (d->cli) {
            TU_OK(NULL, gala_qp_settings_find(d->cli, &j));
            ck_assert_int_eq(j, i);
        }
        ck_assert_msg((d->kind == GALA_QP_SETTING_ENUM) == (d->nchoices > 0), "%s: choices", d->name);
        for (int c = 0; c < d->nchoices; ++c) {
            const char *w = gala_qp_setting_choice(i, (int)d->lo + c);
            ck_assert_msg(w && w[0], "%s: no word for %d", d->name, (int)d->lo + c);
        }
        if (d->kind == GALA_QP_SETTING_ENUM) /* one past the last word has none */
            ck_assert_ptr_null(gala_qp_setting_choice(i, (int)d->hi + 1));
        else /* a number's row has no words at all */
            ck_assert_ptr_null(gala_qp_setting_choice(i, (int)d->lo));
        /* the offset the table reports is the field's */
        if (d->kind == GALA_QP_SETTING_REAL)
            ck_assert_msg(*(const double *)((const char *)&s + d->offset) == v, "%s: offset", d->name);
        else
            ck_assert_msg(*(const int *)((const char *)&s + d->offset) == (int)v, "%s: offset", d->name);
    }
    TU_OK(NULL, gala_qp_settings_check(&s)); /* every default inside its own range */
    ck_assert_ptr_null(s.progress);
    ck_assert_ptr_null(s.progress_user);
    /* OSQP's defaults, independently */
    for (size_t k = 0; k < sizeof osqp_defaults / sizeof osqp_defaults[0]; ++k) {
        int i = -1;
        const gala_qp_setting_desc *d;
        TU_OK(NULL, gala_qp_settings_find(osqp_defaults[k].name, &i));
        TU_OK(NULL, gala_qp_settings_field(i, &d));
        ck_assert_msg(d->flags & GALA_QP_SETTING_OSQP, "%s is OSQP's", d->name);
        ck_assert_msg(d->def == osqp_defaults[k].value, "%s: %g, OSQP %g", d->name, d->def,
                      osqp_defaults[k].value);
    }
    /* names */
    ck_assert_str_eq(gala_qp_linsys_name(GALA_QP_LINSYS_DENSE_SHARED), "dense-shared");
    ck_assert_str_eq(gala_qp_linsys_name(GALA_QP_LINSYS_SPARSE_LDLT), "sparse-ldlt");
    ck_assert_str_eq(gala_qp_linsys_name(GALA_QP_LINSYS_PCG), "pcg");
    ck_assert_str_eq(gala_qp_linsys_name(99), "unknown");
    int i = -1;
    TU_OK(NULL, gala_qp_settings_find("eps-abs", &i)); /* an option's spelling */
    TU_OK(NULL, gala_qp_settings_find("precision", &i));
    ck_assert_str_eq(gala_qp_setting_choice(i, GALA_FLOAT), "float");
    ck_assert_int_eq(gala_qp_settings_find("no_such_setting", &i), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(NULL), "'no_such_setting' is not a setting"), "%s",
                  gala_last_error(NULL));
    const gala_qp_setting_desc *d;
    ck_assert_int_eq(gala_qp_settings_field(n, &d), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_settings_field(-1, &d), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_settings_field(0, NULL), GALA_ERR_INVALID_ARG);
}
END_TEST

/* Every row's range, at and around its ends: set accepts what check accepts, refuses the
 * rest with a message naming the setting, and leaves the struct unchanged then. */
START_TEST(ranges)
{
    const int n = gala_qp_settings_count();
    gala_qp_settings def;
    gala_qp_settings_default(&def);
    for (int i = 0; i < n; ++i) {
        const gala_qp_setting_desc *d;
        TU_OK(NULL, gala_qp_settings_field(i, &d));
        const int integral = d->kind != GALA_QP_SETTING_REAL;
        const double step = integral ? 1 : fmax(1e-9, fabs(d->lo) * 1e-9);
        struct {
            double v;
            int ok;
        } cases[] = {
            {d->lo, !(d->flags & GALA_QP_SETTING_LO_OPEN)},
            {d->lo - step, 0},
            {d->lo + step, d->lo + step < d->hi || (d->lo + step == d->hi && !(d->flags & GALA_QP_SETTING_HI_OPEN))},
            {d->hi, !(d->flags & GALA_QP_SETTING_HI_OPEN) && !(integral && isinf(d->hi))},
            {NAN, 0},
            {integral ? d->lo + 0.5 : d->def, !integral},
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            if (isinf(cases[c].v) && integral) continue;
            gala_qp_settings s = def;
            gala_status st = gala_qp_settings_set(&s, i, cases[c].v);
            ck_assert_msg((st == GALA_OK) == cases[c].ok, "%s = %g: set gave %s, expected %s",
                          d->name, cases[c].v, gala_status_string(st), cases[c].ok ? "OK" : "an error");
            if (st == GALA_OK) {
                double back;
                TU_OK(NULL, gala_qp_settings_get(&s, i, &back));
                ck_assert_msg(back == cases[c].v, "%s: wrote %g, read %g", d->name, cases[c].v, back);
                TU_OK(NULL, gala_qp_settings_check(&s));
            } else {
                ck_assert_msg(strstr(gala_last_error(NULL), d->name), "%s: message '%s'", d->name,
                              gala_last_error(NULL));
                ck_assert_msg(!memcmp(&s, &def, sizeof s), "%s: a refused set changed the struct", d->name);
            }
        }
    }
    /* the check of a whole struct names the field; the message keeps its old form */
    gala_qp_settings s = def;
    s.alpha = 2;
    ck_assert_int_eq(gala_qp_settings_check(&s), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(NULL), "alpha = 2 must be in (0, 2)"), "%s", gala_last_error(NULL));
    s = def;
    s.linsys_solver = 7;
    ck_assert_int_eq(gala_qp_settings_check(&s), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(NULL), "1 (dense)"), "%s", gala_last_error(NULL));
    s = def;
    s.dtype = GALA_INT;
    ck_assert_int_eq(gala_qp_settings_check(&s), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_settings_set(NULL, 0, 1), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_settings_set(&s, gala_qp_settings_count(), 1), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_settings_check(NULL), GALA_ERR_INVALID_ARG);
}
END_TEST

/* gala_qp_update_settings: every FIXED row refuses a change (the solver's settings stay),
 * every other row takes one, and setup refuses a struct that check refuses. */
START_TEST(fixed_after_setup)
{
    gala_context *ctx = tu_host_ctx(0);
    gala_qp_problem p;
    TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_RANDOM, 4, tu_seed() & 0xffff, &p));
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.polishing = 1; /* so that polishing may change too */
    gala_qp_solver *sv = NULL;
    TU_OK(ctx, gala_qp_setup(ctx, &p, 1, &s, &sv));
    for (int i = 0; i < gala_qp_settings_count(); ++i) {
        const gala_qp_setting_desc *d;
        TU_OK(NULL, gala_qp_settings_field(i, &d));
        gala_qp_settings now;
        TU_OK(ctx, gala_qp_get_settings(sv, &now));
        double v;
        TU_OK(NULL, gala_qp_settings_get(&now, i, &v));
        /* another valid value: the next one up, or down at the top of the range (a real of
         * 0, as device_mem_limit's "automatic", goes to 1) */
        double w = d->kind == GALA_QP_SETTING_REAL ? (v != 0 ? v * 1.5 : 1) : v + 1;
        if (gala_qp_settings_set(&now, i, w) != GALA_OK) {
            w = d->kind == GALA_QP_SETTING_REAL ? v * 0.75 : v - 1;
            TU_OK(NULL, gala_qp_settings_set(&now, i, w));
        }
        gala_status st = gala_qp_update_settings(sv, &now);
        gala_qp_settings after;
        TU_OK(ctx, gala_qp_get_settings(sv, &after));
        double got;
        TU_OK(NULL, gala_qp_settings_get(&after, i, &got));
        if (d->flags & GALA_QP_SETTING_FIXED) {
            ck_assert_msg(st == GALA_ERR_INVALID_ARG && got == v, "%s is fixed: %s, now %g", d->name,
                          gala_status_string(st), got);
            ck_assert_msg(strstr(gala_last_error(ctx), "is fixed at setup"), "%s", gala_last_error(ctx));
        } else {
            ck_assert_msg(st == GALA_OK && got == w, "%s may change: %s (%s)", d->name,
                          gala_status_string(st), gala_last_error(ctx));
            TU_OK(NULL, gala_qp_settings_set(&after, i, v)); /* back */
            TU_OK(ctx, gala_qp_update_settings(sv, &after));
        }
    }
    TU_OK(ctx, gala_qp_solve(sv));
    gala_qp_destroy(sv);
    s.cg_tol_fraction = 0;
    ck_assert_int_eq(gala_qp_setup(ctx, &p, 1, &s, &sv), GALA_ERR_INVALID_ARG);
    ck_assert_ptr_null(sv);
    ck_assert_msg(strstr(gala_last_error(ctx), "gala_qp_setup: cg_tol_fraction = 0 must be in (0, 1]"),
                  "%s", gala_last_error(ctx));
    gala_qp_problem_free(&p);
    gala_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qp_settings");
    TCase *tc = tcase_create("qp_settings");
    tcase_add_test(tc, defaults_and_descriptions);
    tcase_add_test(tc, ranges);
    tcase_add_test(tc, fixed_after_setup);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
