"""Adam, AdamW, Adamax, Nadam and Lion, with Keras 3 formulas and defaults.

    optimizer = tfkit.optimizers.AdamW(learning_rate=1e-3, weight_decay=0.004)
    optimizer.exclude_from_weight_decay(var_names=["bias"])
    optimizer.apply(grads, model.trainable_variables)
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers import fused_kernels
from tfkit.optimizers.base import Optimizer


def _step(optimizer: Optimizer, dtype: tf.DType, ahead: int = 1) -> tf.Tensor:
    """The 1-based number of the step being taken (``iterations + ahead``) as ``dtype``."""
    return tf.cast(optimizer.iterations + ahead, dtype)


def _powers(optimizer: Optimizer, dtype: tf.DType) -> tuple[tf.Tensor, tf.Tensor]:
    """``beta_1 ** t`` and ``beta_2 ** t`` for the step being taken."""
    step = _step(optimizer, dtype)
    return tf.pow(tf.cast(optimizer.beta_1, dtype), step), tf.pow(tf.cast(optimizer.beta_2, dtype), step)


@registry.builtin("optimizers", "adam")
class Adam(Optimizer):
    """``m, v`` = running means of ``g`` and ``g**2``;
    ``w -= lr * sqrt(1 - b2**t) / (1 - b1**t) * m / (sqrt(v) + eps)``.

    ``amsgrad=True`` uses the running maximum of ``v``.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)
        self.amsgrad = bool(amsgrad)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums, self._velocities = self.add_optimizer_variables(variables, ["momentum", "velocity"])
        self._velocity_hats = self.add_optimizer_variables(variables, "velocity_hat") if self.amsgrad else []

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        dtype = variable.dtype

        def powers() -> tuple[tf.Tensor, tf.Tensor]:   # shared by the fused and the written-out updates
            return self.once_per_step(("adam_powers", dtype), lambda: _powers(self, dtype))

        def step_size() -> tf.Tensor:
            beta_1_power, beta_2_power = powers()
            return tf.cast(learning_rate, dtype) * tf.sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power)

        index = self.variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        if not self.amsgrad and fused_kernels.fusable(variable, m, v) and fused_kernels.adam_pays(variable):
            beta_1_power, beta_2_power = powers()
            fused_kernels.apply_adam(variable, m, v, gradient, beta_1_power, beta_2_power, learning_rate,
                                     self.beta_1, self.beta_2, self.epsilon)
            return
        alpha = self.once_per_step(("adam_alpha", dtype), step_size)
        m.assign_add((gradient - m) * (1.0 - self.beta_1))
        v.assign_add((tf.square(gradient) - v) * (1.0 - self.beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[index]
            v_hat.assign(tf.maximum(v_hat, v))
            v = v_hat
        variable.assign_sub(m * alpha / (tf.sqrt(v) + self.epsilon))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "amsgrad": self.amsgrad,
        }


@registry.builtin("optimizers", "adamw")
class AdamW(Adam):
    """Adam with decoupled weight decay (``w -= lr * weight_decay * w`` before each step)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        **kwargs: Any,
    ) -> None:
        if weight_decay is None:
            raise ValueError("AdamW: weight_decay must be a float, got None (use Adam for no decay)")
        super().__init__(
            learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
            amsgrad=amsgrad, weight_decay=weight_decay, **kwargs,
        )


@registry.builtin("optimizers", "adamax")
class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(b2 * u, |g|); w -= lr * m / ((1 - b1**t) * (u + eps))``."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._m, self._u = self.add_optimizer_variables(variables, ["momentum", "norm"])

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        beta_1_power = tf.pow(tf.cast(self.beta_1, dtype), _step(self, dtype))
        index = self.variable_index(variable)
        m = self._m[index]
        u = self._u[index]
        m.assign_add((gradient - m) * (1.0 - self.beta_1))
        u.assign(tf.maximum(self.beta_2 * u, tf.abs(gradient)))
        variable.assign_sub(lr * m / ((1.0 - beta_1_power) * (u + self.epsilon)))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


@registry.builtin("optimizers", "nadam")
class Nadam(Optimizer):
    """Adam with Nesterov momentum and the momentum schedule ``u_t = b1 * (1 - 0.5 * 0.96**t)``."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums, self._velocities = self.add_optimizer_variables(variables, ["momentum", "velocity"])
        dtype = variables[0].dtype if variables else tf.float32
        self._u_product = self.add_variable((), dtype, initializer=1.0, name="u_product")

    def _update_shared_state(self) -> None:
        # The product of u_1 ... u_t, updated once per step before the variables.
        dtype = self._u_product.dtype
        u_t = self.beta_1 * (1.0 - 0.5 * tf.pow(tf.cast(0.96, dtype), _step(self, dtype)))
        self._u_product.assign(self._u_product * u_t)

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        decay = tf.cast(0.96, dtype)
        beta_1 = tf.cast(self.beta_1, dtype)
        u_t = beta_1 * (1.0 - 0.5 * tf.pow(decay, _step(self, dtype)))
        u_t_1 = beta_1 * (1.0 - 0.5 * tf.pow(decay, _step(self, dtype, ahead=2)))
        u_product_t = tf.cast(self._u_product, dtype)
        u_product_t_1 = u_product_t * u_t_1
        beta_2_power = tf.pow(tf.cast(self.beta_2, dtype), _step(self, dtype))
        index = self.variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        m.assign_add((gradient - m) * (1.0 - self.beta_1))
        v.assign_add((tf.square(gradient) - v) * (1.0 - self.beta_2))
        m_hat = u_t_1 * m / (1.0 - u_product_t_1) + (1.0 - u_t) * gradient / (1.0 - u_product_t)
        v_hat = v / (1.0 - beta_2_power)
        variable.assign_sub(m_hat * lr / (tf.sqrt(v_hat) + self.epsilon))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


@registry.builtin("optimizers", "lion")
class Lion(Optimizer):
    """``w -= lr * sign(b1 * m + (1 - b1) * g)``, then ``m = b2 * m + (1 - b2) * g``."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.99,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        if not 0.0 < beta_1 <= 1.0:
            raise ValueError(f"Lion: beta_1 must be in (0, 1], got {beta_1!r}")
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums = self.add_optimizer_variables(variables, "momentum")

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        lr = tf.cast(learning_rate, variable.dtype)
        m = self._momentums[self.variable_index(variable)]
        variable.assign_sub(lr * tf.sign(m * self.beta_1 + gradient * (1.0 - self.beta_1)))
        m.assign(m * self.beta_2 + gradient * (1.0 - self.beta_2))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}
