/* The PCG linear-system strategy of the QP solver (docs/qp.md): OSQP's indirect method.
 * Each ADMM iteration solves the reduced system
 *
 *     (P + σI + Aᵀdiag(ρ)A) x̃ = σx − q + Aᵀ(ρ∘z − y)
 *
 * by conjugate gradients with the Jacobi preconditioner, warm started from the ADMM iterate
 * x, to OSQP's adaptive tolerance (settings cg_max_iter, cg_tol_reduction,
 * cg_tol_fraction). Nothing is factored and nothing is O(n²): K is applied through the
 * CSR copies of P, A and Aᵀ the solver keeps for every strategy, so the memory and the work
 * per iteration follow the nonzeros. One ADMM iteration is three launches for the batch:
 * qp_kkt_rhs (the sparse strategy's), qp_pcg (one work-group per QP runs the whole CG loop)
 * and qp_kkt_update; the termination check is the dense strategy's qp_check. A change of ρ
 * recomputes the preconditioner of the QPs concerned (qp_pcg_precond). Chosen only on
 * request (GALA_QP_LINSYS_PCG): for QPs too large to factor, or whose factors fill in. */
#include <stdlib.h>

#include "qp_internal.h"

/* kq per slot, as the sparse strategy's (qp_kkt_rhs, qp_kkt_update): the offset of its
 * right-hand side, XO + ZO (the slots' n + m entries one after the other, so a batch of
 * mixed sizes takes Σ(n + m), not count·max(n + m)), then two unused ints */
#define NKQ 3

typedef struct {
    qp_linsys base;
    gala_buffer *b_kq, *b_kb, *b_pw, *b_pst;
} qp_pcg;

static void pcg_destroy(qp_linsys *ls)
{
    qp_pcg *p = (qp_pcg *)ls;
    gala_qp_linsys_release_base(ls);
    gala_buffer_free(p->b_kq);
    gala_buffer_free(p->b_kb);
    gala_buffer_free(p->b_pw);
    gala_buffer_free(p->b_pst);
    gala_free(p);
}

static gala_status pcg_setup(gala_qp_solver *s, qp_linsys **out)
{
    gala_context *ctx = s->ctx;
    const int nv = s->nvalid;
    if (s->ntot + s->mtot > 0x7fffffffu) /* the right-hand-side offsets in kq are ints */
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: the PCG strategy takes at "
                          "most 2^31 - 1 variables and constraints in a batch (%zu)",
                          s->ntot + s->mtot);
    qp_pcg *p = gala_calloc(1, sizeof *p);
    int *kq = gala_malloc(sizeof(int) * NKQ * (size_t)nv);
    if (!p || !kq) {
        gala_free(p);
        gala_free(kq);
        return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    p->base.ops = &gala_qp_linsys_pcg;
    *out = &p->base;
    for (int sl = 0; sl < nv; ++sl) {
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        kq[NKQ * sl] = mt[QP_M_XO] + mt[QP_M_ZO];
        kq[NKQ * sl + 1] = kq[NKQ * sl + 2] = 0;
    }
    gala_status st = gala_buffer_create(ctx, GALA_INT, NKQ * (size_t)nv, &p->b_kq);
    if (st == GALA_OK) st = gala_buffer_write(p->b_kq, 0, NKQ * (size_t)nv, kq);
    gala_free(kq);
    if (st == GALA_OK) st = gala_buffer_create(ctx, s->dt, s->ntot + s->mtot + 1, &p->b_kb);
    if (st == GALA_OK)
        st = gala_buffer_create(ctx, s->dt, QP_PW_NV * s->ntot + s->mtot + 1, &p->b_pw);
    if (st == GALA_OK) st = gala_buffer_create(ctx, s->dt, QP_NPST * (size_t)nv, &p->b_pst);
    if (st == GALA_OK) st = gala_buffer_fill(p->b_pst, 0, QP_NPST * (size_t)nv, 0);
    if (st == GALA_OK) st = gala_qp_check_class(s, &p->base);
    return st;
}

/* The Jacobi preconditioner of the flagged QPs (all of them when all_flagged), from the
 * scaled P, A and each QP's ρ; a QP whose P + σI has a diagonal entry ≤ 0 becomes NON_CVX. */
