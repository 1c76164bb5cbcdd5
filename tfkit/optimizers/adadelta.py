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
    """Optimizer that implements the Adadelta algorithm.

    Adadelta optimization is a stochastic gradient descent method that is based on
    adaptive learning rate per dimension to address two drawbacks: the continual decay
    of learning rates throughout training, and the need for a manually selected global
    learning rate. Adadelta is a more robust extension of Adagrad that adapts learning
    rates based on a moving window of gradient updates, instead of accumulating all
    past gradients. This way, Adadelta continues learning even when many updates have
    been done. Note that in the original version of Adadelta you don't have to set an
    initial learning rate; in this version (Keras's), the learning rate scales the
    step, and `learning_rate=1.0` gives the original::

        a = rho * a + (1 - rho) * g**2
        delta = -sqrt(u + epsilon) / sqrt(a + epsilon) * g
        u = rho * u + (1 - rho) * delta**2
        w = w + learning_rate * delta

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        rho: A floating point value in `[0, 1]`, the decay rate. Defaults to `0.95`.
        epsilon: Small non-negative floating point value used to maintain numerical
            stability. Defaults to `1e-7`.
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
            Defaults to `"adadelta"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `rho` is not in `[0, 1]`,
            `epsilon` is negative, or `use_ema` is set with `ema_momentum` outside `[0, 1]`.

    References:
        Zeiler, 2012, "ADADELTA: An Adaptive Learning Rate Method".

    Example:
        >>> optimizer = tfkit.optimizers.Adadelta(learning_rate=1.0)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.9986, 2.0014], dtype=float32)
        >>> int(optimizer.iterations)
        1
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
