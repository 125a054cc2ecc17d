/* The QP solver's settings: everything here is generated from the table GALA_QP_SETTINGS
 * (include/gala/qp_settings.h): the defaults, the descriptions, the range checks, the list of
 * settings fixed at setup, and reading and writing a setting by its index. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "qp_internal.h"

/* Each row's index: QS_<name>. */
enum {
#define QS_INDEX_(kind, ctype, name, ...) QS_##name,
    GALA_QP_SETTINGS(QS_INDEX_)
#undef QS_INDEX_
    QS_COUNT
};

/* The rows, and each ENUM row's words (NUL-separated). */
static const gala_qp_setting_desc rows[QS_COUNT] = {
#define QS_ROW_(kind, ctype, name, def, lo, hi, flags, cli, choices, help)                        \
    {#name, (flags) & GALA_QP_SETTING_NO_CLI ? NULL : (cli), GALA_QP_SETTING_##kind, (flags),     \
     offsetof(gala_qp_settings, name), (double)(def), (double)(lo), (double)(hi),                 \
     GALA_QP_SETTING_##kind == GALA_QP_SETTING_ENUM ? (int)((hi) - (lo)) + 1 : 0, help},
    GALA_QP_SETTINGS(QS_ROW_)
#undef QS_ROW_
};
static const char *const words[QS_COUNT] = {
#define QS_WORDS_(kind, ctype, name, def, lo, hi, flags, cli, choices, help) choices,
    GALA_QP_SETTINGS(QS_WORDS_)
#undef QS_WORDS_
};

void gala_qp_settings_default(gala_qp_settings *s)
{
    if (!s) return;
    memset(s, 0, sizeof *s);
#define QS_DEFAULT_(kind, ctype, name, def, ...) s->name = (ctype)(def);
    GALA_QP_SETTINGS(QS_DEFAULT_)
#undef QS_DEFAULT_
}

int gala_qp_settings_count(void) { return QS_COUNT; }

gala_status gala_qp_settings_field(int i, const gala_qp_setting_desc **desc)
{
    if (!desc) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_settings_field: desc is NULL");
    if (i < 0 || i >= QS_COUNT)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_settings_field: i = %d outside "
                          "0..%d", i, QS_COUNT - 1);
    *desc = &rows[i];
    return GALA_OK;
}

/* Whether an option name (with '-') spells a field name (with '_'). */
static int same_dashed(const char *field, const char *opt)
{
    for (; *field && *opt; ++field, ++opt)
        if (*field != *opt && !(*field == '_' && *opt == '-')) return 0;
    return *field == *opt;
}

gala_status gala_qp_settings_find(const char *name, int *index)
{
    static const char fn[] = "gala_qp_settings_find";
    if (!name || !index) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: name or index is NULL", fn);
    for (int i = 0; i < QS_COUNT; ++i)
        if (!strcmp(rows[i].name, name) || (rows[i].cli && !strcmp(rows[i].cli, name)) ||
            same_dashed(rows[i].name, name)) {
            *index = i;
            return GALA_OK;
        }
    return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: '%s' is not a setting (gala_qp_settings_"
                      "field lists them)", fn, name);
}

const char *gala_qp_setting_choice(int i, int value)
{
    if (i < 0 || i >= QS_COUNT || !words[i]) return NULL;
    const int k = value - (int)rows[i].lo;
    if (k < 0 || k >= rows[i].nchoices) return NULL;
    const char *w = words[i];
    for (int j = 0; j < k; ++j) w += strlen(w) + 1;
    return w;
}

const char *gala_qp_linsys_name(int linsys)
{
    const char *w = gala_qp_setting_choice(QS_linsys_solver, linsys);
    return w ? w : "unknown";
}

gala_status gala_qp_settings_get(const gala_qp_settings *s, int i, double *value)
{
    if (!s || !value) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_settings_get: NULL argument");
    switch (i) {
#define QS_GET_(kind, ctype, name, ...) case QS_##name: *value = (double)s->name; return GALA_OK;
        GALA_QP_SETTINGS(QS_GET_)
#undef QS_GET_
    default: break;
    }
    return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_settings_get: i = %d outside 0..%d", i,
                      QS_COUNT - 1);
}

