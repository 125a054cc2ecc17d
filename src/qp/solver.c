/* The batched QP solver's host driver: settings, validation, device layout, setup, the
 * solve loop (launch, occasionally read a counter), results, updates. docs/qp.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"
#include "qp_polish.h"

/* ------------------------------------------------------------------ settings, names */

void gala_qp_settings_default(gala_qp_settings *s)
{
    if (!s) return;
    memset(s, 0, sizeof *s);
    s->linsys_solver = GALA_QP_LINSYS_AUTO;
    s->warm_starting = 1;
    s->scaling = 10;
    s->polishing = 0;
    s->rho = 0.1;
    s->rho_is_vec = 1;
    s->sigma = 1e-6;
    s->alpha = 1.6;
    s->adaptive_rho = GALA_QP_ADAPTIVE_RHO_ITERATIONS;
    s->adaptive_rho_interval = 50;
    s->adaptive_rho_fraction = 0.4;
    s->adaptive_rho_tolerance = 5.0;
    s->max_iter = 4000;
    s->eps_abs = 1e-3;
    s->eps_rel = 1e-3;
    s->eps_prim_inf = 1e-4;
    s->eps_dual_inf = 1e-4;
    s->scaled_termination = 0;
    s->check_termination = 25;
    s->check_dualgap = -1;
    s->time_limit = 1e10;
    s->delta = 1e-6;
    s->polish_refine_iter = 3;
    s->dtype = GALA_DOUBLE;
    s->rho_ladder_ratio = 5.0;
    s->iters_per_launch = 0;
    s->refine = -1;
}

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

static gala_status check_settings(gala_context *ctx, const gala_qp_settings *s)
{
    static const char fn[] = "gala_qp_setup";
#define BAD(cond, ...) if (cond) return gala_error(ctx, GALA_ERR_INVALID_ARG, __VA_ARGS__)
    BAD(s->linsys_solver < 0 || s->linsys_solver > 3, "%s: linsys_solver = %d", fn, s->linsys_solver);
    BAD(s->scaling < 0, "%s: scaling = %d < 0", fn, s->scaling);
    BAD(!(s->rho > 0), "%s: rho = %g must be > 0", fn, s->rho);
    BAD(!(s->sigma > 0), "%s: sigma = %g must be > 0", fn, s->sigma);
    BAD(!(s->alpha > 0 && s->alpha < 2), "%s: alpha = %g must be in (0, 2)", fn, s->alpha);
    BAD(s->adaptive_rho < 0 || s->adaptive_rho > 2, "%s: adaptive_rho = %d is not supported "
        "(0, 1 or 2)", fn, s->adaptive_rho);
    BAD(s->adaptive_rho_interval < 0, "%s: adaptive_rho_interval < 0", fn);
    BAD(!(s->adaptive_rho_fraction > 0), "%s: adaptive_rho_fraction must be > 0", fn);
    BAD(!(s->adaptive_rho_tolerance >= 1), "%s: adaptive_rho_tolerance must be >= 1", fn);
    BAD(s->max_iter < 1, "%s: max_iter = %d < 1", fn, s->max_iter);
    BAD(!(s->eps_abs >= 0) || !(s->eps_rel >= 0) || !(s->eps_prim_inf >= 0) ||
        !(s->eps_dual_inf >= 0), "%s: tolerances must be >= 0", fn);
    BAD(s->check_termination < 0, "%s: check_termination < 0", fn);
    BAD(s->check_dualgap < -1 || s->check_dualgap > 1, "%s: check_dualgap = %d", fn, s->check_dualgap);
    BAD(!(s->time_limit >= 0), "%s: time_limit < 0", fn);
    BAD(!(s->delta > 0), "%s: delta must be > 0", fn);
    BAD(s->dtype != GALA_FLOAT && s->dtype != GALA_DOUBLE, "%s: dtype must be GALA_FLOAT or "
        "GALA_DOUBLE", fn);
    BAD(!(s->rho_ladder_ratio > 1), "%s: rho_ladder_ratio must be > 1", fn);
    BAD(s->iters_per_launch < 0, "%s: iters_per_launch < 0", fn);
    BAD(s->refine < -1 || s->refine > 1, "%s: refine = %d (-1, 0 or 1)", fn, s->refine);
    BAD(s->threads < 0, "%s: threads = %d < 0", fn, s->threads);
    BAD(s->profile < 0 || s->profile > 1, "%s: profile = %d (0 or 1)", fn, s->profile);
#undef BAD
    if (s->linsys_solver == GALA_QP_LINSYS_SPARSE_LDLT)
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "%s: the sparse LDLT strategy is not "
                          "available in this build", fn);
    return GALA_OK;
}

/* ------------------------------------------------------------------ profile */

void gala_qp_prof_start(gala_qp_solver *s)
{
    if (s->set.profile) s->prof_t = gala_now();
}

void gala_qp_prof(gala_qp_solver *s, int phase)
{
    if (!s->set.profile) return;
    if (s->in_solve && (phase == GALA_QP_PHASE_FORM_K || phase == GALA_QP_PHASE_FACTOR))
        phase = GALA_QP_PHASE_REFACTOR;
    (void)gala_finish(s->ctx); /* a device error shows in the next operation's status */
    double t = gala_now();
    s->prof.seconds[phase] += t - s->prof_t;
    s->prof.calls[phase]++;
    s->prof_t = t;
}

static void prof_reset(gala_qp_solver *s, int first, int last)
{
    for (int p = first; p <= last; ++p) {
        s->prof.seconds[p] = 0;
        s->prof.calls[p] = 0;
    }
}

gala_status gala_qp_get_profile(const gala_qp_solver *s, gala_qp_profile *p)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_get_profile: solver is NULL");
    if (!p) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_profile: profile is NULL");
    *p = s->prof;
    p->enabled = s->set.profile != 0;
    return GALA_OK;
}

const char *gala_qp_phase_name(int phase)
{
    static const char *names[GALA_QP_NPHASES] = {
        "validate", "layout", "upload", "scale", "form_k", "factor", "setup_other",
        "iterate", "check", "sync", "refactor", "collect", "polish", "solve_other"};
    return phase >= 0 && phase < GALA_QP_NPHASES ? names[phase] : "unknown";
}

/* ------------------------------------------------------------------ problem copies */

static double clamp_inf(double v)
{
    return v > QP_INFTY ? QP_INFTY : (v < -QP_INFTY ? -QP_INFTY : v);
}

/* Validate one problem; on failure write the reason into msg and return nonzero. */
static int invalid_problem(const gala_qp_problem *p, char *msg, size_t cap)
{
    if (p->n < 1) { snprintf(msg, cap, "n = %d: need at least one variable", p->n); return 1; }
    if (p->m < 0) { snprintf(msg, cap, "m = %d < 0", p->m); return 1; }
    if (p->P.m != p->n || p->P.n != p->n) {
        snprintf(msg, cap, "P is %d×%d, expected %d×%d", p->P.m, p->P.n, p->n, p->n);
        return 1;
    }
    if (p->A.m != p->m || p->A.n != p->n) {
        snprintf(msg, cap, "A is %d×%d, expected %d×%d", p->A.m, p->A.n, p->m, p->n);
        return 1;
    }
    if (!p->q || (p->m > 0 && (!p->l || !p->u))) { snprintf(msg, cap, "q, l or u is NULL"); return 1; }
    gala_status st = gala_csc_validate(NULL, "P", &p->P, 1);
    if (st != GALA_OK) { snprintf(msg, cap, "%s", gala_last_error(NULL)); return 1; }
    st = gala_csc_validate(NULL, "A", &p->A, 0);
    if (st != GALA_OK) { snprintf(msg, cap, "%s", gala_last_error(NULL)); return 1; }
    if (!isfinite(p->c0)) { snprintf(msg, cap, "c0 is not finite"); return 1; }
    for (int j = 0; j < p->n; ++j)
        if (!isfinite(p->q[j])) { snprintf(msg, cap, "q[%d] = %g", j, p->q[j]); return 1; }
    for (int i = 0; i < p->m; ++i) {
        if (isnan(p->l[i]) || isnan(p->u[i]) || p->l[i] == INFINITY || p->u[i] == -INFINITY) {
            snprintf(msg, cap, "bounds of row %d are (%g, %g)", i, p->l[i], p->u[i]);
            return 1;
        }
        if (p->l[i] > p->u[i]) {
            snprintf(msg, cap, "l[%d] = %g > u[%d] = %g", i, p->l[i], i, p->u[i]);
            return 1;
        }
    }
    return 0;
}

