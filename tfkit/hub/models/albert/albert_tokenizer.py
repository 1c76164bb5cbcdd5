"""``AlbertTokenizer``: ALBERT's SentencePiece tokenizer, with ``[CLS]``, ``[SEP]``, ``<pad>`` and ``[MASK]``."""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.albert.albert_backbone import AlbertBackbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class AlbertTokenizer(SentencePieceTokenizer):
    """An ALBERT tokenizer using SentencePiece subword segmentation.

    A `SentencePieceTokenizer` that requires ALBERT's special tokens in its
    model: `[CLS]` (the start token, `cls_token`), `[SEP]` (the end and
    separator token, `sep_token`), `<pad>` (`pad_token`) and `[MASK]`
    (`mask_token`). It reads and writes KerasHub's asset
    (`vocabulary.spm`), and a Hugging Face checkpoint's `spiece.model`. As
    KerasHub's, it tokenizes with the model alone: the lowercasing that
    Transformers' `AlbertTokenizer` does in Python first is not done.

    Args:
        proto: The SentencePiece model: a file path, or the serialized model
            as `bytes`. Defaults to `None` (loaded from a preset).
        **kwargs: `SentencePieceTokenizer` keyword arguments, such as
            `sequence_length`.

    Raises:
        ValueError: If the model lacks one of ALBERT's special tokens.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=11, model_type="word", pad_id=0, unk_id=1, bos_id=2, eos_id=3, pad_piece="<pad>",
        ...     unk_piece="<unk>", bos_piece="[CLS]", eos_piece="[SEP]", user_defined_symbols="[MASK]",
        ...     minloglevel=2)
        >>> tokenizer = keras_hub.models.AlbertTokenizer(proto=model.getvalue())
        >>> tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id, tokenizer.mask_token_id
        (2, 3, 0, 4)
        >>> tokenizer.detokenize(tokenizer(["the lazy fox"]))
        ['the lazy fox']
    """

    backbone_cls = AlbertBackbone

    def __init__(self, proto: Any = None, **kwargs: Any) -> None:
        self._add_special_token("[CLS]", "cls_token")
        self._add_special_token("[SEP]", "sep_token")
        self._add_special_token("<pad>", "pad_token")
        self._add_special_token("[MASK]", "mask_token")
        self._add_special_token("[CLS]", "start_token")
        self._add_special_token("[SEP]", "end_token")
        super().__init__(proto=proto, **kwargs)
