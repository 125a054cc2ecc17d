/*
 * Device rows: a device's own value of a key, overriding the key's one default
 * (tuning_keys.h). GALA_TUNE_ROW(family, key, backend, vendor, device, dtype, value):
 *   backend  ANY, OPENCL, CUDA or HOST
 *   vendor   a case-insensitive substring of the vendor or the platform name, or NULL (any),
 *            or a property the device reports: "@cpu" (not a GPU). Never a platform's name
 *            standing for a kind of device (issue 39): PoCL's measurements are "@cpu" rows
 *   device   a case-insensitive substring of the device name ("H100|H200": either), or NULL
 *   dtype    ANY, FLOAT or DOUBLE
 * The most specific matching row wins (device > vendor > backend > dtype); between rows of
 * the same specificity the first. A row matching everything would be a second default:
 * tools/check-tuning.py refuses it, and a row without a one-line reason above it.
 * Each group's measurements (device, date, run, numbers) are in docs/tuning.md under
 * the family, in the same order. An X-macro file: no include guard.
 */

/* --- vec */
/* OpenCL CPUs (measured on PoCL): element-wise launches of at most 64 work-groups */
GALA_TUNE_ROW(vec, max_groups, OPENCL, "@cpu", NULL, ANY, 64)

/* --- qp */
/* NVIDIA: work-groups up to 512, a control QP's K⁻¹ product in one pass (H200 runs C1 / C3: iterate 1.11-1.53x) */
GALA_TUNE_ROW(qp, wg, CUDA, NULL, NULL, ANY, 512)
GALA_TUNE_ROW(qp, wg, OPENCL, "NVIDIA", NULL, ANY, 512)
/* NVIDIA's OpenCL reports 256 work-items for every kernel compiled without a required size (H200 call 4: control float 1.17x, double 1.06x) */
GALA_TUNE_ROW(qp, reqd_wg, OPENCL, "NVIDIA", NULL, ANY, 1)
/* NVIDIA's OpenCL: two rows of K⁻¹ per work-item (H200 runs L7 / L8: 8-12 % faster) */
GALA_TUNE_ROW(qp, rb, OPENCL, "NVIDIA", NULL, ANY, 2)
/* NVIDIA's OpenCL float: the tile layout with one row per work-item (H200 run P3: 15 %) */
GALA_TUNE_ROW(qp, tl, OPENCL, "NVIDIA", NULL, FLOAT, 1)
GALA_TUNE_ROW(qp, rb, OPENCL, "NVIDIA", NULL, FLOAT, 1)
/* CUDA double: tile layout, two rows, a tile of 8 in 46 KB (H200 run P3: 10 %) */
GALA_TUNE_ROW(qp, tl, CUDA, NULL, NULL, DOUBLE, 1)
GALA_TUNE_ROW(qp, rb, CUDA, NULL, NULL, DOUBLE, 2)
GALA_TUNE_ROW(qp, tile_bytes, CUDA, NULL, NULL, DOUBLE, 47104)
/* CPUs: the sparse LDLᵀ strategy from 1024 variables (GPUs: for QPs whose dense K won't fit) */
GALA_TUNE_ROW(qp, sparse_n, HOST, NULL, NULL, ANY, 1024)
GALA_TUNE_ROW(qp, sparse_n, OPENCL, "@cpu", NULL, ANY, 1024)
/* host backend: one sparse QP (or a few patterns) is analyzed for sparse LDLᵀ (Maros–Meszaros one at a time) */
GALA_TUNE_ROW(qp, sparse_patterns, HOST, NULL, NULL, ANY, 16)
/* host backend: keep the Cholesky factor and solve with it (one core: 1250-1350 QPs/s, K⁻¹ 244) */
GALA_TUNE_ROW(qp, factor, HOST, NULL, NULL, ANY, 2)
/* CPUs: a parked chunk keeps its K (PoCL, 4 chunks: solves again in 0.7-1.2 s, refactoring 2.3-4.1) */
GALA_TUNE_ROW(qp, park_k, HOST, NULL, NULL, ANY, 1)
GALA_TUNE_ROW(qp, park_k, OPENCL, "@cpu", NULL, ANY, 1)
/* CUDA: one chunk at a time (H200, 10^5 control QPs in double, 3 alternating rounds: 1.02-1.10x) */
GALA_TUNE_ROW(qp, chunk_slots, CUDA, NULL, NULL, ANY, 1)

/* --- la */
/* OpenCL CPUs (measured on PoCL): rolled loops (built many times faster), few row lengths */
GALA_TUNE_ROW(la, unroll, OPENCL, "@cpu", NULL, ANY, 0)
GALA_TUNE_ROW(la, min_bucket, OPENCL, "@cpu", NULL, ANY, 32)

