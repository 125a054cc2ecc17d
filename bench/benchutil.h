/*
 * Shared helpers of the benchmark programs (bench_<family>.c): command-line options,
 * device-side timing with gala_timer_*, statistics, a small JSON writer, the run's
 * environment (device, driver, date, git commit), and reading reference timings written
 * by the bench/ref_<family>.py scripts (one JSON object per line with "kind", "n",
 * "batch", "dtype" and "median_ms").
 */
#ifndef GALA_BENCHUTIL_H
#define GALA_BENCHUTIL_H

#include <stdio.h>

#include "gala/gala.h"

/** Options every benchmark understands. */
typedef struct bu_opts {
    int warmup;          /**< untimed calls before timing (--warmup N, default 3) */
    int repeats;         /**< timed calls (--repeats N, default 20) */
    int quick;           /**< --quick: small sizes, for CPUs and smoke tests */
    int dtypes;          /**< bit 1: float, bit 2: double (--dtype float|double|both) */
    const char *json;    /**< --json FILE: write the results there */
    const char *ref;     /**< --ref FILE: reference timings to compare with */
    const char *only;    /**< --only KIND: run only cases of this kind */
} bu_opts;

/** Parse argv (unknown options: message and exit code 2 through *exit_code, return 0). */
int bu_parse(int argc, char **argv, bu_opts *o, const char *usage_extra, int *exit_code);

/** A context on the device chosen by GALA_BACKEND / GALA_PLATFORM / GALA_DEVICE, with
 *  profiling on. Prints why and returns NULL on failure. */
gala_context *bu_context(void);

/** Statistics of a sample (sorted in place). */
typedef struct bu_stats {
    double median, min, max, mean;
    int count;
} bu_stats;
bu_stats bu_summarize(double *v, int n);

/** A timed call: returns a gala status. */
typedef gala_status (*bu_fn)(void *arg);

/** Run fn warmup times, then repeats times, each bracketed by device timers; the
 *  milliseconds go to ms[0 .. repeats). Returns the first failing status. */
gala_status bu_time(gala_context *ctx, bu_fn fn, void *arg, int warmup, int repeats, double *ms);

/** The run's environment as JSON members (no braces): "device": ..., "driver": ...,
 *  "backend", "platform", "date" (UTC), "commit" (GALA_GIT_COMMIT or git rev-parse). */
void bu_json_env(FILE *f, gala_context *ctx);

/** Write s as a JSON string (quotes and escapes). */
void bu_json_str(FILE *f, const char *s);

/** Reference timings (lines of a ref_*.py output). */
typedef struct bu_ref bu_ref;
bu_ref *bu_ref_load(const char *path); /**< NULL when path is NULL or unreadable */
/** Median milliseconds of the reference entry with these fields, or a negative value. */
double bu_ref_find(const bu_ref *r, const char *kind, int n, long batch, const char *dtype);
void bu_ref_free(bu_ref *r);

/** Device name of the reference file ("" when unknown). */
const char *bu_ref_device(const bu_ref *r);

#endif
