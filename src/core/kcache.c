/*
 * On-disk cache of compiled kernels.
 *
 * Directory: $GALA_CACHE_DIR, else $XDG_CACHE_HOME/gala, else $HOME/.cache/gala;
 * GALA_CACHE=0 turns the cache off. One file per program: <family>-<hash>.bin where hash
 * is a 64-bit FNV-1a of the identity text (platform, device, driver version, options and
 * full source). The file starts with a header that repeats two independent hashes of the
 * identity and a hash of the payload, so a truncated, corrupted or colliding entry is
 * detected, removed and rebuilt. Writers write a temporary file and rename() it into
 * place, so concurrent processes never see a partial entry.
 *
 * The same file format serves read-only kernel stores shipped with the library (the CUDA
 * backend's prebuilt kernels, src/device/cuda/store.c): gala_kstore_* take the directory
 * explicitly, and a bad entry in a store is reported as a miss and left in place.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "program.h"

#define KC_MAGIC "GALAKC01"
#define KC_MAX_PAYLOAD ((uint64_t)1 << 30)

typedef struct kc_header {
    char magic[8];
    uint64_t id_hash, id_hash2, id_len, size, payload_hash;
} kc_header;

static uint64_t hash2(const void *p, size_t n) { return gala_fnv1a(p, n, 0x84222325cbf29ce4ULL ^ 0x5bd1e995ULL); }

static int mkdir_p(const char *path)
{
    char tmp[4096];
    gala_strlcpy(tmp, path, sizeof tmp);
    for (char *p = tmp + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
    return 0;
}

const char *gala_kcache_dir(void)
{
    static _Thread_local char dir[4096];
    const char *off = getenv("GALA_CACHE");
    if (off && strcmp(off, "0") == 0) return NULL;
    const char *d = getenv("GALA_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    if (d && *d) snprintf(dir, sizeof dir, "%s", d);
    else if (x && *x) snprintf(dir, sizeof dir, "%s/gala", x);
    else if (h && *h) snprintf(dir, sizeof dir, "%s/.cache/gala", h);
    else return NULL;
    return dir;
}

int gala_kstore_entry_name(const char *family, const void *id, size_t id_len, char *out,
                           size_t cap)
{
    int n = snprintf(out, cap, "%s-%016llx.bin", family,
                     (unsigned long long)gala_fnv1a(id, id_len, GALA_FNV_INIT));
    return (n < 0 || (size_t)n >= cap) ? -1 : 0;
}

static int entry_path(const char *dir, const char *family, const void *id, size_t id_len,
                      char *out, size_t cap)
{
    if (!dir) return -1;
    int n = snprintf(out, cap, "%s/", dir);
    if (n < 0 || (size_t)n >= cap) return -1;
    return gala_kstore_entry_name(family, id, id_len, out + n, cap - (size_t)n);
}

/* Read and check one entry; a bad one is removed when remove_bad (the user's cache, which
 * rebuilds it), left alone otherwise (a read-only store). */
static int load_entry(const char *dir, const char *family, const void *id, size_t id_len,
                      void **data, size_t *size, int remove_bad)
{
    char path[4200];
    *data = NULL;
    *size = 0;
    if (entry_path(dir, family, id, id_len, path, sizeof path) != 0) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    kc_header h;
    void *buf = NULL;
    int ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, KC_MAGIC, 8) == 0 &&
             h.id_hash == gala_fnv1a(id, id_len, GALA_FNV_INIT) && h.id_hash2 == hash2(id, id_len) &&
             h.id_len == id_len && h.size > 0 && h.size <= KC_MAX_PAYLOAD;
    if (ok) {
        buf = gala_malloc((size_t)h.size);
        ok = buf && fread(buf, 1, (size_t)h.size, f) == h.size && fgetc(f) == EOF &&
             gala_fnv1a(buf, (size_t)h.size, GALA_FNV_INIT) == h.payload_hash;
    }
    fclose(f);
    if (!ok) {
        gala_free(buf);
        if (remove_bad) unlink(path); /* corrupt or stale: rebuild it */
        return 0;
    }
    *data = buf;
    *size = (size_t)h.size;
    return 1;
}

int gala_kcache_load(const char *family, const void *id, size_t id_len, void **data, size_t *size)
{
    return load_entry(gala_kcache_dir(), family, id, id_len, data, size, 1);
}

int gala_kstore_load(const char *dir, const char *family, const void *id, size_t id_len,
                     void **data, size_t *size)
{
    return load_entry(dir, family, id, id_len, data, size, 0);
}

int gala_kstore_write(const char *dir, const char *family, const void *id, size_t id_len,
                      const void *data, size_t size)
{
    static atomic_ulong counter;
    char path[4200], tmp[4300];
    if (!data || size == 0 || size > KC_MAX_PAYLOAD) return -1;
    if (entry_path(dir, family, id, id_len, path, sizeof path) != 0) return -1;
    if (mkdir_p(dir) != 0) return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lu", path, (long)getpid(),
             (unsigned long)atomic_fetch_add(&counter, 1));
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    kc_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, KC_MAGIC, 8);
    h.id_hash = gala_fnv1a(id, id_len, GALA_FNV_INIT);
    h.id_hash2 = hash2(id, id_len);
    h.id_len = id_len;
    h.size = size;
    h.payload_hash = gala_fnv1a(data, size, GALA_FNV_INIT);
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

void gala_kcache_store(const char *family, const void *id, size_t id_len, const void *data,
                       size_t size)
{
    (void)gala_kstore_write(gala_kcache_dir(), family, id, id_len, data, size);
}
