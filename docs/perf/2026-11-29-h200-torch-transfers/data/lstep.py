"""Step timings of gala.torch's forward/backward at one batch (sync between steps), with the
layer's own helpers; gala's phase profile."""
import sys, time, statistics as st
import numpy as np, torch
sys.path.insert(0, "bench")
import bench_torch as bt
import gala, gala.torch as gt
from gala.qp import QPBatch
k = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
P, q, A, l, u = bt.dense_batch("control", 10, k, 1e-6)
n, m = q.shape[1], l.shape[1]
dt = torch.float64
ts = bt.leaves((P, q, A, l, u), dt, "cuda")
w = torch.tensor(np.random.default_rng(k).standard_normal(q.shape), dtype=dt, device="cuda")
ctx = gala.Context(backend="cuda")
S = torch.cuda.synchronize
T = {}
def step(name, f):
    S(); t = time.perf_counter(); r = f(); S()
    T.setdefault(name, []).append(time.perf_counter() - t); return r
def layer():
    bt.reset(ts)
    x, _ = gt.QPFunction.apply(*ts, {"context": ctx})
    (x * w).sum().backward()
prof = {}
dev = torch.device("cuda")
def manual():
    P3, A3 = ts[0].detach(), ts[2].detach()
    Ppat, Apat, pa, pat, aa = step("pattern", lambda: gt._patterns(P3, A3))
    Pv, Av, qn, ln, un = step("values_d2h", lambda: gt._to_host([gt._gather(P3, pa, pat), gt._gather(A3, aa), ts[1].detach(), ts[3].detach(), ts[4].detach()]))
    batch = step("setup", lambda: QPBatch._from_stacked(n, m, Ppat, Pv, qn, Apat, Av, ln, un, context=ctx, **gt.DEFAULT_SETTINGS, profile=True))
    hx, hy = gt._host_pair((k * n, k * m), dev)
    r = step("solve", lambda: batch.solve(x_out=hx.numpy(), y_out=hy.numpy()))
    xs, ys = step("xy_h2d", lambda: gt._to_device((hx, hy), ((k, n), (k, m)), dt, dev))
    for ph, (sec, c) in batch.profile().items():
        prof.setdefault(ph, []).append(sec)
    dx = step("dx_d2h", lambda: gt._to_host([w])[0])
    d = step("deriv", lambda: batch.adjoint_derivative(dx, None, matrices=False))
    step("dqlu_h2d", lambda: gt._to_device((d.dq, d.dl, d.du), ((k, n), (k, m), (k, m)), dt, dev))
    step("destroy", lambda: batch.__dict__.clear())
for _ in range(2): layer(); S()
for r in range(reps):
    step("LAYER", lambda: layer())
    manual()
print(f"batch {k}, {reps} reps, medians (ms):")
for name, v in T.items():
    print(f"  {name:16s} {1e3*st.median(v):8.2f}   [{', '.join(f'{1e3*x:.1f}' for x in v)}]")
print("gala phases (median over manual runs, ms):")
for ph, v in prof.items():
    print(f"  {ph:16s} {1e3*st.median(v):8.2f}")
