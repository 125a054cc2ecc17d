/* Sparse LDLᵀ of a quasi-definite matrix, on the host in double (qd_ldlt.c): the reduced
 * KKT systems of polishing (polish.c) and the adjoint systems of the derivative
 * (derivative.c). No pivoting: every symmetric order of a quasi-definite matrix
 * [H, Bᵀ; B, −G] (H, G positive definite) factors, so any fill-reducing order may be
 * chosen: gala_qd_kkt builds K with x first, then the constraint rows, and gala_qd_fact
 * factors it in the solver's order of its pattern (kkt_order.c), restricted to K's rows.
 *
 * K (N×N) is given by its upper triangle in CSC: column j's rows ascending in
 * ki[kp[j]..kp[j+1]), values kx, the diagonal last and always present. L (unit lower) is
 * kept by columns: column j's rows in li[lp[j]..lp[j]+lnz[j]), ascending, values lx; D in d.
 * No allocation inside: the caller sizes L from the symbolic step. */
#ifndef GALA_QP_QD_LDLT_H
#define GALA_QP_QD_LDLT_H

#include "core/internal.h"

/** K's upper triangle (up: N + 1, ui, ux: at most nnz(P) + the active rows' entries of A +
 *  N) for the quasi-definite KKT matrix of order N = n + na
 *      [ c·D P D + xreg·I    (W A_act D)ᵀ        ]
 *      [ W A_act D           −diag(rd + rreg)    ]
 *  of P (n×n, its upper triangle in CSC, rows ascending) and the na rows i of A (m×n CSC,
 *  rows ascending) with pos[i] = n + a ≥ 0 (arow[a] = i; pos[i] < 0: not in K). D (n) and
 *  rd (m, by A's row) may be NULL for ones and zeros; W (m) weighs A's rows. Each column's
 *  rows ascending, its diagonal last and present; the diagonal of c·D P D before xreg goes
 *  to d0 (n; may be NULL). fill: N + 2 ints of workspace. ux NULL: the pattern alone
 *  (up, ui; Px, Ax, W, rd, arow and d0 are not read). */
GALA_INTERNAL void gala_qd_kkt(int n, int na, const int *Pp, const int *Pi, const double *Px,
                               const int *Ap, const int *Ai, const double *Ax, const int *pos,
                               const int *arow, double c, const double *D, const double *W,
                               double xreg, const double *rd, double rreg, int *up, int *ui,
                               double *ux, double *d0, int *fill);

/** Symbolic step: the elimination tree (parent, N; −1 for a root) and the number of
 *  nonzeros below the diagonal of each column of L (lnz, N); flag: N ints of workspace.
 *  L's column starts are then lp[0] = 0, lp[j+1] = lp[j] + lnz[j]. */
GALA_INTERNAL void gala_qd_etree(int N, const int *kp, const int *ki, int *parent, int *lnz,
                                 int *flag);

/** gala_qd_etree, then L's column starts lp (N + 1); returns the factor's multiply-adds,
 *  Σ lnz² (the cost every choice of order and of path is judged by). */
GALA_INTERNAL double gala_qd_symbolic(int N, const int *kp, const int *ki, int *parent,
                                      int *lnz, int *lp, int *flag);

/** Numeric step: L (li, lx: lp[N] entries each, lp from gala_qd_etree's counts; lnz is
 *  rewritten to the same counts) and D (d, N). Workspace: flag, stack, pattern (N ints
 *  each) and y (N doubles, zero on entry and on exit). Returns 0, or the failing column
 *  + 1 (a zero or non-finite pivot). */
GALA_INTERNAL int gala_qd_factor(int N, const int *kp, const int *ki, const double *kx,
                                 const int *parent, const int *lp, int *lnz, int *li,
                                 double *lx, double *d, int *flag, int *stack, int *pattern,
                                 double *y);

/** b ← K⁻¹ b with K = L D Lᵀ as gala_qd_factor left it. */
GALA_INTERNAL void gala_qd_solve(int N, const int *lp, const int *lnz, const int *li,
                                 const double *lx, const double *d, double *b);

/** An order of the full KKT matrix (order: n + m indices, j < n for x_j, n + i for A's row
 *  i) restricted to K's indices, K's row i being at pos[i] ≥ n (pos[i] < 0: not in K) as for
 *  gala_qd_kkt: perm[k] = K's index eliminated k-th, pinv its inverse (N each). */
GALA_INTERNAL void gala_qd_restrict(int n, int m, const int *order, const int *pos, int *perm,
                                    int *pinv);

/** C = Π K Πᵀ by its upper triangle: K's entry (i, j) goes to (pinv[i], pinv[j]) (cp: N + 1,
 *  ci, cx: kp[N] entries; a column's rows in no particular order, which gala_qd_etree and
 *  gala_qd_factor accept). kx and cx NULL: the pattern alone. w: N ints of workspace. */
GALA_INTERNAL void gala_qd_permute(int N, const int *kp, const int *ki, const double *kx,
                                   const int *pinv, int *cp, int *ci, double *cx, int *w);

/** One factored KKT system: the steps above in one call, in two thread scratch blocks
 *  (gala_qd_fact_make's ws[0] and ws[1]; f's arrays live there until their next use). */
typedef struct {
    int N;
    int *perm;          /* perm[k]: K's index eliminated k-th; NULL: K's own order */
    int *lp, *lnz, *li; /* L (gala_qd_factor's) */
    double *lx, *d, *t; /* L, D; t: N doubles for the permuted solves */
    double flops;       /* Σ over L's columns of their nonzeros squared: the multiply-adds */
} gala_qd_fact;

enum { GALA_QD_OK = 0, GALA_QD_DEAR = 1, GALA_QD_NOMEM = 2, GALA_QD_SINGULAR = 3 };

/** Factor K (order N = n + na; kp, ki, kx its upper triangle as gala_qd_kkt made it, pos its
 *  rows' positions) into f and the scratch blocks ws[0] (the permuted K and the workspace:
 *  9N + 2 + nnz(K) ints, 3N + 1 + nnz(K) doubles) and ws[1] (L: lp[N] + 1 ints and
 *  doubles). The order: K's own where its factor takes at most 2·order_flops multiply-adds,
 *  else `order` (n + m, the solver's for K's patterns: gala_qp_kkt_order, whose factor of
 *  the whole KKT matrix takes order_flops and bounds that of any of its restrictions)
 *  restricted to K (gala_qd_restrict); order NULL: K's own. Returns GALA_QD_OK;
 *  GALA_QD_DEAR: L would take more than max_flops multiply-adds (not factored);
 *  GALA_QD_NOMEM; GALA_QD_SINGULAR: a zero or non-finite pivot. */
GALA_INTERNAL int gala_qd_fact_make(gala_qd_fact *f, gala_host_scratch ws[2], int n, int m,
                                    const int *pos, const int *order, double order_flops,
                                    int N, const int *kp, const int *ki, const double *kx,
                                    double max_flops);
/** b ← K⁻¹ b (N entries, K's order). */
GALA_INTERNAL void gala_qd_fact_solve(gala_qd_fact *f, double *b);

#endif
