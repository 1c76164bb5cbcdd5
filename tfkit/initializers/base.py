"""The ``Initializer`` base class and the helpers every initializer uses (shapes, dtypes, seeds, fans).

class Halves(Initializer):
    def __call__(self, shape, dtype=None): return tf.fill(_as_shape(shape, "Halves"), 0.5)
compute_fans((3, 3, 16, 32))     # (144, 288)
"""

from __future__ import annotations

import random as _py_random
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import registry

_MAX_SEED = 2**31 - 1

# ----------------------------------------------------------------- helpers


def compute_fans(
    shape: Sequence[int], input_axes: Sequence[int] | None = None, output_axes: Sequence[int] | None = None
) -> tuple[int, int]:
    """Computes the number of input and output units for a weight shape, Keras's rule.

    With both `input_axes` and `output_axes`, the fans are the products of those
    axes' sizes. Otherwise scalars count 1, vectors use their length for both,
    matrices are `(inputs, outputs)`, and convolution kernels
    `(*spatial, in, out)` multiply both by the receptive field size
    `prod(spatial)`.

    Args:
        shape: The weight's shape, a sequence of integers.
        input_axes: Optional list of integers, the axes of `shape` whose sizes multiply into
            `fan_in` (an `EinsumDense` kernel `(in, heads, dim)`: `[0]`). Used only
            together with `output_axes`. Defaults to `None`.
        output_axes: Optional list of integers, the axes whose sizes multiply into
            `fan_out` (`[1, 2]` for the kernel above). Defaults to `None`.

    Returns:
        A tuple of two integers, `(fan_in, fan_out)`.

    Example:
        >>> tfkit.initializers.compute_fans((3, 3, 16, 32))
        (144, 288)
        >>> tfkit.initializers.compute_fans((8, 4, 16), input_axes=[0], output_axes=[1, 2])
        (8, 64)
    """
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return int(np.prod([shape[a] for a in input_axes])), int(np.prod([shape[a] for a in output_axes]))
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    if len(shape) == 2:
        return int(shape[0]), int(shape[1])
    receptive_field = int(np.prod(shape[:-2]))
    return int(shape[-2]) * receptive_field, int(shape[-1]) * receptive_field


def _as_shape(shape: Any, who: str) -> tuple[int, ...]:
    try:
        dims = tf.TensorShape(shape).as_list()
    except (TypeError, ValueError) as error:
        raise ValueError(f"{who} expected a shape such as (3, 4), got {shape!r}") from error
    if any(d is None for d in dims):
        raise ValueError(f"{who} needs a fully known shape, got {tuple(dims)}")
    return tuple(int(d) for d in dims)


def _as_dtype(dtype: Any, who: str, floating: bool = False) -> tf.DType:
    try:
        dtype = tf.as_dtype(dtype or "float32")
    except TypeError as error:
        raise ValueError(f"{who} expected a dtype such as 'float32', got {dtype!r}") from error
    if floating and not dtype.is_floating:
        raise ValueError(f"{who} draws random values and needs a floating dtype, got {dtype.name}")
    return dtype


def _check_seed(seed: Any, who: str) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{who} expected seed to be an int or None, got {type(seed).__name__}: {seed!r}")
    return int(seed)


def _stateless_seed(seed: int | None) -> tf.Tensor:
    """The shape-(2,) seed for a stateless op: fixed for an int, fresh for None."""
    if seed is None:
        seed = _py_random.randint(0, _MAX_SEED)
    return tf.constant([seed, 0], dtype=tf.int64)


def _plain(value: Any) -> Any:
    """A JSON-able copy of a number, array or tensor."""
    if isinstance(value, (tf.Tensor, tf.Variable)):
        value = value.numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value


# ------------------------------------------------------------------- bases


@registry.base("initializers")
class Initializer:
    """Initializer base class: all initializers inherit from this class.

    An initializer is called as `initializer(shape, dtype=None)` and returns a tensor
    of that shape and dtype. Subclasses implement `__call__` and, when they take
    arguments, `get_config`; `from_config` is `cls(**config)`, and `clone()` makes a
    fresh copy from the config. Randomness in the built-in initializers uses stateless
    TensorFlow ops only; calls are meant to run eagerly (`add_weight` calls
    initializers under `tf.init_scope()`), because a seed drawn while a `tf.function`
    is being traced becomes a constant of that graph.

    Example:
        >>> class ExampleRandomNormal(tfkit.initializers.Initializer):
        ...     def __init__(self, mean, stddev):
        ...         self.mean = mean
        ...         self.stddev = stddev
        ...     def __call__(self, shape, dtype=None):
        ...         return tf.random.normal(shape, mean=self.mean, stddev=self.stddev,
        ...                                 dtype=dtype or "float32")
        ...     def get_config(self):
        ...         return {"mean": self.mean, "stddev": self.stddev}
        >>> initializer = ExampleRandomNormal(0.0, 1.0)
        >>> initializer((2, 3)).shape
        TensorShape([2, 3])
        >>> initializer.clone().get_config()
        {'mean': 0.0, 'stddev': 1.0}
    """

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(shape, dtype=None)")

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Initializer":
        return cls(**config)

    def clone(self) -> "Initializer":
        return type(self).from_config(self.get_config())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class _RandomInitializer(Initializer):
    def __init__(self, seed: int | None = None) -> None:
        self.seed = _check_seed(seed, type(self).__name__)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed}
