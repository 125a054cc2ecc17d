/* The adjoint derivative of QP solutions (OSQP 1.x's, docs/derivatives.md), for a batch.
 *
 * Per solved QP, from the unscaled data and solution (x, y): an inequality row (l < u) with a
 * finite bound is a row g of G x ≤ h (a lower bound as −aᵢᵀx ≤ −lᵢ, sign −1; an upper bound
 * as aᵢᵀx ≤ uᵢ, sign +1) with multiplier λ_g = max(sign·yᵢ, 0) and slack
 * s_g = min(G_g x − h_g, 0); an equality row (l = u) a row e with ν_e = y_e. The adjoint
 * system of the differentiated KKT conditions, Kᵀ d = −[dx; dL/dλ; dL/dν], is solved in its
 * symmetric form
 *     Ks = [P, GᵀΛ^½, Eᵀ; Λ^½G, S, 0; E, 0, 0],   Ks w = −[dx; Λ^½ dL/dλ; dL/dν],
 * d_x = w_x, Λ d_λ = Λ^½ w_λ, d_ν = w_ν (no division by λ). A row with λ = 0 decouples
 * (its w is 0): only the active rows remain, at most one per row i of A (λ_lower and
 * λ_upper are never both positive), written C w_x − D w_c with Cᵢ = γᵢ aᵢᵀ (γ = sign·√λ,
 * or 1 for an equality) and D = −S ≥ 0 (0 for an equality). Regularized to the
 * quasi-definite [P + εI, Cᵀ; C, −(D + εI)] and reduced to its n×n Schur complement
 *     H = P + εI + Aᵀ diag(ω) A,   ωᵢ = γᵢ² / (Dᵢ + ε)  (0 for an inactive row),
 * a solve is Δx = H⁻¹(r_x + Cᵀ (D + ε)⁻¹ r_c), Δc = (D + ε)⁻¹ (C Δx − r_c). H is formed on
 * the device by the solver's own kernels (qp_expand, qp_form_k: P + σI + Aᵀdiag(ρ)A with
 * A's rows weighted by √ωᵢ, σ = ε, ρ = 1) and factored by the batched Cholesky of src/la,
 * for the whole batch, in double where the device has it; iterative refinement against the
 * unregularized Ks follows, with its residuals formed on the host in double (every QP on
 * the solver's host threads) and its corrections solved on the device. A QP whose system is
 * small and sparse (qp.deriv_host_flops) is factored and refined on the host instead
 * (host_one: the unreduced regularized system by qd_ldlt.c's sparse LDLᵀ), and so is the
 * rest of a QP the device's refinement left short of its tolerance (finish_range). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gala/potrf.h"
#include "gala/qp_derivative.h"
#include "qd_ldlt.h"
#include "qp_internal.h"
#include "qp_polish.h"

#define DERIV_EPS 1e-6         /* regularization of the factored matrix (double) */
#define DERIV_EPS_FLOAT 1e-4   /* ... factored in float (a device without fp64) */
#define DERIV_EPS_HOST 1e-8    /* ... the host path's unreduced system (no 1/ε weights in it:
                                * smaller is safe, and refinement needs fewer steps: control
                                * QPs 3.2 → 2.2 on average) */
#define DERIV_REFINE 50        /* most refinement steps */
#define DERIV_STOP 1e-14       /* refinement stops below this relative residual */
#define DERIV_ACCEPT 1e-8      /* ... and the QP is SINGULAR above this one */
#define DERIV_KEPT_STEPS 8     /* most refinement steps with polishing's kept factor */
#define DERIV_FINISH 1e9       /* the largest host factor (multiply-adds) that finishes a QP
                                * the device path left short of DERIV_STOP (finish_range) */

