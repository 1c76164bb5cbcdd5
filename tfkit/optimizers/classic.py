"""SGD (with momentum and Nesterov), RMSprop and Adagrad, with Keras 3 formulas and defaults.

    optimizer = tfkit.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True)
    optimizer.apply(grads, model.trainable_variables)
    optimizer.iterations  # -> 1
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers import fused_kernels
from tfkit.optimizers.base import Optimizer


@registry.builtin("optimizers", "sgd")
class SGD(Optimizer):
    """Gradient descent: ``m = momentum * m - lr * g; w += m`` (``w -= lr * g`` without momentum).

    With ``nesterov=True`` the step is ``momentum * m - lr * g`` with the new ``m``.
    """

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"SGD: momentum must be a float in [0, 1], got {momentum!r}")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums = self.add_optimizer_variables(variables, "momentum") if self.momentum else []

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        if not self.momentum:
            if fused_kernels.fusable(variable):
                fused_kernels.apply_gradient_descent(variable, gradient, learning_rate)
            else:
                variable.assign_sub(gradient * tf.cast(learning_rate, variable.dtype))
            return
        m = self._momentums[self.variable_index(variable)]
        if fused_kernels.fusable(variable, m):
            fused_kernels.apply_momentum(variable, m, gradient, learning_rate, self.momentum, self.nesterov)
            return
        lr = tf.cast(learning_rate, variable.dtype)
        momentum = tf.cast(self.momentum, variable.dtype)
        m.assign(m * momentum - gradient * lr)
        if self.nesterov:
            variable.assign_add(m * momentum - gradient * lr)
        else:
            variable.assign_add(m)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


@registry.builtin("optimizers", "rmsprop")
class RMSprop(Optimizer):
    """``v = rho * v + (1 - rho) * g**2; w -= lr * g / sqrt(v + eps)``.

    ``centered=True`` subtracts the squared running mean of ``g`` inside the
    root; ``momentum > 0`` accumulates the increments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho = float(rho)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.centered = bool(centered)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._velocities = self.add_optimizer_variables(variables, "velocity")
        self._momentums = self.add_optimizer_variables(variables, "momentum") if self.momentum > 0 else []
        self._average_gradients = (
            self.add_optimizer_variables(variables, "average_gradient") if self.centered else []
        )

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        lr = tf.cast(learning_rate, variable.dtype)
        index = self.variable_index(variable)
        velocity = self._velocities[index]
        velocity.assign(self.rho * velocity + (1.0 - self.rho) * tf.square(gradient))
        if self.centered:
            average = self._average_gradients[index]
            average.assign(self.rho * average + (1.0 - self.rho) * gradient)
            denominator = velocity - tf.square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = lr * gradient / tf.sqrt(denominator)
        if self.momentum > 0:
            momentum = self._momentums[index]
            momentum.assign(self.momentum * momentum + increment)
            variable.assign_sub(momentum)
        else:
            variable.assign_sub(increment)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }


@registry.builtin("optimizers", "adagrad")
class Adagrad(Optimizer):
    """``a += g**2; w -= lr * g / sqrt(a + eps)``, with ``a`` starting at ``initial_accumulator_value``."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = float(epsilon)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._accumulators = self.add_optimizer_variables(
            variables, "accumulator", initializer=self.initial_accumulator_value
        )

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        lr = tf.cast(learning_rate, variable.dtype)
        accumulator = self._accumulators[self.variable_index(variable)]
        accumulator.assign_add(tf.square(gradient))
        variable.assign_sub(lr * gradient / tf.sqrt(accumulator + self.epsilon))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "initial_accumulator_value": self.initial_accumulator_value,
            "epsilon": self.epsilon,
        }
