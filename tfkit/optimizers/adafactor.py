"""Adafactor: Adam-like steps with the second moment of a matrix kept as row and column averages.

    optimizer = tfkit.optimizers.Adafactor(learning_rate=1e-2)
    optimizer.apply(grads, model.trainable_variables)
    optimizer.get_config()["beta_2_decay"]  # -0.8

Variables of rank >= 2 are factored over their last two axes (memory
``rows + cols`` instead of ``rows * cols``); smaller ones keep a full
second moment. Update rule, defaults and config follow Keras 3
(``keras/src/optimizers/adafactor.py``): the step size is
``min(lr, 1 / sqrt(t)) * max(epsilon_2, rms(w))`` and the update's RMS is
clipped to ``clip_threshold``.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers.base import Optimizer


def _rms(x: tf.Tensor) -> tf.Tensor:
    return tf.sqrt(tf.reduce_mean(tf.square(x)))


@registry.builtin("optimizers", "adafactor")
class Adafactor(Optimizer):
    """Optimizer that implements the Adafactor algorithm.

    Adafactor is commonly used in NLP tasks, and has the advantage of taking less
    memory because it only saves partial information of previous gradients: variables
    of rank 2 or more keep their second moment factored over their last two axes, as
    row and column averages (memory `rows + cols` instead of `rows * cols`); smaller
    ones keep a full second moment. At step `t`, `beta_2 = 1 - t**beta_2_decay`, the
    step size is `min(learning_rate, 1 / sqrt(t)) * max(epsilon_2, rms(w))`, and the
    update's RMS is clipped to `clip_threshold`. The update rule, defaults and config
    follow Keras 3.

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        beta_2_decay: `float`, the decay rate of `beta_2`. Defaults to `-0.8`.
        epsilon_1: `float`, a small offset added to the squared gradients to keep the
            denominator away from 0. Defaults to `1e-30`.
        epsilon_2: `float`, a small offset to avoid the learning rate becoming too small
            with time: the step size is at least `epsilon_2` times the learning rate.
            Defaults to `1e-3`.
        clip_threshold: Positive `float`, the clipping threshold of the update's root mean
            square. Defaults to `1.0`.
        relative_step: `bool`, kept in the config for Keras compatibility. The step size
            is `min(learning_rate, 1 / sqrt(t))` either way, as in Keras 3, where the
            learning rate is also capped at `1 / sqrt(t)`. Defaults to `True`.
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
        name: Optional `str`, the name of the optimizer (a `tf.Module` name).
            Defaults to `"adafactor"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `beta_2_decay`, `epsilon_1`,
            `epsilon_2` or `clip_threshold` is not a number (or `clip_threshold` is not
            positive), or `use_ema` is set with `ema_momentum` outside `[0, 1]`.

    References:
        Shazeer and Stern, 2018, "Adafactor: Adaptive Learning Rates with Sublinear
        Memory Cost".

    Example:
        >>> optimizer = tfkit.optimizers.Adafactor(learning_rate=0.1)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.8419, 2.1581], dtype=float32)
        >>> int(optimizer.iterations)
        1
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 1e-3,
        clip_threshold: float = 1.0,
        relative_step: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        numbers = {
            "beta_2_decay": beta_2_decay,
            "epsilon_1": epsilon_1,
            "epsilon_2": epsilon_2,
            "clip_threshold": clip_threshold,
        }
        for name, value in numbers.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"Adafactor: {name} must be a number, got {name}={value!r}")
        if clip_threshold <= 0:
            raise ValueError(f"Adafactor: clip_threshold must be > 0, got clip_threshold={clip_threshold!r}")
        self.beta_2_decay = float(beta_2_decay)
        self.epsilon_1 = float(epsilon_1)
        self.epsilon_2 = float(epsilon_2)
        self.clip_threshold = float(clip_threshold)
        self.relative_step = bool(relative_step)

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._r: list[tf.Variable | None] = []
        self._c: list[tf.Variable | None] = []
        self._v: list[tf.Variable] = []
        for variable in variables:
            shape = tuple(variable.shape)
            if len(shape) >= 2:
                label = variable.name.split(":")[0].replace("/", "_")
                self._r.append(self.add_variable(shape[:-1], variable.dtype, name=f"{label}_row_moment"))
                self._c.append(
                    self.add_variable(shape[:-2] + shape[-1:], variable.dtype, name=f"{label}_column_moment")
                )
            else:
                self._r.append(None)
                self._c.append(None)
            self._v.append(self.add_variable_from_reference(variable, "velocity"))

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        step = tf.cast(self.iterations + 1, dtype)
        index = self.variable_index(variable)
        r, c, v = self._r[index], self._c[index], self._v[index]
        # Keras 3 also takes min(lr, 1/sqrt(t)) first when relative_step; the result is the same.
        rho = tf.minimum(lr, 1.0 / tf.sqrt(step))
        alpha = tf.maximum(tf.cast(self.epsilon_2, dtype), _rms(variable)) * rho
        squared = tf.square(gradient) + self.epsilon_1
        beta_2 = 1.0 - tf.pow(step, self.beta_2_decay)
        if r is not None and c is not None:
            r.assign(beta_2 * r + (1.0 - beta_2) * tf.reduce_mean(squared, axis=-1))
            c.assign(beta_2 * c + (1.0 - beta_2) * tf.reduce_mean(squared, axis=-2))
            row_share = r / tf.reduce_mean(r, axis=-1, keepdims=True)
            v.assign(tf.expand_dims(row_share, -1) * tf.expand_dims(c, -2))
        else:
            v.assign(beta_2 * v + (1.0 - beta_2) * squared)
        u = gradient / tf.sqrt(v)
        u = u / tf.maximum(tf.ones((), dtype), _rms(u) / self.clip_threshold)
        variable.assign_sub(alpha * u)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_2_decay": self.beta_2_decay,
            "epsilon_1": self.epsilon_1,
            "epsilon_2": self.epsilon_2,
            "clip_threshold": self.clip_threshold,
            "relative_step": self.relative_step,
        }
