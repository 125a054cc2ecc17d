/*
 * bench_potrf: time gala_potrf / potrs / potri (single, batched, vbatched; lower) on the
 * default device (GALA_BACKEND / GALA_PLATFORM / GALA_DEVICE): median device time over
 * --reps calls after --warmup (gala_timer_* around each call, context with profiling),
 * GFLOP/s, GB/s and percent of the copy bandwidth measured in the same run, and with --ref
 * FILE (from bench/ref_potrf.py) the time of torch on the same case and the speedup.
 *
 *   bench_potrf [common options: --backend --platform --device --reps --warmup --json
 *               --quick, see benchutil.h] [--dtype float|double|both]
 *               [--op potrf|potrs|potri|all] [--only batched|single|vbatched] [--n N]
 *               [--ref FILE]
 * (--n N: only the cases of order N, e.g. one n = 16384 matrix in a tuning sweep.)
 *
 * Rows ("kind" in the JSON and in the reference file):
 *   potrf_batched / _single / _vbatched   gala_potrf_*, info read back (what callers get)
 *   potrf_async_batched / _single         gala_potrf_batched_async: info stays on the device,
 *                                         the call does not wait (the kernels alone)
 *   potrs1_*, potrs17_*                   gala_potrs_* with 1 and 17 right-hand sides
 *   potri_*                               gala_potri_* (trtri + lauum)
 * Metrics per matrix: potrf n³/3 flops and 2·n²·size bytes (read and write the matrix
 * once, the floor of the ISSUE's "memory speed" target); potrs 2·n²·nrhs flops and
 * (n² + 2·n·nrhs)·size bytes; potri 2n³/3 flops and 2·n²·size bytes.
 *
 * Matrices are A = I + E with E symmetric, |E_ij| <= 0.4/n: strongly diagonally dominant;
 * the work does not depend on the values. potrf's timed calls each start from the input
 * (a device copy before the call's timer, outside its time: refactoring the factor again
 * and again drifts until a matrix fails); potrs and potri resolve and reinvert in place.
 * The first call of every case is checked on the host (residual of two matrices, n <= 2048).
 *
 * Variable batches draw n_b = 1 + (x_b >> 8) mod nmax, x_b = (1103515245·b + 12345) mod 2³¹
 * (as bench_trtri and ref_potrf.py).
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

static const bcase potrf_full[] = {
    {"batched", 8, 100000}, {"batched", 16, 100000}, {"batched", 32, 50000},
    {"batched", 64, 20000}, {"batched", 128, 5000},  {"batched", 256, 1000},
    {"batched", 512, 200},  {"single", 1024, 1},     {"single", 2048, 1},
    {"single", 4096, 1},    {"single", 8192, 1},     {"single", 16384, 1},
    {"vbatched", 64, 50000}, {"vbatched", 512, 500},
};
static const bcase potrf_quick[] = {
    {"batched", 8, 5000}, {"batched", 32, 2000}, {"batched", 64, 500}, {"batched", 128, 100},
    {"batched", 512, 4},  {"single", 1024, 1},   {"vbatched", 64, 2000}, {"vbatched", 512, 20},
};
static const bcase potri_full[] = {
    {"batched", 32, 50000}, {"batched", 64, 20000}, {"batched", 128, 5000},
    {"batched", 256, 1000}, {"single", 256, 1},     {"single", 512, 1},
    {"single", 4096, 1},    {"vbatched", 64, 50000},
};
static const bcase potri_quick[] = {
    {"batched", 32, 2000}, {"batched", 128, 100}, {"single", 1024, 1}, {"vbatched", 64, 2000},
};

static int var_n(long b, int nmax)
{
    const unsigned long x = (1103515245ul * (unsigned long)b + 12345ul) & 0x7ffffffful;
    return 1 + (int)((x >> 8) % (unsigned long)nmax);
}

enum { OP_POTRF, OP_POTRF_ASYNC, OP_POTRS, OP_POTRI };

typedef struct run_arg {
    gala_context *ctx;
    const bcase *c;
    int op, nrhs;
    gala_buffer *A, *B, *info;
    gala_buffer *A0; /* potrf: the input, restored before every timed call */
    size_t total;    /* elements of A */
    int *nv, *ld, *rhs, *ldb, *hinfo;
    size_t *off, *boff;
} run_arg;

