"""``Gemma3TextEmbedderPreprocessor``: Gemma 3's sentence embedding preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.gemma3.gemma3_backbone import Gemma3Backbone
from tfkit.hub.models.gemma3.gemma3_tokenizer import Gemma3Tokenizer
from tfkit.hub.models.text_embedder_preprocessor import TextEmbedderPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Gemma3TextEmbedderPreprocessor(TextEmbedderPreprocessor):
    """A Gemma 3 preprocessing layer which tokenizes and packs inputs for sentence embedding.

    `TextEmbedderPreprocessor` with a `Gemma3Tokenizer`: `<bos>` first, each
    segment ended by `<eos>`, padded with `<pad>`; the output is
    `{"token_ids", "padding_mask"}`, with `y` and `sample_weight` passed
    through. From a sentence-transformers checkpoint, `sequence_length`
    keeps its default (KerasHub's Gemma 3 converter reads no
    `sentence_bert_config.json`).

    Args:
        tokenizer: A `Gemma3Tokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `256`.
        truncate: `"round_robin"` or `"waterfall"`. Defaults to
            `"round_robin"`.
        **kwargs: Layer keyword arguments.

    Call arguments:
        x: A string, a batch of strings, or a tuple of such batches
            (segments).
        y: Labels, passed through. Defaults to `None`.
        sample_weight: Sample weights, passed through. Defaults to `None`.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", pad_id=0, eos_id=1, bos_id=2, unk_id=3, pad_piece="<pad>",
        ...     eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>", minloglevel=2)
        >>> tokenizer = keras_hub.models.Gemma3Tokenizer(proto=model.getvalue(), has_vision_tokens=False)
        >>> preprocessor = keras_hub.models.Gemma3TextEmbedderPreprocessor(tokenizer, sequence_length=6)
        >>> x = preprocessor(["the lazy dog"])
        >>> x["token_ids"].numpy().tolist(), x["padding_mask"].numpy().tolist()
        ([[2, 4, 8, 6, 1, 0]], [[True, True, True, True, True, False]])
    """

    backbone_cls = Gemma3Backbone
    tokenizer_cls = Gemma3Tokenizer

    input_keys = ("token_ids", "padding_mask")
