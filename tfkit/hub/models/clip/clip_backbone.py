"""``CLIPBackbone``: CLIP's two towers, their projections and the similarity head, KerasHub's layout.

backbone = CLIPBackbone(vision_encoder, text_encoder, projection_dim=512)
logits = backbone({"images": images, "token_ids": token_ids})
logits["vision_logits"]                                  # (images, texts): scaled cosine similarities
"""

from __future__ import annotations

from typing import Any

from tfkit import dtype_policies
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.clip.clip_layers import CLIPHead, CLIPTextPooler, CLIPVisionPooler
from tfkit.layers import Dense
from tfkit.saving import deserialize, register_keras_serializable, serialize


def with_encoders(config: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """``config`` with its serialized encoders (``names``) deserialized, the backbone's dtype given to those
    without their own (KerasHub's rule for two-tower backbones)."""
    config = dict(config)
    dtype = config.get("dtype")
    for name in names:
        entry = config[name]
        if isinstance(entry, dict):
            if dtype is not None and "dtype" not in entry.get("config", {}):
                entry = {**entry, "config": {**entry["config"], "dtype": dtype}}
            config[name] = deserialize(entry)
    if isinstance(dtype, dict):
        config["dtype"] = dtype_policies.get(dtype)
    return config


@register_keras_serializable(package="keras_hub")
class CLIPBackbone(Backbone):
    """CLIP core network with hyperparameters.

    Contrastive Language-Image Pretraining (Radford et al., 2021): a vision
    encoder and a text encoder, each pooled (the class token; the end token,
    the largest id) and projected to `projection_dim` without bias; the head
    L2-normalizes both and multiplies their dot products by a learned
    temperature. The outputs are `"vision_logits"` `(images, texts)` and
    `"text_logits"`, its transpose: a softmax over a row of
    `vision_logits` classifies an image among the texts (zero-shot
    classification). Layer and weight names are KerasHub's.

    Args:
        vision_encoder: A `CLIPVisionEncoder`.
        text_encoder: A `CLIPTextEncoder`.
        projection_dim: The size of the shared embedding space.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vision_encoder = keras_hub.models.CLIPVisionEncoder(patch_size=4, hidden_dim=8, num_layers=1,
        ...     num_heads=2, intermediate_dim=16, image_shape=(8, 8, 3))
        >>> text_encoder = keras_hub.models.CLIPTextEncoder(vocabulary_size=10, embedding_dim=8, hidden_dim=8,
        ...     num_layers=1, num_heads=2, intermediate_dim=16, max_sequence_length=4)
        >>> backbone = keras_hub.models.CLIPBackbone(vision_encoder, text_encoder, projection_dim=4)
        >>> outputs = backbone({"images": np.ones((2, 8, 8, 3)), "token_ids": np.array([[8, 1, 9, 0]] * 3)})
        >>> outputs["vision_logits"].shape, outputs["text_logits"].shape
        (TensorShape([2, 3]), TensorShape([3, 2]))
        >>> probabilities = tf.nn.softmax(outputs["vision_logits"], axis=-1)  # each image over the 3 prompts
        >>> probabilities.shape
        TensorShape([2, 3])
    """

    def __init__(
        self, vision_encoder: Any, text_encoder: Any, projection_dim: int, dtype: Any = None, **kwargs: Any
    ) -> None:
        self.vision_encoder = vision_encoder
        self.text_encoder = text_encoder
        self.vision_pooler = CLIPVisionPooler(dtype=dtype, name="vision_pooler")
        self.text_pooler = CLIPTextPooler(dtype=dtype, name="text_pooler")
        self.vision_projection = Dense(projection_dim, use_bias=False, dtype=dtype, name="vision_projection")
        self.text_projection = Dense(projection_dim, use_bias=False, dtype=dtype, name="text_projection")
        self.clip_head = CLIPHead(dtype=dtype, name="clip_head")
        images = Input(shape=tuple(vision_encoder.image_shape), name="images")
        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        vision_logits, text_logits = self.clip_head(
            self.get_vision_embeddings(images), self.get_text_embeddings(token_ids)
        )
        super().__init__(
            inputs={"images": images, "token_ids": token_ids},
            outputs={"vision_logits": vision_logits, "text_logits": text_logits},
            dtype=dtype,
            **kwargs,
        )

    def get_vision_embeddings(self, images: Any) -> Any:
        """The images' embeddings: the vision encoder's class token, projected.

        Args:
            images: Images of the vision encoder's `image_shape`, batched.

        Returns:
            `(batch, projection_dim)`.
        """
        return self.vision_projection(self.vision_pooler(self.vision_encoder({"images": images})))

    def get_text_embeddings(self, token_ids: Any) -> Any:
        """The texts' embeddings: the text encoder's end token (the largest id), projected.

        Args:
            token_ids: `(batch, length)` token ids.

        Returns:
            `(batch, projection_dim)`.
        """
        hidden = self.text_encoder({"token_ids": token_ids})
        return self.text_projection(self.text_pooler(hidden, token_ids))

    def get_config(self) -> dict[str, Any]:
        """The config: KerasHub's, the encoders serialized in it.

        Returns:
            A dict of plain values.
        """
        config = super().get_config()
        config["vision_encoder"] = serialize(self.vision_encoder)
        config["text_encoder"] = serialize(self.text_encoder)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "CLIPBackbone":
        """Builds the backbone and its encoders from `get_config`'s output.

        Args:
            config: A dict, as `get_config` returns it.

        Returns:
            A new backbone.
        """
        return cls(**with_encoders(config, ("vision_encoder", "text_encoder")))
