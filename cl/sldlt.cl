/*
 * sldlt: sparse LDLᵀ (P·A·Pᵀ = L·D·Lᵀ) of batches of matrices that share a pattern, and of
 * heterogeneous batches (several patterns, one launch): numeric factorization and solves.
 * The host computed everything symbolic (src/la/sparse_ldlt_symbolic.c); the kernels walk
 * its flat schedule. docs/ldlt.md has the figures.
 *
 * gala-defines: MB=32 CW=2 SYNC=0
 * -D parameters:
 *   MB  matrices (factor) or (matrix, right-hand side) pairs (solve) per work-group: lanes
 *       m = 0..MB−1, consecutive matrices, so that their interleaved values are adjacent
 *   CW  column workers per matrix: the tasks (columns) of one level of the elimination tree
 *       are dealt to CW workers, with a barrier between levels; CW = 1 needs no barrier
 *   SYNC 1: a barrier after every column task (only with CW = 1). For CPU OpenCL devices,
 *       which run the work-items of a group one after the other between barriers: the
 *       schedule is then walked task by task for all MB matrices (adjacent values stay in
 *       cache) instead of matrix by matrix; GPUs use 0
 *   work-group = MB·CW lanes, lane = w·MB + m.
 *
 * Data (all offsets in ints or elements; SLDLT_GDESC ints of group descriptor per pattern,
 * gd; the layouts' names are in cl/sldlt_abi.h):
 *   V   factor values of group g, element e of matrix b at V[vbase + e·ldv + b]:
 *       e < nnzL: L below the diagonal (column by column), e = nnzL + j: D[j]
 *   sc  the schedules of all groups (one int buffer), sections at the offsets of gd:
 *       task[SLDLT_TASK·j]    {j, ins0, ins1, l0, l1, a0, a1, cost}: column j of L
 *       lord[lev[l]..lev[l+1]) the tasks of level l (elimination-tree level order)
 *       ins[SLDLT_INS·i]      {len, src, dst, k}
 *       amap[SLDLT_AM·a]      {entry of A (CSC order), position in V}
 *       stask[SLDLT_STASK·i]  {i, perm[i], r0, r1, l0, l1}: solve task of node i
 *       frow[SLDLT_FR·f]      row i of L: {position in V, perm[column]}
 *       bidx[p]               perm[row of entry p of L]
 *       lp, li, aptr          plain CSC of L and amap ranges (column baseline kernel)
 *       steps                 {nfac, nsolve, fac[0..nfac], nsolve × {f0, f1, b0, b1}}: the
 *                             launches (argument `step`) the work is split into on devices
 *                             that cut a work-item's loops short (Mesa's llvmpipe stops them
 *                             after 65535 iterations in all, silently; gala_loop_limit):
 *                             factor launch s does tasks fac[s] .. fac[s+1]−1 (CW = 1), solve
 *                             launch s the forward tasks f0 .. f1−1 and the backward tasks
 *                             b0−1 down to b1. Elsewhere one launch each: {1, 1, 0, n, 0, n,
 *                             n, 0}
 *   st  per matrix q (all groups): info, positive pivots, negative pivots (LA_ST_*)
 */

/* the schedule's layouts and the argument lists shared with the host (cl/sldlt_abi.h) */
#include "sldlt_abi.h"
#include "sldlt_rules.h"

DEVFN int sl_bad(REAL d) { return !(d - d == (REAL)0); } /* NaN or ±Inf */

DEVFN gidx sl_off(GLOBAL const int *d)
{
    return (gidx)(unsigned)d[0] + (gidx)d[1] * (gidx)4294967296;
}

/* The group of work-group `chunk` (in/out: the chunk index within the group); a group of
 * `batch` matrices with R lanes each spans ceil(batch·R / MB) work-groups. */
DEVFN int sl_group(GLOBAL const int *gd, const int ngroups, const int R, gidx *chunk)
{
    gidx c = *chunk;
    int g = 0;
    for (; g < ngroups - 1; ++g) {
        const gidx nch = ((gidx)gd[g * SLDLT_GDESC + SLDLT_G_BATCH] * R + MB - 1) / MB;
        if (c < nch) break;
        c -= nch;
    }
    *chunk = c;
    return g;
}

/* Smallest pivot index wins (a failure at k can only spread to ancestors of k, which come
 * later in elimination order). */
DEVFN int sl_first(int a, int b)
{
    if (a == 0) return b;
    if (b == 0) return a;
    const int ua = a < 0 ? -a : a, ub = b < 0 ? -b : b;
    return ub < ua ? b : a;
}

/*
 * sldlt_factor: numeric factorization with the flat schedule, left-looking by columns. A
 * task is one column j of L (task j):
 *
 *       V(col j) = A values (amap), D[j] = A(j,j)
 *       for its instructions {len, src, dst, k}:
 *           if k >= 0:  t = V[src−1]·D[k];  D[j] −= V[src−1]·t          (new cmod(j, k))
 *           V[dst + r] −= V[src + r]·t,  r < len                       (one run of the tail)
 *       V(col j) /= D[j]
 *
 *        column k (done earlier)           column j (this task)
 *        +---+                             +---+
 *        | j |  L(j,k) = V[src−1]          |   |
 *        | a |  --- run, len 2 --------->  | a |  dst
 *        | b |                             | b |  dst+1
 *        |   |                             | c |
 *        | d |  --- run, len 1 --------->  | d |
 *        +---+                             +---+
 *
 * CW = 1: every lane walks all tasks in elimination order (0, 1, ..., n−1), the instruction
 * array front to back. CW > 1: the tasks of each level of the elimination tree (they only
 * read columns of lower levels) are dealt to the CW workers, a barrier between levels.
 * Every lane m runs the same instruction stream for its own matrix: instruction loads are
 * broadcasts, value loads V[e·ldv + b] are coalesced over m.
 */
/* One column task of the factorization for one matrix (see sldlt_factor). */
DEVFN void sl_column(GLOBAL const int *T, GLOBAL const int *ins, GLOBAL const int *amap,
                     GLOBAL REAL *v, const gidx ldv, GLOBAL const REAL *xa, const gidx x_es,
                     const int nnzl, int *info, int *np, int *nn)
{
    const int j = T[SLDLT_T_J], l0 = T[SLDLT_T_L0], l1 = T[SLDLT_T_L1], dpos = nnzl + j;
    for (int p = l0; p < l1; ++p) v[p * ldv] = (REAL)0;
    REAL dj = 0;
    for (int a = T[SLDLT_T_A0]; a < T[SLDLT_T_A1]; ++a) {
        const int dst = amap[SLDLT_AM * a + SLDLT_AM_V];
        const REAL val = xa[amap[SLDLT_AM * a + SLDLT_AM_A] * x_es];
        if (dst == dpos) dj = val;
        else v[dst * ldv] = val;
    }
    REAL tk = 0;
    for (int i = T[SLDLT_T_INS0]; i < T[SLDLT_T_INS1]; ++i) {
        GLOBAL const int *I = ins + (gidx)i * SLDLT_INS;
        const int len = I[SLDLT_I_LEN], src = I[SLDLT_I_SRC], dst = I[SLDLT_I_DST],
                  k = I[SLDLT_I_K];
        if (k >= 0) {
            const REAL lj = v[(src - 1) * ldv];
            tk = lj * v[(nnzl + k) * ldv];
            dj -= lj * tk;
        }
        for (int r = 0; r < len; ++r) v[(dst + r) * ldv] -= v[(src + r) * ldv] * tk;
    }
    v[dpos * ldv] = dj;
    if (sl_bad(dj)) {
        *info = sl_first(*info, -(j + 1));
    } else if (dj == (REAL)0) {
        *info = sl_first(*info, j + 1);
    } else {
        if (dj > (REAL)0) ++*np; else ++*nn;
        for (int p = l0; p < l1; ++p) v[p * ldv] /= dj;
    }
}

KERNEL void sldlt_factor(GALA_PARAMS(SLDLT_ARGS_factor))
{
#if CW > 1
    LOCAL_ARRAY int red[3 * MB * CW];
#endif
    const int lid = (int)LID(0), m = lid % MB, w = lid / MB;
    gidx chunk = GRP(0);
    const int g = sl_group(gd, ngroups, 1, &chunk);
    GLOBAL const int *G = gd + g * SLDLT_GDESC;
    const int nnzl = G[SLDLT_G_NNZL];
    const gidx ldv = G[SLDLT_G_LDV];
    const gidx b = chunk * MB + m;
    const int live = b < G[SLDLT_G_BATCH];
    const gidx q = G[SLDLT_G_Q0] + b;
    GLOBAL REAL *v = V + sl_off(G + SLDLT_G_VBASE) + b;
    GLOBAL const REAL *xa = x + x_off + q * x_ms;
    GLOBAL const int *task = sc + G[SLDLT_G_TASK];
    GLOBAL const int *ins = sc + G[SLDLT_G_INS];
    GLOBAL const int *amap = sc + G[SLDLT_G_AMAP];
    GLOBAL const int *steps = sc + G[SLDLT_G_STEPS];
    /* this group is done (the whole work-group returns) */
    if (step >= steps[SLDLT_SP_NFAC]) return;
    int info = 0, np = 0, nn = 0;
#if CW == 1
    /* one worker: the tasks in elimination order (recent columns stay in cache), those of
     * this launch; a later launch goes on from the status the earlier one wrote */
    const int t1 = steps[SLDLT_SP_FAC + 1 + step];
    if (step > 0 && live) {
        info = st[LA_NST * q + LA_ST_INFO];
        np = st[LA_NST * q + LA_ST_POS];
        nn = st[LA_NST * q + LA_ST_NEG];
    }
    for (int t = steps[SLDLT_SP_FAC + step]; t < t1; ++t) {
        if (live)
            sl_column(task + (gidx)t * SLDLT_TASK, ins, amap, v, ldv, xa, x_es, nnzl, &info, &np,
                      &nn);
#if SYNC
        LOCAL_BARRIER();
#else
        if (!live) break;
#endif
    }
#else
    /* CW workers deal the tasks of each level, a barrier between levels */
    GLOBAL const int *lev = sc + G[SLDLT_G_LEV];
    GLOBAL const int *lord = sc + G[SLDLT_G_LORD];
    const int nlev = G[SLDLT_G_NLEV];
    for (int l = 0; l < nlev; ++l) {
        for (int t = lev[l] + w; live && t < lev[l + 1]; t += CW)
            sl_column(task + (gidx)lord[t] * SLDLT_TASK, ins, amap, v, ldv, xa, x_es, nnzl, &info,
                      &np, &nn);
        GLOBAL_BARRIER();
    }
    red[3 * lid] = info;
    red[3 * lid + 1] = np;
    red[3 * lid + 2] = nn;
    LOCAL_BARRIER();
    if (w == 0) {
        for (int u = 1; u < CW; ++u) {
            const int o = 3 * (u * MB + m);
            info = sl_first(info, red[o]);
            np += red[o + 1];
            nn += red[o + 2];
        }
    }
#endif
    if (live && w == 0) {
        st[LA_NST * q + LA_ST_INFO] = info;
        st[LA_NST * q + LA_ST_POS] = np;
        st[LA_NST * q + LA_ST_NEG] = nn;
    }
}

/*
 * sldlt_factor_cols: the straightforward kernel the flat schedule is measured against
 * (selected with GALA_TUNE=sldlt.baseline=1). One lane per matrix, columns j = 0..n−1 in
 * order, left-looking with linked lists (no precomputed schedule): the columns k that still
 * have to update column j are chained from head[j]; after updating j, column k moves to the
 * list of its next row. Per-lane workspace (interleaved like V): a dense column xw (n reals)
 * and head, link, first (3n ints).
 */
KERNEL void sldlt_factor_cols(GALA_PARAMS(SLDLT_ARGS_factor_cols))
{
    const int m = (int)LID(0);
    gidx chunk = GRP(0);
    const int g = sl_group(gd, ngroups, 1, &chunk);
    GLOBAL const int *G = gd + g * SLDLT_GDESC;
    const gidx b = chunk * MB + m;
    if (b >= G[SLDLT_G_BATCH] || LSZ(0) != MB) return; /* no barriers in this kernel */
    const int n = G[SLDLT_G_N], nnzl = G[SLDLT_G_NNZL];
    const gidx ldv = G[SLDLT_G_LDV], ldw = G[SLDLT_G_LDW], q = G[SLDLT_G_Q0] + b;
    GLOBAL REAL *v = V + sl_off(G + SLDLT_G_VBASE) + b;
    GLOBAL REAL *xw = W + sl_off(G + SLDLT_G_WBASE) + b;
    GLOBAL int *head = IW + SLDLT_IW * sl_off(G + SLDLT_G_WBASE) + b;
    GLOBAL int *link = head + n * ldw;
    GLOBAL int *first = link + n * ldw;
    GLOBAL const REAL *xa = x + x_off + q * x_ms;
    GLOBAL const int *lp = sc + G[SLDLT_G_LP];
    GLOBAL const int *li = sc + G[SLDLT_G_LI];
    GLOBAL const int *aptr = sc + G[SLDLT_G_APTR];
    GLOBAL const int *amap = sc + G[SLDLT_G_AMAP];
    int info = 0, np = 0, nn = 0;
    SLDLT_FACTOR_COLS(n, nnzl, v, ldv, xw, ldw, head, link, first, xa, x_es, lp, li, aptr, amap,
                      info, np, nn, sl_bad, sl_first);
    st[LA_NST * q + LA_ST_INFO] = info;
    st[LA_NST * q + LA_ST_POS] = np;
    st[LA_NST * q + LA_ST_NEG] = nn;
}

/*
 * sldlt_solve: X = A⁻¹·B for every (matrix, right-hand side) pair, in place in X (after a
 * copy of B unless X is B). Lanes m are pairs p = r·batch + b (matrices adjacent). With y
 * kept at X[perm[i]] (no workspace, the permutation is folded into the indices):
 *
 *   forward, levels ascending:    y_i = y_i − Σ L(i,j)·y_j      (row i of L: frow)
 *   backward, levels descending:  z_j = y_j / d_j − Σ L(i,j)·z_i (column j of L: bidx)
 *
 * Tasks of one level are independent (rows gather from lower levels, columns from higher
 * ones), so CW workers share a level with a barrier between levels.
 */
/* Forward step of node i: y_i −= Σ L(i,j)·y_j (row i of L). */
DEVFN void sl_fwd(GLOBAL const int *U, GLOBAL const int *frow, GLOBAL const REAL *v,
                  const gidx ldv, GLOBAL REAL *xv, const gidx x_es)
{
    const gidx pi = U[SLDLT_S_PI] * x_es;
    REAL s = xv[pi];
    for (int f = U[SLDLT_S_R0]; f < U[SLDLT_S_R1]; ++f)
        s -= v[frow[SLDLT_FR * f + SLDLT_FR_V] * ldv] * xv[frow[SLDLT_FR * f + SLDLT_FR_X] * x_es];
    xv[pi] = s;
}

