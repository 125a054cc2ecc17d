/* gala_qp_solve (docs/qp.md): the loop that launches the strategy's iterations, reads a
 * counter at the checks, refactors the QPs whose ρ changed, compacts the launch lists to
 * the running QPs, and stops on the iteration or time limit or the progress callback. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp_internal.h"

/* running QPs and QPs waiting for a refactorization */
static gala_status count_running(gala_qp_solver *s, int out[2])
{
    gala_kernel *k;
    GALA_TRY(gala_qp_kernel(s, "qp_count", &k));
    gala_dims d = gala_dims_1d(QP_UTIL_WG, QP_UTIL_WG);
    GALA_TRY(qp_launch_count(s->ctx, k, &d, s->b_slots, s->nvalid,
                         s->b_state, s->b_refactor, s->b_counts));
    GALA_TRY(gala_buffer_read(s->b_counts, 0, 2, out));
    gala_qp_prof(s, GALA_QP_PHASE_SYNC);
    return GALA_OK;
}

/* ------------------------------------------------------------------ active lists */

/* The launch classes of the strategy: the dense strategy's size classes, or the one. */
static qp_bin *launch_classes(gala_qp_solver *s, int *n)
{
    *n = s->ls->nclasses;
    return s->ls->classes;
}

/* After the strategy's setup: the buffers of the compacted lists. */
gala_status gala_qp_active_setup(gala_qp_solver *s)
{
    int nc;
    qp_bin *c = launch_classes(s, &nc);
    for (int b = 0; b < nc; ++b) {
        GALA_TRY(gala_qp_mkbuf(s, GALA_INT, (size_t)c[b].count, &c[b].alist));
        c[b].acount = c[b].count;
        c[b].compacted = 0;
    }
    GALA_TRY(gala_qp_mkbuf(s, GALA_INT, (size_t)nc, &s->b_class_counts));
    return gala_qp_mkbuf(s, GALA_INT, ((size_t)s->nvalid + QP_UTIL_WG - 1) / QP_UTIL_WG, &s->b_chunk_counts);
}

/* Launches use every listed QP again (start of a solve: statuses were reset). */
static void active_reset(gala_qp_solver *s)
{
    int nc;
    qp_bin *c = launch_classes(s, &nc);
    for (int b = 0; b < nc; ++b) {
        c[b].acount = c[b].count;
        c[b].compacted = 0;
    }
}

/* QPs the launches cover now. */
static long long active_total(gala_qp_solver *s)
{
    int nc;
    long long t = 0;
    qp_bin *c = launch_classes(s, &nc);
    for (int b = 0; b < nc; ++b) t += c[b].acount;
    return t;
}

/* Compact every class's list to its running QPs (in list order; cl/qp.cl's
 * qp_compact_count and qp_compact_write), so that later launches of qp_admm and qp_check
 * have one work-group per running tile: a batch whose last QPs need many more iterations
 * than the rest no longer pays for a whole-batch launch per check. One read-back. */
static gala_status active_compact(gala_qp_solver *s)
{
    int nc;
    qp_bin *c = launch_classes(s, &nc);
    gala_kernel *kc, *kw;
    GALA_TRY(gala_qp_kernel(s, "qp_compact_count", &kc));
    GALA_TRY(gala_qp_kernel(s, "qp_compact_write", &kw));
    int *cnt = gala_malloc(sizeof(int) * (size_t)nc);
    if (!cnt) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no host memory");
    gala_status st = GALA_OK;
    for (int b = 0; st == GALA_OK && b < nc; ++b) {
        if (c[b].acount == 0) continue; /* nothing of it runs (it stays empty) */
        gala_dims d = gala_qp_dims(((long long)c[b].count + QP_UTIL_WG - 1) / QP_UTIL_WG, QP_UTIL_WG);
        st = qp_launch_compact_count(s->ctx, kc, &d, c[b].list, c[b].count,
                         s->b_state, s->b_chunk_counts);
        if (st == GALA_OK)
            st = qp_launch_compact_write(s->ctx, kw, &d, c[b].list, c[b].count,
                             s->b_state, s->b_chunk_counts, c[b].alist,
                             s->b_class_counts, b);
    }
    if (st == GALA_OK) st = gala_buffer_read(s->b_class_counts, 0, (size_t)nc, cnt);
    for (int b = 0; st == GALA_OK && b < nc; ++b) {
        if (c[b].acount == 0) continue;
        c[b].acount = cnt[b];
        c[b].compacted = 1;
    }
    gala_free(cnt);
    gala_qp_prof(s, GALA_QP_PHASE_SYNC);
    return st;
}

/* Status reset of every slot (keep: before a solve; else after an update). */
static gala_status reset_state(gala_qp_solver *s, int keep)
{
    gala_kernel *k;
    GALA_TRY(gala_qp_kernel(s, "qp_reset", &k));
    gala_dims d = gala_qp_dims(((long long)s->nvalid + QP_UTIL_WG - 1) / QP_UTIL_WG, QP_UTIL_WG);
    return qp_launch_reset(s->ctx, k, &d, s->b_state, s->b_host_status, s->nvalid,
                       keep, s->ls->rung0);
}

/* ------------------------------------------------------------------ the loop */

/* K was dropped while the chunk was parked (chunk.c): factor it again, from the same scaled
 * P, A, row kinds and ρ (the same bits) */
static gala_status refactor_stale(gala_qp_solver *s)
{
    if (!s->k_stale) return GALA_OK;
    GALA_TRY(gala_buffer_fill(s->b_refactor, 0, (size_t)s->nvalid, 1));
    GALA_TRY(s->ls->ops->update_matrices(s->ls, s));
    s->k_stale = 0;
    return GALA_OK;
}

/* A solve's profile starts: its phases cleared, the clock at t0. */
static void solve_prof_start(gala_qp_solver *s, double t0)
{
    gala_qp_prof_reset(s, GALA_QP_PHASE_ITERATE, GALA_QP_NPHASES - 1);
    s->prof_mark = t0;
}

gala_status gala_qp_solve_prepare(gala_qp_solver *s)
{
    solve_prof_start(s, gala_now());
    s->prepared = 1;
    if (s->nvalid == 0 || !s->k_stale) return GALA_OK;
    s->in_solve = 1; /* the factorization's phases count as REFACTOR */
    gala_status st = refactor_stale(s);
    s->in_solve = 0;
    return st;
}

