"""The SigLIP-style ViT that PaliGemma and Gemma 3 share: patch embeddings, biased attention, encoder layer, stack.

    class PaliGemmaVitEncoderBlock(SigLIPStyleEncoderLayer):     # KerasHub's class name, which its weight files key
        attention_class = PaliGemmaVitAttention
    class PaliGemmaVitEncoder(SigLIPStyleViT):
        embedding_class, layer_class = PaliGemmaVitEmbeddings, PaliGemmaVitEncoderBlock
        def __init__(self, patch_size, image_size, hidden_dim, num_layers, num_heads, intermediate_dim, **kwargs):
            super().__init__(**kwargs)                            # the signature declares the arguments and config

KerasHub writes PaliGemma's ViT and Gemma 3's vision encoder twice, with the same attribute
and layer names and different class names (Keras's weight files key a layer of a list or of a
functional model by its class name). The computation is here, once; each family keeps its
classes as thin subclasses under KerasHub's names. The encoder layer is the vision families'
``PreNormEncoderBlock`` whose parts are made from the input's width on the first call, as KerasHub's.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.declared_config import DeclaredConfig, DeclaredLayer
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.layers.vit_style_encoder import PreNormEncoderBlock
from tfkit.layers import Conv2D, Dense, Dropout, Embedding, LayerNormalization


class SigLIPStylePatchEmbedding(DeclaredConfig, Layer):
    """Patch embedding: a strided convolution (with bias) plus learned position embeddings, no class token.

    Args:
        image_size: The side of the square input images.
        patch_size: The side of the square patches.
        hidden_dim: The size of each embedding.
        num_channels: The images' channels. Defaults to `3`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        input_tokens: Images `(batch, image_size, image_size, channels)`; a
            batch of none (a text-only batch) gives none.

    Returns:
        `(batch, (image_size // patch_size) ** 2, hidden_dim)`.

    Example:
        >>> from tfkit.hub.layers.siglip_style_vit import SigLIPStylePatchEmbedding
        >>> SigLIPStylePatchEmbedding(image_size=8, patch_size=4, hidden_dim=6)(np.ones((2, 8, 8, 3))).shape
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


