/*
 * libFuzzer harness for the QPS reader and writer (build: CC=clang cmake -DGALA_FUZZ=ON).
 *
 * Properties checked on every input, besides the sanitizers' memory and UB checks:
 *   - the reader returns GALA_OK or GALA_ERR_PARSE, and a parse error's message names
 *     "<memory>:LINE:COLUMN:";
 *   - a problem read is well formed: P upper CSC, A CSC, bounds never NaN, l < +inf,
 *     u > -inf, finite q and c0, the row counts of gala_qps_info add up;
 *   - writing it and reading it back gives the same problem (exactly, except two-sided
 *     rows, which may differ by one rounding);
 *   - GALA_QPS_ALL_BOUND_ROWS gives one bound row per variable.
 * A violated property aborts, so libFuzzer keeps the input as a crash.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gala/gala.h"

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_qps: property failed: %s (line %d)\nlast error: %s\n",   \
                    #cond, __LINE__, gala_last_error(NULL));                               \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

static int close_enough(double a, double b)
{
    if (a == b) return 1;
    if (isinf(a) || isinf(b) || isnan(a) || isnan(b)) return 0;
    return fabs(a - b) <= 4.5e-16 * fmax(fabs(a), fabs(b));
}

static void same_problem(const gala_qp_problem *a, const gala_qp_problem *b)
{
    CHECK(a->n == b->n && a->m == b->m);
    CHECK(strcmp(a->name, b->name) == 0);
    CHECK(a->c0 == b->c0);
    for (int j = 0; j < a->n; ++j) CHECK(a->q[j] == b->q[j]);
    const gala_csc *x[2] = {&a->P, &a->A}, *y[2] = {&b->P, &b->A};
    for (int t = 0; t < 2; ++t) {
        for (int j = 0; j <= a->n; ++j) CHECK(x[t]->p[j] == y[t]->p[j]);
        for (int k = 0; k < x[t]->p[a->n]; ++k)
            CHECK(x[t]->i[k] == y[t]->i[k] && x[t]->x[k] == y[t]->x[k]);
    }
    for (int i = 0; i < a->m; ++i) {
        double ml = fmax(fabs(a->l[i]), isinf(a->u[i]) ? 0 : fabs(a->u[i]));
        double mu = fmax(fabs(a->u[i]), isinf(a->l[i]) ? 0 : fabs(a->l[i]));
        CHECK(a->l[i] == b->l[i] || (isfinite(a->l[i]) && isfinite(b->l[i]) &&
                                     fabs(a->l[i] - b->l[i]) <= 4.5e-16 * ml));
        CHECK(a->u[i] == b->u[i] || (isfinite(a->u[i]) && isfinite(b->u[i]) &&
                                     fabs(a->u[i] - b->u[i]) <= 4.5e-16 * mu));
    }
    (void)close_enough;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gala_qp_problem pb, back;
    gala_qps_info info, info2;
    gala_status s = gala_qp_read_qps_mem((const char *)data, size, 0, &pb, &info);
    CHECK(s == GALA_OK || s == GALA_ERR_PARSE);
    if (s != GALA_OK) {
        CHECK(strncmp(gala_last_error(NULL), "<memory>:", 9) == 0);
        CHECK(pb.q == NULL && pb.n == 0);
        return 0;
    }
    CHECK(pb.owned == 1);
    CHECK(gala_csc_validate(NULL, "P", &pb.P, 1) == GALA_OK);
    CHECK(gala_csc_validate(NULL, "A", &pb.A, 0) == GALA_OK);
    CHECK(pb.P.m == pb.n && pb.A.n == pb.n && pb.A.m == pb.m);
    CHECK(info.rows + info.bound_rows == pb.m);
    CHECK(info.objective_sense == 1 || info.objective_sense == -1);
    CHECK(isfinite(pb.c0));
    for (int j = 0; j < pb.n; ++j) CHECK(isfinite(pb.q[j]));
    for (int i = 0; i < pb.m; ++i)
        CHECK(!isnan(pb.l[i]) && !isnan(pb.u[i]) && pb.l[i] < INFINITY && pb.u[i] > -INFINITY);
    for (int i = 0; i < info.rows; ++i) CHECK(pb.l[i] <= pb.u[i]);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    s = gala_qp_write_qps_stream(f, &pb);
    fclose(f);
    CHECK(s == GALA_OK);
    s = gala_qp_read_qps_mem(buf, len, 0, &back, NULL);
    CHECK(s == GALA_OK);
    same_problem(&pb, &back);
    free(buf);
    gala_qp_problem_free(&back);

    s = gala_qp_read_qps_mem((const char *)data, size, GALA_QPS_ALL_BOUND_ROWS, &back, &info2);
    CHECK(s == GALA_OK);
    CHECK(info2.rows == info.rows && info2.bound_rows == pb.n && back.m == info.rows + pb.n);
    gala_qp_problem_free(&back);
    gala_qp_problem_free(&pb);
    return 0;
}
