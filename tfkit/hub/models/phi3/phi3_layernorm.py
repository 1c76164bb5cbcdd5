"""``Phi3LayerNorm``: Phi-3's RMS normalization with a learned scale, computed in float32 (KerasHub's layer)."""

from __future__ import annotations

from tfkit.hub.layers.rms_normalization import ScaledRMSNorm
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Phi3LayerNorm(ScaledRMSNorm):
    """A normalization layer for Phi-3 that implements RMS normalization.

    Divides the input by the root mean square of its last axis (plus
    `epsilon`, under the root), in float32, and multiplies by a learned
    `scale` (ones at first); the output has the layer's compute dtype. The
    class name is KerasHub's, which keys the layer in Keras's weight files.

    Args:
        epsilon: Float, added to the mean square. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: Tensor `(..., dim)`.

    Returns:
        The normalized tensor, of the input's shape.

    Example:
        >>> from tfkit.hub.models.phi3.phi3_layernorm import Phi3LayerNorm
        >>> norm = Phi3LayerNorm(epsilon=0.0)
        >>> np.round(norm(np.array([[3.0, 4.0]], "float32")).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """
