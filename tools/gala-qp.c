/*
 * gala-qp: solve QPs from QPS/MPS files or gala's generators as one batch, and write
 * generated QPs as QPS files. docs/gala-qp.md is the manual; `gala-qp --help` the summary.
 *
 *   gala-qp solve [OPTIONS] FILE.qps|DIR ... [--generate FAMILY:SIZExCOUNT ...]
 *   gala-qp generate FAMILY --size N --count K [--seed S] [--out DIR]
 *
 * Exit codes: 0 every QP solved; 1 some not solved; 2 usage or input error; 3 the device or
 * the library failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gqp.h"
#include "gqp_devices.h"

/* ================================================================== options */

typedef enum {
    K_SET,    /* a setting of the table GALA_QP_SETTINGS (qp_settings.h) */
    K_TOOL,   /* a tool option, handled by id */
    K_HEAD,   /* not an option: the heading of the next group in --help */
    K_TABLE   /* not an option: the table's settings with flag OSQP (id 1) or without (0) */
} opt_kind;

enum {
    T_HELP = 1, T_EPS, T_BACKEND, T_PLATFORM, T_DEVICE, T_JSON, T_CSV, T_OUTPUT, T_SUMMARY,
    T_QUIET, T_PROGRESS, T_NO_PROGRESS, T_SOLDIR, T_WARM, T_REF, T_REF_TOL, T_GENERATE,
    T_SEED, T_ALL_BOUND_ROWS, T_STRICT, T_MAX_N, T_SIZE, T_COUNT, T_OUT, T_VERSION, T_REPEAT,
    T_DEVICES
};

typedef struct {
    const char *name;  /* without the leading "--" */
    const char *arg;   /* metavariable, NULL for a switch */
    opt_kind kind;
    int id;            /* K_TOOL: T_*; K_SET: the setting's index; K_TABLE: 1 OSQP, 0 gala */
    const char *help;
    int cmd;           /* 1: solve, 2: generate, 3: both */
} optdef;

/* The tool's own options; K_TABLE rows stand for the settings of the table. */
static const optdef tool_opts[] = {
    /* ---- inputs ---- */
    {"inputs", NULL, K_HEAD, 0, NULL, 0},
    {"generate", "FAMILY:SIZExCOUNT", K_TOOL, T_GENERATE,
     "add COUNT generated QPs of a family (random, eq, control|mpc, portfolio, lasso, huber, svm, "
     "double-integrator|di) with size parameter SIZE, seeds SEED, SEED+1, ...; repeatable", 1},
    {"seed", "S", K_TOOL, T_SEED, "first seed of generated QPs (default 1)", 3},
    {"all-bound-rows", NULL, K_TOOL, T_ALL_BOUND_ROWS,
     "one row of A per variable, free ones included (OSQP's .mat form); default: only variables "
     "with a finite bound", 1},
    {"strict", NULL, K_TOOL, T_STRICT, "reader warnings (integer markers, ...) are errors", 1},
    {"reference", "FILE", K_TOOL, T_REF,
     "optimal values to compare with: lines 'NAME ... VALUE' (00README.QP of Maros-Meszaros)", 1},
    {"reference-tol", "X", K_TOOL, T_REF_TOL,
     "tolerance of the reference check, |f - ref| / max(1, |ref|) (default 1e-3)", 1},
    {"max-n", "N", K_TOOL, T_MAX_N,
     "skip QPs with more than N variables (dense K of n^2 values per QP; default 5000)", 1},
    /* ---- device ---- */
    {"device", NULL, K_HEAD, 0, NULL, 0},
    {"backend", "NAME", K_TOOL, T_BACKEND,
     "auto, opencl, cuda or host (default auto: a GPU, else the host backend; an OpenCL CPU "
     "device such as PoCL only with opencl; GALA_BACKEND)", 1},
    {"platform", "P", K_TOOL, T_PLATFORM, "OpenCL platform: index or part of its name", 1},
    {"device", "D", K_TOOL, T_DEVICE, "device: index or part of its name", 1},
    {"devices", "LIST", K_TOOL, T_DEVICES,
     "solve the batch on several devices at once, divided by work: 'all' (every device of the "
     "chosen device's backend and kind, GPU or not) or indices among the backend's devices as "
     "gala-info lists them, e.g. 0,1 (an index may repeat: two contexts on one device)", 1},
    /* ---- settings ---- */
    {"solver: OSQP's settings", NULL, K_HEAD, 0, NULL, 0},
    {"eps", "X", K_TOOL, T_EPS, "set both --eps-abs and --eps-rel", 1},
    {"warm-start", "DIR", K_TOOL, T_WARM,
     "start each QP from DIR/NAME.sol (written by --solution-dir) where present", 1},
    {NULL, NULL, K_TABLE, 1, NULL, 1},
    {"solver: gala's settings", NULL, K_HEAD, 0, NULL, 0},
    {NULL, NULL, K_TABLE, 0, NULL, 1},
    /* ---- output ---- */
    {"output", NULL, K_HEAD, 0, NULL, 0},
    {"json", NULL, K_TOOL, T_JSON, "report as JSON", 1},
    {"csv", NULL, K_TOOL, T_CSV, "report as CSV, one line per QP", 1},
    {"output", "FILE", K_TOOL, T_OUTPUT,
     "write the report to FILE (the summary still goes to stdout); also -o", 1},
    {"summary", NULL, K_TOOL, T_SUMMARY, "table format: only the summary, no line per QP", 1},
    {"repeat", "N", K_TOOL, T_REPEAT,
     "set up and solve the batch N times in this process and report the fastest run's times "
     "(a benchmark's best of N, caches and memory warm; the results are the last run's; "
     "default 1)", 1},
    {"solution-dir", "DIR", K_TOOL, T_SOLDIR, "write DIR/NAME.sol with x and y of every QP", 1},
    {"progress", NULL, K_TOOL, T_PROGRESS,
     "progress bar on stderr (default: when stderr is a terminal)", 1},
    {"no-progress", NULL, K_TOOL, T_NO_PROGRESS, "no progress bar", 1},
    {"quiet", NULL, K_TOOL, T_QUIET, "no warnings, no summary after -o; also -q", 3},
    /* ---- generate ---- */
    {"generate, and general", NULL, K_HEAD, 0, NULL, 0},
    {"size", "N", K_TOOL, T_SIZE, "size parameter of the family", 2},
    {"count", "K", K_TOOL, T_COUNT, "number of QPs (default 1)", 2},
    {"out", "DIR", K_TOOL, T_OUT, "directory to write into (default .; - : stdout, K = 1)", 2},
    {"help", NULL, K_TOOL, T_HELP, "this help; also -h", 3},
    {"version", NULL, K_TOOL, T_VERSION, "gala's version", 3},
};
#define NTOOL_OPTS (int)(sizeof tool_opts / sizeof tool_opts[0])

