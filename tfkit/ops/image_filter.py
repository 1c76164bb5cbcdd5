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


def separable_blur(
    batch: tf.Tensor, size_y: Any, size_x: Any, sigma_y: Any, sigma_x: Any, max_size: int | None = None
) -> tf.Tensor:
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


def gaussian_blur(
    images: Any, kernel_size: Any = (3, 3), sigma: Any = (1.0, 1.0), data_format: str | None = None
) -> tf.Tensor:
    """Applies a Gaussian blur to the image(s).

    The image is convolved with a normalized Gaussian kernel, separably (rows
    then columns), with zero padding at the borders, so the output has the
    shape of the input. As in Keras, the first entry of `kernel_size` and
    `sigma` applies along the width (x) and the second along the height (y).
    The result has the dtype of `images`: integer images are blurred in
    float32, then rounded and saturated back.

    Args:
        images: Input image or batch of images. Must be 3D or 4D.
        kernel_size: A tuple of two integers (or one integer for both),
            specifying the width and height of the Gaussian kernel. Defaults to
            `(3, 3)`.
        sigma: A tuple of two floats (or one float for both), specifying the
            standard deviation of the Gaussian kernel along width and height.
            Defaults to `(1.0, 1.0)`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        Blurred image or batch of images.

    Raises:
        ValueError: If `kernel_size` does not hold positive integers, if
            `sigma` is not positive, if `images` is not 3D or 4D, or if
            `data_format` is not one of the values above.
        TypeError: If `images` is not numeric (bool, string or complex) or
            cannot be converted to a tensor.

    Example:
        >>> x = np.random.random((2, 64, 80, 3))  # batch of 2 RGB images
        >>> tfkit.ops.image.gaussian_blur(x).shape
        TensorShape([2, 64, 80, 3])
        >>> x = np.random.random((2, 3, 64, 80))  # batch of 2 RGB images
        >>> tfkit.ops.image.gaussian_blur(x, data_format="channels_first").shape
        TensorShape([2, 3, 64, 80])
        >>> dot = np.zeros((5, 5, 1), "float32")
        >>> dot[2, 2, 0] = 1.0
        >>> np.round(tfkit.ops.image.gaussian_blur(dot)[1:4, 1:4, 0].numpy(), 4)
        array([[0.0751, 0.1238, 0.0751],
               [0.1238, 0.2042, 0.1238],
               [0.0751, 0.1238, 0.0751]], dtype=float32)
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
    """Computes Sobel edge detection on images.

    The Sobel operator computes the gradient of the image intensity at each
    pixel, giving the direction of the largest increase from light to dark
    and the rate of change in that direction. It uses TensorFlow's
    `tf.image.sobel_edges` (3x3 kernels, reflected borders). Integer images are
    computed in float32 (and the result is float32).

    Args:
        images: Input tensor of shape `(batch, height, width, channels)` if
            `data_format="channels_last"`, or
            `(batch, channels, height, width)` if
            `data_format="channels_first"`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        A tensor containing the Sobel edges. For `data_format="channels_last"`,
        the output shape is `(batch, height, width, channels, 2)` where the
        last dimension contains `[dy, dx]` representing the vertical and
        horizontal gradients. For `data_format="channels_first"`, the output
        shape is `(batch, channels, height, width, 2)`.

    Raises:
        ValueError: If `images` is not 4D, or if `data_format` is not one of
            the values above.
        TypeError: If `images` is not numeric (bool, string or complex) or
            cannot be converted to a tensor.

    Example:
        >>> image = np.zeros((1, 4, 4, 1), dtype="float32")
        >>> image[0, :, 2:, 0] = 1.0  # a vertical edge
        >>> edges = tfkit.ops.image.sobel_edges(image)
        >>> edges.shape
        TensorShape([1, 4, 4, 1, 2])
        >>> edges[0, :, :, 0, 1].numpy()  # dx
        array([[0., 4., 4., 0.],
               [0., 4., 4., 0.],
               [0., 4., 4., 0.],
               [0., 4., 4., 0.]], dtype=float32)
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


