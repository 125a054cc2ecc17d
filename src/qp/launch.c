/* The QP solver's device helpers, shared by every phase: reals in the solver's dtype up and
 * down, the programs and kernels, the ADMM launch of a launch class, scaling. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"

typedef struct {
    const double *src;
    void *dst;
    int to_float;
} conv_job;

static void conv_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    const conv_job *j = arg;
    if (j->to_float) {
        float *d = j->dst;
        for (long i = b; i < e; ++i) d[i] = (float)j->src[i];
    } else {
        double *d = j->dst;
        const float *f = (const float *)j->src;
        for (long i = b; i < e; ++i) d[i] = (double)f[i];
    }
}

gala_status gala_qp_write_real(gala_qp_solver *s, gala_buffer *b, size_t off, size_t count,
                               const double *src)
{
    if (!count) return GALA_OK;
    if (s->dt == GALA_DOUBLE) return gala_buffer_write(b, off, count, src);
    float *tmp = gala_malloc(count * sizeof(float));
    if (!tmp) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    conv_job j = {src, tmp, 1};
    gala_par(s->ctx, count >= 65536 ? s->nthreads : 1, (long)count, 16384, conv_range, &j);
    gala_status st = gala_buffer_write(b, off, count, tmp);
    gala_free(tmp);
    return st;
}

gala_status gala_qp_read_real(gala_qp_solver *s, const gala_buffer *b, size_t off, size_t count,
                              double *dst)
{
    if (!count) return GALA_OK;
    if (s->dt == GALA_DOUBLE) return gala_buffer_read(b, off, count, dst);
    const int staged = s->read_stage && count <= s->read_stage_n;
    float *tmp = staged ? s->read_stage : gala_malloc(count * sizeof(float));
    if (!tmp) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = gala_buffer_read(b, off, count, tmp);
    conv_job j = {(const double *)(const void *)tmp, dst, 0};
    if (st == GALA_OK) gala_par(s->ctx, count >= 65536 ? s->nthreads : 1, (long)count, 16384, conv_range, &j);
    if (!staged) gala_free(tmp);
    return st;
}

gala_status gala_qp_mkbuf(gala_qp_solver *s, gala_dtype dt, size_t count, gala_buffer **b)
{
    return gala_buffer_create(s->ctx, dt, count ? count : 1, b);
}

void gala_qp_key(const gala_qp_solver *s, gala_program_key *key, const qp_bin *c)
{
    gala_key_init(key, "qp", s->dt);
    gala_key_def(key, "WG", c ? c->wg : QP_UTIL_WG);
    gala_key_def(key, "TB", c ? c->tb : 1);
    gala_key_def(key, "NCAP", c ? c->ncap : 1);
    gala_key_def(key, "MCAP", c ? c->mcap : 1);
    gala_key_def(key, "VLOCAL", c ? c->vlocal : 0);
    gala_key_def(key, "REFINE", s->refine);
    gala_key_def(key, "KS", c ? c->ks : 1);
    gala_key_def(key, "RB", c ? c->rb : 1);
    if (c && c->qb > 0) gala_key_def(key, "QB", c->qb);
    if (c && c->minb > 0) gala_key_def(key, "MINB", c->minb);
    if (c && gala_tuned(s->ctx, s->dt)->qp.reqd_wg) gala_key_def(key, "REQD_WG", 1);
    if (c && c->tb > 1 && c->tl) gala_key_def(key, "TL", 1);
    if (s->k_factored) gala_key_def(key, "KFAC", 1); /* host kernels only (cl/qp.cl refuses it) */
    /* only the kernels of this key's part (cl/qp.cl, QP_PART): a bin's program is the ADMM
     * kernels, the utility program the rest, whose sparse/PCG part is a program of its own */
    gala_key_def(key, "QP_PART", c ? 3 : 1);
}

void gala_qp_util_key(const gala_qp_solver *s, const char *name, gala_program_key *key)
{
    gala_qp_key(s, key, NULL);
    if (strncmp(name, "qp_kkt_", 7) == 0 || strncmp(name, "qp_pcg", 6) == 0)
        key->defs[key->ndefs - 1].value = 2;
}

gala_status gala_qp_kernel(gala_qp_solver *s, const char *name, gala_kernel **k)
{
    gala_program_key key;
    gala_qp_util_key(s, name, &key);
    return gala_kernel_get(s->ctx, &key, name, k);
}

