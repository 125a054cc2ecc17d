/* The operations catalogue (ops.h): one self-checking use of every public function with
 * device work, small sizes (they run thousands of times in the fault sweep, under ASan). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* open_memstream */
#endif
#include "ops.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kkt_gen.h"

/* ------------------------------------------------------------------ fault window */

static int fi_kind = -1;
static long fi_k, fi_left;
static int fi_windows;

void tu_fault_set(int kind, long k)
{
    fi_kind = kind;
    fi_k = k;
    fi_left = k;
    fi_windows = 0;
}
long tu_fault_left(void) { return fi_left; }
int tu_fault_windows(void) { return fi_windows; }

void tu_fault_begin(void)
{
    if (fi_kind < 0) return;
    fi_windows++;
    gala_fault_arm((gala_fault_kind)fi_kind, fi_left);
}

void tu_fault_end(void)
{
    if (fi_kind < 0) return;
    fi_left = gala_fault_pending((gala_fault_kind)fi_kind);
    gala_fault_arm((gala_fault_kind)fi_kind, 0);
}

/* ------------------------------------------------------------------ small helpers */

/* xoshiro-free generator: splitmix64 (ops must not share state between threads) */
typedef struct rng { uint64_t s; } rng;
static uint64_t rnext(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double runif(void *p) { return (double)(rnext(p) >> 11) * 0x1.0p-53; }
static double rnorm(void *p)
{
    double u = runif(p), v = runif(p);
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}
static rng rng_of(uint64_t seed, const char *name)
{
    rng r = {seed};
    for (const char *p = name; *p; ++p) r.s = (r.s ^ (unsigned char)*p) * 1099511628211ULL;
    rnext(&r);
    return r;
}

static double eps_of(gala_dtype dt) { return dt == GALA_FLOAT ? 1.1920929e-7 : 2.220446e-16; }
static void round_to(gala_dtype dt, double *v, size_t n)
{
    if (dt == GALA_FLOAT)
        for (size_t i = 0; i < n; ++i) v[i] = (double)(float)v[i];
}

/* Upload n doubles (converted to dt) into a new buffer; NULL on failure. */
static gala_buffer *upload(gala_context *ctx, gala_dtype dt, const double *v, size_t n)
{
    gala_buffer *b = NULL;
    if (gala_buffer_create(ctx, dt, n ? n : 1, &b) != GALA_OK) return NULL;
    gala_status s;
    if (dt == GALA_DOUBLE) {
        s = gala_buffer_write(b, 0, n, v);
    } else if (dt == GALA_FLOAT) {
        float *f = malloc((n ? n : 1) * sizeof *f);
        for (size_t i = 0; i < n; ++i) f[i] = (float)v[i];
        s = gala_buffer_write(b, 0, n, f);
        free(f);
    } else {
        int *f = malloc((n ? n : 1) * sizeof *f);
        for (size_t i = 0; i < n; ++i) f[i] = (int)v[i];
        s = gala_buffer_write(b, 0, n, f);
        free(f);
    }
    if (s != GALA_OK) {
        gala_buffer_free(b);
        return NULL;
    }
    return b;
}

static gala_status download(const gala_buffer *b, size_t off, double *v, size_t n)
{
    gala_dtype dt = gala_buffer_dtype(b);
    if (dt == GALA_DOUBLE) return gala_buffer_read(b, off, n, v);
    float *f = malloc((n ? n : 1) * sizeof *f);
    gala_status s = gala_buffer_read(b, off, n, f); /* int and float are both 4 bytes */
    for (size_t i = 0; s == GALA_OK && i < n; ++i)
        v[i] = dt == GALA_FLOAT ? (double)f[i] : (double)((int *)(void *)f)[i];
    free(f);
    return s;
}

static double *nans(size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; ++i) v[i] = NAN;
    return v;
}

/* Frame of every operation: st is the result, msg the complaint. */
#define OP_BEGIN gala_status st = GALA_OK
#define PREP(cond)                                                                         \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            snprintf(msg, cap, "preparation failed at line %d (%s): %s", __LINE__, #cond,  \
                     gala_last_error(ctx));                                                \
            st = GALA_ERR_INTERNAL;                                                        \
            goto out;                                                                      \
        }                                                                                  \
    } while (0)
#define WINDOW(expr)                                                                       \
    do {                                                                                   \
        tu_fault_begin();                                                                  \
        st = (expr);                                                                       \
        tu_fault_end();                                                                    \
        if (st != GALA_OK) {                                                               \
            snprintf(msg, cap, "%s: %s", #expr, gala_last_error(ctx));                     \
            goto out;                                                                      \
        }                                                                                  \
    } while (0)
#define EXPECT(cond, ...)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            int n_ = snprintf(msg, cap, "wrong result (line %d): ", __LINE__);             \
            if (n_ > 0 && (size_t)n_ < cap) snprintf(msg + n_, cap - (size_t)n_, __VA_ARGS__); \
            st = GALA_ERR_INTERNAL;                                                        \
            goto out;                                                                      \
        }                                                                                  \
    } while (0)

/* ------------------------------------------------------------------ dense references */

/* Full symmetric positive definite n×n (column-major, ld n): M·Mᵀ/n + I. */
static void gen_spd(rng *r, int n, gala_dtype dt, double *G)
{
    double *M = malloc(((size_t)n * n + 1) * sizeof *M);
    for (size_t i = 0; i < (size_t)n * n; ++i) M[i] = rnorm(r);
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += M[i + (size_t)k * n] * M[j + (size_t)k * n];
            G[i + (size_t)j * n] = G[j + (size_t)i * n] = s / n + (i == j);
        }
    round_to(dt, G, (size_t)n * n);
    free(M);
}

/* Symmetric quasi-definite [H, Bᵀ; B, −G], nh + ng = n. */
static void gen_qd(rng *r, int n, gala_dtype dt, double *K)
{
    const int nh = (n + 1) / 2;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double v = 0.3 * rnorm(r);
            if (i == j) v = (j < nh ? 1 : -1) * (1.5 + runif(r)) * 2;
            else if (i < nh && j < nh) v *= 0.2;
            else if (i >= nh && j >= nh) v *= 0.2;
            K[i + (size_t)j * n] = K[j + (size_t)i * n] = v;
        }
    round_to(dt, K, (size_t)n * n);
}

/* Well-conditioned triangular (full storage, the other triangle zero). */
static void gen_tri(rng *r, int n, int up, gala_dtype dt, double *T)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            int in = up ? i <= j : i >= j;
            T[i + (size_t)j * n] = !in ? 0 : i == j ? (runif(r) < 0.5 ? -1 : 1) * (1 + runif(r))
                                                    : rnorm(r) / n;
        }
    round_to(dt, T, (size_t)n * n);
}

/* Put full matrix G (n×n, ld n) at dst + off with leading dimension ld. */
static void put(double *dst, size_t off, int ld, const double *G, int n)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) dst[off + (size_t)i + (size_t)j * ld] = G[i + (size_t)j * n];
}

/* The referenced triangle of a matrix at src + off (ld) as a full lower n×n matrix Lg:
 * lower: Lg(i, j) = A(i, j); upper: Lg(i, j) = A(j, i) (i >= j); zeros above. */
