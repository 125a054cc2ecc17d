/*
 * BLAS-3 of the CUDA backend: cuBLAS on the current lane's stream (one handle per lane,
 * each bound to its stream by cublasSetStream and with its own workspace), so calls are
 * ordered with the kernels and copies of that lane. A handle is created at its lane's
 * first call (cublasCreate allocates a workspace and takes noticeable time) and destroyed
 * with the context. lane_reserve limits lane 0's handle to fewer SMs
 * (cublasSetSmCountTarget, when the library has it). Scalars are passed by host reference
 * (cuBLAS's default pointer mode).
 *
 * cuBLAS is opened with dlopen at that first call, not linked: loading libcublas costs
 * about 0.1 s and 200 MB of resident memory in every process, which programs that never
 * use BLAS-3 on CUDA (or CUDA at all) should not pay. The library is looked up by its
 * soname (libcublas.so.<CUDA major>), then at the toolkit's path found by CMake.
 */
#include <cublas_v2.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_backend.h"

#define GALA_CB_STR2(x) #x
#define GALA_CB_STR(x) GALA_CB_STR2(x) /* expands cublas_v2.h's renaming macros first */

#define GALA_CUBLAS_FUNCS(X)                                                               \
    X(cublasCreate)                                                                        \
    X(cublasDestroy)                                                                       \
    X(cublasSetStream)                                                                     \
    X(cublasGetStatusName)                                                                 \
    X(cublasGetStatusString)                                                               \
    X(cublasSgemm)                                                                         \
    X(cublasDgemm)                                                                         \
    X(cublasSsyrk)                                                                         \
    X(cublasDsyrk)                                                                         \
    X(cublasStrsm)                                                                         \
    X(cublasDtrsm)

#define GALA_CB_MEMBER(f) __typeof__(&f) f;
static struct {
    GALA_CUBLAS_FUNCS(GALA_CB_MEMBER)
} cb;
#undef GALA_CB_MEMBER
static int cb_ok;
/* optional (cuBLAS 11.3 on): cublasSetSmCountTarget */
static cublasStatus_t (*cb_sm_target)(cublasHandle_t, int);
static char cb_why[512] = "cuBLAS was not loaded";
static pthread_once_t cb_once = PTHREAD_ONCE_INIT;

#ifndef GALA_CUBLAS_PATH
#define GALA_CUBLAS_PATH ""
#endif

static void cb_load(void)
{
    char soname[64];
    snprintf(soname, sizeof soname, "libcublas.so.%d", CUDA_VERSION / 1000);
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(cb_why, sizeof cb_why, "cuBLAS cannot be loaded (%s)", e ? e : soname);
        if (GALA_CUBLAS_PATH[0]) h = dlopen(GALA_CUBLAS_PATH, RTLD_NOW | RTLD_LOCAL);
        if (!h) return;
    }
    void *sym;
#define GALA_CB_LOAD(f)                                                                    \
    if (!(sym = dlsym(h, GALA_CB_STR(f)))) {                                               \
        snprintf(cb_why, sizeof cb_why, "cuBLAS (%s) lacks %s", soname, GALA_CB_STR(f));     \
        dlclose(h);                                                                        \
        return;                                                                            \
    }                                                                                      \
    memcpy(&cb.f, &sym, sizeof sym);
    GALA_CUBLAS_FUNCS(GALA_CB_LOAD)
#undef GALA_CB_LOAD
    if ((sym = dlsym(h, "cublasSetSmCountTarget"))) memcpy(&cb_sm_target, &sym, sizeof sym);
    cb_ok = 1;
}

static gala_status blas_fail(const gala_context *ctx, cublasStatus_t s, const char *what)
{
    gala_status g;
    switch (s) {
    case CUBLAS_STATUS_ALLOC_FAILED: g = GALA_ERR_DEVICE_MEMORY; break;
    case CUBLAS_STATUS_INVALID_VALUE: g = GALA_ERR_INVALID_ARG; break;
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH: g = GALA_ERR_NOT_SUPPORTED; break;
    default: g = GALA_ERR_DEVICE; break;
    }
    return gala_error(ctx, g, "%s failed: %s (%d): %s", what, cb.cublasGetStatusName(s), (int)s,
                      cb.cublasGetStatusString(s));
}

int gala_cuda_blas_load(const char **why)
{
    pthread_once(&cb_once, cb_load);
    if (!cb_ok && why) *why = cb_why;
    return cb_ok;
}

/* Enter the context and get its handle (created at first use); leave on failure. */
static gala_status enter(gala_context *ctx, cublasHandle_t *h)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    pthread_once(&cb_once, cb_load);
    if (!cb_ok) return gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "%s", cb_why);
    GALA_TRY(gala_cu_enter(ctx));
    void **slot = st->lane ? &st->blas_side : &st->blas;
    if (!*slot) {
        cublasHandle_t nh;
        cublasStatus_t s = cb.cublasCreate(&nh);
        if (s == CUBLAS_STATUS_SUCCESS) {
            s = cb.cublasSetStream(nh, (cudaStream_t)st->stream);
            if (s != CUBLAS_STATUS_SUCCESS) cb.cublasDestroy(nh);
        }
        if (s != CUBLAS_STATUS_SUCCESS) {
            gala_cu_leave(ctx);
            return blas_fail(ctx, s, "cublasCreate");
        }
        *slot = nh;
    }
    *h = (cublasHandle_t)*slot;
    if (!st->lane && st->reserve != st->reserve_set && cb_sm_target) {
        const int n = ctx->info.compute_units;
        cublasStatus_t s = cb_sm_target(*h, st->reserve ? n - st->reserve : 0);
        if (s != CUBLAS_STATUS_SUCCESS) {
            gala_cu_leave(ctx);
            return blas_fail(ctx, s, "cublasSetSmCountTarget");
        }
        st->reserve_set = st->reserve;
    }
    return GALA_OK;
}

