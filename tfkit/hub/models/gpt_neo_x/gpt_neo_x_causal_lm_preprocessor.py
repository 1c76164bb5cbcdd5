"""``GPTNeoXCausalLMPreprocessor``: GPT-NeoX's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_backbone import GPTNeoXBackbone
from tfkit.hub.models.gpt_neo_x.gpt_neo_x_tokenizer import GPTNeoXTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GPTNeoXCausalLMPreprocessor(CausalLMPreprocessor):
    """GPT-NeoX's preprocessor for causal language modeling: `CausalLMPreprocessor` with a `GPTNeoXTokenizer`.

    Args:
        tokenizer: A `GPTNeoXTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<|endoftext|>`. Defaults to `True`.
        add_end_token: Whether to end with `<|endoftext|>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> tokenizer = keras_hub.models.GPTNeoXTokenizer(vocabulary={"<|endoftext|>": 0, "a": 1}, merges=[])
        >>> preprocessor = keras_hub.models.GPTNeoXCausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["a"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[0, 1, 0, 0]], [[1, 0, 0, 0]])
    """

    backbone_cls = GPTNeoXBackbone
    tokenizer_cls = GPTNeoXTokenizer
