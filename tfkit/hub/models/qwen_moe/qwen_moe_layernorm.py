"""``QwenMoeLayerNorm``: Qwen MoE's RMS normalization with a learned scale, KerasHub's layer."""

from __future__ import annotations

from tfkit.hub.layers.rms_normalization import ScaledRMSNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class QwenMoeLayerNorm(ScaledRMSNorm):
    """A normalization layer for Qwen MoE that implements RMS normalization.

    Divides the input by the root mean square of its last axis (plus
    `epsilon`), in float32, and multiplies by a learned `scale`; the output
    has the layer's compute dtype.

    Args:
        epsilon: Float, added to the mean square. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.qwen_moe.qwen_moe_layernorm import QwenMoeLayerNorm
        >>> np.round(QwenMoeLayerNorm(epsilon=0.0)(np.array([[3.0, 4.0]], "float32")).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """
