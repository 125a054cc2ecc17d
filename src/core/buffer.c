/* Device buffers: typed, element-addressed, owned by one context. */
#include <stdatomic.h>
#include <string.h>

#include "internal.h"

gala_status gala_buffer_create(gala_context *ctx, gala_dtype dtype, size_t count, gala_buffer **out)
{
    GALA_TRY(gala_check_ctx(ctx, "gala_buffer_create"));
    if (!out) return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_buffer_create: buf is NULL");
    *out = NULL;
    size_t esize = gala_dtype_size(dtype), bytes;
    if (!esize)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_buffer_create: unknown type %d",
                          (int)dtype);
    if (count == 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_buffer_create: count is 0");
    if (gala_mul_overflow(count, esize, &bytes))
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "gala_buffer_create: %zu elements of %zu bytes overflow", count, esize);
    if (dtype == GALA_DOUBLE && !ctx->info.fp64)
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED,
                          "gala_buffer_create: device '%s' has no double precision",
                          ctx->info.device_name);
    if (ctx->info.max_alloc_bytes && bytes > ctx->info.max_alloc_bytes)
        return gala_error(ctx, GALA_ERR_DEVICE_MEMORY,
                          "gala_buffer_create: %zu bytes exceed the device's largest allocation "
                          "(%zu bytes)",
                          bytes, ctx->info.max_alloc_bytes);
    gala_buffer *b = gala_calloc(1, sizeof *b);
    if (!b) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_buffer_create: no host memory");
    if (gala_fault_hit(GALA_FAULT_ALLOC) || gala_fault_alloc_refused(bytes)) {
        gala_free(b);
        return gala_error(ctx, GALA_ERR_DEVICE_MEMORY,
                          "gala_buffer_create: allocation of %zu bytes failed (injected fault)",
                          bytes);
    }
    gala_status s = ctx->ops->mem_alloc(ctx, bytes, &b->handle);
    if (s != GALA_OK) {
        gala_free(b);
        return s;
    }
    b->ctx = ctx;
    b->dtype = dtype;
    b->count = count;
    b->bytes = bytes;
    b->owned = 1;
    b->owner = ctx->buf_owner;
    b->next = ctx->buffers;
    if (ctx->buffers) ctx->buffers->prev = b;
    ctx->buffers = b;
    ctx->stats.buffers_live++;
    ctx->stats.bytes_live += bytes;
    *out = b;
    return GALA_OK;
}

gala_status gala_buffer_wrap(gala_context *ctx, gala_dtype dtype, size_t count, void *native,
                             gala_buffer **out)
{
    static const char fn[] = "gala_buffer_wrap";
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (!out) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: buf is NULL", fn);
    *out = NULL;
    size_t esize = gala_dtype_size(dtype), bytes;
    if (!esize) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: unknown type %d", fn, (int)dtype);
    if (count == 0) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: count is 0", fn);
    if (!native) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: native is NULL", fn);
    if (gala_mul_overflow(count, esize, &bytes))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: %zu elements of %zu bytes overflow", fn,
                          count, esize);
    if (dtype == GALA_DOUBLE && !ctx->info.fp64)
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "%s: device '%s' has no double precision",
                          fn, ctx->info.device_name);
    void *handle = native;
    if (ctx->ops->mem_wrap) {
        GALA_TRY(ctx->ops->mem_wrap(ctx, native, bytes, esize, &handle));
    } else if (ctx->ops->backend == GALA_BACKEND_HOST && (uintptr_t)native % esize != 0) {
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: host pointer %p is not aligned to %zu bytes",
                          fn, native, esize);
    }
    gala_buffer *b = gala_calloc(1, sizeof *b);
    if (!b) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    b->ctx = ctx;
    b->dtype = dtype;
    b->count = count;
    b->bytes = bytes;
    b->handle = handle;
    b->owned = 0; /* gala_buffer_free leaves the memory to its owner */
    b->next = ctx->buffers;
    if (ctx->buffers) ctx->buffers->prev = b;
    ctx->buffers = b;
    ctx->stats.buffers_live++;
    ctx->stats.bytes_live += bytes;
    *out = b;
    return GALA_OK;
}

