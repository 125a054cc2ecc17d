/*
 * The CUDA backend's prebuilt kernel store (src/device/cuda/store.c, tools/gala-cuda-store.c;
 * docs/cuda.md, "Prebuilt kernels"), without a GPU: the tool builds a small store (two
 * programs and the backend's built-in fill kernel, CUBIN for sm_90 and PTX for compute_90)
 * with gala's NVRTC path; its index lists them; a lookup finds the entry whose key is the
 * NVRTC arguments and the source the backend uses at run time, for the right architectures
 * only; a corrupt or truncated entry is passed over (and left in place); a rebuild keeps
 * unchanged entries. When the build made the real store (GALA_CUDA_ARCHS), its index lists
 * every program offline_programs --cuda asked for, for every target, with none left out.
 * On a GPU: a program comes from the store with an empty user cache, and an image the
 * driver refuses falls back to NVRTC.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel.h"
#include "core/program.h"
#include "device/cuda/nvrtc_compile.h"
#include "testutil.h"

static char store[256];
static const char *const opts[2] = {"-DREAL=float -DWG=256", "-DREAL=double -DGALA_DOUBLE=1 -DWG=256"};

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) { free(b); b = NULL; }
    if (b) b[len] = '\0';
    if (n) *n = (size_t)len;
    fclose(f);
    return b;
}

/* Run the tool on the two vec programs into dir; its stdout in out. */
static int build_store(const char *dir, char *out, size_t cap)
{
    char list[300], cmd[1200];
    snprintf(list, sizeof list, "%s.list", dir);
    FILE *f = fopen(list, "w");
    if (!f) return -1;
    for (int i = 0; i < 2; ++i) fprintf(f, "vec\t%s\tany\t49152\t0\n", opts[i]);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' --list '%s' --out '%s' --archs 90 --jobs 2", GALA_CUDA_STORE_TOOL,
             list, dir);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t k = 0;
    out[0] = '\0';
    for (size_t r; k + 1 < cap && (r = fread(out + k, 1, cap - 1 - k, p)) > 0;) k += r;
    out[k] = '\0';
    return pclose(p);
}

/* The entry file the backend's key names (args for target, the assembled source) in dir. */
static void entry_in(const char *dir, const char *target, const char *options, char *out,
                     size_t cap)
{
    char *src = NULL, name[128];
    gala_nvrtc_args a;
    size_t n = 0;
    ck_assert_int_eq(gala_kernel_source(NULL, "vec", &src), GALA_OK);
    ck_assert_int_eq(gala_nvrtc_args_make(NULL, target, options, &a), GALA_OK);
    char *id = gala_cuda_store_id(&a, src, &n);
    ck_assert_ptr_nonnull(id);
    ck_assert_int_eq(gala_kstore_entry_name("vec", id, n, name, sizeof name), 0);
    snprintf(out, cap, "%s/%s", dir, name);
    gala_free(id);
    gala_free(src);
}

static void entry_path(const char *target, const char *options, char *out, size_t cap)
{
    entry_in(store, target, options, out, cap);
}

/* Look vec up for compute capability cc; the target found in tgt ("" on a miss). */
static int find(const gala_cuda_store *st, int cc, const char *options, const char *extra,
                char *tgt, void **img, size_t *size)
{
    char *src = NULL;
    ck_assert_int_eq(gala_kernel_source(NULL, "vec", &src), GALA_OK);
    if (extra) {
        char *s2 = malloc(strlen(src) + strlen(extra) + 1);
        strcpy(s2, src);
        strcat(s2, extra);
        gala_free(src);
        src = gala_malloc(strlen(s2) + 1);
        strcpy(src, s2);
        free(s2);
    }
    tgt[0] = '\0';
    int hit = gala_cuda_store_find(st, cc, "vec", src, options, img, size, tgt, 16);
    gala_free(src);
    return hit;
}

