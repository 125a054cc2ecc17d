/*
 * ref_lapack: the CPU reference for bench_trtri, bench_potrf and bench_ldlt --dense: the same
 * cases timed with LAPACKE (and CBLAS) on the host, one matrix after another, so that a
 * user without a GPU sees what gala's host backend and OpenCL on the CPU (PoCL) give next to
 * LAPACK. Built when LAPACKE and a CBLAS (OpenBLAS) are found. Run it with one BLAS thread
 * (OPENBLAS_NUM_THREADS=1): the host backend is one thread too.
 *
 *   ref_lapack --family trtri|potrf|ldlt|ceiling [--quick] [--dtype float|double|both]
 *              [--reps N] [--warmup N] [--out FILE]
 *
 * Output: the format of the bench/ref_*.py scripts (one header object, then one JSON object
 * per line with "kind", "n", "batch", "dtype", "median_ms", "min_ms", "max_ms"), so
 * bench_<family> --ref FILE and bench/report.py read it as they read torch's timings.
 * Times are wall-clock (CLOCK_MONOTONIC) of the whole batch, median over --reps after
 * --warmup.
 *
 * Rows and routines (the kinds of the matching gala benchmark):
 *   trtri   batched/single/vbatched    ?trtri ('L', 'N'), in place (inverting twice gives the
 *                                      matrix back, so repeats need no copy)
 *   potrf   potrf_*                    ?potrf ('L'), in place: A = I + E as bench_potrf, whose
 *                                      factor is again such a matrix, so repeats need no copy
 *           potrs1_*, potrs17_*        ?potrs with 1 and 17 right-hand sides
 *           potri_*                    ?potri
 *   ldlt    dense                      LDLᵀ without pivoting of the quasi-definite
 *                                      K = [H Bᵀ; B −G] (bench_ldlt --dense) as LAPACK has no
 *                                      such routine: ?potrf(H) = L11·L11ᵀ, L21 = B·L11⁻ᵀ (trsm),
 *                                      S = G + L21·L21ᵀ (syrk), ?potrf(S) = L22·L22ᵀ; then
 *                                      K = L·diag(I, −I)·Lᵀ, the same n³/3 flops. Includes a
 *                                      copy of K (as bench_ldlt's timed factor does).
 *                                      "solve_ms_per_matrix": two triangular solves (trsv,
 *                                      gemv) per matrix.
 *           dense_sytrf                ?sytrf (Bunch–Kaufman pivoting) + copy, and ?sytrs
 *   ceiling copy                       memcpy of 64 MiB (bytes read + written), "gbs"
 *           gemm                       ?gemm of n×n matrices (n = 1024, full: 4096), "gflops"
 * Every case's first factorization is checked (a residual printed on stderr, failure exits
 * with status 1).
 * Variable batches draw n_b = 1 + (x_b >> 8) mod nmax, x_b = (1103515245·b + 12345) mod 2³¹,
 * as the gala benchmarks.
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* OpenBLAS's own information functions; weak so another CBLAS links too */
extern char *openblas_get_config(void) __attribute__((weak));
extern char *openblas_get_corename(void) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

typedef struct bcase {
    const char *kind;
    int n, batch;
} bcase;

/* the case lists of bench_trtri.c, bench_potrf.c and bench_ldlt.c (dense) */
static const bcase trtri_full[] = {
    {"batched", 32, 50000}, {"batched", 64, 20000}, {"batched", 128, 5000},
    {"batched", 256, 1000}, {"batched", 512, 200},  {"single", 4096, 1},
    {"single", 8192, 1},    {"vbatched", 64, 50000}, {"vbatched", 512, 500}};
static const bcase trtri_quick[] = {
    {"batched", 32, 2000}, {"batched", 64, 500}, {"batched", 128, 100}, {"batched", 256, 20},
    {"batched", 512, 4},   {"single", 1024, 1},  {"vbatched", 64, 2000}, {"vbatched", 512, 20}};
static const bcase potrf_full[] = {
    {"batched", 8, 100000}, {"batched", 16, 100000}, {"batched", 32, 50000},
    {"batched", 64, 20000}, {"batched", 128, 5000},  {"batched", 256, 1000},
    {"batched", 512, 200},  {"single", 1024, 1},     {"single", 2048, 1},
    {"single", 4096, 1},    {"single", 8192, 1},     {"single", 16384, 1},
    {"vbatched", 64, 50000}, {"vbatched", 512, 500}};
