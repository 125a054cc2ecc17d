/* Batches solved in chunks (src/qp/chunk.c; settings device_mem_limit and max_chunk),
 * forced on small batches: every QP its own chunk, chunks of odd sizes, a chunk of invalid
 * QPs only, batches of one, a few thousand small QPs. A chunked solver must give what the
 * unchunked solver of the same QPs gives, bit for bit (statuses, iterations, x, y,
 * certificates, objectives, residuals, ρ, messages), after setup, after every solve, and
 * through updates of q, l, u, P and A values, ρ, settings, warm and cold starts, with the
 * host and device vector calls, for every strategy. A fault injected anywhere in a chunked
 * solve (an allocation, launch or transfer of any chunk: its set-up, iterations, parking)
 * gives a clear status naming the chunk, the other chunks' QPs their results, and a solver
 * that then solves again as if nothing had happened. Seeded inputs (GALA_TEST_SEED). */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "qp/qp_internal.h"
#include "testutil.h"
#include "qp_build.h"
#include "qp_compare.h"
#include "qp_mixed.h"

static gala_qp_settings settings_for(int target)
{
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.dtype = tu_target_get(target)->dtype;
    return s;
}

static int is_opencl(int target) { return tu_target_get(target)->backend == GALA_BACKEND_OPENCL; }

/* ------------------------------------------------------------------ the pipeline */

/* How the chunks of the next chunked setups on a context go through the device: `slots`
 * at once (qp.chunk_slots; 2: pipelined, each slot on a context and thread of its own, the
 * next chunk's transfers and refactorization during the current one's iterations; 1: one
 * after another), and whether a parked chunk keeps its K (qp.park_k; 0: dropped and
 * factored again, as on GPUs). pipe_set returns the context's values of before, which
 * pipe_restore puts back (the tests share the context). */
typedef struct {
    gala_context *ctx;
    gala_dtype dt;
    long slots, park;
} pipe_cfg;

static pipe_cfg pipe_set(gala_context *ctx, gala_dtype dt, int slots, int park)
{
    pipe_cfg was = {ctx, dt, 0, 0};
    TU_OK(ctx, gala_tune_get(ctx, "qp.chunk_slots", dt, &was.slots));
    TU_OK(ctx, gala_tune_get(ctx, "qp.park_k", dt, &was.park));
    TU_OK(ctx, gala_tune_set(ctx, "qp.chunk_slots", dt, slots));
    TU_OK(ctx, gala_tune_set(ctx, "qp.park_k", dt, park));
    return was;
}

static void pipe_restore(pipe_cfg was)
{
    TU_OK(was.ctx, gala_tune_set(was.ctx, "qp.chunk_slots", was.dt, was.slots));
    TU_OK(was.ctx, gala_tune_set(was.ctx, "qp.park_k", was.dt, was.park));
}

/* The configurations the tests cycle through: pipelined with K dropped (the GPUs' way),
 * one after another with K kept, pipelined with K kept. */
static const int pipe_cfgs[3][2] = {{2, 0}, {1, 1}, {2, 1}};

/* ------------------------------------------------------------------ batches */

/* A chunked twin of the settings; its pipeline is the context's tuning (pipe_set): every
 * backend here has twin contexts, so a batch in several chunks has the slots asked for. */
static gala_qp_solver *setup_chunked(int target, gala_context *ctx, const gala_qp_problem *pb,
                                     int count, gala_qp_settings s, int max_chunk, double limit,
                                     int want_chunks)
{
    s.max_chunk = max_chunk;
    s.device_mem_limit = limit;
    gala_qp_solver *b = NULL;
    TU_OK(ctx, gala_qp_setup(ctx, pb, count, &s, &b));
    const int nc = gala_qp_chunk_count(b);
    if (want_chunks > 0)
        TU_ASSERT(nc == want_chunks, target, "max_chunk %d, limit %g: %d chunks, want %d", max_chunk,
                  limit, nc, want_chunks);
    else
        TU_ASSERT(nc > 1, target, "max_chunk %d, limit %g: one chunk", max_chunk, limit);
    long want_slots = 0, want_keep = 0;
    TU_OK(ctx, gala_tune_get(ctx, "qp.chunk_slots", s.dtype, &want_slots));
    TU_OK(ctx, gala_tune_get(ctx, "qp.park_k", s.dtype, &want_keep));
    if (nc > 1) {
        int slots = 0, keep = 0;
        gala_qp_chunked_pipeline(b, 0, &slots, &keep);
        const int dense = gala_qp_linsys_used(b) == GALA_QP_LINSYS_DENSE; /* K: dense only */
        TU_ASSERT(slots == want_slots && (!dense || keep == want_keep), target,
                  "%d chunks in %d slots, K kept %d; asked for %ld, %ld", nc, slots, keep,
                  want_slots, want_keep);
    }
    return b;
}

/* ------------------------------------------------------------------ setup and solve */

/* The same mixed batch of 41 QPs (two rejected, the first of them QP 0, so that the
 * reference is QP 1) unchunked and in chunks of 1, 2, 7 and 40 QPs, by a memory limit, and
 * in chunks of 7 with small launch classes merged (qp.min_bin = 12: a chunk must launch its
 * QPs in the classes the batch gives them); batches of one and of a valid, an invalid and a
 * valid QP in chunks of one. */
START_TEST(chunked_equals_unchunked)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 41 };
    gala_qp_problem pb[B];
    qp_mixed_batch(&r, pb, B, 0);
    gala_qp_settings s = settings_for(_i);
    s.max_iter = 600;
    gala_qp_solver *a;
    const int sizes[] = {1, 2, 7, 40, 0, 7};
    const char *old = getenv("GALA_TUNE");
    char *keep = old ? strdup(old) : NULL;
    for (int v = 0; v < 6; ++v) {
        if (v == 5) setenv("GALA_TUNE", "qp.min_bin=12", 1);
        char what[96];
        gala_qp_solver *b;
        TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
        TU_ASSERT(gala_qp_chunk_count(a) == 1 && gala_qp_chunk_count(NULL) == 0, _i, "chunk counts");
        const int *pc = pipe_cfgs[v % 3];
        const pipe_cfg was = pipe_set(ctx, s.dtype, pc[0], pc[1]);
        if (v != 4) {
            snprintf(what, sizeof what, "chunks of %d%s, %d slots, K kept %d", sizes[v],
                     v == 5 ? ", classes merged" : "", pc[0], pc[1]);
            b = setup_chunked(_i, ctx, pb, B, s, sizes[v], 0, (B + sizes[v] - 1) / sizes[v]);
        } else {
            snprintf(what, sizeof what, "a memory limit, %d slots, K kept %d", pc[0], pc[1]);
            b = setup_chunked(_i, ctx, pb, B, s, 0, 150000, 0);
            TU_ASSERT(gala_qp_chunk_count(b) < B, _i, "limit: %d chunks", gala_qp_chunk_count(b));
        }
        pipe_restore(was);
        TU_ASSERT(gala_qp_linsys_used(b) == gala_qp_linsys_used(a), _i, "%s: strategy %d", what,
                  gala_qp_linsys_used(b));
        qp_same_results(_i, a, b, pb, B, 0, 0, 0, what); /* what setup found (NON_CVX, invalid data) */
        TU_OK(ctx, gala_qp_solve(a));
        TU_OK(ctx, gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, what);
        /* solved again: the chunks that come back now find their values' host copies
         * current, K dropped or kept */
        TU_OK(ctx, gala_qp_solve(a));
        TU_OK(ctx, gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, what);
        gala_qp_destroy(b);
        gala_qp_destroy(a);
    }
    if (keep) setenv("GALA_TUNE", keep, 1);
    else unsetenv("GALA_TUNE");
    free(keep);
    /* one QP; a valid, an invalid and a valid QP, each its own chunk */
    gala_qp_problem three[3] = {pb[1], pb[0], pb[2]};
    for (int cnt = 1; cnt <= 3; cnt += 2) {
        gala_qp_problem *p = cnt == 1 ? &pb[3] : three;
        TU_OK(ctx, gala_qp_setup(ctx, p, cnt, &s, &a));
        TU_OK(ctx, gala_qp_solve(a));
        gala_qp_solver *b = NULL;
        s.max_chunk = 1;
        TU_OK(ctx, gala_qp_setup(ctx, p, cnt, &s, &b));
        s.max_chunk = 0;
        TU_ASSERT(gala_qp_chunk_count(b) == cnt, _i, "%d QPs: %d chunks", cnt, gala_qp_chunk_count(b));
        TU_OK(ctx, gala_qp_solve(b));
        qp_same_results(_i, a, b, p, cnt, 1, 0, 0, cnt == 1 ? "one QP" : "valid, invalid, valid");
        gala_qp_destroy(a);
        gala_qp_destroy(b);
    }
    qp_free_batch(pb, B);
}
END_TEST

/* Polishing, and every QP rejected. */
START_TEST(chunked_polish_and_all_invalid)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 13 };
    gala_qp_problem pb[B];
    qp_mixed_batch(&r, pb, B, -1);
    gala_qp_settings s = settings_for(_i);
    s.polishing = 1;
    gala_qp_solver *a, *b;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
    TU_OK(ctx, gala_qp_solve(a));
    b = setup_chunked(_i, ctx, pb, B, s, 3, 0, 5);
    TU_OK(ctx, gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "polished");
    /* the polished solution is where the next solve starts */
    TU_OK(ctx, gala_qp_solve(a));
    TU_OK(ctx, gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "polished, solved again");
    gala_qp_destroy(a);
    gala_qp_destroy(b);
    for (int k = 0; k < 4; ++k) pb[k].q[0] = NAN;
    s.polishing = 0;
    TU_OK(ctx, gala_qp_setup(ctx, pb, 4, &s, &a));
    TU_OK(ctx, gala_qp_solve(a));
    b = setup_chunked(_i, ctx, pb, 4, s, 1, 0, 1); /* nothing on the device: one chunk */
    TU_OK(ctx, gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, 4, 1, 0, 0, "all invalid");
    gala_qp_destroy(a);
    gala_qp_destroy(b);
    qp_free_batch(pb, B);
}
END_TEST

/* ------------------------------------------------------------------ updates */

/* The caller's arrays of every QP's (k = -1) q, l, u, and P, A values of the valid ones. */
typedef struct {
    double *q, *l, *u, *Px, *Ax;
} upd_arrays;

static upd_arrays make_updates(tu_rng *r, const gala_qp_problem *pb, int count, const int *valid)
{
    size_t nq = 0, nb = 0, np = 0, na = 0;
    for (int k = 0; k < count; ++k) {
        nq += (size_t)pb[k].n;
        nb += (size_t)pb[k].m;
        if (valid[k]) {
            np += (size_t)pb[k].P.p[pb[k].n];
            na += (size_t)pb[k].A.p[pb[k].n];
        }
    }
    upd_arrays u;
    u.q = malloc(sizeof(double) * (nq + 1));
    u.l = malloc(sizeof(double) * (nb + 1));
    u.u = malloc(sizeof(double) * (nb + 1));
    u.Px = malloc(sizeof(double) * (np + 1));
    u.Ax = malloc(sizeof(double) * (na + 1));
    nq = nb = np = na = 0;
    for (int k = 0; k < count; ++k) {
        for (int j = 0; j < pb[k].n; ++j) {
            const double v = isfinite(pb[k].q[j]) ? pb[k].q[j] : 0.3;
            u.q[nq++] = v * (1 + 0.2 * tu_uniform(r)) + 0.05 * tu_normal(r);
        }
        for (int i = 0; i < pb[k].m; ++i) {
            double lo = pb[k].l[i], hi = pb[k].u[i];
            const double d = 0.1 * tu_uniform(r);
            if (isfinite(lo)) lo -= d;
            if (isfinite(hi)) hi += d;
            u.l[nb] = lo;
            u.u[nb++] = hi;
        }
        if (!valid[k]) continue;
        for (int e = 0; e < pb[k].P.p[pb[k].n]; ++e) u.Px[np++] = pb[k].P.x[e] * 1.05;
        for (int e = 0; e < pb[k].A.p[pb[k].n]; ++e) u.Ax[na++] = pb[k].A.x[e] * (1 + 0.02 * tu_uniform(r));
    }
    return u;
}

static void free_updates(upd_arrays *u)
{
    free(u->q);
    free(u->l);
    free(u->u);
    free(u->Px);
    free(u->Ax);
}

/* Both solvers through the same calls; the results compared after each step. */
#define BOTH(call_a, call_b)                                                                \
    do {                                                                                   \
        gala_status sa_ = (call_a), sb_ = (call_b);                                        \
        TU_ASSERT(sa_ == sb_, _i, "%s: status %s unchunked, %s chunked: %s", #call_a,      \
                  gala_status_string(sa_), gala_status_string(sb_), gala_last_error(ctx)); \
    } while (0)

/* A sequence of updates between solves on a mixed batch, in chunks of 3 and of 5: every
 * QP's vectors (a row turned into an equality, a QP made invalid by a NaN and valid again),
 * one QP's, warm starts of one QP and of all, matrix values of all and of one, ρ of one and
 * of all, cold start, settings, ρ adapted across solves. */
START_TEST(chunked_updates_and_warm_starts)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 23 };
    gala_qp_problem pb[B];
    qp_mixed_batch(&r, pb, B, 3); /* QPs 3 and 11 rejected */
    int valid[B];
    for (int k = 0; k < B; ++k) valid[k] = k != 3 && k != B / 2;
    upd_arrays u = make_updates(&r, pb, B, valid);
    size_t qo[B + 1], bo[B + 1];
    qo[0] = bo[0] = 0;
    for (int k = 0; k < B; ++k) {
        qo[k + 1] = qo[k] + (size_t)pb[k].n;
        bo[k + 1] = bo[k] + (size_t)pb[k].m;
    }
    const int eqk = 4; /* a row of QP 4 becomes an equality: its ρ and K change */
    u.l[bo[eqk]] = u.u[bo[eqk]] = isfinite(u.l[bo[eqk]]) ? u.l[bo[eqk]] : (isfinite(u.u[bo[eqk]]) ? u.u[bo[eqk]] : 0);
    u.q[qo[6]] = NAN; /* QP 6 invalid until its next valid vector */
    double *xs = malloc(sizeof(double) * (qo[B] + bo[B] + 1)), *ys = xs + qo[B];
    for (int v = 0; v < 3; ++v) {
        const int mc = v == 0 ? 3 : (v == 1 ? 5 : 4);
        gala_qp_settings s = settings_for(_i);
        s.max_iter = 800;
        gala_qp_solver *a, *b;
        TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
        const int *pc = pipe_cfgs[v];
        const pipe_cfg was = pipe_set(ctx, s.dtype, pc[0], pc[1]);
        b = setup_chunked(_i, ctx, pb, B, s, mc, 0, (B + mc - 1) / mc);
        pipe_restore(was);
        char what[128];
#define STEP(name)                                                                          \
    do {                                                                                   \
        snprintf(what, sizeof what, "chunks of %d, %d slots, K kept %d, %s", mc, pc[0],    \
                 pc[1], name);                                                             \
        BOTH(gala_qp_solve(a), gala_qp_solve(b));                                          \
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, what);                                   \
    } while (0)
        STEP("first solve");
        BOTH(gala_qp_update_vectors(a, -1, u.q, u.l, u.u), gala_qp_update_vectors(b, -1, u.q, u.l, u.u));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, "after update_vectors(-1)"); /* QP 6 invalid now */
        STEP("vectors of all");
        BOTH(gala_qp_update_vectors(a, 6, pb[6].q, NULL, NULL), gala_qp_update_vectors(b, 6, pb[6].q, NULL, NULL));
        BOTH(gala_qp_update_vectors(a, 12, NULL, pb[12].l, NULL), gala_qp_update_vectors(b, 12, NULL, pb[12].l, NULL));
        STEP("vectors of one");
        /* warm start of one QP, then of all from the last solution, perturbed */
        TU_OK(NULL, gala_qp_get_solutions(a, xs, ys));
        for (size_t i = 0; i < qo[B] + bo[B]; ++i) xs[i] = isfinite(xs[i]) ? xs[i] * 0.9 + 0.01 : 0;
        BOTH(gala_qp_warm_start(a, 8, xs + qo[8], ys + bo[8]), gala_qp_warm_start(b, 8, xs + qo[8], ys + bo[8]));
        STEP("warm start of one");
        BOTH(gala_qp_warm_start(a, -1, xs, NULL), gala_qp_warm_start(b, -1, xs, NULL));
        STEP("warm start of all");
        BOTH(gala_qp_update_matrices(a, -1, u.Px, u.Ax), gala_qp_update_matrices(b, -1, u.Px, u.Ax));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, "after update_matrices(-1)");
        STEP("matrices of all");
        BOTH(gala_qp_update_matrices(a, 9, NULL, pb[9].A.x), gala_qp_update_matrices(b, 9, NULL, pb[9].A.x));
        BOTH(gala_qp_update_rho(a, 13, 0.7), gala_qp_update_rho(b, 13, 0.7));
        STEP("matrix of one, rho of one");
        BOTH(gala_qp_update_rho(a, -1, 0.05), gala_qp_update_rho(b, -1, 0.05));
        BOTH(gala_qp_cold_start(a), gala_qp_cold_start(b));
        STEP("rho of all, cold start");
        gala_qp_settings s2, s2b;
        TU_OK(NULL, gala_qp_get_settings(b, &s2b));
        TU_ASSERT(s2b.max_chunk == mc && s2b.linsys_solver == GALA_QP_LINSYS_AUTO, _i, "settings");
        TU_OK(NULL, gala_qp_get_settings(a, &s2));
        s2.eps_abs = s2.eps_rel = s.dtype == GALA_FLOAT ? 1e-4 : 1e-5;
        s2.warm_starting = 0;
        s2.check_termination = 10;
        s2b = s2;
        s2b.max_chunk = mc;
        BOTH(gala_qp_update_settings(a, &s2), gala_qp_update_settings(b, &s2b));
        STEP("new settings");
        s2b.max_chunk = mc + 1; /* fixed at setup */
        TU_ASSERT(gala_qp_update_settings(b, &s2b) == GALA_ERR_INVALID_ARG, _i, "max_chunk changed");
        TU_ASSERT(strstr(gala_last_error(ctx), "max_chunk") != NULL, _i, "message: %s", gala_last_error(ctx));
        /* bad arguments: the batch's indices */
        TU_ASSERT(gala_qp_update_vectors(b, B, u.q, NULL, NULL) == GALA_ERR_INVALID_ARG, _i, "k = B");
        TU_ASSERT(strstr(gala_last_error(ctx), "-1..22") != NULL, _i, "message: %s", gala_last_error(ctx));
        u.Px[3] = INFINITY;
        TU_ASSERT(gala_qp_update_matrices(b, -1, u.Px, NULL) == GALA_ERR_NOT_FINITE, _i, "Inf in P");
        TU_ASSERT(strstr(gala_last_error(ctx), "QP ") != NULL, _i, "message: %s", gala_last_error(ctx));
        u.Px[3] = 1;
        TU_ASSERT(gala_qp_update_rho(b, 2, -1) == GALA_ERR_INVALID_ARG, _i, "rho < 0");
        /* the failed calls changed nothing */
        STEP("after refused calls");
#undef STEP
        gala_qp_destroy(a);
        gala_qp_destroy(b);
    }
    free(xs);
    free_updates(&u);
    qp_free_batch(pb, B);
}
END_TEST

/* The shared strategy (every QP has P and A of the reference): in chunks after the
 * reference's, the reference rides along hidden and gives the chunk its scaling; the
 * reference's vectors change before a matrix update, which scales from them again. QP 0 is
 * invalid, so the reference is QP 1; a QP whose row kinds differ becomes invalid. */
START_TEST(chunked_shared_matrices)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 20 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_double_integrator(6, 4 * tu_uniform(&r) - 2, 2 * tu_uniform(&r) - 1, &pb[k]));
    pb[0].q[0] = NAN;
    const int n = pb[1].n, m = pb[1].m;
    double *q = malloc(sizeof(double) * (size_t)(n * B)), *l = malloc(sizeof(double) * (size_t)(m * B));
    double *uu = malloc(sizeof(double) * (size_t)(m * B));
    const int pnz = pb[1].P.p[n], anz = pb[1].A.p[n];
    double *Px = malloc(sizeof(double) * (size_t)(pnz * B)), *Ax = malloc(sizeof(double) * (size_t)(anz * B));
    for (int k = 0; k < B; ++k) {
        for (int j = 0; j < n; ++j) q[k * n + j] = 3 * tu_normal(&r) + 4; /* its norm sets c */
        memcpy(l + k * m, pb[k].l, sizeof(double) * (size_t)m);
        memcpy(uu + k * m, pb[k].u, sizeof(double) * (size_t)m);
    }
    for (int k = 0; k < B - 1; ++k) { /* the valid QPs' values: the same in every QP */
        for (int e = 0; e < pnz; ++e) Px[k * pnz + e] = pb[1].P.x[e] * 1.5;
        memcpy(Ax + k * anz, pb[1].A.x, sizeof(double) * (size_t)anz);
    }
    for (int v = 0; v < 2; ++v) {
        const int mc = v == 0 ? 1 : 3;
        gala_qp_settings s = settings_for(_i);
        gala_qp_solver *a, *b;
        TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
        TU_ASSERT(gala_qp_linsys_used(a) == GALA_QP_LINSYS_DENSE_SHARED, _i, "not shared");
        b = setup_chunked(_i, ctx, pb, B, s, mc, 0, (B + mc - 1) / mc);
        TU_ASSERT(gala_qp_linsys_used(b) == GALA_QP_LINSYS_DENSE_SHARED, _i, "chunks not shared");
        char what[96];
        snprintf(what, sizeof what, "shared, chunks of %d", mc);
        BOTH(gala_qp_solve(a), gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, what);
        /* the reference's q and every QP's q; then a matrix update scales from them */
        BOTH(gala_qp_update_vectors(a, 1, q + n, NULL, NULL), gala_qp_update_vectors(b, 1, q + n, NULL, NULL));
        BOTH(gala_qp_update_vectors(a, -1, q, NULL, NULL), gala_qp_update_vectors(b, -1, q, NULL, NULL));
        BOTH(gala_qp_update_matrices(a, -1, Px, Ax), gala_qp_update_matrices(b, -1, Px, Ax));
        BOTH(gala_qp_solve(a), gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, "shared: new q, P");
        /* row kinds: an equality in QP 5 makes it invalid (the kinds are the batch's) */
        const double keep = uu[5 * m + 2];
        uu[5 * m + 2] = l[5 * m + 2] = isfinite(l[5 * m + 2]) ? l[5 * m + 2] : 0;
        BOTH(gala_qp_update_vectors(a, -1, NULL, l, uu), gala_qp_update_vectors(b, -1, NULL, l, uu));
        BOTH(gala_qp_solve(a), gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, "shared: a QP's kinds differ");
        uu[5 * m + 2] = keep;
        l[5 * m + 2] = pb[5].l[2];
        BOTH(gala_qp_update_vectors(a, 5, NULL, l + 5 * m, uu + 5 * m),
             gala_qp_update_vectors(b, 5, NULL, l + 5 * m, uu + 5 * m));
        BOTH(gala_qp_update_rho(a, -1, 1.0), gala_qp_update_rho(b, -1, 1.0));
        BOTH(gala_qp_solve(a), gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, "shared: kinds back, rho");
        /* shared: only every QP at once, and the same values in each */
        TU_ASSERT(gala_qp_update_matrices(b, 2, Px, NULL) == GALA_ERR_INVALID_ARG, _i, "k >= 0");
        Px[7 * pnz] += 1;
        TU_ASSERT(gala_qp_update_matrices(b, -1, Px, NULL) == GALA_ERR_INVALID_ARG, _i, "differ");
        TU_ASSERT(strstr(gala_last_error(ctx), "QP 8 differs") != NULL, _i, "%s", gala_last_error(ctx));
        Px[7 * pnz] -= 1;
        gala_qp_destroy(a);
        gala_qp_destroy(b);
    }
    free(q);
    free(l);
    free(uu);
    free(Px);
    free(Ax);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* The sparse LDLᵀ and PCG strategies, and AUTO's sparse choice (qp.sparse_n lowered), in
 * chunks. */
