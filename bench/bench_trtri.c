/*
 * bench_trtri: time gala_trtri / _batched / _vbatched (lower, non-unit, out of place, no info
 * array) on the default device (GALA_BACKEND / GALA_PLATFORM / GALA_DEVICE), report median
 * device time over --reps calls after --warmup, GFLOP/s (n³/3 per matrix), GB/s (both
 * triangles moved once: read A's, write B's) and, with --ref FILE from bench/ref_trtri.py,
 * the speedup over torch.linalg.solve_triangular(L, I).
 *
 *   bench_trtri [common options: --backend --platform --device --reps --warmup --json
 *               --quick, see benchutil.h] [--dtype float|double|both]
 *               [--only batched|single|vbatched] [--ref torch.json]
 *
 * Variable batches draw n_b = 1 + (x_b >> 8) mod nmax with x_b = (1103515245·b + 12345) mod
 * 2³¹, the same sizes as ref_trtri.py.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"

typedef struct bcase {
    const char *kind; /* "batched", "single", "vbatched" */
    int n;            /* order (vbatched: largest order) */
    int batch;
} bcase;

static const bcase full_cases[] = {
    {"batched", 32, 50000}, {"batched", 64, 20000}, {"batched", 128, 5000},
    {"batched", 256, 1000}, {"batched", 512, 200},  {"single", 4096, 1},
    {"single", 8192, 1},    {"vbatched", 64, 50000}, {"vbatched", 512, 500},
};
static const bcase quick_cases[] = {
    {"batched", 32, 2000}, {"batched", 64, 500}, {"batched", 128, 100}, {"batched", 256, 20},
    {"batched", 512, 4},   {"single", 1024, 1},  {"vbatched", 64, 2000}, {"vbatched", 512, 20},
};

static int var_n(long b, int nmax)
{
    const unsigned long x = (1103515245ul * (unsigned long)b + 12345ul) & 0x7ffffffful;
    return 1 + (int)((x >> 8) % (unsigned long)nmax);
}

/* A well-conditioned lower triangle, L = D·(I − E) (tests/test_trtri.c, kind 0). */
static void fill_matrix(double *a, int n, int ld, unsigned long long *seed)
{
    for (int i = 0; i < n; ++i) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(*seed >> 11) * 0x1.0p-53;
        const double d = (u < 0.5 ? -1 : 1) * (0.5 + 2 * fabs(u - 0.5));
        a[(size_t)i * ld + i] = d;
        for (int j = 0; j < i; ++j) {
            *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
            a[(size_t)j * ld + i] = -d * (double)(*seed >> 11) * 0x1.0p-53 * 2.0 / n;
        }
    }
}

typedef struct run_arg {
    gala_context *ctx;
    const bcase *c;
    gala_buffer *A, *B;
    int *nv, *ld;
    size_t *off;
} run_arg;

static gala_status run_once(void *p)
{
    run_arg *r = p;
    const int n = r->c->n;
    if (!strcmp(r->c->kind, "single"))
        return gala_trtri(r->ctx, GALA_LOWER, GALA_NON_UNIT, n, r->A, 0, n, r->B, 0, n, NULL);
    if (!strcmp(r->c->kind, "batched"))
        return gala_trtri_batched(r->ctx, GALA_LOWER, GALA_NON_UNIT, n, r->A, 0, n,
                                  (size_t)n * n, r->B, 0, n, (size_t)n * n, r->c->batch, NULL);
    return gala_trtri_vbatched(r->ctx, GALA_LOWER, GALA_NON_UNIT, r->nv, r->A, r->off, r->ld, r->B,
                               r->off, r->ld, r->c->batch, NULL);
}

/* Upload the case's matrices; returns 0 on failure (message printed). */
static int setup(run_arg *r, gala_dtype dt, double *flops, double *bytes)
{
    const bcase *c = r->c;
    const int var = !strcmp(c->kind, "vbatched");
    r->nv = calloc((size_t)c->batch, sizeof(int));
    r->ld = calloc((size_t)c->batch, sizeof(int));
    r->off = calloc((size_t)c->batch, sizeof(size_t));
    if (!r->nv || !r->ld || !r->off) return 0;
    size_t total = 0;
    *flops = *bytes = 0;
    const size_t es = gala_dtype_size(dt);
    for (int b = 0; b < c->batch; ++b) {
        const int n = var ? var_n(b, c->n) : c->n;
        r->nv[b] = n;
        r->ld[b] = n;
        r->off[b] = total;
        total += (size_t)n * n;
        *flops += (double)n * n * n / 3.0;
        *bytes += 2.0 * (double)n * (n + 1) / 2.0 * (double)es;
    }
    double *h = malloc(total * sizeof(double));
    if (!h) {
        fprintf(stderr, "no host memory for %zu elements\n", total);
        return 0;
    }
    memset(h, 0, total * sizeof(double));
    unsigned long long seed = 42;
    for (int b = 0; b < c->batch; ++b) fill_matrix(h + r->off[b], r->nv[b], r->ld[b], &seed);
    gala_status s = gala_buffer_create(r->ctx, dt, total, &r->A);
    if (s == GALA_OK) s = gala_buffer_create(r->ctx, dt, total, &r->B);
    if (s == GALA_OK && dt == GALA_FLOAT) {
        float *f = malloc(total * sizeof(float));
        if (!f) s = GALA_ERR_OUT_OF_MEMORY;
        for (size_t i = 0; f && i < total; ++i) f[i] = (float)h[i];
        if (f) s = gala_buffer_write(r->A, 0, total, f);
        free(f);
    } else if (s == GALA_OK) {
        s = gala_buffer_write(r->A, 0, total, h);
    }
    if (s == GALA_OK) s = gala_buffer_fill(r->B, 0, total, 0);
    free(h);
    if (s != GALA_OK) {
        fprintf(stderr, "setup of %s n=%d batch=%d failed: %s\n", c->kind, c->n, c->batch,
                gala_last_error(r->ctx));
        return 0;
    }
    return 1;
}

