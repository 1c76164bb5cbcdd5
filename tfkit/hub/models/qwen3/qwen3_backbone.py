"""``Qwen3Backbone``: Qwen 3's decoder stack (query/key norms, explicit head size, sliding window), KerasHub's layout.

backbone = Qwen3Backbone(vocabulary_size=151936, num_layers=28, num_query_heads=16, num_key_value_heads=8,
                         head_dim=128, hidden_dim=1024, intermediate_dim=3072)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.decoder_backbone import decoder_blocks, decoder_graph, token_embedding
from tfkit.hub.models.qwen3.qwen3_decoder import Qwen3TransformerDecoder
from tfkit.hub.models.qwen3.qwen3_layernorm import Qwen3LayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3Backbone(Backbone):
    """The Qwen 3 Transformer core architecture with hyperparameters.

    Token embeddings feed `num_layers` decoder blocks (RMS norm, causal
    grouped-query self-attention whose query and key heads are
    RMS-normalized before the rotary position embedding, RMS norm, gated
    SiLU feedforward network), then a final RMS norm; the outputs are the
    last hidden states. The head size is its own argument (`head_dim`, not
    `hidden_dim // num_query_heads`). The layer names and weights are
    KerasHub's, so KerasHub's Qwen 3 presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        num_query_heads: The number of query heads of each block.
        num_key_value_heads: The number of key and value heads of each block.
        head_dim: The size of each attention head.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each feedforward network.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: The rotary embedding's position scaling.
            Defaults to `1.0`.
        layer_norm_epsilon: The RMS norms' epsilon. Defaults to `1e-6`.
        dropout: The dropout rate. Defaults to `0.0`.
        tie_word_embeddings: Whether the output embedding is the input one.
            Defaults to `True`.
        sliding_window_size: How many tokens each token attends to (itself
            and those before it), or `None` for full causal attention.
            Defaults to `32768`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Qwen3Backbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, head_dim=6, hidden_dim=8, intermediate_dim=16)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_query_heads: int,
        num_key_value_heads: int,
        head_dim: int,
        hidden_dim: int,
        intermediate_dim: int,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        layer_norm_epsilon: float = 1e-6,
        dropout: float = 0.0,
        tie_word_embeddings: bool = True,
        sliding_window_size: int | None = 32768,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = token_embedding(vocabulary_size, hidden_dim, tie_word_embeddings, dtype)
        self.transformer_layers = decoder_blocks(
            Qwen3TransformerDecoder,
            num_layers,
            dtype,
            intermediate_dim=intermediate_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            head_dim=head_dim,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            layer_norm_epsilon=layer_norm_epsilon,
            dropout=dropout,
            attention_window=sliding_window_size,
        )
        self.layer_norm = Qwen3LayerNorm(epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm")
        super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)
