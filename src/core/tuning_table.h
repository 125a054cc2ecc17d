/* Tuning rows: { key, backend, vendor substring, device substring, dtype, value }.
 * 0 / NULL mean "any". See tuning.c for how a row is chosen. */

/* vec.cl and gemv.cl: work-group size of reductions; elements per work-item of the
 * element-wise kernels are set by the launch size cap. */
{"vec.wg", 0, NULL, NULL, 0, 256},
{"vec.wg", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 256},
{"vec.max_groups", 0, NULL, NULL, 0, 65536},
{"vec.max_groups", GALA_BACKEND_OPENCL, "Portable Computing Language", NULL, 0, 64},
{"gemv.wg", 0, NULL, NULL, 0, 256},
{"gemv.n_local", 0, NULL, NULL, 0, 128},
/* qp.cl: work-group size of the ADMM kernel, QPs per work-group in shared-matrix mode, and
 * the local-memory budget (bytes) above which a QP's vectors stay in global memory. */
{"qp.wg", 0, NULL, NULL, 0, 256},
{"qp.tb", 0, NULL, NULL, 0, 16},
{"qp.local_bytes", 0, NULL, NULL, 0, 40960},
