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
strategy, whose variables update through ``strategy.extended.update``; on a CPU,
Adam's kernel only where it is faster (``adam_pays``: small and large variables).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf
from tensorflow.python.ops.resource_variable_ops import ResourceVariable


def fusable(*variables: Any) -> bool:
    """Whether the fused kernels can write ``variables``: plain resource variables, no strategy in scope."""
    return not tf.distribute.has_strategy() and all(type(v) is ResourceVariable for v in variables)


# ResourceApplyAdam on a CPU splits a variable of 512 elements or more across threads. On a 2-core
# machine the hand-off costs about 40 us: per update, alone in a loop, 2,048 elements take 43 us fused
# and 14 us written out, 131,072 elements 177 us and 568 us. Inside a training step the written-out
# updates of different variables already share the cores, so the kernel pays only where it is more than
# twice as fast alone (the guide's VAE, whose largest variable has 50,176 elements, trained 10-15% slower
# with it; the transformer, with a 640,000-element embedding, 4% faster).
_ADAM_CPU_SPLIT_SIZE = 512
_ADAM_CPU_PAYS_SIZE = 131_072


def adam_pays(variable: Any) -> bool:
    """Whether the fused Adam kernel is faster than the written-out update for ``variable`` (always on a GPU)."""
    if "CPU" not in variable.device.upper():
        return True
    size = variable.shape.num_elements() or 0
    return size < _ADAM_CPU_SPLIT_SIZE or size >= _ADAM_CPU_PAYS_SIZE


def apply_adam(
    variable: Any,
    m: Any,
    v: Any,
    gradient: tf.Tensor,
    beta_1_power: Any,
    beta_2_power: Any,
    learning_rate: Any,
    beta_1: float,
    beta_2: float,
    epsilon: float,
) -> None:
    """``m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2); w -= lr sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps)``."""
    dtype = variable.dtype
    tf.raw_ops.ResourceApplyAdam(
        var=variable.handle,
        m=m.handle,
        v=v.handle,
        beta1_power=beta_1_power,
        beta2_power=beta_2_power,
        lr=tf.cast(learning_rate, dtype),
        beta1=tf.constant(beta_1, dtype),
        beta2=tf.constant(beta_2, dtype),
        epsilon=tf.constant(epsilon, dtype),
        grad=gradient,
    )


def apply_gradient_descent(variable: Any, gradient: tf.Tensor, learning_rate: Any) -> None:
    """``w -= lr * g``."""
    tf.raw_ops.ResourceApplyGradientDescent(
        var=variable.handle, alpha=tf.cast(learning_rate, variable.dtype), delta=gradient
    )


def apply_momentum(
    variable: Any, m: Any, gradient: tf.Tensor, learning_rate: Any, momentum: float, nesterov: bool
) -> None:
    """``m = momentum * m - lr * g; w += m`` (Nesterov: ``w += momentum * m - lr * g``)."""
    dtype = variable.dtype
    tf.raw_ops.ResourceApplyKerasMomentum(
        var=variable.handle,
        accum=m.handle,
        lr=tf.cast(learning_rate, dtype),
        grad=gradient,
        momentum=tf.constant(momentum, dtype),
        use_nesterov=nesterov,
    )
