"""OSQP 1.x's Python interface on gala: ``import gala.osqp as osqp`` and a program written
for the ``osqp`` module runs on gala's solver (the same ADMM algorithm, settings, defaults
and statuses), on the device gala picks.

What differs, and how (docs/python.md has the list):
- gala's own keyword arguments, to ``OSQP(...)`` or ``setup(...)``: ``context``, ``backend``,
  ``platform``, ``device`` (the device, as gala.Context takes them) and ``dtype``
  (np.float64 by default, np.float32 for speed on GPUs); and gala's settings
  (``gala.qp_settings_table()``).
- ``algebra``: "builtin" and "mkl" run on the host backend, "cuda" on the CUDA backend;
  without it, gala's default device.
- ``linsys_solver``: OSQP's ints keep their meaning (1: direct, gala's automatic choice among
  its direct strategies; 2: indirect, gala's PCG); gala's strategy names are accepted too.
- Settings that gala cannot honour raise a clear error instead of being ignored: changing a
  setting fixed at setup in ``update_settings`` (OSQP ignores it), ``cg_precond=0`` (gala's
  PCG is always preconditioned), ``adaptive_rho=3`` (KKT-error mode), ``allocate_solution=0``.
- Invalid data raise ``OSQPException(OSQP_DATA_VALIDATION_ERROR)``: l > u at setup and
  update (OSQP raises at setup; at update it prints an error and keeps the previous data,
  and gala keeps them too), and NaN in q, l, u, P or A (which OSQP accepts, to return NaN
  or garbage). ``update`` to a non-convex P raises ``OSQPException(OSQP_NONCVX_ERROR)``
  (OSQP prints an error and goes on) and the next solve reports ``OSQP_NON_CVX`` until P
  is convex again.
- Results of a solve without a solution (infeasible, non-convex): x and y are NaN (OSQP
  1.x fills them with its OSQP_NAN, which its builtin algebra makes 2143289344.0); the
  certificate that does not apply is NaN (OSQP leaves it uninitialized).
- ``settings`` is a snapshot in OSQP's terms (``linsys_solver`` 1 direct or 2 indirect,
  ``check_dualgap`` 0 or 1, ``verbose``, ``cg_precond``, ...) plus gala's own settings;
  change settings with ``update_settings`` (after which it shows the new ρ too).
- ``update`` never changes the caller's P or A (OSQP's ``update(Px=...)`` writes the new
  values into the matrix given to ``setup``).
- ``info.status`` is that of the solve just run. OSQP 1.x resets the status only at setup
  and at updates of the data, so a solve between them that ends at max_iter reports the
  previous solve's status ("solved", "primal infeasible", ...) instead of "solved
  inaccurate" or "maximum iterations reached". ``rho_updates`` counts since setup or the
  last update of the data, as OSQP's.
- ``verbose`` prints gala's short summary, not OSQP's iteration log; ``info.primdual_int`` is
  NaN (gala does not integrate the duality gap). Code generation is not available
  (NotImplementedError).
- ``adjoint_derivative_compute`` with dy ≠ 0 gives the mathematically correct gradients,
  where OSQP 1.1.3's have the wrong sign for the dy of rows with y < 0 (at their lower
  bound, equality rows with y < 0; see its docstring); NaN in dx / dy and a singular adjoint system raise ValueError.
"""
from __future__ import annotations

import operator
import time
import warnings
from enum import IntEnum
from types import SimpleNamespace
from typing import Any, Optional

import numpy as np
import scipy.sparse as spa

from . import _csc, _ext, _settings
from ._context import Context, default_context

__all__ = ["OSQP", "OSQPException", "SolverStatus", "SolverError", "constant",
           "algebra_available", "algebras_available", "default_algebra"]

OSQP_INFTY = 1e30

SolverStatus = IntEnum("SolverStatus", [
    ("OSQP_SOLVED", 1), ("OSQP_SOLVED_INACCURATE", 2), ("OSQP_PRIMAL_INFEASIBLE", 3),
    ("OSQP_PRIMAL_INFEASIBLE_INACCURATE", 4), ("OSQP_DUAL_INFEASIBLE", 5),
    ("OSQP_DUAL_INFEASIBLE_INACCURATE", 6), ("OSQP_MAX_ITER_REACHED", 7),
    ("OSQP_TIME_LIMIT_REACHED", 8), ("OSQP_NON_CVX", 9), ("OSQP_SIGINT", 10),
    ("OSQP_UNSOLVED", 11)])

SolverError = IntEnum("SolverError", [
    ("OSQP_NO_ERROR", 0), ("OSQP_DATA_VALIDATION_ERROR", 1),
    ("OSQP_SETTINGS_VALIDATION_ERROR", 2), ("OSQP_LINSYS_SOLVER_INIT_ERROR", 3),
    ("OSQP_NONCVX_ERROR", 4), ("OSQP_MEM_ALLOC_ERROR", 5), ("OSQP_WORKSPACE_NOT_INIT_ERROR", 6),
    ("OSQP_ALGEBRA_LOAD_ERROR", 7), ("OSQP_CODEGEN_DEFINES_ERROR", 9),
    ("OSQP_DATA_NOT_INITIALIZED", 10), ("OSQP_FUNC_NOT_IMPLEMENTED", 11)])

# what OSQP's constant() knows: the builtin extension's module constants (status values
# among them, with a PendingDeprecationWarning as OSQP), OSQP_NAN; not the error codes nor
# the capabilities (use SolverError and has_capability). gala's interface takes doubles and
# 32-bit indices: OSQP_USE_FLOAT = OSQP_USE_LONG = 0, as OSQP's builtin wheels.
_CONSTANTS = {
    "OSQP_INFTY": OSQP_INFTY, "OSQP_NAN": float("nan"),
    "OSQP_DIRECT_SOLVER": 1, "OSQP_INDIRECT_SOLVER": 2,
    "OSQP_NO_PRECONDITIONER": 0, "OSQP_DIAGONAL_PRECONDITIONER": 1,
    "OSQP_USE_FLOAT": 0, "OSQP_USE_LONG": 0,
    **{s.name: int(s) for s in SolverStatus},
}

_CAPABILITIES = {"OSQP_CAPABILITY_DIRECT_SOLVER": 1, "OSQP_CAPABILITY_INDIRECT_SOLVER": 2,
                 "OSQP_CAPABILITY_CODEGEN": 4, "OSQP_CAPABILITY_UPDATE_MATRICES": 8,
                 "OSQP_CAPABILITY_DERIVATIVES": 16}

# OSQP's settings that gala's table lacks: name -> (default, what gala does with a value)
_OSQP_ONLY = {"verbose": 1, "cg_precond": 1, "device": 0, "allocate_solution": 1,
              "profiler_level": 0}

# gala's keyword arguments that choose the device, not settings of the solver
_DEVICE_KW = ("context", "backend", "platform", "device")


def constant(which: str, algebra: str = "builtin") -> Any:
    """A named constant of OSQP's module (``OSQP_INFTY``, ``OSQP_SOLVED``, ...); status
    values warn as OSQP's do (use :class:`SolverStatus`)."""
    if which in SolverStatus.__members__:
        warnings.warn("Direct access to osqp status values will be deprecated. Please use the "
                      "SolverStatus enum instead.", PendingDeprecationWarning, stacklevel=2)
    if which in _CONSTANTS:
        return _CONSTANTS[which]
    raise RuntimeError(f"Unknown constant {which}")


_ALGEBRAS = ("cuda", "mkl", "builtin")  # OSQP's, highest priority first


class _UnknownAlgebra(ValueError, AssertionError):
    """An algebra OSQP does not have (OSQP asserts; a ValueError here as well)."""


def _check_algebra(algebra: str) -> None:
    if algebra not in _ALGEBRAS:
        raise _UnknownAlgebra(f"Unknown algebra {algebra}")


def algebras_available() -> list:
    """OSQP's algebras that gala can stand in for, in OSQP's order: cuda where a CUDA
    device is there, mkl and builtin (both on gala's host backend)."""
    out = ["mkl", "builtin"]
    if _ext.backend_available("cuda") and any(d["backend"] == "cuda" for d in _ext.device_list()):
        out.insert(0, "cuda")
    return out


def algebra_available(algebra: str) -> bool:
    _check_algebra(algebra)
    return algebra in algebras_available()


def default_algebra() -> str:
    return "builtin"


class OSQPException(ValueError):
    """Raised where OSQP raises it, with OSQP's error code as ``args[0]`` (a
    :class:`SolverError`) and gala's message after it. Unlike OSQP's (an Exception), it is
    also a ValueError: most codes are bad data or settings."""

    def __init__(self, error_code: Optional[int] = None, message: str = ""):
        if error_code is not None:
            self.args = (error_code, message) if message else (error_code,)
        self.message = message

    def __eq__(self, error_code: object) -> bool:
        return len(self.args) > 0 and self.args[0] == error_code

    __hash__ = Exception.__hash__

    def __str__(self) -> str:
        if not self.args:
            return ""
        name = SolverError(self.args[0]).name if self.args[0] in SolverError._value2member_map_ else self.args[0]
        return f"{name}: {self.message}" if self.message else str(name)


