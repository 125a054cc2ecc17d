/* Tuning rows: { key, backend, vendor substring, device substring, dtype, value[, when] }.
 * 0 / NULL mean "any"; when: a property the device reports ("cpu": not a GPU). Rows are
 * chosen by what the device reports, never by a platform's name standing for a kind of
 * device (issue 39): the rows for OpenCL CPU devices (measured on PoCL) say "cpu". See
 * tuning.c for how a row is chosen. */

/* vec.cl and gemv.cl: work-group size of reductions; elements per work-item of the
 * element-wise kernels are set by the launch size cap. */
{"vec.wg", 0, NULL, NULL, 0, 256},
{"vec.wg", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 256},
{"vec.max_groups", 0, NULL, NULL, 0, 65536},
{"vec.max_groups", GALA_BACKEND_OPENCL, NULL, NULL, 0, 64, "cpu"},
{"gemv.wg", 0, NULL, NULL, 0, 256},
{"gemv.n_local", 0, NULL, NULL, 0, 128},
/* qp.cl: work-group size of the ADMM kernel, QPs per work-group in shared-matrix mode, and
 * the local-memory budget (bytes) above which a QP's vectors stay in global memory. */
{"qp.wg", 0, NULL, NULL, 0, 256},
{"qp.tb", 0, NULL, NULL, 0, 16},
/* qp.rb: rows of the shared K⁻¹ product per work-item (was 2). H200, 2026-11-22, run H8,
 * double integrator b = 10000: CUDA float / double 302k / 386k QPs/s with 2, 382k / 445k
 * with 1 (4: 308k / 253k); OpenCL double 368k → 395k, float 346k → 332k (the same default
 * gave 387k an hour earlier: within its spread); tb 8 and 32 were slower. */
{"qp.rb", 0, NULL, NULL, 0, 1},
/* NVIDIA's OpenCL: 2. H200, 2026-11-22, runs L7 / L8 (three rounds each, same call), double
 * integrator b = 10000: iterate 1.27 -> 1.17 us/QP in float, 0.95 -> 0.84 in double (float
 * 479-509k -> 514-538k QPs/s, double 553-595k -> 602-648k); CUDA in L8: float 0.95 -> 1.65
 * us/QP with 2, double 0.97 -> 0.99, so CUDA keeps 1. */
{"qp.rb", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 2},
/* qp.tl: 1 = the tile layout of a shared tile's local vectors (cl/qp.cl, TL: a QP's values
 * of one element side by side, RVEC reads of R in the K⁻¹ product). H200, 2026-11-22, run
 * P3 (two rounds, same call), double integrator b = 10000, iterate us/QP against TL = 0:
 * NVIDIA OpenCL float 1.17-1.18 -> 1.00-1.01 with rb 1 (1.09-1.10 with rb 2), double
 * 0.84-0.86 -> 0.95-0.96 (rb 1; 1.09-1.13 otherwise: a tile of 4 fits 40 KB, not 8); CUDA
 * float 0.95 -> 1.00-1.01 (rb 2: 1.61), double 0.97 -> 0.97 (rb 1; 0.87 with rb 2 and a
 * tile of 8: the CUDA double rows below). ncu (P1, P2):
 * TL = 0 is bound by L1 (84 % busy; per K⁻¹ column a work-item makes one global and four
 * local reads for four FMAs); TL = 1 halves the local wavefronts, but its larger tile
 * leaves less L1 for K⁻¹ (hit rate 99.6 -> 86 %). */
{"qp.tl", 0, NULL, NULL, 0, 0},
{"qp.tl", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 1},
{"qp.rb", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 1},
/* qp.tile_bytes: the shared tile's local-memory budget (no row: qp.local_bytes). CUDA
 * double: TL = 1 with rb 2 and a tile of 8 in 45.6 KB (P3: iterate 0.97 -> 0.87 us/QP, two
 * rounds; NVIDIA OpenCL double the same way 0.85 -> 1.13, so it keeps TL = 0). */
{"qp.tl", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 1},
{"qp.rb", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 2},
{"qp.tile_bytes", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 47104},
{"qp.local_bytes", 0, NULL, NULL, 0, 40960},
/* qp.qb: QPs per work-item of a shared tile's K⁻¹ and sparse products (-D QB); qp.minb:
 * __launch_bounds__ minimum groups per SM for qp_admm on CUDA (0: none). H200, 2026-11-22,
 * runs K2-K4, double integrator b = 10000: qb 2 and 8 slower than 4 on both backends; minb 5
 * and 6 within the run-to-run spread (the per-row sparse loops took the registers from 56
 * to 80 in double, 48 to 64 in float, and still ran 1.28-1.57x faster). No rows: 4, 0. */
/* la.vb_memo: the largest variable batch (matrices) whose device descriptors a context keeps
 * for reuse, for its last three potrf / potrs / potri _vbatched layouts: a call whose size,
 * offset and leading-dimension arrays equal a kept one's skips the build and the upload
 * (src/la/la_common.c, la_desc_build). No row: 1048576 (40 MB of descriptors); 0 builds and
 * uploads them on every call. H200, run W2, potrf of 50000 matrices of orders 1..64 called
 * again with the same layout: float 1.11-1.18 -> 0.57-0.59 ms (CUDA), 1.20-1.53 -> 0.65-0.66
 * (NVIDIA OpenCL); double 1.46-1.82 -> 0.98-1.07. */
/* staging.max_mb: the largest page-locked host block a context keeps for bulk transfers
 * (src/core/context.c, gala_staging_take); 0 turns staging off. No row: 1024. */
/* qp.min_bin (no row: the default is two QPs per compute unit): launch classes of fewer
 * QPs are merged into larger ones (src/qp/linsys_dense.c, merge_small); 0 keeps them. */
/* qp.lanes (no row: 1): the dense strategy's launch classes spread over the backend's two
 * lanes (queues / streams), so that one class's last work-groups overlap the next class
 * (src/qp/linsys_dense.c, dense_iterate); 0 runs them in order on one. */
/* qp.factor: 1 = K⁻¹ through gala_potrf_vbatched + gala_potri_vbatched (src/la), 0 = the
 * solver's fused sweep kernel (qp_chol_inv), 2 = qp_chol_inv keeps the Cholesky factor and
 * every iteration solves with it (host backend only). PoCL, control nx = 10, batch 100: 70
 * QPs/s with 1 against 16-26 with 0; host backend, double, one core of the development
 * machine: 244 (1), 399 then 901 (0, after later work), 1250-1350 (2) QPs/s. */
/* qp.sparse_n: with linsys_solver AUTO (and no shared batch), a batch whose largest QP has
 * at least this many variables is analyzed for the sparse KKT LDLᵀ strategy, which it takes
 * when a solve with the factors costs at most half of a product with the dense K⁻¹
 * (src/qp/linsys_sparse.c). Host and CPU OpenCL: from 1024 variables. */
