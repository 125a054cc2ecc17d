"""Devices and contexts: what gala can see, and the context each call runs on."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Optional

from . import _ext

Context = _ext.Context
Context.__doc__ = """A gala context: one backend and one device (gala_context_create).

Context(backend="auto", platform=None, device=None, stream=0, use_environment=True,
        profiling=False)

backend: "auto" (a GPU, else the host backend's or OpenCL's CPU device, as the C library
picks), "opencl", "cuda" or "host". platform, device: an index or part of a name.
stream: on the CUDA backend, a CUstream / cudaStream_t (an int, e.g.
torch.cuda.current_stream().cuda_stream) that every call of the context is ordered on.
use_environment: GALA_BACKEND, GALA_PLATFORM, GALA_DEVICE override the arguments.
``info`` describes the device; ``stats()`` counts programs, launches and live buffers.
A context is used by one thread at a time."""


@dataclass(frozen=True)
class Device:
    """One device gala can see (gala_device_list)."""

    backend: str
    platform_index: int
    device_index: int
    is_gpu: bool
    platform: str
    name: str


def devices() -> list[Device]:
    """Every device of every backend in this build, the host backend last."""
    return [Device(**d) for d in _ext.device_list()]


_local = threading.local()


def default_context() -> Context:
    """This thread's default context, created on first use as gala_context_create(NULL)
    would (honouring GALA_BACKEND, GALA_PLATFORM, GALA_DEVICE)."""
    ctx = getattr(_local, "default", None)
    if ctx is None:
        ctx = Context()
        _local.default = ctx
    return ctx


def set_default_context(context: Optional[Context]) -> None:
    """Make ``context`` this thread's default (None: create one again on next use)."""
    if context is not None and not isinstance(context, Context):
        raise TypeError("context: expected a gala.Context")
    _local.default = context


def cuda_context(device_id: int) -> Context:
    """This thread's context on CUDA device ``device_id``, for device arrays given without a
    context (cached). It runs on a stream of its own: calls with such arrays first wait for
    the array framework's current stream, and return once gala's work is done. A context
    made with ``stream=`` orders everything on the caller's stream instead, without waiting."""
    cache = getattr(_local, "cuda", None)
    if cache is None:
        cache = _local.cuda = {}
    ctx = cache.get(int(device_id))
    if ctx is None:
        ctx = Context(backend="cuda", device=str(int(device_id)), use_environment=False)
        cache[int(device_id)] = ctx
    return ctx
