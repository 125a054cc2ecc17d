/*
 * Sparse LDLᵀ, numeric phase (include/gala/ldlt.h): factor objects on the device, numeric
 * factorization and solves of batches, by the kernels of cl/sldlt.cl.
 *
 * A factor object holds, for ngroups patterns (group g: batch[g] matrices of pattern
 * sym[g]): the concatenated schedule images (one int buffer), the group descriptors, the
 * factor values V (interleaved per group: element e of matrix b at vbase + e·ldv + b), the
 * status array, and the kernels, fetched once here so that refactor and solve compile and
 * allocate nothing.
 *
 * Launch shape: a work-group holds MB matrices (lanes m) × CW column workers. With many
 * matrices (enough to fill the device one lane per matrix) CW = 1: every lane walks the whole
 * schedule of its matrix and no barrier is needed. With few matrices, CW workers share the
 * columns of each elimination-tree level (barrier between levels).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparse_ldlt.h"

/* Typed launches of the sparse LDLᵀ kernels, from their argument lists (cl/sldlt_abi.h) */
GALA_LAUNCHER(sldlt_launch_factor, SLDLT_ARGS_factor)
GALA_LAUNCHER(sldlt_launch_factor_cols, SLDLT_ARGS_factor_cols)
GALA_LAUNCHER(sldlt_launch_solve, SLDLT_ARGS_solve)

struct gala_sparse_ldlt {
    gala_context *ctx;
    gala_dtype dtype;
    int ngroups, total, baseline, mb, cw;
    int fsteps, ssteps; /* launches of a factorization and of a solve (SLDLT_SP_*; 1 each
                           unless the device cuts long loops short: gala_loop_limit) */
    int *gd;        /* host copy of the group descriptors */
    int *exp_pos;   /* per group: expected positive pivots, or -1 */
    int *perm;      /* per group, concatenated: the permutations (for messages) */
    size_t *perm_off;
    int *st_h;      /* host status, LA_NST per matrix */
    gala_buffer *gdesc, *sched, *V, *st, *W, *IW;
    gala_kernel *kfactor, *ksolve;
};

_Static_assert(SLDLT_G_STEPS < SLDLT_GDESC, "the group descriptor's fields fit it (cl/sldlt_abi.h)");

static size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

void gala_sparse_ldlt_destroy(gala_sparse_ldlt *F)
{
    if (!F) return;
    gala_buffer_free(F->gdesc);
    gala_buffer_free(F->sched);
    gala_buffer_free(F->V);
    gala_buffer_free(F->st);
    gala_buffer_free(F->W);
    gala_buffer_free(F->IW);
    gala_free(F->gd);
    gala_free(F->exp_pos);
    gala_free(F->perm);
    gala_free(F->perm_off);
    gala_free(F->st_h);
    gala_free(F);
}

int gala_sparse_ldlt_batch(const gala_sparse_ldlt *F) { return F ? F->total : 0; }

static int pow2_floor(long v)
{
    int p = 1;
    while ((long)p * 2 <= v) p *= 2;
    return p;
}

/* Loop iterations of one work-item (one worker, CW = 1) for factor task t of S
 * (cl/sldlt.cl, sl_column): the task, zeroing and dividing its column, its entries of A, its
 * instructions and their runs. */
static long factor_task_loops(const gala_sparse_ldlt_symbolic *S, int t)
{
    const int *T = S->img + S->o_task + (size_t)t * SLDLT_TASK;
    const int *I = S->img + S->o_ins;
    long c = 1 + 2L * (T[SLDLT_T_L1] - T[SLDLT_T_L0]) + (T[SLDLT_T_A1] - T[SLDLT_T_A0]) +
             (T[SLDLT_T_INS1] - T[SLDLT_T_INS0]);
    for (int i = T[SLDLT_T_INS0]; i < T[SLDLT_T_INS1]; ++i)
        c += I[(size_t)i * SLDLT_INS + SLDLT_I_LEN];
    return c;
}

/* Item p of a solve (p < n: forward task p; else backward task 2n−1−p): its loop
 * iterations (cl/sldlt.cl, sl_fwd / sl_bwd). */
