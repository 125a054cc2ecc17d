/* The batched QP solver's host driver: settings, validation, device layout, setup, the
 * solve loop (launch, occasionally read a counter), results, updates. docs/qp.md.
 *
 * Host work is O(data) with few allocations: one validation pass over the caller's QPs
 * (on several threads), one copy pass into slot-ordered arrays that double as upload
 * staging, sparsity patterns stored once per distinct pattern, batched uploads; everything
 * per QP and per entry after that (matrix expansion, scaling, kinds, unscaling) runs on
 * the device. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"
#include "qp_polish.h"

/* ------------------------------------------------------------------ names */

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

/* The duality-gap test in force: check_dualgap, or -1 = on for double, off for float. */
static int dualgap_of(const gala_qp_settings *s)
{
    return s->check_dualgap < 0 ? s->dtype == GALA_DOUBLE : s->check_dualgap;
}

/* ------------------------------------------------------------------ profile */

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

/* ------------------------------------------------------------------ validation */

static double clamp_inf(double v)
{
    return v > QP_INFTY ? QP_INFTY : (v < -QP_INFTY ? -QP_INFTY : v);
}

/* The checks of gala_csc_validate without building messages (the fast path); on failure
 * gala_csc_validate itself says why. */
static int csc_ok(const gala_csc *A, int upper)
{
    if (A->m < 0 || A->n < 0 || (upper && A->m != A->n) || !A->p || A->p[0] != 0) return 0;
    for (int j = 0; j < A->n; ++j)
        if (A->p[j + 1] < A->p[j]) return 0;
    if (A->p[A->n] > 0 && (!A->i || !A->x)) return 0;
    for (int j = 0; j < A->n; ++j) {
        const int k0 = A->p[j], k1 = A->p[j + 1], lim = upper ? j : A->m - 1;
        int prev = -1;
        for (int k = k0; k < k1; ++k) {
            const int r = A->i[k];
            if (r <= prev || r > lim || !isfinite(A->x[k])) return 0;
            prev = r;
        }
    }
    return 1;
}

/* Row kind from unscaled bounds, as the shared-strategy test compares them: 0 free,
 * 2 equality, 1 otherwise. */
static unsigned char raw_kind(double l, double u)
{
    return l <= -QP_INFTY && u >= QP_INFTY ? 0 : (l == u ? 2 : 1);
}

/* Whether q is finite and every row's bounds are valid (l ≤ u, neither NaN, l < +∞,
 * u > −∞). Setup runs it over every QP of a batch (10000 and more, about half of the
 * validation's instructions), so it is one pass without early exits, with 64-bit flags that
 * the x86-64-v3 clone vectorizes; the message comes from invalid_problem's slow loops. */
GALA_CLONES_V3 static int vectors_ok(int n, int m, const double *q, const double *l, const double *u)
{
    int64_t bad = 0;
    for (int j = 0; j < n; ++j) bad |= -(int64_t)!(fabs(q[j]) <= DBL_MAX);
    for (int i = 0; i < m; ++i) {
        const double a = l[i], b = u[i];
        bad |= -(int64_t)(!(a <= b) | (a == INFINITY) | (b == -INFINITY));
    }
    return !bad;
}

/* Whether some row's kind (raw_kind of its bounds clamped to ±1e30) differs from rk's:
 * shared-matrix batches compare every QP's rows with the reference's, and share them as a
 * rule, so the loop does not stop at the first difference; vectorized like vectors_ok. */
GALA_CLONES_V3 static int kinds_differ(int m, const double *l, const double *u,
                                       const unsigned char *rk)
{
    int64_t diff = 0;
    for (int i = 0; i < m; ++i) {
        diff |= (int64_t)(raw_kind(clamp_inf(l[i]), clamp_inf(u[i])) ^ rk[i]);
    }
    return diff != 0;
}

/* Validate one problem; skip_p / skip_a: the matrix is (pointer-)identical to one already
 * validated. On failure write the reason into msg and return nonzero. */
static int invalid_problem(const gala_qp_problem *p, int skip_p, int skip_a, char *msg, size_t cap)
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
    if (!skip_p && !csc_ok(&p->P, 1)) {
        gala_csc_validate(NULL, "P", &p->P, 1); /* the message, on this thread */
        snprintf(msg, cap, "%s", gala_last_error(NULL));
        return 1;
    }
    if (!skip_a && !csc_ok(&p->A, 0)) {
        gala_csc_validate(NULL, "A", &p->A, 0);
        snprintf(msg, cap, "%s", gala_last_error(NULL));
        return 1;
    }
    if (!isfinite(p->c0)) { snprintf(msg, cap, "c0 is not finite"); return 1; }
    if (vectors_ok(p->n, p->m, p->q, p->l, p->u)) return 0;
    for (int j = 0; j < p->n; ++j)
        if (!isfinite(p->q[j])) { snprintf(msg, cap, "q[%d] = %g", j, p->q[j]); return 1; }
    for (int i = 0; i < p->m; ++i) {
        const double l = p->l[i], u = p->u[i];
        if (isnan(l) || isnan(u) || l == INFINITY || u == -INFINITY) {
            snprintf(msg, cap, "bounds of row %d are (%g, %g)", i, l, u);
            return 1;
        }
        if (l > u) {
            snprintf(msg, cap, "l[%d] = %g > u[%d] = %g", i, l, i, u);
            return 1;
        }
    }
    return 0;
}

static int same_csc_pattern(const gala_csc *a, const gala_csc *b)
{
    if (a->m != b->m || a->n != b->n) return 0;
    if (a->p == b->p && a->i == b->i) return 1;
    if (memcmp(a->p, b->p, sizeof(int) * (size_t)(a->n + 1))) return 0;
    size_t nz = (size_t)a->p[a->n];
    return !nz || a->i == b->i || !memcmp(a->i, b->i, sizeof(int) * nz);
}

static int same_csc_values(const gala_csc *a, const gala_csc *b)
{
    size_t nz = (size_t)a->p[a->n];
    return !nz || a->x == b->x || !memcmp(a->x, b->x, sizeof(double) * nz);
}

static uint64_t pattern_hash(const gala_csc *M)
{
    uint64_t h = gala_qp_hash_ints(&M->m, 1, 0x243f6a8885a308d3ULL);
    h = gala_qp_hash_ints(M->p, (size_t)M->n + 1, h);
    return gala_qp_hash_ints(M->i, (size_t)M->p[M->n], h);
}

/* Pass 1 over the caller's QPs, on several threads: validation, and against the reference
 * QP r (the first valid one, validated first): whether its P / A patterns, their values and
 * its row kinds are the same (the shared strategy), else the patterns' hashes. */
typedef struct {
    uint64_t ph, ah;           /* pattern hashes (when not the reference's pattern) */
    unsigned char bad;         /* invalid data */
    unsigned char same_pp;     /* P pattern = the reference's */
    unsigned char same_ap;     /* A pattern = the reference's */
    unsigned char same_vals;   /* P and A values and row kinds = the reference's */
} qp_scan;

typedef struct {
    const gala_qp_problem *pb;
    gala_qp_solver *s;
    qp_scan *scan;
    int r;                      /* the reference QP */
    const unsigned char *rkind; /* its row kinds */
    int want_shared;            /* compare values and kinds (AUTO or DENSE_SHARED) */
} scan_job;

static void scan_one(scan_job *j, int k)
{
    const gala_qp_problem *p = &j->pb[k], *r = &j->pb[j->r];
    qp_scan *sc = &j->scan[k];
    gala_qp_info *in = &j->s->info[k];
    /* matrices given as the very arrays of the reference (and the same sizes) are not
     * validated or compared again, */
    const int dims = p->n == r->n && p->m == r->m;
    const int ptr_p = dims && p->P.m == r->P.m && p->P.n == r->P.n && p->P.p == r->P.p &&
                      p->P.i == r->P.i && p->P.x == r->P.x;
    const int ptr_a = dims && p->A.m == r->A.m && p->A.n == r->A.n && p->A.p == r->A.p &&
                      p->A.i == r->A.i && p->A.x == r->A.x;
    /* nor are matrices equal to the reference's, bit for bit (compared first: a memcmp is
     * cheaper than the per-entry checks, and parametric batches repeat their matrices) */
    const int pat_p = ptr_p || (dims && same_csc_pattern(&p->P, &r->P));
    const int pat_a = ptr_a || (dims && same_csc_pattern(&p->A, &r->A));
    const int val_p = ptr_p || (pat_p && same_csc_values(&p->P, &r->P));
    const int val_a = ptr_a || (pat_a && same_csc_values(&p->A, &r->A));
    if (k != j->r && invalid_problem(p, val_p, val_a, in->message, sizeof in->message)) {
        sc->bad = 1;
        return;
    }
    sc->same_pp = (unsigned char)pat_p;
    sc->same_ap = (unsigned char)pat_a;
    if (!sc->same_pp) sc->ph = pattern_hash(&p->P);
    if (!sc->same_ap) sc->ah = pattern_hash(&p->A);
    if (j->want_shared && sc->same_pp && sc->same_ap && val_p && val_a)
        sc->same_vals = (unsigned char)!kinds_differ(p->m, p->l, p->u, j->rkind);
}

