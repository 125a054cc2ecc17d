#!/usr/bin/env python3
"""Performance report of a benchmark run: markdown tables and PNG plots (issue 7).

    python3 bench/report.py RESULTS [RESULTS...] [--out report.md] [--plots DIR]
                            [--title TEXT] [--plot-prefix PREFIX]
    python3 bench/report.py --current docs/perf [--update docs/performance.md]

The second form gives the latest figure of every case per device from the committed result
folders (see "current results" below): docs/performance.md's tables are written by it.

RESULTS is a folder or a .tar.gz (as bench/run-gpu.sh and bench/run-cpu.sh write) holding:
  - gala benchmark JSON (bench_<family> --json: a header with bench, backend, platform,
    device, driver, date, commit, copy_gbs, and "results" rows). A file cut off by a time
    limit (no closing "]}") is read up to its last complete row.
  - reference JSON lines (bench/ref_*.py, ref_lapack: a header object, then rows with kind,
    n, batch, dtype, median_ms): torch/cuSOLVER on a GPU, LAPACKE/OpenBLAS on a CPU.
  - ref_osqp.py output (one object with one_core_qps_per_s and all_cores_qps_per_s).
  - env.txt and summary.txt of the run (device, date, command, step verdicts), if present.

Rows of gala and of the reference are joined on (family, kind, n, batch, dtype). For each
case the tables give the median time, GFLOP/s, GB/s, percent of the copy bandwidth measured
in the same run and process, percent of the GEMM rate measured in the same run (the
reference's GEMM: torch.matmul / OpenBLAS; gala's own when there is none), the reference's
time and the ratio reference/gala (above 1: gala is faster), and where an issue states a
target, the target and whether it is met. The targets of issues 3, 4, 5, 6 and 10 are data
(TARGETS below); all of them are listed in one table with their measured ratio, "not measured
yet" where the run has no such case. Targets are only evaluated on GPU runs (OpenCL on a GPU,
CUDA); CPU runs get the tables without them.

Floors: bytes moved / measured copy bandwidth and flops / measured GEMM rate, with the bytes
and flops each benchmark counts (e.g. trtri: read one triangle, write one; n³/3 flops).

Plots (when matplotlib imports; otherwise the report says so): GB/s and GFLOP/s against n
for gala and the reference per family, QPs/s against the batch for the QP solver, sparse
LDLᵀ time per matrix against the batch. Small PNGs (a few tens of KB).
"""
import argparse
import io
import json
import math
import os
import re
import sys
import tarfile
from collections import defaultdict

# ---------------------------------------------------------------------------- targets
# One entry per stated target. metric:
#   speedup    reference ms / gala ms >= value        (same case, same run)
#   pct_copy   gala GB/s / copy GB/s · 100 >= value   (copy measured in the same process)
#   cuda_ocl   CUDA ms / OpenCL ms <= value, every case of the family measured on both
#   qp_osqp1   gala QPs/s / OSQP one core >= value; qp_osqpall: / OSQP on all cores
#   qp_hetero  hetero batch time / uniform batch time (same total work) <= value
#   qp_host1   host backend QPs/s (one QP) / OSQP one core >= value
# backends: the gala runs the target applies to ("ocl" = OpenCL on the GPU, "cuda").
TARGETS = [
    # issue 3: trtri on the H200, OpenCL through NVIDIA's driver (issue 6: on CUDA too)
    dict(issue="3", family="trtri", kind="batched", n=32, batch=50000, metric="speedup", value=5),
    dict(issue="3", family="trtri", kind="batched", n=64, batch=20000, metric="speedup", value=5),
    dict(issue="3", family="trtri", kind="batched", n=128, batch=5000, metric="speedup", value=2),
    dict(issue="3", family="trtri", kind="batched", n=256, batch=1000, metric="speedup", value=2),
    dict(issue="3", family="trtri", kind="batched", n=512, batch=200, metric="speedup", value=2),
    dict(issue="3", family="trtri", kind="single", n=8192, batch=1, metric="speedup", value=0.5),
    # issue 4: Cholesky; batched n <= 64 at >= 50 % of the copy bandwidth, 8x torch at n = 32
    dict(issue="4", family="potrf", kind="potrf_batched", n=8, batch=100000, metric="pct_copy", value=50),
    dict(issue="4", family="potrf", kind="potrf_batched", n=16, batch=100000, metric="pct_copy", value=50),
    dict(issue="4", family="potrf", kind="potrf_batched", n=32, batch=50000, metric="pct_copy", value=50),
    dict(issue="4", family="potrf", kind="potrf_batched", n=64, batch=20000, metric="pct_copy", value=50),
    dict(issue="4", family="potrf", kind="potrf_batched", n=32, batch=50000, metric="speedup", value=8),
    dict(issue="4", family="potrf", kind="potrf_batched", n=128, batch=5000, metric="speedup", value=2),
    dict(issue="4", family="potrf", kind="potrf_batched", n=256, batch=1000, metric="speedup", value=2),
    dict(issue="4", family="potrf", kind="potrf_batched", n=512, batch=200, metric="speedup", value=2),
    dict(issue="4", family="potrf", kind="potrf_single", n=16384, batch=1, metric="speedup", value=0.5,
         backends=("ocl",)),
    # issue 6: CUDA
    dict(issue="6", family="potrf", kind="potrf_single", n=16384, batch=1, metric="speedup", value=0.9,
         backends=("cuda",)),
    dict(issue="6", family="trtri", metric="cuda_ocl", value=1.1),
    dict(issue="6", family="potrf", metric="cuda_ocl", value=1.1),
    dict(issue="6", family="ldlt", metric="cuda_ocl", value=1.1),
    dict(issue="6", family="qp", metric="cuda_ocl", value=1.1),
    # issue 10: QP solver at batch 10000 (control nx = 10: independent QPs; di: shared matrices)
    dict(issue="10", family="qp", kind="control", batch=10000, metric="qp_osqp1", value=50),
    dict(issue="10", family="qp", kind="control", batch=10000, metric="qp_osqpall", value=5),
    dict(issue="10", family="qp", kind="di", batch=10000, metric="qp_osqp1", value=500),
    dict(issue="10", family="qp", kind="hetero", batch=1000, metric="qp_hetero", value=2),
    # "one QP on the host backend no slower than OSQP on one core": per-QP rate of the host
    # backend over the first 100 instances (one thread, one QP after another inside the call)
    # against OSQP's over the same generator's instances; batch 1 alone is QP 0 only
    # the host batch compared is the one of OSQP's instance count (qp_target)
    dict(issue="10", family="qp", kind="control", batch=0, metric="qp_host1", value=1),
]
# issue 5 (LDLᵀ) states no number: its tables compare with the host backend on one core and
# QDLDL on one core. Targets with no "backends" apply to both GPU backends (issue 6: "the
# targets of their own issues, on CUDA too").

METRIC_TEXT = {
    "speedup": "≥ {v:g}× the reference's speed",
    "pct_copy": "≥ {v:g} % of the copy bandwidth",
    "cuda_ocl": "CUDA time ≤ {v:g}× OpenCL, every case",
    "qp_osqp1": "≥ {v:g}× OSQP on one core",
    "qp_osqpall": "≥ {v:g}× OSQP on all cores",
    "qp_hetero": "hetero time ≤ {v:g}× uniform (same work)",
    "qp_host1": "host backend (one thread) ≥ {v:g}× OSQP on one core, per QP",
}


