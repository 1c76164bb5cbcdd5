"""``FalconCausalLMPreprocessor``: Falcon's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.falcon.falcon_backbone import FalconBackbone
from tfkit.hub.models.falcon.falcon_tokenizer import FalconTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class FalconCausalLMPreprocessor(CausalLMPreprocessor):
    """Falcon's preprocessor for causal language modeling: `CausalLMPreprocessor` with a `FalconTokenizer`.

    Args:
        tokenizer: A `FalconTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<|endoftext|>`. Defaults to `True`.
        add_end_token: Whether to end with `<|endoftext|>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> tokenizer = keras_hub.models.FalconTokenizer(vocabulary={"<|endoftext|>": 0, "a": 1}, merges=[])
        >>> preprocessor = keras_hub.models.FalconCausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["a"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[0, 1, 0, 0]], [[1, 0, 0, 0]])
    """

    backbone_cls = FalconBackbone
    tokenizer_cls = FalconTokenizer
