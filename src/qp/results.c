/* Results (docs/qp.md): the download after a solve (statuses, solutions, certificates),
 * polishing, and the getters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"
#include "qp_polish.h"

const char *gala_qp_status_string(int status)
{
    switch (status) {
    case GALA_QP_SOLVED: return "solved";
    case GALA_QP_SOLVED_INACCURATE: return "solved inaccurate";
    case GALA_QP_PRIMAL_INFEASIBLE: return "primal infeasible";
    case GALA_QP_PRIMAL_INFEASIBLE_INACCURATE: return "primal infeasible inaccurate";
    case GALA_QP_DUAL_INFEASIBLE: return "dual infeasible";
    case GALA_QP_DUAL_INFEASIBLE_INACCURATE: return "dual infeasible inaccurate";
    case GALA_QP_MAX_ITER_REACHED: return "maximum iterations reached";
    case GALA_QP_TIME_LIMIT_REACHED: return "run time limit reached";
    case GALA_QP_NON_CVX: return "problem non convex";
    case GALA_QP_INTERRUPTED: return "interrupted";
    case GALA_QP_UNSOLVED: return "unsolved";
    case GALA_QP_INVALID_DATA: return "invalid data";
    default: return "unknown status";
    }
}

static int has_solution(int status)
{
    return status == GALA_QP_SOLVED || status == GALA_QP_SOLVED_INACCURATE ||
           status == GALA_QP_MAX_ITER_REACHED || status == GALA_QP_TIME_LIMIT_REACHED ||
           status == GALA_QP_INTERRUPTED;
}

int gala_qp_has_solution(int status) { return has_solution(status); }

static int primal_inf(int st) { return st == GALA_QP_PRIMAL_INFEASIBLE || st == GALA_QP_PRIMAL_INFEASIBLE_INACCURATE; }
static int dual_inf(int st) { return st == GALA_QP_DUAL_INFEASIBLE || st == GALA_QP_DUAL_INFEASIBLE_INACCURATE; }

/* Results per QP on several threads: info from the device's state and info, the unscaled
 * solution (or certificate) from the device's output vectors, in slot layout (ox, oy; NULL
 * when they were read straight into s->res.x, s->res.y). */
typedef struct {
    gala_qp_solver *s;
    const int *stt;
    const double *inf, *ox, *oy;
    const double *sync_t;
    const int *sync_it;
    int nsync;
} collect_job;

static void collect_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    const collect_job *j = arg;
    gala_qp_solver *s = j->s;
    for (long k = b; k < e; ++k) {
        gala_qp_info *in = &s->info[k];
        const int sl = s->slot[k];
        in->status_polish = 0;
        in->polish_time = 0;
        if (sl < 0 || s->host_status[k]) {
            in->status = GALA_QP_INVALID_DATA;
            in->iter = 0;
            in->obj_val = in->dual_obj_val = NAN;
            continue;
        }
        const int *st = j->stt + (size_t)sl * QP_NSTATE;
        const double *f = j->inf + (size_t)sl * QP_NINFO;
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        in->status = st[QP_S_STATUS] ? st[QP_S_STATUS] : GALA_QP_UNSOLVED;
        if (in->status == GALA_QP_INVALID_DATA) { /* decided on the device (shared kinds) */
            in->iter = 0;
            in->obj_val = in->dual_obj_val = NAN;
            continue;
        }
        in->iter = st[QP_S_ITER];
        in->rho_updates = st[QP_S_RHOUPD];
        in->rho = f[QP_I_RHO];
        in->rho_estimate = f[QP_I_RHOEST];
        in->prim_res = f[QP_I_PRIM];
        in->dual_res = f[QP_I_DUAL];
        in->obj_val = f[QP_I_OBJ] + s->c0[k];
        in->dual_obj_val = f[QP_I_DOBJ] + s->c0[k];
        in->duality_gap = f[QP_I_GAP];
        in->solve_time = j->nsync ? j->sync_t[j->nsync - 1] : 0;
        for (int q = 0; q < j->nsync; ++q)
            if (j->sync_it[q] >= in->iter) {
                in->solve_time = j->sync_t[q];
                break;
            }
        const double *ox = j->ox ? j->ox + mt[QP_M_XO] : s->res.x + s->res.x_offset[k];
        const double *oy = j->oy ? j->oy + mt[QP_M_ZO] : s->res.y + s->res.y_offset[k];
        const int stv = in->status;
        if (has_solution(stv)) {
            if (j->ox) {
                memcpy(s->res.x + s->res.x_offset[k], ox, sizeof(double) * (size_t)n);
                memcpy(s->res.y + s->res.y_offset[k], oy, sizeof(double) * (size_t)m);
            }
        } else if (primal_inf(stv)) {
            memcpy(s->res.cert + s->res.cert_offset[k], oy, sizeof(double) * (size_t)m);
            in->obj_val = QP_INFTY;
        } else if (dual_inf(stv)) {
            memcpy(s->res.cert + s->res.cert_offset[k], ox, sizeof(double) * (size_t)n);
            in->obj_val = -QP_INFTY;
        } else if (stv == GALA_QP_NON_CVX) {
            in->obj_val = NAN;
        }
    }
}

