/*
 * Shared benchmark helpers: common command-line options, a context with device timers,
 * timing a piece of work over repeats (median and spread), the device's measured copy
 * bandwidth, a JSON writer, and a progress line on a terminal.
 *
 * Common options (parsed by bu_init, which removes them from argv):
 *   --backend B       auto|opencl|cuda|host (default: GALA_BACKEND or auto)
 *   --platform P      OpenCL platform index or name part
 *   --device D        device index or name part
 *   --reps N          timed repeats (default 20)
 *   --warmup N        untimed runs first (default 3)
 *   --json FILE       also write the results as JSON
 *   --quick           small sizes only (CI-sized runs)
 */
#ifndef GALA_BENCHUTIL_H
#define GALA_BENCHUTIL_H

#include <stdio.h>

#include "gala/gala.h"

typedef struct bu_opts {
    const char *backend, *platform, *device, *json;
    int reps, warmup, quick;
} bu_opts;

/** Parse the common options (removing them from argv) and create a profiling context.
 *  Prints the device line. Returns NULL (after printing why) on failure. */
gala_context *bu_init(int *argc, char **argv, bu_opts *opts);

/** Time fn(arg) `reps` times after `warmup` runs with device timers; ms[] receives each
 *  repeat's milliseconds. Returns the status of the first failing call. */
typedef gala_status (*bu_fn)(void *arg);
gala_status bu_time(gala_context *ctx, bu_fn fn, void *arg, int warmup, int reps, double *ms);
/** bu_time with prep(arg) enqueued before every call and outside its time (e.g. restoring
 *  the input of an in-place routine); prep may be NULL. */
gala_status bu_time_prep(gala_context *ctx, bu_fn prep, bu_fn fn, void *arg, int warmup, int reps,
                         double *ms);

/** Median, and the 10th / 90th percentiles, of n values (the array is sorted). */
double bu_median(double *v, int n);
double bu_pct(double *v, int n, double p);

/** Measured device-to-device copy bandwidth in GB/s (bytes read + written), cached. */
double bu_copy_gbs(gala_context *ctx);

/** JSON output: an object with a header (bench name, device, driver, backend, date, git
 *  commit) and an array "results" of rows written with bu_json_row. */
typedef struct bu_json bu_json;
bu_json *bu_json_open(const char *path, const char *bench, gala_context *ctx);
/** Row from key/value pairs: format letters in `types` ('s' string, 'i' int, 'd' double). */
void bu_json_row(bu_json *j, const char *types, ...);
void bu_json_close(bu_json *j);

/** A progress line on stderr when it is a terminal ("[i/n] label  (elapsed s)"), redrawn in
 *  place; silent otherwise (pipes, files, CI). Call it before each case of a long run; i = n
 *  ends the line. bu_progress_clear erases it before a result row is printed on stdout, so
 *  rows and the progress line do not mix on a terminal. */
void bu_progress(const char *label, int i, int n);
void bu_progress_clear(void);

/** Fill a host array with N(0,1) values from a seeded generator. */
void bu_randn(double *v, size_t n, unsigned long long seed);

/** Reference timings written by a bench/ref_<family>.py script: one JSON object per line;
 *  lines with "kind", "n", "batch", "dtype" and "median_ms" are entries, a "device" member
 *  anywhere names the reference device. */
typedef struct bu_ref bu_ref;
bu_ref *bu_ref_load(const char *path); /**< NULL when path is NULL or unreadable (says so) */
/** Median milliseconds of the entry with these fields, or a negative value when absent. */
double bu_ref_find(const bu_ref *r, const char *kind, int n, long batch, const char *dtype);
/** The reference's device name ("" when unknown or r is NULL). */
const char *bu_ref_device(const bu_ref *r);
void bu_ref_free(bu_ref *r);

#endif
