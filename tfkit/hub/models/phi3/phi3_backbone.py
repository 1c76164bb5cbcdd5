"""``Phi3Backbone``: Microsoft's Phi-3 decoder stack (long-rope rotary attention, RMS norms, gated MLP), KerasHub's.

backbone = Phi3Backbone(vocabulary_size=32064, num_layers=32, hidden_dim=3072, intermediate_dim=8192,
                        num_query_heads=32, num_key_value_heads=32)
hidden = backbone({"token_ids": ids, "padding_mask": mask})       # (batch, length, hidden_dim)
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.decoder_backbone import decoder_blocks, decoder_graph, token_embedding
from tfkit.hub.models.phi3.phi3_decoder import Phi3Decoder
from tfkit.hub.models.phi3.phi3_layernorm import Phi3LayerNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Phi3Backbone(Backbone):
    """Phi-3 core network with hyperparameters.

    Token embeddings feed `num_layers` decoder blocks (RMS norm, causal
    grouped-query self-attention with rotary position embeddings, RMS norm,
    gated SiLU feedforward network), then a final RMS norm; the outputs are
    the last hidden states (Abdin et al., 2024, "Phi-3 Technical Report").
    The 128k-context models scale the rotary frequencies
    (`rope_scaling_type="su"`: per-frequency short and long factors, and the
    cosines and sines scaled for `max_sequence_length`). The output
    embedding is separate from the input one. The layer names and weights
    are KerasHub's, so KerasHub's Phi-3 presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of decoder blocks.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each feedforward network.
        num_query_heads: The number of query heads of each block.
        num_key_value_heads: The number of key and value heads of each block.
        layer_norm_epsilon: The RMS norms' epsilon. Defaults to `1e-6`.
        dropout: The dropout rate. Defaults to `0.0`.
        max_sequence_length: The longest sequence the model is used with.
            Defaults to `4096`.
        pretraining_sequence_length: The sequence length the model was
            pretrained with. Defaults to `4096`.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_type: `None` (plain rotary embedding) or `"su"`.
            Defaults to `None`.
        rope_scaling_short_factor: With `"su"`, the
            `hidden_dim // num_query_heads // 2` frequency factors used within
            `pretraining_sequence_length`. Defaults to `None`.
        rope_scaling_long_factor: With `"su"`, the factors used past it.
            Defaults to `None`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Phi3Backbone(vocabulary_size=10, num_layers=1, hidden_dim=8,
        ...     intermediate_dim=16, num_query_heads=2, num_key_value_heads=1)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    # max_sequence_length only scales the long-rope frequencies: no array is that long (the loading budget)
    unstored_widths = ("max_sequence_length",)

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        hidden_dim: int,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        layer_norm_epsilon: float = 1e-6,
        dropout: float = 0.0,
        max_sequence_length: int = 4096,
        pretraining_sequence_length: int = 4096,
        rope_max_wavelength: float = 10000,
        rope_scaling_type: str | None = None,
        rope_scaling_short_factor: Sequence[float] | None = None,
        rope_scaling_long_factor: Sequence[float] | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = token_embedding(vocabulary_size, hidden_dim, tie_weights=False, dtype=dtype)
        self.transformer_layers = decoder_blocks(
            Phi3Decoder,
            num_layers,
            dtype,
            hidden_dim=hidden_dim,
            intermediate_dim=intermediate_dim,
            num_query_heads=num_query_heads,
            num_key_value_heads=num_key_value_heads,
            rope_max_wavelength=rope_max_wavelength,
            layer_norm_epsilon=layer_norm_epsilon,
            dropout=dropout,
            max_sequence_length=max_sequence_length,
            pretraining_sequence_length=pretraining_sequence_length,
            rope_scaling_type=rope_scaling_type,
            rope_scaling_short_factor=rope_scaling_short_factor,
            rope_scaling_long_factor=rope_scaling_long_factor,
        )
        self.layer_norm = Phi3LayerNorm(epsilon=layer_norm_epsilon, dtype=dtype, name="sequence_output_layernorm")
        super().__init__(**decoder_graph(self), dtype=dtype, **kwargs)
