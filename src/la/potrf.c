/*
 * Cholesky factorization: gala_potrf, gala_potrf_batched, gala_potrf_vbatched.
 *
 * Algorithms (docs/cholesky.md):
 *   n <= potrf.fused_max   one fused launch of potrf_panel: each matrix read once, factored
 *                          in registers, written once (N = smallest power of two >= n);
 *                          for N <= potrf.lane, of potrf_lane (one work-item per matrix);
 *                          for potrf.tile_min <= N <= potrf.tile, of potrf_tile (a tile
 *                          of L per work-item); for N <= potrf.pair, of potrf_pair (two
 *                          rows per work-item).
 *   batches, larger n      potrf_scan (NaN/Inf) then right-looking blocked steps of width
 *                          potrf.nb: potrf_panel on the column panel (chunked over rows),
 *                          gemm_upd for the trailing lower triangle.
 *   one matrix, n >= potrf.blas3_min, backend with BLAS-3
 *                          steps of width potrf.blas3_nb: the BLAS-3 update (left-looking:
 *                          SYRK + GEMM of the panel from the columns left of it; or right-
 *                          looking: SYRK of the trailing matrix), then the diagonal block
 *                          factored by gala's own kernels as above and the rows below it by
 *                          TRSM (potrf.trsm; 0: the whole tall panel by gala's kernels).
 *                          potrf.lookahead: the panel chain on a second queue, overlapped
 *                          with the next block's update (pf_lookahead).
 * Variable batches: matrices <= fused_max go to power-of-two buckets (one fused launch per
 * bucket), the others are sorted by n (largest first) and run the blocked steps together;
 * at step j only the prefix of matrices with n > j is launched.
 */
#include <stdio.h>
#include <string.h>

#include "../core/blas3.h"
#include "la_common.h"
#include "../../cl/potrf_abi.h"

/* Typed launches of the potrf kernels, from their argument lists (cl/potrf_abi.h) */
GALA_LAUNCHER(potrf_launch_panel, POTRF_ARGS_panel)
GALA_LAUNCHER(potrf_launch_trsm, POTRF_ARGS_trsm)
GALA_LAUNCHER(potrf_launch_scan, POTRF_ARGS_scan)
GALA_LAUNCHER(potrf_launch_fold, POTRF_ARGS_fold)

typedef struct pf_cfg {
    int fused_max; /* n <= fused_max: one fused launch */
    int min_bucket; /* smallest N of fused launches */
    int nb;        /* panel width N of the blocked path (power of two, <= 64) */
    int wg_fused;  /* work-group of fused launches (several matrices per group) */
    int wg_panel;  /* work-group of chunked panel launches: N diagonal rows + the rest */
    int blas3_min; /* one matrix of n >= blas3_min uses BLAS-3 when the backend has it */
    int blas3_nb;  /* step of the BLAS-3 path (multiple of nb) */
    int left;      /* BLAS-3 path: 1 left-looking, 0 right-looking */
    int trsm;      /* BLAS-3 path: 1 diagonal block by gala's kernels, rows below by TRSM;
                      0 the whole tall panel by gala's kernels */
    int tnb;       /* without trsm: the tall block column in sub-steps of tnb columns
                      (multiple of nb; 0 = one pass), each factored by gala's kernels and
                      the rest of the block column updated from it through the BLAS */
    int inner;     /* with trsm: the diagonal block in steps of nb, each a panel launch on
                      its nb rows + TRSM of the rest (1), or the chunked panel on all its
                      rows (2); then SYRK */
    int split;     /* multi-chunk panels: one factoring launch + a copy instead of two
                      factoring launches: 0 never, 1 for one large matrix (BLAS-3 path), 2
                      always */
    int ob;        /* batches: outer blocks of ob columns (multiple of nb; 0 = none): the
                      panels of one block update only its columns, then one update of the
                      rest by all ob columns at once */
    int lookahead; /* BLAS-3 path, left-looking: block column k factored on lane 1 while
                      lane 0 updates block k + 1 from the columns left of k */
    int lookahead_right; /* BLAS-3 path, right-looking: block column k + 1 updated and
                      factored on lane 1 while lane 0 updates the rest of the trailing
                      triangle */
    int reserve;   /* with lookahead: compute units lane 0's BLAS-3 leaves to lane 1 */
    int big;       /* set by pf_blas3 on its copy: the BLAS-3 path of one large matrix */
    int lane;      /* fused launches of N <= lane: potrf_lane, one work-item per matrix */
    int lane_wg;   /* its work-group (matrices per group), lowered to fit local memory */
    int lane_ch;   /* its reads in flight per work-item */
    int pair;      /* fused launches of pair_min <= N <= pair (not potrf_lane's): */
    int pair_min;  /* potrf_pair, two rows per work-item */
    int pair_diag; /* DIAG launches of pf_panel_solve at such N by potrf_pair too */
    int tile;      /* fused launches of tile_min <= N <= tile (not potrf_lane's): */
    int tile_min;  /* potrf_tile, a tile_ts × tile_ts tile of L per work-item, */
    int tile_ts;   /* tile_mpg matrices per work-group */
    int tile_mpg;
    int psolve;    /* panels with rows below their diagonal block: the block alone (DIAG)
                      then potrf_trsm for the rows below; 0 never, 1 batches (not the
                      BLAS-3 path of one large matrix), 2 always */
    int psolve_wg; /* potrf_trsm's work-group: rows per group */
    int noscan;    /* set by pf_batch: no potrf_scan ran, the first panel launch writes
                      info and potrf_trsm reports its rows' non-finite values */
    int lanes_n;   /* pf_batch with psolve, strided batches of order >= lanes_n (0:
                      never) and at least lanes_min matrices: two halves, one per lane */
    int lanes_min;
    int wbase;     /* W slot of the set's first matrix (the second half's offset) */
    int p32_min;   /* strided batches of order 33..64 and at least this many matrices (0:
                      never): two panels of 32 on the blocked path (pf_two_panels) */
    int p32_vb;    /* the same for a variable batch's bucket of orders 33..64 */
} pf_cfg;

static int clampi(long v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : (int)v); }

