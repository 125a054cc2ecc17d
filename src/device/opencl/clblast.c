/*
 * BLAS-3 of the OpenCL backend through CLBlast's C API (gala_blas3_ops). Built when CMake
 * finds CLBlast (GALA_HAVE_CLBLAST); otherwise the OpenCL backend has no BLAS-3 and the
 * algorithms use gala's own kernels.
 *
 * CLBlast runs on the context's in-order queue (no events are needed for ordering). It
 * allocates temporary buffers inside its calls and compiles its kernels at first use per
 * process (kept in its own in-memory cache). Its status codes are mapped to gala's; CLBlast
 * itself may print a line to stderr for internal errors (not for argument errors), which
 * gala cannot prevent. k = 0 with beta != 1 (a pure scaling of C) is not supported here.
 */
#ifdef GALA_HAVE_CLBLAST
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <clblast_c.h>
#include <string.h>

#include "opencl.h"

static gala_status clblast_status(gala_context *ctx, CLBlastStatusCode e, const char *what)
{
    if (e == CLBlastSuccess) return GALA_OK;
    gala_status s = GALA_ERR_DEVICE;
    const char *why = "failed";
    switch (e) {
    case CLBlastNoDoublePrecision: s = GALA_ERR_NOT_SUPPORTED; why = "no double precision"; break;
    case CLBlastNotImplemented: s = GALA_ERR_NOT_SUPPORTED; why = "not implemented"; break;
    case CLBlastTempBufferAllocFailure:
    case CLBlastOpenCLOutOfResources:
    case CLBlastInsufficientMemoryTemp: s = GALA_ERR_DEVICE_MEMORY; why = "out of device memory"; break;
    case CLBlastOpenCLOutOfHostMemory: s = GALA_ERR_OUT_OF_MEMORY; why = "out of host memory"; break;
    case CLBlastOpenCLBuildProgramFailure: s = GALA_ERR_KERNEL_BUILD; why = "kernel build failed"; break;
    case CLBlastInvalidDimension:
    case CLBlastInvalidLeadDimA:
    case CLBlastInvalidLeadDimB:
    case CLBlastInvalidLeadDimC:
    case CLBlastInsufficientMemoryA:
    case CLBlastInsufficientMemoryB:
    case CLBlastInsufficientMemoryC: s = GALA_ERR_INTERNAL; why = "rejected its arguments"; break;
    default: break;
    }
    return gala_error(ctx, s, "CLBlast %s %s (status %d)", what, why, (int)e);
}

/*
 * CLBlast's Xgemm kernel parameters as gala tuning data. CLBlast picks them from its own
 * database by device; a device it does not know (CLBlast 1.5 has no SM 9.0 entry: an H100 or
 * H200 gets its generic NVIDIA row, 64×32 tiles of 2×4 values per work-item) runs the GEMM
 * behind SYRK, TRSM and GEMM far below what it can. Where tuning_table.h has a row for
 * clblast.xgemm.mwg on this device and dtype, the sixteen keys below (the names of CLBlast's
 * database, lower case) are handed to CLBlastOverrideParameters before the first BLAS-3 call
 * and again whenever they change (GALA_TUNE sweeps, bench/bench_gemm_sweep.c). A key without a
 * row takes its default (src/core/tuning_keys.h: CLBlast 1.5's row for NVIDIA devices it does
 * not know). Values that break the kernel's constraints (below) or
 * that CLBlast rejects are not applied: CLBlast's own choice stays. The override is CLBlast's
 * and so belongs to the process and the device: other CLBlast callers in the same process
 * get it too.
 */
static const char *const xgemm_param[GALA_XGEMM_PARAMS] = {
    "GEMMK", "KREG", "KWG", "KWI", "MDIMA", "MDIMC", "MWG", "NDIMB",
    "NDIMC", "NWG", "SA", "SB", "STRM", "STRN", "VWM", "VWN"};
