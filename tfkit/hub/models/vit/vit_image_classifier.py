"""``ViTImageClassifier``: ViT with a classification head on its class token (or on all tokens' mean)."""

from __future__ import annotations

from typing import Any

from tfkit import layers, ops
from tfkit.hub.models.image_classifier import ImageClassifier
from tfkit.hub.models.task import Task
from tfkit.hub.models.vit.vit_backbone import ViTBackbone
from tfkit.hub.models.vit.vit_image_classifier_preprocessor import ViTImageClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class ViTImageClassifier(ImageClassifier):
    """ViT image classification task.

    Unlike `ImageClassifier`'s pooling of a feature map, the head reads the
    class token (`pooling="token"`, the first of the backbone's outputs) or
    the mean of all tokens (`"gap"`), optionally through a tanh dense layer
    (`intermediate_dim`, named `"pre_logits"`), then dropout and a dense
    layer of `num_classes` units (`"predictions"`). With a
    `ViTImageClassifierPreprocessor`, `fit` and `predict` take raw images.

    Args:
        backbone: A `ViTBackbone`.
        num_classes: The number of classes to predict.
        preprocessor: A `ViTImageClassifierPreprocessor`, or `None` (the
            default) to take preprocessed images.
        pooling: `"token"` (the default: the class token) or `"gap"` (the
            mean over the tokens).
        intermediate_dim: The size of a tanh dense layer before the output
            layer, or `None` (the default) for none.
        activation: The activation of the output layer: `None` (the default)
            for logits, or a name such as `"softmax"`.
        dropout: The dropout rate before the output layer. Defaults to `0.0`.
        head_dtype: The dtype policy of the head's layers. Defaults to `None`:
            the backbone's (the `"pre_logits"` layer too, which KerasHub leaves
            at the global policy).
        **kwargs: `Task` keyword arguments, such as `name` or `compile`.

    Raises:
        ValueError: If `pooling` is not `"token"` or `"gap"` (KerasHub then
            builds a head over every token).

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.ViTBackbone(image_shape=(8, 8, 3), patch_size=4, num_layers=1,
        ...     num_heads=2, hidden_dim=8, mlp_dim=16)
        >>> classifier = keras_hub.models.ViTImageClassifier(backbone, num_classes=3)
        >>> classifier.predict(np.zeros((2, 8, 8, 3)), verbose=0).shape
        (2, 3)
    """

    backbone_cls = ViTBackbone
    preprocessor_cls = ViTImageClassifierPreprocessor

    def __init__(
        self,
        backbone: ViTBackbone,
        num_classes: int,
        preprocessor: Any = None,
        pooling: str = "token",
        intermediate_dim: int | None = None,
        activation: Any = None,
        dropout: float = 0.0,
        head_dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if pooling not in ("token", "gap"):
            raise ValueError(f"ViTImageClassifier: expected `pooling` to be 'token' or 'gap', got {pooling!r}")
        head_dtype = head_dtype or backbone.dtype_policy
        self.backbone = backbone
        self.preprocessor = preprocessor
        if intermediate_dim is not None:
            self.intermediate_layer = layers.Dense(
                intermediate_dim, activation="tanh", dtype=head_dtype, name="pre_logits"
            )
        self.dropout = layers.Dropout(rate=dropout, dtype=head_dtype, name="output_dropout")
        self.output_dense = layers.Dense(num_classes, activation=activation, dtype=head_dtype, name="predictions")

        inputs = backbone.input
        x = backbone(inputs)
        x = x[:, 0] if pooling == "token" else ops.mean(x, axis=[1])
        if intermediate_dim is not None:
            x = self.intermediate_layer(x)
        outputs = self.output_dense(self.dropout(x))
        self.activation = activation  # before Task's constructor compiles: the default loss reads it
        Task.__init__(self, inputs=inputs, outputs=outputs, **kwargs)  # not ImageClassifier's feature-map head
        self.num_classes = num_classes
        self.pooling = pooling
        self.intermediate_dim = intermediate_dim
        self.dropout = dropout  # KerasHub's attribute holds the rate once the graph is built

    def get_config(self) -> dict[str, Any]:
        """`Task`'s keys and the head's arguments (`intermediate_dim` too)."""
        config = super().get_config()
        config.update(intermediate_dim=self.intermediate_dim)
        return config
