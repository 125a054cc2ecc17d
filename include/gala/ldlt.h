/**
 * @file ldlt.h
 * @brief LDLᵀ factorization without pivoting of symmetric quasi-definite matrices: dense
 * (one matrix, uniform batches, variable batches) and sparse (CSC, AMD ordering, symbolic
 * analysis once per pattern, numeric factorization and solves on the device for batches of
 * matrices that share a pattern, and for heterogeneous batches of several patterns).
 *
 * A symmetric matrix is quasi-definite when it has the form [H, Bᵀ; B, −G] with H and G
 * positive definite (OSQP's KKT matrix [P + σI, Aᵀ; A, −diag(ρ)⁻¹] is one). Every symmetric
 * permutation of such a matrix has an LDLᵀ factorization without pivoting, whose D has
 * exactly dim(H) positive and dim(G) negative entries (Vanderbei, 1995). gala factors any
 * symmetric matrix this way and reports, per matrix, a zero or non-finite pivot and the
 * inertia (counts of positive and negative pivots), so a caller can check quasi-definiteness.
 *
 * ## Dense storage (decided here, LAPACK sytrf-like packing without the pivot array)
 *   uplo = GALA_LOWER: A = L·D·Lᵀ. On exit the strictly lower triangle holds L (unit lower
 *                      triangular; its unit diagonal is not stored) and the diagonal holds D.
 *   uplo = GALA_UPPER: A = Uᵀ·D·U. The strictly upper triangle holds U (unit upper), the
 *                      diagonal D.
 * Only the uplo triangle is read or written. Conventions for batches and the per-matrix info
 * are those of la.h: info[b] = k > 0: pivot k (1-based) is exactly zero; −k: pivot k is NaN
 * or ±Inf (a NaN/Inf anywhere in the matrix reaches some pivot). After a failure the matrix
 * holds a partial factorization (unspecified values); the other matrices are factored.
 *
 * Inertia (host array of 2·batch ints, or NULL): inertia[2b] = number of positive pivots,
 * inertia[2b+1] = number of negative pivots of matrix b. For a failed matrix, the counts of
 * the pivots accepted before the failure.
 *
 * Status: GALA_OK when every info is 0; else GALA_ERR_NOT_FINITE if some matrix met a NaN/Inf,
 * else GALA_ERR_SINGULAR; gala_last_error() names the first failing matrix and column.
 * Other errors: GALA_ERR_INVALID_ARG (NULL, negative n/nrhs/batch, lda or ldb < max(1, n),
 * bad uplo, ranges outside the buffers, B overlapping A, mixed element types, overlapping
 * matrices of a uniform batch); GALA_ERR_NOT_SUPPORTED (double without fp64);
 * GALA_ERR_DEVICE_MEMORY; GALA_ERR_OUT_OF_MEMORY; GALA_ERR_KERNEL_BUILD; GALA_ERR_DEVICE.
 */
#ifndef GALA_LDLT_H
#define GALA_LDLT_H

#include "gala/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gala_context;
struct gala_buffer;
struct gala_csc; /* sparse.h */

/* ------------------------------------------------------------------------------------ */
/* Dense                                                                                 */
/* ------------------------------------------------------------------------------------ */

/**
 * @brief LDLᵀ factorization of one n×n symmetric matrix, in place (storage above).
 * @param ctx      context.
 * @param uplo     GALA_LOWER (A = L·D·Lᵀ) or GALA_UPPER (A = Uᵀ·D·U).
 * @param n        order (>= 0).
 * @param A        buffer holding the matrix at A[a_off], column-major, leading dimension lda.
 * @param info     host int, or NULL: 0, k > 0 (zero pivot k) or −k (NaN/Inf pivot k).
 * @param inertia  host array of 2 ints, or NULL: positive and negative pivot counts.
 * @return see the file comment.
 */
GALA_API gala_status gala_ldlt(struct gala_context *ctx, gala_uplo uplo, int n,
                               struct gala_buffer *A, size_t a_off, int lda, int *info,
                               int *inertia);

/**
 * @brief LDLᵀ of `batch` n×n matrices: matrix b at A[a_off + b·a_stride] (matrices must not
 * overlap: a_stride >= n is required when batch > 1). info and inertia as in gala_ldlt, per
 * matrix (batch and 2·batch ints).
 */
GALA_API gala_status gala_ldlt_batched(struct gala_context *ctx, gala_uplo uplo, int n,
                                       struct gala_buffer *A, size_t a_off, int lda,
                                       size_t a_stride, int batch, int *info, int *inertia);

/**
 * @brief LDLᵀ of `batch` matrices of sizes n[b] at A[a_off[b]], leading dimensions lda[b]
 * (host arrays). Matrices must not overlap. info and inertia as in gala_ldlt_batched.
 */
GALA_API gala_status gala_ldlt_vbatched(struct gala_context *ctx, gala_uplo uplo, const int *n,
                                        struct gala_buffer *A, const size_t *a_off,
                                        const int *lda, int batch, int *info, int *inertia);

/**
 * @brief Solve A·X = B with the factor from gala_ldlt (same uplo), for nrhs >= 0
 * right-hand sides, in place in B (n×nrhs, leading dimension ldb). The factor is assumed
 * valid (info 0); a zero pivot gives Inf/NaN in X. B must not overlap A.
 * @return GALA_OK; GALA_ERR_INVALID_ARG; GALA_ERR_NOT_SUPPORTED; GALA_ERR_DEVICE_MEMORY;
 *         GALA_ERR_KERNEL_BUILD; GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_ldlt_solve(struct gala_context *ctx, gala_uplo uplo, int n, int nrhs,
                                     const struct gala_buffer *A, size_t a_off, int lda,
                                     struct gala_buffer *B, size_t b_off, int ldb);

/** @brief Batched gala_ldlt_solve: factor b at A[a_off + b·a_stride], right-hand sides b at
 *  B[b_off + b·b_stride] (b_stride >= ldb·(nrhs−1) + n when batch > 1). */
GALA_API gala_status gala_ldlt_solve_batched(struct gala_context *ctx, gala_uplo uplo, int n,
                                             int nrhs, const struct gala_buffer *A, size_t a_off,
                                             int lda, size_t a_stride, struct gala_buffer *B,
                                             size_t b_off, int ldb, size_t b_stride, int batch);

/** @brief Variable-size gala_ldlt_solve: factor b of order n[b] at A[a_off[b]] (lda[b]),
 *  nrhs[b] right-hand sides at B[b_off[b]] (ldb[b]); host arrays. */
GALA_API gala_status gala_ldlt_solve_vbatched(struct gala_context *ctx, gala_uplo uplo,
                                              const int *n, const int *nrhs,
                                              const struct gala_buffer *A, const size_t *a_off,
                                              const int *lda, struct gala_buffer *B,
                                              const size_t *b_off, const int *ldb, int batch);

/* ------------------------------------------------------------------------------------ */
/* Sparse                                                                                */
/* ------------------------------------------------------------------------------------ */

/**
 * Sparse LDLᵀ in steps (as QDLDL, but with the numeric phase on the device for batches):
 *
 *   gala_sparse_ldlt_analyze    pattern of A (CSC, upper triangle) → symbolic object:
 *                               fill-reducing ordering P (AMD), elimination tree, column
 *                               counts, pattern of L, and the flat schedules of the numeric
 *                               factorization and of the solves. Host only, once per pattern.
 *   gala_sparse_ldlt_factor     values of a batch of matrices sharing the pattern (or several
 *                               groups of patterns) → a factor object on the device; this is
 *                               the only numeric step that allocates.
 *   gala_sparse_ldlt_refactor   new values, same patterns and batch: factor again in place
 *                               (no analysis, no allocation; e.g. after a change of ρ).
 *   gala_sparse_ldlt_solve      A·x = b for one or more right-hand sides per matrix.
 *   gala_sparse_ldlt_destroy / gala_sparse_ldlt_symbolic_destroy.
 *
 * The factorization is P·A·Pᵀ = L·D·Lᵀ, L unit lower triangular. Pivot k (1-based, as info
 * reports it) is the k-th in elimination order, i.e. original row/column perm[k−1]
 * (gala_sparse_ldlt_symbolic_perm); gala_last_error() names both.
 *
 * Values on the device. Matrix q of a batch (q = 0..total−1; with groups, the matrices of
 * group 0 first, then group 1, ...) has its values, in the order of the entries of its
 * pattern's CSC arrays (A->x order), at
 *     x[x_off + q·x_mstride + e·x_estride],  e = 0..nnz(A)−1.
 * Both common layouts are covered: strided (x_estride = 1, x_mstride >= nnz) and
 * interleaved (x_mstride = 1, x_estride >= total), which lets neighbouring work-items read
 * neighbouring addresses. Right-hand sides and solutions likewise:
 *     B[b_off + q·b_mstride + r·b_rstride + i·b_estride],  i = 0..n−1, r = 0..nrhs−1.
 *
 * Per-matrix info (host array of `total` ints, or NULL): 0, k > 0 (pivot k is zero), −k
 * (pivot k is NaN/Inf); the smallest such k in elimination order. Inertia (host array of
 * 2·total ints, or NULL): positive and negative pivot counts (computed over all pivots; for
 * a failed matrix they count the pivots that were nonzero and finite).
 * When the symbolic object has an expected count of positive pivots (options), a matrix with
 * info 0 but another count is reported as GALA_ERR_WRONG_INERTIA (its inertia array entry
 * shows the counts; info stays 0).
 * Status of factor/refactor: GALA_OK; GALA_ERR_NOT_FINITE if some matrix met a NaN/Inf, else
 * GALA_ERR_SINGULAR if some pivot is zero, else GALA_ERR_WRONG_INERTIA; the message names the
 * first failing matrix. The factor object stays usable (refactor with better values).
 */
/** The symbolic analysis of one or more sparsity patterns (host only; see above). */
typedef struct gala_sparse_ldlt_symbolic gala_sparse_ldlt_symbolic;
/** The numeric factors of a batch on the device (gala_sparse_ldlt_factor()). */
typedef struct gala_sparse_ldlt gala_sparse_ldlt;

/** Fill-reducing orderings. */
typedef enum gala_ordering {
    GALA_ORDERING_AMD = 0,     /**< SuiteSparse AMD on the pattern of A + Aᵀ (default) */
    GALA_ORDERING_NATURAL = 1, /**< no permutation */
    GALA_ORDERING_USER = 2     /**< the permutation given in options.perm */
} gala_ordering;

/** Options of gala_sparse_ldlt_analyze. Initialize with gala_sparse_ldlt_options_default(). */
typedef struct gala_sparse_ldlt_options {
    gala_ordering ordering; /**< GALA_ORDERING_AMD by default */
    /** GALA_ORDERING_USER: perm[k] = the original index of the k-th pivot (n entries, a
     *  permutation of 0..n−1); copied by analyze. */
    const int *perm;
    /** Required number of positive pivots (e.g. the n of a QP's KKT matrix), checked by
     *  factor and refactor; −1 (default): no check. */
    int expected_positive;
} gala_sparse_ldlt_options;

/** What a symbolic analysis found (gala_sparse_ldlt_symbolic_stats). */
typedef struct gala_sparse_ldlt_stats {
    int n;               /**< order */
    long long nnz_a;     /**< entries of the upper triangle given */
    long long nnz_l;     /**< entries of L strictly below the diagonal */
    double flops;        /**< multiply-adds of one numeric factorization */
    int levels;          /**< height of the elimination tree (levels of the schedule) */
    int max_level_width; /**< most columns in one level (parallelism across columns) */
    long long instructions; /**< fixed-size instructions of the factor schedule */
} gala_sparse_ldlt_stats;

/** @brief Defaults: AMD, no user permutation, no inertia check. NULL is ignored. */
GALA_API void gala_sparse_ldlt_options_default(gala_sparse_ldlt_options *opts);

/**
 * @brief Symbolic analysis of a symmetric pattern given as the upper triangle of an n×n CSC
 * matrix (diagonal entries may be absent: the pivot then starts from 0).
 * @param ctx   context that receives error messages (the symbolic object is host data and may
 *              be used with any context afterwards).
 * @param A     the pattern; A->x may be NULL (values are not used; when given they must be
 *              finite).
 * @param opts  options, or NULL for the defaults.
 * @param sym   receives the new object (NULL on failure).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, bad option, user perm not a permutation);
 *         GALA_ERR_INVALID_MATRIX (not square, p not non-decreasing from 0, row out of range,
 *         unsorted or duplicate rows, an entry below the diagonal; the message names the
 *         column and entry); GALA_ERR_NOT_FINITE (A->x holds NaN/Inf);
 *         GALA_ERR_NOT_SUPPORTED (AMD requested but gala was built without SuiteSparse AMD);
 *         GALA_ERR_OUT_OF_MEMORY (also when nnz(L) exceeds 2³¹−1).
 */
GALA_API gala_status gala_sparse_ldlt_analyze(struct gala_context *ctx, const struct gala_csc *A,
                                              const gala_sparse_ldlt_options *opts,
                                              gala_sparse_ldlt_symbolic **sym);

/** @brief Release a symbolic object (NULL is accepted). Factor objects made from it stay
 *  valid (they hold their own copies). */
GALA_API void gala_sparse_ldlt_symbolic_destroy(gala_sparse_ldlt_symbolic *sym);

