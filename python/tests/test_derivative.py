"""The adjoint derivative of QP solutions from Python (issue 43): the bindings of
gala_qp_adjoint_derivative_*, QPBatch.adjoint_derivative and gala.osqp's
adjoint_derivative_compute / _get_mat / _get_vec.

References: central finite differences of L = dxᵀx + dyᵀy (the perturbed QPs solved as one
batch, tightly and polished, in double on the host) for dx and dy; osqp's own adjoint
derivative with dy = 0 (with dy ≠ 0 osqp 1.1.3 disagrees with finite differences: the dy of
rows with y < 0 enters with the wrong sign; test_osqp_dy_convention checks that claim, which
docs/derivatives.md states); each QP of a batch alone. Seeded: the seed is printed
(conftest.py).
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np
import pytest
import scipy.sparse as sp

import gala
import gala.osqp as gosqp
from gala import QPDerivStatus


@pytest.fixture
def osqp():
    """osqp itself, the reference (the tests that need it skip without it)."""
    return pytest.importorskip("osqp")


# tight and polished: the solution is exact on its active set up to rounding, which finite
# differences need
TIGHT = dict(eps_abs=1e-11, eps_rel=1e-11, max_iter=100000, polishing=True, dtype=np.float64)


# ----------------------------------------------------------------------------- problems

def kkt_qp(rng, n: int = 6) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                      np.ndarray, np.ndarray]:
    """A QP built from its solution: x*, y* chosen, q = -P x* - Aᵀ y*. Rows: an equality with
    y < 0 and one with y > 0, an inequality active at its lower bound (y < 0) and one at its
    upper bound (l = -inf, y > 0), two inactive ones (one with u = +inf). Strictly
    complementary, so the solution is differentiable. Returns dense P (symmetric), q, A, l,
    u, x*, y*."""
    m = 6
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    A = rng.standard_normal((m, n))
    x = rng.uniform(-1, 1, n)
    y = np.array([-rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5), -rng.uniform(0.5, 1.5),
                  rng.uniform(0.5, 1.5), 0.0, 0.0])
    ax = A @ x
    l = np.array([ax[0], ax[1], ax[2], -np.inf, ax[4] - rng.uniform(0.5, 1), ax[5] - rng.uniform(0.5, 1)])
    u = np.array([ax[0], ax[1], ax[2] + rng.uniform(0.5, 1), ax[3], ax[4] + rng.uniform(0.5, 1), np.inf])
    q = -P @ x - A.T @ y
    return P, q, A, l, u, x, y


def random_qp(rng, n: int, m: int, density: float = 0.5):
    """A random convex sparse QP (feasible) with m dense rows — equalities (fewer than n, so
    that they are independent), one-sided and two-sided — and box rows."""
    M = sp.random(n, n, density=density, random_state=int(rng.integers(1 << 30)))
    P = (M @ M.T + sp.eye(n)).tocsc()
    A = sp.vstack([sp.csc_matrix(rng.standard_normal((m, n))), sp.eye(n)]).tocsc()
    x0 = rng.uniform(-1, 1, n)
    ax = A @ x0
    l = ax - rng.uniform(0.1, 1, A.shape[0])
    u = ax + rng.uniform(0.1, 1, A.shape[0])
    kinds = rng.integers(0, 4, m)
    kinds[np.flatnonzero(kinds == 0)[n - 1:]] = 3  # at most n - 1 equalities
    l[:m][kinds == 0] = u[:m][kinds == 0] = ax[:m][kinds == 0]
    l[:m][kinds == 1] = -np.inf
    u[:m][kinds == 2] = np.inf
    return P, rng.standard_normal(n), A, l, u


def csc_parts(P: np.ndarray, A: np.ndarray) -> Tuple[sp.csc_matrix, sp.csc_matrix]:
    """P's upper triangle and A as CSC matrices storing every entry (sorted indices)."""
    Pu = sp.csc_matrix(np.triu(P))
    Pu.sort_indices()
    Ac = sp.csc_matrix(A)
    Ac.sort_indices()
    return Pu, Ac


def gala_deriv(P, q, A, l, u, dx, dy, context=None):
    """gala's gradients of one QP (QPBatch): (x, y, dq, dl, du, dPx, dAx)."""
    Pu, Ac = csc_parts(P, A)
    b = gala.QPBatch(Pu, q, Ac, l, u, context=context, **TIGHT)
    r = b.solve()
    assert r.status[0] == gala.QPStatus.SOLVED
    d = b.adjoint_derivative(dx, dy)
    assert d.status[0] == QPDerivStatus.OK
    return r.x[0], r.y[0], d.dq[0], d.dl[0], d.du[0], d.dP[0], d.dA[0]


def finite_differences(P, q, A, l, u, dx, dy, h: float = 1e-5, context=None):
    """Central differences of L = dxᵀx + dyᵀy with respect to q, the finite bounds (an
    equality row's l and u moved together), the stored values of P's upper triangle and of
    A: (gq, gl, gu, geq, gP, gA), geq per row (NaN for inequality rows)."""
    Pu, Ac = csc_parts(P, A)
    base = (Pu, q, Ac, l, u)
    problems: List[tuple] = []
    keys: List[tuple] = []

    def add(key, change):
        for s in (1.0, -1.0):
            Pk, qk, Ak, lk, uk = Pu.copy(), q.copy(), Ac.copy(), l.copy(), u.copy()
            change(s * h, Pk, qk, Ak, lk, uk)
            problems.append((Pk, qk, Ak, lk, uk))
        keys.append(key)

    n, m = len(q), len(l)
    for j in range(n):
        add(("q", j), lambda e, P_, q_, A_, l_, u_, j=j: q_.__setitem__(j, q_[j] + e))
    for i in range(m):
        if l[i] == u[i]:
            def both(e, P_, q_, A_, l_, u_, i=i):
                l_[i] += e
                u_[i] += e
            add(("eq", i), both)
            continue
        if np.isfinite(l[i]):
            add(("l", i), lambda e, P_, q_, A_, l_, u_, i=i: l_.__setitem__(i, l_[i] + e))
        if np.isfinite(u[i]):
            add(("u", i), lambda e, P_, q_, A_, l_, u_, i=i: u_.__setitem__(i, u_[i] + e))
    for e_ in range(Pu.nnz):
        add(("P", e_), lambda e, P_, q_, A_, l_, u_, k=e_: P_.data.__setitem__(k, P_.data[k] + e))
    for e_ in range(Ac.nnz):
        add(("A", e_), lambda e, P_, q_, A_, l_, u_, k=e_: A_.data.__setitem__(k, A_.data[k] + e))
    b = gala.QPBatch.from_problems(problems, context=context, **TIGHT)
    r = b.solve()
    assert np.all(r.status == gala.QPStatus.SOLVED)
    L = np.array([dx @ x + dy @ y for x, y in zip(r.x, r.y)])
    g = (L[0::2] - L[1::2]) / (2 * h)
    out = {"q": np.zeros(n), "l": np.zeros(m), "u": np.zeros(m), "eq": np.full(m, np.nan),
           "P": np.zeros(Pu.nnz), "A": np.zeros(Ac.nnz)}
    for (what, i), v in zip(keys, g):
        out[what][i] = v
    return out["q"], out["l"], out["u"], out["eq"], out["P"], out["A"], Pu


def stored_dP(dPx: np.ndarray, Pu: sp.csc_matrix) -> np.ndarray:
    """dL/d(stored value of P's upper triangle) from dP (dL/dP(i,j) of the symmetric P): an
    off-diagonal stored value is both P(i,j) and P(j,i)."""
    rows = Pu.indices
    cols = np.repeat(np.arange(Pu.shape[1]), np.diff(Pu.indptr))
    return np.where(rows == cols, dPx, 2 * dPx)


def assert_close(name, got, want, tol):
    got, want = np.asarray(got, float), np.asarray(want, float)
    err = np.abs(got - want)
    bound = tol * (1 + np.abs(want))
    assert np.all(err <= bound), (f"{name}: worst entry {int(np.argmax(err - bound))}: "
                                  f"got {got.ravel()[np.argmax(err - bound)]:.10g}, want "
                                  f"{want.ravel()[np.argmax(err - bound)]:.10g}\n got {got}\nwant {want}")


# ----------------------------------------------------------------------------- the bindings

def test_bindings_mirror_the_c_calls(host):
    """gala._ext's calls one to one: statuses before and after compute, sizes checked,
    errors of the C library as gala's exceptions with its message."""
    P = sp.csc_matrix(np.array([[2.0, 0.5], [0.0, 1.0]]))
    A = sp.csc_matrix(np.array([[1.0, 1.0], [1.0, -1.0]]))
    b = gala.QPBatch(P, np.array([[1.0, -1.0], [0.5, 0.5], [0.1, 2.0]]), A,
                     np.array([[1.0, -5.0]] * 3), np.array([[1.0, 5.0]] * 3), context=host, **TIGHT)
    sv = b._solver
    with pytest.raises(gala.InvalidArgumentError, match="gala_qp_adjoint_derivative_compute"):
        sv.adjoint_derivative_compute(None, None)  # before a solve
    b.solve()
    assert list(sv.adjoint_derivative_status()) == [int(QPDerivStatus.NOT_COMPUTED)] * 3
    with pytest.raises(gala.InvalidArgumentError, match="no derivative computed"):
        sv.adjoint_derivative_get_vec(np.empty(6), None, None)
    pnz, anz = sv.adjoint_derivative_mat_nnz()
    assert list(pnz) == [3, 3, 3] and list(anz) == [4, 4, 4]
    with pytest.raises(ValueError, match="dx"):
        sv.adjoint_derivative_compute(np.zeros(5), None)
    sv.adjoint_derivative_compute(np.ones(6), None)
    assert list(sv.adjoint_derivative_status()) == [int(QPDerivStatus.OK)] * 3
    dq, dl, du = np.full(6, np.nan), np.full(6, np.nan), np.full(6, np.nan)
    sv.adjoint_derivative_get_vec(dq, dl, du)
    assert np.all(np.isfinite(dq)) and np.all(np.isfinite(dl)) and np.all(np.isfinite(du))
    with pytest.raises(ValueError, match="dP"):
        sv.adjoint_derivative_get_mat(np.empty(3), None)
    dP, dA = np.full(9, np.nan), np.full(12, np.nan)
    sv.adjoint_derivative_get_mat(dP, dA)
    sP, sA = np.empty(3), np.empty(4)
    sv.adjoint_derivative_get_mat_sum(sP, sA)
    assert np.allclose(sP, dP.reshape(3, 3).sum(0), rtol=1e-14, atol=1e-14)
    assert np.allclose(sA, dA.reshape(3, 4).sum(0), rtol=1e-14, atol=1e-14)
    # the equality row 0: with y ≥ 0 its gradient is in du, else in dl (OSQP's convention)
    y = b.solve().y
    b.adjoint_derivative(np.ones((3, 2)))  # the new solve dropped the old derivative
    sv.adjoint_derivative_get_vec(None, dl, du)
    for k in range(3):
        assert (dl[2 * k] == 0) == (y[k, 0] >= 0) and (du[2 * k] == 0) == (y[k, 0] < 0)


# ----------------------------------------------------------------------------- finite differences

@pytest.mark.parametrize("which", ["dx", "dy", "both"])
def test_finite_differences(host, rng, which):
    """Every gradient (q, l, u, P, A) against central finite differences of dxᵀx + dyᵀy, on
    a QP with active lower and upper bounds and equalities, for dx, dy (the case where OSQP
    1.1.3 is wrong) and both."""
    P, q, A, l, u, xs, ys = kkt_qp(rng)
    n, m = len(q), len(l)
    dx = rng.standard_normal(n) if which != "dy" else np.zeros(n)
    dy = rng.standard_normal(m) if which != "dx" else np.zeros(m)
    x, y, dq, dl, du, dPx, dAx = gala_deriv(P, q, A, l, u, dx, dy, host)
    assert_close("x", x, xs, 1e-8)
    assert_close("y", y, ys, 1e-8)
    gq, gl, gu, geq, gP, gA, Pu = finite_differences(P, q, A, l, u, dx, dy, context=host)
    tol = 2e-6
    assert_close("dq", dq, gq, tol)
    eq = l == u
    assert_close("dl (inequalities)", dl[~eq], gl[~eq], tol)
    assert_close("du (inequalities)", du[~eq], gu[~eq], tol)
    assert_close("dl + du (equalities)", (dl + du)[eq], geq[eq], tol)
    assert np.all(dl[~np.isfinite(l)] == 0) and np.all(du[~np.isfinite(u)] == 0)
    assert np.all((dl[eq] == 0) | (du[eq] == 0))
    assert_close("dP (stored values)", stored_dP(dPx, Pu), gP, tol)
    assert_close("dA", dAx, gA, tol)
    # not trivially zero: the active rows move the loss
    assert np.abs(gq).max() > 1e-3 and np.abs(gA).max() > 1e-3


def test_osqp_dy_convention(host, rng, osqp):
    """The claim of docs/derivatives.md, checked independently: osqp 1.1.3's adjoint
    derivative matches finite differences with dy = 0 and with dy on a row with y ≥ 0 (at
    its upper bound, an equality with y > 0, inactive), and gives the opposite sign for the
    dy of a row with y < 0 (at its lower bound, an equality with y < 0); gala's matches in
    every case. Should osqp fix this, this test fails: then gala.osqp's
    docstrings and docs/derivatives.md must change."""
    P, q, A, l, u, _, _ = kkt_qp(rng)
    n, m = len(q), len(l)
    Pu, Ac = csc_parts(P, A)
    o = osqp.OSQP()
    o.setup(Pu, q, Ac, l, u, verbose=False, eps_abs=1e-11, eps_rel=1e-11, max_iter=100000,
            polishing=True)
    assert o.solve(raise_error=False).info.status == "solved"
    dx = rng.standard_normal(n)
    agree = {}
    cases = (("dy=0", None), ("upper", 3), ("equality y>0", 1), ("inactive", 4), ("lower", 2),
             ("equality y<0", 0))
    for case, row in cases:
        dy = np.zeros(m)
        if row is not None:
            dy[row] = 1.0
        gq = finite_differences(P, q, A, l, u, dx, dy, context=host)[0]
        o.adjoint_derivative_compute(dx=dx, dy=dy)
        oq = o.adjoint_derivative_get_vec()[0]
        agree[case] = bool(np.allclose(oq, gq, rtol=1e-5, atol=1e-5))
        if row in (2, 0):  # the sign of the dy part (dx's part agrees): exactly opposite
            o.adjoint_derivative_compute(dx=np.zeros(n), dy=dy)
            g0 = finite_differences(P, q, A, l, u, np.zeros(n), dy, context=host)[0]
            assert_close(f"osqp dq, {case}, dy alone", -o.adjoint_derivative_get_vec()[0], g0, 1e-5)
        gala_q = gala_deriv(P, q, A, l, u, dx, dy, host)[2]
        assert_close(f"gala dq, {case}", gala_q, gq, 2e-6)
    assert agree == {"dy=0": True, "upper": True, "equality y>0": True, "inactive": True,
                     "lower": False, "equality y<0": False}, agree


# ----------------------------------------------------------------------------- against osqp

@pytest.mark.parametrize("n,m", [(5, 3), (12, 8)])
def test_against_osqp_dy_zero(host, rng, n, m, osqp):
    """gala.osqp's adjoint_derivative_* against osqp's on the same random QPs (dy = 0):
    same signatures, types and values, dense and sparse, dP as triangle and full."""
    kw = dict(verbose=False, eps_abs=1e-10, eps_rel=1e-10, max_iter=100000, polishing=True)
    done = 0
    for _ in range(30):
        if done == 3:
            break
        P, q, A, l, u = random_qp(rng, n, m)
        o, g = osqp.OSQP(), gosqp.OSQP(context=host)
        o.setup(P, q, A, l, u, **kw)
        g.setup(P, q, A, l, u, **kw)
        ro, rg = o.solve(raise_error=True), g.solve(raise_error=True)
        # near a degenerate point (a row both active and with y ≈ 0) the derivative jumps,
        # and there OSQP 1.1.3's departs from central differences before gala's does (seen:
        # an active row with y = 1.2e-3, OSQP's dq off by 0.12, gala's within 6e-9 of
        # central differences): such draws are not compared with OSQP
        ax = A @ ro.x
        if np.min(np.maximum(np.abs(ro.y), np.minimum(ax - l, u - ax))) < 1e-2:
            continue
        done += 1
        assert_close("x", rg.x, ro.x, 1e-7)
        dx = rng.standard_normal(n)
        o.adjoint_derivative_compute(dx=dx)
        g.adjoint_derivative_compute(dx=dx)
        for name, a, b in zip(("dq", "dl", "du"), g.adjoint_derivative_get_vec(),
                              o.adjoint_derivative_get_vec()):
            assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.shape == b.shape
            assert_close(name, a, b, 1e-6)
        for triu in (True, False):
            (gP, gA), (oP, oA) = g.adjoint_derivative_get_mat(dP_as_triu=triu), \
                o.adjoint_derivative_get_mat(dP_as_triu=triu)
            assert isinstance(gP, np.ndarray) and gP.shape == oP.shape == (n, n)
            assert gA.shape == oA.shape == A.shape
            assert_close(f"dP (triu={triu})", gP, oP, 1e-6)
            assert_close("dA", gA, oA, 1e-6)
            if triu:
                assert np.all(np.tril(gP, -1) == 0)
            else:
                assert np.array_equal(gP, gP.T)
            (sP, sA), (tP, tA) = g.adjoint_derivative_get_mat(as_dense=False, dP_as_triu=triu), \
                o.adjoint_derivative_get_mat(as_dense=False, dP_as_triu=triu)
            for s, t in ((sP, tP), (sA, tA)):  # OSQP's CSC attributes, and a SciPy matrix
                assert sp.issparse(s) and (s.m, s.n) == (t.m, t.n) and s.nz == t.nz == -1
                assert np.array_equal(s.p, t.p) and np.array_equal(s.i, t.i) and s.nzmax == t.nzmax
                assert_close("sparse values", s.x, t.x, 1e-6)
                assert_close("sparse vs dense", s.toarray(), gP if s is sP else gA, 0)
        assert g.has_capability("OSQP_CAPABILITY_DERIVATIVES")
    assert done == 3, "fewer than 3 of 30 draws strictly complementary"


def test_osqp_errors(host):
    """gala.osqp's preconditions: ValueError (as OSQP) before a solve, after an update and
    for an unsolved problem; gala's own ValueErrors for NaN and wrong sizes."""
    P = sp.csc_matrix(np.array([[2.0, 0.5], [0.5, 1.0]]))
    A = sp.csc_matrix(np.array([[1.0, 1.0], [1.0, 0.0]]))
    q, l, u = np.array([1.0, -1.0]), np.array([1.0, -1.0]), np.array([1.0, 1.0])
    g = gosqp.OSQP(context=host)
    with pytest.raises(ValueError):
        g.adjoint_derivative_compute(dx=np.ones(2))  # no setup
    g.setup(P, q, A, l, u, verbose=False, **{k: v for k, v in TIGHT.items() if k != "dtype"})
    for call in (lambda: g.adjoint_derivative_compute(dx=np.ones(2)), g.adjoint_derivative_get_vec,
                 g.adjoint_derivative_get_mat):
        with pytest.raises(ValueError, match="solve"):
            call()
    g.solve(raise_error=True)
    with pytest.raises(ValueError, match="no derivative computed"):
        g.adjoint_derivative_get_vec()  # OSQP returns stale values here
    with pytest.raises(ValueError, match="dx"):
        g.adjoint_derivative_compute(dx=np.ones(3))
    with pytest.raises(ValueError, match="NaN"):
        g.adjoint_derivative_compute(dx=np.array([np.nan, 1.0]))
    g.adjoint_derivative_compute(dx=np.ones(2))
    dq, dl, du = g.adjoint_derivative_get_vec()
    assert np.all(np.isfinite(dq)) and np.any(dq != 0)
    g.update(q=np.array([1.0, -2.0]))
    with pytest.raises(ValueError, match="solve"):
        g.adjoint_derivative_get_vec()  # data changed since the solve
    g.solve(raise_error=True)
    g.adjoint_derivative_compute(dy=np.ones(2))  # dx None: zero
    assert np.all(np.isfinite(g.adjoint_derivative_get_vec()[0]))
    # infeasible: x0 + x1 = 1 and x0 + x1 = 5
    g2 = gosqp.OSQP(context=host)
    g2.setup(sp.csc_matrix(np.eye(2)), q, sp.csc_matrix(np.array([[1.0, 1.0], [1.0, 1.0]])),
             np.array([1.0, 5.0]), np.array([1.0, 5.0]), verbose=False)
    r = g2.solve(raise_error=False)
    assert r.info.status_val != gosqp.SolverStatus.OSQP_SOLVED
    with pytest.raises(ValueError, match="not 'solved'"):
        g2.adjoint_derivative_compute(dx=np.ones(2))


# ----------------------------------------------------------------------------- batches

def test_batch_against_one_at_a_time(target, rng):
    """A heterogeneous batch (odd sizes, an infeasible QP, one with invalid data) against
    each QP alone, on every target; statuses per QP, NaN where there is no derivative."""
    probs = []
    for k in range(7):
        n, m = int(rng.integers(2, 7)), int(rng.integers(1, 5))
        P, q, A, l, u = random_qp(rng, n, m)
        if k == 2:  # infeasible: x0 in [5, 6] (A's row m, the identity's first) and in [-6, -5]
            A = sp.vstack([A, sp.csc_matrix(([1.0], ([0], [0])), shape=(1, n))]).tocsc()
            l, u = np.append(l, -6.0), np.append(u, -5.0)
            l[m], u[m] = 5.0, 6.0
        if k == 4:  # invalid data: l > u
            l = l.copy()
            l[0] = u[0] + 1
        probs.append((P, q, A, l, u))
    f32 = target.dtype == np.float32
    kw = dict(eps_abs=1e-4, eps_rel=1e-4, max_iter=100000, polishing=True, dtype=target.dtype) \
        if f32 else TIGHT
    b = gala.QPBatch.from_problems(probs, context=target.context, **kw)
    r = b.solve()
    dxs = [rng.standard_normal(p[0].shape[0]) for p in probs]
    dys = [rng.standard_normal(p[2].shape[0]) for p in probs]
    d = b.adjoint_derivative(dxs, dys)
    assert d.status[2] == QPDerivStatus.NOT_SOLVED and d.status[4] == QPDerivStatus.NOT_SOLVED
    for k, (P, q, A, l, u) in enumerate(probs):
        ok = r.status[k] == gala.QPStatus.SOLVED
        assert (d.status[k] == QPDerivStatus.OK) == ok, (k, r.status[k], d.status[k])
        assert d.dP[k].shape == (sp.triu(P).nnz,) and d.dA[k].shape == (A.nnz,)
        assert d.dq[k].shape == (P.shape[0],) and d.dl[k].shape == (A.shape[0],)
        if not ok:
            for v in (d.dq[k], d.dl[k], d.du[k], d.dP[k], d.dA[k]):
                assert np.all(np.isnan(v))
            continue
        one = gala.QPBatch.from_problems([(P, q, A, l, u)], context=target.context, **kw)
        one.solve()
        e = one.adjoint_derivative(dxs[k], dys[k])
        tol = 2e-2 if f32 else 1e-8
        for name in ("dq", "dl", "du", "dP", "dA"):
            assert_close(f"QP {k} {name}", getattr(d, name)[k], getattr(e, name)[0], tol)
    assert d.dP_sum is None
    assert r.status[2] == gala.QPStatus.PRIMAL_INFEASIBLE and r.status[4] == gala.QPStatus.INVALID_DATA
    if not f32:  # float32 may leave a QP SOLVED_INACCURATE (no derivative, as OSQP)
        assert np.sum(d.ok) == 5


def test_shared_batch_and_sum(host, rng):
    """A batch with one P and A: dq etc. as (k, n) arrays, dP as (k, nnz), dP_sum the sum;
    against the same QPs as a heterogeneous batch; a QP rejected at setup keeps its row
    (NaN) and stays out of the sum; NaN in one QP's dx makes only it NOT_FINITE."""
    n, m, k = 6, 4, 5
    P, _, A, _, _ = random_qp(rng, n, m)
    Q = rng.standard_normal((k, n))
    x0 = rng.uniform(-1, 1, (k, n))
    ax = np.array([A @ x for x in x0])
    L = ax - rng.uniform(0.1, 1, ax.shape)
    U = ax + rng.uniform(0.1, 1, ax.shape)
    L[3, 0] = U[3, 0] + 1  # QP 3: invalid data
    b = gala.QPBatch(P, Q, A, L, U, context=host, **TIGHT)
    b.solve()
    dx = rng.standard_normal((k, n))
    d = b.adjoint_derivative(dx)
    pn, an = sp.triu(P).nnz, A.nnz
    assert d.dq.shape == (k, n) and d.dl.shape == (k, m + n) and d.dP.shape == (k, pn)
    assert d.dA.shape == (k, an) and d.dP_sum.shape == (pn,) and d.dA_sum.shape == (an,)
    assert list(d.status) == [0, 0, 0, int(QPDerivStatus.NOT_SOLVED), 0]
    assert np.all(np.isnan(d.dP[3])) and np.all(np.isnan(d.dq[3]))
    good = [0, 1, 2, 4]
    assert_close("dP_sum", d.dP_sum, d.dP[good].sum(0), 1e-12)
    assert_close("dA_sum", d.dA_sum, d.dA[good].sum(0), 1e-12)
    h = gala.QPBatch.from_problems([(P, Q[j], A, L[j], U[j]) for j in good], context=host, **TIGHT)
    h.solve()
    e = h.adjoint_derivative([dx[j] for j in good])
    for i, j in enumerate(good):
        assert_close(f"dq {j}", d.dq[j], e.dq[i], 1e-8)
        assert_close(f"dP {j}", d.dP[j], e.dP[i], 1e-8)
        assert_close(f"dA {j}", d.dA[j], e.dA[i], 1e-8)
    dx[1, 2] = np.nan
    d = b.adjoint_derivative(dx, np.zeros((k, m + n)))
    assert list(d.status) == [0, int(QPDerivStatus.NOT_FINITE), 0, int(QPDerivStatus.NOT_SOLVED), 0]
    assert np.all(np.isnan(d.du[1])) and np.all(np.isfinite(d.du[0]))
    assert np.all(np.isnan(d.dP_sum))  # the sum over a failed QP
    assert not d.ok[1] and d.ok[0]


def test_batch_errors(host):
    """Calls that are errors: before a solve (gala's InvalidArgumentError, naming the C
    function), wrong shapes (ValueError)."""
    b = gala.QPBatch(sp.eye(2), np.ones((2, 2)), sp.eye(2), -np.ones((2, 2)), np.ones((2, 2)),
                     context=host)
    with pytest.raises(gala.InvalidArgumentError, match="no solution yet"):
        b.adjoint_derivative(np.ones((2, 2)))
    b.solve()
    with pytest.raises(ValueError, match="dx"):
        b.adjoint_derivative(np.ones((3, 2)))
    with pytest.raises(ValueError, match="dy"):
        b.adjoint_derivative(None, np.ones(3))
    d = b.adjoint_derivative()  # zero: zero gradients
    assert np.all(d.dq == 0) and np.all(d.dP == 0) and np.all(d.ok)
    c = gala.QPBatch(sp.eye(2), np.ones((3, 2)), sp.eye(2), -np.ones((3, 2)), np.ones((3, 2)),
                     context=host, max_chunk=1)
    c.solve()
    assert c.chunks > 1
    with pytest.raises(gala.NotSupportedError, match="chunks"):
        c.adjoint_derivative(np.ones((3, 2)))


def dense_batch_with_zeros(rng, k: int, n: int = 5):
    """k kkt_qp QPs as dense (k, n, n) P and (k, 6, n) A, with structural zeros: P(0, 1)
    and A(4:6, 0) zero in every QP (out of the union pattern), A(4, 1) zero in QP 0 only (in
    the pattern when k > 1, zero there). x*, y* stay the solution: P keeps its definiteness
    (the removed entry's magnitude goes to the diagonal), q is recomputed, and the inactive
    rows 4, 5 get bounds around their new Aᵢx*."""
    Ps, qs, As, ls, us = [], [], [], [], []
    for j in range(k):
        P, q, A, l, u, x, y = kkt_qp(rng, n)
        P[0, 0] += abs(P[0, 1])
        P[1, 1] += abs(P[0, 1])
        P[0, 1] = P[1, 0] = 0.0
        A[4:, 0] = 0.0
        if j == 0:
            A[4, 1] = 0.0
        q = -P @ x - A.T @ y
        ax = A @ x
        l[4], u[4] = ax[4] - rng.uniform(0.5, 1), ax[4] + rng.uniform(0.5, 1)
        l[5] = ax[5] - rng.uniform(0.5, 1)
        Ps.append(P)
        qs.append(q)
        As.append(A)
        ls.append(l)
        us.append(u)
    return tuple(np.array(v) for v in (Ps, qs, As, ls, us))


@pytest.mark.parametrize("k", [1, 7, 300])
def test_from_dense_union_pattern(host, rng, k):
    """QPBatch.from_dense (one union pattern, one setup call) against the same QPs given one
    by one as CSC matrices (from_problems): the same solutions and gradients; dense_pattern
    places dP, dA; matrices=False gives dq, dl, du only, from which dP and dA follow by
    ½(dq xᵀ + x dqᵀ) and y dqᵀ − (dl + du) xᵀ (the formulas gala.torch uses)."""
    P, q, A, l, u = dense_batch_with_zeros(rng, k)
    n, m = q.shape[1], l.shape[1]
    b = gala.QPBatch.from_dense(P, q, A, l, u, context=host, **TIGHT)
    prow, pcol, arow, acol = b.dense_pattern
    assert not np.any((prow == 0) & (pcol == 1)) and not np.any((arow >= 4) & (acol == 0))
    assert np.any((arow == 4) & (acol == 1)) == (k > 1) and np.all(prow <= pcol)
    assert len(prow) == n * (n + 1) // 2 - 1 and len(arow) == m * n - 2 - (k == 1)
    r = b.solve()
    assert np.all(r.solved)
    parts = [csc_parts(P[j], A[j]) for j in range(k)]
    h = gala.QPBatch.from_problems([(Pu, q[j], Ac, l[j], u[j]) for j, (Pu, Ac) in enumerate(parts)],
                                   context=host, **TIGHT)
    rh = h.solve()
    assert_close("x", r.x, rh.x, 1e-8)
    assert_close("y", r.y, rh.y, 1e-8)
    dx, dy = rng.standard_normal((k, n)), rng.standard_normal((k, m))
    d = b.adjoint_derivative(dx, dy)
    e = h.adjoint_derivative(dx, dy)
    assert np.all(d.ok) and d.dP.shape == (k, len(prow)) and d.dA.shape == (k, len(arow))
    for name in ("dq", "dl", "du"):
        assert_close(name, getattr(d, name), getattr(e, name), 1e-7)
    for j in range(min(k, 10)):
        # e's patterns (csc_parts) skip the zeros, d's hold A(4, 1) of QP 0: compare densely
        DP, DA = np.zeros((n, n)), np.zeros((m, n))
        DP[prow, pcol] = d.dP[j]
        DA[arow, acol] = d.dA[j]
        Pu, Ac = parts[j]
        EP, EA = np.zeros((n, n)), np.zeros((m, n))
        EP[Pu.indices, np.repeat(np.arange(n), np.diff(Pu.indptr))] = e.dP[j]
        EA[Ac.indices, np.repeat(np.arange(n), np.diff(Ac.indptr))] = e.dA[j]
        both = np.zeros((m, n), bool)
        both[Ac.indices, np.repeat(np.arange(n), np.diff(Ac.indptr))] = True
        assert_close(f"QP {j} dP", DP, EP, 1e-7)
        assert_close(f"QP {j} dA", DA[both], EA[both], 1e-7)
        # the formulas, everywhere (in the pattern or not)
        x, y = r.x[j], r.y[j]
        FP = 0.5 * (np.outer(d.dq[j], x) + np.outer(x, d.dq[j]))
        FA = np.outer(y, d.dq[j]) - np.outer(d.dl[j] + d.du[j], x)
        assert_close(f"QP {j} dP formula", FP[prow, pcol], d.dP[j], 1e-10)
        assert_close(f"QP {j} dA formula", FA[arow, acol], d.dA[j], 1e-10)
    v = b.adjoint_derivative(dx, dy, matrices=False)
    assert v.dP is None and v.dA is None and v.dP_sum is None
    assert_close("dq (matrices=False)", v.dq, d.dq, 0)


def test_from_dense_shared_and_errors(host, rng):
    """from_dense with one P and A (2-D) is the shared strategy, its dense_pattern that of
    QPBatch(P, q, A, ...); one P with per-QP A against each QP alone; shapes that disagree
    raise."""
    P, _, A, _, _ = dense_batch_with_zeros(rng, 4)
    vec = [kkt_vectors(rng, P[0], A[0]) for _ in range(4)]
    q, l, u = (np.array([v[i] for v in vec]) for i in range(3))
    b = gala.QPBatch.from_dense(P[0], q, A[0], l, u, context=host, **TIGHT)
    assert b.linsys == "dense-shared"
    c = gala.QPBatch(sp.csc_matrix(P[0]), q, sp.csc_matrix(A[0]), l, u, context=host, **TIGHT)
    for got, want in zip(b.dense_pattern, c.dense_pattern):
        assert np.array_equal(got, want)
    rb, rc = b.solve(), c.solve()
    assert np.all(rb.solved) and np.all(rc.solved)
    assert_close("x shared", rb.x, rc.x, 1e-9)
    vec = [kkt_vectors(rng, P[0], A[j]) for j in range(4)]
    q, l, u = (np.array([v[i] for v in vec]) for i in range(3))
    m = gala.QPBatch.from_dense(P[0], q, A, l, u, context=host, **TIGHT)
    rm = m.solve()
    assert np.all(rm.solved)
    for j in range(4):
        one = gala.QPBatch.from_dense(P[0], q[j], A[j], l[j], u[j], context=host, **TIGHT)
        assert_close(f"x {j}", rm.x[j], one.solve().x[0], 1e-8)
    with pytest.raises(ValueError, match="batch size"):
        gala.QPBatch.from_dense(P, q[:3], A, l, u, context=host)
    with pytest.raises(ValueError, match="A: expected"):
        gala.QPBatch.from_dense(P, q, A[:, :, :3], l, u, context=host)
    with pytest.raises(ValueError, match="P: expected"):
        gala.QPBatch.from_dense(P[:, :3], q, A, l, u, context=host)


# ----------------------------------------------------------------------------- PyTorch

def kkt_vectors(rng, P: np.ndarray, A: np.ndarray):
    """q, l, u that make x*, y* the solution for the given P and A (6 rows, as kkt_qp: two
    equalities, rows active at their lower and upper bounds, two inactive rows)."""
    n = P.shape[0]
    x = rng.uniform(-1, 1, n)
    y = np.array([-rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5), -rng.uniform(0.5, 1.5),
                  rng.uniform(0.5, 1.5), 0.0, 0.0])
    ax = A @ x
    l = np.array([ax[0], ax[1], ax[2], -np.inf, ax[4] - rng.uniform(0.5, 1), ax[5] - rng.uniform(0.5, 1)])
    u = np.array([ax[0], ax[1], ax[2] + rng.uniform(0.5, 1), ax[3], ax[4] + rng.uniform(0.5, 1), np.inf])
    return -P @ x - A.T @ y, l, u


def _split_bounds(l: np.ndarray, u: np.ndarray):
    """(b, l_rest, u_rest): the equality rows' values (rows 0, 1) and the other rows' bounds."""
    return l[..., :2], l[..., 2:], u[..., 2:]


def _qp_of(torch, options):
    """f(P, q, A, b, l_rest, u_rest) -> (x, y) through gala.torch.QPFunction, the equality
    rows (0, 1) given by b (l = u = b): their gradient is dl + du."""
    from gala.torch import QPFunction

    def f(P, q, A, b, lr, ur):
        return QPFunction.apply(P, q, A, torch.cat([b, lr], -1), torch.cat([b, ur], -1), options)
    return f


GRAD_SETTINGS = dict(eps_abs=1e-10, eps_rel=1e-10, max_iter=100000, polishing=True)


def test_torch_gradcheck_batched(host, rng):
    """torch.autograd.gradcheck (double, finite differences) of x and y with respect to
    every input of a batch of 3 QPs, each with its own P and A (P not symmetric: the
    objective is ½xᵀPx), with active lower and upper bounds and equalities."""
    torch = pytest.importorskip("torch")
    k, n = 3, 5
    Ps, As, qs, ls, us = [], [], [], [], []
    for _ in range(k):
        P, q, A, l, u, _, _ = kkt_qp(rng, n)
        S = rng.standard_normal((n, n)) * 0.1
        Ps.append(P + S - S.T)  # same symmetric part
        As.append(A)
        qs.append(q)
        ls.append(l)
        us.append(u)
    b, lr, ur = _split_bounds(np.array(ls), np.array(us))
    args = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
            for a in (np.array(Ps), np.array(qs), np.array(As), b, lr, ur)]
    f = _qp_of(torch, dict(context=host, **GRAD_SETTINGS))
    assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=1e-5, rtol=1e-4)
    x, y = f(*args)
    assert x.shape == (k, n) and y.shape == (k, 6) and x.dtype == torch.float64
    # the gradient reaches every kind of input (not trivially zero)
    (x.sum() + y.sum()).backward()
    for a in args:
        assert a.grad is not None and torch.all(torch.isfinite(a.grad)) and a.grad.abs().max() > 1e-4
    # infinite bounds get 0
    assert args[4].grad[:, 1].abs().max() == 0 and args[5].grad[:, 3].abs().max() == 0


def test_torch_gradcheck_shared(host, rng):
    """One P and A for the batch (gala's shared strategy): their gradients are the sums over
    the QPs; gradcheck against finite differences, and against the batch of copies."""
    torch = pytest.importorskip("torch")
    # n = 5: the 4 active rows of kkt_qp would fix x with n = 4 (and ADMM at eps 1e-10
    # stalls at such a vertex)
    k, n = 3, 5
    P, _, A, _, _, _, _ = kkt_qp(rng, n)
    vecs = [kkt_vectors(rng, P, A) for _ in range(k)]
    q = np.array([v[0] for v in vecs])
    b, lr, ur = _split_bounds(np.array([v[1] for v in vecs]), np.array([v[2] for v in vecs]))
    args = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (P, q, A, b, lr, ur)]
    f = _qp_of(torch, dict(context=host, **GRAD_SETTINGS))
    assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=1e-5, rtol=1e-4)
    # the same with P and A repeated along the batch: the same x, and the summed gradients
    w = torch.tensor(rng.standard_normal((k, n)))
    x1, _ = f(*args)
    (x1 * w).sum().backward()
    rep = [torch.tensor(np.repeat(a[None], k, 0), dtype=torch.float64, requires_grad=True)
           for a in (P, A)]
    x2, _ = f(rep[0], args[1].detach(), rep[1], args[3].detach(), args[4].detach(), args[5].detach())
    (x2 * w).sum().backward()
    assert torch.allclose(x1, x2, atol=1e-9)
    assert torch.allclose(args[0].grad, rep[0].grad.sum(0), atol=1e-8)
    assert torch.allclose(args[2].grad, rep[1].grad.sum(0), atol=1e-8)