/* potrf works in place: every call starts from the same matrices (refactoring a factor
 * drifts: a matrix of float n = 8 lost definiteness after about 20 calls) */
static gala_status restore(void *p)
{
    run_arg *r = p;
    return r->A0 ? gala_buffer_copy(r->A0, 0, r->A, 0, r->total) : GALA_OK;
}

static gala_status run_once(void *p)
{
    run_arg *r = p;
    const int n = r->c->n, batch = r->c->batch, k = r->nrhs;
    const size_t st = (size_t)n * n;
    const int single = !strcmp(r->c->kind, "single"), var = !strcmp(r->c->kind, "vbatched");
    switch (r->op) {
    case OP_POTRF:
        if (single) return gala_potrf(r->ctx, GALA_LOWER, n, r->A, 0, n, r->hinfo);
        if (var) return gala_potrf_vbatched(r->ctx, GALA_LOWER, r->nv, r->A, r->off, r->ld, batch,
                                            r->hinfo);
        return gala_potrf_batched(r->ctx, GALA_LOWER, n, r->A, 0, n, st, batch, r->hinfo);
    case OP_POTRF_ASYNC:
        return gala_potrf_batched_async(r->ctx, GALA_LOWER, n, r->A, 0, n, st, batch, r->info, 0);
    case OP_POTRS:
        if (single) return gala_potrs(r->ctx, GALA_LOWER, n, k, r->A, 0, n, r->B, 0, n);
        if (var) return gala_potrs_vbatched(r->ctx, GALA_LOWER, r->nv, r->rhs, r->A, r->off, r->ld,
                                            r->B, r->boff, r->ldb, batch);
        return gala_potrs_batched(r->ctx, GALA_LOWER, n, k, r->A, 0, n, st, r->B, 0, n,
                                  (size_t)n * k, batch);
    default:
        if (single) return gala_potri(r->ctx, GALA_LOWER, n, r->A, 0, n, r->hinfo);
        if (var) return gala_potri_vbatched(r->ctx, GALA_LOWER, r->nv, r->A, r->off, r->ld, batch,
                                            r->hinfo);
        return gala_potri_batched(r->ctx, GALA_LOWER, n, r->A, 0, n, st, batch, r->hinfo);
    }
}

static unsigned long long next(unsigned long long *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

/* A = I + E, E symmetric with |E_ij| <= 0.4/n (full matrix, leading dimension n). */
static void fill_matrix(double *a, int n, unsigned long long *seed)
{
    /* the lower triangle down its columns (the values of the earlier element-by-element
     * mirror, in the same order), then the upper one from it in 64 × 64 tiles: the mirror
     * written one element per column took seconds at n = 16384 */
    for (int j = 0; j < n; ++j) {
        a[(size_t)j * n + j] = 1.0;
        for (int i = j + 1; i < n; ++i)
            a[(size_t)j * n + i] = ((double)next(seed) * 0x1.0p-53 - 0.5) * 0.8 / n;
    }
    for (int i0 = 0; i0 < n; i0 += 64)
        for (int j0 = i0; j0 < n; j0 += 64)
            for (int j = j0; j < j0 + 64 && j < n; ++j)
                for (int i = i0; i < i0 + 64 && i < j; ++i)
                    a[(size_t)j * n + i] = a[(size_t)i * n + j];
}

static gala_status upload(gala_context *ctx, gala_dtype dt, const double *h, size_t n,
                          gala_buffer **buf)
{
    gala_status s = gala_buffer_create(ctx, dt, n ? n : 1, buf);
    if (s != GALA_OK) return s;
    if (dt == GALA_DOUBLE) return gala_buffer_write(*buf, 0, n, h);
    float *f = malloc((n ? n : 1) * sizeof *f);
    if (!f) return GALA_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; ++i) f[i] = (float)h[i];
    s = gala_buffer_write(*buf, 0, n, f);
    free(f);
    return s;
}

