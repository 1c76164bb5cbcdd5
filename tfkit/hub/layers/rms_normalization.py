"""``RMSNormalization``: KerasHub's root-mean-square normalization with a learned scale.

    norm = RMSNormalization(input_dim=64)
    y = norm(x)            # x / sqrt(mean(x ** 2, axis=-1) + 1e-6) * scale, in float32

KerasHub creates the ``scale`` weight in the constructor (the layer needs
``input_dim``) and computes in float32 whatever the input dtype.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.saving import register_keras_serializable

_EPSILON = 1e-6


@register_keras_serializable(package="keras_hub")
class RMSNormalization(Layer):
    """Root Mean Square (RMS) Normalization layer.

    Divides the input by the root mean square of its last axis (plus
    `1e-6`) and multiplies by a learned `scale` of shape `(input_dim,)`,
    initialized to ones. The output is float32. KerasHub's constructor takes
    only `input_dim`, and its config holds `input_dim`, `trainable` and
    `dtype` (no `name`); Keras then cannot rebuild the layer from that config
    (its constructor refuses `trainable`). tfkit's constructor also takes the
    base layer arguments, so the same config rebuilds it.

    Args:
        input_dim: Integer, the size of the last input axis.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `trainable` (tfkit only: KerasHub's constructor takes none).

    Call arguments:
        x: Input tensor `(..., input_dim)`.

    Returns:
        The normalized and scaled tensor, of the input's shape, float32.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> norm = keras_hub.layers.RMSNormalization(input_dim=2)
        >>> np.round(norm(np.array([[3.0, 4.0]])).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """

    def __init__(self, input_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.scale = self.add_weight(name="scale", shape=(input_dim,), initializer="ones")

    def call(self, x: tf.Tensor) -> tf.Tensor:
        x = tf.cast(x, tf.float32)
        inverse_rms = tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis=-1, keepdims=True) + _EPSILON)
        return (x * inverse_rms) * tf.cast(self.scale, tf.float32)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        return {"input_dim": self.input_dim, "trainable": config["trainable"], "dtype": config["dtype"]}

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
