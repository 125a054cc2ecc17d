/*
 * The trtri kernels' bookkeeping that the kernels (cl/trtri.cl) and the host kernels
 * (src/device/host/k_trtri.c) both run, written once: a task's matrix and first row, a
 * matrix's order, offsets and leading dimensions (from its record of a variable batch, or
 * from the uniform batch's arguments), and the offset of a logical element. In the subset
 * of C that C11 and OpenCL C have in common, after cl/trtri_abi.h; the includer defines
 * DEVFN, GLOBAL and gidx (OpenCL and CUDA: cl/common.clh; the host: static inline, nothing
 * and ptrdiff_t).
 */
#ifndef GALA_TRTRI_RULES_H
#define GALA_TRTRI_RULES_H

/* A task: matrix index m and the first row/column `start` of the block or block pair. */
typedef struct tr_task {
    gidx m;
    int start;
} tr_task;

DEVFN tr_task tr_get_task(GLOBAL const int *ib, gidx task_off, int m0, int per, int step, gidx t)
{
    tr_task r;
    if (task_off >= 0) {
        r.m = ib[task_off + TRTRI_TW * t + TRTRI_T_M];
        r.start = ib[task_off + TRTRI_TW * t + TRTRI_T_START];
    } else {
        const gidx q = t / per;
        r.m = m0 + q;
        r.start = (int)(t - q * per) * step;
    }
    return r;
}

/* A matrix of the batch: order, offsets and leading dimensions of A and B, info slot. */
typedef struct tr_mat {
    int n, lda, ldb, id;
    gidx ao, bo;
} tr_mat;

DEVFN gidx tr_join(int lo, int hi) { return (gidx)(unsigned int)lo | ((gidx)hi << 32); }

DEVFN tr_mat tr_get_mat(GLOBAL const int *ib, gidx meta_off, gidx m, int n, gidx a_off, int lda,
                        gidx a_stride, gidx b_off, int ldb, gidx b_stride)
{
    tr_mat M;
    if (meta_off >= 0) {
        GLOBAL const int *r = ib + meta_off + TRTRI_MW * m;
        M.n = r[TRTRI_R_N];
        M.lda = r[TRTRI_R_LDA];
        M.ldb = r[TRTRI_R_LDB];
        M.ao = tr_join(r[TRTRI_R_AOFF], r[TRTRI_R_AOFF + 1]);
        M.bo = tr_join(r[TRTRI_R_BOFF], r[TRTRI_R_BOFF + 1]);
        M.id = r[TRTRI_R_IDX];
    } else {
        M.n = n;
        M.lda = lda;
        M.ldb = ldb;
        M.ao = a_off + m * a_stride;
        M.bo = b_off + m * b_stride;
        M.id = (int)m;
    }
    return M;
}

/* Offset of logical element (r, c) of a matrix stored at off with leading dimension ld. */
DEVFN gidx tr_at(gidx off, int ld, int upper, int r, int c)
{
    return upper ? off + c + (gidx)r * ld : off + r + (gidx)c * ld;
}

#endif
