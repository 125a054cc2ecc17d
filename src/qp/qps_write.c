/*
 * QPS writer (qps.h): free MPS with a QUADOBJ section, written so that the reader gives the
 * same problem back (docs/qps.md, "Writing").
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gala/qps.h"

#define QPS_INF 1e20 /* as the reader: |v| >= 1e20 is infinite */

static const char fn[] = "gala_qp_write_qps";

/* Host allocations of the writer honour the "alloc" fault injection (internal.h), so the
 * tests can make each one fail in turn and check that no error path leaks. */
static void *q_malloc(size_t n) { return gala_fault_hit(GALA_FAULT_ALLOC) ? NULL : gala_malloc(n); }
static void *q_calloc(size_t n, size_t size)
{
    return gala_fault_hit(GALA_FAULT_ALLOC) ? NULL : gala_calloc(n, size);
}

static double inf_norm(double v)
{
    if (v >= QPS_INF) return INFINITY;
    if (v <= -QPS_INF) return -INFINITY;
    return v;
}

/* Shortest of %.15g, %.16g, %.17g that reads back as v, with '.' whatever the locale. */
static void fmt_num(char *buf, size_t cap, double v)
{
    for (int prec = 15; prec <= 17; ++prec) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v) break;
    }
    const struct lconv *lc = localeconv();
    if (lc && lc->decimal_point && lc->decimal_point[0] && !lc->decimal_point[1] &&
        lc->decimal_point[0] != '.')
        for (char *c = buf; *c; ++c)
            if (*c == lc->decimal_point[0]) *c = '.';
}

static gala_status check_coef(const char *what, int idx, double v)
{
    if (!isfinite(v) || fabs(v) >= QPS_INF)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: %s entry %d is %g: MPS reads "
                          "|v| >= 1e20 as infinite", fn, what, idx, v);
    return GALA_OK;
}

static gala_status validate(const gala_qp_problem *pb)
{
    if (!pb) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: NULL problem", fn);
    int n = pb->n, m = pb->m;
    if (n < 0 || m < 0)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: negative size n=%d m=%d", fn, n, m);
    if (pb->P.m != n || pb->P.n != n || pb->A.m != m || pb->A.n != n)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: P is %d×%d and A %d×%d, but n=%d "
                          "m=%d", fn, pb->P.m, pb->P.n, pb->A.m, pb->A.n, n, m);
    if ((n > 0 && !pb->q) || (m > 0 && (!pb->l || !pb->u)))
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: q, l or u is NULL", fn);
    GALA_TRY(gala_csc_validate(NULL, "P", &pb->P, 1));
    GALA_TRY(gala_csc_validate(NULL, "A", &pb->A, 0));
    for (int k = 0; k < pb->P.p[n]; ++k) GALA_TRY(check_coef("P", k, pb->P.x[k]));
    for (int k = 0; k < pb->A.p[n]; ++k) GALA_TRY(check_coef("A", k, pb->A.x[k]));
    for (int j = 0; j < n; ++j) GALA_TRY(check_coef("q", j, pb->q[j]));
    GALA_TRY(check_coef("c0", 0, pb->c0));
    for (int i = 0; i < m; ++i) {
        double l = inf_norm(pb->l[i]), u = inf_norm(pb->u[i]);
        if (isnan(l) || isnan(u) || l == INFINITY || u == -INFINITY)
            return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: row %d has bounds [%g, %g], "
                              "which MPS cannot express", fn, i, pb->l[i], pb->u[i]);
    }
    return GALA_OK;
}

/* Two-sided row lo < up (both finite): an RHS b and range R such that the reader gives
 * back exactly [lo, up] — G: [b, b + |R|] or L: [b − |R|, b]. Returns 0 when only an
 * approximate pair exists (then G with R = up − lo). */
static int range_form(double lo, double up, char *type, double *rhs, double *R)
{
    double d = up - lo, c[5];
    c[0] = d;
    c[1] = nextafter(d, 0);
    c[2] = nextafter(d, INFINITY);
    c[3] = nextafter(c[1], 0);
    c[4] = nextafter(c[2], INFINITY);
    for (int k = 0; k < 5; ++k)
        if (c[k] > 0 && lo + c[k] == up) {
            *type = 'G', *rhs = lo, *R = c[k];
            return 1;
        }
    for (int k = 0; k < 5; ++k)
        if (c[k] > 0 && up - c[k] == lo) {
            *type = 'L', *rhs = up, *R = c[k];
            return 1;
        }
    *type = 'G', *rhs = lo, *R = d;
    return 0;
}

/* What to write where, worked out before any output. */
typedef struct {
    int mc;    /* rows 0..mc-1 are written as constraints, mc..m-1 as BOUNDS */
    int *rcnt; /* per row of A: entries */
    int *rcol; /* per row: the column of its single entry 1.0, or -1 */
    int *brow; /* per column: its bound row, or -1 */
    int *tcnt, *tidx, *tcol; /* P transposed (lower triangle by columns) */
} plan;

