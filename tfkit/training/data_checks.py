"""What ``adapt`` checks in the data of ``fit`` / ``evaluate`` / ``predict``, once, as it converts it.

    check = DataCheck("fit", input_dtypes(model))
    adapt(x, y, batch_size=32, check=check)
    # ValueError: fit: x holds strings (dtype <U1), but it feeds a model input of dtype float32; ...

Empty arrays, arrays of Python objects and strings where the model takes
numbers would otherwise run one empty step, or fail deep inside TensorFlow.
Every error names the argument (or the model input), what was expected and what came.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import tensorflow as tf

_ADVICE = (
    "convert the strings to numbers first (for example with a StringLookup or TextVectorization "
    "layer, or an Input(dtype='string'))"
)


@dataclass(frozen=True)
class DataCheck:
    """The method being run and the dtypes of the model's inputs (by position, by name, and '' for one input)."""

    method: str
    input_dtypes: dict[str, tf.DType] = field(default_factory=dict)

    def _expected(self, key: str) -> tf.DType | None:
        expected = self.input_dtypes
        return expected.get(key) or (next(iter(expected.values())) if len(expected) == 1 else None)

    def arrays(self, argument: str, value: Any) -> None:
        """``ValueError`` for an empty array, an object array, or strings where numbers are expected.

        ``argument`` is "x" or "y"; ``value`` an array, a tensor, a nested list, or a list/tuple/dict of arrays.
        """
        for key, array in _flat_arrays(value):
            if isinstance(array, (np.ndarray, tf.Tensor)):
                self._array(argument, key, array)

    def _array(self, argument: str, key: str, array: np.ndarray | tf.Tensor) -> None:
        label = f"{argument}[{key!r}]" if key else argument
        shape = tuple(array.shape)
        if shape and shape[0] == 0:
            raise ValueError(
                f"{self.method}: {label} has no samples (shape {shape}); there is nothing to "
                f"{'train on' if self.method == 'fit' else 'run'}"
            )
        string_tensor = isinstance(array, tf.Tensor) and array.dtype == tf.string
        dtype = (
            np.dtype("S")
            if string_tensor
            else np.dtype(array.dtype if isinstance(array, np.ndarray) else array.dtype.as_numpy_dtype)
        )
        if dtype.kind == "O":
            raise ValueError(
                f"{self.method}: {label} is a numpy array of Python objects (shape {shape}); "
                f"pass numbers (or strings to a model whose Input has dtype='string')"
            )
        if dtype.kind in "SU":
            want = self._expected(key) if argument == "x" else None
            if argument != "x" or want is not None and want != tf.string:
                target = f"model input of dtype {want.name}" if want is not None else "a loss that takes numbers"
                raise ValueError(
                    f"{self.method}: {label} holds strings (dtype {dtype}), but it feeds a {target}; {_ADVICE}"
                )

    def dataset(self, dataset: tf.data.Dataset) -> None:
        """String features from a ``tf.data.Dataset`` for a model whose inputs take numbers, from its element spec."""
        spec = dataset.element_spec
        features = spec[0] if isinstance(spec, tuple) and spec else spec
        for key, item in _flat_arrays(features, specs=True):
            if isinstance(item, tf.TensorSpec) and item.dtype == tf.string:
                want = self._expected(key)
                if want is not None and want != tf.string:
                    label = f"x[{key!r}]" if key else "x"
                    raise ValueError(
                        f"{self.method}: {label} (a tf.data.Dataset) yields strings (shape {item.shape}),"
                        f" but it feeds a model input of dtype {want.name}; {_ADVICE}"
                    )


def _flat_arrays(value: Any, specs: bool = False) -> list[tuple[str, Any]]:
    """``(key, leaf)`` pairs: dict entries by name, list/tuple entries by position, else the value itself."""
    kinds = (tf.TensorSpec,) if specs else (np.ndarray, tf.Tensor)
    if isinstance(value, dict):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, kinds) for v in value):
        return [(str(i), v) for i, v in enumerate(value)]
    if not specs and isinstance(value, (list, tuple)) and _first_leaf_is_text(value):
        return [("", np.asarray(value[:1]))]  # a nested list of strings: judged by its first row
    return [("", value)]


def _first_leaf_is_text(value: Any) -> bool:
    for _ in range(32):
        if not isinstance(value, (list, tuple)) or not value:
            break
        value = value[0]
    return isinstance(value, (str, bytes))


def input_dtypes(model: Any) -> dict[str, tf.DType]:
    """Dtypes of a functional or Sequential model's inputs, by position (and by name); {} when unknown."""
    inputs = getattr(model, "inputs", None)
    try:
        symbols = list(inputs) if inputs else []
    except TypeError:
        return {}
    out: dict[str, tf.DType] = {}
    for index, symbol in enumerate(symbols):
        dtype = getattr(symbol, "dtype", None)
        if dtype is not None:
            out[str(index)] = tf.as_dtype(dtype)
            name = getattr(getattr(getattr(symbol, "node", None), "layer", None), "name", None)
            if name:
                out[name] = tf.as_dtype(dtype)
    if len(symbols) == 1 and out:
        out[""] = out["0"]
    return out
