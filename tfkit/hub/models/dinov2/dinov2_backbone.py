"""``DINOV2Backbone``: DINOv2's self-supervised Vision Transformer (class and register tokens), KerasHub's layout.

backbone = DINOV2Backbone(patch_size=14, num_layers=12, hidden_dim=384, num_heads=6, intermediate_dim=1536,
                          image_shape=(224, 224, 3))
hidden = backbone({"images": images})        # (batch, 1 + registers + 16 * 16, 384), layer-normed
backbone.pyramid_outputs                      # {"stem": embeddings, "stage1": ..., "stage12": ...}
"""

from __future__ import annotations

from typing import Any

from tfkit.base.data_format import standardize_data_format
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.dinov2.dinov2_embedding import DINOV2Embedding
from tfkit.hub.models.dinov2.dinov2_layers import DINOV2Encoder
from tfkit.layers import LayerNormalization
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class DINOV2Backbone(Backbone):
    """DINOv2 backbone.

    "DINOv2: Learning Robust Visual Features without Supervision" (Oquab et
    al., 2023): a Vision Transformer whose patch embeddings follow a class
    token (and optional register tokens), with position embeddings learned
    for `position_embedding_shape` images and resized bicubically to
    `image_shape`, layer-scaled pre-norm blocks (GELU MLP or SwiGLU) and a
    final layer norm. The output is the last hidden states; `pyramid_outputs`
    holds the embeddings (`"stem"`) and each block's output (`"stage1"`, ...).
    Layer and weight names are KerasHub's (the embeddings, encoder and final
    layer norm are the attributes `embeddings`, `encoder` and `layernorm`),
    so KerasHub's DINOv2 presets load into it.

    Args:
        patch_size: The side of each (square) patch.
        num_layers: The number of transformer blocks.
        hidden_dim: The size of the hidden states.
        num_heads: The number of attention heads of each block.
        intermediate_dim: The size of each feed-forward intermediate layer.
        layer_scale_init_value: The initial layer scale. Defaults to `1.0`.
        num_register_tokens: The number of register tokens. Defaults to `0`.
        use_mask_token: Whether the embeddings hold a mask token. Defaults to
            `True`.
        use_swiglu_ffn: Whether the feed-forward blocks are SwiGLU. Defaults
            to `False`.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        drop_path_rate: The stochastic depth rate. Defaults to `0.0`.
        image_shape: `(height, width, channels)` of the input images; height
            and width must be equal. Defaults to `(224, 224, 3)`.
        position_embedding_shape: The image shape the position embeddings are
            learned for. Defaults to `(518, 518, 3)`.
        antialias_in_interpolation: Whether resizing the position embeddings
            antialiases. Defaults to `False`.
        apply_layernorm: Whether the final layer norm also normalizes the
            pyramid outputs. Defaults to `False`.
        data_format: `"channels_last"` or `"channels_first"`; `None` (the
            default) means `tfkit.config.image_data_format()`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name` (also the
            prefix of the layers' names).

    Call arguments:
        inputs: `{"images": images}` (or the images alone).

    Raises:
        ValueError: If the image's height and width differ.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> backbone = keras_hub.models.DINOV2Backbone(patch_size=4, num_layers=1, hidden_dim=8, num_heads=2,
        ...     intermediate_dim=16, image_shape=(8, 8, 3), position_embedding_shape=(16, 16, 3))
        >>> backbone({"images": np.ones((2, 8, 8, 3))}).shape, sorted(backbone.pyramid_outputs)
        (TensorShape([2, 5, 8]), ['stage1', 'stem'])
    """

    def __init__(
        self,
        patch_size: int,
        num_layers: int,
        hidden_dim: int,
        num_heads: int,
        intermediate_dim: int,
        layer_scale_init_value: float = 1.0,
        num_register_tokens: int = 0,
        use_mask_token: bool = True,
        use_swiglu_ffn: bool = False,
        dropout_rate: float = 0.0,
        drop_path_rate: float = 0.0,
        image_shape: Any = (224, 224, 3),
        position_embedding_shape: Any = (518, 518, 3),
        antialias_in_interpolation: bool = False,
        apply_layernorm: bool = False,
        data_format: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        data_format = standardize_data_format(data_format, "DINOV2Backbone")
        spatial = slice(0, 2) if data_format == "channels_last" else slice(1, 3)
        height, width = tuple(image_shape)[spatial]
        if height != width:
            raise ValueError(f"DINOV2Backbone: the image height and width must be equal, got image_shape={image_shape}")
        name = kwargs.get("name")  # from kwargs, not the signature: Backbone keeps declared arguments as attributes
        prefix = f"{name}_" if name is not None else ""
        self.embeddings = DINOV2Embedding(
            hidden_dim=hidden_dim,
            patch_size=patch_size,
            image_shape=(height, width),
            num_register_tokens=num_register_tokens,
            use_mask_token=use_mask_token,
            dropout_rate=dropout_rate,
            position_embedding_shape=tuple(position_embedding_shape)[spatial],
            antialias_in_interpolation=antialias_in_interpolation,
            data_format=data_format,
            dtype=dtype,
            name=f"{prefix}embeddings",
        )
        self.encoder = DINOV2Encoder(
            num_layers=num_layers,
            hidden_dim=hidden_dim,
            num_heads=num_heads,
            intermediate_dim=intermediate_dim,
            layer_scale_init_value=layer_scale_init_value,
            use_swiglu_ffn=use_swiglu_ffn,
            dropout_rate=dropout_rate,
            drop_path_rate=drop_path_rate,
            dtype=dtype,
            name=f"{prefix}encoder",
        )
        self.layernorm = LayerNormalization(epsilon=1e-6, dtype=dtype, name=f"{prefix}layernorm")

        images = Input(shape=tuple(image_shape), name="images")
        x = self.embeddings(images)
        pyramid_outputs = {"stem": x}
        x, stages = self.encoder(x)
        pyramid_outputs.update(stages)
        x = self.layernorm(x)
        if apply_layernorm:
            pyramid_outputs = {key: self.layernorm(value) for key, value in pyramid_outputs.items()}
        super().__init__(inputs={"images": images}, outputs=x, dtype=dtype, **kwargs)
        self.image_shape = image_shape
        self.position_embedding_shape = position_embedding_shape
        self.data_format = data_format
        self.pyramid_outputs = pyramid_outputs
