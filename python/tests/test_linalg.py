"""gala.linalg against NumPy/SciPy in double, on every target (host backend and OpenCL, float64
and float32).

Inputs are seeded random matrices of odd orders (n = 65 crosses the fused kernels' limit of 64
into the blocked algorithms) in batches of shapes (), (1,), (7,), (3, 5), and one batch of a few
thousand small matrices per target. References are computed in float64 from the values the
routine was given (rounded to the target's dtype), and tolerances scale with the dtype's
epsilon, the order and the condition number, as the C tests (tests/test_potrf.c) do.

The triangle a routine must not read is filled with NaN, so reading it shows up as NaN in the
result. Failures inside a batch are checked against LAPACK's conventions computed here
independently (leading minors by NumPy, exact zero pivots by construction).
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla

import gala
from gala import linalg as gl

BATCHES = [(), (1,), (7,), (3, 5)]
SIZES = [1, 2, 3, 5, 17, 33, 65]


# ----------------------------------------------------------------------------- helpers

def eps(dtype) -> float:
    return float(np.finfo(dtype).eps)


def nrm(x: np.ndarray, vec: bool = False) -> np.ndarray:
    """Frobenius norm of each matrix (or 2-norm of each vector) of a stack."""
    return np.linalg.norm(x, axis=-1) if vec else np.linalg.norm(x, axis=(-2, -1))


def assert_le(err, tol, what: str) -> None:
    """err <= tol elementwise; NaN fails."""
    err = np.asarray(err, dtype=np.float64)
    tol = np.broadcast_to(np.asarray(tol, dtype=np.float64), err.shape)
    bad = ~(err <= tol)
    assert not bad.any(), (f"{what}: {int(bad.sum())} of {err.size} over tolerance, worst "
                           f"{np.max(np.where(bad, err, 0)):.3g} (tol {tol[bad].min():.3g})")


def tri_mask(n: int, lower: bool, k: int = 0) -> np.ndarray:
    """The lower (upper) triangle from diagonal k (-k) on, as a boolean (n, n) mask."""
    ones = np.ones((n, n), dtype=bool)
    return np.tril(ones, k) if lower else np.triu(ones, -k)


def unread(a: np.ndarray, lower: bool, diag: bool = False) -> np.ndarray:
    """A copy of a with NaN where a routine reading the ``lower`` (or upper) triangle must
    not read: the other strict triangle, and the diagonal too when ``diag``."""
    out = a.copy()
    out[..., ~tri_mask(a.shape[-1], lower, -1 if diag else 0)] = np.nan
    return out


def spd(rng: np.random.Generator, shape: tuple, n: int) -> np.ndarray:
    """Well-conditioned SPD matrices (cond below ~20) of varied scales, exactly symmetric."""
    G = rng.standard_normal(shape + (n, n))
    A = G @ G.swapaxes(-1, -2) / n + 0.5 * np.eye(n)
    A = 0.5 * (A + A.swapaxes(-1, -2))
    return A * np.exp(rng.uniform(-2, 2, shape + (1, 1)))


def rounded(A: np.ndarray, dtype) -> tuple:
    """(A in dtype, the same values in float64): references use the rounded values."""
    Ad = np.ascontiguousarray(A.astype(dtype))
    return Ad, Ad.astype(np.float64)


def factor_of(A64: np.ndarray, dtype, lower: bool) -> tuple:
    """NumPy's Cholesky factor of A64 in dtype (lower L or upper U = Lᵀ), and the matrix it
    is the exact factor of (in float64)."""
    L = np.linalg.cholesky(A64)
    c = np.ascontiguousarray((L if lower else L.swapaxes(-1, -2)).astype(dtype))
    c64 = c.astype(np.float64)
    Ae = c64 @ c64.swapaxes(-1, -2) if lower else c64.swapaxes(-1, -2) @ c64
    return c, Ae


def triangular(rng: np.random.Generator, shape: tuple, n: int, lower: bool) -> np.ndarray:
    """Well-conditioned triangular matrices: diagonal ±[1, 2], small off-diagonal entries;
    zeros in the other triangle."""
    T = rng.standard_normal(shape + (n, n)) / n
    idx = np.arange(n)
    T[..., idx, idx] = rng.choice([-1.0, 1.0], shape + (n,)) * rng.uniform(1, 2, shape + (n,))
    return np.where(tri_mask(n, lower), T, 0.0)


def quasi_definite(rng: np.random.Generator, shape: tuple, n: int) -> tuple:
    """Symmetric quasi-definite matrices P [H, Bᵀ; B, -G] Pᵀ (H, G SPD, P a permutation), and
    their numbers of positive and negative pivots (dim H, dim G)."""
    n1 = int(rng.integers(1, n + 1))
    n2 = n - n1
    K = np.zeros(shape + (n, n))
    K[..., :n1, :n1] = spd(rng, shape, n1) / np.exp(rng.uniform(-2, 2, shape + (1, 1)))
    if n2:
        K[..., n1:, n1:] = -spd(rng, shape, n2) / np.exp(rng.uniform(-2, 2, shape + (1, 1)))
        B = rng.standard_normal(shape + (n2, n1)) * (0.5 / np.sqrt(n))
        K[..., n1:, :n1] = B
        K[..., :n1, n1:] = B.swapaxes(-1, -2)
    p = rng.permutation(n)
    return K[..., p, :][..., :, p], n1, n2


def first_bad_minor(A64: np.ndarray) -> int:
    """LAPACK potrf's info for one symmetric matrix: the order of the first leading minor
    that is not positive definite (0 if none), by NumPy's eigenvalues."""
    for k in range(1, A64.shape[-1] + 1):
        if np.linalg.eigvalsh(A64[:k, :k]).min() <= 0:
            return k
    return 0


def pivots_by_minors(A64: np.ndarray) -> np.ndarray:
    """The pivots of A = L D Lᵀ without pivoting: d_k = det(A_k) / det(A_{k-1}), from NumPy's
    determinants of the leading minors (stacked)."""
    n = A64.shape[-1]
    sign_prev, ld_prev = np.ones(A64.shape[:-2]), np.zeros(A64.shape[:-2])
    d = np.empty(A64.shape[:-1])
    for k in range(1, n + 1):
        s, ld = np.linalg.slogdet(A64[..., :k, :k])
        d[..., k - 1] = s * sign_prev * np.exp(ld - ld_prev)
        sign_prev, ld_prev = s, ld
    return d


def cond(A64: np.ndarray) -> np.ndarray:
    return np.linalg.cond(A64)


def check_other_triangle(out: np.ndarray, lower: bool, unit: bool = False) -> None:
    n = out.shape[-1]
    assert (out[..., ~tri_mask(n, lower)] == 0).all(), "the other triangle is not zero"
    if unit:
        idx = np.arange(n)
        assert (out[..., idx, idx] == 1).all(), "the unit diagonal is not one"


def check_info(info, shape: tuple, expect=0) -> None:
    assert isinstance(info, np.ndarray) and info.dtype == np.int32 and info.shape == shape, \
        (type(info), getattr(info, "dtype", None), getattr(info, "shape", None))
    np.testing.assert_array_equal(info, np.broadcast_to(expect, shape))


# ----------------------------------------------------------------------------- results

@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
@pytest.mark.parametrize("n", SIZES)
def test_cholesky(target, rng, n, upper):
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    for shape in BATCHES:
        Ad, A64 = rounded(spd(rng, shape, n), dt)
        a = unread(Ad, lower=not upper)
        keep = a.copy()
        L, info = gl.cholesky(a, upper=upper, context=ctx)
        assert type(L) is np.ndarray and L.dtype == dt and L.shape == shape + (n, n)
        check_info(info, shape)
        np.testing.assert_array_equal(a, keep)  # the input is not modified
        check_other_triangle(L, lower=not upper)
        L64 = L.astype(np.float64)
        LLt = L64.swapaxes(-1, -2) @ L64 if upper else L64 @ L64.swapaxes(-1, -2)
        assert_le(nrm(LLt - A64) / nrm(A64), 4 * (n + 2) * e, f"{shape}: ‖LLᵀ − A‖/‖A‖")
        ref = np.linalg.cholesky(A64)
        if upper:
            ref = ref.swapaxes(-1, -2)
        assert_le(nrm(L64 - ref) / nrm(ref), 16 * (n + 2) * e * cond(A64),
                  f"{shape}: ‖L − L_numpy‖/‖L‖")


@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
@pytest.mark.parametrize("n", SIZES)
def test_cho_solve(target, rng, n, lower):
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)

    def check(x, b, Ae, vec, what):
        assert type(x) is np.ndarray and x.dtype == dt and x.shape == b.shape, (what, x.shape)
        b64 = b.astype(np.float64)
        ref = np.linalg.solve(Ae, b64[..., None])[..., 0] if vec else np.linalg.solve(Ae, b64)
        assert_le(nrm(x - ref, vec) / nrm(ref, vec), 16 * (n + 2) * e * cond(Ae), what)

    for shape in BATCHES:
        _, A64 = rounded(spd(rng, shape, n), dt)
        c, Ae = factor_of(A64, dt, lower)
        cg = unread(c, lower)
        keep = cg.copy()
        # one factor per right-hand side: (…, n) and (…, n, k)
        b = rng.standard_normal(shape + (n,)).astype(dt)
        check(gl.cho_solve((cg, lower), b, context=ctx), b, Ae, True, f"{shape}: vector")
        k = int(rng.integers(1, 5))
        b = rng.standard_normal(shape + (n, k)).astype(dt)
        bk = b.copy()
        check(gl.cho_solve((cg, lower), b, context=ctx), b, Ae[..., :, :], False, f"{shape}: (n, {k})")
        np.testing.assert_array_equal(b, bk)
        np.testing.assert_array_equal(cg, keep)
        # one (n, n) factor shared by a batch of right-hand sides (…, n, k)
        _, S64 = rounded(spd(rng, (), n), dt)
        s, Se = factor_of(S64, dt, lower)
        b = rng.standard_normal(shape + (n, k)).astype(dt)
        check(gl.cho_solve((unread(s, lower), lower), b, context=ctx), b, Se, False,
              f"shared factor, b {b.shape}")
        if shape == ():  # SciPy's own shapes: (n,) and (n, k), against scipy.linalg.cho_solve
            for b in (rng.standard_normal(n).astype(dt), rng.standard_normal((n, 3)).astype(dt)):
                x = gl.cho_solve((unread(s, lower), lower), b, context=ctx)
                ref = sla.cho_solve((s.astype(np.float64), lower), b.astype(np.float64))
                assert x.shape == ref.shape
                assert_le(np.linalg.norm(x - ref) / np.linalg.norm(ref),
                          16 * (n + 2) * e * cond(Se), f"scipy's cho_solve, b {b.shape}")


