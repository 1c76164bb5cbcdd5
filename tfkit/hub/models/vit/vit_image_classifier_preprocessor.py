"""``ViTImageClassifierPreprocessor``: ViT's image classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.image_classifier_preprocessor import ImageClassifierPreprocessor
from tfkit.hub.models.vit.vit_backbone import ViTBackbone
from tfkit.hub.models.vit.vit_image_converter import ViTImageConverter
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class ViTImageClassifierPreprocessor(ImageClassifierPreprocessor):
    """ViT's preprocessor for image classification: `ImageClassifierPreprocessor` with a `ViTImageConverter`.

    Args:
        image_converter: A `ViTImageConverter`, or `None` (the default).
        **kwargs: `Preprocessor` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> converter = keras_hub.layers.ViTImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> preprocessor = keras_hub.models.ViTImageClassifierPreprocessor(converter)
        >>> preprocessor(np.zeros((8, 8, 3), "uint8")).shape
        TensorShape([4, 4, 3])
    """

    backbone_cls = ViTBackbone
    image_converter_cls = ViTImageConverter
