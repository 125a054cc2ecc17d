/* Benchmark helpers (benchutil.h). */
#define _POSIX_C_SOURCE 200809L
#include "benchutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bu_median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bu_date(char *buf, size_t cap)
{
    time_t t = time(NULL);
    struct tm tmv;
    gmtime_r(&t, &tmv);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tmv);
}

gala_context *bu_context(const char *backend, const char *device, int profiling)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.use_environment = 0;
    o.profiling = profiling;
    o.device = device;
    if (!backend || strcmp(backend, "auto") == 0) o.backend = GALA_BACKEND_AUTO;
    else if (strcmp(backend, "opencl") == 0) o.backend = GALA_BACKEND_OPENCL;
    else if (strcmp(backend, "cuda") == 0) o.backend = GALA_BACKEND_CUDA;
    else if (strcmp(backend, "host") == 0) o.backend = GALA_BACKEND_HOST;
    else {
        fprintf(stderr, "unknown backend '%s' (auto, opencl, cuda, host)\n", backend);
        return NULL;
    }
    gala_context *ctx = NULL;
    if (gala_context_create(&o, &ctx) != GALA_OK) {
        fprintf(stderr, "no context on backend %s: %s\n", backend ? backend : "auto",
                gala_last_error(NULL));
        return NULL;
    }
    return ctx;
}

static void sep(bu_json *j, const char *key)
{
    if (j->count[j->depth]++) fputc(',', j->f);
    fputc('\n', j->f);
    for (int i = 0; i <= j->depth; ++i) fputs("  ", j->f);
    if (key) fprintf(j->f, "\"%s\": ", key);
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned char)*s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

void bu_json_begin(bu_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    fputc('{', f);
}

void bu_json_end(bu_json *j)
{
    while (j->depth > 0) bu_json_close(j);
    fputs("\n}\n", j->f);
    fflush(j->f);
}

static void open_nested(bu_json *j, const char *key, char c)
{
    sep(j, key);
    fputc(c, j->f);
    if (j->depth < 15) j->depth++;
    j->count[j->depth] = 0;
    j->kind[j->depth] = c;
}

void bu_json_object(bu_json *j, const char *key) { open_nested(j, key, '{'); }
void bu_json_array(bu_json *j, const char *key) { open_nested(j, key, '['); }

void bu_json_close(bu_json *j)
{
    if (j->depth == 0) return;
    const int had = j->count[j->depth];
    const char c = j->kind[j->depth] == '[' ? ']' : '}';
    j->depth--;
    if (had) {
        fputc('\n', j->f);
        for (int i = 0; i <= j->depth; ++i) fputs("  ", j->f);
    }
    fputc(c, j->f);
}

void bu_json_str(bu_json *j, const char *key, const char *v)
{
    sep(j, key);
    put_string(j->f, v);
}

void bu_json_num(bu_json *j, const char *key, double v)
{
    sep(j, key);
    if (isfinite(v)) fprintf(j->f, "%.6g", v);
    else fputs("null", j->f);
}

void bu_json_int(bu_json *j, const char *key, long long v)
{
    sep(j, key);
    fprintf(j->f, "%lld", v);
}

void bu_json_device(bu_json *j, const char *key, const gala_context *ctx)
{
    gala_device_info in;
    memset(&in, 0, sizeof in);
    gala_context_info(ctx, &in);
    bu_json_object(j, key);
    bu_json_str(j, "backend", in.backend_name);
    bu_json_str(j, "platform", in.platform_name);
    bu_json_str(j, "device", in.device_name);
    bu_json_str(j, "vendor", in.vendor_name);
    bu_json_str(j, "driver", in.driver_version);
    bu_json_int(j, "compute_units", in.compute_units);
    bu_json_close(j);
}