/* The options as --help lists them: tool_opts with each K_TABLE row replaced by the table's
 * settings of its group (built once by build_opts). Names and metavariables of settings live
 * in names[] (the field name with '-' for '_', or the table's cli name; "a|b|c" for enums). */
#define MAX_OPTS 160
static optdef opts[MAX_OPTS];
static int nopts;
static char names[MAX_OPTS][48], metas[MAX_OPTS][96];

/* "--precision auto": double where the device has it, else float (resolved once the device
 * is known); the one word an option has beyond its setting's choices. */
static int is_precision(const optdef *o)
{
    return o->kind == K_SET && !strcmp(o->name, "precision");
}

static void build_opts(void)
{
    nopts = 0;
    for (int i = 0; i < NTOOL_OPTS; ++i) {
        if (tool_opts[i].kind != K_TABLE) {
            opts[nopts++] = tool_opts[i];
            continue;
        }
        for (int k = 0; k < gala_qp_settings_count() && nopts < MAX_OPTS; ++k) {
            const gala_qp_setting_desc *d;
            gala_qp_settings_field(k, &d);
            if ((d->flags & GALA_QP_SETTING_NO_CLI) ||
                ((d->flags & GALA_QP_SETTING_OSQP) != 0) != (tool_opts[i].id == 1))
                continue;
            char *nm = names[nopts], *mv = metas[nopts];
            snprintf(nm, sizeof names[0], "%s", d->cli ? d->cli : d->name);
            for (char *c = nm; *c; ++c)
                if (*c == '_') *c = '-';
            mv[0] = 0;
            if (d->kind == GALA_QP_SETTING_ENUM) {
                size_t len = 0;
                for (int v = (int)d->lo; v <= (int)d->hi; ++v)
                    len += (size_t)snprintf(mv + len, sizeof metas[0] - len, "%s%s",
                                            v > (int)d->lo ? "|" : "", gala_qp_setting_choice(k, v));
                if (!strcmp(nm, "precision")) snprintf(mv + len, sizeof metas[0] - len, "|auto");
            } else if (d->kind != GALA_QP_SETTING_BOOL) {
                snprintf(mv, sizeof metas[0], "%s", d->kind == GALA_QP_SETTING_INT ? "N" : "X");
            }
            opts[nopts++] = (optdef){nm, mv[0] ? mv : NULL, K_SET, k, d->help, 1};
        }
    }
}

/* ================================================================== tool state */

typedef struct {
    int cmd;                 /* 1 solve, 2 generate */
    gala_qp_settings set;
    int precision_auto;      /* --precision auto: double where the device has it */
    const char *backend, *platform, *device;
    const char *devices;     /* --devices: "all" or indices */
    int format;              /* 0 table, 1 json, 2 csv */
    const char *output, *soldir, *warmdir, *ref, *out;
    double ref_tol;
    int summary, quiet, progress; /* progress: -1 auto */
    unsigned read_flags;
    long long seed;
    int max_n;
    int repeat;              /* set up and solve this many times, report the fastest */
    const char **inputs;     /* files and directories */
    int ninputs;
    const char **gens;       /* --generate specs */
    int ngens;
    const char *family;      /* generate */
    int size, count;
    int have_size;
    gqp_mpi mpi;             /* under mpirun: this rank (docs/scale.md) */
    int k0, k1;              /* solve: this rank's inputs (all of them in one process) */
} tool;

static const char *prog = "gala-qp";

static void err_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void warn_(const tool *t, const char *fmt, ...)
{
    if (t->quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: warning: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ================================================================== help */

/* The kind of the setting behind a K_SET option (0 for tool options). */
static int set_kind(const optdef *o)
{
    const gala_qp_setting_desc *d;
    return o->kind == K_SET && gala_qp_settings_field(o->id, &d) == GALA_OK ? d->kind : 0;
}

/* " (default V)" of a settings option, from the table's default. */
static void default_text(char *buf, size_t cap, const optdef *o)
{
    const gala_qp_setting_desc *d;
    buf[0] = 0;
    if (o->kind != K_SET || gala_qp_settings_field(o->id, &d) != GALA_OK) return;
    switch (d->kind) {
    case GALA_QP_SETTING_BOOL: snprintf(buf, cap, " (default %s)", d->def != 0 ? "on" : "off"); break;
    case GALA_QP_SETTING_ENUM: snprintf(buf, cap, " (default %s)", gala_qp_setting_choice(o->id, (int)d->def)); break;
    default: snprintf(buf, cap, " (default %g)", d->def); break;
    }
}

/* Print text from column 29 on, wrapped before column 100. */
static void wrapped(FILE *f, const char *text)
{
    const int indent = 29, width = 100;
    int col = indent;
    while (*text) {
        while (*text == ' ') ++text;
        size_t w = strcspn(text, " ");
        if (col > indent && col + 1 + (int)w > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            ++col;
        }
        fwrite(text, 1, w, f);
        col += (int)w;
        text += w;
    }
    fputc('\n', f);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gala-qp solve [OPTIONS] FILE.qps|DIR ... [--generate FAMILY:SIZExCOUNT ...]\n"
            "       gala-qp generate FAMILY --size N [--count K] [--seed S] [--out DIR]\n"
            "       gala-qp --help | --version\n\n"
            "solve: read QPS/MPS files (a directory: every *.qps and *.mps in it) and generated QPs,\n"
            "solve them all as one batch with gala's ADMM solver (OSQP's algorithm) and report.\n"
            "generate: write generated QPs as QPS files FAMILY_nSIZE_sSEED.qps.\n"
            "Exit status: 0 all QPs solved, 1 some not solved, 2 usage or input error,\n"
            "3 device or library failure.\n");
    for (int i = 0; i < nopts; ++i) {
        const optdef *o = &opts[i];
        if (o->kind == K_HEAD) {
            fprintf(f, "\n%s:\n", o->name);
            continue;
        }
        char lhs[96];
        if (set_kind(o) == GALA_QP_SETTING_BOOL) snprintf(lhs, sizeof lhs, "--[no-]%s", o->name);
        else snprintf(lhs, sizeof lhs, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        if (strlen(lhs) > 26) fprintf(f, "  %s\n  %-26s ", lhs, "");
        else fprintf(f, "  %-26s ", lhs);
        char text[512], def[64];
        default_text(def, sizeof def, o);
        snprintf(text, sizeof text, "%s%s", o->help, def);
        wrapped(f, text);
    }
    fprintf(f, "\nExamples:\n"
               "  gala-qp solve tests/data/maros_meszaros/ --eps 1e-5 --max-iter 10000 \\\n"
               "      --reference tests/data/maros_meszaros/00README.QP\n"
               "  gala-qp solve --generate mpc:10x1000 --summary\n"
               "  gala-qp solve HS21.QPS --json --solution-dir sol/\n"
               "  gala-qp generate portfolio --size 5 --count 10 --seed 7 --out qps/\n"
               "Manual: docs/gala-qp.md. Environment: GALA_BACKEND, GALA_PLATFORM, GALA_DEVICE,\n"
               "GALA_HOST_THREADS (the host backend's threads), GALA_CACHE_DIR (compiled kernels),\n"
               "GALA_BUILD_THREADS (threads compiling kernels at a first call).\n");
}

/* ================================================================== parsing */

static int parse_dbl(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && errno != ERANGE && isfinite(*v);
}

static int parse_int(const char *s, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || x < INT_MIN || x > INT_MAX) return 0;
    *v = (int)x;
    return 1;
}

static int parse_ll(const char *s, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE) return 0;
    *v = x;
    return 1;
}

