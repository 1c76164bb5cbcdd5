"""ScheduleFreeAdamW: AdamW without a learning-rate schedule, by interpolation and averaging (Keras 3).

    optimizer = tfkit.optimizers.ScheduleFreeAdamW(learning_rate=0.0025, warmup_steps=100)
    model.compile(optimizer=optimizer, loss="mse")
    model.fit(x, y)

Each variable holds ``y``, the point gradients are taken at. The slot
``momentum`` holds ``z``, where the Adam-scaled gradient steps go (it starts as
a copy of the variable), and the average ``x`` is recovered from ``y`` and ``z``:
``x_old = (y - (1 - b1) z_old) / b1``, ``x = (1 - 1/t) x_old + z / t``,
``y = (1 - b1) z + b1 x`` (Defazio et al., 2024; Keras 3's formulas and defaults).
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers.base import Optimizer


def _copy_of(variable: Any) -> Any:
    """An initializer ``fn(shape, dtype)`` giving ``variable``'s value (read eagerly, where slots are made)."""
    def initial(shape: Any, dtype: Any) -> tf.Tensor:
        return tf.identity(variable.read_value())
    return initial


@registry.builtin("optimizers", "schedulefreeadamw")
class ScheduleFreeAdamW(Optimizer):
    """Schedule-free AdamW.

    Args:
        learning_rate: the learning rate (0.0025).
        beta_1: the interpolation between ``z`` and ``x`` (0.9).
        beta_2: the decay of the running mean of squared gradients (0.999).
        epsilon: added to the denominator (1e-8).
        warmup_steps: the learning rate grows linearly from ``lr / warmup_steps`` to ``lr`` over these steps (0).
    """

    def __init__(
        self,
        learning_rate: Any = 0.0025,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-8,
        warmup_steps: int = 0,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name or "schedule_free_adam_w", **kwargs)
        if isinstance(beta_1, bool) or not isinstance(beta_1, (int, float)) or not 0.0 < beta_1 <= 1.0:
            raise ValueError(f"ScheduleFreeAdamW: beta_1 must be a float in (0, 1] (x is recovered by dividing "
                             f"by it), got beta_1={beta_1!r}")
        if isinstance(beta_2, bool) or not isinstance(beta_2, (int, float)) or not 0.0 <= beta_2 < 1.0:
            raise ValueError(f"ScheduleFreeAdamW: beta_2 must be a float in [0, 1), got beta_2={beta_2!r}")
        if isinstance(warmup_steps, bool) or not isinstance(warmup_steps, int) or warmup_steps < 0:
            raise ValueError(f"ScheduleFreeAdamW: warmup_steps must be an int >= 0, got warmup_steps={warmup_steps!r}")
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.warmup_steps = warmup_steps

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._momentums: list[tf.Variable] = []
        self._velocities: list[tf.Variable] = []
        for variable in variables:
            self._momentums.append(self.add_variable_from_reference(variable, "momentum", _copy_of(variable)))
            self._velocities.append(self.add_variable_from_reference(variable, "velocity"))

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        step = tf.cast(self.iterations + 1, dtype)
        lr = tf.cast(learning_rate, dtype)
        if self.warmup_steps > 0:
            lr = lr * tf.minimum(step / tf.cast(self.warmup_steps, dtype), 1.0)
        beta_1 = tf.cast(self.beta_1, dtype)
        beta_2 = tf.cast(self.beta_2, dtype)
        index = self.variable_index(variable)
        z = self._momentums[index]
        v = self._velocities[index]
        z_old = z.read_value()
        v.assign_add((tf.square(gradient) - v) * (1.0 - beta_2))
        denominator = tf.sqrt(v / (1.0 - tf.pow(beta_2, step))) + tf.cast(self.epsilon, dtype)
        z.assign_sub(lr * gradient / denominator)
        weight = 1.0 / step
        x_old = (variable - (1.0 - beta_1) * z_old) / beta_1
        x_new = (1.0 - weight) * x_old + weight * z
        variable.assign((1.0 - beta_1) * z + beta_1 * x_new)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "warmup_steps": self.warmup_steps,
        }
