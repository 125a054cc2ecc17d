/*
 * QPS / MPS reader (qps.h): fixed and free MPS with the quadratic-objective extensions of
 * the Maros–Meszaros set and of the CPLEX, Gurobi and MOSEK writers. docs/qps.md describes
 * the syntax and the conventions; this file follows it.
 *
 * Structure: the input is read line by line (any line end: LF, CRLF, CR). A line starting
 * in column 1 is a section header; a line starting with a blank is data for the current
 * section. Each data line is first read as free MPS (fields separated by blanks); if that
 * fails, it is read again by the fixed-MPS columns (which allow names with blanks), and the
 * error of the reading that got further is reported. Every section handler first resolves
 * a line into a small struct without side effects (so a failed reading leaves no trace),
 * then applies it. Names go to hash tables; matrix entries are collected as triplets and
 * sorted into CSC at the end, where duplicates are found.
 *
 * Memory grows with the input only: every row, column and entry needs its own bytes of
 * input, and lines, names and numbers have fixed maximum lengths.
 */
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gala/qps.h"

#define QPS_MAX_LINE 8191   /* bytes of one line, line end excluded */
#define QPS_MAX_NAME 255    /* bytes of one name */
#define QPS_MAX_NUMBER 127  /* bytes of one number */
#define QPS_MAX_FIELDS 7    /* fields kept per line (more is always an error) */
#define QPS_INF 1e20        /* |v| >= QPS_INF means infinite */
#define QPS_MAX_COUNT (INT_MAX / 2) /* rows, columns, entries */

/* ---------------------------------------------------------------- small helpers */

/* Host allocations of the reader honour the "alloc" fault injection (internal.h), so the
 * tests can make each one fail in turn and check that no error path leaks. */
static void *q_malloc(size_t n) { return gala_fault_hit(GALA_FAULT_ALLOC) ? NULL : gala_malloc(n); }
static void *q_calloc(size_t n, size_t size)
{
    return gala_fault_hit(GALA_FAULT_ALLOC) ? NULL : gala_calloc(n, size);
}
static void *q_realloc(void *p, size_t n)
{
    return gala_fault_hit(GALA_FAULT_ALLOC) ? NULL : gala_realloc(p, n);
}

typedef struct {
    const char *s; /* not NUL-terminated */
    int len;
    int col; /* 1-based column of the first byte */
} field;

static int is_blank(char c) { return c == ' ' || c == '\t'; }

static char upper_ascii(char c) { return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c; }

/* Case-insensitive (ASCII) comparison of a field with a keyword. */
static int kw_eq(const field *f, const char *kw)
{
    size_t n = strlen(kw);
    if ((size_t)f->len != n) return 0;
    for (size_t k = 0; k < n; ++k)
        if (upper_ascii(f->s[k]) != kw[k]) return 0;
    return 1;
}

/* Name for messages: at most 60 bytes, then "...". */
#define NAME_FMT "'%.*s%s'"
#define NAME_ARG(p, n) ((n) > 60 ? 60 : (int)(n)), (p), ((n) > 60 ? "..." : "")
#define FIELD_ARG(f) NAME_ARG((f).s, (f).len)

/* Split a line into blank-separated fields; returns the number of fields (only the first
 * QPS_MAX_FIELDS are stored). */
static int tokenize(const char *s, int n, field *f)
{
    int count = 0, i = 0;
    while (i < n) {
        while (i < n && is_blank(s[i])) ++i;
        if (i >= n) break;
        int start = i;
        while (i < n && !is_blank(s[i])) ++i;
        if (count < QPS_MAX_FIELDS) {
            f[count].s = s + start;
            f[count].len = i - start;
            f[count].col = start + 1;
        }
        ++count;
    }
    return count;
}

/* Fixed-MPS layout: fields at 1-based inclusive columns [a, b] (b = 0: to the end of the
 * line); every column outside the fields must be blank. */
typedef struct {
    int nf;
    int a[6], b[6];
} layout;

/* The classic layout: field 1 columns 2-3, field 2 5-12, field 3 15-22, field 4 25-36,
 * field 5 40-47, field 6 50-61. Numbers may start one column early and run three late
 * (writers are loose there); names keep their exact columns. */
static const layout L_ROWS = {2, {2, 5}, {3, 12}};
static const layout L_ENTRY = {5, {5, 15, 24, 40, 49}, {12, 22, 39, 47, 0}}; /* COLUMNS RHS RANGES */
static const layout L_BOUNDS = {4, {2, 5, 15, 24}, {3, 12, 22, 39}};
static const layout L_QUAD = {3, {5, 15, 24}, {12, 22, 39}};

/* Cut a line by a fixed layout. Returns the number of fields up to the last non-empty one,
 * or -1 when the line does not fit the layout (text between fields, or a tab). */
static int fixed_fields(const char *s, int n, const layout *L, field *f)
{
    if (memchr(s, '\t', (size_t)n)) return -1;
    int pos = 0, last = 0;
    for (int k = 0; k < L->nf; ++k) {
        int a = L->a[k] - 1, b = L->b[k] ? L->b[k] - 1 : n - 1;
        for (int i = pos; i < a && i < n; ++i)
            if (s[i] != ' ') return -1;
        int lo = a, hi = b < n - 1 ? b : n - 1; /* inclusive */
        while (lo <= hi && s[lo] == ' ') ++lo;
        while (hi >= lo && s[hi] == ' ') --hi;
        f[k].s = s + (lo < n ? lo : n);
        f[k].len = hi >= lo ? hi - lo + 1 : 0;
        f[k].col = (lo < n ? lo : a) + 1;
        if (f[k].len > 0) last = k + 1;
        pos = b + 1;
    }
    for (int i = pos; i < n; ++i)
        if (s[i] != ' ') return -1;
    return last;
}

/* Parse a number: optional sign, then "inf"/"infinity" or decimal digits with '.', and an
 * exponent introduced by e, E, d or D. Returns 1 and the value (±INFINITY for overflow or
 * inf), or 0. NaN and hexadecimal are refused. */
static int parse_number(const field *f, double *out)
{
    if (f->len <= 0 || f->len > QPS_MAX_NUMBER) return 0;
    char buf[QPS_MAX_NUMBER + 1];
    memcpy(buf, f->s, (size_t)f->len);
    buf[f->len] = '\0';
    const char *p = buf;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    field rest = {p, f->len - (int)(p - buf), 0};
    if (kw_eq(&rest, "INF") || kw_eq(&rest, "INFINITY")) {
        *out = neg ? -INFINITY : INFINITY;
        return 1;
    }
    char point = '.';
    const struct lconv *lc = localeconv();
    if (lc && lc->decimal_point && lc->decimal_point[0] && !lc->decimal_point[1])
        point = lc->decimal_point[0];
    int digits = 0;
    for (char *c = buf; *c; ++c) {
        if (*c >= '0' && *c <= '9') ++digits;
        else if (*c == 'd' || *c == 'D') *c = 'e';
        else if (*c == '.') *c = point;
        else if (*c != 'e' && *c != 'E' && *c != '+' && *c != '-') return 0;
    }
    if (!digits) return 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end != buf + f->len || isnan(v)) return 0;
    *out = v; /* overflow gives ±HUGE_VAL = ±inf: infinite, as |v| >= 1e20 */
    return 1;
}

static double inf_norm(double v)
{
    if (v >= QPS_INF) return INFINITY;
    if (v <= -QPS_INF) return -INFINITY;
    return v;
}

/* Grow an array to hold at least `need` elements (doubling). Returns 0 on overflow or OOM. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 1;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return 0;
        nc *= 2;
    }
    if (nc > SIZE_MAX / elem) return 0;
    void *q = q_realloc(*p, nc * elem);
    if (!q) return 0;
    *p = q;
    *cap = nc;
    return 1;
}

/* ---------------------------------------------------------------- name tables */

typedef struct {
    char *arena;
    size_t alen, acap;
    size_t *off;
    int *len;
    size_t ocap, lcap;
    int count;
    int *slot; /* open addressing, linear probing; -1 = empty */
    size_t nslot;
} ntab;

static size_t nt_hash(const char *s, int len)
{
    return (size_t)gala_fnv1a(s, (size_t)len, GALA_FNV_INIT);
}

static int nt_find(const ntab *t, const char *s, int len)
{
    if (!t->nslot) return -1;
    size_t mask = t->nslot - 1, h = nt_hash(s, len) & mask;
    for (;;) {
        int k = t->slot[h];
        if (k < 0) return -1;
        if (t->len[k] == len && memcmp(t->arena + t->off[k], s, (size_t)len) == 0) return k;
        h = (h + 1) & mask;
    }
}

static const char *nt_name(const ntab *t, int k) { return t->arena + t->off[k]; }

/* Add a name known to be absent; returns its index, or -1 without memory. */
static int nt_add(ntab *t, const char *s, int len)
{
    size_t need = (size_t)t->count + 1;
    if (!grow((void **)&t->off, &t->ocap, need, sizeof *t->off) ||
        !grow((void **)&t->len, &t->lcap, need, sizeof *t->len) ||
        !grow((void **)&t->arena, &t->acap, t->alen + (size_t)len + 1, 1))
        return -1;
    if (2 * need > t->nslot) { /* keep the load at most 1/2 */
        size_t ns = t->nslot ? 2 * t->nslot : 64;
        while (ns < 2 * need) ns *= 2;
        int *slot = q_malloc(ns * sizeof *slot);
        if (!slot) return -1;
        for (size_t i = 0; i < ns; ++i) slot[i] = -1;
        for (int k = 0; k < t->count; ++k) {
            size_t h = nt_hash(t->arena + t->off[k], t->len[k]) & (ns - 1);
            while (slot[h] >= 0) h = (h + 1) & (ns - 1);
            slot[h] = k;
        }
        gala_free(t->slot);
        t->slot = slot;
        t->nslot = ns;
    }
    int k = t->count++;
    t->off[k] = t->alen;
    t->len[k] = len;
    memcpy(t->arena + t->alen, s, (size_t)len);
    t->arena[t->alen + (size_t)len] = '\0';
    t->alen += (size_t)len + 1;
    size_t h = nt_hash(s, len) & (t->nslot - 1);
    while (t->slot[h] >= 0) h = (h + 1) & (t->nslot - 1);
    t->slot[h] = k;
    return k;
}

static void nt_free(ntab *t)
{
    gala_free(t->arena);
    gala_free(t->off);
    gala_free(t->len);
    gala_free(t->slot);
}

/* ---------------------------------------------------------------- reader state */

typedef struct {
    char type;  /* 'N', 'E', 'L', 'G' */
    int aidx;   /* row of A; -1 for N rows */
    double rhs, range;
    long rhs_line, range_line; /* 0: not given */
} rowinfo;

typedef struct {
    double q, lo, up;
    long q_line; /* 0: not given */
    unsigned char lo_set, up_set;
} colinfo;

typedef struct {
    int r, c;    /* row (rows-table index, or column for P) and column */
    int flag;    /* QMATRIX: 1 if given below the diagonal */
    int tcol;    /* text column of the value, for messages */
    long line;
    double v;
} trip;

enum { S_NONE, S_NAME, S_OBJSENSE, S_OBJNAME, S_ROWS, S_COLUMNS, S_RHS, S_RANGES, S_BOUNDS,
       S_QUAD };

enum { SEEN_NAME = 1, SEEN_OBJSENSE = 2, SEEN_OBJNAME = 4, SEEN_ROWS = 8, SEEN_COLUMNS = 16,
       SEEN_RHS = 32, SEEN_RANGES = 64, SEEN_BOUNDS = 128, SEEN_QUAD = 256 };

enum { SET_RHS, SET_RANGES, SET_BOUNDS };

typedef struct {
    const char *src;
    size_t len, pos;
    unsigned flags;
    long line;
    const char *ln;
    int lnlen;
    int eol_at_end; /* the last line read ended with a line end */

    int sec;
    unsigned seen;
    int sense, sense_given;
    char objname[QPS_MAX_NAME + 1];
    int objname_len; /* -1: no OBJNAME */
    long objname_line;
    int objname_found;

    ntab rows, cols;
    rowinfo *ri;
    size_t ricap;
    colinfo *ci;
    size_t cicap;
    int obj;    /* rows-table index of the objective row, -1 if none */
    int mc;     /* constraint rows */

    trip *at;   /* A entries */
    size_t nat, atcap;
    trip *qt;   /* quadratic entries */
    size_t nqt, qtcap;
    int quad_full; /* QMATRIX */

    int in_int; /* inside MARKER INTORG .. INTEND */
    long int_line;
    char setname[3][QPS_MAX_NAME + 1];
    int setlen[3]; /* -1: no set named yet */

    double c0;
    long c0_line;
    char name[64];

    gala_qps_info info;
    char msg[600];
    int depth; /* how far a failed reading got: 0 wrong shape, 1 content */
} rd;

__attribute__((format(printf, 5, 6)))
static gala_status perr_at(rd *r, long line, int col, int depth, const char *fmt, ...)
{
    va_list ap;
    int k = snprintf(r->msg, sizeof r->msg, "%ld:%d: ", line, col);
    if (k < 0 || (size_t)k >= sizeof r->msg) k = 0;
    va_start(ap, fmt);
    vsnprintf(r->msg + k, sizeof r->msg - (size_t)k, fmt, ap);
    va_end(ap);
    r->depth = depth;
    return GALA_ERR_PARSE;
}

#define PERR(r, col, ...) perr_at((r), (r)->line, (col), 1, __VA_ARGS__)
#define PSHAPE(r, col, ...) perr_at((r), (r)->line, (col), 0, __VA_ARGS__)

/* Counters of gala_qps_info saturate instead of overflowing on absurd inputs. */
static void bump(int *counter, int by)
{
    *counter = *counter > INT_MAX - by ? INT_MAX : *counter + by;
}

static gala_status oom(rd *r)
{
    snprintf(r->msg, sizeof r->msg, "%ld: out of memory", r->line);
    return GALA_ERR_OUT_OF_MEMORY;
}

__attribute__((format(printf, 5, 6)))
static gala_status warn(rd *r, long line, int col, unsigned bit, const char *fmt, ...)
{
    char text[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (r->flags & GALA_QPS_STRICT)
        return perr_at(r, line, col, 1, "%s (an error with GALA_QPS_STRICT)", text);
    r->info.warnings |= bit;
    bump(&r->info.warning_count, 1);
    if (!r->info.first_warning_line) {
        r->info.first_warning_line = line;
        snprintf(r->info.first_warning, sizeof r->info.first_warning, "%ld:%d: %.150s", line,
                 col, text);
    }
    return GALA_OK;
}

/* Read the next line into r->ln. Returns 1, or 0 at the end of input (*st GALA_OK) or on
 * an error (*st set). */
static int next_line(rd *r, gala_status *st)
{
    *st = GALA_OK;
    if (r->pos >= r->len) return 0;
    size_t start = r->pos, i = start;
    r->line++;
    while (i < r->len && r->src[i] != '\n' && r->src[i] != '\r') {
        unsigned char c = (unsigned char)r->src[i];
        if (i - start >= QPS_MAX_LINE) {
            *st = PERR(r, QPS_MAX_LINE + 1, "line longer than %d characters", QPS_MAX_LINE);
            return 0;
        }
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            *st = PERR(r, (int)(i - start) + 1, "binary data (byte 0x%02x): not a QPS/MPS text",
                       c);
            return 0;
        }
        ++i;
    }
    r->ln = r->src + start;
    r->lnlen = (int)(i - start);
    r->eol_at_end = i < r->len;
    if (i < r->len) i += (r->src[i] == '\r' && i + 1 < r->len && r->src[i + 1] == '\n') ? 2 : 1;
    r->pos = i;
    return 1;
}

/* ---------------------------------------------------------------- interpretations */

typedef gala_status (*resolve_fn)(rd *r, const field *f, int nf, int fixed, void *res);

/* Resolve the current line as free MPS, then, if that fails, by the fixed layout L. */
static gala_status interpret(rd *r, resolve_fn fn, const layout *L, void *res)
{
    field f[QPS_MAX_FIELDS];
    int nf = tokenize(r->ln, r->lnlen, f);
    gala_status s = fn(r, f, nf, 0, res);
    if (s != GALA_ERR_PARSE || !L) return s;
    char msg1[sizeof r->msg];
    memcpy(msg1, r->msg, sizeof msg1);
    int d1 = r->depth;
    field g[6];
    int ng = fixed_fields(r->ln, r->lnlen, L, g);
    if (ng < 0) return s;
    gala_status s2 = fn(r, g, ng, 1, res);
    if (s2 == GALA_OK) {
        bump(&r->info.fixed_lines, 1);
        return GALA_OK;
    }
    if (s2 == GALA_ERR_PARSE && r->depth > d1) return s2;
    memcpy(r->msg, msg1, sizeof msg1);
    r->depth = d1;
    return s2 == GALA_ERR_PARSE ? s : s2;
}

static gala_status check_name(rd *r, const field *f, const char *what)
{
    if (f->len == 0) return PERR(r, f->col, "missing %s name", what);
    if (f->len > QPS_MAX_NAME)
        return PERR(r, f->col, "%s name longer than %d characters", what, QPS_MAX_NAME);
    return GALA_OK;
}

static gala_status lookup_row(rd *r, const field *f, int *k)
{
    GALA_TRY(check_name(r, f, "row"));
    *k = nt_find(&r->rows, f->s, f->len);
    if (*k < 0) return PERR(r, f->col, "unknown row " NAME_FMT, FIELD_ARG(*f));
    return GALA_OK;
}

static gala_status lookup_col(rd *r, const field *f, int *k)
{
    GALA_TRY(check_name(r, f, "column"));
    *k = nt_find(&r->cols, f->s, f->len);
    if (*k < 0) return PERR(r, f->col, "unknown column " NAME_FMT, FIELD_ARG(*f));
    return GALA_OK;
}

static gala_status number(rd *r, const field *f, double *v)
{
    if (f->len == 0) return PERR(r, f->col, "missing number");
    if (!parse_number(f, v)) return PERR(r, f->col, "bad number " NAME_FMT, FIELD_ARG(*f));
    return GALA_OK;
}

/* A matrix or objective coefficient: finite and below 1e20 in magnitude. */
static gala_status coefficient(rd *r, const field *f, double *v)
{
    GALA_TRY(number(r, f, v));
    if (!(fabs(*v) < QPS_INF))
        return PERR(r, f->col, "coefficient %.*s is infinite (|v| >= 1e20)", f->len, f->s);
    return GALA_OK;
}

/* The set name of an RHS, RANGES or BOUNDS line: the first set named is read, the entries
 * of other sets are ignored. Returns 1 if the line belongs to the set read. */
static int in_set(rd *r, int which, const field *set)
{
    if (!set || set->len == 0) return 1;
    if (r->setlen[which] < 0) {
        int n = set->len > QPS_MAX_NAME ? QPS_MAX_NAME : set->len;
        memcpy(r->setname[which], set->s, (size_t)n);
        r->setlen[which] = n;
        return 1;
    }
    return set->len == r->setlen[which] &&
           memcmp(set->s, r->setname[which], (size_t)set->len) == 0;
}

/* ---------------------------------------------------------------- ROWS */

typedef struct {
    char type;
    field name;
} rows_res;

static gala_status resolve_rows(rd *r, const field *f, int nf, int fixed, void *vres)
{
    rows_res *res = vres;
    if (nf != 2)
        return PSHAPE(r, nf > 2 ? f[2].col : 1, "a ROWS line has 2 fields (type name), found %d",
                      nf);
    char t = f[0].len == 1 ? upper_ascii(f[0].s[0]) : '?';
    if (t != 'N' && t != 'E' && t != 'L' && t != 'G')
        return PERR(r, f[0].col, "unknown row type " NAME_FMT " (N, E, L or G)", FIELD_ARG(f[0]));
    GALA_TRY(check_name(r, &f[1], "row"));
    if (nt_find(&r->rows, f[1].s, f[1].len) >= 0)
        return PERR(r, f[1].col, "row " NAME_FMT " declared twice", FIELD_ARG(f[1]));
    res->type = t;
    res->name = f[1];
    (void)fixed;
    return GALA_OK;
}

static gala_status apply_rows(rd *r, const rows_res *res)
{
    if (r->rows.count >= QPS_MAX_COUNT) return PERR(r, 1, "too many rows");
    if (!grow((void **)&r->ri, &r->ricap, (size_t)r->rows.count + 1, sizeof *r->ri)) return oom(r);
    int k = nt_add(&r->rows, res->name.s, res->name.len);
    if (k < 0) return oom(r);
    rowinfo *ri = &r->ri[k];
    memset(ri, 0, sizeof *ri);
    ri->type = res->type;
    ri->aidx = -1;
    if (res->type != 'N') {
        ri->aidx = r->mc++;
        if (r->objname_len >= 0 && res->name.len == r->objname_len &&
            memcmp(res->name.s, r->objname, (size_t)r->objname_len) == 0)
            return PERR(r, res->name.col, "OBJNAME " NAME_FMT " (line %ld) is not an N row",
                        FIELD_ARG(res->name), r->objname_line);
        return GALA_OK;
    }
    int is_obj;
    if (r->objname_len >= 0)
        is_obj = res->name.len == r->objname_len &&
                 memcmp(res->name.s, r->objname, (size_t)r->objname_len) == 0;
    else
        is_obj = r->obj < 0;
    if (is_obj) {
        r->obj = k;
        return GALA_OK;
    }
    bump(&r->info.ignored_rows, 1);
    return warn(r, r->line, res->name.col, GALA_QPS_WARN_EXTRA_N_ROWS,
                "N row " NAME_FMT " is not the objective: ignored with its entries",
                FIELD_ARG(res->name));
}

/* ---------------------------------------------------------------- COLUMNS */

typedef struct {
    int marker; /* 0 entry line, 1 INTORG, 2 INTEND */
    field col;
    int ne;
    int row[2];
    double v[2];
    int vcol[2];
} cols_res;

