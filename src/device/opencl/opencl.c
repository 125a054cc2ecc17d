/*
 * The OpenCL backend: one platform, one device, one in-order command queue per context
 * (and a second one, created at first use, for the lanes of src/device/device.h).
 * Kernels are compiled from cl/ at run time (OpenCL C 1.2) and their binaries cached on
 * disk (src/core/kcache.c).
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/kernel.h"
#include "../../core/program.h"
#include "opencl.h"

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

static const char *cl_err_name(cl_int e)
{
    switch (e) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
    case CL_INVALID_BUILD_OPTIONS: return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "OpenCL error";
}

/* Map an OpenCL error to a status, with a message naming the call. */
static gala_status cl_fail(const gala_context *ctx, cl_int e, const char *what)
{
    gala_status s = (e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_RESOURCES ||
                     e == CL_INVALID_BUFFER_SIZE)
                        ? GALA_ERR_DEVICE_MEMORY
                        : (e == CL_OUT_OF_HOST_MEMORY ? GALA_ERR_OUT_OF_MEMORY : GALA_ERR_DEVICE);
    return gala_error(ctx, s, "%s failed: %s (%d)", what, cl_err_name(e), (int)e);
}

typedef struct cl_state {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* the current lane's queue: every operation goes there */
    cl_command_queue base;  /* lane 0 */
    cl_command_queue side;  /* lane 1, or NULL until first used */
    cl_command_queue_properties qprops;
    char id[512]; /* platform|device|driver: the device part of cache keys */
    long xgemm[2][GALA_XGEMM_PARAMS]; /* CLBlast Xgemm parameters set for float / double
                                         (clblast.c); all 0: none set */
    long xgemm_tried[2][GALA_XGEMM_PARAMS]; /* the last ones offered, applied or not */
} cl_state;

#define ST(ctx) ((cl_state *)(ctx)->impl)

static cl_uint get_platforms(cl_platform_id *p)
{
    cl_uint n = 0;
    if (clGetPlatformIDs(MAX_PLATFORMS, p, &n) != CL_SUCCESS) return 0;
    return n > MAX_PLATFORMS ? MAX_PLATFORMS : n;
}

static cl_uint get_devices(cl_platform_id p, cl_device_id *d)
{
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, MAX_DEVICES, d, &n) != CL_SUCCESS) return 0;
    return n > MAX_DEVICES ? MAX_DEVICES : n;
}

/* Info strings, truncated to cap (the query itself fails when its buffer is too short). */
static void pinfo_str(cl_platform_id p, cl_platform_info what, char *out, size_t cap)
{
    char tmp[2048] = "";
    if (clGetPlatformInfo(p, what, sizeof tmp, tmp, NULL) != CL_SUCCESS) tmp[0] = '\0';
    tmp[sizeof tmp - 1] = '\0';
    gala_strlcpy(out, tmp, cap);
}

static void dinfo_str(cl_device_id d, cl_device_info what, char *out, size_t cap)
{
    char tmp[2048] = "";
    if (clGetDeviceInfo(d, what, sizeof tmp, tmp, NULL) != CL_SUCCESS) tmp[0] = '\0';
    tmp[sizeof tmp - 1] = '\0';
    gala_strlcpy(out, tmp, cap);
}

static int is_gpu(cl_device_id d)
{
    cl_device_type t = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    return (t & CL_DEVICE_TYPE_GPU) != 0;
}

static int is_index(const char *s, long *v)
{
    char *end;
    if (!s || !*s) return 0;
    *v = strtol(s, &end, 10);
    return *end == '\0' && *v >= 0;
}

static gala_status ocl_list(gala_device_desc *descs, int cap, int *count)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_device_id devs[MAX_DEVICES];
    cl_uint np = get_platforms(plats);
    int total = 0;
    for (cl_uint p = 0; p < np; ++p) {
        cl_uint nd = get_devices(plats[p], devs);
        for (cl_uint d = 0; d < nd; ++d, ++total) {
            if (total >= cap) continue;
            gala_device_desc *o = &descs[total];
            memset(o, 0, sizeof *o);
            o->backend = GALA_BACKEND_OPENCL;
            o->platform_index = (int)p;
            o->device_index = (int)d;
            o->is_gpu = is_gpu(devs[d]);
            pinfo_str(plats[p], CL_PLATFORM_NAME, o->platform_name, sizeof o->platform_name);
            dinfo_str(devs[d], CL_DEVICE_NAME, o->device_name, sizeof o->device_name);
        }
    }
    *count = total;
    return GALA_OK;
}

static void fill_info(gala_context *ctx, cl_platform_id p, cl_device_id d)
{
    gala_device_info *in = &ctx->info;
    cl_uint u = 0;
    cl_ulong ul = 0;
    size_t sz = 0;
    cl_device_fp_config fp = 0;
    pinfo_str(p, CL_PLATFORM_NAME, in->platform_name, sizeof in->platform_name);
    dinfo_str(d, CL_DEVICE_NAME, in->device_name, sizeof in->device_name);
    dinfo_str(d, CL_DEVICE_VENDOR, in->vendor_name, sizeof in->vendor_name);
    dinfo_str(d, CL_DRIVER_VERSION, in->driver_version, sizeof in->driver_version);
    dinfo_str(d, CL_DEVICE_VERSION, in->device_version, sizeof in->device_version);
    in->is_gpu = is_gpu(d);
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof u, &u, NULL) == CL_SUCCESS)
        in->compute_units = (int)u;
    if (clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS)
        in->global_mem_bytes = (size_t)ul;
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS)
        in->max_alloc_bytes = (size_t)ul;
    if (clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ul, &ul, NULL) == CL_SUCCESS)
        in->local_mem_bytes = (size_t)ul;
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof sz, &sz, NULL) == CL_SUCCESS)
        in->max_work_group_size = sz;
    in->fp64 = clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) == CL_SUCCESS &&
               fp != 0;
    if (gala_strcasestr_match(in->vendor_name, "NVIDIA")) in->subgroup_size = 32;
    else if (gala_strcasestr_match(in->vendor_name, "Advanced Micro") ||
             gala_strcasestr_match(in->vendor_name, "AMD"))
        in->subgroup_size = in->is_gpu ? 64 : 1;
    else if (gala_strcasestr_match(in->vendor_name, "Intel"))
        in->subgroup_size = in->is_gpu ? 16 : 1;
    else in->subgroup_size = in->is_gpu ? 32 : 1;
}

static gala_status ocl_open(gala_context *ctx, const gala_context_options *o, const char *plat_sel,
                            const char *dev_sel, int prefer_gpu)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_device_id devs[MAX_DEVICES];
    cl_uint np = get_platforms(plats);
    if (np == 0) return gala_error(ctx, GALA_ERR_NO_DEVICE, "no OpenCL platform is installed");
    long pidx = -1, didx = -1;
    int p_is_idx = is_index(plat_sel, &pidx), d_is_idx = is_index(dev_sel, &didx);
    int flat = 0, found = 0;
    cl_platform_id fp = NULL;
    cl_device_id fd = NULL;
    for (cl_uint p = 0; p < np && !found; ++p) {
        char pname[256];
        pinfo_str(plats[p], CL_PLATFORM_NAME, pname, sizeof pname);
        int pmatch = !plat_sel || (p_is_idx ? (long)p == pidx : gala_strcasestr_match(pname, plat_sel));
        cl_uint nd = get_devices(plats[p], devs);
        for (cl_uint d = 0; d < nd && !found; ++d, ++flat) {
            if (!pmatch) continue;
            char dname[256];
            dinfo_str(devs[d], CL_DEVICE_NAME, dname, sizeof dname);
            if (dev_sel) {
                long want = plat_sel ? (long)d : (long)flat;
                if (d_is_idx ? want != didx
                             : !(gala_strcasestr_match(dname, dev_sel) ||
                                 gala_strcasestr_match(pname, dev_sel)))
                    continue;
            }
            int g = is_gpu(devs[d]);
            if ((prefer_gpu > 0 && !g) || (prefer_gpu < 0 && g)) continue;
            fp = plats[p];
            fd = devs[d];
            found = 1;
        }
    }
    if (!found)
        return gala_error(ctx, GALA_ERR_NO_DEVICE,
                          "no OpenCL %sdevice matches platform '%s' device '%s'",
                          prefer_gpu > 0 ? "GPU " : (prefer_gpu < 0 ? "non-GPU " : ""),
                          plat_sel ? plat_sel : "(any)", dev_sel ? dev_sel : "(any)");

    cl_state *st = gala_calloc(1, sizeof *st);
    if (!st) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for the OpenCL state");
    cl_int e;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)fp, 0};
    st->platform = fp;
    st->device = fd;
    st->context = clCreateContext(props, 1, &fd, NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        gala_free(st);
        return cl_fail(ctx, e, "clCreateContext");
    }
    st->qprops = o->profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
    st->queue = st->base = clCreateCommandQueue(st->context, fd, st->qprops, &e);
    if (e != CL_SUCCESS) {
        clReleaseContext(st->context);
        gala_free(st);
        return cl_fail(ctx, e, "clCreateCommandQueue");
    }
    ctx->impl = st;
    fill_info(ctx, fp, fd);
    snprintf(st->id, sizeof st->id, "%s|%s|%s|%s", ctx->info.platform_name, ctx->info.device_name,
             ctx->info.driver_version, ctx->info.device_version);
    return GALA_OK;
}

