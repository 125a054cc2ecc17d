/* One QP batch over the ranks of an MPI communicator (include/gala/qp_mpi.h; docs/scale.md):
 * contiguous shares in rank order, and the results gathered onto one rank in the batch's
 * order. Built into the library only with GALA_WITH_MPI; nothing else depends on MPI.
 *
 *   batch   | QP 0 .. k1(0)−1 | k0(1) .. k1(1)−1 | ... | k0(R−1) .. count−1 |
 *   ranks   |      rank 0     |      rank 1      | ... |      rank R−1       |
 *   root    x = x(rank 0) x(rank 1) ... (MPI_Gatherv: each rank's Σn, in rank order), and
 *           the same for y, the certificates and the infos */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gala/qp_mpi.h"
#include "qp/qp_internal.h"

static gala_status mpi_fail(const char *fn, const char *call, int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", code);
    return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: %s failed: %s", fn, call, text);
}
#define MPI_TRY(fn, call)                                                                          \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) return mpi_fail(fn, #call, rc_);                                   \
    } while (0)

gala_status gala_qp_mpi_share(MPI_Comm comm, int count, const double *work, int *k0, int *k1)
{
    static const char fn[] = "gala_qp_mpi_share";
    if (!k0 || !k1) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: k0 or k1 is NULL", fn);
    if (count < 0) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: count = %d < 0", fn, count);
    int rank, size;
    MPI_TRY(fn, MPI_Comm_rank(comm, &rank));
    MPI_TRY(fn, MPI_Comm_size(comm, &size));
    double total = 0;
    for (int k = 0; work && k < count; ++k) {
        if (!(work[k] >= 0) || !isfinite(work[k]))
            return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: work[%d] = %g is not a finite "
                              "number >= 0", fn, k, work[k]);
        total += work[k];
    }
    if (!work || total <= 0) { /* equal counts, the first count % size ranks one more */
        const int base = count / size, rem = count % size;
        *k0 = rank * base + (rank < rem ? rank : rem);
        *k1 = *k0 + base + (rank < rem);
        return GALA_OK;
    }
    /* boundary j: the k whose prefix sum of work is closest to j·total/size (never before
     * boundary j − 1); rank r takes boundaries r .. r + 1 */
    int b = 0, lo = 0;
    double pre = 0;
    for (int j = 1; j <= rank + 1; ++j) {
        const double target = total * j / size;
        if (j == size) {
            b = count;
        } else {
            while (b < count && pre + work[b] <= target) pre += work[b++];
            if (b < count && target - pre > pre + work[b] - target) pre += work[b++];
        }
        if (j == rank) lo = b;
    }
    *k0 = rank == 0 ? 0 : lo;
    *k1 = b;
    return GALA_OK;
}

gala_status gala_qp_mpi_local_rank(MPI_Comm comm, int *local_rank, int *local_size)
{
    static const char fn[] = "gala_qp_mpi_local_rank";
    if (!local_rank) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: local_rank is NULL", fn);
    MPI_Comm node;
    MPI_TRY(fn, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int r = 0, n = 1, rc = MPI_Comm_rank(node, &r);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) return mpi_fail(fn, "MPI_Comm_rank/size (node)", rc);
    *local_rank = r;
    if (local_size) *local_size = n;
    return GALA_OK;
}

/* what a rank holds for the gather: its results, host copies in its share's layout */
typedef struct {
    int count;
    long long sn, sm; /* Σn, Σm */
    double *x, *y, *pc, *dc;
    gala_qp_info *info;
} share_res;

static void share_free(share_res *r)
{
    free(r->x);
    free(r->y);
    free(r->pc);
    free(r->dc);
    free(r->info);
    memset(r, 0, sizeof *r);
}

