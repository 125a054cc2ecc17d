/* Contexts: backend and device selection, information, finish, destruction. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "program.h"

const char *gala_backend_name(gala_backend b)
{
    switch (b) {
    case GALA_BACKEND_AUTO: return "auto";
    case GALA_BACKEND_OPENCL: return "opencl";
    case GALA_BACKEND_CUDA: return "cuda";
    case GALA_BACKEND_HOST: return "host";
    }
    return "unknown";
}

static const gala_device_ops *backend_ops(gala_backend b)
{
    switch (b) {
    case GALA_BACKEND_HOST: return &gala_host_ops;
    case GALA_BACKEND_OPENCL: return gala_opencl_ops();
    case GALA_BACKEND_CUDA: return gala_cuda_ops();
    default: return NULL;
    }
}

int gala_backend_available(gala_backend b) { return backend_ops(b) != NULL; }

void gala_context_options_default(gala_context_options *opts)
{
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    opts->backend = GALA_BACKEND_AUTO;
    opts->use_environment = 1;
}

static gala_status parse_backend(const char *s, gala_backend *out)
{
    static const gala_backend all[] = {GALA_BACKEND_AUTO, GALA_BACKEND_OPENCL, GALA_BACKEND_CUDA,
                                       GALA_BACKEND_HOST};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        const char *name = gala_backend_name(all[i]);
        if (strlen(s) == strlen(name) && gala_strcasestr_match(s, name)) {
            *out = all[i];
            return GALA_OK;
        }
    }
    return gala_error(NULL, GALA_ERR_INVALID_ARG,
                      "GALA_BACKEND='%s' is not one of auto, opencl, cuda, host", s);
}

static gala_status try_open(gala_context *ctx, const gala_device_ops *ops,
                            const gala_context_options *o, const char *plat, const char *dev,
                            int prefer_gpu)
{
    ctx->ops = ops;
    gala_status s = ops->open(ctx, o, plat, dev, prefer_gpu);
    if (s != GALA_OK) ctx->ops = NULL;
    return s;
}

gala_status gala_context_create(const gala_context_options *opts, gala_context **out)
{
    if (!out) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_context_create: ctx is NULL");
    *out = NULL;
    gala_context_options o;
    if (opts) o = *opts; else gala_context_options_default(&o);

    const char *plat = o.platform, *dev = o.device;
    gala_backend want = o.backend;
    if (o.use_environment) {
        const char *e;
        if ((e = getenv("GALA_BACKEND")) && *e) GALA_TRY(parse_backend(e, &want));
        if ((e = getenv("GALA_PLATFORM")) && *e) plat = e;
        if ((e = getenv("GALA_DEVICE")) && *e) dev = e;
    }
    if (want < GALA_BACKEND_AUTO || want > GALA_BACKEND_HOST)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_context_create: unknown backend %d",
                          (int)want);

    gala_context *ctx = gala_calloc(1, sizeof *ctx);
    if (!ctx) return gala_error(NULL, GALA_ERR_OUT_OF_MEMORY, "gala_context_create: no memory");
    ctx->profiling = o.profiling;
    ctx->loop_limit = -1;

    gala_status s = GALA_ERR_NO_DEVICE;
    if (o.native_stream && want != GALA_BACKEND_AUTO && want != GALA_BACKEND_CUDA) {
        s = gala_error(NULL, GALA_ERR_INVALID_ARG,
                       "gala_context_create: options.native_stream is a CUDA stream, but the "
                       "%s backend was requested", gala_backend_name(want));
    } else if (o.native_stream && want == GALA_BACKEND_AUTO) {
        /* a caller's CUDA stream: only the CUDA backend can order work on it */
        s = gala_cuda_ops() ? try_open(ctx, gala_cuda_ops(), &o, plat, dev, 0)
                            : gala_error(NULL, GALA_ERR_NOT_SUPPORTED,
                                         "gala_context_create: options.native_stream needs the "
                                         "CUDA backend, which this build lacks");
    } else if (want != GALA_BACKEND_AUTO) {
        const gala_device_ops *ops = backend_ops(want);
        if (!ops)
            s = gala_error(NULL, GALA_ERR_NOT_SUPPORTED,
                           "gala_context_create: this build of gala has no %s backend",
                           gala_backend_name(want));
        else
            s = try_open(ctx, ops, &o, plat, dev, 0);
    } else if (plat || dev) {
        /* A named device: look for it on the GPU backends only, never fall back silently. */
        const gala_device_ops *cand[2] = {gala_opencl_ops(), gala_cuda_ops()};
        for (int i = 0; i < 2 && s != GALA_OK; ++i)
            if (cand[i]) s = try_open(ctx, cand[i], &o, plat, dev, 0);
        if (s != GALA_OK)
            s = gala_error(NULL, GALA_ERR_NO_DEVICE,
                           "gala_context_create: no OpenCL or CUDA device matches platform '%s' "
                           "device '%s'",
                           plat ? plat : "(any)", dev ? dev : "(any)");
    } else {
        /* AUTO: the fastest device gala has, and the fastest to start: a CUDA GPU (as fast
         * as NVIDIA's OpenCL or faster in every family measured, and its kernels prebuilt:
         * a cold first solve in 0.4 s where NVIDIA's OpenCL compiles for about a minute),
         * an OpenCL GPU (AMD, Intel, or NVIDIA in a build without CUDA), else the host
         * backend (every core). An OpenCL CPU device (PoCL, llvmpipe) only when asked for:
         * on the 2-core development machine PoCL solved the demo's 500 control QPs at
         * 147-163 QPs/s with its kernels cached, the host backend at 696-745 on one core
         * (issue 37). */
        struct { const gala_device_ops *ops; int gpu; } order[3] = {
            {gala_cuda_ops(), 0}, {gala_opencl_ops(), 1}, {&gala_host_ops, 0}};
        for (int i = 0; i < 3 && s != GALA_OK; ++i)
            if (order[i].ops) s = try_open(ctx, order[i].ops, &o, NULL, NULL, order[i].gpu);
    }
    if (s != GALA_OK) {
        if (ctx->err) gala_error(NULL, s, "%s", ctx->err);
        gala_free(ctx->err);
        gala_free(ctx);
        return s;
    }
    gala_strlcpy(ctx->info.backend_name, ctx->ops->name, sizeof ctx->info.backend_name);
    ctx->info.backend = ctx->ops->backend;
    gala_error_clear(ctx);
    *out = ctx;
    return GALA_OK;
}

