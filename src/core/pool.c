/* A context's host worker threads: started by the first parallel loop that wants them and
 * kept until the context is destroyed, so that a loop costs a wake-up instead of thread
 * creation (15 pthread_create + join took 4 ms per loop on the 2-core development machine,
 * and a QP setup and solve run several loops). One caller at a time: the context's rule
 * (one thread uses a context at a time) is the pool's. The workers compute on host memory
 * only; they never touch the context.
 *
 * Waking a sleeping thread is slow where it matters most: on the development machine (a
 * 2-core VM) a loop whose worker slept on a condition variable took 150 µs on average
 * (6–30 µs at best) to run 64 empty items, most of it the idle core waking up. The host
 * backend runs every large kernel launch as such a loop, back to back. So
 *  - a worker spins for POOL_SPIN_NS after a loop before it sleeps: the next launch of a
 *    call finds it awake;
 *  - a loop waits only for the workers that joined it: a worker that comes after the caller
 *    has taken the last chunk finds the loop closed and leaves it alone, so a slow wake-up
 *    never delays the caller, and the caller waits for a joined worker by spinning (then
 *    sleeping), its own core being idle anyway.
 * Joining and closing meet in one atomic word (the count of joined workers, and the CLOSED
 * bit set by the caller once its chunks are done); the job's fields are written before the
 * word is reset for the job (release) and read after joining (acquire). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT (the build defines it too) */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define POOL_MAX 64
#define POOL_SPIN_NS 200000L   /* a worker's spin before it sleeps */
#define POOL_WAIT_NS 2000000L  /* the caller's spin before it sleeps, waiting for workers */
#define POOL_CLOSED (1L << 40) /* in `state`: the caller took no more workers */

int gala_cpu_count(void)
{
    long n = 0;
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
#endif
    if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > POOL_MAX ? POOL_MAX : (int)n;
}

size_t gala_host_memory_bytes(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : 0;
}

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
    int started;          /* workers running: tids 1 .. started (the caller is tid 0) */
    atomic_int quit;
    atomic_ulong gen;     /* job number, bumped when a job is published */
    atomic_int sleepers;  /* workers waiting on `go` */
    atomic_int waiting;   /* the caller waits on `done` */
    /* the current job: written by the caller before `state` is reset for it */
    gala_par_fn fn;
    void *arg;
    long count, chunk;
    int active;           /* workers 1 .. active may take part */
    atomic_long next;     /* next chunk's first item */
    atomic_long state;    /* workers joined, | POOL_CLOSED once the caller closed the job */
    atomic_long finished; /* joined workers done with it */
};

static long elapsed_ns(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void run_chunks(struct gala_pool *p, int tid)
{
    for (;;) {
        long b = atomic_fetch_add(&p->next, p->chunk);
        if (b >= p->count) break;
        long e = b + p->chunk < p->count ? b + p->chunk : p->count;
        p->fn(p->arg, b, e, tid);
    }
}

/* Wait (spinning, then sleeping) until the job number differs from `seen` or quit. */
static unsigned long await_job(struct gala_pool *p, unsigned long seen)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0;; ++k) {
        const unsigned long g = atomic_load_explicit(&p->gen, memory_order_acquire);
        if (g != seen || atomic_load_explicit(&p->quit, memory_order_relaxed)) return g;
        cpu_relax();
        if ((k & 255) == 255) {
            if (elapsed_ns(&t0) > POOL_SPIN_NS) break;
            sched_yield(); /* where threads outnumber the cores, let the others run */
        }
    }
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleepers, 1); /* seq_cst: pairs with the caller's gen, then sleepers */
    unsigned long g;
    while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->quit))
        pthread_cond_wait(&p->go, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
    return g;
}

static void *worker_main(void *a)
{
    pool_worker *w = a;
    struct gala_pool *p = w->p;
    unsigned long seen = 0;
    for (;;) {
        seen = await_job(p, seen);
        if (atomic_load(&p->quit)) break;
        /* join the job the state word is reset for now (this one, or a later one if the
         * caller moved on meanwhile: then its fields are what the acquire shows) */
        const long s = atomic_fetch_add_explicit(&p->state, 1, memory_order_acq_rel);
        if (s & POOL_CLOSED) continue; /* too late: the caller did it all */
        if (w->tid <= p->active) run_chunks(p, w->tid);
        /* seq_cst: finished, then waiting, against the caller's waiting, then finished */
        /* (a closed job's count also holds the late workers that left it alone, so any
         * finisher wakes a waiting caller, which checks its own count) */
        atomic_fetch_add(&p->finished, 1);
        if (atomic_load(&p->waiting)) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
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
        if (p) atomic_store(&p->state, POOL_CLOSED); /* no job yet */
        ctx->pool = p;
    }
    if (p && nthreads > 1) pool_grow(p, nthreads - 1);
    if (!p || nthreads <= 1 || p->started == 0) {
        fn(arg, 0, count, 0); /* no workers: the caller does it all */
        return;
    }
    /* publish: the fields, then the state word reset for the job, then the job number */
    p->fn = fn;
    p->arg = arg;
    p->count = count;
    p->chunk = chunk;
    p->active = nthreads - 1 < p->started ? nthreads - 1 : p->started;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&p->state, 0, memory_order_release);
    atomic_fetch_add(&p->gen, 1); /* seq_cst: pairs with a worker's sleepers, then gen */
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
    }
    run_chunks(p, 0);
    /* close the job: the workers that joined by now are the ones to wait for */
    const long joined = atomic_fetch_or_explicit(&p->state, POOL_CLOSED, memory_order_acq_rel);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; atomic_load_explicit(&p->finished, memory_order_acquire) < joined; ++k) {
        cpu_relax();
        if ((k & 255) == 255) sched_yield();
        if ((k & 255) == 255 && elapsed_ns(&t0) > POOL_WAIT_NS) {
            pthread_mutex_lock(&p->mu);
            atomic_store(&p->waiting, 1);
            while (atomic_load(&p->finished) < joined) pthread_cond_wait(&p->done, &p->mu);
            atomic_store(&p->waiting, 0);
            pthread_mutex_unlock(&p->mu);
            break;
        }
    }
}

void gala_pool_free(struct gala_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->quit, 1);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t <= p->started; ++t) pthread_join(p->th[t], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->mu);
    gala_free(p);
}
