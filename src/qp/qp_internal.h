/* The batched QP solver's internals: the solver object, the linear-system strategy
 * interface, and the launch helpers shared by solver.c and linsys_dense.c. */
#ifndef GALA_QP_INTERNAL_H
#define GALA_QP_INTERNAL_H

#include "../core/kernel.h"
#include "gala/qp.h"
#include "qp_layout.h"

struct gala_qp_solver;

/** A linear-system strategy: a table of functions (docs/qp.md). */
typedef struct qp_linsys_ops {
    const char *name;
    int id; /* gala_qp_linsys */
    /** Allocate K⁻¹ storage, form and invert for every device QP; QPs found not convex get
     *  status NON_CVX on the device. */
    gala_status (*setup)(struct gala_qp_solver *s);
    /** Refactor the QPs whose refactor flag is set (device array), after a ρ change or an
     *  update. */
    gala_status (*refactor)(struct gala_qp_solver *s);
    /** Launch `iters` ADMM iterations (and the check) for every running QP. */
    gala_status (*iterate)(struct gala_qp_solver *s, int iters, int check, int adapt,
                           int final_status);
} qp_linsys_ops;

extern const qp_linsys_ops gala_qp_linsys_dense;
extern const qp_linsys_ops gala_qp_linsys_shared;

/** One launch class of the per-QP strategy: QPs whose vectors fit the same local sizes. */
typedef struct qp_bin {
    int ncap, mcap, vlocal, wg, tb;
    int count;
    gala_buffer *list;
} qp_bin;

struct gala_qp_solver {
    gala_context *ctx;
    gala_qp_settings set;
    gala_dtype dt;
    int dualgap;
    int refine;             /* REFINE of the ADMM program */
    int count;              /* QPs of the batch */
    int nvalid;             /* QPs on the device ("slots") */
    int *slot;              /* per QP: slot or -1 */
    int *qp_of;             /* per slot: QP index */
    gala_qp_problem *pb;    /* deep copies of the problems (unscaled, ±1e30 bounds) */
    gala_qp_info *info;     /* per QP */
    int *host_status;       /* per QP: INVALID_DATA (host decided) or 0 */
    int shared;             /* 1: DENSE_SHARED */

    /* per slot host metadata and layout */
    int *meta;              /* nvalid·QP_NMETA */
    size_t ntot, mtot, nrp, nnz;
    int *p_pos, *a_pos;     /* CSC entry -> CSR positions: P (2 per entry: upper, mirror or
                               -1), A (1 per entry); indexed from p_base/a_base of the slot */
    size_t *p_base, *a_base;
    int *t_base;            /* position of Aᵀ values (= CSC order of A) per slot */
    double *D, *E, *c;      /* scaling (host copies, double) */
    int *ctype;             /* mtot */

    /* device data */
    gala_buffer *b_meta, *b_ident, *b_state, *b_info, *b_refac, *b_rp, *b_ci, *b_mv, *b_K;
    gala_buffer *b_vn, *b_vm, *b_ctype, *b_lrho, *b_rungok, *b_cnt, *b_kofs, *b_jinfo;
    gala_buffer *b_jqp, *b_rflag; /* ladder jobs */
    size_t ksize;           /* elements of b_K */

    const qp_linsys_ops *ls;
    qp_bin *bins;
    int nbins;
    /* ladder (shared mode) */
    int nrungs, rung0;
    double *lrho;
    int *rungok;
    int lad_ks;             /* KALIGN units between rungs */
    int tb, wg, vlocal, ncap, mcap;

    /* results on the host */
    size_t *hxo, *hzo;      /* per QP offsets into x/dcert (n) and y/pcert (m) */
    double *x, *y, *pcert, *dcert;
    int solved;
    double setup_time, update_time;

    /* profile (settings.profile): phase times, the clock at the end of the last phase */
    gala_qp_profile prof;
    double prof_t;
    int in_solve;           /* 1 while gala_qp_solve runs: factorizations count as REFACTOR */
};

/* Profile: with settings.profile, wait for the device and charge the time since the last
 * mark to `phase` (FORM_K / FACTOR become REFACTOR inside a solve). Nothing otherwise. */
GALA_INTERNAL void gala_qp_prof(struct gala_qp_solver *s, int phase);
GALA_INTERNAL void gala_qp_prof_start(struct gala_qp_solver *s);

/* launch helpers (solver.c) */
GALA_INTERNAL void gala_qp_key(const struct gala_qp_solver *s, gala_program_key *key, int wg,
                               int tb, int ncap, int mcap, int vlocal);
GALA_INTERNAL gala_status gala_qp_kernel(struct gala_qp_solver *s, const char *name,
                                         gala_kernel **k);
GALA_INTERNAL gala_status gala_qp_launch_admm(struct gala_qp_solver *s, gala_buffer *list,
                                              int nlist, int wg, int tb, int ncap, int mcap,
                                              int vlocal, int iters, int check, int adapt,
                                              int final_status);
GALA_INTERNAL size_t gala_qp_admm_local_bytes(const struct gala_qp_solver *s, int wg, int tb,
                                              int ncap, int mcap, int vlocal);
#define QP_UTIL_WG 256
#define QP_NRES 20

#endif
