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

static gala_status cb_trsm(gala_context *ctx, gala_dtype dt, gala_side side, gala_uplo uplo,
                           gala_trans t, gala_diag diag, int m, int n, double alpha,
                           const gala_buffer *A, size_t a_off, int lda, gala_buffer *B,
                           size_t b_off, int ldb)
{
    QUEUE;
    CLBlastStatusCode e;
    if (dt == GALA_DOUBLE)
        e = CLBlastDtrsm(CLBlastLayoutColMajor, (CLBlastSide)side, (CLBlastTriangle)uplo,
                         (CLBlastTranspose)t, (CLBlastDiagonal)diag, (size_t)m, (size_t)n, alpha,
                         MEM(A), a_off, (size_t)lda, MEM(B), b_off, (size_t)ldb, &q,
                         NULL);
    else
        e = CLBlastStrsm(CLBlastLayoutColMajor, (CLBlastSide)side, (CLBlastTriangle)uplo,
                         (CLBlastTranspose)t, (CLBlastDiagonal)diag, (size_t)m, (size_t)n,
                         (float)alpha, MEM(A), a_off, (size_t)lda, MEM(B), b_off, (size_t)ldb,
                         &q, NULL);
    return clblast_status(ctx, e, "TRSM");
}

/* gala's enums carry the CBLAS values, which are CLBlast's too */
_Static_assert((int)GALA_TRANS == (int)CLBlastTransposeYes, "transpose values");
_Static_assert((int)GALA_LOWER == (int)CLBlastTriangleLower, "triangle values");
_Static_assert((int)GALA_UNIT == (int)CLBlastDiagonalUnit, "diagonal values");
_Static_assert((int)GALA_RIGHT == (int)CLBlastSideRight, "side values");

const gala_blas3_ops gala_clblast_blas3 = {cb_gemm, cb_syrk, cb_trsm};

#else
/* Keep the translation unit non-empty (ISO C). */
typedef int gala_clblast_absent;
#endif
