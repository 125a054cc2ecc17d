/* The batched QP solver's internals: the solver object, the linear-system strategy
 * objects, the phases of setup, the launch helpers shared by every file of src/qp, and
 * the host-thread helper (qp_par.c). */
#ifndef GALA_QP_INTERNAL_H
#define GALA_QP_INTERNAL_H

#include <stdint.h>

#include "core/kernel.h"
#include "gala/ldlt.h"
#include "gala/qp.h"
#include "../../cl/qp_abi.h"

struct gala_qp_solver;
typedef struct qp_linsys qp_linsys;

/** A linear-system strategy: a table of functions over an object that owns the strategy's
 *  state (docs/qp.md), as OSQP 1.x's linsys solver. The solver holds one such object; it
 *  is made by gala_qp_linsys_make (linsys.c), where the AUTO choice lives. */
typedef struct qp_linsys_ops {
    int id; /* gala_qp_linsys (its name: gala_qp_linsys_name) */
    /** Make the object: K (or K⁻¹, factors, preconditioner) storage, launch classes and
     *  lists (meta is uploaded afterwards by the caller, so the strategy may fill QP_M_KO).
     *  Nothing is factored yet (update_matrices does it). */
    gala_status (*setup)(struct gala_qp_solver *s, qp_linsys **ls);
    /** Launch `iters` ADMM iterations, each with its linear solve (fused into the ADMM
     *  launches), and the check, for every running QP. */
    gala_status (*solve)(qp_linsys *ls, struct gala_qp_solver *s, int iters, int check,
                         int adapt, int final_status);
    /** ρ changed for the QPs whose refactor flag (device array) is set (adaptive ρ,
     *  gala_qp_update_rho, a row whose kind changed): factor them again; flags cleared. */
    gala_status (*update_rho)(qp_linsys *ls, struct gala_qp_solver *s);
    /** New scaled P and A on the device (setup, gala_qp_update_matrices): factor every QP
     *  (every refactor flag is set); flags cleared. */
    gala_status (*update_matrices)(qp_linsys *ls, struct gala_qp_solver *s);
    /** The ρ a QP may take when gala_qp_update_rho asks for rho: *r and the ρ ladder's rung
     *  *rung. NULL: any ρ (rung -1), the QP is flagged for update_rho. */
    gala_status (*nearest_rho)(const qp_linsys *ls, struct gala_qp_solver *s, const char *fn,
                               double rho, double *r, int *rung);
    /** Free the object (NULL: nothing was made). */
    void (*destroy)(qp_linsys *ls);
} qp_linsys_ops;

extern const qp_linsys_ops gala_qp_linsys_dense;
extern const qp_linsys_ops gala_qp_linsys_shared;
extern const qp_linsys_ops gala_qp_linsys_sparse;
extern const qp_linsys_ops gala_qp_linsys_pcg;

/** One launch class of the per-QP strategy: QPs whose vectors fit the same local sizes. */
typedef struct qp_bin {
    int ncap, mcap, vlocal, wg, tb, ks, rb;
    int qb, minb; /* shared tile: QPs per work-item (K⁻¹ and sparse products), work-groups
                   * per SM the CUDA compiler must fit (0: none / the kernel's default) */
    int tl;       /* shared tile: 1 = the tile layout of the local vectors (-D TL) */
    int count;
    double kq;          /* dense: mean n² of its QPs (the K⁻¹ product's reads per QP) */
    gala_buffer *list;  /* its QPs (slots), in launch order */
    gala_buffer *alist; /* the running ones among them (gala_qp_compact) */
    int acount;         /* entries the launches use: of alist when compacted, else of list */
    int compacted;
} qp_bin;

/** What every strategy's object begins with: its launch classes, and the buffers the ADMM
 *  and check kernels name (qp_admm, qp_check: K and the ρ ladder; one-element stand-ins
 *  where the strategy has none, so that every launch names real buffers). */
struct qp_linsys {
    const qp_linsys_ops *ops;
    qp_bin *classes;        /* its launch classes (the dense strategy's size classes, or one) */
    int nclasses;
    int own_lists;          /* 1: the classes' list buffers are the strategy's (else b_slots) */
    qp_bin one;             /* the single class of the shared, sparse and PCG strategies */
    gala_buffer *K;         /* K⁻¹ (or its factor) per QP or per rung; a stand-in otherwise */
    gala_buffer *ladder_rho, *rung_ok; /* the ρ ladder (dense-shared), else stand-ins */
    int nrungs;             /* rungs of the ladder (0: no ladder) */
    int rung_stride;        /* KALIGN units between the rungs' K */
    int rung0;              /* the rung of settings.rho (0 without a ladder) */
    int la_queued;          /* 1: src/la's programs of its K⁻¹ queued (a dry pass, once) */
};

