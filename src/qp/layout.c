/* The device layout of a batch (docs/qp.md): the distinct sparsity patterns and their
 * device structures (CSR rows, maps), the per-slot metadata (QP_M_*: where each QP's
 * vectors and values live), the host copies and the upload staging. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"

/* Device structures of the distinct patterns, built on several threads into the staging
 * arrays rp / ci / map:
 *   P (upper CSC, n×n): the full symmetric matrix in CSR (rows n + 1, columns), and per
 *     CSC entry e its position in its row and in its mirror's row (or -1 on the diagonal)
 *   A (CSC, m×n): A in CSR (rows m + 1, columns), then Aᵀ in CSR = A's CSC (rows n + 1,
 *     columns); per CSC entry e its position in A's CSR
 * Positions count from the start of the block (the values live per QP, at PV / AV / TV). */
typedef struct {
    qp_pat *pats;
    const gala_qp_problem *pb;
    int *rp, *ci, *map;
} pat_job;

void gala_qp_build_pattern(const qp_pat *t, int *rp, int *ci, int *map, int *fill)
{
    const int *cp = t->p, *ri = t->i;
    if (!t->is_a) {
        const int n = t->cols;
        int *Pp = rp + t->rp, *Pc = ci + t->ci, *pm = map + t->map;
        for (int r = 0; r <= n; ++r) Pp[r] = 0;
        for (int j = 0; j < n; ++j)
            for (int k = cp[j]; k < cp[j + 1]; ++k) {
                Pp[ri[k] + 1]++;
                if (ri[k] != j) Pp[j + 1]++;
            }
        for (int r = 0; r < n; ++r) Pp[r + 1] += Pp[r];
        for (int r = 0; r < n; ++r) fill[r] = Pp[r];
        for (int j = 0; j < n; ++j)
            for (int k = cp[j]; k < cp[j + 1]; ++k) {
                const int i = ri[k];
                if (i != j) { /* the mirror (j, i) goes to row j; (i, j) to row i */
                    pm[2 * k + 1] = fill[j];
                    Pc[fill[j]++] = i;
                } else {
                    pm[2 * k + 1] = -1;
                }
                pm[2 * k] = fill[i];
                Pc[fill[i]++] = j;
            }
    } else {
        const int m = t->rows, n = t->cols, nz = t->nnz;
        int *Ap = rp + t->rp, *Ac = ci + t->ci, *am = map + t->map;
        int *Tp = Ap + m + 1, *Tc = Ac + nz;
        for (int r = 0; r <= m; ++r) Ap[r] = 0;
        for (int k = 0; k < nz; ++k) Ap[ri[k] + 1]++;
        for (int r = 0; r < m; ++r) Ap[r + 1] += Ap[r];
        for (int r = 0; r < m; ++r) fill[r] = Ap[r];
        for (int j = 0; j < n; ++j)
            for (int k = cp[j]; k < cp[j + 1]; ++k) {
                am[k] = fill[ri[k]];
                Ac[fill[ri[k]]++] = j;
            }
        memcpy(Tp, cp, sizeof(int) * (size_t)(n + 1));
        if (nz) memcpy(Tc, ri, sizeof(int) * (size_t)nz);
    }
}

static void pat_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    pat_job *j = arg;
    int cap = 1;
    for (long t = b; t < e; ++t) {
        const int d = j->pats[t].is_a ? j->pats[t].rows : j->pats[t].cols;
        if (d > cap) cap = d;
    }
    int *fill = gala_malloc(sizeof(int) * (size_t)cap);
    if (!fill) { /* marked for the caller: a pattern without its rows */
        for (long t = b; t < e; ++t) j->pats[t].full = -1;
        return;
    }
    for (long t = b; t < e; ++t) {
        /* the host copy (t->p, t->i point into the solver's pattern arena), then the rows */
        qp_pat *pt = &j->pats[t];
        const gala_csc *M = pt->is_a ? &j->pb[pt->rep].A : &j->pb[pt->rep].P;
        memcpy(pt->p, M->p, sizeof(int) * (size_t)(pt->cols + 1));
        if (pt->nnz) memcpy(pt->i, M->i, sizeof(int) * (size_t)pt->nnz);
        gala_qp_build_pattern(pt, j->rp, j->ci, j->map, fill);
    }
    gala_free(fill);
}

/* Confirmation of the patterns matched by their hash only (several threads): bad[sl] (P)
 * and bad[nvalid + sl] (A) when the pattern differs from its match's after all. */
typedef struct {
    gala_qp_solver *s;
    const gala_qp_problem *pb;
    const qp_scan *scan;
    unsigned char *bad;
} confirm_job;

static void confirm_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    confirm_job *j = arg;
    const gala_qp_solver *s = j->s;
    for (long sl = b; sl < e; ++sl) {
        const int k = s->qp_of[sl];
        const qp_pat *tp = &s->patterns[s->p_pattern[sl]], *ta = &s->patterns[s->a_pattern[sl]];
        if (tp->rep != k && !j->scan[k].same_pp)
            j->bad[sl] = (unsigned char)!gala_qp_same_pattern(&j->pb[k].P, &j->pb[tp->rep].P);
        if (ta->rep != k && !j->scan[k].same_ap)
            j->bad[s->nvalid + sl] = (unsigned char)!gala_qp_same_pattern(&j->pb[k].A, &j->pb[ta->rep].A);
    }
}

/* Pass over the slots (several threads): the host copies (unscaled q, l, u with bounds
 * clamped to ±1e30) and the upload staging (the same in float; the raw CSC values in the
 * solver's dtype; the double copy of the values for polishing). */
typedef struct {
    gala_qp_solver *s;
    const gala_qp_problem *pb;
    float *fq, *fl, *fu;   /* float staging of q, l, u (float only) */
    void *raw;             /* raw values staging, in the solver's dtype */
} copy_job;

static void copy_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    copy_job *j = arg;
    gala_qp_solver *s = j->s;
    for (long sl = b; sl < e; ++sl) {
        const int k = s->qp_of[sl];
        const gala_qp_problem *p = &j->pb[k];
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO];
        double *q = s->host.q + xo, *l = s->host.l + zo, *u = s->host.u + zo;
        memcpy(q, p->q, sizeof(double) * (size_t)p->n);
        for (int i = 0; i < p->m; ++i) {
            l[i] = qp_clamp_inf(p->l[i]);
            u[i] = qp_clamp_inf(p->u[i]);
        }
        if (j->fq) {
            float *fq = j->fq + xo, *fl = j->fl + zo, *fu = j->fu + zo;
            for (int i = 0; i < p->n; ++i) fq[i] = (float)q[i];
            for (int i = 0; i < p->m; ++i) {
                fl[i] = (float)l[i];
                fu[i] = (float)u[i];
            }
        }
        if (s->same_data && sl > 0) continue; /* the values are stored once */
        const int pnz = mt[QP_M_PNZ], anz = mt[QP_M_ANZ];
        const size_t ro = (size_t)mt[QP_M_RO];
        if (s->dt == GALA_FLOAT) {
            float *rv = (float *)j->raw + ro;
            for (int e2 = 0; e2 < pnz; ++e2) rv[e2] = (float)p->P.x[e2];
            for (int e2 = 0; e2 < anz; ++e2) rv[pnz + e2] = (float)p->A.x[e2];
        } else {
            double *rv = (double *)j->raw + ro;
            if (pnz) memcpy(rv, p->P.x, sizeof(double) * (size_t)pnz);
            if (anz) memcpy(rv + pnz, p->A.x, sizeof(double) * (size_t)anz);
        }
        if (s->host.vals && (void *)s->host.vals != j->raw) {
            double *h = s->host.vals + ro;
            if (pnz) memcpy(h, p->P.x, sizeof(double) * (size_t)pnz);
            if (anz) memcpy(h + pnz, p->A.x, sizeof(double) * (size_t)anz);
        }
    }
}

/* Pattern id of a matrix with hash h: an existing pattern with that hash (to be confirmed
 * by the copy pass), else a new one defined by QP k. tab: open addressing over hashes. */
typedef struct {
    int *slot; /* pattern id + 1, 0 = empty */
    size_t cap;
} pat_table;

static int pat_find(gala_qp_solver *s, pat_table *tab, int is_a, uint64_t h)
{
    size_t i = (size_t)(h ^ (uint64_t)is_a) & (tab->cap - 1);
    for (; tab->slot[i]; i = (i + 1) & (tab->cap - 1)) {
        const qp_pat *t = &s->patterns[tab->slot[i] - 1];
        if (t->hash == h && t->is_a == is_a) return tab->slot[i] - 1;
    }
    return -1;
}

static void pat_insert(gala_qp_solver *s, pat_table *tab, int id)
{
    const qp_pat *t = &s->patterns[id];
    size_t i = (size_t)(t->hash ^ (uint64_t)t->is_a) & (tab->cap - 1);
    while (tab->slot[i]) i = (i + 1) & (tab->cap - 1);
    tab->slot[i] = id + 1;
}

static int pat_new(gala_qp_solver *s, const gala_qp_problem *pb, int k, int is_a, uint64_t h)
{
    qp_pat *t = &s->patterns[s->npatterns];
    const gala_csc *M = is_a ? &pb[k].A : &pb[k].P;
    memset(t, 0, sizeof *t);
    t->is_a = is_a;
    t->rows = M->m;
    t->cols = M->n;
    t->nnz = M->p[M->n];
    t->rep = k;
    t->hash = h;
    return s->npatterns++;
}

