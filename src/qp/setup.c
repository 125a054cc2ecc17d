/* gala_qp_setup and gala_qp_destroy (docs/qp.md): the phases of a setup in order, and the
 * verdicts the device leaves after a factorization.
 *
 * Host work is O(data) with few allocations: one validation pass over the caller's QPs
 * (on several threads), one copy pass into slot-ordered arrays that double as upload
 * staging, sparsity patterns stored once per distinct pattern, batched uploads; everything
 * per QP and per entry after that (matrix expansion, scaling, kinds, unscaling) runs on
 * the device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"
#include "qp_polish.h"

/* The duality-gap test in force: check_dualgap, or -1 = on for double, off for float. */
int gala_qp_dualgap_of(const gala_qp_settings *s)
{
    return s->check_dualgap < 0 ? s->dtype == GALA_DOUBLE : s->check_dualgap;
}

/* Per QP (batch order): info, statuses, sizes, where its results go. hn, hm: the QPs'
 * total n and m. */
static gala_status alloc_per_qp(gala_qp_solver *s, const gala_qp_problem *pb, size_t *hn_out,
                                size_t *hm_out)
{
    const int count = s->count;
    GALA_TRY(gala_qp_alloc_per_qp(s));
    size_t hn = 0, hm = 0;
    for (int k = 0; k < count; ++k) {
        const gala_qp_problem *p = &pb[k];
        s->info[k].status = GALA_QP_UNSOLVED;
        s->slot[k] = -1;
        s->res.cert_offset[k] = SIZE_MAX;
        s->qp_n[k] = p->n > 0 ? p->n : 0;
        s->qp_m[k] = p->m > 0 ? p->m : 0;
        s->c0[k] = p->c0;
        s->res.x_offset[k] = hn;
        s->res.y_offset[k] = hm;
        hn += (size_t)s->qp_n[k];
        hm += (size_t)s->qp_m[k];
    }
    *hn_out = hn;
    *hm_out = hm;
    return GALA_OK;
}

gala_status gala_qp_alloc_per_qp(gala_qp_solver *s)
{
    const int count = s->count;
    s->info = gala_calloc((size_t)count, sizeof *s->info);
    s->host_status = gala_calloc((size_t)count, sizeof(int));
    s->slot = gala_malloc(sizeof(int) * (size_t)count);
    s->qp_of = gala_malloc(sizeof(int) * (size_t)count);
    s->qp_n = gala_malloc(sizeof(int) * 2 * (size_t)count);
    s->c0 = gala_malloc(sizeof(double) * (size_t)count);
    s->res.x_offset = gala_malloc(sizeof(size_t) * 2 * (size_t)count);
    s->res.cert_offset = gala_malloc(sizeof(size_t) * (size_t)count);
    if (!s->info || !s->host_status || !s->slot || !s->qp_of || !s->qp_n || !s->c0 ||
        !s->res.x_offset || !s->res.cert_offset)
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    s->qp_m = s->qp_n + count;
    s->res.y_offset = s->res.x_offset + count;
    return GALA_OK;
}

/* The result arrays (every QP's x and y, in batch order, at res.x_offset / res.y_offset) and
 * the NaN vector, once the QPs' sizes are known. */
static gala_status alloc_results(gala_qp_solver *s)
{
    size_t hn = 0, hm = 0, big = 1;
    for (int k = 0; k < s->count; ++k) {
        hn += (size_t)s->qp_n[k];
        hm += (size_t)s->qp_m[k];
        if ((size_t)s->qp_n[k] > big) big = (size_t)s->qp_n[k];
        if ((size_t)s->qp_m[k] > big) big = (size_t)s->qp_m[k];
    }
    s->res.x = gala_malloc(sizeof(double) * (hn ? hn : 1));
    s->res.y = gala_malloc(sizeof(double) * (hm ? hm : 1));
    s->res.nan_vec = gala_malloc(sizeof(double) * big);
    if (!s->res.x || !s->res.y || !s->res.nan_vec)
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    for (size_t i = 0; i < big; ++i) s->res.nan_vec[i] = NAN;
    return GALA_OK;
}

/* The device buffers, and the uploads of the patterns, the raw values, q, l, u (from the
 * staging sg) and the slot list. */