size_t gala_qp_admm_local_bytes(const gala_qp_solver *s, const qp_bin *c)
{
    /* the arrays of cl/qp.cl's qp_admm and qp_check */
    const size_t r = gala_dtype_size(s->dt), tb = (size_t)c->tb, nc = (size_t)c->ncap;
    const size_t mc = (size_t)c->mcap;
    const size_t small = tb * (2 * sizeof(int) + 3 * 8 + r);
    size_t admm = small;
    if (c->vlocal) {
        /* the tile layout (cl/qp.cl, TL): rows of tb REALs and one 16-byte vector of
         * padding, arrays rounded to 16-byte vectors */
        const int tl = tb > 1 && c->tl;
        const size_t ts = tl ? tb + 16 / r : tb;
        const size_t vn = tl ? (nc * ts * r + 15) / 16 * 16 : nc * tb * r;
        const size_t vm = tl ? (mc * ts * r + 15) / 16 * 16 : mc * tb * r;
        admm += 3 * vn + 2 * vm + mc * sizeof(int);
        if (s->refine) admm += vm;
        if (tb == 1) admm += (nc + 2 * mc) * r;
        if (tb == 1 && c->ks > 1) admm += (size_t)c->ks * nc * r;
    }
    const size_t check = small + (4 * (size_t)c->wg + tb * QP_NRES) * r;
    return admm > check ? admm : check;
}

/* Launch geometry: one work-group per QP (or tile, or job) along dimension 0. */
gala_dims gala_qp_dims(long long groups, int wg)
{
    if (groups < 1) groups = 1;
    return gala_dims_1d((size_t)groups * (size_t)wg, (size_t)wg);
}

/* The class's qp_admm and qp_check, and the work-group they run with: the class's, or, where
 * their registers allow fewer work-items (gala_kernel_max_wg: a wide class in double on
 * NVIDIA), the largest multiple of 32 they allow, in a program built for it. Each work-item
 * loops over its share of the rows and columns, so the iterates do not depend on it. */
static gala_status admm_kernels(gala_qp_solver *s, const qp_bin *c, gala_kernel **k,
                                gala_kernel **kc, int *wg)
{
    qp_bin cw = *c;
    for (int tries = 0;; ++tries) {
        gala_program_key key;
        gala_qp_key(s, &key, &cw);
        GALA_TRY(gala_kernel_get(s->ctx, &key, "qp_admm", k));
        GALA_TRY(gala_kernel_get(s->ctx, &key, "qp_check", kc));
        size_t lim = gala_kernel_max_wg(s->ctx, *k), lc = gala_kernel_max_wg(s->ctx, *kc);
        if (lc < lim) lim = lc;
        if ((size_t)cw.wg <= lim) break;
        const int smaller = (int)(lim / 32 * 32);
        if (smaller < 32 || smaller < cw.tb || tries == 3)
            return gala_error(s->ctx, GALA_ERR_DEVICE,
                              "gala_qp: the ADMM kernels of a class of %d work-items run at most "
                              "%zu on %s", c->wg, lim, s->ctx->info.device_name);
        cw.wg = smaller;
    }
    *wg = cw.wg;
    return GALA_OK;
}

gala_status gala_qp_launch_admm(gala_qp_solver *s, const qp_linsys *ls, const qp_bin *c,
                                int iters, int check, int adapt, int final_status)
{
    gala_buffer *list = c->compacted ? c->alist : c->list;
    const int nlist = c->acount;
    if (nlist <= 0) return GALA_OK;
    gala_kernel *k, *kc;
    int wg = c->wg;
    GALA_TRY(admm_kernels(s, c, &k, &kc, &wg));
    const gala_qp_settings *st = &s->set;
    gala_dims d = gala_qp_dims(((long long)nlist + c->tb - 1) / c->tb, wg);
#define ADMM_ARGS s->b_meta, list, nlist,                                  \
        s->b_state, s->b_info, s->b_refactor,                              \
        s->b_rowptr, s->b_colidx, s->b_vals, ls->K,                        \
        s->b_nvec, (long long)s->ntot, s->b_mvec,                          \
        (long long)s->mtot, s->b_ctype, ls->ladder_rho,                    \
        ls->rung_ok, ls->nrungs,                                           \
        0, ls->rung_stride, iters, check,                                  \
        adapt, final_status, st->scaled_termination,                       \
        s->dualgap, st->sigma, st->alpha,                                  \
        st->eps_abs, st->eps_rel, st->eps_prim_inf,                        \
        st->eps_dual_inf, st->adaptive_rho_tolerance
    if (iters > 0) {
        GALA_TRY(qp_launch_admm(s->ctx, k, &d, ADMM_ARGS));
        gala_qp_prof(s, GALA_QP_PHASE_ITERATE);
    }
    if (check || adapt || final_status) { /* an adaptive-ρ step needs the residuals too */
        GALA_TRY(qp_launch_admm(s->ctx, kc, &d, ADMM_ARGS));
        gala_qp_prof(s, GALA_QP_PHASE_CHECK);
    }
    return GALA_OK;
#undef ADMM_ARGS
}

