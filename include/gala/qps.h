/**
 * @file qps.h
 * @brief Reading and writing quadratic programs in QPS (MPS with a quadratic objective).
 *
 * QPS is the format of the Maros–Meszaros convex QP test set and of the MPS writers of
 * CPLEX, Gurobi, MOSEK and HiGHS. The reader accepts fixed and free MPS; docs/qps.md gives
 * the syntax, every convention, and the limits in full. In short, a file describing
 *
 *     minimize    c0 + cᵀx + ½ xᵀQx
 *     subject to  rows:       E: aᵢᵀx = b,  L: aᵢᵀx ≤ b,  G: aᵢᵀx ≥ b  (RANGES make two-sided rows)
 *                 variables:  lo ≤ x ≤ up   (BOUNDS; default 0 ≤ x < +∞)
 *
 * becomes the ::gala_qp_problem  minimize ½xᵀPx + qᵀx + c0  s.t.  l ≤ Ax ≤ u  with
 *   - P = Q as its upper triangle (QUADOBJ/QSECTION list one triangle of a symmetric Q;
 *     QMATRIX lists the whole matrix and P is its symmetric part (Q + Qᵀ)/2),
 *   - q = c, c0 = −(the RHS value given on the objective row),
 *   - A = the rows E/L/G in file order, then one identity row eⱼᵀ per variable j that has at
 *     least one finite bound (in column order), with l, u the row or variable bounds;
 *     variables free on both sides get no row (see ::GALA_QPS_ALL_BOUND_ROWS),
 *   - ±INFINITY wherever the file gives no bound or a value with |v| ≥ 1e20.
 * With OBJSENSE MAX the file's objective is maximized; gala negates q, P and c0 so that the
 * problem is still a minimization: the file's optimal value is −(gala's optimal value).
 *
 * Entries are kept as given, explicit zeros included. A repeated entry (the same matrix
 * position twice, two RHS or RANGES values for one row, the same bound side twice) is an
 * error, never summed.
 *
 * Errors: malformed input gives ::GALA_ERR_PARSE with a message
 * "SOURCE:LINE:COLUMN: what is wrong" in gala_last_error(NULL). The reader allocates in
 * proportion to the input's size only; it never prints.
 */
#ifndef GALA_QPS_H
#define GALA_QPS_H

#include <stdio.h>

#include "gala/common.h"
#include "gala/qp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reader flag: append an identity row for every variable, free ones included (with
 *  l = −∞, u = +∞), as OSQP's Maros–Meszaros .mat files do (A = [C; I]). Without it only
 *  variables with a finite bound get a row. */
#define GALA_QPS_ALL_BOUND_ROWS 0x1u
/** Reader flag: anything that would be a warning (see ::gala_qps_warning) is an error
 *  (::GALA_ERR_PARSE) instead. */
#define GALA_QPS_STRICT 0x2u

/** Warnings of the reader: things it accepted but changed or dropped. Bits of
 *  gala_qps_info::warnings. */
typedef enum gala_qps_warning {
    /** Integer markers (MARKER INTORG/INTEND) or integer bounds (BV, LI, UI): the variables
     *  were read as continuous (BV as 0 ≤ x ≤ 1). */
    GALA_QPS_WARN_INTEGER = 0x1,
    /** N rows after the objective row: ignored with their entries. */
    GALA_QPS_WARN_EXTRA_N_ROWS = 0x2,
    /** A negative UP bound on a variable without a lower bound: its lower bound became −∞
     *  (the rule of CPLEX and the MPS convention; see docs/qps.md). */
    GALA_QPS_WARN_NEGATIVE_UP = 0x4,
    /** Entries of a second RHS, RANGES or BOUNDS set (another set name): ignored; only the
     *  first set is read. */
    GALA_QPS_WARN_OTHER_SET = 0x8,
    /** A RANGES entry on an N row: ignored. */
    GALA_QPS_WARN_RANGE_ON_N = 0x10,
    /** QMATRIX not symmetric (Q_ij ≠ Q_ji, or only one of the two given): P is the
     *  symmetric part (Q + Qᵀ)/2, which gives the same objective. */
    GALA_QPS_WARN_QMATRIX_ASYMMETRIC = 0x20
} gala_qps_warning;

