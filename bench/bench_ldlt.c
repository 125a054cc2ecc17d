/*
 * bench_ldlt: LDLᵀ factor + solve time per matrix (docs/ldlt.md, "Benchmark").
 *
 * Sparse (default): MPC KKT matrices (tests/kkt_gen.h: nx = 4 states, nu = 2 inputs,
 * horizon N, n + m = 16N + 12; N = 24 → 396, N = 124 → 1996), batches sharing one pattern,
 * values interleaved. For each (N, batch): gala_sparse_ldlt_refactor (numeric factorization,
 * status read back) and gala_sparse_ldlt_solve (one right-hand side per matrix) on
 *   - the device of the common options (default: auto, a GPU when there is one),
 *   - the host backend (the C reference, one CPU core), batches up to --host-max-batch,
 * with the flat schedule and, with --baseline, the column-by-column kernel
 * (GALA_TUNE=sldlt.baseline=1), with --sweep also fixed launch shapes (sldlt.mb matrices per
 * work-group × sldlt.cw column workers); optionally QDLDL on one core (--qdldl libqdldl.so,
 * built from its public source with its defaults: 64-bit ints, double), same AMD permutation.
 * Dense (--dense): gala_ldlt_batched + gala_ldlt_solve_batched of random quasi-definite
 * matrices, device and host.
 *
 * Prints a table (median ms per matrix, device timers where available) and, with --json
 * FILE, the same rows as JSON (device, driver, date, commit from benchutil; a "params" row).
 *
 *   bench_ldlt [common options: --backend --platform --device --reps --warmup --json --quick,
 *              see benchutil.h] [--dtype double|float] [--horizons 24,124]
 *              [--batches 1,100,1000] [--host-max-batch 1000] [--baseline] [--sweep]
 *              [--qdldl PATH] [--dense] [--no-sparse]
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/kkt_gen.h"
#include "benchutil.h"

/* ------------------------------------------------------------------ random numbers */

typedef struct brng {
    uint64_t s;
} brng;

