/* QPS/MPS reader and writer (qps.h): the Maros–Meszaros subset against its own tables,
 * objective conventions at known points, every section and rule on hand-written files,
 * malformed input, round trips, and the fuzzing corpus as regression input. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h" /* gala_fault_arm */
#include "testutil.h"

#define MM_DIR GALA_TEST_DATA_DIR "/maros_meszaros"
#define QPS_DIR GALA_TEST_DATA_DIR "/qps"
#define FUZZ_DIR GALA_SOURCE_DIR "/tests/fuzz"

/* ---------------------------------------------------------------- helpers */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    b[n] = '\0';
    *len = (size_t)n;
    return b;
}

/* Sorted list of the regular files of a directory (full paths); returns the count. */
static int list_dir(const char *dir, const char *suffix, char ***out)
{
    DIR *d = opendir(dir);
    *out = NULL;
    if (!d) return 0;
    int n = 0, cap = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t nl = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;
        if (suffix && (nl < sl || strcmp(e->d_name + nl - sl, suffix) != 0)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            v = realloc(v, (size_t)cap * sizeof *v);
        }
        v[n] = malloc(strlen(dir) + nl + 2);
        sprintf(v[n], "%s/%s", dir, e->d_name);
        ++n;
    }
    closedir(d);
    for (int i = 1; i < n; ++i) /* insertion sort: small lists */
        for (int k = i; k > 0 && strcmp(v[k - 1], v[k]) > 0; --k) {
            char *t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    *out = v;
    return n;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; ++i) free(v[i]);
    free(v);
}

/* ½xᵀPx + qᵀx + c0 with P given by its upper triangle. */
static double objective(const gala_qp_problem *pb, const double *x)
{
    double f = pb->c0;
    for (int j = 0; j < pb->n; ++j) {
        f += pb->q[j] * x[j];
        for (int k = pb->P.p[j]; k < pb->P.p[j + 1]; ++k) {
            int i = pb->P.i[k];
            f += (i == j ? 0.5 : 1.0) * pb->P.x[k] * x[i] * x[j];
        }
    }
    return f;
}

/* Largest violation of l ≤ Ax ≤ u. */
static double infeasibility(const gala_qp_problem *pb, const double *x)
{
    double *ax = calloc((size_t)pb->m + 1, sizeof *ax), worst = 0;
    for (int j = 0; j < pb->n; ++j)
        for (int k = pb->A.p[j]; k < pb->A.p[j + 1]; ++k) ax[pb->A.i[k]] += pb->A.x[k] * x[j];
    for (int i = 0; i < pb->m; ++i) {
        if (ax[i] < pb->l[i] && pb->l[i] - ax[i] > worst) worst = pb->l[i] - ax[i];
        if (ax[i] > pb->u[i] && ax[i] - pb->u[i] > worst) worst = ax[i] - pb->u[i];
    }
    free(ax);
    return worst;
}

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Assert two problems are equal: structure and values exactly; row bounds within `tol`
 * relative (0: exactly). `what` names the comparison in messages. */
static void assert_same_problem(const gala_qp_problem *a, const gala_qp_problem *b, double tol,
                                const char *what)
{
    ck_assert_msg(a->n == b->n && a->m == b->m, "%s: sizes %d×%d vs %d×%d", what, a->n, a->m,
                  b->n, b->m);
    ck_assert_msg(strcmp(a->name, b->name) == 0, "%s: name '%s' vs '%s'", what, a->name, b->name);
    ck_assert_msg(same(a->c0, b->c0), "%s: c0 %.17g vs %.17g", what, a->c0, b->c0);
    for (int j = 0; j < a->n; ++j)
        ck_assert_msg(same(a->q[j], b->q[j]), "%s: q[%d] %.17g vs %.17g", what, j, a->q[j], b->q[j]);
    const gala_csc *M1[2] = {&a->P, &a->A}, *M2[2] = {&b->P, &b->A};
    for (int t = 0; t < 2; ++t) {
        for (int j = 0; j <= a->n; ++j)
            ck_assert_msg(M1[t]->p[j] == M2[t]->p[j], "%s: %s column pointer %d: %d vs %d", what,
                          t ? "A" : "P", j, M1[t]->p[j], M2[t]->p[j]);
        for (int k = 0; k < M1[t]->p[a->n]; ++k)
            ck_assert_msg(M1[t]->i[k] == M2[t]->i[k] && same(M1[t]->x[k], M2[t]->x[k]),
                          "%s: %s entry %d: (%d, %.17g) vs (%d, %.17g)", what, t ? "A" : "P", k,
                          M1[t]->i[k], M1[t]->x[k], M2[t]->i[k], M2[t]->x[k]);
    }
    for (int i = 0; i < a->m; ++i) {
        double sl = tol * fmax(fabs(a->l[i]), fabs(a->u[i]));
        int okl = same(a->l[i], b->l[i]) || fabs(a->l[i] - b->l[i]) <= sl;
        int oku = same(a->u[i], b->u[i]) || fabs(a->u[i] - b->u[i]) <= sl;
        ck_assert_msg(okl && oku, "%s: row %d bounds [%.17g, %.17g] vs [%.17g, %.17g]", what, i,
                      a->l[i], a->u[i], b->l[i], b->u[i]);
    }
}

/* Write a problem to a temporary file and read it back. */
static void round_trip(const gala_qp_problem *pb, gala_qp_problem *back)
{
    char path[] = "/tmp/gala_test_qps_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    TU_OK(NULL, gala_qp_write_qps(path, pb));
    TU_OK(NULL, gala_qp_read_qps(path, back));
    remove(path);
}

/* Expect a parse error whose message contains "<memory>:where" and `what`. */
static void expect_error(const char *text, size_t len, gala_status want, const char *where,
                         const char *what)
{
    gala_qp_problem pb;
    memset(&pb, 0x5a, sizeof pb);
    gala_status s = gala_qp_read_qps_mem(text, len ? len : strlen(text), 0, &pb, NULL);
    const char *msg = gala_last_error(NULL);
    ck_assert_msg(s == want, "expected %s for error at %s (%s), got %s: %s",
                  gala_status_string(want), where, what, gala_status_string(s), msg);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "<memory>:%s", where);
    ck_assert_msg(strncmp(msg, prefix, strlen(prefix)) == 0, "message '%s' does not start with "
                  "'%s'", msg, prefix);
    ck_assert_msg(strstr(msg, what) != NULL, "message '%s' does not say '%s'", msg, what);
    ck_assert_msg(pb.n == 0 && pb.m == 0 && pb.q == NULL && pb.P.p == NULL && pb.owned == 0,
                  "the problem is not zeroed after an error");
}

/* ---------------------------------------------------------------- Maros–Meszaros */

typedef struct {
    char name[32];
    int m, n, nz, qn, qnz;
    double opt;
} mm_row;

/* The problem table of 00README.QP: NAME M N NZ QN QNZ OPT. */
static int mm_table(mm_row *rows, int cap)
{
    size_t len;
    char *text = slurp(MM_DIR "/00README.QP", &len);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        mm_row r;
        char extra;
        if (sscanf(line, "%31s %d %d %d %d %d %lf %c", r.name, &r.m, &r.n, &r.nz, &r.qn, &r.qnz,
                   &r.opt, &extra) == 7 && n < cap)
            rows[n++] = r;
    }
    free(text);
    return n;
}

