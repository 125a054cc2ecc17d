/*
 * The host backend: buffers are host memory, "kernels" are C functions (host_kernels.h),
 * everything runs synchronously: on the calling thread, and the independent items of a large
 * batched launch (QPs, matrices, tasks) also on the context's worker threads (gala_host_par).
 * It is the reference every other backend is tested against, and the default device where
 * there is no GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_kernels.h"

static const gala_host_family families[] = {
    {"vec", gala_host_vec},
    {"gemv", gala_host_gemv},
    {"qp", gala_host_qp},
    {"potrf", gala_host_potrf},
    {"potrs", gala_host_potrs},
    {"potri", gala_host_potri},
    {"lagemm", gala_host_lagemm},
    {"trtri", gala_host_trtri},
    {"ldlt", gala_host_ldlt},
    {"sldlt", gala_host_sldlt},
    {"gemm_tc", gala_host_gemm_tc},
};

/* GALA_HOST_THREADS: 0 unset, -1 invalid, else the cap */
static long env_cap(void)
{
    const char *e = getenv("GALA_HOST_THREADS");
    if (!e || !*e) return 0;
    char *end;
    errno = 0;
    const long v = strtol(e, &end, 10);
    return errno || *end || v < 1 ? -1 : v;
}

/* The threads a context uses: options.host_threads (0: every core the process may run on),
 * capped by GALA_HOST_THREADS and by the worker pool's 64 (src/core/pool.c). */
static int host_threads(int option)
{
    long t = option > 0 ? option : gala_cpu_count();
    const long cap = env_cap();
    if (cap > 0 && cap < t) t = cap;
    return t > 64 ? 64 : (int)t;
}

static void host_name(char *buf, size_t cap, int threads)
{
    snprintf(buf, cap, "host CPU (C, %d thread%s)", threads, threads == 1 ? "" : "s");
}

static gala_status h_list(gala_device_desc *d, int cap, int *count)
{
    *count = 1;
    if (cap >= 1) {
        memset(d, 0, sizeof *d);
        d->backend = GALA_BACKEND_HOST;
        gala_strlcpy(d->platform_name, "host", sizeof d->platform_name);
        host_name(d->device_name, sizeof d->device_name, host_threads(0));
    }
    return GALA_OK;
}

static gala_status h_open(gala_context *ctx, const gala_context_options *o, const char *plat,
                          const char *dev, int prefer_gpu)
{
    (void)plat;
    (void)dev;
    if (prefer_gpu > 0) return gala_error(ctx, GALA_ERR_NO_DEVICE, "the host is not a GPU");
    if (o->host_threads < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "gala_context_create: options.host_threads = %d is negative",
                          o->host_threads);
    if (env_cap() < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "GALA_HOST_THREADS='%s' is not a positive number of threads",
                          getenv("GALA_HOST_THREADS"));
    const int threads = host_threads(o->host_threads);
    gala_device_info *in = &ctx->info;
    gala_strlcpy(in->platform_name, "host", sizeof in->platform_name);
    host_name(in->device_name, sizeof in->device_name, threads);
    gala_strlcpy(in->vendor_name, "gala", sizeof in->vendor_name);
    gala_strlcpy(in->driver_version, gala_version(), sizeof in->driver_version);
    gala_strlcpy(in->device_version, "C11", sizeof in->device_version);
    in->is_gpu = 0;
    in->compute_units = threads;
    in->global_mem_bytes = gala_host_memory_bytes();
    in->max_alloc_bytes = 0; /* no limit beyond malloc */
    in->local_mem_bytes = 1 << 16;
    in->max_work_group_size = 1024;
    in->subgroup_size = 1;
    in->fp64 = 1;
    ctx->impl = NULL;
    return GALA_OK;
}

/* A twin: its memory is the host's, as every host context's; the info is the parent's
 * (copied by the core), its worker threads its own. */
static gala_status h_twin(gala_context *ctx, gala_context *parent)
{
    (void)parent;
    ctx->impl = NULL;
    return GALA_OK;
}

static void h_close(gala_context *ctx) { (void)ctx; }
static gala_status h_finish(gala_context *ctx) { (void)ctx; return GALA_OK; }

