"""Projective resampling from gathers, for XLA (which has no ``ImageProjectiveTransformV3`` kernel).

    out = projective_transform(images, transforms, "bilinear", "reflect", 0.0)   # same numbers as the raw op

It follows TensorFlow's kernel step by step: map the output pixel to an input
point, fold the point back into the image by ``fill_mode``, then read the
nearest pixel (``round`` half away from zero) or the four bilinear
neighbours, each read outside the image giving ``fill_value``.
"""

from __future__ import annotations

import tensorflow as tf

try:  # where a graph is being compiled by XLA (tf.function(jit_compile=True)); private but long-stable
    from tensorflow.python.ops.control_flow_util import (
        GraphOrParentsInXlaContext as _in_xla_graph,
    )
except ImportError:  # pragma: no cover - a TensorFlow without it: always use the gather path in graphs
    _in_xla_graph = None


def in_xla_context() -> bool:
    """True while tracing a function that XLA will compile."""
    if tf.executing_eagerly():
        return False
    if _in_xla_graph is None:
        return True
    return bool(_in_xla_graph(tf.compat.v1.get_default_graph()))


def _trunc(x: tf.Tensor) -> tf.Tensor:
    return tf.where(x >= 0, tf.floor(x), tf.math.ceil(x))


def map_coordinates(coord: tf.Tensor, length: tf.Tensor, fill_mode: str) -> tf.Tensor:
    """Fold input coordinates into ``[0, length - 1]`` the way ``fill_mode`` extends the image."""
    if fill_mode == "constant":
        return coord
    if fill_mode == "reflect":
        period = 2.0 * length
        below = period * _trunc(-coord / period) + coord
        below = tf.where(below < -length, below + period, -below - 1.0)
        above = coord - period * _trunc(coord / period)
        above = tf.where(above >= length, period - above - 1.0, above)
    elif fill_mode == "wrap":
        span = tf.maximum(length - 1.0, 1.0)
        below = coord + length * (_trunc(-coord / span) + 1.0)
        above = coord - length * _trunc(coord / span)
    else:  # nearest
        below, above = coord, coord
    folded = tf.where(coord < 0, below, tf.where(coord > length - 1.0, above, coord))
    folded = tf.where(length <= 1.0, tf.zeros_like(folded), folded)
    return tf.clip_by_value(folded, 0.0, length - 1.0)


def projective_transform(images: tf.Tensor, transforms: tf.Tensor, interpolation: str, fill_mode: str,
                         fill_value: float) -> tf.Tensor:
    """``ImageProjectiveTransformV3`` on a channels-last batch, from ops XLA compiles."""
    dtype = images.dtype
    shape = tf.shape(images)
    height, width = shape[1], shape[2]
    fh, fw = tf.cast(height, tf.float32), tf.cast(width, tf.float32)
    t = tf.cast(transforms, tf.float32)[:, :, tf.newaxis, tf.newaxis]          # (batch, 8, 1, 1)
    ys = tf.cast(tf.range(height), tf.float32)[:, tf.newaxis]
    xs = tf.cast(tf.range(width), tf.float32)[tf.newaxis, :]
    projection = t[:, 6] * xs + t[:, 7] * ys + 1.0
    safe = tf.where(projection == 0, tf.ones_like(projection), projection)
    in_x = map_coordinates((t[:, 0] * xs + t[:, 1] * ys + t[:, 2]) / safe, fw, fill_mode)
    in_y = map_coordinates((t[:, 3] * xs + t[:, 4] * ys + t[:, 5]) / safe, fh, fill_mode)
    pixels = tf.cast(images, tf.float32)
    fill = tf.cast(fill_value, tf.float32)

    def read(y: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
        yi, xi = tf.cast(y, tf.int32), tf.cast(x, tf.int32)
        inside = (yi >= 0) & (yi < height) & (xi >= 0) & (xi < width) & (projection != 0)
        index = tf.stack([tf.clip_by_value(yi, 0, height - 1), tf.clip_by_value(xi, 0, width - 1)], axis=-1)
        values = tf.gather_nd(pixels, index, batch_dims=1)
        return tf.where(inside[..., tf.newaxis], values, fill)

    if interpolation == "nearest":
        def round_away(v: tf.Tensor) -> tf.Tensor:
            return tf.sign(v) * tf.floor(tf.abs(v) + 0.5)

        out = read(round_away(in_y), round_away(in_x))
    else:
        y0, x0 = tf.floor(in_y), tf.floor(in_x)
        y1, x1 = y0 + 1.0, x0 + 1.0
        wx0, wx1 = (x1 - in_x)[..., tf.newaxis], (in_x - x0)[..., tf.newaxis]
        wy0, wy1 = (y1 - in_y)[..., tf.newaxis], (in_y - y0)[..., tf.newaxis]
        top = wx0 * read(y0, x0) + wx1 * read(y0, x1)
        bottom = wx0 * read(y1, x0) + wx1 * read(y1, x1)
        out = wy0 * top + wy1 * bottom
    return tf.ensure_shape(tf.cast(out, dtype), images.shape)
