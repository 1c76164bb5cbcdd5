"""The blocks of Gemma 3's vision encoder (a SigLIP-style ViT), under KerasHub's class and attribute names.

    block = Gemma3VisionEncoderBlock(patch_size=14, image_size=896, hidden_dim=1152, num_layers=27,
                                     num_heads=16, intermediate_dim=4304)
    patches = block(images)                                   # (batch * images, 64 * 64, 1152)
    soft_tokens = Gemma3VisionOutput(2560)(Gemma3VisionAveragePooling(896, 14, 4)(patches))

Keras's weight files key a layer of a functional model by its class name and a
sub-layer by its attribute name, so both are KerasHub's
(``gemma3_vision_encoder_block``, ``vision_embeddings``, ``resblocks``, ``attn``,
``gemma3_vision_output``, ``vision_soft_embedding_norm`` ...). KerasHub does not
register these layers, so neither does tfkit. The ViT's computation is PaliGemma's too: it is
``tfkit.hub.layers.siglip_style_vit``'s, under these names.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.siglip_style_vit import (
    SigLIPStyleAttention,
    SigLIPStyleEncoderLayer,
    SigLIPStylePatchEmbedding,
    SigLIPStyleViT,
)
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
from tfkit.layers import AveragePooling2D, Dense


class Gemma3VisionEmbedding(SigLIPStylePatchEmbedding):
    """Gemma 3's patch embedding: `SigLIPStylePatchEmbedding` (its arguments) under KerasHub's class name.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionEmbedding
        >>> Gemma3VisionEmbedding(image_size=8, patch_size=4, hidden_dim=6)(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 4, 6])
    """


class Gemma3VisionAttention(SigLIPStyleAttention):
    """Gemma 3's vision attention: `SigLIPStyleAttention` (its arguments) under KerasHub's class name.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionAttention
        >>> Gemma3VisionAttention(hidden_dim=4, num_heads=2)(np.ones((1, 3, 4)))[1].shape
        TensorShape([1, 2, 3, 3])
    """


class Gemma3VisionEncoderLayer(SigLIPStyleEncoderLayer):
    """Gemma 3's vision encoder layer: `SigLIPStyleEncoderLayer`, with KerasHub's class name and arguments.

    Args:
        num_heads: The number of attention heads.
        intermediate_dim: The width of the MLP's hidden layer.
        layer_norm_epsilon: The layer norms' epsilon. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.gemma3.gemma3_vision_layers import Gemma3VisionEncoderLayer
        >>> Gemma3VisionEncoderLayer(num_heads=2, intermediate_dim=8)(np.ones((1, 3, 4))).shape
        TensorShape([1, 3, 4])
    """

    attention_class = Gemma3VisionAttention

    def __init__(self, num_heads: int, intermediate_dim: int, layer_norm_epsilon: float = 1e-6, **kwargs: Any):
        super().__init__(num_heads, intermediate_dim, **kwargs)


class Gemma3VisionEncoderBlock(SigLIPStyleViT):
    """Gemma 3's ViT: a `SigLIPStyleViT` of every image of each group, under KerasHub's class name and arguments.

    It takes PaliGemma's ViT's arguments (`patch_size`, `image_size`,
    `hidden_dim`, `num_layers`, `num_heads`, `intermediate_dim`) and
    `layer_norm_epsilon`, the final layer norm's (the encoder layers keep
    `1e-6`, as KerasHub's), `1e-6` by default.

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

    embedding_class, layer_class, images_in_groups = Gemma3VisionEmbedding, Gemma3VisionEncoderLayer, True

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
