/* Sparse LDLᵀ of a quasi-definite matrix, on the host in double (qd_ldlt.c): the reduced
 * KKT systems of polishing (polish.c) and the adjoint systems of the derivative
 * (derivative.c). No pivoting: every symmetric order of a quasi-definite matrix
 * [H, Bᵀ; B, −G] (H, G positive definite) factors, so the order given is kept; for a KKT
 * matrix x comes first, then the constraint rows.
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
 *  to d0 (n; may be NULL). fill: N + 2 ints of workspace. */
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

#endif