static gala_status resolve_columns(rd *r, const field *f, int nf, int fixed, void *vres)
{
    cols_res *res = vres;
    memset(res, 0, sizeof *res);
    if (!fixed) { /* integer markers:  name 'MARKER' 'INTORG' | 'INTEND' */
        int kmark = -1;
        for (int k = 0; k < nf && k < QPS_MAX_FIELDS; ++k)
            if (kw_eq(&f[k], "'MARKER'")) kmark = k;
        if (kmark >= 0) {
            if (kmark + 2 != nf || nf > QPS_MAX_FIELDS)
                return PERR(r, f[kmark].col, "a MARKER line ends with 'INTORG' or 'INTEND'");
            if (kw_eq(&f[kmark + 1], "'INTORG'")) res->marker = 1;
            else if (kw_eq(&f[kmark + 1], "'INTEND'")) res->marker = 2;
            else
                return PERR(r, f[kmark + 1].col, "unknown marker " NAME_FMT
                            " ('INTORG' or 'INTEND')", FIELD_ARG(f[kmark + 1]));
            return GALA_OK;
        }
    }
    if (nf != 3 && nf != 5)
        return PSHAPE(r, nf > 5 ? f[5].col : 1,
                      "a COLUMNS line has 3 or 5 fields (column row value [row value]), found %d",
                      nf);
    GALA_TRY(check_name(r, &f[0], "column"));
    res->col = f[0];
    res->ne = (nf - 1) / 2;
    for (int e = 0; e < res->ne; ++e) {
        GALA_TRY(lookup_row(r, &f[1 + 2 * e], &res->row[e]));
        GALA_TRY(coefficient(r, &f[2 + 2 * e], &res->v[e]));
        res->vcol[e] = f[2 + 2 * e].col;
    }
    return GALA_OK;
}

static gala_status apply_columns(rd *r, const cols_res *res)
{
    if (res->marker == 1) {
        if (r->in_int) return PERR(r, 1, "'INTORG' inside another 'INTORG' block");
        r->in_int = 1;
        r->int_line = r->line;
        return warn(r, r->line, 1, GALA_QPS_WARN_INTEGER,
                    "integer marker: gala reads these variables as continuous");
    }
    if (res->marker == 2) {
        if (!r->in_int) return PERR(r, 1, "'INTEND' without 'INTORG'");
        r->in_int = 0;
        return GALA_OK;
    }
    int j = nt_find(&r->cols, res->col.s, res->col.len);
    if (j < 0) {
        if (r->cols.count >= QPS_MAX_COUNT) return PERR(r, res->col.col, "too many columns");
        if (!grow((void **)&r->ci, &r->cicap, (size_t)r->cols.count + 1, sizeof *r->ci))
            return oom(r);
        j = nt_add(&r->cols, res->col.s, res->col.len);
        if (j < 0) return oom(r);
        colinfo *c = &r->ci[j];
        memset(c, 0, sizeof *c);
        c->lo = 0;
        c->up = INFINITY;
        if (r->in_int) bump(&r->info.integer_columns, 1);
    }
    for (int e = 0; e < res->ne; ++e) {
        int k = res->row[e];
        rowinfo *ri = &r->ri[k];
        if (ri->type == 'N') {
            if (k != r->obj) {
                bump(&r->info.ignored_entries, 1);
                continue;
            }
            colinfo *c = &r->ci[j];
            if (c->q_line)
                return PERR(r, res->vcol[e], "objective coefficient of column " NAME_FMT
                            " given twice (first on line %ld)", FIELD_ARG(res->col), c->q_line);
            c->q = res->v[e];
            c->q_line = r->line;
            continue;
        }
        if (r->nat >= QPS_MAX_COUNT) return PERR(r, res->vcol[e], "too many matrix entries");
        if (!grow((void **)&r->at, &r->atcap, r->nat + 1, sizeof *r->at)) return oom(r);
        trip *t = &r->at[r->nat++];
        t->r = k;
        t->c = j;
        t->flag = 0;
        t->tcol = res->vcol[e];
        t->line = r->line;
        t->v = res->v[e];
    }
    return GALA_OK;
}

/* ---------------------------------------------------------------- RHS and RANGES */

typedef struct {
    field set;
    int has_set;
    int ne;
    int row[2];
    double v[2];
    int vcol[2];
} rhs_res;

static gala_status resolve_rhs(rd *r, const field *f, int nf, int fixed, void *vres)
{
    rhs_res *res = vres;
    memset(res, 0, sizeof *res);
    const char *sec = r->sec == S_RHS ? "an RHS" : "a RANGES";
    int first;
    if (fixed) {
        if (nf != 3 && nf != 5)
            return PSHAPE(r, 1, "%s line has the fields set row value [row value]", sec);
        res->set = f[0];
        res->has_set = f[0].len > 0;
        first = 1;
    } else {
        if (nf < 2 || nf > 5)
            return PSHAPE(r, nf > 5 ? f[5].col : 1,
                          "%s line has 2 to 5 fields ([set] row value [row value]), found %d",
                          sec, nf);
        res->has_set = nf % 2 == 1;
        if (res->has_set) res->set = f[0];
        first = res->has_set;
    }
    if (res->has_set && res->set.len > QPS_MAX_NAME)
        return PERR(r, res->set.col, "set name longer than %d characters", QPS_MAX_NAME);
    res->ne = (nf - first) / 2;
    for (int e = 0; e < res->ne; ++e) {
        GALA_TRY(lookup_row(r, &f[first + 2 * e], &res->row[e]));
        GALA_TRY(number(r, &f[first + 1 + 2 * e], &res->v[e]));
        res->v[e] = inf_norm(res->v[e]);
        res->vcol[e] = f[first + 1 + 2 * e].col;
    }
    return GALA_OK;
}

static gala_status apply_rhs(rd *r, const rhs_res *res)
{
    int which = r->sec == S_RHS ? SET_RHS : SET_RANGES;
    if (!in_set(r, which, res->has_set ? &res->set : NULL)) {
        bump(&r->info.ignored_entries, res->ne);
        return warn(r, r->line, res->set.col, GALA_QPS_WARN_OTHER_SET,
                    "second %s set " NAME_FMT ": ignored (only the first set is read)",
                    which == SET_RHS ? "RHS" : "RANGES", FIELD_ARG(res->set));
    }
    for (int e = 0; e < res->ne; ++e) {
        int k = res->row[e];
        rowinfo *ri = &r->ri[k];
        const char *rn = nt_name(&r->rows, k);
        int rl = r->rows.len[k];
        double v = res->v[e];
        if (which == SET_RHS) {
            if (ri->type == 'N') {
                if (k != r->obj) {
                    bump(&r->info.ignored_entries, 1);
                    continue;
                }
                if (r->c0_line)
                    return PERR(r, res->vcol[e], "RHS of the objective row given twice (first "
                                "on line %ld)", r->c0_line);
                if (isinf(v))
                    return PERR(r, res->vcol[e], "infinite RHS on the objective row (the "
                                "objective constant is its negative)");
                r->c0 = -v;
                r->c0_line = r->line;
                continue;
            }
            if (ri->rhs_line)
                return PERR(r, res->vcol[e], "RHS of row " NAME_FMT " given twice (first on "
                            "line %ld)", NAME_ARG(rn, rl), ri->rhs_line);
            if ((ri->type == 'E' && isinf(v)) || (ri->type == 'L' && v == -INFINITY) ||
                (ri->type == 'G' && v == INFINITY))
                return PERR(r, res->vcol[e], "RHS %g of %c row " NAME_FMT " leaves no feasible "
                            "value (|v| >= 1e20 is infinite)", v, ri->type, NAME_ARG(rn, rl));
            ri->rhs = v;
            ri->rhs_line = r->line;
        } else {
            if (ri->type == 'N') {
                bump(&r->info.ignored_entries, 1);
                GALA_TRY(warn(r, r->line, res->vcol[e], GALA_QPS_WARN_RANGE_ON_N,
                              "RANGES entry on N row " NAME_FMT ": ignored", NAME_ARG(rn, rl)));
                continue;
            }
            if (ri->range_line)
                return PERR(r, res->vcol[e], "RANGES value of row " NAME_FMT " given twice "
                            "(first on line %ld)", NAME_ARG(rn, rl), ri->range_line);
            ri->range = v;
            ri->range_line = r->line;
        }
    }
    return GALA_OK;
}

