"""``Qwen3MoeCausalLMPreprocessor``: Qwen 3 MoE's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.qwen3_moe.qwen3_moe_backbone import Qwen3MoeBackbone
from tfkit.hub.models.qwen3_moe.qwen3_moe_tokenizer import Qwen3MoeTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3MoeCausalLMPreprocessor(CausalLMPreprocessor):
    """Qwen 3 MoE Causal LM preprocessor: `CausalLMPreprocessor` with a `Qwen3MoeTokenizer`.

    Strings become `x = {"token_ids", "padding_mask"}` (no start token,
    `<|im_end|>` last, padded with `<|endoftext|>`), `y` (the next token of
    each position) and `sample_weight` (the padding mask of `y`).

    Args:
        tokenizer: A `Qwen3MoeTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to add a start token (Qwen 3 MoE has none).
            Defaults to `True`.
        add_end_token: Whether to end with `<|im_end|>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3, "<|im_end|>": 4}
        >>> tokenizer = keras_hub.models.Qwen3MoeTokenizer(vocabulary=vocab, merges=["a b"])
        >>> preprocessor = keras_hub.models.Qwen3MoeCausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["aba"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[2, 0, 4, 3]], [[0, 4, 3, 3]])
    """

    backbone_cls = Qwen3MoeBackbone
    tokenizer_cls = Qwen3MoeTokenizer
