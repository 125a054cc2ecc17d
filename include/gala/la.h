/**
 * @file la.h
 * @brief Dense factorizations: conventions shared by every routine family.
 *
 * Single matrix, uniform batch, variable batch — each routine comes in three forms:
 *   gala_X(ctx, ..., n, A, a_off, lda, ..., info)
 *   gala_X_batched(ctx, ..., n, A, a_off, lda, a_stride, ..., batch, info)
 *       matrix b at A[a_off + b·a_stride]
 *   gala_X_vbatched(ctx, ..., const int *n, A, const size_t *a_off, const int *lda, ..., batch, info)
 *       matrix b of size n[b] at A[a_off[b]] with leading dimension lda[b] (host arrays); all
 *       matrices of the batch live in the one buffer A, as in CLBlast's batched routines.
 *
 * Only the referenced triangle of a triangular or symmetric matrix is read or written; the
 * other triangle is left untouched (LAPACK semantics).
 *
 * Per-matrix info (host array of `batch` ints, or NULL when not wanted):
 *    0      the matrix was processed;
 *    k > 0  numerical failure at column k (1-based): the leading minor of order k is not
 *           positive definite (potrf), diagonal entry k is zero (trtri), pivot k is zero
 *           (ldlt);
 *   -k < 0  a NaN or Inf was met at column k (1-based).
 * Good matrices of a batch are always processed. The call's status is GALA_OK when every
 * info is 0; otherwise GALA_ERR_NOT_FINITE if any matrix met a NaN/Inf, else the family's
 * numerical status (GALA_ERR_NOT_POSITIVE_DEFINITE, GALA_ERR_SINGULAR), and
 * gala_last_error() names the first failing matrix and column. Routines that report info
 * wait for the device to finish (the info array is read back); the numerical outputs stay
 * on the device.
 */
#ifndef GALA_LA_H
#define GALA_LA_H

#include "gala/common.h"
#include "gala/trtri.h"
#include "gala/potrf.h"
#include "gala/ldlt.h"

#endif /* GALA_LA_H */
