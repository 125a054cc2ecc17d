/*
 * Host versions of cl/potrf.cl: same names, same arguments (cl/potrf_abi.h), same contracts
 * (see the comments of the .cl file), computed with plain loops over the matrices of the
 * launch. The launch geometry is ignored: every contract is stated independently of it
 * (e.g. potrf_panel's non-finite checks cover the rows < N of a panel in both geometries).
 */
#ifndef REAL
#include <math.h>
#include <stdlib.h>

#include "host_kernels.h"
#include "k_la.h"
#include "../../../cl/potrf_abi.h"

/* The arguments of a potrf_panel-style launch (POTRF_ARGS_panel; potrf_trsm's has two
 * more), A and W as the caller's REAL */
typedef struct {
    int n, j0, wlim, count, lda, up, vb, epoch, mode;
    ptrdiff_t ao, as, dofs, io, fo, wo;
    const int *desc;
    int *info, *flag;
    void *A, *W;
} pf_args;

static pf_args pf_unpack(const gala_host_launch *L)
{
    pf_args a;
    a.n = HINT(0); a.j0 = HINT(1); a.wlim = HINT(2); a.count = HINT(3);
    a.A = HBUF(void, 5); a.ao = HLONG(6); a.lda = HINT(7); a.as = HLONG(8); a.up = HINT(9);
    a.desc = HBUF(int, 10); a.dofs = HLONG(11); a.vb = HINT(12);
    a.info = HBUF(int, 13); a.io = HLONG(14); a.flag = HBUF(int, 15); a.fo = HLONG(16);
    a.epoch = HINT(17); a.mode = HINT(18); a.W = HBUF(void, 19); a.wo = HLONG(20);
    return a;
}

/* matrix s of such a launch */
static hmat pf_mat(const pf_args *a, int s)
{
    return mat_at(s, a->n, a->lda, a->ao, a->as, a->desc, a->dofs, a->vb);
}