/* An integer option of at least min into *v; GQP_EXIT_USAGE (message printed) otherwise. */
static int int_at_least(const optdef *o, const char *val, int *v, int min)
{
    if (parse_int(val, v) && *v >= min) return 0;
    err_("--%s: '%s' is not an integer >= %d", o->name, val, min);
    return GQP_EXIT_USAGE;
}

static const optdef *find_opt(const char *name, size_t len, int *negated)
{
    *negated = 0;
    for (int i = 0; i < nopts; ++i)
        if (opts[i].kind != K_HEAD && strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len))
            return &opts[i];
    if (len > 3 && !strncmp(name, "no-", 3))
        for (int i = 0; i < nopts; ++i)
            if (set_kind(&opts[i]) == GALA_QP_SETTING_BOOL && strlen(opts[i].name) == len - 3 &&
                !strncmp(opts[i].name, name + 3, len - 3)) {
                *negated = 1;
                return &opts[i];
            }
    return NULL;
}

static int push(const char ***v, int *n, const char *s)
{
    const char **nv = realloc(*v, (size_t)(*n + 1) * sizeof *nv);
    if (!nv) return -1;
    nv[(*n)++] = s;
    *v = nv;
    return 0;
}

/* Apply one option with its value (NULL for switches). Returns 0, or GQP_EXIT_USAGE. */
static int apply(tool *t, const optdef *o, int negated, const char *val)
{
    double d;
    if (!(o->cmd & t->cmd)) {
        err_("--%s is not an option of '%s' (try --help)", o->name, t->cmd == 1 ? "solve" : "generate");
        return GQP_EXIT_USAGE;
    }
    if (o->kind == K_SET) {
        const gala_qp_setting_desc *sd;
        gala_qp_settings_field(o->id, &sd);
        if (sd->kind == GALA_QP_SETTING_BOOL) {
            d = !negated;
        } else if (sd->kind == GALA_QP_SETTING_ENUM) {
            if (is_precision(o) && !strcasecmp(val, "auto")) {
                t->precision_auto = 1;
                return 0;
            }
            int v = (int)sd->lo;
            while (v <= (int)sd->hi && strcasecmp(gala_qp_setting_choice(o->id, v), val)) ++v;
            if (v > (int)sd->hi) {
                err_("--%s: '%s' is not one of %s", o->name, val, o->arg);
                return GQP_EXIT_USAGE;
            }
            d = v;
            if (is_precision(o)) t->precision_auto = 0;
        } else if (!parse_dbl(val, &d)) {
            err_("--%s: '%s' is not a finite number", o->name, val);
            return GQP_EXIT_USAGE;
        } else if (sd->kind == GALA_QP_SETTING_INT && (d != floor(d) || fabs(d) > INT_MAX)) {
            err_("--%s: '%s' is not an integer", o->name, val);
            return GQP_EXIT_USAGE;
        }
        if (gala_qp_settings_set(&t->set, o->id, d) != GALA_OK) { /* out of its range */
            err_("--%s: %s", o->name, gala_last_error(NULL));
            return GQP_EXIT_USAGE;
        }
        return 0;
    }
    switch (o->id) {
    case T_EPS:
        if (!parse_dbl(val, &d)) {
            err_("--eps: '%s' is not a finite number", val);
            return GQP_EXIT_USAGE;
        }
        t->set.eps_abs = t->set.eps_rel = d;
        break;
    case T_BACKEND:
        if (strcmp(val, "auto") && strcmp(val, "opencl") && strcmp(val, "cuda") && strcmp(val, "host")) {
            err_("--backend: '%s' is not one of auto, opencl, cuda, host", val);
            return GQP_EXIT_USAGE;
        }
        t->backend = val;
        break;
    case T_PLATFORM: t->platform = val; break;
    case T_DEVICE: t->device = val; break;
    case T_DEVICES: t->devices = val; break;
    case T_JSON: t->format = 1; break;
    case T_CSV: t->format = 2; break;
    case T_OUTPUT: t->output = val; break;
    case T_SUMMARY: t->summary = 1; break;
    case T_QUIET: t->quiet = 1; break;
    case T_PROGRESS: t->progress = 1; break;
    case T_NO_PROGRESS: t->progress = 0; break;
    case T_SOLDIR: t->soldir = val; break;
    case T_WARM: t->warmdir = val; break;
    case T_REF: t->ref = val; break;
    case T_REF_TOL:
        if (!parse_dbl(val, &t->ref_tol) || t->ref_tol < 0) {
            err_("--reference-tol: '%s' is not a number >= 0", val);
            return GQP_EXIT_USAGE;
        }
        break;
    case T_GENERATE:
        if (push(&t->gens, &t->ngens, val)) return GQP_EXIT_FAILURE;
        break;
    case T_SEED:
        if (!parse_ll(val, &t->seed) || t->seed < 0) {
            err_("--seed: '%s' is not an integer >= 0", val);
            return GQP_EXIT_USAGE;
        }
        break;
    case T_ALL_BOUND_ROWS: t->read_flags |= GALA_QPS_ALL_BOUND_ROWS; break;
    case T_STRICT: t->read_flags |= GALA_QPS_STRICT; break;
    case T_MAX_N:
        if (int_at_least(o, val, &t->max_n, 1)) return GQP_EXIT_USAGE;
        break;
    case T_REPEAT:
        if (int_at_least(o, val, &t->repeat, 1)) return GQP_EXIT_USAGE;
        break;
    case T_SIZE:
        if (int_at_least(o, val, &t->size, 1)) return GQP_EXIT_USAGE;
        t->have_size = 1;
        break;
    case T_COUNT:
        if (int_at_least(o, val, &t->count, 1)) return GQP_EXIT_USAGE;
        break;
    case T_OUT: t->out = val; break;
    default: break;
    }
    return 0;
}

/* Parse argv[first..]: options anywhere, "--" ends them. Returns 0, -1 (help or version
 * printed: exit 0), or an exit code. */
