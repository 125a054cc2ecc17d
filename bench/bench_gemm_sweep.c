/*
 * bench_gemm_sweep: a tuning sweep of the GEMM kernel behind gala's BLAS-3 on OpenCL
 * (CLBlast's Xgemm, whose parameters gala hands to CLBlast from the clblast.xgemm.* tuning
 * keys: src/device/opencl/clblast.c). CLBlast ships its own tuners, Debian does not; this
 * program is the part of one that gala needs, run through gala's own path.
 *
 * It times C = A·B of n×n matrices (seeded random inputs) first with CLBlast's own choice,
 * then for configurations of kernel 0 drawn in a seeded random order from a grid (threads
 * 8..32 × 8..32, 2..8 × 2..8 values per work-item, at least 64×64 per work-group, KWG 16 or
 * 32, vector widths 1..2 (double) or 1..4 (float), local memory for both A and B or for
 * neither), each set through GALA_TUNE, until the time budget is spent.
 * Every configuration's C is checked in three columns against a host product (a wrong one
 * is reported and dropped); one gala does not apply (constraints, CLBlast refused it) is
 * skipped. The best few are timed again at --confirm-n, and the winner is printed as a
 * GALA_TUNE string and as rows for src/core/tuning_table.h. With --start CONFIG (a "best:"
 * line of an earlier run) it climbs instead: every neighbour of the current point (one
 * parameter changed, or a work-group dimension doubled or halved), then the best of them,
 * until none is faster or the budget is spent.
 *
 *   bench_gemm_sweep [common options, see benchutil.h] [--dtype float|double] [--n 4096]
 *                    [--confirm-n 8192] [--budget-s 240] [--top 6] [--seed 1]
 *                    [--start CONFIG]
 *
 * Not an OpenCL build with CLBlast: says so and exits 0.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup, clock_gettime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gemm.h"
#include "benchutil.h"

#define NP 16
static const char *const key[NP] = {"gemmk", "kreg", "kwg",  "kwi", "mdima", "mdimc",
                                    "mwg",   "ndimb", "ndimc", "nwg", "sa",    "sb",
                                    "strm",  "strn",  "vwm",   "vwn"};
enum { GEMMK, KREG, KWG, KWI, MDIMA, MDIMC, MWG, NDIMB, NDIMC, NWG, SA, SB, STRM, STRN, VWM, VWN };

typedef struct cfg {
    long v[NP];
    double ms, gf; /* at --n; at --confirm-n for the finalists */
} cfg;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned long long rng_next(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The grid: kernel 0, MDIMA = MDIMC and NDIMB = NDIMC (the restriction of CLBlast's own
 * first tuning pass), with the tuner's divisibility constraints. */
static int grid(cfg *out, int cap, int vmax)
{
    static const int thr[] = {8, 16, 32}, wi[] = {2, 4, 8}, kwg[] = {16, 32};
    int n = 0;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            const int mdimc = thr[a], ndimc = thr[b], t = mdimc * ndimc;
            if (t < 64 || t > 512) continue;
            for (int c = 0; c < 3; ++c)
                for (int d = 0; d < 3; ++d) {
                    const int mwi = wi[c], nwi = wi[d];
                    /* at least 64×64 outputs per work-group: large products */
                    if (mwi * nwi < 8 || mdimc * mwi * ndimc * nwi < 64 * 64) continue;
                    for (int k = 0; k < 2; ++k) {
                        /* KWG a multiple of KDIMA = t / MDIMA, KDIMB */
                        const int kw = kwg[k];
                        if (kw % (t / mdimc) || kw % (t / ndimc)) continue;
                        for (int vwm = 1; vwm <= vmax; vwm *= 2)
                            for (int vwn = 1; vwn <= vmax; vwn *= 2) {
                                if (mwi % vwm || nwi % vwn) continue;
                                for (int sab = 0; sab < 2; ++sab) /* SA = SB */
                                    for (int st = 0; st < 2; ++st) { /* STRM = STRN */
                                        if (n >= cap) return n;
                                        long *v = out[n++].v;
                                        v[GEMMK] = 0, v[KREG] = 1, v[KWG] = kw, v[KWI] = 2;
                                        v[MDIMA] = mdimc, v[MDIMC] = mdimc, v[MWG] = mdimc * mwi;
                                        v[NDIMB] = ndimc, v[NDIMC] = ndimc, v[NWG] = ndimc * nwi;
                                        v[SA] = sab, v[SB] = sab, v[STRM] = st, v[STRN] = st;
                                        v[VWM] = vwm, v[VWN] = vwn;
                                    }
                            }
                    }
                }
        }
    return n;
}

