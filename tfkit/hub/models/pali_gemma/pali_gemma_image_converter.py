"""``PaliGemmaImageConverter``: the ``ImageConverter`` of PaliGemma presets (KerasHub's ``keras_hub.layers`` name)."""

from __future__ import annotations

from tfkit.hub.layers.image_converter import ImageConverter
from tfkit.hub.models.pali_gemma.pali_gemma_backbone import PaliGemmaBackbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class PaliGemmaImageConverter(ImageConverter):
    """The image converter of PaliGemma models: `ImageConverter`, found by `from_preset` for PaliGemma presets.

    PaliGemma's presets resize to 224, 448 or 896 pixels a side and map pixel
    values to `[-1, 1]` (`scale=1 / 127.5`, `offset=-1`).

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
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_image_converter import PaliGemmaImageConverter
        >>> converter = PaliGemmaImageConverter(image_size=(4, 4), scale=1 / 127.5, offset=-1.0)
        >>> converter(np.zeros((1, 8, 8, 3))).numpy()[0, 0, 0]
        array([-1., -1., -1.], dtype=float32)
    """

    backbone_cls = PaliGemmaBackbone