static gala_status solve_impl(gala_qp_solver *s, double t0, double **sync_t, int **sync_it,
                              int *nsync)
{
    gala_qp_settings *set = &s->set;
    GALA_TRY(refactor_stale(s));
    if (!set->warm_starting) GALA_TRY(gala_qp_cold_start(s));
    GALA_TRY(reset_state(s, 1));
    active_reset(s);
    gala_qp_prof(s, GALA_QP_PHASE_SOLVE_OTHER);
    int cnt[2];
    GALA_TRY(count_running(s, cnt));
    if (cnt[1] > 0) { /* pending from updates */
        GALA_TRY(s->ls->ops->update_rho(s->ls, s));
        GALA_TRY(count_running(s, cnt));
    }
    int running = cnt[0];
    int it = 0, cap = 0;
    int interval = set->adaptive_rho == GALA_QP_ADAPTIVE_RHO_ITERATIONS ? set->adaptive_rho_interval : 0;
    int ct = set->check_termination;
    int per_launch = set->iters_per_launch > 0 ? set->iters_per_launch : (ct > 0 ? ct : 50);
    int timed = set->time_limit > 0 && set->time_limit < 1e9;
    *nsync = 0;
    cap = set->max_iter / (ct > 0 ? ct : 1) + set->max_iter / per_launch + 4;
    *sync_t = gala_malloc(sizeof(double) * (size_t)cap);
    *sync_it = gala_malloc(sizeof(int) * (size_t)cap);
    if (!*sync_t || !*sync_it) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp: no memory");
    int stop_status = 0;
    while (running > 0 && it < set->max_iter) {
        int next = set->max_iter;
        if (ct > 0) next = (it / ct + 1) * ct;
        if (interval > 0) {
            int na = (it / interval + 1) * interval;
            if (na < next) next = na;
        }
        if (next > set->max_iter) next = set->max_iter;
        if (next - it > per_launch) next = it + per_launch;
        int k = next - it;
        int check = ct > 0 && next % ct == 0;
        /* as OSQP: ρ adapts at the last iteration too (for the next solve) */
        int adapt = interval > 0 && next % interval == 0;
        int fin = next == set->max_iter ? GALA_QP_MAX_ITER_REACHED : 0;
        GALA_TRY(s->ls->ops->solve(s->ls, s, k, check, adapt, fin));
        it = next;
        int synced = 0;
        if (check || fin || adapt || timed || set->progress ||
            set->adaptive_rho == GALA_QP_ADAPTIVE_RHO_TIME) {
            GALA_TRY(count_running(s, cnt));
            running = cnt[0];
            synced = 1;
            if (*nsync < cap) {
                (*sync_t)[*nsync] = gala_now() - t0;
                (*sync_it)[(*nsync)++] = it;
            }
            if (cnt[1] > 0 && running > 0 && it < set->max_iter)
                GALA_TRY(s->ls->ops->update_rho(s->ls, s));
            /* a quarter of the launched QPs finished: launch only the running ones */
            if (running > 0 && it < set->max_iter && 4 * (long long)running <= 3 * active_total(s))
                GALA_TRY(active_compact(s));
        }
        if (!synced) continue;
        double el = gala_now() - t0;
        if (set->adaptive_rho == GALA_QP_ADAPTIVE_RHO_TIME && interval == 0 &&
            el > set->adaptive_rho_fraction * s->setup_time) {
            int base = ct > 0 ? ct : 25;
            interval = (int)((it + base / 2) / base) * base;
            if (interval < base) interval = base;
        }
        if (set->progress && running > 0 &&
            set->progress(set->progress_user, s->count - running, s->count, it)) {
            stop_status = GALA_QP_INTERRUPTED;
            break;
        }
        if (timed && running > 0 && el >= set->time_limit) {
            stop_status = GALA_QP_TIME_LIMIT_REACHED;
            break;
        }
    }
    if (stop_status && running > 0) {
        /* a last check with the ×10 tolerances, then the stop status (OSQP's time limit) */
        GALA_TRY(s->ls->ops->solve(s->ls, s, 0, 1, 0, stop_status));
        if (*nsync < cap) {
            (*sync_t)[*nsync] = gala_now() - t0;
            (*sync_it)[(*nsync)++] = it;
        }
    }
    return GALA_OK;
}

gala_status gala_qp_solve(gala_qp_solver *s)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "gala_qp_solve: solver is NULL");
    if (s->chunks) return gala_qp_chunked_solve(s);
    double t0 = gala_now();
    double *sync_t = NULL;
    int *sync_it = NULL, nsync = 0;
    gala_status st = GALA_OK;
    if (!s->prepared) solve_prof_start(s, t0);
    s->prepared = 0;
    s->prof_mark = t0;
    s->in_solve = 1;
    s->solved = 0;
    gala_qp_deriv_release(s); /* derivatives belong to the previous solution */
    ++s->kept_gen;            /* and so do polishing's kept factors */
    if (s->nvalid > 0) st = solve_impl(s, t0, &sync_t, &sync_it, &nsync);
    gala_qp_prof(s, GALA_QP_PHASE_SOLVE_OTHER);
    /* what a device update left for the host: the verdicts collect reads, the host copies
     * polishing reads */
    if (st == GALA_OK)
        st = gala_qp_dio_host(s, QP_DIO_VERDICTS | (s->set.polishing ? QP_DIO_VECTORS : 0));
    if (st == GALA_OK) st = gala_qp_collect(s, sync_t, sync_it, nsync);
    s->in_solve = 0;
    gala_free(sync_t);
    gala_free(sync_it);
    if (st == GALA_OK) s->solved = 1;
    if (st == GALA_OK) st = gala_qp_dio_solved(s);
    return st;
}
