"""``QwenMoeCausalLMPreprocessor``: Qwen's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.qwen_moe.qwen_moe_backbone import QwenMoeBackbone
from tfkit.hub.models.qwen_moe.qwen_moe_tokenizer import QwenMoeTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenMoeCausalLMPreprocessor(CausalLMPreprocessor):
    """Qwen Causal LM preprocessor: `CausalLMPreprocessor` with a `QwenMoeTokenizer`.

    Strings become `x = {"token_ids", "padding_mask"}` (no start token,
    `<|endoftext|>` last, padded with 0), `y` (the next token of each
    position) and `sample_weight` (the padding mask of `y`).

    Args:
        tokenizer: A `QwenMoeTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to add a start token (Qwen has none).
            Defaults to `True`.
        add_end_token: Whether to end with `<|endoftext|>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<pad>": 0, "a": 1, "b": 2, "ab": 3, "<|endoftext|>": 4}
        >>> tokenizer = keras_hub.models.QwenMoeTokenizer(vocabulary=vocab, merges=["a b"])
        >>> preprocessor = keras_hub.models.QwenMoeCausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["aba"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[3, 1, 4, 0]], [[1, 4, 0, 0]])
    """

    backbone_cls = QwenMoeBackbone
    tokenizer_cls = QwenMoeTokenizer
