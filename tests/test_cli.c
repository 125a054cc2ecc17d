/* gala-qp, the command-line tool, run as a program: usage and input errors (exit 2 with the
 * message), Maros–Meszaros files solved with the objective checked in the JSON output,
 * OBJSENSE MAX, generated batches (also through QPS files), JSON and CSV parsed strictly,
 * solution files whose x reproduces the objective and warm-start a second run, statuses
 * that give exit 1, and one run on the OpenCL device when there is one. The tool's path is
 * GALA_QP_EXE (tests/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define MM GALA_TEST_DATA_DIR "/maros_meszaros/"
#define CLI GALA_TEST_DATA_DIR "/cli/"

/* ================================================================== running the tool */

typedef struct {
    int code;   /* exit status; 128 + signal if killed */
    char *out;  /* stdout */
    char *err;  /* stderr */
} run_result;

static char g_tmp[256];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

/* Run gala-qp with a NULL-terminated argument list (without argv[0]). */
static run_result run_tool(const char *const *args)
{
    run_result r = {-1, NULL, NULL};
    char outp[300], errp[300];
    snprintf(outp, sizeof outp, "%s/stdout", g_tmp);
    snprintf(errp, sizeof errp, "%s/stderr", g_tmp);
    const char *argv[64];
    int n = 0;
    argv[n++] = GALA_QP_EXE;
    for (int i = 0; args[i] && n < 63; ++i) argv[n++] = args[i];
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0) _exit(126);
        close(fo);
        close(fe);
        execv(GALA_QP_EXE, (char *const *)argv);
        _exit(127);
    }
    ck_assert_msg(pid > 0, "fork failed: %s", strerror(errno));
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    r.out = slurp(outp);
    r.err = slurp(errp);
    ck_assert_msg(r.out && r.err, "cannot read the captured output");
    return r;
}

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

#define RUN(...) run_tool((const char *const[]){__VA_ARGS__, NULL})

/* Assert the exit code, showing what the tool said otherwise. */
#define EXPECT_CODE(r, want)                                                                  \
    ck_assert_msg((r).code == (want), "exit %d, want %d\nstdout:\n%.1500s\nstderr:\n%.1500s", \
                  (r).code, (want), (r).out, (r).err)

/* ================================================================== a strict JSON parser */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jv {
    int type;
    double num;
    char *str;       /* J_STR */
    struct jv *kids; /* J_ARR, J_OBJ */
    char **keys;     /* J_OBJ */
    int n;
} jv;

static void jv_free(jv *v)
{
    free(v->str);
    for (int i = 0; i < v->n; ++i) {
        jv_free(&v->kids[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->kids);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r') ++*p;
}

static int parse_value(const char **p, jv *v, int depth);

static int parse_string(const char **p, char **out)
{
    if (**p != '"') return -1;
    ++*p;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    for (;;) {
        unsigned char c = (unsigned char)**p;
        if (c == 0 || c < 0x20) {
            free(s);
            return -1;
        }
        ++*p;
        if (c == '"') break;
        if (c == '\\') {
            char e = **p;
            ++*p;
            switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
                for (int i = 0; i < 4; ++i)
                    if (!isxdigit((unsigned char)(*p)[i])) {
                        free(s);
                        return -1;
                    }
                c = '?';
                *p += 4;
                break;
            default: free(s); return -1;
            }
        }
        if (n + 2 > cap) s = realloc(s, cap *= 2);
        s[n++] = (char)c;
    }
    s[n] = 0;
    *out = s;
    return 0;
}

static int parse_number(const char **p, double *v)
{
    const char *s = *p;
    if (*s == '-') ++s;
    if (*s == '0') ++s;
    else if (*s >= '1' && *s <= '9') while (isdigit((unsigned char)*s)) ++s;
    else return -1;
    if (*s == '.') {
        ++s;
        if (!isdigit((unsigned char)*s)) return -1;
        while (isdigit((unsigned char)*s)) ++s;
    }
    if (*s == 'e' || *s == 'E') {
        ++s;
        if (*s == '+' || *s == '-') ++s;
        if (!isdigit((unsigned char)*s)) return -1;
        while (isdigit((unsigned char)*s)) ++s;
    }
    *v = strtod(*p, NULL);
    *p = s;
    return 0;
}

static int parse_value(const char **p, jv *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > 32) return -1;
    skip_ws(p);
    if (**p == '{' || **p == '[') {
        int obj = **p == '{';
        v->type = obj ? J_OBJ : J_ARR;
        ++*p;
        skip_ws(p);
        if (**p == (obj ? '}' : ']')) {
            ++*p;
            return 0;
        }
        for (;;) {
            v->kids = realloc(v->kids, sizeof *v->kids * (size_t)(v->n + 1));
            if (obj) v->keys = realloc(v->keys, sizeof *v->keys * (size_t)(v->n + 1));
            if (obj) {
                skip_ws(p);
                v->keys[v->n] = NULL;
                memset(&v->kids[v->n], 0, sizeof *v->kids);
                if (parse_string(p, &v->keys[v->n])) {
                    v->n++;
                    return -1;
                }
                skip_ws(p);
                if (**p != ':') {
                    v->n++;
                    return -1;
                }
                ++*p;
            }
            int bad = parse_value(p, &v->kids[v->n], depth + 1);
            v->n++;
            if (bad) return -1;
            skip_ws(p);
            if (**p == ',') {
                ++*p;
                continue;
            }
            if (**p == (obj ? '}' : ']')) {
                ++*p;
                return 0;
            }
            return -1;
        }
    }
    if (**p == '"') {
        v->type = J_STR;
        return parse_string(p, &v->str);
    }
    if (!strncmp(*p, "null", 4)) {
        v->type = J_NULL;
        *p += 4;
        return 0;
    }
    if (!strncmp(*p, "true", 4) || !strncmp(*p, "false", 5)) {
        v->type = J_BOOL;
        v->num = **p == 't';
        *p += **p == 't' ? 4 : 5;
        return 0;
    }
    v->type = J_NUM;
    return parse_number(p, &v->num);
}

