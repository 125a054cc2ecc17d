/*
 * The square product C = A·B (n×n, NO_TRANS, alpha 1, beta 0) through gala's internal BLAS-3
 * (src/core/blas3.h), as bu_time's call: timed by bench_ceiling and bench_gemm_sweep.
 */
#ifndef GALA_BENCH_GEMM_H
#define GALA_BENCH_GEMM_H

#include "core/blas3.h"

typedef struct bench_gemm {
    gala_context *ctx;
    gala_buffer *A, *B, *C;
    int n;
} bench_gemm;

static inline gala_status bench_gemm_run(void *p)
{
    bench_gemm *g = p;
    return gala_gemm(g->ctx, GALA_NO_TRANS, GALA_NO_TRANS, g->n, g->n, g->n, 1.0, g->A, 0, g->n,
                     g->B, 0, g->n, 0.0, g->C, 0, g->n);
}

#endif
