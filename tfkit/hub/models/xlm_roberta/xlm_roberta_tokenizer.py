"""``XLMRobertaTokenizer``: XLM-RoBERTa's SentencePiece tokenizer, with fairseq's ids around the model's.

tokenizer = XLMRobertaTokenizer(proto="sentencepiece.bpe.model")
tokenizer("the quick fox")       # each piece's SentencePiece id + 1; <s> 0, <pad> 1, </s> 2, <unk> 3, <mask> last

XLM-RoBERTa was trained by fairseq, whose dictionary puts ``<s> <pad> </s> <unk>`` first and then the
SentencePiece model's pieces from its fourth on, so a piece's id is its SentencePiece id plus one (the model's
own ``<unk>``, id 0, becomes 3), and ``<mask>`` comes last: the vocabulary is the model's size plus two.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.models.xlm_roberta.xlm_roberta_backbone import XLMRobertaBackbone
from tfkit.hub.tokenizers import SentencePieceTokenizer
from tfkit.saving import register_keras_serializable

FAIRSEQ_SPECIAL_TOKENS = ["<s>", "<pad>", "</s>", "<unk>"]


class FairseqIds(tf.Module):
    """A SentencePiece model whose ids are fairseq's: what `XLMRobertaTokenizer` tokenizes and detokenizes with.

    Args:
        model: The `tensorflow_text.SentencepieceTokenizer`.
        mask_token_id: The id of `<mask>` (the last), which detokenizes to
            nothing.
    """

    def __init__(self, model: Any, mask_token_id: int) -> None:
        super().__init__(name="fairseq_ids")
        self.model = model
        self.mask_token_id = mask_token_id

    def tokenize(self, text: tf.Tensor) -> tf.RaggedTensor:
        """The model's pieces of `text`, their ids shifted by one (its unknown piece's to fairseq's `<unk>`)."""
        ids = self.model.tokenize(text)
        if ids.dtype == tf.string:
            return ids
        unknown = tf.constant(FAIRSEQ_SPECIAL_TOKENS.index("<unk>"), ids.dtype)
        return tf.ragged.map_flat_values(lambda values: tf.where(values == 0, unknown, values + 1), ids)

    def detokenize(self, ids: tf.RaggedTensor) -> tf.Tensor:
        """The text of fairseq ids, as KerasHub's tokenizer gives it: `<mask>` dropped, `<unk>` the model's
        unknown piece, `<s>` and `</s>` the model's (which give no text), the pieces shifted back."""
        ids = tf.ragged.boolean_mask(ids, tf.not_equal(ids, self.mask_token_id))

        def model_ids(values: tf.Tensor) -> tf.Tensor:
            values = values - 1
            values = tf.where(values == 2, tf.zeros_like(values), values)  # <unk>
            values = tf.where(values == 1, tf.fill(tf.shape(values), 2), values)  # </s>
            return tf.where(values == -1, tf.ones_like(values), values)  # <s>

        return self.model.detokenize(tf.ragged.map_flat_values(model_ids, ids))


@register_keras_serializable(package="keras_hub")
class XLMRobertaTokenizer(SentencePieceTokenizer):
    """An XLM-RoBERTa tokenizer using SentencePiece subword segmentation.

    A `SentencePieceTokenizer` with fairseq's ids, as XLM-RoBERTa was
    trained: `<s>` 0 (the start token), `<pad>` 1, `</s>` 2 (the end and
    separator token), `<unk>` 3, then the SentencePiece model's pieces from
    its fourth on, each at its model id plus one, and `<mask>` last. The
    model must have its unknown piece at id 0 and its start and end pieces
    at 1 and 2, as XLM-RoBERTa's `sentencepiece.bpe.model` has. It reads and
    writes KerasHub's XLM-RoBERTa tokenizer asset (`vocabulary.spm`).

    Args:
        proto: The SentencePiece model: a file path, or the serialized model
            as `bytes`. `None` leaves it to be loaded from a preset.
        **kwargs: `SentencePieceTokenizer` keyword arguments, such as
            `sequence_length`.

    Raises:
        ValueError: If the model's unknown piece is not its id 0.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()  # unknown, start and end pieces at 0, 1 and 2, as XLM-RoBERTa's
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the earth is round"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", unk_id=0, bos_id=1, eos_id=2, minloglevel=2)
        >>> tokenizer = keras_hub.models.XLMRobertaTokenizer(proto=model.getvalue())
        >>> ids = tokenizer("the quick fox jumps")
        >>> [tokenizer.id_to_token(i) for i in ids.numpy().tolist()]
        ['▁the', '▁quick', '▁fox', '<unk>']
        >>> tokenizer.vocabulary_size(), tokenizer.mask_token_id, tokenizer.token_to_id("<pad>")
        (12, 11, 1)
        >>> tokenizer.detokenize(tokenizer("the fox"))
        'the fox'
    """

    backbone_cls = XLMRobertaBackbone

    def __init__(self, proto: Any, **kwargs: Any) -> None:
        self.start_token, self.start_token_id = "<s>", 0
        self.pad_token, self.pad_token_id = "<pad>", 1
        self.end_token, self.end_token_id = "</s>", 2
        self.unk_token, self.unk_token_id = "<unk>", 3
        self.mask_token, self.mask_token_id = "<mask>", None
        super().__init__(proto=proto, **kwargs)

    @property
    def special_tokens(self) -> list[str]:
        """`<s>`, `<pad>`, `</s>` and `<unk>` (not `<mask>`, as in KerasHub)."""
        return list(FAIRSEQ_SPECIAL_TOKENS)

    @property
    def special_token_ids(self) -> list[int]:
        """Their ids: 0 to 3."""
        return list(range(len(FAIRSEQ_SPECIAL_TOKENS)))

    def set_proto(self, proto: Any) -> None:
        """Sets the SentencePiece model (a file path, bytes, or `None`) and fairseq's vocabulary around it.

        Args:
            proto: The model.

        Raises:
            ValueError: If it is not a SentencePiece model, or its unknown
                piece is not its id 0.
        """
        super().set_proto(proto)
        if proto is None:
            object.__setattr__(self, "_fairseq_tables", None)
            self.mask_token_id = None
            return
        if self._unk_token_id != 0:
            raise ValueError(
                f"{self._who()}: the SentencePiece model's unknown piece has id {self._unk_token_id}; "
                f"XLM-RoBERTa's ids need it at 0 (and its start and end pieces at 1 and 2)"
            )
        vocabulary = FAIRSEQ_SPECIAL_TOKENS + self._vocabulary[3:] + ["<mask>"]
        token_to_id = {token: index for index, token in enumerate(vocabulary)}
        object.__setattr__(self, "_fairseq_tables", (vocabulary, vocabulary, token_to_id))
        self.mask_token_id = len(vocabulary) - 1
        self._sentence_piece = FairseqIds(self._sentence_piece, self.mask_token_id)

    def _vocabulary_tables(self) -> tuple[Any, Any, dict[str, int]] | None:
        return getattr(self, "_fairseq_tables", None) if getattr(self, "proto", None) is not None else None

    def _unknown_token_id(self) -> int | None:
        return self.unk_token_id
