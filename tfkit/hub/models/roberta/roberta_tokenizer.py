"""``RobertaTokenizer``: RoBERTa's byte-level byte-pair tokenizer, with ``<s>``, ``</s>``, ``<pad>`` and ``<mask>``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.roberta.roberta_backbone import RobertaBackbone
from tfkit.hub.tokenizers import BytePairTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RobertaTokenizer(BytePairTokenizer):
    """A RoBERTa tokenizer using byte-level byte-pair encoding.

    GPT-2's byte-level BPE (a `BytePairTokenizer`) that requires RoBERTa's
    special tokens in its vocabulary: `<s>` (the start token), `</s>` (the
    end and separator token), `<pad>` (padding) and `<mask>` (the mask
    token), never split when they appear in the text. It reads and writes
    KerasHub's RoBERTa tokenizer assets (`vocabulary.json`, `merges.txt`).

    Args:
        vocabulary: A dict mapping tokens to ids, or the path of a JSON file
            holding one. Defaults to `None` (loaded from a preset).
        merges: A list of merge rules (`"a b"`), or the path of a text file
            with one per line. Defaults to `None` (loaded from a preset).
        **kwargs: `BytePairTokenizer` keyword arguments.

    Raises:
        ValueError: If the vocabulary lacks one of RoBERTa's special tokens.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> pieces = ["a", "Ġ", "f", "o", "x", "Ġf", "ox", "Ġfox"]  # ("Ġ" is a space)
        >>> vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<mask>": 3, **{p: 4 + i for i, p in enumerate(pieces)}}
        >>> merges = ["Ġ f", "o x", "Ġf ox"]
        >>> tokenizer = keras_hub.models.RobertaTokenizer(vocabulary=vocab, merges=merges)
        >>> tokenizer("a fox").numpy().tolist()
        [4, 11]
        >>> tokenizer.start_token_id, tokenizer.end_token_id, tokenizer.pad_token_id, tokenizer.mask_token_id
        (0, 2, 1, 3)
    """

    backbone_cls = RobertaBackbone

    def __init__(self, vocabulary: Any = None, merges: Any = None, **kwargs: Any) -> None:
        self._add_special_token("<s>", "start_token")
        self._add_special_token("</s>", "end_token")
        self._add_special_token("<pad>", "pad_token")
        self._add_special_token("<mask>", "mask_token")
        super().__init__(vocabulary=vocabulary, merges=merges, **kwargs)
