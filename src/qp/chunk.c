/* Batches larger than the device (docs/design.md, "Chunks"): a batch whose device workspace
 * exceeds device_mem_limit (or has more than max_chunk QPs) is cut into chunks of consecutive
 * QPs, each set up as a solver of its own ("inner" solver). One chunk at a time has its
 * buffers on the device; the others are parked (src/core/buffer.c, gala_buffers_park): their
 * contents wait in host memory, except the dense strategy's K⁻¹, which is dropped and
 * factored again when the chunk comes back. The solver the caller holds keeps the chunks and
 * sends every public call to them, with the QPs' indices and the caller's array offsets
 * moved to the chunk's.
 *
 * Results equal the unchunked solve's bit for bit, because every QP gets the same
 * arithmetic: the strategy is chosen once for the batch; the dense strategy's launch
 * classes are the batch's (s->plan_class); a chunk after the batch's reference QP (its first
 * valid one) carries that QP as a hidden last QP, for the reference's patterns and, in the
 * shared strategy, as slot 0, whose scaling every QP takes (it never iterates: its host
 * status is INVALID_DATA); the dropped K⁻¹ is factored again from the same scaled data.
 *
 * A batch on several devices (gala_qp_setup_devices; docs/design.md, "Several devices") is
 * the same machinery with more than one context: the batch is first divided into
 * consecutive shares by work (split_devices), each share cut into chunks for its own device
 * (plan_chunks), and every chunk's solver lives on its device's context (qp_dev). Setup and
 * solve run each device's chunks on a thread of its own; the other calls visit the devices
 * in turn. The same arguments make the results the one-device batch's bit for bit. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "qp_internal.h"

typedef struct qp_chunk {
    gala_qp_solver *s;  /* its solver (NULL until made) */
    int dev;            /* the device it lives on: an index of qp_chunks.dev */
    int slot;           /* its slot on that device (qp_dev.slot: the context it lives on) */
    int k0, k1;         /* its QPs of the batch: k0 .. k1 - 1, the solver's 0 .. k1 - k0 - 1 */
    int phantom;        /* its solver has one QP more, the batch's reference, hidden */
    size_t xo, yo;      /* Σ n, Σ m of the QPs before k0: the caller's vector layout */
    size_t nx, ny;      /* Σ n, Σ m of its QPs */
    size_t po, ao;      /* P and A entries of the valid QPs before k0: matrix updates */
    size_t host_bytes;  /* host memory its parked buffers hold */
    int failed;         /* its part of the last solve failed: its QPs report UNSOLVED */
} qp_chunk;

/* Room for one chunk on a device: a context (the device's, or for the second slot a twin
 * of it: the same device and memory, a queue of its own), the chunk whose buffers are
 * there, and in a solve the thread that runs the slot's chunks and its first failure. The
 * chunks of a device take its slots in turn (chunk c0 slot 0, c0 + 1 slot 1, ...). */
typedef struct qp_slot {
    gala_context *ctx;
    int twin;           /* ctx is a twin made for this batch (destroyed with it) */
    int on_device;      /* the chunk whose buffers are on the device, or -1 */
    double xfer_setup, xfer_solve; /* seconds of parking and unparking */
    gala_status st;     /* a solve's first failure on this slot, at position pos of the
                         * device's order, and its message */
    int pos;
    char msg[512];
} qp_slot;

/* A device of the batch (gala_qp_setup_devices; one for gala_qp_setup): its context, its
 * chunks c0 .. c1 - 1 (its QPs k0 .. k1 - 1), its slots (two when chunks are pipelined:
 * one chunk iterates while the next one comes to the device), a solve's progress and first
 * failure. */
typedef struct qp_dev {
    gala_context *ctx;
    int c0, c1, k0, k1;
    int nslot;          /* 1, or 2 (qp.chunk_slots): chunks resident at once */
    qp_slot slot[2];
    int keep_k;         /* parked chunks keep their K (qp.park_k, host memory allowing) */
    int pinned;         /* parked chunks' host copies page-locked (qp.park_pinned) */
    int cur, done, part; /* a solve's progress: the chunk, QPs of the earlier chunks, QPs
                          * the chunk finished */
    int turn;           /* a solve: the position in the device's order whose chunk may
                         * iterate now (the chunks before it have) */
    gala_status st;     /* a solve's first failure on this device, and its message */
    char msg[512];
    gala_qp_solver *o;
    double t0;          /* the solve's start */
} qp_dev;

struct qp_chunks {
    int n;
    qp_chunk *c;
    int ndev;
    qp_dev *dev;
    int *ord;           /* the order a call visits the chunks in (visit_order) */
    pthread_mutex_t mu; /* the progress callback and the turns, from the devices' threads */
    pthread_cond_t cv;  /* a turn passed */
    int ref, ref_chunk; /* the batch's reference QP and its chunk */
    int linsys;         /* the strategy of every chunk (gala_qp_linsys) */
    qp_bin *bins;       /* dense: the batch's launch classes, and per batch slot its class */
    int nb;
    int *bin_of;
    int stop;           /* the progress callback asked to stop (under mu) */
};

/* ------------------------------------------------------------------ sizes */

static size_t kalign(size_t n) { return (n + QP_KALIGN - 1) / QP_KALIGN * QP_KALIGN; }

/* What a chunk's QPs take on the device, in bytes, and the entries of the buffers whose
 * size has a limit of its own (max_alloc_bytes, and 2^31 entries for the int offsets). */
typedef struct {
    double total, K, vals, nvec, mvec; /* bytes */
    double n, m, v;                    /* entries: Σ n, Σ m, expanded values */
} chunk_use;

/* The bytes of one valid QP: its vectors (QP_NV n-sections, QP_MV m-sections), values (the
 * expanded P, A, Aᵀ and the raw CSC values, unless stored once), row kinds, metadata,
 * state, lists, its patterns when they may be its own, K⁻¹ (dense) or the strategy's
 * workspace (with the factorization's scratch), the device-vector state (made at the first
 * device-vector call) and the factorization's descriptors. The sparse strategy's factor is
 * estimated at eight times the KKT matrix's entries (AMD's fill on the benchmark
 * families), at most its dense triangle. Each is an allocation the setup makes (setup.c,
 * layout.c, linsys*.c). */
static void qp_use(const gala_qp_solver *s, const gala_qp_problem *p, const qp_scan *sc,
                   int lin, chunk_use *u)
{
    const double rs = (double)gala_dtype_size(s->dt);
    const double n = p->n, m = p->m, pz = p->P.p[p->n], az = p->A.p[p->n];
    double b = rs * (QP_NV * n + QP_MV * m) + 4.0 * (QP_NMETA + QP_NSTATE + 6) + rs * QP_NINFO;
    b += rs * (n + 2 * m) + 4.0 * (QP_NQT + 3) + 2 * rs + 64;
    u->nvec += rs * QP_NV * n;
    u->mvec += rs * QP_MV * m;
    u->n += n;
    u->m += m;
    if (lin != GALA_QP_LINSYS_DENSE_SHARED) {
        b += 4.0 * m + rs * 3 * (pz + az);
        u->vals += rs * 2 * (pz + az);
        u->v += 2 * (pz + az);
        if (!sc->same_pp) b += 4.0 * (n + 1 + 4 * pz);
        if (!sc->same_ap) b += 4.0 * (m + n + 2 + 3 * az);
    }
    if (lin == GALA_QP_LINSYS_PCG) {
        b += rs * (QP_PW_NV * n + m + QP_NPST);
    } else if (lin == GALA_QP_LINSYS_SPARSE_LDLT) {
        const double kk = pz + n + az + m, d = n + m;
        double l = 8 * kk;
        if (l > d * (d + 1) / 2) l = d * (d + 1) / 2;
        b += rs * (kk + 2 * d + l) + 4.0 * (3 + kk) + 4.0 * 3 * l;
        u->K += rs * l;
    } else if (lin != GALA_QP_LINSYS_DENSE_SHARED) {
        /* K⁻¹, and the factorization's workspace in the context's scratch: the triangular
         * inverse's largest round is below n²/4 elements per matrix (src/la/trtri.c) */
        const double kb = rs * (double)kalign((size_t)p->n * (size_t)p->n);
        b += kb + 8 + rs * n * n / 4;
        u->K += kb;
    }
    u->total += b;
}

/* Bytes every chunk has whatever its QPs: the reference's patterns; in the shared strategy
 * its values, row kinds, ρ ladder of K⁻¹ (as shared_setup counts its rungs) and the hidden
 * reference QP's vectors. */
static double chunk_base(const gala_qp_solver *s, const gala_qp_problem *r, const qp_scan *sr,
                         int lin)
{
    const double rs = (double)gala_dtype_size(s->dt);
    const double n = r->n, m = r->m, pz = r->P.p[r->n], az = r->A.p[r->n];
    double b = 4.0 * (n + 1 + 4 * pz) + 4.0 * (m + n + 2 + 3 * az) + 4096;
    if (lin == GALA_QP_LINSYS_DENSE_SHARED) {
        int nr = 1;
        const double ratio = s->set.rho_ladder_ratio, rho = s->set.rho;
        if (s->set.adaptive_rho != GALA_QP_ADAPTIVE_RHO_DISABLED) {
            int kneg = 0, kpos = 0;
            for (double v = rho / ratio; v >= QP_RHO_MIN * (1 - 1e-12) && kneg < 64; v /= ratio) ++kneg;
            for (double v = rho * ratio; v <= QP_RHO_MAX * (1 + 1e-12) && kpos < 64; v *= ratio) ++kpos;
            nr += kneg + kpos;
        }
        b += rs * 3 * (pz + az) + 4.0 * m + rs * nr * (double)kalign((size_t)r->n * (size_t)r->n);
        chunk_use u;
        memset(&u, 0, sizeof u);
        qp_use(s, r, sr, lin, &u);
        b += u.total;
    }
    return b;
}

/* Whether u fits: the limit, the largest allocation, 2^31 entries of the int offsets. */
static int fits(const chunk_use *u, double limit, double maxa)
{
    const double imax = 2147483647.0;
    return u->total <= limit && u->K <= maxa && u->vals <= maxa && u->nvec <= maxa &&
           u->mvec <= maxa && u->n <= imax && u->m <= imax && u->v <= imax;
}

/* The chunks' boundaries of QPs a .. e - 1 on ctx's device, greedily in batch order, after
 * those already in b (b[*n] == a): a chunk takes QPs while they fit in a slot's share of the
 * limit (a QP that does not fit alone gets a chunk of its own, and its setup reports what
 * the device refuses); b[*n] ends as e. */
static void plan_chunks(const gala_qp_solver *s, const gala_context *ctx, int a, int e,
                        const gala_qp_problem *pb, const qp_scan *scan, int ref, int lin,
                        int slots, int *b, int *nb)
{
    double limit = s->set.device_mem_limit;
    if (!(limit > 0)) {
        /* automatic: 80 % of a device's memory less what the context holds; the host
         * backend's "device memory" is the host's, where parking would gain nothing */
        const double g = (double)ctx->info.global_mem_bytes;
        limit = ctx->ops->backend == GALA_BACKEND_HOST || !(g > 0)
                    ? INFINITY
                    : 0.8 * g - (double)ctx->stats.bytes_live;
    }
    limit /= slots; /* every slot holds a chunk */
    const double maxa = ctx->info.max_alloc_bytes ? (double)ctx->info.max_alloc_bytes : INFINITY;
    const int maxq = s->set.max_chunk > 0 ? s->set.max_chunk : s->count;
    const double base = chunk_base(s, &pb[ref], &scan[ref], lin);
    int n = *nb, in_chunk = 0;
    chunk_use u;
    memset(&u, 0, sizeof u);
    u.total = base;
    for (int k = a; k < e; ++k) {
        chunk_use v = u;
        if (s->slot[k] >= 0) qp_use(s, &pb[k], &scan[k], lin, &v);
        else v.total += 4.0 * (QP_NQT + 1);
        if (in_chunk > 0 && (in_chunk >= maxq || !fits(&v, limit, maxa))) {
            b[++n] = k;
            memset(&u, 0, sizeof u);
            u.total = base;
            in_chunk = 0;
            v = u;
            if (s->slot[k] >= 0) qp_use(s, &pb[k], &scan[k], lin, &v);
            else v.total += 4.0 * (QP_NQT + 1);
        }
        u = v;
        ++in_chunk;
    }
    if (e > a) b[++n] = e;
    *nb = n;
}

/* The devices' shares of the batch: consecutive QPs, split by work (Σ n² of the valid QPs;
 * an invalid QP counts as a QP of n = 1) in proportion to the devices' weights (equal when
 * w is NULL). Device d gets QPs at[d] .. at[d + 1] - 1 (possibly none). */
static void split_devices(const gala_qp_solver *s, int ndev, const double *w, int *at)
{
    double total = 0, wsum = 0;
    for (int k = 0; k < s->count; ++k) {
        const double n = s->slot[k] >= 0 ? s->qp_n[k] : 1;
        total += n * n;
    }
    for (int d = 0; d < ndev; ++d) wsum += w ? w[d] : 1;
    at[0] = 0;
    double done = 0, wcum = 0;
    int k = 0;
    for (int d = 0; d < ndev - 1; ++d) {
        wcum += w ? w[d] : 1;
        const double target = total * (wcum / wsum);
        /* take QPs while the running work stays nearer the target than without them */
        while (k < s->count) {
            const double n = s->slot[k] >= 0 ? s->qp_n[k] : 1;
            if (done + n * n / 2 > target) break;
            done += n * n;
            ++k;
        }
        at[d + 1] = k;
    }
    at[ndev] = s->count;
}

/* ------------------------------------------------------------------ helpers */