static uint64_t bnext(brng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double b_uniform(void *p) { return (double)(bnext(p) >> 11) * 0x1.0p-53; }
static double b_normal(void *p)
{
    double u = b_uniform(p), v = b_uniform(p);
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* ------------------------------------------------------------------ options */

typedef struct opts {
    bu_opts common;
    const char *qdldl;
    gala_dtype dt;
    int baseline, sweep, dense, sparse, host_max;
    int horizons[16], nh, batches[16], nb;
} opts;

static int parse_list(const char *s, int *v, int cap)
{
    int n = 0;
    while (s && *s && n < cap) {
        v[n++] = atoi(s);
        s = strchr(s, ',');
        if (s) ++s;
    }
    return n;
}

/* The family's own options (the common ones were removed by bu_init). */
static int parse(int argc, char **argv, opts *o)
{
    o->dt = GALA_DOUBLE;
    o->sparse = 1;
    o->host_max = 1000;
    o->nh = parse_list(o->common.quick ? "24" : "24,124", o->horizons, 16);
    o->nb = parse_list(o->common.quick ? "1,100" : "1,100,1000", o->batches, 16);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--dtype") && v) o->dt = strcmp(argv[++i], "float") ? GALA_DOUBLE : GALA_FLOAT;
        else if (!strcmp(a, "--horizons") && v) o->nh = parse_list(argv[++i], o->horizons, 16);
        else if (!strcmp(a, "--batches") && v) o->nb = parse_list(argv[++i], o->batches, 16);
        else if (!strcmp(a, "--host-max-batch") && v) o->host_max = atoi(argv[++i]);
        else if (!strcmp(a, "--qdldl") && v) o->qdldl = argv[++i];
        else if (!strcmp(a, "--baseline")) o->baseline = 1;
        else if (!strcmp(a, "--sweep")) o->sweep = 1;
        else if (!strcmp(a, "--dense")) o->dense = 1;
        else if (!strcmp(a, "--no-sparse")) o->sparse = 0;
        else {
            fprintf(stderr, "usage: %s [--backend B] [--platform P] [--device D] [--reps N] "
                    "[--warmup N] [--json FILE] [--quick] [--dtype double|float] "
                    "[--horizons 24,124] [--batches 1,100,1000] [--host-max-batch N] "
                    "[--baseline] [--sweep] [--qdldl libqdldl.so] [--dense] [--no-sparse]\n",
                    argv[0]);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ helpers */

static gala_buffer *upload(gala_context *ctx, gala_dtype dt, const double *v, size_t n)
{
    gala_buffer *b = NULL;
    if (gala_buffer_create(ctx, dt, n ? n : 1, &b) != GALA_OK) return NULL;
    gala_status s;
    if (dt == GALA_DOUBLE) {
        s = gala_buffer_write(b, 0, n, v);
    } else {
        float *f = malloc((n ? n : 1) * sizeof *f);
        for (size_t i = 0; i < n; ++i) f[i] = (float)v[i];
        s = gala_buffer_write(b, 0, n, f);
        free(f);
    }
    if (s != GALA_OK) {
        gala_buffer_free(b);
        return NULL;
    }
    return b;
}

#define GALA_TRY_BENCH(call)                                                               \
    do {                                                                                   \
        gala_status t_ = (call);                                                           \
        if (t_ != GALA_OK) return t_;                                                      \
    } while (0)

#define CHECK(ctx, call)                                                                   \
    do {                                                                                   \
        gala_status s_ = (call);                                                           \
        if (s_ != GALA_OK) {                                                               \
            fprintf(stderr, "%s: %s\n", #call, gala_last_error(ctx));                      \
            goto fail;                                                                     \
        }                                                                                  \
    } while (0)

typedef struct sp_arg {
    gala_sparse_ldlt *F;
    gala_buffer *x, *b, *X;
    int batch, *info;
} sp_arg;

static gala_status sp_refactor(void *p)
{
    sp_arg *a = p;
    return gala_sparse_ldlt_refactor(a->F, a->x, 0, 1, (size_t)a->batch, a->info, NULL);
}

static gala_status sp_solve(void *p)
{
    sp_arg *a = p;
    return gala_sparse_ldlt_solve(a->F, 1, a->b, 0, 1, 0, (size_t)a->batch, a->X, 0, 1, 0,
                                  (size_t)a->batch);
}

/* Median refactor and solve times (ms per matrix) of a batch sharing S's pattern. */
static int time_sparse(gala_context *ctx, const opts *o, const gala_sparse_ldlt_symbolic *S,
                       const double *x, int nnz, int N, int batch, double *tf, double *ts)
{
    const int reps = o->common.reps;
    int ok = 0;
    sp_arg a = {NULL, NULL, NULL, NULL, batch, malloc((size_t)batch * sizeof(int))};
    double *rf = malloc((size_t)reps * sizeof *rf), *rs = malloc((size_t)reps * sizeof *rs);
    double *b = malloc((size_t)N * batch * sizeof *b);
    for (size_t i = 0; i < (size_t)N * batch; ++i) b[i] = 1.0 + (double)(i % 7);
    a.x = upload(ctx, o->dt, x, (size_t)nnz * batch);
    a.b = upload(ctx, o->dt, b, (size_t)N * batch);
    if (!a.x || !a.b) goto fail;
    CHECK(ctx, gala_buffer_create(ctx, o->dt, (size_t)N * batch, &a.X));
    CHECK(ctx, gala_sparse_ldlt_factor(ctx, S, batch, a.x, 0, 1, (size_t)batch, &a.F, a.info, NULL));
    CHECK(ctx, bu_time(ctx, sp_refactor, &a, o->common.warmup, reps, rf));
    CHECK(ctx, bu_time(ctx, sp_solve, &a, o->common.warmup, reps, rs));
    *tf = bu_median(rf, reps) / batch;
    *ts = bu_median(rs, reps) / batch;
    ok = 1;
fail:
    gala_sparse_ldlt_destroy(a.F);
    gala_buffer_free(a.x);
    gala_buffer_free(a.b);
    gala_buffer_free(a.X);
    free(a.info); free(rf); free(rs); free(b);
    return ok;
}

/* ------------------------------------------------------------------ QDLDL (optional) */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef long long qint;
typedef qint (*qd_etree_fn)(qint, const qint *, const qint *, qint *, qint *, qint *);
typedef qint (*qd_factor_fn)(qint, const qint *, const qint *, const double *, qint *, qint *,
                             double *, double *, double *, const qint *, const qint *, void *,
                             qint *, double *);
typedef void (*qd_solve_fn)(qint, const qint *, const qint *, const double *, const double *,
                            double *);

/* QDLDL on the permuted upper triangle P·K·Pᵀ (same permutation as gala), one matrix at a
 * time, for up to `count` matrices of the batch; median ms per matrix of factor and solve. */
static int time_qdldl(const char *path, const gala_csc *K, const int *perm, const double *x,
                      int batch, int count, int reps, double *tf, double *ts)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "qdldl: %s\n", dlerror());
        return 0;
    }
    qd_etree_fn f_etree;
    qd_factor_fn f_factor;
    qd_solve_fn f_solve;
    *(void **)&f_etree = dlsym(h, "QDLDL_etree");
    *(void **)&f_factor = dlsym(h, "QDLDL_factor");
    *(void **)&f_solve = dlsym(h, "QDLDL_solve");
    if (!f_etree || !f_factor || !f_solve) {
        fprintf(stderr, "qdldl: symbols not found in %s\n", path);
        dlclose(h);
        return 0;
    }
    const int n = K->n, nnz = K->p[n];
    qint *pinv = malloc((size_t)n * sizeof *pinv), *Ap = calloc((size_t)n + 1, sizeof *Ap);
    qint *Ai = malloc((size_t)nnz * sizeof *Ai), *src = malloc((size_t)nnz * sizeof *src);
    for (int k = 0; k < n; ++k) pinv[perm[k]] = k;
    for (int j = 0; j < n; ++j)
        for (int p = K->p[j]; p < K->p[j + 1]; ++p) {
            qint a = pinv[K->i[p]], b = pinv[j];
            Ap[(a > b ? a : b) + 1]++;
        }
    for (int j = 0; j < n; ++j) Ap[j + 1] += Ap[j];
    qint *fill = malloc(((size_t)n + 1) * sizeof *fill);
    memcpy(fill, Ap, ((size_t)n + 1) * sizeof *fill);
    for (int j = 0; j < n; ++j)
        for (int p = K->p[j]; p < K->p[j + 1]; ++p) {
            qint a = pinv[K->i[p]], b = pinv[j], lo = a < b ? a : b, hi = a < b ? b : a;
            qint q = fill[hi]++;
            Ai[q] = lo;
            src[q] = p;
        }
    for (int j = 0; j < n; ++j) /* sort rows within columns */
        for (qint a = Ap[j] + 1; a < Ap[j + 1]; ++a)
            for (qint b = a; b > Ap[j] && Ai[b - 1] > Ai[b]; --b) {
                qint t = Ai[b]; Ai[b] = Ai[b - 1]; Ai[b - 1] = t;
                t = src[b]; src[b] = src[b - 1]; src[b - 1] = t;
            }
    qint *work = malloc(3 * (size_t)n * sizeof *work), *Lnz = malloc((size_t)n * sizeof *Lnz);
    qint *et = malloc((size_t)n * sizeof *et);
    const qint sumlnz = f_etree(n, Ap, Ai, work, Lnz, et);
    int ok = 0;
    if (sumlnz < 0) {
        fprintf(stderr, "qdldl: etree failed\n");
    } else {
        qint *Lp = malloc(((size_t)n + 1) * sizeof *Lp), *Li = malloc(((size_t)sumlnz + 1) * sizeof *Li);
        double *Lx = malloc(((size_t)sumlnz + 1) * sizeof *Lx), *D = malloc((size_t)n * sizeof *D);
        double *Di = malloc((size_t)n * sizeof *Di), *fw = malloc((size_t)n * sizeof *fw);
        double *Ax = malloc((size_t)nnz * sizeof *Ax), *xs = malloc((size_t)n * sizeof *xs);
        void *bw = calloc((size_t)n, sizeof(qint)); /* big enough for any QDLDL_bool */
        double *rf = malloc((size_t)reps * sizeof *rf), *rs = malloc((size_t)reps * sizeof *rs);
        if (count > batch) count = batch;
        ok = 1;
        for (int r = 0; r < reps && ok; ++r) {
            double tfac = 0, tsol = 0;
            for (int q = 0; q < count; ++q) {
                for (int e = 0; e < nnz; ++e) Ax[e] = x[(size_t)src[e] * batch + q];
                double t0 = now();
                if (f_factor(n, Ap, Ai, Ax, Lp, Li, Lx, D, Di, Lnz, et, bw, work, fw) < 0) ok = 0;
                tfac += now() - t0;
                for (int i = 0; i < n; ++i) xs[i] = 1.0 + (double)(i % 7);
                t0 = now();
                f_solve(n, Lp, Li, Lx, Di, xs);
                tsol += now() - t0;
            }
            rf[r] = tfac * 1e3 / count;
            rs[r] = tsol * 1e3 / count;
        }
        if (ok) {
            *tf = bu_median(rf, reps);
            *ts = bu_median(rs, reps);
        } else {
            fprintf(stderr, "qdldl: factorization failed\n");
        }
        free(Lp); free(Li); free(Lx); free(D); free(Di); free(fw); free(Ax); free(xs); free(bw);
        free(rf); free(rs);
    }
    free(pinv); free(Ap); free(Ai); free(src); free(fill); free(work); free(Lnz); free(et);
    dlclose(h);
    return ok;
}

/* ------------------------------------------------------------------ sparse section */

static void emit(bu_json *js, const opts *o, const char *where, const char *schedule, int N,
                 int batch, double tf, double ts)
{
    const char *dt = gala_dtype_name(o->dt);
    printf("%-7s %-6s %-24s %6d %6d %12.5f %12.5f %12.5f\n", "sparse", where, schedule, N, batch,
           tf, ts, tf + ts);
    fflush(stdout);
    bu_json_row(js, "sssiisddd", "kind", "sparse", "on", where, "schedule", schedule, "n_plus_m",
                N, "batch", batch, "dtype", dt, "factor_ms_per_matrix", tf, "solve_ms_per_matrix",
                ts, "total_ms_per_matrix", tf + ts);
}

static void sparse_section(bu_json *js, const opts *o, gala_context *dev, gala_context *host)
{
    printf("%-7s %-6s %-24s %6s %6s %12s %12s %12s   (ms per matrix, median)\n", "kind", "on",
           "schedule", "n+m", "batch", "factor", "solve", "total");
    for (int h = 0; h < o->nh; ++h) {
        brng r = {0x1234567ULL + (uint64_t)h};
        kkt_rng g = {b_normal, b_uniform, &r};
        gala_csc K;
        int m;
        const int nvar = kkt_mpc(&g, o->horizons[h], 4, 2, &K, &m), N = K.n, nnz = K.p[N];
        gala_sparse_ldlt_options so;
        gala_sparse_ldlt_options_default(&so);
        so.expected_positive = nvar;
        gala_sparse_ldlt_symbolic *S = NULL;
        const double ta = now();
        if (gala_sparse_ldlt_analyze(dev, &K, &so, &S) != GALA_OK) {
            fprintf(stderr, "analyze: %s\n", gala_last_error(dev));
            kkt_free(&K);
            continue;
        }
        const double t_analyze = (now() - ta) * 1e3;
        gala_sparse_ldlt_stats st;
        gala_sparse_ldlt_symbolic_stats(S, &st);
        int *perm = malloc((size_t)N * sizeof *perm);
        gala_sparse_ldlt_symbolic_perm(S, perm);
        for (int bi = 0; bi < o->nb; ++bi) {
            const int batch = o->batches[bi];
            /* values: matrix q element e at x[e·batch + q] */
            double *x = malloc((size_t)nnz * batch * sizeof *x);
            for (int q = 0; q < batch; ++q) {
                if (q) kkt_values(&K, nvar, &g);
                for (int e = 0; e < nnz; ++e) x[(size_t)e * batch + q] = K.x[e];
            }
            printf("# pattern N=%d: n=%d m=%d nnz(A)=%lld nnz(L)=%lld multiply-adds=%.0f levels=%d "
                   "widest=%d instructions=%lld analyze=%.3f ms\n", o->horizons[h], nvar, m,
                   st.nnz_a, st.nnz_l, st.flops, st.levels, st.max_level_width, st.instructions,
                   t_analyze);
            if (bi == 0)
                bu_json_row(js, "siiiddddddd", "kind", "pattern", "horizon", o->horizons[h],
                            "n", nvar, "m", m, "nnz_a", (double)st.nnz_a, "nnz_l", (double)st.nnz_l,
                            "multiply_adds", st.flops, "levels", (double)st.levels,
                            "max_level_width", (double)st.max_level_width, "instructions",
                            (double)st.instructions, "analyze_ms", t_analyze);
            double tf, ts;
            /* configurations: the default launch shape, the column kernel (--baseline), and
             * with --sweep a few (matrices per work-group, column workers) pairs */
            static const char *sweep[] = {"sldlt.mb=64,sldlt.cw=1", "sldlt.mb=32,sldlt.cw=2",
                                          "sldlt.mb=16,sldlt.cw=4", "sldlt.mb=4,sldlt.cw=16",
                                          "sldlt.mb=1,sldlt.cw=64"};
            const char *cfg[8];
            int ncfg = 0;
            cfg[ncfg++] = "";
            if (o->baseline) cfg[ncfg++] = "sldlt.baseline=1";
            if (o->sweep)
                for (int k = 0; k < 5; ++k) cfg[ncfg++] = sweep[k];
            const char *old = getenv("GALA_TUNE");
            char *saved = old ? strdup(old) : NULL;
            for (int c = 0; c < ncfg; ++c) {
                char tune[512];
                snprintf(tune, sizeof tune, "%s%s%s", saved ? saved : "",
                         saved && *cfg[c] ? "," : "", cfg[c]);
                if (*tune) setenv("GALA_TUNE", tune, 1); else unsetenv("GALA_TUNE");
                const char *sched = c == 0 ? "levels" : (o->baseline && c == 1 ? "columns" : cfg[c]);
                if (time_sparse(dev, o, S, x, nnz, N, batch, &tf, &ts))
                    emit(js, o, "device", sched, N, batch, tf, ts);
                if (host && batch <= o->host_max && (c == 0 || (o->baseline && c == 1)) &&
                    time_sparse(host, o, S, x, nnz, N, batch, &tf, &ts))
                    emit(js, o, "host", sched, N, batch, tf, ts);
            }
            if (saved) setenv("GALA_TUNE", saved, 1); else unsetenv("GALA_TUNE");
            free(saved);
            if (o->qdldl && time_qdldl(o->qdldl, &K, perm, x, batch, batch < 100 ? batch : 100,
                                       o->common.reps, &tf, &ts))
                emit(js, o, "qdldl", "qdldl", N, batch, tf, ts);
            free(x);
        }
        free(perm);
        gala_sparse_ldlt_symbolic_destroy(S);
        kkt_free(&K);
    }
}

/* ------------------------------------------------------------------ dense section */

typedef struct dn_arg {
    gala_context *ctx;
    gala_buffer *src, *work, *b;
    int n, batch, solve;
} dn_arg;

/* One timed call: restore the matrices (a copy, in the same timed region for factor; small
 * next to the factorization) and factor, or solve. */
static gala_status dn_run(void *p)
{
    dn_arg *a = p;
    const size_t sz = (size_t)a->n * a->n * a->batch;
    if (a->solve)
        return gala_ldlt_solve_batched(a->ctx, GALA_LOWER, a->n, 1, a->work, 0, a->n,
                                       (size_t)a->n * a->n, a->b, 0, a->n, (size_t)a->n, a->batch);
    GALA_TRY_BENCH(gala_buffer_copy(a->src, 0, a->work, 0, sz));
    return gala_ldlt_batched(a->ctx, GALA_LOWER, a->n, a->work, 0, a->n, (size_t)a->n * a->n,
                             a->batch, NULL, NULL);
}

static int time_dense(gala_context *ctx, const opts *o, int n, int batch, const double *A,
                      double *tf, double *ts)
{
    const int reps = o->common.reps;
    const size_t sz = (size_t)n * n * batch;
    int ok = 0;
    double *rf = malloc((size_t)reps * sizeof *rf), *rs = malloc((size_t)reps * sizeof *rs);
    double *b = malloc((size_t)n * batch * sizeof *b);
    for (size_t i = 0; i < (size_t)n * batch; ++i) b[i] = 1.0 + (double)(i % 5);
    dn_arg a = {ctx, upload(ctx, o->dt, A, sz), NULL, upload(ctx, o->dt, b, (size_t)n * batch), n,
                batch, 0};
    if (!a.src || !a.b) goto fail;
    CHECK(ctx, gala_buffer_create(ctx, o->dt, sz, &a.work));
    CHECK(ctx, bu_time(ctx, dn_run, &a, o->common.warmup, reps, rf));
    a.solve = 1;
    CHECK(ctx, bu_time(ctx, dn_run, &a, o->common.warmup, reps, rs));
    *tf = bu_median(rf, reps) / batch;
    *ts = bu_median(rs, reps) / batch;
    ok = 1;
fail:
    gala_buffer_free(a.src);
    gala_buffer_free(a.work);
    gala_buffer_free(a.b);
    free(rf); free(rs); free(b);
    return ok;
}

static void dense_section(bu_json *js, const opts *o, gala_context *dev, gala_context *host)
{
    static const int full[][2] = {{8, 20000}, {32, 2000}, {64, 500}, {128, 100}, {300, 10}};
    static const int quick[][2] = {{8, 2000}, {32, 200}, {128, 10}};
    const int (*sizes)[2] = o->common.quick ? quick : full;
    const int ns = o->common.quick ? 3 : 5;
    brng r = {99};
    printf("%-7s %-6s %6s %8s %12s %12s   (ms per matrix, median; factor includes a copy)\n",
           "kind", "on", "n", "batch", "factor", "solve");
    for (int s = 0; s < ns; ++s) {
        const int n = sizes[s][0], batch = sizes[s][1];
        double *A = malloc((size_t)n * n * batch * sizeof *A);
        for (int b = 0; b < batch; ++b) { /* [H, Bᵀ; B, −G], diagonally dominant blocks */
            double *M = A + (size_t)b * n * n;
            const int n1 = n / 2;
            for (int jj = 0; jj < n; ++jj)
                for (int i = jj; i < n; ++i) {
                    double v = i == jj ? 0 : b_normal(&r) / sqrt((double)n);
                    M[jj * n + i] = M[i * n + jj] = v;
                }
            for (int i = 0; i < n; ++i) M[i * n + i] = (i < n1 ? 1.0 : -1.0) * (2.0 + sqrt((double)n));
        }
        double tf, ts;
        gala_context *cs[2] = {dev, host};
        for (int c = 0; c < 2; ++c) {
            if (!cs[c] || !time_dense(cs[c], o, n, batch, A, &tf, &ts)) continue;
            printf("%-7s %-6s %6d %8d %12.5f %12.5f\n", "dense", c ? "host" : "device", n, batch,
                   tf, ts);
            fflush(stdout);
            bu_json_row(js, "ssiisdd", "kind", "dense", "on", c ? "host" : "device", "n", n,
                        "batch", batch, "dtype", gala_dtype_name(o->dt), "factor_ms_per_matrix",
                        tf, "solve_ms_per_matrix", ts);
        }
        free(A);
    }
}

int main(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    gala_context *dev = bu_init(&argc, argv, &o.common);
    if (!dev) return 1;
    if (!parse(argc, argv, &o)) {
        gala_context_destroy(dev);
        return 2;
    }
    gala_context_options ho;
    gala_context_options_default(&ho);
    ho.backend = GALA_BACKEND_HOST;
    ho.use_environment = 0;
    gala_context *host = NULL;
    if (gala_context_create(&ho, &host) != GALA_OK) host = NULL;
    bu_json *js = bu_json_open(o.common.json, "ldlt", dev);
    if (o.common.json && !js) fprintf(stderr, "cannot write %s\n", o.common.json);
    const char *tune = getenv("GALA_TUNE");
    printf("# dtype %s, median of %d repeats after %d warm-up runs%s%s\n", gala_dtype_name(o.dt),
           o.common.reps, o.common.warmup, tune ? ", GALA_TUNE=" : "", tune ? tune : "");
    bu_json_row(js, "ssiisi", "kind", "params", "dtype", gala_dtype_name(o.dt), "reps",
                o.common.reps, "warmup", o.common.warmup, "gala_tune", tune ? tune : "",
                "host_max_batch", o.host_max);
    if (o.sparse) sparse_section(js, &o, dev, host);
    if (o.dense) dense_section(js, &o, dev, host);
    bu_json_close(js);
    gala_context_destroy(host);
    gala_context_destroy(dev);
    return 0;
}
