"""``PaliGemmaVit``: PaliGemma's image tower (a SigLIP-style ViT and a projection to the decoder), KerasHub's layout.

    vit = PaliGemmaVit(image_size=224, patch_size=14, num_heads=16, hidden_dim=1152, num_layers=27,
                       intermediate_dim=4304, num_classes=2048)
    image_tokens = vit(images)        # (batch, 224, 224, 3) -> (batch, 256, 2048)

Its layers (``pali_gemma_vit_layers``) keep KerasHub's class names: Keras's
weight files key a layer of a functional model, and of a list, by its class
name (``pali_gemma_vit_encoder``, ``pali_gemma_vit_encoder_block``). KerasHub
does not register these layers, so neither does tfkit.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations
from tfkit.engine.functional_graph import Input
from tfkit.hub.layers.siglip_style_vit import SigLIPStyleViT
from tfkit.hub.models.pali_gemma.pali_gemma_vit_layers import PaliGemmaVitEmbeddings, PaliGemmaVitEncoderBlock
from tfkit.layers import Dense
from tfkit.models import Model


class PaliGemmaVitEncoder(SigLIPStyleViT):
    """PaliGemma's ViT: `SigLIPStyleViT` (patch embeddings, encoder layers, a final layer norm), KerasHub's names.

    Args:
        patch_size: The side of the square patches.
        image_size: The side of the square images.
        hidden_dim: The width of the transformer.
        num_layers: The number of encoder layers.
        num_heads: The number of attention heads.
        intermediate_dim: The width of each MLP's hidden layer.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_vit import PaliGemmaVitEncoder
        >>> encoder = PaliGemmaVitEncoder(patch_size=4, image_size=8, hidden_dim=4, num_layers=1, num_heads=2,
        ...     intermediate_dim=8)
        >>> encoder(np.ones((2, 8, 8, 3))).shape
        TensorShape([2, 4, 4])
    """

    embedding_class, layer_class = PaliGemmaVitEmbeddings, PaliGemmaVitEncoderBlock

    def __init__(
        self,
        patch_size: int,
        image_size: int,
        hidden_dim: int,
        num_layers: int,
        num_heads: int,
        intermediate_dim: int,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)


def _pooled(x: Any, pooling: Any) -> Any:
    if pooling is None:
        return x
    if pooling == "gap":
        return tf.reduce_mean(x, axis=1)
    if pooling == "zero":
        return x[:, 0]
    if pooling == "map":
        raise ValueError(
            "PaliGemmaVit: pooling='map' (KerasHub's MultiHeadAttentionPooling) is not available in tfkit.hub; "
            "PaliGemma's presets use pooling=None"
        )
    raise ValueError(f"PaliGemmaVit: pooling must be one of 'map', 'gap', 'zero' or None, got {pooling!r}")


class PaliGemmaVit(Model):
    """Vision Transformer (ViT) model for PaliGemma.

    Images are cut into square patches, embedded with learned positions and
    encoded by `num_layers` pre-norm transformer layers; a final dense layer
    (`image_classifier`) projects each patch to `num_classes` features, the
    decoder's width in `PaliGemmaBackbone`, where the patches become its
    image tokens. KerasHub does not export the class; its backbone holds one.

    Args:
        image_size: The side of the square images.
        patch_size: The side of the square patches.
        num_heads: The number of attention heads.
        hidden_dim: The width of the transformer.
        num_layers: The number of transformer layers.
        intermediate_dim: The width of each MLP's hidden layer.
        num_classes: The number of output features a patch (or a pooled image).
        pooling: `None` (the default: one output a patch), `"gap"` (the mean
            of the patches) or `"zero"` (the first patch). KerasHub's `"map"`
            is refused.
        classifier_activation: The output layer's activation. Defaults to
            `None`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: Model keyword arguments, such as `name`.

    Raises:
        ValueError: If `pooling` is not one of those.

    Example:
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_vit import PaliGemmaVit
        >>> vit = PaliGemmaVit(image_size=8, patch_size=4, num_heads=2, hidden_dim=4, num_layers=1,
        ...     intermediate_dim=8, num_classes=6)
        >>> vit.image_sequence_length, vit(np.ones((2, 8, 8, 3))).shape
        (4, TensorShape([2, 4, 6]))
    """

    def __init__(
        self,
        image_size: int,
        patch_size: int,
        num_heads: int,
        hidden_dim: int,
        num_layers: int,
        intermediate_dim: int,
        num_classes: int,
        pooling: Any = None,
        classifier_activation: Any = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        images = Input(shape=(image_size, image_size, 3), name="images")
        x = PaliGemmaVitEncoder(
            hidden_dim=hidden_dim,
            num_layers=num_layers,
            num_heads=num_heads,
            intermediate_dim=intermediate_dim,
            patch_size=patch_size,
            image_size=image_size,
            dtype=dtype,
            name="image_encoder",
        )(images)
        outputs = Dense(num_classes, activation=classifier_activation, dtype=dtype, name="image_classifier")(
            _pooled(x, pooling)
        )
        super().__init__(inputs=images, outputs=outputs, **kwargs)
        self.image_size, self.patch_size, self.num_heads = image_size, patch_size, num_heads
        self.hidden_dim, self.num_layers, self.intermediate_dim = hidden_dim, num_layers, intermediate_dim
        self.num_classes, self.pooling = num_classes, pooling
        self.classifier_activation = activations.get(classifier_activation)
        self.image_sequence_length = int((image_size / patch_size) ** 2)

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "image_size": self.image_size,
            "patch_size": self.patch_size,
            "num_heads": self.num_heads,
            "hidden_dim": self.hidden_dim,
            "num_layers": self.num_layers,
            "intermediate_dim": self.intermediate_dim,
            "num_classes": self.num_classes,
            "pooling": self.pooling,
            "classifier_activation": activations.serialize(self.classifier_activation),
        }
