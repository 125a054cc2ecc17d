/*
 * Every OpenCL program gala can ask for, for the offline compile test (offline_compile.sh):
 * the operations catalogue (tests/ops.c), a sweep of the dense factorizations over every
 * register-row bucket and the blocked path, and QP solves through each linear-system
 * strategy, run in float and double on host-backend contexts that pose as OpenCL devices
 * ("personas": the device properties that choose sizes, and the vendor / device names that
 * choose tuning rows). The personas are a generic GPU, the devices the offline targets stand
 * for (gfx90a, gfx1100, an Intel GPU, Rusticl's llvmpipe), a CPU device with 512 KiB of local
 * memory (PoCL; the rows for "cpu" devices), and one per vendor / device name
 * of every OpenCL (or any-backend) row of src/core/tuning_table.h, so the -D sets of the
 * defaults and of every tuning row are all asked for. The host backend runs the same
 * algorithm code and asks for the same program keys as OpenCL would; its kernels check the
 * results, so a persona whose sizes break an algorithm fails here too.
 *
 * Writes one line per distinct program:
 * "family<TAB>build options<TAB>vendor<TAB>local<TAB>amd",
 * vendor "nvidia" for programs with NVIDIA-only code (gemm_tc with TC=1: inline PTX), else
 * "any"; local: the least local memory (bytes) of the personas that asked for it (a target
 * with less, e.g. AMD's 64 KiB, never gets that program: gala sizes from what the device
 * reports); amd: 1 when a persona that an AMD GPU is (the generic GPU, gfx90a, gfx1100)
 * asked for it, 0 when only other vendors' tuning rows did (an AMD GPU never matches them:
 * offline_compile.sh builds those unoptimized for the AMD targets).
 * A persona that is not NVIDIA's asking for such a program is an error (exit 1): this test
 * is what keeps device-specific code where it belongs.
 *
 * With --cuda the personas pose as CUDA devices instead (backend CUDA, NVIDIA's data-center
 * and desktop GPUs, with their shared memory, multiprocessors and memory, and one per
 * device name of the CUDA and any-backend tuning rows), and the QPs also include
 * `gala-qp solve --generate mpc:10x100`'s batch: the programs the CUDA backend asks for
 * with the default tuning, which the build compiles into the prebuilt kernel store
 * (tools/gala-cuda-store.c, docs/cuda.md "Prebuilt kernels").
 *
 * usage: offline_programs [--cuda] OUT_FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/kernel.h"
#include "ops.h"

typedef struct persona {
    char name[96];
    char vendor[128];
    char device[128];
    size_t local_mem, max_wg;
    int is_gpu;
    int units;    /* multiprocessors (0: the host's count) */
    size_t mem;   /* global memory in bytes (0: the host's) */
    int amd; /* an AMD GPU poses so (the defaults, or the AMD targets' own devices) */
} persona;

enum { MAXP = 64, MAXPROG = 4096 };
static persona personas[MAXP];
static int npersonas;
static gala_backend pose = GALA_BACKEND_OPENCL; /* what the personas pose as */

typedef struct prog {
    char family[32];
    char opts[768];
    int nvidia_only;
    int amd; /* asked for by a persona with amd set */
    size_t min_local; /* the least local memory of the personas that asked for it */
} prog;
static prog progs[MAXPROG];
static int nprogs;

/* The new persona, or NULL when there is one alike already (or no room). */
static persona *add_persona(const char *name, const char *vendor, const char *device, size_t lm,
                            size_t wg, int gpu)
{
    for (int i = 0; i < npersonas; ++i)
        if (!strcmp(personas[i].vendor, vendor) && !strcmp(personas[i].device, device) &&
            personas[i].local_mem == lm && personas[i].max_wg == wg)
            return NULL;
    if (npersonas == MAXP) return NULL;
    persona *p = &personas[npersonas++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->vendor, sizeof p->vendor, "%s", vendor);
    snprintf(p->device, sizeof p->device, "%s", device);
    p->local_mem = lm;
    p->max_wg = wg;
    p->is_gpu = gpu;
    return p;
}

/* A CUDA device: 48 KiB of static shared memory, blocks of up to 1024 threads. */
static void add_cuda_persona(const char *name, const char *device, int sms, double gib)
{
    persona *p = add_persona(name, "NVIDIA Corporation", device, 49152, 1024, 1);
    if (!p) return;
    p->units = sms;
    p->mem = (size_t)(gib * 1073741824.0);
}

