/* The adjoint derivative of QP solutions (OSQP 1.x's, docs/derivatives.md), for a batch.
 *
 * Per solved QP, from the unscaled data and solution (x, y): the inequality rows with a
 * finite bound become rows g of G x ≤ h (a lower bound as −aᵢᵀx ≤ −lᵢ, sign −1; an upper
 * bound as aᵢᵀx ≤ uᵢ, sign +1) with multiplier λ_g = max(sign·yᵢ, 0) and slack
 * s_g = min(G_g x − h_g, 0); the equality rows (l = u) rows e with ν_e = y_e. The adjoint
 * system of the differentiated KKT conditions, Kᵀ d = −[dx; dL/dλ; dL/dν] with
 * K = [P, Gᵀ, Eᵀ; ΛG, S, 0; E, 0, 0], is solved in its symmetric form
 *     Ks = [P, GᵀΛ^½, Eᵀ; Λ^½G, S, 0; E, 0, 0],   Ks w = −[dx; Λ^½ dL/dλ; dL/dν],
 * d_x = w_x, Λ d_λ = Λ^½ w_λ, d_ν = w_ν (no division by λ). Ks is factored by the batched
 * dense LDLᵀ of src/la (include/gala/ldlt.h) on the device, regularized to quasi-definite
 * form (+ε on the P block, −ε on the others), with iterative refinement against the
 * unregularized Ks whose residuals are formed here in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gala/qp_derivative.h"
#include "qp_internal.h"

#define DERIV_EPS 1e-6         /* regularization of the factored matrix */
#define DERIV_REFINE 50        /* most refinement steps */
#define DERIV_STOP 1e-14       /* refinement stops below this relative residual */
#define DERIV_ACCEPT 1e-8      /* ... and the QP is SINGULAR above this one */

struct qp_deriv {
    int *status;            /* per QP */
    double *rx, *dl, *du, *ry; /* Σn: d_x (= dq); Σm: dl, du, and per row the coefficient
                             * of x in dA's row: Σ_g sign_g λ_g d_λg, or d_ν */
};

void gala_qp_deriv_release(gala_qp_solver *s)
{
    if (!s || !s->deriv) return;
    gala_free(s->deriv->status);
    gala_free(s->deriv->rx);
    gala_free(s->deriv);
    s->deriv = NULL;
}

/* One QP's reduced system: its data (views), its rows, and where it lives in the batch. */
typedef struct {
    int k, n, m, ng, ne, N;
    const int *Pp, *Pi, *Ap, *Ai;
    const double *Px, *Ax, *q, *l, *u, *x, *y, *dx, *dy;
    int *gl, *gu, *ge;      /* per row: its g (lower, upper) or e index, or -1 */
    int *grow;              /* per g: its row; sign in gsg */
    signed char *gsg;
    double *c, *sl;         /* per g: sign·√λ, and the slack */
    double *b, *w, *r;      /* right-hand side, solution, residual (N each) */
    size_t koff, voff;      /* offsets of its matrix and of its vector on the device */
    int done;
} dq_qp;

/* r = b − Ks·w (Ks unregularized, from the sparse data); returns ‖r‖∞, and the scale
 * ‖b‖∞ + ‖|Ks|·|w|‖∞ of the test in *scale. */
