"""``tfkit.backend``: Keras's backend configuration names, for code that reads them.

    eps = tfkit.backend.epsilon()           # 1e-07
    tfkit.backend.clear_session()           # automatic layer names start over
    tfkit.backend.standardize_dtype(float)  # "float32"
"""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.settings import (  # noqa: F401  Keras's names, re-exported
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from tfkit.base.symbolic import SymbolicTensor
from tfkit.engine.naming import clear_session as reset_names
from tfkit.engine.naming import unique_name

# Keras's dtype names (keras.backend.standardize_dtype accepts these and nothing else)
ALLOWED_DTYPES = (
    "float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "bfloat16", "bool", "string", "float8_e4m3fn", "float8_e5m2", "complex64", "complex128",
)
_PYTHON_DTYPES = {bool: "bool", int: "int64", float: "float32", str: "string", "int": "int64", complex: "complex128"}


def clear_session(free_memory: bool = True) -> None:
    """Reset automatic layer names and ``get_uid`` counters (``dense``, ``dense_1``, ... start over), as
    ``keras.backend.clear_session``; with ``free_memory`` also run Python's garbage collector."""
    reset_names()
    if free_memory:
        gc.collect()


def get_uid(prefix: str = "") -> int:
    """1, 2, 3, ... for successive calls with ``prefix``; shares the counters of automatic layer names, as in
    Keras (after two ``Dense`` layers, ``get_uid("dense")`` is 3 and the next Dense is ``dense_3``)."""
    name = unique_name(prefix)
    return 1 if name == prefix else int(name[len(prefix) + 1:]) + 1


def standardize_dtype(dtype: Any) -> str:
    """Keras's dtype name for ``dtype``: None -> floatx, ``float`` -> "float32", ``int`` -> "int64",
    ``np.float16``/``tf.int8``/"int8" -> their names; ``ValueError`` for anything else."""
    if dtype is None:
        return floatx()
    try:
        dtype = _PYTHON_DTYPES.get(dtype, dtype)
    except TypeError:       # unhashable
        pass
    if isinstance(dtype, tf.DType):
        name = dtype.name
    elif isinstance(dtype, (np.dtype, type)):
        name = np.dtype(dtype).name if isinstance(dtype, type) and issubclass(dtype, np.generic) else getattr(
            dtype, "name", getattr(dtype, "__name__", dtype))
    else:
        name = getattr(dtype, "name", dtype)
    if name not in ALLOWED_DTYPES:
        raise ValueError(f"Invalid dtype: {dtype!r}; expected one of {', '.join(ALLOWED_DTYPES)}")
    return name


def is_float_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` (anything :func:`standardize_dtype` takes) is a float or bfloat dtype."""
    return standardize_dtype(dtype).startswith(("float", "bfloat"))


def is_int_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is a signed or unsigned integer dtype."""
    return standardize_dtype(dtype).startswith(("int", "uint"))


def is_keras_tensor(x: object) -> bool:
    """Whether ``x`` is a symbolic tensor of a functional model (from ``tfkit.Input``)."""
    return isinstance(x, SymbolicTensor)