enum { X_GEMMK, X_KREG, X_KWG, X_KWI, X_MDIMA, X_MDIMC, X_MWG, X_NDIMB,
       X_NDIMC, X_NWG, X_SA, X_SB, X_STRM, X_STRN, X_VWM, X_VWN };

static int multiple(long a, long b) { return b > 0 && a > 0 && a % b == 0; }

/* The constraints of CLBlast's tuner for kernel 0 (GEMMK = 0), and the device's limits. */
static int xgemm_valid(const gala_context *ctx, gala_dtype dt, const long *v)
{
    for (int i = 0; i < GALA_XGEMM_PARAMS; ++i)
        if (v[i] < 0 || v[i] > 1024) return 0;
    if (v[X_GEMMK] != 0 || v[X_KREG] != 1) return 0;
    const long wi = v[X_MDIMC] * v[X_NDIMC];
    if (!multiple(v[X_KWG], v[X_KWI]) || !multiple(v[X_MWG], v[X_MDIMC] * v[X_VWM]) ||
        !multiple(v[X_NWG], v[X_NDIMC] * v[X_VWN]) ||
        !multiple(v[X_MWG], v[X_MDIMA] * v[X_VWM]) ||
        !multiple(v[X_NWG], v[X_NDIMB] * v[X_VWN]) || !multiple(wi, v[X_MDIMA]) ||
        !multiple(wi, v[X_NDIMB]) || !multiple(v[X_KWG], wi / v[X_MDIMA]) ||
        !multiple(v[X_KWG], wi / v[X_NDIMB]))
        return 0;
    if (v[X_VWM] > 8 || v[X_VWN] > 8 || (size_t)wi > ctx->info.max_work_group_size) return 0;
    const size_t tiles = (size_t)(v[X_SA] * v[X_MWG] + v[X_SB] * v[X_NWG]) * (size_t)v[X_KWG];
    return tiles * gala_dtype_size(dt) <= ctx->info.local_mem_bytes;
}

static void xgemm_tune(gala_context *ctx, gala_dtype dt)
{
    long *set = gala_opencl_xgemm_set(ctx, dt, 0), *tried = gala_opencl_xgemm_set(ctx, dt, 1);
    const gala_tune_clblast_xgemm *t = &gala_tuned(ctx, dt)->clblast_xgemm;
    if (t->mwg <= 0) return; /* CLBlast's own database */
    /* in the order of xgemm_param */
    long v[GALA_XGEMM_PARAMS] = {t->gemmk, t->kreg, t->kwg,  t->kwi, t->mdima, t->mdimc,
                                 t->mwg,   t->ndimb, t->ndimc, t->nwg, t->sa,    t->sb,
                                 t->strm,  t->strn, t->vwm,  t->vwn};
    /* in force already, or refused last time (offered again only once the values change) */
    if (memcmp(v, set, sizeof v) == 0 || memcmp(v, tried, sizeof v) == 0) return;
    memcpy(tried, v, sizeof v);
    if (!xgemm_valid(ctx, dt, v)) return;
    size_t val[GALA_XGEMM_PARAMS];
    for (int i = 0; i < GALA_XGEMM_PARAMS; ++i) val[i] = (size_t)v[i];
    const char *names[GALA_XGEMM_PARAMS];
    memcpy(names, xgemm_param, sizeof names);
    if (CLBlastOverrideParameters((cl_device_id)gala_opencl_device(ctx), "Xgemm",
                                  dt == GALA_DOUBLE ? CLBlastPrecisionDouble
                                                    : CLBlastPrecisionSingle,
                                  GALA_XGEMM_PARAMS, names, val) == CLBlastSuccess)
        memcpy(set, v, sizeof v);
}

/* CLBlast takes a pointer to a queue handle (it does not keep it) */
#define QUEUE cl_command_queue q = (cl_command_queue)gala_opencl_queue(ctx)

#define MEM(b) ((cl_mem)(b)->handle)