static gala_status upload(gala_qp_solver *s, const qp_stage *sg)
{
    const size_t nv = (size_t)s->nvalid, nrp = s->n_rowptr, nci = s->n_colidx, nmap = s->n_map;
    const gala_dtype dt = s->dt;
    const int flt = dt == GALA_FLOAT;
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, nv * QP_NMETA, &s->b_meta));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, nv, &s->b_slots));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, nv * QP_NSTATE, &s->b_state));
    GALA_TRY(gala_qp_mkbuf(s, dt, nv * QP_NINFO, &s->b_info));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, nv, &s->b_refactor));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, nv, &s->b_host_status));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, nrp, &s->b_rowptr));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, nci, &s->b_colidx));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, nmap, &s->b_map));
    GALA_TRY(gala_qp_mkbuf(s, dt, s->n_raw, &s->b_raw));
    GALA_TRY(gala_qp_mkbuf(s, dt, s->n_vals, &s->b_vals));
    GALA_TRY(gala_qp_mkbuf(s, dt, QP_NV * s->ntot, &s->b_nvec));
    GALA_TRY(gala_qp_mkbuf(s, dt, QP_MV * s->mtot, &s->b_mvec));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, s->n_ctype, &s->b_ctype));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, 2, &s->b_counts));
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, 1, &s->b_one_slot));
    GALA_TRY(gala_buffer_write(s->b_rowptr, 0, nrp, sg->ist));
    if (nci) GALA_TRY(gala_buffer_write(s->b_colidx, 0, nci, sg->ist + nrp));
    if (nmap) GALA_TRY(gala_buffer_write(s->b_map, 0, nmap, sg->ist + nrp + nci));
    if (s->n_raw) GALA_TRY(gala_buffer_write(s->b_raw, 0, s->n_raw, sg->raw));
    /* the iterates start at zero (x, x_prev; z, y, y_prev: adjacent sections); q, l, u are
     * written below, D and E by qp_init, the rest is scratch written before it is read */
    GALA_TRY(gala_buffer_fill(s->b_nvec, QP_V_X * s->ntot, 2 * s->ntot, 0));
    if (s->mtot) GALA_TRY(gala_buffer_fill(s->b_mvec, QP_V_Z * s->mtot, 3 * s->mtot, 0));
    /* the unscaled q, l, u: scaled in place on the device */
    const float *fst = sg->fst;
    const void *vq = flt ? (const void *)fst : (const void *)s->host.q;
    const void *vl = flt ? (const void *)(fst + s->ntot) : (const void *)s->host.l;
    const void *vu = flt ? (const void *)(fst + s->ntot + s->mtot) : (const void *)s->host.u;
    GALA_TRY(gala_buffer_write(s->b_nvec, QP_V_Q * s->ntot, s->ntot, vq));
    if (s->mtot) GALA_TRY(gala_buffer_write(s->b_mvec, QP_V_L * s->mtot, s->mtot, vl));
    if (s->mtot) GALA_TRY(gala_buffer_write(s->b_mvec, QP_V_U * s->mtot, s->mtot, vu));
    int *ident = gala_malloc(sizeof(int) * nv);
    if (!ident) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    for (size_t i = 0; i < nv; ++i) ident[i] = (int)i;
    gala_status st = gala_buffer_write(s->b_slots, 0, nv, ident);
    gala_free(ident);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_refactor, 0, nv, 0);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_host_status, 0, nv, 0);
    return st;
}

/* Once the strategy and its launch classes are known: start building the solver's own
 * programs together (the utility kernels, the sparse/PCG kernels where that strategy runs,
 * each class's ADMM kernels), while this thread goes on with the setup and builds what
 * src/la needs (docs/design.md, "The first call"). */
static gala_status prefetch_programs(gala_qp_solver *s)
{
    const int nc = s->ls->nclasses;
    gala_program_key *keys = gala_malloc(sizeof *keys * (size_t)(nc + 2));
    if (!keys) return GALA_OK; /* built when asked for */
    int n = 0;
    gala_qp_util_key(s, "qp_init", &keys[n++]);
    if (s->ls->ops == &gala_qp_linsys_sparse || s->ls->ops == &gala_qp_linsys_pcg)
        gala_qp_util_key(s, "qp_kkt_rhs", &keys[n++]);
    for (int i = 0; i < nc; ++i) gala_qp_key(s, &keys[n++], &s->ls->classes[i]);
    gala_status st = gala_kernel_prefetch(s->ctx, keys, n);
    gala_free(keys);
    return st;
}

/* The first phases of setup: per-QP arrays and validation (validate.c). *scan: per QP what
 * validation found, for the build (the caller frees it); *ref: the reference QP (the first
 * valid one); *same_data: every valid QP has its P, A and row kinds. */
