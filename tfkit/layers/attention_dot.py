"""Luong-style ``Attention`` and Bahdanau-style ``AdditiveAttention`` over ``[query, value(, key)]``.

attention = tfkit.layers.Attention()
context = attention([query, value])                       # (batch, Tq, dim)
context, scores = attention([query, value], return_attention_scores=True)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.base import registry
from tfkit.engine.layer import Layer

__all__ = ["Attention", "AdditiveAttention"]


@registry.builtin("layers")
class Attention(Layer):
    """Dot-product attention layer, a.k.a. Luong-style attention.

    The calculation follows the steps:

    1. Calculate attention scores using `query` and `key` with shape
       `(batch_size, Tq, Tv)` as a non-linear sum
       `scores = concat_score_weight * sum(tanh(query + key), axis=-1)` for
       `score_mode="concat"`, or a dot product `scores = query @ key^T`
       for `score_mode="dot"`.
    2. Use scores to calculate a softmax distribution with shape
       `(batch_size, Tq, Tv)`, after the value mask and the causal mask
       have hidden their positions.
    3. Use the softmax distribution to create a linear combination of
       `value` with shape `(batch_size, Tq, dim)`.

    Args:
        use_scale: If `True`, will create a scalar variable `scale` (starting
            at 1) to scale the attention scores. Defaults to `False`.
        score_mode: Function to use to compute attention scores, one of
            `{"dot", "concat"}`. `"dot"` refers to the dot product between
            the query and key vectors. `"concat"` refers to the hyperbolic
            tangent of the concatenation of the query and key vectors, with a
            learned scalar `concat_score_weight`. Defaults to `"dot"`.
        dropout: Float in `[0, 1)`. Fraction of the units to drop for the
            attention scores. Defaults to `0.0`.
        seed: A Python integer to use as random seed in case of `dropout`.
            Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: List of the following tensors: `query` of shape
            `(batch_size, Tq, dim)`, `value` of shape `(batch_size, Tv, dim)`
            and optionally `key` of shape `(batch_size, Tv, dim)`. If `key`
            is not given, `value` is used as both key and value.
        mask: List of the following tensors: `query_mask`, a boolean tensor
            of shape `(batch_size, Tq)` (the output is zero where it is
            `False`, and the output carries it), and `value_mask`, of shape
            `(batch_size, Tv)` (`False` hides that value position).
        training: Python boolean indicating whether the layer should behave
            in training mode (adding dropout to the attention weights) or in
            inference mode. Defaults to `False`.
        return_attention_scores: bool, if `True`, returns the attention
            scores (after masking and softmax) as an additional output.
            Defaults to `False`.
        use_causal_mask: Boolean. Set to `True` for decoder self-attention:
            query position `i` cannot attend to value positions after `i`.
            Defaults to `False`.

    Input shape:
        `[query, value]` or `[query, value, key]` as above.

    Output shape:
        Attention outputs of shape `(batch_size, Tq, dim)`, and optionally
        the attention scores `(batch_size, Tq, Tv)`.

    Raises:
        ValueError: If `score_mode` or `dropout` is out of range, or the layer
            is not called on a list of 2 or 3 tensors.

    Example:
        >>> query = tf.constant([[[1.0, 0.0], [0.0, 1.0]]])
        >>> value = tf.constant([[[1.0, 2.0], [3.0, 4.0]]])
        >>> output, scores = tfkit.layers.Attention()([query, value], return_attention_scores=True)
        >>> np.round(scores.numpy(), 4)
        array([[[0.1192, 0.8808],
                [0.1192, 0.8808]]], dtype=float32)
        >>> np.round(output.numpy(), 4)
        array([[[2.7616, 3.7616],
                [2.7616, 3.7616]]], dtype=float32)
    """

    def __init__(
        self,
        use_scale: bool = False,
        score_mode: str = "dot",
        dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                f"{type(self).__name__} layer '{self.name}' expected score_mode 'dot' or 'concat', got {score_mode!r}"
            )
        if not 0 <= dropout < 1:
            raise ValueError(f"{type(self).__name__} layer '{self.name}' expected 0 <= dropout < 1, got {dropout!r}")
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = dropout
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed) if dropout > 0 else None
        self.supports_masking = True

    def _validate(self, inputs: Any, mask: Any = None) -> None:
        who = f"{type(self).__name__} layer '{self.name}'"
        if not isinstance(inputs, (list, tuple)) or not 2 <= len(inputs) <= 3:
            raise ValueError(f"{who} must be called on a list [query, value] or [query, value, key], got {inputs!r}")
        if mask is not None and (not isinstance(mask, (list, tuple)) or not 2 <= len(mask) <= 3):
            raise ValueError(f"{who} expected mask to be a list [query_mask, value_mask], got {mask!r}")

    def build(self, input_shape: Any) -> None:
        self._validate(input_shape)
        self.scale = self.add_weight(name="scale", shape=(), initializer="ones") if self.use_scale else None
        self.concat_score_weight = (
            self.add_weight(name="concat_score_weight", shape=(), initializer="ones")
            if self.score_mode == "concat"
            else None
        )

    def _scores(self, query: tf.Tensor, key: tf.Tensor) -> tf.Tensor:
        if self.score_mode == "dot":
            scores = tf.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        summed = tf.expand_dims(query, -2) + tf.expand_dims(key, -3)
        if self.scale is not None:
            summed = self.scale * summed
        return self.concat_score_weight * tf.reduce_sum(tf.tanh(summed), axis=-1)

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: Any = False,
        return_attention_scores: bool = False,
        use_causal_mask: bool = False,
    ) -> Any:
        self._validate(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        scores = self._scores(query, key)
        keep = None
        if value_mask is not None:
            keep = tf.expand_dims(tf.cast(value_mask, tf.bool), -2)  # (batch, 1, Tv)
        if use_causal_mask:
            shape = tf.shape(scores)
            causal = tf.linalg.band_part(tf.ones((1, shape[-2], shape[-1]), tf.bool), -1, 0)
            keep = causal if keep is None else tf.logical_and(keep, causal)
        if keep is not None:
            big = 65504.0 if scores.dtype == tf.float16 else 1.0e9
            scores = tf.where(keep, scores, scores - big)
        weights = tf.nn.softmax(scores, axis=-1)
        if training is True and self.dropout > 0 or isinstance(training, tf.Tensor) and self.dropout > 0:
            dropped = tfkit_random.dropout(weights, self.dropout, seed=self.seed_generator)
            weights = (
                tf.cond(tf.cast(training, tf.bool), lambda: dropped, lambda: weights)
                if isinstance(training, tf.Tensor)
                else dropped
            )
        outputs = tf.matmul(weights, value)
        if query_mask is not None:
            outputs = tf.where(tf.expand_dims(tf.cast(query_mask, tf.bool), -1), outputs, tf.zeros_like(outputs))
        return (outputs, weights) if return_attention_scores else outputs

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not mask or mask[0] is None:
            return None
        return mask[0]

    def compute_output_shape(self, input_shape: Any) -> Any:
        return (*input_shape[0][:-1], input_shape[1][-1])

    def get_config(self) -> dict[str, Any]:
        return {
            **Layer.get_config(self),
            "use_scale": self.use_scale,
            "score_mode": self.score_mode,
            "dropout": self.dropout,
            "seed": self.seed,
        }


@registry.builtin("layers")
class AdditiveAttention(Attention):
    """Additive attention layer, a.k.a. Bahdanau-style attention.

    The calculation follows the steps:

    1. Calculate attention scores using `query` and `key` with shape
       `(batch_size, Tq, Tv)` as a non-linear sum
       `scores = reduce_sum(scale * tanh(query + key), axis=-1)`, where
       `scale` is a learned vector of one weight per feature.
    2. Use scores to calculate a softmax distribution with shape
       `(batch_size, Tq, Tv)`.
    3. Use the softmax distribution to create a linear combination of
       `value` with shape `(batch_size, Tq, dim)`.

    Args:
        use_scale: If `True`, will create a variable `scale` of shape `(dim,)`
            (initialized with `"glorot_uniform"`) to scale the attention
            scores; else the scale is 1. Defaults to `True`.
        dropout: Float in `[0, 1)`. Fraction of the units to drop for the
            attention scores. Defaults to `0.0`.
        seed: A Python integer to use as random seed in case of `dropout`.
            Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: List of the following tensors: `query` of shape
            `(batch_size, Tq, dim)`, `value` of shape `(batch_size, Tv, dim)`
            and optionally `key` of shape `(batch_size, Tv, dim)`. If `key`
            is not given, `value` is used as both key and value.
        mask: List of the following tensors: `query_mask`, a boolean tensor
            of shape `(batch_size, Tq)` (the output is zero where it is
            `False`, and the output carries it), and `value_mask`, of shape
            `(batch_size, Tv)` (`False` hides that value position).
        training: Python boolean indicating whether the layer should behave
            in training mode (adding dropout to the attention weights) or in
            inference mode. Defaults to `False`.
        return_attention_scores: bool, if `True`, returns the attention
            scores (after masking and softmax) as an additional output.
            Defaults to `False`.
        use_causal_mask: Boolean. Set to `True` for decoder self-attention:
            query position `i` cannot attend to value positions after `i`.
            Defaults to `False`.

    Input shape:
        `[query, value]` or `[query, value, key]` as above.

    Output shape:
        Attention outputs of shape `(batch_size, Tq, dim)`, and optionally
        the attention scores `(batch_size, Tq, Tv)`.

    Raises:
        ValueError: If `dropout` is out of range, or the layer is not called
            on a list of 2 or 3 tensors.

    Example:
        >>> layer = tfkit.layers.AdditiveAttention()
        >>> layer([np.ones((2, 3, 4)), np.ones((2, 5, 4))]).shape
        TensorShape([2, 3, 4])
        >>> layer.scale.shape
        TensorShape([4])
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)

    def build(self, input_shape: Any) -> None:
        self._validate(input_shape)
        dim = input_shape[0][-1]
        self.scale = (
            self.add_weight(name="scale", shape=(dim,), initializer="glorot_uniform") if self.use_scale else None
        )
        self.concat_score_weight = None

    def _scores(self, query: tf.Tensor, key: tf.Tensor) -> tf.Tensor:
        summed = tf.tanh(tf.expand_dims(query, -2) + tf.expand_dims(key, -3))
        scale = self.scale if self.scale is not None else 1.0
        return tf.reduce_sum(scale * summed, axis=-1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("score_mode")
        return config