static long solve_item_loops(const gala_sparse_ldlt_symbolic *S, int p)
{
    const int n = S->n, t = p < n ? p : 2 * n - 1 - p;
    const int *U = S->img + S->o_stask + (size_t)t * SLDLT_STASK;
    return 1 + (p < n ? U[SLDLT_S_R1] - U[SLDLT_S_R0] : U[SLDLT_S_L1] - U[SLDLT_S_L0]);
}

/* The step table (SLDLT_SP_*) of S in out (room for 9n + 8 ints): launches of at most
 * `budget` loop iterations per work-item (one launch each where budget <= 0). Returns its
 * length; *most: the largest single task's iterations (a launch has at least one). */
static size_t plan_steps(const gala_sparse_ldlt_symbolic *S, long budget, int *out, long *most)
{
    const int n = S->n;
    int *fac = out + SLDLT_SP_FAC, nf = 0;
    long acc = 0;
    *most = 0;
    fac[0] = 0;
    for (int t = 0; t < n && budget > 0; ++t) {
        const long c = factor_task_loops(S, t);
        if (c > *most) *most = c;
        if (acc > 0 && acc + c > budget) {
            fac[++nf] = t;
            acc = 0;
        }
        acc += c;
    }
    fac[++nf] = n;
    out[SLDLT_SP_NFAC] = nf;
    /* the solve: forward items 0..n−1 then backward n..2n−1, the copy of B first */
    int *u = out + SLDLT_SP_SOLVE0 + nf, ns = 0, p0 = 0;
    acc = n;
    for (int p = 0; p < 2 * n && budget > 0; ++p) {
        const long c = solve_item_loops(S, p);
        if (c > *most) *most = c;
        if (acc > 0 && acc + c > budget && p > p0) {
            int *w = u + SLDLT_SP_SW * ns;
            w[SLDLT_SP_F0] = p0 < n ? p0 : n;
            w[SLDLT_SP_F1] = p < n ? p : n;
            w[SLDLT_SP_B0] = 2 * n - (p0 > n ? p0 : n);
            w[SLDLT_SP_B1] = 2 * n - (p > n ? p : n);
            ++ns;
            p0 = p;
            acc = 0;
        }
        acc += c;
    }
    int *w = u + SLDLT_SP_SW * ns;
    w[SLDLT_SP_F0] = p0 < n ? p0 : n;
    w[SLDLT_SP_F1] = n;
    w[SLDLT_SP_B0] = 2 * n - (p0 > n ? p0 : n);
    w[SLDLT_SP_B1] = 0;
    ++ns;
    out[SLDLT_SP_NSOLVE] = ns;
    return (size_t)(SLDLT_SP_SOLVE0 + nf + SLDLT_SP_SW * ns);
}

/* Check a values or right-hand-side layout against every group: element (q, r, e) at
 * off + q·ms + r·rs + e·es for q < total, r < nrhs, e < len(g). */
static gala_status check_layout(gala_context *ctx, const char *fn, const char *name,
                                const gala_buffer *buf, gala_dtype dt, const gala_sparse_ldlt *F,
                                int by_nnz, int nrhs, size_t off, size_t ms, size_t rs, size_t es)
{
    size_t hi = 0;
    int any = 0;
    for (int g = 0; g < F->ngroups; ++g) {
        const int *G = F->gd + g * SLDLT_GDESC;
        const size_t len = (size_t)(by_nnz ? G[SLDLT_G_NNZA] : G[SLDLT_G_N]);
        if (G[SLDLT_G_BATCH] == 0 || len == 0 || nrhs == 0) continue;
        size_t a, b, c, e;
        const size_t qlast = (size_t)G[SLDLT_G_Q0] + (size_t)G[SLDLT_G_BATCH] - 1;
        if (gala_mul_overflow(qlast, ms, &a) || gala_mul_overflow((size_t)(nrhs - 1), rs, &b) ||
            gala_mul_overflow(len - 1, es, &c) || a > SIZE_MAX - b || a + b > SIZE_MAX - c ||
            (e = a + b + c) > SIZE_MAX - off - 1)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the layout of %s overflows", fn, name);
        if (e + 1 > hi) hi = e + 1;
        any = 1;
    }
    return gala_check_buf(ctx, fn, name, buf, dt, off, any ? hi : 0);
}

