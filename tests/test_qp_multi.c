/* One batch on several devices (gala_qp_setup_devices; src/qp/chunk.c), with extra
 * contexts of the target's backend standing in for devices: the batch is divided by work
 * (Σ n², in proportion to the weights) into consecutive shares, each solved on its own
 * thread, and every result must equal the one-context solve's bit for bit (statuses,
 * iterations, x, y, certificates, objectives, residuals, ρ, messages), NaN-poisoned
 * outputs filled: mixed batches, shares of one QP, more devices than QPs, chunks within a
 * device's share, shared matrices, updates and warm starts after a multi-device solve, the
 * progress callback. A fault injected in one device's part gives a clear status naming the
 * device, UNSOLVED QPs in that device's share only, the others' results, and a solver that
 * solves again. Bad arguments are refused by name. A host context and an OpenCL one
 * together solve to the host's answers within tolerance. Seeded inputs (GALA_TEST_SEED). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "testutil.h"
#include "qp_build.h"
#include "qp_compare.h"
#include "qp_mixed.h"

enum { MAXDEV = 3 };

static gala_qp_settings settings_for(int target)
{
    gala_qp_settings s;
    gala_qp_settings_default(&s);
    s.dtype = tu_target_get(target)->dtype;
    return s;
}

/* devs[0] is the target's context; devs[1 ..] new contexts of its backend (one host thread
 * each on the host backend: the machine's cores are few). On CUDA, context d is on GPU
 * d mod the GPUs there are (several GPUs: each its share); elsewhere on the target's
 * device. */
static void make_devices(int target, gala_context **devs, int n)
{
    devs[0] = tu_ctx(target);
    const gala_backend b = tu_target_get(target)->backend;
    int all = 0, ncuda = 0;
    gala_device_desc descs[32];
    TU_OK(NULL, gala_device_list(descs, 32, &all));
    for (int i = 0; i < all && i < 32; ++i) ncuda += descs[i].backend == GALA_BACKEND_CUDA;
    for (int d = 1; d < n; ++d) {
        gala_context_options o;
        gala_context_options_default(&o);
        o.backend = b;
        o.host_threads = 1;
        char dev[16];
        if (b == GALA_BACKEND_CUDA && ncuda > 1) {
            snprintf(dev, sizeof dev, "%d", d % ncuda);
            o.device = dev;
            o.use_environment = 0;
        }
        TU_OK(NULL, gala_context_create(&o, &devs[d]));
    }
}

static void free_devices(gala_context **devs, int n)
{
    for (int d = 1; d < n; ++d) gala_context_destroy(devs[d]);
}

/* A QP's work as the division counts it: n², 1 for a rejected QP (here: NaN in q). */
static double qp_work(const gala_qp_problem *p)
{
    for (int j = 0; j < p->n; ++j)
        if (!isfinite(p->q[j])) return 1;
    return (double)p->n * p->n;
}

/* The shares: consecutive, covering the batch, device d's work (Σ n² of its valid QPs)
 * returned in work[d]. */
static void check_shares(int target, gala_qp_solver *b, int ndev, const gala_qp_problem *pb,
                         int count, double *work, const char *what)
{
    TU_ASSERT(gala_qp_device_count(b) == ndev, target, "%s: %d devices, want %d", what,
              gala_qp_device_count(b), ndev);
    int next = 0;
    for (int d = 0; d < ndev; ++d) {
        int k0 = -1, n = -1, nc = -1;
        TU_OK(NULL, gala_qp_device_share(b, d, &k0, &n, &nc));
        TU_ASSERT(k0 == next && n >= 0 && (n == 0) == (nc == 0), target,
                  "%s: device %d: QPs %d + %d in %d chunks after QP %d", what, d, k0, n, nc, next);
        next = k0 + n;
        work[d] = 0;
        for (int k = k0; k < k0 + n; ++k) work[d] += qp_work(&pb[k]);
    }
    TU_ASSERT(next == count, target, "%s: the shares end at QP %d of %d", what, next, count);
}

/* ------------------------------------------------------------------ equal results */