static void scan_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    scan_job *j = arg;
    for (long k = b; k < e; ++k)
        if (k > j->r) scan_one(j, (int)k); /* QPs before the reference are invalid */
}

/* ------------------------------------------------------------------ device helpers */

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

static gala_status read_real(gala_qp_solver *s, const gala_buffer *b, size_t off, size_t count,
                             double *dst)
{
    if (!count) return GALA_OK;
    if (s->dt == GALA_DOUBLE) return gala_buffer_read(b, off, count, dst);
    const int staged = s->rtmp && count <= s->rtmp_n;
    float *tmp = staged ? s->rtmp : gala_malloc(count * sizeof(float));
    if (!tmp) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = gala_buffer_read(b, off, count, tmp);
    conv_job j = {(const double *)(const void *)tmp, dst, 0};
    if (st == GALA_OK) gala_par(s->ctx, count >= 65536 ? s->nthreads : 1, (long)count, 16384, conv_range, &j);
    if (!staged) gala_free(tmp);
    return st;
}

gala_status gala_qp_read_real(gala_qp_solver *s, const gala_buffer *b, size_t off, size_t count,
                              double *dst)
{
    return read_real(s, b, off, count, dst);
}

static gala_status mkbuf(gala_qp_solver *s, gala_dtype dt, size_t count, gala_buffer **b)
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
    if (c && c->tb > 1 && c->tl) gala_key_def(key, "TL", 1);
    if (s->kfac) gala_key_def(key, "KFAC", 1); /* host kernels only (cl/qp.cl refuses it) */
    /* only the kernels of this key's part (cl/qp.cl, QP_PART): a bin's program is the ADMM
     * kernels, the utility program the rest, whose sparse/PCG part is a program of its own */
    gala_key_def(key, "QP_PART", c ? 3 : 1);
}

/* The program of a utility kernel: part 2 for the sparse and PCG strategies' kernels. */
static void util_key(const gala_qp_solver *s, const char *name, gala_program_key *key)
{
    gala_qp_key(s, key, NULL);
    if (strncmp(name, "qp_kkt_", 7) == 0 || strncmp(name, "qp_pcg", 6) == 0)
        key->defs[key->ndefs - 1].value = 2;
}

