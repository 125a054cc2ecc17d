"""gala as a solver of the `qpsolvers <https://github.com/qpsolvers/qpsolvers>`__ package.

``import gala.qpsolvers`` registers ``"gala"`` in qpsolvers' solver tables, after which::

    import qpsolvers
    import gala.qpsolvers  # noqa: F401  (registers "gala")

    x = qpsolvers.solve_qp(P, q, G, h, A, b, lb, ub, solver="gala", eps_abs=1e-7)

solves the QP

.. math::

    \\min_x \\tfrac12 x^T P x + q^T x \\quad \\text{s.t.} \\quad G x \\le h,\\; A x = b,\\;
    lb \\le x \\le ub

with gala's OSQP solver (:class:`gala.osqp.OSQP`), on gala's default device unless told
otherwise. The problem is given to it as qpsolvers' own OSQP adapter gives it to OSQP: one
constraint matrix stacking the rows of G (``-inf <= G x <= h``), then A (``b <= A x <= b``),
then the identity when there are bounds (``lb <= x <= ub``); the dual of that stack is split
back into ``z``, ``y`` and ``z_box``.

Keyword arguments are OSQP's settings (``eps_abs``, ``eps_rel``, ``max_iter``,
``polishing``, ``time_limit``, ...), gala's settings (``gala.qp_settings_table()``) and
gala's device arguments: ``context`` (a :class:`gala.Context`), or ``backend`` /
``platform`` / ``device`` as :class:`gala.Context` takes them, and ``dtype`` (np.float64 by
default, np.float32 for speed on GPUs). ``raise_error=True`` raises
:class:`gala.osqp.OSQPException` when the status is not "solved", as OSQP's ``solve`` does.

Dense (NumPy) and sparse (SciPy) matrices are both accepted, without qpsolvers'
``SparseConversionWarning``: gala takes either. qpsolvers is optional: ``import gala`` does
not import it, and this module raises ImportError without it (``pip install qpsolvers``).
"""
from __future__ import annotations

import time
import warnings
from typing import Any, Optional, Union

import numpy as np
import scipy.sparse as spa

try:
    import qpsolvers as _qps
    from qpsolvers import Problem, Solution
    from qpsolvers.exceptions import ProblemError
except ImportError as _e:  # pragma: no cover - exercised by a test that hides qpsolvers
    raise ImportError(
        "gala.qpsolvers needs the qpsolvers package, which is not installed: "
        "pip install qpsolvers (or pip install gala-linalg[qpsolvers])") from _e

from . import osqp as _osqp
from ._errors import InvalidArgumentError

__all__ = ["gala_solve_problem", "gala_solve_qp", "GalaProblemError", "register"]

#: gala's keyword arguments that go to the OSQP object (device and precision), not to setup
_OBJECT_KW = ("context", "backend", "platform", "device", "dtype", "algebra")


class GalaProblemError(ProblemError, InvalidArgumentError):
    """The problem cannot be solved as given: invalid data (NaN, lb > ub, ...) or a clearly
    non-convex P. Both a ``qpsolvers.ProblemError`` and a ``ValueError`` (qpsolvers' solvers
    raise either for these); the ``gala.osqp.OSQPException`` is its ``__cause__``."""


def _csc(M: Any) -> Optional[spa.csc_matrix]:
    """M as a float64 CSC matrix (None stays None)."""
    if M is None:
        return None
    if spa.issparse(M):
        return spa.csc_matrix(M, dtype=np.float64)
    return spa.csc_matrix(np.atleast_2d(np.asarray(M, dtype=np.float64)))


def _vec(v: Any) -> Optional[np.ndarray]:
    return None if v is None else np.asarray(v, dtype=np.float64).reshape(-1)


def gala_solve_problem(
    problem: Problem,
    initvals: Optional[np.ndarray] = None,
    verbose: bool = False,
    **kwargs: Any,
) -> Solution:
    """Solve a quadratic program using gala's OSQP solver.

    Parameters
    ----------
    problem :
        Quadratic program to solve.
    initvals :
        Warm-start guess vector for the primal solution.
    verbose :
        Set to ``True`` to print gala's one-line summary of the solve.

    Returns
    -------
    :
        Solution returned by the solver: ``x``, the duals ``y`` (equalities), ``z``
        (inequalities) and ``z_box`` (bounds), ``obj``, and in ``extras`` OSQP's ``info``,
        ``prim_inf_cert`` and ``dual_inf_cert``. When the status is not "solved"
        (infeasible, maximum iterations, solved inaccurately, ...), ``found`` is False,
        a warning names the status, and ``x``, ``y``, ``z``, ``z_box`` and ``obj`` are None.

    Raises
    ------
    GalaProblemError
        (a ``qpsolvers.ProblemError`` and a ``ValueError``) if the data are invalid (NaN,
        ``lb > ub``) or P is clearly non-convex.
    ValueError
        For an unknown setting or a setting out of its range.

    Notes
    -----
    Keyword arguments are OSQP's settings (``eps_abs``, ``eps_rel``, ``eps_prim_inf``,
    ``eps_dual_inf``, ``max_iter``, ``time_limit``, ``polishing``, ``rho``, ``sigma``,
    ``scaling``, ...), gala's settings (``gala.qp_settings_table()``), ``raise_error``
    (given to ``solve``), and gala's device arguments ``context``, ``backend``,
    ``platform``, ``device`` and ``dtype`` (see :mod:`gala.osqp`). For instance
    ``solve_problem(problem, solver="gala", eps_abs=1e-8, eps_rel=1e-8,
    context=gala.Context(backend="host"))``.
    """
    build_start_time = time.perf_counter()
    P, q, G, h, A, b, lb, ub = problem.unpack()
    q = _vec(q)
    n = q.shape[0]
    P = _csc(P)
    G = _csc(G) if G is not None and h is not None else None
    A = _csc(A) if A is not None and b is not None else None

    blocks, lows, ups = [], [], []
    if G is not None:
        h = _vec(h)
        blocks.append(G)
        lows.append(np.full(h.shape, -np.inf))
        ups.append(h)
    if A is not None:
        b = _vec(b)
        blocks.append(A)
        lows.append(b)
        ups.append(b)
    has_box = lb is not None or ub is not None
    if has_box:
        blocks.append(spa.eye(n, format="csc"))
        lows.append(np.full(n, -np.inf) if lb is None else _vec(lb))
        ups.append(np.full(n, np.inf) if ub is None else _vec(ub))
    if blocks:
        C = blocks[0] if len(blocks) == 1 else spa.vstack(blocks, format="csc")
        l, u = np.concatenate(lows), np.concatenate(ups)
    else:
        C = l = u = None

    object_kw = {k: kwargs.pop(k) for k in _OBJECT_KW if k in kwargs}
    solve_kw = {"raise_error": kwargs.pop("raise_error", False)}
    kwargs["verbose"] = verbose
    solver = _osqp.OSQP(**object_kw)
    try:
        solver.setup(P=P, q=q, A=C, l=l, u=u, **kwargs)
    except _osqp.OSQPException as e:
        if e.args and e.args[0] in (_osqp.SolverError.OSQP_DATA_VALIDATION_ERROR,
                                    _osqp.SolverError.OSQP_NONCVX_ERROR):
            raise GalaProblemError(f"gala: {e}") from e
        raise
    if initvals is not None:
        solver.warm_start(x=initvals)

    solve_start_time = time.perf_counter()
    res = solver.solve(**solve_kw)
    solve_end_time = time.perf_counter()
    if res.info.status_val == _osqp.SolverStatus.OSQP_NON_CVX:
        # found at setup by both since gala.osqp raises there; kept for a K that fails later
        raise GalaProblemError("gala: the problem seems to be non-convex (status "
                               f"'{res.info.status}'; P + sigma*I + A'*rho*A is not "
                               "positive definite)")

    solution = Solution(problem)
    solution.extras = {
        "info": res.info,
        "dual_inf_cert": res.dual_inf_cert,
        "prim_inf_cert": res.prim_inf_cert,
    }
    solution.found = res.info.status_val == _osqp.SolverStatus.OSQP_SOLVED
    if solution.found:
        m = G.shape[0] if G is not None else 0
        meq = A.shape[0] if A is not None else 0
        solution.x = res.x
        solution.obj = float(res.info.obj_val)
        solution.z = res.y[:m] if G is not None else np.empty((0,))
        solution.y = res.y[m:m + meq] if A is not None else np.empty((0,))
        solution.z_box = res.y[m + meq:] if has_box else np.empty((0,))
    else:
        warnings.warn(f"gala exited with status '{res.info.status}'")
    solution.build_time = solve_start_time - build_start_time
    solution.solve_time = solve_end_time - solve_start_time
    return solution


def gala_solve_qp(
    P: Union[np.ndarray, spa.csc_matrix],
    q: np.ndarray,
    G: Optional[Union[np.ndarray, spa.csc_matrix]] = None,
    h: Optional[np.ndarray] = None,
    A: Optional[Union[np.ndarray, spa.csc_matrix]] = None,
    b: Optional[np.ndarray] = None,
    lb: Optional[np.ndarray] = None,
    ub: Optional[np.ndarray] = None,
    initvals: Optional[np.ndarray] = None,
    verbose: bool = False,
    **kwargs: Any,
) -> Optional[np.ndarray]:
    r"""Solve a quadratic program using gala's OSQP solver.

    The quadratic program is defined as:

    .. math::

        \begin{split}\begin{array}{ll}
            \underset{x}{\mbox{minimize}} &
                \frac{1}{2} x^T P x + q^T x \\
            \mbox{subject to}
                & G x \leq h                \\
                & A x = b                   \\
                & lb \leq x \leq ub
        \end{array}\end{split}

    Parameters
    ----------
    P :
        Symmetric cost matrix (its upper triangle is used), dense or sparse.
    q :
        Cost vector.
    G :
        Linear inequality constraint matrix.
    h :
        Linear inequality constraint vector.
    A :
        Linear equality constraint matrix.
    b :
        Linear equality constraint vector.
    lb :
        Lower bound constraint vector.
    ub :
        Upper bound constraint vector.
    initvals :
        Warm-start guess vector for the primal solution.
    verbose :
        Set to ``True`` to print gala's one-line summary of the solve.

    Returns
    -------
    :
        Solution to the QP, if found, otherwise ``None``.

    Notes
    -----
    Keyword arguments are as for :func:`gala_solve_problem`: OSQP's and gala's settings
    and gala's device arguments, e.g. ``gala_solve_qp(P, q, G, h, eps_abs=1e-8,
    eps_rel=1e-8, backend="host")``.
    """
    problem = Problem(P, q, G, h, A, b, lb, ub)
    problem.check_constraints()
    solution = gala_solve_problem(problem, initvals, verbose, **kwargs)
    return solution.x if solution.found else None


def register() -> None:
    """Add "gala" to qpsolvers' tables (``available_solvers``, ``dense_solvers``,
    ``sparse_solvers``, ``solve_function``); importing this module does it, and doing it
    again changes nothing."""
    solvers = _qps.solvers
    solvers.solve_function["gala"] = gala_solve_problem
    for table in (solvers.available_solvers, solvers.dense_solvers, solvers.sparse_solvers):
        if "gala" not in table:
            table.append("gala")


register()
