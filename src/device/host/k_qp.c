/* Host versions of cl/qp.cl (same names, same arguments, same results up to rounding
 * order). The work-group structure is ignored: each kernel loops over its QPs. */
#ifndef REAL
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_kernels.h"
/* the layouts, constants and argument lists of cl/qp_abi.h and the per-QP rules of
 * cl/qp_rules.h, as the kernels have them: the constants in the template's REAL */
#define QP_REAL_C(x) ((REAL)(x))
#include "../../../cl/qp_abi.h"
#include "../../../cl/qp_rules.h"

/* The hot loops of the host QP solver (the Cholesky factor of K and the solves with it)
 * are also built for x86-64-v3 (GALA_CLONES_V3, src/core/internal.h): the default build
 * targets baseline x86-64, whose two-wide SSE2 products took 30 % of a control batch's
 * time. */
#define HQP_CLONES GALA_CLONES_V3
#define HQP_INLINE GALA_CLONE_INLINE

/* below this, the polar part of a multiplier counts as zero (cl/qp_abi.h) */
#define QP_DEADZONE_R SUF(QP_DEADZONE)
/* Threads (host_kernels.h). A QP kernel's items are the QPs of its list (or the jobs of a
 * factorization launch): each touches its own QP's vectors, matrices, K and state only,
 * as the work-groups of cl/qp.cl do, so they run on the context's threads when the launch
 * is large enough, each through the same code as on one thread. hqp_job carries the
 * launch, the item's function and per-thread scratch. */
/* item(L, g, wk, hit) for g in [0, count) (gala_host_items; QP items write nothing alike) */
static gala_status hqp_run(const gala_host_launch *L, const char *name, int count, double work,
                           gala_host_item item, size_t wbytes)
{
    return gala_host_items(L, name, count, work, item, NULL, wbytes, NULL);
}

/* A launch's work for gala_host_threads: over the QPs list[0 .. nlist) (entries < 0
 * skipped; list NULL: QPs 0 .. nlist - 1), Σ fe·(n + m + nnz(P) + 2·nnz(A)) + fs·n². */
static double hqp_work(const int *meta, const int *list, int nlist, double fe, double fs)
{
    double w = 0;
    for (int g = 0; g < nlist; ++g) {
        const int b = list ? list[g] : g;
        if (b < 0) continue;
        const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
        const double n = mt[QP_M_N], m = mt[QP_M_M];
        w += fe * (n + m + mt[QP_M_PNZ] + 2.0 * mt[QP_M_ANZ]) + fs * n * n;
    }
    return w;
}

/* The work of the QPs of the list that run: per iteration the solves with K's factor (or
 * the product with K⁻¹), about n² multiply-adds, and the sparse products (fe per entry) */
static double hqp_running_work(const gala_host_launch *L, double fe, double fs)
{
    const int *meta = HBUF(int, 0), *list = HBUF(int, 1), *state = HBUF(int, 3);
    double w = 0;
    for (int g = 0; g < HINT(2); ++g) {
        const int b = list[g];
        if (b >= 0 && state[(ptrdiff_t)b * QP_NSTATE + QP_S_STATUS] == 0) w += hqp_work(meta, list + g, 1, fe, fs);
    }
    return w;
}

#define HOST_TEMPLATE "k_qp.c"
#include "host_template.h"

#define K(name, sig) {#name, sig, name##_f, name##_d}
const gala_host_kernel gala_host_qp[] = {
    K(qp_scale_norms, GALA_HOST_SIG(QP_ARGS_scale_norms)),
    K(qp_scale_update, GALA_HOST_SIG(QP_ARGS_scale_norms)),
    K(qp_scale_apply, GALA_HOST_SIG(QP_ARGS_scale_apply)),
    K(qp_form_k, GALA_HOST_SIG(QP_ARGS_form_k)),
    K(qp_chol_inv, GALA_HOST_SIG(QP_ARGS_chol_inv)),
    K(qp_mirror, GALA_HOST_SIG(QP_ARGS_mirror)),
    K(qp_expand, GALA_HOST_SIG(QP_ARGS_expand)),
    K(qp_init, GALA_HOST_SIG(QP_ARGS_init)),
    K(qp_reset, GALA_HOST_SIG(QP_ARGS_reset)),
    K(qp_shared_apply, GALA_HOST_SIG(QP_ARGS_shared_apply)),
    K(qp_vec_update, GALA_HOST_SIG(QP_ARGS_vec_update)),
    K(qp_warm, GALA_HOST_SIG(QP_ARGS_warm)),
    K(qp_vec_check, GALA_HOST_SIG(QP_ARGS_vec_check)),
    K(qp_vec_in, GALA_HOST_SIG(QP_ARGS_vec_in)),
    K(qp_sol_out, GALA_HOST_SIG(QP_ARGS_sol_out)),
    K(qp_warm_in, GALA_HOST_SIG(QP_ARGS_warm_in)),
    K(qp_unscale, GALA_HOST_SIG(QP_ARGS_unscale)),
    K(qp_count, GALA_HOST_SIG(QP_ARGS_count)),
    K(qp_compact_count, GALA_HOST_SIG(QP_ARGS_compact_count)),
    K(qp_compact_write, GALA_HOST_SIG(QP_ARGS_compact_write)),
    K(qp_admm, GALA_HOST_SIG(QP_ARGS_admm)),
    K(qp_check, GALA_HOST_SIG(QP_ARGS_admm)),
    K(qp_kkt_values, GALA_HOST_SIG(QP_ARGS_kkt_values)),
    K(qp_kkt_rhs, GALA_HOST_SIG(QP_ARGS_kkt_rhs)),
    K(qp_kkt_update, GALA_HOST_SIG(QP_ARGS_kkt_update)),
    K(qp_kkt_resid, GALA_HOST_SIG(QP_ARGS_kkt_resid)),
    K(qp_pcg_precond, GALA_HOST_SIG(QP_ARGS_pcg_precond)),
    K(qp_pcg, GALA_HOST_SIG(QP_ARGS_pcg)),
    {NULL, NULL, NULL, NULL},
};
#undef K

#else /* template body, compiled once per REAL */

static REAL SUF(qmax)(REAL a, REAL b) { return (a != a || b != b) ? a + b : (a > b ? a : b); }
/* fabs, not a < 0 ? -a : a: the select compiled to a branch on the sign, mispredicted half
 * the time in the scaling norms (the two differ only in the sign of a zero) */
static REAL SUF(qabs)(REAL a) { return (REAL)fabs((double)a); }
static REAL SUF(limit)(REAL v)
{
    return v < (REAL)QP_MIN_SCALING ? (REAL)1 : (v > (REAL)QP_MAX_SCALING ? (REAL)QP_MAX_SCALING : v);
}
static REAL SUF(rho_row)(int ct, REAL rho)
{
    return ct == 0 ? (REAL)QP_RHO_MIN : (ct == 2 ? (REAL)QP_RHO_EQ * rho : rho);
}
/* 1/ρ of the three row kinds (free, inequality, equality: HQP_RK), as OSQP's rho_inv_vec:
 * the per-row divisions become products */
static void SUF(rho_inv3)(REAL rho, REAL *rinv)
{
    for (int k = 0; k < 3; ++k) rinv[k] = (REAL)1 / SUF(rho_row)(k, rho);
}
static REAL SUF(polar)(REAL v, REAL l, REAL u)
{
    if (u > (REAL)QP_INFV) return l < -(REAL)QP_INFV ? (REAL)0 : (v < 0 ? v : (REAL)0);
    if (l < -(REAL)QP_INFV) return v > 0 ? v : (REAL)0;
    return v;
}
static REAL SUF(support)(REAL v, REAL l, REAL u) { return v > 0 ? u * v : (v < 0 ? l * v : (REAL)0); }

#ifndef HQP_MATS
/* the matrix blocks of a QP (see QP_MATS in cl/qp.cl) */
#define HQP_MATS(mt)                                                                        \
    const int *Pp = rp + (mt)[QP_M_PP], *Pc = ci + (mt)[QP_M_PC];                           \
    const int *Ap = rp + (mt)[QP_M_AP], *Ac = ci + (mt)[QP_M_AC];                           \
    const int *Tp = rp + (mt)[QP_M_TP], *Tc = ci + (mt)[QP_M_TC]
#define HQP_VALS(mt, Q)                                                                     \
    Q REAL *Pv = mv + (mt)[QP_M_PV], *Av = mv + (mt)[QP_M_AV], *Tv = mv + (mt)[QP_M_TV]
#endif

/* qp_scale_norms / qp_scale_update / qp_scale_apply: one Ruiz round per launch pair, then
 * the in-place scaling (see cl/qp.cl). */
#define HSCALE_PRO                                                                          \
    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);                                   \
    const int nlist = HINT(2);                                                              \
    const int *rp = HBUF(int, 3), *ci = HBUF(int, 4);                                       \
    REAL *mv = HBUF(REAL, 5), *vn = HBUF(REAL, 6), *vm = HBUF(REAL, 8);                     \
    const ptrdiff_t ntot = HLONG(7), mtot = HLONG(9);                                       \
    REAL *info = HBUF(REAL, 10)
#define HSCALE_QP                                                                           \
    const int b = list[g];                                                                  \
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;                                         \
    const int n = mt[QP_M_N], m = mt[QP_M_M];                                               \
    const ptrdiff_t xo = mt[QP_M_XO], zo = mt[QP_M_ZO];                                     \
    HQP_MATS(mt);                                                                           \
    HQP_VALS(mt, );                                                                         \
    REAL *D = vn + QP_V_D * ntot + xo, *Dt = vn + QP_V_R * ntot + xo;                       \
    REAL *q = vn + QP_V_Q * ntot + xo;                                                      \
    REAL *E = vm + QP_V_E * mtot + zo, *Et = vm + QP_V_YPREV * mtot + zo;                   \
    const REAL c = info[(ptrdiff_t)b * QP_NINFO + QP_I_C]

/* The scaling norms are maxima of |v| over many products: a plain max, which keeps the
 * loops free of the per-element NaN test of SUF(qmax), and a flag for a NaN seen, which
 * makes the result NaN as qmax would. */
#define HQP_NANMAX(mx, nan, v)                                                              \
    do {                                                                                    \
        const REAL v_ = (v);                                                                \
        (mx) = v_ > (mx) ? v_ : (mx);                                                       \
        (nan) |= v_ != v_;                                                                  \
    } while (0)
static HQP_INLINE REAL SUF(nanmax_end)(REAL mx, int nan) { return nan ? (REAL)NAN : mx; }

/* max over k in [k0, k1) of |f·val[k]·vec[idx[k]]| (one row of P, A or their transposes
 * scaled by the vector's entries), a NaN seen marked in *nan */
static HQP_INLINE REAL SUF(row_absmax)(int k0, int k1, const int *restrict idx,
                                       const REAL *restrict val, const REAL *restrict vec, REAL f,
                                       int *nan)
{
    REAL mx = 0;
    int bad = 0;
    for (int k = k0; k < k1; ++k) HQP_NANMAX(mx, bad, SUF(qabs)(f * val[k] * vec[idx[k]]));
    *nan |= bad;
    return mx;
}

/* the same over the entries of row j of the full symmetric P with idx[k] <= j only: column j
 * of P's upper triangle (P is symmetric), which is what OSQP 1.x's scale_data measures */
static HQP_INLINE REAL SUF(triu_col_absmax)(int k0, int k1, int j, const int *restrict idx,
                                            const REAL *restrict val, const REAL *restrict vec,
                                            REAL f, int *nan)
{
    REAL mx = 0;
    int bad = 0;
    for (int k = k0; k < k1; ++k)
        if (idx[k] <= j) HQP_NANMAX(mx, bad, SUF(qabs)(f * val[k] * vec[idx[k]]));
    *nan |= bad;
    return mx;
}

/* Dt and Et of one QP: the limited norms first, then 1/√ in a loop of its own (vectorized) */
HQP_CLONES static void SUF(scale_norms_qp)(const gala_host_launch *L,
                                           const void *arg, long gi, void *wk, int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    (void)wk;
    HSCALE_PRO;
    HSCALE_QP;
    (void)nlist;
    (void)q;
    for (int j = 0; j < n; ++j) {
        int nan = 0;
        const REAL dj = D[j];
        REAL mx = SUF(triu_col_absmax)(Pp[j], Pp[j + 1], j, Pc, Pv, D, c * dj, &nan);
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) HQP_NANMAX(mx, nan, SUF(qabs)(E[Tc[k]] * Tv[k] * dj));
        Dt[j] = SUF(limit)(SUF(nanmax_end)(mx, nan));
    }
    for (int j = 0; j < n; ++j) Dt[j] = (REAL)1 / (REAL)sqrt((double)Dt[j]);
    for (int i = 0; i < m; ++i) {
        int nan = 0;
        const REAL mx = SUF(row_absmax)(Ap[i], Ap[i + 1], Ac, Av, D, E[i], &nan);
        Et[i] = SUF(limit)(SUF(nanmax_end)(mx, nan));
    }
    for (int i = 0; i < m; ++i) Et[i] = (REAL)1 / (REAL)sqrt((double)Et[i]);
}

/* the scaling kernels' work: a few passes over each QP's entries */
static double SUF(scale_work)(const gala_host_launch *L)
{
    return hqp_work(HBUF(int, 0), HBUF(int, 1), HINT(2), 2, 0);
}

static gala_status SUF(qp_scale_norms)(const gala_host_launch *L)
{
    return hqp_run(L, "qp_scale_norms", HINT(2), SUF(scale_work)(L), SUF(scale_norms_qp), 0);
}

static void SUF(scale_update_qp)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                 int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    (void)wk;
    HSCALE_PRO;
    (void)nlist;
    {
        HSCALE_QP;
        (void)Ap;
        (void)Ac;
        (void)Av;
        (void)Tp;
        (void)Tc;
        (void)Tv;
        for (int j = 0; j < n; ++j) D[j] *= Dt[j];
        for (int i = 0; i < m; ++i) E[i] *= Et[i];
        REAL sum = 0, qn = 0;
        int qnan = 0;
        for (int j = 0; j < n; ++j) {
            int nan = 0;
            const REAL cd = c * D[j];
            sum += SUF(nanmax_end)(SUF(triu_col_absmax)(Pp[j], Pp[j + 1], j, Pc, Pv, D, cd, &nan), nan);
            HQP_NANMAX(qn, qnan, SUF(qabs)(cd * q[j]));
        }
        REAL ct = SUF(qmax)(sum / (REAL)(n > 0 ? n : 1), SUF(limit)(SUF(nanmax_end)(qn, qnan)));
        info[(ptrdiff_t)b * QP_NINFO + QP_I_C] = c / SUF(limit)(ct);
    }
}
#undef HQP_NANMAX

static gala_status SUF(qp_scale_update)(const gala_host_launch *L)
{
    return hqp_run(L, "qp_scale_update", HINT(2), SUF(scale_work)(L), SUF(scale_update_qp), 0);
}

static void SUF(scale_apply_qp)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    (void)wk;
    HSCALE_PRO;
    (void)nlist;
    int *ctype = HBUF(int, 11);
    const int rho_is_vec = HINT(12);
    {
        HSCALE_QP;
        (void)Dt;
        (void)Et;
        REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
        for (int j = 0; j < n; ++j) {
            REAL dj = D[j];
            for (int k = Pp[j]; k < Pp[j + 1]; ++k) Pv[k] *= c * dj * D[Pc[k]];
            for (int k = Tp[j]; k < Tp[j + 1]; ++k) Tv[k] *= E[Tc[k]] * dj;
            q[j] *= c * dj;
        }
        for (int i = 0; i < m; ++i) {
            REAL ei = E[i];
            for (int k = Ap[i]; k < Ap[i + 1]; ++k) Av[k] *= ei * D[Ac[k]];
            REAL lv = l[i] * ei, uv = u[i] * ei;
            l[i] = lv;
            u[i] = uv;
            int t = 1;
            if (lv < -(REAL)QP_INFV && uv > (REAL)QP_INFV) t = 0;
            else if (uv - lv < (REAL)1e-4) t = 2;
            ctype[mt[QP_M_CO] + i] = rho_is_vec ? t : 1;
        }
    }
}

static gala_status SUF(qp_scale_apply)(const gala_host_launch *L)
{
    return hqp_run(L, "qp_scale_apply", HINT(2), SUF(scale_work)(L), SUF(scale_apply_qp), 0);
}
#undef HSCALE_PRO
#undef HSCALE_QP

/* The work of a factorization launch's flagged jobs (jqp: job → QP): Σ fe·entries + fs·n²
 * + fc·n³ */
static double SUF(jobs_work)(const int *meta, const int *jqp, const int *flag, int njobs,
                             double fe, double fs, double fc)
{
    double w = 0;
    for (int g = 0; g < njobs; ++g) {
        if (!flag[g]) continue;
        const double n = meta[(ptrdiff_t)jqp[g] * QP_NMETA + QP_M_N];
        w += hqp_work(meta, jqp + g, 1, fe, fs) + fc * n * n * n;
    }
    return w;
}

static void SUF(form_k_job)(const gala_host_launch *L, const void *arg, long gi, void *wk, int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    (void)wk;
    const int *meta = HBUF(int, 0), *jqp = HBUF(int, 1), *jko = HBUF(int, 2);
    const REAL *jrho = HBUF(REAL, 3);
    const int jrs = HINT(4), jro = HINT(5);
    const int *flag = HBUF(int, 6);
    const int *rp = HBUF(int, 8), *ci = HBUF(int, 9);
    const REAL *mv = HBUF(REAL, 10);
    const int *ctype = HBUF(int, 11);
    REAL *K = HBUF(REAL, 12);
    const REAL sigma = HREAL(13);
    const int lower = HINT(14);
    {
        if (!flag[g]) return;
        const int *mt = meta + (ptrdiff_t)jqp[g] * QP_NMETA;
        const int n = mt[QP_M_N];
        const ptrdiff_t co = mt[QP_M_CO];
        HQP_MATS(mt);
        HQP_VALS(mt, const);
        const REAL rho = jrho[(ptrdiff_t)g * jrs + jro];
        REAL *Kb = K + (ptrdiff_t)jko[g] * QP_KALIGN;
        memset(Kb, 0, sizeof(REAL) * (size_t)n * (size_t)n);
        for (int j = 0; j < n; ++j) {
            REAL *col = Kb + (ptrdiff_t)j * n;
            const int lo = lower ? j : 0;
            for (int k = Pp[j]; k < Pp[j + 1]; ++k)
                if (Pc[k] >= lo) col[Pc[k]] += Pv[k];
            col[j] += sigma;
            for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
                const int r = Tc[k];
                const REAL w = SUF(rho_row)(ctype[co + r], rho) * Tv[k];
                for (int k2 = Ap[r]; k2 < Ap[r + 1]; ++k2)
                    if (Ac[k2] >= lo) col[Ac[k2]] += w * Av[k2];
            }
        }
    }
}

/* one job per K (jko distinct per job: per QP, or per rung of the shared ladder) */
static gala_status SUF(qp_form_k)(const gala_host_launch *L)
{
    const int njobs = HINT(7);
    /* the zeroed n² block and A's products (the control QPs': about n² again) */
    const double w = SUF(jobs_work)(HBUF(int, 0), HBUF(int, 1), HBUF(int, 6), njobs, 4, 2, 0);
    return hqp_run(L, "qp_form_k", njobs, w, SUF(form_k_job), 0);
}

/* KFAC: the Cholesky factor L of the n×n matrix A (lower triangle given), right-looking in
 * panels of four columns so that the trailing triangle is read and written once per panel;
 * then row i of L into column i above the diagonal and 1/L(i,i) on it. Returns 0, or k + 1
 * when pivot k is not positive. */
HQP_CLONES static int SUF(chol_kfac)(REAL *A, ptrdiff_t n)
{
    for (ptrdiff_t k0 = 0; k0 < n; k0 += 4) {
        const ptrdiff_t k1 = k0 + 4 < n ? k0 + 4 : n;
        for (ptrdiff_t k = k0; k < k1; ++k) { /* the panel, column by column */
            REAL *restrict ck = A + k * n;
            if (!(ck[k] > 0)) return (int)k + 1;
            const REAL lkk = (REAL)sqrt(ck[k]);
            ck[k] = lkk;
            for (ptrdiff_t i = k + 1; i < n; ++i) ck[i] /= lkk;
            for (ptrdiff_t j = k + 1; j < k1; ++j) {
                REAL *restrict cj = A + j * n;
                const REAL f = ck[j];
                for (ptrdiff_t i = j; i < n; ++i) cj[i] -= ck[i] * f;
            }
        }
        if (k1 - k0 < 4) continue;
        const REAL *restrict c0 = A + k0 * n, *restrict c1 = c0 + n;
        const REAL *restrict c2 = c1 + n, *restrict c3 = c2 + n;
        /* a trailing column whose four factors are zero is left as it is (most of them in a
         * sparse K: its envelope), unless the panel holds an ∞ or NaN (0·∞ is NaN) */
        int skip = 1;
        for (ptrdiff_t i = k1; i < n; ++i) skip &= ((c0[i] + c1[i]) + (c2[i] + c3[i])) * 0 == 0;
        for (ptrdiff_t j = k1; j < n; ++j) { /* the trailing columns: rank-4 update */
            REAL *restrict cj = A + j * n;
            const REAL f0 = c0[j], f1 = c1[j], f2 = c2[j], f3 = c3[j];
            if (skip && f0 == 0 && f1 == 0 && f2 == 0 && f3 == 0) continue;
            for (ptrdiff_t i = j; i < n; ++i)
                cj[i] -= (c0[i] * f0 + c1[i] * f1) + (c2[i] * f2 + c3[i] * f3);
        }
    }
    for (ptrdiff_t j = 0; j < n; ++j) {
        for (ptrdiff_t i = j + 1; i < n; ++i) A[i * n + j] = A[j * n + i];
        A[j * n + j] = (REAL)1 / A[j * n + j];
    }
    return 0;
}

/* The sweep of cl/qp.cl on the lower triangle only (half the work), with the column k
 * gathered into a scratch vector (wk: n REALs) so that the updates are plain axpys;
 * mirrored at the end. Job g's failure goes to jinfo[g]; the QP's status is set by the
 * caller, after the loop. */
