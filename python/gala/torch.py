"""Batches of QPs as a differentiable PyTorch layer (OptNet; the role of ``osqp.nn`` and
qpth's ``QPFunction``), on gala's batched solver and adjoint derivative.

    minimize ½ xᵀPx + qᵀx   subject to   l ≤ Ax ≤ u

``QPFunction.apply(P, q, A, l, u, options)`` and the module :class:`QPLayer` solve every QP
of the batch in one gala call and return x (and y); ``backward`` runs
gala_qp_adjoint_derivative_compute on the same batch and returns the gradient of every
input that requires one.

Shapes: P (k, n, n) or (n, n), q (k, n) or (n,), A (k, m, n) or (m, n), l and u (k, m) or
(m,); an input without the leading dimension is shared by the batch (its gradient is the
sum over the QPs). With P and A both shared, gala's shared strategy solves the batch (one
matrix for all). P and A are dense tensors; P need not be symmetric: the objective is
½ xᵀPx, i.e. its symmetric part (P + Pᵀ)/2 is used, and P's gradient is symmetric. Every
entry of P and A is a variable (zeros included). l = -inf / u = +inf mark missing bounds
(gradient 0). At an equality row (l = u), the gradient of moving the row is dl + du, which
gala puts wholly in du when the row's y ≥ 0 and in dl when y < 0 (OSQP's convention).

Devices: the solve and the derivative run on the gala context given (default: the thread's
:func:`gala.default_context`), and the tensors go through host (NumPy) copies, CUDA tensors
included for now; results come back as tensors of the inputs' dtype and device.

Failures: a QP that is not solved (infeasible, max_iter, ...) raises ValueError in forward
(``check_solved=False``: its x and y are NaN, as gala returns them, and so are its
gradients). torch is optional: ``import gala.torch`` needs it, ``import gala`` does not.
"""
from __future__ import annotations

import atexit
import weakref
from typing import Any, Dict, Optional, Tuple

import numpy as np
import scipy.sparse as spa
import torch

from . import _ext
from .qp import QPBatch

__all__ = ["QPFunction", "QPLayer", "DEFAULT_SETTINGS"]

# OSQP's tolerances, with polishing on: the derivative is taken at the returned point, and a
# polished solution is exact on its active set (accurate gradients)
DEFAULT_SETTINGS: Dict[str, Any] = dict(eps_abs=1e-5, eps_rel=1e-5, polishing=True,
                                        dtype=np.float64)


# The batches that autograd graphs still hold (for their backward). A graph alive when the
# interpreter exits is never freed by PyTorch, so that its batch would outlive gala's
# extension (nanobind reports leaked instances): release their solvers first.
_LIVE: "weakref.WeakSet[QPBatch]" = weakref.WeakSet()


@atexit.register
def _release_live_batches() -> None:
    for b in list(_LIVE):
        b.__dict__.clear()


def _np(t: Optional[torch.Tensor]) -> Optional[np.ndarray]:
    """A float64 NumPy copy of a tensor (host copy of a CUDA tensor)."""
    if t is None:
        return None
    return t.detach().to("cpu", torch.float64).numpy().copy()


def _upper_pattern(n: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The full upper triangle of an n×n matrix in CSC order: indptr, indices, and the rows
    and columns of its entries."""
    cols = np.concatenate([np.full(j + 1, j) for j in range(n)]) if n else np.zeros(0, int)
    rows = np.concatenate([np.arange(j + 1) for j in range(n)]) if n else np.zeros(0, int)
    indptr = np.concatenate([[0], np.cumsum(np.arange(1, n + 1))])
    return indptr.astype(np.int32), rows.astype(np.int32), rows, cols


def _full_pattern(m: int, n: int) -> Tuple[np.ndarray, np.ndarray]:
    """Every entry of an m×n matrix in CSC order: indptr, indices."""
    indptr = (np.arange(n + 1) * m).astype(np.int32)
    indices = np.tile(np.arange(m), n).astype(np.int32)
    return indptr, indices


def _csc(vals: np.ndarray, indptr: np.ndarray, indices: np.ndarray, shape: Tuple[int, int]):
    """A CSC matrix of the given pattern; zero values stay in it (they are variables too)."""
    return spa.csc_matrix((np.ascontiguousarray(vals), indices, indptr), shape=shape)


class QPFunction(torch.autograd.Function):
    """``x, y = QPFunction.apply(P, q, A, l, u, options)``: solve the batch; ``options`` a
    dict (or None) with ``context`` (a gala.Context), ``check_solved`` (default True) and
    gala's settings by name (default :data:`DEFAULT_SETTINGS`). See the module's doc."""

    @staticmethod
    def forward(ctx: Any, P: torch.Tensor, q: torch.Tensor, A: torch.Tensor, l: torch.Tensor,
                u: torch.Tensor, options: Optional[dict] = None):
        opts = dict(options or {})
        context = opts.pop("context", None)
        check_solved = bool(opts.pop("check_solved", True))
        settings = {**DEFAULT_SETTINGS, **opts}
        if P.dim() not in (2, 3) or A.dim() not in (2, 3):
            raise ValueError(f"P, A: expected (k, ·, n) or 2-D tensors, got {tuple(P.shape)}, "
                             f"{tuple(A.shape)}")
        n, m = int(P.shape[-1]), int(A.shape[-2])
        if P.shape[-2:] != (n, n) or A.shape[-1] != n:
            raise ValueError(f"P is {tuple(P.shape)} and A {tuple(A.shape)}: expected (·, {n}, "
                             f"{n}) and (·, m, {n})")
        batched = {name: t.dim() == d for name, t, d in
                   (("P", P, 3), ("q", q, 2), ("A", A, 3), ("l", l, 2), ("u", u, 2))}
        ks = {int(t.shape[0]) for name, t in zip("PqAlu", (P, q, A, l, u)) if batched[name]}
        if len(ks) > 1:
            raise ValueError(f"the batched inputs disagree on the batch size: {sorted(ks)}")
        k = ks.pop() if ks else 1
        for name, t, want in (("q", q, (n,)), ("l", l, (m,)), ("u", u, (m,))):
            if tuple(t.shape[-1:]) != want or t.dim() not in (1, 2):
                raise ValueError(f"{name}: shape {tuple(t.shape)}, expected ({k}, {want[0]}) or {want}")

        Pn = _np(P).reshape(-1, n, n)
        Pn = 0.5 * (Pn + Pn.transpose(0, 2, 1))  # ½xᵀPx sees P's symmetric part
        An = _np(A).reshape(-1, m, n)
        qn, ln, un = (np.broadcast_to(_np(t).reshape(-1, t.shape[-1]), (k, t.shape[-1]))
                      for t in (q, l, u))
        pp, pi, prow, pcol = _upper_pattern(n)
        ap, ai = _full_pattern(m, n)
        Pvals = Pn[:, prow, pcol]                           # (1 or k, nnz), CSC order
        Avals = An.transpose(0, 2, 1).reshape(An.shape[0], -1)  # column-major
        shared = not batched["P"] and not batched["A"]
        if shared:
            batch = QPBatch(_csc(Pvals[0], pp, pi, (n, n)), np.ascontiguousarray(qn),
                            _csc(Avals[0], ap, ai, (m, n)), np.ascontiguousarray(ln),
                            np.ascontiguousarray(un), context=context, **settings)
        else:
            probs = [(_csc(Pvals[j if batched["P"] else 0], pp, pi, (n, n)), qn[j],
                      _csc(Avals[j if batched["A"] else 0], ap, ai, (m, n)), ln[j], un[j])
                     for j in range(k)]
            batch = QPBatch.from_problems(probs, context=context, **settings)
        r = batch.solve()
        if check_solved and not np.all(r.solved):
            bad = np.flatnonzero(~r.solved)
            raise ValueError(f"QPs {bad[:10].tolist()} of {k} not solved: "
                             f"{[r.status_string[j] for j in bad[:10]]} (no derivative; "
                             "options['check_solved'] = False returns NaN for them)")
        x = np.asarray(r.x).reshape(k, n)
        y = np.asarray(r.y).reshape(k, m)
        ctx.batch, ctx.batched, ctx.shared, ctx.sizes = batch, batched, shared, (k, n, m)
        _LIVE.add(batch)
        ctx.pattern = (prow, pcol)
        dt, dev = q.dtype if q.is_floating_point() else torch.float64, q.device
        xs = torch.as_tensor(x, dtype=dt).to(dev)
        ys = torch.as_tensor(y, dtype=dt).to(dev)
        if not any(batched.values()):
            return xs[0], ys[0]
        return xs, ys

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, grad_x: Optional[torch.Tensor], grad_y: Optional[torch.Tensor]):
        k, n, m = ctx.sizes
        batched = ctx.batched
        dx = None if grad_x is None else _np(grad_x).reshape(k, n)
        dy = None if grad_y is None else _np(grad_y).reshape(k, m)
        d = ctx.batch.adjoint_derivative(dx, dy)
        prow, pcol = ctx.pattern
        like = grad_x if grad_x is not None else grad_y
        dt, dev = like.dtype, like.device

        def out(a: np.ndarray, want_batched: bool, shape: Tuple[int, ...]) -> torch.Tensor:
            a = a if want_batched else a.sum(axis=0)
            return torch.as_tensor(np.ascontiguousarray(a), dtype=dt).to(dev).reshape(shape)

        def dense_P(vals: np.ndarray) -> np.ndarray:  # (j, nnz) upper values -> (j, n, n)
            G = np.zeros((vals.shape[0], n, n))
            G[:, prow, pcol] = vals
            G[:, pcol, prow] = vals
            return G

        def dense_A(vals: np.ndarray) -> np.ndarray:  # (j, m·n) column-major -> (j, m, n)
            return vals.reshape(vals.shape[0], n, m).transpose(0, 2, 1)

        needs = ctx.needs_input_grad
        gP = gq = gA = gl = gu = None
        if needs[1]:
            gq = out(np.asarray(d.dq).reshape(k, n), batched["q"], (k, n) if batched["q"] else (n,))
        if needs[3]:
            gl = out(np.asarray(d.dl).reshape(k, m), batched["l"], (k, m) if batched["l"] else (m,))
        if needs[4]:
            gu = out(np.asarray(d.du).reshape(k, m), batched["u"], (k, m) if batched["u"] else (m,))
        if ctx.shared:  # the sum over the batch, from gala (NaN when some QP failed)
            if needs[0]:
                gP = out(dense_P(d.dP_sum[None, :]), True, (n, n))
            if needs[2]:
                gA = out(dense_A(d.dA_sum[None, :]), True, (m, n))
        else:
            if needs[0]:
                gP = out(dense_P(np.stack(d.dP)), batched["P"], (k, n, n) if batched["P"] else (n, n))
            if needs[2]:
                gA = out(dense_A(np.stack(d.dA)), batched["A"], (k, m, n) if batched["A"] else (m, n))
        return gP, gq, gA, gl, gu, None


class QPLayer(torch.nn.Module):
    """A batch of QPs as a layer: ``QPLayer(**settings)(P, q, A, l, u)`` returns x (``(x, y)``
    with ``return_dual=True``). ``context``: the gala.Context to solve on;
    ``check_solved``: raise ValueError when a QP is not solved (default); settings: gala's
    (OSQP's names), defaults :data:`DEFAULT_SETTINGS`. See the module's doc for shapes."""

    def __init__(self, *, context: Optional[_ext.Context] = None, return_dual: bool = False,
                 check_solved: bool = True, **settings: Any):
        super().__init__()
        self.options = dict(settings, context=context, check_solved=check_solved)
        self.return_dual = return_dual

    def forward(self, P: torch.Tensor, q: torch.Tensor, A: torch.Tensor, l: torch.Tensor,
                u: torch.Tensor):
        x, y = QPFunction.apply(P, q, A, l, u, self.options)
        return (x, y) if self.return_dual else x
