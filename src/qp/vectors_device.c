/* Vectors in the caller's device memory (qp.h: gala_qp_update_vectors_device,
 * gala_qp_get_solution_device, gala_qp_warm_start_device; docs/qp.md, "Vectors in device
 * memory"). The caller's buffers hold every QP's vector in batch order; kernels of cl/qp.cl
 * (qp_vec_check, qp_vec_in, qp_sol_out, qp_warm_in) move them between that layout and the solver's slots,
 * so the values never pass through the host.
 *
 * What the host keeps about the vectors is brought up to date lazily (gala_qp_dio_host,
 * called where the solver (setup.c, results.c, update.c) reads it):
 *   - the per-QP verdicts of a device update (host_status, info[k].message): qp_vec_check
 *     writes a code and the first bad entry per slot; they are read back and folded in
 *     when the host next reads the statuses (a solve's collect, get_info, a host update);
 *   - the host copies host.q / l / u (slot order, unscaled, clamped): the device keeps its own
 *     copy (raw: [q | l | u]), which is the newer one after a device update (host_stale) and
 *     the older one after a host update (raw_stale); each side is refreshed from the other
 *     when it is next used, so at most one of the two is stale at any time.
 * Transfers of the solver's own arrays (the per-QP table, raw from host.q, the output flags)
 * are asynchronous; their host sources are changed only after the queue has drained
 * (dio_quiet), and gala_qp_destroy waits for them. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "qp_internal.h"

typedef struct qp_dio {
    gala_buffer *b_qtab;  /* per QP: QP_NQT ints (slot, n, m, caller offsets) */
    gala_buffer *b_raw;   /* [q | l | u] in slot layout, unscaled, clamped (NULL: no update yet) */
    gala_buffer *b_verd;  /* per slot: the last device update's verdict (code, index) */
    gala_buffer *b_vbad;  /* per slot: the values of the first bad entry or row */
    gala_buffer *b_osol;  /* per QP: 1 where the last solve has a solution */
    int *qtab, *osol;     /* host sources of b_qtab and b_osol */
    float *fraw;          /* float: the conversion of host.q / l / u uploaded into b_raw */
    void *hpol;           /* polishing: x (ntot) and y (mtot) in slot layout, the dtype's */
    int host_stale;       /* bits 1 q, 2 l, 4 u: host.q / l / u older than b_raw */
    int raw_stale;        /* b_raw older than host.q / l / u (a host update since) */
    int verd_pending;     /* b_verd not folded into host_status / info yet */
    int published;        /* b_osol (and W2 / W of polished QPs) hold the last solve's */
    int osol_sent;        /* osol and hpol have been sources of uploads */
    int async;            /* asynchronous writes from the host arrays may be pending */
} qp_dio;

/* Wait for the asynchronous writes from the host arrays before one of them changes. */
static gala_status dio_quiet(gala_qp_solver *s, qp_dio *d)
{
    if (!d->async) return GALA_OK;
    GALA_TRY(gala_finish(s->ctx));
    d->async = 0;
    return GALA_OK;
}

/* Sum of n and of m over every QP (the caller's layout). */
static void caller_totals(const gala_qp_solver *s, size_t *hn, size_t *hm)
{
    *hn = *hm = 0;
    for (int k = 0; k < s->count; ++k) {
        *hn += (size_t)s->qp_n[k];
        *hm += (size_t)s->qp_m[k];
    }
}

/* The solver's device-vector state, made at the first call: the per-QP table (slot, sizes,
 * offsets in the caller's arrays) on the device, the verdict and output-flag buffers. */
