#include "testutil.h"

#include <errno.h>
#include <float.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TARGETS 8

static tu_target targets[MAX_TARGETS];
static gala_context *ctxs[MAX_TARGETS];
static int ntargets = -1;

static int wanted(const char *name)
{
    const char *e = getenv("GALA_TEST_BACKENDS");
    return !e || !*e || strstr(e, name) != NULL;
}

static void add_backend(gala_backend b)
{
    if (!gala_backend_available(b) || !wanted(gala_backend_name(b))) return;
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = b;
    gala_context *ctx;
    if (gala_context_create(&o, &ctx) != GALA_OK) return; /* no such device here */
    gala_device_info info;
    gala_context_info(ctx, &info);
    const gala_dtype dts[2] = {GALA_DOUBLE, GALA_FLOAT};
    int first = 1;
    for (int d = 0; d < 2 && ntargets < MAX_TARGETS; ++d) {
        if (dts[d] == GALA_DOUBLE && !info.fp64) continue;
        tu_target *t = &targets[ntargets];
        t->backend = b;
        t->dtype = dts[d];
        snprintf(t->name, sizeof t->name, "%s/%s (%s)", gala_backend_name(b),
                 gala_dtype_name(dts[d]), info.device_name);
        ctxs[ntargets] = first ? ctx : NULL;
        first = 0;
        ntargets++;
    }
    if (first) gala_context_destroy(ctx);
}

static void init_targets(void)
{
    if (ntargets >= 0) return;
    ntargets = 0;
    add_backend(GALA_BACKEND_HOST);
    add_backend(GALA_BACKEND_OPENCL);
    add_backend(GALA_BACKEND_CUDA);
    /* share one context per backend between its two precisions */
    for (int i = 1; i < ntargets; ++i)
        if (!ctxs[i] && targets[i].backend == targets[i - 1].backend) ctxs[i] = ctxs[i - 1];
}

int tu_target_count(void) { init_targets(); return ntargets; }
const tu_target *tu_target_get(int i) { init_targets(); return &targets[i]; }
gala_context *tu_ctx(int i) { init_targets(); return ctxs[i]; }

gala_context *tu_host_ctx(int use_environment)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    o.use_environment = use_environment;
    gala_context *c = NULL;
    TU_OK(NULL, gala_context_create(&o, &c));
    return c;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(path) ? -1 : 0;
}

int tu_rm_tree(const char *dir)
{
    if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0) return 0;
    return errno == ENOENT ? 0 : -1;
}

void tu_release(void)
{
    for (int i = 0; i < ntargets; ++i) {
        if (ctxs[i] && (i == 0 || ctxs[i] != ctxs[i - 1])) gala_context_destroy(ctxs[i]);
    }
    for (int i = 0; i < ntargets; ++i) ctxs[i] = NULL;
    ntargets = -1;
}

double tu_eps(gala_dtype dt) { return dt == GALA_FLOAT ? FLT_EPSILON : DBL_EPSILON; }

