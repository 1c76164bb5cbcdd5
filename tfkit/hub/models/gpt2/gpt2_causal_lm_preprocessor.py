"""``GPT2CausalLMPreprocessor``: GPT-2's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.gpt2.gpt2_backbone import GPT2Backbone
from tfkit.hub.models.gpt2.gpt2_tokenizer import GPT2Tokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GPT2CausalLMPreprocessor(CausalLMPreprocessor):
    """GPT-2's preprocessor for causal language modeling: `CausalLMPreprocessor` with a `GPT2Tokenizer`.

    Args:
        tokenizer: A `GPT2Tokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<|endoftext|>`. Defaults to `True`.
        add_end_token: Whether to end with `<|endoftext|>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> tokenizer = keras_hub.models.GPT2Tokenizer(vocabulary={"<|endoftext|>": 0, "a": 1}, merges=[])
        >>> preprocessor = keras_hub.models.GPT2CausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["a"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[0, 1, 0, 0]], [[1, 0, 0, 0]])
    """

    backbone_cls = GPT2Backbone
    tokenizer_cls = GPT2Tokenizer
