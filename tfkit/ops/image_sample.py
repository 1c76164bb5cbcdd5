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
    return tf.math.floordiv(_mirror(2 * index + 1, 2 * size + 1) - 1, 2), None  # reflect


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


def interpolate(
    inputs: tf.Tensor, coordinates: list[tf.Tensor], order: int, fill_mode: str, fill_value: Any, work: tf.DType
) -> tf.Tensor:
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
        extra = values.shape.rank - indices.shape.rank + 1  # trailing axes read whole
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


def map_coordinates(
    inputs: Any, coordinates: Any, order: int, fill_mode: str = "constant", fill_value: float = 0
) -> tf.Tensor:
    """Map the input array to new coordinates by interpolation.

    The result at each position is `inputs` read at the point given by
    `coordinates[:, position]`, by nearest-neighbour (`order=0`) or linear
    (`order=1`) interpolation. Boundary modes apply to each integer sample
    index, as in JAX, so interpolation near boundaries differs from the scipy
    function (see scipy issue 2640). The result has the dtype of `inputs`
    (integer results rounded and saturated).

    Args:
        inputs: The input array.
        coordinates: The coordinates at which inputs is evaluated: an array of
            shape `(inputs.ndim, ...)`, one row of positions per axis of
            `inputs`.
        order: The order of the spline interpolation. The order must be `0` or
            `1`. `0` indicates the nearest neighbor and `1` indicates the linear
            interpolation.
        fill_mode: Points outside the boundaries of the inputs are filled
            according to the given mode. Available methods are `"constant"`,
            `"nearest"`, `"wrap"`, `"mirror"` and `"reflect"`. Defaults to
            `"constant"`.

            - `"constant"`: `(k k k k | a b c d | k k k k)`
              The input is extended by filling all values beyond
              the edge with the same constant value k specified by
              `fill_value`.
            - `"nearest"`: `(a a a a | a b c d | d d d d)`
              The input is extended by the nearest pixel.
            - `"wrap"`: `(a b c d | a b c d | a b c d)`
              The input is extended by wrapping around to the opposite edge.
            - `"mirror"`: `(c d c b | a b c d | c b a b)`
              The input is extended by mirroring about the edge.
            - `"reflect"`: `(d c b a | a b c d | d c b a)`
              The input is extended by reflecting about the edge of the last
              pixel.
        fill_value: Value used for points outside the boundaries of the inputs
            if `fill_mode="constant"`. Defaults to `0`.

    Returns:
        The values of `inputs` at `coordinates`, of shape
        `coordinates.shape[1:]`.

    Raises:
        ValueError: If `fill_mode` is not one of the values above, or if
            `coordinates` does not have rank 2 or more with one row per axis of
            `inputs`.
        NotImplementedError: If `order` is not `0` or `1`.
        TypeError: If `inputs` is a string or complex tensor, or an argument
            cannot be converted to a tensor.

    Example:
        >>> x = np.arange(9.0, dtype="float32").reshape(3, 3)
        >>> coordinates = [[0.5, 1.0, 2.0], [0.0, 1.5, -1.0]]
        >>> tfkit.ops.image.map_coordinates(x, coordinates, order=1).numpy()
        array([1.5, 4.5, 0. ], dtype=float32)
        >>> tfkit.ops.image.map_coordinates(x, [[-1.0, 3.0], [0.0, 0.0]], 0, fill_mode="nearest").numpy()
        array([0., 6.], dtype=float32)
    """
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
        raise ValueError(
            f"tfkit.ops.image.{op}: coordinates must have rank 2 or more (one row of positions per "
            f"input axis), got shape {tuple(coordinates.shape)}"
        )
    if coordinates.shape[0] != rank:
        raise ValueError(
            f"tfkit.ops.image.{op}: coordinates needs one row per axis of inputs ({rank}), "
            f"got {coordinates.shape[0]} (inputs shape {tuple(inputs.shape)}, coordinates shape "
            f"{tuple(coordinates.shape)})"
        )
    work = coordinates.dtype if coordinates.dtype.is_floating else ic.work_dtype(inputs.dtype)
    values = interpolate(tf.cast(inputs, work), tf.unstack(coordinates, axis=0), order, fill_mode, fill_value, work)
    return ic.cast_back(values, inputs.dtype)


