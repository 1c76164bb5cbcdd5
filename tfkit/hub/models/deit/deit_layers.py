"""The blocks of ``DeiTBackbone``: embeddings with class and distillation tokens, encoder block and encoder.

    embed = DeiTEmbeddings(image_size=(224, 224), patch_size=(16, 16), hidden_dim=768)
    tokens = embed(images)                                   # (batch, 2 + 14 * 14, 768): class, distillation first
    hidden = DeiTEncoder(num_layers=12, num_heads=12, hidden_dim=768, intermediate_dim=3072)(tokens)

Sub-layers are made in ``build`` under KerasHub's attribute names (``patch_embedding``,
``position_embedding``, ``layer_norm_1``, ``mha``, ``mlp``, ``output_layer``, ``encoder_layers``, ...),
so the weight files Keras writes for KerasHub's DeiT load into these layers. Unlike ViT's, the position
embedding is a plain weight with a batch axis, the MLP's second dense layer holds the residual
(``DeiTOutput``), and the encoder has no input dropout. KerasHub does not register these classes, so
neither does tfkit.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base.data_format import standardize_data_format
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.declared_config import DeclaredLayer
from tfkit.hub.layers.vit_style_encoder import PreNormEncoder, PreNormEncoderBlock, patches_to_sequence
from tfkit.hub.models.vit.vit_layers import _ViTAttention
from tfkit.layers import Conv2D, Dense, Dropout


class DeiTEmbeddings(DeclaredLayer):
    """Patches the image and embeds the patches, after a class token and a distillation token.

    A strided convolution embeds each `patch_size` patch; the patches are
    flattened row by row, the learned class and distillation tokens are put
    first, a learned position embedding is added and dropout applied.

    Args:
        image_size: `(height, width)` of the input images.
        patch_size: `(height, width)` of each patch; must divide `image_size`.
        hidden_dim: The size of each patch embedding.
        num_channels: The number of image channels. Defaults to `3`.
        data_format: `"channels_last"` or `"channels_first"`; `None` (the
            default) means `tfkit.config.image_data_format()`.
        use_mask_token: Whether to hold a mask token (a weight KerasHub keeps
            for masked image modeling; the backbone does not use it).
            Defaults to `False`.
        dropout_rate: The dropout rate of the embeddings. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.
            `num_patches` and `num_positions` (in the config, computed) are
            accepted and ignored.

    Call arguments:
        inputs: Images `(batch, height, width, channels)` (channels first with
            `data_format="channels_first"`).
        training: Whether dropout is active. Defaults to `None`.

    Output shape:
        `(batch, num_patches + 2, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.deit.deit_layers import DeiTEmbeddings
        >>> embed = DeiTEmbeddings(image_size=(8, 8), patch_size=(4, 4), hidden_dim=6)
        >>> embed(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 6, 6])
    """

    computed_config = ("num_patches", "num_positions")

    def __init__(
        self,
        image_size: Any,
        patch_size: Any,
        hidden_dim: int,
        num_channels: int = 3,
        data_format: str | None = None,
        use_mask_token: bool = False,
        dropout_rate: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_patches = (int(image_size[0]) // int(patch_size[0])) * (int(image_size[1]) // int(patch_size[1]))
        self.num_positions = self.num_patches + 2
        self.data_format = standardize_data_format(data_format, f"DeiTEmbeddings layer '{self.name}'")

    def _token(self, name: str) -> Any:
        return self.add_weight(shape=(1, 1, self.hidden_dim), initializer="zeros", dtype=self.variable_dtype, name=name)

    def build(self, input_shape: Any) -> None:
        if self.use_mask_token:
            self.mask_token = self._token("mask_token")
        self.class_token = self._token("class_token")
        self.distillation_token = self._token("distillation_token")
        self.patch_embedding = Conv2D(
            filters=self.hidden_dim,
            kernel_size=self.patch_size,
            strides=self.patch_size,
            padding="valid",
            dtype=self.dtype_policy,
            data_format=self.data_format,
            name="patch_embedding",
        )
        self.patch_embedding.build(input_shape)
        self.position_embedding = self.add_weight(
            shape=(1, self.num_positions, self.hidden_dim),
            initializer=initializers.RandomNormal(stddev=0.02),
            dtype=self.variable_dtype,
            name="position_embedding",
        )
        self.dropout = Dropout(self.dropout_rate, dtype=self.dtype_policy, name="dropout")

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        patches = patches_to_sequence(self.patch_embedding(inputs), self.data_format)
        batch = tf.shape(patches)[0]
        tokens = [
            tf.tile(tf.cast(token, patches.dtype), [batch, 1, 1])
            for token in (self.class_token, self.distillation_token)
        ]
        embeddings = tf.concat([*tokens, patches], axis=1) + tf.cast(self.position_embedding, patches.dtype)
        return self.dropout(embeddings, training=training)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.num_positions, self.hidden_dim)


class DeiTIntermediate(DeclaredLayer):
    """The first half of DeiT's MLP: a dense layer (`"dense"`) of `intermediate_dim` units with GELU.

    Args:
        intermediate_dim: The size of the output.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.deit.deit_layers import DeiTIntermediate
        >>> DeiTIntermediate(16)(np.ones((1, 3, 8))).shape
        TensorShape([1, 3, 16])
    """

    def __init__(self, intermediate_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def build(self, input_shape: Any) -> None:
        self.dense = Dense(self.intermediate_dim, activation="gelu", dtype=self.dtype_policy, name="dense")
        self.dense.build(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return self.dense(inputs)


class DeiTOutput(DeclaredLayer):
    """The second half of DeiT's MLP: a dense layer (`"output"`), dropout, then the residual added.

    Args:
        hidden_dim: The size of the output (the hidden states).
        dropout_rate: The dropout rate. Defaults to `0.1`, as KerasHub's.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, length, intermediate_dim)`.
        input_tensor: The residual, `(batch, length, hidden_dim)`.
        training: Whether dropout is active. Defaults to `None`.

    Example:
        >>> from tfkit.hub.models.deit.deit_layers import DeiTOutput
        >>> DeiTOutput(8)(np.ones((1, 3, 16)), np.ones((1, 3, 8))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(self, hidden_dim: int, dropout_rate: float = 0.1, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def build(self, input_shape: Any) -> None:
        self.dense = Dense(self.hidden_dim, dtype=self.dtype_policy, name="output")
        self.dense.build(input_shape)
        self.dropout = Dropout(self.dropout_rate, dtype=self.dtype_policy, name="dropout")

    def call(self, hidden_states: tf.Tensor, input_tensor: tf.Tensor, training: Any = None) -> tf.Tensor:
        return self.dropout(self.dense(hidden_states), training=training) + input_tensor


class DeiTEncoderBlock(PreNormEncoderBlock):
    """Transformer encoder block: pre-norm self-attention and pre-norm MLP, each with a residual.

    Args:
        num_heads: The number of attention heads.
        hidden_dim: The size of the hidden states (`hidden_dim // num_heads`
            per head).
        intermediate_dim: The size of the MLP's intermediate layer.
        use_mha_bias: Whether the attention projections have biases.
            Defaults to `True`.
        dropout_rate: The dropout rate of the MLP's output. Defaults to `0.0`.
        attention_dropout: The dropout rate of the attention probabilities.
            Defaults to `0.0`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.
            `key_dim` (in the config, computed) is accepted and ignored.

    Call arguments:
        hidden_states: `(batch, length, hidden_dim)`.
        attention_mask: An optional attention mask. Defaults to `None`.
        training: Whether dropout is active. Defaults to `None`.

    Returns:
        The new hidden states (KerasHub's also returns attention scores,
        `None` unless asked for; tfkit's block returns the states alone).

    Example:
        >>> from tfkit.hub.models.deit.deit_layers import DeiTEncoderBlock
        >>> DeiTEncoderBlock(num_heads=2, hidden_dim=8, intermediate_dim=16)(np.ones((1, 5, 8))).shape
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
        intermediate_dim: int,
        use_mha_bias: bool = True,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-6,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)

    def make_parts(self) -> None:
        self._norm_1 = self.layer_norm("ln_1")
        self._attention = self.self_attention("mha", self.use_mha_bias, self.attention_dropout)
        self._norm_2 = self.layer_norm("ln_2")
        self._feed_forward = DeiTIntermediate(self.intermediate_dim, dtype=self.dtype_policy, name="mlp")
        self.output_layer = DeiTOutput(self.hidden_dim, self.dropout_rate, dtype=self.dtype_policy, name="output_layer")

    def build_feed_forward(self, input_shape: Any) -> None:
        self.mlp.build(input_shape)
        self.output_layer.build((None, None, self.intermediate_dim))

    def feed_forward_residual(self, hidden: tf.Tensor, training: Any) -> tf.Tensor:
        return self.output_layer(self.mlp(self.layer_norm_2(hidden)), hidden, training=training)

    def call(self, hidden_states: tf.Tensor, attention_mask: Any = None, training: Any = None) -> tf.Tensor:
        return self.encode(hidden_states, attention_mask, training)


class DeiTEncoder(PreNormEncoder):
    """DeiT encoder: `num_layers` encoder blocks (`DeiTEncoderBlock`) and a final layer norm.

    Args:
        num_layers: The number of encoder blocks.
        num_heads: The number of attention heads of each block.
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of each MLP's intermediate layer.
        use_mha_bias: Whether the attention projections have biases.
            Defaults to `True`.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        attention_dropout: The dropout rate of the attention probabilities.
            Defaults to `0.0`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, length, hidden_dim)`.
        training: Whether dropout is active. Defaults to `None`.

    Returns:
        The normalized last hidden states (KerasHub's encoder returns them
        with two placeholders for all hidden states and attention scores).

    Example:
        >>> from tfkit.hub.models.deit.deit_layers import DeiTEncoder
        >>> encoder = DeiTEncoder(num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16)
        >>> encoder(np.ones((1, 5, 8))).shape, len(encoder.encoder_layers)
        (TensorShape([1, 5, 8]), 2)
    """

    block_class = DeiTEncoderBlock

    def __init__(
        self,
        num_layers: int,
        num_heads: int,
        hidden_dim: int,
        intermediate_dim: int,
        use_mha_bias: bool = True,
        dropout_rate: float = 0.0,
        attention_dropout: float = 0.0,
        layer_norm_epsilon: float = 1e-6,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)

    def call(self, hidden_states: tf.Tensor, training: Any = None) -> tf.Tensor:
        return super().call(hidden_states, training=training)