START_TEST(chunked_sparse_and_pcg)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 9 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_generate(k % 2 ? GALA_QP_GEN_CONTROL : GALA_QP_GEN_RANDOM, 3 + k % 3,
                                     (uint64_t)tu_int(&r, 1, 100000), &pb[k]));
    const char *old = getenv("GALA_TUNE");
    char *keep = old ? strdup(old) : NULL;
    for (int v = 0; v < 3; ++v) {
        gala_qp_settings s = settings_for(_i);
        s.linsys_solver = v == 0 ? GALA_QP_LINSYS_SPARSE_LDLT : (v == 1 ? GALA_QP_LINSYS_PCG : GALA_QP_LINSYS_AUTO);
        if (v == 2) setenv("GALA_TUNE", "qp.sparse_n=1", 1);
        gala_qp_solver *a = NULL, *b;
        gala_status st = gala_qp_setup(ctx, pb, B, &s, &a);
        if (st == GALA_ERR_NOT_SUPPORTED) continue; /* no SuiteSparse AMD in this build */
        TU_OK(ctx, st);
        b = setup_chunked(_i, ctx, pb, B, s, 2, 0, 5);
        TU_ASSERT(gala_qp_linsys_used(a) == gala_qp_linsys_used(b), _i, "strategies %d and %d",
                  gala_qp_linsys_used(a), gala_qp_linsys_used(b));
        char what[64];
        snprintf(what, sizeof what, "%s", gala_qp_linsys_name(gala_qp_linsys_used(a)));
        BOTH(gala_qp_solve(a), gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, what);
        double q4[64];
        for (int j = 0; j < pb[4].n && j < 64; ++j) q4[j] = 1.3 * pb[4].q[j] + 0.1;
        BOTH(gala_qp_update_vectors(a, 4, q4, NULL, NULL), gala_qp_update_vectors(b, 4, q4, NULL, NULL));
        BOTH(gala_qp_update_rho(a, -1, 0.3), gala_qp_update_rho(b, -1, 0.3));
        BOTH(gala_qp_solve(a), gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, what);
        gala_qp_destroy(a);
        gala_qp_destroy(b);
    }
    if (keep) setenv("GALA_TUNE", keep, 1);
    else unsetenv("GALA_TUNE");
    free(keep);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* Vectors in device memory: every QP's q, l, u and warm start from the caller's buffers,
 * the solutions into them, the chunks' ranges of them at their offsets. */
START_TEST(chunked_device_vectors)
{
    gala_context *ctx = tu_ctx(_i);
    const gala_dtype dt = tu_target_get(_i)->dtype;
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 17 };
    gala_qp_problem pb[B];
    qp_mixed_batch(&r, pb, B, 2);
    int valid[B];
    for (int k = 0; k < B; ++k) valid[k] = k != 2 && k != B / 2;
    upd_arrays u = make_updates(&r, pb, B, valid);
    size_t nx = 0, ny = 0;
    for (int k = 0; k < B; ++k) {
        nx += (size_t)pb[k].n;
        ny += (size_t)pb[k].m;
    }
    /* values the dtype holds exactly, so that both solvers read the same */
    tu_round(dt, u.q, nx);
    tu_round(dt, u.l, ny);
    tu_round(dt, u.u, ny);
    gala_buffer *bq = tu_upload(ctx, dt, u.q, nx), *bl = tu_upload(ctx, dt, u.l, ny);
    gala_buffer *bu = tu_upload(ctx, dt, u.u, ny);
    gala_buffer *xa = tu_poisoned(ctx, dt, nx + 3), *xb = tu_poisoned(ctx, dt, nx + 3);
    gala_buffer *ya = tu_poisoned(ctx, dt, ny), *yb = tu_poisoned(ctx, dt, ny);
    gala_qp_settings s = settings_for(_i);
    gala_qp_solver *a, *b;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
    b = setup_chunked(_i, ctx, pb, B, s, 4, 0, 5);
    BOTH(gala_qp_solve(a), gala_qp_solve(b));
    BOTH(gala_qp_update_vectors_device(a, bq, 0, bl, 0, bu, 0), gala_qp_update_vectors_device(b, bq, 0, bl, 0, bu, 0));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "after update_vectors_device");
    BOTH(gala_qp_solve(a), gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "device vectors");
    BOTH(gala_qp_get_solution_device(a, xa, 3, ya, 0), gala_qp_get_solution_device(b, xb, 3, yb, 0));
    BOTH(gala_qp_warm_start_device(a, xa, 3, ya, 0), gala_qp_warm_start_device(b, xa, 3, ya, 0));
    BOTH(gala_qp_solve(a), gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "device warm start");
    double *ha = malloc(sizeof(double) * (nx + ny + 3)), *hb = malloc(sizeof(double) * (nx + ny + 3));
    tu_download(xa, 0, ha, nx + 3);
    tu_download(xb, 0, hb, nx + 3);
    tu_download(ya, 0, ha + nx + 3, ny);
    tu_download(yb, 0, hb + nx + 3, ny);
    TU_ASSERT(qp_same_bits(ha, hb, nx + ny + 3), _i, "device solutions differ");
    /* a buffer too small for the batch: the batch's sizes in the message */
    TU_ASSERT(gala_qp_update_vectors_device(b, bq, 1, NULL, 0, NULL, 0) == GALA_ERR_INVALID_ARG, _i,
              "q too short");
    free(ha);
    free(hb);
    gala_buffer *bufs[] = {bq, bl, bu, xa, xb, ya, yb};
    for (int i = 0; i < 7; ++i) gala_buffer_free(bufs[i]);
    gala_qp_destroy(a);
    gala_qp_destroy(b);
    free_updates(&u);
    qp_free_batch(pb, B);
}
END_TEST

