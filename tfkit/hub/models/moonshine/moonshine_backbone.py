"""``MoonshineBackbone``: Moonshine's encoder-decoder on raw 16 kHz audio, KerasHub's layout.

    backbone = MoonshineBackbone(vocabulary_size=32768, filter_dim=288, encoder_num_layers=6, decoder_num_layers=6,
                                 hidden_dim=288, intermediate_dim=1152, encoder_num_heads=8, decoder_num_heads=8)
    outputs = backbone({"encoder_input_values": audio, "encoder_padding_mask": audio_mask,     # (batch, samples, 1)
                        "decoder_token_ids": ids, "decoder_padding_mask": ids_mask})

Three convolutions (strides 64, 3 and 2) turn the samples into frames; the
frames a clip's real samples cover are attended to (``encoder_attention_mask``,
an output too). Encoder and decoder blocks rotate queries and keys
(``MoonshineRotaryEmbedding``); the token embedding is tied to the output head.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import layers, ops
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.reversible_embedding import ReversibleEmbedding
from tfkit.hub.models.attribute_order import AttributeOrderedLayers
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.moonshine.moonshine_blocks import MoonshineDecoderBlock, MoonshineEncoderBlock, _head_dim
from tfkit.hub.models.moonshine.moonshine_layers import MoonshineRotaryEmbedding, moonshine_kernel_initializer
from tfkit.saving import register_keras_serializable


def compute_output_lengths(input_lengths: Any) -> Any:
    """The frames the three convolutions make of `input_lengths` samples (kernel 127 stride 64, 7/3, 3/2);
    `tfkit.ops`, so it records in a functional graph too."""
    lengths = ops.cast(input_lengths, "float32")
    lengths = ops.floor((lengths - 127) / 64) + 1
    lengths = ops.floor((lengths - 7) / 3) + 1
    lengths = ops.floor((lengths - 3) / 2) + 1
    return ops.maximum(ops.cast(lengths, "int32"), 0)


@register_keras_serializable(package="keras_hub")
class ComputeAttentionMask(layers.Layer):
    """Which frames of the encoder's features hold audio: `(batch, frames)` booleans from each clip's frame count.

    Example:
        >>> from tfkit.hub.models.moonshine.moonshine_backbone import ComputeAttentionMask
        >>> ComputeAttentionMask()(np.ones((1, 4, 2), "float32"), np.array([2])).numpy()
        array([[ True,  True, False, False]])
    """

    def call(self, features_for_shape: tf.Tensor, output_lengths: tf.Tensor) -> tf.Tensor:
        return tf.range(tf.shape(features_for_shape)[1])[None, :] < tf.cast(output_lengths, tf.int32)[:, None]


@register_keras_serializable(package="keras_hub")
class Arange(layers.Layer):
    """The positions `0..length-1` of a `(batch, length, ...)` input, as int32.

    Example:
        >>> from tfkit.hub.models.moonshine.moonshine_backbone import Arange
        >>> Arange()(np.ones((2, 3))).numpy()
        array([0, 1, 2], dtype=int32)
    """

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return tf.range(tf.shape(inputs)[1], dtype=tf.int32)


@register_keras_serializable(package="keras_hub")
class MoonshineBackbone(AttributeOrderedLayers, Backbone):
    """Moonshine backbone with integrated audio feature extraction.

    The encoder-decoder of "Moonshine: Speech Recognition for Live
    Transcription and Voice Commands" (Jeffries et al., 2024): convolutions
    over raw audio, rotary encoder blocks, and decoder blocks with rotary
    causal self-attention and cross-attention. Layer names and weights are
    KerasHub's, so KerasHub's Moonshine presets load into it.

    Args:
        vocabulary_size: int. The size of the token vocabulary.
        filter_dim: int. The channels of the convolutions (usually
            `hidden_dim`).
        encoder_num_layers: int. The number of encoder blocks.
        decoder_num_layers: int. The number of decoder blocks.
        hidden_dim: int. The size of the hidden states.
        intermediate_dim: int. Kept in the config.
        encoder_num_heads: int. The encoder's attention heads.
        decoder_num_heads: int. The decoder's attention heads.
        feedforward_expansion_factor: int. The feedforward width over
            `hidden_dim`. Defaults to `4`.
        encoder_use_swiglu_activation: bool. Defaults to `False` (GELU).
        decoder_use_swiglu_activation: bool. Defaults to `True`.
        max_position_embeddings: int. Defaults to `2048`.
        pad_head_dim_to_multiple_of: Optional int the head size is rounded
            up to. Defaults to `None`.
        partial_rotary_factor: float. The fraction of each head that
            rotates. Defaults to `0.62`.
        dropout: float. The dropout rate of the embeddings. Defaults to `0.0`.
        initializer_range: float. Defaults to `0.02`.
        rope_theta: float. The rotary base. Defaults to `10000.0`.
        attention_bias: bool. Whether the projections have biases. Defaults
            to `False`.
        attention_dropout: float. Defaults to `0.0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"encoder_input_values": float (batch, samples, 1),
            "encoder_padding_mask": bool (batch, samples),
            "decoder_token_ids": int (batch, length),
            "decoder_padding_mask": bool (batch, length)}`.

    Returns:
        `{"encoder_sequence_output", "decoder_sequence_output",
        "encoder_attention_mask"}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.MoonshineBackbone(vocabulary_size=20, filter_dim=8, encoder_num_layers=1,
        ...     decoder_num_layers=1, hidden_dim=8, intermediate_dim=16, encoder_num_heads=2, decoder_num_heads=2)
        >>> outputs = backbone({"encoder_input_values": np.ones((1, 1600, 1), "float32"),
        ...     "encoder_padding_mask": np.ones((1, 1600), bool), "decoder_token_ids": np.ones((1, 4), "int32"),
        ...     "decoder_padding_mask": np.ones((1, 4), bool)})
        >>> outputs["encoder_sequence_output"].shape, outputs["decoder_sequence_output"].shape
        (TensorShape([1, 2, 8]), TensorShape([1, 4, 8]))
    """

    def __init__(
        self,
        vocabulary_size: int,
        filter_dim: int,
        encoder_num_layers: int,
        decoder_num_layers: int,
        hidden_dim: int,
        intermediate_dim: int,
        encoder_num_heads: int,
        decoder_num_heads: int,
        feedforward_expansion_factor: int = 4,
        encoder_use_swiglu_activation: bool = False,
        decoder_use_swiglu_activation: bool = True,
        max_position_embeddings: int = 2048,
        pad_head_dim_to_multiple_of: int | None = None,
        partial_rotary_factor: float = 0.62,
        dropout: float = 0.0,
        initializer_range: float = 0.02,
        rope_theta: float = 10000.0,
        attention_bias: bool = False,
        attention_dropout: float = 0.0,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        def conv(filters: int, size: int, stride: int, bias: bool, name: str) -> Any:
            initializer = moonshine_kernel_initializer(initializer_range)
            return layers.Conv1D(
                filters, size, strides=stride, use_bias=bias, kernel_initializer=initializer, name=name, dtype=dtype
            )

        self._compute_mask_layer = ComputeAttentionMask(name="compute_attention_mask")
        self.conv1 = conv(filter_dim, 127, 64, False, "conv1")
        self.group_norm = layers.GroupNormalization(groups=1, axis=-1, epsilon=1e-5, name="group_norm", dtype=dtype)
        self.tanh_after_conv1 = layers.Activation("tanh", name="tanh_after_conv1", dtype=dtype)
        self.conv2 = conv(2 * filter_dim, 7, 3, True, "conv2")
        self.gelu_after_conv2 = layers.Activation("gelu", name="gelu_after_conv2", dtype=dtype)
        self.conv3 = conv(filter_dim, 3, 2, True, "conv3")
        self.gelu_after_conv3 = layers.Activation("gelu", name="gelu_after_conv3", dtype=dtype)
        self.token_embedding = ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            embeddings_initializer=moonshine_kernel_initializer(initializer_range),
            name="token_embedding",
            dtype=dtype,
        )
        rotary = dict(
            max_position_embeddings=max_position_embeddings,
            partial_rotary_factor=partial_rotary_factor,
            base_value=rope_theta,
            dtype=dtype,
        )
        self.encoder_rotary_embedding = MoonshineRotaryEmbedding(
            head_dim=_head_dim(hidden_dim, encoder_num_heads, pad_head_dim_to_multiple_of),
            name="encoder_rotary_embedding",
            **rotary,
        )
        self.decoder_rotary_embedding = MoonshineRotaryEmbedding(
            head_dim=_head_dim(hidden_dim, decoder_num_heads, pad_head_dim_to_multiple_of),
            name="decoder_rotary_embedding",
            **rotary,
        )
        self.encoder_dropout = layers.Dropout(dropout, name="encoder_dropout", dtype=dtype)
        self.decoder_dropout = layers.Dropout(dropout, name="decoder_dropout", dtype=dtype)
        blocks = dict(
            hidden_dim=hidden_dim,
            intermediate_dim=intermediate_dim,
            feedforward_expansion_factor=feedforward_expansion_factor,
            pad_head_dim_to_multiple_of=pad_head_dim_to_multiple_of,
            initializer_range=initializer_range,
            attention_bias=attention_bias,
            attention_dropout=attention_dropout,
            dtype=dtype,
        )
        self.encoder_blocks = [
            MoonshineEncoderBlock(
                num_heads=encoder_num_heads,
                use_swiglu_activation=encoder_use_swiglu_activation,
                name=f"encoder_block_{i}",
                **blocks,
            )
            for i in range(encoder_num_layers)
        ]
        self.encoder_final_layer_norm = layers.LayerNormalization(
            epsilon=1e-5, center=False, name="encoder_final_layer_norm", dtype=dtype
        )
        self.decoder_blocks = [
            MoonshineDecoderBlock(
                num_heads=decoder_num_heads,
                use_swiglu_activation=decoder_use_swiglu_activation,
                name=f"decoder_block_{i}",
                **blocks,
            )
            for i in range(decoder_num_layers)
        ]
        self.decoder_post_norm = layers.LayerNormalization(
            epsilon=1e-5, center=False, name="decoder_post_norm", dtype=dtype
        )

        audio = Input(shape=(None, 1), name="encoder_input_values", dtype=dtype)
        audio_mask = Input(shape=(None,), name="encoder_padding_mask", dtype="bool")
        token_ids = Input(shape=(None,), name="decoder_token_ids", dtype="int32")
        token_mask = Input(shape=(None,), name="decoder_padding_mask", dtype="bool")
        encoder_output, frames_mask = self.encode(audio, audio_mask)
        decoder_angles = self.decoder_rotary_embedding(Arange(name="decoder_positions")(token_ids))
        y = self.decoder_dropout(self.token_embedding(token_ids))
        for block in self.decoder_blocks:
            y = block(
                decoder_sequence=y,
                encoder_sequence=encoder_output,
                rotary_embedding=decoder_angles,
                decoder_padding_mask=token_mask,
                encoder_padding_mask=frames_mask,
            )
        super().__init__(
            inputs={
                "encoder_input_values": audio,
                "encoder_padding_mask": audio_mask,
                "decoder_token_ids": token_ids,
                "decoder_padding_mask": token_mask,
            },
            outputs={
                "encoder_sequence_output": encoder_output,
                "decoder_sequence_output": self.decoder_post_norm(y),
                "encoder_attention_mask": frames_mask,
            },
            dtype=dtype,
            **kwargs,
        )

    def encode(self, audio: Any, padding_mask: Any, training: Any = None) -> tuple[Any, Any]:
        """The encoder's output for samples `(batch, samples, 1)` and their padding mask `(batch, samples)`.

        Args:
            audio: The samples.
            padding_mask: Which samples are audio.
            training: Whether dropout applies.

        Returns:
            `(encoder_output, frames_mask)`: `(batch, frames, hidden_dim)`
            and which frames hold audio, `(batch, frames)` booleans.
        """
        x = self.gelu_after_conv2(self.conv2(self.group_norm(self.tanh_after_conv1(self.conv1(audio)))))
        x = self.gelu_after_conv3(self.conv3(x))
        output_lengths = compute_output_lengths(ops.sum(ops.cast(padding_mask, "int32"), axis=1))
        frames_mask = self._compute_mask_layer(x, output_lengths)
        angles = self.encoder_rotary_embedding(Arange(name="encoder_positions")(x))
        x = self.encoder_dropout(x, training=training)
        for block in self.encoder_blocks:
            x = block(x, angles, attention_mask=frames_mask, training=training)
        return self.encoder_final_layer_norm(x), frames_mask
