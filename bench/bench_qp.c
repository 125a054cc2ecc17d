/*
 * bench_qp: QPs per second of gala's batched ADMM solver (setup + solve, as OSQP's baseline
 * counts them) on batches of generated QPs, float and double, with JSON output; and a dump
 * of the same instances for bench/ref_osqp.py (format: bench/README.md).
 *
 *   bench_qp [--backend opencl|cuda|host] [--device D] [--json out.json] [--reps N] [--quick]
 *            [--family control,di] [--batches 1,100,1000,10000,100000] [--dtypes float,double]
 *            [--nx 10] [--horizon 37] [--seed 1] [--dump DIR] [--dump-count 2000] [--hetero]
 *            [--max-seconds 1800] [--threads N] [--breakdown] [--refine -1|0|1]
 *            [--linsys auto|dense|dense-shared|sparse-ldlt|pcg] [--share-matrices]
 *            [--max-chunk N] [--device-mem-limit BYTES] [--devices SETS] [--resolves N]
 *
 * Each family's largest batch is generated once (on all cores) and smaller batches take its
 * first QPs. Per family and dtype, a first call (batch 1, cold: kernel compilation or the
 * kernel cache) is timed and reported on its own; then every batch is timed warm, --reps
 * times (default 3 up to batch 10000, 2 above), and the best setup + solve is reported with
 * the median. --breakdown adds one more call per batch with settings.profile = 1 and prints
 * (and writes as "qp_phase" JSON rows) the time of every phase of setup and solve.
 * --threads sets gala_qp_settings.threads (0: automatic), --refine its refine (-1: the
 * default, on for float), --linsys its linsys_solver (default: AUTO for every family).
 * --share-matrices (di only): every QP of the batch is given the very P and A arrays of its
 * first QP, as a program that builds its controller once passes them (setup then validates
 * and compares them once); by default each QP has its own copy, compared by value.
 * --max-chunk and --device-mem-limit set the settings of the same names: a batch larger than
 * the device (or the limit) is solved in chunks (docs/qp.md); the result line and the JSON
 * row say how many ("chunks").
 * --resolves N: after the last timed call, its solver solves the batch N times more, each
 * time warm-started from its last solution (settings.warm_starting, the default), as a
 * program that solves the same QPs again after small changes does; the median of those
 * solves is reported ("resolve_s"): for a batch in chunks, what moving them costs.
 * --devices SETS: every batch is solved on each set of devices in turn, one batch divided
 * among a set's devices (gala_qp_setup_devices, same call and settings otherwise); sets are
 * separated by '/', each "all" or indices among the devices of --backend's backend as
 * gala-info lists them (an index repeated: another context on that device):
 * --devices 0/0,1 measures one GPU, then two, batch by batch. The
 * result line and the JSON row ("devices", "ndev") name the set. Without it, the batch is
 * set up by gala_qp_setup on the --backend/--device context.
 *
 * Families: control = OSQP's control/MPC benchmark (nx = 10: 160 variables, 270 rows), QP k
 * of a batch with seed + k, default settings (eps 1e-3, adaptive ρ); di = the double
 * integrator of Dyro's writeup from initial states drawn with the seed (shared P and A),
 * 200 fixed iterations (max_iter 200, check_termination 0, ρ = 10, no adaptive ρ), as the
 * OSQP baseline in gpu-baselines.md. --hetero adds a heterogeneous batch (control QPs with
 * nx = 2..31: 32 to 496 variables) and a uniform one of about the same total work (nx = 18).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "gqp_devices.h"
#include "gala/gala.h"

static double bu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    const char *family; /* "control", "di", "hetero", "uniform" */
    gala_dtype dt;
    long long batch;
    int shared_arrays; /* --share-matrices: P and A are the first QP's arrays */
} run_spec;

static double rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1.0p-53;
}

