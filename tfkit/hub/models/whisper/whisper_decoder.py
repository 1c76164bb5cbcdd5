"""``WhisperDecoder``: a ``TransformerDecoder`` block whose self- and cross-attention have no key bias (Whisper's)."""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.transformer_decoder import TransformerDecoder
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.hub.models.whisper.whisper_cached_multi_head_attention import WhisperCachedMultiHeadAttention
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class WhisperDecoder(TransformerDecoder):
    """Whisper decoder block: `TransformerDecoder` with `WhisperCachedMultiHeadAttention` layers.

    Causal self-attention, cross-attention to the encoder's output and a
    feedforward network, each with its own cache for decoding, as
    `TransformerDecoder`.

    Args:
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_heads: Integer, the number of attention heads.
        **kwargs: `TransformerDecoder`'s other arguments (`dropout`,
            `activation`, `layer_norm_epsilon`, `normalize_first`, ...).

    Example:
        >>> from tfkit.hub.models.whisper.whisper_decoder import WhisperDecoder
        >>> block = WhisperDecoder(intermediate_dim=16, num_heads=2, normalize_first=True)
        >>> block(np.ones((1, 4, 8), "float32"), np.ones((1, 6, 8), "float32")).shape
        TensorShape([1, 4, 8])
    """

    def build(self, decoder_sequence_shape: Any, encoder_sequence_shape: Any = None) -> None:
        # Weights in KerasHub's order: self-attention's before cross-attention's (`TransformerDecoder.__init__`
        # assigned `_cross_attention_layer` first, and a layer's weights follow its attributes' first assignment).
        vars(self).pop("_cross_attention_layer", None)
        super().build(decoder_sequence_shape, encoder_sequence_shape)

    def _attention(
        self, name: str, head_dim: int, query_shape: tuple, value_shape: tuple
    ) -> WhisperCachedMultiHeadAttention:
        layer = WhisperCachedMultiHeadAttention(
            num_heads=self.num_heads,
            key_dim=head_dim,
            value_dim=head_dim if name == "cross_attention" else None,
            dropout=self.dropout,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name=name,
        )
        layer.build(query_shape=query_shape, value_shape=value_shape)
        return layer
