/*
 * bench_ldlt: LDLᵀ factor + solve time per matrix.
 *
 * Sparse (default): MPC KKT matrices (tests/kkt_gen.h: nx = 4 states, nu = 2 inputs,
 * horizon N, n + m = 16N + 12; N = 24 → 396, N = 124 → 1996), batches sharing one pattern,
 * values interleaved. For each (N, batch): gala_sparse_ldlt_refactor (numeric factorization,
 * status read back) and gala_sparse_ldlt_solve (one right-hand side per matrix) on
 *   - the device of --backend (default: auto, a GPU when there is one),
 *   - the host backend (the C reference, one CPU core),
 * with the flat level schedule and, with --baseline, the column-by-column kernel
 * (GALA_TUNE=sldlt.baseline=1), with --sweep also fixed launch shapes (sldlt.mb matrices per
 * work-group × sldlt.cw column workers); optionally QDLDL on one core (--qdldl libqdldl.so, built
 * from its public source with its defaults: 64-bit ints, double), same AMD permutation.
 * Dense (--dense): gala_ldlt_batched + gala_ldlt_solve_batched of random quasi-definite
 * matrices, device and host.
 *
 * Output: one JSON document on stdout (device, date, parameters, median of --reps repeats
 * per measurement, in milliseconds per matrix).
 *
 *   bench_ldlt [--backend auto|opencl|cuda|host] [--device SEL] [--dtype double|float]
 *              [--reps 10] [--horizons 24,124] [--batches 1,100,1000] [--host-max-batch 1000]
 *              [--baseline] [--sweep] [--qdldl PATH] [--dense] [--no-sparse]
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    const char *backend, *device, *qdldl;
    gala_dtype dt;
    int reps, baseline, sweep, dense, sparse, host_max;
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

static int parse(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    o->dt = GALA_DOUBLE;
    o->reps = 10;
    o->sparse = 1;
    o->host_max = 1000;
    o->nh = parse_list("24,124", o->horizons, 16);
    o->nb = parse_list("1,100,1000", o->batches, 16);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--backend") && v) o->backend = argv[++i];
        else if (!strcmp(a, "--device") && v) o->device = argv[++i];
        else if (!strcmp(a, "--dtype") && v) o->dt = strcmp(argv[++i], "float") ? GALA_DOUBLE : GALA_FLOAT;
        else if (!strcmp(a, "--reps") && v) o->reps = atoi(argv[++i]);
        else if (!strcmp(a, "--horizons") && v) o->nh = parse_list(argv[++i], o->horizons, 16);
        else if (!strcmp(a, "--batches") && v) o->nb = parse_list(argv[++i], o->batches, 16);
        else if (!strcmp(a, "--host-max-batch") && v) o->host_max = atoi(argv[++i]);
        else if (!strcmp(a, "--qdldl") && v) o->qdldl = argv[++i];
        else if (!strcmp(a, "--baseline")) o->baseline = 1;
        else if (!strcmp(a, "--sweep")) o->sweep = 1;
        else if (!strcmp(a, "--dense")) o->dense = 1;
        else if (!strcmp(a, "--no-sparse")) o->sparse = 0;
        else {
            fprintf(stderr, "usage: %s [--backend auto|opencl|cuda|host] [--device SEL] "
                    "[--dtype double|float] [--reps N] [--horizons 24,124] [--batches 1,100,1000] "
                    "[--host-max-batch N] [--baseline] [--sweep] [--qdldl libqdldl.so] [--dense] "
                    "[--no-sparse]\n", argv[0]);
            return 0;
        }
    }
    if (o->reps < 1) o->reps = 1;
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

#define CHECK(ctx, call)                                                                   \
    do {                                                                                   \
        gala_status s_ = (call);                                                           \
        if (s_ != GALA_OK) {                                                               \
            fprintf(stderr, "%s: %s\n", #call, gala_last_error(ctx));                      \
            goto fail;                                                                     \
        }                                                                                  \
    } while (0)

/* Median refactor and solve times (ms per matrix) of a batch sharing S's pattern. */
static int time_sparse(gala_context *ctx, gala_dtype dt, const gala_sparse_ldlt_symbolic *S,
                       const double *x, int nnz, int N, int batch, int reps, double *tf,
                       double *ts)
{
    int ok = 0, *info = malloc((size_t)batch * sizeof *info);
    double *rf = malloc((size_t)reps * sizeof *rf), *rs = malloc((size_t)reps * sizeof *rs);
    double *b = malloc((size_t)N * batch * sizeof *b);
    for (size_t i = 0; i < (size_t)N * batch; ++i) b[i] = 1.0 + (double)(i % 7);
    gala_buffer *bx = upload(ctx, dt, x, (size_t)nnz * batch);
    gala_buffer *bb = upload(ctx, dt, b, (size_t)N * batch), *bX = NULL;
    gala_sparse_ldlt *F = NULL;
    if (!bx || !bb) goto fail;
    CHECK(ctx, gala_buffer_create(ctx, dt, (size_t)N * batch, &bX));
    CHECK(ctx, gala_sparse_ldlt_factor(ctx, S, batch, bx, 0, 1, (size_t)batch, &F, info, NULL));
    CHECK(ctx, gala_sparse_ldlt_solve(F, 1, bb, 0, 1, 0, (size_t)batch, bX, 0, 1, 0, (size_t)batch));
    CHECK(ctx, gala_finish(ctx));
    for (int r = 0; r < reps; ++r) {
        const double t0 = bu_now();
        CHECK(ctx, gala_sparse_ldlt_refactor(F, bx, 0, 1, (size_t)batch, info, NULL));
        rf[r] = (bu_now() - t0) * 1e3 / batch;
    }
    for (int r = 0; r < reps; ++r) {
        const double t0 = bu_now();
        CHECK(ctx, gala_sparse_ldlt_solve(F, 1, bb, 0, 1, 0, (size_t)batch, bX, 0, 1, 0, (size_t)batch));
        CHECK(ctx, gala_finish(ctx));
        rs[r] = (bu_now() - t0) * 1e3 / batch;
    }
    *tf = bu_median(rf, reps);
    *ts = bu_median(rs, reps);
    ok = 1;
fail:
    gala_sparse_ldlt_destroy(F);
    gala_buffer_free(bx);
    gala_buffer_free(bb);
    gala_buffer_free(bX);
    free(info); free(rf); free(rs); free(b);
    return ok;
}

