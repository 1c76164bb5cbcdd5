"""``DeiTImageConverter``: the ``ImageConverter`` of DeiT presets (KerasHub's ``keras_hub.layers.DeiTImageConverter``)."""

from __future__ import annotations

from tfkit.hub.layers.image_converter import ImageConverter
from tfkit.hub.models.deit.deit_backbone import DeiTBackbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DeiTImageConverter(ImageConverter):
    """The image converter of DeiT models: `ImageConverter`, found by `from_preset` for DeiT presets.

    Args:
        image_size: `(height, width)` of the output images, or `None`.
        scale: A float, one float per channel, or `None`.
        offset: A float, one float per channel, or `None`.
        crop_to_aspect_ratio: Whether to crop to the target aspect ratio
            before resizing. Defaults to `True`.
        pad_to_aspect_ratio: Whether to pad to it instead. Defaults to `False`.
        interpolation: The resizing method. Defaults to `"bilinear"`.
        antialias: Whether to antialias when downsampling. Defaults to `False`.
        bounding_box_format: The format of bounding boxes. Defaults to `"yxyx"`.
        data_format: `"channels_last"`, `"channels_first"` or `None`.
        **kwargs: Base layer keyword arguments, such as `name`.

    Example:
        >>> from tfkit.hub.models.deit.deit_image_converter import DeiTImageConverter
        >>> converter = DeiTImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> converter(np.full((1, 8, 8, 3), 255, "uint8")).shape
        TensorShape([1, 4, 4, 3])
    """

    backbone_cls = DeiTBackbone
