"""``XLMRobertaTextEmbedderPreprocessor``: XLM-RoBERTa's sentence embedding preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.text_embedder_preprocessor import TextEmbedderPreprocessor
from tfkit.hub.models.xlm_roberta.xlm_roberta_backbone import XLMRobertaBackbone
from tfkit.hub.models.xlm_roberta.xlm_roberta_tokenizer import XLMRobertaTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class XLMRobertaTextEmbedderPreprocessor(TextEmbedderPreprocessor):
    """An XLM-RoBERTa preprocessing layer which tokenizes and packs inputs for sentence embedding.

    `TextEmbedderPreprocessor` with an `XLMRobertaTokenizer`: each sequence
    is `<s> first </s> second </s> <pad> ...` (segments separated by one
    `</s>`, as KerasHub 0.32's embedder packs them, unlike its classifier's
    `</s></s>`), and the output is `{"token_ids", "padding_mask"}`
    (XLM-RoBERTa takes no segment ids), with `y` and `sample_weight` passed
    through.

    Args:
        tokenizer: An `XLMRobertaTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `256`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
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
        >>> preprocessor = keras_hub.models.XLMRobertaTextEmbedderPreprocessor(tokenizer, sequence_length=6)
        >>> x = preprocessor(["the fox"])
        >>> [tokenizer.id_to_token(i) for i in x["token_ids"][0].numpy().tolist()], sorted(x)
        (['<s>', '▁the', '▁fox', '</s>', '<pad>', '<pad>'], ['padding_mask', 'token_ids'])
    """

    backbone_cls = XLMRobertaBackbone
    tokenizer_cls = XLMRobertaTokenizer
    input_keys = ("token_ids", "padding_mask")  # XLM-RoBERTa takes no segment ids