static void SUF(chol_inv_job)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                              int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    const int *meta = HBUF(int, 0), *jqp = HBUF(int, 1), *jko = HBUF(int, 2);
    int *flag = HBUF(int, 3);
    REAL *K = HBUF(REAL, 5);
    int *jinfo = HBUF(int, 6);
    const int kfac = (int)HDEF("KFAC", 0);
    REAL *v = wk;
    {
        if (!flag[g]) return;
        const int b = jqp[g];
        const ptrdiff_t n = meta[(ptrdiff_t)b * QP_NMETA + QP_M_N];
        REAL *A = K + (ptrdiff_t)jko[g] * QP_KALIGN;
        int fail = 0;
        if (kfac) {
            fail = SUF(chol_kfac)(A, n);
            jinfo[g] = fail;
            flag[g] = 0;
            return;
        }
        for (ptrdiff_t k = 0; k < n; ++k) {
            const REAL d = A[k * n + k];
            if (!(d > 0)) { fail = (int)k + 1; break; }
            /* v = column k of the symmetric matrix (from the lower triangle) */
            for (ptrdiff_t i = 0; i < k; ++i) v[i] = A[i * n + k];
            for (ptrdiff_t i = k; i < n; ++i) v[i] = A[k * n + i];
            const REAL *restrict vr = v;
            for (ptrdiff_t j = 0; j < n; ++j) {
                if (j == k) continue;
                REAL *restrict cj = A + j * n;
                const REAL f = vr[j] / d;
                const REAL keep = k >= j ? cj[k] : 0;
                ptrdiff_t i = j;
                for (; i + 4 <= n; i += 4) {
                    cj[i] -= vr[i] * f;
                    cj[i + 1] -= vr[i + 1] * f;
                    cj[i + 2] -= vr[i + 2] * f;
                    cj[i + 3] -= vr[i + 3] * f;
                }
                for (; i < n; ++i) cj[i] -= vr[i] * f;
                if (k >= j) cj[k] = keep;
            }
            for (ptrdiff_t i = k + 1; i < n; ++i) A[k * n + i] = v[i] / d;
            for (ptrdiff_t j = 0; j < k; ++j) A[j * n + k] = v[j] / d;
            A[k * n + k] = -(REAL)1 / d;
        }
        if (!fail)
            for (ptrdiff_t j = 0; j < n; ++j)
                for (ptrdiff_t i = j; i < n; ++i) {
                    const REAL t = -A[j * n + i];
                    A[j * n + i] = t;
                    A[i * n + j] = t;
                }
        jinfo[g] = fail;
        flag[g] = 0;
    }
}

static gala_status SUF(qp_chol_inv)(const gala_host_launch *L)
{
    const int *meta = HBUF(int, 0), *jqp = HBUF(int, 1);
    const int *flag = HBUF(int, 3);
    const int njobs = HINT(4);
    const int *jinfo = HBUF(int, 6);
    int *state = HBUF(int, 7);
    const int set_status = HINT(8);
    const int kfac = (int)HDEF("KFAC", 0);
    if (njobs <= 0) return GALA_OK;
    /* the jobs that run (their flags are cleared), for the statuses after the loop */
    unsigned char *ran = set_status ? gala_malloc((size_t)njobs) : NULL;
    if (set_status && !ran) return gala_error(L->ctx, GALA_ERR_OUT_OF_MEMORY, "qp_chol_inv: no host memory");
    ptrdiff_t nmax = 0;
    for (int g = 0; g < njobs; ++g) {
        if (ran) ran[g] = flag[g] != 0;
        const ptrdiff_t n = flag[g] ? meta[(ptrdiff_t)jqp[g] * QP_NMETA + QP_M_N] : 0;
        nmax = n > nmax ? n : nmax;
    }
    /* n³/6 multiply-adds for the factor, n³ for the sweep */
    const double w = SUF(jobs_work)(meta, jqp, flag, njobs, 0, 0, kfac ? 1.0 / 6 : 1);
    gala_status st = hqp_run(L, "qp_chol_inv", njobs, w, SUF(chol_inv_job),
                             kfac ? 0 : sizeof(REAL) * (size_t)(nmax > 0 ? nmax : 1));
    for (int g = 0; st == GALA_OK && ran && g < njobs; ++g)
        if (ran[g] && jinfo[g]) state[(ptrdiff_t)jqp[g] * QP_NSTATE + QP_S_STATUS] = 9;
    gala_free(ran);
    return st;
}

static void SUF(mirror_job)(const gala_host_launch *L, const void *arg, long gi, void *wk, int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    (void)wk;
    const int *meta = HBUF(int, 0), *jqp = HBUF(int, 1), *jko = HBUF(int, 2);
    const int *flag = HBUF(int, 3);
    REAL *K = HBUF(REAL, 5);
    if (!flag[g]) return;
    const ptrdiff_t n = meta[(ptrdiff_t)jqp[g] * QP_NMETA + QP_M_N];
    REAL *A = K + (ptrdiff_t)jko[g] * QP_KALIGN;
    for (ptrdiff_t j = 0; j < n; ++j)
        for (ptrdiff_t i = 0; i < j; ++i) A[j * n + i] = A[i * n + j];
}

static gala_status SUF(qp_mirror)(const gala_host_launch *L)
{
    const int njobs = HINT(4);
    const double w = SUF(jobs_work)(HBUF(int, 0), HBUF(int, 1), HBUF(int, 3), njobs, 0, 1, 0);
    return hqp_run(L, "qp_mirror", njobs, w, SUF(mirror_job), 0);
}

static void SUF(expand_qp)(const gala_host_launch *L, const void *arg, long gi, void *wk, int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    (void)wk;
    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int *map = HBUF(int, 3);
    const REAL *raw = HBUF(REAL, 4);
    REAL *mv = HBUF(REAL, 5);
    {
        const int *mt = meta + (ptrdiff_t)list[g] * QP_NMETA;
        const int pnz = mt[QP_M_PNZ], anz = mt[QP_M_ANZ];
        const REAL *r = raw + mt[QP_M_RO];
        const int *pm = map + mt[QP_M_PM], *am = map + mt[QP_M_AM];
        HQP_VALS(mt, );
        for (int e = 0; e < pnz; ++e) {
            Pv[pm[2 * e]] = r[e];
            if (pm[2 * e + 1] >= 0) Pv[pm[2 * e + 1]] = r[e];
        }
        for (int e = 0; e < anz; ++e) {
            Av[am[e]] = r[pnz + e];
            Tv[e] = r[pnz + e];
        }
    }
}

static gala_status SUF(qp_expand)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    const double w = hqp_work(HBUF(int, 0), HBUF(int, 1), nlist, 1, 0);
    return hqp_run(L, "qp_expand", nlist, w, SUF(expand_qp), 0);
}

static void SUF(init_qp)(const gala_host_launch *L, const void *arg, long gi, void *wk, int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    (void)wk;
    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    int *state = HBUF(int, 3);
    REAL *info = HBUF(REAL, 4), *vn = HBUF(REAL, 5), *vm = HBUF(REAL, 7);
    const ptrdiff_t ntot = HLONG(6), mtot = HLONG(8);
    const int *hstat = HBUF(int, 9);
    const REAL rho = HREAL(10);
    const int rung0 = HINT(11), keep_rho = HINT(12);
    {
        const int b = list[g];
        const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
        REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
        for (int j = 0; j < mt[QP_M_N]; ++j) D[j] = 1;
        for (int i = 0; i < mt[QP_M_M]; ++i) E[i] = 1;
        REAL *inf = info + (ptrdiff_t)b * QP_NINFO;
        for (int k = 0; k < QP_NINFO; ++k)
            if (!(k == QP_I_RHO && keep_rho)) inf[k] = k == QP_I_RHO ? rho : (k == QP_I_C ? (REAL)1 : (REAL)0);
        int *st = state + (ptrdiff_t)b * QP_NSTATE;
        QP_STATE_INIT(st, hstat[b], rung0);
    }
}

static gala_status SUF(qp_init)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_init", nlist, hqp_work(HBUF(int, 0), HBUF(int, 1), nlist, 0.5, 0),
                   SUF(init_qp), 0);
}

static gala_status SUF(qp_reset)(const gala_host_launch *L)
{
    int *state = HBUF(int, 0);
    const int *hstat = HBUF(int, 1);
    const int nslots = HINT(2), keep = HINT(3), rung0 = HINT(4);
    for (int b = 0; b < nslots; ++b) {
        int *st = state + (ptrdiff_t)b * QP_NSTATE;
        QP_STATE_RESET(st, hstat[b], keep, rung0);
    }
    return GALA_OK;
}

static int SUF(kind)(REAL lv, REAL uv, int rho_is_vec)
{
    int t = 1;
    if (lv < -(REAL)QP_INFV && uv > (REAL)QP_INFV) t = 0;
    else if (uv - lv < (REAL)1e-4) t = 2;
    return rho_is_vec ? t : 1;
}

/* A shared-strategy QP b whose row kinds were compared with the batch's (first: the first
 * row that differs, or -1): INVALID with hstat = H_KIND + first, or such an earlier mark
 * cleared; invalid data (H_HOST) stay so whatever the kinds. */
static void SUF(kind_mark)(int *hstat, int *state, int b, int first)
{
    QP_KIND_MARK(hstat, state, b, first, ptrdiff_t); /* cl/qp_rules.h */
}

static void SUF(qp_shared_apply_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                      int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi + 1;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    REAL *vn = HBUF(REAL, 3), *vm = HBUF(REAL, 5), *info = HBUF(REAL, 7);
    const ptrdiff_t ntot = HLONG(4), mtot = HLONG(6);
    const int *ctype = HBUF(int, 8);
    int *state = HBUF(int, 9), *hstat = HBUF(int, 10);
    const int rho_is_vec = HINT(11);
    const int r = list[0];
    const int *mr = meta + (ptrdiff_t)r * QP_NMETA;
    const REAL *D0 = vn + QP_V_D * ntot + mr[QP_M_XO], *E0 = vm + QP_V_E * mtot + mr[QP_M_ZO];
    const REAL c = info[(ptrdiff_t)r * QP_NINFO + QP_I_C];
    (void)nlist;
    const int b = list[g];
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
    const int n = mt[QP_M_N], m = mt[QP_M_M];
    REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
    REAL *q = vn + QP_V_Q * ntot + mt[QP_M_XO];
    REAL *l = vm + QP_V_L * mtot + mt[QP_M_ZO], *u = vm + QP_V_U * mtot + mt[QP_M_ZO];
    for (int j = 0; j < n; ++j) {
        D[j] = D0[j];
        q[j] *= c * D0[j];
    }
    int first = -1;
    for (int i = 0; i < m; ++i) {
        const REAL e = E0[i];
        E[i] = e;
        l[i] *= e;
        u[i] *= e;
        if (first < 0 && SUF(kind)(l[i], u[i], rho_is_vec) != ctype[mr[QP_M_CO] + i]) first = i;
    }
    info[(ptrdiff_t)b * QP_NINFO + QP_I_C] = c;
    SUF(kind_mark)(hstat, state, b, first);
}

/* QPs 1 .. of the list take the first one's scaling */
static gala_status SUF(qp_shared_apply)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    const double w = hqp_work(HBUF(int, 0), HBUF(int, 1) + 1, nlist - 1, 1, 0);
    return hqp_run(L, "qp_shared_apply", nlist - 1, w, SUF(qp_shared_apply_item), 0);
}