static int parse_args(tool *t, int argc, char **argv, int first)
{
    int only_args = 0;
    for (int i = first; i < argc; ++i) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || !strcmp(a, "-")) {
            if (t->cmd == 2 && !t->family) t->family = a;
            else if (t->cmd == 2) {
                err_("generate: unexpected argument '%s' (one FAMILY only)", a);
                return GQP_EXIT_USAGE;
            } else if (push(&t->inputs, &t->ninputs, a)) {
                return GQP_EXIT_FAILURE;
            }
            continue;
        }
        if (!strcmp(a, "--")) {
            only_args = 1;
            continue;
        }
        const optdef *o = NULL;
        int negated = 0;
        const char *val = NULL;
        if (!strcmp(a, "-h")) o = find_opt("help", 4, &negated);
        else if (!strcmp(a, "-q")) o = find_opt("quiet", 5, &negated);
        else if (!strcmp(a, "-o")) o = find_opt("output", 6, &negated);
        else if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            o = find_opt(a + 2, len, &negated);
            if (eq) val = eq + 1;
        }
        if (!o) {
            err_("unknown option '%s' (try --help)", a);
            return GQP_EXIT_USAGE;
        }
        if (o->id == T_HELP && o->kind == K_TOOL) {
            usage(stdout);
            return -1;
        }
        if (o->id == T_VERSION && o->kind == K_TOOL) {
            printf("gala-qp (gala %s)\n", gala_version());
            return -1;
        }
        int takes = o->arg != NULL;
        if (takes && !val) {
            if (i + 1 >= argc) {
                err_("%s needs a value (%s)", a, o->arg);
                return GQP_EXIT_USAGE;
            }
            val = argv[++i];
        } else if (!takes && val) {
            err_("--%s takes no value", o->name);
            return GQP_EXIT_USAGE;
        }
        int rc = apply(t, o, negated, val);
        if (rc) return rc;
    }
    return 0;
}

/* ================================================================== families */

static const struct {
    const char *name;
    gala_qp_family family;
} families[] = {
    {"random", GALA_QP_GEN_RANDOM},       {"eq", GALA_QP_GEN_EQUALITY},
    {"equality", GALA_QP_GEN_EQUALITY},   {"control", GALA_QP_GEN_CONTROL},
    {"mpc", GALA_QP_GEN_CONTROL},         {"portfolio", GALA_QP_GEN_PORTFOLIO},
    {"lasso", GALA_QP_GEN_LASSO},         {"huber", GALA_QP_GEN_HUBER},
    {"svm", GALA_QP_GEN_SVM},             {"double-integrator", GALA_QP_GEN_DOUBLE_INTEGRATOR},
    {"double_integrator", GALA_QP_GEN_DOUBLE_INTEGRATOR}, {"di", GALA_QP_GEN_DOUBLE_INTEGRATOR},
};

static int find_family(const char *s, size_t len, gala_qp_family *f)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i)
        if (strlen(families[i].name) == len && !strncasecmp(families[i].name, s, len)) {
            *f = families[i].family;
            return 1;
        }
    return 0;
}

/* FAMILY_nSIZE_sSEED for every family (the double integrator's own name has no seed). */
static void gen_name(gala_qp_problem *pb, gala_qp_family fam, int size, unsigned long long seed)
{
    snprintf(pb->name, sizeof pb->name, "%s_n%d_s%llu", gala_qp_family_name(fam), size, seed);
}

/* "FAMILY:SIZExCOUNT" (x, X or ×); COUNT may be omitted (1). */
static int parse_gen_spec(const char *spec, gala_qp_family *f, int *size, int *count)
{
    const char *colon = strchr(spec, ':');
    if (!colon || !find_family(spec, (size_t)(colon - spec), f)) return 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", colon + 1);
    char *x = strpbrk(buf, "xX");
    char *times = strstr(buf, "\xc3\x97"); /* × in UTF-8 */
    const char *cnt = "1";
    if (times && (!x || times < x)) {
        *times = 0;
        cnt = times + 2;
    } else if (x) {
        *x = 0;
        cnt = x + 1;
    }
    return parse_int(buf, size) && *size >= 1 && parse_int(cnt, count) && *count >= 1;
}

/* ================================================================== progress, SIGINT */

static volatile sig_atomic_t g_interrupted = 0;