static gala_status h_alloc(gala_context *ctx, size_t bytes, void **h)
{
    /* 64-byte alignment, rounded size, so vectorized loops may read whole lines */
    size_t sz = (bytes + 63) / 64 * 64;
    void *p = NULL;
    if (sz < bytes || posix_memalign(&p, 64, sz) != 0 || !p)
        return gala_error(ctx, GALA_ERR_DEVICE_MEMORY, "host allocation of %zu bytes failed", bytes);
    *h = p;
    return GALA_OK;
}
static void h_free(gala_context *ctx, void *h) { (void)ctx; free(h); }

static gala_status h_write(gala_context *ctx, void *h, size_t off, size_t n, const void *src, int b)
{
    (void)ctx; (void)b;
    memcpy((char *)h + off, src, n);
    return GALA_OK;
}
static gala_status h_read(gala_context *ctx, void *h, size_t off, size_t n, void *dst, int b)
{
    (void)ctx; (void)b;
    memcpy(dst, (const char *)h + off, n);
    return GALA_OK;
}
static gala_status h_copy(gala_context *ctx, void *s, size_t so, void *d, size_t d_o, size_t n)
{
    (void)ctx;
    memmove((char *)d + d_o, (const char *)s + so, n);
    return GALA_OK;
}
static gala_status h_fill(gala_context *ctx, void *h, size_t off, size_t n, const void *pat, size_t ps)
{
    (void)ctx;
    char *d = (char *)h + off;
    if (n == 0) return GALA_OK;
    /* one element, then doubling copies of what is already filled */
    size_t done = ps < n ? ps : n;
    memcpy(d, pat, done);
    while (done < n) {
        size_t c = done < n - done ? done : n - done;
        memcpy(d + done, d, c);
        done += c;
    }
    return GALA_OK;
}

static gala_status h_build(gala_context *ctx, const gala_program_key *key, const char *source,
                           const char *options, void **prog, int *from_cache)
{
    (void)source;
    (void)options;
    *from_cache = 0;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i) {
        if (strcmp(families[i].family, key->family) == 0) {
            *prog = (void *)&families[i];
            return GALA_OK;
        }
    }
    return gala_error(ctx, GALA_ERR_KERNEL_BUILD, "the host backend has no kernel family '%s'",
                      key->family);
}
static void h_prog_free(gala_context *ctx, void *p) { (void)ctx; (void)p; }

static gala_status h_kernel(gala_context *ctx, void *prog, const char *name, void **k)
{
    const gala_host_family *f = prog;
    for (const gala_host_kernel *hk = f->kernels; hk->name; ++hk) {
        if (strcmp(hk->name, name) == 0) {
            *k = (void *)hk;
            return GALA_OK;
        }
    }
    return gala_error(ctx, GALA_ERR_KERNEL_BUILD, "the host backend has no kernel %s.%s",
                      f->family, name);
}
static void h_kernel_free(gala_context *ctx, void *k) { (void)ctx; (void)k; }

static gala_status h_launch(gala_context *ctx, void *kernel, const gala_program_key *key,
                            const gala_dims *dims, int nargs, const gala_arg *args)
{
    const gala_host_kernel *hk = kernel;
    static const char kinds[] = {0, 'b', 'i', 'l', 'r'};
    /* Check the call against the kernel's signature: catches algorithm bugs on the host
     * that OpenCL would only catch as a wrong result or an invalid argument size. */
    if ((int)strlen(hk->sig) != nargs)
        return gala_error(ctx, GALA_ERR_INTERNAL, "host kernel %s takes %d arguments, got %d",
                          hk->name, (int)strlen(hk->sig), nargs);
    for (int i = 0; i < nargs; ++i) {
        if (kinds[args[i].kind] != hk->sig[i])
            return gala_error(ctx, GALA_ERR_INTERNAL, "host kernel %s: argument %d has kind %c, "
                              "expected %c", hk->name, i, kinds[args[i].kind], hk->sig[i]);
        if (args[i].kind == GALA_ARG_BUF && !args[i].v.buf)
            return gala_error(ctx, GALA_ERR_INTERNAL, "host kernel %s: argument %d is NULL",
                              hk->name, i);
    }
    gala_host_launch L = {ctx, key, dims, nargs, args};
    gala_host_fn f = key->dtype == GALA_DOUBLE ? hk->f64 : hk->f32;
    return f(&L);
}

