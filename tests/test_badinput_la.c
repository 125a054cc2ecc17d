/* Bad input to the dense factorizations (trtri, potrf, potrs, potri, ldlt, ldlt_solve in
 * their single, batched and vbatched forms):
 *  - argument errors (NULL, negative sizes, leading dimension < n, ranges outside buffers,
 *    size_t overflow of n·n·batch, overlapping outputs, B overlapping A, wrong or mixed
 *    element types, buffers of another context): GALA_ERR_INVALID_ARG with a message naming
 *    the function, nothing written (not even info), nothing allocated;
 *  - numerical failures inside a batch (NaN/Inf, not positive definite, singular, zero
 *    pivot): the documented info and status, a message naming the first failing matrix, and
 *    every other matrix of the batch still correct;
 *  - what is read: only the uplo triangle (the other one may hold anything, NaN included,
 *    and is left as it was);
 *  - empty batches and n = 0. */
#include <stdint.h>
#include <stdlib.h>

#include "badinput.h"
#include "la_check.h"

/* Whether a failure message names matrix b of a batch ("matrix 3" or "matrix: 3"). */
static int names_matrix(const char *msg, int b)
{
    char a[32], c[32];
    snprintf(a, sizeof a, "matrix %d", b);
    snprintf(c, sizeof c, "matrix: %d", b);
    return strstr(msg, a) != NULL || strstr(msg, c) != NULL;
}

static gala_context *other_ctx(void) { return tu_host_ctx(1); }

START_TEST(argument_errors)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t), *oc = other_ctx();
    const gala_dtype dt = tu_target_get(t)->dtype;
    tu_rng r = tu_rng_for("la_argument_errors", t);
    enum { LEN = 400 };
    double av[LEN], bv[LEN];
    for (int i = 0; i < LEN; ++i) { av[i] = tu_normal(&r); bv[i] = tu_normal(&r); }
    tu_round(dt, av, LEN);
    tu_round(dt, bv, LEN);
    gala_buffer *A = tu_upload(ctx, dt, av, LEN), *B = tu_upload(ctx, dt, bv, LEN);
    gala_buffer *M = NULL, *I = NULL, *O = NULL;
    M = tu_other_precision(ctx, dt, LEN, "argument_errors: mixed precisions");
    TU_OK(ctx, gala_buffer_create(ctx, GALA_INT, LEN, &I));
    TU_OK(oc, gala_buffer_create(oc, dt, LEN, &O));
    int info[8], inertia[16];
    for (int i = 0; i < 8; ++i) info[i] = 77;
    for (int i = 0; i < 16; ++i) inertia[i] = 77;
    const int n2[2] = {3, 4}, nneg[2] = {3, -1}, ld2[2] = {3, 4}, ldsmall[2] = {3, 3}, r2[2] = {2, 2};
    const size_t off2[2] = {0, 20}, offov[2] = {0, 5}, offout[2] = {0, LEN - 3}, boff2[2] = {100, 120};
    const gala_status E = GALA_ERR_INVALID_ARG;
    const gala_uplo L = GALA_LOWER, U = GALA_UPPER, X = (gala_uplo)0;
    const size_t HUGE_STRIDE = (size_t)1 << 40;

    /* ---- trtri */
    const char *f = "gala_trtri";
    BAD0(t, ctx, E, f, gala_trtri(NULL, L, GALA_NON_UNIT, 3, A, 0, 3, B, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, X, GALA_NON_UNIT, 3, A, 0, 3, B, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, (gala_diag)0, 3, A, 0, 3, B, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, -1, A, 0, 3, B, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, A, 0, 2, B, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, B, 0, 2, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, NULL, 0, 3, B, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, NULL, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, A, LEN - 5, 3, B, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, A, 2, 3, info));  /* B overlaps A */
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, A, 0, 4, info));  /* not the same layout */
    if (M) BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, M, 0, 3, info)); /* mixed */
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, I, 0, 3, I, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 3, O, 0, 3, B, 0, 3, info));
    BAD(t, ctx, E, f, gala_trtri(ctx, L, GALA_NON_UNIT, 100000, A, 0, 100000, B, 0, 100000, info));
    f = "gala_trtri_batched";
    BAD(t, ctx, E, f, gala_trtri_batched(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, 9, B, 0, 3, 9, -1, info));
    BAD(t, ctx, E, f, gala_trtri_batched(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, 9, B, 0, 3, 4, 3, info)); /* outputs overlap */
    BAD(t, ctx, E, f, gala_trtri_batched(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, 9, B, 0, 3, 9, 50, info)); /* outside */
    BAD(t, ctx, E, f, gala_trtri_batched(ctx, L, GALA_NON_UNIT, 1 << 20, A, 0, 1 << 20, HUGE_STRIDE,
                                         B, 0, 1 << 20, HUGE_STRIDE, 1 << 30, info)); /* n·n·batch overflows */
    BAD(t, ctx, E, f, gala_trtri_batched(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, 9, A, 1, 3, 9, 2, info));
    f = "gala_trtri_vbatched";
    BAD(t, ctx, E, f, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, NULL, A, off2, ld2, B, off2, ld2, 2, info));
    BAD(t, ctx, E, f, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, nneg, A, off2, ld2, B, off2, ld2, 2, info));
    BAD(t, ctx, E, f, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, n2, A, off2, ldsmall, B, off2, ld2, 2, info));
    BAD(t, ctx, E, f, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, n2, A, off2, ld2, B, offov, ld2, 2, info));
    BAD(t, ctx, E, f, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, n2, A, offout, ld2, B, off2, ld2, 2, info));
    BAD(t, ctx, E, f, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, n2, A, off2, ld2, B, off2, NULL, 2, info));
    BAD(t, ctx, E, f, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, n2, A, off2, ld2, B, off2, ld2, -2, info));
    {   /* one buffer, out of place: B_0 = [18, 27) runs into A_1 = [20, 36) */
        const size_t bo[2] = {18, 60};
        BAD(t, ctx, E, f, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, n2, A, off2, ld2, A, bo, ld2, 2, info));
        TU_ASSERT(strstr(gala_last_error(ctx), "A_1 overlaps B_0") != NULL, t, "message: %s",
                  gala_last_error(ctx));
    }

    /* ---- potrf */
    f = "gala_potrf";
    BAD0(t, ctx, E, f, gala_potrf(NULL, L, 3, A, 0, 3, info));
    BAD(t, ctx, E, f, gala_potrf(ctx, X, 3, A, 0, 3, info));
    BAD(t, ctx, E, f, gala_potrf(ctx, L, -3, A, 0, 3, info));
    BAD(t, ctx, E, f, gala_potrf(ctx, L, 3, A, 0, 2, info));
    BAD(t, ctx, E, f, gala_potrf(ctx, L, 3, NULL, 0, 3, info));
    BAD(t, ctx, E, f, gala_potrf(ctx, L, 3, A, LEN - 8, 3, info));
    BAD(t, ctx, E, f, gala_potrf(ctx, L, 3, I, 0, 3, info));
    BAD(t, ctx, E, f, gala_potrf(ctx, L, 3, O, 0, 3, info));
    f = "gala_potrf_batched";
    BAD(t, ctx, E, f, gala_potrf_batched(ctx, U, 3, A, 0, 3, 9, -1, info));
    BAD(t, ctx, E, f, gala_potrf_batched(ctx, U, 3, A, 0, 3, 5, 3, info));
    BAD(t, ctx, E, f, gala_potrf_batched(ctx, U, 1 << 20, A, 0, 1 << 20, HUGE_STRIDE, 1 << 30, info));
    BAD(t, ctx, E, f, gala_potrf_batched(ctx, U, 3, A, 0, 3, SIZE_MAX / 2, 3, info));
    f = "gala_potrf_vbatched";
    BAD(t, ctx, E, f, gala_potrf_vbatched(ctx, L, n2, A, NULL, ld2, 2, info));
    BAD(t, ctx, E, f, gala_potrf_vbatched(ctx, L, nneg, A, off2, ld2, 2, info));
    BAD(t, ctx, E, f, gala_potrf_vbatched(ctx, L, n2, A, offov, ld2, 2, info));
    BAD(t, ctx, E, f, gala_potrf_vbatched(ctx, L, n2, A, offout, ld2, 2, info));
    BAD(t, ctx, E, f, gala_potrf_vbatched(ctx, L, n2, I, off2, ld2, 2, info));
    {
        /* the overlap test's two ways: matrices laid out in ascending order are checked in
         * one pass; any other order is sorted first. Descending and overlapping; the third
         * over the first only (not its neighbour in the call); and out of order but
         * disjoint, which is accepted (the data are not SPD: a numerical status at most) */
        const int n3[3] = {3, 3, 3}, ld3[3] = {3, 3, 3};
        const size_t desc_ov[2] = {5, 0}, third_ov[3] = {0, 40, 5}, shuffled[3] = {40, 0, 20};
        BAD(t, ctx, E, f, gala_potrf_vbatched(ctx, L, n2, A, desc_ov, ld2, 2, info));
        BAD(t, ctx, E, f, gala_potrf_vbatched(ctx, L, n3, A, third_ov, ld3, 3, info));
        TU_ASSERT(strstr(gala_last_error(ctx), "matrices 0 and 2") != NULL, t,
                  "overlap of matrices 0 and 2 named as: %s", gala_last_error(ctx));
        gala_error_clear(ctx);
        gala_buffer *C = tu_upload(ctx, dt, av, LEN); /* A and info stay as they are */
        int info3[3];
        const gala_status ok = gala_potrf_vbatched(ctx, L, n3, C, shuffled, ld3, 3, info3);
        TU_ASSERT(ok != E, t, "disjoint matrices out of order refused: %s",
                  gala_last_error(ctx));
        gala_buffer_free(C);
        gala_error_clear(ctx);
    }
    f = "gala_potrf_batched_async";
    BAD(t, ctx, E, f, gala_potrf_batched_async(ctx, L, 3, A, 0, 3, 9, 2, A, 0));   /* info not int */
    BAD(t, ctx, E, f, gala_potrf_batched_async(ctx, L, 3, A, 0, 3, 9, 2, I, LEN - 1));
    BAD(t, ctx, E, f, gala_potrf_batched_async(ctx, L, 3, A, 0, 3, 9, 2, NULL, 0));
    BAD(t, ctx, E, f, gala_potrf_batched_async(ctx, L, 3, A, 0, 3, 2, 2, I, 0));

    /* ---- potrs */
    f = "gala_potrs";
    BAD0(t, ctx, E, f, gala_potrs(NULL, L, 3, 2, A, 0, 3, B, 0, 3));
    BAD(t, ctx, E, f, gala_potrs(ctx, X, 3, 2, A, 0, 3, B, 0, 3));
    BAD(t, ctx, E, f, gala_potrs(ctx, L, 3, -2, A, 0, 3, B, 0, 3));
    BAD(t, ctx, E, f, gala_potrs(ctx, L, 3, 2, A, 0, 3, B, 0, 2));
    BAD(t, ctx, E, f, gala_potrs(ctx, L, 3, 2, A, 0, 3, A, 4, 3));                  /* B overlaps A */
    if (M) BAD(t, ctx, E, f, gala_potrs(ctx, L, 3, 2, A, 0, 3, M, 0, 3));
    BAD(t, ctx, E, f, gala_potrs(ctx, L, 3, 2, A, 0, 3, B, LEN - 4, 3));
    f = "gala_potrs_batched";
    BAD(t, ctx, E, f, gala_potrs_batched(ctx, L, 3, 2, A, 0, 3, 9, B, 0, 3, 3, 2));   /* B items overlap */
    BAD(t, ctx, E, f, gala_potrs_batched(ctx, L, 3, 2, A, 0, 3, 9, B, 0, 3, 6, -2));
    BAD(t, ctx, E, f, gala_potrs_batched(ctx, L, 3, 2, A, 0, 3, HUGE_STRIDE, B, 0, 3, 6, 1 << 30));
    f = "gala_potrs_vbatched";
    BAD(t, ctx, E, f, gala_potrs_vbatched(ctx, L, n2, NULL, A, off2, ld2, B, boff2, ld2, 2));
    BAD(t, ctx, E, f, gala_potrs_vbatched(ctx, L, n2, r2, A, off2, ld2, B, offov, ld2, 2));
    BAD(t, ctx, E, f, gala_potrs_vbatched(ctx, L, n2, r2, A, off2, ld2, A, off2, ld2, 2));
    BAD(t, ctx, E, f, gala_potrs_vbatched(ctx, L, n2, r2, A, off2, ld2, B, boff2, ldsmall, 2));
    BAD(t, ctx, E, f, gala_potrs_vbatched(ctx, L, n2, r2, A, off2, ld2, B, boff2, ld2, -1));

    /* ---- potri */
    f = "gala_potri";
    BAD0(t, ctx, E, f, gala_potri(NULL, L, 3, A, 0, 3, info));
    BAD(t, ctx, E, f, gala_potri(ctx, X, 3, A, 0, 3, info));
    BAD(t, ctx, E, f, gala_potri(ctx, L, 3, A, 0, 1, info));
    f = "gala_potri_batched";
    BAD(t, ctx, E, f, gala_potri_batched(ctx, L, 3, A, 0, 3, 1, 3, info));
    BAD(t, ctx, E, f, gala_potri_batched(ctx, L, -3, A, 0, 3, 9, 3, info));
    f = "gala_potri_vbatched";
    BAD(t, ctx, E, f, gala_potri_vbatched(ctx, L, n2, A, offov, ld2, 2, info));
    BAD(t, ctx, E, f, gala_potri_vbatched(ctx, L, n2, O, off2, ld2, 2, info));

    /* ---- ldlt */
    f = "gala_ldlt";
    BAD0(t, ctx, E, f, gala_ldlt(NULL, L, 3, A, 0, 3, info, inertia));
    BAD(t, ctx, E, f, gala_ldlt(ctx, X, 3, A, 0, 3, info, inertia));
    BAD(t, ctx, E, f, gala_ldlt(ctx, L, -1, A, 0, 3, info, inertia));
    BAD(t, ctx, E, f, gala_ldlt(ctx, L, 3, A, 0, 2, info, inertia));
    BAD(t, ctx, E, f, gala_ldlt(ctx, L, 3, I, 0, 3, info, inertia));
    f = "gala_ldlt_batched";
    BAD(t, ctx, E, f, gala_ldlt_batched(ctx, L, 3, A, 0, 3, 2, 3, info, inertia));
    BAD(t, ctx, E, f, gala_ldlt_batched(ctx, L, 3, A, 0, 3, 9, -3, info, inertia));
    BAD(t, ctx, E, f, gala_ldlt_batched(ctx, L, 1 << 20, A, 0, 1 << 20, HUGE_STRIDE, 1 << 30, info, inertia));
    BAD(t, ctx, E, f, gala_ldlt_batched(ctx, L, 3, A, 0, 3, 3, 2, info, inertia)); /* stride n, ld n */
    f = "gala_ldlt_vbatched";
    BAD(t, ctx, E, f, gala_ldlt_vbatched(ctx, L, n2, A, offov, ld2, 2, info, inertia));
    BAD(t, ctx, E, f, gala_ldlt_vbatched(ctx, L, nneg, A, off2, ld2, 2, info, inertia));
    f = "gala_ldlt_solve";
    BAD0(t, ctx, E, f, gala_ldlt_solve(NULL, L, 3, 1, A, 0, 3, B, 0, 3));
    BAD(t, ctx, E, f, gala_ldlt_solve(ctx, L, 3, -1, A, 0, 3, B, 0, 3));
    BAD(t, ctx, E, f, gala_ldlt_solve(ctx, L, 3, 1, A, 0, 3, A, 3, 3));
    if (M) BAD(t, ctx, E, f, gala_ldlt_solve(ctx, L, 3, 1, A, 0, 3, M, 0, 3));
    f = "gala_ldlt_solve_batched";
    BAD(t, ctx, E, f, gala_ldlt_solve_batched(ctx, L, 3, 2, A, 0, 3, 9, B, 0, 3, 4, 2));
    BAD(t, ctx, E, f, gala_ldlt_solve_batched(ctx, L, 3, 2, A, 0, 2, 9, B, 0, 3, 6, 2)); /* lda < n */
    BAD(t, ctx, E, f, gala_ldlt_solve_batched(ctx, L, 3, 2, A, 0, 3, 9, B, 0, 3, SIZE_MAX / 2, 3));
    f = "gala_ldlt_solve_vbatched";
    BAD(t, ctx, E, f, gala_ldlt_solve_vbatched(ctx, L, n2, r2, A, off2, ld2, B, offov, ld2, 2));
    BAD(t, ctx, E, f, gala_ldlt_solve_vbatched(ctx, L, n2, NULL, A, off2, ld2, B, boff2, ld2, 2));
    {   /* right-hand sides of two systems share elements; B_0 inside the factor A_1 */
        const size_t bo_ov[2] = {100, 103}, bo_in_a1[2] = {22, 120};
        BAD(t, ctx, E, f, gala_ldlt_solve_vbatched(ctx, L, n2, r2, A, off2, ld2, B, bo_ov, ld2, 2));
        BAD(t, ctx, E, f, gala_ldlt_solve_vbatched(ctx, L, n2, r2, A, off2, ld2, A, bo_in_a1, ld2, 2));
        f = "gala_potrs_vbatched";
        BAD(t, ctx, E, f, gala_potrs_vbatched(ctx, L, n2, r2, A, off2, ld2, B, bo_ov, ld2, 2));
        BAD(t, ctx, E, f, gala_potrs_vbatched(ctx, L, n2, r2, A, off2, ld2, A, bo_in_a1, ld2, 2));
    }
    /* uniform batches whose stride equals n with lda = n: consecutive matrices share columns */
    BAD(t, ctx, E, "gala_trtri_batched",
        gala_trtri_batched(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, 9, B, 0, 3, 3, 2, info));
    BAD(t, ctx, E, "gala_potrf_batched", gala_potrf_batched(ctx, L, 3, A, 0, 3, 3, 2, info));
    BAD(t, ctx, E, "gala_potri_batched", gala_potri_batched(ctx, L, 3, A, 0, 3, 3, 2, info));
    BAD(t, ctx, E, "gala_potrs_batched", gala_potrs_batched(ctx, L, 3, 2, A, 0, 3, 9, B, 0, 3, 3, 2));
    BAD(t, ctx, E, "gala_ldlt_solve_batched",
        gala_ldlt_solve_batched(ctx, L, 3, 2, A, 0, 3, 9, B, 0, 3, 3, 2));

    /* nothing was written anywhere */
    double w[LEN];
    tu_download(A, 0, w, LEN);
    for (int i = 0; i < LEN; ++i) TU_ASSERT(w[i] == av[i], t, "A[%d] changed by a rejected call", i);
    tu_download(B, 0, w, LEN);
    for (int i = 0; i < LEN; ++i) TU_ASSERT(w[i] == bv[i], t, "B[%d] changed by a rejected call", i);
    for (int i = 0; i < 8; ++i) TU_ASSERT(info[i] == 77, t, "info[%d] written by a rejected call", i);
    for (int i = 0; i < 16; ++i) TU_ASSERT(inertia[i] == 77, t, "inertia written by a rejected call");

    /* empty work: batch 0 (size arrays may be NULL) and n = 0 succeed and do nothing */
    TU_OK(ctx, gala_trtri_vbatched(ctx, L, GALA_NON_UNIT, NULL, A, NULL, NULL, B, NULL, NULL, 0, NULL));
    TU_OK(ctx, gala_potrf_vbatched(ctx, L, NULL, A, NULL, NULL, 0, NULL));
    TU_OK(ctx, gala_potrs_vbatched(ctx, L, NULL, NULL, A, NULL, NULL, B, NULL, NULL, 0));
    TU_OK(ctx, gala_potri_vbatched(ctx, L, NULL, A, NULL, NULL, 0, NULL));
    TU_OK(ctx, gala_ldlt_vbatched(ctx, L, NULL, A, NULL, NULL, 0, NULL, NULL));
    TU_OK(ctx, gala_ldlt_solve_vbatched(ctx, L, NULL, NULL, A, NULL, NULL, B, NULL, NULL, 0));
    TU_OK(ctx, gala_trtri_batched(ctx, L, GALA_NON_UNIT, 3, A, 0, 3, 9, B, 0, 3, 9, 0, info));
    TU_OK(ctx, gala_potrf_batched(ctx, L, 3, A, 0, 3, 9, 0, info));
    TU_OK(ctx, gala_potrs_batched(ctx, L, 3, 2, A, 0, 3, 9, B, 0, 3, 6, 0));
    TU_OK(ctx, gala_potri_batched(ctx, L, 3, A, 0, 3, 9, 0, info));
    TU_OK(ctx, gala_ldlt_batched(ctx, L, 3, A, 0, 3, 9, 0, info, inertia));
    TU_OK(ctx, gala_ldlt_solve_batched(ctx, L, 3, 2, A, 0, 3, 9, B, 0, 3, 6, 0));
    TU_OK(ctx, gala_potrs(ctx, L, 3, 0, A, 0, 3, B, 0, 3));
    TU_OK(ctx, gala_ldlt_solve(ctx, L, 3, 0, A, 0, 3, B, 0, 3));
    for (int i = 0; i < 8; ++i) TU_ASSERT(info[i] == 77, t, "info[%d] written for an empty batch", i);
    TU_OK(ctx, gala_potrf_batched(ctx, L, 0, A, 0, 1, 1, 3, info));
    TU_OK(ctx, gala_trtri_batched(ctx, L, GALA_NON_UNIT, 0, A, 0, 1, 0, B, 0, 1, 0, 3, info + 3));
    TU_OK(ctx, gala_ldlt_batched(ctx, L, 0, A, 0, 1, 0, 2, info + 6, inertia));
    for (int i = 0; i < 8; ++i) TU_ASSERT(info[i] == 0, t, "n = 0: info[%d] = %d", i, info[i]);
    tu_download(A, 0, w, LEN);
    for (int i = 0; i < LEN; ++i) TU_ASSERT(w[i] == av[i], t, "A[%d] changed by empty work", i);

    gala_buffer_free(A);
    gala_buffer_free(B);
    gala_buffer_free(M);
    gala_buffer_free(I);
    gala_buffer_free(O);
    gala_context_destroy(oc);
}
END_TEST