gala_status gala_qp_kernel(gala_qp_solver *s, const char *name, gala_kernel **k)
{
    gala_program_key key;
    util_key(s, name, &key);
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
static gala_dims qp_dims(long long groups, int wg)
{
    if (groups < 1) groups = 1;
    return gala_dims_1d((size_t)groups * (size_t)wg, (size_t)wg);
}

gala_status gala_qp_launch_admm(gala_qp_solver *s, const qp_bin *c, int iters, int check,
                                int adapt, int final_status)
{
    gala_buffer *list = c->compacted ? c->alist : c->list;
    const int nlist = c->acount;
    if (nlist <= 0) return GALA_OK;
    gala_program_key key;
    gala_kernel *k, *kc;
    gala_qp_key(s, &key, c);
    GALA_TRY(gala_kernel_get(s->ctx, &key, "qp_admm", &k));
    GALA_TRY(gala_kernel_get(s->ctx, &key, "qp_check", &kc));
    const gala_qp_settings *st = &s->set;
    gala_dims d = qp_dims(((long long)nlist + c->tb - 1) / c->tb, c->wg);
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
    if (check || adapt || final_status) { /* an adaptive-ρ step needs the residuals too */
        GALA_TRY(GALA_LAUNCH(s->ctx, kc, &d, ADMM_ARGS));
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

/* The device-side part of (re)scaling the whole batch from the raw values and the raw q,
 * l, u already in the vector buffers: expand, init (keep_rho: the per-QP strategy keeps
 * each QP's ρ), Ruiz, and in the shared strategy the reference's scaling applied to all. */
static gala_status device_scale(gala_qp_solver *s, int keep_rho)
{
    gala_kernel *ke, *ki;
    GALA_TRY(gala_qp_kernel(s, "qp_expand", &ke));
    GALA_TRY(gala_qp_kernel(s, "qp_init", &ki));
    const int nexp = s->shared ? 1 : s->nvalid; /* shared: the values are stored once */
    gala_dims de = qp_dims(nexp, QP_UTIL_WG), di = qp_dims(s->nvalid, QP_UTIL_WG);
    GALA_TRY(GALA_LAUNCH(s->ctx, ke, &de, ga_buf(s->b_meta), ga_buf(s->b_ident), ga_int(nexp),
                         ga_buf(s->b_map), ga_buf(s->b_raw), ga_buf(s->b_mv)));
    GALA_TRY(GALA_LAUNCH(s->ctx, ki, &di, ga_buf(s->b_meta), ga_buf(s->b_ident),
                         ga_int(s->nvalid), ga_buf(s->b_state), ga_buf(s->b_info),
                         ga_buf(s->b_vn), ga_long((long long)s->ntot), ga_buf(s->b_vm),
                         ga_long((long long)s->mtot), ga_buf(s->b_hstat), ga_real(s->set.rho),
                         ga_int(s->rung0), ga_int(keep_rho && !s->shared)));
    GALA_TRY(launch_scale(s, s->b_ident, nexp));
    if (s->shared && s->nvalid > 1) {
        gala_kernel *ks;
        GALA_TRY(gala_qp_kernel(s, "qp_shared_apply", &ks));
        GALA_TRY(GALA_LAUNCH(s->ctx, ks, &di, ga_buf(s->b_meta), ga_buf(s->b_ident),
                             ga_int(s->nvalid), ga_buf(s->b_vn), ga_long((long long)s->ntot),
                             ga_buf(s->b_vm), ga_long((long long)s->mtot), ga_buf(s->b_info),
                             ga_buf(s->b_ctype), ga_buf(s->b_state), ga_buf(s->b_hstat),
                             ga_int(s->set.rho_is_vec)));
    }
    return GALA_OK;
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

/* ------------------------------------------------------------------ active lists */

/* The launch classes of the strategy: the per-QP bins, or the shared strategy's one. */
static qp_bin *launch_classes(gala_qp_solver *s, int *n)
{
    if (s->bins) {
        *n = s->nbins;
        return s->bins;
    }
    *n = 1;
    return &s->sbin;
}

/* After the strategy's setup: the buffers of the compacted lists. */
static gala_status active_setup(gala_qp_solver *s)
{
    int nc;
    qp_bin *c = launch_classes(s, &nc);
    for (int b = 0; b < nc; ++b) {
        GALA_TRY(mkbuf(s, GALA_INT, (size_t)c[b].count, &c[b].alist));
        c[b].acount = c[b].count;
        c[b].compacted = 0;
    }
    GALA_TRY(mkbuf(s, GALA_INT, (size_t)nc, &s->b_acnt));
    return mkbuf(s, GALA_INT, ((size_t)s->nvalid + QP_UTIL_WG - 1) / QP_UTIL_WG, &s->b_ccnt);
}

/* Launches use every listed QP again (start of a solve: statuses were reset). */
static void active_reset(gala_qp_solver *s)
{
    int nc;
    qp_bin *c = launch_classes(s, &nc);
    for (int b = 0; b < nc; ++b) {
        c[b].acount = c[b].count;
        c[b].compacted = 0;
    }
}

/* QPs the launches cover now. */
static long long active_total(gala_qp_solver *s)
{
    int nc;
    long long t = 0;
    qp_bin *c = launch_classes(s, &nc);
    for (int b = 0; b < nc; ++b) t += c[b].acount;
    return t;
}

/* Compact every class's list to its running QPs (in list order; cl/qp.cl's
 * qp_compact_count and qp_compact_write), so that later launches of qp_admm and qp_check
 * have one work-group per running tile: a batch whose last QPs need many more iterations
 * than the rest no longer pays for a whole-batch launch per check. One read-back. */
static gala_status active_compact(gala_qp_solver *s)
{
    int nc;
    qp_bin *c = launch_classes(s, &nc);
    gala_kernel *kc, *kw;
    GALA_TRY(gala_qp_kernel(s, "qp_compact_count", &kc));
    GALA_TRY(gala_qp_kernel(s, "qp_compact_write", &kw));
    int *cnt = gala_malloc(sizeof(int) * (size_t)nc);
    if (!cnt) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = GALA_OK;
    for (int b = 0; st == GALA_OK && b < nc; ++b) {
        if (c[b].acount == 0) continue; /* nothing of it runs (it stays empty) */
        gala_dims d = qp_dims(((long long)c[b].count + QP_UTIL_WG - 1) / QP_UTIL_WG, QP_UTIL_WG);
        st = GALA_LAUNCH(s->ctx, kc, &d, ga_buf(c[b].list), ga_int(c[b].count),
                         ga_buf(s->b_state), ga_buf(s->b_ccnt));
        if (st == GALA_OK)
            st = GALA_LAUNCH(s->ctx, kw, &d, ga_buf(c[b].list), ga_int(c[b].count),
                             ga_buf(s->b_state), ga_buf(s->b_ccnt), ga_buf(c[b].alist),
                             ga_buf(s->b_acnt), ga_int(b));
    }
    if (st == GALA_OK) st = gala_buffer_read(s->b_acnt, 0, (size_t)nc, cnt);
    for (int b = 0; st == GALA_OK && b < nc; ++b) {
        if (c[b].acount == 0) continue;
        c[b].acount = cnt[b];
        c[b].compacted = 1;
    }
    gala_free(cnt);
    gala_qp_prof(s, GALA_QP_PHASE_SYNC);
    return st;
}

/* Status reset of every slot (keep: before a solve; else after an update). */
static gala_status reset_state(gala_qp_solver *s, int keep)
{
    gala_kernel *k;
    GALA_TRY(gala_qp_kernel(s, "qp_reset", &k));
    gala_dims d = qp_dims(((long long)s->nvalid + QP_UTIL_WG - 1) / QP_UTIL_WG, QP_UTIL_WG);
    return GALA_LAUNCH(s->ctx, k, &d, ga_buf(s->b_state), ga_buf(s->b_hstat), ga_int(s->nvalid),
                       ga_int(keep), ga_int(s->rung0));
}
/* ------------------------------------------------------------------ layout */

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
        const qp_pat *tp = &s->pats[s->ppat[sl]], *ta = &s->pats[s->apat[sl]];
        if (tp->rep != k && !j->scan[k].same_pp)
            j->bad[sl] = (unsigned char)!same_csc_pattern(&j->pb[k].P, &j->pb[tp->rep].P);
        if (ta->rep != k && !j->scan[k].same_ap)
            j->bad[s->nvalid + sl] = (unsigned char)!same_csc_pattern(&j->pb[k].A, &j->pb[ta->rep].A);
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
        double *q = s->hq + xo, *l = s->hl + zo, *u = s->hu + zo;
        memcpy(q, p->q, sizeof(double) * (size_t)p->n);
        for (int i = 0; i < p->m; ++i) {
            l[i] = clamp_inf(p->l[i]);
            u[i] = clamp_inf(p->u[i]);
        }
        if (j->fq) {
            float *fq = j->fq + xo, *fl = j->fl + zo, *fu = j->fu + zo;
            for (int i = 0; i < p->n; ++i) fq[i] = (float)q[i];
            for (int i = 0; i < p->m; ++i) {
                fl[i] = (float)l[i];
                fu[i] = (float)u[i];
            }
        }
        if (s->shared && sl > 0) continue; /* the values are stored once */
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
        if (s->hval && (void *)s->hval != j->raw) {
            double *h = s->hval + ro;
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
        const qp_pat *t = &s->pats[tab->slot[i] - 1];
        if (t->hash == h && t->is_a == is_a) return tab->slot[i] - 1;
    }
    return -1;
}

static void pat_insert(gala_qp_solver *s, pat_table *tab, int id)
{
    const qp_pat *t = &s->pats[id];
    size_t i = (size_t)(t->hash ^ (uint64_t)t->is_a) & (tab->cap - 1);
    while (tab->slot[i]) i = (i + 1) & (tab->cap - 1);
    tab->slot[i] = id + 1;
}

static int pat_new(gala_qp_solver *s, const gala_qp_problem *pb, int k, int is_a, uint64_t h)
{
    qp_pat *t = &s->pats[s->npats];
    const gala_csc *M = is_a ? &pb[k].A : &pb[k].P;
    memset(t, 0, sizeof *t);
    t->is_a = is_a;
    t->rows = M->m;
    t->cols = M->n;
    t->nnz = M->p[M->n];
    t->rep = k;
    t->hash = h;
    return s->npats++;
}

/* ------------------------------------------------------------------ setup */

/* Once the strategy and its launch classes are known: start building the solver's own
 * programs together (the utility kernels, the sparse/PCG kernels where that strategy runs,
 * each class's ADMM kernels), while this thread goes on with the setup and builds what
 * src/la needs (docs/design.md, "The first call"). */
static gala_status prefetch_programs(gala_qp_solver *s)
{
    int nc = 0;
    const qp_bin *c = launch_classes(s, &nc);
    gala_program_key *keys = gala_malloc(sizeof *keys * (size_t)(nc + 2));
    if (!keys) return GALA_OK; /* built when asked for */
    int n = 0;
    util_key(s, "qp_init", &keys[n++]);
    if (s->ls == &gala_qp_linsys_sparse || s->ls == &gala_qp_linsys_pcg)
        util_key(s, "qp_kkt_rhs", &keys[n++]);
    for (int i = 0; c && i < nc; ++i) gala_qp_key(s, &keys[n++], &c[i]);
    gala_status st = gala_kernel_prefetch(s->ctx, keys, n);
    gala_free(keys);
    return st;
}

static gala_status setup_impl(gala_qp_solver *s, const gala_qp_problem *pb)
{
    gala_context *ctx = s->ctx;
    static const char fn[] = "gala_qp_setup";
    const int count = s->count;
    gala_status st = GALA_OK;
#define NOMEM() gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn)
    s->info = gala_calloc((size_t)count, sizeof *s->info);
    s->host_status = gala_calloc((size_t)count, sizeof(int));
    s->slot = gala_malloc(sizeof(int) * (size_t)count);
    s->qp_of = gala_malloc(sizeof(int) * (size_t)count);
    s->qn = gala_malloc(sizeof(int) * 2 * (size_t)count);
    s->c0 = gala_malloc(sizeof(double) * (size_t)count);
    s->hxo = gala_malloc(sizeof(size_t) * 2 * (size_t)count);
    s->cxo = gala_malloc(sizeof(size_t) * (size_t)count);
    if (!s->info || !s->host_status || !s->slot || !s->qp_of || !s->qn || !s->c0 || !s->hxo ||
        !s->cxo)
        return NOMEM();
    s->qm = s->qn + count;
    s->hzo = s->hxo + count;

    /* ---- validation: the reference QP (the first valid one) here, then every other QP on
     * several threads, compared with it (same patterns, values, row kinds) */
    double work = 0;
    size_t hn = 0, hm = 0, big = 1;
    for (int k = 0; k < count; ++k) {
        const gala_qp_problem *p = &pb[k];
        s->info[k].status = GALA_QP_UNSOLVED;
        s->slot[k] = -1;
        s->cxo[k] = SIZE_MAX;
        s->qn[k] = p->n > 0 ? p->n : 0;
        s->qm[k] = p->m > 0 ? p->m : 0;
        s->c0[k] = p->c0;
        s->hxo[k] = hn;
        s->hzo[k] = hm;
        hn += (size_t)s->qn[k];
        hm += (size_t)s->qm[k];
        if ((size_t)s->qn[k] > big) big = (size_t)s->qn[k];
        if ((size_t)s->qm[k] > big) big = (size_t)s->qm[k];
    }
    s->x = gala_malloc(sizeof(double) * (hn ? hn : 1));
    s->y = gala_malloc(sizeof(double) * (hm ? hm : 1));
    s->nanv = gala_malloc(sizeof(double) * big);
    qp_scan *scan = gala_calloc((size_t)count, sizeof *scan);
    if (!s->x || !s->y || !s->nanv || !scan) {
        gala_free(scan);
        return NOMEM();
    }
    for (size_t i = 0; i < big; ++i) s->nanv[i] = NAN;
    int r = 0;
    for (; r < count; ++r) {
        if (!invalid_problem(&pb[r], 0, 0, s->info[r].message, sizeof s->info[r].message)) break;
        scan[r].bad = 1;
    }
    if (r < count) {
        /* work: the vectors and the matrices, as if every QP were as large as the reference */
        work = (double)hn + 2.0 * (double)hm +
               3.0 * (double)count * ((double)pb[r].P.p[pb[r].n] + (double)pb[r].A.p[pb[r].n]);
        s->nthreads = gala_qp_threads_for(s->set.threads, work);
        unsigned char *rkind = gala_malloc((size_t)pb[r].m + 1);
        if (!rkind) {
            gala_free(scan);
            return NOMEM();
        }
        for (int i = 0; i < pb[r].m; ++i) rkind[i] = raw_kind(clamp_inf(pb[r].l[i]), clamp_inf(pb[r].u[i]));
        scan_job sj = {pb, s, scan, r, rkind, s->set.linsys_solver == GALA_QP_LINSYS_AUTO ||
                                                  s->set.linsys_solver == GALA_QP_LINSYS_DENSE_SHARED};
        scan_one(&sj, r);
        gala_par(s->ctx, s->nthreads, count, 64, scan_range, &sj);
        gala_free(rkind);
    } else {
        s->nthreads = 1;
    }
    int shared_ok = 1;
    for (int k = 0; k < count; ++k) {
        if (scan[k].bad) {
            s->host_status[k] = GALA_QP_INVALID_DATA;
            s->info[k].status = GALA_QP_INVALID_DATA;
            continue;
        }
        s->slot[k] = s->nvalid;
        s->qp_of[s->nvalid++] = k;
        shared_ok = shared_ok && scan[k].same_vals;
    }
    gala_qp_prof(s, GALA_QP_PHASE_VALIDATE);
    if (s->nvalid == 0) {
        gala_free(scan);
        return GALA_OK;
    }

    /* ---- strategy */
    int shared = 0;
    if (s->set.linsys_solver == GALA_QP_LINSYS_AUTO ||
        s->set.linsys_solver == GALA_QP_LINSYS_DENSE_SHARED) {
        shared = s->nvalid > 1 && shared_ok;
        if (s->set.linsys_solver == GALA_QP_LINSYS_DENSE_SHARED && !shared && s->nvalid > 1) {
            gala_free(scan);
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: DENSE_SHARED needs the same P, A "
                              "and row kinds (equality / inequality / free) in every QP", fn);
        }
        if (s->set.linsys_solver == GALA_QP_LINSYS_DENSE_SHARED) shared = 1;
    }
    s->shared = shared;
    s->ls = shared ? &gala_qp_linsys_shared : &gala_qp_linsys_dense;
    if (!shared && s->set.linsys_solver == GALA_QP_LINSYS_AUTO) {
        /* AUTO without a shared batch: the sparse KKT factorization is considered once a QP
         * reaches qp.sparse_n variables (its setup keeps it only where it is cheaper) */
        int maxn = 0;
        for (int k = 0; k < count; ++k)
            if (s->slot[k] >= 0 && s->qn[k] > maxn) maxn = s->qn[k];
        if (maxn >= (int)gala_tune(ctx, "qp.sparse_n", s->dt, 8192)) s->ls = &gala_qp_linsys_sparse;
    }
    if (s->set.linsys_solver == GALA_QP_LINSYS_SPARSE_LDLT) s->ls = &gala_qp_linsys_sparse;
    if (s->set.linsys_solver == GALA_QP_LINSYS_PCG) s->ls = &gala_qp_linsys_pcg;

    /* ---- patterns: the reference's, and one per distinct hash among the others; matches
     * by hash are confirmed on several threads (a collision gets a pattern of its own) */
    const int nv = s->nvalid;
    s->ppat = gala_malloc(sizeof(int) * 2 * (size_t)nv);
    s->pats = gala_calloc(2 * (size_t)nv + 2, sizeof *s->pats);
    s->meta = gala_calloc((size_t)nv * QP_NMETA, sizeof(int));
    pat_table tab = {NULL, 16};
    while (tab.cap < 4 * (size_t)nv + 16) tab.cap *= 2;
    tab.slot = gala_calloc(tab.cap, sizeof(int));
    unsigned char *bad = gala_calloc(2 * (size_t)nv, 1);
    if (!s->ppat || !s->pats || !s->meta || !tab.slot || !bad) {
        gala_free(scan);
        gala_free(tab.slot);
        gala_free(bad);
        return NOMEM();
    }
    s->apat = s->ppat + nv;
    const int rp_id = pat_new(s, pb, r, 0, 0), ra_id = pat_new(s, pb, r, 1, 0);
    int hashed = 0;
    for (int sl = 0; sl < nv; ++sl) {
        const int k = s->qp_of[sl];
        for (int is_a = 0; is_a < 2; ++is_a) {
            int *id = is_a ? &s->apat[sl] : &s->ppat[sl];
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
            if (bad[sl]) s->ppat[sl] = pat_new(s, pb, s->qp_of[sl], 0, 0);
            if (bad[nv + sl]) s->apat[sl] = pat_new(s, pb, s->qp_of[sl], 1, 0);
        }
    }
    gala_free(bad);
    gala_free(scan);

    /* ---- layout: patterns (rows, columns, maps; host copies), then the slots */
    size_t nrp = 0, nci = 0, nmap = 0, hcopy = 0;
    for (int t = 0; t < s->npats; ++t) {
        qp_pat *pt = &s->pats[t];
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
    size_t vo = 0, ro = 0;
    for (int sl = 0; sl < nv; ++sl) {
        const gala_qp_problem *p = &pb[s->qp_of[sl]];
        const qp_pat *tp = &s->pats[s->ppat[sl]], *ta = &s->pats[s->apat[sl]];
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
            nci > 0x7fffffffu || nrp > 0x7fffffffu || nmap > 0x7fffffffu)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the batch has more than 2^31 "
                              "vector or matrix entries", fn);
    }
    s->nrp = nrp;
    s->nci = nci;
    s->nmap = nmap;
    s->nnz = vo;
    s->nraw = ro;
    s->nct = shared ? (size_t)pb[r].m : s->mtot;

    /* host copies and upload staging */
    const int flt = s->dt == GALA_FLOAT;
    const size_t rsz = flt ? sizeof(float) : sizeof(double);
    s->patmem = gala_malloc(sizeof(int) * (hcopy ? hcopy : 1));
    int *ist = gala_malloc(sizeof(int) * (nrp + nci + nmap + 1));
    /* what crosses the bus in bulk (q, l, u up; x, y down) lives in the context's
     * page-locked block when it can have it (several times the pageable rate) */
    const size_t nqlu = s->ntot + 2 * s->mtot + 1, nxy = s->ntot + s->mtot;
    const int direct = nv == count; /* results read straight into x, y (collect) */
    s->stg = gala_staging_take(ctx, flt ? sizeof(float) * (nqlu + nxy)
                                        : sizeof(double) * (nqlu + (direct ? nxy : 0)));
    s->hq = !flt && s->stg ? (double *)s->stg : gala_malloc(sizeof(double) * nqlu);
    if (!flt && s->stg && direct) {
        gala_free(s->x);
        gala_free(s->y);
        s->x = s->hq + nqlu;
        s->y = s->x + s->ntot;
    }
    void *raw = NULL;
    float *fst = NULL;
    if (s->set.polishing) s->hval = gala_malloc(sizeof(double) * (ro ? ro : 1));
    raw = !flt && s->hval ? (void *)s->hval : gala_malloc(rsz * (ro ? ro : 1));
    if (flt && s->stg) {
        fst = (float *)s->stg;
        s->rtmp = fst + nqlu;
        s->rtmp_n = nxy;
    } else if (flt) {
        fst = gala_malloc(sizeof(float) * nqlu);
    }
    if (!s->patmem || !ist || !s->hq || !raw || (flt && !fst) || (s->set.polishing && !s->hval)) {
        if (raw != (void *)s->hval) gala_free(raw);
        gala_free(ist);
        if (!s->stg) gala_free(fst);
        return NOMEM();
    }
    s->hl = s->hq + s->ntot;
    s->hu = s->hl + s->mtot;
    size_t hc = 0;
    for (int t = 0; t < s->npats; ++t) {
        s->pats[t].p = s->patmem + hc;
        s->pats[t].i = s->patmem + hc + s->pats[t].cols + 1;
        hc += (size_t)s->pats[t].cols + 1 + (size_t)s->pats[t].nnz;
    }
    pat_job pj = {s->pats, pb, ist, ist + nrp, ist + nrp + nci};
    memset(ist, 0, sizeof(int) * (nrp + nci + nmap)); /* the gaps of the upper bounds */
    gala_par(s->ctx, s->npats > 1 ? s->nthreads : 1, s->npats, 8, pat_range, &pj);
    for (int t = 0; t < s->npats; ++t)
        if (s->pats[t].full < 0) st = NOMEM();
    copy_job cj = {s, pb, fst, fst ? fst + s->ntot : NULL, fst ? fst + s->ntot + s->mtot : NULL, raw};
    if (st == GALA_OK) gala_par(s->ctx, s->nthreads, nv, 32, copy_range, &cj);
    gala_qp_prof(s, GALA_QP_PHASE_LAYOUT);

    /* ---- device buffers and uploads */
    gala_dtype dt = s->dt;
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, (size_t)nv * QP_NMETA, &s->b_meta);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, (size_t)nv, &s->b_ident);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, (size_t)nv * QP_NSTATE, &s->b_state);
    if (st == GALA_OK) st = mkbuf(s, dt, (size_t)nv * QP_NINFO, &s->b_info);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, (size_t)nv, &s->b_refac);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, (size_t)nv, &s->b_hstat);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nrp, &s->b_rp);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nci, &s->b_ci);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, nmap, &s->b_map);
    if (st == GALA_OK) st = mkbuf(s, dt, ro, &s->b_raw);
    if (st == GALA_OK) st = mkbuf(s, dt, vo, &s->b_mv);
    if (st == GALA_OK) st = mkbuf(s, dt, QP_NV * s->ntot, &s->b_vn);
    if (st == GALA_OK) st = mkbuf(s, dt, QP_MV * s->mtot, &s->b_vm);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, s->nct, &s->b_ctype);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, 2, &s->b_cnt);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, (size_t)nv, &s->b_jinfo);
    if (st == GALA_OK) st = mkbuf(s, GALA_INT, 1, &s->b_one);
    if (st == GALA_OK) st = gala_buffer_write(s->b_rp, 0, nrp, ist);
    if (st == GALA_OK && nci) st = gala_buffer_write(s->b_ci, 0, nci, ist + nrp);
    if (st == GALA_OK && nmap) st = gala_buffer_write(s->b_map, 0, nmap, ist + nrp + nci);
    if (st == GALA_OK && ro) st = gala_buffer_write(s->b_raw, 0, ro, raw);
    /* the iterates start at zero (x, x_prev; z, y, y_prev: adjacent sections); q, l, u are
     * written below, D and E by qp_init, the rest is scratch written before it is read */
    if (st == GALA_OK) st = gala_buffer_fill(s->b_vn, QP_V_X * s->ntot, 2 * s->ntot, 0);
    if (st == GALA_OK && s->mtot) st = gala_buffer_fill(s->b_vm, QP_V_Z * s->mtot, 3 * s->mtot, 0);
    if (st == GALA_OK) {
        /* the unscaled q, l, u: scaled in place on the device */
        const void *vq = flt ? (const void *)fst : (const void *)s->hq;
        const void *vl = flt ? (const void *)(fst + s->ntot) : (const void *)s->hl;
        const void *vu = flt ? (const void *)(fst + s->ntot + s->mtot) : (const void *)s->hu;
        st = gala_buffer_write(s->b_vn, QP_V_Q * s->ntot, s->ntot, vq);
        if (st == GALA_OK && s->mtot) st = gala_buffer_write(s->b_vm, QP_V_L * s->mtot, s->mtot, vl);
        if (st == GALA_OK && s->mtot) st = gala_buffer_write(s->b_vm, QP_V_U * s->mtot, s->mtot, vu);
    }
    if (raw != (void *)s->hval) gala_free(raw);
    gala_free(ist);
    if (!s->stg) gala_free(fst);
    if (st == GALA_OK) {
        int *ident = gala_malloc(sizeof(int) * (size_t)nv);
        if (!ident) st = NOMEM();
        for (int i = 0; st == GALA_OK && i < nv; ++i) ident[i] = i;
        if (st == GALA_OK) st = gala_buffer_write(s->b_ident, 0, (size_t)nv, ident);
        gala_free(ident);
    }
    if (st == GALA_OK) st = gala_buffer_fill(s->b_refac, 0, (size_t)nv, 0);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_hstat, 0, (size_t)nv, 0);
    if (st == GALA_OK) st = s->ls->setup(s); /* K storage and offsets, ladder, launch lists */
    if (st == GALA_OK) st = prefetch_programs(s);
    if (st == GALA_OK) st = active_setup(s);
    if (st == GALA_OK) st = gala_buffer_write(s->b_meta, 0, (size_t)nv * QP_NMETA, s->meta);
    gala_qp_prof(s, GALA_QP_PHASE_UPLOAD);

    /* ---- device: expand, scale; factor every QP */
    if (st == GALA_OK) st = device_scale(s, 0);
    gala_qp_prof(s, GALA_QP_PHASE_SCALE);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_refac, 0, (size_t)nv, 1);
    if (st == GALA_OK) st = s->ls->refactor(s, 1);
    return st;