static void on_sigint(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

typedef struct {
    int enabled;
    double t0;    /* start of the phase shown */
    double delay; /* draw only after this many seconds (quick runs show no bar) */
    double last;
    int drawn;
} progress_state;

static void draw_bar(progress_state *p, const char *what, int done, int total, const char *extra)
{
    double now = gqp_now();
    if (!p->enabled || now - p->t0 < p->delay || (now - p->last < 0.1 && done < total)) return;
    p->last = now;
    int w = 30, fill = total > 0 ? (int)((long long)w * done / total) : 0;
    char bar[64];
    for (int i = 0; i < w; ++i) bar[i] = i < fill ? '#' : '.';
    bar[w] = 0;
    fprintf(stderr, "\r%s [%s] %d/%d%s %.1f s\033[K", what, bar, done, total, extra, now - p->t0);
    fflush(stderr);
    p->drawn = 1;
}

static void clear_bar(progress_state *p)
{
    if (p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->drawn = 0;
}

static int on_progress(void *user, int done, int total, int iteration)
{
    progress_state *p = user;
    char extra[48];
    snprintf(extra, sizeof extra, " QPs done, iteration %d,", iteration);
    draw_bar(p, "solving", done, total, extra);
    return g_interrupted ? 1 : 0;
}

/* ================================================================== inputs */

typedef struct {
    gqp_item *v;
    int n, cap;
} item_list;

static gqp_item *new_item(item_list *l)
{
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 64;
        gqp_item *nv = realloc(l->v, (size_t)nc * sizeof *nv);
        if (!nv) return NULL;
        l->v = nv;
        l->cap = nc;
    }
    gqp_item *it = &l->v[l->n++];
    memset(it, 0, sizeof *it);
    it->sense = 1;
    it->batch_index = -1;
    return it;
}

static void free_items(item_list *l)
{
    for (int k = 0; k < l->n; ++k) {
        free(l->v[k].source);
        gala_qp_problem_free(&l->v[k].pb);
    }
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Display name of a file: its base name without the extension. */
static void stem(const char *path, char *out, size_t cap)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, cap, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = 0;
}

/* Make names unique (NAME, NAME~2, ...): they name the solution files. Sorting keeps this
 * O(n log n) for batches of 10^5 generated QPs; a renamed one may clash again (a file named
 * X~2), hence the rounds. */
static const gqp_item *g_sort_items;

static int cmp_name_idx(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    int c = strcmp(g_sort_items[i].name, g_sort_items[j].name);
    return c ? c : (i > j) - (i < j);
}

static int unique_names(item_list *l)
{
    int *ix = malloc(sizeof(int) * (size_t)(l->n ? l->n : 1));
    if (!ix) return -1;
    for (int round = 0; round < 8; ++round) {
        for (int k = 0; k < l->n; ++k) ix[k] = k;
        g_sort_items = l->v;
        qsort(ix, (size_t)l->n, sizeof *ix, cmp_name_idx);
        int changed = 0;
        for (int k = 1, run = 1; k < l->n; ++k) {
            gqp_item *it = &l->v[ix[k]];
            if (strcmp(it->name, l->v[ix[k - run]].name) != 0) {
                run = 1;
                continue;
            }
            char base[81];
            snprintf(base, sizeof base, "%.80s", it->name);
            snprintf(it->name, sizeof it->name, "%s~%d", base, ++run);
            changed = 1;
        }
        if (!changed) break;
    }
    free(ix);
    return 0;
}

/* Read one file. Returns 0, GQP_EXIT_USAGE (parse or I/O error, printed) or GQP_EXIT_FAILURE. */
static int read_one(const tool *t, item_list *l, const char *path)
{
    gqp_item *it = new_item(l);
    if (!it || !(it->source = dupstr(path))) {
        if (it) l->n--;
        err_("out of memory");
        return GQP_EXIT_FAILURE;
    }
    gala_qps_info qi;
    gala_status s = gala_qp_read_qps_ex(path, t->read_flags, &it->pb, &qi);
    if (s != GALA_OK) {
        /* the reader's message starts with PATH:LINE:COLUMN for parse errors */
        const char *msg = gala_last_error(NULL);
        if (s == GALA_ERR_PARSE || !strncmp(msg, path, strlen(path))) err_("%s", msg);
        else err_("%s: %s", path, msg);
        free(it->source);
        l->n--;
        return s == GALA_ERR_OUT_OF_MEMORY ? GQP_EXIT_FAILURE : GQP_EXIT_USAGE;
    }
    it->sense = qi.objective_sense < 0 ? -1 : 1;
    it->rows = qi.rows;
    it->bound_rows = qi.bound_rows;
    stem(path, it->name, sizeof it->name);
    if (qi.warning_count)
        warn_(t, "%s:%ld: %s (%d warning%s in this file)", path, qi.first_warning_line,
              qi.first_warning, qi.warning_count, qi.warning_count > 1 ? "s" : "");
    return 0;
}

static int collect_inputs(tool *t, item_list *l, progress_state *pg)
{
    /* expand directories first, so that the progress bar knows the total */
    const char **files = NULL;
    char **owned = NULL;
    int nfiles = 0, nowned = 0, rc = 0;
    for (int i = 0; i < t->ninputs && !rc; ++i) {
        struct stat st;
        if (stat(t->inputs[i], &st) != 0) {
            err_("%s: %s", t->inputs[i], strerror(errno));
            rc = GQP_EXIT_USAGE;
        } else if (S_ISDIR(st.st_mode)) {
            char **list = NULL, msg[512];
            int n = gqp_list_dir(t->inputs[i], &list, msg, sizeof msg);
            if (n < 0) {
                err_("%s", msg);
                rc = GQP_EXIT_USAGE;
            } else if (n == 0) {
                err_("%s: no .qps or .mps files in this directory", t->inputs[i]);
                rc = GQP_EXIT_USAGE;
            }
            for (int k = 0; k < n; ++k) {
                char **no = realloc(owned, (size_t)(nowned + 1) * sizeof *no);
                if (no) owned = no;
                if (!no || push(&files, &nfiles, list[k])) {
                    for (int j = k; j < n; ++j) free(list[j]);
                    rc = GQP_EXIT_FAILURE;
                    break;
                }
                owned[nowned++] = list[k];
            }
            free(list);
        } else if (push(&files, &nfiles, t->inputs[i])) {
            rc = GQP_EXIT_FAILURE;
        }
    }
    /* under MPI, this rank's share of the inputs (files, then generated QPs, in order) */
    long long total = nfiles;
    for (int g = 0; g < t->ngens; ++g) {
        gala_qp_family fam;
        int size, count;
        if (parse_gen_spec(t->gens[g], &fam, &size, &count)) total += count;
    }
    if (!rc && total > INT_MAX) {
        err_("solve: %lld QPs: at most %d in one run", total, INT_MAX);
        rc = GQP_EXIT_USAGE;
    }
    t->k0 = 0;
    t->k1 = (int)total;
    if (!rc) gqp_mpi_share(&t->mpi, (int)total, &t->k0, &t->k1);
    /* read them all (this rank's), reporting every bad file before giving up */
    int bad = 0;
    for (int i = 0; i < nfiles && !rc; ++i) {
        if (i < t->k0 || i >= t->k1) { /* another rank's: its name only */
            gqp_item *it = new_item(l);
            if (!it || !(it->source = dupstr(files[i]))) {
                if (it) l->n--;
                err_("out of memory");
                rc = GQP_EXIT_FAILURE;
                break;
            }
            it->remote = 1;
            stem(files[i], it->name, sizeof it->name);
            continue;
        }
        draw_bar(pg, "reading", i, nfiles, " files,");
        int r = read_one(t, l, files[i]);
        if (r == GQP_EXIT_FAILURE) rc = r;
        else if (r) bad++;
    }
    clear_bar(pg);
    if (!rc && bad) {
        if (bad > 1) err_("%d files could not be read", bad);
        rc = GQP_EXIT_USAGE;
    }
    for (int i = 0; i < nowned; ++i) free(owned[i]);
    free(owned);
    free(files);
    if (rc) return rc;
    /* generated QPs */
    for (int g = 0; g < t->ngens; ++g) {
        gala_qp_family fam;
        int size, count;
        if (!parse_gen_spec(t->gens[g], &fam, &size, &count)) {
            err_("--generate '%s': expected FAMILY:SIZExCOUNT with FAMILY one of random, eq, "
                 "control, mpc, portfolio, lasso, huber, svm, double-integrator (e.g. mpc:10x1000)",
                 t->gens[g]);
            return GQP_EXIT_USAGE;
        }
        for (int k = 0; k < count; ++k) {
            draw_bar(pg, "generating", k, count, " QPs,");
            const int index = l->n; /* in the inputs' order */
            gqp_item *it = new_item(l);
            if (!it) return GQP_EXIT_FAILURE;
            unsigned long long seed = (unsigned long long)t->seed + (unsigned long long)k;
            if (index < t->k0 || index >= t->k1) { /* another rank's: its name only */
                char src[128];
                snprintf(src, sizeof src, "generated: %s size %d seed %llu",
                         gala_qp_family_name(fam), size, seed);
                if (!(it->source = dupstr(src))) return GQP_EXIT_FAILURE;
                it->remote = 1;
                gen_name(&it->pb, fam, size, seed);
                snprintf(it->name, sizeof it->name, "%s", it->pb.name);
                continue;
            }
            gala_status s = gala_qp_generate(fam, size, seed, &it->pb);
            if (s != GALA_OK) {
                l->n--;
                clear_bar(pg);
                err_("--generate '%s': %s", t->gens[g], gala_last_error(NULL));
                return s == GALA_ERR_INVALID_ARG ? GQP_EXIT_USAGE : GQP_EXIT_FAILURE;
            }
            char src[128];
            snprintf(src, sizeof src, "generated: %s size %d seed %llu", gala_qp_family_name(fam),
                     size, seed);
            if (!(it->source = dupstr(src))) return GQP_EXIT_FAILURE;
            gen_name(&it->pb, fam, size, seed);
            snprintf(it->name, sizeof it->name, "%s", it->pb.name);
            it->rows = it->pb.m;
        }
        clear_bar(pg);
    }
    if (l->n == 0) {
        err_("solve: no QPs given (files, directories or --generate; try --help)");
        return GQP_EXIT_USAGE;
    }
    if (unique_names(l)) return GQP_EXIT_FAILURE;
    return 0;
}

/* ================================================================== solve */

static gala_context *open_context(const tool *t, int *rc)
{
    gala_context_options co;
    gala_context_options_default(&co);
    if (t->backend || t->platform || t->device) co.use_environment = 0;
    if (t->backend) {
        if (!strcmp(t->backend, "opencl")) co.backend = GALA_BACKEND_OPENCL;
        else if (!strcmp(t->backend, "cuda")) co.backend = GALA_BACKEND_CUDA;
        else if (!strcmp(t->backend, "host")) co.backend = GALA_BACKEND_HOST;
    }
    co.platform = t->platform;
    co.device = t->device;
    gala_context *ctx = NULL;
    gala_status s = gala_context_create(&co, &ctx);
    /* under MPI without --device: the ranks of a node take its devices in turn (the host
     * backend: its cores shared among them) */
    if (s == GALA_OK && t->mpi.local_size > 1 && !t->device) {
        gala_device_info di;
        gala_context_info(ctx, &di);
        if (di.backend == GALA_BACKEND_HOST) {
            long cores = sysconf(_SC_NPROCESSORS_ONLN);
            co.host_threads = cores > t->mpi.local_size ? (int)(cores / t->mpi.local_size) : 1;
            co.backend = di.backend;
            co.use_environment = 0;
            gala_context_destroy(ctx);
            ctx = NULL;
            s = gala_context_create(&co, &ctx);
        } else {
            int nb = 0, same = 0; /* the devices of ctx's platform, first in all[] */
            gala_device_desc *all = gqp_backend_devices(di.backend, &nb);
            for (int i = 0; all && i < nb; ++i)
                if (!strcmp(all[i].platform_name, di.platform_name)) all[same++] = all[i];
            if (same > 1) {
                gala_context_destroy(ctx);
                ctx = NULL;
                s = gqp_context_on(&all[t->mpi.local_rank % same], 0, &ctx);
            }
            free(all);
        }
    }
    if (s != GALA_OK) {
        err_("no device: %s", gala_last_error(NULL));
        *rc = s == GALA_ERR_INVALID_ARG || s == GALA_ERR_NO_DEVICE || s == GALA_ERR_NOT_SUPPORTED
                  ? GQP_EXIT_USAGE
                  : GQP_EXIT_FAILURE;
        return NULL;
    }
    return ctx;
}

/* --devices: a context on each device of the list, of ctx's backend ("all": every device of
 * it of ctx's kind, GPU or not), into ctxs (at most GQP_MAX_DEVICES); their count, or 0
 * after an error (*rc set). */
static int open_devices(const tool *t, gala_context *ctx, gala_context **ctxs, int *rc)
{
    gala_device_info di;
    gala_context_info(ctx, &di);
    int nb = 0; /* the backend's devices */
    gala_device_desc *all = gqp_backend_devices(di.backend, &nb);
    if (!all) {
        err_("--devices: the devices cannot be listed: %s", gala_last_error(NULL));
        *rc = GQP_EXIT_FAILURE;
        return 0;
    }
    int pick[GQP_MAX_DEVICES];
    const int n = gqp_pick_devices(t->devices, all, nb, di.is_gpu, pick, GQP_MAX_DEVICES);
    if (n < 0) {
        err_("--devices: '%s' is not 'all' or a list of indices 0..%d (%s devices; at "
             "most %d)", t->devices, nb - 1, di.backend_name, GQP_MAX_DEVICES);
        free(all);
        *rc = GQP_EXIT_USAGE;
        return 0;
    }
    if (n == 0) {
        err_("--devices %s: no %s device", t->devices, di.backend_name);
        free(all);
        *rc = GQP_EXIT_USAGE;
        return 0;
    }
    for (int d = 0; d < n; ++d) {
        if (gqp_context_on(&all[pick[d]], 0, &ctxs[d]) != GALA_OK) {
            err_("--devices: device %d (%s): %s", pick[d], all[pick[d]].device_name,
                 gala_last_error(NULL));
            for (int e = 0; e < d; ++e) gala_context_destroy(ctxs[e]);
            free(all);
            *rc = GQP_EXIT_FAILURE;
            return 0;
        }
    }
    free(all);
    return n;
}

static int write_report(const tool *t, const gqp_run *run)
{
    FILE *f = stdout;
    if (t->output && !(f = fopen(t->output, "w"))) {
        err_("%s: cannot write: %s", t->output, strerror(errno));
        return GQP_EXIT_USAGE;
    }
    if (t->format == 1) gqp_report_json(f, run);
    else if (t->format == 2) gqp_report_csv(f, run);
    else {
        gqp_report_table(f, run, !t->summary);
        gqp_report_summary(f, run);
    }
    int bad = ferror(f);
    if (f != stdout && fclose(f) != 0) bad = 1;
    if (bad) {
        err_("%s: write error", t->output ? t->output : "stdout");
        return GQP_EXIT_FAILURE;
    }
    if (t->output && !t->quiet) { /* the report went to a file: the summary to the terminal */
        if (t->format == 0 && !t->summary) gqp_report_summary(stdout, run);
        else if (t->format != 0) gqp_report_summary(stdout, run);
    }
    return 0;
}

static int warm_start(const tool *t, gala_qp_solver *sv, item_list *l)
{
    int used = 0;
    for (int k = 0; k < l->n; ++k) {
        gqp_item *it = &l->v[k];
        if (it->batch_index < 0) continue;
        char path[4096], msg[512];
        snprintf(path, sizeof path, "%s/%s.sol", t->warmdir, it->name);
        double *x = malloc(sizeof(double) * (size_t)it->pb.n);
        double *y = malloc(sizeof(double) * (size_t)(it->pb.m ? it->pb.m : 1));
        int r = x && y ? gqp_read_solution(path, it->pb.n, it->pb.m, x, y, msg, sizeof msg) : -2;
        if (r == 1) {
            int finite = 1;
            for (int i = 0; i < it->pb.n && finite; ++i) finite = isfinite(x[i]);
            for (int i = 0; i < it->pb.m && finite; ++i) finite = isfinite(y[i]);
            if (finite && gala_qp_warm_start(sv, it->batch_index, x, y) == GALA_OK) used++;
            else warn_(t, "%s: not used for a warm start (no finite solution)", path);
        }
        free(x);
        free(y);
        if (r == -2) return GQP_EXIT_FAILURE;
        if (r < 0) {
            err_("%s", msg);
            return GQP_EXIT_USAGE;
        }
    }
    if (!used) warn_(t, "--warm-start %s: no solution file matched a QP", t->warmdir);
    return 0;
}

static int cmd_solve(tool *t)
{
    item_list l = {0};
    gala_context *ctx = NULL, *ctxs[GQP_MAX_DEVICES];
    int nctx = 0; /* --devices: ctxs[0 .. nctx - 1], ctx is ctxs[0] */
    gala_qp_solver *sv = NULL;
    gala_qp_problem *batch = NULL;
    const int root = t->mpi.rank == 0; /* the rank that reports (the only one without MPI) */
    progress_state pg = {0};
    pg.enabled = root && (t->progress < 0 ? isatty(2) : t->progress);
    pg.t0 = gqp_now();
    pg.delay = 0.5;
    gqp_run run;
    memset(&run, 0, sizeof run);
    run.settings = t->set;
    run.linsys = -1;
    run.ref_tol = t->ref_tol;
    run.ranks = t->mpi.size;

    /* Under MPI every phase ends with the ranks agreeing on the worst exit code, so that a
     * rank's failure (which it reports) stops them all at the same point. */
    double t0 = gqp_now();
    int rc = collect_inputs(t, &l, &pg);
    run.read_time = gqp_mpi_max(&t->mpi, gqp_now() - t0);
    run.items = l.v;
    run.count = l.n;
    if (!rc && t->ref) {
        char msg[512];
        int matched = gqp_read_reference(t->ref, l.v, l.n, msg, sizeof msg);
        if (matched < 0) {
            err_("%s", msg);
            rc = GQP_EXIT_USAGE;
        }
        run.with_ref = 1;
    }
    if ((rc = gqp_mpi_agree(&t->mpi, rc)) != 0) goto done;
    if (t->ref) { /* QPs without a reference value, over all ranks (each matches its own) */
        long long missing = 0;
        for (int k = 0; k < l.n; ++k) missing += !l.v[k].remote && !l.v[k].has_ref;
        missing = gqp_mpi_sum(&t->mpi, missing);
        if (missing && root)
            warn_(t, "%s: no reference value for %lld of %d QPs", t->ref, missing, l.n);
    }
    if (t->devices && t->mpi.size > 1) { /* each rank would open the same devices */
        err_("--devices with MPI: every rank would use the same devices; give each rank its "
             "own (the node-local rank picks it without --device / --devices; docs/scale.md)");
        rc = GQP_EXIT_USAGE;
    } else if ((ctx = open_context(t, &rc)) != NULL && t->devices) {
        if ((nctx = open_devices(t, ctx, ctxs, &rc)) > 0) {
            gala_context_destroy(ctx);
            ctx = ctxs[0];
        } else {
            gala_context_destroy(ctx);
            ctx = NULL;
        }
    }
    if (ctx) {
        gala_device_info di;
        gala_context_info(ctx, &di);
        snprintf(run.device, sizeof run.device, "%s: %s / %s", di.backend_name, di.platform_name,
                 di.device_name);
        for (int d = 1; d < nctx; ++d) { /* double only where every device has it */
            gala_device_info dd;
            gala_context_info(ctxs[d], &dd);
            if (!dd.fp64) di.fp64 = 0;
        }
        if (t->mpi.size > 1) {
            size_t used = strlen(run.device);
            snprintf(run.device + used, sizeof run.device - used, " (rank 0 of %d MPI ranks)",
                     t->mpi.size);
        }
        snprintf(run.backend, sizeof run.backend, "%s", di.backend_name);
        if (t->precision_auto) {
            t->set.dtype = di.fp64 ? GALA_DOUBLE : GALA_FLOAT;
            run.settings.dtype = t->set.dtype;
        }
        if (t->set.dtype == GALA_DOUBLE && !di.fp64) {
            err_("%s has no double precision: use --precision float", run.device);
            rc = GQP_EXIT_USAGE;
        }
    }
    if ((rc = gqp_mpi_agree(&t->mpi, rc)) != 0) goto done;

    /* the batch (this rank's QPs): every QP small enough for the dense strategies (all of
     * them with --linsys sparse-ldlt or pcg, whose cost follows the sparsity, not n²) */
    batch = malloc(sizeof *batch * (size_t)(l.n ? l.n : 1));
    if (!batch) {
        err_("out of memory");
        rc = GQP_EXIT_FAILURE;
    }
    int nb = 0;
    for (int k = 0; k < l.n && batch; ++k) {
        gqp_item *it = &l.v[k];
        if (it->remote) continue;
        if (it->pb.n > t->max_n && t->set.linsys_solver != GALA_QP_LINSYS_SPARSE_LDLT &&
            t->set.linsys_solver != GALA_QP_LINSYS_PCG) {
            it->info.status = GQP_STATUS_SKIPPED;
            snprintf(it->skip_reason, sizeof it->skip_reason,
                     "n = %d > --max-n %d: too large for the dense strategies "
                     "(--linsys sparse-ldlt or pcg takes it)", it->pb.n, t->max_n);
            continue;
        }
        it->batch_index = nb;
        batch[nb++] = it->pb;
    }
    double su_best = 0, so_best = 0;
    if (nb > 0 && !rc) {
        gala_qp_settings s = t->set;
        s.progress = on_progress; /* draws the bar when enabled, and honours SIGINT */
        s.progress_user = &pg;
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C kills as usual */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old);
        if (pg.enabled) {
            fprintf(stderr, "\rsetting up %d QPs\033[K", nb);
            fflush(stderr);
            pg.drawn = 1;
        }
        gala_status st = GALA_OK;
        /* --repeat: the same batch set up and solved again, the fastest run's times kept */
        for (int rep = 0; rep < t->repeat && st == GALA_OK && !rc && !g_interrupted; ++rep) {
            gala_qp_destroy(sv);
            sv = NULL;
            double t1 = gqp_now(), su, so = 0;
            st = nctx ? gala_qp_setup_devices(ctxs, nctx, NULL, batch, nb, &s, &sv)
                      : gala_qp_setup(ctx, batch, nb, &s, &sv);
            su = gqp_now() - t1;
            if (st == GALA_OK && t->warmdir) rc = warm_start(t, sv, &l);
            if (st == GALA_OK && !rc) {
                pg.t0 = gqp_now();
                pg.delay = 0; /* the bar may appear at once: "setting up" was on the screen */
                double t2 = gqp_now();
                st = gala_qp_solve(sv);
                so = gqp_now() - t2;
            }
            if (rep == 0 || su + so < su_best + so_best) {
                su_best = su;
                so_best = so;
            }
        }
        clear_bar(&pg);
        sigaction(SIGINT, &old, NULL);
        if (!rc && st != GALA_OK) {
            err_("%s", gala_last_error(ctx));
            rc = st == GALA_ERR_INVALID_ARG || st == GALA_ERR_NOT_SUPPORTED ? GQP_EXIT_USAGE
                                                                           : GQP_EXIT_FAILURE;
        }
        if (!rc) {
            run.linsys = gala_qp_linsys_used(sv);
            run.chunks = gala_qp_chunk_count(sv);
            run.ndev = nctx > 1 ? nctx : 0;
            for (int d = 0; d < run.ndev; ++d) {
                gala_device_info dd;
                gala_context_info(ctxs[d], &dd);
                snprintf(run.dev_name[d], sizeof run.dev_name[d], "%s", dd.device_name);
                gala_qp_device_share(sv, d, NULL, &run.dev_qps[d], NULL);
            }
            for (int k = 0; k < l.n; ++k) {
                gqp_item *it = &l.v[k];
                if (it->batch_index < 0) continue;
                gala_qp_get_info(sv, it->batch_index, &it->info);
                if (gala_qp_get_solution(sv, it->batch_index, &it->x, &it->y, &it->prim_cert,
                                         &it->dual_cert) != GALA_OK)
                    it->x = it->y = it->prim_cert = it->dual_cert = NULL;
            }
        }
    }
    if ((rc = gqp_mpi_agree(&t->mpi, rc)) != 0) goto done;
    /* the slowest rank's times; the strategy of the rank that used the highest; every chunk */
    run.setup_time = gqp_mpi_max(&t->mpi, su_best);
    run.solve_time = gqp_mpi_max(&t->mpi, so_best);
    run.interrupted = gqp_mpi_agree(&t->mpi, g_interrupted != 0);
    run.linsys = gqp_mpi_agree(&t->mpi, run.linsys);
    run.chunks = (int)gqp_mpi_sum(&t->mpi, run.chunks);
    {
        char msg[512];
        if (gqp_mpi_gather(&t->mpi, &run, t->k0, t->k1, sv, batch, msg, sizeof msg) != 0) {
            err_("%s", msg);
            rc = GQP_EXIT_FAILURE;
        }
    }
    if ((rc = gqp_mpi_agree(&t->mpi, rc)) != 0 || !root) goto done;
    if (t->soldir) {
        char msg[512];
        if (gqp_write_solutions(t->soldir, &run, msg, sizeof msg) != 0) {
            err_("%s", msg);
            rc = GQP_EXIT_USAGE;
            goto done;
        }
    }
    if ((rc = write_report(t, &run)) != 0) goto done;
    rc = GQP_EXIT_OK;
    for (int k = 0; k < l.n; ++k)
        if (!gqp_is_solved(&l.v[k])) rc = GQP_EXIT_UNSOLVED;
done:
    /* every rank leaves with rank 0's verdict */
    if (t->mpi.size > 1) rc = gqp_mpi_bcast_rc(&t->mpi, rc);
    gala_qp_destroy(sv);
    free(batch);
    free(run.gathered);
    gala_context_destroy(ctx);
    for (int d = 1; d < nctx; ++d) gala_context_destroy(ctxs[d]);
    free_items(&l);
    return rc;
}

