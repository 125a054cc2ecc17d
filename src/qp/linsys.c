/* The linear-system strategies' common room (docs/qp.md): the AUTO choice, the making and
 * freeing of a strategy object, and what every object has (the stand-in buffers, the
 * one-class launch of the strategies without K in local memory). The strategies themselves:
 * linsys_dense.c (dense, dense-shared), linsys_sparse.c (sparse LDLᵀ), linsys_pcg.c. */
#include <string.h>

#include "qp_internal.h"

gala_status gala_qp_linsys_choose(gala_qp_solver *s, int same_data, const qp_linsys_ops **ops)
{
    const int want = s->set.linsys_solver;
    switch (want) {
    case GALA_QP_LINSYS_DENSE: *ops = &gala_qp_linsys_dense; return GALA_OK;
    case GALA_QP_LINSYS_SPARSE_LDLT: *ops = &gala_qp_linsys_sparse; return GALA_OK;
    case GALA_QP_LINSYS_PCG: *ops = &gala_qp_linsys_pcg; return GALA_OK;
    case GALA_QP_LINSYS_DENSE_SHARED:
        if (s->nvalid > 1 && !same_data)
            return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: DENSE_SHARED needs "
                              "the same P, A and row kinds (equality / inequality / free) in "
                              "every QP");
        *ops = &gala_qp_linsys_shared;
        return GALA_OK;
    default: break;
    }
    /* AUTO: the shared ladder for a batch of one P and A; else the sparse KKT factorization
     * is a candidate (gala_qp_linsys_make keeps it only where it is cheaper, from the QPs'
     * sparsity) once a QP reaches qp.sparse_n variables, or on devices that analyze batches
     * of few patterns at any size (qp.sparse_patterns: one sparse QP on the host backend);
     * else dense */
    if (s->nvalid > 1 && same_data) {
        *ops = &gala_qp_linsys_shared;
        return GALA_OK;
    }
    const gala_tune_qp *tq = &gala_tuned(s->ctx, s->dt)->qp;
    *ops = gala_qp_auto_max_n(s) >= (int)tq->sparse_n || tq->sparse_patterns > 0
               ? &gala_qp_linsys_sparse : &gala_qp_linsys_dense;
    return GALA_OK;
}

int gala_qp_auto_max_n(const gala_qp_solver *s)
{
    int maxn = 0;
    for (int k = 0; k < s->count; ++k)
        if (s->slot[k] >= 0 && s->qp_n[k] > maxn) maxn = s->qp_n[k];
    return maxn;
}

gala_status gala_qp_linsys_make(gala_qp_solver *s, const qp_linsys_ops *ops, qp_linsys **ls)
{
    *ls = NULL;
    if (ops == &gala_qp_linsys_sparse && s->set.linsys_solver == GALA_QP_LINSYS_AUTO) {
        GALA_TRY(gala_qp_sparse_setup_if_cheaper(s, ls));
        if (*ls) return GALA_OK;
        ops = &gala_qp_linsys_dense; /* the fallback: dearer, or no AMD in this build */
    }
    return ops->setup(s, ls);
}

void gala_qp_linsys_release_base(qp_linsys *ls)
{
    for (int b = 0; b < ls->nclasses; ++b) {
        if (ls->own_lists) gala_buffer_free(ls->classes[b].list);
        gala_buffer_free(ls->classes[b].alist);
    }
    if (ls->classes != &ls->one) gala_free(ls->classes);
    ls->classes = NULL;
    ls->nclasses = 0;
    gala_buffer_free(ls->K);
    gala_buffer_free(ls->ladder_rho);
    gala_buffer_free(ls->rung_ok);
    ls->K = ls->ladder_rho = ls->rung_ok = NULL;
}

void gala_qp_linsys_destroy(qp_linsys *ls)
{
    if (ls) ls->ops->destroy(ls);
}

gala_status gala_qp_launch_dummies(gala_qp_solver *s, qp_linsys *ls)
{
    if (!ls->ladder_rho) GALA_TRY(gala_buffer_create(s->ctx, s->dt, 1, &ls->ladder_rho));
    if (!ls->rung_ok) GALA_TRY(gala_buffer_create(s->ctx, GALA_INT, 1, &ls->rung_ok));
    if (!ls->K) GALA_TRY(gala_buffer_create(s->ctx, s->dt, 1, &ls->K));
    return GALA_OK;
}

gala_status gala_qp_check_class(gala_qp_solver *s, qp_linsys *ls)
{
    GALA_TRY(gala_qp_launch_dummies(s, ls)); /* qp_check names lrho, rungok and K */
    qp_bin c;
    memset(&c, 0, sizeof c);
    c.tb = c.rb = c.ks = c.ncap = c.mcap = 1;
    c.wg = QP_UTIL_WG;
    const size_t wmax = s->ctx->info.max_work_group_size;
    if ((size_t)c.wg > wmax) c.wg = (int)wmax / 32 * 32;
    if (c.wg < 32) c.wg = 32;
    gala_qp_linsys_one_class(s, ls, &c);
    return GALA_OK;
}

void gala_qp_linsys_one_class(gala_qp_solver *s, qp_linsys *ls, const qp_bin *c)
{
    ls->one = *c;
    ls->one.list = s->b_slots; /* owned by the solver */
    ls->one.count = s->nvalid;
    ls->classes = &ls->one;
    ls->nclasses = 1;
}
