/*
 * gala-qp under mpirun (docs/scale.md): each rank reads or generates a contiguous share of the
 * QPs, solves it on its own device (the node-local rank picks it), and rank 0 receives every
 * QP's result in the inputs' order and writes the one report a single process would write.
 * Without GALA_HAVE_MPI, or when not started by an MPI launcher, one rank does everything.
 *
 *   inputs   | files and generated QPs, in order: 0 .. N − 1                  |
 *   ranks    | rank 0: k0(0) .. k1(0) − 1 | rank 1 | ... | rank R − 1         |
 *   rank 0   records of all N (gqp_wire: names, sizes, statuses) + the solved QPs' vectors
 *            (gala_qp_mpi_gather), both in rank order = the inputs' order
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "gqp.h"

#ifdef GALA_HAVE_MPI
#include <mpi.h>

#include "gala/qp_mpi.h"

/* started by an MPI launcher (Open MPI, MPICH/Hydra, PMIx, Slurm's PMI): MPI is used */
static int launched(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i)
        if (getenv(vars[i])) return 1;
    return 0;
}

void gqp_mpi_init(int *argc, char ***argv, gqp_mpi *m)
{
    memset(m, 0, sizeof *m);
    m->size = m->local_size = 1;
    if (!launched()) return;
    int done = 0;
    MPI_Initialized(&done);
    if (!done && MPI_Init(argc, argv) != MPI_SUCCESS) return;
    m->active = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    if (gala_qp_mpi_local_rank(MPI_COMM_WORLD, &m->local_rank, &m->local_size) != GALA_OK) {
        m->local_rank = 0;
        m->local_size = 1;
    }
}

void gqp_mpi_finalize(const gqp_mpi *m)
{
    if (m->active) MPI_Finalize();
}

void gqp_mpi_share(const gqp_mpi *m, int total, int *k0, int *k1)
{
    *k0 = 0;
    *k1 = total;
    if (m->active && gala_qp_mpi_share(MPI_COMM_WORLD, total, NULL, k0, k1) != GALA_OK) {
        *k0 = 0;
        *k1 = total;
    }
}