/** The strategy the settings ask for (linsys.c, the one place of the AUTO choice), before
 *  the layout (the shared strategy stores the values once). same_data: every valid QP has
 *  the reference's P, A and row kinds. DENSE_SHARED without it is an error. */
GALA_INTERNAL gala_status gala_qp_linsys_choose(struct gala_qp_solver *s, int same_data,
                                                const qp_linsys_ops **ops);
/** Make the chosen strategy's object, after the uploads. AUTO's sparse LDLᵀ falls back here,
 *  explicitly, to the dense strategy where its factors would cost more (or no AMD). */
GALA_INTERNAL gala_status gala_qp_linsys_make(struct gala_qp_solver *s, const qp_linsys_ops *ops,
                                              qp_linsys **ls);
/** Free a strategy object and what every object has (lists, K, stand-ins). */
GALA_INTERNAL void gala_qp_linsys_destroy(qp_linsys *ls);
/** The common part of destroy (the classes' lists, K, the ladder buffers), for the
 *  strategies' destroy functions; the object itself is not freed. */
GALA_INTERNAL void gala_qp_linsys_release_base(qp_linsys *ls);
/** The most variables of a valid QP of the batch (AUTO's qp.sparse_n test). */
GALA_INTERNAL int gala_qp_auto_max_n(const struct gala_qp_solver *s);
/** AUTO's sparse candidate (linsys_sparse.c): the sparse strategy's object when an
 *  iteration with its factors costs less than a dense one (sparse_dearer), else *ls = NULL
 *  (no AMD in this build, dearer, or below qp.sparse_n with more than qp.sparse_patterns
 *  distinct patterns to analyze) and GALA_OK. */
GALA_INTERNAL gala_status gala_qp_sparse_setup_if_cheaper(struct gala_qp_solver *s,
                                                          qp_linsys **ls);

/** A distinct sparsity pattern of P (upper CSC, n×n) or of A (CSC, m×n), kept once for all
 *  the QPs that have it. Host copy of the CSC pattern (for polishing and update checks),
 *  and where its device structures live. */
typedef struct qp_pat {
    int is_a;           /* 0: P (upper triangle), 1: A */
    int rows, cols, nnz;
    int rep;            /* the QP whose arrays define it */
    uint64_t hash;
    int *p, *i;         /* host copy: cols + 1 pointers, nnz row indices */
    int full;           /* -1: its CSR rows could not be built (no host memory) */
    size_t rp, ci, map; /* device offsets (rp: P rows, or A rows then Aᵀ rows; ci likewise;
                           map: 2 per entry for P, 1 for A) */
} qp_pat;

/** The solver. "QP k" counts the caller's QPs (count of them, batch order); a "slot" is a QP
 *  on the device (nvalid of them; invalid QPs have none). Filled by the phases of setup in
 *  this order: settings (setup.c), per QP (setup.c, validate.c), patterns and layout
 *  (layout.c), device buffers (setup.c), the strategy (linsys*.c). */
struct gala_qp_solver {
    gala_context *ctx;
    gala_qp_settings set;
    gala_dtype dt;
    int dualgap;            /* the duality-gap test in force (gala_qp_dualgap_of) */
    int refine;             /* REFINE of the ADMM program */
    int k_factored;         /* 1: K holds Cholesky factors, not inverses (qp.factor = 2) */
    int nthreads;           /* host threads for per-QP host work */

    /* the QPs and their slots */
    int count;              /* QPs of the batch */
    int ndev;               /* devices (contexts) it was set up on (gala_qp_setup_devices) */
    int nvalid;             /* QPs on the device (slots) */
    int *slot;              /* per QP: slot or -1 */
    int *qp_of;             /* per slot: QP index */
    gala_qp_info *info;     /* per QP */
    int *host_status;       /* per QP: INVALID_DATA (host decided) or 0 */
    int *qp_n, *qp_m;       /* per QP: n, m (0 for QPs rejected with invalid sizes) */
    double *c0;             /* per QP */
    int same_data;          /* 1: every QP has slot 0's P, A and row kinds, stored once
                             * (the dense-shared strategy) */

    /* sparsity patterns (layout.c): per slot the P and A pattern ids; the distinct ones */
    int *p_pattern, *a_pattern;
    qp_pat *patterns;
    int npatterns;
    int *pattern_mem;       /* the patterns' host copies (qp_pat.p, .i point into it) */

