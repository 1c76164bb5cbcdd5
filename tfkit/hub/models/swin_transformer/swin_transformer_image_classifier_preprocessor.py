"""``SwinTransformerImageClassifierPreprocessor``: Swin Transformer's image classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.image_classifier_preprocessor import ImageClassifierPreprocessor
from tfkit.hub.models.swin_transformer.swin_transformer_backbone import SwinTransformerBackbone
from tfkit.hub.models.swin_transformer.swin_transformer_image_converter import SwinTransformerImageConverter
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SwinTransformerImageClassifierPreprocessor(ImageClassifierPreprocessor):
    """Swin Transformer's preprocessor for image classification: `ImageClassifierPreprocessor` with its converter.

    Args:
        image_converter: A `SwinTransformerImageConverter`, or `None` (the
            default).
        **kwargs: `Preprocessor` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_image_converter import (
        ...     SwinTransformerImageConverter)
        >>> converter = SwinTransformerImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> preprocessor = keras_hub.models.SwinTransformerImageClassifierPreprocessor(converter)
        >>> preprocessor(np.zeros((8, 8, 3), "uint8")).shape
        TensorShape([4, 4, 3])
    """

    backbone_cls = SwinTransformerBackbone
    image_converter_cls = SwinTransformerImageConverter