#undef NOMEM
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

static gala_status read_hstat(gala_qp_solver *s)
{
    if (!s->shared || !s->nvalid) return GALA_OK;
    int *hst = gala_malloc(sizeof(int) * (size_t)s->nvalid);
    if (!hst) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = gala_buffer_read(s->b_hstat, 0, (size_t)s->nvalid, hst);
    if (st == GALA_OK) apply_hstat(s, hst);
    gala_free(hst);
    return st;
}

/* After setup or a refactorization (gala_qp_update_matrices): a QP whose K the device found
 * not positive definite has NON_CVX in its state; put it into info, so that gala_qp_get_info
 * reports it before any solve (as OSQP's setup and update fail there), and a QP that was
 * NON_CVX and factors now is UNSOLVED again. */
static gala_status read_factor_status(gala_qp_solver *s)
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
    double t0 = gala_now();
    gala_qp_solver *s = gala_calloc(1, sizeof *s);
    if (!s) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    s->ctx = ctx;
    s->set = set;
    s->dt = set.dtype;
    s->count = count;
    s->nthreads = 1;
    s->dualgap = dualgap_of(&set);
    /* Float refines every solve by default, with K as an explicit inverse or as a Cholesky
     * factor (qp.factor = 2): without the step the factor path stalled at max_iter on an
     * equality QP whose first row became an inequality (75 iterations with it). */
    s->kfac = gala_tune(ctx, "qp.factor", s->dt, 1) == 2;
    s->refine = set.refine < 0 ? set.dtype == GALA_FLOAT : set.refine;
    s->prof_t = t0;
    gala_status st = setup_impl(s, problems);
    if (st == GALA_OK) st = gala_finish(ctx);
    if (st == GALA_OK) st = read_hstat(s);
    if (st == GALA_OK) st = read_factor_status(s);
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
    gala_qp_dio_release(s);
    if (s->ls && s->ls->release) s->ls->release(s);
    gala_buffer *bufs[] = {s->b_meta, s->b_ident, s->b_state, s->b_info, s->b_refac, s->b_rp,
                           s->b_ci, s->b_mv, s->b_K, s->b_vn, s->b_vm, s->b_ctype, s->b_lrho,
                           s->b_rungok, s->b_cnt, s->b_kofs, s->b_jinfo, s->b_jqp, s->b_rflag,
                           s->b_map, s->b_raw, s->b_hstat, s->b_one, s->b_ccnt, s->b_acnt,
                           s->sbin.alist};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) gala_buffer_free(bufs[i]);
    for (int b = 0; s->bins && b < s->nbins; ++b) {
        gala_buffer_free(s->bins[b].list);
        gala_buffer_free(s->bins[b].alist);
    }
    /* what lives in the staging block goes back with it */
    const int in_stg = s->stg && s->dt == GALA_DOUBLE;
    if (in_stg && s->x == s->hq + s->ntot + 2 * s->mtot + 1) s->x = s->y = NULL;
    if (in_stg) s->hq = NULL;
    gala_staging_give(s->ctx, s->stg);
    void *ptrs[] = {s->info, s->host_status, s->slot, s->qp_of, s->qn, s->c0, s->ppat, s->pats,
                    s->patmem, s->hq, s->hval, s->meta, s->bins, s->lrho, s->rungok, s->hxo,
                    s->x, s->y, s->cert, s->cxo, s->nanv};
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

