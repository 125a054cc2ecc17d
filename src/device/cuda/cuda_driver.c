/*
 * The CUDA driver API, opened at run time (see cuda_backend.h for why), and the mapping of
 * its errors to gala statuses.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"

#define GALA_CU_STR2(x) #x
#define GALA_CU_STR(x) GALA_CU_STR2(x) /* expands cuda.h's renaming macros first */

static gala_cu_api api;
static const gala_cu_api *api_ok;
static char api_why[256] = "the CUDA driver was not loaded";
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    const char *env = getenv("GALA_CUDA_DRIVER"); /* another libcuda, e.g. the toolkit's stub */
    void *h = NULL;
    if (env && *env) {
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            snprintf(api_why, sizeof api_why, "GALA_CUDA_DRIVER=%s cannot be loaded (%s)", env,
                     e ? e : "not found");
            return;
        }
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; ++i) {
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        const char *e = h ? NULL : dlerror();
        if (i == 0 && e) /* report why the real name failed */
            snprintf(api_why, sizeof api_why, "the NVIDIA driver library cannot be loaded (%s)", e);
    }
    if (!h) return;
    void *sym;
#define GALA_CU_LOAD(f)                                                                    \
    if (!(sym = dlsym(h, GALA_CU_STR(f)))) {                                               \
        snprintf(api_why, sizeof api_why,                                                  \
                 "the NVIDIA driver lacks %s: it is older than this build's CUDA %d.%d",   \
                 GALA_CU_STR(f), CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);           \
        dlclose(h);                                                                        \
        return;                                                                            \
    }                                                                                      \
    memcpy(&api.f, &sym, sizeof sym);
    GALA_CU_FUNCS(GALA_CU_LOAD)
#undef GALA_CU_LOAD
    if ((sym = dlsym(h, "cuFuncGetParamInfo"))) memcpy(&api.cuFuncGetParamInfo, &sym, sizeof sym);
    api_ok = &api; /* the library stays open for the life of the process */
}

const gala_cu_api *gala_cu(const char **why)
{
    pthread_once(&api_once, load);
    if (!api_ok && why) *why = api_why;
    return api_ok;
}

gala_status gala_cu_fail(const gala_context *ctx, CUresult r, const char *what)
{
    const char *name = NULL, *text = NULL;
    if (api_ok) {
        if (api.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
        if (api.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
    }
    gala_status s;
    switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY: s = GALA_ERR_DEVICE_MEMORY; break;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_DEVICE_NOT_LICENSED:
    case CUDA_ERROR_NOT_INITIALIZED: s = GALA_ERR_NO_DEVICE; break;
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
    case CUDA_ERROR_NOT_FOUND: s = GALA_ERR_KERNEL_BUILD; break;
    default: s = GALA_ERR_DEVICE; break;
    }
    return gala_error(ctx, s, "%s failed: %s (%d)%s%s", what, name ? name : "CUDA error", (int)r,
                      text ? ": " : "", text ? text : "");
}

gala_status gala_cu_enter(const gala_context *ctx)
{
    CUresult r = api.cuCtxPushCurrent(GALA_CU_ST(ctx)->cuctx);
    return r == CUDA_SUCCESS ? GALA_OK : gala_cu_fail(ctx, r, "cuCtxPushCurrent");
}

void gala_cu_leave(const gala_context *ctx)
{
    CUcontext popped;
    (void)ctx;
    api.cuCtxPopCurrent(&popped);
}
