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
from tfkit.engine.layer import Layer
from tfkit.hub.models.vit.vit_layers import _ViTAttention
from tfkit.layers import Conv2D, Dense, Dropout, LayerNormalization


class DeiTEmbeddings(Layer):
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
        kwargs.pop("num_patches", None)
        kwargs.pop("num_positions", None)
        super().__init__(**kwargs)
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.num_channels = num_channels
        self.num_patches = (int(image_size[0]) // int(patch_size[0])) * (int(image_size[1]) // int(patch_size[1]))
        self.num_positions = self.num_patches + 2
        self.data_format = standardize_data_format(data_format, f"DeiTEmbeddings layer '{self.name}'")
        self.use_mask_token = use_mask_token
        self.dropout_rate = dropout_rate

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
        patches = self.patch_embedding(inputs)
        if self.data_format == "channels_first":
            patches = tf.transpose(patches, (0, 2, 3, 1))
        batch = tf.shape(patches)[0]
        patches = tf.reshape(patches, [batch, -1, self.hidden_dim])
        tokens = [
            tf.tile(tf.cast(token, patches.dtype), [batch, 1, 1])
            for token in (self.class_token, self.distillation_token)
        ]
        embeddings = tf.concat([*tokens, patches], axis=1) + tf.cast(self.position_embedding, patches.dtype)
        return self.dropout(embeddings, training=training)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.num_positions, self.hidden_dim)

    def get_config(self) -> dict[str, Any]:
        """KerasHub's keys (`num_patches` and `num_positions` included), plus `data_format`, which KerasHub drops."""
        config = super().get_config()
        config.update(
            image_size=self.image_size,
            patch_size=self.patch_size,
            hidden_dim=self.hidden_dim,
            num_channels=self.num_channels,
            num_patches=self.num_patches,
            num_positions=self.num_positions,
            use_mask_token=self.use_mask_token,
            dropout_rate=self.dropout_rate,
            data_format=self.data_format,
        )
        return config


class DeiTIntermediate(Layer):
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
        self.intermediate_dim = intermediate_dim

    def build(self, input_shape: Any) -> None:
        self.dense = Dense(self.intermediate_dim, activation="gelu", dtype=self.dtype_policy, name="dense")
        self.dense.build(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return self.dense(inputs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(intermediate_dim=self.intermediate_dim)
        return config


class DeiTOutput(Layer):
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
        self.hidden_dim = hidden_dim
        self.dropout_rate = dropout_rate

    def build(self, input_shape: Any) -> None:
        self.dense = Dense(self.hidden_dim, dtype=self.dtype_policy, name="output")
        self.dense.build(input_shape)
        self.dropout = Dropout(self.dropout_rate, dtype=self.dtype_policy, name="dropout")

    def call(self, hidden_states: tf.Tensor, input_tensor: tf.Tensor, training: Any = None) -> tf.Tensor:
        return self.dropout(self.dense(hidden_states), training=training) + input_tensor

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(hidden_dim=self.hidden_dim, dropout_rate=self.dropout_rate)
        return config


class DeiTEncoderBlock(Layer):
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
        kwargs.pop("key_dim", None)
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.key_dim = hidden_dim // num_heads
        self.use_mha_bias = use_mha_bias
        self.dropout_rate = dropout_rate
        self.attention_dropout = attention_dropout
        self.layer_norm_epsilon = layer_norm_epsilon

    def _layer_norm(self, name: str) -> LayerNormalization:
        norm = LayerNormalization(epsilon=self.layer_norm_epsilon, name=name, dtype=self.dtype_policy)
        norm.build((None, None, self.hidden_dim))
        return norm

    def build(self, input_shape: Any) -> None:
        self.layer_norm_1 = self._layer_norm("ln_1")
        self.mha = _ViTAttention(
            num_heads=self.num_heads,
            key_dim=self.key_dim,
            use_bias=self.use_mha_bias,
            dropout=self.attention_dropout,
            name="mha",
            dtype=self.dtype_policy,
        )
        self.mha.build(input_shape, input_shape)
        self.layer_norm_2 = self._layer_norm("ln_2")
        self.mlp = DeiTIntermediate(self.intermediate_dim, dtype=self.dtype_policy, name="mlp")
        self.mlp.build((None, None, self.hidden_dim))
        self.output_layer = DeiTOutput(self.hidden_dim, self.dropout_rate, dtype=self.dtype_policy, name="output_layer")
        self.output_layer.build((None, None, self.intermediate_dim))

    def call(self, hidden_states: tf.Tensor, attention_mask: Any = None, training: Any = None) -> tf.Tensor:
        x = self.layer_norm_1(hidden_states)
        x = self.mha(x, x, attention_mask=attention_mask, training=training) + hidden_states
        return self.output_layer(self.mlp(self.layer_norm_2(x)), x, training=training)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_heads=self.num_heads,
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            key_dim=self.key_dim,
            use_mha_bias=self.use_mha_bias,
            dropout_rate=self.dropout_rate,
            attention_dropout=self.attention_dropout,
            layer_norm_epsilon=self.layer_norm_epsilon,
        )
        return config


class DeiTEncoder(Layer):
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
        self.num_layers = num_layers
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.use_mha_bias = use_mha_bias
        self.dropout_rate = dropout_rate
        self.attention_dropout = attention_dropout
        self.layer_norm_epsilon = layer_norm_epsilon

    def build(self, input_shape: Any) -> None:
        blocks = []
        for i in range(self.num_layers):
            block = DeiTEncoderBlock(
                num_heads=self.num_heads,
                hidden_dim=self.hidden_dim,
                intermediate_dim=self.intermediate_dim,
                use_mha_bias=self.use_mha_bias,
                dropout_rate=self.dropout_rate,
                attention_dropout=self.attention_dropout,
                layer_norm_epsilon=self.layer_norm_epsilon,
                dtype=self.dtype_policy,
                name=f"transformer_block_{i + 1}",
            )
            block.build((None, None, self.hidden_dim))
            blocks.append(block)
        self.encoder_layers = blocks
        self.layer_norm = LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name="ln")
        self.layer_norm.build((None, None, self.hidden_dim))

    def call(self, hidden_states: tf.Tensor, training: Any = None) -> tf.Tensor:
        for block in self.encoder_layers:
            hidden_states = block(hidden_states, training=training)
        return self.layer_norm(hidden_states)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            num_layers=self.num_layers,
            num_heads=self.num_heads,
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            use_mha_bias=self.use_mha_bias,
            dropout_rate=self.dropout_rate,
            attention_dropout=self.attention_dropout,
            layer_norm_epsilon=self.layer_norm_epsilon,
        )
        return config
