"""``DebertaV3MaskedLM``: DeBERTa-v3 with its masked language modeling head, tied to the token embedding."""

from __future__ import annotations

from typing import Any

from tfkit import activations
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import MaskedLMHead
from tfkit.hub.models.deberta_v3.deberta_v3_backbone import DebertaV3Backbone, deberta_kernel_initializer
from tfkit.hub.models.deberta_v3.deberta_v3_masked_lm_preprocessor import DebertaV3MaskedLMPreprocessor
from tfkit.hub.models.masked_lm import MaskedLM
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DebertaV3MaskedLM(MaskedLM):
    """An end-to-end DeBERTa model for the masked language modeling task.

    The backbone's hidden states at `mask_positions` go through the
    `MaskedLMHead` (`mlm_head`: a GELU dense layer, a layer norm, then the
    transposed token embedding plus a bias), giving vocabulary logits for
    each masked position. The head's dense layer, layer norm and bias are
    the task's own weights (a preset's `task.weights.h5`).

    Args:
        backbone: A `DebertaV3Backbone`.
        preprocessor: A `DebertaV3MaskedLMPreprocessor`, or `None` (the
            model then takes `{"token_ids", "padding_mask",
            "mask_positions"}`). Defaults to `None`.
        **kwargs: `MaskedLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.DebertaV3Backbone(vocabulary_size=10, num_layers=2, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=16, bucket_size=4)
        >>> masked_lm = keras_hub.models.DebertaV3MaskedLM(backbone)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "padding_mask": np.ones((2, 5), "int32"),
        ...     "mask_positions": np.array([[1, 2], [0, 3]])}
        >>> masked_lm(inputs).shape
        TensorShape([2, 2, 10])
    """

    backbone_cls = DebertaV3Backbone
    preprocessor_cls = DebertaV3MaskedLMPreprocessor

    def __init__(self, backbone: DebertaV3Backbone, preprocessor: Any = None, **kwargs: Any) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.masked_lm_head = MaskedLMHead(
            vocabulary_size=backbone.vocabulary_size,
            token_embedding=backbone.token_embedding,
            intermediate_activation=activations.gelu,
            kernel_initializer=deberta_kernel_initializer(),
            dtype=backbone.dtype_policy,
            name="mlm_head",
        )
        inputs = {**backbone.input, "mask_positions": Input(shape=(None,), dtype="int32", name="mask_positions")}
        outputs = self.masked_lm_head(backbone(backbone.input), inputs["mask_positions"])
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
