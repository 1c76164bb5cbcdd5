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
    """Optimizer that implements the Schedule-Free AdamW algorithm.

    Schedule-free learning (Defazio et al., 2024) replaces the learning rate schedule
    by interpolation and averaging, so that no schedule (and no knowledge of the total
    number of steps) is needed. Each variable holds `y`, the point gradients are taken
    at. The slot `momentum` holds `z`, where the Adam-scaled gradient steps go (it
    starts as a copy of the variable), and the average `x` is recovered from `y` and
    `z`::

        x_old = (y - (1 - beta_1) * z_old) / beta_1
        x = (1 - 1 / t) * x_old + z / t
        y = (1 - beta_1) * z + beta_1 * x

    Formulas and defaults are Keras 3's.

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.0025`.
        beta_1: `float` in `(0, 1]`, the interpolation between `z` and `x` (`x` is
            recovered by dividing by it). Defaults to `0.9`.
        beta_2: `float` in `[0, 1)`, the decay of the running mean of squared gradients.
            Defaults to `0.999`.
        epsilon: A small constant added to the denominator. Defaults to `1e-8`.
        warmup_steps: `int` >= 0. The learning rate grows linearly from
            `learning_rate / warmup_steps` to `learning_rate` over these steps; 0 turns the
            warmup off. Defaults to `0`.
        name: Optional `str`, the name of the optimizer. Defaults to `None`, which gives
            `"schedule_free_adam_w"`.
        **kwargs: The base optimizer keyword arguments below, shared by every optimizer
            (see `Optimizer`).
        weight_decay: Optional `float`. If set, decoupled weight decay is applied: before
            each update, `variable -= variable * learning_rate * weight_decay` (skipped for
            variables passed to `exclude_from_weight_decay`). Defaults to `None`.
        clipnorm: Optional positive `float`. If set, the gradient of each weight is
            individually clipped so that its norm is no higher than this value.
            Defaults to `None`.
        clipvalue: Optional positive `float`. If set, the gradient of each weight is
            clipped to be no higher than this value (and no lower than its negative).
            Defaults to `None`.
        global_clipnorm: Optional positive `float`. If set, the gradients of all weights
            are clipped so that their global norm is no higher than this value. At most one
            of `clipnorm`, `clipvalue` and `global_clipnorm` may be set. Defaults to `None`.
        use_ema: `bool`. If `True`, an exponential moving average (EMA) of the model's
            weights is kept: after each update, `average = ema_momentum * average +
            (1 - ema_momentum) * variable` (the first update copies the variable).
            Defaults to `False`.
        ema_momentum: `float` in `[0, 1]`, only used if `use_ema=True`: the momentum of
            the moving average. Defaults to `0.99`.
        ema_overwrite_frequency: Optional `int` >= 1, only used if `use_ema=True`. Every
            `ema_overwrite_frequency` steps, the model variables are overwritten by their
            moving averages. If `None`, the variables are not overwritten during training;
            call `optimizer.finalize_variable_values(variables)` to copy the averages in at
            the end (the built-in `fit()` does this after the last epoch).
            Defaults to `None`.
        loss_scale_factor: Optional `float`. If set, `scale_loss(loss)` multiplies the loss
            by this factor before computing gradients, and the gradients are divided by it
            before updating variables: useful to prevent underflow in mixed precision
            training. `LossScaleOptimizer` chooses a dynamic scale for you instead.
            Defaults to `None`.
        gradient_accumulation_steps: Optional `int` >= 2. If set, model and optimizer
            variables are not updated at every step; instead they are updated every
            `gradient_accumulation_steps` steps, using the average of the gradients since
            the last update (clipped then). `iterations` and the EMA count these updates,
            while learning rate schedules see every step. Useful when the batch size is very
            small, to reduce gradient noise at each update. Defaults to `None`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `beta_1` is not in `(0, 1]`,
            `beta_2` is not in `[0, 1)`, `warmup_steps` is not an `int` >= 0, or `use_ema` is
            set with `ema_momentum` outside `[0, 1]`.

    References:
        Defazio et al., 2024, "The Road Less Scheduled".

    Example:
        >>> optimizer = tfkit.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.9, 2.1], dtype=float32)
        >>> int(optimizer.iterations)
        1
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
            raise ValueError(
                f"ScheduleFreeAdamW: beta_1 must be a float in (0, 1] (x is recovered by dividing "
                f"by it), got beta_1={beta_1!r}"
            )
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