def ssim(
    image1: Any,
    image2: Any,
    max_val: float = 1.0,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
    data_format: str | None = None,
) -> tf.Tensor:
    """Computes the Structural Similarity Index (SSIM) between two images.

    The SSIM index is a method for measuring the similarity between two images.
    It is based on the comparison of luminance, contrast, and structure
    between the images. The resulting SSIM index is a value between -1 and 1,
    where 1 indicates identical images.

    This implementation is based on the original SSIM paper:
    Wang, Z., Bovik, A. C., Sheikh, H. R., & Simoncelli, E. P. (2004).
    "Image quality assessment: from error visibility to structural similarity."
    IEEE Transactions on Image Processing.

    Local means, variances and covariance come from a `filter_size` Gaussian
    window without padding (`"valid"`), so the images must be at least
    `filter_size` high and wide; the SSIM map is averaged over pixels and
    channels. The result has the dtype of `image1` (integer images are computed
    in float32).

    Args:
        image1: First image or batch of images. Must be 3D or 4D.
        image2: Second image or batch of images. Must have the same shape
            as `image1`.
        max_val: The maximum possible pixel value of the images. Defaults to
            `1.0` (for normalized images). Use `255.0` for images with pixel
            values in `[0, 255]`.
        filter_size: Size of the Gaussian filter used for computing SSIM.
            Defaults to `11`. Must be an odd integer >= 1.
        filter_sigma: Standard deviation of the Gaussian filter. Defaults to
            `1.5`.
        k1: First stabilization constant. Defaults to `0.01`.
        k2: Second stabilization constant. Defaults to `0.03`.
        data_format: A string specifying the data format of the input tensor.
            It can be either `"channels_last"` or `"channels_first"`.
            `"channels_last"` corresponds to inputs with shape
            `(batch, height, width, channels)`, while `"channels_first"`
            corresponds to inputs with shape `(batch, channels, height, width)`.
            If not specified (`None`, the default), the value will default to
            `tfkit.backend.image_data_format()`.

    Returns:
        A tensor of SSIM values. For batched inputs, returns a 1D tensor
        with one SSIM value per image pair. For unbatched inputs, returns
        a scalar tensor.

    Raises:
        ValueError: If the images are not 3D or 4D, if their shapes differ, if
            they are smaller than `filter_size`, or if `data_format` is not one
            of the values above.
        TypeError: If an image cannot be converted to a tensor.

    Example:
        >>> image = np.random.random((32, 32, 3)).astype("float32")
        >>> float(tfkit.ops.image.ssim(image, image, max_val=1.0))
        1.0
        >>> images1 = np.random.random((2, 32, 32, 3)).astype("float32")
        >>> images2 = np.random.random((2, 32, 32, 3)).astype("float32")
        >>> tfkit.ops.image.ssim(images1, images2, max_val=1.0).shape
        TensorShape([2])
    """
    op = "ssim"
    data_format = ic.standard_format(data_format, op)
    image1 = ic.as_tensor(image1, op, "image1")
    image2 = ic.as_tensor(image2, op, "image2")
    ic.check_rank(image1, op, "image1")
    ic.check_rank(image2, op, "image2")
    if image1.shape.is_fully_defined() and image2.shape.is_fully_defined() and image1.shape != image2.shape:
        raise ValueError(
            f"tfkit.ops.image.{op}: image1 and image2 must have the same shape, got "
            f"{tuple(image1.shape)} and {tuple(image2.shape)}"
        )
    h_axis = image1.shape.rank - (3 if data_format == "channels_last" else 2)
    small = [d for d in image1.shape[h_axis : h_axis + 2] if d is not None and d < filter_size]
    if small:
        raise ValueError(
            f"tfkit.ops.image.{op}: images must be at least filter_size={filter_size} high and wide, "
            f"got image1 of shape {tuple(image1.shape)}; pass a smaller filter_size"
        )
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
