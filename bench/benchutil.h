/*
 * Small helpers shared by the benchmarks (bench_*.c): a monotonic clock, medians, a
 * context from a backend name, and a tiny JSON writer (objects, arrays, numbers, strings)
 * so that every benchmark prints one JSON document: device, date, parameters, results.
 */
#ifndef GALA_BENCHUTIL_H
#define GALA_BENCHUTIL_H

#include <stdio.h>

#include "gala/gala.h"

/** Monotonic wall clock in seconds. */
double bu_now(void);

/** Median of v[0..n) (sorts v in place); 0 for n = 0. */
double bu_median(double *v, int n);

/** "2025-01-31T12:34:56Z" (UTC) into buf. */
void bu_date(char *buf, size_t cap);

/** Create a context on "auto", "opencl", "cuda" or "host" (device selector: NULL or as in
 *  gala_context_options.device). Prints the error and returns NULL on failure. */
gala_context *bu_context(const char *backend, const char *device, int profiling);

/** JSON writer: nesting up to 16 levels; commas and quoting handled. */
typedef struct bu_json {
    FILE *f;
    int depth;
    int count[16]; /* items written at each level */
    char kind[16]; /* '{' or '[' of each open level */
} bu_json;

void bu_json_begin(bu_json *j, FILE *f);            /* the document's top object: "{" */
void bu_json_end(bu_json *j);                       /* close the top object, newline */
void bu_json_object(bu_json *j, const char *key);   /* open a nested object (key NULL in arrays) */
void bu_json_array(bu_json *j, const char *key);    /* open a nested array */
void bu_json_close(bu_json *j);                     /* close the innermost object or array */
void bu_json_str(bu_json *j, const char *key, const char *v);
void bu_json_num(bu_json *j, const char *key, double v);
void bu_json_int(bu_json *j, const char *key, long long v);

/** The "device" object of a context: backend, platform, device, vendor, driver. */
void bu_json_device(bu_json *j, const char *key, const gala_context *ctx);

#endif
