"""``Gemma3Backbone``: Gemma 3's text decoder stack (five local sliding-window layers to one global), KerasHub's layout.

    backbone = Gemma3Backbone(vocabulary_size=262144, image_size=None, num_layers=26, num_query_heads=4,
                              num_key_value_heads=1, hidden_dim=1152, intermediate_dim=6912, head_dim=256,
                              use_post_ffw_norm=True, use_post_attention_norm=True,
                              use_sliding_window_attention=True, sliding_window_size=512)
    hidden = backbone({"token_ids": ids, "padding_mask": mask})

Layer ``i`` is local (sliding window, rotary wavelength 10k,
``local_rope_scaling_factor``) when ``i % 6 < 5`` and sliding windows are on,
else global (wavelength 1M, ``global_rope_scaling_factor``). With
``is_embedding_model`` (EmbeddingGemma) a mean-pooling head adds a
``"pooled_output"``. With a ``vision_encoder`` (the multimodal presets) the
backbone also takes ``images``, ``vision_indices`` and ``vision_mask``: each
image's soft tokens replace the prompt's ``<img>`` placeholders
(``Gemma3InterleaveEmbeddings``), and the tokens of one image attend to each
other both ways.
"""

from __future__ import annotations

from typing import Any

from tfkit import layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.gemma.gemma_backbone import gemma_token_embedding, scaled_embeddings
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.hub.models.gemma3.gemma3_decoder_block import Gemma3DecoderBlock
from tfkit.hub.models.gemma3.gemma3_interleave_embeddings import Gemma3InterleaveEmbeddings
from tfkit.hub.models.gemma3.gemma3_layers import Gemma3MeanPooling
from tfkit.saving import deserialize, register_keras_serializable, serialize

LOCAL_ROPE_WAVELENGTH = 10_000.0
GLOBAL_ROPE_WAVELENGTH = 1_000_000.0


def is_local_layer(index: int, use_sliding_window_attention: bool) -> bool:
    """Whether layer ``index`` of a Gemma 3 stack attends within a sliding window (five local, then one global)."""
    return bool(use_sliding_window_attention and index % 6 < 5)


