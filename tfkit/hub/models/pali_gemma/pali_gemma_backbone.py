"""``PaliGemmaBackbone``: PaliGemma's ViT and Gemma decoder over image tokens then text, KerasHub's layout.

    backbone = PaliGemmaBackbone(vocabulary_size=257152, image_size=224, num_layers=18, num_query_heads=8,
                                 num_key_value_heads=1, hidden_dim=2048, intermediate_dim=32768, head_dim=256,
                                 vit_patch_size=14, vit_num_heads=16, vit_hidden_dim=1152, vit_num_layers=27)
    hidden = backbone({"images": images, "token_ids": ids, "padding_mask": mask, "response_mask": response})

The ViT (``PaliGemmaVit``) turns each image into ``image_sequence_length``
tokens of the decoder's width; the text's token embeddings (scaled by
``sqrt(hidden_dim)``, as Gemma's) follow them, and Gemma's decoder blocks run
over both with the prefix-LM mask (``PaliGemmaDecoderBlock``). The outputs are
the hidden states of every position, image tokens included.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.gemma.gemma_backbone import gemma_token_embedding, scaled_embeddings
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.hub.models.pali_gemma.pali_gemma_decoder_block import PaliGemmaDecoderBlock
from tfkit.hub.models.pali_gemma.pali_gemma_vit import PaliGemmaVit
from tfkit.saving import register_keras_serializable

DEFAULT_VIT_INTERMEDIATE_DIM = 4304  # KerasHub's stand-in for a missing vit_intermediate_dim (SigLIP So400m's)


@register_keras_serializable(package="keras_hub")
class PaliGemmaBackbone(Backbone):
    """PaliGemma core network with hyperparameters.

    A SigLIP-style vision transformer encodes the image into
    `image_sequence_length` tokens projected to `hidden_dim`; the text's
    token embeddings, times `sqrt(hidden_dim)`, follow them, and
    `num_layers` Gemma decoder blocks run over the whole sequence: the image
    and the prompt attend to each other in both directions, the response
    (`response_mask`) causally. A final RMS norm gives the outputs, one
    vector a position (image tokens first). The layer names and weights are
    KerasHub's, so KerasHub's PaliGemma presets load into it.

    Args:
        vocabulary_size: The size of the token vocabulary.
        image_size: The side of the square input images.
        num_layers: The number of decoder blocks.
        num_query_heads: The number of query heads of each decoder block.
        num_key_value_heads: The number of key and value heads.
        hidden_dim: The size of the decoder's hidden states.
        intermediate_dim: Twice the width of each gated feedforward network.
        head_dim: The size of each decoder attention head.
        vit_patch_size: The side of the ViT's square patches.
        vit_num_heads: The number of the ViT's attention heads.
        vit_hidden_dim: The width of the ViT.
        vit_num_layers: The number of the ViT's layers.
        vit_intermediate_dim: The width of the ViT's MLPs. Defaults to `None`
            (4304, as KerasHub).
        vit_pooling: `None` (the default), `"gap"` or `"zero"`: how the ViT's
            outputs are pooled (`"map"` is refused).
        vit_classifier_activation: The activation of the ViT's projection.
            Defaults to `None`.
        vit_name: The name of the ViT model. Defaults to `None`.
        query_head_dim_normalize: Whether the queries are scaled by
            `1 / sqrt(head_dim)` (else by `1 / sqrt(hidden_dim //
            num_query_heads)`). Defaults to `True`.
        use_post_ffw_norm: Whether to normalize after each feedforward
            network. Defaults to `False`.
        use_post_attention_norm: Whether to normalize after each attention.
            Defaults to `False`.
        attention_logit_soft_cap: Optional soft cap of the attention logits.
            Defaults to `None`.
        final_logit_soft_cap: Optional soft cap of the output logits.
            Defaults to `None`.
        use_sliding_window_attention: Whether the even decoder layers use
            sliding window attention. Defaults to `False`.
        sliding_window_size: The window of those layers. Defaults to `4096`.
        layer_norm_epsilon: The final RMS norm's epsilon (the blocks keep
            `1e-6`, as KerasHub's). Defaults to `1e-6`.
        dropout: The decoder's dropout rate. Defaults to `0`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: `{"images": (batch, image_size, image_size, 3), "token_ids":
            int (batch, length), "padding_mask": (batch, length),
            "response_mask": (batch, length)}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.PaliGemmaBackbone(vocabulary_size=10, image_size=8, num_layers=1,
        ...     num_query_heads=2, num_key_value_heads=1, hidden_dim=8, intermediate_dim=16, head_dim=4,
        ...     vit_patch_size=4, vit_num_heads=2, vit_hidden_dim=4, vit_num_layers=1, vit_intermediate_dim=8)
        >>> inputs = {"images": np.ones((1, 8, 8, 3)), "token_ids": np.ones((1, 5), "int32"),
        ...     "padding_mask": np.ones((1, 5), "int32"), "response_mask": np.zeros((1, 5), "int32")}
        >>> backbone.image_sequence_length, backbone(inputs).shape
        (4, TensorShape([1, 9, 8]))
    """

    def __init__(
        self,
        vocabulary_size: int,
        image_size: int,
        num_layers: int,
        num_query_heads: int,
        num_key_value_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        head_dim: int,
        vit_patch_size: int,
        vit_num_heads: int,
        vit_hidden_dim: int,
        vit_num_layers: int,
        vit_intermediate_dim: int | None = None,
        vit_pooling: str | None = None,
        vit_classifier_activation: Any = None,
        vit_name: str | None = None,
        query_head_dim_normalize: bool = True,
        use_post_ffw_norm: bool = False,
        use_post_attention_norm: bool = False,
        attention_logit_soft_cap: float | None = None,
        final_logit_soft_cap: float | None = None,
        use_sliding_window_attention: bool = False,
        sliding_window_size: int = 4096,
        layer_norm_epsilon: float = 1e-6,
        dropout: float = 0,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        self.token_embedding = gemma_token_embedding(vocabulary_size, hidden_dim, final_logit_soft_cap, dtype)
        vit_intermediate_dim = vit_intermediate_dim or DEFAULT_VIT_INTERMEDIATE_DIM
        self.vit_encoder = PaliGemmaVit(
            image_size=image_size,
            patch_size=vit_patch_size,
            num_heads=vit_num_heads,
            hidden_dim=vit_hidden_dim,
            num_layers=vit_num_layers,
            intermediate_dim=vit_intermediate_dim,
            pooling=vit_pooling,
            num_classes=hidden_dim,
            classifier_activation=vit_classifier_activation,
            dtype=dtype,
            name=vit_name,
        )
        self.transformer_layers = [
            PaliGemmaDecoderBlock(
                hidden_dim=hidden_dim,
                intermediate_dim=intermediate_dim,
                head_dim=head_dim,
                num_query_heads=num_query_heads,
                num_key_value_heads=num_key_value_heads,
                query_head_dim_normalize=query_head_dim_normalize,
                use_post_ffw_norm=use_post_ffw_norm,
                use_post_attention_norm=use_post_attention_norm,
                logit_soft_cap=attention_logit_soft_cap,
                use_sliding_window_attention=use_sliding_window_attention and i % 2 == 0,
                sliding_window_size=sliding_window_size,
                dropout=dropout,
                dtype=dtype,
                name=f"decoder_block_{i}",
            )
            for i in range(num_layers)
        ]
        self.layer_norm = RMSNormalization(epsilon=layer_norm_epsilon, dtype=dtype, name="final_normalization")

        images = Input(shape=(image_size, image_size, 3), name="images")
        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        padding_mask = Input(shape=(None,), dtype="int32", name="padding_mask")
        response_mask = Input(shape=(None,), dtype="int32", name="response_mask")
        text = scaled_embeddings(self.token_embedding(token_ids), hidden_dim)
        x = tf.concat([self.vit_encoder(images), text], axis=1)
        for block in self.transformer_layers:
            x = block(x, padding_mask=padding_mask, response_mask=response_mask)
        super().__init__(
            inputs={
                "images": images,
                "token_ids": token_ids,
                "padding_mask": padding_mask,
                "response_mask": response_mask,
            },
            outputs=self.layer_norm(x),
            dtype=dtype,
            **kwargs,
        )
        self.vit_intermediate_dim = vit_intermediate_dim  # the config keeps the width used, as KerasHub's
        self.image_sequence_length = self.vit_encoder.image_sequence_length

    def default_lora_layer_names(self) -> list[str]:
        """The decoder's LoRA targets, and the ViT's query and value projections.

        Returns:
            The layer names LoRA wraps by default.
        """
        return super().default_lora_layer_names() + ["query_proj", "value_proj"]
