"""``T5GemmaBackbone``: Google's T5Gemma, Gemma 2's blocks as an encoder-decoder, KerasHub's layout.

    backbone = T5GemmaBackbone(vocabulary_size=256000, encoder_hidden_dim=768, encoder_intermediate_dim=3072,
                               encoder_num_layers=12, encoder_num_attention_heads=12, encoder_num_key_value_heads=12,
                               encoder_head_dim=64, encoder_layer_types=["sliding_attention", "full_attention"] * 6,
                               decoder_hidden_dim=768, ..., sliding_window=4096)
    outputs = backbone({"encoder_token_ids": ..., "encoder_padding_mask": ...,
                        "decoder_token_ids": ..., "decoder_padding_mask": ...})
    outputs["encoder_sequence_output"], outputs["decoder_sequence_output"]

The encoder and the decoder each embed their tokens (the decoder's embedding is the tied output projection),
scale them by the square root of their width and run their blocks, then a final RMS norm.
"""

from __future__ import annotations

from typing import Any

from tfkit import layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.hub.models.attribute_order import AttributeOrderedLayers
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.gemma.gemma_backbone import scaled_embeddings
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.hub.models.t5gemma.t5gemma_decoder import T5GemmaDecoderLayer
from tfkit.hub.models.t5gemma.t5gemma_encoder import T5GemmaEncoderLayer
from tfkit.hub.models.t5gemma.t5gemma_layers import t5gemma_kernel_initializer
from tfkit.saving import register_keras_serializable

INPUT_NAMES = ("encoder_token_ids", "encoder_padding_mask", "decoder_token_ids", "decoder_padding_mask")


@register_keras_serializable(package="keras_hub")
class T5GemmaBackbone(AttributeOrderedLayers, Backbone):
    """T5Gemma backbone model.

    An encoder-decoder of Gemma 2 blocks ("Encoder-Decoder Gemma", Zhang et
    al., 2025): the encoder attends to every unpadded position, the decoder
    causally (within `sliding_window` on its `"sliding_attention"` layers)
    and to the encoder's output. Each has its own token embedding, scaled by
    the square root of its width, grouped-query attention with rotary
    positions, RMS norms before and after every attention and feedforward
    network, and a final RMS norm. The layer names and weight layout are
    KerasHub's, so its T5Gemma presets load.

    Args:
        vocabulary_size: The size of the token vocabulary.
        encoder_hidden_dim: The encoder's width.
        encoder_intermediate_dim: The encoder's feedforward width.
        encoder_num_layers: The number of encoder blocks.
        encoder_num_attention_heads: The encoder's query heads.
        encoder_num_key_value_heads: The encoder's key and value heads.
        encoder_head_dim: The size of the encoder's heads.
        encoder_layer_types: One of `"full_attention"` and
            `"sliding_attention"` an encoder block (KerasHub's encoder
            attends to every position either way).
        decoder_hidden_dim: The decoder's width.
        decoder_intermediate_dim: The decoder's feedforward width.
        decoder_num_layers: The number of decoder blocks.
        decoder_num_attention_heads: The decoder's query heads.
        decoder_num_key_value_heads: The decoder's key and value heads.
        decoder_head_dim: The size of the decoder's heads.
        decoder_layer_types: One of `"full_attention"` and
            `"sliding_attention"` a decoder block.
        dropout_rate: The dropout rate of the embeddings, residual branches
            and feedforward networks. Defaults to `0.0`.
        rms_norm_eps: The epsilon of every RMS norm. Defaults to `1e-6`.
        query_pre_attn_scalar: The queries are scaled by its inverse square
            root. Defaults to `1.0`.
        attention_bias: Whether the attention projections have biases.
            Defaults to `False`.
        hidden_activation: The feedforward activation. Defaults to
            `"gelu_approximate"`.
        tie_word_embeddings: Whether the decoder's embedding is its output
            projection. Defaults to `True`.
        initializer_range: The deviation of the normal initializer.
            Defaults to `0.02`.
        attention_dropout: The dropout rate of the attention probabilities.
            Defaults to `0.0`.
        sliding_window: The window of the `"sliding_attention"` blocks.
            Defaults to `None`.
        cross_attention_hidden_size: The width the decoder's
            cross-attention reads. Defaults to `None` (`encoder_hidden_dim`).
        attn_logit_softcapping: Optional soft cap of the attention logits.
            Defaults to `None`.
        final_logit_softcapping: Optional soft cap of the output logits
            (`T5GemmaSeq2SeqLM`'s). Defaults to `None`.
        rope_max_wavelength: The rotary embeddings' wavelength. Defaults to
            `10000.0`.
        dtype: The dtype policy of the layers. Defaults to `None`.
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.T5GemmaBackbone(vocabulary_size=10, encoder_hidden_dim=8,
        ...     encoder_intermediate_dim=16, encoder_num_layers=1, encoder_num_attention_heads=2,
        ...     encoder_num_key_value_heads=1, encoder_head_dim=4, encoder_layer_types=["full_attention"],
        ...     decoder_hidden_dim=8, decoder_intermediate_dim=16, decoder_num_layers=1,
        ...     decoder_num_attention_heads=2, decoder_num_key_value_heads=1, decoder_head_dim=4,
        ...     decoder_layer_types=["sliding_attention"], sliding_window=2)
        >>> ones = np.ones((1, 5), "int32")
        >>> outputs = backbone({"encoder_token_ids": ones, "encoder_padding_mask": ones,
        ...     "decoder_token_ids": ones[:, :3], "decoder_padding_mask": ones[:, :3]})
        >>> outputs["encoder_sequence_output"].shape, outputs["decoder_sequence_output"].shape
        (TensorShape([1, 5, 8]), TensorShape([1, 3, 8]))
    """

    def __init__(
        self,
        vocabulary_size: int,
        encoder_hidden_dim: int,
        encoder_intermediate_dim: int,
        encoder_num_layers: int,
        encoder_num_attention_heads: int,
        encoder_num_key_value_heads: int,
        encoder_head_dim: int,
        encoder_layer_types: list[str],
        decoder_hidden_dim: int,
        decoder_intermediate_dim: int,
        decoder_num_layers: int,
        decoder_num_attention_heads: int,
        decoder_num_key_value_heads: int,
        decoder_head_dim: int,
        decoder_layer_types: list[str],
        dropout_rate: float = 0.0,
        rms_norm_eps: float = 1e-6,
        query_pre_attn_scalar: float = 1.0,
        attention_bias: bool = False,
        hidden_activation: str = "gelu_approximate",
        tie_word_embeddings: bool = True,
        initializer_range: float = 0.02,
        attention_dropout: float = 0.0,
        sliding_window: int | None = None,
        cross_attention_hidden_size: int | None = None,
        attn_logit_softcapping: float | None = None,
        final_logit_softcapping: float | None = None,
        rope_max_wavelength: float = 10000.0,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        for side, count, types in (
            ("encoder", encoder_num_layers, encoder_layer_types),
            ("decoder", decoder_num_layers, decoder_layer_types),
        ):
            if len(types) < count:
                raise ValueError(f"{side}_layer_types has {len(types)} entries for {side}_num_layers={count}")
        self.kernel_initializer = t5gemma_kernel_initializer(initializer_range)
        self.token_embedding = layers.Embedding(
            input_dim=vocabulary_size,
            output_dim=encoder_hidden_dim,
            embeddings_initializer=clone_initializer(self.kernel_initializer),
            dtype=dtype,
            name="encoder_token_embedding",
        )
        self.decoder_token_embedding = layers.ReversibleEmbedding(
            input_dim=vocabulary_size,
            output_dim=decoder_hidden_dim,
            tie_weights=tie_word_embeddings,
            embeddings_initializer=clone_initializer(self.kernel_initializer),
            dtype=dtype,
            name="decoder_token_embedding",
        )
        shared = dict(
            rms_norm_eps=rms_norm_eps,
            query_pre_attn_scalar=query_pre_attn_scalar,
            attention_bias=attention_bias,
            hidden_activation=hidden_activation,
            dropout_rate=dropout_rate,
            initializer_range=initializer_range,
            attention_dropout=attention_dropout,
            sliding_window=sliding_window,
            attn_logit_softcapping=attn_logit_softcapping,
            rope_max_wavelength=rope_max_wavelength,
            dtype=dtype,
        )
        self.encoder_layers = [
            T5GemmaEncoderLayer(
                hidden_size=encoder_hidden_dim,
                num_attention_heads=encoder_num_attention_heads,
                num_key_value_heads=encoder_num_key_value_heads,
                intermediate_size=encoder_intermediate_dim,
                head_dim=encoder_head_dim,
                layer_type=encoder_layer_types[i],
                name=f"encoder_layer_{i}",
                **shared,
            )
            for i in range(encoder_num_layers)
        ]
        self.encoder_norm = RMSNormalization(epsilon=rms_norm_eps, dtype=dtype)
        self.encoder_dropout = layers.Dropout(dropout_rate, dtype=dtype)
        self.decoder_layers = [
            T5GemmaDecoderLayer(
                hidden_size=decoder_hidden_dim,
                num_attention_heads=decoder_num_attention_heads,
                num_key_value_heads=decoder_num_key_value_heads,
                intermediate_size=decoder_intermediate_dim,
                head_dim=decoder_head_dim,
                layer_type=decoder_layer_types[i],
                cross_attention_hidden_size=cross_attention_hidden_size or encoder_hidden_dim,
                name=f"decoder_layer_{i}",
                **shared,
            )
            for i in range(decoder_num_layers)
        ]
        self.decoder_norm = RMSNormalization(epsilon=rms_norm_eps, dtype=dtype)
        self.decoder_dropout = layers.Dropout(dropout_rate, dtype=dtype)

        inputs = {name: Input(shape=(None,), dtype="int32", name=name) for name in INPUT_NAMES}
        encoder_mask, decoder_mask = inputs["encoder_padding_mask"], inputs["decoder_padding_mask"]
        x = self.encoder_dropout(
            scaled_embeddings(self.token_embedding(inputs["encoder_token_ids"]), encoder_hidden_dim)
        )
        for layer in self.encoder_layers:
            x = layer(x, padding_mask=encoder_mask)
        encoder_output = self.encoder_dropout(self.encoder_norm(x))
        x = self.decoder_token_embedding(inputs["decoder_token_ids"])
        x = self.decoder_dropout(scaled_embeddings(x, decoder_hidden_dim))
        for layer in self.decoder_layers:
            x, _ = layer(
                (x, encoder_output), self_attention_padding_mask=decoder_mask, cross_attention_padding_mask=encoder_mask
            )
        decoder_output = self.decoder_dropout(self.decoder_norm(x))
        outputs = {"encoder_sequence_output": encoder_output, "decoder_sequence_output": decoder_output}
        super().__init__(inputs=inputs, outputs=outputs, dtype=dtype, **kwargs)
        self.cross_attention_hidden_size = cross_attention_hidden_size or encoder_hidden_dim
