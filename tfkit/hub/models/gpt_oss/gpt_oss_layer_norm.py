"""``GptOssLayerNormalization``: GPT-OSS's RMS normalization with a learned scale, KerasHub's layer."""

from __future__ import annotations

from tfkit.hub.layers.rms_normalization import ScaledRMSNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GptOssLayerNormalization(ScaledRMSNorm):
    """A normalization layer for GPT-OSS that implements RMS normalization.

    Divides the input by the root mean square of its last axis (plus
    `epsilon`), in float32, and multiplies by a learned `scale` (ones at
    first); the output has the layer's compute dtype.

    Args:
        epsilon: Float, added to the mean square. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: Tensor `(..., dim)`.

    Returns:
        The normalized tensor, of the input's shape.

    Example:
        >>> from tfkit.hub.models.gpt_oss.gpt_oss_layer_norm import GptOssLayerNormalization
        >>> np.round(GptOssLayerNormalization(epsilon=0.0)(np.array([[3.0, 4.0]])).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """
