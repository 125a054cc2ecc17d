/*
 * The straightforward sparse LDLᵀ of one matrix (sldlt_factor_cols, the baseline the flat
 * schedule is measured against) that the kernel (cl/sldlt.cl) and the host kernel
 * (src/device/host/k_sldlt.c) both run, written once, in the subset of C that C11 and
 * OpenCL C have in common, after cl/sldlt_abi.h, in the form cl/qp_rules.h describes (a
 * statement whose arguments are used as they are; tools/cl-same.py keeps the kernel's text).
 *
 * Columns j = 0..n−1 in order, left-looking with linked lists: the columns k that still
 * have to update column j are chained from head[j]; after updating j, column k moves to the
 * list of its next row. A's values come from xa (stride x_es) through the schedule's aptr
 * and amap, L's pattern is lp, li (nnzl entries), L and D go to v (stride ldv; D after L's
 * nnzl values), the workspace is xw (n reals) and head, link, first (n ints each), all with
 * stride ldw. info, np, nn: the matrix's status words (LA_ST_*), accumulated; BAD(d): d is
 * NaN or ±Inf; FIRST(info, i): info's first failure kept.
 */
#ifndef GALA_SLDLT_RULES_H
#define GALA_SLDLT_RULES_H

#define SLDLT_FACTOR_COLS(n, nnzl, v, ldv, xw, ldw, head, link, first, xa, x_es, lp, li, aptr,  \
                          amap, info, np, nn, BAD, FIRST) \
    for (int e = 0; e < n; ++e) {                                                           \
        head[e * ldw] = -1;                                                                 \
        xw[e * ldw] = (REAL)0;                                                              \
    }                                                                                       \
    for (int j = 0; j < n; ++j) {                                                           \
        for (int a = aptr[j]; a < aptr[j + 1]; ++a) {                                       \
            const int dst = amap[SLDLT_AM * a + SLDLT_AM_V];                                \
            const int row = dst < nnzl ? li[dst] : j;                                       \
            xw[row * ldw] = xa[amap[SLDLT_AM * a + SLDLT_AM_A] * x_es];                     \
        }                                                                                   \
        int k = head[j * ldw];                                                              \
        while (k >= 0) {                                                                    \
            const int nx = link[k * ldw], p = first[k * ldw], end = lp[k + 1];              \
            const REAL lj = v[p * ldv], tk = lj * v[(nnzl + k) * ldv];                      \
            xw[j * ldw] -= lj * tk;                                                         \
            for (int r = p + 1; r < end; ++r) xw[li[r] * ldw] -= v[r * ldv] * tk;           \
            if (p + 1 < end) {                                                              \
                const int row = li[p + 1];                                                  \
                first[k * ldw] = p + 1;                                                     \
                link[k * ldw] = head[row * ldw];                                            \
                head[row * ldw] = k;                                                        \
            }                                                                               \
            k = nx;                                                                         \
        }                                                                                   \
        const REAL dj = xw[j * ldw];                                                        \
        xw[j * ldw] = (REAL)0;                                                              \
        v[(nnzl + j) * ldv] = dj;                                                           \
        const int bad = BAD(dj) || dj == (REAL)0;                                           \
        if (BAD(dj)) info = FIRST(info, -(j + 1));                                          \
        else if (dj == (REAL)0) info = FIRST(info, j + 1);                                  \
        else if (dj > (REAL)0) ++np;                                                        \
        else ++nn;                                                                          \
        for (int p = lp[j]; p < lp[j + 1]; ++p) {                                           \
            const int row = li[p];                                                          \
            v[p * ldv] = bad ? xw[row * ldw] : xw[row * ldw] / dj;                          \
            xw[row * ldw] = (REAL)0;                                                        \
        }                                                                                   \
        if (lp[j] < lp[j + 1]) {                                                            \
            const int row = li[lp[j]];                                                      \
            first[j * ldw] = lp[j];                                                         \
            link[j * ldw] = head[row * ldw];                                                \
            head[row * ldw] = j;                                                            \
        }                                                                                   \
    }

#endif
