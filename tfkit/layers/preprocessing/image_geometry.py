"""Geometric augmentations of Keras 3: ``RandomShear``, ``RandomPerspective``, ``RandomElasticTransform``.

    shear = tfkit.layers.RandomShear(x_factor=0.2, fill_mode="constant", seed=1, bounding_box_format="xyxy")
    out = shear({"images": images, "bounding_boxes": boxes}, training=True)   # boxes follow the pixels
    warp = tfkit.layers.RandomPerspective(factor=0.5, scale=0.3)

Segmentation masks in dict inputs move with the images (nearest sampling);
bounding boxes (shear, perspective) are carried through the same transform
and clipped to the image. Inference returns the images unchanged.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.base import registry
from tfkit.layers.preprocessing import image_augment_base as base
from tfkit.layers.preprocessing.image_augment_base import RandomAugmentation, batch_size, per_image
from tfkit.ops import image_boxes as boxes_lib
from tfkit.ops import image_sample, image_warp

__all__ = ["RandomShear", "RandomPerspective", "RandomElasticTransform"]

_INTERPOLATIONS = ("nearest", "bilinear")


def _choice(value: Any, choices: Any, what: str, who: str) -> Any:
    if value not in choices:
        raise ValueError(f"{who} expected {what} to be one of {tuple(choices)}, got {value!r}")
    return value


def _shear_range(factor: Any, what: str, who: str) -> tuple[float, float]:
    """A number ``f`` in ``[0, 1]`` means ``(-f, f)``; a pair (as a saved config holds it) lies in ``[-1, 1]``."""
    if isinstance(factor, (list, tuple)):
        return base.factor_range(factor, what, who, -1.0, 1.0)
    return base.factor_range(factor, what, who, 0.0, 1.0, single="signed")


class _WarpAugmentation(RandomAugmentation):
    """Shared resampling: subclasses draw ``transforms`` (b, 8) and optionally an ``apply`` mask."""

    geometric = True
    fill_mode = "constant"

    def _warp(self, images: tf.Tensor, transformation: dict[str, Any], interpolation: str) -> tf.Tensor:
        out = image_warp.projective_transform(
            images, transformation["transforms"], interpolation, self.fill_mode, self.fill_value
        )
        if "apply" in transformation:
            out = tf.where(per_image(transformation["apply"]), out, images)
        return out

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return self._warp(images, transformation, self.interpolation)

    def transform_segmentation_masks(self, masks: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return self._warp(masks, transformation, "nearest")

    def transform_bounding_boxes(
        self, boxes: dict[str, tf.Tensor], transformation: dict[str, Any], height: Any, width: Any
    ) -> dict[str, tf.Tensor]:
        moved = boxes_lib.project(boxes["boxes"], transformation["transforms"])
        if "apply" in transformation:
            moved = tf.where(tf.reshape(transformation["apply"], [-1, 1, 1]), moved, boxes["boxes"])
        return boxes_lib.clip({**boxes, "boxes": moved}, height, width)


@registry.builtin("layers")
class RandomShear(_WarpAugmentation):
    """A preprocessing layer that randomly applies shear transformations to images.

    This layer shears the input images along the x-axis and/or y-axis about
    their top-left corner: the output pixel `(x, y)` reads the input at
    `(x + sx * y, y + sy * x)`, with the shears `sx` and `sy` drawn per
    image. As in Keras, the sign of both shears is flipped for a random half
    of the images. Segmentation masks in dict inputs move with the images
    (nearest sampling); bounding boxes are carried through the same
    transform and clipped to the image. At inference time, the output is
    identical to the input (as floats).

    Args:
        x_factor: A float in `[0, 1]`, or a pair of floats in `[-1, 1]`, the
            range of the x-axis shear: `f` draws `sx` from `[-f, f]`, a pair
            `(a, b)` from `[a, b]`. Defaults to `0.0`.
        y_factor: Like `x_factor`, for the y-axis shear `sy`. Defaults to
            `0.0`.
        interpolation: Interpolation mode, `"nearest"` or `"bilinear"`.
            Defaults to `"bilinear"`.
        fill_mode: Points outside the boundaries of the input are filled
            according to the given mode: `"constant"` (`fill_value`),
            `"nearest"`, `"wrap"` or `"reflect"`. Defaults to `"reflect"`.
        fill_value: A float, the value to be filled outside the boundaries
            when `fill_mode="constant"`. Defaults to `0.0`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`,
            and `bounding_box_format` (e.g. `"xyxy"`), needed to transform
            `"bounding_boxes"` in dict inputs.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (transformed along
            with the images, as in Keras 3). Images are computed on in the
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
        ValueError: If a factor is out of range, `interpolation`, `fill_mode` or
            `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D, a dict input has unknown
            keys or no `"images"`, or it has `"bounding_boxes"` and the layer
            no `bounding_box_format`.

    Example:
        >>> layer = tfkit.layers.RandomShear(x_factor=0.2, fill_mode="constant", seed=1)
        >>> layer(np.ones((2, 6, 6, 3))).shape
        TensorShape([2, 6, 6, 3])
        >>> float(layer(np.ones((6, 6, 3)), training=False).numpy().min())
        1.0
    """

    def __init__(
        self,
        x_factor: Any = 0.0,
        y_factor: Any = 0.0,
        interpolation: str = "bilinear",
        fill_mode: str = "reflect",
        fill_value: float = 0.0,
        data_format: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        who = self._who()
        self.x_factor = _shear_range(x_factor, "x_factor", who)
        self.y_factor = _shear_range(y_factor, "y_factor", who)
        self.interpolation = _choice(interpolation, _INTERPOLATIONS, "interpolation", who)
        self.fill_mode = _choice(fill_mode, image_warp.FILL_MODES, "fill_mode", who)
        self.fill_value = fill_value

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        n = batch_size(images)
        sign = tf.where(self.uniform((n, 1)) > 0.5, -1.0, 1.0)
        shear_y = self.uniform((n, 1), *self.y_factor) * sign
        shear_x = self.uniform((n, 1), *self.x_factor) * sign
        ones, zeros = tf.ones_like(shear_x), tf.zeros_like(shear_x)
        return {"transforms": tf.concat([ones, shear_x, zeros, shear_y, ones, zeros, zeros, zeros], axis=1)}

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            x_factor=list(self.x_factor),
            y_factor=list(self.y_factor),
            fill_mode=self.fill_mode,
            interpolation=self.interpolation,
            fill_value=self.fill_value,
        )
        return config


@registry.builtin("layers")
class RandomPerspective(_WarpAugmentation):
    """A preprocessing layer that applies random perspective transformations.

    This layer distorts the perspective of input images by moving their
    corner points, with a probability per image drawn from `factor`. As in
    Keras, corner `p` goes to `p * (1 + u)`, with `u` uniform in
    `[-scale / 2, scale / 2]` per coordinate (so the top-left corner stays);
    uncovered pixels get `fill_value`. Segmentation masks in dict inputs move
    with the images; bounding boxes are carried through the same transform
    and clipped to the image. At inference time, the output is identical to
    the input (as floats).

    Args:
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the range
            the probability of transforming an image is drawn from. A float
            `f` means `(0, f)`; `(1.0, 1.0)` transforms every image. Defaults
            to `1.0`.
        scale: A float in `[0, 1]`, the strength of the distortion (how far
            the corners move, as a fraction of their coordinates). Defaults
            to `1.0`.
        interpolation: Interpolation mode, `"nearest"` or `"bilinear"`.
            Defaults to `"bilinear"`.
        fill_value: A float, the value of the pixels that fall outside the
            transformed image. Defaults to `0.0`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`,
            and `bounding_box_format` (e.g. `"xyxy"`), needed to transform
            `"bounding_boxes"` in dict inputs.

    Call arguments:
        inputs: A 3D (unbatched) or 4D (batched) image tensor, or a dict with
            the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (transformed along
            with the images, as in Keras 3). Images are computed on in the
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
        ValueError: If `factor` is not a number or a pair in `[0, 1]`, `scale` is not
            in `[0, 1]`, `interpolation` or `data_format` is unknown, or `seed` is not an int;
            on call, if the images are not 3D or 4D, a dict input has unknown
            keys or no `"images"`, or it has `"bounding_boxes"` and the layer
            no `bounding_box_format`.

    Example:
        >>> layer = tfkit.layers.RandomPerspective(factor=(1.0, 1.0), scale=0.3, seed=1)
        >>> layer(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 8, 8, 3])
        >>> float(tfkit.layers.RandomPerspective(scale=0.0)(np.ones((1, 4, 4, 1))).numpy().min())  # no move
        1.0
    """

    def __init__(
        self,
        factor: Any = 1.0,
        scale: float = 1.0,
        interpolation: str = "bilinear",
        fill_value: float = 0.0,
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        who = self._who()
        self.factor = base.factor_range(factor, "factor", who, 0.0, 1.0)
        if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not 0.0 <= scale <= 1.0:
            raise ValueError(f"{who} expected scale to be a number in [0, 1], got {scale!r}")
        self.scale = scale
        self.interpolation = _choice(interpolation, _INTERPOLATIONS, "interpolation", who)
        self.fill_value = fill_value

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        n = batch_size(images)
        shape = tf.shape(images)
        w, h = tf.cast(shape[2] - 1, tf.float32), tf.cast(shape[1] - 1, tf.float32)
        start = tf.reshape(tf.stack([0.0, 0.0, w, 0.0, 0.0, h, w, h]), [1, 4, 2]) * tf.ones([n, 1, 1])
        moves = self.uniform((n, 4, 2), -0.5 * self.scale, 0.5 * self.scale)
        return {
            "apply": self.chance(images, self.factor),
            "transforms": image_warp.homography(start, start + start * moves),
        }

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            factor=list(self.factor), scale=self.scale, interpolation=self.interpolation, fill_value=self.fill_value
        )
        return config


@registry.builtin("layers")
class RandomElasticTransform(RandomAugmentation):
    """A preprocessing layer that applies random elastic transformations.

    This layer distorts input images by applying elastic transformations
    (`tfkit.ops.image.elastic_transform`): a random displacement field,
    smoothed with a Gaussian filter, moves each pixel. Each image is
    distorted with a probability drawn from `factor`. One distortion `d` per
    call is drawn from `scale`; it sets `alpha = 0.1 * d * max(h, w)` and
    `sigma = 0.05 * d * min(h, w)`, as in Keras. Results are clipped to
    `value_range`. Segmentation masks in dict inputs move with the images
    (nearest sampling); bounding boxes are not supported (an elastic warp
    does not keep them rectangular; Keras 3 does not support them either).
    At inference time, the output is identical to the input (as floats).

    Args:
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the range
            the probability of transforming an image is drawn from. A float
            `f` means `(0, f)`. Defaults to `1.0`.
        scale: A float or a tuple of 2 floats, each in `[0, 1]`, the range
            of the distortion strength `d`. A float `f` means `(0, f)`.
            Defaults to `1.0`.
        interpolation: Interpolation mode, `"nearest"` or `"bilinear"`.
            Defaults to `"bilinear"`.
        fill_mode: Points outside the boundaries of the input are filled
            according to the given mode: `"constant"` (`fill_value`),
            `"nearest"`, `"wrap"`, `"mirror"` or `"reflect"`. Defaults to
            `"reflect"`.
        fill_value: A float, the value to be filled outside the boundaries
            when `fill_mode="constant"`. Defaults to `0.0`.
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
            `"segmentation_masks"` and `"bounding_boxes"` (transformed along
            with the images, as in Keras 3). Images are computed on in the
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
        ValueError: If `factor` or `scale` is not a number or a pair in
            `[0, 1]`, `interpolation`, `fill_mode` or `data_format` is
            unknown, `value_range` is not a pair of distinct numbers, or `seed`
            is not an int; on call, if the images are not 3D or 4D or a dict
            input has unknown keys or no `"images"`.
        NotImplementedError: If a dict input holds `"bounding_boxes"` (in
            training).

    Example:
        >>> layer = tfkit.layers.RandomElasticTransform(factor=(1.0, 1.0), scale=0.5, seed=1)
        >>> y = layer(np.full((2, 8, 8, 1), 100.0))
        >>> y.shape
        TensorShape([2, 8, 8, 1])
    """

    geometric = True

    def __init__(
        self,
        factor: Any = 1.0,
        scale: Any = 1.0,
        interpolation: str = "bilinear",
        fill_mode: str = "reflect",
        fill_value: float = 0.0,
        value_range: Any = (0, 255),
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        who = self._who()
        self.factor = base.factor_range(factor, "factor", who, 0.0, 1.0)
        self.scale = base.factor_range(scale, "scale", who, 0.0, 1.0)
        self.interpolation = _choice(interpolation, _INTERPOLATIONS, "interpolation", who)
        self.fill_mode = _choice(fill_mode, ("constant", "nearest", "wrap", "mirror", "reflect"), "fill_mode", who)
        self.fill_value = fill_value
        self.value_range = base.value_range_pair(value_range, who)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        return {
            "apply": self.chance(images, self.factor),
            "distortion": self.uniform((), *self.scale),
            "seed": tfkit_random.draw_seed(self.seed_generator),
        }

    def _distort(self, images: tf.Tensor, transformation: dict[str, Any], interpolation: str) -> tf.Tensor:
        if self.scale[1] == 0 or self.factor[1] == 0:
            return images
        shape = tf.shape(images)
        height = images.shape[1] if images.shape[1] is not None else shape[1]
        width = images.shape[2] if images.shape[2] is not None else shape[2]
        d = tf.cast(transformation["distortion"], tf.float32)
        alpha = tf.cast(tf.maximum(height, width), tf.float32) * 0.1 * d
        sigma = tf.cast(tf.minimum(height, width), tf.float32) * 0.05 * d
        static = isinstance(height, int) and isinstance(width, int)
        max_sigma = min(height, width) * 0.05 * self.scale[1] if static else None  # a static kernel for XLA
        out = image_sample.elastic_batch(
            images,
            alpha,
            sigma,
            interpolation,
            self.fill_mode,
            self.fill_value,
            transformation["seed"],
            max_sigma=max_sigma,
        )
        return tf.where(per_image(transformation["apply"]), out, images)

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        out = self._distort(images, transformation, self.interpolation)
        return tf.clip_by_value(out, tf.cast(self.value_range[0], out.dtype), tf.cast(self.value_range[1], out.dtype))

    def transform_segmentation_masks(self, masks: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return self._distort(masks, transformation, "nearest")

    def transform_bounding_boxes(
        self, boxes: dict[str, tf.Tensor], transformation: dict[str, Any], height: Any, width: Any
    ) -> dict[str, tf.Tensor]:
        raise NotImplementedError(
            f"{self._who()} cannot move bounding boxes (an elastic warp does not keep them "
            f"rectangular; Keras 3 does not support them either)"
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            factor=list(self.factor),
            scale=list(self.scale),
            interpolation=self.interpolation,
            fill_mode=self.fill_mode,
            fill_value=self.fill_value,
            value_range=list(self.value_range),
        )
        return config