struct qp_deriv {
    int *status;            /* per QP */
    int kept;               /* QPs refined with polishing's kept factor (host_one) */
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

/* Row kinds of the reduced system */
enum { ROW_NONE = 0, ROW_LOWER = 1, ROW_UPPER = 2, ROW_EQ = 3 };

/* One QP to differentiate: its data (views) and where its pieces live. Its n-vectors are at
 * xo and its m-vectors at yo of the batch-layout work arrays (gala_qp_get_solutions'). */
typedef struct {
    int k, sl, n, m, pnz, anz;
    const int *Pp, *Pi, *Ap, *Ai;
    const double *Px, *Ax, *l, *u, *x, *y, *dx, *dy;
    size_t xo, yo;
    size_t ko, ro, vo;      /* its H on the device; its weighted raw and expanded values */
    int running;
    int unfinished;         /* the device path's refinement ended above DERIV_STOP */
    int kept;               /* refined with polishing's kept factor */
    double rn, bn, scale;   /* last residual, ‖b‖∞, the residual test's scale */
    double rprev;           /* the residual of the step before (device path) */
} dq_qp;

/* The batch's work arrays and what the parallel loops share. */
typedef struct {
    gala_qp_solver *s;
    dq_qp *qs;
    int *status;            /* d->status */
    double eps;
    int last;               /* the last refinement step: every running QP decides */
    int it;                 /* the device path's refinement step */
    double host_flops;      /* qp.deriv_host_flops: the host path's largest factor */
    gala_host_scratch (*ws)[3];  /* per thread: the host path's scratch (host_one) */
    double *raw2;           /* weighted raw values: P's, then A's times √ωᵢ of their row */
    double *bx, *wx, *rx, *tx; /* n-vectors: rhs, solution, residual, device rhs / solution */
    double *gam, *dep, *dd, *bc, *wc, *rc, *av; /* m-vectors: γ, D + ε, D, rhs, solution,
                                                  residual, and scratch (A·v) */
    signed char *kind;      /* m: ROW_* */
    struct qp_deriv *d;
} dq_batch;

/* av = A·v (m), A in CSC */
static void a_times(const dq_qp *p, const double *v, double *av)
{
    memset(av, 0, sizeof(double) * (size_t)p->m);
    for (int j = 0; j < p->n; ++j)
        for (int e = p->Ap[j]; e < p->Ap[j + 1]; ++e) av[p->Ai[e]] += p->Ax[e] * v[j];
}

/* The rows of QP p (kinds, γ, D, D + ε) and its right-hand side; the solution w = 0. */
static void prepare(dq_batch *B, dq_qp *p)
{
    const int n = p->n, m = p->m;
    const double eps = B->eps;
    signed char *kind = B->kind + p->yo;
    double *gam = B->gam + p->yo, *dep = B->dep + p->yo, *dd = B->dd + p->yo;
    double *bc = B->bc + p->yo, *av = B->av + p->yo, *bx = B->bx + p->xo;
    a_times(p, p->x, av);
    for (int j = 0; j < n; ++j) bx[j] = p->dx ? -p->dx[j] : 0;
    for (int i = 0; i < m; ++i) {
        const double dyi = p->dy ? p->dy[i] : 0;
        kind[i] = ROW_NONE;
        gam[i] = dd[i] = bc[i] = 0;
        dep[i] = 1;
        if (p->l[i] < p->u[i]) {
            /* y = λ_upper − λ_lower: at most one of them is positive */
            const int sg = p->y[i] > 0 ? 1 : -1;
            const double lam = fmax(sg * p->y[i], 0);
            const int finite = sg > 0 ? p->u[i] < QP_INFV : p->l[i] > -QP_INFV;
            if (lam > 0 && finite) {
                const double sl = sg > 0 ? av[i] - p->u[i] : p->l[i] - av[i];
                kind[i] = sg > 0 ? ROW_UPPER : ROW_LOWER;
                gam[i] = sg * sqrt(lam);
                dd[i] = -fmin(sl, 0);
                /* dL/dλ_g = sign·dL/dy (y = λ_upper − λ_lower), times −√λ */
                bc[i] = -sqrt(lam) * sg * dyi;
            }
        } else {
            kind[i] = ROW_EQ;
            gam[i] = 1;
            bc[i] = -dyi;
        }
        if (kind[i] != ROW_NONE) dep[i] = dd[i] + eps;
    }
    memset(B->wx + p->xo, 0, sizeof(double) * (size_t)n);
    memset(B->wc + p->yo, 0, sizeof(double) * (size_t)m);
    p->running = 1;
}

/* The device path's values of H for QP p: P as given, A's row i times √ωᵢ (0 for an
 * inactive row), at raw2 + p->ro. */
static void weigh(dq_batch *B, const dq_qp *p)
{
    const signed char *kind = B->kind + p->yo;
    const double *gam = B->gam + p->yo, *dep = B->dep + p->yo;
    double *r2 = B->raw2 + p->ro;
    memcpy(r2, p->Px, sizeof(double) * (size_t)p->pnz);
    for (int j = 0; j < p->n; ++j)
        for (int e = p->Ap[j]; e < p->Ap[j + 1]; ++e) {
            const int i = p->Ai[e];
            r2[p->pnz + e] = kind[i] == ROW_NONE ? 0 : p->Ax[e] * fabs(gam[i]) / sqrt(dep[i]);
        }
}

/* max(a, b) for an accumulator a that is never NaN (a NaN b leaves it): fmax's result
 * there, inline (fmax is a libm call: 5 % of the host path's time, measured) */
static inline double acc_max(double a, double b) { return b > a ? b : a; }

/* r = b − Ks·w (Ks unregularized, from the sparse data) into rx, rc; p->rn = ‖r‖∞,
 * p->bn = ‖b‖∞ and p->scale = ‖|b| + |Ks|·|w|‖∞ (the stopping test's scale). */
static void residual(dq_batch *B, dq_qp *p)
{
    const int n = p->n, m = p->m;
    const signed char *kind = B->kind + p->yo;
    const double *gam = B->gam + p->yo, *dd = B->dd + p->yo, *bc = B->bc + p->yo;
    const double *wx = B->wx + p->xo, *wc = B->wc + p->yo, *bx = B->bx + p->xo;
    double *rx = B->rx + p->xo, *rc = B->rc + p->yo, *av = B->av + p->yo;
    /* the magnitudes |Ks|·|w| go to tx (n) and av (m), free at this point */
    double *ax = B->tx + p->xo;
    for (int j = 0; j < n; ++j) {
        rx[j] = bx[j];
        ax[j] = 0;
    }
    for (int j = 0; j < n; ++j)
        for (int e = p->Pp[j]; e < p->Pp[j + 1]; ++e) {
            const int i = p->Pi[e];
            const double v = p->Px[e];
            rx[i] -= v * wx[j];
            ax[i] += fabs(v * wx[j]);
            if (i != j) {
                rx[j] -= v * wx[i];
                ax[j] += fabs(v * wx[i]);
            }
        }
    for (int i = 0; i < m; ++i) {
        rc[i] = kind[i] == ROW_NONE ? 0 : bc[i] + dd[i] * wc[i];
        av[i] = kind[i] == ROW_NONE ? 0 : fabs(dd[i] * wc[i]);
    }
    for (int j = 0; j < n; ++j)
        for (int e = p->Ap[j]; e < p->Ap[j + 1]; ++e) {
            const int i = p->Ai[e];
            if (kind[i] == ROW_NONE) continue;
            const double v = gam[i] * p->Ax[e];
            rx[j] -= v * wc[i];
            ax[j] += fabs(v * wc[i]);
            rc[i] -= v * wx[j];
            av[i] += fabs(v * wx[j]);
        }
    double rn = 0, sc = 0, bn = 0;
    for (int j = 0; j < n; ++j) {
        rn = acc_max(rn, fabs(rx[j]));
        sc = acc_max(sc, fabs(bx[j]) + ax[j]);
        bn = acc_max(bn, fabs(bx[j]));
        if (!isfinite(rx[j])) rn = INFINITY;
    }
    for (int i = 0; i < m; ++i) {
        rn = acc_max(rn, fabs(rc[i]));
        sc = acc_max(sc, fabs(bc[i]) + av[i]);
        bn = acc_max(bn, fabs(bc[i]));
        if (!isfinite(rc[i])) rn = INFINITY;
    }
    p->rn = rn;
    p->bn = bn;
    p->scale = sc;
}

/* The Schur complement's right-hand side r_x + Cᵀ(D + ε)⁻¹ r_c into tx */
static void schur_rhs(dq_batch *B, const dq_qp *p)
{
    const signed char *kind = B->kind + p->yo;
    const double *gam = B->gam + p->yo, *dep = B->dep + p->yo, *rc = B->rc + p->yo;
    const double *rx = B->rx + p->xo;
    double *tx = B->tx + p->xo;
    for (int j = 0; j < p->n; ++j) {
        double t = rx[j];
        for (int e = p->Ap[j]; e < p->Ap[j + 1]; ++e) {
            const int i = p->Ai[e];
            if (kind[i] != ROW_NONE) t += gam[i] * p->Ax[e] * rc[i] / dep[i];
        }
        tx[j] = t;
    }
}

/* w += Δ with Δx = tx (the device's solve) and Δc = (D + ε)⁻¹(C Δx − r_c) */
static void correct(dq_batch *B, const dq_qp *p)
{
    const signed char *kind = B->kind + p->yo;
    const double *gam = B->gam + p->yo, *dep = B->dep + p->yo, *rc = B->rc + p->yo;
    const double *tx = B->tx + p->xo;
    double *wx = B->wx + p->xo, *wc = B->wc + p->yo, *av = B->av + p->yo;
    a_times(p, tx, av);
    for (int j = 0; j < p->n; ++j) wx[j] += tx[j];
    for (int i = 0; i < p->m; ++i)
        if (kind[i] != ROW_NONE) wc[i] += (gam[i] * av[i] - rc[i]) / dep[i];
}

/* From w: dq, dl, du, ry of QP p (batch-layout arrays); 0, or 1 if some value is not
 * finite. For a lower row λd_λ = √λ·w = |γ|w, for an upper one likewise. */
static int gradients_of(const dq_batch *B, const dq_qp *p)
{
    const signed char *kind = B->kind + p->yo;
    const double *gam = B->gam + p->yo, *wc = B->wc + p->yo, *wx = B->wx + p->xo;
    double *dq = B->d->rx + p->xo, *dl = B->d->dl + p->yo, *du = B->d->du + p->yo;
    double *ry = B->d->ry + p->yo;
    int bad = 0;
    for (int j = 0; j < p->n; ++j) {
        dq[j] = wx[j];
        bad |= !isfinite(dq[j]);
    }
    for (int i = 0; i < p->m; ++i) {
        dl[i] = du[i] = ry[i] = 0;
        const double ld = fabs(gam[i]) * wc[i];
        switch (kind[i]) {
        case ROW_LOWER: dl[i] = ld; ry[i] = -ld; break;
        case ROW_UPPER: du[i] = -ld; ry[i] = ld; break;
        case ROW_EQ:
            ry[i] = wc[i];
            if (p->y[i] < 0) dl[i] = -wc[i];
            else du[i] = -wc[i];
            break;
        default: break;
        }
        bad |= !isfinite(dl[i]) || !isfinite(du[i]) || !isfinite(ry[i]);
    }
    return bad;
}

static void nan_fill(double *v, size_t n)
{
    for (size_t i = 0; i < n; ++i) v[i] = NAN;
}

/* Refine QP p's w from zero with polishing's kept factor of the same active rows (arow) as
 * the preconditioner: Ks ≈ U K̂ U with K̂ the factored scaled system and
 * U = diag(1/(√c D), √c Γ E⁻¹), so a correction is Δ = U⁻¹ K̂⁻¹ U⁻¹ r (U⁻¹'s constraint
 * part E/(√c γᵢ) = sc/γ; γ ≠ 0 on every active row). K̂'s δ, seen through U, is a
 * regularization of the same relative size on every row, whatever λ: the corrections
 * contract as polishing's own refinement does. Returns 1 when the residual meets the host
 * path's stopping test (status set), 0 when it stops halving (w is then to be reset). */
static int kept_refine(dq_batch *B, dq_qp *p, qp_kept *kr, const int *arow, double *t)
{
    const int n = p->n, na = kr->na;
    const double *gam = B->gam + p->yo, *rx = B->rx + p->xo, *rc = B->rc + p->yo;
    double *wx = B->wx + p->xo, *wc = B->wc + p->yo;
    double prev = INFINITY;
    for (int it = 0;; ++it) {
        residual(B, p);
        if (p->rn <= DERIV_STOP * p->scale) {
            p->running = 0;
            B->status[p->k] = p->rn <= DERIV_ACCEPT * p->bn ? GALA_QP_DERIV_OK
                                                             : GALA_QP_DERIV_SINGULAR;
            return 1;
        }
        if (it == DERIV_KEPT_STEPS || !(p->rn < 0.5 * prev)) return 0;
        prev = p->rn;
        for (int j = 0; j < n; ++j) t[j] = kr->sx[j] * rx[j];
        for (int a = 0; a < na; ++a) t[n + a] = kr->sc[a] / gam[arow[a]] * rc[arow[a]];
        gala_qd_fact_solve(&kr->F, t);
        for (int j = 0; j < n; ++j) wx[j] += kr->sx[j] * t[j];
        for (int a = 0; a < na; ++a) wc[arow[a]] += kr->sc[a] / gam[arow[a]] * t[n + a];
    }
}

/* The host path, for QPs whose adjoint system is small and sparse: the regularized system
 *     K = [P + εI, Cᵀ; C, −(D + εI)]      (C: the active rows γᵢ aᵢᵀ, D = −S; ε = DERIV_EPS_HOST)
 * factored by the sparse LDLᵀ of qd_ldlt.c in the order of its patterns (kkt_order.c; no
 * Schur complement formed, no device round trip) and refined against the unregularized Ks
 * as the device path refines (residual(), the same stopping rule and statuses): a
 * correction Δ = K⁻¹ r is the device path's Δx = H⁻¹(r_x + Cᵀ(D + ε)⁻¹ r_c),
 * Δc = (D + ε)⁻¹(C Δx − r_c), with a smaller ε (K is factored as it is, its conditioning not
 * squared by 1/ε weights). A QP whose factor would take more than qp.deriv_host_flops
 * multiply-adds (Σ of its columns' nonzeros squared, from the elimination tree) is left
 * running, for the device's batched Cholesky of H. Each thread works in its scratch ws. */
static void host_one(dq_batch *B, dq_qp *p, double max_flops, gala_host_scratch ws[3])
{
    const int n = p->n, m = p->m;
    const signed char *kind = B->kind + p->yo;
    const double *gam = B->gam + p->yo, *dd = B->dd + p->yo;
    double *wx = B->wx + p->xo, *wc = B->wc + p->yo, *rx = B->rx + p->xo, *rc = B->rc + p->yo;
    int na = 0, nu = n + p->Pp[n];
    for (int i = 0; i < m; ++i) na += kind[i] != ROW_NONE;
    for (int e = 0; e < p->Ap[n]; ++e) nu += kind[p->Ai[e]] != ROW_NONE;
    const int N = n + na;
    nu += na;
    /* K's values and the right-hand side; the active rows' indices and positions, K's
     * columns (up, ui) */
    const size_t nd = (size_t)nu + (size_t)N + 1;
    const size_t ni = (size_t)na + (size_t)m + 2 * ((size_t)N + 2) + (size_t)nu;
    double *ux = gala_host_scratch_get(&ws[2], sizeof(double) * nd + sizeof(int) * ni);
    if (!ux) return; /* left to the device path, which reports the memory */
    double *t = ux + nu;
    int *arow = (int *)(ux + nd), *pos = arow + na, *up = pos + m, *fill = up + (N + 2);
    int *ui = fill + (N + 2);
    for (int i = 0, a = 0; i < m; ++i) {
        pos[i] = -1;
        if (kind[i] != ROW_NONE) {
            arow[a] = i;
            pos[i] = n + a++;
        }
    }
    /* the factor polishing kept for these active rows, if any: refined with, it saves
     * building and factoring K (control QPs: about half of the host path's time) */
    qp_kept *kr = B->s->kept ? B->s->kept[p->k] : NULL;
    if (kr && kr->gen == B->s->kept_gen && kr->n == n && kr->na == na &&
        !memcmp(kr->arow, arow, sizeof(int) * (size_t)na)) {
        if (kr->flops > max_flops) return; /* the device path's, as K's own factor would be */
        if ((p->kept = kept_refine(B, p, kr, arow, t))) return;
        memset(wx, 0, sizeof(double) * (size_t)n); /* stalled: K's own factor, from zero */
        for (int a = 0; a < na; ++a) wc[arow[a]] = 0;
    }
    /* K's upper triangle by columns: [P + εI, Cᵀ; C, −(D + εI)] */
    gala_qd_kkt(n, na, p->Pp, p->Pi, p->Px, p->Ap, p->Ai, p->Ax, pos, arow, 1, NULL, gam,
                DERIV_EPS_HOST, dd, DERIV_EPS_HOST, up, ui, ux, NULL, fill);
    gala_qd_fact F;
    double of;
    const int *ord = gala_qp_kkt_order(B->s, p->sl, &of);
    const int fr = gala_qd_fact_make(&F, ws, n, m, pos, ord, of, N, up, ui, ux, max_flops);
    if (fr == GALA_QD_DEAR || fr == GALA_QD_NOMEM) return;
    p->running = 0;
    if (fr == GALA_QD_SINGULAR) {
        B->status[p->k] = GALA_QP_DERIV_SINGULAR;
        return;
    }
    for (int it = 0;; ++it) {
        residual(B, p);
        if (p->rn <= DERIV_STOP * p->scale || it > DERIV_REFINE) {
            B->status[p->k] = p->rn <= DERIV_ACCEPT * p->bn ? GALA_QP_DERIV_OK
                                                             : GALA_QP_DERIV_SINGULAR;
            break;
        }
        memcpy(t, rx, sizeof(double) * (size_t)n);
        for (int a = 0; a < na; ++a) t[n + a] = rc[arow[a]];
        gala_qd_fact_solve(&F, t);
        for (int j = 0; j < n; ++j) wx[j] += t[j];
        for (int a = 0; a < na; ++a) wc[arow[a]] += t[n + a];
    }
}

static void host_range(void *arg, long b, long e, int tid)
{
    dq_batch *B = arg;
    for (long t = b; t < e; ++t) host_one(B, &B->qs[t], B->host_flops, B->ws[tid]);
}

/* QPs the device path's refinement left short of DERIV_STOP, out of steps or stalled (Ks
 * nearly singular, e.g. a weakly active row: its eigenvalue ≈ −λ is below the device's ε,
 * and the corrections of the regularized factor contract by about ε/(|λ| + ε) per step) are
 * finished on the host: host_one refines from the device's w with the unreduced system,
 * whose ε is 100 times smaller, unless its factor is dearer than DERIV_FINISH. The device's
 * answer and status stand where the host's residual ends no smaller. */
static void finish_range(void *arg, long b, long e, int tid)
{
    dq_batch *B = arg;
    for (long t = b; t < e; ++t) {
        dq_qp *p = &B->qs[t];
        if (!p->unfinished) continue;
        double *wx = B->wx + p->xo, *wc = B->wc + p->yo;
        double *keep = gala_malloc(sizeof(double) * ((size_t)p->n + (size_t)p->m));
        if (!keep) continue;
        memcpy(keep, wx, sizeof(double) * (size_t)p->n);
        memcpy(keep + p->n, wc, sizeof(double) * (size_t)p->m);
        const double rn = p->rn, scale = p->scale;
        const int status = B->status[p->k];
        host_one(B, p, DERIV_FINISH, B->ws[tid]);
        if (!(p->rn < rn)) {
            memcpy(wx, keep, sizeof(double) * (size_t)p->n);
            memcpy(wc, keep + p->n, sizeof(double) * (size_t)p->m);
            p->rn = rn;
            p->scale = scale;
            B->status[p->k] = status;
        }
        gala_free(keep);
    }
}

static void prepare_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    dq_batch *B = arg;
    for (long t = b; t < e; ++t) prepare(B, &B->qs[t]);
}

