"""``Gemma3MeanPooling``: the mean of a sequence's real tokens, the first step of EmbeddingGemma's head.

pooled = Gemma3MeanPooling()(sequence_output, padding_mask=mask)     # (batch, hidden_dim)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer


class Gemma3MeanPooling(Layer):
    """Mean pooling over the tokens a padding mask keeps, as KerasHub's `Gemma3MeanPooling`.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: The sequence `(batch, length, hidden_dim)`, or a pair
            `(sequence, padding_mask)` when `padding_mask` is not given.
        padding_mask: Optional `(batch, length)` mask of the real tokens.

    Returns:
        The mean of the masked sequence, `(batch, hidden_dim)` (zeros for a
        row with no token).

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_layers import Gemma3MeanPooling
        >>> sequence = np.array([[[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]]], "float32")
        >>> Gemma3MeanPooling()(sequence, padding_mask=np.array([[1, 1, 0]])).numpy()
        array([[2., 3.]], dtype=float32)
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs: Any, padding_mask: Any = None) -> tf.Tensor:
        if padding_mask is None:
            inputs, padding_mask = inputs
        mask = tf.cast(padding_mask, inputs.dtype)
        total = tf.reduce_sum(inputs * mask[..., tf.newaxis], axis=1)
        count = tf.maximum(tf.reduce_sum(mask, axis=1)[:, tf.newaxis], 1e-9)
        return tf.cast(total / count, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = input_shape[0] if isinstance(input_shape, list) else input_shape
        return tuple(shape[:-2]) + (shape[-1],)