int gala_qp_has_solution(int status) { return has_solution(status); }

static int primal_inf(int st) { return st == GALA_QP_PRIMAL_INFEASIBLE || st == GALA_QP_PRIMAL_INFEASIBLE_INACCURATE; }
static int dual_inf(int st) { return st == GALA_QP_DUAL_INFEASIBLE || st == GALA_QP_DUAL_INFEASIBLE_INACCURATE; }

/* Results per QP on several threads: info from the device's state and info, the unscaled
 * solution (or certificate) from the device's output vectors, in slot layout (ox, oy; NULL
 * when they were read straight into s->x, s->y). */
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
        const double *ox = j->ox ? j->ox + mt[QP_M_XO] : s->x + s->hxo[k];
        const double *oy = j->oy ? j->oy + mt[QP_M_ZO] : s->y + s->hzo[k];
        const int stv = in->status;
        if (has_solution(stv)) {
            if (j->ox) {
                memcpy(s->x + s->hxo[k], ox, sizeof(double) * (size_t)n);
                memcpy(s->y + s->hzo[k], oy, sizeof(double) * (size_t)m);
            }
        } else if (primal_inf(stv)) {
            memcpy(s->cert + s->cxo[k], oy, sizeof(double) * (size_t)m);
            in->obj_val = QP_INFTY;
        } else if (dual_inf(stv)) {
            memcpy(s->cert + s->cxo[k], ox, sizeof(double) * (size_t)n);
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
    const double *xs, *zs, *ys, *ls, *us, *D, *E, *inf;
} polish_job;

