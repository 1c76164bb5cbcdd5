"""``WhisperEncoder``: a pre-norm ``TransformerEncoder`` block whose self-attention has no key bias (Whisper's)."""

from __future__ import annotations

from typing import Any

from tfkit.hub.layers.transformer_encoder import TransformerEncoder
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.hub.models.whisper.whisper_cached_multi_head_attention import WhisperCachedMultiHeadAttention
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class WhisperEncoder(TransformerEncoder):
    """Whisper encoder block: `TransformerEncoder` with `WhisperCachedMultiHeadAttention` as its self-attention.

    Args:
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_heads: Integer, the number of attention heads.
        **kwargs: `TransformerEncoder`'s other arguments (`dropout`,
            `activation`, `layer_norm_epsilon`, `normalize_first`, ...).

    Example:
        >>> from tfkit.hub.models.whisper.whisper_encoder import WhisperEncoder
        >>> block = WhisperEncoder(intermediate_dim=16, num_heads=2, normalize_first=True)
        >>> block(np.ones((1, 5, 8), "float32")).shape
        TensorShape([1, 5, 8])
    """

    def build(self, inputs_shape: Any) -> None:
        inputs_shape = tuple(inputs_shape)
        self._self_attention_layer = WhisperCachedMultiHeadAttention(
            num_heads=self.num_heads,
            key_dim=self._head_dim(inputs_shape[-1]),
            dropout=self.dropout,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            bias_initializer=clone_initializer(self.bias_initializer),
            dtype=self.dtype_policy,
            name="self_attention_layer",
        )
        self._self_attention_layer.build(query_shape=inputs_shape, value_shape=inputs_shape)
        self._self_attention_layer_norm = self._make_layer_norm("self_attention_layer_norm", inputs_shape)
        self._self_attention_dropout = self._make_dropout("self_attention_dropout")
        self._build_feedforward(inputs_shape, norm_first=True)
