/*
 * Host versions of cl/potrf.cl, cl/potrs.cl, cl/potri.cl and cl/lagemm.cl: same names, same
 * arguments, same contracts (see the comments of the .cl files), computed with plain loops
 * over the matrices of the launch. The launch geometry is ignored: every contract is stated
 * independently of it (e.g. potrf_panel's non-finite checks cover the rows < N of a panel in
 * both geometries).
 */
#ifndef REAL
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_kernels.h"

#define BIGCOL 0x7fffffff
#define DSZ 10

static ptrdiff_t desc_off(const int *d, int k)
{
    return (ptrdiff_t)((unsigned long long)(unsigned int)d[k] |
                       ((unsigned long long)(unsigned int)d[k + 1] << 32));
}

/* Matrix s of a launch: its order, leading dimension, base offset and info slot (from the
 * launch's uniform arguments, or from descriptor s when vb: src/la/la_common.h). */
typedef struct {
    int n, ld, idx;
    ptrdiff_t base;
} hmat;

static hmat mat_at(int s, int n, int lda, ptrdiff_t ao, ptrdiff_t as, const int *desc,
                   ptrdiff_t dofs, int vb)
{
    hmat m = {n, lda, s, ao + (ptrdiff_t)s * as};
    if (vb) {
        const int *d = desc + (dofs + s) * DSZ;
        m.n = d[0];
        m.ld = d[1];
        m.base = desc_off(d, 2);
        m.idx = d[4];
    }
    return m;
}

/* offset of logical L(i, j) */
static ptrdiff_t lidx(ptrdiff_t i, ptrdiff_t j, ptrdiff_t ld, int up)
{
    return up ? j + i * ld : i + j * ld;
}

static int imin(int a, int b) { return a < b ? a : b; }