static void polish_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    const polish_job *j = arg;
    gala_qp_solver *s = j->s;
    for (long k = b; k < e; ++k) {
        gala_qp_info *in = &s->info[k];
        const int sl = s->slot[k];
        if (sl < 0 || in->status != GALA_QP_SOLVED) continue;
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        const size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO], ro = (size_t)mt[QP_M_RO];
        const qp_pat *tp = &s->pats[s->ppat[sl]], *ta = &s->pats[s->apat[sl]];
        gala_qp_problem v; /* a view of the QP's host copies */
        memset(&v, 0, sizeof v);
        v.n = n;
        v.m = m;
        v.P = (gala_csc){n, n, tp->p, tp->i, s->hval + ro};
        v.A = (gala_csc){m, n, ta->p, ta->i, s->hval + ro + (size_t)tp->nnz};
        v.q = s->hq + xo;
        v.l = s->hl + zo;
        v.u = s->hu + zo;
        v.c0 = s->c0[k];
        double tp0 = gala_now(), obj, pr, du;
        double *px = gala_malloc(sizeof(double) * (size_t)(n + m + 1));
        const double c = j->inf[(size_t)sl * QP_NINFO + QP_I_C];
        int res = px ? gala_qp_polish_one(&v, j->D + xo, j->E + zo, c, j->xs + xo, j->zs + zo,
                                          j->ys + zo, j->ls + zo, j->us + zo, s->set.delta,
                                          s->set.polish_refine_iter, in->prim_res, in->dual_res,
                                          px, px + n, &obj, &pr, &du)
                     : -2;
        if (res == 1) {
            memcpy(s->x + s->hxo[k], px, sizeof(double) * (size_t)n);
            memcpy(s->y + s->hzo[k], px + n, sizeof(double) * (size_t)m);
            in->obj_val = obj;
            in->prim_res = pr;
            in->dual_res = du;
        }
        gala_free(px);
        in->status_polish = res;
        in->polish_time = gala_now() - tp0;
    }
}

static gala_status polish_all(gala_qp_solver *s, const double *inf)
{
    size_t nt = s->ntot, mt_ = s->mtot;
    double *buf = gala_malloc(sizeof(double) * (3 * nt + 5 * mt_ + 1));
    if (!buf) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    polish_job j = {s, buf, buf + nt, buf + nt + mt_, buf + nt + 2 * mt_, buf + nt + 3 * mt_,
                    buf + nt + 4 * mt_, buf + 2 * nt + 4 * mt_, inf};
    gala_status st = read_real(s, s->b_vn, QP_V_X * nt, nt, (double *)j.xs);
    if (st == GALA_OK) st = read_real(s, s->b_vn, QP_V_D * nt, nt, (double *)j.D);
    if (st == GALA_OK) st = read_real(s, s->b_vm, QP_V_Z * mt_, mt_, (double *)j.zs);
    if (st == GALA_OK) st = read_real(s, s->b_vm, QP_V_Y * mt_, mt_, (double *)j.ys);
    if (st == GALA_OK) st = read_real(s, s->b_vm, QP_V_L * mt_, 2 * mt_, (double *)j.ls);
    if (st == GALA_OK) st = read_real(s, s->b_vm, QP_V_E * mt_, mt_, (double *)j.E);
    if (st == GALA_OK) gala_par(s->ctx, s->nthreads, s->count, 4, polish_range, &j);
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
            memcpy(tx + mt[QP_M_XO], s->x + s->hxo[k], sizeof(double) * (size_t)mt[QP_M_N]);
            memcpy(ty + mt[QP_M_ZO], s->y + s->hzo[k], sizeof(double) * (size_t)mt[QP_M_M]);
            list[npol++] = sl;
        }
        /* XT and YPREV are scratch between solves; qp_warm reads them for the listed slots */
        if (st == GALA_OK) st = gala_qp_write_real(s, s->b_vn, QP_V_XT * nt, nt, tx);
        if (st == GALA_OK && mt_) st = gala_qp_write_real(s, s->b_vm, QP_V_YPREV * mt_, mt_, ty);
        if (st == GALA_OK) st = gala_buffer_create(s->ctx, GALA_INT, (size_t)npol, &lb);
        if (st == GALA_OK) st = gala_buffer_write(lb, 0, (size_t)npol, list);
        if (st == GALA_OK) st = gala_qp_kernel(s, "qp_warm", &kw);
        gala_dims d = qp_dims(npol, QP_UTIL_WG);
        if (st == GALA_OK)
            st = GALA_LAUNCH(s->ctx, kw, &d, ga_buf(s->b_meta), ga_buf(lb), ga_int(npol),
                             ga_buf(s->b_rp), ga_buf(s->b_ci), ga_buf(s->b_mv), ga_buf(s->b_vn),
                             ga_long((long long)nt), ga_buf(s->b_vm), ga_long((long long)mt_),
                             ga_buf(s->b_info), ga_int(3));
        if (st == GALA_OK) st = gala_finish(s->ctx);
        gala_buffer_free(lb);
        gala_free(list);
    }
    gala_free(buf);
    return st;
}

/* Download the per-QP state and the unscaled solutions / certificates (unscaled on the
 * device by qp_unscale into W2 and W); polish. */
