"""``DeiTImageClassifierPreprocessor``: DeiT's image classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.deit.deit_backbone import DeiTBackbone
from tfkit.hub.models.deit.deit_image_converter import DeiTImageConverter
from tfkit.hub.models.image_classifier_preprocessor import ImageClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DeiTImageClassifierPreprocessor(ImageClassifierPreprocessor):
    """DeiT's preprocessor for image classification: `ImageClassifierPreprocessor` with a `DeiTImageConverter`.

    Args:
        image_converter: A `DeiTImageConverter`, or `None` (the default).
        **kwargs: `Preprocessor` keyword arguments, such as `name`.

    Example:
        >>> from tfkit.hub.models.deit.deit_image_converter import DeiTImageConverter
        >>> converter = DeiTImageConverter(image_size=(4, 4), scale=1 / 255)
        >>> import tfkit.hub as keras_hub
        >>> preprocessor = keras_hub.models.DeiTImageClassifierPreprocessor(converter)
        >>> preprocessor(np.zeros((8, 8, 3), "uint8")).shape
        TensorShape([4, 4, 3])
    """

    backbone_cls = DeiTBackbone
    image_converter_cls = DeiTImageConverter
