"""``GemmaCausalLM``: Gemma with its tied-embedding language modeling head, ``generate`` with a key/value cache.

    causal_lm = GemmaCausalLM.from_preset("./gemma_tiny")
    causal_lm.generate(["the quick"], max_length=16)          # greedy by default, as KerasHub's Gemma
    causal_lm.score(token_ids, scoring_mode="loss", target_ids=targets)

The decoding loop is ``DecoderCausalLM``'s; Gemma sets its blocks' argument
names, scales the token embeddings by ``sqrt(hidden_dim)`` and compiles with
the greedy sampler by default.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM, unchanged
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
    block_arguments = {"cache": "cache", "cache_update_index": "cache_update_index", "padding_mask": "padding_mask"}

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

    def embed(self, token_ids: Any, start_index: Any = 0, intercept: Any = unchanged) -> Any:
        """Token embeddings times `sqrt(hidden_dim)`, intercepted before the scaling.

        Args:
            token_ids: int `(batch, length)`.
            start_index: Unused (Gemma's positions are rotary, in attention).
                Defaults to `0`.
            intercept: `score`'s `layer_intercept_fn` (index `-1`), applied to
                the unscaled embeddings; what it returns goes on (KerasHub
                drops it). Defaults to the identity.

        Returns:
            `(batch, length, hidden_dim)` embeddings.
        """
        backbone = self.backbone
        return scaled_embeddings(intercept(backbone.token_embedding(token_ids), -1), backbone.hidden_dim)
