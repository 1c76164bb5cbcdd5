"""``RobertaMaskedLMPreprocessor``: RoBERTa's masked language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.masked_lm_preprocessor import MaskedLMPreprocessor
from tfkit.hub.models.roberta.roberta_backbone import RobertaBackbone
from tfkit.hub.models.roberta.roberta_tokenizer import RobertaTokenizer
from tfkit.hub.models.segment_packing import DoubleSeparatorPacking
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class RobertaMaskedLMPreprocessor(DoubleSeparatorPacking, MaskedLMPreprocessor):
    """RoBERTa preprocessing for the masked language modeling task.

    `MaskedLMPreprocessor` with a `RobertaTokenizer`: the packed sequence is
    `<s> ... </s>` (segments separated by `</s></s>`), and selected tokens
    become `<mask>` (or a random token, or stay); `<s>`, `</s>`, `<pad>` and
    `<mask>` are never selected. `x` is `{"token_ids", "padding_mask",
    "mask_positions"}`, `y` the original ids at the masked positions.

    Args:
        tokenizer: A `RobertaTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `512`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        mask_selection_rate: The share of tokens selected. Defaults to `0.15`.
        mask_selection_length: The most tokens selected a sequence. Defaults
            to `96`.
        mask_token_rate: The share of selected tokens that become `<mask>`.
            Defaults to `0.8`.
        random_token_rate: The share of selected tokens that become a random
            token. Defaults to `0.1`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> pieces = ["a", "Ġ", "f", "o", "x", "Ġf", "ox", "Ġfox"]  # ("Ġ" is a space)
        >>> vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<mask>": 3, **{p: 4 + i for i, p in enumerate(pieces)}}
        >>> merges = ["Ġ f", "o x", "Ġf ox"]
        >>> tokenizer = keras_hub.models.RobertaTokenizer(vocabulary=vocab, merges=merges)
        >>> preprocessor = keras_hub.models.RobertaMaskedLMPreprocessor(tokenizer, sequence_length=6,
        ...     mask_selection_rate=1.0, mask_selection_length=4, mask_token_rate=1.0, random_token_rate=0.0)
        >>> x, y, sample_weight = preprocessor(["a fox"])
        >>> x["token_ids"].numpy().tolist(), x["mask_positions"].numpy().tolist(), y.numpy().tolist()
        ([[0, 3, 3, 2, 1, 1]], [[1, 2, 0, 0]], [[4, 11, 0, 0]])
    """

    backbone_cls = RobertaBackbone
    tokenizer_cls = RobertaTokenizer