/* CONFIG: the sixteen clblast.xgemm.NAME=VALUE, comma-separated (the "best:" line) */
static int parse_start(const char *sp, long *v)
{
    int seen = 0;
    for (int i = 0; i < NP; ++i) {
        char k[40];
        snprintf(k, sizeof k, "clblast.xgemm.%s=", key[i]);
        const char *p = strstr(sp, k);
        if (!p) continue;
        v[i] = strtol(p + strlen(k), NULL, 10);
        ++seen;
    }
    return seen == NP;
}

/* The neighbours of v not tried yet: one parameter changed, or a work-group dimension
 * (MDIMC with MDIMA, NDIMC with NDIMB) doubled or halved with or without its tile. */
static int neighbours(const long *v, cfg *out, int cap, const cfg *tried, int ntried)
{
    static const long vals[NP][5] = {
        [KWG] = {8, 16, 32, 64}, [KWI] = {1, 2, 4, 8, 16}, [MDIMA] = {8, 16, 32},
        [MDIMC] = {8, 16, 32},   [MWG] = {32, 64, 128, 256}, [NDIMB] = {8, 16, 32},
        [NDIMC] = {8, 16, 32},   [NWG] = {32, 64, 128, 256}, [SA] = {0, 1},
        [SB] = {0, 1},           [STRM] = {0, 1},            [STRN] = {0, 1},
        [VWM] = {1, 2, 4, 8},    [VWN] = {1, 2, 4, 8}};
    long cand[NP * 5 + 16][NP];
    int nc = 0;
    for (int p = 0; p < NP; ++p)
        for (int j = 0; j < 5 && vals[p][j]; ++j) {
            if (vals[p][j] == v[p]) continue;
            memcpy(cand[nc], v, sizeof cand[0]);
            cand[nc++][p] = vals[p][j];
        }
    static const int dim[2][3] = {{MDIMC, MDIMA, MWG}, {NDIMC, NDIMB, NWG}};
    for (int d = 0; d < 2; ++d)
        for (int f = 0; f < 2; ++f)     /* halve, double */
            for (int t = 0; t < 2; ++t) { /* the tile stays, or scales too */
                memcpy(cand[nc], v, sizeof cand[0]);
                for (int q = 0; q < (t ? 3 : 2); ++q)
                    cand[nc][dim[d][q]] = f ? v[dim[d][q]] * 2 : v[dim[d][q]] / 2;
                ++nc;
            }
    int n = 0;
    for (int i = 0; i < nc && n < cap; ++i) {
        int dup = 0;
        for (int j = 0; j < ntried && !dup; ++j) dup = !memcmp(tried[j].v, cand[i], sizeof cand[0]);
        for (int j = 0; j < n && !dup; ++j) dup = !memcmp(out[j].v, cand[i], sizeof cand[0]);
        if (dup) continue;
        memcpy(out[n].v, cand[i], sizeof cand[0]);
        out[n].ms = INFINITY;
        ++n;
    }
    return n;
}

static void tune_string(const char *base, const long *v, char *out, size_t cap)
{
    size_t o = (size_t)snprintf(out, cap, "%s%s", base ? base : "", base && *base ? "," : "");
    for (int i = 0; i < NP && o < cap; ++i)
        o += (size_t)snprintf(out + o, cap - o, "%sclblast.xgemm.%s=%ld", i ? "," : "", key[i],
                              v[i]);
}