static double residual(const dq_qp *p, double *scale)
{
    const int n = p->n, ng = p->ng;
    double *r = p->r, sc = 0;
    double *ab = gala_calloc((size_t)p->N, sizeof(double)); /* |Ks|·|w| */
    for (int i = 0; i < p->N; ++i) r[i] = p->b[i];
    for (int j = 0; j < n; ++j)
        for (int e = p->Pp[j]; e < p->Pp[j + 1]; ++e) {
            const int i = p->Pi[e];
            const double v = p->Px[e];
            r[i] -= v * p->w[j];
            if (ab) ab[i] += fabs(v * p->w[j]);
            if (i != j) {
                r[j] -= v * p->w[i];
                if (ab) ab[j] += fabs(v * p->w[i]);
            }
        }
    for (int j = 0; j < n; ++j)
        for (int e = p->Ap[j]; e < p->Ap[j + 1]; ++e) {
            const int i = p->Ai[e];
            const double a = p->Ax[e];
            const int gs[3] = {p->gl[i], p->gu[i], p->ge[i]};
            for (int t = 0; t < 3; ++t) {
                if (gs[t] < 0) continue;
                const int row = t < 2 ? n + gs[t] : n + ng + gs[t];
                const double v = t < 2 ? p->c[gs[t]] * a : a;
                r[j] -= v * p->w[row];
                r[row] -= v * p->w[j];
                if (ab) {
                    ab[j] += fabs(v * p->w[row]);
                    ab[row] += fabs(v * p->w[j]);
                }
            }
        }
    for (int g = 0; g < ng; ++g) {
        r[n + g] -= p->sl[g] * p->w[n + g];
        if (ab) ab[n + g] += fabs(p->sl[g] * p->w[n + g]);
    }
    double rn = 0;
    for (int i = 0; i < p->N; ++i) {
        rn = fmax(rn, fabs(r[i]));
        sc = fmax(sc, fabs(p->b[i]) + (ab ? ab[i] : 0));
        if (!isfinite(r[i])) rn = INFINITY;
    }
    gala_free(ab);
    *scale = sc;
    return rn;
}

/* The regularized Ks, lower triangle, column-major (N×N) into K (zeroed by the caller). */
static void assemble(const dq_qp *p, double *K)
{
    const int n = p->n, ng = p->ng, N = p->N;
    for (int j = 0; j < n; ++j) {
        for (int e = p->Pp[j]; e < p->Pp[j + 1]; ++e) /* upper (i ≤ j) → lower (j, i) */
            K[(size_t)p->Pi[e] * N + j] += p->Px[e];
        K[(size_t)j * N + j] += DERIV_EPS;
        for (int e = p->Ap[j]; e < p->Ap[j + 1]; ++e) {
            const int i = p->Ai[e];
            if (p->gl[i] >= 0) K[(size_t)j * N + n + p->gl[i]] += p->c[p->gl[i]] * p->Ax[e];
            if (p->gu[i] >= 0) K[(size_t)j * N + n + p->gu[i]] += p->c[p->gu[i]] * p->Ax[e];
            if (p->ge[i] >= 0) K[(size_t)j * N + n + ng + p->ge[i]] += p->Ax[e];
        }
    }
    for (int g = 0; g < ng; ++g) K[(size_t)(n + g) * N + n + g] = p->sl[g] - DERIV_EPS;
    for (int e = 0; e < p->ne; ++e) K[(size_t)(n + ng + e) * N + n + ng + e] = -DERIV_EPS;
}

/* The rows of QP p, its multipliers, slacks and right-hand side. Needs the per-row arrays
 * (3m) and per-g arrays (2m) allocated; sets ng, ne, N. 0, or 1 when dx/dy are not finite. */
static int rows_of(dq_qp *p)
{
    const int n = p->n, m = p->m;
    int ng = 0, ne = 0;
    for (int i = 0; i < m; ++i) {
        p->gl[i] = p->gu[i] = p->ge[i] = -1;
        if (p->l[i] < p->u[i]) {
            if (p->l[i] > -QP_INFV) { p->gl[i] = ng; p->grow[ng] = i; p->gsg[ng++] = -1; }
            if (p->u[i] < QP_INFV) { p->gu[i] = ng; p->grow[ng] = i; p->gsg[ng++] = 1; }
        } else {
            p->ge[i] = ne++;
        }
    }
    p->ng = ng;
    p->ne = ne;
    p->N = n + ng + ne;
    int bad = 0;
    for (int j = 0; j < n; ++j) bad |= p->dx && !isfinite(p->dx[j]);
    for (int i = 0; i < m; ++i) bad |= p->dy && !isfinite(p->dy[i]);
    return bad;
}