/* Generate QP k of a family's batch (deterministic in seed and k). */
static gala_status make_qp(const char *family, int nx, int horizon, uint64_t seed, long long k,
                           gala_qp_problem *p)
{
    if (!strcmp(family, "control")) return gala_qp_generate(GALA_QP_GEN_CONTROL, nx, seed + (uint64_t)k, p);
    if (!strcmp(family, "di")) {
        uint64_t s = seed * 1000003ULL + (uint64_t)k * 7919ULL + 1;
        rnd(&s);
        double pos = 4 * rnd(&s) - 2, vel = 2 * rnd(&s) - 1;
        return gala_qp_double_integrator(horizon, pos, vel, p);
    }
    if (!strcmp(family, "hetero")) {
        /* control QPs with nx uniform in 2..31: 32..496 variables */
        uint64_t s = seed * 7777ULL + (uint64_t)k;
        rnd(&s);
        int hx = 2 + (int)(rnd(&s) * 30);
        return gala_qp_generate(GALA_QP_GEN_CONTROL, hx, seed + (uint64_t)k, p);
    }
    /* uniform: the same count with nx = 18 (≈ the RMS of 2..31, so Σ n² matches) */
    return gala_qp_generate(GALA_QP_GEN_CONTROL, 18, seed + (uint64_t)k, p);
}

static void settings_for(const char *family, gala_dtype dt, gala_qp_settings *s)
{
    gala_qp_settings_default(s);
    s->dtype = dt;
    if (!strcmp(family, "di")) {
        s->max_iter = 200;
        s->check_termination = 0;
        s->adaptive_rho = GALA_QP_ADAPTIVE_RHO_DISABLED;
        s->rho = 10;
    }
}

/* ------------------------------------------------------------------ dump (README format) */
static int write_i32(FILE *f, const int *v, size_t n) { return fwrite(v, sizeof(int), n, f) == n ? 0 : -1; }
static int write_f64(FILE *f, const double *v, size_t n) { return fwrite(v, sizeof(double), n, f) == n ? 0 : -1; }

static int dump(const char *dir, const char *family, int nx, int horizon, uint64_t seed, int count)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.gqp", dir, family);
    FILE *f = fopen(path, "wb");
    if (!f) { fprintf(stderr, "cannot write %s\n", path); return -1; }
    int rc = fwrite("GALAQP1\n", 1, 8, f) == 8 ? 0 : -1;
    int32_t cnt = count;
    rc |= write_i32(f, &cnt, 1);
    for (int k = 0; k < count && !rc; ++k) {
        gala_qp_problem p;
        if (make_qp(family, nx, horizon, seed, k, &p) != GALA_OK) { rc = -1; break; }
        int hdr[4] = {p.n, p.m, p.P.p[p.n], p.A.p[p.n]};
        rc |= write_i32(f, hdr, 4);
        rc |= write_i32(f, p.P.p, (size_t)p.n + 1);
        rc |= write_i32(f, p.P.i, (size_t)hdr[2]);
        rc |= write_f64(f, p.P.x, (size_t)hdr[2]);
        rc |= write_f64(f, p.q, (size_t)p.n);
        rc |= write_i32(f, p.A.p, (size_t)p.n + 1);
        rc |= write_i32(f, p.A.i, (size_t)hdr[3]);
        rc |= write_f64(f, p.A.x, (size_t)hdr[3]);
        rc |= write_f64(f, p.l, (size_t)p.m);
        rc |= write_f64(f, p.u, (size_t)p.m);
        gala_qp_problem_free(&p);
    }
    if (fclose(f) != 0) rc = -1;
    if (!rc) fprintf(stderr, "wrote %d %s QPs to %s\n", count, family, path);
    return rc;
}

/* ------------------------------------------------------------------ generation */
/* The batch is generated once per family (the largest batch; smaller batches use its first
 * QPs), on several threads: the control generator's Riccati iteration takes ~0.4 ms per QP. */
typedef struct {
    const char *family;
    int nx, horizon, nthreads, tid, fail;
    uint64_t seed;
    long long count;
    gala_qp_problem *pb;
} gen_job;