@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
@pytest.mark.parametrize("n", SIZES)
def test_cholesky_inverse(target, rng, n, upper):
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    for shape in BATCHES:
        _, A64 = rounded(spd(rng, shape, n), dt)
        c, Ae = factor_of(A64, dt, not upper)
        cg = unread(c, not upper)
        keep = cg.copy()
        X, info = gl.cholesky_inverse(cg, upper=upper, context=ctx)
        assert type(X) is np.ndarray and X.dtype == dt and X.shape == shape + (n, n)
        check_info(info, shape)
        np.testing.assert_array_equal(cg, keep)
        np.testing.assert_array_equal(X, X.swapaxes(-1, -2))  # the whole symmetric inverse
        ref = np.linalg.inv(Ae)
        assert_le(nrm(X - ref) / nrm(ref), 16 * (n + 2) * e * cond(Ae), f"{shape}: ‖X − A⁻¹‖/‖A⁻¹‖")


@pytest.mark.parametrize("unit", [False, True], ids=["nonunit", "unit"])
@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
@pytest.mark.parametrize("n", SIZES)
def test_inv_triangular(target, rng, n, lower, unit):
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    lg = 1 + np.log2(n)
    for shape in BATCHES:
        Td, T64 = rounded(triangular(rng, shape, n, lower), dt)
        if unit:
            T64[..., np.arange(n), np.arange(n)] = 1.0
        a = unread(Td, lower, diag=unit)  # with a unit diagonal the diagonal is not read either
        keep = a.copy()
        X, info = gl.inv_triangular(a, lower=lower, unit_diagonal=unit, context=ctx)
        assert type(X) is np.ndarray and X.dtype == dt and X.shape == shape + (n, n)
        check_info(info, shape)
        np.testing.assert_array_equal(a, keep)
        check_other_triangle(X, lower, unit)
        ref = np.linalg.inv(T64)
        assert_le(nrm(X - ref) / nrm(ref), 8 * n * lg * e * cond(T64), f"{shape}: ‖X − T⁻¹‖/‖T⁻¹‖")
        if shape == ():  # SciPy's convention, on the same values
            sref = sla.solve_triangular(np.nan_to_num(a.astype(np.float64), nan=7.0), np.eye(n),
                                        lower=lower, unit_diagonal=unit)
            assert_le(nrm(X - sref) / nrm(sref), 8 * n * lg * e * cond(T64), "scipy's solve_triangular")


@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
@pytest.mark.parametrize("n", SIZES)
def test_ldl(target, rng, n, lower):
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    for shape in BATCHES:
        K, n1, n2 = quasi_definite(rng, shape, n)
        Kd, K64 = rounded(K, dt)
        a = unread(Kd, lower)
        keep = a.copy()
        lu, d, info = gl.ldl(a, lower=lower, context=ctx)
        assert type(lu) is np.ndarray and lu.dtype == dt and lu.shape == shape + (n, n)
        assert type(d) is np.ndarray and d.dtype == dt and d.shape == shape + (n,)
        check_info(info, shape)
        np.testing.assert_array_equal(a, keep)
        check_other_triangle(lu, lower, unit=True)
        # the inertia of a quasi-definite matrix: dim H positive pivots, dim G negative
        np.testing.assert_array_equal((d > 0).sum(-1), np.full(shape, n1))
        np.testing.assert_array_equal((d < 0).sum(-1), np.full(shape, n2))
        L = lu.astype(np.float64) if lower else lu.astype(np.float64).swapaxes(-1, -2)
        D = d.astype(np.float64)[..., None, :]
        rec = (L * D) @ L.swapaxes(-1, -2)
        growth = nrm(np.abs(L) * np.abs(D) @ np.abs(L).swapaxes(-1, -2)) / nrm(K64)
        assert_le(nrm(rec - K64) / nrm(K64), 16 * (n + 2) * e * np.maximum(growth, 1),
                  f"{shape}: ‖LDLᵀ − A‖/‖A‖")
        dref = pivots_by_minors(K64)
        cmax = np.max([cond(K64[..., :k, :k]) for k in range(1, n + 1)], axis=0)
        assert_le(nrm(d - dref, True) / nrm(dref, True), 64 * (n + 2) * e * cmax,
                  f"{shape}: ‖d − d_minors‖/‖d‖")


def test_large_batch(target, rng):
    """A few thousand small matrices in one call of each routine."""
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    n, count = int(rng.choice([4, 8])), int(rng.integers(2000, 4000))
    _, A64 = rounded(spd(rng, (count,), n), dt)
    L, info = gl.cholesky(unread(A64.astype(dt), True), context=ctx)
    check_info(info, (count,))
    L64 = L.astype(np.float64)
    assert_le(nrm(L64 @ L64.swapaxes(-1, -2) - A64) / nrm(A64), 4 * (n + 2) * e, "cholesky")
    c, Ae = factor_of(A64, dt, True)
    b = rng.standard_normal((count, n)).astype(dt)
    x = gl.cho_solve((c, True), b, context=ctx)
    ref = np.linalg.solve(Ae, b.astype(np.float64)[..., None])[..., 0]
    assert_le(nrm(x - ref, True) / nrm(ref, True), 16 * (n + 2) * e * cond(Ae), "cho_solve")
    X, info = gl.cholesky_inverse(c, context=ctx)
    check_info(info, (count,))
    ref = np.linalg.inv(Ae)
    assert_le(nrm(X - ref) / nrm(ref), 16 * (n + 2) * e * cond(Ae), "cholesky_inverse")
    Td, T64 = rounded(triangular(rng, (count,), n, False), dt)
    X, info = gl.inv_triangular(Td, lower=False, context=ctx)
    check_info(info, (count,))
    ref = np.linalg.inv(T64)
    assert_le(nrm(X - ref) / nrm(ref), 8 * n * 4 * e * cond(T64), "inv_triangular")
    K, n1, n2 = quasi_definite(rng, (count,), n)
    Kd, K64 = rounded(K, dt)
    lu, d, info = gl.ldl(Kd, context=ctx)
    check_info(info, (count,))
    assert ((d > 0).sum(-1) == n1).all() and ((d < 0).sum(-1) == n2).all()
    Lf = lu.astype(np.float64)
    rec = (Lf * d.astype(np.float64)[..., None, :]) @ Lf.swapaxes(-1, -2)
    assert_le(nrm(rec - K64) / nrm(K64), 64 * (n + 2) * e * cond(K64), "ldl")


# ----------------------------------------------------------------------------- failures in a batch

@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
@pytest.mark.parametrize("n", [1, 5, 17, 65])
def test_cholesky_info(target, rng, n, upper):
    """Matrices that are not positive definite get LAPACK's info (the order of the first
    leading minor that is not positive definite, found here by NumPy), matrices with a NaN or
    Inf a negative info at its column of L, and the others are factored as if alone."""
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    count = 10
    A = spd(rng, (count,), n)
    kinds = rng.permutation(["good"] * 4 + ["minor"] * 4 + ["nan", "inf"])
    nonfinite = {}
    for b, kind in enumerate(kinds):
        if kind == "minor":  # pivot k0 made clearly negative: minors 1..k0-1 stay definite
            k0 = int(rng.integers(1, n + 1))
            M, a = A[b, :k0 - 1, :k0 - 1], A[b, k0 - 1, :k0 - 1]
            s = a @ np.linalg.solve(M, a) if k0 > 1 else 0.0
            A[b, k0 - 1, k0 - 1] = s - rng.uniform(0.25, 1.0) * abs(A[b, k0 - 1, k0 - 1])
        elif kind in ("nan", "inf"):
            i, j = sorted(int(v) for v in rng.integers(0, n, 2))  # i <= j
            A[b, i, j] = A[b, j, i] = np.nan if kind == "nan" else -np.inf
            nonfinite[b] = i + 1  # column i of L (L[j, i], or U[i, j] = L[j, i])
    Ad, A64 = rounded(A, dt)
    expect = np.array([-nonfinite[b] if b in nonfinite else first_bad_minor(A64[b])
                       for b in range(count)], dtype=np.int32)
    assert (expect[kinds == "minor"] > 0).all()
    L, info = gl.cholesky(unread(Ad, not upper), upper=upper, context=ctx)
    check_info(info, (count,), expect)
    check_other_triangle(L, lower=not upper)
    L64 = L.astype(np.float64)
    if upper:
        L64 = L64.swapaxes(-1, -2)
    for b in range(count):
        k = int(expect[b])
        m = n if k == 0 else (k - 1 if k > 0 else 0)  # columns 1..k-1 hold minor k-1's factor
        if m == 0:
            continue
        ref = np.linalg.cholesky(A64[b, :m, :m])
        got = L64[b, :m, :m]
        assert_le(np.linalg.norm(got - ref) / np.linalg.norm(ref),
                  16 * (n + 2) * e * cond(A64[b, :m, :m]), f"matrix {b} ({kinds[b]}, info {k})")


@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
@pytest.mark.parametrize("n", [1, 5, 17, 65])
def test_inv_triangular_info(target, rng, n, lower):
    """An exact zero on the diagonal gives info k (its 1-based index), a NaN or Inf -k for
    the first row holding one; such matrices are returned as given, the others inverted."""
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    count = 9
    T = triangular(rng, (count,), n, lower)
    kinds = rng.permutation(["good"] * 3 + ["zero"] * 3 + ["nan", "inf", "both"])
    expect = np.zeros(count, np.int32)
    for b, kind in enumerate(kinds):
        if kind in ("zero", "both"):
            k = int(rng.integers(0, n))
            T[b, k, k] = 0.0
            expect[b] = k + 1
        if kind in ("nan", "inf", "both"):
            i, j = sorted(int(v) for v in rng.integers(0, n, 2))
            r, c = (j, i) if lower else (i, j)
            T[b, r, c] = np.nan if kind != "inf" else np.inf
            expect[b] = -(r + 1)  # reported even where the matrix is also singular
    Td, T64 = rounded(T, dt)
    X, info = gl.inv_triangular(unread(Td, lower), lower=lower, context=ctx)
    check_info(info, (count,), expect)
    check_other_triangle(X, lower)
    for b in range(count):
        if expect[b] != 0:
            np.testing.assert_array_equal(X[b], Td[b], err_msg=f"failed matrix {b} was changed")
        else:
            ref = np.linalg.inv(T64[b])
            assert_le(np.linalg.norm(X[b] - ref) / np.linalg.norm(ref),
                      8 * n * (1 + np.log2(n)) * e * cond(T64[b]), f"matrix {b}")


@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
@pytest.mark.parametrize("n", [1, 5, 17, 65])
def test_cholesky_inverse_info(target, rng, n, upper):
    """A factor with a zero on its diagonal gives info k, a NaN -k; the others are inverted."""
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    count = 6
    _, A64 = rounded(spd(rng, (count,), n), dt)
    c, Ae = factor_of(A64, dt, not upper)
    kinds = rng.permutation(["good"] * 3 + ["zero"] * 2 + ["nan"])
    expect = np.zeros(count, np.int32)
    for b, kind in enumerate(kinds):
        if kind == "zero":
            k = int(rng.integers(0, n))
            c[b, k, k] = 0
            expect[b] = k + 1
        elif kind == "nan":
            i, j = sorted(int(v) for v in rng.integers(0, n, 2))
            r, col = (i, j) if upper else (j, i)
            c[b, r, col] = np.nan
            expect[b] = -(r + 1)
    X, info = gl.cholesky_inverse(unread(c, not upper), upper=upper, context=ctx)
    check_info(info, (count,), expect)
    for b in np.flatnonzero(expect == 0):
        ref = np.linalg.inv(Ae[b])
        assert_le(np.linalg.norm(X[b] - ref) / np.linalg.norm(ref),
                  16 * (n + 2) * e * cond(Ae[b]), f"matrix {b}")


@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
@pytest.mark.parametrize("n", [1, 6, 17, 65])
def test_ldl_info(target, rng, n, lower):
    """An exactly zero pivot k (by construction: A = L D Lᵀ with small integers in L and
    powers of two in D, so every step is exact) gives info k; a NaN at (i, j) gives
    -(max(i, j) + 1), the first pivot it reaches; the other matrices are factored exactly."""
    dt, ctx = target.dtype, target.context
    count = 8
    L = np.tril(rng.integers(-2, 3, (count, n, n)).astype(np.float64), -1) + np.eye(n)
    D = rng.choice([-2.0, -1.0, 1.0, 2.0, 4.0], (count, n))
    kinds = rng.permutation(["good"] * 4 + ["zero"] * 3 + ["nan"])
    expect = np.zeros(count, np.int32)
    for b, kind in enumerate(kinds):
        if kind == "zero":
            k = int(rng.integers(0, n))
            D[b, k] = 0.0
            expect[b] = k + 1
    A = (L * D[:, None, :]) @ L.swapaxes(-1, -2)
    if n > 3 and np.abs(A).max() > 2**20:  # stay exact in float32
        pytest.skip("entries too large for an exact float32 test")
    for b, kind in enumerate(kinds):
        if kind == "nan":
            i, j = (int(v) for v in rng.integers(0, n, 2))
            A[b, i, j] = A[b, j, i] = np.nan
            expect[b] = -(max(i, j) + 1)
    assert np.array_equal(A.astype(dt).astype(np.float64), A, equal_nan=True)
    lu, d, info = gl.ldl(unread(A.astype(dt), lower), lower=lower, context=ctx)
    check_info(info, (count,), expect)
    for b in np.flatnonzero(expect == 0):
        np.testing.assert_array_equal(d[b], D[b])
        np.testing.assert_array_equal(lu[b], L[b] if lower else L[b].T)


# ----------------------------------------------------------------------------- overwrite, conversions