/** @brief Sizes and costs found by the analysis. @return GALA_OK; GALA_ERR_INVALID_ARG. */
GALA_API gala_status gala_sparse_ldlt_symbolic_stats(const gala_sparse_ldlt_symbolic *sym,
                                                     gala_sparse_ldlt_stats *stats);

/** @brief Copy the fill-reducing permutation (n ints: perm[k] = original index of pivot k).
 *  @return GALA_OK; GALA_ERR_INVALID_ARG. */
GALA_API gala_status gala_sparse_ldlt_symbolic_perm(const gala_sparse_ldlt_symbolic *sym,
                                                    int *perm);

/**
 * @brief Factor a batch of `batch` matrices sharing the pattern of @p sym: allocate the
 * factor object on the device and compute P·A_q·Pᵀ = L_q·D_q·L_qᵀ for every q.
 * @param ctx     context (device) of the factors; x must belong to it.
 * @param sym     symbolic object from gala_sparse_ldlt_analyze.
 * @param batch   number of matrices (>= 0).
 * @param x, x_off, x_mstride, x_estride   values (see the layout above); the element type of
 *                x (float or double) is the precision of the factor object.
 * @param F       receives the factor object; it is also returned when the status is a
 *                numerical one (NOT_FINITE, SINGULAR, WRONG_INERTIA), NULL on other errors.
 * @param info, inertia   per-matrix results (see above), or NULL.
 * @return see above; also GALA_ERR_INVALID_ARG (NULL, negative batch, x range, stride
 *         overflow), GALA_ERR_DEVICE_MEMORY, GALA_ERR_OUT_OF_MEMORY, GALA_ERR_KERNEL_BUILD,
 *         GALA_ERR_DEVICE, GALA_ERR_NOT_SUPPORTED.
 */
GALA_API gala_status gala_sparse_ldlt_factor(struct gala_context *ctx,
                                             const gala_sparse_ldlt_symbolic *sym, int batch,
                                             const struct gala_buffer *x, size_t x_off,
                                             size_t x_mstride, size_t x_estride,
                                             gala_sparse_ldlt **F, int *info, int *inertia);

/**
 * @brief Heterogeneous batch: `ngroups` groups, group g of batch[g] matrices sharing the
 * pattern sym[g]; all groups are factored by one kernel launch. Matrix q counts across the
 * groups in order (group 0's matrices first). Arguments otherwise as gala_sparse_ldlt_factor.
 */
GALA_API gala_status gala_sparse_ldlt_factor_groups(struct gala_context *ctx, int ngroups,
                                                    const gala_sparse_ldlt_symbolic *const *sym,
                                                    const int *batch, const struct gala_buffer *x,
                                                    size_t x_off, size_t x_mstride,
                                                    size_t x_estride, gala_sparse_ldlt **F,
                                                    int *info, int *inertia);

/**
 * @brief Factor again with new values (same patterns, same batch, any layout of x): no
 * analysis and no allocation. x must have the factor's element type and context.
 * @return as gala_sparse_ldlt_factor.
 */
GALA_API gala_status gala_sparse_ldlt_refactor(gala_sparse_ldlt *F, const struct gala_buffer *x,
                                               size_t x_off, size_t x_mstride, size_t x_estride,
                                               int *info, int *inertia);

/**
 * @brief Solve A_q·X = B_q for every matrix q of the factor object, nrhs >= 0 right-hand
 * sides each (layout above). X may be B itself with the same offsets and strides (in place);
 * otherwise X must not overlap B. Uses the last factorization (assumed successful).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL, types or context differ from the factor's,
 *         ranges, overlap); GALA_ERR_KERNEL_BUILD; GALA_ERR_DEVICE.
 */
GALA_API gala_status gala_sparse_ldlt_solve(gala_sparse_ldlt *F, int nrhs,
                                            const struct gala_buffer *B, size_t b_off,
                                            size_t b_mstride, size_t b_rstride,
                                            size_t b_estride, struct gala_buffer *X,
                                            size_t x_off, size_t x_mstride, size_t x_rstride,
                                            size_t x_estride);

/** @brief Number of matrices (all groups) of a factor object, or 0 for NULL. */
GALA_API int gala_sparse_ldlt_batch(const gala_sparse_ldlt *F);

/** @brief Release a factor object and its device memory (NULL is accepted). */
GALA_API void gala_sparse_ldlt_destroy(gala_sparse_ldlt *F);

#ifdef __cplusplus
}
#endif

#endif /* GALA_LDLT_H */
