/*
 * Every kernel family of cl/ compiles for CUDA through NVRTC, with the CUDA backend's own
 * options, in float and double: to PTX for an old and a current virtual architecture
 * (compute_75, compute_90) and to CUBIN for sm_90 (which also runs ptxas: register and
 * shared-memory limits). No GPU is needed, so a kernel that does not compile for CUDA
 * fails CI. The -D values come from the `gala-defines:` line of each .cl file (and, for a
 * kernel compiled only under its own values, from its `gala-defines(kernel):` line).
 *
 * The PTX is also checked against the host backend's kernel table: every kernel of the
 * family exists on both sides, with parameter lists of the same kinds (a mismatch would
 * read garbage on CUDA, which does not check argument sizes the way OpenCL does).
 *
 * The compilations run on threads before the tests (compile_ahead): NVRTC compiles
 * different programs concurrently, and one at a time this program took 330-480 s in CI.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"
#include "device/cuda/nvrtc_compile.h"
#include "device/host/host_kernels.h"
#include "testutil.h"

#define MAX_KERNELS 64
#define GALA_CUDA_MAX_PARAMS_TEST 72

/* The text of cl/<family>.cl inside the assembled source (after its #line marker). */
static const char *family_text(const char *src, const char *family)
{
    char marker[96];
    snprintf(marker, sizeof marker, "#line 1 \"%s.cl\"", family);
    const char *p = strstr(src, marker);
    return p ? p + strlen(marker) : NULL;
}

/* " -DNAME=value ..." from the file's `gala-defines:` line, or with kernel != NULL from its
 * `gala-defines(kernel):` line (a kernel compiled only under its own -D values, e.g. inside
 * #if LANE); 0 when there is none. */
static int defines(const char *text, const char *kernel, char *out, size_t cap)
{
    char tag[96];
    if (kernel) snprintf(tag, sizeof tag, "gala-defines(%s):", kernel);
    else snprintf(tag, sizeof tag, "gala-defines:");
    const char *p = strstr(text, tag);
    if (!p) return 0;
    p += strlen(tag);
    size_t k = 0;
    out[0] = '\0';
    while (*p && *p != '\n') {
        while (*p == ' ' || *p == '\t') ++p;
        const char *w = p;
        while (*p && *p != '\n' && *p != ' ' && *p != '\t') ++p;
        if (p > w && strchr(w, '=') && strchr(w, '=') < p)
            k += (size_t)snprintf(out + k, cap - k, " -D%.*s", (int)(p - w), w);
    }
    return 1;
}

/* Names of the kernels of a family: every `KERNEL void name(`. */
static int kernel_names(const char *text, char names[][64], int cap)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, "KERNEL")) != NULL; p += 6) {
        const char *q = p + 6;
        while (*q == ' ' || *q == '\n') ++q;
        if (strncmp(q, "void", 4) != 0) continue;
        q += 4;
        while (*q == ' ' || *q == '\n') ++q;
        size_t len = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        if (len == 0 || len >= 64 || n >= cap) continue;
        memcpy(names[n], q, len);
        names[n][len] = '\0';
        ++n;
    }
    return n;
}

/* The parameter kinds of kernel `name` in PTX, one letter each: 'q' 64-bit integer or
 * pointer, 'w' 32-bit integer, 'f' float, 'd' double, '?' other. -1 when absent. */
static int ptx_params(const char *ptx, const char *name, char *kinds, int cap)
{
    char head[96];
    snprintf(head, sizeof head, ".entry %s(", name);
    const char *p = strstr(ptx, head);
    if (!p) return -1;
    const char *end = strchr(p, ')');
    int n = 0;
    for (p += strlen(head); p && p < end && n < cap - 1; p = strchr(p, '\n')) {
        const char *prm = strstr(p, ".param ");
        if (!prm || prm > end) break;
        p = prm + 7;
        char k = '?';
        if (!strncmp(p, ".u64", 4) || !strncmp(p, ".s64", 4) || !strncmp(p, ".b64", 4)) k = 'q';
        else if (!strncmp(p, ".u32", 4) || !strncmp(p, ".s32", 4) || !strncmp(p, ".b32", 4)) k = 'w';
        else if (!strncmp(p, ".f32", 4)) k = 'f';
        else if (!strncmp(p, ".f64", 4)) k = 'd';
        kinds[n++] = k;
    }
    kinds[n] = '\0';
    return n;
}

/* Lines of double-precision arithmetic in PTX (declarations and conversions excluded). */
static int f64_ops(const char *ptx)
{
    int n = 0;
    for (const char *p = ptx; (p = strstr(p, ".f64")) != NULL; p += 4) {
        const char *bol = p;
        while (bol > ptx && bol[-1] != '\n') --bol;
        while (*bol == '\t' || *bol == ' ') ++bol;
        if (strncmp(bol, ".reg", 4) && strncmp(bol, ".param", 6) && strncmp(bol, "cvt", 3) &&
            strncmp(bol, "ld.param", 8) && strncmp(bol, "mov", 3))
            ++n;
        const char *eol = strchr(p, '\n');
        if (!eol) break;
        p = eol - 3; /* one count per line */
    }
    return n;
}

/* ---- compiling ahead: the compilations of the tests below, run on threads before the
 * tests start (NVRTC compiles different programs concurrently), so that the test program
 * takes a fraction of the time on several cores (it compiles every family: minutes on one
 * core). A test's compile() takes the result from here; a failed one is compiled again by
 * the test, which then reports its message. $GALA_BUILD_THREADS sets the threads (1: none
 * ahead, every compilation in its test). */
typedef struct ahead_job {
    char target[16];
    int cubin;
    const char *source; /* owned by ahead_src */
    char options[640];
    gala_status status;
    void *image;
    size_t size;
} ahead_job;

#define AHEAD_MAX 256
static ahead_job ahead[AHEAD_MAX];
static int n_ahead;
static char *ahead_src[64];
static int n_ahead_src;
static atomic_int ahead_next;

static gala_status compile_now(const char *target, int cubin, const char *what, const char *source,
                               const char *options, char **image, size_t *size);

static void *ahead_thread(void *arg)
{
    (void)arg;
    for (int i; (i = atomic_fetch_add(&ahead_next, 1)) < n_ahead;) {
        ahead_job *j = &ahead[i];
        char *img = NULL;
        j->status = compile_now(j->target, j->cubin, "ahead", j->source, j->options, &img, &j->size);
        j->image = img;
    }
    return NULL;
}

static void ahead_add(const char *target, int cubin, const char *source, const char *options)
{
    if (n_ahead >= AHEAD_MAX) return;
    ahead_job *j = &ahead[n_ahead++];
    snprintf(j->target, sizeof j->target, "%s", target);
    j->cubin = cubin;
    j->source = source;
    snprintf(j->options, sizeof j->options, "%s", options);
    j->status = GALA_ERR_INTERNAL;
}

static void ahead_run(int nthreads)
{
    pthread_t th[64];
    int n = 0;
    if (nthreads > 64) nthreads = 64;
    while (n < nthreads && pthread_create(&th[n], NULL, ahead_thread, NULL) == 0) ++n;
    ahead_thread(NULL);
    for (int i = 0; i < n; ++i) pthread_join(th[i], NULL);
}

static gala_status compile(const char *target, int cubin, const char *what, const char *source,
                           const char *options, char **image, size_t *size)
{
    for (int i = 0; i < n_ahead; ++i) {
        const ahead_job *j = &ahead[i];
        if (j->status != GALA_OK || j->cubin != cubin || strcmp(j->target, target) ||
            strcmp(j->options, options) || strcmp(j->source, source))
            continue;
        *image = gala_malloc(j->size);
        ck_assert_ptr_nonnull(*image);
        memcpy(*image, j->image, j->size);
        *size = j->size;
        return GALA_OK;
    }
    return compile_now(target, cubin, what, source, options, image, size);
}

static gala_status compile_now(const char *target, int cubin, const char *what, const char *source,
                               const char *options, char **image, size_t *size)
{
    gala_nvrtc_args a;
    gala_status s = gala_nvrtc_args_make(NULL, target, options, &a);
    if (s != GALA_OK) return s;
    void *img = NULL;
    s = gala_nvrtc_compile(NULL, what, "test.cu", source, &a, cubin, &img, size);
    *image = img;
    return s;
}

