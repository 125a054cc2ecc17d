/*
 * gala-info's per-family self-test: for one context and precision, each kernel family
 * (potrf, potrs, trtri, ldlt, sparse LDLᵀ, QP) solves a tiny batch whose answer is known
 * exactly, through the public API, and is checked against it. The tool prints the results;
 * nothing here prints.
 */
#ifndef GALA_SELFTEST_H
#define GALA_SELFTEST_H

#include <stddef.h>

#include "gala/gala.h"

enum { GST_FAMILIES = 6 };

/** Family f's name (0 .. GST_FAMILIES − 1, the order gala-info runs them in). */
const char *gst_family_name(int f);

/** One family's result: status (GALA_OK: the answer was right), seconds, and on failure
 *  what went wrong (the library's message, or which entry was wrong by how much). */
typedef struct gst_result {
    gala_status status;
    double seconds;
    char detail[512];
} gst_result;

/** Run family f (0 .. GST_FAMILIES − 1) on ctx in precision dt. */
void gst_run(gala_context *ctx, gala_dtype dt, int f, gst_result *r);

#endif
