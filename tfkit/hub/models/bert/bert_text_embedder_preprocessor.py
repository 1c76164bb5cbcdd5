"""``BertTextEmbedderPreprocessor``: BERT's sentence embedding preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.bert.bert_backbone import BertBackbone
from tfkit.hub.models.bert.bert_tokenizer import BertTokenizer
from tfkit.hub.models.text_embedder_preprocessor import TextEmbedderPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BertTextEmbedderPreprocessor(TextEmbedderPreprocessor):
    """A BERT preprocessing layer which tokenizes and packs inputs for sentence embedding.

    `TextEmbedderPreprocessor` with a `BertTokenizer`: each sequence is
    `[CLS] first [SEP] second [SEP] [PAD] ...`, and the output is
    `{"token_ids", "padding_mask", "segment_ids"}`, with `y` and
    `sample_weight` passed through.

    Args:
        tokenizer: A `BertTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `256`,
            sentence embedding models' usual length.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "fox", "ran"]
        >>> tokenizer = keras_hub.models.BertTokenizer(vocabulary=vocab)
        >>> preprocessor = keras_hub.models.BertTextEmbedderPreprocessor(tokenizer, sequence_length=6)
        >>> x = preprocessor(["the fox ran"])
        >>> x["token_ids"].numpy().tolist(), x["padding_mask"].numpy().tolist()
        ([[2, 5, 6, 7, 3, 0]], [[True, True, True, True, True, False]])
    """

    backbone_cls = BertBackbone
    tokenizer_cls = BertTokenizer
    input_keys = ("token_ids", "padding_mask", "segment_ids")
