#define _POSIX_C_SOURCE 200809L
/*
 * gala-info: list every backend, platform and device gala can see, and self-test each one:
 * first one kernel (compile it, run it, check the answer, time it, and say whether the
 * compiled kernel came from the on-disk cache), then every kernel family (potrf, potrs,
 * trtri, ldlt, sparse LDLᵀ, QP: a tiny batch each, checked against its known answer,
 * tools/gala_selftest.c) in float, and in double where the device has fp64.
 *
 * Exit code: 0 if at least one device passed all its self-tests, 1 otherwise, 2 on bad
 * usage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gala/gala.h"
#include "gala_selftest.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* y = 2x + y on 4 × 1000 elements, then ‖y‖∞ per item; checked against the exact answer. */
static gala_status self_test(gala_context *ctx, gala_dtype dt, char *detail, size_t cap)
{
    enum { N = 1000, B = 4 };
    static double x[N * B], y[N * B], r[B];
    for (int i = 0; i < N * B; ++i) { x[i] = (i % 97) - 48; y[i] = (i % 13); }
    gala_buffer *bx = NULL, *by = NULL, *br = NULL;
    gala_status s = GALA_OK;
    float f[N * B];
    if ((s = gala_buffer_create(ctx, dt, N * B, &bx)) || (s = gala_buffer_create(ctx, dt, N * B, &by)) ||
        (s = gala_buffer_create(ctx, dt, B, &br)))
        goto done;
    if (dt == GALA_FLOAT) {
        for (int i = 0; i < N * B; ++i) f[i] = (float)x[i];
        if ((s = gala_buffer_write(bx, 0, N * B, f))) goto done;
        for (int i = 0; i < N * B; ++i) f[i] = (float)y[i];
        if ((s = gala_buffer_write(by, 0, N * B, f))) goto done;
    } else if ((s = gala_buffer_write(bx, 0, N * B, x)) || (s = gala_buffer_write(by, 0, N * B, y))) {
        goto done;
    }
    if ((s = gala_axpby_batched(ctx, N, 2.0, bx, 0, N, 1.0, by, 0, N, B)) ||
        (s = gala_norm_inf_batched(ctx, N, by, 0, N, br, 0, B)))
        goto done;
    if (dt == GALA_FLOAT) {
        if ((s = gala_buffer_read(br, 0, B, f))) goto done;
        for (int b = 0; b < B; ++b) r[b] = f[b];
    } else if ((s = gala_buffer_read(br, 0, B, r))) {
        goto done;
    }
    for (int b = 0; b < B; ++b) {
        double want = 0;
        for (int i = 0; i < N; ++i) want = fmax(want, fabs(2 * x[b * N + i] + y[b * N + i]));
        if (r[b] != want) {
            snprintf(detail, cap, "wrong answer: item %d gave %g, expected %g", b, r[b], want);
            s = GALA_ERR_INTERNAL;
            goto done;
        }
    }
done:
    if (s != GALA_OK && !detail[0]) snprintf(detail, cap, "%s", gala_last_error(ctx));
    gala_buffer_free(bx);
    gala_buffer_free(by);
    gala_buffer_free(br);
    return s;
}

/* Every family in float, and in double where the device has fp64: one line per precision,
 * then a line per failure. Returns 1 when all passed. */
static int family_tests(gala_context *ctx, int fp64)
{
    int ok = 1;
    for (int d = 0; d < 1 + (fp64 != 0); ++d) {
        const gala_dtype dt = d ? GALA_DOUBLE : GALA_FLOAT;
        gst_result res[GST_FAMILIES];
        double total = 0;
        printf("    families, %-6s:", gala_dtype_name(dt));
        for (int f = 0; f < GST_FAMILIES; ++f) {
            gst_run(ctx, dt, f, &res[f]);
            total += res[f].seconds;
            printf(" %s %s %.1f s%s", gst_family_name(f),
                   res[f].status == GALA_OK ? "pass" : "FAIL", res[f].seconds,
                   f + 1 < GST_FAMILIES ? "," : "");
            fflush(stdout);
        }
        printf(" (%.1f s in all)\n", total);
        for (int f = 0; f < GST_FAMILIES; ++f)
            if (res[f].status != GALA_OK) {
                printf("      %s (%s) FAIL after %.1f s: %s\n", gst_family_name(f),
                       gala_dtype_name(dt), res[f].seconds, res[f].detail);
                ok = 0;
            }
    }
    return ok;
}

