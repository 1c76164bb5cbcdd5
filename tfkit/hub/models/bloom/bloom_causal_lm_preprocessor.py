"""``BloomCausalLMPreprocessor``: Bloom's causal language modeling preprocessing (KerasHub's)."""

from __future__ import annotations

from tfkit.hub.models.bloom.bloom_backbone import BloomBackbone
from tfkit.hub.models.bloom.bloom_tokenizer import BloomTokenizer
from tfkit.hub.models.causal_lm_preprocessor import CausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class BloomCausalLMPreprocessor(CausalLMPreprocessor):
    """Bloom's preprocessor for causal language modeling: `CausalLMPreprocessor` with a `BloomTokenizer`.

    Args:
        tokenizer: A `BloomTokenizer`.
        sequence_length: The length of the packed inputs. Defaults to `1024`.
        add_start_token: Whether to start with `<s>`. Defaults to `True`.
        add_end_token: Whether to end with `</s>`. Defaults to `True`.
        **kwargs: Layer keyword arguments.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<pad>": 3, "a": 4}
        >>> tokenizer = keras_hub.models.BloomTokenizer(vocabulary=vocab, merges=[])
        >>> preprocessor = keras_hub.models.BloomCausalLMPreprocessor(tokenizer, sequence_length=4)
        >>> x, y, sample_weight = preprocessor(["a"])
        >>> x["token_ids"].numpy().tolist(), y.numpy().tolist()
        ([[1, 4, 2, 3]], [[4, 2, 3, 3]])
    """

    backbone_cls = BloomBackbone
    tokenizer_cls = BloomTokenizer