/* ------------------------------------------------------------------ many QPs */

/* A few thousand small QPs in chunks of odd sizes, and a few hundred, each its own chunk. */
START_TEST(chunked_many_small)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    /* on a slow device 600 QPs with the byte limit scaled alike (still about 7 chunks of
     * uneven sizes) and 40 QPs each in its own chunk: every chunk costs a setup and a
     * solve's launches, about a millisecond each on Mesa's llvmpipe */
    const int B = tu_size(2500, 600, "chunked_many_small: QPs");
    const int B1 = tu_size(300, 40, "chunked_many_small: QPs in chunks of one");
    gala_qp_problem *pb = malloc(sizeof *pb * (size_t)B);
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_generate(k % 3 ? GALA_QP_GEN_CONTROL : GALA_QP_GEN_RANDOM, 2,
                                     (uint64_t)tu_int(&r, 1, 1000000), &pb[k]));
    gala_qp_settings s = settings_for(_i);
    gala_qp_solver *a, *b;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
    TU_OK(ctx, gala_qp_solve(a));
    /* about 7 chunks, whose sizes the bytes decide, one after another (qp.chunk_slots = 1);
     * pipelined, two on the device at once, each in half the room: about twice as many */
    const double limit = (s.dtype == GALA_FLOAT ? 3e6 : 5.5e6) * B / 2500;
    long slots;
    TU_OK(ctx, gala_tune_get(ctx, "qp.chunk_slots", s.dtype, &slots));
    TU_OK(ctx, gala_tune_set(ctx, "qp.chunk_slots", s.dtype, 1));
    b = setup_chunked(_i, ctx, pb, B, s, 0, limit, 0);
    TU_OK(ctx, gala_tune_set(ctx, "qp.chunk_slots", s.dtype, slots));
    const int nc = gala_qp_chunk_count(b);
    TU_ASSERT(nc >= 4 && nc <= 12, _i, "%d chunks", nc);
    TU_OK(ctx, gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "by bytes");
    gala_qp_destroy(b);
    TU_OK(ctx, gala_tune_set(ctx, "qp.chunk_slots", s.dtype, 2));
    b = setup_chunked(_i, ctx, pb, B, s, 0, limit, 0);
    TU_OK(ctx, gala_tune_set(ctx, "qp.chunk_slots", s.dtype, slots));
    const int nc2 = gala_qp_chunk_count(b);
    TU_ASSERT(nc2 >= 2 * nc - 2 && nc2 <= 2 * nc + 2, _i, "%d chunks for two slots, %d for one", nc2, nc);
    if (getenv("GALA_TEST_VERBOSE"))
        fprintf(stderr, "chunked_many_small [%s]: %d chunks, %d pipelined\n", tu_target_get(_i)->name,
                nc, nc2);
    TU_OK(ctx, gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "by bytes, pipelined");
    gala_qp_destroy(b);
    gala_qp_destroy(a);
    TU_OK(ctx, gala_qp_setup(ctx, pb, B1, &s, &a));
    TU_OK(ctx, gala_qp_solve(a));
    b = setup_chunked(_i, ctx, pb, B1, s, 1, 0, B1);
    TU_OK(ctx, gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B1, 1, 0, 0, "each its own chunk");
    gala_qp_destroy(b);
    gala_qp_destroy(a);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
    free(pb);
}
END_TEST

/* ------------------------------------------------------------------ faults */

/* The QPs a failed chunked solve left: each either has the reference's result or (the
 * failed chunk's) is UNSOLVED without a solution; the failed ones are one chunk exactly.
 * Returns that chunk (-1: none failed). */
static int check_partial(int target, gala_qp_solver *a, gala_qp_solver *b,
                         const gala_qp_problem *pb, int count, int mc, const char *what)
{
    int lo = count, hi = -1;
    for (int k = 0; k < count; ++k) {
        gala_qp_info ia, ib;
        const double *xa, *xb;
        TU_OK(NULL, gala_qp_get_info(a, k, &ia));
        TU_OK(NULL, gala_qp_get_info(b, k, &ib));
        TU_OK(NULL, gala_qp_get_solution(a, k, &xa, NULL, NULL, NULL));
        TU_OK(NULL, gala_qp_get_solution(b, k, &xb, NULL, NULL, NULL));
        if (ib.status == GALA_QP_UNSOLVED) {
            TU_ASSERT(isnan(xb[0]), target, "%s: QP %d UNSOLVED with a solution", what, k);
            if (k < lo) lo = k;
            hi = k;
            continue;
        }
        TU_ASSERT(ia.status == ib.status && ia.iter == ib.iter &&
                      qp_same_bits(xa, xb, (size_t)pb[k].n),
                  target, "%s: QP %d: %s after %d against %s after %d", what, k,
                  gala_qp_status_string(ia.status), ia.iter, gala_qp_status_string(ib.status), ib.iter);
    }
    if (hi < 0) return -1;
    TU_ASSERT(lo / mc == hi / mc, target, "%s: QPs %d..%d UNSOLVED: more than one chunk", what, lo, hi);
    return lo / mc;
}

