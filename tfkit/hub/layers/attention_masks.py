"""The masks of windowed attention, one home for every family: causal bands, two-sided and centred windows.

    band = sliding_window_mask(query_length, key_length, window, cache_update_index)   # Mistral's one-sided band
    mask = windowed_mask(attention_mask, query_length, key_length, window, index)       # Qwen's and Gemma's
    mask = bidirectional_window_mask(batch, length, window)                              # Gemma 3 embedders

Positions count from ``cache_update_index`` (the first query's position in the
sequence), so the same masks serve a whole prompt and one cached decoding step.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf


def sliding_window_mask(
    query_length: Any, key_length: Any, window: int, cache_update_index: Any = 0, two_sided: bool = False
) -> tf.Tensor:
    """Which keys each query may see through a sliding window: boolean ``(query_length, key_length)``.

    Query ``i`` (at position ``cache_update_index + i``) sees key ``j`` when
    ``position - j < window``: itself and the ``window - 1`` keys before it
    (Mistral's band). With ``two_sided``, also ``j - position < window``
    (Qwen's band, the same under a causal mask).

    Args:
        query_length: The number of queries.
        key_length: The number of keys.
        window: The window size, in tokens.
        cache_update_index: The position of the first query. Defaults to `0`.
        two_sided: Whether the band also limits keys after the query.
            Defaults to `False`.

    Returns:
        A boolean tensor `(query_length, key_length)`.

    Example:
        >>> from tfkit.hub.layers.attention_masks import sliding_window_mask
        >>> sliding_window_mask(3, 3, window=2).numpy().astype(int).tolist()
        [[1, 1, 1], [1, 1, 1], [0, 1, 1]]
        >>> sliding_window_mask(1, 3, window=2, cache_update_index=2).numpy().astype(int).tolist()
        [[0, 1, 1]]
    """
    positions = tf.range(query_length)[:, None] + tf.cast(cache_update_index, tf.int32)
    keys = tf.range(key_length)[None, :]
    mask = positions - keys < window
    if two_sided:
        mask = tf.logical_and(mask, keys - positions < window)
    return mask


def windowed_mask(
    attention_mask: Any, query_length: Any, key_length: Any, window: int, cache_update_index: Any = 0
) -> Any:
    """``attention_mask`` ``(batch, queries, keys)`` narrowed to a two-sided sliding window (Qwen's, Gemma's).

    Args:
        attention_mask: The mask, or `None` (the window alone).
        query_length: The number of queries.
        key_length: The number of keys.
        window: The window size, in tokens.
        cache_update_index: The position of the first query, or `None` (0).
            Defaults to `0`.

    Returns:
        A boolean `(batch, queries, keys)` mask (batch 1 without `attention_mask`).

    Example:
        >>> from tfkit.hub.layers.attention_masks import windowed_mask
        >>> windowed_mask(None, 3, 3, window=2, cache_update_index=None).numpy().astype(int).tolist()
        [[[1, 1, 0], [1, 1, 1], [0, 1, 1]]]
    """
    index = 0 if cache_update_index is None else cache_update_index
    window_mask = sliding_window_mask(query_length, key_length, window, index, two_sided=True)[None]
    if attention_mask is None:
        return window_mask
    return tf.logical_and(tf.cast(attention_mask, tf.bool), window_mask)


def bidirectional_window_mask(batch_size: Any, sequence_length: Any, window: int) -> tf.Tensor:
    """Which keys each query of a bidirectional (embedding) model sees through its centred window.

    Query ``i`` sees key ``j`` when ``-(window // 2) <= i - j <= window -
    window // 2 - 1``: a window of 4 sees one key before and two after
    (Gemma 3's embedding models).

    Args:
        batch_size: The batch size.
        sequence_length: The number of queries and keys.
        window: The window size, in tokens.

    Returns:
        A boolean tensor `(batch_size, sequence_length, sequence_length)`.

    Example:
        >>> from tfkit.hub.layers.attention_masks import bidirectional_window_mask
        >>> bidirectional_window_mask(1, 4, window=4).numpy().astype(int)[0].tolist()
        [[1, 1, 1, 0], [1, 1, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1]]
    """
    i = tf.range(sequence_length)[:, None]
    j = tf.range(sequence_length)[None, :]
    right = window // 2
    left = window - right - 1
    mask = tf.logical_and(i - j <= left, i - j >= -right)
    return tf.broadcast_to(mask[None], tf.stack([batch_size, sequence_length, sequence_length]))
