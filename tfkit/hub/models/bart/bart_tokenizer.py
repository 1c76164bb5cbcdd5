"""``BartTokenizer``: BART's byte-level byte-pair tokenizer (RoBERTa's), with ``<s>``, ``</s>`` and ``<pad>``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.bart.bart_backbone import BartBackbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BartTokenizer(BytePairTokenizer):
    """A BART tokenizer using byte-level byte-pair encoding.

    GPT-2's byte-level BPE (a `BytePairTokenizer`) that requires BART's
    special tokens in its vocabulary: `<s>` (the start token), `</s>` (the
    end token) and `<pad>` (padding), never split when they appear in the
    text. It reads and writes KerasHub's BART tokenizer assets
    (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments.

    Raises:
        ValueError: If the vocabulary lacks one of BART's special tokens.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> pieces = ["a", "Ġ", "f", "o", "x", "Ġf", "ox", "Ġfox"]  # ("Ġ" is a space)
        >>> vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<mask>": 3, **{p: 4 + i for i, p in enumerate(pieces)}}
        >>> tokenizer = keras_hub.models.BartTokenizer(vocabulary=vocab, merges=["Ġ f", "o x", "Ġf ox"])
        >>> tokenizer("a fox").numpy().tolist()
        [4, 11]
        >>> tokenizer.start_token_id, tokenizer.end_token_id, tokenizer.pad_token_id
        (0, 2, 1)
    """

    backbone_cls = BartBackbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<s>", "start_token")
        self._add_special_token("</s>", "end_token")
        self._add_special_token("<pad>", "pad_token")
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)
