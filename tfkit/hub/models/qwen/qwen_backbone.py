"""``QwenBackbone``: Qwen 2's decoder stack (attention with biases, optional sliding window), KerasHub's layout.

backbone = QwenBackbone(vocabulary_size=151936, num_layers=24, num_query_heads=14, num_key_value_heads=2,
                        hidden_dim=896, intermediate_dim=4864)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.decoder_backbone import decoder_blocks, decoder_graph, token_embedding
from tfkit.hub.models.qwen.qwen_decoder import QwenTransformerDecoder
from tfkit.hub.models.qwen.qwen_layernorm import QwenLayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenBackbone(Backbone):
    """The Qwen Transformer core architecture with hyperparameters.

    Token embeddings feed `num_layers` decoder blocks (RMS norm, causal
    grouped-query self-attention with query/key/value biases and rotary
    position embeddings, RMS norm, gated SiLU feedforward network), then a
    final RMS norm; the outputs are the last hidden states. The output
    embedding is the input one transposed unless `tie_word_embeddings=False`.
    The layer names and weights are KerasHub's (`keras_hub.models.QwenBackbone`,
    also `Qwen2Backbone`), so KerasHub's Qwen 2 presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        num_query_heads: The number of query heads of each block.
        num_key_value_heads: The number of key and value heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each feedforward network.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: The rotary embedding's position scaling.
            Defaults to `1.0`.
        layer_norm_epsilon: The RMS norms' epsilon. Defaults to `1e-6`.
        dropout: The dropout rate. Defaults to `0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        tie_word_embeddings: Whether the output embedding is the input one.
            Defaults to `True`.
        use_sliding_window_attention: Whether every block's attention has a
            sliding window. Defaults to `False`.
        sliding_window_size: The window size. Defaults to `32768`.
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.QwenBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_query_heads: int,
        num_key_value_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        layer_norm_epsilon: float = 1e-6,
        dropout: float = 0,
        dtype: Any = None,
        tie_word_embeddings: bool = True,
        use_sliding_window_attention: bool = False,
        sliding_window_size: int = 32768,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = token_embedding(vocabulary_size, hidden_dim, tie_word_embeddings, dtype)
        self.transformer_layers = decoder_blocks(
            QwenTransformerDecoder,
            num_layers,
            dtype,
            intermediate_dim=intermediate_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            layer_norm_epsilon=layer_norm_epsilon,
            dropout=dropout,
            attention_window=sliding_window_size if use_sliding_window_attention else None,
            attention_bias=True,
        )
        self.layer_norm = QwenLayerNorm(epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm")
        super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)