static int chunk_of(const struct qp_chunks *cs, int k)
{
    int lo = 0, hi = cs->n - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (cs->c[mid].k0 <= k) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Calls on a chunk's solver tag the buffers they make with it (its parking set), on its
 * device's context. */
static const void *own(gala_qp_solver *in)
{
    return gala_buffer_owner(in->ctx, in);
}

static void own_end(gala_qp_solver *in, const void *was)
{
    gala_buffer_owner(in->ctx, was);
}

/* Chunk c's buffers to host memory (the dense strategy's K⁻¹ dropped, unless its device
 * keeps it). */
static gala_status chunk_park(gala_qp_solver *o, int c)
{
    struct qp_chunks *cs = o->chunks;
    qp_chunk *ch = &cs->c[c];
    qp_dev *dv = &cs->dev[ch->dev];
    qp_slot *sl = &dv->slot[ch->slot];
    gala_qp_solver *in = ch->s;
    gala_buffer *drop =
        !dv->keep_k && in->ls && in->ls->ops == &gala_qp_linsys_dense ? in->ls->K : NULL;
    const double t0 = gala_now();
    gala_status st =
        gala_buffers_park(in->ctx, in, &drop, drop ? 1 : 0, dv->pinned, &ch->host_bytes);
    const double dt = gala_now() - t0;
    if (o->in_solve) sl->xfer_solve += dt;
    else sl->xfer_setup += dt;
    if (st != GALA_OK) return st;
    if (drop && drop->parked) in->k_stale = 1;
    if (sl->on_device == c) sl->on_device = -1;
    return GALA_OK;
}

/* Chunk c's buffers back on its device, the chunk in its slot before parked first. */
static gala_status chunk_enter(gala_qp_solver *o, int c)
{
    struct qp_chunks *cs = o->chunks;
    qp_slot *sl = &cs->dev[cs->c[c].dev].slot[cs->c[c].slot];
    gala_qp_solver *in = cs->c[c].s;
    if (sl->on_device == c || in->nvalid == 0) return GALA_OK; /* nothing of it on the device */
    if (sl->on_device >= 0) GALA_TRY(chunk_park(o, sl->on_device));
    const double t0 = gala_now();
    gala_status st = gala_buffers_unpark(in->ctx, in);
    const double dt = gala_now() - t0;
    if (o->in_solve) sl->xfer_solve += dt;
    else sl->xfer_setup += dt;
    if (st != GALA_OK) return st;
    cs->c[c].host_bytes = 0;
    sl->on_device = c;
    return GALA_OK;
}

/* The order calls visit device d's chunks in, written to ord: per slot first the chunk on
 * the device when the call began (no transfer), then its others in batch order; the slots'
 * lists taken in turn (slot 0's first, slot 1's first, slot 0's second, ...), so that in a
 * solve one slot's transfers meet the other's iterations. */
static int dev_order(const struct qp_chunks *cs, int d, int *ord)
{
    const qp_dev *dv = &cs->dev[d];
    const int nc = dv->c1 - dv->c0, ns = dv->nslot;
    int n = 0;
    for (int k = 0; n < nc; ++k)
        for (int sl = 0; sl < ns; ++sl) {
            const int cnt = (nc - sl + ns - 1) / ns; /* chunks c0 + sl, c0 + sl + ns, ... */
            if (k >= cnt) continue;
            const int od = dv->slot[sl].on_device;
            const int first = od >= 0 ? (od - dv->c0 - sl) / ns : 0; /* its index in the slot */
            const int j = k == 0 ? first : (k - 1 < first ? k - 1 : k);
            ord[n++] = dv->c0 + sl + ns * j;
        }
    return n;
}

/* The order a call visits all the chunks in (cs->ord): device after device, each as
 * dev_order says. */
static const int *visit_order(struct qp_chunks *cs)
{
    int n = 0;
    for (int d = 0; d < cs->ndev; ++d) n += dev_order(cs, d, cs->ord + n);
    return cs->ord;
}

/* The twins take their parents' gala_tune_set values again, so that a chunk makes the
 * choices on a twin that it would make on the device's context. */
static void sync_twins(struct qp_chunks *cs)
{
    for (int d = 0; d < cs->ndev; ++d)
        if (cs->dev[d].slot[1].twin) gala_context_twin_sync(cs->dev[d].slot[1].ctx);
}

/* A failed call's message, with the device (when there are several) and the chunk named
 * (the first failure of a call wins); the failure's own message is on the chunk's
 * context. */
static void fail_msg(const gala_qp_solver *o, const qp_chunk *ch, int c, const char *fn,
                     char *msg, size_t cap)
{
    const struct qp_chunks *cs = o->chunks;
    const qp_dev *dv = &cs->dev[ch->dev];
    char dname[200] = "";
    if (cs->ndev > 1)
        snprintf(dname, sizeof dname, "device %d (%s %s): ", ch->dev, dv->ctx->info.backend_name,
                 dv->ctx->info.device_name);
    snprintf(msg, cap, "%s: %schunk %d of %d (QPs %d..%d): %s", fn, dname, c, cs->n, ch->k0,
             ch->k1 - 1, gala_last_error(ch->s ? ch->s->ctx : dv->slot[ch->slot].ctx));
}

static void note_failure(const gala_qp_solver *o, const qp_chunk *ch, int c, const char *fn,
                         gala_status st, gala_status *first, char *msg, size_t cap)
{
    if (*first != GALA_OK) return;
    *first = st;
    fail_msg(o, ch, c, fn, msg, cap);
}

/* A public call forwarded to the chunks: k >= 0 the chunk of QP k (kk = k - k0), k = -1
 * every chunk (kk = -1), the one on the device first. For each chunk, before (NULL: bring it
 * to the device) sets *enter: 1 bring the chunk to the device (the one there is parked),
 * 0 leave it where it is, -1 skip it; then call runs with the buffers it makes tagged with
 * the chunk. The first failure stops the loop and is returned, the chunk named. */
typedef gala_status (*chunk_before)(gala_qp_solver *o, int c, int kk, void *arg, int *enter);
typedef gala_status (*chunk_call)(gala_qp_solver *o, int c, int kk, void *arg);

static gala_status forward(gala_qp_solver *o, int k, const char *fn, chunk_before before,
                           chunk_call call, void *arg)
{
    struct qp_chunks *cs = o->chunks;
    sync_twins(cs);
    const int *ord = visit_order(cs);
    gala_status first = GALA_OK;
    char msg[512] = "";
    const int one = k >= 0 ? chunk_of(cs, k) : -1;
    for (int i = 0; i < (k >= 0 ? 1 : cs->n); ++i) {
        const int c = k >= 0 ? one : ord[i];
        qp_chunk *ch = &cs->c[c];
        const int kk = k >= 0 ? k - ch->k0 : -1;
        int enter = 1;
        gala_status st = before ? before(o, c, kk, arg, &enter) : GALA_OK;
        if (enter < 0) continue;
        if (st == GALA_OK && enter) st = chunk_enter(o, c);
        if (st == GALA_OK) {
            const void *was = own(ch->s);
            st = call(o, c, kk, arg);
            own_end(ch->s, was);
        }
        if (st != GALA_OK) {
            note_failure(o, ch, c, fn, st, &first, msg, sizeof msg);
            break;
        }
    }
    if (first != GALA_OK) return gala_error(o->ctx, first, "%s", msg);
    return GALA_OK;
}

static gala_status check_k(const gala_qp_solver *s, int k, const char *fn)
{
    if (k < -1 || k >= s->count)
        return gala_error(s->ctx, GALA_ERR_INVALID_ARG, "%s: k = %d outside -1..%d", fn, k,
                          s->count - 1);
    return GALA_OK;
}

/* The update time of the last update call, as every chunk's info reports it. */
static void set_update_time(gala_qp_solver *o, double t)
{
    o->update_time = t;
    for (int c = 0; c < o->chunks->n; ++c) o->chunks->c[c].s->update_time = t;
}

/* ------------------------------------------------------------------ setup */

/* The solver of chunk c from the batch's validation (per QP: info, statuses, sizes, slots,
 * scan), with the reference QP appended hidden when the chunk comes after it and has valid
 * QPs; then its setup's other phases (gala_qp_setup_build) with the batch's strategy. */
static gala_status chunk_make(gala_qp_solver *o, const gala_qp_problem *pb, const qp_scan *scan,
                              int same_data, int c, const qp_linsys_ops *ops, int set_linsys)
{
    struct qp_chunks *cs = o->chunks;
    qp_chunk *ch = &cs->c[c];
    const int k0 = ch->k0, nvis = ch->k1 - ch->k0, ref = cs->ref;
    const int shared = ops == &gala_qp_linsys_shared;
    int valid = 0;
    for (int k = k0; k < ch->k1; ++k) valid += o->slot[k] >= 0;
    const int ph = valid > 0 && ref < k0;
    ch->phantom = ph;
    gala_qp_solver *in = gala_calloc(1, sizeof *in);
    qp_slot *slot = &cs->dev[ch->dev].slot[ch->slot];
    gala_context *dctx = slot->ctx; /* its messages: the call may be on a thread */
    if (!in) return gala_error(dctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    ch->s = in;
    in->ctx = dctx;
    in->set = o->set;
    in->set.progress = NULL;
    in->set.progress_user = NULL;
    if (set_linsys) in->set.linsys_solver = ops->id;
    in->dt = o->dt;
    in->dualgap = o->dualgap;
    in->refine = o->refine;
    in->k_factored = gala_tuned(dctx, o->dt)->qp.factor == 2; /* its device's tuning */
    in->nthreads = o->nthreads;
    in->prof_mark = gala_now();
    in->count = nvis + ph;
    in->nvis = nvis;
    GALA_TRY(gala_qp_alloc_per_qp(in));
    size_t xo = 0, yo = 0;
    for (int i = 0; i < in->count; ++i) {
        const int k = i < nvis ? k0 + i : ref;
        in->info[i] = o->info[k];
        in->host_status[i] = i < nvis ? o->host_status[k] : GALA_QP_INVALID_DATA;
        in->c0[i] = o->c0[k];
        in->slot[i] = -1;
        in->res.cert_offset[i] = SIZE_MAX;
        in->qp_n[i] = i < nvis ? o->qp_n[k] : 0;
        in->qp_m[i] = i < nvis ? o->qp_m[k] : 0;
        in->res.x_offset[i] = xo;
        in->res.y_offset[i] = yo;
        xo += (size_t)in->qp_n[i];
        yo += (size_t)in->qp_m[i];
    }
    ch->nx = xo;
    ch->ny = yo;
    if (ph) {
        in->info[nvis].status = GALA_QP_INVALID_DATA;
        snprintf(in->info[nvis].message, sizeof in->info[nvis].message, "hidden reference QP");
    }
    int nsl = 0;
    if (ph && shared) { /* the shared reference: slot 0, whose scaling every QP takes */
        in->slot[nvis] = nsl;
        in->qp_of[nsl++] = nvis;
        in->hidden_slot = 1;
    }
    for (int i = 0; i < nvis; ++i)
        if (o->slot[k0 + i] >= 0) {
            in->slot[i] = nsl;
            in->qp_of[nsl++] = i;
        }
    in->nvalid = nsl;
    qp_scan *sc = gala_malloc(sizeof *sc * (size_t)in->count);
    gala_qp_problem *tmp = ph ? gala_malloc(sizeof *tmp * (size_t)in->count) : NULL;
    if (cs->bins && nsl) {
        in->plan_bins = cs->bins;
        in->plan_nb = cs->nb;
        in->plan_class = gala_malloc(sizeof(int) * (size_t)nsl);
    }
    if (!sc || (ph && !tmp) || (cs->bins && nsl && !in->plan_class)) {
        gala_free(sc);
        gala_free(tmp);
        return gala_error(dctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    for (int i = 0; i < in->count; ++i) sc[i] = scan[i < nvis ? k0 + i : ref];
    for (int sl = 0; in->plan_class && sl < nsl; ++sl) {
        const int i = in->qp_of[sl];
        in->plan_class[sl] = i < nvis ? cs->bin_of[o->slot[k0 + i]] : 0;
    }
    const gala_qp_problem *ipb = pb + k0;
    if (ph) {
        memcpy(tmp, pb + k0, sizeof *tmp * (size_t)nvis);
        tmp[nvis] = pb[ref];
        ipb = tmp;
    }
    const int iref = ref >= k0 && ref < ch->k1 ? ref - k0 : (ph ? nvis : 0);
    const void *was = own(in);
    gala_status st = gala_qp_setup_build(in, ipb, sc, iref, same_data, ops);
    own_end(in, was);
    gala_free(sc);
    gala_free(tmp);
    if (st == GALA_OK && in->nvalid) slot->on_device = c;
    return st;
}

/* The making of the chunks c0 .. c1 - 1 of device d that live in slot `slot` (-1: every
 * slot), one after another (the one in the slot before parked first); the first failure in
 * st, with its message naming the chunk (and the device). */
typedef struct {
    gala_qp_solver *o;
    const gala_qp_problem *pb;
    const qp_scan *scan;
    int same_data;
    const qp_linsys_ops *ops;
    int set_linsys;
    int d, slot, c0, c1;
    gala_status st;
    char msg[512];
} setup_job;

static void setup_chunks(setup_job *j)
{
    struct qp_chunks *cs = j->o->chunks;
    const qp_dev *dv = &cs->dev[j->d];
    for (int c = j->c0; j->st == GALA_OK && c < j->c1; ++c) {
        if (j->slot >= 0 && cs->c[c].slot != j->slot) continue;
        const int there = dv->slot[cs->c[c].slot].on_device;
        gala_status st = GALA_OK;
        if (there >= 0) st = chunk_park(j->o, there);
        if (st == GALA_OK) st = chunk_make(j->o, j->pb, j->scan, j->same_data, c, j->ops, j->set_linsys);
        if (st != GALA_OK) {
            j->st = st;
            fail_msg(j->o, &cs->c[c], c, "gala_qp_setup", j->msg, sizeof j->msg);
        }
    }
}

static void *setup_thread(void *arg)
{
    setup_job *j = arg;
    setup_chunks(j);
    return NULL;
}

/* The chunks from c_from on, each slot's of each device on a thread of its own (the caller's
 * thread takes the first); the first failure in device order is the call's, with its
 * message on s->ctx. */
static gala_status setup_devices(gala_qp_solver *s, const gala_qp_problem *pb, const qp_scan *scan,
                                 int same_data, const qp_linsys_ops *ops, int c_from)
{
    struct qp_chunks *cs = s->chunks;
    const int nj = 2 * cs->ndev;
    setup_job *jobs = gala_calloc((size_t)nj, sizeof *jobs);
    pthread_t *th = gala_calloc((size_t)nj, sizeof *th);
    int *started = gala_calloc((size_t)nj, sizeof *started);
    if (!jobs || !th || !started) {
        gala_free(jobs);
        gala_free(th);
        gala_free(started);
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    for (int i = 0; i < nj; ++i) {
        setup_job *j = &jobs[i];
        const qp_dev *dv = &cs->dev[i / 2];
        j->o = s;
        j->pb = pb;
        j->scan = scan;
        j->same_data = same_data;
        j->ops = ops;
        j->set_linsys = 1;
        j->d = i / 2;
        j->slot = i % 2;
        j->c0 = dv->c0 > c_from ? dv->c0 : c_from;
        j->c1 = i % 2 < dv->nslot ? dv->c1 : j->c0; /* a device of one slot: no second job */
    }
    for (int i = 1; i < nj; ++i)
        if (jobs[i].c1 > jobs[i].c0)
            started[i] = pthread_create(&th[i], NULL, setup_thread, &jobs[i]) == 0;
    setup_chunks(&jobs[0]);
    for (int i = 1; i < nj; ++i) {
        if (started[i]) pthread_join(th[i], NULL);
        else setup_chunks(&jobs[i]);
    }
    gala_status st = GALA_OK;
    for (int i = 0; i < nj && st == GALA_OK; ++i)
        if (jobs[i].st != GALA_OK) st = gala_error(s->ctx, jobs[i].st, "%s", jobs[i].msg);
    gala_free(jobs);
    gala_free(th);
    gala_free(started);
    return st;
}

/* Whether parked chunks of QPs k0 .. k1 - 1 on ctx's device keep their dense K (dense: the
 * strategy may be the dense one): where the device's tuning says so (qp.park_k: where
 * factoring is slower than a copy in host memory, the host backend and OpenCL CPUs) and
 * their K fit in a quarter of the host's memory. Dropped or kept, K has the same bits. */
static int keep_k(const gala_qp_solver *s, const gala_context *ctx, int k0, int k1, int dense)
{
    if (!dense || !gala_tuned(ctx, s->dt)->qp.park_k) return 0;
    const size_t host = gala_host_memory_bytes();
    if (!host) return 0;
    double kb = 0;
    for (int k = k0; k < k1; ++k)
        if (s->slot[k] >= 0) kb += (double)kalign((size_t)s->qp_n[k] * (size_t)s->qp_n[k]);
    kb *= (double)gala_dtype_size(s->dt);
    return kb <= 0.25 * (double)host;
}

/* Whether two contexts' devices are of one kind: the same backend and, but on the host
 * backend (whose thread count changes no result), the same device. */
static int same_kind(const gala_context *a, const gala_context *b)
{
    return a->ops->backend == b->ops->backend &&
           (a->ops->backend == GALA_BACKEND_HOST ||
            !strcmp(a->info.device_name, b->info.device_name));
}

/* The batch's devices (one per context), on s->chunks. */
static gala_status devices_make(gala_qp_solver *s, gala_context *const *ctxs, int nctx, int nch)
{
    struct qp_chunks *cs = gala_calloc(1, sizeof *cs);
    if (cs) {
        cs->c = gala_calloc((size_t)nch, sizeof *cs->c);
        cs->ord = gala_calloc((size_t)nch, sizeof *cs->ord);
        cs->dev = gala_calloc((size_t)nctx, sizeof *cs->dev);
    }
    int mu = 0;
    if (!cs || !cs->c || !cs->ord || !cs->dev || !(mu = !pthread_mutex_init(&cs->mu, NULL)) ||
        pthread_cond_init(&cs->cv, NULL)) {
        if (mu) pthread_mutex_destroy(&cs->mu);
        if (cs) {
            gala_free(cs->c);
            gala_free(cs->ord);
            gala_free(cs->dev);
        }
        gala_free(cs);
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    s->chunks = cs;
    cs->n = nch;
    cs->ndev = nctx;
    for (int d = 0; d < nctx; ++d) {
        cs->dev[d].ctx = ctxs[d];
        cs->dev[d].nslot = 1;
        for (int k = 0; k < 2; ++k) {
            cs->dev[d].slot[k].ctx = ctxs[d];
            cs->dev[d].slot[k].on_device = -1;
        }
    }
    return GALA_OK;
}

gala_status gala_qp_chunked_setup(gala_qp_solver *s, const gala_qp_problem *pb, const qp_scan *scan,
                                  int ref, int same_data, gala_context *const *ctxs, int nctx,
                                  const double *weights, int *one)
{
    *one = 1;
    if (s->nvalid == 0) return GALA_OK; /* nothing to solve: one batch on the first device */
    /* the strategy, as gala_qp_linsys_choose decides it for the whole batch; AUTO's sparse
     * candidate is decided by the first chunk with valid QPs (a cost estimate over its
     * patterns) and kept for the others */
    const qp_linsys_ops *ops = NULL;
    int maxn = 0, decide = 0;
    for (int k = 0; k < s->count; ++k)
        if (s->slot[k] >= 0 && s->qp_n[k] > maxn) maxn = s->qp_n[k];
    switch (s->set.linsys_solver) {
    case GALA_QP_LINSYS_DENSE: ops = &gala_qp_linsys_dense; break;
    case GALA_QP_LINSYS_SPARSE_LDLT: ops = &gala_qp_linsys_sparse; break;
    case GALA_QP_LINSYS_PCG: ops = &gala_qp_linsys_pcg; break;
    case GALA_QP_LINSYS_DENSE_SHARED: ops = &gala_qp_linsys_shared; break;
    default:
        if (s->nvalid > 1 && same_data) ops = &gala_qp_linsys_shared;
        else if (maxn >= (int)gala_tuned(s->ctx, s->dt)->qp.sparse_n) {
            ops = &gala_qp_linsys_sparse;
            decide = 1;
        } else {
            ops = &gala_qp_linsys_dense;
        }
    }
    const int lin = decide ? GALA_QP_LINSYS_DENSE : ops->id; /* the estimate's strategy */
    /* the devices' shares, then each share's chunks on its device */
    int *bounds = gala_malloc(sizeof(int) * ((size_t)s->count + 1));
    int *at = gala_malloc(sizeof(int) * ((size_t)nctx + 1));
    int *cat = gala_malloc(sizeof(int) * ((size_t)nctx + 1));
    int *slots = gala_malloc(sizeof(int) * (size_t)nctx);
    if (!bounds || !at || !cat || !slots) {
        gala_free(bounds);
        gala_free(at);
        gala_free(cat);
        gala_free(slots);
        return gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
    }
    split_devices(s, nctx, weights, at);
    int nch = 0;
    bounds[0] = 0;
    for (int d = 0; d < nctx; ++d) {
        cat[d] = nch;
        plan_chunks(s, ctxs[d], at[d], at[d + 1], pb, scan, ref, lin, 1, bounds, &nch);
        /* a share in several chunks: two on the device at once, each in half the room, so
         * that one comes and goes while the other iterates */
        slots[d] = nch - cat[d] > 1 ? (int)gala_tuned(ctxs[d], s->dt)->qp.chunk_slots : 1;
        if (slots[d] > 1) {
            nch = cat[d];
            plan_chunks(s, ctxs[d], at[d], at[d + 1], pb, scan, ref, lin, slots[d], bounds, &nch);
        }
    }
    cat[nctx] = nch;
    gala_status st = GALA_OK;
    if (nch <= 1 && nctx == 1) {
        *one = 1;
    } else if (ops == &gala_qp_linsys_shared && s->nvalid > 1 && !same_data) {
        st = gala_error(s->ctx, GALA_ERR_INVALID_ARG, "gala_qp_setup: DENSE_SHARED needs the "
                        "same P, A and row kinds (equality / inequality / free) in every QP");
    } else {
        *one = 0;
        st = devices_make(s, ctxs, nctx, nch);
    }
    if (st != GALA_OK || *one) {
        gala_free(bounds);
        gala_free(at);
        gala_free(cat);
        gala_free(slots);
        return st;
    }
    struct qp_chunks *cs = s->chunks;
    cs->ref = ref;
    size_t po = 0, ao = 0;
    for (int d = 0; d < nctx; ++d) {
        qp_dev *dv = &cs->dev[d];
        dv->c0 = cat[d];
        dv->c1 = cat[d + 1];
        dv->k0 = at[d];
        dv->k1 = at[d + 1];
        if (slots[d] > 1) {
            /* the second slot's context: a twin of the device's (where the backend has none,
             * the chunks, cut for two, go one after another) */
            gala_context *tw = NULL;
            if (gala_context_twin(ctxs[d], &tw) == GALA_OK) {
                dv->nslot = 2;
                dv->slot[1].ctx = tw;
                dv->slot[1].twin = 1;
            } else {
                gala_error_clear(ctxs[d]);
            }
        }
        for (int c = cat[d]; c < cat[d + 1]; ++c) {
            cs->c[c].dev = d;
            cs->c[c].slot = (c - cat[d]) % dv->nslot;
        }
        dv->keep_k = keep_k(s, ctxs[d], at[d], at[d + 1], ops == &gala_qp_linsys_dense || decide);
        dv->pinned = (int)gala_tuned(ctxs[d], s->dt)->qp.park_pinned;
    }
    gala_free(slots);
    for (int c = 0; c < nch; ++c) {
        qp_chunk *ch = &cs->c[c];
        ch->k0 = bounds[c];
        ch->k1 = bounds[c + 1];
        ch->xo = s->res.x_offset[ch->k0];
        ch->yo = s->res.y_offset[ch->k0];
        ch->po = po;
        ch->ao = ao;
        for (int k = ch->k0; k < ch->k1; ++k)
            if (s->slot[k] >= 0) {
                po += (size_t)pb[k].P.p[pb[k].n];
                ao += (size_t)pb[k].A.p[pb[k].n];
            }
    }
    gala_free(bounds);
    gala_free(at);
    gala_free(cat);
    cs->ref_chunk = chunk_of(cs, ref);
    /* the dense strategy's launch classes of the whole batch (merge_small groups small
     * classes by the batch's composition), made for the first device's kind: devices of
     * another kind make their chunks' own (their results are not the first device's bit
     * for bit anyway) */
    int one_kind = 1;
    for (int d = 1; d < nctx; ++d) one_kind &= same_kind(ctxs[0], ctxs[d]);
    if ((ops == &gala_qp_linsys_dense || decide) && one_kind) {
        const size_t nv = (size_t)s->nvalid;
        int *nm = gala_malloc(sizeof(int) * 2 * nv);
        cs->bin_of = gala_malloc(sizeof(int) * nv);
        if (!nm || !cs->bin_of)
            st = gala_error(s->ctx, GALA_ERR_OUT_OF_MEMORY, "gala_qp_setup: no host memory");
        for (size_t sl = 0; st == GALA_OK && sl < nv; ++sl) {
            nm[sl] = s->qp_n[s->qp_of[sl]];
            nm[nv + sl] = s->qp_m[s->qp_of[sl]];
        }
        if (st == GALA_OK)
            st = gala_qp_dense_classes(s, nm, nm + nv, (int)nv, &cs->bins, &cs->nb, cs->bin_of);
        gala_free(nm);
    }
    cs->linsys = ops->id;
    /* AUTO's sparse candidate is decided by the first chunk with valid QPs: the chunks up to
     * it are made first, on the caller's thread; then each device makes the rest of its
     * chunks, on a thread of its own when there are several */
    int made = 0;
    while (st == GALA_OK && decide && made < nch) {
        setup_job j = {s, pb, scan, same_data, ops, 0, cs->c[made].dev, -1, made, made + 1,
                       GALA_OK, ""};
        setup_chunks(&j);
        st = j.st;
        if (st != GALA_OK) gala_error(s->ctx, st, "%s", j.msg);
        gala_qp_solver *in = cs->c[made++].s;
        if (st == GALA_OK && in->nvalid) {
            ops = in->ls->ops;
            cs->linsys = ops->id;
            decide = 0;
        }
    }
    if (st == GALA_OK && made < nch) st = setup_devices(s, pb, scan, same_data, ops, made);
    if (st != GALA_OK) return st;
    s->prof_mark = gala_now(); /* the chunks' phases are their own profiles' */
    /* the batch's per-QP arrays live in the chunks now */
    void *ptrs[] = {s->info, s->host_status, s->slot, s->qp_of, s->qp_n, s->c0,
                    s->res.x_offset, s->res.cert_offset};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; ++i) gala_free(ptrs[i]);
    s->info = NULL;
    s->host_status = s->slot = s->qp_of = s->qp_n = s->qp_m = NULL;
    s->c0 = NULL;
    s->res.x_offset = s->res.y_offset = s->res.cert_offset = NULL;
    return GALA_OK;
}

void gala_qp_chunked_setup_time(gala_qp_solver *s)
{
    for (int c = 0; c < s->chunks->n; ++c) {
        gala_qp_solver *in = s->chunks->c[c].s;
        in->setup_time = s->setup_time;
        for (int k = 0; k < in->count; ++k) in->info[k].setup_time = s->setup_time;
    }
}

void gala_qp_chunks_free(gala_qp_solver *s)
{
    struct qp_chunks *cs = s->chunks;
    if (!cs) return;
    for (int c = 0; c < cs->n; ++c) gala_qp_destroy(cs->c[c].s);
    for (int d = 0; d < cs->ndev; ++d)
        if (cs->dev[d].slot[1].twin) gala_context_destroy(cs->dev[d].slot[1].ctx);
    gala_free(cs->c);
    gala_free(cs->ord);
    gala_free(cs->dev);
    pthread_mutex_destroy(&cs->mu);
    pthread_cond_destroy(&cs->cv);
    gala_free(cs->bins);
    gala_free(cs->bin_of);
    gala_free(cs);
    s->chunks = NULL;
}

int gala_qp_chunked_linsys(const gala_qp_solver *s) { return s->chunks->linsys; }
int gala_qp_chunked_count(const gala_qp_solver *s) { return s->chunks->n; }
int gala_qp_chunked_ndev(const gala_qp_solver *s) { return s->chunks->ndev; }

void gala_qp_chunked_pipeline(const gala_qp_solver *s, int d, int *slots, int *keep_k)
{
    *slots = s->chunks->dev[d].nslot;
    *keep_k = s->chunks->dev[d].keep_k;
}

void gala_qp_chunked_part(const gala_qp_solver *s, int d, int *k0, int *count, int *chunks)
{
    const qp_dev *dv = &s->chunks->dev[d];
    *k0 = dv->k0;
    *count = dv->k1 - dv->k0;
    *chunks = dv->c1 - dv->c0;
}

/* ------------------------------------------------------------------ solve */

/* The caller's progress callback, told the batch's counts: QPs of the chunks solved before
 * on every device, and those the devices' current chunks finished (hidden QPs excluded);
 * the iteration of the calling chunk. Several devices call it from their threads, one at a
 * time. A stop asked for in one chunk stops the others at their next check. */
static int chunk_progress(void *user, int done, int total, int iteration)
{
    (void)total;
    qp_dev *dv = user;
    gala_qp_solver *o = dv->o;
    struct qp_chunks *cs = o->chunks;
    pthread_mutex_lock(&cs->mu);
    dv->part = done - cs->c[dv->cur].phantom;
    int sum = 0;
    for (int d = 0; d < cs->ndev; ++d) sum += cs->dev[d].done + cs->dev[d].part;
    int stop = cs->stop;
    if (!stop && o->set.progress(o->set.progress_user, sum, o->count, iteration)) cs->stop = 1;
    stop = cs->stop;
    pthread_mutex_unlock(&cs->mu);
    return stop;
}

/* Chunk c's QPs after a failed solve of it: UNSOLVED, no solution (rejected and non-convex
 * ones keep their status). */
static void chunk_failed(qp_chunk *ch)
{
    gala_qp_solver *in = ch->s;
    ch->failed = 1;
    for (int i = 0; i < in->nvis; ++i) {
        gala_qp_info *f = &in->info[i];
        if (in->slot[i] < 0 || in->host_status[i] || f->status == GALA_QP_NON_CVX) continue;
        f->status = GALA_QP_UNSOLVED;
        f->iter = f->rho_updates = 0;
        f->status_polish = 0;
        f->obj_val = f->dual_obj_val = f->prim_res = f->dual_res = f->duality_gap = NAN;
    }
}

/* The turns of a device's chunks (pipelined in two slots): the chunk at position p of the
 * device's order iterates once the one at p - 1 has finished, so that iterations run one
 * chunk at a time, in order, while the other slot's chunk comes to the device and is
 * factored. Every position passes the turn on, failed or not. */
static void turn_wait(struct qp_chunks *cs, qp_dev *dv, int p)
{
    pthread_mutex_lock(&cs->mu);
    while (dv->turn < p) pthread_cond_wait(&cs->cv, &cs->mu);
    pthread_mutex_unlock(&cs->mu);
}

static void turn_pass(struct qp_chunks *cs, qp_dev *dv, int next)
{
    pthread_mutex_lock(&cs->mu);
    dv->turn = next;
    pthread_cond_broadcast(&cs->cv);
    pthread_mutex_unlock(&cs->mu);
}

/* The chunks of slot `which` (-1: every slot) at the positions of ord (n of them, the
 * device's order), in order: each one brought to the device (the slot's chunk before
 * parked) and its dropped K factored again, then, at its turn, iterated and its results
 * collected. A failure marks the chunk's QPs UNSOLVED and is kept in its slot's st (the
 * first one, by position). */
static void slot_run(qp_dev *dv, const int *ord, int n, int which)
{
    static const char fn[] = "gala_qp_solve";
    gala_qp_solver *o = dv->o;
    struct qp_chunks *cs = o->chunks;
    const gala_qp_settings *set = &o->set;
    const int timed = set->time_limit > 0 && set->time_limit < 1e9;
    for (int p = 0; p < n; ++p) {
        const int c = ord[p];
        qp_chunk *ch = &cs->c[c];
        if (which >= 0 && ch->slot != which) continue;
        qp_slot *sl = &dv->slot[ch->slot];
        gala_qp_solver *in = ch->s;
        gala_status st = chunk_enter(o, c);
        if (st == GALA_OK) {
            const void *was = own(in);
            st = gala_qp_solve_prepare(in);
            own_end(in, was);
        }
        turn_wait(cs, dv, p);
        if (st == GALA_OK) {
            /* the settings the caller may change between solves, and this call's limits */
            in->set.progress = set->progress ? chunk_progress : NULL;
            in->set.progress_user = dv;
            in->set.time_limit = set->time_limit;
            const double tc = gala_now() - dv->t0; /* the chunk's times count from the call */
            if (timed) {
                const double left = set->time_limit - tc;
                in->set.time_limit = left > 1e-9 ? left : 1e-9;
            }
            pthread_mutex_lock(&cs->mu);
            dv->cur = c;
            pthread_mutex_unlock(&cs->mu);
            const void *was = own(in);
            st = gala_qp_solve(in);
            own_end(in, was);
            for (int q = 0; st == GALA_OK && q < in->nvis; ++q)
                if (in->slot[q] >= 0) in->info[q].solve_time += tc;
            in->set.progress = NULL;
            in->set.progress_user = NULL;
        }
        if (st != GALA_OK) {
            if (sl->st == GALA_OK) sl->pos = p;
            note_failure(o, ch, c, fn, st, &sl->st, sl->msg, sizeof sl->msg);
            chunk_failed(ch);
        } else {
            ch->failed = 0;
        }
        pthread_mutex_lock(&cs->mu);
        dv->done += ch->k1 - ch->k0;
        dv->part = 0;
        pthread_mutex_unlock(&cs->mu);
        turn_pass(cs, dv, p + 1);
    }
}

typedef struct {
    qp_dev *dv;
    const int *ord;
    int n, which;
} slot_job;

static void *slot_thread(void *arg)
{
    slot_job *j = arg;
    slot_run(j->dv, j->ord, j->n, j->which);
    return NULL;
}

/* Device dv's part of a solve: its chunks in its order (dev_order), each slot's on a thread
 * of its own (the calling thread takes slot 0; where slot 1's thread cannot start, the
 * calling thread runs them all, one after another); its first failure, by position, in
 * dv->st, dv->msg. */
static void dev_solve(qp_dev *dv)
{
    gala_qp_solver *o = dv->o;
    struct qp_chunks *cs = o->chunks;
    const int d = (int)(dv - cs->dev);
    int *ord = cs->ord + dv->c0; /* this device's share of the order array */
    const int nc = dev_order(cs, d, ord);
    dv->st = GALA_OK;
    dv->msg[0] = 0;
    dv->turn = 0;
    for (int k = 0; k < dv->nslot; ++k) {
        dv->slot[k].xfer_solve = 0;
        dv->slot[k].st = GALA_OK;
        dv->slot[k].pos = INT_MAX;
        dv->slot[k].msg[0] = 0;
    }
    int started = 0;
    pthread_t th;
    slot_job j1 = {dv, ord, nc, 1};
    if (dv->nslot > 1 && nc > 1) started = pthread_create(&th, NULL, slot_thread, &j1) == 0;
    slot_run(dv, ord, nc, started ? 0 : -1);
    if (started) pthread_join(th, NULL);
    int first = -1;
    for (int k = 0; k < dv->nslot; ++k)
        if (dv->slot[k].st != GALA_OK && (first < 0 || dv->slot[k].pos < dv->slot[first].pos))
            first = k;
    if (first >= 0) {
        dv->st = dv->slot[first].st;
        memcpy(dv->msg, dv->slot[first].msg, sizeof dv->msg);
    }
}

static void *dev_thread(void *arg)
{
    dev_solve(arg);
    return NULL;
}

/* Every device's part, each on a thread of its own when there are several (the caller's
 * thread takes the first); a device whose thread cannot start is solved on the caller's
 * thread after the others. The first failure in device order is the call's. */
gala_status gala_qp_chunked_solve(gala_qp_solver *o)
{
    struct qp_chunks *cs = o->chunks;
    const double t0 = gala_now();
    o->solved = 0;
    o->in_solve = 1;
    cs->stop = 0;
    sync_twins(cs);
    for (int d = 0; d < cs->ndev; ++d) {
        cs->dev[d].o = o;
        cs->dev[d].t0 = t0;
        cs->dev[d].done = cs->dev[d].part = 0;
        cs->dev[d].cur = cs->dev[d].c0;
    }
    enum { MAXT = 64 };
    pthread_t th[MAXT];
    int started[MAXT] = {0};
    for (int d = 1; d < cs->ndev && d < MAXT; ++d)
        if (cs->dev[d].c1 > cs->dev[d].c0)
            started[d] = pthread_create(&th[d], NULL, dev_thread, &cs->dev[d]) == 0;
    if (cs->dev[0].c1 > cs->dev[0].c0) dev_solve(&cs->dev[0]);
    else cs->dev[0].st = GALA_OK;
    for (int d = 1; d < cs->ndev; ++d) {
        if (d < MAXT && started[d]) pthread_join(th[d], NULL);
        else if (cs->dev[d].c1 > cs->dev[d].c0) dev_solve(&cs->dev[d]);
        else cs->dev[d].st = GALA_OK;
    }
    o->in_solve = 0;
    o->solved = 1; /* the other chunks' results stand */
    for (int d = 0; d < cs->ndev; ++d)
        if (cs->dev[d].st != GALA_OK) return gala_error(o->ctx, cs->dev[d].st, "%s", cs->dev[d].msg);
    return GALA_OK;
}

/* ------------------------------------------------------------------ results */

gala_status gala_qp_chunked_get_info(const gala_qp_solver *o, int k, gala_qp_info *info)
{
    static const char fn[] = "gala_qp_get_info";
    if (!info) return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: info is NULL", fn);
    if (k < 0 || k >= o->count)
        return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: k = %d outside 0..%d", fn, k,
                          o->count - 1);
    const qp_chunk *ch = &o->chunks->c[chunk_of(o->chunks, k)];
    return gala_qp_get_info(ch->s, k - ch->k0, info);
}

gala_status gala_qp_chunked_get_infos(const gala_qp_solver *o, int k0, int count,
                                      gala_qp_info *infos)
{
    static const char fn[] = "gala_qp_get_infos";
    if (!infos && count > 0) return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: infos is NULL", fn);
    if (k0 < 0 || count < 0 || k0 > o->count - count)
        return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: QPs %d..%d outside 0..%d", fn, k0,
                          k0 + count - 1, o->count - 1);
    for (int k = k0; k < k0 + count;) {
        const qp_chunk *ch = &o->chunks->c[chunk_of(o->chunks, k)];
        const int n = (ch->k1 < k0 + count ? ch->k1 : k0 + count) - k;
        GALA_TRY(gala_qp_get_infos(ch->s, k - ch->k0, n, infos + (k - k0)));
        k += n;
    }
    return GALA_OK;
}

gala_status gala_qp_chunked_get_solution(const gala_qp_solver *o, int k, const double **x,
                                         const double **y, const double **pcert,
                                         const double **dcert)
{
    static const char fn[] = "gala_qp_get_solution";
    if (k < 0 || k >= o->count)
        return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: k = %d outside 0..%d", fn, k,
                          o->count - 1);
    if (!o->solved) return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: not solved yet", fn);
    const qp_chunk *ch = &o->chunks->c[chunk_of(o->chunks, k)];
    if (ch->failed) { /* its QPs were not solved: no solution, no certificate */
        const double *nan = ch->s->res.nan_vec;
        if (x) *x = nan;
        if (y) *y = nan;
        if (pcert) *pcert = nan;
        if (dcert) *dcert = nan;
        return GALA_OK;
    }
    return gala_qp_get_solution(ch->s, k - ch->k0, x, y, pcert, dcert);
}

gala_status gala_qp_chunked_get_solutions(const gala_qp_solver *o, double *x, double *y)
{
    static const char fn[] = "gala_qp_get_solutions";
    if (!o->solved) return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: not solved yet", fn);
    for (int c = 0; c < o->chunks->n; ++c) {
        const qp_chunk *ch = &o->chunks->c[c];
        double *cx = x ? x + ch->xo : NULL, *cy = y ? y + ch->yo : NULL;
        if (ch->failed) {
            for (size_t i = 0; cx && i < ch->nx; ++i) cx[i] = NAN;
            for (size_t i = 0; cy && i < ch->ny; ++i) cy[i] = NAN;
            continue;
        }
        GALA_TRY(gala_qp_get_solutions(ch->s, cx, cy));
    }
    return GALA_OK;
}

gala_status gala_qp_chunked_get_profile(const gala_qp_solver *o, gala_qp_profile *p)
{
    const struct qp_chunks *cs = o->chunks;
    *p = o->prof; /* validation, on the batch */
    for (int c = 0; c < cs->n; ++c) {
        const gala_qp_profile *q = &cs->c[c].s->prof;
        for (int i = 0; i < GALA_QP_NPHASES; ++i) {
            p->seconds[i] += q->seconds[i];
            p->calls[i] += q->calls[i];
        }
    }
    if (o->set.profile) { /* parking and unparking: with the uploads, with the solve's rest */
        for (int d = 0; d < cs->ndev; ++d) { /* summed over the devices */
            for (int k = 0; k < cs->dev[d].nslot; ++k) {
                p->seconds[GALA_QP_PHASE_UPLOAD] += cs->dev[d].slot[k].xfer_setup;
                p->seconds[GALA_QP_PHASE_SOLVE_OTHER] += cs->dev[d].slot[k].xfer_solve;
            }
        }
    }
    p->enabled = o->set.profile != 0;
    return GALA_OK;
}

/* ------------------------------------------------------------------ updates */

typedef struct {
    const double *a, *b, *c; /* q, l, u; Px, Ax; x, y */
    const gala_buffer *ba, *bb, *bc;
    size_t oa, ob, oc;
    int shared;
} fwd_args;

/* The device's copies change where a valid QP gets a vector (q, l, u or x, y). */
static gala_status vec_before(gala_qp_solver *o, int c, int kk, void *arg, int *enter)
{
    const fwd_args *a = arg;
    const gala_qp_solver *in = o->chunks->c[c].s;
    *enter = (a->a || a->b || a->c) && in->nvalid && (kk < 0 || in->slot[kk] >= 0);
    return GALA_OK;
}

static gala_status update_vectors_call(gala_qp_solver *o, int c, int kk, void *arg)
{
    const fwd_args *a = arg;
    const qp_chunk *ch = &o->chunks->c[c];
    return kk >= 0 ? gala_qp_update_vectors(ch->s, kk, a->a, a->b, a->c)
                   : gala_qp_update_vectors(ch->s, -1, a->a ? a->a + ch->xo : NULL,
                                            a->b ? a->b + ch->yo : NULL,
                                            a->c ? a->c + ch->yo : NULL);
}

gala_status gala_qp_chunked_update_vectors(gala_qp_solver *o, int k, const double *q,
                                           const double *l, const double *u)
{
    static const char fn[] = "gala_qp_update_vectors";
    GALA_TRY(check_k(o, k, fn));
    const double t0 = gala_now();
    fwd_args a = {.a = q, .b = l, .c = u};
    gala_status st = forward(o, k, fn, vec_before, update_vectors_call, &a);
    set_update_time(o, gala_now() - t0);
    return st;
}

/* The hidden reference QP of chunk c takes the reference's current host copies of q, l, u,
 * as the unchunked batch's slot 0 has them when a matrix update scales it again. */
static gala_status phantom_sync(gala_qp_solver *o, int c)
{
    struct qp_chunks *cs = o->chunks;
    const qp_chunk *rc = &cs->c[cs->ref_chunk];
    gala_qp_solver *r = rc->s, *in = cs->c[c].s;
    GALA_TRY(gala_qp_dio_host(r, QP_DIO_VECTORS));
    GALA_TRY(gala_qp_dio_host(in, QP_DIO_VECTORS));
    const int rsl = r->slot[cs->ref - rc->k0];
    const int *rm = r->meta + (size_t)rsl * QP_NMETA, *pm = in->meta; /* the hidden QP: slot 0 */
    const size_t n = (size_t)rm[QP_M_N], m = (size_t)rm[QP_M_M];
    memcpy(in->host.q + pm[QP_M_XO], r->host.q + rm[QP_M_XO], sizeof(double) * n);
    memcpy(in->host.l + pm[QP_M_ZO], r->host.l + rm[QP_M_ZO], sizeof(double) * m);
    memcpy(in->host.u + pm[QP_M_ZO], r->host.u + rm[QP_M_ZO], sizeof(double) * m);
    gala_qp_dio_host_changed(in);
    return GALA_OK;
}

/* The checks of gala_qp_update_matrices over the whole batch, before any chunk changes:
 * finite values, and in the shared strategy the same values in every QP. */
static gala_status check_matrices(gala_qp_solver *o, int k, const double *Px, const double *Ax)
{
    static const char fn[] = "gala_qp_update_matrices";
    struct qp_chunks *cs = o->chunks;
    const int shared = cs->linsys == GALA_QP_LINSYS_DENSE_SHARED;
    if (shared && k != -1)
        return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: the shared strategy updates every QP "
                          "at once (k = -1)", fn);
    size_t po = 0, ao = 0;
    const double *P0 = NULL, *A0 = NULL;
    int seen = 0;
    const int c0 = k >= 0 ? chunk_of(cs, k) : 0, c1 = k >= 0 ? c0 + 1 : cs->n;
    for (int c = c0; c < c1; ++c) {
        const qp_chunk *ch = &cs->c[c];
        const gala_qp_solver *in = ch->s;
        const int i0 = k >= 0 ? k - ch->k0 : 0, i1 = k >= 0 ? i0 + 1 : in->nvis;
        for (int i = i0; i < i1; ++i) {
            const int sl = in->slot[i];
            if (sl < 0) continue;
            const int *mt = in->meta + (size_t)sl * QP_NMETA;
            const int pn = mt[QP_M_PNZ], an = mt[QP_M_ANZ], kk = ch->k0 + i;
            for (int e = 0; Px && e < pn; ++e)
                if (!isfinite(Px[po + (size_t)e]))
                    return gala_error(o->ctx, GALA_ERR_NOT_FINITE, "%s: QP %d: P value %d is %g",
                                      fn, kk, e, Px[po + (size_t)e]);
            for (int e = 0; Ax && e < an; ++e)
                if (!isfinite(Ax[ao + (size_t)e]))
                    return gala_error(o->ctx, GALA_ERR_NOT_FINITE, "%s: QP %d: A value %d is %g",
                                      fn, kk, e, Ax[ao + (size_t)e]);
            if (shared) {
                if (!seen) {
                    P0 = Px ? Px + po : NULL;
                    A0 = Ax ? Ax + ao : NULL;
                    seen = 1;
                } else if ((Px && memcmp(Px + po, P0, sizeof(double) * (size_t)pn)) ||
                           (Ax && memcmp(Ax + ao, A0, sizeof(double) * (size_t)an))) {
                    return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: the shared strategy "
                                      "needs the same values in every QP (QP %d differs)", fn, kk);
                }
            }
            po += (size_t)pn;
            ao += (size_t)an;
        }
    }
    return GALA_OK;
}

