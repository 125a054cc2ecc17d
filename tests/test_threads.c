/* Concurrency: contexts used from several threads at once, and one context shared under
 * the documented rule (callers serialize calls on it with their own mutex): vector
 * routines in many rounds, then every routine of the operations catalogue (tests/ops.c),
 * factorizations, sparse LDLᵀ and the QP solver included. Run under ThreadSanitizer by
 * `tools/run.sh tsan` (host and OpenCL). */
#include <pthread.h>
#include <stdlib.h>

#include "ops.h"
#include "testutil.h"

enum { THREADS = 4, ROUNDS = 20, N = 257, B = 9 };

typedef struct {
    gala_backend backend;
    gala_context *shared;
    pthread_mutex_t *lock;
    int id, failures;
    char msg[256];
} job;

static int one_round(gala_context *ctx, int id, int round, pthread_mutex_t *lock, char *msg)
{
    double x[N * B], y[N * B], r[B];
    for (int i = 0; i < N * B; ++i) { x[i] = (i % 11) + id; y[i] = round; }
    gala_buffer *bx = NULL, *by = NULL, *br = NULL;
    int bad = 0;
    if (lock) pthread_mutex_lock(lock);
    gala_status s = gala_buffer_create(ctx, GALA_DOUBLE, N * B, &bx);
    if (!s) s = gala_buffer_create(ctx, GALA_DOUBLE, N * B, &by);
    if (!s) s = gala_buffer_create(ctx, GALA_DOUBLE, B, &br);
    if (!s) s = gala_buffer_write(bx, 0, N * B, x);
    if (!s) s = gala_buffer_write(by, 0, N * B, y);
    if (!s) s = gala_axpby_batched(ctx, N, 2, bx, 0, N, 1, by, 0, N, B);
    if (!s) s = gala_norm_inf_batched(ctx, N, by, 0, N, br, 0, B);
    if (!s) s = gala_buffer_read(br, 0, B, r);
    if (s) snprintf(msg, 256, "%s: %s", gala_status_string(s), gala_last_error(ctx));
    gala_buffer_free(bx); gala_buffer_free(by); gala_buffer_free(br);
    if (lock) pthread_mutex_unlock(lock);
    if (s) return 1;
    for (int b = 0; b < B; ++b) {
        double want = 0;
        for (int i = 0; i < N; ++i) want = fmax(want, fabs(2 * x[b * N + i] + round));
        if (r[b] != want) {
            snprintf(msg, 256, "thread %d round %d item %d: %g != %g", id, round, b, r[b], want);
            bad = 1;
        }
    }
    return bad;
}

static void *worker(void *arg)
{
    job *j = arg;
    gala_context *ctx = j->shared;
    if (!ctx) {
        gala_context_options o;
        gala_context_options_default(&o);
        o.backend = j->backend;
        if (gala_context_create(&o, &ctx) != GALA_OK) {
            snprintf(j->msg, sizeof j->msg, "create: %s", gala_last_error(NULL));
            j->failures++;
            return NULL;
        }
    }
    for (int round = 0; round < ROUNDS; ++round)
        j->failures += one_round(ctx, j->id, round, j->lock, j->msg);
    if (!j->shared) gala_context_destroy(ctx);
    return NULL;
}

static void run(gala_backend b, int shared)
{
    pthread_t t[THREADS];
    job jobs[THREADS];
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    gala_context *ctx = NULL;
    if (shared) {
        gala_context_options o;
        gala_context_options_default(&o);
        o.backend = b;
        TU_OK(NULL, gala_context_create(&o, &ctx));
    }
    for (int i = 0; i < THREADS; ++i) {
        jobs[i] = (job){b, ctx, shared ? &lock : NULL, i, 0, ""};
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
    }
    /* every thread joined before any check: a failed check leaves the function (longjmp in
     * Check's no-fork mode, exit in fork mode), and threads still running would use the
     * lock and jobs on this frame, and the shared context, after it is gone */
    for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
    if (ctx) gala_context_destroy(ctx);
    for (int i = 0; i < THREADS; ++i)
        ck_assert_msg(jobs[i].failures == 0, "%s backend, %s context, thread %d: %s",
                      gala_backend_name(b), shared ? "shared" : "own", i, jobs[i].msg);
}

START_TEST(threads_with_own_contexts)
{
    for (int i = 0; i < tu_target_count(); ++i)
        if (tu_target_get(i)->dtype == GALA_DOUBLE) run(tu_target_get(i)->backend, 0);
}
END_TEST

