/* OpenCL backend internals shared by its files (e.g. the CLBlast adaptor). */
#ifndef GALA_OPENCL_INTERNAL_H
#define GALA_OPENCL_INTERNAL_H

#include "../../core/internal.h"

/** The context's cl_command_queue. */
GALA_INTERNAL void *gala_opencl_queue(struct gala_context *ctx);

#endif