/* "-DREAL=... [-DGALA_DOUBLE=1] -D..." from the family's (or kernel's) `gala-defines` line. */
static int family_options(const char *text, const char *kernel, int dbl, char *out, size_t cap)
{
    char defs[512];
    if (!defines(text, kernel, defs, sizeof defs)) return 0;
    snprintf(out, cap, "-DREAL=%s%s%s", dbl ? "double" : "float", dbl ? " -DGALA_DOUBLE=1" : "",
             defs);
    return 1;
}

static const struct { const char *target; int cubin; } targets[] = {
    {"compute_75", 0}, {"sm_90", 1}, {"compute_90", 0}};
#define N_TARGETS (sizeof targets / sizeof targets[0])

START_TEST(family_compiles_for_cuda)
{
    const char *family = gala_kernel_family_name(_i / 2);
    int dbl = _i % 2;
    ck_assert_ptr_nonnull(family);
    char fam[64];
    snprintf(fam, sizeof fam, "%s", family);
    char *src = NULL;
    TU_OK(NULL, gala_kernel_source(NULL, fam, &src));
    const char *text = family_text(src, fam);
    ck_assert_msg(text != NULL, "no #line marker for %s.cl", fam);
    char options[640];
    ck_assert_msg(family_options(text, NULL, dbl, options, sizeof options),
                  "cl/%s.cl has no `gala-defines:` line in its header comment", fam);

    char *ptx = NULL;
    for (size_t t = 0; t < N_TARGETS; ++t) {
        char what[128];
        snprintf(what, sizeof what, "cl/%s.cl for %s", fam, targets[t].target);
        char *img = NULL;
        size_t size = 0;
        gala_status s = compile(targets[t].target, targets[t].cubin, what, src, options, &img, &size);
        ck_assert_msg(s == GALA_OK, "%s (%s): %s", what, options, gala_last_error(NULL));
        ck_assert_uint_gt(size, 0);
        if (t == 2) ptx = img;
        else gala_free(img);
    }

    /* kernels and their parameters against the host backend's table */
    gala_context *hctx = tu_host_ctx(0);
    gala_program_key key;
    gala_key_init(&key, fam, dbl ? GALA_DOUBLE : GALA_FLOAT);
    void *prog = NULL;
    int from_cache;
    gala_status s = gala_host_ops.program_build(hctx, &key, NULL, "", &prog, &from_cache);
    ck_assert_msg(s == GALA_OK, "the host backend has no family '%s' (every cl/ family needs "
                  "host kernels): %s", fam, gala_last_error(hctx));
    char names[MAX_KERNELS][64];
    int nk = kernel_names(text, names, MAX_KERNELS);
    ck_assert_msg(nk > 0, "cl/%s.cl declares no `KERNEL void name(`", fam);
    for (int k = 0; k < nk; ++k) {
        char kinds[GALA_CUDA_MAX_PARAMS_TEST];
        int np = ptx_params(ptx, names[k], kinds, (int)sizeof kinds);
        char kdefs[512];
        if (np < 0 && defines(text, names[k], kdefs, sizeof kdefs)) {
            /* a kernel under its own -D values: CUBIN for sm_90 and PTX for compute_90 */
            char kopt[640], what[192];
            family_options(text, names[k], dbl, kopt, sizeof kopt);
            char *img = NULL, *kptx = NULL;
            size_t size = 0;
            snprintf(what, sizeof what, "cl/%.63s.cl, kernel %.63s, for sm_90", fam, names[k]);
            gala_status ks = compile("sm_90", 1, what, src, kopt, &img, &size);
            ck_assert_msg(ks == GALA_OK, "%s (%s): %s", what, kopt, gala_last_error(NULL));
            gala_free(img);
            snprintf(what, sizeof what, "cl/%.63s.cl, kernel %.63s, for compute_90", fam, names[k]);
            ks = compile("compute_90", 0, what, src, kopt, &kptx, &size);
            ck_assert_msg(ks == GALA_OK, "%s (%s): %s", what, kopt, gala_last_error(NULL));
            np = ptx_params(kptx, names[k], kinds, (int)sizeof kinds);
            gala_free(kptx);
        }
        ck_assert_msg(np >= 0, "kernel %s.%s is not an entry point of the PTX (extern \"C\"?; "
                      "a kernel inside #if needs a `gala-defines(%s):` line)", fam, names[k],
                      names[k]);
        void *hk = NULL;
        s = gala_host_ops.kernel_create(hctx, prog, names[k], &hk);
        ck_assert_msg(s == GALA_OK, "kernel %s.%s has no host version", fam, names[k]);
        const char *sig = ((const gala_host_kernel *)hk)->sig;
        ck_assert_msg((int)strlen(sig) == np, "kernel %s.%s: %d parameters on CUDA, host "
                      "signature \"%s\"", fam, names[k], np, sig);
        for (int i = 0; i < np; ++i) {
            char want = sig[i] == 'i' ? 'w' : sig[i] == 'r' ? (dbl ? 'd' : 'f') : 'q';
            ck_assert_msg(kinds[i] == want, "kernel %s.%s (%s): parameter %d is '%c' in PTX "
                          "(%s), host signature \"%s\" says '%c'", fam, names[k],
                          dbl ? "double" : "float", i, kinds[i], kinds, sig, sig[i]);
        }
    }
    for (const gala_host_kernel *hk = ((const gala_host_family *)prog)->kernels; hk->name; ++hk) {
        char kdefs[512];
        ck_assert_msg(ptx_params(ptx, hk->name, (char[GALA_CUDA_MAX_PARAMS_TEST]){0},
                                 GALA_CUDA_MAX_PARAMS_TEST) >= 0 ||
                          defines(text, hk->name, kdefs, sizeof kdefs),
                      "host kernel %s.%s has no CUDA (cl/) version", fam, hk->name);
    }
    gala_context_destroy(hctx);

    if (!dbl) {
        int n = f64_ops(ptx);
        if (n > 0)
            fprintf(stderr, "note: cl/%s.cl in float has %d lines of double arithmetic in its PTX "
                    "(a double literal or function?)\n", fam, n);
    }
    gala_free(ptx);
    gala_free(src);
}
END_TEST

