/* The host backend on several threads (options.host_threads, GALA_HOST_THREADS): the
 * threads a context reports and accepts, and bitwise the results of one thread for every
 * kernel that runs its items on the context's workers: the QP solver's strategies and
 * factor paths, the batched and variable-batch dense routines (potrf, potrs, potri, trtri,
 * LDLᵀ, sparse LDLᵀ through the QP solver), the vector routines and gemv. GALA_TUNE's
 * host.par_work=1 sends even the smallest launch to the threads, so that every kernel's
 * parallel path runs here; `tools/run.sh tsan` runs this test under ThreadSanitizer. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "testutil.h"

enum { THREADS = 4 };

static gala_context *hctx(int threads)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    o.use_environment = 0;
    o.host_threads = threads;
    gala_context *c = NULL;
    TU_OK(NULL, gala_context_create(&o, &c));
    return c;
}

/* the whole test: threads for every launch, and GALA_HOST_THREADS out of the way */
static void force_threads(const char *extra)
{
    char v[256];
    snprintf(v, sizeof v, "host.par_work=1%s%s", extra && *extra ? "," : "", extra ? extra : "");
    setenv("GALA_TUNE", v, 1);
    unsetenv("GALA_HOST_THREADS");
}

static void same_bytes(const char *what, const void *a, const void *b, size_t bytes)
{
    if (memcmp(a, b, bytes) == 0) return;
    const unsigned char *x = a, *y = b;
    size_t i = 0;
    while (x[i] == y[i]) ++i;
    ck_abort_msg("%s: 1 and %d threads differ from byte %zu of %zu", what, THREADS, i, bytes);
}

static void same_ints(const char *what, const int *a, const int *b, int n)
{
    for (int i = 0; i < n; ++i)
        ck_assert_msg(a[i] == b[i], "%s[%d]: %d with 1 thread, %d with %d", what, i, a[i], b[i],
                      THREADS);
}

/* ------------------------------------------------------------------ the context */

START_TEST(threads_reported_and_capped)
{
    unsetenv("GALA_HOST_THREADS");
    gala_context *c = hctx(3);
    gala_device_info in;
    TU_OK(c, gala_context_info(c, &in));
    ck_assert_int_eq(in.compute_units, 3);
    ck_assert_msg(strstr(in.device_name, "3 threads") != NULL, "%s", in.device_name);
    gala_context_destroy(c);
    c = hctx(0); /* every core the process may use */
    TU_OK(c, gala_context_info(c, &in));
    ck_assert_int_eq(in.compute_units, gala_cpu_count());
    gala_context_destroy(c);
    c = hctx(1);
    TU_OK(c, gala_context_info(c, &in));
    ck_assert_int_eq(in.compute_units, 1);
    ck_assert_msg(strstr(in.device_name, "1 thread)") != NULL, "%s", in.device_name);
    gala_context_destroy(c);

    /* GALA_HOST_THREADS caps the option, whatever use_environment says */
    setenv("GALA_HOST_THREADS", "2", 1);
    c = hctx(5);
    TU_OK(c, gala_context_info(c, &in));
    ck_assert_int_eq(in.compute_units, 2);
    gala_context_destroy(c);
    setenv("GALA_HOST_THREADS", "8", 1);
    c = hctx(3);
    TU_OK(c, gala_context_info(c, &in));
    ck_assert_int_eq(in.compute_units, 3);
    gala_context_destroy(c);
    /* the device list names the threads a default host context gets */
    int n = 0;
    TU_OK(NULL, gala_device_list(NULL, 0, &n));
    gala_device_desc *d = calloc((size_t)n, sizeof *d);
    TU_OK(NULL, gala_device_list(d, n, &n));
    char want[64];
    const int t = gala_cpu_count() < 8 ? gala_cpu_count() : 8;
    snprintf(want, sizeof want, "(C, %d thread", t);
    ck_assert_msg(strstr(d[n - 1].device_name, want) != NULL, "%s", d[n - 1].device_name);
    free(d);

    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    gala_context *bad = NULL;
    for (int k = 0; k < 3; ++k) {
        static const char *const vals[] = {"0", "two", "-1"};
        setenv("GALA_HOST_THREADS", vals[k], 1);
        ck_assert_int_eq(gala_context_create(&o, &bad), GALA_ERR_INVALID_ARG);
        ck_assert_ptr_null(bad);
        ck_assert_msg(strstr(gala_last_error(NULL), "GALA_HOST_THREADS") != NULL, "%s",
                      gala_last_error(NULL));
    }
    unsetenv("GALA_HOST_THREADS");
    o.host_threads = -2;
    ck_assert_int_eq(gala_context_create(&o, &bad), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(NULL), "host_threads") != NULL, "%s",
                  gala_last_error(NULL));
}
END_TEST

