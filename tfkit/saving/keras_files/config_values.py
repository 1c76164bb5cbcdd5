"""Keras's value objects in a saved config turned into the values they stand for, as data.

    config = plain_values(keras_config, "model.keras: model config")

Keras 3's ``serialization_lib`` writes values JSON cannot hold as small
objects, and layer configs carry them: a NumPy array (``Rescaling(scale=...)``)
is ``{"class_name": "__numpy__", "config": {"value": [...], "dtype": ...}}``,
a tensor ``__tensor__``, bytes (``StringLookup(vocabulary=tf.constant(...))``)
``__bytes__``, a slice ``__slice__``, ``...`` ``__ellipsis__``; Keras's
JSON encoder (``model.to_json``, legacy ``.h5``) writes a tuple as
``{"class_name": "__tuple__", "items": [...]}``. Each becomes its value:
an array of a checked numeric, boolean or string dtype, a ``tf.constant``,
``bytes``, a ``slice`` of integers, ``Ellipsis``, a list. Nothing is
evaluated or imported.

Code stays refused, whatever ``safe_mode`` says: a ``__lambda__`` object
(Python bytecode, as Keras saves a ``lambda``) is a ``ValueError`` that says
what to do instead, and so is a ``__typespec__`` (rebuilding one means
importing the module it names). Keras operation nodes (``x[:, 0]``,
``keras.ops.sum``) keep their objects: ``operation_nodes`` reads them, and
so do the inbound nodes of a functional graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.engine.config_safety import MAX_STRING_CHARS

# The dtypes an array in a config may have: numbers, booleans and text (never "object").
_DTYPES = frozenset(
    {
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "string",
    }
)
_SKIPPED_KEYS = ("inbound_nodes",)  # call arguments of graph nodes: read where the graph is rebuilt

LAMBDA_REFUSED = (
    "Keras saved a Python lambda here as bytecode, and tfkit never loads code from a file, not even with "
    "safe_mode=False. Give the function a name: define it with 'def' in Keras (optionally "
    "@keras.saving.register_keras_serializable(package=...)) and save the model again; then pass the same "
    "function to tfkit by that name, custom_objects={'my_function': my_function}, or register it with "
    "@tfkit.saving.register_keras_serializable(package=...)."
)


def is_operation_entry(value: dict) -> bool:
    """Whether a config entry is a Keras operation node (``module`` ``keras.src.ops...`` / ``keras.ops...``)."""
    module = value.get("module")
    return isinstance(module, str) and module.startswith(("keras.src.ops", "keras.ops"))


def plain_values(config: Any, where: str) -> Any:
    """``config`` with Keras's value objects replaced by their values (see the module docstring).

    Args:
        config: A parsed Keras config (dicts, lists, plain values).
        where: What ``config`` is, for error messages (``"m.keras: model config"``).

    Returns:
        A new config; ``config`` itself is not changed.

    Raises:
        ValueError: For a lambda or TypeSpec saved by Keras, or a value object that is malformed.
    """
    return _walk(config, [where])


def _path(parts: list[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _walk(value: Any, path: list[Any]) -> Any:
    if isinstance(value, list):
        return [_walk(item, path + [i]) for i, item in enumerate(value)]
    if not isinstance(value, dict):
        return value
    tag = value.get("class_name")
    if isinstance(tag, str) and tag.startswith("__") and tag.endswith("__"):
        return _value(tag, value, path)
    if isinstance(tag, str) and is_operation_entry(value):
        return value
    return {key: item if key in _SKIPPED_KEYS else _walk(item, path + [key]) for key, item in value.items()}


def _value(tag: str, value: dict, path: list[Any]) -> Any:
    where = _path(path)
    inner = value.get("config")
    if tag == "__tuple__":
        items = value.get("items")
        if not isinstance(items, list):
            raise ValueError(f"{where}: a Keras __tuple__ must hold a list of 'items', got {str(items)[:80]}")
        return [_walk(item, path + [i]) for i, item in enumerate(items)]
    if tag == "__ellipsis__":
        return Ellipsis
    if tag == "__bytes__":
        text = inner.get("value") if isinstance(inner, dict) else None
        if not isinstance(text, str) or len(text) > MAX_STRING_CHARS:
            raise ValueError(
                f"{where}: a Keras __bytes__ object must hold its text in config.value, at most "
                f"{MAX_STRING_CHARS} characters"
            )
        return text.encode("utf-8")
    if tag == "__slice__":
        if not isinstance(inner, dict):
            raise ValueError(f"{where}: a Keras __slice__ object must hold start, stop and step in its config")
        bounds = [inner.get(key) for key in ("start", "stop", "step")]
        if not all(b is None or isinstance(b, int) and not isinstance(b, bool) for b in bounds):
            raise ValueError(
                f"{where}: a Keras __slice__ must have integer (or null) start, stop and step, got {str(bounds)[:80]}"
            )
        return slice(*bounds)
    if tag in ("__numpy__", "__tensor__"):
        array = _array(inner, where, tag)
        return array if tag == "__numpy__" else tf.constant(array, dtype=inner["dtype"])
    if tag == "__lambda__":
        raise ValueError(f"{where}: {LAMBDA_REFUSED}")
    if tag == "__typespec__":
        raise ValueError(
            f"{where}: a Keras __typespec__ ({str(value.get('spec_name'))[:80]}) names a TensorFlow "
            f"class to import, which tfkit never does for a file; give the input a shape and dtype "
            f"(keras.Input(shape, dtype=...)) instead and save the model again."
        )
    return value  # __keras_tensor__ (rewritten by the translation); anything else: refused by check_config


def _array(inner: Any, where: str, tag: str) -> Any:
    """The array of a ``__numpy__`` / ``__tensor__`` object: a numpy array, or for text the nested list of its strings
    checked (``tf.constant`` and ``np.array(..., object)`` then hold them at their own lengths)."""
    dtype = inner.get("dtype") if isinstance(inner, dict) else None
    if dtype not in _DTYPES:
        raise ValueError(
            f"{where}: a Keras {tag} object must name a numeric, boolean or string dtype, got {str(dtype)[:40]!r}"
        )
    value = inner.get("value")
    if dtype == "string":
        if not _all_text(value):
            raise ValueError(f"{where}: a Keras {tag} object of dtype string holds values that are not text")
        return np.array(value, dtype=object) if tag == "__numpy__" else value
    try:
        return np.asarray(value, dtype=tf.as_dtype(dtype).as_numpy_dtype)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(f"{where}: a Keras {tag} object holds values that are not a {dtype} array ({error})") from None


def _all_text(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif not isinstance(item, str) or len(item) > MAX_STRING_CHARS:
            return False
    return True