    /* host copies (slot order, unscaled, bounds clamped to ±1e30), needed by partial updates
     * and polishing; vals: the raw CSC values [P.x | A.x] at each slot's QP_M_RO, like the
     * device's raw (polishing only) */
    struct {
        double *q, *l, *u, *vals;
    } host;

    /* the device layout (layout.c): per slot metadata, and the sizes of the device arrays */
    int *meta;              /* nvalid·QP_NMETA */
    size_t ntot, mtot;      /* Σ n and Σ m over the slots: one section of b_nvec / b_mvec */
    size_t n_rowptr, n_colidx, n_map; /* the patterns' CSR rows, columns and value maps */
    size_t n_vals, n_raw, n_ctype;    /* expanded values, raw CSC values, row kinds */

    /* device data */
    gala_buffer *b_meta;    /* per slot: QP_NMETA ints */
    gala_buffer *b_slots;   /* 0 .. nvalid-1: the list of every slot */
    gala_buffer *b_one_slot; /* a list of one slot (updates of one QP) */
    gala_buffer *b_state, *b_info; /* per slot: QP_NSTATE ints, QP_NINFO reals */
    gala_buffer *b_refactor;  /* per slot: its K must be factored again */
    gala_buffer *b_host_status; /* per slot: QP_H_* (the host's verdict, shared kinds) */
    gala_buffer *b_rowptr, *b_colidx, *b_map; /* the patterns (n_rowptr, n_colidx, n_map) */
    gala_buffer *b_raw, *b_vals; /* raw CSC values; expanded, scaled values (PV, AV, TV) */
    gala_buffer *b_nvec, *b_mvec; /* the n-vectors (QP_NV sections of ntot: x, q, D, ...)
                                   * and the m-vectors (QP_MV sections of mtot: z, y, l, ...) */
    gala_buffer *b_ctype;   /* row kinds (n_ctype) */
    gala_buffer *b_counts;  /* qp_count: running QPs, QPs waiting for a refactorization */
    gala_buffer *b_chunk_counts, *b_class_counts; /* gala_qp_compact: per chunk, per class */

    qp_linsys *ls;          /* the linear-system strategy and its state */

    /* results on the host (results.c) */
    struct {
        size_t *x_offset, *y_offset; /* per QP: where its x (n) and y (m) start in x, y */
        double *x, *y;      /* per QP: solution, or NaN */
        double *cert;       /* certificates of the infeasible QPs of the last solve */
        size_t *cert_offset; /* per QP: offset of its certificate in cert, or SIZE_MAX */
        double *nan_vec;    /* max(n, m) NaN: the certificate of every other QP */
    } res;
    /* the context's page-locked staging block while this solver holds it (NULL: none):
     * double: host.q / l / u, then res.x / y when every QP is on the device; float: the
     * upload's single-precision q / l / u, then read_stage, where gala_qp_read_real
     * converts results; after them the raw values' upload, which in double with polishing
     * is host.vals itself (vals_staged) */
    void *staging;
    int vals_staged;
    float *read_stage;
    size_t read_stage_n;
    int solved;
    double setup_time, update_time;

    /* profile (settings.profile): phase times, the clock at the end of the last phase */
    gala_qp_profile prof;
    double prof_mark;
    int in_solve;           /* 1 while gala_qp_solve runs: factorizations count as REFACTOR */

    /* vectors in the caller's device memory (vectors_device.c): made at the first such
     * call, NULL until then */
    struct qp_dio *dio;

    /* chunks (chunk.c). The solver of a batch too large for the device holds the solvers
     * of its chunks (chunks != NULL) and none of the arrays above but ctx, set, dt, count,
     * nvalid and prof; every public call goes to the chunks. */
    struct qp_chunks *chunks;
    /* A chunk's solver: its QPs nvis .. count - 1 are hidden (the batch's reference QP,
     * which the chunk needs for its patterns and, in the shared strategy, its scaling):
     * k = -1 of the updates means QPs 0 .. nvis - 1, the caller's layouts hold those only
     * (a hidden QP has n = m = 0 in qp_n, qp_m) and their results are never read. */
    int nvis;
    int hidden_slot;        /* 1: the hidden QP has a slot (slot 0, the shared reference) */
    /* dense: the launch classes of the whole batch (plan_bins, plan_nb) and per slot the
     * class its QP has there (plan_class), so that a chunk launches every QP as the
     * unchunked batch would (linsys_dense.c); NULL: the classes of this batch */
    const qp_bin *plan_bins;
    int plan_nb;
    int *plan_class;
    int k_stale;            /* K was dropped while parked (chunk.c): refactor before a solve */
    int prepared;           /* gala_qp_solve_prepare ran: the next solve keeps its profile */