static int record(const gala_context *ctx, const persona *p)
{
    char fam[32], opts[768];
    int bad = 0;
    for (int i = 0; gala_program_nth(ctx, i, fam, sizeof fam, opts, sizeof opts); ++i) {
        const int nv = strstr(opts, "-DTC=1") != NULL;
        if (nv && !strstr(p->vendor, "NVIDIA")) {
            fprintf(stderr, "FAIL: persona %s (vendor '%s') asks for NVIDIA-only code: %s %s\n",
                    p->name, p->vendor, fam, opts);
            bad = 1;
        }
        int have = 0;
        for (int k = 0; k < nprogs && !have; ++k)
            if (!strcmp(progs[k].family, fam) && !strcmp(progs[k].opts, opts)) {
                have = 1;
                if (p->local_mem < progs[k].min_local) progs[k].min_local = p->local_mem;
                progs[k].amd |= p->amd;
            }
        if (have || nprogs == MAXPROG) continue;
        progs[nprogs].min_local = p->local_mem;
        progs[nprogs].amd = p->amd;
        snprintf(progs[nprogs].family, sizeof progs[nprogs].family, "%s", fam);
        snprintf(progs[nprogs].opts, sizeof progs[nprogs].opts, "%s", opts);
        progs[nprogs++].nvidia_only = nv;
    }
    return bad;
}

/* SPD test matrices in the buffer's type: A = I·n + (1/(1+|i-j|)), batch of `count`. */
static void spd(void *a, gala_dtype dt, int n, int count)
{
    for (int b = 0; b < count; ++b)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const size_t at = (size_t)b * n * n + (size_t)j * n + i;
                const double v = (i == j ? n : 0) + 1.0 / (1 + abs(i - j));
                if (dt == GALA_DOUBLE) ((double *)a)[at] = v;
                else ((float *)a)[at] = (float)v;
            }
}

