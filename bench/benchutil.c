/* Helpers shared by the benchmarks (benchutil.h). */
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

int bu_json_open(bu_json *j, const char *path)
{
    memset(j, 0, sizeof *j);
    j->f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!j->f) return -1;
    fputs("[\n", j->f);
    return 0;
}

void bu_json_begin(bu_json *j)
{
    fputs(j->items ? ",\n{" : "{", j->f);
    j->fields = 0;
}

static void key(bu_json *j, const char *k)
{
    fprintf(j->f, "%s\"%s\": ", j->fields++ ? ", " : "", k);
}

void bu_json_str(bu_json *j, const char *k, const char *v)
{
    key(j, k);
    fputc('"', j->f);
    for (const char *p = v; *p; ++p) {
        if (*p == '"' || *p == '\\') fputc('\\', j->f);
        if ((unsigned char)*p >= 0x20) fputc(*p, j->f);
    }
    fputc('"', j->f);
}

void bu_json_num(bu_json *j, const char *k, double v)
{
    key(j, k);
    if (isfinite(v)) fprintf(j->f, "%.9g", v);
    else fputs("null", j->f);
}

void bu_json_int(bu_json *j, const char *k, long long v)
{
    key(j, k);
    fprintf(j->f, "%lld", v);
}

void bu_json_nums(bu_json *j, const char *k, const double *v, int n)
{
    key(j, k);
    fputc('[', j->f);
    for (int i = 0; i < n; ++i) {
        if (i) fputs(", ", j->f);
        if (isfinite(v[i])) fprintf(j->f, "%.12g", v[i]);
        else fputs("null", j->f);
    }
    fputc(']', j->f);
}

void bu_json_end(bu_json *j)
{
    fputc('}', j->f);
    j->items++;
    fflush(j->f);
}

void bu_json_close(bu_json *j)
{
    if (!j->f) return;
    fputs("\n]\n", j->f);
    if (j->f != stdout) fclose(j->f);
    j->f = NULL;
}

int bu_parse_ints(const char *s, long long *out, int cap)
{
    int n = 0;
    while (s && *s && n < cap) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s) break;
        out[n++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}