# ---------------------------------------------------------------------------- reading
class Run:
    """One gala benchmark JSON file."""

    def __init__(self, path, head, rows):
        self.path = path
        self.family = head.get("bench", "?")
        self.backend = head.get("backend", "?")
        self.platform = head.get("platform", "")
        self.device = head.get("device", "?")
        self.driver = head.get("driver", "")
        self.date = head.get("date", "")
        self.commit = head.get("commit", "")
        self.copy_gbs = head.get("copy_gbs") or None
        self.rows = rows
        self.truncated = bool(head.get("truncated"))
        self.label = backend_label(self.backend, self.platform)
        self.gpu = self.label in ("ocl", "cuda")


class Ref:
    """One reference file (JSON lines): torch / LAPACKE timings of the same cases."""

    def __init__(self, path, head, rows):
        self.path = path
        bench = head.get("bench", "")
        self.family = bench[:-len("-reference")] if bench.endswith("-reference") else bench
        self.what = head.get("what", "")
        self.device = head.get("device", "?")
        self.date = head.get("date", "")
        self.head = head
        self.name = "LAPACKE" if "LAPACK" in self.what else "torch"
        self.rows = {(r["kind"], int(r["n"]), int(r["batch"]), r["dtype"]): r for r in rows}


def backend_label(backend, platform):
    if backend == "opencl":
        return "pocl" if "Portable" in platform or "pocl" in platform.lower() else "ocl"
    return backend  # cuda, host


LABEL_TEXT = {"ocl": "OpenCL (GPU)", "cuda": "CUDA", "host": "host backend", "pocl": "OpenCL (PoCL)"}


def parse_truncated(text):
    """A gala JSON file cut off by a time limit: keep the complete rows."""
    i = text.find('"results": [')
    if i < 0:
        return None
    head = json.loads(text[:i].rstrip().rstrip(",") + "}")
    rows = []
    for line in text[i + len('"results": ['):].splitlines():
        line = line.strip().rstrip(",")
        if line.startswith("{") and line.endswith("}"):
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    head["truncated"] = True
    return head, rows


def load_file(name, text, out):
    """Sort one file's content into out['runs'], out['refs'], out['osqp']."""
    text = text.strip()
    if not text.startswith("{"):
        return
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict) and "results" in doc:
        out["runs"].append(Run(name, doc, doc["results"]))
        return
    if isinstance(doc, dict) and doc.get("bench") == "ref_osqp":
        out["osqp"].append(doc)
        return
    if doc is None and '"results": [' in text:
        got = parse_truncated(text)
        if got:
            out["runs"].append(Run(name, got[0], got[1]))
            out["notes"].append(f"{name}: cut off (time limit); its complete rows are used")
        return
    head, rows = None, []
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if "kind" in obj and "median_ms" in obj:
            rows.append(obj)
        elif head is None and "bench" in obj:
            head = obj
    if head is not None and rows:
        out["refs"].append(Ref(name, head, rows))


def load(sources):
    out = {"runs": [], "refs": [], "osqp": [], "env": "", "summary": "", "notes": []}
    for src in sources:
        if os.path.isdir(src):
            for root, _, files in os.walk(src):
                for f in sorted(files):
                    p = os.path.join(root, f)
                    with open(p, errors="replace") as fh:
                        take(f, fh.read(), out)
        elif src.endswith((".tar.gz", ".tgz")):
            with tarfile.open(src) as tf:
                for m in tf.getmembers():
                    if m.isfile():
                        data = tf.extractfile(m).read().decode("utf-8", "replace")
                        take(os.path.basename(m.name), data, out)
        else:
            with open(src, errors="replace") as fh:
                take(os.path.basename(src), fh.read(), out)
    return out


def take(name, text, out):
    if name == "env.txt":
        out["env"] = text
    elif name == "summary.txt":
        out["summary"] = text
    elif name.endswith(".json"):
        load_file(name, text, out)


# ---------------------------------------------------------------------------- helpers
def fmt(v, digits=4):
    """A number with about `digits` significant digits; '–' for none."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 10 ** digits:
        return f"{v:,.0f}".replace(",", " ")
    decimals = max(0, digits - 1 - int(math.floor(math.log10(a))))
    return f"{v:.{decimals}f}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def row_key(r):
    return (r.get("kind"), int(r.get("n", 0)), int(r.get("batch", 0)), r.get("dtype"))


def median_ms(family, r):
    """The row's median time of the whole call; bench_ldlt gives ms per matrix."""
    if "median_ms" in r and r["median_ms"] is not None:
        return r["median_ms"]
    if family == "ldlt" and r.get("factor_ms_per_matrix") is not None:
        return r["factor_ms_per_matrix"] * r["batch"]
    return None


def dense_ldlt_work(r):
    """bench_ldlt --dense rows: flops n³/3 and bytes read + written once per matrix (the
    floor; the timed call also restores the matrix with a copy, 2n² more)."""
    n, b = r["n"], r["batch"]
    es = 4 if r.get("dtype") == "float" else 8
    return n ** 3 / 3.0 * b, 2.0 * n * n * es * b


class Context:
    """Everything loaded, indexed for the tables."""

    def __init__(self, data):
        self.d = data
        self.runs = data["runs"]
        self.refs = {}
        for ref in data["refs"]:
            self.refs.setdefault(ref.family, []).append(ref)
        # ceilings: gala's own (per backend label) and the reference's
        self.copy = {}
        self.gemm = {}
        for run in self.runs:
            if run.copy_gbs:
                self.copy.setdefault(run.label, run.copy_gbs)
            if run.family == "ceiling":
                for r in run.rows:
                    if r.get("kind") == "copy" and r.get("gbs"):
                        self.copy[run.label] = r["gbs"]
                    if r.get("kind") == "gemm" and r.get("gflops"):
                        self.gemm[(run.label, r["dtype"])] = r["gflops"]
        self.ref_gemm = {}
        self.ref_copy = None
        for ref in self.refs.get("ceiling", []):
            for (kind, n, b, dt), r in ref.rows.items():
                if kind == "gemm" and r.get("gflops"):
                    self.ref_gemm[dt] = (r["gflops"], ref.name, n)
                if kind == "copy" and r.get("gbs"):
                    self.ref_copy = (r["gbs"], ref.name)

    def gemm_rate(self, label, dtype):
        """The GEMM rate a case is compared with: the reference's (torch.matmul / OpenBLAS)
        when measured, else gala's own on that backend."""
        if dtype in self.ref_gemm:
            return self.ref_gemm[dtype][0]
        return self.gemm.get((label, dtype))

    def ref_for(self, family, key):
        for ref in self.refs.get(family, []):
            if key in ref.rows:
                return ref, ref.rows[key]
        return None, None

    def runs_of(self, family):
        order = {"ocl": 0, "cuda": 1, "pocl": 2, "host": 3}
        return sorted((r for r in self.runs if r.family == family), key=lambda r: order.get(r.label, 9))

    def case(self, family, label, key):
        for run in self.runs_of(family):
            if run.label != label:
                continue
            for r in run.rows:
                if row_key(r) == key and median_ms(family, r) is not None:
                    return run, r
        return None, None


