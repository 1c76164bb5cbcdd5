"""``TransformerEncoder``: one block of self-attention and a feedforward network (BERT's layers).

    encoder = TransformerEncoder(intermediate_dim=64, num_heads=4)
    y = encoder(x, padding_mask=padding_mask)      # (batch, length, hidden): padded keys masked out

Sub-layers under KerasHub's attribute names (``_self_attention_layer``,
``_self_attention_layer_norm``, ``_feedforward_intermediate_dense``, ...), so
KerasHub's weight files load. Layer norms after each residual by default
(BERT), before with ``normalize_first=True`` (GPT-2).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.cached_multi_head_attention import keras_attention
from tfkit.hub.layers.transformer_block import TransformerBlock
from tfkit.hub.layers.transformer_layer_utils import clone_initializer, merge_padding_and_attention_mask
from tfkit.layers import MultiHeadAttention
from tfkit.saving import register_keras_serializable


class _SelfAttention(MultiHeadAttention):
    """``MultiHeadAttention`` whose attention is computed as Keras 3's on TensorFlow (see ``keras_attention``)."""

    def _compute_attention(
        self,
        query: tf.Tensor,
        key: tf.Tensor,
        value: tf.Tensor,
        attention_mask: Any = None,
        training: Any = None,
        return_attention_scores: bool = False,
    ) -> tuple[tf.Tensor, tf.Tensor | None]:
        return keras_attention(self, query, key, value, attention_mask, training, return_attention_scores)


@register_keras_serializable(package="keras_hub")
class TransformerEncoder(TransformerBlock):
    """Transformer encoder.

    One encoder block of "Attention is All You Need" (Vaswani et al., 2017):
    self-attention, then a two-layer feedforward network, each with dropout,
    a residual connection and a layer norm. Stack several for an encoder.
    The attention mask comes from `padding_mask` and `attention_mask` when
    given (both are combined), else from the Keras mask the inputs carry
    (`TokenAndPositionEmbedding(mask_zero=True)`).

    Args:
        intermediate_dim: Integer, the hidden size of the feedforward network.
        num_heads: Integer, the number of attention heads.
        dropout: Float, the dropout rate of the attention and feedforward
            network. Defaults to `0`.
        activation: Activation of the feedforward network. Defaults to
            `"relu"`.
        layer_norm_epsilon: Float, the layer norms' epsilon. Defaults to
            `1e-05`.
        kernel_initializer: Initializer of the dense and attention kernels.
            Defaults to `"glorot_uniform"`.
        bias_initializer: Initializer of the biases. Defaults to `"zeros"`.
        normalize_first: Whether to normalize before the attention and the
            feedforward network (GPT-2) instead of after them (BERT).
            Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Tensor `(batch_size, sequence_length, hidden_dim)`.
        padding_mask: Optional boolean `(batch_size, sequence_length)`: which
            positions are real tokens.
        attention_mask: Optional boolean
            `(batch_size, sequence_length, sequence_length)`.
        training: Whether dropout applies. Defaults to `None`.
        return_attention_scores: Whether to also return the attention scores.
            Defaults to `False`.

    Returns:
        A tensor of the shape of `inputs`, and the attention scores
        `(batch_size, num_heads, sequence_length, sequence_length)` when
        `return_attention_scores=True`.

    Raises:
        ValueError: If `hidden_dim // num_heads` is zero, or a mask has the
            wrong rank.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> encoder = keras_hub.layers.TransformerEncoder(intermediate_dim=16, num_heads=2)
        >>> x = np.random.rand(2, 5, 8).astype("float32")
        >>> encoder(x, padding_mask=np.array([[1, 1, 1, 0, 0]] * 2)).shape
        TensorShape([2, 5, 8])
    """

    def build(self, inputs_shape: Any) -> None:
        inputs_shape = tuple(inputs_shape)
        self._self_attention_layer = _SelfAttention(
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

    def call(
        self,
        inputs: tf.Tensor,
        padding_mask: Any = None,
        attention_mask: Any = None,
        training: Any = None,
        return_attention_scores: bool = False,
    ) -> Any:
        x = inputs
        self_attention_mask = merge_padding_and_attention_mask(inputs, padding_mask, attention_mask)
        residual = x
        if self.normalize_first:
            x = self._self_attention_layer_norm(x)
        attended = self._self_attention_layer(
            query=x,
            value=x,
            attention_mask=self_attention_mask,
            return_attention_scores=return_attention_scores,
            training=training,
        )
        x, attention_scores = attended if return_attention_scores else (attended, None)
        x = self._self_attention_dropout(x, training=training)
        x = x + residual
        if not self.normalize_first:
            x = self._self_attention_layer_norm(x)
        x = self._feedforward(x, training)
        return (x, attention_scores) if return_attention_scores else x