static void get_tri(const double *src, size_t off, int ld, int up, int n, double *Lg)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            Lg[i + (size_t)j * n] =
                i < j ? 0 : up ? src[off + (size_t)j + (size_t)i * ld] : src[off + (size_t)i + (size_t)j * ld];
}

static double fro(const double *A, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += A[i] * A[i];
    return sqrt(s);
}

/* C = A·B (n×n). */
static void mm(int n, const double *A, const double *B, double *C)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += A[i + (size_t)k * n] * B[k + (size_t)j * n];
            C[i + (size_t)j * n] = s;
        }
}

/* ‖Lg·D·Lgᵀ − G‖_F / ‖G‖_F, D = diag(Lg) when ldl (Lg unit lower), else Lg·Lgᵀ. */
static double fact_residual(int n, const double *Lg, const double *G, int ldl)
{
    double num = 0, den = 0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
            double s = 0;
            for (int k = 0; k <= j; ++k) {
                if (ldl) {
                    double li = i == k ? 1 : Lg[i + (size_t)k * n], lj = j == k ? 1 : Lg[j + (size_t)k * n];
                    s += li * Lg[k + (size_t)k * n] * lj;
                } else {
                    s += Lg[i + (size_t)k * n] * Lg[j + (size_t)k * n];
                }
            }
            double d = s - G[i + (size_t)j * n];
            num += d * d;
            den += G[i + (size_t)j * n] * G[i + (size_t)j * n];
        }
    double r = sqrt(num / (den > 0 ? den : 1));
    return r == r ? r : INFINITY;
}

/* ‖G·X − B‖_F / (‖G‖_F ‖X‖_F + ‖B‖_F) for n×nrhs X at x + off (ld), B full n×nrhs. */
static double solve_residual(int n, int nrhs, const double *G, const double *x, size_t off, int ld,
                             const double *B)
{
    if (n == 0 || nrhs == 0) return 0;
    double num = 0, nx = 0;
    for (int c = 0; c < nrhs; ++c)
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += G[i + (size_t)k * n] * x[off + (size_t)k + (size_t)c * ld];
            double d = s - B[i + (size_t)c * n];
            num += d * d;
            nx += x[off + (size_t)i + (size_t)c * ld] * x[off + (size_t)i + (size_t)c * ld];
        }
    double r = sqrt(num) / (fro(G, (size_t)n * n) * sqrt(nx) + fro(B, (size_t)n * nrhs));
    return r == r ? r : INFINITY;
}

/* ‖G·Y − I‖_F / (‖G‖_F ‖Y‖_F) with Y symmetric from its lower triangle Lg (sym = 1) or
 * triangular (sym = 0, Y = Lg, or Lgᵀ for up). */
static double inverse_residual(int n, const double *G, const double *Lg, int sym, int up)
{
    if (n == 0) return 0;
    double *Y = malloc(((size_t)n * n + 1) * sizeof *Y), *P = malloc(((size_t)n * n + 1) * sizeof *P);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double lo = i >= j ? Lg[i + (size_t)j * n] : 0, hi = j >= i ? Lg[j + (size_t)i * n] : 0;
            Y[i + (size_t)j * n] = sym ? (i >= j ? lo : hi) : up ? hi : lo;
        }
    mm(n, G, Y, P);
    for (int i = 0; i < n; ++i) P[i + (size_t)i * n] -= 1;
    double r = fro(P, (size_t)n * n) / (fro(G, (size_t)n * n) * fro(Y, (size_t)n * n));
    free(Y);
    free(P);
    return r == r ? r : INFINITY;
}

static double tol(gala_dtype dt, int n) { return 64.0 * (n + 4) * eps_of(dt); }

/* ------------------------------------------------------------------ core operations */

static gala_status op_buffer_create(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                                    size_t cap)
{
    OP_BEGIN;
    gala_buffer *b = NULL;
    (void)seed;
    WINDOW(gala_buffer_create(ctx, dt, 1000, &b));
    EXPECT(b && gala_buffer_count(b) == 1000 && gala_buffer_dtype(b) == dt &&
               gala_buffer_context(b) == ctx, "buffer description");
out:
    gala_buffer_free(b);
    return st;
}

static gala_status op_buffer_transfer(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                                      size_t cap)
{
    OP_BEGIN;
    enum { N = 300 };
    rng r = rng_of(seed, "transfer");
    double v[N], w[N], z[N];
    float vf[N], wf[N], zf[N];
    for (int i = 0; i < N; ++i) { v[i] = rnorm(&r); vf[i] = (float)v[i]; w[i] = z[i] = NAN; wf[i] = zf[i] = NAN; }
    const int d = dt == GALA_DOUBLE;
    gala_buffer *b = NULL, *c = NULL;
    PREP(gala_buffer_create(ctx, dt, N, &b) == GALA_OK);
    PREP(gala_buffer_create(ctx, dt, N, &c) == GALA_OK);
    /* blocking and asynchronous transfers, a copy, a fill */
    WINDOW(gala_buffer_write(b, 0, N, d ? (void *)v : (void *)vf));
    WINDOW(gala_buffer_read(b, 0, N, d ? (void *)w : (void *)wf));
    WINDOW(gala_buffer_fill(c, 0, N, 0.5));
    WINDOW(gala_buffer_copy(b, 10, c, 100, 50));
    WINDOW(gala_buffer_write_async(b, 200, 20, d ? (void *)(v + 5) : (void *)(vf + 5)));
    WINDOW(gala_buffer_read_async(c, 0, N, d ? (void *)z : (void *)zf));
    WINDOW(gala_finish(ctx));
    for (int i = 0; i < N; ++i) {
        double wi = d ? w[i] : wf[i], zi = d ? z[i] : zf[i], vi = d ? v[i] : vf[i];
        EXPECT(wi == vi, "read back [%d]: %g != %g", i, wi, vi);
        double want = (i >= 100 && i < 150) ? (d ? v[i - 90] : vf[i - 90]) : 0.5;
        EXPECT(zi == want, "copy/fill [%d]: %g != %g", i, zi, want);
    }
    PREP(download(b, 200, w, 20) == GALA_OK);
    for (int i = 0; i < 20; ++i) EXPECT(w[i] == (d ? v[i + 5] : vf[i + 5]), "async write [%d]", i);
out:
    gala_buffer_free(b);
    gala_buffer_free(c);
    return st;
}

static gala_status op_buffer_wrap(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                                  size_t cap)
{
    OP_BEGIN;
    double mem[64];
    float memf[64];
    gala_buffer *b = NULL;
    gala_device_info info;
    (void)seed;
    PREP(gala_context_info(ctx, &info) == GALA_OK);
    if (info.backend != GALA_BACKEND_HOST) return GALA_OK; /* TU_OP_HOST_ONLY */
    WINDOW(gala_buffer_wrap(ctx, dt, 64, dt == GALA_DOUBLE ? (void *)mem : (void *)memf, &b));
    WINDOW(gala_buffer_fill(b, 0, 64, 2.0));
    WINDOW(gala_finish(ctx));
    for (int i = 0; i < 64; ++i) EXPECT((dt == GALA_DOUBLE ? mem[i] : memf[i]) == 2.0, "[%d]", i);
out:
    gala_buffer_free(b);
    return st;
}

