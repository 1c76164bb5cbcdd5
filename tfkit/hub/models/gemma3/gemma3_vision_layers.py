"""The blocks of Gemma 3's vision encoder (a SigLIP-style ViT), under KerasHub's class and attribute names.

    block = Gemma3VisionEncoderBlock(patch_size=14, image_size=896, hidden_dim=1152, num_layers=27,
                                     num_heads=16, intermediate_dim=4304)
    patches = block(images)                                   # (batch * images, 64 * 64, 1152)
    soft_tokens = Gemma3VisionOutput(2560)(Gemma3VisionAveragePooling(896, 14, 4)(patches))

Keras's weight files key a layer of a functional model by its class name and a
sub-layer by its attribute name, so both are KerasHub's
(``gemma3_vision_encoder_block``, ``vision_embeddings``, ``resblocks``, ``attn``,
``gemma3_vision_output``, ``vision_soft_embedding_norm`` ...). KerasHub does not
register these layers, so neither does tfkit.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.layers import AveragePooling2D, Conv2D, Dense, Dropout, Embedding, LayerNormalization


class Gemma3VisionEmbedding(DeclaredConfig, Layer):
    """Patch embedding: a strided convolution (with bias) plus learned position embeddings, no class token.

    Args:
        image_size: The side of the square input images.
        patch_size: The side of the square patches.
        hidden_dim: The size of each embedding.
        num_channels: The images' channels. Defaults to `3`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        input_tokens: Images `(batch, image_size, image_size, channels)`.

    Returns:
        `(batch, (image_size // patch_size) ** 2, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionEmbedding
        >>> Gemma3VisionEmbedding(image_size=8, patch_size=4, hidden_dim=6)(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 4, 6])
    """

    def __init__(self, image_size: int, patch_size: int, hidden_dim: int, num_channels: int = 3, **kwargs: Any):
        super().__init__(**kwargs)
        self.image_size, self.patch_size, self.hidden_dim = image_size, patch_size, hidden_dim
        self.num_channels = num_channels
        self.patch_embedding = Conv2D(
            hidden_dim, kernel_size=patch_size, strides=patch_size, dtype=self.dtype_policy, name="embedding_conv"
        )
        self.num_patches = self.num_positions = (image_size // patch_size) ** 2
        self.position_embedding = Embedding(
            self.num_positions, hidden_dim, dtype=self.dtype_policy, name="position_embedding"
        )

    def build(self, input_shape: Any) -> None:
        self.patch_embedding.build(input_shape)
        self.position_embedding.build((1, self.num_positions))

    def call(self, input_tokens: tf.Tensor) -> tf.Tensor:
        width = self.image_size // self.patch_size
        x = tf.cond(  # TensorFlow's convolution of zero images returns its input's shape: a text-only batch's
            tf.equal(tf.shape(input_tokens)[0], 0),
            lambda: tf.zeros([0, width, width, self.hidden_dim], self.compute_dtype),
            lambda: self.patch_embedding(input_tokens),
        )
        x = tf.reshape(x, [tf.shape(x)[0], self.num_patches, self.hidden_dim])
        return x + self.position_embedding(tf.range(self.num_positions)[tf.newaxis])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.num_patches, self.hidden_dim)


class Gemma3VisionAttention(DeclaredConfig, Layer):
    """Multi-head self-attention with biased query, key, value and output projections (CLIP's layout).

    Args:
        hidden_dim: The size of the inputs and outputs; a multiple of
            `num_heads`.
        num_heads: The number of attention heads.
        dropout: The dropout rate of the attention probabilities. Defaults
            to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: `(batch, length, hidden_dim)`.
        attention_mask: Optional additive mask, broadcast to
            `(batch, num_heads, length, length)`.
        training: Whether dropout is active.

    Returns:
        `(outputs, attention_probabilities)`.

    Raises:
        ValueError: If `hidden_dim` is not a multiple of `num_heads`.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionAttention
        >>> outputs, probabilities = Gemma3VisionAttention(hidden_dim=4, num_heads=2)(np.ones((1, 3, 4)))
        >>> outputs.shape, probabilities.shape
        (TensorShape([1, 3, 4]), TensorShape([1, 2, 3, 3]))
    """

    def __init__(self, hidden_dim: int, num_heads: int, dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hidden_dim, self.num_heads, self.dropout = hidden_dim, num_heads, dropout
        self.head_dim = hidden_dim // num_heads
        if self.head_dim * num_heads != hidden_dim:
            raise ValueError(
                f"Gemma3VisionAttention '{self.name}': hidden_dim must be divisible by num_heads, got "
                f"hidden_dim={hidden_dim} and num_heads={num_heads}"
            )
        self.dropout_layer = Dropout(dropout, dtype=self.dtype_policy, name="dropout")
        for name in ("query_proj", "key_proj", "value_proj", "out_proj"):
            setattr(self, name, Dense(hidden_dim, dtype=self.dtype_policy, name=name))

    def build(self, input_shape: Any) -> None:
        for dense in (self.query_proj, self.key_proj, self.value_proj, self.out_proj):
            dense.build((None, None, self.hidden_dim))

    def _heads(self, x: tf.Tensor) -> tf.Tensor:
        shape = tf.shape(x)
        return tf.transpose(tf.reshape(x, [shape[0], shape[1], self.num_heads, self.head_dim]), [0, 2, 1, 3])

    def call(self, x: tf.Tensor, attention_mask: Any = None, training: Any = False) -> tuple[tf.Tensor, tf.Tensor]:
        query, key, value = (self._heads(dense(x)) for dense in (self.query_proj, self.key_proj, self.value_proj))
        scores = tf.matmul(query, key, transpose_b=True) / tf.cast(tf.sqrt(float(self.head_dim)), query.dtype)
        if attention_mask is not None:
            scores = scores + attention_mask
        probabilities = tf.nn.softmax(scores, axis=-1)
        outputs = tf.matmul(self.dropout_layer(probabilities, training=training), value)
        shape = tf.shape(x)
        outputs = tf.reshape(tf.transpose(outputs, [0, 2, 1, 3]), [shape[0], shape[1], self.hidden_dim])
        return self.out_proj(outputs), probabilities


class Gemma3VisionEncoderLayer(DeclaredConfig, Layer):
    """A pre-norm transformer layer: layer norm, attention, residual; layer norm, GELU (tanh) MLP, residual.

    The sub-layers are built from the input's width on the first call, as
    KerasHub's.

    Args:
        num_heads: The number of attention heads.
        intermediate_dim: The width of the MLP's hidden layer.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: `(batch, length, hidden_dim)`.
        mask: Optional additive attention mask.

    Returns:
        `(batch, length, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionEncoderLayer
        >>> Gemma3VisionEncoderLayer(num_heads=2, intermediate_dim=8)(np.ones((1, 3, 4))).shape
        TensorShape([1, 3, 4])
    """

    def __init__(self, num_heads: int, intermediate_dim: int, layer_norm_epsilon: float = 1e-6, **kwargs: Any):
        super().__init__(**kwargs)
        self.num_heads, self.intermediate_dim, self.layer_norm_epsilon = num_heads, intermediate_dim, layer_norm_epsilon

    def build(self, input_shape: Any) -> None:
        hidden_dim, policy, epsilon = int(input_shape[-1]), self.dtype_policy, self.layer_norm_epsilon
        self.attn = Gemma3VisionAttention(hidden_dim, self.num_heads, dtype=policy, name="multi_head_attention")
        self.layer_norm_1 = LayerNormalization(epsilon=epsilon, dtype=policy, name="layer_norm_1")
        self.mlp_dense_1 = Dense(self.intermediate_dim, dtype=policy, name="mlp_dense_1")
        self.mlp_dense_2 = Dense(hidden_dim, dtype=policy, name="mlp_dense_2")
        self.layer_norm_2 = LayerNormalization(epsilon=epsilon, dtype=policy, name="layer_norm_2")
        self.attn.build(None)
        self.layer_norm_1.build((None, None, hidden_dim))
        self.mlp_dense_1.build((None, None, hidden_dim))
        self.mlp_dense_2.build((None, None, self.intermediate_dim))
        self.layer_norm_2.build((None, None, hidden_dim))

    def call(self, x: tf.Tensor, mask: Any = None) -> tf.Tensor:
        if mask is not None:
            mask = tf.cast(mask, x.dtype)
        x = x + self.attn(self.layer_norm_1(x), attention_mask=mask)[0]
        return x + self.mlp_dense_2(gelu_approximate(self.mlp_dense_1(self.layer_norm_2(x))))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class Gemma3VisionEncoderBlock(DeclaredConfig, Layer):
    """The ViT: patch embeddings, `num_layers` encoder layers and a final layer norm, over every image.

    Args:
        patch_size: The side of the square patches.
        image_size: The side of the square images.
        hidden_dim: The width of the transformer.
        num_layers: The number of encoder layers.
        num_heads: The number of attention heads.
        intermediate_dim: The width of each MLP's hidden layer.
        layer_norm_epsilon: The final layer norm's epsilon (the encoder
            layers keep `1e-6`, as KerasHub's). Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Images `(batch, images, image_size, image_size, 3)`.
        mask: Optional additive attention mask.

    Returns:
        `(batch * images, (image_size // patch_size) ** 2, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionEncoderBlock
        >>> block = Gemma3VisionEncoderBlock(patch_size=4, image_size=8, hidden_dim=4, num_layers=1, num_heads=2,
        ...     intermediate_dim=8)
        >>> block(np.ones((2, 3, 8, 8, 3))).shape
        TensorShape([6, 4, 4])
    """

    def __init__(
        self,
        patch_size: int,
        image_size: int,
        hidden_dim: int,
        num_layers: int,
        num_heads: int,
        intermediate_dim: int,
        layer_norm_epsilon: float = 1e-6,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.patch_size, self.image_size, self.hidden_dim = patch_size, image_size, hidden_dim
        self.num_layers, self.num_heads, self.intermediate_dim = num_layers, num_heads, intermediate_dim
        self.layer_norm_epsilon = layer_norm_epsilon
        policy = self.dtype_policy
        self.encoder_layer_norm = LayerNormalization(
            epsilon=layer_norm_epsilon, dtype=policy, name="encoder_layer_norm"
        )
        self.vision_embeddings = Gemma3VisionEmbedding(
            image_size, patch_size, hidden_dim, dtype=policy, name="encoder_embeddings"
        )
        self.resblocks = [
            Gemma3VisionEncoderLayer(num_heads, intermediate_dim, dtype=policy, name=f"encoder_block_{i}")
            for i in range(num_layers)
        ]

    def build(self, input_shape: Any) -> None:
        self.vision_embeddings.build((None, *tuple(input_shape)[2:]))
        for block in self.resblocks:
            block.build((None, None, self.hidden_dim))
        self.encoder_layer_norm.build((None, None, self.hidden_dim))

    def call(self, inputs: tf.Tensor, mask: Any = None) -> tf.Tensor:
        shape = tf.shape(inputs)
        x = self.vision_embeddings(tf.reshape(inputs, tf.concat([[shape[0] * shape[1]], shape[2:]], axis=0)))
        for block in self.resblocks:
            x = block(x, mask=mask)
        return self.encoder_layer_norm(x)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (None, (self.image_size // self.patch_size) ** 2, self.hidden_dim)


class Gemma3VisionAveragePooling(DeclaredConfig, Layer):
    """Average pooling of the patch grid by `pool_size` a side (`pool_size ** 2` patches to one soft token).

    Args:
        image_size: The side of the square images.
        patch_size: The side of the square patches.
        pool_size: The pooling window and stride, in patches.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: Patches `(batch, (image_size // patch_size) ** 2, hidden_dim)`.

    Returns:
        `(batch, (image_size // patch_size // pool_size) ** 2, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionAveragePooling
        >>> Gemma3VisionAveragePooling(image_size=8, patch_size=2, pool_size=2)(np.ones((1, 16, 3))).shape
        TensorShape([1, 4, 3])
    """

    def __init__(self, image_size: int, patch_size: int, pool_size: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.image_size, self.patch_size, self.pool_size = image_size, patch_size, pool_size
        self.width = image_size // patch_size
        self.reduced_width = self.width // pool_size
        self.average_pooling = AveragePooling2D(
            pool_size=pool_size, strides=pool_size, padding="valid", dtype=self.dtype_policy, name="average_pooling"
        )

    def call(self, x: tf.Tensor) -> tf.Tensor:
        batch, hidden_dim = tf.shape(x)[0], tf.shape(x)[2]
        x = self.average_pooling(tf.reshape(x, [batch, self.width, self.width, hidden_dim]))
        return tf.reshape(x, [batch, self.reduced_width**2, hidden_dim])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.reduced_width**2, input_shape[-1])


class Gemma3VisionOutput(DeclaredConfig, Layer):
    """The soft tokens' projection into the decoder: Gemma's RMS norm, then a bias-free dense layer.

    Args:
        output_dim: The decoder's hidden size.
        layer_norm_epsilon: The RMS norm's epsilon. Defaults to `1e-6`.
        kernel_initializer: The projection's initializer. Defaults to
            `"glorot_uniform"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(batch, tokens, vision_hidden_dim)`.

    Returns:
        `(batch, tokens, output_dim)`.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionOutput
        >>> Gemma3VisionOutput(output_dim=6)(np.ones((1, 4, 3))).shape
        TensorShape([1, 4, 6])
    """

    def __init__(
        self, output_dim: int, layer_norm_epsilon: float = 1e-6, kernel_initializer: Any = "glorot_uniform", **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self.output_dim, self.layer_norm_epsilon = output_dim, layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)

    def build(self, input_shape: Any) -> None:
        self.vision_soft_embedding_norm = RMSNormalization(
            epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name="vision_soft_embedding_norm"
        )
        self.vision_soft_embedding_norm.build(input_shape)
        self.vision_input_projection = Dense(
            self.output_dim,
            use_bias=False,
            kernel_initializer=self.kernel_initializer,
            dtype=self.dtype_policy,
            name="vision_input_projection",
        )
        self.vision_input_projection.build(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return self.vision_input_projection(self.vision_soft_embedding_norm(inputs))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(input_shape[:-1]) + (self.output_dim,)
