"""QPs from files and generators: :func:`read_qps` (gala's QPS/MPS reader) and
:func:`generate` (OSQP's benchmark families), as SciPy/NumPy data ready for
``gala.osqp``, :class:`gala.QPBatch` or any other solver."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np
import scipy.sparse as spa

from . import _ext

__all__ = ["QPProblem", "read_qps", "generate", "FAMILIES"]


@dataclass
class QPProblem:
    """minimize ½xᵀPx + qᵀx + c0 subject to l ≤ Ax ≤ u.

    P: n×n SciPy CSC matrix, upper triangle; A: m×n CSC; q, l, u: float64 vectors (±inf where
    a bound is missing); c0: constant of the objective. ``info``: what the QPS reader found
    (``rows``: the constraint rows, the first rows of A, followed by ``bound_rows`` identity
    rows for variable bounds; ``objective_sense`` -1 for OBJSENSE MAX, the file's objective
    then being the negated one; warnings), empty for generated problems.
    """

    name: str
    P: spa.csc_matrix
    q: np.ndarray
    A: spa.csc_matrix
    l: np.ndarray
    u: np.ndarray
    c0: float = 0.0
    info: dict = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return int(self.P.shape[0])

    @property
    def m(self) -> int:
        return int(self.A.shape[0])

    def objective(self, x: np.ndarray) -> float:
        """½xᵀPx + qᵀx + c0 (P's upper triangle taken as the symmetric matrix)."""
        x = np.asarray(x, dtype=np.float64)
        Px = self.P @ x + self.P.T @ x - self.P.diagonal() * x
        return float(0.5 * x @ Px + self.q @ x + self.c0)


def _problem(d: dict, info: Optional[dict] = None) -> QPProblem:
    n, m = int(d["n"]), int(d["m"])
    P = spa.csc_matrix((d["P_data"], d["P_indices"], d["P_indptr"]), shape=(n, n))
    A = spa.csc_matrix((d["A_data"], d["A_indices"], d["A_indptr"]), shape=(m, n))
    return QPProblem(name=d["name"], P=P, q=d["q"], A=A, l=d["l"], u=d["u"], c0=float(d["c0"]),
                     info=dict(info or {}))


def read_qps(path: Union[str, os.PathLike], *, all_bound_rows: bool = False,
             strict: bool = False) -> QPProblem:
    """Read a QPS or MPS file (fixed or free format; the Maros–Meszaros set's format) with
    gala's reader (gala_qp_read_qps_ex; docs/qps.md has the conventions).

    A holds the constraint rows in file order, then one identity row per variable with a
    finite bound (``all_bound_rows``: per variable, free ones included, as OSQP's
    Maros–Meszaros .mat files). ``strict``: what would be a warning is an error.
    Raises GalaIOError (cannot read) or ParseError (the message names file, line, column).
    """
    flags = (_ext.QPS_ALL_BOUND_ROWS if all_bound_rows else 0) | (_ext.QPS_STRICT if strict else 0)
    d, info = _ext.read_qps(os.fspath(path), flags)
    return _problem(d, info)


#: family names of :func:`generate` (and their aliases, as gala-qp takes them)
FAMILIES = {
    "random": _ext.QPFamily.RANDOM, "eq": _ext.QPFamily.EQUALITY,
    "equality": _ext.QPFamily.EQUALITY, "control": _ext.QPFamily.CONTROL,
    "mpc": _ext.QPFamily.CONTROL, "portfolio": _ext.QPFamily.PORTFOLIO,
    "lasso": _ext.QPFamily.LASSO, "huber": _ext.QPFamily.HUBER, "svm": _ext.QPFamily.SVM,
    "double_integrator": _ext.QPFamily.DOUBLE_INTEGRATOR,
}


def generate(family: str, n: int, seed: int = 0) -> QPProblem:
    """One QP of OSQP's benchmark families (gala_qp_generate): "random" (n variables,
    10n inequalities), "eq" (equality-constrained, n/2 rows), "control" (MPC: 16n
    variables), "portfolio" (n factors, 100n assets), "lasso", "huber", "svm" (n features,
    100n data points), "double_integrator" (horizon n). Seeded and deterministic;
    statistically equivalent to osqp_benchmarks' generators, not bit-identical."""
    key = str(family).lower().replace("-", "_")
    if key not in FAMILIES:
        raise ValueError(f"family: {family!r} is not one of {', '.join(FAMILIES)}")
    if int(seed) < 0:
        raise ValueError(f"seed: {seed} is negative")
    return _problem(_ext.qp_generate(int(FAMILIES[key]), int(n), int(seed)))
