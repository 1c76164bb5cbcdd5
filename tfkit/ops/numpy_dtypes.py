"""Keras 3's dtype promotion for ``tfkit.ops``: the dtype a mix of tensors and Python numbers gives.

    result_type("int8", "uint8")               # "int16": the smallest type holding both
    result_type("int32", float)                # "float32": a Python float is *weak*
    x1, x2 = operands(x_int8, 3)               # tensors of one dtype (int8: a Python 3 is weak)

The rules are those of ``keras.backend.result_type`` (JAX's lattice): bool <
unsigned/signed ints < floats < complex; mixing a signed and an unsigned int
takes a signed int wide enough for both (``uint64`` with a signed int gives a
float); ``bfloat16`` with ``float16`` is ``float32``. Python ``int`` and ``float``
are weak: they take the other operand's dtype when its kind can hold them, and
stand for ``int32`` / ``float32`` otherwise. ``uint64`` and ``complex128``
results narrow to ``uint32`` / ``complex64``, as Keras does on TensorFlow.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.ops._convert import tensor

FLOATX = "float32"
_NARROWED = {"uint64": "uint32", "complex128": "complex64"}


def dtype_name(value: Any) -> str:
    """The dtype name of a tensor, an array, a ``tf.DType`` or a dtype string."""
    dtype = getattr(value, "dtype", value)
    if isinstance(dtype, tf.DType):
        return dtype.name
    return tf.as_dtype(np.dtype(dtype) if not isinstance(dtype, str) else dtype).name


def _bits(name: str) -> int:
    return 16 if name == "bfloat16" else int("".join(c for c in name if c.isdigit()) or 8)


def _strong_join(names: set[str]) -> str:
    """Least upper bound of dtypes that are all strong (tensor dtypes)."""
    kinds = {
        "complex"
        if n.startswith("complex")
        else "float"
        if "float" in n
        else "uint"
        if n.startswith("uint")
        else "int"
        if n.startswith("int")
        else "bool"
        for n in names
    }
    if kinds == {"bool"}:
        return "bool"
    if "complex" in kinds:
        return "complex128" if names & {"complex128", "float64"} else "complex64"
    if "float" in kinds:
        floats = {n for n in names if "float" in n}
        if "float64" in floats:
            return "float64"
        if "float32" in floats or floats == {"bfloat16", "float16"}:
            return "float32"
        return floats.pop()
    signed = builtins.max([_bits(n) for n in names if n.startswith("int")], default=0)
    unsigned = builtins.max([_bits(n) for n in names if n.startswith("uint")], default=0)
    if not signed:
        return f"uint{unsigned}"
    if not unsigned:
        return f"int{signed}"
    wide = builtins.max(signed, 2 * unsigned)
    return f"int{wide}" if wide <= 64 else "weak-float"


def result_type(*items: Any) -> str:
    """Keras's result dtype of ``items``: dtypes, tensors, or the Python types ``int``, ``float``, ``bool``."""
    if not items:
        return FLOATX
    strong: set[str] = set()
    weak: set[str] = set()
    for item in items:
        if item is int or item is float:
            weak.add("float" if item is float else "int")
        elif item is bool:
            strong.add("bool")
        elif item is complex:
            strong.add("complex128")
        elif item is None:
            strong.add(FLOATX)
        else:
            strong.add(dtype_name(item))
    if not strong:
        out = FLOATX if "float" in weak else "int32"
    else:
        out = _strong_join(strong)
        if out == "weak-float":
            out = FLOATX
        elif "float" in weak and out == "bool" or "float" in weak and "int" in out:
            out = FLOATX
        elif "int" in weak and out == "bool":
            out = "int32"
    return _NARROWED.get(out, out)


def weak(value: Any) -> Any:
    """What ``value`` stands for in :func:`result_type`: Python scalars are weak, the rest a tensor."""
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    return tensor(value)


def operands(*values: Any, extra: tuple = (), weak_scalars: bool = True) -> list[tf.Tensor]:
    """``values`` as tensors of their Keras result dtype (joined with ``extra`` dtypes, e.g. ``float``).

    With ``weak_scalars=False`` Python numbers first become int32/float32 tensors, as
    Keras's TensorFlow functions that call ``convert_to_tensor`` first see them.
    """
    items = [weak(v) if weak_scalars else tensor(v) for v in values]
    dtype = result_type(*[i if isinstance(i, type) else i.dtype for i in items], *extra)
    return [tf.cast(i if tf.is_tensor(i) else tf.constant(v), dtype) for i, v in zip(items, values)]


def float_type(dtype: Any) -> str:
    """The dtype of ``sin``-like ops: ints and bools give float32, floats keep theirs."""
    name = dtype_name(dtype)
    return FLOATX if name == "int64" else result_type(name, float)


def wide_float_type(dtype: Any) -> str:
    """The dtype of ``cbrt``/``hypot``-like ops: int64 gives float64, other ints and bools float32."""
    name = dtype_name(dtype)
    if "float" in name or "complex" in name:
        return name
    return "float64" if name == "int64" else FLOATX


def is_integer(dtype: Any) -> bool:
    name = dtype_name(dtype)
    return name.startswith("int") or name.startswith("uint")


def is_float(dtype: Any) -> bool:
    return "float" in dtype_name(dtype)
