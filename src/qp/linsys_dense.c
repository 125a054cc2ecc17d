/* Linear-system strategies of the QP solver (docs/qp.md):
 *   dense  — per QP, K = P + σI + Aᵀdiag(ρ)A formed and inverted on the device; the ADMM
 *            kernel applies K⁻¹ as a matrix-vector product; QPs launched in size classes.
 *   shared — every QP has the same P and A: a ladder of K⁻¹ for ρ = rho·ratio^k is formed
 *            once; a work-group runs a tile of TB QPs, whose x̃ = K⁻¹[r_1 … r_TB] is a
 *            matrix-matrix product; adaptive ρ moves a QP to the nearest rung.
 * The sparse KKT LDLᵀ strategy is in linsys_sparse.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"

/* The dense strategy's object: K⁻¹ per QP at its QP_M_KO, the size classes. */
typedef struct {
    qp_linsys base;
    gala_buffer *kofs;  /* per slot: its K⁻¹'s offset (KALIGN units) */
    gala_buffer *jinfo; /* per slot: qp_chol_inv's info */
} qp_dense;

/* The shared strategy's object: a ladder of K⁻¹, one per ρ rung, for every QP. */
typedef struct {
    qp_linsys base;
    double *rho;        /* per rung: its ρ (host copy of base.ladder_rho) */
    int *ok;            /* per rung: its K was factored (host copy of base.rung_ok) */
    gala_buffer *jqp;   /* per rung: the QP whose P, A it forms (slot 0) */
    gala_buffer *kofs;  /* per rung: its K⁻¹'s offset */
    gala_buffer *flag;  /* per rung: refactor it */
    gala_buffer *jinfo; /* per rung: qp_chol_inv's info */
} qp_ladder;

static size_t kalign(size_t n) { return (n + QP_KALIGN - 1) / QP_KALIGN * QP_KALIGN; }

/* Capacity classes of the local vectors: multiples of 32 up to 128, then steps of ×3/2 and
 * ×4/3 (192, 256, 384, 512, 768, ...): the vectors fit local memory tightly (occupancy)
 * while a heterogeneous batch builds few programs. */
static int cap_class(int v)
{
    int c = 32;
    while (c < v) c = c < 128 ? c + 32 : (c % 3 == 0 ? c / 3 * 4 : c / 2 * 3);
    return c;
}

static int round32(int v) { return (v + 31) / 32 * 32; }

/* b bytes of local memory, at most the device's limit less 1 KiB */
static size_t local_cap(const gala_qp_solver *s, size_t b)
{
    if (s->ctx->info.local_mem_bytes && b > s->ctx->info.local_mem_bytes - 1024)
        b = s->ctx->info.local_mem_bytes - 1024;
    return b;
}

/* Local memory one work-group may use (qp.local_bytes; NVIDIA's OpenCL allows 48 KiB). */
static size_t local_budget(const gala_qp_solver *s)
{
    return local_cap(s, (size_t)gala_tuned(s->ctx, s->dt)->qp.local_bytes);
}

/* Largest work-group (qp.wg, a multiple of 32). */
static int max_wg(const gala_qp_solver *s)
{
    int wg = (int)gala_tuned(s->ctx, s->dt)->qp.wg; /* the table's value */
    if ((size_t)wg > s->ctx->info.max_work_group_size) wg = (int)s->ctx->info.max_work_group_size;
    wg = wg / 32 * 32;
    return wg < 32 ? 32 : wg;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* The launch class of a QP of n variables and m rows, alone in its work-group (TB = 1):
 * local capacities from the classes, KS column slices of the K⁻¹ product (qp.ks, for
 * n <= 256), a work-group of KS·cap(n) work-items (the K⁻¹ product in one pass); vectors
 * in global memory when they do not fit. */
static qp_bin class_for(const gala_qp_solver *s, int n, int m, size_t budget, int wgmax)
{
    qp_bin c;
    memset(&c, 0, sizeof c);
    c.tb = 1;
    c.rb = 1;
    c.ncap = cap_class(n);
    c.mcap = cap_class(m > 0 ? m : 1);
    c.ks = c.ncap <= 256 ? clampi((int)gala_tuned(s->ctx, s->dt)->qp.ks, 1, 4) : 1;
    c.wg = clampi(round32(c.ncap) * c.ks, 64, wgmax);
    c.vlocal = 1;
    if (gala_qp_admm_local_bytes(s, &c) > budget) {
        c.ks = 1;
        c.wg = clampi(c.wg, 64, 256 < wgmax ? 256 : wgmax);
        c.vlocal = gala_qp_admm_local_bytes(s, &c) <= budget;
    }
    if (!c.vlocal) c.ncap = c.mcap = 1;
    return c;
}

/* ------------------------------------------------------------------ dense, per QP */

typedef struct { int sl, n; } slot_n;
static int by_n_desc(const void *a, const void *b)
{
    const slot_n *x = a, *y = b;
    return x->n != y->n ? (y->n > x->n ? 1 : -1) : (x->sl - y->sl);
}

static int same_class(const qp_bin *a, const qp_bin *b)
{
    return a->wg == b->wg && a->ncap == b->ncap && a->mcap == b->mcap && a->vlocal == b->vlocal &&
           a->ks == b->ks && a->rb == b->rb;
}

/* Launch classes of fewer than qp.min_bin QPs (default: two per compute unit) keep most of
 * the device idle while their launch runs, and the classes of a batch run one after the
 * other. Their QPs are regrouped, largest first, into groups of at least min_bin whose
 * class covers the group's largest n and m (smaller QPs then run with larger local
 * capacities and work-groups); classes of min_bin QPs or more stay as they are. Returns
 * the new number of classes; bins and bin_of are rewritten. */
static int merge_small(const gala_qp_solver *s, qp_bin *bins, int nb, int *bin_of,
                       const slot_n *order, size_t nv, const int *qn, const int *qm,
                       size_t budget, int wgmax)
{
    const long cu = s->ctx->info.compute_units > 0 ? s->ctx->info.compute_units : 1;
    const long mb = gala_tuned(s->ctx, s->dt)->qp.min_bin;
    const long min_bin = mb < 0 ? 2 * cu : mb;
    int small = 0;
    for (int b = 0; b < nb; ++b) small += bins[b].count < min_bin;
    if (min_bin <= 1 || small < 2) return nb;
    /* per slot its group; per group its largest n and m; per old class then per group the
     * new class (at most nv groups) */
    int *grp = gala_malloc(sizeof(int) * nv);
    int *gmax = gala_calloc(2 * nv, sizeof(int));
    int *newb = gala_malloc(sizeof(int) * ((size_t)nb + nv));
    qp_bin *nbins = gala_calloc((size_t)nb + nv, sizeof(qp_bin));
    if (!grp || !gmax || !newb || !nbins) { /* no memory: keep the tight classes */
        gala_free(grp);
        gala_free(gmax);
        gala_free(newb);
        gala_free(nbins);
        return nb;
    }
    int ng = 0, gcount = 0;
    for (size_t i = 0; i < nv; ++i) {
        const int sl = order[i].sl;
        grp[sl] = -1;
        if (bins[bin_of[sl]].count >= min_bin) continue;
        if (gcount >= min_bin) {
            ++ng;
            gcount = 0;
        }
        grp[sl] = ng;
        ++gcount;
        if (qn[sl] > gmax[2 * ng]) gmax[2 * ng] = qn[sl];
        if (qm[sl] > gmax[2 * ng + 1]) gmax[2 * ng + 1] = qm[sl];
    }
    if (ng > 0 && gcount < min_bin) { /* a short last group joins the one before it */
        for (size_t sl = 0; sl < nv; ++sl)
            if (grp[sl] == ng) grp[sl] = ng - 1;
        --ng;
    }
    int nn = 0;
    for (int b = 0; b < nb; ++b) {
        newb[b] = -1;
        if (bins[b].count < min_bin) continue;
        nbins[nn] = bins[b];
        nbins[nn].count = 0;
        newb[b] = nn++;
    }
    for (int g = 0; g <= ng; ++g) {
        qp_bin c = class_for(s, gmax[2 * g], gmax[2 * g + 1], budget, wgmax);
        int b;
        for (b = 0; b < nn && !same_class(&nbins[b], &c); ++b) {}
        if (b == nn) nbins[nn++] = c;
        newb[nb + g] = b;
    }
    for (size_t sl = 0; sl < nv; ++sl) {
        bin_of[sl] = grp[sl] >= 0 ? newb[nb + grp[sl]] : newb[bin_of[sl]];
        nbins[bin_of[sl]].count++;
    }
    memcpy(bins, nbins, sizeof(qp_bin) * (size_t)nn);
    gala_free(newb);
    gala_free(grp);
    gala_free(gmax);
    gala_free(nbins);
    return nn;
}

static void dense_destroy(qp_linsys *ls)
{
    qp_dense *d = (qp_dense *)ls;
    gala_qp_linsys_release_base(ls);
    gala_buffer_free(d->kofs);
    gala_buffer_free(d->jinfo);
    gala_free(d);
}

gala_status gala_qp_dense_classes(const gala_qp_solver *s, const int *n, const int *m, int nvi,
                                  qp_bin **bins_out, int *nb_out, int *bin_of)
{
    const size_t nv = (size_t)nvi;
    *bins_out = NULL;
    *nb_out = 0;
    slot_n *order = gala_malloc(sizeof(slot_n) * (nv ? nv : 1));
    qp_bin *bins = gala_calloc(nv ? nv : 1, sizeof(qp_bin));
    if (!order || !bins) {
        gala_free(order);
        gala_free(bins);
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    const size_t budget = local_budget(s);
    const int wgmax = max_wg(s);
    int nb = 0;
    for (size_t sl = 0; sl < nv; ++sl) {
        qp_bin c = class_for(s, n[sl], m[sl], budget, wgmax);
        int b;
        for (b = 0; b < nb && !same_class(&bins[b], &c); ++b) {}
        if (b == nb) bins[nb++] = c;
        bins[b].count++;
        bin_of[sl] = b;
        order[sl].sl = (int)sl;
        order[sl].n = n[sl];
    }
    qsort(order, nv, sizeof *order, by_n_desc);
    nb = merge_small(s, bins, nb, bin_of, order, nv, n, m, budget, wgmax);
    gala_free(order);
    *bins_out = bins;
    *nb_out = nb;
    return GALA_OK;
}

/* The classes of this batch's slots: its own (gala_qp_dense_classes), or in a chunk those
 * the whole batch gives its QPs (s->plan_class; merge_small's groups depend on the batch,
 * and a class's local sizes and work-group set the order of a QP's sums). */
static gala_status slot_classes(const gala_qp_solver *s, qp_bin **bins_out, int *nb_out,
                                int *bin_of)
{
    const size_t nv = (size_t)s->nvalid;
    if (!s->plan_class) {
        int *nm = gala_malloc(sizeof(int) * 2 * nv);
        if (!nm) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
        for (size_t sl = 0; sl < nv; ++sl) {
            nm[sl] = s->meta[sl * QP_NMETA + QP_M_N];
            nm[nv + sl] = s->meta[sl * QP_NMETA + QP_M_M];
        }
        gala_status st = gala_qp_dense_classes(s, nm, nm + nv, (int)nv, bins_out, nb_out, bin_of);
        gala_free(nm);
        return st;
    }
    /* the plan's classes that this chunk uses, in the plan's order */
    int *map = gala_malloc(sizeof(int) * (size_t)(s->plan_nb > 0 ? s->plan_nb : 1));
    qp_bin *bins = gala_calloc(nv ? nv : 1, sizeof(qp_bin));
    if (!map || !bins) {
        gala_free(map);
        gala_free(bins);
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    for (int b = 0; b < s->plan_nb; ++b) map[b] = -1;
    for (size_t sl = 0; sl < nv; ++sl) map[s->plan_class[sl]] = 0;
    int nb = 0;
    for (int b = 0; b < s->plan_nb; ++b)
        if (map[b] == 0) {
            bins[nb] = s->plan_bins[b];
            bins[nb].count = 0;
            map[b] = nb++;
        }
    for (size_t sl = 0; sl < nv; ++sl) {
        bin_of[sl] = map[s->plan_class[sl]];
        bins[bin_of[sl]].count++;
    }
    gala_free(map);
    *bins_out = bins;
    *nb_out = nb;
    return GALA_OK;
}

static gala_status dense_setup(gala_qp_solver *s, qp_linsys **out)
{
    gala_context *ctx = s->ctx;
    qp_dense *dn = gala_calloc(1, sizeof *dn);
    if (!dn) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    dn->base.ops = &gala_qp_linsys_dense;
    dn->base.own_lists = 1;
    *out = &dn->base;
    size_t nv = (size_t)s->nvalid, ko = 0;
    int *kofs = gala_malloc(sizeof(int) * nv);
    int *bin_of = gala_malloc(sizeof(int) * nv);
    slot_n *order = gala_malloc(sizeof(slot_n) * nv);
    qp_bin *bins = NULL;
    int *list = gala_malloc(sizeof(int) * nv);
    gala_status st = GALA_OK;
    if (!kofs || !bin_of || !order || !list)
        st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    int nb = 0;
    for (size_t sl = 0; st == GALA_OK && sl < nv; ++sl) {
        int *mt = s->meta + sl * QP_NMETA;
        int n = mt[QP_M_N];
        if (ko / QP_KALIGN > 0x7fffffffu)
            st = gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: the dense matrices of "
                            "the batch are too large");
        mt[QP_M_KO] = kofs[sl] = (int)(ko / QP_KALIGN);
        ko += kalign((size_t)n * (size_t)n);
        order[sl].sl = (int)sl;
        order[sl].n = n;
    }
    if (st == GALA_OK) st = slot_classes(s, &bins, &nb, bin_of);
    if (st == GALA_OK) st = gala_buffer_create(ctx, s->dt, ko ? ko : 1, &dn->base.K);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, nv, &dn->kofs);
    if (st == GALA_OK) st = gala_buffer_write(dn->kofs, 0, nv, kofs);
    if (st == GALA_OK) st = gala_qp_launch_dummies(s, &dn->base);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, nv, &dn->jinfo);
    /* per bin, the QPs largest first (the long work-groups start early) */
    if (st == GALA_OK) qsort(order, nv, sizeof *order, by_n_desc);
    if (st == GALA_OK) {
        dn->base.classes = bins;
        dn->base.nclasses = nb;
        bins = NULL;
    }
    qp_bin *cls = dn->base.classes;
    for (int b = 0; st == GALA_OK && b < nb; ++b) {
        int cnt = 0;
        double n2 = 0;
        for (size_t i = 0; i < nv; ++i)
            if (bin_of[order[i].sl] == b) {
                list[cnt++] = order[i].sl;
                n2 += (double)order[i].n * order[i].n;
            }
        cls[b].kq = cnt ? n2 / cnt : 0;
        st = gala_buffer_create(ctx, GALA_INT, (size_t)cnt, &cls[b].list);
        if (st == GALA_OK) st = gala_buffer_write(cls[b].list, 0, (size_t)cnt, list);
    }
    gala_free(kofs);
    gala_free(bin_of);
    gala_free(order);
    gala_free(bins);
    gala_free(list);
    return st;
}

static gala_status form_and_invert(gala_qp_solver *s, gala_buffer *K, gala_buffer *jqp, gala_buffer *jko,
                                   gala_buffer *jrho, int jrs, int jro, gala_buffer *flag,
                                   int njobs, gala_buffer *jinfo, int set_status)
{
    gala_kernel *kf, *ki;
    GALA_TRY(gala_qp_kernel(s, "qp_form_k", &kf));
    GALA_TRY(gala_qp_kernel(s, "qp_chol_inv", &ki));
    gala_dims d = gala_dims_1d((size_t)(njobs > 0 ? njobs : 1) * QP_UTIL_WG, QP_UTIL_WG);
    /* the sweep works on the full matrix */
    GALA_TRY(qp_launch_form_k(s->ctx, kf, &d, s->b_meta, jqp, jko,
                         jrho, jrs, jro, flag, njobs,
                         s->b_rowptr, s->b_colidx, s->b_vals, s->b_ctype,
                         K, s->set.sigma, 0));
    gala_qp_prof(s, GALA_QP_PHASE_FORM_K);
    GALA_TRY(qp_launch_chol_inv(s->ctx, ki, &d, s->b_meta, jqp, jko, flag,
                       njobs, K, jinfo, s->b_state,
                       set_status));
    gala_qp_prof(s, GALA_QP_PHASE_FACTOR);
    return GALA_OK;
}

