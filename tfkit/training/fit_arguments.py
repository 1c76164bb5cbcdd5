"""Check the arguments of ``fit``, ``evaluate`` and ``predict`` before any step runs.

    check_loop_arguments("fit", model, x, y, batch_size=-4)
    # ValueError: fit: batch_size must be a positive integer or None, got -4

Bad values would otherwise run silently (``batch_size=0``), run one empty step
and report a loss of 0.0 (``batch_size=-4``), or fail deep inside TensorFlow
(string arrays into a float model). Every error names the argument (or the
model input), what was expected and what came.
"""

from __future__ import annotations

import numbers
import os
import re
from typing import Any

import numpy as np
import tensorflow as tf

_COUNTS = ("batch_size", "steps_per_epoch", "validation_steps", "steps", "validation_batch_size",
           "validation_freq", "steps_per_execution")


def _positive_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value > 0


def check_loop_arguments(method: str, model: Any, x: Any, y: Any = None, **arguments: Any) -> None:
    """``ValueError`` for arguments ``method`` cannot run with; returns quietly otherwise."""
    for name in _COUNTS:
        value = arguments.get(name)
        if value is None or name == "steps_per_execution" and value == "auto":
            continue
        if not _positive_int(value):
            raise ValueError(f"{method}: {name} must be a positive integer or None, got {value!r}")
    for name in ("epochs", "initial_epoch"):
        value = arguments.get(name)
        if value is not None and (not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0):
            raise ValueError(f"{method}: {name} must be a non-negative integer, got {value!r}")
    split = arguments.get("validation_split")
    if split is not None and (isinstance(split, bool) or not isinstance(split, numbers.Real) or not 0 <= split < 1):
        raise ValueError(f"{method}: validation_split must be a float in [0, 1), got {split!r}")
    if isinstance(x, tf.data.Dataset):
        _check_dataset(method, model, x)
        return
    _check_arrays(method, model, x, "x")
    if y is not None:
        _check_arrays(method, model, y, "y", inputs=False)


def _check_dataset(method: str, model: Any, dataset: tf.data.Dataset) -> None:
    """String features from a ``tf.data.Dataset`` for a model whose inputs take numbers, from its element spec."""
    spec = dataset.element_spec
    features = spec[0] if isinstance(spec, tuple) and spec else spec
    expected = _input_dtypes(model)
    for key, item in _flat_arrays(features, specs=True):
        if isinstance(item, tf.TensorSpec) and item.dtype == tf.string:
            want = expected.get(key) or (next(iter(expected.values())) if len(expected) == 1 else None)
            if want is not None and want != tf.string:
                label = f"x[{key!r}]" if key else "x"
                raise ValueError(f"{method}: {label} (a tf.data.Dataset) yields strings (shape {item.shape}), but it "
                                 f"feeds a model input of dtype {want.name}; convert the strings to numbers first (for "
                                 f"example with a StringLookup or TextVectorization layer, or an Input(dtype='string'))")


def _flat_arrays(value: Any, specs: bool = False) -> list[tuple[str, Any]]:
    kinds = (tf.TensorSpec,) if specs else (np.ndarray, tf.Tensor)
    if isinstance(value, dict):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, kinds) for v in value):
        return [(str(i), v) for i, v in enumerate(value)]
    if not specs and isinstance(value, (list, tuple)) and _first_leaf_is_text(value):
        return [("", np.asarray(value[:1]))]     # a nested list of strings: judged by its first row
    return [("", value)]


def _first_leaf_is_text(value: Any) -> bool:
    for _ in range(32):
        if not isinstance(value, (list, tuple)) or not value:
            break
        value = value[0]
    return isinstance(value, (str, bytes))


def _check_arrays(method: str, model: Any, value: Any, argument: str, inputs: bool = True) -> None:
    """Empty data and string/object arrays where the model takes numbers."""
    arrays = [(key, array) for key, array in _flat_arrays(value) if isinstance(array, (np.ndarray, tf.Tensor))]
    expected = _input_dtypes(model) if inputs else {}
    for key, array in arrays:
        label = f"{argument}[{key!r}]" if key else argument
        shape = tuple(array.shape)
        if shape and shape[0] == 0:
            raise ValueError(f"{method}: {label} has no samples (shape {shape}); there is nothing to "
                             f"{'train on' if method == 'fit' else 'run'}")
        dtype = array.dtype if isinstance(array, np.ndarray) else array.dtype.as_numpy_dtype
        kind = np.dtype(dtype).kind if not isinstance(array, tf.Tensor) or array.dtype != tf.string else "S"
        if kind == "O":
            raise ValueError(f"{method}: {label} is a numpy array of Python objects (shape {shape}); "
                             f"pass numbers (or strings to a model whose Input has dtype='string')")
        if kind in "SU":
            want = expected.get(key) or (next(iter(expected.values())) if len(expected) == 1 else None)
            if not inputs or want is not None and want != tf.string:
                target = f"model input of dtype {want.name}" if want is not None else "a loss that takes numbers"
                raise ValueError(f"{method}: {label} holds strings (dtype {np.dtype(dtype)}), but it feeds a "
                                 f"{target}; convert the strings to numbers first (for example with a "
                                 f"StringLookup or TextVectorization layer, or an Input(dtype='string'))")


def _input_dtypes(model: Any) -> dict[str, tf.DType]:
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


def _layer_names(model: Any) -> set[str]:
    try:
        return {getattr(module, "name", None) for module in getattr(model, "submodules", ())} - {None}
    except Exception:      # an odd module tree must not hide the error being explained
        return set()


def _layer_path(message: str, model: Any) -> str | None:
    """The layer path of the op that failed (``encoder/dense_proj``), from the node name TensorFlow reports.

    The node name goes on with name scopes of ops (``guard/assert_less/Assert/AssertGuard``): the path
    stops at the first part that names no layer of ``model`` (all parts are kept when none does).
    """
    model_name = getattr(model, "name", None)
    match = re.search(r"\{\{node ([^}]+)\}\}", message)
    if match is None or not model_name:
        return None
    parts = match.group(1).split("/")
    if model_name not in parts[:-1]:
        return None
    start = len(parts) - 1 - parts[::-1].index(model_name)
    layer = parts[start + 1:-1]
    names = _layer_names(model)
    known = 0
    while known < len(layer) and layer[known] in names:
        known += 1
    return "/".join(layer[:known] if known else layer) or None


_LIBRARIES = tuple(os.path.dirname(os.path.abspath(module.__file__)) + os.sep for module in (tf, np))
_LIBRARIES += (os.path.dirname(os.path.abspath(__file__)) + os.sep,)   # tfkit
_ASSERTIONS = (
    re.compile(r"assertion failed: (.*)"),                            # in a graph: tf.debugging.assert_*, tf.Assert
    re.compile(r"^(.*Condition .* did not hold.*)$", re.S),           # eager tf.debugging.assert_*
    re.compile(r"^(Expected '.*' to be true\. Summarized data: .*)$", re.S),   # eager tf.Assert
)


def _assertion(raw: str) -> str | None:
    """The message of a failed ``tf.debugging.assert_*`` or ``tf.Assert`` in ``raw``, or ``None``."""
    for pattern in _ASSERTIONS:
        match = pattern.search(raw)
        if match:
            return " ".join(line.strip() for line in match.group(1).splitlines() if line.strip())
    return None


def _explain_assertion(method: str, error: Exception, raw: str, text: str, layer: str | None) -> Exception:
    """The user's own failed assertion, as the ``InvalidArgumentError`` it is, saying where it failed."""
    pipeline = re.search(r"user-defined function passed to (\w+?)(?:Dataset)?:\d+", raw)
    if pipeline:
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", pipeline.group(1)).lower()
        where = f" in the function passed to tf.data's {name}()"
    elif layer:
        where = f" in layer '{layer}'"
    else:
        where = ""
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', raw.split("assertion failed:")[0])
    innermost = frames[-1] if frames else None
    if innermost and not os.path.abspath(innermost[0]).startswith(_LIBRARIES):   # the user's line, not tfkit's loop
        where += f" (at {innermost[0]}:{innermost[1]}, in {innermost[2]})"
    message = f"{method}: your assertion failed{where}: {text[:1000]}"
    return tf.errors.InvalidArgumentError(getattr(error, "node_def", None), getattr(error, "op", None), message)


def explain_step_error(method: str, error: Exception, model: Any = None) -> Exception:
    """A ``ValueError`` for TensorFlow's ``InvalidArgumentError`` (or ``UnimplementedError``) from a step:
    what is wrong in user terms, the layer whose op failed when TensorFlow names one, and what came.

    A failed ``tf.debugging.assert_*`` / ``tf.Assert`` of the user's (in a ``tf.data`` function or in
    the model) stays an ``InvalidArgumentError``, with the assertion's message and where it failed."""
    raw = str(getattr(error, "message", error))
    layer = _layer_path(raw, model)
    assertion = _assertion(raw) if isinstance(error, tf.errors.InvalidArgumentError) else None
    if assertion is not None:
        return _explain_assertion(method, error, raw, assertion, layer)
    lines = [line.strip() for line in raw.splitlines()]
    useful = [line for line in lines if line and not line.startswith(("File ", "Detected at node", "Graph execution",
                                                                        "[[", "{{", "<stack traces"))]
    text = (useful[0] if useful else type(error).__name__).split("[Op:")[0].strip()
    if "label value" in text or "labels" in text and "range" in text:
        hint = ("y holds a label outside the range the loss expects: sparse labels must be integers in "
                "[0, number of classes)")
    elif "Cast string" in text:
        hint = "the data holds strings where the model takes numbers (convert them first, e.g. with StringLookup)"
    elif "Incompatible shapes" in text or "size-incompatible" in text or "shape" in text.lower():
        hint = ("a batch does not have the shapes the model was built for (a dataset whose feature size "
                "changes between batches?)")
    else:
        hint = "the data does not fit the model or the loss"
    where = f" in layer '{layer}'" if layer else ""
    return ValueError(f"{method}: a step failed{where}: {hint}. TensorFlow said: {text[:400]}")
