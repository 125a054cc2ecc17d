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
/* ldlt.cl (dense LDLᵀ): largest fused order (power of two; lowered when local memory is
 * short), lanes of a fused work-group, panel width and work-group, update tile, solve
 * work-group. sldlt.cl (sparse LDLᵀ): work-group size; sldlt.mb / sldlt.cw / sldlt.sync
 * (matrices per work-group, column workers, barrier per task) have no rows: 0 or absent
 * means the policy of src/la/sparse_ldlt.c; sldlt.baseline=1 selects the column kernel. */
{"ldlt.nb_max", 0, NULL, NULL, 0, 64},
{"ldlt.fused_wg", 0, NULL, NULL, 0, 64},
{"ldlt.nbp", 0, NULL, NULL, 0, 32},
{"ldlt.wgp", 0, NULL, NULL, 0, 64},
{"ldlt.ts", 0, NULL, NULL, 0, 16},
{"ldlt.wg", 0, NULL, NULL, 0, 64},
{"sldlt.wg", 0, NULL, NULL, 0, 64},
