"""``MixtralCausalLM``: Mixtral with its language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.mixtral.mixtral_backbone import MixtralBackbone
from tfkit.hub.models.mixtral.mixtral_causal_lm_preprocessor import MixtralCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MixtralCausalLM(DecoderCausalLM):
    """An end-to-end Mixtral model for causal language modeling.

    The backbone's hidden states times the output embedding give the logits
    of the next token. `generate` fills a key/value cache with one pass over
    the prompt, then computes one new token per step (the sliding window
    applies to the cached steps as to the full pass).

    Args:
        backbone: A `MixtralBackbone`.
        preprocessor: A `MixtralCausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.MixtralBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, num_key_value_heads=1, num_experts=4, sliding_window=3)
        >>> causal_lm = keras_hub.models.MixtralCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 5)
    """

    backbone_cls = MixtralBackbone
    preprocessor_cls = MixtralCausalLMPreprocessor
