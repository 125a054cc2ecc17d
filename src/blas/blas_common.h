/* Shared argument checks and launch helpers of the batched vector routines. */
#ifndef GALA_BLAS_COMMON_H
#define GALA_BLAS_COMMON_H

#include "../core/kernel.h"
#include "../../cl/gemv_abi.h"
#include "../../cl/vec_abi.h"

/** A strided batch of vectors as passed to a routine. */
typedef struct gala_vec_arg {
    const char *name;
    const struct gala_buffer *buf;
    size_t off, stride;
} gala_vec_arg;

/** Check ctx, sizes, and every vector (length n each, batch items): same context, same
 *  floating type (returned in *dtype), inside its buffer; the output (index `out`, or -1)
 *  may alias an input only exactly (same offset and stride). */
GALA_INTERNAL gala_status gala_vec_check(struct gala_context *ctx, const char *fn, int n, int batch,
                                         const gala_vec_arg *v, int nv, int out, gala_dtype *dtype);

/** Launch an element-wise kernel of vec.cl over n·batch elements with a grid-stride loop. */
GALA_INTERNAL gala_dims gala_vec_dims(const struct gala_context *ctx, long long total);

/** Smallest power of two >= n (1 for n <= 1), capped at cap. */
GALA_INTERNAL int gala_pow2_at_least(long long n, int cap);

/* Typed launches of the vec and gemv kernels, from their argument lists (cl/vec_abi.h,
 * cl/gemv_abi.h): vec_launch_<kernel>(ctx, kernel, dims, arguments...). */
GALA_LAUNCHER(vec_launch_axpby, VEC_ARGS_axpby)
GALA_LAUNCHER(vec_launch_ew_mul, VEC_ARGS_ew_mul)
GALA_LAUNCHER(vec_launch_clamp_box, VEC_ARGS_clamp_box)
GALA_LAUNCHER(vec_launch_norm_inf, VEC_ARGS_norm_inf)
GALA_LAUNCHER(vec_launch_dot_prod, VEC_ARGS_dot_prod)
GALA_LAUNCHER(gemv_launch_n, GEMV_ARGS_gemv_n)
GALA_LAUNCHER(gemv_launch_t, GEMV_ARGS_gemv_t)

#endif
