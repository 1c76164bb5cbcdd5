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
    """Optimizer that implements the FTRL algorithm.

    "Follow The Regularized Leader" (FTRL) is an optimization algorithm developed at
    Google for click-through rate prediction in the early 2010s. It is most suitable
    for shallow models with large and sparse feature spaces. The algorithm is described
    by McMahan et al., 2013. This version supports both shrinkage-type L2
    regularization (which is the addition of an L2 penalty to the loss function) and
    online L2 regularization (the L2 penalty given in the paper). With
    `p = -learning_rate_power`, per coordinate::

        n_new = n + g**2
        z = z + g + 2 * l2_shrinkage * w - (n_new**p - n**p) / learning_rate * w
        w = (clip(z, -l1, l1) - z) / (n_new**p / learning_rate + 2 * (l2 + beta / (2 * learning_rate)))
        n = n_new

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
        learning_rate_power: A float value, must be less or equal to zero. Controls how
            the learning rate decreases during training. Use zero for a fixed learning
            rate. Defaults to `-0.5`.
        initial_accumulator_value: The starting value for the accumulators. Only zero or
            positive values are allowed. Defaults to `0.1`.
        l1_regularization_strength: A float value, must be greater than or equal to zero.
            Defaults to `0.0`.
        l2_regularization_strength: A float value, must be greater than or equal to zero.
            Defaults to `0.0`.
        l2_shrinkage_regularization_strength: A float value, must be greater than or equal
            to zero. This differs from L2 above in that the L2 above is a stabilization
            penalty, whereas this L2 shrinkage is a magnitude penalty. When input is
            sparse, shrinkage will only happen on the active weights. Defaults to `0.0`.
        beta: A float value, representing the beta value from the paper (added to the L2
            regularization as `beta / (2 * learning_rate)`). Defaults to `0.0`.
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
            Defaults to `"ftrl"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `learning_rate_power` is
            positive, one of the accumulator and regularization arguments is negative, one of
            them or `beta` is not a number, or `use_ema` is set with `ema_momentum` outside
            `[0, 1]`.

    References:
        McMahan et al., 2013, "Ad Click Prediction: a View from the Trenches".

    Example:
        >>> optimizer = tfkit.optimizers.Ftrl(learning_rate=0.1)
        >>> var = tf.Variable([1.0, 2.0])
        >>> g = tf.constant([0.5, -1.0])
        >>> _ = optimizer.apply([g], [var])
        >>> np.round(var.numpy(), 4)
        array([0.381 , 1.4923], dtype=float32)
        >>> int(optimizer.iterations)
        1
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
