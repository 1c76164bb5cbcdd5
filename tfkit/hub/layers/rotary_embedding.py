"""``RotaryEmbedding``: rotary position encoding (RoPE) of queries and keys (Llama, Mistral, Qwen, Gemma).

    rope = RotaryEmbedding(max_wavelength=10000)
    query = rope(query)                              # (batch, length, heads, head_dim), rotated by position
    query = rope(query, start_index=cache_index)     # cached decoding: positions from cache_index

Each pair of features ``(x[k], x[k + d/2])`` is rotated by the angle
``position * inverse_frequency[k]``, ``inverse_frequency[k] =
max_wavelength ** (-2k / d)``, scaled as ``rope_type`` says (``"linear"``,
``"dynamic"``, ``"yarn"``). No weights.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RotaryEmbedding(Layer):
    """Rotary positional encoding layer.

    Encodes absolute positions by rotating feature pairs with sines and
    cosines of geometrically increasing wavelengths (RoFormer, Su et al.,
    2021). The input needs a sequence axis and a feature axis (an even
    number of features); typically `(batch, sequence, features)` or
    `(batch, sequence, heads, features)`. The output has the input's shape.

    Args:
        max_wavelength: Integer, the longest wavelength of the sines and
            cosines. Defaults to `10000`.
        scaling_factor: Float, positions are divided by it (`"linear"`, and
            the base of `"dynamic"` and `"yarn"` scaling). Defaults to `1.0`.
        rope_type: The position scaling: `"linear"` (the default),
            `"dynamic"` or `"yarn"`.
        beta_fast: Float, YaRN's fast boundary (`rope_type="yarn"` only).
            Defaults to `32.0`.
        beta_slow: Float, YaRN's slow boundary (`rope_type="yarn"` only).
            Defaults to `1.0`.
        original_max_position_embeddings: Integer, the context length YaRN
            extends (`rope_type="yarn"` only). Defaults to `4096`.
        truncate: Whether YaRN rounds its correction range to whole
            dimensions. Defaults to `True`.
        sequence_axis: Integer, the sequence axis of the input. Defaults to
            `1`.
        feature_axis: Integer, the feature axis of the input. Defaults to
            `-1`.
        denominator_dim: Optional integer used instead of the rotary dimension
            in the frequency exponent. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: The tensor to rotate.
        start_index: An int or int tensor, the position of the first step.
            Defaults to `0`.
        positions: Optional tensor `(sequence_length,)` or
            `(batch_size, sequence_length)` of positions, instead of
            `start_index, start_index + 1, ...`.

    Returns:
        The rotated tensor, of the input's shape and the compute dtype.

    Raises:
        ValueError: If an axis is out of range, both axes are the same, or the
            rotary dimension is odd.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> rope = keras_hub.layers.RotaryEmbedding()
        >>> x = np.ones((1, 3, 2, 4), "float32")
        >>> y = rope(x)
        >>> y.shape, bool(np.allclose(y[0, 0], x[0, 0]))
        (TensorShape([1, 3, 2, 4]), True)
        >>> np.round(rope(np.array([[[1.0, 0.0]]]), start_index=1).numpy(), 4)
        array([[[0.5403, 0.8415]]], dtype=float32)
    """

    def __init__(
        self,
        max_wavelength: int = 10000,
        scaling_factor: float = 1.0,
        rope_type: str = "linear",
        beta_fast: float = 32.0,
        beta_slow: float = 1.0,
        original_max_position_embeddings: int = 4096,
        truncate: bool = True,
        sequence_axis: int = 1,
        feature_axis: int = -1,
        denominator_dim: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.max_wavelength = max_wavelength
        self.sequence_axis = sequence_axis
        self.feature_axis = feature_axis
        self.scaling_factor = scaling_factor
        self.rope_type = rope_type
        self.beta_fast = beta_fast
        self.beta_slow = beta_slow
        self.original_max_position_embeddings = original_max_position_embeddings
        self.truncate = truncate
        self.denominator_dim = denominator_dim
        self.built = True

    def _axes(self, rank: int) -> tuple[int, int]:
        who = f"RotaryEmbedding layer '{self.name}'"
        sequence_axis = self.sequence_axis + rank if self.sequence_axis < 0 else self.sequence_axis
        feature_axis = self.feature_axis + rank if self.feature_axis < 0 else self.feature_axis
        for label, given, axis in (
            ("sequence_axis", self.sequence_axis, sequence_axis),
            ("feature_axis", self.feature_axis, feature_axis),
        ):
            if not 0 <= axis < rank:
                raise ValueError(f"{who}: {label}={given} is out of range for inputs of rank {rank}")
        if sequence_axis == feature_axis:
            raise ValueError(f"{who}: sequence_axis and feature_axis must be different, both are {sequence_axis}")
        return sequence_axis, feature_axis

    def call(self, inputs: tf.Tensor, start_index: Any = 0, positions: Any = None) -> tf.Tensor:
        rank = inputs.shape.rank
        sequence_axis, feature_axis = self._axes(rank)
        rotary_dim = inputs.shape[feature_axis]
        if rotary_dim is not None and rotary_dim % 2 != 0:
            raise ValueError(
                f"RotaryEmbedding layer '{self.name}': the rotary dimension must be even, got {rotary_dim} "
                f"(axis {self.feature_axis} of inputs {tuple(inputs.shape)}): the features are rotated in two halves"
            )
        order = [a for a in range(rank) if a not in (feature_axis, sequence_axis)]
        order = [order[0], sequence_axis, *order[1:], feature_axis] if order else [sequence_axis, feature_axis]
        moved = tf.transpose(inputs, order)
        cos, sin = self._cos_sin(moved, start_index, positions)
        first, second = tf.split(moved, 2, axis=-1)
        rotated = moved * cos + tf.concat([-second, first], axis=-1) * sin
        inverse = [order.index(a) for a in range(rank)]
        return tf.transpose(rotated, inverse)

    def _cos_sin(self, inputs: tf.Tensor, start_index: Any, positions: Any) -> tuple[tf.Tensor, tf.Tensor]:
        """Cosines and sines, ``(1 or batch, sequence, 1, ..., features)``, for inputs ``(batch, sequence, ..., f)``."""
        rank = inputs.shape.rank
        rotary_dim = inputs.shape[-1] if inputs.shape[-1] is not None else tf.shape(inputs)[-1]
        inverse_frequency = self._inverse_frequency(rotary_dim)
        if positions is None:
            positions = tf.range(tf.shape(inputs)[1], dtype=tf.float32) + tf.cast(start_index, tf.float32)
        positions = tf.cast(positions, tf.float32)
        if positions.shape.rank == 1:
            positions = positions[tf.newaxis]
        frequency = tf.einsum("bi,j->bij", positions, inverse_frequency)
        embedding = tf.concat([frequency, frequency], axis=-1)
        for axis in range(2, rank - 1):
            embedding = tf.expand_dims(embedding, axis)
        cos = tf.cast(tf.cos(embedding), self.compute_dtype)
        sin = tf.cast(tf.sin(embedding), self.compute_dtype)
        if self.rope_type == "yarn":
            factor = tf.cast(0.1, self.compute_dtype) * tf.math.log(
                tf.cast(self.scaling_factor, self.compute_dtype)
            ) + tf.cast(1.0, self.compute_dtype)
            cos, sin = cos * factor, sin * factor
        return cos, sin

    def _inverse_frequency(self, rotary_dim: Any) -> tf.Tensor:
        index = tf.range(0, rotary_dim, 2, dtype=tf.float32)
        denominator = tf.cast(self.denominator_dim if self.denominator_dim is not None else rotary_dim, tf.float32)
        inverse = tf.pow(tf.cast(self.max_wavelength, tf.float32), -(index / denominator))
        if self.rope_type == "linear":
            return inverse / tf.cast(self.scaling_factor, tf.float32)
        if self.rope_type == "dynamic":
            exponent = tf.cast(rotary_dim, tf.float32) / tf.cast(tf.maximum(1, rotary_dim - 2), tf.float32)
            return inverse / tf.pow(tf.cast(self.scaling_factor, tf.float32), exponent)
        if self.rope_type == "yarn":
            return self._yarn_inverse_frequency(rotary_dim)
        return inverse

    def _yarn_inverse_frequency(self, rotary_dim: Any) -> tf.Tensor:
        base = tf.cast(self.max_wavelength, tf.float32)
        dim = tf.cast(rotary_dim, tf.float32)
        index = tf.range(0, rotary_dim, 2, dtype=tf.float32)
        position_frequency = tf.pow(base, index / dim)
        extrapolation = 1.0 / position_frequency
        interpolation = 1.0 / (tf.cast(self.scaling_factor, tf.float32) * position_frequency)
        max_position = tf.cast(self.original_max_position_embeddings, tf.float32)

        def correction_dim(rotations: float) -> tf.Tensor:
            rotations = tf.cast(rotations, tf.float32)
            return (dim * tf.math.log(max_position / (rotations * 2 * math.pi))) / (2 * tf.math.log(base))

        low, high = correction_dim(self.beta_fast), correction_dim(self.beta_slow)
        if self.truncate:
            low, high = tf.math.floor(low), tf.math.ceil(high)
        low = tf.maximum(low, 0.0)
        high = tf.minimum(high, tf.cast(rotary_dim - 1, tf.float32))
        half = tf.range(0, rotary_dim // 2, dtype=tf.float32)
        ramp = tf.clip_by_value((half - low) / tf.maximum(high - low, 0.001), 0.0, 1.0)
        extrapolation_factor = 1 - ramp
        return interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            max_wavelength=self.max_wavelength,
            scaling_factor=self.scaling_factor,
            rope_type=self.rope_type,
            beta_fast=self.beta_fast,
            beta_slow=self.beta_slow,
            original_max_position_embeddings=self.original_max_position_embeddings,
            truncate=self.truncate,
            sequence_axis=self.sequence_axis,
            feature_axis=self.feature_axis,
            denominator_dim=self.denominator_dim,
        )
        return config

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
