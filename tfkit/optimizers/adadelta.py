"""Adadelta: per-coordinate step sizes from running averages of squared gradients and squared updates.

    optimizer = tfkit.optimizers.Adadelta(learning_rate=1.0, rho=0.95)
    optimizer.apply(grads, model.trainable_variables)
    optimizer.get_config()["rho"]  # 0.95

Update rule, defaults and config follow Keras 3 (``keras/src/optimizers/adadelta.py``).
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers.base import Optimizer


@registry.builtin("optimizers", "adadelta")
class Adadelta(Optimizer):
    """``a = rho a + (1 - rho) g^2``; ``d = -sqrt(u + eps) / sqrt(a + eps) * g``;
    ``u = rho u + (1 - rho) d^2``; ``w += lr * d``.
    """

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-7, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        if isinstance(rho, bool) or not isinstance(rho, (int, float)) or not 0.0 <= rho <= 1.0:
            raise ValueError(f"Adadelta: rho must be a float in [0, 1], got rho={rho!r}")
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or epsilon < 0:
            raise ValueError(f"Adadelta: epsilon must be a float >= 0, got epsilon={epsilon!r}")
        self.rho = float(rho)
        self.epsilon = float(epsilon)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            variables, ["accumulated_grad", "accumulated_delta_var"]
        )

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        lr = tf.cast(learning_rate, variable.dtype)
        index = self.variable_index(variable)
        accumulated_grad = self._accumulated_grads[index]
        accumulated_delta = self._accumulated_delta_vars[index]
        rho = self.rho
        accumulated_grad.assign(rho * accumulated_grad + (1.0 - rho) * tf.square(gradient))
        delta = -(tf.sqrt(accumulated_delta + self.epsilon) * gradient) / tf.sqrt(accumulated_grad + self.epsilon)
        accumulated_delta.assign(rho * accumulated_delta + (1.0 - rho) * tf.square(delta))
        variable.assign_add(lr * delta)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}