/* Parse a whole document: one value, then only white space. */
static int json_parse(const char *text, jv *v)
{
    const char *p = text;
    if (parse_value(&p, v, 0)) return -1;
    skip_ws(&p);
    return *p ? -1 : 0;
}

static const jv *jget(const jv *o, const char *key)
{
    if (!o || o->type != J_OBJ) return NULL;
    for (int i = 0; i < o->n; ++i)
        if (!strcmp(o->keys[i], key)) return &o->kids[i];
    return NULL;
}

static double jnum(const jv *o, const char *key)
{
    const jv *v = jget(o, key);
    ck_assert_msg(v && v->type == J_NUM, "JSON: '%s' is not a number", key);
    return v->num;
}

static const char *jstr(const jv *o, const char *key)
{
    const jv *v = jget(o, key);
    ck_assert_msg(v && v->type == J_STR, "JSON: '%s' is not a string", key);
    return v->str;
}

/* The problem named @p name in a report. */
static const jv *jproblem(const jv *doc, const char *name)
{
    const jv *ps = jget(doc, "problems");
    ck_assert_msg(ps && ps->type == J_ARR, "JSON: no problems array");
    for (int i = 0; i < ps->n; ++i)
        if (!strcmp(jstr(&ps->kids[i], "name"), name)) return &ps->kids[i];
    ck_abort_msg("JSON: no problem named %s", name);
    return NULL;
}

static void parse_report(const run_result *r, jv *doc)
{
    ck_assert_msg(json_parse(r->out, doc) == 0, "stdout is not well-formed JSON:\n%.2000s", r->out);
    ck_assert_msg(doc->type == J_OBJ, "the report is not a JSON object");
}

/* ================================================================== CSV (RFC 4180) */

/* Split CSV text into records of fields; returns the number of records, fields per record
 * in nf[]. Fields are copied into fields[rec][field] (first 24 fields, 256 bytes each). */
enum { CSV_MAXREC = 64, CSV_MAXF = 24 };
static int csv_parse(const char *s, char fields[CSV_MAXREC][CSV_MAXF][256], int *nf)
{
    int rec = 0;
    while (*s && rec < CSV_MAXREC) {
        int f = 0;
        for (;;) {
            char buf[256];
            size_t n = 0;
            if (*s == '"') {
                ++s;
                for (;;) {
                    ck_assert_msg(*s, "CSV: unterminated quoted field");
                    if (*s == '"' && s[1] == '"') { if (n < 255) buf[n++] = '"'; s += 2; continue; }
                    if (*s == '"') { ++s; break; }
                    if (n < 255) buf[n++] = *s;
                    ++s;
                }
                ck_assert_msg(*s == ',' || *s == '\n', "CSV: text after a quoted field");
            } else {
                while (*s && *s != ',' && *s != '\n') {
                    ck_assert_msg(*s != '"', "CSV: quote inside an unquoted field");
                    if (n < 255) buf[n++] = *s;
                    ++s;
                }
            }
            buf[n] = 0;
            if (f < CSV_MAXF) snprintf(fields[rec][f], 256, "%s", buf);
            f++;
            if (*s == ',') { ++s; continue; }
            ck_assert_msg(*s == '\n', "CSV: the last record has no line end");
            ++s;
            break;
        }
        nf[rec++] = f;
    }
    return rec;
}

/* ================================================================== helpers */

/* ½xᵀPx + qᵀx + c0 of gala's form of a problem. */
static double objective(const gala_qp_problem *p, const double *x)
{
    double f = p->c0;
    for (int j = 0; j < p->n; ++j) {
        f += p->q[j] * x[j];
        for (int e = p->P.p[j]; e < p->P.p[j + 1]; ++e) {
            int i = p->P.i[e];
            f += (i == j ? 0.5 : 1.0) * p->P.x[e] * x[i] * x[j];
        }
    }
    return f;
}

/* Read x from a solution file (format: docs/gala-qp.md). */
static int read_sol_x(const char *path, int n, double *x, char *status, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int got = -1;
    status[0] = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "status ", 7)) snprintf(status, cap, "%.60s", line + 7);
        if (!strcmp(line, "x")) {
            got = 0;
            for (int i = 0; i < n && fgets(line, sizeof line, f); ++i) {
                char *end;
                x[i] = strtod(line, &end);
                if (end != line) got++;
            }
            break;
        }
    }
    fclose(f);
    return got == n ? 0 : -1;
}

static int has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

static void setup_tmp(void)
{
    snprintf(g_tmp, sizeof g_tmp, "%s/gala_cli_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_msg(mkdtemp(g_tmp) != NULL, "mkdtemp failed");
}

static void rm_tree(const char *dir) { ck_assert_int_eq(tu_rm_tree(dir), 0); }

static void teardown_tmp(void) { rm_tree(g_tmp); }

/* ================================================================== tests */

START_TEST(usage_errors)
{
    run_result r = run_tool((const char *const[]){NULL});
    EXPECT_CODE(r, 2);
    ck_assert_msg(has(r.err, "usage: gala-qp solve"), "no usage on stderr: %s", r.err);
    run_free(&r);

    struct { const char *args[8]; const char *msg; } cases[] = {
        {{"frobnicate"}, "unknown command 'frobnicate'"},
        {{"solve", "--bogus", MM "HS21.QPS"}, "unknown option '--bogus'"},
        {{"solve", MM "HS21.QPS", "--eps-abs", "abc"}, "--eps-abs: 'abc' is not a finite number"},
        {{"solve", MM "HS21.QPS", "--max-iter", "1.5"}, "--max-iter: '1.5' is not an integer"},
        {{"solve", MM "HS21.QPS", "--max-iter"}, "--max-iter needs a value"},
        {{"solve", MM "HS21.QPS", "--polish=yes"}, "--polish takes no value"},
        {{"solve", MM "HS21.QPS", "--precision", "half"}, "--precision: 'half' is not one of float|double|auto"},
        {{"solve", MM "HS21.QPS", "--backend", "metal"}, "--backend: 'metal'"},
        {{"solve", MM "HS21.QPS", "--alpha", "3", "--backend", "host"}, "alpha = 3 must be in (0, 2)"},
        {{"solve", "--generate", "mpc:10"}, NULL}, /* valid: count 1 (checked below) */
        {{"solve", "--generate", "teapot:3x2"}, "--generate 'teapot:3x2': expected FAMILY:SIZExCOUNT"},
        {{"solve", "--generate", "mpc:0x2"}, "--generate 'mpc:0x2'"},
        {{"solve"}, "no QPs given"},
        {{"solve", CLI "no_such_file.qps"}, "no_such_file.qps: No such file or directory"},
        {{"solve", GALA_TEST_DATA_DIR}, "no .qps or .mps files in this directory"},
        {{"generate", "--size", "3"}, "generate: no FAMILY given"},
        {{"generate", "control"}, "--size N is required"},
        {{"generate", "teapot", "--size", "3"}, "unknown family 'teapot'"},
        {{"generate", "control", "--size", "3", "--eps", "1e-3"}, "--eps is not an option of 'generate'"},
        {{"generate", "control", "--size", "3", "--count", "2", "--out", "-"}, "--count must be 1"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const char *args[12] = {0};
        int n = 0;
        for (; n < 8 && cases[k].args[n]; ++n) args[n] = cases[k].args[n];
        if (!cases[k].msg) {
            args[n++] = "--backend";
            args[n++] = "host";
        }
        r = run_tool(args);
        if (cases[k].msg) {
            ck_assert_msg(r.code == 2, "case %zu (%s): exit %d, want 2; stderr: %s", k, cases[k].msg,
                          r.code, r.err);
            ck_assert_msg(has(r.err, cases[k].msg), "case %zu: stderr lacks \"%s\":\n%s", k,
                          cases[k].msg, r.err);
            ck_assert_msg(r.out[0] == 0, "case %zu: something on stdout: %s", k, r.out);
        } else {
            EXPECT_CODE(r, 0);
        }
        run_free(&r);
    }

    /* --help: every option with its default, on stdout, exit 0 */
    r = RUN("--help");
    EXPECT_CODE(r, 0);
    const char *want[] = {"--eps-abs X", "(default 0.001)", "--max-iter N", "(default 4000)",
                          "--time-limit", "--rho X", "--sigma X", "(default 1e-06)", "--alpha X",
                          "(default 1.6)", "--scaling N", "--adaptive-rho off|iterations|time",
                          "--adaptive-rho-interval", "--adaptive-rho-tolerance", "--check-termination",
                          "--[no-]polish", "--precision float|double|auto", "--backend", "--platform",
                          "--device", "--linsys", "--warm-start DIR", "--json", "--csv",
                          "--solution-dir", "--eps-prim-inf", "--eps-dual-inf", "Exit status"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i)
        ck_assert_msg(has(r.out, want[i]), "--help lacks \"%s\"", want[i]);
    /* every setting of the table is an option, unless the table says it is not */
    for (int i = 0; i < gala_qp_settings_count(); ++i) {
        const gala_qp_setting_desc *d;
        ck_assert_int_eq(gala_qp_settings_field(i, &d), GALA_OK);
        char opt[64], sw[80]; /* "--name", or "--[no-]name" for a switch */
        snprintf(opt, sizeof opt, "--%s ", d->cli ? d->cli : d->name);
        for (char *c = opt; *c; ++c)
            if (*c == '_') *c = '-';
        snprintf(sw, sizeof sw, "--[no-]%s", opt + 2);
        const int listed = has(r.out, opt) || has(r.out, sw);
        if (d->flags & GALA_QP_SETTING_NO_CLI) ck_assert_msg(!listed, "--help has %s", opt);
        else ck_assert_msg(listed, "--help lacks the setting %s (%s)", d->name, opt);
    }
    run_free(&r);
}
END_TEST

START_TEST(malformed_files)
{
    /* the reader's position: FILE:LINE:COLUMN, and exit 2 */
    run_result r = RUN("solve", CLI "bad_column.qps", "--backend", "host");
    EXPECT_CODE(r, 2);
    ck_assert_msg(has(r.err, "bad_column.qps:13:15: unknown column 'X3'"), "stderr: %s", r.err);
    ck_assert_msg(r.out[0] == 0, "stdout: %s", r.out);
    run_free(&r);
    /* every bad file is named, good files next to them do not hide the error */
    r = RUN("solve", MM "HS21.QPS", CLI "truncated.qps", CLI "bad_column.qps", "--backend", "host");
    EXPECT_CODE(r, 2);
    ck_assert_msg(has(r.err, "truncated.qps:7:1: unexpected end of input"), "stderr: %s", r.err);
    ck_assert_msg(has(r.err, "bad_column.qps:13:15"), "stderr: %s", r.err);
    ck_assert_msg(has(r.err, "2 files could not be read"), "stderr: %s", r.err);
    run_free(&r);
    /* a directory holding a bad file */
    char dir[300], path[400];
    snprintf(dir, sizeof dir, "%s/mixed", g_tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/ok.qps", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("NAME OK\nROWS\n N OBJ\nCOLUMNS\n X OBJ 1\nBOUNDS\n UP B X 1\nENDATA\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/zz_binary.mps", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("NAME BIN\n\x01\x02\n", f);
    fclose(f);
    r = RUN("solve", dir, "--backend", "host");
    EXPECT_CODE(r, 2);
    ck_assert_msg(has(r.err, "zz_binary.mps:2:"), "stderr: %s", r.err);
    run_free(&r);
    rm_tree(dir);
}
END_TEST

static const struct { const char *name; double opt; } mm_some[] = {
    {"HS21", -9.9960000e+01}, {"HS35", 1.1111111e-01}, {"QAFIRO", -1.5907818e+00},
    {"TAME", 0}, {"CVXQP2_S", 8.1209405e+03},
};

START_TEST(maros_meszaros_json)
{
    run_result r = RUN("solve", MM "HS21.QPS", MM "HS35.QPS", MM "QAFIRO.QPS", MM "TAME.QPS",
                       MM "CVXQP2_S.QPS", "--eps", "1e-5", "--backend", "host", "--json",
                       "--reference", MM "00README.QP");
    EXPECT_CODE(r, 0);
    jv doc;
    parse_report(&r, &doc);
    ck_assert_str_eq(jstr(&doc, "tool"), "gala-qp");
    ck_assert_msg(has(jstr(&doc, "device"), "host"), "device: %s", jstr(&doc, "device"));
    const jv *set = jget(&doc, "settings");
    ck_assert_double_eq(jnum(set, "eps_abs"), 1e-5);
    ck_assert_double_eq(jnum(set, "eps_rel"), 1e-5);
    ck_assert_double_eq(jnum(set, "max_iter"), 4000);
    ck_assert_str_eq(jstr(set, "precision"), "double");
    ck_assert_int_eq(jget(&doc, "problems")->n, 5);
    for (size_t k = 0; k < sizeof mm_some / sizeof mm_some[0]; ++k) {
        const jv *p = jproblem(&doc, mm_some[k].name);
        ck_assert_str_eq(jstr(p, "status"), "solved");
        ck_assert_int_eq((int)jnum(p, "status_code"), GALA_QP_SOLVED);
        double f = jnum(p, "objective"), opt = mm_some[k].opt;
        ck_assert_msg(fabs(f - opt) <= 1e-4 * fmax(1, fabs(opt)), "%s: objective %.10g, OPT %.10g",
                      mm_some[k].name, f, opt);
        /* the reference the tool found is the same OPT, and its error is computed as stated */
        ck_assert_double_eq_tol(jnum(p, "reference"), opt, 1e-12 * fmax(1, fabs(opt)));
        ck_assert_double_eq_tol(jnum(p, "ref_error"), fabs(f - opt) / fmax(1, fabs(opt)), 1e-15);
        ck_assert_msg(jnum(p, "iterations") >= 1 && jnum(p, "prim_res") >= 0 &&
                      jnum(p, "dual_res") >= 0 && jnum(p, "solve_time") >= 0, "%s: fields", mm_some[k].name);
    }
    /* HS21: n = 2, one constraint row and two bound rows; its file's NAME */
    const jv *hs21 = jproblem(&doc, "HS21");
    ck_assert_int_eq((int)jnum(hs21, "n"), 2);
    ck_assert_int_eq((int)jnum(hs21, "m"), 3);
    ck_assert_int_eq((int)jnum(hs21, "rows"), 1);
    ck_assert_int_eq((int)jnum(hs21, "bound_rows"), 2);
    ck_assert_str_eq(jstr(hs21, "qps_name"), "HS21");
    ck_assert_str_eq(jstr(hs21, "sense"), "min");
    const jv *sum = jget(&doc, "summary");
    ck_assert_int_eq((int)jnum(sum, "total"), 5);
    ck_assert_int_eq((int)jnum(sum, "solved"), 5);
    ck_assert_int_eq((int)jnum(sum, "reference_ok"), 5);
    ck_assert_msg(jnum(sum, "qps_per_second") > 0, "qps_per_second");
    jv_free(&doc);
    run_free(&r);

    /* the table: a line per QP and the summary */
    r = RUN("solve", MM "HS21.QPS", MM "TAME.QPS", "--backend", "host");
    EXPECT_CODE(r, 0);
    ck_assert_msg(has(r.out, "name") && has(r.out, "objective") && has(r.out, "prim_res") &&
                  has(r.out, "HS21 ") && has(r.out, "TAME ") && has(r.out, "-9.99600") &&
                  has(r.out, "solved 2 of 2 QPs") && has(r.out, "QPs/s") && has(r.out, "device: host"),
                  "table:\n%s", r.out);
    ck_assert_msg(r.err[0] == 0, "stderr not quiet: %s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(objective_sense_max)
{
    /* maximize 5 + 2x1 + 4x2 − x1² − x2² s.t. x1 + x2 ≤ 2: the tool reports the maximum 9.5 */
    run_result r = RUN("solve", CLI "max_sense.qps", "--eps", "1e-8", "--backend", "host", "--json");
    EXPECT_CODE(r, 0);
    jv doc;
    parse_report(&r, &doc);
    const jv *p = jproblem(&doc, "max_sense");
    ck_assert_str_eq(jstr(p, "sense"), "max");
    ck_assert_double_eq_tol(jnum(p, "objective"), 9.5, 1e-6);
    jv_free(&doc);
    run_free(&r);
}
END_TEST

START_TEST(generated_batches)
{
    /* two families in one batch; names unique; sizes as the generators document */
    run_result r = RUN("solve", "--generate", "mpc:4x6", "--generate", "portfolio:2x3", "--seed", "11",
                       "--backend", "host", "--json");
    EXPECT_CODE(r, 0);
    jv doc;
    parse_report(&r, &doc);
    const jv *ps = jget(&doc, "problems");
    ck_assert_int_eq(ps->n, 9);
    for (int i = 0; i < ps->n; ++i) {
        const jv *p = &ps->kids[i];
        int ctl = i < 6;
        ck_assert_int_eq((int)jnum(p, "n"), ctl ? 16 * 4 : 101 * 2);
        ck_assert_int_eq((int)jnum(p, "m"), ctl ? 27 * 4 : 101 * 2 + 1);
        ck_assert_str_eq(jstr(p, "status"), "solved");
        for (int j = 0; j < i; ++j)
            ck_assert_str_ne(jstr(p, "name"), jstr(&ps->kids[j], "name"));
    }
    ck_assert_str_eq(jstr(&ps->kids[0], "name"), "control_n4_s11");
    ck_assert_str_eq(jstr(&ps->kids[5], "name"), "control_n4_s16");
    ck_assert_str_eq(jstr(&ps->kids[6], "name"), "portfolio_n2_s11");
    double f0 = jnum(&ps->kids[0], "objective");
    jv_free(&doc);
    run_free(&r);

    /* the same QPs through files: generate writes them, solve DIR reads them back */
    char dir[300];
    snprintf(dir, sizeof dir, "%s/gen", g_tmp);
    r = RUN("generate", "mpc", "--size", "4", "--count", "6", "--seed", "11", "--out", dir);
    EXPECT_CODE(r, 0);
    ck_assert_msg(has(r.out, "/control_n4_s11.qps\n") && has(r.out, "/control_n4_s16.qps\n"), "%s", r.out);
    run_free(&r);
    r = RUN("solve", dir, "--backend", "host", "--json");
    EXPECT_CODE(r, 0);
    parse_report(&r, &doc);
    ps = jget(&doc, "problems");
    ck_assert_int_eq(ps->n, 6);
    const jv *p = jproblem(&doc, "control_n4_s11");
    ck_assert_msg(fabs(jnum(p, "objective") - f0) <= 1e-9 * fmax(1, fabs(f0)),
                  "objective from the file %.17g, generated %.17g", jnum(p, "objective"), f0);
    jv_free(&doc);
    run_free(&r);
    rm_tree(dir);

    /* one QP to stdout, as QPS */
    r = RUN("generate", "di", "--size", "5", "--out", "-");
    EXPECT_CODE(r, 0);
    ck_assert_msg(has(r.out, "\nNAME double_integrator_n5_s1\n") && has(r.out, "QUADOBJ") &&
                  has(r.out, "ENDATA"), "%.300s", r.out);
    run_free(&r);

    /* every family of the generators */
    const char *fams[] = {"random:3x2", "eq:4x2", "control:2x2", "portfolio:1x2", "lasso:1x2",
                          "huber:1x2", "svm:1x2", "double-integrator:8x2"};
    for (size_t k = 0; k < sizeof fams / sizeof fams[0]; ++k) {
        r = RUN("solve", "--generate", fams[k], "--backend", "host", "--summary");
        ck_assert_msg(r.code == 0 || r.code == 1, "%s: exit %d: %s", fams[k], r.code, r.err);
        ck_assert_msg(has(r.out, "of 2 QPs"), "%s: %s", fams[k], r.out);
        run_free(&r);
    }
}
END_TEST

START_TEST(csv_and_json_well_formed)
{
    /* names that need quoting in CSV and escaping in JSON */
    char dir[300], path[400];
    snprintf(dir, sizeof dir, "%s/odd", g_tmp);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/a,\"b\".qps", dir);
    char cmd[1000];
    snprintf(cmd, sizeof cmd, "cp '%sHS35.QPS' '%s'", MM, path);
    ck_assert_int_eq(system(cmd), 0);
    run_result r = RUN("solve", path, MM "HS21.QPS", MM "QPTEST.QPS", "--backend", "host", "--csv",
                       "--max-iter", "10");
    EXPECT_CODE(r, 1); /* 10 iterations are not enough for all of them */
    static char fields[CSV_MAXREC][CSV_MAXF][256];
    int nf[CSV_MAXREC];
    int nrec = csv_parse(r.out, fields, nf);
    ck_assert_int_eq(nrec, 4);
    for (int i = 0; i < nrec; ++i) ck_assert_int_eq(nf[i], nf[0]);
    ck_assert_str_eq(fields[0][0], "name");
    ck_assert_str_eq(fields[0][6], "objective");
    ck_assert_str_eq(fields[1][0], "a,\"b\"");
    ck_assert_str_eq(fields[2][0], "HS21");
    for (int i = 1; i < nrec; ++i) {
        char *end;
        ck_assert_int_eq((int)strtol(fields[i][2], &end, 10) > 0, 1);           /* n */
        ck_assert_int_eq(*end, 0);
        ck_assert_int_eq((int)strtol(fields[i][5], &end, 10), atoi(fields[i][5])); /* status code */
        ck_assert_int_eq(*end, 0);
        strtod(fields[i][8], &end);                                             /* prim_res */
        ck_assert_int_eq(*end, 0);
    }
    run_free(&r);
    r = RUN("solve", path, MM "HS21.QPS", "--backend", "host", "--json", "--max-iter", "10");
    EXPECT_CODE(r, 1);
    jv doc;
    parse_report(&r, &doc);
    ck_assert_msg(jget(&doc, "problems")->n == 2, "two problems");
    jproblem(&doc, "a,\"b\"");
    jv_free(&doc);
    run_free(&r);
    /* -o: the report to a file, the summary on stdout */
    snprintf(path, sizeof path, "%s/report.json", g_tmp);
    r = RUN("solve", MM "HS21.QPS", "--backend", "host", "--json", "-o", path);
    EXPECT_CODE(r, 0);
    ck_assert_msg(has(r.out, "solved 1 of 1 QPs"), "stdout: %s", r.out);
    char *text = slurp(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(json_parse(text, &doc) == 0, "%s is not JSON", path);
    jv_free(&doc);
    free(text);
    run_free(&r);
    rm_tree(dir);
}
END_TEST

START_TEST(solution_files)
{
    const char *names[] = {"HS21", "QPCBLEND", "max_sense"};
    char dir[300], dir2[300];
    snprintf(dir, sizeof dir, "%s/sol", g_tmp);
    snprintf(dir2, sizeof dir2, "%s/sol2", g_tmp);
    run_result r = RUN("solve", MM "HS21.QPS", MM "QPCBLEND.QPS", CLI "max_sense.qps", "--eps", "1e-6",
                       "--backend", "host", "--json", "--solution-dir", dir);
    EXPECT_CODE(r, 0);
    jv doc;
    parse_report(&r, &doc);
    for (int k = 0; k < 3; ++k) {
        char qps[400], sol[400], status[64];
        snprintf(qps, sizeof qps, "%s%s.%s", k < 2 ? MM : CLI, names[k], k < 2 ? "QPS" : "qps");
        snprintf(sol, sizeof sol, "%s/%s.sol", dir, names[k]);
        gala_qp_problem pb;
        gala_qps_info info;
        ck_assert_int_eq(gala_qp_read_qps_ex(qps, 0, &pb, &info), GALA_OK);
        double *x = malloc(sizeof(double) * (size_t)pb.n);
        ck_assert_msg(read_sol_x(sol, pb.n, x, status, sizeof status) == 0, "%s: no x", sol);
        ck_assert_str_eq(status, "solved");
        /* the objective at the file's x, in the file's sense, is the reported one */
        double f = info.objective_sense * objective(&pb, x);
        double rep = jnum(jproblem(&doc, names[k]), "objective");
        ck_assert_msg(fabs(f - rep) <= 1e-9 * fmax(1, fabs(rep)), "%s: objective at x %.17g, reported %.17g",
                      names[k], f, rep);
        free(x);
        gala_qp_problem_free(&pb);
    }
    int cold[3];
    for (int k = 0; k < 3; ++k) cold[k] = (int)jnum(jproblem(&doc, names[k]), "iterations");
    jv_free(&doc);
    run_free(&r);

    /* warm start from those files: every QP stops at the first check */
    r = RUN("solve", MM "HS21.QPS", MM "QPCBLEND.QPS", CLI "max_sense.qps", "--eps", "1e-6",
            "--backend", "host", "--json", "--warm-start", dir, "--solution-dir", dir2);
    EXPECT_CODE(r, 0);
    parse_report(&r, &doc);
    for (int k = 0; k < 3; ++k) {
        int warm = (int)jnum(jproblem(&doc, names[k]), "iterations");
        ck_assert_msg(warm == 25 && warm < cold[k], "%s: %d iterations warm, %d cold", names[k], warm, cold[k]);
    }
    jv_free(&doc);
    run_free(&r);
    /* a solution file of the wrong size is an input error */
    r = RUN("solve", MM "HS35.QPS", "--backend", "host", "--warm-start", dir);
    EXPECT_CODE(r, 0); /* no HS35.sol there: a warning, a cold start */
    ck_assert_msg(has(r.err, "no solution file matched"), "stderr: %s", r.err);
    run_free(&r);
    char from[400], to[400];
    snprintf(from, sizeof from, "%s/HS21.sol", dir);
    snprintf(to, sizeof to, "%s/HS35.sol", dir);
    ck_assert_int_eq(rename(from, to), 0);
    r = RUN("solve", MM "HS35.QPS", "--backend", "host", "--warm-start", dir);
    EXPECT_CODE(r, 2);
    ck_assert_msg(has(r.err, "HS35.sol: sizes n = 2, m = 3 do not match"), "stderr: %s", r.err);
    run_free(&r);
    rm_tree(dir);
    rm_tree(dir2);
}
END_TEST

START_TEST(statuses_and_exit_codes)
{
    /* not solved within the limit: exit 1, the status named */
    run_result r = RUN("solve", MM "QADLITTL.QPS", MM "HS21.QPS", "--max-iter", "50", "--backend", "host", "--json");
    EXPECT_CODE(r, 1);
    jv doc;
    parse_report(&r, &doc);
    const jv *p = jproblem(&doc, "QADLITTL");
    ck_assert_msg(strcmp(jstr(p, "status"), "solved") != 0, "QADLITTL solved in 50 iterations?");
    ck_assert_int_eq((int)jnum(p, "iterations"), 50);
    ck_assert_int_eq((int)jnum(jget(&doc, "summary"), "solved"), 1);
    jv_free(&doc);
    run_free(&r);
    /* too large for --max-n: skipped, reported, exit 1 */
    r = RUN("solve", MM "QBANDM.QPS", MM "HS21.QPS", "--max-n", "100", "--backend", "host", "--json");
    EXPECT_CODE(r, 1);
    parse_report(&r, &doc);
    p = jproblem(&doc, "QBANDM");
    ck_assert_str_eq(jstr(p, "status"), "skipped");
    ck_assert_msg(has(jstr(p, "message"), "n = 472 > --max-n 100"), "%s", jstr(p, "message"));
    ck_assert_str_eq(jstr(jproblem(&doc, "HS21"), "status"), "solved");
    jv_free(&doc);
    run_free(&r);
    /* primal infeasible: x1 ≥ 1 and x1 ≤ 0 */
    char path[400];
    snprintf(path, sizeof path, "%s/infeasible.qps", g_tmp);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("NAME INF\nROWS\n N OBJ\n G A\n L B\nCOLUMNS\n X OBJ 1 A 1\n X B 1\nRHS\n R A 1 B 0\n"
          "BOUNDS\n FR BD X\nQUADOBJ\n X X 1\nENDATA\n", f);
    fclose(f);
    r = RUN("solve", path, "--backend", "host", "--csv");
    EXPECT_CODE(r, 1);
    ck_assert_msg(has(r.out, ",primal infeasible,3,"), "%s", r.out);
    run_free(&r);
    /* the time limit */
    r = RUN("solve", MM "QSHARE1B.QPS", "--time-limit", "1e-6", "--max-iter", "100000", "--backend", "host", "--json");
    EXPECT_CODE(r, 1);
    parse_report(&r, &doc);
    ck_assert_str_eq(jstr(jproblem(&doc, "QSHARE1B"), "status"), "run time limit reached");
    jv_free(&doc);
    run_free(&r);
}
END_TEST

START_TEST(settings_reach_the_solver)
{
    /* a few settings whose effect is visible in the report */
    run_result r = RUN("solve", MM "HS21.QPS", "--backend", "host", "--json", "--precision", "float",
                       "--check-termination", "10", "--polish", "--rho", "0.5", "--adaptive-rho", "off",
                       "--linsys", "dense", "--max-iter", "1000");
    EXPECT_CODE(r, 0);
    jv doc;
    parse_report(&r, &doc);
    const jv *s = jget(&doc, "settings");
    ck_assert_str_eq(jstr(s, "precision"), "float");
    ck_assert_str_eq(jstr(s, "linsys"), "dense");
    ck_assert_str_eq(jstr(&doc, "linsys_used"), "dense");
    ck_assert_int_eq((int)jnum(s, "polishing"), 1);
    ck_assert_double_eq(jnum(s, "rho"), 0.5);
    const jv *p = jproblem(&doc, "HS21");
    ck_assert_int_eq((int)jnum(p, "iterations") % 10, 0); /* checks every 10 iterations */
    ck_assert_int_eq((int)jnum(p, "rho_updates"), 0);
    ck_assert_int_eq((int)jnum(p, "status_polish"), 1);
    ck_assert_double_eq_tol(jnum(p, "objective"), -99.96, 1e-6);
    jv_free(&doc);
    run_free(&r);
    /* auto precision: double on the host backend, which has it */
    r = RUN("solve", MM "HS21.QPS", "--backend", "host", "--json", "--precision", "auto");
    EXPECT_CODE(r, 0);
    parse_report(&r, &doc);
    ck_assert_str_eq(jstr(jget(&doc, "settings"), "precision"), "double");
    jv_free(&doc);
    run_free(&r);
    /* the PCG strategy and its settings */
    r = RUN("solve", MM "HS21.QPS", "--backend", "host", "--json", "--linsys", "pcg",
            "--cg-max-iter", "7", "--cg-tol-reduction", "3", "--cg-tol-fraction", "0.05");
    EXPECT_CODE(r, 0);
    parse_report(&r, &doc);
    s = jget(&doc, "settings");
    ck_assert_str_eq(jstr(s, "linsys"), "pcg");
    ck_assert_str_eq(jstr(&doc, "linsys_used"), "pcg");
    ck_assert_int_eq((int)jnum(s, "cg_max_iter"), 7);
    ck_assert_int_eq((int)jnum(s, "cg_tol_reduction"), 3);
    ck_assert_double_eq(jnum(s, "cg_tol_fraction"), 0.05);
    ck_assert_double_eq_tol(jnum(jproblem(&doc, "HS21"), "objective"), -99.96, 1e-3);
    jv_free(&doc);
    run_free(&r);
    /* --repeat: the batch set up and solved three times in the process, the same results;
     * QSHARE1B alone takes the sparse strategy on the host backend (AUTO, its sparsity) */
    r = RUN("solve", MM "QSHARE1B.QPS", "--backend", "host", "--json", "--repeat", "3",
            "--max-iter", "200");
    EXPECT_CODE(r, 1);
    parse_report(&r, &doc);
    ck_assert_str_eq(jstr(&doc, "linsys_used"), "sparse-ldlt");
    p = jproblem(&doc, "QSHARE1B");
    ck_assert_int_eq((int)jnum(p, "iterations"), 200);
    ck_assert_msg(jnum(jget(&doc, "summary"), "solve_time") > 0, "no solve time");
    jv_free(&doc);
    run_free(&r);
    r = RUN("solve", MM "HS21.QPS", "--repeat", "0");
    EXPECT_CODE(r, 2);
    ck_assert_msg(has(r.err, "--repeat: '0' is not an integer >= 1"), "%s", r.err);
    run_free(&r);
    /* dense-shared forced on problems that do not share P and A: the library's refusal */
    r = RUN("solve", MM "HS21.QPS", MM "HS35.QPS", "--backend", "host", "--linsys", "dense-shared");
    EXPECT_CODE(r, 2);
    ck_assert_msg(r.err[0] != 0, "no message");
    run_free(&r);
}
END_TEST

/* --max-chunk and --device-mem-limit (settings of the table): the batch is solved in chunks,
 * the report says how many, and every solution file is the unchunked run's, byte for byte. */
START_TEST(chunked_batches)
{
    const char *opts[3][2] = {{NULL, NULL}, {"--max-chunk", "7"}, {"--device-mem-limit", "3e5"}};
    char dir[3][300];
    jv doc[3];
    for (int v = 0; v < 3; ++v) {
        snprintf(dir[v], sizeof dir[v], "%s/sol%d", g_tmp, v);
        run_result r = v == 0 ? RUN("solve", "--generate", "mpc:3x40", "--generate", "random:4x9",
                                    "--backend", "host", "--json", "--solution-dir", dir[v])
                              : RUN("solve", "--generate", "mpc:3x40", "--generate", "random:4x9",
                                    "--backend", "host", "--json", "--solution-dir", dir[v],
                                    opts[v][0], opts[v][1]);
        EXPECT_CODE(r, 0);
        parse_report(&r, &doc[v]);
        run_free(&r);
    }
    ck_assert_int_eq((int)jnum(&doc[0], "chunks"), 1);
    ck_assert_int_eq((int)jnum(&doc[1], "chunks"), 7); /* 49 QPs, 7 a chunk */
    ck_assert_int_eq((int)jnum(jget(&doc[1], "settings"), "max_chunk"), 7);
    ck_assert_msg(jnum(&doc[2], "chunks") > 1, "a limit of 3e5 bytes: one chunk");
    ck_assert_double_eq(jnum(jget(&doc[2], "settings"), "device_mem_limit"), 3e5);
    const jv *ps = jget(&doc[0], "problems");
    ck_assert_int_eq(ps->n, 49);
    for (int i = 0; i < ps->n; ++i) {
        const char *name = jstr(&ps->kids[i], "name");
        char path[400];
        snprintf(path, sizeof path, "%s/%s.sol", dir[0], name);
        char *a = slurp(path);
        ck_assert_msg(a != NULL, "%s: no solution file", path);
        for (int v = 1; v < 3; ++v) {
            snprintf(path, sizeof path, "%s/%s.sol", dir[v], name);
            char *b = slurp(path);
            ck_assert_msg(b && !strcmp(a, b), "%s: %s differs from the unchunked run's", name, opts[v][0]);
            free(b);
        }
        free(a);
    }
    for (int v = 0; v < 3; ++v) {
        jv_free(&doc[v]);
        rm_tree(dir[v]);
    }
}
END_TEST

/* --devices: the batch divided among two contexts on the host device (an index repeated),
 * the report names each device's share, which add up to the batch, and every solution file
 * is the one-device run's, byte for byte; a bad list is a usage error naming it. */
START_TEST(several_devices)
{
    char dir[2][300];
    jv doc[2];
    for (int v = 0; v < 2; ++v) {
        snprintf(dir[v], sizeof dir[v], "%s/dev%d", g_tmp, v);
        run_result r = v == 0 ? RUN("solve", "--generate", "mpc:3x30", "--generate", "random:4x7",
                                    "--backend", "host", "--json", "--solution-dir", dir[v])
                              : RUN("solve", "--generate", "mpc:3x30", "--generate", "random:4x7",
                                    "--backend", "host", "--json", "--solution-dir", dir[v],
                                    "--devices", "0,0");
        EXPECT_CODE(r, 0);
        parse_report(&r, &doc[v]);
        run_free(&r);
    }
    ck_assert_msg(jget(&doc[0], "devices") == NULL, "one device: a devices list");
    const jv *ds = jget(&doc[1], "devices");
    ck_assert_msg(ds != NULL && ds->n == 2, "--devices 0,0: no list of two devices");
    const int q0 = (int)jnum(&ds->kids[0], "qps"), q1 = (int)jnum(&ds->kids[1], "qps");
    ck_assert_msg(q0 > 0 && q1 > 0 && q0 + q1 == 37, "shares %d + %d of 37 QPs", q0, q1);
    const jv *ps = jget(&doc[0], "problems");
    ck_assert_int_eq(ps->n, 37);
    for (int i = 0; i < ps->n; ++i) {
        const char *name = jstr(&ps->kids[i], "name");
        char pa[400], pb[400];
        snprintf(pa, sizeof pa, "%s/%s.sol", dir[0], name);
        snprintf(pb, sizeof pb, "%s/%s.sol", dir[1], name);
        char *a = slurp(pa), *b = slurp(pb);
        ck_assert_msg(a && b && !strcmp(a, b), "%s: differs from the one-device run's", name);
        free(a);
        free(b);
    }
    for (int v = 0; v < 2; ++v) {
        jv_free(&doc[v]);
        rm_tree(dir[v]);
    }
    run_result r = RUN("solve", "--generate", "mpc:2x3", "--backend", "host", "--summary",
                       "--devices", "0,0");
    EXPECT_CODE(r, 0);
    ck_assert_msg(strstr(r.out, "devices: 0 ") && strstr(r.out, "(2 QPs), 1 "), "summary: %s", r.out);
    run_free(&r);
    r = RUN("solve", "--generate", "mpc:2x3", "--backend", "host", "--devices", "0,x");
    EXPECT_CODE(r, 2);
    ck_assert_msg(strstr(r.err, "--devices: '0,x'"), "message: %s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(opencl_device)
{
#ifdef GALA_HAVE_OPENCL
    int count = 0, cl = 0;
    gala_device_list(NULL, 0, &count);
    gala_device_desc *d = calloc((size_t)(count ? count : 1), sizeof *d);
    gala_device_list(d, count, &count);
    for (int i = 0; i < count; ++i) cl += d[i].backend == GALA_BACKEND_OPENCL;
    free(d);
    if (!cl) return; /* no OpenCL device here */
    run_result r = RUN("solve", MM "HS21.QPS", MM "QAFIRO.QPS", MM "DUAL1.QPS", "--generate", "mpc:3x4",
                       "--eps", "1e-5", "--backend", "opencl", "--json");
    EXPECT_CODE(r, 0);
    jv doc;
    parse_report(&r, &doc);
    ck_assert_str_eq(jstr(&doc, "backend"), "opencl");
    ck_assert_double_eq_tol(jnum(jproblem(&doc, "HS21"), "objective"), -99.96, 1e-4 * 99.96);
    ck_assert_double_eq_tol(jnum(jproblem(&doc, "QAFIRO"), "objective"), -1.5907818, 1e-4);
    ck_assert_double_eq_tol(jnum(jproblem(&doc, "DUAL1"), "objective"), 3.5012966e-02, 1e-4);
    ck_assert_int_eq((int)jnum(jget(&doc, "summary"), "solved"), 7);
    jv_free(&doc);
    run_free(&r);
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_add_checked_fixture(tc, setup_tmp, teardown_tmp);
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, malformed_files);
    tcase_add_test(tc, maros_meszaros_json);
    tcase_add_test(tc, objective_sense_max);
    tcase_add_test(tc, generated_batches);
    tcase_add_test(tc, csv_and_json_well_formed);
    tcase_add_test(tc, solution_files);
    tcase_add_test(tc, statuses_and_exit_codes);
    tcase_add_test(tc, settings_reach_the_solver);
    tcase_add_test(tc, chunked_batches);
    tcase_add_test(tc, several_devices);
    tcase_add_test(tc, opencl_device);
    suite_add_tcase(s, tc);
    int rc = tu_run(s);
    tu_release();
    return rc;
}