static const mm_row *mm_find(const mm_row *rows, int nrows, const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char key[64];
    size_t k = 0;
    for (const char *c = base; *c && *c != '.' && k < sizeof key - 1; ++c)
        if (*c != '_') key[k++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    key[k] = '\0';
    for (int i = 0; i < nrows; ++i)
        if (strcmp(rows[i].name, key) == 0) return &rows[i];
    return NULL;
}

/* Variables with a finite bound, from the cross-checked table of
 * /work/shared/notes/qp-reference.md ("#bounded vars"), an independent count. */
static int mm_bounded(const char *name)
{
    static const struct { const char *name; int bounded; } t[] = {
        {"hs21", 2}, {"tame", 2}, {"hs35", 3}, {"hs35mod", 3}, {"qptest", 2}, {"zecevic2", 2},
        {"hs76", 4}, {"hs51", 0}, {"hs52", 0}, {"hs53", 5}, {"genhs28", 0}, {"lotschd", 12},
        {"hs118", 15}, {"qafiro", 32}, {"dual1", 85}, {"dual2", 96}, {"cvxqp2s", 100},
        {"cvxqp1s", 100}, {"qadlittl", 97}, {"qpcblend", 83}, {"qsc205", 203},
        {"qshare1b", 225}, {"primalc1", 215}, {"qbandm", 472}};
    for (size_t k = 0; k < sizeof t / sizeof t[0]; ++k)
        if (strcmp(t[k].name, name) == 0) return t[k].bounded;
    return -1;
}

START_TEST(maros_meszaros_sizes_match_the_tables)
{
    mm_row rows[200];
    int nrows = mm_table(rows, 200);
    ck_assert_int_eq(nrows, 138);
    char **files;
    int nf = list_dir(MM_DIR, ".QPS", &files);
    ck_assert_int_eq(nf, 24);
    for (int f = 0; f < nf; ++f) {
        const mm_row *r = mm_find(rows, nrows, files[f]);
        ck_assert_msg(r != NULL, "%s is not in 00README.QP", files[f]);
        gala_qp_problem pb;
        gala_qps_info info;
        TU_OK(NULL, gala_qp_read_qps_ex(files[f], 0, &pb, &info));
        TU_OK(NULL, gala_csc_validate(NULL, "P", &pb.P, 1));
        TU_OK(NULL, gala_csc_validate(NULL, "A", &pb.A, 0));
        int diag = 0, offd = 0;
        for (int j = 0; j < pb.n; ++j)
            for (int k = pb.P.p[j]; k < pb.P.p[j + 1]; ++k) {
                if (pb.P.i[k] == j) ++diag;
                else ++offd;
            }
        int bounded = mm_bounded(r->name);
        ck_assert_msg(pb.n == r->n, "%s: n = %d, table %d", r->name, pb.n, r->n);
        ck_assert_msg(info.rows == r->m, "%s: %d rows, table %d", r->name, info.rows, r->m);
        ck_assert_msg(pb.A.p[pb.n] - info.bound_rows == r->nz, "%s: nnz(A) = %d, table %d",
                      r->name, pb.A.p[pb.n] - info.bound_rows, r->nz);
        ck_assert_msg(diag == r->qn, "%s: %d diagonal entries of Q, table QN %d", r->name, diag,
                      r->qn);
        ck_assert_msg(offd == r->qnz, "%s: %d off-diagonal entries, table QNZ %d", r->name, offd,
                      r->qnz);
        ck_assert_msg(info.bound_rows == bounded, "%s: %d bound rows, %d bounded variables",
                      r->name, info.bound_rows, bounded);
        ck_assert_int_eq(pb.m, info.rows + info.bound_rows);
        ck_assert_int_eq(info.objective_sense, 1);
        ck_assert_uint_eq(info.warnings, 0);
        ck_assert_int_eq(info.fixed_lines, 0);
        ck_assert_int_eq(pb.owned, 1);
        /* bound rows: one entry 1.0 per row, columns increasing */
        for (int i = info.rows, last = -1; i < pb.m; ++i) {
            int cnt = 0, col = -1;
            for (int j = 0; j < pb.n; ++j)
                for (int k = pb.A.p[j]; k < pb.A.p[j + 1]; ++k)
                    if (pb.A.i[k] == i) ++cnt, col = j, ck_assert(pb.A.x[k] == 1.0);
            ck_assert_msg(cnt == 1 && col > last, "%s: bound row %d", r->name, i);
            last = col;
        }
        for (int i = 0; i < pb.m; ++i)
            ck_assert_msg(!isnan(pb.l[i]) && !isnan(pb.u[i]) && pb.l[i] < INFINITY &&
                          pb.u[i] > -INFINITY, "%s: row %d bounds [%g, %g]", r->name, i,
                          pb.l[i], pb.u[i]);
        gala_qp_problem_free(&pb);
        ck_assert_ptr_null(pb.q);
    }
    free_list(files, nf);
}
END_TEST

/* Objective conventions (c0 = −RHS of the objective row, ½xᵀQx, QUADOBJ meaning a symmetric
 * Q) at optimal points known in closed form. */
START_TEST(objective_at_known_optima)
{
    static const struct {
        const char *file;
        int n;
        double x[5];
        double opt;
    } pts[] = {
        /* HS21: min 0.01x1² + x2² − 100, x1 ≥ 2 (10x1 − x2 ≥ 10): x = (2, 0) */
        {"HS21.QPS", 2, {2, 0}, -99.96},
        /* HS35: x = (4/3, 7/9, 4/9), f = 1/9; c0 = 9 */
        {"HS35.QPS", 3, {4.0 / 3, 7.0 / 9, 4.0 / 9}, 1.0 / 9},
        /* QPTEST: 2x1 + x2 = 2 active; 20x1² − 30.5x1 + 16 minimal at x1 = 0.7625 */
        {"QPTEST.QPS", 2, {0.7625, 0.475}, 4.371875},
        /* TAME: min (x − y)² s.t. x + y = 1 */
        {"TAME.QPS", 2, {0.5, 0.5}, 0},
        /* HS51: x = 1 satisfies the three equations and zeroes the objective (c0 = 6) */
        {"HS51.QPS", 5, {1, 1, 1, 1, 1}, 0},
    };
    for (size_t t = 0; t < sizeof pts / sizeof pts[0]; ++t) {
        char path[512];
        snprintf(path, sizeof path, MM_DIR "/%s", pts[t].file);
        gala_qp_problem pb;
        TU_OK(NULL, gala_qp_read_qps(path, &pb));
        ck_assert_int_eq(pb.n, pts[t].n);
        double f = objective(&pb, pts[t].x);
        ck_assert_msg(fabs(f - pts[t].opt) <= 1e-12 * (1 + fabs(pts[t].opt)),
                      "%s: f(x*) = %.17g, expected %.17g", pts[t].file, f, pts[t].opt);
        ck_assert_msg(infeasibility(&pb, pts[t].x) <= 1e-12, "%s: x* infeasible by %g",
                      pts[t].file, infeasibility(&pb, pts[t].x));
        gala_qp_problem_free(&pb);
    }
}
END_TEST

/* Dense solve of the KKT system [P A'; A 0][x; y] = [−q; b] (Gaussian elimination with
 * partial pivoting) for the equality-only problems, against the table's OPT. */
START_TEST(equality_problems_reach_the_table_optimum)
{
    static const char *files[] = {"HS51.QPS", "HS52.QPS", "GENHS28.QPS"};
    mm_row rows[200];
    int nrows = mm_table(rows, 200);
    for (size_t t = 0; t < sizeof files / sizeof files[0]; ++t) {
        char path[512];
        snprintf(path, sizeof path, MM_DIR "/%s", files[t]);
        const mm_row *r = mm_find(rows, nrows, path);
        gala_qp_problem pb;
        TU_OK(NULL, gala_qp_read_qps(path, &pb));
        int n = pb.n, m = pb.m, N = n + m;
        double *K = calloc((size_t)N * (size_t)(N + 1), sizeof *K); /* row-major, rhs last */
#define KK(i, j) K[(size_t)(i) * (size_t)(N + 1) + (size_t)(j)]
        for (int j = 0; j < n; ++j) {
            for (int k = pb.P.p[j]; k < pb.P.p[j + 1]; ++k) {
                KK(pb.P.i[k], j) = pb.P.x[k];
                KK(j, pb.P.i[k]) = pb.P.x[k];
            }
            for (int k = pb.A.p[j]; k < pb.A.p[j + 1]; ++k) {
                KK(n + pb.A.i[k], j) = pb.A.x[k];
                KK(j, n + pb.A.i[k]) = pb.A.x[k];
            }
            KK(j, N) = -pb.q[j];
        }
        for (int i = 0; i < m; ++i) {
            ck_assert_msg(pb.l[i] == pb.u[i], "%s: row %d is not an equality", files[t], i);
            KK(n + i, N) = pb.l[i];
        }
        for (int c = 0; c < N; ++c) {
            int p = c;
            for (int i = c + 1; i < N; ++i)
                if (fabs(KK(i, c)) > fabs(KK(p, c))) p = i;
            ck_assert(fabs(KK(p, c)) > 1e-12);
            for (int j = 0; j <= N; ++j) {
                double tmp = KK(c, j);
                KK(c, j) = KK(p, j);
                KK(p, j) = tmp;
            }
            for (int i = c + 1; i < N; ++i) {
                double f = KK(i, c) / KK(c, c);
                for (int j = c; j <= N; ++j) KK(i, j) -= f * KK(c, j);
            }
        }
        double *x = calloc((size_t)N, sizeof *x);
        for (int i = N - 1; i >= 0; --i) {
            double s = KK(i, N);
            for (int j = i + 1; j < N; ++j) s -= KK(i, j) * x[j];
            x[i] = s / KK(i, i);
        }
#undef KK
        double f = objective(&pb, x);
        ck_assert_msg(fabs(f - r->opt) <= 1e-7 * (1 + fabs(r->opt)),
                      "%s: KKT optimum %.10g, table %.10g", files[t], f, r->opt);
        ck_assert(infeasibility(&pb, x) <= 1e-10);
        free(x);
        free(K);
        gala_qp_problem_free(&pb);
    }
}
END_TEST

/* ---------------------------------------------------------------- hand-written files */

START_TEST(every_section_and_rule)
{
    gala_qp_problem pb;
    gala_qps_info info;
    TU_OK(NULL, gala_qp_read_qps_ex(QPS_DIR "/sections.qps", 0, &pb, &info));
    const double I = INFINITY;
    ck_assert_str_eq(pb.name, "SECTIONS TEST");
    ck_assert_int_eq(pb.n, 10);
    ck_assert_int_eq(info.rows, 6);
    ck_assert_int_eq(info.bound_rows, 8);
    ck_assert_int_eq(pb.m, 14);
    /* OBJSENSE MAX: q, P and c0 negated; the RHS −10 on the objective row is c0 = 10 */
    ck_assert_int_eq(info.objective_sense, -1);
    const double q[10] = {-1.5, 2, 0, 0, -1, 0, 0, 0, 0, 0};
    for (int j = 0; j < 10; ++j) ck_assert_msg(pb.q[j] == q[j], "q[%d] = %g", j, pb.q[j]);
    ck_assert(pb.c0 == -10);
    /* P upper: (X1,X1) 2, (X1,X2) 1 from "X2 X1", (X2,X2) 4, (X3,X5) −0.5 from "X5 X3" */
    const int Pp[11] = {0, 1, 3, 3, 3, 4, 4, 4, 4, 4, 4}, Pi[4] = {0, 0, 1, 2};
    const double Px[4] = {-2, -1, -4, 0.5};
    for (int j = 0; j <= 10; ++j) ck_assert_int_eq(pb.P.p[j], Pp[j]);
    for (int k = 0; k < 4; ++k) ck_assert(pb.P.i[k] == Pi[k] && pb.P.x[k] == Px[k]);
    /* A: the 6 rows in file order (N rows left out), then bound rows of X1 X2 X3 X5 X6 X7 X9
     * X10 (X4 is FR, X8 has LO −1e20 and UP 1e25: both infinite) */
    const int Ap[11] = {0, 2, 5, 8, 9, 10, 11, 12, 12, 13, 14};
    const int Ai[14] = {0, 6, 1, 3, 7, 2, 4, 8, 5, 9, 10, 11, 12, 13};
    const double Ax[14] = {1, 1, 0.25, 1, 1, -1, 1, 1, 3, 1, 1, 1, 1, 1};
    for (int j = 0; j <= 10; ++j) ck_assert_int_eq(pb.A.p[j], Ap[j]);
    for (int k = 0; k < 14; ++k)
        ck_assert_msg(pb.A.i[k] == Ai[k] && pb.A.x[k] == Ax[k], "A entry %d: (%d, %g)", k,
                      pb.A.i[k], pb.A.x[k]);
    /* rows: E R>0 [4, 6]; E R<0 [−5, −2]; E R=0 [3, 3]; L [5−4, 5]; G R<0 [1, 1+6];
     * L with RHS 1e30: free. Bounds: X1 [−1, 4]; X2 UP −3 without LO: [−inf, −3]; X3 FX 2.5;
     * X5 MI UP 8; X6 PL [0, inf]; X7 BV [0, 1]; X9 [−2.5, −1] (LO given: stays);
     * X10 default [0, inf] */
    const double l[14] = {4, -5, 3, 1, 1, -I, -1, -I, 2.5, -I, 0, 0, -2.5, 0};
    const double u[14] = {6, -2, 3, 5, 7, I, 4, -3, 2.5, 8, I, 1, -1, I};
    for (int i = 0; i < 14; ++i)
        ck_assert_msg(pb.l[i] == l[i] && pb.u[i] == u[i], "row %d: [%g, %g], expected [%g, %g]",
                      i, pb.l[i], pb.u[i], l[i], u[i]);
    ck_assert_uint_eq(info.warnings, GALA_QPS_WARN_INTEGER | GALA_QPS_WARN_EXTRA_N_ROWS |
                                         GALA_QPS_WARN_NEGATIVE_UP);
    ck_assert_int_eq(info.integer_columns, 2); /* X3 (MARKER) and X7 (BV) */
    ck_assert_int_eq(info.ignored_rows, 1);
    ck_assert_int_eq(info.ignored_entries, 1); /* X1's entry in EXTRA */
    ck_assert_int_eq(info.warning_count, 4);   /* EXTRA, INTORG, UP −3, BV */
    ck_assert_int_eq(info.first_warning_line, 14);
    ck_assert_msg(strstr(info.first_warning, "EXTRA") != NULL, "%s", info.first_warning);
    gala_qp_problem_free(&pb);

    /* GALA_QPS_STRICT: the first warning is an error at its line */
    ck_assert_int_eq(gala_qp_read_qps_ex(QPS_DIR "/sections.qps", GALA_QPS_STRICT, &pb, &info),
                     GALA_ERR_PARSE);
    ck_assert_msg(strstr(gala_last_error(NULL), "sections.qps:14:") &&
                  strstr(gala_last_error(NULL), "GALA_QPS_STRICT"), "%s", gala_last_error(NULL));
    ck_assert_int_eq(info.rows, 0);
    ck_assert_int_eq(gala_qp_read_qps_ex(QPS_DIR "/sections.qps", 0x80, &pb, NULL),
                     GALA_ERR_INVALID_ARG);
}
END_TEST

START_TEST(fixed_blanks_free_crlf_and_qmatrix_agree)
{
    gala_qp_problem a, b;
    gala_qps_info ia, ib;
    TU_OK(NULL, gala_qp_read_qps_ex(QPS_DIR "/fixed_blanks.qps", 0, &a, &ia));
    TU_OK(NULL, gala_qp_read_qps_ex(QPS_DIR "/crlf_qsection.qps", 0, &b, &ib));
    ck_assert_str_eq(a.name, "FIXED WITH BLANKS");
    ck_assert_str_eq(b.name, "fixed_crlf");
    /* lines with blanks in names: 2 ROWS, 3 COLUMNS, 1 RHS, 2 BOUNDS, 4 QMATRIX */
    ck_assert_int_eq(ia.fixed_lines, 12);
    ck_assert_int_eq(ib.fixed_lines, 0);
    ck_assert_uint_eq(ia.warnings, 0); /* QMATRIX symmetric */
    ck_assert_uint_eq(ib.warnings, 0);
    strcpy(b.name, a.name);
    assert_same_problem(&a, &b, 0, "fixed vs free");
    /* min x1 + x1² + x1x2 + 2x2², 2x1 + x2 ≤ 4, x1 − x2 ≥ 1, 0 ≤ x1 ≤ 3, x2 free */
    ck_assert_int_eq(a.n, 2);
    ck_assert_int_eq(a.m, 3);
    ck_assert(a.P.p[2] == 3 && a.P.x[0] == 2 && a.P.x[1] == 1 && a.P.x[2] == 4);
    ck_assert(a.q[0] == 1 && a.q[1] == 0);
    ck_assert(a.l[0] == -INFINITY && a.u[0] == 4 && a.l[1] == 1 && a.u[1] == INFINITY);
    ck_assert(a.l[2] == 0 && a.u[2] == 3);
    gala_qp_problem_free(&a);
    gala_qp_problem_free(&b);
}
END_TEST

/* The same file with LF, CRLF and CR line ends, d/D exponents, tabs, and lowercase
 * keywords reads the same. */
START_TEST(line_ends_exponents_and_case)
{
    size_t len;
    char *lf = slurp(MM_DIR "/HS21.QPS", &len);
    char *crlf = malloc(2 * len + 1), *cr = malloc(len + 1);
    size_t k = 0;
    for (size_t i = 0; i < len; ++i) {
        if (lf[i] == '\n') crlf[k++] = '\r';
        crlf[k++] = lf[i];
        cr[i] = lf[i] == '\n' ? '\r' : lf[i];
    }
    gala_qp_problem a, b, c;
    TU_OK(NULL, gala_qp_read_qps_mem(lf, len, 0, &a, NULL));
    TU_OK(NULL, gala_qp_read_qps_mem(crlf, k, 0, &b, NULL));
    TU_OK(NULL, gala_qp_read_qps_mem(cr, len, 0, &c, NULL));
    assert_same_problem(&a, &b, 0, "LF vs CRLF");
    assert_same_problem(&a, &c, 0, "LF vs CR");
    gala_qp_problem_free(&b);
    gala_qp_problem_free(&c);
    /* exponents written with d, D, E; tabs between fields; lowercase section names */
    const char *alt = "name\tHS21\nrows\n n OBJ.FUNC\n\tG\tR------1\ncolumns\n"
                      "    C------1  R------1  0.100000d+02\n"
                      "    C------2  R------1  -.100000D+01\n"
                      "rhs\n    RHS       OBJ.FUNC  0.100000E+03\n    RHS\tR------1\t10\n"
                      "ranges\nbounds\n lo BOUNDS    C------1  2\n up BOUNDS    C------1  50\n"
                      " LO BOUNDS    C------2  -50.0\n UP BOUNDS    C------2  +5D1\n"
                      "quadobj\n    C------1  C------1  2.0e-2\n    C------2  C------2  2\n"
                      "endata\n";
    TU_OK(NULL, gala_qp_read_qps_mem(alt, strlen(alt), 0, &b, NULL));
    assert_same_problem(&a, &b, 0, "HS21 vs its variant");
    /* no line end after ENDATA, and text after ENDATA is ignored */
    char *cut = malloc(len + 32);
    memcpy(cut, lf, len);
    ck_assert(cut[len - 1] == '\n');
    TU_OK(NULL, gala_qp_read_qps_mem(cut, len - 1, 0, &c, NULL));
    assert_same_problem(&a, &c, 0, "no final line end");
    gala_qp_problem_free(&c);
    memcpy(cut + len, "garbage \x01\x02\n", 12);
    TU_OK(NULL, gala_qp_read_qps_mem(cut, len + 12, 0, &c, NULL));
    assert_same_problem(&a, &c, 0, "text after ENDATA");
    gala_qp_problem_free(&a);
    gala_qp_problem_free(&b);
    gala_qp_problem_free(&c);
    free(cut);
    free(lf);
    free(crlf);
    free(cr);
}
END_TEST

/* Smaller rules, one problem each. */
START_TEST(bounds_ranges_markers_and_sets)
{
    gala_qp_problem pb;
    gala_qps_info info;
    /* ALL_BOUND_ROWS: every variable gets a row, free ones [−inf, inf] (OSQP's .mat form) */
    TU_OK(NULL, gala_qp_read_qps_ex(MM_DIR "/HS51.QPS", GALA_QPS_ALL_BOUND_ROWS, &pb, &info));
    ck_assert_int_eq(pb.m, 8);
    ck_assert_int_eq(info.bound_rows, 5);
    for (int i = 3; i < 8; ++i) ck_assert(pb.l[i] == -INFINITY && pb.u[i] == INFINITY);
    gala_qp_problem_free(&pb);

    /* second RHS/BOUNDS sets ignored with a warning; sets without names; OBJNAME picks the
     * second N row; BV and UI warn; a negative UP after a LO keeps the LO; entries of a
     * column need not be contiguous; BV with a value field */
    const char *t = "NAME\nOBJNAME\n  COST2\nROWS\n N COST1\n N COST2\n L R1\n G R2\n"
                    "COLUMNS\n x COST1 5 COST2 1\n x R1 1\n y R1 1 COST2 2\n x R2 3\n"
                    "RHS\n R1 10\n RHS1 R2 -1\n RHS2 R1 99\nRANGES\n R1 -4 COST1 3\n"
                    "BOUNDS\n LO BND1 x -2\n UP x -1\n UP B2 y 7\n BV y 1\nQUADOBJ\nENDATA\n";
    TU_OK(NULL, gala_qp_read_qps_mem(t, strlen(t), 0, &pb, &info));
    ck_assert(pb.q[0] == 1 && pb.q[1] == 2);
    ck_assert_int_eq(pb.m, 4);
    ck_assert(pb.l[0] == 6 && pb.u[0] == 10);         /* L, R = −4: [10 − 4, 10] */
    ck_assert(pb.l[1] == -1 && pb.u[1] == INFINITY);  /* G */
    ck_assert(pb.l[2] == -2 && pb.u[2] == -1);        /* x: LO kept */
    ck_assert(pb.l[3] == 0 && pb.u[3] == 1);          /* y: BV */
    ck_assert(pb.A.p[1] == 3 && pb.A.i[0] == 0 && pb.A.i[1] == 1 && pb.A.x[1] == 3);
    ck_assert_uint_eq(info.warnings, GALA_QPS_WARN_EXTRA_N_ROWS | GALA_QPS_WARN_OTHER_SET |
                                         GALA_QPS_WARN_RANGE_ON_N | GALA_QPS_WARN_INTEGER);
    ck_assert_int_eq(info.ignored_entries, 4); /* COST1 ×1, RHS2 ×1, range on COST1, UP in B2 */
    ck_assert_int_eq(info.integer_columns, 1);
    gala_qp_problem_free(&pb);

    /* QMATRIX with one triangle only, or unequal halves: the symmetric part, with a warning;
     * MI then PL (free), explicit zeros kept; empty problem name */
    t = "ROWS\n N obj\nCOLUMNS\n a obj 0\n b obj 0\n c obj 0\nBOUNDS\n MI b\n PL b\n FR c\n"
        "QMATRIX\n a a 2\n a b 3\n b a 1\n a c 4\n b b 0\nENDATA\n";
    TU_OK(NULL, gala_qp_read_qps_mem(t, strlen(t), 0, &pb, &info));
    ck_assert_str_eq(pb.name, "");
    ck_assert_int_eq(pb.m, 1); /* a only */
    ck_assert_int_eq(pb.P.p[3], 4);
    ck_assert(pb.P.x[0] == 2 && pb.P.x[1] == 2 && pb.P.i[2] == 1 && pb.P.x[2] == 0);
    ck_assert(pb.P.i[3] == 0 && pb.P.x[3] == 2);
    ck_assert_uint_eq(info.warnings, GALA_QPS_WARN_QMATRIX_ASYMMETRIC);
    ck_assert_int_eq(info.warning_count, 2);
    gala_qp_problem_free(&pb);

    /* ranges: E with R = +inf; G with R infinite; UP 0 without LO: [0, 0]; OBJSENSE MAXIMIZE
     * inline and the objective constant: c0 = −(−RHS) negated for MAX */
    t = "NAME x\nOBJSENSE MAXIMIZE\nROWS\n N o\n E e\n G g\nCOLUMNS\n x e 1 g 1\n x o 2\n"
        "RHS\n o 3 e 1\n g 2\nRANGES\n e 1e30 g -inf\nBOUNDS\n UP b x 0\nENDATA\n";
    TU_OK(NULL, gala_qp_read_qps_mem(t, strlen(t), 0, &pb, &info));
    ck_assert(pb.l[0] == 1 && pb.u[0] == INFINITY);
    ck_assert(pb.l[1] == 2 && pb.u[1] == INFINITY);
    ck_assert(pb.l[2] == 0 && pb.u[2] == 0);
    ck_assert(pb.q[0] == -2 && pb.c0 == 3);
    ck_assert_int_eq(info.objective_sense, -1);
    gala_qp_problem_free(&pb);

    /* a name longer than 63 bytes is cut, and blanks at the cut are removed (the fuzzer's
     * first find: such a name did not survive a round trip) */
    char longname[200];
    snprintf(longname, sizeof longname, "NAME    %.62s  more text\nROWS\nENDATA\n",
             "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop");
    TU_OK(NULL, gala_qp_read_qps_mem(longname, strlen(longname), 0, &pb, &info));
    ck_assert_uint_eq(strlen(pb.name), 62);
    ck_assert(pb.name[61] == 'j');
    gala_qp_problem_free(&pb);

    /* a problem without objective row, without COLUMNS, and without any variable */
    t = "ROWS\n E r\nRHS\n r 1\nENDATA\n";
    TU_OK(NULL, gala_qp_read_qps_mem(t, strlen(t), 0, &pb, &info));
    ck_assert(pb.n == 0 && pb.m == 1 && pb.l[0] == 1 && pb.u[0] == 1 && pb.A.p[0] == 0);
    gala_qp_problem_free(&pb);
}
END_TEST

START_TEST(malformed_input_names_line_and_column)
{
    const gala_status P = GALA_ERR_PARSE;
    /* a valid base: lines 1..14 */
    const char *base = "NAME T\nROWS\n N obj\n L c1\nCOLUMNS\n x obj 1 c1 2\n y c1 1\nRHS\n"
                       " rhs c1 4\nBOUNDS\n UP bnd x 3\nQUADOBJ\n x x 2\nENDATA\n";
    gala_qp_problem pb;
    TU_OK(NULL, gala_qp_read_qps_mem(base, strlen(base), 0, &pb, NULL));
    gala_qp_problem_free(&pb);
    char buf[20000];
#define BASE_WITH(from, to) (snprintf(buf, sizeof buf, "%.*s%s%s", (int)(strstr(base, from) - base), \
                                      base, to, strstr(base, from) + strlen(from)), buf)
    /* truncated: no ENDATA; cut inside a line */
    expect_error(base, strlen(base) - 7, P, "14:1:", "no ENDATA");
    expect_error(base, (size_t)(strstr(base, " x x 2") - base) + 6, P, "13:7:", "no ENDATA");
    expect_error("", 0, P, "1:1:", "no ENDATA");
    expect_error(BASE_WITH("BOUNDS", "BOUNDZ"), 0, P, "10:1:", "unknown section 'BOUNDZ'");
    expect_error(BASE_WITH(" y c1 1", " y c2 1"), 0, P, "7:4:", "unknown row 'c2'");
    expect_error(BASE_WITH(" UP bnd x", " UP bnd z"), 0, P, "11:9:", "unknown column 'z'");
    expect_error(BASE_WITH(" x x 2", " x w 2"), 0, P, "13:4:", "unknown column 'w'");
    expect_error(BASE_WITH(" y c1 1", " y c1 1.2.3"), 0, P, "7:7:", "bad number '1.2.3'");
    expect_error(BASE_WITH(" y c1 1", " y c1 nan"), 0, P, "7:7:", "bad number 'nan'");
    expect_error(BASE_WITH(" y c1 1", " y c1 0x10"), 0, P, "7:7:", "bad number");
    expect_error(BASE_WITH(" y c1 1", " y c1 1e"), 0, P, "7:7:", "bad number");
    expect_error(BASE_WITH(" y c1 1", " y c1 1e20"), 0, P, "7:7:", "infinite");
    expect_error(BASE_WITH(" UP bnd x 3", " UP bnd x three"), 0, P, "11:11:", "bad number");
    expect_error(BASE_WITH(" y c1 1", " y c1 1\n y c1 5"), 0, P, "8:7:",
                 "duplicate entry in row 'c1', column 'y' (first given on line 7)");
    expect_error(BASE_WITH(" x obj 1 c1 2", " x obj 1 obj 2"), 0, P, "6:14:",
                 "objective coefficient of column 'x' given twice");
    expect_error(BASE_WITH(" x x 2", " x x 2\n y x 1\n x y 1"), 0, P, "15:6:",
                 "duplicate quadratic entry ('x', 'y') (first given on line 14");
    expect_error(BASE_WITH(" L c1", " L obj"), 0, P, "4:4:", "row 'obj' declared twice");
    expect_error(BASE_WITH(" rhs c1 4", " rhs c1 4 c1 5"), 0, P, "9:14:", "RHS of row 'c1' given twice");
    expect_error(BASE_WITH(" UP bnd x 3", " UP bnd x 3\n UP bnd x 4"), 0, P, "12:2:",
                 "its upper bound was given before");
    expect_error(BASE_WITH(" UP bnd x 3", " FR bnd x\n LO bnd x 4"), 0, P, "12:2:",
                 "its lower bound was given before");
    expect_error(BASE_WITH(" UP bnd x 3", " XX bnd x 3"), 0, P, "11:2:", "unknown bound type 'XX'");
    expect_error(BASE_WITH(" UP bnd x 3", " SC bnd x 3"), 0, P, "11:2:", "semi-continuous");
    expect_error(BASE_WITH(" UP bnd x 3", " LO bnd x 1e30"), 0, P, "11:11:", "lower bound +infinity");
    expect_error(BASE_WITH(" UP bnd x 3", " UP bnd x -1e30"), 0, P, "11:11:", "upper bound -infinity");
    expect_error(BASE_WITH(" UP bnd x 3", " FX bnd x inf"), 0, P, "11:11:", "FX bound with infinite");
    expect_error(BASE_WITH(" rhs c1 4", " rhs c1 -1e21"), 0, P, "9:9:", "leaves no feasible value");
    expect_error(BASE_WITH(" rhs c1 4", " rhs c1 1e21\nRANGES\n r c1 3"), 0, P, "11:1:",
                 "RANGES on row 'c1' whose RHS is infinite");
    expect_error(BASE_WITH(" rhs c1 4", " rhs obj inf"), 0, P, "9:10:", "infinite RHS on the objective");
    expect_error(BASE_WITH(" x obj 1 c1 2", " x obj 1 c1"), 0, P, "6:1:", "3 or 5 fields");
    expect_error(BASE_WITH(" L c1", " Q c1"), 0, P, "4:2:", "unknown row type 'Q'");
    expect_error(BASE_WITH("ROWS", "ROWS\n x"), 0, P, "3:1:", "2 fields");
    expect_error(BASE_WITH("NAME T", "NAME T\n stray"), 0, P, "2:1:", "data line after NAME");
    expect_error(BASE_WITH("ROWS", "OBJSENSE SIDEWAYS\nROWS"), 0, P, "2:10:",
                 "unknown objective sense 'SIDEWAYS'");
    expect_error(BASE_WITH("ROWS", "OBJSENSE\nROWS"), 0, P, "3:1:", "OBJSENSE section without");
    expect_error(BASE_WITH("ROWS", "OBJNAME nothere\nROWS"), 0, P, "2:1:", "names no N row");
    expect_error(BASE_WITH("ROWS", "OBJNAME c1\nROWS"), 0, P, "5:4:", "is not an N row");
    expect_error(BASE_WITH("RHS", "ROWS"), 0, P, "8:1:", "section ROWS given twice");
    expect_error(BASE_WITH("RHS", "COLUMNS"), 0, P, "8:1:", "section COLUMNS given twice");
    expect_error(BASE_WITH("NAME T\nROWS", "NAME T\nCOLUMNS\nROWS"), 0, P, "2:1:", "COLUMNS before ROWS");
    expect_error(BASE_WITH("RHS", "BOUNDS\nRHS"), 0, P, "11:1:", "section BOUNDS given twice");
    expect_error(BASE_WITH("QUADOBJ", "QMATRIX\n x x 1\nQUADOBJ"), 0, P, "14:1:",
                 "second quadratic objective");
    expect_error(BASE_WITH("RHS", "RHS extra"), 0, P, "8:5:", "unexpected 'extra' after RHS");
    {
        char longset[400];
        snprintf(longset, sizeof longset, " %0300d c1 4", 7);
        expect_error(BASE_WITH(" rhs c1 4", longset), 0, P, "9:2:", "set name longer than 255");
    }
    expect_error(BASE_WITH("QUADOBJ", "QSECTION c1"), 0, P, "12:10:", "quadratic constraint");
    expect_error(BASE_WITH("QUADOBJ", "SOS"), 0, P, "12:1:", "not supported");
    expect_error(BASE_WITH("QUADOBJ", "QCMATRIX c1"), 0, P, "12:1:", "not supported");
    expect_error(BASE_WITH(" y c1 1", " y c1 1\n M 'MARKER' 'INTEND'"), 0, P, "8:1:",
                 "'INTEND' without 'INTORG'");
    expect_error(BASE_WITH(" y c1 1", " M 'MARKER' 'INTORG'\n M 'MARKER' 'INTORG'"), 0, P, "8:1:",
                 "inside another");
    expect_error(BASE_WITH(" y c1 1", " M 'MARKER' 'INTXXX'"), 0, P, "7:13:", "unknown marker");
    expect_error("NAME T\nENDATA\n", 0, P, "2:1:", "before any ROWS");
    expect_error("NAME T\nNAME U\n", 0, P, "2:1:", "NAME must be the first");
    /* binary data, long lines, long names, long numbers */
    {
        char bin[64] = "NAME T\nROWS\n N o\n L c";
        size_t n = strlen(bin);
        bin[n] = '\0'; /* a NUL byte inside the fourth line */
        memcpy(bin + n + 1, "1\nENDATA\n", 9);
        expect_error(bin, n + 10, P, "4:5:", "binary data (byte 0x00)");
        bin[n] = '\x1b';
        expect_error(bin, n + 10, P, "4:5:", "binary data (byte 0x1b)");
    }
    {
        memset(buf, 'a', 9000);
        memcpy(buf, "ROWS\n N ", 8);
        memcpy(buf + 9000, "\nENDATA\n", 9);
        expect_error(buf, 0, P, "2:8192:", "line longer than 8191");
        memset(buf, 'a', 400);
        memcpy(buf, "ROWS\n N ", 8);
        memcpy(buf + 400, "\nENDATA\n", 9);
        expect_error(buf, 0, P, "2:4:", "row name longer than 255");
        char num[300];
        memset(num, '1', 250);
        num[250] = '\0';
        char line[400];
        snprintf(line, sizeof line, " y c1 %s", num);
        expect_error(BASE_WITH(" y c1 1", line), 0, P, "7:7:", "bad number");
    }
    /* arguments and files */
    ck_assert_int_eq(gala_qp_read_qps_mem(NULL, 3, 0, &pb, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_read_qps_mem(base, strlen(base), 0, NULL, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_read_qps(NULL, &pb), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_read_qps("/nonexistent/gala/x.qps", &pb), GALA_ERR_IO);
    ck_assert_msg(strstr(gala_last_error(NULL), "/nonexistent/gala/x.qps") != NULL, "%s",
                  gala_last_error(NULL));
    ck_assert_int_eq(gala_qp_read_qps(GALA_TEST_DATA_DIR, &pb), GALA_ERR_IO); /* a directory */
    ck_assert_int_eq(gala_qp_read_qps(MM_DIR "/00README.QP", &pb), GALA_ERR_PARSE);
    ck_assert_msg(strstr(gala_last_error(NULL), "00README.QP:1:1: unknown section 'This'"), "%s",
                  gala_last_error(NULL));
#undef BASE_WITH
}
END_TEST

/* Random bytes and random mutations of a valid file: an error or a valid problem, never
 * a crash (the sanitizer build checks memory). */
START_TEST(garbage_is_rejected)
{
    tu_rng r = tu_rng_for(__func__, 0);
    size_t len;
    char *text = slurp(MM_DIR "/QAFIRO.QPS", &len);
    char *buf = malloc(len + 1);
    for (int trial = 0; trial < 300; ++trial) {
        memcpy(buf, text, len);
        size_t n = len;
        if (trial < 20) { /* pure noise */
            n = (size_t)tu_int(&r, 0, (int)len);
            for (size_t i = 0; i < n; ++i) buf[i] = (char)tu_int(&r, 0, 255);
        } else { /* a few byte flips, or a cut */
            int flips = tu_int(&r, 1, 4);
            for (int f = 0; f < flips; ++f)
                buf[tu_int(&r, 0, (int)len - 1)] = " \n\t-.eE0123456789XR*"[tu_int(&r, 0, 19)];
            if (tu_int(&r, 0, 3) == 0) n = (size_t)tu_int(&r, 0, (int)len);
        }
        gala_qp_problem pb;
        gala_status s = gala_qp_read_qps_mem(buf, n, 0, &pb, NULL);
        ck_assert_msg(s == GALA_OK || s == GALA_ERR_PARSE, "trial %d: %s (GALA_TEST_SEED=%llu)",
                      trial, gala_status_string(s), (unsigned long long)tu_seed());
        if (s == GALA_OK) {
            TU_OK(NULL, gala_csc_validate(NULL, "P", &pb.P, 1));
            TU_OK(NULL, gala_csc_validate(NULL, "A", &pb.A, 0));
        } else {
            ck_assert_msg(strncmp(gala_last_error(NULL), "<memory>:", 9) == 0, "%s",
                          gala_last_error(NULL));
        }
        gala_qp_problem_free(&pb);
    }
    free(buf);
    free(text);
}
END_TEST

/* ---------------------------------------------------------------- writing */

START_TEST(round_trip_of_every_file)
{
    char **mm, **hand;
    int nm = list_dir(MM_DIR, ".QPS", &mm), nh = list_dir(QPS_DIR, ".qps", &hand);
    ck_assert_int_eq(nm, 24);
    ck_assert_int_ge(nh, 3);
    for (int f = 0; f < nm + nh; ++f) {
        const char *path = f < nm ? mm[f] : hand[f - nm];
        gala_qp_problem a, b, c;
        TU_OK(NULL, gala_qp_read_qps(path, &a));
        round_trip(&a, &b);
        assert_same_problem(&a, &b, 0, path);
        /* and with every variable's row (free ones too): written as constraint rows */
        TU_OK(NULL, gala_qp_read_qps_ex(path, GALA_QPS_ALL_BOUND_ROWS, &c, NULL));
        gala_qp_problem_free(&b);
        round_trip(&c, &b);
        assert_same_problem(&c, &b, 0, path);
        gala_qp_problem_free(&a);
        gala_qp_problem_free(&b);
        gala_qp_problem_free(&c);
    }
    free_list(mm, nm);
    free_list(hand, nh);
}
END_TEST

/* A random problem built by the caller (owned = 0): every kind of row, a trailing block of
 * identity rows, values of every magnitude. */
START_TEST(round_trip_of_random_problems)
{
    tu_rng r = tu_rng_for(__func__, 0);
    int inexact_total = 0, two_sided_total = 0;
    for (int trial = 0; trial < 40; ++trial) {
        int n = tu_int(&r, 0, 30), mc = tu_int(&r, 0, 30), nb = tu_int(&r, 0, n);
        int m = mc + nb;
        gala_qp_problem pb;
        memset(&pb, 0, sizeof pb);
        snprintf(pb.name, sizeof pb.name, "random %d", trial);
        pb.n = n;
        pb.m = m;
        pb.q = malloc(((size_t)n + 1) * sizeof(double));
        pb.l = malloc(((size_t)m + 1) * sizeof(double));
        pb.u = malloc(((size_t)m + 1) * sizeof(double));
        pb.c0 = tu_int(&r, 0, 1) ? tu_normal(&r) * 1e3 : 0;
        double scale[4] = {1, 1e-9, 1e9, 3.3e-300};
        for (int j = 0; j < n; ++j)
            pb.q[j] = tu_int(&r, 0, 2) ? tu_normal(&r) * scale[tu_int(&r, 0, 3)] : 0;
        /* bound block: which columns have rows (increasing) */
        int *bcol = malloc(((size_t)nb + 1) * sizeof(int)), nbc = 0;
        for (int j = 0; j < n && nbc < nb; ++j)
            if (tu_int(&r, 0, n - 1) < nb || n - j <= nb - nbc) bcol[nbc++] = j;
        nb = nbc;
        m = pb.m = mc + nb;
        pb.A.m = m;
        pb.A.n = n;
        pb.A.p = malloc(((size_t)n + 1) * sizeof(int));
        pb.A.i = malloc(((size_t)n * (size_t)(mc + 1) + 1) * sizeof(int));
        pb.A.x = malloc(((size_t)n * (size_t)(mc + 1) + 1) * sizeof(double));
        pb.P.m = pb.P.n = n;
        pb.P.p = malloc(((size_t)n + 1) * sizeof(int));
        pb.P.i = malloc(((size_t)n * (size_t)n + 1) * sizeof(int));
        pb.P.x = malloc(((size_t)n * (size_t)n + 1) * sizeof(double));
        int nza = 0, nzp = 0, kb = 0;
        pb.A.p[0] = pb.P.p[0] = 0;
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < mc; ++i)
                if (tu_int(&r, 0, 3) == 0) {
                    pb.A.i[nza] = i;
                    pb.A.x[nza++] = tu_int(&r, 0, 5) ? tu_normal(&r) * scale[tu_int(&r, 0, 3)] : 0;
                }
            if (kb < nb && bcol[kb] == j) {
                pb.A.i[nza] = mc + kb++;
                pb.A.x[nza++] = 1.0;
            }
            pb.A.p[j + 1] = nza;
            for (int i = 0; i <= j; ++i)
                if (i == j || tu_int(&r, 0, 4) == 0) {
                    pb.P.i[nzp] = i;
                    pb.P.x[nzp++] = tu_normal(&r) * scale[tu_int(&r, 0, 3)];
                }
            pb.P.p[j + 1] = nzp;
        }
        int two_sided = 0;
        for (int i = 0; i < m; ++i) {
            double a = tu_normal(&r) * scale[tu_int(&r, 0, 2)], b = a + fabs(tu_normal(&r)) *
                       scale[tu_int(&r, 0, 2)];
            switch (tu_int(&r, 0, i >= mc ? 3 : 5)) {
            case 0: pb.l[i] = a; pb.u[i] = b; two_sided += i < mc && a < b; break;
            case 1: pb.l[i] = -INFINITY; pb.u[i] = b; break;
            case 2: pb.l[i] = a; pb.u[i] = INFINITY; break;
            case 3: pb.l[i] = pb.u[i] = a; break;
            case 4: pb.l[i] = -INFINITY; pb.u[i] = INFINITY; break;
            default: pb.l[i] = -1e25; pb.u[i] = 2e20; break; /* read back as infinite */
            }
        }
        gala_qp_problem back;
        round_trip(&pb, &back);
        ck_assert_int_eq(back.owned, 1);
        for (int i = 0; i < m; ++i) { /* what the writer promises for |v| >= 1e20 */
            if (pb.l[i] <= -1e20) pb.l[i] = -INFINITY;
            if (pb.u[i] >= 1e20) pb.u[i] = INFINITY;
        }
        /* exact except two-sided rows that no (RHS, range) pair reproduces: one rounding */
        char what[96];
        snprintf(what, sizeof what, "random problem %d (GALA_TEST_SEED=%llu)", trial,
                 (unsigned long long)tu_seed());
        assert_same_problem(&pb, &back, 4.5e-16, what);
        for (int i = 0; i < mc; ++i)
            inexact_total += pb.l[i] != back.l[i] || pb.u[i] != back.u[i];
        two_sided_total += two_sided;
        gala_qp_problem_free(&back);
        free(bcol);
        free(pb.q); free(pb.l); free(pb.u);
        free(pb.A.p); free(pb.A.i); free(pb.A.x);
        free(pb.P.p); free(pb.P.i); free(pb.P.x);
    }
    /* the search for an exact pair must succeed nearly always */
    ck_assert_msg(inexact_total * 20 <= two_sided_total, "%d of %d two-sided rows inexact",
                  inexact_total, two_sided_total);
}
END_TEST