static void pf_config(const gala_context *ctx, gala_dtype dt, pf_cfg *c)
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    c->nb = la_pow2(clampi(T->potrf.nb, 8, 64), 8);
    c->fused_max = clampi(T->potrf.fused_max, 0, 64);
    c->min_bucket = la_pow2(clampi(T->la.min_bucket, 1, 64), 1);
    c->wg_fused = la_wg(ctx, T->potrf.wg, 8);
    c->wg_panel = la_wg(ctx, T->potrf.panel_wg, 2 * c->nb);
    c->blas3_min = clampi(T->potrf.blas3_min, 1, 1 << 30);
    int b3 = clampi(T->potrf.blas3_nb, c->nb, 1 << 20);
    c->blas3_nb = (b3 + c->nb - 1) / c->nb * c->nb;
    c->left = T->potrf.left;
    c->trsm = T->potrf.trsm;
    c->tnb = clampi(T->potrf.blas3_tnb, 0, 1 << 20) / c->nb * c->nb;
    c->inner = clampi(T->potrf.inner, 0, 2);
    c->split = clampi(T->potrf.split, 0, 2);
    const int ob = clampi(T->potrf.ob, 0, 1 << 20);
    c->ob = ob > c->nb ? ob / c->nb * c->nb : 0;
    c->lookahead = T->potrf.lookahead;
    c->lookahead_right = T->potrf.lookahead_right;
    c->reserve = clampi(T->potrf.reserve, 0, 1 << 16);
    c->big = 0;
    c->lane = clampi(T->potrf.lane, 0, 16);
    c->lane_wg = la_wg(ctx, T->potrf.lane_wg, 1);
    c->lane_ch = clampi(T->potrf.lane_ch, 1, 256);
    c->pair = clampi(T->potrf.pair, 0, 64);
    c->pair_min = clampi(T->potrf.pair_min, 16, 64);
    c->pair_diag = T->potrf.pair_diag;
    c->tile = clampi(T->potrf.tile, 0, 64);
    c->tile_min = clampi(T->potrf.tile_min, 8, 64);
    c->tile_ts = T->potrf.tile_ts == 2 ? 2 : 4;
    c->tile_mpg = clampi(T->potrf.tile_mpg, 1, 64);
    c->psolve = clampi(T->potrf.psolve, 0, 2);
    c->psolve_wg = la_wg(ctx, T->potrf.psolve_wg, 1);
    c->noscan = 0;
    c->lanes_n = clampi(T->potrf.lanes_n, 0, 1 << 30);
    c->lanes_min = clampi(T->potrf.lanes_min, 2, 1 << 30);
    c->wbase = 0;
    c->p32_min = clampi(T->potrf.p32_min, 0, 1 << 30);
    c->p32_vb = T->potrf.p32_vb;
}

/* potrf.p32_min: a strided batch of order 33..64 and at least p32_min matrices takes the
 * blocked path in two panels of 32 (a DIAG launch, potrf_trsm for rows 32.., one update, a
 * DIAG launch) instead of one fused launch of 64, whose 64-column chain runs double at a
 * quarter of the H200's copy bandwidth in potrf_panel and at under half in potrf_pair (the
 * DIAG launches are potrf_pair's at N = 32 there). Small counts keep the single launch. With
 * potrf.p32_vb a variable batch's bucket of orders 33..64 does the same (s->n is then the
 * run's largest order). */
static int pf_two_panels(const pf_cfg *c, const la_set *s)
{
    return c->p32_min > 0 && (!s->vb || c->p32_vb) && s->n > 32 && s->n <= 64 &&
           s->count >= c->p32_min && c->nb > 32;
}

/* Whether a strided batch takes the blocked path (and needs the scan / merge slots). */
static int pf_blocked_path(const pf_cfg *c, const la_set *s)
{
    return s->n > c->fused_max || pf_two_panels(c, s);
}

/* Whether pf_panel takes its panels by pf_panel_solve (potrf.psolve, and potrf_trsm's N×N
 * block fits in local memory). */
static int pf_psolve_on(const gala_context *ctx, gala_dtype dt, const pf_cfg *c)
{
    return (c->psolve == 2 || (c->psolve == 1 && !c->big)) &&
           (size_t)c->nb * (size_t)c->nb * gala_dtype_size(dt) + 64 <=
               ctx->info.local_mem_bytes;
}

/* The -D values every potrf program has: register-row length N, work-group wg, unrolling. */
static void pf_key_base(const gala_context *ctx, gala_dtype dt, int N, int wg,
                        gala_program_key *key)
{
    gala_key_init(key, "potrf", dt);
    gala_key_def(key, "N", N);
    gala_key_def(key, "WG", wg);
    gala_key_def(key, "UNROLL", gala_tuned(ctx, dt)->la.unroll);
}

/* splitk: the program of chunked launches (modes SPLIT and COPY compiled in) */
static gala_status pf_kernel(gala_context *ctx, gala_dtype dt, int N, int wg, int splitk,
                             const char *name, gala_kernel **k)
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    gala_program_key key;
    pf_key_base(ctx, dt, N, wg, &key);
    gala_key_def(&key, "SEL", T->potrf.select &&
                                  N <= T->potrf.select_max);
    gala_key_def(&key, "VEC", T->potrf.vec);
    gala_key_def(&key, "SPLITK", splitk);
    /* rows of 64 only: the first 32 rows (one warp) stop their update at column 31 */
    if (N == 64 && T->potrf.half) gala_key_def(&key, "HALF", 1);
    /* register rows of 64 set the kernel's register count: an occupancy hint there */
    const int minb = N == 64 ? (int)T->potrf.minb : 0;
    if (minb > 0 && minb <= 32) gala_key_def(&key, "MINB", minb);
    return gala_kernel_get(ctx, &key, name, k);
}

static la_set la_strided(const gala_buffer *A, size_t a_off, int lda, size_t a_stride, int n,
                         int count)
{
    la_set s;
    memset(&s, 0, sizeof s);
    s.count = count;
    s.n = n;
    s.A = A;
    s.a_off = a_off;
    s.lda = lda;
    s.a_stride = a_stride;
    s.desc = A;
    return s;
}

/* The program of a form switched on by one -D (form = "LANE" or "TRSM": cl/potrf/lane.cl,
 * trsm.cl) at order N and work-group wg, with up to two more -D values (xname = xval,
 * yname = yval; none for a value of 0). */
static gala_status pf_form_kernel(gala_context *ctx, gala_dtype dt, int N, int wg,
                                  const char *form, const char *xname, int xval,
                                  const char *yname, int yval, const char *name, gala_kernel **k)
{
    gala_program_key key;
    pf_key_base(ctx, dt, N, wg, &key);
    gala_key_def(&key, form, 1);
    if (xval) gala_key_def(&key, xname, xval);
    if (yval) gala_key_def(&key, yname, yval);
    return gala_kernel_get(ctx, &key, name, k);
}

/* Work-group of potrf_lane at order N: potrf.lane_wg, halved until its local memory fits;
 * 0 when even N matrices do not fit (potrf_panel then). */
static int pf_lane_wg(const gala_context *ctx, gala_dtype dt, int N, int want)
{
    const size_t per = ((size_t)N * (size_t)(N + 1) + 1) * gala_dtype_size(dt) + 16;
    const size_t cap = ctx->info.local_mem_bytes;
    int wg = want;
    while (wg > N && (size_t)wg * per > cap) wg /= 2;
    return wg >= N && (size_t)wg * per <= cap ? wg : 0;
}

/* Work-group of potrf_tile at order N with ts×ts tiles: want matrices per group (*mpg,
 * lowered until the group and its local memory fit the device), each (N/ts)(N/ts + 1)/2
 * work-items, rounded up to a multiple of 32 (whole warps); 0 when one matrix does not fit
 * (or ts does not divide N: potrf_panel then). */