class SigLIPStyleAttention(DeclaredConfig, Layer):
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
        >>> from tfkit.hub.layers.siglip_style_vit import SigLIPStyleAttention
        >>> outputs, probabilities = SigLIPStyleAttention(hidden_dim=4, num_heads=2)(np.ones((1, 3, 4)))
        >>> outputs.shape, probabilities.shape
        (TensorShape([1, 3, 4]), TensorShape([1, 2, 3, 3]))
    """

    def __init__(self, hidden_dim: int, num_heads: int, dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hidden_dim, self.num_heads, self.dropout = hidden_dim, num_heads, dropout
        self.head_dim = hidden_dim // num_heads
        if self.head_dim * num_heads != hidden_dim:
            raise ValueError(
                f"{type(self).__name__} '{self.name}': hidden_dim must be divisible by num_heads, got "
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


class SigLIPStyleEncoderLayer(PreNormEncoderBlock):
    """A pre-norm transformer layer: layer norm, attention, residual; layer norm, GELU (tanh) MLP, residual.

    The parts (`attn`, `layer_norm_1`, `mlp_dense_1`, `mlp_dense_2`,
    `layer_norm_2`, in KerasHub's order) are made from the input's width on
    the first call, as KerasHub's; the attention is an `attention_class`.
    A family subclass may declare a constructor taking `layer_norm_epsilon`
    (else `1e-6`).

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
        >>> from tfkit.hub.layers.siglip_style_vit import SigLIPStyleEncoderLayer
        >>> SigLIPStyleEncoderLayer(num_heads=2, intermediate_dim=8)(np.ones((1, 3, 4))).shape
        TensorShape([1, 3, 4])
    """

    _norm_1, _attention, _norm_2 = StoredAs("layer_norm_1"), StoredAs("attn"), StoredAs("layer_norm_2")
    make_parts_in_build = True
    attention_class: type[Layer] = SigLIPStyleAttention
    layer_norm_epsilon = 1e-6

    def __init__(self, num_heads: int, intermediate_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def build(self, input_shape: Any) -> None:
        self.hidden_dim = int(input_shape[-1])
        super().build(input_shape)

    def make_parts(self) -> None:
        policy = self.dtype_policy
        self._attention = self.attention_class(
            self.hidden_dim, self.num_heads, dtype=policy, name="multi_head_attention"
        )
        self._norm_1 = self.layer_norm("layer_norm_1")
        self.mlp_dense_1 = Dense(self.intermediate_dim, dtype=policy, name="mlp_dense_1")
        self.mlp_dense_2 = Dense(self.hidden_dim, dtype=policy, name="mlp_dense_2")
        self._norm_2 = self.layer_norm("layer_norm_2")

    def build_feed_forward(self, input_shape: Any) -> None:
        self.mlp_dense_1.build((None, None, self.hidden_dim))
        self.mlp_dense_2.build((None, None, self.intermediate_dim))

    def attend(self, x: tf.Tensor, attention_mask: Any, training: Any) -> tf.Tensor:
        return self._attention(x, attention_mask=attention_mask)[0]

    def feed_forward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        return self.mlp_dense_2(gelu_approximate(self.mlp_dense_1(x)))

    def call(self, x: tf.Tensor, mask: Any = None) -> tf.Tensor:
        return self.encode(x, None if mask is None else tf.cast(mask, x.dtype))


class SigLIPStyleViT(DeclaredLayer):
    """The ViT: patch embeddings, `num_layers` encoder layers and a final layer norm.

    A family subclasses it with its constructor (the signature only, as
    the example's) and declares `embedding_class` and `layer_class`, and
    `images_in_groups` when its images come `(batch, images, ...)` (they
    are encoded as `batch * images` images). The layers are made in
    KerasHub's order: `encoder_layer_norm` (of `layer_norm_epsilon`, `1e-6`
    unless the constructor takes it), `vision_embeddings`, `resblocks`.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Images `(batch, image_size, image_size, 3)`.
        mask: Optional additive attention mask.

    Returns:
        `(batch, (image_size // patch_size) ** 2, hidden_dim)`.

    Example:
        >>> from tfkit.hub.layers.siglip_style_vit import SigLIPStyleViT
        >>> class ViT(SigLIPStyleViT):
        ...     def __init__(self, patch_size, image_size, hidden_dim, num_layers, num_heads, intermediate_dim, **kwargs):
        ...         super().__init__(**kwargs)
        >>> ViT(4, 8, hidden_dim=4, num_layers=1, num_heads=2, intermediate_dim=8)(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 4, 4])
    """

    embedding_class: type[Layer] = SigLIPStylePatchEmbedding
    layer_class: type[Layer] = SigLIPStyleEncoderLayer
    images_in_groups = False
    layer_norm_epsilon = 1e-6

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        policy = self.dtype_policy
        self.encoder_layer_norm = LayerNormalization(
            epsilon=self.layer_norm_epsilon, dtype=policy, name="encoder_layer_norm"
        )
        self.vision_embeddings = self.embedding_class(
            self.image_size, self.patch_size, self.hidden_dim, dtype=policy, name="encoder_embeddings"
        )
        self.resblocks = [
            self.layer_class(self.num_heads, self.intermediate_dim, dtype=policy, name=f"encoder_block_{i}")
            for i in range(self.num_layers)
        ]

    def build(self, input_shape: Any) -> None:
        self.vision_embeddings.build((None, *tuple(input_shape)[-3:]))
        for block in self.resblocks:
            block.build((None, None, self.hidden_dim))
        self.encoder_layer_norm.build((None, None, self.hidden_dim))

    def call(self, inputs: tf.Tensor, mask: Any = None) -> tf.Tensor:
        if self.images_in_groups:
            shape = tf.shape(inputs)
            inputs = tf.reshape(inputs, tf.concat([[shape[0] * shape[1]], shape[2:]], axis=0))
        x = self.vision_embeddings(inputs)
        for block in self.resblocks:
            x = block(x, mask=mask)
        return self.encoder_layer_norm(x)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        batch = None if self.images_in_groups else input_shape[0]
        return (batch, (self.image_size // self.patch_size) ** 2, self.hidden_dim)
