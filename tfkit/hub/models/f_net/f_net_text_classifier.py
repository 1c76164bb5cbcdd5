"""``FNetTextClassifier``: FNet with a dropout and dense classification head on its pooled output."""

from __future__ import annotations

from typing import Any

from tfkit import activations, layers
from tfkit.hub.models.f_net.f_net_backbone import FNetBackbone, f_net_kernel_initializer
from tfkit.hub.models.f_net.f_net_text_classifier_preprocessor import FNetTextClassifierPreprocessor
from tfkit.hub.models.text_classifier import TextClassifier
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class FNetTextClassifier(TextClassifier):
    """An end-to-end FNet model for classification tasks.

    The backbone's `pooled_output` (the `[CLS]` position through the
    pooler) goes through dropout (`output_dropout`) and a dense layer
    (`logits`) with `num_classes` units. The head's weights are the task's
    own: a preset keeps them in `task.weights.h5`.

    Args:
        backbone: An `FNetBackbone`.
        num_classes: The number of classes.
        preprocessor: An `FNetTextClassifierPreprocessor`, or `None` (the
            model then takes `{"token_ids", "segment_ids"}`). Defaults to
            `None`.
        activation: The activation of the outputs: `None` (the default) for
            logits, or `"softmax"` for probabilities.
        dropout: The dropout rate before the dense layer. Defaults to `0.1`.
        **kwargs: `TextClassifier` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.FNetBackbone(vocabulary_size=10, num_layers=1, hidden_dim=8,
        ...     intermediate_dim=16, max_sequence_length=12)
        >>> classifier = keras_hub.models.FNetTextClassifier(backbone, num_classes=3)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "segment_ids": np.zeros((2, 5), "int32")}
        >>> classifier(inputs).shape
        TensorShape([2, 3])
    """

    backbone_cls = FNetBackbone
    preprocessor_cls = FNetTextClassifierPreprocessor

    def __init__(
        self,
        backbone: FNetBackbone,
        num_classes: int,
        preprocessor: Any = None,
        activation: Any = None,
        dropout: float = 0.1,
        **kwargs: Any,
    ) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.output_dropout = layers.Dropout(dropout, dtype=backbone.dtype_policy, name="output_dropout")
        self.output_dense = layers.Dense(
            num_classes,
            kernel_initializer=f_net_kernel_initializer(),
            activation=activation,
            dtype=backbone.dtype_policy,
            name="logits",
        )
        inputs = backbone.input
        pooled = self.output_dropout(backbone(inputs)["pooled_output"])
        super().__init__(inputs=inputs, outputs=self.output_dense(pooled), **kwargs)
        self.num_classes = num_classes
        self.activation = activations.get(activation)
        self.dropout = dropout

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_classes=self.num_classes, dropout=self.dropout, activation=activations.serialize(self.activation)
        )
        return config


FNetClassifier = FNetTextClassifier  # KerasHub's other name of the class
