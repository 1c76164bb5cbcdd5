"""``XLMRobertaTextClassifier``: XLM-RoBERTa with RoBERTa's classification head on its start token."""

from __future__ import annotations

from typing import Any

from tfkit import activations
from tfkit.hub.models.roberta.roberta_text_classifier import start_token_head
from tfkit.hub.models.text_classifier import TextClassifier
from tfkit.hub.models.xlm_roberta.xlm_roberta_backbone import XLMRobertaBackbone
from tfkit.hub.models.xlm_roberta.xlm_roberta_text_classifier_preprocessor import XLMRobertaTextClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class XLMRobertaTextClassifier(TextClassifier):
    """An end-to-end XLM-RoBERTa model for classification tasks.

    RoBERTa's head: the backbone's hidden state at the start token (`<s>`)
    goes through dropout (`pooled_dropout`), a tanh dense layer of
    `hidden_dim` units (`pooled_dense`), dropout again (`output_dropout`)
    and a dense layer of `num_classes` units (`logits`). The head's weights
    are the task's own: a preset keeps them in `task.weights.h5`.

    Args:
        backbone: An `XLMRobertaBackbone`.
        num_classes: The number of classes.
        preprocessor: An `XLMRobertaTextClassifierPreprocessor`, or `None`
            (the model then takes `{"token_ids", "padding_mask"}`). Defaults
            to `None`.
        activation: The activation of the outputs: `None` (the default) for
            logits, or `"softmax"` for probabilities.
        hidden_dim: The size of the pooler. Defaults to `None`: the
            backbone's `hidden_dim`.
        dropout: The dropout rate before the pooler and before the output
            layer. Defaults to `0.0`.
        **kwargs: `TextClassifier` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.XLMRobertaBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> classifier = keras_hub.models.XLMRobertaTextClassifier(backbone, num_classes=3)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "padding_mask": np.ones((2, 5), "int32")}
        >>> classifier(inputs).shape
        TensorShape([2, 3])
    """

    backbone_cls = XLMRobertaBackbone
    preprocessor_cls = XLMRobertaTextClassifierPreprocessor

    def __init__(
        self,
        backbone: XLMRobertaBackbone,
        num_classes: int,
        preprocessor: Any = None,
        activation: Any = None,
        hidden_dim: int | None = None,
        dropout: float = 0.0,
        **kwargs: Any,
    ) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        hidden_dim = hidden_dim or backbone.hidden_dim
        outputs = start_token_head(self, backbone, num_classes, activation, hidden_dim, dropout)
        super().__init__(inputs=backbone.input, outputs=outputs, **kwargs)
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


XLMRobertaClassifier = XLMRobertaTextClassifier  # KerasHub's other name of the class
