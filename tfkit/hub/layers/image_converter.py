"""``ImageConverter``: raw images to a vision model's inputs (resize, scale, offset), KerasHub's own.

    converter = ImageConverter(image_size=(224, 224), scale=1 / 255)
    converter(np.random.randint(0, 256, (2, 512, 512, 3)))     # (2, 224, 224, 3) float32 in [0, 1]
    converter = ImageConverter.from_preset("./vit_tiny")         # the preset's ViTImageConverter

The layer holds no weights and no assets: its config is all there is
(``image_converter.json`` in a preset). It resizes with ``tfkit.layers.Resizing``
(centre crop to the target aspect ratio by default), multiplies by ``scale`` in
the compute dtype and adds ``offset``; a scale or offset may be one number or
one per channel. TensorFlow ops only, so it runs in ``tf.data`` and in exported
SavedModels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base.data_format import standardize_data_format
from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
from tfkit.hub.presets import files, saver
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.hub.presets.refusals import refuses_bad_presets
from tfkit.layers import Resizing
from tfkit.saving import register_keras_serializable


def _image_size(value: Any, who: str) -> tuple[int, int] | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(v is None for v in value):
        return None
    if not (isinstance(value, (list, tuple)) and len(value) == 2):
        raise ValueError(f"{who} expected `image_size` to be a (height, width) pair or None, got {value!r}")
    return (int(value[0]), int(value[1]))


def _numbers(value: Any, name: str, who: str) -> Any:
    """``value`` as a float, a list or tuple of floats (one per channel), or None."""
    if value is None:
        return None
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, float)) for v in value):
        return type(value)(float(v) for v in value)  # a list stays a list in the config, as KerasHub keeps it
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise ValueError(
        f"{who} expected `{name}` to be a number, a list of numbers (one per channel) or None, got {value!r}"
    )


@register_keras_serializable(package="keras_hub")
class ImageConverter(PreprocessingLayer):
    """Preprocess raw images into model ready inputs.

    The conversion runs in three steps, each skipped when its argument is
    `None`: resize to `image_size`, multiply by `scale`, add `offset`. Inputs
    are one image `(height, width, channels)` or a batch of them (channels
    first with `data_format="channels_first"`); a list of images of different
    sizes gives a list of converted images. Use `from_preset` to get the
    converter a pretrained model was trained with, so that preprocessing code
    need not change with the checkpoint.

    Args:
        image_size: `(height, width)` of the output images, or `None` (the
            default) to leave their size unchanged. Images are resized in the
            layer's compute dtype, as KerasHub's converter resizes them in
            `tf.data` (KerasHub's eager calls round integer images back to
            integers after resizing, so its eager and `tf.data` outputs
            differ; tfkit's are the same).
        scale: A float (the whole image), a list of floats (one per
            channel), or `None` (the default) for no scaling. Scaled images
            are cast to the layer's compute dtype first.
        offset: A float, a list of floats (one per channel), or `None` (the
            default), added after `scale`.
        crop_to_aspect_ratio: If `True` (the default), the largest centred
            window of each image with the target aspect ratio is resized, so
            the aspect ratio is kept; if `False` images may be stretched.
        pad_to_aspect_ratio: If `True`, images are padded to the target
            aspect ratio instead of cropped. Defaults to `False`.
        interpolation: `"bilinear"` (the default), `"nearest"`, `"bicubic"`,
            `"lanczos3"` or `"lanczos5"`.
        antialias: Whether to use an antialiasing filter when downsampling.
            Defaults to `False`.
        bounding_box_format: The format of bounding boxes passed with the
            images (`{"images": ..., "bounding_boxes": ...}`). Defaults to
            `"yxyx"`. tfkit does not resize bounding boxes yet.
        data_format: `"channels_last"` or `"channels_first"`; `None` (the
            default) means `tfkit.config.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.
            KerasHub's older `height`/`width` and `mean`/`variance` arguments
            are read as `image_size`, `scale` and `offset`.

    Call arguments:
        inputs: An image, a batch of images, a list of images, or a dict with
            the images under `"images"`.

    Returns:
        The converted images (in the compute dtype when resized or scaled).

    Raises:
        ValueError: If both aspect ratio options are `True`, or an argument
            has the wrong form; on call, if bounding boxes would need resizing.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> converter = keras_hub.layers.ImageConverter(image_size=(4, 4), scale=1 / 255, offset=-0.5)
        >>> images = np.full((2, 8, 6, 3), 255, "uint8")
        >>> outputs = converter(images)
        >>> outputs.shape, outputs.dtype.name, float(outputs[0, 0, 0, 0])
        (TensorShape([2, 4, 4, 3]), 'float32', 0.5)
    """

    backbone_cls: Any = None

    def __init__(
        self,
        image_size: Any = None,
        scale: Any = None,
        offset: Any = None,
        crop_to_aspect_ratio: bool = True,
        pad_to_aspect_ratio: bool = False,
        interpolation: str = "bilinear",
        antialias: bool = False,
        bounding_box_format: str = "yxyx",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        if "height" in kwargs and "width" in kwargs:  # KerasHub's older argument names, still in some presets
            image_size = (kwargs.pop("height"), kwargs.pop("width"))
        if "mean" in kwargs and "variance" in kwargs:
            std = [math.sqrt(v) for v in kwargs.pop("variance")]
            scale = [scale / s for s in std]
            offset = [-m / s for m, s in zip(kwargs.pop("mean"), std)]
        super().__init__(**kwargs)
        who = f"{type(self).__name__} layer '{self.name}'"
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(f"{who} accepts only one of crop_to_aspect_ratio and pad_to_aspect_ratio, got both True")
        self.scale = _numbers(scale, "scale", who)
        self.offset = _numbers(offset, "offset", who)
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.interpolation = interpolation
        self.antialias = bool(antialias)
        self.bounding_box_format = bounding_box_format
        self.data_format = standardize_data_format(data_format, who)
        self.resizing = None
        self.image_size = image_size  # builds the Resizing layer, checking interpolation

    @property
    def image_size(self) -> tuple[int, int] | None:
        """Settable `(height, width)` of the output images, or `None` (no resizing)."""
        if self.resizing is None:
            return None
        return (self.resizing.height, self.resizing.width)

    @image_size.setter
    def image_size(self, value: Any) -> None:
        size = _image_size(value, f"{type(self).__name__} layer '{self.name}'")
        if size is None:
            self.resizing = None
            return
        self.resizing = Resizing(
            height=size[0],
            width=size[1],
            interpolation=self.interpolation,
            crop_to_aspect_ratio=self.crop_to_aspect_ratio,
            pad_to_aspect_ratio=self.pad_to_aspect_ratio,
            antialias=self.antialias,
            data_format=self.data_format,
            dtype=self.dtype_policy,
            name="resizing",
        )

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(inputs, (list, tuple)) and not _stacks(inputs):  # images of different sizes: one by one
            converted = [self(image, *args, **kwargs) for image in inputs]
            return converted if isinstance(inputs, list) else tuple(converted)
        return super().__call__(inputs, *args, **kwargs)

    def _channel_values(self, value: Any, images: tf.Tensor) -> tf.Tensor:
        """`value` (a number or one per channel) shaped to broadcast against `images`."""
        batched = images.shape.rank == 4
        if self.data_format == "channels_first":
            axes = (0, 2, 3) if batched else (1, 2)
        else:
            axes = (0, 1, 2) if batched else (0, 1)
        return tf.constant(np.expand_dims(np.asarray(value, "float64"), axes))

    def call(self, inputs: Any) -> Any:
        images = inputs["images"] if isinstance(inputs, dict) else inputs
        images = tf.convert_to_tensor(images)
        if self.resizing is not None:
            # Resized in the compute dtype, as KerasHub's converter resizes in tf.data (where its fit, evaluate and
            # predict run); its eager calls round integer images back to integers after resizing instead.
            images = tf.cast(images, self.compute_dtype)
            if isinstance(inputs, dict) and "bounding_boxes" in inputs:
                raise ValueError(
                    f"{type(self).__name__} layer '{self.name}': resizing bounding boxes is not supported by "
                    f"tfkit.hub yet; resize the boxes yourself or pass the images alone"
                )
            images = self.resizing(images)
        if self.scale is not None:
            images = tf.cast(images, self.compute_dtype)
            images = images * tf.cast(self._channel_values(self.scale, images), self.compute_dtype)
        if self.offset is not None:
            images = images + tf.cast(self._channel_values(self.offset, images), images.dtype)
        if isinstance(inputs, dict):
            return {**inputs, "images": images}
        return images

    def get_config(self) -> dict[str, Any]:
        """KerasHub's keys, plus `data_format` (KerasHub's config drops it: a channels-first converter reloads
        as channels-last there)."""
        config = super().get_config()
        config.update(
            image_size=self.image_size,
            scale=list(self.scale) if isinstance(self.scale, list) else self.scale,  # not TensorFlow's ListWrapper
            offset=list(self.offset) if isinstance(self.offset, list) else self.offset,
            interpolation=self.interpolation,
            antialias=self.antialias,
            crop_to_aspect_ratio=self.crop_to_aspect_ratio,
            pad_to_aspect_ratio=self.pad_to_aspect_ratio,
            bounding_box_format=self.bounding_box_format,
            data_format=self.data_format,
        )
        return config

    @classmethod
    @refuses_bad_presets
    def from_preset(cls, preset: str, **kwargs: Any) -> "ImageConverter | None":
        """Instantiates the image converter of a preset (`image_converter.json`).

        Called on `ImageConverter`, it builds the preset family's converter
        (`ViTImageConverter` for a ViT preset). A Hugging Face checkpoint's
        converter is made from its `preprocessor_config.json` where the
        family's converter reads one; otherwise there is none (`None`), as
        in KerasHub.

        Args:
            preset: A preset folder, or an `hf://` / `kaggle://` handle.
            **kwargs: Constructor arguments that replace the preset's, such as
                `image_size` or `crop_to_aspect_ratio`.

        Returns:
            The image converter, or `None` for a checkpoint without one.

        Raises:
            ValueError: If the preset's family has no image converter, or the
                file describes another class.
            FileNotFoundError: If the preset has no `image_converter.json`.
        """
        source = get_preset_loader(preset)
        if source.has_file(files.CONFIG_FILE):
            cls = source.matching_class(cls)
        if source.is_transformers_checkpoint:  # from its preprocessor_config.json, held as a preset's config
            config = source.image_converter_config()
            return None if config is None else cls(**{**config, **kwargs})
        return source.load_serialized(cls, files.IMAGE_CONVERTER_CONFIG_FILE, **kwargs)

    def save_to_preset(self, preset_dir: str) -> None:
        """Saves the converter's config as `image_converter.json` of a preset folder (it has no assets).

        Args:
            preset_dir: The folder to write (created if missing).
        """
        saver.write_serialized(self, preset_dir, files.IMAGE_CONVERTER_CONFIG_FILE)


def _stacks(images: Any) -> bool:
    """Whether a list of images makes one array (all of one shape)."""
    try:
        np.array(images)
    except ValueError:
        return False
    return True
