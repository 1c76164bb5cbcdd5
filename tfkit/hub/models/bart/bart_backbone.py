"""``BartBackbone``: Facebook's BART encoder-decoder (shared token embedding, learned positions, post-norm blocks).

backbone = BartBackbone(vocabulary_size=50265, num_layers=6, num_heads=12, hidden_dim=768,
                        intermediate_dim=3072, max_sequence_length=1024)
outputs = backbone({"encoder_token_ids": ..., "encoder_padding_mask": ...,
                    "decoder_token_ids": ..., "decoder_padding_mask": ...})
outputs["encoder_sequence_output"], outputs["decoder_sequence_output"]      # (batch, length, hidden_dim) each
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers, layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers import PositionEmbedding, ReversibleEmbedding, TransformerDecoder, TransformerEncoder
from tfkit.hub.models.attribute_order import AttributeOrderedLayers
from tfkit.hub.models.backbone import Backbone
from tfkit.saving import register_keras_serializable


def bart_kernel_initializer(stddev: float = 0.02) -> Any:
    """BART's initializer of kernels and embeddings, as KerasHub's BART layers use it.

    Args:
        stddev: The standard deviation of the truncated normal. Defaults to
            `0.02`.

    Returns:
        A `tfkit.initializers.TruncatedNormal`.

    Example:
        >>> from tfkit.hub.models.bart.bart_backbone import bart_kernel_initializer
        >>> bart_kernel_initializer().get_config()["stddev"]
        0.02
    """
    return initializers.TruncatedNormal(stddev=stddev)


@register_keras_serializable(package="keras_hub")
class BartBackbone(AttributeOrderedLayers, Backbone):
    """BART encoder-decoder network.

    The encoder and the decoder share one token embedding; each adds its own
    learned position embedding, then a layer norm and dropout, and runs
    `num_layers` post-norm transformer blocks (GELU feedforward networks,
    layer norm epsilon `1e-5`). The decoder's blocks attend causally to the
    decoder sequence and fully to the encoder's output, as described in
    "BART: Denoising Sequence-to-Sequence Pre-training" (Lewis et al., 2019).
    The layer names and weight layout are KerasHub's, so its BART presets
    load.

    Args:
        vocabulary_size: The size of the token vocabulary.
        num_layers: The number of transformer blocks of the encoder, and of
            the decoder.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The hidden size of each feedforward network.
        dropout: The dropout rate of the embeddings and blocks. Defaults to
            `0.1`.
        max_sequence_length: The longest sequence either side takes (the
            position embeddings' length). Defaults to `1024`.
        dtype: The dtype policy of the layers. Defaults to `None`.
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.BartBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
        ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
        >>> ones = np.ones((1, 5), "int32")
        >>> outputs = backbone({"encoder_token_ids": ones, "encoder_padding_mask": ones,
        ...     "decoder_token_ids": ones[:, :3], "decoder_padding_mask": ones[:, :3]})
        >>> outputs["encoder_sequence_output"].shape, outputs["decoder_sequence_output"].shape
        (TensorShape([1, 5, 8]), TensorShape([1, 3, 8]))
    """

    positions_argument = "max_sequence_length"

    def __init__(
        self,
        vocabulary_size: int,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        dropout: float = 0.1,
        max_sequence_length: int = 1024,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=hidden_dim,
            embeddings_initializer=bart_kernel_initializer(),
            dtype=dtype,
            name="token_embedding",
        )
        block_arguments = dict(
            num_heads=num_heads,
            intermediate_dim=intermediate_dim,
            activation="gelu",
            dropout=dropout,
            layer_norm_epsilon=1e-5,
            dtype=dtype,
        )
        for side, block_class in (("encoder", TransformerEncoder), ("decoder", TransformerDecoder)):
            self._embedding_layers(side, dropout, max_sequence_length, dtype)
            blocks = [
                block_class(
                    kernel_initializer=bart_kernel_initializer(),
                    name=f"transformer_{side}_layer_{i}",
                    **block_arguments,
                )
                for i in range(num_layers)
            ]
            setattr(self, f"{side}_transformer_layers", blocks)
        inputs = {
            name: Input(shape=(None,), dtype="int32", name=name)
            for name in ("encoder_token_ids", "encoder_padding_mask", "decoder_token_ids", "decoder_padding_mask")
        }
        encoder_mask, decoder_mask = inputs["encoder_padding_mask"], inputs["decoder_padding_mask"]
        x = self.embed("encoder", inputs["encoder_token_ids"])
        for block in self.encoder_transformer_layers:
            x = block(x, padding_mask=encoder_mask)
        encoder_output = x
        x = self.embed("decoder", inputs["decoder_token_ids"])
        for block in self.decoder_transformer_layers:
            x = block(
                decoder_sequence=x,
                encoder_sequence=encoder_output,
                decoder_padding_mask=decoder_mask,
                encoder_padding_mask=encoder_mask,
            )
        outputs = {"encoder_sequence_output": encoder_output, "decoder_sequence_output": x}
        super().__init__(inputs=inputs, outputs=outputs, dtype=dtype, **kwargs)

    def _embedding_layers(self, side: str, dropout: float, max_sequence_length: int, dtype: Any) -> None:
        """One side's position embedding, sum, layer norm and dropout, under KerasHub's names."""
        setattr(
            self,
            f"{side}_position_embedding",
            PositionEmbedding(
                initializer=bart_kernel_initializer(),
                sequence_length=max_sequence_length,
                dtype=dtype,
                name=f"{side}_position_embedding",
            ),
        )
        setattr(self, f"{side}_embeddings_add", layers.Add(dtype=dtype, name=f"{side}_embeddings_add"))
        norm = layers.LayerNormalization(axis=-1, epsilon=1e-5, dtype=dtype, name=f"{side}_embeddings_layer_norm")
        setattr(self, f"{side}_embeddings_layer_norm", norm)
        dropout_layer = layers.Dropout(dropout, dtype=dtype, name=f"{side}_embeddings_dropout")
        setattr(self, f"{side}_embeddings_dropout", dropout_layer)

    def embed(self, side: str, token_ids: Any, start_index: Any = 0, training: Any = None) -> Any:
        """One side's first block input: token plus position embeddings, layer norm, dropout.

        Args:
            side: `"encoder"` or `"decoder"`.
            token_ids: int `(batch, length)`.
            start_index: The position of `token_ids[:, 0]`. Defaults to `0`.
            training: Whether dropout applies. Defaults to `None`.

        Returns:
            `(batch, length, hidden_dim)`.
        """
        tokens = self.token_embedding(token_ids)
        positions = getattr(self, f"{side}_position_embedding")(tokens, start_index=start_index)
        x = getattr(self, f"{side}_embeddings_add")((tokens, positions))
        x = getattr(self, f"{side}_embeddings_layer_norm")(x)
        return getattr(self, f"{side}_embeddings_dropout")(x, training=training)