#define CHECK(call, what)                                                                        \
    do {                                                                                         \
        gala_status s_ = (call);                                                                 \
        if (s_ != GALA_OK) {                                                                     \
            fprintf(stderr, "FAIL: persona %s %s n=%d: %s (%s)\n", p->name, what, n,             \
                    gala_status_string(s_), gala_last_error(ctx));                               \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

/* potrf, potrs, potri, trtri and LDLᵀ (batched, lower and upper) over the orders that pick
 * every register-row bucket and the blocked path. */
static int sweep(gala_context *ctx, const persona *p, gala_dtype dt)
{
    static const int orders[] = {1, 2, 3, 5, 8, 12, 16, 24, 32, 48, 64, 65, 130, 300};
    enum { B = 2 };
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; ++o) {
        const int n = orders[o];
        const size_t nn = (size_t)n * n;
        void *a = malloc(nn * B * sizeof(double));
        if (!a) return 1;
        spd(a, dt, n, B);
        gala_buffer *A = NULL, *L = NULL, *X = NULL, *R = NULL;
        int info[B], inertia[2 * B]; /* gala_ldlt_batched: 2 counts per matrix */
        CHECK(gala_buffer_create(ctx, dt, nn * B, &A), "buffer");
        CHECK(gala_buffer_create(ctx, dt, nn * B, &L), "buffer");
        CHECK(gala_buffer_create(ctx, dt, nn * B, &X), "buffer");
        CHECK(gala_buffer_create(ctx, dt, (size_t)n * 3 * B, &R), "buffer");
        for (int up = 0; up < 2; ++up) {
            const gala_uplo ul = up ? GALA_UPPER : GALA_LOWER;
            CHECK(gala_buffer_write(L, 0, nn * B, a), "write");
            CHECK(gala_potrf_batched(ctx, ul, n, L, 0, n, nn, B, info), "potrf_batched");
            CHECK(gala_buffer_fill(R, 0, (size_t)n * 3 * B, 1.0), "fill");
            CHECK(gala_potrs_batched(ctx, ul, n, 3, L, 0, n, nn, R, 0, n, (size_t)n * 3, B),
                  "potrs_batched");
            CHECK(gala_trtri_batched(ctx, ul, GALA_NON_UNIT, n, L, 0, n, nn, X, 0, n, nn, B, info),
                  "trtri_batched");
            CHECK(gala_potri_batched(ctx, ul, n, L, 0, n, nn, B, info), "potri_batched");
            CHECK(gala_buffer_write(A, 0, nn * B, a), "write");
            CHECK(gala_ldlt_batched(ctx, ul, n, A, 0, n, nn, B, info, inertia), "ldlt_batched");
            CHECK(gala_ldlt_solve_batched(ctx, ul, n, 3, A, 0, n, nn, R, 0, n, (size_t)n * 3, B),
                  "ldlt_solve_batched");
        }
        gala_buffer_free(A); gala_buffer_free(L); gala_buffer_free(X); gala_buffer_free(R);
        free(a);
    }
    return 0;
}

/* `gala-qp solve --generate mpc:10x100`'s batch (nx = 10: 160 variables, 270 rows), with
 * the default settings (the seeds change the values, not the sizes and sparsity that choose
 * the programs). */
static int mpc_batch(gala_context *ctx, const persona *p, gala_dtype dt)
{
    enum { COUNT = 100 };
    gala_qp_problem *pb = calloc(COUNT, sizeof *pb);
    int bad = pb == NULL, made = 0;
    while (!bad && made < COUNT) {
        if (gala_qp_generate(GALA_QP_GEN_CONTROL, 10, 1 + (uint64_t)made, &pb[made]) == GALA_OK)
            ++made;
        else
            bad = 1;
    }
    gala_qp_settings set;
    gala_qp_settings_default(&set);
    set.dtype = dt;
    gala_qp_solver *s = NULL;
    gala_status st = bad ? GALA_ERR_INTERNAL : gala_qp_setup(ctx, pb, COUNT, &set, &s);
    if (st == GALA_OK) st = gala_qp_solve(s);
    if (st != GALA_OK) {
        fprintf(stderr, "FAIL: persona %s QP mpc:10x%d: %s (%s)\n", p->name, COUNT,
                gala_status_string(st), gala_last_error(ctx));
        bad = 1;
    }
    gala_qp_destroy(s);
    for (int k = 0; k < made; ++k) gala_qp_problem_free(&pb[k]);
    free(pb);
    return bad;
}

/* Control QPs (nx = 2: 32 variables, 54 rows) through each linear-system strategy. */
static int qps(gala_context *ctx, const persona *p, gala_dtype dt)
{
    static const int ls[] = {GALA_QP_LINSYS_AUTO, GALA_QP_LINSYS_DENSE, GALA_QP_LINSYS_SPARSE_LDLT,
                             GALA_QP_LINSYS_PCG};
    const int n = 2;
    gala_qp_problem pb[2];
    for (int k = 0; k < 2; ++k)
        if (gala_qp_generate(GALA_QP_GEN_CONTROL, n, 7 + (uint64_t)k, &pb[k]) != GALA_OK) return 1;
    int bad = 0;
    for (size_t i = 0; i < sizeof ls / sizeof ls[0] && !bad; ++i) {
        gala_qp_settings set;
        gala_qp_settings_default(&set);
        set.dtype = dt;
        set.linsys_solver = ls[i];
        set.max_iter = 200;
        gala_qp_solver *s = NULL;
        gala_status st = gala_qp_setup(ctx, pb, 2, &set, &s);
        if (st == GALA_OK) st = gala_qp_solve(s);
        if (st != GALA_OK) {
            fprintf(stderr, "FAIL: persona %s QP linsys %d: %s (%s)\n", p->name, ls[i],
                    gala_status_string(st), gala_last_error(ctx));
            bad = 1;
        }
        gala_qp_destroy(s);
    }
    for (int k = 0; k < 2; ++k) gala_qp_problem_free(&pb[k]);
    if (pose == GALA_BACKEND_CUDA && !bad) bad = mpc_batch(ctx, p, dt);
    return bad;
}

static int run_persona(const persona *p, gala_dtype dt)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_HOST;
    gala_context *ctx = NULL;
    if (gala_context_create(&o, &ctx) != GALA_OK) {
        fprintf(stderr, "FAIL: no host context\n");
        return 1;
    }
    /* the pose: what an OpenCL (or CUDA) device of this kind reports (tuning and sizes read
     * only these) */
    ctx->info.backend = pose;
    snprintf(ctx->info.platform_name, sizeof ctx->info.platform_name, "%s",
             pose == GALA_BACKEND_CUDA ? "CUDA" : p->vendor);
    snprintf(ctx->info.vendor_name, sizeof ctx->info.vendor_name, "%s", p->vendor);
    snprintf(ctx->info.device_name, sizeof ctx->info.device_name, "%s", p->device);
    ctx->info.local_mem_bytes = p->local_mem;
    ctx->info.max_work_group_size = p->max_wg;
    ctx->info.is_gpu = p->is_gpu;
    ctx->info.fp64 = 1;
    if (pose == GALA_BACKEND_CUDA) ctx->info.subgroup_size = 32;
    if (p->units) ctx->info.compute_units = p->units;
    if (p->mem) ctx->info.global_mem_bytes = ctx->info.max_alloc_bytes = p->mem;
    gala_tune_invalidate(ctx);
    int bad = 0;
    char msg[512];
    for (int i = 0; i < tu_op_count; ++i) {
        if (tu_ops[i].flags & (TU_OP_NO_CTX | TU_OP_HOST_ONLY)) continue;
        if (!strcmp(tu_ops[i].name, "timer")) continue; /* the host's timers, not a program */
        msg[0] = '\0';
        gala_status s = tu_ops[i].run(ctx, dt, 1234 + (uint64_t)i, msg, sizeof msg);
        if (s != GALA_OK) {
            fprintf(stderr, "FAIL: persona %s %s %s: %s %s (%s)\n", p->name,
                    gala_dtype_name(dt), tu_ops[i].name, gala_status_string(s), msg,
                    gala_last_error(ctx));
            bad = 1;
        }
    }
    bad |= sweep(ctx, p, dt);
    bad |= qps(ctx, p, dt);
    bad |= record(ctx, p);
    gala_context_destroy(ctx);
    return bad;
}

