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
from typing import Any, Callable

import tensorflow as tf

from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.base.data_format import from_channels_last, standardize_data_format, to_channels_last
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config
from tfkit.layers.preprocessing import image_utils as iu
from tfkit.layers.preprocessing.image_affine import RandomRotation, RandomTranslation, RandomZoom  # noqa: F401
from tfkit.layers.preprocessing.image_random import RandomContrast, RandomCrop, RandomFlip  # noqa: F401

__all__ = [
    "Rescaling",
    "Resizing",
    "CenterCrop",
    "RandomFlip",
    "RandomRotation",
    "RandomZoom",
    "RandomTranslation",
    "RandomContrast",
    "RandomCrop",
]


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
    """A preprocessing layer which rescales input values to a new range.

    This layer rescales every value of an input (often an image) by
    multiplying by `scale` and adding `offset`, in the layer's float compute
    dtype (integer images become floats). For instance, to rescale an input
    in the `[0, 255]` range to be in the `[0, 1]` range, pass
    `scale=1. / 255`; to rescale it to the `[-1, 1]` range, pass
    `scale=1. / 127.5, offset=-1`.

    Args:
        scale: Float, or a (nested) list of floats, the scale to apply to the
            inputs. A list is broadcast against the inputs (e.g. one value
            per channel of the last axis).
        offset: Float, or a (nested) list of floats, the offset to apply to
            the inputs, broadcast like `scale`. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of numbers (any shape). A mask passes through.

    Input shape:
        Arbitrary.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `scale` or `offset` is not a number or a non-empty list
            of numbers.

    Example:
        >>> layer = tfkit.layers.Rescaling(scale=1 / 127.5, offset=-1)
        >>> layer(np.array([0, 127.5, 255])).numpy()
        array([-1.,  0.,  1.], dtype=float32)
        >>> tfkit.layers.Rescaling(scale=[1.0, 0.5])(np.array([[4.0, 4.0]])).numpy()
        array([[4., 2.]], dtype=float32)
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


def per_key(inputs: Any, images: Callable[[Any], Any], masks: Callable[[Any], Any], who: str) -> Any:
    """``images(inputs)``, or for Keras's dict of data (``"images"``, ``"labels"``, ``"segmentation_masks"``) the
    same dict with its images and masks transformed and its labels as they came."""
    if not isinstance(inputs, dict):
        return images(inputs)
    unknown = sorted(set(inputs) - {"images", "labels", "segmentation_masks"})
    if "images" not in inputs or unknown:
        why = "bounding boxes are not transformed by this layer in tfkit" if "bounding_boxes" in unknown else ""
        raise ValueError(
            f"{who} takes an image tensor or a dict of 'images' and optionally 'labels' and 'segmentation_masks'; "
            f"got keys {sorted(inputs)}" + (f" ({why})" if why else "")
        )
    out = dict(inputs)
    out["images"] = images(inputs["images"])
    if "segmentation_masks" in inputs:
        out["segmentation_masks"] = masks(inputs["segmentation_masks"])
    return out


@registry.builtin("layers")
class Resizing(Layer):
    """A preprocessing layer which resizes images.

    This layer resizes an image input to a target height and width. The
    input should be a 4D (batched) or 3D (unbatched) tensor in
    `"channels_last"` format (or `"channels_first"` with `data_format`).
    Float images are resized in the layer's compute dtype; integer images
    come back rounded in their own dtype, as in Keras.

    Args:
        height: Positive integer, the height of the output shape.
        width: Positive integer, the width of the output shape.
        interpolation: String, the interpolation method. Supports
            `"bilinear"`, `"nearest"`, `"bicubic"`, `"area"`, `"lanczos3"` and
            `"lanczos5"`. Defaults to `"bilinear"`.
        crop_to_aspect_ratio: If `True`, resize the images without aspect
            ratio distortion: the largest possible centered window of the
            image, with the target aspect ratio, is cropped first and then
            resized. Defaults to `False`.
        pad_to_aspect_ratio: If `True`, pad the images (evenly on both sides,
            with `fill_value`) to the target aspect ratio before resizing,
            so there is no distortion. Only one of `crop_to_aspect_ratio` and
            `pad_to_aspect_ratio` can be `True`. Defaults to `False`.
        fill_mode: How the padding of `pad_to_aspect_ratio` is filled; only
            `"constant"` is supported. Defaults to `"constant"`.
        fill_value: Float, the padding value used with
            `pad_to_aspect_ratio`. Defaults to `0.0`.
        antialias: Whether to use an antialiasing filter when downsampling an
            image. Defaults to `False`.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D or 4D image tensor.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format (the
        target `height` and `width`).

    Raises:
        ValueError: If `height` or `width` is not a positive integer,
            `interpolation`, `fill_mode` or `data_format` is not a supported
            value, or both aspect ratio options are `True`; on call, if the
            input is not 3D or 4D.

    Example:
        >>> layer = tfkit.layers.Resizing(2, 3)
        >>> layer(np.ones((1, 4, 6, 3))).shape
        TensorShape([1, 2, 3, 3])
        >>> x = np.arange(16, dtype="float32").reshape((4, 4, 1))
        >>> tfkit.layers.Resizing(2, 2, interpolation="nearest")(x)[:, :, 0].numpy()
        array([[ 5.,  7.],
               [13., 15.]], dtype=float32)
    """

    def __init__(
        self,
        height: int,
        width: int,
        interpolation: str = "bilinear",
        crop_to_aspect_ratio: bool = False,
        pad_to_aspect_ratio: bool = False,
        fill_mode: str = "constant",
        fill_value: float = 0.0,
        antialias: bool = False,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"Resizing layer '{self.name}'"
        self.height = positive_int(height, "height", who)
        self.width = positive_int(width, "width", who)
        self.interpolation = iu.check_choice(interpolation, iu.RESIZE_INTERPOLATIONS, "interpolation", who)
        if fill_mode != "constant":
            raise ValueError(
                f"{who} supports only fill_mode='constant' (used by pad_to_aspect_ratio), got {fill_mode!r}"
            )
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(f"{who} accepts only one of crop_to_aspect_ratio and pad_to_aspect_ratio, got both True")
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)
        self.data_format = standardize_data_format(data_format, who)

    def call(self, inputs: Any) -> Any:
        return per_key(inputs, self._resized, lambda masks: self._resized(masks, "nearest"), self._who)

    @property
    def _who(self) -> str:
        return f"Resizing layer '{self.name}'"

    def _resized(self, inputs: tf.Tensor, interpolation: str | None = None) -> tf.Tensor:
        inputs = tf.convert_to_tensor(inputs)
        iu.check_rank(inputs, self._who)
        batched = inputs.shape.rank == 4
        images = to_channels_last(inputs, self.data_format, batched)
        if images.dtype.is_floating and images.dtype != tf.as_dtype(self.compute_dtype):
            images = tf.cast(images, self.compute_dtype)
        resized = iu.resize(
            images,
            self.height,
            self.width,
            interpolation or self.interpolation,
            self.antialias,
            self.crop_to_aspect_ratio,
            self.pad_to_aspect_ratio,
            self.fill_value,
        )
        if not images.dtype.is_floating:
            resized = tf.saturate_cast(tf.round(resized), images.dtype)
        return from_channels_last(resized, self.data_format, batched)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return iu.output_image_shape(input_shape, self.height, self.width, self.data_format)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            height=self.height,
            width=self.width,
            interpolation=self.interpolation,
            crop_to_aspect_ratio=self.crop_to_aspect_ratio,
            pad_to_aspect_ratio=self.pad_to_aspect_ratio,
            fill_mode=self.fill_mode,
            fill_value=self.fill_value,
            antialias=self.antialias,
            data_format=self.data_format,
        )
        return config


@registry.builtin("layers")
class CenterCrop(Layer):
    """A preprocessing layer which crops images.

    This layer crops the central portion of the images to a target size. If
    an image is smaller than the target size (in height or width), it is
    instead cropped to the target's aspect ratio and resized to the target
    size, so the output always has the target size, as in Keras 3. The output
    is in the layer's float compute dtype.

    Args:
        height: Positive integer, the height of the output shape.
        width: Positive integer, the width of the output shape.
        data_format: `"channels_last"` (images `(..., height, width,
            channels)`) or `"channels_first"` (images `(..., channels, height,
            width)`). Defaults to `None`, which means
            `tfkit.backend.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A 3D or 4D image tensor.

    Input shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format.

    Output shape:
        3D (unbatched) or 4D (batched) tensor with shape
        `(..., height, width, channels)`, in `"channels_last"` format, or
        `(..., channels, height, width)`, in `"channels_first"` format (the
        target `height` and `width`).

    Raises:
        ValueError: If `height` or `width` is not a positive integer or
            `data_format` is not one of the two formats; on call, if the input
            is not 3D or 4D.

    Example:
        >>> x = np.arange(16, dtype="float32").reshape((1, 4, 4, 1))
        >>> y = tfkit.layers.CenterCrop(2, 2)(x)
        >>> y[0, :, :, 0].numpy()
        array([[ 5.,  6.],
               [ 9., 10.]], dtype=float32)
    """

    def __init__(self, height: int, width: int, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        who = f"CenterCrop layer '{self.name}'"
        self.height = positive_int(height, "height", who)
        self.width = positive_int(width, "width", who)
        self.data_format = standardize_data_format(data_format, who)

    def call(self, inputs: Any) -> Any:
        return per_key(inputs, self._cropped, self._cropped, f"CenterCrop layer '{self.name}'")

    def _cropped(self, inputs: tf.Tensor) -> tf.Tensor:
        inputs = tf.convert_to_tensor(inputs)
        iu.check_rank(inputs, f"CenterCrop layer '{self.name}'")
        batched = inputs.shape.rank == 4
        images = iu.to_float(to_channels_last(inputs, self.data_format, batched), self.compute_dtype)
        return from_channels_last(iu.center_crop_or_resize(images, self.height, self.width), self.data_format, batched)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return iu.output_image_shape(input_shape, self.height, self.width, self.data_format)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(height=self.height, width=self.width, data_format=self.data_format)
        return config
