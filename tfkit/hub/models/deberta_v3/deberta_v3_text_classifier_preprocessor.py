"""``DebertaV3TextClassifierPreprocessor``: DeBERTa-v3's classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.deberta_v3.deberta_v3_backbone import DebertaV3Backbone
from tfkit.hub.models.deberta_v3.deberta_v3_tokenizer import DebertaV3Tokenizer
from tfkit.hub.models.segment_packing import WithoutSegmentIds
from tfkit.hub.models.text_classifier_preprocessor import TextClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DebertaV3TextClassifierPreprocessor(WithoutSegmentIds, TextClassifierPreprocessor):
    """A DeBERTa preprocessing layer which tokenizes and packs inputs.

    `TextClassifierPreprocessor` with a `DebertaV3Tokenizer`: each sequence
    is `[CLS] first [SEP] second [SEP] [PAD] ...`; the output is
    `{"token_ids", "padding_mask"}` (DeBERTa-v3 takes no segment ids), with
    `y` and `sample_weight` passed through.

    Args:
        tokenizer: A `DebertaV3Tokenizer`.
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
        ...     vocab_size=10, model_type="word", pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]",
        ...     bos_piece="[CLS]", eos_piece="[SEP]", unk_piece="[UNK]", minloglevel=2)
        >>> tokenizer = keras_hub.models.DebertaV3Tokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.DebertaV3TextClassifierPreprocessor(tokenizer, sequence_length=8)
        >>> x = preprocessor(x=(["the fox"], ["dog"]))
        >>> sorted(x), x["token_ids"].numpy().tolist()
        (['padding_mask', 'token_ids'], [[1, 4, 7, 2, 6, 2, 0, 0]])
    """

    backbone_cls = DebertaV3Backbone
    tokenizer_cls = DebertaV3Tokenizer


DebertaV3Preprocessor = DebertaV3TextClassifierPreprocessor  # KerasHub's other name of the class
