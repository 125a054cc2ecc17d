"""One side (GALA_SIDE=base|new) of the A/B: reads 'round' lines, answers JSON timings."""
import sys, os, time, json, hashlib
sys.path.insert(0, "/tmp"); import fwd_side; fwd_side.use()
import numpy as np, torch, gala, gala.torch as gt
sys.path.insert(0, "/work/wt-fwd/bench"); from bench_torch import dense_batch
k = int(sys.argv[1]); backend = sys.argv[2]
ctx = gala.Context(backend=backend)
ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in dense_batch("control", 10, k, 1e-6)]
w = torch.tensor(np.random.default_rng(k).standard_normal((k, 160)))
acc = {}
def timed(name, f):
    def g(*a, **kw):
        t = time.perf_counter(); r = f(*a, **kw); acc[name] = acc.get(name, 0) + time.perf_counter() - t; return r
    return g
gt._patterns = timed("py_pattern", gt._patterns) if hasattr(gt, "_patterns") else None
gt._union = timed("py_pattern_union", gt._union)
from gala.qp import QPBatch
QPBatch._from_stacked = classmethod(timed("py+c_setup_call", QPBatch._from_stacked.__func__))
QPBatch.solve = timed("py+c_solve_call", QPBatch.solve)
gt._values = timed("py_gather", gt._values)
SETUP = ("validate", "layout", "upload", "scale", "form_k", "factor", "setup_other")
SOLVE = ("iterate", "check", "sync", "refactor", "collect", "solve_other")
def one():
    acc.clear()
    for t in ts: t.grad = None
    t0 = time.perf_counter()
    x, _ = gt.QPFunction.apply(*ts, {"context": ctx, "profile": 1})
    t1 = time.perf_counter()
    (x * w).sum().backward()
    t2 = time.perf_counter()
    pr = x.grad_fn.batch.profile()
    d = dict(fwd=t1 - t0, bwd=t2 - t1, c_setup=sum(pr[p][0] for p in SETUP),
             c_solve=sum(pr[p][0] for p in SOLVE), c_polish=pr["polish"][0], **acc)
    d["host_rest"] = d["fwd"] - d["c_setup"] - d["c_solve"] - d["c_polish"]
    d["fwd_minus_c_solve"] = d["fwd"] - d["c_setup"] - d["c_solve"]
    h = hashlib.sha1()
    for a in (x.detach().numpy(), ts[0].grad.numpy(), ts[1].grad.numpy(), ts[2].grad.numpy(), ts[3].grad.numpy(), ts[4].grad.numpy()):
        h.update(np.ascontiguousarray(a).tobytes())
    d["hash"] = h.hexdigest()[:12]
    return d
one()  # warm-up
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() != "round": break
    print(json.dumps(one()), flush=True)
