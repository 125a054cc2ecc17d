/**
 * @file qp_mpi.h
 * @brief One QP batch over the ranks of an MPI communicator (library `gala_mpi`, built with
 * `-DGALA_WITH_MPI=ON` or `AUTO` when MPI is found; link `gala::gala_mpi`).
 *
 * For programs that already use MPI: every rank takes a contiguous share of the batch
 * (gala_qp_mpi_share), sets up and solves it on its own device with the ordinary calls
 * (gala_qp_setup, gala_qp_solve; gala_qp_mpi_local_rank picks a GPU per node), and one
 * call gathers every rank's results onto one rank in the batch's order
 * (gala_qp_mpi_gather). Nothing else of gala depends on MPI; `mpirun -np R gala-qp solve`
 * does the same for files and generated QPs (docs/scale.md).
 *
 * @code
 *   int k0, k1, local;
 *   gala_qp_mpi_share(MPI_COMM_WORLD, count, NULL, &k0, &k1);
 *   gala_qp_mpi_local_rank(MPI_COMM_WORLD, &local, NULL);    // GPU `local % gpus`
 *   gala_qp_solver *s = NULL;
 *   if (k1 > k0) { gala_qp_setup(ctx, problems + k0, k1 - k0, &set, &s); gala_qp_solve(s); }
 *   gala_qp_mpi_gather(MPI_COMM_WORLD, 0, s, problems + k0, x, y, NULL, NULL, infos);
 * @endcode
 */
#ifndef GALA_QP_MPI_H
#define GALA_QP_MPI_H

#include <mpi.h>

#include "gala/qp.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief This rank's share of a batch of @p count QPs: QPs k0 .. k1 − 1, contiguous, in
 * rank order (rank 0 the first QPs). Without @p work the shares differ by at most one QP;
 * with it (count entries ≥ 0, the same on every rank: for example n² of each QP) each share's
 * work is as close to the total's 1/size as contiguous shares allow. A share may be empty
 * (k0 = k1) when there are more ranks than QPs. Not collective (no communication).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (count < 0, NULL output, a negative or non-finite
 *         work entry, an MPI error).
 */
GALA_API gala_status gala_qp_mpi_share(MPI_Comm comm, int count, const double *work, int *k0,
                                       int *k1);

/**
 * @brief This rank's rank among the ranks of its node (0 .. local_size − 1), for choosing a
 * device: `gala_context_options.device = local_rank % devices`. Collective.
 * @param local_size the ranks on this node (may be NULL).
 * @return GALA_OK; GALA_ERR_INVALID_ARG (NULL local_rank, an MPI error).
 */
GALA_API gala_status gala_qp_mpi_local_rank(MPI_Comm comm, int *local_rank, int *local_size);

/**
 * @brief Gather every rank's results onto rank @p root, in the order of the ranks' shares
 * (gala_qp_mpi_share's order: the batch's). Collective: every rank calls it, after its
 * gala_qp_solve.
 * @param solver   this rank's solver (its QPs are the rank's share), or NULL for an empty
 *                 share (then problems is ignored).
 * @param problems the share's problems as given to gala_qp_setup (their n and m lay out
 *                 the vectors).
 * @param x, y     on root: Σn and Σm entries of the whole batch (as gala_qp_get_solutions:
 *                 NaN where a QP's status has no solution); ignored on the other ranks.
 *                 Any output may be NULL on root too (not gathered).
 * @param prim_inf_cert, dual_inf_cert on root: Σm and Σn entries (as gala_qp_get_solution's
 *                 certificates: NaN where the QP is not found infeasible).
 * @param infos    on root: one gala_qp_info per QP of the batch (as gala_qp_get_infos).
 * @return the same status on every rank: GALA_OK; GALA_ERR_INVALID_ARG (bad root, a solver
 *         not solved, an MPI error), or the first failing rank's status, with its rank in
 *         the message (gala_last_error(NULL)); the outputs are then unspecified.
 */
GALA_API gala_status gala_qp_mpi_gather(MPI_Comm comm, int root, const gala_qp_solver *solver,
                                        const gala_qp_problem *problems, double *x, double *y,
                                        double *prim_inf_cert, double *dual_inf_cert,
                                        gala_qp_info *infos);

#ifdef __cplusplus
}
#endif

#endif
