"""AutoGraph for user code only: tfkit's own plumbing is never converted.

    autograph.convert_user_call(layer.call)(inputs)  # converted if the caller's context converts

Converting tfkit's internals (``Layer.__call__``, losses, optimizers) on every
trace costs seconds and buys nothing: they are written with TensorFlow
control flow. As Keras and tf-keras do for their own packages, tfkit adds
itself to AutoGraph's do-not-convert list; a user's ``call`` or
``train_step`` is still converted, so Python ``if``/``for`` on tensors keep
working there.
"""

from __future__ import annotations

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


def convert_user_call(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` converted by AutoGraph when the active context asks for it (user code only)."""
    return tf.__internal__.autograph.tf_convert(fn, tf.__internal__.autograph.control_status_ctx())
