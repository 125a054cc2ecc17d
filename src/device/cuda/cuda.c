/*
 * The CUDA backend: one device, its primary context (or the context of the caller's
 * stream), one stream per gala context. Every operation is asynchronous on that stream;
 * finish = cuStreamSynchronize.
 *
 * Kernels are the same cl/ sources as on OpenCL, compiled at run time by NVRTC
 * (nvrtc.c) behind cl/common.clh's CUDA macros, to CUBIN for the device's architecture
 * (or PTX for the newest architecture NVRTC knows when the device is newer still), loaded
 * with cuModuleLoadDataEx and cached on disk with gala_kcache_*. A program is looked up in
 * the user's kernel cache, then in the prebuilt store shipped with the library (store.c:
 * compiled at build time for the architectures of GALA_CUDA_ARCHS), then compiled. The
 * driver API is loaded with dlopen (cuda_driver.c), so a machine without the NVIDIA driver
 * simply has no CUDA device. See docs/cuda.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/program.h"
#include "cuda_backend.h"

#define CU() gala_cu(NULL)

static CUdeviceptr dptr(const void *handle) { return (CUdeviceptr)(uintptr_t)handle; }

static int is_index(const char *s, long *v)
{
    char *end;
    if (!s || !*s) return 0;
    *v = strtol(s, &end, 10);
    return *end == '\0' && *v >= 0;
}

/* The driver, initialized; NULL with a message on ctx (status NO_DEVICE) otherwise. The
 * message names the selection, if any (it is what the user sees when no backend has it). */
static const gala_cu_api *driver(const gala_context *ctx, const char *plat_sel,
                                 const char *dev_sel, gala_status *s)
{
    const char *why = NULL;
    char sel[300] = "";
    if (plat_sel || dev_sel)
        snprintf(sel, sizeof sel, " matches platform '%s' device '%s'",
                 plat_sel ? plat_sel : "(any)", dev_sel ? dev_sel : "(any)");
    const gala_cu_api *cu = gala_cu(&why);
    if (!cu) {
        *s = gala_error(ctx, GALA_ERR_NO_DEVICE, "no CUDA device%s: %s", sel, why);
        return NULL;
    }
    CUresult r = cu->cuInit(0);
    if (r != CUDA_SUCCESS) {
        char what[400];
        snprintf(what, sizeof what, "no CUDA device%s: cuInit", sel);
        gala_cu_fail(ctx, r, what);
        *s = GALA_ERR_NO_DEVICE;
        return NULL;
    }
    *s = GALA_OK;
    return cu;
}

static gala_status cu_list(gala_device_desc *descs, int cap, int *count)
{
    gala_status s;
    const gala_cu_api *cu = driver(NULL, NULL, NULL, &s);
    int n = 0;
    *count = 0;
    if (!cu || cu->cuDeviceGetCount(&n) != CUDA_SUCCESS) {
        gala_error_clear(NULL); /* no driver or no device: no CUDA devices, not an error */
        return GALA_OK;
    }
    for (int i = 0; i < n && i < cap; ++i) {
        gala_device_desc *o = &descs[i];
        CUdevice d;
        memset(o, 0, sizeof *o);
        o->backend = GALA_BACKEND_CUDA;
        o->platform_index = 0;
        o->device_index = i;
        o->is_gpu = 1;
        gala_strlcpy(o->platform_name, "CUDA", sizeof o->platform_name);
        if (cu->cuDeviceGet(&d, i) != CUDA_SUCCESS ||
            cu->cuDeviceGetName(o->device_name, (int)sizeof o->device_name, d) != CUDA_SUCCESS)
            gala_strlcpy(o->device_name, "unknown CUDA device", sizeof o->device_name);
        o->device_name[sizeof o->device_name - 1] = '\0';
    }
    *count = n;
    return GALA_OK;
}

static int attr(const gala_cu_api *cu, CUdevice d, CUdevice_attribute a)
{
    int v = 0;
    return cu->cuDeviceGetAttribute(&v, a, d) == CUDA_SUCCESS ? v : 0;
}