/* The mixed batch of 41 QPs (QP 0 and QP 20 rejected) on 2 and 3 devices, with equal and
 * unequal weights, and with chunks of 4 QPs within each device's share; one QP and two QPs
 * on three devices (devices without QPs). */
START_TEST(multi_equals_one)
{
    gala_context *devs[MAXDEV];
    make_devices(_i, devs, MAXDEV);
    gala_context *ctx = devs[0];
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 41 };
    gala_qp_problem pb[B];
    qp_mixed_batch(&r, pb, B, 0);
    gala_qp_settings s = settings_for(_i);
    s.max_iter = 600;
    gala_qp_solver *a;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
    TU_ASSERT(gala_qp_device_count(a) == 1 && gala_qp_device_count(NULL) == 0, _i, "device counts");
    int k0, n, nc;
    TU_OK(NULL, gala_qp_device_share(a, 0, &k0, &n, &nc));
    TU_ASSERT(k0 == 0 && n == B && nc == 1, _i, "one device: %d + %d in %d chunks", k0, n, nc);
    TU_OK(ctx, gala_qp_solve(a));
    const double w13[] = {1, 3}, w211[] = {2, 1, 1};
    struct { int ndev; const double *w; int max_chunk; } v[] = {
        {2, NULL, 0}, {3, NULL, 0}, {2, w13, 0}, {3, w211, 4}, {1, NULL, 0}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; ++i) {
        char what[96];
        snprintf(what, sizeof what, "%d devices%s%s", v[i].ndev, v[i].w ? ", weighted" : "",
                 v[i].max_chunk ? ", chunks of 4" : "");
        gala_qp_settings sb = s;
        sb.max_chunk = v[i].max_chunk;
        gala_qp_solver *b = NULL;
        TU_OK(ctx, gala_qp_setup_devices(devs, v[i].ndev, v[i].w, pb, B, &sb, &b));
        double work[MAXDEV];
        check_shares(_i, b, v[i].ndev, pb, B, work, what);
        TU_ASSERT(gala_qp_linsys_used(b) == gala_qp_linsys_used(a), _i, "%s: strategy %d", what,
                  gala_qp_linsys_used(b));
        /* each boundary as near its share of the work as one QP allows: device d's work up
         * to it within half the largest QP's of its target */
        double total = 0, wsum = 0, wmax = 0, done = 0, wc = 0;
        for (int k = 0; k < B; ++k) {
            total += qp_work(&pb[k]);
            wmax = fmax(wmax, qp_work(&pb[k]));
        }
        for (int d = 0; d < v[i].ndev; ++d) wsum += v[i].w ? v[i].w[d] : 1;
        for (int d = 0; d < v[i].ndev - 1; ++d) {
            done += work[d];
            wc += v[i].w ? v[i].w[d] : 1;
            TU_ASSERT(fabs(done - total * wc / wsum) <= wmax / 2, _i, "%s: work up to device %d: "
                      "%g, target %g (largest QP %g)", what, d, done, total * wc / wsum, wmax);
        }
        if (v[i].max_chunk)
            TU_ASSERT(gala_qp_chunk_count(b) >= B / 4, _i, "%s: %d chunks", what,
                      gala_qp_chunk_count(b));
        gala_qp_solver *a0;
        TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a0));
        qp_same_results(_i, a0, b, pb, B, 0, 0, 0, what); /* what setup found */
        gala_qp_destroy(a0);
        TU_OK(ctx, gala_qp_solve(b));
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, what);
        gala_qp_profile pa, pbp;
        TU_OK(NULL, gala_qp_get_profile(b, &pbp));
        TU_OK(NULL, gala_qp_get_profile(a, &pa));
        gala_qp_destroy(b);
    }
    gala_qp_destroy(a);
    /* one QP, two QPs (a valid and an invalid one) on three devices */
    gala_qp_problem two[2] = {pb[2], pb[0]};
    for (int cnt = 1; cnt <= 2; ++cnt) {
        gala_qp_problem *p = cnt == 1 ? &pb[3] : two;
        TU_OK(ctx, gala_qp_setup(ctx, p, cnt, &s, &a));
        TU_OK(ctx, gala_qp_solve(a));
        gala_qp_solver *b = NULL;
        TU_OK(ctx, gala_qp_setup_devices(devs, 3, NULL, p, cnt, &s, &b));
        double work[MAXDEV];
        check_shares(_i, b, 3, p, cnt, work, cnt == 1 ? "one QP" : "two QPs");
        TU_OK(ctx, gala_qp_solve(b));
        qp_same_results(_i, a, b, p, cnt, 1, 0, 0, cnt == 1 ? "one QP on three devices" : "two QPs on three");
        gala_qp_destroy(a);
        gala_qp_destroy(b);
    }
    /* every QP rejected: nothing to divide, all on device 0 */
    gala_qp_problem bad[2] = {pb[0], pb[B / 2]};
    gala_qp_solver *b = NULL;
    TU_OK(ctx, gala_qp_setup_devices(devs, 2, NULL, bad, 2, &s, &b));
    TU_OK(ctx, gala_qp_solve(b));
    TU_OK(NULL, gala_qp_device_share(b, 1, &k0, &n, &nc));
    TU_ASSERT(gala_qp_device_count(b) == 2 && n == 0, _i, "all invalid: device 1 has %d QPs", n);
    gala_qp_info fi;
    TU_OK(NULL, gala_qp_get_info(b, 1, &fi));
    TU_ASSERT(fi.status == GALA_QP_INVALID_DATA, _i, "all invalid: %s", gala_qp_status_string(fi.status));
    gala_qp_destroy(b);
    qp_free_batch(pb, B);
    free_devices(devs, MAXDEV);
}
END_TEST

/* ------------------------------------------------------------------ updates */

#define BOTH(call_a, call_b)                                                               \
    do {                                                                                   \
        gala_status sa_ = (call_a), sb_ = (call_b);                                        \
        TU_ASSERT(sa_ == sb_, _i, "%s: status %s on one device, %s on several: %s",        \
                  #call_a, gala_status_string(sa_), gala_status_string(sb_),               \
                  gala_last_error(ctx));                                                   \
    } while (0)

/* Updates between solves on the mixed batch on three devices: every QP's vectors, one QP's,
 * warm starts of one QP and of all, matrix values of all and of one, ρ of one and of all,
 * cold start, new settings. */
START_TEST(multi_updates_and_warm_starts)
{
    gala_context *devs[MAXDEV];
    make_devices(_i, devs, MAXDEV);
    gala_context *ctx = devs[0];
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 23 };
    gala_qp_problem pb[B];
    qp_mixed_batch(&r, pb, B, 3); /* QPs 3 and 11 rejected */
    size_t qo[B + 1], bo[B + 1], po[B + 1], ao[B + 1];
    qo[0] = bo[0] = po[0] = ao[0] = 0;
    for (int k = 0; k < B; ++k) {
        const int ok = k != 3 && k != B / 2;
        qo[k + 1] = qo[k] + (size_t)pb[k].n;
        bo[k + 1] = bo[k] + (size_t)pb[k].m;
        po[k + 1] = po[k] + (ok ? (size_t)pb[k].P.p[pb[k].n] : 0);
        ao[k + 1] = ao[k] + (ok ? (size_t)pb[k].A.p[pb[k].n] : 0);
    }
    double *q = malloc(sizeof(double) * qo[B]), *l = malloc(sizeof(double) * bo[B]);
    double *u = malloc(sizeof(double) * bo[B]), *Px = malloc(sizeof(double) * (po[B] + 1));
    double *Ax = malloc(sizeof(double) * (ao[B] + 1));
    double *xs = malloc(sizeof(double) * (qo[B] + bo[B] + 1)), *ys = xs + qo[B];
    for (int k = 0; k < B; ++k) {
        for (int j = 0; j < pb[k].n; ++j) q[qo[k] + (size_t)j] = isfinite(pb[k].q[j]) ? pb[k].q[j] + 0.3 * tu_normal(&r) : 1;
        memcpy(l + bo[k], pb[k].l, sizeof(double) * (size_t)pb[k].m);
        memcpy(u + bo[k], pb[k].u, sizeof(double) * (size_t)pb[k].m);
        if (po[k + 1] > po[k]) /* P scaled up: stays convex; A values nudged */
            for (size_t e = 0; e < po[k + 1] - po[k]; ++e) Px[po[k] + e] = 1.25 * pb[k].P.x[e];
        if (ao[k + 1] > ao[k])
            for (size_t e = 0; e < ao[k + 1] - ao[k]; ++e) Ax[ao[k] + e] = pb[k].A.x[e] * (1 + 0.1 * tu_uniform(&r));
    }
    gala_qp_settings s = settings_for(_i);
    s.max_iter = 800;
    gala_qp_solver *a, *b;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
    TU_OK(ctx, gala_qp_setup_devices(devs, MAXDEV, NULL, pb, B, &s, &b));
