"""``LlamaCausalLM``: Llama with its language modeling head, ``generate`` with a grouped key/value cache, ``score``.

causal_lm = LlamaCausalLM(backbone, preprocessor)
causal_lm.generate("The quick brown fox", max_length=32)
logits = causal_lm.score(token_ids, padding_mask)                    # per-token logits (or losses)
"""

from __future__ import annotations

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.llama.llama_backbone import LlamaBackbone
from tfkit.hub.models.llama.llama_causal_lm_preprocessor import LlamaCausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class LlamaCausalLM(DecoderCausalLM):
    """An end-to-end Llama model for causal language modeling.

    The backbone's hidden states go through the token embedding's reverse
    projection to next-token logits. `fit` trains on raw strings through the
    preprocessor; `generate` fills a key/value cache (only the key/value
    heads: `(batch, num_layers, 2, length, num_key_value_heads, head_dim)`)
    with one pass over the prompt, then computes one token per step, with
    the sampler chosen in `compile`.

    Args:
        backbone: A `LlamaBackbone`.
        preprocessor: A `LlamaCausalLMPreprocessor`, or `None` (the model then
            takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.LlamaBackbone(vocabulary_size=10, num_layers=1, num_query_heads=4,
        ...     hidden_dim=8, intermediate_dim=16, num_key_value_heads=2)
        >>> causal_lm = keras_hub.models.LlamaCausalLM(backbone)
        >>> causal_lm.score(np.array([[1, 2, 3]])).shape
        TensorShape([1, 3, 10])
        >>> causal_lm.score(np.array([[1, 2, 3]]), scoring_mode="loss", target_ids=np.array([[2, 3, 0]])).shape
        TensorShape([1, 3])
    """

    backbone_cls = LlamaBackbone
    preprocessor_cls = LlamaCausalLMPreprocessor