/* Nothing on the device: skip; the shared strategy's hidden reference takes the reference's
 * vectors first (phantom_sync). */
static gala_status matrices_before(gala_qp_solver *o, int c, int kk, void *arg, int *enter)
{
    const fwd_args *a = arg;
    const qp_chunk *ch = &o->chunks->c[c];
    const gala_qp_solver *in = ch->s;
    if (!in->nvalid || (kk >= 0 && in->slot[kk] < 0)) {
        *enter = -1;
        return GALA_OK;
    }
    *enter = a->a || a->b;
    if (a->shared && ch->phantom && (a->a || a->b)) return phantom_sync(o, c);
    return GALA_OK;
}

static gala_status update_matrices_call(gala_qp_solver *o, int c, int kk, void *arg)
{
    const fwd_args *a = arg;
    const qp_chunk *ch = &o->chunks->c[c];
    gala_qp_solver *in = ch->s;
    /* (the solver clears its k_stale where every QP of the chunk was factored again) */
    return kk >= 0 ? gala_qp_update_matrices(in, kk, a->a, a->b)
                   : gala_qp_update_matrices(in, -1, a->a ? a->a + ch->po : NULL,
                                             a->b ? a->b + ch->ao : NULL);
}

gala_status gala_qp_chunked_update_matrices(gala_qp_solver *o, int k, const double *Px,
                                            const double *Ax)
{
    static const char fn[] = "gala_qp_update_matrices";
    GALA_TRY(check_k(o, k, fn));
    GALA_TRY(check_matrices(o, k, Px, Ax));
    const double t0 = gala_now();
    fwd_args a = {.a = Px, .b = Ax, .shared = o->chunks->linsys == GALA_QP_LINSYS_DENSE_SHARED};
    gala_status st = forward(o, k, fn, matrices_before, update_matrices_call, &a);
    set_update_time(o, gala_now() - t0);
    return st;
}