gala_status gala_qp_setup_front(gala_qp_solver *s, const gala_qp_problem *pb, qp_scan **scan,
                                int *ref, int *same_data)
{
    size_t hn = 0, hm = 0;
    *scan = NULL;
    *ref = 0;
    *same_data = 0;
    GALA_TRY(alloc_per_qp(s, pb, &hn, &hm));
    *scan = gala_calloc((size_t)s->count, sizeof **scan);
    if (!*scan) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    return gala_qp_validate(s, pb, hn, hm, *scan, ref, same_data);
}

/* The rest of setup, phase by phase, on validated QPs: the result arrays, the strategy
 * (linsys.c; ops, when given, instead of the settings' choice), patterns and layout
 * (layout.c), uploads, the strategy's object, scaling and the first factorization on the
 * device, then the verdicts the device left. */
gala_status gala_qp_setup_build(gala_qp_solver *s, const gala_qp_problem *pb, const qp_scan *scan,
                                int ref, int same_data, const qp_linsys_ops *ops)
{
    qp_stage sg = {0, NULL, NULL, NULL, 0};
    gala_status st = alloc_results(s);
    if (st != GALA_OK || s->nvalid == 0) return st;
    /* the strategy before the layout: the shared one stores the values once */
    if (!ops) st = gala_qp_linsys_choose(s, same_data, &ops);
    if (st != GALA_OK) return st;
    s->same_data = ops == &gala_qp_linsys_shared;
    st = gala_qp_assign_patterns(s, pb, scan, ref);
    if (st == GALA_OK) st = gala_qp_layout(s, pb, ref, &sg);
    if (st == GALA_OK) st = gala_qp_host_copies(s, pb, &sg);
    gala_qp_prof(s, GALA_QP_PHASE_LAYOUT);
    if (st == GALA_OK) st = upload(s, &sg);
    gala_qp_stage_free(s, &sg);
    if (st == GALA_OK) st = gala_qp_linsys_make(s, ops, &s->ls); /* K, ladder, launch lists */
    if (st == GALA_OK) st = prefetch_programs(s);
    if (st == GALA_OK) st = gala_qp_active_setup(s);
    if (st == GALA_OK) st = gala_buffer_write(s->b_meta, 0, (size_t)s->nvalid * QP_NMETA, s->meta);
    gala_qp_prof(s, GALA_QP_PHASE_UPLOAD);
    if (st == GALA_OK) st = gala_qp_device_scale(s, 0, NULL, 0);
    gala_qp_prof(s, GALA_QP_PHASE_SCALE);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_refactor, 0, (size_t)s->nvalid, 1);
    if (st == GALA_OK) st = s->ls->ops->update_matrices(s->ls, s);
    gala_qp_stage_free(s, &sg);
    if (st == GALA_OK) st = gala_finish(s->ctx);
    if (st == GALA_OK) st = gala_qp_read_hstat(s);
    if (st == GALA_OK) st = gala_qp_read_factor_status(s);
    return st;
}

/* Device-decided invalidity (shared strategy: a row kind differs from the batch's after
 * scaling): the QPs' info says so. hst: the device's hstat, per slot. */
static void apply_hstat(gala_qp_solver *s, const int *hst)
{
    for (int sl = 0; sl < s->nvalid; ++sl) {
        const int k = s->qp_of[sl];
        if (hst[sl] >= QP_H_KIND && !s->host_status[k]) {
            s->info[k].status = GALA_QP_INVALID_DATA;
            snprintf(s->info[k].message, sizeof s->info[k].message, "row %d's kind differs from "
                     "the shared pattern after scaling", hst[sl] - QP_H_KIND);
        } else if (hst[sl] == 0 && !s->host_status[k] && s->info[k].status == GALA_QP_INVALID_DATA) {
            s->info[k].status = GALA_QP_UNSOLVED;
            s->info[k].message[0] = 0;
        }
    }
}

gala_status gala_qp_read_hstat(gala_qp_solver *s)
{
    if (!s->same_data || !s->nvalid) return GALA_OK;
    int *hst = gala_malloc(sizeof(int) * (size_t)s->nvalid);
    if (!hst) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = gala_buffer_read(s->b_host_status, 0, (size_t)s->nvalid, hst);
    if (st == GALA_OK) apply_hstat(s, hst);
    gala_free(hst);
    return st;
}

/* After setup or a refactorization (gala_qp_update_matrices): a QP whose K the device found
 * not positive definite has NON_CVX in its state; put it into info, so that gala_qp_get_info
 * reports it before any solve (as OSQP's setup and update fail there), and a QP that was
 * NON_CVX and factors now is UNSOLVED again. */