static gala_status op_timer(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg, size_t cap)
{
    OP_BEGIN;
    gala_timer *t0 = NULL, *t1 = NULL;
    gala_buffer *b = NULL;
    double ms = -1;
    (void)seed;
    gala_device_info info;
    PREP(gala_context_info(ctx, &info) == GALA_OK);
    if (info.backend == GALA_BACKEND_OPENCL) { /* contexts without profiling: documented */
        tu_fault_begin();
        gala_status s = gala_timer_record(ctx, &t0);
        tu_fault_end();
        EXPECT(s == GALA_ERR_NOT_SUPPORTED && !t0, "timer without profiling gave %d", (int)s);
        goto out;
    }
    PREP(gala_buffer_create(ctx, dt, 100, &b) == GALA_OK);
    WINDOW(gala_timer_record(ctx, &t0));
    WINDOW(gala_buffer_fill(b, 0, 100, 1));
    WINDOW(gala_timer_record(ctx, &t1));
    WINDOW(gala_timer_elapsed_ms(t0, t1, &ms));
    EXPECT(ms >= 0 && ms < 1e5, "elapsed %g ms", ms);
out:
    gala_timer_free(t0);
    gala_timer_free(t1);
    gala_buffer_free(b);
    return st;
}

/* ------------------------------------------------------------------ blas.h */

enum { VN = 37, VS = 41, VB = 3 };

/* x, y, z: three batches of VB items of VN elements at stride VS (gaps NaN). */
static void vec_inputs(rng *r, gala_dtype dt, double *x, double *y, double *z)
{
    for (int i = 0; i < VS * VB; ++i) x[i] = y[i] = z[i] = NAN;
    for (int b = 0; b < VB; ++b)
        for (int i = 0; i < VN; ++i) {
            x[b * VS + i] = rnorm(r);
            y[b * VS + i] = rnorm(r);
            z[b * VS + i] = y[b * VS + i] + fabs(rnorm(r));
        }
    round_to(dt, x, VS * VB);
    round_to(dt, y, VS * VB);
    round_to(dt, z, VS * VB);
}

static int close_to(double got, double want, double t)
{
    return fabs(got - want) <= t * (1 + fabs(want));
}

static gala_status op_vec(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg, size_t cap,
                          int which)
{
    OP_BEGIN;
    rng r = rng_of(seed, "vec");
    double x[VS * VB], y[VS * VB], z[VS * VB], out[VS * VB];
    vec_inputs(&r, dt, x, y, z);
    gala_buffer *bx = upload(ctx, dt, x, VS * VB), *by = upload(ctx, dt, y, VS * VB),
                *bz = upload(ctx, dt, z, VS * VB), *bo = NULL;
    PREP(bx && by && bz);
    const double t = 8 * VN * eps_of(dt);
    switch (which) {
    case 0: /* axpby */
        WINDOW(gala_axpby_batched(ctx, VN, 2.0, bx, 0, VS, -0.5, by, 0, VS, VB));
        PREP(download(by, 0, out, VS * VB) == GALA_OK);
        for (int b = 0; b < VB; ++b)
            for (int i = 0; i < VN; ++i)
                EXPECT(close_to(out[b * VS + i], 2 * x[b * VS + i] - 0.5 * y[b * VS + i], t), "axpby");
        break;
    case 1: /* ew_mul, in place on y */
        WINDOW(gala_ew_mul_batched(ctx, VN, bx, 0, VS, by, 0, VS, by, 0, VS, VB));
        PREP(download(by, 0, out, VS * VB) == GALA_OK);
        for (int b = 0; b < VB; ++b)
            for (int i = 0; i < VN; ++i)
                EXPECT(close_to(out[b * VS + i], x[b * VS + i] * y[b * VS + i], t), "ew_mul");
        break;
    case 2: /* clamp x into [y, z] */
        PREP(gala_buffer_create(ctx, dt, VS * VB, &bo) == GALA_OK);
        WINDOW(gala_clamp_batched(ctx, VN, bx, 0, VS, by, 0, VS, bz, 0, VS, bo, 0, VS, VB));
        PREP(download(bo, 0, out, VS * VB) == GALA_OK);
        for (int b = 0; b < VB; ++b)
            for (int i = 0; i < VN; ++i) {
                int e = b * VS + i;
                EXPECT(out[e] == fmin(fmax(x[e], y[e]), z[e]), "clamp");
            }
        break;
    case 3: /* norm_inf and dot into one result buffer */
        PREP(gala_buffer_create(ctx, dt, 2 * VB, &bo) == GALA_OK);
        WINDOW(gala_norm_inf_batched(ctx, VN, bx, 0, VS, bo, 0, VB));
        WINDOW(gala_dot_batched(ctx, VN, bx, 0, VS, by, 0, VS, bo, VB, VB));
        PREP(download(bo, 0, out, 2 * VB) == GALA_OK);
        for (int b = 0; b < VB; ++b) {
            double nm = 0, dot = 0, sc = 0;
            for (int i = 0; i < VN; ++i) {
                nm = fmax(nm, fabs(x[b * VS + i]));
                dot += x[b * VS + i] * y[b * VS + i];
                sc += fabs(x[b * VS + i] * y[b * VS + i]);
            }
            EXPECT(out[b] == nm, "norm_inf %g != %g", out[b], nm);
            EXPECT(fabs(out[VB + b] - dot) <= t * (1 + sc), "dot %g != %g", out[VB + b], dot);
        }
        break;
    }
out:
    gala_buffer_free(bx);
    gala_buffer_free(by);
    gala_buffer_free(bz);
    gala_buffer_free(bo);
    return st;
}

#define VEC_OP(name, w)                                                                    \
    static gala_status name(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,    \
                            size_t cap)                                                    \
    {                                                                                      \
        return op_vec(ctx, dt, seed, msg, cap, w);                                         \
    }
VEC_OP(op_axpby, 0)
VEC_OP(op_ew_mul, 1)
VEC_OP(op_clamp, 2)
VEC_OP(op_reductions, 3)