gala_status gala_qp_chunked_update_rho(gala_qp_solver *o, int k, double rho)
{
    static const char fn[] = "gala_qp_update_rho";
    GALA_TRY(check_k(o, k, fn));
    if (!(rho > 0) || !isfinite(rho))
        return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: rho = %g must be positive and finite",
                          fn, rho);
    struct qp_chunks *cs = o->chunks;
    /* ρ and the refactor flags live in small buffers: a parked chunk's host copies take
     * them (src/core/buffer.c), no chunk moves */
    const int c0 = k >= 0 ? chunk_of(cs, k) : 0, c1 = k >= 0 ? c0 + 1 : cs->n;
    for (int c = c0; c < c1; ++c) {
        qp_chunk *ch = &cs->c[c];
        gala_status st = gala_qp_update_rho(ch->s, k >= 0 ? k - ch->k0 : -1, rho);
        if (st != GALA_OK) {
            char msg[512];
            gala_status first = GALA_OK;
            note_failure(o, ch, c, fn, st, &first, msg, sizeof msg);
            return gala_error(o->ctx, first, "%s", msg);
        }
    }
    if (k < 0) o->set.rho = cs->c[0].s->set.rho;
    return GALA_OK;
}

gala_status gala_qp_chunked_update_settings(gala_qp_solver *o, const gala_qp_settings *n)
{
    static const char fn[] = "gala_qp_update_settings";
    gala_context *ctx = o->ctx;
    if (!n) return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: settings is NULL", fn);
    GALA_TRY(gala_qp_settings_validate(ctx, fn, n));
    GALA_TRY(gala_qp_settings_fixed_kept(ctx, fn, &o->set, n));
    struct qp_chunks *cs = o->chunks;
    for (int c = 0; c < cs->n; ++c)
        if (n->polishing && cs->c[c].s->nvalid && !cs->c[c].s->host.vals)
            return gala_error(ctx, GALA_ERR_INVALID_ARG, "%s: polishing can be turned on only in a "
                              "solver set up with it (the host copies of P and A it needs are "
                              "kept only then)", fn);
    o->set = *n;
    o->dualgap = gala_qp_dualgap_of(n);
    for (int c = 0; c < cs->n; ++c) {
        gala_qp_solver *in = cs->c[c].s;
        gala_qp_settings ns = *n;
        ns.linsys_solver = in->set.linsys_solver; /* the strategy the batch was given */
        ns.progress = NULL;
        ns.progress_user = NULL;
        in->set = ns;
        in->dualgap = o->dualgap;
    }
    return GALA_OK;
}