/* ---------------------------------------------------------------- BOUNDS */

enum { B_UP, B_LO, B_FX, B_FR, B_MI, B_PL, B_BV, B_LI, B_UI, B_SC };
static const char *const bound_names[] = {"UP", "LO", "FX", "FR", "MI", "PL", "BV", "LI", "UI",
                                          "SC"};
#define NBOUND (int)(sizeof bound_names / sizeof bound_names[0])

static int bound_has_value(int t)
{
    return t == B_UP || t == B_LO || t == B_FX || t == B_LI || t == B_UI || t == B_SC;
}

typedef struct {
    int type;
    field set;
    int has_set;
    int col;
    field colf;
    double v;
    int vcol;
} bnd_res;

static gala_status resolve_bounds(rd *r, const field *f, int nf, int fixed, void *vres)
{
    bnd_res *res = vres;
    memset(res, 0, sizeof *res);
    if (nf < 2)
        return PSHAPE(r, 1, "a BOUNDS line has the fields type [set] column [value]");
    res->type = -1;
    for (int t = 0; t < NBOUND; ++t)
        if (kw_eq(&f[0], bound_names[t])) res->type = t;
    if (res->type < 0)
        return PERR(r, f[0].col, "unknown bound type " NAME_FMT
                    " (UP, LO, FX, FR, MI, PL, BV, LI, UI)", FIELD_ARG(f[0]));
    int need = bound_has_value(res->type);
    int kset = -1, kcol, kval = -1;
    if (fixed) {
        if (nf < 3 || (need && nf != 4))
            return PSHAPE(r, 1, "a BOUNDS line has the fields type set column%s",
                          need ? " value" : "");
        kset = 1;
        kcol = 2;
        kval = nf == 4 ? 3 : -1;
    } else if (need) {
        if (nf != 3 && nf != 4)
            return PSHAPE(r, nf > 4 ? f[4].col : 1,
                          "a %s bound has 3 or 4 fields (type [set] column value), found %d",
                          bound_names[res->type], nf);
        kset = nf == 4 ? 1 : -1;
        kcol = nf - 2;
        kval = nf - 1;
    } else {
        double dummy;
        if (nf == 2) {
            kcol = 1;
        } else if (nf == 3) { /* type set column, or type column value (value ignored) */
            if (nt_find(&r->cols, f[2].s, f[2].len) < 0 &&
                nt_find(&r->cols, f[1].s, f[1].len) >= 0 && parse_number(&f[2], &dummy)) {
                kcol = 1;
                kval = 2;
            } else {
                kset = 1;
                kcol = 2;
            }
        } else if (nf == 4) {
            kset = 1;
            kcol = 2;
            kval = 3;
        } else {
            return PSHAPE(r, nf > 4 ? f[4].col : 1,
                          "a %s bound has 2 to 4 fields (type [set] column [value]), found %d",
                          bound_names[res->type], nf);
        }
    }
    if (kset >= 0) {
        res->set = f[kset];
        res->has_set = f[kset].len > 0;
        if (f[kset].len > QPS_MAX_NAME)
            return PERR(r, f[kset].col, "set name longer than %d characters", QPS_MAX_NAME);
    }
    GALA_TRY(lookup_col(r, &f[kcol], &res->col));
    res->colf = f[kcol];
    if (kval >= 0) {
        GALA_TRY(number(r, &f[kval], &res->v));
        res->v = inf_norm(res->v);
        res->vcol = f[kval].col;
    } else {
        res->vcol = f[kcol].col;
    }
    return GALA_OK;
}

static gala_status apply_bounds(rd *r, const bnd_res *res)
{
    if (!in_set(r, SET_BOUNDS, res->has_set ? &res->set : NULL)) {
        bump(&r->info.ignored_entries, 1);
        return warn(r, r->line, res->set.col, GALA_QPS_WARN_OTHER_SET,
                    "second BOUNDS set " NAME_FMT ": ignored (only the first set is read)",
                    FIELD_ARG(res->set));
    }
    colinfo *c = &r->ci[res->col];
    int t = res->type;
    double v = res->v;
    int sets_lo = t == B_LO || t == B_LI || t == B_FX || t == B_FR || t == B_MI || t == B_BV;
    int sets_up = t == B_UP || t == B_UI || t == B_FX || t == B_FR || t == B_PL || t == B_BV;
    if (t == B_SC)
        return PERR(r, 2, "SC (semi-continuous) bounds are not supported: gala solves "
                    "continuous QPs");
    if ((sets_lo && c->lo_set) || (sets_up && c->up_set))
        return PERR(r, 2, "%s bound of column " NAME_FMT ": its %s bound was given before",
                    bound_names[t], FIELD_ARG(res->colf),
                    (sets_lo && c->lo_set) ? "lower" : "upper");
    if ((t == B_LO || t == B_LI) && v == INFINITY)
        return PERR(r, res->vcol, "lower bound +infinity for column " NAME_FMT,
                    FIELD_ARG(res->colf));
    if ((t == B_UP || t == B_UI) && v == -INFINITY)
        return PERR(r, res->vcol, "upper bound -infinity for column " NAME_FMT,
                    FIELD_ARG(res->colf));
    if (t == B_FX && isinf(v))
        return PERR(r, res->vcol, "FX bound with infinite value for column " NAME_FMT,
                    FIELD_ARG(res->colf));
    if (t == B_BV || t == B_LI || t == B_UI) {
        bump(&r->info.integer_columns, 1);
        GALA_TRY(warn(r, r->line, 2, GALA_QPS_WARN_INTEGER, "%s bound on column " NAME_FMT
                      ": read as continuous%s", bound_names[t], FIELD_ARG(res->colf),
                      t == B_BV ? " in [0, 1]" : ""));
    }
    switch (t) {
    case B_UP:
    case B_UI:
        c->up = v;
        c->up_set = 1;
        if (v < 0 && !c->lo_set) {
            c->lo = -INFINITY;
            GALA_TRY(warn(r, r->line, res->vcol, GALA_QPS_WARN_NEGATIVE_UP,
                          "negative upper bound on column " NAME_FMT
                          " without a lower bound: the lower bound becomes -infinity",
                          FIELD_ARG(res->colf)));
        }
        break;
    case B_LO:
    case B_LI: c->lo = v; c->lo_set = 1; break;
    case B_FX: c->lo = c->up = v; c->lo_set = c->up_set = 1; break;
    case B_FR: c->lo = -INFINITY; c->up = INFINITY; c->lo_set = c->up_set = 1; break;
    case B_MI: c->lo = -INFINITY; c->lo_set = 1; break;
    case B_PL: c->up = INFINITY; c->up_set = 1; break;
    case B_BV: c->lo = 0; c->up = 1; c->lo_set = c->up_set = 1; break;
    default: break;
    }
    return GALA_OK;
}

/* ---------------------------------------------------------------- QUADOBJ / QSECTION / QMATRIX */

typedef struct {
    int c1, c2;
    double v;
    int vcol;
} quad_res;

static gala_status resolve_quad(rd *r, const field *f, int nf, int fixed, void *vres)
{
    quad_res *res = vres;
    (void)fixed;
    if (nf != 3)
        return PSHAPE(r, nf > 3 ? f[3].col : 1,
                      "a quadratic objective line has 3 fields (column column value), found %d",
                      nf);
    GALA_TRY(lookup_col(r, &f[0], &res->c1));
    GALA_TRY(lookup_col(r, &f[1], &res->c2));
    GALA_TRY(coefficient(r, &f[2], &res->v));
    res->vcol = f[2].col;
    return GALA_OK;
}

