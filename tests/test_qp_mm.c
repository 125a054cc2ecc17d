/* Maros–Meszaros validation: every QPS file of tests/data/maros_meszaros (read with the QPS
 * reader) solved in one heterogeneous batch in double at eps_abs = eps_rel = 1e-5, the other
 * settings OSQP's defaults (max_iter 4000), objectives recomputed from x against the OPT
 * column of 00README.QP (BPMPD), primal residuals checked independently in double; the same
 * with each file alone on the host backend (AUTO's sparse strategy for the sparse ones); and
 * a batch in which every QP ends with its own status. docs/maros_meszaros.md has the results
 * next to OSQP's on the same files and settings (bench/ref_mm_osqp.py). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "testutil.h"

#define MM_DIR GALA_TEST_DATA_DIR "/maros_meszaros"

/* The problems of the set that gala does not solve at these settings, with the status gala
 * ends in — the same status, at the same iteration, as OSQP 1.1.3 with the same settings
 * (bench/ref_mm_osqp.py). Every other file must be SOLVED with the objective within 1e-3. */
static const struct {
    const char *name;
    int status;
    int objective_ok; /* the objective is still within 1e-3 of OPT */
    const char *why;
} not_reached[] = {
    {"PRIMALC1", GALA_QP_DUAL_INFEASIBLE, 0,
     "OSQP's dual-infeasibility test fires after 525 iterations on a problem with a finite "
     "optimum (bounds up to 3.4e6 against a unit cost); with the test tightened "
     "(eps_dual_inf 1e-7) ADMM does not converge within 50000 iterations"},
    {"QBANDM", GALA_QP_SOLVED_INACCURATE, 1,
     "needs 12050 iterations for eps 1e-5; at 4000 only the tenfold looser tolerances hold"},
    {"QSHARE1B", GALA_QP_MAX_ITER_REACHED, 0,
     "mostly linear (39 of 225 variables have a quadratic term), A spans 1e-1..1.3e3: ADMM "
     "converges slowly; still not solved after 50000 iterations (objective error 2e-4 there)"},
};
#define NNOT (int)(sizeof not_reached / sizeof not_reached[0])

/* Name without case and without anything but letters and digits (00README.QP writes
 * cvxqp1s for CVXQP1_S). */
static void key_of(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && *s != '.' && n + 1 < cap; ++s)
        if (isalnum((unsigned char)*s)) out[n++] = (char)tolower((unsigned char)*s);
    out[n] = 0;
}