START_TEST(writer_rejects_what_mps_cannot_say)
{
    gala_qp_problem pb;
    TU_OK(NULL, gala_qp_read_qps(MM_DIR "/HS21.QPS", &pb));
    const char *path = "/tmp/gala_test_qps_writer.qps";
    TU_OK(NULL, gala_qp_write_qps(path, &pb));
    ck_assert_int_eq(gala_qp_write_qps(NULL, &pb), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_write_qps(path, NULL), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_write_qps_stream(NULL, &pb), GALA_ERR_INVALID_ARG);
    ck_assert_int_eq(gala_qp_write_qps("/nonexistent/gala/out.qps", &pb), GALA_ERR_IO);
    double keep = pb.l[0];
    pb.l[0] = NAN;
    ck_assert_int_eq(gala_qp_write_qps(path, &pb), GALA_ERR_INVALID_ARG);
    pb.l[0] = INFINITY;
    ck_assert_int_eq(gala_qp_write_qps(path, &pb), GALA_ERR_INVALID_ARG);
    pb.l[0] = 20; /* row 0 (a constraint) with l > u */
    double keepu = pb.u[0];
    pb.u[0] = 10;
    ck_assert_int_eq(gala_qp_write_qps(path, &pb), GALA_ERR_INVALID_ARG);
    ck_assert_msg(strstr(gala_last_error(NULL), "l = 20 > u = 10"), "%s", gala_last_error(NULL));
    pb.l[0] = keep;
    pb.u[0] = keepu;
    pb.A.x[0] = 1e20;
    ck_assert_int_eq(gala_qp_write_qps(path, &pb), GALA_ERR_INVALID_ARG);
    pb.A.x[0] = 10;
    pb.c0 = NAN;
    ck_assert_int_eq(gala_qp_write_qps(path, &pb), GALA_ERR_INVALID_ARG);
    pb.c0 = -100;
    pb.P.i[0] = 1; /* below the diagonal */
    ck_assert_int_eq(gala_qp_write_qps(path, &pb), GALA_ERR_INVALID_MATRIX);
    pb.P.i[0] = 0;
    pb.P.m = 3;
    ck_assert_int_eq(gala_qp_write_qps(path, &pb), GALA_ERR_INVALID_ARG);
    pb.P.m = 2;
    /* the file written first is still the valid one: writing checks before opening */
    gala_qp_problem back;
    TU_OK(NULL, gala_qp_read_qps(path, &back));
    assert_same_problem(&pb, &back, 0, "HS21");
    /* crossed bounds of a variable are fine (BOUNDS can say that) */
    pb.l[1] = 5;
    pb.u[1] = 3;
    gala_qp_problem_free(&back);
    round_trip(&pb, &back);
    assert_same_problem(&pb, &back, 0, "crossed variable bounds");
    /* a two-sided row no (RHS, range) pair of doubles reproduces: off by one rounding */
    pb.l[0] = -1;
    pb.u[0] = 1 + 0x1p-52;
    gala_qp_problem_free(&back);
    round_trip(&pb, &back);
    ck_assert(back.l[0] == -1 && back.u[0] == 1);
    pb.u[0] = 1;
    assert_same_problem(&pb, &back, 0, "the row after its rounding");
    remove(path);
    gala_qp_problem_free(&back);
    gala_qp_problem_free(&pb);
}
END_TEST