/* The range of row d in words: "in (0, 2)", ">= 1", "0 or 1", "one of auto (0), ...". */
static void range_text(const gala_qp_setting_desc *d, int i, char *buf, size_t cap)
{
    const int lo_open = (d->flags & GALA_QP_SETTING_LO_OPEN) != 0;
    const int hi_open = (d->flags & GALA_QP_SETTING_HI_OPEN) != 0;
    if (d->kind == GALA_QP_SETTING_BOOL) {
        snprintf(buf, cap, "0 or 1");
    } else if (d->kind == GALA_QP_SETTING_ENUM) {
        size_t k = (size_t)snprintf(buf, cap, "one of");
        for (int v = (int)d->lo; v <= (int)d->hi && k < cap; ++v)
            k += (size_t)snprintf(buf + k, cap - k, "%s %d (%s)", v > (int)d->lo ? "," : "", v,
                                  gala_qp_setting_choice(i, v));
    } else if (isinf(d->hi) || (d->kind == GALA_QP_SETTING_INT && d->hi >= INT_MAX)) {
        snprintf(buf, cap, "%s %g%s", lo_open ? ">" : ">=", d->lo,
                 d->kind == GALA_QP_SETTING_INT ? " (an integer)" : "");
    } else if (d->kind == GALA_QP_SETTING_INT) {
        snprintf(buf, cap, "an integer in %g..%g", d->lo, d->hi);
    } else {
        snprintf(buf, cap, "in %s%g, %g%s", lo_open ? "(" : "[", d->lo, d->hi, hi_open ? ")" : "]");
    }
}

/* Check one value against row i; on failure the message is "<fn>: <name> = <v> must be ...". */
static gala_status check_value(const gala_context *ctx, const char *fn, int i, double v)
{
    const gala_qp_setting_desc *d = &rows[i];
    int ok = v >= d->lo && v <= d->hi; /* false for NaN */
    if (ok && (d->flags & GALA_QP_SETTING_LO_OPEN)) ok = v > d->lo;
    if (ok && (d->flags & GALA_QP_SETTING_HI_OPEN)) ok = v < d->hi;
    if (ok && d->kind != GALA_QP_SETTING_REAL) ok = v == floor(v);
    if (ok) return GALA_OK;
    char range[256];
    range_text(d, i, range, sizeof range);
    return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: %s = %g must be %s", fn, d->name, v, range);
}

gala_status gala_qp_settings_set(gala_qp_settings *s, int i, double value)
{
    static const char fn[] = "gala_qp_settings_set";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: settings is NULL", fn);
    if (i < 0 || i >= QS_COUNT)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: i = %d outside 0..%d", fn, i, QS_COUNT - 1);
    GALA_TRY(check_value(NULL, fn, i, value));
    switch (i) {
#define QS_SET_(kind, ctype, name, ...) case QS_##name: s->name = (ctype)value; break;
        GALA_QP_SETTINGS(QS_SET_)
#undef QS_SET_
    default: break;
    }
    return GALA_OK;
}

gala_status gala_qp_settings_validate(const gala_context *ctx, const char *fn,
                                      const gala_qp_settings *s)
{
#define QS_CHECK_(kind, ctype, name, ...) GALA_TRY(check_value(ctx, fn, QS_##name, (double)s->name));
    GALA_QP_SETTINGS(QS_CHECK_)
#undef QS_CHECK_
    return GALA_OK;
}

gala_status gala_qp_settings_check(const gala_qp_settings *s)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_settings_check: settings is NULL");
    return gala_qp_settings_validate(NULL, "gala_qp_settings_check", s);
}

gala_status gala_qp_settings_fixed_kept(const gala_context *ctx, const char *fn,
                                        const gala_qp_settings *was, const gala_qp_settings *now)
{
#define QS_FIXED_(kind, ctype, name, def, lo, hi, flags, ...)                                      \
    if (((flags) & GALA_QP_SETTING_FIXED) && now->name != was->name)                               \
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: %s is fixed at setup (set up a new "     \
                          "solver to change it)", fn, #name);
    GALA_QP_SETTINGS(QS_FIXED_)
#undef QS_FIXED_
    return GALA_OK;
}
