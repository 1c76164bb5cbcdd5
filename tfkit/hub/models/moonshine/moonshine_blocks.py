"""Moonshine's pre-norm blocks: ``MoonshineEncoderBlock`` (rotary self-attention, feedforward) and
``MoonshineDecoderBlock`` (rotary causal self-attention with a cache, cross-attention, SwiGLU feedforward).

    block = MoonshineEncoderBlock(hidden_dim=288, intermediate_dim=1152, num_heads=8)
    x = block(x, rotary_embedding, attention_mask=frames_mask)
    y = MoonshineDecoderBlock(hidden_dim=288, intermediate_dim=1152, num_heads=8)(
        decoder_sequence=y, encoder_sequence=x, rotary_embedding=angles, encoder_padding_mask=frames_mask)

Norms are scale-only layer norms (no bias).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import layers
from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_decoder import TransformerDecoder
from tfkit.hub.layers.transformer_encoder import TransformerEncoder
from tfkit.hub.layers.transformer_layer_utils import (
    clone_initializer,
    compute_causal_mask,
    merge_padding_and_attention_mask,
)
from tfkit.hub.models.moonshine.moonshine_layers import MoonshineMLP, moonshine_kernel_initializer
from tfkit.hub.models.moonshine.moonshine_multi_head_attention import MoonshineMultiHeadAttention
from tfkit.saving import register_keras_serializable


def _head_dim(hidden_dim: int, num_heads: int, multiple: int | None) -> int:
    head_dim = hidden_dim // num_heads
    return head_dim if not multiple else (head_dim + multiple - 1) // multiple * multiple


_SET_HERE = ("dropout", "activation", "kernel_initializer")  # a config's, which the block derives


class _MoonshineBlockArguments:
    """The arguments Moonshine's two blocks share, kept and written to the config (KerasHub's keys)."""

    def _init_block(self, arguments: dict[str, Any]) -> None:
        """Initializes the base block from the block's constructor `arguments` (its `locals()`) and keeps them."""
        kwargs = {key: value for key, value in arguments.pop("kwargs").items() if key not in _SET_HERE}
        arguments = {key: value for key, value in arguments.items() if key not in ("self", "__class__")}
        super().__init__(  # type: ignore[misc]  # the block's base: TransformerEncoder or TransformerDecoder
            intermediate_dim=arguments["intermediate_dim"],
            num_heads=arguments["num_heads"],
            dropout=arguments["attention_dropout"],
            activation="gelu" if arguments["use_swiglu_activation"] else "silu",  # unused: KerasHub's config values
            kernel_initializer=moonshine_kernel_initializer(arguments["initializer_range"]),
            **kwargs,
        )
        for name, value in arguments.items():
            setattr(self, name, value)
        self.head_dim = _head_dim(self.hidden_dim, self.num_heads, self.pad_head_dim_to_multiple_of)

    def _norm(self, name: str | None = None) -> Any:
        return layers.LayerNormalization(axis=-1, epsilon=1e-5, center=False, dtype=self.dtype_policy, name=name)

    def _attention(self, causal: bool, rotary: bool, name: str | None = None) -> MoonshineMultiHeadAttention:
        return MoonshineMultiHeadAttention(
            num_heads=self.num_heads,
            key_dim=self.head_dim,
            kernel_initializer=clone_initializer(moonshine_kernel_initializer(self.initializer_range)),
            attention_bias=self.attention_bias,
            attention_dropout=self.attention_dropout,
            use_causal_mask=causal,
            apply_rotary_embedding=rotary,
            dtype=self.dtype_policy,
            name=name,
        )

    def _mlp(self, name: str | None = None) -> MoonshineMLP:
        return MoonshineMLP(
            hidden_dim=self.hidden_dim,
            feedforward_expansion_factor=self.feedforward_expansion_factor,
            use_swiglu_activation=self.use_swiglu_activation,
            initializer_range=self.initializer_range,
            dtype=self.dtype_policy,
            name=name,
        )

    def _moonshine_config(self, config: dict[str, Any]) -> dict[str, Any]:
        for name in (
            "hidden_dim",
            "intermediate_dim",
            "num_heads",
            "feedforward_expansion_factor",
            "use_swiglu_activation",
            "pad_head_dim_to_multiple_of",
            "initializer_range",
            "attention_bias",
            "attention_dropout",
        ):
            config[name] = getattr(self, name)
        return config