/* ------------------------------------------------------------------ dense routines */

/* a batch of matrices of orders n[b] at off[b] (leading dimension n[b] + 3): symmetric,
 * diagonally dominant; bad = 1: a few made indefinite (a negative pivot) or non-finite in
 * the lower triangle, 2: a few singular (a zero diagonal) or non-finite in the upper one */
typedef struct {
    int count;
    int n[64], lda[64];
    size_t off[64], total;
    double *v;
} mats;

static void make_mats(mats *M, tu_rng *r, int count, int nmin, int nmax, int bad)
{
    M->count = count;
    M->total = 0;
    for (int b = 0; b < count; ++b) {
        M->n[b] = tu_int(r, nmin, nmax);
        M->lda[b] = M->n[b] + 3;
        M->off[b] = M->total;
        M->total += (size_t)M->lda[b] * (size_t)M->n[b] + 5;
    }
    M->v = malloc(M->total * sizeof(double));
    for (size_t i = 0; i < M->total; ++i) M->v[i] = tu_normal(r); /* padding too */
    for (int b = 0; b < count; ++b) {
        const int n = M->n[b];
        const size_t ld = (size_t)M->lda[b];
        double *a = M->v + M->off[b];
        for (int j = 0; j < n; ++j) {
            a[j + j * ld] = n + 1.0;
            for (int i = j + 1; i < n; ++i) a[j + i * ld] = a[i + j * ld] = 0.3 * tu_normal(r) / n;
        }
        const size_t mid = (size_t)(n / 2);
        if (bad == 1 && b % 7 == 3) a[mid * (ld + 1)] = -1;
        if (bad == 1 && b % 11 == 5) a[n - 1] = NAN;
        if (bad == 2 && b % 7 == 3) a[mid * (ld + 1)] = 0;
        if (bad == 2 && b % 11 == 5) a[(size_t)(n - 1) * ld] = INFINITY;
    }
}

typedef struct {
    double *A, *B, *C, R[256];
    int info[64], info2[64];
} dense_out;