/* Polishing (settings.polishing) of the solved QPs, on several threads, from the scaled
 * iterates (sc: x, z, y, l, u, D, E in slot layout). */
typedef struct {
    gala_qp_solver *s;
    const double *zs, *ys, *ls, *us, *D, *E, *inf;
    gala_host_scratch (*ws)[5]; /* per thread: gala_qp_polish_one's four, the polished x, y */
    size_t *keep_left;          /* per thread: the kept factors' remaining bytes (NULL: none) */
} polish_job;

static void polish_range(void *arg, long b, long e, int tid)
{
    const polish_job *j = arg;
    gala_host_scratch *ws = j->ws[tid];
    gala_qp_solver *s = j->s;
    for (long k = b; k < e; ++k) {
        gala_qp_info *in = &s->info[k];
        const int sl = s->slot[k];
        if (sl < 0 || in->status != GALA_QP_SOLVED) continue;
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        const size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO], ro = (size_t)mt[QP_M_RO];
        const qp_pat *tp = &s->patterns[s->p_pattern[sl]], *ta = &s->patterns[s->a_pattern[sl]];
        gala_qp_problem v; /* a view of the QP's host copies */
        memset(&v, 0, sizeof v);
        v.n = n;
        v.m = m;
        v.P = (gala_csc){n, n, tp->p, tp->i, s->host.vals + ro};
        v.A = (gala_csc){m, n, ta->p, ta->i, s->host.vals + ro + (size_t)tp->nnz};
        v.q = s->host.q + xo;
        v.l = s->host.l + zo;
        v.u = s->host.u + zo;
        v.c0 = s->c0[k];
        double tp0 = gala_now(), obj, pr, du;
        double *px = gala_host_scratch_get(&ws[4], sizeof(double) * (size_t)(n + m + 1));
        const double c = j->inf[(size_t)sl * QP_NINFO + QP_I_C];
        double of;
        const int *ord = gala_qp_kkt_order(s, sl, &of);
        const qp_keep keep = {j->keep_left ? &s->kept[k] : NULL,
                              j->keep_left ? &j->keep_left[tid] : NULL, s->kept_gen};
        int res = px ? gala_qp_polish_one(&v, ord, of, ws, j->D + xo, j->E + zo, c, j->zs + zo,
                                          j->ys + zo, j->ls + zo, j->us + zo, s->set.delta,
                                          s->set.polish_refine_iter, in->prim_res, in->dual_res,
                                          px, px + n, &obj, &pr, &du, &keep)
                     : -2;
        if (res == 1) {
            memcpy(s->res.x + s->res.x_offset[k], px, sizeof(double) * (size_t)n);
            memcpy(s->res.y + s->res.y_offset[k], px + n, sizeof(double) * (size_t)m);
            in->obj_val = obj;
            in->prim_res = pr;
            in->dual_res = du;
        }
        in->status_polish = res;
        in->polish_time = gala_now() - tp0;
    }
}