int main(int argc, char **argv)
{
    int families = 1, only = -1;
    const char *match = NULL; /* --device NAME: a substring of backend, platform or device */
    const char *devarg = "";
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
            printf("usage: gala-info [--quick] [--device N|NAME]\n"
                   "Lists the backends and devices gala can use and self-tests each one: one\n"
                   "kernel, then each kernel family (potrf, potrs, trtri, ldlt, sparse-ldlt, qp)\n"
                   "on a tiny batch with a known answer, in float and, where the device has fp64,\n"
                   "double.\n"
                   "--quick: the one-kernel test only.\n"
                   "--device N: only device N of the list (the # column); --device NAME: only the\n"
                   "devices whose backend, platform or device name contains NAME (e.g. host,\n"
                   "llvmpipe, gfx1100).\n"
                   "Environment: GALA_BACKEND, GALA_PLATFORM, GALA_DEVICE choose the default device;\n"
                   "GALA_HOST_THREADS caps the host backend's threads (its CUs column);\n"
                   "GALA_CACHE_DIR / GALA_CACHE=0 control the kernel cache.\n");
            return 0;
        }
        char *end = NULL;
        if (strcmp(argv[a], "--quick") == 0) {
            families = 0;
        } else if (strcmp(argv[a], "--device") == 0 && a + 1 < argc && argv[a + 1][0]) {
            devarg = argv[++a];
            only = (int)strtol(devarg, &end, 10);
            if (*end || only < 0) {
                only = -1;
                match = argv[a];
            }
        } else {
            fprintf(stderr, "gala-info: bad argument '%s' (try --help)\n", argv[a]);
            return 2;
        }
    }
    printf("gala %s\n", gala_version());
    printf("backends in this build: host%s%s\n",
           gala_backend_available(GALA_BACKEND_OPENCL) ? ", opencl" : "",
           gala_backend_available(GALA_BACKEND_CUDA) ? ", cuda" : "");
    int count = 0;
    if (gala_device_list(NULL, 0, &count) != GALA_OK) count = 0;
    gala_device_desc *devs = calloc((size_t)(count ? count : 1), sizeof *devs);
    if (!devs || gala_device_list(devs, count, &count) != GALA_OK) {
        fprintf(stderr, "gala-info: cannot list devices\n");
        return 1;
    }
    int passed = 0;
    printf("\n%-3s %-7s %-28s %-36s %-5s %-4s %-6s %-9s %-6s %s\n", "#", "backend", "platform",
           "device", "type", "CUs", "fp64", "selftest", "ms", "kernel");
    int tested = 0;
    for (int i = 0; i < count; ++i) {
        gala_device_desc *d = &devs[i];
        if (only >= 0 && i != only) continue;
        if (match && !strstr(gala_backend_name(d->backend), match) &&
            !strstr(d->platform_name, match) && !strstr(d->device_name, match))
            continue;
        tested++;
        gala_context_options o;
        gala_context_options_default(&o);
        o.use_environment = 0;
        o.backend = d->backend;
        char pidx[16], didx[16];
        snprintf(pidx, sizeof pidx, "%d", d->platform_index);
        snprintf(didx, sizeof didx, "%d", d->device_index);
        if (d->backend == GALA_BACKEND_OPENCL) { o.platform = pidx; o.device = didx; }
        if (d->backend == GALA_BACKEND_CUDA) o.device = didx;
        gala_context *ctx = NULL;
        gala_device_info info;
        memset(&info, 0, sizeof info);
        char detail[1024] = "";
        const char *verdict = "FAIL", *origin = "-";
        double ms = 0;
        gala_status s = gala_context_create(&o, &ctx);
        if (s == GALA_OK) {
            gala_context_info(ctx, &info);
            double t0 = now();
            s = self_test(ctx, info.fp64 ? GALA_DOUBLE : GALA_FLOAT, detail, sizeof detail);
            ms = 1e3 * (now() - t0);
            gala_stats st;
            gala_context_stats(ctx, &st);
            if (s == GALA_OK) {
                verdict = "pass";
                passed++;
            }
            origin = d->backend == GALA_BACKEND_HOST ? "C (host)"
                     : st.programs_from_cache > 0   ? "disk cache"
                     : st.programs_built > 0        ? "compiled"
                                                    : "-";
        } else {
            snprintf(detail, sizeof detail, "%s", gala_last_error(NULL));
        }
        printf("%-3d %-7s %-28.28s %-36.36s %-5s %-4d %-6s %-9s %-6.1f %s\n", i,
               gala_backend_name(d->backend), d->platform_name, d->device_name,
               d->is_gpu ? "GPU" : "CPU", info.compute_units, info.fp64 ? "yes" : "no", verdict,
               ms, origin);
        if (ctx) {
            printf("    driver %s, %s, %.1f GiB, local memory %zu KiB, max work-group %zu\n",
                   info.driver_version, info.device_version,
                   (double)info.global_mem_bytes / (1024.0 * 1024 * 1024),
                   info.local_mem_bytes / 1024, info.max_work_group_size);
        }
        if (s != GALA_OK) printf("    error: %s\n", detail);
        if (s == GALA_OK && families && !family_tests(ctx, info.fp64)) passed--;
        char fb[4096];
        int nfb = 0;
        if (ctx && gala_context_fallbacks(ctx, fb, sizeof fb, &nfb) == GALA_OK && nfb > 0)
            printf("    kernel fallbacks (the device failed to build these programs):\n    %s\n",
                   fb);
        gala_context_destroy(ctx);
    }
    gala_context *def = NULL;
    if (gala_context_create(NULL, &def) == GALA_OK) {
        gala_device_info info;
        gala_context_info(def, &info);
        printf("\ndefault device (GALA_BACKEND/GALA_PLATFORM/GALA_DEVICE): %s: %s\n",
               info.backend_name, info.device_name);
        gala_context_destroy(def);
    } else {
        printf("\ndefault device: none (%s)\n", gala_last_error(NULL));
    }
    if (tested == 0) printf("no device matches --device %s\n", devarg);
    printf("%d of %d devices passed the self-test%s\n", passed, tested,
           families ? "s (one kernel and every family)" : " (one kernel)");
    free(devs);
    return passed > 0 ? 0 : 1;
}
