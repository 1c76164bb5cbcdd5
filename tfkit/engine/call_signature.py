"""How ``Layer`` reads its subclasses: call and build signatures, and wrappers it puts on their methods.

first, takes_training, takes_mask, training_default, var_kw = call_signature(Dense)
build_parameters(MyLayer)        # ("input_shape",) or more: build(self, x_shape, mask_shape)
shape_tuple(tf.ones((2, 3)))     # (2, 3)
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import tensorflow as tf


@functools.lru_cache(maxsize=None)
def call_signature(cls: type) -> tuple[str, bool, bool, Any, bool]:
    """(first argument name, accepts training, accepts mask, training default, has **kwargs)."""
    params = list(inspect.signature(cls.call).parameters.values())[1:]
    names = {p.name: p for p in params}
    first = params[0].name if params else "inputs"
    var_kw = any(p.kind == p.VAR_KEYWORD for p in params)
    training = names.get("training")
    default = None if training is None or training.default is inspect.Parameter.empty else training.default
    return first, training is not None, "mask" in names, default, var_kw


@functools.lru_cache(maxsize=None)
def build_parameters(cls: type) -> tuple[str, ...]:
    params = list(inspect.signature(cls.build).parameters.values())[1:]
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def naming_errors(init: Any) -> Any:
    @functools.wraps(init)
    def init_naming_errors(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            init(self, *args, **kwargs)
        except (ValueError, TypeError) as error:
            if getattr(error, "_tfkit_named", False):
                raise
            label = f"{type(self).__name__} '{self.name}'" if self.name else type(self).__name__
            if str(error).startswith(label):  # the layer's own check named it already
                raise
            named = type(error)(f"{label}: {error}")
            named._tfkit_named = True
            raise named from error

    return init_naming_errors


def marking_built(build: Any) -> Any:
    @functools.wraps(build)
    def build_and_mark(self: Any, *args: Any, **kwargs: Any) -> None:
        with self._path_scope():  # as Keras 3: what build creates lies below the layer's path, fixed now
            build(self, *args, **kwargs)
        self.built = True
        if self._build_shapes is None and args:
            self._set_build_shapes(args[0])

    return build_and_mark


def shape_tuple(value: Any) -> Any:
    shape = getattr(value, "shape", None)
    if shape is None:
        return value
    shape = tf.TensorShape(shape)
    if shape.rank is None:
        return None
    return tuple(shape.as_list())