static void weigh_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    dq_batch *B = arg;
    for (long t = b; t < e; ++t) weigh(B, &B->qs[t]);
}

/* Whether QP p, its residual shrinking by rn/rprev a step, would not reach DERIV_STOP in the
 * steps left. Such a QP stops now and is finished on the host (finish_range) instead of
 * holding the whole batch's device loop to DERIV_REFINE steps; only a QP whose host factor
 * is sure to fit DERIV_FINISH ((n + m)³/3 bounds it), so that stopping early loses nothing. */
static int stalled(const dq_batch *B, const dq_qp *p)
{
    if (B->it < 4 || !(p->rprev > 0)) return 0;
    const double N = (double)p->n + (double)p->m;
    if (N * N * N / 3 > DERIV_FINISH) return 0;
    const double rate = p->rn / p->rprev, need = p->rn / (DERIV_STOP * p->scale);
    return rate >= 1 || log(need) > -log(rate) * (DERIV_REFINE - B->it);
}

/* One refinement step of every running QP: take the device's correction (after the first
 * solve), form the residual, stop (converged, stalled, or out of steps) or form the next
 * right-hand side. */
static void step_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    dq_batch *B = arg;
    for (long t = b; t < e; ++t) {
        dq_qp *p = &B->qs[t];
        if (!p->running) continue;
        if (p->running > 1) correct(B, p);
        residual(B, p);
        if (p->rn <= DERIV_STOP * p->scale || B->last || stalled(B, p)) {
            p->running = 0;
            p->unfinished = p->rn > DERIV_STOP * p->scale;
            /* against ‖b‖ alone: an inconsistent singular system reaches a small residual
             * relative to ‖Ks‖·‖w‖ only with a huge w */
            B->status[p->k] = p->rn <= DERIV_ACCEPT * p->bn ? GALA_QP_DERIV_OK
                                                             : GALA_QP_DERIV_SINGULAR;
        } else {
            schur_rhs(B, p);
            p->running = 2;
            p->rprev = p->rn;
        }
    }
}

