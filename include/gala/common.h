/**
 * @file common.h
 * @brief gala: status codes, element types and flags shared by every header.
 *
 * Conventions used by every routine:
 *   - Every function returns a ::gala_status (GALA_OK = 0, errors are negative).
 *     The library never prints, exits or aborts. When a call fails, gala_last_error()
 *     gives a message with the detail (which argument, which matrix of a batch, the
 *     kernel compiler's log, ...).
 *   - Matrices are column-major with a leading dimension; offsets, strides and leading
 *     dimensions are counted in elements, not bytes.
 *   - The precision (float or double) of a routine is the element type of the buffers
 *     passed to it, chosen at run time when the buffers are created.
 */
#ifndef GALA_COMMON_H
#define GALA_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of these headers (gala_version() gives the library's at run time). */
#define GALA_VERSION_MAJOR 0
/** Minor version of these headers. */
#define GALA_VERSION_MINOR 1
/** Patch version of these headers. */
#define GALA_VERSION_PATCH 0

/** Marks the library's exported functions (symbol visibility); nothing for callers to do. */
#if defined(_WIN32) && defined(GALA_SHARED_BUILD)
#define GALA_API __declspec(dllexport)
#elif defined(__GNUC__)
#define GALA_API __attribute__((visibility("default")))
#else
#define GALA_API
#endif

/** A context: one backend and one device (device.h). */
typedef struct gala_context gala_context;
/** A typed device buffer owned by a context (device.h). */
typedef struct gala_buffer gala_buffer;

/** Status returned by every gala function. 0 is success, errors are negative. */
typedef enum gala_status {
    /** Success. */
    GALA_OK = 0,
    /** An argument is wrong: NULL pointer, negative or inconsistent size, leading dimension
     *  too small, mismatched element types, size that overflows. */
    GALA_ERR_INVALID_ARG = -1,
    /** Host memory could not be allocated. */
    GALA_ERR_OUT_OF_MEMORY = -2,
    /** Device memory could not be allocated (the batch may be too large for the device). */
    GALA_ERR_DEVICE_MEMORY = -3,
    /** The device or its driver reported a failure (launch, transfer, lost device). */
    GALA_ERR_DEVICE = -4,
    /** A kernel failed to compile; gala_last_error() holds the compiler's log. */
    GALA_ERR_KERNEL_BUILD = -5,
    /** The operation is not supported here (e.g. double precision on a device without fp64,
     *  or a backend this build does not contain). */
    GALA_ERR_NOT_SUPPORTED = -6,
    /** No usable device or backend was found for the requested selection. */
    GALA_ERR_NO_DEVICE = -7,
    /** At least one matrix is not (numerically) positive definite; the per-matrix info
     *  array says which and where. */
    GALA_ERR_NOT_POSITIVE_DEFINITE = -8,
    /** At least one matrix is singular (zero pivot or zero diagonal entry); the per-matrix
     *  info array says which and where. */
    GALA_ERR_SINGULAR = -9,
    /** The input holds NaN or Inf where finite values are required. */
    GALA_ERR_NOT_FINITE = -10,
    /** A file could not be opened, read or written. */
    GALA_ERR_IO = -11,
    /** A file or string could not be parsed (the message names line and column). */
    GALA_ERR_PARSE = -12,
    /** Matrix data are malformed (e.g. a CSC matrix with unsorted or out-of-range indices,
     *  duplicates, or entries below the diagonal where only the upper triangle is allowed). */
    GALA_ERR_INVALID_MATRIX = -13,
    /** A symmetric matrix does not have the inertia it must have (e.g. a quasi-definite
     *  KKT matrix with the wrong count of positive and negative pivots). */
    GALA_ERR_WRONG_INERTIA = -14,
    /** An internal invariant failed: a bug in gala. Please report it. */
    GALA_ERR_INTERNAL = -15
} gala_status;

/** Element type of a buffer. Routines run in the precision of the buffers they are given. */
typedef enum gala_dtype {
    GALA_FLOAT = 1,  /**< 32-bit IEEE float */
    GALA_DOUBLE = 2, /**< 64-bit IEEE double */
    GALA_INT = 3     /**< 32-bit signed integer (info arrays, indices) */
} gala_dtype;

/** Which triangle of a matrix is referenced (values as in CBLAS). */
typedef enum gala_uplo { GALA_UPPER = 121, GALA_LOWER = 122 } gala_uplo;

/** Whether a matrix is used as is or transposed (values as in CBLAS). */
typedef enum gala_trans { GALA_NO_TRANS = 111, GALA_TRANS = 112 } gala_trans;

/** Whether a triangular matrix has a unit diagonal (values as in CBLAS). */
typedef enum gala_diag { GALA_NON_UNIT = 131, GALA_UNIT = 132 } gala_diag;

/** Which side a triangular matrix multiplies from (values as in CBLAS). */
typedef enum gala_side { GALA_LEFT = 141, GALA_RIGHT = 142 } gala_side;

/**
 * @brief Short English name of a status code ("GALA_ERR_INVALID_ARG: invalid argument").
 * @param status any value; unknown values give "unknown status".
 * @return a static string, never NULL.
 */
GALA_API const char *gala_status_string(gala_status status);

/**
 * @brief Size in bytes of one element of a type.
 * @return 4 or 8, or 0 for an unknown type.
 */
GALA_API size_t gala_dtype_size(gala_dtype dtype);

/** @brief Name of an element type: "float", "double", "int", or "unknown". */
GALA_API const char *gala_dtype_name(gala_dtype dtype);

/** @brief The library's version as "MAJOR.MINOR.PATCH". */
GALA_API const char *gala_version(void);

#ifdef __cplusplus
}
#endif

#endif /* GALA_COMMON_H */