/* OPT of a problem from 00README.QP's table (NAME M N NZ QN QNZ OPT). */
static int readme_opt(const char *name, double *opt)
{
    FILE *f = fopen(MM_DIR "/00README.QP", "r");
    if (!f) return 0;
    char want[64], line[512], key[64];
    key_of(name, want, sizeof want);
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char nm[64], last[64];
        long a, b, c, d, e;
        if (sscanf(line, "%63s %ld %ld %ld %ld %ld %63s", nm, &a, &b, &c, &d, &e, last) != 7) continue;
        key_of(nm, key, sizeof key);
        char *end;
        double v = strtod(last, &end);
        if (!strcmp(key, want) && end != last && *end == 0) {
            *opt = v;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
    char file[64]; /* NAME.QPS */
    char name[64]; /* NAME */
} mm_file;

/* The .QPS files of the directory, sorted. */
static int list_mm(mm_file *files, int cap)
{
    DIR *d = opendir(MM_DIR);
    if (!d) return -1;
    char *tmp[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap && n < 256) {
        size_t l = strlen(e->d_name);
        if (l > 4 && l < 64 && !strcasecmp(e->d_name + l - 4, ".qps")) tmp[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_str);
    for (int k = 0; k < n; ++k) {
        snprintf(files[k].file, sizeof files[k].file, "%s", tmp[k]);
        snprintf(files[k].name, sizeof files[k].name, "%.*s", (int)(strlen(tmp[k]) - 4), tmp[k]);
        free(tmp[k]);
    }
    return n;
}

enum { MAXMM = 160 };

/* The files of the set read, with their OPT (count returned; 0 after a failed assertion). */
static int read_mm(int target, mm_file *files, gala_qp_problem *pb, double *opt)
{
    int count = list_mm(files, MAXMM);
    TU_ASSERT(count >= 24, target, "%d QPS files in %s", count, MM_DIR);
    for (int k = 0; k < count; ++k) {
        char path[sizeof MM_DIR + sizeof files[k].file + 1];
        snprintf(path, sizeof path, "%s/%.*s", MM_DIR, (int)sizeof files[k].file - 1,
                 files[k].file);
        TU_ASSERT(gala_qp_read_qps(path, &pb[k]) == GALA_OK, target, "%s: %.200s", files[k].name,
                  gala_last_error(NULL));
        TU_ASSERT(readme_opt(files[k].name, &opt[k]), target, "%s: no OPT in 00README.QP",
                  files[k].name);
    }
    return count;
}

/* The settings of the comparison with OSQP: its defaults, eps 1e-5. */
static gala_qp_settings mm_settings(void)
{
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.eps_abs = 1e-5;
    s.eps_rel = 1e-5;
    return s;
}

/* QP k of solver sv, problem file f: its status (SOLVED, or the listed one), and for the
 * solved ones (and the listed ones whose objective holds) the primal residual and the
 * objective recomputed from x against OPT. *solved / *listed count them. */
static void check_mm(int target, gala_qp_solver *sv, int k, const mm_file *f,
                     const gala_qp_problem *p, double opt, const gala_qp_settings *s,
                     const char *how, int *solved, int *listed)
{
    gala_qp_info in;
    const double *x, *y;
    TU_OK(NULL, gala_qp_get_info(sv, k, &in));
    TU_OK(NULL, gala_qp_get_solution(sv, k, &x, &y, NULL, NULL));
    int exc = -1;
    for (int e = 0; e < NNOT; ++e)
        if (!strcmp(f->name, not_reached[e].name)) exc = e;
    if (exc >= 0) {
        ++*listed;
        TU_ASSERT(in.status == not_reached[exc].status, target, "%s (%s): status %s after %d "
                  "iterations, listed as %s (%s): update the list and docs/maros_meszaros.md",
                  f->name, how, gala_qp_status_string(in.status), in.iter,
                  gala_qp_status_string(not_reached[exc].status), not_reached[exc].why);
        if (!not_reached[exc].objective_ok) return;
    } else {
        TU_ASSERT(in.status == GALA_QP_SOLVED, target, "%s (%s): status %s after %d iterations",
                  f->name, how, gala_qp_status_string(in.status), in.iter);
        ++*solved;
    }
    /* objective from x, in double, with c0 */
    double obj = p->c0, pr = 0, ax_scale = 0;
    double *ax = calloc((size_t)p->m + 1, sizeof(double));
    for (int j = 0; j < p->n; ++j) {
        obj += p->q[j] * x[j];
        for (int e = p->P.p[j]; e < p->P.p[j + 1]; ++e) {
            int i = p->P.i[e];
            obj += (i == j ? 0.5 : 1.0) * p->P.x[e] * x[i] * x[j];
        }
        for (int e = p->A.p[j]; e < p->A.p[j + 1]; ++e) ax[p->A.i[e]] += p->A.x[e] * x[j];
    }
    for (int i = 0; i < p->m; ++i) {
        double z = ax[i] < p->l[i] ? p->l[i] : (ax[i] > p->u[i] ? p->u[i] : ax[i]);
        pr = fmax(pr, fabs(ax[i] - z));
        ax_scale = fmax(ax_scale, fabs(ax[i]));
    }
    free(ax);
    /* the solver's own stopping test, with the tenfold margin of SOLVED_INACCURATE */
    TU_ASSERT(pr <= 10 * (s->eps_abs + s->eps_rel * ax_scale), target, "%s (%s): primal "
              "residual %g", f->name, how, pr);
    TU_ASSERT(fabs(obj - in.obj_val) <= 1e-9 * fmax(1, fabs(obj)), target,
              "%s (%s): reported objective %.17g, from x %.17g", f->name, how, in.obj_val, obj);
    double err = fabs(obj - opt) / fmax(1, fabs(opt));
    TU_ASSERT(err <= 1e-3, target, "%s (%s): objective %.9g, OPT %.9g: error %.2e", f->name, how,
              obj, opt, err);
}

START_TEST(maros_meszaros_all)
{
    if (tu_target_get(_i)->dtype != GALA_DOUBLE) return; /* float: see docs/qp.md */
    gala_context *ctx = tu_ctx(_i);
    static mm_file files[MAXMM];
    static gala_qp_problem pb[MAXMM];
    static double opt[MAXMM];
    const int count = read_mm(_i, files, pb, opt);
    gala_qp_settings s = mm_settings();
    gala_qp_solver *sv;
    TU_OK(ctx, gala_qp_setup(ctx, pb, count, &s, &sv));
    TU_OK(ctx, gala_qp_solve(sv));
    int solved = 0, listed = 0;
    for (int k = 0; k < count; ++k)
        check_mm(_i, sv, k, &files[k], &pb[k], opt[k], &s, "batch", &solved, &listed);
    TU_ASSERT(listed == NNOT && solved == count - NNOT, _i, "%d solved of %d, %d listed", solved,
              count, listed);
    gala_qp_destroy(sv);
    for (int k = 0; k < count; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* The same, each file alone (bench/ref_mm_osqp.py's timed runs, issue 41's comparison with
 * OSQP one QP at a time), on the host backend, whose AUTO strategy takes the sparse LDLᵀ for
 * the QPs whose factor is cheaper than the dense iteration (QBANDM, QSHARE1B, PRIMALC1,
 * QADLITTL): the same statuses, and objectives within 1e-3 of OPT. */
START_TEST(maros_meszaros_alone)
{
    if (tu_target_get(_i)->dtype != GALA_DOUBLE || tu_target_get(_i)->backend != GALA_BACKEND_HOST)
        return;
    gala_context *ctx = tu_ctx(_i);
    static mm_file files[MAXMM];
    static gala_qp_problem pb[MAXMM];
    static double opt[MAXMM];
    const int count = read_mm(_i, files, pb, opt);
    gala_qp_settings s = mm_settings();
    int solved = 0, listed = 0, sparse = 0;
    for (int k = 0; k < count; ++k) {
        gala_qp_solver *sv;
        TU_OK(ctx, gala_qp_setup(ctx, &pb[k], 1, &s, &sv));
        TU_OK(ctx, gala_qp_solve(sv));
        const int ls = gala_qp_linsys_used(sv);
        sparse += ls == GALA_QP_LINSYS_SPARSE_LDLT;
        check_mm(_i, sv, 0, &files[k], &pb[k], opt[k], &s,
                 ls == GALA_QP_LINSYS_SPARSE_LDLT ? "alone, sparse" : "alone, dense", &solved,
                 &listed);
        gala_qp_destroy(sv);
    }
    TU_ASSERT(listed == NNOT && solved == count - NNOT, _i, "%d solved of %d, %d listed", solved,
              count, listed);
    TU_ASSERT(sparse >= 3, _i, "%d of the files alone took the sparse strategy", sparse);
    for (int k = 0; k < count; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* A small QP from dense data (P upper triangle used). */
static gala_qp_problem small_qp(int n, int m, const double *P, const double *q, const double *A,
                                const double *l, const double *u)
{
    gala_qp_problem p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.m = m;
    p.P.m = p.P.n = n;
    p.A.m = m;
    p.A.n = n;
    p.P.p = calloc((size_t)n + 1, sizeof(int));
    p.A.p = calloc((size_t)n + 1, sizeof(int));
    p.P.i = malloc(sizeof(int) * (size_t)(n * n));
    p.P.x = malloc(sizeof(double) * (size_t)(n * n));
    p.A.i = malloc(sizeof(int) * (size_t)(m * n + 1));
    p.A.x = malloc(sizeof(double) * (size_t)(m * n + 1));
    int np = 0, na = 0;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i <= j; ++i)
            if (P[i * n + j] != 0) { p.P.i[np] = i; p.P.x[np++] = P[i * n + j]; }
        for (int i = 0; i < m; ++i)
            if (A[i * n + j] != 0) { p.A.i[na] = i; p.A.x[na++] = A[i * n + j]; }
        p.P.p[j + 1] = np;
        p.A.p[j + 1] = na;
    }
    p.q = malloc(sizeof(double) * (size_t)n);
    p.l = malloc(sizeof(double) * (size_t)m);
    p.u = malloc(sizeof(double) * (size_t)m);
    memcpy(p.q, q, sizeof(double) * (size_t)n);
    memcpy(p.l, l, sizeof(double) * (size_t)m);
    memcpy(p.u, u, sizeof(double) * (size_t)m);
    p.owned = 1; /* malloc'd arrays: gala_qp_problem_free releases them with free() */
    return p;
}

/* Every status in one heterogeneous batch, each QP with its own: solved, solved inaccurate,
 * primal infeasible, dual infeasible, non-convex, max iterations, invalid data; then solved
 * next to time limit reached. */
START_TEST(mixed_statuses_one_batch)
{
    if (tu_target_get(_i)->dtype != GALA_DOUBLE) return;
    gala_context *ctx = tu_ctx(_i);
    double I2[] = {1, 0, 0, 1}, q1[] = {-1, -1}, A1[] = {1, 1}, l1[] = {-INFINITY}, u1[] = {1};
    double Ap[] = {1, 0, 1, 0}, lp[] = {1, -INFINITY}, up[] = {INFINITY, 0}, qz[] = {0, 0};
    double P0[] = {0, 0, 0, 0}, Ad[] = {1, 0, 0, 1}, ld[] = {0, 0}, ud[] = {INFINITY, INFINITY};
    double Pn[] = {-1, 0, 0, 1}, ln[] = {-1, -1}, un[] = {1, 1}, lb[] = {2}, ub[] = {1};
    gala_qp_problem pb[8];
    pb[0] = small_qp(2, 1, I2, q1, A1, l1, u1);   /* solved */
    pb[1] = small_qp(2, 2, I2, qz, Ap, lp, up);   /* primal infeasible */
    pb[2] = small_qp(2, 2, P0, q1, Ad, ld, ud);   /* dual infeasible */
    pb[3] = small_qp(2, 2, Pn, qz, Ad, ln, un);   /* non-convex */
    pb[4] = small_qp(2, 1, I2, q1, A1, lb, ub);   /* invalid: l > u */
    char path[512];
    snprintf(path, sizeof path, "%s/maros_meszaros/QADLITTL.QPS", GALA_TEST_DATA_DIR);
    TU_OK(NULL, gala_qp_read_qps(path, &pb[5])); /* max iterations at 400 */
    snprintf(path, sizeof path, "%s/maros_meszaros/QBANDM.QPS", GALA_TEST_DATA_DIR);
    TU_OK(NULL, gala_qp_read_qps(path, &pb[6])); /* solved inaccurate at 400 */
    snprintf(path, sizeof path, "%s/maros_meszaros/CVXQP1_S.QPS", GALA_TEST_DATA_DIR);
    TU_OK(NULL, gala_qp_read_qps(path, &pb[7])); /* solved */
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.max_iter = 400;
    gala_qp_solver *sv;
    TU_OK(ctx, gala_qp_setup(ctx, pb, 8, &s, &sv));
    TU_OK(ctx, gala_qp_solve(sv));
    const int want[8] = {GALA_QP_SOLVED, GALA_QP_PRIMAL_INFEASIBLE, GALA_QP_DUAL_INFEASIBLE,
                         GALA_QP_NON_CVX, GALA_QP_INVALID_DATA, GALA_QP_MAX_ITER_REACHED,
                         GALA_QP_SOLVED_INACCURATE, GALA_QP_SOLVED};
    for (int k = 0; k < 8; ++k) {
        gala_qp_info in;
        TU_OK(ctx, gala_qp_get_info(sv, k, &in));
        TU_ASSERT(in.status == want[k], _i, "QP %d: status %s (%d), want %s; iter %d", k,
                  gala_qp_status_string(in.status), in.status, gala_qp_status_string(want[k]),
                  in.iter);
    }
    gala_qp_destroy(sv);
    /* time limit: the small QP is solved at the first check, QADLITTL is still running */
    s.max_iter = 100000;
    s.time_limit = 1e-9;
    gala_qp_problem two[2] = {pb[0], pb[5]};
    TU_OK(ctx, gala_qp_setup(ctx, two, 2, &s, &sv));
    TU_OK(ctx, gala_qp_solve(sv));
    gala_qp_info a, b;
    TU_OK(ctx, gala_qp_get_info(sv, 0, &a));
    TU_OK(ctx, gala_qp_get_info(sv, 1, &b));
    TU_ASSERT(a.status == GALA_QP_SOLVED && b.status == GALA_QP_TIME_LIMIT_REACHED &&
              b.iter < 100000, _i, "time limit: %d (iter %d), %d (iter %d)", a.status, a.iter,
              b.status, b.iter);
    gala_qp_destroy(sv);
    for (int k = 0; k < 8; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qp_mm");
    TCase *tc = tcase_create("qp_mm");
    tcase_add_loop_test(tc, maros_meszaros_all, 0, tu_target_count());
    tcase_add_loop_test(tc, maros_meszaros_alone, 0, tu_target_count());
    tcase_add_loop_test(tc, mixed_statuses_one_batch, 0, tu_target_count());
    suite_add_tcase(s, tc);
    int rc = tu_run(s);
    tu_release();
    return rc;
}
