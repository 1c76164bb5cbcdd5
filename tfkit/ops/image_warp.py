"""Projective warps of ``tfkit.ops.image``: ``affine_transform`` and ``perspective_transform``.

    turned = tfkit.ops.image.affine_transform(images, [c, -s, tx, s, c, ty, 0, 0], fill_mode="reflect")
    corners = [[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]]
    tilted = tfkit.ops.image.perspective_transform(images, corners, moved_corners)

A transform ``[a0, a1, a2, b0, b1, b2, c0, c1]`` maps each output pixel
``(x, y)`` to the input point ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``
with ``k = c0 x + c1 y + 1``. TensorFlow's ``ImageProjectiveTransformV3``
kernel resamples; under XLA (no kernel there) the same arithmetic runs on
gathers, so the ops also compile with ``jit_compile=True``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.base.xla_context import in_xla_compilation
from tfkit.ops import image_common as ic

INTERPOLATIONS = ("nearest", "bilinear")
FILL_MODES = ("constant", "nearest", "wrap", "reflect")
_KERNEL_DTYPES = (tf.uint8, tf.int32, tf.int64, tf.float16, tf.bfloat16, tf.float32, tf.float64)


def _trunc(x: tf.Tensor) -> tf.Tensor:
    return tf.where(x >= 0, tf.floor(x), tf.math.ceil(x))


def _fold(coord: tf.Tensor, length: tf.Tensor, fill_mode: str) -> tf.Tensor:
    """An input coordinate folded into the image the way ``fill_mode`` extends it (TensorFlow's kernel rules)."""
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
    else:
        below, above = coord, coord
    folded = tf.where(coord < 0, below, tf.where(coord > length - 1.0, above, coord))
    folded = tf.where(length <= 1.0, tf.zeros_like(folded), folded)
    return tf.clip_by_value(folded, 0.0, length - 1.0)


def _gather_transform(
    images: tf.Tensor, transforms: tf.Tensor, interpolation: str, fill_mode: str, fill_value: Any
) -> tf.Tensor:
    """The projective resampling of a channels-last batch from gathers (what the kernel computes)."""
    shape = tf.shape(images)
    height, width = shape[1], shape[2]
    fh, fw = tf.cast(height, tf.float32), tf.cast(width, tf.float32)
    t = tf.broadcast_to(transforms, [shape[0], 8])[:, :, tf.newaxis, tf.newaxis]
    ys = tf.cast(tf.range(height), tf.float32)[:, tf.newaxis]
    xs = tf.cast(tf.range(width), tf.float32)[tf.newaxis, :]
    k = t[:, 6] * xs + t[:, 7] * ys + 1.0
    safe_k = tf.where(k == 0, tf.ones_like(k), k)
    in_x = _fold((t[:, 0] * xs + t[:, 1] * ys + t[:, 2]) / safe_k, fw, fill_mode)
    in_y = _fold((t[:, 3] * xs + t[:, 4] * ys + t[:, 5]) / safe_k, fh, fill_mode)
    pixels = tf.cast(images, tf.float32)
    fill = tf.cast(fill_value, tf.float32)

    def read(y: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
        yi, xi = tf.cast(y, tf.int32), tf.cast(x, tf.int32)
        inside = (yi >= 0) & (yi < height) & (xi >= 0) & (xi < width) & (k != 0)
        index = tf.stack([tf.clip_by_value(yi, 0, height - 1), tf.clip_by_value(xi, 0, width - 1)], axis=-1)
        return tf.where(inside[..., tf.newaxis], tf.gather_nd(pixels, index, batch_dims=1), fill)

    if interpolation == "nearest":

        def round_half_away(v: tf.Tensor) -> tf.Tensor:
            return tf.sign(v) * tf.floor(tf.abs(v) + 0.5)

        return read(round_half_away(in_y), round_half_away(in_x))
    y0, x0 = tf.floor(in_y), tf.floor(in_x)
    wx1, wy1 = (in_x - x0)[..., tf.newaxis], (in_y - y0)[..., tf.newaxis]
    top = (1.0 - wx1) * read(y0, x0) + wx1 * read(y0, x0 + 1.0)
    bottom = (1.0 - wx1) * read(y0 + 1.0, x0) + wx1 * read(y0 + 1.0, x0 + 1.0)
    return (1.0 - wy1) * top + wy1 * bottom


def projective_transform(
    batch: tf.Tensor, transforms: tf.Tensor, interpolation: str, fill_mode: str, fill_value: Any
) -> tf.Tensor:
    """Resample a channels-last batch ``(b, h, w, c)`` by ``transforms`` (``(b, 8)`` or ``(1, 8)``), same dtype."""
    transforms = tf.cast(transforms, tf.float32)
    dtype = batch.dtype
    if in_xla_compilation():
        out = _gather_transform(batch, transforms, interpolation, fill_mode, fill_value)
        out = ic.cast_back(out, dtype) if dtype.is_integer else tf.cast(out, dtype)
    else:
        work = batch if dtype in _KERNEL_DTYPES else tf.cast(batch, tf.float32)
        out = tf.raw_ops.ImageProjectiveTransformV3(
            images=work,
            transforms=transforms,
            output_shape=tf.shape(batch)[1:3],
            fill_value=tf.cast(fill_value, tf.float32),
            interpolation=interpolation.upper(),
            fill_mode=fill_mode.upper(),
        )
        out = ic.cast_back(out, dtype)
    return tf.ensure_shape(out, batch.shape)


def _check_choices(op: str, interpolation: str, fill_mode: str) -> None:
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"tfkit.ops.image.{op}: interpolation must be one of {INTERPOLATIONS}, got {interpolation!r}")
    if fill_mode not in FILL_MODES:
        raise ValueError(f"tfkit.ops.image.{op}: fill_mode must be one of {FILL_MODES}, got {fill_mode!r}")


def affine_transform(
    images: Any,
    transform: Any,
    interpolation: str = "bilinear",
    fill_mode: str = "constant",
    fill_value: float = 0,
    data_format: str | None = None,
) -> tf.Tensor:
    """Applies the given transform(s) to the image(s).

    It runs TensorFlow's `ImageProjectiveTransformV3` kernel; under XLA (which
    has no such kernel) the same arithmetic runs on gathers, so the op also
    compiles with `jit_compile=True`. The result has the dtype of `images`
    (integer results rounded and saturated).

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        transform: Projective transform matrix/matrices. A vector of length 8 or
            tensor of size N x 8. If one row of transform is
            `[a0, a1, a2, b0, b1, b2, c0, c1]`, then it maps the output point
            `(x, y)` to a transformed input point
            `(x', y') = ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`,
            where `k = c0 x + c1 y + 1`. The transform is inverted compared to
            the transform mapping input points to output points. Note that
            gradients are not backpropagated into transformation parameters.
            `c0` and `c1` take effect, as on Keras's TensorFlow backend.
        interpolation: Interpolation method. Available methods are `"nearest"`,
            and `"bilinear"`. Defaults to `"bilinear"`.
        fill_mode: Points outside the boundaries of the input are filled
            according to the given mode. Available methods are `"constant"`,
            `"nearest"`, `"wrap"` and `"reflect"`. Defaults to `"constant"`.

            - `"reflect"`: `(d c b a | a b c d | d c b a)`
              The input is extended by reflecting about the edge of the last
              pixel.
            - `"constant"`: `(k k k k | a b c d | k k k k)`
              The input is extended by filling all values beyond
              the edge with the same constant value k specified by
              `fill_value`.
            - `"wrap"`: `(a b c d | a b c d | a b c d)`
              The input is extended by wrapping around to the opposite edge.
            - `"nearest"`: `(a a a a | a b c d | d d d d)`
              The input is extended by the nearest pixel.
        fill_value: Value used for points outside the boundaries of the input if
            `fill_mode="constant"`. Defaults to `0`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Applied affine transform image or batch of images.

    Raises:
        ValueError: If `interpolation`, `fill_mode` or `data_format` is not one
            of the values above, if `images` is not 3D or 4D, or if `transform`
            does not have shape `(8,)` or `(N, 8)`.
        TypeError: If `images` is not numeric (bool, string or complex) or
            cannot be converted to a tensor.

    Example:
        >>> x = np.random.random((2, 64, 80, 3))  # batch of 2 RGB images
        >>> transform = np.array(
        ...     [
        ...         [1.5, 0, -20, 0, 1.5, -16, 0, 0],  # zoom
        ...         [1, 0, -20, 0, 1, -16, 0, 0],  # translation
        ...     ]
        ... )
        >>> tfkit.ops.image.affine_transform(x, transform).shape
        TensorShape([2, 64, 80, 3])
        >>> image = np.arange(9.0, dtype="float32").reshape(3, 3, 1)
        >>> shift = [1, 0, 1, 0, 1, 0, 0, 0]  # output (x, y) reads input (x + 1, y)
        >>> tfkit.ops.image.affine_transform(image, shift)[:, :, 0].numpy()
        array([[1., 2., 0.],
               [4., 5., 0.],
               [7., 8., 0.]], dtype=float32)
        >>> tfkit.ops.image.affine_transform(image, shift, fill_mode="nearest")[:, :, 0].numpy()
        array([[1., 2., 2.],
               [4., 5., 5.],
               [7., 8., 8.]], dtype=float32)
    """
    op = "affine_transform"
    _check_choices(op, interpolation, fill_mode)
    data_format = ic.standard_format(data_format, op)
    images = ic.as_tensor(images, op)
    ic.check_rank(images, op)
    ic.check_numeric(images, op)
    transform = ic.as_tensor(transform, op, "transform")
    if transform.shape.rank not in (1, 2) or transform.shape[-1] not in (8, None):
        raise ValueError(
            f"tfkit.ops.image.{op}: transform must have shape (8,) or (batch, 8), got shape "
            f"{tuple(transform.shape) if transform.shape.rank is not None else 'of unknown rank'}"
        )
    if transform.shape.rank == 1:
        transform = transform[tf.newaxis]
    batch, unbatched = ic.to_batch_last(images, data_format)
    out = projective_transform(batch, transform, interpolation, fill_mode, fill_value)
    return ic.from_batch_last(out, unbatched, data_format)


def homography(start_points: tf.Tensor, end_points: tf.Tensor) -> tf.Tensor:
    """``(b, 8)`` transforms mapping each output corner ``end_points[i]`` to the input ``start_points[i]``.

    Both are ``(b, 4, 2)`` float32 arrays of ``(x, y)`` points.
    """
    sx, sy = start_points[..., 0], start_points[..., 1]
    ex, ey = end_points[..., 0], end_points[..., 1]
    ones, zeros = tf.ones_like(ex), tf.zeros_like(ex)
    rows_x = tf.stack([ex, ey, ones, zeros, zeros, zeros, -sx * ex, -sx * ey], axis=-1)  # (b, 4, 8)
    rows_y = tf.stack([zeros, zeros, zeros, ex, ey, ones, -sy * ex, -sy * ey], axis=-1)
    matrix = tf.reshape(tf.stack([rows_x, rows_y], axis=2), [-1, 8, 8])  # x, y rows per corner
    target = tf.reshape(tf.stack([sx, sy], axis=-1), [-1, 8, 1])
    return tf.reshape(tf.linalg.solve(matrix, target), [-1, 8])


def _points(points: Any, op: str, what: str) -> tf.Tensor:
    points = tf.cast(ic.as_tensor(points, op, what), tf.float32)
    if points.shape.rank not in (2, 3) or tuple(points.shape[-2:]) != (4, 2):
        raise ValueError(
            f"tfkit.ops.image.{op}: {what} must have shape (4, 2) for one image or (batch, 4, 2), "
            f"got shape {tuple(points.shape)}"
        )
    return points if points.shape.rank == 3 else points[tf.newaxis]


def perspective_transform(
    images: Any,
    start_points: Any,
    end_points: Any,
    interpolation: str = "bilinear",
    fill_value: float = 0,
    data_format: str | None = None,
) -> tf.Tensor:
    """Applies a perspective transformation to the image(s).

    The image is warped so that the four `start_points` land on the four
    `end_points`; output pixels that map outside the input are `fill_value`.
    Points are `(x, y)` pairs. It runs TensorFlow's `ImageProjectiveTransformV3` kernel; under XLA (which
    has no such kernel) the same arithmetic runs on gathers, so the op also
    compiles with `jit_compile=True`. The result has the dtype of `images`
    (integer results rounded and saturated).

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        start_points: A tensor of shape `(N, 4, 2)` or `(4, 2)`,
            representing the source points in the original image
            that define the transformation.
        end_points: A tensor of shape `(N, 4, 2)` or `(4, 2)`,
            representing the target points in the output image
            after transformation.
        interpolation: Interpolation method. Available methods are `"nearest"`,
            and `"bilinear"`. Defaults to `"bilinear"`.
        fill_value: Value used for points outside the boundaries of the input if
            extrapolation is needed. Defaults to `0`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Applied perspective transform image or batch of images.

    Raises:
        ValueError: If `interpolation` or `data_format` is not one of the
            values above, if `images` is not 3D or 4D, or if the points do not
            have shape `(4, 2)` or `(N, 4, 2)` or differ in shape.
        TypeError: If `images` is not numeric (bool, string or complex) or
            cannot be converted to a tensor.

    Example:
        >>> x = np.random.random((64, 80, 3))  # single RGB image
        >>> start_points = np.array([[0, 0], [0, 64], [80, 0], [80, 64]])
        >>> end_points = np.array([[3, 5], [7, 64], [76, -10], [84, 61]])
        >>> tfkit.ops.image.perspective_transform(x, start_points, end_points).shape
        TensorShape([64, 80, 3])
        >>> image = np.arange(9.0, dtype="float32").reshape(3, 3, 1)
        >>> start = np.array([[0, 0], [2, 0], [0, 2], [2, 2]])
        >>> out = tfkit.ops.image.perspective_transform(image, start, start + [1, 0])  # one pixel right
        >>> np.round(out[:, :, 0].numpy(), 4)
        array([[0., 0., 1.],
               [0., 3., 4.],
               [0., 6., 7.]], dtype=float32)
    """
    op = "perspective_transform"
    _check_choices(op, interpolation, "constant")
    data_format = ic.standard_format(data_format, op)
    images = ic.as_tensor(images, op)
    ic.check_rank(images, op)
    ic.check_numeric(images, op)
    start = _points(start_points, op, "start_points")
    end = _points(end_points, op, "end_points")
    if start.shape != end.shape:
        raise ValueError(
            f"tfkit.ops.image.{op}: start_points and end_points must have the same shape, got "
            f"{tuple(start.shape)} and {tuple(end.shape)}"
        )
    batch, unbatched = ic.to_batch_last(images, data_format)
    out = projective_transform(batch, homography(start, end), interpolation, "constant", fill_value)
    return ic.from_batch_last(out, unbatched, data_format)