static gala_status cb_gemm(gala_context *ctx, gala_dtype dt, gala_trans ta, gala_trans tb, int m,
                           int n, int k, double alpha, const gala_buffer *A, size_t a_off, int lda,
                           const gala_buffer *B, size_t b_off, int ldb, double beta,
                           gala_buffer *C, size_t c_off, int ldc)
{
    if (k == 0)
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "CLBlast GEMM with k = 0 and beta != 1");
    xgemm_tune(ctx, dt);
    QUEUE;
    CLBlastStatusCode e;
    if (dt == GALA_DOUBLE)
        e = CLBlastDgemm(CLBlastLayoutColMajor, (CLBlastTranspose)ta, (CLBlastTranspose)tb,
                         (size_t)m, (size_t)n, (size_t)k, alpha, MEM(A), a_off, (size_t)lda,
                         MEM(B), b_off, (size_t)ldb, beta, MEM(C), c_off, (size_t)ldc,
                         &q, NULL);
    else
        e = CLBlastSgemm(CLBlastLayoutColMajor, (CLBlastTranspose)ta, (CLBlastTranspose)tb,
                         (size_t)m, (size_t)n, (size_t)k, (float)alpha, MEM(A), a_off, (size_t)lda,
                         MEM(B), b_off, (size_t)ldb, (float)beta, MEM(C), c_off, (size_t)ldc,
                         &q, NULL);
    return clblast_status(ctx, e, "GEMM");
}

static gala_status cb_syrk(gala_context *ctx, gala_dtype dt, gala_uplo uplo, gala_trans t, int n,
                           int k, double alpha, const gala_buffer *A, size_t a_off, int lda,
                           double beta, gala_buffer *C, size_t c_off, int ldc)
{
    if (k == 0)
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "CLBlast SYRK with k = 0 and beta != 1");
    xgemm_tune(ctx, dt);
    QUEUE;
    CLBlastStatusCode e;
    if (dt == GALA_DOUBLE)
        e = CLBlastDsyrk(CLBlastLayoutColMajor, (CLBlastTriangle)uplo, (CLBlastTranspose)t,
                         (size_t)n, (size_t)k, alpha, MEM(A), a_off, (size_t)lda, beta, MEM(C),
                         c_off, (size_t)ldc, &q, NULL);
    else
        e = CLBlastSsyrk(CLBlastLayoutColMajor, (CLBlastTriangle)uplo, (CLBlastTranspose)t,
                         (size_t)n, (size_t)k, (float)alpha, MEM(A), a_off, (size_t)lda,
                         (float)beta, MEM(C), c_off, (size_t)ldc, &q, NULL);
    return clblast_status(ctx, e, "SYRK");
}

/*
 * TRSM on a private copy of B. CLBlast's Xtrsm (1.5) snapshots B's buffer from element 0 to
 * B's last element into a temporary at its start and copies that whole range back at its
 * end, so every element before B's end gets its value from the moment the call began. In
 * one queue nothing changes meanwhile; but work on another lane (potrf's lookahead: the
 * trailing SYRK on lane 0 while lane 1 solves the upper factor's block row, whose range
 * spans the trailing columns) was undone at random. B's m×n block therefore goes to a
 * buffer of its own (leading dimension m, by clEnqueueCopyBufferRect), is solved there and
 * copied back: only B is ever written, and CLBlast's copies shrink from the whole prefix of
 * the matrix to B itself.
 */