uint64_t tu_seed(void)
{
    static uint64_t seed;
    static int have;
    if (!have) {
        const char *e = getenv("GALA_TEST_SEED");
        seed = e && *e ? strtoull(e, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
        have = 1;
    }
    return seed;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

tu_rng tu_rng_for(const char *name, int target)
{
    uint64_t h = tu_seed() ^ ((uint64_t)target * 0x100000001b3ULL);
    for (const char *p = name; *p; ++p) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    tu_rng r;
    for (int i = 0; i < 4; ++i) r.s[i] = splitmix(&h);
    return r;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next(tu_rng *r)
{
    uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return res;
}

double tu_uniform(tu_rng *r) { return (double)(next(r) >> 11) * 0x1.0p-53; }

double tu_normal(tu_rng *r)
{
    double u = tu_uniform(r), v = tu_uniform(r);
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

int tu_int(tu_rng *r, int lo, int hi) { return lo + (int)(tu_uniform(r) * (hi - lo + 1)); }

int tu_size(int full, int small, const char *what)
{
    const char *e = getenv("GALA_TEST_SCALE");
    if (!e || strcmp(e, "small") != 0 || small >= full) return full;
    static const char *said; /* once per case (callers pass string literals) */
    if (what != said) printf("GALA_TEST_SCALE=small: %s: %d instead of %d\n", what, small, full);
    said = what;
    return small;
}

void tu_round(gala_dtype dt, double *v, size_t n)
{
    if (dt == GALA_FLOAT)
        for (size_t i = 0; i < n; ++i) v[i] = (double)(float)v[i];
}

gala_buffer *tu_upload(gala_context *ctx, gala_dtype dt, const double *v, size_t n)
{
    gala_buffer *b = NULL;
    TU_OK(ctx, gala_buffer_create(ctx, dt, n ? n : 1, &b));
    if (dt == GALA_DOUBLE) {
        TU_OK(ctx, gala_buffer_write(b, 0, n, v));
    } else {
        float *f = malloc((n ? n : 1) * sizeof *f);
        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < n; ++i) f[i] = (float)v[i];
        TU_OK(ctx, gala_buffer_write(b, 0, n, f));
        free(f);
    }
    return b;
}

void tu_download(const gala_buffer *b, size_t off, double *v, size_t n)
{
    gala_context *ctx = gala_buffer_context(b);
    gala_dtype dt = gala_buffer_dtype(b);
    if (dt == GALA_DOUBLE) {
        TU_OK(ctx, gala_buffer_read(b, off, n, v));
    } else if (dt == GALA_FLOAT) {
        float *f = malloc((n ? n : 1) * sizeof *f);
        ck_assert_ptr_nonnull(f);
        TU_OK(ctx, gala_buffer_read(b, off, n, f));
        for (size_t i = 0; i < n; ++i) v[i] = f[i];
        free(f);
    } else {
        int *p = malloc((n ? n : 1) * sizeof *p);
        ck_assert_ptr_nonnull(p);
        TU_OK(ctx, gala_buffer_read(b, off, n, p));
        for (size_t i = 0; i < n; ++i) v[i] = p[i];
        free(p);
    }
}

gala_buffer *tu_poisoned(gala_context *ctx, gala_dtype dt, size_t n)
{
    gala_buffer *b = NULL;
    TU_OK(ctx, gala_buffer_create(ctx, dt, n ? n : 1, &b));
    TU_OK(ctx, gala_buffer_fill(b, 0, n ? n : 1, dt == GALA_INT ? (double)INT_MIN : NAN));
    return b;
}

gala_buffer *tu_other_precision(gala_context *ctx, gala_dtype dt, size_t n, const char *what)
{
    gala_device_info info;
    TU_OK(ctx, gala_context_info(ctx, &info));
    if (!info.fp64) {
        printf("skipped: %s (device '%s' has no fp64, so no buffer of the other precision)\n",
               what, info.device_name);
        return NULL;
    }
    gala_buffer *b = NULL;
    TU_OK(ctx, gala_buffer_create(ctx, dt == GALA_DOUBLE ? GALA_FLOAT : GALA_DOUBLE,
                                  n ? n : 1, &b));
    return b;
}

int tu_run(Suite *s)
{
    /* GALA_TEST_REQUIRE_DEVICE=name: fail unless a target runs on a device of that name */
    const char *req = getenv("GALA_TEST_REQUIRE_DEVICE");
    if (req && *req) {
        int found = 0;
        for (int i = 0; i < tu_target_count() && !found; ++i)
            found = strstr(tu_target_get(i)->name, req) != NULL;
        if (!found) {
            fprintf(stderr, "GALA_TEST_REQUIRE_DEVICE=%s: no target runs on such a device\n", req);
            srunner_free(srunner_create(s)); /* frees the suite */
            tu_release();
            return EXIT_FAILURE;
        }
    }
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed) fprintf(stderr, "failing run: reproduce with GALA_TEST_SEED=%llu\n",
                        (unsigned long long)tu_seed());
    tu_release();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
