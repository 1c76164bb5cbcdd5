"""``Qwen3TextEmbedderPreprocessor``: Qwen 3's sentence embedding preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.qwen3.qwen3_backbone import Qwen3Backbone
from tfkit.hub.models.qwen3.qwen3_tokenizer import Qwen3Tokenizer
from tfkit.hub.models.text_embedder_preprocessor import TextEmbedderPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3TextEmbedderPreprocessor(TextEmbedderPreprocessor):
    """A Qwen 3 preprocessing layer which tokenizes and packs inputs for sentence embedding.

    `TextEmbedderPreprocessor` with a `Qwen3Tokenizer`: no start token
    (Qwen 3 has none), each segment ended by `<|im_end|>`, padded with
    `<|endoftext|>`; the output is `{"token_ids", "padding_mask"}`, with `y`
    and `sample_weight` passed through.

    Args:
        tokenizer: A `Qwen3Tokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `256`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3, "<|im_end|>": 4}
        >>> tokenizer = keras_hub.models.Qwen3Tokenizer(vocabulary=vocab, merges=["a b"])
        >>> preprocessor = keras_hub.models.Qwen3TextEmbedderPreprocessor(tokenizer, sequence_length=5)
        >>> x = preprocessor(["aba"])
        >>> x["token_ids"].numpy().tolist(), x["padding_mask"].numpy().tolist()
        ([[2, 0, 4, 3, 3]], [[True, True, True, False, False]])
    """

    backbone_cls = Qwen3Backbone
    tokenizer_cls = Qwen3Tokenizer

    input_keys = ("token_ids", "padding_mask")
