"""The blocks of SigLIP's encoders and head, under KerasHub's class and attribute names.

    embed = SigLIPVisionEmbedding(hidden_dim=768, patch_size=16, image_size=224)
    tokens = embed(images)                                   # (batch, 14 * 14, 768): no class token
    hidden = SigLIPEncoderLayer(768, 12, 3072)(tokens)
    pooled = SigLIPMultiHeadAttentionPooling(768, 3072, 12, "gelu_approximate")(hidden)   # (batch, 768)

Keras's weight files key a layer of a functional model by its class name and a
sub-layer by its attribute name, so both are KerasHub's (``sig_lip_encoder_layer``,
``self_attn``, ``layer_norm1``, ``mlp``, ``fc1`` ...). KerasHub does not register
these layers, so neither does tfkit.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base.data_format import standardize_data_format
from tfkit.engine.layer import Layer
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.declared_config import DeclaredLayer
from tfkit.hub.layers.gelu_approximate import gelu_approximate
from tfkit.hub.layers.reversible_embedding import ReversibleEmbedding
from tfkit.hub.layers.vit_style_encoder import KerasAttention, PreNormEncoderBlock, patches_to_sequence
from tfkit.layers import Conv2D, Dense, Embedding, LayerNormalization


def _position_ids(layer: Layer, length: int) -> Any:
    """The stored positions ``0 .. length - 1`` (a non-trainable int64 weight, as KerasHub keeps them)."""
    return layer.add_weight(
        shape=(1, length),
        initializer=lambda *args, **kwargs: tf.range(length, dtype=tf.int64)[None],
        dtype="int64",
        trainable=False,
        name="position_ids",
    )


class SigLIPVisionEmbedding(Layer):
    """SigLIP's patch embedding: a strided convolution (with bias) and learned position embeddings, no class token.

    Args:
        hidden_dim: The size of each embedding.
        patch_size: The side of the square patches.
        image_size: The side of the square input images.
        data_format: `"channels_last"` or `"channels_first"`; `None` (the
            default) means `tfkit.config.image_data_format()`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Images `(batch, image_size, image_size, channels)`.

    Output shape:
        `(batch, (image_size // patch_size) ** 2, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.siglip.siglip_layers import SigLIPVisionEmbedding
        >>> SigLIPVisionEmbedding(hidden_dim=6, patch_size=4, image_size=8)(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 4, 6])
    """

    def __init__(
        self, hidden_dim: int, patch_size: int, image_size: int, data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_dim = int(hidden_dim)
        self.patch_size = int(patch_size)
        self.image_size = int(image_size)
        self.data_format = standardize_data_format(data_format, f"SigLIPVisionEmbedding layer '{self.name}'")
        self.num_positions = (self.image_size // self.patch_size) ** 2
        self.patch_embedding = Conv2D(
            self.hidden_dim,
            kernel_size=self.patch_size,
            strides=self.patch_size,
            kernel_initializer=initializers.LecunNormal(),
            data_format=self.data_format,
            dtype=self.dtype_policy,
            name="patch_embedding",
        )
        self.position_embedding = Embedding(
            self.num_positions,
            self.hidden_dim,
            embeddings_initializer=initializers.RandomNormal(stddev=1.0 / math.sqrt(self.hidden_dim)),
            dtype=self.dtype_policy,
            name="position_embedding",
        )

    def build(self, input_shape: Any) -> None:
        self.position_ids = _position_ids(self, self.num_positions)
        self.patch_embedding.build(input_shape)
        self.position_embedding.build((1, self.num_positions))

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        patches = patches_to_sequence(self.patch_embedding(inputs), self.data_format)
        return patches + self.position_embedding(self.position_ids)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.num_positions, self.hidden_dim)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(hidden_dim=self.hidden_dim, patch_size=self.patch_size, image_size=self.image_size)
        return config


class SigLIPTextEmbedding(DeclaredLayer):
    """Token and learned position embeddings, summed (each a `ReversibleEmbedding`, as in KerasHub).

    Args:
        vocabulary_size: The size of the vocabulary.
        sequence_length: The length of every input (the position table's).
        embedding_dim: The size of the embeddings.
        tie_weights: Whether the embeddings' reverse projections reuse them.
            Defaults to `True`.
        embeddings_initializer: The embeddings' initializer. Defaults to
            `"normal"`.
        mask_zero: Whether id 0 is padding to mask. Defaults to `False`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Token ids `(batch, sequence_length)`.

    Example:
        >>> from tfkit.hub.models.siglip.siglip_layers import SigLIPTextEmbedding
        >>> SigLIPTextEmbedding(vocabulary_size=10, sequence_length=3, embedding_dim=4)(np.ones((2, 3))).shape
        TensorShape([2, 3, 4])
    """

    def __init__(
        self,
        vocabulary_size: int,
        sequence_length: int,
        embedding_dim: int,
        tie_weights: bool = True,
        embeddings_initializer: Any = "normal",
        mask_zero: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        for attribute, rows in (("token_embedding", vocabulary_size), ("position_embedding", sequence_length)):
            embedding = ReversibleEmbedding(
                rows,
                embedding_dim,
                tie_weights=tie_weights,
                embeddings_initializer=initializers.get(embeddings_initializer),
                mask_zero=mask_zero,
                dtype=self.dtype_policy,
                name=attribute,
            )
            setattr(self, attribute, embedding)

    def build(self, input_shape: Any) -> None:
        self.token_embedding.build(tuple(input_shape))
        self.position_embedding.build((1, self.sequence_length))
        self.position_ids = _position_ids(self, self.sequence_length)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return self.token_embedding(inputs) + self.position_embedding(self.position_ids)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*tuple(input_shape), self.embedding_dim)


class SigLIPMLP(DeclaredLayer):
    """SigLIP's feedforward: `fc2(fc1(x))`, the activation on `fc1`.

    Args:
        hidden_dim: The size of the output.
        intermediate_dim: The size of `fc1`.
        activation: `fc1`'s activation: `"gelu_approximate"` or any
            activation name or function.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(..., hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.siglip.siglip_layers import SigLIPMLP
        >>> SigLIPMLP(8, 16, "gelu_approximate")(np.ones((1, 3, 8))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(self, hidden_dim: int, intermediate_dim: int, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        function = gelu_approximate if activation == "gelu_approximate" else activation
        bias = initializers.RandomNormal(stddev=1e-6)
        self.fc1 = Dense(
            intermediate_dim, activation=function, bias_initializer=bias, dtype=self.dtype_policy, name="fc1"
        )
        bias = initializers.RandomNormal(stddev=1e-6)
        self.fc2 = Dense(hidden_dim, bias_initializer=bias, dtype=self.dtype_policy, name="fc2")

    def build(self, input_shape: Any) -> None:
        self.fc1.build(input_shape)
        self.fc2.build((*tuple(input_shape)[:-1], self.intermediate_dim))

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return self.fc2(self.fc1(inputs))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*tuple(input_shape)[:-1], self.hidden_dim)


class SigLIPEncoderLayer(PreNormEncoderBlock):
    """One pre-layer-norm transformer block of SigLIP's encoders (bidirectional by default).

    `x + self_attn(layer_norm1(x))`, then `x + mlp(layer_norm2(x))`.

    Args:
        hidden_dim: The size of the hidden states; a multiple of `num_heads`.
        num_heads: The number of attention heads.
        intermediate_dim: The size of the feedforward's first layer.
        intermediate_activation: The feedforward's activation. Defaults to
            `"gelu_approximate"`.
        use_causal_mask: Whether a position attends only to those before it.
            Defaults to `False`.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(batch, length, hidden_dim)`.
        training: Whether the layer runs in training mode.

    Raises:
        ValueError: If `hidden_dim` is not divisible by `num_heads`.

    Example:
        >>> from tfkit.hub.models.siglip.siglip_layers import SigLIPEncoderLayer
        >>> SigLIPEncoderLayer(8, 2, 16)(np.ones((1, 3, 8))).shape
        TensorShape([1, 3, 8])
    """

    _norm_1, _attention = StoredAs("layer_norm1"), StoredAs("self_attn")
    _norm_2, _feed_forward = StoredAs("layer_norm2"), StoredAs("mlp")

    def __init__(
        self,
        hidden_dim: int,
        num_heads: int,
        intermediate_dim: int,
        intermediate_activation: Any = "gelu_approximate",
        use_causal_mask: bool = False,
        layer_norm_epsilon: float = 1e-6,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if hidden_dim % num_heads != 0:
            raise ValueError(
                f"SigLIPEncoderLayer '{self.name}': hidden_dim ({hidden_dim}) must be divisible by num_heads "
                f"({num_heads})"
            )
        self.make_parts()

    def make_parts(self) -> None:
        policy = self.dtype_policy
        self._attention = self.self_attention("self_attn")
        self._norm_1 = self.layer_norm("layer_norm1")
        self._feed_forward = SigLIPMLP(
            self.hidden_dim, self.intermediate_dim, self.intermediate_activation, dtype=policy, name="mlp"
        )
        self._norm_2 = self.layer_norm("layer_norm2")


class SigLIPMultiHeadAttentionPooling(DeclaredLayer):
    """SigLIP's attention pooling: a learned probe attends over the tokens, then a residual MLP.

    The probe weight has no name, as in KerasHub (Keras calls it
    `variable`, with a counter).

    Args:
        hidden_dim: The size of the hidden states.
        intermediate_dim: The size of the MLP's first layer.
        num_heads: The number of attention heads.
        activation: The MLP's activation.
        layer_norm_epsilon: The layer norm's epsilon. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: `(batch, length, hidden_dim)`.
        training: Whether the layer runs in training mode.

    Output shape:
        `(batch, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.siglip.siglip_layers import SigLIPMultiHeadAttentionPooling
        >>> SigLIPMultiHeadAttentionPooling(8, 16, 2, "gelu_approximate")(np.ones((2, 3, 8))).shape
        TensorShape([2, 8])
    """

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        num_heads: int,
        activation: Any,
        layer_norm_epsilon: float = 1e-6,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        policy = self.dtype_policy
        self.attention = KerasAttention(num_heads, hidden_dim // num_heads, dtype=policy, name="attention")
        self.layer_norm = LayerNormalization(epsilon=layer_norm_epsilon, dtype=policy, name="layernorm")
        self.mlp = SigLIPMLP(hidden_dim, intermediate_dim, activation, dtype=policy, name="mlp")

    def build(self, input_shape: Any) -> None:
        self.probe = self.add_weight(
            shape=(1, 1, self.hidden_dim), initializer=initializers.GlorotUniform(), dtype=self.variable_dtype
        )
        probe_shape = (input_shape[0], 1, self.hidden_dim)
        self.attention.build(probe_shape, input_shape)
        self.layer_norm.build(probe_shape)
        self.mlp.build(probe_shape)

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        probes = tf.repeat(tf.cast(self.probe, inputs.dtype), tf.shape(inputs)[0], axis=0)
        hidden = self.attention(probes, inputs, inputs, training=training)
        hidden = hidden + self.mlp(self.layer_norm(hidden))
        return hidden[:, 0]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.hidden_dim)


class SigLIPHead(Layer):
    """SigLIP's similarity head: `exp(logit_scale)` times the cosine similarities, plus `logit_bias`.

    Both learned scalars start at 0.

    Call arguments:
        vision_embedding: `(images, dim)`.
        text_embedding: `(texts, dim)`.

    Returns:
        `(vision_logits, text_logits)`: `(images, texts)` and its transpose.

    Example:
        >>> from tfkit.hub.models.siglip.siglip_layers import SigLIPHead
        >>> vision_logits, text_logits = SigLIPHead()(np.eye(2), np.array([[1.0, 0.0]]))
        >>> vision_logits.numpy()
        array([[1.],
               [0.]], dtype=float32)
    """

    def build(self, vision_embedding_shape: Any, text_embedding_shape: Any = None) -> None:
        self.logit_scale = self.add_weight(shape=(), initializer="zeros", dtype=self.variable_dtype, name="logit_scale")
        self.logit_bias = self.add_weight(shape=(), initializer="zeros", dtype=self.variable_dtype, name="logit_bias")

    def call(self, vision_embedding: tf.Tensor, text_embedding: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        vision_embedding = vision_embedding / tf.sqrt(tf.reduce_sum(tf.square(vision_embedding), -1, keepdims=True))
        text_embedding = text_embedding / tf.sqrt(tf.reduce_sum(tf.square(text_embedding), -1, keepdims=True))
        similarities = tf.matmul(text_embedding, vision_embedding, transpose_b=True)
        scale = tf.exp(tf.cast(self.logit_scale, similarities.dtype))
        text_logits = similarities * scale + tf.cast(self.logit_bias, similarities.dtype)
        return tf.transpose(text_logits), text_logits

    def compute_output_shape(self, vision_embedding_shape: Any, text_embedding_shape: Any) -> tuple:
        return (vision_embedding_shape[0], text_embedding_shape[0]), (
            text_embedding_shape[0],
            vision_embedding_shape[0],
        )
