"""``CLIPImageConverter``: the ``ImageConverter`` of CLIP presets (KerasHub's ``keras_hub.layers.CLIPImageConverter``)."""

from __future__ import annotations

from tfkit.hub.layers.image_converter import ImageConverter
from tfkit.hub.models.clip.clip_backbone import CLIPBackbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class CLIPImageConverter(ImageConverter):
    """The image converter of CLIP models: `ImageConverter`, found by `from_preset` for CLIP presets.

    CLIP's presets resize to 224 (or 336) pixels a side, bicubically, and
    normalize each channel with CLIP's mean and standard deviation (as
    `scale` and `offset`).

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
        >>> from tfkit.hub.models.clip.clip_image_converter import CLIPImageConverter
        >>> converter = CLIPImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> converter(np.full((1, 8, 8, 3), 255.0)).numpy()[0, 0, 0]
        array([1., 1., 1.], dtype=float32)
    """

    backbone_cls = CLIPBackbone
