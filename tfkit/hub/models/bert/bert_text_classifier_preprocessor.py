"""``BertTextClassifierPreprocessor``: BERT's classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.bert.bert_backbone import BertBackbone
from tfkit.hub.models.bert.bert_tokenizer import BertTokenizer
from tfkit.hub.models.text_classifier_preprocessor import TextClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BertTextClassifierPreprocessor(TextClassifierPreprocessor):
    """A BERT preprocessing layer which tokenizes and packs inputs.

    `TextClassifierPreprocessor` with a `BertTokenizer`: each sequence is
    `[CLS] first [SEP] second [SEP] [PAD] ...`, with segment ids 0 for the
    first segment (and `[CLS]`), 1 for the second.

    Args:
        tokenizer: A `BertTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "fox", "ran"]
        >>> tokenizer = keras_hub.models.BertTokenizer(vocabulary=vocab)
        >>> preprocessor = keras_hub.models.BertTextClassifierPreprocessor(tokenizer, sequence_length=8)
        >>> x = preprocessor(x=(["the fox"], ["ran"]))
        >>> x["token_ids"].numpy().tolist(), x["segment_ids"].numpy().tolist()
        ([[2, 5, 6, 3, 7, 3, 0, 0]], [[0, 0, 0, 0, 1, 1, 0, 0]])
    """

    backbone_cls = BertBackbone
    tokenizer_cls = BertTokenizer
