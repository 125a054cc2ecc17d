/*
 * The MPI entry points (include/gala/qp_mpi.h), run under `mpiexec -n R` (R = 1, 2, 3):
 * gala_qp_mpi_share gives contiguous shares that cover the batch in rank order (equal
 * counts, or balanced work); gala_qp_mpi_gather brings every rank's results onto the root in
 * the batch's order, equal to one process solving the whole batch (statuses and iterations
 * exactly, solutions to 1e-9: a share's batch is not the whole batch, so its launch shapes
 * may differ in the last bits), including ranks without QPs and NaN-poisoned outputs; a
 * rank that fails gives every rank the same status, with the failing rank named. Mixed
 * seeded sizes (GALA_TEST_SEED, printed). Not a Check test: Check's forks and MPI do not mix.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gala/gala.h"
#include "gala/qp_mpi.h"

static int rank, size, failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                             \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* every rank's share gathered on every rank: a partition of 0 .. count − 1 in rank order */
static void check_share(int count, const double *work)
{
    int k[2];
    CHECK(gala_qp_mpi_share(MPI_COMM_WORLD, count, work, &k[0], &k[1]) == GALA_OK, "share(%d)",
          count);
    int *all = malloc(sizeof(int) * 2 * (size_t)size);
    MPI_Allgather(k, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    int next = 0;
    double total = 0, most = 0, biggest = 0;
    for (int i = 0; work && i < count; ++i) {
        total += work[i];
        if (work[i] > biggest) biggest = work[i];
    }
    for (int r = 0; r < size; ++r) {
        CHECK(all[2 * r] == next && all[2 * r + 1] >= all[2 * r], "count %d: rank %d has %d..%d "
              "after %d", count, r, all[2 * r], all[2 * r + 1], next);
        double w = 0;
        for (int i = all[2 * r]; work && i < all[2 * r + 1]; ++i) w += work[i];
        if (w > most) most = w;
        if (!work) CHECK(all[2 * r + 1] - all[2 * r] <= count / size + 1, "count %d: rank %d "
                         "has %d QPs", count, r, all[2 * r + 1] - all[2 * r]);
        next = all[2 * r + 1];
    }
    CHECK(next == count, "count %d: the shares end at %d", count, next);
    /* balanced: no share above the mean by more than one QP's work */
    if (work) CHECK(most <= total / size + biggest + 1e-12, "count %d: a share of work %g, mean %g",
                    count, most, total / size);
    free(all);
}

static int batch_test(gala_context *ctx, uint64_t seed, int count, gala_dtype dt)
{
    gala_qp_problem *pb = calloc((size_t)count, sizeof *pb);
    long long sn = 0, sm = 0;
    for (int k = 0; k < count; ++k) {
        /* mixed sizes: control nx = 2..5 */
        int nx = 2 + (int)((seed + (uint64_t)k * 7) % 4);
        CHECK(gala_qp_generate(GALA_QP_GEN_CONTROL, nx, seed + (uint64_t)k, &pb[k]) == GALA_OK,
              "generate");
        sn += pb[k].n;
        sm += pb[k].m;
    }
    gala_qp_settings set;
    gala_qp_settings_default(&set);
    set.dtype = dt;
    set.eps_abs = set.eps_rel = dt == GALA_DOUBLE ? 1e-6 : 1e-4;
    int k0, k1;
    gala_qp_mpi_share(MPI_COMM_WORLD, count, NULL, &k0, &k1);
    gala_qp_solver *s = NULL;
    if (k1 > k0) {
        CHECK(gala_qp_setup(ctx, pb + k0, k1 - k0, &set, &s) == GALA_OK, "setup: %s",
              gala_last_error(ctx));
        CHECK(gala_qp_solve(s) == GALA_OK, "solve: %s", gala_last_error(ctx));
    }
    double *x = NULL, *y = NULL, *pc = NULL, *dc = NULL;
    gala_qp_info *info = NULL;
    if (rank == 0) { /* NaN-poisoned: every entry must be written */
        x = malloc(sizeof(double) * (size_t)sn);
        y = malloc(sizeof(double) * (size_t)sm);
        pc = malloc(sizeof(double) * (size_t)sm);
        dc = malloc(sizeof(double) * (size_t)sn);
        info = malloc(sizeof *info * (size_t)count);
        for (long long i = 0; i < sn; ++i) x[i] = dc[i] = NAN;
        for (long long i = 0; i < sm; ++i) y[i] = pc[i] = NAN;
        memset(info, 0xff, sizeof *info * (size_t)count);
    }
    gala_status st = gala_qp_mpi_gather(MPI_COMM_WORLD, 0, s, pb + k0, x, y, pc, dc, info);
    CHECK(st == GALA_OK, "gather: %s", gala_last_error(NULL));
    if (rank == 0 && st == GALA_OK) { /* one process, the whole batch */
        gala_qp_solver *one = NULL;
        CHECK(gala_qp_setup(ctx, pb, count, &set, &one) == GALA_OK && gala_qp_solve(one) == GALA_OK,
              "one process: %s", gala_last_error(ctx));
        double *x1 = malloc(sizeof(double) * (size_t)sn), *y1 = malloc(sizeof(double) * (size_t)sm);
        gala_qp_get_solutions(one, x1, y1);
        long long xo = 0, yo = 0;
        for (int k = 0; k < count; ++k) {
            gala_qp_info i1;
            const double *p1, *d1;
            gala_qp_get_info(one, k, &i1);
            gala_qp_get_solution(one, k, NULL, NULL, &p1, &d1);
            CHECK(info[k].status == i1.status && info[k].iter == i1.iter, "QP %d: status %d iter %d,"
                  " one process %d, %d", k, info[k].status, info[k].iter, i1.status, i1.iter);
            CHECK(i1.status == GALA_QP_SOLVED, "QP %d not solved (%d)", k, i1.status);
            double err = 0, nrm = 1;
            for (int i = 0; i < pb[k].n; ++i) {
                err = fmax(err, fabs(x[xo + i] - x1[xo + i]));
                nrm = fmax(nrm, fabs(x1[xo + i]));
                CHECK(isnan(dc[xo + i]) == isnan(d1[i]), "QP %d: dual certificate %d", k, i);
            }
            for (int i = 0; i < pb[k].m; ++i) {
                err = fmax(err, fabs(y[yo + i] - y1[yo + i]));
                nrm = fmax(nrm, fabs(y1[yo + i]));
                CHECK(isnan(pc[yo + i]) == isnan(p1[i]), "QP %d: primal certificate %d", k, i);
            }
            const double tol = dt == GALA_DOUBLE ? 1e-9 : 1e-4;
            CHECK(err <= tol * nrm, "QP %d: solution differs by %g (norm %g)", k, err, nrm);
            xo += pb[k].n;
            yo += pb[k].m;
        }
        free(x1);
        free(y1);
        gala_qp_destroy(one);
    }
    gala_qp_destroy(s);
    for (int k = 0; k < count; ++k) gala_qp_problem_free(&pb[k]);
    free(pb);
    free(x);
    free(y);
    free(pc);
    free(dc);
    free(info);
    return 0;
}

/* the last rank's solver is set up but not solved: every rank gets its failure */
static void failure_test(gala_context *ctx, uint64_t seed)
{
    gala_qp_problem pb;
    CHECK(gala_qp_generate(GALA_QP_GEN_CONTROL, 2, seed, &pb) == GALA_OK, "generate");
    gala_qp_settings set;
    gala_qp_settings_default(&set);
    gala_qp_solver *s = NULL;
    CHECK(gala_qp_setup(ctx, &pb, 1, &set, &s) == GALA_OK, "setup");
    if (rank != size - 1) gala_qp_solve(s);
    double x[64], y[128];
    gala_status st = gala_qp_mpi_gather(MPI_COMM_WORLD, 0, s, &pb, rank == 0 ? x : NULL,
                                        rank == 0 ? y : NULL, NULL, NULL, NULL);
    CHECK(st == GALA_ERR_INVALID_ARG, "an unsolved solver on rank %d: status %d", size - 1, st);
    char want[32];
    snprintf(want, sizeof want, "rank %d", size - 1);
    if (rank != size - 1)
        CHECK(strstr(gala_last_error(NULL), want) != NULL, "message '%s' names no %s",
              gala_last_error(NULL), want);
    CHECK(gala_qp_mpi_gather(MPI_COMM_WORLD, size, s, &pb, NULL, NULL, NULL, NULL, NULL) ==
              GALA_ERR_INVALID_ARG, "root = size accepted");
    gala_qp_destroy(s);
    gala_qp_problem_free(&pb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *e = getenv("GALA_TEST_SEED");
    uint64_t seed = e ? strtoull(e, NULL, 10) : (uint64_t)time(NULL);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("test_qp_mpi: %d ranks, GALA_TEST_SEED=%" PRIu64 "\n", size, seed);

    int lr = -1, ls = 0;
    CHECK(gala_qp_mpi_local_rank(MPI_COMM_WORLD, &lr, &ls) == GALA_OK && lr >= 0 && lr < ls &&
              ls <= size, "local rank %d of %d", lr, ls);
    CHECK(gala_qp_mpi_share(MPI_COMM_WORLD, -1, NULL, &lr, &ls) == GALA_ERR_INVALID_ARG, "count -1");
    double badw[2] = {1, NAN};
    CHECK(gala_qp_mpi_share(MPI_COMM_WORLD, 2, badw, &lr, &ls) == GALA_ERR_INVALID_ARG, "NaN work");
    double work[1000];
    srand((unsigned)seed);
    for (int i = 0; i < 1000; ++i) work[i] = (double)(1 + rand() % 400) * (1 + rand() % 400);
    const int counts[] = {0, 1, 2, 3, 7, 10, 1000};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
        check_share(counts[c], NULL);
        check_share(counts[c], work);
    }

    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    o.host_threads = 1;
    gala_context *ctx = NULL;
    CHECK(gala_context_create(&o, &ctx) == GALA_OK, "context");
    batch_test(ctx, seed, 7, GALA_DOUBLE);
    batch_test(ctx, seed + 100, 2, GALA_DOUBLE); /* fewer QPs than 3 ranks */
    batch_test(ctx, seed + 200, 5, GALA_FLOAT);
    if (size > 1) failure_test(ctx, seed);
    gala_context_destroy(ctx);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("test_qp_mpi: %d failure%s\n", all, all == 1 ? "" : "s");
    MPI_Finalize();
    return all ? 1 : 0;
}
