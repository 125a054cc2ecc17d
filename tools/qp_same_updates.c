/* tools/qp_same_updates.c: the update half of tools/qp-same.sh (issue 38's before/after
 * check). One batch of generated QPs through setup, solve, update_rho (all, one),
 * update_vectors (one, all), update_matrices (P, A, one QP), warm start, settings and cold
 * start, solving after each; prints every QP's status, iterations, ρ, objective and
 * residuals as hex floats and a hash of the bits of x, y and the certificates, so that two
 * builds compare with diff. Not built by CMake: tools/qp-same.sh compiles it against the
 * library it tests.
 *   qp_same_updates BACKEND(host|opencl|cuda) DTYPE(double|float) LINSYS(0-4) FAMILY SIZE COUNT [mixed]
 * mixed: sizes SIZE, SIZE+1, SIZE+2 in turn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gala/gala.h>
#include <gala/qp.h>
static void dump(gala_qp_solver *s, int count, const char *tag)
{
    for (int k = 0; k < count; ++k) {
        gala_qp_info in; gala_qp_get_info(s, k, &in);
        const double *x, *y, *pc, *dc;
        printf("%s k=%d st=%d it=%d rhoupd=%d rho=%a obj=%a pr=%a du=%a\n", tag, k, in.status, in.iter, in.rho_updates, in.rho, in.obj_val, in.prim_res, in.dual_res);
        if (gala_qp_get_solution(s, k, &x, &y, &pc, &dc) != GALA_OK) { printf("nosol\n"); continue; }
        gala_qp_problem *p = NULL; (void)p;
    }
}
static void dumpx(gala_qp_solver *s, gala_qp_problem *pb, int count, const char *tag)
{
    dump(s, count, tag);
    for (int k = 0; k < count; ++k) {
        const double *x, *y, *pc, *dc;
        if (gala_qp_get_solution(s, k, &x, &y, &pc, &dc) != GALA_OK) continue;
        unsigned long long h = 1469598103934665603ULL;
        for (int i = 0; i < pb[k].n; ++i) { unsigned long long v; memcpy(&v, &x[i], 8); h = (h ^ v) * 1099511628211ULL; }
        for (int i = 0; i < pb[k].m; ++i) { unsigned long long v; memcpy(&v, &y[i], 8); h = (h ^ v) * 1099511628211ULL; }
        for (int i = 0; i < pb[k].m; ++i) { unsigned long long v; memcpy(&v, &pc[i], 8); h = (h ^ v) * 1099511628211ULL; }
        for (int i = 0; i < pb[k].n; ++i) { unsigned long long v; memcpy(&v, &dc[i], 8); h = (h ^ v) * 1099511628211ULL; }
        printf("%s k=%d hash=%016llx\n", tag, k, h);
    }
}
#define CK(x) do { gala_status st_ = (x); if (st_ != GALA_OK) { printf("ERR %s: %d %s\n", #x, st_, gala_last_error(ctx)); } } while (0)
int main(int argc, char **argv)
{
    gala_context_options o; gala_context_options_default(&o);
    if (argc < 7) { fprintf(stderr, "usage: see the file's comment\n"); return 2; }
    o.backend = strcmp(argv[1], "host") == 0 ? GALA_BACKEND_HOST
              : strcmp(argv[1], "cuda") == 0 ? GALA_BACKEND_CUDA : GALA_BACKEND_OPENCL;
    gala_context *ctx; if (gala_context_create(&o, &ctx) != GALA_OK) { printf("no ctx\n"); return 1; }
    int fam = atoi(argv[4]), size = atoi(argv[5]), count = atoi(argv[6]);
    gala_qp_problem *pb = calloc(count, sizeof *pb);
    for (int k = 0; k < count; ++k) gala_qp_generate(fam, size + (argc > 7 ? k % 3 : 0), 1 + k, &pb[k]);
    gala_qp_settings set; gala_qp_settings_default(&set);
    set.dtype = strcmp(argv[2], "float") == 0 ? GALA_FLOAT : GALA_DOUBLE;
    set.linsys_solver = atoi(argv[3]);
    set.polishing = set.dtype == GALA_DOUBLE;
    gala_qp_solver *s = NULL;
    gala_status st = gala_qp_setup(ctx, pb, count, &set, &s);
    printf("setup %d %s linsys_used=%d\n", st, st ? gala_last_error(ctx) : "", s ? gala_qp_linsys_used(s) : -1);
    if (st) return 0;
    CK(gala_qp_solve(s)); dumpx(s, pb, count, "solve1");
    CK(gala_qp_update_rho(s, -1, 0.37)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "rho_all");
    CK(gala_qp_update_rho(s, 0, 2.5)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "rho_0");
    for (int i = 0; i < pb[0].n; ++i) pb[0].q[i] *= 1.1;
    CK(gala_qp_update_vectors(s, 0, pb[0].q, NULL, NULL)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "vec0");
    /* all: q, l, u concatenated */
    size_t nq = 0, nm = 0; for (int k = 0; k < count; ++k) { nq += pb[k].n; nm += pb[k].m; }
    double *q = malloc(8 * nq), *l = malloc(8 * (nm + 1)), *u = malloc(8 * (nm + 1));
    size_t a = 0, b = 0;
    for (int k = 0; k < count; ++k) { for (int i = 0; i < pb[k].n; ++i) q[a++] = pb[k].q[i] * 0.9; for (int i = 0; i < pb[k].m; ++i) { l[b] = pb[k].l[i]; u[b++] = pb[k].u[i] * 1.05 + (pb[k].u[i] == pb[k].l[i] ? 0 : 0.01); } }
    CK(gala_qp_update_vectors(s, -1, q, l, u)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "vecall");
    /* matrices: all, scaled */
    size_t np = 0, na = 0; for (int k = 0; k < count; ++k) { np += pb[k].P.p[pb[k].n]; na += pb[k].A.p[pb[k].n]; }
    double *Px = malloc(8 * (np + 1)), *Ax = malloc(8 * (na + 1)); a = b = 0;
    for (int k = 0; k < count; ++k) { for (int e = 0; e < pb[k].P.p[pb[k].n]; ++e) Px[a++] = pb[k].P.x[e] * 1.25; for (int e = 0; e < pb[k].A.p[pb[k].n]; ++e) Ax[b++] = pb[k].A.x[e] * 0.8; }
    CK(gala_qp_update_matrices(s, -1, Px, NULL)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "matP");
    CK(gala_qp_update_matrices(s, -1, NULL, Ax)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "matA");
    if (set.linsys_solver != GALA_QP_LINSYS_DENSE_SHARED) { CK(gala_qp_update_matrices(s, 0, Px, Ax)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "mat0"); }
    /* warm start from the solution of QP 0 scaled */
    const double *x, *y, *pc, *dc; gala_qp_get_solution(s, 0, &x, &y, &pc, &dc);
    double *wx = malloc(8 * pb[0].n), *wy = malloc(8 * (pb[0].m + 1));
    for (int i = 0; i < pb[0].n; ++i) wx[i] = x[i] * 0.5; for (int i = 0; i < pb[0].m; ++i) wy[i] = y[i] * 0.5;
    CK(gala_qp_warm_start(s, 0, wx, wy)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "warm0");
    gala_qp_get_settings(s, &set); set.warm_starting = 0; set.max_iter = 300; set.eps_abs = 1e-5; CK(gala_qp_update_settings(s, &set)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "cold");
    CK(gala_qp_cold_start(s)); set.warm_starting = 1; CK(gala_qp_update_settings(s, &set)); CK(gala_qp_solve(s)); dumpx(s, pb, count, "cold2");
    gala_qp_destroy(s);
    for (int k = 0; k < count; ++k) gala_qp_problem_free(&pb[k]);
    gala_context_destroy(ctx);
    return 0;
}
