"""``OPTCausalLM``: OPT with its tied-embedding language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM, unchanged
from tfkit.hub.models.opt.opt_backbone import OPTBackbone
from tfkit.hub.models.opt.opt_causal_lm_preprocessor import OPTCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class OPTCausalLM(DecoderCausalLM):
    """An end-to-end OPT model for causal language modeling.

    The backbone's hidden states times the transposed token embedding give
    the logits of the next token. `generate` fills a key/value cache with one
    pass over the prompt, then computes one new token per step.

    Args:
        backbone: An `OPTBackbone`.
        preprocessor: An `OPTCausalLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.OPTBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> causal_lm = keras_hub.models.OPTCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 4)
    """

    backbone_cls = OPTBackbone
    preprocessor_cls = OPTCausalLMPreprocessor

    def embed(self, token_ids: Any, start_index: Any = 0, intercept: Any = unchanged) -> Any:
        """Token plus position embeddings, positions from `start_index` (the backbone's `embeddings` layer).

        Args:
            token_ids: int `(batch, length)`.
            start_index: The position of `token_ids[:, 0]`. Defaults to `0`.
            intercept: `score`'s `layer_intercept_fn` (index `-1`), applied to
                the summed embeddings. Defaults to the identity.

        Returns:
            `(batch, length, hidden_dim)` embeddings.
        """
        return intercept(self.backbone.embeddings(token_ids, start_index=start_index), -1)

    def key_value_heads(self) -> tuple[int, int]:
        """The cache's `(num_heads, hidden_dim // num_heads)`: OPT has one key/value head per query head.

        Returns:
            Two Python ints.
        """
        return self.backbone.num_heads, self.backbone.hidden_dim // self.backbone.num_heads
