"""gala's exceptions: one class per kind of gala status, each carrying gala's message.

``error_for(status, message)`` is the one place where a C status becomes an exception (the
extension calls it); the classes also derive from the built-in exception a Python user
expects (``ValueError`` for bad arguments, ``MemoryError`` for memory, ...).
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "GalaError", "InvalidArgumentError", "InvalidMatrixError", "NotFiniteError",
    "OutOfMemoryError", "DeviceError", "DeviceMemoryError", "KernelBuildError",
    "NoDeviceError", "NotSupportedError", "LinAlgError", "GalaIOError", "ParseError",
    "InternalError", "UnknownSettingError", "error_for",
]


class GalaError(Exception):
    """Base class of gala's exceptions. ``status`` is the C status (``gala._ext.Status``)."""

    status: int = 0

    def __init__(self, message: str = "", status: int | None = None):
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidArgumentError(GalaError, ValueError):
    """An argument is wrong (GALA_ERR_INVALID_ARG): shape, size, setting, range."""
    status = -1


class UnknownSettingError(InvalidArgumentError, AttributeError):
    """A name that is not one of gala's settings was assigned on a QPSettings (an
    AttributeError too, as Python raises for unknown attributes)."""


class OutOfMemoryError(GalaError, MemoryError):
    """Host memory could not be allocated (GALA_ERR_OUT_OF_MEMORY)."""
    status = -2


class DeviceError(GalaError, RuntimeError):
    """The device or its driver failed (GALA_ERR_DEVICE), and the base of device failures."""
    status = -4


class DeviceMemoryError(DeviceError, MemoryError):
    """Device memory could not be allocated (GALA_ERR_DEVICE_MEMORY)."""
    status = -3


class KernelBuildError(DeviceError):
    """A kernel failed to compile (GALA_ERR_KERNEL_BUILD); the message holds the log."""
    status = -5


class NotSupportedError(DeviceError, NotImplementedError):
    """Not supported here (GALA_ERR_NOT_SUPPORTED): double on a device without fp64, a
    backend this build lacks."""
    status = -6


class NoDeviceError(DeviceError):
    """No device matches the selection (GALA_ERR_NO_DEVICE)."""
    status = -7


class LinAlgError(GalaError, np.linalg.LinAlgError):
    """A matrix is not positive definite, singular or of the wrong inertia (raised only
    where no per-matrix info is returned)."""
    status = -8


class NotFiniteError(GalaError, ValueError):
    """The input holds NaN or Inf where finite values are required (GALA_ERR_NOT_FINITE)."""
    status = -10


class GalaIOError(GalaError, OSError):
    """A file could not be opened, read or written (GALA_ERR_IO)."""
    status = -11


class ParseError(GalaError, ValueError):
    """A file or string could not be parsed (GALA_ERR_PARSE)."""
    status = -12


class InvalidMatrixError(InvalidArgumentError):
    """Matrix data are malformed (GALA_ERR_INVALID_MATRIX)."""
    status = -13


class InternalError(GalaError, RuntimeError):
    """An internal invariant failed (GALA_ERR_INTERNAL): a bug in gala, please report it."""
    status = -15


_BY_STATUS = {
    -1: InvalidArgumentError, -2: OutOfMemoryError, -3: DeviceMemoryError, -4: DeviceError,
    -5: KernelBuildError, -6: NotSupportedError, -7: NoDeviceError, -8: LinAlgError,
    -9: LinAlgError, -10: NotFiniteError, -11: GalaIOError, -12: ParseError,
    -13: InvalidMatrixError, -14: LinAlgError, -15: InternalError,
}


def error_for(status: int, message: str) -> GalaError:
    """The exception for a gala status, carrying gala's message."""
    cls = _BY_STATUS.get(int(status), GalaError)
    return cls(message or f"gala status {status}", status=int(status))