/* On GPUs the sparse solve runs one work-item per QP through the factor's schedule: H200,
 * 2026-11-22, control QPs nx = 10 (n = 160) b = 10000: 2.0 s against 0.08 s dense; nx = 40
 * b = 100: 1.5 s against 0.05 s. There it is for QPs whose dense K would not fit. */
{"qp.sparse_n", 0, NULL, NULL, 0, 8192},
{"qp.sparse_n", GALA_BACKEND_HOST, NULL, NULL, 0, 1024},
{"qp.sparse_n", GALA_BACKEND_OPENCL, NULL, NULL, 0, 1024, "cpu"},
{"qp.factor", 0, NULL, NULL, 0, 1},
{"qp.factor", GALA_BACKEND_HOST, NULL, NULL, 0, 2},
/* host.par_work: the host backend runs a batched launch on n threads when its estimated work
 * (multiply-adds or element touches, src/device/host/host_kernels.h) is at least n times
 * this (at most the context's threads). 2-core development machine, 2026-11-28, medians of
 * 15-41 calls, 2 threads, with the pool's spinning workers (src/core/pool.c): control QPs,
 * batch 2 / 4 / 8 / 16: 1.0 / 3.1 / 7.0 / 14.8 ms serial against 0.6-0.8 / 1.8-2.6 / 4.2-6.0 /
 * 7.3-9.7 ms for any value from 1 to 262144; potrf n = 8, batch 16 / 64 / 2000: 10.7 / 19.5 /
 * 573 us serial, 5.2-6.1 / 12.7-34 / 412-553 us with 1-65536; n = 32 batch 4: 18.2 us
 * serial, 28.1 with 1, 19.7 with 16384. The runs are noisy (shared cores); 16384 keeps
 * launches of a few microseconds on the calling thread. */
{"host.par_work", GALA_BACKEND_HOST, NULL, NULL, 0, 16384},

