"""``T5TransformerLayer``: one T5 encoder or decoder layer (pre-norm self-attention, cross-attention, feedforward).

    x, bias = layer(x, attention_mask=mask, position_bias=bias)             # a stack threads the bias through
    x, bias, self_cache, cross_cache = layer(step, ..., self_attention_cache=c, self_attention_cache_update_index=i,
                                             cross_attention_cache=cc, cross_attention_cache_update_index=None)

The feedforward network is gated (T5 1.1: ``act(x W_in) * (x W_gate)``) or not
(T5 1.0: ``act(x W_in)``). The sub-layers keep KerasHub's attribute names,
which name them in Keras's weight files.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers, layers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_layer_utils import compute_causal_mask
from tfkit.hub.models.t5.t5_layer_norm import T5LayerNorm
from tfkit.hub.models.t5.t5_multi_head_attention import T5MultiHeadAttention


def _normal(stddev: float) -> Any:
    return initializers.RandomNormal(mean=0.0, stddev=stddev)


class T5TransformerLayer(DeclaredConfig, Layer):
    """A T5 encoder or decoder layer, with key/value caches for decoding.

    Each block normalizes its input first (`T5LayerNorm`) and adds its output
    to the residual: self-attention (causal in the decoder), cross-attention
    over the encoder's output (decoder only), and the feedforward network.

    Args:
        is_decoder: Whether the layer is a decoder layer (cross-attention,
            causal self-attention).
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of the feedforward network's hidden layer.
        key_value_dim: The size of each attention head.
        dropout: The dropout rate.
        activation: The feedforward network's activation.
        layer_norm_epsilon: The norms' epsilon.
        num_heads: The number of attention heads.
        use_gated_activation: Whether the feedforward network is gated.
            Defaults to `False`.
        use_relative_attention_bias: Whether the self-attention owns the
            relative position bias (the first layer of a stack). Defaults to
            `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, T, hidden_dim)`.
        attention_mask: Optional `(batch, 1|T, T)` self-attention mask.
        position_bias: Optional bias of the stack's first layer (the mask
            folded in); `None` in the first layer, which makes it.
        encoder_hidden_states: The encoder's output (decoder only).
        encoder_attention_mask: Optional `(batch, 1, S)` mask of it.
        use_causal_mask: Whether the first layer makes a causal mask (the
            decoder). Defaults to `False`.
        self_attention_cache: Optional self-attention keys and values.
        self_attention_cache_update_index: Where the step's keys and values
            go in it.
        cross_attention_cache: Optional cross-attention keys and values.
        cross_attention_cache_update_index: `0` to fill it from the encoder's
            output, `None` to read it as it is.
        training: Whether dropout is on.

    Returns:
        `(hidden_states, position_bias)`, and the two caches after them when
        `self_attention_cache` is given.

    Example:
        >>> from tfkit.hub.models.t5.t5_transformer_layer import T5TransformerLayer
        >>> layer = T5TransformerLayer(is_decoder=False, hidden_dim=8, intermediate_dim=16, key_value_dim=4,
        ...     dropout=0.0, activation="relu", layer_norm_epsilon=1e-6, num_heads=2, use_relative_attention_bias=True)
        >>> x, bias = layer(np.ones((1, 3, 8), "float32"))
        >>> x.shape, bias.shape
        (TensorShape([1, 3, 8]), TensorShape([1, 2, 3, 3]))
    """

    def __init__(
        self,
        is_decoder: bool,
        hidden_dim: int,
        intermediate_dim: int,
        key_value_dim: int,
        dropout: float,
        activation: Any,
        layer_norm_epsilon: float,
        num_heads: int,
        use_gated_activation: bool = False,
        use_relative_attention_bias: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.is_decoder = is_decoder
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.key_value_dim = key_value_dim
        self.dropout = dropout
        self.activation = activation
        self.layer_norm_epsilon = layer_norm_epsilon
        self.num_heads = num_heads
        self.use_gated_activation = use_gated_activation
        self.use_relative_attention_bias = use_relative_attention_bias
        policy = self.dtype_policy
        attention = dict(hidden_dim=hidden_dim, key_value_dim=key_value_dim, num_heads=num_heads, dropout=dropout)
        self.self_attention = T5MultiHeadAttention(
            is_decoder=is_decoder,
            use_relative_attention_bias=use_relative_attention_bias,
            dtype=policy,
            name="self_attention",
            **attention,
        )
        self.self_attention_layer_norm = T5LayerNorm(layer_norm_epsilon, dtype=policy)
        self.self_attention_dropout = layers.Dropout(dropout, dtype=policy)
        if is_decoder:
            self.cross_attention = T5MultiHeadAttention(
                is_decoder=is_decoder, dtype=policy, name="cross_attention", **attention
            )
            self.cross_attention_layer_norm = T5LayerNorm(layer_norm_epsilon, dtype=policy)
            self.cross_attention_dropout = layers.Dropout(dropout, dtype=policy)
        self.input_projector = layers.Dense(
            intermediate_dim,
            use_bias=False,
            activation=activations.get(activation),
            kernel_initializer=_normal(hidden_dim**-0.5),
            dtype=policy,
            name="input_projector",
        )
        if use_gated_activation:
            self.gate_projector = layers.Dense(
                intermediate_dim,
                use_bias=False,
                kernel_initializer=_normal(hidden_dim**-0.5),
                dtype=policy,
                name="gate_projector",
            )
        self.output_projector = layers.Dense(
            hidden_dim,
            use_bias=False,
            kernel_initializer=_normal(intermediate_dim**-0.5),
            dtype=policy,
            name="output_projector",
        )
        self.layer_norm = T5LayerNorm(epsilon=layer_norm_epsilon, dtype=policy)
        self.dropout_layer = layers.Dropout(dropout, dtype=policy)

    def call(
        self,
        hidden_states: tf.Tensor,
        attention_mask: Any = None,
        position_bias: Any = None,
        encoder_hidden_states: Any = None,
        encoder_attention_mask: Any = None,
        use_causal_mask: bool = False,
        self_attention_cache: Any = None,
        self_attention_cache_update_index: Any = None,
        cross_attention_cache: Any = None,
        cross_attention_cache_update_index: Any = None,
        training: Any = None,
    ) -> tuple:
        if use_causal_mask and position_bias is None:  # the first layer; the rest have the mask in the bias
            attention_mask = self._causal_mask(
                hidden_states, attention_mask, self_attention_cache, self_attention_cache_update_index
            )
        x, position_bias, self_attention_cache = self.self_attention(
            self.self_attention_layer_norm(hidden_states),
            mask=attention_mask,
            position_bias=position_bias,
            cache=self_attention_cache,
            cache_update_index=self_attention_cache_update_index,
            training=training,
        )
        x = hidden_states + self.self_attention_dropout(x, training=training)
        if self.is_decoder:
            attended, _, cross_attention_cache = self.cross_attention(
                self.cross_attention_layer_norm(x),
                key_value_states=encoder_hidden_states,
                mask=encoder_attention_mask,
                cache=cross_attention_cache,
                cache_update_index=cross_attention_cache_update_index,
                training=training,
            )
            x = x + self.cross_attention_dropout(attended, training=training)
        x = x + self._feedforward(self.layer_norm(x), training)
        if self_attention_cache is not None:
            return x, position_bias, self_attention_cache, cross_attention_cache
        return x, position_bias

    def _feedforward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        hidden = self.input_projector(x)
        if self.use_gated_activation:
            hidden = hidden * self.gate_projector(x)
        hidden = self.dropout_layer(hidden, training=training)
        return self.dropout_layer(self.output_projector(hidden), training=training)

    def _causal_mask(self, hidden_states: tf.Tensor, attention_mask: Any, cache: Any, index: Any) -> tf.Tensor:
        shape = tf.shape(hidden_states)
        key_length = shape[1] if cache is None else cache_length(cache)
        causal = compute_causal_mask(shape[0], key_length, shape[1], 0 if index is None else index)
        if attention_mask is None:
            return causal
        return causal & tf.cast(attention_mask, tf.bool)