static const bcase potrf_quick[] = {
    {"batched", 8, 5000}, {"batched", 32, 2000}, {"batched", 64, 500}, {"batched", 128, 100},
    {"batched", 512, 4},  {"single", 1024, 1},   {"vbatched", 64, 2000}, {"vbatched", 512, 20}};
static const bcase potri_full[] = {
    {"batched", 32, 50000}, {"batched", 64, 20000}, {"batched", 128, 5000},
    {"batched", 256, 1000}, {"single", 256, 1},     {"single", 512, 1},
    {"single", 4096, 1},    {"vbatched", 64, 50000}};
static const bcase potri_quick[] = {
    {"batched", 32, 2000}, {"batched", 128, 100}, {"single", 1024, 1}, {"vbatched", 64, 2000}};
static const bcase ldlt_full[] = {
    {"dense", 8, 20000}, {"dense", 32, 2000}, {"dense", 64, 500}, {"dense", 128, 100},
    {"dense", 300, 10}};
static const bcase ldlt_quick[] = {{"dense", 8, 2000}, {"dense", 32, 200}, {"dense", 128, 10}};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static unsigned long long rng_next(unsigned long long *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}
static double unif(unsigned long long *s) { return (double)rng_next(s) * 0x1.0p-53; }

static int var_n(long b, int nmax)
{
    const unsigned long x = (1103515245ul * (unsigned long)b + 12345ul) & 0x7ffffffful;
    return 1 + (int)((x >> 8) % (unsigned long)nmax);
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ one case's data */

/* The matrices of a case in one array (double or float), column-major, lda = n, plus the
 * right-hand sides for potrs. */
typedef struct data {
    int isf, batch, nrhs, *nv;
    size_t *off, *boff, total, btotal;
    double *d, *db, *d0; /* d0: a pristine copy (ldlt factor restores from it) */
    float *f, *fb, *f0;
    lapack_int *ipiv;
} data;

static void data_free(data *x)
{
    free(x->nv); free(x->off); free(x->boff); free(x->d); free(x->db); free(x->d0);
    free(x->f); free(x->fb); free(x->f0); free(x->ipiv);
    memset(x, 0, sizeof *x);
}

/* fill kinds: 0 lower triangle L = D(I − E) (bench_trtri), 1 SPD A = I + E (bench_potrf),
 * 2 quasi-definite [H Bᵀ; B −G] with |diagonal| = 2 + √n (bench_ldlt --dense) */
static void fill(double *a, int n, int kind, unsigned long long *s)
{
    memset(a, 0, (size_t)n * n * sizeof *a);
    for (int j = 0; j < n; ++j) {
        if (kind == 0) {
            const double u = unif(s), d = (u < 0.5 ? -1 : 1) * (0.5 + 2 * fabs(u - 0.5));
            a[(size_t)j * n + j] = d;
            for (int i = j + 1; i < n; ++i) a[(size_t)j * n + i] = -d * unif(s) * 2.0 / n;
        } else if (kind == 1) {
            a[(size_t)j * n + j] = 1.0;
            for (int i = j + 1; i < n; ++i)
                a[(size_t)j * n + i] = a[(size_t)i * n + j] = (unif(s) - 0.5) * 0.8 / n;
        } else {
            a[(size_t)j * n + j] = (j < n / 2 ? 1.0 : -1.0) * (2.0 + sqrt((double)n));
            for (int i = j + 1; i < n; ++i) {
                /* approximately N(0, 1/n): the sum of 4 uniforms, centred */
                const double g = (unif(s) + unif(s) + unif(s) + unif(s) - 2.0) * sqrt(3.0);
                a[(size_t)j * n + i] = a[(size_t)i * n + j] = g / sqrt((double)n);
            }
        }
    }
}

static int setup(data *x, const bcase *c, int isf, int fillkind, int nrhs)
{
    memset(x, 0, sizeof *x);
    x->isf = isf;
    x->batch = c->batch;
    x->nrhs = nrhs;
    const int var = !strcmp(c->kind, "vbatched");
    x->nv = malloc((size_t)c->batch * sizeof *x->nv);
    x->off = malloc((size_t)c->batch * sizeof *x->off);
    x->boff = malloc((size_t)c->batch * sizeof *x->boff);
    if (!x->nv || !x->off || !x->boff) return 0;
    for (int b = 0; b < c->batch; ++b) {
        const int n = var ? var_n(b, c->n) : c->n;
        x->nv[b] = n;
        x->off[b] = x->total;
        x->boff[b] = x->btotal;
        x->total += (size_t)n * n;
        x->btotal += (size_t)n * (nrhs ? nrhs : 1);
    }
    x->d = malloc(x->total * sizeof *x->d);
    x->db = malloc(x->btotal * sizeof *x->db);
    if (!x->d || !x->db) return 0;
    unsigned long long s = 42;
    for (int b = 0; b < c->batch; ++b) fill(x->d + x->off[b], x->nv[b], fillkind, &s);
    for (size_t i = 0; i < x->btotal; ++i) x->db[i] = unif(&s) - 0.5;
    if (fillkind == 2) {
        x->d0 = malloc(x->total * sizeof *x->d0);
        if (!x->d0) return 0;
        memcpy(x->d0, x->d, x->total * sizeof *x->d);
        int nmax = 1;
        for (int b = 0; b < c->batch; ++b) nmax = x->nv[b] > nmax ? x->nv[b] : nmax;
        x->ipiv = malloc((size_t)nmax * sizeof *x->ipiv);
        if (!x->ipiv) return 0;
    }
    if (isf) {
        x->f = malloc(x->total * sizeof *x->f);
        x->fb = malloc(x->btotal * sizeof *x->fb);
        if (!x->f || !x->fb) return 0;
        for (size_t i = 0; i < x->total; ++i) x->f[i] = (float)x->d[i];
        for (size_t i = 0; i < x->btotal; ++i) x->fb[i] = (float)x->db[i];
        if (x->d0) {
            x->f0 = malloc(x->total * sizeof *x->f0);
            if (!x->f0) return 0;
            memcpy(x->f0, x->f, x->total * sizeof *x->f);
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ the routines */

enum { R_TRTRI, R_POTRF, R_POTRS, R_POTRI, R_LDLT, R_LDLT_SOLVE, R_SYTRF, R_SYTRS };

/* The quasi-definite factorization of one matrix (see the top of the file), in place. */
static int ldlt_blocks_d(int n, double *a)
{
    const int n1 = n / 2, n2 = n - n1;
    if (n1 && LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n1, a, n)) return 1;
    if (!n2) return 0;
    double *a21 = a + n1, *a22 = a + (size_t)n1 * n + n1;
    if (n1) {
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, n2, n1, 1.0,
                    a, n, a21, n);
        cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n2, n1, 1.0, a21, n, -1.0, a22, n);
    } else {
        for (int j = 0; j < n2; ++j)
            for (int i = j; i < n2; ++i) a22[(size_t)j * n + i] = -a22[(size_t)j * n + i];
    }
    return LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n2, a22, n) != 0;
}
static int ldlt_blocks_s(int n, float *a)
{
    const int n1 = n / 2, n2 = n - n1;
    if (n1 && LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', n1, a, n)) return 1;
    if (!n2) return 0;
    float *a21 = a + n1, *a22 = a + (size_t)n1 * n + n1;
    if (n1) {
        cblas_strsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, n2, n1, 1.0f,
                    a, n, a21, n);
        cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, n2, n1, 1.0f, a21, n, -1.0f, a22, n);
    } else {
        for (int j = 0; j < n2; ++j)
            for (int i = j; i < n2; ++i) a22[(size_t)j * n + i] = -a22[(size_t)j * n + i];
    }
    return LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', n2, a22, n) != 0;
}

/* Solve K·x = b in place with the factors of ldlt_blocks: L·diag(I, −I)·Lᵀ·x = b. */
static void ldlt_solve_d(int n, const double *a, double *b)
{
    const int n1 = n / 2, n2 = n - n1;
    const double *a21 = a + n1, *a22 = a + (size_t)n1 * n + n1;
    if (n1) cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, n1, a, n, b, 1);
    if (n1) cblas_dgemv(CblasColMajor, CblasNoTrans, n2, n1, -1.0, a21, n, b, 1, 1.0, b + n1, 1);
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, n2, a22, n, b + n1, 1);
    for (int i = n1; i < n; ++i) b[i] = -b[i];
    cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n2, a22, n, b + n1, 1);
    if (n1) cblas_dgemv(CblasColMajor, CblasTrans, n2, n1, -1.0, a21, n, b + n1, 1, 1.0, b, 1);
    if (n1) cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n1, a, n, b, 1);
}
static void ldlt_solve_s(int n, const float *a, float *b)
{
    const int n1 = n / 2, n2 = n - n1;
    const float *a21 = a + n1, *a22 = a + (size_t)n1 * n + n1;
    if (n1) cblas_strsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, n1, a, n, b, 1);
    if (n1) cblas_sgemv(CblasColMajor, CblasNoTrans, n2, n1, -1.0f, a21, n, b, 1, 1.0f, b + n1, 1);
    cblas_strsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, n2, a22, n, b + n1, 1);
    for (int i = n1; i < n; ++i) b[i] = -b[i];
    cblas_strsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n2, a22, n, b + n1, 1);
    if (n1) cblas_sgemv(CblasColMajor, CblasTrans, n2, n1, -1.0f, a21, n, b + n1, 1, 1.0f, b, 1);
    if (n1) cblas_strsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n1, a, n, b, 1);
}

