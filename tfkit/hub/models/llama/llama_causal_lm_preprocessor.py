"""``LlamaCausalLMPreprocessor``: Llama's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.llama.llama_backbone import LlamaBackbone
from tfkit.hub.models.llama.llama_tokenizer import LlamaTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class LlamaCausalLMPreprocessor(CausalLMPreprocessor):
    """Llama's preprocessor for causal language modeling: `CausalLMPreprocessor` with a `LlamaTokenizer`.

    Args:
        tokenizer: A `LlamaTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `"<s>"`. Defaults to `True`.
        add_end_token: Whether to end with `"</s>"`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.LlamaCausalLMPreprocessor, keras_hub.models.CausalLMPreprocessor)
        True
    """

    backbone_cls = LlamaBackbone
    tokenizer_cls = LlamaTokenizer