/* The programs of potrf and potri for these orders and offsets queued on the build threads
 * (a dry pass of both calls: src/core/kernel.h, gala_dry_begin), so that their eight or so
 * programs compile together rather than one after another as the calls ask for them. */
static void la_queue(gala_qp_solver *s, const int *nn, gala_buffer *K, const size_t *off,
                     const int *lda, int cnt, int *info)
{
    if (!gala_dry_begin(s->ctx)) return;
    (void)gala_potrf_vbatched(s->ctx, GALA_LOWER, nn, K, off, nn, cnt, info);
    (void)gala_potri_vbatched(s->ctx, GALA_LOWER, nn, K, off, lda, cnt, info);
    gala_dry_end(s->ctx);
    gala_error_clear(s->ctx);
}

/* The library path: K formed by qp_form_k (lower triangle), factored by
 * gala_potrf_vbatched (lower), inverted by gala_potri_vbatched, mirrored by qp_mirror. The
 * flags are read back (the vbatched calls take host arrays) unless all_flagged says every
 * job is flagged: fail[j] receives the job's potrf info (> 0: K not positive definite).
 * jqp_h / jko_h: host copies of the job arrays. */
static gala_status la_invert(gala_qp_solver *s, gala_buffer *K, gala_buffer *jqp, gala_buffer *jko,
                             gala_buffer *jrho, int jrs, int jro, gala_buffer *flag, int njobs,
                             const int *jqp_h, const int *jko_h, int *fail, int all_flagged)
{
    int *fl = gala_malloc(sizeof(int) * (size_t)njobs * 5);
    size_t *off = gala_malloc(sizeof(size_t) * (size_t)njobs);
    if (!fl || !off) {
        gala_free(fl);
        gala_free(off);
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    }
    /* per listed job: order, info, job index, leading dimension (at least 1: potri's) */
    int *nn = fl + njobs, *info = fl + 2 * njobs, *idx = fl + 3 * njobs, *lda = fl + 4 * njobs;
    gala_status st = GALA_OK;
    if (all_flagged)
        for (int g = 0; g < njobs; ++g) fl[g] = 1;
    else
        st = gala_buffer_read(flag, 0, (size_t)njobs, fl);
    int cnt = 0;
    for (int g = 0; st == GALA_OK && g < njobs; ++g) {
        fail[g] = 0;
        if (!fl[g]) continue;
        idx[cnt] = g;
        nn[cnt] = s->meta[(size_t)jqp_h[g] * QP_NMETA + QP_M_N];
        lda[cnt] = nn[cnt] > 0 ? nn[cnt] : 1;
        off[cnt] = (size_t)jko_h[g] * QP_KALIGN;
        ++cnt;
    }
    gala_kernel *kf, *km;
    if (st == GALA_OK) st = gala_qp_kernel(s, "qp_form_k", &kf);
    if (st == GALA_OK) st = gala_qp_kernel(s, "qp_mirror", &km);
    gala_dims d = gala_dims_1d((size_t)(njobs > 0 ? njobs : 1) * QP_UTIL_WG, QP_UTIL_WG);
    if (st == GALA_OK && cnt)
        st = qp_launch_form_k(s->ctx, kf, &d, s->b_meta, jqp, jko, jrho,
                         jrs, jro, flag, njobs, s->b_rowptr,
                         s->b_colidx, s->b_vals, s->b_ctype, K,
                         s->set.sigma, 1);
    gala_qp_prof(s, GALA_QP_PHASE_FORM_K);
    if (st == GALA_OK && cnt && !s->ls->la_queued) {
        la_queue(s, nn, K, off, lda, cnt, info);
        s->ls->la_queued = 1;
    }
    if (st == GALA_OK && cnt) {
        gala_status f = gala_potrf_vbatched(s->ctx, GALA_LOWER, nn, K, off, nn, cnt, info);
        if (f != GALA_OK && f != GALA_ERR_NOT_POSITIVE_DEFINITE && f != GALA_ERR_NOT_FINITE) st = f;
        /* invert only the factored ones: failed ones become order 0 (skipped) */
        for (int c = 0; c < cnt; ++c)
            if (info[c] != 0) {
                fail[idx[c]] = info[c] > 0 ? info[c] : -info[c];
                nn[c] = 0;
                lda[c] = 1;
            }
        if (st == GALA_OK) {
            f = gala_potri_vbatched(s->ctx, GALA_LOWER, nn, K, off, lda, cnt, info);
            if (f != GALA_OK && f != GALA_ERR_SINGULAR && f != GALA_ERR_NOT_FINITE) st = f;
            for (int c = 0; st == GALA_OK && c < cnt; ++c)
                if (nn[c] > 0 && info[c] != 0) fail[idx[c]] = nn[c];
        }
        if (st == GALA_OK) gala_error_clear(s->ctx);
        /* mirror the good ones and clear every flag */
        for (int g = 0; st == GALA_OK && g < njobs; ++g)
            if (fl[g] && fail[g]) {
                int z = 0;
                st = gala_buffer_write(flag, (size_t)g, 1, &z);
            }
        if (st == GALA_OK)
            st = qp_launch_mirror(s->ctx, km, &d, s->b_meta, jqp, jko,
                             flag, njobs, K);
        if (st == GALA_OK) st = gala_buffer_fill(flag, 0, (size_t)njobs, 0);
    }
    gala_qp_prof(s, GALA_QP_PHASE_FACTOR);
    gala_free(fl);
    gala_free(off);
    return st;
}