/* The arguments of a potrf_panel-style launch (cl/potrf.cl PF_PARAMS; potrf_trsm has two
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
    K(potrf_panel, "iiiiibliliblibl" "blii" "bl"),
    /* potrf_lane, potrf_pair, potrf_tile: potrf_panel's arguments and fused contract, one
     * matrix at a time here */
    {"potrf_lane", "iiiiibliliblibl" "blii" "bl", potrf_panel_f, potrf_panel_d},
    {"potrf_pair", "iiiiibliliblibl" "blii" "bl", potrf_panel_f, potrf_panel_d},
    {"potrf_tile", "iiiiibliliblibl" "blii" "bl", potrf_panel_f, potrf_panel_d},
    K(potrf_trsm, "iiiiibliliblibl" "blii" "bl" "bl"),
    K(potrf_merge, "iblibl" "blbli"),
    K(potrf_scan, "iiiibliliblibl"),
    K(potrf_scan_finish, "iblibl" "blbli"),
    {NULL, NULL, NULL, NULL},
};
const gala_host_kernel gala_host_lagemm[] = {
    K(gemm_upd, "iiiiiiiiii" "ri" "iiii" "iiii" "iii" "blili" "blil" "ii" "bli" "bli"),
    {NULL, NULL, NULL, NULL},
};
const gala_host_kernel gala_host_potrs[] = {
    K(potrs_fused, "iiiiiii" "blili" "blil" "bli"),
    K(potrs_sweep, "iiii" "blii" "bl" "bli"),
    {NULL, NULL, NULL, NULL},
};
const gala_host_kernel gala_host_potri[] = {
    K(lauum_fused, "iii" "blili" "bli"),
    K(trmm_lt, "iiii" "blili" "bli"),
    K(copy_mask, "ii" "bli" "bli" "i"),
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
        const int tail = (mode & 2) != 0, head = (mode & 4) != 0;
        const int ncols = imin(N, imin(ap->wlim, nb) - j0);
        const int mrows = head ? imin(N, nb - j0) : nb - j0; /* HEAD: rows < N only */
        if (ncols <= 0) return;
        int lim = BIGCOL;
        if ((mode & 1) == 0) {
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
        if (mode & 32) Wd[ap->wo + s] = (REAL)stop;
        /* TAIL writes rows >= N only, HEAD rows < N only */
        const int i_lo = tail ? N : 0;
        for (int k = 0; k < imin(ncols, stop); ++k)
            for (int i = k > i_lo ? k : i_lo; i < mrows; ++i)
                P[lidx(i, k, ld, up)] = W[i + (size_t)k * mrows];
        if (tail) return;
        if ((mode & 1) || ev != 0) ap->info[ap->io + idx] = ev;
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
    /* one matrix at a time here: SPLIT (8) writes every row at once like mode 0, and its
     * COPY (16) has nothing left to do; W (arguments 19, 20) only takes DIAG's (32) stop */
    if (a.mode & 16) return GALA_OK;
    size_t cap = 0;
    double work = 0;
    for (int s = 0; s < a.count; ++s) {
        const hmat mm = pf_mat(&a, s);
        const int ncols = imin(N, imin(a.wlim, mm.n) - a.j0);
        const int mrows = (a.mode & 4) ? imin(N, mm.n - a.j0) : mm.n - a.j0;
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
    int best = BIGCOL;
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

/* potrf_scan_finish (merge = 0) and potrf_merge (1), as pf_fold in cl/potrf.cl */
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
        const int idx = vb ? desc[(dofs + s) * DSZ + 4] : s;
        if (!merge) info[io + idx] = best == BIGCOL ? 0 : -(best + 1);
        if (best == BIGCOL) continue;
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

/* strides of an operand view X(i, p): address = base + i·si + p·sp */
static void SUF(op_strides)(int src, int tr, int up, ptrdiff_t l0, ptrdiff_t l1, ptrdiff_t *si,
                            ptrdiff_t *sp)
{
    /* logical (r, c) of M0: up ? c + r·l0 : r + c·l0; of M1: r + c·l1 */
    ptrdiff_t sr, sc;
    if (src) { sr = 1; sc = l1; }
    else if (up) { sr = l0; sc = 1; }
    else { sr = 1; sc = l0; }
    *si = tr ? sc : sr;
    *sp = tr ? sr : sc;
}

static void SUF(gemm_upd_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                              int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int mx = HINT(3), mcap = HINT(4), nx = HINT(5), ncap = HINT(6);
    const int nsrc = HINT(7), kx = HINT(8), kcap = HINT(9);
    const REAL alpha = HREAL(10);
    const int mask = HINT(11);
    const int asrc = HINT(12), ar0 = HINT(13), ac0 = HINT(14), atr = HINT(15);
    const int bsrc = HINT(16), br0 = HINT(17), bc0 = HINT(18), btr = HINT(19);
    const int csrc = HINT(20), cr0 = HINT(21), cc0 = HINT(22);
    REAL *M0 = HBUF(REAL, 23);
    const ptrdiff_t m0o = HLONG(24), m0s = HLONG(26);
    const int ld0 = HINT(25), up = HINT(27);
    REAL *M1 = HBUF(REAL, 28);
    const ptrdiff_t m1o = HLONG(29), m1s = HLONG(31);
    const int ld1 = HINT(30), n = HINT(32), nrhs = HINT(33);
    const int *desc = HBUF(int, 34);
    const ptrdiff_t dofs = HLONG(35);
    const int vb = HINT(36);
    const int *info = HBUF(int, 37);
    const ptrdiff_t io = HLONG(38);
    const int skipdead = HINT(39);
    int nb = n, nr = nrhs, l0 = ld0, l1 = ld1, idx = s;
    ptrdiff_t b0 = m0o + (ptrdiff_t)s * m0s, b1 = m1o + (ptrdiff_t)s * m1s;
    if (vb) {
        const int *d = desc + (dofs + s) * DSZ;
        nb = d[0];
        l0 = d[1];
        b0 = desc_off(d, 2);
        idx = d[4];
        nr = d[5];
        l1 = d[6];
        b1 = desc_off(d, 7);
    }
    const int M = imin(mcap, nb - mx), NN = imin(ncap, (nsrc ? nr : nb) - nx);
    const int K = imin(kcap, nb - kx);
    if (M <= 0 || NN <= 0 || K <= 0) return;
    if (skipdead && info[io + idx] > 0) return;
    ptrdiff_t ai, ap, bj, bp, ci, cj;
    SUF(op_strides)(asrc, atr, up, l0, l1, &ai, &ap);
    SUF(op_strides)(bsrc, btr, up, l0, l1, &bj, &bp);
    SUF(op_strides)(csrc, 0, up, l0, l1, &ci, &cj);
    const REAL *Ab = (asrc ? M1 + b1 : M0 + b0) + ar0 * (atr ? ap : ai) + ac0 * (atr ? ai : ap);
    const REAL *Bb = (bsrc ? M1 + b1 : M0 + b0) + br0 * (btr ? bp : bj) + bc0 * (btr ? bj : bp);
    REAL *Cb = (csrc ? M1 + b1 : M0 + b0) + cr0 * ci + cc0 * cj;
    for (int j = 0; j < NN; ++j) {
        int i0 = mask ? cc0 + j - cr0 : 0; /* mask: logical row >= logical column */
        if (i0 < 0) i0 = 0;
        for (int p = 0; p < K; ++p) {
            const REAL b = alpha * Bb[j * bj + p * bp];
            const REAL *a = Ab + p * ap;
            REAL *c = Cb + j * cj;
            for (int i = i0; i < M; ++i) c[i * ci] += a[i * ai] * b;
        }
    }
}

/* one matrix per item: its M × N × K product (the caps bound every matrix's) */
static gala_status SUF(gemm_upd)(const gala_host_launch *L)
{
    const int count = HINT(0);
    return gala_host_items(L, "gemm_upd", count, (double)count * HINT(4) * HINT(6) * HINT(9),
                           SUF(gemm_upd_one), NULL, 0, NULL);
}

static void SUF(potrs_fused_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                                 int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int n = HINT(0), nrhs = HINT(1), j0 = HINT(2), mode = HINT(6);
    const REAL *A = HBUF(REAL, 7);
    const ptrdiff_t ao = HLONG(8), as = HLONG(10);
    const int lda = HINT(9), up = HINT(11);
    REAL *B = HBUF(REAL, 12);
    const ptrdiff_t bo = HLONG(13), bs = HLONG(15);
    const int ldb = HINT(14);
    const int *desc = HBUF(int, 16);
    const ptrdiff_t dofs = HLONG(17);
    const int vb = HINT(18);
    const int N = (int)HDEF("N", 32);
    int nb = n, nr = nrhs, la = lda, lb = ldb;
    ptrdiff_t abase = ao + (ptrdiff_t)s * as, bbase = bo + (ptrdiff_t)s * bs;
    if (vb) {
        const int *d = desc + (dofs + s) * DSZ;
        nb = d[0];
        la = d[1];
        abase = desc_off(d, 2);
        nr = d[5];
        lb = d[6];
        bbase = desc_off(d, 7);
    }
    const int nbk = imin(N, nb - j0);
    if (nbk <= 0) return;
    const REAL *D = A + abase + lidx(j0, j0, la, up);
    for (int c = 0; c < nr; ++c) {
        REAL *x = B + bbase + j0 + (ptrdiff_t)c * lb;
        if (mode & 1)
            for (int j = 0; j < nbk; ++j) {
                x[j] /= D[lidx(j, j, la, up)];
                for (int i = j + 1; i < nbk; ++i) x[i] -= D[lidx(i, j, la, up)] * x[j];
            }
        if (mode & 2)
            for (int j = nbk - 1; j >= 0; --j) {
                x[j] /= D[lidx(j, j, la, up)];
                for (int i = 0; i < j; ++i) x[i] -= D[lidx(j, i, la, up)] * x[j];
            }
    }
}

/* one matrix per item: its right-hand sides against the block of order N at j0 */
static gala_status SUF(potrs_fused)(const gala_host_launch *L)
{
    const int count = HINT(3);
    const double N = (double)HDEF("N", 32);
    return gala_host_items(L, "potrs_fused", count, count * HINT(1) * N * N,
                           SUF(potrs_fused_one), NULL, 0, NULL);
}

/* potrs_sweep's contract (cl/potrs.cl) for every right-hand side: the groups of the
 * launch are the blocks below k (forward), above k (backward) or block k alone (no mode 1);
 * the first of them also applies its diagonal block's inverse from W. */
static gala_status SUF(potrs_sweep)(const gala_host_launch *L)
{
    const int n = HINT(0), nrhs = HINT(1), k = HINT(2), mode = HINT(3);
    const REAL *A = HBUF(REAL, 4);
    const ptrdiff_t ao = HLONG(5);
    const int lda = HINT(6), up = HINT(7);
    const REAL *W = HBUF(REAL, 8);
    const ptrdiff_t wo = HLONG(9);
    REAL *B = HBUF(REAL, 10);
    const ptrdiff_t bo = HLONG(11);
    const int ldb = HINT(12);
    const int N = (int)HDEF("N", 128), nblk = (n + N - 1) / N, bwd = (mode & 2) != 0;
    const int groups = (mode & 1) ? (bwd ? k : nblk - 1 - k) : 1;
    REAL r[256];
    if (N > 256) return GALA_ERR_INTERNAL;
    for (int c = 0; c < nrhs; ++c) {
        REAL *x = B + bo + (ptrdiff_t)c * ldb;
        for (int g = 0; g < groups; ++g) {
            const int ob = (mode & 1) ? (bwd ? k - 1 - g : k + 1 + g) : k;
            const int o0 = ob * N, np = imin(N, n - o0);
            for (int p = 0; p < np; ++p) r[p] = x[o0 + p];
            if (mode & 1) {
                /* T(p, j) = forward L(o0 + p, k0 + j), backward L(k0 + j, o0 + p), at
                 * T[p·sp + j·sj]; the loop along the stored columns innermost */
                const int k0 = k * N, nk = imin(N, n - k0);
                const ptrdiff_t si = up ? lda : 1, sc = up ? 1 : lda;
                const ptrdiff_t sp = bwd ? sc : si, sj = bwd ? si : sc;
                const REAL *T = A + ao + (bwd ? k0 * si + o0 * sc : o0 * si + k0 * sc);
                if (sp == 1) {
                    for (int j = 0; j < nk; ++j)
                        for (int p = 0; p < np; ++p) r[p] -= T[p + j * sj] * x[k0 + j];
                } else {
                    for (int p = 0; p < np; ++p) {
                        REAL sum = 0;
                        for (int j = 0; j < nk; ++j) sum += T[p * sp + j] * x[k0 + j];
                        r[p] -= sum;
                    }
                }
            }
            if (g == 0) {
                const REAL *D = W + wo + (ptrdiff_t)ob * N * N;
                if (mode & 4) /* r = D⁻¹·r, bottom up */
                    for (int p = np - 1; p >= 0; --p) {
                        REAL sum = 0;
                        for (int j = 0; j <= p; ++j) sum += D[lidx(p, j, N, up)] * r[j];
                        r[p] = sum;
                    }
                if (mode & 8) /* r = D⁻ᵀ·r, top down */
                    for (int p = 0; p < np; ++p) {
                        REAL sum = 0;
                        for (int j = p; j < np; ++j) sum += D[lidx(j, p, N, up)] * r[j];
                        r[p] = sum;
                    }
            }
            for (int p = 0; p < np; ++p) x[o0 + p] = r[p];
        }
    }
    return GALA_OK;
}

static void SUF(lauum_fused_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                                 int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int n = HINT(0), j0 = HINT(1);
    REAL *A = HBUF(REAL, 3);
    const ptrdiff_t ao = HLONG(4), as = HLONG(6);
    const int lda = HINT(5), up = HINT(7);
    const int *desc = HBUF(int, 8);
    const ptrdiff_t dofs = HLONG(9);
    const int vb = HINT(10);
    const int N = (int)HDEF("N", 32);
    const hmat mm = mat_at(s, n, lda, ao, as, desc, dofs, vb);
    const int nb = mm.n, ld = mm.ld;
    const ptrdiff_t base = mm.base;
    const int nbk = imin(N, nb - j0);
    if (nbk <= 0) return;
    REAL *T = A + base + lidx(j0, j0, ld, up);
    /* out(i, j) for i >= j uses rows >= i only: go row by row, top down */
    for (int i = 0; i < nbk; ++i)
        for (int j = 0; j <= i; ++j) {
            REAL acc = 0;
            for (int k = i; k < nbk; ++k) acc += T[lidx(k, i, ld, up)] * T[lidx(k, j, ld, up)];
            T[lidx(i, j, ld, up)] = acc;
        }
}

/* one matrix per item */
static gala_status SUF(lauum_fused)(const gala_host_launch *L)
{
    const int count = HINT(2);
    const double N = (double)HDEF("N", 32);
    return gala_host_items(L, "lauum_fused", count, count * N * N * N / 6,
                           SUF(lauum_fused_one), NULL, 0, NULL);
}

static gala_status SUF(copy_mask)(const gala_host_launch *L)
{
    const int m = HINT(0), nc = HINT(1), lds = HINT(4), ldd = HINT(7), mask = HINT(8);
    const REAL *S = HBUF(REAL, 2);
    REAL *D = HBUF(REAL, 5);
    const ptrdiff_t so = HLONG(3), dof = HLONG(6);
    for (int j = 0; j < nc; ++j)
        for (int i = 0; i < m; ++i) {
            const int zero = (mask == 1 && i < j) || (mask == 2 && i > j);
            D[dof + i + (ptrdiff_t)j * ldd] = zero ? (REAL)0 : S[so + i + (ptrdiff_t)j * lds];
        }
    return GALA_OK;
}

static void SUF(trmm_lt_one)(const gala_host_launch *L, const void *arg, long si, void *wk,
                             int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int s = (int)si;
    const int n = HINT(0), I = HINT(1);
    REAL *A = HBUF(REAL, 4);
    const ptrdiff_t ao = HLONG(5), as = HLONG(7);
    const int lda = HINT(6), up = HINT(8);
    const int *desc = HBUF(int, 9);
    const ptrdiff_t dofs = HLONG(10);
    const int vb = HINT(11);
    const int N = (int)HDEF("N", 32);
    const hmat mm = mat_at(s, n, lda, ao, as, desc, dofs, vb);
    const int nb = mm.n, ld = mm.ld;
    const ptrdiff_t base = mm.base;
    const int nbk = imin(N, nb - I);
    if (nbk <= 0) return;
    REAL *W = A + base;
    for (int c = 0; c < I; ++c)
        for (int r = 0; r < nbk; ++r) {
            REAL acc = 0;
            for (int k = r; k < nbk; ++k)
                acc += W[lidx(I + k, I + r, ld, up)] * W[lidx(I + k, c, ld, up)];
            W[lidx(I + r, c, ld, up)] = acc;
        }
}

/* one matrix per item: I columns of the block row times its N × N triangle */
static gala_status SUF(trmm_lt)(const gala_host_launch *L)
{
    const int count = HINT(2);
    const double N = (double)HDEF("N", 32);
    return gala_host_items(L, "trmm_lt", count, count * HINT(1) * N * N / 2, SUF(trmm_lt_one),
                           NULL, 0, NULL);
}

#endif