/** What the reader found, beyond the problem itself. Optional out-argument. */
typedef struct gala_qps_info {
    int rows;            /**< constraint rows (E, L, G): rows 0 .. rows-1 of A */
    int bound_rows;      /**< identity rows for variable bounds: rows rows .. m-1 of A */
    int objective_sense; /**< +1 minimize; −1 OBJSENSE MAX (q, P and c0 were negated) */
    int fixed_lines;     /**< data lines read by fixed MPS columns (names with blanks) */
    unsigned warnings;   /**< GALA_QPS_WARN_* bits; 0 when there was nothing to warn about */
    int warning_count;   /**< number of warning events (e.g. one per ignored entry) */
    int integer_columns; /**< variables declared integer or binary, read as continuous */
    int ignored_rows;    /**< N rows other than the objective */
    int ignored_entries; /**< entries dropped (on ignored N rows, of other sets, ranges on N) */
    long first_warning_line; /**< line of the first warning, 0 if none */
    char first_warning[192]; /**< text of the first warning, "" if none */
} gala_qps_info;

/**
 * @brief Read a QPS or MPS file (fixed or free format) into a new problem.
 * Same as gala_qp_read_qps_ex(path, 0, out, NULL).
 * @param path file to read.
 * @param out  receives the problem (owned = 1: release it with gala_qp_problem_free());
 *             zeroed on failure, nothing to release then.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL argument); GALA_ERR_IO (the file cannot be
 *         opened or read); GALA_ERR_PARSE (malformed or unsupported content, the message
 *         names the file, line and column); GALA_ERR_OUT_OF_MEMORY.
 */
GALA_API gala_status gala_qp_read_qps(const char *path, gala_qp_problem *out);

/**
 * @brief Read a QPS or MPS file with flags, and report what was found.
 * @param path  file to read.
 * @param flags 0, or GALA_QPS_ALL_BOUND_ROWS and/or GALA_QPS_STRICT; unknown bits are an
 *              error (GALA_ERR_INVALID_ARG).
 * @param out   receives the problem (owned = 1), zeroed on failure.
 * @param info  NULL, or receives counts and warnings (zeroed on failure).
 * @return as gala_qp_read_qps().
 */
GALA_API gala_status gala_qp_read_qps_ex(const char *path, unsigned flags, gala_qp_problem *out,
                                         gala_qps_info *info);

/**
 * @brief Read QPS or MPS text from memory (for tests, fuzzing, and data not in a file).
 * @param data  the text; need not be NUL-terminated; may hold any bytes (binary data is a
 *              parse error). May be NULL when len is 0.
 * @param len   its length in bytes.
 * @param flags as gala_qp_read_qps_ex().
 * @param out   receives the problem (owned = 1), zeroed on failure.
 * @param info  NULL, or receives counts and warnings.
 * @return GALA_OK; GALA_ERR_INVALID_ARG; GALA_ERR_PARSE (message "<memory>:LINE:COLUMN: ...");
 *         GALA_ERR_OUT_OF_MEMORY.
 */
GALA_API gala_status gala_qp_read_qps_mem(const char *data, size_t len, unsigned flags,
                                          gala_qp_problem *out, gala_qps_info *info);

/**
 * @brief Write a problem as free MPS with a QUADOBJ section, so that gala_qp_read_qps()
 * gives the same problem back.
 *
 * Rows are named R1..Rm, variables C1..Cn, the objective row OBJ. A trailing block of rows
 * of A that are identity rows (one entry 1.0, variables in increasing order, at least one
 * finite bound) is written as BOUNDS, so that reading appends the same rows again; every
 * other variable is declared free (FR). Values are written with up to 17 significant digits
 * and read back exactly; the one exception is a two-sided row (finite l < u), written with
 * RANGES as [b − |R|, b] or [b, b + |R|]: when no such pair of doubles gives both l and u
 * exactly, one of them is off by a rounding (docs/qps.md).
 * Bounds with |v| ≥ 1e20 are written as infinite.
 *
 * @param path file to create or overwrite (removed again if writing fails).
 * @param pb   the problem (any owned value); not modified.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, inconsistent sizes, NULL arrays, a NaN
 *         bound, l = +∞ or u = −∞, a constraint row with l > u, or a coefficient with
 *         |v| ≥ 1e20, which MPS would read as infinite); GALA_ERR_INVALID_MATRIX or
 *         GALA_ERR_NOT_FINITE (P or A malformed, see gala_csc_validate()); GALA_ERR_IO.
 */
GALA_API gala_status gala_qp_write_qps(const char *path, const gala_qp_problem *pb);

/**
 * @brief As gala_qp_write_qps(), to an open stream (e.g. stdout, or open_memstream()).
 * The stream is flushed, not closed.
 */
GALA_API gala_status gala_qp_write_qps_stream(FILE *stream, const gala_qp_problem *pb);

#ifdef __cplusplus
}
#endif

#endif /* GALA_QPS_H */
