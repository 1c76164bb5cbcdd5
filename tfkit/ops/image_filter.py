"""Filters of ``tfkit.ops.image``: Gaussian blur, Sobel edges and SSIM.

    soft = tfkit.ops.image.gaussian_blur(images, kernel_size=(5, 5), sigma=(1.5, 1.5))
    edges = tfkit.ops.image.sobel_edges(images)                    # (b, h, w, c, 2): d/dy, d/dx
    score = tfkit.ops.image.ssim(clean, noisy, max_val=1.0)         # one number per image
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops import image_common as ic


def _gaussian_1d(size: Any, sigma: Any, dtype: tf.DType, max_size: int | None = None) -> tf.Tensor:
    """A normalised Gaussian of ``size`` taps (an odd int or scalar tensor) and standard deviation ``sigma``.

    With ``max_size`` (an odd int at least ``size``) the kernel has that many
    taps, zero beyond the centred ``size``: the same blur with a static shape,
    which XLA needs when ``size`` is a tensor.
    """
    taps = tf.cast(size if max_size is None else max_size, dtype)
    x = tf.range(taps, dtype=dtype) - (taps - 1.0) / 2.0
    kernel = tf.exp(-0.5 * tf.square(x / tf.cast(sigma, dtype)))
    if max_size is not None:
        kernel = tf.where(tf.abs(x) <= (tf.cast(size, dtype) - 1.0) / 2.0, kernel, tf.zeros_like(kernel))
    return kernel / tf.reduce_sum(kernel)


def separable_blur(batch: tf.Tensor, size_y: Any, size_x: Any, sigma_y: Any, sigma_x: Any,
                   max_size: int | None = None) -> tf.Tensor:
    """Blur a float channels-last batch with a Gaussian: rows then columns, zero padding (``"SAME"``).

    Equal to one 2-D convolution with the outer product of the two kernels,
    since the zero padding is separable too.
    """
    dtype = batch.dtype
    channels = tf.shape(batch)[-1]
    ky = _gaussian_1d(size_y, sigma_y, dtype, max_size)
    kx = _gaussian_1d(size_x, sigma_x, dtype, max_size)
    ky = tf.tile(tf.reshape(ky, [-1, 1, 1, 1]), [1, 1, channels, 1])
    kx = tf.tile(tf.reshape(kx, [1, -1, 1, 1]), [1, 1, channels, 1])
    out = tf.nn.depthwise_conv2d(batch, ky, strides=[1, 1, 1, 1], padding="SAME")
    out = tf.nn.depthwise_conv2d(out, kx, strides=[1, 1, 1, 1], padding="SAME")
    return tf.ensure_shape(out, batch.shape)


def gaussian_blur(images: Any, kernel_size: Any = (3, 3), sigma: Any = (1.0, 1.0),
                  data_format: str | None = None) -> tf.Tensor:
    """Blur images with a Gaussian kernel (zero padding at the borders), in their own dtype.

    As in Keras, the first entry of ``kernel_size`` and ``sigma`` applies
    along the width (x) and the second along the height (y); integer images
    are blurred in float32 and rounded back.
    """
    op = "gaussian_blur"
    size_x, size_y = ic.pair(kernel_size, op, "kernel_size")
    sigma_x, sigma_y = ic.pair(sigma, op, "sigma", float)
    for value in (size_x, size_y):
        if not tf.is_tensor(value) and (int(value) != value or value <= 0):
            raise ValueError(f"tfkit.ops.image.{op}: kernel_size must hold positive integers, got {kernel_size!r}")
    for value in (sigma_x, sigma_y):
        if not tf.is_tensor(value) and value <= 0:
            raise ValueError(f"tfkit.ops.image.{op}: sigma must be positive, got {sigma!r}")
    data_format = ic.standard_format(data_format, op)
    images = ic.as_tensor(images, op)
    ic.check_rank(images, op)
    ic.check_numeric(images, op)
    batch, unbatched = ic.to_batch_last(images, data_format)
    work = ic.work_dtype(images.dtype)
    out = separable_blur(tf.cast(batch, work), size_y, size_x, sigma_y, sigma_x)
    return ic.from_batch_last(ic.cast_back(out, images.dtype), unbatched, data_format)


def sobel_edges(images: Any, data_format: str | None = None) -> tf.Tensor:
    """Sobel derivatives of a batch of images: ``(..., 2)`` holding ``d/dy`` then ``d/dx``, per channel.

    Integer images are differentiated in float32 (the result is float32).
    """
    op = "sobel_edges"
    data_format = ic.standard_format(data_format, op)
    images = ic.as_tensor(images, op)
    ic.check_rank(images, op, ranks=(4,))
    ic.check_numeric(images, op)
    if not images.dtype.is_floating:
        images = tf.cast(images, tf.float32)
    if data_format == "channels_first":
        images = tf.transpose(images, (0, 2, 3, 1))
    edges = tf.image.sobel_edges(images)
    if data_format == "channels_first":
        edges = tf.transpose(edges, (0, 3, 1, 2, 4))
    return edges


def ssim(image1: Any, image2: Any, max_val: float = 1.0, filter_size: int = 11, filter_sigma: float = 1.5,
         k1: float = 0.01, k2: float = 0.03, data_format: str | None = None) -> tf.Tensor:
    """Structural similarity of two images (or batches), averaged over pixels and channels, as Keras computes it.

    Local means and variances come from a ``filter_size`` Gaussian window
    (``"VALID"``: the images must be at least that large). The result has
    ``image1``'s dtype: a scalar for single images, one value per image for
    batches.
    """
    op = "ssim"
    data_format = ic.standard_format(data_format, op)
    image1 = ic.as_tensor(image1, op, "image1")
    image2 = ic.as_tensor(image2, op, "image2")
    ic.check_rank(image1, op, "image1")
    ic.check_rank(image2, op, "image2")
    if image1.shape.is_fully_defined() and image2.shape.is_fully_defined() and image1.shape != image2.shape:
        raise ValueError(f"tfkit.ops.image.{op}: image1 and image2 must have the same shape, got "
                         f"{tuple(image1.shape)} and {tuple(image2.shape)}")
    h_axis = image1.shape.rank - (3 if data_format == "channels_last" else 2)
    small = [d for d in image1.shape[h_axis:h_axis + 2] if d is not None and d < filter_size]
    if small:
        raise ValueError(f"tfkit.ops.image.{op}: images must be at least filter_size={filter_size} high and wide, "
                         f"got image1 of shape {tuple(image1.shape)}; pass a smaller filter_size")
    dtype = image1.dtype
    work = ic.work_dtype(dtype)
    a, unbatched = ic.to_batch_last(tf.cast(image1, work), data_format)
    b, _ = ic.to_batch_last(tf.cast(image2, work), data_format)
    window = _gaussian_1d(filter_size, filter_sigma, work)
    window = tf.reshape(window[:, tf.newaxis] * window[tf.newaxis, :], [filter_size, filter_size, 1, 1])
    channels = tf.shape(a)[-1]
    window = tf.tile(window, [1, 1, channels, 1])

    def local_mean(x: tf.Tensor) -> tf.Tensor:
        return tf.nn.depthwise_conv2d(x, window, strides=[1, 1, 1, 1], padding="VALID")

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = local_mean(a), local_mean(b)
    var1 = local_mean(a * a) - mu1 * mu1
    var2 = local_mean(b * b) - mu2 * mu2
    cov = local_mean(a * b) - mu1 * mu2
    score = (2.0 * mu1 * mu2 + c1) * (2.0 * cov + c2) / ((mu1 * mu1 + mu2 * mu2 + c1) * (var1 + var2 + c2))
    result = tf.reduce_mean(score, axis=[1, 2, 3])
    return tf.cast(result[0] if unbatched else result, dtype)
