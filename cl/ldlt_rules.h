/*
 * The ldlt kernels' matrix bookkeeping that the kernels (cl/ldlt.cl) and the host kernels
 * (src/device/host/k_ldlt.c) both run, written once: matrix b of a launch (its offset,
 * order, leading dimension, info slot and first column, from its descriptor at
 * desc[d_off + LDLT_DSZ·b] when var, else from the uniform batch's arguments). In the
 * subset of C that C11 and OpenCL C have in common, after cl/ldlt_abi.h; the includer
 * defines DEVFN, GLOBAL and gidx (cl/common.clh; the host: host_kernels.h).
 */
#ifndef GALA_LDLT_RULES_H
#define GALA_LDLT_RULES_H

typedef struct ldlt_mat {
    gidx off;
    int n, ld, idx, kt;
} ldlt_mat;

DEVFN gidx ldlt_off(GLOBAL const int *d)
{
    return (gidx)(unsigned)d[0] + (gidx)d[1] * (gidx)4294967296;
}

DEVFN ldlt_mat ldlt_get(const int var, GLOBAL const int *desc, const gidx d_off, const gidx b,
                        const int n, const int lda, const int kt, const gidx a_off,
                        const gidx a_stride)
{
    ldlt_mat m;
    if (var) {
        GLOBAL const int *d = desc + d_off + LDLT_DSZ * b;
        m.off = ldlt_off(d + LDLT_D_OFF);
        m.n = d[LDLT_D_N];
        m.ld = d[LDLT_D_LDA];
        m.idx = d[LDLT_D_IDX];
        m.kt = d[LDLT_D_KT];
    } else {
        m.off = a_off + b * a_stride;
        m.n = n;
        m.ld = lda;
        m.idx = (int)b;
        m.kt = kt;
    }
    return m;
}

#endif
