"""Matrices in the CSC form the C API takes (int32 pointers and indices, float64 values)."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
import scipy.sparse as spa

Csc = Tuple[np.ndarray, np.ndarray, np.ndarray]


def _check_sparse(M: Any, name: str) -> None:
    """Refuse a malformed SciPy sparse matrix (indices out of range, pointers not
    increasing, arrays of the wrong lengths: SciPy's own conversions would read or write
    past its arrays) and non-real values, naming ``name``."""
    if np.dtype(M.dtype).kind not in "biuf":
        raise TypeError(f"{name}: dtype {M.dtype} is not supported (real values)")
    try:
        if M.format in ("csr", "csc"):  # SciPy's full check, in a few NumPy calls
            major, minor = (M.shape[1], M.shape[0]) if M.format == "csc" else M.shape
            p, i = M.indptr, M.indices
            if p.ndim != 1 or i.ndim != 1 or M.data.ndim != 1 or len(p) != major + 1:
                raise ValueError("indptr, indices or data has the wrong shape")
            if p[0] != 0 or p[-1] > min(len(i), len(M.data)) or (major and np.diff(p).min() < 0):
                raise ValueError("indptr does not run from 0 up to the number of entries")
            if p[-1] and (i[:p[-1]].min() < 0 or i[:p[-1]].max() >= minor):
                raise ValueError(f"an index outside 0..{minor - 1}")
        elif M.format == "bsr":
            M.check_format(full_check=True)
        elif M.format == "coo":
            coords = tuple(getattr(M, "coords", (M.row, M.col)))
            if len(coords) != 2 or any(len(c) != len(M.data) for c in coords):
                raise ValueError("row, col and data differ in length")
            for c, dim, what in zip(coords, M.shape, ("row", "column")):
                if len(c) and (int(c.min()) < 0 or int(c.max()) >= dim):
                    raise ValueError(f"a {what} index outside 0..{dim - 1}")
    except ValueError as e:
        raise ValueError(f"{name}: malformed sparse matrix ({e})") from None


def rows(M: Any, name: str) -> int:
    """The number of rows of a matrix argument (0 for None), refusing what is not 2-D."""
    if M is None:
        return 0
    if not spa.issparse(M) and not (hasattr(M, "shape") and hasattr(M, "dtype")):
        from . import _arrays
        M = _arrays.to_host(M, name)
    shape = tuple(M.shape)
    if len(shape) != 2:
        raise ValueError(f"{name}: expected a 2-D matrix, got shape {shape}")
    return int(shape[0])


def to_csc(M: Any, shape: Tuple[int, int], name: str, *, upper: bool = False,
           dense_ok: bool = True) -> spa.csc_matrix:
    """A SciPy CSC matrix of ``shape`` from M (SciPy sparse, dense array-like, or None for an
    empty one); ``upper``: its upper triangle (entries below the diagonal dropped, as OSQP
    does for P). Indices sorted, duplicates summed; explicit zeros kept (they hold a place
    in the pattern that updates of the values refer to). Malformed sparse matrices, complex
    values and arrays that are not 2-D are refused, naming ``name``."""
    if M is None:
        return spa.csc_matrix(shape, dtype=np.float64)
    if spa.issparse(M):
        _check_sparse(M, name)
        C = M.tocsc() if M.format != "csc" else M
    else:
        if not dense_ok:
            raise TypeError(f"{name} is required to be a sparse matrix")
        from . import _arrays
        D = _arrays.to_host(M, name, np.float64)
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


def vector(v: Any, size: Optional[int], name: str, fill: Optional[float] = None) -> np.ndarray:
    """A float64 vector of ``size`` entries (any number for size None); v None: ``fill``,
    or an error without one."""
    if v is None:
        if fill is None or size is None:
            raise ValueError(f"{name} is required")
        return np.full(size, fill)
    from . import _arrays
    a = _arrays.to_host(v, name, np.float64).reshape(-1)
    if size is not None and a.shape[0] != size:
        raise ValueError(f"Incorrect dimension of {name}: {a.shape[0]} entries, expected {size}")
    return np.ascontiguousarray(a)


def union_pattern(mask: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The CSC pattern of the True entries of a 2-D boolean mask (the union of a batch's
    nonzeros): indptr and indices (int32), and per entry its row and column (int64, in CSC
    order: by column, then row), for gathering the values from dense arrays."""
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2:
        raise ValueError(f"mask: expected a 2-D array, got shape {mask.shape}")
    cols, rows = np.nonzero(mask.T)  # row-major over the transpose: column by column
    if rows.size > np.iinfo(np.int32).max:
        raise ValueError(f"{rows.size} entries do not fit gala's 32-bit indices")
    indptr = np.zeros(mask.shape[1] + 1, dtype=np.int32)
    np.cumsum(np.bincount(cols, minlength=mask.shape[1]), out=indptr[1:])
    return indptr, rows.astype(np.int32), rows.astype(np.int64), cols.astype(np.int64)
