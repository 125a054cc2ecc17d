/* Updates between solves (docs/qp.md): vectors, matrices, ρ, settings, warm and cold
 * starts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"

static gala_status check_k(gala_qp_solver *s, int k, const char *fn)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (s->chunks) return GALA_OK; /* chunk.c checks */
    if (k < -1 || k >= s->count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: k = %d outside -1..%d", fn, k,
                          s->count - 1);
    return GALA_OK;
}

/* A list of slots for a kernel: every slot (k = -1) or QP k's. */
static gala_status slot_list(gala_qp_solver *s, int k, gala_buffer **list, int *n)
{
    if (k < 0) {
        *list = s->b_slots;
        *n = s->nvalid;
        return GALA_OK;
    }
    *list = s->b_one_slot;
    *n = 1;
    return gala_buffer_write(s->b_one_slot, 0, 1, &s->slot[k]);
}

/* Per-QP validation of new vectors against the kept ones (several threads); valid ones are
 * copied into the host copies. */
typedef struct {
    gala_qp_solver *s;
    int k0;
    const double *q, *l, *u;
    const size_t *qo, *bo; /* per QP (from k0): offsets into the caller's arrays */
    int *changed;          /* per QP: host status changed */
} vec_job;

static void vec_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    const vec_job *j = arg;
    gala_qp_solver *s = j->s;
    for (long kk = b; kk < e; ++kk) {
        const int k = j->k0 + (int)kk, sl = s->slot[k];
        if (sl < 0) continue; /* rejected at setup: stays rejected */
        const int n = s->qp_n[k], m = s->qp_m[k];
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO];
        const double *qk = j->q ? j->q + j->qo[kk] : NULL;
        const double *lk = j->l ? j->l + j->bo[kk] : NULL, *uk = j->u ? j->u + j->bo[kk] : NULL;
        char msg[96] = "";
        for (int i = 0; qk && i < n && !msg[0]; ++i)
            if (!isfinite(qk[i])) snprintf(msg, sizeof msg, "q[%d] = %g", i, qk[i]);
        for (int i = 0; i < m && !msg[0]; ++i) {
            const double lv = lk ? lk[i] : s->host.l[zo + (size_t)i], uv = uk ? uk[i] : s->host.u[zo + (size_t)i];
            if (isnan(lv) || isnan(uv) || lv > uv || lv == INFINITY || uv == -INFINITY)
                snprintf(msg, sizeof msg, "bounds of row %d are (%g, %g)", i, lv, uv);
        }
        const int was = s->host_status[k];
        if (msg[0]) {
            s->host_status[k] = GALA_QP_INVALID_DATA;
            memcpy(s->info[k].message, msg, sizeof msg);
        } else {
            s->host_status[k] = 0;
            s->info[k].message[0] = 0;
            if (qk) memcpy(s->host.q + xo, qk, sizeof(double) * (size_t)n);
            for (int i = 0; i < m; ++i) {
                if (lk) s->host.l[zo + (size_t)i] = qp_clamp_inf(lk[i]);
                if (uk) s->host.u[zo + (size_t)i] = qp_clamp_inf(uk[i]);
            }
        }
        j->changed[kk] = was != s->host_status[k];
    }
}

/* Upload the host copies of QP k (k = -1: every QP) of one vector kind into its device
 * section (sec: the section's start in the n- or m-vector buffer). */
static gala_status upload_section(gala_qp_solver *s, int k, gala_buffer *b, size_t sec,
                                  const double *host, int is_n)
{
    if (k < 0) return gala_qp_write_real(s, b, sec, is_n ? s->ntot : s->mtot, host);
    const int *mt = s->meta + (size_t)s->slot[k] * QP_NMETA;
    const size_t o = (size_t)mt[is_n ? QP_M_XO : QP_M_ZO];
    return gala_qp_write_real(s, b, sec + o, (size_t)mt[is_n ? QP_M_N : QP_M_M], host + o);
}

/* The device's hstat from the host statuses of QP k (k = -1: all). */
static gala_status write_hstat(gala_qp_solver *s, int k)
{
    if (k >= 0) {
        int v = s->host_status[k] ? QP_H_HOST : 0;
        return gala_buffer_write(s->b_host_status, (size_t)s->slot[k], 1, &v);
    }
    int *h = gala_malloc(sizeof(int) * (size_t)s->nvalid);
    if (!h) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    for (int sl = 0; sl < s->nvalid; ++sl) h[sl] = s->host_status[s->qp_of[sl]] ? QP_H_HOST : 0;
    gala_status st = gala_buffer_write(s->b_host_status, 0, (size_t)s->nvalid, h);
    gala_free(h);
    return st;
}

gala_status gala_qp_update_vectors(gala_qp_solver *s, int k, const double *q, const double *l,
                                   const double *u)
{
    static const char fn[] = "gala_qp_update_vectors";
    GALA_TRY(check_k(s, k, fn));
    if (s->chunks) return gala_qp_chunked_update_vectors(s, k, q, l, u);
    /* validation reads the kept vectors and statuses: a device update's first */
    GALA_TRY(gala_qp_dio_host(s, QP_DIO_VERDICTS | QP_DIO_VECTORS));
    double t0 = gala_now();
    const int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->nvis : k + 1, nk = k1 - k0;
    size_t *off = gala_malloc(sizeof(size_t) * 2 * (size_t)nk);
    int *changed = gala_calloc((size_t)nk, sizeof(int));
    gala_status st = GALA_OK;
    if (!off || !changed) st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    if (st == GALA_OK) {
        size_t qo = 0, bo = 0; /* cursors into the caller's arrays: every QP's n and m */
        for (int kk = 0; kk < nk; ++kk) {
            off[kk] = qo;
            off[nk + kk] = bo;
            qo += (size_t)s->qp_n[k0 + kk];
            bo += (size_t)s->qp_m[k0 + kk];
        }
        vec_job j = {s, k0, q, l, u, off, off + nk, changed};
        gala_par(s->ctx, nk > 256 ? s->nthreads : 1, nk, 64, vec_range, &j);
        if (q || l || u) gala_qp_dio_host_changed(s); /* host.q, l, u are ahead of the device's */
    }
    int any_changed = 0;
    for (int kk = 0; st == GALA_OK && kk < nk; ++kk) any_changed |= changed[kk];
    gala_free(off);
    gala_free(changed);
    if (st == GALA_OK && k >= 0 && s->slot[k] < 0) {
        s->update_time = gala_now() - t0;
        return GALA_OK;
    }
    /* the host's verdict first (invalid data, or valid again): the kernel below leaves an
     * invalid QP so and marks a shared one whose row kinds changed */
    if (st == GALA_OK && any_changed && s->nvalid) st = write_hstat(s, k);
    if (st == GALA_OK && s->nvalid && (q || l || u)) {
        /* the kept (valid) vectors, unscaled, into Q, L, U; scaled there with the QP's D, E, c */
        if (q) st = upload_section(s, k, s->b_nvec, QP_V_Q * s->ntot, s->host.q, 1);
        if (st == GALA_OK && l && s->mtot) st = upload_section(s, k, s->b_mvec, QP_V_L * s->mtot, s->host.l, 0);
        if (st == GALA_OK && u && s->mtot) st = upload_section(s, k, s->b_mvec, QP_V_U * s->mtot, s->host.u, 0);
        gala_buffer *list = NULL;
        int nl = 0;
        gala_kernel *kv = NULL;
        if (st == GALA_OK) st = slot_list(s, k, &list, &nl);
        if (st == GALA_OK) st = gala_qp_kernel(s, "qp_vec_update", &kv);
        gala_dims d = gala_qp_dims(nl, QP_UTIL_WG);
        const int which = (q ? 1 : 0) | (l ? 2 : 0) | (u ? 4 : 0);
        if (st == GALA_OK)
            st = qp_launch_vec_update(s->ctx, kv, &d, s->b_meta, list, nl,
                             s->b_nvec, (long long)s->ntot, s->b_mvec,
                             (long long)s->mtot, s->b_info, s->b_ctype,
                             s->b_refactor, s->b_state, s->b_host_status,
                             which, s->same_data, s->set.rho_is_vec);
    }
    s->update_time = gala_now() - t0;
    return st;
}

