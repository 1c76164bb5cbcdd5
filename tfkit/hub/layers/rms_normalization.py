"""``RMSNormalization``, KerasHub's root-mean-square normalization, and ``rms_norm``, every hub RMS norm's math.

    norm = RMSNormalization(input_dim=64)
    y = norm(x)            # x / sqrt(mean(x ** 2, axis=-1) + 1e-6) * scale, in float32

KerasHub creates the ``scale`` weight in the constructor (the layer needs
``input_dim``) and computes in float32 whatever the input dtype.
"""

from __future__ import annotations

from typing import Any, ClassVar

import tensorflow as tf

from tfkit.engine.layer import Layer
from tfkit.saving import register_keras_serializable

_EPSILON = 1e-6


def rms_norm(x: Any, scale: Any, epsilon: float, scale_offset: float = 0.0) -> tf.Tensor:
    """``x / sqrt(mean(x ** 2, -1) + epsilon) * (scale_offset + scale)`` in float32: every hub family's RMS norm.

    The one home of the arithmetic the RMS norms of tfkit.hub share
    (`RMSNormalization`, Llama's, Mistral's, Qwen's, Qwen 3's and Gemma's with
    `scale_offset=1`): the input and the scale are promoted to float32 (as
    Keras promotes a bfloat16 scale), and the caller casts the result to its
    dtype.

    Args:
        x: The tensor to normalize over its last axis.
        scale: The learned scale, `(x.shape[-1],)`.
        epsilon: Added to the mean square before the root.
        scale_offset: Added to the scale (Gemma's `1 + scale`, whose scale
            starts at zero). Defaults to `0.0`.

    Returns:
        The normalized tensor, float32.

    Example:
        >>> from tfkit.hub.layers.rms_normalization import rms_norm
        >>> np.round(rms_norm(tf.constant([[3.0, 4.0]]), tf.ones(2), 0.0).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
        >>> np.round(rms_norm(tf.constant([[3.0, 4.0]]), tf.zeros(2), 0.0, scale_offset=1.0).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """
    x = tf.cast(x, tf.float32)
    scale = tf.cast(scale, tf.float32)
    if scale_offset:
        scale = scale_offset + scale
    return (x * tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis=-1, keepdims=True) + epsilon)) * scale


class ScaledRMSNorm(Layer):
    """Base of the families' RMS-norm layers: `rms_norm` of the last axis times a learned `scale`.

    A family's layer (`LlamaLayerNorm`, `MistralLayerNormalization`,
    `QwenLayerNorm`, Gemma's `RMSNormalization`, ...) keeps KerasHub's class
    name, which names its weights in Keras's files, and declares only what
    differs: `scale_initializer` (`"ones"`; Gemma's `"zeros"`) and
    `scale_offset` (`0.0`; Gemma's `1.0`, its scale an offset from one). The
    arithmetic is float32 whatever the compute dtype; the output is cast to
    the layer's compute dtype.

    Args:
        epsilon: Float, added to the mean square before the root. Defaults to
            `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: A tensor `(..., features)`.

    Returns:
        The normalized tensor, of the input's shape.

    Example:
        >>> from tfkit.hub.layers.rms_normalization import ScaledRMSNorm
        >>> norm = ScaledRMSNorm(epsilon=0.0)
        >>> np.round(norm(np.array([[3.0, 4.0]], "float32")).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """

    scale_initializer: ClassVar[str] = "ones"
    scale_offset: ClassVar[float] = 0.0

    def __init__(self, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.epsilon = epsilon

    def _scale_size(self, input_shape: Any) -> int:
        return input_shape[-1]

    def build(self, input_shape: Any) -> None:
        self.scale = self.add_weight(
            name="scale",
            shape=(self._scale_size(input_shape),),
            initializer=self.scale_initializer,
            trainable=True,
            dtype=self.variable_dtype,
        )

    def call(self, x: tf.Tensor) -> tf.Tensor:
        return tf.cast(rms_norm(x, self.scale, self.epsilon, self.scale_offset), self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "epsilon": self.epsilon}


class HeadRMSNorm(ScaledRMSNorm):
    """`ScaledRMSNorm` whose scale may be one attention head's size, its output in the input's dtype (Qwen 3's).

    Qwen 3's and Qwen 3 MoE's norm layers (hidden states, and each projected
    query and key head) keep KerasHub's class names over this base. KerasHub's
    config leaves out `head_dim`; tfkit's keeps it, so the layer rebuilds
    from its config.

    Args:
        head_dim: Integer, the size of the scale; `None` (the default) means
            the input's last axis.
        epsilon: Float, added to the mean square. Defaults to `1e-6`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: Tensor `(..., dim)`.

    Returns:
        The normalized tensor, of the input's shape and dtype.

    Example:
        >>> from tfkit.hub.layers.rms_normalization import HeadRMSNorm
        >>> norm = HeadRMSNorm(head_dim=2, epsilon=0.0)
        >>> np.round(norm(np.array([[[3.0, 4.0]]], "float32")).numpy(), 4)
        array([[[0.8485, 1.1314]]], dtype=float32)
    """

    def __init__(self, head_dim: int | None = None, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(epsilon=epsilon, **kwargs)
        self.head_dim = head_dim

    def _scale_size(self, input_shape: Any) -> int:
        return self.head_dim if self.head_dim else input_shape[-1]

    def call(self, x: tf.Tensor) -> tf.Tensor:
        return tf.cast(super().call(x), x.dtype)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "head_dim": self.head_dim}


@register_keras_serializable(package="keras_hub")
class RMSNormalization(Layer):
    """Root Mean Square (RMS) Normalization layer.

    Divides the input by the root mean square of its last axis (plus
    `1e-6`) and multiplies by a learned `scale` of shape `(input_dim,)`,
    initialized to ones. The output is float32. KerasHub's constructor takes
    only `input_dim`, and its config holds `input_dim`, `trainable` and
    `dtype` (no `name`); Keras then cannot rebuild the layer from that config
    (its constructor refuses `trainable`). tfkit's constructor also takes the
    base layer arguments, so the same config rebuilds it.

    Args:
        input_dim: Integer, the size of the last input axis.
        **kwargs: Base layer keyword arguments, such as `name`, `dtype` and
            `trainable` (tfkit only: KerasHub's constructor takes none).

    Call arguments:
        x: Input tensor `(..., input_dim)`.

    Returns:
        The normalized and scaled tensor, of the input's shape, float32.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> norm = keras_hub.layers.RMSNormalization(input_dim=2)
        >>> np.round(norm(np.array([[3.0, 4.0]])).numpy(), 4)
        array([[0.8485, 1.1314]], dtype=float32)
    """

    def __init__(self, input_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.scale = self.add_weight(name="scale", shape=(input_dim,), initializer="ones")

    def call(self, x: tf.Tensor) -> tf.Tensor:
        return rms_norm(x, self.scale, _EPSILON)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        return {"input_dim": self.input_dim, "trainable": config["trainable"], "dtype": config["dtype"]}

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape
