"""``T5GemmaEncoderLayer``: one T5Gemma encoder block (bidirectional self-attention, then the feedforward network).

    layer = T5GemmaEncoderLayer(hidden_size=768, rms_norm_eps=1e-6, num_attention_heads=12, num_key_value_heads=12,
                                query_pre_attn_scalar=64, attention_bias=False, intermediate_size=3072,
                                hidden_activation="gelu_approximate", dropout_rate=0.0, initializer_range=0.02,
                                attention_dropout=0.0, layer_type="full_attention", head_dim=64)
    x = layer(x, padding_mask=mask)

Each sub-block is Gemma 2's sandwich: ``x + dropout(post_norm(f(pre_norm(x))))``.
``T5GemmaBlockParts`` holds what the encoder's and the decoder's blocks share: their arguments (kept as attributes
and config keys), their sub-layers under KerasHub's names, their build and their sub-blocks.
"""

from __future__ import annotations

from typing import Any, ClassVar

import tensorflow as tf

from tfkit.hub.layers.declared_config import DeclaredLayer
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.hub.models.t5gemma.t5gemma_attention import T5GemmaAttention
from tfkit.hub.models.t5gemma.t5gemma_layers import T5GemmaMLP
from tfkit.layers import Dropout

LAYER_TYPES = ("full_attention", "sliding_attention")


class T5GemmaBlockParts(DeclaredLayer):
    """What T5Gemma's encoder and decoder blocks share: the checks of their arguments, their sub-layers (the
    norms' and the dropout's names after `name_prefix`; the cross-attention's with `cross_attention`), their
    build and their residual sub-blocks. A subclass declares its constructor's arguments in its signature.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.t5gemma.t5gemma_encoder import T5GemmaBlockParts, T5GemmaEncoderLayer
        >>> issubclass(T5GemmaEncoderLayer, T5GemmaBlockParts)
        True
    """

    name_prefix: ClassVar[str] = ""
    cross_attention: ClassVar[bool] = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.layer_type not in LAYER_TYPES:
            raise ValueError(f"layer_type must be one of {LAYER_TYPES}, but got {self.layer_type!r}")
        if self.layer_type == "sliding_attention" and self.sliding_window is None:
            raise ValueError("`sliding_window` must be set for `sliding_attention` layer type.")
        self.self_attn = self._attention("self", "self_attention", rope_max_wavelength=self.rope_max_wavelength)
        self.pre_self_attn_layernorm = self._norm("pre_self_attention_layernorm")
        self.post_self_attn_layernorm = self._norm("post_self_attention_layernorm")
        if self.cross_attention:
            self.cross_attn = self._attention(
                "cross", "cross_attention", cross_attention_hidden_size=self.cross_attention_hidden_size
            )
            self.pre_cross_attn_layernorm = self._norm("pre_cross_attention_layernorm")
            self.post_cross_attn_layernorm = self._norm("post_cross_attention_layernorm")
        self.mlp = T5GemmaMLP(
            self.hidden_size,
            self.intermediate_size,
            self.hidden_activation,
            self.dropout_rate,
            initializer_range=self.initializer_range,
            dtype=self.dtype_policy,
            name="mlp",
        )
        self.pre_feedforward_layernorm = self._norm("pre_feedforward_layernorm")
        self.post_feedforward_layernorm = self._norm("post_feedforward_layernorm")
        self.dropout = Dropout(self.dropout_rate, dtype=self.dtype_policy, name=f"{self.name_prefix}residual_dropout")

    def _norm(self, name: str) -> RMSNormalization:
        return RMSNormalization(epsilon=self.rms_norm_eps, dtype=self.dtype_policy, name=f"{self.name_prefix}{name}")

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

    def _build_blocks(self, hidden_shape: Any, encoder_shape: Any = None) -> None:
        for layer in (self.pre_self_attn_layernorm, self.self_attn, self.post_self_attn_layernorm):
            layer.build(hidden_shape)
        if self.cross_attention:
            self.pre_cross_attn_layernorm.build(hidden_shape)
            self.cross_attn.build([hidden_shape, encoder_shape])
            self.post_cross_attn_layernorm.build(hidden_shape)
        for layer in (self.pre_feedforward_layernorm, self.mlp, self.post_feedforward_layernorm):
            layer.build(hidden_shape)

    def _self_attention(self, x: tf.Tensor, training: Any, **arguments: Any) -> tuple[tf.Tensor, Any]:
        """`x` plus the normalized self-attention's normalized output, and the attention's cache."""
        attended, cache = self.self_attn(self.pre_self_attn_layernorm(x), training=training, **arguments)
        return self._residual(x, self.post_self_attn_layernorm(attended), training), cache

    def _residual(self, residual: tf.Tensor, x: tf.Tensor, training: Any) -> tf.Tensor:
        return residual + self.dropout(x, training=training)

    def _feedforward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        """`x` plus the normalized feedforward network's normalized output."""
        y = self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x), training=training))
        return self._residual(x, y, training)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape[0] if self.cross_attention else input_shape


def key_mask(padding_mask: Any) -> Any:
    """A `(batch, length)` padding mask as the boolean `(batch, 1, length)` the attention takes, or `None`."""
    return None if padding_mask is None else tf.cast(padding_mask, tf.bool)[:, None, :]


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

    def build(self, input_shape: Any) -> None:
        self._build_blocks(input_shape)

    def call(self, hidden_states: tf.Tensor, padding_mask: Any = None, training: Any = None) -> tf.Tensor:
        x, _ = self._self_attention(hidden_states, training, attention_mask=key_mask(padding_mask))
        return self._feedforward(x, training)