/* The QP solver's ADMM program in the launch classes the host picks (docs/qp.md): one QP
 * per work-group with the K⁻¹ product in column slices, one QP with vectors in global
 * memory, tiles of QPs sharing K⁻¹; float and double, to CUBIN for sm_90 (ptxas checks the
 * 48 KiB static shared memory the host's local budget assumes). The `gala-defines:` line
 * of cl/qp.cl covers one more class. */
static const char *const qp_classes[] = {
    "-DWG=384 -DTB=1 -DNCAP=192 -DMCAP=384 -DVLOCAL=1 -DREFINE=1 -DKS=2 -DRB=1",
    "-DWG=384 -DTB=1 -DNCAP=192 -DMCAP=384 -DVLOCAL=1 -DREFINE=0 -DKS=2 -DRB=1",
    "-DWG=256 -DTB=1 -DNCAP=1 -DMCAP=1 -DVLOCAL=0 -DREFINE=1 -DKS=1 -DRB=1",
    "-DWG=224 -DTB=16 -DNCAP=112 -DMCAP=112 -DVLOCAL=1 -DREFINE=1 -DKS=1 -DRB=2",
    "-DWG=128 -DTB=16 -DNCAP=112 -DMCAP=112 -DVLOCAL=1 -DREFINE=0 -DKS=1 -DRB=4",
    "-DWG=64 -DTB=2 -DNCAP=64 -DMCAP=64 -DVLOCAL=1 -DREFINE=1 -DKS=1 -DRB=2",
    "-DWG=224 -DTB=8 -DNCAP=112 -DMCAP=112 -DVLOCAL=1 -DREFINE=1 -DKS=1 -DRB=2 -DQB=4 -DTL=1"};
#define QP_NCLASSES (sizeof qp_classes / sizeof qp_classes[0])