static gala_status cb_trsm(gala_context *ctx, gala_dtype dt, gala_side side, gala_uplo uplo,
                           gala_trans t, gala_diag diag, int m, int n, double alpha,
                           const gala_buffer *A, size_t a_off, int lda, gala_buffer *B,
                           size_t b_off, int ldb)
{
    xgemm_tune(ctx, dt);
    QUEUE;
    const size_t es = gala_dtype_size(dt);
    cl_context cx;
    cl_int ce = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cx, &cx, NULL);
    cl_mem X = NULL;
    if (ce == CL_SUCCESS)
        X = clCreateBuffer(cx, CL_MEM_READ_WRITE, (size_t)m * (size_t)n * es, NULL, &ce);
    if (ce != CL_SUCCESS)
        return gala_error(ctx, ce == CL_MEM_OBJECT_ALLOCATION_FAILURE || ce == CL_OUT_OF_RESOURCES
                                   ? GALA_ERR_DEVICE_MEMORY : GALA_ERR_DEVICE,
                          "TRSM: no device memory for a copy of B (%d×%d; OpenCL error %d)", m, n,
                          (int)ce);
    /* B's block: origin (row, column) of b_off in its buffer; X packed, origin 0 */
    const size_t bo[3] = {(b_off % (size_t)ldb) * es, b_off / (size_t)ldb, 0};
    const size_t xo[3] = {0, 0, 0}, reg[3] = {(size_t)m * es, (size_t)n, 1};
    ce = clEnqueueCopyBufferRect(q, MEM(B), X, bo, xo, reg, (size_t)ldb * es, 0, (size_t)m * es,
                                 0, 0, NULL, NULL);
    CLBlastStatusCode e = CLBlastSuccess;
    if (ce == CL_SUCCESS && dt == GALA_DOUBLE)
        e = CLBlastDtrsm(CLBlastLayoutColMajor, (CLBlastSide)side, (CLBlastTriangle)uplo,
                         (CLBlastTranspose)t, (CLBlastDiagonal)diag, (size_t)m, (size_t)n, alpha,
                         MEM(A), a_off, (size_t)lda, X, 0, (size_t)m, &q, NULL);
    else if (ce == CL_SUCCESS)
        e = CLBlastStrsm(CLBlastLayoutColMajor, (CLBlastSide)side, (CLBlastTriangle)uplo,
                         (CLBlastTranspose)t, (CLBlastDiagonal)diag, (size_t)m, (size_t)n,
                         (float)alpha, MEM(A), a_off, (size_t)lda, X, 0, (size_t)m, &q, NULL);
    if (ce == CL_SUCCESS && e == CLBlastSuccess)
        ce = clEnqueueCopyBufferRect(q, X, MEM(B), xo, bo, reg, (size_t)m * es, 0,
                                     (size_t)ldb * es, 0, 0, NULL, NULL);
    clReleaseMemObject(X); /* freed once the queued copies are done */
    if (ce != CL_SUCCESS)
        return gala_error(ctx, GALA_ERR_DEVICE, "TRSM: clEnqueueCopyBufferRect of B failed "
                          "(OpenCL error %d)", (int)ce);
    return clblast_status(ctx, e, "TRSM");
}

/* gala's enums carry the CBLAS values, which are CLBlast's too */
_Static_assert((int)GALA_TRANS == (int)CLBlastTransposeYes, "transpose values");
_Static_assert((int)GALA_LOWER == (int)CLBlastTriangleLower, "triangle values");
_Static_assert((int)GALA_UNIT == (int)CLBlastDiagonalUnit, "diagonal values");
_Static_assert((int)GALA_RIGHT == (int)CLBlastSideRight, "side values");

static int cb_kernel_params(gala_context *ctx, gala_dtype dt, long *out, int cap)
{
    const long *set = gala_opencl_xgemm_set(ctx, dt, 0);
    if (set[X_MWG] <= 0) return 0;
    const int n = cap < GALA_XGEMM_PARAMS ? cap : GALA_XGEMM_PARAMS;
    memcpy(out, set, (size_t)n * sizeof *out);
    return n;
}

const gala_blas3_ops gala_clblast_blas3 = {cb_gemm, cb_syrk, cb_trsm, cb_kernel_params};

#else
/* Keep the translation unit non-empty (ISO C). */
typedef int gala_clblast_absent;
#endif
