"""``FalconCausalLM``: Falcon with its tied-embedding language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from typing import ClassVar

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.falcon.falcon_backbone import FalconBackbone
from tfkit.hub.models.falcon.falcon_causal_lm_preprocessor import FalconCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class FalconCausalLM(DecoderCausalLM):
    """An end-to-end Falcon model for causal language modeling.

    The backbone's hidden states times the transposed token embedding give
    the logits of the next token. `generate` fills a key/value cache with one
    pass over the prompt, then computes one new token per step.

    Args:
        backbone: A `FalconBackbone`.
        preprocessor: A `FalconCausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.FalconBackbone(vocabulary_size=10, num_layers=1, num_attention_heads=2,
        ...     hidden_dim=8, intermediate_dim=16)
        >>> causal_lm = keras_hub.models.FalconCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 4)
    """

    backbone_cls = FalconBackbone
    preprocessor_cls = FalconCausalLMPreprocessor
    block_arguments: ClassVar[dict[str, str]] = {
        "cache": "attention_cache",
        "cache_update_index": "attention_cache_update_index",
        "padding_mask": "decoder_padding_mask",
    }

    def key_value_heads(self) -> tuple[int, int]:
        """The cache's `(num_attention_heads, hidden_dim // num_attention_heads)`.

        Returns:
            Two Python ints.
        """
        backbone = self.backbone
        return backbone.num_attention_heads, backbone.hidden_dim // backbone.num_attention_heads