# ---------------------------------------------------------------------------- targets
def target_key(t):
    return (t["kind"], t["n"], t["batch"])


def evaluate_targets(ctx):
    """Rows (issue, target, backend, dtype, measured, ratio, met) for every target."""
    out = []
    gpu_labels = sorted({r.label for r in ctx.runs if r.gpu}, key=lambda s: s != "ocl")
    qp = qp_index(ctx)
    for t in TARGETS:
        m, v = t["metric"], t["value"]
        text = METRIC_TEXT[m].format(v=v)
        refname = next((x.name for x in ctx.refs.get(t["family"], [])), None)
        if refname:
            text = text.replace("the reference's", refname + "'s")
        case = ""
        if "n" in t:
            case = f"{t['kind']} n={t['n']} b={t['batch']}"
        elif "batch" in t:
            batch = t["batch"] or "of OSQP's instances"  # 0: qp_target takes OSQP's count
            case = f"{t['kind']} batch {batch}"
        labels = [l for l in (t.get("backends") or ("ocl", "cuda"))]
        if m == "cuda_ocl":
            res = cuda_vs_ocl(ctx, t["family"])
            if not res:
                out.append((t["issue"], t["family"], "all cases", text, "cuda/ocl", "–", "–",
                            "not measured yet"))
                continue
            worst = max(res, key=lambda x: x[1])
            met = sum(1 for _, r in res if r <= v)
            out.append((t["issue"], t["family"], f"{len(res)} cases", text, "cuda/ocl", "–",
                        f"worst {fmt(worst[1], 3)} ({worst[0]}), {met}/{len(res)} within",
                        "yes" if met == len(res) else "no"))
            continue
        if m.startswith("qp_"):
            for label in labels:
                for dt in ("float", "double"):
                    if m == "qp_host1":
                        if label != labels[0] or dt == "float":
                            continue
                        label_use = "host"
                    else:
                        label_use = label
                    measured, ratio = qp_target(ctx, qp, t, label_use, dt)
                    out.append((t["issue"], "qp", case, text, LABEL_TEXT.get(label_use, label_use), dt,
                                measured, ratio))
            continue
        for label in labels:
            if label not in gpu_labels and gpu_labels:
                continue
            for dt in ("float", "double"):
                key = (t["kind"], t["n"], t["batch"], dt)
                run, r = ctx.case(t["family"], label, key)
                if r is None:
                    out.append((t["issue"], t["family"], case, text, LABEL_TEXT[label], dt, "–",
                                "not measured yet"))
                    continue
                ms = median_ms(t["family"], r)
                if m == "speedup":
                    _, rr = ctx.ref_for(t["family"], key)
                    if rr is None:
                        out.append((t["issue"], t["family"], case, text, LABEL_TEXT[label], dt,
                                    f"{fmt(ms)} ms", "no reference measured"))
                        continue
                    ratio = rr["median_ms"] / ms
                    out.append((t["issue"], t["family"], case, text, LABEL_TEXT[label], dt,
                                f"{fmt(ms)} ms vs {fmt(rr['median_ms'])} ms: {fmt(ratio, 3)}×",
                                "yes" if ratio >= v else "no"))
                elif m == "pct_copy":
                    copy = ctx.copy.get(label)
                    gbs = r.get("gbs")
                    if not copy or gbs is None:
                        out.append((t["issue"], t["family"], case, text, LABEL_TEXT[label], dt,
                                    f"{fmt(ms)} ms", "no copy bandwidth measured"))
                        continue
                    pct = 100.0 * gbs / copy
                    out.append((t["issue"], t["family"], case, text, LABEL_TEXT[label], dt,
                                f"{fmt(gbs)} GB/s of {fmt(copy)}: {fmt(pct, 3)} %",
                                "yes" if pct >= v else "no"))
    # a target measured nowhere: one row instead of one per backend and dtype
    grouped, order = defaultdict(list), []
    for row in out:
        k = row[:4]
        if k not in grouped:
            order.append(k)
        grouped[k].append(row)
    res = []
    for k in order:
        rows = grouped[k]
        if len(rows) > 1 and all(r[-1] == "not measured yet" for r in rows):
            res.append(k + ("–", "–", "–", "not measured yet"))
        else:
            res.extend(rows)
    return res


def cuda_vs_ocl(ctx, family):
    """(case, CUDA ms / OpenCL ms) for every case measured on both."""
    if family == "qp":
        qp = qp_index(ctx)
        res = []
        for (label, fam, dt, b), r in qp.items():
            if label != "cuda":
                continue
            o = qp.get(("ocl", fam, dt, b))
            if o and r["qps_per_s"] and o["qps_per_s"]:
                res.append((f"{fam} {dt} b={b}", o["qps_per_s"] / r["qps_per_s"]))
        return res
    if family == "ldlt":
        res = []
        idx = {}
        for run in ctx.runs_of("ldlt"):
            for r in run.rows:
                if r.get("kind") == "sparse" and r.get("on") == "device" and r.get("schedule") == "levels":
                    idx[(run.label, r["n_plus_m"], r["batch"], r["dtype"])] = r["total_ms_per_matrix"]
                if r.get("kind") == "dense" and r.get("on") == "device":
                    idx[(run.label, "dense" + str(r["n"]), r["batch"], r["dtype"])] = \
                        r["factor_ms_per_matrix"] + r["solve_ms_per_matrix"]
        for (label, n, b, dt), ms in idx.items():
            if label == "cuda" and ("ocl", n, b, dt) in idx and idx[("ocl", n, b, dt)] > 0:
                res.append((f"{'sparse n+m=' if isinstance(n, int) else ''}{n} b={b} {dt}",
                            ms / idx[("ocl", n, b, dt)]))
        return res
    res = []
    ocl = {}
    for run in ctx.runs_of(family):
        for r in run.rows:
            ms = median_ms(family, r)
            if ms is None:
                continue
            if run.label == "ocl":
                ocl[row_key(r)] = ms
    for run in ctx.runs_of(family):
        if run.label != "cuda":
            continue
        for r in run.rows:
            k = row_key(r)
            ms = median_ms(family, r)
            if ms is not None and k in ocl and ocl[k] > 0:
                res.append((f"{k[0]} n={k[1]} b={k[2]} {k[3]}", ms / ocl[k]))
    return res


def qp_index(ctx):
    """(label, family, dtype, batch) -> bench_qp row."""
    idx = {}
    for run in ctx.runs_of("qp"):
        for r in run.rows:
            if "qps_per_s" in r:
                # bench_qp --share-matrices rows are a case of their own ("di shared")
                fam = r["family"] + (" shared" if r.get("shared_arrays") else "")
                idx[(run.label, fam, r["dtype"], int(r["batch"]))] = r
    return idx


def osqp_of(ctx, family, reuse=False):
    """ref_osqp.py's run of a family: a setup per QP (the issue's reference), or with
    reuse=True its --reuse run (one setup, update and solve per QP). A bench_qp family
    "di shared" is compared with the di instances' runs."""
    family = family.split(" ")[0]
    for o in ctx.d["osqp"]:
        if o.get("family") == family and bool(o.get("reuse")) == reuse:
            return o
    return None