gala_status gala_qp_read_factor_status(gala_qp_solver *s)
{
    if (!s->nvalid) return GALA_OK;
    const size_t nv = (size_t)s->nvalid;
    int *stt = gala_malloc(sizeof(int) * nv * QP_NSTATE);
    if (!stt) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = gala_buffer_read(s->b_state, 0, nv * QP_NSTATE, stt);
    for (size_t sl = 0; st == GALA_OK && sl < nv; ++sl) {
        const int k = s->qp_of[sl];
        if (s->host_status[k]) continue;
        if (stt[sl * QP_NSTATE + QP_S_STATUS] == GALA_QP_NON_CVX) {
            s->info[k].status = GALA_QP_NON_CVX;
            s->info[k].obj_val = NAN;
        } else if (s->info[k].status == GALA_QP_NON_CVX) {
            s->info[k].status = GALA_QP_UNSOLVED;
        }
    }
    gala_free(stt);
    return st;
}

/* The setup of gala_qp_setup (nctx = 1) and gala_qp_setup_devices: arguments checked. */
static gala_status setup_on(gala_context *const *ctxs, int nctx, const double *weights,
                            const gala_qp_problem *problems, int count,
                            const gala_qp_settings *set, gala_qp_solver **solver)
{
    gala_context *ctx = ctxs[0];
    double t0 = gala_now();
    gala_qp_solver *s = gala_calloc(1, sizeof *s);
    if (!s) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    s->ctx = ctx;
    s->set = *set;
    s->dt = set->dtype;
    s->count = count;
    s->ndev = nctx;
    s->nthreads = 1;
    s->dualgap = gala_qp_dualgap_of(set);
    /* Float refines every solve by default, with K as an explicit inverse or as a Cholesky
     * factor (qp.factor = 2): without the step the factor path stalled at max_iter on an
     * equality QP whose first row became an inequality (75 iterations with it). */
    s->k_factored = gala_tuned(ctx, s->dt)->qp.factor == 2;
    s->refine = set->refine < 0 ? set->dtype == GALA_FLOAT : set->refine;
    s->prof_mark = t0;
    s->nvis = count;
    qp_scan *scan = NULL;
    int ref = 0, same_data = 0, one = 1;
    gala_status st = gala_qp_setup_front(s, problems, &scan, &ref, &same_data);
    /* a batch whose device workspace does not fit is solved in chunks, a batch on several
     * devices in chunks on each (chunk.c) */
    if (st == GALA_OK)
        st = gala_qp_chunked_setup(s, problems, scan, ref, same_data, ctxs, nctx, weights, &one);
    if (st == GALA_OK && one) st = gala_qp_setup_build(s, problems, scan, ref, same_data, NULL);
    gala_free(scan);
    gala_qp_prof(s, GALA_QP_PHASE_SETUP_OTHER);
    if (st != GALA_OK) {
        gala_qp_destroy(s);
        return st;
    }
    s->setup_time = gala_now() - t0;
    if (s->chunks) gala_qp_chunked_setup_time(s);
    else
        for (int k = 0; k < count; ++k) s->info[k].setup_time = s->setup_time;
    *solver = s;
    return GALA_OK;
}

gala_status gala_qp_setup(gala_context *ctx, const gala_qp_problem *problems, int count,
                          const gala_qp_settings *settings, gala_qp_solver **solver)
{
    static const char fn[] = "gala_qp_setup";
    if (solver) *solver = NULL;
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (!problems || !solver) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: NULL argument", fn);
    if (count < 1) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: count = %d < 1", fn, count);
    gala_qp_settings set;
    if (settings) set = *settings;
    else gala_qp_settings_default(&set);
    GALA_TRY(gala_qp_settings_validate(ctx, fn, &set));
    GALA_TRY(gala_check_float_type(ctx, fn, set.dtype));
    return setup_on(&ctx, 1, NULL, problems, count, &set, solver);
}

