/*
 * gala-qp: directory listing, reference optima, solution files, and the reports (table,
 * summary, JSON, CSV). docs/gala-qp.md describes every format written here.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "gqp.h"

double gqp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Statuses whose iterate is a (possibly inaccurate) solution, so that the objective means
 * something: as OSQP, which reports obj_val for these. */
static int has_objective(int status)
{
    return status == GALA_QP_SOLVED || status == GALA_QP_SOLVED_INACCURATE ||
           status == GALA_QP_MAX_ITER_REACHED || status == GALA_QP_TIME_LIMIT_REACHED ||
           status == GALA_QP_INTERRUPTED;
}

double gqp_objective(const gqp_item *it)
{
    double f = it->info.obj_val;
    if (!has_objective(it->info.status) || !isfinite(f) || fabs(f) >= 1e30) return NAN;
    return it->sense < 0 ? -f : f;
}

double gqp_ref_error(const gqp_item *it)
{
    double f = gqp_objective(it);
    if (!it->has_ref || isnan(f)) return NAN;
    return fabs(f - it->ref) / fmax(1.0, fabs(it->ref));
}

int gqp_is_solved(const gqp_item *it) { return it->info.status == GALA_QP_SOLVED; }

const char *gqp_status_name(int status)
{
    if (status == GQP_STATUS_SKIPPED) return "skipped";
    return gala_qp_status_string(status);
}

/* The shortest of %.15g, %.16g, %.17g that reads back as the same double ("0.1", not
 * "0.10000000000000001"). */
static const char *shortest(char *buf, size_t cap, double v)
{
    for (int p = 15; p <= 17; ++p) {
        snprintf(buf, cap, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

/* ------------------------------------------------------------------ directory */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int qps_name(const char *n)
{
    size_t l = strlen(n);
    if (n[0] == '.' || l < 5) return 0;
    return !strcasecmp(n + l - 4, ".qps") || !strcasecmp(n + l - 4, ".mps");
}

int gqp_list_dir(const char *dir, char ***out, char *err, size_t errcap)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errcap, "%s: cannot open directory: %s", dir, strerror(errno));
        return -1;
    }
    char **v = NULL;
    int n = 0, cap = 0;
    size_t dl = strlen(dir);
    int slash = dl > 0 && dir[dl - 1] == '/';
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!qps_name(e->d_name)) continue;
        size_t len = dl + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path) goto oom;
        snprintf(path, len, "%s%s%s", dir, slash ? "" : "/", e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        if (n == cap) {
            int nc = cap ? 2 * cap : 64;
            char **nv = realloc(v, (size_t)nc * sizeof *nv);
            if (!nv) {
                free(path);
                goto oom;
            }
            v = nv;
            cap = nc;
        }
        v[n++] = path;
    }
    closedir(d);
    if (n) qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
oom:
    closedir(d);
    for (int i = 0; i < n; ++i) free(v[i]);
    free(v);
    snprintf(err, errcap, "%s: out of memory", dir);
    return -1;
}

/* ------------------------------------------------------------------ reference optima */

static int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && errno == 0 && isfinite(*v);
}

/* Names compare without case and without anything but letters and digits: the table of
 * 00README.QP says cvxqp1s for the file CVXQP1_S.QPS. */
static int same_name(const char *a, const char *b)
{
    for (;;) {
        while (*a && !isalnum((unsigned char)*a)) ++a;
        while (*b && !isalnum((unsigned char)*b)) ++b;
        if (!*a || !*b) return !*a && !*b;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
        ++a;
        ++b;
    }
}

typedef struct {
    char name[64];
    double value;
} ref_entry;

