"""``MixtralCausalLMPreprocessor``: Mixtral's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.mixtral.mixtral_backbone import MixtralBackbone
from tfkit.hub.models.mixtral.mixtral_tokenizer import MixtralTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MixtralCausalLMPreprocessor(CausalLMPreprocessor):
    """Mixtral Causal LM preprocessor: `CausalLMPreprocessor` with a `MixtralTokenizer`.

    Strings become `x = {"token_ids", "padding_mask"}` (`<s>` first, `</s>`
    last, padded with 0), `y` (the next token of each position) and
    `sample_weight` (the padding mask of `y`).

    Args:
        tokenizer: A `MixtralTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<s>`. Defaults to `True`.
        add_end_token: Whether to end with `</s>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=9, model_type="word", minloglevel=2)
        >>> tokenizer = keras_hub.models.MixtralTokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.MixtralCausalLMPreprocessor(tokenizer, sequence_length=5)
        >>> x, y, sample_weight = preprocessor(["the fox"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[1, 3, 6, 2, 0]], [[3, 6, 2, 0, 0]])
    """

    backbone_cls = MixtralBackbone
    tokenizer_cls = MixtralTokenizer