/* A twin: the parent's cl_context (retained), whose buffers every queue of it may use, and
 * a queue of its own. */
static gala_status ocl_twin(gala_context *ctx, gala_context *parent)
{
    const cl_state *ps = ST(parent);
    cl_state *st = gala_calloc(1, sizeof *st);
    if (!st) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for the OpenCL state");
    st->platform = ps->platform;
    st->device = ps->device;
    st->context = ps->context;
    st->qprops = ps->qprops;
    gala_strlcpy(st->id, ps->id, sizeof st->id);
    cl_int e;
    st->queue = st->base = clCreateCommandQueue(st->context, st->device, st->qprops, &e);
    if (e != CL_SUCCESS) {
        gala_free(st);
        return cl_fail(ctx, e, "clCreateCommandQueue");
    }
    clRetainContext(st->context);
    ctx->impl = st;
    return GALA_OK;
}

static void ocl_close(gala_context *ctx)
{
    cl_state *st = ST(ctx);
    if (!st) return;
    if (st->side) {
        clFinish(st->side);
        clReleaseCommandQueue(st->side);
    }
    clFinish(st->base);
    clReleaseCommandQueue(st->base);
    clReleaseContext(st->context);
    gala_free(st);
    ctx->impl = NULL;
}

static gala_status ocl_finish(gala_context *ctx)
{
    cl_int e = ST(ctx)->side ? clFinish(ST(ctx)->side) : CL_SUCCESS;
    if (e == CL_SUCCESS) e = clFinish(ST(ctx)->base);
    return e == CL_SUCCESS ? GALA_OK : cl_fail(ctx, e, "clFinish");
}

/* Lanes (device.h): a second in-order queue on the same device (OpenCL 1.2 has no queue
 * priorities); ordering between them by a marker event and a barrier that waits on it. */
static gala_status ocl_side(gala_context *ctx)
{
    cl_state *st = ST(ctx);
    if (st->side) return GALA_OK;
    cl_int e;
    cl_command_queue q = clCreateCommandQueue(st->context, st->device, st->qprops, &e);
    if (e != CL_SUCCESS) return cl_fail(ctx, e, "clCreateCommandQueue (second lane)");
    st->side = q;
    return GALA_OK;
}

static gala_status ocl_lane_select(gala_context *ctx, int lane)
{
    cl_state *st = ST(ctx);
    if (lane == 1) GALA_TRY(ocl_side(ctx));
    st->queue = lane ? st->side : st->base;
    return GALA_OK;
}

/* The wait is recorded now, so lane 1 is created here if it does not exist yet: work later
 * sent to it must still follow what lane 0 has so far. */