def test_torch_layer(host, rng):
    """QPLayer: x (and y) as QPBatch gives them, float32 tensors in and out, unbatched
    inputs, and a QP that is not solved raises (or gives NaN with check_solved=False)."""
    torch = pytest.importorskip("torch")
    from gala.torch import QPLayer
    P, q, A, l, u, xs, ys = kkt_qp(rng, 5)
    t = {k_: torch.tensor(v, dtype=torch.float32) for k_, v in dict(P=P, q=q, A=A, l=l, u=u).items()}
    layer = QPLayer(context=host, return_dual=True, **GRAD_SETTINGS)
    x, y = layer(t["P"], t["q"], t["A"], t["l"], t["u"])
    assert x.shape == (5,) and y.shape == (6,) and x.dtype == torch.float32
    # against the QP of the float32 data (rounding them moves x*, y* by about cond·6e-8)
    r32 = [v.astype(np.float32).astype(np.float64) for v in (P, q, A, l, u)]
    Pu, Ac = csc_parts(r32[0], r32[2])
    r = gala.QPBatch(Pu, r32[1], Ac, r32[3], r32[4], context=host, **GRAD_SETTINGS).solve()
    assert np.allclose(x.numpy(), r.x[0], atol=1e-5) and np.allclose(y.numpy(), r.y[0], atol=1e-5)
    assert np.allclose(x.numpy(), xs, atol=1e-2) and np.allclose(y.numpy(), ys, atol=1e-2)
    qt = t["q"].clone().requires_grad_(True)
    QPLayer(context=host, **GRAD_SETTINGS)(t["P"], qt, t["A"], t["l"], t["u"]).sum().backward()
    want = gala_deriv(P, q, A, l, u, np.ones(5), np.zeros(6), host)[2]
    assert np.allclose(qt.grad.numpy(), want, atol=1e-4)
    # infeasible: row 0 (an equality) and a copy of it with another value
    A2 = np.vstack([A, A[:1]])
    l2, u2 = np.append(l, l[0] + 1), np.append(u, u[0] + 1)
    bad = [torch.tensor(v) for v in (P, q, A2, l2, u2)]
    with pytest.raises(ValueError, match="not solved"):
        QPLayer(context=host)(*bad)
    bad[1].requires_grad_(True)
    x = QPLayer(context=host, check_solved=False)(*bad)
    assert torch.all(torch.isnan(x))
    x.sum().backward()
    assert torch.all(torch.isnan(bad[1].grad))


def test_torch_union_pattern(host, rng):
    """Entries zero in every QP of the batch are outside gala's union pattern, yet variables
    of the layer: gradcheck perturbs them (the pattern follows) and their analytic gradient
    comes from the dense formulas; one P shared with per-QP A (its gradient summed)."""
    torch = pytest.importorskip("torch")
    k = 3
    P, q, A, l, u = dense_batch_with_zeros(rng, k, 5)  # 4 active rows: x depends on P
    b, lr, ur = _split_bounds(l, u)
    args = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (P, q, A, b, lr, ur)]
    f = _qp_of(torch, dict(context=host, **GRAD_SETTINGS))
    assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=1e-5, rtol=1e-4)
    x, _ = f(*args)
    x.sum().backward()
    # P(0, 1), outside the pattern, has a gradient (A's zeros are in inactive rows: 0 there)
    assert args[0].grad[:, 0, 1].abs().max() > 1e-6 and args[2].grad[:, 4:, 0].abs().max() == 0
    # one P for every QP, A per QP
    vec = [kkt_vectors(rng, P[0], A[j]) for j in range(k)]
    qv, lv, uv = (np.array([v[i] for v in vec]) for i in range(3))
    b, lr, ur = _split_bounds(lv, uv)
    args = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
            for a in (P[0], qv, A, b, lr, ur)]
    assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=1e-5, rtol=1e-4)


def test_torch_shared_vectors(host, rng):
    """Per-QP P and A with q, l, u shared by the batch (1-D): their gradients are the sums of
    the per-QP ones, as with the vectors repeated along the batch."""
    torch = pytest.importorskip("torch")
    from gala.torch import QPFunction
    k = 4
    P1, q1, A1, l1, u1 = (a[0] for a in dense_batch_with_zeros(rng, 1))
    # QPs near QP 0 (its vectors stay feasible for them), A's zeros kept
    S = rng.standard_normal((k, *P1.shape)) * 0.01
    P = P1 + S + S.transpose(0, 2, 1)
    A = A1 * (1 + 0.01 * rng.standard_normal((k, *A1.shape)))
    q, l, u = q1[None], l1[None], u1[None]
    t = [torch.tensor(a, requires_grad=True) for a in (P, q[0], A, l[0], u[0])]
    x, y = QPFunction.apply(*t, dict(context=host, **GRAD_SETTINGS))
    assert x.shape == (k, P.shape[1]) and y.shape == (k, l.shape[1])
    w = torch.tensor(rng.standard_normal(x.shape))
    (x * w).sum().backward()
    rep = [torch.tensor(np.repeat(a[None], k, 0), requires_grad=True) for a in (q[0], l[0], u[0])]
    x2, _ = QPFunction.apply(t[0].detach(), rep[0], t[2].detach(), rep[1], rep[2],
                             dict(context=host, **GRAD_SETTINGS))
    (x2 * w).sum().backward()
    assert torch.allclose(x, x2, atol=1e-12)
    for a, b in ((t[1], rep[0]), (t[3], rep[1]), (t[4], rep[2])):
        assert a.grad.shape == b.grad.shape[1:] and torch.allclose(a.grad, b.grad.sum(0), atol=1e-9)
