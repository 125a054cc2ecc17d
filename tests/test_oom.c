/* Out of device memory: a context whose device allocations fail beyond a size (the core's
 * test hook gala_fault_alloc_limit, also GALA_FAULT="alloc_over:BYTES") must give
 * GALA_ERR_DEVICE_MEMORY with a message, never a crash, leave no buffer behind, write no
 * partial result, and work normally once memory is available again. gala does not split
 * a batch by itself: the caller learns that the batch is too large and splits it. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops.h"
#include "testutil.h"

static gala_context *fresh_ctx(gala_backend b)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = b;
    gala_context *ctx = NULL;
    TU_OK(NULL, gala_context_create(&o, &ctx));
    return ctx;
}

static long live(const gala_context *ctx)
{
    gala_stats s;
    ck_assert_int_eq(gala_context_stats(ctx, &s), GALA_OK);
    return s.buffers_live;
}

/* Every operation of the catalogue on a small device: it either fits, or fails cleanly. */
START_TEST(every_operation_on_a_small_device)
{
    const tu_target *tg = tu_target_get(_i);
    static const size_t limits[] = {1u << 20, 1u << 14, 1u << 11, 256};
    int refused_in_call = 0;
    for (int i = 0; i < tu_op_count; ++i) {
        const tu_op *op = &tu_ops[i];
        if (op->flags & (TU_OP_NO_CTX | TU_OP_HOST_ONLY)) continue;
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; ++l) {
            gala_context *ctx = fresh_ctx(tg->backend);
            char msg[1024] = "";
            gala_fault_alloc_limit(limits[l]);
            gala_status st = op->run(ctx, tg->dtype, tu_seed(), msg, sizeof msg);
            gala_fault_alloc_limit(0);
            const int prep = strstr(msg, "preparation failed") != NULL;
            TU_ASSERT(st == GALA_OK || (st == GALA_ERR_DEVICE_MEMORY && !prep) ||
                          (st == GALA_ERR_INTERNAL && prep),
                      _i, "%.40s with allocations limited to %zu bytes: %.60s: %.300s", op->name,
                      limits[l], gala_status_string(st), msg);
            if (st != GALA_OK) {
                TU_ASSERT(strstr(msg, "injected") != NULL, _i,
                          "%.40s, limit %zu: the failure is not the refused allocation: %.300s",
                          op->name, limits[l], msg);
                refused_in_call += st == GALA_ERR_DEVICE_MEMORY;
            }
            TU_ASSERT(live(ctx) == 0, _i, "%.40s, limit %zu: %ld buffers left", op->name,
                      limits[l], live(ctx));
            /* memory is back: the same context works */
            st = op->run(ctx, tg->dtype, tu_seed() + 1, msg, sizeof msg);
            TU_ASSERT(st == GALA_OK, _i, "%.40s after the limit was lifted: %.60s: %.300s",
                      op->name, gala_status_string(st), msg);
            gala_context_destroy(ctx);
        }
    }
    TU_ASSERT(refused_in_call > 0, _i, "no library call ever met the limit");
}
END_TEST

/* A batch too large for the device's memory: the workspace of potrf_batched (its per-matrix
 * info) does not fit. The inputs are untouched, and the same call works with memory. */
START_TEST(potrf_batch_too_large)
{
    const tu_target *tg = tu_target_get(_i);
    gala_context *ctx = fresh_ctx(tg->backend);
    /* on a slow device 5000 matrices: their info (20000 bytes) still exceeds the limit */
    const int B = tu_size(20000, 5000, "potrf_batch_too_large");
    enum { N = 2 };
    double *v = malloc((size_t)B * N * N * sizeof *v), *w = malloc((size_t)B * N * N * sizeof *w);
    for (int b = 0; b < B; ++b) { /* [[4, 2], [2, 5]] scaled: L = [[2, 0], [1, 2]]·sqrt(s) */
        double s = 1 + b % 7;
        v[4 * b] = 4 * s; v[4 * b + 1] = 2 * s; v[4 * b + 2] = NAN; v[4 * b + 3] = 5 * s;
    }
    gala_buffer *A = tu_upload(ctx, tg->dtype, v, (size_t)B * N * N);
    const long live0 = live(ctx);
    int *info = malloc(B * sizeof *info);
    for (int b = 0; b < B; ++b) info[b] = 77;
    gala_fault_alloc_limit(16384); /* the buffer exists; 20000 ints of info do not fit */
    gala_status st = gala_potrf_batched(ctx, GALA_LOWER, N, A, 0, N, N * N, B, info);
    gala_fault_alloc_limit(0);
    TU_ASSERT(st == GALA_ERR_DEVICE_MEMORY, _i, "status %s: %s", gala_status_string(st),
              gala_last_error(ctx));
    TU_ASSERT(strstr(gala_last_error(ctx), "bytes") != NULL, _i, "message: %s", gala_last_error(ctx));
    TU_ASSERT(live(ctx) == live0, _i, "buffers left");
    tu_download(A, 0, w, (size_t)B * N * N);
    for (size_t k = 0; k < (size_t)B * N * N; ++k)
        TU_ASSERT((isnan(v[k]) && isnan(w[k])) || v[k] == w[k], _i, "A[%zu] written", k);
    TU_OK(ctx, gala_potrf_batched(ctx, GALA_LOWER, N, A, 0, N, N * N, B, info));
    tu_download(A, 0, w, (size_t)B * N * N);
    for (int b = 0; b < B; b += 997) {
        double s = sqrt(1 + b % 7);
        TU_ASSERT(info[b] == 0 && fabs(w[4 * b] - 2 * s) < 1e-5 * s && fabs(w[4 * b + 1] - s) < 1e-5 * s &&
                      fabs(w[4 * b + 3] - 2 * s) < 1e-5 * s,
                  _i, "matrix %d after the retry", b);
    }
    free(v);
    free(w);
    free(info);
    gala_buffer_free(A);
    gala_context_destroy(ctx);
}
END_TEST

