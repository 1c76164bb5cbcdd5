"""``Qwen3MoeLayerNorm``: Qwen 3 MoE's RMS normalization (of hidden states, or of each attention head), KerasHub's."""

from __future__ import annotations

from tfkit.hub.layers.rms_normalization import HeadRMSNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Qwen3MoeLayerNorm(HeadRMSNorm):
    """A normalization layer for Qwen 3 MoE that implements RMS normalization.

    Divides the input by the root mean square of its last axis (plus
    `epsilon`), in float32, and multiplies by a learned `scale`; the output
    has the input's dtype. The arguments are `HeadRMSNorm`'s.

    Args:
        head_dim: Integer, the size of the scale; `None` (the default) means
            the input's last axis.
        epsilon: Float, added to the mean square. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.qwen3_moe.qwen3_moe_layernorm import Qwen3MoeLayerNorm
        >>> np.round(Qwen3MoeLayerNorm(epsilon=0.0)(np.array([[3.0, 4.0]], "float32")).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """
