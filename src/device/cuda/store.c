/*
 * The CUDA backend's prebuilt kernel store (docs/cuda.md, "Prebuilt kernels"): programs
 * compiled at build time by tools/gala-cuda-store.c with the same NVRTC path as at run
 * time, installed beside the library as a directory of entries in the kernel cache's file
 * format (src/core/kcache.c) and an index. An entry's identity is the store's tag, the
 * NVRTC arguments (target architecture, fixed options, the program's -D options) and the
 * full source text; not the device's name, the driver or the NVRTC version, so one store
 * serves every GPU of an architecture. No driver types here, so that the tests run without
 * a GPU (tests/test_cuda_store.c).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/program.h"
#include "nvrtc_compile.h"

#define STORE_TAG "gala-cuda-store-1"

/* Read the index's targets line; 1 when dir holds a store. */
int gala_cuda_store_open_dir(const char *dir, gala_cuda_store *st)
{
    char path[4200], line[1024];
    memset(st, 0, sizeof *st);
    if (!dir || !*dir || strlen(dir) >= sizeof st->dir) return 0;
    snprintf(path, sizeof path, "%s/" GALA_CUDA_STORE_INDEX, dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int found = 0;
    char *save = NULL;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, "targets ", 8) != 0) continue;
        found = 1;
        for (char *w = strtok_r(line + 8, " \t\r\n", &save);
             w && st->ntargets < GALA_CUDA_STORE_MAX_TARGETS; w = strtok_r(NULL, " \t\r\n", &save)) {
            int a = 0;
            if ((sscanf(w, "sm_%d", &a) == 1 || sscanf(w, "compute_%d", &a) == 1) && a > 0 &&
                strlen(w) < sizeof st->targets[0])
                gala_strlcpy(st->targets[st->ntargets++], w, sizeof st->targets[0]);
        }
    }
    fclose(f);
    if (!found || st->ntargets == 0) return 0;
    gala_strlcpy(st->dir, dir, sizeof st->dir);
    return 1;
}

/* The directory of the file holding this code (the shared library, or the program or
 * Python extension it is linked into), or "" */
static void own_dir(char *out, size_t cap)
{
    Dl_info info;
    out[0] = '\0';
    if (!dladdr((void *)gala_cuda_store_open, &info) || !info.dli_fname) return;
    gala_strlcpy(out, info.dli_fname, cap);
    char *slash = strrchr(out, '/');
    if (slash) *slash = '\0';
    else out[0] = '\0';
}

int gala_cuda_store_open(gala_cuda_store *st)
{
    char dir[4096];
    const char *env = getenv("GALA_CUDA_STORE");
    memset(st, 0, sizeof *st);
    if (env) return strcmp(env, "0") != 0 && gala_cuda_store_open_dir(env, st);
    own_dir(dir, sizeof dir - 32);
    if (dir[0]) {
        strcat(dir, "/" GALA_CUDA_STORE_DIRNAME);
        if (gala_cuda_store_open_dir(dir, st)) return 1;
    }
#ifdef GALA_CUDA_STORE_INSTALL_DIR
    if (gala_cuda_store_open_dir(GALA_CUDA_STORE_INSTALL_DIR, st)) return 1;
#endif
    return 0;
}

char *gala_cuda_store_id(const gala_nvrtc_args *args, const char *source, size_t *len)
{
    size_t n = sizeof STORE_TAG + strlen(args->text) + strlen(source) + 4;
    char *id = gala_malloc(n);
    if (!id) return NULL;
    *len = (size_t)snprintf(id, n, "%s|%s|%s", STORE_TAG, args->text, source);
    return id;
}

/* One target of the store: 1 with the image when it holds the program. */
static int find_one(const gala_cuda_store *st, const char *target, const char *family,
                    const char *source, const char *options, void **image, size_t *size)
{
    gala_nvrtc_args args;
    size_t id_len = 0;
    if (gala_nvrtc_args_make(NULL, target, options, &args) != GALA_OK) {
        gala_error_clear(NULL);
        return 0;
    }
    char *id = gala_cuda_store_id(&args, source, &id_len);
    if (!id) return 0;
    int hit = gala_kstore_load(st->dir, family, id, id_len, image, size);
    gala_free(id);
    /* PTX is loaded as a string: it must end with its NUL */
    if (hit && strncmp(target, "compute_", 8) == 0 && ((const char *)*image)[*size - 1] != '\0') {
        gala_free(*image);
        *image = NULL;
        *size = 0;
        hit = 0;
    }
    return hit;
}

/* The store's targets a device of compute capability cc can load, best first: CUBIN of
 * its own architecture, then of older ones of its major version (binary compatible), then
 * PTX of the newest virtual architecture <= cc (the driver compiles it). */
int gala_cuda_store_candidates(const gala_cuda_store *st, int cc, char out[][16], int cap)
{
    int n = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (;;) {
            int best = -1, best_a = 0;
            for (int i = 0; i < st->ntargets; ++i) {
                int a = 0, cubin = sscanf(st->targets[i], "sm_%d", &a) == 1;
                if (!cubin && sscanf(st->targets[i], "compute_%d", &a) != 1) continue;
                if (cubin != (pass == 0) || a > cc || (cubin && a / 10 != cc / 10)) continue;
                int taken = 0;
                for (int k = 0; k < n; ++k) taken |= strcmp(out[k], st->targets[i]) == 0;
                if (!taken && a > best_a) best = i, best_a = a;
            }
            if (best < 0 || n == cap) break;
            gala_strlcpy(out[n++], st->targets[best], 16);
        }
    }
    return n;
}

int gala_cuda_store_find(const gala_cuda_store *st, int cc, const char *family,
                         const char *source, const char *options, void **image, size_t *size,
                         char *target, size_t target_cap)
{
    char cand[GALA_CUDA_STORE_MAX_TARGETS][16];
    *image = NULL;
    *size = 0;
    if (!st || !st->dir[0]) return 0;
    const int n = gala_cuda_store_candidates(st, cc, cand, GALA_CUDA_STORE_MAX_TARGETS);
    for (int i = 0; i < n; ++i) {
        if (find_one(st, cand[i], family, source, options, image, size)) {
            if (target) gala_strlcpy(target, cand[i], target_cap);
            return 1;
        }
    }
    return 0;
}