int gqp_mpi_agree(const gqp_mpi *m, int rc)
{
    int all = rc;
    if (m->active) MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

int gqp_mpi_bcast_rc(const gqp_mpi *m, int rc)
{
    if (m->active) MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

double gqp_mpi_max(const gqp_mpi *m, double v)
{
    double all = v;
    if (m->active) MPI_Allreduce(&v, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

long long gqp_mpi_sum(const gqp_mpi *m, long long v)
{
    long long all = v;
    if (m->active) MPI_Allreduce(&v, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* what rank 0 needs of each QP besides its vectors */
typedef struct {
    char qps_name[64];
    int n, m, sense, rows, bound_rows, has_ref, solved;
    double ref;
    char skip_reason[128];
    gala_qp_info info;
} gqp_wire;

int gqp_mpi_gather(const gqp_mpi *m, gqp_run *run, int k0, int k1, const gala_qp_solver *sv,
                   const gala_qp_problem *batch, char *err, size_t errcap)
{
    if (!m->active || m->size == 1) return 0;
    const int mine = k1 - k0, root = m->rank == 0;
    int bad = 0;
    gqp_wire *w = malloc(sizeof *w * (size_t)(mine ? mine : 1));
    gqp_wire *all = root ? malloc(sizeof *all * (size_t)(run->count ? run->count : 1)) : NULL;
    int *counts = root ? malloc(sizeof(int) * 2 * (size_t)m->size) : NULL;
    if (!w || (root && (!all || !counts))) bad = 1;
    for (int k = 0; !bad && k < mine; ++k) {
        const gqp_item *it = &run->items[k0 + k];
        gqp_wire *r = &w[k];
        memset(r, 0, sizeof *r);
        memcpy(r->qps_name, it->pb.name, sizeof r->qps_name);
        r->n = it->pb.n;
        r->m = it->pb.m;
        r->sense = it->sense;
        r->rows = it->rows;
        r->bound_rows = it->bound_rows;
        r->has_ref = it->has_ref;
        r->ref = it->ref;
        r->solved = it->batch_index >= 0;
        memcpy(r->skip_reason, it->skip_reason, sizeof r->skip_reason);
        r->info = it->info;
    }
    if (gqp_mpi_agree(m, bad)) {
        snprintf(err, errcap, "out of memory gathering %d QPs' results on rank 0", run->count);
        free(w);
        free(all);
        free(counts);
        return -1;
    }
    /* the records, in rank order (each rank's share: the ranks' k1 − k0 gathered first) */
    MPI_Datatype rec;
    MPI_Type_contiguous((int)sizeof(gqp_wire), MPI_BYTE, &rec);
    MPI_Type_commit(&rec);
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (root)
        for (int r = 0, off = 0; r < m->size; ++r) {
            counts[m->size + r] = off;
            off += counts[r];
        }
    MPI_Gatherv(w, mine, rec, all, counts, root ? counts + m->size : NULL, rec, 0, MPI_COMM_WORLD);
    MPI_Type_free(&rec);
    free(w);
    free(counts);

    /* the vectors of the QPs that were solved, laid out as the records say */
    long long tn = 0, tm = 0;
    if (root)
        for (int k = 0; k < run->count; ++k)
            if (all[k].solved) {
                tn += all[k].n;
                tm += all[k].m;
            }
    double *buf = root ? malloc(sizeof(double) * (size_t)(2 * (tn + tm) + 1)) : NULL;
    bad = root && !buf;
    if (gqp_mpi_agree(m, bad)) {
        snprintf(err, errcap, "out of memory gathering %lld solution entries on rank 0",
                 2 * (tn + tm));
        free(all);
        return -1;
    }
    double *X = buf, *Y = buf ? buf + tn : NULL, *PC = buf ? buf + tn + tm : NULL;
    double *DC = buf ? buf + tn + 2 * tm : NULL;
    gala_status st = gala_qp_mpi_gather(MPI_COMM_WORLD, 0, sv, batch, X, Y, PC, DC, NULL);
    if (st != GALA_OK) {
        snprintf(err, errcap, "%s", gala_last_error(NULL));
        free(buf);
        free(all);
        return -1;
    }
    if (root) {
        long long xo = 0, yo = 0;
        int solved = 0; /* the QP's index in the batch of all ranks' solvers */
        for (int k = 0; k < run->count; ++k) {
            gqp_item *it = &run->items[k];
            const gqp_wire *r = &all[k];
            memcpy(it->pb.name, r->qps_name, sizeof it->pb.name);
            it->pb.n = r->n;
            it->pb.m = r->m;
            it->sense = r->sense;
            it->rows = r->rows;
            it->bound_rows = r->bound_rows;
            it->has_ref = r->has_ref;
            it->ref = r->ref;
            memcpy(it->skip_reason, r->skip_reason, sizeof it->skip_reason);
            it->info = r->info;
            it->x = it->y = it->prim_cert = it->dual_cert = NULL;
            it->batch_index = r->solved ? solved++ : -1;
            if (r->solved) {
                it->x = X + xo;
                it->prim_cert = PC + yo;
                it->y = Y + yo;
                it->dual_cert = DC + xo;
                xo += r->n;
                yo += r->m;
            }
            it->remote = 0;
        }
        run->gathered = buf;
    }
    free(all);
    return 0;
}

#else /* one process */

void gqp_mpi_init(int *argc, char ***argv, gqp_mpi *m)
{
    (void)argc;
    (void)argv;
    memset(m, 0, sizeof *m);
    m->size = m->local_size = 1;
}
void gqp_mpi_finalize(const gqp_mpi *m) { (void)m; }
void gqp_mpi_share(const gqp_mpi *m, int total, int *k0, int *k1)
{
    (void)m;
    *k0 = 0;
    *k1 = total;
}
int gqp_mpi_agree(const gqp_mpi *m, int rc)
{
    (void)m;
    return rc;
}
int gqp_mpi_bcast_rc(const gqp_mpi *m, int rc)
{
    (void)m;
    return rc;
}
double gqp_mpi_max(const gqp_mpi *m, double v)
{
    (void)m;
    return v;
}
long long gqp_mpi_sum(const gqp_mpi *m, long long v)
{
    (void)m;
    return v;
}
int gqp_mpi_gather(const gqp_mpi *m, gqp_run *run, int k0, int k1, const gala_qp_solver *sv,
                   const gala_qp_problem *batch, char *err, size_t errcap)
{
    (void)m, (void)run, (void)k0, (void)k1, (void)sv, (void)batch, (void)err, (void)errcap;
    return 0;
}

#endif