/* Every host allocation of the reader and of the writer fails in turn: the call returns
 * GALA_ERR_OUT_OF_MEMORY with the problem zeroed, and (sanitizer build) nothing leaks. */
START_TEST(allocation_failures_leak_nothing)
{
    const char *files[] = {MM_DIR "/HS21.QPS", QPS_DIR "/sections.qps",
                           QPS_DIR "/fixed_blanks.qps"};
    int failures = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        gala_qp_problem pb;
        gala_status s;
        for (long k = 1;; ++k) {
            gala_fault_arm(GALA_FAULT_ALLOC, k);
            s = gala_qp_read_qps(files[f], &pb);
            gala_fault_arm(GALA_FAULT_ALLOC, 0);
            if (s == GALA_OK) break;
            ck_assert_msg(s == GALA_ERR_OUT_OF_MEMORY, "%s, allocation %ld: %s", files[f], k,
                          gala_last_error(NULL));
            ck_assert(pb.q == NULL && pb.A.p == NULL && pb.n == 0);
            ++failures;
        }
        FILE *out = tmpfile();
        ck_assert_ptr_nonnull(out);
        for (long k = 1;; ++k) {
            gala_fault_arm(GALA_FAULT_ALLOC, k);
            s = gala_qp_write_qps_stream(out, &pb);
            gala_fault_arm(GALA_FAULT_ALLOC, 0);
            if (s == GALA_OK) break;
            ck_assert_int_eq(s, GALA_ERR_OUT_OF_MEMORY);
            ++failures;
        }
        fclose(out);
        gala_qp_problem_free(&pb);
    }
    ck_assert_int_gt(failures, 60);
}
END_TEST