void gala_cuda_blas_release(gala_context *ctx)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    if (st->blas) cb.cublasDestroy((cublasHandle_t)st->blas);
    if (st->blas_side) cb.cublasDestroy((cublasHandle_t)st->blas_side);
    st->blas = st->blas_side = NULL;
    st->reserve_set = 0;
}

static void *ptr(const gala_buffer *b, size_t off, gala_dtype dt)
{
    return (char *)(uintptr_t)b->handle + off * gala_dtype_size(dt);
}

static int op(gala_trans t, cublasOperation_t *o)
{
    if (t == GALA_NO_TRANS) *o = CUBLAS_OP_N;
    else if (t == GALA_TRANS) *o = CUBLAS_OP_T;
    else return 0;
    return 1;
}

static int fill(gala_uplo u, cublasFillMode_t *f)
{
    if (u == GALA_UPPER) *f = CUBLAS_FILL_MODE_UPPER;
    else if (u == GALA_LOWER) *f = CUBLAS_FILL_MODE_LOWER;
    else return 0;
    return 1;
}

static gala_status bad(const gala_context *ctx, const char *fn)
{
    return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: bad type or flag", fn);
}

static gala_status cu_gemm(gala_context *ctx, gala_dtype dt, gala_trans ta, gala_trans tb, int m,
                           int n, int k, double alpha, const gala_buffer *A, size_t a_off, int lda,
                           const gala_buffer *B, size_t b_off, int ldb, double beta, gala_buffer *C,
                           size_t c_off, int ldc)
{
    cublasOperation_t oa, ob;
    cublasHandle_t h;
    if (!op(ta, &oa) || !op(tb, &ob) || (dt != GALA_FLOAT && dt != GALA_DOUBLE))
        return bad(ctx, "cuBLAS gemm");
    GALA_TRY(enter(ctx, &h));
    cublasStatus_t s;
    if (dt == GALA_DOUBLE) {
        s = cb.cublasDgemm(h, oa, ob, m, n, k, &alpha, ptr(A, a_off, dt), lda, ptr(B, b_off, dt), ldb,
                        &beta, ptr(C, c_off, dt), ldc);
    } else {
        float fa = (float)alpha, fb = (float)beta;
        s = cb.cublasSgemm(h, oa, ob, m, n, k, &fa, ptr(A, a_off, dt), lda, ptr(B, b_off, dt), ldb,
                        &fb, ptr(C, c_off, dt), ldc);
    }
    gala_cu_leave(ctx);
    return s == CUBLAS_STATUS_SUCCESS ? GALA_OK : blas_fail(ctx, s, "cuBLAS gemm");
}

static gala_status cu_syrk(gala_context *ctx, gala_dtype dt, gala_uplo uplo, gala_trans t, int n,
                           int k, double alpha, const gala_buffer *A, size_t a_off, int lda,
                           double beta, gala_buffer *C, size_t c_off, int ldc)
{
    cublasOperation_t o;
    cublasFillMode_t f;
    cublasHandle_t h;
    if (!op(t, &o) || !fill(uplo, &f) || (dt != GALA_FLOAT && dt != GALA_DOUBLE))
        return bad(ctx, "cuBLAS syrk");
    GALA_TRY(enter(ctx, &h));
    cublasStatus_t s;
    if (dt == GALA_DOUBLE) {
        s = cb.cublasDsyrk(h, f, o, n, k, &alpha, ptr(A, a_off, dt), lda, &beta, ptr(C, c_off, dt), ldc);
    } else {
        float fa = (float)alpha, fb = (float)beta;
        s = cb.cublasSsyrk(h, f, o, n, k, &fa, ptr(A, a_off, dt), lda, &fb, ptr(C, c_off, dt), ldc);
    }
    gala_cu_leave(ctx);
    return s == CUBLAS_STATUS_SUCCESS ? GALA_OK : blas_fail(ctx, s, "cuBLAS syrk");
}

static gala_status cu_trsm(gala_context *ctx, gala_dtype dt, gala_side side, gala_uplo uplo,
                           gala_trans t, gala_diag diag, int m, int n, double alpha,
                           const gala_buffer *A, size_t a_off, int lda, gala_buffer *B,
                           size_t b_off, int ldb)
{
    cublasOperation_t o;
    cublasFillMode_t f;
    cublasHandle_t h;
    cublasSideMode_t sm = side == GALA_LEFT ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    cublasDiagType_t dg = diag == GALA_UNIT ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    if (!op(t, &o) || !fill(uplo, &f) || (side != GALA_LEFT && side != GALA_RIGHT) ||
        (diag != GALA_UNIT && diag != GALA_NON_UNIT) || (dt != GALA_FLOAT && dt != GALA_DOUBLE))
        return bad(ctx, "cuBLAS trsm");
    GALA_TRY(enter(ctx, &h));
    cublasStatus_t s;
    if (dt == GALA_DOUBLE) {
        s = cb.cublasDtrsm(h, sm, f, o, dg, m, n, &alpha, ptr(A, a_off, dt), lda, ptr(B, b_off, dt), ldb);
    } else {
        float fa = (float)alpha;
        s = cb.cublasStrsm(h, sm, f, o, dg, m, n, &fa, ptr(A, a_off, dt), lda, ptr(B, b_off, dt), ldb);
    }
    gala_cu_leave(ctx);
    return s == CUBLAS_STATUS_SUCCESS ? GALA_OK : blas_fail(ctx, s, "cuBLAS trsm");
}

const gala_blas3_ops gala_cuda_blas3_ops = {
    .gemm = cu_gemm,
    .syrk = cu_syrk,
    .trsm = cu_trsm,
};
