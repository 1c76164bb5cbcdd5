"""``FNetMaskedLM``: FNet with its masked language modeling head, tied to the token embedding."""

from __future__ import annotations

from typing import Any

from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import MaskedLMHead
from tfkit.hub.models.f_net.f_net_backbone import FNetBackbone, f_net_kernel_initializer
from tfkit.hub.models.f_net.f_net_masked_lm_preprocessor import FNetMaskedLMPreprocessor
from tfkit.hub.models.masked_lm import MaskedLM
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class FNetMaskedLM(MaskedLM):
    """An end-to-end FNet model for the masked language modeling task.

    The backbone's `sequence_output` at `mask_positions` goes through the
    `MaskedLMHead` (`mlm_head`: a dense layer with exact GELU, as
    KerasHub's, a layer norm, then the transposed token embedding plus a
    bias), giving vocabulary logits for each masked position. The head's
    dense layer, layer norm and bias are the task's own weights (a preset's
    `task.weights.h5`).

    Args:
        backbone: An `FNetBackbone`.
        preprocessor: An `FNetMaskedLMPreprocessor`, or `None` (the model then
            takes `{"token_ids", "segment_ids", "mask_positions"}`). Defaults
            to `None`.
        **kwargs: `MaskedLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.FNetBackbone(vocabulary_size=10, num_layers=1, hidden_dim=8,
        ...     intermediate_dim=16, max_sequence_length=12)
        >>> masked_lm = keras_hub.models.FNetMaskedLM(backbone)
        >>> inputs = {"token_ids": np.ones((2, 5), "int32"), "segment_ids": np.zeros((2, 5), "int32"),
        ...     "mask_positions": np.array([[1, 2], [0, 3]])}
        >>> masked_lm(inputs).shape
        TensorShape([2, 2, 10])
    """

    backbone_cls = FNetBackbone
    preprocessor_cls = FNetMaskedLMPreprocessor

    def __init__(self, backbone: FNetBackbone, preprocessor: Any = None, **kwargs: Any) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        self.masked_lm_head = MaskedLMHead(
            vocabulary_size=backbone.vocabulary_size,
            token_embedding=backbone.token_embedding,
            intermediate_activation="gelu",
            kernel_initializer=f_net_kernel_initializer(),
            dtype=backbone.dtype_policy,
            name="mlm_head",
        )
        inputs = {**backbone.input, "mask_positions": Input(shape=(None,), dtype="int32", name="mask_positions")}
        sequence_output = backbone(backbone.input)["sequence_output"]
        outputs = self.masked_lm_head(sequence_output, inputs["mask_positions"])
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