static gala_status polish_all(gala_qp_solver *s, const double *inf)
{
    size_t nt = s->ntot, mt_ = s->mtot;
    double *buf = gala_malloc(sizeof(double) * (3 * nt + 5 * mt_ + 1));
    if (!buf) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    polish_job j = {s, buf + nt, buf + nt + mt_, buf + nt + 2 * mt_, buf + nt + 3 * mt_,
                    buf + nt + 4 * mt_, buf + 2 * nt + 4 * mt_, inf, NULL, NULL};
    gala_status st = gala_qp_read_real(s, s->b_nvec, QP_V_D * nt, nt, (double *)j.D);
    if (st == GALA_OK) st = gala_qp_read_real(s, s->b_mvec, QP_V_Z * mt_, mt_, (double *)j.zs);
    if (st == GALA_OK) st = gala_qp_read_real(s, s->b_mvec, QP_V_Y * mt_, mt_, (double *)j.ys);
    if (st == GALA_OK) st = gala_qp_read_real(s, s->b_mvec, QP_V_L * mt_, 2 * mt_, (double *)j.ls);
    if (st == GALA_OK) st = gala_qp_read_real(s, s->b_mvec, QP_V_E * mt_, mt_, (double *)j.E);
    if (st == GALA_OK) {
        j.ws = gala_calloc((size_t)s->nthreads, sizeof *j.ws);
        if (!j.ws) st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    }
    /* the factors kept for the derivative: a share of qp.polish_keep_mb per thread (those
     * of the last solve are stale since it started: kept_gen) */
    const double keep_mb = (double)gala_tuned(s->ctx, s->dt)->qp.polish_keep_mb;
    if (st == GALA_OK && keep_mb > 0 && !s->kept)
        s->kept = gala_calloc((size_t)s->count + 1, sizeof *s->kept);
    if (st == GALA_OK && keep_mb > 0 && s->kept) {
        j.keep_left = gala_malloc(sizeof(size_t) * (size_t)s->nthreads);
        for (int t = 0; j.keep_left && t < s->nthreads; ++t)
            j.keep_left[t] = (size_t)(keep_mb * 1048576.0 / s->nthreads);
    }
    if (st == GALA_OK) {
        gala_qp_kkt_orders_make(s);
        gala_par(s->ctx, s->nthreads, s->count, 4, polish_range, &j);
        gala_host_scratch_release(j.ws[0], (size_t)s->nthreads * 5);
        gala_free(j.ws);
    }
    gala_free(j.keep_left);
    /* as OSQP's polish: a polished QP's iterates become the polished x, y (z = A x), so
     * that the next solve starts from them (its solution is where a warm start resumes) */
    int npol = 0;
    for (int k = 0; k < s->count; ++k) npol += s->slot[k] >= 0 && s->info[k].status_polish == 1;
    if (st == GALA_OK && npol) {
        double *tx = buf, *ty = buf + nt; /* buf holds nt + mt_ doubles at least */
        int *list = gala_malloc(sizeof(int) * (size_t)npol);
        gala_buffer *lb = NULL;
        gala_kernel *kw = NULL;
        if (!list) st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
        npol = 0;
        for (int k = 0; st == GALA_OK && k < s->count; ++k) {
            const int sl = s->slot[k];
            if (sl < 0 || s->info[k].status_polish != 1) continue;
            const int *mt = s->meta + (size_t)sl * QP_NMETA;
            memcpy(tx + mt[QP_M_XO], s->res.x + s->res.x_offset[k], sizeof(double) * (size_t)mt[QP_M_N]);
            memcpy(ty + mt[QP_M_ZO], s->res.y + s->res.y_offset[k], sizeof(double) * (size_t)mt[QP_M_M]);
            list[npol++] = sl;
        }
        /* XT and YPREV are scratch between solves; qp_warm reads them for the listed slots */
        if (st == GALA_OK) st = gala_qp_write_real(s, s->b_nvec, QP_V_XT * nt, nt, tx);
        if (st == GALA_OK && mt_) st = gala_qp_write_real(s, s->b_mvec, QP_V_YPREV * mt_, mt_, ty);
        if (st == GALA_OK) st = gala_buffer_create(s->ctx, GALA_INT, (size_t)npol, &lb);
        if (st == GALA_OK) st = gala_buffer_write(lb, 0, (size_t)npol, list);
        if (st == GALA_OK) st = gala_qp_kernel(s, "qp_warm", &kw);
        gala_dims d = gala_qp_dims(npol, QP_UTIL_WG);
        if (st == GALA_OK)
            st = qp_launch_warm(s->ctx, kw, &d, s->b_meta, lb, npol,
                             s->b_rowptr, s->b_colidx, s->b_vals, s->b_nvec,
                             (long long)nt, s->b_mvec, (long long)mt_,
                             s->b_info, 3);
        if (st == GALA_OK) st = gala_finish(s->ctx);
        gala_buffer_free(lb);
        gala_free(list);
    }
    gala_free(buf);
    return st;
}

