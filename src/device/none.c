/* Backends absent from this build report themselves as NULL. */
#include "device.h"

#ifndef GALA_HAVE_OPENCL
const gala_device_ops *gala_opencl_ops(void) { return 0; }
#endif
#ifndef GALA_HAVE_CUDA
const gala_device_ops *gala_cuda_ops(void) { return 0; }
#endif