static void plan_free(plan *pl)
{
    gala_free(pl->rcnt);
    gala_free(pl->rcol);
    gala_free(pl->brow);
    gala_free(pl->tcnt);
    gala_free(pl->tidx);
    gala_free(pl->tcol);
    memset(pl, 0, sizeof *pl);
}

static gala_status plan_make(const gala_qp_problem *pb, plan *pl)
{
    int n = pb->n, m = pb->m;
    const gala_csc *A = &pb->A, *P = &pb->P;
    memset(pl, 0, sizeof *pl);
    pl->rcnt = q_calloc((size_t)m + 1, sizeof *pl->rcnt);
    pl->rcol = q_malloc(((size_t)m + 1) * sizeof *pl->rcol);
    pl->brow = q_malloc(((size_t)n + 1) * sizeof *pl->brow);
    pl->tcnt = q_calloc((size_t)n + 1, sizeof *pl->tcnt);
    pl->tidx = q_malloc(((size_t)P->p[n] + 1) * sizeof *pl->tidx);
    pl->tcol = q_malloc(((size_t)P->p[n] + 1) * sizeof *pl->tcol);
    if (!pl->rcnt || !pl->rcol || !pl->brow || !pl->tcnt || !pl->tidx || !pl->tcol) {
        plan_free(pl);
        return gala_error(NULL, GALA_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    for (int j = 0; j < n; ++j)
        for (int k = A->p[j]; k < A->p[j + 1]; ++k) {
            int i = A->i[k];
            pl->rcol[i] = pl->rcnt[i] == 0 && A->x[k] == 1.0 ? j : -1;
            pl->rcnt[i]++;
        }
    /* the trailing block of identity rows with a finite bound, columns increasing */
    int mc = m, last = n;
    for (int j = 0; j < n; ++j) pl->brow[j] = -1;
    while (mc > 0) {
        int i = mc - 1;
        double l = inf_norm(pb->l[i]), u = inf_norm(pb->u[i]);
        if (pl->rcnt[i] != 1 || pl->rcol[i] < 0 || pl->rcol[i] >= last ||
            (l == -INFINITY && u == INFINITY))
            break;
        last = pl->rcol[i];
        pl->brow[last] = i;
        --mc;
    }
    pl->mc = mc;
    for (int i = 0; i < mc; ++i)
        if (inf_norm(pb->l[i]) > inf_norm(pb->u[i])) {
            plan_free(pl);
            return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: row %d has l = %g > u = %g, "
                              "which MPS rows cannot express", fn, i, pb->l[i], pb->u[i]);
        }
    /* P's entries (i, j), i <= j, ordered by i: the lower triangle by columns */
    for (int j = 0; j < n; ++j)
        for (int k = P->p[j]; k < P->p[j + 1]; ++k) pl->tcnt[P->i[k]]++;
    int sum = 0;
    for (int i = 0; i < n; ++i) {
        int c = pl->tcnt[i];
        pl->tcnt[i] = sum;
        sum += c;
    }
    for (int j = 0; j < n; ++j)
        for (int k = P->p[j]; k < P->p[j + 1]; ++k) {
            int pos = pl->tcnt[P->i[k]]++;
            pl->tidx[pos] = k;
            pl->tcol[pos] = j;
        }
    return GALA_OK; /* tcnt[i] is now the end of row i's entries */
}

static gala_status emit(FILE *f, const gala_qp_problem *pb, const plan *pl)
{
    int n = pb->n, m = pb->m, mc = pl->mc;
    const gala_csc *A = &pb->A, *P = &pb->P;
    const int *brow = pl->brow;
    char v1[40], v2[40];

    /* NAME: the problem's name, control characters replaced */
    char name[sizeof pb->name];
    size_t nl = 0;
    while (nl < sizeof name - 1 && pb->name[nl]) {
        unsigned char c = (unsigned char)pb->name[nl];
        name[nl++] = (c < 0x20 && c != '\t') || c == 0x7f ? '_' : (char)c;
    }
    name[nl] = '\0';
    fprintf(f, "* written by gala %s: %d variables, %d rows (%d constraint, %d bound)\n",
            gala_version(), n, m, mc, m - mc);
    fprintf(f, "NAME %s\nROWS\n N  OBJ\n", name);
    for (int i = 0; i < mc; ++i) {
        double l = inf_norm(pb->l[i]), u = inf_norm(pb->u[i]), b, R;
        char t;
        if (l == u) t = 'E';
        else if (l == -INFINITY) t = u == INFINITY ? 'G' : 'L';
        else if (u == INFINITY) t = 'G';
        else range_form(l, u, &t, &b, &R);
        fprintf(f, " %c  R%d\n", t, i + 1);
    }
    fprintf(f, "COLUMNS\n");
    for (int j = 0; j < n; ++j) {
        int any = 0;
        if (pb->q[j] != 0) {
            fmt_num(v1, sizeof v1, pb->q[j]);
            fprintf(f, "    C%-9d OBJ         %s\n", j + 1, v1);
            any = 1;
        }
        for (int k = A->p[j]; k < A->p[j + 1]; ++k) {
            if (A->i[k] >= mc) continue;
            char rn[16];
            snprintf(rn, sizeof rn, "R%d", A->i[k] + 1);
            fmt_num(v1, sizeof v1, A->x[k]);
            fprintf(f, "    C%-9d %-11s %s\n", j + 1, rn, v1);
            any = 1;
        }
        if (!any) fprintf(f, "    C%-9d OBJ         0\n", j + 1);
    }
    fprintf(f, "RHS\n");
    if (pb->c0 != 0) {
        fmt_num(v1, sizeof v1, -pb->c0);
        fprintf(f, "    RHS       OBJ         %s\n", v1);
    }
    int nrange = 0;
    for (int i = 0; i < mc; ++i) {
        double l = inf_norm(pb->l[i]), u = inf_norm(pb->u[i]), b, R;
        char t;
        if (l == u) b = l;
        else if (l == -INFINITY) b = u == INFINITY ? -1e30 : u;
        else if (u == INFINITY) b = l;
        else {
            range_form(l, u, &t, &b, &R);
            ++nrange;
        }
        if (b != 0) {
            fmt_num(v1, sizeof v1, b);
            fprintf(f, "    RHS       R%-10d %s\n", i + 1, v1);
        }
    }
    if (nrange) {
        fprintf(f, "RANGES\n");
        for (int i = 0; i < mc; ++i) {
            double l = inf_norm(pb->l[i]), u = inf_norm(pb->u[i]), b, R;
            char t;
            if (l == u || isinf(l) || isinf(u)) continue;
            range_form(l, u, &t, &b, &R);
            fmt_num(v1, sizeof v1, R);
            fprintf(f, "    RNG       R%-10d %s\n", i + 1, v1);
        }
    }
    fprintf(f, "BOUNDS\n");
    for (int j = 0; j < n; ++j) {
        if (brow[j] < 0) {
            fprintf(f, " FR BND       C%d\n", j + 1);
            continue;
        }
        double l = inf_norm(pb->l[brow[j]]), u = inf_norm(pb->u[brow[j]]);
        fmt_num(v1, sizeof v1, l);
        fmt_num(v2, sizeof v2, u);
        if (l == u) {
            fprintf(f, " FX BND       C%-10d %s\n", j + 1, v1);
            continue;
        }
        /* an explicit lower bound keeps a negative UP from meaning lower = -inf */
        if (l == -INFINITY) fprintf(f, " MI BND       C%d\n", j + 1);
        else if (l != 0 || u < 0) fprintf(f, " LO BND       C%-10d %s\n", j + 1, v1);
        if (u < INFINITY) fprintf(f, " UP BND       C%-10d %s\n", j + 1, v2);
    }
    if (P->p[n] > 0) {
        fprintf(f, "QUADOBJ\n");
        int pos = 0;
        for (int i = 0; i < n; ++i)
            for (; pos < pl->tcnt[i]; ++pos) {
                char cn[16];
                snprintf(cn, sizeof cn, "C%d", pl->tcol[pos] + 1);
                fmt_num(v1, sizeof v1, P->x[pl->tidx[pos]]);
                fprintf(f, "    C%-9d %-11s %s\n", i + 1, cn, v1);
            }
    }
    fprintf(f, "ENDATA\n");
    if (fflush(f) != 0 || ferror(f))
        return gala_error(NULL, GALA_ERR_IO, "%s: write error: %s", fn, strerror(errno));
    return GALA_OK;
}

gala_status gala_qp_write_qps_stream(FILE *stream, const gala_qp_problem *pb)
{
    if (!stream) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: NULL stream", fn);
    GALA_TRY(validate(pb));
    plan pl;
    GALA_TRY(plan_make(pb, &pl));
    gala_status st = emit(stream, pb, &pl);
    plan_free(&pl);
    return st;
}

gala_status gala_qp_write_qps(const char *path, const gala_qp_problem *pb)
{
    if (!path) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: NULL path", fn);
    GALA_TRY(validate(pb)); /* everything that can be wrong with pb, before touching the file */
    plan pl;
    GALA_TRY(plan_make(pb, &pl));
    FILE *f = fopen(path, "w");
    if (!f) {
        plan_free(&pl);
        return gala_error(NULL, GALA_ERR_IO, "%s: cannot create %s: %s", fn, path,
                          strerror(errno));
    }
    gala_status st = emit(f, pb, &pl);
    plan_free(&pl);
    if (fclose(f) != 0 && st == GALA_OK)
        st = gala_error(NULL, GALA_ERR_IO, "%s: write error on %s: %s", fn, path, strerror(errno));
    if (st != GALA_OK) remove(path);
    return st;
}