static void *gen_worker(void *arg)
{
    gen_job *j = arg;
    for (long long k = j->tid; k < j->count && !j->fail; k += j->nthreads)
        if (make_qp(j->family, j->nx, j->horizon, j->seed, k, &j->pb[k]) != GALA_OK) j->fail = 1;
    return NULL;
}

static int online_cpus(void)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c < 1 ? 1 : (c > 64 ? 64 : (int)c);
}

/* --share-matrices: QP k > 0 is given QP 0's P and A arrays; its own copies are kept in
 * own[k] (never read) until free_batch gives them back for freeing. */
static gala_csc (*share_matrices(gala_qp_problem *pb, long long count))[2]
{
    gala_csc (*own)[2] = calloc((size_t)count, sizeof *own);
    if (!own) return NULL;
    for (long long k = 1; k < count; ++k) {
        own[k][0] = pb[k].P;
        own[k][1] = pb[k].A;
        pb[k].P = pb[0].P;
        pb[k].A = pb[0].A;
    }
    return own;
}

static void free_batch(gala_qp_problem *pb, long long count, gala_csc (*own)[2])
{
    for (long long k = 0; k < count; ++k) {
        if (own && k > 0) {
            pb[k].P = own[k][0];
            pb[k].A = own[k][1];
        }
        gala_qp_problem_free(&pb[k]);
    }
    free(own);
    free(pb);
}

static gala_qp_problem *generate(const char *family, int nx, int horizon, uint64_t seed,
                                 long long count, double *seconds)
{
    gala_qp_problem *pb = calloc((size_t)count, sizeof *pb);
    if (!pb) return NULL;
    double t0 = bu_now();
    int nt = online_cpus();
    if (nt > count) nt = (int)count;
    gen_job jobs[64];
    pthread_t th[64];
    int started[64] = {0}, fail = 0;
    for (int t = 0; t < nt; ++t) {
        jobs[t] = (gen_job){family, nx, horizon, nt, t, 0, seed, count, pb};
        if (t > 0) started[t] = pthread_create(&th[t], NULL, gen_worker, &jobs[t]) == 0;
    }
    gen_worker(&jobs[0]);
    for (int t = 1; t < nt; ++t) {
        if (started[t]) pthread_join(th[t], NULL);
        else gen_worker(&jobs[t]); /* no thread: its share here */
    }
    for (int t = 0; t < nt; ++t) fail |= jobs[t].fail;
    *seconds = bu_now() - t0;
    if (fail) {
        fprintf(stderr, "generator failed for %s\n", family);
        for (long long k = 0; k < count; ++k) gala_qp_problem_free(&pb[k]);
        free(pb);
        return NULL;
    }
    return pb;
}

/* ------------------------------------------------------------------ one run */
typedef struct {
    int reps, threads, breakdown, refine;
    int linsys; /* gala_qp_linsys, or -1: the default (AUTO) */
    int max_chunk;
    double mem_limit; /* settings.device_mem_limit */
    int resolves;     /* solves again after the last timed call (their median: resolve_s) */
} run_opts;

/* The settings of a run: the family's, then the command line's. */
static void run_settings(const run_spec *r, const run_opts *ro, gala_qp_settings *s)
{
    settings_for(r->family, r->dt, s);
    s->threads = ro->threads;
    s->refine = ro->refine;
    if (ro->linsys >= 0) s->linsys_solver = ro->linsys;
    s->max_chunk = ro->max_chunk;
    s->device_mem_limit = ro->mem_limit;
}

static int parse_linsys(const char *v)
{
    for (int k = GALA_QP_LINSYS_AUTO; k <= GALA_QP_LINSYS_PCG; ++k)
        if (!strcmp(v, gala_qp_linsys_name(k))) return k;
    return -2;
}

static void print_profile(const char *family, gala_dtype dt, long long B, const gala_qp_profile *pr,
                          double setup, double solve)
{
    fprintf(stderr, "  breakdown %s %s batch %lld (profile on: setup %.4f s, solve %.4f s):\n",
            family, gala_dtype_name(dt), B, setup, solve);
    for (int p = 0; p < GALA_QP_NPHASES; ++p) {
        if (pr->calls[p] == 0 && pr->seconds[p] == 0) continue;
        fprintf(stderr, "    %-12s %9.4f s  %7.2f us/QP  %5d calls\n", gala_qp_phase_name(p),
                pr->seconds[p], 1e6 * pr->seconds[p] / (double)B, pr->calls[p]);
    }
}

/* --devices: a set of devices one batch is divided among (NULL: the main context alone). */
enum { MAX_SETS = 8, MAX_DEV = 16 };
typedef struct {
    int n;
    gala_context *ctx[MAX_DEV];
    char label[96];
} dev_set;

/* Setup + solve of the first B problems, once, on ctx or the set ds; times in *setup /
 * *solve. */
static gala_status one_call(gala_context *ctx, const dev_set *ds, const gala_qp_problem *pb,
                            long long B, const gala_qp_settings *s, double *setup, double *solve,
                            gala_qp_solver **out)
{
    gala_qp_solver *sv = NULL;
    double t0 = bu_now();
    gala_status st = ds ? gala_qp_setup_devices(ds->ctx, ds->n, NULL, pb, (int)B, s, &sv)
                        : gala_qp_setup(ctx, pb, (int)B, s, &sv);
    double t1 = bu_now();
    if (st == GALA_OK) st = gala_qp_solve(sv);
    double t2 = bu_now();
    *setup = t1 - t0;
    *solve = t2 - t1;
    if (st != GALA_OK || !out) gala_qp_destroy(sv);
    else *out = sv;
    return st;
}

