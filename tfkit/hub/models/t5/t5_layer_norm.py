"""``T5LayerNorm``: T5's scale-only root-mean-square norm, computed in the input's dtype (KerasHub's layer).

    norm = T5LayerNorm(epsilon=1e-6)
    y = norm(x)            # x / sqrt(mean(x ** 2, axis=-1) + epsilon) * weight

The class name is KerasHub's: Keras's weight files key the backbone's top-level
norms by it (``t5_layer_norm``), and its one weight is named ``weight``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig


class T5LayerNorm(DeclaredConfig, Layer):
    """T5's layer normalization: no mean subtracted, no bias, a learned `weight`.

    Divides the input by the root mean square of its last axis (plus
    `epsilon`) and multiplies by `weight`, initialized to ones. Unlike the
    other hub RMS norms it computes in the input's dtype, as KerasHub's.

    Args:
        epsilon: Added to the mean square before the root. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: A tensor `(..., features)`.

    Returns:
        The normalized tensor, of the input's shape.

    Example:
        >>> from tfkit.hub.models.t5.t5_layer_norm import T5LayerNorm
        >>> norm = T5LayerNorm(epsilon=0.0)
        >>> np.round(norm(np.array([[3.0, 4.0]], "float32")).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """

    def __init__(self, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.epsilon = epsilon

    def build(self, input_shape: Any) -> None:
        self.weight = self.add_weight(name="weight", shape=(input_shape[-1],), initializer="ones")

    def call(self, hidden_states: tf.Tensor) -> tf.Tensor:
        variance = tf.reduce_mean(tf.square(hidden_states), axis=-1, keepdims=True)
        return self.weight * (hidden_states * tf.math.rsqrt(variance + self.epsilon))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
