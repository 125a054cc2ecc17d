"""Settings from keyword arguments, read off the C settings table (GALA_QP_SETTINGS)."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from . import _ext

#: The rows of the C settings table: name -> {kind, osqp, fixed, default, lo, hi, choices, help}.
TABLE: dict[str, dict] = {row["name"]: row for row in _ext.qp_settings_table()}

_DTYPES = {"float32": 1, "float": 1, "single": 1, "float64": 2, "double": 2}


def dtype_code(value: Any) -> int:
    """gala_dtype of a dtype-like value (np.float32, "float64", torch.float32, ...)."""
    if isinstance(value, str) and value in _DTYPES:
        return _DTYPES[value]
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and \
            int(value) in (1, 2):
        return int(value)  # gala_dtype's own codes, as the settings table and QPSettings have them
    name = str(value).replace("torch.", "")
    if name in _DTYPES:
        return _DTYPES[name]
    try:
        dt = np.dtype(value)
    except (TypeError, ValueError):
        dt = None
    if dt == np.float32:
        return 1
    if dt == np.float64:
        return 2
    raise ValueError(f"dtype: {value!r} is not float32 or float64")


def numpy_dtype(code: int) -> np.dtype:
    return np.dtype(np.float32 if code == 1 else np.float64)


def value_of(name: str, value: Any) -> Any:
    """A setting's value as the C struct takes it: enum words and dtypes to their ints,
    bools to 0/1."""
    row = TABLE[name]
    if name == "dtype":
        return dtype_code(value)
    if row["kind"] == "enum" and isinstance(value, str):
        words = row["choices"]
        if value not in words:
            raise ValueError(f"{name}: {value!r} is not one of {', '.join(words)}")
        return int(row["lo"]) + words.index(value)
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if row["kind"] != "real" and isinstance(value, (np.integer,)):
        return int(value)
    if row["kind"] == "real" and isinstance(value, (np.floating, np.integer)):
        return float(value)
    return value


def apply(settings: _ext.QPSettings, values: Mapping[str, Any]) -> None:
    """Set the named settings (C names) on a QPSettings, each checked against the table."""
    unknown = [k for k in values if k not in TABLE]
    if unknown:
        raise ValueError(f"Unrecognized settings {unknown}")
    for name, value in values.items():
        setattr(settings, name, value_of(name, value))


def make(values: Mapping[str, Any]) -> _ext.QPSettings:
    """A QPSettings with the table's defaults and the given values."""
    s = _ext.QPSettings()
    apply(s, values)
    return s


def as_dict(settings: _ext.QPSettings) -> dict[str, Any]:
    """Every setting of a QPSettings by name."""
    return {name: getattr(settings, name) for name in TABLE}
