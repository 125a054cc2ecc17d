/* Internal BLAS-3: argument checks and dispatch to the backend (see blas3.h). */
#include "blas3.h"

int gala_blas3_available(const gala_context *ctx)
{
    return ctx && ctx->ops && ctx->ops->blas3 != NULL;
}

int gala_blas3_kernel_params(gala_context *ctx, gala_dtype dt, long *out, int cap)
{
    if (!gala_blas3_available(ctx) || !ctx->ops->blas3->kernel_params || !out || cap <= 0)
        return 0;
    return ctx->ops->blas3->kernel_params(ctx, dt, out, cap);
}

/* A rows×cols sub-matrix of a buffer, for range and overlap checks. */
typedef struct mview {
    const char *name;
    const gala_buffer *buf;
    size_t off;
    int rows, cols, ld;
} mview;

static gala_status check_view(gala_context *ctx, const char *fn, const mview *v, gala_dtype dt)
{
    if (v->ld < (v->rows > 1 ? v->rows : 1))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: leading dimension of %s is %d, less "
                          "than max(1, %d)", fn, v->name, v->ld, v->rows);
    int ovf = 0;
    size_t ext = gala_mat_extent((size_t)v->rows, (size_t)v->cols, (size_t)v->ld, &ovf);
    if (ovf) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the size of %s overflows", fn, v->name);
    return gala_check_buf(ctx, fn, v->name, v->buf, dt, v->off, ext);
}

/* Whether two views share an element. With one buffer and one leading dimension ld the
 * elements are o + i + j·ld (i < rows <= ld): views a and b meet iff some column shift
 * t = ja − jb in (−cols_b, cols_a) has t·ld in (δ − rows_a, δ + rows_b), δ = o_b − o_a.
 * At most two multiples of ld fit in that interval, so this is exact and cheap. Different
 * leading dimensions fall back to comparing element ranges. */
static int views_overlap(const mview *a, const mview *b)
{
    if (a->buf != b->buf || a->rows == 0 || a->cols == 0 || b->rows == 0 || b->cols == 0) return 0;
    if (a->ld == b->ld) {
        const long long ld = a->ld, ra = a->rows, rb = b->rows, ca = a->cols, cb = b->cols;
        const long long delta = (long long)b->off - (long long)a->off, hi = delta + rb - 1;
        long long t = hi >= 0 ? hi / ld : -((-hi + ld - 1) / ld); /* floor(hi / ld) */
        for (int q = 0; q < 3; ++q, --t) {
            const long long v = t * ld;
            if (v <= delta - ra) break;
            if (t > -cb && t < ca) return 1;
        }
        return 0;
    }
    int ovf = 0;
    size_t ea = gala_mat_extent((size_t)a->rows, (size_t)a->cols, (size_t)a->ld, &ovf);
    size_t eb = gala_mat_extent((size_t)b->rows, (size_t)b->cols, (size_t)b->ld, &ovf);
    return gala_ranges_overlap(a->buf, a->off, ea, b->buf, b->off, eb);
}

static gala_status common(gala_context *ctx, const char *fn, const mview *in, int nin,
                          const mview *out, gala_dtype *dt)
{
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (!out->buf) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: buffer %s is NULL", fn, out->name);
    *dt = out->buf->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, *dt));
    GALA_TRY(check_view(ctx, fn, out, *dt));
    gala_buffer_touch(out->buf);
    for (int i = 0; i < nin; ++i) {
        GALA_TRY(check_view(ctx, fn, &in[i], *dt));
        if (views_overlap(&in[i], out))
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: output %s overlaps input %s", fn,
                              out->name, in[i].name);
    }
    if (!gala_blas3_available(ctx))
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "%s: the %s backend has no BLAS-3 in this "
                          "build", fn, ctx->ops->name);
    return GALA_OK;
}

static int bad_trans(gala_trans t) { return t != GALA_NO_TRANS && t != GALA_TRANS; }

/* Strides of op(M)(r, c) for M with leading dimension ld: (1, ld), or (ld, 1) transposed. */
static void op_strides(gala_trans t, int ld, size_t *sr, size_t *sc)
{
    *sr = t == GALA_NO_TRANS ? 1 : (size_t)ld;
    *sc = t == GALA_NO_TRANS ? (size_t)ld : 1;
}

