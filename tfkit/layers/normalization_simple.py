"""Normalizations without batch statistics: ``UnitNormalization`` and ``RMSNormalization``.

y = tfkit.layers.UnitNormalization()(x)           # each row scaled to L2 norm 1
y = tfkit.layers.RMSNormalization()(x)            # x / rms(x) * learned scale
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer

__all__ = ["UnitNormalization", "RMSNormalization"]


def _axes(axis: int | Sequence[int], rank: int, who: str) -> list[int]:
    axes = [axis] if isinstance(axis, int) else list(axis)
    for a in axes:
        if not isinstance(a, int) or isinstance(a, bool) or not -rank <= a < rank:
            raise ValueError(
                f"{who} expected axis entries in [{-rank}, {rank}) for inputs of rank {rank}, got {axis!r}"
            )
    return sorted(a % rank for a in axes)


@registry.builtin("layers")
class UnitNormalization(Layer):
    """Unit normalization layer.

    Normalizes each slice of the input along `axis` to unit L2 norm:
    `x / sqrt(sum(x ** 2, axis))`. Norms below `1e-12` count as `1e-12`, so
    an all-zero slice stays zero. It has no weights; masks pass through.

    Args:
        axis: Integer or list/tuple of integers, the axis or axes to
            normalize across. Defaults to `-1`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of any rank.

    Input shape:
        Arbitrary.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If (at build time) an entry of `axis` is not an int or is
            out of range for the input's rank.

    Example:
        >>> layer = tfkit.layers.UnitNormalization()
        >>> layer(np.array([[3.0, 4.0], [0.0, 2.0]], dtype="float32")).numpy()
        array([[0.6, 0.8],
               [0. , 1. ]], dtype=float32)
    """

    def __init__(self, axis: int | Sequence[int] = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis if isinstance(axis, int) else list(axis)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        _axes(self.axis, len(input_shape), f"UnitNormalization layer '{self.name}'")

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        squares = tf.reduce_sum(tf.square(inputs), axis=self.axis, keepdims=True)
        return inputs * tf.minimum(tf.math.rsqrt(squares), tf.cast(1e12, inputs.dtype))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "axis": self.axis}


@registry.builtin("layers")
class RMSNormalization(Layer):
    """Root mean square normalization layer (Zhang and Sennrich, 2019).

    Normalizes each sample by the root mean square of its values along
    `axis`, then multiplies by a learned `scale` (initialized to ones):
    `x * rsqrt(mean(x ** 2, axis) + epsilon) * scale`. Unlike
    `LayerNormalization` it does not center the values and has no offset.
    `scale` has the shape of the normalized axes.

    Args:
        axis: Integer or list/tuple of integers, the axis or axes to
            normalize across. Defaults to `-1`.
        epsilon: Small float added to the mean square to avoid dividing by
            zero. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of any rank.

    Input shape:
        Arbitrary. The normalized axes must have known sizes.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If (at build time) an entry of `axis` is not an int, is
            out of range, or names an axis of unknown size.

    Example:
        >>> layer = tfkit.layers.RMSNormalization()
        >>> np.round(layer(np.array([[1.0, 7.0]], dtype="float32")).numpy(), 4)
        array([[0.2, 1.4]], dtype=float32)
        >>> layer.scale.shape
        TensorShape([2])
    """

    def __init__(self, axis: int | Sequence[int] = -1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis if isinstance(axis, int) else list(axis)
        self.epsilon = epsilon

    def build(self, input_shape: Any) -> None:
        axes = _axes(self.axis, len(input_shape), f"RMSNormalization layer '{self.name}'")
        shape = tuple(input_shape[a] for a in axes)
        if any(d is None for d in shape):
            raise ValueError(
                f"RMSNormalization layer '{self.name}' needs known sizes on axis {self.axis}, "
                f"got input shape {tuple(input_shape)}"
            )
        self._tfkit_axes = axes
        self._tfkit_rank = len(input_shape)
        self.axis = sorted(self.axis) if isinstance(self.axis, list) else [self.axis]  # as Keras reports it
        self.scale = self.add_weight(name="scale", shape=shape, initializer="ones")

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        axes = self._tfkit_axes
        mean_square = tf.reduce_mean(tf.square(inputs), axis=axes, keepdims=True)
        broadcast = [inputs.shape[a] if a in axes else 1 for a in range(self._tfkit_rank)]
        broadcast = [1 if d is None else d for d in broadcast]
        scale = tf.reshape(tf.cast(self.scale, inputs.dtype), broadcast)
        return inputs * tf.math.rsqrt(mean_square + self.epsilon) * scale

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {**Layer.get_config(self), "axis": self.axis, "epsilon": self.epsilon}