static void SUF(qp_vec_update_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                    int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    REAL *vn = HBUF(REAL, 3), *vm = HBUF(REAL, 5);
    const ptrdiff_t ntot = HLONG(4), mtot = HLONG(6);
    const REAL *info = HBUF(REAL, 7);
    int *ctype = HBUF(int, 8), *refac = HBUF(int, 9), *state = HBUF(int, 10);
    int *hstat = HBUF(int, 11);
    const int which = HINT(12), shared = HINT(13), rho_is_vec = HINT(14);
    (void)nlist;
    const int b = list[g];
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
    const int n = mt[QP_M_N], m = mt[QP_M_M];
    const REAL *D = vn + QP_V_D * ntot + mt[QP_M_XO], *E = vm + QP_V_E * mtot + mt[QP_M_ZO];
    REAL *q = vn + QP_V_Q * ntot + mt[QP_M_XO];
    REAL *l = vm + QP_V_L * mtot + mt[QP_M_ZO], *u = vm + QP_V_U * mtot + mt[QP_M_ZO];
    int *ct = ctype + mt[QP_M_CO];
    const REAL c = info[(ptrdiff_t)b * QP_NINFO + QP_I_C];
    if (which & 1)
        for (int j = 0; j < n; ++j) q[j] *= c * D[j];
    int first = -1;
    for (int i = 0; i < m; ++i) {
        if (which & 2) l[i] *= E[i];
        if (which & 4) u[i] *= E[i];
        const int t = SUF(kind)(l[i], u[i], rho_is_vec);
        if (t != ct[i]) {
            if (first < 0) first = i;
            if (!shared) ct[i] = t;
        }
    }
    if (!shared) {
        if (first >= 0) refac[b] = 1;
    } else {
        SUF(kind_mark)(hstat, state, b, first);
    }
}

static gala_status SUF(qp_vec_update)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_vec_update", nlist, hqp_work(HBUF(int, 0), HBUF(int, 1), nlist, 1, 0),
                   SUF(qp_vec_update_item), 0);
}

/* The sparse strategy's kernels (cl/qp.cl: qp_kkt_values, qp_kkt_rhs, qp_kkt_update). */
#ifndef HQP_NKQ
#define HQP_NKQ QP_NKQ /* kq per slot: matrix index, value-map offset, KKT entries */
/* a row's kind as rho_inv3's index: qp_vec_in's kinds are 0 (free), 1 (inequality) and 2
 * (equality), the same numbers (no branch per row) */
#define HQP_RK(ct) (ct)
/* qp_kkt_rhs / _update / _resid: listed QP g (an item: returns unless it runs); its KKT
 * column q0 */
#define HQP_KKT_QP                                                                          \
    const int b = list[g];                                                                  \
    if (state[(ptrdiff_t)b * QP_NSTATE + QP_S_STATUS] != 0) return;                         \
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;                                         \
    const int n = mt[QP_M_N], m = mt[QP_M_M];                                               \
    const int *ct = ctype + mt[QP_M_CO];                                                    \
    const REAL rho = info[(ptrdiff_t)b * QP_NINFO + QP_I_RHO];                              \
    const ptrdiff_t q0 = (ptrdiff_t)kq[(ptrdiff_t)b * HQP_NKQ] * kbm
#endif
static void SUF(qp_kkt_values_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                    int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    const int *kq = HBUF(int, 3), *kmap = HBUF(int, 4);
    const REAL *mv = HBUF(REAL, 5);
    const int *ctype = HBUF(int, 6);
    const REAL *info = HBUF(REAL, 7);
    REAL *kv = HBUF(REAL, 8);
    const ptrdiff_t kstride = HLONG(9);
    const REAL sigma = HREAL(10);
    (void)nlist;
    const int b = list[g];
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA, *k3 = kq + (ptrdiff_t)b * HQP_NKQ;
    const REAL *Pv = mv + mt[QP_M_PV], *Av = mv + mt[QP_M_AV];
    const int *map = kmap + k3[1], *ct = ctype + mt[QP_M_CO];
    REAL *v = kv + (ptrdiff_t)k3[0] * kstride;
    const REAL rho = info[(ptrdiff_t)b * QP_NINFO + QP_I_RHO];
    for (int e = 0; e < k3[2]; ++e) {
        const int c = map[e], k = c >> 3, t = c & 7;
        v[e] = t == 0 ? Pv[k] : t == 1 ? Pv[k] + sigma : t == 2 ? sigma : t == 3 ? Av[k]
             : -(REAL)1 / SUF(rho_row)(ct[k], rho);
    }
}

static gala_status SUF(qp_kkt_values)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_kkt_values", nlist, hqp_work(HBUF(int, 0), HBUF(int, 1), nlist, 2, 0),
                   SUF(qp_kkt_values_item), 0);
}

static void SUF(qp_kkt_rhs_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                 int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    const int *state = HBUF(int, 3), *kq = HBUF(int, 4);
    REAL *vn = HBUF(REAL, 5), *vm = HBUF(REAL, 7);
    const ptrdiff_t ntot = HLONG(6), mtot = HLONG(8);
    const int *ctype = HBUF(int, 9);
    const REAL *info = HBUF(REAL, 10);
    REAL *kb = HBUF(REAL, 11);
    const ptrdiff_t kbm = HLONG(12), kbe = HLONG(13);
    const REAL sigma = HREAL(14);
    const int last = HINT(15);
    (void)nlist;
    HQP_KKT_QP;
    const ptrdiff_t xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    const REAL *q = vn + QP_V_Q * ntot + xo;
    REAL *z = vm + QP_V_Z * mtot + zo, *y = vm + QP_V_Y * mtot + zo;
    REAL *yp = vm + QP_V_YPREV * mtot + zo;
    REAL *r = kb + q0;
    REAL rinv[3];
    SUF(rho_inv3)(rho, rinv);
    for (int j = 0; j < n; ++j) r[j * kbe] = sigma * x[j] - q[j];
    for (int i = 0; i < m; ++i) r[(n + i) * kbe] = z[i] - rinv[HQP_RK(ct[i])] * y[i];
    if (last) {
        memcpy(xp, x, sizeof(REAL) * (size_t)n);
        memcpy(yp, y, sizeof(REAL) * (size_t)m);
    }
}

static gala_status SUF(qp_kkt_rhs)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_kkt_rhs", nlist, hqp_running_work(L, 1, 0), SUF(qp_kkt_rhs_item), 0);
}

/* qp_kkt_update of one QP whose solve gave ν, entries contiguous (kbe = 1: one QP alone, or
 * the first of a batch...): the loops of the general case below without its aliasing (the
 * solution xt is read before the next right-hand side r, which may be the same memory, is
 * written, in a second pass), so that they vectorize. Same arithmetic, same results. */
HQP_CLONES static void SUF(kkt_update_nu)(int n, int m, REAL alpha, REAL sigma,
                                         const REAL *xt, const REAL *xc, int next, int nlast,
                                         const REAL *restrict rr, const REAL *restrict rinv,
                                         const int *restrict ct, const REAL *restrict q,
                                         const REAL *restrict l, const REAL *restrict u,
                                         REAL *restrict x, REAL *restrict z, REAL *restrict y,
                                         REAL *restrict xp, REAL *restrict yp, REAL *r)
{
    const REAL a1 = (REAL)1 - alpha, r0 = rr[0], r1 = rr[1], r2 = rr[2];
    const REAL v0 = rinv[0], v1 = rinv[1], v2 = rinv[2];
    {
        const REAL *restrict t = xt, *restrict c = xc;
        if (c)
            for (int j = 0; j < n; ++j) x[j] = alpha * (t[j] + c[j]) + a1 * x[j];
        else
            for (int j = 0; j < n; ++j) x[j] = alpha * t[j] + a1 * x[j];
        const REAL *restrict tn = xt + n, *restrict cn = xc ? xc + n : NULL;
        for (int i = 0; i < m; ++i) {
            const int k = ct[i];
            const REAL ri = k == 0 ? r0 : (k == 2 ? r2 : r1), rv = k == 0 ? v0 : (k == 2 ? v2 : v1);
            const REAL nu = cn ? tn[i] + cn[i] : tn[i];
            const REAL zt = (z[i] - rv * y[i]) + rv * nu;
            const REAL zh = alpha * zt + a1 * z[i];
            REAL zn = zh + rv * y[i];
            zn = zn < l[i] ? l[i] : zn;
            zn = zn > u[i] ? u[i] : zn;
            y[i] = y[i] + ri * (zh - zn);
            z[i] = zn;
        }
    }
    if (!next) return;
    /* the next right-hand side (qp_kkt_rhs's), now that xt is read */
    REAL *restrict rx = r, *restrict rz = r + n;
    for (int j = 0; j < n; ++j) rx[j] = sigma * x[j] - q[j];
    for (int i = 0; i < m; ++i) {
        const int k = ct[i];
        rz[i] = z[i] - (k == 0 ? v0 : (k == 2 ? v2 : v1)) * y[i];
    }
    if (nlast) {
        memcpy(xp, x, sizeof(REAL) * (size_t)n);
        memcpy(yp, y, sizeof(REAL) * (size_t)m);
    }
}

static void SUF(qp_kkt_update_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                    int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    int *state = HBUF(int, 3);
    const int *kq = HBUF(int, 4), *rp = HBUF(int, 5), *ci = HBUF(int, 6);
    const REAL *mv = HBUF(REAL, 7);
    REAL *vn = HBUF(REAL, 8), *vm = HBUF(REAL, 10);
    const ptrdiff_t ntot = HLONG(9), mtot = HLONG(11);
    const int *ctype = HBUF(int, 12);
    const REAL *info = HBUF(REAL, 13), *kx = HBUF(REAL, 14);
    REAL *kc = HBUF(REAL, 15);
    const int fl = HINT(16), corr = fl & QP_KKT_CORR, nu = fl & QP_KKT_NU;
    const int next = nu && (fl & QP_KKT_NEXT), nlast = next && (fl & QP_KKT_NEXT_LAST);
    const ptrdiff_t kbm = HLONG(17), kbe = HLONG(18);
    const REAL alpha = HREAL(19), sigma = HREAL(20);
    const int iters = HINT(21);
    (void)nlist;
    HQP_KKT_QP;
    const ptrdiff_t xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    const int *Ap = rp + mt[QP_M_AP], *Ac = ci + mt[QP_M_AC];
    const REAL *Av = mv + mt[QP_M_AV];
    REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    const REAL *q = vn + QP_V_Q * ntot + xo;
    REAL *z = vm + QP_V_Z * mtot + zo, *y = vm + QP_V_Y * mtot + zo;
    REAL *yp = vm + QP_V_YPREV * mtot + zo;
    const REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    const REAL *xt = kx + q0, *xc = kc + q0;
    REAL *r = kc + q0; /* next: the next iteration's right-hand side, entry by entry after its read */
#define HQP_XT(e) (corr ? xt[(e) * kbe] + xc[(e) * kbe] : xt[(e) * kbe])
    /* the rows' ρ and 1/ρ by kind (0 free, 1 inequality, 2 equality: qp_vec_in's kind) */
    REAL rinv[3], rr[3];
    SUF(rho_inv3)(rho, rinv);
    for (int k = 0; k < 3; ++k) rr[k] = SUF(rho_row)(k, rho);
    if (nu && kbe == 1) {
        SUF(kkt_update_nu)(n, m, alpha, sigma, xt, corr ? xc : NULL, next, nlast, rr, rinv, ct,
                           q, l, u, x, z, y, xp, yp, r);
        state[(ptrdiff_t)b * QP_NSTATE + QP_S_ITER] += iters;
        return;
    }
    for (int j = 0; j < n; ++j) {
        const REAL xn = alpha * HQP_XT(j) + ((REAL)1 - alpha) * x[j];
        x[j] = xn;
        if (next) { /* qp_kkt_rhs's, fused */
            r[j * kbe] = sigma * xn - q[j];
            if (nlast) xp[j] = xn;
        }
    }
    for (int i = 0; i < m; ++i) {
        const int rk = HQP_RK(ct[i]);
        const REAL ri = rr[rk], rv = rinv[rk];
        REAL zt = 0;
        if (nu) { /* OSQP's z̃ = (z − y/ρ) + ν/ρ: the KKT solve's second block */
            zt = (z[i] - rv * y[i]) + rv * HQP_XT(n + i);
        } else {
            for (int k = Ap[i]; k < Ap[i + 1]; ++k) zt += Av[k] * HQP_XT(Ac[k]);
        }
        const REAL zh = alpha * zt + ((REAL)1 - alpha) * z[i];
        REAL zn = zh + rv * y[i];
        zn = zn < l[i] ? l[i] : zn;
        zn = zn > u[i] ? u[i] : zn;
        const REAL yn = y[i] + ri * (zh - zn);
        y[i] = yn;
        z[i] = zn;
        if (next) {
            r[(n + i) * kbe] = zn - rv * yn;
            if (nlast) yp[i] = yn;
        }
    }
#undef HQP_XT
    state[(ptrdiff_t)b * QP_NSTATE + QP_S_ITER] += iters;
}