static gala_status copy_problem(gala_qp_problem *d, const gala_qp_problem *p)
{
    memset(d, 0, sizeof *d);
    memcpy(d->name, p->name, sizeof d->name);
    d->name[sizeof d->name - 1] = 0;
    d->n = p->n;
    d->m = p->m;
    d->c0 = p->c0;
    d->owned = 1;
    int pn = p->P.p[p->n], an = p->A.p[p->n];
    d->P.m = d->P.n = p->n;
    d->A.m = p->m;
    d->A.n = p->n;
    d->P.p = gala_malloc(sizeof(int) * (size_t)(p->n + 1));
    d->A.p = gala_malloc(sizeof(int) * (size_t)(p->n + 1));
    d->P.i = gala_malloc(sizeof(int) * (size_t)(pn ? pn : 1));
    d->P.x = gala_malloc(sizeof(double) * (size_t)(pn ? pn : 1));
    d->A.i = gala_malloc(sizeof(int) * (size_t)(an ? an : 1));
    d->A.x = gala_malloc(sizeof(double) * (size_t)(an ? an : 1));
    d->q = gala_malloc(sizeof(double) * (size_t)p->n);
    d->l = gala_malloc(sizeof(double) * (size_t)(p->m ? p->m : 1));
    d->u = gala_malloc(sizeof(double) * (size_t)(p->m ? p->m : 1));
    if (!d->P.p || !d->A.p || !d->P.i || !d->P.x || !d->A.i || !d->A.x || !d->q || !d->l || !d->u)
        return GALA_ERR_OUT_OF_MEMORY;
    memcpy(d->P.p, p->P.p, sizeof(int) * (size_t)(p->n + 1));
    memcpy(d->A.p, p->A.p, sizeof(int) * (size_t)(p->n + 1));
    if (pn) memcpy(d->P.i, p->P.i, sizeof(int) * (size_t)pn);
    if (pn) memcpy(d->P.x, p->P.x, sizeof(double) * (size_t)pn);
    if (an) memcpy(d->A.i, p->A.i, sizeof(int) * (size_t)an);
    if (an) memcpy(d->A.x, p->A.x, sizeof(double) * (size_t)an);
    memcpy(d->q, p->q, sizeof(double) * (size_t)p->n);
    for (int i = 0; i < p->m; ++i) {
        d->l[i] = clamp_inf(p->l[i]);
        d->u[i] = clamp_inf(p->u[i]);
    }
    return GALA_OK;
}

/* ------------------------------------------------------------------ device helpers */

static gala_status write_real(gala_qp_solver *s, gala_buffer *b, size_t off, size_t count,
                              const double *src)
{
    if (!count) return GALA_OK;
    if (s->dt == GALA_DOUBLE) return gala_buffer_write(b, off, count, src);
    float *tmp = gala_malloc(count * sizeof(float));
    if (!tmp) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    for (size_t i = 0; i < count; ++i) tmp[i] = (float)src[i];
    gala_status st = gala_buffer_write(b, off, count, tmp);
    gala_free(tmp);
    return st;
}

static gala_status read_real(gala_qp_solver *s, const gala_buffer *b, size_t off, size_t count,
                             double *dst)
{
    if (!count) return GALA_OK;
    if (s->dt == GALA_DOUBLE) return gala_buffer_read(b, off, count, dst);
    float *tmp = gala_malloc(count * sizeof(float));
    if (!tmp) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = gala_buffer_read(b, off, count, tmp);
    for (size_t i = 0; st == GALA_OK && i < count; ++i) dst[i] = tmp[i];
    gala_free(tmp);
    return st;
}

static gala_status mkbuf(gala_qp_solver *s, gala_dtype dt, size_t count, gala_buffer **b)
{
    return gala_buffer_create(s->ctx, dt, count ? count : 1, b);
}

void gala_qp_key(const gala_qp_solver *s, gala_program_key *key, int wg, int tb, int ncap,
                 int mcap, int vlocal)
{
    gala_key_init(key, "qp", s->dt);
    gala_key_def(key, "WG", wg);
    gala_key_def(key, "TB", tb);
    gala_key_def(key, "NCAP", ncap);
    gala_key_def(key, "MCAP", mcap);
    gala_key_def(key, "VLOCAL", vlocal);
    gala_key_def(key, "REFINE", s->refine);
}

gala_status gala_qp_kernel(gala_qp_solver *s, const char *name, gala_kernel **k)
{
    gala_program_key key;
    gala_qp_key(s, &key, QP_UTIL_WG, 1, 1, 1, 0);
    return gala_kernel_get(s->ctx, &key, name, k);
}

size_t gala_qp_admm_local_bytes(const gala_qp_solver *s, int wg, int tb, int ncap, int mcap,
                                int vlocal)
{
    size_t r = gala_dtype_size(s->dt);
    size_t v = vlocal ? (size_t)tb * (3 * (size_t)ncap + 2 * (size_t)mcap) * r : 0;
    if (vlocal && s->refine) v += (size_t)tb * ((size_t)ncap + (size_t)mcap) * r;
    return v + (4 * (size_t)wg + (size_t)tb * QP_NRES + (size_t)tb) * r + (size_t)tb * 32;
}

/* Launch geometry: one work-group per QP (or tile, or job) along dimension 0. */
static gala_dims qp_dims(long long groups, int wg)
{
    if (groups < 1) groups = 1;
    return gala_dims_1d((size_t)groups * (size_t)wg, (size_t)wg);
}

gala_status gala_qp_launch_admm(gala_qp_solver *s, gala_buffer *list, int nlist, int wg, int tb,
                                int ncap, int mcap, int vlocal, int iters, int check, int adapt,
                                int final_status)
{
    gala_program_key key;
    gala_kernel *k, *kc;
    gala_qp_key(s, &key, wg, tb, ncap, mcap, vlocal);
    GALA_TRY(gala_kernel_get(s->ctx, &key, "qp_admm", &k));
    GALA_TRY(gala_kernel_get(s->ctx, &key, "qp_check", &kc));
    const gala_qp_settings *st = &s->set;
    gala_dims d = qp_dims(((long long)nlist + tb - 1) / tb, wg);
#define ADMM_ARGS ga_buf(s->b_meta), ga_buf(list), ga_int(nlist),                                 \
        ga_buf(s->b_state), ga_buf(s->b_info), ga_buf(s->b_refac),                                \
        ga_buf(s->b_rp), ga_buf(s->b_ci), ga_buf(s->b_mv), ga_buf(s->b_K),                        \
        ga_buf(s->b_vn), ga_long((long long)s->ntot), ga_buf(s->b_vm),                            \
        ga_long((long long)s->mtot), ga_buf(s->b_ctype), ga_buf(s->b_lrho),                       \
        ga_buf(s->b_rungok), ga_int(s->shared ? s->nrungs : 0),                                   \
        ga_int(0), ga_int(s->lad_ks), ga_int(iters), ga_int(check),                               \
        ga_int(adapt), ga_int(final_status), ga_int(st->scaled_termination),                      \
        ga_int(s->dualgap), ga_real(st->sigma), ga_real(st->alpha),                               \
        ga_real(st->eps_abs), ga_real(st->eps_rel), ga_real(st->eps_prim_inf),                    \
        ga_real(st->eps_dual_inf), ga_real(st->adaptive_rho_tolerance)
    if (iters > 0) {
        GALA_TRY(GALA_LAUNCH(s->ctx, k, &d, ADMM_ARGS));
        gala_qp_prof(s, GALA_QP_PHASE_ITERATE);
    }
    if (check || final_status) {
        GALA_TRY(GALA_LAUNCH(s->ctx, kc, &d, ADMM_ARGS));
        gala_qp_prof(s, GALA_QP_PHASE_CHECK);
    }
    return GALA_OK;
#undef ADMM_ARGS
}

static gala_status launch_scale(gala_qp_solver *s, gala_buffer *list, int nlist)
{
    gala_kernel *kn, *ku, *ka;
    GALA_TRY(gala_qp_kernel(s, "qp_scale_norms", &kn));
    GALA_TRY(gala_qp_kernel(s, "qp_scale_update", &ku));
    GALA_TRY(gala_qp_kernel(s, "qp_scale_apply", &ka));
    gala_dims d = qp_dims(nlist, QP_UTIL_WG);
#define SCALE_ARGS ga_buf(s->b_meta), ga_buf(list), ga_int(nlist), ga_buf(s->b_rp), ga_buf(s->b_ci), \
        ga_buf(s->b_mv), ga_buf(s->b_vn), ga_long((long long)s->ntot), ga_buf(s->b_vm),           \
        ga_long((long long)s->mtot), ga_buf(s->b_info)
    for (int it = 0; it < s->set.scaling; ++it) {
        GALA_TRY(GALA_LAUNCH(s->ctx, kn, &d, SCALE_ARGS));
        GALA_TRY(GALA_LAUNCH(s->ctx, ku, &d, SCALE_ARGS));
    }
    return GALA_LAUNCH(s->ctx, ka, &d, SCALE_ARGS, ga_buf(s->b_ctype), ga_int(s->set.rho_is_vec));
#undef SCALE_ARGS
}

static gala_status launch_ax(gala_qp_solver *s, gala_buffer *list, int nlist)
{
    gala_kernel *k;
    GALA_TRY(gala_qp_kernel(s, "qp_ax", &k));
    gala_dims d = qp_dims(nlist, QP_UTIL_WG);
    return GALA_LAUNCH(s->ctx, k, &d, ga_buf(s->b_meta), ga_buf(list), ga_int(nlist),
                       ga_buf(s->b_rp), ga_buf(s->b_ci), ga_buf(s->b_mv), ga_buf(s->b_vn),
                       ga_long((long long)s->ntot), ga_buf(s->b_vm), ga_long((long long)s->mtot));
}

/* running QPs and QPs waiting for a refactorization */
static gala_status count_running(gala_qp_solver *s, int out[2])
{
    gala_kernel *k;
    GALA_TRY(gala_qp_kernel(s, "qp_count", &k));
    gala_dims d = gala_dims_1d(QP_UTIL_WG, QP_UTIL_WG);
    GALA_TRY(GALA_LAUNCH(s->ctx, k, &d, ga_buf(s->b_ident), ga_int(s->nvalid),
                         ga_buf(s->b_state), ga_buf(s->b_refac), ga_buf(s->b_cnt)));
    GALA_TRY(gala_buffer_read(s->b_cnt, 0, 2, out));
    gala_qp_prof(s, GALA_QP_PHASE_SYNC);
    return GALA_OK;
}

/* ------------------------------------------------------------------ layout */

/* Build the CSR forms of slot `sl` (problem p) into rp/ci/mv at the given cursors. */
static void build_matrices(gala_qp_solver *s, int sl, const gala_qp_problem *p, int *rp,
                           size_t *rpc, int *ci, double *mv, size_t *nzc)
{
    int n = p->n, m = p->m;
    int *mt = s->meta + (size_t)sl * QP_NMETA;
    /* P: full symmetric CSR from the upper CSC */
    int *Pp = rp + *rpc;
    mt[QP_M_PP] = (int)*rpc;
    *rpc += (size_t)n + 1;
    for (int r = 0; r <= n; ++r) Pp[r] = 0;
    for (int j = 0; j < n; ++j)
        for (int k = p->P.p[j]; k < p->P.p[j + 1]; ++k) {
            int i = p->P.i[k];
            Pp[i + 1]++;
            if (i != j) Pp[j + 1]++;
        }
    Pp[0] = (int)*nzc;
    for (int r = 0; r < n; ++r) Pp[r + 1] += Pp[r];
    int *fill = gala_malloc(sizeof(int) * (size_t)(n > m ? n : m) + sizeof(int));
    for (int r = 0; r < n; ++r) fill[r] = Pp[r];
    int *ppos = s->p_pos + 2 * s->p_base[sl];
    for (int j = 0; j < n; ++j)
        for (int k = p->P.p[j]; k < p->P.p[j + 1]; ++k) {
            int i = p->P.i[k];
            if (i != j) { /* mirror (j, i) goes to row j; (i, j) to row i */
                ppos[2 * k + 1] = fill[j];
                ci[fill[j]] = i;
                mv[fill[j]++] = p->P.x[k];
            } else {
                ppos[2 * k + 1] = -1;
            }
            ppos[2 * k] = fill[i];
            ci[fill[i]] = j;
            mv[fill[i]++] = p->P.x[k];
        }
    *nzc = (size_t)Pp[n];
    /* A: CSR */
    int *Ap = rp + *rpc;
    mt[QP_M_AP] = (int)*rpc;
    *rpc += (size_t)m + 1;
    for (int r = 0; r <= m; ++r) Ap[r] = 0;
    for (int k = 0; k < p->A.p[n]; ++k) Ap[p->A.i[k] + 1]++;
    Ap[0] = (int)*nzc;
    for (int r = 0; r < m; ++r) Ap[r + 1] += Ap[r];
    for (int r = 0; r < m; ++r) fill[r] = Ap[r];
    int *apos = s->a_pos + s->a_base[sl];
    for (int j = 0; j < n; ++j)
        for (int k = p->A.p[j]; k < p->A.p[j + 1]; ++k) {
            int i = p->A.i[k];
            apos[k] = fill[i];
            ci[fill[i]] = j;
            mv[fill[i]++] = p->A.x[k];
        }
    *nzc = (size_t)Ap[m];
    /* Aᵀ: CSR = A's CSC */
    int *Tp = rp + *rpc;
    mt[QP_M_TP] = (int)*rpc;
    *rpc += (size_t)n + 1;
    s->t_base[sl] = (int)*nzc;
    for (int j = 0; j <= n; ++j) Tp[j] = (int)*nzc + p->A.p[j];
    for (int k = 0; k < p->A.p[n]; ++k) {
        ci[*nzc + (size_t)k] = p->A.i[k];
        mv[*nzc + (size_t)k] = p->A.x[k];
    }
    *nzc += (size_t)p->A.p[n];
    gala_free(fill);
}

/* Whether two problems have the same P and A (pattern and values) and row kinds. */
static int same_matrices(const gala_qp_problem *a, const gala_qp_problem *b)
{
    if (a->n != b->n || a->m != b->m) return 0;
    int n = a->n;
    if (memcmp(a->P.p, b->P.p, sizeof(int) * (size_t)(n + 1)) ||
        memcmp(a->A.p, b->A.p, sizeof(int) * (size_t)(n + 1)))
        return 0;
    size_t pn = (size_t)a->P.p[n], an = (size_t)a->A.p[n];
    if ((pn && (memcmp(a->P.i, b->P.i, sizeof(int) * pn) || memcmp(a->P.x, b->P.x, sizeof(double) * pn))) ||
        (an && (memcmp(a->A.i, b->A.i, sizeof(int) * an) || memcmp(a->A.x, b->A.x, sizeof(double) * an))))
        return 0;
    for (int i = 0; i < a->m; ++i) {
        int ka = a->l[i] <= -QP_INFTY && a->u[i] >= QP_INFTY ? 0 : (a->l[i] == a->u[i] ? 2 : 1);
        int kb = b->l[i] <= -QP_INFTY && b->u[i] >= QP_INFTY ? 0 : (b->l[i] == b->u[i] ? 2 : 1);
        if (ka != kb) return 0;
    }
    return 1;
}

/* Host-side scaling of the vectors of slot sl from the unscaled problem: vn/vm staging. */
static void scale_vectors(gala_qp_solver *s, int sl, double *q, double *l, double *u)
{
    const gala_qp_problem *p = &s->pb[s->qp_of[sl]];
    const int *mt = s->meta + (size_t)sl * QP_NMETA;
    size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO];
    double c = s->c[sl];
    for (int j = 0; j < p->n; ++j) q[j] = c * s->D[xo + (size_t)j] * p->q[j];
    for (int i = 0; i < p->m; ++i) {
        l[i] = s->E[zo + (size_t)i] * p->l[i];
        u[i] = s->E[zo + (size_t)i] * p->u[i];
    }
}

static int row_kind(const gala_qp_solver *s, double l, double u)
{
    if (!s->set.rho_is_vec) return 1;
    if (l < -QP_INFV && u > QP_INFV) return 0;
    if (u - l < 1e-4) return 2;
    return 1;
}

/* Download the scaling (D, E, c) and row kinds computed on the device. */
static gala_status fetch_scaling(gala_qp_solver *s)
{
    GALA_TRY(read_real(s, s->b_vn, QP_V_D * s->ntot, s->ntot, s->D));
    GALA_TRY(read_real(s, s->b_vm, QP_V_E * s->mtot, s->mtot, s->E));
    double *inf = gala_malloc(sizeof(double) * (size_t)s->nvalid * QP_NINFO);
    if (!inf) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = read_real(s, s->b_info, 0, (size_t)s->nvalid * QP_NINFO, inf);
    for (int sl = 0; st == GALA_OK && sl < s->nvalid; ++sl) s->c[sl] = inf[(size_t)sl * QP_NINFO + QP_I_C];
    gala_free(inf);
    if (st == GALA_OK && s->mtot) st = gala_buffer_read(s->b_ctype, 0, s->mtot, s->ctype);
    return st;
}

/* Upload the unscaled q, l, u (and reset D, E) of every slot, then scale on the device. In
 * shared mode only slot 0 is scaled on the device; its D, E, c are applied to every slot on
 * the host (the matrices are stored once). */
static gala_status scale_all(gala_qp_solver *s)
{
    size_t nt = s->ntot, mt_ = s->mtot;
    double *q = gala_calloc(nt ? nt : 1, sizeof(double));
    double *l = gala_calloc(mt_ ? mt_ : 1, sizeof(double));
    double *u = gala_calloc(mt_ ? mt_ : 1, sizeof(double));
    gala_status st = GALA_OK;
    if (!q || !l || !u) st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    for (int sl = 0; st == GALA_OK && sl < s->nvalid; ++sl) {
        const gala_qp_problem *p = &s->pb[s->qp_of[sl]];
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        memcpy(q + mt[QP_M_XO], p->q, sizeof(double) * (size_t)p->n);
        if (p->m) {
            memcpy(l + mt[QP_M_ZO], p->l, sizeof(double) * (size_t)p->m);
            memcpy(u + mt[QP_M_ZO], p->u, sizeof(double) * (size_t)p->m);
        }
    }
    if (st == GALA_OK) st = write_real(s, s->b_vn, QP_V_Q * nt, nt, q);
    if (st == GALA_OK) st = write_real(s, s->b_vm, QP_V_L * mt_, mt_, l);
    if (st == GALA_OK) st = write_real(s, s->b_vm, QP_V_U * mt_, mt_, u);
    if (st == GALA_OK) {
        double *inf = gala_malloc(sizeof(double) * (size_t)s->nvalid * QP_NINFO);
        if (!inf) st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
        if (st == GALA_OK) st = read_real(s, s->b_info, 0, (size_t)s->nvalid * QP_NINFO, inf);
        for (int sl = 0; st == GALA_OK && sl < s->nvalid; ++sl) inf[(size_t)sl * QP_NINFO + QP_I_C] = 1;
        if (st == GALA_OK) st = write_real(s, s->b_info, 0, (size_t)s->nvalid * QP_NINFO, inf);
        gala_free(inf);
    }
    if (st == GALA_OK) st = gala_buffer_fill(s->b_vn, QP_V_D * nt, nt, 1);
    if (st == GALA_OK && mt_) st = gala_buffer_fill(s->b_vm, QP_V_E * mt_, mt_, 1);
    if (st == GALA_OK) st = launch_scale(s, s->b_ident, s->shared ? 1 : s->nvalid);
    if (st == GALA_OK) st = fetch_scaling(s);
    if (st == GALA_OK && s->shared) {
        /* apply slot 0's scaling to every slot */
        const gala_qp_problem *p0 = &s->pb[s->qp_of[0]];
        int n = p0->n, m = p0->m;
        for (int sl = 1; sl < s->nvalid; ++sl) {
            const int *mt = s->meta + (size_t)sl * QP_NMETA;
            memcpy(s->D + mt[QP_M_XO], s->D, sizeof(double) * (size_t)n);
            memcpy(s->E + mt[QP_M_ZO], s->E, sizeof(double) * (size_t)m);
            s->c[sl] = s->c[0];
        }
        for (int sl = 0; sl < s->nvalid; ++sl) {
            const int *mt = s->meta + (size_t)sl * QP_NMETA;
            scale_vectors(s, sl, q + mt[QP_M_XO], l + mt[QP_M_ZO], u + mt[QP_M_ZO]);
            for (int i = 0; i < m; ++i) {
                int kd = row_kind(s, l[mt[QP_M_ZO] + i], u[mt[QP_M_ZO] + i]);
                if (kd != s->ctype[i]) {
                    int k = s->qp_of[sl];
                    s->host_status[k] = GALA_QP_INVALID_DATA;
                    snprintf(s->info[k].message, sizeof s->info[k].message, "row %d's kind "
                             "differs from the shared pattern after scaling", i);
                }
                s->ctype[mt[QP_M_ZO] + i] = s->ctype[i];
            }
        }
        double *inf = gala_calloc((size_t)s->nvalid * QP_NINFO, sizeof(double));
        if (!inf) st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
        for (int sl = 0; st == GALA_OK && sl < s->nvalid; ++sl) {
            inf[(size_t)sl * QP_NINFO + QP_I_C] = s->c[sl];
            inf[(size_t)sl * QP_NINFO + QP_I_RHO] = s->set.rho;
        }
        if (st == GALA_OK) st = write_real(s, s->b_info, 0, (size_t)s->nvalid * QP_NINFO, inf);
        gala_free(inf);
        if (st == GALA_OK) st = write_real(s, s->b_vn, QP_V_Q * nt, nt, q);
        if (st == GALA_OK) st = write_real(s, s->b_vn, QP_V_D * nt, nt, s->D);
        if (st == GALA_OK) st = write_real(s, s->b_vm, QP_V_L * mt_, mt_, l);
        if (st == GALA_OK) st = write_real(s, s->b_vm, QP_V_U * mt_, mt_, u);
        if (st == GALA_OK) st = write_real(s, s->b_vm, QP_V_E * mt_, mt_, s->E);
        if (st == GALA_OK && mt_) st = gala_buffer_write(s->b_ctype, 0, mt_, s->ctype);
    }
    gala_free(q);
    gala_free(l);
    gala_free(u);
    return st;
}

/* Reset the device state of every slot: status running (or invalid), counters zero. */
static gala_status reset_state(gala_qp_solver *s, int keep_rung)
{
    size_t ns = (size_t)s->nvalid * QP_NSTATE;
    int *st = gala_calloc(ns ? ns : 1, sizeof(int));
    if (!st) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status r = keep_rung ? gala_buffer_read(s->b_state, 0, ns, st) : GALA_OK;
    for (int sl = 0; r == GALA_OK && sl < s->nvalid; ++sl) {
        int *e = st + (size_t)sl * QP_NSTATE;
        int old = e[QP_S_STATUS];
        e[QP_S_STATUS] = s->host_status[s->qp_of[sl]] ? GALA_QP_INVALID_DATA :
                         (old == GALA_QP_NON_CVX && keep_rung ? GALA_QP_NON_CVX : 0);
        e[QP_S_ITER] = 0;
        e[QP_S_RHOUPD] = 0;
        if (!keep_rung) e[QP_S_RUNG] = s->rung0;
    }
    if (r == GALA_OK) r = gala_buffer_write(s->b_state, 0, ns, st);
    gala_free(st);
    return r;
}

/* ------------------------------------------------------------------ setup */

static gala_status setup_impl(gala_qp_solver *s, const gala_qp_problem *problems)
{
    gala_context *ctx = s->ctx;
    int count = s->count;
    s->pb = gala_calloc((size_t)count, sizeof *s->pb);
    s->info = gala_calloc((size_t)count, sizeof *s->info);
    s->host_status = gala_calloc((size_t)count, sizeof(int));
    s->slot = gala_malloc(sizeof(int) * (size_t)count);
    s->qp_of = gala_malloc(sizeof(int) * (size_t)count);
    s->hxo = gala_malloc(sizeof(size_t) * (size_t)count);
    s->hzo = gala_malloc(sizeof(size_t) * (size_t)count);
    if (!s->pb || !s->info || !s->host_status || !s->slot || !s->qp_of || !s->hxo || !s->hzo)
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");

    /* validate and copy */
    size_t hn = 0, hm = 0;
    for (int k = 0; k < count; ++k) {
        gala_qp_info *in = &s->info[k];
        in->status = GALA_QP_UNSOLVED;
        s->slot[k] = -1;
        s->hxo[k] = hn;
        s->hzo[k] = hm;
        if (invalid_problem(&problems[k], in->message, sizeof in->message)) {
            s->host_status[k] = GALA_QP_INVALID_DATA;
            in->status = GALA_QP_INVALID_DATA;
            s->pb[k].n = problems[k].n > 0 ? problems[k].n : 0;
            s->pb[k].m = problems[k].m > 0 ? problems[k].m : 0;
        } else {
            if (copy_problem(&s->pb[k], &problems[k]) != GALA_OK)
                return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
            s->slot[k] = s->nvalid;
            s->qp_of[s->nvalid++] = k;
        }
        hn += (size_t)s->pb[k].n;
        hm += (size_t)s->pb[k].m;
    }
    gala_qp_prof(s, GALA_QP_PHASE_VALIDATE);
    s->x = gala_malloc(sizeof(double) * (hn ? hn : 1));
    s->dcert = gala_malloc(sizeof(double) * (hn ? hn : 1));
    s->y = gala_malloc(sizeof(double) * (hm ? hm : 1));
    s->pcert = gala_malloc(sizeof(double) * (hm ? hm : 1));
    if (!s->x || !s->y || !s->pcert || !s->dcert)
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    if (s->nvalid == 0) return GALA_OK;

    /* strategy */
    int shared = 0;
    if (s->set.linsys_solver != GALA_QP_LINSYS_DENSE) {
        shared = s->nvalid > 1;
        for (int sl = 1; shared && sl < s->nvalid; ++sl)
            shared = same_matrices(&s->pb[s->qp_of[0]], &s->pb[s->qp_of[sl]]);
        if (s->set.linsys_solver == GALA_QP_LINSYS_DENSE_SHARED && !shared && s->nvalid > 1)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: DENSE_SHARED needs the "
                              "same P, A and row kinds (equality / inequality / free) in every QP");
        if (s->set.linsys_solver == GALA_QP_LINSYS_DENSE_SHARED) shared = 1;
    }
    s->shared = shared;
    s->ls = shared ? &gala_qp_linsys_shared : &gala_qp_linsys_dense;

    /* layout */
    s->meta = gala_calloc((size_t)s->nvalid * QP_NMETA, sizeof(int));
    s->p_base = gala_malloc(sizeof(size_t) * (size_t)s->nvalid);
    s->a_base = gala_malloc(sizeof(size_t) * (size_t)s->nvalid);
    s->t_base = gala_malloc(sizeof(int) * (size_t)s->nvalid);
    s->c = gala_malloc(sizeof(double) * (size_t)s->nvalid);
    if (!s->meta || !s->p_base || !s->a_base || !s->t_base || !s->c)
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    size_t pcsc = 0, acsc = 0, nrp = 0, nnz = 0;
    for (int sl = 0; sl < s->nvalid; ++sl) {
        const gala_qp_problem *p = &s->pb[s->qp_of[sl]];
        int *mt = s->meta + (size_t)sl * QP_NMETA;
        mt[QP_M_N] = p->n;
        mt[QP_M_M] = p->m;
        mt[QP_M_XO] = (int)s->ntot;
        mt[QP_M_ZO] = (int)s->mtot;
        s->ntot += (size_t)p->n;
        s->mtot += (size_t)p->m;
        s->p_base[sl] = pcsc;
        s->a_base[sl] = acsc;
        if (!shared || sl == 0) {
            pcsc += (size_t)p->P.p[p->n];
            acsc += (size_t)p->A.p[p->n];
            nrp += 2 * ((size_t)p->n + 1) + (size_t)p->m + 1;
            nnz += 2 * (size_t)p->P.p[p->n] + 2 * (size_t)p->A.p[p->n];
        }
        if (s->ntot > 0x7fffffffu || s->mtot > 0x7fffffffu || nnz > 0x7fffffffu)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: the batch has more than "
                              "2^31 vector or matrix entries");
    }
    s->p_pos = gala_malloc(sizeof(int) * 2 * (pcsc ? pcsc : 1));
    s->a_pos = gala_malloc(sizeof(int) * (acsc ? acsc : 1));
    int *rp = gala_malloc(sizeof(int) * (nrp ? nrp : 1));
    int *ci = gala_malloc(sizeof(int) * (nnz ? nnz : 1));
    double *mv = gala_malloc(sizeof(double) * (nnz ? nnz : 1));
    s->D = gala_malloc(sizeof(double) * (s->ntot ? s->ntot : 1));
    s->E = gala_malloc(sizeof(double) * (s->mtot ? s->mtot : 1));
    s->ctype = gala_malloc(sizeof(int) * (s->mtot ? s->mtot : 1));
    gala_status st = GALA_OK;
    if (!s->p_pos || !s->a_pos || !rp || !ci || !mv || !s->D || !s->E || !s->ctype)
        st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    size_t rpc = 0, nzc = 0;
    for (int sl = 0; st == GALA_OK && sl < s->nvalid; ++sl) {
        if (!shared || sl == 0) {
            build_matrices(s, sl, &s->pb[s->qp_of[sl]], rp, &rpc, ci, mv, &nzc);
        } else {
            int *mt = s->meta + (size_t)sl * QP_NMETA;
            mt[QP_M_PP] = s->meta[QP_M_PP];
            mt[QP_M_AP] = s->meta[QP_M_AP];
            mt[QP_M_TP] = s->meta[QP_M_TP];
            s->t_base[sl] = s->t_base[0];
        }
    }
    s->nrp = nrp;
    s->nnz = nnz;
    gala_qp_prof(s, GALA_QP_PHASE_LAYOUT);
    /* device buffers */
    gala_dtype dt = s->dt;
    size_t nv = (size_t)s->nvalid;
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nv * QP_NMETA, &s->b_meta);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nv, &s->b_ident);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nv * QP_NSTATE, &s->b_state);
    if (st == GALA_OK) st = mkbuf(s, dt, nv * QP_NINFO, &s->b_info);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nv, &s->b_refac);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nrp, &s->b_rp);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nnz, &s->b_ci);
    if (st == GALA_OK) st = mkbuf(s, dt, nnz, &s->b_mv);
    if (st == GALA_OK) st = mkbuf(s, dt, QP_NV * s->ntot, &s->b_vn);
    if (st == GALA_OK) st = mkbuf(s, dt, QP_MV * s->mtot, &s->b_vm);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, s->mtot, &s->b_ctype);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, 2, &s->b_cnt);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nv, &s->b_jinfo);
    if (st == GALA_OK) st = gala_buffer_write(s->b_rp, 0, nrp, rp);
    if (st == GALA_OK && nnz) st = gala_buffer_write(s->b_ci, 0, nnz, ci);
    if (st == GALA_OK) st = write_real(s, s->b_mv, 0, nnz, mv);
    gala_free(rp);
    gala_free(ci);
    gala_free(mv);
    int *ident = gala_malloc(sizeof(int) * nv);
    if (st == GALA_OK && !ident) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
    for (size_t i = 0; st == GALA_OK && i < nv; ++i) ident[i] = (int)i;
    if (st == GALA_OK) st = gala_buffer_write(s->b_ident, 0, nv, ident);
    gala_free(ident);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_refac, 0, nv, 0);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_vn, 0, QP_NV * s->ntot, 0);
    if (st == GALA_OK && s->mtot) st = gala_buffer_fill(s->b_vm, 0, QP_MV * s->mtot, 0);
    /* ρ of every slot: set before scaling (the scale kernel writes c only) */
    if (st == GALA_OK) {
        double *inf = gala_calloc(nv * QP_NINFO, sizeof(double));
        if (!inf) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
        for (size_t i = 0; st == GALA_OK && i < nv; ++i) {
            inf[i * QP_NINFO + QP_I_RHO] = s->set.rho;
            inf[i * QP_NINFO + QP_I_C] = 1;
        }
        if (st == GALA_OK) st = write_real(s, s->b_info, 0, nv * QP_NINFO, inf);
        gala_free(inf);
    }
    if (st == GALA_OK) st = s->ls->setup(s); /* meta K offsets, ladder, bins; uploads meta */
    gala_qp_prof(s, GALA_QP_PHASE_UPLOAD);
    if (st == GALA_OK) st = scale_all(s);
    gala_qp_prof(s, GALA_QP_PHASE_SCALE);
    if (st == GALA_OK) st = reset_state(s, 0);
    if (st == GALA_OK) {
        int *one = gala_malloc(sizeof(int) * nv);
        if (!one) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
        for (size_t i = 0; st == GALA_OK && i < nv; ++i) one[i] = 1;
        if (st == GALA_OK) st = gala_buffer_write(s->b_refac, 0, nv, one);
        gala_free(one);
    }
    gala_qp_prof(s, GALA_QP_PHASE_SETUP_OTHER);
    if (st == GALA_OK) st = s->ls->refactor(s);
    return st;
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
    GALA_TRY(check_settings(ctx, &set));
    GALA_TRY(gala_check_float_type(ctx, fn, set.dtype));
    double t0 = gala_now();
    gala_qp_solver *s = gala_calloc(1, sizeof *s);
    if (!s) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    s->ctx = ctx;
    s->set = set;
    s->dt = set.dtype;
    s->count = count;
    s->dualgap = set.check_dualgap < 0 ? set.dtype == GALA_DOUBLE : set.check_dualgap;
    s->refine = set.refine < 0 ? set.dtype == GALA_FLOAT : set.refine;
    s->prof_t = t0;
    gala_status st = setup_impl(s, problems);
    if (st == GALA_OK) st = gala_finish(ctx);
    gala_qp_prof(s, GALA_QP_PHASE_SETUP_OTHER);
    if (st != GALA_OK) {
        gala_qp_destroy(s);
        return st;
    }
    s->setup_time = gala_now() - t0;
    for (int k = 0; k < count; ++k) s->info[k].setup_time = s->setup_time;
    *solver = s;
    return GALA_OK;
}