/* After new matrix values: scale the QP again, whole (as OSQP rescales the whole problem),
 * and refactor it: every QP for k = -1 or shared matrices, else QP k alone, so that the others' state (status, iterations, ρ) stays what it was, as when
 * they are in another chunk. The device's q, l, u are scaled: the host copies go up again
 * first. */
static gala_status rescale_refactor(gala_qp_solver *s, int k)
{
    gala_status st = GALA_OK;
    const int one = k >= 0 && !s->same_data;
    const int *m0 = s->meta + (size_t)(one ? s->slot[k] : 0) * QP_NMETA;
    const size_t xo = one ? (size_t)m0[QP_M_XO] : 0, zo = one ? (size_t)m0[QP_M_ZO] : 0;
    const size_t nx = one ? (size_t)m0[QP_M_N] : s->ntot, nz = one ? (size_t)m0[QP_M_M] : s->mtot;
    if (nx) st = gala_qp_write_real(s, s->b_nvec, QP_V_Q * s->ntot + xo, nx, s->host.q + xo);
    if (st == GALA_OK && nz) st = gala_qp_write_real(s, s->b_mvec, QP_V_L * s->mtot + zo, nz, s->host.l + zo);
    if (st == GALA_OK && nz) st = gala_qp_write_real(s, s->b_mvec, QP_V_U * s->mtot + zo, nz, s->host.u + zo);
    gala_qp_prof(s, GALA_QP_PHASE_UPLOAD);
    gala_buffer *list = NULL;
    int nlist = 0;
    if (st == GALA_OK && one) st = slot_list(s, k, &list, &nlist);
    if (st == GALA_OK) st = gala_qp_device_scale(s, 1, list, nlist);
    gala_qp_prof(s, GALA_QP_PHASE_SCALE);
    if (st != GALA_OK) return st;
    if (one) { /* the flagged QPs (k, and any ρ change still pending) */
        const int flag = 1;
        GALA_TRY(gala_buffer_write(s->b_refactor, (size_t)s->slot[k], 1, &flag));
        return s->ls->ops->update_rho(s->ls, s);
    }
    GALA_TRY(gala_buffer_fill(s->b_refactor, 0, (size_t)s->nvalid, 1));
    GALA_TRY(s->ls->ops->update_matrices(s->ls, s));
    s->k_stale = 0;
    return GALA_OK;
}