/* One injected fault in a chunked solve of the batch (chunks of mc QPs, the context's
 * pipeline): the n-th operation of its kind fails. Returns the chunk whose QPs were marked
 * UNSOLVED, after checking the call's status and message, the other chunks' results, that
 * the solver still solves (to a2's results, a2 having solved twice as b then does) and that
 * nothing leaked; -1 when the solve absorbed the fault or did not reach it, -2 when the
 * fault was past the solve's last operation of that kind. */
static int fault_trial(int target, gala_context *ctx, gala_qp_solver *a, gala_qp_solver *a2,
                       const gala_qp_problem *pb, int count, int mc, gala_qp_settings s,
                       gala_fault_kind kind, const char *kname, int n, const int *pc,
                       const gala_stats *st0)
{
    gala_qp_solver *b = setup_chunked(target, ctx, pb, count, s, mc, 0, count / mc);
    gala_fault_arm(kind, n);
    gala_status st = gala_qp_solve(b);
    const long pending = gala_fault_pending(kind);
    gala_fault_arm(kind, 0);
    char what[64];
    snprintf(what, sizeof what, "%d slots, K kept %d: %s fault %d", pc[0], pc[1], kname, n);
    if (st == GALA_OK) { /* not reached (or a failure the solve may absorb) */
        qp_same_results(target, a, b, pb, count, 1, 0, 0, what);
        gala_qp_destroy(b);
        return pending > 0 ? -2 : -1;
    }
    TU_ASSERT(st == (kind == GALA_FAULT_ALLOC ? GALA_ERR_DEVICE_MEMORY : GALA_ERR_DEVICE), target,
              "%s: status %s", what, gala_status_string(st));
    const char *msg = gala_last_error(ctx);
    TU_ASSERT(strstr(msg, "gala_qp_solve: chunk ") && strstr(msg, "injected"), target,
              "%s: message '%s'", what, msg);
    const int c = check_partial(target, a, b, pb, count, mc, what);
    TU_ASSERT(c >= 0, target, "%s: no QP marked UNSOLVED", what);
    char want[32];
    snprintf(want, sizeof want, "chunk %d of %d", c, count / mc);
    TU_ASSERT(strstr(msg, want) != NULL, target, "%s: '%s' does not name %s", what, msg, want);
    /* still usable */
    TU_OK(ctx, gala_qp_update_rho(b, -1, s.rho));
    TU_OK(ctx, gala_qp_cold_start(b));
    TU_OK(ctx, gala_qp_solve(b));
    qp_same_results(target, a2, b, pb, count, 1, 0, 0, what);
    gala_qp_destroy(b);
    gala_stats st1;
    TU_OK(ctx, gala_context_stats(ctx, &st1));
    TU_ASSERT(st1.buffers_live == st0->buffers_live && st1.bytes_live == st0->bytes_live, target,
              "%s: %ld buffers (%zu bytes) live, %ld (%zu) before", what, st1.buffers_live,
              st1.bytes_live, st0->buffers_live, st0->bytes_live);
    return c;
}

/* A fault at every allocation, launch and transfer of a chunked solve in turn (on OpenCL
 * every 7th): the call fails with the fault's status and a message naming the chunk and
 * "injected"; the other chunks' QPs have their results; after ρ and the iterates are set
 * back (gala_qp_update_rho, gala_qp_cold_start) the same solver solves again to the
 * unchunked solver's results, bit for bit; nothing is left when it is destroyed. A fault
 * lands in every chunk: pipelined, two threads share the fault counters, so which chunk the
 * n-th operation belongs to depends on timing, and where every 7th missed a chunk (seen on
 * Mesa's llvmpipe under load) the operations in between are tried until one lands there.
 * Then faults during a chunked setup. */
START_TEST(chunked_faults)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 9, MC = 3 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, 2 + k % 2, (uint64_t)tu_int(&r, 1, 100000), &pb[k]));
    gala_qp_settings s = settings_for(_i);
    gala_qp_solver *a, *a2;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
    TU_OK(ctx, gala_qp_solve(a));
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a2)); /* solve, ρ and iterates back, solve */
    TU_OK(ctx, gala_qp_solve(a2));
    TU_OK(ctx, gala_qp_update_rho(a2, -1, s.rho));
    TU_OK(ctx, gala_qp_cold_start(a2));
    TU_OK(ctx, gala_qp_solve(a2));
    gala_stats st0;
    TU_OK(ctx, gala_context_stats(ctx, &st0));
    const gala_fault_kind kinds[] = {GALA_FAULT_ALLOC, GALA_FAULT_LAUNCH, GALA_FAULT_TRANSFER};
    const char *kname[] = {"alloc", "launch", "transfer"};
    const int step = is_opencl(_i) ? 7 : 1;
    for (int v = 0; v < 2; ++v) { /* pipelined with K dropped; one after another, K kept */
        const int *pc = pipe_cfgs[v];
        const pipe_cfg was = pipe_set(ctx, s.dtype, pc[0], pc[1]);
        int failed_in[B / MC] = {0};
        for (int kk = 0; kk < 3; ++kk) {
            int fails = 0;
            for (int n = 1 + (kk % step); n < 100000; n += step) {
                const int c = fault_trial(_i, ctx, a, a2, pb, B, MC, s, kinds[kk], kname[kk], n, pc, &st0);
                if (c == -2) break;
                if (c >= 0) {
                    ++fails;
                    failed_in[c]++;
                }
            }
            TU_ASSERT(fails >= 3, _i, "%s: only %d injected failures were met", kname[kk], fails);
            if (getenv("GALA_TEST_VERBOSE"))
                fprintf(stderr, "chunked_faults [%s]: %d %s faults\n", tu_target_get(_i)->name, fails,
                        kname[kk]);
        }
        int missed = 0;
        for (int c = 0; c < B / MC; ++c) missed += failed_in[c] == 0;
        for (int kk = 0; kk < 3 && missed > 0; ++kk) /* the operations the sweep stepped over */
            for (int n = 1; n < 100000 && missed > 0; ++n) {
                if (n % step == (1 + kk % step) % step) continue;
                const int c = fault_trial(_i, ctx, a, a2, pb, B, MC, s, kinds[kk], kname[kk], n, pc, &st0);
                if (c == -2) break;
                if (c >= 0 && failed_in[c]++ == 0) --missed;
            }
        for (int c = 0; c < B / MC; ++c)
            TU_ASSERT(failed_in[c] > 0, _i, "%d slots, K kept %d: no fault landed in chunk %d",
                      pc[0], pc[1], c);
        /* faults during a chunked setup: a clean failure, nothing kept */
        s.max_chunk = MC;
        for (int kk = 0; kk < 3; ++kk) {
            for (int n = 1; n < 100000; n += 3 * step) {
                gala_qp_solver *b = NULL;
                gala_fault_arm(kinds[kk], n);
                gala_status st = gala_qp_setup(ctx, pb, B, &s, &b);
                gala_fault_arm(kinds[kk], 0);
                if (st == GALA_OK) {
                    gala_qp_destroy(b);
                    break;
                }
                TU_ASSERT(b == NULL && strstr(gala_last_error(ctx), "injected"), _i,
                          "setup, %s fault %d: %s", kname[kk], n, gala_last_error(ctx));
                gala_stats st1;
                TU_OK(ctx, gala_context_stats(ctx, &st1));
                TU_ASSERT(st1.buffers_live == st0.buffers_live, _i, "setup, %s fault %d: %ld buffers",
                          kname[kk], n, st1.buffers_live);
            }
        }
        s.max_chunk = 0;
        pipe_restore(was);
    }
    gala_qp_destroy(a);
    gala_qp_destroy(a2);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

