"""Masks and initializers the transformer blocks share, KerasHub's ``transformer_layer_utils`` on tfkit.

    mask = merge_padding_and_attention_mask(x, padding_mask, attention_mask)   # int32 (batch, 1 or T, S)
    causal = compute_causal_mask(batch, key_length, query_length, cache_index)  # bool (batch, T, S)
    layer = Dense(4, kernel_initializer=clone_initializer(self.kernel_initializer))

Families' decoder blocks (Llama, Mistral, Qwen, Gemma) combine their masks
with these two functions, as KerasHub's do; the padding mask falls back on the
Keras mask the inputs carry.
"""

from __future__ import annotations

import logging
from typing import Any

import tensorflow as tf

from tfkit.engine import masking

_LOG = logging.getLogger("tfkit.hub")


def clone_initializer(initializer: Any) -> Any:
    """A fresh copy of an initializer object (a string or None is returned as it is).

    Layers that hand one initializer to several sub-layers clone it, so that
    seeded initializers give each weight its own values, as KerasHub does.
    """
    get_config = getattr(initializer, "get_config", None)
    if get_config is None:
        return initializer
    return type(initializer).from_config(get_config())


def _check_masks_shapes(inputs: Any, padding_mask: Any, attention_mask: Any) -> None:
    mask = padding_mask if padding_mask is not None else masking.get_mask(inputs)
    if mask is not None and len(mask.shape) != 2:
        raise ValueError(f"`padding_mask` should have shape (batch_size, target_length), got shape {tuple(mask.shape)}")
    if attention_mask is not None and len(attention_mask.shape) != 3:
        raise ValueError(
            "`attention_mask` should have shape (batch_size, target_length, source_length), got shape "
            f"{tuple(attention_mask.shape)}"
        )


def compute_causal_mask(batch_size: Any, input_length: Any, output_length: Any, cache_index: Any = 0) -> tf.Tensor:
    """A causal attention mask for a transformer decoder: ``(batch_size, output_length, input_length)`` booleans.

    Query ``i`` (counted from ``cache_index``, the position of the first query
    in cached decoding) may attend to key ``j`` when ``j <= cache_index + i``.

    Args:
        batch_size: The batch size of the mask.
        input_length: The length of the keys and values.
        output_length: The length of the queries.
        cache_index: The position of the first query (an int or int tensor).
            Defaults to `0`.

    Returns:
        A boolean tensor of shape `(batch_size, output_length, input_length)`.
    """
    i = tf.range(output_length, dtype=tf.float32) + tf.cast(cache_index, tf.float32)
    j = tf.range(input_length, dtype=tf.float32)
    mask = (i[:, None] >= j[None, :])[None]
    return tf.broadcast_to(mask, tf.stack([batch_size, output_length, input_length]))


def merge_padding_and_attention_mask(inputs: Any, padding_mask: Any, attention_mask: Any) -> tf.Tensor | None:
    """The padding mask (or the Keras mask ``inputs`` carry) merged with a custom attention mask, as int32.

    Args:
        inputs: The input sequence; its Keras mask is the padding mask when
            `padding_mask` is None.
        padding_mask: `(batch_size, sequence_length)` mask, or None.
        attention_mask: `(batch_size, target_length, source_length)` mask, or
            None.

    Returns:
        `(batch_size, 1, sequence_length)` from the padding mask alone,
        `(batch_size, target_length, source_length)` when an attention mask is
        given (the minimum of both), or None when there is neither; int32.

    Raises:
        ValueError: If the padding mask is not rank 2 or the attention mask
            not rank 3.
    """
    _check_masks_shapes(inputs, padding_mask, attention_mask)
    mask = masking.get_mask(inputs)
    if padding_mask is not None:
        if mask is not None:
            _LOG.warning(
                "You are explicitly setting `padding_mask` while the `inputs` have built-in mask, so the "
                "built-in mask is ignored."
            )
        mask = padding_mask
    if mask is not None:
        mask = tf.cast(tf.expand_dims(mask, axis=1), tf.int32)
    if attention_mask is not None:
        attention_mask = tf.cast(attention_mask, tf.int32)
        return attention_mask if mask is None else tf.minimum(mask, attention_mask)
    return mask
