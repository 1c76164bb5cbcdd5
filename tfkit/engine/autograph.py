"""AutoGraph for user code that needs it: tfkit's own plumbing and straight-line calls are never converted.

    autograph.convert_user_call(layer.call)(inputs)  # converted if the caller's context converts
    needs_conversion(Dense.call)                     # False: no branch, loop or converted builtin

Converting tfkit's internals (``Layer.__call__``, losses, optimizers) on every
trace costs seconds and buys nothing: they are written with TensorFlow
control flow. As Keras and tf-keras do for their own packages, tfkit adds
itself to AutoGraph's do-not-convert list; a user's ``call`` or
``train_step`` is still converted, so Python ``if``/``for`` on tensors keep
working there (as in tf-keras; Keras 3 converts no user code at all).

Converting a user's ``call`` costs about 0.2 s the first time (AutoGraph parses
and rewrites its source), and for a ``call`` without control flow it changes
nothing. So a ``call`` is converted only when its bytecode (or that of a
function or lambda defined in it) has a jump (``if``, loops, ``and``/``or``,
conditional expressions, ``assert``, ``try``), names a builtin AutoGraph
replaces (``print``, ``len``, ``range``, ...), or names one of the user's own
functions or methods, which conversion would convert in turn.
"""

from __future__ import annotations

import dis
import types
from typing import Any, Callable

import tensorflow as tf


def _register_do_not_convert() -> bool:
    try:
        from tensorflow.python.autograph.core import config
    except ImportError:  # a future TF moved it: everything still works, traces are slower
        return False
    rule = config.DoNotConvert("tfkit")
    if not any(getattr(r, "_prefix", None) == "tfkit" for r in config.CONVERSION_RULES):
        config.CONVERSION_RULES = (rule,) + tuple(config.CONVERSION_RULES)
    return True


REGISTERED = _register_do_not_convert()


def written_in_tensorflow(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``fn`` so that ``tf.function(fn)`` traces it as written, still with AutoGraph on for the user code it calls.

        loop = tf.function(written_in_tensorflow(loop))   # loop uses tf.while_loop / tf.cond itself
        loop(...)                                         # a user's call inside is converted as usual

    AutoGraph always converts the function a ``tf.function`` wraps, whatever the do-not-convert list
    says, and converting even a ten-line loop took 0.2-0.3 s at each fit's first trace. A function
    AutoGraph itself produced is called as it is; this marks ``fn`` as one. (``autograph=False``
    instead would trace with AutoGraph off, and a user's ``if`` on a tensor would then fail.)
    """
    try:
        from tensorflow.python.autograph.impl.api import autograph_artifact
    except ImportError:  # a future TF moved it: the loop is converted, which is only slower
        return fn
    return autograph_artifact(fn)


def convert_user_call(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` converted by AutoGraph when the active context asks for it and conversion would change it."""
    if not needs_conversion(fn):
        return fn
    return tf.__internal__.autograph.tf_convert(fn, tf.__internal__.autograph.control_status_ctx())


_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
_CONVERTED_BUILTINS = frozenset(
    {
        "abs",
        "all",
        "any",
        "enumerate",
        "filter",
        "float",
        "int",
        "len",
        "map",
        "next",
        "print",
        "range",
        "sorted",
        "zip",
        "super",
    }
)
_LIBRARIES = ("tfkit", "tensorflow", "keras", "numpy", "builtins")


def needs_conversion(fn: Callable[..., Any]) -> bool:
    """Whether AutoGraph could change what ``fn`` does (conservative: True when unsure)."""
    function = getattr(fn, "__func__", fn)
    code = getattr(function, "__code__", None)
    if code is None or not isinstance(function, types.FunctionType):
        return True  # a partial, a callable object: let AutoGraph decide
    owner = getattr(fn, "__self__", None)
    return _code_needs_conversion(code, function.__globals__, type(owner) if owner is not None else None)


_VERDICTS: dict[tuple, bool] = {}  # by (code, module globals, owning class): bytecode does not change


def _code_needs_conversion(code: types.CodeType, globals_: dict, owner: type | None) -> bool:
    key = (code, id(globals_), owner)
    verdict = _VERDICTS.get(key)
    if verdict is None:
        verdict = _VERDICTS[key] = _scan(code, globals_, owner)
    return verdict


def _scan(code: types.CodeType, globals_: dict, owner: type | None) -> bool:
    if any(instruction.opcode in _JUMPS for instruction in dis.get_instructions(code)):
        return True
    names = set(code.co_names)
    if names & _CONVERTED_BUILTINS:
        return True
    for name in names:
        for candidate in (globals_.get(name), getattr(owner, name, None) if owner is not None else None):
            if _user_function(candidate):
                return True
    return any(
        isinstance(const, types.CodeType) and _code_needs_conversion(const, globals_, owner) for const in code.co_consts
    )


def _user_function(value: Any) -> bool:
    function = getattr(value, "__func__", value)
    if not isinstance(function, types.FunctionType):
        return False
    return (function.__module__ or "").split(".")[0] not in _LIBRARIES
