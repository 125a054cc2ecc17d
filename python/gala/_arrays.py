"""What the Python layer needs to know of the arrays users hold: where they live, which
framework made them, and how to make, copy and mask arrays of the same kind. NumPy (and
anything NumPy converts) on the host; PyTorch, CuPy and JAX arrays on the host or on a CUDA
device, through DLPack."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from . import _context, _ext

_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13


def framework(a: Any) -> str:
    """'torch', 'cupy', 'jax' or 'numpy' (anything else NumPy can convert)."""
    mod = type(a).__module__.split(".")[0]
    if mod in ("torch", "cupy"):
        return mod
    if mod in ("jax", "jaxlib"):
        return "jax"
    return "numpy"


def cuda_device(a: Any) -> Optional[int]:
    """The CUDA device of a device array, or None for host memory."""
    dev = getattr(a, "__dlpack_device__", None)
    if dev is not None and framework(a) != "numpy":
        kind, index = dev()
        if int(kind) in (_DL_CUDA, _DL_CUDA_MANAGED):
            return int(index)
        return None
    if hasattr(a, "__cuda_array_interface__"):
        raise TypeError(f"{type(a).__name__}: arrays with only __cuda_array_interface__ are not "
                        "supported; pass a DLPack array (PyTorch, CuPy, JAX)")
    return None


def is_device(a: Any) -> bool:
    return a is not None and cuda_device(a) is not None


def to_host(a: Any, name: str, dtype=None) -> np.ndarray:
    """A NumPy array of a host input (lists, NumPy, CPU tensors), refusing device arrays.
    With ``dtype`` (a real type): converted to it, refusing complex numbers, strings, dates
    and other non-real data (NumPy would drop an imaginary part or parse strings)."""
    if a is None:
        raise TypeError(f"{name}: expected an array, got None")
    if is_device(a):
        raise ValueError(f"{name}: a CUDA array where a host array is needed")
    if framework(a) == "torch":
        a = a.detach().resolve_conj().resolve_neg().numpy()
    try:
        arr = np.asarray(a)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: cannot be read as an array of numbers ({e})") from None
    if dtype is None:
        return arr
    if arr.dtype.kind not in "biufO":
        raise TypeError(f"{name}: dtype {arr.dtype} cannot be read as {np.dtype(dtype).name}")
    try:
        out = arr.astype(dtype, copy=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: cannot be read as an array of numbers ({e})") from None
    return out


def to_numpy(a: Any, name: str, dtype=None) -> np.ndarray:
    """A NumPy copy of any array, device arrays included (copied to the host)."""
    if not is_device(a):
        return to_host(a, name, dtype)
    fw = framework(a)
    if fw == "torch":
        return np.asarray(a.detach().cpu().numpy(), dtype=dtype)
    if fw == "cupy":
        return np.asarray(a.get(), dtype=dtype)
    return np.asarray(a, dtype=dtype)


def dtype_name(a: Any) -> str:
    """'float32', 'float64', ... of any array."""
    return str(a.dtype).replace("torch.", "")


def sync_producer(a: Any) -> None:
    """Wait for the work the framework queued on its current stream (before gala reads or
    writes its device memory from a context of its own)."""
    fw = framework(a)
    if fw == "torch":
        import torch
        torch.cuda.current_stream(a.device).synchronize()
    elif fw == "cupy":
        import cupy
        with cupy.cuda.Device(a.device.id):
            cupy.cuda.get_current_stream().synchronize()
    elif fw == "jax":
        a.block_until_ready()


def empty(like: Any, shape: Tuple[int, ...], dtype: str) -> Any:
    """A new C-ordered array of the same framework and device as ``like``."""
    fw = framework(like)
    if fw == "torch":
        import torch
        return torch.empty(shape, dtype=getattr(torch, dtype), device=like.device)
    if fw == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=dtype)
    return np.empty(shape, dtype=dtype)


def contiguous_copy(a: Any, dtype: str) -> Any:
    """A C-ordered copy of ``a`` with ``dtype``, of the same framework and device (JAX, whose
    arrays cannot be written, gives a NumPy array on the host or a CuPy array on the GPU)."""
    fw = framework(a)
    if fw == "torch":
        import torch
        return a.detach().to(dtype=getattr(torch, dtype)).clone(memory_format=torch.contiguous_format)
    if fw == "cupy":
        import cupy
        with cupy.cuda.Device(a.device.id):
            return cupy.array(a, dtype=dtype, order="C", copy=True)
    if fw == "jax" and is_device(a):
        import cupy
        return cupy.array(cupy.from_dlpack(a), dtype=dtype, order="C", copy=True)
    return np.array(a, dtype=dtype, order="C", copy=True)


def has_dtype(a: Any, dtype: str) -> bool:
    """Whether a's elements are exactly ``dtype`` ('float32', ...), in native byte order."""
    if framework(a) == "numpy":
        return np.dtype(a.dtype) == np.dtype(dtype)
    return dtype_name(a) == dtype