static int run(gala_context *ctx, const dev_set *ds, const run_spec *r, const gala_qp_problem *pb,
               double tg, const run_opts *ro, bu_json *js, const char *device)
{
    long long B = r->batch;
    long long work = 0;
    for (long long k = 0; k < B; ++k)
        work += pb[k].P.p[pb[k].n] + pb[k].A.p[pb[k].n] + (long long)pb[k].n * pb[k].n;
    gala_qp_settings s;
    run_settings(r, ro, &s);
    double best_total = 1e300, best_setup = 0, best_solve = 0;
    double tot[64];
    int ntot = 0;
    long long iters = 0, counts[13] = {0};
    double objs[100];
    int nobj = B < 100 ? (int)B : 100;
    /* above 10000 QPs two calls: the first one at a new size also pays one-time costs
     * (device memory and page-locked staging growing: Z8 on an H100, 2026-11-27, control
     * float 68 108 QPs/s with one call, 86 208 the best of two) */
    int linsys = -1, chunks = 0, reps = ro->reps > 0 ? ro->reps : (B <= 10000 ? 3 : 2);
    if (reps > 64) reps = 64;
    double obj_sum = 0, resolve = 0;
    for (int rep = 0; rep < reps; ++rep) {
        gala_qp_solver *sv = NULL;
        double su, so;
        gala_status st = one_call(ctx, ds, pb, B, &s, &su, &so, &sv);
        if (st != GALA_OK) {
            fprintf(stderr, "%s batch %lld: %s: %s\n", r->family, B, gala_status_string(st),
                    gala_last_error(ds ? ds->ctx[0] : ctx));
            return -1;
        }
        tot[ntot++] = su + so;
        if (su + so < best_total) {
            best_total = su + so;
            best_setup = su;
            best_solve = so;
        }
        if (rep == reps - 1) {
            iters = 0;
            obj_sum = 0;
            memset(counts, 0, sizeof counts);
            linsys = gala_qp_linsys_used(sv);
            chunks = gala_qp_chunk_count(sv);
            for (long long k = 0; k < B; ++k) {
                gala_qp_info in;
                gala_qp_get_info(sv, (int)k, &in);
                iters += in.iter;
                if (in.status >= 0 && in.status < 13) counts[in.status]++;
                obj_sum += in.obj_val;
                if (k < nobj) objs[k] = in.obj_val;
            }
            double rt[64];
            int nr = ro->resolves < 64 ? ro->resolves : 64;
            for (int i = 0; i < nr; ++i) {
                const double t0 = bu_now();
                st = gala_qp_solve(sv);
                rt[i] = bu_now() - t0;
                if (st != GALA_OK) {
                    fprintf(stderr, "%s batch %lld, solved again: %s: %s\n", r->family, B,
                            gala_status_string(st), gala_last_error(ds ? ds->ctx[0] : ctx));
                    gala_qp_destroy(sv);
                    return -1;
                }
            }
            if (nr > 0) resolve = bu_median(rt, nr);
        }
        gala_qp_destroy(sv);
    }
    double median = bu_median(tot, ntot);
    /* the breakdown: one more call with profile on (a device synchronization per phase) */
    gala_qp_profile prof;
    memset(&prof, 0, sizeof prof);
    double psu = 0, pso = 0;
    if (ro->breakdown) {
        gala_qp_settings sp = s;
        sp.profile = 1;
        gala_qp_solver *sv = NULL;
        if (one_call(ctx, ds, pb, B, &sp, &psu, &pso, &sv) == GALA_OK) {
            gala_qp_get_profile(sv, &prof);
            gala_qp_destroy(sv);
        }
    }
    double qps = (double)B / best_total;
    bu_progress_clear();
    fprintf(stderr, "%-8s %-6s batch %7lld: %10.1f QPs/s (setup %.4f s, solve %.4f s; median "
            "total %.4f s of %d), mean iter %.1f, solved %lld/%lld, linsys %d, %d chunk%s%s%s%s\n",
            r->family, gala_dtype_name(r->dt), B, qps, best_setup, best_solve, median, ntot,
            (double)iters / (double)B, counts[1] + counts[2], B, linsys, chunks,
            chunks == 1 ? "" : "s", r->shared_arrays ? ", shared P and A arrays" : "",
            ds ? ", devices " : "", ds ? ds->label : "");
    if (ro->resolves > 0)
        fprintf(stderr, "%-8s %-6s batch %7lld: solved again (warm) in %.4f s, median of %d\n",
                r->family, gala_dtype_name(r->dt), B, resolve, ro->resolves < 64 ? ro->resolves : 64);
    if (ro->breakdown) print_profile(r->family, r->dt, B, &prof, psu, pso);
    char objstr[100 * 24 + 1];
    size_t ol = 0;
    objstr[0] = 0;
    for (int k = 0; k < nobj && ol + 24 < sizeof objstr; ++k)
        ol += (size_t)snprintf(objstr + ol, sizeof objstr - ol, "%s%.12g", k ? "," : "", objs[k]);
    bu_json_row(js, "ssssiiddddddddiiiidiisiisid", "bench", "qp", "device", device, "family", r->family,
                "dtype", gala_dtype_name(r->dt), "batch", (int)B, "linsys", linsys,
                "qps_per_s", qps, "setup_s", best_setup, "solve_s", best_solve,
                "median_total_s", median, "generate_s", tg,
                "mean_iter", (double)iters / (double)B,
                "mean_obj", obj_sum / (double)B, "work_units", (double)work,
                "solved", (int)counts[1], "solved_inaccurate", (int)counts[2],
                "max_iter", (int)counts[7], "other_status", (int)(B - counts[1] - counts[2] - counts[7]),
                "reps", (double)ntot, "threads", ro->threads, "refine", ro->refine,
                "obj_first", objstr, "shared_arrays", r->shared_arrays, "chunks", chunks,
                "devices", ds ? ds->label : "", "ndev", ds ? ds->n : 1, "resolve_s", resolve);
    if (ro->breakdown) {
        /* one row per phase, so that report scripts can pick them */
        for (int p = 0; p < GALA_QP_NPHASES; ++p)
            bu_json_row(js, "ssssisddi", "bench", "qp_phase", "device", device, "family", r->family,
                        "dtype", gala_dtype_name(r->dt), "batch", (int)B, "phase",
                        gala_qp_phase_name(p), "seconds", prof.seconds[p],
                        "us_per_qp", 1e6 * prof.seconds[p] / (double)B, "calls", prof.calls[p]);
    }
    return 0;
}