static void fill_info(gala_context *ctx, const gala_cu_api *cu, gala_cu_state *st)
{
    gala_device_info *in = &ctx->info;
    int drv = 0;
    size_t mem = 0;
    gala_strlcpy(in->platform_name, "CUDA", sizeof in->platform_name);
    if (cu->cuDeviceGetName(in->device_name, (int)sizeof in->device_name, st->dev) != CUDA_SUCCESS)
        gala_strlcpy(in->device_name, "unknown CUDA device", sizeof in->device_name);
    in->device_name[sizeof in->device_name - 1] = '\0';
    gala_strlcpy(in->vendor_name, "NVIDIA Corporation", sizeof in->vendor_name);
    cu->cuDriverGetVersion(&drv);
    snprintf(in->driver_version, sizeof in->driver_version, "CUDA %d.%d", drv / 1000,
             drv % 1000 / 10);
    snprintf(in->device_version, sizeof in->device_version, "sm_%d", st->cc);
    in->is_gpu = 1;
    in->compute_units = attr(cu, st->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    if (cu->cuDeviceTotalMem(&mem, st->dev) == CUDA_SUCCESS) in->global_mem_bytes = mem;
    in->max_alloc_bytes = in->global_mem_bytes;
    /* static shared memory only (48 KiB); the opt-in dynamic limit is not used */
    in->local_mem_bytes = (size_t)attr(cu, st->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    in->max_work_group_size = (size_t)attr(cu, st->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    in->subgroup_size = attr(cu, st->dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    in->fp64 = 1;
    int nv_major, nv_minor;
    gala_nvrtc_version(&nv_major, &nv_minor);
    snprintf(st->id, sizeof st->id, "cuda|%s|sm_%d|driver %d|nvrtc %d.%d|%s %d", in->device_name,
             st->cc, drv, nv_major, nv_minor, st->cubin ? "cubin" : "ptx", st->arch);
}

/* The device of options.native_stream (its context is used as is, not retained). */
static gala_status stream_device(gala_context *ctx, const gala_cu_api *cu, CUstream s,
                                 CUcontext *sctx, CUdevice *dev)
{
    CUresult r = cu->cuStreamGetCtx(s, sctx);
    if (r != CUDA_SUCCESS) {
        gala_cu_fail(ctx, r, "cuStreamGetCtx(options.native_stream)");
        return GALA_ERR_INVALID_ARG;
    }
    if ((r = cu->cuCtxPushCurrent(*sctx)) != CUDA_SUCCESS) return gala_cu_fail(ctx, r, "cuCtxPushCurrent");
    r = cu->cuCtxGetDevice(dev);
    CUcontext popped;
    cu->cuCtxPopCurrent(&popped);
    return r == CUDA_SUCCESS ? GALA_OK : gala_cu_fail(ctx, r, "cuCtxGetDevice");
}

static gala_status cu_open(gala_context *ctx, const gala_context_options *o, const char *plat_sel,
                           const char *dev_sel, int prefer_gpu)
{
    gala_status s;
    if (prefer_gpu < 0) return gala_error(ctx, GALA_ERR_NO_DEVICE, "CUDA devices are all GPUs");
    const gala_cu_api *cu = driver(ctx, plat_sel, dev_sel, &s);
    if (!cu) return s;
    long pidx = -1, didx = -1;
    if (plat_sel && (is_index(plat_sel, &pidx) ? pidx != 0
                                               : !gala_strcasestr_match("NVIDIA CUDA", plat_sel)))
        return gala_error(ctx, GALA_ERR_NO_DEVICE, "the CUDA platform does not match '%s'", plat_sel);
    int d_is_idx = is_index(dev_sel, &didx);

    CUdevice dev = 0;
    CUcontext sctx = NULL;
    int ordinal = -1, n = 0;
    CUresult r = cu->cuDeviceGetCount(&n);
    if (r != CUDA_SUCCESS) {
        gala_cu_fail(ctx, r, "cuDeviceGetCount");
        return GALA_ERR_NO_DEVICE;
    }
    CUdevice want = 0;
    if (o->native_stream) GALA_TRY(stream_device(ctx, cu, (CUstream)o->native_stream, &sctx, &want));
    for (int i = 0; i < n && ordinal < 0; ++i) {
        char name[256] = "";
        CUdevice d;
        if (cu->cuDeviceGet(&d, i) != CUDA_SUCCESS) continue;
        if (o->native_stream && d != want) continue;
        cu->cuDeviceGetName(name, (int)sizeof name - 1, d);
        if (dev_sel && (d_is_idx ? i != didx : !gala_strcasestr_match(name, dev_sel))) {
            if (o->native_stream)
                return gala_error(ctx, GALA_ERR_INVALID_ARG,
                                  "options.native_stream is on CUDA device %d (%s), which does "
                                  "not match the device selection '%s'", i, name, dev_sel);
            continue;
        }
        dev = d;
        ordinal = i;
    }
    if (ordinal < 0)
        return gala_error(ctx, GALA_ERR_NO_DEVICE, "no CUDA device matches '%s' (%d devices)",
                          dev_sel ? dev_sel : "(any)", n);

    int cc = 10 * attr(cu, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) +
             attr(cu, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    int arch = 0, exact = 0;
    if (!gala_nvrtc_pick_arch(cc, &arch, &exact)) {
        int lo, hi;
        gala_nvrtc_arch_range(&lo, &hi);
        return gala_error(ctx, GALA_ERR_NO_DEVICE,
                          "CUDA device %d has compute capability %d.%d; this NVRTC compiles for "
                          "sm_%d to sm_%d", ordinal, cc / 10, cc % 10, lo, hi);
    }

    gala_cu_state *st = gala_calloc(1, sizeof *st);
    if (!st) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for the CUDA state");
    st->dev = dev;
    st->ordinal = ordinal;
    st->cc = cc;
    st->arch = arch;
    st->cubin = exact;
    if (o->native_stream) {
        st->cuctx = sctx;
        st->stream = (CUstream)o->native_stream;
    } else {
        if ((r = cu->cuDevicePrimaryCtxRetain(&st->cuctx, dev)) != CUDA_SUCCESS) {
            gala_free(st);
            return gala_cu_fail(ctx, r, "cuDevicePrimaryCtxRetain");
        }
        st->ctx_retained = 1;
        CUcontext popped;
        if ((r = cu->cuCtxPushCurrent(st->cuctx)) == CUDA_SUCCESS) {
            r = cu->cuStreamCreate(&st->stream, CU_STREAM_NON_BLOCKING);
            cu->cuCtxPopCurrent(&popped);
        }
        if (r != CUDA_SUCCESS) {
            cu->cuDevicePrimaryCtxRelease(dev);
            gala_free(st);
            return gala_cu_fail(ctx, r, "cuStreamCreate");
        }
        st->own_stream = 1;
    }
    st->base = st->stream;
    st->have_store = gala_cuda_store_open(&st->store);
    ctx->impl = st;
    fill_info(ctx, cu, st);
    return GALA_OK;
}

/* A twin: the parent's device and CUDA context (the primary context, retained once more),
 * so that device pointers are shared, and a stream of its own. Not for a parent on a
 * caller's stream: its work must stay ordered on that stream. */
static gala_status cu_twin(gala_context *ctx, gala_context *parent)
{
    const gala_cu_state *ps = GALA_CU_ST(parent);
    const gala_cu_api *cu = CU();
    if (!ps->own_stream || !ps->ctx_retained)
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED, "the context runs on a caller's stream");
    gala_cu_state *st = gala_calloc(1, sizeof *st);
    if (!st) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for the CUDA state");
    st->dev = ps->dev;
    st->ordinal = ps->ordinal;
    st->cc = ps->cc;
    st->arch = ps->arch;
    st->cubin = ps->cubin;
    gala_strlcpy(st->id, ps->id, sizeof st->id);
    st->have_store = ps->have_store;
    st->store = ps->store;
    CUresult r = cu->cuDevicePrimaryCtxRetain(&st->cuctx, st->dev);
    if (r != CUDA_SUCCESS) {
        gala_free(st);
        return gala_cu_fail(ctx, r, "cuDevicePrimaryCtxRetain");
    }
    st->ctx_retained = 1;
    CUcontext popped;
    if ((r = cu->cuCtxPushCurrent(st->cuctx)) == CUDA_SUCCESS) {
        r = cu->cuStreamCreate(&st->stream, CU_STREAM_NON_BLOCKING);
        cu->cuCtxPopCurrent(&popped);
    }
    if (r != CUDA_SUCCESS) {
        cu->cuDevicePrimaryCtxRelease(st->dev);
        gala_free(st);
        return gala_cu_fail(ctx, r, "cuStreamCreate");
    }
    st->own_stream = 1;
    st->base = st->stream;
    ctx->impl = st;
    return GALA_OK;
}

static void cu_close(gala_context *ctx)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    const gala_cu_api *cu = CU();
    if (!st) return;
    if (gala_cu_enter(ctx) == GALA_OK) {
        cu->cuStreamSynchronize(st->base);
        if (st->side) cu->cuStreamSynchronize(st->side);
        gala_cuda_blas_release(ctx);
        if (st->fill_mod) cu->cuModuleUnload(st->fill_mod);
        if (st->side) cu->cuStreamDestroy(st->side);
        if (st->lane_ev) cu->cuEventDestroy(st->lane_ev);
        if (st->own_stream) cu->cuStreamDestroy(st->base);
        gala_cu_leave(ctx);
    }
    if (st->ctx_retained) cu->cuDevicePrimaryCtxRelease(st->dev);
    gala_free(st);
    ctx->impl = NULL;
}

/* Run one driver call with the context pushed; map its error. */
#define CU_CALL(ctx, what, call)                                                           \
    do {                                                                                   \
        GALA_TRY(gala_cu_enter(ctx));                                                      \
        CUresult cu_r_ = (call);                                                           \
        gala_cu_leave(ctx);                                                                \
        if (cu_r_ != CUDA_SUCCESS) return gala_cu_fail(ctx, cu_r_, what);                  \
    } while (0)

static gala_status cu_finish(gala_context *ctx)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    if (st->side) CU_CALL(ctx, "cuStreamSynchronize", CU()->cuStreamSynchronize(st->side));
    CU_CALL(ctx, "cuStreamSynchronize", CU()->cuStreamSynchronize(st->base));
    return GALA_OK;
}

/* Lanes (device.h): lane 1 is a stream of the highest priority, so that its blocks are
 * scheduled first when lane 0's kernels (large GEMMs) free a multiprocessor. Its stream and
 * the event that orders the lanes are created at first use. */
static gala_status cu_side(gala_context *ctx)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    const gala_cu_api *cu = CU();
    if (st->side) return GALA_OK;
    int least = 0, greatest = 0;
    GALA_TRY(gala_cu_enter(ctx));
    CUresult r = cu->cuCtxGetStreamPriorityRange(&least, &greatest);
    if (r == CUDA_SUCCESS && !st->lane_ev)
        r = cu->cuEventCreate(&st->lane_ev, CU_EVENT_DISABLE_TIMING);
    if (r == CUDA_SUCCESS)
        r = cu->cuStreamCreateWithPriority(&st->side, CU_STREAM_NON_BLOCKING, greatest);
    gala_cu_leave(ctx);
    if (r != CUDA_SUCCESS) {
        st->side = NULL;
        return gala_cu_fail(ctx, r, "creating the second stream");
    }
    return GALA_OK;
}

static gala_status cu_lane_select(gala_context *ctx, int lane)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    if (lane == 1) GALA_TRY(cu_side(ctx));
    st->lane = lane;
    st->stream = lane ? st->side : st->base;
    return GALA_OK;
}

/* The wait is recorded now, so lane 1 is created here if it does not exist yet: work later
 * sent to it must still follow what lane 0 has so far. */
static gala_status cu_lane_wait(gala_context *ctx, int lane, int on)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    GALA_TRY(cu_side(ctx));
    CUstream w = lane ? st->side : st->base, o = on ? st->side : st->base;
    CU_CALL(ctx, "cuEventRecord", CU()->cuEventRecord(st->lane_ev, o));
    CU_CALL(ctx, "cuStreamWaitEvent", CU()->cuStreamWaitEvent(w, st->lane_ev, 0));
    return GALA_OK;
}

static gala_status cu_lane_reserve(gala_context *ctx, int units)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    const int n = ctx->info.compute_units;
    st->reserve = units <= 0 || units >= n ? 0 : units;
    return GALA_OK;
}

static gala_status cu_alloc(gala_context *ctx, size_t bytes, void **h)
{
    CUdeviceptr p = 0;
    CU_CALL(ctx, "cuMemAlloc", CU()->cuMemAlloc(&p, bytes));
    *h = (void *)(uintptr_t)p;
    return GALA_OK;
}

static void cu_free(gala_context *ctx, void *h)
{
    const gala_cu_api *cu = CU();
    if (gala_cu_enter(ctx) != GALA_OK) return;
    /* work queued on either lane may still use the memory */
    cu->cuStreamSynchronize(GALA_CU_ST(ctx)->base);
    if (GALA_CU_ST(ctx)->side) cu->cuStreamSynchronize(GALA_CU_ST(ctx)->side);
    cu->cuMemFree(dptr(h));
    gala_cu_leave(ctx);
}

