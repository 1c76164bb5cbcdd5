"""The initializers that make fixed values: ``Zeros``, ``Ones``, ``Constant`` and ``Identity``.

tfkit.initializers.Constant(2.0)((2, 2))          # a (2, 2) tensor of twos
tfkit.initializers.Identity(gain=3.0)((2, 3))     # 3 * eye(2, 3)
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.initializers.base import Initializer, _as_dtype, _as_shape, _plain

_KIND = "initializers"


@registry.builtin(_KIND, "zeros", "zero")
class Zeros(Initializer):
    """Initializer that generates tensors initialized to 0.

    Works for any dtype, integers and `bool` included. Also available as
    `tfkit.initializers.zeros` and under the names `"zeros"` and `"zero"`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, any dtype. Defaults to `"float32"`.

    Example:
        >>> initializer = tfkit.initializers.Zeros()
        >>> initializer(shape=(2, 2)).numpy()
        array([[0., 0.],
               [0., 0.]], dtype=float32)
        >>> initializer(shape=(3,), dtype="int32").numpy()
        array([0, 0, 0], dtype=int32)
    """

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        return tf.zeros(_as_shape(shape, "Zeros"), dtype=_as_dtype(dtype, "Zeros"))


@registry.builtin(_KIND, "ones", "one")
class Ones(Initializer):
    """Initializer that generates tensors initialized to 1.

    Works for any dtype, integers and `bool` included. Also available as
    `tfkit.initializers.ones` and under the names `"ones"` and `"one"`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, any dtype. Defaults to `"float32"`.

    Example:
        >>> initializer = tfkit.initializers.Ones()
        >>> initializer(shape=(2, 2)).numpy()
        array([[1., 1.],
               [1., 1.]], dtype=float32)
        >>> initializer(shape=(2,), dtype="bool").numpy()
        array([ True,  True])
    """

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        return tf.ones(_as_shape(shape, "Ones"), dtype=_as_dtype(dtype, "Ones"))


@registry.builtin(_KIND, "constant")
class Constant(Initializer):
    """Initializer that generates tensors with constant values.

    Every entry is `value`, cast to the requested dtype; an array `value` is broadcast
    to the requested shape. Also available as `tfkit.initializers.constant` and under
    the name `"constant"`.

    Args:
        value: A Python scalar, or an array or tensor broadcastable to the shapes the
            initializer is called with. Defaults to `0.0`.

    Call arguments:
        shape: The shape of the tensor to make: a tuple or list of integers, fully known.
        dtype: The dtype of the tensor, any dtype. Defaults to `"float32"`.

    Raises:
        ValueError: When called, if `value` cannot be broadcast to `shape`.

    Example:
        >>> initializer = tfkit.initializers.Constant(10.0)
        >>> initializer(shape=(2, 2)).numpy()
        array([[10., 10.],
               [10., 10.]], dtype=float32)
        >>> tfkit.initializers.Constant([1, 2])(shape=(2, 2), dtype="int32").numpy()
        array([[1, 2],
               [1, 2]], dtype=int32)
    """

    def __init__(self, value: Any = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        shape = _as_shape(shape, "Constant")
        value = tf.cast(tf.convert_to_tensor(self.value), _as_dtype(dtype, "Constant"))
        try:
            return tf.broadcast_to(value, shape)
        except (tf.errors.InvalidArgumentError, ValueError) as error:
            raise ValueError(
                f"Constant value of shape {tuple(value.shape)} cannot fill a weight of shape {shape}"
            ) from error

    def get_config(self) -> dict[str, Any]:
        return {"value": _plain(self.value)}


@registry.builtin(_KIND, "identity")
class Identity(Initializer):
    """Initializer that generates the identity matrix.

    The result is `gain * eye(rows, cols)`, and is only usable for 2D weights (a
    non-square shape gives a rectangular identity). Also available as
    `tfkit.initializers.identity`, `tfkit.initializers.IdentityInitializer` and under
    the name `"identity"`.

    Args:
        gain: A scalar, the multiplicative factor to apply to the identity matrix.
            Defaults to `1.0`.

    Call arguments:
        shape: The shape of the tensor to make: a 2D shape `(rows, cols)`.
        dtype: The dtype of the tensor, any dtype. Defaults to `"float32"`.

    Raises:
        ValueError: When called, if `shape` is not 2D.

    Example:
        >>> initializer = tfkit.initializers.Identity(gain=2.0)
        >>> initializer(shape=(2, 3)).numpy()
        array([[2., 0., 0.],
               [0., 2., 0.]], dtype=float32)
    """

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> tf.Tensor:
        shape = _as_shape(shape, "Identity")
        if len(shape) != 2:
            raise ValueError(f"Identity initializer needs a 2-D shape (rows, cols), got {shape}")
        dtype = _as_dtype(dtype, "Identity")
        return tf.cast(self.gain, dtype) * tf.eye(shape[0], shape[1], dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return {"gain": _plain(self.gain)}
