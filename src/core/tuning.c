/*
 * Tuning values as typed data. Each key is declared once, with its default, in
 * tuning_keys.h; a device's own values are rows of tuning_table.h. The value of a key for
 * a context and a precision is, in order of precedence:
 *   1. GALA_TUNE="key=value,key=value" (the first well-formed value of the key; for
 *      experiments, every context of the process),
 *   2. the context's gala_tune_set() value (for that precision, or for any),
 *   3. the most specific matching row of tuning_table.h: a device substring beats a
 *      vendor or platform substring (or a property the device reports, "@cpu") beats a
 *      backend; a dtype match breaks ties; between rows of the same specificity, the first,
 *   4. the key's default.
 *
 * A context resolves every key at once for a precision, at the first read, into the
 * family structs of gala_tuning (one pass over the rows), and keeps them until GALA_TUNE
 * changes (tests and sweeps set it between calls) or gala_tune_set() is called. A read is
 * then one getenv and a string comparison: a launch used to look a dozen keys up by name,
 * which was three quarters of a small batched call's host time before the per-key memo
 * this replaces (callgrind, gala_potrf_batched_async at n = 8).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ------------------------------------------------------------------ the keys */

typedef struct tune_key {
    int fam;
    const char *name; /* within the family */
    long def, lo, hi;
    unsigned char per_dtype; /* 0: one value per context (GALA_TUNE_KEY_CTX) */
} tune_key;

static const char *const fam_prefix[GALA_TUNE_FAMILIES] = {
#define GALA_TUNE_FAMILY(fam, prefix, doc) [GALA_TF_##fam] = prefix,
#include "tuning_expand.h"
};