/* C's columns 0, n/2 and n-1 against the host's product of the same inputs. */
static int check(bench_gemm *r, gala_dtype dt, const double *A, const double *B, double *col,
                 double *err)
{
    const int n = r->n, cols[3] = {0, n / 2, n - 1};
    const size_t es = gala_dtype_size(dt);
    void *buf = malloc((size_t)n * es);
    if (!buf) return 0;
    double worst = 0;
    for (int c = 0; c < 3; ++c) {
        if (gala_buffer_read(r->C, (size_t)cols[c] * n, (size_t)n, buf) != GALA_OK) {
            free(buf);
            return 0;
        }
        for (int i = 0; i < n; ++i) col[i] = 0;
        for (int k = 0; k < n; ++k) {
            const double b = B[(size_t)cols[c] * n + k];
            const double *a = A + (size_t)k * n;
            for (int i = 0; i < n; ++i) col[i] += a[i] * b;
        }
        for (int i = 0; i < n; ++i) {
            const double g = dt == GALA_DOUBLE ? ((double *)buf)[i] : ((float *)buf)[i];
            const double e = fabs(g - col[i]);
            if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
        }
    }
    free(buf);
    *err = worst;
    /* |A|, |B| <= ~4 (normal): sum of n products, rounding ~ n·eps·16 */
    const double eps = dt == GALA_DOUBLE ? 1.1e-16 : 6e-8;
    return worst <= 64.0 * n * eps * 16.0;
}

static int by_ms(const void *a, const void *b)
{
    const double x = ((const cfg *)a)->ms, y = ((const cfg *)b)->ms;
    return (x > y) - (x < y);
}

static gala_status setup(bench_gemm *r, gala_dtype dt, int n, double **hA, double **hB)
{
    const size_t nn = (size_t)n * n;
    r->n = n;
    *hA = malloc(nn * sizeof **hA);
    *hB = malloc(nn * sizeof **hB);
    if (!*hA || !*hB) return GALA_ERR_OUT_OF_MEMORY;
    bu_randn(*hA, nn, 11);
    bu_randn(*hB, nn, 12);
    gala_status s = gala_buffer_create(r->ctx, dt, nn, &r->A);
    if (s == GALA_OK) s = gala_buffer_create(r->ctx, dt, nn, &r->B);
    if (s == GALA_OK) s = gala_buffer_create(r->ctx, dt, nn, &r->C);
    if (s != GALA_OK) return s;
    if (dt == GALA_DOUBLE) {
        s = gala_buffer_write(r->A, 0, nn, *hA);
        if (s == GALA_OK) s = gala_buffer_write(r->B, 0, nn, *hB);
        return s;
    }
    float *f = malloc(nn * sizeof *f);
    if (!f) return GALA_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < nn; ++i) f[i] = (float)(*hA)[i];
    for (size_t i = 0; i < nn; ++i) (*hA)[i] = f[i]; /* the host product uses what the GPU has */
    s = gala_buffer_write(r->A, 0, nn, f);
    for (size_t i = 0; i < nn; ++i) f[i] = (float)(*hB)[i];
    for (size_t i = 0; i < nn; ++i) (*hB)[i] = f[i];
    if (s == GALA_OK) s = gala_buffer_write(r->B, 0, nn, f);
    free(f);
    return s;
}

static void teardown(bench_gemm *r, double *hA, double *hB)
{
    gala_buffer_free(r->A);
    gala_buffer_free(r->B);
    gala_buffer_free(r->C);
    r->A = r->B = r->C = NULL;
    free(hA);
    free(hB);
}

/* Time one configuration (v NULL: the library's own choice); 0 on success. */
static int measure(bench_gemm *r, gala_dtype dt, const char *base, const long *v, int reps,
                   double *ms, const double *hA, const double *hB, double *col, double *med,
                   const char **why)
{
    char tune[1024];
    if (v) {
        tune_string(base, v, tune, sizeof tune);
        setenv("GALA_TUNE", tune, 1);
    }
    gala_status s = bu_time(r->ctx, bench_gemm_run, r, 1, reps, ms);
    if (s != GALA_OK) {
        *why = gala_last_error(r->ctx);
        return 1;
    }
    if (v) {
        long got[NP];
        if (gala_blas3_kernel_params(r->ctx, dt, got, NP) != NP || memcmp(got, v, sizeof got)) {
            *why = "not applied (constraints or CLBlast refused it)";
            return 1;
        }
    }
    double err = NAN; /* stays NaN when C could not be read */
    if (!check(r, dt, hA, hB, col, &err)) {
        static char msg[96];
        snprintf(msg, sizeof msg, "WRONG RESULT (max error %.3g in 3 columns)", err);
        *why = msg;
        return 1;
    }
    *med = bu_median(ms, reps);
    return 0;
}

