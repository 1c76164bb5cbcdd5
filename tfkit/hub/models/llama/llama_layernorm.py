"""``LlamaLayerNorm``: Llama's RMS normalization (no mean, no bias), computed in float32.

norm = LlamaLayerNorm(epsilon=1e-5)
y = norm(x)          # x / sqrt(mean(x ** 2, axis=-1) + epsilon) * scale, back in the compute dtype
"""

from __future__ import annotations

from tfkit.hub.layers.rms_normalization import ScaledRMSNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class LlamaLayerNorm(ScaledRMSNorm):
    """A normalization layer for Llama that implements RMS normalization.

    Each vector along the last axis is divided by its root mean square (plus
    `epsilon`, under the root) and multiplied by a learned `scale`, ones at
    first. The arithmetic is float32 whatever the compute dtype, as in
    Llama's reference code; the output is cast back to the compute dtype.
    The weight is `scale` of shape `(features,)`, as in KerasHub, so
    KerasHub's weight files load.

    Args:
        epsilon: Float, added to the mean square before the root. Defaults
            to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: A tensor `(..., features)`.

    Returns:
        The normalized tensor, of the input's shape, in the compute dtype.

    Example:
        >>> from tfkit.hub.models.llama.llama_layernorm import LlamaLayerNorm
        >>> norm = LlamaLayerNorm(epsilon=0.0)
        >>> np.round(norm(np.array([[3.0, 4.0]], "float32")).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """
