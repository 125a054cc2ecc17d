/*
 * potri: the kernels that turn W = L⁻¹ (from trtri) into the lower triangle of
 * A⁻¹ = Wᵀ·W in place (LAPACK's lauum), for strided and variable-size batches
 * (src/la/potri.c). L coordinates and descriptors as in potrf.cl.
 *
 * lauum_fused: diagonal block T = W[j0 : j0+nb, j0 : j0+nb] (nb = min(N, n_b − j0)) ←
 * lower(Tᵀ·T). The block is staged in local memory (upper part zero); work-item j writes
 * column j: out(i, j) = Σ_{k >= i} T(k, i)·T(k, j) for i >= j. LMPG blocks per work-group.
 *
 *        T (local)            column j of the result reads columns i and j of T below row i
 *      [t        ]
 *      [t t      ]       out(i,j) = T(i.., i) · T(i.., j)
 *      [t t t    ]
 *
 * trmm_lt: X ← Tᵀ·X for X = W[I : I+nb, 0 : I] and T = W[I : I+nb, I : I+nb] (lower):
 * T in local memory, one work-item per column of X holding that column in registers;
 * x'_r = Σ_{k >= r} T(k, r)·x_k computed for r ascending (in place).
 *
 *         0         I   I+nb
 *      I [ X  X  X  ][T      ]
 *        [ X  X  X  ][T T    ]      X ← Tᵀ X, one column of X per work-item
 *   I+nb [ X  X  X  ][T T T  ]
 *
 * copy_mask: one column-major m×nc block copied to another, D(i, j) = S(i, j), with the
 * entries above (mask POTRI_ZERO_UPPER: i < j) or below (POTRI_ZERO_LOWER: i > j) the
 * diagonal set to 0; one work-item per element, down the columns (src/la/potri.c: the block
 * column of the BLAS-3 lauum with its triangular top, and its product back into place).
 *
 * gala-defines: N=32 WG=128 UNROLL=1
 * -D parameters: N (block order, a power of two <= 64), WG (work-items per work-group of
 *                trmm_lt), UNROLL (0 or 1).
 */

/* UNROLL = 1: unroll the loops over register arrays completely (GPUs keep the arrays in
 * registers); UNROLL = 0: keep them rolled (CPU OpenCL compiles much faster, and private
 * arrays live on the stack there anyway). */
#if UNROLL
#define UNROLL_LOOP _Pragma("unroll")
#else
#define UNROLL_LOOP _Pragma("unroll 1")
#endif


/* the descriptors, copy_mask's masks and the argument lists shared with the host
 * (cl/potri_abi.h) */
#include "potri_abi.h"

#define LMPG (N >= 32 ? 1 : 32 / N)

DEVFN gidx pi_desc_off(GLOBAL const int *d, int k)
{
    return (gidx)(unsigned int)d[k] | ((gidx)d[k + 1] << 32);
}

DEVFN gidx pi_lidx(int i, int j, int ld, int up)
{
    return up ? (gidx)j + (gidx)i * ld : (gidx)i + (gidx)j * ld;
}

KERNEL void lauum_fused(GALA_PARAMS(POTRI_ARGS_lauum_fused))
{
    LOCAL_ARRAY REAL Ts[LMPG * N * (N + 1)];
    const int t = (int)LID(0);
    const int slot = t / N, j = t % N;
    const gidx s = GRP(0) * LMPG + slot;
    int nb = 0, ld = lda;
    gidx base = 0;
    if (s < count) {
        if (vb) {
            GLOBAL const int *d = desc + (dofs + s) * LA_DSZ;
            nb = d[LA_D_N];
            ld = d[LA_D_LDA];
            base = pi_desc_off(d, LA_D_AOFF);
        } else {
            nb = n;
            base = ao + s * as;
        }
    }
    const int nbk = min(N, nb - j0);
    GLOBAL REAL *T = A + base + pi_lidx(j0, j0, ld, up);
    LOCAL REAL *ts = Ts + slot * N * (N + 1);
    for (int i = 0; i < N; ++i)
        ts[i * (N + 1) + j] = (j < nbk && i < nbk && i >= j) ? T[pi_lidx(i, j, ld, up)] : (REAL)0;
    LOCAL_BARRIER();
    if (j < nbk) {
        for (int i = j; i < nbk; ++i) {
            REAL acc = 0;
            for (int k = i; k < nbk; ++k) acc += ts[k * (N + 1) + i] * ts[k * (N + 1) + j];
            T[pi_lidx(i, j, ld, up)] = acc;
        }
    }
}

KERNEL void trmm_lt(GALA_PARAMS(POTRI_ARGS_trmm_lt))
{
    LOCAL_ARRAY REAL Ts[N * (N + 1)];
    const int t = (int)LID(0);
    const gidx s = GRP(0) / ncg;
    const int cg = (int)(GRP(0) - s * ncg);
    if (s >= count) return;
    int nb = n, ld = lda;
    gidx base = ao + s * as;
    if (vb) {
        GLOBAL const int *d = desc + (dofs + s) * LA_DSZ;
        nb = d[LA_D_N];
        ld = d[LA_D_LDA];
        base = pi_desc_off(d, LA_D_AOFF);
    }
    const int nbk = min(N, nb - I);
    if (nbk <= 0) return;
    GLOBAL REAL *W = A + base;
    for (int e = t; e < N * N; e += WG) {
        const int i = e % N, k = e / N;
        Ts[i * (N + 1) + k] = (i < nbk && k < nbk && i >= k) ? W[pi_lidx(I + i, I + k, ld, up)] : (REAL)0;
    }
    LOCAL_BARRIER();
    const int c = cg * WG + t;
    if (c >= I) return;
    REAL x[N];
    UNROLL_LOOP
    for (int k = 0; k < N; ++k) x[k] = k < nbk ? W[pi_lidx(I + k, c, ld, up)] : (REAL)0;
    UNROLL_LOOP
    for (int r = 0; r < N; ++r) {
        REAL acc = 0;
        UNROLL_LOOP
        for (int k = r; k < N; ++k) acc += Ts[k * (N + 1) + r] * x[k];
        x[r] = acc;
    }
    UNROLL_LOOP
    for (int k = 0; k < N; ++k)
        if (k < nbk) W[pi_lidx(I + k, c, ld, up)] = x[k];
}

KERNEL void copy_mask(GALA_PARAMS(POTRI_ARGS_copy_mask))
{
    const gidx e = GID(0);
    if (e >= (gidx)m * nc) return;
    const int i = (int)(e % m), j = (int)(e / m);
    REAL v = S[so + i + (gidx)j * lds];
    if ((mask == POTRI_ZERO_UPPER && i < j) || (mask == POTRI_ZERO_LOWER && i > j)) v = (REAL)0;
    D[dof + i + (gidx)j * ldd] = v;
}
