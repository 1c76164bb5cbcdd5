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
from tfkit.layers.preprocessing.image_augment_base import (
    RandomAugmentation,
    batch_size,
    per_image,
)
from tfkit.layers.preprocessing.image_random import RandomContrast
from tfkit.ops import image as image_ops

__all__ = ["RandomBrightness", "RandomColorDegeneration", "RandomGrayscale", "RandomHue", "RandomSaturation",
           "RandomInvert", "RandomPosterization", "Solarization", "RandomColorJitter"]


class _RangedAugmentation(RandomAugmentation):
    """A random augmentation with a ``factor`` pair and a ``value_range``."""

    def __init__(self, factor: Any, value_range: Any, bounds: tuple[float, float], single: str = "symmetric",
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self.factor = base.factor_range(factor, "factor", self._who(), *bounds, single=single)
        self.value_range = base.value_range_pair(value_range, self._who())

    def clip(self, images: tf.Tensor) -> tf.Tensor:
        return tf.clip_by_value(images, tf.cast(self.value_range[0], images.dtype),
                                tf.cast(self.value_range[1], images.dtype))

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
    """Add ``delta * (high - low)`` to every pixel, one ``delta`` per image from ``factor``; clip to the range.

    ``factor=0.2`` draws ``delta`` from ``[-0.2, 0.2]``; a pair ``(lower,
    upper)`` within ``[-1, 1]`` from that interval.
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
    """Blend each image toward its grayscale version: ``x + f * (gray(x) - x)``, one ``f`` per image.

    As in Keras, ``factor=0.5`` draws ``f`` from ``[-0.5, 0.5]`` (negative
    values move away from gray, raising saturation); pairs lie in ``[-1, 1]``.
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(factor, value_range, (-1.0, 1.0), seed=seed, data_format=data_format, **kwargs)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        return {"factor": self.uniform((batch_size(images), 1, 1, 1), *self.factor, dtype=images.dtype)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        gray = image_ops.rgb_to_grayscale(images, data_format="channels_last")
        return self.clip(images + transformation["factor"] * (gray - images))


@registry.builtin("layers")
class RandomGrayscale(RandomAugmentation):
    """Turn each image gray with probability ``factor`` (the channel count is kept)."""

    def __init__(self, factor: float = 0.5, data_format: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:
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
    """Rotate the hue of each image by ``+-f / 2`` of a turn, ``f`` drawn from ``factor`` (within ``[0, 1]``).

    ``factor=0.2`` draws ``f`` from ``[0, 0.2]`` with a random sign.
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
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
    """Scale the saturation of each image by ``u / (1 - u)``, ``u`` drawn from ``factor``.

    ``u = 0.5`` keeps the image, ``u = 0`` (or below) makes it gray, ``u``
    near 1 fully saturates it. As in Keras, a single number ``f`` draws ``u``
    from ``[-f, f]``; pairs lie in ``[-1, 1]``.
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
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
    """Invert each image (``low + high - x``) with a probability drawn from ``factor`` (within ``[0, 1]``)."""

    def __init__(self, factor: Any = 1.0, value_range: Any = (0, 255), seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(factor, value_range, (0.0, 1.0), seed=seed, data_format=data_format, **kwargs)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        return {"apply": self.chance(images, self.factor)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        inverted = tf.cast(self.value_range[0] + self.value_range[1], images.dtype) - images
        return tf.where(per_image(transformation["apply"]), inverted, images)


@registry.builtin("layers")
class RandomPosterization(_RangedAugmentation):
    """Keep only the top ``bits`` bits of each 8-bit channel value, ``bits`` drawn per image from ``factor``.

    ``factor=4`` draws ``bits`` from ``1..4``; ``(4, 4)`` always keeps 4 bits.
    Values are mapped from ``value_range`` to ``[0, 255]`` and back.
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
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
    """Invert the pixels at or above a threshold (``255 - x`` on the ``[0, 255]`` scale), after adding a shift.

    ``threshold_factor`` and ``addition_factor`` (numbers or pairs in
    ``[0, 1]``; ``f`` means ``(0, f)``) are fractions of 255, drawn per
    image. The defaults (0, 0) invert every pixel, as in Keras.
    """

    def __init__(self, addition_factor: Any = 0.0, threshold_factor: Any = 0.0, value_range: Any = (0, 255),
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        who = self._who()
        self.addition_factor = base.factor_range(addition_factor, "addition_factor", who, 0.0, 1.0, "from_low")
        self.threshold_factor = base.factor_range(threshold_factor, "threshold_factor", who, 0.0, 1.0, "from_low")
        self.value_range = base.value_range_pair(value_range, who)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        shape = (batch_size(images), 1, 1, 1)
        return {"addition": self.uniform(shape, *(255.0 * f for f in self.addition_factor), dtype=images.dtype),
                "threshold": self.uniform(shape, *(255.0 * f for f in self.threshold_factor), dtype=images.dtype)}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        pixels = base.to_range(images, self.value_range, (0.0, 255.0))
        pixels = tf.clip_by_value(pixels + transformation["addition"], 0.0, 255.0)
        pixels = tf.where(pixels < transformation["threshold"], pixels, 255.0 - pixels)
        return base.to_range(pixels, (0.0, 255.0), self.value_range)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(addition_factor=list(self.addition_factor), threshold_factor=list(self.threshold_factor),
                      value_range=list(self.value_range))
        return config


@registry.builtin("layers")
class RandomColorJitter(RandomAugmentation):
    """Brightness, contrast, saturation and hue changes in that order; each runs only if its factor is given.

    The factors mean what they mean for :class:`RandomBrightness`,
    :class:`RandomContrast`, :class:`RandomSaturation` and :class:`RandomHue`.
    """

    def __init__(self, value_range: Any = (0, 255), brightness_factor: Any = None, contrast_factor: Any = None,
                 saturation_factor: Any = None, hue_factor: Any = None, seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = list(base.value_range_pair(value_range, self._who()))
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        self.random_brightness = None if brightness_factor is None else RandomBrightness(
            brightness_factor, value_range=value_range, seed=seed)
        self.random_contrast = None if contrast_factor is None else RandomContrast(
            contrast_factor, value_range=value_range, seed=seed)
        self.random_saturation = None if saturation_factor is None else RandomSaturation(
            saturation_factor, value_range=value_range, seed=seed)
        self.random_hue = None if hue_factor is None else RandomHue(hue_factor, value_range=value_range, seed=seed)

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        for layer in (self.random_brightness, self.random_contrast, self.random_saturation, self.random_hue):
            if layer is not None:
                images = layer.augment(images)
        return images

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(value_range=self.value_range, brightness_factor=self.brightness_factor,
                      contrast_factor=self.contrast_factor, saturation_factor=self.saturation_factor,
                      hue_factor=self.hue_factor)
        return config