static void teardown(run_arg *r)
{
    gala_buffer_free(r->A);
    gala_buffer_free(r->B);
    free(r->nv);
    free(r->ld);
    free(r->off);
    r->A = r->B = NULL;
}

int main(int argc, char **argv)
{
    bu_opts o;
    gala_context *ctx = bu_init(&argc, argv, &o);
    if (!ctx) return 1;
    int dtypes = 3;
    const char *only = NULL, *refpath = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
            ++i;
            dtypes = !strcmp(argv[i], "float") ? 1 : !strcmp(argv[i], "double") ? 2 : 3;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--ref") && i + 1 < argc) {
            refpath = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--backend B] [--platform P] [--device D] [--reps N] "
                    "[--warmup N] [--json FILE] [--quick] [--dtype float|double|both] "
                    "[--only batched|single|vbatched] [--ref FILE]\n", argv[0]);
            gala_context_destroy(ctx);
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    gala_device_info info;
    gala_context_info(ctx, &info);
    bu_ref *ref = bu_ref_load(refpath);
    bu_json *js = bu_json_open(o.json, "trtri", ctx);
    if (o.json && !js) fprintf(stderr, "cannot write %s\n", o.json);
    if (ref) printf("# reference: %s (%s)\n", bu_ref_device(ref), refpath);
    if (getenv("GALA_TUNE")) printf("# GALA_TUNE=%s\n", getenv("GALA_TUNE"));
    printf("%-9s %6s %7s %-6s %10s %10s %10s %9s %8s %10s %8s\n", "kind", "n", "batch", "dtype",
           "median ms", "p10 ms", "p90 ms", "GFLOP/s", "GB/s", "torch ms", "speedup");
    const bcase *cases = o.quick ? quick_cases : full_cases;
    const int ncases = o.quick ? (int)(sizeof quick_cases / sizeof quick_cases[0])
                               : (int)(sizeof full_cases / sizeof full_cases[0]);
    double *ms = malloc((size_t)o.reps * sizeof(double));
    int failed = 0, done = 0, total = 0;
    for (int d = 0; d < 2; ++d)
        for (int k = 0; k < ncases; ++k)
            total += (dtypes & (1 << d)) && (d == 0 || info.fp64) &&
                     (!only || !strcmp(only, cases[k].kind));
    for (int d = 0; d < 2 && ms; ++d) {
        const gala_dtype dt = d ? GALA_DOUBLE : GALA_FLOAT;
        if (!(dtypes & (1 << d))) continue;
        if (dt == GALA_DOUBLE && !info.fp64) continue;
        for (int k = 0; k < ncases; ++k) {
            if (only && strcmp(only, cases[k].kind)) continue;
            char label[96];
            snprintf(label, sizeof label, "trtri %s n=%d batch=%d %s", cases[k].kind, cases[k].n,
                     cases[k].batch, gala_dtype_name(dt));
            bu_progress(label, done++, total);
            run_arg r;
            memset(&r, 0, sizeof r);
            r.ctx = ctx;
            r.c = &cases[k];
            double flops, bytes;
            if (!setup(&r, dt, &flops, &bytes)) {
                teardown(&r);
                failed = 1;
                continue;
            }
            gala_status s = bu_time(ctx, run_once, &r, o.warmup, o.reps, ms);
            teardown(&r);
            bu_progress_clear();
            if (s != GALA_OK) {
                fprintf(stderr, "%s n=%d batch=%d %s: %s\n", cases[k].kind, cases[k].n,
                        cases[k].batch, gala_dtype_name(dt), gala_last_error(ctx));
                failed = 1;
                continue;
            }
            const double med = bu_median(ms, o.reps), p10 = bu_pct(ms, o.reps, 0.1),
                         p90 = bu_pct(ms, o.reps, 0.9);
            const double gf = flops / (med * 1e6), gbs = bytes / (med * 1e6);
            const double tref = bu_ref_find(ref, cases[k].kind, cases[k].n, cases[k].batch,
                                            gala_dtype_name(dt));
            printf("%-9s %6d %7d %-6s %10.4f %10.4f %10.4f %9.1f %8.1f", cases[k].kind,
                   cases[k].n, cases[k].batch, gala_dtype_name(dt), med, p10, p90, gf, gbs);
            if (tref > 0) printf(" %10.4f %7.2fx\n", tref, tref / med);
            else printf(" %10s %8s\n", "-", "-");
            fflush(stdout);
            bu_json_row(js, "siisddddddd", "kind", cases[k].kind, "n", cases[k].n, "batch",
                        cases[k].batch, "dtype", gala_dtype_name(dt), "median_ms", med, "p10_ms",
                        p10, "p90_ms", p90, "gflops", gf, "gbs", gbs, "torch_ms",
                        tref > 0 ? tref : NAN, "speedup", tref > 0 ? tref / med : NAN);
        }
    }
    bu_progress("trtri", total, total);
    bu_json_close(js);
    free(ms);
    bu_ref_free(ref);
    gala_context_destroy(ctx);
    return failed;
}
