"""Device arrays on the CUDA backend: PyTorch and CuPy arrays in and out without copies, the
same results as NumPy input, and streams. Runs where the build has the CUDA backend and the
machine a CUDA GPU with PyTorch (CuPy where installed); skipped elsewhere (CI has no GPU).
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gala
import gala.linalg as gl

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or not gala._ext.backend_available("cuda"):
    pytest.skip("no CUDA GPU, or a build without the CUDA backend", allow_module_level=True)

DTYPES = [np.float32, np.float64]
TORCH = {np.float32: torch.float32, np.float64: torch.float64}


@pytest.fixture(scope="module")
def cuda_ctx():
    return gala.Context(backend="cuda", use_environment=False)


def di_batch(rng, k, horizon=12):
    """k double-integrator MPC QPs sharing P and A (Dyro's batch-QP writeup): x_{t+1} = A x_t
    + B u_t, |u| <= 1, from random initial states; values multiples of 1/64 (exact in float)."""
    nx, nu = 2, 1
    n = horizon * (nx + nu)
    Ad = np.array([[1.0, 0.25], [0.0, 1.0]])
    Bd = np.array([[0.03125], [0.25]])
    rows = []
    # dynamics rows: x_{t+1} - A x_t - B u_t = 0 (x_0 given: moved to the bounds)
    A = np.zeros((horizon * nx + horizon * nu, n))
    for t in range(horizon):
        A[t * nx:(t + 1) * nx, t * nx:(t + 1) * nx] = np.eye(nx)
        if t > 0:
            A[t * nx:(t + 1) * nx, (t - 1) * nx:t * nx] = -Ad
        A[t * nx:(t + 1) * nx, horizon * nx + t * nu:horizon * nx + (t + 1) * nu] = -Bd
    for t in range(horizon):
        A[horizon * nx + t, horizon * nx + t] = 1.0
    m = A.shape[0]
    x0 = np.round(rng.uniform(-2, 2, size=(k, nx)) * 64) / 64
    l = np.zeros((k, m))
    l[:, :nx] = x0 @ Ad.T
    u = l.copy()
    l[:, horizon * nx:] = -1.0
    u[:, horizon * nx:] = 1.0
    q = np.zeros((k, n))
    return sp.csc_matrix(np.eye(n)), q, sp.csc_matrix(A), l, u


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_torch_in_and_out_equals_numpy(rng, cuda_ctx, dtype):
    P, q, A, l, u = di_batch(rng, 257)
    host_in = gala.QPBatch(P, q, A, l, u, context=cuda_ctx, dtype=dtype, eps_abs=1e-5, eps_rel=1e-5)
    ref = host_in.solve()
    dev = torch.device("cuda")
    qt, lt, ut = (torch.tensor(v, dtype=TORCH[dtype], device=dev) for v in (q, l, u))
    batch = gala.QPBatch(P, qt, A, lt, ut, context=cuda_ctx, dtype=dtype, eps_abs=1e-5, eps_rel=1e-5)
    xo = torch.full((257, P.shape[0]), float("nan"), dtype=TORCH[dtype], device=dev)
    res = batch.solve(x_out=xo)
    assert res.x.data_ptr() == xo.data_ptr()           # written where the caller said
    assert res.y.is_cuda and res.y.dtype == TORCH[dtype]
    np.testing.assert_array_equal(res.status, ref.status)
    np.testing.assert_array_equal(res.iter, ref.iter)
    np.testing.assert_array_equal(res.x.cpu().numpy().astype(np.float64), ref.x.astype(dtype).astype(np.float64))
    # an update from device arrays, then the same update from NumPy: bitwise the same
    l2, u2 = l.copy(), u.copy()
    l2[:, :2] = u2[:, :2] = np.round(rng.uniform(-1, 1, size=(257, 2)) * 64) / 64
    host_in.update(l=l2, u=u2)
    batch.update(l=torch.tensor(l2, dtype=TORCH[dtype], device=dev),
                 u=torch.tensor(u2, dtype=TORCH[dtype], device=dev))
    r1, r2 = host_in.solve(), batch.solve()
    np.testing.assert_array_equal(r2.iter, r1.iter)
    np.testing.assert_array_equal(r2.x.cpu().numpy().astype(np.float64), r1.x.astype(dtype).astype(np.float64))
    np.testing.assert_array_equal(r2.y.cpu().numpy().astype(np.float64), r1.y.astype(dtype).astype(np.float64))


def test_batch_invalid_device_data_and_warm_start(rng, cuda_ctx):
    P, q, A, l, u = di_batch(rng, 33)
    dev = torch.device("cuda")
    batch = gala.QPBatch(P, torch.tensor(q, device=dev), A, torch.tensor(l, device=dev),
                         torch.tensor(u, device=dev), context=cuda_ctx)
    res = batch.solve()
    assert (res.status == int(gala.QPStatus.SOLVED)).all()
    bad = torch.tensor(l, device=dev)
    bad[5, 3] = float("nan")
    batch.update(l=bad)
    r = batch.solve()
    assert r.status[5] == int(gala.QPStatus.INVALID_DATA) and "row 3" in r.info["message"][5]
    assert torch.isnan(r.x[5]).all() and (np.delete(r.status, 5) == 1).all()
    batch.update(l=torch.tensor(l, device=dev))
    batch.warm_start(x=res.x, y=res.y)                   # from the first solve: converges at once
    r = batch.solve()
    assert (r.status == 1).all() and r.iter.max() <= batch.settings["check_termination"]


def test_batch_on_callers_stream(rng):
    P, q, A, l, u = di_batch(rng, 64)
    s = torch.cuda.Stream()
    ctx = gala.Context(backend="cuda", stream=s.cuda_stream, use_environment=False)
    assert ctx.stream == s.cuda_stream
    ref = gala.QPBatch(P, q, A, l, u, context=gala.Context(backend="host")).solve()
    with torch.cuda.stream(s):
        lt = torch.tensor(l, device="cuda") * 1.0          # made on s
        ut = torch.tensor(u, device="cuda") * 1.0
        qt = torch.zeros_like(torch.tensor(q, device="cuda"))
        batch = gala.QPBatch(P, qt, A, lt, ut, context=ctx)
        batch.update(l=lt, u=ut)
        res = batch.solve()
        x = res.x.clone()                                  # ordered after gala's work on s
    s.synchronize()
    np.testing.assert_allclose(x.cpu().numpy(), ref.x, atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky_in_place_on_device(rng, dtype):
    n, B = 33, 100
    X = torch.randn(B, n, n, dtype=TORCH[dtype], device="cuda")
    A = X @ X.transpose(-1, -2) + n * torch.eye(n, dtype=TORCH[dtype], device="cuda")
    want = torch.linalg.cholesky(A)
    a = A.clone()
    L, info = gl.cholesky(a, overwrite_a=True)             # no context: the tensor's device
    assert L.data_ptr() == a.data_ptr() and (info == 0).all()
    tol = 1e-4 if dtype == np.float32 else 1e-11
    assert torch.linalg.matrix_norm(L - want).max().item() <= tol * torch.linalg.matrix_norm(want).max().item()
    b = torch.randn(B, n, 3, dtype=TORCH[dtype], device="cuda")
    x = gl.cho_solve((L, True), b)
    assert x.is_cuda and torch.linalg.matrix_norm(A @ x - b).max().item() <= 1e3 * tol * n
    # the same through NumPy on the same device: the same factor
    Ln, info_n = gl.cholesky(A.cpu().numpy(), context=gala.Context(backend="cuda"))
    np.testing.assert_array_equal(Ln, L.cpu().numpy())


def test_cupy_arrays(rng):
    cp = pytest.importorskip("cupy")
    n, B = 17, 40
    X = cp.asarray(rng.standard_normal((B, n, n)))
    A = X @ X.transpose(0, 2, 1) + n * cp.eye(n)
    L, info = gl.cholesky(A)
    assert isinstance(L, cp.ndarray) and (info == 0).all()
    cp.testing.assert_allclose(L, cp.linalg.cholesky(A), atol=1e-10)
    T, info = gl.inv_triangular(L)
    cp.testing.assert_allclose(T @ L, cp.broadcast_to(cp.eye(n), (B, n, n)), atol=1e-10)


def test_wrong_device_refused(rng):
    host = gala.Context(backend="host")
    t = torch.eye(4, device="cuda")
    with pytest.raises(ValueError, match="a"):
        gl.cholesky(t, context=host)
    P, q, A, l, u = di_batch(rng, 4)
    batch = gala.QPBatch(P, q, A, l, u, context=host)
    with pytest.raises(ValueError, match="CUDA"):
        batch.update(l=torch.tensor(l, device="cuda"))


def test_osqp_drop_in_on_cuda(rng):
    import gala.osqp as osqp
    n, m = 30, 40
    M = sp.random(n, n, density=0.2, random_state=int(rng.integers(1 << 30)))
    P = (M @ M.T + sp.eye(n)).tocsc()
    A = sp.random(m, n, density=0.3, random_state=int(rng.integers(1 << 30))).tocsc()
    q, l, u = rng.standard_normal(n), -rng.random(m), rng.random(m)
    ref = osqp.OSQP(backend="host")
    ref.setup(P, q, A, l, u, verbose=False)
    r0 = ref.solve()
    s = osqp.OSQP(algebra="cuda")
    s.setup(P, q, A, l, u, verbose=False)
    r1 = s.solve()
    assert r1.info.status == r0.info.status == "solved"
    np.testing.assert_allclose(r1.x, r0.x, atol=1e-8)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_layer_cuda_tensors_equal_cpu(rng, cuda_ctx, dtype):
    """gala.torch with CUDA tensors (one page-locked transfer of the values, the results'
    copies queued) gives the CPU tensors' x, y and gradients of every input, in the inputs'
    dtype and device; a shared q (1-D) and per-QP P, A, l, u; batches of 1 and 300; gala
    solves in double (the layer's default) for both tensor dtypes."""
    from gala.torch import QPFunction
    for k in (1, 300):
        Ps, q, As, l, u = di_batch(rng, k, horizon=7)
        n, m = q.shape[1], l.shape[1]
        P = np.repeat(Ps.toarray()[None], k, 0) * (1 + 0.1 * rng.random((k, 1, 1)))
        A = np.repeat(As.toarray()[None], k, 0)
        q1 = rng.standard_normal(n)
        w = rng.standard_normal((k, n))
        out = {}
        for dev, ctx in (("cpu", gala.Context(backend="host")), ("cuda", cuda_ctx)):
            t = [torch.tensor(a, dtype=TORCH[dtype], device=dev, requires_grad=True)
                 for a in (P, q1, A, l, u)]
            x, y = QPFunction.apply(*t, {"context": ctx, "eps_abs": 1e-9, "eps_rel": 1e-9})
            assert x.device.type == dev and x.dtype == TORCH[dtype] and x.shape == (k, n)
            assert y.device.type == dev and y.shape == (k, m)
            (x * torch.tensor(w, dtype=TORCH[dtype], device=dev)).sum().backward()
            out[dev] = [v.detach().cpu().double().numpy() for v in (x, y, *(a.grad for a in t))]
        tol = 1e-7 if dtype == np.float64 else 1e-5  # gala solves in double either way
        for name, a, b in zip(("x", "y", "P", "q", "A", "l", "u"), out["cpu"], out["cuda"]):
            scale = max(1.0, float(np.abs(a).max()))
            assert np.abs(a - b).max() <= tol * scale, (k, name, np.abs(a - b).max())
