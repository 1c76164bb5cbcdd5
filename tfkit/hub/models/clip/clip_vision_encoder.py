"""``CLIPVisionEncoder``: CLIP's image tower (patches, class token, pre-norm transformer), KerasHub's layout.

encoder = CLIPVisionEncoder(patch_size=32, hidden_dim=768, num_layers=12, num_heads=12,
                            intermediate_dim=3072, image_shape=(224, 224, 3))
hidden = encoder({"images": images})                     # (batch, 1 + 7 * 7, 768): class token first
"""

from __future__ import annotations

from typing import Any

from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.vit_style_encoder import ChannelsFirstInConfig, encoder_outputs, square_image_side  # noqa: F401
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.clip.clip_layers import CLIPEncoderLayer, CLIPVisionEmbedding
from tfkit.layers import LayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class CLIPVisionEncoder(ChannelsFirstInConfig, Backbone):
    """CLIP vision core network with hyperparameters.

    The image tower of CLIP (Radford et al., 2021): a bias-free patch
    convolution, a class token and learned positions, a layer norm, causal-free
    pre-layer-norm transformer blocks and a final layer norm. The output is
    every token's last hidden state, the class token's first (`CLIPBackbone`
    pools and projects it). Layer and weight names are KerasHub's.

    Args:
        patch_size: The side of the square patches.
        hidden_dim: The size of the hidden states.
        num_layers: The number of transformer blocks.
        num_heads: The number of attention heads of each block.
        intermediate_dim: The size of each block's feedforward layer.
        intermediate_activation: The feedforward's activation. Defaults to
            `"quick_gelu"`.
        intermediate_output_index: If set, the output is a dict with
            `"sequence_output"` and `"intermediate_output"` (the hidden states
            after that block; negative counts from the end). Defaults to
            `None`.
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
        >>> encoder = keras_hub.models.CLIPVisionEncoder(patch_size=4, hidden_dim=8, num_layers=1, num_heads=2,
        ...     intermediate_dim=16, image_shape=(8, 8, 3))
        >>> encoder({"images": np.ones((2, 8, 8, 3))}).shape
        TensorShape([2, 5, 8])
    """

    def __init__(
        self,
        patch_size: int,
        hidden_dim: int,
        num_layers: int,
        num_heads: int,
        intermediate_dim: int,
        intermediate_activation: Any = "quick_gelu",
        intermediate_output_index: int | None = None,
        image_shape: Any = (224, 224, 3),
        data_format: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        data_format, height = square_image_side("CLIPVisionEncoder", image_shape, data_format)
        if intermediate_output_index is not None and intermediate_output_index < 0:
            intermediate_output_index += num_layers
        prefix = f"{kwargs['name']}_" if kwargs.get("name") else ""  # KerasHub's names (two CLIPs in one model)
        self.embedding = CLIPVisionEmbedding(
            hidden_dim, patch_size, height, data_format=data_format, dtype=dtype, name=f"{prefix}embedding"
        )
        self.pre_layer_norm = LayerNormalization(epsilon=1e-5, dtype=dtype, name=f"{prefix}pre_layer_norm")
        self.encoder_layers = [
            CLIPEncoderLayer(
                hidden_dim,
                num_heads,
                intermediate_dim,
                intermediate_activation,
                use_causal_mask=False,
                dtype=dtype,
                name=f"{prefix}encoder_block_{index}",
            )
            for index in range(num_layers)
        ]
        self.layer_norm = LayerNormalization(epsilon=1e-5, dtype=dtype, name=f"{prefix}layer_norm")
        images = Input(shape=tuple(image_shape), name="images")
        x = self.pre_layer_norm(self.embedding(images))
        outputs = encoder_outputs(x, self.encoder_layers, self.layer_norm, intermediate_output_index)
        super().__init__(inputs={"images": images}, outputs=outputs, dtype=dtype, **kwargs)
        self.intermediate_output_index = intermediate_output_index
        self.image_shape = tuple(image_shape)
        self.data_format = data_format