/* --- potrf */
/* NVIDIA: potrf_lane for small orders, 64 reads in flight (H200 run M2: up to 1.5x) */
GALA_TUNE_ROW(potrf, lane, CUDA, NULL, NULL, FLOAT, 16)
GALA_TUNE_ROW(potrf, lane, CUDA, NULL, NULL, DOUBLE, 8)
GALA_TUNE_ROW(potrf, lane, OPENCL, "NVIDIA", NULL, FLOAT, 16)
GALA_TUNE_ROW(potrf, lane, OPENCL, "NVIDIA", NULL, DOUBLE, 8)
GALA_TUNE_ROW(potrf, lane_ch, CUDA, NULL, NULL, ANY, 64)
GALA_TUNE_ROW(potrf, lane_ch, OPENCL, "NVIDIA", NULL, ANY, 64)
/* NVIDIA: potrf_pair for register rows of 32 (H200 run M4: 10-30 % faster) */
GALA_TUNE_ROW(potrf, pair, CUDA, NULL, NULL, ANY, 32)
GALA_TUNE_ROW(potrf, pair_min, CUDA, NULL, NULL, ANY, 32)
GALA_TUNE_ROW(potrf, pair, OPENCL, "NVIDIA", NULL, ANY, 32)
GALA_TUNE_ROW(potrf, pair_min, OPENCL, "NVIDIA", NULL, ANY, 32)
/* H100 / H200: potrf_pair for rows of 64 too (H100 session 31: 1.2-1.6x potrf_tile) */
GALA_TUNE_ROW(potrf, pair, CUDA, NULL, "H100|H200", ANY, 64)
GALA_TUNE_ROW(potrf, pair, OPENCL, "NVIDIA", "H100|H200", ANY, 64)
/* H100 / H200: potrf_tile's settings should potrf.tile=64 turn it on (runs V4-V6, session 31) */
GALA_TUNE_ROW(potrf, tile_stream, OPENCL, "NVIDIA", "H100|H200", FLOAT, 1)
GALA_TUNE_ROW(potrf, tile_min, CUDA, NULL, "H100|H200", ANY, 64)
GALA_TUNE_ROW(potrf, tile_minb, CUDA, NULL, "H100|H200", FLOAT, 4)
GALA_TUNE_ROW(potrf, tile_minb, CUDA, NULL, "H100|H200", DOUBLE, 2)
GALA_TUNE_ROW(potrf, tile_min, OPENCL, "NVIDIA", "H100|H200", ANY, 64)
GALA_TUNE_ROW(potrf, tile_minb, OPENCL, "NVIDIA", "H100|H200", FLOAT, 4)
GALA_TUNE_ROW(potrf, tile_minb, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 2)
/* selects: NVIDIA's OpenCL 2-3.3x faster; CUDA only double rows of N <= 32 (15 %) */
GALA_TUNE_ROW(potrf, select, OPENCL, "NVIDIA", NULL, ANY, 1)
GALA_TUNE_ROW(potrf, select, CUDA, NULL, NULL, DOUBLE, 1)
/* NVIDIA (32-wide warps): the first warp stops at column 31 (run L11: 1-9 % faster) */
GALA_TUNE_ROW(potrf, half, CUDA, NULL, NULL, ANY, 1)
GALA_TUNE_ROW(potrf, half, OPENCL, "NVIDIA", NULL, ANY, 1)
GALA_TUNE_ROW(potrf, select_max, CUDA, NULL, NULL, DOUBLE, 32)
/* NVIDIA: two lanes from order 256 (H200 run T9: 5-10 % faster at 256-512) */
GALA_TUNE_ROW(potrf, lanes_n, CUDA, NULL, NULL, ANY, 256)
GALA_TUNE_ROW(potrf, lanes_n, OPENCL, "NVIDIA", NULL, ANY, 256)
/* H200 double: two panels of 32 from 1000 matrices (run A6: 0.64 -> 0.52 ms, CUDA) */
GALA_TUNE_ROW(potrf, p32_min, CUDA, NULL, "H200", DOUBLE, 1000)
GALA_TUNE_ROW(potrf, p32_min, OPENCL, "NVIDIA", "H200", DOUBLE, 1000)
/* CUDA: an occupancy hint for register rows of 64 (H200 runs K7 / K8: 6-10 %) */
GALA_TUNE_ROW(potrf, minb, CUDA, NULL, NULL, FLOAT, 5)
GALA_TUNE_ROW(potrf, minb, CUDA, NULL, NULL, DOUBLE, 3)
/* one large matrix: BLAS-3 steps and direction per backend (H200 runs I6, J1, J2) */
GALA_TUNE_ROW(potrf, blas3_nb, CUDA, NULL, NULL, ANY, 1024)
GALA_TUNE_ROW(potrf, blas3_nb, CUDA, NULL, NULL, DOUBLE, 512)
GALA_TUNE_ROW(potrf, blas3_nb, OPENCL, "NVIDIA", NULL, FLOAT, 512)
GALA_TUNE_ROW(potrf, blas3_nb, OPENCL, "NVIDIA", NULL, DOUBLE, 1024)
GALA_TUNE_ROW(potrf, left, OPENCL, "NVIDIA", NULL, FLOAT, 0)
/* H100 / H200 OpenCL with the tuned Xgemm: right-looking, steps of 2048 in 512 (Q3, S10) */
GALA_TUNE_ROW(potrf, left, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 0)
GALA_TUNE_ROW(potrf, blas3_nb, OPENCL, "NVIDIA", "H100|H200", ANY, 2048)
GALA_TUNE_ROW(potrf, blas3_tnb, OPENCL, "NVIDIA", "H100|H200", ANY, 512)
/* OpenCL: CLBlast's TRSM made the TRSM form 1.9x slower: gala's panel kernels */
GALA_TUNE_ROW(potrf, trsm, OPENCL, NULL, NULL, ANY, 0)
/* NVIDIA: potrf_trsm's scalar staging (vector staging 15 % slower, H200 double order 64) */
GALA_TUNE_ROW(potrf, trsm_rvec, CUDA, NULL, NULL, ANY, 0)
GALA_TUNE_ROW(potrf, trsm_rvec, OPENCL, "NVIDIA", NULL, ANY, 0)
/* CUDA: one chunked panel launch per step, no TRSM launch per 64 columns (run I6) */
GALA_TUNE_ROW(potrf, inner, CUDA, NULL, NULL, ANY, 2)
/* CUDA double: panels of 32 on one large matrix's path (run I10: 49.6 -> 48.5 ms) */
GALA_TUNE_ROW(potrf, blas3_pnb, CUDA, NULL, NULL, DOUBLE, 32)