static gala_status SUF(qp_kkt_update)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_kkt_update", nlist, hqp_running_work(L, 2, 0),
                   SUF(qp_kkt_update_item), 0);
}

static void SUF(qp_kkt_resid_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                   int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    const int *state = HBUF(int, 3), *kq = HBUF(int, 4), *rp = HBUF(int, 5), *ci = HBUF(int, 6);
    const REAL *mv = HBUF(REAL, 7);
    const int *ctype = HBUF(int, 8);
    const REAL *info = HBUF(REAL, 9);
    REAL *kb = HBUF(REAL, 10);
    const REAL *kx = HBUF(REAL, 11);
    const ptrdiff_t kbm = HLONG(12), kbe = HLONG(13);
    const REAL sigma = HREAL(14);
    (void)nlist;
    HQP_KKT_QP;
    HQP_MATS(mt);
    HQP_VALS(mt, const);
    REAL *r = kb + q0;
    const REAL *v = kx + q0;
    for (int j = 0; j < n; ++j) {
        REAL a = sigma * v[j * kbe];
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) a += Pv[k] * v[Pc[k] * kbe];
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) a += Tv[k] * v[(n + Tc[k]) * kbe];
        r[j * kbe] -= a;
    }
    for (int i = 0; i < m; ++i) {
        REAL a = -v[(n + i) * kbe] / SUF(rho_row)(ct[i], rho);
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) a += Av[k] * v[Ac[k] * kbe];
        r[(n + i) * kbe] -= a;
    }
}

static gala_status SUF(qp_kkt_resid)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_kkt_resid", nlist, hqp_running_work(L, 2, 0), SUF(qp_kkt_resid_item), 0);
}

/* The PCG strategy's kernels (cl/qp.cl: qp_pcg_precond, qp_pcg; the same algorithm, each
 * QP solved in turn). */
static void SUF(qp_pcg_precond_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                     int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    int *state = HBUF(int, 3);
    const int *refac = HBUF(int, 4);
    const int all = HINT(5);
    const int *rp = HBUF(int, 6), *ci = HBUF(int, 7);
    const REAL *mv = HBUF(REAL, 8);
    const int *ctype = HBUF(int, 9);
    const REAL *info = HBUF(REAL, 10);
    REAL *pw = HBUF(REAL, 11);
    const ptrdiff_t ntot = HLONG(12);
    const REAL sigma = HREAL(13);
    (void)nlist;
    const int b = list[g];
    if (!all && !refac[b]) return;
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
    const int n = mt[QP_M_N];
    HQP_MATS(mt);
    HQP_VALS(mt, const);
    (void)Ap;
    (void)Ac;
    (void)Av;
    const int *ct = ctype + mt[QP_M_CO];
    const REAL rho = info[(ptrdiff_t)b * QP_NINFO + QP_I_RHO];
    REAL *mi = pw + QP_PW_MI * ntot + mt[QP_M_XO];
    int fail = 0;
    for (int j = 0; j < n; ++j) {
        REAL pd = 0;
        for (int k = Pp[j]; k < Pp[j + 1]; ++k)
            if (Pc[k] == j) pd += Pv[k];
        REAL d = pd + sigma;
        if (!(d > 0) || !(d < (REAL)QP_INFTY)) fail = 1;
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) d += SUF(rho_row)(ct[Tc[k]], rho) * Tv[k] * Tv[k];
        mi[j] = d > 0 ? (REAL)1 / d : (REAL)1;
    }
    if (fail) state[(ptrdiff_t)b * QP_NSTATE + QP_S_STATUS] = 9;
}

static gala_status SUF(qp_pcg_precond)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_pcg_precond", nlist, hqp_work(HBUF(int, 0), HBUF(int, 1), nlist, 2, 0),
                   SUF(qp_pcg_precond_item), 0);
}

static void SUF(qp_pcg_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                             int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    int *state = HBUF(int, 3);
    const int *rp = HBUF(int, 4), *ci = HBUF(int, 5);
    const REAL *mv = HBUF(REAL, 6), *vn = HBUF(REAL, 7);
    const ptrdiff_t ntot = HLONG(8);
    const int *ctype = HBUF(int, 9);
    const REAL *info = HBUF(REAL, 10);
    REAL *kb = HBUF(REAL, 11);
    REAL *pw = HBUF(REAL, 12), *pst = HBUF(REAL, 13);
    const REAL sigma = HREAL(14);
    const int maxit = HINT(15), tolred = HINT(16);
    const REAL tolfrac = HREAL(17);
    const int it0 = HINT(18), chk = HINT(19);
    (void)nlist;
    const int b = list[g];
    int *st = state + (ptrdiff_t)b * QP_NSTATE;
    if (st[QP_S_STATUS] != 0) return;
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
    const int n = mt[QP_M_N], m = mt[QP_M_M];
    HQP_MATS(mt);
    HQP_VALS(mt, const);
    const int *ct = ctype + mt[QP_M_CO];
    const REAL *inf = info + (ptrdiff_t)b * QP_NINFO;
    const REAL rho = inf[QP_I_RHO];
    const ptrdiff_t xo = mt[QP_M_XO];
    REAL *B = pw + QP_PW_B * ntot + xo, *R = pw + QP_PW_R * ntot + xo;
    REAL *Pd = pw + QP_PW_P * ntot + xo, *KP = pw + QP_PW_KP * ntot + xo;
    const REAL *MI = pw + QP_PW_MI * ntot + xo;
    REAL *tm = pw + QP_PW_NV * ntot + mt[QP_M_ZO];
    REAL *X = kb + xo + mt[QP_M_ZO]; /* [b₁; b₂]; the CG iterate takes b₁'s place */
    const REAL *x0 = vn + QP_V_X * ntot + xo;
    REAL *ps = pst + (ptrdiff_t)b * QP_NPST;
    REAL rn = 0, bn = 0, rty = 0;
    for (int j = 0; j < n; ++j) {
        REAL a = X[j];
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) a += Tv[k] * SUF(rho_row)(ct[Tc[k]], rho) * X[n + Tc[k]];
        B[j] = a;
        X[j] = x0[j];
    }
    /* K·v: tm = ρ∘(A·v), then σv + P·v + Aᵀtm */
#define HQP_KV_T(v)                                                                         \
for (int i = 0; i < m; ++i) {                                                           \
    REAL a_ = 0;                                                                        \
    for (int k = Ap[i]; k < Ap[i + 1]; ++k) a_ += Av[k] * (v)[Ac[k]];                   \
    tm[i] = SUF(rho_row)(ct[i], rho) * a_;                                              \
}
#define HQP_KV_J(j, v, out)                                                                 \
{                                                                                       \
    REAL a_ = sigma * (v)[j];                                                           \
    for (int k = Pp[j]; k < Pp[j + 1]; ++k) a_ += Pv[k] * (v)[Pc[k]];                   \
    for (int k = Tp[j]; k < Tp[j + 1]; ++k) a_ += Tv[k] * tm[Tc[k]];                    \
    out = a_;                                                                           \
}
    HQP_KV_T(X);
    for (int j = 0; j < n; ++j) {
        REAL kx;
        HQP_KV_J(j, X, kx);
        const REAL r = B[j] - kx, y = MI[j] * r;
        R[j] = r;
        Pd[j] = y;
        rn = SUF(qmax)(rn, SUF(qabs)(r));
        bn = SUF(qmax)(bn, SUF(qabs)(B[j]));
        rty += r * y;
    }
    const int admm = st[QP_S_ITER] + it0 + 1;
    REAL red = ps[QP_PS_RED], eps;
    int zero = (int)ps[QP_PS_ZERO];
    if (admm == 1) {
        red = tolfrac;
        zero = 0;
        eps = bn < (REAL)QP_CG_TOL_MIN ? (REAL)1 : bn * red;
    } else {
        if (zero >= tolred) {
            red *= (REAL)0.5;
            zero = 0;
        }
        const REAL pd = inf[QP_I_SPRIM] * inf[QP_I_SDUAL], prev = ps[QP_PS_EPS];
        eps = (chk == 0 || admm > chk) && pd >= 0 && pd < (REAL)QP_INFTY
                  ? red * (REAL)sqrt((double)pd) : prev;
        eps = eps < prev ? eps : prev;
        eps = eps > (REAL)QP_CG_TOL_MIN ? eps : (REAL)QP_CG_TOL_MIN;
    }
    int iters = 0, ncvx = 0;
    for (int it = 0; it < maxit && rn > eps; ++it) {
        HQP_KV_T(Pd);
        REAL pkp = 0;
        for (int j = 0; j < n; ++j) {
            REAL kp;
            HQP_KV_J(j, Pd, kp);
            KP[j] = kp;
            pkp += Pd[j] * kp;
        }
        if (!(pkp > 0)) {
            ncvx = 1;
            break;
        }
        const REAL al = rty / pkp;
        REAL rtn = 0;
        rn = 0;
        for (int j = 0; j < n; ++j) {
            X[j] += al * Pd[j];
            const REAL r = R[j] - al * KP[j], y = MI[j] * r;
            R[j] = r;
            rn = SUF(qmax)(rn, SUF(qabs)(r));
            rtn += r * y;
        }
        ++iters;
        const REAL be = rtn / rty;
        rty = rtn;
        for (int j = 0; j < n; ++j) Pd[j] = MI[j] * R[j] + be * Pd[j]; /* Y + βp */
    }
#undef HQP_KV_T
#undef HQP_KV_J
    ps[QP_PS_EPS] = eps;
    ps[QP_PS_RED] = red;
    ps[QP_PS_ZERO] = (REAL)(iters == 0 ? zero + 1 : 0);
    if (ncvx) st[QP_S_STATUS] = 9;
}

/* one QP per item: its CG iterations (cg_max_iter products with K at most) */
static gala_status SUF(qp_pcg)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_pcg", nlist, hqp_running_work(L, 4.0 * (HINT(15) + 2), 0),
                   SUF(qp_pcg_item), 0);
}

static void SUF(qp_warm_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                              int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    const int *rp = HBUF(int, 3), *ci = HBUF(int, 4);
    const REAL *mv = HBUF(REAL, 5);
    REAL *vn = HBUF(REAL, 6), *vm = HBUF(REAL, 8);
    const ptrdiff_t ntot = HLONG(7), mtot = HLONG(9);
    const REAL *info = HBUF(REAL, 10);
    const int which = HINT(11);
    (void)nlist;
    const int b = list[g];
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
    const int n = mt[QP_M_N], m = mt[QP_M_M];
    const ptrdiff_t xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    const int *Ap = rp + mt[QP_M_AP], *Ac = ci + mt[QP_M_AC];
    const REAL *Av = mv + mt[QP_M_AV];
    REAL *x = vn + QP_V_X * ntot + xo, *y = vm + QP_V_Y * mtot + zo, *z = vm + QP_V_Z * mtot + zo;
    const REAL *xr = vn + QP_V_XT * ntot + xo, *yr = vm + QP_V_YPREV * mtot + zo;
    const REAL *D = vn + QP_V_D * ntot + xo, *E = vm + QP_V_E * mtot + zo;
    const REAL c = info[(ptrdiff_t)b * QP_NINFO + QP_I_C];
    if (which & 1)
        for (int j = 0; j < n; ++j) x[j] = xr[j] / D[j];
    if (which & 2)
        for (int i = 0; i < m; ++i) y[i] = c * yr[i] / E[i];
    if (which & 1)
        for (int i = 0; i < m; ++i) {
            REAL sum = 0;
            for (int k = Ap[i]; k < Ap[i + 1]; ++k) sum += Av[k] * x[Ac[k]];
            z[i] = sum;
        }
}

static gala_status SUF(qp_warm)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_warm", nlist, hqp_work(HBUF(int, 0), HBUF(int, 1), nlist, 1, 0),
                   SUF(qp_warm_item), 0);
}

/* Vectors in the caller's device memory (cl/qp.cl: qp_vec_in, qp_sol_out, qp_warm_in):
 * the caller's arrays hold every QP's vector in batch order, at qtab's offsets. */
#ifndef HQP_FINITE
#define HQP_FINITE(v) ((v) == (v) && (v) != (REAL)INFINITY && (v) != -(REAL)INFINITY)
#define HQP_BOUNDS_BAD(lv, uv) ((lv) != (lv) || (uv) != (uv) || (lv) > (uv) || (lv) == (REAL)INFINITY || (uv) == -(REAL)INFINITY)
#endif
static REAL SUF(clamp_inf)(REAL v)
{
    return v > (REAL)QP_INFTY ? (REAL)QP_INFTY : (v < -(REAL)QP_INFTY ? -(REAL)QP_INFTY : v);
}

static gala_status SUF(qp_vec_check)(const gala_host_launch *L)
{
    const int *meta = HBUF(int, 0), *qtab = HBUF(int, 1);
    const int count = HINT(2);
    const REAL *q = HBUF(REAL, 3), *l = HBUF(REAL, 5), *u = HBUF(REAL, 7);
    const ptrdiff_t qoff = HLONG(4), loff = HLONG(6), uoff = HLONG(8);
    const REAL *raw = HBUF(REAL, 9);
    const ptrdiff_t ntot = HLONG(10), mtot = HLONG(11);
    int *hstat = HBUF(int, 12), *verd = HBUF(int, 13);
    REAL *vbad = HBUF(REAL, 14);
    const int which = HINT(15);
    for (int k = 0; k < count; ++k) {
        const int *qt = qtab + (ptrdiff_t)k * QP_NQT;
        const int b = qt[QP_T_SLOT];
        if (b < 0) continue;
        const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        const REAL *cq = (which & 1) ? q + qoff + qt[QP_T_XO] : NULL;
        const REAL *cl = (which & 2) ? l + loff + qt[QP_T_ZO] : NULL;
        const REAL *cu = (which & 4) ? u + uoff + qt[QP_T_ZO] : NULL;
        const REAL *rl = raw + ntot + mt[QP_M_ZO], *ru = raw + ntot + mtot + mt[QP_M_ZO];
        int fq = n, fl = m;
        for (int j = 0; cq && j < n; ++j)
            if (!HQP_FINITE(cq[j])) {
                fq = j;
                break;
            }
        for (int i = 0; fq == n && i < m; ++i) {
            const REAL lv = cl ? cl[i] : rl[i], uv = cu ? cu[i] : ru[i];
            if (HQP_BOUNDS_BAD(lv, uv)) {
                fl = i;
                break;
            }
        }
        const int code = fq < n ? QP_VD_Q : (fl < m ? QP_VD_BOUNDS : QP_VD_OK);
        verd[2 * (ptrdiff_t)b] = code;
        verd[2 * (ptrdiff_t)b + 1] = code == QP_VD_Q ? fq : (code == QP_VD_BOUNDS ? fl : 0);
        vbad[2 * (ptrdiff_t)b] = code == QP_VD_Q ? cq[fq] : (code == QP_VD_BOUNDS ? (cl ? cl[fl] : rl[fl]) : (REAL)0);
        vbad[2 * (ptrdiff_t)b + 1] = code == QP_VD_BOUNDS ? (cu ? cu[fl] : ru[fl]) : (REAL)0;
        if (code != QP_VD_OK) hstat[b] = QP_H_HOST;
        else if (hstat[b] == QP_H_HOST) hstat[b] = 0;
    }
    return GALA_OK;
}

static gala_status SUF(qp_vec_in)(const gala_host_launch *L)
{
    const int *meta = HBUF(int, 0), *qtab = HBUF(int, 1);
    const int count = HINT(2);
    const REAL *q = HBUF(REAL, 3), *l = HBUF(REAL, 5), *u = HBUF(REAL, 7);
    const ptrdiff_t qoff = HLONG(4), loff = HLONG(6), uoff = HLONG(8);
    REAL *vn = HBUF(REAL, 9), *vm = HBUF(REAL, 11), *raw = HBUF(REAL, 13);
    const ptrdiff_t ntot = HLONG(10), mtot = HLONG(12);
    const int *verd = HBUF(int, 14);
    const int which = HINT(15);
    for (int k = 0; k < count; ++k) {
        const int *qt = qtab + (ptrdiff_t)k * QP_NQT;
        const int b = qt[QP_T_SLOT];
        if (b < 0) continue;
        const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M], valid = verd[2 * (ptrdiff_t)b] == QP_VD_OK;
        const ptrdiff_t xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
        REAL *rq = raw + xo, *rl = raw + ntot + zo, *ru = raw + ntot + mtot + zo;
        if (which & 1) {
            const REAL *cq = q + qoff + qt[QP_T_XO];
            if (valid) memcpy(rq, cq, sizeof(REAL) * (size_t)n);
            memcpy(vn + QP_V_Q * ntot + xo, rq, sizeof(REAL) * (size_t)n);
        }
        if (which & 2) {
            const REAL *cl = l + loff + qt[QP_T_ZO];
            for (int i = 0; valid && i < m; ++i) rl[i] = SUF(clamp_inf)(cl[i]);
            memcpy(vm + QP_V_L * mtot + zo, rl, sizeof(REAL) * (size_t)m);
        }
        if (which & 4) {
            const REAL *cu = u + uoff + qt[QP_T_ZO];
            for (int i = 0; valid && i < m; ++i) ru[i] = SUF(clamp_inf)(cu[i]);
            memcpy(vm + QP_V_U * mtot + zo, ru, sizeof(REAL) * (size_t)m);
        }
    }
    return GALA_OK;
}

static gala_status SUF(qp_sol_out)(const gala_host_launch *L)
{
    const int *meta = HBUF(int, 0), *qtab = HBUF(int, 1);
    const int count = HINT(2);
    const int *osol = HBUF(int, 3);
    const REAL *vn = HBUF(REAL, 4), *vm = HBUF(REAL, 6);
    const ptrdiff_t ntot = HLONG(5), mtot = HLONG(7);
    REAL *x = HBUF(REAL, 8), *y = HBUF(REAL, 10);
    const ptrdiff_t xoff = HLONG(9), yoff = HLONG(11);
    const int which = HINT(12);
    for (int k = 0; k < count; ++k) {
        const int *qt = qtab + (ptrdiff_t)k * QP_NQT;
        const int b = qt[QP_T_SLOT], n = qt[QP_T_N], m = qt[QP_T_M];
        const int sol = b >= 0 && osol[k];
        const int *mt = meta + (ptrdiff_t)(sol ? b : 0) * QP_NMETA;
        const REAL *ox = vn + QP_V_W2 * ntot + mt[QP_M_XO], *oy = vm + QP_V_W * mtot + mt[QP_M_ZO];
        REAL *cx = (which & 1) ? x + xoff + qt[QP_T_XO] : NULL;
        REAL *cy = (which & 2) ? y + yoff + qt[QP_T_ZO] : NULL;
        for (int j = 0; cx && j < n; ++j) cx[j] = sol ? ox[j] : (REAL)NAN;
        for (int i = 0; cy && i < m; ++i) cy[i] = sol ? oy[i] : (REAL)NAN;
    }
    return GALA_OK;
}

static gala_status SUF(qp_warm_in)(const gala_host_launch *L)
{
    const int *meta = HBUF(int, 0), *qtab = HBUF(int, 1);
    const int count = HINT(2);
    const REAL *x = HBUF(REAL, 3), *y = HBUF(REAL, 5);
    const ptrdiff_t xoff = HLONG(4), yoff = HLONG(6);
    REAL *vn = HBUF(REAL, 7), *vm = HBUF(REAL, 9);
    const ptrdiff_t ntot = HLONG(8), mtot = HLONG(10);
    const int which = HINT(11);
    for (int k = 0; k < count; ++k) {
        const int *qt = qtab + (ptrdiff_t)k * QP_NQT;
        const int b = qt[QP_T_SLOT];
        if (b < 0) continue;
        const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
        const int n = mt[QP_M_N], m = mt[QP_M_M];
        if (which & 1)
            memcpy(vn + QP_V_XT * ntot + mt[QP_M_XO], x + xoff + qt[QP_T_XO], sizeof(REAL) * (size_t)n);
        if (which & 2)
            memcpy(vm + QP_V_YPREV * mtot + mt[QP_M_ZO], y + yoff + qt[QP_T_ZO], sizeof(REAL) * (size_t)m);
    }
    return GALA_OK;
}