def qp_target(ctx, qp, t, label, dt):
    m, v = t["metric"], t["value"]
    if m == "qp_hetero":
        h, u = qp.get((label, "hetero", dt, t["batch"])), qp.get((label, "uniform", dt, t["batch"]))
        if not h or not u:
            return "–", "not measured yet"
        ratio = u["qps_per_s"] / h["qps_per_s"]
        return (f"{fmt(h['qps_per_s'])} vs {fmt(u['qps_per_s'])} QPs/s: {fmt(ratio, 3)}×",
                "yes" if ratio <= v else "no")
    o = osqp_of(ctx, t["kind"])
    r = qp.get((label, t["kind"], dt, t["batch"]))
    if m == "qp_host1" and o:
        # per-QP rates depend on the QPs' iterations: compare on the instances OSQP solved
        # (the family's first `count` QPs, which bench_qp's batch of that size is)
        r = qp.get((label, t["kind"], dt, int(o.get("count") or 0)))
        if not r:
            return "–", f"not measured on OSQP's {o.get('count')} QPs"
    if not r:
        return "–", "not measured yet"
    if not o:
        return f"{fmt(r['qps_per_s'])} QPs/s", "OSQP not measured"
    base = o["all_cores_qps_per_s"] if m == "qp_osqpall" else o["one_core_qps_per_s"]
    ratio = r["qps_per_s"] / base
    return (f"{fmt(r['qps_per_s'])} vs {fmt(base)} QPs/s: {fmt(ratio, 3)}×",
            "yes" if ratio >= v else "no")


def case_targets(family, kind, n, batch, label):
    """Target texts of a case (for the per-family tables)."""
    out = []
    for t in TARGETS:
        if t["family"] != family or t.get("kind") != kind or t.get("n") != n or t.get("batch") != batch:
            continue
        if label not in (t.get("backends") or ("ocl", "cuda")):
            continue
        out.append(t)
    return out


def met_text(t, r, ref_row, copy, ms):
    if t["metric"] == "speedup":
        if not ref_row:
            return "no reference"
        return "yes" if ref_row["median_ms"] / ms >= t["value"] else "no"
    if t["metric"] == "pct_copy":
        if not copy or r.get("gbs") is None:
            return "–"
        return "yes" if 100 * r["gbs"] / copy >= t["value"] else "no"
    return "–"


# ---------------------------------------------------------------------------- sections
def header_section(ctx, title):
    out = [f"# {title}\n\n"]
    devs = sorted({(r.label, r.device, r.platform, r.driver) for r in ctx.runs})
    dates = sorted({r.date for r in ctx.runs if r.date})
    commits = sorted({r.commit for r in ctx.runs if r.commit})
    rows = [(LABEL_TEXT.get(l, l), d, p, drv) for l, d, p, drv in devs]
    for ref in ctx.d["refs"]:
        rows.append((f"reference ({ref.family})", ref.device, ref.what,
                     ref.head.get("torch") or ref.head.get("blas", "")))
    for o in ctx.d["osqp"]:
        rows.append((f"OSQP ({o.get('family')}{', --reuse' if o.get('reuse') else ''})",
                     "CPU of the same machine",
                     f"osqp {o.get('osqp_version')}, {o.get('count')} QPs",
                     f"{o.get('all_cores_procs')} processes for all cores"))
    out.append(table(["what", "device", "platform / routine", "driver / version"], rows))
    if dates:
        out.append(f"\nDate (UTC): {dates[0]}" + (f" to {dates[-1]}" if len(dates) > 1 else "") + ".")
    if commits:
        out.append(f" Commit: {', '.join(commits)}.")
    m = re.search(r"^command: (.*)$", ctx.d["env"], re.M)
    if m:
        out.append(f" Command: `{m.group(1)}`.")
    out.append("\n\n")
    for n in ctx.d["notes"]:
        out.append(f"- {n}\n")
    return "".join(out)


def ceiling_section(ctx):
    rows = []
    for label in sorted({r.label for r in ctx.runs}, key=lambda s: ["ocl", "cuda", "pocl", "host"].index(s)
                        if s in ["ocl", "cuda", "pocl", "host"] else 9):
        rows.append((f"gala, {LABEL_TEXT.get(label, label)}", fmt(ctx.copy.get(label)),
                     fmt(ctx.gemm.get((label, "float"))), fmt(ctx.gemm.get((label, "double")))))
    if ctx.ref_copy or ctx.ref_gemm:
        name = (ctx.ref_copy or next(iter(ctx.ref_gemm.values()))[1:2] or ["reference"])[1] \
            if ctx.ref_copy else next(iter(ctx.ref_gemm.values()))[1]
        rows.append((f"{name}", fmt(ctx.ref_copy[0]) if ctx.ref_copy else "–",
                     fmt(ctx.ref_gemm.get("float", (None,))[0]),
                     fmt(ctx.ref_gemm.get("double", (None,))[0])))
    n = sorted({v[2] for v in ctx.ref_gemm.values()})
    gn = sorted({r["n"] for run in ctx.runs_of("ceiling") for r in run.rows if r.get("kind") == "gemm"})
    txt = ["## Ceilings measured in this run\n\n",
           table(["", "copy GB/s (read + write)", "GEMM float GFLOP/s", "GEMM double GFLOP/s"], rows),
           f"\nGEMM order: gala {', '.join(map(str, gn)) or '–'}; reference "
           f"{', '.join(map(str, n)) or '–'}. The percentages below use each backend's own copy "
           "bandwidth (same process) and the reference's GEMM rate (gala's own when the reference "
           "has none).\n"]
    return "".join(txt)


FAMILY_TITLES = {"trtri": "trtri: batched triangular inverse (docs/trtri.md)",
                 "potrf": "Cholesky: potrf, potrs, potri",
                 "ldlt": "LDLᵀ, dense batched (bench_ldlt --dense)",
                 "vec": "Vector kernels of the QP solver (bench_vec)"}


def side_by_side(ctx, family):
    """One row per case: the median ms of every backend and of the reference, and the
    reference/gala ratio of each backend."""
    runs = [r for r in ctx.runs_of(family)]
    labels = []
    for r in runs:
        if r.label not in labels:
            labels.append(r.label)
    cases, times = [], {}
    for run in runs:
        for r in run.rows:
            if family == "ldlt" and not (r.get("kind") == "dense" and r.get("on") == "device"):
                continue
            ms = median_ms(family, r)
            if ms is None or "op" in r:
                continue
            k = row_key(r)
            if k not in times:
                cases.append(k)
                times[k] = {}
            times[k].setdefault(run.label, ms)
    refname = next((x.name for x in ctx.refs.get(family, [])), None)
    if not cases or (len(labels) < 2 and not refname):
        return ""
    rows = []
    for k in cases:
        _, rr = ctx.ref_for(family, k)
        row = [k[0], k[1], k[2], k[3]] + [fmt(times[k].get(l)) for l in labels]
        if refname:
            row.append(fmt(rr["median_ms"]) if rr else "–")
            row += [fmt(rr["median_ms"] / times[k][l], 3) if rr and l in times[k] else "–"
                    for l in labels]
        rows.append(row)
    head = ["kind", "n", "batch", "dtype"] + [f"{LABEL_TEXT.get(l, l)} ms" for l in labels]
    if refname:
        head += [f"{refname} ms"] + [f"{refname}/{LABEL_TEXT.get(l, l)}" for l in labels]
    return ("### Side by side (median ms; ratio above 1: gala is faster)\n\n" +
            table(head, rows) + "\n")