#define STEP(name)                                                                          \
    do {                                                                                   \
        BOTH(gala_qp_solve(a), gala_qp_solve(b));                                          \
        qp_same_results(_i, a, b, pb, B, 1, 0, 0, name);                                   \
    } while (0)
    STEP("first solve");
    BOTH(gala_qp_update_vectors(a, -1, q, l, u), gala_qp_update_vectors(b, -1, q, l, u));
    STEP("vectors of all");
    BOTH(gala_qp_update_vectors(a, 20, pb[20].q, NULL, NULL), gala_qp_update_vectors(b, 20, pb[20].q, NULL, NULL));
    STEP("vectors of one");
    TU_OK(NULL, gala_qp_get_solutions(a, xs, ys));
    for (size_t i = 0; i < qo[B] + bo[B]; ++i) xs[i] = isfinite(xs[i]) ? xs[i] * 0.9 + 0.01 : 0;
    BOTH(gala_qp_warm_start(a, 17, xs + qo[17], ys + bo[17]), gala_qp_warm_start(b, 17, xs + qo[17], ys + bo[17]));
    STEP("warm start of one");
    BOTH(gala_qp_warm_start(a, -1, xs, ys), gala_qp_warm_start(b, -1, xs, ys));
    STEP("warm start of all");
    BOTH(gala_qp_update_matrices(a, -1, Px, Ax), gala_qp_update_matrices(b, -1, Px, Ax));
    STEP("matrices of all");
    BOTH(gala_qp_update_matrices(a, 19, NULL, pb[19].A.x), gala_qp_update_matrices(b, 19, NULL, pb[19].A.x));
    BOTH(gala_qp_update_rho(a, 1, 0.7), gala_qp_update_rho(b, 1, 0.7));
    STEP("matrix of one, rho of one");
    BOTH(gala_qp_update_rho(a, -1, 0.05), gala_qp_update_rho(b, -1, 0.05));
    BOTH(gala_qp_cold_start(a), gala_qp_cold_start(b));
    STEP("rho of all, cold start");
    gala_qp_settings s2;
    TU_OK(NULL, gala_qp_get_settings(a, &s2));
    s2.eps_abs = s2.eps_rel = s.dtype == GALA_FLOAT ? 1e-4 : 1e-5;
    s2.check_termination = 10;
    BOTH(gala_qp_update_settings(a, &s2), gala_qp_update_settings(b, &s2));
    STEP("new settings");
    TU_ASSERT(gala_qp_update_vectors(b, B, q, NULL, NULL) == GALA_ERR_INVALID_ARG, _i, "k = B");
    TU_ASSERT(strstr(gala_last_error(ctx), "-1..22") != NULL, _i, "message: %s", gala_last_error(ctx));
    STEP("after a refused call");
#undef STEP
    gala_qp_destroy(a);
    gala_qp_destroy(b);
    free(q);
    free(l);
    free(u);
    free(Px);
    free(Ax);
    free(xs);
    qp_free_batch(pb, B);
    free_devices(devs, MAXDEV);
}
END_TEST

/* The shared strategy (every QP has the reference's P and A; QP 0 invalid): the devices'
 * shares after the reference carry it hidden; a matrix update of all scales from the
 * reference's current vectors on every device. */
