#define _POSIX_C_SOURCE 200809L
#include "benchutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef GALA_GIT_COMMIT
#define GALA_GIT_COMMIT "unknown"
#endif

static void drop(int *argc, char **argv, int i, int k)
{
    for (int j = i; j + k <= *argc; ++j) argv[j] = argv[j + k];
    *argc -= k;
}

gala_context *bu_init(int *argc, char **argv, bu_opts *o)
{
    memset(o, 0, sizeof *o);
    o->reps = 20;
    o->warmup = 3;
    for (int i = 1; i < *argc;) {
        const char *a = argv[i];
        const char **target = NULL;
        int *itarget = NULL;
        if (!strcmp(a, "--backend")) target = &o->backend;
        else if (!strcmp(a, "--platform")) target = &o->platform;
        else if (!strcmp(a, "--device")) target = &o->device;
        else if (!strcmp(a, "--json")) target = &o->json;
        else if (!strcmp(a, "--reps")) itarget = &o->reps;
        else if (!strcmp(a, "--warmup")) itarget = &o->warmup;
        else if (!strcmp(a, "--quick")) { o->quick = 1; drop(argc, argv, i, 1); continue; }
        if ((target || itarget) && i + 1 < *argc) {
            if (target) *target = argv[i + 1];
            else *itarget = atoi(argv[i + 1]);
            drop(argc, argv, i, 2);
            continue;
        }
        ++i;
    }
    if (o->reps < 1) o->reps = 1;
    gala_context_options co;
    gala_context_options_default(&co);
    co.profiling = 1;
    co.platform = o->platform;
    co.device = o->device;
    if (o->backend) {
        if (!strcmp(o->backend, "opencl")) co.backend = GALA_BACKEND_OPENCL;
        else if (!strcmp(o->backend, "cuda")) co.backend = GALA_BACKEND_CUDA;
        else if (!strcmp(o->backend, "host")) co.backend = GALA_BACKEND_HOST;
        co.use_environment = 0;
    }
    gala_context *ctx;
    if (gala_context_create(&co, &ctx) != GALA_OK) {
        fprintf(stderr, "no device: %s\n", gala_last_error(NULL));
        return NULL;
    }
    gala_device_info in;
    gala_context_info(ctx, &in);
    printf("# device: %s / %s / %s (driver %s)\n", in.backend_name, in.platform_name,
           in.device_name, in.driver_version);
    return ctx;
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

gala_status bu_time(gala_context *ctx, bu_fn fn, void *arg, int warmup, int reps, double *ms)
{
    return bu_time_prep(ctx, NULL, fn, arg, warmup, reps, ms);
}

gala_status bu_time_prep(gala_context *ctx, bu_fn prep, bu_fn fn, void *arg, int warmup, int reps,
                         double *ms)
{
    gala_status s;
    for (int i = 0; i < warmup; ++i) {
        if (prep && (s = prep(arg)) != GALA_OK) return s;
        if ((s = fn(arg)) != GALA_OK) return s;
    }
    if ((s = gala_finish(ctx)) != GALA_OK) return s;
    for (int r = 0; r < reps; ++r) {
        gala_timer *t0 = NULL, *t1 = NULL;
        /* every repeat starts on an idle device, with or without prep (the previous
         * repeat waited for its timers) */
        if (prep && ((s = prep(arg)) != GALA_OK || (s = gala_finish(ctx)) != GALA_OK)) return s;
        double w0 = wall();
        int timers = gala_timer_record(ctx, &t0) == GALA_OK;
        if ((s = fn(arg)) != GALA_OK) { gala_timer_free(t0); return s; }
        if (timers && gala_timer_record(ctx, &t1) == GALA_OK &&
            gala_timer_elapsed_ms(t0, t1, &ms[r]) == GALA_OK) {
        } else {
            if ((s = gala_finish(ctx)) != GALA_OK) return s;
            ms[r] = 1e3 * (wall() - w0);
        }
        gala_timer_free(t0);
        gala_timer_free(t1);
    }
    return gala_finish(ctx);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bu_pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    double k = p * (n - 1);
    int lo = (int)floor(k), hi = (int)ceil(k);
    return v[lo] + (k - lo) * (v[hi] - v[lo]);
}

double bu_median(double *v, int n) { return bu_pct(v, n, 0.5); }

typedef struct { gala_buffer *a, *b; size_t n; } copy_arg;
static gala_status do_copy(void *p)
{
    copy_arg *c = p;
    return gala_buffer_copy(c->a, 0, c->b, 0, c->n);
}

double bu_copy_gbs(gala_context *ctx)
{
    static double cached;
    if (cached > 0) return cached;
    gala_device_info in;
    gala_context_info(ctx, &in);
    size_t n = in.is_gpu ? (size_t)1 << 28 : (size_t)1 << 24; /* 1 GiB or 64 MiB of floats */
    copy_arg c = {NULL, NULL, n};
    double ms[10];
    if (gala_buffer_create(ctx, GALA_FLOAT, n, &c.a) == GALA_OK &&
        gala_buffer_create(ctx, GALA_FLOAT, n, &c.b) == GALA_OK &&
        gala_buffer_fill(c.a, 0, n, 1.0) == GALA_OK && bu_time(ctx, do_copy, &c, 2, 10, ms) == GALA_OK)
        cached = 2.0 * 4.0 * (double)n / (bu_median(ms, 10) * 1e6);
    gala_buffer_free(c.a);
    gala_buffer_free(c.b);
    return cached;
}

struct bu_json {
    FILE *f;
    int rows;
};

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 32) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