START_TEST(index_lists_programs)
{
    char path[400];
    snprintf(path, sizeof path, "%s/" GALA_CUDA_STORE_INDEX, store);
    char *idx = slurp(path, NULL);
    ck_assert_ptr_nonnull(idx);
    ck_assert_ptr_nonnull(strstr(idx, "\ntargets sm_90 compute_90\n"));
    for (int i = 0; i < 2; ++i)
        for (int t = 0; t < 2; ++t) {
            char line[300], file[400];
            const char *target = t ? "compute_90" : "sm_90";
            entry_path(target, opts[i], file, sizeof file);
            snprintf(line, sizeof line, "entry\t%s\t%s\tvec\t%s\t", strrchr(file, '/') + 1, target,
                     opts[i]);
            ck_assert_msg(strstr(idx, line) != NULL, "index lacks %s", line);
            struct stat sb;
            ck_assert_int_eq(stat(file, &sb), 0);
        }
    ck_assert_ptr_nonnull(strstr(idx, "\tsm_90\tcuda_builtin\t\t"));
    ck_assert_ptr_nonnull(strstr(idx, "\tcompute_90\tcuda_builtin\t\t"));
    ck_assert_ptr_null(strstr(idx, "\nfailed"));
    gala_cuda_store st;
    ck_assert_int_eq(gala_cuda_store_open_dir(store, &st), 1);
    ck_assert_int_eq(st.ntargets, 2);
    free(idx);
}
END_TEST

START_TEST(lookup)
{
    gala_cuda_store st;
    ck_assert_int_eq(gala_cuda_store_open_dir(store, &st), 1);
    char tgt[16];
    void *img = NULL;
    size_t n = 0;
    for (int i = 0; i < 2; ++i) {
        /* sm_90: the CUBIN (an ELF image) */
        ck_assert_int_eq(find(&st, 90, opts[i], NULL, tgt, &img, &n), 1);
        ck_assert_str_eq(tgt, "sm_90");
        ck_assert(n > 4 && memcmp(img, "\177ELF", 4) == 0);
        gala_free(img);
        /* a newer device: the PTX, NUL-terminated, with vec's kernels */
        ck_assert_int_eq(find(&st, 120, opts[i], NULL, tgt, &img, &n), 1);
        ck_assert_str_eq(tgt, "compute_90");
        ck_assert(((char *)img)[n - 1] == '\0' && strstr(img, ".entry") != NULL);
        gala_free(img);
    }
    /* an older device, other options, other source text: misses */
    ck_assert_int_eq(find(&st, 89, opts[0], NULL, tgt, &img, &n), 0);
    ck_assert_ptr_null(img);
    ck_assert_int_eq(find(&st, 80, opts[0], NULL, tgt, &img, &n), 0);
    ck_assert_int_eq(find(&st, 90, "-DREAL=float -DWG=128", NULL, tgt, &img, &n), 0);
    ck_assert_int_eq(find(&st, 90, opts[0], "\n/* changed */\n", tgt, &img, &n), 0);
    ck_assert_str_eq(tgt, "");
    /* user options to NVRTC change the arguments: not the store's program */
    setenv("GALA_NVRTC_OPTIONS", "-lineinfo", 1);
    ck_assert_int_eq(find(&st, 90, opts[0], NULL, tgt, &img, &n), 0);
    unsetenv("GALA_NVRTC_OPTIONS");
}
END_TEST

START_TEST(candidates)
{
    gala_cuda_store st;
    memset(&st, 0, sizeof st);
    const char *t[] = {"sm_80", "compute_80", "sm_86", "sm_90", "compute_90"};
    for (int i = 0; i < 5; ++i) strcpy(st.targets[st.ntargets++], t[i]);
    char c[GALA_CUDA_STORE_MAX_TARGETS][16];
    ck_assert_int_eq(gala_cuda_store_candidates(&st, 86, c, 16), 3);
    ck_assert_str_eq(c[0], "sm_86");
    ck_assert_str_eq(c[1], "sm_80");
    ck_assert_str_eq(c[2], "compute_80");
    ck_assert_int_eq(gala_cuda_store_candidates(&st, 89, c, 16), 3);
    ck_assert_str_eq(c[0], "sm_86");
    ck_assert_int_eq(gala_cuda_store_candidates(&st, 90, c, 16), 3);
    ck_assert_str_eq(c[0], "sm_90");
    ck_assert_str_eq(c[1], "compute_90");
    ck_assert_str_eq(c[2], "compute_80");
    ck_assert_int_eq(gala_cuda_store_candidates(&st, 120, c, 16), 2);
    ck_assert_str_eq(c[0], "compute_90");
    ck_assert_int_eq(gala_cuda_store_candidates(&st, 75, c, 16), 0);
}
END_TEST

