"""``DeiTBackbone``: the Data-efficient Image Transformer (class and distillation tokens), KerasHub's layout.

backbone = DeiTBackbone(image_shape=(224, 224, 3), patch_size=16, num_layers=12, num_heads=12,
                        hidden_dim=768, intermediate_dim=3072)
hidden = backbone(images)                                  # (batch, 2 + 14 * 14, 768): class, distillation first
"""

from __future__ import annotations

from typing import Any

from tfkit.base.data_format import standardize_data_format
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.vit_style_encoder import patch_grid
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.deit.deit_layers import DeiTEmbeddings, DeiTEncoder
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DeiTBackbone(Backbone):
    """Data-efficient Image Transformer (DeiT) backbone.

    "Training data-efficient image transformers & distillation through
    attention" (Touvron et al., 2020): a ViT whose patch embeddings follow a
    class token and a distillation token (trained to match a teacher), with
    learned position embeddings, pre-layer-norm transformer encoder blocks
    and a final layer norm. The output is the last hidden states of every
    token, the class token's first (`DeiTImageClassifier` classifies from
    it). Layer and weight names are KerasHub's, so KerasHub's DeiT presets
    load into it.

    Args:
        image_shape: `(height, width, channels)` of the input images
            (`(channels, height, width)` with `data_format="channels_first"`);
            height and width must be known.
        patch_size: An int or `(height, width)`: the size of each patch,
            which must divide the image's height and width.
        num_layers: The number of transformer encoder blocks.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of each block's MLP intermediate layer.
        dropout_rate: The dropout rate of the embeddings and the MLPs.
            Defaults to `0.0`.
        attention_dropout: The dropout rate of the attention probabilities.
            Defaults to `0.0`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        use_mha_bias: Whether the attention projections have biases.
            Defaults to `True`.
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
        >>> backbone = keras_hub.models.DeiTBackbone(image_shape=(8, 8, 3), patch_size=4, num_layers=1,
        ...     num_heads=2, hidden_dim=8, intermediate_dim=16)
        >>> backbone(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 6, 8])
    """

    def __init__(
        self,
        image_shape: Any,
        patch_size: Any,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-6,
        use_mha_bias: bool = True,
        data_format: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        data_format = standardize_data_format(data_format, "DeiTBackbone")
        image_size, patch_size, num_channels = patch_grid("DeiTBackbone", image_shape, patch_size, data_format)

        images = Input(shape=tuple(image_shape), name="images")
        x = DeiTEmbeddings(
            image_size=image_size,
            patch_size=patch_size,
            hidden_dim=hidden_dim,
            num_channels=num_channels,
            data_format=data_format,
            dropout_rate=dropout_rate,
            dtype=dtype,
            name="deit_patching_and_embedding",
        )(images)
        outputs = DeiTEncoder(
            num_layers=num_layers,
            num_heads=num_heads,
            hidden_dim=hidden_dim,
            intermediate_dim=intermediate_dim,
            use_mha_bias=use_mha_bias,
            dropout_rate=dropout_rate,
            attention_dropout=attention_dropout,
            layer_norm_epsilon=layer_norm_epsilon,
            dtype=dtype,
            name="deit_encoder",
        )(x)
        super().__init__(inputs=images, outputs=outputs, dtype=dtype, **kwargs)
        self.patch_size = patch_size  # as a pair, and the format resolved: the config says what was built
        self.data_format = data_format
