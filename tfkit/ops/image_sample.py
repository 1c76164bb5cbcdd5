"""Point sampling of ``tfkit.ops.image``: ``map_coordinates`` and ``elastic_transform``.

    values = tfkit.ops.image.map_coordinates(grid, [rows, cols], order=1, fill_mode="mirror")
    warped = tfkit.ops.image.elastic_transform(images, alpha=20.0, sigma=5.0, seed=1337)
    warped = tfkit.ops.image.elastic_transform(images, seed=tfkit.random.SeedGenerator(1))   # new each call

Boundary modes follow ``scipy.ndimage`` / JAX as Keras documents them,
applied to each integer sample index: ``constant`` (k k | a b c d | k k),
``nearest`` (a a | a b c d | d d), ``wrap`` (c d | a b c d | a b),
``mirror`` (c b | a b c d | c b) and ``reflect`` (b a | a b c d | d c).
"""

from __future__ import annotations

import itertools
from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.ops import image_common as ic
from tfkit.ops.image_filter import separable_blur

MAP_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _mirror(index: tf.Tensor, size: Any) -> tf.Tensor:
    span = size - 1
    safe = tf.maximum(span, 1)
    return tf.where(span > 0, tf.abs(tf.math.floormod(index + span, 2 * safe) - span), tf.zeros_like(index))


def _fix(index: tf.Tensor, size: Any, fill_mode: str) -> tuple[tf.Tensor, Any]:
    """``(index inside [0, size), valid or None)`` for an integer sample index under ``fill_mode``."""
    if fill_mode == "constant":
        valid = (index >= 0) & (index < size)
        return tf.clip_by_value(index, 0, size - 1), valid
    if fill_mode == "nearest":
        return tf.clip_by_value(index, 0, size - 1), None
    if fill_mode == "wrap":
        return tf.math.floormod(index, size), None
    if fill_mode == "mirror":
        return _mirror(index, size), None
    return tf.math.floordiv(_mirror(2 * index + 1, 2 * size + 1) - 1, 2), None   # reflect


def _taps(coordinate: tf.Tensor, order: int, weight_dtype: tf.DType) -> list[tuple[tf.Tensor, Any]]:
    """The integer indices a coordinate reads and their weights (None: weight 1)."""
    if coordinate.dtype.is_integer:
        return [(tf.cast(coordinate, tf.int32), None)]
    if order == 0:
        return [(tf.cast(tf.round(coordinate), tf.int32), None)]
    lower = tf.floor(coordinate)
    upper_weight = tf.cast(coordinate - lower, weight_dtype)
    index = tf.cast(lower, tf.int32)
    return [(index, 1.0 - upper_weight), (index + 1, upper_weight)]


def interpolate(inputs: tf.Tensor, coordinates: list[tf.Tensor], order: int, fill_mode: str, fill_value: Any,
                work: tf.DType) -> tf.Tensor:
    """Read ``inputs`` (float ``work`` dtype) at fractional positions along its leading ``len(coordinates)`` axes.

    Each coordinate tensor has the output's leading shape; trailing axes of
    ``inputs`` are read whole (so an image's channels come along).
    """
    sizes = ic.static_or_dynamic(inputs)[: len(coordinates)]
    per_axis = []
    for coordinate, size in zip(coordinates, sizes):
        per_axis.append([(*_fix(index, size, fill_mode), weight) for index, weight in _taps(coordinate, order, work)])
    fill = tf.cast(fill_value, work)
    total = None
    for combination in itertools.product(*per_axis):
        indices = tf.stack([index for index, _, _ in combination], axis=-1)
        values = tf.gather_nd(inputs, indices)
        extra = values.shape.rank - indices.shape.rank + 1      # trailing axes read whole
        valid = [v for _, v, _ in combination if v is not None]
        if valid:
            inside = tf.reduce_all(tf.stack(valid), axis=0)
            values = tf.where(tf.reshape(inside, tf.concat([tf.shape(inside), [1] * extra], 0)), values, fill)
        weights = [w for _, _, w in combination if w is not None]
        if weights:
            weight = weights[0]
            for w in weights[1:]:
                weight = weight * w
            values = values * tf.reshape(weight, tf.concat([tf.shape(weight), [1] * extra], 0))
        total = values if total is None else total + values
    return total


