"""``AlbertMaskedLM``: ALBERT with its masked language modeling head, tied to the token embedding."""

from __future__ import annotations

from typing import Any

from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import MaskedLMHead
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.models.albert.albert_backbone import AlbertBackbone, albert_kernel_initializer
from tfkit.hub.models.albert.albert_masked_lm_preprocessor import AlbertMaskedLMPreprocessor
from tfkit.hub.models.masked_lm import MaskedLM
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class AlbertMaskedLM(MaskedLM):
    """An end-to-end ALBERT model for the masked language modeling task.

    The backbone's `sequence_output` at `mask_positions` goes through the
    `MaskedLMHead` (`mlm_head`: a dense layer of the embedding's width with
    tanh-approximated GELU, a layer norm, then the transposed token
    embedding plus a bias), giving vocabulary logits for each masked
    position. The head's dense layer, layer norm and bias are the task's
    own weights (a preset's `task.weights.h5`).

    Args:
        backbone: An `AlbertBackbone`.
        preprocessor: An `AlbertMaskedLMPreprocessor`, or `None` (the model
            then takes `{"token_ids", "segment_ids", "padding_mask",
            "mask_positions"}`). Defaults to `None`.
        **kwargs: `MaskedLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.AlbertBackbone(vocabulary_size=10, num_layers=2, num_heads=2,
        ...     embedding_dim=4, hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> masked_lm = keras_hub.models.AlbertMaskedLM(backbone)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "segment_ids": np.zeros((2, 5), "int32"),
        ...     "padding_mask": np.ones((2, 5), "int32"), "mask_positions": np.array([[1, 2], [0, 3]])}
        >>> masked_lm(inputs).shape
        TensorShape([2, 2, 10])
    """

    backbone_cls = AlbertBackbone
    preprocessor_cls = AlbertMaskedLMPreprocessor

    def __init__(self, backbone: AlbertBackbone, preprocessor: Any = None, **kwargs: Any) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.masked_lm_head = MaskedLMHead(
            vocabulary_size=backbone.vocabulary_size,
            token_embedding=backbone.token_embedding,
            intermediate_activation=gelu_approximate,
            kernel_initializer=albert_kernel_initializer(),
            dtype=backbone.dtype_policy,
            name="mlm_head",
        )
        inputs = {**backbone.input, "mask_positions": Input(shape=(None,), dtype="int32", name="mask_positions")}
        sequence_output = backbone(backbone.input)["sequence_output"]
        outputs = self.masked_lm_head(sequence_output, inputs["mask_positions"])
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
