/*
 * Shared machinery of the dense factorizations in src/la: argument checks of strided and
 * variable batches, matrix descriptors for variable batches, the device-side info array
 * and its cheap "did anything fail?" flag, and the launchers of the tiled update kernel
 * (cl/lagemm.cl) used by potrf, potrs and potri.
 */
#ifndef GALA_LA_COMMON_H
#define GALA_LA_COMMON_H

#include "../core/kernel.h"
/* the matrix descriptors of variable batches (LA_D_*, LA_DSZ), LA_BIG: cl/la_abi.h */
#include "../../cl/la_abi.h"


/* Scratch slots (gala_scratch) used by the routines of src/la. Callers that keep data in a
 * scratch slot across a call to potrf/potrs/potri must not use these. */
#define LA_SCRATCH_PANEL 1 /* potrf's diagonal blocks between two launches (potrf.c);
                            * potrs' inverted diagonal blocks of one matrix (ps_sweep) */
#define LA_SCRATCH_INFO 3
#define LA_SCRATCH_VB 4 /* LA_VB_MEMO slots from here: variable batches' descriptors */
#define LA_VB_MEMO 3

/* Offset of logical L(i, j) in a matrix stored lower (up = 0) or upper (Lᵀ stored). */
static inline size_t la_loff(int up, int i, int j, int ld)
{
    return up ? (size_t)j + (size_t)i * (size_t)ld : (size_t)i + (size_t)j * (size_t)ld;
}

/* The matrices one sequence of launches works on: a strided batch or a run of descriptors.
 * For descriptors the runs handed to the blocked algorithms are sorted by n, largest first,
 * so that "the matrices still active at column j" is a prefix. */
typedef struct la_set {
    int vb;           /* 0: strided, 1: descriptors desc[dofs .. dofs + count) */
    int count;        /* matrices */
    int n, nrhs;      /* strided: the sizes; descriptors: the largest of the run */
    const struct gala_buffer *A;
    size_t a_off, a_stride;
    int lda;
    const struct gala_buffer *B;
    size_t b_off, b_stride;
    int ldb;
    const struct gala_buffer *desc; /* descriptors (vb), else any buffer (never read) */
    size_t dofs;
    const int *nlist; /* vb: n of each descriptor of the run (host copy, descending) */
    size_t info_base; /* strided: info slot of the first matrix */
} la_set;

/* The device info array of one call: info[b] at info[io + b], the flag at flag[fo], and
 * scratch for potrf_scan at tmp[to ..]. A kernel that records a failure stores `epoch` in
 * the flag, so the host reads one int to learn that nothing failed. For the synchronous
 * routines all three live in the LA_SCRATCH_INFO slot; the asynchronous ones put info in
 * the caller's buffer. */
typedef struct la_info {
    struct gala_buffer *info, *flag, *tmp;
    size_t io, fo, to;
    int epoch;
    volatile int *host_flag; /* the flag in mapped host memory (gala_flag_word), or NULL */
} la_info;

/** Check uplo. */
GALA_INTERNAL gala_status la_check_uplo(struct gala_context *ctx, const char *fn, gala_uplo uplo);

/** Check a strided batch of `batch` rows×cols matrices (ld, stride) in buf: extent, type
 *  (dtype 0: any float type, returned in *dt when dt != NULL), and, for outputs, that no two
 *  matrices share an element. */
GALA_INTERNAL gala_status la_check_strided(struct gala_context *ctx, const char *fn,
                                           const char *name, const struct gala_buffer *buf,
                                           gala_dtype dtype, size_t off, int rows, int cols,
                                           int ld, size_t stride, int batch, int output);

/** Check a variable batch: rows[b]×cols[b] matrices at off[b] with ld[b] (cols NULL: square,
 *  cols = rows). For outputs, no two matrices may overlap (their spans are compared). */
GALA_INTERNAL gala_status la_check_vbatched(struct gala_context *ctx, const char *fn,
                                            const char *name, const struct gala_buffer *buf,
                                            gala_dtype dtype, const int *rows, const int *cols,
                                            const size_t *off, const int *ld, int batch,
                                            int output);

/** The arguments of an in-place strided-batch routine (potrf, potri, ldlt): context, uplo,
 *  n >= 0 and batch >= 0, the batch of n×n matrices of A (la_check_strided, as an output)
 *  and a float type. */
GALA_INTERNAL gala_status la_check_batched_inplace(struct gala_context *ctx, const char *fn,
                                                   gala_uplo uplo, int n,
                                                   const struct gala_buffer *A, size_t a_off,
                                                   int lda, size_t a_stride, int batch);

/** The arguments of an in-place variable-batch routine (potrf, potri): context, uplo,
 *  batch >= 0 and, when batch > 0, the square matrices of A (la_check_vbatched, as outputs)
 *  and a float type. GALA_OK for batch = 0 without looking at the arrays. */
GALA_INTERNAL gala_status la_check_vbatched_inplace(struct gala_context *ctx, const char *fn,
                                                    gala_uplo uplo, const int *n,
                                                    const struct gala_buffer *A,
                                                    const size_t *a_off, const int *lda,
                                                    int batch);

/** Variable batches with A (read) and B (written) in one buffer: no B_b may share an
 *  element with any A_c (c = b included). Sizes must have been checked. */
GALA_INTERNAL gala_status la_check_ab_disjoint(struct gala_context *ctx, const char *fn,
                                               const struct gala_buffer *A,
                                               const struct gala_buffer *B, const int *n,
                                               const int *nrhs, const size_t *a_off,
                                               const int *lda, const size_t *b_off,
                                               const int *ldb, int batch);