static gala_status ocl_lane_wait(gala_context *ctx, int lane, int on)
{
    cl_state *st = ST(ctx);
    GALA_TRY(ocl_side(ctx));
    cl_command_queue w = lane ? st->side : st->base, o = on ? st->side : st->base;
    cl_event ev;
    cl_int e = clEnqueueMarkerWithWaitList(o, 0, NULL, &ev);
    if (e != CL_SUCCESS) return cl_fail(ctx, e, "clEnqueueMarkerWithWaitList");
    /* the marker must reach the device before another queue can wait on it */
    e = clFlush(o);
    if (e == CL_SUCCESS) e = clEnqueueBarrierWithWaitList(w, 1, &ev, NULL);
    clReleaseEvent(ev);
    return e == CL_SUCCESS ? GALA_OK : cl_fail(ctx, e, "clEnqueueBarrierWithWaitList");
}

static gala_status ocl_alloc(gala_context *ctx, size_t bytes, void **h)
{
    cl_int e;
    cl_mem m = clCreateBuffer(ST(ctx)->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS) return cl_fail(ctx, e, "clCreateBuffer");
    *h = m;
    return GALA_OK;
}

static void ocl_free(gala_context *ctx, void *h)
{
    (void)ctx;
    clReleaseMemObject((cl_mem)h);
}

/* Page-locked host memory where the platform gives it: a buffer the driver allocates in
 * host memory (CL_MEM_ALLOC_HOST_PTR), mapped for the lifetime of the allocation; reads and
 * writes of other buffers from and to the mapped range run at the bus's speed (NVIDIA). */