def test_overwrite(target, rng):
    """overwrite_a=True with a C-contiguous array of the routine's dtype writes the result
    into the caller's array and returns it; otherwise the input is left alone."""
    dt, ctx, e = target.dtype, target.context, eps(target.dtype)
    n = 7
    Ad, A64 = rounded(spd(rng, (3,), n), dt)

    a = Ad.copy()
    L, info = gl.cholesky(a, overwrite_a=True, context=ctx)
    assert L is a and L.ctypes.data == a.ctypes.data
    assert_le(nrm(L.astype(np.float64) - np.linalg.cholesky(A64)) / nrm(L), 64 * n * e, "cholesky")
    assert (np.triu(a[0], 1) == 0).all()

    c, Ae = factor_of(A64, dt, True)
    a = c.copy()
    X, info = gl.cholesky_inverse(a, overwrite=True, context=ctx)
    assert X is a
    ref = np.linalg.inv(Ae)
    assert_le(nrm(X - ref) / nrm(ref), 16 * (n + 2) * e * cond(Ae), "cholesky_inverse")

    a = c.copy()
    X, info = gl.inv_triangular(a, overwrite_a=True, context=ctx)
    assert X is a
    ref = np.linalg.inv(c.astype(np.float64))
    assert_le(nrm(X - ref) / nrm(ref), 64 * n * e * cond(c.astype(np.float64)), "inv_triangular")

    a = Ad.copy()
    lu, d, info = gl.ldl(a, overwrite_a=True, context=ctx)
    assert lu is a
    np.testing.assert_array_equal(np.diagonal(lu, axis1=-2, axis2=-1), 1)

    # cho_solve: a vector b, and an (n, k) b in Fortran order (its transpose is C-ordered)
    b = rng.standard_normal((3, n)).astype(dt)
    bb = b.copy()
    x = gl.cho_solve((c, True), bb, overwrite_b=True, context=ctx)
    assert x.ctypes.data == bb.ctypes.data
    ref = np.linalg.solve(Ae, b.astype(np.float64)[..., None])[..., 0]
    assert_le(nrm(x - ref, True) / nrm(ref, True), 16 * (n + 2) * e * cond(Ae), "cho_solve")
    np.testing.assert_array_equal(bb, x)
    bf = np.asfortranarray(rng.standard_normal((n, 4)).astype(dt))
    bcopy = bf.copy()
    x = gl.cho_solve((c[0], True), bf, overwrite_b=True, context=ctx)
    assert x.ctypes.data == bf.ctypes.data and x.shape == (n, 4)
    ref = np.linalg.solve(Ae[0], bcopy.astype(np.float64))
    assert_le(nrm(x - ref) / nrm(ref), 16 * (n + 2) * e * cond(Ae[0]), "cho_solve (n, k)")

    # copies: non-contiguous, Fortran-ordered, read-only (integers: test_integer_input)
    big = np.zeros((3, 2 * n, 2 * n), dt)
    big[:, ::2, ::2] = Ad
    view = big[:, ::2, ::2]
    keep = big.copy()
    L, _ = gl.cholesky(view, overwrite_a=True, context=ctx)
    assert L.ctypes.data != view.ctypes.data and L.flags.c_contiguous
    np.testing.assert_array_equal(big, keep)
    assert_le(nrm(L.astype(np.float64) - np.linalg.cholesky(A64)) / nrm(L), 64 * n * e, "from a view")
    f = np.asfortranarray(Ad[0])
    fk = f.copy()
    L, _ = gl.cholesky(f, overwrite_a=True, context=ctx)
    assert L.ctypes.data != f.ctypes.data
    np.testing.assert_array_equal(f, fk)
    ro = Ad.copy()
    ro.flags.writeable = False
    L, _ = gl.cholesky(ro, overwrite_a=True, context=ctx)
    assert L is not ro and L.flags.writeable


def test_integer_input(host):
    """Integer (and bool) NumPy input is read as float64, also with overwrite (a copy)."""
    n = 5
    ai = (np.ones((n, n), np.int64) + n * np.eye(n, dtype=np.int64))
    keep = ai.copy()
    L, info = gl.cholesky(ai, overwrite_a=True, context=host)
    assert L.dtype == np.float64 and int(info) == 0
    np.testing.assert_array_equal(ai, keep)
    np.testing.assert_allclose(L, np.linalg.cholesky(ai.astype(np.float64)), rtol=1e-14, atol=1e-14)
    for f, args in ((gl.cholesky_inverse, {}), (gl.inv_triangular, {}), (gl.ldl, {})):
        out = f(np.tril(ai).astype(np.int32), **args, context=host)
        assert out[0].dtype == np.float64
    x = gl.cho_solve((L, True), np.arange(n), context=host)
    assert x.dtype == np.float64
    np.testing.assert_allclose(ai @ x, np.arange(n), rtol=1e-12, atol=1e-12)
    X, _ = gl.inv_triangular(np.eye(3, dtype=bool), context=host)
    np.testing.assert_array_equal(X, np.eye(3))
    # a list of lists, as NumPy reads it
    L, info = gl.cholesky([[4, 2], [2, 5]], context=host)
    np.testing.assert_array_equal(L, [[2, 0], [1, 2]])


def test_empty(host):
    """Order 0 and empty batches: empty results of the right shapes."""
    for shape in [(0,), (3, 0), (2,)]:
        n = 0 if shape == (2,) else 3
        a = np.zeros(shape + (n, n))
        L, info = gl.cholesky(a, context=host)
        assert L.shape == a.shape and info.shape == shape and (info == 0).all()
        lu, d, info = gl.ldl(a, context=host)
        assert lu.shape == a.shape and d.shape == shape + (n,) and info.shape == shape
        X, info = gl.inv_triangular(a, context=host)
        assert X.shape == a.shape
        X, info = gl.cholesky_inverse(a, context=host)
        assert X.shape == a.shape
        x = gl.cho_solve((a, True), np.zeros(shape + (n, 2)), context=host)
        assert x.shape == shape + (n, 2)


@pytest.mark.parametrize("routine", ["cholesky", "cholesky_inverse", "inv_triangular", "ldl"])
def test_refused(host, routine):
    """float16, complex, object, string, 0-D, 1-D and non-square inputs are refused with a
    message that names the argument."""
    f = getattr(gl, routine)
    name = "L" if routine == "cholesky_inverse" else "a"
    eye = np.eye(3)
    for bad in (eye.astype(np.float16), eye.astype(np.complex128), eye.astype(object),
                np.full((3, 3), "x")):
        with pytest.raises(TypeError, match=rf"^{name}\b"):
            f(bad, context=host)
    for bad in (np.float64(1.0), np.ones(3), np.ones((3, 4)), np.ones((2, 3, 2))):
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            f(bad, context=host)
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        f([[1.0, 2.0], [3.0]], context=host)  # ragged
    with pytest.raises(TypeError, match="context"):
        f(eye, context="host")