/* Page-locked host memory (transfers at the bus's speed). */
static gala_status cu_host_alloc(gala_context *ctx, size_t bytes, void **ptr, void **handle)
{
    void *p = NULL;
    CU_CALL(ctx, "cuMemHostAlloc", CU()->cuMemHostAlloc(&p, bytes, 0));
    *ptr = p;
    *handle = p;
    return GALA_OK;
}

static void cu_host_free(gala_context *ctx, void *ptr, void *handle)
{
    (void)handle;
    const gala_cu_api *cu = CU();
    if (gala_cu_enter(ctx) != GALA_OK) return;
    /* copies queued on either lane may still read or write it */
    cu->cuStreamSynchronize(GALA_CU_ST(ctx)->base);
    if (GALA_CU_ST(ctx)->side) cu->cuStreamSynchronize(GALA_CU_ST(ctx)->side);
    cu->cuMemFreeHost(ptr);
    gala_cu_leave(ctx);
}

/* Mapped page-locked memory: kernels write it through its device address, the host reads it
 * after a stream synchronization without a copy (gala_flag_word). */
static gala_status cu_mapped_alloc(gala_context *ctx, size_t bytes, void **handle, void **ptr)
{
    const gala_cu_api *cu = CU();
    void *p = NULL;
    CUdeviceptr d = 0;
    CU_CALL(ctx, "cuMemHostAlloc", cu->cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_DEVICEMAP));
    gala_status s = gala_cu_enter(ctx);
    if (s == GALA_OK) {
        CUresult r = cu->cuMemHostGetDevicePointer(&d, p, 0);
        gala_cu_leave(ctx);
        if (r != CUDA_SUCCESS) s = gala_cu_fail(ctx, r, "cuMemHostGetDevicePointer");
    }
    if (s != GALA_OK) {
        cu_host_free(ctx, p, p);
        return s;
    }
    memset(p, 0, bytes);
    *handle = (void *)(uintptr_t)d;
    *ptr = p;
    return GALA_OK;
}

