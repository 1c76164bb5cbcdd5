"""``DebertaV3MaskedLMPreprocessor``: DeBERTa-v3's masked language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.deberta_v3.deberta_v3_backbone import DebertaV3Backbone
from tfkit.hub.models.deberta_v3.deberta_v3_tokenizer import DebertaV3Tokenizer
from tfkit.hub.models.masked_lm_preprocessor import MaskedLMPreprocessor
from tfkit.hub.models.segment_packing import WithoutSegmentIds
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DebertaV3MaskedLMPreprocessor(WithoutSegmentIds, MaskedLMPreprocessor):
    """DeBERTa preprocessing for the masked language modeling task.

    `MaskedLMPreprocessor` with a `DebertaV3Tokenizer`: the packed sequence
    is `[CLS] ... [SEP]`, and selected tokens become `[MASK]` (or a random
    token, or stay). `[CLS]`, `[SEP]`, `[PAD]` and `[MASK]` are never
    selected. `x` is `{"token_ids", "padding_mask", "mask_positions"}` (no
    segment ids), `y` the original ids at the masked positions.

    Args:
        tokenizer: A `DebertaV3Tokenizer`.
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
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]",
        ...     bos_piece="[CLS]", eos_piece="[SEP]", unk_piece="[UNK]", minloglevel=2)
        >>> tokenizer = keras_hub.models.DebertaV3Tokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.DebertaV3MaskedLMPreprocessor(tokenizer, sequence_length=6,
        ...     mask_selection_rate=1.0, mask_selection_length=4, mask_token_rate=1.0, random_token_rate=0.0)
        >>> x, y, sample_weight = preprocessor(["the lazy fox"])
        >>> x["token_ids"].numpy().tolist(), x["mask_positions"].numpy().tolist(), y.numpy().tolist()
        ([[1, 10, 10, 10, 2, 0]], [[1, 2, 3, 0]], [[4, 8, 7, 0]])
    """

    backbone_cls = DebertaV3Backbone
    tokenizer_cls = DebertaV3Tokenizer