static gala_status ocl_host_alloc(gala_context *ctx, size_t bytes, void **ptr, void **handle)
{
    cl_state *st = ST(ctx);
    cl_int e;
    cl_mem m = clCreateBuffer(st->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                              &e);
    if (e != CL_SUCCESS) return cl_fail(ctx, e, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    void *p = clEnqueueMapBuffer(st->base, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                 NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        clReleaseMemObject(m);
        return cl_fail(ctx, e, "clEnqueueMapBuffer");
    }
    *ptr = p;
    *handle = m;
    return GALA_OK;
}

static void ocl_host_free(gala_context *ctx, void *ptr, void *handle)
{
    cl_state *st = ST(ctx);
    /* transfers queued on either lane may still use the range */
    if (st->side) clFinish(st->side);
    clEnqueueUnmapMemObject(st->base, (cl_mem)handle, ptr, 0, NULL, NULL);
    clFinish(st->base);
    clReleaseMemObject((cl_mem)handle);
}

static gala_status ocl_write(gala_context *ctx, void *h, size_t off, size_t n, const void *src,
                             int blocking)
{
    cl_int e = clEnqueueWriteBuffer(ST(ctx)->queue, (cl_mem)h, blocking ? CL_TRUE : CL_FALSE, off,
                                    n, src, 0, NULL, NULL);
    return e == CL_SUCCESS ? GALA_OK : cl_fail(ctx, e, "clEnqueueWriteBuffer");
}

static gala_status ocl_read(gala_context *ctx, void *h, size_t off, size_t n, void *dst,
                            int blocking)
{
    cl_int e = clEnqueueReadBuffer(ST(ctx)->queue, (cl_mem)h, blocking ? CL_TRUE : CL_FALSE, off,
                                   n, dst, 0, NULL, NULL);
    return e == CL_SUCCESS ? GALA_OK : cl_fail(ctx, e, "clEnqueueReadBuffer");
}

static gala_status ocl_copy(gala_context *ctx, void *s, size_t so, void *d, size_t d_o, size_t n)
{
    cl_int e = clEnqueueCopyBuffer(ST(ctx)->queue, (cl_mem)s, (cl_mem)d, so, d_o, n, 0, NULL, NULL);
    return e == CL_SUCCESS ? GALA_OK : cl_fail(ctx, e, "clEnqueueCopyBuffer");
}

static gala_status ocl_fill(gala_context *ctx, void *h, size_t off, size_t n, const void *pat,
                            size_t ps)
{
    cl_int e = clEnqueueFillBuffer(ST(ctx)->queue, (cl_mem)h, pat, ps, off, n, 0, NULL, NULL);
    return e == CL_SUCCESS ? GALA_OK : cl_fail(ctx, e, "clEnqueueFillBuffer");
}

/* Identity of a program for the disk cache: device id, options and source. */
static char *program_id(const cl_state *st, const char *options, const char *source, size_t *len)
{
    size_t n = strlen(st->id) + strlen(options) + strlen(source) + 4;
    char *id = gala_malloc(n);
    if (id) *len = (size_t)snprintf(id, n, "%s|%s|%s", st->id, options, source);
    return id;
}

static gala_status build_log(gala_context *ctx, cl_program prog, const char *what)
{
    cl_state *st = ST(ctx);
    size_t n = 0;
    gala_error(ctx, GALA_ERR_KERNEL_BUILD, "%s failed to compile for '%s'; compiler log:\n", what,
               ctx->info.device_name);
    if (clGetProgramBuildInfo(prog, st->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS &&
        n > 0) {
        char *log = gala_malloc(n + 1);
        if (log && clGetProgramBuildInfo(prog, st->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) ==
                       CL_SUCCESS) {
            log[n] = '\0';
            gala_error_append(ctx, log);
        }
        gala_free(log);
    }
    return GALA_ERR_KERNEL_BUILD;
}

/* NVIDIA's OpenCL has no launch bounds, and ignores -cl-nv-maxrregcount (run V5: the same
 * 78 registers and time with it), but its program binaries are PTX, where the bounds are
 * directives the driver's compiler honours: .reqntid (from reqd_work_group_size, which
 * KERNEL_MINB sets) with .minnctapersm is CUDA's __launch_bounds__(WG, MINB). Returns
 * ptx with ".minnctapersm minb" put before the body of every entry that has a .reqntid and
 * no .minnctapersm (NULL: none to add, not PTX, or no memory; the caller frees it). */
char *gala_opencl_ptx_min_ctas(const char *ptx, size_t len, int minb)
{
    if (len < 16 || !strstr(ptx, ".version") || !strstr(ptx, ".entry")) return NULL;
    int entries = 0;
    for (const char *e = strstr(ptx, ".entry"); e; e = strstr(e + 6, ".entry")) ++entries;
    char *out = gala_malloc(len + (size_t)entries * 32 + 1);
    if (!out) return NULL;
    size_t o = 0, from = 0;
    int added = 0;
    for (const char *e = strstr(ptx, ".entry"); e; e = strstr(e + 6, ".entry")) {
        const char *body = strchr(e, '{');
        if (!body) break;
        const char *next = strstr(e + 6, ".entry");
        int has_req = 0, has_min = 0;
        for (const char *d = e; d < body; ++d) {
            if (!strncmp(d, ".reqntid", 8)) has_req = 1;
            if (!strncmp(d, ".minnctapersm", 13)) has_min = 1;
        }
        if (next && next < body) continue; /* a declaration without a body */
        if (!has_req || has_min) continue;
        const size_t at = (size_t)(body - ptx);
        memcpy(out + o, ptx + from, at - from);
        o += at - from;
        o += (size_t)snprintf(out + o, 32, ".minnctapersm %d\n", minb);
        from = at;
        ++added;
    }
    if (!added) {
        gala_free(out);
        return NULL;
    }
    memcpy(out + o, ptx + from, len - from);
    out[o + len - from] = 0;
    return out;
}

/* The program p built from source again from its PTX with the MINB directive (above);
 * returns the new program, or p itself when there is nothing to add or the rebuild fails
 * (the kernels then simply run without the bound). */
static cl_program with_min_ctas(const cl_state *st, cl_program p, const char *options, int minb)
{
    size_t bsz = 0;
    if (minb <= 0 || clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL) !=
                         CL_SUCCESS || bsz == 0)
        return p;
    unsigned char *b = gala_malloc(bsz + 1);
    if (!b || clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof b, &b, NULL) != CL_SUCCESS) {
        gala_free(b);
        return p;
    }
    b[bsz] = 0;
    size_t len = strnlen((const char *)b, bsz);
    char *ptx = gala_opencl_ptx_min_ctas((const char *)b, len, minb);
    gala_free(b);
    if (!ptx) return p;
    const size_t n = strlen(ptx) + 1;
    const unsigned char *pb = (const unsigned char *)ptx;
    cl_int bst, e;
    cl_program q = clCreateProgramWithBinary(st->context, 1, &st->device, &n, &pb, &bst, &e);
    gala_free(ptx);
    if (e != CL_SUCCESS || bst != CL_SUCCESS) {
        if (e == CL_SUCCESS) clReleaseProgram(q);
        return p;
    }
    if (clBuildProgram(q, 1, &st->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(q);
        return p;
    }
    clReleaseProgram(p);
    return q;
}

static gala_status ocl_build_with(gala_context *ctx, const gala_program_key *key,
                                  const char *source, const char *options, void **out,
                                  int *from_cache);

/* $GALA_OPENCL_OPTIONS: words added to every program's build options (experiments such as
 * -cl-mad-enable, or -cl-nv-verbose for the driver's log), as GALA_NVRTC_OPTIONS does for
 * CUDA. They are part of the options, hence of the program's cache key. */
static gala_status ocl_build(gala_context *ctx, const gala_program_key *key, const char *source,
                             const char *options, void **out, int *from_cache)
{
    const char *extra = getenv("GALA_OPENCL_OPTIONS");
    if (!extra || !*extra) return ocl_build_with(ctx, key, source, options, out, from_cache);
    const size_t n = strlen(options) + strlen(extra) + 2;
    char *all = gala_malloc(n);
    if (!all) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for build options");
    snprintf(all, n, "%s %s", options, extra);
    gala_status s = ocl_build_with(ctx, key, source, all, out, from_cache);
    gala_free(all);
    return s;
}

static gala_status ocl_build_with(gala_context *ctx, const gala_program_key *key,
                                  const char *source, const char *options, void **out,
                                  int *from_cache)
{
    cl_state *st = ST(ctx);
    cl_int e;
    size_t id_len = 0;
    char *id = program_id(st, options, source, &id_len);
    if (!id) return gala_error(ctx, GALA_ERR_OUT_OF_MEMORY, "no memory for a program id");
    *from_cache = 0;

    void *bin = NULL;
    size_t bin_size = 0;
    if (gala_kcache_load(key->family, id, id_len, &bin, &bin_size)) {
        const unsigned char *b = bin;
        cl_int bstat;
        cl_program p = clCreateProgramWithBinary(st->context, 1, &st->device, &bin_size, &b, &bstat, &e);
        if (e == CL_SUCCESS && bstat == CL_SUCCESS &&
            clBuildProgram(p, 1, &st->device, options, NULL, NULL) == CL_SUCCESS) {
            gala_free(bin);
            gala_free(id);
            *out = p;
            *from_cache = 1;
            return GALA_OK;
        }
        if (e == CL_SUCCESS) clReleaseProgram(p);
        gala_free(bin); /* unusable binary: fall back to the source */
    }

    cl_program p = clCreateProgramWithSource(st->context, 1, &source, NULL, &e);
    if (e != CL_SUCCESS) {
        gala_free(id);
        return cl_fail(ctx, e, "clCreateProgramWithSource");
    }
    e = clBuildProgram(p, 1, &st->device, options, NULL, NULL);
    if (e != CL_SUCCESS) {
        char what[1536];
        snprintf(what, sizeof what, "kernel family '%s' (%s)", key->family, options);
        ctx->build_rejected = e == CL_BUILD_PROGRAM_FAILURE;
        gala_status s = e == CL_BUILD_PROGRAM_FAILURE ? build_log(ctx, p, what)
                        : e == CL_INVALID_BUILD_OPTIONS
                            ? gala_error(ctx, GALA_ERR_KERNEL_BUILD, "%s: the driver rejected "
                                         "the build options", what)
                            : cl_fail(ctx, e, "clBuildProgram");
        clReleaseProgram(p);
        gala_free(id);
        return s;
    }
    /* -D MINB: work-groups per SM, the CUDA kernels' __launch_bounds__ minimum (KERNEL_MINB
     * in cl/common.clh); 0 or absent: none */
    const long long minb = gala_key_value(key, "MINB", 0);
    p = with_min_ctas(st, p, options, minb > 0 && minb <= 32 ? (int)minb : 0);
    size_t bsz = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL) == CL_SUCCESS && bsz) {
        unsigned char *b = gala_malloc(bsz);
        if (b && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof b, &b, NULL) == CL_SUCCESS)
            gala_kcache_store(key->family, id, id_len, b, bsz);
        gala_free(b);
    }
    gala_free(id);
    *out = p;
    return GALA_OK;
}

