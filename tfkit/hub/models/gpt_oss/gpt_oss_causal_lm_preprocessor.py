"""``GptOssCausalLMPreprocessor``: GPT-OSS's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.gpt_oss.gpt_oss_backbone import GptOssBackbone
from tfkit.hub.models.gpt_oss.gpt_oss_tokenizer import GptOssTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GptOssCausalLMPreprocessor(CausalLMPreprocessor):
    """GPT-OSS Causal LM preprocessor: `CausalLMPreprocessor` with a `GptOssTokenizer`.

    Strings become `x = {"token_ids", "padding_mask"}` (no start token,
    `<|endoftext|>` last, padded with 0), `y` (the next token of each
    position) and `sample_weight` (the padding mask of `y`).

    Args:
        tokenizer: A `GptOssTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with the start token (GPT-OSS has
            none). Defaults to `True`.
        add_end_token: Whether to end with `<|endoftext|>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<|endoftext|>": 0, "a": 1, "b": 2, "ab": 3}
        >>> tokenizer = keras_hub.models.GptOssTokenizer(vocabulary=vocab, merges=["a b"])
        >>> preprocessor = keras_hub.models.GptOssCausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["ab"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[3, 0, 0, 0]], [[0, 0, 0, 0]])
    """

    backbone_cls = GptOssBackbone
    tokenizer_cls = GptOssTokenizer
