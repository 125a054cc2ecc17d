import sys, time, numpy as np
sys.path.insert(0, "bench")
import gala, gala._csc as csc
from gala.qp import QPBatch
k = int(sys.argv[1]) if len(sys.argv) > 1 else 300
th = int(sys.argv[2]) if len(sys.argv) > 2 else 1
ps = [gala.problems.generate("control", 10, 1 + j) for j in range(k)]
n, m = ps[0].n, ps[0].m
P = np.stack([(lambda U: U + U.T - np.diag(np.diag(U)) + 1e-6*np.eye(n))(p.P.toarray()) for p in ps])
A = np.stack([p.A.toarray() for p in ps])
nzP = (P != 0).any(0); mP = np.triu(nzP | nzP.T); mA = (A != 0).any(0)
pp, pi, pr, pc = csc.union_pattern(mP); ap, ai, ar, ac = csc.union_pattern(mA)
print("nnz P", len(pi), "nnz A", len(ai))
be = sys.argv[3] if len(sys.argv) > 3 else "host"
if len(sys.argv) > 4: import torch; torch.zeros(1000, device="cuda").sum(); x = torch.randn(1000, 1000) @ torch.randn(1000, 1000)
ctx = gala.Context(backend=be)
dx = np.random.default_rng(0).standard_normal((k, n))
for r in range(4):
    t0 = time.perf_counter()
    b = QPBatch._from_stacked(n, m, (pp, pi), P[:, pr, pc], np.stack([p.q for p in ps]), (ap, ai), A[:, ar, ac],
                          np.stack([p.l for p in ps]), np.stack([p.u for p in ps]), context=ctx,
                          eps_abs=1e-5, eps_rel=1e-5, polishing=True, profile=True, threads=th)
    t = time.perf_counter(); b.solve(); t1 = time.perf_counter(); b.adjoint_derivative(dx, None, matrices=False); t2 = time.perf_counter()
    pr_ = b.profile()
    inf = b._solver.infos()
    print(f"{be} th {th} torch {len(sys.argv) > 4} rep {r}: setup {1e3*(t-t0):.1f} solve {1e3*(t1-t):.1f} ms polish {1e3*pr_['polish'][0]:.1f} ms (per-QP sum {1e3*np.sum(inf['polish_time']):.1f}, iter {np.mean(inf['iter']):.1f}) derivative {1e3*(t2-t1):.1f} ms")
    for _ in range(2):
        t = time.perf_counter(); b.solve(); t1 = time.perf_counter(); b.adjoint_derivative(dx, None, matrices=False); t2 = time.perf_counter()
        pr_ = b.profile()
        print(f"   again: solve {1e3*(t1-t):.1f} ms polish {1e3*pr_['polish'][0]:.1f} ms derivative {1e3*(t2-t1):.1f} ms")