gala_status gala_qp_destroy(gala_qp_solver *s)
{
    if (!s) return GALA_OK;
    for (int k = 0; s->pb && k < s->count; ++k)
        if (s->pb[k].owned) gala_qp_problem_free(&s->pb[k]);
    gala_buffer *bufs[] = {s->b_meta, s->b_ident, s->b_state, s->b_info, s->b_refac, s->b_rp,
                           s->b_ci, s->b_mv, s->b_K, s->b_vn, s->b_vm, s->b_ctype, s->b_lrho,
                           s->b_rungok, s->b_cnt, s->b_kofs, s->b_jinfo, s->b_jqp, s->b_rflag};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) gala_buffer_free(bufs[i]);
    for (int b = 0; s->bins && b < s->nbins; ++b) gala_buffer_free(s->bins[b].list);
    void *ptrs[] = {s->pb, s->info, s->host_status, s->slot, s->qp_of, s->meta, s->p_pos,
                    s->a_pos, s->p_base, s->a_base, s->t_base, s->D, s->E, s->c, s->ctype,
                    s->bins, s->lrho, s->rungok, s->hxo, s->hzo, s->x, s->y, s->pcert, s->dcert};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; ++i) gala_free(ptrs[i]);
    gala_free(s);
    return GALA_OK;
}

int gala_qp_count(const gala_qp_solver *s) { return s ? s->count : 0; }
int gala_qp_linsys_used(const gala_qp_solver *s) { return s ? (s->ls ? s->ls->id : GALA_QP_LINSYS_DENSE) : -1; }

/* ------------------------------------------------------------------ solve */

static int has_solution(int status)
{
    return status == GALA_QP_SOLVED || status == GALA_QP_SOLVED_INACCURATE ||
           status == GALA_QP_MAX_ITER_REACHED || status == GALA_QP_TIME_LIMIT_REACHED ||
           status == GALA_QP_INTERRUPTED;
}

/* Download iterates and per-QP state; unscale into the host result arrays. */
static gala_status collect(gala_qp_solver *s, const double *sync_t, const int *sync_it, int nsync)
{
    gala_context *ctx = s->ctx;
    size_t nv = (size_t)s->nvalid;
    double *vn = gala_malloc(sizeof(double) * 2 * (s->ntot ? s->ntot : 1));
    double *vm = gala_malloc(sizeof(double) * 6 * (s->mtot ? s->mtot : 1));
    double *inf = gala_malloc(sizeof(double) * (nv ? nv : 1) * QP_NINFO);
    int *stt = gala_malloc(sizeof(int) * (nv ? nv : 1) * QP_NSTATE);
    gala_status st = GALA_OK;
    if (!vn || !vm || !inf || !stt) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
    if (st == GALA_OK && nv) st = read_real(s, s->b_vn, 0, 2 * s->ntot, vn);
    if (st == GALA_OK && nv) st = read_real(s, s->b_vm, 0, 3 * s->mtot, vm);
    if (st == GALA_OK && nv) st = read_real(s, s->b_vm, QP_V_L * s->mtot, 2 * s->mtot, vm + 3 * s->mtot);
    if (st == GALA_OK && nv) st = read_real(s, s->b_info, 0, nv * QP_NINFO, inf);
    if (st == GALA_OK && nv) st = gala_buffer_read(s->b_state, 0, nv * QP_NSTATE, stt);
    for (int k = 0; st == GALA_OK && k < s->count; ++k) {
        gala_qp_info *in = &s->info[k];
        const gala_qp_problem *p = &s->pb[k];
        double *x = s->x + s->hxo[k], *y = s->y + s->hzo[k];
        double *pc = s->pcert + s->hzo[k], *dc = s->dcert + s->hxo[k];
        for (int j = 0; j < p->n; ++j) x[j] = dc[j] = NAN;
        for (int i = 0; i < p->m; ++i) y[i] = pc[i] = NAN;
        int sl = s->slot[k];
        if (sl < 0 || s->host_status[k]) {
            in->status = GALA_QP_INVALID_DATA;
            in->iter = 0;
            in->obj_val = in->dual_obj_val = NAN;
            continue;
        }
        const int *e = stt + (size_t)sl * QP_NSTATE;
        const double *f = inf + (size_t)sl * QP_NINFO;
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO];
        in->status = e[QP_S_STATUS] ? e[QP_S_STATUS] : GALA_QP_UNSOLVED;
        in->iter = e[QP_S_ITER];
        in->rho_updates = e[QP_S_RHOUPD];
        in->rho = f[QP_I_RHO];
        in->rho_estimate = f[QP_I_RHOEST];
        in->prim_res = f[QP_I_PRIM];
        in->dual_res = f[QP_I_DUAL];
        in->obj_val = f[QP_I_OBJ] + p->c0;
        in->dual_obj_val = f[QP_I_DOBJ] + p->c0;
        in->duality_gap = f[QP_I_GAP];
        in->status_polish = 0;
        in->polish_time = 0;
        in->solve_time = nsync ? sync_t[nsync - 1] : 0;
        for (int q = 0; q < nsync; ++q)
            if (sync_it[q] >= in->iter) { in->solve_time = sync_t[q]; break; }
        double c = s->c[sl];
        const double *D = s->D + xo, *E = s->E + zo;
        const double *xs = vn + xo, *xps = vn + s->ntot + xo;
        const double *ys = vm + s->mtot + zo, *yps = vm + 2 * s->mtot + zo;
        const double *ls = vm + 3 * s->mtot + zo, *us = vm + 4 * s->mtot + zo;
        int stv = in->status;
        if (has_solution(stv)) {
            for (int j = 0; j < p->n; ++j) x[j] = D[j] * xs[j];
            for (int i = 0; i < p->m; ++i) y[i] = E[i] * ys[i] / c;
            if (s->set.polishing && stv == GALA_QP_SOLVED) {
                /* OSQP polishes solved QPs only; here on the host, in double */
                double tp = gala_now(), obj, pr, du;
                double *px = gala_malloc(sizeof(double) * (size_t)(p->n + p->m + 1));
                const double *zs = vm + zo;
                int r = px ? gala_qp_polish_one(p, D, E, c, xs, zs, ys, ls, us, s->set.delta,
                                                s->set.polish_refine_iter, in->prim_res,
                                                in->dual_res, px, px + p->n, &obj, &pr, &du)
                           : -2;
                if (r == 1) {
                    memcpy(x, px, sizeof(double) * (size_t)p->n);
                    memcpy(y, px + p->n, sizeof(double) * (size_t)p->m);
                    in->obj_val = obj;
                    in->prim_res = pr;
                    in->dual_res = du;
                }
                gala_free(px);
                in->status_polish = r;
                in->polish_time = gala_now() - tp;
            }
        } else if (stv == GALA_QP_PRIMAL_INFEASIBLE || stv == GALA_QP_PRIMAL_INFEASIBLE_INACCURATE) {
            double nrm = 0;
            for (int i = 0; i < p->m; ++i) {
                double v = ys[i] - yps[i];
                if (us[i] > QP_INFV) v = ls[i] < -QP_INFV ? 0 : (v < 0 ? v : 0);
                else if (ls[i] < -QP_INFV) v = v > 0 ? v : 0;
                pc[i] = E[i] * v;
                nrm = fmax(nrm, fabs(pc[i]));
            }
            for (int i = 0; i < p->m; ++i) pc[i] = nrm > 0 ? pc[i] / nrm : pc[i];
            in->obj_val = QP_INFTY;
        } else if (stv == GALA_QP_DUAL_INFEASIBLE || stv == GALA_QP_DUAL_INFEASIBLE_INACCURATE) {
            double nrm = 0;
            for (int j = 0; j < p->n; ++j) {
                dc[j] = D[j] * (xs[j] - xps[j]);
                nrm = fmax(nrm, fabs(dc[j]));
            }
            for (int j = 0; j < p->n; ++j) dc[j] = nrm > 0 ? dc[j] / nrm : dc[j];
            in->obj_val = -QP_INFTY;
        } else if (stv == GALA_QP_NON_CVX) {
            in->obj_val = NAN;
        }
    }
    gala_free(vn);
    gala_free(vm);
    gala_free(inf);
    gala_free(stt);
    return st;
}

static gala_status solve_impl(gala_qp_solver *s, double t0, double **sync_t, int **sync_it,
                              int *nsync)
{
    gala_qp_settings *set = &s->set;
    if (!set->warm_starting) GALA_TRY(gala_qp_cold_start(s));
    GALA_TRY(reset_state(s, 1));
    gala_qp_prof(s, GALA_QP_PHASE_SOLVE_OTHER);
    int cnt[2];
    GALA_TRY(count_running(s, cnt));
    if (cnt[1] > 0) GALA_TRY(s->ls->refactor(s)); /* pending from updates */
    GALA_TRY(count_running(s, cnt));
    int running = cnt[0];
    int it = 0, cap = 0;
    int interval = set->adaptive_rho == GALA_QP_ADAPTIVE_RHO_ITERATIONS ? set->adaptive_rho_interval : 0;
    int ct = set->check_termination;
    int per_launch = set->iters_per_launch > 0 ? set->iters_per_launch : (ct > 0 ? ct : 50);
    int timed = set->time_limit > 0 && set->time_limit < 1e9;
    *nsync = 0;
    cap = set->max_iter / (ct > 0 ? ct : 1) + set->max_iter / per_launch + 4;
    *sync_t = gala_malloc(sizeof(double) * (size_t)cap);
    *sync_it = gala_malloc(sizeof(int) * (size_t)cap);
    if (!*sync_t || !*sync_it) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
    int stop_status = 0;
    while (running > 0 && it < set->max_iter) {
        int next = set->max_iter;
        if (ct > 0) next = (it / ct + 1) * ct;
        if (interval > 0) {
            int na = (it / interval + 1) * interval;
            if (na < next) next = na;
        }
        if (next > set->max_iter) next = set->max_iter;
        if (next - it > per_launch) next = it + per_launch;
        int k = next - it;
        int check = ct > 0 && next % ct == 0;
        int adapt = interval > 0 && next % interval == 0 && next < set->max_iter;
        int fin = next == set->max_iter ? GALA_QP_MAX_ITER_REACHED : 0;
        GALA_TRY(s->ls->iterate(s, k, check, adapt, fin));
        it = next;
        int synced = 0;
        if (check || fin || adapt || timed || set->progress ||
            set->adaptive_rho == GALA_QP_ADAPTIVE_RHO_TIME) {
            GALA_TRY(count_running(s, cnt));
            running = cnt[0];
            synced = 1;
            if (*nsync < cap) {
                (*sync_t)[*nsync] = gala_now() - t0;
                (*sync_it)[(*nsync)++] = it;
            }
            if (cnt[1] > 0 && running > 0 && it < set->max_iter) GALA_TRY(s->ls->refactor(s));
        }
        if (!synced) continue;
        double el = gala_now() - t0;
        if (set->adaptive_rho == GALA_QP_ADAPTIVE_RHO_TIME && interval == 0 &&
            el > set->adaptive_rho_fraction * s->setup_time) {
            int base = ct > 0 ? ct : 25;
            interval = (int)((it + base / 2) / base) * base;
            if (interval < base) interval = base;
        }
        if (set->progress && running > 0 &&
            set->progress(set->progress_user, s->count - running, s->count, it)) {
            stop_status = GALA_QP_INTERRUPTED;
            break;
        }
        if (timed && running > 0 && el >= set->time_limit) {
            stop_status = GALA_QP_TIME_LIMIT_REACHED;
            break;
        }
    }
    if (stop_status && running > 0) {
        /* a last check with the ×10 tolerances, then the stop status (OSQP's time limit) */
        GALA_TRY(s->ls->iterate(s, 0, 1, 0, stop_status));
        if (*nsync < cap) {
            (*sync_t)[*nsync] = gala_now() - t0;
            (*sync_it)[(*nsync)++] = it;
        }
    }
    return GALA_OK;
}

gala_status gala_qp_solve(gala_qp_solver *s)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_solve: solver is NULL");
    double t0 = gala_now();
    double *sync_t = NULL;
    int *sync_it = NULL, nsync = 0;
    gala_status st = GALA_OK;
    prof_reset(s, GALA_QP_PHASE_ITERATE, GALA_QP_NPHASES - 1);
    s->prof_t = t0;
    s->in_solve = 1;
    if (s->nvalid > 0) st = solve_impl(s, t0, &sync_t, &sync_it, &nsync);
    gala_qp_prof(s, GALA_QP_PHASE_SOLVE_OTHER);
    if (st == GALA_OK) st = collect(s, sync_t, sync_it, nsync);
    gala_qp_prof(s, GALA_QP_PHASE_COLLECT);
    s->in_solve = 0;
    gala_free(sync_t);
    gala_free(sync_it);
    if (st == GALA_OK) s->solved = 1;
    return st;
}

gala_status gala_qp_get_info(const gala_qp_solver *s, int k, gala_qp_info *info)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_get_info: solver is NULL");
    if (!info) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_info: info is NULL");
    if (k < 0 || k >= s->count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_info: k = %d outside 0..%d",
                          k, s->count - 1);
    *info = s->info[k];
    info->update_time = s->update_time;
    return GALA_OK;
}

gala_status gala_qp_get_solution(const gala_qp_solver *s, int k, const double **x,
                                 const double **y, const double **pcert, const double **dcert)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_get_solution: solver is NULL");
    if (k < 0 || k >= s->count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_solution: k = %d outside "
                          "0..%d", k, s->count - 1);
    if (!s->solved)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_solution: not solved yet");
    if (x) *x = s->x + s->hxo[k];
    if (y) *y = s->y + s->hzo[k];
    if (pcert) *pcert = s->pcert + s->hzo[k];
    if (dcert) *dcert = s->dcert + s->hxo[k];
    return GALA_OK;
}

/* ------------------------------------------------------------------ updates */

static gala_status check_k(gala_qp_solver *s, int k, const char *fn)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (k < -1 || k >= s->count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: k = %d outside -1..%d", fn, k,
                          s->count - 1);
    return GALA_OK;
}

gala_status gala_qp_update_vectors(gala_qp_solver *s, int k, const double *q, const double *l,
                                   const double *u)
{
    static const char fn[] = "gala_qp_update_vectors";
    GALA_TRY(check_k(s, k, fn));
    double t0 = gala_now();
    int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->count : k + 1;
    size_t qo = 0, bo = 0; /* cursors into the caller's arrays */
    int kinds_changed = 0;
    int *refac = NULL;
    if (s->nvalid) {
        refac = gala_calloc((size_t)s->nvalid, sizeof(int));
        if (!refac) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    }
    gala_status st = GALA_OK;
    double *sq = NULL, *sl_ = NULL, *su = NULL;
    for (int kk = k0; st == GALA_OK && kk < k1; ++kk) {
        gala_qp_problem *p = &s->pb[kk];
        const double *qk = q ? q + qo : NULL, *lk = l ? l + bo : NULL, *uk = u ? u + bo : NULL;
        qo += (size_t)p->n;
        bo += (size_t)p->m;
        int sl = s->slot[kk];
        if (sl < 0) continue; /* rejected at setup: stays rejected */
        /* validate the new data against the kept ones */
        char msg[96] = "";
        for (int j = 0; qk && j < p->n && !msg[0]; ++j)
            if (!isfinite(qk[j])) snprintf(msg, sizeof msg, "q[%d] = %g", j, qk[j]);
        for (int i = 0; i < p->m && !msg[0]; ++i) {
            double lv = lk ? lk[i] : p->l[i], uv = uk ? uk[i] : p->u[i];
            if (isnan(lv) || isnan(uv) || lv > uv || lv == INFINITY || uv == -INFINITY)
                snprintf(msg, sizeof msg, "bounds of row %d are (%g, %g)", i, lv, uv);
        }
        if (msg[0]) {
            s->host_status[kk] = GALA_QP_INVALID_DATA;
            memcpy(s->info[kk].message, msg, sizeof msg);
            continue;
        }
        s->host_status[kk] = 0;
        s->info[kk].message[0] = 0;
        if (qk) memcpy(p->q, qk, sizeof(double) * (size_t)p->n);
        for (int i = 0; i < p->m; ++i) {
            if (lk) p->l[i] = clamp_inf(lk[i]);
            if (uk) p->u[i] = clamp_inf(uk[i]);
        }
        /* scale on the host with the setup's D, E, c and upload */
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO];
        sq = gala_realloc(sq, sizeof(double) * (size_t)(p->n + 1));
        sl_ = gala_realloc(sl_, sizeof(double) * (size_t)(p->m + 1));
        su = gala_realloc(su, sizeof(double) * (size_t)(p->m + 1));
        if (!sq || !sl_ || !su) { st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn); break; }
        scale_vectors(s, sl, sq, sl_, su);
        int changed = 0;
        for (int i = 0; i < p->m; ++i) {
            int kd = row_kind(s, sl_[i], su[i]);
            if (kd != s->ctype[zo + (size_t)i]) { changed = 1; s->ctype[zo + (size_t)i] = kd; }
        }
        if (changed) {
            kinds_changed = 1;
            refac[sl] = 1;
            if (s->shared) {
                st = gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: QP %d: a row changes kind "
                                "(equality / inequality / free), which the shared strategy cannot "
                                "follow", fn, kk);
                break;
            }
            st = gala_buffer_write(s->b_ctype, zo, (size_t)p->m, s->ctype + zo);
        }
        if (st == GALA_OK && qk) st = write_real(s, s->b_vn, QP_V_Q * s->ntot + xo, (size_t)p->n, sq);
        if (st == GALA_OK && lk) st = write_real(s, s->b_vm, QP_V_L * s->mtot + zo, (size_t)p->m, sl_);
        if (st == GALA_OK && uk) st = write_real(s, s->b_vm, QP_V_U * s->mtot + zo, (size_t)p->m, su);
    }
    if (st == GALA_OK && kinds_changed && !s->shared) {
        int *cur = gala_malloc(sizeof(int) * (size_t)s->nvalid);
        if (!cur) st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
        if (st == GALA_OK) st = gala_buffer_read(s->b_refac, 0, (size_t)s->nvalid, cur);
        for (int i = 0; st == GALA_OK && i < s->nvalid; ++i) cur[i] |= refac[i];
        if (st == GALA_OK) st = gala_buffer_write(s->b_refac, 0, (size_t)s->nvalid, cur);
        gala_free(cur);
    }
    gala_free(refac);
    gala_free(sq);
    gala_free(sl_);
    gala_free(su);
    s->update_time = gala_now() - t0;
    return st;
}

