"""``DebertaV3TextClassifier``: DeBERTa-v3 with a GELU pooling layer and a dense classification head."""

from __future__ import annotations

from typing import Any

from tfkit import activations, layers
from tfkit.hub.models.deberta_v3.deberta_v3_backbone import DebertaV3Backbone, deberta_kernel_initializer
from tfkit.hub.models.deberta_v3.deberta_v3_text_classifier_preprocessor import DebertaV3TextClassifierPreprocessor
from tfkit.hub.models.text_classifier import TextClassifier
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DebertaV3TextClassifier(TextClassifier):
    """An end-to-end DeBERTa model for classification tasks.

    The backbone's hidden state at the start token (`[CLS]`) goes through
    dropout (`pooled_dropout`), a GELU dense layer of `hidden_dim` units
    (`pooled_dense`), dropout at the backbone's rate (`classifier_dropout`)
    and a dense layer of `num_classes` units (`logits`), as Transformers'
    DeBERTa-v2 pooler and classifier. The head's weights are the task's own:
    a preset keeps them in `task.weights.h5`. `compile` has
    `TextClassifier`'s defaults (Adam at 5e-5).

    Args:
        backbone: A `DebertaV3Backbone`.
        num_classes: The number of classes.
        preprocessor: A `DebertaV3TextClassifierPreprocessor`, or `None`
            (the model then takes `{"token_ids", "padding_mask"}`). Defaults
            to `None`.
        activation: The activation of the outputs: `None` (the default) for
            logits, or `"softmax"` for probabilities.
        hidden_dim: The size of the pooling layer; `None` (the default)
            means the backbone's `hidden_dim`.
        dropout: The dropout rate before the pooling layer. Defaults to `0`.
        **kwargs: `TextClassifier` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.DebertaV3Backbone(vocabulary_size=10, num_layers=2, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=16, bucket_size=4)
        >>> classifier = keras_hub.models.DebertaV3TextClassifier(backbone, num_classes=3)
        >>> classifier({"token_ids": np.ones((2, 5), "int32"), "padding_mask": np.ones((2, 5), "int32")}).shape
        TensorShape([2, 3])
    """

    backbone_cls = DebertaV3Backbone
    preprocessor_cls = DebertaV3TextClassifierPreprocessor

    def __init__(
        self,
        backbone: DebertaV3Backbone,
        num_classes: int,
        preprocessor: Any = None,
        activation: Any = None,
        hidden_dim: int | None = None,
        dropout: float = 0.0,
        **kwargs: Any,
    ) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        dtype = backbone.dtype_policy
        hidden_dim = hidden_dim or backbone.hidden_dim
        self.pooled_dropout = layers.Dropout(dropout, dtype=dtype, name="pooled_dropout")
        self.pooled_dense = layers.Dense(hidden_dim, activation=activations.gelu, dtype=dtype, name="pooled_dense")
        self.output_dropout = layers.Dropout(backbone.dropout, dtype=dtype, name="classifier_dropout")
        self.output_dense = layers.Dense(
            num_classes,
            kernel_initializer=deberta_kernel_initializer(),
            activation=activation,
            dtype=dtype,
            name="logits",
        )
        x = backbone(backbone.input)[:, backbone.start_token_index, :]
        outputs = self.output_dense(self.output_dropout(self.pooled_dense(self.pooled_dropout(x))))
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


DebertaV3Classifier = DebertaV3TextClassifier  # KerasHub's other name of the class
