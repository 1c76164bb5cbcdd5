"""``GptOssTokenizer``: GPT-OSS's byte-level byte-pair tokenizer, ``<|endoftext|>`` its end token, no start token."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.gpt_oss.gpt_oss_backbone import GptOssBackbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GptOssTokenizer(BytePairTokenizer):
    """A GPT-OSS tokenizer using byte-level byte-pair encoding.

    `<|endoftext|>` is the end token; there is no start token and the
    padding id is 0, as in KerasHub. It reads and writes KerasHub's
    tokenizer assets (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<|endoftext|>": 0, "a": 1, "b": 2, "ab": 3}
        >>> tokenizer = keras_hub.models.GptOssTokenizer(vocabulary=vocab, merges=["a b"])
        >>> tokenizer("ab").numpy().tolist(), tokenizer.end_token_id, tokenizer.start_token_id
        ([3], 0, None)
    """

    backbone_cls = GptOssBackbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self.start_token_id = None
        self._add_special_token("<|endoftext|>", "end_token")
        self.pad_token_id = 0
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)