static size_t pf_tile_wg(const gala_context *ctx, gala_dtype dt, int N, int ts, int want,
                         int *mpg)
{
    const long mx = gala_max_wg(ctx);
    const long nt = N / ts, per = nt * (nt + 1) / 2;
    /* local memory per matrix (cl/potrf/tile.cl): two N×ts blocks with at most 32 elements of
     * padding each, N + 1 flags and an event word */
    const size_t loc = 2 * ((size_t)N * (size_t)ts + 32) * gala_dtype_size(dt) +
                       ((size_t)N + 2) * sizeof(int);
    if (N % ts != 0) return 0;
    for (int m = want; m >= 1; --m) {
        const long wg = (m * per + 31) / 32 * 32;
        if (wg <= mx && (size_t)m * loc <= ctx->info.local_mem_bytes) {
            *mpg = m;
            return (size_t)wg;
        }
    }
    return 0;
}

/* The potrf_tile program: order N, work-group wg, ts×ts tiles, mpg matrices per group;
 * potrf.tile_minb: groups per SM the compiler must fit (-D MINB: __launch_bounds__ on
 * CUDA, .minnctapersm on NVIDIA's OpenCL), the register budget this kernel's speed
 * depends on; potrf.tile_stream: -D PT_STREAM (the update's operands a column at a time). */
static gala_status pf_tile_kernel(gala_context *ctx, gala_dtype dt, int N, int wg, int ts,
                                  int mpg, gala_kernel **k)
{
    const gala_tuning *T = gala_tuned(ctx, dt);
    gala_program_key key;
    pf_key_base(ctx, dt, N, wg, &key);
    gala_key_def(&key, "TILE", 1);
    gala_key_def(&key, "TS", ts);
    gala_key_def(&key, "MPG", mpg);
    const int minb = (int)T->potrf.tile_minb;
    if (minb > 0 && minb <= 32) gala_key_def(&key, "MINB", minb);
    if (T->potrf.tile_stream) gala_key_def(&key, "PT_STREAM", 1);
    return gala_kernel_get(ctx, &key, "potrf_tile", k);
}

/* Whether potrf_pair takes launches of register rows N (potrf.pair_min <= N <= potrf.pair,
 * at least one matrix per fused work-group). */
static int pf_pair_on(const pf_cfg *c, int N)
{
    return N >= c->pair_min && N <= c->pair && c->wg_fused >= N / 2;
}

/* The potrf_pair program at order N (work-group potrf.wg, potrf.pair_minb); diag: with its
 * DIAG form (-D PDIAG=1, a program of its own: the fused launches keep the form without the
 * run-time block offset, cl/potrf/pair.cl). */
static gala_status pf_pair_kernel(gala_context *ctx, gala_dtype dt, int N, const pf_cfg *c,
                                  int diag, gala_kernel **k)
{
    const int minb = (int)gala_tuned(ctx, dt)->potrf.pair_minb;
    gala_program_key key;
    pf_key_base(ctx, dt, N, c->wg_fused, &key);
    gala_key_def(&key, "PAIR", 1);
    if (minb > 0 && minb <= 32) gala_key_def(&key, "MINB", minb);
    if (diag) gala_key_def(&key, "PDIAG", 1);
    return gala_kernel_get(ctx, &key, "potrf_pair", k);
}

/* The arguments of a potrf_panel-style launch (POTRF_ARGS_panel) on the matrices of la_set
 * t, with up and li in scope: panel at j0 limited by wlim, nch chunks per matrix, mode md
 * (POTRF_MODE_*), scratch W from slot wo. */
#define PF_ARGS(t, j0, wlim, nch, md, W, wo)                                                 \
    (t).n, j0, wlim, (t).count, nch, (t).A, (long long)(t).a_off, (t).lda,                  \
        (long long)(t).a_stride, up, (t).desc, (long long)(t).dofs, (t).vb, li->info,         \
        (long long)(li->io + (t).info_base), li->flag, (long long)li->fo, li->epoch, md, W,  \
        (long long)(wo)

/* One fused launch: every matrix of s (n <= N) factored by potrf_panel (N work-items per
 * matrix), for N <= potrf.lane by potrf_lane (one work-item per matrix), else for
 * potrf.tile_min <= N <= potrf.tile by potrf_tile (one ts×ts tile per work-item), else for
 * potrf.pair_min <= N <= potrf.pair by potrf_pair (N/2 work-items per matrix); info
 * written. */
static gala_status pf_fused(gala_context *ctx, gala_dtype dt, int up, const la_set *s, int N,
                            const pf_cfg *c, const la_info *li)
{
    gala_kernel *k = NULL;
    size_t groups = 0, wgs = 0;
    int tmpg = 1; /* potrf_tile's matrices per work-group */
    /* The forms in order of preference; a form whose program the device fails to build
     * (a vendor compiler's bug: clang-15 for gfx1100 crashes on potrf_pair in double, issue
     * 39) hands the launch to the next one, down to potrf_panel, which every device builds. */
    int chosen = 0, failed = 0;
    gala_status st;
#define PF_TRY(call, what)                                                                   \
    do {                                                                                     \
        st = (call);                                                                         \
        if (st == GALA_OK) {                                                                 \
            chosen = 1;                                                                      \
            if (failed) gala_kernel_fallback(ctx, what);                                     \
        } else if (gala_build_rejected(ctx, st)) {                                           \
            failed = 1;                                                                      \
        } else {                                                                             \
            return st;                                                                       \
        }                                                                                    \
    } while (0)
    const int lwg = N <= c->lane ? pf_lane_wg(ctx, dt, N, c->lane_wg) : 0;
    if (lwg > 0) {
        int ch = 1; /* reads in flight per work-item: a power of two dividing N·N */
        while (ch * 2 <= c->lane_ch && ch * 2 <= N * N) ch *= 2;
        PF_TRY(pf_form_kernel(ctx, dt, N, lwg, "LANE", "CH", ch, NULL, 0, "potrf_lane", &k), "potrf_lane");
        wgs = (size_t)lwg;
        groups = ((size_t)s->count + wgs - 1) / wgs;
    }
    if (!chosen && N >= c->tile_min && N <= c->tile &&
        (wgs = pf_tile_wg(ctx, dt, N, c->tile_ts, c->tile_mpg, &tmpg)) > 0) {
        PF_TRY(pf_tile_kernel(ctx, dt, N, (int)wgs, c->tile_ts, tmpg, &k), "potrf_tile");
        groups = ((size_t)s->count + (size_t)tmpg - 1) / (size_t)tmpg;
    }
    if (!chosen && pf_pair_on(c, N)) {
        /* two rows per work-item: N/2 work-items per matrix */
        PF_TRY(pf_pair_kernel(ctx, dt, N, c, 0, &k), "potrf_pair");
        wgs = (size_t)c->wg_fused;
        const size_t mpg = (size_t)(c->wg_fused / (N / 2));
        groups = ((size_t)s->count + mpg - 1) / mpg;
    }
    /* potrf_panel; where its register rows of N fail to build (clang-15 for gfx1100: N = 16
     * in double), rows of 2N, which factor every n <= N as well */
    for (int Np = N; !chosen; Np *= 2) {
        const int wg = c->wg_fused > Np ? c->wg_fused : Np;
        char used[48];
        snprintf(used, sizeof used, "potrf_panel N=%d", Np);
        PF_TRY(pf_kernel(ctx, dt, Np, wg, 0, "potrf_panel", &k), used);
        if (!chosen && (Np >= 64 || wg / (2 * Np) < 1)) return st;
        const int mpg = wg / Np;
        wgs = (size_t)wg;
        groups = ((size_t)s->count + (size_t)mpg - 1) / (size_t)mpg;
    }
#undef PF_TRY
    gala_dims d = gala_dims_1d(groups * wgs, wgs);
    /* W: unused */
    return potrf_launch_panel(ctx, k, &d, PF_ARGS(*s, 0, LA_BIG, 0, POTRF_MODE_INFO, s->A, 0));
}

