/* Status strings, per-context and per-thread error messages, argument checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *gala_status_string(gala_status s)
{
    switch (s) {
    case GALA_OK: return "GALA_OK: success";
    case GALA_ERR_INVALID_ARG: return "GALA_ERR_INVALID_ARG: invalid argument";
    case GALA_ERR_OUT_OF_MEMORY: return "GALA_ERR_OUT_OF_MEMORY: out of host memory";
    case GALA_ERR_DEVICE_MEMORY: return "GALA_ERR_DEVICE_MEMORY: out of device memory";
    case GALA_ERR_DEVICE: return "GALA_ERR_DEVICE: device or driver failure";
    case GALA_ERR_KERNEL_BUILD: return "GALA_ERR_KERNEL_BUILD: kernel compilation failed";
    case GALA_ERR_NOT_SUPPORTED: return "GALA_ERR_NOT_SUPPORTED: not supported";
    case GALA_ERR_NO_DEVICE: return "GALA_ERR_NO_DEVICE: no matching device";
    case GALA_ERR_NOT_POSITIVE_DEFINITE:
        return "GALA_ERR_NOT_POSITIVE_DEFINITE: matrix not positive definite";
    case GALA_ERR_SINGULAR: return "GALA_ERR_SINGULAR: singular matrix";
    case GALA_ERR_NOT_FINITE: return "GALA_ERR_NOT_FINITE: NaN or Inf in input";
    case GALA_ERR_IO: return "GALA_ERR_IO: input/output error";
    case GALA_ERR_PARSE: return "GALA_ERR_PARSE: parse error";
    case GALA_ERR_INVALID_MATRIX: return "GALA_ERR_INVALID_MATRIX: malformed matrix data";
    case GALA_ERR_WRONG_INERTIA: return "GALA_ERR_WRONG_INERTIA: wrong inertia";
    case GALA_ERR_INTERNAL: return "GALA_ERR_INTERNAL: internal error (a bug in gala)";
    }
    return "unknown status";
}

size_t gala_dtype_size(gala_dtype t)
{
    switch (t) {
    case GALA_FLOAT: return 4;
    case GALA_DOUBLE: return 8;
    case GALA_INT: return 4;
    }
    return 0;
}

const char *gala_dtype_name(gala_dtype t)
{
    switch (t) {
    case GALA_FLOAT: return "float";
    case GALA_DOUBLE: return "double";
    case GALA_INT: return "int";
    }
    return "unknown";
}

#define GALA_STR2(x) #x
#define GALA_STR(x) GALA_STR2(x)
const char *gala_version(void)
{
    return GALA_STR(GALA_VERSION_MAJOR) "." GALA_STR(GALA_VERSION_MINOR) "." GALA_STR(
        GALA_VERSION_PATCH);
}

/* ---------------------------------------------------------------- messages */

static _Thread_local char tls_err[4096];

static void set_msg(const gala_context *cctx, const char *text, int append)
{
    gala_context *ctx = (gala_context *)cctx; /* the message slot is mutable state */
    if (!ctx) {
        size_t used = append ? strlen(tls_err) : 0;
        gala_strlcpy(tls_err + used, text, sizeof tls_err - used);
        return;
    }
    size_t used = (append && ctx->err) ? strlen(ctx->err) : 0;
    size_t need = used + strlen(text) + 1;
    if (need > ctx->err_cap) {
        size_t cap = need < 256 ? 256 : need;
        char *p = realloc(ctx->err, cap);
        if (!p) return; /* keep the old message; nothing else to do without memory */
        ctx->err = p;
        ctx->err_cap = cap;
    }
    memcpy(ctx->err + used, text, strlen(text) + 1);
}

gala_status gala_verror(const gala_context *ctx, gala_status status, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    set_msg(ctx, buf, 0);
    return status;
}

gala_status gala_error(const gala_context *ctx, gala_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gala_verror(ctx, status, fmt, ap);
    va_end(ap);
    return status;
}

void gala_error_append(const gala_context *ctx, const char *text) { set_msg(ctx, text, 1); }

void gala_error_clear(const gala_context *ctx) { set_msg(ctx, "", 0); }

const char *gala_last_error(const gala_context *ctx)
{
    if (!ctx) return tls_err;
    return ctx->err ? ctx->err : "";
}

/* ---------------------------------------------------------------- checks */

gala_status gala_check_ctx(const gala_context *ctx, const char *fn)
{
    if (!ctx) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: context is NULL", fn);
    return GALA_OK;
}

int gala_mul_overflow(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return 1;
    *out = a * b;
    return 0;
}

size_t gala_span(size_t item, size_t stride, size_t batch, int *overflow)
{
    size_t t;
    if (item == 0 || batch == 0) return 0;
    if (gala_mul_overflow(batch - 1, stride, &t) || t > SIZE_MAX - item) {
        *overflow = 1;
        return SIZE_MAX;
    }
    return t + item;
}

size_t gala_mat_extent(size_t m, size_t n, size_t ld, int *overflow)
{
    return gala_span(m, ld, n, overflow);
}

void gala_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    const char *p = base;
    for (size_t i = 1; i < n; ++i)
        if (cmp(p + (i - 1) * size, p + i * size) > 0) {
            qsort(base, n, size, cmp);
            return;
        }
}

gala_status gala_check_buf(const gala_context *ctx, const char *fn, const char *name,
                           const gala_buffer *b, gala_dtype dtype, size_t off, size_t extent)
{
    if (!b) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: buffer %s is NULL", fn, name);
    if (b->ctx != ctx && !gala_same_memory(b->ctx, ctx))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: buffer %s belongs to another context",
                          fn, name);
    if (dtype == 0) {
        if (b->dtype != GALA_FLOAT && b->dtype != GALA_DOUBLE)
            return gala_error(ctx, GALA_ERR_INVALID_ARG,
                              "%s: buffer %s has type %s; float or double is required", fn, name,
                              gala_dtype_name(b->dtype));
    } else if (b->dtype != dtype) {
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: buffer %s has type %s, expected %s", fn,
                          name, gala_dtype_name(b->dtype), gala_dtype_name(dtype));
    }
    if (extent == SIZE_MAX)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the size of %s overflows", fn, name);
    if (extent > 0 && (off > b->count || extent > b->count - off))
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "%s: buffer %s is too small: needs elements [%zu, %zu), has %zu", fn,
                          name, off, off + extent, b->count);
    return GALA_OK;
}

int gala_ranges_overlap(const gala_buffer *a, size_t a_lo, size_t a_n, const gala_buffer *b,
                        size_t b_lo, size_t b_n)
{
    if (a != b || a_n == 0 || b_n == 0) return 0;
    return a_lo < b_lo + b_n && b_lo < a_lo + a_n;
}

gala_status gala_check_float_type(const gala_context *ctx, const char *fn, gala_dtype dtype)
{
    if (dtype != GALA_FLOAT && dtype != GALA_DOUBLE)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: float or double buffers are required",
                          fn);
    if (dtype == GALA_DOUBLE && !ctx->info.fp64)
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED,
                          "%s: device '%s' does not support double precision", fn,
                          ctx->info.device_name);
    return GALA_OK;
}