/* One persona per vendor / device name of the tuning rows of backend `be` and of any backend
 * (rows for a property the device reports, "@cpu", have their persona already). */
static void row_personas(gala_backend be_want)
{
    const char *family, *key, *vendor, *device;
    gala_backend be;
    for (int i = 0; gala_tune_row(i, &family, &key, &be, &vendor, &device); ++i) {
        if (be != 0 && be != be_want) continue;
        if (!vendor && !device) continue;
        if (vendor && vendor[0] == '@') continue;
        char dev[128] = "generic GPU";
        if (device) {
            snprintf(dev, sizeof dev, "%s", device);
            char *bar = strchr(dev, '|');
            if (bar) *bar = '\0';
        }
        char name[96];
        snprintf(name, sizeof name, "row:%.40s/%.48s", vendor ? vendor : "*", dev);
        if (be_want == GALA_BACKEND_CUDA) {
            /* CUDA's vendor is NVIDIA; a row for another vendor never matches a CUDA device */
            if (vendor && !strstr(vendor, "NVIDIA")) continue;
            add_cuda_persona(name, dev, 132, 80);
            continue;
        }
        const int nv = vendor && strstr(vendor, "NVIDIA");
        add_persona(name, vendor ? vendor : "gala offline", dev, nv ? 49152 : 65536, 1024, 1);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--cuda")) {
        pose = GALA_BACKEND_CUDA;
        ++argv, --argc;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: offline_programs [--cuda] OUT_FILE\n");
        return 2;
    }
    if (pose == GALA_BACKEND_CUDA) {
        /* NVIDIA's GPUs as the CUDA driver names them: the rows without a device name (the
         * defaults) and the device rows (H100|H200) */
        add_cuda_persona("a100", "NVIDIA A100-SXM4-80GB", 108, 80);
        add_cuda_persona("h100", "NVIDIA H100 80GB HBM3", 132, 80);
        add_cuda_persona("h100-pcie", "NVIDIA H100 PCIe", 114, 80);
        add_cuda_persona("h200", "NVIDIA H200", 132, 141);
        add_cuda_persona("rtx4090", "NVIDIA GeForce RTX 4090", 128, 24);
        add_cuda_persona("l4", "NVIDIA L4", 58, 24);
        row_personas(GALA_BACKEND_CUDA);
    } else {
        /* the devices of the offline targets, and a generic GPU for the defaults */
        add_persona("generic-gpu", "gala offline", "generic GPU", 65536, 1024, 1);
        add_persona("gfx90a", "Advanced Micro Devices, Inc.", "gfx90a", 65536, 256, 1);
        add_persona("gfx1100", "Advanced Micro Devices, Inc.", "gfx1100", 65536, 1024, 1);
        for (int i = 0; i < npersonas; ++i) personas[i].amd = 1;
        add_persona("intel-gpu", "Intel(R) Corporation", "Intel(R) Arc(TM) A770 Graphics", 65536, 512, 1);
        add_persona("rusticl-llvmpipe", "Mesa/X.org", "llvmpipe (LLVM 15.0.6, 256 bits)", 32768, 1024, 0);
        /* an OpenCL CPU device with PoCL's 512 KiB of local memory: the "cpu" rows */
        add_persona("cpu-512k", "gala offline", "generic CPU", 524288, 1024, 0);
        row_personas(GALA_BACKEND_OPENCL);
    }
    int bad = 0;
    for (int i = 0; i < npersonas; ++i) {
        bad |= run_persona(&personas[i], GALA_FLOAT);
        bad |= run_persona(&personas[i], GALA_DOUBLE);
        fprintf(stderr, "persona %-40s programs so far: %d\n", personas[i].name, nprogs);
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        fprintf(stderr, "FAIL: cannot write %s\n", argv[1]);
        return 1;
    }
    for (int i = 0; i < nprogs; ++i)
        fprintf(f, "%s\t%s\t%s\t%zu\t%d\n", progs[i].family, progs[i].opts,
                progs[i].nvidia_only ? "nvidia" : "any", progs[i].min_local, progs[i].amd);
    fclose(f);
    fprintf(stderr, "%d personas, %d distinct programs%s\n", npersonas, nprogs,
            bad ? "; FAILED" : "");
    return bad;
}