    /* the last adjoint derivative (derivative.c), NULL: none since the last solve */
    struct qp_deriv *deriv;
    /* per QP the factor its last polish kept for the derivative (qp_polish.h; NULL: none
     * yet, or the array not made), valid while its gen is kept_gen */
    struct qp_kept **kept;
    unsigned kept_gen;
    /* the host KKT systems' fill-reducing orders (kkt_order.c), NULL: not made yet */
    struct qp_kkt_orders *kkt_orders;
};

/** The fill-reducing orders of the host's KKT systems (polishing, the derivative's host
 *  path), one per distinct pair of P and A patterns (kkt_order.c): made once, before the
 *  first parallel loop that factors them (on failure: none, K's own order is used). */
GALA_INTERNAL void gala_qp_kkt_orders_make(struct gala_qp_solver *s);
/** The order of one pair of patterns (P: n×n upper CSC, A: m×n CSC) into order (n + m
 *  indices: x_j as j, A's row i as n + i): SuiteSparse AMD's of [P, Aᵀ; A, 0], and *flops
 *  the multiply-adds (Σ lnz²) of that matrix's factor in it. Returns 0;
 *  -1: no memory; -2: AMD failed; -3: no AMD in this build. */
GALA_INTERNAL int gala_qp_kkt_order_of(int n, int m, const int *Pp, const int *Pi,
                                       const int *Ap, const int *Ai, int *order, double *flops);
/** Slot sl's order (gala_qp_kkt_order_of's; *flops: the multiply-adds of the whole KKT
 *  matrix's factor in it), or NULL: K's own order. */
GALA_INTERNAL const int *gala_qp_kkt_order(const struct gala_qp_solver *s, int sl, double *flops);
GALA_INTERNAL void gala_qp_kkt_orders_free(struct gala_qp_solver *s);

/** Free the adjoint derivative's results (a solve or gala_qp_destroy). (derivative.c) */
GALA_INTERNAL void gala_qp_deriv_release(struct gala_qp_solver *s);
/** How many QPs the last adjoint derivative refined with the factor their polishing kept
 *  (qp_polish.h, qp_kept) instead of factoring their own system. */
GALA_INTERNAL int gala_qp_deriv_kept(const struct gala_qp_solver *s);

/** The device's CSR copy of pattern t (layout.c): P as its full symmetric matrix, with
 *  per upper CSC entry its position in its row and its mirror's (map, 2 per entry); A as
 *  CSR then Aᵀ as CSR, with per CSC entry its CSR position. Written at rp + t->rp, ci +
 *  t->ci, map + t->map; fill: max(rows, cols) ints of work space. */
GALA_INTERNAL void gala_qp_build_pattern(const qp_pat *t, int *rp, int *ci, int *map, int *fill);

/* settings (settings.c, generated from GALA_QP_SETTINGS) */
/** Every setting inside its range; the message starts with fn. */
GALA_INTERNAL gala_status gala_qp_settings_validate(const gala_context *ctx, const char *fn,
                                                    const gala_qp_settings *s);
/** Every setting fixed at setup unchanged from was to now; the message starts with fn. */
GALA_INTERNAL gala_status gala_qp_settings_fixed_kept(const gala_context *ctx, const char *fn,
                                                      const gala_qp_settings *was,
                                                      const gala_qp_settings *now);

/* ---- the phases of setup (setup.c calls them in order) -------------------------------- */

static inline double qp_clamp_inf(double v)
{
    return v > QP_INFTY ? QP_INFTY : (v < -QP_INFTY ? -QP_INFTY : v);
}

/** Per QP, what validation found (validate.c): invalid, and against the reference QP
 *  (the first valid one): the same P / A patterns, the same values and row kinds (the
 *  shared strategy), else the patterns' hashes. */
typedef struct {
    uint64_t ph, ah;           /* pattern hashes (when not the reference's pattern) */
    unsigned char bad;         /* invalid data */
    unsigned char same_pp;     /* P pattern = the reference's */
    unsigned char same_ap;     /* A pattern = the reference's */
    unsigned char same_vals;   /* P and A values and row kinds = the reference's */
} qp_scan;

/** The host arrays of the uploads of setup (layout.c), freed once they are up. */
typedef struct {
    size_t hcopy;  /* ints of the patterns' host copies */
    int *ist;      /* the patterns' device structures: rows, columns, maps */
    void *raw;     /* the raw CSC values, in the solver's dtype */
    float *fst;    /* float: q, l, u in single precision */
    int raw_staged; /* raw lies in the solver's page-locked staging block (not freed here) */
} qp_stage;

/** The duality-gap test in force: check_dualgap, or -1 = on for double, off for float. */
GALA_INTERNAL int gala_qp_dualgap_of(const gala_qp_settings *s);
/** The per-QP arrays of a solver of s->count QPs (info, host_status, slot, qp_of, qp_n,
 *  qp_m, c0, result offsets), uninitialized. (setup.c) */
GALA_INTERNAL gala_status gala_qp_alloc_per_qp(struct gala_qp_solver *s);
/** Setup's first phases: per-QP arrays, validation (*scan: per QP, freed by the caller;
 *  *ref: the first valid QP; *same_data). (setup.c) */
GALA_INTERNAL gala_status gala_qp_setup_front(struct gala_qp_solver *s, const gala_qp_problem *pb,
                                              qp_scan **scan, int *ref, int *same_data);
/** Setup's other phases on validated QPs: results, strategy (ops, or NULL: the settings'
 *  choice), layout, uploads, scaling, factorization, the device's verdicts. (setup.c) */
GALA_INTERNAL gala_status gala_qp_setup_build(struct gala_qp_solver *s, const gala_qp_problem *pb,
                                              const qp_scan *scan, int ref, int same_data,
                                              const qp_linsys_ops *ops);

/* ---- chunks (chunk.c): batches larger than the device, batches on several devices ---- */

/** After validation: whether the batch fits the device (settings device_mem_limit,
 *  max_chunk) and has one (nctx == 1; ctxs[0] is s->ctx); *one = 1: it does (the caller
 *  builds it as one batch); else the batch is divided among the devices (by work, in
 *  proportion to weights, NULL: equal) and each share into chunks, the chunks' solvers are
 *  built and s becomes their holder (*one = 0). */
GALA_INTERNAL gala_status gala_qp_chunked_setup(struct gala_qp_solver *s, const gala_qp_problem *pb,
                                                const qp_scan *scan, int ref, int same_data,
                                                struct gala_context *const *ctxs, int nctx,
                                                const double *weights, int *one);
/** A chunk's solve in two steps (chunk.c's pipeline): first the refactorization of a K
 *  dropped while it was parked (k_stale; in the solve's profile as REFACTOR), which may run
 *  while another chunk iterates; then gala_qp_solve, which finds it done. (solve.c) */
GALA_INTERNAL gala_status gala_qp_solve_prepare(struct gala_qp_solver *s);
/** The devices of a solver with chunks, and device d's share: its first QP, its QPs, its
 *  chunks. */
GALA_INTERNAL int gala_qp_chunked_ndev(const struct gala_qp_solver *s);
GALA_INTERNAL void gala_qp_chunked_part(const struct gala_qp_solver *s, int d, int *k0, int *count,
                                        int *chunks);
/** Device d's chunk pipeline: *slots chunks on it at once (1, or 2: pipelined, the second
 *  on a twin context), *keep_k 1 when parked chunks keep their dense K. (tests) */
GALA_INTERNAL void gala_qp_chunked_pipeline(const struct gala_qp_solver *s, int d, int *slots,
                                            int *keep_k);
/** The setup time into every chunk's info. */
GALA_INTERNAL void gala_qp_chunked_setup_time(struct gala_qp_solver *s);
/** Free the chunks (gala_qp_destroy); nothing when s has none. */
GALA_INTERNAL void gala_qp_chunks_free(struct gala_qp_solver *s);
GALA_INTERNAL int gala_qp_chunked_linsys(const struct gala_qp_solver *s);
GALA_INTERNAL int gala_qp_chunked_count(const struct gala_qp_solver *s);
/* The public calls on a solver with chunks (the public functions call them first). */
GALA_INTERNAL gala_status gala_qp_chunked_solve(struct gala_qp_solver *s);
GALA_INTERNAL gala_status gala_qp_chunked_get_info(const struct gala_qp_solver *s, int k,
                                                   gala_qp_info *info);
GALA_INTERNAL gala_status gala_qp_chunked_get_infos(const struct gala_qp_solver *s, int k0,
                                                    int count, gala_qp_info *infos);
GALA_INTERNAL gala_status gala_qp_chunked_get_solution(const struct gala_qp_solver *s, int k,
                                                       const double **x, const double **y,
                                                       const double **pcert,
                                                       const double **dcert);
GALA_INTERNAL gala_status gala_qp_chunked_get_solutions(const struct gala_qp_solver *s, double *x,
                                                        double *y);
GALA_INTERNAL gala_status gala_qp_chunked_update_vectors(struct gala_qp_solver *s, int k,
                                                         const double *q, const double *l,
                                                         const double *u);
GALA_INTERNAL gala_status gala_qp_chunked_update_matrices(struct gala_qp_solver *s, int k,
                                                          const double *Px, const double *Ax);
GALA_INTERNAL gala_status gala_qp_chunked_update_rho(struct gala_qp_solver *s, int k, double rho);
GALA_INTERNAL gala_status gala_qp_chunked_update_settings(struct gala_qp_solver *s,
                                                          const gala_qp_settings *settings);
GALA_INTERNAL gala_status gala_qp_chunked_warm_start(struct gala_qp_solver *s, int k,
                                                     const double *x, const double *y);
GALA_INTERNAL gala_status gala_qp_chunked_cold_start(struct gala_qp_solver *s);
GALA_INTERNAL gala_status gala_qp_chunked_get_profile(const struct gala_qp_solver *s,
                                                      gala_qp_profile *p);
GALA_INTERNAL gala_status gala_qp_chunked_update_vectors_device(
    struct gala_qp_solver *s, const gala_buffer *q, size_t q_off, const gala_buffer *l,
    size_t l_off, const gala_buffer *u, size_t u_off);
GALA_INTERNAL gala_status gala_qp_chunked_get_solution_device(const struct gala_qp_solver *s,
                                                              gala_buffer *x, size_t x_off,
                                                              gala_buffer *y, size_t y_off);
GALA_INTERNAL gala_status gala_qp_chunked_warm_start_device(struct gala_qp_solver *s,
                                                            const gala_buffer *x, size_t x_off,
                                                            const gala_buffer *y, size_t y_off);
/** A device-vector buffer argument: of the context and dtype, holding [off, off + extent)
 *  (vectors_device.c). */
GALA_INTERNAL gala_status gala_qp_check_vec(struct gala_qp_solver *s, const char *fn,
                                            const char *name, const gala_buffer *b, size_t off,
                                            size_t extent);

/* dense strategy (linsys_dense.c) */
/** The launch classes the dense strategy makes for nv QPs (per slot n[sl], m[sl]): the
 *  classes (*bins, count filled; freed by the caller) and per slot its class. */
GALA_INTERNAL gala_status gala_qp_dense_classes(const struct gala_qp_solver *s, const int *n,
                                                const int *m, int nv, qp_bin **bins, int *nb,
                                                int *bin_of);
/** Validate every QP (several threads), compare it with the reference QP (*ref), and give
 *  the valid ones their slots (s->slot, s->qp_of, s->nvalid); hn, hm: the QPs' total n and
 *  m (the work that sets s->nthreads). *same_data: every valid QP has the reference's P, A
 *  and row kinds. (validate.c) */
GALA_INTERNAL gala_status gala_qp_validate(struct gala_qp_solver *s, const gala_qp_problem *pb,
                                           size_t hn, size_t hm, qp_scan *scan, int *ref,
                                           int *same_data);
/** Two CSC matrices with the same pattern (validate.c). */
GALA_INTERNAL int gala_qp_same_pattern(const gala_csc *a, const gala_csc *b);
/** Per slot its P and A pattern (s->p_pattern, s->a_pattern), the distinct patterns
 *  (s->patterns): the reference's, one per distinct hash among the others, matches by hash confirmed on
 *  several threads (a collision gets a pattern of its own). (layout.c) */
GALA_INTERNAL gala_status gala_qp_assign_patterns(struct gala_qp_solver *s,
                                                  const gala_qp_problem *pb,
                                                  const qp_scan *scan, int ref);
/** The patterns' device offsets and the per-slot metadata (s->meta) and sizes. (layout.c) */
GALA_INTERNAL gala_status gala_qp_layout(struct gala_qp_solver *s, const gala_qp_problem *pb,
                                         int ref, qp_stage *sg);
/** The host copies (host.q, l, u, hval, the patterns) and the upload staging sg, on several
 *  threads. (layout.c) */
GALA_INTERNAL gala_status gala_qp_host_copies(struct gala_qp_solver *s,
                                              const gala_qp_problem *pb, qp_stage *sg);
GALA_INTERNAL void gala_qp_stage_free(struct gala_qp_solver *s, qp_stage *sg);
/** Device-decided invalidity (shared data: a row kind differs after scaling) into info. */
GALA_INTERNAL gala_status gala_qp_read_hstat(struct gala_qp_solver *s);
/** After a factorization: NON_CVX from the device's state into info, and back. */
GALA_INTERNAL gala_status gala_qp_read_factor_status(struct gala_qp_solver *s);
/** The buffers of the compacted launch lists, after the strategy's setup (solve.c). */
GALA_INTERNAL gala_status gala_qp_active_setup(struct gala_qp_solver *s);
/** Download the statuses, solutions and certificates after a solve; polish (results.c). */
GALA_INTERNAL gala_status gala_qp_collect(struct gala_qp_solver *s, const double *sync_t,
                                          const int *sync_it, int nsync);
/** Zero the profile's phases first..last (profile.c). */
GALA_INTERNAL void gala_qp_prof_reset(struct gala_qp_solver *s, int first, int last);

/* launch helpers (launch.c) */
/** The ADMM program of a launch class (c = NULL: the utility kernels' program). */
GALA_INTERNAL void gala_qp_key(const struct gala_qp_solver *s, gala_program_key *key,
                               const qp_bin *c);
/** The key of the utility program that holds kernel `name`: gala_qp_key's, with QP_PART 2
 *  for the sparse and PCG strategies' kernels (qp_kkt_*, qp_pcg*), else 1. */
GALA_INTERNAL void gala_qp_util_key(const struct gala_qp_solver *s, const char *name,
                                    gala_program_key *key);
GALA_INTERNAL gala_status gala_qp_kernel(struct gala_qp_solver *s, const char *name,
                                         gala_kernel **k);
/** qp_admm (iters > 0) and qp_check (check or final_status) over the running QPs of a
 *  launch class (its compacted list, or its whole list before the first compaction). */
GALA_INTERNAL gala_status gala_qp_launch_admm(struct gala_qp_solver *s, const qp_linsys *ls,
                                              const qp_bin *c,
                                              int iters, int check, int adapt,
                                              int final_status);
/** One-element stand-ins for the ladder arrays (lrho, rungok) and K where the strategy has
 *  none, so that every launch names real buffers (linsys.c). */
GALA_INTERNAL gala_status gala_qp_launch_dummies(struct gala_qp_solver *s, qp_linsys *ls);
/** The launch class of the strategies without K in local memory (sparse LDLᵀ, PCG): ls->one
 *  runs qp_check over every slot, one QP per work-group of QP_UTIL_WG work-items (the
 *  device's largest multiple of 32 below that), vectors in global memory; with the dummies
 *  above (linsys.c). */
GALA_INTERNAL gala_status gala_qp_check_class(struct gala_qp_solver *s, qp_linsys *ls);
/** The strategy's one launch class is c, over every slot (the list b_slots). */
GALA_INTERNAL void gala_qp_linsys_one_class(struct gala_qp_solver *s, qp_linsys *ls,
                                            const qp_bin *c);
/** Local memory of the larger of qp_admm and qp_check for a launch class. */
GALA_INTERNAL size_t gala_qp_admm_local_bytes(const struct gala_qp_solver *s, const qp_bin *c);
/** Write reals given in double into a buffer of the solver's dtype (converted through a
 *  staging array on up to s->nthreads threads for float). */
GALA_INTERNAL gala_status gala_qp_write_real(struct gala_qp_solver *s, gala_buffer *b,
                                             size_t off, size_t count, const double *src);
/** Read reals of a buffer of the solver's dtype into doubles (the reverse of the above). */
GALA_INTERNAL gala_status gala_qp_read_real(struct gala_qp_solver *s, const gala_buffer *b,
                                            size_t off, size_t count, double *dst);
/** A device buffer of count elements (at least one). */
GALA_INTERNAL gala_status gala_qp_mkbuf(struct gala_qp_solver *s, gala_dtype dt, size_t count,
                                        gala_buffer **b);
/** Launch geometry: one work-group per QP (or tile, or job) along dimension 0. */
GALA_INTERNAL gala_dims gala_qp_dims(long long groups, int wg);
/** Expand, init, Ruiz-scale the nlist slots of list (NULL: every QP) from the raw values and
 *  q, l, u on the device (keep_rho: each QP keeps its ρ, except with shared data, which
 *  takes every QP); the shared data's scaling applied to all. */
GALA_INTERNAL gala_status gala_qp_device_scale(struct gala_qp_solver *s, int keep_rho,
                                               gala_buffer *list, int nlist);
/** Whether a status has a primal-dual solution (solved, inaccurate, max_iter, time limit,
 *  interrupted), for which gala_qp_get_solution gives x and y rather than NaN. */
GALA_INTERNAL int gala_qp_has_solution(int status);
#define QP_UTIL_WG 256

/* Typed launches of the QP kernels, from their argument lists (cl/qp_abi.h): qp_launch_<list>(ctx,
 * kernel, dims, arguments...). */
