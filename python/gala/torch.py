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
entry of P and A is a variable (zeros included): the gradients are dense. l = -inf /
u = +inf mark missing bounds (gradient 0). At an equality row (l = u), the gradient of
moving the row is dl + du, which gala puts wholly in du when the row's y ≥ 0 and in dl
when y < 0 (OSQP's convention).

The batch is set up in one step, without a conversion per QP: the QPs share one sparsity
pattern, the union of their nonzeros (an entry zero in every QP of the batch is left out of
gala's matrices; the solution is the same), found and gathered on the tensors' device, so
that only the pattern's values travel to gala. The gradients of P and A follow from the
vectors gala returns (``½(dq xᵀ + x dqᵀ)`` and ``y dqᵀ − (dl + du) xᵀ``,
docs/derivatives.md), formed on the tensors' device.

Devices: the solve and the derivative run on the gala context given (default: the thread's
:func:`gala.default_context`); the pattern's values, q, l, u, x, y and the vector gradients
go through host (NumPy) copies — for CUDA tensors in page-locked memory, the pattern's
values with q, l, u in one transfer, x, y and the gradients' copies queued without a wait —
and the dense P and A and their gradients stay on their device. Results come back as
tensors of the inputs' dtype and device.

Failures: a QP that is not solved (infeasible, max_iter, ...) raises ValueError in forward
(``check_solved=False``: its x and y are NaN, as gala returns them, and so are its
gradients). torch is optional: ``import gala.torch`` needs it, ``import gala`` does not.
"""
from __future__ import annotations

import atexit
import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from . import _csc, _ext
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
    """A float64 NumPy array of a tensor (a host copy of a CUDA tensor)."""
    if t is None:
        return None
    return t.detach().to("cpu", torch.float64).numpy()


def _pinned(device: torch.device) -> bool:
    """Whether transfers for this device go through page-locked host memory (CUDA)."""
    return device.type == "cuda"


def _to_host(ts: Sequence[torch.Tensor]) -> List[np.ndarray]:
    """float64 host arrays of tensors that lie on one device, each of its tensor's shape.
    CUDA tensors cross the bus in one copy into page-locked memory (several times a
    pageable copy's rate, one wait instead of one per tensor)."""
    dev = ts[0].device
    if not _pinned(dev) or any(t.device != dev for t in ts):
        return [_np(t) for t in ts]
    flat = torch.cat([t.detach().reshape(-1).to(torch.float64) for t in ts])
    h = torch.empty(flat.shape, dtype=torch.float64, pin_memory=True)
    h.copy_(flat, non_blocking=True)
    torch.cuda.current_stream(dev).synchronize()
    a, out, o = h.numpy(), [], 0  # the arrays keep h alive
    for t in ts:
        out.append(a[o:o + t.numel()].reshape(t.shape))
        o += t.numel()
    return out


def _host_pair(sizes: Tuple[int, int], device: torch.device) -> Tuple[torch.Tensor, torch.Tensor]:
    """Two float64 host tensors for results that go on to ``device``, where gala writes them
    (through their NumPy views): for CUDA views of one page-locked block, whose copies
    :func:`_to_device` queues; else two tensors of their own (the outputs themselves)."""
    if not _pinned(device):
        return torch.empty(sizes[0], dtype=torch.float64), torch.empty(sizes[1], dtype=torch.float64)
    h = torch.empty(sizes[0] + sizes[1], dtype=torch.float64, pin_memory=True)
    return h[:sizes[0]], h[sizes[0]:]


def _to_device(arrays: Sequence[Any], shapes: Sequence[Tuple[int, ...]], dtype: torch.dtype,
               device: torch.device) -> List[torch.Tensor]:
    """Tensors of ``dtype`` on ``device`` (one each, no views of one another) from float64
    host arrays or tensors. For CUDA the copies are queued from page-locked memory without a
    wait (a pageable array is staged there first); torch's page-locked allocator keeps
    the block until its copy is done."""
    out = []
    for a, sh in zip(arrays, shapes):
        t = a if isinstance(a, torch.Tensor) else torch.from_numpy(
            np.ascontiguousarray(a, dtype=np.float64))
        if not _pinned(device):
            out.append(t.reshape(sh).to(device=device, dtype=dtype))
            continue
        if not t.is_pinned():
            t = torch.empty(t.shape, dtype=torch.float64, pin_memory=True).copy_(t)
        d = torch.empty(sh, dtype=dtype, device=device)
        d.copy_(t.reshape(sh), non_blocking=True)
        out.append(d)
    return out


def _patterns(P3: torch.Tensor, A3: torch.Tensor):
    """One pattern for the batch: the union of the nonzeros of P's symmetric part's upper
    triangle and of A's (gala._csc.union_pattern), found on the tensors' device. Returns the
    CSC patterns (indptr, indices) of P and A for gala and, on the device, the flat indices
    into a matrix of P's pattern entries, of their transposes, and of A's (for gathering
    the values there): one transfer each way."""
    n, m = P3.shape[-1], A3.shape[-2]
    nzP = (P3 != 0).any(dim=0)
    nzA = (A3 != 0).any(dim=0).to(P3.device)  # (a no-op where A is on P's device)
    h = torch.cat([torch.triu(nzP | nzP.T).reshape(-1), nzA.reshape(-1)]).cpu().numpy()
    pp, pi, prow, pcol = _csc.union_pattern(h[:n * n].reshape(n, n))
    ap, ai, arow, acol = _csc.union_pattern(h[n * n:].reshape(m, n))
    idx = torch.from_numpy(np.concatenate([prow * n + pcol, pcol * n + prow, arow * n + acol]))
    idx = idx.to(P3.device)
    k1, k2 = prow.size, 2 * prow.size
    return (pp, pi), (ap, ai), idx[:k1], idx[k1:k2], idx[k2:].to(A3.device)


def _gather(M: torch.Tensor, at: torch.Tensor, at_t: Optional[torch.Tensor] = None) -> torch.Tensor:
    """The values of the (j, r, c) matrices M at the flat indices ``at`` (j, len(at)) on M's
    device; with ``at_t`` (the transposed entries' indices) those of M's symmetric part."""
    # index_select reads them in one pass (advanced indexing M[:, rows, cols] is up to 1.5×
    # slower on the CPU), the same values
    flat = M.reshape(M.shape[0], -1)
    v = flat.index_select(1, at)
    if at_t is not None:
        v = 0.5 * (v + flat.index_select(1, at_t))
    return v


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

        P3, A3 = P.detach().reshape(-1, n, n), A.detach().reshape(-1, m, n)
        Ppat, Apat, p_at, p_at_t, a_at = _patterns(P3, A3)
        Pv, Av, qn, ln, un = _to_host([_gather(P3, p_at, p_at_t), _gather(A3, a_at),
                                       q.reshape(-1, n), l.reshape(-1, m), u.reshape(-1, m)])
        batch = QPBatch._from_stacked(n, m, Ppat, Pv, qn, Apat, Av, ln, un,
                                      context=context, **settings)
        dt, dev = q.dtype if q.is_floating_point() else torch.float64, q.device
        hx, hy = _host_pair((k * n, k * m), dev)
        r = batch.solve(x_out=hx.numpy(), y_out=hy.numpy())
        if check_solved and not np.all(r.solved):
            bad = np.flatnonzero(~r.solved)
            raise ValueError(f"QPs {bad[:10].tolist()} of {k} not solved: "
                             f"{[r.status_string[j] for j in bad[:10]]} (no derivative; "
                             "options['check_solved'] = False returns NaN for them)")
        xs, ys = _to_device((hx, hy), ((k, n), (k, m)), dt, dev)
        ctx.batch, ctx.batched, ctx.sizes = batch, batched, (k, n, m)
        ctx.xy = (xs.detach(), ys.detach())  # not the outputs themselves: no cycle through ctx
        _LIVE.add(batch)
        if not any(batched.values()):
            return xs[0], ys[0]
        return xs, ys

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, grad_x: Optional[torch.Tensor], grad_y: Optional[torch.Tensor]):
        k, n, m = ctx.sizes
        batched = ctx.batched
        given = [g for g in (grad_x, grad_y) if g is not None]
        host = iter(_to_host(given) if given else [])
        dx = None if grad_x is None else next(host).reshape(k, n)
        dy = None if grad_y is None else next(host).reshape(k, m)
        d = ctx.batch.adjoint_derivative(dx, dy, matrices=False)
        x, y = ctx.xy
        dt, dev = x.dtype, x.device
        dq, dl, du = _to_device((d.dq, d.dl, d.du), ((k, n), (k, m), (k, m)), dt, dev)

        def out(g: torch.Tensor, name: str) -> torch.Tensor:
            return g if batched[name] else g.sum(dim=0)

        needs = ctx.needs_input_grad
        gP = gq = gA = gl = gu = None
        if needs[1]:
            gq = out(dq, "q")
        if needs[3]:
            gl = out(dl, "l")
        if needs[4]:
            gu = out(du, "u")
        ry = -(dl + du)  # the coefficient of x in each row of dA (docs/derivatives.md)
        # dP = ½(dq xᵀ + x dqᵀ) and dA = y dqᵀ + ry xᵀ as products of inner dimension 2 (one
        # pass over the dense gradient), per QP or summed over the batch
        def outer(Lc: Tuple[torch.Tensor, torch.Tensor], Rr: Tuple[torch.Tensor, torch.Tensor],
                  per_qp: bool) -> torch.Tensor:
            L, R = torch.stack(Lc, -1), torch.stack(Rr, -2)  # (k, r, 2), (k, 2, c)
            if per_qp:
                return torch.bmm(L, R)
            return L.transpose(0, 1).reshape(L.shape[1], -1) @ R.reshape(-1, R.shape[2])

        if needs[0]:
            gP = outer((dq, x), (0.5 * x, 0.5 * dq), batched["P"])
        if needs[2]:
            gA = outer((y, ry), (dq, x), batched["A"])
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