/* Download the per-QP state and the unscaled solutions / certificates (unscaled on the
 * device by qp_unscale into W2 and W); polish. */
gala_status gala_qp_collect(gala_qp_solver *s, const double *sync_t, const int *sync_it, int nsync)
{
    gala_context *ctx = s->ctx;
    const size_t nv = (size_t)s->nvalid;
    int *stt = gala_malloc(sizeof(int) * (nv ? nv : 1) * (QP_NSTATE + 1));
    double *inf = gala_malloc(sizeof(double) * (nv ? nv : 1) * QP_NINFO);
    gala_status st = GALA_OK;
    if (!stt || !inf) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
    /* the slots' layout is the QPs' when every QP is on the device: read into the results */
    const int direct = s->nvalid == s->count && !s->hidden_slot;
    double *ox = NULL, *oy = NULL;
    if (st == GALA_OK && nv) {
        gala_kernel *k;
        st = gala_qp_kernel(s, "qp_unscale", &k);
        gala_dims d = gala_qp_dims(s->nvalid, QP_UTIL_WG);
        if (st == GALA_OK)
            st = qp_launch_unscale(ctx, k, &d, s->b_meta, s->b_slots, s->nvalid,
                             s->b_nvec, (long long)s->ntot, s->b_mvec,
                             (long long)s->mtot, s->b_info, s->b_state);
        if (st == GALA_OK) st = gala_buffer_read(s->b_state, 0, nv * QP_NSTATE, stt);
        if (st == GALA_OK) st = gala_qp_read_real(s, s->b_info, 0, nv * QP_NINFO, inf);
        if (st == GALA_OK && s->same_data) st = gala_qp_read_hstat(s);
        if (st == GALA_OK && !direct) {
            ox = gala_malloc(sizeof(double) * (s->ntot + s->mtot + 1));
            if (!ox) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
            else oy = ox + s->ntot;
        }
        if (st == GALA_OK) st = gala_qp_read_real(s, s->b_nvec, QP_V_W2 * s->ntot, s->ntot, direct ? s->res.x : ox);
        if (st == GALA_OK) st = gala_qp_read_real(s, s->b_mvec, QP_V_W * s->mtot, s->mtot, direct ? s->res.y : oy);
    }
    /* certificates of the infeasible QPs */
    size_t ncert = 0;
    for (int k = 0; st == GALA_OK && k < s->count; ++k) {
        s->res.cert_offset[k] = SIZE_MAX;
        const int sl = s->slot[k];
        if (sl < 0 || s->host_status[k]) continue;
        const int sv = stt[(size_t)sl * QP_NSTATE + QP_S_STATUS];
        if (primal_inf(sv) || dual_inf(sv)) {
            s->res.cert_offset[k] = ncert;
            ncert += primal_inf(sv) ? (size_t)s->qp_m[k] : (size_t)s->qp_n[k];
        }
    }
    gala_free(s->res.cert);
    s->res.cert = NULL;
    if (st == GALA_OK && ncert) {
        s->res.cert = gala_malloc(sizeof(double) * ncert);
        if (!s->res.cert) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
    }
    if (st == GALA_OK) {
        collect_job j = {s, stt, inf, ox, oy, sync_t, sync_it, nsync};
        gala_par(s->ctx, s->nthreads, s->count, 256, collect_range, &j);
    }
    gala_qp_prof(s, GALA_QP_PHASE_COLLECT);
    if (st == GALA_OK && s->set.polishing && nv) {
        st = polish_all(s, inf);
        gala_qp_prof(s, GALA_QP_PHASE_POLISH);
    }
    gala_free(ox);
    gala_free(stt);
    gala_free(inf);
    return st;
}

gala_status gala_qp_get_info(const gala_qp_solver *s, int k, gala_qp_info *info)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_get_info: solver is NULL");
    if (s->chunks) return gala_qp_chunked_get_info(s, k, info);
    if (!info) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_info: info is NULL");
    if (k < 0 || k >= s->count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_info: k = %d outside 0..%d",
                          k, s->count - 1);
    /* a device update's verdicts (the messages) once it has run */
    GALA_TRY(gala_qp_dio_host((gala_qp_solver *)s, QP_DIO_VERDICTS));
    *info = s->info[k];
    info->update_time = s->update_time;
    return GALA_OK;
}

