/* Shared benchmark helpers (benchutil.h). */
#define _POSIX_C_SOURCE 200809L
#include "benchutil.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int bu_parse(int argc, char **argv, bu_opts *o, const char *usage_extra, int *exit_code)
{
    memset(o, 0, sizeof *o);
    o->warmup = 3;
    o->repeats = 20;
    o->dtypes = 3;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--warmup") && v) {
            o->warmup = atoi(v); ++i;
        } else if (!strcmp(a, "--repeats") && v) {
            o->repeats = atoi(v); ++i;
        } else if (!strcmp(a, "--json") && v) {
            o->json = v; ++i;
        } else if (!strcmp(a, "--ref") && v) {
            o->ref = v; ++i;
        } else if (!strcmp(a, "--only") && v) {
            o->only = v; ++i;
        } else if (!strcmp(a, "--dtype") && v) {
            o->dtypes = !strcmp(v, "float") ? 1 : !strcmp(v, "double") ? 2 : 3; ++i;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--dtype float|double|both] [--warmup N] "
                    "[--repeats N] [--json FILE] [--ref FILE] [--only KIND]%s\n"
                    "device: GALA_BACKEND, GALA_PLATFORM, GALA_DEVICE; tuning: GALA_TUNE\n",
                    argv[0], usage_extra ? usage_extra : "");
            *exit_code = strcmp(a, "--help") && strcmp(a, "-h") ? 2 : 0;
            return 0;
        }
    }
    if (o->repeats < 1) o->repeats = 1;
    if (o->warmup < 0) o->warmup = 0;
    return 1;
}

gala_context *bu_context(void)
{
    gala_context_options opts;
    gala_context_options_default(&opts);
    opts.profiling = 1;
    gala_context *ctx = NULL;
    if (gala_context_create(&opts, &ctx) != GALA_OK) {
        fprintf(stderr, "no device: %s\n", gala_last_error(NULL));
        return NULL;
    }
    return ctx;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

bu_stats bu_summarize(double *v, int n)
{
    bu_stats s = {0, 0, 0, 0, n};
    if (n <= 0) return s;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    for (int i = 0; i < n; ++i) s.mean += v[i] / n;
    return s;
}

gala_status bu_time(gala_context *ctx, bu_fn fn, void *arg, int warmup, int repeats, double *ms)
{
    for (int i = 0; i < warmup; ++i) {
        gala_status s = fn(arg);
        if (s != GALA_OK) return s;
    }
    gala_status s = gala_finish(ctx);
    for (int i = 0; i < repeats && s == GALA_OK; ++i) {
        gala_timer *t0 = NULL, *t1 = NULL;
        s = gala_timer_record(ctx, &t0);
        if (s == GALA_OK) s = fn(arg);
        if (s == GALA_OK) s = gala_timer_record(ctx, &t1);
        if (s == GALA_OK) s = gala_timer_elapsed_ms(t0, t1, &ms[i]);
        gala_timer_free(t0);
        gala_timer_free(t1);
    }
    return s;
}

void bu_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void git_commit(char *out, size_t cap)
{
    const char *e = getenv("GALA_GIT_COMMIT");
    snprintf(out, cap, "unknown");
    if (e && *e) {
        snprintf(out, cap, "%s", e);
        return;
    }
    FILE *p = popen("git rev-parse HEAD 2>/dev/null", "r");
    if (!p) return;
    char line[128];
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (*line) snprintf(out, cap, "%s", line);
    }
    pclose(p);
}

void bu_json_env(FILE *f, gala_context *ctx)
{
    gala_device_info info;
    memset(&info, 0, sizeof info);
    gala_context_info(ctx, &info);
    char date[32], commit[128];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    git_commit(commit, sizeof commit);
    fprintf(f, "\"backend\": ");
    bu_json_str(f, info.backend_name);
    fprintf(f, ", \"platform\": ");
    bu_json_str(f, info.platform_name);
    fprintf(f, ", \"device\": ");
    bu_json_str(f, info.device_name);
    fprintf(f, ", \"driver\": ");
    bu_json_str(f, info.driver_version);
    fprintf(f, ", \"date\": ");
    bu_json_str(f, date);
    fprintf(f, ", \"commit\": ");
    bu_json_str(f, commit);
    fprintf(f, ", \"gala_tune\": ");
    bu_json_str(f, getenv("GALA_TUNE") ? getenv("GALA_TUNE") : "");
}

/* ------------------------------------------------------------ reference timings */

typedef struct bu_ref_entry {
    char kind[32], dtype[16];
    int n;
    long batch;
    double ms;
} bu_ref_entry;

struct bu_ref {
    bu_ref_entry *e;
    int count;
    char device[128];
};

/* The value after "key": in a one-line JSON object (numbers or strings). */
static const char *json_field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(line, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ' || *p == ':') ++p;
    return p;
}

static void json_strval(const char *p, char *out, size_t cap)
{
    size_t k = 0;
    if (p && *p == '"')
        for (++p; *p && *p != '"' && k + 1 < cap; ++p) out[k++] = *p;
    out[k] = '\0';
}

bu_ref *bu_ref_load(const char *path)
{
    if (!path) return NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot read reference timings %s\n", path);
        return NULL;
    }
    bu_ref *r = calloc(1, sizeof *r);
    char *line = NULL;
    size_t cap = 0;
    while (r && getline(&line, &cap, f) > 0) {
        const char *dev = json_field(line, "device");
        if (dev && !r->device[0]) json_strval(dev, r->device, sizeof r->device);
        const char *ms = json_field(line, "median_ms"), *n = json_field(line, "n");
        const char *b = json_field(line, "batch"), *k = json_field(line, "kind");
        const char *d = json_field(line, "dtype");
        if (!ms || !n || !b || !k || !d) continue;
        bu_ref_entry *ne = realloc(r->e, (size_t)(r->count + 1) * sizeof *ne);
        if (!ne) break;
        r->e = ne;
        bu_ref_entry *e = &r->e[r->count++];
        json_strval(k, e->kind, sizeof e->kind);
        json_strval(d, e->dtype, sizeof e->dtype);
        e->n = atoi(n);
        e->batch = atol(b);
        e->ms = atof(ms);
    }
    free(line);
    fclose(f);
    return r;
}

double bu_ref_find(const bu_ref *r, const char *kind, int n, long batch, const char *dtype)
{
    for (int i = 0; r && i < r->count; ++i) {
        const bu_ref_entry *e = &r->e[i];
        if (e->n == n && e->batch == batch && !strcmp(e->kind, kind) && !strcmp(e->dtype, dtype))
            return e->ms;
    }
    return -1;
}

const char *bu_ref_device(const bu_ref *r) { return r ? r->device : ""; }

void bu_ref_free(bu_ref *r)
{
    if (!r) return;
    free(r->e);
    free(r);
}