/* this rank's results, in the outputs the root asked for (mask: 1 x, 2 y, 4 pc, 8 dc, 16 info) */
static gala_status share_collect(const gala_qp_solver *s, const gala_qp_problem *pb, int mask,
                                 share_res *r)
{
    static const char fn[] = "gala_qp_mpi_gather";
    r->count = s ? gala_qp_count(s) : 0;
    if (r->count > 0 && !pb)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: problems is NULL with a solver", fn);
    for (int k = 0; k < r->count; ++k) {
        r->sn += pb[k].n;
        r->sm += pb[k].m;
    }
    if (r->sn > INT_MAX || r->sm > INT_MAX || (long long)r->count * (long long)sizeof(gala_qp_info) > INT_MAX)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: a share of %d QPs (Σn = %lld, Σm = "
                          "%lld) exceeds MPI's int counts: use more ranks", fn, r->count, r->sn, r->sm);
    if (!r->count) return GALA_OK;
    /* only what root asked for */
    r->x = (mask & 1) ? malloc(sizeof(double) * (size_t)(r->sn ? r->sn : 1)) : NULL;
    r->y = (mask & 2) ? malloc(sizeof(double) * (size_t)(r->sm ? r->sm : 1)) : NULL;
    r->pc = (mask & 4) ? malloc(sizeof(double) * (size_t)(r->sm ? r->sm : 1)) : NULL;
    r->dc = (mask & 8) ? malloc(sizeof(double) * (size_t)(r->sn ? r->sn : 1)) : NULL;
    r->info = (mask & 16) ? malloc(sizeof(gala_qp_info) * (size_t)r->count) : NULL;
    if (((mask & 1) && !r->x) || ((mask & 2) && !r->y) || ((mask & 4) && !r->pc) ||
        ((mask & 8) && !r->dc) || ((mask & 16) && !r->info))
        return gala_error(NULL, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory for %d QPs' results",
                          fn, r->count);
    gala_status st = r->info ? gala_qp_get_infos(s, 0, r->count, r->info) : GALA_OK;
    if (st == GALA_OK) st = gala_qp_get_solutions(s, r->x, r->y); /* also: solved yet? */
    long long xo = 0, yo = 0;
    for (int k = 0; st == GALA_OK && k < r->count && (mask & 12); ++k) {
        const double *p = NULL, *d = NULL;
        st = gala_qp_get_solution(s, k, NULL, NULL, &p, &d);
        if (st == GALA_OK && r->pc) memcpy(r->pc + yo, p, sizeof(double) * (size_t)pb[k].m);
        if (st == GALA_OK && r->dc) memcpy(r->dc + xo, d, sizeof(double) * (size_t)pb[k].n);
        xo += pb[k].n;
        yo += pb[k].m;
    }
    if (st != GALA_OK) /* the solver's message, where gala_last_error(NULL) finds it */
        return gala_error(NULL, st, "%s: %s", fn, gala_last_error(s->ctx));
    return GALA_OK;
}

/* MPI_Gatherv of `cnt` items of `type` from every rank into root's out, in rank order */
static int gatherv(MPI_Comm comm, int root, int rank, int size, const void *in, int cnt,
                   MPI_Datatype type, void *out, const long long *all, int *counts, int *displs)
{
    long long off = 0;
    if (rank == root)
        for (int r = 0; r < size; ++r) {
            counts[r] = (int)all[r];
            displs[r] = (int)off;
            off += all[r];
        }
    return MPI_Gatherv(in, cnt, type, out, counts, displs, type, root, comm);
}