def test_cho_solve_shapes_refused(host):
    c = np.linalg.cholesky(spd(np.random.default_rng(1), (4,), 3))
    with pytest.raises(ValueError, match=r"^c\b"):
        gl.cho_solve((np.ones((3, 4)), True), np.ones(3), context=host)
    with pytest.raises(ValueError, match=r"^c\b"):
        gl.cho_solve((np.ones(3), True), np.ones(3), context=host)
    with pytest.raises(ValueError, match=r"^b\b"):
        gl.cho_solve((c[0], True), np.ones(4), context=host)  # wrong order
    with pytest.raises(ValueError, match=r"^b\b"):
        gl.cho_solve((c, True), np.ones((5, 3)), context=host)  # batch 5, factors 4
    with pytest.raises(ValueError, match=r"^b\b"):
        gl.cho_solve((c, True), np.ones(3), context=host)  # one b for a batch of factors
    with pytest.raises(ValueError, match=r"^b\b"):
        gl.cho_solve((c[0], True), np.float64(1.0), context=host)
    with pytest.raises(TypeError, match=r"^b\b"):
        gl.cho_solve((c, True), np.ones((4, 3), np.complex128), context=host)
    with pytest.raises(TypeError, match=r"^b\b"):
        gl.cho_solve((c, True), np.ones((4, 3), np.float16), context=host)
    with pytest.raises(TypeError, match=r"^c\b"):
        gl.cho_solve((c.astype(np.complex64), True), np.ones((4, 3)), context=host)
    with pytest.raises(TypeError, match=r"^b\b"):
        gl.cho_solve((c, True), None, context=host)
    with pytest.raises(TypeError, match="c_and_lower"):
        gl.cho_solve(c, np.ones((4, 3)), context=host)


def test_cho_solve_dtypes(host, rng):
    """b of another precision than c: the result takes the wider one (NumPy's promotion);
    integer b takes c's."""
    n = 6
    A = spd(rng, (), n)
    c64 = np.linalg.cholesky(A)
    b = rng.standard_normal(n)
    x = gl.cho_solve((c64.astype(np.float32), True), b, context=host)
    assert x.dtype == np.float64
    ref = np.linalg.solve(c64.astype(np.float32).astype(np.float64) @
                          c64.astype(np.float32).astype(np.float64).T, b)
    assert_le(np.linalg.norm(x - ref) / np.linalg.norm(ref), 64 * n * eps(np.float64) * cond(A), "mixed")
    x = gl.cho_solve((c64.astype(np.float32), True), np.arange(n), context=host)
    assert x.dtype == np.float32


# ----------------------------------------------------------------------------- PyTorch

def test_torch(host, rng):
    """PyTorch CPU tensors in, PyTorch tensors out (same dtype), against torch.linalg."""
    torch = pytest.importorskip("torch")
    n = 9
    for dt, tdt in ((np.float64, torch.float64), (np.float32, torch.float32)):
        e = eps(dt)
        A = torch.from_numpy(spd(rng, (4,), n).astype(dt))
        A64 = A.double()
        L, info = gl.cholesky(A, context=host)
        assert isinstance(L, torch.Tensor) and L.dtype == tdt and L.shape == A.shape
        assert isinstance(info, np.ndarray) and (info == 0).all()
        Lref = torch.linalg.cholesky(A64)
        assert float((L.double() - Lref).norm() / Lref.norm()) <= 64 * n * e
        U, info = gl.cholesky(A, upper=True, context=host)
        assert float((U.double() - Lref.mT).norm() / Lref.norm()) <= 64 * n * e
        assert bool((U.tril(-1) == 0).all())
        b = torch.from_numpy(rng.standard_normal((4, n, 2)).astype(dt))
        x = gl.cho_solve((L, True), b, context=host)
        assert isinstance(x, torch.Tensor) and x.dtype == tdt and x.shape == b.shape
        xref = torch.cholesky_solve(b.double(), L.double())
        assert float((x.double() - xref).norm() / xref.norm()) <= 64 * n * e * 20
        xv = gl.cho_solve((U, False), b[..., 0], context=host)
        assert xv.shape == (4, n)
        assert float((xv.double() - xref[..., 0]).norm() / xref[..., 0].norm()) <= 64 * n * e * 20
        X, info = gl.cholesky_inverse(L, context=host)
        Xref = torch.cholesky_inverse(L.double())
        assert isinstance(X, torch.Tensor) and X.dtype == tdt
        assert bool((X == X.mT).all())
        assert float((X.double() - Xref).norm() / Xref.norm()) <= 64 * n * e * 20
        X, info = gl.cholesky_inverse(U, upper=True, context=host)
        assert float((X.double() - Xref).norm() / Xref.norm()) <= 64 * n * e * 20
        T, info = gl.inv_triangular(L, context=host)
        Tref = torch.linalg.solve_triangular(L.double(), torch.eye(n, dtype=torch.float64), upper=False)
        assert isinstance(T, torch.Tensor) and bool((T.triu(1) == 0).all())
        assert float((T.double() - Tref).norm() / Tref.norm()) <= 64 * n * e * 20
        T, info = gl.inv_triangular(L, unit_diagonal=True, context=host)
        assert bool((T.diagonal(dim1=-2, dim2=-1) == 1).all())
        lu, d, info = gl.ldl(A, context=host)
        assert isinstance(lu, torch.Tensor) and isinstance(d, torch.Tensor) and d.shape == (4, n)
        rec = (lu.double() * d.double()[..., None, :]) @ lu.double().mT
        assert float((rec - A64).norm() / A64.norm()) <= 64 * n * e
        # overwrite_a with a contiguous tensor: no copy
        a = A.clone()
        L2, _ = gl.cholesky(a, overwrite_a=True, context=host)
        assert L2.data_ptr() == a.data_ptr() and torch.equal(L2, L)
        # a transposed (non-contiguous) tensor and one that requires grad: copies
        At = A.mT
        L3, _ = gl.cholesky(At, overwrite_a=True, context=host)
        assert L3.data_ptr() != At.data_ptr() and torch.equal(L3, L)
        Ag = A.clone().requires_grad_(True)
        L4, _ = gl.cholesky(Ag, overwrite_a=True, context=host)
        assert torch.equal(L4, L) and torch.equal(Ag.detach(), A)
        x = gl.cho_solve((L, True), b.requires_grad_(True), overwrite_b=True, context=host)
        assert x.shape == b.shape
    with pytest.raises(TypeError, match=r"^a\b"):
        gl.cholesky(torch.eye(3, dtype=torch.float16), context=host)
    with pytest.raises(TypeError, match=r"^a\b"):
        gl.cholesky(torch.eye(3, dtype=torch.int64), context=host)


