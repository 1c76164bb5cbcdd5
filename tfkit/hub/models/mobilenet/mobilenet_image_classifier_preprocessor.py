"""``MobileNetImageClassifierPreprocessor``: MobileNet's image classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.image_classifier_preprocessor import ImageClassifierPreprocessor
from tfkit.hub.models.mobilenet.mobilenet_backbone import MobileNetBackbone
from tfkit.hub.models.mobilenet.mobilenet_image_converter import MobileNetImageConverter
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MobileNetImageClassifierPreprocessor(ImageClassifierPreprocessor):
    """MobileNet's preprocessor for image classification: `ImageClassifierPreprocessor` with a `MobileNetImageConverter`.

    Args:
        image_converter: A `MobileNetImageConverter`, or `None` (the default).
        **kwargs: `Preprocessor` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> converter = keras_hub.layers.MobileNetImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> preprocessor = keras_hub.models.MobileNetImageClassifierPreprocessor(converter)
        >>> preprocessor(np.zeros((8, 8, 3), "uint8")).shape
        TensorShape([4, 4, 3])
    """

    backbone_cls = MobileNetBackbone
    image_converter_cls = MobileNetImageConverter