static gala_status op_gemv(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg, size_t cap)
{
    OP_BEGIN;
    enum { M = 19, N = 45, LDA = 21, AS = LDA * N + 3, B = 2 };
    rng r = rng_of(seed, "gemv");
    double *A = nans(AS * B), x[64 * B], y[64 * B], out[64 * B];
    for (int b = 0; b < B; ++b)
        for (int j = 0; j < N; ++j)
            for (int i = 0; i < M; ++i) A[b * AS + i + j * LDA] = rnorm(&r);
    for (int i = 0; i < 64 * B; ++i) { x[i] = rnorm(&r); y[i] = rnorm(&r); }
    round_to(dt, A, AS * B);
    round_to(dt, x, 64 * B);
    round_to(dt, y, 64 * B);
    gala_buffer *bA = upload(ctx, dt, A, AS * B), *bx = upload(ctx, dt, x, 64 * B),
                *by = upload(ctx, dt, y, 64 * B), *bz = upload(ctx, dt, y, 64 * B);
    PREP(bA && bx && by && bz);
    WINDOW(gala_gemv_batched(ctx, GALA_NO_TRANS, M, N, 1.5, bA, 0, LDA, AS, bx, 0, 64, 0.5, by, 0,
                             64, B));
    WINDOW(gala_gemv_batched(ctx, GALA_TRANS, M, N, -1.0, bA, 0, LDA, AS, bx, 0, 64, 0.0, bz, 0,
                             64, B));
    for (int tr = 0; tr < 2; ++tr) {
        PREP(download(tr ? bz : by, 0, out, 64 * B) == GALA_OK);
        for (int b = 0; b < B; ++b)
            for (int i = 0; i < (tr ? N : M); ++i) {
                double s = 0, sc = 0;
                for (int k = 0; k < (tr ? M : N); ++k) {
                    double a = tr ? A[b * AS + k + i * LDA] : A[b * AS + i + k * LDA];
                    s += a * x[b * 64 + k];
                    sc += fabs(a * x[b * 64 + k]);
                }
                double want = tr ? -s : 1.5 * s + 0.5 * y[b * 64 + i];
                EXPECT(fabs(out[b * 64 + i] - want) <= 8 * N * eps_of(dt) * (2 * sc + 1),
                       "gemv trans %d item %d row %d: %g != %g", tr, b, i, out[b * 64 + i], want);
            }
    }
out:
    free(A);
    gala_buffer_free(bA);
    gala_buffer_free(bx);
    gala_buffer_free(by);
    gala_buffer_free(bz);
    return st;
}

/* ------------------------------------------------------------------ dense factorizations */

/* A dense batch: `count` matrices of orders n[b], ld[b] = n[b] + 2, at off[b] (gaps NaN). */
typedef struct dbatch {
    int count, n[8], ld[8], nrhs[8], ldb[8];
    size_t off[8], boff[8], len, blen, stride, bstride;
    double *v, *G[8], *Bv, *B[8];
} dbatch;

/* kind 0: SPD, 1: quasi-definite, 2: triangular (up). Uniform batches have equal n and
 * a common stride (stride/bstride set). nrhs > 0 also makes right-hand sides B. */
static void dbatch_make(rng *r, gala_dtype dt, dbatch *D, int count, const int *n, int kind,
                        int up, int nrhs, int uniform)
{
    memset(D, 0, sizeof *D);
    D->count = count;
    size_t pos = 1, bpos = 2;
    int nmax = 0;
    for (int b = 0; b < count; ++b) nmax = n[b] > nmax ? n[b] : nmax;
    for (int b = 0; b < count; ++b) {
        D->n[b] = n[b];
        D->ld[b] = (uniform ? nmax : n[b]) + 2;
        D->off[b] = pos;
        pos += (size_t)D->ld[b] * (size_t)(uniform ? nmax : n[b]) + 3;
        D->nrhs[b] = nrhs;
        D->ldb[b] = (uniform ? nmax : n[b]) + 1;
        D->boff[b] = bpos;
        bpos += (size_t)D->ldb[b] * (size_t)nrhs + 2;
    }
    if (count > 1) {
        D->stride = D->off[1] - D->off[0];
        D->bstride = D->boff[1] - D->boff[0];
    }
    D->len = pos;
    D->blen = bpos;
    D->v = nans(pos);
    D->Bv = nans(bpos);
    for (int b = 0; b < count; ++b) {
        size_t nn = (size_t)n[b] * (size_t)n[b];
        D->G[b] = malloc((nn + 1) * sizeof(double));
        if (kind == 0) gen_spd(r, n[b], dt, D->G[b]);
        else if (kind == 1) gen_qd(r, n[b], dt, D->G[b]);
        else gen_tri(r, n[b], up, dt, D->G[b]);
        put(D->v, D->off[b], D->ld[b], D->G[b], n[b]);
        D->B[b] = malloc(((size_t)n[b] * (size_t)nrhs + 1) * sizeof(double));
        for (int c = 0; c < nrhs; ++c)
            for (int i = 0; i < n[b]; ++i) {
                double v = rnorm(r);
                round_to(dt, &v, 1);
                D->B[b][i + (size_t)c * n[b]] = v;
                D->Bv[D->boff[b] + (size_t)i + (size_t)c * D->ldb[b]] = v;
            }
    }
}

static void dbatch_free(dbatch *D)
{
    free(D->v);
    free(D->Bv);
    for (int b = 0; b < D->count; ++b) {
        free(D->G[b]);
        free(D->B[b]);
    }
    memset(D, 0, sizeof *D);
}

/* Check the factors in out (downloaded A) for every matrix of D. */
static int check_factors(const dbatch *D, const double *out, int up, int ldl, gala_dtype dt,
                         char *msg, size_t cap)
{
    for (int b = 0; b < D->count; ++b) {
        int n = D->n[b];
        double *Lg = malloc(((size_t)n * n + 1) * sizeof *Lg);
        get_tri(out, D->off[b], D->ld[b], up, n, Lg);
        double res = fact_residual(n, Lg, D->G[b], ldl);
        free(Lg);
        if (!(res <= tol(dt, n))) {
            snprintf(msg, cap, "wrong result: matrix %d (n = %d): factor residual %.3g > %.3g", b,
                     n, res, tol(dt, n));
            return 0;
        }
    }
    return 1;
}

static int check_solves(const dbatch *D, const double *x, gala_dtype dt, char *msg, size_t cap)
{
    for (int b = 0; b < D->count; ++b) {
        double res = solve_residual(D->n[b], D->nrhs[b], D->G[b], x, D->boff[b], D->ldb[b], D->B[b]);
        if (!(res <= tol(dt, D->n[b]))) {
            snprintf(msg, cap, "wrong result: system %d (n = %d): residual %.3g", b, D->n[b], res);
            return 0;
        }
    }
    return 1;
}

static int check_inverses(const dbatch *D, const double *out, int up, int sym, gala_dtype dt,
                          char *msg, size_t cap)
{
    for (int b = 0; b < D->count; ++b) {
        int n = D->n[b];
        double *Lg = malloc(((size_t)n * n + 1) * sizeof *Lg);
        get_tri(out, D->off[b], D->ld[b], up, n, Lg);
        double res = inverse_residual(n, D->G[b], Lg, sym, up);
        free(Lg);
        if (!(res <= tol(dt, n))) {
            snprintf(msg, cap, "wrong result: matrix %d (n = %d): inverse residual %.3g", b, n, res);
            return 0;
        }
    }
    return 1;
}

static int all_zero(const int *v, int n)
{
    for (int i = 0; i < n; ++i)
        if (v[i] != 0) return 0;
    return 1;
}

/* form: 0 single, 1 batched, 2 vbatched */
static const int SZ_SINGLE[1] = {70}, SZ_BATCH[3] = {9, 9, 9}, SZ_BATCH_BIG[2] = {67, 67},
                 SZ_VB[4] = {5, 70, 0, 17};

static void sizes_of(int form, int big, const int **n, int *count)
{
    if (form == 0) { *n = SZ_SINGLE; *count = 1; }
    else if (form == 1 || form == 3) { *n = big ? SZ_BATCH_BIG : SZ_BATCH; *count = big ? 2 : 3; }
    else { *n = SZ_VB; *count = 4; }
}