gala_status gala_qp_update_matrices(gala_qp_solver *s, int k, const double *Px, const double *Ax)
{
    static const char fn[] = "gala_qp_update_matrices";
    GALA_TRY(check_k(s, k, fn));
    if (s->shared && k != -1)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: the shared strategy updates every QP "
                          "at once (k = -1)", fn);
    double t0 = gala_now();
    int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->count : k + 1;
    size_t po = 0, ao = 0;
    /* validate first */
    for (int kk = k0; kk < k1; ++kk) {
        const gala_qp_problem *p = &s->pb[kk];
        int pn = s->slot[kk] >= 0 ? p->P.p[p->n] : 0, an = s->slot[kk] >= 0 ? p->A.p[p->n] : 0;
        if (s->slot[kk] < 0) continue;
        for (int e = 0; Px && e < pn; ++e)
            if (!isfinite(Px[po + (size_t)e]))
                return gala_error(s->ctx, GALA_ERR_NOT_FINITE, "%s: QP %d: P value %d is %g", fn,
                                  kk, e, Px[po + (size_t)e]);
        for (int e = 0; Ax && e < an; ++e)
            if (!isfinite(Ax[ao + (size_t)e]))
                return gala_error(s->ctx, GALA_ERR_NOT_FINITE, "%s: QP %d: A value %d is %g", fn,
                                  kk, e, Ax[ao + (size_t)e]);
        if (s->shared && kk > k0) {
            if ((Px && memcmp(Px + po, Px, sizeof(double) * (size_t)pn)) ||
                (Ax && memcmp(Ax + ao, Ax, sizeof(double) * (size_t)an)))
                return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: the shared strategy needs the "
                                  "same values in every QP (QP %d differs)", fn, kk);
        }
        po += (size_t)pn;
        ao += (size_t)an;
    }
    /* update the host copies and the device values (unscaled) */
    po = ao = 0;
    gala_status st = GALA_OK;
    double *mv = gala_malloc(sizeof(double) * (s->nnz ? s->nnz : 1));
    if (!mv) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    /* rebuild every device value from the host copies: simple and exact */
    for (int kk = k0; kk < k1; ++kk) {
        gala_qp_problem *p = &s->pb[kk];
        if (s->slot[kk] < 0) continue;
        int pn = p->P.p[p->n], an = p->A.p[p->n];
        if (Px) memcpy(p->P.x, Px + po, sizeof(double) * (size_t)pn);
        if (Ax) memcpy(p->A.x, Ax + ao, sizeof(double) * (size_t)an);
        po += (size_t)pn;
        ao += (size_t)an;
    }
    for (int sl = 0; sl < s->nvalid; ++sl) {
        if (s->shared && sl > 0) break;
        const gala_qp_problem *p = &s->pb[s->qp_of[sl]];
        const int *ppos = s->p_pos + 2 * s->p_base[sl], *apos = s->a_pos + s->a_base[sl];
        for (int e = 0; e < p->P.p[p->n]; ++e) {
            mv[ppos[2 * e]] = p->P.x[e];
            if (ppos[2 * e + 1] >= 0) mv[ppos[2 * e + 1]] = p->P.x[e];
        }
        for (int e = 0; e < p->A.p[p->n]; ++e) {
            mv[apos[e]] = p->A.x[e];
            mv[(size_t)s->t_base[sl] + (size_t)e] = p->A.x[e];
        }
    }
    st = write_real(s, s->b_mv, 0, s->nnz, mv);
    gala_free(mv);
    /* scale again and refactor every QP (simple; OSQP also rescales the whole problem) */
    if (st == GALA_OK) st = scale_all(s);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_refac, 0, (size_t)s->nvalid, 1);
    if (st == GALA_OK) st = reset_state(s, 0);
    if (st == GALA_OK) st = s->ls->refactor(s);
    if (st == GALA_OK) st = gala_finish(s->ctx);
    s->update_time = gala_now() - t0;
    return st;
}

gala_status gala_qp_warm_start(gala_qp_solver *s, int k, const double *x, const double *y)
{
    static const char fn[] = "gala_qp_warm_start";
    GALA_TRY(check_k(s, k, fn));
    s->set.warm_starting = 1;
    int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->count : k + 1;
    size_t xo_c = 0, yo_c = 0;
    gala_status st = GALA_OK;
    double *tmp = NULL;
    for (int kk = k0; st == GALA_OK && kk < k1; ++kk) {
        const gala_qp_problem *p = &s->pb[kk];
        const double *xk = x ? x + xo_c : NULL, *yk = y ? y + yo_c : NULL;
        xo_c += (size_t)p->n;
        yo_c += (size_t)p->m;
        int sl = s->slot[kk];
        if (sl < 0) continue;
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO];
        tmp = gala_realloc(tmp, sizeof(double) * (size_t)(p->n + p->m + 1));
        if (!tmp) { st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn); break; }
        if (xk) {
            for (int j = 0; j < p->n; ++j) tmp[j] = xk[j] / s->D[xo + (size_t)j];
            st = write_real(s, s->b_vn, QP_V_X * s->ntot + xo, (size_t)p->n, tmp);
        }
        if (st == GALA_OK && yk) {
            for (int i = 0; i < p->m; ++i) tmp[i] = s->c[sl] * yk[i] / s->E[zo + (size_t)i];
            st = write_real(s, s->b_vm, QP_V_Y * s->mtot + zo, (size_t)p->m, tmp);
        }
    }
    gala_free(tmp);
    if (st == GALA_OK && x && s->nvalid) {
        if (k < 0) {
            st = launch_ax(s, s->b_ident, s->nvalid);
        } else if (s->slot[k] >= 0) {
            /* one QP: a one-entry list */
            gala_buffer *one = NULL;
            int sl = s->slot[k];
            st = gala_buffer_create(s->ctx, GALA_INT, 1, &one);
            if (st == GALA_OK) st = gala_buffer_write(one, 0, 1, &sl);
            if (st == GALA_OK) st = launch_ax(s, one, 1);
            if (st == GALA_OK) st = gala_finish(s->ctx);
            gala_buffer_free(one);
        }
    }
    return st;
}

gala_status gala_qp_cold_start(gala_qp_solver *s)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_cold_start: solver is NULL");
    if (!s->nvalid) return GALA_OK;
    GALA_TRY(gala_buffer_fill(s->b_vn, QP_V_X * s->ntot, s->ntot, 0));
    GALA_TRY(gala_buffer_fill(s->b_vn, QP_V_XPREV * s->ntot, s->ntot, 0));
    if (s->mtot) {
        GALA_TRY(gala_buffer_fill(s->b_vm, QP_V_Z * s->mtot, s->mtot, 0));
        GALA_TRY(gala_buffer_fill(s->b_vm, QP_V_Y * s->mtot, s->mtot, 0));
        GALA_TRY(gala_buffer_fill(s->b_vm, QP_V_YPREV * s->mtot, s->mtot, 0));
    }
    return GALA_OK;
}