def family_section(ctx, family):
    runs = ctx.runs_of(family)
    if not runs:
        return ""
    out = [f"## {FAMILY_TITLES.get(family, family)}\n\n"]
    if family != "vec":
        out.append(side_by_side(ctx, family))
    for run in runs:
        rows = []
        for r in run.rows:
            if family == "ldlt" and not (r.get("kind") == "dense" and r.get("on") == "device"):
                continue
            if family == "vec":
                continue
            ms = median_ms(family, r)
            if ms is None:
                continue
            gf, gbs = r.get("gflops"), r.get("gbs")
            if family == "ldlt":
                fl, by = dense_ldlt_work(r)
                gf, gbs = fl / (ms * 1e6), by / (ms * 1e6)
            key = row_key(r)
            ref, rr = ctx.ref_for(family, key)
            copy = ctx.copy.get(run.label)
            gemm = ctx.gemm_rate(run.label, key[3])
            tg = case_targets(family, key[0], key[1], key[2], run.label) if run.gpu else []
            refname = next((x.name for x in ctx.refs.get(family, [])), "reference")
            ttxt = "; ".join(METRIC_TEXT[t["metric"]].format(v=t["value"]).replace(
                "the reference's", refname + "'s") for t in tg)
            mtxt = "; ".join(met_text(t, r, rr, copy, ms) for t in tg)
            rows.append((key[0], key[1], key[2], key[3], fmt(ms), fmt(gf), fmt(gbs),
                         fmt(100 * gbs / copy, 3) if copy and gbs is not None else "–",
                         fmt(100 * gf / gemm, 3) if gemm and gf is not None else "–",
                         fmt(rr["median_ms"]) if rr else "–",
                         fmt(rr["median_ms"] / ms, 3) if rr else "–", ttxt or "–", mtxt or "–"))
        refname = next((r.name for r in ctx.refs.get(family, [])), "reference")
        out.append(f"### {LABEL_TEXT.get(run.label, run.label)}: {run.device}"
                   f"{' (cut off by the time limit)' if run.truncated else ''}\n\n")
        if rows:
            out.append(table(["kind", "n", "batch", "dtype", "median ms", "GFLOP/s", "GB/s",
                              "% copy", "% GEMM", f"{refname} ms", f"{refname}/gala",
                              "target", "met"], rows))
        if family == "vec":
            vrows = [(r["op"], r["dtype"], r["m"], r["n"], r["batch"], fmt(r["median_ms"]),
                      fmt(r["gbs"]), fmt(r.get("pct_copy"), 3)) for r in run.rows if "op" in r]
            out.append(table(["op", "dtype", "m", "n", "batch", "median ms", "GB/s", "% copy"], vrows))
        out.append("\n")
    if family == "ldlt":
        out.append("Flops n³/3 and bytes 2·n²·size per matrix (the timed factor also restores each "
                   "matrix with a copy); the reference is " +
                   ", ".join(sorted({r.what for r in ctx.refs.get('ldlt', [])})) + ".\n\n")
        out.append(sparse_section(ctx))
    return "".join(out)


def sparse_section(ctx):
    idx = defaultdict(dict)
    for run in ctx.runs_of("ldlt"):
        for r in run.rows:
            if r.get("kind") != "sparse":
                continue
            on = r["on"]
            col = {"device": LABEL_TEXT.get(run.label, run.label), "host": "host (1 core)",
                   "qdldl": "QDLDL (1 core)"}.get(on, on)
            if r.get("schedule") not in ("levels", "qdldl"):
                col += f" [{r['schedule']}]"
            idx[(r["n_plus_m"], r["batch"], r["dtype"])][col] = r
    if not idx:
        return ""
    cols = sorted({c for v in idx.values() for c in v})
    rows = []
    for (nm, b, dt), v in sorted(idx.items()):
        row = [nm, b, dt]
        for c in cols:
            r = v.get(c)
            row.append(f"{fmt(r['factor_ms_per_matrix'])} / {fmt(r['solve_ms_per_matrix'])}" if r else "–")
        dev = [v[c]["total_ms_per_matrix"] for c in cols
               if c in v and c.startswith(("OpenCL", "CUDA")) and "[" not in c]
        best = min(dev) if dev else None
        host = v.get("host (1 core)")
        qd = v.get("QDLDL (1 core)")
        row.append(fmt(host["total_ms_per_matrix"] / best, 3) if host and best else "–")
        row.append(fmt(qd["total_ms_per_matrix"] / best, 3) if qd and best else "–")
        rows.append(row)
    return ("### Sparse LDLᵀ: MPC KKT matrices sharing a pattern (ms per matrix, factor / solve)\n\n" +
            table(["n+m", "batch", "dtype"] + cols + ["host / best device", "QDLDL / best device"],
                  rows) +
            "\nRefactor (numeric factorization) and one solve per matrix, median per matrix; the "
            "host backend and QDLDL run on one core of the same machine (issue 5).\n\n")


def qp_section(ctx):
    qp = qp_index(ctx)
    if not qp and not ctx.d["osqp"]:
        return ""
    out = ["## QP solver (bench_qp against OSQP)\n\n"]
    rows = []
    for (label, fam, dt, b), r in sorted(qp.items(), key=lambda x: (x[0][1], x[0][2], x[0][0], x[0][3])):
        o, ro = osqp_of(ctx, fam), osqp_of(ctx, fam, reuse=True)
        rows.append((fam, dt, LABEL_TEXT.get(label, label), b, fmt(r["qps_per_s"]),
                     fmt(r.get("setup_s", 0) * 1e3), fmt(r.get("solve_s", 0) * 1e3),
                     fmt(r.get("mean_iter"), 3),
                     f"{r.get('solved', 0) + r.get('solved_inaccurate', 0)}/{b}",
                     fmt(r["qps_per_s"] / o["one_core_qps_per_s"], 3) if o else "–",
                     fmt(r["qps_per_s"] / o["all_cores_qps_per_s"], 3) if o else "–",
                     fmt(r["qps_per_s"] / ro["one_core_qps_per_s"], 3) if ro else "–"))
    if rows:
        out.append(table(["family", "dtype", "backend", "batch", "QPs/s", "setup ms", "solve ms",
                          "mean iter", "solved", "× OSQP 1 core", "× OSQP all cores",
                          "× OSQP 1 core, --reuse"], rows))
    orows = []
    for o in ctx.d["osqp"]:
        cmp = o.get("compare") or []
        dif = max((c["max_rel_obj_diff"] for c in cmp if c.get("max_rel_obj_diff") is not None),
                  default=None)
        orows.append((o["family"] + (" (--reuse)" if o.get("reuse") else ""), o.get("count"),
                      fmt(o["one_core_qps_per_s"]),
                      f"{fmt(o['all_cores_qps_per_s'])} ({o.get('all_cores_procs')} processes)",
                      fmt(o.get("mean_iter"), 3), f"{o.get('solved')}/{o.get('count')}",
                      f"{dif:.2e}" if dif is not None else "–"))
    if orows:
        out.append("\nOSQP (Python package, same instances, same settings; setup + solve per QP, "
                   "or with --reuse one setup, then update(q, l, u) + solve per QP):\n\n")
        out.append(table(["family", "QPs", "one core QPs/s", "all cores QPs/s", "mean iter",
                          "solved", "max rel. objective difference to gala"], orows))
    out.append("\nFamilies: control = OSQP's control benchmark nx = 10 (160 variables, 270 rows), "
               "eps 1e-3; di = double integrator (horizon 37), shared P and A, 200 fixed "
               "iterations (di shared: every QP given the first QP's P and A arrays, bench_qp "
               "--share-matrices); hetero/uniform = control QPs of 32..496 variables against nx = 18 "
               "(same total work). QPs/s counts setup + solve of the whole batch.\n\n")
    return "".join(out)