START_TEST(multi_shared_matrices)
{
    gala_context *devs[MAXDEV];
    make_devices(_i, devs, 2);
    gala_context *ctx = devs[0];
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 13 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_double_integrator(6, 4 * tu_uniform(&r) - 2, 2 * tu_uniform(&r) - 1, &pb[k]));
    pb[0].q[0] = NAN;
    const int n = pb[1].n, pnz = pb[1].P.p[n], anz = pb[1].A.p[n];
    double *q = malloc(sizeof(double) * (size_t)(n * B));
    double *Px = malloc(sizeof(double) * (size_t)(pnz * B)), *Ax = malloc(sizeof(double) * (size_t)(anz * B));
    for (int i = 0; i < n * B; ++i) q[i] = 3 * tu_normal(&r) + 4;
    for (int k = 0; k < B - 1; ++k) {
        for (int e = 0; e < pnz; ++e) Px[k * pnz + e] = pb[1].P.x[e] * 1.5;
        memcpy(Ax + k * anz, pb[1].A.x, sizeof(double) * (size_t)anz);
    }
    gala_qp_settings s = settings_for(_i);
    gala_qp_solver *a, *b;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
    TU_OK(ctx, gala_qp_setup_devices(devs, 2, NULL, pb, B, &s, &b));
    TU_ASSERT(gala_qp_linsys_used(a) == GALA_QP_LINSYS_DENSE_SHARED &&
                  gala_qp_linsys_used(b) == GALA_QP_LINSYS_DENSE_SHARED, _i, "not shared");
    BOTH(gala_qp_solve(a), gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "shared on two devices");
    BOTH(gala_qp_update_vectors(a, -1, q, NULL, NULL), gala_qp_update_vectors(b, -1, q, NULL, NULL));
    BOTH(gala_qp_update_matrices(a, -1, Px, Ax), gala_qp_update_matrices(b, -1, Px, Ax));
    BOTH(gala_qp_solve(a), gala_qp_solve(b));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "shared on two devices: new q, P");
    gala_qp_destroy(a);
    gala_qp_destroy(b);
    free(q);
    free(Px);
    free(Ax);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
    free_devices(devs, 2);
}
END_TEST

/* ------------------------------------------------------------------ faults */

/* A fault at launches of a solve on two devices, in turn (every 5th on OpenCL): the call
 * fails with the fault's status and a message naming a device and "injected"; the QPs
 * marked UNSOLVED (no solution) all lie in that device's share, every other QP has the
 * one-device result; after ρ and the iterates are set back the solver solves to the
 * one-device results again. Both devices meet a fault. */
