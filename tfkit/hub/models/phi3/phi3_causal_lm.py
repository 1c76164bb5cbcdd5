"""``Phi3CausalLM``: Phi-3 with its language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.phi3.phi3_backbone import Phi3Backbone
from tfkit.hub.models.phi3.phi3_causal_lm_preprocessor import Phi3CausalLMPreprocessor
from tfkit.saving import register_keras_serializable

END_OF_TURN_TOKEN = "<|end|>"


@register_keras_serializable(package="keras_hub")
class Phi3CausalLM(DecoderCausalLM):
    """An end-to-end Phi3 model for causal language modeling.

    The backbone's hidden states times the output embedding give the logits
    of the next token. `generate` fills a key/value cache with one pass over
    the prompt, then computes one new token per step with the sampler chosen
    in `compile` (`"top_k"` by default); `stop_token_ids="auto"` stops at
    `<|endoftext|>` and, where the vocabulary has it, `<|end|>` (the end of a
    chat turn), as KerasHub.

    With `rope_scaling_type="su"` the rotary factors depend on how far each
    pass reaches (the long ones once it passes the pretraining length), so
    the prompt pass covers the whole padded batch and the first token comes
    from a decoding step, as in KerasHub: the generated ids are KerasHub's.

    Args:
        backbone: A `Phi3Backbone`.
        preprocessor: A `Phi3CausalLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Phi3Backbone(vocabulary_size=10, num_layers=1, hidden_dim=8,
        ...     intermediate_dim=16, num_query_heads=2, num_key_value_heads=1)
        >>> causal_lm = keras_hub.models.Phi3CausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 5)
    """

    backbone_cls = Phi3Backbone
    preprocessor_cls = Phi3CausalLMPreprocessor
    block_arguments = {
        "cache": "attention_cache",
        "cache_update_index": "attention_cache_update_index",
        "padding_mask": "decoder_padding_mask",
    }

    @property
    def prefill_buckets(self) -> bool:  # type: ignore[override]
        """Whether the prompt pass may stop short of the padded length: not with the long-rope scaling."""
        return self.backbone.rope_scaling_type is None

    @property
    def first_logits_from_prompt_pass(self) -> bool:  # type: ignore[override]
        """Whether the first token may come from the prompt pass: not with the long-rope scaling."""
        return self.backbone.rope_scaling_type is None

    def _stop_token_ids(self, stop_token_ids: Any) -> Any:
        """`"auto"` is `<|endoftext|>`, and `<|end|>` where the vocabulary has it (KerasHub's rule)."""
        if isinstance(stop_token_ids, str) and stop_token_ids == "auto" and self.preprocessor is not None:
            tokenizer = self.preprocessor.tokenizer
            end_of_turn = tokenizer.token_to_id(END_OF_TURN_TOKEN)
            return (tokenizer.end_token_id,) + ((end_of_turn,) if end_of_turn != 0 else ())
        return super()._stop_token_ids(stop_token_ids)