static void ocl_prog_free(gala_context *ctx, void *p)
{
    (void)ctx;
    clReleaseProgram((cl_program)p);
}

static gala_status ocl_kernel(gala_context *ctx, void *prog, const char *name, void **out)
{
    cl_int e;
    cl_kernel k = clCreateKernel((cl_program)prog, name, &e);
    if (e != CL_SUCCESS) return cl_fail(ctx, e, "clCreateKernel");
    *out = k;
    return GALA_OK;
}

/* A kernel compiled for a required work-group size (reqd_work_group_size: KERNEL_MINB in
 * cl/common.clh) runs that size: the compiler fitted it, or the build failed. Otherwise
 * CL_KERNEL_WORK_GROUP_SIZE: AMD's is its flat work-group size; NVIDIA's is 256 for every
 * such kernel (H200, driver 580) though most run more, and a kernel whose registers allow
 * fewer fails its launch with CL_OUT_OF_RESOURCES. Mesa's Rusticl (22.3, llvmpipe) reports
 * 32 for every kernel and runs 1024: not asked there. */
static size_t ocl_kernel_max_wg(gala_context *ctx, void *k)
{
    if (gala_strcasestr_match(ctx->info.platform_name, "rusticl")) return 0;
    size_t req[3] = {0, 0, 0}, v = 0;
    if (clGetKernelWorkGroupInfo((cl_kernel)k, ST(ctx)->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                 sizeof req, req, NULL) == CL_SUCCESS && req[0] > 0)
        return req[0] * (req[1] ? req[1] : 1) * (req[2] ? req[2] : 1);
    if (clGetKernelWorkGroupInfo((cl_kernel)k, ST(ctx)->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof v,
                                 &v, NULL) != CL_SUCCESS)
        v = 0;
    return v;
}