/* ‖L·Lᵀ − A‖_F/‖A‖_F (lower triangles) of the matrix of order n at off, after the first call */
static double check_factor(gala_buffer *A, gala_dtype dt, size_t off, int n, const double *orig)
{
    const size_t nn = (size_t)n * n;
    double *L = malloc(nn * sizeof *L);
    if (!L) return NAN;
    if (dt == GALA_DOUBLE) {
        gala_buffer_read(A, off, nn, L);
    } else {
        float *f = malloc(nn * sizeof *f);
        if (!f) { free(L); return NAN; }
        gala_buffer_read(A, off, nn, f);
        for (size_t i = 0; i < nn; ++i) L[i] = f[i];
        free(f);
    }
    double num = 0, den = 0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double s = 0;
            for (int k = 0; k <= j; ++k) s += L[(size_t)k * n + i] * L[(size_t)k * n + j];
            const double d = s - orig[(size_t)j * n + i];
            num += d * d;
            den += orig[(size_t)j * n + i] * orig[(size_t)j * n + i];
        }
    free(L);
    return sqrt(num / den);
}

/* Set up a case; flops and bytes per call. Returns 0 on failure (message printed). */
static int setup(run_arg *r, gala_dtype dt, double *flops, double *bytes)
{
    const bcase *c = r->c;
    const int var = !strcmp(c->kind, "vbatched"), batch = c->batch;
    r->nv = calloc((size_t)batch, sizeof(int));
    r->ld = calloc((size_t)batch, sizeof(int));
    r->rhs = calloc((size_t)batch, sizeof(int));
    r->ldb = calloc((size_t)batch, sizeof(int));
    r->hinfo = calloc((size_t)batch, sizeof(int));
    r->off = calloc((size_t)batch, sizeof(size_t));
    r->boff = calloc((size_t)batch, sizeof(size_t));
    if (!r->nv || !r->ld || !r->rhs || !r->ldb || !r->hinfo || !r->off || !r->boff) return 0;
    size_t total = 0, btotal = 0;
    const double es = (double)gala_dtype_size(dt);
    *flops = *bytes = 0;
    for (int b = 0; b < batch; ++b) {
        const int n = var ? var_n(b, c->n) : c->n;
        const double dn = n;
        r->nv[b] = r->ld[b] = n;
        r->rhs[b] = r->nrhs;
        r->ldb[b] = n > 0 ? n : 1;
        r->off[b] = total;
        r->boff[b] = btotal;
        total += (size_t)n * n;
        btotal += (size_t)n * (size_t)r->nrhs;
        if (r->op == OP_POTRS) {
            *flops += 2.0 * dn * dn * r->nrhs;
            *bytes += (dn * dn + 2.0 * dn * r->nrhs) * es;
        } else if (r->op == OP_POTRI) {
            *flops += 2.0 * dn * dn * dn / 3.0;
            *bytes += 2.0 * dn * dn * es;
        } else {
            *flops += dn * dn * dn / 3.0;
            *bytes += 2.0 * dn * dn * es;
        }
    }
    double *h = malloc(total * sizeof(double));
    if (!h) {
        fprintf(stderr, "no host memory for %zu elements\n", total);
        return 0;
    }
    unsigned long long seed = 42;
    for (int b = 0; b < batch; ++b) fill_matrix(h + r->off[b], r->nv[b], &seed);
    gala_status s = upload(r->ctx, dt, h, total, &r->A);
    r->total = total;
    if (s == GALA_OK && (r->op == OP_POTRF || r->op == OP_POTRF_ASYNC)) {
        s = gala_buffer_create(r->ctx, dt, total, &r->A0);
        if (s == GALA_OK) s = gala_buffer_copy(r->A, 0, r->A0, 0, total);
    }
    if (s == GALA_OK && r->op == OP_POTRS) {
        double *hb = malloc((btotal ? btotal : 1) * sizeof *hb);
        if (!hb) s = GALA_ERR_OUT_OF_MEMORY;
        for (size_t i = 0; hb && i < btotal; ++i) hb[i] = (double)next(&seed) * 0x1.0p-53 - 0.5;
        if (hb) s = upload(r->ctx, dt, hb, btotal, &r->B);
        free(hb);
    }
    if (s == GALA_OK && r->op == OP_POTRF_ASYNC)
        s = gala_buffer_create(r->ctx, GALA_INT, (size_t)batch, &r->info);
    /* potrs and potri start from the factor; potrf's first call is checked */
    if (s == GALA_OK && r->op != OP_POTRF && r->op != OP_POTRF_ASYNC)
        s = var ? gala_potrf_vbatched(r->ctx, GALA_LOWER, r->nv, r->A, r->off, r->ld, batch, NULL)
                : gala_potrf_batched(r->ctx, GALA_LOWER, c->n, r->A, 0, c->n, (size_t)c->n * c->n,
                                     batch, NULL);
    if (s == GALA_OK && (r->op == OP_POTRF || r->op == OP_POTRF_ASYNC)) {
        s = run_once(r);
        if (s == GALA_OK) s = gala_finish(r->ctx);
        for (int q = 0; q < 2 && s == GALA_OK; ++q) {
            const int b = q ? batch - 1 : 0;
            if (r->nv[b] > 2048 || r->nv[b] == 0) continue;
            const double res = check_factor(r->A, dt, r->off[b], r->nv[b], h + r->off[b]);
            const double tol = 8.0 * (r->nv[b] + 2) * (dt == GALA_FLOAT ? 1.2e-7 : 2.3e-16);
            if (!(res <= tol)) {
                fprintf(stderr, "check FAILED: %s n=%d matrix %d: residual %.3g\n", c->kind,
                        r->nv[b], b, res);
                s = GALA_ERR_INTERNAL;
            }
        }
    }
    free(h);
    if (s != GALA_OK) {
        fprintf(stderr, "setup of %s n=%d batch=%d failed: %s\n", c->kind, c->n, batch,
                gala_last_error(r->ctx));
        return 0;
    }
    return 1;
}