/* Which factorization: 1 = gala_potrf + gala_potri (src/la); 0 = the fused sweep kernel
 * (qp_chol_inv, K⁻¹); 2 = qp_chol_inv keeping the Cholesky factor (KFAC: the host backend's
 * kernels solve with it every iteration). Tuning key qp.factor (docs/qp.md). */
static int use_la(const gala_qp_solver *s) { return gala_tuned(s->ctx, s->dt)->qp.factor == 1; }

static gala_status dense_refactor(qp_dense *dn, gala_qp_solver *s, int all_flagged)
{
    if (!use_la(s))
        return form_and_invert(s, dn->base.K, s->b_slots, dn->kofs, s->b_info, QP_NINFO,
                               QP_I_RHO, s->b_refactor, s->nvalid, dn->jinfo, 1);
    int nv = s->nvalid;
    int *ident = gala_malloc(sizeof(int) * (size_t)nv * 3);
    if (!ident) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    int *kofs = ident + nv, *fail = ident + 2 * nv;
    for (int i = 0; i < nv; ++i) {
        ident[i] = i;
        kofs[i] = s->meta[(size_t)i * QP_NMETA + QP_M_KO];
    }
    gala_status st = la_invert(s, dn->base.K, s->b_slots, dn->kofs, s->b_info, QP_NINFO,
                               QP_I_RHO, s->b_refactor, nv, ident, kofs, fail, all_flagged);
    /* K not positive definite: that QP is non-convex (as qp_chol_inv with set_status) */
    for (int i = 0; st == GALA_OK && i < nv; ++i)
        if (fail[i]) {
            int v = GALA_QP_NON_CVX;
            st = gala_buffer_write(s->b_state, (size_t)i * QP_NSTATE + QP_S_STATUS, 1, &v);
        }
    gala_free(ident);
    return st;
}