static gala_status apply_quad(rd *r, const quad_res *res)
{
    if (r->nqt >= QPS_MAX_COUNT) return PERR(r, res->vcol, "too many quadratic entries");
    if (!grow((void **)&r->qt, &r->qtcap, r->nqt + 1, sizeof *r->qt)) return oom(r);
    trip *t = &r->qt[r->nqt++];
    int a = res->c1, b = res->c2;
    t->r = a < b ? a : b;
    t->c = a < b ? b : a;
    t->flag = r->quad_full && res->c1 > res->c2;
    t->tcol = res->vcol;
    t->line = r->line;
    t->v = res->v;
    return GALA_OK;
}

/* ---------------------------------------------------------------- OBJSENSE, OBJNAME */

static gala_status set_sense(rd *r, const field *f)
{
    if (r->sense_given) return PERR(r, f->col, "OBJSENSE given twice");
    if (kw_eq(f, "MIN") || kw_eq(f, "MINIMIZE") || kw_eq(f, "MINIMISE")) r->sense = 1;
    else if (kw_eq(f, "MAX") || kw_eq(f, "MAXIMIZE") || kw_eq(f, "MAXIMISE")) r->sense = -1;
    else
        return PERR(r, f->col, "unknown objective sense " NAME_FMT " (MIN or MAX)",
                    FIELD_ARG(*f));
    r->sense_given = 1;
    return GALA_OK;
}

static gala_status set_objname(rd *r, const field *f)
{
    if (r->objname_len >= 0) return PERR(r, f->col, "OBJNAME given twice");
    GALA_TRY(check_name(r, f, "objective row"));
    memcpy(r->objname, f->s, (size_t)f->len);
    r->objname_len = f->len;
    r->objname_line = r->line;
    return GALA_OK;
}

/* ---------------------------------------------------------------- lines */

static gala_status data_line(rd *r)
{
    field f[QPS_MAX_FIELDS];
    int nf;
    switch (r->sec) {
    case S_ROWS: {
        rows_res res;
        GALA_TRY(interpret(r, resolve_rows, &L_ROWS, &res));
        return apply_rows(r, &res);
    }
    case S_COLUMNS: {
        cols_res res;
        GALA_TRY(interpret(r, resolve_columns, &L_ENTRY, &res));
        return apply_columns(r, &res);
    }
    case S_RHS:
    case S_RANGES: {
        rhs_res res;
        GALA_TRY(interpret(r, resolve_rhs, &L_ENTRY, &res));
        return apply_rhs(r, &res);
    }
    case S_BOUNDS: {
        bnd_res res;
        GALA_TRY(interpret(r, resolve_bounds, &L_BOUNDS, &res));
        return apply_bounds(r, &res);
    }
    case S_QUAD: {
        quad_res res;
        GALA_TRY(interpret(r, resolve_quad, &L_QUAD, &res));
        return apply_quad(r, &res);
    }
    case S_OBJSENSE:
        nf = tokenize(r->ln, r->lnlen, f);
        if (nf != 1) return PERR(r, 1, "OBJSENSE data is one word (MIN or MAX)");
        return set_sense(r, &f[0]);
    case S_OBJNAME:
        nf = tokenize(r->ln, r->lnlen, f);
        if (nf != 1) return PERR(r, 1, "OBJNAME data is one name");
        return set_objname(r, &f[0]);
    case S_NAME: return PERR(r, 1, "data line after NAME, before any section");
    default: return PERR(r, 1, "data line outside any section");
    }
}

/* A section header. Returns 1 in *done at ENDATA. */
static gala_status header_line(rd *r, int *done)
{
    field f[QPS_MAX_FIELDS];
    int nf = tokenize(r->ln, r->lnlen, f);
    const field *kw = &f[0];
    /* a section that waited for its data line and got none */
    if (r->sec == S_OBJSENSE && !r->sense_given)
        return PERR(r, 1, "OBJSENSE section without MIN or MAX");
    if (r->sec == S_OBJNAME && r->objname_len < 0)
        return PERR(r, 1, "OBJNAME section without a name");
    if (r->sec == S_COLUMNS && r->in_int) r->in_int = 0; /* unterminated INTORG: harmless */

    if (kw_eq(kw, "NAME")) {
        if (r->seen) return PERR(r, 1, "NAME must be the first section");
        const char *p = kw->s + kw->len, *e = r->ln + r->lnlen;
        while (p < e && is_blank(*p)) ++p;
        while (e > p && is_blank(e[-1])) --e;
        size_t n = (size_t)(e - p);
        if (n > sizeof r->name - 1) n = sizeof r->name - 1; /* cut, then trim again */
        while (n > 0 && is_blank(p[n - 1])) --n;
        memcpy(r->name, p, n);
        r->name[n] = '\0';
        r->seen |= SEEN_NAME;
        r->sec = S_NAME;
        return GALA_OK;
    }
    if (kw_eq(kw, "ENDATA")) {
        *done = 1;
        return GALA_OK;
    }
    if (kw_eq(kw, "OBJSENSE") || kw_eq(kw, "OBJSENS")) {
        if (r->seen & SEEN_OBJSENSE) return PERR(r, 1, "OBJSENSE given twice");
        r->seen |= SEEN_OBJSENSE;
        if (nf > 2) return PERR(r, f[2].col, "unexpected " NAME_FMT " after OBJSENSE",
                                FIELD_ARG(f[2]));
        if (nf == 2) {
            r->sec = S_NONE;
            return set_sense(r, &f[1]);
        }
        r->sec = S_OBJSENSE;
        return GALA_OK;
    }
    if (kw_eq(kw, "OBJNAME")) {
        if (r->seen & SEEN_OBJNAME) return PERR(r, 1, "OBJNAME given twice");
        if (r->seen & SEEN_ROWS) return PERR(r, 1, "OBJNAME must come before ROWS");
        r->seen |= SEEN_OBJNAME;
        if (nf > 2) return PERR(r, f[2].col, "unexpected " NAME_FMT " after OBJNAME",
                                FIELD_ARG(f[2]));
        if (nf == 2) {
            r->sec = S_NONE;
            return set_objname(r, &f[1]);
        }
        r->sec = S_OBJNAME;
        return GALA_OK;
    }

    static const struct {
        const char *kw;
        int sec;
        unsigned bit;
    } data_secs[] = {{"ROWS", S_ROWS, SEEN_ROWS},       {"COLUMNS", S_COLUMNS, SEEN_COLUMNS},
                     {"RHS", S_RHS, SEEN_RHS},          {"RANGES", S_RANGES, SEEN_RANGES},
                     {"BOUNDS", S_BOUNDS, SEEN_BOUNDS}, {"QUADOBJ", S_QUAD, SEEN_QUAD},
                     {"QSECTION", S_QUAD, SEEN_QUAD},   {"QMATRIX", S_QUAD, SEEN_QUAD}};
    for (size_t k = 0; k < sizeof data_secs / sizeof data_secs[0]; ++k) {
        if (!kw_eq(kw, data_secs[k].kw)) continue;
        unsigned bit = data_secs[k].bit;
        const unsigned later = SEEN_COLUMNS | SEEN_RHS | SEEN_RANGES | SEEN_BOUNDS | SEEN_QUAD;
        int qsection = kw_eq(kw, "QSECTION");
        if (r->seen & bit)
            return PERR(r, 1, bit == SEEN_QUAD ? "a second quadratic objective section"
                                               : "section %s given twice", data_secs[k].kw);
        if (bit != SEEN_ROWS && !(r->seen & SEEN_ROWS))
            return PERR(r, 1, "section %s before ROWS", data_secs[k].kw);
        if (bit == SEEN_COLUMNS && (r->seen & (later & ~SEEN_COLUMNS)))
            return PERR(r, 1, "COLUMNS after the sections that use it");
        if (nf > 1 && !(qsection && nf == 2))
            return PERR(r, f[1].col, "unexpected " NAME_FMT " after %s", FIELD_ARG(f[1]),
                        data_secs[k].kw);
        if (qsection && nf == 2) { /* QSECTION row: the objective's, or a constraint's */
            int k2 = nt_find(&r->rows, f[1].s, f[1].len);
            if (k2 < 0) return PERR(r, f[1].col, "unknown row " NAME_FMT, FIELD_ARG(f[1]));
            if (k2 != r->obj)
                return PERR(r, f[1].col, "QSECTION " NAME_FMT " is a quadratic constraint: "
                            "not supported (gala's constraints are linear)", FIELD_ARG(f[1]));
        }
        r->seen |= bit;
        r->sec = data_secs[k].sec;
        if (bit == SEEN_QUAD) r->quad_full = kw_eq(kw, "QMATRIX");
        return GALA_OK;
    }
    static const char *const unsupported[] = {"QCMATRIX", "QCSECTION", "CSECTION", "SOS",
                                              "SETS", "INDICATORS", "GENCONS", "PWLOBJ",
                                              "LAZYCONS", "USERCUTS", "BRANCH"};
    for (size_t k = 0; k < sizeof unsupported / sizeof unsupported[0]; ++k)
        if (kw_eq(kw, unsupported[k]))
            return PERR(r, 1, "section %s is not supported (gala solves continuous QPs with "
                        "linear constraints)", unsupported[k]);
    return PERR(r, 1, "unknown section " NAME_FMT, FIELD_ARG(*kw));
}

