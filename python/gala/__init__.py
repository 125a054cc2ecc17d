"""gala: batched QPs (OSQP's algorithm) and batched dense factorizations on any GPU —
OpenCL on every vendor, CUDA on NVIDIA — or the CPU.

Three ways in (docs/python.md):

- ``import gala.osqp as osqp``: OSQP's Python interface, on gala;
- :class:`gala.QPBatch`: thousands of QPs solved together, on NumPy or device arrays;
- :mod:`gala.linalg`: batched Cholesky, solves, inverses and LDLᵀ on stacked matrices.

QPs from files and generators: :func:`read_qps` (QPS/MPS, e.g. Maros–Meszaros) and
:func:`generate` (OSQP's benchmark families), as SciPy/NumPy data (:class:`QPProblem`).

Devices: :func:`devices` lists them, :class:`Context` picks one; every call takes an
optional ``context``, else the thread's :func:`default_context` (the device the C library
picks: a GPU, else the CPU). Errors are :class:`GalaError` subclasses carrying gala's
message (``ValueError`` for bad arguments, :class:`DeviceError` for device failures).
"""
from __future__ import annotations

from . import _ext
from ._context import Context, Device, default_context, devices, set_default_context
from ._errors import (DeviceError, DeviceMemoryError, GalaError, InvalidArgumentError,
                      KernelBuildError, LinAlgError, NoDeviceError, NotFiniteError,
                      NotSupportedError, OutOfMemoryError)
from .problems import QPProblem, generate, read_qps
from .qp import QPBatch, QPBatchResult, QPDerivative, QPDerivStatus, QPStatus

__version__: str = _ext.version
QPSettings = _ext.QPSettings


def qp_settings_table() -> list:
    """The QP solver's settings, one dict per row of the C table GALA_QP_SETTINGS: name,
    kind, default, range, whether OSQP has it, whether it is fixed at setup, help."""
    return _ext.qp_settings_table()


__all__ = [
    "Context", "Device", "devices", "default_context", "set_default_context",
    "QPBatch", "QPBatchResult", "QPStatus", "QPDerivative", "QPDerivStatus", "QPSettings",
    "qp_settings_table",
    "QPProblem", "read_qps", "generate",
    "GalaError", "InvalidArgumentError", "DeviceError", "DeviceMemoryError", "KernelBuildError",
    "NoDeviceError", "NotSupportedError", "NotFiniteError", "OutOfMemoryError", "LinAlgError",
    "__version__",
]
