"""QPBatch(..., devices=...): one batch divided among several devices (gala_qp_setup_devices).

Contexts of the target's backend stand in for devices: every result must equal the one-device
batch's bit for bit (same backend and precision), and the QPs' answers OSQP's within the
target's tolerance; updates and warm starts after a multi-device solve too; bad arguments are
refused by name."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gala

from test_batch import eps, osqp_solution, random_qp, tol


def _same(a, b):
    """Two QPBatchResults, bit for bit (NaN where the same QPs have no solution)."""
    np.testing.assert_array_equal(a.status, b.status)
    np.testing.assert_array_equal(a.iter, b.iter)
    for xa, xb in zip(a.x, b.x):
        assert np.array_equal(np.asarray(xa), np.asarray(xb), equal_nan=True)
    for ya, yb in zip(a.y, b.y):
        assert np.array_equal(np.asarray(ya), np.asarray(yb), equal_nan=True)
    assert np.array_equal(a.obj_val, b.obj_val, equal_nan=True)


def _extra(target, n):
    """n new contexts on the target's device."""
    info = target.context.info
    return [gala.Context(backend=info["backend"], use_environment=info["backend"] == "opencl")
            for _ in range(n)]


def test_heterogeneous_batch_on_three_devices(target, rng):
    qps = [random_qp(rng, int(rng.integers(1, 14)), int(rng.integers(0, 9))) for _ in range(23)]
    qps[5] = (qps[5][0], np.full(qps[5][0].shape[0], np.nan), *qps[5][2:])  # rejected
    one = gala.QPBatch.from_problems(qps, context=target.context, dtype=target.dtype, **eps(target))
    devs = [target.context] + _extra(target, 2)
    many = gala.QPBatch.from_problems(qps, devices=devs, dtype=target.dtype, **eps(target))
    shares = many.device_shares
    assert len(shares) == 3 and shares[0].start == 0 and shares[-1].stop == 23
    assert all(a.stop == b.start for a, b in zip(shares, shares[1:]))
    assert one.device_shares == [range(0, 23)]
    ra, rb = one.solve(), many.solve()
    _same(ra, rb)
    assert rb.status[5] == gala.QPStatus.INVALID_DATA
    # a QP from the batch's start, middle and end against osqp; one that neither osqp nor
    # the active-set search solves exactly gives its place to its neighbour
    for group in ((0, 1, 2), (11, 12, 10), (22, 21, 20)):
        refs = ((i, osqp_solution(*qps[i], required=False)) for i in group)
        i, r = next(((i, r) for i, r in refs if r is not None), (group, None))
        assert r is not None, f"QPs {group}: no reference"
        np.testing.assert_allclose(rb.x[i], r.x, atol=tol(target) * 10)
    # weights: the second device three times the first's speed takes about three times the work
    w = gala.QPBatch.from_problems(qps, devices=devs[:2], weights=[1, 3], dtype=target.dtype,
                                   **eps(target))
    work = [sum(qps[k][0].shape[0] ** 2 for k in s if k != 5) for s in w.device_shares]
    assert work[1] > work[0]
    _same(ra, w.solve())


def test_shared_batch_updates_and_warm_start(target, rng):
    n, m, k = 7, 5, 19
    P, _, A, _, _ = random_qp(rng, n, m)
    x0 = rng.uniform(-1, 1, (k, n))
    Ax = x0 @ A.T.toarray()
    L = Ax - rng.uniform(0.1, 1, (k, A.shape[0]))
    U = Ax + rng.uniform(0.1, 1, (k, A.shape[0]))
    Q = rng.standard_normal((k, n))
    kw = dict(dtype=target.dtype, **eps(target))
    one = gala.QPBatch(P, Q, A, L, U, context=target.context, **kw)
    two = gala.QPBatch(P, Q, A, L, U, devices=[target.context] + _extra(target, 1), **kw)
    assert two.linsys == one.linsys == "dense-shared"
    _same(one.solve(), two.solve())
    Q2 = Q + 0.1 * rng.standard_normal((k, n))
    for b in (one, two):
        b.update(q=Q2)
    ra, rb = one.solve(), two.solve()
    _same(ra, rb)
    for b in (one, two):
        b.warm_start(x=ra.x * 0.9, y=ra.y * 0.9)
        b.update(Px=np.tile(sp.triu(P, format="csc").data * 1.1, (k, 1)))
    _same(one.solve(), two.solve())


def test_more_devices_than_qps(target, rng):
    qp = random_qp(rng, 5, 3)
    one = gala.QPBatch.from_problems([qp], context=target.context, dtype=target.dtype, **eps(target))
    many = gala.QPBatch.from_problems([qp], devices=[target.context] + _extra(target, 2),
                                      dtype=target.dtype, **eps(target))
    assert sorted(len(s) for s in many.device_shares) == [0, 0, 1]  # where its work falls nearest
    _same(one.solve(), many.solve())


def test_devices_argument(host):
    P = sp.eye(2, format="csc")
    q = np.ones((3, 2))
    A = sp.eye(2, format="csc")
    l, u = -np.ones((3, 2)), np.ones((3, 2))
    b = gala.QPBatch(P, q, A, l, u, context=host, devices=[0, 0], eps_abs=1e-8, eps_rel=1e-8)  # two contexts
    assert len(b.device_shares) == 2 and len(b.devices) == 2
    r = b.solve()
    assert r.solved.all()
    np.testing.assert_allclose(r.x, -np.ones((3, 2)), atol=1e-4)
    assert len(gala.QPBatch(P, q, A, l, u, context=host, devices="all").device_shares) == 1
    with pytest.raises(ValueError, match="devices: expected 'all'"):
        gala.QPBatch(P, q, A, l, u, context=host, devices="some")
    with pytest.raises(ValueError, match=r"devices\[1\] = 5: outside"):
        gala.QPBatch(P, q, A, l, u, context=host, devices=[0, 5])
    with pytest.raises(TypeError, match=r"devices\[0\]: expected a device index"):
        gala.QPBatch(P, q, A, l, u, context=host, devices=["0"])
    with pytest.raises(ValueError, match="devices: the list is empty"):
        gala.QPBatch(P, q, A, l, u, context=host, devices=[])
    with pytest.raises(gala.GalaError, match="is ctxs"):
        gala.QPBatch(P, q, A, l, u, devices=[host, host])
    with pytest.raises(gala.GalaError, match=r"weights\[1\]"):
        gala.QPBatch(P, q, A, l, u, context=host, devices=[0, 0], weights=[1, -1])
    with pytest.raises(ValueError, match="weights: only with devices"):
        gala.QPBatch(P, q, A, l, u, context=host, weights=[1])
    with pytest.raises(ValueError, match="weights: 1 entries for 2 devices"):
        gala.QPBatch(P, q, A, l, u, context=host, devices=[0, 0], weights=[1])
