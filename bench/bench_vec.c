/*
 * bench_vec: batched vector operations and gemv at the QP solver's sizes, against the
 * memory-bandwidth floor (bytes each call must move / measured copy bandwidth).
 * Usage: bench_vec [common options, see benchutil.h]
 */
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"

typedef struct {
    gala_context *ctx;
    int op, n, m, batch;
    gala_buffer *A, *x, *y, *r;
} job;

static gala_status run(void *p)
{
    job *j = p;
    switch (j->op) {
    case 0: return gala_axpby_batched(j->ctx, j->n, 1.5, j->x, 0, j->n, 0.5, j->y, 0, j->n, j->batch);
    case 1: return gala_norm_inf_batched(j->ctx, j->n, j->x, 0, j->n, j->r, 0, j->batch);
    case 2: return gala_dot_batched(j->ctx, j->n, j->x, 0, j->n, j->y, 0, j->n, j->r, 0, j->batch);
    case 3: return gala_gemv_batched(j->ctx, GALA_NO_TRANS, j->m, j->n, 1, j->A, 0, j->m,
                                     (size_t)j->m * j->n, j->x, 0, j->n, 0, j->y, 0, j->m, j->batch);
    default: return gala_gemv_batched(j->ctx, GALA_TRANS, j->m, j->n, 1, j->A, 0, j->m,
                                      (size_t)j->m * j->n, j->y, 0, j->m, 0, j->x, 0, j->n, j->batch);
    }
}

int main(int argc, char **argv)
{
    bu_opts o;
    gala_context *ctx = bu_init(&argc, argv, &o);
    if (!ctx) return 1;
    double bw = bu_copy_gbs(ctx);
    printf("# measured copy bandwidth: %.0f GB/s\n", bw);
    bu_json *js = bu_json_open(o.json, "vec", ctx);
    static const char *names[] = {"axpby", "norm_inf", "dot", "gemv_n", "gemv_t"};
    const int sizes[][3] = {{160, 160, 10000}, {270, 160, 10000}, {32, 32, 100000}, {1000, 1000, 1000}};
    int nsizes = o.quick ? 1 : 4;
    printf("%-9s %-6s %6s %6s %7s %10s %9s %9s\n", "op", "dtype", "m", "n", "batch", "median_ms", "GB/s", "%copy");
    for (int d = 0; d < 2; ++d) {
        gala_dtype dt = d ? GALA_DOUBLE : GALA_FLOAT;
        size_t es = gala_dtype_size(dt);
        for (int s = 0; s < nsizes; ++s) {
            int m = sizes[s][0], n = sizes[s][1], batch = o.quick ? 100 : sizes[s][2];
            job j = {ctx, 0, n, m, batch, NULL, NULL, NULL, NULL};
            size_t big = (size_t)m * n * batch, vec = (size_t)(m > n ? m : n) * batch;
            if (gala_buffer_create(ctx, dt, big, &j.A) || gala_buffer_create(ctx, dt, vec, &j.x) ||
                gala_buffer_create(ctx, dt, vec, &j.y) || gala_buffer_create(ctx, dt, batch, &j.r)) {
                fprintf(stderr, "allocation failed: %s\n", gala_last_error(ctx));
                return 1;
            }
            gala_buffer_fill(j.A, 0, big, 0.25);
            gala_buffer_fill(j.x, 0, vec, 1.0);
            gala_buffer_fill(j.y, 0, vec, 2.0);
            for (int op = 0; op < 5; ++op) {
                j.op = op;
                double *ms = malloc((size_t)o.reps * sizeof *ms);
                gala_status st = bu_time(ctx, run, &j, o.warmup, o.reps, ms);
                if (st != GALA_OK) {
                    fprintf(stderr, "%s: %s\n", names[op], gala_last_error(ctx));
                    return 1;
                }
                double med = bu_median(ms, o.reps), p10 = bu_pct(ms, o.reps, 0.1),
                       p90 = bu_pct(ms, o.reps, 0.9);
                double bytes = op == 0 ? 3.0 * n * batch * es : op == 1 ? 1.0 * n * batch * es
                             : op == 2 ? 2.0 * n * batch * es
                                       : (double)es * ((double)m * n + m + n) * batch;
                double gbs = bytes / (med * 1e6);
                printf("%-9s %-6s %6d %6d %7d %10.4f %9.1f %8.1f%%\n", names[op],
                       gala_dtype_name(dt), op >= 3 ? m : 0, n, batch, med, gbs, 100 * gbs / bw);
                bu_json_row(js, "ssiiiddddd", "op", names[op], "dtype", gala_dtype_name(dt), "m",
                            op >= 3 ? m : 0, "n", n, "batch", batch, "median_ms", med, "p10_ms",
                            p10, "p90_ms", p90, "gbs", gbs, "pct_copy", 100 * gbs / bw);
                free(ms);
            }
            gala_buffer_free(j.A); gala_buffer_free(j.x); gala_buffer_free(j.y); gala_buffer_free(j.r);
        }
    }
    bu_json_close(js);
    gala_context_destroy(ctx);
    return 0;
}
