"""``SigLIPBackbone``: SigLIP's two towers and its sigmoid similarity head, KerasHub's layout.

backbone = SigLIPBackbone(vision_encoder, text_encoder)
logits = backbone({"images": images, "token_ids": token_ids})
backbone.compile()                                       # AdamW and SigLIPLoss, as KerasHub
backbone.fit(dataset_of_matching_pairs)                  # no labels: pair i of a batch matches
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import optimizers
from tfkit.engine.functional_graph import Input
from tfkit.hub.models.backbone import Backbone
from tfkit.hub.models.clip.clip_backbone import with_encoders
from tfkit.hub.models.siglip.siglip_layers import SigLIPHead
from tfkit.hub.models.siglip.siglip_loss import SigLIPLoss
from tfkit.metrics import Accuracy
from tfkit.saving import register_keras_serializable, serialize


@register_keras_serializable(package="keras_hub")
class SigLIPBackbone(Backbone):
    """SigLIP core network with hyperparameters.

    Sigmoid Loss for Language-Image Pre-training (Zhai et al., 2023): a
    vision encoder and a text encoder, each giving one embedding, and a head
    that L2-normalizes both and gives `exp(logit_scale)` times their dot
    products plus `logit_bias`. The outputs are `"vision_logits"`
    `(images, texts)` and `"text_logits"`, its transpose; a sigmoid of a
    logit is the probability that the pair matches. It trains without
    labels: `compute_loss` scores the `text_logits` of a batch of matching
    pairs against `2 * eye(batch) - 1` with `SigLIPLoss`. Layer and weight
    names are KerasHub's.

    Args:
        vision_encoder: A `SigLIPVisionEncoder`.
        text_encoder: A `SigLIPTextEncoder` whose `projection_dim` is the
            vision encoder's `hidden_dim`.
        dtype: The dtype policy of the layers. Defaults to `None` (global).
        **kwargs: `Backbone` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> vision_encoder = keras_hub.models.SigLIPVisionEncoder(patch_size=4, hidden_dim=8, num_layers=1,
        ...     num_heads=2, intermediate_dim=16, image_shape=(8, 8, 3))
        >>> text_encoder = keras_hub.models.SigLIPTextEncoder(vocabulary_size=10, embedding_dim=8, hidden_dim=8,
        ...     num_layers=1, num_heads=2, intermediate_dim=16, max_sequence_length=4)
        >>> backbone = keras_hub.models.SigLIPBackbone(vision_encoder, text_encoder)
        >>> outputs = backbone({"images": np.ones((2, 8, 8, 3)), "token_ids": np.array([[3, 4, 1, 1]] * 3)})
        >>> outputs["vision_logits"].shape, outputs["text_logits"].shape
        (TensorShape([2, 3]), TensorShape([3, 2]))
        >>> tf.sigmoid(outputs["vision_logits"]).shape  # the probability that image i matches text j
        TensorShape([2, 3])
    """

    def __init__(self, vision_encoder: Any, text_encoder: Any, dtype: Any = None, **kwargs: Any) -> None:
        self.vision_encoder = vision_encoder
        self.text_encoder = text_encoder
        self.siglip_head = SigLIPHead(dtype=dtype, name="siglip_head")
        images = Input(shape=tuple(vision_encoder.image_shape), name="images")
        token_ids = Input(shape=(None,), dtype="int32", name="token_ids")
        vision_logits, text_logits = self.siglip_head(
            self.get_vision_embeddings(images), self.get_text_embeddings(token_ids)
        )
        super().__init__(
            inputs={"images": images, "token_ids": token_ids},
            outputs={"vision_logits": vision_logits, "text_logits": text_logits},
            dtype=dtype,
            **kwargs,
        )

    def get_vision_embeddings(self, images: Any) -> Any:
        """The images' embeddings (the vision encoder's pooled output).

        Args:
            images: Images of the vision encoder's `image_shape`, batched.

        Returns:
            `(batch, hidden_dim)`.
        """
        return self.vision_encoder({"images": images})

    def get_text_embeddings(self, token_ids: Any) -> Any:
        """The texts' embeddings (the text encoder's projected last token).

        Args:
            token_ids: `(batch, max_sequence_length)` token ids.

        Returns:
            `(batch, projection_dim)`.
        """
        return self.text_encoder({"token_ids": token_ids})

    def compile(self, optimizer: Any = "auto", loss: Any = "auto", metrics: Any = None, **kwargs: Any) -> None:
        """Configures the backbone for contrastive training, with KerasHub's defaults.

        Args:
            optimizer: `"auto"` (AdamW, learning rate 1e-3, weight decay
                1e-4), or anything `tfkit.Model.compile` takes. Defaults to
                `"auto"`.
            loss: `"auto"` (`SigLIPLoss`), or a loss of `(y_true, logits)`:
                it scores `"text_logits"` (`compute_loss` gives the targets).
                Defaults to `"auto"`.
            metrics: `"auto"` (accuracy), a list of metrics, or `None` (the
                default).
            **kwargs: Other `tfkit.Model.compile` arguments.
        """
        if isinstance(optimizer, str) and optimizer == "auto":
            optimizer = optimizers.AdamW(0.001, weight_decay=0.0001)
        if isinstance(loss, str) and loss == "auto":
            loss = SigLIPLoss()
        if loss is not None and not isinstance(loss, (dict, list, tuple)):
            loss = {"vision_logits": None, "text_logits": loss}  # the loss scores the text logits (compute_loss)
        if isinstance(metrics, str) and metrics == "auto":
            metrics = [Accuracy()]
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)

    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None, training: bool = True
    ) -> tf.Tensor:
        """The compiled loss of the batch's `text_logits` against `2 * eye(batch) - 1` (`y` is ignored).

        Args:
            x: The batch's inputs (`"images"` and `"token_ids"`).
            y: Ignored: pair i of a batch matches.
            y_pred: The backbone's outputs for `x`; computed when `None`.
            sample_weight: Optional per-row weights.
            training: Whether the loss is computed for training.

        Returns:
            A scalar tensor.
        """
        if y_pred is None:
            y_pred = self(x, training=training)
        text_logits = y_pred["text_logits"]
        eye = tf.eye(tf.shape(text_logits)[0], dtype=text_logits.dtype)
        targets = {"text_logits": 2.0 * eye - 1.0}
        return super().compute_loss(x, targets, y_pred, sample_weight, training=training)

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
    def from_config(cls, config: dict[str, Any]) -> "SigLIPBackbone":
        """Builds the backbone and its encoders from `get_config`'s output.

        Args:
            config: A dict, as `get_config` returns it.

        Returns:
            A new backbone.
        """
        return cls(**with_encoders(config, ("vision_encoder", "text_encoder")))