/* One pass of routine r over the whole batch; nonzero when a LAPACK info was nonzero. */
static int run(data *x, int r)
{
    int bad = 0;
    const int C = LAPACK_COL_MAJOR;
    for (int b = 0; b < x->batch; ++b) {
        const int n = x->nv[b], k = x->nrhs;
        double *a = x->d + x->off[b], *rb = x->db + x->boff[b];
        float *af = x->isf ? x->f + x->off[b] : NULL, *rbf = x->isf ? x->fb + x->boff[b] : NULL;
        const size_t nn = (size_t)n * n;
        switch (r) {
        case R_TRTRI:
            bad |= x->isf ? LAPACKE_strtri(C, 'L', 'N', n, af, n) : LAPACKE_dtrtri(C, 'L', 'N', n, a, n);
            break;
        case R_POTRF:
            bad |= x->isf ? LAPACKE_spotrf(C, 'L', n, af, n) : LAPACKE_dpotrf(C, 'L', n, a, n);
            break;
        case R_POTRS:
            bad |= x->isf ? LAPACKE_spotrs(C, 'L', n, k, af, n, rbf, n)
                          : LAPACKE_dpotrs(C, 'L', n, k, a, n, rb, n);
            break;
        case R_POTRI:
            bad |= x->isf ? LAPACKE_spotri(C, 'L', n, af, n) : LAPACKE_dpotri(C, 'L', n, a, n);
            break;
        case R_LDLT:
            if (x->isf) {
                memcpy(af, x->f0 + x->off[b], nn * sizeof *af);
                bad |= ldlt_blocks_s(n, af);
            } else {
                memcpy(a, x->d0 + x->off[b], nn * sizeof *a);
                bad |= ldlt_blocks_d(n, a);
            }
            break;
        case R_LDLT_SOLVE:
            if (x->isf) ldlt_solve_s(n, af, rbf);
            else ldlt_solve_d(n, a, rb);
            break;
        case R_SYTRF:
            if (x->isf) {
                memcpy(af, x->f0 + x->off[b], nn * sizeof *af);
                bad |= LAPACKE_ssytrf(C, 'L', n, af, n, x->ipiv) != 0;
            } else {
                memcpy(a, x->d0 + x->off[b], nn * sizeof *a);
                bad |= LAPACKE_dsytrf(C, 'L', n, a, n, x->ipiv) != 0;
            }
            break;
        default: /* R_SYTRS: the pivots of the last matrix stand in for every matrix's (same
                  * work; the values stay finite because every K is strongly dominant) */
            bad |= x->isf ? LAPACKE_ssytrs(C, 'L', n, 1, af, n, x->ipiv, rbf, n)
                          : LAPACKE_dsytrs(C, 'L', n, 1, a, n, x->ipiv, rb, n);
            break;
        }
    }
    return bad != 0;
}