/* The first call of a family and dtype in this process: batch 1, cold (kernel compilation
 * or the on-disk kernel cache, first allocations). Reported on its own, never in the rates;
 * then an untimed warm-up batch of up to 64 QPs (r->batch: the most there are). */
static int first_call(gala_context *ctx, const run_spec *r, const gala_qp_problem *pb,
                      const run_opts *ro, bu_json *js, const char *device)
{
    gala_qp_settings s;
    run_settings(r, ro, &s);
    double su, so;
    gala_status st = one_call(ctx, NULL, pb, 1, &s, &su, &so, NULL);
    if (st != GALA_OK) {
        fprintf(stderr, "%s first call: %s: %s\n", r->family, gala_status_string(st),
                gala_last_error(ctx));
        return -1;
    }
    /* and an untimed warm-up batch: a batch of several QPs may use programs one QP does not
     * (the shared strategy's tiles) */
    double wsu = 0, wso = 0;
    if (r->batch > 1 && one_call(ctx, NULL, pb, r->batch < 64 ? r->batch : 64, &s, &wsu, &wso, NULL) != GALA_OK) {
        fprintf(stderr, "%s warm-up: %s\n", r->family, gala_last_error(ctx));
        return -1;
    }
    bu_progress_clear();
    fprintf(stderr, "%-8s %-6s first call (batch 1, cold: compilation or kernel cache): setup "
            "%.4f s, solve %.4f s; warm-up batch of %lld: %.4f s\n", r->family,
            gala_dtype_name(r->dt), su, so, r->batch < 64 ? r->batch : 64, wsu + wso);
    bu_json_row(js, "ssssidd", "bench", "qp_first_call", "device", device, "family", r->family,
                "dtype", gala_dtype_name(r->dt), "batch", 1, "setup_s", su, "solve_s", so);
    return 0;
}

