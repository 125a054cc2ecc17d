/*
 * The vec kernels' contract (cl/vec.cl, src/device/host/k_vec.c, src/blas and
 * src/core/probe.c), written once as cl/qp_abi.h says: per kernel an argument X-list
 * VEC_ARGS_<name>(F, X), from which the kernel's parameters (GALA_PARAMS), the host
 * kernel's signature (GALA_HOST_SIG) and the typed launch (GALA_LAUNCHER) are made.
 *
 * Item b of a vector argument x is x[xo + b·xs .. xo + b·xs + n); the reductions write
 * item b's result to res[ro + b].
 */
#ifndef GALA_VEC_ABI_H
#define GALA_VEC_ABI_H

/* axpby: y = alpha·x + beta·y over total = n·batch elements (y not read when beta = 0) */
#define VEC_ARGS_axpby(F, X) \
    F(I, int, n) X(L, gidx, total) X(R, REAL, alpha) X(B, const REAL, x) X(L, gidx, xo)     \
    X(L, gidx, xs) X(R, REAL, beta) X(B, REAL, y) X(L, gidx, yo) X(L, gidx, ys)

/* ew_mul: z = x·y element by element */
#define VEC_ARGS_ew_mul(F, X) \
    F(I, int, n) X(L, gidx, total) X(B, const REAL, x) X(L, gidx, xo) X(L, gidx, xs)        \
    X(B, const REAL, y) X(L, gidx, yo) X(L, gidx, ys) X(B, REAL, z) X(L, gidx, zo)          \
    X(L, gidx, zs)

/* clamp_box: y = min(max(x, l), u) */
#define VEC_ARGS_clamp_box(F, X) \
    F(I, int, n) X(L, gidx, total) X(B, const REAL, x) X(L, gidx, xo) X(L, gidx, xs)        \
    X(B, const REAL, l) X(L, gidx, lo) X(L, gidx, ls) X(B, const REAL, u) X(L, gidx, uo)    \
    X(L, gidx, us) X(B, REAL, y) X(L, gidx, yo) X(L, gidx, ys)

/* norm_inf: res[ro + b] = max |x_b|; segments of S lanes per item */
#define VEC_ARGS_norm_inf(F, X) \
    F(I, int, n) X(I, int, batch) X(I, int, S) X(B, const REAL, x) X(L, gidx, xo)           \
    X(L, gidx, xs) X(B, REAL, res) X(L, gidx, ro)

/* dot_prod: res[ro + b] = x_b · y_b */
#define VEC_ARGS_dot_prod(F, X) \
    F(I, int, n) X(I, int, batch) X(I, int, S) X(B, const REAL, x) X(L, gidx, xo)           \
    X(L, gidx, xs) X(B, const REAL, y) X(L, gidx, yo) X(L, gidx, ys) X(B, REAL, res)        \
    X(L, gidx, ro)

/* loop_probe: how many loop iterations one work-item may run (gala_loop_limit) */
#define VEC_ARGS_loop_probe(F, X) F(I, int, n) X(B, int, out)

#endif
