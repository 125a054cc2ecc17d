/* Host versions of cl/sldlt.cl (same names, same arguments: cl/sldlt_abi.h, same contracts):
 * every group, every matrix, tasks in level order (a valid sequential order of the schedule). */
#ifndef REAL
#include <math.h>
#include <stdlib.h>

#include "host_kernels.h"
#include "../../../cl/sldlt_abi.h"
#include "../../../cl/sldlt_rules.h"

static ptrdiff_t hs_off(const int *d)
{
    return (ptrdiff_t)((long long)(unsigned)d[0] + (long long)d[1] * 4294967296LL);
}

static int hs_first(int a, int b)
{
    if (a == 0) return b;
    if (b == 0) return a;
    return abs(b) < abs(a) ? b : a;
}

/* Threads (host_kernels.h): the items of a launch are runs of matrices of one group (and
 * one right-hand side, for the solve), walked as before with the matrices innermost; each
 * matrix's arithmetic does not depend on the run it is in, so the runs are cut smaller
 * when there are threads to feed (at most HS_CHUNK matrices, as on one thread). */
#ifndef HS_CHUNK
#define HS_CHUNK 256
#endif
typedef struct {
    int g, r, b0, nb; /* group, right-hand side, first matrix and count of the run */
} hs_item;

/* The runs of every group's batch (× nrhs right-hand sides), about `per` matrices each (at
 * most HS_CHUNK): in buf when they fit its HS_LOCAL entries (one matrix: no allocation per
 * solve), else allocated here (free with hs_free); NULL when there are none or no memory
 * (*count -1). *work: the launch's multiply-adds, roughly. */
#define HS_LOCAL 8
static void hs_free(hs_item *it, const hs_item *buf)
{
    if (it != buf) gala_free(it);
}

static hs_item *hs_items(const gala_host_launch *L, int nrhs, double per_entry, int *count,
                         double *work, hs_item *buf)
{
    const int ngroups = HINT(0);
    const int *gd = HBUF(int, 1);
    long total = 0;
    double w = 0;
    for (int g = 0; g < ngroups; ++g) {
        const int *G = gd + g * SLDLT_GDESC;
        total += G[SLDLT_G_BATCH];
        w += per_entry * nrhs * (double)G[SLDLT_G_BATCH] * ((double)G[SLDLT_G_NNZL] + G[SLDLT_G_N]);
    }
    *work = w;
    *count = 0;
    if (total == 0) return NULL;
    const int nt = gala_host_threads(L, total, w);
    /* about four runs per thread over the launch */
    long per = nt > 1 ? (total + 4L * nt - 1) / (4L * nt) : HS_CHUNK;
    if (per > HS_CHUNK) per = HS_CHUNK;
    if (per < 1) per = 1;
    long n = 0;
    for (int g = 0; g < ngroups; ++g) n += (gd[g * SLDLT_GDESC + SLDLT_G_BATCH] + per - 1) / per;
    hs_item *it = n * nrhs <= HS_LOCAL ? buf : gala_malloc(sizeof *it * (size_t)(n * nrhs));
    if (!it) {
        *count = -1;
        return NULL;
    }
    long k = 0;
    for (int g = 0; g < ngroups; ++g) {
        const int batch = gd[g * SLDLT_GDESC + SLDLT_G_BATCH];
        for (int r = 0; r < nrhs; ++r)
            for (int b0 = 0; b0 < batch; b0 += (int)per) {
                it[k].g = g;
                it[k].r = r;
                it[k].b0 = b0;
                it[k].nb = batch - b0 < per ? batch - b0 : (int)per;
                ++k;
            }
    }
    *count = (int)k;
    return it;
}

