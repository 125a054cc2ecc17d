/* Small helpers shared by the benchmarks: wall clock, a minimal JSON writer, argument
 * parsing of comma-separated integer lists. */
#ifndef GALA_BENCHUTIL_H
#define GALA_BENCHUTIL_H

#include <stdio.h>

/** Monotonic wall clock in seconds. */
double bu_now(void);

/** A JSON array of flat objects, written as it goes ("[\n{...},\n{...}\n]"). */
typedef struct bu_json {
    FILE *f;
    int items;  /* objects written */
    int fields; /* fields in the current object */
} bu_json;

/** Open (path "-" = stdout); returns 0 on success. */
int bu_json_open(bu_json *j, const char *path);
void bu_json_begin(bu_json *j);
void bu_json_str(bu_json *j, const char *key, const char *value);
void bu_json_num(bu_json *j, const char *key, double value);
void bu_json_int(bu_json *j, const char *key, long long value);
/** An array of numbers as one field. */
void bu_json_nums(bu_json *j, const char *key, const double *v, int n);
void bu_json_end(bu_json *j);
void bu_json_close(bu_json *j);

/** Parse "1,100,1000" into at most cap ints; returns the count. */
int bu_parse_ints(const char *s, long long *out, int cap);

#endif
