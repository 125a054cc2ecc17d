"""A randomized bad-argument test of gala's whole Python surface.

From a seeded generator (the ``seed`` fixture prints it; GALA_TEST_SEED reproduces a run),
a few hundred calls of every public function and method — gala.Context and devices,
QPBatch (constructor, from_problems, solve, update, warm_start, update_settings, update_rho,
certificates), gala.osqp.OSQP (setup, update, warm_start, update_settings, solve), every
gala.linalg routine, the extension's Buffer (create, wrap, write, read) and dense routines,
and QPSettings attribute assignment — each with one argument drawn wrong: shapes and sizes,
dtypes (int, bool, float16, complex, object, strings), non-contiguous, Fortran-ordered,
negative-stride, read-only, unaligned and byte-swapped arrays, NaN and Inf, None, lists,
scalars, sparse matrices with unsorted, duplicate or out-of-range indices (made through
SciPy's internals), out-of-range and unknown settings, k out of range, PyTorch tensors where
PyTorch is installed, CUDA tensors where there is a GPU.

The oracle of each call: an argument that is only another representation of valid values
(a list, a view, integers, a tensor) must give exactly the result of the same values as a
C-ordered float64 array; an argument that is wrong must raise ValueError, TypeError,
IndexError, gala.GalaError or NotImplementedError with a message naming it; NaN in QP data
must mark exactly the QPs that hold it INVALID_DATA. Nothing else may escape (no
AttributeError, AssertionError, KeyError, ComplexWarning, crash or hang: faulthandler aborts
with every thread's stack after two minutes), and every call must leave the contexts'
live buffer counts as they were.
"""
from __future__ import annotations

import faulthandler
import gc
import re
import time
import warnings
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable, Optional

import numpy as np
import pytest
import scipy.sparse as sp

import gala
import gala.osqp as gosqp
from gala import _ext
from gala import linalg as gl

try:
    import torch
except ImportError:  # PyTorch is optional: its variants are drawn only where it is installed
    torch = None

ALLOWED = (ValueError, TypeError, IndexError, gala.GalaError, NotImplementedError)
ERROR = object()  # canonical value of an argument that must be refused
CALLS = 400
N, M, K = 4, 3, 3  # variables, constraints, QPs of the base batch
MAX_ITER = 100     # every solve in this test (settings drawn here never make solves long)
TABLE = {r["name"]: r for r in gala.qp_settings_table()}
INVALID = _ext.QPStatus.INVALID_DATA


def cuda_ok() -> bool:
    return torch is not None and torch.cuda.is_available()


# ----------------------------------------------------------------------------- the oracle

@dataclass
class Call:
    what: str
    run: Callable[[dict], Any]  # run(args) -> the call's result, normalized by norm()
    bad: dict                   # the arguments with the wrong one
    canon: Any                  # the same arguments in canonical form, or ERROR
    names: tuple                # what the message of a refusal must name (one of them)
    check: Optional[Callable[[Any], None]] = None  # more checks of a result
    maybe: bool = False  # a refusal is acceptable too (low-level calls that take no copies)


def norm(r: Any) -> Any:
    """A call's result as nested tuples of NumPy arrays (tensors to NumPy, results of
    solves to x, y, status)."""
    if r is None:
        return None
    if torch is not None and isinstance(r, torch.Tensor):
        return r.detach().cpu().numpy()
    if isinstance(r, gala.QPBatchResult):
        return (norm(r.x), norm(r.y), np.asarray(r.status))
    if isinstance(r, SimpleNamespace):
        return (r.x, r.y, np.asarray(r.info.status_val))
    if isinstance(r, (tuple, list)):
        return tuple(norm(v) for v in r)
    if isinstance(r, dict):
        return tuple((k, norm(r[k])) for k in sorted(r))
    return np.asarray(r)


def same(a: Any, b: Any, what: str) -> None:
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), f"{what}: results differ in kind"
        for x, y in zip(a, b):
            same(x, y, what)
        return
    if a is None or b is None:
        assert a is None and b is None, f"{what}: results differ"
        return
    assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    np.testing.assert_array_equal(a, b, err_msg=what)


def named(msg: str, names: tuple) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", msg) for n in names)


def live(env) -> tuple:
    return tuple(c.stats()["buffers_live"] for c in env.contexts)


def attempt(call: Call, args: dict) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)  # a silent cast is a bug
        warnings.simplefilter("ignore", DeprecationWarning)
        return norm(call.run(args))