/* The QP solver allocates all its device memory at setup: a batch too large for the device
 * fails there, cleanly; so does a sparse LDLᵀ factor object. */
START_TEST(qp_and_sparse_batches_too_large)
{
    const tu_target *tg = tu_target_get(_i);
    gala_context *ctx = fresh_ctx(tg->backend);
    enum { C = 300 };
    gala_qp_problem *pb = calloc(C, sizeof *pb);
    for (int k = 0; k < C; ++k)
        TU_OK(NULL, gala_qp_double_integrator(5, 1.0 + 0.01 * k, 0.0, &pb[k]));
    gala_qp_settings set;
    gala_qp_settings_default(&set);
    set.dtype = tg->dtype;
    gala_qp_solver *s = (gala_qp_solver *)1;
    gala_fault_alloc_limit(8192);
    gala_status st = gala_qp_setup(ctx, pb, C, &set, &s);
    gala_fault_alloc_limit(0);
    TU_ASSERT(st == GALA_ERR_DEVICE_MEMORY && s == NULL, _i, "qp_setup: %s: %s",
              gala_status_string(st), gala_last_error(ctx));
    TU_ASSERT(live(ctx) == 0, _i, "qp_setup left %ld buffers", live(ctx));
    TU_OK(ctx, gala_qp_setup(ctx, pb, C, &set, &s));
    TU_OK(ctx, gala_qp_solve(s));
    gala_qp_info info;
    TU_OK(ctx, gala_qp_get_info(s, C - 1, &info));
    TU_ASSERT(info.status == GALA_QP_SOLVED, _i, "QP after the retry: %s", gala_qp_status_string(info.status));
    gala_qp_destroy(s);
    for (int k = 0; k < C; ++k) gala_qp_problem_free(&pb[k]);
    free(pb);

    /* sparse LDLᵀ: 2000 copies of a small KKT matrix [2 1; 1 -1] */
    int p[3] = {0, 1, 3}, i[3] = {0, 0, 1};
    double x[3] = {2, 1, -1};
    gala_csc K = {2, 2, p, i, x};
    gala_sparse_ldlt_symbolic *S = NULL;
    TU_OK(ctx, gala_sparse_ldlt_analyze(ctx, &K, NULL, &S));
    enum { Q = 2000 };
    double *vals = malloc(3 * Q * sizeof *vals);
    for (int q = 0; q < Q; ++q) memcpy(vals + 3 * q, x, sizeof x);
    gala_buffer *bx = tu_upload(ctx, tg->dtype, vals, 3 * Q);
    gala_sparse_ldlt *F = (gala_sparse_ldlt *)1;
    gala_fault_alloc_limit(4096);
    st = gala_sparse_ldlt_factor(ctx, S, Q, bx, 0, 3, 1, &F, NULL, NULL);
    gala_fault_alloc_limit(0);
    TU_ASSERT(st == GALA_ERR_DEVICE_MEMORY && F == NULL, _i, "sparse factor: %s: %s",
              gala_status_string(st), gala_last_error(ctx));
    TU_ASSERT(live(ctx) == 1, _i, "sparse factor left buffers");
    TU_OK(ctx, gala_sparse_ldlt_factor(ctx, S, Q, bx, 0, 3, 1, &F, NULL, NULL));
    gala_sparse_ldlt_destroy(F);
    gala_sparse_ldlt_symbolic_destroy(S);
    gala_buffer_free(bx);
    free(vals);
    gala_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("oom");
    TCase *tc = tcase_create("oom");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, every_operation_on_a_small_device, 0, nt);
    tcase_add_loop_test(tc, potrf_batch_too_large, 0, nt);
    tcase_add_loop_test(tc, qp_and_sparse_batches_too_large, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