/* ------------------------------------------------------------------ QDLDL (optional) */

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
                double t0 = bu_now();
                if (f_factor(n, Ap, Ai, Ax, Lp, Li, Lx, D, Di, Lnz, et, bw, work, fw) < 0) ok = 0;
                tfac += bu_now() - t0;
                for (int i = 0; i < n; ++i) xs[i] = 1.0 + (double)(i % 7);
                t0 = bu_now();
                f_solve(n, Lp, Li, Lx, Di, xs);
                tsol += bu_now() - t0;
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

static void emit(bu_json *j, const char *where, const char *schedule, int N, int batch, double tf,
                 double ts)
{
    bu_json_object(j, NULL);
    bu_json_str(j, "kind", "sparse");
    bu_json_str(j, "on", where);
    bu_json_str(j, "schedule", schedule);
    bu_json_int(j, "n_plus_m", N);
    bu_json_int(j, "batch", batch);
    bu_json_num(j, "factor_ms_per_matrix", tf);
    bu_json_num(j, "solve_ms_per_matrix", ts);
    bu_json_num(j, "total_ms_per_matrix", tf + ts);
    bu_json_close(j);
}

static void sparse_section(bu_json *j, const opts *o, gala_context *dev, gala_context *host)
{
    bu_json_array(j, "sparse");
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
        const double ta = bu_now();
        if (gala_sparse_ldlt_analyze(dev, &K, &so, &S) != GALA_OK) {
            fprintf(stderr, "analyze: %s\n", gala_last_error(dev));
            kkt_free(&K);
            continue;
        }
        const double t_analyze = (bu_now() - ta) * 1e3;
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
            bu_json_object(j, NULL);
            bu_json_str(j, "kind", "sparse_pattern");
            bu_json_int(j, "horizon", o->horizons[h]);
            bu_json_int(j, "n", nvar);
            bu_json_int(j, "m", m);
            bu_json_int(j, "n_plus_m", N);
            bu_json_int(j, "nnz_a", st.nnz_a);
            bu_json_int(j, "nnz_l", st.nnz_l);
            bu_json_num(j, "flops", st.flops);
            bu_json_int(j, "levels", st.levels);
            bu_json_int(j, "max_level_width", st.max_level_width);
            bu_json_int(j, "instructions", st.instructions);
            bu_json_num(j, "analyze_ms", t_analyze);
            bu_json_int(j, "batch", batch);
            bu_json_close(j);
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
                if (time_sparse(dev, o->dt, S, x, nnz, N, batch, o->reps, &tf, &ts))
                    emit(j, "device", sched, N, batch, tf, ts);
                if (host && batch <= o->host_max && (c == 0 || (o->baseline && c == 1)) &&
                    time_sparse(host, o->dt, S, x, nnz, N, batch, o->reps, &tf, &ts))
                    emit(j, "host", sched, N, batch, tf, ts);
            }
            if (saved) setenv("GALA_TUNE", saved, 1); else unsetenv("GALA_TUNE");
            free(saved);
            if (o->qdldl && time_qdldl(o->qdldl, &K, perm, x, batch, batch < 100 ? batch : 100,
                                       o->reps, &tf, &ts))
                emit(j, "qdldl", "qdldl", N, batch, tf, ts);
            fprintf(stderr, "sparse N=%d batch=%d done\n", N, batch);
            free(x);
        }
        free(perm);
        gala_sparse_ldlt_symbolic_destroy(S);
        kkt_free(&K);
    }
    bu_json_close(j);
}