static void ocl_kernel_free(gala_context *ctx, void *k)
{
    (void)ctx;
    clReleaseKernel((cl_kernel)k);
}

static gala_status ocl_launch(gala_context *ctx, void *kernel, const gala_program_key *key,
                              const gala_dims *d, int nargs, const gala_arg *args)
{
    cl_kernel k = kernel;
    for (int i = 0; i < nargs; ++i) {
        cl_int e = CL_SUCCESS;
        const gala_arg *a = &args[i];
        switch (a->kind) {
        case GALA_ARG_BUF: {
            cl_mem m = (cl_mem)a->v.buf->handle;
            e = clSetKernelArg(k, (cl_uint)i, sizeof m, &m);
            break;
        }
        case GALA_ARG_INT: {
            cl_int v = a->v.i;
            e = clSetKernelArg(k, (cl_uint)i, sizeof v, &v);
            break;
        }
        case GALA_ARG_LONG: {
            cl_long v = a->v.l;
            e = clSetKernelArg(k, (cl_uint)i, sizeof v, &v);
            break;
        }
        case GALA_ARG_REAL:
            if (key->dtype == GALA_DOUBLE) {
                cl_double v = a->v.r;
                e = clSetKernelArg(k, (cl_uint)i, sizeof v, &v);
            } else {
                cl_float v = (cl_float)a->v.r;
                e = clSetKernelArg(k, (cl_uint)i, sizeof v, &v);
            }
            break;
        }
        if (e != CL_SUCCESS) {
            gala_status s = cl_fail(ctx, e, "clSetKernelArg");
            char more[96];
            snprintf(more, sizeof more, " (argument %d of a %s kernel)", i, key->family);
            gala_error_append(ctx, more);
            return s == GALA_ERR_DEVICE ? GALA_ERR_INTERNAL : s;
        }
    }
    cl_int e = clEnqueueNDRangeKernel(ST(ctx)->queue, k, (cl_uint)d->ndim, NULL, d->global,
                                      d->local, 0, NULL, NULL);
    return e == CL_SUCCESS ? GALA_OK : cl_fail(ctx, e, "clEnqueueNDRangeKernel");
}

