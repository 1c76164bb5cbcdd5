"""``Llama3CausalLM``: Llama 3 with its language modeling head: ``LlamaCausalLM`` in Llama 3's family."""

from __future__ import annotations

from tfkit.hub.models.llama.llama_causal_lm import LlamaCausalLM
from tfkit.hub.models.llama3.llama3_backbone import Llama3Backbone
from tfkit.hub.models.llama3.llama3_causal_lm_preprocessor import Llama3CausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Llama3CausalLM(LlamaCausalLM):
    """An end-to-end Llama 3 model for causal language modeling.

    `LlamaCausalLM` (logits from the token embedding's reverse projection,
    `generate` with a grouped key/value cache, `score`) with a
    `Llama3Backbone` and a `Llama3CausalLMPreprocessor`. `generate` stops at
    `"<|end_of_text|>"` or `"<|eot_id|>"` by default (the tokenizer's
    `end_token_id` and `end_token2_id`).

    Args:
        backbone: A `Llama3Backbone`.
        preprocessor: A `Llama3CausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Llama3Backbone(vocabulary_size=10, num_layers=1, num_query_heads=4,
        ...     hidden_dim=8, intermediate_dim=16, num_key_value_heads=2)
        >>> causal_lm = keras_hub.models.Llama3CausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0]]), "padding_mask": np.array([[1, 1, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 3)
    """

    backbone_cls = Llama3Backbone
    preprocessor_cls = Llama3CausalLMPreprocessor
