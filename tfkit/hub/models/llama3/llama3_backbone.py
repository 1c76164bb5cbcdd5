"""``Llama3Backbone``: Llama 3's network, which is Llama's (``LlamaBackbone``) under Llama 3's name.

backbone = Llama3Backbone(vocabulary_size=128256, num_layers=32, num_query_heads=32, hidden_dim=4096,
                          intermediate_dim=14336, num_key_value_heads=8, rope_max_wavelength=500000)
"""

from __future__ import annotations

from tfkit.hub.models.llama.llama_backbone import LlamaBackbone
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Llama3Backbone(LlamaBackbone):
    """The Llama 3 Transformer core architecture with hyperparameters.

    Llama 3 has Llama's architecture: token embeddings, decoder blocks with
    rotary embeddings (theta 500000 in Meta's checkpoints, and Llama 3.1's
    frequency smoothing through the `rope_*_factor` arguments),
    grouped-query attention, RMS norms and gated SiLU feedforward networks.
    The arguments, config and weights are `LlamaBackbone`'s; this class
    gives the presets their own family (`Llama3Tokenizer`,
    `Llama3CausalLM`).

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of transformer blocks.
        num_query_heads: The number of query heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each block's feedforward
            network.
        num_key_value_heads: The number of key and value heads of each block.
        rope_max_wavelength: The rotary embedding's longest wavelength
            (theta; Llama 3 uses `500000`). Defaults to `10000`.
        rope_position_scaling_factor: The rotary embedding's position
            scaling. Defaults to `1.0`.
        rope_frequency_adjustment_factor: Llama 3.1's rotary frequency
            factor. Defaults to `None`.
        rope_low_freq_factor: Llama 3.1's low frequency factor. Defaults to
            `None`.
        rope_high_freq_factor: Llama 3.1's high frequency factor. Defaults
            to `None`.
        rope_pretraining_sequence_length: Llama 3.1's pretraining context
            length. Defaults to `None`.
        layer_norm_epsilon: The RMS norms' epsilon. Defaults to `1e-6`.
        dropout: The dropout rate after attention. Defaults to `0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        tie_word_embeddings: Whether the output projection is the transposed
            token embedding. Defaults to `False`.
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Llama3Backbone(vocabulary_size=10, num_layers=1, num_query_heads=4,
        ...     hidden_dim=8, intermediate_dim=16, num_key_value_heads=2, rope_max_wavelength=500000)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """
