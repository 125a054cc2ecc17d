/*
 * Tuning parameters as data. Each row gives a value for a key on devices that match it:
 * backend (0 = any), a case-insensitive substring of the vendor or platform name and of
 * the device name (NULL = any) and the element type (0 = any). The most specific matching row wins
 * (device name > vendor > backend > any; a dtype match breaks ties). The environment
 * variable GALA_TUNE="key=value,key=value" overrides everything, for experiments.
 *
 * Kernel families add their rows to tuning_table.h.
 */
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
} tune_row;

static const tune_row rows[] = {
#include "tuning_table.h"
};

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

long gala_tune(const gala_context *ctx, const char *key, gala_dtype dtype, long fallback)
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
        if (r->device && !gala_strcasestr_match(ctx->info.device_name, r->device)) continue;
        if (r->dtype && r->dtype != dtype) continue;
        int score = (r->device ? 8 : 0) + (r->vendor ? 4 : 0) + (r->backend ? 2 : 0) + (r->dtype ? 1 : 0);
        if (score > best) { best = score; best_v = r->value; }
    }
    return best_v;
}