def elastic_transform(
    images: Any,
    alpha: float = 20.0,
    sigma: float = 5.0,
    interpolation: str = "bilinear",
    fill_mode: str = "reflect",
    fill_value: float = 0.0,
    seed: Any = None,
    data_format: str | None = None,
) -> tf.Tensor:
    """Applies elastic deformation to the image(s).

    Every pixel is displaced by a smooth random field: Gaussian noise blurred
    by a Gaussian of standard deviation `sigma` (a kernel of
    `6 * int(sigma) + 1` taps, as in Keras) and scaled by `alpha`. The x and y
    displacements are independent draws from `seed`. Pixels are read back as
    `map_coordinates` reads them; the result has the dtype of `images`.

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        alpha: Scaling factor that controls the intensity of the deformation.
            Defaults to `20.0`.
        sigma: Standard deviation of the Gaussian filter used for
            smoothing the displacement fields. Defaults to `5.0`.
        interpolation: Interpolation method. Available methods are `"nearest"`,
            and `"bilinear"`. Defaults to `"bilinear"`.
        fill_mode: Points outside the boundaries of the input are filled
            according to the given mode. Available methods are `"constant"`,
            `"nearest"`, `"wrap"`, `"mirror"` and `"reflect"`. Defaults to
            `"reflect"`.

            - `"constant"`: `(k k k k | a b c d | k k k k)`
              The input is extended by filling all values beyond
              the edge with the same constant value k specified by
              `fill_value`.
            - `"nearest"`: `(a a a a | a b c d | d d d d)`
              The input is extended by the nearest pixel.
            - `"wrap"`: `(a b c d | a b c d | a b c d)`
              The input is extended by wrapping around to the opposite edge.
            - `"mirror"`: `(c d c b | a b c d | c b a b)`
              The input is extended by mirroring about the edge.
            - `"reflect"`: `(d c b a | a b c d | d c b a)`
              The input is extended by reflecting about the edge of the last
              pixel.
        fill_value: Value used for points outside the boundaries of the input if
            `fill_mode="constant"`. Defaults to `0.0`.
        seed: The random seed: an int, a `tfkit.random.SeedGenerator` (a new
            field on each call) or `None` (the default) for an unseeded draw.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Transformed image or batch of images with elastic deformation.

    Raises:
        ValueError: If `interpolation`, `fill_mode` or `data_format` is not one
            of the values above, or if `images` is not 3D or 4D.
        TypeError: If `images` is not numeric (bool, string or complex) or
            cannot be converted to a tensor.

    Example:
        >>> x = np.random.random((2, 64, 80, 3))  # batch of 2 RGB images
        >>> tfkit.ops.image.elastic_transform(x, seed=1).shape
        TensorShape([2, 64, 80, 3])
        >>> x = np.random.random((2, 3, 64, 80))  # batch of 2 RGB images
        >>> tfkit.ops.image.elastic_transform(x, data_format="channels_first").shape
        TensorShape([2, 3, 64, 80])
    """
    op = "elastic_transform"
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"tfkit.ops.image.{op}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
    if fill_mode not in MAP_FILL_MODES:
        raise ValueError(f"tfkit.ops.image.{op}: fill_mode must be one of {MAP_FILL_MODES}, got {fill_mode!r}")
    data_format = ic.standard_format(data_format, op)
    images = ic.as_tensor(images, op)
    ic.check_rank(images, op)
    ic.check_numeric(images, op)
    batch, unbatched = ic.to_batch_last(images, data_format)
    out = elastic_batch(batch, alpha, sigma, interpolation, fill_mode, fill_value, seed)
    return ic.from_batch_last(out, unbatched, data_format)


def elastic_batch(
    batch: tf.Tensor,
    alpha: Any,
    sigma: Any,
    interpolation: str,
    fill_mode: str,
    fill_value: Any,
    seed: Any,
    max_sigma: float | None = None,
) -> tf.Tensor:
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
    noise = tf.stack(
        [tf.random.stateless_normal(tf.stack([b, h, w]), seed=seeds[i], dtype=work, alg=alg) * sigma for i in range(2)],
        axis=-1,
    )  # (b, h, w, 2): dx, dy
    max_taps = None if max_sigma is None else 6 * int(max_sigma) + 1
    field = separable_blur(noise, taps, taps, sigma, sigma, max_taps)
    rows = tf.cast(tf.range(h), work)[tf.newaxis, :, tf.newaxis] + alpha * field[..., 1]
    cols = tf.cast(tf.range(w), work)[tf.newaxis, tf.newaxis, :] + alpha * field[..., 0]
    index = tf.broadcast_to(tf.range(b)[:, tf.newaxis, tf.newaxis], tf.shape(rows))
    order = 0 if interpolation == "nearest" else 1
    out = interpolate(pixels, [index, rows, cols], order, fill_mode, fill_value, work)
    return ic.cast_back(tf.ensure_shape(out, batch.shape), batch.dtype)
