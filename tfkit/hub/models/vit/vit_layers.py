"""The blocks of ``ViTBackbone``: patch embedding, MLP, encoder block and encoder, under KerasHub's names.

    embed = ViTPatchingAndEmbedding(image_size=(224, 224), patch_size=(16, 16), hidden_dim=768)
    tokens = embed(images)                                   # (batch, 1 + 14 * 14, 768): class token first
    hidden = ViTEncoder(num_layers=12, num_heads=12, hidden_dim=768, mlp_dim=3072)(tokens)

Sub-layers are made in ``build`` under KerasHub's attribute names (``patch_embedding``,
``position_embedding``, ``layer_norm_1``, ``mha``, ``mlp``, ``encoder_layers``, ...),
so the weight files Keras writes for KerasHub's ViT load into these layers.
KerasHub does not register these classes (a ``ViTBackbone``'s config is its
constructor's arguments), so neither does tfkit.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base.data_format import standardize_data_format
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.declared_config import DeclaredLayer
from tfkit.hub.layers.vit_style_encoder import KerasAttention, PreNormEncoder, PreNormEncoderBlock, patches_to_sequence
from tfkit.layers import Conv2D, Dense, Dropout, Embedding


class _ViTAttention(KerasAttention):
    """The attention of ViT's, DeiT's and DINOv2's blocks (a class of its own, as it was)."""


class MLP(DeclaredLayer):
    """Multi-Layer Perceptron (MLP) block: dense (GELU), dropout, dense, dropout.

    Args:
        hidden_dim: The size of the output (the hidden states).
        mlp_dim: The size of the intermediate layer.
        use_bias: Whether the dense layers have biases (initialized from a
            normal distribution of standard deviation 1e-6). Defaults to `True`.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(batch, length, hidden_dim)`.
        training: Whether dropout is active. Defaults to `None`.

    Example:
        >>> from tfkit.hub.models.vit.vit_layers import MLP
        >>> MLP(hidden_dim=8, mlp_dim=16)(np.ones((1, 3, 8))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(
        self, hidden_dim: int, mlp_dim: int, use_bias: bool = True, dropout_rate: float = 0.0, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)

    def _dense(self, units: int, name: str, activation: Any = None) -> Dense:
        bias_initializer = initializers.RandomNormal(stddev=1e-6) if self.use_bias else "zeros"
        return Dense(
            units,
            use_bias=self.use_bias,
            activation=activation,
            bias_initializer=bias_initializer,
            dtype=self.dtype_policy,
            name=name,
        )

    def build(self, input_shape: Any) -> None:
        self.dense_1 = self._dense(self.mlp_dim, "dense_1", activation="gelu")
        self.dense_1.build(input_shape)
        self.dense_2 = self._dense(self.hidden_dim, "dense_2")
        self.dense_2.build((None, None, self.mlp_dim))
        self.dropout = Dropout(self.dropout_rate, dtype=self.dtype_policy, name="dropout")

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        x = self.dropout(self.dense_1(inputs), training=training)
        return self.dropout(self.dense_2(x), training=training)


class ViTPatchingAndEmbedding(DeclaredLayer):
    """Patches the image and embeds the patches.

    A strided convolution embeds each `patch_size` patch; the patches are
    flattened row by row, a learned class token is put first (with
    `use_class_token`), and a learned position embedding is added.

    Args:
        image_size: `(height, width)` of the input images.
        patch_size: `(height, width)` of each patch; must divide `image_size`.
        hidden_dim: The size of each patch embedding.
        num_channels: The number of image channels. Defaults to `3`.
        use_class_token: Whether to put a learned class token before the
            patches. Defaults to `True`.
        use_patch_bias: Whether the patch convolution has a bias. Defaults to
            `True`.
        data_format: `"channels_last"` or `"channels_first"`; `None` (the
            default) means `tfkit.config.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.
            `num_patches` and `num_positions` (in the config, computed) are
            accepted and ignored.

    Call arguments:
        inputs: Images `(batch, height, width, channels)` (channels first with
            `data_format="channels_first"`).

    Output shape:
        `(batch, num_positions, hidden_dim)`: `num_positions` is the number of
        patches, plus one with the class token.

    Example:
        >>> from tfkit.hub.models.vit.vit_layers import ViTPatchingAndEmbedding
        >>> embed = ViTPatchingAndEmbedding(image_size=(8, 8), patch_size=(4, 4), hidden_dim=6)
        >>> embed(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 5, 6])
    """

    computed_config = ("num_patches", "num_positions")

    def __init__(
        self,
        image_size: Any,
        patch_size: Any,
        hidden_dim: int,
        num_channels: int = 3,
        use_class_token: bool = True,
        use_patch_bias: bool = True,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        grid = tuple(int(s) // int(p) for s, p in zip(image_size, patch_size))
        self.num_patches = grid[0] * grid[1]
        self.num_positions = self.num_patches + 1 if use_class_token else self.num_patches
        self.data_format = standardize_data_format(data_format, f"ViTPatchingAndEmbedding layer '{self.name}'")

    def build(self, input_shape: Any) -> None:
        if self.use_class_token:
            self.class_token = self.add_weight(
                shape=(1, 1, self.hidden_dim),
                initializer="random_normal",
                dtype=self.variable_dtype,
                name="class_token",
            )
        self.patch_embedding = Conv2D(
            filters=self.hidden_dim,
            kernel_size=self.patch_size,
            strides=self.patch_size,
            padding="valid",
            activation=None,
            dtype=self.dtype_policy,
            data_format=self.data_format,
            use_bias=self.use_patch_bias,
            name="patch_embedding",
        )
        self.patch_embedding.build(input_shape)
        self.position_embedding = Embedding(
            self.num_positions,
            self.hidden_dim,
            dtype=self.dtype_policy,
            embeddings_initializer=initializers.RandomNormal(stddev=0.02),
            name="position_embedding",
        )
        self.position_embedding.build((1, self.num_positions))

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        patches = patches_to_sequence(self.patch_embedding(inputs), self.data_format)
        batch = tf.shape(patches)[0]
        positions = self.position_embedding(tf.range(self.num_positions)[tf.newaxis])
        if self.use_class_token:
            class_token = tf.tile(tf.cast(self.class_token, patches.dtype), [batch, 1, 1])
            patches = tf.concat([class_token, patches], axis=1)
        return patches + positions

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.num_positions, self.hidden_dim)


class ViTEncoderBlock(PreNormEncoderBlock):
    """Transformer encoder block: pre-norm self-attention and pre-norm MLP, each with a residual.

    Args:
        num_heads: The number of attention heads.
        hidden_dim: The size of the hidden states (`hidden_dim // num_heads`
            per head).
        mlp_dim: The size of the MLP's intermediate layer.
        use_mha_bias: Whether the attention projections have biases.
            Defaults to `True`.
        use_mlp_bias: Whether the MLP's dense layers have biases. Defaults
            to `True`.
        dropout_rate: The dropout rate after the attention and in the MLP.
            Defaults to `0.0`.
        attention_dropout: The dropout rate of the attention probabilities.
            Defaults to `0.0`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.
            `key_dim` (in the config, computed) is accepted and ignored.

    Call arguments:
        inputs: `(batch, length, hidden_dim)`.
        training: Whether dropout is active. Defaults to `None`.

    Example:
        >>> from tfkit.hub.models.vit.vit_layers import ViTEncoderBlock
        >>> ViTEncoderBlock(num_heads=2, hidden_dim=8, mlp_dim=16)(np.ones((1, 5, 8))).shape
        TensorShape([1, 5, 8])
    """

    _norm_1, _attention = StoredAs("layer_norm_1"), StoredAs("mha")
    _norm_2, _feed_forward = StoredAs("layer_norm_2"), StoredAs("mlp")
    make_parts_in_build = True
    computed_config = ("key_dim",)
    attention_class = _ViTAttention

    def __init__(
        self,
        num_heads: int,
        hidden_dim: int,
        mlp_dim: int,
        use_mha_bias: bool = True,
        use_mlp_bias: bool = True,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-6,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)

    def make_parts(self) -> None:
        self._norm_1 = self.layer_norm("ln_1")
        self._attention = self.self_attention("mha", self.use_mha_bias, self.attention_dropout)
        self.dropout = self.dropout_layer(self.dropout_rate)
        self._norm_2 = self.layer_norm("ln_2")
        self._feed_forward = MLP(
            hidden_dim=self.hidden_dim,
            mlp_dim=self.mlp_dim,
            use_bias=self.use_mlp_bias,
            dropout_rate=self.dropout_rate,
            name="mlp",
            dtype=self.dtype_policy,
        )

    def after_attention(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        return self.dropout(x, training=training)


class ViTEncoder(PreNormEncoder):
    """Vision Transformer (ViT) encoder: dropout, `num_layers` encoder blocks (`ViTEncoderBlock`), a final layer norm.

    Args:
        num_layers: The number of encoder blocks.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        mlp_dim: The size of each MLP's intermediate layer.
        use_mha_bias: Whether the attention projections have biases.
            Defaults to `True`.
        use_mlp_bias: Whether the MLPs' dense layers have biases. Defaults to
            `True`.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        attention_dropout: The dropout rate of the attention probabilities.
            Defaults to `0.0`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(batch, length, hidden_dim)`.
        training: Whether dropout is active. Defaults to `None`.

    Example:
        >>> from tfkit.hub.models.vit.vit_layers import ViTEncoder
        >>> encoder = ViTEncoder(num_layers=2, num_heads=2, hidden_dim=8, mlp_dim=16)
        >>> encoder(np.ones((1, 5, 8))).shape, len(encoder.encoder_layers)
        (TensorShape([1, 5, 8]), 2)
    """

    block_class = ViTEncoderBlock
    input_dropout = True

    def __init__(
        self,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        mlp_dim: int,
        use_mha_bias: bool = True,
        use_mlp_bias: bool = True,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-6,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