gala_status gala_gemm(gala_context *ctx, gala_trans ta, gala_trans tb, int m, int n, int k,
                      double alpha, const gala_buffer *A, size_t a_off, int lda,
                      const gala_buffer *B, size_t b_off, int ldb, double beta, gala_buffer *C,
                      size_t c_off, int ldc)
{
    static const char fn[] = "gala_gemm";
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (bad_trans(ta) || bad_trans(tb))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: bad transpose flag", fn);
    if (m < 0 || n < 0 || k < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: negative size (m %d, n %d, k %d)", fn,
                          m, n, k);
    mview in[2] = {{"A", A, a_off, ta == GALA_NO_TRANS ? m : k, ta == GALA_NO_TRANS ? k : m, lda},
                   {"B", B, b_off, tb == GALA_NO_TRANS ? k : n, tb == GALA_NO_TRANS ? n : k, ldb}};
    mview out = {"C", C, c_off, m, n, ldc};
    gala_dtype dt;
    GALA_TRY(common(ctx, fn, in, 2, &out, &dt));
    if (m == 0 || n == 0 || ((k == 0 || alpha == 0) && beta == 1)) return GALA_OK;
    gala_tc_tiles tiles;
    const int tc = gala_tc_mode(ctx, "blas3", dt, m, n, &tiles);
    if (tc) {
        /* X(i, p) = op(A)(i, p), Y(j, p) = op(B)(p, j) */
        size_t xi, xp, yp, yj;
        op_strides(ta, lda, &xi, &xp);
        op_strides(tb, ldb, &yp, &yj);
        const gala_tc_call c = {1, m, n, k, GEMM_TC_ALL, alpha, beta, {A, a_off, xi, xp, 0},
                                {B, b_off, yj, yp, 0}, {C, c_off, 1, (size_t)ldc, 0}, NULL, 0, 0};
        return gala_tc_run(ctx, dt, tc, &tiles, &c);
    }
    if (ctx->dry) return GALA_OK;
    return ctx->ops->blas3->gemm(ctx, dt, ta, tb, m, n, k, alpha, A, a_off, lda, B, b_off, ldb,
                                 beta, C, c_off, ldc);
}

gala_status gala_syrk(gala_context *ctx, gala_uplo uplo, gala_trans t, int n, int k, double alpha,
                      const gala_buffer *A, size_t a_off, int lda, double beta, gala_buffer *C,
                      size_t c_off, int ldc)
{
    static const char fn[] = "gala_syrk";
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (uplo != GALA_LOWER && uplo != GALA_UPPER)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: bad uplo", fn);
    if (bad_trans(t)) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: bad transpose flag", fn);
    if (n < 0 || k < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: negative size (n %d, k %d)", fn, n, k);
    mview in = {"A", A, a_off, t == GALA_NO_TRANS ? n : k, t == GALA_NO_TRANS ? k : n, lda};
    mview out = {"C", C, c_off, n, n, ldc};
    gala_dtype dt;
    GALA_TRY(common(ctx, fn, &in, 1, &out, &dt));
    if (n == 0 || ((k == 0 || alpha == 0) && beta == 1)) return GALA_OK;
    gala_tc_tiles tiles;
    const int tc = gala_tc_mode(ctx, "blas3", dt, n, n, &tiles);
    if (tc) {
        size_t si, sp;
        op_strides(t, lda, &si, &sp);
        const gala_tc_call c = {1, n, n, k,
                                uplo == GALA_LOWER ? GEMM_TC_LOWER : GEMM_TC_UPPER, alpha, beta,
                                {A, a_off, si, sp, 0}, {A, a_off, si, sp, 0},
                                {C, c_off, 1, (size_t)ldc, 0}, NULL, 0, 0};
        return gala_tc_run(ctx, dt, tc, &tiles, &c);
    }
    if (ctx->dry) return GALA_OK;
    return ctx->ops->blas3->syrk(ctx, dt, uplo, t, n, k, alpha, A, a_off, lda, beta, C, c_off, ldc);
}

gala_status gala_trsm(gala_context *ctx, gala_side side, gala_uplo uplo, gala_trans t,
                      gala_diag diag, int m, int n, double alpha, const gala_buffer *A,
                      size_t a_off, int lda, gala_buffer *B, size_t b_off, int ldb)
{
    static const char fn[] = "gala_trsm";
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (side != GALA_LEFT && side != GALA_RIGHT)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: bad side", fn);
    if (uplo != GALA_LOWER && uplo != GALA_UPPER)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: bad uplo", fn);
    if (bad_trans(t)) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: bad transpose flag", fn);
    if (diag != GALA_UNIT && diag != GALA_NON_UNIT)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: bad diag", fn);
    if (m < 0 || n < 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: negative size (m %d, n %d)", fn, m, n);
    int ka = side == GALA_LEFT ? m : n;
    mview in = {"A", A, a_off, ka, ka, lda};
    mview out = {"B", B, b_off, m, n, ldb};
    gala_dtype dt;
    GALA_TRY(common(ctx, fn, &in, 1, &out, &dt));
    if (m == 0 || n == 0) return GALA_OK;
    if (ctx->dry) return GALA_OK;
    return ctx->ops->blas3->trsm(ctx, dt, side, uplo, t, diag, m, n, alpha, A, a_off, lda, B,
                                 b_off, ldb);
}