static void gradients_range(void *arg, long b, long e, int tid)
{
    (void)tid;
    dq_batch *B = arg;
    for (long t = b; t < e; ++t) {
        const dq_qp *p = &B->qs[t];
        if (B->status[p->k] != GALA_QP_DERIV_OK) continue;
        if (gradients_of(B, p)) {
            B->status[p->k] = GALA_QP_DERIV_NOT_FINITE;
            nan_fill(B->d->rx + p->xo, (size_t)p->n);
            nan_fill(B->d->dl + p->yo, (size_t)p->m);
            nan_fill(B->d->du + p->yo, (size_t)p->m);
            nan_fill(B->d->ry + p->yo, (size_t)p->m);
        }
    }
}

/* Reals given in double into a buffer of dtype dt (float: converted), and back. */
static gala_status put_reals(gala_qp_solver *s, gala_buffer *b, size_t count, const double *src)
{
    if (!count) return GALA_OK;
    if (gala_buffer_dtype(b) == GALA_DOUBLE) return gala_buffer_write(b, 0, count, src);
    float *f = gala_malloc(sizeof(float) * count);
    if (!f) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_adjoint_derivative_compute: "
                              "no host memory");
    for (size_t i = 0; i < count; ++i) f[i] = (float)src[i];
    gala_status st = gala_buffer_write(b, 0, count, f);
    gala_free(f);
    return st;
}

