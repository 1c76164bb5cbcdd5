"""``SwinTransformerImageClassifier``: Swin Transformer with a head on the mean of its last stage's tokens."""

from __future__ import annotations

from typing import Any

from tfkit import layers, ops
from tfkit.hub.models.image_classifier import ImageClassifier
from tfkit.hub.models.swin_transformer.swin_transformer_backbone import SwinTransformerBackbone
from tfkit.hub.models.swin_transformer.swin_transformer_image_classifier_preprocessor import (
    SwinTransformerImageClassifierPreprocessor,
)
from tfkit.hub.models.task import Task
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SwinTransformerImageClassifier(ImageClassifier):
    """Swin Transformer image classification task.

    Unlike `ImageClassifier`'s pooling of a feature map, the head averages the
    backbone's tokens, applies dropout (`"output_dropout"`) and a dense layer
    of `num_classes` units (`"predictions"`). With a
    `SwinTransformerImageClassifierPreprocessor`, `fit` and `predict` take raw
    images.

    Args:
        backbone: A `SwinTransformerBackbone`.
        num_classes: The number of classes to predict.
        preprocessor: A `SwinTransformerImageClassifierPreprocessor`, or `None`
            (the default) to take preprocessed images.
        activation: The activation of the output layer: `None` (the default)
            for logits, or a name such as `"softmax"`.
        dropout: The dropout rate before the output layer. Defaults to `0.0`.
        head_dtype: The dtype policy of the head's layers. Defaults to `None`:
            the backbone's.
        **kwargs: `Task` keyword arguments, such as `name` or `compile`;
            `pooling` (in the config, always `"gap"`) is accepted and ignored.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.SwinTransformerBackbone(image_shape=(16, 16, 3), embed_dim=8,
        ...     depths=(2,), num_heads=(2,), window_size=4, patch_size=2)
        >>> classifier = keras_hub.models.SwinTransformerImageClassifier(backbone, num_classes=3)
        >>> classifier.predict(np.zeros((2, 16, 16, 3)), verbose=0).shape
        (2, 3)
    """

    backbone_cls = SwinTransformerBackbone
    preprocessor_cls = SwinTransformerImageClassifierPreprocessor

    def __init__(
        self,
        backbone: SwinTransformerBackbone,
        num_classes: int,
        preprocessor: Any = None,
        activation: Any = None,
        dropout: float = 0.0,
        head_dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("pooling", None)  # KerasHub's config writes it; its constructor has no such argument
        head_dtype = head_dtype or backbone.dtype_policy
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.output_dropout = layers.Dropout(rate=dropout, dtype=head_dtype, name="output_dropout")
        self.output_dense = layers.Dense(num_classes, activation=activation, dtype=head_dtype, name="predictions")
        inputs = backbone.input
        x = ops.mean(backbone(inputs), axis=1)
        outputs = self.output_dense(self.output_dropout(x))
        self.activation = activation  # before Task's constructor compiles: the default loss reads it
        Task.__init__(self, inputs=inputs, outputs=outputs, **kwargs)  # not ImageClassifier's feature-map head
        self.num_classes = num_classes
        self.pooling = "gap"
        self.dropout = dropout
