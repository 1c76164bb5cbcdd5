"""``BloomCausalLM``: Bloom with its tied-embedding language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from typing import Any, ClassVar

from tfkit.hub.models.bloom.bloom_backbone import BloomBackbone
from tfkit.hub.models.bloom.bloom_causal_lm_preprocessor import BloomCausalLMPreprocessor
from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM, unchanged
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BloomCausalLM(DecoderCausalLM):
    """An end-to-end Bloom model for causal language modeling.

    The backbone's hidden states times the transposed token embedding give
    the logits of the next token. `generate` fills a key/value cache with one
    pass over the prompt, then computes one new token per step (ALiBi needs
    no position but the cache's).

    Args:
        backbone: A `BloomBackbone`.
        preprocessor: A `BloomCausalLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.BloomBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16)
        >>> causal_lm = keras_hub.models.BloomCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 4)
    """

    backbone_cls = BloomBackbone
    preprocessor_cls = BloomCausalLMPreprocessor
    block_arguments: ClassVar[dict[str, str]] = {
        "cache": "cache",
        "cache_update_index": "cache_update_index",
        "padding_mask": "decoder_padding_mask",
    }

    def embed(self, token_ids: Any, start_index: Any = 0, intercept: Any = unchanged) -> Any:
        """The token embeddings through the embedding layer norm (positions enter as ALiBi biases).

        Args:
            token_ids: int `(batch, length)`.
            start_index: The position of `token_ids[:, 0]` (unused here).
                Defaults to `0`.
            intercept: `score`'s `layer_intercept_fn` (index `-1`), applied to
                the normalized embeddings. Defaults to the identity.

        Returns:
            `(batch, length, hidden_dim)` embeddings.
        """
        backbone = self.backbone
        return intercept(backbone.embeddings_layer_norm(backbone.token_embedding(token_ids)), -1)

    def key_value_heads(self) -> tuple[int, int]:
        """The cache's `(num_heads, hidden_dim // num_heads)`: one key/value head per query head.

        Returns:
            Two Python ints.
        """
        return self.backbone.num_heads, self.backbone.hidden_dim // self.backbone.num_heads