/* Scaling of the listed QPs: `scaling` Ruiz rounds, then the matrices and vectors scaled in
 * place (from D = E = c = 1 set by qp_init). */
static gala_status launch_scale(gala_qp_solver *s, gala_buffer *list, int nlist)
{
    gala_kernel *kn, *ku, *ka;
    GALA_TRY(gala_qp_kernel(s, "qp_scale_norms", &kn));
    GALA_TRY(gala_qp_kernel(s, "qp_scale_update", &ku));
    GALA_TRY(gala_qp_kernel(s, "qp_scale_apply", &ka));
    gala_dims d = gala_qp_dims(nlist, QP_UTIL_WG);
#define SCALE_ARGS s->b_meta, list, nlist, s->b_rowptr,                    \
        s->b_colidx,                                                       \
        s->b_vals, s->b_nvec, (long long)s->ntot, s->b_mvec,               \
        (long long)s->mtot, s->b_info
    for (int it = 0; it < s->set.scaling; ++it) {
        GALA_TRY(qp_launch_scale_norms(s->ctx, kn, &d, SCALE_ARGS));
        GALA_TRY(qp_launch_scale_norms(s->ctx, ku, &d, SCALE_ARGS));
    }
    return qp_launch_scale_apply(s->ctx, ka, &d, SCALE_ARGS, s->b_ctype, s->set.rho_is_vec);
#undef SCALE_ARGS
}

/* The device-side part of (re)scaling QPs from the raw values and the raw q, l, u already in
 * the vector buffers (the listed QPs, or every QP: list NULL or shared data): expand, init
 * (keep_rho: the per-QP strategy keeps each QP's ρ), Ruiz, and in the shared strategy the
 * reference's scaling applied to all. */
gala_status gala_qp_device_scale(gala_qp_solver *s, int keep_rho, gala_buffer *list, int nlist)
{
    gala_kernel *ke, *ki;
    GALA_TRY(gala_qp_kernel(s, "qp_expand", &ke));
    GALA_TRY(gala_qp_kernel(s, "qp_init", &ki));
    if (!list || s->same_data) {
        list = s->b_slots;
        nlist = s->nvalid;
    }
    const int nexp = s->same_data ? 1 : nlist; /* the values are stored once */
    gala_dims de = gala_qp_dims(nexp, QP_UTIL_WG), di = gala_qp_dims(nlist, QP_UTIL_WG);
    GALA_TRY(qp_launch_expand(s->ctx, ke, &de, s->b_meta, list, nexp,
                         s->b_map, s->b_raw, s->b_vals));
    GALA_TRY(qp_launch_init(s->ctx, ki, &di, s->b_meta, list,
                         nlist, s->b_state, s->b_info,
                         s->b_nvec, (long long)s->ntot, s->b_mvec,
                         (long long)s->mtot, s->b_host_status, s->set.rho,
                         s->ls->rung0, (keep_rho && !s->same_data)));
    GALA_TRY(launch_scale(s, list, nexp));
    if (s->same_data && s->nvalid > 1) {
        gala_kernel *ks;
        GALA_TRY(gala_qp_kernel(s, "qp_shared_apply", &ks));
        GALA_TRY(qp_launch_shared_apply(s->ctx, ks, &di, s->b_meta, s->b_slots,
                             s->nvalid, s->b_nvec, (long long)s->ntot,
                             s->b_mvec, (long long)s->mtot, s->b_info,
                             s->b_ctype, s->b_state, s->b_host_status,
                             s->set.rho_is_vec));
    }
    return GALA_OK;
}
