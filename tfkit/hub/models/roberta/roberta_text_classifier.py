"""``RobertaTextClassifier``: RoBERTa with a tanh dense pooler and a dense head on its start token."""

from __future__ import annotations

from typing import Any

from tfkit import activations, layers
from tfkit.hub.models.roberta.roberta_backbone import RobertaBackbone, roberta_kernel_initializer
from tfkit.hub.models.roberta.roberta_text_classifier_preprocessor import RobertaTextClassifierPreprocessor
from tfkit.hub.models.text_classifier import TextClassifier
from tfkit.saving import register_keras_serializable


def start_token_head(
    task: Any, backbone: Any, num_classes: int, activation: Any, hidden_dim: int, dropout: float
) -> Any:
    """Builds RoBERTa's classification head on `task` (`pooled_dropout`, `pooled_dense`, `output_dropout`,
    `logits`) and returns its output on the backbone's start token, for the task's functional graph.

    Args:
        task: The task being built (`RobertaTextClassifier`, `XLMRobertaTextClassifier`).
        backbone: Its backbone.
        num_classes: The number of classes.
        activation: The activation of the outputs.
        hidden_dim: The size of the tanh dense layer.
        dropout: The rate of both dropouts.

    Returns:
        The symbolic `(batch, num_classes)` output.
    """
    dtype = backbone.dtype_policy
    task.pooled_dropout = layers.Dropout(dropout, dtype=dtype, name="pooled_dropout")
    task.pooled_dense = layers.Dense(hidden_dim, activation="tanh", dtype=dtype, name="pooled_dense")
    task.output_dropout = layers.Dropout(dropout, dtype=dtype, name="output_dropout")
    task.output_dense = layers.Dense(
        num_classes, kernel_initializer=roberta_kernel_initializer(), activation=activation, dtype=dtype, name="logits"
    )
    x = backbone(backbone.input)[:, backbone.start_token_index, :]
    x = task.output_dropout(task.pooled_dense(task.pooled_dropout(x)))
    return task.output_dense(x)


@register_keras_serializable(package="keras_hub")
class RobertaTextClassifier(TextClassifier):
    """An end-to-end RoBERTa model for classification tasks.

    The backbone's hidden state at the start token (`<s>`) goes through
    dropout (`pooled_dropout`), a tanh dense layer of `hidden_dim` units
    (`pooled_dense`), dropout again (`output_dropout`) and a dense layer of
    `num_classes` units (`logits`), as Transformers' RoBERTa classification
    head. The head's weights are the task's own: a preset keeps them in
    `task.weights.h5`.

    Args:
        backbone: A `RobertaBackbone`.
        num_classes: The number of classes.
        preprocessor: A `RobertaTextClassifierPreprocessor`, or `None` (the
            model then takes `{"token_ids", "padding_mask"}`). Defaults to
            `None`.
        activation: The activation of the outputs: `None` (the default) for
            logits, or `"softmax"` for probabilities.
        hidden_dim: The size of the pooler. Defaults to `None`: the
            backbone's `hidden_dim`.
        dropout: The dropout rate before the pooler and before the output
            layer. Defaults to `0.0`.
        **kwargs: `TextClassifier` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.RobertaBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> classifier = keras_hub.models.RobertaTextClassifier(backbone, num_classes=3)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "padding_mask": np.ones((2, 5), "int32")}
        >>> classifier(inputs).shape
        TensorShape([2, 3])
    """

    backbone_cls = RobertaBackbone
    preprocessor_cls = RobertaTextClassifierPreprocessor

    def __init__(
        self,
        backbone: RobertaBackbone,
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


RobertaClassifier = RobertaTextClassifier  # KerasHub's other name of the class