static gala_status warm_start_call(gala_qp_solver *o, int c, int kk, void *arg)
{
    const fwd_args *a = arg;
    const qp_chunk *ch = &o->chunks->c[c];
    return kk >= 0 ? gala_qp_warm_start(ch->s, kk, a->a, a->b)
                   : gala_qp_warm_start(ch->s, -1, a->a ? a->a + ch->xo : NULL,
                                        a->b ? a->b + ch->yo : NULL);
}

gala_status gala_qp_chunked_warm_start(gala_qp_solver *o, int k, const double *x, const double *y)
{
    static const char fn[] = "gala_qp_warm_start";
    GALA_TRY(check_k(o, k, fn));
    o->set.warm_starting = 1;
    fwd_args a = {.a = x, .b = y};
    return forward(o, k, fn, vec_before, warm_start_call, &a);
}

gala_status gala_qp_chunked_cold_start(gala_qp_solver *o)
{
    static const char fn[] = "gala_qp_cold_start";
    struct qp_chunks *cs = o->chunks;
    for (int c = 0; c < cs->n; ++c) { /* fills: a parked chunk's host copies take them */
        gala_status st = gala_qp_cold_start(cs->c[c].s);
        if (st != GALA_OK) {
            char msg[512];
            gala_status first = GALA_OK;
            note_failure(o, &cs->c[c], c, fn, st, &first, msg, sizeof msg);
            return gala_error(o->ctx, first, "%s", msg);
        }
    }
    return GALA_OK;
}

