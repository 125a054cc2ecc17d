/*
 * ldlt: dense LDLᵀ without pivoting (A = L·D·Lᵀ, L unit lower, D diagonal) of batches of
 * symmetric matrices, and solves with the factor.
 *
 * gala-defines: NB=16 S=16 MPG=4 NBP=32 WGP=64 TS=16 WG=64
 * -D parameters:
 *   NB, S, MPG  ldlt_fused: largest order it factors (a power of two), lanes per matrix,
 *               matrices per work-group (work-group = S·MPG lanes, local = MPG·NB² reals)
 *   NBP, WGP    ldlt_panel, ldlt_trsm: panel width and work-group size
 *   TS          ldlt_update: tile size (work-group = TS² lanes)
 *   WG          ldlt_solve: work-group size
 *
 * Storage: only one triangle is touched. The kernels address element (i, j), i >= j, of the
 * lower triangle as A[base + i·rs + j·cs]: (rs, cs) = (1, lda) for uplo = lower, (lda, 1) for
 * uplo = upper (the upper triangle holds U = Lᵀ), so one code serves both.
 *
 * Matrices: `var` = 0: uniform batch, matrix b at A[a_off + b·a_stride], order n, leading
 * dimension lda, tail start kt (below). `var` = 1: matrix b of the launch is described by
 * LDLT_DSZ ints at desc[d_off + LDLT_DSZ·b]: offset (low, high 32 bits), n, lda, index in
 * the caller's batch, kt (LDLT_D_*). Status per caller's matrix q: info, positive pivots
 * (added), negative pivots (added) at st[LA_NST·q + LA_ST_*]; a matrix with nonzero info is
 * skipped by every later kernel. Layouts and argument lists: cl/ldlt_abi.h.
 *
 * Algorithm for one matrix of order n (host loop in src/la/ldlt.c):
 *
 *     n <= NB:  ldlt_fused on the whole matrix (kt = 0).
 *     n  > NB:  for k0 = 0, NBP, ... < kt:   ldlt_panel(k0); ldlt_trsm(k0); ldlt_update(k0)
 *               then ldlt_fused on the trailing block A[kt:n, kt:n] (n − kt <= NB).
 *
 *          k0   k0+NBP
 *        +----+----+---------+
 *        | done                      panel(k0):  factor A11 = L11·D1·L11ᵀ (local memory)
 *        |    +----+                 trsm(k0):   L21 = A21·L11⁻ᵀ·D1⁻¹ (one row per lane)
 *        |    |A11 |                 update(k0): A22 −= L21·D1·L21ᵀ, lower tiles TS×TS
 *        |    +----+----+
 *        |    |A21 |A22 \
 *        |    |    |     \
 *        +----+----+------+
 */

/* the descriptors, the status layout and the argument lists shared with the host
 * (cl/ldlt_abi.h) */
#include "ldlt_abi.h"

DEVFN int ldlt_bad(REAL d) { return !(d - d == (REAL)0); } /* NaN or ±Inf */

#include "ldlt_rules.h"

/*
 * ldlt_fused: factor the trailing block A[kt:n, kt:n] (order m = n − kt <= NB) of each matrix
 * in one pass through local memory. A work-group holds MPG matrices, S lanes each; lane l of a
 * matrix owns the rows i ≡ l (mod S). Right-looking, one barrier per column; the column being
 * eliminated stays unscaled (L(i,k)·d_k) until the write-back divides it by d_k.
 *
 *     local a (one matrix, NB×NB, column-major, lower part used):
 *           k
 *        +--+-----+      step k: d = a(k,k) (every lane reads it: the failure test
 *        |\ |     |      is the same in all lanes of the matrix)
 *        | \|     |      row i > k:  a(i, k+1..i) −= a(i,k)/d · a(k+1..i, k)
 *        |  d     |
 *        |  |\    |
 *        |  v  \  |
 *        +--+-----+
 */
KERNEL void ldlt_fused(GALA_PARAMS(LDLT_ARGS_fused))
{
    LOCAL_ARRAY REAL la[MPG * NB * NB];
    const int lid = (int)LID(0), seg = lid / S, lane = lid - seg * S;
    const gidx b = GRP(0) * MPG + seg;
    LOCAL REAL *a = la + seg * NB * NB;
    int m = 0, live = 0, idx = 0, k0 = 0;
    gidx base = 0, rs = 1, cs = 1;
    if (b < nmat) {
        const ldlt_mat d = ldlt_get(var, desc, d_off, b, n, lda, kt, a_off, a_stride);
        idx = d.idx;
        k0 = d.kt;
        m = d.n - d.kt;
        rs = upper ? d.ld : 1;
        cs = upper ? 1 : d.ld;
        base = d.off + (gidx)k0 * (rs + cs);
        live = m > 0 && st[LA_NST * idx + LA_ST_INFO] == 0;
    }
    if (live)
        for (int t = lane; t < m * m; t += S) {
            const int j = t / m, i = t - j * m;
            if (i >= j) a[j * NB + i] = A[base + i * rs + j * cs];
        }
    LOCAL_BARRIER();
    int info = 0, np = 0, nn = 0;
    for (int k = 0; k < mmax; ++k) {
        if (live && k < m && info == 0) {
            const REAL d = a[k * NB + k];
            if (ldlt_bad(d)) {
                info = -(k0 + k + 1);
            } else if (d == (REAL)0) {
                info = k0 + k + 1;
            } else {
                if (d > (REAL)0) ++np; else ++nn;
                for (int i = k + 1 + lane; i < m; i += S) {
                    const REAL f = a[k * NB + i] / d;
                    for (int j = k + 1; j <= i; ++j) a[j * NB + i] -= f * a[k * NB + j];
                }
            }
        }
        LOCAL_BARRIER();
    }
    if (live && info == 0)
        for (int t = lane; t < m * m; t += S) {
            const int j = t / m, i = t - j * m;
            if (i > j) A[base + i * rs + j * cs] = a[j * NB + i] / a[j * NB + j];
            else if (i == j) A[base + i * rs + j * cs] = a[j * NB + j];
        }
    if (live && lane == 0) {
        if (info) st[LA_NST * idx + LA_ST_INFO] = info;
        st[LA_NST * idx + LA_ST_POS] += np;
        st[LA_NST * idx + LA_ST_NEG] += nn;
    }
}

/*
 * ldlt_panel: factor the NBP×NBP diagonal block A11 = L11·D1·L11ᵀ at (k0, k0) of every
 * matrix with k0 < kt, in local memory, one work-group (WGP lanes, lane = row) per matrix;
 * writes L11 (below the diagonal) and D1 back and adds to the status.
 *
 * ldlt_trsm: the rows below the block, L21 = A21·L11⁻ᵀ·D1⁻¹. Work-group g of a matrix
 * (rgroups per matrix) loads the finished block and solves rows k0+NBP + g·WGP + lane:
 * w·L11ᵀ = a (forward substitution), L21 = w·D1⁻¹. A separate launch, so that no group
 * reads the block while another writes it.
 *
 *        k0      k0+NBP
 *        +-------+
 *        | A11   |  <- ldlt_panel (local d11)
 *        +-------+
 *        | rows  |  <- ldlt_trsm group 0: WGP rows, one per lane (local w, row-major, ld NBP+1)
 *        | rows  |  <- group 1
 *        | ...   |
 *
 * No early return in these kernels: every lane reaches every barrier; `live` is uniform
 * over a work-group.
 */
KERNEL void ldlt_panel(GALA_PARAMS(LDLT_ARGS_panel))
{
    LOCAL_ARRAY REAL d11[NBP * NBP];
    const int lid = (int)LID(0);
    const gidx b = GRP(0);
    int live = b < nmat, idx = 0;
    gidx base = 0, rs = 1, cs = 1;
    if (live) {
        const ldlt_mat d = ldlt_get(var, desc, d_off, b, n, lda, kt, a_off, a_stride);
        idx = d.idx;
        rs = upper ? d.ld : 1;
        cs = upper ? 1 : d.ld;
        base = d.off + (gidx)k0 * (rs + cs);
        live = k0 < d.kt && st[LA_NST * idx + LA_ST_INFO] == 0;
    }
    if (live)
        for (int t = lid; t < NBP * NBP; t += WGP) {
            const int j = t / NBP, i = t - j * NBP;
            if (i >= j) d11[j * NBP + i] = A[base + i * rs + j * cs];
        }
    LOCAL_BARRIER();
    int info = 0, np = 0, nn = 0;
    for (int k = 0; k < NBP; ++k) {
        if (live && info == 0) {
            const REAL dk = d11[k * NBP + k];
            if (ldlt_bad(dk)) {
                info = -(k0 + k + 1);
            } else if (dk == (REAL)0) {
                info = k0 + k + 1;
            } else {
                if (dk > (REAL)0) ++np; else ++nn;
                for (int i = k + 1 + lid; i < NBP; i += WGP) {
                    const REAL f = d11[k * NBP + i] / dk;
                    for (int j = k + 1; j <= i; ++j) d11[j * NBP + i] -= f * d11[k * NBP + j];
                }
            }
        }
        LOCAL_BARRIER();
    }
    if (live && lid == 0) {
        if (info) st[LA_NST * idx + LA_ST_INFO] = info;
        st[LA_NST * idx + LA_ST_POS] += np;
        st[LA_NST * idx + LA_ST_NEG] += nn;
    }
    if (live && info == 0)
        for (int t = lid; t < NBP * NBP; t += WGP) {
            const int j = t / NBP, i = t - j * NBP;
            if (i > j) A[base + i * rs + j * cs] = d11[j * NBP + i] / d11[j * NBP + j];
            else if (i == j) A[base + i * rs + j * cs] = d11[j * NBP + j];
        }
}

KERNEL void ldlt_trsm(GALA_PARAMS(LDLT_ARGS_trsm))
{
    LOCAL_ARRAY REAL d11[NBP * NBP];
    LOCAL_ARRAY REAL w[WGP * (NBP + 1)];
    const int lid = (int)LID(0);
    const gidx b = GRP(0) / rgroups;
    const int g = (int)(GRP(0) - b * rgroups);
    int live = b < nmat, nr = 0;
    gidx base = 0, rs = 1, cs = 1;
    if (live) {
        const ldlt_mat d = ldlt_get(var, desc, d_off, b, n, lda, kt, a_off, a_stride);
        nr = d.n;
        rs = upper ? d.ld : 1;
        cs = upper ? 1 : d.ld;
        base = d.off + (gidx)k0 * (rs + cs);
        live = k0 < d.kt && st[LA_NST * d.idx + LA_ST_INFO] == 0 && k0 + NBP + g * WGP < nr;
    }
    if (live)
        for (int t = lid; t < NBP * NBP; t += WGP) {
            const int j = t / NBP, i = t - j * NBP;
            if (i >= j) d11[j * NBP + i] = A[base + i * rs + j * cs];
        }
    LOCAL_BARRIER();
    const int r = NBP + g * WGP + lid; /* row relative to k0 */
    if (live && k0 + r < nr) {
        LOCAL REAL *wr = w + lid * (NBP + 1);
        for (int j = 0; j < NBP; ++j) {
            REAL s = A[base + r * rs + j * cs];
            for (int p = 0; p < j; ++p) s -= d11[p * NBP + j] * wr[p];
            wr[j] = s;
        }
        for (int j = 0; j < NBP; ++j) A[base + r * rs + j * cs] = wr[j] / d11[j * NBP + j];
    }
}

/*
 * ldlt_update: A22 −= L21·D1·L21ᵀ for every matrix with k0 < kt, lower triangle only.
 * Work-group t = ti·T + tj of a matrix (T = ntiles tiles per side, from the largest m of the
 * launch) computes tile (ti, tj) of the trailing block (rows and columns from k0+NBP,
 * m = n − k0 − NBP of them) when tj <= ti and the tile is inside; lane (r, c) one element.
 *
 *          tj                    li = rows ti·TS.. of L21 (TS×NBP, local, ld NBP+1)
 *        +----+                  lj = rows tj·TS.. of L21
 *     ti |tile|  −= li·D1·ljᵀ    dd = D1
 *        +----+
 */