static gala_status op_trtri_form(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                                 size_t cap, int form)
{
    OP_BEGIN;
    rng r = rng_of(seed, "trtri");
    const int up = form == 1, inplace = form != 0;
    const int *n;
    int count, info[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    sizes_of(form, 0, &n, &count);
    dbatch D;
    dbatch_make(&r, dt, &D, count, n, 2, up, 0, form == 1);
    double *out = nans(D.len);
    gala_buffer *bA = upload(ctx, dt, D.v, D.len), *bB = inplace ? bA : upload(ctx, dt, D.v, D.len);
    PREP(bA && bB);
    const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
    if (form == 0)
        WINDOW(gala_trtri(ctx, ul, GALA_NON_UNIT, n[0], bA, D.off[0], D.ld[0], bB, D.off[0],
                          D.ld[0], info));
    else if (form == 1)
        WINDOW(gala_trtri_batched(ctx, ul, GALA_NON_UNIT, n[0], bA, D.off[0], D.ld[0], D.stride,
                                  bB, D.off[0], D.ld[0], D.stride, count, info));
    else
        WINDOW(gala_trtri_vbatched(ctx, ul, GALA_NON_UNIT, n, bA, D.off, D.ld, bB, D.off, D.ld,
                                   count, info));
    EXPECT(all_zero(info, count), "info");
    PREP(download(bB, 0, out, D.len) == GALA_OK);
    if (!check_inverses(&D, out, up, 0, dt, msg, cap)) st = GALA_ERR_INTERNAL;
out:
    free(out);
    if (bB != bA) gala_buffer_free(bB);
    gala_buffer_free(bA);
    dbatch_free(&D);
    return st;
}

static gala_status op_potrf_form(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                                 size_t cap, int form, int big)
{
    OP_BEGIN;
    rng r = rng_of(seed, "potrf");
    const int up = form == 1 && !big;
    const int *n;
    int count, info[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    sizes_of(form, big, &n, &count);
    dbatch D;
    dbatch_make(&r, dt, &D, count, n, 0, up, 0, form == 1 || form == 3);
    double *out = nans(D.len);
    gala_buffer *bA = upload(ctx, dt, D.v, D.len), *bi = NULL;
    PREP(bA);
    const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
    if (form == 0) WINDOW(gala_potrf(ctx, ul, n[0], bA, D.off[0], D.ld[0], info));
    else if (form == 1)
        WINDOW(gala_potrf_batched(ctx, ul, n[0], bA, D.off[0], D.ld[0], D.stride, count, info));
    else if (form == 2) WINDOW(gala_potrf_vbatched(ctx, ul, n, bA, D.off, D.ld, count, info));
    else {
        PREP(gala_buffer_create(ctx, GALA_INT, 8, &bi) == GALA_OK);
        PREP(gala_buffer_fill(bi, 0, 8, 7) == GALA_OK);
        WINDOW(gala_potrf_batched_async(ctx, ul, n[0], bA, D.off[0], D.ld[0], D.stride, count, bi, 1));
        double iv[8];
        PREP(download(bi, 0, iv, 8) == GALA_OK);
        for (int b = 0; b < count; ++b) info[b] = (int)iv[1 + b];
        EXPECT(iv[0] == 7 && iv[1 + count] == 7, "async info written outside its range");
    }
    EXPECT(all_zero(info, count), "info");
    PREP(download(bA, 0, out, D.len) == GALA_OK);
    if (!check_factors(&D, out, up, 0, dt, msg, cap)) st = GALA_ERR_INTERNAL;
out:
    free(out);
    gala_buffer_free(bA);
    gala_buffer_free(bi);
    dbatch_free(&D);
    return st;
}

/* potrs (which = 0) and potri (which = 1): the factor is made outside the window. */
static gala_status op_potrs_potri(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                                  size_t cap, int form, int which)
{
    OP_BEGIN;
    rng r = rng_of(seed, which ? "potri" : "potrs");
    const int up = form == 1;
    const int *n;
    int count, info[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    sizes_of(form, 0, &n, &count);
    dbatch D;
    dbatch_make(&r, dt, &D, count, n, 0, up, which ? 0 : 2, form == 1);
    double *out = nans(D.len > D.blen ? D.len : D.blen);
    gala_buffer *bA = upload(ctx, dt, D.v, D.len), *bB = upload(ctx, dt, D.Bv, D.blen);
    PREP(bA && bB);
    const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
    PREP(gala_potrf_vbatched(ctx, ul, n, bA, D.off, D.ld, count, NULL) == GALA_OK);
    if (which == 0) {
        if (form == 0)
            WINDOW(gala_potrs(ctx, ul, n[0], 2, bA, D.off[0], D.ld[0], bB, D.boff[0], D.ldb[0]));
        else if (form == 1)
            WINDOW(gala_potrs_batched(ctx, ul, n[0], 2, bA, D.off[0], D.ld[0], D.stride, bB,
                                      D.boff[0], D.ldb[0], D.bstride, count));
        else
            WINDOW(gala_potrs_vbatched(ctx, ul, n, D.nrhs, bA, D.off, D.ld, bB, D.boff, D.ldb,
                                       count));
        PREP(download(bB, 0, out, D.blen) == GALA_OK);
        if (!check_solves(&D, out, dt, msg, cap)) st = GALA_ERR_INTERNAL;
    } else {
        if (form == 0) WINDOW(gala_potri(ctx, ul, n[0], bA, D.off[0], D.ld[0], info));
        else if (form == 1)
            WINDOW(gala_potri_batched(ctx, ul, n[0], bA, D.off[0], D.ld[0], D.stride, count, info));
        else WINDOW(gala_potri_vbatched(ctx, ul, n, bA, D.off, D.ld, count, info));
        EXPECT(all_zero(info, count), "info");
        PREP(download(bA, 0, out, D.len) == GALA_OK);
        if (!check_inverses(&D, out, up, 1, dt, msg, cap)) st = GALA_ERR_INTERNAL;
    }
out:
    free(out);
    gala_buffer_free(bA);
    gala_buffer_free(bB);
    dbatch_free(&D);
    return st;
}

/* Dense LDLᵀ (which = 0) and its solves (which = 1). */
static gala_status op_ldlt_form(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                                size_t cap, int form, int which)
{
    OP_BEGIN;
    rng r = rng_of(seed, which ? "ldlt_solve" : "ldlt");
    static const int SZ[3][4] = {{12}, {7, 7, 7}, {5, 12, 0, 9}};
    const int count = form == 0 ? 1 : form == 1 ? 3 : 4, up = form == 1;
    const int *n = SZ[form];
    int info[8] = {9, 9, 9, 9, 9, 9, 9, 9}, inertia[16];
    dbatch D;
    dbatch_make(&r, dt, &D, count, n, 1, up, which ? 2 : 0, form == 1);
    double *out = nans(D.len > D.blen ? D.len : D.blen);
    gala_buffer *bA = upload(ctx, dt, D.v, D.len), *bB = upload(ctx, dt, D.Bv, D.blen);
    PREP(bA && bB);
    const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
    if (which == 0) {
        if (form == 0) WINDOW(gala_ldlt(ctx, ul, n[0], bA, D.off[0], D.ld[0], info, inertia));
        else if (form == 1)
            WINDOW(gala_ldlt_batched(ctx, ul, n[0], bA, D.off[0], D.ld[0], D.stride, count, info,
                                     inertia));
        else WINDOW(gala_ldlt_vbatched(ctx, ul, n, bA, D.off, D.ld, count, info, inertia));
        EXPECT(all_zero(info, count), "info");
        for (int b = 0; b < count; ++b)
            EXPECT(inertia[2 * b] == (n[b] + 1) / 2 && inertia[2 * b + 1] == n[b] / 2,
                   "inertia of %d: %d+ %d-", b, inertia[2 * b], inertia[2 * b + 1]);
        PREP(download(bA, 0, out, D.len) == GALA_OK);
        if (!check_factors(&D, out, up, 1, dt, msg, cap)) st = GALA_ERR_INTERNAL;
    } else {
        PREP(gala_ldlt_vbatched(ctx, ul, n, bA, D.off, D.ld, count, NULL, NULL) == GALA_OK);
        if (form == 0)
            WINDOW(gala_ldlt_solve(ctx, ul, n[0], 2, bA, D.off[0], D.ld[0], bB, D.boff[0], D.ldb[0]));
        else if (form == 1)
            WINDOW(gala_ldlt_solve_batched(ctx, ul, n[0], 2, bA, D.off[0], D.ld[0], D.stride, bB,
                                           D.boff[0], D.ldb[0], D.bstride, count));
        else
            WINDOW(gala_ldlt_solve_vbatched(ctx, ul, n, D.nrhs, bA, D.off, D.ld, bB, D.boff, D.ldb,
                                            count));
        PREP(download(bB, 0, out, D.blen) == GALA_OK);
        if (!check_solves(&D, out, dt, msg, cap)) st = GALA_ERR_INTERNAL;
    }
out:
    free(out);
    gala_buffer_free(bA);
    gala_buffer_free(bB);
    dbatch_free(&D);
    return st;
}

#define FORM_OP(name, fn, ...)                                                             \
    static gala_status name(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,    \
                            size_t cap)                                                    \
    {                                                                                      \
        return fn(ctx, dt, seed, msg, cap, __VA_ARGS__);                                   \
    }
FORM_OP(op_trtri, op_trtri_form, 0)
FORM_OP(op_trtri_batched, op_trtri_form, 1)
FORM_OP(op_trtri_vbatched, op_trtri_form, 2)
FORM_OP(op_potrf, op_potrf_form, 0, 0)
FORM_OP(op_potrf_batched, op_potrf_form, 1, 0)
FORM_OP(op_potrf_batched_blocked, op_potrf_form, 1, 1)
FORM_OP(op_potrf_vbatched, op_potrf_form, 2, 0)
FORM_OP(op_potrf_batched_async, op_potrf_form, 3, 0)
FORM_OP(op_potrs, op_potrs_potri, 0, 0)
FORM_OP(op_potrs_batched, op_potrs_potri, 1, 0)
FORM_OP(op_potrs_vbatched, op_potrs_potri, 2, 0)
FORM_OP(op_potri, op_potrs_potri, 0, 1)
FORM_OP(op_potri_batched, op_potrs_potri, 1, 1)
FORM_OP(op_potri_vbatched, op_potrs_potri, 2, 1)
FORM_OP(op_ldlt, op_ldlt_form, 0, 0)
FORM_OP(op_ldlt_batched, op_ldlt_form, 1, 0)
FORM_OP(op_ldlt_vbatched, op_ldlt_form, 2, 0)
FORM_OP(op_ldlt_solve, op_ldlt_form, 0, 1)
FORM_OP(op_ldlt_solve_batched, op_ldlt_form, 1, 1)
FORM_OP(op_ldlt_solve_vbatched, op_ldlt_form, 2, 1)

/* ------------------------------------------------------------------ sparse LDLᵀ */

/* y = K·x for K symmetric given by its upper triangle. */
static void csc_symv(const gala_csc *K, const double *vals, const double *x, double *y)
{
    for (int i = 0; i < K->n; ++i) y[i] = 0;
    for (int j = 0; j < K->n; ++j)
        for (int p = K->p[j]; p < K->p[j + 1]; ++p) {
            int i = K->i[p];
            y[i] += vals[p] * x[j];
            if (i != j) y[j] += vals[p] * x[i];
        }
}

/* Sparse ops: 0 factor, 1 factor_groups, 2 refactor, 3 solve (in place). */
static gala_status op_sparse(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg,
                             size_t cap, int which)
{
    OP_BEGIN;
    rng r = rng_of(seed, "sparse");
    kkt_rng g = {rnorm, runif, &r};
    enum { Q = 3 };
    gala_csc K[2];
    memset(K, 0, sizeof K);
    gala_sparse_ldlt_symbolic *S[2] = {NULL, NULL};
    gala_sparse_ldlt *F = NULL;
    gala_buffer *bx = NULL, *bb = NULL, *bX = NULL;
    double *vals = NULL, *rhs = NULL, *sol = NULL;
    const int groups = which == 1 ? 2 : 1;
    kkt_random(&g, 8, 6, 2, 3, &K[0]);
    kkt_random(&g, 5, 9, 2, 2, &K[1]);
    int N = 0, nnz = 0;
    for (int k = 0; k < groups; ++k) {
        N = K[k].n > N ? K[k].n : N;
        nnz = K[k].p[K[k].n] > nnz ? K[k].p[K[k].n] : nnz;
    }
    /* matrix q uses pattern pat(q): group 0 has Q matrices, group 1 (if any) Q */
    const int total = Q * groups;
    vals = nans((size_t)total * nnz);
    rhs = nans((size_t)total * 2 * N);
    sol = nans((size_t)total * 2 * N);
    for (int q = 0; q < total; ++q) {
        gala_csc *Kq = &K[q / Q];
        kkt_values(Kq, q / Q ? 5 : 8, &g);
        memcpy(vals + (size_t)q * nnz, Kq->x, (size_t)Kq->p[Kq->n] * sizeof(double));
        for (int i = 0; i < 2 * N; ++i) rhs[(size_t)q * 2 * N + i] = i % N < Kq->n ? rnorm(&r) : 0;
    }
    round_to(dt, vals, (size_t)total * nnz);
    round_to(dt, rhs, (size_t)total * 2 * N);
    for (int k = 0; k < groups; ++k)
        PREP(gala_sparse_ldlt_analyze(ctx, &K[k], NULL, &S[k]) == GALA_OK);
    bx = upload(ctx, dt, vals, (size_t)total * nnz);
    bb = upload(ctx, dt, rhs, (size_t)total * 2 * N);
    bX = upload(ctx, dt, sol, (size_t)total * 2 * N);
    PREP(bx && bb && bX);
    int info[8], inertia[16], batch[2] = {Q, Q};
    if (which == 0) WINDOW(gala_sparse_ldlt_factor(ctx, S[0], Q, bx, 0, nnz, 1, &F, info, inertia));
    else if (which == 1)
        WINDOW(gala_sparse_ldlt_factor_groups(ctx, 2, (const gala_sparse_ldlt_symbolic *const *)S,
                                              batch, bx, 0, nnz, 1, &F, info, inertia));
    else PREP(gala_sparse_ldlt_factor(ctx, S[0], Q, bx, 0, nnz, 1, &F, NULL, NULL) == GALA_OK);
    if (which == 2) WINDOW(gala_sparse_ldlt_refactor(F, bx, 0, nnz, 1, info, inertia));
    if (which != 3) EXPECT(all_zero(info, total), "info");
    EXPECT(gala_sparse_ldlt_batch(F) == total, "batch of the factor");
    if (which == 3) WINDOW(gala_sparse_ldlt_solve(F, 2, bb, 0, 2 * N, N, 1, bb, 0, 2 * N, N, 1));
    else PREP(gala_sparse_ldlt_solve(F, 2, bb, 0, 2 * N, N, 1, bX, 0, 2 * N, N, 1) == GALA_OK);
    PREP(download(which == 3 ? bb : bX, 0, sol, (size_t)total * 2 * N) == GALA_OK);
    for (int q = 0; q < total; ++q) {
        gala_csc *Kq = &K[q / Q];
        double y[64];
        for (int c = 0; c < 2; ++c) {
            const double *xq = sol + (size_t)q * 2 * N + (size_t)c * N;
            const double *bq = rhs + (size_t)q * 2 * N + (size_t)c * N;
            csc_symv(Kq, vals + (size_t)q * nnz, xq, y);
            double num = 0, den = 0, nx = 0;
            for (int i = 0; i < Kq->n; ++i) {
                num += (y[i] - bq[i]) * (y[i] - bq[i]);
                den += bq[i] * bq[i];
                nx += xq[i] * xq[i];
            }
            double res = sqrt(num) / (sqrt(den) + sqrt(nx));
            EXPECT(res <= tol(dt, Kq->n) * 10, "sparse system %d rhs %d: residual %.3g", q, c, res);
        }
    }
out:
    gala_sparse_ldlt_destroy(F);
    for (int k = 0; k < 2; ++k) {
        gala_sparse_ldlt_symbolic_destroy(S[k]);
        kkt_free(&K[k]);
    }
    gala_buffer_free(bx);
    gala_buffer_free(bb);
    gala_buffer_free(bX);
    free(vals);
    free(rhs);
    free(sol);
    return st;
}
FORM_OP(op_sparse_factor, op_sparse, 0)
FORM_OP(op_sparse_factor_groups, op_sparse, 1)
FORM_OP(op_sparse_refactor, op_sparse, 2)
FORM_OP(op_sparse_solve, op_sparse, 3)

/* ------------------------------------------------------------------ QP solver */

/* Box QP: min ½ Σ d_i x_i² + q_i x_i + ½ c (x_0 − x_1)² s.t. −1 ≤ x ≤ 1 (rows 0..n−1),
 * and a free row x_0 + x_1 (−∞, ∞). With c = 0 the solution is clamp(−q/d, −1, 1). */
typedef struct qpb {
    gala_qp_problem p;
    int Pp[8], Pi[8], Ap[8], Ai[16];
    double Px[8], Ax[16], q[8], l[8], u[8], want[8];
} qpb;

static void qp_box(rng *r, qpb *b, int shared_pattern_values)
{
    enum { N = 4, M = 5 };
    memset(b, 0, sizeof *b);
    gala_qp_problem *p = &b->p;
    p->n = N;
    p->m = M;
    for (int j = 0; j < N; ++j) {
        b->Pp[j] = j;
        b->Pi[j] = j;
        b->Px[j] = shared_pattern_values ? 1.0 + 0.25 * j : 1 + runif(r);
        b->q[j] = 3 * rnorm(r);
        b->want[j] = fmin(1, fmax(-1, -b->q[j] / b->Px[j]));
    }
    b->Pp[N] = N;
    int e = 0;
    for (int j = 0; j < N; ++j) {
        b->Ap[j] = e;
        b->Ai[e] = j;
        b->Ax[e++] = 1;
        if (j < 2) {
            b->Ai[e] = N;
            b->Ax[e++] = 1;
        }
    }
    b->Ap[N] = e;
    for (int i = 0; i < N; ++i) { b->l[i] = -1; b->u[i] = 1; }
    b->l[N] = -INFINITY;
    b->u[N] = INFINITY;
    p->P = (gala_csc){N, N, b->Pp, b->Pi, b->Px};
    p->A = (gala_csc){M, N, b->Ap, b->Ai, b->Ax};
    p->q = b->q;
    p->l = b->l;
    p->u = b->u;
}

static int qp_check(gala_qp_solver *s, int k, const qpb *b, gala_dtype dt, char *msg, size_t cap)
{
    gala_qp_info info;
    const double *x = NULL, *y = NULL;
    if (gala_qp_get_info(s, k, &info) != GALA_OK || gala_qp_get_solution(s, k, &x, &y, NULL, NULL) != GALA_OK) {
        snprintf(msg, cap, "wrong result: QP %d: no info or solution", k);
        return 0;
    }
    if (info.status != GALA_QP_SOLVED) {
        snprintf(msg, cap, "wrong result: QP %d: status %s", k, gala_qp_status_string(info.status));
        return 0;
    }
    const double t = dt == GALA_FLOAT ? 2e-3 : 1e-5;
    for (int j = 0; j < b->p.n; ++j)
        if (!(fabs(x[j] - b->want[j]) <= t)) {
            snprintf(msg, cap, "wrong result: QP %d: x[%d] = %g, want %g", k, j, x[j], b->want[j]);
            return 0;
        }
    return 1;
}

static void qp_settings(gala_qp_settings *set, gala_dtype dt, int linsys)
{
    gala_qp_settings_default(set);
    set->dtype = dt;
    set->linsys_solver = linsys;
    /* float: 1e-4 (1e-5 left one generated box QP "solved inaccurate" at max_iter in shared
     * mode: GALA_TEST_SEED=69182118889); x is still checked to 2e-3 */
    set->eps_abs = set->eps_rel = dt == GALA_FLOAT ? 1e-4 : 1e-8;
    set->max_iter = 2000;
}

/* which: 0 setup + solve (DENSE), 1 DENSE_SHARED, 2 updates + warm start + solve,
 * 3 cold start + solve, 4 a new ρ and settings + solve, 5 = 2 in chunks (every QP its
 * own: setup, solve, updates, warm start, solve). */
static gala_status op_qp(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg, size_t cap,
                         int which)
{
    OP_BEGIN;
    rng r = rng_of(seed, "qp");
    enum { C = 3 };
    qpb b[C];
    gala_qp_problem pb[C];
    for (int k = 0; k < C; ++k) {
        qp_box(&r, &b[k], which == 1);
        pb[k] = b[k].p;
    }
    gala_qp_settings set;
    qp_settings(&set, dt, which == 1 ? GALA_QP_LINSYS_DENSE_SHARED : GALA_QP_LINSYS_DENSE);
    if (which == 5) set.max_chunk = 1;
    gala_qp_solver *s = NULL;
    if (which <= 1) {
        WINDOW(gala_qp_setup(ctx, pb, C, &set, &s));
        EXPECT(gala_qp_count(s) == C && gala_qp_linsys_used(s) == set.linsys_solver, "solver");
        WINDOW(gala_qp_solve(s));
    } else {
        if (which == 5) {
            WINDOW(gala_qp_setup(ctx, pb, C, &set, &s));
            EXPECT(gala_qp_chunk_count(s) == C, "%d chunks", gala_qp_chunk_count(s));
            WINDOW(gala_qp_solve(s));
        } else {
            PREP(gala_qp_setup(ctx, pb, C, &set, &s) == GALA_OK);
            PREP(gala_qp_solve(s) == GALA_OK);
        }
        if (which == 2 || which == 5) {
            /* new q for QP 1, new P values for QP 2, then a warm start of QP 0 */
            qpb nb;
            qp_box(&r, &nb, 0);
            memcpy(b[1].q, nb.q, sizeof nb.q);
            for (int j = 0; j < 4; ++j) {
                b[1].want[j] = fmin(1, fmax(-1, -b[1].q[j] / b[1].Px[j]));
                b[2].Px[j] = nb.Px[j];
                b[2].want[j] = fmin(1, fmax(-1, -b[2].q[j] / b[2].Px[j]));
            }
            double x0[4] = {0.5, -0.5, 0.25, 0}, y0[5] = {0};
            WINDOW(gala_qp_update_vectors(s, 1, b[1].q, NULL, NULL));
            WINDOW(gala_qp_update_matrices(s, 2, b[2].Px, NULL));
            WINDOW(gala_qp_warm_start(s, 0, x0, y0));
        } else if (which == 3) {
            WINDOW(gala_qp_cold_start(s));
        } else {
            gala_qp_settings ns;
            PREP(gala_qp_get_settings(s, &ns) == GALA_OK);
            ns.max_iter = 3000;
            WINDOW(gala_qp_update_settings(s, &ns));
            WINDOW(gala_qp_update_rho(s, -1, 2.0));
        }
        WINDOW(gala_qp_solve(s));
    }
    for (int k = 0; k < C; ++k)
        if (!qp_check(s, k, &b[k], dt, msg, cap)) {
            st = GALA_ERR_INTERNAL;
            goto out;
        }
out:
    gala_qp_destroy(s);
    return st;
}
FORM_OP(op_qp_solve, op_qp, 0)
FORM_OP(op_qp_shared, op_qp, 1)
FORM_OP(op_qp_update, op_qp, 2)
FORM_OP(op_qp_cold_start, op_qp, 3)
FORM_OP(op_qp_rho, op_qp, 4)
FORM_OP(op_qp_chunked, op_qp, 5)

/* ------------------------------------------------------------------ QPS (host only) */

static gala_status op_qps(gala_context *ctx, gala_dtype dt, uint64_t seed, char *msg, size_t cap)
{
    OP_BEGIN;
    rng r = rng_of(seed, "qps");
    (void)dt;
    qpb b;
    qp_box(&r, &b, 0);
    b.l[b.p.m - 1] = -2; /* a two-sided row, so RANGES are written too */
    b.u[b.p.m - 1] = 3;
    char *text = NULL;
    size_t len = 0;
    gala_qp_problem back;
    memset(&back, 0, sizeof back);
    FILE *f = open_memstream(&text, &len);
    PREP(f != NULL);
    tu_fault_begin();
    st = gala_qp_write_qps_stream(f, &b.p);
    tu_fault_end();
    fclose(f);
    if (st != GALA_OK) {
        snprintf(msg, cap, "gala_qp_write_qps_stream: %s", gala_last_error(NULL));
        goto out;
    }
    tu_fault_begin();
    st = gala_qp_read_qps_mem(text, len, 0, &back, NULL);
    tu_fault_end();
    if (st != GALA_OK) {
        snprintf(msg, cap, "gala_qp_read_qps_mem: %s", gala_last_error(NULL));
        goto out;
    }
    EXPECT(back.n == b.p.n && back.m == b.p.m, "sizes %d×%d", back.m, back.n);
    for (int j = 0; j < b.p.n; ++j) EXPECT(back.q[j] == b.q[j], "q[%d]", j);
    for (int i = 0; i < b.p.m; ++i) EXPECT(back.l[i] == b.l[i] && back.u[i] == b.u[i], "bounds %d", i);
out:
    gala_qp_problem_free(&back);
    free(text);
    (void)ctx;
    return st;
}

/* ------------------------------------------------------------------ the table */

const tu_op tu_ops[] = {
    {"buffer_create", op_buffer_create, 0},
    {"buffer_transfer", op_buffer_transfer, 0},
    {"buffer_wrap", op_buffer_wrap, TU_OP_HOST_ONLY},
    {"timer", op_timer, 0},
    {"axpby", op_axpby, 0},
    {"ew_mul", op_ew_mul, 0},
    {"clamp", op_clamp, 0},
    {"norm_inf+dot", op_reductions, 0},
    {"gemv", op_gemv, 0},
    {"trtri", op_trtri, 0},
    {"trtri_batched", op_trtri_batched, 0},
    {"trtri_vbatched", op_trtri_vbatched, 0},
    {"potrf", op_potrf, 0},
    {"potrf_batched", op_potrf_batched, 0},
    {"potrf_batched(blocked)", op_potrf_batched_blocked, 0},
    {"potrf_vbatched", op_potrf_vbatched, 0},
    {"potrf_batched_async", op_potrf_batched_async, 0},
    {"potrs", op_potrs, 0},
    {"potrs_batched", op_potrs_batched, 0},
    {"potrs_vbatched", op_potrs_vbatched, 0},
    {"potri", op_potri, 0},
    {"potri_batched", op_potri_batched, 0},
    {"potri_vbatched", op_potri_vbatched, 0},
    {"ldlt", op_ldlt, 0},
    {"ldlt_batched", op_ldlt_batched, 0},
    {"ldlt_vbatched", op_ldlt_vbatched, 0},
    {"ldlt_solve", op_ldlt_solve, 0},
    {"ldlt_solve_batched", op_ldlt_solve_batched, 0},
    {"ldlt_solve_vbatched", op_ldlt_solve_vbatched, 0},
    {"sparse_ldlt_factor", op_sparse_factor, 0},
    {"sparse_ldlt_factor_groups", op_sparse_factor_groups, 0},
    {"sparse_ldlt_refactor", op_sparse_refactor, 0},
    {"sparse_ldlt_solve", op_sparse_solve, 0},
    {"qp_setup+solve", op_qp_solve, TU_OP_SLOW},
    {"qp_setup+solve(shared)", op_qp_shared, TU_OP_SLOW},
    {"qp_update+warm_start+solve", op_qp_update, TU_OP_SLOW},
    {"qp_cold_start+solve", op_qp_cold_start, TU_OP_SLOW},
    {"qp_update_rho+settings+solve", op_qp_rho, TU_OP_SLOW},
    {"qp_chunked:setup+solve+update+warm_start+solve", op_qp_chunked, TU_OP_SLOW},
    {"qps_write+read", op_qps, TU_OP_NO_CTX},
};
const int tu_op_count = (int)(sizeof tu_ops / sizeof tu_ops[0]);
