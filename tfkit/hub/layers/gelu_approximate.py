"""``gelu_approximate``: GELU with the tanh approximation, the activation GPT-2 and BERT were trained with.

Registered as ``keras_hub>gelu_approximate``, the name KerasHub's configs give it, so a
config that names it rebuilds with this function.
"""

from __future__ import annotations

from typing import Any

from tfkit import activations
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
def gelu_approximate(x: Any) -> Any:
    """GELU with the tanh approximation (KerasHub's `keras_hub>gelu_approximate`).

    Args:
        x: A float tensor.

    Returns:
        `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))`, of `x`'s shape and dtype.

    Example:
        >>> from tfkit.hub.layers.gelu_approximate import gelu_approximate
        >>> np.round(gelu_approximate(tf.constant([-1.0, 0.0, 1.0])).numpy(), 4)
        array([-0.1588,  0.    ,  0.8412], dtype=float32)
    """
    return activations.gelu(x, approximate=True)