/* ‖K·x − b‖∞ / (‖K‖∞‖x‖∞ + ‖b‖∞) of matrix 0 after one ldlt factor + solve (b from db). */
static double ldlt_residual(data *x)
{
    const int n = x->nv[0];
    double *k = x->d0, *xs = malloc((size_t)n * sizeof *xs), num = 0, kn = 0, xn = 0, bn = 0;
    if (!xs) return NAN;
    if (x->isf)
        for (int i = 0; i < n; ++i) xs[i] = x->fb[i];
    else
        memcpy(xs, x->db, (size_t)n * sizeof *xs);
    for (int i = 0; i < n; ++i) bn = fmax(bn, fabs(xs[i]));
    double *bcopy = malloc((size_t)n * sizeof *bcopy);
    memcpy(bcopy, xs, (size_t)n * sizeof *xs);
    if (x->isf) {
        float *xf = x->fb;
        ldlt_solve_s(n, x->f, xf);
        for (int i = 0; i < n; ++i) xs[i] = xf[i];
    } else {
        ldlt_solve_d(n, x->d, x->db);
        memcpy(xs, x->db, (size_t)n * sizeof *xs);
    }
    for (int i = 0; i < n; ++i) {
        double s = 0, rs = 0;
        for (int j = 0; j < n; ++j) {
            s += k[(size_t)j * n + i] * xs[j];
            rs += fabs(k[(size_t)j * n + i]);
        }
        num = fmax(num, fabs(s - bcopy[i]));
        kn = fmax(kn, rs);
        xn = fmax(xn, fabs(xs[i]));
    }
    free(xs);
    free(bcopy);
    return num / (kn * xn + bn);
}

/* Time `reps` passes after `warmup`; median, min, max in ms. */
static int time_it(data *x, int r, int warmup, int reps, double *med, double *lo, double *hi)
{
    double *t = malloc((size_t)reps * sizeof *t);
    int bad = 0;
    if (!t) return 1;
    for (int i = 0; i < warmup; ++i) bad |= run(x, r);
    for (int i = 0; i < reps; ++i) {
        const double t0 = now();
        bad |= run(x, r);
        t[i] = 1e3 * (now() - t0);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    *med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    *lo = t[0];
    *hi = t[reps - 1];
    free(t);
    return bad;
}

static void emit(FILE *out, const char *kind, const bcase *c, int isf, double med, double lo,
                 double hi, const char *extra)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"kind\": \"%s\", \"n\": %d, \"batch\": %d, \"dtype\": \"%s\", \"median_ms\": %.6g, "
             "\"min_ms\": %.6g, \"max_ms\": %.6g%s}",
             kind, c->n, c->batch, isf ? "float" : "double", med, lo, hi, extra ? extra : "");
    puts(line);
    fflush(stdout);
    if (out) fprintf(out, "%s\n", line);
}

static void cpu_name(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *p = strchr(line, ':');
            if (p) {
                p += 1 + (p[1] == ' ');
                p[strcspn(p, "\n")] = 0;
                snprintf(buf, cap, "%s", p);
            }
            break;
        }
    }
    if (f) fclose(f);
}

/* The CPU's ceilings with one BLAS thread: memcpy bandwidth and GEMM rate. */
static int ceilings(FILE *out, int quick, int dtypes, int warmup, int reps)
{
    const size_t bytes = (size_t)64 << 20;
    char *a = malloc(bytes), *b = malloc(bytes);
    double *t = malloc((size_t)reps * sizeof *t);
    if (!a || !b || !t) return 1;
    memset(a, 1, bytes);
    memset(b, 0, bytes);
    for (int i = 0; i < warmup + reps; ++i) {
        const double t0 = now();
        memcpy(b, a, bytes);
        if (i >= warmup) t[i - warmup] = 1e3 * (now() - t0);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    const bcase cc = {"copy", (int)(bytes / 4), 1};
    char extra[96];
    snprintf(extra, sizeof extra, ", \"gbs\": %.6g", 2.0 * (double)bytes / (t[reps / 2] * 1e6));
    emit(out, "copy", &cc, 1, t[reps / 2], t[0], t[reps - 1], extra);
    free(a);
    free(b);
    const int n = quick ? 1024 : 4096;
    const size_t nn = (size_t)n * n;
    for (int d = 0; d < 2; ++d) {
        if (!(dtypes & (1 << d))) continue;
        void *A = calloc(nn, d ? 8 : 4), *B = calloc(nn, d ? 8 : 4), *C = calloc(nn, d ? 8 : 4);
        if (!A || !B || !C) return 1;
        for (int i = 0; i < warmup + reps; ++i) {
            const double t0 = now();
            if (d)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n,
                            0.0, C, n);
            else
                cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n,
                            0.0f, C, n);
            if (i >= warmup) t[i - warmup] = 1e3 * (now() - t0);
        }
        qsort(t, (size_t)reps, sizeof *t, cmp);
        const bcase gc = {"gemm", n, 1};
        snprintf(extra, sizeof extra, ", \"gflops\": %.6g",
                 2.0 * (double)n * n * n / (t[reps / 2] * 1e6));
        emit(out, "gemm", &gc, d == 0, t[reps / 2], t[0], t[reps - 1], extra);
        free(A);
        free(B);
        free(C);
    }
    free(t);
    return 0;
}