def fresh(v: Any) -> Any:
    """A copy of canonical arguments (calls may write into their arrays)."""
    if isinstance(v, np.ndarray):
        return v.copy()
    if sp.issparse(v):
        return v.copy()
    if isinstance(v, dict):
        return {k: fresh(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(fresh(x) for x in v)
    return v


def execute(call: Call, env) -> str:
    """Run one call and judge it; returns 'raised' or 'ok'."""
    before = live(env)
    canon = fresh(call.canon)  # before the call, which may write into arrays it shares
    outcome = None
    try:
        got = attempt(call, call.bad)
    except ALLOWED as e:
        msg = f"{type(e).__name__}: {e}"
        assert not call.names or named(str(e), call.names), \
            f"{call.what}: the message does not name {call.names}: {msg}"
        if call.canon is not ERROR and not call.maybe:
            try:
                attempt(call, canon)
            except ALLOWED:
                pass
            else:
                pytest.fail(f"{call.what}: raised {msg}, but the same values as float64 arrays succeed")
        outcome = "raised"
    except Exception as e:  # anything else is a bug
        pytest.fail(f"{call.what}: {type(e).__name__}: {e}")
    if outcome is None:
        assert call.canon is not ERROR, f"{call.what}: succeeded, expected an error"
        try:
            ref = attempt(call, canon)
        except Exception as e:
            pytest.fail(f"{call.what}: succeeded, but the same values as float64 arrays raise "
                        f"{type(e).__name__}: {e}")
        same(got, ref, call.what)
        if call.check is not None:
            call.check(got)
        outcome = "ok"
    gc.collect()
    assert live(env) == before, f"{call.what}: buffers left alive: {before} -> {live(env)}"
    if getattr(env, "pb_copy", None) is not None:  # the shared problem data: never written
        for name, (ref, get) in env.pb_copy.items():
            assert np.array_equal(get(env.pb), ref), f"{call.what}: changed the caller's {name}"
    return outcome


# ----------------------------------------------------------------------------- wrong values

def unaligned(a: np.ndarray) -> np.ndarray:
    raw = np.zeros(a.size * a.itemsize + 1, np.uint8)
    out = np.frombuffer(raw.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    out[...] = a
    return out


def mutate(rng, good: np.ndarray, api: str, optional: bool = False):
    """A random wrong version of ``good`` (a float64 array): (label, value, canonical),
    canonical being what the call must behave as (a float64 or float32 array, None), or ERROR.
    api: 'qp' (host float64 data: anything NumPy reads as real numbers), 'linalg' (float32 or
    float64; NumPy integers and booleans read as float64; extra leading axes are a batch)."""
    labels = ["noncontig", "negstride", "fortran", "list", "readonly", "unaligned", "bigendian",
              "float32", "float16", "int", "bool", "object", "complex", "strings", "none",
              "scalar", "empty", "short", "long", "extradim", "transposed", "ragged", "dict",
              "string", "nan", "inf", "sparse"]
    if torch is not None:
        labels += ["torch", "torch32", "torch_int", "torch_grad"]
    if cuda_ok():
        labels += ["cuda"]
    label = str(rng.choice(labels))
    g = good.copy()  # no value shares memory with good
    lin = api == "linalg"
    if label == "noncontig":
        return label, np.stack([g, g + 7], axis=-1)[..., 0], g
    if label == "negstride":
        return label, np.flip(np.ascontiguousarray(np.flip(g))), g
    if label == "fortran":
        return label, np.asfortranarray(g), g
    if label == "list":
        return label, g.tolist(), g
    if label == "readonly":
        v = g.copy()
        v.flags.writeable = False
        return label, v, g
    if label == "unaligned":
        return label, unaligned(g), g
    if label == "bigendian":
        return label, g.astype(">f8"), g
    if label == "float32":
        v = g.astype(np.float32)
        return label, v, v.copy() if lin else v.astype(np.float64)
    if label == "float16":
        v = g.astype(np.float16)
        return label, v, ERROR if lin else v.astype(np.float64)
    if label == "int":
        v = np.round(g * 3).astype(np.int64)
        return label, v, v.astype(np.float64)
    if label == "bool":
        v = g > 0
        return label, v, v.astype(np.float64)
    if label == "object":
        return label, g.astype(object), ERROR if lin else g
    if label == "complex":
        return label, g.astype(np.complex128), ERROR
    if label == "strings":
        return label, g.astype(str), ERROR
    if label == "none":
        return label, None, None if optional else ERROR
    if label == "scalar":
        return label, np.float64(0.5), ERROR
    if label == "empty":
        return label, np.zeros((0,)), ERROR
    if label == "short":
        return label, g.ravel()[:-1], ERROR
    if label == "long":
        return label, np.append(g.ravel(), 1.0), ERROR
    if label == "extradim":
        return label, g[None], g[None] if lin else ERROR
    if label == "transposed":
        if g.ndim == 2 and g.shape[0] != g.shape[1]:
            return label, g.T, ERROR
        return label, np.ascontiguousarray(g.T), np.ascontiguousarray(g.T)
    if label == "ragged":
        return label, [[1.0, 2.0], [3.0]], ERROR
    if label == "dict":
        return label, {"a": 1.0}, ERROR
    if label == "string":
        return label, "abc", ERROR
    if label in ("nan", "inf"):
        v = g.copy()
        v.flat[int(rng.integers(0, v.size))] = np.nan if label == "nan" else -np.inf
        return label, v, v
    if label == "sparse":
        return label, sp.csc_matrix(g.reshape(-1, g.shape[-1]) if g.ndim else g.reshape(1, 1)), ERROR
    if label == "torch":
        return label, torch.from_numpy(np.asfortranarray(g)), g
    if label == "torch32":
        v = torch.from_numpy(g.astype(np.float32))
        return label, v, g.astype(np.float32) if lin else g.astype(np.float32).astype(np.float64)
    if label == "torch_int":
        v = np.round(g * 3).astype(np.int64)
        return label, torch.from_numpy(v), ERROR if lin else v.astype(np.float64)
    if label == "torch_grad":
        return label, torch.from_numpy(g.copy()).requires_grad_(True), g
    if label == "cuda":
        return label, torch.from_numpy(g).cuda(), ERROR
    raise AssertionError(label)


def mutate_sparse(rng, good: sp.csc_matrix, dense_ok: bool):
    """A wrong (or only differently stored) version of a CSC matrix: (label, value,
    canonical), canonical a canonical CSC matrix or ERROR. Malformed matrices are made by
    writing SciPy's index arrays directly."""
    labels = ["unsorted", "duplicates", "oor_index", "neg_index", "indptr_nonmono",
              "indptr_short", "indptr_past", "int64", "csr", "coo", "coo_oor", "complex",
              "nan", "wrong_shape", "dense", "lower_part"]
    label = str(rng.choice(labels))
    G = good.copy()
    G.sort_indices()
    data, ind, ptr = G.data.copy(), G.indices.copy(), G.indptr.copy()
    if label == "unsorted":  # each column's entries in reverse order
        for j in range(G.shape[1]):
            s = slice(ptr[j], ptr[j + 1])
            data[s], ind[s] = data[s][::-1].copy(), ind[s][::-1].copy()
        v = sp.csc_matrix(G.shape)
        v.data, v.indices, v.indptr = data, ind, ptr
        return label, v, G
    if label == "duplicates":  # the first entry split into two halves (exact)
        j = int(np.flatnonzero(np.diff(ptr))[0])
        p = ptr[j]
        data = np.insert(data, p, data[p] / 2)
        data[p + 1] /= 2
        ind = np.insert(ind, p, ind[p])
        ptr = ptr.copy()
        ptr[j + 1:] += 1
        return label, sp.csc_matrix((data, ind, ptr), shape=G.shape), G
    if label in ("oor_index", "neg_index", "indptr_nonmono", "indptr_short", "indptr_past"):
        v = G.copy()
        if label == "oor_index":
            v.indices[int(rng.integers(0, v.nnz))] = G.shape[0] + int(rng.integers(0, 1000))
        elif label == "neg_index":
            v.indices[int(rng.integers(0, v.nnz))] = -1
        elif label == "indptr_nonmono":
            v.indptr[1], v.indptr[2] = v.indptr[2] + 1, v.indptr[1]
        elif label == "indptr_short":
            v.indptr = v.indptr[:-1].copy()
        else:
            v.indptr[-1] += 5
        return label, v, ERROR
    if label == "int64":
        v = G.copy()
        v.indices, v.indptr = v.indices.astype(np.int64), v.indptr.astype(np.int64)
        return label, v, G
    if label == "csr":
        return label, G.tocsr(), G
    if label == "coo":
        return label, G.tocoo(), G
    if label == "coo_oor":
        v = G.tocoo()
        v.row[0] = G.shape[0] + 3
        return label, v, ERROR
    if label == "complex":
        return label, G.astype(np.complex128), ERROR
    if label == "nan":
        v = G.copy()
        v.data[int(rng.integers(0, v.nnz))] = np.nan
        return label, v, v
    if label == "wrong_shape":
        return label, sp.csc_matrix(G.toarray()[:, :-1]), ERROR
    if label == "dense":
        return label, G.toarray(), G if dense_ok else ERROR
    if label == "lower_part":  # for P: entries below the diagonal, which are dropped
        D = G.toarray()
        if D.shape[0] == D.shape[1]:
            return label, sp.csc_matrix(D + np.tril(np.ones_like(D), -1)), G
        return label, G, G
    raise AssertionError(label)


def mutate_scalar(rng, good: float, name: str):
    """A wrong real scalar: (value, canonical)."""
    choices = [("x", ERROR), (None, ERROR), ([1.0], ERROR), (1 + 2j, ERROR), (np.nan, np.nan),
               (np.float32(good), float(np.float32(good))), (np.int64(2), 2.0), (True, 1.0),
               (np.array(good), good), (np.ones(2), ERROR)]
    return choices[int(rng.integers(0, len(choices)))]


def mutate_k(rng, count: int):
    """A k argument: (value, canonical int or None, or ERROR)."""
    choices = [(count, ERROR), (count + 7, ERROR), (-1, ERROR), (-count - 3, ERROR), (2**40, ERROR),
               (1.5, ERROR), ("0", ERROR), ([0], ERROR), (np.int64(count - 1), count - 1),
               (np.int32(0), 0), (None, None), (0, 0)]
    return choices[int(rng.integers(0, len(choices)))]


def setting_value(rng, name: str, current: Optional[float] = None):
    """A value for setting ``name``: (value, valid). With ``current`` (update_settings), a
    setting fixed at setup is valid only at its current value."""
    r = TABLE[name]
    kind, lo, hi, d = r["kind"], r["lo"], r["hi"], r["default"]
    opts = [(int(d) if kind != "real" else float(d), True), ("nope", False),
            (None, name == "dtype"),  # dtype=None: NumPy's default, float64
            ([1], False), (float("nan"), False), (1 + 2j, False)]
    if kind == "bool":
        opts += [(1 - int(d), True), (bool(1 - int(d)), True), (2, False), (-1, False), (0.5, False)]
    if kind == "enum":
        w = str(rng.choice(r["choices"]))
        opts += [(w, True), (int(hi) + 1, False), (int(lo) - 1, False), ("no-such-choice", False)]
        if name == "dtype":
            opts += [("float32", True), (np.float64, True), ("float16", False)]
    if kind == "int":
        if int(d) + 1 <= hi:
            opts.append((int(d) + 1, True))
        opts += [(np.int64(int(d)), True), (float(int(d)), True), (int(lo) - 1, False),
                 (lo + 0.5, False), (2**31, False), (2**70, False), (10**400, False)]
    if kind == "real":
        v = d * 1.5
        if (v > lo or (v == lo and not r["lo_open"])) and (v < hi or (v == hi and not r["hi_open"])):
            opts.append((v, True))
        opts.append((np.float64(d), True))
        if np.isfinite(lo):
            opts.append((lo - 1.0, False))
        if r["lo_open"]:
            opts.append((lo, False))
        if np.isfinite(hi):
            opts.append((hi + 0.5, False))
    value, valid = opts[int(rng.integers(0, len(opts)))]
    if valid and current is not None and r["fixed"]:
        from gala import _settings
        valid = float(_settings.value_of(name, value)) == float(current)
    return value, valid


# ----------------------------------------------------------------------------- the problems

def base_problem(rng):
    G = rng.standard_normal((N, N))
    P = sp.csc_matrix(np.triu(G @ G.T + N * np.eye(N)))
    Ad = rng.standard_normal((M, N)) * (rng.random((M, N)) < 0.6) + np.eye(M, N)
    A = sp.csc_matrix(Ad)
    q = rng.standard_normal((K, N))
    l = -1 - rng.random((K, M))
    u = 1 + rng.random((K, M))
    return SimpleNamespace(P=P, A=A, q=q, l=l, u=u)


def solve_batch(b: gala.QPBatch):
    b.update_settings(max_iter=MAX_ITER)
    return b.solve()


def invalid_rows(label: str, arr_shape: tuple, value) -> Optional[set]:
    """The QPs a NaN in a stacked (K, ·) vector makes invalid, or None if not a NaN case."""
    if label != "nan" or value is None:
        return None
    a = np.asarray(value, dtype=np.float64).reshape(K, -1)
    return set(np.flatnonzero(np.isnan(a).any(axis=1)).tolist())


def expect_invalid(rows: Optional[set]):
    if rows is None:
        return None

    def check(res):
        status = res[2]
        bad = set(np.flatnonzero(status == int(INVALID)).tolist())
        assert bad == rows, f"INVALID_DATA for QPs {sorted(bad)}, expected {sorted(rows)}"
    return check


# ----------------------------------------------------------------------------- calls, by API

def case_qpbatch(rng, env) -> Call:
    pb = env.pb
    args = dict(P=pb.P, q=pb.q, A=pb.A, l=pb.l, u=pb.u, c0=0.0, settings={"max_iter": MAX_ITER})
    which = str(rng.choice(["P", "q", "A", "l", "u", "c0", "context", "settings"]))
    canon = dict(args)
    names = (which,)
    check = None
    if which in ("P", "A"):
        label, v, c = mutate_sparse(rng, getattr(pb, which), dense_ok=True)
        if which == "P" and label == "wrong_shape":
            c = ERROR
        if which == "A" and label == "lower_part":
            label, v, c = "same", pb.A, pb.A
        if label == "nan":
            check = expect_invalid(set(range(K)))
    elif which == "c0":
        v, c = mutate_scalar(rng, 0.0, "c0")
    elif which == "context":
        v, c = (str(rng.choice(["host", "ctx"])), ERROR)
    elif which == "settings":
        name = str(rng.choice(list(TABLE) + ["no_such_setting"]))
        if name == "no_such_setting":
            v, valid = {name: 1}, False
        else:
            val, valid = setting_value(rng, name)
            v = {name: val, "max_iter": MAX_ITER} if name != "max_iter" else {name: val}
        c = v if valid else ERROR
        names = tuple(v)
    else:
        label, v, c = mutate(rng, getattr(pb, which), "qp", optional=which in ("l", "u"))
        if which == "q" and label == "none":
            c = ERROR
        if which in ("l", "u"):
            check = expect_invalid(invalid_rows(label, (K, M), v))
        if which == "q":
            check = expect_invalid(invalid_rows(label, (K, N), v))
        if which == "q" and label in ("short", "long", "empty", "transposed", "extradim", "scalar"):
            names = ("q", "P", "A", "l", "u")  # q decides k and n: then others have the wrong size
    args[which] = v
    if c is not ERROR:
        canon[which] = c

    def run(a):
        ctx = a["context"] if "context" in a else env.ctx
        b = gala.QPBatch(a["P"], a["q"], a["A"], a["l"], a["u"], c0=a["c0"], context=ctx,
                         **a["settings"])
        if b.settings["max_iter"] != MAX_ITER:
            b.update_settings(max_iter=MAX_ITER)
        return solve_batch(b)
    if which == "context":
        args["context"] = v
    return Call(f"QPBatch({which}={label_of(v)})", run, args, canon if c is not ERROR else ERROR,
                names, check)


def label_of(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"ndarray{v.shape}{v.dtype}{'' if v.flags.c_contiguous else ' strided'}"
    if sp.issparse(v):
        return f"{v.format}{v.shape}"
    if torch is not None and isinstance(v, torch.Tensor):
        return f"tensor{tuple(v.shape)}{v.dtype}@{v.device}"
    r = repr(v)
    return r if len(r) < 60 else r[:57] + "..."


def case_from_problems(rng, env) -> Call:
    pb = env.pb
    probs = [dict(P=pb.P, q=pb.q[j], A=pb.A, l=pb.l[j], u=pb.u[j]) for j in range(K)]
    j = int(rng.integers(0, K))
    which = str(rng.choice(["P", "q", "A", "l", "u", "c0", "structure"]))
    canon = [dict(p) for p in probs]
    name = f"problems[{j}].{which}"
    names = (name,)
    check = None
    if which in ("P", "A"):
        label, v, c = mutate_sparse(rng, pb.P if which == "P" else pb.A, dense_ok=True)
        if which == "P" and label == "wrong_shape":
            c = ERROR
        if which == "A" and label == "lower_part":
            v = c = pb.A
        if label == "nan":
            check = expect_invalid({j})
        if which == "A" and label == "wrong_shape":
            names = (name, f"problems[{j}].l", f"problems[{j}].u")
    elif which == "c0":
        v, c = mutate_scalar(rng, 0.0, name)
        if v is None:
            c = None  # c0 None: 0
    elif which == "structure":
        choice = int(rng.integers(0, 7))
        if choice == 0:
            return Call("from_problems(5)", lambda a: gala.QPBatch.from_problems(a["p"], context=env.ctx),
                        {"p": 5}, ERROR, ("problems",))
        if choice == 1:
            return Call("from_problems([])", lambda a: gala.QPBatch.from_problems(a["p"], context=env.ctx),
                        {"p": []}, ERROR, ("problems",))
        if choice == 2:
            bad = [dict(p) for p in probs]
            bad[j] = (pb.P, pb.q[j])
            return Call("from_problems(short tuple)", lambda a: gala.QPBatch.from_problems(a["p"], context=env.ctx),
                        {"p": bad}, ERROR, (f"problems[{j}]",))
        if choice == 3:
            bad = [dict(p) for p in probs]
            bad[j] = dict(bad[j], Q=1)
            return Call("from_problems(unknown key)", lambda a: gala.QPBatch.from_problems(a["p"], context=env.ctx),
                        {"p": bad}, ERROR, (f"problems[{j}]",))
        if choice == 4:
            bad = [dict(p) for p in probs]
            bad[j] = 3.0
            return Call("from_problems(a float)", lambda a: gala.QPBatch.from_problems(a["p"], context=env.ctx),
                        {"p": bad}, ERROR, (f"problems[{j}]",))
        if choice == 5:  # tuples and a generator: accepted
            tup = [(p["P"], p["q"], p["A"], p["l"], p["u"]) for p in probs]

            def run_gen(a):
                b = gala.QPBatch.from_problems((t for t in a["p"]), context=env.ctx, max_iter=MAX_ITER)
                return b.solve()
            return Call("from_problems(generator of tuples)", run_gen, {"p": tup}, {"p": tup}, ())
        return Call("from_problems(dense_shared on different P)",
                    lambda a: gala.QPBatch.from_problems(a["p"], context=env.ctx, linsys_solver="dense-shared"),
                    {"p": [probs[0], dict(probs[1], P=2 * pb.P)]}, ERROR, ("dense-shared", "shared", "DENSE_SHARED", "linsys_solver"))
    else:
        label, v, c = mutate(rng, probs[j][which], "qp", optional=which in ("l", "u"))
        if which == "q" and label in ("none", "scalar", "extradim"):
            c = ERROR
        if which == "q" and label in ("short", "long", "empty"):
            names = (name, f"problems[{j}].P", f"problems[{j}].A", f"problems[{j}].l",
                     f"problems[{j}].u")
        if label == "nan":
            check = expect_invalid({j})
        if which in ("l", "u") and label in ("extradim", "transposed"):
            c = np.ravel(v)  # any shape of m entries is read, as OSQP does
    bad = [dict(p) for p in probs]
    bad[j][which] = v
    if c is not ERROR:
        canon[j][which] = c

    def run(a):
        b = gala.QPBatch.from_problems(a["p"], context=env.ctx, max_iter=MAX_ITER)
        return b.solve()
    return Call(f"from_problems({name}={label_of(v)})", run, {"p": bad},
                ERROR if c is ERROR else {"p": canon}, names, check)


def fresh_batch(env, shared: bool) -> gala.QPBatch:
    pb = env.pb
    if shared:
        return gala.QPBatch(pb.P, pb.q, pb.A, pb.l, pb.u, context=env.ctx, max_iter=MAX_ITER)
    # P of its own for each QP: the per-QP strategy, which takes new P and A per QP
    return gala.QPBatch.from_problems(
        [((1 + j) * pb.P, pb.q[j], pb.A, pb.l[j], pb.u[j]) for j in range(K)], context=env.ctx,
        max_iter=MAX_ITER)


def case_update(rng, env) -> Call:
    """QPBatch.update, warm_start, update_rho, certificates, update_settings, solve."""
    pb = env.pb
    shared = bool(rng.integers(0, 2))
    method = str(rng.choice(["update", "update", "warm_start", "update_rho", "certificates",
                             "update_settings", "solve"]))
    if method == "solve":
        return Call("QPBatch.solve(1)", lambda a: fresh_batch(env, shared).solve(a["x"]),
                    {"x": 1}, ERROR, ())
    if method == "certificates":
        kv, kc = mutate_k(rng, K)
        if kv is None:
            kc = ERROR

        def run_cert(a):
            b = fresh_batch(env, shared)
            b.solve()
            return b.certificates(a["k"])
        return Call(f"certificates(k={label_of(kv)})", run_cert, {"k": kv},
                    ERROR if kc is ERROR else {"k": kc}, ("k",))
    kv, kc = mutate_k(rng, K) if rng.random() < 0.3 else (None, None)
    if method == "update_rho":
        opts = [(v, c if c is ERROR or (np.isfinite(c) and c > 0) else ERROR)
                for v, c in [mutate_scalar(rng, 0.2, "rho")]]
        opts += [(1e-9, 1e-9), (1e9, 1e9), (0.3, 0.3), (-1.0, ERROR), (0.0, ERROR), (np.inf, ERROR)]
        rv, rc = opts[int(rng.integers(0, len(opts)))]

        def run_rho(a):
            b = fresh_batch(env, shared)
            b.update_rho(a["rho"], k=a["k"])
            return solve_batch(b)
        bad = {"rho": rv, "k": kv}
        canon = ERROR if rc is ERROR or kc is ERROR else {"rho": rc, "k": kc}
        return Call(f"update_rho({label_of(rv)}, k={label_of(kv)})", run_rho, bad, canon,
                    ("rho", "ρ", "k"))
    if method == "update_settings":
        name = str(rng.choice(list(TABLE) + ["no_such_setting"]))
        if name == "no_such_setting":
            v, valid = 1, False
        else:
            v, valid = setting_value(rng, name, current=float(env.settings[shared][name]))

        def run_set(a):
            b = fresh_batch(env, shared)
            b.update_settings(**a["kw"])
            return solve_batch(b)
        return Call(f"update_settings({name}={label_of(v)})", run_set, {"kw": {name: v}},
                    {"kw": {name: v}} if valid else ERROR, (name,))
    # update / warm_start: stacked (K, ·) arguments, or QP k's; one of them wrong, or k
    if method == "update":
        goods = {"q": pb.q[::-1].copy(), "l": pb.l - 0.5, "u": pb.u + 0.5,
                 "Px": np.tile(pb.P.data * 1.5, (K, 1)), "Ax": np.tile(pb.A.data * 0.5, (K, 1))}
        if shared and kv is not None:  # the shared strategy takes new P and A for all QPs only
            del goods["Px"], goods["Ax"]
    else:
        goods = {"x": pb.q.copy(), "y": pb.l.copy()}
    present = [f for f in goods if rng.random() < 0.5] or [str(rng.choice(list(goods)))]
    per_qp = kv is not None and kc is not ERROR
    args = {f: (goods[f][kc] if per_qp else goods[f]) for f in present}
    canon = dict(args)
    check = None
    wrong = None if kc is ERROR else str(rng.choice(present))
    c = None
    if wrong is not None:
        label, v, c = mutate(rng, args[wrong], "qp", optional=True)
        # NaN in Px/Ax: refused by the solver (NotFiniteError), as the canonical call is
        if label == "nan" and wrong in ("q", "l", "u"):
            check = expect_invalid({kc} if per_qp else invalid_rows(label, (K, -1), v))
        args[wrong] = v
        if c is not ERROR:
            canon[wrong] = c

    def run(a):
        b = fresh_batch(env, shared)
        getattr(b, method)(**{f: a[f] for f in a if f != "k"}, k=a["k"])
        return solve_batch(b)
    args["k"] = kv
    canon["k"] = kc
    names = ("k",) if wrong is None else (wrong, wrong[0]) if wrong in ("Px", "Ax") else (wrong,)
    return Call(f"{method}({', '.join(f'{f}={label_of(args[f])}' for f in args)})", run, args,
                ERROR if (c is ERROR or kc is ERROR) else canon, names, check)


def case_osqp(rng, env) -> Call:
    pb = env.pb
    q, l, u = pb.q[0], pb.l[0], pb.u[0]
    method = str(rng.choice(["setup", "setup", "update", "warm_start", "update_settings", "unset"]))
    if method == "unset":
        m = str(rng.choice(["update", "warm_start", "update_settings", "solve", "cold_start"]))
        kw = {"update": {"q": q}, "warm_start": {"x": q}, "update_settings": {"eps_abs": 1e-4},
              "solve": {}, "cold_start": {}}[m]
        return Call(f"OSQP().{m} before setup", lambda a: getattr(gosqp.OSQP(), m)(**a), kw, ERROR,
                    ("setup",))
    setup_args = dict(P=pb.P, q=q, A=pb.A, l=l, u=u)
    settings = {"verbose": False, "max_iter": MAX_ITER}

    def solved(a_setup, a_set, after=None):
        s = gosqp.OSQP(context=env.ctx)
        s.setup(**a_setup, **a_set)
        if after is not None:
            after(s)
        s.update_settings(max_iter=MAX_ITER)
        return s.solve()
    if method == "setup":
        which = str(rng.choice(["P", "q", "A", "l", "u", "settings"]))
        bad, canon = dict(setup_args), dict(setup_args)
        names = (which,)
        if which in ("P", "A"):
            label, v, c = mutate_sparse(rng, getattr(pb, which), dense_ok=False)
            if which == "P" and label == "wrong_shape":
                c = ERROR
            if which == "A" and label == "lower_part":
                v = c = pb.A
            if label == "nan":
                c = ERROR  # OSQP's data validation
            if which == "A" and label == "wrong_shape":
                names = ("A", "l", "u")
        elif which == "settings":
            extra = {"polish": (True, True), "warm_start": (1, True), "verbose": ("yes", False),
                     "linsys_solver": (int(rng.choice([1, 2, 3, 0])), None),
                     "solver_type": (str(rng.choice(["direct", "indirect", "gpu"])), None),
                     "cg_precond": (int(rng.choice([0, 1])), None),
                     "allocate_solution": (0, False), "no_such": (1, False), "rho": (-1.0, True)}
            name = str(rng.choice(list(extra) + OSQP_NAMES + ["dtype"]))
            if name in extra:
                v, valid = extra[name]
                if name == "linsys_solver":
                    valid = v in (1, 2)
                if name == "solver_type":
                    valid = v != "gpu"
                if name == "cg_precond":
                    valid = v == 1
            else:
                v, valid = setting_value(rng, name)
            kw = {name: v}
            return Call(f"OSQP.setup({name}={label_of(v)})",
                        lambda a: solved(setup_args, dict(settings, **a["kw"])), {"kw": kw},
                        {"kw": kw} if valid else ERROR, (name, "polishing", "warm_starting"))
        else:
            label, v, c = mutate(rng, setup_args[which], "qp", optional=which in ("l", "u"))
            if label in ("nan",) or (label == "inf" and which == "q"):
                c = ERROR  # OSQP validates the data
            if label == "sparse":
                c = ERROR
            if which == "q" and label in ("short", "long", "empty", "scalar"):
                names = ("q", "P", "A")
            if label in ("extradim", "transposed", "fortran"):  # OSQP reads any shape of n entries
                c = np.ravel(v)
            if which == "q" and label == "none":
                c = None  # OSQP: q None is zero
            if which in ("l", "u") and label == "none":
                c = None  # one bound is enough: the other is infinite
                names = ("l", "u")
        bad[which] = v
        if c is not ERROR:
            canon[which] = c
        return Call(f"OSQP.setup({which}={label_of(v)})",
                    lambda a: solved(a, settings), bad, ERROR if c is ERROR else canon, names)
    if method == "update":
        which = str(rng.choice(["q", "l", "u", "Px", "Ax", "Px_idx", "Ax_idx", "unknown"]))
        if which == "unknown":
            return Call("OSQP.update(P=...)", lambda a: solved(setup_args, settings, lambda s: s.update(**a)),
                        {"P": pb.P}, ERROR, ("P",))
        goods = {"q": q * 2, "l": l - 1, "u": u + 1, "Px": pb.P.data * 2, "Ax": pb.A.data * 0.5}
        if which.endswith("_idx"):
            base = which[:-4]
            nnz = len(goods[base])
            opts = [(np.arange(nnz)[::-1].copy(), True), (np.array([0.0, 1.0]), False),
                    (np.array([nnz]), False), (np.array([-1]), False), ([0, 1], True),
                    (np.array([0, 1, 2])[:nnz], None)]
            idx, valid = opts[int(rng.integers(0, len(opts)))]
            vals = goods[base][: np.size(idx)]
            if valid is None:
                vals = goods[base][:1]
                valid = np.size(idx) == 1
            kw = {base: vals, which: idx}
            return Call(f"OSQP.update({which}={label_of(idx)})",
                        lambda a: solved(setup_args, settings, lambda s: s.update(**a)), kw,
                        dict(kw) if valid else ERROR, (which, base))
        label, v, c = mutate(rng, goods[which], "qp", optional=True)
        if label in ("nan",) or (label == "inf" and which in ("q", "Px", "Ax")):
            c = ERROR
        if label == "none":
            c = None
        if label in ("extradim", "transposed", "fortran"):
            c = np.ravel(v)
        if label == "sparse":
            c = ERROR
        return Call(f"OSQP.update({which}={label_of(v)})",
                    lambda a: solved(setup_args, settings, lambda s: s.update(**a)), {which: v},
                    ERROR if c is ERROR else {which: c}, (which,))
    if method == "warm_start":
        which = str(rng.choice(["x", "y"]))
        label, v, c = mutate(rng, q if which == "x" else l, "qp", optional=True)
        if label in ("extradim", "transposed", "fortran"):
            c = np.ravel(v)
        if label == "sparse":
            c = ERROR
        return Call(f"OSQP.warm_start({which}={label_of(v)})",
                    lambda a: solved(setup_args, settings, lambda s: s.warm_start(**a)), {which: v},
                    ERROR if c is ERROR else {which: c}, (which,))
    # update_settings
    s0 = gosqp.OSQP(context=env.ctx)
    s0.setup(**setup_args, **settings)
    cur = _settings_dict(s0.settings)
    del s0
    name = str(rng.choice(OSQP_NAMES + ["no_such", "rho", "dtype"]))
    if name == "no_such":
        v, valid = 1, False
    elif name == "rho":
        v, valid = [(0.5, True), ("x", False), (None, True), (-1.0, False)][int(rng.integers(0, 4))]
        if v is None:
            v, valid = 1e-3, True
    else:
        v, valid = setting_value(rng, name, current=float(cur[name]))
    return Call(f"OSQP.update_settings({name}={label_of(v)})",
                lambda a: solved(setup_args, settings, lambda s: s.update_settings(**a)), {name: v},
                {name: v} if valid else ERROR, (name, "ρ"))


# OSQP's settings as gala's table has them (linsys_solver takes OSQP's codes there: drawn apart)
OSQP_NAMES = [n for n in TABLE if TABLE[n]["osqp"] and n != "linsys_solver"]


def _settings_dict(s) -> dict:
    """The C table's values of a settings object (gala.osqp's settings show dtype as a NumPy
    dtype and linsys_solver in OSQP's terms)."""
    from gala import _settings
    return {n: (_settings.dtype_code(getattr(s, n)) if n == "dtype" else getattr(s, n)) for n in TABLE}


def case_linalg(rng, env) -> Call:
    """gala.linalg's routines with one wrong argument; shapes that another batch makes valid
    are judged by the canonical call."""
    ctx = env.ctx
    n = int(rng.integers(2, 6))
    batch = [(), (3,)][int(rng.integers(0, 2))]
    G = rng.standard_normal(batch + (n, n))
    A = G @ G.swapaxes(-1, -2) + n * np.eye(n)
    L = np.linalg.cholesky(A)
    routine = str(rng.choice(["cholesky", "cholesky_inverse", "inv_triangular", "ldl", "cho_solve",
                              "cho_solve", "context"]))
    if routine == "context":
        f = str(rng.choice(["cholesky", "ldl", "inv_triangular"]))
        v, c = [("host", ERROR), (5, ERROR), (env.ctx2, env.ctx2)][int(rng.integers(0, 3))]
        return Call(f"{f}(context={label_of(v)})", lambda a: getattr(gl, f)(A, context=a["context"]),
                    {"context": v}, ERROR if c is ERROR else {"context": c}, ("context",))
    if routine == "cho_solve":
        which = str(rng.choice(["c", "b", "b", "c_and_lower"]))
        k = [None, 2][int(rng.integers(0, 2))]
        b = rng.standard_normal(batch + ((n,) if k is None else (n, k)))
        if which == "c_and_lower":
            opts = [(L, ERROR), ((L,), ERROR), ((L, True, 1), ERROR), ("x", ERROR), (None, ERROR),
                    ([L, True], (L, True)), ((L.tolist(), 1), (L, True))]
            v, c = opts[int(rng.integers(0, len(opts)))]
            return Call(f"cho_solve(c_and_lower={label_of(v)})",
                        lambda a: gl.cho_solve(a["cl"], b, context=ctx), {"cl": v},
                        ERROR if c is ERROR else {"cl": c}, ("c_and_lower", "c"))
        label, v, c = mutate(rng, L if which == "c" else b, "linalg")
        bad, canon = {"c": L, "b": b}, {"c": L, "b": b}
        bad[which] = v
        if c is not ERROR:
            canon[which] = c
        names = ("c", "b") if label == "cuda" else (which,)  # the mix of devices: either is named
        return Call(f"cho_solve({which}={label_of(v)}), c {L.shape}, b {b.shape}",
                    lambda a: gl.cho_solve((a["c"], True), a["b"], context=ctx), bad,
                    ERROR if c is ERROR else canon, names)
    name = "L" if routine == "cholesky_inverse" else "a"
    good = A if routine in ("cholesky", "ldl") else L
    label, v, c = mutate(rng, good, "linalg")
    overwrite = bool(rng.integers(0, 2))
    kw = {"overwrite": overwrite} if routine == "cholesky_inverse" else {"overwrite_a": overwrite}

    def run(a):
        x = a["a"]
        if x is good:  # mutate may hand back good itself (it is C-ordered already)
            x = x.copy()
        return getattr(gl, routine)(x, **kw, context=ctx)
    return Call(f"{routine}({name}={label_of(v)}, {kw})", run, {"a": v},
                ERROR if c is ERROR else {"a": c}, (name,))


# Buffer.write reads any host float64 array (a non-contiguous one through a copy); read
# writes into the caller's own C-contiguous, writable float64 array; wrap takes the caller's
# own contiguous, aligned, writable float32/float64/int32 memory. Labels of mutate():
WRITE_OK = {"noncontig", "negstride", "fortran", "readonly", "unaligned", "transposed",
            "extradim", "nan", "inf", "torch", "short", "long", "empty"}
READ_OK = {"fortran", "transposed", "extradim", "nan", "inf", "torch", "unaligned", "short",
           "long", "empty"}
WRAP_OK = {"fortran", "transposed", "extradim", "nan", "inf", "torch", "float32", "torch32",
           "short", "long"}
MAYBE = {"bigendian", "torch_grad", "scalar"}  # refusing these is fine for a low-level call


def case_buffer(rng, env) -> Call:
    ctx = env.ctx
    method = str(rng.choice(["create", "wrap", "write", "read", "dense"]))
    if method == "create":
        dt, dt_ok = [("float64", True), ("float32", True), ("int32", True), ("float16", False),
                     ("complex64", False), ("", False), (None, False), (5, False)][int(rng.integers(0, 8))]
        cnt, cnt_ok = [(7, True), (1, True), (0, False), (-1, False), (2**64, False), (2**61, False),
                       (2**46, False), (1.5, False), ("3", False), (None, False)][int(rng.integers(0, 10))]

        def run_create(a):
            b = _ext.Buffer.create(ctx, a["dtype"], a["count"])
            out = (b.count, b.dtype)
            b.free()
            return out
        args = {"dtype": dt, "count": cnt}
        return Call(f"Buffer.create({dt!r}, {cnt!r})", run_create, args,
                    args if dt_ok and cnt_ok else ERROR, ("dtype",) if not dt_ok else ("count",))
    good = rng.standard_normal(3)
    label, v, _ = mutate(rng, good, "linalg")
    vals = norm(v) if label in WRITE_OK | READ_OK | WRAP_OK | MAYBE else None
    if method == "wrap":
        def run_wrap(a):
            b = _ext.Buffer.wrap(ctx, a["array"], "arr")
            out = np.zeros(b.count, np.float32 if b.dtype == "float" else np.float64)
            b.read(0, out)
            b.free()
            return out
        # a tensor that requires grad: wrapping its memory (no copy, nothing written) or
        # refusing it are both fine for this low-level call, as for write and read
        maybe = label == "torch_grad"
        ok = label in WRAP_OK or maybe
        return Call(f"Buffer.wrap({label}: {label_of(v)})", run_wrap, {"array": v},
                    {"array": np.ascontiguousarray(vals)} if ok else ERROR, ("arr",), maybe=maybe)
    if method in ("write", "read"):
        off, off_ok = [(0, True), (2, True), (6, True), (-1, False), (2**64, False), (1.5, False),
                       (None, False)][int(rng.integers(0, 7))]
        size = np.size(vals) if vals is not None else 0
        ok = (label in (WRITE_OK if method == "write" else READ_OK) | MAYBE and off_ok and
              off + size <= 6)

        def run_rw(a):
            b = _ext.Buffer.create(ctx, "float64", 6)
            b.write(0, np.arange(6.0))
            if method == "write":
                b.write(a["offset"], a["x"])
                out = np.zeros(6)
                b.read(0, out)
            else:
                b.read(a["offset"], a["x"])
                out = norm(a["x"])
            b.free()
            return out
        canon = {"offset": off, "x": (np.ascontiguousarray(vals, dtype=np.float64) if method == "write"
                                      else np.zeros(np.shape(vals)))} if ok else ERROR
        return Call(f"Buffer.{method}(offset={off!r}, {label}: {label_of(v)})", run_rw,
                    {"offset": off, "x": v}, canon, ("offset", "src", "dst", "Buffer.write", "Buffer.read"),
                    maybe=label in MAYBE)
    # the extension's dense routines: a buffer of another context, freed, bad sizes
    what = str(rng.choice(["other_ctx", "freed", "neg_n", "neg_batch", "uplo", "lda", "offset"]))

    def run_dense(a):
        b = _ext.Buffer.create(env.ctx2 if what == "other_ctx" else ctx, "float64", 16)
        b.write(0, np.eye(4).ravel())
        if what == "freed":
            b.free()
        try:
            n, lda, off, batch, uplo = 4, 4, 0, 1, int(_ext.Uplo.LOWER)
            n = -2 if what == "neg_n" else n
            batch = -3 if what == "neg_batch" else batch
            uplo = 77 if what == "uplo" else uplo
            lda = 2 if what == "lda" else lda
            off = 2**40 if what == "offset" else off
            return _ext.potrf_batched(ctx, uplo, n, b, off, lda, 16, batch)
        finally:
            b.free()
    return Call(f"_ext.potrf_batched({what})", run_dense, {}, ERROR,
                ("A", "n", "batch", "uplo", "lda", "a_off", "offset", "buffer"))


def case_settings_attr(rng, env) -> Call:
    name = str(rng.choice(list(TABLE) + ["no_such_setting", "maxiter"]))
    if name in ("no_such_setting", "maxiter"):
        v, valid = 5, False
    else:
        v, valid = setting_value(rng, name)
        if isinstance(v, str) or isinstance(v, type) or v is None:
            valid = False  # attributes take numbers; words go through QPBatch(**settings)

    def run(a):
        s = gala.QPSettings()
        setattr(s, name, a["v"])
        return getattr(s, name)
    canon = ERROR
    if valid:
        from gala import _settings
        canon = {"v": _settings.value_of(name, v)}
    return Call(f"QPSettings.{name} = {label_of(v)}", run, {"v": v}, canon, (name,))


def case_context(rng, env) -> Call:
    opts = [({"backend": "gpu"}, ERROR, "backend"), ({"backend": 3}, ERROR, "backend"),
            # the host backend has one device and ignores device= (gala_context_create)
            ({"backend": "host", "device": "no-such-device-xyz"}, "ok", ""),
            ({"backend": "host", "stream": -1}, ERROR, "stream"),
            ({"backend": "host", "stream": "x"}, ERROR, "stream"),
            ({"backend": "host", "platform": 3.5}, ERROR, "platform"),
            ({"backend": "host", "profiling": True}, "ok", ""),
            ({"backend": "host", "use_environment": False}, "ok", ""),
            ({"backend": None}, ERROR, "backend")]
    if not _ext.backend_available("cuda"):
        opts.append(({"backend": "cuda"}, ERROR, "cuda"))
    kw, c, name = opts[int(rng.integers(0, len(opts)))]
    if rng.random() < 0.2:
        which = int(rng.integers(0, 3))
        if which == 0:
            return Call("gala.devices(1)", lambda a: gala.devices(**a), {"x": 1}, ERROR, ())
        if which == 1:
            return Call("gala.set_default_context('x')", lambda a: gala.set_default_context(a["c"]),
                        {"c": "x"}, ERROR, ("context",))
        return Call("gala.devices()", lambda a: [d.backend for d in gala.devices()], {}, {}, ())

    def run(a):
        ctx = gala.Context(**a)
        return ctx.info["backend"]
    return Call(f"Context({kw})", run, kw, ERROR if c is ERROR else kw, (name,) if name else ())


CASES = [(case_qpbatch, 4), (case_from_problems, 3), (case_update, 5), (case_osqp, 5),
         (case_linalg, 5), (case_buffer, 3), (case_settings_attr, 2), (case_context, 1)]


# ----------------------------------------------------------------------------- the test

@pytest.fixture(scope="module")
def env():
    ctx = gala.Context(backend="host", use_environment=False)
    ctx2 = gala.Context(backend="host", use_environment=False)
    e = SimpleNamespace(ctx=ctx, ctx2=ctx2, contexts=(ctx, ctx2))
    yield e


def test_bad_arguments(env, rng, seed):
    """A few hundred random calls with one wrong argument each (see the module's doc)."""
    faulthandler.dump_traceback_later(120, exit=True)  # a hang aborts, with every stack
    try:
        env.pb = base_problem(rng)
        getters = {"P.data": lambda p: p.P.data, "P.indices": lambda p: p.P.indices,
                   "P.indptr": lambda p: p.P.indptr, "A.data": lambda p: p.A.data,
                   "A.indices": lambda p: p.A.indices, "q": lambda p: p.q, "l": lambda p: p.l,
                   "u": lambda p: p.u}
        env.pb_copy = {k: (g(env.pb).copy(), g) for k, g in getters.items()}
        env.settings = {sh: fresh_batch(env, sh).settings for sh in (False, True)}
        gc.collect()
        start = live(env)
        weights = np.array([w for _, w in CASES], dtype=float)
        counts: dict = {}
        t0 = time.perf_counter()
        for i in range(CALLS):
            maker = CASES[int(rng.choice(len(CASES), p=weights / weights.sum()))][0]
            call = maker(rng, env)
            outcome = execute(call, env)
            key = (maker.__name__[5:], outcome)
            counts[key] = counts.get(key, 0) + 1
        gc.collect()
        assert live(env) == start, f"buffers left alive after the run: {start} -> {live(env)}"
        print(f"seed {seed}: {CALLS} calls in {time.perf_counter() - t0:.1f} s:",
              ", ".join(f"{k[0]} {k[1]} {v}" for k, v in sorted(counts.items())))
    finally:
        faulthandler.cancel_dump_traceback_later()


def test_constructors_leave_nothing(env, rng):
    """A QPBatch, an OSQP setup and a Buffer that raise in their constructor leave no buffer
    alive; one that succeeds frees its buffers when collected."""
    pb = base_problem(rng)
    gc.collect()
    before = live(env)
    bad_P = pb.P.copy()
    bad_P.indices[0] = 99
    for f in (lambda: gala.QPBatch(bad_P, pb.q, pb.A, pb.l, pb.u, context=env.ctx),
              lambda: gala.QPBatch(pb.P, pb.q, pb.A, pb.l, pb.u, context=env.ctx, rho=-1),
              lambda: gala.QPBatch(pb.P, pb.q, pb.A, pb.l, pb.u, context=env.ctx,
                                   linsys_solver="dense-shared", polishing=2),
              lambda: gala.QPBatch.from_problems([(pb.P, pb.q[0], pb.A, pb.l[0], pb.u[0]),
                                                  (pb.P, pb.q[1], pb.A, pb.l[1], "x")], context=env.ctx),
              lambda: _ext.Buffer.create(env.ctx, "float64", 2**61),
              lambda: _ext.Buffer.wrap(env.ctx, np.ones(3)[::2], "a")):
        with pytest.raises(ALLOWED):
            f()
        gc.collect()
        assert live(env) == before
    b = gala.QPBatch(pb.P, pb.q, pb.A, pb.l, pb.u, context=env.ctx)
    assert live(env)[0] > before[0]
    b.solve()
    del b
    gc.collect()
    assert live(env) == before


def test_osqp_update_leaves_caller_matrices(env, rng):
    """OSQP.update(Px=, Ax=) changes the solver's copy of P and A, not the caller's matrices
    (setup kept the caller's canonical CSC matrix itself and update wrote its .data)."""
    pb = base_problem(rng)
    P, A = pb.P.copy(), pb.A.copy()
    s = gosqp.OSQP(context=env.ctx)
    s.setup(P, pb.q[0], A, pb.l[0], pb.u[0], verbose=False)
    s.update(Px=2 * P.data, Ax=np.ones(A.nnz))
    np.testing.assert_array_equal(P.data, pb.P.data)
    np.testing.assert_array_equal(A.data, pb.A.data)
    # a partial update of one diagonal entry (made larger: P stays positive semidefinite)
    cols = np.repeat(np.arange(P.shape[1]), np.diff(P.indptr))
    d = int(np.flatnonzero(P.indices == cols)[0])
    s.update(Px=np.array([2 * P.data[d] + 7.0]), Px_idx=np.array([d]))
    assert s.solve().info.status_val in (1, 2, 7)
    np.testing.assert_array_equal(P.data, pb.P.data)