/* ================================================================== generate */

static int cmd_generate(tool *t)
{
    gala_qp_family fam;
    if (!t->family || !find_family(t->family, strlen(t->family), &fam)) {
        if (t->family) err_("generate: unknown family '%s'", t->family);
        else err_("generate: no FAMILY given");
        fprintf(stderr, "%s: families: random, eq, control (mpc), portfolio, lasso, huber, svm, "
                        "double-integrator (di)\n", prog);
        return GQP_EXIT_USAGE;
    }
    if (!t->have_size) {
        err_("generate: --size N is required");
        return GQP_EXIT_USAGE;
    }
    const char *out = t->out ? t->out : ".";
    int to_stdout = !strcmp(out, "-");
    if (to_stdout && t->count != 1) {
        err_("generate: --out - writes one QP to stdout; --count must be 1");
        return GQP_EXIT_USAGE;
    }
    if (!to_stdout) {
        struct stat st;
        if (stat(out, &st) != 0 && mkdir(out, 0777) != 0) {
            err_("%s: cannot create directory: %s", out, strerror(errno));
            return GQP_EXIT_USAGE;
        } else if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode)) {
            err_("%s: not a directory", out);
            return GQP_EXIT_USAGE;
        }
    }
    progress_state pg = {0};
    pg.enabled = t->progress < 0 ? isatty(2) : t->progress;
    pg.t0 = gqp_now();
    pg.delay = 0.5;
    for (int k = 0; k < t->count; ++k) {
        draw_bar(&pg, "writing", k, t->count, " files,");
        gala_qp_problem pb;
        unsigned long long seed = (unsigned long long)t->seed + (unsigned long long)k;
        gala_status s = gala_qp_generate(fam, t->size, seed, &pb);
        if (s != GALA_OK) {
            clear_bar(&pg);
            err_("generate: %s", gala_last_error(NULL));
            return s == GALA_ERR_INVALID_ARG ? GQP_EXIT_USAGE : GQP_EXIT_FAILURE;
        }
        gen_name(&pb, fam, t->size, seed);
        if (to_stdout) {
            s = gala_qp_write_qps_stream(stdout, &pb);
        } else {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.qps", out, pb.name);
            s = gala_qp_write_qps(path, &pb);
            if (s == GALA_OK) printf("%s\n", path);
        }
        gala_qp_problem_free(&pb);
        if (s != GALA_OK) {
            clear_bar(&pg);
            err_("generate: %s", gala_last_error(NULL));
            return s == GALA_ERR_IO ? GQP_EXIT_USAGE : GQP_EXIT_FAILURE;
        }
    }
    clear_bar(&pg);
    return fflush(stdout) == 0 ? GQP_EXIT_OK : GQP_EXIT_FAILURE;
}

