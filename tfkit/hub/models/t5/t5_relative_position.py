"""T5's relative position buckets: the distance from a query to a key, binned (exact near, logarithmic far).

    buckets = relative_position_bucket(keys - queries, bidirectional=True)   # ints in [0, 32)

The encoder's buckets tell left from right (half the buckets each); the
decoder's see only the past. Distances below half the buckets (of a side) keep
their own bucket, longer ones share buckets on a log scale up to
``max_distance``, and all further ones the last bucket.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf


def relative_position_bucket(
    relative_position: Any, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128
) -> tf.Tensor:
    """The bucket of each relative position (key position minus query position), as Mesh TensorFlow's T5.

    Args:
        relative_position: An int32 tensor of key minus query positions.
        bidirectional: Whether keys on both sides count (the encoder); the
            decoder's (`False`) maps every later key to bucket 0. Defaults to
            `True`.
        num_buckets: The number of buckets. Defaults to `32`.
        max_distance: The distance from which every position shares the
            last bucket. Defaults to `128`.

    Returns:
        An int32 tensor of the input's shape, values in `[0, num_buckets)`.

    Example:
        >>> from tfkit.hub.models.t5.t5_relative_position import relative_position_bucket
        >>> relative_position_bucket(tf.constant([-200, -20, -1, 0, 1, 20]), bidirectional=True).numpy().tolist()
        [15, 10, 1, 0, 17, 26]
        >>> relative_position_bucket(tf.constant([-200, -20, -1, 0, 1]), bidirectional=False).numpy().tolist()
        [31, 17, 1, 0, 0]
    """
    relative_position = tf.cast(relative_position, tf.int32)
    buckets = tf.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        buckets += tf.cast(relative_position > 0, tf.int32) * num_buckets
        distance = tf.abs(relative_position)
    else:
        distance = -tf.minimum(relative_position, 0)
    max_exact = num_buckets // 2
    is_small = distance < max_exact
    scaled = (
        tf.math.log(tf.cast(distance, tf.float32) / float(max_exact))
        / tf.cast(math.log(max_distance / max_exact), tf.float32)
        * float(num_buckets - max_exact)
    )
    large = tf.minimum(max_exact + tf.cast(scaled, tf.int32), num_buckets - 1)
    return buckets + tf.where(is_small, distance, large)
