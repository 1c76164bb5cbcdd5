"""``MistralTransformerDecoder``: Mistral's decoder block (RMS norms, sliding-window attention, gated MLP)."""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.hub.models.mistral.mistral_attention import CachedMistralAttention
from tfkit.hub.models.mistral.mistral_layer_norm import MistralLayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class MistralTransformerDecoder(GatedDecoderBlock):
    """A Transformer decoder layer for the Mistral backbone.

    RMS norm, causal self-attention (`CachedMistralAttention`), residual;
    RMS norm, gated feedforward network, residual. With `sliding_window`,
    each token attends to itself and the `sliding_window - 1` tokens before
    it only.

    Args:
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        rope_max_wavelength: The longest wavelength of the rotary embedding.
            Defaults to `10000`.
        rope_scaling_factor: Float, the rotary embedding's position scaling.
            Defaults to `1.0`.
        activation: The activation of the gate. Defaults to `"silu"`.
        layer_norm_epsilon: Float, the RMS norms' epsilon. Defaults to
            `1e-5`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        sliding_window: Integer, the attention window, or `None` for full
            causal attention. Defaults to `512`.
        dropout: Float, the dropout rate. Defaults to `0`.
        head_dim: Integer, the size of each attention head; `None` (the
            default) means `hidden_dim // num_query_heads`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        decoder_sequence: Tensor `(batch, length, hidden_dim)`.
        decoder_padding_mask: Optional `(batch, length)`, 1 for real tokens.
        decoder_attention_mask: Optional `(batch, length, length)`.
        self_attention_cache: Optional `(batch, 2, max_length,
            num_key_value_heads, head_dim)` key/value cache.
        self_attention_cache_update_index: Where the new steps go in the
            cache.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_dim)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.mistral.mistral_transformer_decoder import MistralTransformerDecoder
        >>> decoder = MistralTransformerDecoder(intermediate_dim=16, num_query_heads=2, num_key_value_heads=1,
        ...     sliding_window=2)
        >>> decoder(np.ones((1, 4, 8), "float32")).shape
        TensorShape([1, 4, 8])
    """

    def __init__(
        self,
        intermediate_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        rope_max_wavelength: float = 10000,
        rope_scaling_factor: float = 1.0,
        activation: Any = "silu",
        layer_norm_epsilon: float = 1e-5,
        kernel_initializer: Any = "glorot_uniform",
        sliding_window: int | None = 512,
        dropout: float = 0,
        head_dim: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            intermediate_dim,
            num_query_heads,
            num_key_value_heads,
            rope_max_wavelength=rope_max_wavelength,
            rope_scaling_factor=rope_scaling_factor,
            activation=activation,
            layer_norm_epsilon=layer_norm_epsilon,
            kernel_initializer=kernel_initializer,
            dropout=dropout,
            **kwargs,
        )
        self.sliding_window = sliding_window
        self.head_dim = head_dim

    def _make_attention(self) -> CachedMistralAttention:
        return CachedMistralAttention(
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            rope_max_wavelength=self.rope_max_wavelength,
            rope_scaling_factor=self.rope_scaling_factor,
            sliding_window=self.sliding_window,
            head_dim=self.head_dim,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            dropout=self.dropout,
            dtype=self.dtype_policy,
            name="self_attention",
        )

    def _make_norm(self, name: str) -> MistralLayerNormalization:
        return MistralLayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)

    def _mask_window(self) -> int | None:
        return self.sliding_window

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(sliding_window=self.sliding_window, head_dim=self.head_dim)
        return config
