"""``Phi3SuScaledRotaryEmbedding``: Phi-3's long-context ("su", "longrope") rotary position embedding.

    rope = Phi3SuScaledRotaryEmbedding(inverese_freq_short_factor=short, inverese_freq_long_factor=long,
                                       max_sequence_length=131072, pretraining_sequence_length=4096)
    query = rope(query, start_index=cache_index)          # (batch, length, heads, head_dim)

Each rotary frequency is divided by a per-frequency factor: the long factors once the
positions reach past ``pretraining_sequence_length`` (the last position of the call
decides, as in KerasHub and Phi-3's reference code), the short ones before; the cosines
and sines are multiplied by ``sqrt(1 + log(s) / log(pretraining_sequence_length))``,
``s = max_sequence_length / pretraining_sequence_length`` (1 when ``s <= 1``).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import tensorflow as tf

from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.saving import register_keras_serializable


def embedding_scale(max_sequence_length: int, pretraining_sequence_length: int) -> float:
    """The factor of the cosines and sines: `sqrt(1 + log(s) / log(pretraining))`, 1 for `s <= 1`.

    Args:
        max_sequence_length: The longest sequence the model is used with.
        pretraining_sequence_length: The sequence length it was pretrained with.

    Returns:
        A Python float.

    Example:
        >>> from tfkit.hub.models.phi3.phi3_rotary_embedding import embedding_scale
        >>> embedding_scale(4096, 4096), round(embedding_scale(131072, 4096), 4)
        (1.0, 1.1902)
    """
    scaling = max_sequence_length / pretraining_sequence_length
    if scaling <= 1.0:
        return 1.0
    return math.sqrt(1 + math.log(scaling) / math.log(pretraining_sequence_length))


@register_keras_serializable(package="keras_hub")
class Phi3SuScaledRotaryEmbedding(RotaryEmbedding):
    """SuRotary positional encoding layer: Phi-3's rotary embedding with long and short frequency factors.

    A `RotaryEmbedding` whose inverse frequencies are divided, one factor
    each, by `inverese_freq_long_factor` when the call's last position is at
    or past `pretraining_sequence_length`, else by
    `inverese_freq_short_factor`, and whose cosines and sines are scaled by
    `embedding_scale(max_sequence_length, pretraining_sequence_length)`. The
    numbers are KerasHub's (whose argument names, misspelling included, are
    kept). With explicit `positions` (which KerasHub's layer cannot take), the
    largest position decides between the factors.

    Args:
        inverese_freq_short_factor: The `rotary_dim // 2` factors used within
            the pretraining length.
        inverese_freq_long_factor: The `rotary_dim // 2` factors used past it.
        max_sequence_length: Integer, the longest sequence the model is used
            with. Defaults to `4096`.
        pretraining_sequence_length: Integer, the sequence length the model
            was pretrained with. Defaults to `4096`.
        max_wavelength: Integer, the longest wavelength (RoPE's theta).
            Defaults to `10000`.
        **kwargs: `RotaryEmbedding`'s other arguments and base layer keyword
            arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: The tensor to rotate, `(batch, sequence, ..., features)`.
        start_index: An int or int tensor, the position of the first step.
            Defaults to `0`.
        positions: Optional positions `(sequence,)` or `(batch, sequence)`.

    Returns:
        The rotated tensor, of the input's shape.

    Example:
        >>> from tfkit.hub.models.phi3.phi3_rotary_embedding import Phi3SuScaledRotaryEmbedding
        >>> rope = Phi3SuScaledRotaryEmbedding([1.0], [2.0], max_sequence_length=8, pretraining_sequence_length=4)
        >>> x = np.array([[[1.0, 0.0]]], "float32")
        >>> np.round(rope(x, start_index=3).numpy(), 4)    # position 3: angle 3 / 1, the short factor
        array([[[-1.2125,  0.1728]]], dtype=float32)
        >>> np.round(rope(x, start_index=5).numpy(), 4)    # position 5, past 4 tokens: angle 5 / 2
        array([[[-0.9812,  0.733 ]]], dtype=float32)
    """

    def __init__(
        self,
        inverese_freq_short_factor: Sequence[float],
        inverese_freq_long_factor: Sequence[float],
        max_sequence_length: int = 4096,
        pretraining_sequence_length: int = 4096,
        max_wavelength: int = 10000,
        **kwargs: Any,
    ) -> None:
        super().__init__(max_wavelength=max_wavelength, **kwargs)
        self.inverese_freq_short_factor = list(inverese_freq_short_factor)
        self.inverese_freq_long_factor = list(inverese_freq_long_factor)
        self.max_sequence_length = max_sequence_length
        self.pretraining_sequence_length = pretraining_sequence_length
        self.embedding_scaling_factor = embedding_scale(max_sequence_length, pretraining_sequence_length)

    def _cos_sin(self, inputs: tf.Tensor, start_index: Any, positions: Any) -> tuple[tf.Tensor, tf.Tensor]:
        rank = inputs.shape.rank
        rotary_dim = inputs.shape[-1] if inputs.shape[-1] is not None else tf.shape(inputs)[-1]
        if positions is None:
            positions = tf.range(tf.shape(inputs)[1], dtype=tf.float32) + tf.cast(start_index, tf.float32)
        positions = tf.cast(positions, tf.float32)
        past_pretraining = tf.reduce_max(positions) + 1.0 > float(self.pretraining_sequence_length)
        factor = tf.where(
            past_pretraining,
            tf.constant(self.inverese_freq_long_factor, tf.float32),
            tf.constant(self.inverese_freq_short_factor, tf.float32),
        )
        inverse_frequency = self._inverse_frequency(rotary_dim) / factor
        if positions.shape.rank == 1:
            positions = positions[tf.newaxis]
        frequency = tf.einsum("bi,j->bij", positions, inverse_frequency)
        embedding = tf.concat([frequency, frequency], axis=-1)
        for axis in range(2, rank - 1):
            embedding = tf.expand_dims(embedding, axis)
        cos = tf.cast(tf.cos(embedding) * self.embedding_scaling_factor, self.compute_dtype)
        sin = tf.cast(tf.sin(embedding) * self.embedding_scaling_factor, self.compute_dtype)
        return cos, sin

    def get_config(self) -> dict[str, Any]:
        """`RotaryEmbedding`'s config and the four Phi-3 arguments, under KerasHub's keys.

        Returns:
            A dict, serializable to JSON.
        """
        return {
            **super().get_config(),
            "max_sequence_length": self.max_sequence_length,
            "pretraining_sequence_length": self.pretraining_sequence_length,
            "inverese_freq_short_factor": self.inverese_freq_short_factor,
            "inverese_freq_long_factor": self.inverese_freq_long_factor,
        }