def floors_section(ctx):
    """For every target case of trtri and potrf: memory floor, flop floor, how far."""
    rows = []
    seen = set()
    for t in TARGETS:
        if t["family"] not in ("trtri", "potrf") or "n" not in t:
            continue
        for run in ctx.runs_of(t["family"]):
            if not run.gpu:
                continue
            for dt in ("float", "double"):
                key = (t["kind"], t["n"], t["batch"], dt)
                if (run.label,) + key in seen:
                    continue
                seen.add((run.label,) + key)
                _, r = ctx.case(t["family"], run.label, key)
                if r is None:
                    continue
                ms = median_ms(t["family"], r)
                by = r["gbs"] * ms * 1e6
                fl = r["gflops"] * ms * 1e6
                copy = ctx.copy.get(run.label)
                gemm = ctx.gemm_rate(run.label, dt)
                fm = by / (copy * 1e6) if copy else None
                ff = fl / (gemm * 1e6) if gemm else None
                floor = max(x for x in (fm, ff) if x is not None) if (fm or ff) else None
                rows.append((f"{t['kind']} n={t['n']} b={t['batch']}", dt,
                             LABEL_TEXT[run.label], fmt(by / 1e6, 3), fmt(fl / 1e9, 3),
                             fmt(fm), fmt(ff), fmt(ms), fmt(ms / floor, 3) if floor else "–"))
    if not rows:
        return ""
    return ("## Floors of the target cases\n\n"
            "Memory floor = bytes the routine must move / measured copy bandwidth; flop floor = "
            "flops / measured GEMM rate (the reference's GEMM, e.g. cuBLAS through torch.matmul "
            "without TF32; OpenCL cannot use tensor cores, so the float floor is optimistic only "
            "for CUDA paths that could). Bytes and flops as each benchmark counts them "
            "(trtri: one triangle read, one written, n³/3; potrf: the matrix read and written "
            "once, n³/3).\n\n" +
            table(["case", "dtype", "backend", "MB moved", "GFLOP", "memory floor ms",
                   "flop floor ms", "measured ms", "× floor"], rows) + "\n")