static const tune_key keys[GALA_TUNE_KEYS] = {
#define GALA_TUNE_KEY(fam, name, type, def, lo, hi, doc)                                   \
    [GALA_TK_##fam##_##name] = {GALA_TF_##fam, #name, (def), (lo), (hi), 1},
#define GALA_TUNE_KEY_CTX(fam, name, type, def, lo, hi, doc)                               \
    [GALA_TK_##fam##_##name] = {GALA_TF_##fam, #name, (def), (lo), (hi), 0},
#include "tuning_expand.h"
};

/* The resolved numbers into the family structs, each field of its key's type. */
static void store(gala_tuning *t, const long *v)
{
#define GALA_TUNE_KEY(fam, name, type, def, lo, hi, doc)                                   \
    t->fam.name = (type)v[GALA_TK_##fam##_##name];
#include "tuning_expand.h"
}

/* The key named "prefix.name", or -1. */
static int key_find(const char *s)
{
    if (!s) return -1;
    for (int i = 0; i < GALA_TUNE_KEYS; ++i) {
        const char *p = fam_prefix[keys[i].fam];
        const size_t pl = strlen(p);
        if (strncmp(s, p, pl) == 0 && s[pl] == '.' && strcmp(s + pl + 1, keys[i].name) == 0)
            return i;
    }
    return -1;
}

/* ------------------------------------------------------------------ the rows */

typedef struct tune_row {
    int key;
    gala_backend backend;
    const char *vendor;
    const char *device;
    gala_dtype dtype;
    long value;
} tune_row;

#define TB_ANY 0
#define TB_OPENCL GALA_BACKEND_OPENCL
#define TB_CUDA GALA_BACKEND_CUDA
#define TB_HOST GALA_BACKEND_HOST
#define TD_ANY 0
#define TD_FLOAT GALA_FLOAT
#define TD_DOUBLE GALA_DOUBLE
static const tune_row rows[] = {
#define GALA_TUNE_ROW(fam, name, backend, vendor, device, dtype, value)                    \
    {GALA_TK_##fam##_##name, TB_##backend, vendor, device, TD_##dtype, value},
#include "tuning_table.h"
#undef GALA_TUNE_ROW
};

/* ------------------------------------------------------------------ resolution */

int gala_tune_row(int i, const char **family, const char **key, gala_backend *backend,
                  const char **vendor, const char **device)
{
    if (i < 0 || (size_t)i >= sizeof rows / sizeof rows[0]) return 0;
    *family = fam_prefix[keys[rows[i].key].fam];
    *key = keys[rows[i].key].name;
    *backend = rows[i].backend;
    *vendor = rows[i].vendor;
    *device = rows[i].device;
    return 1;
}

/* Whether the device reports property p of a row ("@cpu": it is not a GPU). */
static int has_property(const gala_context *ctx, const char *p)
{
    if (strcmp(p, "@cpu") == 0) return !ctx->info.is_gpu;
    return 0;
}

/* Whether a row's vendor field matches: a substring of the vendor or platform name, or
 * (starting with '@') a property the device reports. */
static int vendor_match(const gala_context *ctx, const char *v)
{
    if (v[0] == '@') return has_property(ctx, v);
    return gala_strcasestr_match(ctx->info.vendor_name, v) ||
           gala_strcasestr_match(ctx->info.platform_name, v);
}

static int slot_of(gala_dtype dt) { return dt == GALA_FLOAT ? 1 : dt == GALA_DOUBLE ? 2 : 0; }

/* The first well-formed value of key in GALA_TUNE. */
static int env_value(const char *env, const char *key, long *value)
{
    const char *e = env;
    const size_t kl = strlen(key);
    while (e && *e) {
        while (*e == ',' || *e == ' ') ++e;
        if (strncmp(e, key, kl) == 0 && e[kl] == '=') {
            char *end;
            long v = strtol(e + kl + 1, &end, 10);
            if (end != e + kl + 1) { *value = v; return 1; }
        }
        e = strchr(e, ',');
    }
    return 0;
}

static void resolve(const gala_context *ctx, gala_tune_cache *c, int slot, const char *env)
{
    static const gala_dtype slot_dtype[GALA_TUNE_SLOTS] = {0, GALA_FLOAT, GALA_DOUBLE};
    const gala_dtype dt = slot_dtype[slot];
    long *v = c->v[slot];
    signed char best[GALA_TUNE_KEYS];
    for (int i = 0; i < GALA_TUNE_KEYS; ++i) {
        v[i] = keys[i].def;
        best[i] = -1;
    }
    for (size_t j = 0; j < sizeof rows / sizeof rows[0]; ++j) {
        const tune_row *r = &rows[j];
        if (r->backend && r->backend != ctx->info.backend) continue;
        if (r->dtype && r->dtype != dt) continue;
        const int score = (r->device ? 8 : 0) + (r->vendor ? 4 : 0) + (r->backend ? 2 : 0) +
                          (r->dtype ? 1 : 0);
        if (score <= best[r->key]) continue;
        if (r->vendor && !vendor_match(ctx, r->vendor)) continue;
        if (r->device && !gala_name_match_any(ctx->info.device_name, r->device)) continue;
        best[r->key] = (signed char)score;
        v[r->key] = r->value;
    }
    for (int i = 0; i < GALA_TUNE_KEYS; ++i)
        if (c->set[slot][i]) v[i] = c->set_v[slot][i];
    if (env) {
        char name[96];
        for (int i = 0; i < GALA_TUNE_KEYS; ++i) {
            snprintf(name, sizeof name, "%s.%s", fam_prefix[keys[i].fam], keys[i].name);
            long x;
            if (env_value(env, name, &x)) v[i] = x;
        }
    }
    store(&c->t[slot], v);
    c->valid[slot] = 1;
}

/* Forget the resolved slots when GALA_TUNE is no longer what they were resolved under.
 * Returns 0 when the new value could not be kept (no memory): the caller resolves anyway
 * and the next read does again. */
static int env_current(gala_tune_cache *c, const char **env)
{
    const char *e = getenv("GALA_TUNE");
    if (e && !*e) e = NULL;
    *env = e;
    if (!e && !c->env) return 1;
    if (e && c->env && strcmp(e, c->env) == 0) return 1;
    gala_free(c->env);
    c->env = NULL;
    memset(c->valid, 0, sizeof c->valid);
    if (!e) return 1;
    size_t n = strlen(e) + 1;
    if (!(c->env = gala_malloc(n))) return 0;
    memcpy(c->env, e, n);
    return 1;
}

const gala_tuning *gala_tuned(const gala_context *ctx, gala_dtype dtype)
{
    /* the resolved values are the context's cache, not its state */
    gala_tune_cache *c = (gala_tune_cache *)&ctx->tune;
    const int slot = slot_of(dtype);
    const char *env;
    if (!env_current(c, &env) || !c->valid[slot]) resolve(ctx, c, slot, env);
    return &c->t[slot];
}

void gala_tune_invalidate(gala_context *ctx) { memset(ctx->tune.valid, 0, sizeof ctx->tune.valid); }

void gala_tune_free(gala_context *ctx)
{
    gala_free(ctx->tune.env);
    ctx->tune.env = NULL;
    memset(ctx->tune.valid, 0, sizeof ctx->tune.valid);
}

/* ------------------------------------------------------------------ public */

static gala_status key_and_slot(const gala_context *ctx, const char *fn, const char *key,
                                gala_dtype dtype, int *k)
{
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (!key) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: key is NULL", fn);
    *k = key_find(key);
    if (*k < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: unknown tuning key \"%s\"", fn, key);
    if (dtype != 0 && dtype != GALA_FLOAT && dtype != GALA_DOUBLE)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "%s: dtype %d for \"%s\" (0 for any precision, GALA_FLOAT or "
                          "GALA_DOUBLE)", fn, (int)dtype, key);
    if (dtype != 0 && !keys[*k].per_dtype)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "%s: \"%s\" has one value per context: pass dtype 0", fn, key);
    return GALA_OK;
}

gala_status gala_tune_set(gala_context *ctx, const char *key, gala_dtype dtype, long value)
{
    int k;
    GALA_TRY(key_and_slot(ctx, "gala_tune_set", key, dtype, &k));
    if (value < keys[k].lo || value > keys[k].hi)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "gala_tune_set: %ld is outside the range of \"%s\" (%ld to %ld)",
                          value, key, keys[k].lo, keys[k].hi);
    gala_tune_cache *c = &ctx->tune;
    for (int s = 0; s < GALA_TUNE_SLOTS; ++s) {
        if (dtype != 0 && s != slot_of(dtype)) continue;
        c->set[s][k] = 1;
        c->set_v[s][k] = value;
    }
    gala_tune_invalidate(ctx);
    return GALA_OK;
}

gala_status gala_tune_get(const gala_context *ctx, const char *key, gala_dtype dtype,
                          long *value)
{
    int k;
    GALA_TRY(key_and_slot(ctx, "gala_tune_get", key, dtype, &k));
    if (!value) return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_tune_get: value is NULL");
    gala_tuned(ctx, dtype);
    *value = ctx->tune.v[slot_of(dtype)][k];
    return GALA_OK;
}
