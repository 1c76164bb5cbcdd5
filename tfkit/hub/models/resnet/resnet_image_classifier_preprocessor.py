"""``ResNetImageClassifierPreprocessor``: ResNet's image classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.image_classifier_preprocessor import ImageClassifierPreprocessor
from tfkit.hub.models.resnet.resnet_backbone import ResNetBackbone
from tfkit.hub.models.resnet.resnet_image_converter import ResNetImageConverter
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class ResNetImageClassifierPreprocessor(ImageClassifierPreprocessor):
    """ResNet's preprocessor for image classification: `ImageClassifierPreprocessor` with a `ResNetImageConverter`.

    Args:
        image_converter: A `ResNetImageConverter`, or `None` (the default).
        **kwargs: `Preprocessor` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> converter = keras_hub.layers.ResNetImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> preprocessor = keras_hub.models.ResNetImageClassifierPreprocessor(converter)
        >>> preprocessor(np.zeros((8, 8, 3), "uint8")).shape
        TensorShape([4, 4, 3])
    """

    backbone_cls = ResNetBackbone
    image_converter_cls = ResNetImageConverter