static void cu_mapped_free(gala_context *ctx, void *handle, void *ptr)
{
    (void)handle;
    cu_host_free(ctx, ptr, ptr);
}

static gala_status sync_if(gala_context *ctx, int blocking)
{
    if (!blocking) return GALA_OK;
    CU_CALL(ctx, "cuStreamSynchronize", CU()->cuStreamSynchronize(GALA_CU_ST(ctx)->stream));
    return GALA_OK;
}

static gala_status cu_write(gala_context *ctx, void *h, size_t off, size_t n, const void *src,
                            int blocking)
{
    CU_CALL(ctx, "cuMemcpyHtoDAsync",
            CU()->cuMemcpyHtoDAsync(dptr(h) + off, src, n, GALA_CU_ST(ctx)->stream));
    return sync_if(ctx, blocking);
}

static gala_status cu_read(gala_context *ctx, void *h, size_t off, size_t n, void *dst,
                           int blocking)
{
    CU_CALL(ctx, "cuMemcpyDtoHAsync",
            CU()->cuMemcpyDtoHAsync(dst, dptr(h) + off, n, GALA_CU_ST(ctx)->stream));
    return sync_if(ctx, blocking);
}

static gala_status cu_copy(gala_context *ctx, void *s, size_t so, void *d, size_t d_o, size_t n)
{
    CU_CALL(ctx, "cuMemcpyDtoDAsync",
            CU()->cuMemcpyDtoDAsync(dptr(d) + d_o, dptr(s) + so, n, GALA_CU_ST(ctx)->stream));
    return GALA_OK;
}

/* ---------------------------------------------------------------- programs */

static gala_status load_module(gala_context *ctx, const void *image, CUmodule *mod, int quiet)
{
    const gala_cu_api *cu = CU();
    char log[4096] = "";
    CUjit_option opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[2] = {log, (void *)(uintptr_t)(sizeof log - 1)};
    GALA_TRY(gala_cu_enter(ctx));
    CUresult r = cu->cuModuleLoadDataEx(mod, image, 2, opt, val);
    gala_cu_leave(ctx);
    if (r == CUDA_SUCCESS) return GALA_OK;
    if (quiet) return GALA_ERR_KERNEL_BUILD;
    gala_status s = gala_cu_fail(ctx, r, "cuModuleLoadDataEx");
    log[sizeof log - 1] = '\0';
    if (log[0]) {
        gala_error_append(ctx, "; JIT log:\n");
        gala_error_append(ctx, log);
    }
    return s;
}

/* Compile (or load from the disk cache) source as module; family names the cache file. */
static gala_status build_module(gala_context *ctx, const char *family, const char *source,
                                const char *options, CUmodule *mod, int *from_cache)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    gala_nvrtc_args args;
    char target[32], what[160], prog_name[64];
    snprintf(target, sizeof target, "%s_%d", st->cubin ? "sm" : "compute", st->arch);
    *from_cache = 0;
    GALA_TRY(gala_nvrtc_args_make(ctx, target, options, &args));

    size_t n = strlen(st->id) + strlen(args.text) + strlen(source) + 4;
    char *id = gala_malloc(n);
    if (!id) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for a program id");
    size_t id_len = (size_t)snprintf(id, n, "%s|%s|%s", st->id, args.text, source);

    void *bin = NULL;
    size_t size = 0;
    if (gala_kcache_load(family, id, id_len, &bin, &size)) {
        /* a PTX entry must end with its NUL; anything unloadable is rebuilt */
        int ok = st->cubin || ((const char *)bin)[size - 1] == '\0';
        ok = ok && load_module(ctx, bin, mod, 1) == GALA_OK;
        gala_free(bin);
        if (ok) {
            gala_free(id);
            *from_cache = 1;
            return GALA_OK;
        }
    }
    /* the prebuilt store; an image this driver cannot load (built by a newer NVRTC than
     * it supports, say) is passed over quietly and the program compiled as without it */
    if (st->have_store &&
        gala_cuda_store_find(&st->store, st->cc, family, source, options, &bin, &size, NULL, 0)) {
        int ok = load_module(ctx, bin, mod, 1) == GALA_OK;
        gala_free(bin);
        bin = NULL;
        if (ok) {
            gala_free(id);
            *from_cache = 1;
            return GALA_OK;
        }
    }
    snprintf(what, sizeof what, "kernel family '%s' (%s)", family, options);
    snprintf(prog_name, sizeof prog_name, "%s.cu", family);
    gala_status s = gala_nvrtc_compile(ctx, what, prog_name, source, &args, st->cubin, &bin, &size);
    if (s == GALA_OK) {
        s = load_module(ctx, bin, mod, 0);
        if (s == GALA_OK) gala_kcache_store(family, id, id_len, bin, size);
        gala_free(bin);
    }
    gala_free(id);
    return s;
}

