/**
 * @file sparse.h
 * @brief Compressed sparse column (CSC) matrices, as QDLDL and OSQP take them.
 */
#ifndef GALA_SPARSE_H
#define GALA_SPARSE_H

#include "gala/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A sparse m×n matrix in compressed sparse column form, on the host.
 * Column j holds the entries k = p[j] .. p[j+1]-1 with row indices i[k] (strictly
 * increasing within a column) and values x[k]; p[0] = 0 and p[n] = nnz.
 * Symmetric matrices (P of a QP, KKT matrices) store their upper triangle only.
 */
typedef struct gala_csc {
    int m;     /**< rows */
    int n;     /**< columns */
    int *p;    /**< column pointers, n + 1 entries */
    int *i;    /**< row indices, p[n] entries */
    double *x; /**< values, p[n] entries */
} gala_csc;

/**
 * @brief Check that a CSC matrix is well formed: sizes >= 0, p non-decreasing from 0,
 * row indices in range and strictly increasing per column, values finite; with
 * @p upper_only, also square with no entry below the diagonal.
 * @param ctx   context that receives the message on failure, or NULL (thread slot).
 * @param name  the matrix's name for messages (e.g. "P").
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL arrays); GALA_ERR_INVALID_MATRIX with the
 *         column and entry at fault; GALA_ERR_NOT_FINITE for a NaN/Inf value.
 */
GALA_API gala_status gala_csc_validate(struct gala_context *ctx, const char *name,
                                       const gala_csc *A, int upper_only);

#ifdef __cplusplus
}
#endif

#endif /* GALA_SPARSE_H */
