/* Program cache internals shared by context.c and the backends. */
#ifndef GALA_CORE_PROGRAM_H
#define GALA_CORE_PROGRAM_H

#include "internal.h"

/** Release every program and kernel of a context. */
GALA_INTERNAL void gala_programs_release(struct gala_context *ctx);

/** On-disk cache of compiled kernel binaries, shared by all backends.
 *  `id` is every byte that determines the binary (platform, device, driver, options,
 *  source); `family` only names the file. load returns 1 on a hit (the caller frees *data
 *  with gala_free), 0 on a miss (a corrupt entry is removed and reported as a miss).
 *  store never fails visibly: an unwritable cache is skipped. */
GALA_INTERNAL int gala_kcache_load(const char *family, const void *id, size_t id_len,
                                   void **data, size_t *size);
GALA_INTERNAL void gala_kcache_store(const char *family, const void *id, size_t id_len,
                                     const void *data, size_t size);
/** A read-only kernel store in the cache's file format (docs/cuda.md, "Prebuilt kernels"):
 *  load from directory dir, 1 on a hit, 0 on a miss; a missing, truncated, corrupt or
 *  colliding entry is a miss and is left in place (the store belongs to the installation). */
GALA_INTERNAL int gala_kstore_load(const char *dir, const char *family, const void *id,
                                   size_t id_len, void **data, size_t *size);
/** Write one entry of a store (or of the cache: gala_kcache_store is this with the cache's
 *  directory); creates dir; 0 on success, -1 otherwise (nothing is left half written). */
GALA_INTERNAL int gala_kstore_write(const char *dir, const char *family, const void *id,
                                    size_t id_len, const void *data, size_t size);
/** The file name (no directory) of the entry of family and id: "<family>-<hash>.bin".
 *  0 on success, -1 when cap is too small. */
GALA_INTERNAL int gala_kstore_entry_name(const char *family, const void *id, size_t id_len,
                                         char *out, size_t cap);
/** The cache directory in use, or NULL when the cache is off. */
GALA_INTERNAL const char *gala_kcache_dir(void);

#endif
