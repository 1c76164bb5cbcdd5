"""FTRL-Proximal ("Follow The Regularized Leader"), with L1, L2 and L2-shrinkage regularization.

    optimizer = tfkit.optimizers.Ftrl(learning_rate=0.1, l1_regularization_strength=0.01)
    optimizer.apply(grads, model.trainable_variables)
    optimizer.get_config()["learning_rate_power"]  # -0.5

Update rule, defaults, argument checks and config follow Keras 3 (``keras/src/optimizers/ftrl.py``).
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers.base import Optimizer


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"Ftrl: {name} must be a number, got {name}={value!r}")
    return float(value)


@registry.builtin("optimizers", "ftrl")
class Ftrl(Optimizer):
    """Per coordinate: ``n' = n + g^2``; ``z += g + 2 s w - (n'^-p - n^-p) / lr * w``;
    ``w = (clip(z, -l1, l1) - z) / (n'^-p / lr + 2 (l2 + beta / (2 lr)))`` with ``p = learning_rate_power``.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        nonnegative = {
            "initial_accumulator_value": initial_accumulator_value,
            "l1_regularization_strength": l1_regularization_strength,
            "l2_regularization_strength": l2_regularization_strength,
            "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength,
        }
        for name, value in nonnegative.items():
            if _number(name, value) < 0.0:
                raise ValueError(f"Ftrl: {name} must be >= 0, got {name}={value!r}")
        if _number("learning_rate_power", learning_rate_power) > 0.0:
            raise ValueError(f"Ftrl: learning_rate_power must be <= 0, got learning_rate_power={learning_rate_power!r}")
        self.learning_rate_power = float(learning_rate_power)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.l1_regularization_strength = float(l1_regularization_strength)
        self.l2_regularization_strength = float(l2_regularization_strength)
        self.l2_shrinkage_regularization_strength = float(l2_shrinkage_regularization_strength)
        self.beta = _number("beta", beta)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._accumulators = []
        self._linears = []
        for variable in variables:  # slots made variable by variable (accumulator, linear), as in Keras 3
            self._accumulators.append(
                self.add_variable_from_reference(variable, "accumulator", self.initial_accumulator_value)
            )
            self._linears.append(self.add_variable_from_reference(variable, "linear"))

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        lr = tf.cast(learning_rate, variable.dtype)
        index = self.variable_index(variable)
        accumulator = self._accumulators[index]
        linear = self._linears[index]
        power = -self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        shrunk_gradient = gradient + 2.0 * self.l2_shrinkage_regularization_strength * variable
        new_accumulator = accumulator + tf.square(gradient)
        linear.assign_add(
            shrunk_gradient - (tf.pow(new_accumulator, power) - tf.pow(accumulator, power)) / lr * variable
        )
        quadratic = tf.pow(new_accumulator, power) / lr + 2.0 * l2
        l1 = self.l1_regularization_strength
        variable.assign((tf.clip_by_value(linear, -l1, l1) - linear) / quadratic)
        accumulator.assign(new_accumulator)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "learning_rate_power": self.learning_rate_power,
            "initial_accumulator_value": self.initial_accumulator_value,
            "l1_regularization_strength": self.l1_regularization_strength,
            "l2_regularization_strength": self.l2_regularization_strength,
            "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
            "beta": self.beta,
        }
