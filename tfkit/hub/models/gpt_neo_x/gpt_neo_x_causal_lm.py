"""``GPTNeoXCausalLM``: GPT-NeoX with its tied-embedding language modeling head, ``generate`` with a cache."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM, unchanged
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_backbone import GPTNeoXBackbone
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_causal_lm_preprocessor import GPTNeoXCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GPTNeoXCausalLM(DecoderCausalLM):
    """An end-to-end GPT-NeoX model for causal language modeling.

    The backbone's hidden states times the transposed token embedding give
    the logits of the next token. `generate` fills a key/value cache (of
    rotated keys) with one pass over the prompt, then computes one new token
    per step at its position. KerasHub 0.32's `GPTNeoXCausalLM` rotates each
    decoding step's query and the whole cache from position 0 instead, so its
    generated ids can differ from this model's, which are those of the
    uncached forward pass (`gpt_neo_x_attention`).

    Args:
        backbone: A `GPTNeoXBackbone`.
        preprocessor: A `GPTNeoXCausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.GPTNeoXBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=16, intermediate_dim=16, max_sequence_length=12)
        >>> causal_lm = keras_hub.models.GPTNeoXCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 4)
    """

    backbone_cls = GPTNeoXBackbone
    preprocessor_cls = GPTNeoXCausalLMPreprocessor

    def embed(self, token_ids: Any, start_index: Any = 0, intercept: Any = unchanged) -> Any:
        """The token embeddings through the embedding dropout (positions enter in the attention).

        Args:
            token_ids: int `(batch, length)`.
            start_index: The position of `token_ids[:, 0]` (unused here).
                Defaults to `0`.
            intercept: `score`'s `layer_intercept_fn` (index `-1`), applied to
                the embeddings. Defaults to the identity.

        Returns:
            `(batch, length, hidden_dim)` embeddings.
        """
        backbone = self.backbone
        return intercept(backbone.embeddings_dropout(backbone.token_embedding(token_ids)), -1)

    def key_value_heads(self) -> tuple[int, int]:
        """The cache's `(num_heads, hidden_dim // num_heads)`: one key/value head per query head.

        Returns:
            Two Python ints.
        """
        return self.backbone.num_heads, self.backbone.hidden_dim // self.backbone.num_heads
