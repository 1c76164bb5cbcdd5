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

    def __init__(
        self,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.fill_mode = iu.check_choice(fill_mode, iu.FILL_MODES, "fill_mode", self._who())
        self.interpolation = iu.check_choice(interpolation, iu.AFFINE_INTERPOLATIONS, "interpolation", self._who())
        self.fill_value = fill_value

    def transforms(self, images: tf.Tensor) -> tf.Tensor:
        """One ``[a0, a1, a2, b0, b1, b2, 0, 0]`` row per image: output pixel -> input point."""
        raise NotImplementedError

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        return iu.affine_transform(images, self.transforms(images), self.interpolation, self.fill_mode, self.fill_value)

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
    return tf.concat([cos, -sin, cx - cx * cos + cy * sin, sin, cos, cy - cx * sin - cy * cos, zeros, zeros], axis=1)


@registry.builtin("layers")
class RandomRotation(AffineImageLayer):
    """A preprocessing layer which randomly rotates images during training.

    This layer applies random rotations to each image, filling empty space
    according to `fill_mode`. Each image gets its own angle; pixels are
    resampled with `tf.raw_ops.ImageProjectiveTransformV3`. At inference
    time (`training=False`), the layer returns its inputs unchanged.

    Args:
        factor: A float, or a tuple of 2 floats, each in `[-1, 1]`: the
            rotation range as a fraction of a full turn (2 pi). A positive
            value turns the picture counter-clockwise, a negative one
            clockwise. `factor=(-0.2, 0.3)` rotates by a random amount in
            `[-20% * 360, 30% * 360]` degrees; `factor=0.2` by a random amount
            in `[-20% * 360, 20% * 360]` degrees.
        fill_mode: Points outside the boundaries of the input are filled
            according to the given mode. Available methods are `"constant"`,
            `"nearest"`, `"wrap"` and `"reflect"`. Defaults to `"reflect"`.

            - `"reflect"`: `(d c b a | a b c d | d c b a)` The input is
              extended by reflecting about the edge of the last pixel.
            - `"constant"`: `(k k k k | a b c d | k k k k)` The input is
              extended by filling all values beyond the edge with the same
              constant value `k` specified by `fill_value`.
            - `"wrap"`: `(a b c d | a b c d | a b c d)` The input is extended
              by wrapping around to the opposite edge.
            - `"nearest"`: `(a a a a | a b c d | d d d d)` The input is
              extended by the nearest pixel.
        interpolation: Interpolation mode, `"nearest"` or `"bilinear"`.
            Defaults to `"bilinear"`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        fill_value: A float, the value to be filled outside the boundaries
            when `fill_mode="constant"`. Defaults to `0.0`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"` (passed through
            unchanged). Integer images are cast to the layer's float compute
            dtype.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as
            floats). Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If a factor is not a number or a pair of numbers in the
            allowed range, `fill_mode`, `interpolation` or `data_format` is
            not a supported value, or `seed` is not an int; on call, if the
            images are not 3D or 4D, or a dict input has other keys than
            `"images"` and `"labels"`.

    Example:
        >>> layer = tfkit.layers.RandomRotation(0.1, seed=1)
        >>> images = np.ones((2, 8, 8, 3), dtype="uint8")
        >>> layer(images).shape
        TensorShape([2, 8, 8, 3])
        >>> layer(images, training=False).dtype
        tf.float32
    """

    def __init__(
        self,
        factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            fill_mode=fill_mode,
            interpolation=interpolation,
            seed=seed,
            fill_value=fill_value,
            data_format=data_format,
            **kwargs,
        )
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
    """A preprocessing layer which randomly zooms images during training.

    This layer randomly zooms each image in or out about its center, on
    each axis independently, filling empty space according to `fill_mode`.
    Each axis is sampled by `1 + f`, with `f` drawn from the factor's range:
    `f > 0` zooms out (the image shrinks and the border is filled), `f < 0`
    zooms in. At inference time (`training=False`), the layer returns its
    inputs unchanged.

    Args:
        height_factor: A float, or a tuple of 2 floats, each in `(-1, 1]`:
            the vertical zoom range as a fraction. `height_factor=(0.2, 0.3)`
            zooms out by a random amount in `[+20%, +30%]`;
            `height_factor=(-0.3, -0.2)` zooms in by a random amount in
            `[+20%, +30%]`; `height_factor=0.2` draws from `[-20%, +20%]`.
        width_factor: A float, a tuple of 2 floats, or `None`: the
            horizontal zoom range, like `height_factor`. `None` reuses the
            vertical draw, preserving the aspect ratio. Defaults to `None`.
        fill_mode: Points outside the boundaries of the input are filled
            according to the given mode. Available methods are `"constant"`,
            `"nearest"`, `"wrap"` and `"reflect"`. Defaults to `"reflect"`.

            - `"reflect"`: `(d c b a | a b c d | d c b a)` The input is
              extended by reflecting about the edge of the last pixel.
            - `"constant"`: `(k k k k | a b c d | k k k k)` The input is
              extended by filling all values beyond the edge with the same
              constant value `k` specified by `fill_value`.
            - `"wrap"`: `(a b c d | a b c d | a b c d)` The input is extended
              by wrapping around to the opposite edge.
            - `"nearest"`: `(a a a a | a b c d | d d d d)` The input is
              extended by the nearest pixel.
        interpolation: Interpolation mode, `"nearest"` or `"bilinear"`.
            Defaults to `"bilinear"`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        fill_value: A float, the value to be filled outside the boundaries
            when `fill_mode="constant"`. Defaults to `0.0`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"` (passed through
            unchanged). Integer images are cast to the layer's float compute
            dtype.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as
            floats). Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If a factor is not a number or a pair of numbers in the
            allowed range, `fill_mode`, `interpolation` or `data_format` is
            not a supported value, or `seed` is not an int; on call, if the
            images are not 3D or 4D, or a dict input has other keys than
            `"images"` and `"labels"`.

    Example:
        >>> layer = tfkit.layers.RandomZoom(0.2, fill_mode="constant", seed=1)
        >>> layer(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 8, 8, 3])
        >>> zoom_in = tfkit.layers.RandomZoom((-0.5, -0.2), seed=1)
        >>> float(tf.reduce_min(zoom_in(np.ones((1, 8, 8, 1)))))  # zooming in leaves no border
        1.0
    """

    def __init__(
        self,
        height_factor: Any,
        width_factor: Any = None,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            fill_mode=fill_mode,
            interpolation=interpolation,
            seed=seed,
            fill_value=fill_value,
            data_format=data_format,
            **kwargs,
        )
        who = self._who()
        self.height_lower, self.height_upper = iu.symmetric_factor(
            height_factor, "height_factor", who, low_inclusive=False
        )
        self.height_factor = list(height_factor) if isinstance(height_factor, (tuple, list)) else height_factor
        self.width_factor = list(width_factor) if isinstance(width_factor, (tuple, list)) else width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = iu.symmetric_factor(
                width_factor, "width_factor", who, low_inclusive=False
            )

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
    """A preprocessing layer which randomly translates images during training.

    This layer applies random translations to each image during training,
    filling empty space according to `fill_mode`. At inference time
    (`training=False`), the layer returns its inputs unchanged.

    Args:
        height_factor: A float, or a tuple of 2 floats, each in `[-1, 1]`:
            the vertical shift range as a fraction of the height. A negative
            value shifts the image up, a positive one down.
            `height_factor=(-0.2, 0.3)` shifts by a random amount in the range
            `[-20%, +30%]`; `height_factor=0.2` in `[-20%, +20%]`.
        width_factor: A float, or a tuple of 2 floats, each in `[-1, 1]`: the
            horizontal shift range as a fraction of the width. A negative
            value shifts the image left, a positive one right.
        fill_mode: Points outside the boundaries of the input are filled
            according to the given mode. Available methods are `"constant"`,
            `"nearest"`, `"wrap"` and `"reflect"`. Defaults to `"reflect"`.

            - `"reflect"`: `(d c b a | a b c d | d c b a)` The input is
              extended by reflecting about the edge of the last pixel.
            - `"constant"`: `(k k k k | a b c d | k k k k)` The input is
              extended by filling all values beyond the edge with the same
              constant value `k` specified by `fill_value`.
            - `"wrap"`: `(a b c d | a b c d | a b c d)` The input is extended
              by wrapping around to the opposite edge.
            - `"nearest"`: `(a a a a | a b c d | d d d d)` The input is
              extended by the nearest pixel.
        interpolation: Interpolation mode, `"nearest"` or `"bilinear"`.
            Defaults to `"bilinear"`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        fill_value: A float, the value to be filled outside the boundaries
            when `fill_mode="constant"`. Defaults to `0.0`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"` (passed through
            unchanged). Integer images are cast to the layer's float compute
            dtype.
        training: Python boolean or boolean tensor: whether to augment. As
            in Keras 3, it defaults to `True`, so a layer called on its own
            augments; `fit` calls it with `True`, `predict`, `evaluate` and
            exports with `False`, which returns the images unchanged (as
            floats). Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If a factor is not a number or a pair of numbers in the
            allowed range, `fill_mode`, `interpolation` or `data_format` is
            not a supported value, or `seed` is not an int; on call, if the
            images are not 3D or 4D, or a dict input has other keys than
            `"images"` and `"labels"`.

    Example:
        >>> layer = tfkit.layers.RandomTranslation(0.0, (0.5, 0.5), fill_mode="constant", interpolation="nearest")
        >>> x = np.arange(4, dtype="float32").reshape((1, 1, 4, 1)) + 1
        >>> layer(x)[0, 0, :, 0].numpy()  # shifted right by half the width
        array([0., 0., 1., 2.], dtype=float32)
    """

    def __init__(
        self,
        height_factor: Any,
        width_factor: Any,
        fill_mode: str = "reflect",
        interpolation: str = "bilinear",
        seed: int | None = None,
        fill_value: float = 0.0,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            fill_mode=fill_mode,
            interpolation=interpolation,
            seed=seed,
            fill_value=fill_value,
            data_format=data_format,
            **kwargs,
        )
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