static gala_status dense_update_rho(qp_linsys *ls, gala_qp_solver *s)
{
    return dense_refactor((qp_dense *)ls, s, 0);
}

static gala_status dense_update_matrices(qp_linsys *ls, gala_qp_solver *s)
{
    return dense_refactor((qp_dense *)ls, s, 1);
}

/* Launch classes run one after the other on one queue, and the last work-groups of a class
 * (its largest QPs) leave most of the device idle until they end. With qp.lanes (default
 * 1) and more than one class, the classes are spread over the backend's two lanes, each
 * class to the lane with less work so far (running QPs × their mean n², the K⁻¹ product's
 * reads), so that one class's tail overlaps the next class. The classes touch disjoint
 * QPs' state; lane 1 first waits for the work before it, and lane 0 then waits for lane 1,
 * so that what follows (counts, refactorization) sees every class done. Backends without
 * lanes (host) run the classes in order. */
static gala_status dense_solve(qp_linsys *ls, gala_qp_solver *s, int iters, int check,
                               int adapt, int fin)
{
    const int nb = ls->nclasses;
    const qp_bin *bins = ls->classes;
    int live = 0;
    for (int b = 0; b < nb; ++b) live += bins[b].acount > 0;
    if (live < 2 || gala_tuned(s->ctx, s->dt)->qp.lanes == 0) {
        for (int b = 0; b < nb; ++b)
            GALA_TRY(gala_qp_launch_admm(s, ls, &bins[b], iters, check, adapt, fin));
        return GALA_OK;
    }
    double work[2] = {0, 0};
    gala_status st = gala_lane_wait(s->ctx, 1, 0);
    for (int b = 0; st == GALA_OK && b < nb; ++b) {
        const qp_bin *c = &bins[b];
        if (c->acount <= 0) continue;
        const int l = work[1] < work[0];
        work[l] += (double)c->acount * c->kq;
        st = gala_lane_select(s->ctx, l);
        if (st == GALA_OK) st = gala_qp_launch_admm(s, ls, c, iters, check, adapt, fin);
    }
    return gala_lane_join(s->ctx, st);
}

const qp_linsys_ops gala_qp_linsys_dense = {
    GALA_QP_LINSYS_DENSE, dense_setup, dense_solve, dense_update_rho,
    dense_update_matrices, NULL, dense_destroy,
};

/* ------------------------------------------------------------------ shared, ρ ladder */

static void shared_destroy(qp_linsys *ls)
{
    qp_ladder *ld = (qp_ladder *)ls;
    gala_qp_linsys_release_base(ls);
    gala_buffer_free(ld->jqp);
    gala_buffer_free(ld->kofs);
    gala_buffer_free(ld->flag);
    gala_buffer_free(ld->jinfo);
    gala_free(ld->rho);
    gala_free(ld->ok);
    gala_free(ld);
}