static gala_status cu_build(gala_context *ctx, const gala_program_key *key, const char *source,
                            const char *options, void **out, int *from_cache)
{
    CUmodule mod = NULL;
    GALA_TRY(build_module(ctx, key->family, source, options, &mod, from_cache));
    *out = mod;
    return GALA_OK;
}

static void cu_prog_free(gala_context *ctx, void *p)
{
    if (gala_cu_enter(ctx) != GALA_OK) return;
    CU()->cuModuleUnload((CUmodule)p);
    gala_cu_leave(ctx);
}

static gala_status cu_kernel(gala_context *ctx, void *prog, const char *name, void **out)
{
    const gala_cu_api *cu = CU();
    gala_cu_kernel *k = gala_calloc(1, sizeof *k);
    if (!k) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for a kernel");
    gala_strlcpy(k->name, name, sizeof k->name);
    gala_status s = gala_cu_enter(ctx);
    if (s != GALA_OK) {
        gala_free(k);
        return s;
    }
    CUresult r = cu->cuModuleGetFunction(&k->fn, (CUmodule)prog, name);
    if (r == CUDA_SUCCESS &&
        cu->cuFuncGetAttribute(&k->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn) !=
            CUDA_SUCCESS)
        k->max_threads = 0;
    k->nparams = -1; /* learnt at the first launch (cu_launch) */
    gala_cu_leave(ctx);
    if (r != CUDA_SUCCESS) {
        gala_free(k);
        if (r == CUDA_ERROR_NOT_FOUND)
            return gala_error(ctx, GALA_ERR_KERNEL_BUILD, "no kernel named '%s' in the program",
                              name);
        return gala_cu_fail(ctx, r, "cuModuleGetFunction");
    }
    *out = k;
    return GALA_OK;
}

static void cu_kernel_free(gala_context *ctx, void *k)
{
    (void)ctx;
    gala_free(k);
}

typedef union cu_argval {
    CUdeviceptr p;
    int i;
    long long l;
    float f;
    double d;
} cu_argval;

/* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, read at cu_kernel: what the registers allow */
static size_t cu_kernel_max_wg(gala_context *ctx, void *kernel)
{
    (void)ctx;
    const gala_cu_kernel *k = kernel;
    return k->max_threads > 0 ? (size_t)k->max_threads : 0;
}

static gala_status cu_launch(gala_context *ctx, void *kernel, const gala_program_key *key,
                             const gala_dims *d, int nargs, const gala_arg *args)
{
    const gala_cu_kernel *k = kernel;
    cu_argval val[GALA_CUDA_MAX_PARAMS];
    void *params[GALA_CUDA_MAX_PARAMS];
    if (nargs < 0 || nargs > GALA_CUDA_MAX_PARAMS)
        return gala_error(ctx, GALA_ERR_INTERNAL, "kernel %s: %d arguments", k->name, nargs);
    if (k->nparams < 0 && CU()->cuFuncGetParamInfo) {
        /* First launch: the sizes of parameters 0 .. nargs-1 as the driver sees them, and
         * that there is no parameter nargs (that one probe is answered with an error by
         * design, once per kernel; gpu-check runs compute-sanitizer without reporting API
         * errors for this reason). Any other answer leaves the checks off. */
        gala_cu_kernel *mk = (gala_cu_kernel *)k;
        size_t off, sz;
        int i = 0;
        CUresult pr = CUDA_SUCCESS;
        GALA_TRY(gala_cu_enter(ctx));
        for (; i <= nargs && i < GALA_CUDA_MAX_PARAMS; ++i) {
            if ((pr = CU()->cuFuncGetParamInfo(k->fn, (size_t)i, &off, &sz)) != CUDA_SUCCESS) break;
            mk->psize[i] = (unsigned char)(sz < 255 ? sz : 255);
        }
        gala_cu_leave(ctx);
        if (pr == CUDA_SUCCESS)
            return gala_error(ctx, GALA_ERR_INTERNAL, "kernel %s (%s) takes more than %d arguments",
                              k->name, key->family, nargs);
        if (pr == CUDA_ERROR_INVALID_VALUE && i < nargs)
            return gala_error(ctx, GALA_ERR_INTERNAL, "kernel %s (%s) takes %d arguments, got %d",
                              k->name, key->family, i, nargs);
        if (pr == CUDA_ERROR_INVALID_VALUE) mk->nparams = nargs;
    }
    if (k->nparams >= 0 && k->nparams != nargs)
        return gala_error(ctx, GALA_ERR_INTERNAL, "kernel %s (%s) takes %d arguments, got %d",
                          k->name, key->family, k->nparams, nargs);
    for (int i = 0; i < nargs; ++i) {
        const gala_arg *a = &args[i];
        size_t sz = 0;
        switch (a->kind) {
        case GALA_ARG_BUF:
            if (!a->v.buf)
                return gala_error(ctx, GALA_ERR_INTERNAL, "kernel %s: argument %d is NULL",
                                  k->name, i);
            val[i].p = dptr(a->v.buf->handle);
            sz = sizeof val[i].p;
            break;
        case GALA_ARG_INT: val[i].i = a->v.i; sz = sizeof val[i].i; break;
        case GALA_ARG_LONG: val[i].l = a->v.l; sz = sizeof val[i].l; break;
        case GALA_ARG_REAL:
            if (key->dtype == GALA_DOUBLE) { val[i].d = a->v.r; sz = sizeof val[i].d; }
            else { val[i].f = (float)a->v.r; sz = sizeof val[i].f; }
            break;
        default:
            return gala_error(ctx, GALA_ERR_INTERNAL, "kernel %s: argument %d of kind %d",
                              k->name, i, (int)a->kind);
        }
        if (k->nparams >= 0 && k->psize[i] != sz)
            return gala_error(ctx, GALA_ERR_INTERNAL,
                              "kernel %s (%s): argument %d has %zu bytes, the kernel takes %u",
                              k->name, key->family, i, sz, (unsigned)k->psize[i]);
        params[i] = &val[i];
    }
    unsigned g[3] = {1, 1, 1}, b[3] = {1, 1, 1};
    for (int i = 0; i < d->ndim && i < 3; ++i) {
        b[i] = (unsigned)d->local[i];
        g[i] = (unsigned)(d->global[i] / d->local[i]);
    }
    if (!g[0] || !g[1] || !g[2]) return GALA_OK; /* an empty range: nothing to run */
    CU_CALL(ctx, "cuLaunchKernel",
            CU()->cuLaunchKernel(k->fn, g[0], g[1], g[2], b[0], b[1], b[2], 0,
                                 GALA_CU_ST(ctx)->stream, params, NULL));
    return GALA_OK;
}