KERNEL void ldlt_update(GALA_PARAMS(LDLT_ARGS_update))
{
    LOCAL_ARRAY REAL li[TS * (NBP + 1)];
    LOCAL_ARRAY REAL lj[TS * (NBP + 1)];
    LOCAL_ARRAY REAL dd[NBP];
    const int lid = (int)LID(0);
    const gidx b = GRP(0) / ((gidx)ntiles * ntiles);
    const int t = (int)(GRP(0) - b * ntiles * ntiles);
    const int ti = t / ntiles, tj = t - ti * ntiles;
    int live = b < nmat && tj <= ti, m = 0;
    gidx base = 0, rs = 1, cs = 1;
    if (live) {
        const ldlt_mat d = ldlt_get(var, desc, d_off, b, n, lda, kt, a_off, a_stride);
        m = d.n - k0 - NBP;
        live = k0 < d.kt && st[LA_NST * d.idx + LA_ST_INFO] == 0 && ti * TS < m;
        rs = upper ? d.ld : 1;
        cs = upper ? 1 : d.ld;
        base = d.off + (gidx)k0 * (rs + cs); /* element (k0, k0) */
    }
    if (live) {
        for (int e = lid; e < TS * NBP; e += TS * TS) {
            const int r = e % TS, p = e / TS;
            const int gi = ti * TS + r, gj = tj * TS + r;
            li[r * (NBP + 1) + p] = gi < m ? A[base + (NBP + gi) * rs + p * cs] : (REAL)0;
            lj[r * (NBP + 1) + p] = gj < m ? A[base + (NBP + gj) * rs + p * cs] : (REAL)0;
        }
        for (int q = lid; q < NBP; q += TS * TS) dd[q] = A[base + q * (rs + cs)];
    }
    LOCAL_BARRIER();
    const int r = lid % TS, c = lid / TS;
    const int gi = ti * TS + r, gj = tj * TS + c;
    if (live && gi < m && gj <= gi) {
        REAL acc = 0;
        for (int p = 0; p < NBP; ++p) acc += li[r * (NBP + 1) + p] * dd[p] * lj[c * (NBP + 1) + p];
        A[base + (NBP + gi) * rs + (NBP + gj) * cs] -= acc;
    }
}

/*
 * ldlt_solve: X = A⁻¹·B with the factor, in place in B. A segment of S lanes (a power of two,
 * WG/S segments per work-group) solves one right-hand side of one matrix; lanes take the rows
 * i ≡ lane (mod S):
 *     forward   for j:  x(i) −= L(i,j)·x(j), i > j     (column j of L: coalesced for lower)
 *     diagonal  x(i) /= d_i
 *     backward  for j descending:  x(i) −= L(j,i)·x(j), i < j
 * one barrier per column. `var` = 1: LDLT_DSZ ints per matrix at desc[d_off + LDLT_DSZ·b]:
 * A offset (low, high), B offset (low, high), n, lda, ldb, nrhs (LDLT_S_*); pairs are (b, r) = (p / R, p % R)
 * with R = nrhs (uniform) or the largest nrhs (var); nmax bounds every n of the launch.
 */
KERNEL void ldlt_solve(GALA_PARAMS(LDLT_ARGS_solve))
{
    const int lid = (int)LID(0), lane = lid & (S_ - 1);
    const gidx p = GRP(0) * (WG / S_) + lid / S_;
    int live = p < npairs, nn = 0;
    gidx abase = 0, xbase = 0, rs = 1, cs = 1;
    if (live) {
        const gidx bb = p / nrhs;
        const int r = (int)(p - bb * nrhs);
        if (var) {
            GLOBAL const int *dd = desc + d_off + LDLT_DSZ * bb;
            nn = dd[LDLT_S_N];
            rs = upper ? dd[LDLT_S_LDA] : 1;
            cs = upper ? 1 : dd[LDLT_S_LDA];
            abase = ldlt_off(dd + LDLT_S_AOFF);
            xbase = ldlt_off(dd + LDLT_S_BOFF) + (gidx)r * dd[LDLT_S_LDB];
            live = r < dd[LDLT_S_NRHS];
        } else {
            nn = n;
            rs = upper ? lda : 1;
            cs = upper ? 1 : lda;
            abase = a_off + bb * a_stride;
            xbase = b_off + bb * b_stride + (gidx)r * ldb;
        }
    }
    GLOBAL const REAL *L = A + abase;
    GLOBAL REAL *x = B + xbase;
    for (int j = 0; j < nmax; ++j) {
        if (live && j < nn) {
            const REAL xj = x[j];
            for (int i = j + 1 + lane; i < nn; i += S_) x[i] -= L[i * rs + j * cs] * xj;
        }
        GLOBAL_BARRIER();
    }
    if (live)
        for (int i = lane; i < nn; i += S_) x[i] /= L[i * (rs + cs)];
    GLOBAL_BARRIER();
    for (int j = nmax - 1; j >= 0; --j) {
        if (live && j < nn) {
            const REAL xj = x[j];
            for (int i = lane; i < j; i += S_) x[i] -= L[j * rs + i * cs] * xj;
        }
        GLOBAL_BARRIER();
    }
}