gala_status gala_qp_update_matrices(gala_qp_solver *s, int k, const double *Px, const double *Ax)
{
    static const char fn[] = "gala_qp_update_matrices";
    GALA_TRY(check_k(s, k, fn));
    if (s->chunks) return gala_qp_chunked_update_matrices(s, k, Px, Ax);
    if (s->same_data && k != -1)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: the shared strategy updates every QP "
                          "at once (k = -1)", fn);
    ++s->kept_gen; /* polishing's kept factors are of the old values */
    /* host.q, l, u go up again below; apply_hstat reads the host statuses */
    GALA_TRY(gala_qp_dio_host(s, QP_DIO_VERDICTS | QP_DIO_VECTORS));
    double t0 = gala_now();
    s->prof_mark = t0;
    if (k >= 0 && s->slot[k] < 0) return GALA_OK; /* rejected at setup: nothing on the device */
    const int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->nvis : k + 1;
    /* validate first; the caller's arrays hold the values of the valid QPs one after another */
    size_t po = 0, ao = 0;
    const double *P0 = NULL, *A0 = NULL;
    for (int kk = k0; kk < k1; ++kk) {
        const int sl = s->slot[kk];
        if (sl < 0) continue;
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const int pn = mt[QP_M_PNZ], an = mt[QP_M_ANZ];
        for (int e = 0; Px && e < pn; ++e)
            if (!isfinite(Px[po + (size_t)e]))
                return gala_error(s->ctx, GALA_ERR_NOT_FINITE, "%s: QP %d: P value %d is %g", fn,
                                  kk, e, Px[po + (size_t)e]);
        for (int e = 0; Ax && e < an; ++e)
            if (!isfinite(Ax[ao + (size_t)e]))
                return gala_error(s->ctx, GALA_ERR_NOT_FINITE, "%s: QP %d: A value %d is %g", fn,
                                  kk, e, Ax[ao + (size_t)e]);
        if (s->same_data) {
            if (!P0) {
                P0 = Px ? Px + po : NULL;
                A0 = Ax ? Ax + ao : NULL;
            } else if ((Px && memcmp(Px + po, P0, sizeof(double) * (size_t)pn)) ||
                       (Ax && memcmp(Ax + ao, A0, sizeof(double) * (size_t)an))) {
                return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: the shared strategy needs "
                                  "the same values in every QP (QP %d differs)", fn, kk);
            }
        }
        po += (size_t)pn;
        ao += (size_t)an;
    }
    if (!s->nvalid || (!Px && !Ax)) {
        s->update_time = gala_now() - t0;
        return GALA_OK;
    }
    /* the raw values on the device (and the host copies for polishing): per slot, P's
     * then A's; a NULL matrix keeps its values */
    gala_status st = GALA_OK;
    const size_t rsz = gala_dtype_size(s->dt);
    const int nupd = s->same_data ? 1 : (k < 0 ? s->nvalid : 1);
    const int slot0 = s->same_data || k < 0 ? 0 : s->slot[k];
    const int *m0 = s->meta + (size_t)slot0 * QP_NMETA;
    const size_t rlo = (size_t)m0[QP_M_RO];
    size_t rcount = 0;
    for (int i = 0; i < nupd; ++i) {
        const int *mt = s->meta + (size_t)(slot0 + i) * QP_NMETA;
        rcount += (size_t)mt[QP_M_PNZ] + (size_t)mt[QP_M_ANZ];
    }
    unsigned char *rb = gala_malloc(rsz * (rcount ? rcount : 1));
    if (!rb) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    if (!Px || !Ax) st = gala_buffer_read(s->b_raw, rlo, rcount, rb); /* the kept values */
    po = ao = 0;
    for (int i = 0; st == GALA_OK && i < nupd; ++i) {
        const int sl = slot0 + i;
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const int pn = mt[QP_M_PNZ], an = mt[QP_M_ANZ];
        const size_t ro = (size_t)mt[QP_M_RO] - rlo;
        for (int e = 0; e < pn + an; ++e) {
            const double *src = e < pn ? (Px ? Px + po + (size_t)e : NULL) : (Ax ? Ax + ao + (size_t)(e - pn) : NULL);
            if (!src) continue;
            if (s->dt == GALA_FLOAT) ((float *)(void *)rb)[ro + (size_t)e] = (float)*src;
            else ((double *)(void *)rb)[ro + (size_t)e] = *src;
            if (s->host.vals) s->host.vals[rlo + ro + (size_t)e] = *src;
        }
        po += (size_t)pn;
        ao += (size_t)an;
    }
    if (st == GALA_OK) st = gala_buffer_write(s->b_raw, rlo, rcount, rb);
    gala_free(rb);
    if (st == GALA_OK) st = rescale_refactor(s, k);
    if (st == GALA_OK) st = gala_finish(s->ctx);
    if (st == GALA_OK) st = gala_qp_read_hstat(s);
    if (st == GALA_OK) st = gala_qp_read_factor_status(s);
    s->update_time = gala_now() - t0;
    return st;
}

