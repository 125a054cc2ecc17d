/**
 * @file qp_settings.h
 * @brief The QP solver's settings, declared once: GALA_QP_SETTINGS is the table from which
 * the settings struct (qp.h), its defaults (gala_qp_settings_default), the range checks of
 * gala_qp_setup and gala_qp_update_settings, the list of settings fixed at setup, gala-qp's
 * command-line options and the introspection calls below (which the Python package reads)
 * are all generated. A setting is added by adding one row here.
 *
 * One row: X(kind, ctype, name, default, lo, hi, flags, cli, choices, help)
 *   kind     BOOL (0 or 1), INT, REAL or ENUM (an int naming one of `choices`)
 *   ctype    the field's C type
 *   name     the field's name; OSQP's name where the flags say GALA_QP_SETTING_OSQP
 *   default  the value gala_qp_settings_default() gives it
 *   lo, hi   the valid range (inclusive unless LO_OPEN / HI_OPEN); checked at setup and update
 *   flags    GALA_QP_SETTING_OSQP: OSQP 1.x has this setting with this name, meaning and
 *            default; FIXED: fixed at setup (gala_qp_update_settings refuses a change);
 *            LO_OPEN / HI_OPEN: the bound itself is not valid; NO_CLI: no gala-qp option
 *   cli      gala-qp's option name without "--", or NULL for the name with '-' for '_'
 *   choices  ENUM: the words for lo, lo + 1, ..., hi, each ending in "\0" (NULL otherwise)
 *   help     one paragraph: what it does, and for which strategy
 */
#ifndef GALA_QP_SETTINGS_H
#define GALA_QP_SETTINGS_H

#include <limits.h>
#include <math.h>

#include "gala/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Linear-system strategy (docs/qp.md). AUTO picks DENSE_SHARED when every QP has the same
 *  P and A (values and pattern) and the same kinds of rows; otherwise SPARSE_LDLT where an
 *  iteration with its factors costs less than a dense one (from the QPs' sparsity: nnz(L)
 *  against the n² of K⁻¹, or K's envelope on the host backend, tuning qp.sparse_weight and
 *  qp.sparse_fixed), considered once the largest QP has qp.sparse_n
 *  variables or more (tuning: 1024 on the host backend and CPU OpenCL, 8192 on GPUs) or,
 *  below that, for a batch of at most qp.sparse_patterns distinct P and A patterns (16 on
 *  the host backend, so one sparse QP alone; none elsewhere); DENSE otherwise. */
typedef enum gala_qp_linsys {
    /** Chosen per batch, as above (the default). */
    GALA_QP_LINSYS_AUTO = 0,
    /** Per QP: dense K = P + σI + Aᵀdiag(ρ)A inverted on the device; each iteration applies
     *  K⁻¹ as a matrix-vector product. A change of ρ refactors only that QP. */
    GALA_QP_LINSYS_DENSE = 1,
    /** Shared P and A: a ladder of K⁻¹ for ρ = rho·r^k, factored once; each iteration is a
     *  matrix-matrix product over a tile of QPs. Adaptive ρ moves a QP along the ladder. */
    GALA_QP_LINSYS_DENSE_SHARED = 2,
    /** Per QP: sparse LDLᵀ (AMD ordering) of the quasi-definite KKT matrix
     *  [P + σI, Aᵀ; A, −diag(1/ρ)], as OSQP's direct solver; one symbolic analysis per pair
     *  of P and A patterns, the whole batch factored and solved by one launch each. A change
     *  of ρ refactors the batch in place. Needs SuiteSparse AMD (GALA_ERR_NOT_SUPPORTED
     *  from gala_qp_setup without it). */
    GALA_QP_LINSYS_SPARSE_LDLT = 3,
    /** Per QP: the reduced system P + σI + Aᵀdiag(ρ)A solved in every iteration by
     *  conjugate gradients with the Jacobi preconditioner (OSQP's indirect method, the one
     *  of its CUDA build), warm started from the iterate, to the adaptive tolerance of
     *  cg_max_iter, cg_tol_reduction and cg_tol_fraction. Nothing is factored: memory and
     *  work per iteration follow the nonzeros of P and A, for QPs too large to factor.
     *  Never chosen by AUTO. Non-convexity is detected from a diagonal entry of P + σI
     *  that is not positive and from negative curvature met by CG, not from a full
     *  factorization (docs/qp.md). */
    GALA_QP_LINSYS_PCG = 4
} gala_qp_linsys;

/** Adaptive ρ modes (OSQP's values). */
typedef enum gala_qp_adaptive_rho {
    GALA_QP_ADAPTIVE_RHO_DISABLED = 0,   /**< ρ stays fixed */
    GALA_QP_ADAPTIVE_RHO_ITERATIONS = 1, /**< every adaptive_rho_interval iterations (default) */
    GALA_QP_ADAPTIVE_RHO_TIME = 2        /**< interval fixed when the solve time first exceeds
                                              adaptive_rho_fraction·setup time (OSQP 0.6 style) */
} gala_qp_adaptive_rho;

/** Kinds of a setting (gala_qp_setting_desc.kind). */
typedef enum gala_qp_setting_kind {
    GALA_QP_SETTING_BOOL = 1, /**< int, 0 or 1 */
    GALA_QP_SETTING_INT = 2,  /**< int */
    GALA_QP_SETTING_REAL = 3, /**< double */
    GALA_QP_SETTING_ENUM = 4  /**< int (or an enum type) naming one of the choices */
} gala_qp_setting_kind;

/** Flags of a setting (gala_qp_setting_desc.flags). */
#define GALA_QP_SETTING_OSQP 1u    /**< OSQP 1.x's setting: same name, meaning, default */
#define GALA_QP_SETTING_FIXED 2u   /**< fixed at setup */
#define GALA_QP_SETTING_LO_OPEN 4u /**< lo itself is not valid */
#define GALA_QP_SETTING_HI_OPEN 8u /**< hi itself is not valid */
#define GALA_QP_SETTING_NO_CLI 16u /**< not an option of gala-qp */

/** @cond GALA_INTERNAL */
/* Short names for the table only. */
#define GALA_QP_S_OSQP GALA_QP_SETTING_OSQP
#define GALA_QP_S_FIXED GALA_QP_SETTING_FIXED
#define GALA_QP_S_GT GALA_QP_SETTING_LO_OPEN
#define GALA_QP_S_LT GALA_QP_SETTING_HI_OPEN
#define GALA_QP_S_NOCLI GALA_QP_SETTING_NO_CLI
#define GALA_QP_S_INF HUGE_VAL
/** @endcond */

/**
 * The settings table, one X(kind, ctype, name, default, lo, hi, flags, cli, choices, help)
 * row per field of gala_qp_settings, in its order: the one source of the struct's fields,
 * their defaults and valid ranges, gala-qp's options and the Python package's settings.
 * Read the rows at run time with gala_qp_settings_count() and gala_qp_settings_field(), or
 * expand them with your own X macro.
 */
/* clang-format off */
#define GALA_QP_SETTINGS(X)                                                                      \
    /* ---- OSQP's settings ---- */                                                              \
    X(ENUM, int, linsys_solver, GALA_QP_LINSYS_AUTO, 0, 4, GALA_QP_S_OSQP | GALA_QP_S_FIXED, "linsys",             \
      "auto\0dense\0dense-shared\0sparse-ldlt\0pcg\0",                                           \
      "linear-system strategy (gala_qp_linsys; OSQP's name, gala's values): auto picks "         \
      "dense-shared when every QP has the same P, A and row kinds, sparse-ldlt where the KKT "  \
      "factor is cheaper than K^-1 (large sparse QPs; on the host backend also a sparse QP "    \
      "alone), dense otherwise; pcg (OSQP's indirect solver) only when asked for")              \
    X(BOOL, int, warm_starting, 1, 0, 1, GALA_QP_S_OSQP | GALA_QP_S_NOCLI, NULL, NULL,           \
      "start each solve from the last iterates")                                                 \
    X(INT, int, scaling, 10, 0, INT_MAX, GALA_QP_S_OSQP | GALA_QP_S_FIXED, NULL, NULL,           \
      "Ruiz scaling iterations (0: off)")                                                        \
    X(BOOL, int, polishing, 0, 0, 1, GALA_QP_S_OSQP, "polish", NULL,                             \
      "polish solved QPs (on the host, in double, one sparse LDL^T of the reduced KKT system per QP); can be "  \
      "turned on after setup only in a solver set up with it")                                   \
    X(REAL, double, rho, 0.1, 0, GALA_QP_S_INF, GALA_QP_S_OSQP | GALA_QP_S_FIXED | GALA_QP_S_GT, \
      NULL, NULL, "ADMM step rho (changed after setup by gala_qp_update_rho)")                  \
    X(BOOL, int, rho_is_vec, 1, 0, 1, GALA_QP_S_OSQP | GALA_QP_S_FIXED, "rho-vec", NULL,         \
      "rho per row: 1e3*rho on equalities, 1e-6 on free rows (off: one rho)")                    \
    X(REAL, double, sigma, 1e-6, 0, GALA_QP_S_INF, GALA_QP_S_OSQP | GALA_QP_S_FIXED | GALA_QP_S_GT, \
      NULL, NULL, "regularization sigma")                                                        \
    X(REAL, double, alpha, 1.6, 0, 2, GALA_QP_S_OSQP | GALA_QP_S_GT | GALA_QP_S_LT, NULL, NULL,  \
      "relaxation alpha")                                                                        \
    X(INT, int, cg_max_iter, 20, 1, INT_MAX, GALA_QP_S_OSQP, NULL, NULL,                         \
      "pcg: most CG iterations per linear solve")                                                \
    X(INT, int, cg_tol_reduction, 10, 1, INT_MAX, GALA_QP_S_OSQP, NULL, NULL,                    \
      "pcg: solves in a row without a CG iteration after which the tolerance fraction halves")  \
    X(REAL, double, cg_tol_fraction, 0.15, 0, 1, GALA_QP_S_OSQP | GALA_QP_S_GT, NULL, NULL,      \
      "pcg: CG tolerance as a fraction of sqrt(prim_res*dual_res) (of the right-hand side's "   \
      "norm at a solve's first iteration)")                                                      \
    X(ENUM, int, adaptive_rho, GALA_QP_ADAPTIVE_RHO_ITERATIONS, 0, 2, GALA_QP_S_OSQP | GALA_QP_S_FIXED, NULL,                  \
      "off\0iterations\0time\0",                                                                 \
      "when rho is re-estimated: every adaptive_rho_interval iterations, or at an interval "    \
      "fixed when the solve time first exceeds adaptive_rho_fraction of the setup time")        \
    X(INT, int, adaptive_rho_interval, 50, 0, INT_MAX, GALA_QP_S_OSQP | GALA_QP_S_FIXED, NULL,   \
      NULL, "iterations between rho updates")                                                    \
    X(REAL, double, adaptive_rho_fraction, 0.4, 0, GALA_QP_S_INF,                                \
      GALA_QP_S_OSQP | GALA_QP_S_FIXED | GALA_QP_S_GT, NULL, NULL,                               \
      "time mode: fraction of the setup time")                                                   \
    X(REAL, double, adaptive_rho_tolerance, 5, 1, GALA_QP_S_INF, GALA_QP_S_OSQP | GALA_QP_S_FIXED, \
      NULL, NULL, "change rho only when it changes by at least this factor")                    \
    X(INT, int, max_iter, 4000, 1, INT_MAX, GALA_QP_S_OSQP, NULL, NULL, "iteration limit per QP") \
    X(REAL, double, eps_abs, 1e-3, 0, GALA_QP_S_INF, GALA_QP_S_OSQP, NULL, NULL,                 \
      "absolute tolerance")                                                                      \
    X(REAL, double, eps_rel, 1e-3, 0, GALA_QP_S_INF, GALA_QP_S_OSQP, NULL, NULL,                 \
      "relative tolerance")                                                                      \
    X(REAL, double, eps_prim_inf, 1e-4, 0, GALA_QP_S_INF, GALA_QP_S_OSQP, NULL, NULL,            \
      "primal infeasibility tolerance")                                                          \
    X(REAL, double, eps_dual_inf, 1e-4, 0, GALA_QP_S_INF, GALA_QP_S_OSQP, NULL, NULL,            \
      "dual infeasibility tolerance")                                                            \
    X(BOOL, int, scaled_termination, 0, 0, 1, GALA_QP_S_OSQP, NULL, NULL,                        \
      "test the residuals of the scaled problem")                                                \
    X(INT, int, check_termination, 25, 0, INT_MAX, GALA_QP_S_OSQP, NULL, NULL,                   \
      "iterations between termination checks (0: only at max_iter)")                             \
    X(ENUM, int, check_dualgap, -1, -1, 1, GALA_QP_S_OSQP, NULL, "auto\0off\0on\0",              \
      "duality-gap test (auto: on in double, off in float, as OSQP's builds)")                   \
    X(REAL, double, time_limit, 1e10, 0, GALA_QP_S_INF, GALA_QP_S_OSQP, NULL, NULL,              \
      "seconds for the whole solve call (0: none)")                                              \
    X(REAL, double, delta, 1e-6, 0, GALA_QP_S_INF, GALA_QP_S_OSQP | GALA_QP_S_GT, NULL, NULL,    \
      "polishing regularization")                                                                \
    X(INT, int, polish_refine_iter, 3, 0, INT_MAX, GALA_QP_S_OSQP, NULL, NULL,                   \
      "polishing refinement steps")                                                              \
    /* ---- gala's settings ---- */                                                              \
    X(ENUM, gala_dtype, dtype, GALA_DOUBLE, 1, 2, GALA_QP_S_FIXED, "precision",                  \
      "float\0double\0", "arithmetic on the device (gala_dtype)")                                \
    X(REAL, double, rho_ladder_ratio, 5, 1, GALA_QP_S_INF, GALA_QP_S_FIXED | GALA_QP_S_GT, NULL, \
      NULL, "dense-shared: ratio between the rungs of the rho ladder")                           \
    X(INT, int, iters_per_launch, 0, 0, INT_MAX, 0, NULL, NULL,                                  \
      "most ADMM iterations one device launch runs (0: up to the next termination check)")      \
    X(ENUM, int, refine, -1, -1, 1, GALA_QP_S_FIXED, NULL, "auto\0off\0on\0",                    \
      "iterative refinement of each linear solve, K applied sparsely (twice the solve work; "   \
      "auto: on in float)")                                                                      \
    X(INT, int, threads, 0, 0, INT_MAX, GALA_QP_S_FIXED, NULL, NULL,                             \
      "host threads for the per-QP host work of setup, updates and results (0: automatic, "     \
      "the online cores up to 16 and one for small batches; 1: the calling thread only)")       \
    X(REAL, double, device_mem_limit, 0, 0, GALA_QP_S_INF, GALA_QP_S_FIXED, NULL, NULL,          \
      "bytes of device memory the batch may use: a batch whose device workspace is larger is "   \
      "solved in chunks that fit, in turn (two on the device at once), with the same results "   \
      "(0: automatic, 80 % of the device's global memory less what the context holds)")          \
    X(INT, int, max_chunk, 0, 0, INT_MAX, GALA_QP_S_FIXED, NULL, NULL,                           \
      "most QPs per chunk (0: as many as device_mem_limit allows)")                              \
    X(BOOL, int, profile, 0, 0, 1, GALA_QP_S_NOCLI, NULL, NULL,                                  \
      "wait for the device after every phase of setup and solve and record its wall time "      \
      "(gala_qp_get_profile)")
/* clang-format on */

/** Progress callback: called by the host between device launches with the number of QPs
 *  finished so far, the batch size, and the iteration the batch has reached. Return 0 to go
 *  on, nonzero to stop: the QPs still running get GALA_QP_INTERRUPTED. */
typedef int (*gala_qp_progress_fn)(void *user, int qps_done, int qps_total, int iteration);

/**
 * Settings: one field per row of GALA_QP_SETTINGS, in its order, then the progress callback.
 * Fill with gala_qp_settings_default(). The OSQP fields have OSQP 1.x's names, meanings and
 * defaults.
 */
typedef struct gala_qp_settings {
    /** @cond GALA_INTERNAL */
#define GALA_QP_SETTING_MEMBER_(kind, ctype, name, ...) ctype name;
    GALA_QP_SETTINGS(GALA_QP_SETTING_MEMBER_)
#undef GALA_QP_SETTING_MEMBER_
    /** @endcond */
    gala_qp_progress_fn progress; /**< optional progress callback (NULL: none; default) */
    void *progress_user;          /**< passed to progress */
} gala_qp_settings;

/** @brief Fill @p s with the table's defaults (progress NULL). NULL is ignored. */
GALA_API void gala_qp_settings_default(gala_qp_settings *s);

/** What the table says of one setting (gala_qp_settings_field). */
typedef struct gala_qp_setting_desc {
    const char *name;    /**< the field's name */
    const char *cli;     /**< gala-qp's option name without "--" (NULL with NO_CLI) */
    int kind;            /**< gala_qp_setting_kind */
    unsigned flags;      /**< GALA_QP_SETTING_* flags */
    size_t offset;       /**< offsetof(gala_qp_settings, name) */
    double def;          /**< default (ints and enums as doubles) */
    double lo, hi;       /* valid range [lo, hi] (see flags for open ends) */
    int nchoices;        /**< ENUM: hi - lo + 1 words; 0 otherwise */
    const char *help;    /**< one paragraph */
} gala_qp_setting_desc;
/** @var gala_qp_setting_desc::lo
 *  lower end of the valid range (open with GALA_QP_SETTING_LO_OPEN) */