GALA_LAUNCHER(qp_launch_admm, QP_ARGS_admm)
GALA_LAUNCHER(qp_launch_chol_inv, QP_ARGS_chol_inv)
GALA_LAUNCHER(qp_launch_compact_count, QP_ARGS_compact_count)
GALA_LAUNCHER(qp_launch_compact_write, QP_ARGS_compact_write)
GALA_LAUNCHER(qp_launch_count, QP_ARGS_count)
GALA_LAUNCHER(qp_launch_expand, QP_ARGS_expand)
GALA_LAUNCHER(qp_launch_form_k, QP_ARGS_form_k)
GALA_LAUNCHER(qp_launch_init, QP_ARGS_init)
GALA_LAUNCHER(qp_launch_kkt_resid, QP_ARGS_kkt_resid)
GALA_LAUNCHER(qp_launch_kkt_rhs, QP_ARGS_kkt_rhs)
GALA_LAUNCHER(qp_launch_kkt_update, QP_ARGS_kkt_update)
GALA_LAUNCHER(qp_launch_kkt_values, QP_ARGS_kkt_values)
GALA_LAUNCHER(qp_launch_mirror, QP_ARGS_mirror)
GALA_LAUNCHER(qp_launch_pcg, QP_ARGS_pcg)
GALA_LAUNCHER(qp_launch_pcg_precond, QP_ARGS_pcg_precond)
GALA_LAUNCHER(qp_launch_reset, QP_ARGS_reset)
GALA_LAUNCHER(qp_launch_scale_apply, QP_ARGS_scale_apply)
GALA_LAUNCHER(qp_launch_scale_norms, QP_ARGS_scale_norms)
GALA_LAUNCHER(qp_launch_shared_apply, QP_ARGS_shared_apply)
GALA_LAUNCHER(qp_launch_sol_out, QP_ARGS_sol_out)
GALA_LAUNCHER(qp_launch_unscale, QP_ARGS_unscale)
GALA_LAUNCHER(qp_launch_vec_check, QP_ARGS_vec_check)
GALA_LAUNCHER(qp_launch_vec_in, QP_ARGS_vec_in)
GALA_LAUNCHER(qp_launch_vec_update, QP_ARGS_vec_update)
GALA_LAUNCHER(qp_launch_warm, QP_ARGS_warm)
GALA_LAUNCHER(qp_launch_warm_in, QP_ARGS_warm_in)

/* Profile: with settings.profile, wait for the device and charge the time since the last
 * mark to `phase` (FORM_K / FACTOR become REFACTOR inside a solve). Nothing otherwise. */
GALA_INTERNAL void gala_qp_prof(struct gala_qp_solver *s, int phase);

/* ---- vectors in device memory (vectors_device.c) ------------------------------------- */

/* After gala_qp_update_vectors_device the device is ahead of the host: per-QP verdicts
 * (host_status, info messages) and the host copies host.q / l / u are brought back lazily,
 * where the solver reads them. Every hook is a no-op until the solver's first device call. */
#define QP_DIO_VERDICTS 1 /* host_status and info[k].message as the last device update left them */
#define QP_DIO_VECTORS 2  /* host.q, l, u current, and no asynchronous upload reads them */
/** Make the host side current (QP_DIO_* bits) before the solver reads (or writes) it. */
GALA_INTERNAL gala_status gala_qp_dio_host(struct gala_qp_solver *s, int what);
/** The host copies host.q / l / u were changed on the host (gala_qp_update_vectors): the
 *  device's kept copy is refreshed from them at the next device update. */
GALA_INTERNAL void gala_qp_dio_host_changed(struct gala_qp_solver *s);
/** A solve ended (results collected): the device outputs take its statuses and polishing. */
GALA_INTERNAL gala_status gala_qp_dio_solved(struct gala_qp_solver *s);
/** Release the device-vector state (gala_qp_destroy). */
GALA_INTERNAL void gala_qp_dio_release(struct gala_qp_solver *s);

/* ---- host threads (qp_par.c) ---------------------------------------------------------- */

/* Parallel loops: gala_par(ctx, ...) (src/core/internal.h) on the context's workers. */

/** Threads for host work of about `work` elements: settings.threads when > 0, else the
 *  online cores (at most 16), one per 32768 elements, at least one. */
GALA_INTERNAL int gala_qp_threads_for(int setting, double work);

/** 64-bit hash of an int array (word-wise multiply-xorshift), chained from h. */
GALA_INTERNAL uint64_t gala_qp_hash_ints(const int *v, size_t n, uint64_t h);

#endif