static void rhs_of(dq_qp *p, double *ax)
{
    const int n = p->n, ng = p->ng;
    memset(ax, 0, sizeof(double) * (size_t)(p->m + 1));
    for (int j = 0; j < n; ++j)
        for (int e = p->Ap[j]; e < p->Ap[j + 1]; ++e) ax[p->Ai[e]] += p->Ax[e] * p->x[j];
    for (int j = 0; j < n; ++j) p->b[j] = p->dx ? -p->dx[j] : 0;
    for (int g = 0; g < ng; ++g) {
        const int i = p->grow[g], sg = p->gsg[g];
        const double lam = fmax(sg * p->y[i], 0);
        const double s = sg > 0 ? ax[i] - p->u[i] : p->l[i] - ax[i];
        p->c[g] = sg * sqrt(lam);
        p->sl[g] = fmin(s, 0);
        /* dL/dλ_g = sign·dL/dy (y = λ_upper − λ_lower) */
        p->b[n + g] = -sqrt(lam) * (p->dy ? sg * p->dy[p->grow[g]] : 0);
    }
    for (int i = 0; i < p->m; ++i)
        if (p->ge[i] >= 0) p->b[n + ng + p->ge[i]] = p->dy ? -p->dy[i] : 0;
}

/* From w: dq, dl, du, ry of QP p (batch-layout arrays at its offsets); 0, or 1 if some
 * value is not finite. */
static int gradients_of(const dq_qp *p, double *dq, double *dl, double *du, double *ry)
{
    const int n = p->n, ng = p->ng;
    int bad = 0;
    for (int j = 0; j < n; ++j) dq[j] = p->w[j];
    for (int i = 0; i < p->m; ++i) {
        dl[i] = du[i] = ry[i] = 0;
        if (p->gl[i] >= 0) { /* λd_λ = √λ·w */
            const double ld = fabs(p->c[p->gl[i]]) * p->w[n + p->gl[i]];
            dl[i] = ld;
            ry[i] -= ld;
        }
        if (p->gu[i] >= 0) {
            const double ld = fabs(p->c[p->gu[i]]) * p->w[n + p->gu[i]];
            du[i] = -ld;
            ry[i] += ld;
        }
        if (p->ge[i] >= 0) {
            const double dn = p->w[n + ng + p->ge[i]];
            ry[i] = dn;
            if (p->y[i] < 0) dl[i] = -dn;
            else du[i] = -dn;
        }
        bad |= !isfinite(dl[i]) || !isfinite(du[i]) || !isfinite(ry[i]);
    }
    for (int j = 0; j < n; ++j) bad |= !isfinite(dq[j]);
    return bad;
}

static void nan_fill(double *v, size_t n)
{
    for (size_t i = 0; i < n; ++i) v[i] = NAN;
}