/* Page-locked host copies of the whole process, in bytes, and their bound: a quarter of the
 * host's memory (memory the system can no longer page out or give to others). */
static atomic_size_t pinned_bytes;

static int pin_room(size_t bytes)
{
    const size_t cap = gala_host_memory_bytes() / 4;
    size_t was = atomic_fetch_add(&pinned_bytes, bytes);
    if (was + bytes <= cap) return 1;
    atomic_fetch_sub(&pinned_bytes, bytes);
    return 0;
}

/* A buffer's host copy for parking: page-locked where asked, the backend has it and the
 * process's page-locked copies stay within their bound; else plain memory. */
static void *host_copy_alloc(gala_context *ctx, gala_buffer *b, int pinned)
{
    void *p = NULL, *h = NULL;
    b->pinned = 0;
    if (pinned && ctx->ops->host_alloc && pin_room(b->bytes)) {
        if (ctx->ops->host_alloc(ctx, b->bytes, &p, &h) == GALA_OK) {
            b->host_pin = h;
            b->pinned = 1;
            return b->host_copy = p;
        }
        atomic_fetch_sub(&pinned_bytes, b->bytes);
        gala_error_clear(ctx); /* a refusal: plain memory serves */
    }
    return b->host_copy = gala_malloc(b->bytes);
}

static void host_copy_free(gala_buffer *b)
{
    if (b->pinned) {
        b->ctx->ops->host_free(b->ctx, b->host_copy, b->host_pin);
        atomic_fetch_sub(&pinned_bytes, b->bytes);
    } else {
        gala_free(b->host_copy);
    }
    b->host_copy = b->host_pin = NULL;
    b->pinned = 0;
}

gala_status gala_buffer_free(gala_buffer *b)
{
    if (!b) return GALA_OK;
    gala_context *ctx = b->ctx;
    if (b->prev) b->prev->next = b->next; else ctx->buffers = b->next;
    if (b->next) b->next->prev = b->prev;
    if (b->owned && !b->parked) ctx->ops->mem_free(ctx, b->handle);
    ctx->stats.buffers_live--;
    if (!b->parked) ctx->stats.bytes_live -= b->bytes;
    host_copy_free(b);
    gala_free(b);
    return GALA_OK;
}

size_t gala_buffer_count(const gala_buffer *b) { return b ? b->count : 0; }
gala_dtype gala_buffer_dtype(const gala_buffer *b) { return b ? b->dtype : (gala_dtype)0; }
gala_context *gala_buffer_context(const gala_buffer *b) { return b ? b->ctx : NULL; }

static gala_status check_range(const gala_buffer *b, size_t off, size_t count, const void *host,
                               const char *fn)
{
    if (!b) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: buffer is NULL", fn);
    if (!host && count)
        return gala_error(b->ctx, GALA_ERR_INVALID_ARG, "%s: host pointer is NULL", fn);
    if (off > b->count || count > b->count - off)
        return gala_error(b->ctx, GALA_ERR_INVALID_ARG,
                          "%s: elements [%zu, %zu) are outside the buffer of %zu", fn, off,
                          off + count, b->count);
    return GALA_OK;
}

