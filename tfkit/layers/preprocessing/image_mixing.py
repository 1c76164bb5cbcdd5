"""Layers over batches of labelled images: ``MixUp``, ``CutMix`` and ``MaxNumBoundingBoxes``.

    mix = tfkit.layers.MixUp(alpha=0.2, seed=1)
    batch = mix({"images": images, "labels": one_hot_labels}, training=True)   # images and labels blended
    dataset = dataset.map(tfkit.layers.CutMix(seed=2))                          # on batched dict elements

MixUp and CutMix pair each image with another of the same batch (a random
permutation) and mix the labels in proportion; labels and mixed masks come
back as floats, in training and inference alike. ``MaxNumBoundingBoxes``
pads or truncates the boxes of dict inputs to a fixed count.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit import random as tfkit_random
from tfkit.base import registry
from tfkit.layers.preprocessing import image_augment_base as base
from tfkit.layers.preprocessing.image_augment_base import (
    BaseImageAugmentation,
    RandomAugmentation,
    batch_size,
)

__all__ = ["MixUp", "CutMix", "MaxNumBoundingBoxes"]


def _per_row(weight: tf.Tensor, values: tf.Tensor) -> tf.Tensor:
    """``weight`` ``(b,)`` shaped to broadcast over ``values`` ``(b, ...)``."""
    return tf.reshape(tf.cast(weight, values.dtype), tf.concat([[-1], tf.ones([values.shape.rank - 1], tf.int32)],
                                                               0))


class _BatchMixing(RandomAugmentation):
    """Shared: a permutation of the batch, float labels mixed by ``label_weight``."""

    def permutation(self, images: tf.Tensor) -> tf.Tensor:
        return tfkit_random.shuffle(tf.range(batch_size(images)), seed=self.seed_generator)

    def prepare_labels(self, labels: tf.Tensor) -> tf.Tensor:
        dtype = tf.as_dtype(self.compute_dtype)
        return labels if labels.dtype == dtype else tf.cast(labels, dtype)

    def transform_labels(self, labels: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        weight = _per_row(transformation["label_weight"], labels)
        return weight * labels + (1.0 - weight) * tf.gather(labels, transformation["permutation"])


@registry.builtin("layers")
class MixUp(_BatchMixing):
    """Blend each image (and label) with another of its batch: ``w x + (1 - w) x[perm]``, ``w ~ Beta(alpha, alpha)``.

    Bounding boxes of both images are kept (the box axis doubles).
    """

    def __init__(self, alpha: float = 0.2, data_format: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha <= 0:
            raise ValueError(f"{self._who()} expected alpha to be a positive number, got {alpha!r}")
        self.alpha = alpha

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        weight = base.beta((batch_size(images),), self.alpha, self.alpha, self.seed_generator)
        return {"permutation": self.permutation(images), "label_weight": weight}

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        weight = _per_row(transformation["label_weight"], images)
        return weight * images + (1.0 - weight) * tf.gather(images, transformation["permutation"])

    def prepare_masks(self, masks: tf.Tensor) -> tf.Tensor:
        return self.prepare_labels(masks)

    def transform_segmentation_masks(self, masks: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return self.transform_images(masks, transformation)

    def transform_bounding_boxes(self, boxes: dict[str, tf.Tensor], transformation: dict[str, Any],
                                 height: Any, width: Any) -> dict[str, tf.Tensor]:
        order = transformation["permutation"]
        return {**boxes, "boxes": tf.concat([boxes["boxes"], tf.gather(boxes["boxes"], order)], axis=1),
                "labels": tf.concat([boxes["labels"], tf.gather(boxes["labels"], order)], axis=1)}

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


@registry.builtin("layers")
class CutMix(_BatchMixing):
    """Paste a random rectangle of another image of the batch into each image; labels mix by pasted area.

    The rectangle covers ``1 - lam`` of the image, ``lam ~ Beta(a, a)`` with
    one ``a`` per call drawn from ``factor``; the label weight is the share of
    pixels kept. Segmentation masks get the
    same rectangles; bounding boxes are not supported (as in Keras).
    """

    def __init__(self, factor: Any = 1.0, seed: int | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = base.factor_range(factor, "factor", self._who(), 0.0, 1.0)

    def draw(self, images: tf.Tensor) -> dict[str, Any]:
        n = batch_size(images)
        a = self.uniform((), *self.factor) + 1e-6
        side = tf.sqrt(1.0 - base.beta((n,), a, a, self.seed_generator))
        shape = tf.shape(images)
        height, width = tf.cast(shape[1], tf.float32), tf.cast(shape[2], tf.float32)

        def bounds(length: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            span = side * length
            start = self.uniform((n,)) * (length - span)
            return start, start + span

        x0, x1 = bounds(width)
        y0, y1 = bounds(height)
        xs = tf.cast(tf.range(shape[2]), tf.float32)[None, None, :, None]
        ys = tf.cast(tf.range(shape[1]), tf.float32)[None, :, None, None]

        def column(v: tf.Tensor) -> tf.Tensor:
            return v[:, None, None, None]

        inside = (xs >= column(x0)) & (xs < column(x1)) & (ys >= column(y0)) & (ys < column(y1))
        pasted = tf.reduce_sum(tf.cast(inside, tf.float32), axis=[1, 2, 3]) / (width * height)
        return {"permutation": self.permutation(images), "inside": inside,
                "label_weight": 1.0 - pasted}      # the pixels actually pasted, not the drawn area

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return tf.where(transformation["inside"], tf.gather(images, transformation["permutation"]), images)

    def transform_segmentation_masks(self, masks: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return self.transform_images(masks, transformation)

    def transform_bounding_boxes(self, boxes: dict[str, tf.Tensor], transformation: dict[str, Any],
                                 height: Any, width: Any) -> dict[str, tf.Tensor]:
        raise NotImplementedError(f"{self._who()} cannot transform bounding boxes (pasted rectangles cut boxes "
                                  f"apart; Keras 3 does not support them either)")

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["factor"] = list(self.factor)
        return config


@registry.builtin("layers")
class MaxNumBoundingBoxes(BaseImageAugmentation):
    """Give every image exactly ``max_number`` boxes: extra boxes are dropped, missing ones padded.

    Padding boxes and labels are ``fill_value`` (-1). Works on the dict inputs
    of the augmentation layers; images and the other entries pass through
    unchanged (same dtype), in training and inference alike.
    """

    applies_at_inference = True

    def __init__(self, max_number: int, fill_value: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(max_number, bool) or not isinstance(max_number, numbers.Integral) or max_number <= 0:
            raise ValueError(f"{self._who()} expected max_number to be a positive integer, got {max_number!r}")
        if isinstance(fill_value, bool) or not isinstance(fill_value, numbers.Integral):
            raise ValueError(f"{self._who()} expected fill_value to be an integer, got {fill_value!r}")
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)

    def prepare_images(self, images: tf.Tensor) -> tf.Tensor:
        return images

    def transform_images(self, images: tf.Tensor, transformation: Any) -> tf.Tensor:
        return images

    def transform_bounding_boxes(self, boxes: dict[str, tf.Tensor], transformation: Any, height: Any,
                                 width: Any) -> dict[str, tf.Tensor]:
        pad = tf.maximum(self.max_number - tf.shape(boxes["boxes"])[1], 0)
        kept = boxes["boxes"][:, : self.max_number]
        fitted = tf.pad(kept, [[0, 0], [0, pad], [0, 0]], constant_values=float(self.fill_value))
        labels = boxes["labels"][:, : self.max_number]
        label_pad = [[0, 0], [0, pad]] + [[0, 0]] * (labels.shape.rank - 2)
        return {**boxes, "boxes": tf.ensure_shape(fitted, [None, self.max_number, 4]),
                "labels": tf.pad(labels, label_pad, constant_values=tf.cast(self.fill_value, labels.dtype))}

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(max_number=self.max_number, fill_value=self.fill_value)
        return config