/* ------------------------------------------------------------------ device vectors */

static void batch_totals(const gala_qp_solver *o, size_t *hn, size_t *hm)
{
    const qp_chunk *last = &o->chunks->c[o->chunks->n - 1];
    *hn = last->xo + last->nx;
    *hm = last->yo + last->ny;
}

/* forward for the calls with the caller's device buffers (k = -1): where the device's
 * chunks live on a twin too, whose queue is not the caller's, the caller's work is finished
 * first (its writes of the inputs have landed) and the twin's at the end (its reads and
 * writes of the caller's buffers are done when the call returns, as on one queue). */
static gala_status forward_dev(gala_qp_solver *o, const char *fn, chunk_before before,
                               chunk_call call, void *arg)
{
    const qp_dev *dv = &o->chunks->dev[0];
    gala_context *tw = dv->nslot > 1 ? dv->slot[1].ctx : NULL;
    if (tw) GALA_TRY(gala_finish(o->ctx));
    gala_status st = forward(o, -1, fn, before, call, arg);
    const gala_status f = tw ? gala_finish(tw) : GALA_OK;
    if (st == GALA_OK && f != GALA_OK) st = gala_error(o->ctx, f, "%s: %s", fn, gala_last_error(tw));
    return st;
}

static gala_status update_vectors_device_call(gala_qp_solver *o, int c, int kk, void *arg)
{
    (void)kk;
    const fwd_args *a = arg;
    const qp_chunk *ch = &o->chunks->c[c];
    return gala_qp_update_vectors_device(ch->s, a->ba, a->oa + ch->xo, a->bb, a->ob + ch->yo,
                                         a->bc, a->oc + ch->yo);
}

