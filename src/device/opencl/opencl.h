/* OpenCL backend internals shared by its files (e.g. the CLBlast adaptor). */
#ifndef GALA_OPENCL_INTERNAL_H
#define GALA_OPENCL_INTERNAL_H

#include "../../core/internal.h"

/** The context's cl_command_queue. */
GALA_INTERNAL void *gala_opencl_queue(struct gala_context *ctx);
/** The context's cl_device_id. */
GALA_INTERNAL void *gala_opencl_device(struct gala_context *ctx);

/** CLBlast Xgemm parameters this context last gave CLBlast for a dtype (clblast.c), or
 *  (tried) the last ones it considered, applied or not. */
#define GALA_XGEMM_PARAMS 16
GALA_INTERNAL long *gala_opencl_xgemm_set(struct gala_context *ctx, gala_dtype dt, int tried);

/** ptx (len bytes of NVIDIA PTX text) with ".minnctapersm minb" put before the body of
 *  every .entry that has a .reqntid and no .minnctapersm yet: CUDA's __launch_bounds__(WG,
 *  minb) for NVIDIA's OpenCL, which has none (opencl.c). NULL when there is nothing to add,
 *  the text is not PTX, or no memory; else a NUL-terminated copy the caller frees with
 *  gala_free. */
GALA_INTERNAL char *gala_opencl_ptx_min_ctas(const char *ptx, size_t len, int minb);

#endif