/* ------------------------------------------------------------------ numerical failures */

/* potrf on a batch where matrix 1 has a NaN in column 3, matrix 3 has a leading minor of
 * order 4 that is not positive definite, matrix 4 an Inf on its diagonal at column 2; the
 * others are SPD. Sizes: fused (n = 6) and blocked (n = 70); uniform and variable batches;
 * lower and upper. The other triangle of every matrix holds NaN (never read). */
START_TEST(potrf_bad_matrices_in_a_batch)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    tu_rng r = tu_rng_for("potrf_bad_batch", t);
    for (int form = 0; form < 4; ++form) {
        const int up = form & 1, vb = form >= 2, count = 6;
        int n[6];
        for (int b = 0; b < count; ++b) n[b] = vb ? (b % 2 ? 70 : 6 + b) : (form == 1 ? 70 : 6);
        la_layout Lay = la_layout_make(&r, count, n, NULL, 2);
        if (!vb) { /* a uniform stride for the batched call */
            size_t stride = 0;
            for (int b = 0; b < count; ++b) {
                Lay.m[b].ld = Lay.m[0].ld;
                Lay.m[b].off = 1 + (size_t)b * (size_t)Lay.m[0].ld * (size_t)n[0];
            }
            stride = (size_t)Lay.m[0].ld * (size_t)n[0];
            free(Lay.v);
            Lay.len = 2 + stride * count;
            Lay.v = malloc(Lay.len * sizeof *Lay.v);
            for (size_t i = 0; i < Lay.len; ++i) Lay.v[i] = NAN;
        }
        double *G[6];
        for (int b = 0; b < count; ++b) {
            G[b] = malloc((size_t)n[b] * n[b] * sizeof(double));
            la_spd(&r, n[b], 1.0, dt, G[b]);
            la_put_tri(&Lay, b, up, G[b]);
        }
        /* the bad ones */
        /* column 3 (1-based) of L: for upper storage that is row 3 of U, stored column 5 */
        Lay.v[la_at(&Lay.m[1], up, 4, 2)] = NAN;
        Lay.v[la_at(&Lay.m[3], up, 3, 3)] = -50;           /* minor of order 4 */
        Lay.v[la_at(&Lay.m[4], up, 1, 1)] = INFINITY;      /* column 2 */
        gala_buffer *bA = la_upload(ctx, dt, &Lay);
        int info[6] = {9, 9, 9, 9, 9, 9};
        int nn[6], lda[6];
        size_t off[6];
        for (int b = 0; b < count; ++b) { nn[b] = n[b]; lda[b] = Lay.m[b].ld; off[b] = Lay.m[b].off; }
        const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
        gala_status s = vb ? gala_potrf_vbatched(ctx, ul, nn, bA, off, lda, count, info)
                           : gala_potrf_batched(ctx, ul, n[0], bA, off[0], lda[0],
                                                off[1] - off[0], count, info);
        TU_ASSERT(s == GALA_ERR_NOT_FINITE, t, "form %d: status %s", form, gala_status_string(s));
        TU_ASSERT(names_matrix(gala_last_error(ctx), 1), t, "form %d: %s", form,
                  gala_last_error(ctx));
        TU_ASSERT(info[0] == 0 && info[1] == -3 && info[2] == 0 && info[3] == 4 &&
                      info[4] == -2 && info[5] == 0,
                  t, "form %d: info %d %d %d %d %d %d", form, info[0], info[1], info[2], info[3],
                  info[4], info[5]);
        double *out = malloc(Lay.len * sizeof *out);
        tu_download(bA, 0, out, Lay.len);
        for (int b = 0; b < count; ++b) {
            if (info[b] != 0) continue;
            double res = la_chol_residual(&Lay, b, up, out, G[b]);
            TU_ASSERT(res < 100 * n[b] * tu_eps(dt), t, "form %d: good matrix %d: residual %g",
                      form, b, res);
        }
        /* the other triangle and the gaps are as they were (NaN) */
        unsigned char *mask = la_mask(&Lay, up, 1);
        TU_ASSERT(la_untouched(&Lay, mask, out) < 0, t, "form %d: wrote outside the triangles", form);
        free(mask);
        /* without the NaN and the Inf: not positive definite, named by its matrix */
        Lay.v[la_at(&Lay.m[1], up, 4, 2)] = G[1][4 + 2 * n[1]];
        Lay.v[la_at(&Lay.m[4], up, 1, 1)] = G[4][1 + 1 * n[4]];
        TU_OK(ctx, gala_buffer_free(bA));
        bA = la_upload(ctx, dt, &Lay);
        s = vb ? gala_potrf_vbatched(ctx, ul, nn, bA, off, lda, count, NULL)
               : gala_potrf_batched(ctx, ul, n[0], bA, off[0], lda[0], off[1] - off[0], count, NULL);
        TU_ASSERT(s == GALA_ERR_NOT_POSITIVE_DEFINITE, t, "form %d: %s", form, gala_status_string(s));
        TU_ASSERT(names_matrix(gala_last_error(ctx), 3) && strstr(gala_last_error(ctx), "order 4"),
                  t, "form %d: %s", form, gala_last_error(ctx));
        free(out);
        for (int b = 0; b < count; ++b) free(G[b]);
        gala_buffer_free(bA);
        la_layout_free(&Lay);
    }
}
END_TEST

