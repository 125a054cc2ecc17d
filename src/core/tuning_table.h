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
/* trtri.cl (docs/trtri.md): fused path up to fused_max, diagonal blocks of order nb, columns
 * per work-item cpt (NB >= 32), diag_inv work-group size wg, product tiles ts/tk/wpt,
 * check work-group check_wg, unroll (0 keeps the register loops rolled: PoCL builds the
 * kernels several times faster and a CPU does not need them in registers). */
{"trtri.fused_max", 0, NULL, NULL, 0, 64},
{"trtri.nb", 0, NULL, NULL, 0, 64},
{"trtri.cpt", 0, NULL, NULL, 0, 1},
{"trtri.cpt", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 2},
{"trtri.cpt", GALA_BACKEND_CUDA, NULL, NULL, GALA_FLOAT, 2},
{"trtri.wg", 0, NULL, NULL, 0, 128},
{"trtri.ts", 0, NULL, NULL, 0, 64},
{"trtri.ts", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 128},
{"trtri.tk", 0, NULL, NULL, 0, 16},
{"trtri.wpt", 0, NULL, NULL, 0, 4},
{"trtri.wpt", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 8},
{"trtri.check_wg", 0, NULL, NULL, 0, 256},
{"trtri.unroll", 0, NULL, NULL, 0, 1},
{"trtri.unroll", GALA_BACKEND_OPENCL, "Portable Computing Language", NULL, 0, 0},
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
