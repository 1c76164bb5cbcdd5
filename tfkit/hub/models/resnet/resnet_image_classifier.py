"""``ResNetImageClassifier``: a ResNet backbone with `ImageClassifier`'s pooling and dense head."""

from __future__ import annotations

from tfkit.hub.models.image_classifier import ImageClassifier
from tfkit.hub.models.resnet.resnet_backbone import ResNetBackbone
from tfkit.hub.models.resnet.resnet_image_classifier_preprocessor import ResNetImageClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class ResNetImageClassifier(ImageClassifier):
    """ResNet image classification task: `ImageClassifier` (global pooling, dropout, dense) on a `ResNetBackbone`.

    Args:
        backbone: A `ResNetBackbone`.
        num_classes: The number of classes to predict.
        preprocessor: A `ResNetImageClassifierPreprocessor`, or `None` (the
            default) to take preprocessed images.
        pooling: `"avg"` (the default) or `"max"`.
        activation: The activation of the output layer: `None` (the default)
            for logits, or a name such as `"softmax"`.
        dropout: The dropout rate before the output layer. Defaults to `0.0`.
        head_dtype: The dtype policy of the head's layers. Defaults to `None`:
            the backbone's.
        **kwargs: `Task` keyword arguments, such as `name` or `compile`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.ResNetBackbone(input_conv_filters=[8], input_conv_kernel_sizes=[3],
        ...     stackwise_num_filters=[64], stackwise_num_blocks=[1], stackwise_num_strides=[1],
        ...     block_type="basic_block_vd", image_shape=(16, 16, 3))
        >>> classifier = keras_hub.models.ResNetImageClassifier(backbone, num_classes=3)
        >>> classifier.predict(np.zeros((2, 16, 16, 3)), verbose=0).shape
        (2, 3)
    """

    backbone_cls = ResNetBackbone
    preprocessor_cls = ResNetImageClassifierPreprocessor
