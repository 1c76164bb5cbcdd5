"""``RobertaTextClassifierPreprocessor``: RoBERTa's classification preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.roberta.roberta_backbone import RobertaBackbone
from tfkit.hub.models.roberta.roberta_tokenizer import RobertaTokenizer
from tfkit.hub.models.segment_packing import DoubleSeparatorPacking
from tfkit.hub.models.text_classifier_preprocessor import TextClassifierPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RobertaTextClassifierPreprocessor(DoubleSeparatorPacking, TextClassifierPreprocessor):
    """A RoBERTa preprocessing layer which tokenizes and packs inputs.

    `TextClassifierPreprocessor` with a `RobertaTokenizer`: each sequence
    is `<s> first </s></s> second </s> <pad> ...`, and the output is
    `{"token_ids", "padding_mask"}` (RoBERTa takes no segment ids), with `y`
    and `sample_weight` passed through.

    Args:
        tokenizer: A `RobertaTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> pieces = ["a", "Ġ", "f", "o", "x", "Ġf", "ox", "Ġfox"]  # ("Ġ" is a space)
        >>> vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<mask>": 3, **{p: 4 + i for i, p in enumerate(pieces)}}
        >>> merges = ["Ġ f", "o x", "Ġf ox"]
        >>> tokenizer = keras_hub.models.RobertaTokenizer(vocabulary=vocab, merges=merges)
        >>> preprocessor = keras_hub.models.RobertaTextClassifierPreprocessor(tokenizer, sequence_length=9)
        >>> x = preprocessor(x=(["a fox"], ["a"]))
        >>> x["token_ids"].numpy().tolist(), sorted(x)
        ([[0, 4, 11, 2, 2, 4, 2, 1, 1]], ['padding_mask', 'token_ids'])
    """

    backbone_cls = RobertaBackbone
    tokenizer_cls = RobertaTokenizer


RobertaPreprocessor = RobertaTextClassifierPreprocessor  # KerasHub's other name of the class
