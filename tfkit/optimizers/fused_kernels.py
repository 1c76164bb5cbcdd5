"""TensorFlow's fused optimizer kernels: one op per variable instead of a dozen.

    if fusable(variable, m, v):
        apply_adam(variable, m, v, gradient, beta_1_power, beta_2_power, lr, beta_1, beta_2, epsilon)
    else: ...                          # the same formula written with tf ops (under a tf.distribute strategy)

``ResourceApplyAdam``, ``ResourceApplyGradientDescent`` and
``ResourceApplyKerasMomentum`` compute Keras 3's formulas. The SGD kernels round
as the written-out ops do; Adam's kernel computes ``1 - beta`` in float32 where
Keras computes it in Python, so its updates differ from Keras's by about one part
in a million (float noise: the tests compare at rtol 2e-5). A small model's step on a
CPU is bound by the number of ops, not by arithmetic: the guide's VAE has ten
variables, and each Adam update written with tf ops is about fifteen of them.
The kernels run in ``tf.function``, eagerly and under XLA (tf2xla has all three).
They are used only on plain resource variables outside a ``tf.distribute``
strategy, whose variables update through ``strategy.extended.update``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf
from tensorflow.python.ops.resource_variable_ops import ResourceVariable


def fusable(*variables: Any) -> bool:
    """Whether the fused kernels can write ``variables``: plain resource variables, no strategy in scope."""
    return not tf.distribute.has_strategy() and all(type(v) is ResourceVariable for v in variables)


def apply_adam(variable: Any, m: Any, v: Any, gradient: tf.Tensor, beta_1_power: Any, beta_2_power: Any,
               learning_rate: Any, beta_1: float, beta_2: float, epsilon: float) -> None:
    """``m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2); w -= lr sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps)``."""
    dtype = variable.dtype
    tf.raw_ops.ResourceApplyAdam(
        var=variable.handle, m=m.handle, v=v.handle, beta1_power=beta_1_power, beta2_power=beta_2_power,
        lr=tf.cast(learning_rate, dtype), beta1=tf.constant(beta_1, dtype), beta2=tf.constant(beta_2, dtype),
        epsilon=tf.constant(epsilon, dtype), grad=gradient)


def apply_gradient_descent(variable: Any, gradient: tf.Tensor, learning_rate: Any) -> None:
    """``w -= lr * g``."""
    tf.raw_ops.ResourceApplyGradientDescent(var=variable.handle, alpha=tf.cast(learning_rate, variable.dtype),
                                            delta=gradient)


def apply_momentum(variable: Any, m: Any, gradient: tf.Tensor, learning_rate: Any, momentum: float,
                   nesterov: bool) -> None:
    """``m = momentum * m - lr * g; w += m`` (Nesterov: ``w += momentum * m - lr * g``)."""
    dtype = variable.dtype
    tf.raw_ops.ResourceApplyKerasMomentum(var=variable.handle, accum=m.handle, lr=tf.cast(learning_rate, dtype),
                                          grad=gradient, momentum=tf.constant(momentum, dtype),
                                          use_nesterov=nesterov)