/* Largest scratch for the SPLIT mode's diagonal blocks (launches are split to fit). */
#define PF_SPLIT_BYTES ((size_t)64 << 20)

/* The panel of pf_panel by potrf.psolve: its diagonal block factored alone (a DIAG launch
 * of potrf_panel in the fused geometry, several matrices per work-group, which also leaves
 * the block's first unwritten column in W), then the rows below, if any, solved against it
 * by potrf_trsm (no chain of column barriers, no diagonal block recomputed per chunk).
 * With potrf.pair_diag, where potrf_pair takes fused launches of order N and wlim cuts no
 * block, the DIAG launch is potrf_pair's (N/2 work-items per matrix; the column chain
 * without potrf_panel's indexed register row). */
static gala_status pf_panel_solve(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                                  int count, const pf_cfg *c, int j0, int wlim,
                                  const la_info *li)
{
    const int N = c->nb;
    const int pair = c->pair_diag && pf_pair_on(c, N) && wlim - j0 >= N;
    /* work-items of a DIAG group and per matrix */
    const int wgd = pair ? c->wg_fused : (c->wg_fused > N ? c->wg_fused : N);
    const int per_m = pair ? N / 2 : N;
    const int below = la_nmax(s) - j0 - N; /* rows below the block (<= 0: none) */
    /* no more work-items than rows below (a power of two, at least N: the staging loop is
     * unrolled N·N / wg times): order 64 in panels of 32 runs groups of 32, not 128 */
    const int wg = below > 0 && la_pow2(below, N) < c->psolve_wg ? la_pow2(below, N)
                                                                 : c->psolve_wg;
    const int nchunks = below > 0 ? (below + wg - 1) / wg : 0;
    gala_kernel *kd, *kt = NULL;
    if (pair) {
        /* a device that fails to build potrf_pair: the plain panel (pf_fused's fallback) */
        const gala_status st = pf_pair_kernel(ctx, dt, N, c, 1, &kd);
        if (gala_build_rejected(ctx, st)) {
            pf_cfg plain = *c;
            plain.pair_diag = 0;
            GALA_TRY(pf_panel_solve(ctx, dt, up, s, count, &plain, j0, wlim, li));
            gala_kernel_fallback(ctx, "potrf_panel");
            return GALA_OK;
        }
        if (st != GALA_OK) return st;
    } else {
        GALA_TRY(pf_kernel(ctx, dt, N, wgd, 0, "potrf_panel", &kd));
    }
    if (nchunks > 0)
        GALA_TRY(pf_form_kernel(ctx, dt, N, wg, "TRSM", "VEC", gala_tuned(ctx, dt)->potrf.vec,
                                "RVST", gala_tuned(ctx, dt)->potrf.trsm_rvec, "potrf_trsm", &kt));
    int per = nchunks > 0 ? (int)((1LL << 30) / nchunks) : 1 << 30;
    if (per < 1) per = 1;
    gala_buffer *W = (gala_buffer *)s->A;
    if (nchunks > 0)
        GALA_TRY(gala_scratch(ctx, LA_SCRATCH_PANEL, dt,
                              (size_t)c->wbase + (size_t)(count < per ? count : per), &W));
    /* DIAG when rows below follow, else the plain panel (0); without potrf_scan the first
     * panel writes every matrix's info (INFO) */
    const int mode = (nchunks > 0 ? POTRF_MODE_HEAD | POTRF_MODE_DIAG : 0) |
                     (c->noscan && j0 == 0 ? POTRF_MODE_INFO : 0);
    const int mpg = wgd / per_m;
    for (int start = 0; start < count; start += per) {
        const int cnt = count - start < per ? count - start : per;
        la_set t = la_sub(s, start, cnt);
        gala_dims d = gala_dims_1d(((size_t)cnt + (size_t)mpg - 1) / (size_t)mpg * (size_t)wgd,
                                   (size_t)wgd);
        GALA_TRY(potrf_launch_panel(ctx, kd, &d, PF_ARGS(t, j0, wlim, 0, mode, W, c->wbase)));
        if (nchunks <= 0) continue;
        d = gala_dims_1d((size_t)cnt * (size_t)nchunks * (size_t)wg, (size_t)wg);
        GALA_TRY(potrf_launch_trsm(ctx, kt, &d, PF_ARGS(t, j0, wlim, nchunks, 0, W, c->wbase),
                                   li->tmp, (long long)(li->to + (size_t)start)));
    }
    return GALA_OK;
}

/* Chunked panel launch on the first `count` matrices of s: columns [j0, j0 + N) limited by
 * wlim, rows j0 .. n_b − 1. */
static gala_status pf_panel(gala_context *ctx, gala_dtype dt, int up, const la_set *s, int count,
                            const pf_cfg *c, int j0, int wlim, const la_info *li)
{
    const int N = c->nb, wg = c->wg_panel, R = wg - N;
    const int mrows = la_nmax(s) - j0;
    if (count <= 0 || mrows <= 0) return GALA_OK;
    if (pf_psolve_on(ctx, dt, c)) return pf_panel_solve(ctx, dt, up, s, count, c, j0, wlim, li);
    gala_kernel *k;
    /* the SPLIT / COPY code only in the programs that use it: it made the kernel 5-10 %
     * slower on the batched blocked path, where SPLIT gained nothing (H200 runs I6-I8) */
    const int can_split = c->split == 2 || (c->split == 1 && c->big);
    GALA_TRY(pf_kernel(ctx, dt, N, wg, can_split, "potrf_panel", &k));
    const int nchunks = mrows > N ? (mrows - N + R - 1) / R : 1;
    int per = (int)((1LL << 30) / nchunks);
    if (per < 1) per = 1;
    /* several chunks: every work-group reads the rows < N, so they are written after the
     * launch: by a COPY launch from the scratch W (c->split), or by a HEAD launch that
     * factors them again (see potrf.cl) */
    const int split = nchunks > 1 && can_split;
    const size_t wper = POTRF_SPLIT_W((size_t)N);
    gala_buffer *W = (gala_buffer *)s->A;
    if (split) {
        const int wcap = (int)(PF_SPLIT_BYTES / (wper * gala_dtype_size(dt)));
        if (per > wcap) per = wcap > 0 ? wcap : 1;
        const int most = count < per ? count : per;
        GALA_TRY(gala_scratch(ctx, LA_SCRATCH_PANEL, dt, (size_t)most * wper, &W));
    }
    for (int start = 0; start < count; start += per) {
        const int cnt = count - start < per ? count - start : per;
        la_set t = la_sub(s, start, cnt);
        for (int pass = 0; pass < (nchunks > 1 ? 2 : 1); ++pass) {
            const int nch = pass ? 1 : nchunks;
            const int mode = nchunks == 1 ? 0
                             : split     ? (pass ? POTRF_MODE_COPY : POTRF_MODE_SPLIT)
                                         : (pass ? POTRF_MODE_HEAD : POTRF_MODE_TAIL);
            gala_dims d = gala_dims_1d((size_t)cnt * (size_t)nch * (size_t)wg, (size_t)wg);
            GALA_TRY(potrf_launch_panel(ctx, k, &d, PF_ARGS(t, j0, wlim, nch, mode, W, 0)));
        }
    }
    return GALA_OK;
}

