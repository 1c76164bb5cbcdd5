"""The blocks of ``SwinTransformerBackbone``: patch embedding, MLP, the (shifted) window block, patch merging, stages.

    x = PatchEmbedding(patch_size=4, embed_dim=96, norm_layer=LayerNormalization)(images)   # (batch, 56 * 56, 96)
    x = SwinTransformerStage(dim=96, depth=2, num_heads=3, window_size=7, downsample=PatchMerging,
                             input_resolution=(56, 56), name="stage_0")(x)                 # (batch, 28 * 28, 192)

Sub-layers are made in the constructors under KerasHub's attribute and layer names (``proj`` named
``"conv_projection"``, ``norm1``, ``attn``, ``mlp`` with ``fc1``/``fc2``, ``blocks``, ``downsample`` with
``reduction``/``norm``), and the classes keep KerasHub's names (weight files key a list's layers by class name),
so the weight files Keras writes for KerasHub's Swin Transformer load into these layers. Every block works on
a token sequence `(batch, height * width, channels)` of a resolution fixed when the stage is made.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations
from tfkit.engine.layer import Layer
from tfkit.hub.models.dinov2.dinov2_layers import DINOV2DropPath
from tfkit.hub.models.swin_transformer.swin_transformer_attention import (
    WindowAttention,
    shifted_window_mask,
    window_partition,
    window_reverse,
)
from tfkit.layers import Conv2D, Dense, Dropout, Identity, LayerNormalization

EPSILON = 1e-5


class Mlp(Layer):
    """The block's feed-forward network: dense, activation (GELU), dropout, dense, dropout.

    Args:
        in_features: The input channels.
        hidden_features: The hidden channels. Defaults to `None`: `in_features`.
        out_features: The output channels. Defaults to `None`: `in_features`.
        act_layer: The activation (a callable or a name). Defaults to GELU.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_layers import Mlp
        >>> Mlp(8, 16)(np.ones((1, 4, 8))).shape
        TensorShape([1, 4, 8])
    """

    def __init__(
        self,
        in_features: int,
        hidden_features: int | None = None,
        out_features: int | None = None,
        act_layer: Any = "gelu",
        dropout_rate: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.in_features = in_features
        self.hidden_features = hidden_features or in_features
        self.out_features = out_features or in_features
        self.act_layer = activations.get(act_layer)
        self.dropout_rate = dropout_rate
        self.fc1 = Dense(self.hidden_features, dtype=self.dtype_policy, name="fc1")
        self.fc2 = Dense(self.out_features, dtype=self.dtype_policy, name="fc2")
        self.dropout = Dropout(dropout_rate, dtype=self.dtype_policy) if dropout_rate > 0.0 else None

    def build(self, input_shape: Any) -> None:
        self.fc1.build(input_shape)
        self.fc2.build(tuple(input_shape[:-1]) + (self.hidden_features,))

    def call(self, x: tf.Tensor, training: Any = None) -> tf.Tensor:
        x = self.act_layer(self.fc1(x))
        if self.dropout is not None:
            x = self.dropout(x, training=training)
        x = self.fc2(x)
        return self.dropout(x, training=training) if self.dropout is not None else x


class SwinTransformerBlock(Layer):
    """A Swin Transformer block: (shifted) window attention and an MLP, each after a layer norm, with residuals.

    With `shift_size > 0` the feature map is rolled up and left by
    `shift_size` before the windows are cut (and back after), and the
    attention is masked to the tokens of one region (SW-MSA). When the
    resolution is no larger than the window, the block uses one window of the
    whole map and no shift, as KerasHub's (its attention's relative position
    table stays sized by `window_size`).

    Args:
        dim: The number of channels.
        input_resolution: `(height, width)` of the token grid.
        num_heads: The number of attention heads.
        window_size: The window's side. Defaults to `7`.
        shift_size: The cyclic shift. Defaults to `0`.
        mlp_ratio: The MLP's hidden size over `dim`. Defaults to `4.0`.
        qkv_bias: Whether the attention's projection has a bias. Defaults to
            `True`.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        attention_dropout: The attention weights' dropout rate. Defaults to
            `0.0`.
        drop_path: The stochastic depth rate. Defaults to `0.0`.
        act_layer: The MLP's activation. Defaults to GELU.
        norm_layer: The normalization layer class. Defaults to
            `LayerNormalization`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_layers import SwinTransformerBlock
        >>> block = SwinTransformerBlock(8, (4, 4), num_heads=2, window_size=2, shift_size=1)
        >>> block(np.ones((1, 16, 8))).shape
        TensorShape([1, 16, 8])
    """

    def __init__(
        self,
        dim: int,
        input_resolution: Any,
        num_heads: int,
        window_size: int = 7,
        shift_size: int = 0,
        mlp_ratio: float = 4.0,
        qkv_bias: bool = True,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        drop_path: float = 0.0,
        act_layer: Any = "gelu",
        norm_layer: Any = LayerNormalization,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.dim, self.num_heads, self.mlp_ratio = dim, num_heads, mlp_ratio
        self.input_resolution = tuple(input_resolution)
        self.window_size, self.shift_size = window_size, shift_size
        if min(self.input_resolution) <= window_size:
            self.window_size, self.shift_size = min(self.input_resolution), 0
        policy = self.dtype_policy
        self.norm1 = norm_layer(epsilon=EPSILON, dtype=policy, name="norm1")
        self.attn = WindowAttention(
            dim=dim,
            num_heads=num_heads,
            window_size=window_size,  # KerasHub's table keeps the size asked for
            qkv_bias=qkv_bias,
            attention_dropout=attention_dropout,
            proj_drop=dropout_rate,
            dtype=policy,
            name="attn",
        )
        self.drop_path = DINOV2DropPath(drop_path, dtype=policy) if drop_path > 0.0 else Identity(dtype=policy)
        self.norm2 = norm_layer(epsilon=EPSILON, dtype=policy, name="norm2")
        self.mlp = Mlp(
            dim, int(dim * mlp_ratio), act_layer=act_layer, dropout_rate=dropout_rate, dtype=policy, name="mlp"
        )
        height, width = self.input_resolution
        self.attention_mask = (
            shifted_window_mask(height, width, self.window_size, self.shift_size) if self.shift_size > 0 else None
        )

    def build(self, input_shape: Any) -> None:
        self.norm1.build(input_shape)
        self.attn.build((None, self.window_size * self.window_size, self.dim))
        self.norm2.build(input_shape)
        self.mlp.build(input_shape)

    def call(self, x: tf.Tensor, training: Any = None) -> tf.Tensor:
        height, width = self.input_resolution
        shortcut = x
        x = tf.reshape(self.norm1(x), (-1, height, width, self.dim))
        shift = self.shift_size
        if shift > 0:
            x = tf.roll(x, shift=(-shift, -shift), axis=(1, 2))
        windows, (padded_h, padded_w) = window_partition(x, self.window_size)
        windows = tf.reshape(windows, (-1, self.window_size * self.window_size, self.dim))
        windows = self.attn(windows, mask=self.attention_mask, training=training)
        windows = tf.reshape(windows, (-1, self.window_size, self.window_size, self.dim))
        x = window_reverse(windows, self.window_size, padded_h, padded_w)
        if shift > 0:
            x = tf.roll(x, shift=(shift, shift), axis=(1, 2))
        x = tf.reshape(x[:, :height, :width, :], (-1, height * width, self.dim))
        x = shortcut + self.drop_path(x, training=training)
        return x + self.drop_path(self.mlp(self.norm2(x), training=training), training=training)


class PatchMerging(Layer):
    """Halves the token grid: each 2 x 2 group of tokens concatenated, normalized and projected to `2 * dim`.

    Args:
        dim: The input channels.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: `(batch, H * W, dim)`.
        H: The grid's height.
        W: The grid's width.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_layers import PatchMerging
        >>> PatchMerging(8)(np.ones((1, 16, 8)), H=4, W=4).shape
        TensorShape([1, 4, 16])
    """

    def __init__(self, dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dim = dim
        self.reduction = Dense(2 * dim, use_bias=False, dtype=self.dtype_policy, name="reduction")
        self.norm = LayerNormalization(epsilon=EPSILON, dtype=self.dtype_policy, name="norm")

    def build(self, input_shape: Any) -> None:
        self.reduction.build((None, None, None, 4 * self.dim))
        self.norm.build((None, None, None, 4 * self.dim))

    def call(self, x: tf.Tensor, H: int, W: int) -> tf.Tensor:  # noqa: N803 - KerasHub's argument names
        x = tf.pad(tf.reshape(x, (-1, H, W, self.dim)), [[0, 0], [0, H % 2], [0, W % 2], [0, 0]])
        x = tf.concat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], axis=-1)
        return tf.reshape(self.reduction(self.norm(x)), (tf.shape(x)[0], -1, 2 * self.dim))


class PatchEmbedding(Layer):
    """Embeds non-overlapping patches with a strided convolution, flattens them into tokens, and normalizes.

    Args:
        patch_size: The patches' side. Defaults to `4`.
        embed_dim: The embedding size. Defaults to `96`.
        norm_layer: The normalization layer class, or `None` (the default)
            for none.
        data_format: `"channels_last"` (the default) or `"channels_first"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_layers import PatchEmbedding
        >>> PatchEmbedding(patch_size=2, embed_dim=8)(np.ones((1, 8, 8, 3))).shape
        TensorShape([1, 16, 8])
    """

    def __init__(
        self,
        patch_size: int = 4,
        embed_dim: int = 96,
        norm_layer: Any = None,
        data_format: str = "channels_last",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.patch_size, self.embed_dim, self.data_format = patch_size, embed_dim, data_format
        self.norm_layer = norm_layer
        self.proj = Conv2D(
            embed_dim,
            kernel_size=patch_size,
            strides=patch_size,
            padding="valid",
            data_format=data_format,
            kernel_initializer="lecun_normal",
            dtype=self.dtype_policy,
            name="conv_projection",
        )
        self.norm = norm_layer(epsilon=EPSILON, dtype=self.dtype_policy, name="norm") if norm_layer else None

    def build(self, input_shape: Any) -> None:
        self.proj.build(input_shape)
        if self.norm is not None:
            self.norm.build((None, None, self.embed_dim))

    def call(self, x: tf.Tensor) -> tf.Tensor:
        x = self.proj(x)
        if self.data_format == "channels_first":
            x = tf.transpose(x, (0, 2, 3, 1))
        x = tf.reshape(x, (tf.shape(x)[0], -1, self.embed_dim))
        return self.norm(x) if self.norm is not None else x


class SwinTransformerStage(Layer):
    """A stage: `depth` blocks at one resolution (every other one shifted), then an optional patch merging.

    Args:
        dim: The channels.
        depth: The number of blocks.
        num_heads: The attention heads of each block.
        window_size: The window's side. Defaults to `7`.
        mlp_ratio: The MLP's hidden size over `dim`. Defaults to `4.0`.
        qkv_bias: Whether the attention's projection has a bias. Defaults to
            `True`.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        attention_dropout: The attention weights' dropout rate. Defaults to
            `0.0`.
        drop_path: The stochastic depth rate: one for all blocks, or a list of
            one per block. Defaults to `0.0`.
        downsample: The downsampling layer class (`PatchMerging`), or `None`
            (the default).
        input_resolution: `(height, width)` of the token grid.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_layers import PatchMerging, SwinTransformerStage
        >>> stage = SwinTransformerStage(8, depth=2, num_heads=2, window_size=2, downsample=PatchMerging,
        ...     input_resolution=(4, 4))
        >>> stage(np.ones((1, 16, 8))).shape
        TensorShape([1, 4, 16])
    """

    def __init__(
        self,
        dim: int,
        depth: int,
        num_heads: int,
        window_size: int = 7,
        mlp_ratio: float = 4.0,
        qkv_bias: bool = True,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        drop_path: Any = 0.0,
        downsample: Any = None,
        input_resolution: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.dim, self.depth, self.num_heads = dim, depth, num_heads
        self.window_size, self.mlp_ratio = window_size, mlp_ratio
        self.input_resolution = tuple(input_resolution)
        self.blocks = [
            SwinTransformerBlock(
                dim=dim,
                input_resolution=self.input_resolution,
                num_heads=num_heads,
                window_size=window_size,
                shift_size=0 if i % 2 == 0 else window_size // 2,
                mlp_ratio=mlp_ratio,
                qkv_bias=qkv_bias,
                dropout_rate=dropout_rate,
                attention_dropout=attention_dropout,
                drop_path=drop_path[i] if isinstance(drop_path, (list, tuple)) else drop_path,
                dtype=self.dtype_policy,
                name=f"blocks_{i}",
            )
            for i in range(depth)
        ]
        self.downsample = downsample(dim=dim, dtype=self.dtype_policy, name="downsample") if downsample else None

    def build(self, input_shape: Any) -> None:
        for block in self.blocks:
            block.build(input_shape)
        if self.downsample is not None:
            self.downsample.build(input_shape)

    def call(self, x: tf.Tensor, training: Any = None) -> tf.Tensor:
        for block in self.blocks:
            x = block(x, training=training)
        if self.downsample is not None:
            height, width = self.input_resolution
            x = self.downsample(x, H=height, W=width)
        return x
