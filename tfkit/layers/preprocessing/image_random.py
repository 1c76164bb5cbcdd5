"""Random image augmentations: ``RandomFlip``, ``RandomContrast``, ``RandomCrop`` and their shared base.

    flip = tfkit.layers.RandomFlip("horizontal", seed=1337)
    y = flip(images, training=True)    # about half the images mirrored left-right
    y = flip(images, training=False)   # unchanged (``predict`` and exports call with training=False)

As in Keras 3, a random layer called on its own (no ``training`` argument,
no enclosing model call) augments; inside ``fit`` it augments and inside
``predict``/``evaluate``/exports it does not. Random numbers come from the
layer's ``tfkit.random.SeedGenerator`` through stateless ops, so every call
draws anew (eager, ``tf.function`` and XLA alike) and a seed replays them.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config
from tfkit.layers.preprocessing import image_utils as iu
from tfkit.layers.regularization import in_training

__all__ = ["RandomFlip", "RandomContrast", "RandomCrop"]


class RandomImageLayer(Layer):
    """Base of the random image layers: seed, ``data_format``, batching and the training switch.

    Subclasses implement :meth:`augment` on a channels-last 4-D float batch;
    :meth:`infer` (identity by default) is what inference returns.
    """

    def __init__(self, seed: int | None = None, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        iu.check_seed(seed, self._who())
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed)
        self.data_format = iu.check_data_format(data_format, self._who())

    def _who(self) -> str:
        return f"{type(self).__name__} layer '{self.name}'"

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        raise NotImplementedError

    def infer(self, images: tf.Tensor) -> tf.Tensor:
        return images

    def _apply(self, fn: Any, images: tf.Tensor) -> tf.Tensor:
        batch, unbatched = iu.as_batch(iu.to_channels_last(images, self.data_format), self._who())
        return iu.from_channels_last(iu.unbatch(fn(batch), unbatched), self.data_format)

    moves_pixels = True   # masks and boxes in dict inputs would have to move with the images

    def call(self, inputs: Any, training: Any = True) -> Any:
        if isinstance(inputs, dict):
            return self._call_dict(inputs, training)
        iu.check_rank(inputs, self._who())
        images = iu.to_float(inputs, self.compute_dtype)
        return in_training(training, lambda: self._apply(self.augment, images),
                           lambda: self._apply(self.infer, images))

    def _call_dict(self, inputs: dict, training: Any) -> dict:
        """Keras 3's dict inputs: ``"images"`` augmented, ``"labels"`` passed through (as in Keras)."""
        keys = sorted(inputs)
        if "images" not in inputs or set(keys) - {"images", "labels", "segmentation_masks", "bounding_boxes"}:
            raise ValueError(f"{self._who()} expected images or a dict with the key 'images' and optionally "
                             f"'labels', 'bounding_boxes', 'segmentation_masks'; got keys {keys}")
        moved = [key for key in ("segmentation_masks", "bounding_boxes") if key in inputs]
        if moved and self.moves_pixels:
            raise ValueError(f"{self._who()} does not transform {' or '.join(repr(k) for k in moved)} in dict "
                             f"inputs (only 'images' and 'labels'); pass images and labels only")
        out = dict(inputs)
        out["images"] = self.call(inputs["images"], training=training)
        return out

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(seed=self.seed, data_format=self.data_format)
        return config


def batch_size(images: tf.Tensor) -> Any:
    """The batch size of a 4-D tensor: an int when static, a scalar tensor otherwise."""
    static = images.shape[0]
    return static if static is not None else tf.shape(images)[0]


_FLIP_MODES = ("horizontal", "vertical", "horizontal_and_vertical")


@registry.builtin("layers")
class RandomFlip(RandomImageLayer):
    """Mirror each image with probability 1/2 while training.

    ``mode`` is ``"horizontal"`` (left-right), ``"vertical"`` (up-down) or
    ``"horizontal_and_vertical"``; in the last mode Keras 3 draws one decision
    per image for both axes (so an image is either unchanged or turned by 180
    degrees), and so does this layer.
    """

    def __init__(self, mode: str = "horizontal_and_vertical", seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.mode = iu.check_choice(mode, _FLIP_MODES, "mode", self._who())

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        flips = tfkit_random.uniform((batch_size(images), 1, 1, 1), seed=self.seed_generator) <= 0.5
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = tf.where(flips, tf.reverse(images, axis=[2]), images)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = tf.where(flips, tf.reverse(images, axis=[1]), images)
        return images

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["mode"] = self.mode
        return config


@registry.builtin("layers")
class RandomContrast(RandomImageLayer):
    """Scale each image's deviation from its per-channel mean by a random factor, then clip to ``value_range``.

    ``output = clip((x - mean) * c + mean, *value_range)`` with one ``c`` per
    image drawn uniformly from ``[1 - lower, 1 + upper]``. As in Keras 3 a
    single number ``f`` means ``(lower, upper) = (0, f)`` (contrast only
    rises); pass a pair ``(lower, upper)`` for both directions.
    """

    moves_pixels = False

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None, **kwargs: Any) -> None:
        data_format = kwargs.pop("data_format", None)
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        who = self._who()
        lower, upper = iu.symmetric_factor(factor, "factor", who, low=0.0, high=1.0)
        if isinstance(factor, (tuple, list)):
            self.factor = (lower, upper)
        else:
            self.factor = (0.0, upper)
        self._factor_arg = list(factor) if isinstance(factor, (tuple, list)) else factor
        if (not isinstance(value_range, (tuple, list)) or len(value_range) != 2
                or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value_range)
                or value_range[0] >= value_range[1]):
            raise ValueError(f"{who} expected value_range to be a pair (low, high) with low < high, "
                             f"got {value_range!r}")
        self.value_range = tuple(value_range)

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        contrast = tfkit_random.uniform((batch_size(images), 1, 1, 1), minval=1.0 - self.factor[0],
                                        maxval=1.0 + self.factor[1], dtype=images.dtype, seed=self.seed_generator)
        mean = tf.reduce_mean(images, axis=[1, 2], keepdims=True)
        out = (images - mean) * contrast + mean
        return tf.clip_by_value(out, tf.cast(self.value_range[0], images.dtype),
                                tf.cast(self.value_range[1], images.dtype))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(factor=self._factor_arg, value_range=list(self.value_range))
        return config


@registry.builtin("layers")
class RandomCrop(RandomImageLayer):
    """Crop a random ``(height, width)`` window while training (one window for the whole batch, as in Keras).

    At inference, and while training on images not larger than the target in
    both directions, the largest centered window with the target's aspect
    ratio is taken and resized to the target, so the output size never
    depends on ``training``.
    """

    def __init__(self, height: int, width: int, seed: int | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height = iu.positive_int(height, "height", self._who())
        self.width = iu.positive_int(width, "width", self._who())

    def _center(self, images: tf.Tensor) -> tf.Tensor:
        in_h, in_w = iu.hw(images)
        cropped = iu.crop(images, *iu.aspect_crop_box(in_h, in_w, self.height, self.width))
        out = iu.resize(cropped, self.height, self.width, "bilinear")
        return tf.ensure_shape(out, iu.output_image_shape(images.shape, self.height, self.width, "channels_last"))

    def infer(self, images: tf.Tensor) -> tf.Tensor:
        return self._center(images)

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        in_h, in_w = iu.hw(images)

        def random_window() -> tf.Tensor:
            top = tf.cast(tfkit_random.uniform((), 0.0, tf.cast(in_h - self.height + 1, tf.float32),
                                               seed=self.seed_generator), tf.int32)
            left = tf.cast(tfkit_random.uniform((), 0.0, tf.cast(in_w - self.width + 1, tf.float32),
                                                seed=self.seed_generator), tf.int32)
            out = iu.crop(images, top, left, self.height, self.width)
            return tf.ensure_shape(out, iu.output_image_shape(images.shape, self.height, self.width, "channels_last"))

        if isinstance(in_h, int) and isinstance(in_w, int):
            return random_window() if in_h > self.height and in_w > self.width else self._center(images)
        larger = tf.logical_and(tf.greater(in_h, self.height), tf.greater(in_w, self.width))
        return tf.cond(larger, random_window, lambda: self._center(images))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return iu.output_image_shape(input_shape, self.height, self.width, self.data_format)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(height=self.height, width=self.width)
        return config
