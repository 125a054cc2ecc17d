"""Where the layer's time goes at one batch: cProfile of forward + backward (after a warm-up),
and gala's own phase profile (profile=1) of the solve."""
import cProfile, pstats, sys, io, time
import numpy as np, torch
sys.path.insert(0, "bench")
import bench_torch as bt
import gala, gala.torch as gtorch
k = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
P, q, A, l, u = bt.dense_batch("control", 10, k, 1e-6)
dt = torch.float64
ts = bt.leaves((P, q, A, l, u), dt, "cuda")
w = torch.tensor(np.random.default_rng(k).standard_normal(q.shape), dtype=dt, device="cuda")
ctx = gala.Context(backend="cuda")
def go(opts):
    bt.reset(ts)
    x, _ = gtorch.QPFunction.apply(*ts, dict(opts, context=ctx))
    torch.cuda.synchronize()
    (x * w).sum().backward()
    torch.cuda.synchronize()
for _ in range(2): go({})
pr = cProfile.Profile()
t = time.perf_counter(); pr.enable(); go({}); pr.disable(); t = time.perf_counter() - t
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(30); print(f"batch {k}: {t*1e3:.1f} ms"); print(s.getvalue())
# gala's phases: the same solve with profile on
P3, A3 = ts[0].detach(), ts[2].detach()
orig = gala.torch.QPBatch._from_stacked
holder = {}
def spy(*a, **kw):
    b = orig(*a, **kw); holder["b"] = b; return b
gala.torch.QPBatch._from_stacked = spy
go({"profile": True})
b = holder["b"]
print("profile:", b.profile())
inf = b._solver.infos()
import numpy as _np
print("layer: polish per-QP sum %.1f ms, polished %d, mean iter %.1f, threads setting %s" % (1e3 * _np.sum(inf["polish_time"]), int(_np.sum(inf["status_polish"] == 1)), float(_np.mean(inf["iter"])), "?"))
