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
from tfkit.base.argument_validation import positive_int
from tfkit.layers.preprocessing import image_augment_base as base
from tfkit.layers.preprocessing.image_augment_base import BaseImageAugmentation, RandomAugmentation, batch_size

__all__ = ["MixUp", "CutMix", "MaxNumBoundingBoxes"]


def _per_row(weight: tf.Tensor, values: tf.Tensor) -> tf.Tensor:
    """``weight`` ``(b,)`` shaped to broadcast over ``values`` ``(b, ...)``."""
    return tf.reshape(tf.cast(weight, values.dtype), tf.concat([[-1], tf.ones([values.shape.rank - 1], tf.int32)], 0))


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
    """MixUp implements the MixUp data augmentation technique.

    Each image (and its label) is blended with another image of the same
    batch (a random permutation): `w * x + (1 - w) * x[perm]`, with one
    weight `w ~ Beta(alpha, alpha)` per image; labels are mixed with the same
    weights. Bounding boxes of both images are kept (the box axis doubles).

    References:
        - [MixUp paper](https://arxiv.org/abs/1710.09412).

    Args:
        alpha: Positive float, the parameter of the Beta distribution the
            mixing weights are drawn from. Defaults to `0.2`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 4D batch of images, or a dict with the key `"images"` and
            optionally `"labels"` (e.g. one-hot, mixed like the images and
            returned as floats, in training and inference alike),
            `"segmentation_masks"` and `"bounding_boxes"`; a dict input
            returns a dict.
        training: Python boolean or boolean tensor: whether to mix. As in
            Keras 3, it defaults to `True`, so a layer called on its own
            mixes; `predict`, `evaluate` and exports call it with `False`,
            which returns the images unchanged (as floats). Defaults to
            `True`.

    Input shape:
        4D tensor with shape `(batch_size, height, width, channels)` (or
        channels first), 3D for a single image.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `alpha` is not a positive number, `data_format` is
            unknown, or `seed` is not an int; on call, if the images are not
            3D or 4D or a dict input has unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.MixUp(alpha=0.2, seed=1)
        >>> images = np.random.uniform(0, 255, (4, 8, 8, 3))
        >>> labels = np.eye(4)
        >>> out = layer({"images": images, "labels": labels})
        >>> out["images"].shape
        TensorShape([4, 8, 8, 3])
        >>> np.round(out["labels"].numpy().sum(axis=1), 4)  # mixed labels still sum to 1
        array([1., 1., 1., 1.], dtype=float32)
    """

    def __init__(
        self, alpha: float = 0.2, data_format: str | None = None, seed: int | None = None, **kwargs: Any
    ) -> None:
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

    def transform_bounding_boxes(
        self, boxes: dict[str, tf.Tensor], transformation: dict[str, Any], height: Any, width: Any
    ) -> dict[str, tf.Tensor]:
        order = transformation["permutation"]
        return {
            **boxes,
            "boxes": tf.concat([boxes["boxes"], tf.gather(boxes["boxes"], order)], axis=1),
            "labels": tf.concat([boxes["labels"], tf.gather(boxes["labels"], order)], axis=1),
        }

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


