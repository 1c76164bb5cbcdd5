"""``AlbertTextClassifierPreprocessor``: ALBERT's classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.albert.albert_backbone import AlbertBackbone
from tfkit.hub.models.albert.albert_tokenizer import AlbertTokenizer
from tfkit.hub.models.text_classifier_preprocessor import TextClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class AlbertTextClassifierPreprocessor(TextClassifierPreprocessor):
    """An ALBERT preprocessing layer which tokenizes and packs inputs.

    `TextClassifierPreprocessor` with an `AlbertTokenizer`: each sequence is
    `[CLS] first [SEP] second [SEP] <pad> ...`, with segment ids 0 for the
    first segment (and `[CLS]`), 1 for the second; the output is
    `{"token_ids", "segment_ids", "padding_mask"}`, with `y` and
    `sample_weight` passed through.

    Args:
        tokenizer: An `AlbertTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        **kwargs: Layer keyword arguments.

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
        >>> preprocessor = keras_hub.models.AlbertTextClassifierPreprocessor(tokenizer, sequence_length=8)
        >>> x = preprocessor(x=(["the fox"], ["dog"]))
        >>> x["token_ids"].numpy().tolist(), x["segment_ids"].numpy().tolist()
        ([[2, 6, 9, 3, 8, 3, 0, 0]], [[0, 0, 0, 0, 1, 1, 0, 0]])
    """

    backbone_cls = AlbertBackbone
    tokenizer_cls = AlbertTokenizer


AlbertPreprocessor = AlbertTextClassifierPreprocessor  # KerasHub's other name of the class