gala_status gala_qp_setup_devices(gala_context *const *ctxs, int nctx, const double *weights,
                                  const gala_qp_problem *problems, int count,
                                  const gala_qp_settings *settings, gala_qp_solver **solver)
{
    static const char fn[] = "gala_qp_setup_devices";
    if (solver) *solver = NULL;
    if (!ctxs) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: ctxs is NULL", fn);
    if (nctx < 1) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: nctx = %d < 1", fn, nctx);
    for (int d = 0; d < nctx; ++d) {
        if (!ctxs[d])
            return gala_error(d ? ctxs[0] : NULL, GALA_ERR_INVALID_ARG, "%s: ctxs[%d] is NULL",
                              fn, d);
        GALA_TRY(gala_check_ctx(ctxs[d], fn));
    }
    gala_context *ctx = ctxs[0];
    for (int d = 0; d < nctx; ++d)
        for (int e = 0; e < d; ++e)
            if (ctxs[d] == ctxs[e])
                return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: ctxs[%d] is ctxs[%d] (one "
                                  "context per device: a context is used by one thread)", fn, d, e);
    for (int d = 0; weights && d < nctx; ++d)
        if (!(weights[d] > 0) || !isfinite(weights[d]))
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: weights[%d] = %g must be positive "
                              "and finite", fn, d, weights[d]);
    if (!problems || !solver) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: NULL argument", fn);
    if (count < 1) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: count = %d < 1", fn, count);
    gala_qp_settings set;
    if (settings) set = *settings;
    else gala_qp_settings_default(&set);
    GALA_TRY(gala_qp_settings_validate(ctx, fn, &set));
    for (int d = 0; d < nctx; ++d) {
        gala_status st = gala_check_float_type(ctxs[d], fn, set.dtype);
        if (st != GALA_OK)
            return d ? gala_error(ctx, st, "%s: ctxs[%d]: %s", fn, d, gala_last_error(ctxs[d])) : st;
    }
    return setup_on(ctxs, nctx, weights, problems, count, &set, solver);
}

gala_status gala_qp_destroy(gala_qp_solver *s)
{
    if (!s) return GALA_OK;
    gala_qp_chunks_free(s);
    gala_qp_dio_release(s);
    gala_qp_deriv_release(s);
    gala_qp_kkt_orders_free(s);
    gala_qp_kept_free(s->kept, s->count);
    gala_free(s->kept);
    gala_qp_linsys_destroy(s->ls);
    gala_buffer *bufs[] = {s->b_meta,     s->b_slots,  s->b_one_slot,   s->b_state,
                           s->b_info,     s->b_refactor, s->b_host_status, s->b_rowptr,
                           s->b_colidx,   s->b_map,    s->b_raw,        s->b_vals,
                           s->b_nvec,     s->b_mvec,   s->b_ctype,      s->b_counts,
                           s->b_chunk_counts, s->b_class_counts};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) gala_buffer_free(bufs[i]);
    /* what lives in the staging block goes back with it */
    const int in_stg = s->staging && s->dt == GALA_DOUBLE;
    if (in_stg && s->res.x == s->host.q + s->ntot + 2 * s->mtot + 1) s->res.x = s->res.y = NULL;
    if (in_stg) s->host.q = NULL;
    if (s->vals_staged) s->host.vals = NULL;
    gala_staging_give(s->ctx, s->staging);
    void *ptrs[] = {s->info,     s->host_status, s->slot,      s->qp_of,
                    s->qp_n,     s->c0,          s->p_pattern, s->patterns,
                    s->pattern_mem, s->host.q,   s->host.vals, s->meta,
                    s->res.x_offset, s->res.x,   s->res.y,     s->res.cert,
                    s->res.cert_offset, s->res.nan_vec, s->plan_class};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; ++i) gala_free(ptrs[i]);
    gala_free(s);
    return GALA_OK;
}

int gala_qp_count(const gala_qp_solver *s) { return s ? s->count : 0; }
int gala_qp_chunk_count(const gala_qp_solver *s)
{
    return s ? (s->chunks ? gala_qp_chunked_count(s) : 1) : 0;
}
int gala_qp_device_count(const gala_qp_solver *s)
{
    return s ? (s->chunks ? gala_qp_chunked_ndev(s) : s->ndev) : 0;
}

gala_status gala_qp_device_share(const gala_qp_solver *s, int d, int *k0, int *count, int *chunks)
{
    static const char fn[] = "gala_qp_device_share";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    const int nd = gala_qp_device_count(s);
    if (d < 0 || d >= nd)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: d = %d outside 0..%d", fn, d, nd - 1);
    int a = 0, n = d == 0 ? s->count : 0, c = d == 0; /* one batch: all on the first device */
    if (s->chunks) gala_qp_chunked_part(s, d, &a, &n, &c);
    else if (d > 0) a = s->count;
    if (k0) *k0 = a;
    if (count) *count = n;
    if (chunks) *chunks = c;
    return GALA_OK;
}

int gala_qp_linsys_used(const gala_qp_solver *s)
{
    if (s && s->chunks) return gala_qp_chunked_linsys(s);
    return s ? (s->ls ? s->ls->ops->id : GALA_QP_LINSYS_DENSE) : -1;
}