static size_t pf_scan_tmp(const la_set *s) { return (size_t)s->count; }

/* potrf_scan_finish or potrf_merge (kernel k) over the matrices of t, whose minima are at
 * li->tmp[to ..]: their info from the minima. */
static gala_status pf_fold(gala_context *ctx, gala_kernel *k, const la_set *t, size_t to,
                           const la_info *li)
{
    gala_dims d = gala_dims_1d((size_t)t->count, 64);
    return potrf_launch_fold(ctx, k, &d, t->count, t->desc, (long long)t->dofs, t->vb, li->tmp,
                             (long long)to, li->info, (long long)(li->io + t->info_base), li->flag,
                             (long long)li->fo, li->epoch);
}

/* potrf_scan + potrf_scan_finish: info = −(first column with a NaN/Inf) or 0. Blocks of
 * scb stored columns per work-group: 64, narrower while the launch would have fewer than
 * PF_SCAN_GROUPS work-groups (one matrix of order 16384 in blocks of 64 was 256 groups and
 * read its 1 GiB at a tenth of the copy bandwidth). */
#define PF_SCAN_GROUPS 4096
static gala_status pf_scan(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                           const pf_cfg *c, const la_info *li)
{
    if (s->count <= 0) return GALA_OK;
    gala_kernel *ks, *kf;
    GALA_TRY(pf_kernel(ctx, dt, c->nb, c->wg_panel, 0, "potrf_scan", &ks));
    GALA_TRY(pf_kernel(ctx, dt, c->nb, c->wg_panel, 0, "potrf_scan_finish", &kf));
    const int nmax = la_nmax(s);
    int scb = 64;
    while (scb > 1 && (long long)s->count * ((nmax + scb - 1) / scb) < PF_SCAN_GROUPS) scb /= 2;
    const int nblk = (nmax + scb - 1) / scb;
    const int wg = c->wg_panel;
    int per = (int)((1LL << 30) / nblk);
    if (per < 1) per = 1;
    /* every slot starts at "none" (LA_BIG) */
    GALA_TRY(gala_buffer_fill(li->tmp, li->to, (size_t)s->count, (double)LA_BIG));
    for (int start = 0; start < s->count; start += per) {
        const int cnt = s->count - start < per ? s->count - start : per;
        la_set t = la_sub(s, start, cnt);
        const size_t to = li->to + (size_t)start;
        gala_dims d = gala_dims_1d((size_t)cnt * (size_t)nblk * (size_t)wg, (size_t)wg);
        GALA_TRY(potrf_launch_scan(ctx, ks, &d, t.n, cnt, nblk, scb, t.A, (long long)t.a_off, t.lda,
                                   (long long)t.a_stride, up, t.desc, (long long)t.dofs, t.vb,
                                   li->tmp, (long long)to));
        GALA_TRY(pf_fold(ctx, kf, &t, to, li));
    }
    return GALA_OK;
}

/* The masked update of every matrix by its finished columns [j0, j1): rows j1 .. n_b of
 * the lower triangle in columns [j1, wend) −= L(rows, j0:j1)·L(cols, j0:j1)ᵀ. */
static gala_status pf_update_batch(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                                   const la_info *li, int j0, int j1, int wend)
{
    const int nmax = la_nmax(s), jend = wend < nmax ? wend : nmax;
    la_dim m = {j1, LA_BIG, 0}, nn = {j1, wend - j1, 0}, kk = {j0, j1 - j0, 0};
    la_op A = {0, j1, j0, 0}, B = {0, j1, j0, 0}, C = {0, j1, j1, 0};
    return la_gemm_upd(ctx, dt, up, s, la_active(s, j1), m, nn, kk, nmax - j1, jend - j1, -1.0,
                       1, A, B, C, li, 1);
}

/* Blocked steps with gala's kernels on columns [jb, wend) of every matrix (rows to n_b):
 * panel, then the masked update of the part of the trailing matrix left of wend. */
static gala_status pf_blocked(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                              const pf_cfg *c, const la_info *li, int jb, int wend)
{
    const int N = c->nb, nmax = la_nmax(s);
    const int jend = wend < nmax ? wend : nmax;
    for (int j0 = jb; j0 < jend; j0 += N) {
        GALA_TRY(pf_panel(ctx, dt, up, s, la_active(s, j0), c, j0, wend, li));
        if (j0 + N >= jend) break;
        GALA_TRY(pf_update_batch(ctx, dt, up, s, li, j0, j0 + N, wend));
    }
    return GALA_OK;
}

/* The blocked path of a batch in outer blocks (potrf.ob): the panels of block [k, k + ob)
 * update only its own columns (all rows below), then the trailing lower triangle is
 * updated once by the ob columns, so the update kernel runs fewer, deeper tiles (K = ob
 * instead of nb) and reads and writes the trailing matrix nb / ob as often.
 * np = 2 (potrf.lanes_n): part[0] and part[1], the two halves of a strided batch, one per
 * lane, launched step by step in turn, so that one half's latency-bound launches (the DIAG
 * chain of nb columns) overlap the other half's solves and updates; the halves share W and
 * li->tmp in disjoint slots (cp[1].wbase, lp[1].to). Same launches as pf_blocked's. */
static gala_status pf_outer(gala_context *ctx, gala_dtype dt, int up, const la_set *part,
                            const pf_cfg *cp, const la_info *lp, int np)
{
    const int nmax = la_nmax(&part[0]), N = cp[0].nb, ob = cp[0].ob;
    gala_status st = np > 1 ? gala_lane_wait(ctx, 1, 0) : GALA_OK; /* earlier work, fills */
    for (int k = 0; st == GALA_OK && k < nmax; k += ob ? ob : nmax) {
        const int wend = ob ? k + ob : LA_BIG, kend = wend < nmax ? wend : nmax;
        for (int j0 = k; j0 < kend; j0 += N) {
            for (int q = 0; q < np && st == GALA_OK; ++q) {
                if (np > 1) st = gala_lane_select(ctx, q);
                if (st == GALA_OK)
                    st = pf_panel(ctx, dt, up, &part[q], la_active(&part[q], j0), &cp[q], j0,
                                  wend, &lp[q]);
                if (st == GALA_OK && j0 + N < kend)
                    st = pf_update_batch(ctx, dt, up, &part[q], &lp[q], j0, j0 + N, wend);
            }
        }
        for (int q = 0; q < np && st == GALA_OK && kend < nmax; ++q) {
            if (np > 1) st = gala_lane_select(ctx, q);
            if (st == GALA_OK) st = pf_update_batch(ctx, dt, up, &part[q], &lp[q], k, kend, LA_BIG);
        }
    }
    return np > 1 ? gala_lane_join(ctx, st) : st;
}