static gala_status dio_get(gala_qp_solver *s, const char *fn, qp_dio **out)
{
    if (s->dio) {
        *out = s->dio;
        return GALA_OK;
    }
    gala_context *ctx = s->ctx;
    size_t hn, hm;
    caller_totals(s, &hn, &hm);
    if (hn > INT_MAX || hm > INT_MAX)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the batch has more than 2^31 - 1 "
                          "vector entries of one kind (%zu in x, %zu in y)", fn, hn, hm);
    qp_dio *d = gala_calloc(1, sizeof *d);
    const size_t cnt = (size_t)s->count, nv = (size_t)(s->nvalid > 0 ? s->nvalid : 1);
    if (d) {
        d->qtab = gala_malloc(sizeof(int) * cnt * QP_NQT);
        d->osol = gala_calloc(cnt, sizeof(int));
    }
    if (!d || !d->qtab || !d->osol) {
        if (d) {
            gala_free(d->qtab);
            gala_free(d->osol);
        }
        gala_free(d);
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    }
    s->dio = d;
    for (int k = 0; k < s->count; ++k) {
        int *t = d->qtab + (size_t)k * QP_NQT;
        t[QP_T_SLOT] = k < s->nvis ? s->slot[k] : -1; /* a chunk's hidden QP: none */
        t[QP_T_N] = s->qp_n[k];
        t[QP_T_M] = s->qp_m[k];
        t[QP_T_XO] = (int)s->res.x_offset[k];
        t[QP_T_ZO] = (int)s->res.y_offset[k];
    }
    gala_status st = gala_buffer_create(ctx, GALA_INT, cnt * QP_NQT, &d->b_qtab);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, cnt, &d->b_osol);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, 2 * nv, &d->b_verd);
    if (st == GALA_OK) st = gala_buffer_create(ctx, s->dt, 2 * nv, &d->b_vbad);
    d->async = 1;
    if (st == GALA_OK) st = gala_buffer_write_async(d->b_qtab, 0, cnt * QP_NQT, d->qtab);
    if (st != GALA_OK) { /* made again by the next call */
        gala_qp_dio_release(s);
        return st;
    }
    *out = d;
    return GALA_OK;
}

/* The device's kept copy of q, l, u, made from the host copies at the first update and
 * again after a host update changed them (asynchronous: host.q itself in double, a float image
 * in float). */
static gala_status dio_raw(gala_qp_solver *s, qp_dio *d)
{
    const size_t nraw = s->ntot + 2 * s->mtot;
    if (!d->b_raw) {
        GALA_TRY(gala_buffer_create(s->ctx, s->dt, nraw, &d->b_raw));
        d->raw_stale = 1;
    }
    if (!d->raw_stale) return GALA_OK;
    const void *src = s->host.q; /* host.q, l, u are one array */
    if (s->dt == GALA_FLOAT) {
        if (d->fraw) GALA_TRY(dio_quiet(s, d)); /* an earlier upload may still read it */
        else d->fraw = gala_malloc(sizeof(float) * nraw);
        if (!d->fraw)
            return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
        for (size_t i = 0; i < nraw; ++i) d->fraw[i] = (float)s->host.q[i];
        src = d->fraw;
    }
    d->async = 1;
    GALA_TRY(gala_buffer_write_async(d->b_raw, 0, nraw, src));
    d->raw_stale = 0;
    return GALA_OK;
}

/* Fold the last device update's verdicts into host_status and info messages, as
 * gala_qp_update_vectors's validation writes them. */
static gala_status dio_fold(gala_qp_solver *s, qp_dio *d)
{
    const size_t nv = (size_t)s->nvalid;
    int *v = gala_malloc(sizeof(int) * 2 * nv);
    double *bad = NULL;
    if (!v) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = gala_buffer_read(d->b_verd, 0, 2 * nv, v);
    int any = 0;
    for (size_t sl = 0; st == GALA_OK && sl < nv; ++sl)
        any |= s->qp_of[sl] < s->nvis && v[2 * sl] != QP_VD_OK;
    if (st == GALA_OK && any) {
        bad = gala_malloc(sizeof(double) * 2 * nv);
        st = bad ? gala_qp_read_real(s, d->b_vbad, 0, 2 * nv, bad)
                 : gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    }
    for (size_t sl = 0; st == GALA_OK && sl < nv; ++sl) {
        const int k = s->qp_of[sl], code = v[2 * sl], i = v[2 * sl + 1];
        if (k >= s->nvis) continue; /* a chunk's hidden QP: not in the caller's vectors */
        char *msg = s->info[k].message;
        const size_t cap = sizeof s->info[k].message;
        if (code == QP_VD_OK) {
            s->host_status[k] = 0;
            msg[0] = 0;
            continue;
        }
        s->host_status[k] = GALA_QP_INVALID_DATA;
        if (code == QP_VD_Q) snprintf(msg, cap, "q[%d] = %g", i, bad[2 * sl]);
        else snprintf(msg, cap, "bounds of row %d are (%g, %g)", i, bad[2 * sl], bad[2 * sl + 1]);
    }
    if (st == GALA_OK) {
        d->verd_pending = 0;
        d->async = 0; /* the reads waited for the queue */
    }
    gala_free(v);
    gala_free(bad);
    return st;
}