/* Random n×n triangular matrix with a well-conditioned diagonal, full storage. */
static void tri_full(tu_rng *r, int n, int up, gala_dtype dt, double *T)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            int in = up ? i <= j : i >= j;
            T[i + (size_t)j * n] = !in ? 0 : i == j ? 1.5 + tu_uniform(r) : tu_normal(r) / n;
        }
    tu_round(dt, T, (size_t)n * n);
}

/* trtri_batched: a zero diagonal entry (singular) and a NaN leave their matrices untouched,
 * the others are inverted; potri of a factor with a zero diagonal is singular. */
START_TEST(trtri_and_potri_singular_in_a_batch)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    tu_rng r = tu_rng_for("trtri_singular", t);
    enum { N = 9, C = 4, LD = 10, S = LD * N };
    for (int up = 0; up < 2; ++up) {
        double T[C][N * N], *v = malloc((size_t)S * C * sizeof *v);
        for (int i = 0; i < S * C; ++i) v[i] = NAN;
        for (int b = 0; b < C; ++b) {
            tri_full(&r, N, up, dt, T[b]);
            for (int j = 0; j < N; ++j)
                for (int i = 0; i < N; ++i)
                    if (up ? i <= j : i >= j) v[b * S + i + j * LD] = T[b][i + j * N];
        }
        v[1 * S + 4 + 4 * LD] = 0;                               /* matrix 1: A(5,5) = 0 */
        v[2 * S + (up ? 1 : 7) + 6 * LD] = NAN;                  /* matrix 2: column 7 */
        gala_buffer *bA = tu_upload(ctx, dt, v, (size_t)S * C), *bB = tu_poisoned(ctx, dt, (size_t)S * C);
        int info[C];
        const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
        gala_status s = gala_trtri_batched(ctx, ul, GALA_NON_UNIT, N, bA, 0, LD, S, bB, 0, LD, S, C, info);
        TU_ASSERT(s == GALA_ERR_NOT_FINITE, t, "up %d: %s", up, gala_status_string(s));
        TU_ASSERT(info[0] == 0 && info[1] == 5 && info[2] == -7 && info[3] == 0, t,
                  "up %d: info %d %d %d %d", up, info[0], info[1], info[2], info[3]);
        double *out = malloc((size_t)S * C * sizeof *out);
        tu_download(bB, 0, out, (size_t)S * C);
        for (int b = 0; b < C; ++b) {
            for (int j = 0; j < N; ++j)
                for (int i = 0; i < N; ++i) {
                    if (!(up ? i <= j : i >= j)) continue;
                    double x = out[b * S + i + j * LD];
                    if (info[b] != 0) {
                        TU_ASSERT(isnan(x), t, "failed matrix %d was written", b);
                        continue;
                    }
                    double s2 = 0; /* (T·X)(i, j) */
                    for (int k = 0; k < N; ++k) {
                        int ink = up ? k <= j : k >= j;
                        if (ink) s2 += T[b][i + k * N] * out[b * S + k + j * LD];
                    }
                    (void)x;
                    TU_ASSERT(fabs(s2 - (i == j)) < 200 * N * tu_eps(dt), t,
                              "matrix %d: (T·T⁻¹)(%d,%d) = %g", b, i, j, s2);
                }
        }
        /* without the NaN: GALA_ERR_SINGULAR, named */
        tu_download(bA, 0, out, (size_t)S * C);
        s = gala_trtri_batched(ctx, ul, GALA_NON_UNIT, N, bA, 0, LD, S, bB, 0, LD, S, 2, info);
        TU_ASSERT(s == GALA_ERR_SINGULAR && info[1] == 5, t, "%s", gala_status_string(s));
        TU_ASSERT(names_matrix(gala_last_error(ctx), 1), t, "%s", gala_last_error(ctx));
        /* potri of a "factor" with a zero diagonal (matrix 1) is singular; matrix 0 is fine */
        s = gala_potri_batched(ctx, ul, N, bA, 0, LD, S, 2, info);
        TU_ASSERT(s == GALA_ERR_SINGULAR && info[0] == 0 && info[1] == 5, t, "potri: %s %d %d",
                  gala_status_string(s), info[0], info[1]);
        /* potri of the factor with a NaN in column 7 (matrix 2, alone): not finite, named */
        s = gala_potri_batched(ctx, ul, N, bA, 2 * S, LD, S, 1, info);
        TU_ASSERT(s == GALA_ERR_NOT_FINITE && info[0] == -7, t, "potri with a NaN: %s %d",
                  gala_status_string(s), info[0]);
        TU_ASSERT(strstr(gala_last_error(ctx), "matrix 0: NaN or Inf at column 7") != NULL, t,
                  "potri with a NaN: %s", gala_last_error(ctx));
        free(out);
        free(v);
        gala_buffer_free(bA);
        gala_buffer_free(bB);
    }
}
END_TEST