static gala_status collect(gala_qp_solver *s, const double *sync_t, const int *sync_it, int nsync)
{
    gala_context *ctx = s->ctx;
    const size_t nv = (size_t)s->nvalid;
    int *stt = gala_malloc(sizeof(int) * (nv ? nv : 1) * (QP_NSTATE + 1));
    double *inf = gala_malloc(sizeof(double) * (nv ? nv : 1) * QP_NINFO);
    gala_status st = GALA_OK;
    if (!stt || !inf) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
    /* the slots' layout is the QPs' when every QP is on the device: read into the results */
    const int direct = s->nvalid == s->count;
    double *ox = NULL, *oy = NULL;
    if (st == GALA_OK && nv) {
        gala_kernel *k;
        st = gala_qp_kernel(s, "qp_unscale", &k);
        gala_dims d = qp_dims(s->nvalid, QP_UTIL_WG);
        if (st == GALA_OK)
            st = GALA_LAUNCH(ctx, k, &d, ga_buf(s->b_meta), ga_buf(s->b_ident), ga_int(s->nvalid),
                             ga_buf(s->b_vn), ga_long((long long)s->ntot), ga_buf(s->b_vm),
                             ga_long((long long)s->mtot), ga_buf(s->b_info), ga_buf(s->b_state));
        if (st == GALA_OK) st = gala_buffer_read(s->b_state, 0, nv * QP_NSTATE, stt);
        if (st == GALA_OK) st = read_real(s, s->b_info, 0, nv * QP_NINFO, inf);
        if (st == GALA_OK && s->shared) st = read_hstat(s);
        if (st == GALA_OK && !direct) {
            ox = gala_malloc(sizeof(double) * (s->ntot + s->mtot + 1));
            if (!ox) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
            else oy = ox + s->ntot;
        }
        if (st == GALA_OK) st = read_real(s, s->b_vn, QP_V_W2 * s->ntot, s->ntot, direct ? s->x : ox);
        if (st == GALA_OK) st = read_real(s, s->b_vm, QP_V_W * s->mtot, s->mtot, direct ? s->y : oy);
    }
    /* certificates of the infeasible QPs */
    size_t ncert = 0;
    for (int k = 0; st == GALA_OK && k < s->count; ++k) {
        s->cxo[k] = SIZE_MAX;
        const int sl = s->slot[k];
        if (sl < 0 || s->host_status[k]) continue;
        const int sv = stt[(size_t)sl * QP_NSTATE + QP_S_STATUS];
        if (primal_inf(sv) || dual_inf(sv)) {
            s->cxo[k] = ncert;
            ncert += primal_inf(sv) ? (size_t)s->qm[k] : (size_t)s->qn[k];
        }
    }
    gala_free(s->cert);
    s->cert = NULL;
    if (st == GALA_OK && ncert) {
        s->cert = gala_malloc(sizeof(double) * ncert);
        if (!s->cert) st = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
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

static gala_status solve_impl(gala_qp_solver *s, double t0, double **sync_t, int **sync_it,
                              int *nsync)
{
    gala_qp_settings *set = &s->set;
    if (!set->warm_starting) GALA_TRY(gala_qp_cold_start(s));
    GALA_TRY(reset_state(s, 1));
    active_reset(s);
    gala_qp_prof(s, GALA_QP_PHASE_SOLVE_OTHER);
    int cnt[2];
    GALA_TRY(count_running(s, cnt));
    if (cnt[1] > 0) { /* pending from updates */
        GALA_TRY(s->ls->refactor(s, 0));
        GALA_TRY(count_running(s, cnt));
    }
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
        /* as OSQP: ρ adapts at the last iteration too (for the next solve) */
        int adapt = interval > 0 && next % interval == 0;
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
            if (cnt[1] > 0 && running > 0 && it < set->max_iter) GALA_TRY(s->ls->refactor(s, 0));
            /* a quarter of the launched QPs finished: launch only the running ones */
            if (running > 0 && it < set->max_iter && 4 * (long long)running <= 3 * active_total(s))
                GALA_TRY(active_compact(s));
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
    s->solved = 0;
    if (s->nvalid > 0) st = solve_impl(s, t0, &sync_t, &sync_it, &nsync);
    gala_qp_prof(s, GALA_QP_PHASE_SOLVE_OTHER);
    /* what a device update left for the host: the verdicts collect reads, the host copies
     * polishing reads */
    if (st == GALA_OK)
        st = gala_qp_dio_host(s, QP_DIO_VERDICTS | (s->set.polishing ? QP_DIO_VECTORS : 0));
    if (st == GALA_OK) st = collect(s, sync_t, sync_it, nsync);
    s->in_solve = 0;
    gala_free(sync_t);
    gala_free(sync_it);
    if (st == GALA_OK) s->solved = 1;
    if (st == GALA_OK) st = gala_qp_dio_solved(s);
    return st;
}

gala_status gala_qp_get_info(const gala_qp_solver *s, int k, gala_qp_info *info)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_get_info: solver is NULL");
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
    if (k < 0 || k >= s->count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_solution: k = %d outside "
                          "0..%d", k, s->count - 1);
    if (!s->solved)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_get_solution: not solved yet");
    GALA_TRY(gala_qp_dio_host((gala_qp_solver *)s, QP_DIO_VERDICTS)); /* host_status */
    /* QPs without a solution or certificate point at a NaN vector */
    const int stv = s->info[k].status;
    const int sol = s->slot[k] >= 0 && !s->host_status[k] && has_solution(stv);
    const int cert = s->cxo[k] != SIZE_MAX;
    if (x) *x = sol ? s->x + s->hxo[k] : s->nanv;
    if (y) *y = sol ? s->y + s->hzo[k] : s->nanv;
    if (pcert) *pcert = cert && primal_inf(stv) ? s->cert + s->cxo[k] : s->nanv;
    if (dcert) *dcert = cert && dual_inf(stv) ? s->cert + s->cxo[k] : s->nanv;
    return GALA_OK;
}

gala_status gala_qp_get_infos(const gala_qp_solver *s, int k0, int count, gala_qp_info *infos)
{
    static const char fn[] = "gala_qp_get_infos";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
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
        const size_t n = (size_t)s->qn[k], m = (size_t)s->qm[k];
        if (j->x && sol) memcpy(j->x + s->hxo[k], s->x + s->hxo[k], sizeof(double) * n);
        if (j->y && sol) memcpy(j->y + s->hzo[k], s->y + s->hzo[k], sizeof(double) * m);
        for (size_t i = 0; j->x && !sol && i < n; ++i) j->x[s->hxo[k] + i] = NAN;
        for (size_t i = 0; j->y && !sol && i < m; ++i) j->y[s->hzo[k] + i] = NAN;
    }
}

gala_status gala_qp_get_solutions(const gala_qp_solver *s, double *x, double *y)
{
    static const char fn[] = "gala_qp_get_solutions";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (!s->solved) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: not solved yet", fn);
    GALA_TRY(gala_qp_dio_host((gala_qp_solver *)s, QP_DIO_VERDICTS)); /* host_status */
    /* on the solver's host threads: a batch's results are tens of MB, and the caller's
     * arrays are often fresh (their pages are first touched here) */
    sol_job j = {s, x, y};
    gala_par(s->ctx, s->count > 256 ? s->nthreads : 1, s->count, 64, sol_range, &j);
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

/* A list of slots for a kernel: every slot (k = -1) or QP k's. */
static gala_status slot_list(gala_qp_solver *s, int k, gala_buffer **list, int *n)
{
    if (k < 0) {
        *list = s->b_ident;
        *n = s->nvalid;
        return GALA_OK;
    }
    *list = s->b_one;
    *n = 1;
    return gala_buffer_write(s->b_one, 0, 1, &s->slot[k]);
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
        const int n = s->qn[k], m = s->qm[k];
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const size_t xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO];
        const double *qk = j->q ? j->q + j->qo[kk] : NULL;
        const double *lk = j->l ? j->l + j->bo[kk] : NULL, *uk = j->u ? j->u + j->bo[kk] : NULL;
        char msg[96] = "";
        for (int i = 0; qk && i < n && !msg[0]; ++i)
            if (!isfinite(qk[i])) snprintf(msg, sizeof msg, "q[%d] = %g", i, qk[i]);
        for (int i = 0; i < m && !msg[0]; ++i) {
            const double lv = lk ? lk[i] : s->hl[zo + (size_t)i], uv = uk ? uk[i] : s->hu[zo + (size_t)i];
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
            if (qk) memcpy(s->hq + xo, qk, sizeof(double) * (size_t)n);
            for (int i = 0; i < m; ++i) {
                if (lk) s->hl[zo + (size_t)i] = clamp_inf(lk[i]);
                if (uk) s->hu[zo + (size_t)i] = clamp_inf(uk[i]);
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
        return gala_buffer_write(s->b_hstat, (size_t)s->slot[k], 1, &v);
    }
    int *h = gala_malloc(sizeof(int) * (size_t)s->nvalid);
    if (!h) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    for (int sl = 0; sl < s->nvalid; ++sl) h[sl] = s->host_status[s->qp_of[sl]] ? QP_H_HOST : 0;
    gala_status st = gala_buffer_write(s->b_hstat, 0, (size_t)s->nvalid, h);
    gala_free(h);
    return st;
}

gala_status gala_qp_update_vectors(gala_qp_solver *s, int k, const double *q, const double *l,
                                   const double *u)
{
    static const char fn[] = "gala_qp_update_vectors";
    GALA_TRY(check_k(s, k, fn));
    /* validation reads the kept vectors and statuses: a device update's first */
    GALA_TRY(gala_qp_dio_host(s, QP_DIO_VERDICTS | QP_DIO_VECTORS));
    double t0 = gala_now();
    const int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->count : k + 1, nk = k1 - k0;
    size_t *off = gala_malloc(sizeof(size_t) * 2 * (size_t)nk);
    int *changed = gala_calloc((size_t)nk, sizeof(int));
    gala_status st = GALA_OK;
    if (!off || !changed) st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    if (st == GALA_OK) {
        size_t qo = 0, bo = 0; /* cursors into the caller's arrays: every QP's n and m */
        for (int kk = 0; kk < nk; ++kk) {
            off[kk] = qo;
            off[nk + kk] = bo;
            qo += (size_t)s->qn[k0 + kk];
            bo += (size_t)s->qm[k0 + kk];
        }
        vec_job j = {s, k0, q, l, u, off, off + nk, changed};
        gala_par(s->ctx, nk > 256 ? s->nthreads : 1, nk, 64, vec_range, &j);
        if (q || l || u) gala_qp_dio_host_changed(s); /* hq, hl, hu are ahead of the device's */
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
        if (q) st = upload_section(s, k, s->b_vn, QP_V_Q * s->ntot, s->hq, 1);
        if (st == GALA_OK && l && s->mtot) st = upload_section(s, k, s->b_vm, QP_V_L * s->mtot, s->hl, 0);
        if (st == GALA_OK && u && s->mtot) st = upload_section(s, k, s->b_vm, QP_V_U * s->mtot, s->hu, 0);
        gala_buffer *list = NULL;
        int nl = 0;
        gala_kernel *kv = NULL;
        if (st == GALA_OK) st = slot_list(s, k, &list, &nl);
        if (st == GALA_OK) st = gala_qp_kernel(s, "qp_vec_update", &kv);
        gala_dims d = qp_dims(nl, QP_UTIL_WG);
        const int which = (q ? 1 : 0) | (l ? 2 : 0) | (u ? 4 : 0);
        if (st == GALA_OK)
            st = GALA_LAUNCH(s->ctx, kv, &d, ga_buf(s->b_meta), ga_buf(list), ga_int(nl),
                             ga_buf(s->b_vn), ga_long((long long)s->ntot), ga_buf(s->b_vm),
                             ga_long((long long)s->mtot), ga_buf(s->b_info), ga_buf(s->b_ctype),
                             ga_buf(s->b_refac), ga_buf(s->b_state), ga_buf(s->b_hstat),
                             ga_int(which), ga_int(s->shared), ga_int(s->set.rho_is_vec));
    }
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
    /* hq, hl, hu go up again below; apply_hstat reads the host statuses */
    GALA_TRY(gala_qp_dio_host(s, QP_DIO_VERDICTS | QP_DIO_VECTORS));
    double t0 = gala_now();
    s->prof_t = t0;
    if (k >= 0 && s->slot[k] < 0) return GALA_OK; /* rejected at setup: nothing on the device */
    const int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->count : k + 1;
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
        if (s->shared) {
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
    const int nupd = s->shared ? 1 : (k < 0 ? s->nvalid : 1);
    const int slot0 = s->shared || k < 0 ? 0 : s->slot[k];
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
            if (s->hval) s->hval[rlo + ro + (size_t)e] = *src;
        }
        po += (size_t)pn;
        ao += (size_t)an;
    }
    if (st == GALA_OK) st = gala_buffer_write(s->b_raw, rlo, rcount, rb);
    gala_free(rb);
    /* scale again and refactor every QP (OSQP also rescales the whole problem); the device's
     * q, l, u are scaled: the host copies go up again first */
    if (st == GALA_OK) st = gala_qp_write_real(s, s->b_vn, QP_V_Q * s->ntot, s->ntot, s->hq);
    if (st == GALA_OK && s->mtot) st = gala_qp_write_real(s, s->b_vm, QP_V_L * s->mtot, s->mtot, s->hl);
    if (st == GALA_OK && s->mtot) st = gala_qp_write_real(s, s->b_vm, QP_V_U * s->mtot, s->mtot, s->hu);
    gala_qp_prof(s, GALA_QP_PHASE_UPLOAD);
    if (st == GALA_OK) st = device_scale(s, 1);
    gala_qp_prof(s, GALA_QP_PHASE_SCALE);
    if (st == GALA_OK) st = gala_buffer_fill(s->b_refac, 0, (size_t)s->nvalid, 1);
    if (st == GALA_OK) st = s->ls->refactor(s, 1);
    if (st == GALA_OK) st = gala_finish(s->ctx);
    if (st == GALA_OK) st = read_hstat(s);
    if (st == GALA_OK) st = read_factor_status(s);
    s->update_time = gala_now() - t0;
    return st;
}