/* Backward step of node j: z_j = y_j / d_j − Σ L(i,j)·z_i (column j of L). */
DEVFN void sl_bwd(GLOBAL const int *U, GLOBAL const int *bidx, GLOBAL const REAL *v,
                  const gidx ldv, GLOBAL REAL *xv, const gidx x_es, const int nnzl)
{
    const gidx pi = U[SLDLT_S_PI] * x_es;
    REAL s = xv[pi] / v[(nnzl + U[SLDLT_S_I]) * ldv];
    for (int e = U[SLDLT_S_L0]; e < U[SLDLT_S_L1]; ++e) s -= v[e * ldv] * xv[bidx[e] * x_es];
    xv[pi] = s;
}

KERNEL void sldlt_solve(GALA_PARAMS(SLDLT_ARGS_solve))
{
    const int lid = (int)LID(0), m = lid % MB, w = lid / MB;
    gidx chunk = GRP(0);
    const int g = sl_group(gd, ngroups, nrhs, &chunk);
    GLOBAL const int *G = gd + g * SLDLT_GDESC;
    const int n = G[SLDLT_G_N], nnzl = G[SLDLT_G_NNZL], batch = G[SLDLT_G_BATCH];
#if CW > 1
    const int nlev = G[SLDLT_G_NLEV];
#endif
    const gidx ldv = G[SLDLT_G_LDV];
    const gidx p = chunk * MB + m;
    const int live = p < (gidx)batch * nrhs;
    const gidx r = live ? p / batch : 0, b = live ? p - r * batch : 0;
    const gidx q = G[SLDLT_G_Q0] + b;
    GLOBAL const REAL *v = V + sl_off(G + SLDLT_G_VBASE) + b;
    GLOBAL REAL *xv = Xs + x_off + q * x_ms + r * x_rs;
    GLOBAL const REAL *bv = B + b_off + q * b_ms + r * b_rs;
    GLOBAL const int *stask = sc + G[SLDLT_G_STASK];
    GLOBAL const int *frow = sc + G[SLDLT_G_FROW];
    GLOBAL const int *bidx = sc + G[SLDLT_G_BIDX];
    GLOBAL const int *steps = sc + G[SLDLT_G_STEPS];
    /* this group is done (the whole work-group returns) */
    if (step >= steps[SLDLT_SP_NSOLVE]) return;
    if (live && copy && step == 0)
        for (int e = w; e < n; e += CW) xv[e * x_es] = bv[e * b_es];
#if CW > 1
    GLOBAL_BARRIER();
#endif
#if CW == 1
    /* one worker: rows in elimination order, then columns in reverse (those of this launch) */
    GLOBAL const int *u = steps + SLDLT_SP_SOLVE0 + steps[SLDLT_SP_NFAC] + SLDLT_SP_SW * step;
    const int f1 = u[SLDLT_SP_F1], b1 = u[SLDLT_SP_B1];
    for (int t = u[SLDLT_SP_F0]; t < f1; ++t) {
        if (live) sl_fwd(stask + (gidx)t * SLDLT_STASK, frow, v, ldv, xv, x_es);
#if SYNC
        LOCAL_BARRIER();
#endif
    }
    for (int t = u[SLDLT_SP_B0] - 1; t >= b1; --t) {
        if (live) sl_bwd(stask + (gidx)t * SLDLT_STASK, bidx, v, ldv, xv, x_es, nnzl);
#if SYNC
        LOCAL_BARRIER();
#endif
    }
#else
    GLOBAL const int *lev = sc + G[SLDLT_G_LEV];
    GLOBAL const int *lord = sc + G[SLDLT_G_LORD];
    for (int l = 0; l < nlev; ++l) {
        for (int t = lev[l] + w; live && t < lev[l + 1]; t += CW)
            sl_fwd(stask + (gidx)lord[t] * SLDLT_STASK, frow, v, ldv, xv, x_es);
        GLOBAL_BARRIER();
    }
    for (int l = nlev - 1; l >= 0; --l) {
        for (int t = lev[l] + w; live && t < lev[l + 1]; t += CW)
            sl_bwd(stask + (gidx)lord[t] * SLDLT_STASK, bidx, v, ldv, xv, x_es, nnzl);
        GLOBAL_BARRIER();
    }
#endif
}
