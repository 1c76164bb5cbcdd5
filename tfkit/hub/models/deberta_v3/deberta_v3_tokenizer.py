"""``DebertaV3Tokenizer``: DeBERTa-v3's SentencePiece tokenizer, with ``[CLS]``, ``[SEP]``, ``[PAD]`` and a
``[MASK]`` that may lie past the model's pieces.

    tokenizer = DebertaV3Tokenizer(proto="spm.model")     # DeBERTa-v3's model has no [MASK]: it gets the next id
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.models.deberta_v3.deberta_v3_backbone import DebertaV3Backbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable

MASK = "[MASK]"


class WithoutMaskIds(tf.Module):
    """A SentencePiece model whose detokenizing leaves out `[MASK]` (an id the model may not have).

    Args:
        model: The `tensorflow_text.SentencepieceTokenizer`.
        mask_token_id: The id of `[MASK]`.
    """

    def __init__(self, model: Any, mask_token_id: int) -> None:
        super().__init__(name="without_mask_ids")
        self.model = model
        self.mask_token_id = mask_token_id

    def tokenize(self, text: tf.Tensor) -> tf.RaggedTensor:
        """The model's pieces of `text`."""
        return self.model.tokenize(text)

    def detokenize(self, ids: tf.RaggedTensor) -> tf.Tensor:
        """The text of `ids` less `[MASK]`, as KerasHub's tokenizer gives it."""
        return self.model.detokenize(tf.ragged.boolean_mask(ids, tf.not_equal(ids, self.mask_token_id)))


@register_keras_serializable(package="keras_hub")
class DebertaV3Tokenizer(SentencePieceTokenizer):
    """DeBERTa tokenizer layer based on SentencePiece.

    A `SentencePieceTokenizer` that requires DeBERTa's special pieces in its
    model: `[CLS]` (the start token, `cls_token`), `[SEP]` (the end and
    separator token, `sep_token`) and `[PAD]` (`pad_token`). `[MASK]` is the
    model's piece when it has one; otherwise (DeBERTa-v3's own model) it
    gets the id after the last piece, and the vocabulary grows by one, as in
    KerasHub. Detokenizing leaves `[MASK]` out. It reads and writes KerasHub's
    asset (`vocabulary.spm`).

    Args:
        proto: The SentencePiece model: a file path, or the serialized model
            as `bytes`. `None` leaves it to be loaded from a preset.
        **kwargs: `SentencePieceTokenizer` keyword arguments, such as
            `sequence_length`.

    Raises:
        ValueError: If the model lacks `[CLS]`, `[SEP]` or `[PAD]`.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]",
        ...     bos_piece="[CLS]", eos_piece="[SEP]", unk_piece="[UNK]", minloglevel=2)
        >>> tokenizer = keras_hub.models.DebertaV3Tokenizer(proto=model.getvalue())
        >>> tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id, tokenizer.mask_token_id
        (1, 2, 0, 10)
        >>> tokenizer.vocabulary_size(), tokenizer.id_to_token(10)
        (11, '[MASK]')
        >>> tokenizer.detokenize([[4, 10, 5]])  # [MASK] (10) leaves no text
        ['the brown']
    """

    backbone_cls = DebertaV3Backbone

    def __init__(self, proto: Any, **kwargs: Any) -> None:
        self._add_special_token("[CLS]", "cls_token")
        self._add_special_token("[SEP]", "sep_token")
        self._add_special_token("[PAD]", "pad_token")
        self._add_special_token("[CLS]", "start_token")
        self._add_special_token("[SEP]", "end_token")
        self._add_special_token(MASK, "mask_token")
        super().__init__(proto=proto, **kwargs)

    def set_proto(self, proto: Any) -> None:
        """Sets the SentencePiece model (a file path, bytes, or `None`), with `[MASK]` after it if it has none.

        Args:
            proto: The model.

        Raises:
            ValueError: If it is not a SentencePiece model, or lacks one of
                DeBERTa's special pieces.
        """
        object.__setattr__(self, "_mask_tables", None)
        super().set_proto(proto)
        if proto is None:
            return
        self._sentence_piece = WithoutMaskIds(self._sentence_piece, self.mask_token_id)

    def _vocabulary_tables(self) -> tuple[Any, Any, dict[str, int]] | None:
        tables = super()._vocabulary_tables()
        if tables is None or MASK in tables[2]:
            return tables
        if self.__dict__.get("_mask_tables") is None:
            pieces = list(tables[0]) + [MASK]
            object.__setattr__(self, "_mask_tables", (pieces, pieces, {**tables[2], MASK: len(pieces) - 1}))
        return self._mask_tables