/** @var gala_qp_setting_desc::hi
 *  upper end of the valid range (open with GALA_QP_SETTING_HI_OPEN) */

/** @brief Number of rows of GALA_QP_SETTINGS. */
GALA_API int gala_qp_settings_count(void);

/**
 * @brief The description of setting @p i (0 <= i < gala_qp_settings_count()).
 * @param desc receives a pointer to a static description.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (i out of range, desc NULL).
 */
GALA_API gala_status gala_qp_settings_field(int i, const gala_qp_setting_desc **desc);

/**
 * @brief The index of the setting named @p name (a field name, or a gala-qp option name).
 * @param index receives the index.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (no such setting; the message lists the names).
 */
GALA_API gala_status gala_qp_settings_find(const char *name, int *index);

/**
 * @brief The word of an ENUM setting's value ("dense-shared" for linsys_solver = 2).
 * @return a static string, or NULL when @p i is not an ENUM setting or value is outside it.
 */
GALA_API const char *gala_qp_setting_choice(int i, int value);

/**
 * @brief Read setting @p i of @p s as a double (ints and enums converted).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, i out of range).
 */
GALA_API gala_status gala_qp_settings_get(const gala_qp_settings *s, int i, double *value);

/**
 * @brief Set setting @p i of @p s from a double, checked against the table: an integral
 * value inside the range for BOOL, INT and ENUM, a value inside the range for REAL. The
 * struct is unchanged on failure.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (the message names the setting and its range).
 */
GALA_API gala_status gala_qp_settings_set(gala_qp_settings *s, int i, double value);

/**
 * @brief Check every setting of @p s against the table, as gala_qp_setup does.
 * @return GALA_OK; GALA_ERR_INVALID_ARG naming the first setting out of its range.
 */
GALA_API gala_status gala_qp_settings_check(const gala_qp_settings *s);

/** @brief Name of a linear-system strategy ("auto", "dense", "dense-shared", "sparse-ldlt",
 *  "pcg"), from the table; "unknown" otherwise. */
GALA_API const char *gala_qp_linsys_name(int linsys);

#ifdef __cplusplus
}
#endif

#endif /* GALA_QP_SETTINGS_H */
