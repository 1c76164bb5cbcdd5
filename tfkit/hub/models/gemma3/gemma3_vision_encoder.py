"""``Gemma3VisionEncoder``: Gemma 3's image tower (ViT, average pooling, projection to soft tokens), KerasHub's layout.

    encoder = Gemma3VisionEncoder(image_size=896, patch_size=14, num_heads=16, hidden_dim=1152, num_layers=27,
                                  intermediate_dim=4304, output_dim=2560, pool_size=4)
    soft_tokens = encoder(images)     # (batch, images, 896, 896, 3) -> (batch * images, 256, 2560)

Each image becomes ``num_vision_tokens_per_image`` soft tokens of the decoder's
width, which ``Gemma3InterleaveEmbeddings`` writes over the ``<img>``
placeholders of the prompt.
"""

from __future__ import annotations

from typing import Any

from tfkit import initializers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.gemma3.gemma3_vision_layers import (
    Gemma3VisionAveragePooling,
    Gemma3VisionEncoderBlock,
    Gemma3VisionOutput,
)
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Gemma3VisionEncoder(Backbone):
    """Vision Transformer (ViT) model for Gemma3.

    A SigLIP-style ViT encodes each image's patches; the patch grid is
    average-pooled by `pool_size` a side, RMS-normalized and projected to the
    decoder's width (`output_dim`). Images come in groups, one group a
    prompt: `(batch, images, image_size, image_size, 3)`; the outputs are
    `(batch * images, num_vision_tokens_per_image, output_dim)`. A
    `bfloat16` dtype is computed in `float32`, as in KerasHub.

    Args:
        image_size: The side of the square images.
        patch_size: The side of the square patches.
        num_heads: The number of attention heads.
        hidden_dim: The width of the transformer.
        num_layers: The number of transformer layers.
        intermediate_dim: The width of each MLP's hidden layer.
        output_dim: The width of the soft tokens (the decoder's
            `hidden_dim`).
        pool_size: The pooling window a side, in patches. Defaults to `14`.
        layer_norm_epsilon: The epsilon of the final layer norm and the
            soft tokens' RMS norm. Defaults to `1e-6`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: Model keyword arguments, such as `name`.

    Call arguments:
        images: `(batch, images, image_size, image_size, 3)`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> encoder = keras_hub.models.Gemma3VisionEncoder(image_size=8, patch_size=2, num_heads=2, hidden_dim=4,
        ...     num_layers=1, intermediate_dim=8, output_dim=6, pool_size=2)
        >>> encoder.num_vision_tokens_per_image, encoder(np.ones((2, 1, 8, 8, 3))).shape
        (4, TensorShape([2, 4, 6]))
    """

    def __init__(
        self,
        image_size: int,
        patch_size: int,
        num_heads: int,
        hidden_dim: int,
        num_layers: int,
        intermediate_dim: int,
        output_dim: int,
        pool_size: int = 14,
        layer_norm_epsilon: float = 1e-6,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if dtype == "bfloat16":
            dtype = "float32"
        images = Input(shape=(None, image_size, image_size, 3), name="images")
        x = Gemma3VisionEncoderBlock(
            hidden_dim=hidden_dim,
            num_layers=num_layers,
            num_heads=num_heads,
            intermediate_dim=intermediate_dim,
            patch_size=patch_size,
            image_size=image_size,
            dtype=dtype,
            name="image_encoder",
        )(images)
        x = Gemma3VisionAveragePooling(
            image_size=image_size, patch_size=patch_size, pool_size=pool_size, dtype=dtype, name="pooling"
        )(x)
        outputs = Gemma3VisionOutput(
            output_dim=output_dim,
            layer_norm_epsilon=layer_norm_epsilon,
            kernel_initializer=initializers.RandomNormal(mean=0.0, stddev=0.01),
            dtype=dtype,
            name="vision_output_encoder",
        )(x)
        super().__init__(inputs=images, outputs=outputs, dtype=dtype, **kwargs)
        self.num_vision_tokens_per_image = (image_size // patch_size) ** 2 // pool_size**2