static void SUF(qp_unscale_item)(const gala_host_launch *L, const void *arg, long gi, void *wk,
                                 int *hit)
{
    (void)arg;
    (void)wk;
    (void)hit;
    const int g = (int)gi;

    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    REAL *vn = HBUF(REAL, 3), *vm = HBUF(REAL, 5);
    const ptrdiff_t ntot = HLONG(4), mtot = HLONG(6);
    const REAL *info = HBUF(REAL, 7);
    const int *state = HBUF(int, 8);
    (void)nlist;
    const int b = list[g];
    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
    const int st = state[(ptrdiff_t)b * QP_NSTATE + QP_S_STATUS];
    const int sol = st == 1 || st == 2 || st == 7 || st == 8 || st == 10;
    const int pinf = st == 3 || st == 4, dinf = st == 5 || st == 6;
    const int n = mt[QP_M_N], m = mt[QP_M_M];
    const ptrdiff_t xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    const REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    const REAL *D = vn + QP_V_D * ntot + xo, *E = vm + QP_V_E * mtot + zo;
    const REAL *y = vm + QP_V_Y * mtot + zo, *yp = vm + QP_V_YPREV * mtot + zo;
    const REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    REAL *ox = vn + QP_V_W2 * ntot + xo, *oy = vm + QP_V_W * mtot + zo;
    const REAL c = info[(ptrdiff_t)b * QP_NINFO + QP_I_C];
    REAL sx = 0, sy = 0;
    for (int j = 0; j < n; ++j) {
        ox[j] = sol ? D[j] * x[j] : (dinf ? D[j] * (x[j] - xp[j]) : (REAL)0);
        sx = SUF(qmax)(sx, SUF(qabs)(ox[j]));
    }
    for (int i = 0; i < m; ++i) {
        oy[i] = sol ? E[i] * y[i] / c : (pinf ? E[i] * SUF(polar)(y[i] - yp[i], l[i], u[i]) : (REAL)0);
        sy = SUF(qmax)(sy, SUF(qabs)(oy[i]));
    }
    if (dinf && sx > 0)
        for (int j = 0; j < n; ++j) ox[j] /= sx;
    if (pinf && sy > 0)
        for (int i = 0; i < m; ++i) oy[i] /= sy;
}

static gala_status SUF(qp_unscale)(const gala_host_launch *L)
{
    const int nlist = HINT(2);
    return hqp_run(L, "qp_unscale", nlist, hqp_work(HBUF(int, 0), HBUF(int, 1), nlist, 1, 0),
                   SUF(qp_unscale_item), 0);
}

static gala_status SUF(qp_count)(const gala_host_launch *L)
{
    const int *list = HBUF(int, 0);
    const int nlist = HINT(1);
    const int *state = HBUF(int, 2), *refac = HBUF(int, 3);
    int *out = HBUF(int, 4);
    int a = 0, r = 0;
    for (int g = 0; g < nlist; ++g) {
        const int b = list[g];
        a += state[(ptrdiff_t)b * QP_NSTATE + QP_S_STATUS] == 0;
        r += refac[b] != 0;
    }
    out[0] = a;
    out[1] = r;
    return GALA_OK;
}

/* qp_compact_count / qp_compact_write: chunks of the program's WG entries, as on a device
 * (the per-chunk counts are part of the kernels' results). */
static gala_status SUF(qp_compact_count)(const gala_host_launch *L)
{
    const int *list = HBUF(int, 0);
    const int nlist = HINT(1);
    const int *state = HBUF(int, 2);
    int *ccnt = HBUF(int, 3);
    const int wg = (int)HDEF("WG", 1);
    for (int e = 0; e < nlist; ++e) {
        if (e % wg == 0) ccnt[e / wg] = 0;
        ccnt[e / wg] += state[(ptrdiff_t)list[e] * QP_NSTATE + QP_S_STATUS] == 0;
    }
    return GALA_OK;
}

static gala_status SUF(qp_compact_write)(const gala_host_launch *L)
{
    const int *list = HBUF(int, 0);
    const int nlist = HINT(1);
    const int *state = HBUF(int, 2);
    int *alist = HBUF(int, 4), *out = HBUF(int, 5);
    const int slot = HINT(6);
    int k = 0;
    for (int e = 0; e < nlist; ++e)
        if (state[(ptrdiff_t)list[e] * QP_NSTATE + QP_S_STATUS] == 0) alist[k++] = list[e];
    if (nlist > 0) out[slot] = k;
    return GALA_OK;
}

/* Σ a[j]·b[j] over j in [j0, j1), in eight sums (the loop vectorizes without reassociation) */
static HQP_INLINE REAL SUF(dot)(const REAL *restrict a, const REAL *restrict b, int j0, int j1)
{
    REAL a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    int j = j0;
    for (; j + 8 <= j1; j += 8) {
        a0 += a[j] * b[j];
        a1 += a[j + 1] * b[j + 1];
        a2 += a[j + 2] * b[j + 2];
        a3 += a[j + 3] * b[j + 3];
        a4 += a[j + 4] * b[j + 4];
        a5 += a[j + 5] * b[j + 5];
        a6 += a[j + 6] * b[j + 6];
        a7 += a[j + 7] * b[j + 7];
    }
    /* the rest (up to 7) in separate sums too: one sum in a row was a chain of adds */
    if (j + 4 <= j1) {
        a0 += a[j] * b[j];
        a1 += a[j + 1] * b[j + 1];
        a2 += a[j + 2] * b[j + 2];
        a3 += a[j + 3] * b[j + 3];
        j += 4;
    }
    if (j + 2 <= j1) {
        a4 += a[j] * b[j];
        a5 += a[j + 1] * b[j + 1];
        j += 2;
    }
    if (j < j1) a6 += a[j] * b[j];
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}

/* prof[i] = the first column of row i of K = P + σI + Aᵀdiag(ρ)A that qp_form_k may set
 * (at most i), from the sparsity of P and A; rmin: m ints of scratch. The Cholesky factor
 * keeps this envelope (its row i is exactly zero before prof[i]: about half of the triangle
 * for the control QPs), so the solves of every iteration skip those zeros. Taken from the
 * structure, not from the factor, whose zeros a scan would have to read from memory. */
static HQP_INLINE void SUF(kprof)(int n, int m, const int *restrict Pp, const int *restrict Pc,
                                  const int *restrict Ap, const int *restrict Ac,
                                  const int *restrict Tp, const int *restrict Tc,
                                  int *restrict rmin, int *restrict prof)
{
    for (int i = 0; i < m; ++i) {
        int c = n;
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) c = Ac[k] < c ? Ac[k] : c;
        rmin[i] = c;
    }
    for (int j = 0; j < n; ++j) {
        int f = j;
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) f = Pc[k] < f ? Pc[k] : f;
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) f = rmin[Tc[k]] < f ? rmin[Tc[k]] : f;
        prof[j] = f;
    }
}

/* The solves with the Cholesky factor L run on its rows (contiguous: column i above the
 * diagonal, 1/L(i,i) on it) within their envelope prof. Row i waits on row i − 1 only for
 * the term of out[i − 1], kept out of the dot product (or of the axpy): with it inside, the
 * whole reduction (or a store and reload of out[i − 1]) was on the critical path. */

/* L·out = r */
static HQP_INLINE void SUF(lsolve)(const REAL *restrict Kb, int n, const int *restrict prof,
                                   const REAL *restrict r, REAL *restrict out)
{
    for (int i = 0; i < n; ++i) {
        const REAL *restrict ci = Kb + (ptrdiff_t)i * n;
        const int p = prof[i], q = i - 1 > p ? i - 1 : p;
        REAL s = r[i] - SUF(dot)(ci, out, p, q);
        if (q < i) s -= ci[q] * out[q];
        out[i] = s * ci[i];
    }
}

/* Lᵀ·out = out (in place), from the last row up: row i of L times out[i] subtracted from the
 * entries above i, the next row's out[i − 1] first and carried in nxt */
static HQP_INLINE void SUF(ltsolve)(const REAL *restrict Kb, int n, const int *restrict prof,
                                    REAL *restrict out)
{
    if (n <= 0) return;
    REAL nxt = out[n - 1];
    for (int i = n - 1; i > 0; --i) {
        const REAL *restrict ci = Kb + (ptrdiff_t)i * n;
        const REAL v = nxt * ci[i];
        const int p = prof[i];
        out[i] = v;
        nxt = p < i ? out[i - 1] - ci[i - 1] * v : out[i - 1];
        for (int j = p; j < i - 1; ++j) out[j] -= ci[j] * v;
    }
    out[0] = nxt * Kb[0];
}

/* out = K⁻¹·r for one QP: a product with the stored K⁻¹ (symmetric: column i read
 * contiguously), or with KFAC two triangular solves with the stored Cholesky factor (kept
 * in both triangles: column i holds row i of L above the diagonal, 1/L(i,i) on it and
 * column i of L below it). */
static HQP_INLINE void SUF(kapply)(const REAL *restrict Kb, int n, int kfac, const int *restrict prof,
                                   const REAL *restrict r, REAL *restrict out)
{
    if (kfac) {
        SUF(lsolve)(Kb, n, prof, r, out);
        SUF(ltsolve)(Kb, n, prof, out);
        return;
    }
    for (int i = 0; i < n; ++i) out[i] = SUF(dot)(Kb + (ptrdiff_t)i * n, r, 0, n);
}