/* Read the status back; info, inertia, status and message. */
static gala_status report(gala_sparse_ldlt *F, const char *fn, int *info, int *inertia)
{
    gala_context *ctx = F->ctx;
    if (F->total == 0) return GALA_OK;
    GALA_TRY(gala_buffer_read(F->st, 0, (size_t)F->total * LA_NST, F->st_h));
    int first_nf = -1, first_sing = -1, first_in = -1;
    for (int g = 0; g < F->ngroups; ++g) {
        const int *G = F->gd + g * SLDLT_GDESC;
        for (int b = 0; b < G[SLDLT_G_BATCH]; ++b) {
            const int q = G[SLDLT_G_Q0] + b, *h = F->st_h + LA_NST * (size_t)q;
            if (info) info[q] = h[LA_ST_INFO];
            if (inertia) {
                inertia[2 * q] = h[LA_ST_POS];
                inertia[2 * q + 1] = h[LA_ST_NEG];
            }
            if (h[LA_ST_INFO] < 0 && first_nf < 0) first_nf = q;
            if (h[LA_ST_INFO] > 0 && first_sing < 0) first_sing = q;
            if (h[LA_ST_INFO] == 0 && F->exp_pos[g] >= 0 && h[LA_ST_POS] != F->exp_pos[g] &&
                first_in < 0)
                first_in = q;
        }
    }
    const int q = first_nf >= 0 ? first_nf : (first_sing >= 0 ? first_sing : first_in);
    if (q < 0) return GALA_OK;
    int g = 0;
    while (g + 1 < F->ngroups && F->gd[(g + 1) * SLDLT_GDESC + SLDLT_G_Q0] <= q) ++g;
    const int *h = F->st_h + LA_NST * (size_t)q;
    const int k = h[LA_ST_INFO] < 0 ? -h[LA_ST_INFO] : h[LA_ST_INFO];
    const int b = q - F->gd[g * SLDLT_GDESC + SLDLT_G_Q0];
    if (first_nf >= 0 || first_sing >= 0)
        return gala_error(ctx, first_nf >= 0 ? GALA_ERR_NOT_FINITE : GALA_ERR_SINGULAR,
                          "%s: matrix %d (group %d, item %d): pivot %d (original column %d) is %s",
                          fn, q, g, b, k, F->perm[F->perm_off[g] + (size_t)k - 1],
                          first_nf >= 0 ? "NaN or Inf" : "zero");
    return gala_error(ctx, GALA_ERR_WRONG_INERTIA,
                      "%s: matrix %d (group %d, item %d) has %d positive and %d negative pivots; "
                      "%d positive expected (not quasi-definite)", fn, q, g, b, h[LA_ST_POS],
                      h[LA_ST_NEG], F->exp_pos[g]);
}

static gala_status numeric(gala_sparse_ldlt *F, const char *fn, const gala_buffer *x,
                           size_t x_off, size_t x_ms, size_t x_es, int *info, int *inertia)
{
    gala_context *ctx = F->ctx;
    if (F->total == 0) return GALA_OK;
    long long groups = 0;
    for (int g = 0; g < F->ngroups; ++g)
        groups += ((long long)F->gd[g * SLDLT_GDESC + SLDLT_G_BATCH] + F->mb - 1) / F->mb;
    const size_t wg = (size_t)F->mb * (size_t)F->cw;
    gala_dims d = gala_dims_1d((size_t)groups * wg, wg);
    if (F->baseline)
        GALA_TRY(sldlt_launch_factor_cols(ctx, F->kfactor, &d, F->ngroups, F->gdesc, F->sched, x,
                                          (long long)x_off, (long long)x_ms, (long long)x_es, F->V,
                                          F->W, F->IW, F->st));
    else
        for (int step = 0; step < F->fsteps; ++step)
            GALA_TRY(sldlt_launch_factor(ctx, F->kfactor, &d, F->ngroups, F->gdesc, F->sched, x,
                                         (long long)x_off, (long long)x_ms, (long long)x_es, F->V,
                                         F->st, step));
    return report(F, fn, info, inertia);
}