START_TEST(threads_sharing_a_context_with_a_mutex)
{
    for (int i = 0; i < tu_target_count(); ++i)
        if (tu_target_get(i)->dtype == GALA_DOUBLE) run(tu_target_get(i)->backend, 1);
}
END_TEST


/* ------------------------------------------------------------------ every routine */

/* Each thread runs the whole catalogue of operations (tests/ops.c: every public function
 * with device work, factorizations, sparse LDLᵀ and the QP solver included), checking every
 * result; either on its own context or on one shared context, each operation under the
 * callers' mutex (the documented rule). */
typedef struct {
    gala_backend backend;
    gala_dtype dtype;
    gala_context *shared;
    pthread_mutex_t *lock;
    int id, failures;
    char msg[600];
} cjob;

static void *catalogue_worker(void *arg)
{
    cjob *j = arg;
    gala_context *ctx = j->shared;
    if (!ctx) {
        gala_context_options o;
        gala_context_options_default(&o);
        o.backend = j->backend;
        if (gala_context_create(&o, &ctx) != GALA_OK) {
            snprintf(j->msg, sizeof j->msg, "create: %s", gala_last_error(NULL));
            j->failures++;
            return NULL;
        }
    }
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < tu_op_count; ++i) {
            const tu_op *op = &tu_ops[(i + 5 * j->id) % tu_op_count]; /* threads out of step */
            if ((op->flags & TU_OP_HOST_ONLY) && j->backend != GALA_BACKEND_HOST) continue;
            char msg[512] = "";
            if (j->lock) pthread_mutex_lock(j->lock);
            gala_status s = op->run((op->flags & TU_OP_NO_CTX) ? NULL : ctx, j->dtype,
                                   tu_seed() + (uint64_t)(100 * j->id + round), msg, sizeof msg);
            if (j->lock) pthread_mutex_unlock(j->lock);
            if (s != GALA_OK) {
                snprintf(j->msg, sizeof j->msg, "%.40s: %.60s: %.400s", op->name,
                         gala_status_string(s), msg);
                j->failures++;
            }
        }
    }
    if (!j->shared) {
        gala_stats st;
        gala_context_stats(ctx, &st);
        if (st.buffers_live != 0) {
            snprintf(j->msg, sizeof j->msg, "%ld buffers left", st.buffers_live);
            j->failures++;
        }
        gala_context_destroy(ctx);
    }
    return NULL;
}

static void run_catalogue(int target, int shared)
{
    const tu_target *tg = tu_target_get(target);
    pthread_t t[THREADS];
    cjob jobs[THREADS];
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    gala_context *ctx = NULL;
    (void)tu_seed(); /* initialized before the threads read it */
    if (shared) {
        gala_context_options o;
        gala_context_options_default(&o);
        o.backend = tg->backend;
        TU_OK(NULL, gala_context_create(&o, &ctx));
    }
    for (int i = 0; i < THREADS; ++i) {
        jobs[i] = (cjob){tg->backend, tg->dtype, ctx, shared ? &lock : NULL, i, 0, ""};
        ck_assert_int_eq(pthread_create(&t[i], NULL, catalogue_worker, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL); /* all, before any check */
    long live = 0;
    if (ctx) {
        gala_stats st;
        gala_context_stats(ctx, &st);
        live = st.buffers_live;
        gala_context_destroy(ctx);
    }
    for (int i = 0; i < THREADS; ++i)
        TU_ASSERT(jobs[i].failures == 0, target, "%s context, thread %d: %d failures, last: %.400s",
                  shared ? "shared" : "own", i, jobs[i].failures, jobs[i].msg);
    TU_ASSERT(live == 0, target, "shared context: %ld buffers left", live);
}

START_TEST(all_routines_threads_with_own_contexts) { run_catalogue(_i, 0); }
END_TEST

START_TEST(all_routines_threads_sharing_a_context) { run_catalogue(_i, 1); }
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_add_test(tc, threads_with_own_contexts);
    tcase_add_test(tc, threads_sharing_a_context_with_a_mutex);
    tcase_add_loop_test(tc, all_routines_threads_with_own_contexts, 0, tu_target_count());
    tcase_add_loop_test(tc, all_routines_threads_sharing_a_context, 0, tu_target_count());
    suite_add_tcase(s, tc);
    return tu_run(s);
}
