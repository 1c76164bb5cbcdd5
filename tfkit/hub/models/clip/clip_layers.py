"""The blocks of CLIP's encoders and head, under KerasHub's class and attribute names.

    embed = CLIPVisionEmbedding(hidden_dim=768, patch_size=32, image_size=224)
    tokens = embed(images)                                   # (batch, 1 + 7 * 7, 768): class token first
    hidden = CLIPEncoderLayer(768, 12, 3072, use_causal_mask=False)(tokens)
    vision_logits, text_logits = CLIPHead()(image_embeddings, text_embeddings)

Keras's weight files key a layer of a functional model by its class name and a
sub-layer by its attribute name, so both are KerasHub's (``clip_encoder_layer``,
``layer_norm_1``, ``attention``, ``dense_1`` ...): KerasHub's CLIP presets load
into these layers. KerasHub does not register them (a CLIP encoder's config is
its constructor's arguments), so neither does tfkit.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit.base.data_format import standardize_data_format
from tfkit.engine.layer import Layer
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.vit_style_encoder import KerasAttention, PreNormEncoderBlock, patches_to_sequence  # noqa: F401
from tfkit.layers import Activation, Conv2D, Dense, Embedding


def quick_gelu(x: tf.Tensor) -> tf.Tensor:
    """CLIP's GELU approximation, `x * sigmoid(1.702 * x)`.

    Args:
        x: A float tensor.

    Returns:
        A tensor of the same shape.

    Example:
        >>> from tfkit.hub.models.clip.clip_layers import quick_gelu
        >>> round(float(quick_gelu(tf.constant(1.0))), 4)
        0.8458
    """
    return x * tf.sigmoid(1.702 * x)


class CLIPVisionEmbedding(Layer):
    """CLIP's patch embedding: a bias-free strided convolution, a learned class token and position embeddings.

    The positions looked up are the stored `position_ids` weight (not a
    range), as in KerasHub: its presets store `0, 1, 2, ...` there.

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
        `(batch, 1 + (image_size // patch_size) ** 2, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.clip.clip_layers import CLIPVisionEmbedding
        >>> CLIPVisionEmbedding(hidden_dim=6, patch_size=4, image_size=8)(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 5, 6])
    """

    def __init__(
        self, hidden_dim: int, patch_size: int, image_size: int, data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_dim = int(hidden_dim)
        self.patch_size = int(patch_size)
        self.image_size = int(image_size)
        self.data_format = standardize_data_format(data_format, f"CLIPVisionEmbedding layer '{self.name}'")
        self.num_positions = (self.image_size // self.patch_size) ** 2 + 1
        self.patch_embedding = Conv2D(
            self.hidden_dim,
            kernel_size=self.patch_size,
            strides=self.patch_size,
            data_format=self.data_format,
            use_bias=False,
            dtype=self.dtype_policy,
            name="patch_embedding",
        )
        self.position_embedding = Embedding(
            self.num_positions, self.hidden_dim, dtype=self.dtype_policy, name="position_embedding"
        )

    def build(self, input_shape: Any) -> None:
        self.class_embedding = self.add_weight(
            shape=(self.hidden_dim,), initializer="random_normal", dtype=self.variable_dtype, name="class_embedding"
        )
        self.position_ids = self.add_weight(
            shape=(1, self.num_positions), initializer="zeros", dtype="int64", trainable=False, name="position_ids"
        )
        self.patch_embedding.build(input_shape)
        self.position_embedding.build((1, self.num_positions))

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        patches = patches_to_sequence(self.patch_embedding(inputs), self.data_format)
        batch = tf.shape(patches)[0]
        class_token = tf.tile(tf.reshape(tf.cast(self.class_embedding, patches.dtype), (1, 1, -1)), (batch, 1, 1))
        embeddings = tf.concat([class_token, patches], axis=1)
        return embeddings + self.position_embedding(self.position_ids)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.num_positions, self.hidden_dim)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(hidden_dim=self.hidden_dim, patch_size=self.patch_size, image_size=self.image_size)
        return config


class CLIPEncoderLayer(PreNormEncoderBlock):
    """One pre-layer-norm transformer block of CLIP's encoders (causal in the text encoder).

    `x + attention(layer_norm_1(x))`, then `x + dense_2(activation(dense_1(layer_norm_2(x))))`.

    Args:
        hidden_dim: The size of the hidden states; a multiple of `num_heads`.
        num_heads: The number of attention heads.
        intermediate_dim: The size of the feedforward's first layer.
        intermediate_activation: The feedforward's activation: `"quick_gelu"`
            (the default) or any activation name.
        use_causal_mask: Whether a position attends only to itself and those
            before it. Defaults to `True` (the text encoder's).
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: `(batch, length, hidden_dim)`.
        training: Whether the layer runs in training mode.

    Raises:
        ValueError: If `hidden_dim` is not divisible by `num_heads`.

    Example:
        >>> from tfkit.hub.models.clip.clip_layers import CLIPEncoderLayer
        >>> CLIPEncoderLayer(8, 2, 16)(np.ones((1, 3, 8))).shape
        TensorShape([1, 3, 8])
    """

    _norm_1, _attention = StoredAs("layer_norm_1"), StoredAs("attention")
    _norm_2 = StoredAs("layer_norm_2")

    def __init__(
        self,
        hidden_dim: int,
        num_heads: int,
        intermediate_dim: int,
        intermediate_activation: Any = "quick_gelu",
        use_causal_mask: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if hidden_dim % num_heads != 0:
            raise ValueError(
                f"CLIPEncoderLayer '{self.name}': hidden_dim ({hidden_dim}) must be divisible by num_heads "
                f"({num_heads})"
            )
        self.make_parts()

    def make_parts(self) -> None:
        activation = quick_gelu if self.intermediate_activation == "quick_gelu" else self.intermediate_activation
        self._norm_1 = self.layer_norm("layer_norm_1", epsilon=1e-5)
        self._attention = self.self_attention("attention")
        self._norm_2 = self.layer_norm("layer_norm_2", epsilon=1e-5)
        self.dense_1 = Dense(self.intermediate_dim, dtype=self.dtype_policy, name="dense_1")
        self.activation = Activation(activation, dtype=self.dtype_policy, name="activation")
        self.dense_2 = Dense(self.hidden_dim, dtype=self.dtype_policy, name="dense_2")

    def build_feed_forward(self, input_shape: Any) -> None:
        self.dense_1.build(input_shape)
        self.dense_2.build((*tuple(input_shape)[:-1], self.intermediate_dim))

    def feed_forward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        return self.dense_2(self.activation(self.dense_1(x)))

    def call(self, x: tf.Tensor, training: Any = None) -> tf.Tensor:
        return self.encode(x, None, training)


class CLIPVisionPooler(Layer):
    """Pools CLIP's vision hidden states: the class token's (the first).

    Call arguments:
        vision_embeddings: `(batch, length, hidden_dim)`.

    Example:
        >>> from tfkit.hub.models.clip.clip_layers import CLIPVisionPooler
        >>> CLIPVisionPooler()(np.arange(6.0).reshape(1, 3, 2)).numpy()
        array([[0., 1.]], dtype=float32)
    """

    def call(self, vision_embeddings: tf.Tensor) -> tf.Tensor:
        return vision_embeddings[:, 0, :]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], input_shape[-1])


class CLIPTextPooler(Layer):
    """Pools CLIP's text hidden states at the end token: the position of each sequence's largest token id.

    CLIP's end token `<|endoftext|>` is the last id of its vocabulary.

    Call arguments:
        text_embeddings: `(batch, length, hidden_dim)`.
        token_ids: `(batch, length)`, the ids that gave them.

    Example:
        >>> from tfkit.hub.models.clip.clip_layers import CLIPTextPooler
        >>> CLIPTextPooler()(np.arange(6.0).reshape(1, 3, 2), np.array([[1, 9, 0]])).numpy()
        array([[2., 3.]], dtype=float32)
    """

    def call(self, text_embeddings: tf.Tensor, token_ids: tf.Tensor) -> tf.Tensor:
        return tf.gather(text_embeddings, tf.argmax(token_ids, axis=-1), batch_dims=1)

    def compute_output_shape(self, input_shape: Any, token_ids_shape: Any = None) -> tuple:
        return (input_shape[0], input_shape[-1])


class CLIPHead(Layer):
    """CLIP's similarity head: scaled cosine similarities of every image with every text.

    Both embeddings are L2-normalized; their dot products are multiplied by
    `exp(logit_scale)`, a learned scalar that starts at `log(1 / 0.07)`.

    Call arguments:
        vision_embedding: `(images, dim)`.
        text_embedding: `(texts, dim)`.

    Returns:
        `(vision_logits, text_logits)`: `(images, texts)` and its transpose.

    Example:
        >>> from tfkit.hub.models.clip.clip_layers import CLIPHead
        >>> vision_logits, text_logits = CLIPHead()(np.eye(2), np.array([[1.0, 0.0]]))
        >>> np.round(vision_logits.numpy(), 2)
        array([[14.29],
               [ 0.  ]], dtype=float32)
    """

    def build(self, vision_embedding_shape: Any, text_embedding_shape: Any = None) -> None:
        self.logit_scale = self.add_weight(
            shape=(),
            initializer=lambda *args, **kwargs: math.log(1 / 0.07),
            dtype=self.variable_dtype,
            name="logit_scale",
        )

    def call(self, vision_embedding: tf.Tensor, text_embedding: tf.Tensor) -> tf.Tensor:
        vision_norm = tf.sqrt(tf.reduce_sum(tf.square(vision_embedding), axis=-1, keepdims=True))
        text_norm = tf.sqrt(tf.reduce_sum(tf.square(text_embedding), axis=-1, keepdims=True))
        vision_embedding = vision_embedding / vision_norm
        text_embedding = text_embedding / text_norm
        scale = tf.exp(tf.cast(self.logit_scale, text_embedding.dtype))
        text_logits = tf.matmul(text_embedding, vision_embedding, transpose_b=True) * scale
        return tf.transpose(text_logits), text_logits

    def compute_output_shape(self, vision_embedding_shape: Any, text_embedding_shape: Any) -> tuple:
        return (vision_embedding_shape[0], text_embedding_shape[0]), (
            text_embedding_shape[0],
            vision_embedding_shape[0],
        )
