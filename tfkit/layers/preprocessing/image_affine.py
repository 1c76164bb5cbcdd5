"""Random affine image augmentations: ``RandomRotation``, ``RandomZoom``, ``RandomTranslation``.

    rotate = tfkit.layers.RandomRotation(0.1, seed=1)     # angles uniform in [-36, 36] degrees
    zoom = tfkit.layers.RandomZoom(0.2, fill_mode="constant")
    y = rotate(images, training=True)                     # inference (training=False) returns images unchanged

Each image gets its own transform; pixels are resampled with
``tf.raw_ops.ImageProjectiveTransformV3`` (``interpolation`` ``"nearest"``
or ``"bilinear"``), and points that fall outside the image are filled by
``fill_mode``: ``"reflect"`` (d c b a | a b c d | d c b a), ``"wrap"``
(a b c d | a b c d | a b c d), ``"constant"`` (k k k k | a b c d | k k k k,
with ``k = fill_value``) or ``"nearest"`` (a a a a | a b c d | d d d d).
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.base import registry
from tfkit.layers.preprocessing import image_utils as iu
from tfkit.layers.preprocessing.image_random import RandomImageLayer, batch_size

__all__ = ["RandomRotation", "RandomZoom", "RandomTranslation"]


class AffineImageLayer(RandomImageLayer):
    """Shared ``fill_mode`` / ``interpolation`` / ``fill_value`` handling; subclasses return transforms."""

    def __init__(self, fill_mode: str = "reflect", interpolation: str = "bilinear", seed: int | None = None,
                 fill_value: float = 0.0, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.fill_mode = iu.check_choice(fill_mode, iu.FILL_MODES, "fill_mode", self._who())
        self.interpolation = iu.check_choice(interpolation, iu.AFFINE_INTERPOLATIONS, "interpolation", self._who())
        self.fill_value = fill_value

    def transforms(self, images: tf.Tensor) -> tf.Tensor:
        """One ``[a0, a1, a2, b0, b1, b2, 0, 0]`` row per image: output pixel -> input point."""
        raise NotImplementedError

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        return iu.affine_transform(images, self.transforms(images), self.interpolation, self.fill_mode,
                                   self.fill_value)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(fill_mode=self.fill_mode, interpolation=self.interpolation, fill_value=self.fill_value)
        return config


def _draw(images: tf.Tensor, low: float, high: float, generator: Any) -> tf.Tensor:
    return tfkit_random.uniform((batch_size(images), 1), minval=low, maxval=high, seed=generator)


def _float_hw(images: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    height, width = iu.hw(images)
    return tf.cast(height, tf.float32), tf.cast(width, tf.float32)


def rotation_transforms(angles_deg: tf.Tensor, height: tf.Tensor, width: tf.Tensor) -> tf.Tensor:
    """Rows turning images by ``angles_deg`` (shape ``(batch, 1)``) about the image center."""
    theta = angles_deg * (math.pi / 180.0)
    cos, sin = tf.cos(theta), tf.sin(theta)
    cx, cy = 0.5 * (width - 1.0), 0.5 * (height - 1.0)
    zeros = tf.zeros_like(theta)
    return tf.concat([cos, -sin, cx - cx * cos + cy * sin, sin, cos, cy - cx * sin - cy * cos, zeros, zeros],
                     axis=1)


@registry.builtin("layers")
class RandomRotation(AffineImageLayer):
    """Turn each image by a random angle while training.

    ``factor`` is a fraction of a full turn: ``0.1`` draws angles uniformly
    from ``[-36, 36]`` degrees, ``(-0.1, 0.2)`` from ``[-36, 72]``; a
    positive angle turns the picture counter-clockwise.
    """

    def __init__(self, factor: Any, fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed: int | None = None, fill_value: float = 0.0, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed, fill_value=fill_value,
                         data_format=data_format, **kwargs)
        self.factor = iu.symmetric_factor(factor, "factor", self._who())
        self._factor_arg = list(factor) if isinstance(factor, (tuple, list)) else factor

    def transforms(self, images: tf.Tensor) -> tf.Tensor:
        angles = _draw(images, self.factor[0] * 360.0, self.factor[1] * 360.0, self.seed_generator)
        height, width = _float_hw(images)
        return rotation_transforms(angles, height, width)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["factor"] = self._factor_arg
        return config


@registry.builtin("layers")
class RandomZoom(AffineImageLayer):
    """Zoom each image in or out about its center while training.

    Each axis is scaled by ``1 + f`` with ``f`` drawn from the factor's range:
    ``f > 0`` zooms out (the image shrinks, the border is filled), ``f < 0``
    zooms in. ``height_factor=0.2`` draws from ``[-0.2, 0.2]``;
    ``width_factor=None`` reuses the height's draw (aspect ratio kept).
    """

    def __init__(self, height_factor: Any, width_factor: Any = None, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: int | None = None, fill_value: float = 0.0,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed, fill_value=fill_value,
                         data_format=data_format, **kwargs)
        who = self._who()
        self.height_lower, self.height_upper = iu.symmetric_factor(height_factor, "height_factor", who,
                                                                   low_inclusive=False)
        self.height_factor = list(height_factor) if isinstance(height_factor, (tuple, list)) else height_factor
        self.width_factor = list(width_factor) if isinstance(width_factor, (tuple, list)) else width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = iu.symmetric_factor(width_factor, "width_factor", who,
                                                                     low_inclusive=False)

    def transforms(self, images: tf.Tensor) -> tf.Tensor:
        zoom_y = _draw(images, 1.0 + self.height_lower, 1.0 + self.height_upper, self.seed_generator)
        if self.width_factor is not None:
            zoom_x = _draw(images, 1.0 + self.width_lower, 1.0 + self.width_upper, self.seed_generator)
        else:
            zoom_x = zoom_y
        height, width = _float_hw(images)
        zeros = tf.zeros_like(zoom_x)
        offset_x = (width - 1.0) / 2.0 * (1.0 - zoom_x)
        offset_y = (height - 1.0) / 2.0 * (1.0 - zoom_y)
        return tf.concat([zoom_x, zeros, offset_x, zeros, zoom_y, offset_y, zeros, zeros], axis=1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(height_factor=self.height_factor, width_factor=self.width_factor)
        return config


@registry.builtin("layers")
class RandomTranslation(AffineImageLayer):
    """Shift each image by a random fraction of its height and width while training.

    ``height_factor=0.2`` shifts by up to 20% of the height, up or down;
    ``(-0.2, 0.3)`` from 20% up to 30% down. ``width_factor`` likewise
    left/right.
    """

    def __init__(self, height_factor: Any, width_factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: int | None = None, fill_value: float = 0.0,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed, fill_value=fill_value,
                         data_format=data_format, **kwargs)
        who = self._who()
        self.height_lower, self.height_upper = iu.symmetric_factor(height_factor, "height_factor", who)
        self.width_lower, self.width_upper = iu.symmetric_factor(width_factor, "width_factor", who)
        self.height_factor = list(height_factor) if isinstance(height_factor, (tuple, list)) else height_factor
        self.width_factor = list(width_factor) if isinstance(width_factor, (tuple, list)) else width_factor

    def transforms(self, images: tf.Tensor) -> tf.Tensor:
        height, width = _float_hw(images)
        dy = _draw(images, self.height_lower, self.height_upper, self.seed_generator) * height
        dx = _draw(images, self.width_lower, self.width_upper, self.seed_generator) * width
        ones, zeros = tf.ones_like(dx), tf.zeros_like(dx)
        return tf.concat([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(height_factor=self.height_factor, width_factor=self.width_factor)
        return config