def map_coordinates(inputs: Any, coordinates: Any, order: int, fill_mode: str = "constant",
                    fill_value: float = 0) -> tf.Tensor:
    """``inputs`` read at ``coordinates`` (one row of positions per input axis) by nearest (``order=0``)
    or linear (``order=1``) interpolation; the result has the positions' shape and the input's dtype."""
    op = "map_coordinates"
    if fill_mode not in MAP_FILL_MODES:
        raise ValueError(f"tfkit.ops.image.{op}: fill_mode must be one of {MAP_FILL_MODES}, got {fill_mode!r}")
    if isinstance(order, bool) or order not in (0, 1):
        raise NotImplementedError(f"tfkit.ops.image.{op}: order must be 0 (nearest) or 1 (linear), got {order!r}")
    inputs = ic.as_tensor(inputs, op, "inputs")
    if inputs.dtype == tf.string or inputs.dtype.is_complex:
        raise TypeError(f"tfkit.ops.image.{op}: inputs must be numeric or bool, got {inputs.dtype.name}")
    coordinates = ic.as_tensor(coordinates, op, "coordinates")
    rank = inputs.shape.rank
    if coordinates.shape.rank is None or coordinates.shape.rank < 2:
        raise ValueError(f"tfkit.ops.image.{op}: coordinates must have rank 2 or more (one row of positions per "
                         f"input axis), got shape {tuple(coordinates.shape)}")
    if coordinates.shape[0] != rank:
        raise ValueError(f"tfkit.ops.image.{op}: coordinates needs one row per axis of inputs ({rank}), "
                         f"got {coordinates.shape[0]} (inputs shape {tuple(inputs.shape)}, coordinates shape "
                         f"{tuple(coordinates.shape)})")
    work = coordinates.dtype if coordinates.dtype.is_floating else ic.work_dtype(inputs.dtype)
    values = interpolate(tf.cast(inputs, work), tf.unstack(coordinates, axis=0), order, fill_mode, fill_value, work)
    return ic.cast_back(values, inputs.dtype)


def elastic_transform(images: Any, alpha: float = 20.0, sigma: float = 5.0, interpolation: str = "bilinear",
                      fill_mode: str = "reflect", fill_value: float = 0.0, seed: Any = None,
                      data_format: str | None = None) -> tf.Tensor:
    """Displace every pixel by a smooth random field: Gaussian noise blurred by ``sigma``, scaled by ``alpha``.

    The blur kernel has ``6 * int(sigma) + 1`` taps (odd), as in Keras; the
    x and y displacements are independent draws from ``seed`` (an int, a
    ``tfkit.random.SeedGenerator`` or None). Pixels are read back with
    :func:`map_coordinates` semantics (``order`` 0 or 1 from
    ``interpolation``); the result has the input's dtype.
    """
    op = "elastic_transform"
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"tfkit.ops.image.{op}: interpolation must be 'nearest' or 'bilinear', "
                         f"got {interpolation!r}")
    if fill_mode not in MAP_FILL_MODES:
        raise ValueError(f"tfkit.ops.image.{op}: fill_mode must be one of {MAP_FILL_MODES}, got {fill_mode!r}")
    data_format = ic.standard_format(data_format, op)
    images = ic.as_tensor(images, op)
    ic.check_rank(images, op)
    ic.check_numeric(images, op)
    batch, unbatched = ic.to_batch_last(images, data_format)
    out = elastic_batch(batch, alpha, sigma, interpolation, fill_mode, fill_value, seed)
    return ic.from_batch_last(out, unbatched, data_format)


def elastic_batch(batch: tf.Tensor, alpha: Any, sigma: Any, interpolation: str, fill_mode: str, fill_value: Any,
                  seed: Any, max_sigma: float | None = None) -> tf.Tensor:
    """:func:`elastic_transform` of a channels-last batch, in its dtype.

    ``max_sigma`` (a number at least ``sigma``) keeps the blur kernel's shape
    static when ``sigma`` is a tensor, so XLA can compile the warp.
    """
    work = ic.work_dtype(batch.dtype)
    pixels = tf.cast(batch, work)
    b, h, w = ic.static_or_dynamic(pixels)[:3]
    alpha = tf.cast(alpha, work)
    sigma = tf.cast(sigma, work)
    taps = 6 * tf.cast(sigma, tf.int32) + 1
    alg = tfkit_random.algorithm()
    seeds = tf.random.experimental.stateless_split(tfkit_random.draw_seed(seed), 2, alg=alg)
    noise = tf.stack([tf.random.stateless_normal(tf.stack([b, h, w]), seed=seeds[i], dtype=work, alg=alg) * sigma
                      for i in range(2)], axis=-1)                                    # (b, h, w, 2): dx, dy
    max_taps = None if max_sigma is None else 6 * int(max_sigma) + 1
    field = separable_blur(noise, taps, taps, sigma, sigma, max_taps)
    rows = tf.cast(tf.range(h), work)[tf.newaxis, :, tf.newaxis] + alpha * field[..., 1]
    cols = tf.cast(tf.range(w), work)[tf.newaxis, tf.newaxis, :] + alpha * field[..., 0]
    index = tf.broadcast_to(tf.range(b)[:, tf.newaxis, tf.newaxis], tf.shape(rows))
    order = 0 if interpolation == "nearest" else 1
    out = interpolate(pixels, [index, rows, cols], order, fill_mode, fill_value, work)
    return ic.cast_back(tf.ensure_shape(out, batch.shape), batch.dtype)
