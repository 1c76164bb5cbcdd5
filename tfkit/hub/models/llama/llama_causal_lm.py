"""``LlamaCausalLM``: Llama with its language modeling head, ``generate`` with a grouped key/value cache, ``score``.

causal_lm = LlamaCausalLM(backbone, preprocessor)
causal_lm.generate("The quick brown fox", max_length=32)
logits = causal_lm.score(token_ids, padding_mask)                    # per-token logits (or losses)
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.hub.models import decoder_causal_lm
from tfkit.hub.models.causal_lm import CausalLM
from tfkit.hub.models.llama.llama_backbone import LlamaBackbone
from tfkit.hub.models.llama.llama_causal_lm_preprocessor import LlamaCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class LlamaCausalLM(CausalLM):
    """An end-to-end Llama model for causal language modeling.

    The backbone's hidden states go through the token embedding's reverse
    projection to next-token logits. `fit` trains on raw strings through the
    preprocessor; `generate` fills a key/value cache (only the key/value
    heads: `(batch, num_layers, 2, length, num_key_value_heads, head_dim)`)
    with one pass over the prompt, then computes one token per step, with
    the sampler chosen in `compile`.

    Args:
        backbone: A `LlamaBackbone`.
        preprocessor: A `LlamaCausalLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.LlamaBackbone(vocabulary_size=10, num_layers=1, num_query_heads=4,
        ...     hidden_dim=8, intermediate_dim=16, num_key_value_heads=2)
        >>> causal_lm = keras_hub.models.LlamaCausalLM(backbone)
        >>> causal_lm.score(np.array([[1, 2, 3]])).shape
        TensorShape([1, 3, 10])
        >>> causal_lm.score(np.array([[1, 2, 3]]), scoring_mode="loss", target_ids=np.array([[2, 3, 0]])).shape
        TensorShape([1, 3])
    """

    backbone_cls = LlamaBackbone
    preprocessor_cls = LlamaCausalLMPreprocessor

    def __init__(self, backbone: LlamaBackbone, preprocessor: Any = None, **kwargs: Any) -> None:
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
            cache_update_index: The position of `token_ids[:, 0]` in the
                sequence.

        Returns:
            `(logits, hidden_states, cache)`.
        """
        return decoder_causal_lm.call_with_cache(self.backbone, token_ids, cache, cache_update_index)

    def _build_cache(self, token_ids: Any) -> tuple[Any, Any]:
        """An empty cache the length of `token_ids`, filled by one pass over them: `(hidden_states, cache)`."""
        backbone = self.backbone
        head_dim = backbone.hidden_dim // backbone.num_query_heads
        cache = decoder_causal_lm.empty_cache(
            token_ids, backbone.num_layers, backbone.num_key_value_heads, head_dim, self.compute_dtype
        )
        _, hidden_states, cache = self.call_with_cache(token_ids, cache, 0)
        return hidden_states, cache

    def generate_step(self, inputs: dict[str, Any], stop_token_ids: Any = None) -> dict[str, Any]:
        """Generates one batch (see `CausalLM.generate_step`); compiled by `make_generate_function`.

        Args:
            inputs: `{"token_ids", "padding_mask"}`, padded to the length to
                generate.
            stop_token_ids: Token ids that end a row, or `None`.

        Returns:
            `{"token_ids", "padding_mask"}`: the completed rows and the mask
            of their tokens up to each row's first stop token.
        """
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