static gala_status get_reals(gala_qp_solver *s, gala_buffer *b, size_t count, double *dst)
{
    if (!count) return GALA_OK;
    if (gala_buffer_dtype(b) == GALA_DOUBLE) return gala_buffer_read(b, 0, count, dst);
    float *f = gala_malloc(sizeof(float) * count);
    if (!f) return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_adjoint_derivative_compute: "
                              "no host memory");
    gala_status st = gala_buffer_read(b, 0, count, f);
    for (size_t i = 0; st == GALA_OK && i < count; ++i) dst[i] = f[i];
    gala_free(f);
    return st;
}

/* A kernel of the QP family's utility program in precision dt (the solver's own program
 * when dt is its dtype). */
static gala_status util_kernel(gala_qp_solver *s, gala_dtype dt, const char *name,
                               gala_kernel **k)
{
    gala_program_key key;
    gala_qp_util_key(s, name, &key);
    key.dtype = dt;
    return gala_kernel_get(s->ctx, &key, name, k);
}

/* The device's part for the nq QPs of B: H formed and factored (per QP its potrf info in
 * info), then the refinement loop with the corrections solved there. */
static gala_status device_solve(dq_batch *B, int nq, size_t hn)
{
    gala_qp_solver *s = B->s;
    static const char fn[] = "gala_qp_adjoint_derivative_compute";
    const gala_dtype dt = s->ctx->info.fp64 ? GALA_DOUBLE : GALA_FLOAT;
    gala_status st = GALA_OK;
    size_t ktot = 0, vtot = 0;
    int maxm = 1;
    for (int t = 0; t < nq; ++t) {
        dq_qp *p = &B->qs[t];
        p->ko = ktot;
        ktot += ((size_t)p->n * (size_t)p->n + QP_KALIGN - 1) / QP_KALIGN * QP_KALIGN;
        if (p->m > maxm) maxm = p->m;
        vtot += 2 * ((size_t)p->pnz + (size_t)p->anz);
    }
    if (vtot > 0x7fffffffu || ktot / QP_KALIGN > 0x7fffffffu)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: the batch's derivative systems "
                          "have more than 2^31 entries", fn);
    int *meta = gala_malloc(sizeof(int) * (size_t)nq * (QP_NMETA + 6));
    size_t *offs = gala_malloc(sizeof(size_t) * (size_t)nq * 2);
    gala_buffer *bmeta = NULL, *blist = NULL, *bko = NULL, *bflag = NULL, *brho = NULL;
    gala_buffer *bctype = NULL, *braw = NULL, *bmv = NULL, *bK = NULL, *bV = NULL;
    if (!meta || !offs) {
        st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        goto out;
    }
    int *list = meta + (size_t)nq * QP_NMETA, *jko = list + nq, *ns = jko + nq;
    int *info = ns + nq, *ones = info + nq, *lds = ones + nq;
    size_t *koff = offs, *voff = offs + nq;
    size_t vo = 0;
    for (int t = 0; t < nq; ++t) {
        const dq_qp *p = &B->qs[t];
        int *mt = meta + (size_t)t * QP_NMETA;
        memcpy(mt, s->meta + (size_t)p->sl * QP_NMETA, sizeof(int) * QP_NMETA);
        /* its own values (the shared strategy stores the batch's once) and row kinds 1 */
        mt[QP_M_RO] = (int)p->ro;
        mt[QP_M_PV] = (int)vo;
        mt[QP_M_AV] = (int)(vo + 2 * (size_t)p->pnz);
        mt[QP_M_TV] = (int)(vo + 2 * (size_t)p->pnz + (size_t)p->anz);
        mt[QP_M_CO] = 0;
        vo += 2 * ((size_t)p->pnz + (size_t)p->anz);
        list[t] = t;
        jko[t] = (int)(p->ko / QP_KALIGN);
        ns[t] = lds[t] = p->n;
        ones[t] = 1;
        koff[t] = p->ko;
    }
    const size_t rsz = nq ? B->qs[nq - 1].ro + (size_t)B->qs[nq - 1].pnz + (size_t)B->qs[nq - 1].anz : 0;
    const double one = 1;
    gala_kernel *ke, *kf;
    if ((st = util_kernel(s, dt, "qp_expand", &ke)) != GALA_OK) goto out;
    if ((st = util_kernel(s, dt, "qp_form_k", &kf)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, GALA_INT, (size_t)nq * QP_NMETA, &bmeta)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, GALA_INT, (size_t)nq, &blist)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, GALA_INT, (size_t)nq, &bko)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, GALA_INT, (size_t)nq, &bflag)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, GALA_INT, (size_t)maxm, &bctype)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, dt, 1, &brho)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, dt, rsz, &braw)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, dt, vtot, &bmv)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, dt, ktot, &bK)) != GALA_OK) goto out;
    if ((st = gala_qp_mkbuf(s, dt, hn, &bV)) != GALA_OK) goto out;
    if ((st = gala_buffer_write(bmeta, 0, (size_t)nq * QP_NMETA, meta)) != GALA_OK) goto out;
    if ((st = gala_buffer_write(blist, 0, (size_t)nq, list)) != GALA_OK) goto out;
    if ((st = gala_buffer_write(bko, 0, (size_t)nq, jko)) != GALA_OK) goto out;
    if ((st = gala_buffer_fill(bflag, 0, (size_t)nq, 1)) != GALA_OK) goto out;
    if ((st = gala_buffer_fill(bctype, 0, (size_t)maxm, 1)) != GALA_OK) goto out;
    if ((st = put_reals(s, brho, 1, &one)) != GALA_OK) goto out;
    if ((st = put_reals(s, braw, rsz, B->raw2)) != GALA_OK) goto out;
    {
        const gala_dims d = gala_qp_dims(nq, QP_UTIL_WG);
        st = qp_launch_expand(s->ctx, ke, &d, bmeta, blist, nq, s->b_map, braw, bmv);
        if (st == GALA_OK)
            st = qp_launch_form_k(s->ctx, kf, &d, bmeta, blist, bko, brho, 0, 0, bflag, nq,
                                  s->b_rowptr, s->b_colidx, bmv, bctype, bK, B->eps, 1);
        if (st != GALA_OK) goto out;
    }
    st = gala_potrf_vbatched(s->ctx, GALA_LOWER, ns, bK, koff, lds, nq, info);
    if (st == GALA_ERR_NOT_POSITIVE_DEFINITE || st == GALA_ERR_NOT_FINITE) {
        gala_error_clear(s->ctx); /* per QP: SINGULAR */
        st = GALA_OK;
    }
    if (st != GALA_OK) goto out;
    for (int t = 0; t < nq; ++t)
        if (info[t] != 0 && B->qs[t].running) {
            B->qs[t].running = 0;
            B->status[B->qs[t].k] = GALA_QP_DERIV_SINGULAR;
        }
    /* refinement: per step the host's residuals and right-hand sides, then the device's
     * solves of the QPs still running */
    for (int it = 0;; ++it) {
        B->last = it > DERIV_REFINE;
        B->it = it;
        gala_par(s->ctx, s->nthreads, nq, 4, step_range, B);
        int na = 0;
        for (int t = 0; t < nq; ++t) {
            const dq_qp *p = &B->qs[t];
            if (!p->running) continue;
            ns[na] = lds[na] = p->n;
            koff[na] = p->ko;
            voff[na] = p->xo;
            ++na;
        }
        if (!na) break;
        if ((st = put_reals(s, bV, hn, B->tx)) != GALA_OK) goto out;
        st = gala_potrs_vbatched(s->ctx, GALA_LOWER, ns, ones, bK, koff, lds, bV, voff, lds, na);
        if (st == GALA_OK) st = get_reals(s, bV, hn, B->tx);
        if (st != GALA_OK) goto out;
    }