START_TEST(multi_faults)
{
    gala_context *devs[MAXDEV];
    make_devices(_i, devs, 2);
    gala_context *ctx = devs[0];
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 8 };
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
    const int step = tu_target_get(_i)->backend == GALA_BACKEND_OPENCL ? 5 : 1;
    int failed_on[2] = {0, 0}, fails = 0;
    /* every step-th launch; then, where a device was never hit (its launches may all fall
     * between the sampled ones when one share runs before the other, as under
     * ThreadSanitizer), the launches skipped, until both have been */
    for (int pass = 0; pass < 2 && !(pass && failed_on[0] && failed_on[1]); ++pass) {
        for (int nf = pass ? 2 : 1; nf < 100000; nf += pass ? 1 : step) {
            if (pass && (nf - 1) % step == 0) continue; /* the first pass had it */
            if (pass && failed_on[0] && failed_on[1]) break;
            gala_qp_solver *b = NULL;
            TU_OK(ctx, gala_qp_setup_devices(devs, 2, NULL, pb, B, &s, &b));
            int k0[2], cnt[2];
            for (int d = 0; d < 2; ++d) TU_OK(NULL, gala_qp_device_share(b, d, &k0[d], &cnt[d], NULL));
            gala_fault_arm(GALA_FAULT_LAUNCH, nf);
            gala_status st = gala_qp_solve(b);
            const long pending = gala_fault_pending(GALA_FAULT_LAUNCH);
            gala_fault_arm(GALA_FAULT_LAUNCH, 0);
            char what[64];
            snprintf(what, sizeof what, "launch fault %d", nf);
            if (st == GALA_OK) {
                qp_same_results(_i, a, b, pb, B, 1, 0, 0, what);
                gala_qp_destroy(b);
                if (pending > 0) break; /* past the solve's last launch */
                continue;
            }
            ++fails;
            TU_ASSERT(st == GALA_ERR_DEVICE, _i, "%s: status %s", what, gala_status_string(st));
            const char *msg = gala_last_error(ctx);
            const char *dm = strstr(msg, "device ");
            TU_ASSERT(strstr(msg, "gala_qp_solve: device ") && strstr(msg, "injected") && dm, _i,
                      "%s: message '%s'", what, msg);
            const int d = atoi(dm + strlen("device "));
            TU_ASSERT(d == 0 || d == 1, _i, "%s: device %d", what, d);
            int unsolved = 0;
            for (int k = 0; k < B; ++k) {
                gala_qp_info ib;
                const double *xb;
                TU_OK(NULL, gala_qp_get_info(b, k, &ib));
                TU_OK(NULL, gala_qp_get_solution(b, k, &xb, NULL, NULL, NULL));
                if (ib.status != GALA_QP_UNSOLVED) continue;
                ++unsolved;
                TU_ASSERT(k >= k0[d] && k < k0[d] + cnt[d] && isnan(xb[0]), _i,
                          "%s: QP %d UNSOLVED (x0 %g), device %d has QPs %d..%d", what, k, xb[0], d,
                          k0[d], k0[d] + cnt[d] - 1);
            }
            TU_ASSERT(unsolved > 0, _i, "%s: no QP UNSOLVED", what);
            qp_same_results(_i, a, b, pb, B, 1, k0[d], k0[d] + cnt[d], what);
            failed_on[d]++;
            TU_OK(ctx, gala_qp_update_rho(b, -1, s.rho));
            TU_OK(ctx, gala_qp_cold_start(b));
            TU_OK(ctx, gala_qp_solve(b));
            qp_same_results(_i, a2, b, pb, B, 1, 0, 0, what);
            gala_qp_destroy(b);
        }
    }
    TU_ASSERT(fails >= 2 && failed_on[0] > 0 && failed_on[1] > 0, _i,
              "%d faults met: %d on device 0, %d on device 1", fails, failed_on[0], failed_on[1]);
    gala_qp_destroy(a);
    gala_qp_destroy(a2);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
    free_devices(devs, 2);
}
END_TEST

/* ------------------------------------------------------------------ arguments, progress */

typedef struct {
    pthread_mutex_t mu;
    int calls, inside, overlap, max_done, bad;
} progress_log;

static int progress(void *user, int done, int total, int it)
{
    progress_log *p = user;
    (void)it;
    pthread_mutex_lock(&p->mu);
    if (p->inside) p->overlap = 1;
    p->inside = 1;
    pthread_mutex_unlock(&p->mu);
    if (done < 0 || done > total) p->bad = 1;
    if (done > p->max_done) p->max_done = done;
    ++p->calls;
    pthread_mutex_lock(&p->mu);
    p->inside = 0;
    pthread_mutex_unlock(&p->mu);
    return 0;
}

/* Bad arguments, named; the device-vector calls refused; the progress callback called one
 * at a time, with the batch's counts. */