/* uniform batches: strided; variable ones: the offsets */
static void run_dense(gala_context *c, gala_dtype dt, const mats *M, int uniform, int op,
                      dense_out *o)
{
    const int cnt = M->count, n0 = M->n[0], ld0 = M->lda[0];
    const size_t st = M->off[1] - M->off[0];
    gala_buffer *A = tu_upload(c, dt, M->v, M->total), *B = tu_upload(c, dt, M->v, M->total);
    gala_buffer *C = tu_upload(c, dt, M->v, M->total), *R = tu_poisoned(c, dt, 256);
    memset(o->info, 0, sizeof o->info);
    memset(o->info2, 0, sizeof o->info2);
    int nr[64], ldb[64];
    for (int b = 0; b < cnt; ++b) {
        nr[b] = 3;
        ldb[b] = M->lda[b];
    }
    gala_status s = GALA_OK;
    switch (op) {
    case 0: /* potrf, then potrs with 3 right-hand sides and potri */
        s = uniform ? gala_potrf_batched(c, GALA_LOWER, n0, A, 0, ld0, st, cnt, o->info)
                    : gala_potrf_vbatched(c, GALA_LOWER, M->n, A, M->off, M->lda, cnt, o->info);
        ck_assert_msg(s == GALA_OK || s == GALA_ERR_NOT_POSITIVE_DEFINITE || s == GALA_ERR_NOT_FINITE,
                      "potrf: %s", gala_last_error(c));
        if (uniform)
            s = gala_potrs_batched(c, GALA_LOWER, n0, 3, A, 0, ld0, st, B, 0, ld0, st, cnt);
        else
            s = gala_potrs_vbatched(c, GALA_LOWER, M->n, nr, A, M->off, M->lda, B, M->off, ldb,
                                    cnt);
        ck_assert_msg(s == GALA_OK || s == GALA_ERR_NOT_FINITE, "potrs: %s", gala_last_error(c));
        s = uniform ? gala_potri_batched(c, GALA_LOWER, n0, A, 0, ld0, st, cnt, o->info2)
                    : gala_potri_vbatched(c, GALA_LOWER, M->n, A, M->off, M->lda, cnt, o->info2);
        break;
    case 1: /* trtri, upper, non-unit, into B */
        s = uniform ? gala_trtri_batched(c, GALA_UPPER, GALA_NON_UNIT, n0, A, 0, ld0, st, B, 0,
                                         ld0, st, cnt, o->info)
                    : gala_trtri_vbatched(c, GALA_UPPER, GALA_NON_UNIT, M->n, A, M->off,
                                          M->lda, B, M->off, M->lda, cnt, o->info);
        break;
    case 2: /* LDLᵀ, then a solve with 3 right-hand sides */
        s = uniform ? gala_ldlt_batched(c, GALA_LOWER, n0, A, 0, ld0, st, cnt, o->info, NULL)
                    : gala_ldlt_vbatched(c, GALA_LOWER, M->n, A, M->off, M->lda, cnt, o->info,
                                         NULL);
        if (s == GALA_OK)
            s = uniform ? gala_ldlt_solve_batched(c, GALA_LOWER, n0, 3, A, 0, ld0, st, B, 0, ld0,
                                                  st, cnt)
                        : gala_ldlt_solve_vbatched(c, GALA_LOWER, M->n, nr, A, M->off, M->lda,
                                                   B, M->off, ldb, cnt);
        break;
    default: /* gemv (no transpose and transposed) and the vector routines, into C and R */
        s = gala_gemv_batched(c, GALA_NO_TRANS, n0, n0, 0.5, A, 0, ld0, st, B, 0, st, 0.25, C, 0,
                              st, cnt);
        if (s == GALA_OK)
            s = gala_gemv_batched(c, GALA_TRANS, n0, n0 - 1, -1.5, A, 0, ld0, st, B, ld0, st, 0,
                                  C, n0, st, cnt);
        if (s == GALA_OK) s = gala_axpby_batched(c, n0, 2.0, B, 0, st, -1.0, C, 0, st, cnt);
        if (s == GALA_OK) s = gala_ew_mul_batched(c, n0, A, 0, st, C, 0, st, C, 0, st, cnt);
        if (s == GALA_OK)
            s = gala_clamp_batched(c, n0, C, 0, st, A, ld0, st, A, 2 * (size_t)ld0, st, C, 0, st,
                                   cnt);
        if (s == GALA_OK) s = gala_norm_inf_batched(c, ld0, C, 0, st, R, 0, cnt);
        if (s == GALA_OK) s = gala_dot_batched(c, ld0, C, 0, st, B, 5, st, R, 100, cnt);
        break;
    }
    ck_assert_msg(s == GALA_OK || s == GALA_ERR_NOT_POSITIVE_DEFINITE || s == GALA_ERR_NOT_FINITE ||
                      s == GALA_ERR_SINGULAR,
                  "op %d: %s: %s", op, gala_status_string(s), gala_last_error(c));
    o->A = malloc(M->total * sizeof(double));
    o->B = malloc(M->total * sizeof(double));
    o->C = malloc(M->total * sizeof(double));
    tu_download(A, 0, o->A, M->total);
    tu_download(B, 0, o->B, M->total);
    tu_download(C, 0, o->C, M->total);
    tu_download(R, 0, o->R, 256);
    gala_buffer_free(A);
    gala_buffer_free(B);
    gala_buffer_free(C);
    gala_buffer_free(R);
}