int gqp_read_reference(const char *path, gqp_item *items, int count, char *err, size_t errcap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errcap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    ref_entry *refs = NULL;
    int nref = 0, cap = 0, oom = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *fields[32];
        int nf = 0;
        for (char *t = strtok(line, " \t\r\n"); t && nf < 32; t = strtok(NULL, " \t\r\n"))
            fields[nf++] = t;
        double v;
        if (nf < 2 || !parse_double(fields[nf - 1], &v)) continue;
        if (nref == cap) {
            int nc = cap ? 2 * cap : 256;
            ref_entry *nr = realloc(refs, (size_t)nc * sizeof *nr);
            if (!nr) {
                oom = 1;
                break;
            }
            refs = nr;
            cap = nc;
        }
        snprintf(refs[nref].name, sizeof refs[nref].name, "%s", fields[0]);
        refs[nref++].value = v;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad || oom) {
        free(refs);
        snprintf(err, errcap, "%s: %s", path, oom ? "out of memory" : "read error");
        return -1;
    }
    /* the display name (file stem) first; the NAME inside the file only when that fails
     * (QBANDM.QPS says NAME BANDM) */
    int matched = 0;
    for (int k = 0; k < count; ++k) {
        gqp_item *it = &items[k];
        it->has_ref = 0;
        for (int pass = 0; pass < 2 && !it->has_ref; ++pass) {
            const char *nm = pass ? it->pb.name : it->name;
            for (int r = 0; r < nref && nm[0]; ++r)
                if (same_name(nm, refs[r].name)) {
                    it->has_ref = 1;
                    it->ref = refs[r].value;
                    ++matched;
                    break;
                }
        }
    }
    free(refs);
    return matched;
}

/* ------------------------------------------------------------------ solution files */

static void put_vec(FILE *f, const char *label, const double *v, int n)
{
    fprintf(f, "%s\n", label);
    char b[40];
    for (int i = 0; i < n; ++i) fprintf(f, "%s\n", shortest(b, sizeof b, v[i]));
}

int gqp_write_solutions(const char *dir, const gqp_run *run, char *err, size_t errcap)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0) {
            snprintf(err, errcap, "%s: cannot create directory: %s", dir, strerror(errno));
            return -1;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errcap, "%s: not a directory", dir);
        return -1;
    }
    for (int k = 0; k < run->count; ++k) {
        const gqp_item *it = &run->items[k];
        if (!it->x) continue; /* skipped: nothing to write */
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.sol", dir, it->name);
        FILE *f = fopen(path, "w");
        if (!f) {
            snprintf(err, errcap, "%s: cannot write: %s", path, strerror(errno));
            return -1;
        }
        int st_ = it->info.status;
        fprintf(f, "gala-qp solution 1\n");
        fprintf(f, "name %s\n", it->name);
        fprintf(f, "source %s\n", it->source);
        fprintf(f, "status %s\n", gqp_status_name(st_));
        fprintf(f, "status_code %d\n", st_);
        fprintf(f, "sense %s\n", it->sense < 0 ? "max" : "min");
        char b[40];
        fprintf(f, "objective %s\n", shortest(b, sizeof b, gqp_objective(it)));
        fprintf(f, "iterations %d\n", it->info.iter);
        fprintf(f, "n %d\nm %d\n", it->pb.n, it->pb.m);
        put_vec(f, "x", it->x, it->pb.n);
        put_vec(f, "y", it->y, it->pb.m);
        if ((st_ == GALA_QP_PRIMAL_INFEASIBLE || st_ == GALA_QP_PRIMAL_INFEASIBLE_INACCURATE) && it->prim_cert)
            put_vec(f, "prim_inf_cert", it->prim_cert, it->pb.m);
        if ((st_ == GALA_QP_DUAL_INFEASIBLE || st_ == GALA_QP_DUAL_INFEASIBLE_INACCURATE) && it->dual_cert)
            put_vec(f, "dual_inf_cert", it->dual_cert, it->pb.n);
        int bad = ferror(f);
        if (fclose(f) != 0 || bad) {
            snprintf(err, errcap, "%s: write error", path);
            return -1;
        }
    }
    return 0;
}

/* Read count numbers, one a line, after the current position. */
static int get_vec(FILE *f, double *v, int count)
{
    char line[256];
    for (int i = 0; i < count; ++i) {
        if (!fgets(line, sizeof line, f)) return -1;
        line[strcspn(line, "\r\n")] = 0;
        char *end;
        v[i] = strtod(line, &end);
        if (end == line || *end) return -1;
    }
    return 0;
}