/* ================================================================== main */

int main(int argc, char **argv)
{
    tool t;
    memset(&t, 0, sizeof t);
    gala_qp_settings_default(&t.set);
    build_opts();
    t.progress = -1;
    t.seed = 1;
    t.count = 1;
    t.max_n = 5000;
    t.repeat = 1;
    t.ref_tol = 1e-3;
    if (argc < 2) {
        usage(stderr);
        return GQP_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return GQP_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("gala-qp (gala %s)\n", gala_version());
        return GQP_EXIT_OK;
    }
    if (!strcmp(cmd, "solve")) t.cmd = 1;
    else if (!strcmp(cmd, "generate")) t.cmd = 2;
    else {
        err_("unknown command '%s': expected solve or generate (try --help)", cmd);
        return GQP_EXIT_USAGE;
    }
    int rc = parse_args(&t, argc, argv, 2);
    if (rc == 0 && t.cmd == 1) { /* under mpirun: one share of the QPs per rank */
        gqp_mpi_init(&argc, &argv, &t.mpi);
        static char named[48];
        if (t.mpi.size > 1) {
            snprintf(named, sizeof named, "gala-qp[rank %d]", t.mpi.rank);
            prog = named;
        }
        rc = cmd_solve(&t);
        gqp_mpi_finalize(&t.mpi);
    } else if (rc == 0) {
        rc = cmd_generate(&t);
    } else if (rc < 0) {
        rc = GQP_EXIT_OK;
    }
    free(t.inputs);
    free(t.gens);
    return rc;
}
