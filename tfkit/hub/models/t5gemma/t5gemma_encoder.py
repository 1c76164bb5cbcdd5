"""``T5GemmaEncoderLayer``: one T5Gemma encoder block (bidirectional self-attention, then the feedforward network).

    layer = T5GemmaEncoderLayer(hidden_size=768, rms_norm_eps=1e-6, num_attention_heads=12, num_key_value_heads=12,
                                query_pre_attn_scalar=64, attention_bias=False, intermediate_size=3072,
                                hidden_activation="gelu_approximate", dropout_rate=0.0, initializer_range=0.02,
                                attention_dropout=0.0, layer_type="full_attention", head_dim=64)
    x = layer(x, padding_mask=mask)

Each sub-block is Gemma 2's sandwich: ``x + dropout(post_norm(f(pre_norm(x))))``.
``T5GemmaBlockParts`` holds what the encoder's and the decoder's blocks share.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.hub.models.t5gemma.t5gemma_attention import T5GemmaAttention
from tfkit.hub.models.t5gemma.t5gemma_layers import T5GemmaMLP
from tfkit.layers import Dropout

LAYER_TYPES = ("full_attention", "sliding_attention")


class T5GemmaBlockParts(DeclaredConfig, Layer):
    """What T5Gemma's encoder and decoder blocks share: their arguments' checks and the sub-layers they make.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.t5gemma.t5gemma_encoder import T5GemmaBlockParts, T5GemmaEncoderLayer
        >>> issubclass(T5GemmaEncoderLayer, T5GemmaBlockParts)
        True
    """

    def _check_layer_type(self) -> None:
        if self.layer_type not in LAYER_TYPES:
            raise ValueError(f"layer_type must be one of {LAYER_TYPES}, but got {self.layer_type!r}")
        if self.layer_type == "sliding_attention" and self.sliding_window is None:
            raise ValueError("`sliding_window` must be set for `sliding_attention` layer type.")

    def _norm(self, name: str) -> RMSNormalization:
        return RMSNormalization(epsilon=self.rms_norm_eps, dtype=self.dtype_policy, name=name)

    def _attention(self, attention_type: str, name: str, **arguments: Any) -> T5GemmaAttention:
        return T5GemmaAttention(
            hidden_size=self.hidden_size,
            num_attention_heads=self.num_attention_heads,
            num_key_value_heads=self.num_key_value_heads,
            query_pre_attn_scalar=self.query_pre_attn_scalar,
            attention_bias=self.attention_bias,
            head_dim=self.head_dim,
            attention_type=attention_type,
            initializer_range=self.initializer_range,
            attention_dropout=self.attention_dropout,
            attn_logit_softcapping=self.attn_logit_softcapping,
            dtype=self.dtype_policy,
            name=name,
            **arguments,
        )

    def _mlp(self) -> T5GemmaMLP:
        return T5GemmaMLP(
            self.hidden_size,
            self.intermediate_size,
            self.hidden_activation,
            self.dropout_rate,
            initializer_range=self.initializer_range,
            dtype=self.dtype_policy,
            name="mlp",
        )

    def _residual(self, residual: tf.Tensor, x: tf.Tensor, training: Any) -> tf.Tensor:
        return residual + self.dropout(x, training=training)

    def _feedforward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        """`x` plus the normalized feedforward network's normalized output."""
        y = self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x), training=training))
        return self._residual(x, y, training)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class T5GemmaEncoderLayer(T5GemmaBlockParts):
    """A T5Gemma encoder block: bidirectional self-attention over the unpadded positions, then the feedforward
    network, each between two RMS norms and added to its input.

    Args:
        hidden_size: Integer, the size of the hidden states.
        rms_norm_eps: The epsilon of the RMS norms.
        num_attention_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        query_pre_attn_scalar: The queries are scaled by its inverse square
            root.
        attention_bias: Whether the attention projections have biases.
        intermediate_size: Integer, the feedforward network's width.
        hidden_activation: The feedforward network's activation.
        dropout_rate: The dropout rate of the residual branches and the
            feedforward network.
        initializer_range: The deviation of the kernels' normal initializer.
        attention_dropout: The dropout rate of the attention probabilities.
        layer_type: `"full_attention"` or `"sliding_attention"` (KerasHub's
            encoder attends to every position either way).
        head_dim: Integer, the size of each attention head.
        attn_logit_softcapping: Optional soft cap of the attention logits.
            Defaults to `None`.
        sliding_window: The window of a `"sliding_attention"` layer.
            Defaults to `None`.
        rope_max_wavelength: The rotary embedding's wavelength. Defaults to
            `10000.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, length, hidden_size)`.
        padding_mask: `(batch, length)`: the positions to attend to.
            Defaults to `None` (all).
        training: Whether dropout applies. Defaults to `None`.

    Returns:
        `(batch, length, hidden_size)`.

    Raises:
        ValueError: If `layer_type` is unknown, or `"sliding_attention"`
            without a `sliding_window`.

    Example:
        >>> from tfkit.hub.models.t5gemma.t5gemma_encoder import T5GemmaEncoderLayer
        >>> layer = T5GemmaEncoderLayer(hidden_size=8, rms_norm_eps=1e-6, num_attention_heads=2,
        ...     num_key_value_heads=1, query_pre_attn_scalar=4, attention_bias=False, intermediate_size=16,
        ...     hidden_activation="gelu_approximate", dropout_rate=0.0, initializer_range=0.02,
        ...     attention_dropout=0.0, layer_type="full_attention", head_dim=4)
        >>> layer(np.ones((1, 3, 8), "float32"), padding_mask=np.array([[1, 1, 0]])).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        hidden_size: int,
        rms_norm_eps: float,
        num_attention_heads: int,
        num_key_value_heads: int,
        query_pre_attn_scalar: float,
        attention_bias: bool,
        intermediate_size: int,
        hidden_activation: str,
        dropout_rate: float,
        initializer_range: float,
        attention_dropout: float,
        layer_type: str,
        head_dim: int,
        attn_logit_softcapping: float | None = None,
        sliding_window: int | None = None,
        rope_max_wavelength: float = 10000.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_size, self.rms_norm_eps, self.head_dim = hidden_size, rms_norm_eps, head_dim
        self.num_attention_heads, self.num_key_value_heads = num_attention_heads, num_key_value_heads
        self.query_pre_attn_scalar, self.attention_bias = query_pre_attn_scalar, attention_bias
        self.intermediate_size, self.hidden_activation = intermediate_size, hidden_activation
        self.dropout_rate, self.initializer_range, self.attention_dropout = (
            dropout_rate,
            initializer_range,
            attention_dropout,
        )
        self.layer_type, self.sliding_window, self.rope_max_wavelength = layer_type, sliding_window, rope_max_wavelength
        self.attn_logit_softcapping = attn_logit_softcapping
        self._check_layer_type()
        self.self_attn = self._attention("self", "self_attention", rope_max_wavelength=rope_max_wavelength)
        self.pre_self_attn_layernorm = self._norm("pre_self_attention_layernorm")
        self.post_self_attn_layernorm = self._norm("post_self_attention_layernorm")
        self.mlp = self._mlp()
        self.pre_feedforward_layernorm = self._norm("pre_feedforward_layernorm")
        self.post_feedforward_layernorm = self._norm("post_feedforward_layernorm")
        self.dropout = Dropout(dropout_rate, dtype=self.dtype_policy, name="residual_dropout")

    def build(self, input_shape: Any) -> None:
        for layer in (self.pre_self_attn_layernorm, self.self_attn, self.post_self_attn_layernorm):
            layer.build(input_shape)
        for layer in (self.pre_feedforward_layernorm, self.mlp, self.post_feedforward_layernorm):
            layer.build(input_shape)

    def call(self, hidden_states: tf.Tensor, padding_mask: Any = None, training: Any = None) -> tf.Tensor:
        mask = None if padding_mask is None else tf.cast(padding_mask, tf.bool)[:, None, :]
        attended, _ = self.self_attn(
            self.pre_self_attn_layernorm(hidden_states), attention_mask=mask, training=training
        )
        x = self._residual(hidden_states, self.post_self_attn_layernorm(attended), training)
        return self._feedforward(x, training)
