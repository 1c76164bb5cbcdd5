"""``AlibiBias``: attention with linear biases (ALiBi, Press et al., 2021), KerasHub's (Bloom, Falcon).

scores = AlibiBias()(attention_scores)     # (batch, heads, query, key): each head's distance penalty added
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.saving import register_keras_serializable


def alibi_slopes(num_heads: int, alibi_bias_max: float = 8) -> list[float]:
    """The heads' slopes: a geometric sequence for a power of two heads, interleaved from twice as many otherwise.

    Example:
        >>> from tfkit.hub.layers.alibi_bias import alibi_slopes
        >>> alibi_slopes(4)
        [0.25, 0.0625, 0.015625, 0.00390625]
    """

    def geometric(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - math.log2(alibi_bias_max))))
        return [start * start**i for i in range(n)]

    if math.log2(num_heads).is_integer():
        return geometric(num_heads)
    below = 2 ** math.floor(math.log2(num_heads))
    return geometric(below) + alibi_slopes(2 * below, alibi_bias_max)[0::2][: num_heads - below]


@register_keras_serializable(package="keras_hub")
class AlibiBias(Layer):
    """Adds ALiBi's linear distance biases to attention scores: `slope_h * (j - (key_length - 1))` at key `j`.

    Each head gets a fixed slope (`alibi_slopes`); the bias grows linearly
    with the key's distance from the last key. No weights.

    Args:
        alibi_bias_max: Sets the slopes: the first head's is
            `2 ** (-alibi_bias_max / num_heads)`. Defaults to `8`.
        **kwargs: Layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        attention_scores: `(batch, num_heads, query_length, key_length)`.

    Returns:
        The scores with the biases added, of the same shape.

    Raises:
        ValueError: On call, if the scores are not 4-D.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> scores = keras_hub.layers.AlibiBias()(np.zeros((1, 2, 1, 3), "float32"))
        >>> scores[0, :, 0].numpy()  # slopes 1/16 and 1/256 times distances -2, -1, 0
        array([[-0.125     , -0.0625    ,  0.        ],
               [-0.0078125 , -0.00390625,  0.        ]], dtype=float32)
    """

    def __init__(self, alibi_bias_max: float = 8, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alibi_bias_max = alibi_bias_max

    def call(self, attention_scores: tf.Tensor) -> tf.Tensor:
        attention_scores = tf.convert_to_tensor(attention_scores)
        if attention_scores.shape.rank != 4:
            raise ValueError(
                f"AlibiBias layer '{self.name}' expected `attention_scores` of shape "
                f"(batch_size, num_heads, query_length, key_length), got shape {tuple(attention_scores.shape)}"
            )
        num_heads, key_length = attention_scores.shape[1], tf.shape(attention_scores)[-1]
        slopes = tf.constant(alibi_slopes(num_heads, self.alibi_bias_max), dtype=self.compute_dtype)
        distances = tf.cast(tf.range(1 - key_length, 1), self.compute_dtype)
        bias = slopes[:, None] * distances[None, :]
        return attention_scores + tf.cast(bias[None, :, None, :], attention_scores.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(alibi_bias_max=self.alibi_bias_max)
        return config