gala_status gala_qp_dio_host(gala_qp_solver *s, int what)
{
    qp_dio *d = s->dio;
    if (!d) return GALA_OK;
    if ((what & QP_DIO_VERDICTS) && d->verd_pending) GALA_TRY(dio_fold(s, d));
    if (what & QP_DIO_VECTORS) {
        /* the sections the device changed last; reading them waits for the queue */
        static const int bit[3] = {1, 2, 4};
        const size_t off[3] = {0, s->ntot, s->ntot + s->mtot};
        const size_t len[3] = {s->ntot, s->mtot, s->mtot};
        for (int v = 0; v < 3; ++v)
            if ((d->host_stale & bit[v]) && len[v]) {
                GALA_TRY(gala_qp_read_real(s, d->b_raw, off[v], len[v], s->host.q + off[v]));
                d->async = 0;
            }
        d->host_stale = 0;
        GALA_TRY(dio_quiet(s, d)); /* the caller may change host.q, an upload's source */
    }
    return GALA_OK;
}

void gala_qp_dio_host_changed(gala_qp_solver *s)
{
    if (s->dio) s->dio->raw_stale = 1;
}

/* The output flags of the last solve (x, y or NaN, as gala_qp_get_solution decides) and,
 * where polishing replaced a solution on the host, the polished x, y in W2 / W. */
static gala_status dio_publish(gala_qp_solver *s, qp_dio *d)
{
    if (d->osol_sent) GALA_TRY(dio_quiet(s, d)); /* earlier uploads may still read them */
    d->osol_sent = 1;
    int polished = 0;
    for (int k = 0; k < s->count; ++k) {
        const int sl = s->slot[k];
        d->osol[k] = sl >= 0 && !s->host_status[k] && gala_qp_has_solution(s->info[k].status);
        polished |= d->osol[k] && s->info[k].status_polish == 1;
    }
    if (polished && s->nvalid) {
        const size_t rs = gala_dtype_size(s->dt), nxy = s->ntot + s->mtot;
        if (!d->hpol) d->hpol = gala_calloc(nxy, rs);
        if (!d->hpol) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
        for (int k = 0; k < s->count; ++k) {
            if (!d->osol[k]) continue; /* its W2 / W entries are not read */
            const int *mt = s->meta + (size_t)s->slot[k] * QP_NMETA;
            const size_t xo = (size_t)mt[QP_M_XO], zo = s->ntot + (size_t)mt[QP_M_ZO];
            const double *x = s->res.x + s->res.x_offset[k], *y = s->res.y + s->res.y_offset[k];
            for (int j = 0; j < mt[QP_M_N]; ++j) {
                if (s->dt == GALA_FLOAT) ((float *)d->hpol)[xo + (size_t)j] = (float)x[j];
                else ((double *)d->hpol)[xo + (size_t)j] = x[j];
            }
            for (int i = 0; i < mt[QP_M_M]; ++i) {
                if (s->dt == GALA_FLOAT) ((float *)d->hpol)[zo + (size_t)i] = (float)y[i];
                else ((double *)d->hpol)[zo + (size_t)i] = y[i];
            }
        }
        d->async = 1;
        GALA_TRY(gala_buffer_write_async(s->b_nvec, QP_V_W2 * s->ntot, s->ntot, d->hpol));
        if (s->mtot)
            GALA_TRY(gala_buffer_write_async(s->b_mvec, QP_V_W * s->mtot, s->mtot,
                                             (const char *)d->hpol + rs * s->ntot));
    }
    d->async = 1;
    GALA_TRY(gala_buffer_write_async(d->b_osol, 0, (size_t)s->count, d->osol));
    d->published = 1;
    return GALA_OK;
}

gala_status gala_qp_dio_solved(gala_qp_solver *s)
{
    if (!s->dio) return GALA_OK; /* the first gala_qp_get_solution_device publishes */
    s->dio->published = 0;
    return dio_publish(s, s->dio);
}

