"""Gemma's ``RMSNormalization``: root-mean-square normalization scaled by ``1 + scale`` (``scale`` starts at zero).

    norm = RMSNormalization(epsilon=1e-6)
    y = norm(x)          # x / sqrt(mean(x ** 2, axis=-1) + epsilon) * (1 + scale), computed in float32

Not KerasHub's shared ``keras_hub.layers.RMSNormalization`` (that one scales by
``scale`` and takes ``input_dim``): Gemma and Gemma 3 keep their own, built
from the input's last axis. The class name is KerasHub's (``RMSNormalization``),
so the key Keras gives it in a backbone's weights file
(``layers/rms_normalization``) is the same.
"""

from __future__ import annotations

from tfkit.hub.layers.rms_normalization import ScaledRMSNorm


class RMSNormalization(ScaledRMSNorm):
    """Gemma's RMS normalization: normalize the last axis, then scale by `1 + scale`.

    The weight `scale` has the size of the input's last axis and is
    initialized to zeros, so a new layer only normalizes. The normalization
    runs in float32 whatever the input dtype; the output is cast to the
    layer's compute dtype. Gemma, Gemma 2 and Gemma 3 use it before and after
    attention and the feedforward network, on queries and keys (Gemma 3) and
    at the end of the backbone.

    Args:
        epsilon: Float added to the mean square before the square root.
            Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: A float tensor `(..., features)`.

    Returns:
        The normalized tensor, of the input's shape.

    Example:
        >>> from tfkit.hub.models.gemma.rms_normalization import RMSNormalization
        >>> norm = RMSNormalization()
        >>> np.round(norm(np.array([[3.0, 4.0]], "float32")).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
        >>> norm.scale.shape
        TensorShape([2])
    """

    scale_initializer = "zeros"
    scale_offset = 1.0
