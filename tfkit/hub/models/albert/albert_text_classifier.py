"""``AlbertTextClassifier``: ALBERT with a dropout and dense classification head on its pooled output."""

from __future__ import annotations

from typing import Any

from tfkit import activations, layers, optimizers
from tfkit.hub.models.albert.albert_backbone import AlbertBackbone, albert_kernel_initializer
from tfkit.hub.models.albert.albert_text_classifier_preprocessor import AlbertTextClassifierPreprocessor
from tfkit.hub.models.text_classifier import TextClassifier
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class AlbertTextClassifier(TextClassifier):
    """An end-to-end ALBERT model for classification tasks.

    The backbone's `pooled_output` (the `[CLS]` position through the
    pooler) goes through dropout (`output_dropout`) and a dense layer
    (`logits`) with `num_classes` units. The head's weights are the task's
    own: a preset keeps them in `task.weights.h5`. Its `compile` defaults
    to Adam with a learning rate of 1e-5, as KerasHub's.

    Args:
        backbone: An `AlbertBackbone`.
        num_classes: The number of classes.
        preprocessor: An `AlbertTextClassifierPreprocessor`, or `None` (the
            model then takes `{"token_ids", "segment_ids", "padding_mask"}`).
            Defaults to `None`.
        activation: The activation of the outputs: `None` (the default) for
            logits, or `"softmax"` for probabilities.
        dropout: The dropout rate before the dense layer. Defaults to `0.1`.
        **kwargs: `TextClassifier` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.AlbertBackbone(vocabulary_size=10, num_layers=2, num_heads=2,
        ...     embedding_dim=4, hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> classifier = keras_hub.models.AlbertTextClassifier(backbone, num_classes=3)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "segment_ids": np.zeros((2, 5), "int32"),
        ...     "padding_mask": np.ones((2, 5), "int32")}
        >>> classifier(inputs).shape
        TensorShape([2, 3])
        >>> classifier.compile()
        >>> round(float(classifier.optimizer.learning_rate), 8)
        1e-05
    """

    backbone_cls = AlbertBackbone
    preprocessor_cls = AlbertTextClassifierPreprocessor

    def __init__(
        self,
        backbone: AlbertBackbone,
        num_classes: int,
        preprocessor: Any = None,
        activation: Any = None,
        dropout: float = 0.1,
        **kwargs: Any,
    ) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.output_dense = layers.Dense(
            num_classes,
            kernel_initializer=albert_kernel_initializer(),
            activation=activation,
            dtype=backbone.dtype_policy,
            name="logits",
        )
        self.output_dropout = layers.Dropout(dropout, dtype=backbone.dtype_policy, name="output_dropout")
        inputs = backbone.input
        pooled = self.output_dropout(backbone(inputs)["pooled_output"])
        super().__init__(inputs=inputs, outputs=self.output_dense(pooled), **kwargs)
        self.num_classes = num_classes
        self.activation = activations.get(activation)
        self.dropout = dropout

    def compile(self, optimizer: Any = "auto", loss: Any = "auto", *, metrics: Any = "auto", **kwargs: Any) -> None:
        """Configures the task for training, with classification's defaults and Adam at 1e-5.

        Args:
            optimizer: `"auto"` (Adam, learning rate 1e-5), or anything
                `tfkit.Model.compile` takes. Defaults to `"auto"`.
            loss: As `TextClassifier.compile`. Defaults to `"auto"`.
            metrics: As `TextClassifier.compile`. Defaults to `"auto"`.
            **kwargs: Other arguments of `tfkit.Model.compile`.
        """
        if isinstance(optimizer, str) and optimizer == "auto":
            optimizer = optimizers.Adam(1e-5)
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_classes=self.num_classes, activation=activations.serialize(self.activation), dropout=self.dropout
        )
        return config


AlbertClassifier = AlbertTextClassifier  # KerasHub's other name of the class
