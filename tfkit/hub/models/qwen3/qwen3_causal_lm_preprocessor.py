"""``Qwen3CausalLMPreprocessor``: Qwen 3's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.qwen3.qwen3_backbone import Qwen3Backbone
from tfkit.hub.models.qwen3.qwen3_tokenizer import Qwen3Tokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3CausalLMPreprocessor(CausalLMPreprocessor):
    """Qwen 3 Causal LM preprocessor: `CausalLMPreprocessor` with a `Qwen3Tokenizer`.

    Strings become `x = {"token_ids", "padding_mask"}` (no start token,
    `<|im_end|>` last, padded with `<|endoftext|>`), `y` (the next token of
    each position) and `sample_weight` (the padding mask of `y`).

    Args:
        tokenizer: A `Qwen3Tokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to add a start token (Qwen 3 has none).
            Defaults to `True`.
        add_end_token: Whether to end with `<|im_end|>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3, "<|im_end|>": 4}
        >>> tokenizer = keras_hub.models.Qwen3Tokenizer(vocabulary=vocab, merges=["a b"])
        >>> preprocessor = keras_hub.models.Qwen3CausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["aba"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[2, 0, 4, 3]], [[0, 4, 3, 3]])
    """

    backbone_cls = Qwen3Backbone
    tokenizer_cls = Qwen3Tokenizer