START_TEST(multi_arguments_and_progress)
{
    gala_context *devs[MAXDEV];
    make_devices(_i, devs, 2);
    gala_context *ctx = devs[0];
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 6 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, 3, (uint64_t)tu_int(&r, 1, 100000), &pb[k]));
    gala_qp_settings s = settings_for(_i);
    gala_qp_solver *b = (gala_qp_solver *)&b;
    TU_ASSERT(gala_qp_setup_devices(NULL, 2, NULL, pb, B, &s, &b) == GALA_ERR_INVALID_ARG && !b, _i,
              "ctxs NULL");
    TU_ASSERT(strstr(gala_last_error(NULL), "ctxs") != NULL, _i, "%s", gala_last_error(NULL));
    TU_ASSERT(gala_qp_setup_devices(devs, 0, NULL, pb, B, &s, &b) == GALA_ERR_INVALID_ARG, _i, "nctx 0");
    TU_ASSERT(strstr(gala_last_error(NULL), "nctx = 0") != NULL, _i, "%s", gala_last_error(NULL));
    gala_context *twice[2] = {ctx, ctx};
    TU_ASSERT(gala_qp_setup_devices(twice, 2, NULL, pb, B, &s, &b) == GALA_ERR_INVALID_ARG, _i, "twice");
    TU_ASSERT(strstr(gala_last_error(ctx), "ctxs[1] is ctxs[0]") != NULL, _i, "%s", gala_last_error(ctx));
    gala_context *with_null[2] = {ctx, NULL};
    TU_ASSERT(gala_qp_setup_devices(with_null, 2, NULL, pb, B, &s, &b) == GALA_ERR_INVALID_ARG, _i, "NULL");
    TU_ASSERT(strstr(gala_last_error(ctx), "ctxs[1] is NULL") != NULL, _i, "%s", gala_last_error(ctx));
    const double wbad[2] = {1, NAN}, wzero[2] = {0, 1};
    TU_ASSERT(gala_qp_setup_devices(devs, 2, wbad, pb, B, &s, &b) == GALA_ERR_INVALID_ARG, _i, "NaN weight");
    TU_ASSERT(strstr(gala_last_error(ctx), "weights[1]") != NULL, _i, "%s", gala_last_error(ctx));
    TU_ASSERT(gala_qp_setup_devices(devs, 2, wzero, pb, B, &s, &b) == GALA_ERR_INVALID_ARG, _i, "0 weight");
    TU_ASSERT(gala_qp_setup_devices(devs, 2, NULL, pb, 0, &s, &b) == GALA_ERR_INVALID_ARG, _i, "count 0");
    TU_ASSERT(gala_qp_setup_devices(devs, 2, NULL, NULL, B, &s, &b) == GALA_ERR_INVALID_ARG, _i, "no QPs");
    TU_ASSERT(b == NULL, _i, "a refused setup left a solver");
    /* progress from two devices' threads */
    progress_log pl;
    memset(&pl, 0, sizeof pl);
    pthread_mutex_init(&pl.mu, NULL);
    s.progress = progress;
    s.progress_user = &pl;
    s.eps_abs = s.eps_rel = 1e-12; /* they run to max_iter: the callback is called */
    s.max_iter = 300;
    s.check_termination = 5;
    TU_OK(ctx, gala_qp_setup_devices(devs, 2, NULL, pb, B, &s, &b));
    TU_ASSERT(gala_qp_device_share(b, 2, NULL, NULL, NULL) == GALA_ERR_INVALID_ARG, _i, "d = 2");
    TU_ASSERT(strstr(gala_last_error(ctx), "d = 2 outside 0..1") != NULL, _i, "%s", gala_last_error(ctx));
    TU_ASSERT(gala_qp_device_share(NULL, 0, NULL, NULL, NULL) == GALA_ERR_INVALID_ARG, _i, "NULL solver");
    TU_OK(ctx, gala_qp_solve(b));
    TU_ASSERT(pl.calls > 0 && !pl.overlap && !pl.bad && pl.max_done <= B, _i,
              "progress: %d calls, overlap %d, bad %d, max done %d", pl.calls, pl.overlap, pl.bad,
              pl.max_done);
    gala_qp_solver *a;
    s.progress = NULL;
    TU_OK(ctx, gala_qp_setup(ctx, pb, B, &s, &a));
    TU_OK(ctx, gala_qp_solve(a));
    qp_same_results(_i, a, b, pb, B, 1, 0, 0, "with a progress callback");
    gala_qp_destroy(a);
    /* the device-vector calls: the batch's vectors live in two contexts */
    gala_buffer *buf = NULL;
    TU_OK(ctx, gala_buffer_create(ctx, s.dtype, 64, &buf));
    TU_ASSERT(gala_qp_get_solution_device(b, buf, 0, NULL, 0) == GALA_ERR_NOT_SUPPORTED, _i, "device x");
    TU_ASSERT(strstr(gala_last_error(ctx), "several devices") != NULL, _i, "%s", gala_last_error(ctx));
    TU_ASSERT(gala_qp_update_vectors_device(b, buf, 0, NULL, 0, NULL, 0) == GALA_ERR_NOT_SUPPORTED, _i, "q");
    TU_ASSERT(gala_qp_warm_start_device(b, buf, 0, NULL, 0) == GALA_ERR_NOT_SUPPORTED, _i, "warm");
    gala_buffer_free(buf);
    gala_qp_destroy(b);
    pthread_mutex_destroy(&pl.mu);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
    free_devices(devs, 2);
}
END_TEST