/* ---------------------------------------------------------------- building the problem */

static int cmp_trip(const void *pa, const void *pb)
{
    const trip *a = pa, *b = pb;
    if (a->r != b->r) return a->r < b->r ? -1 : 1;
    if (a->flag != b->flag) return a->flag < b->flag ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* Sort triplets by column (stable) into a new array, then each column by (r, flag, line).
 * start[] gets n + 1 column starts. */
static trip *sort_trips(const trip *t, size_t nt, int n, int *start)
{
    trip *s = q_malloc(nt * sizeof *s);
    if (!s) return NULL;
    for (int j = 0; j <= n; ++j) start[j] = 0;
    for (size_t k = 0; k < nt; ++k) start[t[k].c + 1]++;
    for (int j = 0; j < n; ++j) start[j + 1] += start[j];
    int *next = q_malloc(((size_t)n + 1) * sizeof *next);
    if (!next) {
        gala_free(s);
        return NULL;
    }
    memcpy(next, start, ((size_t)n + 1) * sizeof *next);
    for (size_t k = 0; k < nt; ++k) s[next[t[k].c]++] = t[k];
    gala_free(next);
    for (int j = 0; j < n; ++j)
        if (start[j + 1] - start[j] > 1)
            qsort(s + start[j], (size_t)(start[j + 1] - start[j]), sizeof *s, cmp_trip);
    return s;
}

static gala_status build(rd *r, gala_qp_problem *out)
{
    int n = r->cols.count, mc = r->mc;
    gala_status st = GALA_OK;
    int *cstart = NULL, *rowof = NULL;
    trip *s = NULL;

    /* row bounds */
    for (int k = 0; k < r->rows.count; ++k) {
        rowinfo *ri = &r->ri[k];
        if (ri->aidx >= 0 && ri->range_line && isinf(ri->rhs))
            return perr_at(r, ri->range_line, 1, 1, "RANGES on row " NAME_FMT
                           " whose RHS is infinite", NAME_ARG(nt_name(&r->rows, k),
                                                               r->rows.len[k]));
    }
    int nb = 0;
    for (int j = 0; j < n; ++j)
        if ((r->flags & GALA_QPS_ALL_BOUND_ROWS) || r->ci[j].lo > -INFINITY ||
            r->ci[j].up < INFINITY)
            ++nb;
    if ((size_t)mc + (size_t)nb > (size_t)INT_MAX || r->nat + (size_t)nb > (size_t)INT_MAX)
        return perr_at(r, r->line, 1, 1, "problem too large for int indices");
    int m = mc + nb;

    gala_qp_problem pb;
    memset(&pb, 0, sizeof pb);
    pb.owned = 1;
    pb.n = n;
    pb.m = m;
    gala_strlcpy(pb.name, r->name, sizeof pb.name);
    pb.q = q_malloc((size_t)n * sizeof(double));
    pb.l = q_malloc((size_t)m * sizeof(double));
    pb.u = q_malloc((size_t)m * sizeof(double));
    pb.A.m = m;
    pb.A.n = n;
    pb.A.p = q_malloc(((size_t)n + 1) * sizeof(int));
    pb.A.i = q_malloc((r->nat + (size_t)nb) * sizeof(int));
    pb.A.x = q_malloc((r->nat + (size_t)nb) * sizeof(double));
    pb.P.m = pb.P.n = n;
    pb.P.p = q_malloc(((size_t)n + 1) * sizeof(int));
    cstart = q_malloc(((size_t)n + 1) * sizeof(int));
    rowof = q_malloc(((size_t)mc + 1) * sizeof(int));
    if (!pb.q || !pb.l || !pb.u || !pb.A.p || !pb.A.i || !pb.A.x || !pb.P.p || !cstart ||
        !rowof) {
        st = oom(r);
        goto fail;
    }
    for (int k = 0; k < r->rows.count; ++k) {
        const rowinfo *ri = &r->ri[k];
        if (ri->aidx < 0) continue;
        rowof[ri->aidx] = k;
        double b = ri->rhs, lo, hi;
        if (ri->type == 'E') lo = hi = b;
        else if (ri->type == 'L') lo = -INFINITY, hi = b;
        else lo = b, hi = INFINITY;
        if (ri->range_line) {
            double R = ri->range, aR = fabs(R);
            if (ri->type == 'E') {
                if (R > 0) hi = b + aR;
                else if (R < 0) lo = b - aR;
            } else if (ri->type == 'L') {
                lo = hi - aR;
            } else {
                hi = lo + aR;
            }
        }
        pb.l[ri->aidx] = inf_norm(lo);
        pb.u[ri->aidx] = inf_norm(hi);
    }
    for (int j = 0; j < n; ++j) pb.q[j] = r->ci[j].q;

    /* A: constraint entries sorted per column, then the bound row */
    s = sort_trips(r->at, r->nat, n, cstart);
    if (!s) {
        st = oom(r);
        goto fail;
    }
    for (size_t k = 0; k < r->nat; ++k) s[k].r = r->ri[s[k].r].aidx;
    int nnz = 0, brow = mc;
    pb.A.p[0] = 0;
    for (int j = 0; j < n; ++j) {
        for (int k = cstart[j]; k < cstart[j + 1]; ++k) {
            if (k > cstart[j] && s[k].r == s[k - 1].r) {
                int rk = rowof[s[k].r];
                st = perr_at(r, s[k].line, s[k].tcol, 1, "duplicate entry in row " NAME_FMT
                             ", column " NAME_FMT " (first given on line %ld)",
                             NAME_ARG(nt_name(&r->rows, rk), r->rows.len[rk]),
                             NAME_ARG(nt_name(&r->cols, j), r->cols.len[j]), s[k - 1].line);
                goto fail;
            }
            pb.A.i[nnz] = s[k].r;
            pb.A.x[nnz++] = s[k].v;
        }
        const colinfo *c = &r->ci[j];
        if ((r->flags & GALA_QPS_ALL_BOUND_ROWS) || c->lo > -INFINITY || c->up < INFINITY) {
            pb.l[brow] = c->lo;
            pb.u[brow] = c->up;
            pb.A.i[nnz] = brow++;
            pb.A.x[nnz++] = 1.0;
        }
        pb.A.p[j + 1] = nnz;
    }
    gala_free(s);
    s = NULL;

    /* P: upper triangle; QMATRIX entries (i, j) and (j, i) are averaged */
    s = sort_trips(r->qt, r->nqt, n, cstart);
    if (!s) {
        st = oom(r);
        goto fail;
    }
    pb.P.i = q_malloc(r->nqt * sizeof(int));
    pb.P.x = q_malloc(r->nqt * sizeof(double));
    if (!pb.P.i || !pb.P.x) {
        st = oom(r);
        goto fail;
    }
    nnz = 0;
    pb.P.p[0] = 0;
    for (int j = 0; j < n; ++j) {
        for (int k = cstart[j]; k < cstart[j + 1];) {
            int e = k + 1;
            while (e < cstart[j + 1] && s[e].r == s[k].r) ++e;
            /* s[k..e): the entries of position (s[k].r, j) */
            int dup = -1;
            if (!r->quad_full || s[k].r == j) dup = e - k > 1 ? k + 1 : -1;
            else if (e - k > 2) dup = k + 2;
            else if (e - k == 2 && s[k].flag == s[k + 1].flag) dup = k + 1;
            if (dup >= 0) {
                int i = s[k].r;
                st = perr_at(r, s[dup].line, s[dup].tcol, 1, "duplicate quadratic entry ("
                             NAME_FMT ", " NAME_FMT ") (first given on line %ld%s)",
                             NAME_ARG(nt_name(&r->cols, i), r->cols.len[i]),
                             NAME_ARG(nt_name(&r->cols, j), r->cols.len[j]), s[k].line,
                             r->quad_full ? "" : "; QUADOBJ gives each pair once");
                goto fail;
            }
            double v = s[k].v;
            if (r->quad_full && s[k].r != j) {
                if (e - k == 2) {
                    if (s[k].v != s[k + 1].v &&
                        (st = warn(r, s[k + 1].line, s[k + 1].tcol,
                                   GALA_QPS_WARN_QMATRIX_ASYMMETRIC,
                                   "QMATRIX entries (i, j) and (j, i) differ: averaged")) !=
                            GALA_OK)
                        goto fail;
                    v = 0.5 * s[k].v + 0.5 * s[k + 1].v;
                } else {
                    if ((st = warn(r, s[k].line, s[k].tcol, GALA_QPS_WARN_QMATRIX_ASYMMETRIC,
                                   "QMATRIX gives (i, j) without (j, i): halved (the "
                                   "symmetric part)")) != GALA_OK)
                        goto fail;
                    v = 0.5 * s[k].v;
                }
            }
            pb.P.i[nnz] = s[k].r;
            pb.P.x[nnz++] = v;
            k = e;
        }
        pb.P.p[j + 1] = nnz;
    }
    gala_free(s);
    s = NULL;

    pb.c0 = r->c0;
    if (r->sense < 0) {
        for (int j = 0; j < n; ++j) pb.q[j] = -pb.q[j];
        for (int k = 0; k < nnz; ++k) pb.P.x[k] = -pb.P.x[k];
        pb.c0 = -pb.c0;
    }
    r->info.rows = mc;
    r->info.bound_rows = nb;
    r->info.objective_sense = r->sense;
    gala_free(cstart);
    gala_free(rowof);
    *out = pb;
    return GALA_OK;

fail:
    gala_free(s);
    gala_free(cstart);
    gala_free(rowof);
    gala_qp_problem_free(&pb);
    return st;
}

/* ---------------------------------------------------------------- driver */

static gala_status parse(rd *r, gala_qp_problem *out)
{
    gala_status st = GALA_OK;
    int done = 0;
    while (!done && next_line(r, &st)) {
        if (r->lnlen == 0 || r->ln[0] == '*') continue;
        int blank = 1;
        for (int i = 0; i < r->lnlen && blank; ++i) blank = is_blank(r->ln[i]);
        if (blank) continue;
        if (is_blank(r->ln[0])) st = data_line(r);
        else st = header_line(r, &done);
        if (st != GALA_OK) return st;
    }
    if (st != GALA_OK) return st;
    if (!done) {
        long line = (r->eol_at_end || r->line == 0) ? r->line + 1 : r->line;
        int col = (r->eol_at_end || r->line == 0) ? 1 : r->lnlen + 1;
        return perr_at(r, line, col, 1, "unexpected end of input: no ENDATA (truncated file?)");
    }
    if (!(r->seen & SEEN_ROWS)) return PERR(r, 1, "ENDATA before any ROWS section");
    if (r->objname_len >= 0 && r->obj < 0)
        return perr_at(r, r->objname_line, 1, 1, "OBJNAME " NAME_FMT " names no N row",
                       NAME_ARG(r->objname, r->objname_len));
    return build(r, out);
}

static gala_status read_mem(const char *data, size_t len, unsigned flags, const char *source,
                            gala_qp_problem *out, gala_qps_info *info)
{
    static const char fn[] = "gala_qp_read_qps";
    if (out) memset(out, 0, sizeof *out);
    if (info) memset(info, 0, sizeof *info);
    if (!out || (!data && len)) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: NULL argument", fn);
    if (flags & ~(GALA_QPS_ALL_BOUND_ROWS | GALA_QPS_STRICT))
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: unknown flags 0x%x", fn, flags);
    rd *r = q_calloc(1, sizeof *r);
    if (!r) return gala_error(NULL, GALA_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    r->src = data ? data : "";
    r->len = len;
    r->flags = flags;
    r->sense = 1;
    r->objname_len = -1;
    r->obj = -1;
    r->setlen[0] = r->setlen[1] = r->setlen[2] = -1;
    gala_status st = parse(r, out);
    if (st == GALA_OK) {
        if (info) *info = r->info;
    } else {
        /* the source's tail is the informative part of a long path */
        size_t sl = strlen(source);
        const char *src = sl > 200 ? source + sl - 200 : source;
        gala_error(NULL, st, "%s%s:%s", sl > 200 ? "..." : "", src, r->msg);
    }
    nt_free(&r->rows);
    nt_free(&r->cols);
    gala_free(r->ri);
    gala_free(r->ci);
    gala_free(r->at);
    gala_free(r->qt);
    gala_free(r);
    return st;
}

gala_status gala_qp_read_qps_mem(const char *data, size_t len, unsigned flags,
                                 gala_qp_problem *out, gala_qps_info *info)
{
    return read_mem(data, len, flags, "<memory>", out, info);
}

gala_status gala_qp_read_qps_ex(const char *path, unsigned flags, gala_qp_problem *out,
                                gala_qps_info *info)
{
    if (out) memset(out, 0, sizeof *out);
    if (info) memset(info, 0, sizeof *info);
    if (!path || !out)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_read_qps: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f)
        return gala_error(NULL, GALA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = q_malloc(cap);
    gala_status st = GALA_OK;
    if (!buf) st = gala_error(NULL, GALA_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    while (st == GALA_OK) {
        if (n == cap) {
            char *nb = cap <= SIZE_MAX / 2 ? q_realloc(buf, cap * 2) : NULL;
            if (!nb) {
                st = gala_error(NULL, GALA_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) {
            if (ferror(f))
                st = gala_error(NULL, GALA_ERR_IO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (st == GALA_OK) st = read_mem(buf, n, flags, path, out, info);
    gala_free(buf);
    return st;
}

gala_status gala_qp_read_qps(const char *path, gala_qp_problem *out)
{
    return gala_qp_read_qps_ex(path, 0, out, NULL);
}
