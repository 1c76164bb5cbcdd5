"""``SmolLM3CausalLM``: SmolLM3 with its tied language modeling head, ``generate`` with a key/value cache."""

from __future__ import annotations

from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
from tfkit.hub.models.smollm3.smollm3_backbone import SmolLM3Backbone
from tfkit.hub.models.smollm3.smollm3_causal_lm_preprocessor import SmolLM3CausalLMPreprocessor
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SmolLM3CausalLM(DecoderCausalLM):
    """An end-to-end SmolLM3 model for causal language modeling.

    The backbone's hidden states times the token embedding give the logits
    of the next token. `generate` fills a key/value cache with one pass over
    the prompt, then computes one new token per step (the "NoPE" layers
    cache their keys unrotated, the others rotated at their positions).

    Args:
        backbone: A `SmolLM3Backbone`.
        preprocessor: A `SmolLM3CausalLMPreprocessor`, or `None` (the model
            then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.SmolLM3Backbone(vocabulary_size=10, hidden_dim=8, intermediate_dim=16,
        ...     num_layers=2, num_attention_heads=2, num_key_value_heads=1, attention_bias=False,
        ...     attention_dropout=0.0, rope_layer_enabled_list=[True, False], layer_types=["attention"] * 2,
        ...     mlp_bias=False, layer_norm_epsilon=1e-6, max_position_embeddings=32, rope_theta=10000.0,
        ...     partial_rotary_factor=1.0)
        >>> causal_lm = keras_hub.models.SmolLM3CausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": np.array([[1, 2, 0, 0, 0]]), "padding_mask": np.array([[1, 1, 0, 0, 0]])}
        >>> causal_lm.generate(prompt, stop_token_ids=None)["token_ids"].shape
        (1, 5)
    """

    backbone_cls = SmolLM3Backbone
    preprocessor_cls = SmolLM3CausalLMPreprocessor

    def key_value_heads(self) -> tuple[int, int]:
        """The cache's `(num_key_value_heads, head_dim)`: SmolLM3's heads are `hidden_dim // num_attention_heads`.

        Returns:
            Two Python ints.
        """
        backbone = self.backbone
        return backbone.num_key_value_heads, backbone.hidden_dim // backbone.num_attention_heads


SmolLMCausalLM = SmolLM3CausalLM  # KerasHub's other name of the class
