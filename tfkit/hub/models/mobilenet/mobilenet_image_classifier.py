"""``MobileNetImageClassifier``: MobileNet with its own head (pooling, a 1x1 hard-swish convolution, dense)."""

from __future__ import annotations

from typing import Any

from tfkit import layers
from tfkit.hub.models.image_classifier import ImageClassifier
from tfkit.hub.models.mobilenet.mobilenet_backbone import MobileNetBackbone
from tfkit.hub.models.mobilenet.mobilenet_image_classifier_preprocessor import MobileNetImageClassifierPreprocessor
from tfkit.hub.models.task import Task
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MobileNetImageClassifier(ImageClassifier):
    """MobileNet image classification task.

    Unlike `ImageClassifier`'s head, MobileNet's averages the feature map
    (keeping the spatial axes, `"pooler"`), applies a 1x1 convolution of
    `num_features` channels with hard swish (`"classifier_conv"`), flattens,
    and ends in a dense layer of `num_classes` logits (`"predictions"`). With
    a `MobileNetImageClassifierPreprocessor`, `fit` and `predict` take raw
    images.

    Args:
        backbone: A `MobileNetBackbone`.
        num_classes: The number of classes to predict.
        num_features: The channels of the head's convolution. Defaults to
            `1024`.
        preprocessor: A `MobileNetImageClassifierPreprocessor`, or `None` (the
            default) to take preprocessed images.
        head_dtype: The dtype policy of the head's layers. Defaults to `None`:
            the backbone's.
        **kwargs: `Task` keyword arguments, such as `name` or `compile`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.MobileNetBackbone(stackwise_expansion=[[16]], stackwise_num_blocks=[1],
        ...     stackwise_num_filters=[[8]], stackwise_kernel_size=[[3]], stackwise_num_strides=[[2]],
        ...     stackwise_se_ratio=[[0.25]], stackwise_activation=[["relu"]], stackwise_padding=[[1]],
        ...     output_num_filters=None, depthwise_filters=8, depthwise_stride=1, depthwise_residual=False,
        ...     last_layer_filter=16, input_num_filters=8)
        >>> classifier = keras_hub.models.MobileNetImageClassifier(backbone, num_classes=3, num_features=16)
        >>> classifier.predict(np.zeros((2, 16, 16, 3)), verbose=0).shape
        (2, 3)
    """

    backbone_cls = MobileNetBackbone
    preprocessor_cls = MobileNetImageClassifierPreprocessor

    def __init__(
        self,
        backbone: MobileNetBackbone,
        num_classes: int,
        num_features: int = 1024,
        preprocessor: Any = None,
        head_dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        head_dtype = head_dtype or backbone.dtype_policy
        data_format = getattr(backbone, "data_format", None)
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.pooler = layers.GlobalAveragePooling2D(data_format, keepdims=True, dtype=head_dtype, name="pooler")
        self.output_conv = layers.Conv2D(
            filters=num_features, kernel_size=(1, 1), activation="hard_silu", name="classifier_conv", dtype=head_dtype
        )
        self.flatten = layers.Flatten(dtype=head_dtype)
        self.output_dense = layers.Dense(num_classes, dtype=head_dtype, name="predictions")
        inputs = backbone.input
        x = self.flatten(self.output_conv(self.pooler(backbone(inputs))))
        outputs = self.output_dense(x)
        Task.__init__(self, inputs=inputs, outputs=outputs, **kwargs)  # not ImageClassifier's head
        self.num_classes = num_classes
        self.num_features = num_features

    def get_config(self) -> dict[str, Any]:
        """`Task`'s keys (backbone, preprocessor, name) and `num_classes`, `num_features`."""
        config = Task.get_config(self)
        config.update(num_classes=self.num_classes, num_features=self.num_features)
        return config
