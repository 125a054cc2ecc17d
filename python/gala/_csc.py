"""Matrices in the CSC form the C API takes (int32 pointers and indices, float64 values)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
import scipy.sparse as spa

Csc = Tuple[np.ndarray, np.ndarray, np.ndarray]


def to_csc(M: Any, shape: Tuple[int, int], name: str, *, upper: bool = False,
           dense_ok: bool = True) -> spa.csc_matrix:
    """A SciPy CSC matrix of ``shape`` from M (SciPy sparse, dense array-like, or None for an
    empty one); ``upper``: its upper triangle (entries below the diagonal dropped, as OSQP
    does for P). Indices sorted, duplicates summed; explicit zeros kept (they hold a place
    in the pattern that updates of the values refer to)."""
    if M is None:
        return spa.csc_matrix(shape, dtype=np.float64)
    if spa.issparse(M):
        C = M.tocsc() if M.format != "csc" else M
    else:
        if not dense_ok:
            raise TypeError(f"{name} is required to be a sparse matrix")
        if hasattr(M, "__dlpack_device__") and type(M).__module__.split(".")[0] != "numpy":
            from . import _arrays
            M = _arrays.to_host(M, name)
        D = np.asarray(M, dtype=np.float64)
        if D.ndim != 2:
            raise ValueError(f"{name}: expected a 2-D matrix, got shape {D.shape}")
        C = spa.csc_matrix(D)
    if tuple(C.shape) != tuple(shape):
        raise ValueError(f"{name} is {C.shape[0]}×{C.shape[1]}, expected {shape[0]}×{shape[1]}")
    if not C.has_canonical_format:
        C = C.copy()
        C.sum_duplicates()
    if upper and C.nnz:
        C = _upper(C)
    return C


def _upper(C: spa.csc_matrix) -> spa.csc_matrix:
    """C's upper triangle (C itself when it has no entry below the diagonal): an index test
    over the entries, not SciPy's triu, whose COO round trip costs a small QP's whole setup."""
    counts = np.diff(C.indptr)
    col = np.repeat(np.arange(C.shape[1], dtype=C.indices.dtype), counts)
    keep = C.indices <= col
    if keep.all():
        return C
    indptr = np.zeros(C.shape[1] + 1, dtype=C.indptr.dtype)
    np.cumsum(np.bincount(col[keep], minlength=C.shape[1]), out=indptr[1:])
    return spa.csc_matrix((C.data[keep], C.indices[keep], indptr), shape=C.shape)


def arrays(C: spa.csc_matrix, name: str) -> Csc:
    """(indptr, indices, data) as int32, int32, float64 C-contiguous arrays."""
    if C.nnz > np.iinfo(np.int32).max:
        raise ValueError(f"{name}: {C.nnz} entries do not fit gala's 32-bit indices")
    p = np.ascontiguousarray(C.indptr, dtype=np.int32)
    i = np.ascontiguousarray(C.indices, dtype=np.int32)
    x = np.ascontiguousarray(C.data, dtype=np.float64)
    return p, i, x


def vector(v: Any, size: int, name: str, fill: Optional[float] = None) -> np.ndarray:
    """A float64 vector of ``size`` entries (None: ``fill``, or an error without one)."""
    if v is None:
        if fill is None:
            raise ValueError(f"{name} is required")
        return np.full(size, fill)
    from . import _arrays
    a = _arrays.to_host(v, name, np.float64).reshape(-1)
    if a.shape[0] != size:
        raise ValueError(f"Incorrect dimension of {name}: {a.shape[0]} entries, expected {size}")
    return np.ascontiguousarray(a)