gala_status gala_qp_get_solution(const gala_qp_solver *s, int k, const double **x,
                                 const double **y, const double **pcert, const double **dcert)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_get_solution: solver is NULL");
    if (s->chunks) return gala_qp_chunked_get_solution(s, k, x, y, pcert, dcert);
    if (k < 0 || k >= s->count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_solution: k = %d outside "
                          "0..%d", k, s->count - 1);
    if (!s->solved)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_solution: not solved yet");
    GALA_TRY(gala_qp_dio_host((gala_qp_solver *)s, QP_DIO_VERDICTS)); /* host_status */
    /* QPs without a solution or certificate point at a NaN vector */
    const int stv = s->info[k].status;
    const int sol = s->slot[k] >= 0 && !s->host_status[k] && has_solution(stv);
    const int cert = s->res.cert_offset[k] != SIZE_MAX;
    if (x) *x = sol ? s->res.x + s->res.x_offset[k] : s->res.nan_vec;
    if (y) *y = sol ? s->res.y + s->res.y_offset[k] : s->res.nan_vec;
    if (pcert) *pcert = cert && primal_inf(stv) ? s->res.cert + s->res.cert_offset[k] : s->res.nan_vec;
    if (dcert) *dcert = cert && dual_inf(stv) ? s->res.cert + s->res.cert_offset[k] : s->res.nan_vec;
    return GALA_OK;
}

gala_status gala_qp_get_infos(const gala_qp_solver *s, int k0, int count, gala_qp_info *infos)
{
    static const char fn[] = "gala_qp_get_infos";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (s->chunks) return gala_qp_chunked_get_infos(s, k0, count, infos);
    if (!infos && count > 0) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: infos is NULL", fn);
    if (k0 < 0 || count < 0 || k0 > s->count - count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: QPs %d..%d outside 0..%d", fn, k0,
                          k0 + count - 1, s->count - 1);
    GALA_TRY(gala_qp_dio_host((gala_qp_solver *)s, QP_DIO_VERDICTS)); /* as gala_qp_get_info */
    for (int k = 0; k < count; ++k) {
        infos[k] = s->info[k0 + k];
        infos[k].update_time = s->update_time;
    }
    return GALA_OK;
}

/* gala_qp_get_solutions over a range of QPs: copies, or NaN for QPs without a solution. */
typedef struct {
    const gala_qp_solver *s;
    double *x, *y;
} sol_job;

static void sol_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    const sol_job *j = arg;
    const gala_qp_solver *s = j->s;
    for (long k = b; k < e; ++k) {
        const int sol = s->slot[k] >= 0 && !s->host_status[k] && has_solution(s->info[k].status);
        const size_t n = (size_t)s->qp_n[k], m = (size_t)s->qp_m[k];
        if (j->x && sol) memcpy(j->x + s->res.x_offset[k], s->res.x + s->res.x_offset[k], sizeof(double) * n);
        if (j->y && sol) memcpy(j->y + s->res.y_offset[k], s->res.y + s->res.y_offset[k], sizeof(double) * m);
        for (size_t i = 0; j->x && !sol && i < n; ++i) j->x[s->res.x_offset[k] + i] = NAN;
        for (size_t i = 0; j->y && !sol && i < m; ++i) j->y[s->res.y_offset[k] + i] = NAN;
    }
}

gala_status gala_qp_get_solutions(const gala_qp_solver *s, double *x, double *y)
{
    static const char fn[] = "gala_qp_get_solutions";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (s->chunks) return gala_qp_chunked_get_solutions(s, x, y);
    if (!s->solved) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: not solved yet", fn);
    GALA_TRY(gala_qp_dio_host((gala_qp_solver *)s, QP_DIO_VERDICTS)); /* host_status */
    /* on the solver's host threads: a batch's results are tens of MB, and the caller's
     * arrays are often fresh (their pages are first touched here) */
    sol_job j = {s, x, y};
    gala_par(s->ctx, s->count > 256 ? s->nthreads : 1, s->count, 64, sol_range, &j);
    return GALA_OK;
}