static gala_status pcg_refactor(qp_pcg *p, gala_qp_solver *s, int all_flagged)
{
    const int nv = s->nvalid;
    gala_kernel *k;
    GALA_TRY(gala_qp_kernel(s, "qp_pcg_precond", &k));
    gala_dims d = gala_dims_1d((size_t)nv * QP_UTIL_WG, QP_UTIL_WG);
    GALA_TRY(qp_launch_pcg_precond(s->ctx, k, &d, s->b_meta, s->b_slots, nv,
                         s->b_state, s->b_refactor, all_flagged,
                         s->b_rowptr, s->b_colidx, s->b_vals, s->b_ctype,
                         s->b_info, p->b_pw, (long long)s->ntot,
                         s->set.sigma));
    gala_qp_prof(s, GALA_QP_PHASE_FACTOR);
    return gala_buffer_fill(s->b_refactor, 0, (size_t)nv, 0);
}

static gala_status pcg_update_rho(qp_linsys *ls, gala_qp_solver *s)
{
    return pcg_refactor((qp_pcg *)ls, s, 0);
}

static gala_status pcg_update_matrices(qp_linsys *ls, gala_qp_solver *s)
{
    return pcg_refactor((qp_pcg *)ls, s, 1);
}

static gala_status pcg_solve(qp_linsys *ls, gala_qp_solver *s, int iters, int check, int adapt,
                             int fin)
{
    qp_pcg *p = (qp_pcg *)ls;
    const qp_bin *c = &ls->one;
    gala_buffer *list = c->compacted ? c->alist : c->list;
    const int nlist = c->acount;
    if (nlist <= 0) return GALA_OK;
    gala_kernel *kr, *kp, *ku;
    GALA_TRY(gala_qp_kernel(s, "qp_kkt_rhs", &kr));
    GALA_TRY(gala_qp_kernel(s, "qp_pcg", &kp));
    GALA_TRY(gala_qp_kernel(s, "qp_kkt_update", &ku));
    gala_dims d = gala_dims_1d((size_t)nlist * QP_UTIL_WG, QP_UTIL_WG);
    const long long ntot = (long long)s->ntot, mtot = (long long)s->mtot;
    const gala_qp_settings *t = &s->set;
    for (int it = 0; it < iters; ++it) {
        const int last = it == iters - 1;
        GALA_TRY(qp_launch_kkt_rhs(s->ctx, kr, &d, s->b_meta, list, nlist,
                             s->b_state, p->b_kq, s->b_nvec, ntot,
                             s->b_mvec, mtot, s->b_ctype,
                             s->b_info, p->b_kb, 1, 1,
                             t->sigma, last));
        GALA_TRY(qp_launch_pcg(s->ctx, kp, &d, s->b_meta, list, nlist,
                             s->b_state, s->b_rowptr, s->b_colidx,
                             s->b_vals, s->b_nvec, ntot,
                             s->b_ctype, s->b_info, p->b_kb,
                             p->b_pw, p->b_pst,
                             t->sigma, t->cg_max_iter,
                             t->cg_tol_reduction, t->cg_tol_fraction,
                             it, t->check_termination));
        GALA_TRY(qp_launch_kkt_update(s->ctx, ku, &d, s->b_meta, list, nlist,
                             s->b_state, p->b_kq, s->b_rowptr,
                             s->b_colidx, s->b_vals, s->b_nvec, ntot,
                             s->b_mvec, mtot, s->b_ctype,
                             s->b_info, p->b_kb, p->b_kb, 0,
                             1, 1, t->alpha, t->sigma,
                             (last ? iters : 0)));
    }
    if (iters > 0) gala_qp_prof(s, GALA_QP_PHASE_ITERATE);
    if (check || adapt || fin) GALA_TRY(gala_qp_launch_admm(s, ls, c, 0, check, adapt, fin));
    return GALA_OK;
}

const qp_linsys_ops gala_qp_linsys_pcg = {
    GALA_QP_LINSYS_PCG, pcg_setup, pcg_solve, pcg_update_rho, pcg_update_matrices, NULL,
    pcg_destroy,
};
