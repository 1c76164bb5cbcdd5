"""``GemmaCausalLM``: Gemma with its tied-embedding language modeling head, ``generate`` with a key/value cache.

    causal_lm = GemmaCausalLM.from_preset("./gemma_tiny")
    causal_lm.generate(["the quick"], max_length=16)          # greedy by default, as KerasHub's Gemma
    causal_lm.score(token_ids, scoring_mode="loss", target_ids=targets)

``generate_step`` is the decoding loop of decoder-only stacks
(``decoder_causal_lm.generate_with_cache``): one forward pass fills the cache
with the prompt, then the sampler asks for one token at a time from the first
position no prompt fills.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import losses
from tfkit.hub.layers.kv_cache import join_layer_caches, layer_cache
from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.gemma.gemma_backbone import GemmaBackbone, scaled_embeddings
from tfkit.hub.models.gemma.gemma_causal_lm_preprocessor import GemmaCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GemmaCausalLM(DecoderCausalLM):
    """An end-to-end Gemma model for causal language modeling.

    The backbone's hidden states times the transposed token embedding give
    the logits of the next token (soft-capped for Gemma 2). `generate` fills
    a key/value cache with one pass over the prompt, then computes one new
    token per step; Gemma compiles with the greedy sampler by default.

    Args:
        backbone: A `GemmaBackbone`.
        preprocessor: A `GemmaCausalLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.GemmaBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, head_dim=4)
        >>> causal_lm = keras_hub.models.GemmaCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy", jit_compile=False)  # XLA (the default) pays off on long runs
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 4)
    """

    backbone_cls = GemmaBackbone
    preprocessor_cls = GemmaCausalLMPreprocessor

    def compile(
        self,
        optimizer: Any = "auto",
        loss: Any = "auto",
        *,
        weighted_metrics: Any = "auto",
        sampler: Any = "greedy",
        **kwargs: Any,
    ) -> None:
        """`CausalLM.compile`, with the greedy sampler by default (as KerasHub's Gemma).

        Args:
            optimizer: `"auto"` (Adam, learning rate 2e-5) or an optimizer.
                Defaults to `"auto"`.
            loss: `"auto"` (sparse categorical crossentropy on logits) or a
                loss. Defaults to `"auto"`.
            weighted_metrics: `"auto"` (sparse categorical accuracy) or a list
                of metrics. Defaults to `"auto"`.
            sampler: The sampler `generate` uses. Defaults to `"greedy"`.
            **kwargs: Other arguments of `tfkit.Model.compile`.
        """
        super().compile(optimizer=optimizer, loss=loss, weighted_metrics=weighted_metrics, sampler=sampler, **kwargs)

    def call_with_cache(self, token_ids: Any, cache: Any, cache_update_index: Any) -> tuple[Any, Any, Any]:
        """One forward pass that reads and updates the key/value cache.

        Args:
            token_ids: int `(batch, length)`: the tokens at positions
                `cache_update_index ...` of the sequence.
            cache: float `(batch, num_layers, 2, max_length,
                num_key_value_heads, head_dim)` as KerasHub has it, or a
                tuple of `(keys, values)` pairs, one a layer
                (`tfkit.hub.layers.kv_cache`).
            cache_update_index: The position of `token_ids[:, 0]`.

        Returns:
            `(logits, hidden_states, cache)`, the cache in the form it came.
        """
        backbone = self.backbone
        x = scaled_embeddings(backbone.token_embedding(token_ids), backbone.hidden_dim)
        caches = []
        for i, block in enumerate(backbone.transformer_layers):
            x, next_cache = block(x, cache=layer_cache(cache, i), cache_update_index=cache_update_index)
            caches.append(next_cache)
        hidden_states = backbone.layer_norm(x)
        logits = backbone.token_embedding(hidden_states, reverse=True)
        return logits, hidden_states, join_layer_caches(caches, like=cache)

    def score(
        self,
        token_ids: Any,
        padding_mask: Any = None,
        scoring_mode: str = "logits",
        layer_intercept_fn: Any = None,
        target_ids: Any = None,
    ) -> Any:
        """Scores token sequences: the logits of every position, or each token's loss.

        Args:
            token_ids: int `(batch, length)`: the tokens to score, typically a
                prompt and its generated completion.
            padding_mask: `(batch, length)` mask of real tokens. Defaults to
                `None` (all ones).
            scoring_mode: `"logits"` (the logits `(batch, length, vocab)`) or
                `"loss"` (the per-token crossentropy `(batch, length)` against
                `target_ids`). Defaults to `"logits"`.
            layer_intercept_fn: Optional `fn(x, i)` called on the token
                embeddings (`i = -1`, before scaling) and on each decoder
                layer's output (`i = 0, 1, ...`); the tensor it returns goes
                on (KerasHub drops what it returns for the embeddings).
                Defaults to `None`.
            target_ids: int `(batch, length)`: the tokens each position
                should predict (`"loss"` mode). Defaults to `None`.

        Returns:
            The logits or per-token losses.

        Raises:
            ValueError: If `scoring_mode` is neither `"logits"` nor `"loss"`,
                or `"loss"` is asked without `target_ids`.
        """
        if scoring_mode not in ("logits", "loss"):
            raise ValueError(f"score: scoring_mode must be 'logits' or 'loss', got {scoring_mode!r}")
        if scoring_mode == "loss" and target_ids is None:
            raise ValueError("score: scoring_mode='loss' needs target_ids, the token ids each position predicts")
        token_ids = tf.convert_to_tensor(token_ids)
        if padding_mask is None:
            padding_mask = tf.ones(tf.shape(token_ids)[:2])
        intercept = layer_intercept_fn or (lambda x, i: x)
        backbone = self.backbone
        x = scaled_embeddings(intercept(backbone.token_embedding(token_ids), -1), backbone.hidden_dim)
        for i, block in enumerate(backbone.transformer_layers):
            x = intercept(block(x, padding_mask=padding_mask), i)
        logits = backbone.token_embedding(backbone.layer_norm(x), reverse=True)
        if scoring_mode == "logits":
            return logits
        per_token = losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
        return per_token(target_ids, logits)