/* Overwrite the payload's last byte, or cut the file short: the entry is passed over. */
static void damage(const char *file, int truncate_it)
{
    size_t n = 0;
    char *b = slurp(file, &n);
    ck_assert_ptr_nonnull(b);
    FILE *f = fopen(file, "wb");
    ck_assert_ptr_nonnull(f);
    if (truncate_it) n /= 2;
    else b[n - 1] ^= 0x5a;
    ck_assert_uint_eq(fwrite(b, 1, n, f), n);
    fclose(f);
    free(b);
}

START_TEST(corrupt_entry_refused)
{
    /* on a copy: the other tests use the store intact */
    char dir[300], cmd[1000];
    snprintf(dir, sizeof dir, "%s-damaged-%d", store, _i);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", dir, store, dir);
    ck_assert_int_eq(system(cmd), 0);
    gala_cuda_store st;
    ck_assert_int_eq(gala_cuda_store_open_dir(dir, &st), 1);
    char cubin[400], ptx[400], tgt[16];
    void *img = NULL;
    size_t n = 0;
    entry_in(dir, "sm_90", opts[0], cubin, sizeof cubin);
    entry_in(dir, "compute_90", opts[0], ptx, sizeof ptx);
    damage(cubin, _i);
    /* the damaged CUBIN is passed over for the PTX, and left in place (the store is the
     * installation's, not the user's cache) */
    ck_assert_int_eq(find(&st, 90, opts[0], NULL, tgt, &img, &n), 1);
    ck_assert_str_eq(tgt, "compute_90");
    gala_free(img);
    struct stat sb;
    ck_assert_int_eq(stat(cubin, &sb), 0);
    damage(ptx, !_i);
    ck_assert_int_eq(find(&st, 90, opts[0], NULL, tgt, &img, &n), 0);
    ck_assert_ptr_null(img);
    ck_assert_uint_eq(n, 0);
    /* the other program is untouched */
    ck_assert_int_eq(find(&st, 90, opts[1], NULL, tgt, &img, &n), 1);
    gala_free(img);
    tu_rm_tree(dir);
}
END_TEST

START_TEST(store_from_environment)
{
    gala_cuda_store st;
    setenv("GALA_CUDA_STORE", store, 1);
    ck_assert_int_eq(gala_cuda_store_open(&st), 1);
    ck_assert_str_eq(st.dir, store);
    setenv("GALA_CUDA_STORE", "0", 1);
    ck_assert_int_eq(gala_cuda_store_open(&st), 0);
    setenv("GALA_CUDA_STORE", "/nonexistent/gala-store", 1);
    ck_assert_int_eq(gala_cuda_store_open(&st), 0);
    /* unset: beside the file holding gala's code, here this program (linked statically, as
     * the Python extension is) */
    unsetenv("GALA_CUDA_STORE");
    char exe[4096], link[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(link, sizeof link, "%s/" GALA_CUDA_STORE_DIRNAME, exe);
    unlink(link);
    ck_assert_int_eq(symlink(store, link), 0);
    const int found = gala_cuda_store_open(&st);
    unlink(link);
    ck_assert_int_eq(found, 1);
    ck_assert_str_eq(st.dir, link);
}
END_TEST

START_TEST(rebuild_keeps_entries)
{
    char out[8192];
    ck_assert_int_eq(build_store(store, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "6 entries (6 kept from before") != NULL, "%s", out);
    ck_assert_ptr_null(strstr(out, "compiled"));
}
END_TEST

/* A CUDA context (use_environment off), or NULL. */
static gala_context *cuda_ctx(void)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = GALA_BACKEND_CUDA;
    o.use_environment = 0;
    gala_context *ctx = NULL;
    return gala_context_create(&o, &ctx) == GALA_OK ? ctx : NULL;
}