/* No allocation here: refactor runs in the QP solver's loop. */
static gala_status check_values(gala_sparse_ldlt *F, const char *fn, const gala_buffer *x,
                                size_t x_off, size_t x_ms, size_t x_es)
{
    return check_layout(F->ctx, fn, "x", x, F->dtype, F, 1, 1, x_off, x_ms, 0, x_es);
}

gala_status gala_sparse_ldlt_factor_groups(gala_context *ctx, int ngroups,
                                           const gala_sparse_ldlt_symbolic *const *sym,
                                           const int *batch, const gala_buffer *x, size_t x_off,
                                           size_t x_ms, size_t x_es, gala_sparse_ldlt **out,
                                           int *info, int *inertia)
{
    static const char fn[] = "gala_sparse_ldlt_factor";
    GALA_TRY(gala_check_ctx(ctx, fn));
    if (!out) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: F is NULL", fn);
    *out = NULL;
    if (ngroups < 1 || !sym || !batch)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: need ngroups >= 1 and the sym and batch "
                          "arrays (ngroups = %d)", fn, ngroups);
    long long total = 0;
    for (int g = 0; g < ngroups; ++g) {
        if (!sym[g]) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: sym[%d] is NULL", fn, g);
        if (batch[g] < 0)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: batch[%d] = %d is negative", fn, g,
                              batch[g]);
        total += batch[g];
    }
    if (total > (1LL << 30))
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: %lld matrices: too many", fn, total);
    if (!x) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: x is NULL", fn);
    const gala_dtype dt = x->dtype;
    GALA_TRY(gala_check_float_type(ctx, fn, dt));

    gala_sparse_ldlt *F = gala_calloc(1, sizeof *F);
    if (!F) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    F->ctx = ctx;
    F->dtype = dt;
    F->ngroups = ngroups;
    F->total = (int)total;
    F->gd = gala_calloc((size_t)ngroups * SLDLT_GDESC, sizeof *F->gd);
    F->exp_pos = gala_malloc((size_t)ngroups * sizeof *F->exp_pos);
    F->perm_off = gala_malloc(((size_t)ngroups + 1) * sizeof *F->perm_off);
    F->st_h = gala_malloc(((size_t)total * LA_NST + 1) * sizeof *F->st_h);
    gala_status s = GALA_OK;
    int *steps = NULL;
    if (!F->gd || !F->exp_pos || !F->perm_off || !F->st_h) goto oom;

    /* layout of the groups: V bases, workspace bases, schedule offsets */
    F->baseline = gala_tuned(ctx, dt)->sldlt.baseline;
    /* a device that cuts a work-item's loops short after `limit` iterations (issue 39):
     * launches split below it (SLDLT_G_STEPS), one worker per matrix, no column baseline */
    const long limit = gala_loop_limit(ctx);
    const long budget = limit > 0 ? limit / 2 - ngroups - 16 : 0;
    if (limit > 0) F->baseline = 0;
    size_t steps_len = 0;
    size_t img_len = 0, vlen = 0, wlen = 0, plen = 0;
    double avg_width = 1; /* columns per level of the elimination tree, largest over groups */
    for (int g = 0; g < ngroups; ++g) {
        const gala_sparse_ldlt_symbolic *S = sym[g];
        int *G = F->gd + g * SLDLT_GDESC;
        const size_t ldv = batch[g] < 32 ? (size_t)(batch[g] ? batch[g] : 1)
                                         : round_up((size_t)batch[g], 32);
        G[SLDLT_G_BATCH] = batch[g];
        G[SLDLT_G_Q0] = g ? F->gd[(g - 1) * SLDLT_GDESC + SLDLT_G_Q0] + batch[g - 1] : 0;
        G[SLDLT_G_N] = S->n;
        G[SLDLT_G_NNZL] = S->nnz_l;
        G[SLDLT_G_NLEV] = S->nlev;
        G[SLDLT_G_LDV] = (int)ldv;
        G[SLDLT_G_NNZA] = S->nnz_a;
        const size_t base = img_len;
        if (base + S->img_len > (size_t)0x7fffffff) {
            s = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the schedules of the groups exceed "
                           "2^31 - 1 ints", fn);
            goto fail;
        }
        G[SLDLT_G_LEV] = (int)(base + S->o_lev);
        G[SLDLT_G_TASK] = (int)(base + S->o_task);
        G[SLDLT_G_INS] = (int)(base + S->o_ins);
        G[SLDLT_G_AMAP] = (int)(base + S->o_amap);
        G[SLDLT_G_STASK] = (int)(base + S->o_stask);
        G[SLDLT_G_FROW] = (int)(base + S->o_frow);
        G[SLDLT_G_BIDX] = (int)(base + S->o_bidx);
        G[SLDLT_G_LP] = (int)(base + S->o_lp);
        G[SLDLT_G_LI] = (int)(base + S->o_li);
        G[SLDLT_G_APTR] = (int)(base + S->o_aptr);
        G[SLDLT_G_LORD] = (int)(base + S->o_lord);
        img_len += S->img_len;
        /* the step table, kept after the schedules */
        int *ns = gala_realloc(steps, (steps_len + 9 * (size_t)S->n + 8) * sizeof *steps);
        if (!ns) goto oom;
        steps = ns;
        long most = 0;
        const size_t sl = plan_steps(S, budget < 1 && limit > 0 ? 1 : budget, steps + steps_len,
                                     &most);
        if (limit > 0 && most > limit - ngroups - 16) {
            s = gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "%s: group %d has a column of %ld loop "
                           "iterations, more than the %ld this device runs in one work-item "
                           "(it stops longer loops without an error)", fn, g, most, limit);
            goto fail;
        }
        G[SLDLT_G_STEPS] = (int)steps_len; /* relative until the schedules' length is known */
        const int *sp = steps + steps_len;
        if (sp[SLDLT_SP_NFAC] > F->fsteps) F->fsteps = sp[SLDLT_SP_NFAC];
        if (sp[SLDLT_SP_NSOLVE] > F->ssteps) F->ssteps = sp[SLDLT_SP_NSOLVE];
        steps_len += sl;
        G[SLDLT_G_VBASE] = (int)(unsigned)(vlen & 0xffffffffu);
        G[SLDLT_G_VBASE + 1] = (int)(vlen >> 32);
        size_t vs, ws;
        if (gala_mul_overflow((size_t)S->nnz_l + (size_t)S->n, ldv, &vs) || vlen > SIZE_MAX - vs) {
            s = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: factor size overflows", fn);
            goto fail;
        }
        vlen += vs;
        G[SLDLT_G_WBASE] = (int)(unsigned)(wlen & 0xffffffffu);
        G[SLDLT_G_WBASE + 1] = (int)(wlen >> 32);
        G[SLDLT_G_LDW] = (int)ldv;
        if (F->baseline) {
            if (gala_mul_overflow((size_t)S->n, ldv, &ws) || wlen > SIZE_MAX / 4 - ws) {
                s = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: workspace size overflows", fn);
                goto fail;
            }
            wlen += ws;
        }
        F->exp_pos[g] = S->expected_pos;
        F->perm_off[g] = plen;
        plen += (size_t)S->n;
        if (S->nlev > 0 && (double)S->n / S->nlev > avg_width) avg_width = (double)S->n / S->nlev;
    }
    F->perm_off[ngroups] = plen;
    if (img_len + steps_len > (size_t)0x7fffffff) {
        s = gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: the schedules of the groups exceed "
                       "2^31 - 1 ints", fn);
        goto fail;
    }
    for (int g = 0; g < ngroups; ++g) F->gd[g * SLDLT_GDESC + SLDLT_G_STEPS] += (int)img_len;
    F->perm = gala_malloc((plen ? plen : 1) * sizeof *F->perm);
    if (!F->perm) goto oom;
    for (int g = 0; g < ngroups; ++g) {
        const gala_sparse_ldlt_symbolic *S = sym[g];
        if (S->n) memcpy(F->perm + F->perm_off[g], S->perm, (size_t)S->n * sizeof *F->perm);
    }

    /* launch shape */
    const long maxwg = gala_max_wg(ctx);
    long wg = gala_tuned(ctx, dt)->sldlt.wg;
    if (wg > maxwg) wg = maxwg;
    wg = pow2_floor(wg < 1 ? 1 : wg);
    const long cus = ctx->info.compute_units > 0 ? ctx->info.compute_units : 1;
    long mb = gala_tuned(ctx, dt)->sldlt.mb, cw = gala_tuned(ctx, dt)->sldlt.cw;
    if (!ctx->info.is_gpu) { /* CPUs: a work-group runs on one core; lanes = matrices vectorize */
        if (mb <= 0) mb = wg;
        if (cw <= 0) cw = 1;
    }
    /* GPUs: one lane per matrix (CW = 1, no barrier) when the batch fills every compute unit
     * with full work-groups; otherwise fewer matrices per work-group and column workers, as
     * many as the tree offers on average (more would wait at the level barriers). */
    if (mb <= 0) {
        if (total >= cus * wg) {
            mb = wg;
        } else {
            const long per_cu = (total + cus - 1) / cus;
            mb = pow2_floor(per_cu < 1 ? 1 : per_cu);
        }
    }
    mb = pow2_floor(mb > maxwg ? maxwg : mb);
    if (cw <= 0) {
        cw = wg / mb;
        const long wmax = 2L * pow2_floor((long)avg_width);
        if (cw > wmax) cw = wmax;
    }
    cw = pow2_floor(cw < 1 ? 1 : cw);
    while (mb * cw > maxwg && cw > 1) cw /= 2;
    if (F->baseline || limit > 0) cw = 1; /* the split launches walk the tasks in order */
    F->mb = (int)mb;
    F->cw = (int)cw;

    /* device memory */
    s = gala_buffer_create(ctx, GALA_INT, (size_t)ngroups * SLDLT_GDESC, &F->gdesc);
    if (s == GALA_OK) s = gala_buffer_write(F->gdesc, 0, (size_t)ngroups * SLDLT_GDESC, F->gd);
    if (s == GALA_OK)
        s = gala_buffer_create(ctx, GALA_INT, img_len + steps_len ? img_len + steps_len : 1, &F->sched);
    /* each group's image straight to its place (no concatenated host copy), the launch steps after */
    for (int g = 0; s == GALA_OK && g < ngroups; ++g)
        if (sym[g]->img_len)
            s = gala_buffer_write(F->sched,
                                  (size_t)(F->gd[g * SLDLT_GDESC + SLDLT_G_LEV] - sym[g]->o_lev),
                                  sym[g]->img_len, sym[g]->img);
    if (s == GALA_OK && steps_len) s = gala_buffer_write(F->sched, img_len, steps_len, steps);
    gala_free(steps);
    steps = NULL;
    if (s == GALA_OK) s = gala_buffer_create(ctx, dt, vlen ? vlen : 1, &F->V);
    if (s == GALA_OK) s = gala_buffer_create(ctx, GALA_INT, (size_t)total * LA_NST + 1, &F->st);
    if (s == GALA_OK && F->baseline) {
        s = gala_buffer_create(ctx, dt, wlen ? wlen : 1, &F->W);
        if (s == GALA_OK) s = gala_buffer_create(ctx, GALA_INT, wlen ? SLDLT_IW * wlen : 1, &F->IW);
    }
    if (s != GALA_OK) goto fail;

    /* kernels: fetched now, so refactor and solve build nothing */
    gala_program_key key;
    gala_key_init(&key, "sldlt", dt);
    gala_key_def(&key, "MB", F->mb);
    gala_key_def(&key, "CW", F->cw);
    /* SYNC (CPU devices with full work-groups): see cl/sldlt.cl */
    const long sync = gala_tuned(ctx, dt)->sldlt.sync; /* -1: the policy's */
    const int sync_policy = !ctx->info.is_gpu && total >= F->mb;
    gala_key_def(&key, "SYNC", F->cw == 1 ? (sync < 0 ? sync_policy : sync != 0) : 0);
    s = gala_kernel_get(ctx, &key, F->baseline ? "sldlt_factor_cols" : "sldlt_factor", &F->kfactor);
    if (s == GALA_OK) s = gala_kernel_get(ctx, &key, "sldlt_solve", &F->ksolve);
    if (s != GALA_OK) goto fail;

    s = check_values(F, fn, x, x_off, x_ms, x_es);
    if (s != GALA_OK) goto fail;
    s = numeric(F, fn, x, x_off, x_ms, x_es, info, inertia);
    if (s == GALA_OK || s == GALA_ERR_NOT_FINITE || s == GALA_ERR_SINGULAR ||
        s == GALA_ERR_WRONG_INERTIA) {
        *out = F;
        return s;
    }
    goto fail;