/* ---------------------------------------------------------------- fill */

static const char builtin_source[] =
    "/* gala CUDA backend: built-in kernels */\n"
    "extern \"C\" __global__ void gala_fill64(unsigned long long *p, unsigned long long v,\n"
    "                                        unsigned long long n)\n"
    "{\n"
    "    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;\n"
    "    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "         i < n; i += step)\n"
    "        p[i] = v;\n"
    "}\n";

const char *gala_cuda_builtin_source(void) { return builtin_source; }

static gala_status fill64(gala_context *ctx, CUdeviceptr p, uint64_t v, size_t n)
{
    gala_cu_state *st = GALA_CU_ST(ctx);
    if (!st->fill_fn) {
        int from_cache;
        CUmodule mod = NULL;
        GALA_TRY(build_module(ctx, "cuda_builtin", builtin_source, "", &mod, &from_cache));
        CUfunction fn = NULL;
        GALA_TRY(gala_cu_enter(ctx));
        CUresult r = CU()->cuModuleGetFunction(&fn, mod, "gala_fill64");
        if (r != CUDA_SUCCESS) CU()->cuModuleUnload(mod);
        gala_cu_leave(ctx);
        if (r != CUDA_SUCCESS) return gala_cu_fail(ctx, r, "cuModuleGetFunction(gala_fill64)");
        st->fill_mod = mod;
        st->fill_fn = fn;
    }
    unsigned long long a0 = p, a1 = v, a2 = n;
    void *params[3] = {&a0, &a1, &a2};
    size_t blocks = (n + 255) / 256;
    if (blocks > 65535) blocks = 65535;
    CU_CALL(ctx, "cuLaunchKernel(gala_fill64)",
            CU()->cuLaunchKernel(st->fill_fn, (unsigned)blocks, 1, 1, 256, 1, 1, 0, st->stream,
                                 params, NULL));
    return GALA_OK;
}

static gala_status cu_fill(gala_context *ctx, void *h, size_t off, size_t n, const void *pat,
                           size_t ps)
{
    CUdeviceptr p = dptr(h) + off;
    uint32_t w[2];
    if ((ps != 4 && ps != 8) || n % ps != 0)
        return gala_error(ctx, GALA_ERR_INTERNAL, "fill with a %zu-byte pattern over %zu bytes", ps, n);
    memcpy(w, pat, ps);
    if (ps == 8 && w[0] != w[1]) {
        uint64_t v;
        memcpy(&v, pat, 8);
        return fill64(ctx, p, v, n / 8);
    }
    CU_CALL(ctx, "cuMemsetD32Async",
            CU()->cuMemsetD32Async(p, w[0], n / 4, GALA_CU_ST(ctx)->stream));
    return GALA_OK;
}

/* ---------------------------------------------------------------- interop */

