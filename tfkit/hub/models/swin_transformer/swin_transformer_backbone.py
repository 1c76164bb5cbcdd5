"""``SwinTransformerBackbone``: the hierarchical vision transformer of shifted windows, KerasHub's layout.

backbone = SwinTransformerBackbone(image_shape=(224, 224, 3), embed_dim=96, depths=(2, 2, 6, 2),
                                   num_heads=(3, 6, 12, 24), window_size=7)
tokens = backbone(images)                     # (batch, (224 / 32) ** 2, 768): the last stage's tokens, normalized
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit import layers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.swin_transformer.swin_transformer_layers import (
    EPSILON,
    PatchEmbedding,
    PatchMerging,
    SwinTransformerStage,
)
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SwinTransformerBackbone(Backbone):
    """Swin Transformer backbone: patch embedding, stages of (shifted) window attention with patch merging, a norm.

    "Swin Transformer: Hierarchical Vision Transformer using Shifted Windows"
    (Liu et al., 2021). The image is cut into `patch_size` patches, embedded
    (`"patch_embedding"`), and run through one stage per entry of `depths`
    (`"stage_{i}"`): blocks of window attention, every other one on windows
    shifted by half a window, each stage but the last ending in a patch
    merging that halves the grid and doubles the channels. The output is the
    last stage's tokens after a layer norm (`"norm"`),
    `(batch, tokens, embed_dim * 2 ** (len(depths) - 1))`. Layer and weight
    names are KerasHub's, so KerasHub's Swin presets load into it.

    Args:
        image_shape: The input shape without the batch axis, such as
            `(224, 224, 3)`; its height and width must be known.
        embed_dim: The channels of the first stage.
        depths: The number of blocks of each stage.
        num_heads: The attention heads of each stage.
        window_size: The side of the attention windows.
        patch_size: The side of the patches. Defaults to `4`.
        mlp_ratio: The MLPs' hidden size over their input. Defaults to `4.0`.
        qkv_bias: Whether the attention projections have a bias. Defaults to
            `True`.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        attention_dropout: The attention weights' dropout rate. Defaults to
            `0.0`.
        drop_path: The largest stochastic depth rate; the blocks' rates rise
            linearly from 0 to it. Defaults to `0.1`.
        patch_norm: Whether the patch embeddings are layer-normalized.
            Defaults to `True`.
        data_format: `"channels_last"` or `"channels_first"`. Defaults to
            `None`: `"channels_last"` (as KerasHub's, not the global format).
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: Images of shape `image_shape` with a batch axis.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.SwinTransformerBackbone(image_shape=(16, 16, 3), embed_dim=8,
        ...     depths=(2, 2), num_heads=(2, 2), window_size=2, patch_size=2)
        >>> backbone(np.ones((1, 16, 16, 3))).shape
        TensorShape([1, 16, 16])
    """

    def __init__(
        self,
        image_shape: Any,
        embed_dim: int,
        depths: Any,
        num_heads: Any,
        window_size: int,
        patch_size: int = 4,
        mlp_ratio: float = 4.0,
        qkv_bias: bool = True,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        drop_path: float = 0.1,
        patch_norm: bool = True,
        data_format: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        data_format = data_format or "channels_last"
        rates = [float(rate) for rate in np.linspace(0.0, drop_path, sum(depths), dtype="float32")]
        images = Input(shape=tuple(image_shape))
        patch_embedding = PatchEmbedding(
            patch_size=patch_size,
            embed_dim=embed_dim,
            norm_layer=layers.LayerNormalization if patch_norm else None,
            data_format=data_format,
            dtype=dtype,
            name="patch_embedding",
        )
        x = layers.Dropout(dropout_rate, dtype=dtype, name="pos_drop")(patch_embedding(images))
        spatial = image_shape[1:3] if data_format == "channels_first" else image_shape[:2]
        height, width = spatial[0] // patch_size, spatial[1] // patch_size  # KerasHub reads image_shape[:2] always
        stages = []
        for i, depth in enumerate(depths):
            last = i == len(depths) - 1
            stage = SwinTransformerStage(
                dim=int(embed_dim * 2**i),
                depth=depth,
                num_heads=num_heads[i],
                window_size=window_size,
                mlp_ratio=mlp_ratio,
                qkv_bias=qkv_bias,
                dropout_rate=dropout_rate,
                attention_dropout=attention_dropout,
                drop_path=rates[sum(depths[:i]) : sum(depths[: i + 1])],
                downsample=None if last else PatchMerging,
                input_resolution=(height, width),
                dtype=dtype,
                name=f"stage_{i}",
            )
            x = stage(x)
            stages.append(stage)
            if not last:
                height, width = height // 2, width // 2
        norm = layers.LayerNormalization(epsilon=EPSILON, dtype=dtype, name="norm")
        super().__init__(inputs=images, outputs=norm(x), dtype=dtype, **kwargs)
        self.patch_embedding, self.stages, self.norm = patch_embedding, stages, norm
        self.data_format = data_format  # resolved, as KerasHub's config has it