class _OSQPCsc(spa.csc_matrix):
    """A SciPy CSC matrix that also reads as OSQP's extension type ``CSC``: ``m``, ``n``,
    ``nzmax``, ``nz`` (-1: compressed columns), ``x``, ``i``, ``p``."""

    @property
    def m(self) -> int:
        return int(self.shape[0])

    @property
    def n(self) -> int:
        return int(self.shape[1])

    @property
    def nzmax(self) -> int:
        return int(self.nnz)

    @property
    def nz(self) -> int:
        return -1

    @property
    def x(self) -> np.ndarray:
        return self.data

    @property
    def i(self) -> np.ndarray:
        return self.indices

    @property
    def p(self) -> np.ndarray:
        return self.indptr


def _int_arg(v: Any, name: str) -> int:
    """An integer-valued argument (int, bool, NumPy integer, integral float), named when not."""
    try:
        return operator.index(v)
    except TypeError:
        pass
    f = _float_arg(v, name)
    if not f.is_integer():
        raise TypeError(f"{name}: expected an integer, got {v!r}")
    return int(f)


def _float_arg(v: Any, name: str) -> float:
    """A real scalar argument, named when it is not one."""
    if isinstance(v, (str, bytes, complex)) or v is None or np.iscomplexobj(v) or np.ndim(v) != 0:
        raise TypeError(f"{name}: expected a real number, got {v!r}")
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a real number, got {v!r}") from None


def _context_from(kwargs: dict, algebra: Optional[str]) -> Optional[Context]:
    ctx = kwargs.pop("context", None)
    sel = {k: kwargs.pop(k) for k in ("backend", "platform", "device") if k in kwargs}
    if ctx is not None and sel:
        raise ValueError(f"give either context or {', '.join(sel)}, not both")
    if ctx is not None:
        return ctx
    if algebra is not None and "backend" not in sel:
        _check_algebra(algebra)
        sel["backend"] = "cuda" if algebra == "cuda" else "host"
    if not sel:
        return None
    if "device" in sel and sel["device"] is not None:
        sel["device"] = str(sel["device"])
    return Context(**sel, use_environment=False)


