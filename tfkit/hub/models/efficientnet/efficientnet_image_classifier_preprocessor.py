"""``EfficientNetImageClassifierPreprocessor``: EfficientNet's image classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.efficientnet.efficientnet_backbone import EfficientNetBackbone
from tfkit.hub.models.efficientnet.efficientnet_image_converter import EfficientNetImageConverter
from tfkit.hub.models.image_classifier_preprocessor import ImageClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class EfficientNetImageClassifierPreprocessor(ImageClassifierPreprocessor):
    """EfficientNet's preprocessor for image classification: `ImageClassifierPreprocessor` with its converter.

    Args:
        image_converter: An `EfficientNetImageConverter`, or `None` (the
            default).
        **kwargs: `Preprocessor` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.models.efficientnet.efficientnet_image_converter import EfficientNetImageConverter
        >>> converter = EfficientNetImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> preprocessor = keras_hub.models.EfficientNetImageClassifierPreprocessor(converter)
        >>> preprocessor(np.zeros((8, 8, 3), "uint8")).shape
        TensorShape([4, 4, 3])
    """

    backbone_cls = EfficientNetBackbone
    image_converter_cls = EfficientNetImageConverter