int gala_host_threads(const gala_host_launch *L, long items, double work)
{
    const int t = L->ctx->info.compute_units;
    if (t <= 1 || items < 2) return 1;
    /* host.par_work (docs/tuning.md): the work that pays for each thread */
    const double min = (double)gala_tuned(L->ctx, L->key->dtype)->host.par_work;
    if (!(work >= 2 * min)) return 1;
    const double want = min > 0 ? work / min : (double)t;
    long n = want < (double)t ? (long)want : t;
    if (n > items) n = items;
    return n < 1 ? 1 : (int)n;
}

void gala_host_par(const gala_host_launch *L, int nthreads, long items, gala_par_fn fn, void *arg)
{
    /* about eight chunks per thread, handed out in order as threads come free: items of
     * unequal cost (QPs that finished, larger QPs first) balance out */
    long chunk = nthreads > 1 ? items / (8L * nthreads) : items;
    gala_par(L->ctx, nthreads, items, chunk < 1 ? 1 : chunk, fn, arg);
}

typedef struct {
    const gala_host_launch *L;
    gala_host_item item;
    const void *arg;
    char *wk;      /* per-thread scratch, wstride bytes apart, or NULL */
    size_t wstride;
    int *hit;      /* per thread, 16 ints apart (a cache line each) */
} host_items_job;

static void host_items_range(void *a, long b, long e, int tid)
{
    const host_items_job *j = a;
    void *wk = j->wk ? j->wk + (size_t)tid * j->wstride : NULL;
    int *hit = j->hit + 16 * tid;
    for (long i = b; i < e; ++i) j->item(j->L, j->arg, i, wk, hit);
}

gala_status gala_host_items(const gala_host_launch *L, const char *name, long count, double work,
                            gala_host_item item, const void *arg, size_t wbytes, int *any_hit)
{
    if (any_hit) *any_hit = 0;
    if (count <= 0) return GALA_OK;
    const int nt = gala_host_threads(L, count, work);
    if (nt == 1 && wbytes == 0) { /* one thread, no scratch (one small QP's kernels): no
                                   * allocation, no pool: a few launches per ADMM iteration */
        int hit[16] = {0};
        for (long i = 0; i < count; ++i) item(L, arg, i, NULL, hit);
        if (any_hit) *any_hit = hit[0];
        return GALA_OK;
    }
    host_items_job j = {L, item, arg, NULL, (wbytes + 63) / 64 * 64, NULL};
    /* one block: the hit words, then each thread's scratch on its own cache lines */
    const size_t hbytes = sizeof(int) * 16 * (size_t)nt;
    char *blk = gala_malloc(hbytes + j.wstride * (size_t)nt + 64);
    if (!blk) return gala_error(L->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", name);
    memset(blk, 0, hbytes);
    j.hit = (int *)(void *)blk;
    if (wbytes) j.wk = blk + (hbytes + 63) / 64 * 64;
    gala_host_par(L, nt, count, host_items_range, &j);
    if (any_hit)
        for (int t = 0; t < nt; ++t) *any_hit |= j.hit[16 * t];
    gala_free(blk);
    return GALA_OK;
}

static gala_status h_timer(gala_context *ctx, void **t)
{
    double *p = gala_malloc(sizeof *p);
    if (!p) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for a timer");
    *p = gala_now();
    *t = p;
    return GALA_OK;
}
static gala_status h_elapsed(gala_context *ctx, void *a, void *b, double *ms)
{
    (void)ctx;
    *ms = 1e3 * (*(double *)b - *(double *)a);
    return GALA_OK;
}
static void h_timer_free(gala_context *ctx, void *t) { (void)ctx; gala_free(t); }

const gala_device_ops gala_host_ops = {
    .backend = GALA_BACKEND_HOST,
    .name = "host",
    .list = h_list,
    .open = h_open,
    .close = h_close,
    .finish = h_finish,
    .mem_alloc = h_alloc,
    .mem_free = h_free,
    .mem_write = h_write,
    .mem_read = h_read,
    .mem_copy = h_copy,
    .mem_fill = h_fill,
    .program_build = h_build,
    .program_free = h_prog_free,
    .kernel_create = h_kernel,
    .kernel_free = h_kernel_free,
    .launch = h_launch,
    .timer_record = h_timer,
    .timer_elapsed = h_elapsed,
    .timer_free = h_timer_free,
    .twin = h_twin,
    .blas3 = &gala_host_blas3,
};