int gqp_read_solution(const char *path, int n, int m, double *x, double *y, char *err,
                      size_t errcap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0;
        snprintf(err, errcap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[4096];
    int fn = -1, fm = -1, gotx = 0, goty = 0, rc = 0;
    if (!fgets(line, sizeof line, f) || strncmp(line, "gala-qp solution ", 17) != 0) {
        snprintf(err, errcap, "%s: not a gala-qp solution file", path);
        rc = -1;
    }
    while (rc == 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!strncmp(line, "n ", 2)) fn = atoi(line + 2);
        else if (!strncmp(line, "m ", 2)) fm = atoi(line + 2);
        else if (!strcmp(line, "x") || !strcmp(line, "y")) {
            int isx = line[0] == 'x', want = isx ? n : m;
            if (fn != n || fm != m) {
                snprintf(err, errcap, "%s: sizes n = %d, m = %d do not match the problem's n = %d, m = %d",
                         path, fn, fm, n, m);
                rc = -1;
            } else if (get_vec(f, isx ? x : y, want) != 0) {
                snprintf(err, errcap, "%s: %s: expected %d numbers, one a line", path, line, want);
                rc = -1;
            } else if (isx) {
                gotx = 1;
            } else {
                goty = 1;
            }
        }
    }
    fclose(f);
    if (rc == 0 && !(gotx && goty)) {
        snprintf(err, errcap, "%s: no x and y sections", path);
        rc = -1;
    }
    return rc < 0 ? -1 : 1;
}

/* ------------------------------------------------------------------ reports */

/* "none" where no strategy ran (every QP rejected); the table's word otherwise. */
static const char *linsys_name(int l)
{
    return l < 0 ? "none" : gala_qp_linsys_name(l);
}

typedef struct tally {
    int solved, counts[GQP_STATUS_SKIPPED + 1];
    int with_ref, ref_ok;
    double ref_max;
} tally;

static tally count_all(const gqp_run *run)
{
    tally t;
    memset(&t, 0, sizeof t);
    for (int k = 0; k < run->count; ++k) {
        const gqp_item *it = &run->items[k];
        int s = it->info.status;
        if (s >= 0 && s <= GQP_STATUS_SKIPPED) t.counts[s]++;
        if (gqp_is_solved(it)) t.solved++;
        if (it->has_ref) {
            t.with_ref++;
            double e = gqp_ref_error(it);
            if (!isnan(e)) {
                t.ref_max = fmax(t.ref_max, e);
                if (e <= run->ref_tol) t.ref_ok++;
            }
        }
    }
    return t;
}

static double qps_per_second(const gqp_run *run)
{
    double t = run->setup_time + run->solve_time;
    return t > 0 ? run->count / t : 0;
}

static void fmt_num(char *buf, size_t cap, const char *fmt, double v)
{
    if (isnan(v)) snprintf(buf, cap, "-");
    else snprintf(buf, cap, fmt, v);
}

