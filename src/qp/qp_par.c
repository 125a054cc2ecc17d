/* Host threads for the per-QP host work of the QP solver (validation, copies, staging,
 * results): a parallel loop over chunks handed out by an atomic counter. The worker
 * threads only compute on host memory; they never touch the context (which one thread
 * uses at a time) and report nothing but through the arrays they fill. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "qp_internal.h"

#define QP_MAX_THREADS 64

typedef struct {
    qp_par_fn fn;
    void *arg;
    long count, chunk;
    atomic_long next;
} par_job;

typedef struct {
    par_job *job;
    int tid;
} par_worker;

static void run_chunks(par_job *j, int tid)
{
    for (;;) {
        long b = atomic_fetch_add(&j->next, j->chunk);
        if (b >= j->count) break;
        long e = b + j->chunk < j->count ? b + j->chunk : j->count;
        j->fn(j->arg, b, e, tid);
    }
}

static void *worker_main(void *a)
{
    par_worker *w = a;
    run_chunks(w->job, w->tid);
    return NULL;
}

void gala_qp_par(int nthreads, long count, long chunk, qp_par_fn fn, void *arg)
{
    if (count <= 0) return;
    /* smaller chunks when there are too few for the threads (about 4 per thread) */
    if (nthreads > 1 && chunk * 4 * nthreads > count) chunk = count / (4L * nthreads);
    if (chunk < 1) chunk = 1;
    long chunks = (count + chunk - 1) / chunk;
    if (nthreads > chunks) nthreads = (int)chunks;
    if (nthreads > QP_MAX_THREADS) nthreads = QP_MAX_THREADS;
    if (nthreads <= 1) {
        fn(arg, 0, count, 0);
        return;
    }
    par_job job;
    job.fn = fn;
    job.arg = arg;
    job.count = count;
    job.chunk = chunk;
    atomic_init(&job.next, 0);
    pthread_t th[QP_MAX_THREADS];
    par_worker w[QP_MAX_THREADS];
    int started[QP_MAX_THREADS];
    for (int t = 1; t < nthreads; ++t) {
        w[t].job = &job;
        w[t].tid = t;
        started[t] = pthread_create(&th[t], NULL, worker_main, &w[t]) == 0;
    }
    run_chunks(&job, 0);
    for (int t = 1; t < nthreads; ++t)
        if (started[t]) pthread_join(th[t], NULL);
}

int gala_qp_threads_for(int setting, double work)
{
    if (setting > 0) return setting > QP_MAX_THREADS ? QP_MAX_THREADS : setting;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    if (cores > 16) cores = 16;
    double want = work / 32768.0;
    if (want < 1) return 1;
    return want < (double)cores ? (int)want : (int)cores;
}

uint64_t gala_qp_hash_ints(const int *v, size_t n, uint64_t h)
{
    /* two words at a time: a multiply and a xor-shift per 8 bytes */
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t w = (uint64_t)(uint32_t)v[i] | ((uint64_t)(uint32_t)v[i + 1] << 32);
        h ^= w;
        h *= 0x9e3779b97f4a7c15ULL;
        h ^= h >> 31;
    }
    if (i < n) {
        h ^= (uint64_t)(uint32_t)v[i] | (1ULL << 40);
        h *= 0x9e3779b97f4a7c15ULL;
        h ^= h >> 31;
    }
    h ^= (uint64_t)n;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}
