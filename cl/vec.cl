/*
 * vec: element-wise operations and per-item reductions on strided batches of vectors.
 *
 * Item b of vector x is x[xo + b·xs .. xo + b·xs + n).
 *
 * Element-wise kernels (axpby, ew_mul, clamp) run over the flattened index t = b·n + i with
 * a grid-stride loop, so any batch fits any launch size:
 *
 *     t:  | item 0: i = 0..n-1 | item 1: i = 0..n-1 | ... |      one work-item per element
 *
 * Reductions (norm_inf, dot) follow KeOps' 1-D scheme: partial results stay in registers
 * and local memory, never in global memory. A work-group of WG work-items is cut into
 * segments of S lanes (S a power of two, S <= WG, chosen by the host from n); segment s of
 * group g reduces item g·(WG/S) + s: its lanes stride over the item's elements, then a tree
 * reduction in local memory combines the S partial results and lane 0 writes the item's
 * result. Small items thus share a work-group instead of leaving most lanes idle.
 *
 *     work-group:  [ seg 0: S lanes | seg 1: S lanes | ... ]   WG/S items per group
 *
 * gala-defines: WG=256
 * -D parameters: WG (work-group size of the reductions, a power of two).
 */

/* the argument lists shared with the host (cl/vec_abi.h) */
#include "vec_abi.h"

KERNEL void axpby(GALA_PARAMS(VEC_ARGS_axpby))
{
    for (gidx t = GID(0); t < total; t += GSZ(0)) {
        const gidx b = t / n, i = t - b * n;
        const REAL xv = x[xo + b * xs + i];
        GLOBAL REAL *yp = y + yo + b * ys + i;
        *yp = (beta == (REAL)0) ? alpha * xv : alpha * xv + beta * *yp;
    }
}

KERNEL void ew_mul(GALA_PARAMS(VEC_ARGS_ew_mul))
{
    for (gidx t = GID(0); t < total; t += GSZ(0)) {
        const gidx b = t / n, i = t - b * n;
        z[zo + b * zs + i] = x[xo + b * xs + i] * y[yo + b * ys + i];
    }
}

KERNEL void clamp_box(GALA_PARAMS(VEC_ARGS_clamp_box))
{
    for (gidx t = GID(0); t < total; t += GSZ(0)) {
        const gidx b = t / n, i = t - b * n;
        /* comparisons rather than fmax/fmin so that a NaN in x stays NaN */
        const REAL lv = l[lo + b * ls + i], uv = u[uo + b * us + i];
        REAL v = x[xo + b * xs + i];
        v = v < lv ? lv : v;
        y[yo + b * ys + i] = v > uv ? uv : v;
    }
}

/* Tree reduction of the S partial values of one segment; returns the total in lane 0.
 * Every work-item of the group must call it (it contains barriers). */
#define SEGMENT_REDUCE(part, lid, lane, S, OP)                                              \
    do {                                                                                    \
        part[lid] = acc;                                                                    \
        for (int s_ = (S) >> 1; s_ > 0; s_ >>= 1) {                                         \
            LOCAL_BARRIER();                                                                \
            if ((lane) < s_) part[lid] = OP(part[lid], part[(lid) + s_]);                   \
        }                                                                                   \
    } while (0)

DEVFN REAL gala_absmax(REAL a, REAL b)
{
    /* max that propagates NaN (fmax would drop it) */
    return (a != a || b != b) ? a + b : (a > b ? a : b);
}
DEVFN REAL gala_add(REAL a, REAL b) { return a + b; }

KERNEL void norm_inf(GALA_PARAMS(VEC_ARGS_norm_inf))
{
    LOCAL_ARRAY REAL part[WG];
    const int lid = (int)LID(0), lane = lid & (S - 1);
    const gidx b = GRP(0) * (WG / S) + lid / S;
    REAL acc = 0;
    if (b < batch) {
        GLOBAL const REAL *xb = x + xo + b * xs;
        for (int i = lane; i < n; i += S) acc = gala_absmax(acc, fabs(xb[i]));
    }
    SEGMENT_REDUCE(part, lid, lane, S, gala_absmax);
    if (lane == 0 && b < batch) res[ro + b] = part[lid];
}

KERNEL void dot_prod(GALA_PARAMS(VEC_ARGS_dot_prod))
{
    LOCAL_ARRAY REAL part[WG];
    const int lid = (int)LID(0), lane = lid & (S - 1);
    const gidx b = GRP(0) * (WG / S) + lid / S;
    REAL acc = 0;
    if (b < batch) {
        GLOBAL const REAL *xb = x + xo + b * xs;
        GLOBAL const REAL *yb = y + yo + b * ys;
        for (int i = lane; i < n; i += S) acc += xb[i] * yb[i];
    }
    SEGMENT_REDUCE(part, lid, lane, S, gala_add);
    if (lane == 0 && b < batch) res[ro + b] = part[lid];
}

/* loop_probe: how many loop iterations one work-item may run (gala_loop_limit). Work-item
 * 0 runs a loop n times and writes how often it ran to out[0]. Some implementations cut
 * every work-item's loops short after a fixed number of iterations, counted over all the
 * loops it runs (Mesa's llvmpipe, under Rusticl: 65535), without an error; kernels whose
 * work-items loop longer then compute wrong results. The store in the loop keeps it a loop
 * (out[1] and out[2] may alias out[3]); out[1..3] start at 0. */
KERNEL void loop_probe(GALA_PARAMS(VEC_ARGS_loop_probe))
{
    if (GID(0) != 0) return;
    int c = 0;
    for (int i = 0; i < n; ++i) {
        c += 1 + out[1 + (i & 1)];
        out[3] = c;
    }
    out[0] = c;
}