gala_status gala_qp_update_rho(gala_qp_solver *s, int k, double rho)
{
    static const char fn[] = "gala_qp_update_rho";
    GALA_TRY(check_k(s, k, fn));
    if (s->chunks) return gala_qp_chunked_update_rho(s, k, rho);
    gala_context *ctx = s->ctx;
    if (!(rho > 0) || !isfinite(rho))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: rho = %g must be positive and finite",
                          fn, rho);
    rho = rho < QP_RHO_MIN ? QP_RHO_MIN : (rho > QP_RHO_MAX ? QP_RHO_MAX : rho);
    if (!s->nvalid || (k >= 0 && s->slot[k] < 0)) {
        if (k < 0) s->set.rho = rho;
        return GALA_OK;
    }
    /* every slot's ρ (info) and, with a ρ ladder, its rung (state): read, changed for the
     * QPs concerned, written back; the other strategies refactor the flagged QPs when the
     * next solve starts (update_rho), as after an update that changes a row kind */
    const qp_linsys_ops *ops = s->ls->ops;
    const int ladder = ops->nearest_rho != NULL;
    const size_t nv = (size_t)s->nvalid;
    double *inf = gala_malloc(sizeof(double) * nv * QP_NINFO);
    int *stt = ladder ? gala_malloc(sizeof(int) * nv * QP_NSTATE) : NULL;
    if (!inf || (ladder && !stt)) {
        gala_free(inf);
        gala_free(stt);
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    }
    gala_status st = gala_qp_read_real(s, s->b_info, 0, nv * QP_NINFO, inf);
    if (st == GALA_OK && stt) st = gala_buffer_read(s->b_state, 0, nv * QP_NSTATE, stt);
    int rung = -1;
    double r = rho;
    if (st == GALA_OK && ladder) st = ops->nearest_rho(s->ls, s, fn, rho, &r, &rung);
    const size_t b0 = k < 0 ? 0 : (size_t)s->slot[k], b1 = k < 0 ? nv : b0 + 1;
    for (size_t b = b0; st == GALA_OK && b < b1; ++b) {
        inf[b * QP_NINFO + QP_I_RHO] = r;
        if (stt) stt[b * QP_NSTATE + QP_S_RUNG] = rung;
    }
    if (st == GALA_OK) st = gala_qp_write_real(s, s->b_info, 0, nv * QP_NINFO, inf);
    if (st == GALA_OK && stt) st = gala_buffer_write(s->b_state, 0, nv * QP_NSTATE, stt);
    if (st == GALA_OK && !ladder) {
        const int one = 1;
        st = k < 0 ? gala_buffer_fill(s->b_refactor, 0, nv, 1)
                   : gala_buffer_write(s->b_refactor, b0, 1, &one);
    }
    if (st == GALA_OK && k < 0) s->set.rho = rho;
    gala_free(inf);
    gala_free(stt);
    return st;
}

gala_status gala_qp_get_settings(const gala_qp_solver *s, gala_qp_settings *settings)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_get_settings: solver is NULL");
    if (!settings)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_settings: settings is NULL");
    *settings = s->set;
    return GALA_OK;
}

gala_status gala_qp_update_settings(gala_qp_solver *s, const gala_qp_settings *settings)
{
    static const char fn[] = "gala_qp_update_settings";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    gala_context *ctx = s->ctx;
    if (s->chunks) return gala_qp_chunked_update_settings(s, settings);
    if (!settings) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: settings is NULL", fn);
    GALA_TRY(gala_qp_settings_validate(ctx, fn, settings));
    /* what the setup built from (scaling, K and its ρ ladder, the programs, the thread
     * count) stays: as osqp_update_settings, which takes ρ through osqp_update_rho */
    const gala_qp_settings *n = settings;
    GALA_TRY(gala_qp_settings_fixed_kept(ctx, fn, &s->set, n));
    if (n->polishing && !s->host.vals)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: polishing can be turned on only in a "
                          "solver set up with it (the host copies of P and A it needs are kept "
                          "only then)", fn);
    s->set = *n;
    s->dualgap = gala_qp_dualgap_of(n);
    return GALA_OK;
}

