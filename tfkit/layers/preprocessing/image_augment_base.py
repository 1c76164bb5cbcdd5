"""Base of the Keras-3-style image augmentation layers: dict inputs, the training switch, factors, value ranges.

    hue = tfkit.layers.RandomHue(0.2, value_range=(0, 255), seed=1)
    out = hue({"images": images, "labels": labels}, training=True)    # the same dict back, images changed
    out = hue(images, training=False)                                  # inference: images unchanged (as floats)

Inputs are images (rank 3 or 4, ``data_format`` layout) or a dict with
``"images"`` and optionally ``"labels"``, ``"segmentation_masks"`` and
``"bounding_boxes"`` (``{"boxes": (b, n, 4), "labels": (b, n)}`` in
``bounding_box_format``). One random transformation is drawn per call and
applied to every part, as Keras 3's ``BaseImagePreprocessingLayer`` does.
Subclasses work on 4-D channels-last float batches: :meth:`draw` makes the
random numbers, :meth:`transform_images` (and the other ``transform_*``
hooks) apply them; :meth:`augment` is both at once, for the policy layers.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.base.data_format import standardize_data_format
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config
from tfkit.layers.regularization import in_training
from tfkit.ops import image_boxes as boxes_lib

_KEYS = ("images", "labels", "bounding_boxes", "segmentation_masks")


def _number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def value_range_pair(value_range: Any, who: str) -> tuple[float, float]:
    """``value_range`` as a sorted pair of numbers (Keras sorts it too)."""
    if not isinstance(value_range, (list, tuple)) or len(value_range) != 2 or not all(map(_number, value_range)):
        raise ValueError(f"{who} expected value_range to be a pair of numbers (low, high), got {value_range!r}")
    low, high = sorted(value_range)
    if low == high:
        raise ValueError(f"{who} expected value_range with low < high, got {value_range!r}")
    return low, high


def factor_range(
    factor: Any, what: str, who: str, low: float, high: float, single: str = "symmetric"
) -> tuple[float, float]:
    """``(lower, upper)`` from a number or a pair, each within ``[low, high]``.

    A single number ``f`` means ``(max(-|f|, low), |f|)`` (``single="symmetric"``,
    Keras's base rule), ``(-|f|, |f|)`` (``"signed"``) or ``(low, f)``
    (``"from_low"``).
    """
    if isinstance(factor, (list, tuple)):
        if len(factor) != 2 or not all(map(_number, factor)) or not all(low <= v <= high for v in factor):
            raise ValueError(
                f"{who} expected {what} to be a number or a pair of numbers in [{low}, {high}], got {factor!r}"
            )
        lower, upper = sorted(factor)
        return lower, upper
    if not _number(factor) or not low <= factor <= high:
        raise ValueError(
            f"{who} expected {what} to be a number or a pair of numbers in [{low}, {high}], got {factor!r}"
        )
    if single == "from_low":
        return low, factor
    magnitude = abs(factor)
    return (-magnitude if single == "signed" else max(-magnitude, low)), magnitude


def to_range(images: tf.Tensor, source: tuple[float, float], target: tuple[float, float]) -> tf.Tensor:
    """Map values linearly from ``source = (low, high)`` to ``target``."""
    if tuple(source) == tuple(target):
        return images
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return (images - tf.cast(source[0], images.dtype)) * tf.cast(scale, images.dtype) + tf.cast(target[0], images.dtype)


def batch_size(images: tf.Tensor) -> Any:
    """The batch size of a 4-D tensor: an int when static, a scalar tensor otherwise."""
    return images.shape[0] if images.shape[0] is not None else tf.shape(images)[0]


def log_gamma(shape: Any, alpha: Any, generator: Any, proposals: int = 8) -> tf.Tensor:
    """``log`` of Gamma(``alpha``, 1) draws (Marsaglia and Tsang), from stateless normals and uniforms.

    ``proposals`` candidates are drawn at once and the first accepted one is
    kept (each is accepted with probability above 0.95), so no loop is
    needed and XLA compiles it, unlike ``tf.random.stateless_gamma``.
    ``alpha < 1`` uses ``Gamma(alpha + 1) * U ** (1 / alpha)`` in log space,
    which stays finite for tiny ``alpha``.
    """
    alpha = tf.cast(alpha, tf.float32)
    boosted = alpha + tf.cast(alpha < 1.0, tf.float32)
    d = boosted - 1.0 / 3.0
    c = 1.0 / tf.sqrt(9.0 * d)
    candidates = tf.concat([[proposals], tf.cast(tf.reshape(shape, [-1]), tf.int32)], 0)
    x = tfkit_random.normal(candidates, seed=generator)
    u = tfkit_random.uniform(candidates, minval=1e-12, seed=generator)
    v = (1.0 + c * x) ** 3
    safe_v = tf.maximum(v, 1e-12)
    accept = (v > 0) & (tf.math.log(u) < 0.5 * x * x + d - d * safe_v + d * tf.math.log(safe_v))
    first = tf.argmax(tf.cast(accept, tf.int32), axis=0)
    chosen = tf.reduce_sum(tf.one_hot(first, proposals, axis=0) * tf.math.log(d * safe_v), axis=0)
    boost = tf.math.log(tfkit_random.uniform(shape, minval=1e-12, seed=generator)) / alpha
    return chosen + tf.where(alpha < 1.0, boost, tf.zeros_like(boost))


def beta(shape: Any, a: Any, b: Any, generator: Any) -> tf.Tensor:
    """Beta(``a``, ``b``) draws (float32) as ``G_a / (G_a + G_b)``, computed from log-gamma draws."""
    return tf.sigmoid(log_gamma(shape, a, generator) - log_gamma(shape, b, generator))


def dirichlet(size: int, alpha: Any, generator: Any) -> tf.Tensor:
    """One draw of a symmetric Dirichlet(``alpha``) over ``size`` entries."""
    return tf.nn.softmax(log_gamma((size,), alpha, generator))


class BaseImageAugmentation(Layer):
    """Keras 3's image preprocessing layer contract on tfkit (see the module docstring)."""

    applies_at_inference = False  # Keras applies AutoContrast, CLAHE and MaxNumBoundingBoxes at inference too
    geometric = False  # moves pixels: masks follow with nearest sampling, boxes need a format

    def __init__(self, data_format: str | None = None, bounding_box_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, self._who())
        self.bounding_box_format = boxes_lib.check_format(bounding_box_format, self._who())

    def _who(self) -> str:
        return f"{type(self).__name__} layer '{self.name}'"

    # ---------------------------------------------------------------- hooks (channels-last float batches)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        """The random numbers of one call (one entry per image where the augmentation varies by image)."""
        return {}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        raise NotImplementedError

    def transform_labels(self, labels: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return labels

    def transform_segmentation_masks(self, masks: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return masks

    def transform_bounding_boxes(
        self, boxes: dict[str, tf.Tensor], transformation: dict[str, Any], height: Any, width: Any
    ) -> dict[str, tf.Tensor]:
        """``boxes["boxes"]`` arrive as absolute ``xyxy`` (b, n, 4) when :attr:`geometric`, else untouched."""
        return boxes

    def augment(self, images: tf.Tensor) -> tf.Tensor:
        """Draw and apply in one step (how RandAugment, AugMix and RandomColorJitter use a layer)."""
        return self.transform_images(images, self.draw(images))

    # ---------------------------------------------------------------- call

    def call(self, inputs: Any, training: Any = True) -> Any:
        if self.applies_at_inference:
            return self._run(inputs, True)
        return in_training(training, lambda: self._run(inputs, True), lambda: self._run(inputs, False))

    def _images_in(self, images: Any) -> tf.Tensor:
        images = tf.convert_to_tensor(images)
        rank = images.shape.rank
        if rank not in (3, 4):
            shape = tuple(images.shape) if rank is not None else "of unknown rank"
            raise ValueError(
                f"{self._who()} expected images of rank 3 (height, width, channels) or 4 "
                f"(batch, ...) in {self.data_format} layout, got shape {shape}"
            )
        return images

    def _to_batch(self, tensor: tf.Tensor, unbatched: bool) -> tf.Tensor:
        tensor = tensor[tf.newaxis] if unbatched else tensor
        return tf.transpose(tensor, (0, 2, 3, 1)) if self.data_format == "channels_first" else tensor

    def _from_batch(self, tensor: tf.Tensor, unbatched: bool) -> tf.Tensor:
        tensor = tf.transpose(tensor, (0, 3, 1, 2)) if self.data_format == "channels_first" else tensor
        return tensor[0] if unbatched else tensor

    def prepare_images(self, images: tf.Tensor) -> tf.Tensor:
        """The float images a layer computes on (the compute dtype), in training and at inference alike."""
        dtype = tf.as_dtype(self.compute_dtype)
        return images if images.dtype == dtype else tf.cast(images, dtype)

    def prepare_labels(self, labels: tf.Tensor) -> tf.Tensor:
        """Labels as both the training and the inference branch return them (layers that mix make them float)."""
        return labels

    def prepare_masks(self, masks: tf.Tensor) -> tf.Tensor:
        """Segmentation masks as both branches return them (channels-last batch)."""
        return masks

    def _run(self, inputs: Any, active: bool) -> Any:
        data = dict(inputs) if isinstance(inputs, dict) else {"images": inputs}
        unknown = sorted(set(data) - set(_KEYS))
        if "images" not in data or unknown:
            raise ValueError(
                f"{self._who()} expected images or a dict with the key 'images' and optionally "
                f"'labels', 'bounding_boxes', 'segmentation_masks'; got keys {sorted(data)}"
            )
        images = self._images_in(data["images"])
        unbatched = images.shape.rank == 3
        boxes = None
        if "bounding_boxes" in data:  # checked before any work is done
            boxes = boxes_lib.densify(data["bounding_boxes"], unbatched, self._who())
            if active and self.geometric and self.bounding_box_format is None:
                raise ValueError(
                    f"{self._who()} moves pixels, so it needs bounding_box_format (e.g. 'xyxy') "
                    f"to transform the 'bounding_boxes' it was given"
                )
        batch = self.prepare_images(self._to_batch(images, unbatched))
        transformation = self.draw(batch) if active else None
        out = dict(data)
        out["images"] = self._from_batch(self.transform_images(batch, transformation) if active else batch, unbatched)
        if "labels" in data:
            labels = self.prepare_labels(tf.convert_to_tensor(data["labels"]))
            if active:
                labels = self.transform_labels(labels[tf.newaxis] if unbatched else labels, transformation)
                labels = labels[0] if unbatched else labels
            out["labels"] = labels
        if "segmentation_masks" in data:
            masks = self.prepare_masks(self._to_batch(self._images_in(data["segmentation_masks"]), unbatched))
            if active:
                masks = self.transform_segmentation_masks(masks, transformation)
            out["segmentation_masks"] = self._from_batch(masks, unbatched)
        if "bounding_boxes" in data:
            out["bounding_boxes"] = self._run_boxes(boxes, batch, transformation, unbatched, active)
        return out if isinstance(inputs, dict) else out["images"]

    def _run_boxes(
        self, boxes: dict[str, tf.Tensor], batch: tf.Tensor, transformation: Any, unbatched: bool, active: bool
    ) -> dict[str, tf.Tensor]:
        if active:
            height, width = tf.shape(batch)[1], tf.shape(batch)[2]
            if self.geometric:
                boxes["boxes"] = boxes_lib.to_xyxy(boxes["boxes"], self.bounding_box_format, height, width)
                boxes = self.transform_bounding_boxes(boxes, transformation, height, width)
                boxes["boxes"] = boxes_lib.from_xyxy(boxes["boxes"], self.bounding_box_format, height, width)
            else:
                boxes = self.transform_bounding_boxes(boxes, transformation, height, width)
        return {key: value[0] if unbatched else value for key, value in boxes.items()}

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["data_format"] = self.data_format
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config


class RandomAugmentation(BaseImageAugmentation):
    """A base augmentation with a ``seed`` and its ``tfkit.random.SeedGenerator`` (every call draws anew)."""

    def __init__(self, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise ValueError(f"{self._who()} expected seed to be an int or None, got {seed!r}")
        self.seed = seed
        self.seed_generator = tfkit_random.SeedGenerator(seed)

    def uniform(self, shape: Any, low: Any = 0.0, high: Any = 1.0, dtype: Any = "float32") -> tf.Tensor:
        return tfkit_random.uniform(shape, minval=low, maxval=high, dtype=dtype, seed=self.seed_generator)

    def chance(self, images: tf.Tensor, factor: tuple[float, float]) -> tf.Tensor:
        """One bool per image: apply with a probability drawn from ``factor`` (Keras's two-draw rule)."""
        n = batch_size(images)
        probability = self.uniform((n,), factor[0], factor[1])
        return self.uniform((n,), 0.0, 1.0) < probability

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["seed"] = self.seed
        return config


def per_image(mask: tf.Tensor) -> tf.Tensor:
    """A ``(b,)`` bool as ``(b, 1, 1, 1)``, to pick whole images with ``tf.where``."""
    return tf.reshape(mask, [-1, 1, 1, 1])
