"""``Qwen3MoeCausalLM``: Qwen 3 MoE with its language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.qwen3_moe.qwen3_moe_backbone import Qwen3MoeBackbone
from tfkit.hub.models.qwen3_moe.qwen3_moe_causal_lm_preprocessor import Qwen3MoeCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3MoeCausalLM(DecoderCausalLM):
    """An end-to-end Qwen 3 MoE model for causal language modeling.

    The backbone's hidden states times the output embedding give the logits
    of the next token (the output embedding is the input one unless the
    backbone has `tie_word_embeddings=False`). `generate` fills a key/value
    cache with one pass over the prompt, then computes one new token per step.

    Args:
        backbone: A `Qwen3MoeBackbone`.
        preprocessor: A `Qwen3MoeCausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Qwen3MoeBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, head_dim=6, hidden_dim=8, intermediate_dim=16, moe_intermediate_dim=4,
        ...     num_experts=4, top_k=2)
        >>> causal_lm = keras_hub.models.Qwen3MoeCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 5)
    """

    backbone_cls = Qwen3MoeBackbone
    preprocessor_cls = Qwen3MoeCausalLMPreprocessor