/* cases: op × uniform / variable × sizes (the fused, paired, tiled and blocked paths) */
static const struct {
    int op, uniform, count, nmin, nmax, bad;
} dcases[] = {
    {0, 1, 40, 5, 5, 1},   {0, 1, 40, 16, 16, 1}, {0, 1, 30, 33, 33, 1}, {0, 1, 12, 64, 64, 1},
    {0, 1, 5, 150, 150, 1}, {0, 0, 50, 1, 70, 1},  {0, 0, 6, 100, 200, 1},
    {1, 1, 40, 8, 8, 2},   {1, 1, 20, 40, 40, 2}, {1, 1, 6, 130, 130, 2}, {1, 0, 50, 1, 90, 2},
    {1, 0, 5, 100, 300, 0},
    {2, 1, 40, 12, 12, 1}, {2, 1, 6, 140, 140, 0}, {2, 0, 40, 1, 80, 1},
    {3, 1, 40, 20, 20, 0}, {3, 1, 9, 100, 100, 0},
};

START_TEST(dense_routines_bitwise)
{
    const gala_dtype dt = _i % 2 ? GALA_FLOAT : GALA_DOUBLE;
    const int k = _i / 2;
    force_threads(NULL);
    tu_rng r = tu_rng_for(__func__, _i);
    mats M;
    make_mats(&M, &r, dcases[k].count, dcases[k].nmin, dcases[k].nmax, dcases[k].bad);
    if (dcases[k].uniform)
        for (int b = 1; b < M.count; ++b) ck_assert_int_eq(M.n[b], M.n[0]);
    gala_context *c1 = hctx(1), *cn = hctx(THREADS);
    dense_out o1, on;
    run_dense(c1, dt, &M, dcases[k].uniform, dcases[k].op, &o1);
    run_dense(cn, dt, &M, dcases[k].uniform, dcases[k].op, &on);
    char what[96];
    snprintf(what, sizeof what, "case %d (op %d, %s, n %d..%d) %s", k, dcases[k].op,
             dcases[k].uniform ? "batched" : "vbatched", dcases[k].nmin, dcases[k].nmax,
             gala_dtype_name(dt));
    same_ints(what, o1.info, on.info, M.count);
    same_ints(what, o1.info2, on.info2, M.count);
    same_bytes(what, o1.A, on.A, M.total * sizeof(double));
    same_bytes(what, o1.B, on.B, M.total * sizeof(double));
    same_bytes(what, o1.C, on.C, M.total * sizeof(double));
    same_bytes(what, o1.R, on.R, sizeof o1.R);
    free(o1.A), free(o1.B), free(o1.C), free(on.A), free(on.B), free(on.C), free(M.v);
    gala_context_destroy(c1);
    gala_context_destroy(cn);
}
END_TEST

/* ------------------------------------------------------------------ the QP solver */

typedef struct {
    gala_qp_info *info;
    double *x, *y;
    size_t nx, ny;
} qp_out;

/* a non-convex QP (P = −I) and an infeasible one among the generated ones */
static void small_qps(gala_qp_problem *nc, gala_qp_problem *inf)
{
    static int pp[3] = {0, 1, 2}, pi[2] = {0, 1}, ap[3] = {0, 2, 4}, ai[4] = {0, 1, 0, 1};
    static double px[2] = {-1, -1}, q[2] = {1, 1}, ax[4] = {1, 1, 1, 1};
    static double l1[2] = {-1, -1}, u1[2] = {1, 1}, l2[2] = {1, -INFINITY}, u2[2] = {1, -2};
    memset(nc, 0, sizeof *nc);
    nc->n = nc->m = 2;
    nc->P = (gala_csc){2, 2, pp, pi, px};
    nc->A = (gala_csc){2, 2, ap, ai, ax};
    nc->q = q;
    nc->l = l1;
    nc->u = u1;
    *inf = *nc;
    static double ppx[2] = {1, 1};
    inf->P.x = ppx;
    inf->l = l2;
    inf->u = u2;
}