class OSQP:
    """OSQP's solver object, on gala. See the module's doc for what differs."""

    def __init__(self, *args: Any, **kwargs: Any):
        self.m: Optional[int] = None
        self.n: Optional[int] = None
        self.algebra = kwargs.pop("algebra", None)
        self._ctx = _context_from(kwargs, self.algebra)
        self._dtype = kwargs.pop("dtype", np.float64)
        if kwargs or args:
            raise ValueError(f"Unrecognized arguments {list(kwargs) or list(args)}")
        if self.algebra is None:
            self.algebra = "builtin"
        self._solver = None
        self._last_status: Optional[int] = None
        self._settings: Optional[_ext.QPSettings] = None  # gala's, as the solver runs with
        self._extra = dict(_OSQP_ONLY)
        self._solved_once = False
        self._setup_time = 0.0

    def __str__(self) -> str:
        if self._solver is None:
            return f"Uninitialized OSQP with algebra={self.algebra} (gala)"
        return f"OSQP with algebra={self.algebra} ({self.solver_type}) on gala"

    @property
    def context(self) -> Context:
        """The gala context the solver runs on (from ``context``, ``backend``, ``algebra``,
        or the thread's default context)."""
        return self._ctx if self._ctx is not None else default_context()

    # ------------------------------------------------------------------ capabilities
    @property
    def capabilities(self) -> int:
        return (_CAPABILITIES["OSQP_CAPABILITY_DIRECT_SOLVER"] |
                _CAPABILITIES["OSQP_CAPABILITY_INDIRECT_SOLVER"] |
                _CAPABILITIES["OSQP_CAPABILITY_UPDATE_MATRICES"] |
                _CAPABILITIES["OSQP_CAPABILITY_DERIVATIVES"])

    def has_capability(self, capability: str) -> bool:
        try:
            cap = _CAPABILITIES[capability]
        except KeyError:
            raise RuntimeError(f"Unrecognized capability {capability}") from None
        return (self.capabilities & cap) != 0

    @property
    def settings(self) -> Optional[SimpleNamespace]:
        """The settings in OSQP's terms (None before setup): every setting of OSQP's
        OSQPSettings with OSQP's values (``linsys_solver``: 1 direct, 2 indirect;
        ``check_dualgap``: 0 or 1, gala's automatic choice resolved as it runs), then gala's
        own settings (``dtype`` as a NumPy dtype, ...). A snapshot: change settings with
        :meth:`update_settings`."""
        if self._settings is None:
            return None
        if self._solver is not None:  # warm_start() turns warm_starting on, as OSQP's
            self._settings = self._solver.get_settings()
        raw = _settings.as_dict(self._settings)
        out = dict(raw)
        out["linsys_solver"] = 2 if raw["linsys_solver"] == int(_ext.QPLinsys.PCG) else 1
        if raw["check_dualgap"] < 0:  # auto: on in double, off in float (OSQP's builds)
            out["check_dualgap"] = 1 if raw["dtype"] == 2 else 0
        out["dtype"] = _settings.numpy_dtype(raw["dtype"])
        out.update(self._extra)
        return SimpleNamespace(**out)

    @property
    def solver_type(self) -> str:
        return "indirect" if self._settings is not None and \
            self._settings.linsys_solver == int(_ext.QPLinsys.PCG) else "direct"

    @property
    def cg_preconditioner(self) -> str:
        return "diagonal"

    def constant(self, which: str) -> Any:
        return constant(which)

    # ------------------------------------------------------------------ settings
    def _translate(self, kwargs: dict, at_setup: bool) -> dict:
        """OSQP's keyword arguments as gala's table names; OSQP's own extras kept aside."""
        for old, new in (("polish", "polishing"), ("warm_start", "warm_starting")):
            if old in kwargs:
                warnings.warn(f'"{old}" is deprecated. Please use "{new}" instead.', DeprecationWarning)
                kwargs[new] = kwargs.pop(old)
        out = {}
        if "solver_type" in kwargs:
            v = kwargs.pop("solver_type")
            if v not in ("direct", "indirect"):
                raise ValueError(f"solver_type: {v!r} is not 'direct' or 'indirect'")
            kwargs["linsys_solver"] = 1 if v == "direct" else 2
        if "cg_preconditioner" in kwargs:
            v = kwargs.pop("cg_preconditioner")
            if v not in (None, "diagonal"):
                raise ValueError(f"cg_preconditioner: {v!r} is not None or 'diagonal'")
            kwargs["cg_precond"] = 1 if v == "diagonal" else 0
        if "linsys_solver" in kwargs:
            v = kwargs.pop("linsys_solver")
            if isinstance(v, str):
                out["linsys_solver"] = v  # gala's strategy names
            elif _int_arg(v, "linsys_solver") == 1:
                out["linsys_solver"] = int(_ext.QPLinsys.AUTO)
            elif _int_arg(v, "linsys_solver") == 2:
                out["linsys_solver"] = int(_ext.QPLinsys.PCG)
            else:
                raise ValueError(f"linsys_solver: {v} is not OSQP_DIRECT_SOLVER (1) or "
                                 "OSQP_INDIRECT_SOLVER (2)")
        for name in list(kwargs):
            if name in _OSQP_ONLY:
                v = _int_arg(kwargs.pop(name), name)
                if name == "cg_precond" and v != 1:
                    raise ValueError("cg_precond: gala's PCG always uses the diagonal (Jacobi) "
                                     "preconditioner (OSQP_DIAGONAL_PRECONDITIONER)")
                if name == "allocate_solution" and v != 1:
                    raise ValueError("allocate_solution = 0 is not supported: gala always "
                                     "returns the solution")
                self._extra[name] = v
        if "dtype" in kwargs and at_setup:  # after setup: a setting fixed at setup, checked as such
            self._dtype = kwargs.pop("dtype")
        unknown = [k for k in kwargs if k not in _settings.TABLE]
        if unknown:
            raise ValueError(f"Unrecognized settings {unknown}")
        out.update(kwargs)
        return out

    def update_settings(self, **kwargs: Any) -> None:
        """Change settings, as OSQP's; ``rho`` goes through update_rho (clamped to [1e-6,
        1e6]). A setting fixed at setup (scaling, sigma, the adaptive-ρ fields, the linear
        system, gala's dtype, ...) raises OSQPException(OSQP_SETTINGS_VALIDATION_ERROR) where
        OSQP ignores it; so does a value out of range, as in OSQP."""
        if self._settings is None:
            raise OSQPException(SolverError.OSQP_WORKSPACE_NOT_INIT_ERROR, "call setup first")
        rho = kwargs.pop("rho", None)
        values = self._translate(kwargs, at_setup=False)
        if self._solver is not None and rho is not None:
            self._solver.update_rho(-1, _float_arg(rho, "rho"))
            self._settings = self._solver.get_settings()
        if not values:
            return
        new = self._solver.get_settings() if self._solver is not None else self._settings
        try:
            _settings.apply(new, values)
            if self._solver is not None:
                self._solver.update_settings(new)
        except ValueError as e:
            if str(e).startswith("Unrecognized"):
                raise
            raise OSQPException(SolverError.OSQP_SETTINGS_VALIDATION_ERROR, str(e)) from None
        self._settings = new

    # ------------------------------------------------------------------ setup
    def setup(self, P: Any, q: Any, A: Any, l: Any, u: Any, **settings: Any) -> None:
        """Set up the QP (OSQP's argument rules: P and A sparse, P's upper triangle used,
        missing l / u unbounded, bounds clipped to ±OSQP_INFTY)."""
        t0 = time.perf_counter()
        kw = dict(settings)
        if any(k in kw for k in _DEVICE_KW):
            self._ctx = _context_from(kw, None)
        for name, M in (("P", P), ("A", A)):
            if M is not None and not spa.issparse(M):
                raise TypeError(f"{name} is required to be a sparse matrix")
        if P is None:
            if q is not None:
                n = int(_csc.vector(q, None, "q").shape[0])
            elif A is not None:
                n = int(A.shape[1])
            else:
                raise ValueError("The problem does not have any variables")
        else:
            n = int(P.shape[0])
        m = 0 if A is None else int(A.shape[0])
        if A is None and (l is not None or u is not None):
            raise ValueError("l, u: if A is unspecified, leave l/u unspecified too")
        if A is not None and l is None and u is None:
            raise ValueError("l, u: if A is specified, specify at least one of l/u")
        # copies: update() changes their values, never the caller's matrices
        Pc = _csc.to_csc(P, (n, n), "P", upper=True, dense_ok=False).copy()
        Ac = _csc.to_csc(A, (m, n), "A", dense_ok=False).copy()
        qv = _csc.vector(q, n, "q", 0.0)
        lv = np.maximum(_csc.vector(l, m, "l", -np.inf), -OSQP_INFTY)
        uv = np.minimum(_csc.vector(u, m, "u", np.inf), OSQP_INFTY)
        self.m, self.n = m, n
        self._extra = dict(_OSQP_ONLY)
        wanted = _ext.QPSettings()
        rho = kw.get("rho")
        values = self._translate(kw, at_setup=True)
        values.setdefault("dtype", self._dtype)
        try:
            _settings.apply(wanted, values)
            if rho is not None:  # OSQP clamps ρ to [1e-6, 1e6] (osqp_update_rho)
                r = _float_arg(rho, "rho")
                wanted.rho = r if np.isnan(r) else min(max(r, 1e-6), 1e6)
        except ValueError as e:
            if str(e).startswith("Unrecognized"):
                raise
            raise OSQPException(SolverError.OSQP_SETTINGS_VALIDATION_ERROR, str(e)) from None
        self._check_data(qv, lv, uv, Pc, Ac)
        ctx = self._ctx = self.context  # pinned: the solver lives there
        items = [(n, m, *_csc.arrays(Pc, "P"), qv, *_csc.arrays(Ac, "A"), lv, uv, 0.0)]
        # set up with polishing on, so that update_settings(polishing=True) works later as in
        # OSQP (gala keeps the host copies polishing needs only then), then the user's value
        polish = wanted.polishing
        wanted.polishing = 1
        self._solver = None
        self._settings = None
        solver = _ext.QPSolver.setup(ctx, items, wanted)
        if not polish:
            wanted.polishing = 0
            solver.update_settings(wanted)
        status, message = solver.info(0)[0], solver.info(0)[-1]
        if status == int(_ext.QPStatus.INVALID_DATA):
            raise OSQPException(SolverError.OSQP_DATA_VALIDATION_ERROR, message)
        if status == int(_ext.QPStatus.NON_CVX):
            raise OSQPException(SolverError.OSQP_NONCVX_ERROR, "the problem seems to be non-convex "
                                "(P + sigma*I + A'*rho*A is not positive definite)")
        self._solver = solver
        self._settings = solver.get_settings()
        self._P, self._A = Pc, Ac
        self._q, self._l, self._u = qv, lv, uv
        self._setup_time = time.perf_counter() - t0
        self._solved_once = False
        self._last_status: Optional[int] = None  # of the last solve since setup or update
        self._rho_updates = 0  # since setup or the last data update, as OSQP counts them
        self._update_time = 0.0
        self._clear_update_time = False

    @staticmethod
    def _check_data(q: np.ndarray, l: np.ndarray, u: np.ndarray, P=None, A=None) -> None:
        """OSQP's data validation, so that bad data raise before touching the solver."""
        def bad(msg: str):
            raise OSQPException(SolverError.OSQP_DATA_VALIDATION_ERROR, msg)
        if not np.all(np.isfinite(q)):
            bad(f"q[{int(np.flatnonzero(~np.isfinite(q))[0])}] is not finite")
        if np.any(np.isnan(l)) or np.any(np.isnan(u)):
            bad("l or u holds NaN")
        wrong = np.flatnonzero(l > u)
        if wrong.size:
            i = int(wrong[0])
            bad(f"Lower bound at index {i} is greater than upper bound: {l[i]:.4e} > {u[i]:.4e} "
                f"(l[{i}] > u[{i}])")
        for name, M in (("P", P), ("A", A)):
            if M is not None and M.nnz and not np.all(np.isfinite(M.data)):
                bad(f"{name} holds NaN or Inf")

    # ------------------------------------------------------------------ updates
    def update(self, **kwargs: Any) -> None:
        """New q, l, u and/or values of P and A (``Px``, ``Px_idx``, ``Ax``, ``Ax_idx``), as
        OSQP's update; bounds are clipped to ±OSQP_INFTY."""
        if self._solver is None:
            raise OSQPException(SolverError.OSQP_WORKSPACE_NOT_INIT_ERROR, "call setup first")
        t0 = time.perf_counter()
        allowed = {"q", "l", "u", "Px", "Px_idx", "Ax", "Ax_idx"}
        extra = set(kwargs) - allowed
        if extra:
            raise ValueError(f"Unrecognized arguments {sorted(extra)}")
        q, l, u = kwargs.get("q"), kwargs.get("l"), kwargs.get("u")
        nq = self._q if q is None else _csc.vector(q, self.n, "q")
        nl = self._l if l is None else np.maximum(_csc.vector(l, self.m, "l"), -OSQP_INFTY)
        nu = self._u if u is None else np.minimum(_csc.vector(u, self.m, "u"), OSQP_INFTY)
        Px = self._values(self._P, kwargs.get("Px"), kwargs.get("Px_idx"), "Px")
        Ax = self._values(self._A, kwargs.get("Ax"), kwargs.get("Ax_idx"), "Ax")
        self._check_data(nq, nl, nu)
        for name, v in (("Px", Px), ("Ax", Ax)):
            if v is not None and not np.all(np.isfinite(v)):
                raise OSQPException(SolverError.OSQP_DATA_VALIDATION_ERROR, f"{name} holds NaN or Inf")
        if self._clear_update_time:  # OSQP's update_time: the updates since the last solve
            self._update_time, self._clear_update_time = 0.0, False
        if q is not None or l is not None or u is not None:
            self._solver.update_vectors(-1, nq if q is not None else None,
                                        nl if l is not None else None, nu if u is not None else None)
            self._q, self._l, self._u = nq, nl, nu
        if Px is not None or Ax is not None:
            self._solver.update_matrices(-1, Px, Ax)
            if Px is not None:
                self._P.data = Px.copy()
            if Ax is not None:
                self._A.data = Ax.copy()
        if any(v is not None for v in (q, l, u, Px, Ax)):
            self._rho_updates = 0  # OSQP's update_data_* reset the info
            self._last_status = None  # no derivatives of data not solved yet (as OSQP)
        self._update_time += time.perf_counter() - t0
        if Px is not None or Ax is not None:
            if self._solver.info(0)[0] == int(_ext.QPStatus.NON_CVX):
                raise OSQPException(SolverError.OSQP_NONCVX_ERROR, "Px, Ax: the updated problem seems to be non-convex")

    @staticmethod
    def _values(M: spa.csc_matrix, x: Any, idx: Any, name: str) -> Optional[np.ndarray]:
        """All values of M after OSQP's update (x at indices idx of M.data, or all of them)."""
        if x is None:
            if idx is not None:
                raise ValueError(f"{name}_idx given without {name}")
            return None
        from . import _arrays
        xv = _arrays.to_host(x, name, np.float64).reshape(-1)
        vals = np.array(M.data, dtype=np.float64)
        if idx is None:
            if xv.shape[0] != vals.shape[0]:
                raise ValueError(f"{name}: {xv.shape[0]} values, expected {vals.shape[0]}")
            return np.ascontiguousarray(xv)
        iv = _arrays.to_host(idx, f"{name}_idx").reshape(-1)
        if iv.size and iv.dtype.kind not in "iu":
            raise TypeError(f"{name}_idx: expected integer indices, got dtype {iv.dtype}")
        if iv.shape[0] != xv.shape[0]:
            raise ValueError(f"{name}_idx has {iv.shape[0]} entries, {name} {xv.shape[0]}")
        if iv.size and (iv.min() < 0 or iv.max() >= vals.shape[0]):
            raise ValueError(f"{name}_idx: indices outside 0..{vals.shape[0] - 1}")
        vals[iv] = xv
        return vals

    def warm_start(self, x: Any = None, y: Any = None) -> None:
        """Start the next solve from x and/or y (OSQP's warm start: z = A x)."""
        if self._solver is None:
            raise OSQPException(SolverError.OSQP_WORKSPACE_NOT_INIT_ERROR, "call setup first")
        self._solver.warm_start(-1, None if x is None else _csc.vector(x, self.n, "x"),
                                None if y is None else _csc.vector(y, self.m, "y"))

    def cold_start(self) -> None:
        """Set x, z, y to zero."""
        if self._solver is None:
            raise OSQPException(SolverError.OSQP_WORKSPACE_NOT_INIT_ERROR, "call setup first")
        self._solver.cold_start()

    # ------------------------------------------------------------------ solve
    def solve(self, raise_error: Optional[bool] = None) -> SimpleNamespace:
        """Solve, and return OSQP's result object: x, y, prim_inf_cert, dual_inf_cert and info
        (status, status_val, iter, obj_val, prim_res, dual_res, ... as OSQP's OSQPInfo)."""
        if self._solver is None:
            raise OSQPException(SolverError.OSQP_WORKSPACE_NOT_INIT_ERROR, "call setup first")
        if raise_error is None:
            warnings.warn("The default value of raise_error will change to True in the future.",
                          PendingDeprecationWarning, stacklevel=2)
            raise_error = False
        if self._clear_update_time:
            self._update_time = 0.0
        x, y, pc, dc, (st, it, rho_updates, status_polish, obj_val, dual_obj_val, prim_res,
                       dual_res, gap, rho_estimate, _rho, _setup, solve_time, _update,
                       polish_time, _msg) = self._solver.solve_one(0)
        run_time = (self._setup_time if not self._solved_once else self._update_time) + \
            solve_time + polish_time
        self._solved_once = True
        self._last_status = int(st)
        self._clear_update_time = True
        self._rho_updates += int(rho_updates)
        info = SimpleNamespace(
            status=_ext.qp_status_string(st), status_val=st, status_polish=status_polish,
            obj_val=obj_val, dual_obj_val=dual_obj_val, prim_res=prim_res, dual_res=dual_res,
            duality_gap=gap, iter=it, rho_updates=self._rho_updates, rho_estimate=rho_estimate,
            setup_time=self._setup_time, solve_time=solve_time, update_time=self._update_time,
            polish_time=polish_time, run_time=run_time, primdual_int=float("nan"),
            rel_kkt_error=max(dual_res, prim_res, gap))
        if st == int(SolverStatus.OSQP_NON_CVX):
            info.obj_val = np.nan
        if self._extra.get("verbose"):
            print(f"gala {_ext.version} ({self._where()}): {info.status}, {info.iter} iterations, "
                  f"objective {info.obj_val:.4e}, prim_res {prim_res:.2e}, dual_res {dual_res:.2e}, "
                  f"{1e3 * run_time:.3g} ms")
        if raise_error and st != int(SolverStatus.OSQP_SOLVED):
            raise OSQPException(st)
        return SimpleNamespace(x=x, y=y, prim_inf_cert=pc, dual_inf_cert=dc, info=info)

    def _where(self) -> str:
        i = self.context.info
        return f"{i['backend']}: {i['name']}"

    # ------------------------------------------------------------------ derivatives
    def _deriv_ready(self) -> None:
        """OSQP's preconditions of the derivative calls: a solve since setup or the last
        update, that ended SOLVED (ValueError otherwise, as OSQP)."""
        if self._solver is None or self._last_status is None:
            raise ValueError("no solution to differentiate: call solve() first (after setup "
                             "or update)")
        if self._last_status != int(SolverStatus.OSQP_SOLVED):
            raise ValueError(f"the last solve ended {_ext.qp_status_string(self._last_status)!r}, "
                             "not 'solved': only a solved problem has derivatives")

    def adjoint_derivative_compute(self, dx: Any = None, dy: Any = None) -> None:
        """OSQP's adjoint derivative at the last solution: given dL/dx (n) and dL/dy (m) of a
        scalar loss L (None: zero), compute dL/dq, dL/dl, dL/du, dL/dP, dL/dA
        (:meth:`adjoint_derivative_get_vec`, :meth:`adjoint_derivative_get_mat`).

        Raises ValueError, as OSQP, when there is no solve since setup or the last
        :meth:`update`, or when it did not end ``solved``.

        Where gala differs from OSQP 1.1.3:

        - **dy ≠ 0.** gala's gradients are those of the mathematics (they match finite
          differences of ``dxᵀx + dyᵀy``). OSQP 1.1.3 passes dL/dy to every multiplier of
          its split problem with one sign and signs an equality row's by sign(y): the part
          of its gradients that comes from the dy of a row with y < 0 (at its lower bound,
          or an equality row with y < 0) has the wrong sign (osqp-python disables its own
          test of this case, issue 156). With dy = 0 on those rows (e.g. dy = 0) both
          agree.
        - dx or dy holding NaN or Inf, and an adjoint system without a solution (e.g.
          linearly dependent equality rows given different dy), raise ValueError with the
          reason; OSQP returns NaN or garbage.
        """
        self._deriv_ready()
        dxv = None if dx is None else _csc.vector(dx, self.n, "dx")
        dyv = None if dy is None else _csc.vector(dy, self.m, "dy")
        self._solver.adjoint_derivative_compute(dxv, dyv)
        st = int(self._solver.adjoint_derivative_status()[0])
        if st == int(_ext.QPDerivStatus.NOT_FINITE):
            raise ValueError("dx or dy holds NaN or Inf (or a gradient came out non-finite)")
        if st == int(_ext.QPDerivStatus.SINGULAR):
            raise ValueError("the adjoint system has no solution at this point (e.g. linearly "
                             "dependent equality rows with different dy)")
        if st != int(_ext.QPDerivStatus.OK):
            raise ValueError(f"no derivative (gala_qp_deriv_status {st})")

    def adjoint_derivative_get_mat(self, as_dense: bool = True, dP_as_triu: bool = True):
        """(dP, dA) of the last :meth:`adjoint_derivative_compute`, as OSQP's: dP in P's
        upper-triangular pattern (the full symmetric matrix with ``dP_as_triu=False``), dA
        in A's pattern; NumPy arrays with ``as_dense=True``, else CSC matrices. ``dP[i,j]``
        is dL/dP(i,j) of the symmetric P (a stored off-diagonal value of P stands for both
        P(i,j) and P(j,i), so the derivative with respect to that number is 2·dP[i,j]).

        What differs from OSQP: the sparse results are SciPy ``csc_matrix`` objects that
        also have OSQP's ``CSC`` attributes (``m``, ``n``, ``nzmax``, ``nz``, ``x``, ``i``,
        ``p``), not OSQP's extension type; before any compute since the last solve this
        raises gala.InvalidArgumentError (a ValueError) where OSQP returns stale values."""
        self._deriv_ready()
        P, A = self._P, self._A
        dPx, dAx = np.empty(P.nnz), np.empty(A.nnz)
        self._solver.adjoint_derivative_get_mat(dPx, dAx)
        dP = spa.csc_matrix((dPx, P.indices.copy(), P.indptr.copy()), shape=P.shape)
        dA = spa.csc_matrix((dAx, A.indices.copy(), A.indptr.copy()), shape=A.shape)
        if not dP_as_triu:
            dP = (dP + spa.triu(dP, k=1, format="csc").T).tocsc()
        if as_dense:
            return dP.toarray(), dA.toarray()
        return _OSQPCsc(dP), _OSQPCsc(dA)

    def adjoint_derivative_get_vec(self):
        """(dq, dl, du) of the last :meth:`adjoint_derivative_compute`, float64 arrays of n,
        m and m entries, as OSQP's. An equality row's (l = u) gradient is in du when its y ≥ 0
        and in dl when y < 0, the other 0 (OSQP's convention); an infinite bound's is 0.
        Before any compute since the last solve this raises gala.InvalidArgumentError (a
        ValueError) where OSQP returns stale values."""
        self._deriv_ready()
        dq, dl, du = np.empty(self.n), np.empty(self.m), np.empty(self.m)
        self._solver.adjoint_derivative_get_vec(dq, dl, du)
        return dq, dl, du

    # ------------------------------------------------------------------ not available
    def codegen(self, *args: Any, **kwargs: Any):
        raise NotImplementedError("gala.osqp: code generation is OSQP's (embedded C); gala has none")