gala_status gala_context_twin(gala_context *parent, gala_context **out)
{
    *out = NULL;
    if (!parent->ops->twin)
        return gala_error(parent, GALA_ERR_NOT_SUPPORTED, "the %s backend has no twin contexts",
                          parent->ops->name);
    gala_context *ctx = gala_calloc(1, sizeof *ctx);
    if (!ctx) return gala_error(parent, GALA_ERR_OUT_OF_MEMORY, "a twin context: no host memory");
    ctx->ops = parent->ops;
    ctx->profiling = parent->profiling;
    ctx->loop_limit = parent->loop_limit; /* the same device */
    gala_status s = ctx->ops->twin(ctx, parent);
    if (s != GALA_OK) {
        gala_error(parent, s, "a twin context: %s", ctx->err ? ctx->err : "failed");
        gala_free(ctx->err);
        gala_free(ctx);
        return s;
    }
    ctx->info = parent->info;
    ctx->twin_of = parent;
    memcpy(ctx->tune.set, parent->tune.set, sizeof ctx->tune.set);
    memcpy(ctx->tune.set_v, parent->tune.set_v, sizeof ctx->tune.set_v);
    gala_error_clear(ctx);
    *out = ctx;
    return GALA_OK;
}

void gala_context_twin_sync(gala_context *twin)
{
    const gala_context *p = twin->twin_of;
    if (!p || (!memcmp(twin->tune.set, p->tune.set, sizeof p->tune.set) &&
               !memcmp(twin->tune.set_v, p->tune.set_v, sizeof p->tune.set_v)))
        return;
    memcpy(twin->tune.set, p->tune.set, sizeof p->tune.set);
    memcpy(twin->tune.set_v, p->tune.set_v, sizeof p->tune.set_v);
    gala_tune_invalidate(twin);
}

int gala_same_memory(const gala_context *a, const gala_context *b)
{
    const gala_context *ra = a && a->twin_of ? a->twin_of : a;
    const gala_context *rb = b && b->twin_of ? b->twin_of : b;
    return ra && ra == rb;
}