/* The blocked path of a batch: potrf_scan, then pf_outer; or with potrf.psolve no scan: the
 * panels find the non-finite values themselves (the DIAG launches in the diagonal blocks'
 * rows, potrf_trsm in the rows below, folded into li->tmp) and potrf_merge puts the
 * earliest event into info at the end (docs/cholesky.md, "Semantics"). */
static gala_status pf_batch(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                            const pf_cfg *c0, const la_info *li)
{
    /* potrf.p32_min: order 33..64 as two panels of 32 */
    pf_cfg cs = *c0;
    const pf_cfg *c = &cs;
    if (pf_two_panels(c0, s)) {
        cs.nb = 32;
        cs.ob = 0;
    }
    if (!pf_psolve_on(ctx, dt, c)) {
        GALA_TRY(pf_scan(ctx, dt, up, s, c, li));
        return pf_outer(ctx, dt, up, s, c, li, 1);
    }
    if (s->count <= 0) return GALA_OK;
    gala_kernel *k;
    GALA_TRY(pf_kernel(ctx, dt, c->nb, c->wg_panel, 0, "potrf_merge", &k));
    GALA_TRY(gala_buffer_fill(li->tmp, li->to, (size_t)s->count, (double)LA_BIG));
    const int h = s->count / 2;
    const int np = c->lanes_n > 0 && !s->vb && s->n >= c->lanes_n && s->count >= c->lanes_min
                       ? 2 : 1;
    la_set part[2] = {*s, la_sub(s, h, s->count - h)};
    la_info lp[2] = {*li, *li};
    pf_cfg cp[2] = {*c, *c};
    cp[0].noscan = cp[1].noscan = 1;
    if (np == 2) {
        gala_buffer *W; /* both halves' slots, before either lane uses the workspace */
        GALA_TRY(gala_scratch(ctx, LA_SCRATCH_PANEL, dt, (size_t)s->count, &W));
        part[0] = la_sub(s, 0, h);
        lp[1].to += (size_t)h;
        cp[1].wbase = h;
    }
    GALA_TRY(pf_outer(ctx, dt, up, part, cp, lp, np));
    return pf_fold(ctx, k, s, li->to, li);
}

/* BLAS-3 path helpers, on block column [j, j + w) of one matrix once its diagonal block is
 * factored, for the r rows (columns, upper) after it: */
/* the rows below the diagonal block: L_below = A_below·L_jj⁻ᵀ (upper: U_right = U_jj⁻ᵀ·A) */
static gala_status pf_below(gala_context *ctx, int up, gala_buffer *A, size_t o, int lda, int j,
                            int w, int r)
{
    if (up)
        return gala_trsm(ctx, GALA_LEFT, GALA_UPPER, GALA_TRANS, GALA_NON_UNIT, w, r, 1.0, A,
                         o + la_loff(up, j, j, lda), lda, A, o + la_loff(up, j + w, j, lda), lda);
    return gala_trsm(ctx, GALA_RIGHT, GALA_LOWER, GALA_TRANS, GALA_NON_UNIT, r, w, 1.0, A,
                     o + la_loff(up, j, j, lda), lda, A, o + la_loff(up, j + w, j, lda), lda);
}

/* the r×r triangle at row (and column) r0: A_tt −= L_t,j·L_t,jᵀ with L_t,j rows r0 .. r0 + r
 * of block column j (r0 = j + w: the whole trailing triangle) */
static gala_status pf_trail(gala_context *ctx, int up, gala_buffer *A, size_t o, int lda, int j,
                            int w, int r0, int r)
{
    return gala_syrk(ctx, up ? GALA_UPPER : GALA_LOWER, up ? GALA_TRANS : GALA_NO_TRANS, r, w,
                     -1.0, A, o + la_loff(up, r0, j, lda), lda, 1.0, A,
                     o + la_loff(up, r0, r0, lda), lda);
}

/* The kb×kb diagonal block at k of one matrix (views of the leading rows and columns, so
 * that info counts in the whole matrix): gala's blocked kernels on the whole block, or
 * (potrf.inner) steps of potrf.nb columns, each factored by one launch of the panel kernel
 * on its nb rows, with TRSM and SYRK of the rest of the block through the BLAS. */
static gala_status pf_diag(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                           const pf_cfg *c, const la_info *li, int k, int kb)
{
    la_set d = *s;
    if (!c->inner) {
        d.n = k + kb;
        return pf_blocked(ctx, dt, up, &d, c, li, k, k + kb);
    }
    gala_buffer *A = (gala_buffer *)s->A;
    for (int j = k; j < k + kb; j += c->nb) {
        const int w = k + kb - j < c->nb ? k + kb - j : c->nb, r = k + kb - j - w;
        if (c->inner == 2) {
            /* the step's whole tall panel (rows j .. k + kb) by the chunked panel kernel */
            d.n = k + kb;
            GALA_TRY(pf_panel(ctx, dt, up, &d, la_active(&d, j), c, j, j + w, li));
        } else {
            d.n = j + w;
            GALA_TRY(pf_blocked(ctx, dt, up, &d, c, li, j, j + w));
            if (r > 0) GALA_TRY(pf_below(ctx, up, A, s->a_off, s->lda, j, w, r));
        }
        if (r > 0) GALA_TRY(pf_trail(ctx, up, A, s->a_off, s->lda, j, w, j + w, r));
    }
    return GALA_OK;
}

/* Block column [k, k + kb) of one matrix, rows k .. n, updated by its columns [j0, j1)
 * (left-looking; upper: the block row): A_kk −= L_k,j · L_k,jᵀ, A_below,k −= L_below,j · L_k,jᵀ. */
static gala_status pf_update(gala_context *ctx, int up, gala_buffer *A, size_t o, int lda, int n,
                             int k, int kb, int j0, int j1)
{
    const int m = n - k - kb, w = j1 - j0;
    if (w <= 0 || kb <= 0) return GALA_OK;
    GALA_TRY(gala_syrk(ctx, up ? GALA_UPPER : GALA_LOWER, up ? GALA_TRANS : GALA_NO_TRANS, kb, w,
                       -1.0, A, o + la_loff(up, k, j0, lda), lda, 1.0, A,
                       o + la_loff(up, k, k, lda), lda));
    if (m <= 0) return GALA_OK;
    if (up)
        return gala_gemm(ctx, GALA_TRANS, GALA_NO_TRANS, kb, m, w, -1.0, A,
                         o + la_loff(up, k, j0, lda), lda, A, o + la_loff(up, k + kb, j0, lda),
                         lda, 1.0, A, o + la_loff(up, k + kb, k, lda), lda);
    return gala_gemm(ctx, GALA_NO_TRANS, GALA_TRANS, m, kb, w, -1.0, A,
                     o + la_loff(up, k + kb, j0, lda), lda, A, o + la_loff(up, k, j0, lda), lda,
                     1.0, A, o + la_loff(up, k + kb, k, lda), lda);
}

/* Block column [k, k + kb) once updated: its diagonal block by gala's kernels and the rows
 * below by TRSM (potrf.trsm), or the whole tall panel by gala's kernels, in one pass or
 * (potrf.blas3_tnb) in sub-steps of tnb columns, right-looking inside the block column:
 *
 *        k     j   j+tnb      k+kb
 *        |     | F |  U U U U  |      F: columns [j, j + tnb), all rows below j, by gala's
 *        |     | F |  U U U U  |         blocked kernels (panels of nb, its own updates)
 *        |     | F |  U U U U  |      U: the rest of the block column, rows j + tnb .. n,
 *                                        SYRK + GEMM through the BLAS from F
 *
 * so that only tnb/kb of the block column's own update runs on gala's update kernel. */
static gala_status pf_column(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                             const pf_cfg *c, const la_info *li, int k, int kb)
{
    const int m = s->n - k - kb;
    if (!c->trsm) {
        const int step = c->tnb > 0 ? c->tnb : kb; /* tnb >= kb: one pass, no update */
        for (int j = k; j < k + kb; j += step) {
            const int w = k + kb - j < step ? k + kb - j : step;
            GALA_TRY(pf_blocked(ctx, dt, up, s, c, li, j, j + w));
            if (j + w < k + kb)
                GALA_TRY(pf_update(ctx, up, (gala_buffer *)s->A, s->a_off, s->lda, s->n, j + w,
                                   k + kb - j - w, j, j + w));
        }
        return GALA_OK;
    }
    GALA_TRY(pf_diag(ctx, dt, up, s, c, li, k, kb));
    return m > 0 ? pf_below(ctx, up, (gala_buffer *)s->A, s->a_off, s->lda, k, kb, m) : GALA_OK;
}

/* Left-looking with lookahead (potrf.lookahead; docs/cholesky.md, "Lookahead"). The chain
 * that cannot be parallel (the last block's update of column k, then column k factored)
 * runs on lane 1, the device's high-priority queue; meanwhile lane 0 updates the next
 * block column from every column left of k, the bulk of the flops:
 *
 *          0 .. k-nb  k-nb..k   k..k+nb  k+nb..
 *   lane 1:            [  U  ]→ [ F(k) ]                 U: update of column k by block k-1
 *   lane 0: [ bulk update of column k+nb by 0..k ]      F: diagonal block + TRSM below
 *
 * Each iteration starts with two waits: lane 1 on lane 0's bulk update of column k (issued
 * the iteration before), lane 0 on lane 1's columns < k. Writes never overlap: lane 1
 * writes column k, lane 0 column k + nb, and both read only finished columns. */
static gala_status pf_lookahead(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                                const pf_cfg *c, const la_info *li)
{
    gala_buffer *A = (gala_buffer *)s->A;
    const size_t o = s->a_off;
    const int n = s->n, lda = s->lda, NB = c->blas3_nb;
    gala_status st = c->reserve ? gala_lane_reserve(ctx, c->reserve) : GALA_OK;
    for (int k = 0; st == GALA_OK && k < n; k += NB) {
        const int kb = n - k < NB ? n - k : NB, k2 = k + kb, kb2 = n - k2 < NB ? n - k2 : NB;
        const int bulk = k > 0 && k2 < n;
        st = gala_lane_wait(ctx, 1, 0);
        if (st == GALA_OK && bulk) st = gala_lane_wait(ctx, 0, 1);
        if (st == GALA_OK) st = gala_lane_select(ctx, 1);
        if (st == GALA_OK && k > 0) st = pf_update(ctx, up, A, o, lda, n, k, kb, k - NB, k);
        if (st == GALA_OK) st = pf_column(ctx, dt, up, s, c, li, k, kb);
        if (st == GALA_OK) st = gala_lane_select(ctx, 0);
        if (st == GALA_OK && bulk) st = pf_update(ctx, up, A, o, lda, n, k2, kb2, 0, k);
    }
    return gala_lane_join(ctx, st);
}

/* Right-looking with lookahead (potrf.lookahead_right). Block column k2 = k + kb, the next to
 * factor, is updated by block k and factored on lane 1 while lane 0 updates the trailing
 * triangle right of it (from k3 = k2 + kb2 on) by block k, the bulk of the flops:
 *
 *          k..k2     k2..k3         k3..n
 *   lane 1:          [ U | F(k2) ]                  U: update of column k2 by block k
 *   lane 0:                         [ SYRK of the triangle from k3 by block k ]
 *
 * Each iteration starts with two waits: lane 1 on lane 0's update of the iteration before
 * (which brought column k2 up to block k), lane 0 on lane 1's factoring of block k. Lane 1
 * writes column k2, lane 0 columns k3 .. n; both read only block k, finished. */
static gala_status pf_lookahead_right(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                                      const pf_cfg *c, const la_info *li)
{
    gala_buffer *A = (gala_buffer *)s->A;
    const size_t o = s->a_off;
    const int n = s->n, lda = s->lda, NB = c->blas3_nb;
    gala_status st = c->reserve ? gala_lane_reserve(ctx, c->reserve) : GALA_OK;
    if (st == GALA_OK) st = pf_column(ctx, dt, up, s, c, li, 0, n < NB ? n : NB);
    for (int k = 0; st == GALA_OK && k + NB < n; k += NB) {
        const int k2 = k + NB, kb2 = n - k2 < NB ? n - k2 : NB, k3 = k2 + kb2;
        st = gala_lane_wait(ctx, 1, 0);
        if (st == GALA_OK && k > 0) st = gala_lane_wait(ctx, 0, 1);
        if (st == GALA_OK) st = gala_lane_select(ctx, 1);
        if (st == GALA_OK) st = pf_update(ctx, up, A, o, lda, n, k2, kb2, k, k2);
        if (st == GALA_OK) st = pf_column(ctx, dt, up, s, c, li, k2, kb2);
        if (st == GALA_OK) st = gala_lane_select(ctx, 0);
        if (st == GALA_OK && k3 < n) st = pf_trail(ctx, up, A, o, lda, k, NB, k3, n - k3);
    }
    return gala_lane_join(ctx, st);
}

/* One large matrix: BLAS-3 updates, panels by gala's kernels. */
static gala_status pf_blas3(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                            const pf_cfg *cfg, const la_info *li)
{
    pf_cfg cb = *cfg;
    cb.big = 1;
    /* the panel width of this path (potrf.blas3_pnb, a power of two dividing the step) */
    const long pnb = gala_tuned(ctx, dt)->potrf.blas3_pnb;
    if (pnb >= 8 && pnb <= 64 && (pnb & (pnb - 1)) == 0 && cfg->blas3_nb % pnb == 0)
        cb.nb = (int)pnb;
    cb.tnb = cb.tnb / cb.nb * cb.nb;
    const pf_cfg *c = &cb;
    gala_buffer *A = (gala_buffer *)s->A;
    const size_t o = s->a_off;
    const int n = s->n, lda = s->lda, NB = c->blas3_nb;
    GALA_TRY(pf_scan(ctx, dt, up, s, c, li));
    if (c->left && c->lookahead) return pf_lookahead(ctx, dt, up, s, c, li);
    if (!c->left && c->lookahead_right) return pf_lookahead_right(ctx, dt, up, s, c, li);
    for (int k = 0; k < n; k += NB) {
        const int kb = n - k < NB ? n - k : NB, m = n - k - kb;
        if (c->left) GALA_TRY(pf_update(ctx, up, A, o, lda, n, k, kb, 0, k));
        GALA_TRY(pf_column(ctx, dt, up, s, c, li, k, kb));
        if (!c->left && m > 0) GALA_TRY(pf_trail(ctx, up, A, o, lda, k, kb, k + kb, m));
    }
    return GALA_OK;
}