static gala_status transfer(gala_buffer *b, size_t off, size_t count, void *host, int write,
                            int blocking, const char *fn)
{
    GALA_TRY(check_range(b, off, count, host, fn));
    if (count == 0) return GALA_OK;
    gala_context *ctx = b->ctx;
    size_t es = gala_dtype_size(b->dtype);
    if (ctx->dry && !write) { /* a dry pass (gala_dry_begin): no kernel ran */
        memset(host, 0, count * es);
        return GALA_OK;
    }
    if (gala_fault_hit(GALA_FAULT_TRANSFER))
        return gala_error(ctx, GALA_ERR_DEVICE, "%s: transfer failed (injected fault)", fn);
    if (b->parked) { /* its host copy */
        if (!b->host_copy) return gala_error(ctx, GALA_ERR_INTERNAL, "%s: the buffer is parked "
                                             "without its contents", fn);
        unsigned char *h = (unsigned char *)b->host_copy + off * es;
        if (write) memcpy(h, host, count * es);
        else memcpy(host, h, count * es);
        return GALA_OK;
    }
    if (write) gala_buffer_touch(b);
    return write ? ctx->ops->mem_write(ctx, b->handle, off * es, count * es, host, blocking)
                 : ctx->ops->mem_read(ctx, b->handle, off * es, count * es, host, blocking);
}

gala_status gala_buffer_write(gala_buffer *b, size_t off, size_t count, const void *src)
{
    return transfer(b, off, count, (void *)src, 1, 1, "gala_buffer_write");
}
gala_status gala_buffer_write_async(gala_buffer *b, size_t off, size_t count, const void *src)
{
    return transfer(b, off, count, (void *)src, 1, 0, "gala_buffer_write_async");
}
gala_status gala_buffer_read(const gala_buffer *b, size_t off, size_t count, void *dst)
{
    return transfer((gala_buffer *)b, off, count, dst, 0, 1, "gala_buffer_read");
}
gala_status gala_buffer_read_async(const gala_buffer *b, size_t off, size_t count, void *dst)
{
    return transfer((gala_buffer *)b, off, count, dst, 0, 0, "gala_buffer_read_async");
}

gala_status gala_buffer_copy(const gala_buffer *src, size_t so, gala_buffer *dst, size_t d_o,
                             size_t count)
{
    static const char fn[] = "gala_buffer_copy";
    if (!src || !dst) return gala_error(src ? src->ctx : dst ? dst->ctx : NULL,
                                        GALA_ERR_INVALID_ARG, "%s: a buffer is NULL", fn);
    gala_context *ctx = dst->ctx;
    if (src->ctx != dst->ctx)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: buffers of different contexts", fn);
    if (src->dtype != dst->dtype)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: buffers of types %s and %s", fn,
                          gala_dtype_name(src->dtype), gala_dtype_name(dst->dtype));
    GALA_TRY(check_range(src, so, count, src, fn));
    GALA_TRY(check_range(dst, d_o, count, dst, fn));
    if (gala_ranges_overlap(src, so, count, dst, d_o, count))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: source and destination overlap", fn);
    if (count == 0 || ctx->dry) return GALA_OK;
    if (gala_fault_hit(GALA_FAULT_TRANSFER))
        return gala_error(ctx, GALA_ERR_DEVICE, "%s: copy failed (injected fault)", fn);
    size_t es = gala_dtype_size(src->dtype);
    gala_buffer_touch(dst);
    if (src->parked || dst->parked) { /* one side (or both) in its host copy */
        if ((src->parked && !src->host_copy) || (dst->parked && !dst->host_copy))
            return gala_error(ctx, GALA_ERR_INTERNAL, "%s: a buffer is parked without its "
                              "contents", fn);
        unsigned char *sh = src->parked ? (unsigned char *)src->host_copy + so * es : NULL;
        unsigned char *dh = dst->parked ? (unsigned char *)dst->host_copy + d_o * es : NULL;
        if (sh && dh) {
            memmove(dh, sh, count * es);
            return GALA_OK;
        }
        return sh ? ctx->ops->mem_write(ctx, dst->handle, d_o * es, count * es, sh, 1)
                  : ctx->ops->mem_read(ctx, src->handle, so * es, count * es, dh, 1);
    }
    return ctx->ops->mem_copy(ctx, src->handle, so * es, dst->handle, d_o * es, count * es);
}

