/*
 * Tuning parameters as data. Each row gives a value for a key on devices that match it:
 * backend (0 = any), a case-insensitive substring of the vendor or platform name and of
 * the device name (NULL = any; the device field may list alternatives, "H100|H200") and
 * the element type (0 = any), and optionally a property the device reports ("cpu": the
 * device is not a GPU; issue 39: never the platform's name standing for one). The most
 * specific matching row wins (device name > vendor or property > backend > any; a dtype
 * match breaks ties). The environment
 * variable GALA_TUNE="key=value,key=value" overrides everything, for experiments.
 *
 * A launch reads a dozen keys, and finding one scans the whole table: each context remembers
 * its answers (by key, dtype and fallback) until GALA_TUNE changes (tests and
 * tuning sweeps set it between calls). Without the memo the lookups were three quarters of
 * a small batched call's host time (callgrind, gala_potrf_batched_async at n = 8).
 *
 * Kernel families add their rows to tuning_table.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct tune_row {
    const char *key;
    gala_backend backend;
    const char *vendor;
    const char *device;
    gala_dtype dtype;
    long value;
    const char *when; /* a property the device reports, NULL = any (see has_property) */
} tune_row;

/* most rows leave `when` out (NULL) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const tune_row rows[] = {
#include "tuning_table.h"
};
#pragma GCC diagnostic pop

int gala_tune_row(int i, const char **key, gala_backend *backend, const char **vendor,
                  const char **device, gala_dtype *dtype, long *value)
{
    if (i < 0 || (size_t)i >= sizeof rows / sizeof rows[0]) return 0;
    const tune_row *r = &rows[i];
    *key = r->key;
    *backend = r->backend;
    *vendor = r->vendor;
    *device = r->device;
    *dtype = r->dtype;
    *value = r->value;
    return 1;
}

static int env_value(const char *key, long *value)
{
    const char *e = getenv("GALA_TUNE");
    size_t kl = strlen(key);
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

/* Whether the device reports property p of a row's `when`. */
static int has_property(const gala_context *ctx, const char *p)
{
    if (strcmp(p, "cpu") == 0) return !ctx->info.is_gpu;
    return 0;
}

static long lookup(const gala_context *ctx, const char *key, gala_dtype dtype, long fallback)
{
    long v;
    if (env_value(key, &v)) return v;
    int best = -1;
    long best_v = fallback;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        const tune_row *r = &rows[i];
        if (strcmp(r->key, key) != 0) continue;
        if (r->backend && r->backend != ctx->info.backend) continue;
        if (r->vendor && !gala_strcasestr_match(ctx->info.vendor_name, r->vendor) &&
            !gala_strcasestr_match(ctx->info.platform_name, r->vendor))
            continue;
        if (r->device && !gala_name_match_any(ctx->info.device_name, r->device)) continue;
        if (r->dtype && r->dtype != dtype) continue;
        if (r->when && !has_property(ctx, r->when)) continue;
        int score = (r->device ? 8 : 0) + (r->vendor || r->when ? 4 : 0) + (r->backend ? 2 : 0) +
                    (r->dtype ? 1 : 0);
        if (score > best) { best = score; best_v = r->value; }
    }
    return best_v;
}

/* The memo stays valid while GALA_TUNE is what it was found under. */
static int memo_current(gala_tune_memo *m)
{
    const char *e = getenv("GALA_TUNE");
    if (e && !*e) e = NULL;
    if (!e && !m->env) return 1;
    if (e && m->env && strcmp(e, m->env) == 0) return 1;
    gala_free(m->env);
    m->env = NULL;
    m->used = 0;
    memset(m->e, 0, sizeof m->e);
    if (!e) return 1;
    size_t n = strlen(e) + 1;
    if (!(m->env = gala_malloc(n))) return 0; /* no memory: answer without the memo */
    memcpy(m->env, e, n);
    return 1;
}

long gala_tune(const gala_context *ctx, const char *key, gala_dtype dtype, long fallback)
{
    /* the memo is the context's cache, not its state: the same answers with or without it */
    gala_tune_memo *m = (gala_tune_memo *)&ctx->tune;
    const size_t kl = strlen(key);
    if (kl >= sizeof m->e[0].key || !memo_current(m)) return lookup(ctx, key, dtype, fallback);
    uint64_t h = gala_fnv1a(key, kl, GALA_FNV_INIT) ^ ((uint64_t)dtype << 40) ^ (uint64_t)fallback;
    h *= 0x9e3779b97f4a7c15ull;
    for (unsigned i = (unsigned)(h >> 56), probe = 0; probe < GALA_TUNE_MEMO; ++probe, ++i) {
        struct gala_tune_memo_entry *x = &m->e[i % GALA_TUNE_MEMO];
        if (!x->key[0]) {
            long v = lookup(ctx, key, dtype, fallback);
            if (m->used < GALA_TUNE_MEMO * 3 / 4) { /* keep probes short */
                memcpy(x->key, key, kl + 1);
                x->dtype = dtype;
                x->fallback = fallback;
                x->value = v;
                m->used++;
            }
            return v;
        }
        if (x->dtype == dtype && x->fallback == fallback && !strcmp(x->key, key)) return x->value;
    }
    return lookup(ctx, key, dtype, fallback);
}

void gala_tune_memo_free(gala_context *ctx)
{
    gala_free(ctx->tune.env);
    memset(&ctx->tune, 0, sizeof ctx->tune);
}