gala_status gala_context_destroy(gala_context *ctx)
{
    if (!ctx) return GALA_OK;
    gala_status s = ctx->ops->finish(ctx);
    while (ctx->buffers) gala_buffer_free(ctx->buffers);
    for (int i = 0; i < (int)(sizeof ctx->scratch / sizeof ctx->scratch[0]); ++i) {
        if (ctx->scratch[i]) {
            ctx->ops->mem_free(ctx, ctx->scratch[i]->handle);
            gala_free(ctx->scratch[i]);
        }
    }
    if (ctx->vb_memo_free) ctx->vb_memo_free(ctx->vb_memo);
    gala_pool_free(ctx->pool);
    if (ctx->stg_ptr) ctx->ops->host_free(ctx, ctx->stg_ptr, ctx->stg_handle);
    if (ctx->flag_buf) ctx->ops->mapped_free(ctx, ctx->flag_buf->handle, (void *)ctx->flag_host);
    gala_free(ctx->flag_buf);
    gala_programs_release(ctx);
    ctx->ops->close(ctx);
    gala_tune_free(ctx);
    gala_free(ctx->err);
    gala_free(ctx);
    return s;
}

gala_status gala_context_info(const gala_context *ctx, gala_device_info *info)
{
    GALA_TRY(gala_check_ctx(ctx, "gala_context_info"));
    if (!info) return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_context_info: info is NULL");
    *info = ctx->info;
    return GALA_OK;
}

gala_status gala_context_stats(const gala_context *ctx, gala_stats *stats)
{
    GALA_TRY(gala_check_ctx(ctx, "gala_context_stats"));
    if (!stats) return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_context_stats: stats is NULL");
    *stats = ctx->stats;
    return GALA_OK;
}

gala_status gala_context_fallbacks(const gala_context *ctx, char *text, size_t cap, int *count)
{
    GALA_TRY(gala_check_ctx(ctx, "gala_context_fallbacks"));
    if (!text || cap == 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "gala_context_fallbacks: text is NULL or cap is 0");
    size_t k = 0;
    text[0] = '\0';
    for (int i = 0; i < ctx->nfallbacks && k < cap; ++i)
        k += (size_t)snprintf(text + k, cap - k, "%s%s", i ? "\n" : "", ctx->fallbacks[i]);
    if (count) *count = (int)ctx->stats.kernel_fallbacks;
    return GALA_OK;
}

gala_status gala_finish(gala_context *ctx)
{
    GALA_TRY(gala_check_ctx(ctx, "gala_finish"));
    return ctx->ops->finish(ctx);
}

/* Backends with lanes have lanes 0 and 1 (device.h); the host backend has none and takes
 * any number (its operations run in order). */
static gala_status lane_check(gala_context *ctx, const char *fn, int lane)
{
    if (lane == 0 || lane == 1) return GALA_OK;
    return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the %s backend has no lane %d", fn,
                      ctx->ops->name, lane);
}

gala_status gala_lane_select(gala_context *ctx, int lane)
{
    if (!ctx->ops->lane_select) return GALA_OK;
    GALA_TRY(lane_check(ctx, "gala_lane_select", lane));
    return ctx->ops->lane_select(ctx, lane);
}

gala_status gala_lane_wait(gala_context *ctx, int lane, int on)
{
    if (!ctx->ops->lane_wait || lane == on) return GALA_OK;
    GALA_TRY(lane_check(ctx, "gala_lane_wait", lane));
    GALA_TRY(lane_check(ctx, "gala_lane_wait", on));
    return ctx->ops->lane_wait(ctx, lane, on);
}

gala_status gala_lane_reserve(gala_context *ctx, int units)
{
    return ctx->ops->lane_reserve ? ctx->ops->lane_reserve(ctx, units) : GALA_OK;
}

gala_status gala_lane_join(gala_context *ctx, gala_status s)
{
    /* every step runs even after a failure: the context must be left on lane 0 */
    gala_status r = gala_lane_reserve(ctx, 0);
    gala_status w = gala_lane_select(ctx, 0);
    gala_status j = gala_lane_wait(ctx, 0, 1);
    if (s != GALA_OK) return s;
    return r != GALA_OK ? r : (w != GALA_OK ? w : j);
}

gala_status gala_device_list(gala_device_desc *descs, int cap, int *count)
{
    if (!count) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_device_list: count is NULL");
    if (cap < 0 || (cap > 0 && !descs))
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_device_list: bad capacity or array");
    const gala_device_ops *all[3] = {gala_opencl_ops(), gala_cuda_ops(), &gala_host_ops};
    int total = 0;
    for (int i = 0; i < 3; ++i) {
        if (!all[i]) continue;
        int n = 0, room = cap > total ? cap - total : 0;
        if (all[i]->list(room ? descs + total : NULL, room, &n) != GALA_OK) continue;
        total += n;
    }
    *count = total;
    return GALA_OK;
}