gala_status gala_qp_assign_patterns(gala_qp_solver *s, const gala_qp_problem *pb,
                                    const qp_scan *scan, int r)
{
    const int nv = s->nvalid, shared = s->same_data;
    s->p_pattern = gala_malloc(sizeof(int) * 2 * (size_t)nv);
    s->patterns = gala_calloc(2 * (size_t)nv + 2, sizeof *s->patterns);
    s->meta = gala_calloc((size_t)nv * QP_NMETA, sizeof(int));
    pat_table tab = {NULL, 16};
    while (tab.cap < 4 * (size_t)nv + 16) tab.cap *= 2;
    tab.slot = gala_calloc(tab.cap, sizeof(int));
    unsigned char *bad = gala_calloc(2 * (size_t)nv, 1);
    if (!s->p_pattern || !s->patterns || !s->meta || !tab.slot || !bad) {
        gala_free(tab.slot);
        gala_free(bad);
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    s->a_pattern = s->p_pattern + nv;
    const int rp_id = pat_new(s, pb, r, 0, 0), ra_id = pat_new(s, pb, r, 1, 0);
    int hashed = 0;
    for (int sl = 0; sl < nv; ++sl) {
        const int k = s->qp_of[sl];
        for (int is_a = 0; is_a < 2; ++is_a) {
            int *id = is_a ? &s->a_pattern[sl] : &s->p_pattern[sl];
            const int same = is_a ? scan[k].same_ap : scan[k].same_pp;
            if (shared || same) {
                *id = is_a ? ra_id : rp_id;
                continue;
            }
            const uint64_t h = is_a ? scan[k].ah : scan[k].ph;
            *id = pat_find(s, &tab, is_a, h);
            if (*id < 0) {
                *id = pat_new(s, pb, k, is_a, h);
                pat_insert(s, &tab, *id);
            } else {
                hashed = 1;
            }
        }
    }
    gala_free(tab.slot);
    if (hashed) {
        confirm_job cj = {s, pb, scan, bad};
        gala_par(s->ctx, s->nthreads, nv, 64, confirm_range, &cj);
        for (int sl = 0; sl < nv; ++sl) {
            if (bad[sl]) s->p_pattern[sl] = pat_new(s, pb, s->qp_of[sl], 0, 0);
            if (bad[nv + sl]) s->a_pattern[sl] = pat_new(s, pb, s->qp_of[sl], 1, 0);
        }
    }
    gala_free(bad);
    return GALA_OK;
}

/* Offsets of the patterns' device structures and host copies (sg->hcopy ints). */
static void pattern_offsets(gala_qp_solver *s, qp_stage *sg)
{
    size_t nrp = 0, nci = 0, nmap = 0, hcopy = 0;
    for (int t = 0; t < s->npatterns; ++t) {
        qp_pat *pt = &s->patterns[t];
        pt->rp = nrp;
        pt->ci = nci;
        pt->map = nmap;
        if (!pt->is_a) {
            nrp += (size_t)pt->cols + 1;
            nci += 2 * (size_t)pt->nnz; /* full symmetric: at most twice the upper triangle */
            nmap += 2 * (size_t)pt->nnz;
        } else {
            nrp += (size_t)pt->rows + 1 + (size_t)pt->cols + 1;
            nci += 2 * (size_t)pt->nnz;
            nmap += (size_t)pt->nnz;
        }
        hcopy += (size_t)pt->cols + 1 + (size_t)pt->nnz;
    }
    s->n_rowptr = nrp;
    s->n_colidx = nci;
    s->n_map = nmap;
    sg->hcopy = hcopy;
}

gala_status gala_qp_layout(gala_qp_solver *s, const gala_qp_problem *pb, int r, qp_stage *sg)
{
    const int nv = s->nvalid, shared = s->same_data;
    pattern_offsets(s, sg);
    size_t vo = 0, ro = 0;
    for (int sl = 0; sl < nv; ++sl) {
        const gala_qp_problem *p = &pb[s->qp_of[sl]];
        const qp_pat *tp = &s->patterns[s->p_pattern[sl]], *ta = &s->patterns[s->a_pattern[sl]];
        int *mt = s->meta + (size_t)sl * QP_NMETA;
        const int pnz = tp->nnz, anz = ta->nnz;
        mt[QP_M_N] = p->n;
        mt[QP_M_M] = p->m;
        mt[QP_M_XO] = (int)s->ntot;
        mt[QP_M_ZO] = (int)s->mtot;
        mt[QP_M_CO] = shared ? 0 : (int)s->mtot;
        mt[QP_M_PP] = (int)tp->rp;
        mt[QP_M_PC] = (int)tp->ci;
        mt[QP_M_PM] = (int)tp->map;
        mt[QP_M_AP] = (int)ta->rp;
        mt[QP_M_AC] = (int)ta->ci;
        mt[QP_M_AM] = (int)ta->map;
        mt[QP_M_TP] = (int)(ta->rp + (size_t)p->m + 1);
        mt[QP_M_TC] = (int)(ta->ci + (size_t)anz);
        mt[QP_M_PNZ] = pnz;
        mt[QP_M_ANZ] = anz;
        if (!shared || sl == 0) {
            mt[QP_M_PV] = (int)vo;
            mt[QP_M_AV] = (int)(vo + 2 * (size_t)pnz);
            mt[QP_M_TV] = (int)(vo + 2 * (size_t)pnz + (size_t)anz);
            mt[QP_M_RO] = (int)ro;
            vo += 2 * (size_t)pnz + 2 * (size_t)anz;
            ro += (size_t)pnz + (size_t)anz;
        } else {
            for (int f = QP_M_PV; f <= QP_M_TV; f += 3) mt[f] = s->meta[f];
            mt[QP_M_RO] = 0;
        }
        s->ntot += (size_t)p->n;
        s->mtot += (size_t)p->m;
        if (s->ntot > 0x7fffffffu || s->mtot > 0x7fffffffu || vo > 0x7fffffffu ||
            s->n_colidx > 0x7fffffffu || s->n_rowptr > 0x7fffffffu || s->n_map > 0x7fffffffu)
            return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: the batch has more "
                              "than 2^31 vector or matrix entries");
    }
    s->n_vals = vo;
    s->n_raw = ro;
    s->n_ctype = shared ? (size_t)pb[r].m : s->mtot;
    return GALA_OK;
}