/* ------------------------------------------------------------------ dense section */

static int time_dense(gala_context *ctx, gala_dtype dt, int n, int batch, int reps,
                      const double *A, double *tf, double *ts)
{
    const size_t sz = (size_t)n * n * batch;
    int ok = 0;
    double *rf = malloc((size_t)reps * sizeof *rf), *rs = malloc((size_t)reps * sizeof *rs);
    double *b = malloc((size_t)n * batch * sizeof *b);
    for (size_t i = 0; i < (size_t)n * batch; ++i) b[i] = 1.0 + (double)(i % 5);
    gala_buffer *src = upload(ctx, dt, A, sz), *work = NULL, *bb = upload(ctx, dt, b, (size_t)n * batch);
    if (!src || !bb) goto fail;
    CHECK(ctx, gala_buffer_create(ctx, dt, sz, &work));
    for (int r = -1; r < reps; ++r) { /* r = -1: warm-up (kernel builds) */
        CHECK(ctx, gala_buffer_copy(src, 0, work, 0, sz));
        CHECK(ctx, gala_finish(ctx));
        double t0 = bu_now();
        CHECK(ctx, gala_ldlt_batched(ctx, GALA_LOWER, n, work, 0, n, (size_t)n * n, batch, NULL, NULL));
        const double t1 = bu_now();
        CHECK(ctx, gala_ldlt_solve_batched(ctx, GALA_LOWER, n, 1, work, 0, n, (size_t)n * n, bb, 0,
                                           n, (size_t)n, batch));
        CHECK(ctx, gala_finish(ctx));
        if (r >= 0) {
            rf[r] = (t1 - t0) * 1e3 / batch;
            rs[r] = (bu_now() - t1) * 1e3 / batch;
        }
    }
    *tf = bu_median(rf, reps);
    *ts = bu_median(rs, reps);
    ok = 1;
fail:
    gala_buffer_free(src);
    gala_buffer_free(work);
    gala_buffer_free(bb);
    free(rf); free(rs); free(b);
    return ok;
}

static void dense_section(bu_json *j, const opts *o, gala_context *dev, gala_context *host)
{
    static const int sizes[][2] = {{8, 20000}, {32, 2000}, {64, 500}, {128, 100}, {300, 10}};
    bu_json_array(j, "dense");
    brng r = {99};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
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
            if (!cs[c] || time_dense(cs[c], o->dt, n, batch, o->reps, A, &tf, &ts) == 0) continue;
            bu_json_object(j, NULL);
            bu_json_str(j, "kind", "dense");
            bu_json_str(j, "on", c ? "host" : "device");
            bu_json_int(j, "n", n);
            bu_json_int(j, "batch", batch);
            bu_json_num(j, "factor_ms_per_matrix", tf);
            bu_json_num(j, "solve_ms_per_matrix", ts);
            bu_json_close(j);
        }
        fprintf(stderr, "dense n=%d done\n", n);
        free(A);
    }
    bu_json_close(j);
}

int main(int argc, char **argv)
{
    opts o;
    if (!parse(argc, argv, &o)) return 2;
    gala_context *dev = bu_context(o.backend, o.device, 0);
    if (!dev) return 1;
    gala_context *host = bu_context("host", NULL, 0);
    char date[64];
    bu_date(date, sizeof date);
    bu_json j;
    bu_json_begin(&j, stdout);
    bu_json_str(&j, "bench", "ldlt");
    bu_json_str(&j, "date", date);
    bu_json_str(&j, "gala", gala_version());
    bu_json_device(&j, "device", dev);
    bu_json_object(&j, "params");
    bu_json_str(&j, "dtype", gala_dtype_name(o.dt));
    bu_json_int(&j, "reps", o.reps);
    bu_json_str(&j, "statistic", "median over reps, milliseconds per matrix");
    bu_json_str(&j, "sparse_matrices", "MPC KKT, nx=4, nu=2, n+m = 16*horizon + 12, AMD");
    bu_json_str(&j, "values_layout", "interleaved (x[e*batch + q])");
    bu_json_str(&j, "gala_tune", getenv("GALA_TUNE") ? getenv("GALA_TUNE") : "");
    bu_json_int(&j, "host_max_batch", o.host_max);
    bu_json_close(&j);
    if (o.sparse) sparse_section(&j, &o, dev, host);
    if (o.dense) dense_section(&j, &o, dev, host);
    bu_json_end(&j);
    gala_context_destroy(host);
    gala_context_destroy(dev);
    return 0;
}
