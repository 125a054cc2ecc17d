"""gala as a qpsolvers solver (gala.qpsolvers): every problem form qpsolvers has, dense and
sparse, against exact answers and against qpsolvers' own "osqp" solver (OSQP 1.x, the same
algorithm), on the host backend and on the default device."""
from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as spa

qpsolvers = pytest.importorskip("qpsolvers")
pytest.importorskip("osqp")

import gala  # noqa: E402
import gala.osqp  # noqa: E402
import gala.qpsolvers as gq  # noqa: E402
from qpsolvers.warnings import SparseConversionWarning  # noqa: E402

TIGHT = dict(eps_abs=1e-7, eps_rel=1e-7, max_iter=200000)
TOL = 1e-5

FORMS = ("unconstrained", "box", "lb_only", "ub_only", "eq", "ineq", "ineq_eq", "ineq_box",
         "all")


@pytest.fixture(params=["host", "default"])
def where(request) -> dict:
    """gala's device arguments: the host backend, or none (the default device)."""
    if request.param == "host":
        return {"context": gala.Context(backend="host")}
    if not gala.default_context().info["fp64"]:
        pytest.skip("the default device has no fp64")
    return {}


def _quiet_osqp(problem, **kw):
    """qpsolvers' own OSQP solve (its dense-to-sparse warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return qpsolvers.solve_problem(problem, solver="osqp", **kw)


def _matrix(rng, rows, cols, sparse, density=0.5):
    if sparse:
        M = spa.random(rows, cols, density=density, random_state=rng, format="csc",
                       data_rvs=rng.standard_normal)
        return M
    return rng.standard_normal((rows, cols))


def _problem(rng, form: str, n: int, sparse: bool) -> qpsolvers.Problem:
    """A feasible, strictly convex QP of the given form whose constraints are partly active
    (q pushes x away from a feasible point x0)."""
    M = rng.standard_normal((n, n))
    P = M @ M.T / n + 0.5 * np.eye(n)
    if sparse:
        P = spa.csc_matrix(P)
    q = 3.0 * rng.standard_normal(n)
    x0 = rng.standard_normal(n) * 0.3
    G = h = A = b = lb = ub = None
    if "ineq" in form or form == "all":
        m = int(rng.integers(1, n + 2))
        G = _matrix(rng, m, n, sparse)
        h = G @ x0 + rng.random(m) * 0.5
    if "eq" in form.replace("ineq", "") or form == "all":
        me = int(rng.integers(1, max(2, n // 2 + 1)))
        A = _matrix(rng, me, n, sparse, density=0.8)
        b = A @ x0
    if form in ("box", "ineq_box", "all", "lb_only"):
        lb = x0 - rng.random(n)
    if form in ("box", "ineq_box", "all", "ub_only"):
        ub = x0 + rng.random(n)
    return qpsolvers.Problem(P, q, G, h, A, b, lb, ub)


def _check_against_osqp(problem, sol, ref, tol=TOL):
    assert ref.found, "OSQP did not solve the reference problem"
    assert sol.found
    scale = max(1.0, float(np.abs(ref.x).max()))
    np.testing.assert_allclose(sol.x, ref.x, rtol=0, atol=tol * scale)
    for name in ("y", "z", "z_box"):
        a, r = getattr(sol, name), getattr(ref, name)
        assert a.shape == r.shape, name
        if r.size:
            np.testing.assert_allclose(a, r, rtol=0, atol=tol * max(1.0, float(np.abs(r).max())),
                                       err_msg=name)
    # qpsolvers' own KKT check (primal and dual residuals, duality gap), independent of OSQP
    assert sol.primal_residual() < 10 * tol * scale
    assert sol.dual_residual() < 10 * tol * max(1.0, float(np.abs(problem.q).max()))
    assert sol.duality_gap() < 10 * tol * max(1.0, abs(sol.obj))
    assert sol.obj == pytest.approx(
        0.5 * sol.x @ (problem.P @ sol.x) + problem.q @ sol.x, rel=1e-6, abs=1e-9)


# ---------------------------------------------------------------------------- registration

def test_registered_once():
    for table in (qpsolvers.available_solvers, qpsolvers.dense_solvers,
                  qpsolvers.sparse_solvers):
        assert table.count("gala") == 1
    assert qpsolvers.solvers.solve_function["gala"] is gq.gala_solve_problem
    importlib.reload(gq)
    gq.register()
    for table in (qpsolvers.available_solvers, qpsolvers.dense_solvers,
                  qpsolvers.sparse_solvers):
        assert table.count("gala") == 1
    assert qpsolvers.solvers.solve_function["gala"] is gq.gala_solve_problem


def test_import_gala_does_not_import_qpsolvers():
    code = ("import sys, gala, gala.osqp, gala.linalg; "
            "assert 'qpsolvers' not in sys.modules, 'import gala imported qpsolvers'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_error_without_qpsolvers(monkeypatch):
    monkeypatch.setitem(sys.modules, "qpsolvers", None)  # makes `import qpsolvers` fail
    monkeypatch.delitem(sys.modules, "gala.qpsolvers")
    with pytest.raises(ImportError, match="pip install qpsolvers"):
        importlib.import_module("gala.qpsolvers")


# ---------------------------------------------------------------------------- forms vs OSQP

@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("form", FORMS)
def test_forms_against_osqp(rng, where, form, sparse):
    n = int(rng.choice([1, 3, 7, 12]))
    problem = _problem(rng, form, n, sparse)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SparseConversionWarning)  # gala takes dense
        sol = qpsolvers.solve_problem(problem, solver="gala", **TIGHT, **where)
    ref = _quiet_osqp(problem, **TIGHT)
    if not ref.found:
        # a draw that OSQP's own ADMM does not solve at these tolerances (maximum
        # iterations): gala runs the same algorithm, so it must end the same way
        assert not sol.found
        assert sol.extras["info"].status == ref.extras["info"].status, \
            (sol.extras["info"].status, ref.extras["info"].status)
        return
    _check_against_osqp(problem, sol, ref)
    assert sol.extras["info"].status == "solved"
    assert {"info", "prim_inf_cert", "dual_inf_cert"} <= set(sol.extras)
    # solve_qp gives the same x from the same matrices
    x = qpsolvers.solve_qp(*problem.unpack(), solver="gala", **TIGHT, **where)
    np.testing.assert_allclose(x, sol.x, rtol=0, atol=1e-12)


def test_random_batch_against_osqp(rng, where):
    """Three dozen seeded QPs: random form, size, dense or sparse."""
    for k in range(36):
        form = str(rng.choice(FORMS))
        n = int(rng.integers(1, 16))
        problem = _problem(rng, form, n, bool(rng.integers(2)))
        sol = qpsolvers.solve_problem(problem, solver="gala", **TIGHT, **where)
        ref = _quiet_osqp(problem, **TIGHT)
        try:
            _check_against_osqp(problem, sol, ref)
        except AssertionError as e:
            raise AssertionError(f"problem {k} ({form}, n = {n}): {e}") from None


# ---------------------------------------------------------------------------- exact answers

def test_unconstrained_exact(rng, where):
    n = 9
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    q = rng.standard_normal(n)
    sol = qpsolvers.solve_problem(qpsolvers.Problem(P, q), solver="gala", **TIGHT, **where)
    assert sol.found
    np.testing.assert_allclose(sol.x, np.linalg.solve(P, -q), rtol=0, atol=TOL)
    assert sol.y.shape == sol.z.shape == sol.z_box.shape == (0,)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_equality_exact(rng, where, sparse):
    """min ½xᵀPx + qᵀx s.t. Ax = b: the KKT system [[P, Aᵀ], [A, 0]] gives x and y."""
    n, me = 8, 3
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    q, A, b = rng.standard_normal(n), rng.standard_normal((me, n)), rng.standard_normal(me)
    K = np.block([[P, A.T], [A, np.zeros((me, me))]])
    xy = np.linalg.solve(K, np.concatenate([-q, b]))
    Pm, Am = (spa.csc_matrix(P), spa.csc_matrix(A)) if sparse else (P, A)
    sol = qpsolvers.solve_problem(qpsolvers.Problem(Pm, q, A=Am, b=b), solver="gala",
                                  **TIGHT, **where)
    assert sol.found
    np.testing.assert_allclose(sol.x, xy[:n], rtol=0, atol=TOL)
    np.testing.assert_allclose(sol.y, xy[n:], rtol=0, atol=TOL)
    assert sol.z.shape == sol.z_box.shape == (0,)


def test_box_exact(rng, where):
    """Diagonal P: x = clip(-q/d, lb, ub) and z_box = -(d x + q), negative at active lower
    bounds and positive at active upper ones."""
    n = 11
    d = rng.random(n) + 0.5
    q = 2.0 * rng.standard_normal(n)
    lb, ub = -rng.random(n), rng.random(n)
    lb[0], ub[1] = -np.inf, np.inf
    sol = qpsolvers.solve_problem(qpsolvers.Problem(np.diag(d), q, lb=lb, ub=ub),
                                  solver="gala", **TIGHT, **where)
    x = np.clip(-q / d, lb, ub)
    assert sol.found
    np.testing.assert_allclose(sol.x, x, rtol=0, atol=TOL)
    np.testing.assert_allclose(sol.z_box, -(d * x + q), rtol=0, atol=TOL)
    assert sol.y.shape == sol.z.shape == (0,)


def test_inequality_exact(rng, where):
    """Projection of c onto {x: aᵀx <= β} (P = I, q = -c): x = c - t a, z = t, with
    t = max(0, (aᵀc - β) / |a|²); one halfspace holds c, the other does not."""
    n = 5
    c, a = rng.standard_normal(n), rng.standard_normal(n)
    for beta in (a @ c - 1.0, a @ c + 1.0):
        t = max(0.0, (a @ c - beta) / (a @ a))
        x = qpsolvers.solve_qp(np.eye(n), -c, a.reshape(1, -1), np.array([beta]),
                               solver="gala", **TIGHT, **where)
        np.testing.assert_allclose(x, c - t * a, rtol=0, atol=TOL)
        sol = qpsolvers.solve_problem(qpsolvers.Problem(np.eye(n), -c, a, np.array([beta])),
                                      solver="gala", **TIGHT, **where)
        np.testing.assert_allclose(sol.z, [t], rtol=0, atol=TOL)


# ---------------------------------------------------------------------------- not solved

def test_primal_infeasible(where):
    P, q = np.eye(2), np.zeros(2)
    G, h = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([-1.0, -1.0])  # x0 <= -1, x0 >= 1
    with pytest.warns(UserWarning, match="primal infeasible"):
        assert qpsolvers.solve_qp(P, q, G, h, solver="gala", **where) is None
    with pytest.warns(UserWarning, match="primal infeasible"):
        sol = qpsolvers.solve_problem(qpsolvers.Problem(P, q, G, h), solver="gala", **where)
    assert sol.found is False
    assert sol.x is None and sol.z is None and sol.y is None and sol.z_box is None
    assert sol.extras["info"].status_val == gala.osqp.SolverStatus.OSQP_PRIMAL_INFEASIBLE
    cert = sol.extras["prim_inf_cert"]  # Gᵀ cert = 0 and hᵀ cert < 0, cert >= 0
    assert np.all(cert >= -1e-9) and h @ cert < 0
    np.testing.assert_allclose(G.T @ cert, 0, atol=1e-6 * np.abs(cert).max())
    # infeasible bounds with an equality: x0 + x1 = 3 and 0 <= x <= 1
    with pytest.warns(UserWarning, match="primal infeasible"):
        assert qpsolvers.solve_qp(P, q, A=np.ones((1, 2)), b=np.array([3.0]), lb=np.zeros(2),
                                  ub=np.ones(2), solver="gala", **where) is None


def test_dual_infeasible(where):
    """Unbounded below: P = diag(1, 0) and q = (0, 1), x1 free."""
    with pytest.warns(UserWarning, match="dual infeasible"):
        sol = qpsolvers.solve_problem(qpsolvers.Problem(np.diag([1.0, 0.0]), np.array([0.0, 1.0]),
                                                        lb=np.array([-1.0, -np.inf])),
                                      solver="gala", **where)
    assert sol.found is False and sol.x is None
    cert = sol.extras["dual_inf_cert"]
    assert cert[1] < 0 and abs(cert[0]) < 1e-6 * abs(cert[1])


def test_max_iter_and_raise_error(rng):
    problem = _problem(rng, "all", 9, False)
    with pytest.warns(UserWarning, match="maximum iterations"):
        sol = qpsolvers.solve_problem(problem, solver="gala", max_iter=3, backend="host")
    assert sol.found is False and sol.x is None
    assert sol.extras["info"].iter == 3
    with pytest.raises(gala.osqp.OSQPException):
        qpsolvers.solve_problem(problem, solver="gala", max_iter=3, raise_error=True,
                                backend="host")


def test_invalid_and_nonconvex():
    host = {"backend": "host"}
    with pytest.raises(gq.GalaProblemError, match="[Ll]ower bound"):
        qpsolvers.solve_qp(np.eye(2), np.zeros(2), lb=np.ones(2), ub=-np.ones(2),
                           solver="gala", **host)
    with pytest.raises(qpsolvers.ProblemError, match="non-convex"):
        qpsolvers.solve_qp(np.diag([1.0, -1.0]), np.zeros(2), lb=-np.ones(2), ub=np.ones(2),
                           solver="gala", **host)
    with pytest.raises(ValueError, match="non-convex"):  # GalaProblemError is a ValueError too
        qpsolvers.solve_qp(np.diag([1.0, -1.0]), np.zeros(2), lb=-np.ones(2), ub=np.ones(2),
                           solver="gala", **host)
    with pytest.raises(ValueError, match="no_such_setting"):
        qpsolvers.solve_qp(np.eye(2), np.zeros(2), solver="gala", no_such_setting=1, **host)
    with pytest.raises(qpsolvers.ProblemError, match="missing"):  # qpsolvers' own check
        gq.gala_solve_qp(np.eye(2), np.zeros(2), G=np.eye(2), **host)


# ---------------------------------------------------------------------------- options

def test_initvals_warm_start(rng, where):
    """initvals is OSQP's warm start from x (z = G x, y = 0): from the exact optimum of a QP
    whose inequalities are inactive (so its duals are 0) the first iteration terminates."""
    n = 9
    M = rng.standard_normal((n, n))
    P, q = M @ M.T + np.eye(n), rng.standard_normal(n)
    x_opt = np.linalg.solve(P, -q)
    G = rng.standard_normal((4, n))
    problem = qpsolvers.Problem(P, q, G, G @ x_opt + 1.0)
    every = dict(check_termination=1, **TIGHT)
    cold = qpsolvers.solve_problem(problem, solver="gala", **every, **where)
    warm = qpsolvers.solve_problem(problem, solver="gala", initvals=x_opt, **every, **where)
    assert cold.found and warm.found
    assert warm.extras["info"].iter == 1 < cold.extras["info"].iter
    np.testing.assert_allclose(warm.x, x_opt, rtol=0, atol=TOL)
    np.testing.assert_allclose(warm.z, 0, atol=TOL)
    # a warm start elsewhere, on a problem with active constraints: the same answer as OSQP's
    problem = _problem(rng, "all", 10, True)
    x0 = rng.standard_normal(10)
    warm = qpsolvers.solve_problem(problem, solver="gala", initvals=x0, **TIGHT, **where)
    _check_against_osqp(problem, warm, _quiet_osqp(problem, initvals=x0, **TIGHT))


def test_verbose_and_device_arguments(capsys):
    P, q = np.array([[4.0, 1.0], [1.0, 2.0]]), np.array([1.0, 1.0])
    x = qpsolvers.solve_qp(P, q, solver="gala", backend="host", verbose=False)
    assert capsys.readouterr().out == ""
    x = qpsolvers.solve_qp(P, q, solver="gala", backend="host", verbose=True, **TIGHT)
    out = capsys.readouterr().out
    assert "gala" in out and "host" in out and "solved" in out
    np.testing.assert_allclose(x, np.linalg.solve(P, -q), atol=TOL)
    # float32 on the host backend: single precision's accuracy
    x32 = gq.gala_solve_qp(P, q, lb=np.zeros(2), backend="host", dtype=np.float32,
                           eps_abs=1e-5, eps_rel=1e-5)
    np.testing.assert_allclose(x32, [0.0, 0.0], atol=1e-4)
    # settings reach the solver: a loose tolerance stops sooner than a tight one
    problem = qpsolvers.Problem(P, q, lb=np.array([0.1, -1.0]))
    loose = gq.gala_solve_problem(problem, eps_abs=1e-2, eps_rel=1e-2, backend="host")
    tight = gq.gala_solve_problem(problem, **TIGHT, backend="host")
    assert loose.extras["info"].iter < tight.extras["info"].iter


def test_sparse_formats_and_upper_triangle(rng):
    """csr and coo inputs, and P given whole (qpsolvers' convention), as OSQP reads them."""
    problem = _problem(rng, "all", 6, False)
    P, q, G, h, A, b, lb, ub = problem.unpack()
    ref = _quiet_osqp(problem, **TIGHT)
    sol = qpsolvers.solve_problem(
        qpsolvers.Problem(spa.csr_matrix(P), q, spa.coo_matrix(G), h, spa.csr_matrix(A), b, lb, ub),
        solver="gala", backend="host", **TIGHT)
    _check_against_osqp(problem, sol, ref)
