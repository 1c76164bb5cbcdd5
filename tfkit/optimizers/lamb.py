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
    """Optimizer that implements the Lamb algorithm.

    Lamb is a stochastic gradient descent method that uses layer-wise adaptive moments
    to adjust the learning rate for each parameter based on the ratio of the norm of
    the weight to the norm of the gradient. This helps to stabilize the training
    process and improves convergence, especially for large batch sizes. The Adam
    update `u = m_hat / (sqrt(v_hat) + epsilon)` is rescaled per variable by the trust
    ratio `r = norm(w) / norm(u)` (1 when either norm is 0): `w -= r * learning_rate * u`.

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        beta_1: A float value in `[0, 1)`, the exponential decay rate for the 1st moment
            estimates. Defaults to `0.9`.
        beta_2: A float value in `[0, 1)`, the exponential decay rate for the 2nd moment
            estimates. Defaults to `0.999`.
        epsilon: A small constant for numerical stability. Defaults to `1e-7`.
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
            Defaults to `"lamb"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `beta_1` or `beta_2` is not
            in `[0, 1)`, or `use_ema` is set with `ema_momentum` outside `[0, 1]`.

    References:
        You et al., 2020, "Large Batch Optimization for Deep Learning: Training BERT in
        76 minutes".

    Example:
        >>> optimizer = tfkit.optimizers.Lamb(learning_rate=0.1)
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