# ---------------------------------------------------------------------------- plots
def plots(ctx, outdir, prefix):
    """PNG files; returns [(title, path)]. Empty when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import NullFormatter
    except ImportError:
        return None
    os.makedirs(outdir, exist_ok=True)
    made = []
    colors = {"ocl": "tab:blue", "cuda": "tab:green", "pocl": "tab:purple", "host": "tab:brown",
              "ref": "tab:red"}
    style = {"float": "-", "double": "--"}

    def save(fig, name, title):
        path = os.path.join(outdir, f"{prefix}{name}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=72)
        plt.close(fig)
        made.append((title, path))

    for family, kinds in (("trtri", ("batched", "single")), ("potrf", ("potrf_batched", "potrf_single")),
                          ("potrf_potri", ("potri_batched", "potri_single"))):
        fam = "potrf" if family.startswith("potrf") else family
        runs = ctx.runs_of(fam)
        if not runs:
            continue
        fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
        any_line = False
        refname = next((r.name for r in ctx.refs.get(fam, [])), "reference")
        def draw(pts, color, dt, label):
            """Batched cases as a line, single matrices as unconnected stars."""
            for j, kind in enumerate(kinds):
                q = sorted(p for p in pts if p[3] == kind)
                if not q:
                    continue
                for ax, i in ((axes[0], 1), (axes[1], 2)):
                    ax.plot([p[0] for p in q], [p[i] for p in q], style[dt] if j == 0 else "none",
                            marker="o" if j == 0 else "*", ms=3 if j == 0 else 7, color=color,
                            label=label if j == 0 or len(q) == len(pts) else None)

        for dt in ("float", "double"):
            ref_pts = {}
            for run in runs:
                pts = []
                for r in run.rows:
                    k = row_key(r)
                    if k[0] not in kinds or k[3] != dt or median_ms(fam, r) is None:
                        continue
                    pts.append((k[1], r.get("gbs"), r.get("gflops"), k[0]))
                    _, rr = ctx.ref_for(fam, k)
                    if rr:  # the reference's rate on the same bytes and flops
                        s = median_ms(fam, r) / rr["median_ms"]
                        ref_pts[k[:2]] = (k[1], r["gbs"] * s, r["gflops"] * s, k[0])
                if pts:
                    any_line = True
                    draw(pts, colors.get(run.label, "k"), dt,
                         f"gala {LABEL_TEXT.get(run.label, run.label)} {dt}")
            if ref_pts:
                draw(list(ref_pts.values()), colors["ref"], dt, f"{refname} {dt}")
        if not any_line:
            plt.close(fig)
            continue
        for ax, what in ((axes[0], "GB/s"), (axes[1], "GFLOP/s")):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.yaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("n (lines: batched; stars: one matrix)")
            ax.set_ylabel(what)
            ax.grid(True, which="both", alpha=0.3)
        axes[1].legend(fontsize=6, loc="best")
        title = {"trtri": "trtri", "potrf": "potrf", "potrf_potri": "potri"}[family]
        fig.suptitle(f"{title}: gala against {refname}", fontsize=9)
        save(fig, title, f"{title}: GB/s and GFLOP/s against n")

    qp = qp_index(ctx)
    fams = sorted({k[1] for k in qp if k[1] in ("control", "di")})
    if fams:
        fig, axes = plt.subplots(1, len(fams), figsize=(4 * len(fams), 3.2), squeeze=False)
        for ax, fam in zip(axes[0], fams):
            for label in ("ocl", "cuda", "pocl", "host"):
                for dt in ("float", "double"):
                    pts = sorted((b, r["qps_per_s"]) for (l, f, d, b), r in qp.items()
                                 if l == label and f == fam and d == dt)
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], style[dt], marker="o", ms=3,
                                color=colors[label], label=f"gala {LABEL_TEXT[label]} {dt}")
            o = osqp_of(ctx, fam)
            if o:
                ax.axhline(o["one_core_qps_per_s"], color=colors["ref"], lw=1, label="OSQP 1 core")
                ax.axhline(o["all_cores_qps_per_s"], color=colors["ref"], lw=1, ls=":",
                           label=f"OSQP {o.get('all_cores_procs')} processes")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.yaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("batch")
            ax.set_ylabel("QPs/s (setup + solve)")
            ax.set_title(fam, fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6)
        save(fig, "qp", "QP solver: QPs/s against the batch")

    sp = defaultdict(list)
    for run in ctx.runs_of("ldlt"):
        for r in run.rows:
            if r.get("kind") == "sparse" and r.get("schedule") in ("levels", "qdldl"):
                who = LABEL_TEXT.get(run.label, run.label) if r["on"] == "device" else \
                    {"host": "host (1 core)", "qdldl": "QDLDL (1 core)"}[r["on"]]
                sp[(r["n_plus_m"], who)].append((r["batch"], r["total_ms_per_matrix"]))
    if sp:
        sizes = sorted({k[0] for k in sp})
        fig, axes = plt.subplots(1, len(sizes), figsize=(4 * len(sizes), 3.2), squeeze=False)
        for ax, nm in zip(axes[0], sizes):
            for (n2, who), pts in sorted(sp.items()):
                if n2 != nm:
                    continue
                pts = sorted(set(pts))
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=who)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("batch (matrices sharing the pattern)")
            ax.set_ylabel("ms per matrix (factor + solve)")
            ax.set_title(f"sparse LDLᵀ, n + m = {nm}", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6)
        save(fig, "ldlt_sparse", "sparse LDLᵀ: time per matrix against the batch")
    return made


# ---------------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+", help="folders, .tar.gz or files of a run")
    ap.add_argument("--out", help="markdown file (default: standard output)")
    ap.add_argument("--plots", help="folder for the PNG plots (default: no plots)")
    ap.add_argument("--plot-prefix", default="", help="prefix of the PNG names")
    ap.add_argument("--title", default="gala performance report")
    a = ap.parse_args()
    data = load(a.results)
    if not data["runs"] and not data["refs"] and not data["osqp"]:
        sys.exit("report.py: no benchmark results found in " + " ".join(a.results))
    ctx = Context(data)
    md = [header_section(ctx, a.title)]
    targets = evaluate_targets(ctx) if any(r.gpu for r in ctx.runs) else []
    if targets:
        md.append("## Targets (issues 3, 4, 6, 10) and their measured ratios\n\n")
        md.append(table(["issue", "family", "case", "target", "backend", "dtype", "measured",
                         "met"], targets))
        md.append("\n")
    md.append(ceiling_section(ctx))
    md.append("\n")
    md.append(floors_section(ctx))
    for fam in ("trtri", "potrf", "ldlt"):
        md.append(family_section(ctx, fam))
    md.append(qp_section(ctx))
    md.append(family_section(ctx, "vec"))
    if a.plots:
        made = plots(ctx, a.plots, a.plot_prefix)
        if made is None:
            md.append("## Plots\n\nmatplotlib is not installed here: re-run bench/report.py "
                      "on these results where it is.\n\n")
        elif made:
            base = os.path.dirname(os.path.abspath(a.out)) if a.out else os.getcwd()
            md.append("## Plots\n\n")
            for title, path in made:
                md.append(f"![{title}]({os.path.relpath(path, base)})\n\n")
    if data["summary"]:
        md.append("## Steps of the run (summary.txt)\n\n```\n" + data["summary"].rstrip() + "\n```\n")
    text = "".join(md)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


# ---------------------------------------------------------------------------- current results
# `report.py --current docs/perf [--update docs/performance.md]`: the latest figure of every
# case on every device measured, from the committed result folders. Two kinds of file are
# read:
#   - reports this script wrote (any .md under the folder with its "| what | device |" table):
#     their "Targets" table (ratio to the reference, percent of the copy bandwidth) and their
#     "Floors of the target cases" table (measured ms, floor ms, × floor);
#   - summary.json files: figures that exist only in prose (a README, the text of
#     docs/performance.md at a named commit), each row naming its source:
#       {"device": "H200", "date": "2026-11-27", "source": "...",
#        "rows": [{"family": "potrf", "case": "potrf_batched n=32 b=50000", "dtype": "float",
#                  "backend": "CUDA", "gala": "0.19 ms", "ref": "1.8 ms", "ref_name": "torch",
#                  "ratio": "9.88×", "floor": "…", "source": "…"}]}
#     ("date" may be a full ISO time; rows may override device, date and source).
# For each (family, case, dtype, backend, device) the row of the latest date wins; a row that
# gives only some columns (e.g. a floor table's ms) is merged with the same run's other row.

FAMILY_OF = {"trtri": "trtri", "potrf": "potrf", "potrs": "potrf", "potri": "potrf",
             "ldlt": "ldlt", "qp": "qp", "python": "python"}
FAMILY_TITLE = {"potrf": "Cholesky (potrf, potrs, potri)", "trtri": "Triangular inverse (trtri)",
                "ldlt": "LDLᵀ", "qp": "QP solver", "python": "Python package"}
DEVICE_ORDER = {"H100": 0, "H200": 1, "CPU": 2}


def short_device(text):
    for d in ("H100", "H200"):
        if d in text:
            return d
    return "CPU"


def md_tables(text):
    """{section heading: [row dicts]} of a markdown file's pipe tables."""
    out, head, cols = {}, "", None
    for line in text.splitlines():
        if line.startswith("#"):
            head, cols = line.lstrip("#").strip(), None
            continue
        if not line.startswith("|"):
            cols = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cols is None:
            cols = cells
        elif all(set(c) <= set("-: ") for c in cells):
            continue
        else:
            out.setdefault(head, []).append(dict(zip(cols, cells)))
    return out


def report_rows(path, text, folder):
    """Rows of one of this script's GPU reports (targets and floors tables)."""
    m = re.search(r"Date \(UTC\): (\S+?)Z? to", text)
    date = m.group(1) if m else ""
    dev = None
    for line in text.splitlines():
        if line.startswith("| CUDA |") or line.startswith("| OpenCL (GPU) |"):
            dev = short_device(line)
            break
    if not dev or not date:
        return []
    src = os.path.relpath(path, folder)
    rows = []
    tabs = md_tables(text)
    for head, trows in tabs.items():
        if head.startswith("Targets"):
            for t in trows:
                meas, fam = t.get("measured", "–"), t.get("family", "")
                if meas in ("–", "") or "/" in t.get("backend", "/"):
                    continue
                row = dict(family=fam, case=t["case"], dtype=t["dtype"], backend=t["backend"],
                           device=dev + " machine's CPU" if t["backend"].startswith("host")
                           else dev, date=date, source=src)
                mm = re.match(r"([\d .]+?) (ms|QPs/s)? ?vs ([\d .]+?) (ms|QPs/s): ([\d.]+)×", meas)
                mc = re.match(r"([\d .]+) GB/s of ([\d .]+): ([\d.]+) %", meas)
                if mm:
                    unit = mm.group(4)
                    row.update(gala=f"{mm.group(1)} {unit}", ref=f"{mm.group(3)} {unit}",
                               ratio=mm.group(5) + "×")
                    target = t.get("target", "")
                    if "OSQP on all cores" in target:
                        row["ref_name"] = "OSQP, all cores"
                        row["case"] += " (vs all cores)"
                    elif "OSQP" in target:
                        row["ref_name"] = "OSQP, 1 core"
                        if "host backend" in target:
                            row["case"] = "one QP at a time, host backend (1 thread)"
                    elif "hetero" in target:
                        row["ref_name"] = "uniform batch, same work"
                        row["ratio"] = mm.group(5) + "× the time"
                    else:
                        row["ref_name"] = "torch"
                elif mc:
                    row.update(pct_copy=mc.group(3) + " %")
                else:
                    continue
                rows.append(row)
        elif head.startswith("Floors"):
            for t in trows:
                floor = max(float(t["memory floor ms"].replace(" ", "")),
                            float(t["flop floor ms"].replace(" ", "")))
                rows.append(dict(family="potrf" if t["case"].startswith("potr") else "trtri",
                                 case=t["case"], dtype=t["dtype"], backend=t["backend"],
                                 device=dev, date=date, source=src,
                                 gala=t["measured ms"] + " ms", floor=f"{fmt(floor, 3)} ms",
                                 x_floor=t["× floor"] + "×"))
    return rows