/* 0, or 1 when the build cannot run the strategy (sparse LDLᵀ without SuiteSparse AMD) */
static int run_qp(gala_context *c, gala_dtype dt, int strategy, gala_qp_problem *pb, int count,
                  qp_out *o)
{
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.dtype = dt;
    s.linsys_solver = strategy;
    gala_qp_solver *sv;
    const gala_status st = gala_qp_setup(c, pb, count, &s, &sv);
    if (st == GALA_ERR_NOT_SUPPORTED) return 1;
    TU_OK(c, st);
    TU_OK(c, gala_qp_solve(sv));
    /* new bounds and a warm re-solve (qp_vec_update, qp_warm, the refactorization) */
    size_t ny = 0, nx = 0;
    for (int k = 0; k < count; ++k) nx += (size_t)pb[k].n, ny += (size_t)pb[k].m;
    double *l = malloc(ny * sizeof *l), *u = malloc(ny * sizeof *u);
    for (int k = 0, at = 0; k < count; at += pb[k].m, ++k)
        for (int i = 0; i < pb[k].m; ++i) { /* inequalities only: the row kinds stay */
            const int ineq = pb[k].l[i] < pb[k].u[i];
            l[at + i] = pb[k].l[i] - (ineq && i % 3 == 0 ? 0.5 : 0);
            u[at + i] = pb[k].u[i] + (ineq && i % 5 == 0 ? 0.25 : 0);
        }
    TU_OK(c, gala_qp_update_vectors(sv, -1, NULL, l, u));
    TU_OK(c, gala_qp_solve(sv));
    o->info = malloc(sizeof *o->info * (size_t)count);
    o->x = malloc(sizeof(double) * (nx ? nx : 1));
    o->y = malloc(sizeof(double) * (ny ? ny : 1));
    o->nx = nx;
    o->ny = ny;
    TU_OK(c, gala_qp_get_infos(sv, 0, count, o->info));
    TU_OK(c, gala_qp_get_solutions(sv, o->x, o->y));
    gala_qp_destroy(sv);
    free(l);
    free(u);
    return 0;
}

static const struct {
    int strategy;
    const char *tune; /* GALA_TUNE besides host.par_work=1 */
} qcases[] = {
    {GALA_QP_LINSYS_DENSE, NULL},                  /* the host's factor path (qp.factor 2) */
    {GALA_QP_LINSYS_DENSE, "qp.factor=0"},         /* the sweep kernel */
    {GALA_QP_LINSYS_DENSE, "qp.factor=1"},         /* potrf + potri, qp_mirror */
    {GALA_QP_LINSYS_DENSE_SHARED, NULL},           /* the ρ ladder */
    {GALA_QP_LINSYS_SPARSE_LDLT, NULL},            /* sparse LDLᵀ of the KKT matrices */
    {GALA_QP_LINSYS_PCG, NULL},
};

