#!/usr/bin/env python3
"""What the Python layer adds to gala's C calls, and gala.osqp against osqp, in one run.

  python3 bench/bench_python.py batch  [--backend cuda|opencl|host] [--k 10000] [--nx 10] [--rounds 7]
  python3 bench/bench_python.py single [--k 200] [--rounds 7]

batch: a batch of k control QPs (OSQP's benchmark family, nx = 10: 160 variables, 270 rows,
each its own dynamics) in float and double. Per round, alternating: QPBatch.solve() (the
Python call, results converted into NumPy arrays) against the extension's QPSolver.solve()
alone (the C call gala_qp_solve; nanobind's dispatch is all it adds) and against the C calls
that give a C program the same results (gala_qp_solve, gala_qp_get_infos and
gala_qp_get_solutions into arrays allocated once), each on a fresh cold_start so that every
round does the same iterations; the Python overhead is measured against the latter, for
QPBatch.solve() with new NumPy arrays and with x_out/y_out (the same arrays every round, as
the C program's), and against the same C calls on the batch's own solver object (which
holds its own device memory: the C figures of two solver objects differ by where their
buffers lie, not by Python); and the setup, QPBatch.from_problems from gala.generate's SciPy matrices
against QPSolver.setup from arrays already converted.

single: k small control QPs (nx = 2..4) one at a time on the host backend (one thread) and
OSQP (one core), the same instances: setup + solve per QP, then re-solves from a cold start
(gala.osqp, the C call and osqp alternating, three each); gala.osqp's solve
against the raw C solve for the Python overhead. Medians over rounds; prints one JSON line per
case and a table.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import numpy as np

import gala
import gala.osqp as gosqp
from gala import _csc, _ext


def median_ms(ts):
    return 1e3 * statistics.median(ts)


def batch(args):
    ctx = gala.Context(backend=args.backend, use_environment=args.backend == "auto")
    probs = [gala.generate("control", args.nx, seed) for seed in range(1, args.k + 1)]
    rows = []
    for dtype in ("float32", "float64"):
        if dtype == "float64" and not ctx.info["fp64"]:
            continue
        settings = dict(dtype=dtype, eps_abs=1e-3, eps_rel=1e-3, warm_starting=False)
        t0 = time.perf_counter()
        b = gala.QPBatch.from_problems([(p.P, p.q, p.A, p.l, p.u) for p in probs], context=ctx, **settings)
        py_setup_first = time.perf_counter() - t0
        items = [(p.n, p.m, *_csc.arrays(p.P, "P"), p.q, *_csc.arrays(p.A, "A"), p.l, p.u, 0.0)
                 for p in probs]
        cset = gala._settings.make(settings)
        raw = _ext.QPSolver.setup(ctx, items, cset)
        py_solve, py_solve_out, c_same, c_solve, c_results, py_setup, c_setup = [], [], [], [], [], [], []
        xs = np.empty(int(sum(raw.n)))
        ys = np.empty(int(sum(raw.m)))
        b.solve(), raw.solve()  # warm
        for _ in range(args.rounds):
            b.cold_start()
            t0 = time.perf_counter()
            res = b.solve()
            py_solve.append(time.perf_counter() - t0)
            b.cold_start()
            t0 = time.perf_counter()
            b.solve(x_out=xs, y_out=ys)  # into the caller's arrays, as the C call below
            py_solve_out.append(time.perf_counter() - t0)
            b.cold_start()  # the same C calls on the batch's own solver (its own device memory)
            t0 = time.perf_counter()
            b._solver.solve()
            b._solver.infos()
            b._solver.solutions(xs, ys)
            c_same.append(time.perf_counter() - t0)
            raw.cold_start()
            t0 = time.perf_counter()
            raw.solve()
            c_solve.append(time.perf_counter() - t0)
            raw.cold_start()
            t0 = time.perf_counter()
            raw.solve()
            raw.infos()
            raw.solutions(xs, ys)
            c_results.append(time.perf_counter() - t0)
        for _ in range(max(3, args.rounds // 2)):
            t0 = time.perf_counter()
            gala.QPBatch.from_problems([(p.P, p.q, p.A, p.l, p.u) for p in probs], context=ctx, **settings)
            py_setup.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            _ext.QPSolver.setup(ctx, items, cset)
            c_setup.append(time.perf_counter() - t0)
        row = dict(case="batch", backend=ctx.info["backend"], device=ctx.info["name"], dtype=dtype,
                   k=args.k, nx=args.nx, solved=int(res.solved.sum()), iter_mean=float(res.iter.mean()),
                   py_solve_ms=median_ms(py_solve), c_solve_ms=median_ms(c_solve),
                   c_solve_results_ms=median_ms(c_results),
                   py_solve_out_ms=median_ms(py_solve_out), c_same_solver_ms=median_ms(c_same),
                   same_solver_overhead=median_ms(py_solve) / median_ms(c_same) - 1,
                   solve_overhead=median_ms(py_solve) / median_ms(c_results) - 1,
                   solve_out_overhead=median_ms(py_solve_out) / median_ms(c_results) - 1,
                   results_cost=median_ms(c_results) / median_ms(c_solve) - 1,
                   py_setup_ms=median_ms(py_setup), c_setup_ms=median_ms(c_setup),
                   py_setup_first_s=py_setup_first,
                   qps_per_s_py=args.k / (statistics.median(py_solve) + statistics.median(py_setup)),
                   qps_per_s_c=args.k / (statistics.median(c_solve) + statistics.median(c_setup)))
        print(json.dumps(row), flush=True)
        rows.append(row)
    print(f"\n{'dtype':8} {'Python solve':>13} {'(out=)':>8} {'C solve+results':>16} {'overhead':>9} "
          f"{'(out=)':>7} {'C on its solver':>16} {'overhead':>9} {'C solve':>9} {'Python setup':>13} {'C setup':>9}"
          f"  (ms, medians of {args.rounds})")
    for r in rows:
        print(f"{r['dtype']:8} {r['py_solve_ms']:13.2f} {r['py_solve_out_ms']:8.2f} {r['c_solve_results_ms']:16.2f} "
              f"{100 * r['solve_overhead']:8.1f}% {100 * r['solve_out_overhead']:6.1f}% "
              f"{r['c_same_solver_ms']:16.2f} {100 * r['same_solver_overhead']:8.1f}% {r['c_solve_ms']:9.2f} "
              f"{r['py_setup_ms']:13.1f} {r['c_setup_ms']:9.1f}")


def single(args):
    import osqp
    host = gala.Context(backend="host", use_environment=False)
    rng = np.random.default_rng(1)
    probs = [gala.generate("control", int(rng.integers(2, 5)), seed) for seed in range(1, args.k + 1)]
    kw = dict(verbose=False, eps_abs=1e-3, eps_rel=1e-3)
    res = {"gala_setup_solve": [], "osqp_setup_solve": [], "gala_solve": [], "c_solve": [],
           "osqp_solve": []}
    iters_equal = 0
    for _ in range(args.rounds):
        tg = to = tgs = tcs = tos = 0.0
        for p in probs:
            t0 = time.perf_counter()
            g = gosqp.OSQP(context=host)
            g.setup(p.P, p.q, p.A, p.l, p.u, **kw)
            rg = g.solve(raise_error=False)
            tg += time.perf_counter() - t0
            t0 = time.perf_counter()
            o = osqp.OSQP()
            o.setup(p.P, p.q, p.A, p.l, p.u, **kw)
            ro = o.solve(raise_error=False)
            to += time.perf_counter() - t0
            iters_equal += rg.info.iter == ro.info.iter
            # re-solves from a cold start: the solve alone, alternating gala.osqp, the C call
            # and osqp three times each (the first round warms the caches for all three)
            g.update_settings(warm_starting=False)
            o.update_settings(warm_starting=False)
            for rep in range(4):
                t0 = time.perf_counter()
                g.solve(raise_error=False)
                t1 = time.perf_counter()
                g._solver.solve()
                t2 = time.perf_counter()
                o.solve(raise_error=False)
                t3 = time.perf_counter()
                if rep:
                    tgs += (t1 - t0) / 3
                    tcs += (t2 - t1) / 3
                    tos += (t3 - t2) / 3
        res["gala_setup_solve"].append(tg / args.k)
        res["osqp_setup_solve"].append(to / args.k)
        res["gala_solve"].append(tgs / args.k)
        res["c_solve"].append(tcs / args.k)
        res["osqp_solve"].append(tos / args.k)
    us = {key: 1e6 * statistics.median(v) for key, v in res.items()}
    row = dict(case="single", k=args.k, cpu=platform.processor() or platform.machine(), **{f"{k}_us": v for k, v in us.items()},
               python_overhead_us=us["gala_solve"] - us["c_solve"],
               ratio_setup_solve=us["osqp_setup_solve"] / us["gala_setup_solve"],
               ratio_solve=us["osqp_solve"] / us["gala_solve"],
               same_iterations=iters_equal / (args.k * args.rounds))
    print(json.dumps(row), flush=True)
    print(f"\nper QP, medians of {args.rounds} rounds over {args.k} QPs (us): gala.osqp setup+solve "
          f"{us['gala_setup_solve']:.1f}, osqp {us['osqp_setup_solve']:.1f} ({row['ratio_setup_solve']:.2f}x); "
          f"solve {us['gala_solve']:.1f} (C {us['c_solve']:.1f}: Python adds {row['python_overhead_us']:.1f}), "
          f"osqp {us['osqp_solve']:.1f} ({row['ratio_solve']:.2f}x)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", choices=["batch", "single"])
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--k", type=int, default=None)
    ap.add_argument("--nx", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if args.k is None:
        args.k = 10000 if args.case == "batch" else 200
    batch(args) if args.case == "batch" else single(args)


if __name__ == "__main__":
    main()
