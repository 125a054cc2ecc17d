"""Shared fixtures of gala's Python tests.

Seeds: every test that draws random data takes ``rng`` (a NumPy Generator seeded from the
run's seed, GALA_TEST_SEED or the clock, and the test's name); the seed is printed, and a
failing test's output shows it: ``GALA_TEST_SEED=<seed> pytest ...`` reproduces it.

Targets: ``target`` runs a test on every (context, dtype) this machine has: the host
backend in float64 and float32, the default OpenCL device (PoCL on CI) in float32 and, where
it has fp64, float64, and CUDA where the build and the machine have it. GALA_TEST_BACKENDS
("host,opencl,cuda") narrows the list, as for the C tests.
"""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass

import numpy as np
import pytest

import gala

_RUN_SEED = int(os.environ.get("GALA_TEST_SEED", str(int(time.time() * 1000) % (2**40))))


def pytest_report_header(config):
    return f"gala {gala.__version__}; GALA_TEST_SEED={_RUN_SEED}"


@pytest.fixture
def seed(request) -> int:
    """The test's seed: the run's seed mixed with the test's name (printed)."""
    h = int.from_bytes(hashlib.sha256(request.node.nodeid.encode()).digest()[:4], "little")
    s = (_RUN_SEED ^ h) % (2**63)
    print(f"GALA_TEST_SEED={_RUN_SEED} (test seed {s})")
    return s


@pytest.fixture
def rng(seed) -> np.random.Generator:
    return np.random.default_rng(seed)


@dataclass(frozen=True)
class Target:
    context: gala.Context
    dtype: type
    name: str


_CONTEXTS: dict = {}


def _context(backend: str):
    if backend not in _CONTEXTS:
        try:
            _CONTEXTS[backend] = gala.Context(backend=backend, use_environment=backend == "opencl")
        except gala.GalaError:
            _CONTEXTS[backend] = None
    return _CONTEXTS[backend]


def _targets():
    wanted = os.environ.get("GALA_TEST_BACKENDS", "host,opencl,cuda").split(",")
    out = []
    for backend in ("host", "opencl", "cuda"):
        if backend not in wanted or not gala._ext.backend_available(backend):
            continue
        out.append((backend, np.float64))
        out.append((backend, np.float32))
    return out


@pytest.fixture(params=_targets(), ids=lambda t: f"{t[0]}-{np.dtype(t[1]).name}")
def target(request) -> Target:
    backend, dtype = request.param
    ctx = _context(backend)
    if ctx is None:
        pytest.skip(f"no {backend} device on this machine")
    if dtype == np.float64 and not ctx.info["fp64"]:
        pytest.skip(f"{ctx.info['name']} has no fp64")
    return Target(ctx, dtype, f"{backend}/{np.dtype(dtype).name}: {ctx.info['name']}")


@pytest.fixture
def host() -> gala.Context:
    """The host backend's context (the reference)."""
    return _context("host")
