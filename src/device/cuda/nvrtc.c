/* NVRTC compilation of kernel programs (see nvrtc_compile.h). */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvrtc_compile.h"

typedef struct args_builder {
    gala_nvrtc_args *a;
    size_t used;
    int overflow;
} args_builder;

static void add_n(args_builder *b, const char *s, size_t n)
{
    gala_nvrtc_args *a = b->a;
    if (a->argc >= GALA_NVRTC_MAX_ARGS || b->used + n + 1 > sizeof a->buf) {
        b->overflow = 1;
        return;
    }
    char *dst = a->buf + b->used;
    memcpy(dst, s, n);
    dst[n] = '\0';
    a->argv[a->argc++] = dst;
    b->used += n + 1;
}

static void add(args_builder *b, const char *s) { add_n(b, s, strlen(s)); }

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* One word of the core's options, converted; 0 when it has no NVRTC equivalent. */
static int convert(args_builder *b, const char *w, size_t n)
{
    static const struct { const char *cl, *nv; } map[] = {
        {"-cl-fast-relaxed-math", "--use_fast_math"},
        {"-cl-mad-enable", "--fmad=true"},
        {"-cl-denorms-are-zero", "--ftz=true"},
        {"-w", "-w"},
    };
    if (n > 2 && (strncmp(w, "-D", 2) == 0 || strncmp(w, "-U", 2) == 0)) {
        add_n(b, w, n);
        return 1;
    }
    if (n >= 8 && strncmp(w, "-cl-std=", 8) == 0) return 1; /* NVRTC has its own standard */
    for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i) {
        if (strlen(map[i].cl) == n && strncmp(w, map[i].cl, n) == 0) {
            add(b, map[i].nv);
            return 1;
        }
    }
    return 0;
}

gala_status gala_nvrtc_args_make(const gala_context *ctx, const char *target, const char *options,
                                 gala_nvrtc_args *a)
{
    args_builder b = {a, 0, 0};
    char arch[64];
    memset(a, 0, sizeof *a);
    snprintf(arch, sizeof arch, "--gpu-architecture=%s", target);
    add(&b, arch);
    add(&b, "--std=c++17");
    add(&b, "-default-device"); /* helpers and program-scope tables without __device__ */
    const char *extra = getenv("GALA_NVRTC_OPTIONS");
    for (const char *p = extra ? extra : ""; *p;) {
        while (is_space(*p)) ++p;
        const char *w = p;
        while (*p && !is_space(*p)) ++p;
        if (p > w) add_n(&b, w, (size_t)(p - w));
    }
    for (const char *p = options ? options : ""; *p;) {
        while (is_space(*p)) ++p;
        const char *w = p;
        while (*p && !is_space(*p)) ++p;
        if (p > w && !convert(&b, w, (size_t)(p - w)))
            return gala_error(ctx, GALA_ERR_KERNEL_BUILD,
                              "kernel option '%.*s' has no NVRTC equivalent (options: %s)",
                              (int)(p - w), w, options);
    }
    if (b.overflow)
        return gala_error(ctx, GALA_ERR_INTERNAL, "NVRTC options too long: %s %s",
                          extra ? extra : "", options ? options : "");
    size_t k = 0;
    for (int i = 0; i < a->argc; ++i)
        k += (size_t)snprintf(a->text + k, sizeof a->text - k, "%s%s", i ? " " : "", a->argv[i]);
    return GALA_OK;
}

static gala_status nv_fail(const gala_context *ctx, nvrtcResult r, const char *what)
{
    return gala_error(ctx, r == NVRTC_ERROR_OUT_OF_MEMORY ? GALA_ERR_OUT_OF_MEMORY : GALA_ERR_KERNEL_BUILD,
                      "%s failed: %s (%d)", what, nvrtcGetErrorString(r), (int)r);
}

gala_status gala_nvrtc_compile(const gala_context *ctx, const char *what, const char *prog_name,
                               const char *source, const gala_nvrtc_args *a, int cubin,
                               void **image, size_t *size)
{
    nvrtcProgram prog;
    *image = NULL;
    *size = 0;
    nvrtcResult r = nvrtcCreateProgram(&prog, source, prog_name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) return nv_fail(ctx, r, "nvrtcCreateProgram");
    gala_status s = GALA_OK;
    r = nvrtcCompileProgram(prog, a->argc, a->argv);
    if (r != NVRTC_SUCCESS) {
        s = r == NVRTC_ERROR_COMPILATION
                ? gala_error(ctx, GALA_ERR_KERNEL_BUILD,
                             "%s failed to compile with NVRTC (%s); compiler log:\n", what, a->text)
                : nv_fail(ctx, r, "nvrtcCompileProgram");
        size_t n = 0;
        if (s == GALA_ERR_KERNEL_BUILD && nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
            char *log = gala_malloc(n + 1);
            if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) {
                log[n] = '\0';
                gala_error_append(ctx, log);
            }
            gala_free(log);
        }
        nvrtcDestroyProgram(&prog);
        return s;
    }
    size_t n = 0;
    r = cubin ? nvrtcGetCUBINSize(prog, &n) : nvrtcGetPTXSize(prog, &n);
    if (r != NVRTC_SUCCESS || n == 0) {
        s = r != NVRTC_SUCCESS ? nv_fail(ctx, r, cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize")
                               : gala_error(ctx, GALA_ERR_KERNEL_BUILD, "%s: NVRTC produced no code", what);
    } else {
        void *img = gala_malloc(n);
        if (!img) {
            s = gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for compiled kernels");
        } else {
            r = cubin ? nvrtcGetCUBIN(prog, img) : nvrtcGetPTX(prog, img);
            if (r != NVRTC_SUCCESS) {
                gala_free(img);
                s = nv_fail(ctx, r, cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX");
            } else {
                *image = img;
                *size = n;
            }
        }
    }
    nvrtcDestroyProgram(&prog);
    return s;
}

void gala_nvrtc_version(int *major, int *minor)
{
    *major = *minor = 0;
    nvrtcVersion(major, minor);
}

/* NVRTC's supported architectures, ascending (at most 64 are considered). */
static int archs(int *out, int cap)
{
    int n = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return 0;
    int *all = gala_malloc((size_t)n * sizeof *all);
    if (!all) return 0;
    if (nvrtcGetSupportedArchs(all) != NVRTC_SUCCESS) n = 0;
    int k = 0;
    for (int i = 0; i < n && k < cap; ++i) out[k++] = all[i];
    gala_free(all);
    return k;
}

int gala_nvrtc_pick_arch(int cc, int *arch, int *exact)
{
    int a[64], n = archs(a, 64), best = 0;
    for (int i = 0; i < n; ++i)
        if (a[i] <= cc && a[i] > best) best = a[i];
    *arch = best;
    *exact = best == cc;
    return best > 0;
}

void gala_nvrtc_arch_range(int *oldest, int *newest)
{
    int a[64], n = archs(a, 64);
    *oldest = *newest = 0;
    for (int i = 0; i < n; ++i) {
        if (!*oldest || a[i] < *oldest) *oldest = a[i];
        if (a[i] > *newest) *newest = a[i];
    }
}