START_TEST(qp_bitwise)
{
    const gala_dtype dt = _i % 2 ? GALA_FLOAT : GALA_DOUBLE;
    const int k = _i / 2;
    force_threads(qcases[k].tune);
    enum { MAXQ = 40 };
    gala_qp_problem pb[MAXQ];
    int count = 0;
    if (qcases[k].strategy == GALA_QP_LINSYS_DENSE_SHARED) {
        for (; count < 30; ++count)
            TU_OK(NULL, gala_qp_double_integrator(12, 1.0 + 0.1 * count, -0.5 + 0.03 * count,
                                                  &pb[count]));
    } else {
        /* sizes and families mixed: several launch classes, QPs that stop early and late */
        for (int j = 0; j < 12; ++j)
            TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, 2 + j % 4, 10 + (uint64_t)j, &pb[count++]));
        for (int j = 0; j < 8; ++j)
            TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_RANDOM, 5 + 3 * j, 30 + (uint64_t)j, &pb[count++]));
        for (int j = 0; j < 4; ++j)
            TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_EQUALITY, 6 + 2 * j, 50 + (uint64_t)j, &pb[count++]));
        for (int j = 0; j < 4; ++j)
            TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_PORTFOLIO, 1, 60 + (uint64_t)j, &pb[count++]));
    }
    gala_qp_problem extra[2];
    int nextra = 0;
    if (qcases[k].strategy != GALA_QP_LINSYS_DENSE_SHARED) {
        small_qps(&extra[0], &extra[1]);
        pb[count++] = extra[0];
        pb[count++] = extra[1];
        nextra = 2;
    }
    gala_context *c1 = hctx(1), *cn = hctx(THREADS);
    qp_out o1, on;
    if (run_qp(c1, dt, qcases[k].strategy, pb, count, &o1)) {
        for (int q = 0; q < count - nextra; ++q) gala_qp_problem_free(&pb[q]);
        gala_context_destroy(c1);
        gala_context_destroy(cn);
        return; /* not in this build */
    }
    ck_assert_int_eq(run_qp(cn, dt, qcases[k].strategy, pb, count, &on), 0);
    char what[96];
    snprintf(what, sizeof what, "QP case %d (linsys %d%s%s) %s", k, qcases[k].strategy,
             qcases[k].tune ? ", " : "", qcases[k].tune ? qcases[k].tune : "",
             gala_dtype_name(dt));
    int solved = 0;
    for (int q = 0; q < count; ++q) {
        const gala_qp_info *a = &o1.info[q], *b = &on.info[q];
        ck_assert_msg(a->status == b->status && a->iter == b->iter &&
                          a->rho_updates == b->rho_updates,
                      "%s, QP %d: status %d / %d, iter %d / %d, rho updates %d / %d", what, q,
                      a->status, b->status, a->iter, b->iter, a->rho_updates, b->rho_updates);
        const double va[7] = {a->obj_val, a->dual_obj_val, a->prim_res, a->dual_res,
                              a->duality_gap, a->rho_estimate, a->rho};
        const double vb[7] = {b->obj_val, b->dual_obj_val, b->prim_res, b->dual_res,
                              b->duality_gap, b->rho_estimate, b->rho};
        same_bytes(what, va, vb, sizeof va);
        ck_assert_str_eq(a->message, b->message);
        solved += a->status == GALA_QP_SOLVED;
    }
    ck_assert_msg(solved >= count / 4, "%s: only %d of %d solved", what, solved, count);
    if (nextra && dt == GALA_DOUBLE) {
        ck_assert_int_eq(o1.info[count - 2].status, GALA_QP_NON_CVX);
        ck_assert_int_eq(o1.info[count - 1].status, GALA_QP_PRIMAL_INFEASIBLE);
    }
    same_bytes(what, o1.x, on.x, o1.nx * sizeof(double));
    same_bytes(what, o1.y, on.y, o1.ny * sizeof(double));
    free(o1.info), free(o1.x), free(o1.y), free(on.info), free(on.x), free(on.y);
    for (int q = 0; q < count - nextra; ++q) gala_qp_problem_free(&pb[q]);
    gala_context_destroy(c1);
    gala_context_destroy(cn);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_threads");
    TCase *tc = tcase_create("host_threads");
    tcase_add_test(tc, threads_reported_and_capped);
    tcase_add_loop_test(tc, dense_routines_bitwise, 0,
                        2 * (int)(sizeof dcases / sizeof dcases[0]));
    tcase_add_loop_test(tc, qp_bitwise, 0, 2 * (int)(sizeof qcases / sizeof qcases[0]));
    suite_add_tcase(s, tc);
    return tu_run(s);
}