/* One QP of qp_admm: iterations, then the check. */
/* wk: scratch of the iterations (SUF(admm_work)), NULL for the check alone */
HQP_CLONES static void SUF(admm_one)(const gala_host_launch *L, int b, int do_iter, int do_check, void *wk)
{
    const int *meta = HBUF(int, 0);
    int *state = HBUF(int, 3);
    REAL *info = HBUF(REAL, 4);
    int *refac = HBUF(int, 5);
    const int *rp = HBUF(int, 6), *ci = HBUF(int, 7);
    const REAL *mv = HBUF(REAL, 8), *K = HBUF(REAL, 9);
    REAL *vn = HBUF(REAL, 10), *vm = HBUF(REAL, 12);
    const ptrdiff_t ntot = HLONG(11), mtot = HLONG(13);
    const int *ctype = HBUF(int, 14);
    const REAL *lrho = HBUF(REAL, 15);
    const int *rungok = HBUF(int, 16);
    const int nrungs = HINT(17), lad_ko = HINT(18), lad_ks = HINT(19);
    const int iters = HINT(20), adapt = HINT(22), final_status = HINT(23);
    const int scaled_term = HINT(24), dualgap = HINT(25);
    const REAL sigma = HREAL(26), alpha = HREAL(27), eps_abs = HREAL(28), eps_rel = HREAL(29);
    const REAL eps_pinf = HREAL(30), eps_dinf = HREAL(31), rho_tol = HREAL(32);

    const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
    const int n = mt[QP_M_N], m = mt[QP_M_M];
    const ptrdiff_t xo = mt[QP_M_XO], zo = mt[QP_M_ZO];
    HQP_MATS(mt);
    HQP_VALS(mt, const);
    int *st = state + (ptrdiff_t)b * QP_NSTATE;
    REAL *inf = info + (ptrdiff_t)b * QP_NINFO;
    const REAL *Kb;
    REAL rho;
    if (nrungs > 0) {
        Kb = K + ((ptrdiff_t)lad_ko + (ptrdiff_t)st[QP_S_RUNG] * lad_ks) * QP_KALIGN;
        rho = lrho[st[QP_S_RUNG]];
    } else {
        Kb = K + (ptrdiff_t)mt[QP_M_KO] * QP_KALIGN;
        rho = inf[QP_I_RHO];
    }
    REAL *x = vn + QP_V_X * ntot + xo, *xp = vn + QP_V_XPREV * ntot + xo;
    REAL *xt = vn + QP_V_XT * ntot + xo, *r = vn + QP_V_R * ntot + xo;
    const REAL *q = vn + QP_V_Q * ntot + xo, *D = vn + QP_V_D * ntot + xo;
    REAL *z = vm + QP_V_Z * mtot + zo, *y = vm + QP_V_Y * mtot + zo;
    REAL *yp = vm + QP_V_YPREV * mtot + zo;
    const REAL *l = vm + QP_V_L * mtot + zo, *u = vm + QP_V_U * mtot + zo;
    const REAL *E = vm + QP_V_E * mtot + zo;
    const int *ct = ctype + mt[QP_M_CO];
    const int refine = (int)HDEF("REFINE", 0), kfac = (int)HDEF("KFAC", 0);
    REAL *w = vm + QP_V_W * mtot + zo, *w2 = vn + QP_V_W2 * ntot + xo;
    /* the launch's ρ of each row, ρ∘z − y, and the envelope of K's factor */
    REAL *rhv = NULL, *rzy = NULL;
    int *prof = NULL;
    if (do_iter) {
        rhv = wk;
        rzy = rhv + m;
        prof = (int *)(void *)(rzy + m);
        for (int i = 0; i < m; ++i) rhv[i] = SUF(rho_row)(ct[i], rho);
        if (kfac) SUF(kprof)(n, m, Pp, Pc, Ap, Ac, Tp, Tc, prof + n, prof);
    }
    for (int it = 0; do_iter && it < iters; ++it) {
        const int last = it == iters - 1;
        for (int i = 0; i < m; ++i) rzy[i] = rhv[i] * z[i] - y[i];
        for (int j = 0; j < n; ++j) {
            REAL s = sigma * x[j] - q[j];
            for (int k = Tp[j]; k < Tp[j + 1]; ++k) s += Tv[k] * rzy[Tc[k]];
            r[j] = s;
        }
        if (last) memcpy(xp, x, (size_t)n * sizeof(REAL));
        SUF(kapply)(Kb, n, kfac, prof, r, xt); /* x̃ = K⁻¹r */
        if (refine) {
            /* w = ρ∘(A x̃); r ← r − (σx̃ + P x̃ + Aᵀw); x̃ ← x̃ + K⁻¹r */
            for (int i = 0; i < m; ++i) {
                REAL a = 0;
                for (int k = Ap[i]; k < Ap[i + 1]; ++k) a += Av[k] * xt[Ac[k]];
                w[i] = rhv[i] * a;
            }
            for (int j = 0; j < n; ++j) {
                REAL kx = sigma * xt[j];
                for (int k = Pp[j]; k < Pp[j + 1]; ++k) kx += Pv[k] * xt[Pc[k]];
                for (int k = Tp[j]; k < Tp[j + 1]; ++k) kx += Tv[k] * w[Tc[k]];
                r[j] -= kx;
            }
            SUF(kapply)(Kb, n, kfac, prof, r, w2);
            for (int i = 0; i < n; ++i) w2[i] = xt[i] += w2[i];
        }
        for (int i = 0; i < n; ++i) x[i] = alpha * xt[i] + ((REAL)1 - alpha) * x[i];
        for (int i = 0; i < m; ++i) {
            REAL zt = 0;
            for (int k = Ap[i]; k < Ap[i + 1]; ++k) zt += Av[k] * xt[Ac[k]];
            const REAL rh = rhv[i];
            const REAL zold = z[i], yold = y[i];
            const REAL zh = alpha * zt + ((REAL)1 - alpha) * zold;
            REAL zn = zh + yold / rh;
            zn = zn < l[i] ? l[i] : zn;
            zn = zn > u[i] ? u[i] : zn;
            if (last) yp[i] = yold;
            y[i] = yold + rh * (zh - zn);
            z[i] = zn;
        }
    }
    if (do_iter) st[QP_S_ITER] += iters;
    if (!do_check) return;

    const int U = !scaled_term;
    /* w2 = x − x_prev and w = the polar part of y − y_prev, once per entry instead of once
     * per matrix entry that reads them (the scratch of the iterations, free now; qp_unscale
     * writes the results there after the checks) */
    for (int j = 0; j < n; ++j) w2[j] = x[j] - xp[j];
    REAL prim = 0, prims = 0, ptol = 0, ptols = 0, sup = 0, ndyv = 0, lhs = 0;
    for (int i = 0; i < m; ++i) {
        REAL ax = 0;
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) ax += Av[k] * x[Ac[k]];
        const REAL sc = U ? (REAL)1 / E[i] : (REAL)1;
        const REAL pr = SUF(qabs)(ax - z[i]);
        const REAL an = SUF(qmax)(SUF(qabs)(ax), SUF(qabs)(z[i]));
        prim = SUF(qmax)(prim, pr * sc);
        prims = SUF(qmax)(prims, pr);
        ptol = SUF(qmax)(ptol, an * sc);
        ptols = SUF(qmax)(ptols, an);
        REAL ypp = SUF(polar)(y[i], l[i], u[i]);
        if (SUF(qabs)(ypp) < (REAL)QP_DEADZONE_R) ypp = 0;
        sup += SUF(support)(ypp, l[i], u[i]);
        const REAL dyp = SUF(polar)(y[i] - yp[i], l[i], u[i]);
        w[i] = dyp;
        ndyv = SUF(qmax)(ndyv, SUF(qabs)(dyp) * (U ? E[i] : (REAL)1));
        lhs += SUF(support)(dyp, l[i], u[i]);
    }
    REAL dual = 0, duals = 0, dtol = 0, dtols = 0, xpx = 0, qx = 0, ndxv = 0, qdx = 0, atdyn = 0, pdxn = 0;
    for (int j = 0; j < n; ++j) {
        REAL px = 0, aty = 0, atdy = 0, pdx = 0;
        for (int k = Pp[j]; k < Pp[j + 1]; ++k) {
            const int c = Pc[k];
            px += Pv[k] * x[c];
            pdx += Pv[k] * w2[c];
        }
        for (int k = Tp[j]; k < Tp[j + 1]; ++k) {
            const int i = Tc[k];
            aty += Tv[k] * y[i];
            atdy += Tv[k] * w[i];
        }
        const REAL sc = U ? (REAL)1 / D[j] : (REAL)1;
        const REAL dr = SUF(qabs)(px + q[j] + aty);
        const REAL tn = SUF(qmax)(SUF(qabs)(q[j]), SUF(qmax)(SUF(qabs)(aty), SUF(qabs)(px)));
        dual = SUF(qmax)(dual, dr * sc);
        duals = SUF(qmax)(duals, dr);
        dtol = SUF(qmax)(dtol, tn * sc);
        dtols = SUF(qmax)(dtols, tn);
        const REAL dx = x[j] - xp[j];
        xpx += x[j] * px;
        qx += q[j] * x[j];
        ndxv = SUF(qmax)(ndxv, SUF(qabs)(dx) * (U ? D[j] : (REAL)1));
        qdx += q[j] * dx;
        atdyn = SUF(qmax)(atdyn, SUF(qabs)(atdy) * sc);
        pdxn = SUF(qmax)(pdxn, SUF(qabs)(pdx) * sc);
    }
    REAL viol[2] = {0, 0};
    const REAL tols[2] = {eps_dinf * ndxv, 10 * eps_dinf * ndxv};
    for (int i = 0; i < m; ++i) {
        REAL adx = 0;
        for (int k = Ap[i]; k < Ap[i + 1]; ++k) adx += Av[k] * w2[Ac[k]];
        if (U) adx /= E[i];
        for (int p = 0; p < 2; ++p)
            viol[p] += ((u[i] < (REAL)QP_INFV && adx > tols[p]) ||
                        (l[i] > -(REAL)QP_INFV && adx < -tols[p])) ? 1 : 0;
    }

    const REAL c = inf[QP_I_C], cinv = (REAL)1 / c;
    dual *= U ? cinv : (REAL)1;
    inf[QP_I_PRIM] = prim;
    inf[QP_I_DUAL] = dual;
    inf[QP_I_SPRIM] = prims;
    inf[QP_I_SDUAL] = duals;
    inf[QP_I_OBJ] = cinv * ((REAL)0.5 * xpx + qx);
    inf[QP_I_DOBJ] = cinv * ((REAL)-0.5 * xpx - sup);
    inf[QP_I_GAP] = cinv * (xpx + qx + sup);
    /* the status: at a termination check (check) and at the last iteration (final_status),
     * cl/qp_rules.h; `exact` is that of the exact tolerances, before the ×10 pass */
    const int check = HINT(21);
#define HQP_VIOL_(pass) viol[pass]
    QP_TERM_STATUS(check || final_status, st, final_status, prim, dual, m, U, c, cinv, dualgap,
                   eps_abs, eps_rel, eps_pinf, eps_dinf, ptol, dtol, ndyv, lhs, atdyn, ndxv, qdx,
                   pdxn, HQP_VIOL_, xpx, qx, sup, SUF(qmax), SUF(qabs), (REAL)QP_INFTY,
                   (REAL)QP_DIVTOL);
#undef HQP_VIOL_
    /* adaptive ρ and the ρ estimate (cl/qp_rules.h) */
    QP_RHO_BALANCE(pn, dn, ratio, prims, ptols, duals, dtols);
    QP_RHO_ADAPT(!exact && adapt, pn, dn, ratio, rho, rho_tol, nrungs, lrho, rungok, st, inf, refac[b]);
}

/* Bytes of admm_one's scratch for a QP of n variables and m rows: ρ and ρ∘z − y per row,
 * the envelope per variable and kprof's scratch per row. */
static size_t SUF(admm_work)(int n, int m)
{
    return sizeof(REAL) * 2 * (size_t)m + sizeof(int) * ((size_t)n + (size_t)m);
}

/* listed QP g of qp_admm / qp_check, if it runs (list entries < 0 pad a shared tile) */
static void SUF(admm_item)(const gala_host_launch *L, const void *arg, long gi, void *wk, int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    const int b = HBUF(int, 1)[g];
    if (b >= 0 && HBUF(int, 3)[(ptrdiff_t)b * QP_NSTATE + QP_S_STATUS] == 0)
        SUF(admm_one)(L, b, 1, 0, wk);
}

static void SUF(check_item)(const gala_host_launch *L, const void *arg, long gi, void *wk, int *hit)
{
    const int g = (int)gi;
    (void)arg;
    (void)hit;
    (void)wk;
    const int b = HBUF(int, 1)[g];
    if (b >= 0 && HBUF(int, 3)[(ptrdiff_t)b * QP_NSTATE + QP_S_STATUS] == 0)
        SUF(admm_one)(L, b, 0, 1, NULL);
}

static gala_status SUF(qp_admm)(const gala_host_launch *L)
{
    const int *meta = HBUF(int, 0), *list = HBUF(int, 1);
    const int nlist = HINT(2);
    size_t need = 0;
    for (int g = 0; g < nlist; ++g) {
        const int b = list[g];
        if (b < 0) continue;
        const int *mt = meta + (ptrdiff_t)b * QP_NMETA;
        const size_t w = SUF(admm_work)(mt[QP_M_N], mt[QP_M_M]);
        need = w > need ? w : need;
    }
    if (need == 0) return GALA_OK; /* no QP in the list */
    const int iters = HINT(20);
    return hqp_run(L, "qp_admm", nlist, hqp_running_work(L, 2.0 * iters, 1.0 * iters),
                   SUF(admm_item), need);
}

static gala_status SUF(qp_check)(const gala_host_launch *L)
{
    return hqp_run(L, "qp_check", HINT(2), hqp_running_work(L, 4, 0), SUF(check_item), 0);
}

#endif