oom:
    s = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
fail:
    gala_free(steps);
    gala_sparse_ldlt_destroy(F);
    return s;
}

gala_status gala_sparse_ldlt_factor(gala_context *ctx, const gala_sparse_ldlt_symbolic *sym,
                                    int batch, const gala_buffer *x, size_t x_off, size_t x_ms,
                                    size_t x_es, gala_sparse_ldlt **F, int *info, int *inertia)
{
    return gala_sparse_ldlt_factor_groups(ctx, 1, &sym, &batch, x, x_off, x_ms, x_es, F, info,
                                          inertia);
}

gala_status gala_sparse_ldlt_refactor(gala_sparse_ldlt *F, const gala_buffer *x, size_t x_off,
                                      size_t x_ms, size_t x_es, int *info, int *inertia)
{
    static const char fn[] = "gala_sparse_ldlt_refactor";
    if (!F) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: F is NULL", fn);
    if (!x) return gala_error(F->ctx, GALA_ERR_INVALID_ARG, "%s: x is NULL", fn);
    GALA_TRY(check_values(F, fn, x, x_off, x_ms, x_es));
    return numeric(F, fn, x, x_off, x_ms, x_es, info, inertia);
}

gala_status gala_sparse_ldlt_solve(gala_sparse_ldlt *F, int nrhs, const gala_buffer *B,
                                   size_t b_off, size_t b_ms, size_t b_rs, size_t b_es,
                                   gala_buffer *X, size_t x_off, size_t x_ms, size_t x_rs,
                                   size_t x_es)
{
    static const char fn[] = "gala_sparse_ldlt_solve";
    if (!F) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: F is NULL", fn);
    gala_context *ctx = F->ctx;
    if (nrhs < 0) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: nrhs = %d is negative", fn, nrhs);
    if (!B || !X) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: B or X is NULL", fn);
    GALA_TRY(check_layout(ctx, fn, "B", B, F->dtype, F, 0, nrhs, b_off, b_ms, b_rs, b_es));
    GALA_TRY(check_layout(ctx, fn, "X", X, F->dtype, F, 0, nrhs, x_off, x_ms, x_rs, x_es));
    const int same = B == X && b_off == x_off && b_ms == x_ms && b_rs == x_rs && b_es == x_es;
    if (!same && B == X)
        return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: X is B with other offsets or strides: "
                          "give the same layout (in place) or separate buffers", fn);
    /* every element of X must be distinct (two pairs writing one element would race) */
    for (int g = 0; g < F->ngroups && nrhs > 0; ++g) {
        const int *G = F->gd + g * SLDLT_GDESC;
        if (G[SLDLT_G_N] == 0 || G[SLDLT_G_BATCH] == 0) continue;
        if (G[SLDLT_G_N] > 1 && x_es == 0)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: x_estride is 0", fn);
        if ((F->total > 1 && x_ms == 0) || (nrhs > 1 && x_rs == 0))
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: X's matrix or rhs stride is 0: "
                              "solutions overlap", fn);
    }
    if (F->total == 0 || nrhs == 0) return GALA_OK;
    long long groups = 0;
    for (int g = 0; g < F->ngroups; ++g)
        groups += ((long long)F->gd[g * SLDLT_GDESC + SLDLT_G_BATCH] * nrhs + F->mb - 1) / F->mb;
    const size_t wg = (size_t)F->mb * (size_t)(F->baseline ? 1 : F->cw);
    gala_dims d = gala_dims_1d((size_t)groups * wg, wg);
    for (int step = 0; step < F->ssteps; ++step)
        GALA_TRY(sldlt_launch_solve(ctx, F->ksolve, &d, F->ngroups, F->gdesc, F->sched, F->V, nrhs,
                                    !same, B, (long long)b_off, (long long)b_ms, (long long)b_rs,
                                    (long long)b_es, X, (long long)x_off, (long long)x_ms,
                                    (long long)x_rs, (long long)x_es, step));
    return GALA_OK;
}
