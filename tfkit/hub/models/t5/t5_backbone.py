"""``T5Backbone``: Google's T5 encoder-decoder (relative position bias, RMS norms, shared token embedding).

backbone = T5Backbone(vocabulary_size=32128, num_layers=6, num_heads=8, hidden_dim=512, intermediate_dim=1024)
outputs = backbone({"encoder_token_ids": ..., "encoder_padding_mask": ..., "decoder_token_ids": ...,
                    "decoder_padding_mask": ...})
outputs["encoder_sequence_output"], outputs["decoder_sequence_output"]     # (batch, length, hidden_dim) each

The token embedding is shared by the encoder and the decoder (and, with
``tie_embedding_weights``, by the language model head of ``T5Seq2SeqLM``).
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.reversible_embedding import ReversibleEmbedding
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.t5.t5_layer_norm import T5LayerNorm
from tfkit.hub.models.t5.t5_transformer_layer import T5TransformerLayer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class T5Backbone(Backbone):
    """T5 encoder-decoder backbone model.

    The network of "Exploring the Limits of Transfer Learning with a Unified
    Text-to-Text Transformer" (Raffel et al., 2019): a token embedding shared
    by an encoder and a decoder of `num_layers` pre-norm layers each, whose
    attention adds a learned bias of the bucketed relative positions (made
    by each stack's first layer) and is not scaled, with T5's scale-only
    norms. The feedforward networks are gated as T5 1.1's
    (`use_gated_activation=True`, the default) or plain as T5 1.0's. Layer
    names and weights are KerasHub's, so KerasHub's T5 presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of layers of the encoder, and of the decoder.
        num_heads: The number of attention heads of each layer.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of each feedforward network's hidden
            layer.
        key_value_dim: The size of each attention head. Defaults to `None`
            (`hidden_dim // num_heads`).
        dropout: The dropout rate. Defaults to `0.1`.
        activation: The feedforward networks' activation. Defaults to
            `"relu"`.
        use_gated_activation: Whether the feedforward networks are gated
            (GEGLU with `"gelu"`). Defaults to `True`.
        layer_norm_epsilon: The norms' epsilon. Defaults to `1e-6`.
        tie_embedding_weights: Whether the language model head uses the
            token embedding's weights (else a `reverse_embeddings` weight of
            its own). Defaults to `True`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"encoder_token_ids", "encoder_padding_mask",
            "decoder_token_ids", "decoder_padding_mask"}`, each int
            `(batch, length)`.

    Returns:
        `{"encoder_sequence_output": (batch, encoder_length, hidden_dim),
        "decoder_sequence_output": (batch, decoder_length, hidden_dim)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.T5Backbone(vocabulary_size=10, num_layers=2, num_heads=2, hidden_dim=8,
        ...     intermediate_dim=16)
        >>> ones = np.ones((1, 4), "int32")
        >>> outputs = backbone({"encoder_token_ids": ones, "encoder_padding_mask": ones,
        ...     "decoder_token_ids": ones[:, :3], "decoder_padding_mask": ones[:, :3]})
        >>> outputs["encoder_sequence_output"].shape, outputs["decoder_sequence_output"].shape
        (TensorShape([1, 4, 8]), TensorShape([1, 3, 8]))
    """

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        key_value_dim: int | None = None,
        dropout: float = 0.1,
        activation: Any = "relu",
        use_gated_activation: bool = True,
        layer_norm_epsilon: float = 1e-06,
        tie_embedding_weights: bool = True,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            tie_weights=tie_embedding_weights,
            embeddings_initializer=initializers.TruncatedNormal(1.0),
            dtype=dtype,
            name="token_embedding",
        )
        self.encoder_embedding_dropout = layers.Dropout(dropout, dtype=dtype, name="encoder_embedding_dropout")
        block = dict(
            hidden_dim=hidden_dim,
            intermediate_dim=intermediate_dim,
            key_value_dim=key_value_dim or hidden_dim // num_heads,
            dropout=dropout,
            activation=activation,
            layer_norm_epsilon=layer_norm_epsilon,
            num_heads=num_heads,
            use_gated_activation=use_gated_activation,
            dtype=dtype,
        )
        self.encoder_transformer_layers = [
            T5TransformerLayer(
                is_decoder=False, use_relative_attention_bias=i == 0, name=f"transformer_encoder_layer_{i}", **block
            )
            for i in range(num_layers)
        ]
        self.encoder_layer_norm = T5LayerNorm(layer_norm_epsilon, dtype=dtype, name="encoder_output_layer_norm")
        self.encoder_dropout = layers.Dropout(dropout, dtype=dtype, name="encoder_output_dropout")
        self.decoder_embedding_dropout = layers.Dropout(dropout, dtype=dtype, name="decoder_embedding_dropout")
        self.decoder_transformer_layers = [
            T5TransformerLayer(
                is_decoder=True, use_relative_attention_bias=i == 0, name=f"transformer_decoder_layer_{i}", **block
            )
            for i in range(num_layers)
        ]
        self.decoder_layer_norm = T5LayerNorm(layer_norm_epsilon, dtype=dtype, name="decoder_output_layer_norm")
        self.decoder_dropout = layers.Dropout(dropout, dtype=dtype, name="decoder_output_dropout")

        inputs = {
            name: Input(shape=(None,), dtype="int32", name=name)
            for name in ("encoder_token_ids", "encoder_padding_mask", "decoder_token_ids", "decoder_padding_mask")
        }
        encoder_output = self.run_encoder(inputs["encoder_token_ids"], inputs["encoder_padding_mask"])
        x = self.decoder_embedding_dropout(self.token_embedding(inputs["decoder_token_ids"]))
        encoder_attention_mask = inputs["encoder_padding_mask"][:, None, :]
        position_bias = None
        for layer in self.decoder_transformer_layers:
            x, position_bias = layer(
                x,
                attention_mask=inputs["decoder_padding_mask"][:, None, :],
                position_bias=position_bias,
                encoder_hidden_states=encoder_output,
                encoder_attention_mask=encoder_attention_mask,
                use_causal_mask=True,
            )
        decoder_output = self.decoder_dropout(self.decoder_layer_norm(x))
        super().__init__(
            inputs,
            outputs={"encoder_sequence_output": encoder_output, "decoder_sequence_output": decoder_output},
            dtype=dtype,
            **kwargs,
        )

    def run_encoder(self, token_ids: Any, padding_mask: Any, training: Any = None) -> Any:
        """The encoder's output `(batch, length, hidden_dim)` for `token_ids` and their `padding_mask`.

        The backbone's graph and `T5Seq2SeqLM`'s generation both encode with
        it.

        Args:
            token_ids: Int `(batch, length)`.
            padding_mask: `(batch, length)`, `1` at tokens.
            training: Whether dropout is on.

        Returns:
            The final-normed encoder hidden states.
        """
        x = self.encoder_embedding_dropout(self.token_embedding(token_ids), training=training)
        attention_mask = padding_mask[:, None, :]
        position_bias = None
        for layer in self.encoder_transformer_layers:
            x, position_bias = layer(
                x, attention_mask=attention_mask, position_bias=position_bias, use_causal_mask=False, training=training
            )
        return self.encoder_dropout(self.encoder_layer_norm(x), training=training)