def bench_text_rows(path, text, folder):
    """bench_potrf's text output (kind n batch dtype median ms ... %copy torch ms speedup):
    the rows of the target cases. Its date is the folder's (YYYY-MM-DD in the name)."""
    head = text.splitlines()[0]
    dev = short_device(head)
    backend = "CUDA" if "# device: cuda" in head else "OpenCL (GPU)"
    m = re.search(r"(\d{4}-\d{2}-\d{2})", path)
    if not m:
        return []
    cases = {(t["kind"], t["n"], t["batch"]) for t in TARGETS if "n" in t}
    cols, rows = None, []
    for line in text.splitlines():
        if line.startswith("# device:"):  # one section per backend
            dev = short_device(line)
            backend = "CUDA" if line.startswith("# device: cuda") else "OpenCL (GPU)"
            continue
        if line.startswith("kind "):
            cols = line.replace(" ms", "_ms").split()
            continue
        if not cols or line.startswith("#") or not line.strip():
            continue
        v = dict(zip(cols, line.split()))
        try:
            key = (v["kind"], int(v["n"]), int(v["batch"]))
        except (KeyError, ValueError):
            continue
        if key not in cases:
            continue
        fam = "trtri" if "trtri" in os.path.basename(path) else "potrf"
        row = dict(family=fam, case=f"{key[0]} n={key[1]} b={key[2]}", dtype=v["dtype"],
                   backend=backend, device=dev, date=m.group(1),
                   source=os.path.relpath(path, folder), gala=v["median_ms"] + " ms")
        if v.get("torch_ms") not in (None, "-", "–"):
            row.update(ref=v["torch_ms"] + " ms", ref_name="torch",
                       ratio=v.get("speedup", "–").rstrip("x") + "×")
        if key[0] == "potrf_batched" and v.get("%copy"):
            row["pct_copy"] = v["%copy"] + " %"
        rows.append(row)
    return rows


def summary_rows(path, folder):
    with open(path) as f:
        doc = json.load(f)
    src = os.path.relpath(path, folder)
    rows = []
    for r in doc.get("rows", []):
        row = dict(device=doc.get("device", "?"), date=doc.get("date", ""),
                   source=doc.get("source", src))
        row.update(r)
        if "source" in r or "source" in doc:
            row["source"] = f"{src}: {row['source']}"
        rows.append(row)
    return rows


def current_rows(folder):
    rows = []
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            p = os.path.join(root, f)
            if f == "summary.json":
                rows += summary_rows(p, folder)
            elif f.endswith(".md"):
                with open(p, errors="replace") as fh:
                    text = fh.read()
                if "| what | device | platform / routine |" in text:
                    rows += report_rows(p, text, folder)
            elif f.endswith(".txt"):
                with open(p, errors="replace") as fh:
                    text = fh.read()
                if text.startswith("# device:"):
                    rows += bench_text_rows(p, text, folder)
    # merge the columns of one run's rows of a case; keep the latest run per device
    merged = {}
    for r in rows:
        k = (r["family"], r["case"], r["dtype"], r["backend"], r["device"], r["date"])
        merged.setdefault(k, {}).update({c: v for c, v in r.items() if v not in (None, "")})
    best = {}
    for k, r in merged.items():
        kk = k[:5]
        if kk not in best or r["date"] > best[kk]["date"]:
            best[kk] = r
    return list(best.values())


def case_order(case):
    nums = [int(x) for x in re.findall(r"\d+", case)]
    return (re.sub(r"[\d=]+", "", case), nums)


def current_tables(folder):
    """{family: markdown table} of the latest results."""
    by = defaultdict(list)
    for r in current_rows(folder):
        by[FAMILY_OF.get(r["family"], r["family"])].append(r)
    out = {}
    for fam, rows in by.items():
        rows.sort(key=lambda r: (case_order(r["case"]), r["dtype"],
                                 DEVICE_ORDER.get(r["device"], 9), r["backend"]))
        body = []
        for r in rows:
            ref = r.get("ref", "–")
            if ref != "–" and r.get("ref_name"):
                ref = f"{ref} ({r['ref_name']})"
            dist = r.get("x_floor", "–")
            if r.get("floor"):
                dist = f"{dist} of {r['floor']}"
            elif dist != "–":
                dist = f"{dist} the floor"
            if r.get("pct_copy"):
                dist = (r["pct_copy"] + " of copy BW") if dist == "–" else \
                       f"{dist}; {r['pct_copy']} of copy BW"
            path = r["source"].split(":")[0]
            body.append((r["case"], r["dtype"], r["device"], r["backend"], r.get("gala", "–"),
                         ref, r.get("ratio", "–"), dist, r["date"][:10],
                         f"[{os.path.dirname(path) or path}](perf/{path})"))
        out[fam] = table(["case", "dtype", "GPU/CPU", "backend", "gala", "reference", "ratio",
                          "distance to the floor", "date", "source"], body)
    return out


def update_markdown(path, tables):
    """Replace every <!-- report:FAMILY --> ... <!-- /report:FAMILY --> block of a file."""
    with open(path) as f:
        text = f.read()
    for fam, md in tables.items():
        pat = re.compile(rf"(<!-- report:{fam} -->\n).*?(<!-- /report:{fam} -->)", re.S)
        text = pat.sub(lambda m: m.group(1) + md + m.group(2), text)
    with open(path, "w") as f:
        f.write(text)


def current_main(argv):
    ap = argparse.ArgumentParser(prog="report.py --current",
                                 description="latest result per case and device")
    ap.add_argument("folder", help="the result folders, e.g. docs/perf")
    ap.add_argument("--update", help="markdown file whose <!-- report:FAMILY --> blocks "
                                     "are rewritten (default: print the tables)")
    a = ap.parse_args(argv)
    tables = current_tables(a.folder)
    if a.update:
        update_markdown(a.update, tables)
    else:
        for fam, md in sorted(tables.items()):
            sys.stdout.write(f"## {FAMILY_TITLE.get(fam, fam)}\n\n{md}\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--current":
        current_main(sys.argv[2:])
    else:
        main()