gala_status gala_buffer_fill(gala_buffer *b, size_t off, size_t count, double value)
{
    static const char fn[] = "gala_buffer_fill";
    GALA_TRY(check_range(b, off, count, b, fn));
    gala_context *ctx = b->ctx;
    if (count == 0 || ctx->dry) return GALA_OK;
    unsigned char pat[8];
    size_t es = gala_dtype_size(b->dtype);
    if (b->dtype == GALA_FLOAT) {
        float f = (float)value;
        memcpy(pat, &f, 4);
    } else if (b->dtype == GALA_DOUBLE) {
        memcpy(pat, &value, 8);
    } else {
        if (!(value >= -2147483648.0 && value <= 2147483647.0))
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: %g does not fit an int", fn, value);
        int i = (int)value;
        memcpy(pat, &i, 4);
    }
    if (gala_fault_hit(GALA_FAULT_TRANSFER))
        return gala_error(ctx, GALA_ERR_DEVICE, "%s: fill failed (injected fault)", fn);
    if (b->parked) {
        if (!b->host_copy) return gala_error(ctx, GALA_ERR_INTERNAL, "%s: the buffer is parked "
                                             "without its contents", fn);
        unsigned char *h = (unsigned char *)b->host_copy + off * es;
        for (size_t i = 0; i < count; ++i) memcpy(h + i * es, pat, es);
        return GALA_OK;
    }
    gala_buffer_touch(b);
    return ctx->ops->mem_fill(ctx, b->handle, off * es, count * es, pat, es);
}

/* ---------------------------------------------------------------- parking */

const void *gala_buffer_owner(gala_context *ctx, const void *owner)
{
    const void *was = ctx->buf_owner;
    ctx->buf_owner = owner;
    return was;
}

static int parkable(const gala_buffer *b, const void *owner)
{
    return owner && b->owner == owner && b->owned;
}

static int dropped(const gala_buffer *b, gala_buffer *const *drop, int ndrop)
{
    for (int i = 0; i < ndrop; ++i)
        if (drop[i] == b) return 1;
    return 0;
}

/* Both directions are all or nothing: park queues every read into the host copies (but
 * of the buffers whose host copy is current: nothing wrote them on the device since their
 * last park or unpark, such as a chunk's matrix values between solves), waits,
 * and releases the device memory only once every read has landed; unpark allocates and
 * queues every write (parked = 2 meanwhile) and waits; a failure undoes the call's own
 * steps. A buffer keeps its host copy once made (freed with the buffer): the next park of
 * a large batch reuses it instead of allocating and first-touching gigabytes again. */
gala_status gala_buffers_park(gala_context *ctx, const void *owner, gala_buffer *const *drop,
                              int ndrop, int pinned, size_t *host_bytes)
{
    gala_status st = GALA_OK;
    for (gala_buffer *b = ctx->buffers; b && st == GALA_OK; b = b->next) {
        if (!parkable(b, owner) || b->parked || dropped(b, drop, ndrop)) continue;
        if (b->host_copy && b->host_current) continue; /* its host copy holds it already */
        if (!b->host_copy) host_copy_alloc(ctx, b, pinned);
        if (!b->host_copy)
            st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "parking a buffer: no host memory for "
                            "%zu bytes", b->bytes);
        else
            st = gala_buffer_read_async(b, 0, b->count, b->host_copy);
    }
    const gala_status f = ctx->ops->finish(ctx);
    if (st == GALA_OK) st = f;
    size_t hb = 0;
    for (gala_buffer *b = ctx->buffers; b; b = b->next) {
        if (!parkable(b, owner)) continue;
        if (!b->parked && st != GALA_OK) continue; /* undone: the device copy stays the one */
        if (!b->parked) {
            ctx->ops->mem_free(ctx, b->handle);
            b->handle = NULL;
            b->parked = 1;
            ctx->stats.bytes_live -= b->bytes;
            if (dropped(b, drop, ndrop)) /* its contents go: no stale copy may stand in */
                host_copy_free(b);
            b->host_current = b->host_copy != NULL;
        }
        if (b->host_copy && !dropped(b, drop, ndrop)) hb += b->bytes;
    }
    if (host_bytes) *host_bytes = st == GALA_OK ? hb : 0;
    return st;
}

