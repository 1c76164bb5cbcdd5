"""Filtering augmentations of Keras 3: ``RandomGaussianBlur``, ``RandomSharpness``, ``RandomErasing``.

    blur = tfkit.layers.RandomGaussianBlur(factor=0.5, kernel_size=5, sigma=1.0, seed=3)
    sharpen = tfkit.layers.RandomSharpness(0.5, value_range=(0, 1))
    erase = tfkit.layers.RandomErasing(factor=1.0, scale=(0.02, 0.2), fill_value=0.0)

Each is active only while training; images are clipped to ``value_range``.
Labels, masks and bounding boxes in dict inputs pass through unchanged.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.base import registry
from tfkit.layers.preprocessing import image_augment_base as base
from tfkit.layers.preprocessing.image_augment_base import RandomAugmentation, batch_size, per_image
from tfkit.ops import image as image_ops

__all__ = ["RandomGaussianBlur", "RandomSharpness", "RandomErasing"]


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


class _ClippedAugmentation(RandomAugmentation):
    def __init__(self, factor: Any, value_range: Any, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self.factor = base.factor_range(factor, "factor", self._who(), 0.0, 1.0)
        self.value_range = base.value_range_pair(value_range, self._who())

    def clip(self, images: tf.Tensor) -> tf.Tensor:
        return tf.clip_by_value(
            images, tf.cast(self.value_range[0], images.dtype), tf.cast(self.value_range[1], images.dtype)
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(factor=list(self.factor), value_range=list(self.value_range))
        return config


@registry.builtin("layers")
class RandomGaussianBlur(_ClippedAugmentation):
    """Applies random Gaussian blur to images for data augmentation.

    This layer blurs the input images with a Gaussian kernel, each image
    with a probability drawn from `factor`. One pair of standard deviations
    (for x and y) is drawn per call. The result is clipped to
    `value_range`. At inference time, the output is identical to the input
    (as floats).

    Args:
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the range
            the probability of applying the layer to an image is drawn from
            (one probability per image, then one coin flip). A float `f`
            means `(0, f)`; `(1.0, 1.0)` applies it to every image. Defaults to `1.0`.
        kernel_size: An odd positive integer, or a pair of them, the size of
            the Gaussian kernel (height, width). Defaults to `3`.
        sigma: A non-negative float or a pair of them, the range of the
            standard deviation of the kernel: a float `s` draws from `[0, s]`,
            a pair `(low, high)` from that interval. Defaults to `1.0`.
        value_range: The range of values the input images can take, a pair
            `(low, high)` (sorted if given in the other order); results are
            clipped to it. Use `(0, 255)` for 8-bit pixel values and `(0, 1)`
            for images in `[0, 1]`. Defaults to `(0, 255)`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (the other entries
            pass through unchanged). Images are computed on in the
            layer's float compute dtype; a dict input returns a dict.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as floats).
            Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `factor` is not a number or a pair in `[0, 1]`, `kernel_size`
            is not odd and positive, `sigma` is negative, `value_range` is
            not a pair of distinct numbers, `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomGaussianBlur(factor=(1.0, 1.0), kernel_size=3, sigma=1.0, seed=3)
        >>> layer(np.ones((2, 5, 5, 3))).shape
        TensorShape([2, 5, 5, 3])
        >>> x = np.zeros((1, 3, 3, 1))
        >>> x[0, 1, 1, 0] = 255.0
        >>> y = layer(x).numpy()[0, :, :, 0]
        >>> bool(y[1, 1] < 255.0 and y[0, 0] > 0.0)  # the bright pixel spreads to its neighbours
        True
    """

    def __init__(
        self,
        factor: Any = 1.0,
        kernel_size: Any = 3,
        sigma: Any = 1.0,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(factor, value_range, seed=seed, data_format=data_format, **kwargs)
        sizes = kernel_size if isinstance(kernel_size, (list, tuple)) else (kernel_size, kernel_size)
        if len(sizes) != 2 or not all(
            isinstance(k, numbers.Integral) and not isinstance(k, bool) and k > 0 and k % 2 == 1 for k in sizes
        ):
            raise ValueError(
                f"{self._who()} expected kernel_size to be an odd positive integer or a pair of them, "
                f"got {kernel_size!r}"
            )
        self.kernel_size = (int(sizes[0]), int(sizes[1]))
        sigmas = sigma if isinstance(sigma, (list, tuple)) else (0.0, sigma)
        if len(sigmas) != 2 or not all(_is_number(s) and s >= 0 for s in sigmas):
            raise ValueError(
                f"{self._who()} expected sigma to be a non-negative number or a pair of them, got {sigma!r}"
            )
        self.sigma = tuple(sorted(float(s) for s in sigmas))

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        return {
            "apply": self.chance(images, self.factor),
            "sigma": self.uniform((2,), *self.sigma, dtype=images.dtype) + 1e-6,
        }

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        blurred = image_ops.gaussian_blur(
            images, self.kernel_size, transformation["sigma"], data_format="channels_last"
        )
        return self.clip(tf.where(per_image(transformation["apply"]), blurred, images))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(kernel_size=list(self.kernel_size), sigma=list(self.sigma))
        return config


@registry.builtin("layers")
class RandomSharpness(_ClippedAugmentation):
    """Randomly performs the sharpness operation on given images.

    The sharpness operation first performs a blur, then blends between the
    original image and the processed image: `x + (1 - 2 * u) *
    (smooth(x) - x)`, with one `u` per image drawn from `factor`. `u = 0.5`
    keeps the image, a smaller `u` blurs it and a larger one sharpens it.
    The smoothing kernel is PIL's (centre 5, neighbours 1, over 13),
    zero-padded at the border. The result is clipped to `value_range`. At
    inference time, the output is identical to the input (as floats).

    Args:
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the range
            `u` is drawn from. A float `f` means `(0, f)`.
        value_range: The range of values the input images can take, a pair
            `(low, high)` (sorted if given in the other order); results are
            clipped to it. Use `(0, 255)` for 8-bit pixel values and `(0, 1)`
            for images in `[0, 1]`. Defaults to `(0, 255)`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (the other entries
            pass through unchanged). Images are computed on in the
            layer's float compute dtype; a dict input returns a dict.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as floats).
            Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `factor` is not a number or a pair in `[0, 1]`, `value_range` is
            not a pair of distinct numbers, `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomSharpness(factor=(0.5, 0.5), value_range=(0, 1))
        >>> x = np.full((1, 3, 3, 1), 0.5, dtype="float32")
        >>> np.round(layer(x).numpy()[0, :, :, 0], 4)  # u = 0.5 keeps the image
        array([[0.5, 0.5, 0.5],
               [0.5, 0.5, 0.5],
               [0.5, 0.5, 0.5]], dtype=float32)
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(factor, value_range, seed=seed, data_format=data_format, **kwargs)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        return {"factor": self.uniform((batch_size(images), 1, 1, 1), *self.factor, dtype=images.dtype)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        kernel = tf.constant([[1.0, 1.0, 1.0], [1.0, 5.0, 1.0], [1.0, 1.0, 1.0]], images.dtype) / 13.0
        kernel = tf.tile(tf.reshape(kernel, [3, 3, 1, 1]), [1, 1, tf.shape(images)[-1], 1])
        smooth = tf.nn.depthwise_conv2d(images, kernel, strides=[1, 1, 1, 1], padding="SAME")
        return self.clip(images + (1.0 - 2.0 * transformation["factor"]) * (smooth - images))


@registry.builtin("layers")
class RandomErasing(_ClippedAugmentation):
    """Random Erasing data augmentation technique.

    Random Erasing is a data augmentation method where random patches of an
    image are erased (replaced by a constant value or noise) during
    training, to improve generalization. Each image is erased with a
    probability drawn from `factor`; the rectangle's sides are `sqrt(s)` of
    the image's, one `s` per side drawn from `scale`. At inference time, the
    output is identical to the input (as floats).

    Args:
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the range
            the probability of applying the layer to an image is drawn from
            (one probability per image, then one coin flip). A float `f`
            means `(0, f)`; `(1.0, 1.0)` applies it to every image. Defaults to `1.0`.
        scale: A float or a tuple of 2 floats in `[0, 1]`, the range of the
            fraction `s` of each side (as `sqrt(s)`) that is erased. A float
            `f` means `(0, f)`. Defaults to `(0.02, 0.33)`.
        fill_value: The value to fill the erased area with: `None` fills
            with Gaussian noise times `value_range[1]` (clipped to
            `value_range`), a number or a list of three numbers (one per
            channel) with constants. Defaults to `None`.
        value_range: The range of values the input images can take, a pair
            `(low, high)` (sorted if given in the other order); results are
            clipped to it. Use `(0, 255)` for 8-bit pixel values and `(0, 1)`
            for images in `[0, 1]`. Defaults to `(0, 255)`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (the other entries
            pass through unchanged). Images are computed on in the
            layer's float compute dtype; a dict input returns a dict.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as floats).
            Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `factor` or `scale` is not a number or a pair in `[0, 1]`,
            `fill_value` is not `None`, a number or three numbers,
            `value_range` is not a pair of distinct numbers, `data_format` is
            unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomErasing(factor=(1.0, 1.0), scale=(0.25, 0.25), fill_value=0.0, seed=1)
        >>> y = layer(np.full((1, 8, 8, 1), 255.0)).numpy()
        >>> int((y == 0).sum())  # a 4 x 4 patch is erased
        16
    """

    def __init__(
        self,
        factor: Any = 1.0,
        scale: Any = (0.02, 0.33),
        fill_value: Any = None,
        value_range: Any = (0, 255),
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(factor, value_range, seed=seed, data_format=data_format, **kwargs)
        self.scale = base.factor_range(scale, "scale", self._who(), 0.0, 1.0)
        ok = (
            fill_value is None
            or _is_number(fill_value)
            or (isinstance(fill_value, (list, tuple)) and len(fill_value) == 3 and all(map(_is_number, fill_value)))
        )
        if not ok:
            raise ValueError(
                f"{self._who()} expected fill_value to be None, a number or a list of three numbers "
                f"(one per channel), got {fill_value!r}"
            )
        self.fill_value = list(fill_value) if isinstance(fill_value, (list, tuple)) else fill_value

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        n = batch_size(images)
        dtype = images.dtype
        side = tf.sqrt(self.uniform((n, 2), *self.scale, dtype=dtype))
        shape = tf.shape(images)
        height, width = tf.cast(shape[1], dtype), tf.cast(shape[2], dtype)

        def bounds(length: tf.Tensor, fraction: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            span = fraction * length
            start = self.uniform((n,), dtype=dtype) * (length - span)
            return start[:, None, None, None], (start + span)[:, None, None, None]

        x0, x1 = bounds(width, side[:, 0])
        y0, y1 = bounds(height, side[:, 1])
        xs = tf.cast(tf.range(shape[2]), dtype)[None, None, :, None]
        ys = tf.cast(tf.range(shape[1]), dtype)[None, :, None, None]
        inside = (xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)
        if self.fill_value is None:
            fill = tfkit_random.normal(shape, dtype=dtype, seed=self.seed_generator) * self.value_range[1]
        else:
            fill = tf.broadcast_to(tf.constant(self.fill_value, dtype), shape)
        return {"apply": self.chance(images, self.factor), "inside": inside, "fill": self.clip(fill)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        erased = tf.where(transformation["inside"], transformation["fill"], images)
        return tf.where(per_image(transformation["apply"]), erased, images)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(scale=list(self.scale), fill_value=self.fill_value)
        return config
