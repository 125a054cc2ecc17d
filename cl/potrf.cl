/*
 * potrf: Cholesky factorization of strided or variable-size batches (src/la/potrf.c).
 *
 * Coordinates. Every kernel works on the factor L in "L coordinates": for uplo = lower,
 * L(i,j) is stored at A[base + i + j·ld]; for uplo = upper the stored U = Lᵀ, so L(i,j) is
 * at A[base + j + i·ld]. One code path therefore serves both triangles; `up` selects the
 * mapping at run time.
 *
 * Matrices of a launch. vb = 0: matrix s of the launch is at A[ao + s·as] with order n and
 * leading dimension lda; its info slot is s. vb = 1: descriptor s (LA_D_*, cl/la_abi.h)
 * gives order, leading dimension, 64-bit offset and the caller's index of the matrix (its
 * info slot). Arguments, modes and layouts: cl/potrf_abi.h.
 *
 * Events (la.h info). At column j (global, 1-based j+1): if a row < N of the work-group has
 * a non-finite value in column j, or the pivot d is not finite: -(j+1); else if d <= 0:
 * j+1. The first event of a matrix is kept; columns at and after it are not written back
 * (they keep their previous contents). The event flags of a column are exchanged in local
 * memory before the barrier that publishes the column, so all work-items of a matrix agree.
 * Any event also stores `epoch` into flag[fo] (the host's cheap "anything failed?" test).
 *
 * The kernels, one file per form under cl/potrf/ (the order below is the program's):
 *   common.clh   what every form uses: the matrix of a launch, earlier events, L(i, j)
 *   panel.cl     potrf_panel: a column panel, a register row per work-item; fused (a whole
 *                small matrix) or chunked (the blocked path), modes POTRF_MODE_*
 *   trsm.cl      potrf_trsm (TRSM = 1): the rows below a panel's factored diagonal block
 *   scan.cl      potrf_scan, potrf_scan_finish, potrf_merge: NaN/Inf before the blocked path
 *   lane.cl      potrf_lane (LANE = 1): one work-item per matrix, orders <= 16
 *   pair.cl      potrf_pair (PAIR = 1): two rows per work-item, orders 16..64
 *   tile.cl      potrf_tile (TILE = 1): a tile of L per work-item
 * A program is this file with the forms its -D values switch on (gala_kernel_source expands
 * the #includes); src/la/potrf.c picks the form per order (docs/cholesky.md).
 *
 * gala-defines: N=32 WG=128 UNROLL=1 SEL=1 VEC=1 SPLITK=1 MINB=4 HALF=1
 * gala-defines(potrf_lane): N=8 WG=64 UNROLL=1 LANE=1 CH=64
 * gala-defines(potrf_pair): N=32 WG=128 UNROLL=1 PAIR=1 PDIAG=1
 * gala-defines(potrf_trsm): N=64 WG=128 UNROLL=1 VEC=1 TRSM=1
 * gala-defines(potrf_tile): N=64 WG=288 UNROLL=1 TILE=1 TS=4 MPG=2
 * -D parameters: N (panel width and register row length, a power of two <= 64), WG
 *                (work-group size, a power of two, a multiple of N), UNROLL (0 or 1), SEL
 *                (0 or 1: how potrf_panel indexes its register row, see there), VEC (0 or
 *                1: read the column in local memory as RVEC vectors, where N is a multiple
 *                of RVW), HALF (0 or 1, N = 64: the first 32 rows stop their update at
 *                column 31), SPLITK (1: the modes SPLIT and COPY exist; the host compiles
 *                them only for chunked launches), MINB (potrf_panel: work-groups per SM the
 *                CUDA compiler must fit; 0: none), LANE (1: compile potrf_lane), CH (its
 *                reads in flight per work-item, a divisor of N·N), PAIR (1: compile
 *                potrf_pair; PDIAG 1: with its DIAG form), TRSM (1: compile potrf_trsm;
 *                RVST 1: its diagonal block staged and read as vectors only),
 *                TILE (1: compile potrf_tile), TS, MPG (its tile size and matrices per
 *                work-group).
 */
#include "potrf/common.clh"
#include "potrf/panel.cl"
#include "potrf/trsm.cl"
#include "potrf/scan.cl"
#include "potrf/lane.cl"
#include "potrf/pair.cl"
#include "potrf/tile.cl"