/* ldlt_batched: a zero pivot, a NaN, an Inf among good quasi-definite matrices. */
START_TEST(ldlt_bad_matrices_in_a_batch)
{
    const int t = _i;
    gala_context *ctx = tu_ctx(t);
    const gala_dtype dt = tu_target_get(t)->dtype;
    enum { N = 6, C = 5, LD = 7, S = LD * N };
    double v[S * C], K[C][N * N];
    for (int i = 0; i < S * C; ++i) v[i] = NAN;
    tu_rng r = tu_rng_for("ldlt_bad", t);
    for (int b = 0; b < C; ++b)
        for (int j = 0; j < N; ++j)
            for (int i = j; i < N; ++i) {
                double x = i == j ? (j < 3 ? 4 : -4) + tu_uniform(&r) : 0.5 * tu_normal(&r);
                x = (double)(dt == GALA_FLOAT ? (float)x : x);
                K[b][i + j * N] = K[b][j + i * N] = x;
                v[b * S + i + j * LD] = x;
            }
    /* matrix 1: K(1,1) = 0 and zero column below: pivot 1 is exactly zero */
    for (int i = 0; i < N; ++i) v[1 * S + i] = 0;
    v[2 * S + 4 + 2 * LD] = NAN;      /* reaches pivot 3 at the latest */
    v[3 * S + 5 + 5 * LD] = INFINITY; /* pivot 6 */
    gala_buffer *bA = tu_upload(ctx, dt, v, S * C);
    int info[C], inertia[2 * C];
    gala_status s = gala_ldlt_batched(ctx, GALA_LOWER, N, bA, 0, LD, S, C, info, inertia);
    TU_ASSERT(s == GALA_ERR_NOT_FINITE, t, "%s", gala_status_string(s));
    TU_ASSERT(info[0] == 0 && info[1] == 1 && info[2] < 0 && info[3] == -6 &&
                  info[4] == 0, t, "info %d %d %d %d %d", info[0], info[1], info[2], info[3], info[4]);
    TU_ASSERT(inertia[0] == 3 && inertia[1] == 3 && inertia[8] == 3 && inertia[9] == 3, t,
              "inertia of the good matrices");
    TU_ASSERT(inertia[6] + inertia[7] == 5, t, "matrix 3 accepted %d pivots before the Inf",
              inertia[6] + inertia[7]);
    double out[S * C];
    tu_download(bA, 0, out, S * C);
    for (int b = 0; b < C; b += 4) { /* L·D·Lᵀ = K for the good ones */
        for (int j = 0; j < N; ++j)
            for (int i = j; i < N; ++i) {
                double sum = 0;
                for (int k = 0; k <= j; ++k) {
                    double li = i == k ? 1 : out[b * S + i + k * LD], lj = j == k ? 1 : out[b * S + j + k * LD];
                    sum += li * out[b * S + k + k * LD] * lj;
                }
                TU_ASSERT(fabs(sum - K[b][i + j * N]) < 100 * N * tu_eps(dt) * 8, t,
                          "matrix %d (%d,%d): %g vs %g", b, i, j, sum, K[b][i + j * N]);
            }
        for (int j = 0; j < N; ++j) /* upper triangle untouched */
            for (int i = 0; i < j; ++i) TU_ASSERT(isnan(out[b * S + i + j * LD]), t, "upper written");
    }
    /* only the zero pivot: GALA_ERR_SINGULAR naming matrix 1 */
    s = gala_ldlt_batched(ctx, GALA_LOWER, N, bA, S, LD, S, 1, info, NULL);
    TU_ASSERT(s == GALA_ERR_SINGULAR && info[0] == 1, t, "%s %d", gala_status_string(s), info[0]);
    TU_ASSERT(strstr(gala_last_error(ctx), "gala_ldlt_batched") != NULL, t, "%s", gala_last_error(ctx));
    gala_buffer_free(bA);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("badinput_la");
    TCase *tc = tcase_create("badinput_la");
    int nt = tu_target_count();
    tcase_add_loop_test(tc, argument_errors, 0, nt);
    tcase_add_loop_test(tc, potrf_bad_matrices_in_a_batch, 0, nt);
    tcase_add_loop_test(tc, trtri_and_potri_singular_in_a_batch, 0, nt);
    tcase_add_loop_test(tc, ldlt_bad_matrices_in_a_batch, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
