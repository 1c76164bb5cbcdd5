"""``Phi3CausalLMPreprocessor``: Phi-3's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.phi3.phi3_backbone import Phi3Backbone
from tfkit.hub.models.phi3.phi3_tokenizer import Phi3Tokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Phi3CausalLMPreprocessor(CausalLMPreprocessor):
    """Phi3 Causal LM preprocessor: `CausalLMPreprocessor` with a `Phi3Tokenizer`.

    Strings become `x = {"token_ids", "padding_mask"}` (`<s>` first,
    `<|endoftext|>` last, padded with 0), `y` (the next token of each
    position) and `sample_weight` (the padding mask of `y`).

    Args:
        tokenizer: A `Phi3Tokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<s>`. Defaults to `True`.
        add_end_token: Whether to end with `<|endoftext|>`. Defaults to
            `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=10, model_type="word", user_defined_symbols=["<|endoftext|>"], minloglevel=2)
        >>> tokenizer = keras_hub.models.Phi3Tokenizer(proto=model.getvalue())
        >>> preprocessor = keras_hub.models.Phi3CausalLMPreprocessor(tokenizer, sequence_length=5)
        >>> x, y, sample_weight = preprocessor(["the fox"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[1, 5, 8, 3, 0]], [[5, 8, 3, 0, 0]])
    """

    backbone_cls = Phi3Backbone
    tokenizer_cls = Phi3Tokenizer