static gala_status shared_setup(gala_qp_solver *s, qp_linsys **out)
{
    gala_context *ctx = s->ctx;
    qp_ladder *ld = gala_calloc(1, sizeof *ld);
    if (!ld) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    ld->base.ops = &gala_qp_linsys_shared;
    *out = &ld->base;
    qp_linsys *lb = &ld->base;
    const int *mt = s->meta;
    int n = mt[QP_M_N], m = mt[QP_M_M];
    double ratio = s->set.rho_ladder_ratio, rho = s->set.rho;
    int kneg = 0, kpos = 0;
    if (s->set.adaptive_rho != GALA_QP_ADAPTIVE_RHO_DISABLED) {
        for (double v = rho / ratio; v >= QP_RHO_MIN * (1 - 1e-12) && kneg < 64; v /= ratio) ++kneg;
        for (double v = rho * ratio; v <= QP_RHO_MAX * (1 + 1e-12) && kpos < 64; v *= ratio) ++kpos;
    }
    const int nr = kneg + kpos + 1;
    lb->nrungs = nr;
    lb->rung0 = kneg;
    ld->rho = gala_malloc(sizeof(double) * (size_t)nr);
    ld->ok = gala_malloc(sizeof(int) * (size_t)nr);
    int *zeros = gala_calloc((size_t)nr, sizeof(int));
    int *kofs = gala_malloc(sizeof(int) * (size_t)nr);
    if (!ld->rho || !ld->ok || !zeros || !kofs) {
        gala_free(zeros);
        gala_free(kofs);
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    size_t ks = kalign((size_t)n * (size_t)n);
    lb->rung_stride = (int)(ks / QP_KALIGN);
    for (int k = 0; k < nr; ++k) {
        double v = rho;
        for (int e = k; e < lb->rung0; ++e) v /= ratio;
        for (int e = lb->rung0; e < k; ++e) v *= ratio;
        ld->rho[k] = v;
        ld->ok[k] = 1;
        kofs[k] = k * lb->rung_stride;
    }
    gala_status st = gala_buffer_create(ctx, s->dt, ks * (size_t)nr, &lb->K);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, (size_t)nr, &ld->jqp);
    if (st == GALA_OK) st = gala_buffer_write(ld->jqp, 0, (size_t)nr, zeros);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, (size_t)nr, &ld->flag);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, (size_t)nr, &ld->kofs);
    if (st == GALA_OK) st = gala_buffer_write(ld->kofs, 0, (size_t)nr, kofs);
    if (st == GALA_OK) st = gala_buffer_create(ctx, s->dt, (size_t)nr, &lb->ladder_rho);
    if (st == GALA_OK) {
        if (s->dt == GALA_DOUBLE) {
            st = gala_buffer_write(lb->ladder_rho, 0, (size_t)nr, ld->rho);
        } else {
            float f[130];
            for (int k = 0; k < nr; ++k) f[k] = (float)ld->rho[k];
            st = gala_buffer_write(lb->ladder_rho, 0, (size_t)nr, f);
        }
    }
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, (size_t)nr, &lb->rung_ok);
    if (st == GALA_OK) st = gala_buffer_create(ctx, GALA_INT, (size_t)nr, &ld->jinfo);
    gala_free(zeros);
    gala_free(kofs);
    /* tile of TB QPs per work-group: as many as local memory holds (qp.tb at most); the
     * work-group covers the tile's K⁻¹ product (TB/QB QP groups × ⌈n/2⌉ row pairs) in one
     * pass */
    const size_t budget = local_budget(s);
    /* the tile's own budget where a tuning row gives one (qp.tile_bytes), else the per-QP
     * classes' (qp.local_bytes) */
    const long tbytes = gala_tuned(ctx, s->dt)->qp.tile_bytes;
    const size_t tbudget = tbytes > 0 ? local_cap(s, (size_t)tbytes) : budget;
    const int wgmax = max_wg(s);
    int tb = (int)gala_tuned(ctx, s->dt)->qp.tb;
    int p = 1;
    while (p * 2 <= tb && p * 2 <= wgmax) p *= 2;
    tb = p;
    qp_bin c;
    memset(&c, 0, sizeof c);
    c.ncap = (n + 7) / 8 * 8;
    c.mcap = (m + 7) / 8 * 8;
    if (c.mcap < 8) c.mcap = 8;
    c.vlocal = 1;
    c.ks = 1;
    const int rb = clampi((int)gala_tuned(ctx, s->dt)->qp.rb, 1, 8);
    const int qb_want = clampi((int)gala_tuned(ctx, s->dt)->qp.qb, 1, 16);
    const int minb = clampi((int)gala_tuned(ctx, s->dt)->qp.minb, 0, 32);
    const int tl = gala_tuned(ctx, s->dt)->qp.tl;
    for (c.tb = tb;; c.tb /= 2) {
        int qb = 1;
        while (qb * 2 <= qb_want && qb * 2 <= c.tb) qb *= 2; /* a power of two <= TB */
        c.qb = c.tb > 1 ? qb : 0;
        c.minb = c.tb > 1 ? minb : 0;
        c.rb = c.tb > 1 ? rb : 1;
        c.tl = c.tb > 1 ? tl : 0;
        c.wg = c.tb == 1 ? clampi(round32(c.ncap), 64, wgmax)
                         : clampi(round32((c.tb / qb) * ((n + c.rb - 1) / c.rb)), 64, wgmax);
        if (c.tb == 1 || gala_qp_admm_local_bytes(s, &c) <= tbudget) break;
    }
    if (gala_qp_admm_local_bytes(s, &c) > tbudget) {
        c = class_for(s, n, m, budget, wgmax); /* one QP per work-group, maybe global vectors */
    }
    gala_qp_linsys_one_class(s, lb, &c);
    return st;
}