static gala_status ocl_timer(gala_context *ctx, void **t)
{
    if (!ctx->profiling)
        return gala_error(ctx, GALA_ERR_NOT_SUPPORTED,
                          "device timers need a context created with profiling = 1");
    cl_event ev;
    cl_int e = clEnqueueMarkerWithWaitList(ST(ctx)->queue, 0, NULL, &ev);
    if (e != CL_SUCCESS) return cl_fail(ctx, e, "clEnqueueMarkerWithWaitList");
    *t = ev;
    return GALA_OK;
}

static gala_status ocl_elapsed(gala_context *ctx, void *a, void *b, double *ms)
{
    cl_event ev[2] = {(cl_event)a, (cl_event)b};
    cl_ulong t0, t1;
    cl_int e = clWaitForEvents(2, ev);
    if (e != CL_SUCCESS) return cl_fail(ctx, e, "clWaitForEvents");
    e = clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
    if (e == CL_SUCCESS)
        e = clGetEventProfilingInfo(ev[1], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    if (e != CL_SUCCESS) return cl_fail(ctx, e, "clGetEventProfilingInfo");
    *ms = 1e-6 * (double)(t1 - t0);
    return GALA_OK;
}

static void ocl_timer_free(gala_context *ctx, void *t)
{
    (void)ctx;
    clReleaseEvent((cl_event)t);
}

#ifdef GALA_HAVE_CLBLAST
extern const gala_blas3_ops gala_clblast_blas3; /* clblast.c */
#define GALA_OPENCL_BLAS3 (&gala_clblast_blas3)
#else
#define GALA_OPENCL_BLAS3 NULL
#endif

static const gala_device_ops ops = {
    .backend = GALA_BACKEND_OPENCL,
    .name = "opencl",
    .list = ocl_list,
    .open = ocl_open,
    .close = ocl_close,
    .finish = ocl_finish,
    .mem_alloc = ocl_alloc,
    .mem_free = ocl_free,
    .mem_write = ocl_write,
    .mem_read = ocl_read,
    .mem_copy = ocl_copy,
    .mem_fill = ocl_fill,
    .program_build = ocl_build,
    .program_free = ocl_prog_free,
    .kernel_create = ocl_kernel,
    .kernel_free = ocl_kernel_free,
    .kernel_max_wg = ocl_kernel_max_wg,
    .launch = ocl_launch,
    .timer_record = ocl_timer,
    .timer_elapsed = ocl_elapsed,
    .timer_free = ocl_timer_free,
    .lane_select = ocl_lane_select,
    .lane_wait = ocl_lane_wait,
    .twin = ocl_twin,
    .blas3 = GALA_OPENCL_BLAS3,
    .host_alloc = ocl_host_alloc,
    .host_free = ocl_host_free,
};

const gala_device_ops *gala_opencl_ops(void) { return &ops; }

/* Native handles, for the CLBlast calls of this backend (opencl.h). */
void *gala_opencl_queue(gala_context *ctx) { return ST(ctx)->queue; }
void *gala_opencl_device(gala_context *ctx) { return ST(ctx)->device; }
long *gala_opencl_xgemm_set(gala_context *ctx, gala_dtype dt, int tried)
{
    return tried ? ST(ctx)->xgemm_tried[dt == GALA_DOUBLE] : ST(ctx)->xgemm[dt == GALA_DOUBLE];
}