bu_json *bu_json_open(const char *path, const char *bench, gala_context *ctx)
{
    if (!path) return NULL;
    bu_json *j = calloc(1, sizeof *j);
    if (!j || !(j->f = fopen(path, "w"))) { free(j); return NULL; }
    gala_device_info in;
    gala_context_info(ctx, &in);
    char date[64];
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    fprintf(j->f, "{\"bench\": ");
    json_str(j->f, bench);
    fprintf(j->f, ", \"backend\": ");
    json_str(j->f, in.backend_name);
    fprintf(j->f, ", \"platform\": ");
    json_str(j->f, in.platform_name);
    fprintf(j->f, ", \"device\": ");
    json_str(j->f, in.device_name);
    fprintf(j->f, ", \"driver\": ");
    json_str(j->f, in.driver_version);
    fprintf(j->f, ", \"date\": \"%s\", \"commit\": ", date);
    const char *c = getenv("GALA_GIT_COMMIT");
    json_str(j->f, c && *c ? c : GALA_GIT_COMMIT);
    fprintf(j->f, ", \"copy_gbs\": %.1f, \"results\": [\n", bu_copy_gbs(ctx));
    return j;
}

void bu_json_row(bu_json *j, const char *types, ...)
{
    if (!j) return;
    va_list ap;
    va_start(ap, types);
    fprintf(j->f, "%s  {", j->rows++ ? ",\n" : "");
    for (const char *t = types; *t; ++t) {
        const char *key = va_arg(ap, const char *);
        fprintf(j->f, "%s", t == types ? "" : ", ");
        json_str(j->f, key);
        fputs(": ", j->f);
        if (*t == 's') json_str(j->f, va_arg(ap, const char *));
        else if (*t == 'i') fprintf(j->f, "%d", va_arg(ap, int));
        else {
            double d = va_arg(ap, double);
            if (isfinite(d)) fprintf(j->f, "%.6g", d); else fputs("null", j->f);
        }
    }
    fputc('}', j->f);
    fflush(j->f); /* a run stopped by a time limit keeps the rows it has written */
    va_end(ap);
}

void bu_json_close(bu_json *j)
{
    if (!j) return;
    fprintf(j->f, "\n]}\n");
    fclose(j->f);
    free(j);
}

/* Whether a progress line is on the terminal now, and when the first one was drawn. */
static int progress_shown;
static double progress_t0;

void bu_progress(const char *label, int i, int n)
{
    if (!isatty(2)) return;
    if (progress_t0 == 0) progress_t0 = wall();
    const double el = wall() - progress_t0;
    /* "\r" + erase to the end of the line, so a shorter label leaves nothing behind */
    fprintf(stderr, "\r\033[K[%d/%d] %-.60s  (%.0f s)", i, n, label, el);
    progress_shown = i < n;
    if (!progress_shown) fputc('\n', stderr);
    fflush(stderr);
}

void bu_progress_clear(void)
{
    if (!progress_shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    progress_shown = 0;
}

void bu_randn(double *v, size_t n, unsigned long long seed)
{
    unsigned long long s = seed * 2654435761ULL + 1;
    for (size_t i = 0; i < n; i += 2) {
        double u1, u2;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        u1 = ((s >> 11) + 1.0) / 9007199254740993.0;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        u2 = (s >> 11) / 9007199254740992.0;
        double r = sqrt(-2 * log(u1));
        v[i] = r * cos(6.283185307179586 * u2);
        if (i + 1 < n) v[i + 1] = r * sin(6.283185307179586 * u2);
    }
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

/* The text after "key": in a one-line JSON object. */
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