void gqp_report_table(FILE *f, const gqp_run *run, int with_rows)
{
    if (!with_rows) return;
    int wname = 4, wn = 1, wm = 1;
    for (int k = 0; k < run->count; ++k) {
        const gqp_item *it = &run->items[k];
        int l = (int)strlen(it->name);
        if (l > wname) wname = l;
        char b[32];
        if ((l = snprintf(b, sizeof b, "%d", it->pb.n)) > wn) wn = l;
        if ((l = snprintf(b, sizeof b, "%d", it->pb.m)) > wm) wm = l;
    }
    if (wname > 40) wname = 40;
    fprintf(f, "%-*s %*s %*s  %-17s %17s %6s %9s %9s %9s", wname, "name", wn, "n", wm, "m",
            "status", "objective", "iter", "prim_res", "dual_res", "time_s");
    if (run->with_ref) fprintf(f, " %9s", "ref_err");
    fprintf(f, "\n");
    for (int k = 0; k < run->count; ++k) {
        const gqp_item *it = &run->items[k];
        const gala_qp_info *in = &it->info;
        char obj[40], pr[20], dr[20], tm[20], re[20];
        int ran = it->batch_index >= 0 && in->status != GALA_QP_INVALID_DATA;
        fmt_num(obj, sizeof obj, "%.9e", gqp_objective(it));
        fmt_num(pr, sizeof pr, "%.2e", ran ? in->prim_res : NAN);
        fmt_num(dr, sizeof dr, "%.2e", ran ? in->dual_res : NAN);
        fmt_num(tm, sizeof tm, "%.4f", ran ? in->solve_time + in->polish_time : NAN);
        fmt_num(re, sizeof re, "%.2e", gqp_ref_error(it));
        const char *st = gqp_status_name(in->status);
        /* short forms keep the column narrow; JSON and CSV carry the full names */
        if (in->status == GALA_QP_MAX_ITER_REACHED) st = "max iterations";
        else if (in->status == GALA_QP_TIME_LIMIT_REACHED) st = "time limit";
        else if (in->status == GALA_QP_PRIMAL_INFEASIBLE_INACCURATE) st = "prim. infeas. inacc.";
        else if (in->status == GALA_QP_DUAL_INFEASIBLE_INACCURATE) st = "dual infeas. inacc.";
        else if (in->status == GALA_QP_NON_CVX) st = "non convex";
        fprintf(f, "%-*.*s %*d %*d  %-17s %17s %6d %9s %9s %9s", wname, wname, it->name, wn,
                it->pb.n, wm, it->pb.m, st, obj, in->iter, pr, dr, tm);
        if (run->with_ref) fprintf(f, " %9s", re);
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

void gqp_report_summary(FILE *f, const gqp_run *run)
{
    tally t = count_all(run);
    fprintf(f, "solved %d of %d QPs", t.solved, run->count);
    int first = 1;
    for (int s = 0; s <= GQP_STATUS_SKIPPED; ++s) {
        if (s == GALA_QP_SOLVED || !t.counts[s]) continue;
        fprintf(f, "%s%d %s", first ? " (" : ", ", t.counts[s], gqp_status_name(s));
        first = 0;
    }
    fprintf(f, "%s\n", first ? "" : ")");
    if (t.solved < run->count) {
        int shown = 0;
        fprintf(f, "not solved:");
        for (int k = 0; k < run->count && shown < 12; ++k)
            if (!gqp_is_solved(&run->items[k])) {
                fprintf(f, " %s", run->items[k].name);
                ++shown;
            }
        fprintf(f, "%s\n", run->count - t.solved > shown ? " ..." : "");
    }
    fprintf(f, "time: read %.3f s, setup %.3f s, solve %.3f s; %.1f QPs/s (setup + solve)%s\n",
            run->read_time, run->setup_time, run->solve_time, qps_per_second(run),
            run->interrupted ? "; interrupted" : "");
    fprintf(f, "device: %s (%s, linear systems %s", run->device,
            gala_dtype_name(run->settings.dtype), linsys_name(run->linsys));
    if (run->chunks > (run->ndev > 1 ? run->ndev : 1)) fprintf(f, ", %d chunks", run->chunks);
    fprintf(f, ")\n");
    if (run->ndev > 0) {
        fprintf(f, "devices:");
        for (int d = 0; d < run->ndev; ++d)
            fprintf(f, "%s %d %s (%d QPs)", d ? "," : "", d, run->dev_name[d], run->dev_qps[d]);
        fprintf(f, "\n");
    }
    if (run->with_ref)
        fprintf(f, "reference: %d of %d objectives within %g of the reference value "
                   "(|f - ref| / max(1, |ref|); largest %.2e)\n",
                t.ref_ok, t.with_ref, run->ref_tol, t.ref_max);
}

/* JSON: strings escaped, non-finite numbers as null. */
static void js_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static void js_num(FILE *f, double v)
{
    char b[40];
    if (isfinite(v)) fputs(shortest(b, sizeof b, v), f);
    else fputs("null", f);
}

static void js_key(FILE *f, const char *k, int *first)
{
    fputs(*first ? "" : ", ", f);
    *first = 0;
    js_str(f, k);
    fputs(": ", f);
}

#define JS_NUM(k, v) (js_key(f, k, &first), js_num(f, v))
#define JS_INT(k, v) (js_key(f, k, &first), fprintf(f, "%d", (int)(v)))
#define JS_STR(k, v) (js_key(f, k, &first), js_str(f, v))

static void js_settings(FILE *f, const gala_qp_settings *s)
{
    int first = 1;
    fputs("{", f);
    JS_STR("precision", gala_dtype_name(s->dtype));
    JS_STR("linsys", linsys_name(s->linsys_solver));
    JS_NUM("eps_abs", s->eps_abs);
    JS_NUM("eps_rel", s->eps_rel);
    JS_NUM("eps_prim_inf", s->eps_prim_inf);
    JS_NUM("eps_dual_inf", s->eps_dual_inf);
    JS_INT("max_iter", s->max_iter);
    JS_NUM("time_limit", s->time_limit);
    JS_NUM("rho", s->rho);
    JS_INT("rho_is_vec", s->rho_is_vec);
    JS_NUM("sigma", s->sigma);
    JS_NUM("alpha", s->alpha);
    JS_INT("cg_max_iter", s->cg_max_iter);
    JS_INT("cg_tol_reduction", s->cg_tol_reduction);
    JS_NUM("cg_tol_fraction", s->cg_tol_fraction);
    JS_INT("scaling", s->scaling);
    JS_INT("adaptive_rho", s->adaptive_rho);
    JS_INT("adaptive_rho_interval", s->adaptive_rho_interval);
    JS_NUM("adaptive_rho_fraction", s->adaptive_rho_fraction);
    JS_NUM("adaptive_rho_tolerance", s->adaptive_rho_tolerance);
    JS_INT("check_termination", s->check_termination);
    JS_INT("check_dualgap", s->check_dualgap);
    JS_INT("scaled_termination", s->scaled_termination);
    JS_INT("polishing", s->polishing);
    JS_NUM("delta", s->delta);
    JS_INT("polish_refine_iter", s->polish_refine_iter);
    JS_NUM("rho_ladder_ratio", s->rho_ladder_ratio);
    JS_INT("iters_per_launch", s->iters_per_launch);
    JS_INT("refine", s->refine);
    JS_NUM("device_mem_limit", s->device_mem_limit);
    JS_INT("max_chunk", s->max_chunk);
    fputs("}", f);
}

void gqp_report_json(FILE *f, const gqp_run *run)
{
    tally t = count_all(run);
    int first = 1;
    fputs("{", f);
    JS_STR("tool", "gala-qp");
    JS_STR("gala_version", gala_version());
    JS_STR("device", run->device);
    JS_STR("backend", run->backend);
    JS_STR("linsys_used", linsys_name(run->linsys));
    JS_INT("chunks", run->chunks);
    if (run->ndev > 0) { /* --devices: each device's share */
        js_key(f, "devices", &first);
        fputs("[", f);
        for (int d = 0; d < run->ndev; ++d) {
            int first_d = 1;
            fputs(d ? ", {" : "{", f);
            js_key(f, "name", &first_d);
            js_str(f, run->dev_name[d]);
            js_key(f, "qps", &first_d);
            fprintf(f, "%d}", run->dev_qps[d]);
        }
        fputs("]", f);
    }
    js_key(f, "settings", &first);
    js_settings(f, &run->settings);
    js_key(f, "problems", &first);
    fputs("[\n", f);
    for (int k = 0; k < run->count; ++k) {
        const gqp_item *it = &run->items[k];
        const gala_qp_info *in = &it->info;
        int ran = it->batch_index >= 0 && in->status != GALA_QP_INVALID_DATA;
        first = 1;
        fputs("  {", f);
        JS_STR("name", it->name);
        JS_STR("qps_name", it->pb.name);
        JS_STR("source", it->source);
        JS_INT("n", it->pb.n);
        JS_INT("m", it->pb.m);
        JS_INT("rows", it->rows);
        JS_INT("bound_rows", it->bound_rows);
        JS_STR("sense", it->sense < 0 ? "max" : "min");
        JS_STR("status", gqp_status_name(in->status));
        JS_INT("status_code", in->status);
        JS_NUM("objective", gqp_objective(it));
        JS_INT("iterations", in->iter);
        JS_NUM("prim_res", ran ? in->prim_res : NAN);
        JS_NUM("dual_res", ran ? in->dual_res : NAN);
        JS_NUM("duality_gap", ran ? in->duality_gap : NAN);
        JS_INT("rho_updates", in->rho_updates);
        JS_NUM("rho", ran ? in->rho : NAN);
        JS_INT("status_polish", in->status_polish);
        JS_NUM("solve_time", ran ? in->solve_time : NAN);
        JS_NUM("polish_time", ran ? in->polish_time : NAN);
        if (it->has_ref) {
            JS_NUM("reference", it->ref);
            JS_NUM("ref_error", gqp_ref_error(it));
        }
        if (it->skip_reason[0]) JS_STR("message", it->skip_reason);
        else if (in->message[0]) JS_STR("message", in->message);
        fprintf(f, "}%s\n", k + 1 < run->count ? "," : "");
    }
    fputs("]", f);
    first = 0;
    js_key(f, "summary", &first);
    first = 1;
    fputs("{", f);
    JS_INT("total", run->count);
    JS_INT("solved", t.solved);
    js_key(f, "statuses", &first);
    {
        int f2 = 1;
        fputs("{", f);
        for (int s = 0; s <= GQP_STATUS_SKIPPED; ++s)
            if (t.counts[s]) {
                js_key(f, gqp_status_name(s), &f2);
                fprintf(f, "%d", t.counts[s]);
            }
        fputs("}", f);
    }
    JS_NUM("read_time", run->read_time);
    JS_NUM("setup_time", run->setup_time);
    JS_NUM("solve_time", run->solve_time);
    JS_NUM("qps_per_second", qps_per_second(run));
    JS_INT("interrupted", run->interrupted);
    if (run->with_ref) {
        JS_INT("with_reference", t.with_ref);
        JS_INT("reference_ok", t.ref_ok);
        JS_NUM("reference_tolerance", run->ref_tol);
        JS_NUM("reference_max_error", t.with_ref ? t.ref_max : NAN);
    }
    fputs("}}\n", f);
}

/* CSV (RFC 4180): fields with a comma, quote or line break are quoted. */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
    char b[40];
    if (isfinite(v)) fprintf(f, ",%s", shortest(b, sizeof b, v));
    else fputs(",", f);
}

void gqp_report_csv(FILE *f, const gqp_run *run)
{
    fputs("name,source,n,m,status,status_code,objective,iterations,prim_res,dual_res,"
          "duality_gap,rho_updates,status_polish,time,reference,ref_error\n", f);
    for (int k = 0; k < run->count; ++k) {
        const gqp_item *it = &run->items[k];
        const gala_qp_info *in = &it->info;
        int ran = it->batch_index >= 0 && in->status != GALA_QP_INVALID_DATA;
        csv_str(f, it->name);
        fputc(',', f);
        csv_str(f, it->source);
        fprintf(f, ",%d,%d,", it->pb.n, it->pb.m);
        csv_str(f, gqp_status_name(in->status));
        fprintf(f, ",%d", in->status);
        csv_num(f, gqp_objective(it));
        fprintf(f, ",%d", in->iter);
        csv_num(f, ran ? in->prim_res : NAN);
        csv_num(f, ran ? in->dual_res : NAN);
        csv_num(f, ran ? in->duality_gap : NAN);
        fprintf(f, ",%d,%d", in->rho_updates, in->status_polish);
        csv_num(f, ran ? in->solve_time + in->polish_time : NAN);
        csv_num(f, it->has_ref ? it->ref : NAN);
        csv_num(f, gqp_ref_error(it));
        fputc('\n', f);
    }
}
