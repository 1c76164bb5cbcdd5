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
    """Gradient descent (with momentum) optimizer.

    Update rule for parameter `w` with gradient `g` when `momentum` is 0::

        w = w - learning_rate * g

    Update rule when `momentum` is larger than 0::

        velocity = momentum * velocity - learning_rate * g
        w = w + velocity

    When `nesterov=True`, this rule becomes::

        velocity = momentum * velocity - learning_rate * g
        w = w + momentum * velocity - learning_rate * g

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.01`.
        momentum: `float` in `[0, 1]`, the hyperparameter that accelerates gradient
            descent in the relevant direction and dampens oscillations. 0 is vanilla
            gradient descent. Defaults to `0.0`.
        nesterov: `bool`, whether to apply Nesterov momentum. Defaults to `False`.
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
            Defaults to `"sgd"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `momentum` is not in
            `[0, 1]`, or `use_ema` is set with `ema_momentum` outside `[0, 1]`.

    Example:
        >>> optimizer = tfkit.optimizers.SGD(learning_rate=0.1, momentum=0.9)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.855, 2.29 ], dtype=float32)
        >>> int(optimizer.iterations)
        2
    """

    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False, **kwargs: Any) -> None:
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
    """Optimizer that implements the RMSprop algorithm.

    The gist of RMSprop is to:

    - maintain a moving (discounted) average of the square of gradients,
      `v = rho * v + (1 - rho) * g**2`;
    - divide the gradient by the root of this average:
      `w -= learning_rate * g / sqrt(v + epsilon)`.

    This implementation of RMSprop uses plain momentum, not Nesterov momentum: with
    `momentum > 0` the increments are accumulated, `m = momentum * m + increment;
    w -= m`. The centered version additionally maintains a moving average of the
    gradients, and uses that average to estimate the variance (subtracting its square
    inside the root).

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        rho: `float`, the discounting factor for the old gradients. Defaults to `0.9`.
        momentum: `float`. If not 0.0, the optimizer tracks the momentum value, with a
            decay rate equal to `1 - momentum`. Defaults to `0.0`.
        epsilon: A small constant for numerical stability, added inside the square root.
            Defaults to `1e-7`.
        centered: `bool`. If `True`, gradients are normalized by the estimated variance of
            the gradient; if `False`, by the uncentered second moment. Setting this to
            `True` may help with training, but is slightly more expensive in terms of
            computation and memory. Defaults to `False`.
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
            Defaults to `"rmsprop"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `use_ema` is set with
            `ema_momentum` outside `[0, 1]`.

    References:
        Hinton, 2012, lecture notes "Neural Networks for Machine Learning", lecture 6e.

    Example:
        >>> optimizer = tfkit.optimizers.RMSprop(learning_rate=0.1)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.6838, 2.3162], dtype=float32)
        >>> int(optimizer.iterations)
        1
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
        self._average_gradients = self.add_optimizer_variables(variables, "average_gradient") if self.centered else []

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
    """Optimizer that implements the Adagrad algorithm.

    Adagrad is an optimizer with parameter-specific learning rates, which are adapted
    relative to how frequently a parameter gets updated during training. The more
    updates a parameter receives, the smaller the updates::

        accumulator = accumulator + g**2
        w = w - learning_rate * g / sqrt(accumulator + epsilon)

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        initial_accumulator_value: Floating point value, the starting value of the
            accumulators (per-parameter momentum values). Must be non-negative.
            Defaults to `0.1`.
        epsilon: Small floating point value for maintaining numerical stability.
            Defaults to `1e-7`.
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
            Defaults to `"adagrad"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `use_ema` is set with
            `ema_momentum` outside `[0, 1]`.

    References:
        Duchi et al., 2011, "Adaptive Subgradient Methods for Online Learning and
        Stochastic Optimization".

    Example:
        >>> optimizer = tfkit.optimizers.Adagrad(learning_rate=0.1)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.9155, 2.0953], dtype=float32)
        >>> int(optimizer.iterations)
        1
    """

    def __init__(
        self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1, epsilon: float = 1e-7, **kwargs: Any
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
