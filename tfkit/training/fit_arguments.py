"""Check the loop arguments of ``fit``, ``evaluate`` and ``predict`` before any step runs, and explain failed steps.

    check_loop_arguments("fit", batch_size=-4)
    # ValueError: fit: batch_size must be a positive integer or None, got -4
    raise explain_step_error("fit", error, model) from error     # TensorFlow's error in user terms

Bad values would otherwise run silently (``batch_size=0``) or run one empty
step and report a loss of 0.0 (``batch_size=-4``). Every error names the
argument, what was expected and what came.
"""

from __future__ import annotations

import numbers
import os
import re
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.argument_validation import is_positive_int

_COUNTS = (
    "batch_size",
    "steps_per_epoch",
    "validation_steps",
    "steps",
    "validation_batch_size",
    "validation_freq",
    "steps_per_execution",
)


def check_loop_arguments(method: str, **arguments: Any) -> None:
    """``ValueError`` for counts and fractions ``method`` cannot run with; returns quietly otherwise.

    The data itself is checked where it is converted (``data.adapt`` with a ``DataCheck``).
    """
    for name in _COUNTS:
        value = arguments.get(name)
        if value is None or name == "steps_per_execution" and value == "auto":
            continue
        if not is_positive_int(value):
            raise ValueError(f"{method}: {name} must be a positive integer or None, got {value!r}")
    for name in ("epochs", "initial_epoch"):
        value = arguments.get(name)
        if value is not None and (not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0):
            raise ValueError(f"{method}: {name} must be a non-negative integer, got {value!r}")
    split = arguments.get("validation_split")
    if split is not None and (isinstance(split, bool) or not isinstance(split, numbers.Real) or not 0 <= split < 1):
        raise ValueError(f"{method}: validation_split must be a float in [0, 1), got {split!r}")


def _layer_names(model: Any) -> set[str]:
    try:
        return {getattr(module, "name", None) for module in getattr(model, "submodules", ())} - {None}
    except Exception:  # an odd module tree must not hide the error being explained
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
    layer = parts[start + 1 : -1]
    names = _layer_names(model)
    known = 0
    while known < len(layer) and layer[known] in names:
        known += 1
    return "/".join(layer[:known] if known else layer) or None


_LIBRARIES = tuple(os.path.dirname(os.path.abspath(module.__file__)) + os.sep for module in (tf, np))
_LIBRARIES += (os.path.dirname(os.path.abspath(__file__)) + os.sep,)  # tfkit
_ASSERTIONS = (
    re.compile(r"assertion failed: (.*)"),  # in a graph: tf.debugging.assert_*, tf.Assert
    re.compile(r"^(.*Condition .* did not hold.*)$", re.S),  # eager tf.debugging.assert_*
    re.compile(r"^(Expected '.*' to be true\. Summarized data: .*)$", re.S),  # eager tf.Assert
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
    if innermost and not os.path.abspath(innermost[0]).startswith(_LIBRARIES):  # the user's line, not tfkit's loop
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
    useful = [
        line
        for line in lines
        if line and not line.startswith(("File ", "Detected at node", "Graph execution", "[[", "{{", "<stack traces"))
    ]
    text = (useful[0] if useful else type(error).__name__).split("[Op:")[0].strip()
    if "label value" in text or "labels" in text and "range" in text:
        hint = (
            "y holds a label outside the range the loss expects: sparse labels must be integers in "
            "[0, number of classes)"
        )
    elif "Cast string" in text:
        hint = "the data holds strings where the model takes numbers (convert them first, e.g. with StringLookup)"
    elif "Incompatible shapes" in text or "size-incompatible" in text or "shape" in text.lower():
        hint = (
            "a batch does not have the shapes the model was built for (a dataset whose feature size "
            "changes between batches?)"
        )
    else:
        hint = "the data does not fit the model or the loss"
    where = f" in layer '{layer}'" if layer else ""
    return ValueError(f"{method}: a step failed{where}: {hint}. TensorFlow said: {text[:400]}")
