"""Lamb: Adam's update rescaled per variable by the trust ratio ``||w|| / ||update||``.

    optimizer = tfkit.optimizers.Lamb(learning_rate=1e-3)
    optimizer.apply(grads, model.trainable_variables)
    optimizer.get_config()["beta_2"]  # 0.999

Update rule, defaults and config follow Keras 3 (``keras/src/optimizers/lamb.py``).
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers.base import Optimizer


@registry.builtin("optimizers", "lamb")
class Lamb(Optimizer):
    """``u = m_hat / (sqrt(v_hat) + eps)``; ``w -= r * lr * u`` with ``r = ||w|| / ||u||`` (1 when either is 0)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        for name, value in (("beta_1", beta_1), ("beta_2", beta_2)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value < 1.0:
                raise ValueError(f"Lamb: {name} must be a float in [0, 1), got {name}={value!r}")
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums, self._velocities = self.add_optimizer_variables(variables, ["momentum", "velocity"])

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        step = tf.cast(self.iterations + 1, dtype)
        beta_1_power = tf.pow(tf.cast(self.beta_1, dtype), step)
        beta_2_power = tf.pow(tf.cast(self.beta_2, dtype), step)
        index = self.variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        m.assign_add((gradient - m) * (1.0 - self.beta_1))
        v.assign_add((tf.square(gradient) - v) * (1.0 - self.beta_2))
        update = (m / (1.0 - beta_1_power)) / (tf.sqrt(v / (1.0 - beta_2_power)) + self.epsilon)
        w_norm = tf.sqrt(tf.reduce_sum(tf.square(variable)))
        u_norm = tf.sqrt(tf.reduce_sum(tf.square(update)))
        one = tf.ones((), dtype)
        ratio = tf.where(w_norm > 0, tf.where(u_norm > 0, tf.math.divide_no_nan(w_norm, u_norm), one), one)
        variable.assign_sub(ratio * lr * update)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}