@registry.builtin("layers")
class CutMix(_BatchMixing):
    """CutMix data augmentation technique.

    CutMix pastes a random rectangle of another image of the batch (a random
    permutation) into each image, and mixes the labels in proportion to the
    area pasted. The rectangle covers `1 - lam` of the image, with
    `lam ~ Beta(a, a)` and one `a` per call drawn from `factor`; the label
    weight is the share of pixels actually kept. Segmentation masks get the
    same rectangles; bounding boxes are not supported (as in Keras).

    References:
        - [CutMix paper](https://arxiv.org/abs/1905.04899).

    Args:
        factor: A float or a tuple of 2 floats, each in `[0, 1]`, the range
            the Beta distribution's parameter is drawn from. A float `f`
            means `(0, f)`. Defaults to `1.0`.
        seed: Optional int, the seed of the layer's random generator, for
            reproducible augmentations. Defaults to `None`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()` (`"channels_last"` unless
            configured otherwise).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 4D batch of images, or a dict with the key `"images"` and
            optionally `"labels"` (e.g. one-hot, mixed like the images and
            returned as floats, in training and inference alike),
            `"segmentation_masks"` and `"bounding_boxes"`; a dict input
            returns a dict.
        training: Python boolean or boolean tensor: whether to mix. As in
            Keras 3, it defaults to `True`, so a layer called on its own
            mixes; `predict`, `evaluate` and exports call it with `False`,
            which returns the images unchanged (as floats). Defaults to
            `True`.

    Input shape:
        4D tensor with shape `(batch_size, height, width, channels)` (or
        channels first), 3D for a single image.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `factor` is not a number or a pair in `[0, 1]`,
            `data_format` is unknown, or `seed` is not an int; on call, if the
            images are not 3D or 4D or a dict input has unknown keys or no
            `"images"`.
        NotImplementedError: If a dict input holds `"bounding_boxes"` (in
            training).

    Example:
        >>> layer = tfkit.layers.CutMix(seed=2)
        >>> images = np.random.uniform(0, 255, (4, 8, 8, 3))
        >>> out = layer({"images": images, "labels": np.eye(4)})
        >>> out["images"].shape
        TensorShape([4, 8, 8, 3])
        >>> np.round(out["labels"].numpy().sum(axis=1), 4)
        array([1., 1., 1., 1.], dtype=float32)
    """

    def __init__(
        self, factor: Any = 1.0, seed: int | None = None, data_format: str | None = None, **kwargs: Any
    ) -> None:
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
        return {
            "permutation": self.permutation(images),
            "inside": inside,
            "label_weight": 1.0 - pasted,
        }  # the pixels actually pasted, not the drawn area

    def transform_images(self, images: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return tf.where(transformation["inside"], tf.gather(images, transformation["permutation"]), images)

    def transform_segmentation_masks(self, masks: tf.Tensor, transformation: dict[str, Any]) -> tf.Tensor:
        return self.transform_images(masks, transformation)

    def transform_bounding_boxes(
        self, boxes: dict[str, tf.Tensor], transformation: dict[str, Any], height: Any, width: Any
    ) -> dict[str, tf.Tensor]:
        raise NotImplementedError(
            f"{self._who()} cannot transform bounding boxes (pasted rectangles cut boxes "
            f"apart; Keras 3 does not support them either)"
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["factor"] = list(self.factor)
        return config


@registry.builtin("layers")
class MaxNumBoundingBoxes(BaseImageAugmentation):
    """Ensure the maximum number of bounding boxes.

    Gives every image exactly `max_number` bounding boxes: extra boxes are
    dropped, missing ones are padded, with `fill_value` as the padding
    boxes' coordinates and labels. It works on the dict inputs of the
    augmentation layers; images and the other entries pass through unchanged
    (same dtype), in training and inference alike.

    Args:
        max_number: Positive integer, the number of boxes per image.
        fill_value: Integer, the value of the padding boxes and labels.
            Defaults to `-1`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`,
            and `data_format` and `bounding_box_format`.

    Call arguments:
        inputs: A dict with the key `"images"` and optionally `"labels"`,
            `"segmentation_masks"` and `"bounding_boxes"` (a dict with
            `"boxes"` of shape `(batch, num_boxes, 4)` and `"labels"` of
            shape `(batch, num_boxes)`), or images alone.
        training: Ignored: the layer acts in training and at inference alike.
            Defaults to `True`.

    Input shape:
        Images of rank 3 or 4; boxes `(batch_size, num_boxes, 4)`.

    Output shape:
        Same as the input, with boxes `(batch_size, max_number, 4)` and box
        labels `(batch_size, max_number)`.

    Raises:
        ValueError: If `max_number` is not a positive integer or `fill_value`
            is not an integer; on call, if the images are not 3D or 4D or a
            dict input has unknown keys or no `"images"`.

    Example:
        >>> layer = tfkit.layers.MaxNumBoundingBoxes(max_number=3)
        >>> boxes = {"boxes": np.array([[[0.0, 0.0, 2.0, 2.0]]], dtype="float32"),
        ...          "labels": np.array([[1]], dtype="int32")}
        >>> out = layer({"images": np.zeros((1, 4, 4, 3)), "bounding_boxes": boxes})
        >>> out["bounding_boxes"]["boxes"].shape
        TensorShape([1, 3, 4])
        >>> out["bounding_boxes"]["labels"].numpy()
        array([[ 1, -1, -1]], dtype=int32)
    """

    applies_at_inference = True

    def __init__(self, max_number: int, fill_value: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        max_number = positive_int(max_number, "max_number", self._who())
        if isinstance(fill_value, bool) or not isinstance(fill_value, numbers.Integral):
            raise ValueError(f"{self._who()} expected fill_value to be an integer, got {fill_value!r}")
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)

    def prepare_images(self, images: tf.Tensor) -> tf.Tensor:
        return images

    def transform_images(self, images: tf.Tensor, transformation: Any) -> tf.Tensor:
        return images

    def transform_bounding_boxes(
        self, boxes: dict[str, tf.Tensor], transformation: Any, height: Any, width: Any
    ) -> dict[str, tf.Tensor]:
        pad = tf.maximum(self.max_number - tf.shape(boxes["boxes"])[1], 0)
        kept = boxes["boxes"][:, : self.max_number]
        fitted = tf.pad(kept, [[0, 0], [0, pad], [0, 0]], constant_values=float(self.fill_value))
        labels = boxes["labels"][:, : self.max_number]
        label_pad = [[0, 0], [0, pad]] + [[0, 0]] * (labels.shape.rank - 2)
        return {
            **boxes,
            "boxes": tf.ensure_shape(fitted, [None, self.max_number, 4]),
            "labels": tf.pad(labels, label_pad, constant_values=tf.cast(self.fill_value, labels.dtype)),
        }

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(max_number=self.max_number, fill_value=self.fill_value)
        return config