static gala_status cu_wrap(gala_context *ctx, void *native, size_t bytes, size_t esize, void **h)
{
    const gala_cu_api *cu = CU();
    gala_cu_state *st = GALA_CU_ST(ctx);
    CUdeviceptr p = dptr(native);
    unsigned int memtype = 0, managed = 0;
    int ordinal = -1;
    if (p % esize != 0)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "gala_buffer_wrap: device pointer 0x%llx is not aligned to %zu bytes",
                          (unsigned long long)p, esize);
    GALA_TRY(gala_cu_enter(ctx));
    CUresult r = cu->cuPointerGetAttribute(&memtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
    if (r == CUDA_SUCCESS) cu->cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p);
    if (r == CUDA_SUCCESS) r = cu->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p);
    CUdeviceptr base = 0;
    size_t size = 0;
    CUresult rr = r == CUDA_SUCCESS ? cu->cuMemGetAddressRange(&base, &size, p) : r;
    gala_cu_leave(ctx);
    if (r != CUDA_SUCCESS)
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "gala_buffer_wrap: 0x%llx is not CUDA memory of this context",
                          (unsigned long long)p);
    if (!managed && (memtype != CU_MEMORYTYPE_DEVICE || ordinal != st->ordinal))
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "gala_buffer_wrap: 0x%llx is not device memory of CUDA device %d "
                          "(memory type %u, device %d)",
                          (unsigned long long)p, st->ordinal, memtype, ordinal);
    /* the extent check needs the allocation's range, which some allocators do not give */
    if (rr == CUDA_SUCCESS && (p - base > size || bytes > size - (size_t)(p - base)))
        return gala_error(ctx, GALA_ERR_INVALID_ARG,
                          "gala_buffer_wrap: %zu bytes at 0x%llx run past the end of their "
                          "allocation (%zu bytes at 0x%llx)",
                          bytes, (unsigned long long)p, size, (unsigned long long)base);
    *h = native;
    return GALA_OK;
}

/* ---------------------------------------------------------------- timers */

static gala_status cu_timer(gala_context *ctx, void **t)
{
    const gala_cu_api *cu = CU();
    CUevent ev = NULL;
    GALA_TRY(gala_cu_enter(ctx));
    CUresult r = cu->cuEventCreate(&ev, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) {
        r = cu->cuEventRecord(ev, GALA_CU_ST(ctx)->stream);
        if (r != CUDA_SUCCESS) cu->cuEventDestroy(ev);
    }
    gala_cu_leave(ctx);
    if (r != CUDA_SUCCESS) return gala_cu_fail(ctx, r, "cuEventRecord");
    *t = ev;
    return GALA_OK;
}

static gala_status cu_elapsed(gala_context *ctx, void *a, void *b, double *ms)
{
    const gala_cu_api *cu = CU();
    float f = 0;
    GALA_TRY(gala_cu_enter(ctx));
    CUresult r = cu->cuEventSynchronize((CUevent)a);
    if (r == CUDA_SUCCESS) r = cu->cuEventSynchronize((CUevent)b);
    if (r == CUDA_SUCCESS) r = cu->cuEventElapsedTime(&f, (CUevent)a, (CUevent)b);
    gala_cu_leave(ctx);
    if (r != CUDA_SUCCESS) return gala_cu_fail(ctx, r, "cuEventElapsedTime");
    *ms = f;
    return GALA_OK;
}

static void cu_timer_free(gala_context *ctx, void *t)
{
    if (gala_cu_enter(ctx) != GALA_OK) return;
    CU()->cuEventDestroy((CUevent)t);
    gala_cu_leave(ctx);
}

static const gala_device_ops ops = {
    .backend = GALA_BACKEND_CUDA,
    .name = "cuda",
    .list = cu_list,
    .open = cu_open,
    .close = cu_close,
    .finish = cu_finish,
    .mem_alloc = cu_alloc,
    .mem_free = cu_free,
    .mem_write = cu_write,
    .mem_read = cu_read,
    .mem_copy = cu_copy,
    .mem_fill = cu_fill,
    .program_build = cu_build,
    .program_free = cu_prog_free,
    .kernel_create = cu_kernel,
    .kernel_free = cu_kernel_free,
    .kernel_max_wg = cu_kernel_max_wg,
    .launch = cu_launch,
    .timer_record = cu_timer,
    .timer_elapsed = cu_elapsed,
    .timer_free = cu_timer_free,
    .lane_select = cu_lane_select,
    .lane_wait = cu_lane_wait,
    .lane_reserve = cu_lane_reserve,
    .twin = cu_twin,
    .blas3 = &gala_cuda_blas3_ops,
    .mem_wrap = cu_wrap,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .mapped_alloc = cu_mapped_alloc,
    .mapped_free = cu_mapped_free,
};

const gala_device_ops *gala_cuda_ops(void) { return &ops; }

void *gala_cuda_stream(gala_context *ctx)
{
    return ctx && ctx->ops == &ops && ctx->impl ? (void *)GALA_CU_ST(ctx)->base : NULL;
}
