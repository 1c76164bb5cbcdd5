"""Key/value caches of decoding, in KerasHub's stacked layout or as separate tensors per layer.

    cache = tf.zeros((batch, num_layers, 2, max_length, heads, head_dim))   # KerasHub's layout: one tensor
    caches = empty_layer_caches(batch, max_length, num_layers, heads, head_dim, "float32")  # generate's layout
    keys, values = split_cache(layer_cache(caches, 0))

KerasHub's ``call_with_cache`` takes and returns one tensor holding every
layer's keys and values; each step then slices every layer's part out of it
and stacks the updated parts back, copying the whole cache twice a step (at
batch 8 and 96 positions of GPT-2, 57 MB each way). ``generate`` threads the
cache through its loop as a tuple of ``(keys, values)`` pairs instead, one
pair a layer, which XLA updates in place; the layers and ``call_with_cache``
take either form and give back the form they were given.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf


def update_cache(cache: tf.Tensor, update: tf.Tensor, index: Any) -> tf.Tensor:
    """``cache`` ``(batch, length, ...)`` with ``update`` ``(batch, steps, ...)`` written at ``index`` on axis 1.

    One ``tf.tensor_scatter_nd_update`` of the ``batch * steps`` rows: eager,
    in graphs and under XLA (where it updates the buffer in place).

    Args:
        cache: The keys or the values, `(batch, length, ...)`.
        update: The new steps, `(batch, steps, ...)`.
        index: Where the first new step goes on axis 1.

    Returns:
        The cache with the new steps written in.

    Example:
        >>> from tfkit.hub.layers.kv_cache import update_cache
        >>> update_cache(tf.zeros((1, 4)), tf.ones((1, 2)), 1).numpy().tolist()
        [[0.0, 1.0, 1.0, 0.0]]
    """
    shape = tf.shape(update)
    batch, steps = shape[0], shape[1]
    rows = tf.broadcast_to(tf.range(batch)[:, None], tf.stack([batch, steps]))
    positions = tf.broadcast_to(tf.cast(index, tf.int32) + tf.range(steps)[None, :], tf.stack([batch, steps]))
    return tf.tensor_scatter_nd_update(cache, tf.stack([rows, positions], axis=-1), tf.cast(update, cache.dtype))


def split_cache(cache: Any) -> tuple[tf.Tensor, tf.Tensor]:
    """The keys and values of one layer's cache: a ``(keys, values)`` pair, or ``(batch, 2, length, ...)``.

    Args:
        cache: One layer's cache, in either form.

    Returns:
        `(keys, values)`, each `(batch, length, ...)`.

    Example:
        >>> from tfkit.hub.layers.kv_cache import split_cache
        >>> [part.shape for part in split_cache(tf.zeros((1, 2, 5, 3, 4)))]
        [TensorShape([1, 5, 3, 4]), TensorShape([1, 5, 3, 4])]
    """
    if isinstance(cache, (tuple, list)):
        return cache[0], cache[1]
    return cache[:, 0, ...], cache[:, 1, ...]


def join_cache(keys: tf.Tensor, values: tf.Tensor, like: Any) -> Any:
    """One layer's cache from its keys and values, in the form of ``like`` (a pair, or KerasHub's tensor).

    Args:
        keys: The keys, `(batch, length, ...)`.
        values: The values, `(batch, length, ...)`.
        like: The cache the layer was given.

    Returns:
        `(keys, values)`, or the two stacked on axis 1.

    Example:
        >>> from tfkit.hub.layers.kv_cache import join_cache
        >>> join_cache(tf.zeros((1, 5, 3, 4)), tf.zeros((1, 5, 3, 4)), like=tf.zeros((1, 2, 5, 3, 4))).shape
        TensorShape([1, 2, 5, 3, 4])
    """
    if isinstance(like, (tuple, list)):
        return keys, values
    return tf.stack([keys, values], axis=1)


def cache_length(cache: Any) -> tf.Tensor:
    """The number of positions one layer's cache holds, in either form.

    Args:
        cache: One layer's cache.

    Returns:
        A scalar int tensor.

    Example:
        >>> from tfkit.hub.layers.kv_cache import cache_length
        >>> int(cache_length((tf.zeros((1, 5, 3, 4)), tf.zeros((1, 5, 3, 4)))))
        5
    """
    return tf.shape(split_cache(cache)[0])[1]


def layer_cache(cache: Any, index: int) -> Any:
    """Layer ``index``'s cache: from a tuple of per-layer caches, or KerasHub's ``(batch, layers, 2, ...)`` tensor.

    Args:
        cache: The whole model's cache, in either form.
        index: The layer.

    Returns:
        That layer's cache, in the matching form.

    Example:
        >>> from tfkit.hub.layers.kv_cache import layer_cache
        >>> layer_cache(tf.zeros((1, 3, 2, 5, 2, 4)), 1).shape
        TensorShape([1, 2, 5, 2, 4])
    """
    if isinstance(cache, (tuple, list)):
        return cache[index]
    return cache[:, index, ...]


def join_layer_caches(caches: list[Any], like: Any) -> Any:
    """The whole model's cache from each layer's, in the form of ``like``.

    Args:
        caches: Each layer's updated cache.
        like: The cache the model was given.

    Returns:
        A tuple of the layers' caches, or KerasHub's stacked tensor.

    Example:
        >>> from tfkit.hub.layers.kv_cache import join_layer_caches
        >>> join_layer_caches([tf.zeros((1, 2, 5, 2, 4))] * 3, like=tf.zeros((1, 3, 2, 5, 2, 4))).shape
        TensorShape([1, 3, 2, 5, 2, 4])
    """
    if isinstance(like, (tuple, list)):
        return tuple(caches)
    return tf.stack(caches, axis=1)


def empty_layer_caches(
    batch: Any, length: Any, num_layers: int, num_key_value_heads: int, head_dim: int, dtype: Any
) -> tuple[tuple[tf.Tensor, tf.Tensor], ...]:
    """Zero ``(keys, values)`` pairs, one a layer, each ``(batch, length, num_key_value_heads, head_dim)``.

    Args:
        batch: The number of sequences.
        length: The number of positions.
        num_layers: The number of decoder blocks.
        num_key_value_heads: The number of key and value heads of each block.
        head_dim: The size of each head.
        dtype: The cache's dtype (the model's compute dtype).

    Returns:
        A tuple of `num_layers` pairs.

    Example:
        >>> from tfkit.hub.layers.kv_cache import empty_layer_caches
        >>> caches = empty_layer_caches(2, 5, num_layers=3, num_key_value_heads=2, head_dim=4, dtype="float32")
        >>> len(caches), caches[0][0].shape
        (3, TensorShape([2, 5, 2, 4]))
    """
    shape = [batch, length, num_key_value_heads, head_dim]
    return tuple((tf.zeros(shape, dtype), tf.zeros(shape, dtype)) for _ in range(num_layers))