def test_torch_cuda(rng):
    """CUDA tensors without a context: results on the same device, from gala's CUDA backend."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not gala._ext.backend_available("cuda"):
        pytest.skip("no CUDA device or no CUDA backend in this build")
    n = 17
    for tdt in (torch.float64, torch.float32):
        e = float(torch.finfo(tdt).eps)
        A = torch.from_numpy(spd(rng, (5,), n)).to("cuda", tdt)
        L, info = gl.cholesky(A)
        assert L.device == A.device and L.dtype == tdt and (info == 0).all()
        Lref = torch.linalg.cholesky(A.double())
        assert float((L.double() - Lref).norm() / Lref.norm()) <= 64 * n * e
        a = A.clone()
        L2, _ = gl.cholesky(a, overwrite_a=True)
        assert L2.data_ptr() == a.data_ptr() and torch.equal(L2, L)
        b = torch.from_numpy(rng.standard_normal((5, n, 3))).to("cuda", tdt)
        x = gl.cho_solve((L, True), b)
        xref = torch.cholesky_solve(b.double(), L.double())
        assert x.device == b.device and float((x.double() - xref).norm() / xref.norm()) <= 64 * n * e * 20
        X, info = gl.cholesky_inverse(L)
        Xref = torch.cholesky_inverse(L.double())
        assert float((X.double() - Xref).norm() / Xref.norm()) <= 64 * n * e * 20
        T, info = gl.inv_triangular(L)
        assert float((T.double() @ L.double() - torch.eye(n, device="cuda", dtype=torch.float64)).norm()) <= 64 * n * e * 20
        lu, d, info = gl.ldl(A)
        rec = (lu.double() * d.double()[..., None, :]) @ lu.double().mT
        assert float((rec - A.double()).norm() / A.double().norm()) <= 64 * n * e
        with pytest.raises(ValueError, match=r"^b\b"):
            gl.cho_solve((L, True), b.cpu())


def test_tune_set_and_get(host, rng):
    """Context.tune_set / tune_get (gala_tune_set / gala_tune_get): a context's potrf block
    size set for one precision and read back per precision, a factorization after it equal
    to the default's within rounding, and bad keys, values and dtypes refused by name."""
    ctx = gala.Context(backend="host")
    default = ctx.tune_get("potrf.nb", "float64")
    a = rng.standard_normal((3, 150, 150))
    a = a @ a.transpose(0, 2, 1) + 150 * np.eye(150)
    ref, info = gl.cholesky(a, context=ctx)
    assert not info.any()
    other = 16 if default != 16 else 32
    ctx.tune_set("potrf.nb", other, dtype="float64")
    assert ctx.tune_get("potrf.nb", "float64") == other
    assert ctx.tune_get("potrf.nb", "float32") == default
    np.testing.assert_allclose(gl.cholesky(a, context=ctx)[0], ref, rtol=0, atol=1e-10)
    with pytest.raises(gala.GalaError, match='unknown tuning key "potrf.no_such_key"'):
        ctx.tune_set("potrf.no_such_key", 1)
    with pytest.raises(gala.GalaError, match='outside the range of "potrf.nb"'):
        ctx.tune_set("potrf.nb", 10**6)
    with pytest.raises(ValueError, match="dtype: 'int8'"):
        ctx.tune_get("potrf.nb", "int8")
