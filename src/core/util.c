/* Small utilities: allocation wrappers, hashing, strings, clock, fault injection. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

void *gala_malloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
void *gala_calloc(size_t n, size_t size) { return calloc(n ? n : 1, size ? size : 1); }
void *gala_realloc(void *p, size_t bytes) { return realloc(p, bytes ? bytes : 1); }
void gala_free(void *p) { free(p); }

void *gala_host_scratch_get(gala_host_scratch *s, size_t bytes)
{
    if (bytes <= s->cap && s->p) return s->p;
    size_t cap = s->cap > 4096 ? s->cap : 4096;
    while (cap < bytes) cap = cap > SIZE_MAX / 2 ? bytes : 2 * cap;
    void *p = malloc(cap);
    if (!p) return NULL;
    free(s->p);
    s->p = p;
    s->cap = cap;
    return p;
}

void gala_host_scratch_release(gala_host_scratch *s, size_t count)
{
    for (size_t k = 0; k < count; ++k) {
        free(s[k].p);
        s[k].p = NULL;
        s[k].cap = 0;
    }
}

uint64_t gala_fnv1a(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

int gala_strcasestr_match(const char *hay, const char *needle)
{
    size_t n = strlen(needle), h = strlen(hay);
    if (n == 0) return 1;
    for (size_t i = 0; i + n <= h; ++i) {
        size_t k = 0;
        while (k < n && tolower((unsigned char)hay[i + k]) == tolower((unsigned char)needle[k]))
            ++k;
        if (k == n) return 1;
    }
    return 0;
}

int gala_name_match_any(const char *hay, const char *pattern)
{
    char alt[128];
    for (const char *p = pattern;;) {
        const char *bar = strchr(p, '|');
        const size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len < sizeof alt) {
            memcpy(alt, p, len);
            alt[len] = '\0';
            if (gala_strcasestr_match(hay, alt)) return 1;
        }
        if (!bar) return 0;
        p = bar + 1;
    }
}

void gala_strlcpy(char *dst, const char *src, size_t cap)
{
    if (cap == 0) return;
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

double gala_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- fault injection */

/* countdown[k] > 0: the countdown[k]-th next operation of kind k fails. 0: disarmed. */
static atomic_long countdown[GALA_FAULT_KINDS];
/* > 0: every device allocation of more than this many bytes fails (a small device). */
static atomic_size_t alloc_limit;
/* > 0: every kernel runs at most this many work-items per work-group (registers). */
static atomic_size_t kernel_wg_limit;
static atomic_int env_read;

/* The value of item "name:VALUE" of GALA_FAULT's comma-separated list e, or NULL ("alloc"
 * does not match "alloc_over:B") */
static const char *fault_item(const char *e, const char *name)
{
    const size_t len = strlen(name);
    for (const char *p = strstr(e, name); p; p = strstr(p + 1, name))
        if ((p == e || p[-1] == ',') && p[len] == ':') return p + len + 1;
    return NULL;
}

static void read_env(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&env_read, &expected, 1)) return;
    const char *e = getenv("GALA_FAULT");
    if (!e) return;
    static const char *names[GALA_FAULT_KINDS] = {"alloc", "build", "launch", "transfer"};
    const char *v;
    for (int k = 0; k < GALA_FAULT_KINDS; ++k)
        if ((v = fault_item(e, names[k]))) atomic_store(&countdown[k], atol(v));
    if ((v = fault_item(e, "alloc_over"))) atomic_store(&alloc_limit, (size_t)strtoull(v, NULL, 10));
    if ((v = fault_item(e, "kernel_wg")))
        atomic_store(&kernel_wg_limit, (size_t)strtoull(v, NULL, 10));
}

/* > 0: no fault on this thread (gala_fault_pause: a dry pass) */
static _Thread_local int paused;

void gala_fault_pause(int delta)
{
    paused += delta;
}

int gala_fault_hit(gala_fault_kind kind)
{
    if (paused > 0) return 0;
    read_env();
    long c = atomic_load(&countdown[kind]);
    while (c > 0) {
        if (atomic_compare_exchange_weak(&countdown[kind], &c, c - 1)) return c == 1;
    }
    return 0;
}

void gala_fault_arm(gala_fault_kind kind, long n)
{
    read_env();
    atomic_store(&countdown[kind], n > 0 ? n : 0);
}

long gala_fault_pending(gala_fault_kind kind)
{
    read_env();
    return atomic_load(&countdown[kind]);
}

int gala_fault_alloc_refused(size_t bytes)
{
    if (paused > 0) return 0;
    read_env();
    size_t lim = atomic_load(&alloc_limit);
    return lim > 0 && bytes > lim;
}

void gala_fault_alloc_limit(size_t bytes)
{
    read_env();
    atomic_store(&alloc_limit, bytes);
}

size_t gala_fault_kernel_wg(void)
{
    read_env();
    return atomic_load(&kernel_wg_limit);
}

void gala_fault_kernel_wg_limit(size_t wg)
{
    read_env();
    atomic_store(&kernel_wg_limit, wg);
}