static int parse_list(const char *s, long long *out, int cap)
{
    int n = 0;
    while (s && *s && n < cap) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s) break;
        out[n++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* --devices SETS (see the top): the sets, their contexts made once per index and
 * occurrence in a set (in ctxs[MAX_DEV * MAX_DEV], freed by the caller); the number of sets, or -1 after printing why. */
static int parse_sets(const char *spec, gala_context *main_ctx, dev_set *sets,
                      gala_context **ctxs)
{
    gala_device_info di;
    gala_context_info(main_ctx, &di);
    int nb = 0; /* the backend's devices */
    gala_device_desc *all = gqp_backend_devices(di.backend, &nb);
    if (!all) {
        fprintf(stderr, "--devices: the devices cannot be listed\n");
        return -1;
    }
    int ns = 0, bad = 0;
    for (const char *p = spec; *p && !bad;) {
        if (ns == MAX_SETS) { bad = 1; break; }
        dev_set *ds = &sets[ns++];
        ds->n = 0;
        size_t len = strcspn(p, "/");
        snprintf(ds->label, sizeof ds->label, "%.*s", (int)len, p);
        int pick[MAX_DEV];
        const int n = gqp_pick_devices(ds->label, all, nb, di.is_gpu, pick, MAX_DEV);
        if (n <= 0) bad = 1;
        for (int d = 0; d < n && !bad; ++d) {
            int occ = 0; /* an index repeated in a set: another context on that device */
            for (int e = 0; e < d; ++e) occ += pick[e] == pick[d];
            const int i = pick[d] * MAX_DEV + occ;
            if (!ctxs[i] && gqp_context_on(&all[pick[d]], 1, &ctxs[i]) != GALA_OK) {
                fprintf(stderr, "--devices: device %d: %s\n", pick[d], gala_last_error(NULL));
                free(all);
                return -1;
            }
            ds->ctx[ds->n++] = ctxs[i];
        }
        p += len;
        if (*p == '/') ++p;
    }
    free(all);
    if (bad || ns == 0) {
        fprintf(stderr, "--devices: '%s': sets separated by '/', each 'all' or indices 0..%d "
                "(%s devices; a repeated index: another context on that device)\n", spec,
                nb - 1, di.backend_name);
        return -1;
    }
    return ns;
}

int main(int argc, char **argv)
{
    const char *families = "control,di", *dumpdir = NULL, *dtypes = "float,double";
    long long batches[16] = {1, 100, 1000, 10000, 100000};
    int nb = 5, nx = 10, horizon = 37, dump_count = 2000, hetero = 0, reps_set = 0;
    int share_arg = 0;
    uint64_t seed = 1;
    double max_seconds = 1800;
    run_opts ro = {0, 0, 0, -1, -1, 0, 0, 0};
    const char *devices = NULL;
    dev_set sets[MAX_SETS];
    gala_context *set_ctxs[MAX_DEV * MAX_DEV] = {0};
    int nsets = 0;
    bu_opts o;
    /* the common options (--backend, --device, --reps, --json, --quick) first */
    for (int i = 1; i < argc; ++i)
        if (!strcmp(argv[i], "--reps")) reps_set = 1;
    gala_context *ctx = bu_init(&argc, argv, &o);
    if (!ctx) return 1;
    ro.reps = reps_set ? o.reps : 0; /* 0: 3 up to batch 10000, 2 above */
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (!strcmp(a, name) && v && ++i)
        if (OPT("--family")) families = v;
        else if (OPT("--batches")) nb = parse_list(v, batches, 16);
        else if (OPT("--dtypes")) dtypes = v;
        else if (OPT("--nx")) nx = atoi(v);
        else if (OPT("--horizon")) horizon = atoi(v);
        else if (OPT("--seed")) seed = strtoull(v, NULL, 10);
        else if (OPT("--dump")) dumpdir = v;
        else if (OPT("--dump-count")) dump_count = atoi(v);
        else if (OPT("--max-seconds")) max_seconds = atof(v);
        else if (OPT("--threads")) ro.threads = atoi(v);
        else if (OPT("--refine")) ro.refine = atoi(v);
        else if (OPT("--max-chunk")) ro.max_chunk = atoi(v);
        else if (OPT("--device-mem-limit")) ro.mem_limit = atof(v);
        else if (OPT("--devices")) devices = v;
        else if (OPT("--resolves")) ro.resolves = atoi(v);
        else if (OPT("--linsys")) {
            if ((ro.linsys = parse_linsys(v)) < 0) {
                fprintf(stderr, "--linsys: auto, dense, dense-shared, sparse-ldlt or pcg\n");
                gala_context_destroy(ctx);
                return 1;
            }
        }
        else if (!strcmp(a, "--breakdown")) ro.breakdown = 1;
        else if (!strcmp(a, "--hetero")) hetero = 1;
        else if (!strcmp(a, "--share-matrices")) share_arg = 1;
        else {
            fprintf(stderr, "usage: see the comment at the top of bench/bench_qp.c\n");
            gala_context_destroy(ctx);
            return 2;
        }
#undef OPT
    }
    if (o.quick) {
        nb = 2;
        batches[0] = 1;
        batches[1] = 100;
    }
    if (dumpdir) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", families);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
            if (dump(dumpdir, t, nx, horizon, seed, dump_count)) {
                gala_context_destroy(ctx);
                return 1;
            }
    }
    if (devices && (nsets = parse_sets(devices, ctx, sets, set_ctxs)) < 0) {
        for (int i = 0; i < MAX_DEV * MAX_DEV; ++i) gala_context_destroy(set_ctxs[i]);
        gala_context_destroy(ctx);
        return 2;
    }
    gala_device_info info;
    gala_context_info(ctx, &info);
    char device[300];
    snprintf(device, sizeof device, "%s: %s", info.backend_name, info.device_name);
    bu_json *js = o.json ? bu_json_open(o.json, "qp", ctx) : NULL;
    double t_start = bu_now();
    char fbuf[256];
    snprintf(fbuf, sizeof fbuf, "%s%s", families, hetero ? ",hetero,uniform" : "");
    int rc = 0, total = 0, step = 0;
    {   /* the number of runs, for the progress line */
        char cbuf[256];
        snprintf(cbuf, sizeof cbuf, "%s", fbuf);
        for (char *fam = strtok(cbuf, ","); fam; fam = strtok(NULL, ","))
            for (int d = 0; d < 2; ++d)
                if (strstr(dtypes, d ? "double" : "float") && (!d || info.fp64))
                    total += nb * (nsets ? nsets : 1);
    }
    char *save = NULL;
    for (char *fam = strtok_r(fbuf, ",", &save); fam; fam = strtok_r(NULL, ",", &save)) {
        int capped = !strcmp(fam, "hetero") || !strcmp(fam, "uniform");
        long long bmax = 1;
        for (int b = 0; b < nb; ++b) {
            long long bb = capped && batches[b] > 1000 ? 1000 : batches[b];
            if (bb > bmax) bmax = bb;
        }
        double tg = 0;
        gala_qp_problem *pb = generate(fam, nx, horizon, seed, bmax, &tg);
        if (!pb) {
            rc = 1;
            continue;
        }
        gala_csc (*own)[2] = NULL;
        if (share_arg && !strcmp(fam, "di") && !(own = share_matrices(pb, bmax))) {
            fprintf(stderr, "out of memory\n");
            free_batch(pb, bmax, NULL);
            rc = 1;
            continue;
        }
        fprintf(stderr, "%-8s generated %lld QPs in %.2f s%s\n", fam, bmax, tg,
                own ? " (P and A: the first QP's arrays)" : "");
        for (int d = 0; d < 2; ++d) {
            gala_dtype dt = d ? GALA_DOUBLE : GALA_FLOAT;
            if (!strstr(dtypes, gala_dtype_name(dt))) continue;
            if (dt == GALA_DOUBLE && !info.fp64) continue;
            run_spec r0 = {fam, dt, bmax, own != NULL}; /* batch: the warm-up's upper bound */
            if (first_call(ctx, &r0, pb, &ro, js, device)) rc = 1;
            for (int k = 0; k < nsets; ++k) { /* every set's contexts warm too, untimed */
                gala_qp_settings sw;
                run_settings(&r0, &ro, &sw);
                long long bw = 64LL * sets[k].n;
                double wsu, wso;
                if (one_call(ctx, &sets[k], pb, bw < bmax ? bw : bmax, &sw, &wsu, &wso, NULL) != GALA_OK) {
                    fprintf(stderr, "%s warm-up on devices %s: %s\n", fam, sets[k].label,
                            gala_last_error(sets[k].ctx[0]));
                    rc = 1;
                }
            }
            for (int b = 0; b < nb; ++b) {
                if (bu_now() - t_start > max_seconds) {
                    fprintf(stderr, "time budget of %.0f s spent: stopping\n", max_seconds);
                    free_batch(pb, bmax, own);
                    goto done;
                }
                run_spec r = {fam, dt, batches[b], own != NULL};
                if (capped && r.batch > 1000) r.batch = 1000;
                char label[96];
                snprintf(label, sizeof label, "qp %s %s batch=%lld", fam, gala_dtype_name(dt),
                         r.batch);
                bu_progress(label, step++, total);
                for (int k = 0; k < (nsets ? nsets : 1); ++k)
                    if (run(ctx, nsets ? &sets[k] : NULL, &r, pb, tg, &ro, js, device)) rc = 1;
                bu_progress_clear();
            }
        }
        free_batch(pb, bmax, own);
    }
done:
    bu_progress("qp", total, total);
    bu_json_close(js);
    for (int i = 0; i < MAX_DEV * MAX_DEV; ++i) gala_context_destroy(set_ctxs[i]);
    gala_context_destroy(ctx);
    return rc;
}
