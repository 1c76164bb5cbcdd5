"""``SigLIPLoss``: SigLIP's pairwise sigmoid loss on its logits (KerasHub's ``SigLIPBackbone`` compiles with it).

loss = SigLIPLoss()
value = loss(2 * tf.eye(batch) - 1, outputs["text_logits"])   # +1 on matching pairs, -1 elsewhere
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.losses import Loss
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class SigLIPLoss(Loss):
    """SigLIP's sigmoid loss (Zhai et al., 2023): `-sum(log_sigmoid(y_true * y_pred))` over each row.

    Every image-text pair is its own binary problem: `y_true` is `+1` for a
    matching pair and `-1` otherwise (`2 * eye(batch) - 1` for a batch of
    matching pairs), `y_pred` the logits. KerasHub 0.32 defines it in
    `keras_hub.src.models.siglip.siglip_loss` and exports it nowhere;
    `SigLIPBackbone.compile()` uses it by default.

    Args:
        reduction: How per-row losses are reduced. Defaults to
            `"sum_over_batch_size"`.
        name: The loss's name. Defaults to `None` (`"sig_lip_loss"`).
        **kwargs: `Loss` keyword arguments, such as `dtype`.

    Example:
        >>> from tfkit.hub.models.siglip.siglip_loss import SigLIPLoss
        >>> y_true = 2 * np.eye(2) - 1
        >>> round(float(SigLIPLoss()(y_true, np.array([[5.0, -5.0], [-5.0, 5.0]]))), 4)
        0.0134
    """

    def __init__(self, reduction: Any = "sum_over_batch_size", name: str | None = None, **kwargs: Any) -> None:
        super().__init__(reduction=reduction, name=name, **kwargs)

    def call(self, y_true: Any, y_pred: Any) -> tf.Tensor:
        y_pred = tf.convert_to_tensor(y_pred)
        y_true = tf.cast(y_true, y_pred.dtype)
        return -tf.reduce_sum(tf.math.log_sigmoid(y_true * y_pred), axis=-1)
