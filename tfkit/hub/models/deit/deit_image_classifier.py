"""``DeiTImageClassifier``: DeiT with a classification head on its class token (or on all tokens' mean)."""

from __future__ import annotations

from typing import Any

from tfkit import layers, ops
from tfkit.hub.models.deit.deit_backbone import DeiTBackbone
from tfkit.hub.models.deit.deit_image_classifier_preprocessor import DeiTImageClassifierPreprocessor
from tfkit.hub.models.image_classifier import ImageClassifier
from tfkit.hub.models.task import Task
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DeiTImageClassifier(ImageClassifier):
    """DeiT image classification task.

    The head reads the class token (`pooling="token"`, the first of the
    backbone's outputs) or the mean of all tokens (`"gap"`) and applies a
    dense layer of `num_classes` units (`"predictions"`); the distillation
    token is not read. With a `DeiTImageClassifierPreprocessor`, `fit` and
    `predict` take raw images.

    Args:
        backbone: A `DeiTBackbone`.
        num_classes: The number of classes to predict.
        preprocessor: A `DeiTImageClassifierPreprocessor`, or `None` (the
            default) to take preprocessed images.
        pooling: `"token"` (the default: the class token) or `"gap"` (the
            mean over the tokens).
        activation: The activation of the output layer: `None` (the default)
            for logits, or a name such as `"softmax"`.
        dropout: The rate of an `"output_dropout"` layer that, as in
            KerasHub, is made but not applied. Defaults to `0.0`.
        head_dtype: The dtype policy of the head's layers. Defaults to `None`:
            the backbone's.
        **kwargs: `Task` keyword arguments, such as `name` or `compile`.

    Raises:
        ValueError: If `pooling` is not `"token"` or `"gap"` (KerasHub then
            builds a head over every token).

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.DeiTBackbone(image_shape=(8, 8, 3), patch_size=4, num_layers=1,
        ...     num_heads=2, hidden_dim=8, intermediate_dim=16)
        >>> classifier = keras_hub.models.DeiTImageClassifier(backbone, num_classes=3)
        >>> classifier.predict(np.zeros((2, 8, 8, 3)), verbose=0).shape
        (2, 3)
    """

    backbone_cls = DeiTBackbone
    preprocessor_cls = DeiTImageClassifierPreprocessor

    def __init__(
        self,
        backbone: DeiTBackbone,
        num_classes: int,
        preprocessor: Any = None,
        pooling: str = "token",
        activation: Any = None,
        dropout: float = 0.0,
        head_dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if pooling not in ("token", "gap"):
            raise ValueError(f"DeiTImageClassifier: expected `pooling` to be 'token' or 'gap', got {pooling!r}")
        head_dtype = head_dtype or backbone.dtype_policy
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.dropout = layers.Dropout(rate=dropout, dtype=head_dtype, name="output_dropout")
        self.output_dense = layers.Dense(num_classes, activation=activation, dtype=head_dtype, name="predictions")

        inputs = backbone.input
        x = backbone(inputs)
        x = x[:, 0] if pooling == "token" else ops.mean(x, axis=[1])
        outputs = self.output_dense(x)  # KerasHub's head skips its dropout layer
        self.activation = activation  # before Task's constructor compiles: the default loss reads it
        Task.__init__(self, inputs=inputs, outputs=outputs, **kwargs)  # not ImageClassifier's feature-map head
        self.num_classes = num_classes
        self.pooling = pooling
        self.dropout = dropout  # KerasHub's attribute holds the rate once the graph is built
