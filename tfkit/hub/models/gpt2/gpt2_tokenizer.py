"""``GPT2Tokenizer``: GPT-2's byte-level byte-pair tokenizer, ``<|endoftext|>`` its start, end and padding token."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.gpt2.gpt2_backbone import GPT2Backbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GPT2Tokenizer(BytePairTokenizer):
    """A GPT-2 tokenizer using byte-level byte-pair encoding.

    `<|endoftext|>` is the start, end and padding token (the padding id is
    0, as in KerasHub). It reads and writes KerasHub's GPT-2 tokenizer assets
    (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<|endoftext|>": 0, "a": 1, "b": 2, "ab": 3}
        >>> tokenizer = keras_hub.models.GPT2Tokenizer(vocabulary=vocab, merges=["a b"])
        >>> tokenizer("ab").numpy().tolist()
        [3]
    """

    backbone_cls = GPT2Backbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<|endoftext|>", "end_token")
        self._add_special_token("<|endoftext|>", "start_token")
        self.pad_token_id = 0
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)
