"""``DistilBertTextClassifierPreprocessor``: DistilBERT's classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.distil_bert.distil_bert_backbone import DistilBertBackbone
from tfkit.hub.models.distil_bert.distil_bert_tokenizer import DistilBertTokenizer
from tfkit.hub.models.segment_packing import WithoutSegmentIds
from tfkit.hub.models.text_classifier_preprocessor import TextClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DistilBertTextClassifierPreprocessor(WithoutSegmentIds, TextClassifierPreprocessor):
    """A DistilBERT preprocessing layer which tokenizes and packs inputs.

    `TextClassifierPreprocessor` with a `DistilBertTokenizer`: each sequence
    is `[CLS] first [SEP] second [SEP] [PAD] ...`, and the output is
    `{"token_ids", "padding_mask"}` (DistilBERT takes no segment ids), with
    `y` and `sample_weight` passed through.

    Args:
        tokenizer: A `DistilBertTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "fox", "ran"]
        >>> tokenizer = keras_hub.models.DistilBertTokenizer(vocabulary=vocab)
        >>> preprocessor = keras_hub.models.DistilBertTextClassifierPreprocessor(tokenizer, sequence_length=8)
        >>> x = preprocessor(x=(["the fox"], ["ran"]))
        >>> x["token_ids"].numpy().tolist(), sorted(x)
        ([[2, 5, 6, 3, 7, 3, 0, 0]], ['padding_mask', 'token_ids'])
    """

    backbone_cls = DistilBertBackbone
    tokenizer_cls = DistilBertTokenizer


DistilBertPreprocessor = DistilBertTextClassifierPreprocessor  # KerasHub's other name of the class
