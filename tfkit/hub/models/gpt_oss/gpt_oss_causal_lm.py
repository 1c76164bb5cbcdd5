"""``GptOssCausalLM``: GPT-OSS with its language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.gpt_oss.gpt_oss_backbone import GptOssBackbone
from tfkit.hub.models.gpt_oss.gpt_oss_causal_lm_preprocessor import GptOssCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GptOssCausalLM(DecoderCausalLM):
    """An end-to-end GPT-OSS model for causal language modeling.

    The backbone's hidden states times the output embedding give the logits
    of the next token. `generate` fills a key/value cache with one pass over
    the prompt, then computes one new token per step; a decoding step runs
    only each token's chosen experts.

    Args:
        backbone: A `GptOssBackbone`.
        preprocessor: A `GptOssCausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.GptOssBackbone(vocabulary_size=10, num_layers=2, num_query_heads=2,
        ...     hidden_dim=8, intermediate_dim=8, num_key_value_heads=1, num_experts=4, sliding_window=2)
        >>> causal_lm = keras_hub.models.GptOssCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 5)
    """

    backbone_cls = GptOssBackbone
    preprocessor_cls = GptOssCausalLMPreprocessor
