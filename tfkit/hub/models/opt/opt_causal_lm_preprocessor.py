"""``OPTCausalLMPreprocessor``: OPT's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.hub.models.opt.opt_backbone import OPTBackbone
from tfkit.hub.models.opt.opt_tokenizer import OPTTokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class OPTCausalLMPreprocessor(CausalLMPreprocessor):
    """OPT's preprocessor for causal language modeling: `CausalLMPreprocessor` with an `OPTTokenizer`.

    Args:
        tokenizer: An `OPTTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `</s>`. Defaults to `True`.
        add_end_token: Whether to end with `</s>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> tokenizer = keras_hub.models.OPTTokenizer(vocabulary={"<pad>": 0, "</s>": 1, "a": 2}, merges=[])
        >>> preprocessor = keras_hub.models.OPTCausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["a"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[1, 2, 1, 0]], [[2, 1, 0, 0]])
    """

    backbone_cls = OPTBackbone
    tokenizer_cls = OPTTokenizer