gala_status gala_qp_warm_start(gala_qp_solver *s, int k, const double *x, const double *y)
{
    static const char fn[] = "gala_qp_warm_start";
    GALA_TRY(check_k(s, k, fn));
    if (s->chunks) return gala_qp_chunked_warm_start(s, k, x, y);
    s->set.warm_starting = 1;
    if (!s->nvalid || (!x && !y) || (k >= 0 && s->slot[k] < 0)) return GALA_OK;
    /* the caller's vectors (every QP's n and m, one after another for k = -1) in slot
     * layout, unscaled, into XT and YPREV (W keeps the last solve's y); qp_warm scales them
     * and sets z = A x */
    const int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->nvis : k + 1;
    /* zeros where no QP of the call writes (a chunk's hidden QP, chunk.c) */
    double *tx = gala_calloc(s->ntot + s->mtot + 1, sizeof(double));
    if (!tx) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    double *ty = tx + s->ntot;
    size_t xc = 0, yc = 0;
    for (int kk = k0; kk < k1; ++kk) {
        const int sl = s->slot[kk];
        if (sl >= 0) {
            const int *mt = s->meta + (size_t)sl * QP_NMETA;
            if (x) memcpy(tx + mt[QP_M_XO], x + xc, sizeof(double) * (size_t)mt[QP_M_N]);
            if (y && mt[QP_M_M]) memcpy(ty + mt[QP_M_ZO], y + yc, sizeof(double) * (size_t)mt[QP_M_M]);
        }
        xc += (size_t)s->qp_n[kk];
        yc += (size_t)s->qp_m[kk];
    }
    gala_status st = GALA_OK;
    if (x) st = upload_section(s, k, s->b_nvec, QP_V_XT * s->ntot, tx, 1);
    if (st == GALA_OK && y && s->mtot) st = upload_section(s, k, s->b_mvec, QP_V_YPREV * s->mtot, ty, 0);
    gala_free(tx);
    gala_buffer *list = NULL;
    int nl = 0;
    gala_kernel *kw = NULL;
    if (st == GALA_OK) st = slot_list(s, k, &list, &nl);
    if (st == GALA_OK) st = gala_qp_kernel(s, "qp_warm", &kw);
    gala_dims d = gala_qp_dims(nl, QP_UTIL_WG);
    if (st == GALA_OK)
        st = qp_launch_warm(s->ctx, kw, &d, s->b_meta, list, nl,
                         s->b_rowptr, s->b_colidx, s->b_vals, s->b_nvec,
                         (long long)s->ntot, s->b_mvec, (long long)s->mtot,
                         s->b_info, ((x ? 1 : 0) | (y ? 2 : 0)));
    return st; /* b_one may be rewritten by the next call: the queue is in order */
}

gala_status gala_qp_cold_start(gala_qp_solver *s)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_cold_start: solver is NULL");
    if (s->chunks) return gala_qp_chunked_cold_start(s);
    if (!s->nvalid) return GALA_OK;
    GALA_TRY(gala_buffer_fill(s->b_nvec, QP_V_X * s->ntot, s->ntot, 0));
    GALA_TRY(gala_buffer_fill(s->b_nvec, QP_V_XPREV * s->ntot, s->ntot, 0));
    if (s->mtot) {
        GALA_TRY(gala_buffer_fill(s->b_mvec, QP_V_Z * s->mtot, s->mtot, 0));
        GALA_TRY(gala_buffer_fill(s->b_mvec, QP_V_Y * s->mtot, s->mtot, 0));
        GALA_TRY(gala_buffer_fill(s->b_mvec, QP_V_YPREV * s->mtot, s->mtot, 0));
    }
    return GALA_OK;
}

