/*
 * bench_ceiling: the two ceilings every other benchmark is compared with, measured on the
 * device of the common options in the same run as the benchmarks:
 *   - copy: device-to-device copy bandwidth (bu_copy_gbs: 1 GiB on a GPU, 64 MiB on a CPU,
 *     bytes read + written), the memory floor of the memory-bound cases;
 *   - gemm: C = A·B of n×n matrices through gala's internal BLAS-3 (src/core/blas3.h:
 *     CLBlast on OpenCL, cuBLAS on CUDA, blocked C loops on the host backend; gala's own
 *     cl/gemm_tc.cl where the tuning data says blas3.tc, e.g. double on the H100/H200's
 *     OpenCL; GALA_TUNE=blas3.tc=0 measures the library instead), 2n³ flops,
 *     float and double; the flop floor of the compute-bound cases. Skipped (and said so)
 *     when the backend has no BLAS-3 (OpenCL built without CLBlast).
 * The reference side (torch.matmul, torch copy) is bench/ref_ceiling.py.
 *
 *   bench_ceiling [common options: --backend --platform --device --reps --warmup --json
 *                 --quick, see benchutil.h] [--gemm-n 8192[,4096...]] [--dtype float|double|both]
 *
 * Default GEMM order: 8192 (a GPU), 1024 with --quick or on a CPU device.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "benchutil.h"

int main(int argc, char **argv)
{
    bu_opts o;
    gala_context *ctx = bu_init(&argc, argv, &o);
    if (!ctx) return 1;
    gala_device_info info;
    gala_context_info(ctx, &info);
    int sizes[8], nsizes = 0, dtypes = 3;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--gemm-n") && i + 1 < argc) {
            for (const char *s = argv[++i]; s && *s && nsizes < 8;) {
                sizes[nsizes++] = atoi(s);
                s = strchr(s, ',');
                if (s) ++s;
            }
        } else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
            ++i;
            dtypes = !strcmp(argv[i], "float") ? 1 : !strcmp(argv[i], "double") ? 2 : 3;
        } else {
            fprintf(stderr, "usage: %s [--backend B] [--platform P] [--device D] [--reps N] "
                    "[--warmup N] [--json FILE] [--quick] [--gemm-n N[,N...]] "
                    "[--dtype float|double|both]\n", argv[0]);
            gala_context_destroy(ctx);
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (!nsizes) sizes[nsizes++] = (o.quick || !info.is_gpu) ? 1024 : 8192;

    bu_progress("ceiling: copy bandwidth", 0, 1 + 2 * nsizes);
    const double copy = bu_copy_gbs(ctx);
    bu_progress_clear();
    bu_json *js = bu_json_open(o.json, "ceiling", ctx);
    if (o.json && !js) fprintf(stderr, "cannot write %s\n", o.json);
    const size_t copy_n = info.is_gpu ? (size_t)1 << 28 : (size_t)1 << 24;
    printf("%-6s %6s %-6s %10s %10s %10s %10s %9s\n", "kind", "n", "dtype", "median ms", "p10 ms",
           "p90 ms", "GFLOP/s", "GB/s");
    if (copy > 0) {
        const double ms = 2.0 * 4.0 * (double)copy_n / (copy * 1e6);
        printf("%-6s %6s %-6s %10.4f %10s %10s %10s %9.1f\n", "copy", "-", "float", ms, "-", "-",
               "-", copy);
        bu_json_row(js, "siisdd", "kind", "copy", "n", (int)copy_n, "batch", 1, "dtype", "float",
                    "median_ms", ms, "gbs", copy);
    } else {
        fprintf(stderr, "copy bandwidth: measurement failed: %s\n", gala_last_error(ctx));
    }

    int failed = copy <= 0, step = 1;
    if (!gala_blas3_available(ctx)) {
        printf("# gemm: this backend has no BLAS-3 (OpenCL without CLBlast?): not measured\n");
        bu_json_row(js, "ss", "kind", "gemm_unavailable", "why",
                    "the backend has no BLAS-3 (OpenCL built without CLBlast)");
        nsizes = 0;
    }
    double *ms = malloc((size_t)o.reps * sizeof *ms);
    for (int d = 0; d < 2 && ms; ++d) {
        const gala_dtype dt = d ? GALA_DOUBLE : GALA_FLOAT;
        if (!(dtypes & (1 << d)) || (dt == GALA_DOUBLE && !info.fp64)) continue;
        for (int k = 0; k < nsizes; ++k) {
            const int n = sizes[k];
            char label[64];
            snprintf(label, sizeof label, "ceiling: gemm n=%d %s", n, gala_dtype_name(dt));
            bu_progress(label, step++, 1 + 2 * nsizes);
            const size_t nn = (size_t)n * n;
            bench_gemm g = {ctx, NULL, NULL, NULL, n};
            gala_status s = gala_buffer_create(ctx, dt, nn, &g.A);
            if (s == GALA_OK) s = gala_buffer_create(ctx, dt, nn, &g.B);
            if (s == GALA_OK) s = gala_buffer_create(ctx, dt, nn, &g.C);
            /* constant inputs: the flop rate of dense GEMM does not depend on the values */
            if (s == GALA_OK) s = gala_buffer_fill(g.A, 0, nn, 0.5);
            if (s == GALA_OK) s = gala_buffer_fill(g.B, 0, nn, 0.25);
            if (s == GALA_OK) s = bu_time(ctx, bench_gemm_run, &g, o.warmup, o.reps, ms);
            gala_buffer_free(g.A);
            gala_buffer_free(g.B);
            gala_buffer_free(g.C);
            bu_progress_clear();
            if (s != GALA_OK) {
                fprintf(stderr, "gemm n=%d %s: %s\n", n, gala_dtype_name(dt), gala_last_error(ctx));
                failed = 1;
                continue;
            }
            const double med = bu_median(ms, o.reps), p10 = bu_pct(ms, o.reps, 0.1),
                         p90 = bu_pct(ms, o.reps, 0.9);
            const double flops = 2.0 * (double)n * n * n, gf = flops / (med * 1e6);
            const double gbs = 4.0 * (double)nn * (double)gala_dtype_size(dt) / (med * 1e6);
            printf("%-6s %6d %-6s %10.4f %10.4f %10.4f %10.1f %9.1f\n", "gemm", n,
                   gala_dtype_name(dt), med, p10, p90, gf, gbs);
            fflush(stdout);
            bu_json_row(js, "siisddddd", "kind", "gemm", "n", n, "batch", 1, "dtype",
                        gala_dtype_name(dt), "median_ms", med, "p10_ms", p10, "p90_ms", p90,
                        "gflops", gf, "gbs", gbs);
        }
    }
    bu_progress("ceiling", 1 + 2 * nsizes, 1 + 2 * nsizes);
    free(ms);
    bu_json_close(js);
    gala_context_destroy(ctx);
    return failed;
}
