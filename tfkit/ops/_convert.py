"""Shared helpers of ``tfkit.ops``: tensor conversion with Keras's dtype rules, and exporting ops.

x = tensor(x)                      # numpy arrays, Python numbers and tensors; float64 numpy -> float32
a, b = promote(a, b)               # one common dtype, as Keras's result_type picks it
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.symbolic import traceable


def tensor(x: Any, dtype: Any = None) -> tf.Tensor:
    """``x`` as a tensor; Python floats and float64 numpy arrays become float32 (Keras's floatx)."""
    if isinstance(x, (tf.Tensor, tf.Variable)):
        return tf.cast(x, dtype) if dtype is not None and x.dtype != tf.as_dtype(dtype) else x
    if dtype is None:
        if isinstance(x, float) or isinstance(x, np.ndarray) and x.dtype == np.float64:
            dtype = "float32"
        elif isinstance(x, (list, tuple)):
            array = np.asarray(x)
            dtype = "float32" if array.dtype == np.float64 else "int32" if array.dtype == np.int64 else None
        elif isinstance(x, bool):
            dtype = "bool"
        elif isinstance(x, int):
            dtype = "int32"
    return tf.convert_to_tensor(x, dtype=dtype)


def promote(*values: Any) -> list[tf.Tensor]:
    """Tensors of one dtype: floats win over ints, wider over narrower; Python numbers follow tensors."""
    tensors = [v if isinstance(v, (tf.Tensor, tf.Variable)) or isinstance(v, np.ndarray) else None for v in values]
    typed = [tensor(v) for v, t in zip(values, tensors) if t is not None]
    if typed:
        dtype = typed[0].dtype
        for t in typed[1:]:
            dtype = _wider(dtype, t.dtype)
        if any(isinstance(v, float) for v, t in zip(values, tensors) if t is None) and not dtype.is_floating:
            dtype = tf.float32
    else:
        dtype = tensor(values[0]).dtype
        for v in values[1:]:
            dtype = _wider(dtype, tensor(v).dtype)
    return [tensor(v, dtype) for v in values]


def _wider(a: tf.DType, b: tf.DType) -> tf.DType:
    if a == b:
        return a
    if a.is_bool:
        return b
    if b.is_bool:
        return a
    if a.is_floating != b.is_floating:
        return a if a.is_floating else b
    return a if a.size >= b.size else b


def float_of(x: tf.Tensor) -> tf.Tensor:
    """``x`` cast to float32 unless it is already floating (Keras: mean/sqrt/... of ints are float)."""
    return x if x.dtype.is_floating or x.dtype.is_complex else tf.cast(x, tf.float32)


def export(namespace: dict[str, Any], names: list[str]) -> None:
    """Make each op record a graph node when called on symbolic tensors (``tfkit.ops.mean(x)``)."""
    for name in names:
        namespace[name] = traceable("tfkit.ops")(namespace[name])
