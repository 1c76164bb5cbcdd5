"""``EfficientNetImageClassifier``: an EfficientNet backbone with `ImageClassifier`'s pooling and dense head."""

from __future__ import annotations

from tfkit.hub.models.efficientnet.efficientnet_backbone import EfficientNetBackbone
from tfkit.hub.models.efficientnet.efficientnet_image_classifier_preprocessor import (
    EfficientNetImageClassifierPreprocessor,
)
from tfkit.hub.models.image_classifier import ImageClassifier
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class EfficientNetImageClassifier(ImageClassifier):
    """EfficientNet image classification task: `ImageClassifier` (global pooling, dropout, dense) on its backbone.

    Args:
        backbone: An `EfficientNetBackbone`.
        num_classes: The number of classes to predict.
        preprocessor: An `EfficientNetImageClassifierPreprocessor`, or `None`
            (the default) to take preprocessed images.
        pooling: `"avg"` (the default) or `"max"`.
        activation: The activation of the output layer: `None` (the default)
            for logits, or a name such as `"softmax"`.
        dropout: The dropout rate before the output layer. Defaults to `0.0`.
        head_dtype: The dtype policy of the head's layers. Defaults to `None`:
            the backbone's.
        **kwargs: `Task` keyword arguments, such as `name` or `compile`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.EfficientNetBackbone(stackwise_width_coefficients=[0.25],
        ...     stackwise_depth_coefficients=[1.0], stackwise_kernel_sizes=[3], stackwise_num_repeats=[1],
        ...     stackwise_input_filters=[32], stackwise_output_filters=[16], stackwise_expansion_ratios=[1],
        ...     stackwise_squeeze_and_excite_ratios=[0.25], stackwise_strides=[1], stackwise_block_types=["v1"],
        ...     num_features=64, input_shape=(16, 16, 3))
        >>> classifier = keras_hub.models.EfficientNetImageClassifier(backbone, num_classes=3)
        >>> classifier.predict(np.zeros((2, 16, 16, 3)), verbose=0).shape
        (2, 3)
    """

    backbone_cls = EfficientNetBackbone
    preprocessor_cls = EfficientNetImageClassifierPreprocessor