out:
    gala_buffer_free(bmeta);
    gala_buffer_free(blist);
    gala_buffer_free(bko);
    gala_buffer_free(bflag);
    gala_buffer_free(bctype);
    gala_buffer_free(brho);
    gala_buffer_free(braw);
    gala_buffer_free(bmv);
    gala_buffer_free(bK);
    gala_buffer_free(bV);
    gala_free(meta);
    gala_free(offs);
    return st;
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
    double *raw = s->host.vals, *fbuf = NULL;
    dq_batch B;
    memset(&B, 0, sizeof B);
    B.s = s;
    B.d = d;
    B.status = d->status;
    B.eps = s->ctx->info.fp64 ? DERIV_EPS : DERIV_EPS_FLOAT;
    if (!raw && s->n_raw) {
        raw = gala_malloc(sizeof(double) * s->n_raw);
        if (!raw) { st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn); goto out; }
        st = gala_qp_read_real(s, s->b_raw, 0, s->n_raw, raw);
        if (st != GALA_OK) goto out;
    }
    /* the QPs to differentiate */
    B.qs = gala_calloc((size_t)count + 1, sizeof *B.qs);
    if (!B.qs) { st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn); goto out; }
    int nq = 0;
    size_t ro = 0;
    for (int k = 0; k < count; ++k) {
        d->status[k] = GALA_QP_DERIV_NOT_SOLVED;
        const int sl = s->slot[k];
        if (sl < 0 || s->info[k].status != GALA_QP_SOLVED) continue;
        const size_t xk = s->res.x_offset[k], yk = s->res.y_offset[k];
        int bad = 0;
        for (int j = 0; dx && j < s->qp_n[k]; ++j) bad |= !isfinite(dx[xk + (size_t)j]);
        for (int i = 0; dy && i < s->qp_m[k]; ++i) bad |= !isfinite(dy[yk + (size_t)i]);
        if (bad) {
            d->status[k] = GALA_QP_DERIV_NOT_FINITE;
            continue;
        }
        const int *mt = s->meta + (size_t)sl * QP_NMETA;
        const qp_pat *tp = &s->patterns[s->p_pattern[sl]], *ta = &s->patterns[s->a_pattern[sl]];
        const size_t rraw = (size_t)mt[QP_M_RO], zo = (size_t)mt[QP_M_ZO];
        dq_qp *p = &B.qs[nq++];
        p->k = k;
        p->sl = sl;
        p->n = mt[QP_M_N];
        p->m = mt[QP_M_M];
        p->pnz = tp->nnz;
        p->anz = ta->nnz;
        p->Pp = tp->p; p->Pi = tp->i; p->Px = raw + rraw;
        p->Ap = ta->p; p->Ai = ta->i; p->Ax = raw + rraw + (size_t)tp->nnz;
        p->l = s->host.l + zo; p->u = s->host.u + zo;
        p->xo = xk;
        p->yo = yk;
        p->x = s->res.x + p->xo;
        p->y = s->res.y + p->yo;
        p->dx = dx ? dx + p->xo : NULL;
        p->dy = dy ? dy + p->yo : NULL;
        p->ro = ro;
        ro += (size_t)p->pnz + (size_t)p->anz;
    }
    if (!nq) goto out;
    /* n-vectors (4 hn), m-vectors (7 hm), kinds, weighted values */
    fbuf = gala_malloc(sizeof(double) * (4 * hn + 7 * hm + ro + 1));
    B.kind = gala_malloc(hm + 1);
    if (!fbuf || !B.kind) { st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn); goto out; }
    B.bx = fbuf; B.wx = B.bx + hn; B.rx = B.wx + hn; B.tx = B.rx + hn;
    B.gam = B.tx + hn; B.dep = B.gam + hm; B.dd = B.dep + hm; B.bc = B.dd + hm;
    B.wc = B.bc + hm; B.rc = B.wc + hm; B.av = B.rc + hm;
    B.raw2 = B.av + hm;
    memset(B.tx, 0, sizeof(double) * hn);
    gala_par(s->ctx, s->nthreads, nq, 4, prepare_range, &B);
    /* the small sparse systems on the host (host_one), the rest on the device: those still
     * running first in qs, in their order */
    B.host_flops = (double)gala_tuned(s->ctx, s->dt)->qp.deriv_host_flops;
    B.ws = gala_calloc((size_t)s->nthreads, sizeof *B.ws);
    if (!B.ws) {
        st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
        goto out;
    }
    if (B.host_flops > 0) {
        gala_qp_kkt_orders_make(s);
        gala_par(s->ctx, s->nthreads, nq, 4, host_range, &B);
        for (int t = 0; t < nq; ++t) d->kept += B.qs[t].kept;
    }
    int ndev = 0;
    for (int t = 0; t < nq; ++t) ndev += B.qs[t].running != 0;
    if (ndev && ndev < nq) {
        dq_qp *order = gala_malloc(sizeof *order * (size_t)nq);
        if (!order) { st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "%s: no host memory", fn); goto out; }
        for (int t = 0, a = 0, h = ndev; t < nq; ++t) order[B.qs[t].running ? a++ : h++] = B.qs[t];
        memcpy(B.qs, order, sizeof *order * (size_t)nq);
        gala_free(order);
    }
    if (ndev) {
        gala_par(s->ctx, s->nthreads, ndev, 4, weigh_range, &B);
        if ((st = device_solve(&B, ndev, hn)) != GALA_OK) goto out;
        int nunfinished = 0;
        for (int t = 0; t < ndev; ++t) nunfinished += B.qs[t].unfinished;
        if (nunfinished) {
            gala_qp_kkt_orders_make(s);
            gala_par(s->ctx, s->nthreads, ndev, 1, finish_range, &B);
        }
    }
    gala_par(s->ctx, s->nthreads, nq, 16, gradients_range, &B);
out:
    if (B.ws) gala_host_scratch_release(B.ws[0], (size_t)s->nthreads * 3);
    gala_free(B.ws);
    if (raw != s->host.vals) gala_free(raw);
    gala_free(B.qs);
    gala_free(B.kind);
    gala_free(fbuf);
    if (st != GALA_OK) gala_qp_deriv_release(s);
    return st;
}

int gala_qp_deriv_kept(const gala_qp_solver *s) { return s && s->deriv ? s->deriv->kept : 0; }

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