def is_c_contiguous(a: Any) -> bool:
    fw = framework(a)
    if fw == "torch":
        return a.is_contiguous()
    flags = getattr(a, "flags", None)
    return bool(flags is not None and flags["C_CONTIGUOUS"])


def writable(a: Any) -> bool:
    """Whether gala may write into a's memory: not JAX (immutable), not a read-only NumPy
    array, not a PyTorch tensor that requires grad (autograd would not see the write)."""
    fw = framework(a)
    if fw == "jax":
        return False
    if fw == "torch":
        return not a.requires_grad
    flags = getattr(a, "flags", None)
    return flags is None or bool(flags.writeable if hasattr(flags, "writeable") else True)


def keep_triangle(a: Any, lower: bool, unit: bool = False) -> None:
    """Zero the other triangle of every matrix of a (…×n×n) in place (and set a unit diagonal
    to one), as NumPy's and PyTorch's factorizations return them."""
    n = a.shape[-1]
    fw = framework(a)
    if fw == "torch":
        import torch
        mask = torch.ones((n, n), dtype=torch.bool, device=a.device)
        mask = mask.tril(-1 if unit else 0) if lower else mask.triu(1 if unit else 0)
        a.masked_fill_(~mask, 0)
        if unit:
            a.diagonal(dim1=-2, dim2=-1).fill_(1)
        return
    xp = np
    if fw == "cupy":
        import cupy as xp  # noqa: F811
    mask = xp.tril(xp.ones((n, n), dtype=bool), -1 if unit else 0) if lower else \
        xp.triu(xp.ones((n, n), dtype=bool), 1 if unit else 0)
    a[...] = xp.where(mask, a, xp.zeros((), dtype=a.dtype))
    if unit:
        idx = xp.arange(n)
        a[..., idx, idx] = 1


def symmetrize(a: Any, lower: bool) -> None:
    """Fill the other triangle of every matrix of a (…×n×n) from the ``lower`` (or upper)
    one, in place."""
    n = a.shape[-1]
    fw = framework(a)
    keep_triangle(a, lower)
    if fw == "torch":
        a += (a.tril(-1) if lower else a.triu(1)).transpose(-1, -2)
        return
    xp = np
    if fw == "cupy":
        import cupy as xp  # noqa: F811
    strict = xp.tril(xp.ones((n, n), dtype=bool), -1) if lower else xp.triu(xp.ones((n, n), dtype=bool), 1)
    a += xp.swapaxes(xp.where(strict, a, xp.zeros((), dtype=a.dtype)), -1, -2)


def diagonal_copy(a: Any) -> Any:
    """The diagonals of a (…×n×n) as a new (…×n) array of the same kind (a copy always:
    ascontiguousarray would return the diagonal view itself where it is contiguous, n = 1,
    and the caller then overwrites the diagonal)."""
    if framework(a) == "torch":
        import torch
        return a.diagonal(dim1=-2, dim2=-1).clone(memory_format=torch.contiguous_format)
    if framework(a) == "cupy":
        import cupy
        return cupy.array(cupy.diagonal(a, axis1=-2, axis2=-1), order="C", copy=True)
    return np.array(np.diagonal(a, axis1=-2, axis2=-1), order="C", copy=True)


def context_for(arrays: list, context: Optional[_ext.Context], names: list) -> Tuple[_ext.Context, bool]:
    """The context a call runs on, and whether its arrays are CUDA device memory. With no
    context given: the default context for host arrays, the CUDA device's own context for
    device arrays. Arrays on another device than the context's are refused, by name."""
    devs = [cuda_device(a) if a is not None else None for a in arrays]
    on_dev = [d for d in devs if d is not None]
    if on_dev and len(on_dev) != len([a for a in arrays if a is not None]):
        host = [n for n, a, d in zip(names, arrays, devs) if a is not None and d is None]
        raise ValueError(f"{', '.join(host)}: in host memory while the other arrays are on a "
                         "CUDA device")
    if len(set(on_dev)) > 1:
        raise ValueError(f"{', '.join(names)}: on different CUDA devices {sorted(set(on_dev))}")
    if context is None:
        return (_context.cuda_context(on_dev[0]) if on_dev else _context.default_context()), bool(on_dev)
    if not isinstance(context, _ext.Context):
        raise TypeError("context: expected a gala.Context")
    if on_dev:
        info = context.info
        if info["backend"] != "cuda":
            bad = [n for n, d in zip(names, devs) if d is not None]
            raise ValueError(f"{', '.join(bad)}: a CUDA array, and the context is {info['backend']} "
                             f"({info['name']}); use a CUDA context or a host array")
    return context, bool(on_dev)
