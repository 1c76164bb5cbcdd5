"""Size-changing ops of ``tfkit.ops.image``: resize, crop, pad, scale-and-translate.

small = tfkit.ops.image.resize(images, (64, 64), crop_to_aspect_ratio=True)
framed = tfkit.ops.image.pad_images(images, top_padding=2, bottom_padding=2, left_padding=0, right_padding=0)
center = tfkit.ops.image.crop_images(images, top_cropping=4, left_cropping=4, target_height=56, target_width=56)
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Sequence

import numpy as np
import tensorflow as tf

from tfkit.ops import image_common as ic

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _int_dim(value: Any) -> Any:
    return tf.cast(value, tf.int32) if tf.is_tensor(value) else int(value)


def _size(size: Any) -> tuple[int, int]:
    if not isinstance(size, (list, tuple, np.ndarray)) or len(size) != 2:
        raise ValueError(f"tfkit.ops.image.resize: size must be a pair (height, width), got {size!r}")
    if not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size):
        raise ValueError(f"tfkit.ops.image.resize: size must hold two integers, got {size!r}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"tfkit.ops.image.resize: size must have a positive height and width, got {tuple(size)}")
    return int(size[0]), int(size[1])


def _aspect_crop(images: tf.Tensor, height: int, width: int) -> tf.Tensor:
    """The largest centered window of a channels-last batch with the aspect ratio ``height : width``."""
    shape = tf.shape(images)
    in_h, in_w = shape[1], shape[2]
    crop_h = tf.cast(tf.cast(in_w * height, tf.float32) / width, tf.int32)
    crop_h = tf.maximum(tf.minimum(in_h, crop_h), 1)
    crop_w = tf.cast(tf.cast(in_h * width, tf.float32) / height, tf.int32)
    crop_w = tf.maximum(tf.minimum(in_w, crop_w), 1)
    top = tf.cast(tf.cast(in_h - crop_h, tf.float32) / 2, tf.int32)
    left = tf.cast(tf.cast(in_w - crop_w, tf.float32) / 2, tf.int32)
    return images[:, top : top + crop_h, left : left + crop_w, :]


def _aspect_pad(images: tf.Tensor, height: int, width: int, fill_value: Any) -> tf.Tensor:
    """Pad a channels-last batch evenly on both sides toward the aspect ratio ``height : width``."""
    shape = tf.shape(images)
    in_h, in_w = shape[1], shape[2]
    pad_h = tf.maximum(in_h, tf.cast(tf.cast(in_w * height, tf.float32) / width, tf.int32))
    pad_w = tf.maximum(in_w, tf.cast(tf.cast(in_h * width, tf.float32) / height, tf.int32))
    top = tf.cast(tf.cast(pad_h - in_h, tf.float32) / 2, tf.int32)
    left = tf.cast(tf.cast(pad_w - in_w, tf.float32) / 2, tf.int32)
    paddings = [[0, 0], [top, top], [left, left], [0, 0]]
    return tf.pad(images, paddings, constant_values=tf.cast(fill_value, images.dtype))


def resize(
    images: Any,
    size: Sequence[int],
    interpolation: str = "bilinear",
    antialias: bool = False,
    crop_to_aspect_ratio: bool = False,
    pad_to_aspect_ratio: bool = False,
    fill_mode: str = "constant",
    fill_value: float = 0.0,
    data_format: str | None = None,
) -> tf.Tensor:
    """Resize images to size using the specified interpolation method.

    It uses `tf.image.resize`. The result has the dtype of `images`: integer
    images are rounded and saturated back, as Keras does.

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        size: Size of output image in `(height, width)` format: two positive
            integers.
        interpolation: Interpolation method. Available methods are `"nearest"`,
            `"bilinear"`, `"bicubic"`, `"area"`, `"lanczos3"` and `"lanczos5"`.
            Defaults to `"bilinear"`.
        antialias: Whether to use an antialiasing filter when downsampling an
            image. Defaults to `False`.
        crop_to_aspect_ratio: If `True`, resize the images without aspect
            ratio distortion. When the original aspect ratio differs
            from the target aspect ratio, the output image will be
            cropped so as to return the
            largest possible window in the image (of size `(height, width)`)
            that matches the target aspect ratio. By default
            (`crop_to_aspect_ratio=False`), aspect ratio may not be preserved.
        pad_to_aspect_ratio: If `True`, pad the images without aspect
            ratio distortion. When the original aspect ratio differs
            from the target aspect ratio, the output image will be
            evenly padded on the short side. Defaults to `False`.
        fill_mode: When using `pad_to_aspect_ratio=True`, padded areas
            are filled according to the given mode. Only `"constant"` (the
            default) is supported at this time
            (fill with constant value, equal to `fill_value`).
        fill_value: Float. Padding value to use when `pad_to_aspect_ratio=True`.
            Defaults to `0.0`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Resized image or batch of images.

    Raises:
        ValueError: If `size` is not two positive integers, if `interpolation`,
            `fill_mode` or `data_format` is not one of the values above, if both
            `crop_to_aspect_ratio` and `pad_to_aspect_ratio` are `True`, or if
            `images` is not 3D or 4D.
        TypeError: If `images` is not numeric (bool, string or complex) or
            cannot be converted to a tensor.

    Example:
        >>> x = np.random.random((2, 4, 4, 3))  # batch of 2 RGB images
        >>> tfkit.ops.image.resize(x, (2, 2)).shape
        TensorShape([2, 2, 2, 3])
        >>> x = np.random.random((2, 3, 4, 4))  # batch of 2 RGB images
        >>> tfkit.ops.image.resize(x, (2, 2), data_format="channels_first").shape
        TensorShape([2, 3, 2, 2])
        >>> x = np.arange(16.0, dtype="float32").reshape(4, 4, 1)
        >>> tfkit.ops.image.resize(x, (2, 2))[:, :, 0].numpy()
        array([[ 2.5,  4.5],
               [10.5, 12.5]], dtype=float32)
        >>> tfkit.ops.image.resize(np.ones((4, 8, 3)), (4, 4), crop_to_aspect_ratio=True).shape
        TensorShape([4, 4, 3])
    """
    height, width = _size(size)
    data_format = ic.standard_format(data_format, "resize")
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(
            f"tfkit.ops.image.resize: interpolation must be one of {RESIZE_INTERPOLATIONS}, got {interpolation!r}"
        )
    if fill_mode != "constant":
        raise ValueError(f"tfkit.ops.image.resize: only fill_mode='constant' is supported, got {fill_mode!r}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("tfkit.ops.image.resize: only one of crop_to_aspect_ratio and pad_to_aspect_ratio can be True")
    images = ic.as_tensor(images, "resize")
    ic.check_rank(images, "resize")
    ic.check_numeric(images, "resize")
    batch, unbatched = ic.to_batch_last(images, data_format)
    if crop_to_aspect_ratio:
        batch = _aspect_crop(batch, height, width)
    elif pad_to_aspect_ratio:
        batch = _aspect_pad(batch, height, width, fill_value)
    resized = tf.image.resize(batch, (height, width), method=interpolation, antialias=antialias)
    return ic.from_batch_last(ic.cast_back(resized, images.dtype), unbatched, data_format)


def _check_edges(op: str, near: Any, far: Any, target: Any, near_name: str, far_name: str, target_name: str) -> None:
    given = [v for v in (near, far, target) if v is not None]
    if len(given) != 2:
        raise ValueError(
            f"tfkit.ops.image.{op}: give exactly two of {near_name}, {far_name} and {target_name}; "
            f"got {near_name}={near}, {far_name}={far}, {target_name}={target}"
        )
    for value, name in ((near, near_name), (far, far_name), (target, target_name)):
        if value is not None and not tf.is_tensor(value):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise ValueError(f"tfkit.ops.image.{op}: {name} must be an integer, got {value!r}")
            if value < 0:
                raise ValueError(f"tfkit.ops.image.{op}: {name} must be >= 0, got {name}={value}")


def _check_nonnegative(op: str, **values: Any) -> None:
    for name, value in values.items():
        if isinstance(value, int) and value < 0:
            raise ValueError(
                f"tfkit.ops.image.{op}: {name} must be >= 0, got {name}={value} "
                f"(the images are too small for the other arguments)"
            )


def _hw_axes(rank: int, data_format: str) -> tuple[int, int]:
    return (rank - 3, rank - 2) if data_format == "channels_last" else (rank - 2, rank - 1)


def pad_images(
    images: Any,
    top_padding: int | None = None,
    left_padding: int | None = None,
    bottom_padding: int | None = None,
    right_padding: int | None = None,
    target_height: int | None = None,
    target_width: int | None = None,
    data_format: str | None = None,
) -> tf.Tensor:
    """Pad `images` with zeros to the specified `height` and `width`.

    Along each direction give exactly two of the three values: for the
    height, two of `top_padding`, `bottom_padding` and `target_height`; for
    the width, two of `left_padding`, `right_padding` and `target_width`.
    The third follows from the image size.

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        top_padding: Number of rows of zeros to add on top. Defaults to `None`.
        left_padding: Number of columns of zeros to add on the left. Defaults
            to `None`.
        bottom_padding: Number of rows of zeros to add at the bottom. Defaults
            to `None`.
        right_padding: Number of columns of zeros to add on the right.
            Defaults to `None`.
        target_height: Height of output images. Defaults to `None`.
        target_width: Width of output images. Defaults to `None`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Padded image or batch of images.

    Raises:
        ValueError: If a direction is not given exactly two of its three
            values, if a value is negative or not an integer, if the target is
            smaller than the images, if `images` is not 3D or 4D, or if
            `data_format` is not one of the values above.
        TypeError: If `images` cannot be converted to a tensor.

    Example:
        >>> images = np.random.random((15, 25, 3))
        >>> tfkit.ops.image.pad_images(images, 2, 3, target_height=20, target_width=30).shape
        TensorShape([20, 30, 3])
        >>> batch_images = np.random.random((2, 15, 25, 3))
        >>> tfkit.ops.image.pad_images(batch_images, 2, 3, target_height=20, target_width=30).shape
        TensorShape([2, 20, 30, 3])
    """
    _check_edges(
        "pad_images", top_padding, bottom_padding, target_height, "top_padding", "bottom_padding", "target_height"
    )
    _check_edges(
        "pad_images", left_padding, right_padding, target_width, "left_padding", "right_padding", "target_width"
    )
    data_format = ic.standard_format(data_format, "pad_images")
    images = ic.as_tensor(images, "pad_images")
    rank = ic.check_rank(images, "pad_images")
    h_axis, w_axis = _hw_axes(rank, data_format)
    dims = ic.static_or_dynamic(images)
    height, width = dims[h_axis], dims[w_axis]
    top = target_height - bottom_padding - height if top_padding is None else top_padding
    bottom = target_height - top - height if bottom_padding is None else bottom_padding
    left = target_width - right_padding - width if left_padding is None else left_padding
    right = target_width - left - width if right_padding is None else right_padding
    _check_nonnegative("pad_images", top_padding=top, bottom_padding=bottom, left_padding=left, right_padding=right)
    paddings: list[Any] = [[0, 0]] * rank
    paddings[h_axis], paddings[w_axis] = [top, bottom], [left, right]
    return tf.pad(images, paddings)


def crop_images(
    images: Any,
    top_cropping: int | None = None,
    left_cropping: int | None = None,
    bottom_cropping: int | None = None,
    right_cropping: int | None = None,
    target_height: int | None = None,
    target_width: int | None = None,
    data_format: str | None = None,
) -> tf.Tensor:
    """Crop `images` to a specified `height` and `width`.

    Along each direction give exactly two of the three values: for the
    height, two of `top_cropping`, `bottom_cropping` and `target_height`; for
    the width, two of `left_cropping`, `right_cropping` and `target_width`.
    The third follows from the image size.

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        top_cropping: Number of rows to crop from the top. Defaults to
            `None`.
        left_cropping: Number of columns to crop from the left. Defaults to
            `None`.
        bottom_cropping: Number of rows to crop from the bottom. Defaults to
            `None`.
        right_cropping: Number of columns to crop from the right. Defaults to
            `None`.
        target_height: Height of the output images. Defaults to `None`.
        target_width: Width of the output images. Defaults to `None`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Cropped image or batch of images.

    Raises:
        ValueError: If a direction is not given exactly two of its three
            values, if a value is negative or not an integer, if the images are
            too small for the crop, if `images` is not 3D or 4D, or if
            `data_format` is not one of the values above.
        TypeError: If `images` cannot be converted to a tensor.

    Example:
        >>> images = np.reshape(np.arange(1, 28, dtype="float32"), [3, 3, 3])
        >>> images[:, :, 0]  # the first channel of the images
        array([[ 1.,  4.,  7.],
               [10., 13., 16.],
               [19., 22., 25.]], dtype=float32)
        >>> cropped = tfkit.ops.image.crop_images(images, 0, 0, target_height=2, target_width=2)
        >>> cropped[:, :, 0].numpy()
        array([[ 1.,  4.],
               [10., 13.]], dtype=float32)
    """
    _check_edges(
        "crop_images", top_cropping, bottom_cropping, target_height, "top_cropping", "bottom_cropping", "target_height"
    )
    _check_edges(
        "crop_images", left_cropping, right_cropping, target_width, "left_cropping", "right_cropping", "target_width"
    )
    data_format = ic.standard_format(data_format, "crop_images")
    images = ic.as_tensor(images, "crop_images")
    rank = ic.check_rank(images, "crop_images")
    h_axis, w_axis = _hw_axes(rank, data_format)
    dims = ic.static_or_dynamic(images)
    height, width = dims[h_axis], dims[w_axis]
    top = height - target_height - bottom_cropping if top_cropping is None else top_cropping
    out_h = height - top - bottom_cropping if target_height is None else target_height
    left = width - target_width - right_cropping if left_cropping is None else left_cropping
    out_w = width - left - right_cropping if target_width is None else target_width
    _check_nonnegative("crop_images", top_cropping=top, left_cropping=left, target_height=out_h, target_width=out_w)
    if isinstance(height, int) and isinstance(out_h, int) and isinstance(top, int) and top + out_h > height:
        raise ValueError(
            f"tfkit.ops.image.crop_images: cropping {top} rows and keeping {out_h} needs images at "
            f"least {top + out_h} high, got shape {tuple(images.shape)}"
        )
    if isinstance(width, int) and isinstance(out_w, int) and isinstance(left, int) and left + out_w > width:
        raise ValueError(
            f"tfkit.ops.image.crop_images: cropping {left} columns and keeping {out_w} needs images "
            f"at least {left + out_w} wide, got shape {tuple(images.shape)}"
        )
    index: list[Any] = [slice(None)] * rank
    index[h_axis] = slice(top, top + out_h)
    index[w_axis] = slice(left, left + out_w)
    return images[tuple(index)]


# ------------------------------------------------------------ scale_and_translate


def _triangle(x: tf.Tensor) -> tf.Tensor:
    return tf.maximum(0.0 * x, 1.0 - x)


def _keys_cubic(x: tf.Tensor) -> tf.Tensor:
    near = (1.5 * x - 2.5) * x * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return tf.where(x < 1.0, near, tf.where(x < 2.0, far, tf.zeros_like(x)))


def _lanczos(radius: float) -> Callable[[tf.Tensor], tf.Tensor]:
    def kernel(x: tf.Tensor) -> tf.Tensor:
        safe = tf.where(x > 1e-3, x, tf.ones_like(x))
        value = radius * tf.sin(np.pi * safe) * tf.sin(np.pi * safe / radius) / (np.pi**2 * safe * safe)
        return tf.where(x > radius, tf.zeros_like(x), tf.where(x > 1e-3, value, tf.ones_like(x)))

    return kernel


_KERNELS: dict[str, Callable[[tf.Tensor], tf.Tensor]] = {
    "linear": _triangle,
    "bilinear": _triangle,
    "trilinear": _triangle,
    "triangle": _triangle,
    "cubic": _keys_cubic,
    "bicubic": _keys_cubic,
    "tricubic": _keys_cubic,
    "lanczos3": _lanczos(3.0),
    "lanczos5": _lanczos(5.0),
}


def _weight_matrix(
    in_size: Any,
    out_size: int,
    scale: tf.Tensor,
    translation: tf.Tensor,
    kernel: Callable[[tf.Tensor], tf.Tensor],
    antialias: bool,
) -> tf.Tensor:
    """``(in_size, out_size)`` resampling weights along one axis (half-pixel centres, as in JAX)."""
    dtype = scale.dtype
    inverse = 1.0 / scale
    kernel_scale = tf.maximum(inverse, 1.0) if antialias else tf.constant(1.0, dtype)
    sample = (tf.range(out_size, dtype=dtype) + 0.5) * inverse - translation * inverse - 0.5
    distance = tf.abs(sample[tf.newaxis, :] - tf.range(in_size, dtype=dtype)[:, tf.newaxis]) / kernel_scale
    weights = kernel(distance)
    total = tf.reduce_sum(weights, axis=0, keepdims=True)
    usable = tf.abs(total) > 1000.0 * float(np.finfo(np.float32).eps)
    weights = tf.where(usable, weights / tf.where(total != 0, total, tf.ones_like(total)), tf.zeros_like(weights))
    inside = (sample >= -0.5) & (sample <= tf.cast(in_size, dtype) - 0.5)
    return tf.where(inside[tf.newaxis, :], weights, tf.zeros_like(weights))


def scale_and_translate(
    images: Any,
    output_shape: Sequence[int],
    scale: Any,
    translation: Any,
    spatial_dims: Sequence[int],
    method: str,
    antialias: bool = True,
) -> tf.Tensor:
    """Apply a scale and translation to the images.

    Generates a new image of `output_shape` by resampling from the input image
    using the sampling method corresponding to method. For 2D images, this
    operation transforms a location in the input images, (x, y), to a location
    in the output image according to:

    `(x * scale[1] + translation[1], y * scale[0] + translation[0])`.

    (Note the inverse warp is used to generate the sample locations.) Assumes
    half-centered pixels, i.e the pixel at integer location row, col has
    coordinates y, x = row + 0.5, col + 0.5, and similarly for other input image
    dimensions.

    If an output location(pixel) maps to an input sample location that is
    outside the input boundaries then the value for the output location will be
    set to zero. Integer images are rounded and clipped to the range of the
    input's values.

    The `method` argument expects one of the following resize methods:

    - `"linear"`, `"bilinear"`, `"trilinear"`, `"triangle"`: Linear
      interpolation. If `antialias` is True, uses a triangular filter when
      downsampling.
    - `"cubic"`, `"bicubic"`, `"tricubic"`: Cubic interpolation, using the Keys
      cubic kernel.
    - `"lanczos3"`: Lanczos resampling, using a kernel of radius 3.
    - `"lanczos5"`: Lanczos resampling, using a kernel of radius 5.

    Args:
        images: The input array.
        output_shape: The output shape, as a sequence of integers with length
            equal to the number of dimensions of image.
        scale: A `[K]` array containing the scale to apply in each of the
            `spatial_dims`.
        translation: A `[K]` array containing the translation to apply in each
            of the `spatial_dims`.
        spatial_dims: A length K tuple specifying the spatial dimensions that
            the passed `scale` and `translation` should be applied to.
        method: A string specifying the resizing method to use. Available
            methods are `"linear"`, `"bilinear"`, `"trilinear"`, `"triangle"`,
            `"cubic"`, `"bicubic"`, `"tricubic"`, `"lanczos3"` and `"lanczos5"`.
        antialias: Whether an antialiasing filter should be applied when
            downsampling. Has no effect when upsampling. Defaults to `True`.

    Returns:
        The scale and translated images.

    Raises:
        ValueError: If `method` is not one of the values above, if
            `output_shape` does not have one entry per dimension of `images`, if
            a spatial dim is out of range, or if `scale` or `translation` does
            not have one entry per spatial dim.
        TypeError: If `images` is not numeric (bool, string or complex) or
            cannot be converted to a tensor.

    Example:
        >>> images = np.arange(9, dtype="float32").reshape((3, 3))
        >>> scale = np.array([2.0, 2.0]).astype("float32")
        >>> translation = -(scale / 2.0 - 0.5)
        >>> tfkit.ops.image.scale_and_translate(
        ...     images, (5, 5), scale, translation, (0, 1), "linear").numpy()
        array([[0. , 0.5, 1. , 1.5, 2. ],
               [1.5, 2. , 2.5, 3. , 3.5],
               [3. , 3.5, 4. , 4.5, 5. ],
               [4.5, 5. , 5.5, 6. , 6.5],
               [6. , 6.5, 7. , 7.5, 8. ]], dtype=float32)
    """
    op = "scale_and_translate"
    if method not in _KERNELS:
        raise ValueError(f"tfkit.ops.image.{op}: method must be one of {sorted(_KERNELS)}, got {method!r}")
    images = ic.as_tensor(images, op)
    ic.check_numeric(images, op)
    rank = images.shape.rank
    spatial_dims = [int(d) for d in spatial_dims]
    output_shape = list(output_shape)
    if len(output_shape) != rank:
        raise ValueError(
            f"tfkit.ops.image.{op}: output_shape needs one entry per dimension of images "
            f"(rank {rank}), got {output_shape}"
        )
    for d in spatial_dims:
        if not -rank <= d < rank:
            raise ValueError(f"tfkit.ops.image.{op}: spatial_dims entry {d} is out of range for rank {rank}")
    work = ic.work_dtype(images.dtype)
    weights_dtype = tf.float64 if work == tf.float64 else tf.float32
    scale = tf.cast(ic.as_tensor(scale, op, "scale"), weights_dtype)
    translation = tf.cast(ic.as_tensor(translation, op, "translation"), weights_dtype)
    for what, value in (("scale", scale), ("translation", translation)):
        if value.shape.rank != 1 or value.shape[0] != len(spatial_dims):
            raise ValueError(
                f"tfkit.ops.image.{op}: {what} needs one entry per spatial dim "
                f"({len(spatial_dims)}), got shape {tuple(value.shape)}"
            )
    kernel = _KERNELS[method]
    output = tf.cast(images, work)
    dims = ic.static_or_dynamic(images)
    for i, d in enumerate(spatial_dims):
        d %= rank
        weights = _weight_matrix(dims[d], int(output_shape[d]), scale[i], translation[i], kernel, antialias)
        output = tf.tensordot(output, tf.cast(weights, work), axes=[[d], [0]])
        output = tf.experimental.numpy.moveaxis(output, -1, d)
    if images.dtype.is_integer:
        low, high = tf.reduce_min(images), tf.reduce_max(images)
        output = tf.clip_by_value(tf.round(output), tf.cast(low, work), tf.cast(high, work))
    return tf.cast(output, images.dtype)