static void print_cfg(const char *tag, const long *v, double ms, double gf)
{
    printf("%-8s %9.3f %9.1f ", tag, ms, gf);
    if (!v) {
        printf(" (the BLAS library's own choice)\n");
        return;
    }
    for (int i = 0; i < NP; ++i) printf(" %s=%ld", key[i], v[i]);
    printf("\n");
}

/* Time one point of the sweep into p (ms = INFINITY when it was not measured); 1 if it was.
 * A wrong product is printed and sets *failed. */
static int try_point(bench_gemm *r, gala_dtype dt, const char *base, cfg *p, int reps,
                     double *ms, const double *hA, const double *hB, double *col, double flops,
                     int *failed)
{
    double med;
    const char *why = "";
    p->ms = INFINITY;
    if (measure(r, dt, base, p->v, reps, ms, hA, hB, col, &med, &why)) {
        if (strstr(why, "WRONG")) {
            print_cfg(why, p->v, 0, 0);
            *failed = 1;
        }
        return 0;
    }
    p->ms = med;
    p->gf = flops / (med * 1e6);
    return 1;
}

int main(int argc, char **argv)
{
    bu_opts o;
    gala_context *ctx = bu_init(&argc, argv, &o);
    if (!ctx) return 1;
    gala_dtype dt = GALA_DOUBLE;
    int n = 4096, confirm_n = 8192, top = 6;
    double budget = 240;
    unsigned long long seed = 1;
    const char *start = NULL;
    long start_v[NP];
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--dtype") && i + 1 < argc)
            dt = strcmp(argv[++i], "float") ? GALA_DOUBLE : GALA_FLOAT;
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--confirm-n") && i + 1 < argc)
            confirm_n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--budget-s") && i + 1 < argc)
            budget = atof(argv[++i]);
        else if (!strcmp(argv[i], "--top") && i + 1 < argc)
            top = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--start") && i + 1 < argc)
            start = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr,
                    "usage: %s [common options] [--dtype float|double] [--n N] [--confirm-n N] "
                    "[--budget-s S] [--top K] [--seed S] [--start CONFIG]\n",
                    argv[0]);
            gala_context_destroy(ctx);
            return 2;
        }
    }
    gala_device_info info;
    gala_context_info(ctx, &info);
    if (info.backend != GALA_BACKEND_OPENCL || !gala_blas3_available(ctx)) {
        printf("# bench_gemm_sweep: only the OpenCL backend with CLBlast has kernel parameters "
               "to sweep\n");
        gala_context_destroy(ctx);
        return 0;
    }
    if (n < 64 || confirm_n < 64 || top < 1 || !seed || (dt == GALA_DOUBLE && !info.fp64) ||
        (start && !parse_start(start, start_v))) {
        fprintf(stderr, "bad arguments (--start needs all sixteen clblast.xgemm.* values), or no "
                        "double precision on this device\n");
        gala_context_destroy(ctx);
        return 2;
    }
    const int reps = o.reps < 3 ? 3 : (o.reps > 5 ? 5 : o.reps);
    const char *env = getenv("GALA_TUNE");
    char *base = strdup(env ? env : "");
    const int cap = 8192;
    cfg *c = calloc(cap, sizeof *c);
    double *ms = malloc((size_t)(o.reps > reps ? o.reps : reps) * sizeof *ms);
    double *col = malloc((size_t)(n > confirm_n ? n : confirm_n) * sizeof *col);
    double *hA = NULL, *hB = NULL;
    bench_gemm r = {ctx, NULL, NULL, NULL, 0};
    int failed = !c || !ms || !col || !base;
    if (!failed && setup(&r, dt, n, &hA, &hB) != GALA_OK) {
        fprintf(stderr, "setup: %s\n", gala_last_error(ctx));
        failed = 1;
    }
    const double flops = 2.0 * (double)n * n * n;
    printf("# GEMM %d×%d×%d %s, median of %d after 1 warm-up, seed %llu, budget %.0f s\n", n, n,
           n, gala_dtype_name(dt), reps, seed, budget);
    printf("%-8s %9s %9s  parameters\n", "", "ms", "GFLOP/s");
    double own_ms = 0;
    const char *why = "";
    if (!failed) {
        /* first, before any override: CLBlast's own database */
        if (measure(&r, dt, base, NULL, reps, ms, hA, hB, col, &own_ms, &why)) {
            fprintf(stderr, "the library's own choice: %s\n", why);
            failed = 1;
        } else {
            print_cfg("own", NULL, own_ms, flops / (own_ms * 1e6));
        }
    }
    int ng = failed || start ? 0 : grid(c, cap, dt == GALA_DOUBLE ? 2 : 4);
    /* seeded shuffle */
    for (int i = ng - 1; i > 0; --i) {
        const int j = (int)(rng_next(&seed) % (unsigned long long)(i + 1));
        cfg t = c[i];
        c[i] = c[j];
        c[j] = t;
    }
    const double t0 = now_s();
    int tried = 0, good = 0;
    for (int i = 0; i < ng && now_s() - t0 < budget; ++i, ++tried) {
        good += try_point(&r, dt, base, &c[i], reps, ms, hA, hB, col, flops, &failed);
    }
    if (start && !failed) {
        /* hill climbing from --start: every neighbour of the current point, then the best */
        memcpy(c[0].v, start_v, sizeof start_v);
        c[0].ms = INFINITY;
        int cur = 0;
        tried = 0;
        for (;;) {
            int nn = tried == 0 ? 1 : neighbours(c[cur].v, c + tried, cap - tried, c, tried);
            for (int i = tried; i < tried + nn && now_s() - t0 < budget; ++i)
                good += try_point(&r, dt, base, &c[i], reps, ms, hA, hB, col, flops, &failed);
            int best_i = cur;
            for (int i = tried; i < tried + nn; ++i)
                if (c[i].ms < c[best_i].ms) best_i = i;
            tried += nn;
            if (failed || now_s() - t0 >= budget || tried >= cap || (tried > 1 && best_i == cur))
                break;
            cur = best_i;
            print_cfg("step", c[cur].v, c[cur].ms, c[cur].gf);
            fflush(stdout);
        }
        ng = tried;
    }
    qsort(c, (size_t)tried, sizeof *c, by_ms);
    printf("# %d of %d configurations tried in %.0f s, %d measured; the best at n = %d:\n", tried,
           ng, now_s() - t0, good, n);
    const int k = top < good ? top : good;
    for (int i = 0; i < k; ++i) print_cfg("top", c[i].v, c[i].ms, c[i].gf);

    /* the finalists again at confirm_n (the library's own choice cannot come back: an
     * override lasts for the process) */
    if (!failed && k > 0 && confirm_n != n) {
        teardown(&r, hA, hB);
        hA = hB = NULL;
        if (setup(&r, dt, confirm_n, &hA, &hB) != GALA_OK) {
            fprintf(stderr, "setup: %s\n", gala_last_error(ctx));
            failed = 1;
        }
    }
    const double cflops = 2.0 * (double)confirm_n * confirm_n * confirm_n;
    int best = -1;
    if (!failed && k > 0) {
        printf("# at n = %d, median of %d:\n", confirm_n, reps);
        for (int i = 0; i < k; ++i) {
            double med;
            if (measure(&r, dt, base, c[i].v, reps, ms, hA, hB, col, &med, &why)) {
                print_cfg(why, c[i].v, 0, 0);
                failed |= strstr(why, "WRONG") != NULL;
                continue;
            }
            c[i].ms = med;
            c[i].gf = cflops / (med * 1e6);
            print_cfg("confirm", c[i].v, med, c[i].gf);
            if (best < 0 || med < c[best].ms) best = i;
        }
    }
    if (best >= 0) {
        char tune[1024];
        tune_string(NULL, c[best].v, tune, sizeof tune);
        printf("best: %s\n", tune);
        printf("# %.1f GFLOP/s at n = %d; rows for src/core/tuning_table.h (device \"%s\"):\n",
               c[best].gf, confirm_n, info.device_name);
        for (int i = 0; i < NP; ++i)
            printf("GALA_TUNE_ROW(clblast_xgemm, %s, OPENCL, \"%s\", \"%s\", %s, %ld)\n",
                   key[i], info.vendor_name, info.device_name,
                   dt == GALA_DOUBLE ? "DOUBLE" : "FLOAT", c[best].v[i]);
    }
    if (base) {
        if (*base) setenv("GALA_TUNE", base, 1);
        else unsetenv("GALA_TUNE");
    }
    teardown(&r, hA, hB);
    free(c);
    free(ms);
    free(col);
    free(base);
    gala_context_destroy(ctx);
    return failed;
}