gala_status gala_qp_adjoint_derivative_compute(gala_qp_solver *s, const double *dx,
                                               const double *dy)
{
    static const char fn[] = "gala_qp_adjoint_derivative_compute";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (s->chunks)
        return gala_error(s->ctx, GALA_ERR_NOT_SUPPORTED, "%s: the batch was split into chunks "
                          "(device_mem_limit / max_chunk); derivatives need it in one piece", fn);
    if (!s->solved)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: no solution yet (call gala_qp_solve "
                          "first)", fn);
    GALA_TRY(gala_qp_dio_host(s, QP_DIO_VECTORS));
    const int count = s->count;
    const size_t hn = count ? s->res.x_offset[count - 1] + (size_t)s->qp_n[count - 1] : 0;
    const size_t hm = count ? s->res.y_offset[count - 1] + (size_t)s->qp_m[count - 1] : 0;

    gala_qp_deriv_release(s);
    struct qp_deriv *d = gala_calloc(1, sizeof *d);
    if (!d) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    s->deriv = d;
    d->status = gala_malloc(sizeof(int) * (size_t)(count + 1));
    d->rx = gala_malloc(sizeof(double) * (hn + 3 * hm + 1));
    if (!d->status || !d->rx) {
        gala_qp_deriv_release(s);
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    }
    d->dl = d->rx + hn;
    d->du = d->dl + hm;
    d->ry = d->du + hm;
    nan_fill(d->rx, hn + 3 * hm);

    gala_status st = GALA_OK;
    double *raw = s->host.vals, *K = NULL, *V = NULL, *ax = NULL;
    dq_qp *qs = NULL;
    int *ibuf = NULL, nq = 0;
    double *fbuf = NULL;
    signed char *sbuf = NULL;
    gala_buffer *bK = NULL, *bV = NULL;
    int *Ns = NULL, *lds = NULL, *ones = NULL, *info = NULL;
    size_t *koffs = NULL, *voffs = NULL;
    if (!raw && s->n_raw) {
        raw = gala_malloc(sizeof(double) * s->n_raw);
        if (!raw) { st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn); goto out; }
        st = gala_qp_read_real(s, s->b_raw, 0, s->n_raw, raw);
        if (st != GALA_OK) goto out;
    }
    /* the QPs to differentiate, and their work arrays */
    qs = gala_calloc((size_t)count + 1, sizeof *qs);
    size_t mi = 0, mf = 0, mm = 1;
    for (int k = 0; k < count; ++k) {
        d->status[k] = GALA_QP_DERIV_NOT_SOLVED;
        if (s->slot[k] < 0 || s->info[k].status != GALA_QP_SOLVED) continue;
        const size_t n = (size_t)s->qp_n[k], m = (size_t)s->qp_m[k];
        mi += 3 * m + 2 * m;
        mf += 4 * m + 3 * (n + 2 * m);
        if (m + 1 > mm) mm = m + 1;
    }
    ibuf = gala_malloc(sizeof(int) * (mi + 1));
    fbuf = gala_malloc(sizeof(double) * (mf + 1));
    sbuf = gala_malloc(mi / 5 * 2 + 1);
    ax = gala_malloc(sizeof(double) * mm);
    if (!qs || !ibuf || !fbuf || !sbuf || !ax) {
        st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        goto out;
    }
    size_t io = 0, fo = 0, so = 0, ktot = 0, vtot = 0;
    for (int k = 0; k < count; ++k) {
        const int sl = s->slot[k];
        if (sl < 0 || s->info[k].status != GALA_QP_SOLVED) continue;
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const qp_pat *tp = &s->patterns[s->p_pattern[sl]], *ta = &s->patterns[s->a_pattern[sl]];
        const size_t ro = (size_t)mt[QP_M_RO], xo = (size_t)mt[QP_M_XO], zo = (size_t)mt[QP_M_ZO];
        dq_qp *p = &qs[nq];
        p->k = k;
        p->n = mt[QP_M_N];
        p->m = mt[QP_M_M];
        p->Pp = tp->p; p->Pi = tp->i; p->Px = raw + ro;
        p->Ap = ta->p; p->Ai = ta->i; p->Ax = raw + ro + (size_t)tp->nnz;
        p->q = s->host.q + xo; p->l = s->host.l + zo; p->u = s->host.u + zo;
        p->x = s->res.x + s->res.x_offset[k];
        p->y = s->res.y + s->res.y_offset[k];
        p->dx = dx ? dx + s->res.x_offset[k] : NULL;
        p->dy = dy ? dy + s->res.y_offset[k] : NULL;
        const size_t m = (size_t)p->m, n = (size_t)p->n;
        p->gl = ibuf + io; p->gu = p->gl + m; p->ge = p->gu + m; p->grow = p->ge + m;
        io += 5 * m;
        p->gsg = sbuf + so;
        so += 2 * m;
        p->c = fbuf + fo; p->sl = p->c + 2 * m;
        p->b = p->sl + 2 * m; p->w = p->b + n + 2 * m; p->r = p->w + n + 2 * m;
        fo += 4 * m + 3 * (n + 2 * m);
        if (rows_of(p)) {
            d->status[k] = GALA_QP_DERIV_NOT_FINITE;
            continue;
        }
        rhs_of(p, ax);
        p->koff = ktot;
        p->voff = vtot;
        ktot += (size_t)p->N * (size_t)p->N;
        vtot += (size_t)p->N;
        ++nq;
    }
    if (!nq) goto out;
    /* assemble, upload, factor */
    K = gala_calloc(ktot + 1, sizeof(double));
    V = gala_malloc(sizeof(double) * (vtot + 1));
    Ns = gala_malloc(sizeof(int) * (size_t)nq * 4);
    koffs = gala_malloc(sizeof(size_t) * (size_t)nq * 2);
    if (!K || !V || !Ns || !koffs) {
        st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        goto out;
    }
    lds = Ns + nq;
    ones = lds + nq;
    info = ones + nq;
    voffs = koffs + nq;
    for (int t = 0; t < nq; ++t) {
        assemble(&qs[t], K + qs[t].koff);
        memcpy(V + qs[t].voff, qs[t].b, sizeof(double) * (size_t)qs[t].N);
        Ns[t] = lds[t] = qs[t].N;
        ones[t] = 1;
        koffs[t] = qs[t].koff;
        voffs[t] = qs[t].voff;
    }
    if ((st = gala_qp_mkbuf(s, s->dt, ktot, &bK)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, s->dt, vtot, &bV)) != GALA_OK) goto out;
    if ((st = gala_qp_write_real(s, bK, 0, ktot, K)) != GALA_OK) goto out;
    if ((st = gala_qp_write_real(s, bV, 0, vtot, V)) != GALA_OK) goto out;
    st = gala_ldlt_vbatched(s->ctx, GALA_LOWER, Ns, bK, koffs, lds, nq, info, NULL);
    if (st == GALA_ERR_SINGULAR || st == GALA_ERR_NOT_FINITE) {
        gala_error_clear(s->ctx); /* per QP, below */
        st = GALA_OK;
    }
    if (st != GALA_OK) goto out;
    /* the QPs whose factor exists, solved and refined together */
    int na = 0;
    for (int t = 0; t < nq; ++t) {
        qs[t].done = info[t] != 0;
        if (info[t]) d->status[qs[t].k] = GALA_QP_DERIV_SINGULAR;
        else memset(qs[t].w, 0, sizeof(double) * (size_t)qs[t].N);
    }
    for (int it = 0; it <= DERIV_REFINE; ++it) {
        /* solve Kreg·Δ = V for the QPs still running (V holds b, then the residuals) */
        na = 0;
        for (int t = 0; t < nq; ++t) {
            if (qs[t].done) continue;
            Ns[na] = lds[na] = qs[t].N;
            koffs[na] = qs[t].koff;
            voffs[na] = qs[t].voff;
            ++na;
        }
        if (!na) break;
        st = gala_ldlt_solve_vbatched(s->ctx, GALA_LOWER, Ns, ones, bK, koffs, lds, bV, voffs,
                                      lds, na);
        if (st == GALA_OK) st = gala_qp_read_real(s, bV, 0, vtot, V);
        if (st != GALA_OK) goto out;
        for (int t = 0; t < nq; ++t) {
            dq_qp *p = &qs[t];
            if (p->done) continue;
            for (int i = 0; i < p->N; ++i) p->w[i] += V[p->voff + (size_t)i];
            double scale, rn = residual(p, &scale), bn = 0;
            for (int i = 0; i < p->N; ++i) bn = fmax(bn, fabs(p->b[i]));
            if (rn <= DERIV_STOP * scale || it == DERIV_REFINE) {
                p->done = 1;
                /* against ‖b‖ alone: an inconsistent singular system reaches a small
                 * residual relative to ‖Ks‖·‖w‖ only with a huge w */
                d->status[p->k] = rn <= DERIV_ACCEPT * bn ? GALA_QP_DERIV_OK
                                                             : GALA_QP_DERIV_SINGULAR;
            } else {
                memcpy(V + p->voff, p->r, sizeof(double) * (size_t)p->N);
            }
        }
        if (it < DERIV_REFINE && (st = gala_qp_write_real(s, bV, 0, vtot, V)) != GALA_OK)
            goto out;
    }
    for (int t = 0; t < nq; ++t) {
        dq_qp *p = &qs[t];
        if (d->status[p->k] != GALA_QP_DERIV_OK) continue;
        const size_t xo = s->res.x_offset[p->k], yo = s->res.y_offset[p->k];
        if (gradients_of(p, d->rx + xo, d->dl + yo, d->du + yo, d->ry + yo)) {
            d->status[p->k] = GALA_QP_DERIV_NOT_FINITE;
            nan_fill(d->rx + xo, (size_t)p->n);
            nan_fill(d->dl + yo, (size_t)p->m);
            nan_fill(d->du + yo, (size_t)p->m);
            nan_fill(d->ry + yo, (size_t)p->m);
        }
    }
