"""``TransformerDecoder``: causal self-attention with a key/value cache, optional cross-attention, feedforward.

    decoder = TransformerDecoder(intermediate_dim=64, num_heads=4)
    y = decoder(x)                                                    # causal self-attention over all of x
    y, cache = decoder(step, self_attention_cache=cache,
                       self_attention_cache_update_index=index)       # one token at a time (GPT-2's generate)

Sub-layers under KerasHub's attribute names (``_self_attention_layer``,
``_cross_attention_layer``, ``_feedforward_intermediate_dense``, ...), so
KerasHub's weight files load; the config records the shapes it was built with
(``decoder_sequence_shape``, ``encoder_sequence_shape``) and builds again from
them.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.cached_multi_head_attention import CachedMultiHeadAttention
from tfkit.hub.layers.config_values import config_value
from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_block import TransformerBlock
from tfkit.hub.layers.transformer_layer_utils import (
    clone_initializer,
    compute_causal_mask,
    merge_padding_and_attention_mask,
)
from tfkit.saving import register_keras_serializable

_CALL_ARGUMENTS = (
    "Use `layer(decoder_sequence, encoder_sequence)` to build a layer with cross attention, or "
    "`layer(decoder_sequence)` to build a layer without."
)


@register_keras_serializable(package="keras_hub")
class TransformerDecoder(TransformerBlock):
    """Transformer decoder.

    One decoder block of "Attention is All You Need" (Vaswani et al., 2017):
    causal self-attention, optional cross-attention to an encoder sequence,
    and a two-layer feedforward network, each with dropout, a residual
    connection and a layer norm. Called on `decoder_sequence` alone it is a
    decoder-only block (GPT-2); called with an `encoder_sequence` it builds
    cross-attention, and must then always be called with one. Self-attention
    is causal by default; padding and custom masks combine with it. For
    generation, pass a key/value cache and the index to write the new steps
    at: the output equals the uncached call's at those positions.

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
            feedforward network (GPT-2) instead of after them. Defaults to
            `False`.
        decoder_sequence_shape: Keyword only: the decoder sequence's shape,
            which a config records; when given, the layer is built at once.
            Defaults to `None`.
        encoder_sequence_shape: Keyword only: the encoder sequence's shape
            for cross-attention, as `decoder_sequence_shape`. Defaults to
            `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        decoder_sequence: Tensor `(batch_size, T, hidden_dim)`.
        encoder_sequence: Optional tensor `(batch_size, S, hidden_dim)` for
            cross-attention.
        decoder_padding_mask: Optional boolean `(batch_size, T)`.
        decoder_attention_mask: Optional boolean `(batch_size, T, T)`.
        encoder_padding_mask: Optional boolean `(batch_size, S)`.
        encoder_attention_mask: Optional boolean `(batch_size, T, S)`.
        self_attention_cache: Optional `(batch_size, 2, max_length,
            num_heads, head_dim)` key/value cache of the self-attention.
        self_attention_cache_update_index: Int or int tensor, where the new
            steps go in `self_attention_cache` (the position of the first
            token of `decoder_sequence`).
        cross_attention_cache: Optional key/value cache of the
            cross-attention, `(batch_size, 2, S, num_heads, head_dim)`.
        cross_attention_cache_update_index: `0` to fill the cross-attention
            cache from `encoder_sequence`, `None` to reuse it.
        use_causal_mask: Whether self-attention is causal. Defaults to
            `True`.
        training: Whether dropout applies. Defaults to `None`.

    Returns:
        `outputs` (the shape of `decoder_sequence`) without a cache;
        `(outputs, self_attention_cache)` with one and no cross-attention;
        `(outputs, self_attention_cache, cross_attention_cache)` with both.

    Raises:
        ValueError: If the layer is called with or without `encoder_sequence`
            unlike the call that built it, only one of the two caches is given
            with cross-attention, `hidden_dim // num_heads` is zero, or a mask
            has the wrong rank.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> decoder = keras_hub.layers.TransformerDecoder(intermediate_dim=16, num_heads=2)
        >>> x = np.random.rand(1, 4, 8).astype("float32")
        >>> full = decoder(x)
        >>> cache = tf.zeros((1, 2, 4, 2, 4))
        >>> steps = []
        >>> for index in range(4):
        ...     out, cache = decoder(
        ...         x[:, index : index + 1], self_attention_cache=cache, self_attention_cache_update_index=index
        ...     )
        ...     steps.append(out)
        >>> bool(np.allclose(tf.concat(steps, axis=1), full, atol=1e-5))
        True
    """

    _cross_attention_layer: Any = None  # set by build, after the self-attention: KerasHub's weight order

    def __init__(
        self,
        intermediate_dim: int,
        num_heads: int,
        dropout: float = 0,
        activation: Any = "relu",
        layer_norm_epsilon: float = 1e-05,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        normalize_first: bool = False,
        *,
        decoder_sequence_shape: Any = None,
        encoder_sequence_shape: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            intermediate_dim,
            num_heads,
            dropout=dropout,
            activation=activation,
            layer_norm_epsilon=layer_norm_epsilon,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            normalize_first=normalize_first,
            **kwargs,
        )
        self._decoder_sequence_shape = None
        self._encoder_sequence_shape = None
        if decoder_sequence_shape:
            self.build(decoder_sequence_shape, encoder_sequence_shape)

    def _attention(self, name: str, head_dim: int, query_shape: tuple, value_shape: tuple) -> CachedMultiHeadAttention:
        layer = CachedMultiHeadAttention(
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

    def build(self, decoder_sequence_shape: Any, encoder_sequence_shape: Any = None) -> None:
        self._decoder_sequence_shape = decoder_sequence_shape
        self._encoder_sequence_shape = encoder_sequence_shape
        decoder_shape = tuple(decoder_sequence_shape)
        head_dim = self._head_dim(decoder_shape[-1])
        self._self_attention_layer = self._attention("self_attention", head_dim, decoder_shape, decoder_shape)
        self._self_attention_layer_norm = self._make_layer_norm("self_attention_layer_norm", decoder_shape)
        self._self_attention_dropout = self._make_dropout("self_attention_dropout")
        self._cross_attention_layer = None
        if encoder_sequence_shape:
            encoder_shape = tuple(encoder_sequence_shape)
            self._cross_attention_layer = self._attention("cross_attention", head_dim, decoder_shape, encoder_shape)
            self._cross_attention_layer_norm = self._make_layer_norm("cross_attention_layer_norm", decoder_shape)
            self._cross_attention_dropout = self._make_dropout("cross_attention_dropout")
        self._build_feedforward(decoder_shape, norm_first=False)

    def _check_call(self, has_encoder_sequence: bool, self_cache: Any, cross_cache: Any) -> None:
        has_cross_attention = self._cross_attention_layer is not None
        who = f"TransformerDecoder layer '{self.name}'"
        if not has_cross_attention and has_encoder_sequence:
            raise ValueError(
                f"{who}: the number of call arguments should not change. {_CALL_ARGUMENTS} This layer has been "
                f"built without cross attention, but you are trying to call it with encoder_sequence."
            )
        if has_cross_attention and not has_encoder_sequence:
            raise ValueError(
                f"{who}: the number of call arguments should not change. {_CALL_ARGUMENTS} This layer has been "
                f"built with cross attention, but you did not provide encoder_sequence."
            )
        if has_cross_attention and (self_cache is None) != (cross_cache is None):
            raise ValueError(
                f"{who}: with cross-attention (both encoder_sequence and decoder_sequence), self_attention_cache "
                f"and cross_attention_cache should both be set or both be None. Received: self_attention_cache="
                f"{'None' if self_cache is None else 'a tensor'}, cross_attention_cache="
                f"{'None' if cross_cache is None else 'a tensor'}."
            )

    def call(
        self,
        decoder_sequence: tf.Tensor,
        encoder_sequence: Any = None,
        decoder_padding_mask: Any = None,
        decoder_attention_mask: Any = None,
        encoder_padding_mask: Any = None,
        encoder_attention_mask: Any = None,
        self_attention_cache: Any = None,
        self_attention_cache_update_index: Any = None,
        cross_attention_cache: Any = None,
        cross_attention_cache_update_index: Any = None,
        use_causal_mask: bool = True,
        training: Any = None,
    ) -> Any:
        self._check_call(encoder_sequence is not None, self_attention_cache, cross_attention_cache)
        self_attention_mask = self._compute_self_attention_mask(
            decoder_sequence=decoder_sequence,
            decoder_padding_mask=decoder_padding_mask,
            decoder_attention_mask=decoder_attention_mask,
            use_causal_mask=use_causal_mask,
            self_attention_cache=self_attention_cache,
            self_attention_cache_update_index=self_attention_cache_update_index,
        )
        x = decoder_sequence
        residual = x
        if self.normalize_first:
            x = self._self_attention_layer_norm(x)
        attended = self._self_attention_layer(
            query=x,
            value=x,
            attention_mask=self_attention_mask,
            cache=self_attention_cache,
            cache_update_index=self_attention_cache_update_index,
            training=training,
        )
        x, self_attention_cache = (attended, None) if self_attention_cache is None else attended
        x = self._self_attention_dropout(x, training=training)
        x = x + residual
        if not self.normalize_first:
            x = self._self_attention_layer_norm(x)

        if self._cross_attention_layer is not None:
            cross_attention_mask = merge_padding_and_attention_mask(
                encoder_sequence, encoder_padding_mask, encoder_attention_mask
            )
            residual = x
            if self.normalize_first:
                x = self._cross_attention_layer_norm(x)
            attended = self._cross_attention_layer(
                query=x,
                value=encoder_sequence,
                attention_mask=cross_attention_mask,
                cache=cross_attention_cache,
                cache_update_index=cross_attention_cache_update_index,
                training=training,
            )
            x, cross_attention_cache = (attended, None) if cross_attention_cache is None else attended
            x = self._cross_attention_dropout(x, training=training)
            x = x + residual
            if not self.normalize_first:
                x = self._cross_attention_layer_norm(x)

        x = self._feedforward(x, training)
        if self_attention_cache is None:
            return x
        if self._cross_attention_layer is not None:
            return x, self_attention_cache, cross_attention_cache
        return x, self_attention_cache

    def _compute_self_attention_mask(
        self,
        decoder_sequence: tf.Tensor,
        decoder_padding_mask: Any,
        decoder_attention_mask: Any,
        use_causal_mask: bool,
        self_attention_cache: Any,
        self_attention_cache_update_index: Any,
    ) -> tf.Tensor | None:
        """The padding and custom masks merged with the causal mask; with a cache, queries start at its index."""
        decoder_mask = merge_padding_and_attention_mask(decoder_sequence, decoder_padding_mask, decoder_attention_mask)
        if not use_causal_mask:
            return decoder_mask
        shape = tf.shape(decoder_sequence)
        batch_size, output_length = shape[0], shape[1]
        input_length = output_length if self_attention_cache is None else cache_length(self_attention_cache)
        cache_index = 0 if self_attention_cache_update_index is None else self_attention_cache_update_index
        causal_mask = tf.cast(compute_causal_mask(batch_size, input_length, output_length, cache_index), tf.int32)
        return causal_mask if decoder_mask is None else tf.minimum(decoder_mask, causal_mask)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            decoder_sequence_shape=config_value(self._decoder_sequence_shape),
            encoder_sequence_shape=config_value(self._encoder_sequence_shape),
        )
        return config

    # masks never change the output's shape: a symbolic call infers it instead of tracing the block
    _shape_free_call_arguments = ("decoder_padding_mask", "decoder_attention_mask")

    def compute_output_shape(self, decoder_sequence_shape: Any) -> Any:
        return decoder_sequence_shape