int main(int argc, char **argv)
{
    const char *family = NULL, *outpath = NULL;
    int quick = 0, dtypes = 3, reps = 10, warmup = 2;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--family") && v) family = argv[++i];
        else if (!strcmp(a, "--out") && v) outpath = argv[++i];
        else if (!strcmp(a, "--reps") && v) reps = atoi(argv[++i]);
        else if (!strcmp(a, "--warmup") && v) warmup = atoi(argv[++i]);
        else if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--dtype") && v) {
            ++i;
            dtypes = !strcmp(argv[i], "float") ? 1 : !strcmp(argv[i], "double") ? 2 : 3;
        } else {
            family = NULL;
            break;
        }
    }
    if (!family || (strcmp(family, "trtri") && strcmp(family, "potrf") && strcmp(family, "ldlt") &&
                    strcmp(family, "ceiling"))) {
        fprintf(stderr, "usage: %s --family trtri|potrf|ldlt|ceiling [--quick] [--dtype float|double|both] "
                "[--reps N] [--warmup N] [--out FILE]\n", argv[0]);
        return 2;
    }
    if (reps < 1) reps = 1;
    FILE *out = outpath ? fopen(outpath, "w") : NULL;
    if (outpath && !out) {
        fprintf(stderr, "cannot write %s\n", outpath);
        return 1;
    }
    char cpu[256], date[64], header[1024];
    cpu_name(cpu, sizeof cpu);
    time_t tt = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
    const char *ct = getenv("OPENBLAS_CORETYPE"), *nt = getenv("OPENBLAS_NUM_THREADS");
    snprintf(header, sizeof header,
             "{\"bench\": \"%s-reference\", \"what\": \"LAPACKE (%s), one matrix after another\", "
             "\"device\": \"%s\", \"blas\": \"%s\", \"blas_core\": \"%s\", \"blas_threads\": %d, "
             "\"OPENBLAS_CORETYPE\": \"%s\", \"OPENBLAS_NUM_THREADS\": \"%s\", \"date\": \"%s\", "
             "\"warmup\": %d, \"reps\": %d, \"timer\": \"wall clock\"}",
             family, openblas_get_config ? "OpenBLAS" : "CBLAS", cpu,
             openblas_get_config ? openblas_get_config() : "unknown",
             openblas_get_corename ? openblas_get_corename() : "unknown",
             openblas_get_num_threads ? openblas_get_num_threads() : -1, ct ? ct : "",
             nt ? nt : "", date, warmup, reps);
    puts(header);
    if (out) fprintf(out, "%s\n", header);

    int failed = 0;
    if (!strcmp(family, "ceiling")) {
        failed = ceilings(out, quick, dtypes, warmup, reps);
        dtypes = 0; /* nothing else */
    }
    for (int d = 0; d < 2; ++d) {
        if (!(dtypes & (1 << d))) continue;
        const int isf = d == 0;
        if (!strcmp(family, "trtri")) {
            const bcase *cs = quick ? trtri_quick : trtri_full;
            const int nc = quick ? COUNT(trtri_quick) : COUNT(trtri_full);
            for (int k = 0; k < nc; ++k) {
                data x;
                double med, lo, hi;
                if (!setup(&x, &cs[k], isf, 0, 0)) { failed = 1; data_free(&x); continue; }
                if (time_it(&x, R_TRTRI, warmup, reps, &med, &lo, &hi)) failed = 1;
                emit(out, cs[k].kind, &cs[k], isf, med, lo, hi, NULL);
                data_free(&x);
            }
        } else if (!strcmp(family, "potrf")) {
            static const struct { const char *name; int r, nrhs; } ops[] = {
                {"potrf", R_POTRF, 0}, {"potrs1", R_POTRS, 1}, {"potrs17", R_POTRS, 17},
                {"potri", R_POTRI, 0}};
            for (int o = 0; o < 4; ++o) {
                const int pi = ops[o].r == R_POTRI;
                const bcase *cs = pi ? (quick ? potri_quick : potri_full) : (quick ? potrf_quick : potrf_full);
                const int nc = pi ? (quick ? COUNT(potri_quick) : COUNT(potri_full))
                                  : (quick ? COUNT(potrf_quick) : COUNT(potrf_full));
                for (int k = 0; k < nc; ++k) {
                    data x;
                    double med, lo, hi;
                    if (!setup(&x, &cs[k], isf, 1, ops[o].nrhs)) { failed = 1; data_free(&x); continue; }
                    if (ops[o].r != R_POTRF && run(&x, R_POTRF)) failed = 1; /* start from the factor */
                    if (time_it(&x, ops[o].r, warmup, reps, &med, &lo, &hi)) {
                        fprintf(stderr, "%s %s n=%d: LAPACK reported a failure\n", ops[o].name,
                                cs[k].kind, cs[k].n);
                        failed = 1;
                    }
                    char kind[64];
                    snprintf(kind, sizeof kind, "%s_%s", ops[o].name, cs[k].kind);
                    char extra[32] = "";
                    if (ops[o].nrhs) snprintf(extra, sizeof extra, ", \"nrhs\": %d", ops[o].nrhs);
                    emit(out, kind, &cs[k], isf, med, lo, hi, extra);
                    data_free(&x);
                }
            }
        } else {
            const bcase *cs = quick ? ldlt_quick : ldlt_full;
            const int nc = quick ? COUNT(ldlt_quick) : COUNT(ldlt_full);
            for (int k = 0; k < nc; ++k) {
                data x;
                if (!setup(&x, &cs[k], isf, 2, 1)) { failed = 1; data_free(&x); continue; }
                /* check: one factor + solve of matrix 0 */
                run(&x, R_LDLT);
                const double res = ldlt_residual(&x);
                const double tol = 50.0 * cs[k].n * (isf ? 1.2e-7 : 2.3e-16);
                fprintf(stderr, "# ldlt n=%d %s: residual %.3g (bound %.3g)\n", cs[k].n,
                        isf ? "float" : "double", res, tol);
                if (!(res <= tol)) failed = 1;
                double fm, fl, fh, sm, sl, sh, ym, yl, yh, zm, zl, zh;
                int bad = time_it(&x, R_LDLT, warmup, reps, &fm, &fl, &fh);
                bad |= time_it(&x, R_LDLT_SOLVE, warmup, reps, &sm, &sl, &sh);
                bad |= time_it(&x, R_SYTRF, warmup, reps, &ym, &yl, &yh);
                bad |= time_it(&x, R_SYTRS, warmup, reps, &zm, &zl, &zh);
                if (bad) {
                    fprintf(stderr, "ldlt n=%d: LAPACK reported a failure\n", cs[k].n);
                    failed = 1;
                }
                char extra[160];
                snprintf(extra, sizeof extra,
                         ", \"factor_ms_per_matrix\": %.6g, \"solve_ms_per_matrix\": %.6g",
                         fm / cs[k].batch, sm / cs[k].batch);
                emit(out, "dense", &cs[k], isf, fm, fl, fh, extra);
                snprintf(extra, sizeof extra,
                         ", \"factor_ms_per_matrix\": %.6g, \"solve_ms_per_matrix\": %.6g",
                         ym / cs[k].batch, zm / cs[k].batch);
                emit(out, "dense_sytrf", &cs[k], isf, ym, yl, yh, extra);
                data_free(&x);
            }
        }
    }
    if (out) fclose(out);
    return failed;
}