/* The options of launch class c in float or double; *cls the class's -D part. */
static void qp_class_options(int c, int dbl, char *options, size_t cap, const char **cls_out)
{
    /* float tiles of 16 need 2.7 KiB per QP: double gets half the tile */
    const char *cls = qp_classes[c];
    static _Thread_local char buf[256];
    if (dbl && strstr(cls, "-DTL=1")) { /* CUDA double's tile: 8 QPs in 45.6 KB (qp.tile_bytes) */
        snprintf(buf, sizeof buf, "%s",
                 "-DWG=128 -DTB=8 -DNCAP=112 -DMCAP=112 -DVLOCAL=1 -DREFINE=0 -DKS=1 -DRB=2 "
                 "-DQB=4 -DTL=1");
        cls = buf;
    } else if (dbl && strstr(cls, "-DTB=16")) {
        snprintf(buf, sizeof buf, "%s", "-DWG=128 -DTB=8 -DNCAP=112 -DMCAP=112 -DVLOCAL=1 -DREFINE=1 -DKS=1 -DRB=2");
        cls = buf;
    }
    /* QP_PART=3: the ADMM program as the solver builds it (cl/qp.cl; every kernel is
     * compiled by family_compiles_for_cuda) */
    snprintf(options, cap, "-DREAL=%s%s %s -DQP_PART=3", dbl ? "double" : "float",
             dbl ? " -DGALA_DOUBLE=1" : "", cls);
    *cls_out = cls;
}

START_TEST(qp_launch_classes_compile)
{
    const int c = _i / 2, dbl = _i % 2;
    char *src = NULL;
    TU_OK(NULL, gala_kernel_source(NULL, "qp", &src));
    char options[640], what[512];
    const char *cls;
    qp_class_options(c, dbl, options, sizeof options, &cls);
    snprintf(what, sizeof what, "cl/qp.cl (%s) for sm_90", cls);
    char *img = NULL;
    size_t size = 0;
    gala_status st = compile("sm_90", 1, what, src, options, &img, &size);
    ck_assert_msg(st == GALA_OK, "%s (%s): %s", what, options, gala_last_error(NULL));
    ck_assert_uint_gt(size, 0);
    gala_free(img);
    gala_free(src);
}
END_TEST

START_TEST(builtin_kernels_compile)
{
    char *img;
    size_t size;
    TU_OK(NULL, compile("compute_75", 0, "builtin", gala_cuda_builtin_source(), "", &img, &size));
    ck_assert_ptr_nonnull(strstr(img, ".entry gala_fill64("));
    gala_free(img);
    TU_OK(NULL, compile("sm_90", 1, "builtin", gala_cuda_builtin_source(), "", &img, &size));
    gala_free(img);
}
END_TEST

START_TEST(options_are_converted)
{
    gala_nvrtc_args a;
    setenv("GALA_NVRTC_OPTIONS", " -lineinfo  ", 1);
    TU_OK(NULL, gala_nvrtc_args_make(NULL, "sm_90", "-DREAL=float  -DWG=256 -cl-mad-enable "
                                     "-cl-std=CL1.2 -cl-fast-relaxed-math", &a));
    unsetenv("GALA_NVRTC_OPTIONS");
    ck_assert_str_eq(a.text, "--gpu-architecture=sm_90 --std=c++17 -default-device -lineinfo "
                             "-DREAL=float -DWG=256 --fmad=true --use_fast_math");
    ck_assert_int_eq(a.argc, 8);
    ck_assert_str_eq(a.argv[5], "-DWG=256");
    ck_assert_int_eq(gala_nvrtc_args_make(NULL, "sm_90", "-DREAL=float -cl-no-such-thing", &a),
                     GALA_ERR_KERNEL_BUILD);
    ck_assert_ptr_nonnull(strstr(gala_last_error(NULL), "-cl-no-such-thing"));
    TU_OK(NULL, gala_nvrtc_args_make(NULL, "compute_75", NULL, &a));
    ck_assert_int_eq(a.argc, 3);
    char big[4096];
    memset(big, 0, sizeof big);
    for (size_t k = 0; k + 12 < sizeof big;) k += (size_t)snprintf(big + k, sizeof big - k, " -DX%04d=1", (int)k);
    ck_assert_int_eq(gala_nvrtc_args_make(NULL, "sm_90", big, &a), GALA_ERR_INTERNAL);
}
END_TEST