/* The rungs are always factored together (update_rho and update_matrices alike). */
static gala_status shared_refactor(qp_linsys *ls, gala_qp_solver *s)
{
    qp_ladder *ld = (qp_ladder *)ls;
    int nr = ls->nrungs;
    GALA_TRY(gala_buffer_fill(ld->flag, 0, (size_t)nr, 1));
    int info[130];
    if (use_la(s)) {
        int zeros[130], kofs[130];
        for (int k = 0; k < nr; ++k) {
            zeros[k] = 0;
            kofs[k] = k * ls->rung_stride;
        }
        GALA_TRY(la_invert(s, ls->K, ld->jqp, ld->kofs, ls->ladder_rho, 1, 0, ld->flag, nr,
                           zeros, kofs, info, 1));
    } else {
        GALA_TRY(form_and_invert(s, ls->K, ld->jqp, ld->kofs, ls->ladder_rho, 1, 0, ld->flag,
                                 nr, ld->jinfo, 0));
        GALA_TRY(gala_buffer_read(ld->jinfo, 0, (size_t)nr, info));
    }
    for (int k = 0; k < nr; ++k) ld->ok[k] = info[k] == 0;
    GALA_TRY(gala_buffer_write(ls->rung_ok, 0, (size_t)nr, ld->ok));
    GALA_TRY(gala_buffer_fill(s->b_refactor, 0, (size_t)s->nvalid, 0));
    if (!ld->ok[ls->rung0]) {
        /* K with the initial ρ is not positive definite: every QP is non-convex */
        size_t ns = (size_t)s->nvalid * QP_NSTATE;
        int *st = gala_malloc(sizeof(int) * ns);
        if (!st) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
        gala_status r = gala_buffer_read(s->b_state, 0, ns, st);
        for (int sl = 0; sl < s->nvalid; ++sl)
            if (st[(size_t)sl * QP_NSTATE + QP_S_STATUS] == 0)
                st[(size_t)sl * QP_NSTATE + QP_S_STATUS] = GALA_QP_NON_CVX;
        if (r == GALA_OK) r = gala_buffer_write(s->b_state, 0, ns, st);
        gala_free(st);
        return r;
    }
    return GALA_OK;
}

static gala_status shared_solve(qp_linsys *ls, gala_qp_solver *s, int iters, int check,
                                int adapt, int fin)
{
    return gala_qp_launch_admm(s, ls, &ls->one, iters, check, adapt, fin);
}

/* The nearest rung whose K was factored. */
static gala_status shared_nearest_rho(const qp_linsys *ls, gala_qp_solver *s, const char *fn,
                                      double rho, double *r, int *rung)
{
    const qp_ladder *ld = (const qp_ladder *)ls;
    double best = INFINITY;
    *rung = -1;
    for (int q = 0; q < ls->nrungs; ++q) {
        const double d = fmax(ld->rho[q] / rho, rho / ld->rho[q]);
        if (ld->ok[q] && d < best) {
            best = d;
            *rung = q;
        }
    }
    if (*rung < 0)
        return gala_error(s->ctx, GALA_ERR_NOT_POSITIVE_DEFINITE, "%s: no rung of the rho ladder "
                          "has a factorization", fn);
    *r = ld->rho[*rung];
    return GALA_OK;
}

const qp_linsys_ops gala_qp_linsys_shared = {
    GALA_QP_LINSYS_DENSE_SHARED, shared_setup, shared_solve, shared_refactor,
    shared_refactor, shared_nearest_rho, shared_destroy,
};
