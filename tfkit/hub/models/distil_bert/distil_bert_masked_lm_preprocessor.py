"""``DistilBertMaskedLMPreprocessor``: DistilBERT's masked language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.distil_bert.distil_bert_backbone import DistilBertBackbone
from tfkit.hub.models.distil_bert.distil_bert_tokenizer import DistilBertTokenizer
from tfkit.hub.models.masked_lm_preprocessor import MaskedLMPreprocessor
from tfkit.hub.models.segment_packing import WithoutSegmentIds
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DistilBertMaskedLMPreprocessor(WithoutSegmentIds, MaskedLMPreprocessor):
    """DistilBERT preprocessing for the masked language modeling task.

    `MaskedLMPreprocessor` with a `DistilBertTokenizer`: the packed sequence
    is `[CLS] ... [SEP]`, and selected tokens become `[MASK]` (or a random
    token, or stay); `[CLS]`, `[SEP]`, `[PAD]` and `[MASK]` are never
    selected. `x` is `{"token_ids", "padding_mask", "mask_positions"}`, `y`
    the original ids at the masked positions.

    Args:
        tokenizer: A `DistilBertTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        mask_selection_rate: The share of tokens selected. Defaults to `0.15`.
        mask_selection_length: The most tokens selected a sequence. Defaults
            to `96`.
        mask_token_rate: The share of selected tokens that become `[MASK]`.
            Defaults to `0.8`.
        random_token_rate: The share of selected tokens that become a random
            token. Defaults to `0.1`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "fox", "ran"]
        >>> tokenizer = keras_hub.models.DistilBertTokenizer(vocabulary=vocab)
        >>> preprocessor = keras_hub.models.DistilBertMaskedLMPreprocessor(tokenizer, sequence_length=6,
        ...     mask_selection_rate=1.0, mask_selection_length=4, mask_token_rate=1.0, random_token_rate=0.0)
        >>> x, y, sample_weight = preprocessor(["the fox ran"])
        >>> x["token_ids"].numpy().tolist(), x["mask_positions"].numpy().tolist(), y.numpy().tolist()
        ([[2, 4, 4, 4, 3, 0]], [[1, 2, 3, 0]], [[5, 6, 7, 0]])
    """

    backbone_cls = DistilBertBackbone
    tokenizer_cls = DistilBertTokenizer