/* ---------------------------------------------------------------- fuzzing corpus */

/* Every file the fuzzer kept (corpus) and every crasher it found: OK or a parse error; a
 * problem read is valid and survives a round trip. */
START_TEST(fuzz_corpus_and_crashers)
{
    const char *dirs[2] = {FUZZ_DIR "/corpus_qps", FUZZ_DIR "/crashers_qps"};
    int total = 0, ok = 0;
    for (int d = 0; d < 2; ++d) {
        char **files;
        int nf = list_dir(dirs[d], NULL, &files);
        if (d == 0) ck_assert_int_ge(nf, 50);
        for (int f = 0; f < nf; ++f) {
            size_t len;
            char *text = slurp(files[f], &len);
            gala_qp_problem pb, back;
            gala_status s = gala_qp_read_qps_mem(text, len, 0, &pb, NULL);
            ck_assert_msg(s == GALA_OK || s == GALA_ERR_PARSE, "%s: %s: %s", files[f],
                          gala_status_string(s), gala_last_error(NULL));
            if (s == GALA_OK) {
                TU_OK(NULL, gala_csc_validate(NULL, "P", &pb.P, 1));
                TU_OK(NULL, gala_csc_validate(NULL, "A", &pb.A, 0));
                round_trip(&pb, &back);
                assert_same_problem(&pb, &back, 4.5e-16, files[f]);
                gala_qp_problem_free(&back);
                ++ok;
            }
            gala_qp_problem_free(&pb);
            free(text);
            ++total;
        }
        free_list(files, nf);
    }
    ck_assert_int_gt(ok, 0);
    ck_assert_int_gt(total, ok);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qps");
    TCase *tc = tcase_create("qps");
    tcase_add_test(tc, maros_meszaros_sizes_match_the_tables);
    tcase_add_test(tc, objective_at_known_optima);
    tcase_add_test(tc, equality_problems_reach_the_table_optimum);
    tcase_add_test(tc, every_section_and_rule);
    tcase_add_test(tc, fixed_blanks_free_crlf_and_qmatrix_agree);
    tcase_add_test(tc, line_ends_exponents_and_case);
    tcase_add_test(tc, bounds_ranges_markers_and_sets);
    tcase_add_test(tc, malformed_input_names_line_and_column);
    tcase_add_test(tc, garbage_is_rejected);
    tcase_add_test(tc, round_trip_of_every_file);
    tcase_add_test(tc, round_trip_of_random_problems);
    tcase_add_test(tc, writer_rejects_what_mps_cannot_say);
    tcase_add_test(tc, allocation_failures_leak_nothing);
    tcase_add_test(tc, fuzz_corpus_and_crashers);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