out:
    gala_free(sbuf);
    gala_buffer_free(bK);
    gala_buffer_free(bV);
    if (raw != s->host.vals) gala_free(raw);
    gala_free(K); gala_free(V); gala_free(ax); gala_free(qs); gala_free(ibuf); gala_free(fbuf);
    gala_free(Ns); gala_free(koffs);
    if (st != GALA_OK) gala_qp_deriv_release(s);
    return st;
}

static gala_status need_deriv(const gala_qp_solver *s, const char *fn)
{
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (!s->deriv)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: no derivative computed since the "
                          "last solve (call gala_qp_adjoint_derivative_compute first)", fn);
    return GALA_OK;
}

gala_status gala_qp_adjoint_derivative_status(const gala_qp_solver *s, int *status)
{
    static const char fn[] = "gala_qp_adjoint_derivative_status";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (!status) return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: status is NULL", fn);
    for (int k = 0; k < s->count; ++k)
        status[k] = s->deriv ? s->deriv->status[k] : GALA_QP_DERIV_NOT_COMPUTED;
    return GALA_OK;
}

gala_status gala_qp_adjoint_derivative_get_vec(const gala_qp_solver *s, double *dq, double *dl,
                                               double *du)
{
    GALA_TRY(need_deriv(s, "gala_qp_adjoint_derivative_get_vec"));
    const int c = s->count;
    const size_t hn = c ? s->res.x_offset[c - 1] + (size_t)s->qp_n[c - 1] : 0;
    const size_t hm = c ? s->res.y_offset[c - 1] + (size_t)s->qp_m[c - 1] : 0;
    if (dq && hn) memcpy(dq, s->deriv->rx, sizeof(double) * hn);
    if (dl && hm) memcpy(dl, s->deriv->dl, sizeof(double) * hm);
    if (du && hm) memcpy(du, s->deriv->du, sizeof(double) * hm);
    return GALA_OK;
}

