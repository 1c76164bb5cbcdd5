"""``SmolLM3CausalLMPreprocessor``: SmolLM3's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.smollm3.smollm3_backbone import SmolLM3Backbone
from tfkit.hub.models.smollm3.smollm3_tokenizer import SmolLM3Tokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SmolLM3CausalLMPreprocessor(CausalLMPreprocessor):
    """SmolLM3 Causal LM preprocessor: `CausalLMPreprocessor` with a `SmolLM3Tokenizer`.

    Strings become `x = {"token_ids", "padding_mask"}` (no start token,
    `<|end_of_text|>` last, padded with id 0), `y` (the next token of each
    position) and `sample_weight` (the padding mask of `y`).

    Args:
        tokenizer: A `SmolLM3Tokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to add a start token (SmolLM3 has none).
            Defaults to `True`.
        add_end_token: Whether to end with `<|end_of_text|>`. Defaults to
            `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<pad>": 0, "a": 1, "b": 2, "ab": 3, "<|end_of_text|>": 4, "<|begin_of_text|>": 5,
        ...     "<think>": 6, "</think>": 7}
        >>> tokenizer = keras_hub.models.SmolLM3Tokenizer(vocabulary=vocab, merges=["a b"])
        >>> preprocessor = keras_hub.models.SmolLM3CausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["aba"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[3, 1, 4, 0]], [[1, 4, 0, 0]])
    """

    backbone_cls = SmolLM3Backbone
    tokenizer_cls = SmolLM3Tokenizer


SmolLMCausalLMPreprocessor = SmolLM3CausalLMPreprocessor  # KerasHub's other name of the class
