#!/usr/bin/env python3
"""Solve Maros-Meszaros QPS files with OSQP (Python package) and compare with gala-qp.

  python3 bench/ref_mm_osqp.py tests/data/maros_meszaros --eps 1e-5 --max-iter 4000 \\
      --reference tests/data/maros_meszaros/00README.QP --json osqp_mm.json
  python3 bench/ref_mm_osqp.py tests/data/maros_meszaros --eps 1e-5 --max-iter 4000 \\
      --reference tests/data/maros_meszaros/00README.QP \\
      --gala-qp build/tools/gala-qp --backends host,opencl --markdown table.md

The QPS files are read by this script's own reader (independent of gala's, so that the two
readers check each other): free MPS with the fields split at blanks, the sections of the
Maros-Meszaros set (NAME, OBJSENSE, ROWS, COLUMNS, RHS, RANGES, BOUNDS, QUADOBJ/QSECTION,
ENDATA). The problem is built in the form gala's reader builds (docs/qps.md): A = the
constraint rows in file order, then one identity row per variable with a finite bound;
c0 = -(RHS of the objective row); OBJSENSE MAX negates the objective. OSQP's settings are its
defaults except eps_abs = eps_rel = --eps, max_iter = --max-iter and polishing off, which
are the settings gala-qp is given for the comparison (docs/maros_meszaros.md).

--gala-qp PATH runs gala-qp with the same settings on every backend of --backends: once
with all files as one batch (statuses, iterations, objectives, and the batch's time), then
each file alone (the time column: setup + solve of that QP by itself, the fastest of --reps
runs, after a warm-up run so that no kernel compilation is counted). The --markdown table puts them next to OSQP's, whose
time is its setup_time + solve_time (the fastest of --reps). Needs numpy, scipy, osqp (pip install osqp).

Both solvers' best of --reps runs are taken within one process, OSQP's in this script's
and gala's in gala-qp's (--repeat): caches, memory and lazily bound symbols warm for
both. --gala-cold times gala as before, one gala-qp process per run (the first solve of a
process: on the 2-core development machine 0.1 ms more for a tiny QP, a few ms for the
larger ones).

--interleave (with --gala-qp): on a shared machine, time both solvers in the same minutes:
each of --rounds rounds solves every file alone with each backend of gala-qp and then with
OSQP, file by file (each the best of --reps); the best of the rounds counts for both, and
stderr and the JSON (--json: "rounds", per round the totals, and the load average at its
start) show every round, so that the spread and the median of the totals can be read.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

INF = 1e20


def num(s):
    return float(s.replace("d", "e").replace("D", "E"))


def read_qps(path):
    """Return dict(name, n, P (upper CSC), q, A (CSC), l, u, c0, sense, rows)."""
    name, sense, section = "", 1, None
    obj_row, rows, row_type = None, {}, []
    cols, col_names = {}, []
    entries = []  # (row index, col index, value)
    q, rhs, rng, quad = {}, {}, {}, {}
    lo, up = {}, {}
    bound_given = set()
    with open(path, "r", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            if not line.strip() or line.startswith("*"):
                continue
            if not line[0].isspace():
                words = line.split()
                section = words[0].upper()
                if section == "NAME":
                    name = line[4:].strip()
                elif section in ("OBJSENSE", "OBJSENS") and len(words) > 1:
                    sense = -1 if words[1].upper().startswith("MAX") else 1
                elif section == "ENDATA":
                    break
                continue
            w = line.split()
            if section in ("OBJSENSE", "OBJSENS"):
                sense = -1 if w[0].upper().startswith("MAX") else 1
            elif section == "ROWS":
                t, r = w[0].upper(), w[1]
                if t == "N":
                    if obj_row is None:
                        obj_row = r
                    continue
                rows[r] = len(row_type)
                row_type.append(t)
            elif section == "COLUMNS":
                if len(w) >= 3 and w[1].strip("'").upper() == "MARKER":
                    continue
                c = w[0]
                if c not in cols:
                    cols[c] = len(col_names)
                    col_names.append(c)
                j = cols[c]
                for k in range(1, len(w) - 1, 2):
                    r, v = w[k], num(w[k + 1])
                    if r == obj_row:
                        q[j] = v
                    elif r in rows:
                        entries.append((rows[r], j, v))
            elif section in ("RHS", "RANGES"):
                pairs = w[1:] if len(w) % 2 == 1 else w
                for k in range(0, len(pairs) - 1, 2):
                    r, v = pairs[k], num(pairs[k + 1])
                    if section == "RHS":
                        rhs[r] = v
                    elif r in rows:
                        rng[rows[r]] = v
            elif section == "BOUNDS":
                t = w[0].upper()
                if t in ("FR", "MI", "PL", "BV"):
                    c = w[2] if len(w) >= 3 else w[1]
                    v = None
                else:
                    c, v = (w[2], num(w[3])) if len(w) >= 4 else (w[1], num(w[2]))
                j = cols[c]
                if t in ("UP", "UI"):
                    up[j] = v
                    if v < 0 and j not in bound_given and j not in lo:
                        lo[j] = -math.inf
                elif t in ("LO", "LI"):
                    lo[j] = v
                elif t == "FX":
                    lo[j] = up[j] = v
                elif t == "FR":
                    lo[j], up[j] = -math.inf, math.inf
                elif t == "MI":
                    lo[j] = -math.inf
                elif t == "PL":
                    up[j] = math.inf
                elif t == "BV":
                    lo[j], up[j] = 0.0, 1.0
                bound_given.add(j)
            elif section in ("QUADOBJ", "QSECTION", "QMATRIX"):
                i, j, v = cols[w[0]], cols[w[1]], num(w[2])
                a, b = min(i, j), max(i, j)
                if section == "QMATRIX":
                    quad[(a, b)] = quad.get((a, b), 0.0) + (v / 2 if a != b else v)
                else:
                    quad[(a, b)] = v
    n, mc = len(col_names), len(row_type)
    c0 = -rhs.get(obj_row, 0.0) if obj_row else 0.0
    # constraint rows
    l = np.full(mc, -math.inf)
    u = np.full(mc, math.inf)
    for r, i in rows.items():
        b = rhs.get(r, 0.0)
        t = row_type[i]
        if t == "E":
            l[i] = u[i] = b
        elif t == "L":
            u[i] = b
        elif t == "G":
            l[i] = b
        if i in rng:
            R = rng[i]
            if t == "E":
                if R > 0:
                    u[i] = b + abs(R)
                elif R < 0:
                    l[i] = b - abs(R)
            elif t == "L":
                l[i] = b - abs(R)
            elif t == "G":
                u[i] = b + abs(R)
    # variable bounds as identity rows (only variables with a finite bound)
    bl, bu, bcols = [], [], []
    for j in range(n):
        a, b = lo.get(j, 0.0), up.get(j, math.inf)
        a = -math.inf if a <= -INF else a
        b = math.inf if b >= INF else b
        if math.isfinite(a) or math.isfinite(b):
            bcols.append(j)
            bl.append(a)
            bu.append(b)
    l = np.where(l <= -INF, -math.inf, l)
    u = np.where(u >= INF, math.inf, u)
    ri = [e[0] for e in entries] + [mc + k for k in range(len(bcols))]
    ci = [e[1] for e in entries] + bcols
    vv = [e[2] for e in entries] + [1.0] * len(bcols)
    m = mc + len(bcols)
    A = sp.csc_matrix((vv, (ri, ci)), shape=(m, n))
    qv = np.zeros(n)
    for j, v in q.items():
        qv[j] = v
    if quad:
        (pi, pj), pv = zip(*quad.keys()), list(quad.values())
    else:
        pi, pj, pv = [], [], []
    P = sp.csc_matrix((pv, (pi, pj)), shape=(n, n))
    if sense < 0:
        P, qv, c0 = -P, -qv, -c0
    return dict(name=name, n=n, m=m, rows=mc, P=P, q=qv, A=A,
                l=np.concatenate([l, bl]), u=np.concatenate([u, bu]), c0=c0, sense=sense)


def read_reference(path):
    ref = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 2:
                continue
            try:
                v = float(w[-1])
            except ValueError:
                continue
            key = "".join(ch for ch in w[0].lower() if ch.isalnum())
            ref.setdefault(key, v)
    return ref


def ref_error(f, opt):
    if f is None or opt is None or not math.isfinite(f):
        return None
    return abs(f - opt) / max(1.0, abs(opt))


def solve_osqp(pb, eps, max_iter):
    import osqp

    s = osqp.OSQP()
    l = np.clip(pb["l"], -1e30, 1e30)
    u = np.clip(pb["u"], -1e30, 1e30)
    t0 = time.perf_counter()
    s.setup(P=pb["P"], q=pb["q"], A=pb["A"], l=l, u=u, verbose=False, polishing=False,
            eps_abs=eps, eps_rel=eps, max_iter=max_iter)
    r = s.solve()
    wall = time.perf_counter() - t0
    st = r.info.status
    f = None
    if st in ("solved", "solved inaccurate", "maximum iterations reached", "run time limit reached"):
        f = pb["sense"] * (r.info.obj_val + pb["c0"])
    return dict(status=st, iterations=int(r.info.iter), objective=f,
                prim_res=float(r.info.prim_res), dual_res=float(r.info.dual_res),
                time=float(r.info.setup_time + r.info.solve_time), wall=wall)


def fmt(v, spec):
    return "–" if v is None else format(v, spec)


def short(st):
    return {"solved": "solved", "solved inaccurate": "inaccurate",
            "maximum iterations reached": "max iter", "dual infeasible": "dual inf.",
            "primal infeasible": "primal inf.", "run time limit reached": "time limit",
            "problem non convex": "non convex"}.get(st, st)


def gala_runner(exe, backend, eps, max_iter, ref):
    """A function running gala-qp on some files with the comparison's settings (its JSON)."""
    base = [exe, "solve", "--backend", backend, "--eps", str(eps), "--max-iter", str(max_iter),
            "--json", "--no-progress"]
    if ref:
        base += ["--reference", ref]

    def run(args):
        p = subprocess.run(base + args, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            sys.exit(f"gala-qp failed ({p.returncode}): {p.stderr}")
        return json.loads(p.stdout)

    return run


def gala_alone(run, path, reps, cold=False):
    """One file alone, the best of reps runs (in one gala-qp process, --repeat; cold: one
    process each): (name, setup + solve seconds, its problem record, linsys used)."""
    best = None
    for _ in range(reps if cold else 1):
        one = run([path] + ([] if cold else ["--repeat", str(reps)]))
        s = one["summary"]
        t = s["setup_time"] + s["solve_time"]
        if best is None or t < best[1]:
            best = (one["problems"][0]["name"], t, one["problems"][0], one.get("linsys_used"))
    return best


def run_gala(exe, backend, files, eps, max_iter, ref, reps, alone=True, cold=False):
    """gala-qp on all files as one batch, then (alone) each file alone. Returns (by name,
    batch summary)."""
    run = gala_runner(exe, backend, eps, max_iter, ref)
    run(files[:1])  # warm-up: kernels compiled and cached
    batch = run(files)
    out = {p["name"]: dict(p) for p in batch["problems"]}
    for path in files if alone else []:
        name, t, _, ls = gala_alone(run, path, reps, cold)
        out[name]["alone_time"] = t
        out[name]["alone_linsys"] = ls
    return out, batch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+", help="QPS files or directories")
    ap.add_argument("--eps", type=float, default=1e-5)
    ap.add_argument("--max-iter", type=int, default=4000)
    ap.add_argument("--reference", default=None, help="00README.QP (OPT column)")
    ap.add_argument("--json", default=None, help="write OSQP's results as JSON")
    ap.add_argument("--gala-qp", default=None, help="path of gala-qp, to run it on the same files")
    ap.add_argument("--backends", default="host", help="gala-qp backends, comma-separated")
    ap.add_argument("--reps", type=int, default=3,
                    help="times each QP is solved alone, in one process per solver; the fastest counts")
    ap.add_argument("--markdown", default=None, help="write the comparison table")
    ap.add_argument("--interleave", action="store_true",
                    help="with --gala-qp: rounds of gala alone and OSQP file by file, in the same minutes")
    ap.add_argument("--rounds", type=int, default=3, help="--interleave: rounds (default 3)")
    ap.add_argument("--gala-cold", action="store_true",
                    help="time gala with one gala-qp process per run (default: --repeat, warm)")
    a = ap.parse_args()
    import osqp

    files = []
    for p in a.inputs:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p)
                            if f.lower().endswith((".qps", ".mps")))
        else:
            files.append(p)
    ref = read_reference(a.reference) if a.reference else {}
    backends = a.backends.split(",") if a.gala_qp else []
    problems = {path: read_qps(path) for path in files}
    rounds = []
    osqp_best, gala_best = {}, {}  # interleaved: path -> best time; (backend, name) -> ...
    if a.interleave and a.gala_qp:
        runs = {b: gala_runner(a.gala_qp, b, a.eps, a.max_iter, a.reference) for b in backends}
        for b in backends:
            runs[b](files[:1])  # warm-up
        for rnd in range(a.rounds):
            load = os.getloadavg()[0]
            tot = {"osqp": 0.0}
            per = {}
            for path in files:
                for b in backends:
                    name, t, rec, ls = gala_alone(runs[b], path, a.reps, a.gala_cold)
                    tot[b] = tot.get(b, 0.0) + t
                    per.setdefault(name, {})[b] = t
                    k = (b, name)
                    if k not in gala_best or t < gala_best[k][0]:
                        gala_best[k] = (t, ls, rec["status"], rec["iterations"])
                r = solve_osqp(problems[path], a.eps, a.max_iter)
                for _ in range(a.reps - 1):
                    r["time"] = min(r["time"], solve_osqp(problems[path], a.eps, a.max_iter)["time"])
                tot["osqp"] += r["time"]
                stem = os.path.splitext(os.path.basename(path))[0]
                per.setdefault(stem, {})["osqp"] = r["time"]
                if path not in osqp_best or r["time"] < osqp_best[path]["time"]:
                    osqp_best[path] = r
            rounds.append({"round": rnd + 1, "loadavg": load, "totals": tot, "times": per})
            print(f"round {rnd + 1} (load {load:.2f}): " +
                  ", ".join(f"{k} {1e3 * v:.1f} ms" for k, v in tot.items()), file=sys.stderr)
    results = []
    for path in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        pb = problems[path]
        if path in osqp_best:
            r = osqp_best[path]
        else:
            r = solve_osqp(pb, a.eps, a.max_iter)
            for _ in range(a.reps - 1):
                r["time"] = min(r["time"], solve_osqp(pb, a.eps, a.max_iter)["time"])
        key = "".join(ch for ch in stem.lower() if ch.isalnum())
        r.update(name=stem, n=pb["n"], m=pb["m"], reference=ref.get(key))
        r["ref_error"] = ref_error(r["objective"], r["reference"])
        results.append(r)
        print(f"{stem:10s} n={pb['n']:4d} m={pb['m']:4d} {r['status']:28s} iter {r['iterations']:6d} "
              f"obj {fmt(r['objective'], '.9e')} err {fmt(r['ref_error'], '.1e')} {r['time']:.4f} s",
              file=sys.stderr)
    doc = {"tool": "ref_mm_osqp.py", "osqp_version": getattr(osqp, "__version__", "unknown"),
           "reps": a.reps, "gala_cold": a.gala_cold,
           "eps": a.eps, "max_iter": a.max_iter, "date": time.strftime("%Y-%m-%d"),
           "problems": results}
    galas = []
    if a.gala_qp:
        for backend in backends:
            by_name, batch = run_gala(a.gala_qp, backend, files, a.eps, a.max_iter, a.reference,
                                      a.reps, alone=not a.interleave, cold=a.gala_cold)
            if a.interleave:
                for (b, name), (t, ls, st, it) in gala_best.items():
                    if b == backend and name in by_name:
                        p = by_name[name]
                        p.update(alone_time=t, alone_linsys=ls, alone_status=st, alone_iterations=it)
                        if (st, it) != (p["status"], p["iterations"]):
                            print(f"gala {backend}: {name} alone {st} in {it} iterations ({ls}), "
                                  f"in the batch {p['status']} in {p['iterations']}", file=sys.stderr)
            galas.append((backend, by_name, batch))
            bs = batch["summary"]
            print(f"gala {backend} ({batch['device']}): solved {bs['solved']} of {bs['total']}, "
                  f"batch setup + solve {bs['setup_time'] + bs['solve_time']:.3f} s", file=sys.stderr)
        doc["gala"] = [{"backend": b, "device": bt["device"], "summary": bt["summary"],
                        "problems": list(bn.values())} for b, bn, bt in galas]
    if rounds:
        doc["rounds"] = rounds
    if a.json:
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
    if a.markdown:
        head = "| problem | n | m | OPT |"
        sep = "|---|---:|---:|---:|"
        for label in [f"gala {b}" for b, _, _ in galas] + ["OSQP"]:
            head += f" {label} | iter | error | time (ms) |"
            sep += "---|---:|---:|---:|"
        lines = [head, sep]
        for r in results:
            row = f"| {r['name']} | {r['n']} | {r['m']} | {fmt(r['reference'], '.7e')} |"
            for _, g, _ in galas:
                p = g.get(r["name"])
                t = p.get("alone_time")
                ls = p.get("alone_linsys")
                mark = " (sparse)" if ls == "sparse-ldlt" else ""
                row += (f" {short(p['status'])} | {p['iterations']} | {fmt(p.get('ref_error'), '.1e')} |"
                        f" {fmt(None if t is None else 1e3 * t, '.1f')}{mark} |")
            row += (f" {short(r['status'])} | {r['iterations']} | {fmt(r['ref_error'], '.1e')} |"
                    f" {1e3 * r['time']:.1f} |")
            lines.append(row)
        tot = f"| all {len(results)} | | | |"
        for _, g, bt in galas:
            bs = bt["summary"]
            alone = sum(p.get("alone_time", 0) for p in g.values())
            tot += (f" {bs['solved']} solved | | | {1e3 * alone:.0f} alone, "
                    f"{1e3 * (bs['setup_time'] + bs['solve_time']):.0f} as one batch |")
        solved_o = sum(1 for r in results if r["status"] == "solved")
        tot += f" {solved_o} solved | | | {1e3 * sum(r['time'] for r in results):.0f} |"
        lines.append(tot)
        with open(a.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    solved = sum(1 for r in results if r["status"] == "solved")
    print(f"OSQP {doc['osqp_version']}: solved {solved} of {len(results)}", file=sys.stderr)


if __name__ == "__main__":
    main()
