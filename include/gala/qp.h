/**
 * @file qp.h
 * @brief Quadratic programs: minimize ½xᵀPx + qᵀx + c0 subject to l ≤ Ax ≤ u.
 *
 * A problem lives on the host in double precision; the solver converts it to the
 * precision it runs in. P is given by its upper triangle. Bounds may be ±INFINITY (IEEE);
 * equal bounds make an equality row.
 */
#ifndef GALA_QP_H
#define GALA_QP_H

#include "gala/common.h"
#include "gala/qp_settings.h"
#include "gala/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One QP. Either built by the caller (owned = 0: gala never frees its arrays) or
 *  allocated by gala (a reader or generator; owned = 1: release with
 *  gala_qp_problem_free()). */
typedef struct gala_qp_problem {
    char name[64]; /**< name for reports ("" if none) */
    int n;         /**< variables */
    int m;         /**< constraints (rows of A) */
    gala_csc P;    /**< n×n, upper triangle, positive semidefinite */
    double *q;     /**< linear cost, n entries */
    gala_csc A;    /**< m×n constraint matrix */
    double *l;     /**< lower bounds, m entries (-INFINITY: none) */
    double *u;     /**< upper bounds, m entries (+INFINITY: none) */
    double c0;     /**< constant term of the objective */
    int owned;     /**< 1 if the arrays were allocated by gala */
} gala_qp_problem;

/**
 * @brief Release the arrays of a problem gala allocated (owned = 1) and zero the struct.
 * Problems with owned = 0 are only zeroed. NULL is accepted.
 * @return GALA_OK.
 */
GALA_API gala_status gala_qp_problem_free(gala_qp_problem *problem);

/* ==================================================================================== */
/* Batched QP solver (OSQP's ADMM algorithm). See docs/qp.md.                          */
/* ==================================================================================== */

/** Status of one QP after gala_qp_solve(). Values 1..11 are OSQP's status values;
 *  gala adds GALA_QP_INVALID_DATA for a QP whose data were rejected at setup or update. */
typedef enum gala_qp_status {
    GALA_QP_SOLVED = 1,                      /**< solved to eps_abs / eps_rel */
    GALA_QP_SOLVED_INACCURATE = 2,           /**< solved to the looser tolerances only */
    GALA_QP_PRIMAL_INFEASIBLE = 3,           /**< a certificate of primal infeasibility */
    GALA_QP_PRIMAL_INFEASIBLE_INACCURATE = 4, /**< the same, to the looser tolerance */
    GALA_QP_DUAL_INFEASIBLE = 5,             /**< a certificate of dual infeasibility */
    GALA_QP_DUAL_INFEASIBLE_INACCURATE = 6,  /**< the same, to the looser tolerance */
    GALA_QP_MAX_ITER_REACHED = 7,            /**< max_iter iterations without convergence */
    GALA_QP_TIME_LIMIT_REACHED = 8,          /**< time_limit reached without convergence */
    GALA_QP_NON_CVX = 9,                     /**< P is not positive semidefinite */
    GALA_QP_INTERRUPTED = 10, /**< the progress callback asked to stop (OSQP's SIGINT) */
    GALA_QP_UNSOLVED = 11,    /**< set up but not solved yet */
    GALA_QP_INVALID_DATA = 12 /**< the QP's data are invalid (gala_qp_info.message says why) */
} gala_qp_status;

/** Per-QP information after a solve (OSQP's OSQPInfo). */
typedef struct gala_qp_info {
    int status;            /**< gala_qp_status */
    int iter;              /**< ADMM iterations run */
    int rho_updates;       /**< ρ changes during the solve (the last iteration's included) */
    int status_polish;     /**< OSQP's values: 0 not run, 1 success, -1 not better (kept
                                the ADMM solution), 2 no active constraint, -2 failure */
    double obj_val;        /**< ½xᵀPx + qᵀx + c0 (±1e30 for infeasible, NaN for non-convex) */
    double dual_obj_val;   /**< −½xᵀPx − S_C(y) + c0 */
    double prim_res;       /**< ‖Ax − z‖∞ (unscaled unless scaled_termination) */
    double dual_res;       /**< ‖Px + q + Aᵀy‖∞ */
    double duality_gap;    /**< xᵀPx + qᵀx + S_C(y) */
    double rho_estimate;   /**< ρ estimate of the last iterate and the ρ then in use (OSQP's
                                end-of-solve estimate) */
    double rho;            /**< ρ in use at the end */
    double setup_time;     /**< seconds of the batch setup (shared by the batch) */
    double solve_time;     /**< seconds from the solve call until this QP was seen finished */
    double update_time;    /**< seconds of the last update call */
    double polish_time;    /**< seconds spent polishing this QP */
    char message[96];      /**< why the data are invalid, or "" */
} gala_qp_info;

/** A batch of QPs set up on a device (gala_qp_setup()); freed by gala_qp_destroy(). */
typedef struct gala_qp_solver gala_qp_solver;

/**
 * @brief Set up a batch of QPs on a context's device: validate, copy, scale (Ruiz, on the
 * device) and factor them.
 * @param ctx      the context whose device solves the batch.
 * @param problems @p count problems, each with its own n, m and sparsity. They are copied:
 *                 the caller may free them after the call.
 * @param count    number of QPs (>= 1).
 * @param settings settings, or NULL for the defaults. Copied.
 * @param solver   receives the solver; NULL on failure.
 * A QP with invalid data (sizes that do not match, l > u, NaN, Inf in q or P or A, P not
 * square or with entries below the diagonal, malformed CSC) does not make the call fail:
 * it gets status GALA_QP_INVALID_DATA and the others are solved. A QP whose P is found
 * not convex (K = P + σI + AᵀρA not positive definite) gets GALA_QP_NON_CVX.
 * A batch whose device workspace exceeds settings.device_mem_limit (default: 80 % of a
 * GPU's memory less what the context holds), or that has more than settings.max_chunk QPs,
 * is set up in chunks of consecutive QPs, two on the device at a time (one iterates while the
 * next one comes to the device, on a second context of the same device and a thread of its
 * own), with the same results and API as one batch; the chunks not on the device wait in
 * host memory (docs/qp.md, "Batches larger than the device"; gala_qp_chunk_count).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL arguments, count < 1, bad settings, or the
 *         shared strategy forced on problems that do not share P and A); GALA_ERR_OUT_OF_MEMORY;
 *         GALA_ERR_DEVICE_MEMORY; GALA_ERR_NOT_SUPPORTED (double on a device without fp64,
 *         or SPARSE_LDLT asked for in a build without SuiteSparse AMD); GALA_ERR_KERNEL_BUILD;
 *         GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_qp_setup(struct gala_context *ctx, const gala_qp_problem *problems,
                                   int count, const gala_qp_settings *settings,
                                   gala_qp_solver **solver);

/**
 * @brief Set up a batch of QPs on several devices, one context each (docs/qp.md, "One batch
 * on several devices"): the batch is divided into consecutive shares by work (the sum of n²
 * of a device's QPs) in proportion to @p weights, each device's share set up as by
 * gala_qp_setup on its context (and in chunks there when it does not fit it). The solver
 * is used as one of gala_qp_setup: gala_qp_solve solves the shares concurrently (a thread
 * per device); results, updates and warm starts take the caller's QP order and layouts.
 * With contexts of the same backend and precision, every result equals the one-context
 * solve's bit for bit. The device-vector calls (gala_qp_*_device) are not available.
 * @param ctxs     @p nctx distinct contexts (ctxs[0] receives the messages of calls on the
 *                 solver); every context must stay alive until gala_qp_destroy and must not
 *                 be used by another thread during a call on the solver.
 * @param nctx     number of contexts (>= 1; 1 is gala_qp_setup on ctxs[0]).
 * @param weights  @p nctx positive relative speeds of the devices, or NULL for equal ones.
 * The other parameters are gala_qp_setup's. A device may get no QPs (more devices than QPs).
 * @return gala_qp_setup's statuses; GALA_ERR_INVALID_ARG also for a NULL or repeated
 *         context or a weight that is not positive and finite; a device's failure names it.
 */
GALA_API gala_status gala_qp_setup_devices(struct gala_context *const *ctxs, int nctx,
                                           const double *weights,
                                           const gala_qp_problem *problems, int count,
                                           const gala_qp_settings *settings,
                                           gala_qp_solver **solver);

/** @brief Number of devices (contexts) the batch was set up on: 1 for gala_qp_setup, nctx for
 *  gala_qp_setup_devices; 0 for NULL. */
GALA_API int gala_qp_device_count(const gala_qp_solver *solver);

/**
 * @brief Device @p d's share of the batch: QPs *k0 .. *k0 + *count - 1, in *chunks chunks
 * (any output may be NULL). A batch without valid QPs is all on device 0.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver, d outside 0 .. device count - 1).
 */
GALA_API gala_status gala_qp_device_share(const gala_qp_solver *solver, int d, int *k0,
                                          int *count, int *chunks);

/**
 * @brief Solve every QP of the batch. All QPs advance together on the device; each stops on
 * its own (status, max_iter); the call returns when all have stopped, the time limit is
 * reached, or the progress callback asked to stop. Results: gala_qp_get_info(),
 * gala_qp_get_solution(). A batch in chunks is solved chunk after chunk, the next one
 * brought to the device during the current one's iterations; when one chunk's part fails, its QPs get GALA_QP_UNSOLVED (no solution), the other chunks are solved, and
 * the call returns the failure's status with the chunk named in the message. A batch on
 * several devices (gala_qp_setup_devices) is solved on all of them at once; a device whose
 * part fails gives its QPs GALA_QP_UNSOLVED as a failed chunk does, and the message names
 * the device; the solver stays usable.
 * @return GALA_OK (whatever the per-QP statuses); GALA_ERR_INVALID_ARG; GALA_ERR_DEVICE and
 *         the other device errors.
 */
GALA_API gala_status gala_qp_solve(gala_qp_solver *solver);

/** @brief Number of QPs of the batch (0 for NULL). */
GALA_API int gala_qp_count(const gala_qp_solver *solver);

/** @brief The strategy the solver uses (gala_qp_linsys), or -1 for NULL. */
GALA_API int gala_qp_linsys_used(const gala_qp_solver *solver);

/** @brief Number of chunks the batch is solved in, in turn on the device: 1 when
 *  its device workspace fits settings.device_mem_limit and it has at most settings.max_chunk
 *  QPs (docs/qp.md, "Batches larger than the device"); 0 for NULL. */
GALA_API int gala_qp_chunk_count(const gala_qp_solver *solver);

/**
 * @brief Information about QP @p k (0-based) after setup or solve. After gala_qp_setup and
 * gala_qp_update_matrices, a QP whose K was found not positive definite already has status
 * GALA_QP_NON_CVX (as OSQP's setup and update fail there); one that factors again after an
 * update is GALA_QP_UNSOLVED.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, k out of range).
 */
GALA_API gala_status gala_qp_get_info(const gala_qp_solver *solver, int k, gala_qp_info *info);

/**
 * @brief Solution of QP @p k after a solve: pointers to arrays owned by the solver, valid
 * until the next solve, update or gala_qp_destroy(). Any output pointer may be NULL.
 * x (n), y (m): primal and dual solution (NaN when the status has no solution, as OSQP);
 * prim_inf_cert (m) / dual_inf_cert (n): certificates of primal / dual infeasibility
 * (normalized to ‖·‖∞ = 1; NaN when not infeasible).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver, k out of range, or not solved yet).
 */
GALA_API gala_status gala_qp_get_solution(const gala_qp_solver *solver, int k, const double **x,
                                          const double **y, const double **prim_inf_cert,
                                          const double **dual_inf_cert);

/**
 * @brief Information about QPs k0 .. k0 + count - 1 (gala_qp_get_info for a range).
 * @param infos array of @p count entries to fill.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, range outside the batch).
 */
GALA_API gala_status gala_qp_get_infos(const gala_qp_solver *solver, int k0, int count,
                                       gala_qp_info *infos);

/**
 * @brief Every QP's solution after a solve, copied into caller arrays in batch order: x (the
 * sum of the QPs' n) and y (the sum of their m), NaN for a QP whose status has no solution
 * (as gala_qp_get_solution). Either may be NULL.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver, or not solved yet).
 */
GALA_API gala_status gala_qp_get_solutions(const gala_qp_solver *solver, double *x, double *y);

/**
 * @brief Replace q, l, u of QP @p k (k = -1: of every QP, the arrays then hold all QPs'
 * vectors one after another in batch order). NULL keeps a vector. The sparsity, n and m do
 * not change. If a row changes kind (equality / inequality / free), ρ of that row changes
 * and the QP is refactored (DENSE); in DENSE_SHARED, where every QP shares the kinds of the
 * factored matrices, such a QP becomes GALA_QP_INVALID_DATA (its info message names the
 * row) until its kinds agree with the batch's again. Invalid new data (NaN, l > u) make that
 * QP GALA_QP_INVALID_DATA until valid data are given again. Neither is an error of the
 * call: the other QPs' updates apply. Iterates are kept (warm start).
 * @return GALA_OK; GALA_ERR_INVALID_ARG; device errors.
 */
GALA_API gala_status gala_qp_update_vectors(gala_qp_solver *solver, int k, const double *q,
                                            const double *l, const double *u);

/**
 * @brief Replace the values of P (upper triangle, in the CSC order given at setup) and/or A
 * of QP @p k (k = -1: every QP accepted at setup, values concatenated in batch order; a QP
 * rejected at setup — status GALA_QP_INVALID_DATA right after gala_qp_setup — has no
 * values there, gala_qp_adjoint_derivative_mat_nnz() gives each QP's counts), same sparsity. NULL
 * keeps a matrix. The QP is scaled again and refactored, as OSQP does; for k >= 0 that QP
 * alone: the others keep their scaling, factorization and state (status, iterations, ρ). In
 * DENSE_SHARED mode only k = -1 is allowed and every QP must receive the same values.
 * @return GALA_OK; GALA_ERR_INVALID_ARG; device errors.
 */
GALA_API gala_status gala_qp_update_matrices(gala_qp_solver *solver, int k, const double *Px,
                                             const double *Ax);

/**
 * @brief Set ρ of QP @p k (k = -1: every QP), as osqp_update_rho: clamped to [1e-6, 1e6];
 * equality and free rows take 1e3·ρ and 1e-6 as at setup (rho_is_vec). DENSE and
 * SPARSE_LDLT refactor the QPs concerned when the next solve starts, PCG recomputes their
 * preconditioner; DENSE_SHARED moves
 * them to the rung of its ρ ladder nearest to ρ (info.rho then reports the rung's value;
 * with adaptive ρ off the ladder has the setup's ρ alone).
 * With k = -1 the solver's settings.rho becomes ρ. Adaptive ρ, when on, may move ρ again
 * during the next solve.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver, k out of range, ρ not positive or not
 *         finite); device errors.
 */
GALA_API gala_status gala_qp_update_rho(gala_qp_solver *solver, int k, double rho);

/**
 * @brief The settings a solver runs with (those given to gala_qp_setup, as changed by
 * gala_qp_update_settings): a starting point for gala_qp_update_settings.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver or settings).
 */
GALA_API gala_status gala_qp_get_settings(const gala_qp_solver *solver, gala_qp_settings *settings);

/**
 * @brief Change a solver's settings between solves, as osqp_update_settings. The settings
 * flagged GALA_QP_SETTING_FIXED in the table (qp_settings.h) are fixed at setup and must keep
 * their value (ρ changes through gala_qp_update_rho); polishing may be turned on only in a
 * solver set up with it. Iterates and factorizations are kept.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, a value out of range, a fixed field changed,
 *         polishing turned on without its data; the solver's settings are then unchanged).
 */
GALA_API gala_status gala_qp_update_settings(gala_qp_solver *solver,
                                             const gala_qp_settings *settings);

/**
 * @brief Warm start QP @p k (k = -1: every QP, vectors concatenated) from primal x and/or
 * dual y (NULL keeps the current one); z is set to A·x as OSQP does.
 * @return GALA_OK; GALA_ERR_INVALID_ARG; device errors.
 */
GALA_API gala_status gala_qp_warm_start(gala_qp_solver *solver, int k, const double *x,
                                        const double *y);

/** @brief Set x, z, y of every QP to zero (OSQP's cold start). @return GALA_OK or an error. */
GALA_API gala_status gala_qp_cold_start(gala_qp_solver *solver);

/* ---- vectors in device memory (docs/qp.md, "Vectors in device memory") ------------- */
/* The caller's buffers (gala_buffer_create, or gala_buffer_wrap of a CUDA / OpenCL / host
 * array, e.g. a PyTorch or CuPy tensor) belong to the solver's context and have its dtype
 * (settings.dtype). Each holds every QP's vector one after another in batch order from its
 * offset (elements): sum of n for q and x, sum of m for l, u and y, QPs rejected at setup
 * keeping their place (their n, m count when their sizes were valid); a uniform batch's
 * vectors are a k×n row-major array. The values never pass through the host: the calls
 * only queue work on the context's queue (a CUDA caller's stream orders it) and return. */

/**
 * @brief Replace q, l, u of every QP of the batch from device buffers (layout above). NULL
 * keeps a vector. Same semantics as gala_qp_update_vectors(solver, -1, ...) in every
 * respect: invalid data (a non-finite q, NaN bounds, l > u, l = +∞, u = −∞) make that QP
 * GALA_QP_INVALID_DATA with a message naming the entry or row (gala_qp_get_info) until
 * valid data are given; a row changing kind refactors the QP (DENSE, SPARSE_LDLT, PCG) or,
 * in DENSE_SHARED, makes it INVALID_DATA; bounds are clamped to ±1e30 as OSQP; iterates
 * are kept (warm start); update_time is the call's time. Validation and the copy into the
 * solver's layout run on the device; the per-QP verdicts reach the host (info, and the
 * host copies of q, l, u that later partial gala_qp_update_vectors calls and polishing
 * use) the next time the host needs them, which then reads them back (one wait).
 * @param q, l, u  buffers of the context, of the solver's dtype, or NULL; q_off, l_off,
 *                 u_off: element offsets of the first QP's vectors.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver; a buffer of another context, of
 *         another dtype or too small for the range; a batch with more than 2^31 − 1 entries
 *         of one kind); GALA_ERR_DEVICE_MEMORY and the other device errors.
 */
GALA_API gala_status gala_qp_update_vectors_device(gala_qp_solver *solver,
                                                   const gala_buffer *q, size_t q_off,
                                                   const gala_buffer *l, size_t l_off,
                                                   const gala_buffer *u, size_t u_off);

/**
 * @brief After a solve: write every QP's x (sum of n) and y (sum of m) of the last solve
 * into device buffers (layout above), unscaled, polished where polishing succeeded, NaN
 * where the status has no solution (as gala_qp_get_solution: not solved, infeasible,
 * non-convex, invalid data, rejected at setup). Either buffer may be NULL. Only queued.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL solver, not solved yet, a buffer of another
 *         context, of another dtype or too small, x and y overlapping); device errors.
 */
GALA_API gala_status gala_qp_get_solution_device(const gala_qp_solver *solver,
                                                 gala_buffer *x, size_t x_off,
                                                 gala_buffer *y, size_t y_off);

/**
 * @brief gala_qp_warm_start(solver, -1, x, y) from device buffers (layout above): x and/or y
 * of every QP (NULL keeps one), z = A·x. Only queued.
 * @return GALA_OK; GALA_ERR_INVALID_ARG (as gala_qp_update_vectors_device); device errors.
 */
GALA_API gala_status gala_qp_warm_start_device(gala_qp_solver *solver,
                                               const gala_buffer *x, size_t x_off,
                                               const gala_buffer *y, size_t y_off);

/** @brief Release a solver and its device memory. NULL is accepted. @return GALA_OK. */
GALA_API gala_status gala_qp_destroy(gala_qp_solver *solver);

/** Phases of gala_qp_profile (docs/qp.md, "Profile"). Setup phases are recorded by
 *  gala_qp_setup (and gala_qp_update_matrices), solve phases by the last gala_qp_solve. */
typedef enum gala_qp_phase {
    GALA_QP_PHASE_VALIDATE = 0, /**< host: validation, copies, sharing detection */
    GALA_QP_PHASE_LAYOUT,       /**< host: device layout, sparsity patterns, staging */
    GALA_QP_PHASE_UPLOAD,       /**< device buffers and host-to-device transfers */
    GALA_QP_PHASE_SCALE,        /**< device: matrix expansion, Ruiz and cost scaling */
    GALA_QP_PHASE_FORM_K,       /**< device: K = P + σI + AᵀρA at setup */
    GALA_QP_PHASE_FACTOR,       /**< device: factorization and inversion of K at setup */
    GALA_QP_PHASE_SETUP_OTHER,  /**< the rest of setup (state initialization) */
    GALA_QP_PHASE_ITERATE,      /**< solve: ADMM iteration launches */
    GALA_QP_PHASE_CHECK,        /**< solve: termination-check launches */
    GALA_QP_PHASE_SYNC,         /**< solve: counting running QPs and reading the counter */
    GALA_QP_PHASE_REFACTOR,     /**< solve: refactorizations after ρ changes */
    GALA_QP_PHASE_COLLECT,      /**< solve: device-to-host read-back, unscaling, results */
    GALA_QP_PHASE_POLISH,       /**< solve: polishing on the host */
    GALA_QP_PHASE_SOLVE_OTHER,  /**< the rest of solve (state reset, time keeping) */
    GALA_QP_NPHASES
} gala_qp_phase;

