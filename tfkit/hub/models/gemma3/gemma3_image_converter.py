"""``Gemma3ImageConverter``: the ``ImageConverter`` of Gemma 3's multimodal presets (KerasHub's
``keras_hub.layers.Gemma3ImageConverter``), always in float32."""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.image_converter import ImageConverter
from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Gemma3ImageConverter(ImageConverter):
    """The image converter of Gemma 3 models: `ImageConverter`, found by `from_preset` for Gemma 3 presets.

    Gemma 3's presets resize to 896 pixels a side and map pixel values to
    `[-1, 1]` (`scale=1 / 127.5`, `offset=-1`). Images are converted in
    float32 whatever `dtype` is given, as in KerasHub.

    Args:
        **kwargs: `ImageConverter` arguments (`image_size`, `scale`,
            `offset`, `crop_to_aspect_ratio`, `interpolation`, ...); a `dtype`
            is ignored.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_image_converter import Gemma3ImageConverter
        >>> converter = Gemma3ImageConverter(image_size=(4, 4), scale=1 / 127.5, offset=-1.0)
        >>> converter(np.full((1, 8, 8, 3), 255.0)).numpy()[0, 0, 0], converter.compute_dtype
        (array([1., 1., 1.], dtype=float32), 'float32')
    """

    backbone_cls = Gemma3Backbone

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("dtype", None)
        super().__init__(dtype="float32", **kwargs)