/* --- blas3 */
/* H100 / H200 OpenCL double: gala's kernel on the FP64 tensor cores (S8: 22.7 -> 29.5 TF/s) */
GALA_TUNE_ROW(blas3, tc, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 2)

/* --- potrs */
/* right-hand sides per work-item on NVIDIA (H200: double 1.4-1.6x faster with 1) */
GALA_TUNE_ROW(potrs, rc, CUDA, NULL, NULL, FLOAT, 2)
GALA_TUNE_ROW(potrs, rc, CUDA, NULL, NULL, DOUBLE, 1)
GALA_TUNE_ROW(potrs, rc, OPENCL, "NVIDIA", NULL, DOUBLE, 1)
/* NVIDIA double: ps_sweep with two right-hand sides per group (run B4); CUDA: TRSM for one */
GALA_TUNE_ROW(potrs, sweep_rc, OPENCL, "NVIDIA", NULL, DOUBLE, 2)
GALA_TUNE_ROW(potrs, sweep_rc, CUDA, NULL, NULL, DOUBLE, 2)
GALA_TUNE_ROW(potrs, sweep_rhs_min, CUDA, NULL, NULL, ANY, 2)

/* --- lagemm */
/* NVIDIA: slices of 32 (H200 run T8: 1-5 % faster) */
GALA_TUNE_ROW(lagemm, tk, OPENCL, "NVIDIA", NULL, ANY, 32)
GALA_TUNE_ROW(lagemm, tk, CUDA, NULL, NULL, ANY, 32)
/* CUDA: register budgets; NVIDIA OpenCL float: element-wise addressing (H200 run J6) */
GALA_TUNE_ROW(lagemm, minb, CUDA, NULL, NULL, FLOAT, 4)
GALA_TUNE_ROW(lagemm, minb, CUDA, NULL, NULL, DOUBLE, 3)
GALA_TUNE_ROW(lagemm, sv, OPENCL, "NVIDIA", NULL, FLOAT, 0)
/* H100 / H200: updates through gemm_tc, FP64 tensor cores in double (H200 runs U2, U3) */
GALA_TUNE_ROW(lagemm, tc, OPENCL, "NVIDIA", "H100|H200", FLOAT, 1)
GALA_TUNE_ROW(lagemm, tc, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 2)
GALA_TUNE_ROW(lagemm, tc, CUDA, NULL, "H100|H200", FLOAT, 1)
GALA_TUNE_ROW(lagemm, tc, CUDA, NULL, "H100|H200", DOUBLE, 2)