/* dP (upper CSC, nnz values) and dA of QP k, whose slot is sl, added into dPx, dAx. */
static void mat_of(const gala_qp_solver *s, int k, double *dPx, double *dAx, int add)
{
    const int sl = s->slot[k];
    const qp_pat *tp = &s->patterns[s->p_pattern[sl]], *ta = &s->patterns[s->a_pattern[sl]];
    const struct qp_deriv *d = s->deriv;
    const int ok = d->status[k] == GALA_QP_DERIV_OK;
    const double *rx = d->rx + s->res.x_offset[k], *x = s->res.x + s->res.x_offset[k];
    const double *y = s->res.y + s->res.y_offset[k], *ry = d->ry + s->res.y_offset[k];
    for (int j = 0; dPx && j < tp->cols; ++j)
        for (int e = tp->p[j]; e < tp->p[j + 1]; ++e) {
            const int i = tp->i[e];
            const double v = ok ? 0.5 * (rx[i] * x[j] + rx[j] * x[i]) : NAN;
            dPx[e] = add ? dPx[e] + v : v;
        }
    for (int j = 0; dAx && j < ta->cols; ++j)
        for (int e = ta->p[j]; e < ta->p[j + 1]; ++e) {
            const int i = ta->i[e];
            const double v = ok ? y[i] * rx[j] + ry[i] * x[j] : NAN;
            dAx[e] = add ? dAx[e] + v : v;
        }
}

gala_status gala_qp_adjoint_derivative_get_mat(const gala_qp_solver *s, double *dPx, double *dAx)
{
    GALA_TRY(need_deriv(s, "gala_qp_adjoint_derivative_get_mat"));
    size_t po = 0, ao = 0;
    for (int k = 0; k < s->count; ++k) {
        const int sl = s->slot[k];
        if (sl < 0) continue;
        mat_of(s, k, dPx ? dPx + po : NULL, dAx ? dAx + ao : NULL, 0);
        po += (size_t)s->patterns[s->p_pattern[sl]].nnz;
        ao += (size_t)s->patterns[s->a_pattern[sl]].nnz;
    }
    return GALA_OK;
}

gala_status gala_qp_adjoint_derivative_get_mat_sum(const gala_qp_solver *s, double *dPx,
                                                   double *dAx)
{
    static const char fn[] = "gala_qp_adjoint_derivative_get_mat_sum";
    GALA_TRY(need_deriv(s, fn));
    int first = -1;
    for (int k = 0; k < s->count; ++k) {
        const int sl = s->slot[k];
        if (sl < 0) continue;
        if (first < 0) {
            first = sl;
            continue;
        }
        if (s->p_pattern[sl] != s->p_pattern[first] || s->a_pattern[sl] != s->a_pattern[first])
            return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: QP %d's P or A pattern differs "
                              "from QP %d's (the sum needs one shared pattern)", fn, k,
                              s->qp_of[first]);
    }
    if (first < 0)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: no QP with valid data", fn);
    const size_t pn = (size_t)s->patterns[s->p_pattern[first]].nnz;
    const size_t an = (size_t)s->patterns[s->a_pattern[first]].nnz;
    if (dPx) memset(dPx, 0, sizeof(double) * pn);
    if (dAx) memset(dAx, 0, sizeof(double) * an);
    for (int k = 0; k < s->count; ++k)
        if (s->slot[k] >= 0) mat_of(s, k, dPx, dAx, 1);
    return GALA_OK;
}

gala_status gala_qp_adjoint_derivative_mat_nnz(const gala_qp_solver *s, int *pnz, int *anz)
{
    static const char fn[] = "gala_qp_adjoint_derivative_mat_nnz";
    if (!s) return gala_error(NULL, GALA_ERR_INVALID_ARG, "%s: solver is NULL", fn);
    if (s->chunks)
        return gala_error(s->ctx, GALA_ERR_NOT_SUPPORTED, "%s: the batch was split into chunks "
                          "(device_mem_limit / max_chunk); derivatives need it in one piece", fn);
    for (int k = 0; k < s->count; ++k) {
        const int sl = s->slot[k];
        if (pnz) pnz[k] = sl < 0 ? 0 : s->patterns[s->p_pattern[sl]].nnz;
        if (anz) anz[k] = sl < 0 ? 0 : s->patterns[s->a_pattern[sl]].nnz;
    }
    return GALA_OK;
}
