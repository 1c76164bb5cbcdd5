"""``ElectraTokenizer``: ELECTRA's WordPiece tokenizer, with ``[CLS]``, ``[SEP]``, ``[PAD]`` and ``[MASK]``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.electra.electra_backbone import ElectraBackbone
from tfkit.hub.tokenizers import WordPieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class ElectraTokenizer(WordPieceTokenizer):
    """An ELECTRA tokenizer using WordPiece subword segmentation.

    A `WordPieceTokenizer` that requires ELECTRA's (BERT's) special tokens
    in its vocabulary: `[CLS]` (the start token, `cls_token`), `[SEP]` (the
    end and separator token, `sep_token`), `[PAD]` (`pad_token`) and
    `[MASK]` (`mask_token`), and reads and writes KerasHub's ELECTRA
    tokenizer asset (`vocabulary.txt`). A batch of strings gives ragged ids,
    a single string one dense sequence.

    Args:
        vocabulary: A list of token strings (the id of each is its
            position), or the path of a text file with one token a line.
            Defaults to `None` (loaded from a preset).
        lowercase: Whether to lowercase the input first. Defaults to
            `False`.
        **kwargs: `WordPieceTokenizer` keyword arguments, such as
            `special_tokens_in_strings`.

    Raises:
        ValueError: If the vocabulary lacks one of ELECTRA's special tokens.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]", "the", "quick", "fox", "."]
        >>> tokenizer = keras_hub.models.ElectraTokenizer(vocabulary=vocab, lowercase=True)
        >>> tokenizer("The quick fox.").numpy().tolist()
        [5, 6, 7, 8]
        >>> tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id, tokenizer.mask_token_id
        (1, 2, 3, 4)
    """

    backbone_cls = ElectraBackbone

    def __init__(self, vocabulary: Any = None, lowercase: bool = False, **kwargs: Any) -> None:
        self._add_special_token("[CLS]", "cls_token")
        self._add_special_token("[SEP]", "sep_token")
        self._add_special_token("[PAD]", "pad_token")
        self._add_special_token("[MASK]", "mask_token")
        self._add_special_token("[CLS]", "start_token")
        self._add_special_token("[SEP]", "end_token")
        super().__init__(vocabulary=vocabulary, lowercase=lowercase, **kwargs)
