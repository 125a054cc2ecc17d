/**
 * @file gala.h
 * @brief gala: GPU-Agnostic Linear Algebra. Include this one header to get the whole API:
 *   - status codes, element types and flags (common.h),
 *   - contexts, device buffers and device information (device.h),
 *   - batched vector and matrix-vector operations (blas.h),
 *   - dense factorizations (la.h: trtri.h, potrf.h, ldlt.h),
 *   - sparse matrices (sparse.h), quadratic programs (qp.h) and QPS files (qps.h).
 *
 * Every header can also be included on its own.
 */
#ifndef GALA_GALA_H
#define GALA_GALA_H

#include "gala/common.h"
#include "gala/device.h"
#include "gala/blas.h"
#include "gala/la.h"
#include "gala/sparse.h"
#include "gala/qp.h"
#include "gala/qp_derivative.h"
#include "gala/qps.h"

#endif /* GALA_GALA_H */
