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
    """Optimizer that implements the Adam algorithm.

    Adam optimization is a stochastic gradient descent method that is based on
    adaptive estimation of first-order and second-order moments. According to
    Kingma et al., 2014, the method is "computationally efficient, has little memory
    requirement, invariant to diagonal rescaling of gradients, and is well suited for
    problems that are large in terms of data/parameters". With `m` and `v` the running
    means of `g` and `g**2` and `t` the step number (from 1)::

        m = beta_1 * m + (1 - beta_1) * g
        v = beta_2 * v + (1 - beta_2) * g**2
        w = w - learning_rate * sqrt(1 - beta_2**t) / (1 - beta_1**t) * m / (sqrt(v) + epsilon)

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        beta_1: A float value, the exponential decay rate for the 1st moment estimates.
            Defaults to `0.9`.
        beta_2: A float value, the exponential decay rate for the 2nd moment estimates.
            Defaults to `0.999`.
        epsilon: A small constant for numerical stability. This epsilon is "epsilon hat"
            in the Kingma and Ba paper (in the formula just before Section 2.1), not the
            epsilon in Algorithm 1 of the paper. Defaults to `1e-7`.
        amsgrad: `bool`. Whether to apply the AMSGrad variant of this algorithm from the
            paper "On the Convergence of Adam and Beyond": the running maximum of `v` is
            used. Defaults to `False`.
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
            Defaults to `"adam"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `use_ema` is set with
            `ema_momentum` outside `[0, 1]`.

    References:
        Kingma et al., 2014, "Adam: A Method for Stochastic Optimization";
        Reddi et al., 2018, "On the Convergence of Adam and Beyond" (for `amsgrad`).

    Example:
        >>> optimizer = tfkit.optimizers.Adam(learning_rate=0.1)
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

        def powers() -> tuple[tf.Tensor, tf.Tensor]:  # shared by the fused and the written-out updates
            return self.once_per_step(("adam_powers", dtype), lambda: _powers(self, dtype))

        def step_size() -> tf.Tensor:
            beta_1_power, beta_2_power = powers()
            return tf.cast(learning_rate, dtype) * tf.sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power)

        index = self.variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        if not self.amsgrad and fused_kernels.fusable(variable, m, v) and fused_kernels.adam_pays(variable):
            beta_1_power, beta_2_power = powers()
            fused_kernels.apply_adam(
                variable,
                m,
                v,
                gradient,
                beta_1_power,
                beta_2_power,
                learning_rate,
                self.beta_1,
                self.beta_2,
                self.epsilon,
            )
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
    """Optimizer that implements the AdamW algorithm.

    AdamW optimization is a stochastic gradient descent method that is based on
    adaptive estimation of first-order and second-order moments with an added method
    to decay weights per the techniques discussed in the paper, "Decoupled Weight Decay
    Regularization" by Loshchilov, Hutter et al., 2019: before each Adam step,
    `w -= learning_rate * weight_decay * w`. Use `exclude_from_weight_decay` to skip
    some variables (biases, normalization scales). The Adam step is that of `Adam`.

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        weight_decay: `float`, the decoupled weight decay rate (not `None`: use `Adam` for
            no decay). Defaults to `0.004`.
        beta_1: A float value, the exponential decay rate for the 1st moment estimates.
            Defaults to `0.9`.
        beta_2: A float value, the exponential decay rate for the 2nd moment estimates.
            Defaults to `0.999`.
        epsilon: A small constant for numerical stability. This epsilon is "epsilon hat"
            in the Kingma and Ba paper (in the formula just before Section 2.1), not the
            epsilon in Algorithm 1 of the paper. Defaults to `1e-7`.
        amsgrad: `bool`. Whether to apply the AMSGrad variant of this algorithm from the
            paper "On the Convergence of Adam and Beyond". Defaults to `False`.
        **kwargs: The base optimizer keyword arguments below, shared by every optimizer
            (see `Optimizer`).
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
            Defaults to `"adamw"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `weight_decay` is `None`, or
            `use_ema` is set with `ema_momentum` outside `[0, 1]`.

    References:
        Loshchilov et al., 2019, "Decoupled Weight Decay Regularization";
        Kingma et al., 2014, "Adam: A Method for Stochastic Optimization".

    Example:
        >>> optimizer = tfkit.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
        >>> optimizer.exclude_from_weight_decay(var_names=["bias"])
        >>> kernel, bias = tf.Variable([1.0], name="kernel"), tf.Variable([1.0], name="bias")
        >>> _ = optimizer.apply([tf.constant([0.0]), tf.constant([0.0])], [kernel, bias])
        >>> np.round(kernel.numpy(), 4), np.round(bias.numpy(), 4)
        (array([0.95], dtype=float32), array([1.], dtype=float32))
    """

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
            learning_rate=learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=epsilon,
            amsgrad=amsgrad,
            weight_decay=weight_decay,
            **kwargs,
        )


@registry.builtin("optimizers", "adamax")
class Adamax(Optimizer):
    """Optimizer that implements the Adamax algorithm.

    Adamax, a variant of Adam based on the infinity norm, is a first-order
    gradient-based optimization method. Due to its capability of adjusting the learning
    rate based on data characteristics, it is suited to learn time-variant processes,
    e.g., speech data with dynamically changed noise conditions. Default parameters
    follow those provided in the paper (see references below). With `t` the step
    number (from 1)::

        m = beta_1 * m + (1 - beta_1) * g
        u = max(beta_2 * u, abs(g))
        w = w - learning_rate * m / ((1 - beta_1**t) * (u + epsilon))

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        beta_1: A float value, the exponential decay rate for the 1st moment estimates.
            Defaults to `0.9`.
        beta_2: A float value, the exponential decay rate for the exponentially weighted
            infinity norm. Defaults to `0.999`.
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
            Defaults to `"adamax"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `use_ema` is set with
            `ema_momentum` outside `[0, 1]`.

    References:
        Kingma et al., 2014, "Adam: A Method for Stochastic Optimization", section 7.1.

    Example:
        >>> optimizer = tfkit.optimizers.Adamax(learning_rate=0.1)
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
    """Optimizer that implements the Nadam algorithm.

    Much like Adam is essentially RMSprop with momentum, Nadam is Adam with Nesterov
    momentum. The momentum follows the schedule `u_t = beta_1 * (1 - 0.5 * 0.96**t)`,
    as in Keras 3.

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        beta_1: A float value, the exponential decay rate for the 1st moment estimates.
            Defaults to `0.9`.
        beta_2: A float value, the exponential decay rate for the 2nd moment estimates.
            Defaults to `0.999`.
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
            Defaults to `"nadam"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `use_ema` is set with
            `ema_momentum` outside `[0, 1]`.

    References:
        Dozat, 2015, "Incorporating Nesterov Momentum into Adam".

    Example:
        >>> optimizer = tfkit.optimizers.Nadam(learning_rate=0.1)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.8937, 2.1063], dtype=float32)
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
    """Optimizer that implements the Lion algorithm.

    The Lion optimizer is a stochastic-gradient-descent method that uses the sign
    operator to control the magnitude of the update, unlike other adaptive optimizers
    such as Adam that rely on second-order moments. This makes Lion more
    memory-efficient as it only keeps track of the momentum. According to the authors
    (see reference), its performance gain over Adam grows with the batch size. Because
    the update of Lion is produced through the sign operation, resulting in a larger
    norm, a suitable learning rate for Lion is typically 3-10x smaller than that for
    AdamW. The weight decay for Lion should in turn be 3-10x larger than that for
    AdamW to maintain a similar strength (`lr * wd`). The update rule is::

        w = w - learning_rate * sign(beta_1 * m + (1 - beta_1) * g)
        m = beta_2 * m + (1 - beta_2) * g

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        beta_1: A float value in `(0, 1]`, the rate to combine the current gradient and
            the 1st moment estimate. Defaults to `0.9`.
        beta_2: A float value, the exponential decay rate for the 1st moment estimate.
            Defaults to `0.99`.
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
            Defaults to `"lion"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `beta_1` is not in `(0, 1]`,
            or `use_ema` is set with `ema_momentum` outside `[0, 1]`.

    References:
        Chen et al., 2023, "Symbolic Discovery of Optimization Algorithms".

    Example:
        >>> optimizer = tfkit.optimizers.Lion(learning_rate=0.1)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.9, 2.1], dtype=float32)
        >>> int(optimizer.iterations)
        1
    """

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.99, **kwargs: Any) -> None:
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