/** Wall time per phase, with settings.profile = 1 (all zero otherwise). */
typedef struct gala_qp_profile {
    double seconds[GALA_QP_NPHASES]; /**< wall-clock seconds spent in each phase */
    int calls[GALA_QP_NPHASES];      /**< how many times each phase was entered */
    int enabled;                     /**< settings.profile of the solver */
} gala_qp_profile;

/**
 * @brief The phase times of the last setup and the last solve (settings.profile = 1: the
 * solver waits for the device at the end of every phase, so that each phase is charged its
 * own device work; the phases then add up to the calls' wall time).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL).
 */
GALA_API gala_status gala_qp_get_profile(const gala_qp_solver *solver, gala_qp_profile *profile);

/** @brief Short name of a phase ("validate", "layout", ...), or "unknown". */
GALA_API const char *gala_qp_phase_name(int phase);

/** @brief OSQP-style name of a status ("solved", "primal infeasible", ...). */
GALA_API const char *gala_qp_status_string(int status);

/* ------------------------------------------------------------------------------------ */
/* Problem generators (src/qp/generate.c): OSQP's benchmark families and the double     */
/* integrator of Dyro's batch-QP writeup. Seeded and deterministic; statistically        */
/* equivalent to the Python generators of osqp_benchmarks, not bit-identical.            */
/* ------------------------------------------------------------------------------------ */

/** Benchmark families. */
typedef enum gala_qp_family {
    GALA_QP_GEN_RANDOM = 1,     /**< random QP, n variables, m = 10n inequalities */
    GALA_QP_GEN_EQUALITY = 2,   /**< equality-constrained QP, m = n/2 */
    GALA_QP_GEN_CONTROL = 3,    /**< MPC, nx = n, nu = n/2, horizon 10: 16n vars, 27n rows */
    GALA_QP_GEN_PORTFOLIO = 4,  /**< n factors, 100n assets */
    GALA_QP_GEN_LASSO = 5,      /**< n features, 100n data points */
    GALA_QP_GEN_HUBER = 6,      /**< n features, 100n data points */
    GALA_QP_GEN_SVM = 7,        /**< n features, 100n data points */
    GALA_QP_GEN_DOUBLE_INTEGRATOR = 8 /**< horizon n (37 in the writeup): 3n vars, 3n rows */
} gala_qp_family;

/**
 * @brief Generate one QP of a family with size parameter @p n and @p seed. The problem is
 * allocated by gala (owned = 1): release it with gala_qp_problem_free().
 * @return GALA_OK; GALA_ERR_INVALID_ARG (unknown family, n out of range, NULL);
 *         GALA_ERR_OUT_OF_MEMORY.
 */
GALA_API gala_status gala_qp_generate(gala_qp_family family, int n, uint64_t seed,
                                      gala_qp_problem *problem);

/**
 * @brief The double-integrator MPC of Dyro's writeup from a given initial state
 * (position, velocity) and horizon (37 in the writeup): variables [x_1..x_T, u_0..u_{T-1}],
 * P = I, q = 0, dynamics as equalities, |u| ≤ 1. Only the first two rows of l and u depend
 * on the initial state, so a batch from many initial states shares P and A.
 */
GALA_API gala_status gala_qp_double_integrator(int horizon, double pos0, double vel0,
                                               gala_qp_problem *problem);

/** @brief Name of a family ("control", ...), or "unknown". */
GALA_API const char *gala_qp_family_name(gala_qp_family family);

#ifdef __cplusplus
}
#endif

#endif /* GALA_QP_H */
