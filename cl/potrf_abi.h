/*
 * The potrf kernels' contract (cl/potrf.cl, src/device/host/k_potrf.c, src/la/potrf.c),
 * written once as cl/qp_abi.h says. Matrices of a variable batch come from descriptors
 * (cl/la_abi.h) when vb = 1; info[io + the matrix's info slot], the flag at flag[fo]
 * (epoch stored there on any event), scratch W from wo.
 *
 *   modes       POTRF_MODE_*: the bits of a panel launch's mode argument
 *   arguments   POTRF_ARGS_panel (potrf_panel, potrf_lane, potrf_pair, potrf_tile: launched
 *               alike), POTRF_ARGS_trsm (the panel's and two more), POTRF_ARGS_scan,
 *               POTRF_ARGS_fold (potrf_scan_finish, potrf_merge)
 */
#ifndef GALA_POTRF_ABI_H
#define GALA_POTRF_ABI_H

#include "la_abi.h"

/* mode of potrf_panel (and of the fused forms, which take POTRF_MODE_INFO only): 0 is a
 * chunked panel in one launch that reads the events earlier launches left in info */
#define POTRF_MODE_INFO 1   /* write info for every matrix (the first launch, or the fused one) */
#define POTRF_MODE_TAIL 2   /* write the rows >= N only, no info (then a HEAD launch) */
#define POTRF_MODE_HEAD 4   /* factor and write the rows < N and info */
#define POTRF_MODE_SPLIT 8  /* chunk 0 puts the rows < N and its stop into W (then COPY) */
#define POTRF_MODE_COPY 16  /* copy a SPLIT launch's rows < N from W into A */
#define POTRF_MODE_DIAG 32  /* with HEAD, fused geometry: the first unwritten column into
                             * W[wo + s] (for potrf_trsm) */

/* W of a SPLIT launch: per matrix s, N·N values (rows < N, leading dimension N) and its
 * first unwritten column, from wo + s·POTRF_SPLIT_W(N) */
#define POTRF_SPLIT_W(N) ((N) * (N) + 1)

/* potrf_panel-style launches: panel at j0 limited by wlim, nchunks chunks per matrix (0:
 * fused geometry), `count` matrices of order n at A[ao + s·as] (or descriptors) */
#define POTRF_ARGS_panel(F, X) \
    F(I, int, n) X(I, int, j0) X(I, int, wlim) X(I, int, count) X(I, int, nchunks)          \
    X(B, REAL, A) X(L, gidx, ao) X(I, int, lda) X(L, gidx, as) X(I, int, up)                \
    X(B, const int, desc) X(L, gidx, dofs) X(I, int, vb) X(B, int, info) X(L, gidx, io)     \
    X(B, int, flag) X(L, gidx, fo) X(I, int, epoch) X(I, int, mode) X(B, REAL, W)          \
    X(L, gidx, wo)

/* potrf_trsm: a panel launch's arguments (mode unused), then where its rows' first
 * non-finite column goes (atomic minimum into nfm[nfo + s]) */
#define POTRF_ARGS_trsm(F, X) POTRF_ARGS_panel(F, X) X(B, int, nfm) X(L, gidx, nfo)

/* potrf_scan: nblk blocks of scb stored columns per matrix; minima into tmp[to + s] */
#define POTRF_ARGS_scan(F, X) \
    F(I, int, n) X(I, int, count) X(I, int, nblk) X(I, int, scb) X(B, const REAL, A)        \
    X(L, gidx, ao) X(I, int, lda) X(L, gidx, as) X(I, int, up) X(B, const int, desc)        \
    X(L, gidx, dofs) X(I, int, vb) X(B, int, tmp) X(L, gidx, to)

/* potrf_scan_finish, potrf_merge: the minima tmp[to + s] into info */
#define POTRF_ARGS_fold(F, X) \
    F(I, int, count) X(B, const int, desc) X(L, gidx, dofs) X(I, int, vb)                   \
    X(B, const int, tmp) X(L, gidx, to) X(B, int, info) X(L, gidx, io) X(B, int, flag)      \
    X(L, gidx, fo) X(I, int, epoch)

#endif
