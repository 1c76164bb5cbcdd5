"""Names of the operations a functional model may record, and the functions they stand for.

    name_of(tf.nn.relu)                       # "tf.nn.relu"
    resolve("tf.nn.relu") is tf.nn.relu       # True
    resolve("tf.io.write_file")               # ValueError: not an allowed operation

A model config stores an operation by name only. Loading turns a name back
into a function through this module, which accepts three kinds of names and
nothing else:

- ``__operators__.add`` ... : Python's operators (``x + y``, ``x[:, 0]``, ``-x``);
- ``tfkit.ops.mean``, ``tfkit.activations.relu`` ... : tfkit's own building blocks, the
  functions that declare themselves operations (``symbolic.traceable``);
- ``tf.nn.relu``, ``tf.math.add``, ``tf.concat`` ... : the names in
  ``tf_operations_table.ALLOWED``, an allowlist of pure tensor functions generated
  from TensorFlow's API by ``tools/tf_operations_table.py`` and committed (the rules
  are in the tool; ``docs/TF_OPERATIONS.md`` lists the names). Everything else of
  TensorFlow (``tf.io``, ``tf.print``, ``tf.py_function``, ``tf.compat.v1``, ``tf.config``,
  ``tf.raw_ops`` ...) is refused, so a config can never name it.
"""

from __future__ import annotations

import importlib
import inspect
import operator
import re
from typing import Any, Callable

import tensorflow as tf
from tensorflow.python.util import tf_export

from tfkit import activations
from tfkit.base import symbolic
from tfkit.base.tf_operations_table import ALLOWED, TF_VERSION
from tfkit.engine import masking

OPERATORS = {
    name: getattr(operator, name)
    for name in (
        "add",
        "sub",
        "mul",
        "truediv",
        "floordiv",
        "mod",
        "pow",
        "matmul",
        "and_",
        "or_",
        "xor",
        "lt",
        "le",
        "gt",
        "ge",
        "neg",
        "pos",
        "abs",
        "invert",
        "getitem",
    )
}


def _keras_mask(tensor: Any) -> Any:
    """The mask carried by ``tensor`` (what ``x._keras_mask`` reads on a symbolic tensor)."""
    return masking.get_mask(tensor)


OPERATORS["keras_mask"] = _keras_mask
_IDENTIFIER_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def name_of(function: Callable) -> str:
    """The name a config stores for ``function``; ``ValueError`` if it cannot be named safely."""
    tfkit_name = symbolic.op_name_of(function)
    if tfkit_name is not None:
        return tfkit_name
    for name, known in OPERATORS.items():
        if function is known:
            return f"__operators__.{name}"

    canonical = tf_export.get_canonical_name_for_symbol(function, add_prefix_to_v1_names=True)
    if canonical is None:
        raise ValueError(f"{getattr(function, '__name__', function)!r} is not a public TensorFlow function")
    name = f"tf.{canonical}"
    resolve(name)  # refuse at save time what loading would refuse
    return name


def resolve(name: Any) -> Callable:
    """The function behind a stored operation name, or ``ValueError`` saying why not."""
    if not isinstance(name, str) or not _IDENTIFIER_PATH.match(name.replace("__operators__.", "operators.")):
        raise ValueError(f"An operation name must be a dotted identifier, got {name!r}")
    if name.startswith("__operators__."):
        function = OPERATORS.get(name.split(".", 1)[1])
        if function is None:
            raise ValueError(f"Unknown operator {name!r}; known: {sorted(OPERATORS)}")
        return function
    if name.startswith("tfkit."):
        return _resolve_tfkit(name)
    if name.startswith("tf."):
        return _resolve_tf(name)
    raise ValueError(
        f"Unknown operation {name!r}: expected '__operators__.*', 'tfkit.ops.*', "
        f"'tfkit.activations.*' or a TensorFlow math function 'tf.*'"
    )


def _resolve_tfkit(name: str) -> Callable:
    module_name, _, attr = name[len("tfkit.") :].rpartition(".")
    if module_name == "activations":
        module = activations
    elif module_name == "ops" or module_name.startswith("ops."):
        module = importlib.import_module("tfkit.ops")
        for part in module_name.split(".")[1:]:  # submodules: tfkit.ops.image.resize, tfkit.ops.linalg.qr
            module = getattr(module, part, None)
            if not inspect.ismodule(module) or not module.__name__.startswith("tfkit.ops"):
                raise ValueError(f"Unknown tfkit operation {name!r}: tfkit.ops has no submodule {part!r}")
    else:
        raise ValueError(f"Unknown tfkit operation {name!r}: only tfkit.ops.* and tfkit.activations.* are operations")
    function = getattr(module, attr, None)
    if symbolic.op_name_of(function) is None:
        raise ValueError(f"Unknown tfkit operation {name!r}")
    return function


def _resolve_tf(name: str) -> Callable:
    if name not in ALLOWED:
        raise ValueError(
            f"Operation {name!r} is not allowed in a model config: a file may name only the {len(ALLOWED)} pure "
            f"tensor functions of tfkit's TensorFlow allowlist (docs/TF_OPERATIONS.md). Functions that change "
            f"TensorFlow's state, touch files, print, run Python or create variables, and every tf.compat.v1 "
            f"name but the few that allowed functions call, are refused"
        )
    target: Any = tf
    for part in name.split(".")[1:]:
        target = getattr(target, part, None)
        if target is None:
            raise ValueError(
                f"Unknown TensorFlow operation {name!r}: the allowlist (made from TensorFlow {TF_VERSION}) "
                f"names it, but TensorFlow {tf.__version__} has no such function"
            )
    if not inspect.isfunction(inspect.unwrap(target)):
        raise ValueError(f"{name!r} is not a TensorFlow API function")
    return target
