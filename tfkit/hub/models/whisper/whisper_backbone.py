"""``WhisperBackbone``: OpenAI's Whisper encoder-decoder (speech in, text hidden states out), KerasHub's layout.

    backbone = WhisperBackbone(vocabulary_size=51864, num_layers=4, num_heads=6, hidden_dim=384, intermediate_dim=1536)
    outputs = backbone({"encoder_features": mels, "decoder_token_ids": ids, "decoder_padding_mask": mask})
    outputs["encoder_sequence_output"], outputs["decoder_sequence_output"]

The encoder: two GELU convolutions over the log-mel frames (the second halves
the frame rate), fixed position embeddings (not trained), pre-norm blocks and a
final layer norm. The decoder: token plus learned position embeddings,
pre-norm blocks with causal self-attention and cross-attention to the encoder,
and a final layer norm.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers, layers, ops
from tfkit.engine.functional_graph import Input
from tfkit.engine.layer import Layer
from tfkit.hub.layers.position_embedding import PositionEmbedding
from tfkit.hub.layers.token_and_position_embedding import TokenAndPositionEmbedding
from tfkit.hub.models.attribute_order import AttributeOrderedLayers
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.whisper.whisper_decoder import WhisperDecoder
from tfkit.hub.models.whisper.whisper_encoder import WhisperEncoder
from tfkit.saving import register_keras_serializable


def whisper_kernel_initializer(stddev: float = 0.02) -> Any:
    """Whisper's initializer of kernels and embeddings: a truncated normal."""
    return initializers.TruncatedNormal(stddev=stddev)


class Padder(Layer):
    """Pads one frame of zeros at both ends of the time axis (before the strided convolution), as KerasHub's."""

    def call(self, x: tf.Tensor) -> tf.Tensor:
        return tf.pad(x, [[0, 0], [1, 1], [0, 0]])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        length = None if input_shape[1] is None else input_shape[1] + 2
        return (input_shape[0], length, input_shape[2])


