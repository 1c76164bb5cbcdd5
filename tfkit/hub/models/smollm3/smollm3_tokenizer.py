"""``SmolLM3Tokenizer``: SmolLM3's byte-level byte-pair tokenizer, ``<|end_of_text|>`` its end token, no start token."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.smollm3.smollm3_backbone import SmolLM3Backbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SmolLM3Tokenizer(BytePairTokenizer):
    """Tokenizer for SmolLM3 models.

    A `BytePairTokenizer` (byte-level BPE) with SmolLM3's special tokens, as
    in KerasHub: `<|end_of_text|>` ends a sequence, `<|begin_of_text|>`
    (`bos_token`), `<think>` and `</think>` are kept whole, there is no start
    token and id `0` pads. It reads and writes KerasHub's assets
    (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments, such as
            `unsplittable_tokens`.

    Raises:
        ValueError: If the vocabulary lacks one of the four special tokens.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"a": 0, "b": 1, "ab": 2, "<|end_of_text|>": 3, "<|begin_of_text|>": 4, "<think>": 5,
        ...     "</think>": 6}
        >>> tokenizer = keras_hub.models.SmolLM3Tokenizer(vocabulary=vocab, merges=["a b"])
        >>> tokenizer("ab<think><|end_of_text|>").numpy().tolist(), tokenizer.end_token_id, tokenizer.pad_token_id
        ([2, 5, 3], 3, 0)
    """

    backbone_cls = SmolLM3Backbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<|end_of_text|>", "end_token")
        self._add_special_token("<|begin_of_text|>", "bos_token")
        self._add_special_token("<think>", "start_think_token")
        self._add_special_token("</think>", "end_think_token")
        self.start_token_id = None
        self.start_token = None
        self.pad_token_id = 0
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)


SmolLMTokenizer = SmolLM3Tokenizer  # KerasHub's other name of the class
