"""``SigLIPVisionEncoder``: SigLIP's image tower (patches, transformer, attention pooling), KerasHub's layout.

encoder = SigLIPVisionEncoder(patch_size=16, hidden_dim=768, num_layers=12, num_heads=12,
                              intermediate_dim=3072, image_shape=(224, 224, 3))
embeddings = encoder({"images": images})                 # (batch, 768): pooled
"""

from __future__ import annotations

from typing import Any

from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.vit_style_encoder import ChannelsFirstInConfig, encoder_outputs, square_image_side
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.siglip.siglip_layers import (
    SigLIPEncoderLayer,
    SigLIPMultiHeadAttentionPooling,
    SigLIPVisionEmbedding,
)
from tfkit.layers import LayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SigLIPVisionEncoder(ChannelsFirstInConfig, Backbone):
    """SigLIP vision core network with hyperparameters.

    The image tower of SigLIP (Zhai et al., 2023): a patch convolution and
    learned positions (no class token), pre-layer-norm transformer blocks, a
    final layer norm and multi-head attention pooling. The output is one
    embedding per image. Layer and weight names are KerasHub's.

    Args:
        patch_size: The side of the square patches.
        hidden_dim: The size of the hidden states.
        num_layers: The number of transformer blocks.
        num_heads: The number of attention heads of each block.
        intermediate_dim: The size of each block's feedforward layer.
        intermediate_activation: The feedforward's activation. Defaults to
            `"gelu_approximate"`.
        layer_norm_epsilon: The blocks' and pooling's layer norm epsilon
            (the final norm's is `1e-6`, as in KerasHub). Defaults to `1e-6`.
        image_shape: The input images' shape without the batch axis; height
            and width must be equal. Defaults to `(224, 224, 3)`.
        data_format: `"channels_last"` or `"channels_first"`; `None` (the
            default) means `tfkit.config.image_data_format()`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name` (it also
            prefixes the layers' names, as in KerasHub).

    Raises:
        ValueError: If the image's height and width differ.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> encoder = keras_hub.models.SigLIPVisionEncoder(patch_size=4, hidden_dim=8, num_layers=1, num_heads=2,
        ...     intermediate_dim=16, image_shape=(8, 8, 3))
        >>> encoder({"images": np.ones((2, 8, 8, 3))}).shape
        TensorShape([2, 8])
    """

    def __init__(
        self,
        patch_size: int,
        hidden_dim: int,
        num_layers: int,
        num_heads: int,
        intermediate_dim: int,
        intermediate_activation: Any = "gelu_approximate",
        layer_norm_epsilon: float = 1e-6,
        image_shape: Any = (224, 224, 3),
        data_format: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        data_format, height = square_image_side("SigLIPVisionEncoder", image_shape, data_format)
        prefix = f"{kwargs['name']}_" if kwargs.get("name") else ""  # KerasHub's names
        self.embedding = SigLIPVisionEmbedding(
            hidden_dim, patch_size, height, data_format=data_format, dtype=dtype, name=f"{prefix}embedding"
        )
        self.encoder_layers = [
            SigLIPEncoderLayer(
                hidden_dim,
                num_heads,
                intermediate_dim,
                intermediate_activation,
                layer_norm_epsilon=layer_norm_epsilon,
                dtype=dtype,
                name=f"{prefix}encoder_block_{index}",
            )
            for index in range(num_layers)
        ]
        self.post_layer_norm = LayerNormalization(epsilon=1e-6, dtype=dtype, name=f"{prefix}post_layer_norm")
        self.head = SigLIPMultiHeadAttentionPooling(
            hidden_dim,
            intermediate_dim,
            num_heads,
            intermediate_activation,
            layer_norm_epsilon,
            dtype=dtype,
            name=f"{prefix}head",
        )
        images = Input(shape=tuple(image_shape), name="images")
        x = self.embedding(images)
        outputs = self.head(encoder_outputs(x, self.encoder_layers, self.post_layer_norm))
        super().__init__(inputs={"images": images}, outputs=outputs, dtype=dtype, **kwargs)
        self.image_shape = tuple(image_shape)
        self.data_format = data_format
