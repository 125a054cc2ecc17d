"""One process: the layer's polish phase against a direct QPBatch solve of the same QPs."""
import sys, time, numpy as np, torch
sys.path.insert(0, "bench")
import bench_torch as bt
import gala, gala.torch as gtorch, gala._csc as csc
from gala.qp import QPBatch
k = 1000
P, q, A, l, u = bt.dense_batch("control", 10, k, 1e-6)
ts = bt.leaves((P, q, A, l, u), torch.float64, "cuda")
w = torch.tensor(np.random.default_rng(k).standard_normal(q.shape), dtype=torch.float64, device="cuda")
ctx = gala.Context(backend="cuda")
holder = {}
orig = gtorch.QPBatch._from_stacked
def spy(*a, **kw):
    b = orig(*a, **kw); holder["b"] = b; return b
gtorch.QPBatch._from_stacked = spy
def layer(bw=True):
    bt.reset(ts)
    x, _ = gtorch.QPFunction.apply(*ts, dict(context=ctx, profile=True))
    torch.cuda.synchronize()
    if bw:
        (x * w).sum().backward(); torch.cuda.synchronize()
    b = holder["b"]; inf = b._solver.infos()
    return b.profile()["polish"][0], np.sum(inf["polish_time"])
nzP = (P != 0).any(0); mP = np.triu(nzP | nzP.T); mA = (A != 0).any(0)
pp, pi, pr, pc = csc.union_pattern(mP); ap, ai, ar, ac = csc.union_pattern(mA)
Pv = 0.5 * (P[:, pr, pc] + P[:, pc, pr])
def direct():
    b = QPBatch._from_stacked(10*16, 270, (pp, pi), Pv, q, (ap, ai), A[:, ar, ac], l, u, context=ctx,
                              eps_abs=1e-5, eps_rel=1e-5, polishing=True, profile=True, dtype=np.float64)
    b.solve(); inf = b._solver.infos()
    return b.profile()["polish"][0], np.sum(inf["polish_time"])
for name, f in (("layer", layer), ("direct", direct), ("layer-fwd", lambda: layer(False)), ("layer", layer), ("direct", direct)):
    for _ in range(3):
        wall, s = f()
        print(f"{name:9s}: polish phase {1e3*wall:6.1f} ms, per-QP sum {1e3*s:6.1f} ms, parallel {s/wall:4.1f}x")