/* ---------------------------------------------------------------- staging */

void *gala_staging_take(gala_context *ctx, size_t bytes)
{
    if (!ctx || !ctx->ops->host_alloc || ctx->stg_lent || bytes == 0) return NULL;
    const long max_mb = gala_tuned(ctx, 0)->staging.max_mb;
    if ((double)bytes > max_mb * 1048576.0) return NULL;
    if (ctx->stg_bytes < bytes) {
        if (ctx->stg_ptr) ctx->ops->host_free(ctx, ctx->stg_ptr, ctx->stg_handle);
        ctx->stg_ptr = ctx->stg_handle = NULL;
        ctx->stg_bytes = 0;
        /* a little headroom, so that a batch that grows slowly does not re-pin each time */
        const size_t want = bytes + bytes / 8;
        void *p = NULL, *h = NULL;
        if (ctx->ops->host_alloc(ctx, want, &p, &h) != GALA_OK) {
            gala_error_clear(ctx); /* the caller goes on with ordinary memory */
            return NULL;
        }
        ctx->stg_ptr = p;
        ctx->stg_handle = h;
        ctx->stg_bytes = want;
    }
    ctx->stg_lent = 1;
    return ctx->stg_ptr;
}

void gala_flag_word(gala_context *ctx, gala_buffer **buf, volatile int **host)
{
    if (!ctx->flag_tried && ctx->ops->mapped_alloc) {
        ctx->flag_tried = 1;
        gala_buffer *b = gala_calloc(1, sizeof *b);
        void *h = NULL, *p = NULL;
        if (b && ctx->ops->mapped_alloc(ctx, 64, &h, &p) == GALA_OK) {
            b->ctx = ctx;
            b->dtype = GALA_INT;
            b->count = 1;
            b->bytes = sizeof(int);
            b->handle = h;
            b->owned = 0; /* not in ctx->buffers: released by gala_context_destroy */
            ctx->flag_buf = b;
            ctx->flag_host = p;
        } else if (b) {
            gala_free(b);
            gala_error_clear(ctx); /* its message: the caller reads a device word instead */
        }
    }
    *buf = ctx->flag_buf;
    *host = ctx->flag_host;
}

void gala_staging_give(gala_context *ctx, void *p)
{
    if (ctx && p && p == ctx->stg_ptr) ctx->stg_lent = 0;
}

/* ---------------------------------------------------------------- scratch */

gala_status gala_scratch(gala_context *ctx, int slot, gala_dtype dtype, size_t count,
                         gala_buffer **out)
{
    size_t bytes;
    if (slot < 0 || slot >= (int)(sizeof ctx->scratch / sizeof ctx->scratch[0]))
        return gala_error(ctx, GALA_ERR_INTERNAL, "scratch slot %d out of range", slot);
    if (gala_mul_overflow(count ? count : 1, gala_dtype_size(dtype), &bytes))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "workspace size overflows");
    gala_buffer *b = ctx->scratch[slot];
    if (!b || b->bytes < bytes) {
        gala_buffer *nb = gala_calloc(1, sizeof *nb);
        if (!nb) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for a workspace");
        if (gala_fault_hit(GALA_FAULT_ALLOC) || gala_fault_alloc_refused(bytes)) {
            gala_free(nb);
            return gala_error(ctx, GALA_ERR_DEVICE_MEMORY,
                              "workspace of %zu bytes: allocation failed (injected fault)", bytes);
        }
        gala_status s = ctx->ops->mem_alloc(ctx, bytes, &nb->handle);
        if (s != GALA_OK) {
            gala_free(nb);
            return s;
        }
        if (b) {
            /* work queued on the old workspace must finish before it is released */
            ctx->ops->finish(ctx);
            ctx->ops->mem_free(ctx, b->handle);
            gala_free(b);
        }
        nb->ctx = ctx;
        nb->bytes = bytes;
        nb->owned = 1;
        ctx->scratch[slot] = b = nb;
    }
    b->dtype = dtype;
    b->count = b->bytes / gala_dtype_size(dtype);
    *out = b;
    return GALA_OK;
}