/* A host context and an OpenCL one (where there is one) in double: each share converges,
 * to the host-only answers within the tolerances. */
START_TEST(multi_host_and_opencl)
{
    if (tu_target_get(_i)->backend != GALA_BACKEND_OPENCL || tu_target_get(_i)->dtype != GALA_DOUBLE)
        return;
    gala_context *host = tu_host_ctx(1);
    gala_context *devs[2] = {host, tu_ctx(_i)};
    tu_rng r = tu_rng_for(__func__, _i);
    enum { B = 10 };
    gala_qp_problem pb[B];
    for (int k = 0; k < B; ++k)
        TU_OK(NULL, gala_qp_generate(GALA_QP_GEN_CONTROL, 3 + k % 3, (uint64_t)tu_int(&r, 1, 100000), &pb[k]));
    gala_qp_settings s = settings_for(_i);
    s.eps_abs = s.eps_rel = 1e-8;
    s.max_iter = 20000;
    gala_qp_solver *a, *b;
    TU_OK(host, gala_qp_setup(host, pb, B, &s, &a));
    TU_OK(host, gala_qp_setup_devices(devs, 2, NULL, pb, B, &s, &b));
    TU_OK(host, gala_qp_solve(a));
    TU_OK(host, gala_qp_solve(b));
    int k0, cnt;
    TU_OK(NULL, gala_qp_device_share(b, 1, &k0, &cnt, NULL));
    TU_ASSERT(cnt > 0 && k0 > 0, _i, "the OpenCL device has QPs %d + %d", k0, cnt);
    for (int k = 0; k < B; ++k) {
        gala_qp_info ia, ib;
        const double *xa, *xb;
        TU_OK(NULL, gala_qp_get_info(a, k, &ia));
        TU_OK(NULL, gala_qp_get_info(b, k, &ib));
        TU_OK(NULL, gala_qp_get_solution(a, k, &xa, NULL, NULL, NULL));
        TU_OK(NULL, gala_qp_get_solution(b, k, &xb, NULL, NULL, NULL));
        TU_ASSERT(ia.status == GALA_QP_SOLVED && ib.status == GALA_QP_SOLVED, _i, "QP %d: %s, %s", k,
                  gala_qp_status_string(ia.status), gala_qp_status_string(ib.status));
        for (int j = 0; j < pb[k].n; ++j)
            TU_ASSERT(fabs(xa[j] - xb[j]) <= 1e-5 * (1 + fabs(xa[j])), _i, "QP %d x%d: %.17g, %.17g",
                      k, j, xa[j], xb[j]);
    }
    gala_qp_destroy(a);
    gala_qp_destroy(b);
    gala_context_destroy(host);
    for (int k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("qp_multi");
    TCase *tc = tcase_create("devices");
    tcase_set_timeout(tc, 0);
    const int nt = tu_target_count();
    tcase_add_loop_test(tc, multi_equals_one, 0, nt);
    tcase_add_loop_test(tc, multi_updates_and_warm_starts, 0, nt);
    tcase_add_loop_test(tc, multi_shared_matrices, 0, nt);
    tcase_add_loop_test(tc, multi_faults, 0, nt);
    tcase_add_loop_test(tc, multi_arguments_and_progress, 0, nt);
    tcase_add_loop_test(tc, multi_host_and_opencl, 0, nt);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