static void teardown(run_arg *r)
{
    gala_buffer_free(r->A);
    gala_buffer_free(r->A0);
    gala_buffer_free(r->B);
    gala_buffer_free(r->info);
    free(r->nv);
    free(r->ld);
    free(r->rhs);
    free(r->ldb);
    free(r->hinfo);
    free(r->off);
    free(r->boff);
    memset(r, 0, sizeof *r);
}

int main(int argc, char **argv)
{
    bu_opts o;
    gala_context *ctx = bu_init(&argc, argv, &o);
    if (!ctx) return 1;
    int dtypes = 3;
    const char *only = NULL, *refpath = NULL, *ops = "all";
    int only_n = 0, only_batch = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
            ++i;
            dtypes = !strcmp(argv[i], "float") ? 1 : !strcmp(argv[i], "double") ? 2 : 3;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            only_n = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
            only_batch = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--op") && i + 1 < argc) {
            ops = argv[++i];
        } else if (!strcmp(argv[i], "--ref") && i + 1 < argc) {
            refpath = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--backend B] [--platform P] [--device D] [--reps N] "
                    "[--warmup N] [--json FILE] [--quick] [--dtype float|double|both] "
                    "[--op potrf|potrs|potri|all] [--only batched|single|vbatched] "
                    "[--n N] [--batch B] [--ref FILE]\n", argv[0]);
            gala_context_destroy(ctx);
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    gala_device_info info;
    gala_context_info(ctx, &info);
    const double copy = bu_copy_gbs(ctx);
    printf("# measured copy bandwidth: %.0f GB/s (read + write)\n", copy);
    bu_ref *ref = bu_ref_load(refpath);
    bu_json *js = bu_json_open(o.json, "potrf", ctx);
    if (o.json && !js) fprintf(stderr, "cannot write %s\n", o.json);
    if (ref) printf("# reference: %s (%s)\n", bu_ref_device(ref), refpath);
    if (getenv("GALA_TUNE")) printf("# GALA_TUNE=%s\n", getenv("GALA_TUNE"));
    printf("%-22s %6s %7s %-6s %10s %10s %10s %9s %8s %6s %10s %8s\n", "kind", "n", "batch",
           "dtype", "median ms", "p10 ms", "p90 ms", "GFLOP/s", "GB/s", "%copy", "torch ms",
           "speedup");
    double *ms = malloc((size_t)(o.reps > 0 ? o.reps : 1) * sizeof(double));
    int failed = 0, done = 0, total = 0;
    static const struct { const char *name; int op, nrhs; } opv[] = {
        {"potrf", OP_POTRF, 0}, {"potrf_async", OP_POTRF_ASYNC, 0}, {"potrs1", OP_POTRS, 1},
        {"potrs17", OP_POTRS, 17}, {"potri", OP_POTRI, 0}};
    /* the number of cases, for the progress line: the same filters as the loops below */
    for (int pass = 0; pass < 2; ++pass) {
        for (int d = 0; d < 2 && ms; ++d) {
            const gala_dtype dt = d ? GALA_DOUBLE : GALA_FLOAT;
            if (!(dtypes & (1 << d))) continue;
            if (dt == GALA_DOUBLE && !info.fp64) continue;
            for (int v = 0; v < 5; ++v) {
                const char *family = opv[v].op == OP_POTRI   ? "potri"
                                     : opv[v].op == OP_POTRS ? "potrs"
                                                             : "potrf";
                if (strcmp(ops, "all") && strcmp(ops, family)) continue;
                const bcase *cases = opv[v].op == OP_POTRI ? (o.quick ? potri_quick : potri_full)
                                                           : (o.quick ? potrf_quick : potrf_full);
                const int ncases =
                    opv[v].op == OP_POTRI
                        ? (o.quick ? (int)(sizeof potri_quick / sizeof potri_quick[0])
                                   : (int)(sizeof potri_full / sizeof potri_full[0]))
                        : (o.quick ? (int)(sizeof potrf_quick / sizeof potrf_quick[0])
                                   : (int)(sizeof potrf_full / sizeof potrf_full[0]));
                for (int k = 0; k < ncases; ++k) {
                    bcase ck = cases[k];
                    if (only_batch > 0 && strcmp(ck.kind, "single")) ck.batch = only_batch;
                    if (only && strcmp(only, ck.kind)) continue;
                    if (only_n && ck.n != only_n) continue;
                    if (opv[v].op == OP_POTRF_ASYNC && !strcmp(ck.kind, "vbatched")) continue;
                    if (pass == 0) {
                        ++total;
                        continue;
                    }
                    run_arg r;
                    memset(&r, 0, sizeof r);
                    r.ctx = ctx;
                    r.c = &ck;
                    r.op = opv[v].op;
                    r.nrhs = opv[v].nrhs;
                    char kind[64];
                    snprintf(kind, sizeof kind, "%s_%s", opv[v].name, ck.kind);
                    char label[128];
                    snprintf(label, sizeof label, "%s n=%d batch=%d %s", kind, ck.n,
                             ck.batch, gala_dtype_name(dt));
                    bu_progress(label, done++, total);
                    double flops, bytes;
                    if (!setup(&r, dt, &flops, &bytes)) {
                        teardown(&r);
                        failed = 1;
                        continue;
                    }
                    gala_status s = bu_time_prep(ctx, restore, run_once, &r, o.warmup, o.reps, ms);
                    teardown(&r);
                    bu_progress_clear();
                    if (s != GALA_OK) {
                        fprintf(stderr, "%s n=%d batch=%d %s: %s\n", kind, ck.n, ck.batch,
                                gala_dtype_name(dt), gala_last_error(ctx));
                        failed = 1;
                        continue;
                    }
                    const double med = bu_median(ms, o.reps), p10 = bu_pct(ms, o.reps, 0.1),
                                 p90 = bu_pct(ms, o.reps, 0.9);
                    const double gf = flops / (med * 1e6), gbs = bytes / (med * 1e6);
                    const double pct = copy > 0 ? 100.0 * gbs / copy : NAN;
                    const double tref = bu_ref_find(ref, kind, ck.n, ck.batch,
                                                    gala_dtype_name(dt));
                    printf("%-22s %6d %7d %-6s %10.4f %10.4f %10.4f %9.1f %8.1f %6.1f", kind,
                           ck.n, ck.batch, gala_dtype_name(dt), med, p10, p90, gf, gbs, pct);
                    if (tref > 0) printf(" %10.4f %7.2fx\n", tref, tref / med);
                    else printf(" %10s %8s\n", "-", "-");
                    fflush(stdout);
                    bu_json_row(js, "siisdddddddddd", "kind", kind, "n", ck.n, "batch",
                                ck.batch, "dtype", gala_dtype_name(dt), "median_ms", med,
                                "p10_ms", p10, "p90_ms", p90, "gflops", gf, "gbs", gbs, "pct_copy",
                                pct, "copy_gbs", copy, "torch_ms", tref > 0 ? tref : NAN, "speedup",
                                tref > 0 ? tref / med : NAN, "nrhs", (double)opv[v].nrhs);
                }
            }
        }
    }
    bu_progress("potrf", total, total);
    bu_json_close(js);
    free(ms);
    bu_ref_free(ref);
    gala_context_destroy(ctx);
    return failed;
}