@register_keras_serializable(package="keras_hub")
class WhisperBackbone(AttributeOrderedLayers, Backbone):
    """A Whisper encoder-decoder network for speech.

    The Transformer encoder-decoder of "Robust Speech Recognition via
    Large-Scale Weak Supervision" (Radford et al., 2022), without the head
    that predicts the next token (`WhisperAudioToText` ties the token
    embedding back to the vocabulary). The encoder reads log-mel features
    (`WhisperAudioConverter`), the decoder token ids. Layer names and weights
    are KerasHub's, so KerasHub's Whisper presets load into it.

    Args:
        vocabulary_size: int. The size of the token vocabulary.
        num_layers: int. The number of encoder blocks, and of decoder blocks.
        num_heads: int. The number of attention heads of each block.
        hidden_dim: int. The size of the hidden states.
        intermediate_dim: int. The hidden size of each feedforward network.
        num_mels: int. The number of mel-frequency filters of the features.
            Defaults to `80`.
        dropout: float. The dropout rate. Defaults to `0.0`.
        max_encoder_sequence_length: int. The most feature frames the encoder
            takes; its position embedding covers half as many (the second
            convolution has a stride of 2). Defaults to `3000`.
        max_decoder_sequence_length: int. The most tokens the decoder takes.
            Defaults to `448`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"encoder_features": float (batch, frames, num_mels),
            "decoder_token_ids": int (batch, length),
            "decoder_padding_mask": (batch, length)}`.

    Returns:
        `{"encoder_sequence_output": (batch, frames // 2, hidden_dim),
        "decoder_sequence_output": (batch, length, hidden_dim)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.WhisperBackbone(vocabulary_size=20, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, num_mels=4, max_encoder_sequence_length=12,
        ...     max_decoder_sequence_length=6)
        >>> outputs = backbone({"encoder_features": np.ones((1, 12, 4), "float32"),
        ...     "decoder_token_ids": np.ones((1, 5), "int32"), "decoder_padding_mask": np.ones((1, 5), "int32")})
        >>> outputs["encoder_sequence_output"].shape, outputs["decoder_sequence_output"].shape
        (TensorShape([1, 6, 8]), TensorShape([1, 5, 8]))
    """

    positions_argument = "max_decoder_sequence_length"

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        num_mels: int = 80,
        dropout: float = 0.0,
        max_encoder_sequence_length: int = 3000,
        max_decoder_sequence_length: int = 448,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.encoder_conv_layer_1 = layers.Conv1D(
            filters=hidden_dim,
            kernel_size=3,
            strides=1,
            padding="same",
            dtype=dtype,
            name="encoder_token_embedding_conv_layer_1",
        )
        self.encoder_conv_layer_2 = layers.Conv1D(
            filters=hidden_dim,
            kernel_size=3,
            strides=2,
            padding="valid",
            dtype=dtype,
            name="encoder_token_embedding_conv_layer_2",
        )
        self.encoder_padder = Padder(dtype=dtype, name="encoder_padder")
        self.encoder_position_embedding = PositionEmbedding(
            initializer=whisper_kernel_initializer(),
            sequence_length=max_encoder_sequence_length // 2,
            dtype=dtype,
            name="encoder_position_embedding",
            trainable=False,
        )
        self.encoder_embeddings_add = layers.Add(dtype=dtype, name="encoder_embeddings_add")
        self.encoder_embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="encoder_embeddings_dropout")
        block_arguments = dict(
            num_heads=num_heads,
            intermediate_dim=intermediate_dim,
            activation="gelu",
            layer_norm_epsilon=1e-5,
            dropout=dropout,
            kernel_initializer=whisper_kernel_initializer(),
            normalize_first=True,
            dtype=dtype,
        )
        self.encoder_transformer_layers = [
            WhisperEncoder(**block_arguments, name=f"transformer_encoder_layer_{i}") for i in range(num_layers)
        ]
        self.encoder_layer_norm = layers.LayerNormalization(
            axis=-1, epsilon=1e-5, dtype=dtype, name="encoder_layer_norm"
        )
        self.decoder_embeddings = TokenAndPositionEmbedding(
            vocabulary_size=vocabulary_size,
            sequence_length=max_decoder_sequence_length,
            embedding_dim=hidden_dim,
            embeddings_initializer=whisper_kernel_initializer(),
            dtype=dtype,
            name="decoder_token_and_position_embedding",
        )
        self.token_embedding = self.decoder_embeddings.token_embedding
        self.decoder_embeddings_dropout = layers.Dropout(dropout, dtype=dtype, name="decoder_embeddings_dropout")
        self.decoder_transformer_layers = [
            WhisperDecoder(**block_arguments, name=f"transformer_decoder_layer_{i}") for i in range(num_layers)
        ]
        self.decoder_layer_norm = layers.LayerNormalization(
            axis=-1, epsilon=1e-5, dtype=dtype, name="decoder_layer_norm"
        )

        encoder_features = Input(shape=(None, num_mels), dtype="float32", name="encoder_features")
        decoder_token_ids = Input(shape=(None,), dtype="int32", name="decoder_token_ids")
        decoder_padding_mask = Input(shape=(None,), dtype="int32", name="decoder_padding_mask")
        encoder_output = self.encode(encoder_features)
        decoder_output = self.decode(decoder_token_ids, decoder_padding_mask, encoder_output)
        super().__init__(
            inputs={
                "encoder_features": encoder_features,
                "decoder_token_ids": decoder_token_ids,
                "decoder_padding_mask": decoder_padding_mask,
            },
            outputs={"encoder_sequence_output": encoder_output, "decoder_sequence_output": decoder_output},
            dtype=dtype,
            **kwargs,
        )

    def encode(self, features: Any, training: Any = None) -> Any:
        """The encoder's output for log-mel `features` `(batch, frames, num_mels)`: `(batch, frames // 2, hidden)`."""
        x = ops.gelu(self.encoder_conv_layer_1(features), approximate=False)
        x = self.encoder_padder(x)
        x = ops.gelu(self.encoder_conv_layer_2(x), approximate=False)
        x = self.encoder_embeddings_add((x, self.encoder_position_embedding(x)))
        x = self.encoder_embeddings_dropout(x, training=training)
        for block in self.encoder_transformer_layers:
            x = block(x, training=training)
        return self.encoder_layer_norm(x)

    def decode(self, token_ids: Any, padding_mask: Any, encoder_output: Any, training: Any = None) -> Any:
        """The decoder's last hidden states for `token_ids` attending to `encoder_output`, without a cache."""
        x = self.decoder_embeddings(token_ids)
        x = self.decoder_embeddings_dropout(x, training=training)
        for block in self.decoder_transformer_layers:
            x = block(
                decoder_sequence=x,
                encoder_sequence=encoder_output,
                decoder_padding_mask=padding_mask,
                training=training,
            )
        return self.decoder_layer_norm(x)