gala_status gala_qp_update_rho(gala_qp_solver *s, int k, double rho)
{
    static const char fn[] = "gala_qp_update_rho";
    GALA_TRY(check_k(s, k, fn));
    gala_context *ctx = s->ctx;
    if (!(rho > 0) || !isfinite(rho))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: rho = %g must be positive and finite",
                          fn, rho);
    rho = rho < QP_RHO_MIN ? QP_RHO_MIN : (rho > QP_RHO_MAX ? QP_RHO_MAX : rho);
    if (!s->nvalid || (k >= 0 && s->slot[k] < 0)) {
        if (k < 0) s->set.rho = rho;
        return GALA_OK;
    }
    /* every slot's ρ (info) and, in the shared strategy, its ladder rung (state): read,
     * changed for the QPs concerned, written back; the other strategies refactor the
     * flagged QPs when the next solve starts, as after an update that changes a row kind */
    const size_t nv = (size_t)s->nvalid;
    double *inf = gala_malloc(sizeof(double) * nv * QP_NINFO);
    int *stt = s->shared ? gala_malloc(sizeof(int) * nv * QP_NSTATE) : NULL;
    if (!inf || (s->shared && !stt)) {
        gala_free(inf);
        gala_free(stt);
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    }
    gala_status st = read_real(s, s->b_info, 0, nv * QP_NINFO, inf);
    if (st == GALA_OK && stt) st = gala_buffer_read(s->b_state, 0, nv * QP_NSTATE, stt);
    int rung = -1;
    double r = rho;
    if (s->shared) { /* the nearest rung whose K was factored */
        double best = INFINITY;
        for (int q = 0; q < s->nrungs; ++q) {
            const double d = fmax(s->lrho[q] / rho, rho / s->lrho[q]);
            if (s->rungok[q] && d < best) {
                best = d;
                rung = q;
            }
        }
        if (rung < 0)
            st = st == GALA_OK ? gala_error(ctx, GALA_ERR_NOT_POSITIVE_DEFINITE, "%s: no rung of "
                                            "the rho ladder has a factorization", fn)
                               : st;
        else
            r = s->lrho[rung];
    }
    const size_t b0 = k < 0 ? 0 : (size_t)s->slot[k], b1 = k < 0 ? nv : b0 + 1;
    for (size_t b = b0; st == GALA_OK && b < b1; ++b) {
        inf[b * QP_NINFO + QP_I_RHO] = r;
        if (stt) stt[b * QP_NSTATE + QP_S_RUNG] = rung;
    }
    if (st == GALA_OK) st = gala_qp_write_real(s, s->b_info, 0, nv * QP_NINFO, inf);
    if (st == GALA_OK && stt) st = gala_buffer_write(s->b_state, 0, nv * QP_NSTATE, stt);
    if (st == GALA_OK && !s->shared) {
        const int one = 1;
        st = k < 0 ? gala_buffer_fill(s->b_refac, 0, nv, 1)
                   : gala_buffer_write(s->b_refac, b0, 1, &one);
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
    if (!settings) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: settings is NULL", fn);
    GALA_TRY(gala_qp_settings_validate(ctx, fn, settings));
    /* what the setup built from (scaling, K and its ρ ladder, the programs, the thread
     * count) stays: as osqp_update_settings, which takes ρ through osqp_update_rho */
    const gala_qp_settings *n = settings;
    GALA_TRY(gala_qp_settings_fixed_kept(ctx, fn, &s->set, n));
    if (n->polishing && !s->hval)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: polishing can be turned on only in a "
                          "solver set up with it (the host copies of P and A it needs are kept "
                          "only then)", fn);
    s->set = *n;
    s->dualgap = dualgap_of(n);
    return GALA_OK;
}

gala_status gala_qp_warm_start(gala_qp_solver *s, int k, const double *x, const double *y)
{
    static const char fn[] = "gala_qp_warm_start";
    GALA_TRY(check_k(s, k, fn));
    s->set.warm_starting = 1;
    if (!s->nvalid || (!x && !y) || (k >= 0 && s->slot[k] < 0)) return GALA_OK;
    /* the caller's vectors (every QP's n and m, one after another for k = -1) in slot
     * layout, unscaled, into XT and YPREV (W keeps the last solve's y); qp_warm scales them
     * and sets z = A x */
    const int k0 = k < 0 ? 0 : k, k1 = k < 0 ? s->count : k + 1;
    double *tx = gala_malloc(sizeof(double) * (s->ntot + s->mtot + 1));
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
        xc += (size_t)s->qn[kk];
        yc += (size_t)s->qm[kk];
    }
    gala_status st = GALA_OK;
    if (x) st = upload_section(s, k, s->b_vn, QP_V_XT * s->ntot, tx, 1);
    if (st == GALA_OK && y && s->mtot) st = upload_section(s, k, s->b_vm, QP_V_YPREV * s->mtot, ty, 0);
    gala_free(tx);
    gala_buffer *list = NULL;
    int nl = 0;
    gala_kernel *kw = NULL;
    if (st == GALA_OK) st = slot_list(s, k, &list, &nl);
    if (st == GALA_OK) st = gala_qp_kernel(s, "qp_warm", &kw);
    gala_dims d = qp_dims(nl, QP_UTIL_WG);
    if (st == GALA_OK)
        st = GALA_LAUNCH(s->ctx, kw, &d, ga_buf(s->b_meta), ga_buf(list), ga_int(nl),
                         ga_buf(s->b_rp), ga_buf(s->b_ci), ga_buf(s->b_mv), ga_buf(s->b_vn),
                         ga_long((long long)s->ntot), ga_buf(s->b_vm), ga_long((long long)s->mtot),
                         ga_buf(s->b_info), ga_int((x ? 1 : 0) | (y ? 2 : 0)));
    return st; /* b_one may be rewritten by the next call: the queue is in order */
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