#define HOST_TEMPLATE "k_sldlt.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_sldlt[] = {
    K(sldlt_factor, GALA_HOST_SIG(SLDLT_ARGS_factor)),
    K(sldlt_factor_cols, GALA_HOST_SIG(SLDLT_ARGS_factor_cols)),
    K(sldlt_solve, GALA_HOST_SIG(SLDLT_ARGS_solve)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

static int SUF(hs_bad)(REAL d) { return !(d - d == (REAL)0); }

/* The schedule is walked once per run of at most HS_CHUNK matrices, the matrices
 * innermost: the interleaved values of neighbouring matrices are adjacent, as for the lanes
 * of a GPU work-group (same arithmetic, per matrix, as the kernel). */
static void SUF(factor_run)(const gala_host_launch *L, const void *arg, long item, void *wk,
                            int *hit)
{
    (void)wk;
    (void)hit;
    const hs_item *it = (const hs_item *)arg + item;
    const int *gd = HBUF(int, 1), *sc = HBUF(int, 2);
    const REAL *x = HBUF(REAL, 3);
    const ptrdiff_t x_off = HLONG(4), x_ms = HLONG(5), x_es = HLONG(6);
    REAL *V = HBUF(REAL, 7);
    int *st = HBUF(int, 8);
    const int step = HINT(9);
    REAL dj[HS_CHUNK], tk[HS_CHUNK];
    int info[HS_CHUNK], np[HS_CHUNK], nn[HS_CHUNK];
    {
        const int *G = gd + it->g * SLDLT_GDESC;
        const int nnzl = G[SLDLT_G_NNZL];
        /* the tasks of this launch (SLDLT_G_STEPS); a later one goes on from the status */
        const int *steps = sc + G[SLDLT_G_STEPS];
        if (step >= steps[SLDLT_SP_NFAC]) return;
        const int ta = steps[SLDLT_SP_FAC + step], tb = steps[SLDLT_SP_FAC + step + 1];
        const ptrdiff_t ldv = G[SLDLT_G_LDV], q0 = G[SLDLT_G_Q0];
        const int *task = sc + G[SLDLT_G_TASK], *ins = sc + G[SLDLT_G_INS];
        const int *amap = sc + G[SLDLT_G_AMAP];
        {
            const int b0 = it->b0, nb = it->nb;
            REAL *v = V + hs_off(G + SLDLT_G_VBASE) + b0;
            const REAL *xa = x + x_off + (q0 + b0) * x_ms;
            for (int c = 0; c < nb; ++c) {
                const int *h = st + LA_NST * (q0 + b0 + c);
                info[c] = step > 0 ? h[LA_ST_INFO] : 0;
                np[c] = step > 0 ? h[LA_ST_POS] : 0;
                nn[c] = step > 0 ? h[LA_ST_NEG] : 0;
            }
            for (int t = ta; t < tb; ++t) {
                const int *T = task + (ptrdiff_t)t * SLDLT_TASK;
                const int j = T[SLDLT_T_J], dpos = nnzl + j;
                if (nb == 1) /* (a memset per entry costs more than the entry) */
                    for (int p = T[SLDLT_T_L0]; p < T[SLDLT_T_L1]; ++p) v[p * ldv] = 0;
                else
                    for (int p = T[SLDLT_T_L0]; p < T[SLDLT_T_L1]; ++p)
                        for (int c = 0; c < nb; ++c) v[p * ldv + c] = 0;
                for (int c = 0; c < nb; ++c) dj[c] = 0;
                for (int a = T[SLDLT_T_A0]; a < T[SLDLT_T_A1]; ++a) {
                    const int dst = amap[SLDLT_AM * a + SLDLT_AM_V];
                    const REAL *xe = xa + amap[SLDLT_AM * a + SLDLT_AM_A] * x_es;
                    if (dst == dpos)
                        for (int c = 0; c < nb; ++c) dj[c] = xe[c * x_ms];
                    else
                        for (int c = 0; c < nb; ++c) v[dst * ldv + c] = xe[c * x_ms];
                }
                for (int i = T[SLDLT_T_INS0]; i < T[SLDLT_T_INS1]; ++i) {
                    const int *I = ins + (ptrdiff_t)i * SLDLT_INS;
                    const int len = I[SLDLT_I_LEN], src = I[SLDLT_I_SRC];
                    const int dst = I[SLDLT_I_DST], k = I[SLDLT_I_K];
                    if (k >= 0) {
                        const REAL *lv = v + (src - 1) * ldv, *dk = v + (nnzl + k) * ldv;
                        for (int c = 0; c < nb; ++c) {
                            tk[c] = lv[c] * dk[c];
                            dj[c] -= lv[c] * tk[c];
                        }
                    }
                    if (nb == 1) { /* one matrix: a plain loop over the run */
                        const REAL t0 = tk[0];
                        for (int r = 0; r < len; ++r) v[(dst + r) * ldv] -= v[(src + r) * ldv] * t0;
                    } else {
                        for (int r = 0; r < len; ++r) {
                            REAL *d = v + (dst + r) * ldv;
                            const REAL *sv = v + (src + r) * ldv;
                            for (int c = 0; c < nb; ++c) d[c] -= sv[c] * tk[c];
                        }
                    }
                }
                for (int c = 0; c < nb; ++c) {
                    const REAL d = dj[c];
                    v[dpos * ldv + c] = d;
                    if (SUF(hs_bad)(d)) {
                        info[c] = hs_first(info[c], -(j + 1));
                    } else if (d == 0) {
                        info[c] = hs_first(info[c], j + 1);
                    } else {
                        if (d > 0) ++np[c]; else ++nn[c];
                        for (int p = T[SLDLT_T_L0]; p < T[SLDLT_T_L1]; ++p) v[p * ldv + c] /= d;
                    }
                }
            }
            for (int c = 0; c < nb; ++c) {
                const ptrdiff_t q = q0 + b0 + c;
                st[LA_NST * q + LA_ST_INFO] = info[c];
                st[LA_NST * q + LA_ST_POS] = np[c];
                st[LA_NST * q + LA_ST_NEG] = nn[c];
            }
        }
    }
}

static gala_status SUF(sldlt_factor)(const gala_host_launch *L)
{
    int count;
    double work;
    hs_item buf[HS_LOCAL];
    hs_item *it = hs_items(L, 1, 4, &count, &work, buf);
    if (count < 0)
        return gala_error(L->ctx, GALA_ERR_OUT_OF_MEMORY, "sldlt_factor: no host memory");
    const gala_status s = gala_host_items(L, "sldlt_factor", count, work, SUF(factor_run), it,
                                          0, NULL);
    hs_free(it, buf);
    return s;
}

static void SUF(factor_cols_run)(const gala_host_launch *L, const void *arg, long item,
                                 void *wk, int *hit)
{
    (void)wk;
    (void)hit;
    const hs_item *it = (const hs_item *)arg + item;
    const int *gd = HBUF(int, 1), *sc = HBUF(int, 2);
    const REAL *x = HBUF(REAL, 3);
    const ptrdiff_t x_off = HLONG(4), x_ms = HLONG(5), x_es = HLONG(6);
    REAL *V = HBUF(REAL, 7), *W = HBUF(REAL, 8);
    int *IW = HBUF(int, 9), *st = HBUF(int, 10);
    {
        const int *G = gd + it->g * SLDLT_GDESC;
        const int n = G[SLDLT_G_N], nnzl = G[SLDLT_G_NNZL];
        const ptrdiff_t ldv = G[SLDLT_G_LDV], ldw = G[SLDLT_G_LDW];
        const int *lp = sc + G[SLDLT_G_LP], *li = sc + G[SLDLT_G_LI], *aptr = sc + G[SLDLT_G_APTR],
                  *amap = sc + G[SLDLT_G_AMAP];
        for (ptrdiff_t b = it->b0; b < it->b0 + it->nb; ++b) {
            const ptrdiff_t q = G[SLDLT_G_Q0] + b;
            REAL *v = V + hs_off(G + SLDLT_G_VBASE) + b, *xw = W + hs_off(G + SLDLT_G_WBASE) + b;
            int *head = IW + SLDLT_IW * hs_off(G + SLDLT_G_WBASE) + b, *link = head + n * ldw,
                *first = link + n * ldw;
            const REAL *xa = x + x_off + q * x_ms;
            int info = 0, np = 0, nn = 0;
            SLDLT_FACTOR_COLS(n, nnzl, v, ldv, xw, ldw, head, link, first, xa, x_es, lp, li, aptr,
                              amap, info, np, nn, SUF(hs_bad), hs_first); /* cl/sldlt_rules.h */
            st[LA_NST * q + LA_ST_INFO] = info;
            st[LA_NST * q + LA_ST_POS] = np;
            st[LA_NST * q + LA_ST_NEG] = nn;
        }
    }
}

/* one matrix at a time, each in its own columns of W and IW: runs of matrices per item */
static gala_status SUF(sldlt_factor_cols)(const gala_host_launch *L)
{
    int count;
    double work;
    hs_item buf[HS_LOCAL];
    hs_item *it = hs_items(L, 1, 4, &count, &work, buf);
    if (count < 0)
        return gala_error(L->ctx, GALA_ERR_OUT_OF_MEMORY, "sldlt_factor_cols: no host memory");
    const gala_status s = gala_host_items(L, "sldlt_factor_cols", count, work,
                                          SUF(factor_cols_run), it, 0, NULL);
    hs_free(it, buf);
    return s;
}

/* One matrix (nb = 1): the sweeps with two running sums per row or column (entries taken
 * alternately; the row's or column's value is their sum), so that each sum waits on every
 * other entry only: one sum was a chain of dependent subtractions, the adder's latency per
 * entry. Inlined with ldv = x_es = 1 (one QP's solve) as well as general. */
static GALA_CLONE_INLINE void SUF(solve_one)(const int *stask, const int *frow,
                                             const int *bidx, const REAL *v, REAL *xv, int f0,
                                             int f1, int b0s, int b1, int nnzl, ptrdiff_t ldv,
                                             ptrdiff_t x_es)
{
    for (int t = f0; t < f1; ++t) {
        const int *U = stask + (ptrdiff_t)t * SLDLT_STASK;
        REAL a = xv[U[SLDLT_S_PI] * x_es], b = 0;
        int f = U[SLDLT_S_R0];
        for (; f + 1 < U[SLDLT_S_R1]; f += 2) {
            const int *r0 = frow + SLDLT_FR * f, *r1 = r0 + SLDLT_FR;
            a -= v[r0[SLDLT_FR_V] * ldv] * xv[r0[SLDLT_FR_X] * x_es];
            b -= v[r1[SLDLT_FR_V] * ldv] * xv[r1[SLDLT_FR_X] * x_es];
        }
        if (f < U[SLDLT_S_R1]) {
            const int *r0 = frow + SLDLT_FR * f;
            a -= v[r0[SLDLT_FR_V] * ldv] * xv[r0[SLDLT_FR_X] * x_es];
        }
        xv[U[SLDLT_S_PI] * x_es] = a + b;
    }
    for (int t = b0s - 1; t >= b1; --t) {
        const int *U = stask + (ptrdiff_t)t * SLDLT_STASK;
        REAL a = xv[U[SLDLT_S_PI] * x_es] / v[(nnzl + U[SLDLT_S_I]) * ldv], b = 0;
        int e = U[SLDLT_S_L0];
        for (; e + 1 < U[SLDLT_S_L1]; e += 2) {
            a -= v[e * ldv] * xv[bidx[e] * x_es];
            b -= v[(e + 1) * ldv] * xv[bidx[e + 1] * x_es];
        }
        if (e < U[SLDLT_S_L1]) a -= v[e * ldv] * xv[bidx[e] * x_es];
        xv[U[SLDLT_S_PI] * x_es] = a + b;
    }
}

/* run `item`: right-hand side r of matrices b0 .. b0 + nb − 1 of a group (the matrices
 * innermost; each matrix's arithmetic that of solve_one, whatever the run) */
static void SUF(solve_run)(const gala_host_launch *L, const void *arg, long item, void *wk,
                           int *hit)
{
    (void)wk;
    (void)hit;
    const hs_item *it = (const hs_item *)arg + item;
    const int *gd = HBUF(int, 1), *sc = HBUF(int, 2);
    const REAL *V = HBUF(REAL, 3);
    const int copy = HINT(5);
    const REAL *B = HBUF(REAL, 6);
    const ptrdiff_t b_off = HLONG(7), b_ms = HLONG(8), b_rs = HLONG(9), b_es = HLONG(10);
    REAL *X = HBUF(REAL, 11);
    const ptrdiff_t x_off = HLONG(12), x_ms = HLONG(13), x_rs = HLONG(14), x_es = HLONG(15);
    const int step = HINT(16);
    REAL s[HS_CHUNK], s2[HS_CHUNK];
    const int *G = gd + it->g * SLDLT_GDESC;
    const int n = G[SLDLT_G_N], nnzl = G[SLDLT_G_NNZL];
    /* the forward tasks f0 .. f1−1 and backward tasks b0−1 .. b1 of this launch (SLDLT_SP_*) */
    const int *steps = sc + G[SLDLT_G_STEPS];
    if (step >= steps[SLDLT_SP_NSOLVE]) return;
    const int *u = steps + SLDLT_SP_SOLVE0 + steps[SLDLT_SP_NFAC] + SLDLT_SP_SW * step;
    const int f0 = u[SLDLT_SP_F0], f1 = u[SLDLT_SP_F1], b0s = u[SLDLT_SP_B0], b1 = u[SLDLT_SP_B1];
    const ptrdiff_t ldv = G[SLDLT_G_LDV], q0 = G[SLDLT_G_Q0];
    const int *stask = sc + G[SLDLT_G_STASK], *frow = sc + G[SLDLT_G_FROW];
    const int *bidx = sc + G[SLDLT_G_BIDX];
    const int r = it->r, b0 = it->b0, nb = it->nb;
    {
        const REAL *v = V + hs_off(G + SLDLT_G_VBASE) + b0;
        REAL *xv = X + x_off + (q0 + b0) * x_ms + r * x_rs;
        const REAL *bv = B + b_off + (q0 + b0) * b_ms + r * b_rs;
        if (copy && step == 0)
            for (int e = 0; e < n; ++e)
                for (int c = 0; c < nb; ++c) xv[e * x_es + c * x_ms] = bv[e * b_es + c * b_ms];
        if (nb == 1) { /* one matrix: plain loops, the strides known where they are 1 */
            if (ldv == 1 && x_es == 1)
                SUF(solve_one)(stask, frow, bidx, v, xv, f0, f1, b0s, b1, nnzl, 1, 1);
            else SUF(solve_one)(stask, frow, bidx, v, xv, f0, f1, b0s, b1, nnzl, ldv, x_es);
            return;
        }
        for (int t = f0; t < f1; ++t) {
            const int *U = stask + (ptrdiff_t)t * SLDLT_STASK;
            REAL *xi = xv + U[SLDLT_S_PI] * x_es;
            for (int c = 0; c < nb; ++c) {
                s[c] = xi[c * x_ms];
                s2[c] = 0;
            }
            int f = U[SLDLT_S_R0];
            for (; f + 1 < U[SLDLT_S_R1]; f += 2) {
                const int *r0 = frow + SLDLT_FR * f, *r1 = r0 + SLDLT_FR;
                const REAL *lv = v + r0[SLDLT_FR_V] * ldv, *xj = xv + r0[SLDLT_FR_X] * x_es;
                const REAL *lw = v + r1[SLDLT_FR_V] * ldv, *xk = xv + r1[SLDLT_FR_X] * x_es;
                for (int c = 0; c < nb; ++c) {
                    s[c] -= lv[c] * xj[c * x_ms];
                    s2[c] -= lw[c] * xk[c * x_ms];
                }
            }
            if (f < U[SLDLT_S_R1]) {
                const int *r0 = frow + SLDLT_FR * f;
                const REAL *lv = v + r0[SLDLT_FR_V] * ldv, *xj = xv + r0[SLDLT_FR_X] * x_es;
                for (int c = 0; c < nb; ++c) s[c] -= lv[c] * xj[c * x_ms];
            }
            for (int c = 0; c < nb; ++c) xi[c * x_ms] = s[c] + s2[c];
        }
        for (int t = b0s - 1; t >= b1; --t) {
            const int *U = stask + (ptrdiff_t)t * SLDLT_STASK;
            REAL *xi = xv + U[SLDLT_S_PI] * x_es;
            const REAL *dv = v + (nnzl + U[SLDLT_S_I]) * ldv;
            for (int c = 0; c < nb; ++c) {
                s[c] = xi[c * x_ms] / dv[c];
                s2[c] = 0;
            }
            int e = U[SLDLT_S_L0];
            for (; e + 1 < U[SLDLT_S_L1]; e += 2) {
                const REAL *lv = v + e * ldv, *xj = xv + bidx[e] * x_es;
                const REAL *lw = v + (e + 1) * ldv, *xk = xv + bidx[e + 1] * x_es;
                for (int c = 0; c < nb; ++c) {
                    s[c] -= lv[c] * xj[c * x_ms];
                    s2[c] -= lw[c] * xk[c * x_ms];
                }
            }
            if (e < U[SLDLT_S_L1]) {
                const REAL *lv = v + e * ldv, *xj = xv + bidx[e] * x_es;
                for (int c = 0; c < nb; ++c) s[c] -= lv[c] * xj[c * x_ms];
            }
            for (int c = 0; c < nb; ++c) xi[c * x_ms] = s[c] + s2[c];
        }
    }
}

static gala_status SUF(sldlt_solve)(const gala_host_launch *L)
{
    int count;
    double work;
    hs_item buf[HS_LOCAL];
    hs_item *it = hs_items(L, HINT(4), 2, &count, &work, buf);
    if (count < 0) return gala_error(L->ctx, GALA_ERR_OUT_OF_MEMORY, "sldlt_solve: no host memory");
    const gala_status st = gala_host_items(L, "sldlt_solve", count, work, SUF(solve_run), it, 0,
                                           NULL);
    hs_free(it, buf);
    return st;
}

#endif
