"""Batches of QPs solved together on one device (gala_qp_setup / gala_qp_solve).

    minimize ½ xᵀPx + qᵀx   subject to   l ≤ Ax ≤ u

A batch is made either from one P and A shared by every QP with stacked vectors (q: k×n,
l and u: k×m) — the MPC and parametric case, where gala's shared strategy runs one matrix
product per iteration for a tile of QPs — or from a list of QPs of any sizes and sparsity.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
import scipy.sparse as spa

from . import _arrays, _csc, _ext, _settings
from ._context import default_context
from ._context import devices as _devices
from .problems import QPProblem

__all__ = ["QPBatch", "QPBatchResult", "QPDerivative", "QPStatus", "QPDerivStatus"]

QPStatus = _ext.QPStatus
QPDerivStatus = _ext.QPDerivStatus
Array = Any


@dataclass
class QPBatchResult:
    """The results of :meth:`QPBatch.solve`.

    x, y: the primal and dual solutions — (k, n) and (k, m) arrays for a batch of one size,
    lists of arrays otherwise; NaN where a QP's status has no solution (infeasible,
    non-convex, invalid data), as OSQP. status, iter, obj_val, prim_res, dual_res: one entry
    per QP (status: :class:`QPStatus` values, OSQP's numbers). info: every field of
    gala_qp_info per QP (arrays), with ``message`` (why a QP's data are invalid).
    """

    x: Union[np.ndarray, List[np.ndarray], Array]
    y: Union[np.ndarray, List[np.ndarray], Array]
    status: np.ndarray
    iter: np.ndarray
    obj_val: np.ndarray
    prim_res: np.ndarray
    dual_res: np.ndarray
    info: dict = field(repr=False)

    @property
    def status_string(self) -> List[str]:
        """OSQP's name of each status ("solved", "primal infeasible", ...)."""
        return [_ext.qp_status_string(int(s)) for s in self.status]

    @property
    def solved(self) -> np.ndarray:
        """Which QPs are solved (status SOLVED)."""
        return self.status == int(QPStatus.SOLVED)


@dataclass
class QPDerivative:
    """The results of :meth:`QPBatch.adjoint_derivative`: the gradients of a scalar loss L
    with respect to every QP's data, given dL/dx and dL/dy (docs/derivatives.md).

    dq, dl, du: in the layout of :attr:`QPBatchResult.x` and ``y`` — (k, n) and (k, m)
    arrays for a batch of one size, lists of arrays otherwise. dP, dA: the derivatives with
    respect to the values of each QP's P (upper triangle) and A in their CSC order (as given
    at setup, and as :meth:`QPBatch.update` takes ``Px``, ``Ax``): a (k, nnz) array for a
    batch made with one P and A or with one pattern (:meth:`QPBatch.from_dense`), a list of
    arrays otherwise. ``dP[i,j]`` is dL/dP(i,j) of
    the symmetric matrix P, as OSQP gives it: a stored off-diagonal value stands for both
    P(i,j) and P(j,i), so the derivative with respect to that stored number is twice it.
    dP_sum, dA_sum: for a batch made with one P and A (``QPBatch(P, q, A, ...)``), the
    gradients of that shared P and A (the sum over the QPs); None otherwise.
    status: per QP a :class:`QPDerivStatus` value; a QP whose status is not OK has NaN in
    every gradient (so do the sums). With ``matrices=False`` dP, dA and the sums are None.
    """

    dq: Union[np.ndarray, List[np.ndarray]]
    dl: Union[np.ndarray, List[np.ndarray]]
    du: Union[np.ndarray, List[np.ndarray]]
    dP: Optional[Union[np.ndarray, List[np.ndarray]]]
    dA: Optional[Union[np.ndarray, List[np.ndarray]]]
    status: np.ndarray
    dP_sum: Optional[np.ndarray] = None
    dA_sum: Optional[np.ndarray] = None

    @property
    def ok(self) -> np.ndarray:
        """Which QPs have gradients (status OK)."""
        return self.status == int(QPDerivStatus.OK)


def _real(v: Any, name: str) -> float:
    """A real scalar argument as a float, refusing strings, None, sequences and complex."""
    if isinstance(v, (str, bytes)) or v is None or isinstance(v, complex) or \
            np.iscomplexobj(v) or np.ndim(v) != 0:
        raise TypeError(f"{name}: expected a real number, got {type(v).__name__}")
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a real number, got {type(v).__name__}") from None


def _pattern_rows_cols(C: spa.csc_matrix) -> Tuple[np.ndarray, np.ndarray]:
    """The row and column of every entry of a CSC matrix, in its order."""
    cols = np.repeat(np.arange(C.shape[1]), np.diff(C.indptr))
    return C.indices.astype(np.int64), cols


def _device_contexts(devices: Any, base: _ext.Context) -> List[_ext.Context]:
    """devices= as contexts: "all", or a list of indices among base's backend's devices
    (gala.devices() order) and of contexts; an index repeated is another context on that
    device."""
    backend, is_gpu = base.info["backend"], base.info["is_gpu"]
    mine = [d for d in _devices() if d.backend == backend]

    def make(d: Any) -> _ext.Context:
        return _ext.Context(backend=backend,
                            platform=str(d.platform_index) if backend == "opencl" else None,
                            device=None if backend == "host" else str(d.device_index),
                            use_environment=False)

    if isinstance(devices, str):
        if devices != "all":
            raise ValueError(f"devices: expected 'all' or a list of device indices or contexts, "
                             f"got '{devices}'")
        out = [make(d) for d in mine if d.is_gpu == is_gpu]
        if not out:
            raise ValueError(f"devices='all': no {backend} device")
        return out
    try:
        items = list(devices)
    except TypeError:
        raise TypeError(f"devices: expected 'all' or a list of device indices or contexts, got "
                        f"{type(devices).__name__}") from None
    if not items:
        raise ValueError("devices: the list is empty")
    out = []
    for i, d in enumerate(items):
        if isinstance(d, _ext.Context):
            out.append(d)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool):
            if not 0 <= int(d) < len(mine):
                raise ValueError(f"devices[{i}] = {int(d)}: outside 0..{len(mine) - 1} "
                                 f"({backend} devices)")
            out.append(make(mine[int(d)]))
        else:
            raise TypeError(f"devices[{i}]: expected a device index or a gala.Context, got "
                            f"{type(d).__name__}")
    return out


class QPBatch:
    """A batch of QPs set up on one device, solved together.

    ``QPBatch(P, q, A, l, u, **settings)``: one P (n×n; its upper triangle is used) and A
    (m×n) for every QP, SciPy sparse or dense; q of shape (k, n) (or (n,) for one QP), l
    and u of shape (k, m) (None: unbounded). ``QPBatch.from_problems([(P, q, A, l, u), ...])``:
    QPs of their own sizes and sparsity.

    Settings are gala_qp_settings' fields by name (OSQP's names and defaults:
    ``eps_abs=1e-5``, ``max_iter=...``; gala's: ``dtype=np.float32``,
    ``linsys_solver="dense-shared"``, ...), see :func:`gala.qp_settings_table`. ``context``
    picks the device (default: :func:`gala.default_context`).

    ``devices`` sets the batch up on several devices at once (gala_qp_setup_devices): "all"
    (every device of the context's backend and kind, GPU or not), or a list of indices among
    that backend's devices (:func:`gala.devices`, in order) or of :class:`gala.Context`
    objects. The batch is divided by work (Σ n² of each device's QPs, in proportion to
    ``weights``: one positive number per device, default equal), the devices solve their
    shares concurrently, and every result comes back in the batch's order, equal bit for bit
    to one device's of the same backend and precision. :attr:`device_shares` tells which
    device has which QPs. Device arrays are not taken then.

    q, l, u may be host arrays or, on a CUDA context, device arrays (PyTorch, CuPy): see
    :meth:`update` and :meth:`solve`.
    """

    def __init__(self, P: Any, q: Array, A: Any = None, l: Array = None, u: Array = None, *,
                 c0: float = 0.0, context: Optional[_ext.Context] = None,
                 devices: Any = None, weights: Optional[Sequence[float]] = None,
                 **settings: Any):
        named = [(v, name) for v, name in ((q, "q"), (l, "l"), (u, "u")) if _arrays.is_device(v)]
        dev = [v for v, _ in named]
        if dev and devices is not None:
            raise ValueError(f"{', '.join(name for _, name in named)}: device arrays, and the batch "
                             "is set up on several devices (devices=): give host arrays")
        if dev:  # their device's CUDA context, or a given one that is on it (checked by name)
            context, _ = _arrays.context_for(dev, context, [name for _, name in named])
        q_h = _arrays.to_numpy(q, "q", np.float64)
        if q_h.ndim == 1:
            q_h = q_h[None, :]
        if q_h.ndim != 2:
            raise ValueError(f"q: expected shape (k, n), got {q_h.shape}")
        k, n = q_h.shape
        if k < 1 or n < 1:
            raise ValueError(f"q: expected shape (k, n) with k, n >= 1, got {q_h.shape}")
        m = _csc.rows(A, "A")
        c0 = _real(c0, "c0")
        Pc = _csc.to_csc(P, (n, n), "P", upper=True)
        Ac = _csc.to_csc(A, (m, n), "A")
        l_h = self._bounds(l, k, m, "l", -np.inf)
        u_h = self._bounds(u, k, m, "u", np.inf)
        self._init(context, settings, devices, weights)
        Pp, Pi, Px = _csc.arrays(Pc, "P")
        Ap, Ai, Ax = _csc.arrays(Ac, "A")
        self._solver = _ext.QPSolver.setup_shared(self.context, n, m, Pp, Pi, Px, Ap, Ai, Ax,
                                                  np.ascontiguousarray(q_h), l_h, u_h, c0,
                                                  self._cset, self.devices or [],
                                                  self._weights)
        self._uniform = (n, m)
        self._mats = [(Pc, Ac)]
        self._rejected = None
        self._device_ref = dev[0] if dev else None

    @classmethod
    def from_problems(cls, problems: Iterable[Any], *, context: Optional[_ext.Context] = None,
                      devices: Any = None, weights: Optional[Sequence[float]] = None,
                      **settings: Any) -> "QPBatch":
        """A batch of QPs of any sizes: each a tuple (P, q, A, l, u) or (P, q, A, l, u, c0),
        a dict with those keys (missing ones: no A, unbounded l and u, c0 = 0), or a
        :class:`gala.QPProblem` (:func:`gala.read_qps`, :func:`gala.generate`). ``devices``,
        ``weights``: as for :class:`QPBatch`."""
        self = cls.__new__(cls)
        self._init(context, settings, devices, weights)
        items, mats = [], []
        try:
            problems = iter(problems)
        except TypeError:
            raise TypeError(f"problems: expected an iterable of QPs, got {type(problems).__name__}") from None
        for k, pb in enumerate(problems):
            if isinstance(pb, QPProblem):
                P, q, A, l, u, c0 = pb.P, pb.q, pb.A, pb.l, pb.u, pb.c0
            elif isinstance(pb, dict):
                extra = sorted(set(map(str, pb)) - {"P", "q", "A", "l", "u", "c0"})
                if extra:
                    raise ValueError(f"problems[{k}]: unknown keys {extra} (P, q, A, l, u, c0)")
                P, q, A, l, u, c0 = (pb.get(key) for key in ("P", "q", "A", "l", "u", "c0"))
            else:
                try:
                    pb = tuple(pb)
                except TypeError:
                    raise TypeError(f"problems[{k}]: expected (P, q, A, l, u[, c0]) or a dict, "
                                    f"got {type(pb).__name__}") from None
                if len(pb) not in (5, 6):
                    raise ValueError(f"problems[{k}]: expected (P, q, A, l, u[, c0])")
                P, q, A, l, u = pb[:5]
                c0 = pb[5] if len(pb) == 6 else 0.0
            q_h = _arrays.to_host(q, f"problems[{k}].q", np.float64)
            if q_h.ndim != 1 or q_h.shape[0] < 1:
                raise ValueError(f"problems[{k}].q: expected shape (n,) with n >= 1, got {q_h.shape}")
            n = q_h.shape[0]
            m = _csc.rows(A, f"problems[{k}].A")
            Pc = _csc.to_csc(P, (n, n), f"problems[{k}].P", upper=True)
            Ac = _csc.to_csc(A, (m, n), f"problems[{k}].A")
            lv = _csc.vector(l, m, f"problems[{k}].l", -np.inf)
            uv = _csc.vector(u, m, f"problems[{k}].u", np.inf)
            items.append((n, m, *_csc.arrays(Pc, "P"), np.ascontiguousarray(q_h),
                          *_csc.arrays(Ac, "A"), lv, uv, _real(0.0 if c0 is None else c0,
                                                               f"problems[{k}].c0")))
            mats.append((Pc, Ac))
        if not items:
            raise ValueError("problems: the batch is empty")
        self._solver = _ext.QPSolver.setup(self.context, items, self._cset, self.devices or [],
                                           self._weights)
        # QPs rejected at setup (invalid data) hold no matrix values: gala_qp_update_matrices
        # takes the values of the others only
        rejected = self._solver.infos()["status_val"] == int(_ext.QPStatus.INVALID_DATA)
        self._rejected = [bool(r) for r in rejected]
        sizes = {(it[0], it[1]) for it in items}
        self._uniform = sizes.pop() if len(sizes) == 1 else None
        self._mats = mats
        self._device_ref = None
        return self

    @classmethod
    def from_dense(cls, P: Array, q: Array, A: Array = None, l: Array = None, u: Array = None, *,
                   c0: float = 0.0, context: Optional[_ext.Context] = None,
                   devices: Any = None, weights: Optional[Sequence[float]] = None,
                   **settings: Any) -> "QPBatch":
        """A batch of QPs of one size from dense arrays, converted in one step: P of shape
        (k, n, n) (its upper triangle is used, as for :class:`QPBatch`) or (n, n) for every
        QP, q (k, n), A (k, m, n) or (m, n), l and u (k, m) or (m,) for every QP (None:
        unbounded). The QPs share one sparsity pattern, the union of their nonzeros: an
        entry that is zero in every QP is left out, one that is nonzero in some QP is stored
        for all (zero where it is zero). With P and A both 2-D this is ``QPBatch(P, q, A,
        l, u)`` (the shared strategy). :attr:`dense_pattern` gives the rows and columns of
        the stored values (where :meth:`adjoint_derivative`'s dP and dA belong)."""
        Pd = _arrays.to_host(P, "P", np.float64)
        if Pd.ndim not in (2, 3) or Pd.shape[-1] != Pd.shape[-2] or Pd.shape[-1] < 1:
            raise ValueError(f"P: expected shape (k, n, n) or (n, n), got {Pd.shape}")
        n = int(Pd.shape[-1])
        if A is None:
            Ad = np.zeros((0, n))
        else:
            Ad = _arrays.to_host(A, "A", np.float64)
        if Ad.ndim not in (2, 3) or Ad.shape[-1] != n:
            raise ValueError(f"A: expected shape (k, m, {n}) or (m, {n}), got {Ad.shape}")
        m = int(Ad.shape[-2])
        qd = _arrays.to_host(q, "q", np.float64)
        if qd.ndim not in (1, 2) or qd.shape[-1] != n:
            raise ValueError(f"q: expected shape (k, {n}) or ({n},), got {qd.shape}")
        ks = {int(a.shape[0]) for a, d in ((Pd, 3), (Ad, 3), (qd, 2)) if a.ndim == d}
        bounds = []
        for v, name, fill in ((l, "l", -np.inf), (u, "u", np.inf)):
            b = np.full((m,), fill) if v is None else _arrays.to_host(v, name, np.float64)
            if b.ndim not in (1, 2) or b.shape[-1] != m:
                raise ValueError(f"{name}: expected shape (k, {m}) or ({m},), got {b.shape}")
            if b.ndim == 2:
                ks.add(int(b.shape[0]))
            bounds.append(b)
        if len(ks) > 1:
            raise ValueError(f"P, q, A, l, u disagree on the batch size: {sorted(ks)}")
        k = ks.pop() if ks else 1
        if Pd.ndim == 2 and Ad.ndim == 2:  # one P and A: the shared strategy
            q2 = np.broadcast_to(qd, (k, n))
            l2, u2 = (np.broadcast_to(b, (k, m)) for b in bounds)
            self = cls(spa.csc_matrix(Pd), np.ascontiguousarray(q2), spa.csc_matrix(Ad),
                       np.ascontiguousarray(l2), np.ascontiguousarray(u2), c0=c0,
                       context=context, devices=devices, weights=weights, **settings)
            Pc, Ac = self._mats[0]
            self._dense_index = (*_pattern_rows_cols(Pc), *_pattern_rows_cols(Ac))
            return self
        P3 = Pd.reshape(-1, n, n)
        A3 = Ad.reshape(-1, m, n)
        pp, pi, prow, pcol = _csc.union_pattern(np.triu(np.any(P3 != 0, axis=0)))
        ap, ai, arow, acol = _csc.union_pattern(np.any(A3 != 0, axis=0))
        return cls._from_stacked(n, m, (pp, pi), P3[:, prow, pcol], qd, (ap, ai),
                                 A3[:, arow, acol], bounds[0], bounds[1], c0=c0,
                                 context=context, devices=devices, weights=weights,
                                 dense_index=(prow, pcol, arow, acol), **settings)

    @classmethod
    def _from_stacked(cls, n: int, m: int, Ppat: Tuple[np.ndarray, np.ndarray], Px: np.ndarray,
                      q: np.ndarray, Apat: Tuple[np.ndarray, np.ndarray], Ax: np.ndarray,
                      l: np.ndarray, u: np.ndarray, *, c0: float = 0.0,
                      context: Optional[_ext.Context] = None, devices: Any = None,
                      weights: Optional[Sequence[float]] = None,
                      dense_index: Optional[tuple] = None, **settings: Any) -> "QPBatch":
        """One CSC pattern of P (upper) and A (int32 indptr, indices) and the values of each
        QP in it: Px (k, nnz(P)) or (1, nnz(P)) for all, Ax likewise; q (k, n) or (n,), l,
        u (k, m) or (m,) (or (1, ·): shared too). One setup call, no per-QP conversion."""
        Px = np.asarray(Px, dtype=np.float64)
        Ax = np.asarray(Ax, dtype=np.float64)
        ks = {int(a.shape[0]) for a in (Px, Ax) if a.ndim == 2 and a.shape[0] != 1}
        ks |= {int(np.shape(a)[0]) for a in (q, l, u) if np.ndim(a) == 2 and np.shape(a)[0] != 1}
        if len(ks) > 1:
            raise ValueError(f"the batched inputs disagree on the batch size: {sorted(ks)}")
        k = ks.pop() if ks else 1
        self = cls.__new__(cls)
        self._init(context, settings, devices, weights)
        q2, l2, u2 = (np.ascontiguousarray(np.broadcast_to(v, (k, s)), dtype=np.float64)
                      for v, s in ((q, n), (l, m), (u, m)))
        Pv = np.ascontiguousarray(Px.reshape(-1) if Px.shape[0] != 1 else Px[0])
        Av = np.ascontiguousarray(Ax.reshape(-1) if Ax.shape[0] != 1 else Ax[0])
        Pp, Pi = (np.ascontiguousarray(a, dtype=np.int32) for a in Ppat)
        Ap, Ai = (np.ascontiguousarray(a, dtype=np.int32) for a in Apat)
        self._solver = _ext.QPSolver.setup_stacked(self.context, n, m, Pp, Pi, Pv, Ap, Ai, Av,
                                                   q2, l2, u2, _real(c0, "c0"), self._cset,
                                                   self.devices or [], self._weights)
        rejected = self._solver.infos()["status_val"] == int(_ext.QPStatus.INVALID_DATA)
        self._rejected = [bool(r) for r in rejected]
        self._uniform = (n, m)
        pat = (spa.csc_matrix((np.zeros(len(Pi)), Pi, Pp), shape=(n, n)),
               spa.csc_matrix((np.zeros(len(Ai)), Ai, Ap), shape=(m, n)))
        self._mats = [pat] * k
        self._device_ref = None
        self._dense_index = dense_index
        return self

    @property
    def dense_pattern(self) -> Optional[Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """For a batch of one P and A pattern (:meth:`from_dense`, or ``QPBatch(P, q, A,
        ...)``): (P_rows, P_cols, A_rows, A_cols), the row and column of every stored value
        of P (upper triangle) and of A in CSC order — where the values of :meth:`update`'s
        Px, Ax and :meth:`adjoint_derivative`'s dP, dA belong in the dense matrices. None
        for a batch from :meth:`from_problems`."""
        idx = getattr(self, "_dense_index", None)
        if idx is None and len(self._mats) == 1:
            Pc, Ac = self._mats[0]
            idx = self._dense_index = (*_pattern_rows_cols(Pc), *_pattern_rows_cols(Ac))
        return idx

    # ------------------------------------------------------------------ helpers
    def _accepted_only(self, v: Optional[np.ndarray], per_qp: Sequence[int]) -> Optional[np.ndarray]:
        """The stacked values ``v`` (every QP's ``per_qp`` entries) without those of the QPs
        rejected at setup, as gala_qp_update_matrices takes them."""
        if v is None:
            return None
        offsets = np.concatenate(([0], np.cumsum(per_qp)))
        parts = [v[offsets[j]:offsets[j + 1]] for j, r in enumerate(self._rejected) if not r]
        return np.ascontiguousarray(np.concatenate(parts) if parts else np.zeros(0))

    def _init(self, context: Optional[_ext.Context], settings: dict, devices: Any = None,
              weights: Optional[Sequence[float]] = None) -> None:
        self.context = context if context is not None else default_context()
        if not isinstance(self.context, _ext.Context):
            raise TypeError("context: expected a gala.Context")
        self.devices = _device_contexts(devices, self.context) if devices is not None else None
        if weights is not None and devices is None:
            raise ValueError("weights: only with devices=")
        self._weights = [] if weights is None else [_real(w, f"weights[{i}]")
                                                    for i, w in enumerate(weights)]
        if self.devices:
            self.context = self.devices[0]  # its messages, and the batch's first share
        self._cset = _settings.make(settings)
        self._inflight: list = []  # wrapped device arrays gala may still read

    @property
    def device_shares(self) -> List[range]:
        """The QPs of each device the batch is set up on (one range for one device)."""
        out = []
        for d in range(self._solver.device_count):
            k0, count, _ = self._solver.device_share(d)
            out.append(range(k0, k0 + count))
        return out

    @staticmethod
    def _bounds(v: Array, k: int, m: int, name: str, fill: float) -> np.ndarray:
        if v is None:
            return np.full((k, m), fill)
        a = _arrays.to_numpy(v, name, np.float64)
        if a.ndim == 1 and k == 1:
            a = a[None, :]
        if a.shape != (k, m):
            raise ValueError(f"{name}: expected shape ({k}, {m}), got {a.shape}")
        return np.ascontiguousarray(a)

    def _stacked(self, v: Array, name: str, per_qp: Sequence[int], k: Optional[int]) -> np.ndarray:
        """A host vector argument in the C layout: every QP's entries one after another
        (k=None), or QP k's. Accepted shapes: QP k's (per,); for all QPs the flat (total,),
        (count, per) when every QP has ``per`` entries, or a list of each QP's vectors."""
        count = len(per_qp)
        if k is not None:
            a = _arrays.to_host(v, name, np.float64)
            if a.shape != (int(per_qp[k]),):
                raise ValueError(f"{name}: shape {a.shape}, expected ({int(per_qp[k])},) for QP {k}")
            return np.ascontiguousarray(a)
        total = int(sum(per_qp))
        if isinstance(v, (list, tuple)) and len(set(per_qp)) > 1 and \
                any(np.ndim(w) > 0 for w in v):
            if len(v) != count:
                raise ValueError(f"{name}: {len(v)} vectors, expected one per QP ({count})")
            parts = [_arrays.to_host(w, f"{name}[{j}]", np.float64) for j, w in enumerate(v)]
            for j, (w, p) in enumerate(zip(parts, per_qp)):
                if w.shape != (int(p),):
                    raise ValueError(f"{name}[{j}]: shape {w.shape}, expected ({int(p)},)")
            return np.ascontiguousarray(np.concatenate(parts) if parts else np.zeros(0))
        a = _arrays.to_host(v, name, np.float64)
        uniform = len(set(per_qp)) == 1
        if a.shape == (total,) or (uniform and a.shape == (count, int(per_qp[0]))):
            return np.ascontiguousarray(a.reshape(-1))
        want = f"({count}, {int(per_qp[0])}) or ({total},)" if uniform else f"({total},)"
        raise ValueError(f"{name}: shape {a.shape}, expected {want}")

    def _check_k(self, k: Optional[int]) -> int:
        if k is None:
            return -1
        try:
            kk = operator.index(k)
        except TypeError:
            raise TypeError(f"k: expected an integer or None, got {type(k).__name__}") from None
        if not 0 <= kk < self.count:
            raise IndexError(f"k = {kk} outside the batch of {self.count}")
        return kk

    # ------------------------------------------------------------------ properties
    @property
    def count(self) -> int:
        """Number of QPs."""
        return self._solver.count

    @property
    def n(self) -> Union[int, List[int]]:
        """Variables: one int for a batch of one size, else a list."""
        return self._uniform[0] if self._uniform else list(self._solver.n)

    @property
    def m(self) -> Union[int, List[int]]:
        """Constraints: one int for a batch of one size, else a list."""
        return self._uniform[1] if self._uniform else list(self._solver.m)

    @property
    def linsys(self) -> str:
        """The linear-system strategy in use ("dense", "dense-shared", "sparse-ldlt", "pcg")."""
        return _ext.qp_linsys_name(self._solver.linsys_used)

    @property
    def chunks(self) -> int:
        """Number of chunks the batch is solved in, in turn on the device: 1 when
        its device workspace fits (settings ``device_mem_limit``, ``max_chunk``)."""
        return self._solver.chunk_count

    @property
    def settings(self) -> dict:
        """The settings the batch runs with, by name."""
        return _settings.as_dict(self._solver.get_settings())

    # ------------------------------------------------------------------ solve and results
    def solve(self, *, x_out: Array = None, y_out: Array = None) -> QPBatchResult:
        """Solve every QP (all advance together; each stops on its own) and return the
        results. Ctrl-C stops the batch: the QPs still running get INTERRUPTED.

        x and y come back as NumPy float64 arrays, or, when the batch was given CUDA arrays
        (at setup or in the last update), as arrays of that framework on that device in the
        solver's dtype, written by the device (gala_qp_get_solution_device): no host copy.
        ``x_out`` / ``y_out`` (PyTorch's ``out=``): arrays to write them into, so that a loop
        of solves allocates nothing — NumPy float64 arrays for a host batch, CUDA arrays of
        the solver's dtype for a device one; contiguous, every QP's entries ((k, n) / (k, m)
        for a batch of one size, or flat). The result's x and y are then views of them."""
        self._solver.solve()
        self._inflight.clear()
        if self._device_ref is not None or _arrays.is_device(x_out) or _arrays.is_device(y_out):
            return self._results(device=True, x_out=x_out, y_out=y_out)
        return self._results(x_out=x_out, y_out=y_out)

    def _sync_in(self, arrays: list) -> None:
        """Before gala's own stream reads the caller's device arrays: wait for their
        framework's stream (a context made on the caller's stream needs no wait)."""
        if self.context.stream == 0:
            for a in arrays:
                _arrays.sync_producer(a)

    def _device_vectors(self, vals: dict) -> dict:
        """Device arrays of the solver's dtype, contiguous, as Buffers of the context."""
        if self.context.info["backend"] != "cuda":
            raise ValueError(f"{', '.join(vals)}: CUDA arrays, and the batch's context is "
                             f"{self.context.info['backend']}; set the batch up on a CUDA context")
        dt = "float32" if self._solver.get_settings().dtype == 1 else "float64"
        out = {}
        for name, (v, per_qp) in vals.items():
            if v is None:
                out[name] = None
                continue
            if not _arrays.is_device(v):
                raise ValueError(f"{name}: a host array among CUDA ones (give all of them on the device)")
            total = int(sum(per_qp))
            size = int(np.prod(v.shape)) if len(v.shape) else 1
            if size != total:
                raise ValueError(f"{name}: {size} entries, expected {total}")
            if _arrays.dtype_name(v) != dt or not _arrays.is_c_contiguous(v):
                v = _arrays.contiguous_copy(v, dt)
            out[name] = _ext.Buffer.wrap(self.context, v.reshape(-1), name)
            self._inflight.append((v, out[name]))
        return out

    def _results(self, device: bool = False, x_out: Array = None, y_out: Array = None) -> QPBatchResult:
        info = self._solver.infos()
        if device:
            x, y = self._device_results(x_out, y_out)
            return QPBatchResult(x=x, y=y, status=info["status_val"], iter=info["iter"],
                                 obj_val=info["obj_val"], prim_res=info["prim_res"],
                                 dual_res=info["dual_res"], info=info)
        ns, ms = self._solver.n, self._solver.m
        x = self._host_out(x_out, int(sum(ns)), "x_out")
        y = self._host_out(y_out, int(sum(ms)), "y_out")
        self._solver.solutions(x, y)
        if self._uniform is not None:
            k = self.count
            x, y = x.reshape(k, self._uniform[0]), y.reshape(k, self._uniform[1])
        else:
            x = np.split(x, np.cumsum(ns)[:-1])
            y = np.split(y, np.cumsum(ms)[:-1])
        return QPBatchResult(x=x, y=y, status=info["status_val"], iter=info["iter"],
                             obj_val=info["obj_val"], prim_res=info["prim_res"],
                             dual_res=info["dual_res"], info=info)

    @staticmethod
    def _host_out(out: Array, total: int, name: str) -> np.ndarray:
        """A flat float64 view of the caller's host array (checked), or a new array."""
        if out is None:
            return np.empty(total)
        if not isinstance(out, np.ndarray):
            raise TypeError(f"{name}: expected a NumPy array (or a CUDA array for a device batch), "
                            f"got {type(out).__name__}")
        if out.dtype != np.float64 or not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError(f"{name}: expected a writeable, contiguous float64 array, got "
                             f"{out.dtype}{'' if out.flags.c_contiguous else ', not contiguous'}"
                             f"{'' if out.flags.writeable else ', read-only'}")
        if out.size != total:
            raise ValueError(f"{name}: {out.size} entries, expected {total}")
        return out.reshape(-1)

    def _device_results(self, x_out: Array, y_out: Array):
        ns, ms = self._solver.n, self._solver.m
        dt = "float32" if self._solver.get_settings().dtype == 1 else "float64"
        ref = self._device_ref if self._device_ref is not None else (x_out if x_out is not None else y_out)
        shape_x = (self.count, self._uniform[0]) if self._uniform else (int(sum(ns)),)
        shape_y = (self.count, self._uniform[1]) if self._uniform else (int(sum(ms)),)
        x = _arrays.empty(ref, shape_x, dt) if x_out is None else x_out
        y = _arrays.empty(ref, shape_y, dt) if y_out is None else y_out
        for name, a, total in (("x_out", x, int(sum(ns))), ("y_out", y, int(sum(ms)))):
            if not _arrays.is_device(a) or _arrays.dtype_name(a) != dt or not _arrays.is_c_contiguous(a):
                raise ValueError(f"{name}: expected a contiguous CUDA array of {dt}")
            if int(np.prod(a.shape)) != total:
                raise ValueError(f"{name}: {int(np.prod(a.shape))} entries, expected {total}")
        bx = _ext.Buffer.wrap(self.context, x.reshape(-1), "x_out") if int(sum(ns)) else None
        by = _ext.Buffer.wrap(self.context, y.reshape(-1), "y_out") if int(sum(ms)) else None
        self._solver.get_solution_device(bx, by)
        if self.context.stream == 0:
            self.context.finish()  # ready for the caller's stream
        if not self._uniform:
            offs_x, offs_y = np.cumsum([0, *ns]), np.cumsum([0, *ms])
            x = [x[offs_x[i]:offs_x[i + 1]] for i in range(self.count)]
            y = [y[offs_y[i]:offs_y[i + 1]] for i in range(self.count)]
        return x, y

    def certificates(self, k: int):
        """QP k's certificates of primal and dual infeasibility (NaN when it is not)."""
        k = self._check_k(k)
        p = np.empty(self._solver.m[k])
        d = np.empty(self._solver.n[k])
        self._solver.solution(k, None, None, p, d)
        return p, d

    # ------------------------------------------------------------------ derivatives
    def adjoint_derivative(self, dx: Array = None, dy: Array = None, *,
                           matrices: bool = True) -> QPDerivative:
        """The adjoint derivative of every QP at its last solution (OSQP 1.x's, for the
        batch; gala_qp_adjoint_derivative_compute): given dL/dx and dL/dy of a scalar loss L
        (stacked as x and y: (k, n) / (k, m) for a batch of one size, else flat or a list
        per QP; None: zero), the gradients of L with respect to q, l, u, P and A as a
        :class:`QPDerivative`.

        Per-QP failures are not errors: a QP that is not SOLVED (infeasible, at max_iter,
        invalid data, ...) gets status NOT_SOLVED, one whose dx or dy holds NaN or Inf
        NOT_FINITE, one whose adjoint system has no solution SINGULAR, and NaN gradients.

        With dy ≠ 0 the gradients follow the mathematics (they match finite differences);
        OSQP 1.1.3's have the wrong sign for the dy of rows with y < 0 (lower-bound and
        equality multipliers, osqp-python issue 156). With dy = 0 they agree with OSQP's.

        Raises :class:`gala.InvalidArgumentError` before any solve,
        :class:`gala.NotSupportedError` for a batch split into chunks, ValueError for
        arrays of the wrong shape. dx and dy may be CUDA arrays (copied to the host).
        ``matrices=False``: only dq, dl, du (dP, dA and their sums None); dL/dP and dL/dA
        follow from them and the solution, as ``½(dq xᵀ + x dqᵀ)`` and
        ``y dqᵀ − (dl + du) xᵀ`` (docs/derivatives.md).
        """
        ns, ms = self._solver.n, self._solver.m
        dxv = None if dx is None else self._stacked(_arrays.to_numpy(dx, "dx", np.float64)
                                                    if _arrays.is_device(dx) else dx, "dx", ns, None)
        dyv = None if dy is None else self._stacked(_arrays.to_numpy(dy, "dy", np.float64)
                                                    if _arrays.is_device(dy) else dy, "dy", ms, None)
        sv = self._solver
        sv.adjoint_derivative_compute(dxv, dyv)
        status = sv.adjoint_derivative_status()
        dq, dl, du = np.empty(int(sum(ns))), np.empty(int(sum(ms))), np.empty(int(sum(ms)))
        sv.adjoint_derivative_get_vec(dq, dl, du)
        if self._uniform is not None:
            k = self.count
            dq, dl, du = dq.reshape(k, self._uniform[0]), dl.reshape(k, self._uniform[1]), \
                du.reshape(k, self._uniform[1])
        else:
            cn, cm = np.cumsum(ns)[:-1], np.cumsum(ms)[:-1]
            dq, dl, du = np.split(dq, cn), np.split(dl, cm), np.split(du, cm)
        if not matrices:
            return QPDerivative(dq=dq, dl=dl, du=du, dP=None, dA=None, status=status)
        pnz, anz = sv.adjoint_derivative_mat_nnz()
        dPx, dAx = np.empty(int(pnz.sum())), np.empty(int(anz.sum()))
        sv.adjoint_derivative_get_mat(dPx, dAx)
        # each QP's values, NaN for one rejected at setup (it has no place in gala's layout)
        shared = len(self._mats) == 1
        P0, A0 = self._mats[0]
        if all(M is self._mats[0] for M in self._mats) and np.all(pnz == P0.nnz) and \
                np.all(anz == A0.nnz):
            # one pattern, every QP in its place: (k, nnz) views, no loop over the QPs
            dP, dA = dPx.reshape(self.count, P0.nnz), dAx.reshape(self.count, A0.nnz)
        else:
            mats = self._mats * self.count if shared else self._mats
            dP, dA, po, ao = [], [], 0, 0
            for k, (Pc, Ac) in enumerate(mats):
                if pnz[k] == 0 and anz[k] == 0 and Pc.nnz + Ac.nnz > 0:
                    dP.append(np.full(Pc.nnz, np.nan))
                    dA.append(np.full(Ac.nnz, np.nan))
                    continue
                dP.append(dPx[po:po + pnz[k]])
                dA.append(dAx[ao:ao + anz[k]])
                po += int(pnz[k])
                ao += int(anz[k])
            if shared:
                dP = np.stack(dP) if dP else np.zeros((0, P0.nnz))
                dA = np.stack(dA) if dA else np.zeros((0, A0.nnz))
        dP_sum = dA_sum = None
        if shared:
            if np.any(pnz + anz > 0):
                dP_sum, dA_sum = np.empty(P0.nnz), np.empty(A0.nnz)
                sv.adjoint_derivative_get_mat_sum(dP_sum, dA_sum)
            else:  # every QP rejected at setup: nothing to sum
                dP_sum, dA_sum = np.full(P0.nnz, np.nan), np.full(A0.nnz, np.nan)
        return QPDerivative(dq=dq, dl=dl, du=du, dP=dP, dA=dA, status=status,
                            dP_sum=dP_sum, dA_sum=dA_sum)

    # ------------------------------------------------------------------ updates
    def update(self, q: Array = None, l: Array = None, u: Array = None, *, Px: Array = None,
               Ax: Array = None, k: Optional[int] = None) -> None:
        """New q, l, u (stacked as at setup: (k, n) and (k, m), or QP k's alone) and/or new
        values of P (upper triangle) and A in their CSC order, same sparsity. Iterates are
        kept (warm start). A QP given invalid data (NaN, l > u) gets status INVALID_DATA
        until valid data come; a row that changes kind (equality, inequality, free) is
        refactored, or INVALID_DATA in the shared strategy (gala_qp_update_vectors)."""
        kk = self._check_k(k)
        ns, ms = self._solver.n, self._solver.m
        dev = [v for v in (q, l, u) if _arrays.is_device(v)]
        if dev:
            if k is not None:
                raise ValueError("k: device arrays update every QP (give k=None)")
            self._sync_in(dev)
            b = self._device_vectors({"q": (q, ns), "l": (l, ms), "u": (u, ms)})
            self._solver.update_vectors_device(b["q"], b["l"], b["u"])
            self._device_ref = dev[0]
            q = l = u = None
        if q is not None or l is not None or u is not None:
            self._solver.update_vectors(
                kk, None if q is None else self._stacked(q, "q", ns, k),
                None if l is None else self._stacked(l, "l", ms, k),
                None if u is None else self._stacked(u, "u", ms, k))
        if Px is not None or Ax is not None:
            pn = [P.nnz for P, _ in self._mats] if len(self._mats) > 1 else [self._mats[0][0].nnz] * self.count
            an = [A.nnz for _, A in self._mats] if len(self._mats) > 1 else [self._mats[0][1].nnz] * self.count
            Pv = None if Px is None else self._stacked(Px, "Px", pn, k)
            Av = None if Ax is None else self._stacked(Ax, "Ax", an, k)
            if k is None and self._rejected and any(self._rejected):
                # every QP's values given; the C call takes those of the QPs accepted at setup
                Pv, Av = self._accepted_only(Pv, pn), self._accepted_only(Av, an)
            self._solver.update_matrices(kk, Pv, Av)

    def update_rho(self, rho: float, *, k: Optional[int] = None) -> None:
        """Set ρ of every QP (or QP k), as osqp_update_rho."""
        self._solver.update_rho(self._check_k(k), _real(rho, "rho"))

    def warm_start(self, x: Array = None, y: Array = None, *, k: Optional[int] = None) -> None:
        """Start the next solve from x and/or y (stacked, or QP k's; CUDA arrays for every
        QP go through gala_qp_warm_start_device)."""
        kk = self._check_k(k)
        dev = [v for v in (x, y) if _arrays.is_device(v)]
        if dev:
            if k is not None:
                raise ValueError("k: device arrays warm-start every QP (give k=None)")
            self._sync_in(dev)
            b = self._device_vectors({"x": (x, self._solver.n), "y": (y, self._solver.m)})
            self._solver.warm_start_device(b["x"], b["y"])
            return
        self._solver.warm_start(kk, None if x is None else self._stacked(x, "x", self._solver.n, k),
                                None if y is None else self._stacked(y, "y", self._solver.m, k))

    def cold_start(self) -> None:
        """Set every QP's iterates to zero."""
        self._solver.cold_start()

    def update_settings(self, **settings: Any) -> None:
        """Change settings between solves (those fixed at setup raise ValueError)."""
        s = self._solver.get_settings()
        _settings.apply(s, settings)
        self._solver.update_settings(s)

    def profile(self) -> dict:
        """Seconds and calls per phase of the last setup and solve (setting profile=1)."""
        return self._solver.profile()
