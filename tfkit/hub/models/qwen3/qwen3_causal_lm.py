"""``Qwen3CausalLM``: Qwen 3 with its language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.hub.models import decoder_causal_lm
from tfkit.hub.models.causal_lm import CausalLM
from tfkit.hub.models.qwen3.qwen3_backbone import Qwen3Backbone
from tfkit.hub.models.qwen3.qwen3_causal_lm_preprocessor import Qwen3CausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3CausalLM(CausalLM):
    """An end-to-end Qwen 3 model for causal language modeling.

    The backbone's hidden states times the output embedding give the logits
    of the next token (the output embedding is the input one unless the
    backbone has `tie_word_embeddings=False`). `generate` fills a key/value
    cache with one pass over the prompt, then computes one new token per step.

    Args:
        backbone: A `Qwen3Backbone`.
        preprocessor: A `Qwen3CausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Qwen3Backbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, head_dim=6, hidden_dim=8, intermediate_dim=16)
        >>> causal_lm = keras_hub.models.Qwen3CausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 5)
    """

    backbone_cls = Qwen3Backbone
    preprocessor_cls = Qwen3CausalLMPreprocessor

    def __init__(self, backbone: Qwen3Backbone, preprocessor: Any = None, **kwargs: Any) -> None:
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
            cache: float `(batch, num_layers, 2, max_length,
                num_key_value_heads, head_dim)`.
            cache_update_index: The position of `token_ids[:, 0]` in the sequence.

        Returns:
            `(logits, hidden_states, cache)`.
        """
        return decoder_causal_lm.call_with_cache(self.backbone, token_ids, cache, cache_update_index)

    def _build_cache(self, token_ids: Any) -> tuple[Any, Any]:
        backbone = self.backbone
        cache = decoder_causal_lm.empty_cache(
            token_ids, backbone.num_layers, backbone.num_key_value_heads, backbone.head_dim, self.compute_dtype
        )
        _, hidden_states, cache = self.call_with_cache(token_ids, cache, 0)
        return hidden_states, cache

    def generate_step(self, inputs: dict[str, Any], stop_token_ids: Any = None) -> dict[str, Any]:
        """Generates one batch (see `CausalLM.generate_step`); compiled by `make_generate_function`."""
        return decoder_causal_lm.generate_with_cache(self, inputs, stop_token_ids)

    def score(
        self,
        token_ids: Any,
        padding_mask: Any = None,
        scoring_mode: str = "logits",
        layer_intercept_fn: Callable[[Any, int], Any] | None = None,
        target_ids: Any = None,
    ) -> tf.Tensor:
        """Scores token sequences: the logits at every position, or the loss of each target token.

        Args:
            token_ids: int `(batch, length)`, such as `generate`'s output
                preprocessed again.
            padding_mask: `(batch, length)` mask of the tokens. Defaults to
                `None` (all ones).
            scoring_mode: `"logits"` (the default) or `"loss"`.
            layer_intercept_fn: Optional `fn(x, i)` applied to the embeddings
                (`i = -1`) and to each block's output (`i = 0, 1, ...`),
                returning the tensor the next layer takes: a hook for
                interpretability. Defaults to `None`.
            target_ids: int `(batch, length)` of the tokens each position
                should predict; required for `"loss"`. Defaults to `None`.

        Returns:
            `(batch, length, vocabulary_size)` logits, or `(batch, length)`
            per-token losses.

        Raises:
            ValueError: If `scoring_mode` is neither `"logits"` nor `"loss"`,
                or it is `"loss"` without `target_ids`.
        """
        return decoder_causal_lm.score(self, token_ids, padding_mask, scoring_mode, layer_intercept_fn, target_ids)
