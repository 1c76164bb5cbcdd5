"""The layers of PaliGemma's ViT (SigLIP's): patch embeddings, biased multi-head attention, the encoder layer.

    embeddings = PaliGemmaVitEmbeddings(image_size=224, patch_size=14, hidden_dim=1152)   # (b, 256, 1152)
    block = PaliGemmaVitEncoderBlock(num_heads=16, intermediate_dim=4304)                 # pre-norm layer

Sub-layers keep KerasHub's attribute names (``patch_embedding``,
``position_embedding``, ``attn``, ``query_proj`` ..., ``layer_norm_1``,
``mlp_dense_1``): Keras's weight files key a sub-layer by its attribute.
KerasHub does not register these layers, so neither does tfkit.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.layers import Conv2D, Dense, Dropout, Embedding, LayerNormalization


class PaliGemmaVitEmbeddings(DeclaredConfig, Layer):
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
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_vit_layers import PaliGemmaVitEmbeddings
        >>> PaliGemmaVitEmbeddings(image_size=8, patch_size=4, hidden_dim=6)(np.ones((2, 8, 8, 3))).shape
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
        x = self.patch_embedding(input_tokens)
        x = tf.reshape(x, [tf.shape(x)[0], self.num_patches, self.hidden_dim])
        return x + self.position_embedding(tf.range(self.num_positions)[tf.newaxis])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.num_patches, self.hidden_dim)


class PaliGemmaVitAttention(DeclaredConfig, Layer):
    """Multi-head self-attention with biased query, key, value and output projections.

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
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_vit_layers import PaliGemmaVitAttention
        >>> outputs, probabilities = PaliGemmaVitAttention(hidden_dim=4, num_heads=2)(np.ones((1, 3, 4)))
        >>> outputs.shape, probabilities.shape
        (TensorShape([1, 3, 4]), TensorShape([1, 2, 3, 3]))
    """

    def __init__(self, hidden_dim: int, num_heads: int, dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hidden_dim, self.num_heads, self.dropout = hidden_dim, num_heads, dropout
        self.head_dim = hidden_dim // num_heads
        if self.head_dim * num_heads != hidden_dim:
            raise ValueError(
                f"PaliGemmaVitAttention '{self.name}': hidden_dim must be divisible by num_heads, got "
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


class PaliGemmaVitEncoderBlock(DeclaredConfig, Layer):
    """A pre-norm transformer layer: layer norm, attention, residual; layer norm, GELU (tanh) MLP, residual.

    The sub-layers are built from the input's width on the first call, as
    KerasHub's.

    Args:
        num_heads: The number of attention heads.
        intermediate_dim: The width of the MLP's hidden layer.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: `(batch, length, hidden_dim)`.
        mask: Optional additive attention mask.

    Returns:
        `(batch, length, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_vit_layers import PaliGemmaVitEncoderBlock
        >>> PaliGemmaVitEncoderBlock(num_heads=2, intermediate_dim=8)(np.ones((1, 3, 4))).shape
        TensorShape([1, 3, 4])
    """

    def __init__(self, num_heads: int, intermediate_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_heads, self.intermediate_dim = num_heads, intermediate_dim

    def build(self, input_shape: Any) -> None:
        hidden_dim, policy = int(input_shape[-1]), self.dtype_policy
        self.attn = PaliGemmaVitAttention(hidden_dim, self.num_heads, dtype=policy, name="multi_head_attention")
        self.layer_norm_1 = LayerNormalization(epsilon=1e-6, dtype=policy, name="layer_norm_1")
        self.mlp_dense_1 = Dense(self.intermediate_dim, dtype=policy, name="mlp_dense_1")
        self.mlp_dense_2 = Dense(hidden_dim, dtype=policy, name="mlp_dense_2")
        self.layer_norm_2 = LayerNormalization(epsilon=1e-6, dtype=policy, name="layer_norm_2")
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
