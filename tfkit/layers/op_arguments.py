"""The non-tensor arguments of a recorded operation, as plain data and back.

    plain, symbols = encode((x, 2.0), {"axis": -1})    # x is symbolic
    plain  == {"args": [{"__input__": 0}, 2.0], "kwargs": {"axis": -1}}
    args, kwargs = decode(plain, [tensor_for_x])

Symbolic tensors become ``{"__input__": i}`` (the i-th input of the node);
slices, ``...``, tuples, dtypes and small constant arrays get a tagged dict.
Nothing here can name a function: a callable argument cannot be encoded.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.symbolic import SymbolicTensor

MAX_CONSTANT_ELEMENTS = 65536
# Float dtypes numpy knows only through ml_dtypes (TensorFlow's bfloat16 and 8-bit floats): float32 holds them exactly.
_WIDENED = ("bfloat16", "float8_e4m3fn", "float8_e5m2")
_TAGS = ("__input__", "__tuple__", "__dict__", "__slice__", "__ellipsis__", "__dtype__", "__array__")


def encode(args: tuple, kwargs: dict) -> tuple[dict[str, Any], list[SymbolicTensor]]:
    """``({"args": [...], "kwargs": {...}}, symbolic tensors in order of first use)``."""
    symbols: list[SymbolicTensor] = []
    positions: dict[int, int] = {}

    def enc(value: Any) -> Any:
        if isinstance(value, SymbolicTensor):
            if id(value) not in positions:
                positions[id(value)] = len(symbols)
                symbols.append(value)
            return {"__input__": positions[id(value)]}
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [enc(v) for v in value]
        if isinstance(value, tuple):
            return {"__tuple__": [enc(v) for v in value]}
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise ValueError(f"Operation arguments may hold dicts with string keys only, got {list(value)}")
            return {"__dict__": {k: enc(v) for k, v in value.items()}}
        if isinstance(value, slice):
            return {"__slice__": [enc(value.start), enc(value.stop), enc(value.step)]}
        if value is Ellipsis:
            return {"__ellipsis__": True}
        if isinstance(value, tf.DType):
            return {"__dtype__": value.name}
        if isinstance(value, tf.TensorShape):
            return value.as_list() if value.rank is not None else None
        if isinstance(value, (np.ndarray, np.generic)) or tf.is_tensor(value) and hasattr(value, "numpy"):
            array = value.numpy() if tf.is_tensor(value) else np.asarray(value)  # bfloat16 tensors: numpy() only
            if array.size > MAX_CONSTANT_ELEMENTS:
                raise ValueError(
                    f"A constant of {array.size} elements in an operation on symbolic tensors is too large to "
                    f"store in a model config (limit {MAX_CONSTANT_ELEMENTS}); make it a layer weight instead"
                )
            if array.dtype.name in _WIDENED:  # ml_dtypes' floats: stored as the float32 values they hold exactly
                return {"__array__": array.astype(np.float32).tolist(), "dtype": array.dtype.name}
            if array.dtype.kind not in "biuf":
                raise ValueError(f"Constants of dtype {array.dtype} cannot be stored in a model config")
            return {"__array__": array.tolist(), "dtype": array.dtype.name}
        raise ValueError(
            f"An argument of type {type(value).__name__} cannot be recorded in a functional model: "
            f"operations on symbolic tensors take tensors, numbers, strings, slices, dtypes and small arrays"
        )

    plain = {"args": [enc(a) for a in args], "kwargs": {k: enc(v) for k, v in kwargs.items()}}
    return plain, symbols


def decode(plain: Any, tensors: list[Any]) -> tuple[list[Any], dict[str, Any]]:
    """``(args, kwargs)`` with ``{"__input__": i}`` replaced by ``tensors[i]``; ``ValueError`` on bad data."""
    if (
        not isinstance(plain, dict)
        or not isinstance(plain.get("args", []), list)
        or not isinstance(plain.get("kwargs", {}), dict)
    ):
        raise ValueError(f"Operation arguments must be {{'args': [...], 'kwargs': {{...}}}}, got {str(plain)[:200]}")

    def dec(value: Any) -> Any:
        if isinstance(value, list):
            return [dec(v) for v in value]
        if not isinstance(value, dict):
            return value
        tag = next((t for t in _TAGS if t in value), None)
        if tag == "__input__":
            index = value["__input__"]
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(tensors):
                raise ValueError(f"Operation argument refers to input {index!r}; the node has {len(tensors)} input(s)")
            return tensors[index]
        if tag == "__tuple__":
            return tuple(dec(v) for v in _list(value["__tuple__"], tag))
        if tag == "__dict__":
            inner = value["__dict__"]
            if not isinstance(inner, dict):
                raise ValueError("'__dict__' in operation arguments must hold a dict")
            return {str(k): dec(v) for k, v in inner.items()}
        if tag == "__slice__":
            parts = _list(value["__slice__"], tag)
            if len(parts) != 3:
                raise ValueError("'__slice__' must hold [start, stop, step]")
            return slice(*(dec(p) for p in parts))
        if tag == "__ellipsis__":
            return Ellipsis
        if tag == "__dtype__":
            return _dtype(value["__dtype__"])
        if tag == "__array__":
            dtype = _dtype(value.get("dtype"))
            array = np.asarray(
                _list(value["__array__"], tag) if isinstance(value["__array__"], list) else value["__array__"],
                dtype=dtype.as_numpy_dtype,
            )
            if array.size > MAX_CONSTANT_ELEMENTS:
                raise ValueError(f"A stored constant has {array.size} elements (limit {MAX_CONSTANT_ELEMENTS})")
            return array
        raise ValueError(f"Unknown tagged value in operation arguments: keys {sorted(value)[:5]}")

    args = [dec(a) for a in plain.get("args", [])]
    kwargs = {str(k): dec(v) for k, v in plain.get("kwargs", {}).items()}
    return args, kwargs


def _list(value: Any, tag: str) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{tag!r} in operation arguments must hold a list, got {type(value).__name__}")
    return value


def _dtype(name: Any) -> tf.DType:
    try:
        dtype = tf.as_dtype(name) if isinstance(name, str) else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.name in ("resource", "variant"):
        raise ValueError(f"Unknown dtype {name!r} in operation arguments")
    return dtype
