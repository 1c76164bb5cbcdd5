"""``SmolLM3DecoderLayer``: SmolLM3's decoder block (RMS norms, ``SmolLM3Attention``, ``SmolLM3MLP``), KerasHub's.

    block = SmolLM3DecoderLayer(hidden_size=16, num_attention_heads=4, num_key_value_heads=2, attention_bias=False,
                                attention_dropout=0.0, rope_layer_enabled_list=[True, False],
                                layer_types=["attention"] * 2, layer_idx=0, intermediate_size=32, mlp_bias=False,
                                layer_norm_epsilon=1e-6)
    y = block(x, decoder_padding_mask=mask)

The flow (norm, attention, residual, norm, gated MLP, residual), the causal mask and the
cache are ``GatedDecoderBlock``'s; the sub-layers are made with the block, under KerasHub's
attribute names (``self_attn``, ``mlp``, ``input_layernorm``, ``post_attention_layernorm``),
in KerasHub's order.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.gated_decoder_block import GatedDecoderBlock
from tfkit.hub.models.smollm3.smollm3_attention import SmolLM3Attention, own_config
from tfkit.layers import Dense, Dropout, RMSNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SmolLM3MLP(DeclaredConfig, Layer):
    """The gated feedforward network of SmolLM3: `down_proj(silu(gate_proj(x)) * up_proj(x))`.

    Args:
        hidden_size: Integer, the size of the input and output.
        intermediate_size: Integer, the hidden size of the network.
        mlp_bias: Whether the three `Dense` layers have biases.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: Tensor `(batch, length, hidden_size)`.

    Returns:
        Tensor `(batch, length, hidden_size)`.

    Example:
        >>> from tfkit.hub.models.smollm3.smollm3_decoder import SmolLM3MLP
        >>> SmolLM3MLP(hidden_size=8, intermediate_size=16, mlp_bias=False)(np.ones((1, 3, 8), "float32")).shape
        TensorShape([1, 3, 8])
    """

    def __init__(self, hidden_size: int, intermediate_size: int, mlp_bias: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.mlp_bias = mlp_bias
        self.gate_proj = Dense(intermediate_size, use_bias=mlp_bias, dtype=self.dtype_policy, name="gate_proj")
        self.up_proj = Dense(intermediate_size, use_bias=mlp_bias, dtype=self.dtype_policy, name="up_proj")
        self.down_proj = Dense(hidden_size, use_bias=mlp_bias, dtype=self.dtype_policy, name="down_proj")

    def build(self, input_shape: Any) -> None:
        shape = tuple(input_shape)
        self.gate_proj.build(shape)
        self.up_proj.build(shape)
        self.down_proj.build(shape[:-1] + (self.intermediate_size,))

    def call(self, x: tf.Tensor) -> tf.Tensor:
        return self.down_proj(tf.nn.silu(self.gate_proj(x)) * self.up_proj(x))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


@register_keras_serializable(package="keras_hub")
class SmolLM3DecoderLayer(GatedDecoderBlock):
    """Decoder layer for SmolLM3 model, combining self-attention and MLP.

    RMS norm, causal `SmolLM3Attention` (rotary or not, by `layer_idx`),
    residual; RMS norm, `SmolLM3MLP`, residual.

    Args:
        hidden_size: Integer, the size of the hidden states.
        num_attention_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        attention_bias: Whether the query, key and value projections have
            biases.
        attention_dropout: Float, the attention's dropout rate.
        rope_layer_enabled_list: List of booleans, whether each layer uses
            rotary embeddings.
        layer_types: List of strings, each layer's kind.
        layer_idx: Integer, this layer's index.
        intermediate_size: Integer, the hidden size of the MLP.
        mlp_bias: Whether the MLP's `Dense` layers have biases.
        layer_norm_epsilon: Float, the RMS norms' epsilon.
        max_position_embeddings: Integer, the longest sequence. Defaults to
            `2048`.
        rope_theta: Float, the rotary base. Defaults to `10000.0`.
        partial_rotary_factor: Float, the share of each head rotated.
            Defaults to `1.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        decoder_sequence: Tensor `(batch, length, hidden_size)`.
        decoder_padding_mask: Optional `(batch, length)`, 1 for real tokens.
        decoder_attention_mask: Optional `(batch, length, length)`.
        self_attention_cache: Optional `(batch, 2, max_length,
            num_key_value_heads, head_dim)` key/value cache.
        self_attention_cache_update_index: Where the new steps go in the cache.
        training: Whether dropout applies.

    Returns:
        `(batch, length, hidden_size)`, and the updated cache when one is given.

    Example:
        >>> from tfkit.hub.models.smollm3.smollm3_decoder import SmolLM3DecoderLayer
        >>> block = SmolLM3DecoderLayer(hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
        ...     attention_bias=False, attention_dropout=0.0, rope_layer_enabled_list=[True],
        ...     layer_types=["attention"], layer_idx=0, intermediate_size=16, mlp_bias=False,
        ...     layer_norm_epsilon=1e-6)
        >>> block(np.ones((1, 4, 8), "float32")).shape
        TensorShape([1, 4, 8])
    """

    norm_class = RMSNormalization
    attention_class = SmolLM3Attention
    _self_attention_layer = StoredAs("self_attn")
    _self_attention_layernorm = StoredAs("input_layernorm")
    _feedforward_layernorm = StoredAs("post_attention_layernorm")

    def __init__(
        self,
        hidden_size: int,
        num_attention_heads: int,
        num_key_value_heads: int,
        attention_bias: bool,
        attention_dropout: float,
        rope_layer_enabled_list: list,
        layer_types: list,
        layer_idx: int,
        intermediate_size: int,
        mlp_bias: bool,
        layer_norm_epsilon: float,
        max_position_embeddings: int = 2048,
        rope_theta: float = 10000.0,
        partial_rotary_factor: float = 1.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            intermediate_dim=intermediate_size,
            num_query_heads=num_attention_heads,
            num_key_value_heads=num_key_value_heads,
            rope_max_wavelength=rope_theta,
            layer_norm_epsilon=layer_norm_epsilon,
            dropout=attention_dropout,
            attention_bias=attention_bias,
            **kwargs,
        )
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.attention_dropout = attention_dropout
        self.rope_layer_enabled_list = rope_layer_enabled_list
        self.layer_types = layer_types
        self.layer_idx = layer_idx
        self.intermediate_size = intermediate_size
        self.mlp_bias = mlp_bias
        self.max_position_embeddings = max_position_embeddings
        self.rope_theta = rope_theta
        self.partial_rotary_factor = partial_rotary_factor
        self.attention_type = layer_types[layer_idx] if layer_types and layer_idx < len(layer_types) else None
        self._self_attention_layer = SmolLM3Attention(
            hidden_size=hidden_size,
            num_attention_heads=num_attention_heads,
            num_key_value_heads=num_key_value_heads,
            attention_bias=attention_bias,
            attention_dropout=attention_dropout,
            rope_layer_enabled_list=rope_layer_enabled_list,
            layer_types=layer_types,
            layer_idx=layer_idx,
            max_position_embeddings=max_position_embeddings,
            rope_theta=rope_theta,
            partial_rotary_factor=partial_rotary_factor,
            dtype=self.dtype_policy,
            name="self_attn",
        )
        self.mlp = SmolLM3MLP(
            hidden_size=hidden_size,
            intermediate_size=intermediate_size,
            mlp_bias=mlp_bias,
            dtype=self.dtype_policy,
            name="mlp",
        )
        self._self_attention_layernorm = self._make_norm("input_layernorm")
        self._feedforward_layernorm = self._make_norm("post_attention_layernorm")
        self._self_attention_dropout = Dropout(rate=0.0, dtype=self.dtype_policy, name="self_attention_dropout")

    def build(self, decoder_sequence_shape: Any) -> None:
        shape = tuple(decoder_sequence_shape)
        self._decoder_sequence_shape = shape
        self.hidden_dim = shape[-1]
        for layer in (self.self_attn, self.mlp, self.input_layernorm, self.post_attention_layernorm):
            layer.build(shape)

    def _feedforward(self, x: tf.Tensor, padding_mask: Any, training: Any) -> tuple[tf.Tensor, tuple]:
        return self.mlp(x), ()

    def get_config(self) -> dict[str, Any]:
        return own_config(self, super().get_config())
