/*
 * bench_qp: QPs per second of gala's batched ADMM solver (setup + solve, as OSQP's baseline
 * counts them) on batches of generated QPs, float and double, with JSON output; and a dump
 * of the same instances for bench/ref_osqp.py (format: bench/README.md).
 *
 *   bench_qp [--backend opencl|cuda|host] [--device D] [--json out.json] [--reps 1] [--quick]
 *            [--family control,di] [--batches 1,100,1000,10000,100000] [--dtypes float,double]
 *            [--nx 10] [--horizon 37] [--seed 1] [--dump DIR] [--dump-count 2000] [--hetero]
 *            [--max-seconds 1800]
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchutil.h"
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

/* ------------------------------------------------------------------ one run */
static int run(gala_context *ctx, const run_spec *r, int nx, int horizon, uint64_t seed, int reps,
               bu_json *js, const char *device)
{
    long long B = r->batch;
    gala_qp_problem *pb = calloc((size_t)B, sizeof *pb);
    if (!pb) return -1;
    double tg = bu_now();
    long long work = 0;
    for (long long k = 0; k < B; ++k) {
        if (make_qp(r->family, nx, horizon, seed, k, &pb[k]) != GALA_OK) {
            fprintf(stderr, "generator failed: %s\n", gala_last_error(NULL));
            return -1;
        }
        work += pb[k].P.p[pb[k].n] + pb[k].A.p[pb[k].n] + (long long)pb[k].n * pb[k].n;
    }
    tg = bu_now() - tg;
    gala_qp_settings s;
    settings_for(r->family, r->dt, &s);
    double best_total = 1e300, best_setup = 0, best_solve = 0;
    long long iters = 0, counts[13] = {0};
    double objs[100];
    int nobj = B < 100 ? (int)B : 100;
    int linsys = -1, ok = 1;
    double obj_sum = 0;
    for (int rep = 0; rep < reps && ok; ++rep) {
        gala_qp_solver *sv = NULL;
        double t0 = bu_now();
        gala_status st = gala_qp_setup(ctx, pb, (int)B, &s, &sv);
        double t1 = bu_now();
        if (st == GALA_OK) st = gala_qp_solve(sv);
        double t2 = bu_now();
        if (st != GALA_OK) {
            fprintf(stderr, "%s batch %lld: %s: %s\n", r->family, B, gala_status_string(st),
                    gala_last_error(ctx));
            gala_qp_destroy(sv);
            ok = 0;
            break;
        }
        if (t2 - t0 < best_total) {
            best_total = t2 - t0;
            best_setup = t1 - t0;
            best_solve = t2 - t1;
        }
        if (rep == reps - 1) {
            iters = 0;
            obj_sum = 0;
            memset(counts, 0, sizeof counts);
            linsys = gala_qp_linsys_used(sv);
            for (long long k = 0; k < B; ++k) {
                gala_qp_info in;
                gala_qp_get_info(sv, (int)k, &in);
                iters += in.iter;
                if (in.status >= 0 && in.status < 13) counts[in.status]++;
                obj_sum += in.obj_val;
                if (k < nobj) objs[k] = in.obj_val;
            }
        }
        gala_qp_destroy(sv);
    }
    for (long long k = 0; k < B; ++k) gala_qp_problem_free(&pb[k]);
    free(pb);
    if (!ok) return -1;
    double qps = (double)B / best_total;
    fprintf(stderr, "%-8s %-6s batch %7lld: %10.1f QPs/s (setup %.4f s, solve %.4f s), mean iter %.1f, "
            "solved %lld/%lld, linsys %d\n", r->family, gala_dtype_name(r->dt), B, qps, best_setup,
            best_solve, (double)iters / (double)B, counts[1] + counts[2], B, linsys);
    char objstr[100 * 24 + 1];
    size_t ol = 0;
    objstr[0] = 0;
    for (int k = 0; k < nobj && ol + 24 < sizeof objstr; ++k)
        ol += (size_t)snprintf(objstr + ol, sizeof objstr - ol, "%s%.12g", k ? "," : "", objs[k]);
    bu_json_row(js, "ssssiidddddddiiiids", "bench", "qp", "device", device, "family", r->family,
                "dtype", gala_dtype_name(r->dt), "batch", (int)B, "linsys", linsys,
                "qps_per_s", qps, "setup_s", best_setup, "solve_s", best_solve,
                "generate_s", tg, "mean_iter", (double)iters / (double)B,
                "mean_obj", obj_sum / (double)B, "work_units", (double)work,
                "solved", (int)counts[1], "solved_inaccurate", (int)counts[2],
                "max_iter", (int)counts[7], "other_status", (int)(B - counts[1] - counts[2] - counts[7]),
                "reps", (double)reps, "obj_first", objstr);
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

int main(int argc, char **argv)
{
    const char *families = "control,di", *dumpdir = NULL, *dtypes = "float,double";
    long long batches[16] = {1, 100, 1000, 10000, 100000};
    int nb = 5, nx = 10, horizon = 37, dump_count = 2000, hetero = 0;
    uint64_t seed = 1;
    double max_seconds = 1800;
    bu_opts o;
    /* the common options (--backend, --device, --reps, --json, --quick) first */
    gala_context *ctx = bu_init(&argc, argv, &o);
    if (!ctx) return 1;
    int reps = o.reps > 3 ? 1 : o.reps; /* default 1: a batch of 100000 takes a while */
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
        else if (!strcmp(a, "--hetero")) hetero = 1;
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
    gala_device_info info;
    gala_context_info(ctx, &info);
    char device[300];
    snprintf(device, sizeof device, "%s: %s", info.backend_name, info.device_name);
    bu_json *js = o.json ? bu_json_open(o.json, "qp", ctx) : NULL;
    double t_start = bu_now();
    char fbuf[256];
    snprintf(fbuf, sizeof fbuf, "%s%s", families, hetero ? ",hetero,uniform" : "");
    int rc = 0;
    for (char *fam = strtok(fbuf, ","); fam; fam = strtok(NULL, ",")) {
        for (int d = 0; d < 2; ++d) {
            gala_dtype dt = d ? GALA_DOUBLE : GALA_FLOAT;
            if (!strstr(dtypes, gala_dtype_name(dt))) continue;
            if (dt == GALA_DOUBLE && !info.fp64) continue;
            for (int b = 0; b < nb; ++b) {
                if (bu_now() - t_start > max_seconds) {
                    fprintf(stderr, "time budget of %.0f s spent: stopping\n", max_seconds);
                    goto done;
                }
                run_spec r = {fam, dt, batches[b]};
                if (!strcmp(fam, "hetero") || !strcmp(fam, "uniform")) r.batch = batches[b] < 1000 ? batches[b] : 1000;
                if (run(ctx, &r, nx, horizon, seed, reps, js, device)) rc = 1;
            }
        }
    }
done:
    bu_json_close(js);
    gala_context_destroy(ctx);
    return rc;
}