@register_keras_serializable(package="keras_hub")
class Gemma3Backbone(Backbone):
    """Gemma3 core network with hyperparameters.

    Token embeddings (scaled by `sqrt(hidden_dim)`) feed `num_layers`
    `Gemma3DecoderBlock`s, then a final RMS norm; the outputs are the last
    hidden states. The layers alternate five local sliding-window layers and
    one global layer when `use_sliding_window_attention` is on. With a
    `vision_encoder`, images are encoded to soft tokens that replace the
    `<img>` placeholders of the token sequence (at `vision_indices`), and the
    tokens of one image (`vision_mask`) attend to each other in both
    directions. The layer names, weights and config are KerasHub's, so
    KerasHub's Gemma 3 presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        image_size: The side of the square images of a multimodal model;
            `None` for a text model.
        num_layers: The number of transformer layers.
        num_query_heads: The number of query heads.
        num_key_value_heads: The number of key and value heads.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The width of each gated feedforward network.
        head_dim: The size of each attention head.
        query_head_dim_normalize: Whether the queries are scaled by
            `1 / sqrt(head_dim)`. Defaults to `True`.
        use_query_key_norm: Whether to RMS-normalize queries and keys.
            Defaults to `True`.
        use_post_ffw_norm: Whether to normalize after each feedforward
            network. Defaults to `False`.
        use_post_attention_norm: Whether to normalize after each attention.
            Defaults to `False`.
        attention_logit_soft_cap: Optional soft cap of the attention logits.
            Defaults to `None`.
        final_logit_soft_cap: Optional soft cap of the output logits.
            Defaults to `None`.
        use_sliding_window_attention: Whether the local layers use sliding
            window attention. Defaults to `False`.
        sliding_window_size: The window of the local layers. Defaults to
            `1024`.
        local_rope_scaling_factor: The rotary scaling of the local layers.
            Defaults to `1.0`.
        global_rope_scaling_factor: The rotary scaling of the global layers.
            Defaults to `1.0`.
        vision_encoder: A `Gemma3VisionEncoder`, or `None` (the default) for
            a text model.
        layer_norm_epsilon: The epsilon of every RMS norm. Defaults to
            `1e-6`.
        use_bidirectional_attention: Whether attention is bidirectional
            (embedding models). Defaults to `False`.
        dropout: The dropout rate. Defaults to `0`.
        is_embedding_model: Whether to add EmbeddingGemma's pooling head (the
            outputs become `{"sequence_output", "pooled_output"}`). Defaults
            to `False`.
        pooling_intermediate_dim: The first projection's size of that head.
            Defaults to `None`.
        embedding_dim: The embedding size of that head. Defaults to `None`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"token_ids": int (batch, length), "padding_mask": (batch, length)}`,
            and with a vision encoder also `"images"` `(batch, images,
            image_size, image_size, 3)`, `"vision_indices"` int `(batch, images
            * num_vision_tokens_per_image)` and `"vision_mask"` `(batch, length)`.

    Raises:
        ValueError: If `is_embedding_model` is set without `embedding_dim`
            and `pooling_intermediate_dim`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.Gemma3Backbone(vocabulary_size=10, image_size=None, num_layers=2,
        ...     num_query_heads=2, num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, head_dim=4,
        ...     use_sliding_window_attention=True, sliding_window_size=2)
        >>> backbone({"token_ids": np.ones((1, 5), "int32"), "padding_mask": np.ones((1, 5), "int32")}).shape
        TensorShape([1, 5, 8])
    """

    def __init__(
        self,
        vocabulary_size: int,
        image_size: int | None,
        num_layers: int,
        num_query_heads: int,
        num_key_value_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        head_dim: int,
        query_head_dim_normalize: bool = True,
        use_query_key_norm: bool = True,
        use_post_ffw_norm: bool = False,
        use_post_attention_norm: bool = False,
        attention_logit_soft_cap: float | None = None,
        final_logit_soft_cap: float | None = None,
        use_sliding_window_attention: bool = False,
        sliding_window_size: int = 1024,
        local_rope_scaling_factor: float = 1.0,
        global_rope_scaling_factor: float = 1.0,
        vision_encoder: Any = None,
        layer_norm_epsilon: float = 1e-6,
        use_bidirectional_attention: bool = False,
        dropout: float = 0,
        is_embedding_model: bool = False,
        pooling_intermediate_dim: int | None = None,
        embedding_dim: int | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if is_embedding_model and (embedding_dim is None or pooling_intermediate_dim is None):
            raise ValueError(
                "Gemma3Backbone: is_embedding_model=True needs embedding_dim and pooling_intermediate_dim, got "
                f"embedding_dim={embedding_dim}, pooling_intermediate_dim={pooling_intermediate_dim}"
            )
        self.token_embedding = gemma_token_embedding(vocabulary_size, hidden_dim, final_logit_soft_cap, dtype)
        self.vision_encoder = vision_encoder
        text_only_model = vision_encoder is None
        if not text_only_model:
            self.interleave_embeddings = Gemma3InterleaveEmbeddings(
                num_vision_tokens_per_image=vision_encoder.num_vision_tokens_per_image,
                dtype=dtype,
                name="interleave_embeddings",
            )
        self.transformer_layers = []
        for i in range(num_layers):
            local = is_local_layer(i, use_sliding_window_attention)
            block = Gemma3DecoderBlock(
                hidden_dim=hidden_dim,
                intermediate_dim=intermediate_dim,
                head_dim=head_dim,
                num_query_heads=num_query_heads,
                num_key_value_heads=num_key_value_heads,
                query_head_dim_normalize=query_head_dim_normalize,
                use_query_key_norm=use_query_key_norm,
                use_post_ffw_norm=use_post_ffw_norm,
                use_post_attention_norm=use_post_attention_norm,
                gate_dim_reduction=1,
                logit_soft_cap=attention_logit_soft_cap,
                use_sliding_window_attention=local,
                sliding_window_size=sliding_window_size,
                rope_wavelength=LOCAL_ROPE_WAVELENGTH if local else GLOBAL_ROPE_WAVELENGTH,
                rope_scaling_factor=local_rope_scaling_factor if local else global_rope_scaling_factor,
                use_bidirectional_attention=use_bidirectional_attention,
                layer_norm_epsilon=layer_norm_epsilon,
                dropout=dropout,
                dtype=dtype,
                name=f"decoder_block_{i}",
            )
            self.transformer_layers.append(block)
        self.layer_norm = RMSNormalization(epsilon=layer_norm_epsilon, dtype=dtype, name="final_normalization")

        vision = {}
        if not text_only_model:
            vision = {
                "images": Input(shape=(None, image_size, image_size, 3), name="images"),
                "vision_indices": Input(shape=(None,), dtype="int32", name="vision_indices"),
                "vision_mask": Input(shape=(None,), dtype="int32", name="vision_mask"),
            }
        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        x = scaled_embeddings(self.token_embedding(token_ids), hidden_dim)
        if not text_only_model:
            x = self.interleave_embeddings(
                image_embeddings=vision_encoder(vision["images"]),
                text_embeddings=x,
                vision_indices=vision["vision_indices"],
            )
        for block in self.transformer_layers:
            x = block(x, padding_mask=padding_mask, vision_mask=vision.get("vision_mask"))
        outputs = sequence_output = self.layer_norm(x)
        if is_embedding_model:
            pooled = Gemma3MeanPooling(dtype=dtype, name="mean_pooling")(sequence_output, padding_mask=padding_mask)
            pooled = layers.Dense(pooling_intermediate_dim, dtype=dtype, name="pooling_dense_1", use_bias=False)(pooled)
            pooled = layers.Dense(embedding_dim, dtype=dtype, name="embedding_projection", use_bias=False)(pooled)
            pooled = layers.UnitNormalization(axis=-1, dtype=dtype, name="unit_normalization")(pooled)
            outputs = {"sequence_output": sequence_output, "pooled_output": pooled}
        super().__init__(
            inputs={"token_ids": token_ids, "padding_mask": padding_mask, **vision},
            outputs=outputs,
            dtype=dtype,
            **kwargs,
        )
        self.text_only_model = text_only_model
        if not text_only_model:
            self.num_vision_tokens_per_image = vision_encoder.num_vision_tokens_per_image

    def get_config(self) -> dict[str, Any]:
        """The config: KerasHub's keys, the vision encoder serialized in it (or `None`).

        Returns:
            A dict of plain values.
        """
        config = super().get_config()
        config["vision_encoder"] = None if self.vision_encoder is None else serialize(self.vision_encoder)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Gemma3Backbone":
        """Builds the backbone, and its vision encoder, from `get_config`'s output.

        Args:
            config: A dict, as `get_config` returns it.

        Returns:
            A new backbone.
        """
        config = dict(config)
        if isinstance(config.get("vision_encoder"), dict):
            config["vision_encoder"] = deserialize(config["vision_encoder"])
        return super().from_config(config)