gala_status gala_qp_host_copies(gala_qp_solver *s, const gala_qp_problem *pb, qp_stage *sg)
{
    gala_context *ctx = s->ctx;
    const int nv = s->nvalid, count = s->count;
    const size_t nrp = s->n_rowptr, nci = s->n_colidx, nmap = s->n_map, ro = s->n_raw;
    const int flt = s->dt == GALA_FLOAT;
    const size_t rsz = flt ? sizeof(float) : sizeof(double);
    s->pattern_mem = gala_malloc(sizeof(int) * (sg->hcopy ? sg->hcopy : 1));
    sg->ist = gala_malloc(sizeof(int) * (nrp + nci + nmap + 1));
    /* what crosses the bus in bulk (q, l, u up; x, y down) lives in the context's
     * page-locked block when it can have it (several times the pageable rate) */
    const size_t nqlu = s->ntot + 2 * s->mtot + 1, nxy = s->ntot + s->mtot;
    const int direct = nv == count && !s->hidden_slot; /* results read straight into x, y */
    const size_t keep = flt ? sizeof(float) * (nqlu + nxy)
                            : sizeof(double) * (nqlu + (direct ? nxy : 0));
    /* the raw values, the largest upload (control nx = 10: 80 % of the bytes), go up from
     * the block too when it can hold them (H200, control nx = 10, 10⁴ QPs: upload 17 → 7 ms
     * in float, 39 → 8 in double); the block keeps that room until the solver is
     * destroyed: unused after setup, or in double with polishing the polishing's copy
     * (host.vals) itself */
    const size_t raw_at = (keep + 63) / 64 * 64;
    s->staging = ro ? gala_staging_take(ctx, raw_at + rsz * ro) : NULL;
    sg->raw_staged = s->staging != NULL;
    if (!s->staging) s->staging = gala_staging_take(ctx, keep);
    s->host.q = !flt && s->staging ? (double *)s->staging : gala_malloc(sizeof(double) * nqlu);
    if (!flt && s->staging && direct) {
        gala_free(s->res.x);
        gala_free(s->res.y);
        s->res.x = s->host.q + nqlu;
        s->res.y = s->res.x + s->ntot;
    }
    s->vals_staged = s->set.polishing && !flt && sg->raw_staged;
    if (s->vals_staged) s->host.vals = (double *)((char *)s->staging + raw_at);
    else if (s->set.polishing) s->host.vals = gala_malloc(sizeof(double) * (ro ? ro : 1));
    sg->raw = sg->raw_staged   ? (void *)((char *)s->staging + raw_at)
              : !flt && s->host.vals ? (void *)s->host.vals
                                     : gala_malloc(rsz * (ro ? ro : 1));
    if (flt && s->staging) {
        sg->fst = (float *)s->staging;
        s->read_stage = sg->fst + nqlu;
        s->read_stage_n = nxy;
    } else if (flt) {
        sg->fst = gala_malloc(sizeof(float) * nqlu);
    }
    if (!s->pattern_mem || !sg->ist || !s->host.q || !sg->raw || (flt && !sg->fst) ||
        (s->set.polishing && !s->host.vals))
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    s->host.l = s->host.q + s->ntot;
    s->host.u = s->host.l + s->mtot;
    size_t hc = 0;
    for (int t = 0; t < s->npatterns; ++t) {
        s->patterns[t].p = s->pattern_mem + hc;
        s->patterns[t].i = s->pattern_mem + hc + s->patterns[t].cols + 1;
        hc += (size_t)s->patterns[t].cols + 1 + (size_t)s->patterns[t].nnz;
    }
    int *ist = sg->ist;
    pat_job pj = {s->patterns, pb, ist, ist + nrp, ist + nrp + nci};
    memset(ist, 0, sizeof(int) * (nrp + nci + nmap)); /* the gaps of the upper bounds */
    gala_par(s->ctx, s->npatterns > 1 ? s->nthreads : 1, s->npatterns, 8, pat_range, &pj);
    for (int t = 0; t < s->npatterns; ++t)
        if (s->patterns[t].full < 0)
            return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    float *fst = sg->fst;
    copy_job cj = {s, pb, fst, fst ? fst + s->ntot : NULL, fst ? fst + s->ntot + s->mtot : NULL,
                   sg->raw};
    gala_par(s->ctx, s->nthreads, nv, 32, copy_range, &cj);
    return GALA_OK;
}

void gala_qp_stage_free(gala_qp_solver *s, qp_stage *sg)
{
    if (sg->raw != (void *)s->host.vals && !sg->raw_staged) gala_free(sg->raw);
    gala_free(sg->ist);
    if (!s->staging) gala_free(sg->fst);
    sg->raw = NULL;
    sg->ist = NULL;
    sg->fst = NULL;
    sg->raw_staged = 0;
}

