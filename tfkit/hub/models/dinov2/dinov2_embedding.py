"""DINOv2's patch embedding and embeddings (class and register tokens, interpolated positions), KerasHub's names.

    embed = DINOV2Embedding(hidden_dim=384, patch_size=14, image_shape=(224, 224), position_embedding_shape=(518, 518))
    tokens = embed(images)                       # (batch, 1 + registers + 16 * 16, 384)

The position embeddings are learned for ``position_embedding_shape`` images (a frozen weight) and resized
bicubically to ``image_shape``'s patch grid into ``interpolated_position_embeddings`` (the weight used), when
built and when a checkpoint is converted. KerasHub does not register these classes, so neither does tfkit.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base.data_format import standardize_data_format
from tfkit.hub.layers.declared_config import DeclaredLayer
from tfkit.hub.layers.vit_style_encoder import patches_to_sequence
from tfkit.layers import Conv2D, Dropout


class DINOV2PatchEmbedding(DeclaredLayer):
    """Embeds `patch_size` patches with a strided convolution (`"projection"`) and flattens them row by row.

    Args:
        hidden_dim: The size of each patch embedding.
        patch_size: The side of each (square) patch.
        data_format: `"channels_last"`, `"channels_first"` or `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_embedding import DINOV2PatchEmbedding
        >>> DINOV2PatchEmbedding(hidden_dim=6, patch_size=4)(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 4, 6])
    """

    def __init__(self, hidden_dim: int, patch_size: int, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format, f"DINOV2PatchEmbedding layer '{self.name}'")
        self.projection = Conv2D(
            self.hidden_dim,
            kernel_size=self.patch_size,
            strides=self.patch_size,
            data_format=self.data_format,
            kernel_initializer=initializers.TruncatedNormal(stddev=0.02),
            dtype=self.dtype_policy,
            name="projection",
        )

    def build(self, input_shape: Any) -> None:
        self.projection.build(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return patches_to_sequence(self.projection(inputs), self.data_format)


def interpolate_position_embeddings(
    position_embeddings: Any, patch_size: int, source_shape: Any, target_shape: Any, antialias: bool = False
) -> tf.Tensor:
    """`position_embeddings` `(1, 1 + n * n, dim)` for `source_shape` images, resized bicubically (in float32,
    as KerasHub) to the patch grid of `target_shape` images; the class position is kept."""
    position_embeddings = tf.convert_to_tensor(position_embeddings)
    if tuple(int(s) for s in source_shape[:2]) == tuple(int(s) for s in target_shape[:2]):
        return tf.identity(position_embeddings)
    dim = int(position_embeddings.shape[-1])
    side = int((int(position_embeddings.shape[1]) - 1) ** 0.5)
    grid = tf.reshape(position_embeddings[:, 1:], (1, side, side, dim))
    size = (int(target_shape[0]) // int(patch_size), int(target_shape[1]) // int(patch_size))
    resized = tf.image.resize(tf.cast(grid, "float32"), size, method="bicubic", antialias=antialias)
    resized = tf.reshape(tf.cast(resized, position_embeddings.dtype), (1, -1, dim))
    return tf.concat([position_embeddings[:, :1], resized], axis=1)


class DINOV2Embedding(DeclaredLayer):
    """DINOv2's embeddings: patches, a class token first, position embeddings added, register tokens after it.

    Args:
        hidden_dim: The size of the embeddings.
        patch_size: The side of each (square) patch.
        image_shape: `(height, width)` of the input images.
        num_register_tokens: The number of register tokens put after the
            class token. Defaults to `0`.
        use_mask_token: Whether to hold a mask token (KerasHub's weight for
            masked image modeling). Defaults to `True`.
        dropout_rate: The dropout rate of the embeddings. Defaults to `0.0`.
        position_embedding_shape: `(height, width)` of the images the position
            embeddings are learned for. Defaults to `(518, 518)`.
        antialias_in_interpolation: Whether the bicubic resizing of the
            position embeddings antialiases. Defaults to `False`.
        data_format: `"channels_last"`, `"channels_first"` or `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_embedding import DINOV2Embedding
        >>> embed = DINOV2Embedding(hidden_dim=6, patch_size=4, image_shape=(8, 8), position_embedding_shape=(16, 16))
        >>> embed(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 5, 6])
    """

    def __init__(
        self,
        hidden_dim: int,
        patch_size: int,
        image_shape: Any,
        num_register_tokens: int = 0,
        use_mask_token: bool = True,
        dropout_rate: float = 0.0,
        position_embedding_shape: Any = (518, 518),
        antialias_in_interpolation: bool = False,
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.image_shape = (int(image_shape[0]), int(image_shape[1]))
        self.position_embedding_shape = (int(position_embedding_shape[0]), int(position_embedding_shape[1]))
        self.data_format = standardize_data_format(data_format, f"DINOV2Embedding layer '{self.name}'")
        self.interpolated_num_patches = (self.image_shape[0] // self.patch_size) * (
            self.image_shape[1] // self.patch_size
        )
        self.num_patches = (self.position_embedding_shape[0] // self.patch_size) * (
            self.position_embedding_shape[1] // self.patch_size
        )
        self.patch_embeddings = DINOV2PatchEmbedding(
            hidden_dim, patch_size, data_format=self.data_format, dtype=self.dtype_policy, name="patch_embeddings"
        )
        self.dropout = Dropout(self.dropout_rate, dtype=self.dtype_policy, name="dropout")

    def build(self, input_shape: Any) -> None:
        normal = initializers.TruncatedNormal(stddev=0.02)
        self.cls_token = self.add_weight(shape=(1, 1, self.hidden_dim), initializer=normal, name="cls_token")
        if self.use_mask_token:
            self.mask_token = self.add_weight(shape=(1, self.hidden_dim), initializer="zeros", name="mask_token")
        if self.num_register_tokens > 0:
            self.register_tokens = self.add_weight(
                shape=(1, self.num_register_tokens, self.hidden_dim), initializer="zeros", name="register_tokens"
            )
        self.patch_embeddings.build(input_shape)
        # made first: Keras lists a layer's trainable weights before its frozen ones
        self.interpolated_position_embeddings = self.add_weight(
            shape=(1, self.interpolated_num_patches + 1, self.hidden_dim),
            initializer="zeros",
            name="interpolated_position_embeddings",
        )
        self.position_embeddings = self.add_weight(
            shape=(1, self.num_patches + 1, self.hidden_dim),
            initializer=normal,
            trainable=False,
            name="position_embeddings",
        )
        self.refresh_interpolated_position_embeddings()

    def refresh_interpolated_position_embeddings(self) -> None:
        """Sets `interpolated_position_embeddings` from `position_embeddings` (after they are loaded)."""
        self.interpolated_position_embeddings.assign(
            interpolate_position_embeddings(
                self.position_embeddings,
                self.patch_size,
                self.position_embedding_shape,
                self.image_shape,
                self.antialias_in_interpolation,
            )
        )

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        embeddings = self.patch_embeddings(inputs)
        batch = tf.shape(embeddings)[0]
        cls_tokens = tf.tile(tf.cast(self.cls_token, embeddings.dtype), [batch, 1, 1])
        embeddings = tf.concat([cls_tokens, embeddings], axis=1)
        embeddings = embeddings + tf.cast(self.interpolated_position_embeddings, embeddings.dtype)
        if self.num_register_tokens > 0:
            registers = tf.tile(tf.cast(self.register_tokens, embeddings.dtype), [batch, 1, 1])
            embeddings = tf.concat([embeddings[:, :1], registers, embeddings[:, 1:]], axis=1)
        return self.dropout(embeddings, training=training)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], 1 + self.num_register_tokens + self.interpolated_num_patches, self.hidden_dim)
