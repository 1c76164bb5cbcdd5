"""``LlamaRotaryEmbedding``: rotary position encoding with Llama 3.1's frequency smoothing.

    rope = LlamaRotaryEmbedding(max_wavelength=500000, frequency_adjustment_factor=8.0, low_freq_factor=1.0,
                                high_freq_factor=4.0, pretraining_sequence_length=8192)
    query = rope(query, start_index=cache_index)          # (batch, length, heads, head_dim)

Llama 3.1 and later stretch the long wavelengths: a frequency whose
wavelength exceeds ``pretraining_sequence_length / low_freq_factor`` is
divided by ``frequency_adjustment_factor``, one shorter than
``pretraining_sequence_length / high_freq_factor`` is kept, and those in
between are interpolated smoothly. With none of the four set it is plain RoPE.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.rotary_embedding import RotaryEmbedding
from tfkit.saving import register_keras_serializable

_SCALING_ARGUMENTS = (
    "low_freq_factor",
    "high_freq_factor",
    "frequency_adjustment_factor",
    "pretraining_sequence_length",
)
# Keys KerasHub's get_config writes that are not this class's arguments (its base class's), and its name for one
_KERAS_HUB_BASE_KEYS = (
    "scaling_factor",
    "rope_type",
    "beta_fast",
    "beta_slow",
    "original_max_position_embeddings",
    "truncate",
    "denominator_dim",
)


@register_keras_serializable(package="keras_hub")
class LlamaRotaryEmbedding(RotaryEmbedding):
    """Rotary positional encoding layer, with Llama 3.1's scaling of the inverse frequencies.

    A `RotaryEmbedding` (feature pairs rotated by `position * frequency`)
    whose frequencies follow Llama: `1 / max_wavelength ** (2k / d)`, then,
    when the four Llama 3.1 arguments are set, the long wavelengths divided
    by `frequency_adjustment_factor` with a smooth transition between
    `pretraining_sequence_length / high_freq_factor` and
    `pretraining_sequence_length / low_freq_factor`. The numbers are
    KerasHub's.

    `position_scaling_factor` divides the positions (linear interpolation),
    as KerasHub documents it (see "Differences from KerasHub").

    Args:
        max_wavelength: Integer, the longest wavelength (RoPE's theta).
            Defaults to `10000`.
        position_scaling_factor: Float, positions are divided by it.
            Defaults to `1.0`.
        sequence_axis: Integer, the sequence axis of the input. Defaults to
            `1`.
        feature_axis: Integer, the feature axis of the input. Defaults to
            `-1`.
        frequency_adjustment_factor: Float, what long-wavelength
            frequencies are divided by (Llama 3.1's `factor`). Defaults to
            `None`.
        low_freq_factor: Float, sets the wavelength above which frequencies
            are divided in full. Defaults to `None`.
        high_freq_factor: Float, sets the wavelength below which frequencies
            are kept. Defaults to `None`.
        pretraining_sequence_length: Integer, the context length the model
            was pretrained with (Llama 3.1's
            `original_max_position_embeddings`). Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: The tensor to rotate, `(batch, sequence, ..., features)`.
        start_index: An int or int tensor, the position of the first step.
            Defaults to `0`.
        positions: Optional positions `(sequence,)` or `(batch, sequence)`
            instead of `start_index, start_index + 1, ...`.

    Returns:
        The rotated tensor, of the input's shape.

    Raises:
        ValueError: If some but not all of `frequency_adjustment_factor`,
            `low_freq_factor`, `high_freq_factor` and
            `pretraining_sequence_length` are set.

    Example:
        >>> from tfkit.hub.models.llama.llama_rotary_embedding import LlamaRotaryEmbedding
        >>> rope = LlamaRotaryEmbedding(max_wavelength=10000)
        >>> np.round(rope(np.array([[[1.0, 0.0]]], "float32"), start_index=1).numpy(), 4)
        array([[[0.5403, 0.8415]]], dtype=float32)
    """

    def __init__(
        self,
        max_wavelength: int = 10000,
        position_scaling_factor: float = 1.0,
        sequence_axis: int = 1,
        feature_axis: int = -1,
        frequency_adjustment_factor: float | None = None,
        low_freq_factor: float | None = None,
        high_freq_factor: float | None = None,
        pretraining_sequence_length: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            max_wavelength=max_wavelength,
            scaling_factor=position_scaling_factor,
            sequence_axis=sequence_axis,
            feature_axis=feature_axis,
            **kwargs,
        )
        self.position_scaling_factor = position_scaling_factor
        self.frequency_adjustment_factor = frequency_adjustment_factor
        self.low_freq_factor = low_freq_factor
        self.high_freq_factor = high_freq_factor
        self.pretraining_sequence_length = pretraining_sequence_length
        given = [getattr(self, name) is not None for name in _SCALING_ARGUMENTS]
        if any(given) and not all(given):
            raise ValueError(
                f"LlamaRotaryEmbedding layer '{self.name}': either all of `low_freq_factor`, `high_freq_factor`, "
                f"`frequency_adjustment_factor` and `pretraining_sequence_length` should be set, or none; got "
                + ", ".join(f"{name}={getattr(self, name)!r}" for name in _SCALING_ARGUMENTS)
            )

    def _inverse_frequency(self, rotary_dim: Any) -> tf.Tensor:
        exponent = tf.range(0, rotary_dim, 2, dtype=tf.float32) / tf.cast(rotary_dim, tf.float32)
        inverse = 1.0 / tf.pow(tf.cast(self.max_wavelength, tf.float32), exponent)
        if self.low_freq_factor is not None:
            inverse = self._smoothed(inverse)
        if self.position_scaling_factor != 1.0:  # dividing the frequencies divides the positions
            inverse = inverse / tf.cast(self.position_scaling_factor, tf.float32)
        return inverse

    def _smoothed(self, inverse: tf.Tensor) -> tf.Tensor:
        """Llama 3.1: long wavelengths divided by the factor, the middle band interpolated."""
        length = self.pretraining_sequence_length
        factor = self.frequency_adjustment_factor
        wavelength = 2 * math.pi / inverse
        long_limit = length / self.low_freq_factor
        short_limit = length / self.high_freq_factor
        adjusted = tf.where(wavelength > long_limit, inverse / factor, inverse)
        smooth = (length / wavelength - self.low_freq_factor) / (self.high_freq_factor - self.low_freq_factor)
        interpolated = (1 - smooth) * (adjusted / factor) + smooth * adjusted
        middle = tf.logical_and(wavelength >= short_limit, wavelength <= long_limit)
        return tf.where(middle, interpolated, adjusted)

    def get_config(self) -> dict[str, Any]:
        """The constructor's arguments (KerasHub's config names `pretraining_sequence_length`
        `original_max_embeddings` and adds its base class's keys, which its constructor refuses).

        Returns:
            A dict, serializable to JSON.
        """
        config = Layer.get_config(self)
        config.update(
            max_wavelength=self.max_wavelength,
            position_scaling_factor=self.position_scaling_factor,
            sequence_axis=self.sequence_axis,
            feature_axis=self.feature_axis,
            frequency_adjustment_factor=self.frequency_adjustment_factor,
            low_freq_factor=self.low_freq_factor,
            high_freq_factor=self.high_freq_factor,
            pretraining_sequence_length=self.pretraining_sequence_length,
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "LlamaRotaryEmbedding":
        """Rebuilds the layer from tfkit's config or from KerasHub's (which KerasHub itself cannot rebuild).

        Args:
            config: A dict, as `get_config` (or KerasHub's) returns it.

        Returns:
            A new layer.
        """
        config = {key: value for key, value in config.items() if key not in _KERAS_HUB_BASE_KEYS}
        if "original_max_embeddings" in config:
            config.setdefault("pretraining_sequence_length", config.pop("original_max_embeddings"))
        return super().from_config(config)