gala_status gala_qp_chunked_update_vectors_device(gala_qp_solver *o, const gala_buffer *q,
                                                  size_t q_off, const gala_buffer *l,
                                                  size_t l_off, const gala_buffer *u,
                                                  size_t u_off)
{
    static const char fn[] = "gala_qp_update_vectors_device";
    if (o->chunks->ndev > 1)
        return gala_error(o->ctx, GALA_ERR_NOT_SUPPORTED, "%s: not on a batch set up on several "
                          "devices (its vectors live in several contexts)", fn);
    size_t hn, hm;
    batch_totals(o, &hn, &hm);
    GALA_TRY(gala_qp_check_vec(o, fn, "q", q, q_off, hn));
    GALA_TRY(gala_qp_check_vec(o, fn, "l", l, l_off, hm));
    GALA_TRY(gala_qp_check_vec(o, fn, "u", u, u_off, hm));
    const double t0 = gala_now();
    fwd_args a = {.ba = q, .bb = l, .bc = u, .oa = q_off, .ob = l_off, .oc = u_off};
    gala_status st = forward_dev(o, fn, NULL, update_vectors_device_call, &a);
    set_update_time(o, gala_now() - t0);
    return st;
}

/* A chunk whose solve failed has no solution on the device: NaN, without moving it. */
static gala_status solution_device_before(gala_qp_solver *o, int c, int kk, void *arg, int *enter)
{
    (void)kk;
    (void)arg;
    *enter = !o->chunks->c[c].failed;
    return GALA_OK;
}

static gala_status get_solution_device_call(gala_qp_solver *o, int c, int kk, void *arg)
{
    (void)kk;
    const fwd_args *a = arg;
    const qp_chunk *ch = &o->chunks->c[c];
    /* the caller's buffers, written: the const of fwd_args is the inputs' */
    gala_buffer *x = (gala_buffer *)a->ba, *y = (gala_buffer *)a->bb;
    if (!ch->failed) return gala_qp_get_solution_device(ch->s, x, a->oa + ch->xo, y, a->ob + ch->yo);
    gala_status st = GALA_OK;
    if (x && ch->nx) st = gala_buffer_fill(x, a->oa + ch->xo, ch->nx, NAN);
    if (st == GALA_OK && y && ch->ny) st = gala_buffer_fill(y, a->ob + ch->yo, ch->ny, NAN);
    return st;
}

gala_status gala_qp_chunked_get_solution_device(const gala_qp_solver *co, gala_buffer *x,
                                                size_t x_off, gala_buffer *y, size_t y_off)
{
    static const char fn[] = "gala_qp_get_solution_device";
    gala_qp_solver *o = (gala_qp_solver *)co; /* chunks move */
    if (o->chunks->ndev > 1)
        return gala_error(o->ctx, GALA_ERR_NOT_SUPPORTED, "%s: not on a batch set up on several "
                          "devices (its vectors live in several contexts)", fn);
    if (!o->solved) return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: not solved yet", fn);
    size_t hn, hm;
    batch_totals(o, &hn, &hm);
    GALA_TRY(gala_qp_check_vec(o, fn, "x", x, x_off, hn));
    GALA_TRY(gala_qp_check_vec(o, fn, "y", y, y_off, hm));
    if (x && y && gala_ranges_overlap(x, x_off, hn, y, y_off, hm))
        return gala_error(o->ctx, GALA_ERR_INVALID_ARG, "%s: the ranges of x and y overlap", fn);
    if (!x && !y) return GALA_OK;
    fwd_args a = {.ba = x, .bb = y, .oa = x_off, .ob = y_off};
    return forward_dev(o, fn, solution_device_before, get_solution_device_call, &a);
}

static gala_status warm_start_device_call(gala_qp_solver *o, int c, int kk, void *arg)
{
    (void)kk;
    const fwd_args *a = arg;
    const qp_chunk *ch = &o->chunks->c[c];
    return gala_qp_warm_start_device(ch->s, a->ba, a->oa + ch->xo, a->bb, a->ob + ch->yo);
}

gala_status gala_qp_chunked_warm_start_device(gala_qp_solver *o, const gala_buffer *x,
                                              size_t x_off, const gala_buffer *y, size_t y_off)
{
    static const char fn[] = "gala_qp_warm_start_device";
    if (o->chunks->ndev > 1)
        return gala_error(o->ctx, GALA_ERR_NOT_SUPPORTED, "%s: not on a batch set up on several "
                          "devices (its vectors live in several contexts)", fn);
    size_t hn, hm;
    batch_totals(o, &hn, &hm);
    GALA_TRY(gala_qp_check_vec(o, fn, "x", x, x_off, hn));
    GALA_TRY(gala_qp_check_vec(o, fn, "y", y, y_off, hm));
    o->set.warm_starting = 1;
    if (!x && !y) return GALA_OK;
    fwd_args a = {.ba = x, .bb = y, .oa = x_off, .ob = y_off};
    return forward_dev(o, fn, NULL, warm_start_device_call, &a);
}