gala_status gala_buffers_unpark(gala_context *ctx, const void *owner)
{
    gala_status st = GALA_OK;
    for (gala_buffer *b = ctx->buffers; b && st == GALA_OK; b = b->next) {
        if (!parkable(b, owner) || b->parked != 1) continue;
        if (gala_fault_hit(GALA_FAULT_ALLOC) || gala_fault_alloc_refused(b->bytes)) {
            st = gala_error(ctx, GALA_ERR_DEVICE_MEMORY, "unparking a buffer: allocation of %zu "
                            "bytes failed (injected fault)", b->bytes);
            break;
        }
        void *h = NULL;
        st = ctx->ops->mem_alloc(ctx, b->bytes, &h);
        if (st != GALA_OK) break;
        b->handle = h;
        b->parked = 2; /* device memory held, contents on their way */
        ctx->stats.bytes_live += b->bytes;
        if (b->host_copy) {
            /* transfer() writes a parked buffer's host copy: queue the device write here */
            if (gala_fault_hit(GALA_FAULT_TRANSFER))
                st = gala_error(ctx, GALA_ERR_DEVICE, "unparking a buffer: transfer failed "
                                "(injected fault)");
            else
                st = ctx->ops->mem_write(ctx, h, 0, b->bytes, b->host_copy, 0);
        }
    }
    const gala_status f = ctx->ops->finish(ctx);
    if (st == GALA_OK) st = f;
    for (gala_buffer *b = ctx->buffers; b; b = b->next) {
        if (!parkable(b, owner) || b->parked != 2) continue;
        if (st != GALA_OK) { /* undone: the host copy stays the one */
            ctx->ops->mem_free(ctx, b->handle);
            b->handle = NULL;
            b->parked = 1;
            ctx->stats.bytes_live -= b->bytes;
            continue;
        }
        b->parked = 0; /* its host copy stays for the next park, current until a write */
        b->host_current = b->host_copy != NULL;
    }
    return st;
}

int gala_buffers_parked(const gala_context *ctx, const void *owner)
{
    for (const gala_buffer *b = ctx->buffers; b; b = b->next)
        if (parkable(b, owner) && b->parked) return 1;
    return 0;
}

/* ---------------------------------------------------------------- timers */

struct gala_timer {
    gala_context *ctx;
    void *handle;
};

gala_status gala_timer_record(gala_context *ctx, gala_timer **out)
{
    GALA_TRY(gala_check_ctx(ctx, "gala_timer_record"));
    if (!out) return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_timer_record: timer is NULL");
    gala_timer *t = gala_calloc(1, sizeof *t);
    if (!t) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_timer_record: no memory");
    gala_status s = ctx->ops->timer_record(ctx, &t->handle);
    if (s != GALA_OK) {
        gala_free(t);
        return s;
    }
    t->ctx = ctx;
    *out = t;
    return GALA_OK;
}

gala_status gala_timer_elapsed_ms(gala_timer *a, gala_timer *b, double *ms)
{
    if (!a || !b || !ms || a->ctx != b->ctx)
        return gala_error(a ? a->ctx : NULL, GALA_ERR_INVALID_ARG,
                          "gala_timer_elapsed_ms: NULL argument or timers of two contexts");
    return a->ctx->ops->timer_elapsed(a->ctx, a->handle, b->handle, ms);
}

gala_status gala_timer_free(gala_timer *t)
{
    if (!t) return GALA_OK;
    t->ctx->ops->timer_free(t->ctx, t->handle);
    gala_free(t);
    return GALA_OK;
}
