"""``BloomTokenizer``: Bloom's byte-level byte-pair tokenizer (``<s>`` start, ``</s>`` end, ``<pad>`` padding)."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.bloom.bloom_backbone import BloomBackbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BloomTokenizer(BytePairTokenizer):
    """A Bloom tokenizer using byte-level byte-pair encoding.

    `<s>` is the start token, `</s>` the end token and `<pad>` the padding
    token, as in KerasHub; all three must be in the vocabulary. It reads and
    writes KerasHub's tokenizer assets (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<pad>": 3, "a": 4, "b": 5, "ab": 6}
        >>> tokenizer = keras_hub.models.BloomTokenizer(vocabulary=vocab, merges=["a b"])
        >>> tokenizer("ab").numpy().tolist(), tokenizer.start_token_id, tokenizer.end_token_id
        ([6], 1, 2)
    """

    backbone_cls = BloomBackbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<s>", "start_token")
        self._add_special_token("</s>", "end_token")
        self._add_special_token("<pad>", "pad_token")
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)