/* ------------------------------------------------------------------ the call's limits */

static int stop_at_first(void *user, int done, int total, int it)
{
    int *calls = user;
    (void)it;
    ck_assert(done >= 0 && done <= total);
    return ++*calls >= 1;
}

/* A stop asked for by the progress callback, and the time limit, stop the later chunks
 * too; the settings are checked; the profile adds up the chunks'. */
START_TEST(chunked_limits_and_settings)
{
    gala_context *ctx = tu_ctx(_i);
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 12 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, 4, (uint64_t)tu_int(&r, 1, 100000), &pb[k]));
    gala_qp_settings s = settings_for(_i);
    s.eps_abs = s.eps_rel = 1e-9; /* nothing stops early */
    int calls = 0;
    s.progress = stop_at_first;
    s.progress_user = &calls;
    gala_qp_solver *b = setup_chunked(_i, ctx, pb, B, s, 5, 0, 3);
    TU_OK(ctx, gala_qp_solve(b));
    for (int k = 0; k < B; ++k) {
        gala_qp_info in;
        TU_OK(ctx, gala_qp_get_info(b, k, &in));
        TU_ASSERT(in.status == GALA_QP_INTERRUPTED, _i, "QP %d: %s", k, gala_qp_status_string(in.status));
    }
    TU_ASSERT(calls == 1, _i, "%d calls of the callback", calls);
    gala_qp_destroy(b);
    s.progress = NULL;
    s.time_limit = 1e-7;
    s.profile = 1;
    b = setup_chunked(_i, ctx, pb, B, s, 5, 0, 3);
    TU_OK(ctx, gala_qp_solve(b));
    for (int k = 0; k < B; ++k) {
        gala_qp_info in;
        TU_OK(ctx, gala_qp_get_info(b, k, &in));
        TU_ASSERT(in.status == GALA_QP_TIME_LIMIT_REACHED, _i, "QP %d: %s", k, gala_qp_status_string(in.status));
    }
    gala_qp_profile pr;
    TU_OK(ctx, gala_qp_get_profile(b, &pr));
    TU_ASSERT(pr.enabled && pr.calls[GALA_QP_PHASE_ITERATE] >= 3 && pr.seconds[GALA_QP_PHASE_UPLOAD] > 0,
              _i, "profile: %d iterate calls", pr.calls[GALA_QP_PHASE_ITERATE]);
    gala_qp_destroy(b);
    /* the settings: checked as every setting is */
    gala_qp_settings bad = settings_for(_i);
    bad.device_mem_limit = -1;
    TU_ASSERT(gala_qp_setup(ctx, pb, B, &bad, &b) == GALA_ERR_INVALID_ARG && b == NULL, _i, "limit < 0");
    TU_ASSERT(strstr(gala_last_error(ctx), "device_mem_limit") != NULL, _i, "%s", gala_last_error(ctx));
    bad.device_mem_limit = 0;
    bad.max_chunk = -3;
    TU_ASSERT(gala_qp_setup(ctx, pb, B, &bad, &b) == GALA_ERR_INVALID_ARG && b == NULL, _i, "max_chunk < 0");
    TU_ASSERT(strstr(gala_last_error(ctx), "max_chunk") != NULL, _i, "%s", gala_last_error(ctx));
    /* a limit the whole batch fits: one chunk */
    bad.max_chunk = 0;
    bad.device_mem_limit = 1e15;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &bad, &b));
    TU_ASSERT(gala_qp_chunk_count(b) == 1, _i, "%d chunks under 1e15 bytes", gala_qp_chunk_count(b));
    gala_qp_destroy(b);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qp_chunk");
    TCase *tc = tcase_create("chunks");
    tcase_set_timeout(tc, 0);
    const int nt = tu_target_count();
    tcase_add_loop_test(tc, chunked_equals_unchunked, 0, nt);
    tcase_add_loop_test(tc, chunked_polish_and_all_invalid, 0, nt);
    tcase_add_loop_test(tc, chunked_updates_and_warm_starts, 0, nt);
    tcase_add_loop_test(tc, chunked_shared_matrices, 0, nt);
    tcase_add_loop_test(tc, chunked_sparse_and_pcg, 0, nt);
    tcase_add_loop_test(tc, chunked_device_vectors, 0, nt);
    tcase_add_loop_test(tc, chunked_many_small, 0, nt);
    tcase_add_loop_test(tc, chunked_faults, 0, nt);
    tcase_add_loop_test(tc, chunked_limits_and_settings, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
