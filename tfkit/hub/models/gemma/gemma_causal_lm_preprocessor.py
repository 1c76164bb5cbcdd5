"""``GemmaCausalLMPreprocessor``: Gemma's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.gemma.gemma_backbone import GemmaBackbone
from tfkit.hub.models.gemma.gemma_tokenizer import GemmaTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GemmaCausalLMPreprocessor(CausalLMPreprocessor):
    """Gemma's preprocessor for causal language modeling: `CausalLMPreprocessor` with a `GemmaTokenizer`.

    Strings become `<bos>` + tokens + `<eos>`, padded with `<pad>` to
    `sequence_length`; for training, `x` is all tokens but the last, `y` all
    but the first and `sample_weight` the padding mask of `y`.

    Args:
        tokenizer: A `GemmaTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<bos>`. Defaults to `True`.
        add_end_token: Whether to end with `<eos>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", pad_id=0, eos_id=1, bos_id=2, unk_id=3, pad_piece="<pad>",
        ...     eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>", minloglevel=2)
        >>> tokenizer = keras_hub.models.GemmaTokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.GemmaCausalLMPreprocessor(tokenizer, sequence_length=5)
        >>> x, y, sample_weight = preprocessor(["the fox"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[2, 4, 7, 1, 0]], [[4, 7, 1, 0, 0]])
    """

    backbone_cls = GemmaBackbone
    tokenizer_cls = GemmaTokenizer