#define HOST_TEMPLATE "k_potrf.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_potrf[] = {
    K(potrf_panel, GALA_HOST_SIG(POTRF_ARGS_panel)),
    /* potrf_lane, potrf_pair, potrf_tile: potrf_panel's arguments and fused contract, one
     * matrix at a time here */
    {"potrf_lane", GALA_HOST_SIG(POTRF_ARGS_panel), potrf_panel_f, potrf_panel_d},
    {"potrf_pair", GALA_HOST_SIG(POTRF_ARGS_panel), potrf_panel_f, potrf_panel_d},
    {"potrf_tile", GALA_HOST_SIG(POTRF_ARGS_panel), potrf_panel_f, potrf_panel_d},
    K(potrf_trsm, GALA_HOST_SIG(POTRF_ARGS_trsm)),
    K(potrf_merge, GALA_HOST_SIG(POTRF_ARGS_fold)),
    K(potrf_scan, GALA_HOST_SIG(POTRF_ARGS_scan)),
    K(potrf_scan_finish, GALA_HOST_SIG(POTRF_ARGS_fold)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

static int SUF(finite)(REAL x) { return fabs((double)x) < (double)INFINITY; }

/* Matrix s of a potrf_panel launch (arg: its pf_args), W: the thread's mrows × ncols
 * scratch; *hit set when the matrix raises the launch's flag (written once by the caller) */
static void SUF(panel_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                           int *hit)
{
    const pf_args *ap = arg;
    const int s = (int)si;
    const int j0 = ap->j0, up = ap->up, mode = ap->mode;
    const int N = (int)HDEF("N", 32);
    REAL *A = ap->A, *Wd = ap->W;
    REAL *W = wk, colj[64];
    {
        const hmat mm = pf_mat(ap, s);
        const int nb = mm.n, ld = mm.ld, idx = mm.idx;
        const ptrdiff_t base = mm.base;
        const int tail = (mode & POTRF_MODE_TAIL) != 0, head = (mode & POTRF_MODE_HEAD) != 0;
        const int ncols = imin(N, imin(ap->wlim, nb) - j0);
        const int mrows = head ? imin(N, nb - j0) : nb - j0; /* HEAD: rows < N only */
        if (ncols <= 0) return;
        int lim = LA_BIG;
        if ((mode & POTRF_MODE_INFO) == 0) {
            const int inf0 = ap->info[ap->io + idx];
            if (inf0 > 0 && inf0 <= j0) return;
            if (inf0 < 0) lim = -inf0 - 1;
        }
        REAL *P = A + base + lidx(j0, j0, ld, up);
        for (int k = 0; k < ncols; ++k)
            for (int i = 0; i < mrows; ++i)
                W[i + (size_t)k * mrows] = i >= k ? P[lidx(i, k, ld, up)] : (REAL)0;
        int ev = 0;
        for (int j = 0; j < ncols; ++j) {
            REAL *cj = W + (size_t)j * mrows;
            int nonfinite = 0;
            for (int i = j; i < imin(mrows, N); ++i)
                if (!SUF(finite)(cj[i])) nonfinite = 1;
            const REAL d = cj[j];
            if (ev == 0 && j0 + j < lim) {
                if (nonfinite || !SUF(finite)(d)) ev = -(j0 + j + 1);
                else if (d <= 0) ev = j0 + j + 1;
            }
            const REAL sd = (REAL)sqrt((double)d);
            for (int k = j + 1; k < ncols; ++k) colj[k] = cj[k];
            cj[j] = sd;
            for (int i = j + 1; i < mrows; ++i) {
                const REAL l = cj[i] / sd, li = l / sd;
                cj[i] = l;
                const int kend = imin(i, ncols - 1);
                for (int k = j + 1; k <= kend; ++k) W[i + (size_t)k * mrows] -= li * colj[k];
            }
        }
        const int stop = ev != 0 ? (ev > 0 ? ev : -ev) - 1 - j0 : ncols;
        if (mode & POTRF_MODE_DIAG) Wd[ap->wo + s] = (REAL)stop;
        /* TAIL writes rows >= N only, HEAD rows < N only */
        const int i_lo = tail ? N : 0;
        for (int k = 0; k < imin(ncols, stop); ++k)
            for (int i = k > i_lo ? k : i_lo; i < mrows; ++i)
                P[lidx(i, k, ld, up)] = W[i + (size_t)k * mrows];
        if (tail) return;
        if ((mode & POTRF_MODE_INFO) || ev != 0) ap->info[ap->io + idx] = ev;
        if (ev != 0) *hit = 1;
    }
}

/* One matrix per item (a device's work-group, or groups, per matrix): the largest panel
 * (rows × columns) sizes each thread's scratch, and the launch's flag is written once
 * after the loop when some matrix failed. */
static gala_status SUF(potrf_panel)(const gala_host_launch *L)
{
    const pf_args a = pf_unpack(L);
    const int N = (int)HDEF("N", 32);
    /* one matrix at a time here: SPLIT writes every row at once like mode 0, and its COPY
     * has nothing left to do; W (arguments W, wo) only takes DIAG's stop */
    if (a.mode & POTRF_MODE_COPY) return GALA_OK;
    size_t cap = 0;
    double work = 0;
    for (int s = 0; s < a.count; ++s) {
        const hmat mm = pf_mat(&a, s);
        const int ncols = imin(N, imin(a.wlim, mm.n) - a.j0);
        const int mrows = (a.mode & POTRF_MODE_HEAD) ? imin(N, mm.n - a.j0) : mm.n - a.j0;
        if (ncols <= 0 || mrows <= 0) continue;
        cap = (size_t)mrows * (size_t)ncols > cap ? (size_t)mrows * (size_t)ncols : cap;
        work += (double)mrows * ncols * (ncols / 2.0 + 2);
    }
    int hit = 0;
    GALA_TRY(gala_host_items(L, "potrf_panel", a.count, work, SUF(panel_one), &a,
                             cap * sizeof(REAL), &hit));
    if (hit) a.flag[a.fo] = a.epoch;
    return GALA_OK;
}

static void SUF(trsm_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                          int *hit)
{
    (void)wk;
    (void)hit;
    const pf_args *ap = arg;
    const int s = (int)si;
    const int j0 = ap->j0, up = ap->up;
    REAL *A = ap->A;
    const REAL *W = ap->W;
    int *nfm = HBUF(int, 21);
    const ptrdiff_t nfo = HLONG(22);
    const int N = (int)HDEF("N", 32);
    REAL x[64], dinv[64];
    {
        const hmat mm = pf_mat(ap, s);
        const int ncols = imin(N, imin(ap->wlim, mm.n) - j0), mrows = mm.n - j0;
        if (ncols <= 0 || mrows <= N) return;
        const int inf0 = ap->info[ap->io + mm.idx];
        if (inf0 > 0 && inf0 <= j0) return;
        const int stop = imin(ncols, (int)W[ap->wo + s]);
        REAL *P = A + mm.base + lidx(j0, j0, mm.ld, up);
        for (int j = 0; j < ncols; ++j) dinv[j] = (REAL)1 / P[lidx(j, j, mm.ld, up)];
        for (int i = N; i < mrows; ++i) {
            for (int k = 0; k < ncols; ++k) x[k] = P[lidx(i, k, mm.ld, up)];
            for (int k = 0; k < ncols; ++k)
                if (!SUF(finite)(x[k])) {
                    if (j0 + k < nfm[nfo + s]) nfm[nfo + s] = j0 + k;
                    break;
                }
            for (int j = 0; j < ncols; ++j) {
                x[j] *= dinv[j];
                for (int k = j + 1; k < ncols; ++k) x[k] -= x[j] * P[lidx(k, j, mm.ld, up)];
            }
            for (int k = 0; k < stop; ++k) P[lidx(i, k, mm.ld, up)] = x[k];
        }
    }
}

/* potrf_trsm: rows N .. of the panel at j0 solved against its factored diagonal block,
 * columns before W[wo + s] (the DIAG launch's first unwritten column) written; the first
 * non-finite input column of its rows folded into nfm[nfo + s]. One matrix per item. */
static gala_status SUF(potrf_trsm)(const gala_host_launch *L)
{
    const pf_args a = pf_unpack(L);
    const int N = (int)HDEF("N", 32);
    double work = 0;
    for (int s = 0; s < a.count; ++s) {
        const hmat mm = pf_mat(&a, s);
        const int ncols = imin(N, imin(a.wlim, mm.n) - a.j0), mrows = mm.n - a.j0;
        if (ncols > 0 && mrows > N) work += (double)(mrows - N) * ncols * (ncols / 2.0 + 2);
    }
    return gala_host_items(L, "potrf_trsm", a.count, work, SUF(trsm_one), &a, 0, NULL);
}

static void SUF(scan_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                          int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int n = HINT(0);
    const REAL *A = HBUF(REAL, 4);
    const ptrdiff_t ao = HLONG(5), as = HLONG(7);
    const int lda = HINT(6), up = HINT(8);
    const int *desc = HBUF(int, 9);
    const ptrdiff_t dofs = HLONG(10);
    const int vb = HINT(11);
    int *tmp = HBUF(int, 12);
    const ptrdiff_t to = HLONG(13);
    const hmat mm = mat_at(s, n, lda, ao, as, desc, dofs, vb);
    const int nb = mm.n, ld = mm.ld;
    const ptrdiff_t base = mm.base;
    int best = LA_BIG;
    for (int c = 0; c < nb; ++c) {
        const REAL *col = A + base + (ptrdiff_t)c * ld;
        const int lo = up ? 0 : c, hi = up ? c + 1 : nb;
        for (int i = lo; i < hi; ++i) {
            const int cand = up ? i : c;
            if (cand < best && !SUF(finite)(col[i])) best = cand;
        }
    }
    tmp[to + s] = imin(tmp[to + s], best);
}

/* the blocks (nblk, scb) only split the work on devices; one pass per matrix here, one
 * matrix per item */
static gala_status SUF(potrf_scan)(const gala_host_launch *L)
{
    const int n = HINT(0), count = HINT(1);
    /* a variable batch's orders are at most n (its largest) */
    return gala_host_items(L, "potrf_scan", count, (double)count * n * n / 2, SUF(scan_one),
                           NULL, 0, NULL);
}

/* potrf_scan_finish (merge = 0) and potrf_merge (1), as pf_fold in cl/potrf/scan.cl */
static gala_status SUF(fold)(const gala_host_launch *L, int merge)
{
    const int count = HINT(0);
    const int *desc = HBUF(int, 1);
    const ptrdiff_t dofs = HLONG(2);
    const int vb = HINT(3);
    const int *tmp = HBUF(int, 4);
    const ptrdiff_t to = HLONG(5);
    int *info = HBUF(int, 6);
    const ptrdiff_t io = HLONG(7);
    int *flag = HBUF(int, 8);
    const ptrdiff_t fo = HLONG(9);
    const int epoch = HINT(10);
    for (int s = 0; s < count; ++s) {
        const int best = tmp[to + s];
        const int idx = vb ? desc[(dofs + s) * LA_DSZ + LA_D_IDX] : s;
        if (!merge) info[io + idx] = best == LA_BIG ? 0 : -(best + 1);
        if (best == LA_BIG) continue;
        const int cur = merge ? info[io + idx] : 0;
        if (cur == 0 || best <= (cur > 0 ? cur : -cur) - 1) {
            info[io + idx] = -(best + 1);
            flag[fo] = epoch;
        }
    }
    return GALA_OK;
}

static gala_status SUF(potrf_scan_finish)(const gala_host_launch *L) { return SUF(fold)(L, 0); }

static gala_status SUF(potrf_merge)(const gala_host_launch *L) { return SUF(fold)(L, 1); }

#endif