/* y = 2·x + y (vec.cl's axpby) on a new context; programs built and loaded in *built and
 * *loaded, and the options of the vec program it used in opts_used. */
static void axpby_run(long *built, long *loaded, char *opts_used, size_t cap)
{
    gala_context *ctx = cuda_ctx();
    ck_assert_ptr_nonnull(ctx);
    float x[64], y[64];
    for (int i = 0; i < 64; ++i) x[i] = (float)i, y[i] = 1;
    gala_buffer *bx = NULL, *by = NULL;
    TU_OK(ctx, gala_buffer_create(ctx, GALA_FLOAT, 64, &bx));
    TU_OK(ctx, gala_buffer_create(ctx, GALA_FLOAT, 64, &by));
    TU_OK(ctx, gala_buffer_write(bx, 0, 64, x));
    TU_OK(ctx, gala_buffer_write(by, 0, 64, y));
    TU_OK(ctx, gala_axpby_batched(ctx, 16, 2.0, bx, 0, 16, 1.0, by, 0, 16, 4));
    TU_OK(ctx, gala_buffer_read(by, 0, 64, y));
    for (int i = 0; i < 64; ++i) ck_assert_float_eq(y[i], 2.0f * (float)i + 1.0f);
    gala_stats st;
    TU_OK(ctx, gala_context_stats(ctx, &st));
    *built = st.programs_built;
    *loaded = st.programs_from_cache;
    char fam[32];
    opts_used[0] = '\0';
    for (int i = 0; gala_program_nth(ctx, i, fam, sizeof fam, opts_used, cap); ++i)
        if (!strcmp(fam, "vec")) break;
    gala_buffer_free(bx);
    gala_buffer_free(by);
    gala_context_destroy(ctx);
}

/* On a GPU: a program of the store is loaded, not compiled, with an empty user cache; an
 * entry the driver cannot load is passed over and the program compiled with NVRTC. */
START_TEST(gpu_loads_from_store)
{
    gala_context *probe = cuda_ctx();
    if (!probe) {
        fprintf(stderr, "gpu_loads_from_store: skipped, needs a CUDA GPU (%s)\n",
                gala_last_error(NULL));
        return;
    }
    gala_device_info in;
    TU_OK(probe, gala_context_info(probe, &in));
    gala_context_destroy(probe);
    int cc = 0;
    ck_assert_int_eq(sscanf(in.device_version, "sm_%d", &cc), 1);
    char dir[300], cache[300], list[400], cmd[1200], out[8192], used[800];
    snprintf(dir, sizeof dir, "%s-gpu", store);
    snprintf(cache, sizeof cache, "%s-gpu-cache", store);
    snprintf(list, sizeof list, "%s.list", dir);
    FILE *f = fopen(list, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "vec\t%s\tany\t49152\t0\n", opts[0]);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' --list '%s' --out '%s' --archs %d-real --jobs 1 >/dev/null",
             GALA_CUDA_STORE_TOOL, list, dir, cc);
    ck_assert_int_eq(system(cmd), 0);
    setenv("GALA_CUDA_STORE", dir, 1);
    setenv("GALA_CACHE_DIR", cache, 1);
    long built = -1, loaded = -1;
    axpby_run(&built, &loaded, used, sizeof used);
    ck_assert_str_eq(used, opts[0]);
    ck_assert_int_eq(built, 0);
    ck_assert_int_eq(loaded, 1);
    /* an entry with the right key whose image the driver refuses */
    char *src = NULL;
    gala_nvrtc_args a;
    size_t n = 0;
    ck_assert_int_eq(gala_kernel_source(NULL, "vec", &src), GALA_OK);
    snprintf(out, sizeof out, "sm_%d", cc);
    ck_assert_int_eq(gala_nvrtc_args_make(NULL, out, opts[0], &a), GALA_OK);
    char *id = gala_cuda_store_id(&a, src, &n);
    ck_assert_int_eq(gala_kstore_write(dir, "vec", id, n, "not a cubin", 11), 0);
    gala_free(id);
    gala_free(src);
    tu_rm_tree(cache);
    axpby_run(&built, &loaded, used, sizeof used);
    ck_assert_int_eq(built, 1);
    ck_assert_int_eq(loaded, 0);
    unsetenv("GALA_CUDA_STORE");
    tu_rm_tree(cache);
    tu_rm_tree(dir);
    unlink(list);
}
END_TEST

