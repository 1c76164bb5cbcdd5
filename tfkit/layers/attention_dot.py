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
    """Dot-product attention: ``softmax(query @ key^T) @ value`` (``score_mode="concat"``: tanh of sums).

    Masks of ``value`` hide its padded steps; the ``query`` mask zeroes the
    output at padded query steps and is passed on. ``use_causal_mask=True``
    hides the future.
    """

    def __init__(self, use_scale: bool = False, score_mode: str = "dot", dropout: float = 0.0,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"{type(self).__name__} layer '{self.name}' expected score_mode 'dot' or 'concat', "
                             f"got {score_mode!r}")
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
        self.concat_score_weight = (self.add_weight(name="concat_score_weight", shape=(), initializer="ones")
                                    if self.score_mode == "concat" else None)

    def _scores(self, query: tf.Tensor, key: tf.Tensor) -> tf.Tensor:
        if self.score_mode == "dot":
            scores = tf.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        summed = tf.expand_dims(query, -2) + tf.expand_dims(key, -3)
        if self.scale is not None:
            summed = self.scale * summed
        return self.concat_score_weight * tf.reduce_sum(tf.tanh(summed), axis=-1)

    def call(self, inputs: Any, mask: Any = None, training: Any = False, return_attention_scores: bool = False,
             use_causal_mask: bool = False) -> Any:
        self._validate(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        scores = self._scores(query, key)
        keep = None
        if value_mask is not None:
            keep = tf.expand_dims(tf.cast(value_mask, tf.bool), -2)            # (batch, 1, Tv)
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
            weights = tf.cond(tf.cast(training, tf.bool), lambda: dropped, lambda: weights) \
                if isinstance(training, tf.Tensor) else dropped
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
        return {**Layer.get_config(self), "use_scale": self.use_scale, "score_mode": self.score_mode,
                "dropout": self.dropout, "seed": self.seed}


@registry.builtin("layers")
class AdditiveAttention(Attention):
    """Additive attention: scores ``sum(scale * tanh(query + key), axis=-1)`` with a learned ``scale`` per feature."""

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)

    def build(self, input_shape: Any) -> None:
        self._validate(input_shape)
        dim = input_shape[0][-1]
        self.scale = self.add_weight(name="scale", shape=(dim,), initializer="glorot_uniform") \
            if self.use_scale else None
        self.concat_score_weight = None

    def _scores(self, query: tf.Tensor, key: tf.Tensor) -> tf.Tensor:
        summed = tf.tanh(tf.expand_dims(query, -2) + tf.expand_dims(key, -3))
        scale = self.scale if self.scale is not None else 1.0
        return tf.reduce_sum(scale * summed, axis=-1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("score_mode")
        return config
