"""Image preprocessing layers that run inside the graph: ``Rescaling``, ``Resizing``, ``CenterCrop``,
plus the random augmentations (``RandomFlip``, ``RandomRotation``, ``RandomZoom``, ``RandomTranslation``,
``RandomContrast``, ``RandomCrop``) from the sibling modules.

    augment = tfkit.Sequential([tfkit.layers.RandomFlip("horizontal"), tfkit.layers.RandomRotation(0.1)])
    model = tfkit.Sequential([tfkit.Input((64, 64, 3)), tfkit.layers.Resizing(32, 32), tfkit.layers.Rescaling(1 / 255)])
    dataset = dataset.map(lambda x, y: (augment(x, training=True), y))    # works in tf.data too

Images are ``(height, width, channels)`` or batches ``(batch, height, width,
channels)``; ``data_format="channels_first"`` puts channels before height.
Only TensorFlow ops are used, so these layers trace into exported SavedModels.
"""

from __future__ import annotations

import numbers
from typing import Any

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config
from tfkit.layers.preprocessing import image_utils as iu
from tfkit.layers.preprocessing.image_affine import (  # noqa: F401
    RandomRotation,
    RandomTranslation,
    RandomZoom,
)
from tfkit.layers.preprocessing.image_random import (  # noqa: F401
    RandomContrast,
    RandomCrop,
    RandomFlip,
)

__all__ = ["Rescaling", "Resizing", "CenterCrop", "RandomFlip", "RandomRotation", "RandomZoom",
           "RandomTranslation", "RandomContrast", "RandomCrop"]


def _plain_numbers(value: Any, what: str, who: str) -> Any:
    """A number, or a (nested) list of numbers such as per-channel scales."""
    if isinstance(value, bool):
        raise ValueError(f"{who} expected {what} to be a number or a list of numbers, got {value!r}")
    if isinstance(value, numbers.Real):
        return value
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)) and value:
        return [_plain_numbers(v, what, who) for v in value]
    raise ValueError(f"{who} expected {what} to be a number or a list of numbers, got {value!r}")


@registry.builtin("layers")
class Rescaling(Layer):
    """``inputs * scale + offset`` in the layer's float dtype (integer images become floats).

    ``Rescaling(1 / 255)`` maps ``[0, 255]`` to ``[0, 1]``;
    ``Rescaling(1 / 127.5, offset=-1)`` maps it to ``[-1, 1]``. ``scale`` and
    ``offset`` may be per-channel lists (broadcast against the last axis).
    """

    def __init__(self, scale: Any, offset: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"Rescaling layer '{self.name}'"
        self.scale = _plain_numbers(scale, "scale", who)
        self.offset = _plain_numbers(offset, "offset", who)
        self.supports_masking = True

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        dtype = self.compute_dtype
        return tf.cast(inputs, dtype) * tf.cast(self.scale, dtype) + tf.cast(self.offset, dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(scale=self.scale, offset=self.offset)
        return config


@registry.builtin("layers")
class Resizing(Layer):
    """Resize images to ``(height, width)``.

    ``crop_to_aspect_ratio=True`` first takes the largest centered window with
    the target's aspect ratio (no distortion); ``pad_to_aspect_ratio=True``
    instead pads evenly with ``fill_value``. Integer images come back rounded
    in their own dtype, as in Keras.
    """

    def __init__(self, height: int, width: int, interpolation: str = "bilinear", crop_to_aspect_ratio: bool = False,
                 pad_to_aspect_ratio: bool = False, fill_mode: str = "constant", fill_value: float = 0.0,
                 antialias: bool = False, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"Resizing layer '{self.name}'"
        self.height = iu.positive_int(height, "height", who)
        self.width = iu.positive_int(width, "width", who)
        self.interpolation = iu.check_choice(interpolation, iu.RESIZE_INTERPOLATIONS, "interpolation", who)
        if fill_mode != "constant":
            raise ValueError(f"{who} supports only fill_mode='constant' (used by pad_to_aspect_ratio), "
                             f"got {fill_mode!r}")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(f"{who} accepts only one of crop_to_aspect_ratio and pad_to_aspect_ratio, got both True")
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)
        self.data_format = iu.check_data_format(data_format, who)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        iu.check_rank(inputs, f"Resizing layer '{self.name}'")
        images = iu.to_channels_last(inputs, self.data_format)
        if images.dtype.is_floating and images.dtype != tf.as_dtype(self.compute_dtype):
            images = tf.cast(images, self.compute_dtype)
        resized = iu.resize(images, self.height, self.width, self.interpolation, self.antialias,
                            self.crop_to_aspect_ratio, self.pad_to_aspect_ratio, self.fill_value)
        if not images.dtype.is_floating:
            resized = tf.saturate_cast(tf.round(resized), images.dtype)
        return iu.from_channels_last(resized, self.data_format)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return iu.output_image_shape(input_shape, self.height, self.width, self.data_format)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(height=self.height, width=self.width, interpolation=self.interpolation,
                      crop_to_aspect_ratio=self.crop_to_aspect_ratio, pad_to_aspect_ratio=self.pad_to_aspect_ratio,
                      fill_mode=self.fill_mode, fill_value=self.fill_value, antialias=self.antialias,
                      data_format=self.data_format)
        return config


@registry.builtin("layers")
class CenterCrop(Layer):
    """Crop the central ``(height, width)`` window of images.

    An image smaller than the target (in height or width) is instead cropped
    to the target's aspect ratio and resized to it, so the output always has
    the target size, as in Keras 3.
    """

    def __init__(self, height: int, width: int, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"CenterCrop layer '{self.name}'"
        self.height = iu.positive_int(height, "height", who)
        self.width = iu.positive_int(width, "width", who)
        self.data_format = iu.check_data_format(data_format, who)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        iu.check_rank(inputs, f"CenterCrop layer '{self.name}'")
        images = iu.to_float(iu.to_channels_last(inputs, self.data_format), self.compute_dtype)
        return iu.from_channels_last(iu.center_crop_or_resize(images, self.height, self.width), self.data_format)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return iu.output_image_shape(input_shape, self.height, self.width, self.data_format)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(height=self.height, width=self.width, data_format=self.data_format)
        return config
