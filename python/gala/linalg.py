"""Batched dense factorizations on stacked matrices (…×n×n), with NumPy/SciPy/PyTorch names.

Each routine takes NumPy arrays (anything NumPy converts) or DLPack arrays of PyTorch, CuPy
or JAX, on the host or on a CUDA device, and returns arrays of the same kind and device. The
leading dimensions are a batch: one call factors every matrix. Numerical failures of single
matrices (not positive definite, singular, NaN) are not raised: each routine that can fail
returns ``info`` (a NumPy int32 array of the batch's shape) as LAPACK, MAGMA and
``torch.linalg.cholesky_ex`` do: 0 for success, k > 0 when the leading minor / pivot k is
not positive (or zero), -k for a NaN or Inf (met at column k of the Cholesky factor, at
pivot k of the LDLᵀ factorization, in row k of a triangular matrix being inverted).

Where the work runs: on ``context`` when given; otherwise host arrays on the thread's
default context (:func:`gala.default_context`) and CUDA arrays on a CUDA context of their
device. Host arrays on a GPU context are copied there and back; device arrays on a host or
OpenCL context are refused. With ``overwrite_a=True`` and a C-contiguous array of float32
or float64 the result is written into the caller's array (for a CUDA tensor, no copy at all).

Arrays are C-ordered (row-major) in Python and gala is column-major: a row-major lower
triangle is a column-major upper one, so each call passes the other triangle to C.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from . import _arrays, _ext
from ._ext import Diag, Uplo

__all__ = ["cholesky", "cho_solve", "cholesky_inverse", "inv_triangular", "ldl"]

Array = Any


def _operand(x: Any, name: str) -> Array:
    """x as an array this module handles: NumPy arrays and DLPack arrays of PyTorch, CuPy and
    JAX as they are, anything else through NumPy (lists, NumPy subclasses, scalars)."""
    if x is None:
        raise TypeError(f"{name}: expected an array, got None")
    if _arrays.framework(x) == "numpy" and not isinstance(x, np.ndarray):
        x = _arrays.to_host(x, name)
    elif isinstance(x, np.ndarray) and type(x) is not np.ndarray:
        x = np.asarray(x)  # np.matrix and other subclasses: plain arrays
    return x


def _float_dtype(a: Array, name: str, ints: str) -> str:
    """The precision a routine runs in for ``a``: float32 or float64 (of either byte order),
    ``ints`` for NumPy integers and booleans; anything else is refused, naming ``name``."""
    if _arrays.framework(a) == "numpy":
        dt = np.dtype(a.dtype)
        if dt.kind == "f" and dt.itemsize in (4, 8):
            return dt.name
        if dt.kind in "iub":
            return ints
        raise TypeError(f"{name}: dtype {dt} is not supported (float32 or float64; integers "
                        "are read as float64)")
    dt = _arrays.dtype_name(a)
    if dt in ("float32", "float64"):
        return dt
    raise TypeError(f"{name}: dtype {dt} is not supported (float32 or float64)")


def _usable_as(a: Array, dt: str) -> bool:
    """Whether gala can use ``a``'s memory as it is: dtype dt in native byte order,
    C-contiguous and aligned."""
    if isinstance(a, np.ndarray) and not a.flags.aligned:
        return False
    return _arrays.has_dtype(a, dt) and _arrays.is_c_contiguous(a)


def _writable_as(a: Array, dt: str) -> bool:
    """Whether ``a`` itself can take the result: usable as it is, and writable (for
    PyTorch: not requiring grad)."""
    return _usable_as(a, dt) and _arrays.writable(a)


def _square(a: Array, name: str, overwrite: bool) -> Tuple[Array, str]:
    """The array the routine writes: ``a`` itself (overwrite, C-contiguous, float32/64,
    writable) or a C-ordered copy; float64 for integer NumPy input."""
    a = _operand(a, name)
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: expected stacked square matrices (..., n, n), got shape "
                         f"{tuple(a.shape)}")
    dt = _float_dtype(a, name, "float64")
    if overwrite and _writable_as(a, dt):
        return a, dt
    return _arrays.contiguous_copy(a, dt), dt


class _Staged:
    """A gala buffer over an array: the array's own memory (host array on the host backend,
    CUDA array on the CUDA backend) or a copy on the device, read back by ``done()``."""

    def __init__(self, ctx: _ext.Context, arr: Array, name: str, read_back: bool = True):
        self.arr, self.read_back = arr, read_back
        flat = arr.reshape(-1)
        backend = ctx.info["backend"]
        if backend == "host" or (backend == "cuda" and _arrays.is_device(arr)):
            self.buf, self.copied = _ext.Buffer.wrap(ctx, flat, name, readonly=not read_back), False
        else:
            self.buf, self.copied = _ext.Buffer.create(ctx, _arrays.dtype_name(arr), int(flat.shape[0])), True
            self.buf.write(0, flat)
        self.flat = flat

    def done(self) -> None:
        if self.copied and self.read_back:
            self.buf.read(0, self.flat)
        self.buf.free()


def _begin(arrays: list, names: list, context: Optional[_ext.Context]) -> _ext.Context:
    ctx, on_device = _arrays.context_for(arrays, context, names)
    if on_device and context is None:
        for a in arrays:
            if a is not None:
                _arrays.sync_producer(a)
    return ctx


def _info(info: np.ndarray, batch_shape: tuple) -> np.ndarray:
    return np.asarray(info, dtype=np.int32).reshape(batch_shape)


def cholesky(a: Array, *, upper: bool = False, overwrite_a: bool = False,
             context: Optional[_ext.Context] = None) -> Tuple[Array, np.ndarray]:
    """Cholesky factors of stacked SPD matrices: ``a = L @ L.T`` (``upper=True``:
    ``a = U.T @ U``), as ``torch.linalg.cholesky_ex``; only the triangle asked for is read,
    the other is zero on return.

    Returns ``(L, info)``: L of a's shape, dtype and device; info (batch shape, int32).
    Runs gala_potrf_batched.
    """
    out, _ = _square(a, "a", overwrite_a)
    n, batch_shape = out.shape[-1], tuple(out.shape[:-2])
    batch = int(np.prod(batch_shape, dtype=np.int64))
    if n == 0 or batch == 0:
        return out, np.zeros(batch_shape, np.int32)
    ctx = _begin([out], ["a"], context)
    st = _Staged(ctx, out, "a")
    try:
        info = _ext.potrf_batched(ctx, Uplo.LOWER if upper else Uplo.UPPER, n, st.buf, 0, n, n * n, batch)
    finally:
        st.done()
    _arrays.keep_triangle(out, lower=not upper)
    return out, _info(info, batch_shape)


def cho_solve(c_and_lower: Tuple[Array, bool], b: Array, *, overwrite_b: bool = False,
              context: Optional[_ext.Context] = None) -> Array:
    """Solve ``A x = b`` with A's Cholesky factor, as ``scipy.linalg.cho_solve``:
    ``c_and_lower = (c, lower)`` with c from :func:`cholesky` (``lower = not upper``); only
    c's ``lower`` (or upper) triangle is read.

    Shapes: with a stack of factors c (…, n, n), b is (…, n) (one vector per factor) or
    (…, n, k), with the same batch shape as c. With one factor c (n, n), b is (n,), (n, k),
    or a stack (…, n, k) of right-hand sides that all use c. The result has b's shape.

    Precision: float64 if c or b is float64, else float32 (integer NumPy b takes c's, integer
    c is read as float64). ``overwrite_b=True`` solves in b's own memory where it can: b of
    the result's dtype, writable, and C-contiguous for vectors, or with its last two axes in
    Fortran order ((n, k) with strides (itemsize, n·itemsize)) for matrices; otherwise a copy.

    The factor is not checked (a zero on its diagonal gives Inf or NaN). Runs
    gala_potrs_batched.
    """
    try:
        c, lower = c_and_lower
    except (TypeError, ValueError):
        raise TypeError("c_and_lower: expected a pair (c, lower), as scipy.linalg.cho_solve "
                        "takes") from None
    if isinstance(c_and_lower, np.ndarray) or np.ndim(lower) != 0:
        raise TypeError("c_and_lower: expected a pair (c, lower) with lower a bool, as "
                        "scipy.linalg.cho_solve takes")
    lower = bool(lower)
    c = _operand(c, "c")
    b = _operand(b, "b")
    if len(c.shape) < 2 or c.shape[-1] != c.shape[-2]:
        raise ValueError(f"c: expected stacked square matrices (..., n, n), got shape "
                         f"{tuple(c.shape)}")
    n = int(c.shape[-1])
    cbatch = tuple(c.shape[:-2])
    bshape = tuple(b.shape)
    if cbatch:  # one factor per right-hand side block: b is (…, n) or (…, n, k)
        if len(bshape) not in (len(cbatch) + 1, len(cbatch) + 2):
            raise ValueError(f"b: shape {bshape} is neither c's batch {cbatch} + (n,) nor "
                             f"{cbatch} + (n, k)")
        vec = len(bshape) == len(cbatch) + 1
        bbatch = bshape[:-1] if vec else bshape[:-2]
        if bbatch != cbatch:
            raise ValueError(f"b: batch shape {bbatch} differs from c's {cbatch}")
    else:  # one factor for all: b is (n,), (n, k) or (…, n, k)
        if len(bshape) == 0:
            raise ValueError("b: expected shape (n,), (n, k) or (..., n, k), got a scalar")
        vec = len(bshape) == 1
        bbatch = () if vec else bshape[:-2]
    rows = bshape[-1] if vec else bshape[-2]
    if rows != n:
        raise ValueError(f"b: {rows} rows, expected {n} (the order of c)")
    cdt = _float_dtype(c, "c", "float64")
    bdt = _float_dtype(b, "b", cdt)
    dt = "float64" if "float64" in (cdt, bdt) else "float32"
    fw_b = _arrays.framework(b)

    def swap(x: Array) -> Array:
        return x.transpose(-1, -2) if _arrays.framework(x) == "torch" else x.swapaxes(-1, -2)

    # the right-hand sides in column-major n×k blocks: a C-ordered (…, k, n) array
    bt = b if vec else swap(b)
    out = bt if overwrite_b and _writable_as(bt, dt) else _arrays.contiguous_copy(bt, dt)
    cc = c if _usable_as(c, dt) else _arrays.contiguous_copy(c, dt)
    if out is bt and fw_b == "numpy" and _arrays.framework(cc) == "numpy" and np.may_share_memory(out, cc):
        out = _arrays.contiguous_copy(bt, dt)  # b overlapping c: solve in a copy
    k = 1 if vec else int(bshape[-1])
    batch = int(np.prod(bbatch, dtype=np.int64))
    result = out if vec else swap(out)
    if n == 0 or k == 0 or batch == 0:
        return result
    ctx = _begin([cc, out], ["c", "b"], context)
    sc, sb = _Staged(ctx, cc, "c", read_back=False), _Staged(ctx, out, "b")
    try:
        _ext.potrs_batched(ctx, Uplo.UPPER if lower else Uplo.LOWER, n, k, sc.buf, 0, n,
                           n * n if cbatch else 0, sb.buf, 0, n, n * k, batch)
    finally:
        sc.done()
        sb.done()
    return result


def cholesky_inverse(L: Array, *, upper: bool = False, overwrite: bool = False,
                     context: Optional[_ext.Context] = None) -> Tuple[Array, np.ndarray]:
    """Inverse of stacked SPD matrices from their Cholesky factors, as
    ``torch.cholesky_inverse`` (the whole symmetric inverse is returned).

    Returns ``(ainv, info)``; info k > 0 where ``L[k-1, k-1]`` is zero, -k for a NaN or Inf
    in row k of the factor's triangle (the first such row). Runs gala_potri_batched.
    """
    out, _ = _square(L, "L", overwrite)
    n, batch_shape = out.shape[-1], tuple(out.shape[:-2])
    batch = int(np.prod(batch_shape, dtype=np.int64))
    if n == 0 or batch == 0:
        return out, np.zeros(batch_shape, np.int32)
    ctx = _begin([out], ["L"], context)
    st = _Staged(ctx, out, "L")
    try:
        info = _ext.potri_batched(ctx, Uplo.LOWER if upper else Uplo.UPPER, n, st.buf, 0, n, n * n, batch)
    finally:
        st.done()
    _arrays.symmetrize(out, lower=not upper)
    return out, _info(info, batch_shape)


def inv_triangular(a: Array, *, lower: bool = True, unit_diagonal: bool = False,
                   overwrite_a: bool = False, context: Optional[_ext.Context] = None
                   ) -> Tuple[Array, np.ndarray]:
    """Inverses of stacked triangular matrices (the ``lower`` or upper triangle of a is
    read; ``unit_diagonal``: the diagonal is taken as ones), the other triangle zero on
    return, as ``scipy.linalg.solve_triangular(a, I, lower=, unit_diagonal=)``.

    Returns ``(inv, info)``; info k > 0 where a[k-1, k-1] is zero (the first such k), -k for
    a NaN or Inf in row k of the triangle read (the first such row, reported also where the
    matrix is singular too); such a matrix is returned as it was given (its triangle).
    Runs gala_trtri_batched in place.
    """
    out, _ = _square(a, "a", overwrite_a)
    n, batch_shape = out.shape[-1], tuple(out.shape[:-2])
    batch = int(np.prod(batch_shape, dtype=np.int64))
    if n == 0 or batch == 0:
        return out, np.zeros(batch_shape, np.int32)
    ctx = _begin([out], ["a"], context)
    st = _Staged(ctx, out, "a")
    try:
        info = _ext.trtri_batched(ctx, Uplo.UPPER if lower else Uplo.LOWER,
                                  Diag.UNIT if unit_diagonal else Diag.NON_UNIT, n, st.buf, 0, n,
                                  n * n, st.buf, 0, n, n * n, batch)
    finally:
        st.done()
    _arrays.keep_triangle(out, lower=lower, unit=unit_diagonal)
    return out, _info(info, batch_shape)


def ldl(a: Array, *, lower: bool = True, overwrite_a: bool = False,
        context: Optional[_ext.Context] = None) -> Tuple[Array, Array, np.ndarray]:
    """LDLᵀ factorization without pivoting of stacked symmetric quasi-definite matrices:
    ``a = lu @ diag(d) @ lu.T`` with lu unit lower triangular (``lower=False``: ``a =
    lu.T @ diag(d) @ lu`` with lu unit upper). Unlike ``scipy.linalg.ldl`` there is no
    pivoting, so it suits quasi-definite matrices (KKT systems), whose factorization exists
    in any order.

    Returns ``(lu, d, info)``: lu (…, n, n) with ones on its diagonal, d (…, n), info (k > 0:
    pivot k is zero, -k: NaN or Inf). Runs gala_ldlt_batched.
    """
    out, _ = _square(a, "a", overwrite_a)
    n, batch_shape = out.shape[-1], tuple(out.shape[:-2])
    batch = int(np.prod(batch_shape, dtype=np.int64))
    if n == 0 or batch == 0:
        return out, _arrays.empty(out, batch_shape + (n,), _arrays.dtype_name(out)), \
            np.zeros(batch_shape, np.int32)
    ctx = _begin([out], ["a"], context)
    st = _Staged(ctx, out, "a")
    try:
        info, _inertia = _ext.ldlt_batched(ctx, Uplo.UPPER if lower else Uplo.LOWER, n, st.buf, 0, n,
                                           n * n, batch)
    finally:
        st.done()
    d = _arrays.diagonal_copy(out)
    _arrays.keep_triangle(out, lower=lower, unit=True)
    return out, d, _info(info, batch_shape)