void gala_qp_dio_release(gala_qp_solver *s)
{
    qp_dio *d = s->dio;
    if (!d) return;
    if (d->async) gala_finish(s->ctx); /* the uploads read the arrays freed below */
    gala_buffer_free(d->b_qtab);
    gala_buffer_free(d->b_raw);
    gala_buffer_free(d->b_verd);
    gala_buffer_free(d->b_vbad);
    gala_buffer_free(d->b_osol);
    gala_free(d->qtab);
    gala_free(d->osol);
    gala_free(d->fraw);
    gala_free(d->hpol);
    gala_free(d);
    s->dio = NULL;
}

/* ------------------------------------------------------------------ the calls */

/* A buffer argument: of the context and dtype, holding [off, off + extent). */
gala_status gala_qp_check_vec(gala_qp_solver *s, const char *fn, const char *name,
                              const gala_buffer *b, size_t off, size_t extent)
{
    if (!b) return GALA_OK;
    if (off > SIZE_MAX - extent)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: the range of %s overflows", fn, name);
    GALA_TRY(gala_check_buf(s->ctx, fn, name, b, s->dt, off, extent));
    /* gala_check_buf skips the range of an empty extent */
    if (off > gala_buffer_count(b))
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: %s_off = %zu is past the end of "
                          "%s (%zu elements)", fn, name, off, name, gala_buffer_count(b));
    return GALA_OK;
}

static gala_dims dio_dims(int groups)
{
    return gala_dims_1d((size_t)(groups > 0 ? groups : 1) * QP_UTIL_WG, QP_UTIL_WG);
}

gala_status gala_qp_update_vectors_device(gala_qp_solver *s, const gala_buffer *q, size_t q_off,
                                          const gala_buffer *l, size_t l_off,
                                          const gala_buffer *u, size_t u_off)
{
    static const char fn[] = "gala_qp_update_vectors_device";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (s->chunks) return gala_qp_chunked_update_vectors_device(s, q, q_off, l, l_off, u, u_off);
    double t0 = gala_now();
    size_t hn, hm;
    caller_totals(s, &hn, &hm);
    GALA_TRY(gala_qp_check_vec(s, fn, "q", q, q_off, hn));
    GALA_TRY(gala_qp_check_vec(s, fn, "l", l, l_off, hm));
    GALA_TRY(gala_qp_check_vec(s, fn, "u", u, u_off, hm));
    if (!s->nvalid) {
        s->update_time = gala_now() - t0;
        return GALA_OK;
    }
    qp_dio *d;
    GALA_TRY(dio_get(s, fn, &d));
    GALA_TRY(dio_raw(s, d));
    gala_context *ctx = s->ctx;
    gala_kernel *kc, *ki, *kv;
    GALA_TRY(gala_qp_kernel(s, "qp_vec_check", &kc));
    GALA_TRY(gala_qp_kernel(s, "qp_vec_in", &ki));
    GALA_TRY(gala_qp_kernel(s, "qp_vec_update", &kv));
    const int which = (q ? 1 : 0) | (l ? 2 : 0) | (u ? 4 : 0);
    /* a NULL vector's kernel argument: another buffer of the dtype (never read) */
    const gala_buffer *any = q ? q : (l ? l : (u ? u : d->b_raw));
    const gala_buffer *bq = q ? q : any, *bl = l ? l : any, *bu = u ? u : any;
    gala_dims dq = dio_dims(s->count), dv = dio_dims(s->nvalid);
    /* the verdicts, then the copies (valid QPs' new values, the others' kept ones) */
    GALA_TRY(qp_launch_vec_check(ctx, kc, &dq, s->b_meta, d->b_qtab, s->count,
                         bq, (long long)q_off, bl, (long long)l_off,
                         bu, (long long)u_off, d->b_raw,
                         (long long)s->ntot, (long long)s->mtot,
                         s->b_host_status, d->b_verd, d->b_vbad, which));
    d->verd_pending = 1;
    if (which)
        GALA_TRY(qp_launch_vec_in(ctx, ki, &dq, s->b_meta, d->b_qtab, s->count,
                             bq, (long long)q_off, bl,
                             (long long)l_off, bu, (long long)u_off,
                             s->b_nvec, (long long)s->ntot, s->b_mvec,
                             (long long)s->mtot, d->b_raw, d->b_verd,
                             which));
    d->host_stale |= which;
    /* then exactly what gala_qp_update_vectors launches: scaling, row kinds, refactor flags */
    if (which)
        GALA_TRY(qp_launch_vec_update(ctx, kv, &dv, s->b_meta, s->b_slots, s->nvalid,
                             s->b_nvec, (long long)s->ntot, s->b_mvec,
                             (long long)s->mtot, s->b_info, s->b_ctype,
                             s->b_refactor, s->b_state, s->b_host_status,
                             which, s->same_data, s->set.rho_is_vec));
    s->update_time = gala_now() - t0;
    return GALA_OK;
}

gala_status gala_qp_get_solution_device(const gala_qp_solver *cs, gala_buffer *x, size_t x_off,
                                        gala_buffer *y, size_t y_off)
{
    static const char fn[] = "gala_qp_get_solution_device";
    if (!cs) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (cs->chunks) return gala_qp_chunked_get_solution_device(cs, x, x_off, y, y_off);
    gala_qp_solver *s = (gala_qp_solver *)cs; /* its device-vector state changes */
    if (!s->solved) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: not solved yet", fn);
    size_t hn, hm;
    caller_totals(s, &hn, &hm);
    GALA_TRY(gala_qp_check_vec(s, fn, "x", x, x_off, hn));
    GALA_TRY(gala_qp_check_vec(s, fn, "y", y, y_off, hm));
    if (x && y && gala_ranges_overlap(x, x_off, hn, y, y_off, hm))
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: the ranges of x and y overlap", fn);
    if (!x && !y) return GALA_OK;
    if (!s->nvalid) { /* every QP was rejected at setup */
        if (x) GALA_TRY(gala_buffer_fill(x, x_off, hn, NAN));
        if (y) GALA_TRY(gala_buffer_fill(y, y_off, hm, NAN));
        return GALA_OK;
    }
    qp_dio *d;
    GALA_TRY(dio_get(s, fn, &d));
    if (!d->published) GALA_TRY(dio_publish(s, d));
    gala_kernel *k;
    GALA_TRY(gala_qp_kernel(s, "qp_sol_out", &k));
    gala_dims dq = dio_dims(s->count);
    return qp_launch_sol_out(s->ctx, k, &dq, s->b_meta, d->b_qtab, s->count,
                       d->b_osol, s->b_nvec, (long long)s->ntot,
                       s->b_mvec, (long long)s->mtot, (x ? x : y),
                       (long long)x_off, (y ? y : x), (long long)y_off,
                       ((x ? 1 : 0) | (y ? 2 : 0)));
}

gala_status gala_qp_warm_start_device(gala_qp_solver *s, const gala_buffer *x, size_t x_off,
                                      const gala_buffer *y, size_t y_off)
{
    static const char fn[] = "gala_qp_warm_start_device";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (s->chunks) return gala_qp_chunked_warm_start_device(s, x, x_off, y, y_off);
    size_t hn, hm;
    caller_totals(s, &hn, &hm);
    GALA_TRY(gala_qp_check_vec(s, fn, "x", x, x_off, hn));
    GALA_TRY(gala_qp_check_vec(s, fn, "y", y, y_off, hm));
    s->set.warm_starting = 1;
    if (!s->nvalid || (!x && !y)) return GALA_OK;
    qp_dio *d;
    GALA_TRY(dio_get(s, fn, &d));
    gala_kernel *ki, *kw;
    GALA_TRY(gala_qp_kernel(s, "qp_warm_in", &ki));
    GALA_TRY(gala_qp_kernel(s, "qp_warm", &kw));
    const int which = (x ? 1 : 0) | (y ? 2 : 0);
    gala_dims dq = dio_dims(s->count), dv = dio_dims(s->nvalid);
    GALA_TRY(qp_launch_warm_in(s->ctx, ki, &dq, s->b_meta, d->b_qtab, s->count,
                         (x ? x : y), (long long)x_off, (y ? y : x),
                         (long long)y_off, s->b_nvec, (long long)s->ntot,
                         s->b_mvec, (long long)s->mtot, which));
    /* as gala_qp_warm_start: scaled, z = A x */
    return qp_launch_warm(s->ctx, kw, &dv, s->b_meta, s->b_slots, s->nvalid,
                       s->b_rowptr, s->b_colidx, s->b_vals, s->b_nvec,
                       (long long)s->ntot, s->b_mvec, (long long)s->mtot,
                       s->b_info, which);
}
