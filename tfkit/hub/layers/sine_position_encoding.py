"""``SinePositionEncoding``: the fixed sinusoidal position encoding of "Attention Is All You Need", KerasHub's.

encodings = SinePositionEncoding()(token_embeddings)          # (batch, length, dim), no weights
step = SinePositionEncoding()(x, start_index=index)            # cached decoding, one position
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SinePositionEncoding(Layer):
    """Sinusoidal position encodings: sine on even features, cosine on odd ones, wavelengths up to `max_wavelength`.

    Feature pair `2i, 2i + 1` of position `p` is `sin(p / w**(2i / d))` and
    `cos(p / w**(2i / d))` with `w = max_wavelength` and `d` the feature
    size. Only the input's shape is used; add the output to the token
    embeddings. No weights.

    Args:
        max_wavelength: The longest wavelength. Defaults to `10000`.
        **kwargs: Layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor `(..., length, dim)`; its shape sets the output's.
        start_index: The position of the first row (cached decoding).
            Defaults to `0`.
        positions: Explicit positions `(length,)` or `(batch, length)`
            instead of `start_index + range(length)`. Defaults to `None`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> encoding = keras_hub.layers.SinePositionEncoding()(np.zeros((1, 3, 4), "float32"))
        >>> np.round(encoding[0, 1].numpy(), 4)  # position 1: sin(1), cos(1), sin(1/100), cos(1/100)
        array([0.8415, 0.5403, 0.01  , 1.    ], dtype=float32)
    """

    def __init__(self, max_wavelength: float = 10000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_wavelength = max_wavelength
        self.built = True

    def call(self, inputs: tf.Tensor, start_index: Any = 0, positions: Any = None) -> tf.Tensor:
        dtype = self.compute_dtype
        shape = tf.shape(inputs)
        length, size = shape[-2], shape[-1]
        if positions is None:
            positions = tf.cast(tf.range(length) + tf.cast(start_index, tf.int32), dtype)
        positions = tf.cast(positions, dtype)
        if positions.shape.rank == 1:
            positions = positions[tf.newaxis]
        features = tf.range(size)
        timescales = tf.pow(
            tf.cast(1 / self.max_wavelength, dtype), tf.cast(2 * (features // 2), dtype) / tf.cast(size, dtype)
        )
        angles = tf.einsum("bi,j->bij", positions, timescales)
        odd = tf.cast(features % 2, dtype)
        encodings = tf.sin(angles) * (1 - odd) + tf.cos(angles) * odd
        return tf.broadcast_to(encodings, shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(max_wavelength=self.max_wavelength)
        return config
