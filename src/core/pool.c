/* A context's host worker threads: started by the first parallel loop that wants them and
 * kept, asleep, until the context is destroyed, so that a loop costs a wake-up instead of
 * thread creation (15 pthread_create + join took 4 ms per loop on the 2-core development
 * machine, and a QP setup and solve run several loops). One caller at a time: the
 * context's rule (one thread uses a context at a time) is the pool's. The workers compute
 * on host memory only; they never touch the context. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>

#include "internal.h"

#define POOL_MAX 64

struct gala_pool;
typedef struct {
    struct gala_pool *p;
    int tid;
} pool_worker;

struct gala_pool {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    pthread_t th[POOL_MAX];
    pool_worker w[POOL_MAX];
    int started;       /* workers running: tids 1 .. started (the caller is tid 0) */
    int quit;
    unsigned long gen; /* job number: each worker runs each job once */
    int active;        /* workers 1 .. active take part in the current job */
    int busy;          /* of those, still running it */
    gala_par_fn fn;    /* the current job */
    void *arg;
    long count, chunk;
    atomic_long next;
};

static void run_chunks(struct gala_pool *p, int tid)
{
    for (;;) {
        long b = atomic_fetch_add(&p->next, p->chunk);
        if (b >= p->count) break;
        long e = b + p->chunk < p->count ? b + p->chunk : p->count;
        p->fn(p->arg, b, e, tid);
    }
}

static void *worker_main(void *a)
{
    pool_worker *w = a;
    struct gala_pool *p = w->p;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->gen == seen) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        if (w->tid > p->active) continue;
        pthread_mutex_unlock(&p->mu);
        run_chunks(p, w->tid);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Start workers until `want` run (fewer if the system refuses threads). */
static void pool_grow(struct gala_pool *p, int want)
{
    if (want > POOL_MAX - 1) want = POOL_MAX - 1;
    while (p->started < want) {
        const int t = p->started + 1;
        p->w[t].p = p;
        p->w[t].tid = t;
        if (pthread_create(&p->th[t], NULL, worker_main, &p->w[t]) != 0) break;
        p->started = t;
    }
}

void gala_par(gala_context *ctx, int nthreads, long count, long chunk, gala_par_fn fn, void *arg)
{
    if (count <= 0) return;
    /* smaller chunks when there are too few for the threads (about 4 per thread) */
    if (nthreads > 1 && chunk * 4 * nthreads > count) chunk = count / (4L * nthreads);
    if (chunk < 1) chunk = 1;
    const long chunks = (count + chunk - 1) / chunk;
    if (nthreads > chunks) nthreads = (int)chunks;
    if (nthreads > POOL_MAX) nthreads = POOL_MAX;
    struct gala_pool *p = ctx ? ctx->pool : NULL;
    if (nthreads > 1 && ctx && !p) {
        p = gala_calloc(1, sizeof *p);
        if (p && (pthread_mutex_init(&p->mu, NULL) != 0 || pthread_cond_init(&p->go, NULL) != 0 ||
                  pthread_cond_init(&p->done, NULL) != 0)) {
            gala_free(p); /* (the init calls only fail for lack of memory) */
            p = NULL;
        }
        ctx->pool = p;
    }
    if (p && nthreads > 1) {
        pthread_mutex_lock(&p->mu);
        pool_grow(p, nthreads - 1);
        pthread_mutex_unlock(&p->mu);
    }
    if (!p || nthreads <= 1 || p->started == 0) {
        fn(arg, 0, count, 0); /* no workers: the caller does it all */
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->count = count;
    p->chunk = chunk;
    atomic_store(&p->next, 0);
    p->active = nthreads - 1 < p->started ? nthreads - 1 : p->started;
    p->busy = p->active;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    run_chunks(p, 0);
    pthread_mutex_lock(&p->mu);
    while (p->busy > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void gala_pool_free(struct gala_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t <= p->started; ++t) pthread_join(p->th[t], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->mu);
    gala_free(p);
}