gala_status gala_qp_mpi_gather(MPI_Comm comm, int root, const gala_qp_solver *solver,
                               const gala_qp_problem *problems, double *x, double *y,
                               double *prim_inf_cert, double *dual_inf_cert, gala_qp_info *infos)
{
    static const char fn[] = "gala_qp_mpi_gather";
    int rank, size;
    MPI_TRY(fn, MPI_Comm_rank(comm, &rank));
    MPI_TRY(fn, MPI_Comm_size(comm, &size));
    if (root < 0 || root >= size)
        return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: root = %d outside 0..%d", fn, root,
                          size - 1);
    /* what root asked for */
    int mask = rank == root ? (x ? 1 : 0) | (y ? 2 : 0) | (prim_inf_cert ? 4 : 0) |
                                  (dual_inf_cert ? 8 : 0) | (infos ? 16 : 0)
                            : 0;
    MPI_TRY(fn, MPI_Bcast(&mask, 1, MPI_INT, root, comm));

    share_res r;
    memset(&r, 0, sizeof r);
    gala_status st = share_collect(solver, problems, mask, &r);

    /* one verdict for all: the first failing rank's status and message */
    int mine = st == GALA_OK ? size : rank, first = size;
    int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) {
        share_free(&r);
        return mpi_fail(fn, "MPI_Allreduce", rc);
    }
    if (first < size) {
        struct {
            int status;
            char text[400];
        } why;
        memset(&why, 0, sizeof why);
        if (rank == first) {
            why.status = st;
            snprintf(why.text, sizeof why.text, "%s", gala_last_error(NULL));
        }
        rc = MPI_Bcast(&why, (int)sizeof why, MPI_BYTE, first, comm);
        share_free(&r);
        if (rc != MPI_SUCCESS) return mpi_fail(fn, "MPI_Bcast", rc);
        if (rank == first) return st;
        return gala_error(NULL, (gala_status)why.status, "%s: rank %d: %s", fn, first, why.text);
    }

    /* every rank's sizes on root, then the arrays */
    long long mine3[3] = {r.count, r.sn, r.sm}, *all3 = NULL;
    long long *cnt = NULL, *sn = NULL, *sm = NULL, *ib = NULL;
    int *counts = NULL, *displs = NULL;
    if (rank == root) {
        all3 = malloc(sizeof(long long) * 3 * (size_t)size);
        cnt = malloc(sizeof(long long) * 4 * (size_t)size);
        counts = malloc(sizeof(int) * 2 * (size_t)size);
    }
    int ok = rank != root || (all3 && cnt && counts);
    int all_ok = 0;
    rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (rc == MPI_SUCCESS && all_ok) rc = MPI_Gather(mine3, 3, MPI_LONG_LONG, all3, 3, MPI_LONG_LONG, root, comm);
    long long tn = 0, tm = 0, tb = 0;
    if (rc == MPI_SUCCESS && all_ok && rank == root) {
        sn = cnt + size;
        sm = cnt + 2 * (size_t)size;
        ib = cnt + 3 * (size_t)size;
        displs = counts + size;
        for (int q = 0; q < size; ++q) {
            cnt[q] = all3[3 * q];
            sn[q] = all3[3 * q + 1];
            sm[q] = all3[3 * q + 2];
            ib[q] = cnt[q] * (long long)sizeof(gala_qp_info);
            tn += sn[q];
            tm += sm[q];
            tb += ib[q];
        }
        if (tn > INT_MAX || tm > INT_MAX || tb > INT_MAX) ok = 0;
    }
    rc = rc == MPI_SUCCESS ? MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) : rc;
    if (rc == MPI_SUCCESS && all_ok) {
        if (mask & 1) rc = gatherv(comm, root, rank, size, r.x, (int)r.sn, MPI_DOUBLE, x, sn, counts, displs);
        if (rc == MPI_SUCCESS && (mask & 2))
            rc = gatherv(comm, root, rank, size, r.y, (int)r.sm, MPI_DOUBLE, y, sm, counts, displs);
        if (rc == MPI_SUCCESS && (mask & 4))
            rc = gatherv(comm, root, rank, size, r.pc, (int)r.sm, MPI_DOUBLE, prim_inf_cert, sm, counts, displs);
        if (rc == MPI_SUCCESS && (mask & 8))
            rc = gatherv(comm, root, rank, size, r.dc, (int)r.sn, MPI_DOUBLE, dual_inf_cert, sn, counts, displs);
        if (rc == MPI_SUCCESS && (mask & 16))
            rc = gatherv(comm, root, rank, size, r.info, (int)(r.count * (long long)sizeof(gala_qp_info)),
                         MPI_BYTE, infos, ib, counts, displs);
    }
    free(all3);
    free(cnt);
    free(counts);
    share_free(&r);
    if (rc != MPI_SUCCESS) return mpi_fail(fn, "MPI_Gather(v)", rc);
    if (!all_ok)
        return gala_error(NULL, rank == root ? GALA_ERR_OUT_OF_MEMORY : GALA_ERR_INVALID_ARG,
                          "%s: root %d cannot hold the batch (no host memory, or Σn = %lld / Σm = "
                          "%lld beyond MPI's int counts)", fn, root, tn, tm);
    return GALA_OK;
}
