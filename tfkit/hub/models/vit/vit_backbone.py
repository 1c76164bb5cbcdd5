"""``ViTBackbone``: the Vision Transformer (patches, class token, pre-norm encoder), KerasHub's layout.

backbone = ViTBackbone(image_shape=(224, 224, 3), patch_size=16, num_layers=12, num_heads=12,
                       hidden_dim=768, mlp_dim=3072)
hidden = backbone(images)                                  # (batch, 1 + 14 * 14, 768): class token first
"""

from __future__ import annotations

from typing import Any

from tfkit.base.data_format import standardize_data_format
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.vit_style_encoder import patch_grid
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.vit.vit_layers import ViTEncoder, ViTPatchingAndEmbedding
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class ViTBackbone(Backbone):
    """Vision Transformer (ViT) backbone.

    "An Image is Worth 16x16 Words" (Dosovitskiy et al., 2020): the image is
    cut into patches, each embedded by a strided convolution, a class token is
    put first and learned position embeddings are added; pre-layer-norm
    transformer encoder blocks and a final layer norm follow. The output is
    the last hidden states of every token, the class token's first
    (`ViTImageClassifier` classifies from it). Layer and weight names are
    KerasHub's, so KerasHub's ViT presets load into it.

    Args:
        image_shape: `(height, width, channels)` of the input images
            (`(channels, height, width)` with `data_format="channels_first"`);
            height and width must be known.
        patch_size: An int or `(height, width)`: the size of each patch,
            which must divide the image's height and width.
        num_layers: The number of transformer encoder blocks.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        mlp_dim: The size of each block's MLP intermediate layer.
        dropout_rate: The dropout rate of the encoder. Defaults to `0.0`.
        attention_dropout: The dropout rate of the attention probabilities.
            Defaults to `0.0`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        use_mha_bias: Whether the attention projections have biases.
            Defaults to `True`.
        use_mlp_bias: Whether the MLPs have biases. Defaults to `True`.
        use_class_token: Whether to put a learned class token before the
            patches. Defaults to `True`.
        use_patch_bias: Whether the patch convolution has a bias. Defaults to
            `True`.
        data_format: `"channels_last"` or `"channels_first"`; `None` (the
            default) means `tfkit.config.image_data_format()`. Unlike
            KerasHub's, tfkit's config keeps it.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Call arguments:
        inputs: Images of shape `image_shape` with a batch axis.

    Raises:
        ValueError: If the image's height or width is `None` or not divisible
            by the patch size.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.ViTBackbone(image_shape=(8, 8, 3), patch_size=4, num_layers=1,
        ...     num_heads=2, hidden_dim=8, mlp_dim=16)
        >>> backbone(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 5, 8])
    """

    def __init__(
        self,
        image_shape: Any,
        patch_size: Any,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        mlp_dim: int,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-6,
        use_mha_bias: bool = True,
        use_mlp_bias: bool = True,
        use_class_token: bool = True,
        use_patch_bias: bool = True,
        data_format: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        data_format = standardize_data_format(data_format, "ViTBackbone")
        image_size, patch_size, num_channels = patch_grid("ViTBackbone", image_shape, patch_size, data_format)

        images = Input(shape=tuple(image_shape), name="images")
        x = ViTPatchingAndEmbedding(
            image_size=image_size,
            patch_size=patch_size,
            hidden_dim=hidden_dim,
            num_channels=num_channels,
            use_class_token=use_class_token,
            use_patch_bias=use_patch_bias,
            data_format=data_format,
            dtype=dtype,
            name="vit_patching_and_embedding",
        )(images)
        outputs = ViTEncoder(
            num_layers=num_layers,
            num_heads=num_heads,
            hidden_dim=hidden_dim,
            mlp_dim=mlp_dim,
            dropout_rate=dropout_rate,
            attention_dropout=attention_dropout,
            layer_norm_epsilon=layer_norm_epsilon,
            use_mha_bias=use_mha_bias,
            use_mlp_bias=use_mlp_bias,
            dtype=dtype,
            name="vit_encoder",
        )(x)
        super().__init__(inputs=images, outputs=outputs, dtype=dtype, **kwargs)
        self.patch_size = patch_size  # as a pair, and the format resolved: the config says what was built
        self.data_format = data_format
