"""``GPT2CausalLM``: GPT-2 with its tied-embedding language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.kv_cache import empty_layer_caches, join_layer_caches, layer_cache
from tfkit.hub.models.causal_lm import CausalLM, stop_mask
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

    def _build_cache(self, token_ids: Any) -> tuple[Any, Any]:
        backbone = self.backbone
        shape = tf.shape(token_ids)
        head_dim = backbone.hidden_dim // backbone.num_heads
        cache = empty_layer_caches(
            shape[0], shape[1], backbone.num_layers, backbone.num_heads, head_dim, self.compute_dtype
        )
        _, hidden_states, cache = self.call_with_cache(token_ids, cache, 0)
        return hidden_states, cache

    def generate_step(self, inputs: dict[str, Any], stop_token_ids: Any = None) -> dict[str, Any]:
        """Generates one batch (see `CausalLM.generate_step`); compiled by `make_generate_function`."""
        token_ids, padding_mask = inputs["token_ids"], inputs["padding_mask"]
        hidden_states, cache = self._build_cache(token_ids)
        index = tf.reduce_min(tf.reduce_sum(tf.cast(padding_mask, tf.int32), axis=-1))

        def next_token(prompt: Any, cache: Any, index: Any) -> tuple[Any, Any, Any]:
            update_index = index - 1
            prompt = tf.slice(prompt, [0, update_index], [tf.shape(prompt)[0], 1])  # a static width of 1 (XLA)
            logits, hidden_states, cache = self.call_with_cache(prompt, cache, update_index)
            return tf.squeeze(logits, axis=1), tf.squeeze(hidden_states, axis=1), cache

        token_ids = self.sampler(
            next=next_token,
            prompt=token_ids,
            cache=cache,
            index=index,
            mask=padding_mask,
            stop_token_ids=stop_token_ids,
            hidden_states=hidden_states,
            model=self,
        )
        if stop_token_ids is not None:
            padding_mask = stop_mask(token_ids, stop_token_ids, padding_mask)
        else:
            padding_mask = tf.ones_like(token_ids, dtype=tf.bool)
        return {"token_ids": token_ids, "padding_mask": padding_mask}
