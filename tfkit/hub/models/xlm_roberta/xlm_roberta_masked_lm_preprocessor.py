"""``XLMRobertaMaskedLMPreprocessor``: XLM-RoBERTa's masked language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.masked_lm_preprocessor import MaskedLMPreprocessor
from tfkit.hub.models.segment_packing import DoubleSeparatorPacking
from tfkit.hub.models.xlm_roberta.xlm_roberta_backbone import XLMRobertaBackbone
from tfkit.hub.models.xlm_roberta.xlm_roberta_tokenizer import XLMRobertaTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class XLMRobertaMaskedLMPreprocessor(DoubleSeparatorPacking, MaskedLMPreprocessor):
    """XLM-RoBERTa preprocessing for the masked language modeling task.

    `MaskedLMPreprocessor` with an `XLMRobertaTokenizer`: the packed
    sequence is `<s> ... </s>` (segments separated by `</s></s>`), and
    selected tokens become `<mask>` (or a random token, or stay); `<s>`,
    `<pad>`, `</s>` and `<unk>` are never selected. `x` is
    `{"token_ids", "padding_mask", "mask_positions"}`, `y` the original ids
    at the masked positions.

    Args:
        tokenizer: An `XLMRobertaTokenizer`.
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
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()  # unknown, start and end pieces at 0, 1 and 2, as XLM-RoBERTa's
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the earth is round"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", unk_id=0, bos_id=1, eos_id=2, minloglevel=2)
        >>> tokenizer = keras_hub.models.XLMRobertaTokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.XLMRobertaMaskedLMPreprocessor(tokenizer, sequence_length=6,
        ...     mask_selection_rate=1.0, mask_selection_length=4, mask_token_rate=1.0, random_token_rate=0.0)
        >>> x, y, sample_weight = preprocessor(["the fox"])
        >>> [tokenizer.id_to_token(i) for i in x["token_ids"][0].numpy().tolist()]
        ['<s>', '<mask>', '<mask>', '</s>', '<pad>', '<pad>']
        >>> [tokenizer.id_to_token(i) for i in y[0][:2].numpy().tolist()], x["mask_positions"].numpy().tolist()
        (['▁the', '▁fox'], [[1, 2, 0, 0]])
    """

    backbone_cls = XLMRobertaBackbone
    tokenizer_cls = XLMRobertaTokenizer