/** Reserve the info array for `batch` matrices plus `tmp` scratch ints; new epoch. With
 *  user_info != NULL, info goes there (at user_off) and the scratch holds flag and tmp. */
/* B_b = A_b⁻¹ for a uniform batch of non-unit triangular matrices (trtri.c, arguments
 * checked by the caller), without waiting: no info is read back, and a matrix trtri would
 * report (a zero on the diagonal, NaN/Inf) leaves its B_b as it was. Uses trtri's
 * scratch slots. */
GALA_INTERNAL gala_status la_trtri_nowait(struct gala_context *ctx, int up, int n,
                                          const struct gala_buffer *A, size_t a_off, int lda,
                                          size_t a_stride, struct gala_buffer *B, size_t b_off,
                                          int ldb, size_t b_stride, int batch);

GALA_INTERNAL gala_status la_info_begin(struct gala_context *ctx, int batch, size_t tmp,
                                        struct gala_buffer *user_info, size_t user_off,
                                        la_info *li);

/** Wait for the device, then report: reads the flag (one int) and, only when something
 *  failed, the info array. Fills info (may be NULL); entries of matrices with nvb[b] == 0
 *  (variable batches; nvb may be NULL) are set to 0. Returns GALA_OK, GALA_ERR_NOT_FINITE
 *  or `numerical`, with a message naming the first failing matrix: "<what_pre>k<what_post>"
 *  for info k > 0, "NaN or Inf at column k" for −k. */
GALA_INTERNAL gala_status la_info_end(struct gala_context *ctx, const char *fn, const la_info *li,
                                      int batch, int *info, const int *nvb,
                                      gala_status numerical, const char *what_pre,
                                      const char *what_post);

/** Write descriptor values. */
GALA_INTERNAL void la_desc_put(int *d, int n, int lda, size_t aoff, int idx, int nrhs, int ldb,
                               size_t boff);

/** A run of a variable batch's descriptors: (first, count, bucket order or 0 for the sorted
 *  large run), and the largest n and nrhs in it. */
typedef struct la_run {
    size_t first;
    int count;
    int bucket; /* power-of-two order of a small bucket, 0 for the sorted large run */
    int nmax, rhsmax;
} la_run;

/** The descriptors of a variable batch on the device (la_desc_build). */
typedef struct la_vb {
    struct gala_buffer *desc; /* NULL: every matrix is empty */
    const int *nlist;         /* host: n of each descriptor in upload order */
    la_run runs[8];
    int nruns;
    int *own; /* nlist when this call owns it (la_vb_release frees it) */
} la_vb;

/** Build the descriptors of a variable batch, grouped: matrices with n[b] <= small go into
 *  buckets by the smallest power-of-two order >= n[b] (>= min_bucket); larger ones are sorted
 *  by n, descending. Zero-sized matrices (n[b] == 0, or nrhs[b] == 0 when nrhs != NULL) are
 *  left out. The result stays valid until the next la_desc_build on the context; release it
 *  with la_vb_release.
 *  A layout seen in one of the context's last LA_VB_MEMO builds (the same arrays, compared
 *  element by element, and the same small / min_bucket) reuses that build's device
 *  descriptors: no build, no upload. Tuning key la.vb_memo: the largest batch kept (0: always
 *  build). */
GALA_INTERNAL gala_status la_desc_build(struct gala_context *ctx, const int *n, const int *nrhs,
                                        const size_t *a_off, const int *lda, const size_t *b_off,
                                        const int *ldb, int batch, int small, int min_bucket,
                                        la_vb *vb);
GALA_INTERNAL void la_vb_release(la_vb *vb);

/** The run of a set that is still active at column j (n_b > j): a prefix for descriptors. */
GALA_INTERNAL int la_active(const la_set *s, int j);

/** The largest order of a set. */
GALA_INTERNAL int la_nmax(const la_set *s);

/** Matrices start .. start + count − 1 of a set, as a set (offsets, descriptors and info
 *  slots shifted). */
GALA_INTERNAL la_set la_sub(const la_set *s, int start, int count);

/** Smallest power of two >= n, at least lo. */
GALA_INTERNAL int la_pow2(int n, int lo);

/** One operand of gemm_upd: X(i, p) = M_src(r0 + i, c0 + p), or M_src(r0 + p, c0 + i) if tr. */
typedef struct la_op {
    int src, r0, c0, tr;
} la_op;

/** A size of gemm_upd: min(cap, S_b − x), S_b = n_b, or nrhs_b when src = 1. */
typedef struct la_dim {
    int x, cap, src;
} la_dim;

/** Launch gemm_upd on the first `count` matrices of s: C += alpha·A·Bᵀ over the sizes m, n, k
 *  (maxima mmax, nmax give the grid); mask = 1 writes only C's lower triangle (logical);
 *  skipdead = 1 skips matrices with info > 0 (li must then be set). */
GALA_INTERNAL gala_status la_gemm_upd(struct gala_context *ctx, gala_dtype dt, int up,
                                      const la_set *s, int count, la_dim m, la_dim n, la_dim k,
                                      int mmax, int nmax, double alpha, int mask, la_op a,
                                      la_op b, la_op c, const la_info *li, int skipdead);

/** Clamp a work-group size to the device: a power of two, at least lo. */
GALA_INTERNAL int la_wg(const struct gala_context *ctx, long want, int lo);

#endif
