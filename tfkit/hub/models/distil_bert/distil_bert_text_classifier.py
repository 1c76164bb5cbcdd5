"""``DistilBertTextClassifier``: DistilBERT with a ReLU dense pooler and a dense head on its ``[CLS]`` position."""

from __future__ import annotations

from typing import Any

from tfkit import activations, layers
from tfkit.hub.models.distil_bert.distil_bert_backbone import DistilBertBackbone, distilbert_kernel_initializer
from tfkit.hub.models.distil_bert.distil_bert_text_classifier_preprocessor import DistilBertTextClassifierPreprocessor
from tfkit.hub.models.text_classifier import TextClassifier
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DistilBertTextClassifier(TextClassifier):
    """An end-to-end DistilBERT model for classification tasks.

    The backbone's hidden state at `[CLS]` goes through a ReLU dense layer of
    `hidden_dim` units (`pooled_dense`), dropout (`output_dropout`) and a
    dense layer of `num_classes` units (`logits`), as Transformers'
    `DistilBertForSequenceClassification` head. The head's weights are the
    task's own: a preset keeps them in `task.weights.h5`.

    Args:
        backbone: A `DistilBertBackbone`.
        num_classes: The number of classes.
        preprocessor: A `DistilBertTextClassifierPreprocessor`, or `None` (the
            model then takes `{"token_ids", "padding_mask"}`). Defaults to
            `None`.
        activation: The activation of the outputs: `None` (the default) for
            logits, or `"softmax"` for probabilities.
        hidden_dim: The size of the pooler. Defaults to `None`: the
            backbone's `hidden_dim`.
        dropout: The dropout rate before the output layer. Defaults to `0.2`.
        **kwargs: `TextClassifier` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.DistilBertBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> classifier = keras_hub.models.DistilBertTextClassifier(backbone, num_classes=3)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "padding_mask": np.ones((2, 5), "int32")}
        >>> classifier(inputs).shape
        TensorShape([2, 3])
    """

    backbone_cls = DistilBertBackbone
    preprocessor_cls = DistilBertTextClassifierPreprocessor

    def __init__(
        self,
        backbone: DistilBertBackbone,
        num_classes: int,
        preprocessor: Any = None,
        activation: Any = None,
        hidden_dim: int | None = None,
        dropout: float = 0.2,
        **kwargs: Any,
    ) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        dtype = backbone.dtype_policy
        hidden_dim = hidden_dim or backbone.hidden_dim
        self.pooled_dense = layers.Dense(
            hidden_dim,
            activation="relu",
            kernel_initializer=distilbert_kernel_initializer(),
            dtype=dtype,
            name="pooled_dense",
        )
        self.output_dropout = layers.Dropout(dropout, dtype=dtype, name="output_dropout")
        self.output_dense = layers.Dense(
            num_classes,
            kernel_initializer=distilbert_kernel_initializer(),
            activation=activation,
            dtype=dtype,
            name="logits",
        )
        inputs = backbone.input
        x = self.output_dropout(self.pooled_dense(backbone(inputs)[:, backbone.cls_token_index, :]))
        super().__init__(inputs=inputs, outputs=self.output_dense(x), **kwargs)
        self.num_classes = num_classes
        self.activation = activations.get(activation)
        self.hidden_dim = hidden_dim
        self.dropout = dropout

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_classes=self.num_classes,
            activation=activations.serialize(self.activation),
            hidden_dim=self.hidden_dim,
            dropout=self.dropout,
        )
        return config


DistilBertClassifier = DistilBertTextClassifier  # KerasHub's other name of the class