/* A strided batch (count >= 1, n >= 1), info slots li->io + 0 .. */
static gala_status pf_strided(gala_context *ctx, gala_dtype dt, int up, const la_set *s,
                              const pf_cfg *c, const la_info *li)
{
    if (!pf_blocked_path(c, s)) {
        const int N = la_pow2(s->n, c->min_bucket);
        return pf_fused(ctx, dt, up, s, N, c, li);
    }
    if (s->count == 1 && s->n >= c->blas3_min && gala_blas3_available(ctx))
        return pf_blas3(ctx, dt, up, s, c, li);
    return pf_batch(ctx, dt, up, s, c, li);
}

#define PD_WHAT "the leading minor of order ", " is not positive definite"

gala_status gala_potrf_batched(gala_context *ctx, gala_uplo uplo, int n, gala_buffer *A,
                               size_t a_off, int lda, size_t a_stride, int batch, int *info)
{
    static const char fn[] = "gala_potrf_batched";
    GALA_TRY(la_check_batched_inplace(ctx, fn, uplo, n, A, a_off, lda, a_stride, batch));
    const gala_dtype dt = A->dtype;
    if (n == 0 || batch == 0) {
        if (info) memset(info, 0, (size_t)batch * sizeof *info);
        return GALA_OK;
    }
    pf_cfg c;
    pf_config(ctx, dt, &c);
    la_set s = la_strided(A, a_off, lda, a_stride, n, batch);
    la_info li;
    GALA_TRY(la_info_begin(ctx, batch, pf_blocked_path(&c, &s) ? pf_scan_tmp(&s) : 0, NULL, 0,
                           &li));
    GALA_TRY(pf_strided(ctx, dt, uplo == GALA_UPPER, &s, &c, &li));
    return la_info_end(ctx, fn, &li, batch, info, NULL, GALA_ERR_NOT_POSITIVE_DEFINITE, PD_WHAT);
}

gala_status gala_potrf_batched_async(gala_context *ctx, gala_uplo uplo, int n, gala_buffer *A,
                                     size_t a_off, int lda, size_t a_stride, int batch,
                                     gala_buffer *info, size_t info_off)
{
    static const char fn[] = "gala_potrf_batched_async";
    GALA_TRY(la_check_batched_inplace(ctx, fn, uplo, n, A, a_off, lda, a_stride, batch));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_buf(ctx, fn, "info", info, GALA_INT, info_off, (size_t)batch));
    if (batch == 0) return GALA_OK;
    if (n == 0) return gala_buffer_fill(info, info_off, (size_t)batch, 0);
    pf_cfg c;
    pf_config(ctx, dt, &c);
    la_set s = la_strided(A, a_off, lda, a_stride, n, batch);
    la_info li;
    GALA_TRY(la_info_begin(ctx, batch, pf_blocked_path(&c, &s) ? pf_scan_tmp(&s) : 0, info,
                           info_off, &li));
    return pf_strided(ctx, dt, uplo == GALA_UPPER, &s, &c, &li);
}

gala_status gala_potrf(gala_context *ctx, gala_uplo uplo, int n, gala_buffer *A, size_t a_off,
                       int lda, int *info)
{
    static const char fn[] = "gala_potrf";
    GALA_TRY(gala_check_ctx(ctx, fn));
    GALA_TRY(la_check_uplo(ctx, fn, uplo));
    if (n < 0) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: n = %d is negative", fn, n);
    GALA_TRY(la_check_strided(ctx, fn, "A", A, 0, a_off, n, n, lda, 0, 1, 1));
    const gala_dtype dt = A->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));
    if (info) *info = 0;
    if (n == 0) return GALA_OK;
    pf_cfg c;
    pf_config(ctx, dt, &c);
    la_set s = la_strided(A, a_off, lda, 0, n, 1);
    la_info li;
    GALA_TRY(la_info_begin(ctx, 1, pf_blocked_path(&c, &s) ? pf_scan_tmp(&s) : 0, NULL, 0, &li));
    GALA_TRY(pf_strided(ctx, dt, uplo == GALA_UPPER, &s, &c, &li));
    gala_status st = la_info_end(ctx, fn, &li, 1, info, NULL, GALA_ERR_NOT_POSITIVE_DEFINITE, PD_WHAT);
    return st;
}

gala_status gala_potrf_vbatched(gala_context *ctx, gala_uplo uplo, const int *n, gala_buffer *A,
                                const size_t *a_off, const int *lda, int batch, int *info)
{
    static const char fn[] = "gala_potrf_vbatched";
    GALA_TRY(la_check_vbatched_inplace(ctx, fn, uplo, n, A, a_off, lda, batch));
    if (batch == 0) return GALA_OK;
    const gala_dtype dt = A->dtype;
    pf_cfg c;
    pf_config(ctx, dt, &c);
    const int up = uplo == GALA_UPPER;
    la_vb vb;
    GALA_TRY(la_desc_build(ctx, n, NULL, a_off, lda, NULL, NULL, batch, c.fused_max,
                           c.min_bucket, &vb));
    if (!vb.desc) { /* every matrix is empty */
        if (info) memset(info, 0, (size_t)batch * sizeof *info);
        return GALA_OK;
    }
    size_t tmp = 0;
    la_set sets[8];
    for (int r = 0; r < vb.nruns; ++r) {
        la_set *s = &sets[r];
        memset(s, 0, sizeof *s);
        s->vb = 1;
        s->count = vb.runs[r].count;
        s->n = vb.runs[r].nmax;
        s->A = A;
        s->desc = vb.desc;
        s->dofs = vb.runs[r].first;
        s->nlist = vb.nlist + vb.runs[r].first;
        /* the blocked runs (the large matrices; a bucket of 33..64 in two panels) take
         * their non-finite slots from one scratch, one run after the other */
        if ((!vb.runs[r].bucket || pf_two_panels(&c, s)) && pf_scan_tmp(s) > tmp)
            tmp = pf_scan_tmp(s);
    }
    la_info li;
    gala_status st = la_info_begin(ctx, batch, tmp, NULL, 0, &li);
    for (int r = 0; r < vb.nruns && st == GALA_OK; ++r) {
        const la_set *s = &sets[r];
        if (vb.runs[r].bucket && !pf_two_panels(&c, s)) {
            const int N = vb.runs[r].bucket;
            st = pf_fused(ctx, dt, up, s, N, &c, &li);
        } else {
            st = pf_batch(ctx, dt, up, s, &c, &li);
        }
    }
    if (st == GALA_OK)
        st = la_info_end(ctx, fn, &li, batch, info, n, GALA_ERR_NOT_POSITIVE_DEFINITE, PD_WHAT);
    la_vb_release(&vb);
    return st;
}
