"""Colour augmentations of Keras 3: brightness, hue, saturation, degeneration, grayscale, inversion,
posterization, solarization and the colour jitter that chains four of them.

    jitter = tfkit.layers.RandomColorJitter(value_range=(0, 255), brightness_factor=0.2, hue_factor=0.1, seed=7)
    out = jitter(images, training=True)       # a new draw per image and call; inference returns the images
    solar = tfkit.layers.Solarization(threshold_factor=0.5, value_range=(0, 1))

Images hold values in ``value_range`` (``(0, 255)`` by default); results
are clipped to it and come back in the layer's float compute dtype.
Labels, masks and bounding boxes in dict inputs pass through unchanged.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.base import settings as backend
from tfkit.layers.preprocessing import image_augment_base as base
from tfkit.layers.preprocessing.image_augment_base import RandomAugmentation, batch_size, per_image
from tfkit.layers.preprocessing.image_random import RandomContrast
from tfkit.ops import image as image_ops

__all__ = [
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomGrayscale",
    "RandomHue",
    "RandomSaturation",
    "RandomInvert",
    "RandomPosterization",
    "Solarization",
    "RandomColorJitter",
]


class _RangedAugmentation(RandomAugmentation):
    """A random augmentation with a ``factor`` pair and a ``value_range``."""

    def __init__(
        self,
        factor: Any,
        value_range: Any,
        bounds: tuple[float, float],
        single: str = "symmetric",
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed=seed, **kwargs)
        self.factor = base.factor_range(factor, "factor", self._who(), *bounds, single=single)
        self.value_range = base.value_range_pair(value_range, self._who())

    def clip(self, images: tf.Tensor) -> tf.Tensor:
        return tf.clip_by_value(
            images, tf.cast(self.value_range[0], images.dtype), tf.cast(self.value_range[1], images.dtype)
        )

    def to_unit(self, images: tf.Tensor) -> tf.Tensor:
        return base.to_range(images, self.value_range, (0.0, 1.0))

    def from_unit(self, images: tf.Tensor) -> tf.Tensor:
        return base.to_range(images, (0.0, 1.0), self.value_range)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(factor=list(self.factor), value_range=list(self.value_range))
        return config


@registry.builtin("layers")
class RandomBrightness(_RangedAugmentation):
    """A preprocessing layer which randomly adjusts brightness during training.

    This layer randomly increases or reduces the brightness of the input
    images: it adds `delta * (high - low)` to every pixel (with `(low, high)`
    the `value_range`), one `delta` per image drawn from `factor`, and clips
    the result to `value_range`. At inference time, the output is identical
    to the input (as floats).

    Args:
        factor: Float or a tuple of 2 floats, each in `[-1.0, 1.0]`. The
            factor is used to determine the lower and upper bounds of the
            brightness adjustment: a float `f` draws `delta` from `[-f, f]`,
            a tuple `(lower, upper)` from `[lower, upper]`. `factor=(-0.2,
            0.5)` picks a value between -20% and +50% of the value range. A
            negative value makes the image darker, a positive one brighter.
        value_range: The range of values the input images can take, a pair
            `(low, high)` (sorted if given in the other order); results are
            clipped to it. Use `(0, 255)` for 8-bit pixel values and `(0, 1)`
            for images in `[0, 1]`. Defaults to `(0, 255)`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `data_format` (images' layout; `None`, the default, means
            `tfkit.backend.image_data_format()`).

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
        ValueError: If `factor` is not a number or a pair in `[-1, 1]`, `value_range`
            is not a pair of distinct numbers, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomBrightness(factor=(0.5, 0.5), seed=1)
        >>> layer(np.array([[[0.0], [100.0], [200.0]]])).numpy()[0, :, 0]  # + 0.5 * 255, clipped
        array([127.5, 227.5, 255. ], dtype=float32)
        >>> layer(np.ones((2, 4, 4, 3)), training=False).shape
        TensorShape([2, 4, 4, 3])
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(factor, value_range, (-1.0, 1.0), seed=seed, **kwargs)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        delta = self.uniform((batch_size(images), 1, 1, 1), *self.factor, dtype=images.dtype)
        return {"delta": delta * (self.value_range[1] - self.value_range[0])}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return self.clip(images + transformation["delta"])


