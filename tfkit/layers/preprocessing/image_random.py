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
from tfkit.base.argument_validation import positive_int
from tfkit.base.data_format import from_channels_last, standardize_data_format, to_channels_last
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
        self.data_format = standardize_data_format(data_format, self._who())

    def _who(self) -> str:
        return f"{type(self).__name__} layer '{self.name}'"

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        raise NotImplementedError

    def infer(self, images: tf.Tensor) -> tf.Tensor:
        return images

    def _apply(self, fn: Any, images: tf.Tensor) -> tf.Tensor:
        batch, unbatched = iu.as_batch(images, self._who())
        outputs = from_channels_last(fn(to_channels_last(batch, self.data_format)), self.data_format)
        return iu.unbatch(outputs, unbatched)

    moves_pixels = True  # masks and boxes in dict inputs would have to move with the images

    def call(self, inputs: Any, training: Any = True) -> Any:
        if isinstance(inputs, dict):
            return self._call_dict(inputs, training)
        iu.check_rank(inputs, self._who())
        images = iu.to_float(inputs, self.compute_dtype)
        return in_training(training, lambda: self._apply(self.augment, images), lambda: self._apply(self.infer, images))

    def _call_dict(self, inputs: dict, training: Any) -> dict:
        """Keras 3's dict inputs: ``"images"`` augmented, ``"labels"`` passed through (as in Keras)."""
        keys = sorted(inputs)
        if "images" not in inputs or set(keys) - {"images", "labels", "segmentation_masks", "bounding_boxes"}:
            raise ValueError(
                f"{self._who()} expected images or a dict with the key 'images' and optionally "
                f"'labels', 'bounding_boxes', 'segmentation_masks'; got keys {keys}"
            )
        moved = [key for key in ("segmentation_masks", "bounding_boxes") if key in inputs]
        if moved and self.moves_pixels:
            raise ValueError(
                f"{self._who()} does not transform {' or '.join(repr(k) for k in moved)} in dict "
                f"inputs (only 'images' and 'labels'); pass images and labels only"
            )
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
    """A preprocessing layer which randomly flips images during training.

    This layer flips each image horizontally and/or vertically with
    probability 1/2, based on `mode`. In `"horizontal_and_vertical"` mode,
    Keras 3 draws one decision per image for both axes (so an image is either
    unchanged or turned by 180 degrees), and so does this layer. At inference
    time (`training=False`), the layer returns its inputs unchanged.

    Args:
        mode: String indicating which flip mode to use: `"horizontal"`
            (left-right), `"vertical"` (up-down) or
            `"horizontal_and_vertical"`. Defaults to
            `"horizontal_and_vertical"`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
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
        ValueError: If `mode` or `data_format` is not a supported value, or
            `seed` is not an int; on call, if the images are not 3D or 4D, or
            a dict input has other keys than `"images"` and `"labels"`.

    Example:
        >>> layer = tfkit.layers.RandomFlip("horizontal", seed=1337)
        >>> x = np.array([[[1.0], [2.0], [3.0]]], dtype="float32")  # one 1x3 image
        >>> y = layer(x, training=True)[0, :, 0].numpy()
        >>> y.tolist() in ([1.0, 2.0, 3.0], [3.0, 2.0, 1.0])
        True
        >>> layer(x, training=False)[0, :, 0].numpy()
        array([1., 2., 3.], dtype=float32)
    """

    def __init__(
        self,
        mode: str = "horizontal_and_vertical",
        seed: int | None = None,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
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
    """A preprocessing layer which randomly adjusts contrast during training.

    This layer adjusts the contrast of each image by a random factor `c`
    (one per image): for each channel, it computes the mean of the image
    pixels in the channel and then adjusts each pixel `x` to
    `(x - mean) * c + mean`, clipped to `value_range`. At inference time
    (`training=False`), the layer returns its inputs unchanged.

    Args:
        factor: A non-negative float, or a tuple of 2 floats `(lower,
            upper)`, each in `[0, 1]`. The contrast factor is drawn uniformly
            from `[1.0 - lower, 1.0 + upper]`. As in Keras 3, a single number
            `f` means `(lower, upper) = (0, f)` (contrast only rises); pass a
            pair for both directions.
        value_range: The range of values the input image can take, a pair
            `(low, high)`; the output is clipped to it. Defaults to
            `(0, 255)`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `data_format` (images' layout, `tfkit.backend.image_data_format()` by default).

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
        ValueError: If `factor` is not a number or a pair in `[0, 1]`,
            `value_range` is not a pair `(low, high)` with `low < high`, or
            `seed` is not an int; on call, if the images are not 3D or 4D.

    Example:
        >>> layer = tfkit.layers.RandomContrast(factor=(0.5, 0.5), value_range=(0, 1), seed=1)
        >>> x = np.array([[[0.2], [0.6]]], dtype="float32")  # mean 0.4
        >>> y = layer(x).numpy()[0, :, 0]  # contrast factor drawn from [0.5, 1.5]
        >>> round(float(y.mean()), 4)  # the mean is kept
        0.4
        >>> bool(0.1 <= y[0] <= 0.3 and 0.5 <= y[1] <= 0.7)
        True
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
        if (
            not isinstance(value_range, (tuple, list))
            or len(value_range) != 2
            or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value_range)
            or value_range[0] >= value_range[1]
        ):
            raise ValueError(
                f"{who} expected value_range to be a pair (low, high) with low < high, got {value_range!r}"
            )
        self.value_range = tuple(value_range)

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        contrast = tfkit_random.uniform(
            (batch_size(images), 1, 1, 1),
            minval=1.0 - self.factor[0],
            maxval=1.0 + self.factor[1],
            dtype=images.dtype,
            seed=self.seed_generator,
        )
        mean = tf.reduce_mean(images, axis=[1, 2], keepdims=True)
        out = (images - mean) * contrast + mean
        return tf.clip_by_value(
            out, tf.cast(self.value_range[0], images.dtype), tf.cast(self.value_range[1], images.dtype)
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(factor=self._factor_arg, value_range=list(self.value_range))
        return config


@registry.builtin("layers")
class RandomCrop(RandomImageLayer):
    """A preprocessing layer which randomly crops images during training.

    During training, this layer randomly chooses a location to crop images
    down to a target size (one window for the whole batch, as in Keras).

    At inference time, and during training if an input image is smaller (or
    equal) than the target size in either direction, the largest centered
    window with the target's aspect ratio is taken and resized to the target
    size, so the output size never depends on `training`.

    Args:
        height: Positive integer, the height of the output shape.
        width: Positive integer, the width of the output shape.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
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
            exports with `False`, which takes the centered
            window. Defaults to `True`.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., target_height, target_width, channels)`, or
        `(..., channels, target_height, target_width)` in
        `"channels_first"` format.

    Raises:
        ValueError: If `height` or `width` is not a positive integer,
            `data_format` is not a supported value, or `seed` is not an int; on
            call, if the images are not 3D or 4D.

    Example:
        >>> layer = tfkit.layers.RandomCrop(2, 2, seed=1)
        >>> layer(np.ones((3, 5, 6, 1))).shape
        TensorShape([3, 2, 2, 1])
        >>> x = np.arange(16, dtype="float32").reshape((1, 4, 4, 1))
        >>> layer(x, training=False)[0, :, :, 0].numpy()  # inference: the center, resized
        array([[ 2.5,  4.5],
               [10.5, 12.5]], dtype=float32)
    """

    def __init__(
        self, height: int, width: int, seed: int | None = None, data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height = positive_int(height, "height", self._who())
        self.width = positive_int(width, "width", self._who())

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
            top = tf.cast(
                tfkit_random.uniform((), 0.0, tf.cast(in_h - self.height + 1, tf.float32), seed=self.seed_generator),
                tf.int32,
            )
            left = tf.cast(
                tfkit_random.uniform((), 0.0, tf.cast(in_w - self.width + 1, tf.float32), seed=self.seed_generator),
                tf.int32,
            )
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