/* The build's store (GALA_CUDA_ARCHS): every listed program for every target. */
START_TEST(build_store_complete)
{
#ifdef GALA_BUILD_STORE_DIR
    char path[4200];
    snprintf(path, sizeof path, "%s/" GALA_CUDA_STORE_INDEX, GALA_BUILD_STORE_DIR);
    char *idx = slurp(path, NULL), *list = slurp(GALA_BUILD_STORE_LIST, NULL);
    ck_assert_msg(idx && list, "no store at %s", path);
    gala_cuda_store st;
    ck_assert_int_eq(gala_cuda_store_open_dir(GALA_BUILD_STORE_DIR, &st), 1);
    int programs = 0, qp_classes = 0;
    char *save = NULL;
    for (char *l = strtok_r(list, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char fam[64], o[800];
        if (sscanf(l, "%63[^\t]\t%799[^\t]", fam, o) != 2) continue;
        ++programs;
        qp_classes += !strcmp(fam, "qp") && strstr(o, "QP_PART=3") != NULL;
        for (int t = 0; t < st.ntargets; ++t) {
            char want[1000];
            snprintf(want, sizeof want, "\t%s\t%s\t%s\t", st.targets[t], fam, o);
            char *at = strstr(idx, want);
            ck_assert_msg(at != NULL, "store lacks %s %s %s", st.targets[t], fam, o);
            while (at > idx && at[-1] != '\n') --at;
            ck_assert_msg(strncmp(at, "entry\t", 6) == 0, "left out: %s %s %s", st.targets[t], fam, o);
        }
    }
    ck_assert_int_gt(programs, 20);
    for (int t = 0; t < st.ntargets; ++t) { /* and the backend's built-in kernels */
        char want[64];
        snprintf(want, sizeof want, "\t%s\tcuda_builtin\t\t", st.targets[t]);
        ck_assert_msg(strstr(idx, want) != NULL, "store lacks %s cuda_builtin", st.targets[t]);
    }
    ck_assert_int_gt(qp_classes, 2); /* the mpc batch's launch classes among them */
    free(idx);
    free(list);
#endif
}
END_TEST

int main(void)
{
    char out[8192];
    snprintf(store, sizeof store, "/tmp/gala-cuda-store-test-%ld", (long)getpid());
    if (build_store(store, out, sizeof out) != 0) {
        fprintf(stderr, "gala-cuda-store failed:\n%s\n", out);
        return 1;
    }
    Suite *s = suite_create("cuda_store");
    TCase *tc = tcase_create("cuda_store");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, index_lists_programs);
    tcase_add_test(tc, lookup);
    tcase_add_test(tc, candidates);
    tcase_add_loop_test(tc, corrupt_entry_refused, 0, 2);
    tcase_add_test(tc, store_from_environment);
    tcase_add_test(tc, rebuild_keeps_entries);
    tcase_add_test(tc, build_store_complete);
    tcase_add_test(tc, gpu_loads_from_store);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char list[300];
    snprintf(list, sizeof list, "%s.list", store);
    unlink(list);
    tu_rm_tree(store);
    return failed ? 1 : 0;
}