/* --- trtri */
/* OpenCL CPUs: split 1.2-1.5x slower (PoCL) */
GALA_TUNE_ROW(trtri, split, OPENCL, "@cpu", NULL, ANY, 0)
/* NVIDIA: product depth 32 (H200: double n = 512 2-4 % faster) */
GALA_TUNE_ROW(trtri, tk, OPENCL, "NVIDIA", NULL, ANY, 32)
GALA_TUNE_ROW(trtri, tk, CUDA, NULL, NULL, ANY, 32)
/* CUDA double: three groups per SM (H200 run J12: 6-14 % faster) */
GALA_TUNE_ROW(trtri, minb, CUDA, NULL, NULL, DOUBLE, 3)
/* OpenCL CPUs: rolled loops, built several times faster (PoCL) */
GALA_TUNE_ROW(trtri, unroll, OPENCL, "@cpu", NULL, ANY, 0)

/* --- clblast_xgemm */
/* H100 / H200 (CLBlast 1.5 gives them its generic row): bench_gemm_sweep, runs Q1-Q5, S10 */
GALA_TUNE_ROW(clblast_xgemm, gemmk, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 0)
GALA_TUNE_ROW(clblast_xgemm, kreg, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 1)
GALA_TUNE_ROW(clblast_xgemm, kwg, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 16)
GALA_TUNE_ROW(clblast_xgemm, kwi, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 8)
GALA_TUNE_ROW(clblast_xgemm, mdima, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 32)
GALA_TUNE_ROW(clblast_xgemm, mdimc, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 16)
GALA_TUNE_ROW(clblast_xgemm, mwg, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 128)
GALA_TUNE_ROW(clblast_xgemm, ndimb, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 32)
GALA_TUNE_ROW(clblast_xgemm, ndimc, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 8)
GALA_TUNE_ROW(clblast_xgemm, nwg, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 64)
GALA_TUNE_ROW(clblast_xgemm, sa, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 1)
GALA_TUNE_ROW(clblast_xgemm, sb, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 1)
GALA_TUNE_ROW(clblast_xgemm, strm, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 1)
GALA_TUNE_ROW(clblast_xgemm, strn, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 1)
GALA_TUNE_ROW(clblast_xgemm, vwm, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 2)
GALA_TUNE_ROW(clblast_xgemm, vwn, OPENCL, "NVIDIA", "H100|H200", DOUBLE, 1)
GALA_TUNE_ROW(clblast_xgemm, gemmk, OPENCL, "NVIDIA", "H100|H200", FLOAT, 0)
GALA_TUNE_ROW(clblast_xgemm, kreg, OPENCL, "NVIDIA", "H100|H200", FLOAT, 1)
GALA_TUNE_ROW(clblast_xgemm, kwg, OPENCL, "NVIDIA", "H100|H200", FLOAT, 16)
GALA_TUNE_ROW(clblast_xgemm, kwi, OPENCL, "NVIDIA", "H100|H200", FLOAT, 2)
GALA_TUNE_ROW(clblast_xgemm, mdima, OPENCL, "NVIDIA", "H100|H200", FLOAT, 16)
GALA_TUNE_ROW(clblast_xgemm, mdimc, OPENCL, "NVIDIA", "H100|H200", FLOAT, 16)
GALA_TUNE_ROW(clblast_xgemm, mwg, OPENCL, "NVIDIA", "H100|H200", FLOAT, 128)
GALA_TUNE_ROW(clblast_xgemm, ndimb, OPENCL, "NVIDIA", "H100|H200", FLOAT, 8)
GALA_TUNE_ROW(clblast_xgemm, ndimc, OPENCL, "NVIDIA", "H100|H200", FLOAT, 8)
GALA_TUNE_ROW(clblast_xgemm, nwg, OPENCL, "NVIDIA", "H100|H200", FLOAT, 64)
GALA_TUNE_ROW(clblast_xgemm, sa, OPENCL, "NVIDIA", "H100|H200", FLOAT, 1)
GALA_TUNE_ROW(clblast_xgemm, sb, OPENCL, "NVIDIA", "H100|H200", FLOAT, 1)
GALA_TUNE_ROW(clblast_xgemm, strm, OPENCL, "NVIDIA", "H100|H200", FLOAT, 1)
GALA_TUNE_ROW(clblast_xgemm, strn, OPENCL, "NVIDIA", "H100|H200", FLOAT, 1)
GALA_TUNE_ROW(clblast_xgemm, vwm, OPENCL, "NVIDIA", "H100|H200", FLOAT, 2)
GALA_TUNE_ROW(clblast_xgemm, vwn, OPENCL, "NVIDIA", "H100|H200", FLOAT, 2)