@register_keras_serializable(package="keras_hub")
class MoonshineEncoderBlock(_MoonshineBlockArguments, TransformerEncoder):
    """Moonshine encoder block: rotary self-attention and a feedforward network, each pre-normed and residual.

    Args:
        hidden_dim: int. The size of the hidden states.
        intermediate_dim: int. Kept in the config (the feedforward width is
            `hidden_dim * feedforward_expansion_factor`).
        num_heads: int. The number of attention heads.
        feedforward_expansion_factor: int. Defaults to `4`.
        use_swiglu_activation: bool. SwiGLU or GELU feedforward. Defaults to
            `False`.
        pad_head_dim_to_multiple_of: Optional int the head size is rounded
            up to.
        initializer_range: float. Defaults to `0.02`.
        attention_bias: bool. Defaults to `False`.
        attention_dropout: float. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.moonshine.moonshine_blocks import MoonshineEncoderBlock
        >>> block = MoonshineEncoderBlock(hidden_dim=8, intermediate_dim=16, num_heads=2)
        >>> block(np.ones((1, 3, 8), "float32"), tf.zeros((3, 2))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        num_heads: int,
        feedforward_expansion_factor: int = 4,
        use_swiglu_activation: bool = False,
        pad_head_dim_to_multiple_of: int | None = None,
        initializer_range: float = 0.02,
        attention_bias: bool = False,
        attention_dropout: float = 0.0,
        **kwargs: Any,
    ) -> None:
        self._init_block(locals())
        self.self_attention_layer = self._attention(causal=False, rotary=True, name="self_attention_layer")
        self.self_attention_layer_norm = self._norm("self_attention_layer_norm")
        self.feedforward_layer_norm = self._norm("feedforward_layer_norm")
        self.feedforward = self._mlp("feedforward")

    def build(self, input_shape: Any) -> None:
        input_shape = tuple(input_shape)
        self.self_attention_layer_norm.build(input_shape)
        self.self_attention_layer.build(input_shape, input_shape, input_shape)
        self.feedforward_layer_norm.build(input_shape)
        self.feedforward.build(input_shape[:-1] + (self.hidden_dim,))
        self.built = True

    def call(
        self, inputs: tf.Tensor, rotary_embedding: tf.Tensor, attention_mask: Any = None, training: Any = None
    ) -> tf.Tensor:
        x = self.self_attention_layer_norm(inputs)
        x = self.self_attention_layer(
            query=x, value=x, key=x, rotary_embedding=rotary_embedding, attention_mask=attention_mask, training=training
        )
        x = x + inputs
        return self.feedforward(self.feedforward_layer_norm(x)) + x

    def compute_output_shape(self, input_shape: Any, *args: Any, **kwargs: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return self._moonshine_config(super().get_config())


@register_keras_serializable(package="keras_hub")
class MoonshineDecoderBlock(_MoonshineBlockArguments, TransformerDecoder):
    """Moonshine decoder block: rotary causal self-attention, cross-attention, feedforward; pre-normed, residual.

    Sub-layers keep KerasHub's attributes (`norm1`, `self_attention`,
    `norm2`, `cross_attention`, `norm3`, `ff`) and automatic names, as
    KerasHub's.

    Args:
        hidden_dim: int. The size of the hidden states.
        intermediate_dim: int. Kept in the config.
        num_heads: int. The number of attention heads.
        feedforward_expansion_factor: int. Defaults to `4`.
        use_swiglu_activation: bool. SwiGLU or GELU feedforward. Defaults to
            `True`.
        pad_head_dim_to_multiple_of: Optional int the head size is rounded
            up to.
        initializer_range: float. Defaults to `0.02`.
        attention_bias: bool. Defaults to `False`.
        attention_dropout: float. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        decoder_sequence: `(batch, T, hidden_dim)`.
        encoder_sequence: `(batch, S, hidden_dim)`.
        rotary_embedding: The angles of the decoder's positions.
        encoder_attention_mask: Optional `(batch, T, S)` mask.
        decoder_padding_mask: Optional `(batch, T)` mask.
        encoder_padding_mask: Optional `(batch, S)` mask of real frames.
        self_attention_cache, self_attention_cache_update_index: The
            self-attention's cache and where the new steps go.
        cross_attention_cache, cross_attention_cache_update_index: The
            cross-attention's cache (`None` index: read as it is).
        training: Whether dropout applies.

    Returns:
        The outputs, and `self_attention_cache` when one is given.

    Example:
        >>> from tfkit.hub.models.moonshine.moonshine_blocks import MoonshineDecoderBlock
        >>> block = MoonshineDecoderBlock(hidden_dim=8, intermediate_dim=16, num_heads=2)
        >>> block(np.ones((1, 3, 8), "float32"), np.ones((1, 5, 8), "float32"), tf.zeros((3, 2))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        num_heads: int,
        feedforward_expansion_factor: int = 4,
        use_swiglu_activation: bool = True,
        pad_head_dim_to_multiple_of: int | None = None,
        initializer_range: float = 0.02,
        attention_bias: bool = False,
        attention_dropout: float = 0.0,
        **kwargs: Any,
    ) -> None:
        self._init_block(locals())
        self.norm1 = self._norm()
        self.self_attention = self._attention(causal=True, rotary=True)
        self.norm2 = self._norm()
        self.cross_attention = self._attention(causal=False, rotary=False)
        self.norm3 = self._norm()
        self.ff = self._mlp()

    def build(self, decoder_sequence_shape: Any, encoder_sequence_shape: Any = None) -> None:
        if encoder_sequence_shape is None:
            raise ValueError(
                f"MoonshineDecoderBlock layer '{self.name}': encoder sequence shape must be provided for "
                f"MoonshineDecoderBlock."
            )
        decoder_shape, encoder_shape = tuple(decoder_sequence_shape), tuple(encoder_sequence_shape)
        self._decoder_sequence_shape, self._encoder_sequence_shape = decoder_shape, encoder_shape
        for norm in (self.norm1, self.norm2, self.norm3):
            norm.build(decoder_shape)
        self.self_attention.build(query_shape=decoder_shape, value_shape=decoder_shape, key_shape=decoder_shape)
        self.cross_attention.build(query_shape=decoder_shape, value_shape=encoder_shape, key_shape=encoder_shape)
        self.ff.build(decoder_shape)
        self.built = True

    def call(
        self,
        decoder_sequence: tf.Tensor,
        encoder_sequence: tf.Tensor,
        rotary_embedding: tf.Tensor,
        encoder_attention_mask: Any = None,
        decoder_padding_mask: Any = None,
        encoder_padding_mask: Any = None,
        self_attention_cache: Any = None,
        self_attention_cache_update_index: Any = None,
        cross_attention_cache: Any = None,
        cross_attention_cache_update_index: Any = None,
        training: Any = None,
    ) -> Any:
        x = decoder_sequence
        self_mask = merge_padding_and_attention_mask(x, decoder_padding_mask, None)
        shape = tf.shape(x)
        input_length = shape[1] if self_attention_cache is None else cache_length(self_attention_cache)
        index = 0 if self_attention_cache_update_index is None else self_attention_cache_update_index
        causal = tf.cast(compute_causal_mask(shape[0], input_length, shape[1], index), tf.int32)
        self_mask = causal if self_mask is None else tf.minimum(tf.cast(self_mask, tf.int32), causal)
        normed = self.norm1(x)
        attended = self.self_attention(
            query=normed,
            value=normed,
            key=normed,
            rotary_embedding=rotary_embedding,
            attention_mask=self_mask,
            cache=self_attention_cache,
            cache_update_index=self_attention_cache_update_index,
            training=training,
        )
        if self_attention_cache is not None:
            attended, self_attention_cache = attended
        x = attended + x
        cross_mask = merge_padding_and_attention_mask(encoder_sequence, encoder_padding_mask, encoder_attention_mask)
        normed = self.norm2(x)
        attended = self.cross_attention(
            query=normed,
            value=encoder_sequence,
            key=encoder_sequence,
            attention_mask=cross_mask,
            cache=cross_attention_cache,
            cache_update_index=cross_attention_cache_update_index,
            training=training,
        )
        if cross_attention_cache is not None:
            attended, _ = attended
        x = attended + x
        x = self.ff(self.norm3(x)) + x
        return (x, self_attention_cache) if self_attention_cache is not None else x

    def compute_output_shape(self, decoder_sequence_shape: Any, *args: Any, **kwargs: Any) -> Any:
        return decoder_sequence_shape

    def get_config(self) -> dict[str, Any]:
        return self._moonshine_config(super().get_config())
