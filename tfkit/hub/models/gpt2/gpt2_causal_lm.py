"""``GPT2CausalLM``: GPT-2 with its tied-embedding language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.kv_cache import join_layer_caches, layer_cache
from tfkit.hub.models.causal_lm import CausalLM
from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM, prompt_cache
from tfkit.hub.models.gpt2.gpt2_backbone import GPT2Backbone
from tfkit.hub.models.gpt2.gpt2_causal_lm_preprocessor import GPT2CausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GPT2CausalLM(CausalLM):
    """An end-to-end GPT-2 model for causal language modeling.

    The backbone's hidden states times the transposed token embedding give
    the logits of the next token. `generate` fills a key/value cache with one
    pass over the prompt, then computes one new token per step.

    Args:
        backbone: A `GPT2Backbone`.
        preprocessor: A `GPT2CausalLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.GPT2Backbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> causal_lm = keras_hub.models.GPT2CausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 4)
    """

    backbone_cls = GPT2Backbone
    preprocessor_cls = GPT2CausalLMPreprocessor

    def __init__(self, backbone: GPT2Backbone, preprocessor: Any = None, **kwargs: Any) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        inputs = backbone.input
        outputs = backbone.token_embedding(backbone(inputs), reverse=True)
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)

    def call_with_cache(self, token_ids: Any, cache: Any, cache_update_index: Any) -> tuple[Any, Any, Any]:
        """One forward pass that reads and updates the key/value cache.

        Args:
            token_ids: int `(batch, length)`: the tokens at positions
                `cache_update_index ...` of the sequence.
            cache: float `(batch, num_layers, 2, max_length, num_heads,
                head_dim)` as KerasHub has it, or a tuple of `(keys, values)`
                pairs, one a layer (`tfkit.hub.layers.kv_cache`).
            cache_update_index: The position of `token_ids[:, 0]` in the sequence.

        Returns:
            `(logits, hidden_states, cache)`, the cache in the form it came.
        """
        backbone = self.backbone
        tokens = backbone.token_embedding(token_ids)
        positions = backbone.position_embedding(tokens, start_index=cache_update_index)
        x = backbone.embeddings_dropout(backbone.embeddings_add((tokens, positions)))
        caches = []
        for i, block in enumerate(backbone.transformer_layers):
            x, next_cache = block(
                x, self_attention_cache=layer_cache(cache, i), self_attention_cache_update_index=cache_update_index
            )
            caches.append(next_cache)
        hidden_states = backbone.layer_norm(x)
        logits = backbone.token_embedding(hidden_states, reverse=True)
        return logits, hidden_states, join_layer_caches(caches, like=cache)

    def _build_cache(self, token_ids: Any, prefill_length: int | None = None) -> tuple[Any, Any]:
        """A zero cache the length of `token_ids`, filled by one pass over its first `prefill_length` positions."""
        backbone = self.backbone
        return prompt_cache(
            self, token_ids, backbone.num_heads, backbone.hidden_dim // backbone.num_heads, prefill_length
        )

    generate_step = DecoderCausalLM.generate_step  # the prompt pass, then the sampler's loop (generate_with_cache)
