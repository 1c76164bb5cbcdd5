"""``QwenMoeCausalLM``: Qwen MoE with its language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.qwen_moe.qwen_moe_backbone import QwenMoeBackbone
from tfkit.hub.models.qwen_moe.qwen_moe_causal_lm_preprocessor import QwenMoeCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenMoeCausalLM(DecoderCausalLM):
    """An end-to-end Qwen model for causal language modeling.

    The backbone's hidden states times the output embedding give the logits
    of the next token (the output embedding is the input one unless the
    backbone has `tie_word_embeddings=False`). `generate` fills a key/value
    cache with one pass over the prompt, then computes one new token per step.

    Args:
        backbone: A `QwenMoeBackbone`.
        preprocessor: A `QwenMoeCausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.QwenMoeBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, moe_intermediate_dim=4,
        ...     shared_expert_intermediate_dim=6, num_experts=4, top_k=2)
        >>> causal_lm = keras_hub.models.QwenMoeCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 5)
    """

    backbone_cls = QwenMoeBackbone
    preprocessor_cls = QwenMoeCausalLMPreprocessor