@registry.builtin("layers")
class RandomColorDegeneration(_RangedAugmentation):
    """Randomly performs the color degeneration operation on given images.

    The sharpness operation first converts an image to gray scale, then
    back to color. It then takes a weighted average between the original
    image and the degenerate image: `x + f * (gray(x) - x)`, with one `f`
    per image drawn from `factor`, clipped to `value_range`. This makes
    colors appear more dull. RGB images (3 channels) are expected.

    Args:
        factor: A float or a tuple of 2 floats, each in `[-1, 1]`. As in
            Keras, a float `f` draws from `[-f, f]` (negative values move away
            from gray, raising saturation); a tuple `(lower, upper)` from that
            interval. `1.0` gives a fully gray image.
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
        ValueError: If `factor` is not a number or a pair in `[-1, 1]`, `value_range`
            is not a pair of distinct numbers, `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomColorDegeneration(factor=(1.0, 1.0))
        >>> y = layer(np.array([[[255.0, 0.0, 0.0]]])).numpy()  # fully degenerated: gray
        >>> np.round(y, 2)
        array([[[76.22, 76.22, 76.22]]], dtype=float32)
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(factor, value_range, (-1.0, 1.0), seed=seed, data_format=data_format, **kwargs)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        return {"factor": self.uniform((batch_size(images), 1, 1, 1), *self.factor, dtype=images.dtype)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        gray = image_ops.rgb_to_grayscale(images, data_format="channels_last")
        return self.clip(images + transformation["factor"] * (gray - images))


@registry.builtin("layers")
class RandomGrayscale(RandomAugmentation):
    """Preprocessing layer for random conversion of RGB images to grayscale.

    This layer randomly converts input images to grayscale with probability
    `factor`, one decision per image. The output keeps the input's number of
    channels (the gray value is repeated in each channel). At inference time,
    the output is identical to the input (as floats).

    Args:
        factor: Float between 0 and 1, the probability of converting each
            image to grayscale. Defaults to `0.5`.
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
        ValueError: If `factor` is not a probability in `[0, 1]`, `data_format` is
            unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomGrayscale(factor=1.0)
        >>> y = layer(np.array([[[255.0, 0.0, 0.0]]])).numpy()
        >>> y.shape, bool(y[0, 0, 0] == y[0, 0, 1] == y[0, 0, 2])
        ((1, 1, 3), True)
    """

    def __init__(
        self, factor: float = 0.5, data_format: str | None = None, seed: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not 0 <= factor <= 1:
            raise ValueError(f"{self._who()} expected factor to be a probability in [0, 1], got {factor!r}")
        self.factor = factor

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        return {"apply": self.uniform((batch_size(images),)) < self.factor}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        gray = image_ops.rgb_to_grayscale(images, data_format="channels_last")
        return tf.where(per_image(transformation["apply"]), tf.broadcast_to(gray, tf.shape(images)), images)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["factor"] = self.factor
        return config


class _HSVAugmentation(_RangedAugmentation):
    """Shared HSV round trip: images to ``[0, 1]``, HSV, :meth:`adjust`, back to RGB and the value range."""

    def adjust(self, hsv: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        raise NotImplementedError

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        hsv = image_ops.rgb_to_hsv(tf.clip_by_value(self.to_unit(images), 0.0, 1.0), data_format="channels_last")
        rgb = image_ops.hsv_to_rgb(self.adjust(hsv, transformation), data_format="channels_last")
        return self.from_unit(tf.clip_by_value(rgb, 0.0, 1.0))


@registry.builtin("layers")
class RandomHue(_HSVAugmentation):
    """Randomly adjusts the hue on given images.

    This layer randomly increases or reduces the hue of the input RGB
    images: it converts them to HSV and rotates the hue of each image by
    `f / 2` of a full turn with a random sign, `f` drawn from `factor`, then
    converts back to RGB in `value_range`. At inference time, the output is
    identical to the input (as floats).

    Args:
        factor: A float or a tuple of 2 floats, each in `[0, 1]`. A float `f`
            draws from `[0, f]` (with a random sign for the rotation), a
            tuple `(lower, upper)` from that interval.
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
        ValueError: If `factor` is not a number or a pair in `[0, 1]`, `value_range`
            is not a pair of distinct numbers, `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomHue(factor=0.5, value_range=(0, 1), seed=1)
        >>> x = np.array([[[0.5, 0.5, 0.5], [1.0, 0.0, 0.0]]], dtype="float32")
        >>> y = layer(x).numpy()
        >>> y.shape
        (1, 2, 3)
        >>> np.round(y[0, 0], 4)  # gray has no hue: unchanged
        array([0.5, 0.5, 0.5], dtype=float32)
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(factor, value_range, (0.0, 1.0), seed=seed, data_format=data_format, **kwargs)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        n = batch_size(images)
        sign = tf.where(self.uniform((n,)) > 0.5, -1.0, 1.0)
        return {"shift": sign * self.uniform((n,), *self.factor) * 0.5}

    def adjust(self, hsv: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        shift = tf.cast(tf.reshape(transformation["shift"], [-1, 1, 1]), hsv.dtype)
        hue = tf.math.floormod(hsv[..., 0] + shift, 1.0)
        return tf.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1)


@registry.builtin("layers")
class RandomSaturation(_HSVAugmentation):
    """Randomly adjusts the saturation on given images.

    This layer randomly increases or reduces the saturation of the input
    RGB images: it converts them to HSV and multiplies the saturation of each
    image by `u / (1 - u)`, with `u` drawn from `factor`, then converts back
    to RGB in `value_range`. `u = 0.5` keeps the image, `u = 0` (or below)
    makes it gray, and `u` near 1 fully saturates it. At inference time, the
    output is identical to the input (as floats).

    Args:
        factor: A float or a tuple of 2 floats, each in `[-1, 1]`. As in
            Keras, a float `f` draws `u` from `[-f, f]`; a tuple `(lower,
            upper)` from that interval.
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
        ValueError: If `factor` is not a number or a pair in `[-1, 1]`, `value_range`
            is not a pair of distinct numbers, `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomSaturation(factor=(0.0, 0.0), value_range=(0, 1))
        >>> layer(np.array([[[1.0, 0.0, 0.0]]], dtype="float32")).numpy()  # u = 0: no saturation
        array([[[1., 1., 1.]]], dtype=float32)
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(factor, value_range, (-1.0, 1.0), seed=seed, data_format=data_format, **kwargs)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        u = self.uniform((batch_size(images),), *self.factor)
        return {"scale": u / (1.0 - u + backend.epsilon())}

    def adjust(self, hsv: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        scale = tf.cast(tf.reshape(transformation["scale"], [-1, 1, 1]), hsv.dtype)
        saturation = tf.clip_by_value(hsv[..., 1] * scale, 0.0, 1.0)
        return tf.stack([hsv[..., 0], saturation, hsv[..., 2]], axis=-1)


@registry.builtin("layers")
class RandomInvert(_RangedAugmentation):
    """Preprocessing layer for random inversion of image colors.

    This layer randomly inverts the colors of input images, computing
    `low + high - x` (with `(low, high)` the `value_range`). Each image is
    inverted with a probability itself drawn uniformly from `factor`. At
    inference time, the output is identical to the input (as floats).

    Args:
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the range
            the probability of inverting an image is drawn from. A float `f`
            means `(0, f)`; `(1.0, 1.0)` inverts every image. Defaults to
            `1.0`.
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
        ValueError: If `factor` is not a number or a pair in `[0, 1]`, `value_range`
            is not a pair of distinct numbers, `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomInvert(factor=(1.0, 1.0))
        >>> layer(np.array([[[0.0], [55.0], [255.0]]])).numpy()[0, :, 0]
        array([255., 200.,   0.], dtype=float32)
    """

    def __init__(
        self,
        factor: Any = 1.0,
        value_range: Any = (0, 255),
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(factor, value_range, (0.0, 1.0), seed=seed, data_format=data_format, **kwargs)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        return {"apply": self.chance(images, self.factor)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        inverted = tf.cast(self.value_range[0] + self.value_range[1], images.dtype) - images
        return tf.where(per_image(transformation["apply"]), inverted, images)


@registry.builtin("layers")
class RandomPosterization(_RangedAugmentation):
    """Reduces the number of bits for each color channel.

    Posterization keeps only the top `bits` bits of each 8-bit channel value
    (the lower bits are zeroed), with `bits` drawn per image from `factor`.
    Values are mapped from `value_range` to `[0, 255]` and back. At inference
    time, the output is identical to the input (as floats).

    Args:
        factor: An integer or a pair of integers in `[1, 8]`, the number of
            bits to keep. An integer `f` draws `bits` from `1..f`; `(4, 4)`
            always keeps 4 bits.
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
        ValueError: If `factor` is not a whole number or a pair of them in `[1, 8]`,
            `value_range` is not a pair of distinct numbers, `data_format` is
            unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomPosterization(factor=(4, 4))
        >>> layer(np.array([[[17.0], [100.0], [255.0]]])).numpy()[0, :, 0]
        array([ 16.,  96., 240.], dtype=float32)
    """

    def __init__(
        self,
        factor: Any,
        value_range: Any = (0, 255),
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(factor, value_range, (1, 8), seed=seed, data_format=data_format, **kwargs)
        if not all(float(f).is_integer() for f in self.factor):
            raise ValueError(f"{self._who()} expected factor to be whole numbers of bits in [1, 8], got {factor!r}")
        self.factor = (int(self.factor[0]), int(self.factor[1]))

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        low, high = self.factor
        n = batch_size(images)
        if low == high:
            bits = tf.fill([n], tf.constant(low, tf.int32))
        else:
            bits = tf.cast(self.uniform((n,), float(low), float(high + 1)), tf.int32)
        return {"shift": tf.cast(8 - tf.minimum(bits, high), tf.uint8)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        pixels = tf.clip_by_value(base.to_range(images, self.value_range, (0.0, 255.0)), 0.0, 255.0)
        pixels = tf.cast(pixels, tf.uint8)
        shift = tf.reshape(transformation["shift"], [-1, 1, 1, 1])
        kept = tf.bitwise.left_shift(tf.bitwise.right_shift(pixels, shift), shift)
        return base.to_range(tf.cast(kept, images.dtype), (0.0, 255.0), self.value_range)


@registry.builtin("layers")
class Solarization(RandomAugmentation):
    """Applies `(max_value - pixel + min_value)` for each pixel in the image.

    When created without a threshold parameter, the layer performs
    solarization to all values. When created with specified threshold the
    layer only augments pixels that are above the threshold value. On the
    `[0, 255]` scale (values are mapped from `value_range` and back), it
    first adds `addition` to every pixel (clipped to `[0, 255]`), then
    replaces each pixel at or above `threshold` by `255 - x`. `addition` and
    `threshold` are drawn per image, as fractions of 255. At inference time,
    the output is identical to the input (as floats).

    Args:
        addition_factor: A float or a pair of floats in `[0, 1]`, the range
            (a fraction of 255) of the value added to each pixel before
            solarization. A float `f` means `(0, f)`. Defaults to `0.0`.
        threshold_factor: A float or a pair of floats in `[0, 1]`, the range
            (a fraction of 255) of the threshold above which pixels are
            solarized. A float `f` means `(0, f)`. Defaults to `0.0` (every
            pixel is inverted, as in Keras).
        value_range: The range of values the input images can take, a pair
            `(low, high)`. Defaults to `(0, 255)`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `data_format` (images' layout; `None`, the default, means
            `tfkit.backend.image_data_format()`).

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
        ValueError: If a factor is not a number or a pair in `[0, 1]`, `value_range` is
            not a pair of distinct numbers, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.Solarization()
        >>> layer(np.array([[[0.0], [100.0], [255.0]]])).numpy()[0, :, 0]
        array([255., 155.,   0.], dtype=float32)
        >>> layer = tfkit.layers.Solarization(threshold_factor=(0.5, 0.5))
        >>> layer(np.array([[[100.0], [200.0]]])).numpy()[0, :, 0]
        array([100.,  55.], dtype=float32)
    """

    def __init__(
        self,
        addition_factor: Any = 0.0,
        threshold_factor: Any = 0.0,
        value_range: Any = (0, 255),
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed=seed, **kwargs)
        who = self._who()
        self.addition_factor = base.factor_range(addition_factor, "addition_factor", who, 0.0, 1.0, "from_low")
        self.threshold_factor = base.factor_range(threshold_factor, "threshold_factor", who, 0.0, 1.0, "from_low")
        self.value_range = base.value_range_pair(value_range, who)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        shape = (batch_size(images), 1, 1, 1)
        return {
            "addition": self.uniform(shape, *(255.0 * f for f in self.addition_factor), dtype=images.dtype),
            "threshold": self.uniform(shape, *(255.0 * f for f in self.threshold_factor), dtype=images.dtype),
        }

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        pixels = base.to_range(images, self.value_range, (0.0, 255.0))
        pixels = tf.clip_by_value(pixels + transformation["addition"], 0.0, 255.0)
        pixels = tf.where(pixels < transformation["threshold"], pixels, 255.0 - pixels)
        return base.to_range(pixels, (0.0, 255.0), self.value_range)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            addition_factor=list(self.addition_factor),
            threshold_factor=list(self.threshold_factor),
            value_range=list(self.value_range),
        )
        return config


@registry.builtin("layers")
class RandomColorJitter(RandomAugmentation):
    """Randomly apply brightness, contrast, saturation and hue image processing.

    This layer applies `RandomBrightness`, `RandomContrast`,
    `RandomSaturation` and `RandomHue` changes, in that order; each runs only
    if its factor is given. At inference time, the output is identical to
    the input (as floats).

    Args:
        value_range: The range of values the input images can take, a pair
            `(low, high)`, passed to each sub-layer. Defaults to `(0, 255)`.
        brightness_factor: The `factor` of `RandomBrightness`, or `None` for
            no brightness change. Defaults to `None`.
        contrast_factor: The `factor` of `RandomContrast`, or `None` for no
            contrast change. Defaults to `None`.
        saturation_factor: The `factor` of `RandomSaturation`, or `None` for
            no saturation change. Defaults to `None`.
        hue_factor: The `factor` of `RandomHue`, or `None` for no hue change.
            Defaults to `None`.
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
        ValueError: If `value_range` is not a pair of distinct numbers, a factor is
            invalid for its sub-layer, `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D or a dict input has
            unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.RandomColorJitter(value_range=(0, 255), brightness_factor=0.2,
        ...                                        hue_factor=0.1, seed=7)
        >>> layer(np.full((2, 4, 4, 3), 128, dtype="uint8")).shape
        TensorShape([2, 4, 4, 3])
    """

    def __init__(
        self,
        value_range: Any = (0, 255),
        brightness_factor: Any = None,
        contrast_factor: Any = None,
        saturation_factor: Any = None,
        hue_factor: Any = None,
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = list(base.value_range_pair(value_range, self._who()))
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        self.random_brightness = (
            None
            if brightness_factor is None
            else RandomBrightness(brightness_factor, value_range=value_range, seed=seed)
        )
        self.random_contrast = (
            None if contrast_factor is None else RandomContrast(contrast_factor, value_range=value_range, seed=seed)
        )
        self.random_saturation = (
            None
            if saturation_factor is None
            else RandomSaturation(saturation_factor, value_range=value_range, seed=seed)
        )
        self.random_hue = None if hue_factor is None else RandomHue(hue_factor, value_range=value_range, seed=seed)

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        for layer in (self.random_brightness, self.random_contrast, self.random_saturation, self.random_hue):
            if layer is not None:
                images = layer.augment(images)
        return images

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            value_range=self.value_range,
            brightness_factor=self.brightness_factor,
            contrast_factor=self.contrast_factor,
            saturation_factor=self.saturation_factor,
            hue_factor=self.hue_factor,
        )
        return config
