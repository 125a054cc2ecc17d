"""gala from Python on the default device: the OSQP drop-in, a batch of MPC QPs against OSQP
solving them one by one, and a batched Cholesky against NumPy. Run by `tools/run.sh demo`."""
import time

import numpy as np

import gala
import gala.linalg as gl
import gala.osqp as gosqp

ctx = gala.default_context()
info = ctx.info
print(f"default device: {info['backend']}: {info['name']} (fp64: {info['fp64']})")
dtype = np.float64 if info["fp64"] else np.float32

# 1. the OSQP interface: one QP
p = gala.generate("control", 4, 1)
solver = gosqp.OSQP()
solver.setup(p.P, p.q, p.A, p.l, p.u, verbose=False, dtype=dtype)
r = solver.solve()
print(f"gala.osqp: one control QP ({p.n} variables, {p.m} rows): {r.info.status}, "
      f"{r.info.iter} iterations, objective {r.info.obj_val:.6g}")

# 2. a batch: 500 control QPs (nx = 10: 160 variables, 270 rows), against OSQP one by one
probs = [gala.generate("control", 10, seed) for seed in range(1, 501)]
t0 = time.perf_counter()
batch = gala.QPBatch.from_problems([(q.P, q.q, q.A, q.l, q.u) for q in probs], dtype=dtype)
res = batch.solve()
tg = time.perf_counter() - t0
print(f"gala.QPBatch: {batch.count} QPs in {tg:.2f} s with setup ({batch.count / tg:.0f} QPs/s; "
      f"{int(res.solved.sum())} solved, {res.iter.mean():.1f} iterations on average, "
      f"strategy {batch.linsys})")
try:
    import osqp
    t0 = time.perf_counter()
    worst = 0.0
    for k, q in enumerate(probs[:100]):
        o = osqp.OSQP()
        o.setup(q.P, q.q, q.A, q.l, q.u, verbose=False)
        ro = o.solve()
        worst = max(worst, abs(ro.info.obj_val - res.obj_val[k]) / max(1.0, abs(ro.info.obj_val)))
    to = (time.perf_counter() - t0) / 100
    print(f"osqp {osqp.__version__}, one core, the first 100 one by one: {1 / to:.0f} QPs/s; "
          f"largest objective difference {worst:.1e} (relative)")
except ImportError:
    print("(osqp is not installed: no comparison)")

# 3. batched Cholesky of 1000 SPD matrices of order 32, against NumPy
rng = np.random.default_rng(0)
X = rng.standard_normal((1000, 32, 32)).astype(dtype)
A = X @ X.transpose(0, 2, 1) + 32 * np.eye(32, dtype=dtype)
L, info_ = gl.cholesky(A)
err = np.abs(L - np.linalg.cholesky(A)).max() / np.abs(L).max()
print(f"gala.linalg.cholesky: 1000 matrices of order 32, {int((info_ == 0).sum())} factored, "
      f"largest difference from NumPy {err:.1e} (relative)")