/* Dense factorizations (src/la: potrf, potrs, potri; cl/potrf.cl, potrs.cl, potri.cl,
 * lagemm.cl). la.unroll: unroll the register loops (GPUs); CPU OpenCL compiles the rolled
 * loops many times faster. la.min_bucket: smallest register-row length N of the fused
 * kernels (n <= fused_max runs with N = the power of two >= max(n, min_bucket)); on CPU
 * OpenCL a larger minimum means fewer programs to compile. potrf.fused_max: largest n factored by one fused launch;
 * potrf.nb: panel width of the blocked path; potrf.wg / potrf.panel_wg: work-groups of the
 * fused and chunked panel launches; potrf.blas3_min: one matrix of at least this order
 * uses the backend's BLAS-3 with steps of potrf.blas3_nb, left-looking when potrf.left,
 * the rows below each diagonal block by TRSM when potrf.trsm (else by gala's panel kernels).
 * potrs.*: the same for the solves (rc right-hand sides per pass, chunks passes per
 * work-group); lagemm.*: tile, depth and work-items per side of the update kernel. */
{"la.unroll", 0, NULL, NULL, 0, 1},
{"la.unroll", GALA_BACKEND_OPENCL, NULL, NULL, 0, 0, "cpu"},
{"potrf.fused_max", 0, NULL, NULL, 0, 64},
/* potrf.lane: fused launches of register rows N <= potrf.lane (8 or 16; 0 = none) use
 * potrf_lane, one work-item per matrix, instead of one per row; potrf.lane_wg: its
 * matrices per work-group (halved until its local memory fits); potrf.lane_ch: its reads
 * in flight per work-item (-D CH). */
{"potrf.lane", 0, NULL, NULL, 0, 0},
{"potrf.lane_wg", 0, NULL, NULL, 0, 64},
{"potrf.lane_ch", 0, NULL, NULL, 0, 16},
/* H200, 2026-11-22 (run M2, batched b = 100000, medians of 10, two rounds, ms): float n = 8
 * async 0.040-0.044 -> 0.027-0.029 (CUDA), 0.042-0.046 -> 0.034 (OpenCL); float n = 16
 * 0.110 -> 0.082-0.087 / 0.111-0.117 -> 0.090; double n = 8 0.048-0.050 -> 0.044-0.046 /
 * 0.050-0.056 -> 0.047-0.050, all with lane_ch = 64. Double n = 16 keeps potrf_panel (136
 * doubles per work-item spill). */
{"potrf.lane", GALA_BACKEND_CUDA, NULL, NULL, GALA_FLOAT, 16},
{"potrf.lane", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 8},
{"potrf.lane", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 16},
{"potrf.lane", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_DOUBLE, 8},
{"potrf.lane_ch", GALA_BACKEND_CUDA, NULL, NULL, 0, 64},
{"potrf.lane_ch", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 64},
/* potrf.pair: fused launches of register rows potrf.pair_min <= N <= potrf.pair that
 * potrf_lane does not take use potrf_pair (two rows per work-item) instead of potrf_panel;
 * 0 = none. potrf.pair_minb: its work-groups per SM for the CUDA compiler (0: no hint).
 * H200, 2026-11-22 (run M4, medians of 10, two rounds, ms, sync / async): N = 32 float
 * CUDA 0.236-0.240 -> 0.176-0.180 / 0.221-0.229 -> 0.164, OpenCL 0.260-0.277 -> 0.236 /
 * 0.243-0.247 -> 0.216-0.217; double CUDA 0.335-0.339 -> 0.250-0.260, OpenCL 0.377-0.380 ->
 * 0.282-0.299. Slower at N = 16 (double: 0.130-0.132 -> 0.144-0.145 async, CUDA) and at
 * N = 64 (float OpenCL 0.40-0.41 -> 0.75-0.76: 64 copies of the column step; run P10, sync,
 * two rounds: float CUDA 0.430-0.432 -> 0.464-0.466, double CUDA 1.129 -> 1.310 (pair_minb 3:
 * 1.219-1.221), double OpenCL 1.158-1.159 -> 1.515-1.519). Since 882c5ca (vector reads of
 * the column, row pointers; H100, 2026-11-26, run X1) N = 64 equals potrf_tile in float and
 * potrf_panel in double (OpenCL 0.409 / 0.416, 0.709 / 0.717 ms): not switched. */
{"potrf.pair", 0, NULL, NULL, 0, 0},
{"potrf.pair_min", 0, NULL, NULL, 0, 16},
{"potrf.pair_minb", 0, NULL, NULL, 0, 0},
{"potrf.pair", GALA_BACKEND_CUDA, NULL, NULL, 0, 32},
{"potrf.pair_min", GALA_BACKEND_CUDA, NULL, NULL, 0, 32},
{"potrf.pair", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 32},
{"potrf.pair_min", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 32},
/* N = 64 on the H100 / H200: potrf_pair, both precisions. H100, 2026-11-27, session 31
 * runs 4-5 (b = 20000, medians of 10, two rounds, sync, ms; NVIDIA OpenCL / CUDA): float
 * potrf_pair 0.285-0.289 / 0.262-0.270 against potrf_tile 0.354-0.356 / 0.334-0.337; double
 * 0.460-0.486 / 0.439-0.441 against the two panels of potrf.p32_min 0.716-0.729 / 0.691-0.705
 * and potrf_tile 0.779-0.786 / 0.684-0.699. Variable batches of orders 1..64 (50000, float):
 * 0.648 -> 0.621 / 0.578 -> 0.490. A register cap (potrf.pair_minb) is slower: 3 groups
 * 0.79-0.97 ms in double, 8 groups 0.97-0.99 in float; groups of 64 or 256 work-items are
 * within 3 % of 128. The X1 comparison above had the potrf_tile rows in force, which take
 * N = 64 before potrf_pair: it compared potrf_tile with itself. */
{"potrf.pair", GALA_BACKEND_CUDA, NULL, "H100|H200", 0, 64},
{"potrf.pair", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", 0, 64},
/* potrf.pair_diag: the blocked path's DIAG launches (pf_panel_solve: the diagonal block of
 * each panel, before potrf_trsm) by potrf_pair where it takes fused launches of that order
 * (potrf.pair_min <= potrf.nb <= potrf.pair), instead of potrf_panel; 0 = potrf_panel. H200,
 * 2026-11-27, session 32 run A1 (batched, b = 5000 / 1000 / 200, sync rows, two rounds, ms,
 * 0 -> 1): NVIDIA OpenCL float n = 128 / 256 / 512 0.603-0.579 / 0.721-0.674 / 1.035-1.070
 * -> 0.523-0.534 / 0.644-0.662 / 0.939-0.963, double 1.054-1.060 / 0.945-0.961 /
 * 1.285-1.364 -> 0.805-0.817 / 0.828-0.829 / 1.210-1.215; CUDA float 0.576-0.582 /
 * 0.712-0.719 / 0.990-1.000 -> 0.510-0.512 / 0.656-0.659 / 0.925-0.934, double 1.036-1.042 /
 * 0.953-0.995 / 1.192-1.205 -> 0.752-0.755 / 0.900-0.903 / 1.155-1.164; variable batches of
 * orders 1..512 (500) 0-7 % faster. On wherever potrf_pair takes order nb (today: N = 64 on
 * the H100 / H200). */
{"potrf.pair_diag", 0, NULL, NULL, 0, 1},
/* potrf.tile: fused launches of register rows potrf.tile_min <= N <= potrf.tile that
 * potrf_lane does not take use potrf_tile (a potrf.tile_ts square tile of L per work-item,
 * potrf.tile_mpg matrices per work-group) instead of potrf_pair / potrf_panel; 0 = none.
 * potrf.tile_minb: work-groups per SM the compiler must fit (CUDA __launch_bounds__; on
 * NVIDIA's OpenCL .minnctapersm in the PTX): the register budget sets this kernel's speed.
 * H200, 2026-11-23 (runs V4-V6, b = 20000, medians of 10, sync, ms): float n = 64 CUDA
 * 0.435-0.445 -> 0.319-0.321 (tiles of 4, 2 matrices, minb 4: 56 registers), NVIDIA OpenCL
 * 0.433-0.449 -> 0.388-0.395; minb 3 / 5 and 1 / 3 / 4 matrices per group were slower, so
 * was a barrier per column instead of per block column (V2: no faster than potrf_panel).
 * Double n = 64 (minb 2): fused potrf_panel 1.15-1.19 -> 0.68 (CUDA) / 0.75 (OpenCL);
 * strided batches of at least potrf.p32_min keep the two panels (0.63-0.65). Order 32
 * keeps potrf_pair (tiles: 0.21 against 0.16 on CUDA). Since session 31 (2026-11-27)
 * potrf_pair takes N = 64 on these GPUs (the potrf.pair rows above), faster in both
 * precisions, so no row turns potrf_tile on; the tile_min / tile_minb rows below are its
 * settings for potrf.tile=64. */
{"potrf.tile", 0, NULL, NULL, 0, 0},
{"potrf.tile_min", 0, NULL, NULL, 0, 32},
{"potrf.tile_ts", 0, NULL, NULL, 0, 4},
{"potrf.tile_mpg", 0, NULL, NULL, 0, 2},
{"potrf.tile_minb", 0, NULL, NULL, 0, 0},
/* potrf.tile_stream (-D PT_STREAM): the update reads its operands one column of the block
 * column at a time (2·TS registers instead of 2·TS²; the same products in the same order).
 * H100, 2026-11-27 (session 31 run 2, b = 20000, n = 64, medians of 10, two rounds, ms):
 * NVIDIA OpenCL float 0.402-0.408 -> 0.355-0.356 (local-memory spill instructions 2.25 M ->
 * 0.55 M at the same 56 registers, ncu on CUDA); CUDA float 0.326-0.340 -> 0.333-0.336 and
 * double (tiles) 0.683-0.694 -> 0.697-0.704, OpenCL double 0.757 -> 0.714-0.721 (the two
 * panels, then the default: 0.708-0.731); with a cap of 5 groups (40 registers) it spills more and is
 * slower everywhere (0.40-0.51 ms float). So on NVIDIA's OpenCL, float. */
{"potrf.tile_stream", 0, NULL, NULL, 0, 0},
{"potrf.tile_stream", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 1},
{"potrf.tile_min", GALA_BACKEND_CUDA, NULL, "H100|H200", 0, 64},
{"potrf.tile_minb", GALA_BACKEND_CUDA, NULL, "H100|H200", GALA_FLOAT, 4},
{"potrf.tile_minb", GALA_BACKEND_CUDA, NULL, "H100|H200", GALA_DOUBLE, 2},
{"potrf.tile_min", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", 0, 64},
{"potrf.tile_minb", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 4},
{"potrf.tile_minb", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 2},
/* potrf.select (-D SEL of potrf_panel): read and write the register row by selects with
 * constant indices, for register rows of N <= potrf.select_max. H200, 2026-11-22: NVIDIA's
 * OpenCL 2-3.3x faster with it at every N (batched n = 32 double 1.765 -> 0.538 ms; n = 128
 * float 3.46 -> 1.90 ms). CUDA (NVRTC): N = 64 up to 4.3x slower (n = 64 float 0.835 -> 3.57
 * ms), N = 8 and 16 equal, N = 32 float 7 % slower but double 15 % faster (0.627 -> 0.531
 * ms), so CUDA uses it for double rows of N <= 32 only. */
{"potrf.select", 0, NULL, NULL, 0, 0},
{"potrf.select", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 1},
{"potrf.select", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 1},
/* potrf.vec (-D VEC of potrf_panel): the update reads the pivot column from local memory
 * as 16-byte vectors (one load for 4 floats or 2 doubles instead of one per multiply-add).
 * H200 run I1 against 0, same call: within noise for most sizes, batched float n = 8 10 %
 * faster on CUDA, double n = 16 5 % slower. */
{"potrf.vec", 0, NULL, NULL, 0, 1},
{"potrf.select_max", 0, NULL, NULL, 0, 64},
/* potrf.half (-D HALF, register rows of 64): the rows of the first warp stop their update at
 * column 31 (their entries right of it are zero). H200, 2026-11-22, run L11, batched, torch
 * in the call, second round: float n = 64 CUDA 0.466 -> 0.426 ms, OpenCL 0.437 -> 0.418;
 * n = 128..512 1-5 % faster (CUDA float), 1-3 % (OpenCL); double n = 64 1.255 -> 1.227 /
 * 1.211 -> 1.178, CUDA double n = 128..512 within 1.5 %. Off elsewhere: where a wavefront is
 * 64 wide the branch would diverge. */
{"potrf.half", 0, NULL, NULL, 0, 0},
{"potrf.half", GALA_BACKEND_CUDA, NULL, NULL, 0, 1},
{"potrf.half", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 1},
{"potrf.select_max", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 32},
{"la.min_bucket", 0, NULL, NULL, 0, 8},
{"la.min_bucket", GALA_BACKEND_OPENCL, NULL, NULL, 0, 32, "cpu"},
{"potrf.nb", 0, NULL, NULL, 0, 64},
/* (CUDA double had panels of 32 from run J9 until potrf.psolve: with it, H200 run T4,
 * n = 128 / 256 / 512, 32 -> 64: 1.345 / 1.376 / 1.793 -> 1.316 / 1.281 / 1.706 ms.) */
/* potrf.psolve: the blocked path's panels as their diagonal block (a DIAG launch) and the
 * rows below by potrf_trsm, without potrf_scan (0 = the chunked panel kernel and the scan;
 * 2 = also the tall panels of one large matrix's BLAS-3 path). H200 run T4 (before the scan
 * was dropped), ms, n = 128 / 256 / 512, 0 -> 1: NVIDIA OpenCL double 1.628 / 1.776 / 2.135
 * -> 1.367 / 1.377 / 1.819, float 0.934 / 1.129 / 1.469 -> 0.833 / 0.939 / 1.348; CUDA float
 * 0.822 / 0.959 / 1.245 -> 0.750 / 0.787 / 1.160. PoCL and the host backend on the
 * development machine (double, --quick): n = 128 batch 100 58.5 -> 31.6 ms (PoCL), n = 512
 * batch 4 104.7 -> 59.8 ms (host). potrf.psolve_wg: rows per potrf_trsm group (T2: 64 was
 * 3-4 % slower than 128 on NVIDIA's OpenCL double). */
{"potrf.psolve", 0, NULL, NULL, 0, 1},
{"potrf.psolve_wg", 0, NULL, NULL, 0, 128},
/* potrf.lanes_n: strided batches of at least this order (0 = never) and potrf.lanes_min
 * matrices run the blocked path in two halves on two lanes, launched step by step in turn, so
 * that one half's DIAG chain (latency: 46 µs per launch with 200 matrices of 512) overlaps
 * the other half's solves and updates. H200 run T9, two rounds, ms, off -> on, n = 128 / 256
 * / 512: NVIDIA OpenCL double 1.252-1.277 / 1.243-1.244 / 1.705 -> 1.218-1.221 /
 * 1.134-1.141 / 1.541-1.545, float 0.713 / 0.849-0.853 / 1.288-1.290 -> 0.721-0.724 /
 * 0.811-0.812 / 1.194-1.229; CUDA double 1.172-1.174 / 1.117-1.131 / 1.521-1.522 ->
 * 1.223-1.226 / 1.056-1.057 / 1.385-1.418, float 0.610-0.618 / 0.687-0.688 / 1.076-1.077 ->
 * 0.639-0.641 / 0.682-0.683 / 1.012-1.017: on from order 256. */
{"potrf.lanes_n", 0, NULL, NULL, 0, 0},
{"potrf.lanes_n", GALA_BACKEND_CUDA, NULL, NULL, 0, 256},
{"potrf.lanes_n", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 256},
{"potrf.lanes_min", 0, NULL, NULL, 0, 64},
/* potrf.p32_min: strided batches of order 33..64 and at least this many matrices as two
 * panels of 32 on the blocked path (0 = never; src/la/potrf.c, pf_two_panels). H200,
 * 2026-11-23, run U6, batched n = 64, 20000 matrices, double, ms (% of the copy bandwidth,
 * synchronous row): the fused launch 1.190 (26.7 %) on NVIDIA's OpenCL and 1.174 (26.5 %)
 * on CUDA; two panels of 32 (with potrf_trsm groups of 32, now the rule for rows below a
 * panel) 0.652 (48.7 %) and 0.635 (49.0 %); asynchronous rows 50.3 % / 49.4 %. Float keeps
 * the fused launch (0.434 against 0.467-0.487 ms). Panels of 16: 1.02-1.05 ms. Run U7
 * (fused -> two panels, ms, OpenCL / CUDA): 1000 matrices 0.106 -> 0.086 / 0.087 -> 0.067,
 * 3000 0.201 -> 0.155 / 0.188 -> 0.133, 20000 1.161 -> 0.666 / 1.168 -> 0.627; below 1000
 * not measured with two panels (batches of 100-300 take 36-62 µs either way, launches
 * included), so they keep the single launch. */
{"potrf.p32_min", 0, NULL, NULL, 0, 0},
/* potrf.p32_vb: variable batches too (their bucket of orders 33..64, at least p32_min
 * matrices). Tested, not yet measured on a GPU: off. */
{"potrf.p32_vb", 0, NULL, NULL, 0, 0},
/* (H100 / H200 double had p32_min 1000 from run U6 until session 31: potrf_pair at N = 64
 * is 1.5-1.6x faster than the two panels, see the potrf.pair rows.) */
/* The H200 in double again since session 32: with potrf.pair_diag the two panels' DIAG
 * launches are potrf_pair's at N = 32, and on the H200 (not the H100) potrf_pair at N = 64
 * runs double at 45-49 % of the copy bandwidth (254 registers, two groups per SM; docs/
 * performance.md, A4). Run A6 (2026-11-27, b = 20000, sync rows, two rounds, ms): double
 * potrf_pair at 64 0.637 / 0.640 (CUDA) and 0.686 / 0.687 (NVIDIA OpenCL) -> two panels
 * 0.522 / 0.523 (59.4-59.7 %) and 0.554 / 0.571 (56.4-57.3 %); the two panels with
 * potrf_panel's DIAG 0.627-0.631 / 0.672-0.679. Float stays on potrf_pair (0.28-0.30 against
 * 0.41 in two panels). Batch threshold 1000 from U7. The H100 keeps potrf_pair in double
 * (0.43-0.49 ms there, Z5 / Z7; the two panels with potrf_pair's DIAG not measured there). */
{"potrf.p32_min", GALA_BACKEND_CUDA, NULL, "H200", GALA_DOUBLE, 1000},
{"potrf.p32_min", GALA_BACKEND_OPENCL, "NVIDIA", "H200", GALA_DOUBLE, 1000},
/* potrf.ob: outer blocks of the batched blocked path (0 = none; a multiple of potrf.nb): the
 * panels of a block update only its columns, then the trailing triangle is updated once with
 * K = ob. H200 run J10, ms, n = 256 / 512 / variable up to 512, none -> 128 (256): CUDA float
 * 1.053 / 1.416 / 1.378 -> 1.026 / 1.350 / 1.334 (1.063 / 1.347 / 1.348); CUDA double 1.807 /
 * 2.377 / 2.155 -> 1.607 / 1.919 / 1.845 (1.803 / 2.064 / 2.020); NVIDIA OpenCL float 1.226 /
 * 1.707 / 1.609 -> 1.168 / 1.511 / 1.408, double 1.895 / 2.380 / 2.160 -> 1.851 / 2.157 /
 * 2.001. Host backend (development machine, 2 cores, double n = 256 / 512): within its
 * ±5 % run-to-run spread either way. */
{"potrf.ob", 0, NULL, NULL, 0, 128},
{"potrf.wg", 0, NULL, NULL, 0, 128},
/* potrf.minb: groups per SM the CUDA compiler must fit potrf_panel into, for register rows
 * of N = 64 only (0: no hint). H200, 2026-11-22, run K7 (median of 7, three rounds, NVIDIA
 * OpenCL in the same call): CUDA float batched n = 64 0.513 -> 0.462 ms (97 -> 96 registers,
 * 4 -> 5 groups per SM; OpenCL 0.438-0.460), n = 128 0.908 -> 0.83-0.87, n = 256 1-2 %
 * faster; 6 spills and is slower. Rows of 32 are unaffected (n = 32 float was 15 % slower
 * with 5 when it applied to them). Double (K8): 170 registers, 2 groups; 3 fits with 168
 * and a 64-byte spill: n = 64 1.309-1.312 -> 1.230-1.246 ms (OpenCL 1.188-1.198); 5 was
 * 1.99 ms (K7). potrf.wg=64 with 6 was 1.185-1.217 but moves every fused order (not
 * measured for the others). n = 128 (panels of 32 in CUDA double) unaffected. */
{"potrf.minb", GALA_BACKEND_CUDA, NULL, NULL, GALA_FLOAT, 5},
{"potrf.minb", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 3},
{"potrf.panel_wg", 0, NULL, NULL, 0, 128},
{"potrf.blas3_min", 0, NULL, NULL, 0, 1024},
/* One n = 16384 matrix on the H200, 2026-11-22 (.device sweep, bench_potrf --n 16384,
 * median of 3; torch 44.1 ms float, 43.1 ms double): CUDA 67-69 ms float for every
 * blas3_nb of 256-1024 with right-looking, 102 ms left-looking at 256, 67.0 / 65.6 ms
 * (float / double) left-looking at 1024. NVIDIA's OpenCL: CLBlast's TRSM made the TRSM
 * form 1.9x slower (255 against 133 ms at 256), so trsm = 0 there (the tall panel by gala's
 * kernels); then float 96 ms at 512 right-looking (149 at 256 left-looking), double 192 ms
 * at 1024 left-looking (241 at 256). Other OpenCL devices take the same trsm = 0 (CLBlast's
 * TRSM, not measured elsewhere). */
{"potrf.blas3_nb", 0, NULL, NULL, 0, 256},
{"potrf.blas3_nb", GALA_BACKEND_CUDA, NULL, NULL, 0, 1024},
/* CUDA float: without lookahead step 2048 was faster (48.3 ms against 50.0 at 1024, run
 * I6); with it (below) 1024 is: 44.4 ms against 47.2 at 2048 (run J1), 47.0 at 1536 (J2).
 * CUDA double with lookahead: 512 45.3 / 45.7 ms against 45.5 / 46.5-46.8 at 1024 (J1, J2) */
{"potrf.blas3_nb", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 512},
{"potrf.blas3_nb", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 512},
{"potrf.blas3_nb", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_DOUBLE, 1024},
{"potrf.left", 0, NULL, NULL, 0, 1},
{"potrf.left", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 0},
/* With CLBlast's Xgemm tuned for the H200 (clblast.xgemm.*, below), one n = 16384 on its
 * OpenCL, run Q3 (2026-11-23, bench_potrf --n 16384, median of 5, two rounds; torch 44.0 /
 * 43.2 ms float / double in the call): double right-looking 110.9-111.2 ms at step 1024,
 * 105.9-107.8 at 2048 with sub-steps of 512 (potrf.blas3_tnb; 114.8-115.7 with 256, 120.7-
 * 121.9 with 128 at 1024), left-looking with lookahead 123-142; float 71.5-71.9 at 1024,
 * 67.5-70.5 at 2048 with sub-steps of 512. Without the tuned Xgemm the rows above stand.
 * Smaller matrices pay for it (against CLBlast's own Xgemm and the rows above; torch 1.01 /
 * 2.15 ms double n = 2048 / 4096): double n = 2048 2.25 -> 2.50 ms (run Q4; the rows above
 * with the tuned Xgemm 2.23; two steps of 1024 in sub-steps of 512 2.60, Q5), n = 4096
 * 7.80 -> 7.50 (Q5). The H100 (same SM 9.0; run S10, 2026-11-23, these rows and the Xgemm
 * and blas3.tc rows forced against none, torch 45.47 / 43.95 ms): one n = 16384 float
 * 83.1 / 90.3 -> 67.9 / 68.3 ms, double 168.6 / 176.1 -> 77.3 / 77.2 (81.7 with gemm_tc but
 * without these rows); float n = 2048 / 4096 pay 1.92 -> 2.58, 4.82 -> 5.41 ms, double
 * gains 2.35 -> 2.01, 7.57 -> 5.01. */
{"potrf.left", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 0},
{"potrf.blas3_nb", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", 0, 2048},
{"potrf.blas3_tnb", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", 0, 512},
{"potrf.trsm", 0, NULL, NULL, 0, 1},
{"potrf.trsm", GALA_BACKEND_OPENCL, NULL, NULL, 0, 0},
/* potrf.inner (with potrf.trsm): the diagonal block in steps of potrf.nb, each one launch of
 * the panel kernel on nb rows plus TRSM and SYRK through the BLAS, instead of the chunked
 * panel over the whole block (two passes per step). H200, one n = 16384, same call: CUDA
 * 57.1 / 58.8 ms (float / double) against 66.9 / 65.7 without (torch 43.9 / 42.9); step
 * 2048: 55.3 / 60.4, right-looking 58.3 / 61.3. Through CLBlast's TRSM: 470 ms float. */
/* potrf.inner = 2: each step of the block is one chunked panel launch over all the block's
 * rows below it (potrf.split: one factoring launch and a copy), then SYRK: no TRSM launch
 * per 64 columns (cuBLAS's took 13 us each, 3.1 ms of 50 at n = 16384). H200 run I6, torch
 * 44.08 / 42.39 ms in the call: CUDA 50.4 / 50.5 ms with inner = 1, 50.0 / 49.6 with 2,
 * float at step 2048 48.3. */
{"potrf.inner", 0, NULL, NULL, 0, 0},
{"potrf.inner", GALA_BACKEND_CUDA, NULL, NULL, 0, 2},
/* potrf.blas3_pnb (no row: potrf.nb): the panel width of one large matrix's path. CUDA
 * double 32: H200 run I10, n = 16384, torch 42.73 ms in the call: 48.5 ms against 49.6 at 64
 * (float: 50.0 against 48.3, so float keeps 64). potrf.nb = 32 everywhere would slow the
 * batched blocked path 1.4-2x (run H2). */
{"potrf.blas3_pnb", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 32},
/* potrf.split: a panel of several chunks is factored by one launch that leaves its diagonal
 * block's rows in a scratch buffer, then copied (else a second launch factors them again);
 * 1 = on the BLAS-3 path of one large matrix only, 2 = everywhere. H200 run I6: batched
 * n = 128-512 within 3 % either way, but the kernel with that code compiled in was 5-10 %
 * slower there (I7, I8); one n = 16384 on NVIDIA OpenCL 80.9 -> 79.1 ms float, 169.6 ->
 * 165.1 double; it makes potrf.inner = 2 cheap. */
{"potrf.split", 0, NULL, NULL, 0, 1},
/* potrf.lookahead: on the left-looking BLAS-3 path, each block column is updated by the last
 * block and factored on a second queue (high priority on CUDA) while the first updates the
 * next block column from all the columns before (docs/cholesky.md, "Lookahead").
 * potrf.reserve: SMs that the first queue's cuBLAS calls leave free (cublasSetSmCountTarget).
 * H200 run J1, one n = 16384, torch 44.1 / 42.3 ms (float / double) in the call: CUDA 48.6 /
 * 48.4 ms without, 47.2 / 45.5 with (float 44.4 at step 1024); reserve 8, 16, 32 SMs slower
 * by 0.1-1.1 ms; NVIDIA OpenCL double 166.9 -> 165.2 (float is right-looking there: no
 * effect). On a backend with one queue (host) the same operations run in order. */
{"potrf.lookahead", 0, NULL, NULL, 0, 1},
/* potrf.lookahead_right: the same for the right-looking path (block column k + 1 updated
 * and factored on the second queue while the first updates the rest of the trailing
 * triangle). Tested, not yet measured on a GPU: off. */
{"potrf.lookahead_right", 0, NULL, NULL, 0, 0},
{"potrf.reserve", 0, NULL, NULL, 0, 0},
/* blas3.tc: gala_gemm / gala_syrk through gala's own kernel (cl/gemm_tc.cl): 0 the
 * backend's BLAS, 1 the kernel with multiply-adds, 2 with the FP64 tensor cores (NVIDIA
 * sm_80 and later, double). blas3.tc_*: its tiles (src/core/blas3_tc.c). */
{"blas3.tc", 0, NULL, NULL, 0, 0},
{"blas3.tc_wm", 0, NULL, NULL, 0, 4},
{"blas3.tc_wn", 0, NULL, NULL, 0, 4},
{"blas3.tc_wgm", 0, NULL, NULL, 0, 2},
{"blas3.tc_wgn", 0, NULL, NULL, 0, 2},
{"blas3.tc_kt", 0, NULL, NULL, 0, 8},
/* The defaults are the tiles measured fastest. The H200's OpenCL, double (run S8,
 * 2026-11-23, bench_ceiling order 8192, median of 5): CLBlast's DGEMM (FP64 cores) 22.7
 * TFLOP/s; gala's kernel with the FP64 tensor cores 29.5 with tiles of 64×64 (2×2 warps of
 * 4×4 mma tiles) in steps of 8; the other tiles tried 22.9-26.7 (4×4 warps of 2×2, 2×4 of
 * 4×4, 2×2 of 8×4, 4×2 of 4×2 in steps of 16), steps of 16 24.3-25.2. One n = 16384
 * Cholesky (bench_potrf, median of 7, run S9, torch 42.21 ms in the call): 107.2-108.4 ->
 * 75.5 ms (0.56x torch); n = 1024 / 2048 / 4096 / 8192: 1.07 -> 0.92, 2.53 -> 1.95, 7.69 ->
 * 5.02, 23.6 -> 15.6 ms. The H100 (run S10): GEMM 29.2 TFLOP/s against CLBlast's 12.7 (own
 * choice) and 22.3 (the H200's Xgemm rows); the Cholesky rows above. */
{"blas3.tc", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 2},
{"potrs.fused_max", 0, NULL, NULL, 0, 64},
{"potrs.nb", 0, NULL, NULL, 0, 64},
{"potrs.wg", 0, NULL, NULL, 0, 128},
/* potrs.rc: right-hand sides per work-item (never more than the call has). H200,
 * 2026-11-22, batched n = 128 / 512, 17 right-hand sides: double rc 4 → 1 took CUDA from
 * 6.29 / 3.18 to 4.37 / 1.95 ms and OpenCL from 6.62 / 3.33 to 5.57 / 2.33; float on CUDA
 * 2.23 / 1.92 → 1.96 / 1.58 with 2 (OpenCL float keeps 4: 1.45 / 1.21, its best). With one
 * right-hand side (rc then 1): CUDA double 2.80 / 1.67 → 0.89 / 0.96 ms, float 1.08 /
 * 1.12 → 0.62 / 0.68. */
{"potrs.rc", 0, NULL, NULL, 0, 4},
{"potrs.rc", GALA_BACKEND_CUDA, NULL, NULL, GALA_FLOAT, 2},
{"potrs.rc", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 1},
{"potrs.rc", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_DOUBLE, 1},
{"potrs.chunks", 0, NULL, NULL, 0, 8},
{"potrs.blas3_nrhs", 0, NULL, NULL, 0, 32},
/* CUDA: one matrix of order >= potrf.blas3_min and one right-hand side goes to cuBLAS's
 * TRSM (potrs.sweep_rhs_min below; until 2026-11-27 every nrhs did). H100,
 * 2026-11-27 (session 31 run 11, medians of 5, ms, gala's blocked passes -> TRSM, × torch in
 * the call after): n = 16384 one right-hand side float 9.13 -> 2.17 (1.34×), double 10.79
 * -> 2.53 (1.67×); 17 float 16.93 -> 9.06 (1.11×), double 18.91 -> 10.55 (1.15×); n = 4096
 * 1.75 -> 0.47 / 2.37 -> 0.60 (1 rhs), 3.72 -> 1.97 / 4.44 -> 2.40 (17); n = 1024 0.40 ->
 * 0.14 / 0.53 -> 0.16 (1), 0.90 -> 0.45 float (17); only double with 17 at n = 1024 was
 * slower (0.95 -> 1.07, still 1.02× torch). */
/* potrs.sweep_min: single matrices of this order and more (and too few right-hand sides
 * for TRSM) take ps_sweep (the diagonal blocks of order potrs.sweep_nb inverted, then one
 * potrs_sweep launch per block and pass: 2·n/nb − 1 in all) instead of the blocked passes
 * (four launches per block of potrs.nb); potrs.sweep_wg: its work-group (N·N/WG elements
 * per work-item, all read before they are used), potrs.sweep_rc / _tl: right-hand sides
 * per group, work-items per row of the row-wise products. potrs.sweep_rhs_min: fewer
 * right-hand sides than this take TRSM instead, where there is BLAS-3. H200, 2026-11-27
 * (session 33, medians of 7, ms, n = 16384 / 4096 / 1024; the blocked passes from run B1,
 * ps_sweep from run B3, two calls on H200s; × torch from B3's own torch runs), NVIDIA
 * OpenCL, one right-hand side, the blocked passes -> ps_sweep: float 9.25 ->
 * 2.58 (0.29 -> 1.04× torch) / 2.62 -> 0.58 / 0.49 -> 0.19, double 10.73 -> 3.01 (1.20×) /
 * 2.50 -> 0.71 / 0.53 -> 0.20; 17 right-hand sides float 15.77 -> 7.20 (1.38×) / 3.40 ->
 * 0.87 / 0.83 -> 0.23, double 18.99 -> 13.35 (0.88×) / 4.38 -> 1.47 / 0.93 -> 0.36. Blocks
 * of 64 (work-groups of 256) took 3.03 / 0.73 / 0.27 ms with one float right-hand side;
 * blocks of 256 or work-groups of 1024 were slower still (registers: the launch bound
 * leaves 64 per work-item at 1024). CUDA, cuBLAS's TRSM -> ps_sweep: one right-hand side
 * float 2.14 -> 2.47, double 2.45 -> 2.71 (TRSM stays); 17 float 9.15 -> 5.90 / 1.95 ->
 * 0.72 / 0.44 -> 0.19, double 10.41 -> 9.11 / 2.42 -> 1.04 / 1.04 -> 0.27. */
{"potrs.sweep_min", 0, NULL, NULL, 0, 256},
{"potrs.sweep_nb", 0, NULL, NULL, 0, 128},
{"potrs.sweep_wg", 0, NULL, NULL, 0, 512},
{"potrs.sweep_rc", 0, NULL, NULL, 0, 4},
/* Double on NVIDIA: 2 (run B4, medians of 7, ms, 17 right-hand sides, 4 -> 2). OpenCL:
 * n = 16384 13.38 -> 10.75 (0.88 -> 1.09× torch), 4096 1.47 -> 1.09, 1024 0.359 -> 0.224.
 * CUDA: 9.11 -> 9.85, 1.066 -> 0.994, 0.265 -> 0.210; with 4 CUDA took 1.18× OpenCL's time
 * at n = 1024 (issue 6 asks for at most 1.1×), with 2 it is within 0.92-0.94× at all three.
 * Float keeps 4 (OpenCL 7.19 -> 10.02 at 16384 with 2). */
{"potrs.sweep_rc", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_DOUBLE, 2},
{"potrs.sweep_rc", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 2},
{"potrs.sweep_tl", 0, NULL, NULL, 0, 8},
{"potrs.sweep_rhs_min", 0, NULL, NULL, 0, 1},
{"potrs.sweep_rhs_min", GALA_BACKEND_CUDA, NULL, NULL, 0, 2},
/* potrs.rl: the blocked backward pass right-looking (1: each solved block updates the rows
 * above it, as wide as the forward pass) or left-looking (0: one tile per matrix reducing
 * over all rows below). H200, 2026-11-26, NVIDIA OpenCL, one matrix, ms, 0 -> 1: n = 16384
 * one right-hand side float 147.6 -> 9.37, double 173.8 -> 10.9, 17 right-hand sides 156.1
 * -> 15.9 / 183.5 -> 19.1; n = 4096 9.30 -> 2.18 / 10.0 -> 2.41; n = 1024 0.92 -> 0.62 /
 * 0.71 -> 0.57. CLBlast's TRSM (potrs.blas3_nrhs=1) took 41.9 ms at n = 4096 and 158 ms at
 * 16384 with one right-hand side. */
{"potrs.rl", 0, NULL, NULL, 0, 1},
{"potri.nb", 0, NULL, NULL, 0, 64},
/* potri.blas3_min: one matrix of at least this order forms lower(Wᵀ·W) through the
 * backend's BLAS-3 (src/la/potri.c pi_lauum_blas3) in block rows of potri.blas3_nb, one GEMM
 * and one SYRK each. H200, 2026-11-27 (run C5, potri_single n = 4096, medians of 7, two
 * rounds, ms float / double; torch 6.30 / 7.01 in the call): the 64-row form 20.4 / 21.4
 * (OpenCL) and 16.7 / 21.0 (CUDA); block rows of 128: 14.3-15.9 / 12.1 and 8.2 / 4.4; 256:
 * 9.2-10.0 / 8.0 and 5.6-5.7 / 3.9; 512: 6.9-7.1 / 5.9-6.0 and 4.5 / 3.6; 1024: 5.9-7.0 /
 * 5.0 and 3.3 / 3.6. Scratch: 2·n·potri.blas3_nb elements. The threshold (run C7, three
 * rounds, 64-row form -> BLAS-3; torch 0.174 / 0.233 and 0.331 / 0.441): n = 256 OpenCL
 * 0.341-0.346 -> 0.221-0.264 / 0.381-0.390 -> 0.153-0.171, CUDA 0.318-0.321 -> 0.111-0.118 /
 * 0.379 -> 0.147-0.148; n = 512 OpenCL 0.78-0.81 -> 0.42-0.54 / 0.83-0.86 -> 0.25-0.27, CUDA
 * 0.70-0.71 -> 0.19-0.20 / 0.83 -> 0.24-0.26. Orders 65-255 are not measured. The
 * development machine (2 cores), same comparison: the host backend 1.3-4.6x faster at
 * 256 / 512 / 1024; PoCL 1.5x faster at 256, equal at 512, 5-30 % slower at 1024, 5 %
 * faster at 4096 (float, one call), so no PoCL row. */
{"potri.blas3_min", 0, NULL, NULL, 0, 256},
{"potri.blas3_nb", 0, NULL, NULL, 0, 1024},
/* Float on NVIDIA once had 128×128 tiles (8×8 outputs per work-item: half the local-memory
 * reads per FMA), but at 168 registers one work-group of 256 filled an SM (12.5 %
 * occupancy): H200, 2026-11-22, potrf_batched float n = 128 / 256 / 512 (b = 5000 / 1000 /
 * 200), CUDA 1.59 / 1.84 / 2.50 ms with 128, 1.00 / 1.29 / 1.83 with 64, 0.99 / 1.27 / 1.79
 * with 64 and depth 32 (OpenCL 1.66 / 1.88 / 2.50 → 1.11 / 1.37 / 1.87). */
{"lagemm.tile", 0, NULL, NULL, 0, 64},
/* lagemm.tk: slices of 32 in double too since potrf.psolve (H200 run T8, two rounds, same
 * call, ms, 16 -> 32: batched potrf n = 128 / 256 / 512 NVIDIA OpenCL 1.272-1.281 /
 * 1.289-1.322 / 1.792-1.807 -> 1.265-1.272 / 1.264-1.265 / 1.745-1.752, CUDA 1.215-1.228 /
 * 1.189-1.200 / 1.638-1.653 -> 1.188-1.201 / 1.135-1.140 / 1.549; potrs with one right-hand
 * side 4-8 % faster at n = 128-512, potri within 3 %, n = 64 unchanged). */
{"lagemm.tk", 0, NULL, NULL, 0, 16},
{"lagemm.tk", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 32},
{"lagemm.tk", GALA_BACKEND_CUDA, NULL, NULL, 0, 32},
{"lagemm.td", 0, NULL, NULL, 0, 16},
/* lagemm.minb: work-groups per SM the CUDA compiler must fit (__launch_bounds__; 0 none):
 * the kernel had 96-128 registers, two 256-item groups per SM, and waited on its loads.
 * lagemm.sv: operands addressed as strided arrays (1) or element by element (0). H200 run
 * J6, batched potrf (ms, n = 128 / 256 / 512), CUDA float: 0.995 / 1.233 / 1.748 before,
 * sv 1.055 / 1.350 / 1.912, sv + minb 3 0.934 / 1.123 / 1.475, + minb 4 0.909 / 1.044 /
 * 1.400; CUDA double: 1.931 / 2.177 / 2.636 before, sv + minb 3 1.885 / 2.012 / 2.307
 * (minb 2: slower); NVIDIA OpenCL float 0.905 / 1.204 / 1.660 before, 0.952 / 1.316 / 1.857
 * with sv (so it keeps sv 0), double 1.726 / 1.939 / 2.447 before, 1.651 / 1.867 / 2.364. */
{"lagemm.minb", 0, NULL, NULL, 0, 0},
{"lagemm.minb", GALA_BACKEND_CUDA, NULL, NULL, GALA_FLOAT, 4},
{"lagemm.minb", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 3},
{"lagemm.sv", 0, NULL, NULL, 0, 1},
{"lagemm.sv", GALA_BACKEND_OPENCL, "NVIDIA", NULL, GALA_FLOAT, 0},
/* lagemm.tc: the updates of strided batches (la_gemm_upd: potrf, potrs, potri) through
 * gala's GEMM kernel (cl/gemm_tc.cl: two local buffers, the next step prefetched into
 * registers) instead of gemm_upd: 0 no, 1 multiply-adds, 2 the FP64 tensor cores (double on
 * NVIDIA; 1 elsewhere). lagemm.tc_*: its tiles, as blas3.tc_*. H200, 2026-11-23, runs U2
 * and U3 (bench_potrf batched, median of 10, torch in the same call; ms, gemm_upd -> tiles
 * of 32×32 = 2×2 warps of 2×2 mma tiles, steps of 8):
 *   potrf n = 128 / 256 / 512, NVIDIA OpenCL double 1.252 / 1.146 / 1.563 -> 1.178 / 0.970 /
 *   1.295 (U2: 1.173 / 0.953 / 1.258; 2.01-2.09x torch at 512), CUDA double 1.183 / 1.076 /
 *   1.398 -> 1.140 / 1.015 / 1.188 (2.19-2.20x); float OpenCL 0.723 / 0.867 / 1.214 ->
 *   0.643 / 0.658 / 1.007, CUDA 0.616 / 0.695 / 1.031 -> 0.625 / 0.683 / 0.986;
 *   potrs, 17 right-hand sides, OpenCL double 2.354 / 1.319 / 1.140 -> 2.108 / 1.047 /
 *   0.864, float 1.098 / 0.853 / 0.944 -> 0.849 / 0.597 / 0.718 (CUDA alike); potri n =
 *   128 / 256 within 3 % or faster.
 * The default 64×64 tiles: double 3-21 % slower than 32×32 (U2); float potrf within 1-2 %
 * at 512 and 7-14 % slower at 128-256, potrs 15-30 % slower (U4). Steps of 4: within 1 % on OpenCL, 8 % slower at 512 on CUDA; of 16: 10-30 %
 * slower; 64×32 tiles (8 warps): 2 % faster at 512 on OpenCL, slower elsewhere; 32×16 and
 * 16 warps of one mma: slower. The H100 has the same rows (same architecture as for
 * blas3.tc), not measured for this kernel. */
{"lagemm.tc", 0, NULL, NULL, 0, 0},
{"lagemm.tc", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 1},
{"lagemm.tc", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 2},
{"lagemm.tc", GALA_BACKEND_CUDA, NULL, "H100|H200", GALA_FLOAT, 1},
{"lagemm.tc", GALA_BACKEND_CUDA, NULL, "H100|H200", GALA_DOUBLE, 2},
{"lagemm.tc_wm", 0, NULL, NULL, 0, 2},
{"lagemm.tc_wn", 0, NULL, NULL, 0, 2},
{"lagemm.tc_wgm", 0, NULL, NULL, 0, 2},
{"lagemm.tc_wgn", 0, NULL, NULL, 0, 2},
{"lagemm.tc_kt", 0, NULL, NULL, 0, 8},
/* trtri.cl (docs/trtri.md): fused path up to fused_max, diagonal blocks of order nb, columns
 * per work-item cpt (NB >= 32, without split), diag_inv work-group size wg, product tiles ts/tk/wpt,
 * check work-group check_wg, unroll (0 keeps the register loops rolled: PoCL builds the
 * kernels several times faster and a CPU does not need them in registers). */
{"trtri.fused_max", 0, NULL, NULL, 0, 64},
{"trtri.nb", 0, NULL, NULL, 0, 64},
/* trtri.cpt = 1 everywhere: H200, 2026-11-22, batched n = 32, batch 50000, float: OpenCL
 * 0.343 ms with 1 against 0.518 ms with 2, CUDA 0.348 against 0.403 ms (n = 64: equal). */
{"trtri.cpt", 0, NULL, NULL, 0, 1},
/* trtri.vec (-D VEC of diag_inv): the solve reads L's columns from local memory as 16-byte
 * vectors (one load per 4 floats or 2 doubles instead of one per multiply-add). H200 run
 * I1 against 0, same call: batched n = 32..512 within ±2 %. */
{"trtri.vec", 0, NULL, NULL, 0, 1},
{"trtri.wg", 0, NULL, NULL, 0, 128},
/* trtri.split (-D SPLIT of diag_inv, order >= 16): two half blocks inverted side by side,
 * then T = L21·X11 and X21 = -X22·T over the nonzero triangles. H200, 2026-11-22, run L4,
 * torch in the call, batched n = 32 / 64 (b = 50000 / 20000), both with the clamped loads:
 * CUDA float 0.224 / 0.469 -> 0.186 / 0.334 ms, double 0.321 / 0.734 -> 0.280 / 0.572;
 * OpenCL float 0.270 / 0.566 -> 0.232 / 0.383, double 0.356 / 1.127 -> 0.318 / 0.629.
 * PoCL (development CPU, float n = 32..512): 1.2-1.5x slower, so 0 there. */
{"trtri.split", 0, NULL, NULL, 0, 1},
{"trtri.split", GALA_BACKEND_OPENCL, NULL, NULL, 0, 0, "cpu"},
/* Product tiles: 64×64, 4×4 per work-item. NVIDIA's OpenCL in float had 128×128 with 8×8
 * (the register-heavy choice potrf's update dropped too): H200, 2026-11-22, run H7,
 * batched float n = 256 / 512 (b = 1000 / 200) 1.278 / 1.509 ms with it, 1.137 / 1.269
 * with 64 and 4, 1.122 / 1.248 with depth 32 as well (torch 2.72 / 2.84 ms: 1.88× → 2.28×
 * at n = 512). Depth 32 on NVIDIA (both backends, both precisions): double n = 512 1.764 →
 * 1.688 ms (OpenCL), 1.722 → 1.690 (CUDA); n <= 64 (the fused path) does not use them. */
{"trtri.ts", 0, NULL, NULL, 0, 64},
{"trtri.tk", 0, NULL, NULL, 0, 16},
{"trtri.tk", GALA_BACKEND_OPENCL, "NVIDIA", NULL, 0, 32},
{"trtri.tk", GALA_BACKEND_CUDA, NULL, NULL, 0, 32},
{"trtri.wpt", 0, NULL, NULL, 0, 4},
/* trtri.minb: work-groups per SM the CUDA compiler must fit the product kernels into
 * (__launch_bounds__; they had 96-128 registers: two 256-item groups per SM). H200 run J12,
 * torch in the call, CUDA double minb 3: batched n = 128 / 256 / 512 1.625 / 1.491 / 1.666 ->
 * 1.534 / 1.345 / 1.473 ms, one n = 8192 19.53 -> 16.80 ms (1.01x -> 1.18x torch), n = 4096
 * 2.99 -> 2.80; float: minb 3 neutral batched and 7 % slower at n = 4096, minb 4 2-5 %
 * faster batched (single not measured), so float keeps none. */
{"trtri.minb", 0, NULL, NULL, 0, 0},
{"trtri.minb", GALA_BACKEND_CUDA, NULL, NULL, GALA_DOUBLE, 3},
{"trtri.check_wg", 0, NULL, NULL, 0, 256},
{"trtri.unroll", 0, NULL, NULL, 0, 1},
{"trtri.unroll", GALA_BACKEND_OPENCL, NULL, NULL, 0, 0, "cpu"},
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
/* CLBlast's Xgemm kernel (the GEMM behind gala's BLAS-3 on OpenCL: GEMM, SYRK and TRSM of
 * one large Cholesky), handed to CLBlastOverrideParameters (src/device/opencl/clblast.c).
 * CLBlast 1.5 does not know the H200 and gives it its generic NVIDIA row (64×32 tiles).
 * Found by bench_gemm_sweep on the H200, 2026-11-23: run Q1 a random sample of the grid
 * (237 double, 84 float points at n = 4096), run Q2 hill climbing from the best; GEMM of
 * order 8192: double 12.4 -> 21.8 TFLOP/s (tiles 128×64, work-groups 16×8, 8×8 values per
 * work-item). Float: the best GEMM (47.0 TFLOP/s, tiles 128×128) made one Cholesky n = 16384
 * 67.2 ms; these (42.1 TFLOP/s in Q1, tiles 128×64, 8×8 per work-item) 62.0 ms (CLBlast's
 * own: 31.4-33.7 TFLOP/s, 78.6 ms), run Q4; 61.9-62.4 against 86.1 in run Q5. One n = 2048
 * / 4096 float Cholesky is 3 / 7-8 % slower with them (Q4: 1.85 -> 1.90, 4.70 -> 5.01 ms;
 * Q5: 4096 5.08 -> 5.47). CLBlast gives the H100 the same generic row; these hold there
 * (run S10, order 8192: double 12.7 -> 22.3, float 33.5 -> 41.8 TFLOP/s). */
{"clblast.xgemm.gemmk", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 0},
{"clblast.xgemm.kreg", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 1},
{"clblast.xgemm.kwg", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 16},
{"clblast.xgemm.kwi", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 8},
{"clblast.xgemm.mdima", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 32},
{"clblast.xgemm.mdimc", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 16},
{"clblast.xgemm.mwg", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 128},
{"clblast.xgemm.ndimb", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 32},
{"clblast.xgemm.ndimc", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 8},
{"clblast.xgemm.nwg", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 64},
{"clblast.xgemm.sa", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 1},
{"clblast.xgemm.sb", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 1},
{"clblast.xgemm.strm", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 1},
{"clblast.xgemm.strn", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 1},
{"clblast.xgemm.vwm", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 2},
{"clblast.xgemm.vwn", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_DOUBLE, 1},
{"clblast.xgemm.gemmk", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 0},
{"clblast.xgemm.kreg", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 1},
{"clblast.xgemm.kwg", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 16},
{"clblast.xgemm.kwi", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 2},
{"clblast.xgemm.mdima", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 16},
{"clblast.xgemm.mdimc", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 16},
{"clblast.xgemm.mwg", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 128},
{"clblast.xgemm.ndimb", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 8},
{"clblast.xgemm.ndimc", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 8},
{"clblast.xgemm.nwg", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 64},
{"clblast.xgemm.sa", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 1},
{"clblast.xgemm.sb", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 1},
{"clblast.xgemm.strm", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 1},
{"clblast.xgemm.strn", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 1},
{"clblast.xgemm.vwm", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 2},
{"clblast.xgemm.vwn", GALA_BACKEND_OPENCL, "NVIDIA", "H100|H200", GALA_FLOAT, 2},
