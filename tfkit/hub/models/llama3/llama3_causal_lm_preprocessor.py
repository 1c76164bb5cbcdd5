"""``Llama3CausalLMPreprocessor``: Llama 3's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.llama3.llama3_backbone import Llama3Backbone
from tfkit.hub.models.llama3.llama3_tokenizer import Llama3Tokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Llama3CausalLMPreprocessor(CausalLMPreprocessor):
    """Llama 3's preprocessor for causal language modeling: `CausalLMPreprocessor` with a `Llama3Tokenizer`.

    Strings become `"<|begin_of_text|>"`, their tokens and
    `"<|end_of_text|>"`, padded with id 0 to `sequence_length + 1` and
    shifted into inputs and next-token labels. KerasHub's docstring says the
    start and end tokens are off by default; its class, like this one, adds
    both.

    Args:
        tokenizer: A `Llama3Tokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with the tokenizer's start token.
            Defaults to `True`.
        add_end_token: Whether to end with the tokenizer's end token.
            Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
        ...     "<|eot_id|>"]
        >>> vocab = {token: i for i, token in enumerate(["a", "b", *specials])}
        >>> tokenizer = keras_hub.models.Llama3Tokenizer(vocabulary=vocab, merges=[])
        >>> preprocessor = keras_hub.models.Llama3CausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["ab"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[2, 0, 1, 3]], [[0, 1, 3, 0]])
    """

    backbone_cls = Llama3Backbone
    tokenizer_cls = Llama3Tokenizer