START_TEST(build_errors_carry_the_log)
{
    char *img = (char *)1;
    size_t size = 7;
    const char *bad = "#line 1 \"common.clh\"\n#line 1 \"broken.cl\"\nKERNEL void k(int n) { n = ; }\n";
    gala_status s = compile("sm_90", 1, "cl/broken.cl", bad, "-DREAL=float", &img, &size);
    ck_assert_int_eq(s, GALA_ERR_KERNEL_BUILD);
    ck_assert_ptr_null(img);
    ck_assert_uint_eq(size, 0);
    const char *log = gala_last_error(NULL);
    ck_assert_msg(strstr(log, "broken.cl") && strstr(log, "error"), "log: %s", log);
    ck_assert_msg(strstr(log, "--gpu-architecture=sm_90"), "log names the options: %s", log);
}
END_TEST

START_TEST(architectures)
{
    int lo, hi, arch, exact;
    gala_nvrtc_arch_range(&lo, &hi);
    ck_assert_int_gt(lo, 0);
    ck_assert_int_ge(hi, 90);
    ck_assert_int_eq(gala_nvrtc_pick_arch(90, &arch, &exact), 1);
    ck_assert_int_eq(arch, 90);
    ck_assert_int_eq(exact, 1);
    ck_assert_int_eq(gala_nvrtc_pick_arch(999, &arch, &exact), 1); /* newer device: PTX */
    ck_assert_int_eq(arch, hi);
    ck_assert_int_eq(exact, 0);
    ck_assert_int_eq(gala_nvrtc_pick_arch(lo - 1, &arch, &exact), 0); /* too old */
    int major, minor;
    gala_nvrtc_version(&major, &minor);
    ck_assert_int_ge(major, 12);
}
END_TEST

/* Queue every compilation of family_compiles_for_cuda and qp_launch_classes_compile and
 * run them on threads (see ahead_job). */
static void compile_ahead(void)
{
    const char *e = getenv("GALA_BUILD_THREADS");
    int nthreads = e && *e ? atoi(e) : 0;
    if (nthreads <= 0) nthreads = gala_cpu_count();
    if (nthreads <= 1) return;
    for (int f = 0; f < gala_kernel_family_count() && n_ahead_src < 63; ++f) {
        char fam[64], *src = NULL;
        snprintf(fam, sizeof fam, "%s", gala_kernel_family_name(f));
        if (gala_kernel_source(NULL, fam, &src) != GALA_OK) continue;
        ahead_src[n_ahead_src++] = src;
        const char *text = family_text(src, fam);
        if (!text) continue;
        char names[MAX_KERNELS][64], options[640];
        int nk = kernel_names(text, names, MAX_KERNELS);
        for (int dbl = 0; dbl < 2; ++dbl) {
            if (family_options(text, NULL, dbl, options, sizeof options))
                for (size_t t = 0; t < N_TARGETS; ++t)
                    ahead_add(targets[t].target, targets[t].cubin, src, options);
            for (int k = 0; k < nk; ++k)
                if (family_options(text, names[k], dbl, options, sizeof options)) {
                    ahead_add("sm_90", 1, src, options);
                    ahead_add("compute_90", 0, src, options);
                }
            if (strcmp(fam, "qp") == 0)
                for (int c = 0; c < (int)QP_NCLASSES; ++c) {
                    const char *cls;
                    qp_class_options(c, dbl, options, sizeof options, &cls);
                    ahead_add("sm_90", 1, src, options);
                }
        }
    }
    ahead_run(nthreads - 1);
}

int main(void)
{
    compile_ahead();
    Suite *s = suite_create("nvrtc");
    TCase *tc = tcase_create("nvrtc");
    tcase_add_loop_test(tc, family_compiles_for_cuda, 0, 2 * gala_kernel_family_count());
    tcase_add_loop_test(tc, qp_launch_classes_compile, 0, 2 * (int)QP_NCLASSES);
    tcase_add_test(tc, builtin_kernels_compile);
    tcase_add_test(tc, options_are_converted);
    tcase_add_test(tc, build_errors_carry_the_log);
    tcase_add_test(tc, architectures);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
