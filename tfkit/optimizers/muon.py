"""Muon: momentum orthogonalized by Newton-Schulz for matrices, AdamW for everything else (Keras 3).

    optimizer = tfkit.optimizers.Muon(learning_rate=1e-3, exclude_layers=["output_dense"])
    optimizer.apply(grads, model.trainable_variables)
    optimizer.get_config()["ns_steps"]  # 5

Which variables take the AdamW step follows Keras 3 (``keras/src/optimizers/muon.py``):
any variable that is not 2-D, any whose path contains "embedding" (with
``exclude_embeddings=True``) and any whose path matches one of the regular
expressions in ``exclude_layers``. A tfkit variable's path is its name without
the ``:0`` suffix (``encoder/dense/kernel``).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers.base import Optimizer, _variable_key
from tfkit.optimizers.variable_path import variable_path


def _swap_last_axes(x: tf.Tensor) -> tf.Tensor:
    rank = len(x.shape)
    order = list(range(rank - 2)) + [rank - 1, rank - 2]
    return tf.transpose(x, order)


def newton_schulz(x: tf.Tensor, steps: int, a: float, b: float, c: float) -> tf.Tensor:
    """The quintic Newton-Schulz iteration toward the orthogonal factor ``U V^T`` of ``x``'s SVD.

    ``x`` is scaled to a Frobenius norm of at most 1 first; a tall matrix is
    iterated transposed (``x x^T`` is then the smaller product) and transposed back.
    """
    shape = x.shape
    if shape.rank is None or shape.rank < 2:
        raise ValueError(f"Muon: Newton-Schulz needs a gradient of rank >= 2, got shape {shape}")
    tall = shape[-2] > shape[-1]
    if tall:
        x = _swap_last_axes(x)
    x = x / (tf.norm(x, ord="fro", axis=(-2, -1), keepdims=True) + 1e-7)
    for _ in range(steps):
        gram = x @ _swap_last_axes(x)
        poly = b * gram + c * gram @ gram
        x = a * x + poly @ x
    return _swap_last_axes(x) if tall else x


@registry.builtin("optimizers", "muon")
class Muon(Optimizer):
    """Optimizer that implements the Muon algorithm.

    Muon ("MomentUm Orthogonalized by Newton-Schulz") updates 2D weights with their
    momentum orthogonalized by a few Newton-Schulz iterations
    (`w -= learning_rate * adjust(NS(nesterov(m)))`), and uses AdamW for every other
    variable. Which variables take the AdamW step follows Keras 3: any variable that is
    not 2D, any whose path contains "embedding" (with `exclude_embeddings=True`) and
    any whose path matches one of the regular expressions in `exclude_layers`. A tfkit
    variable's path is its name without the `:0` suffix (`encoder/dense/kernel`);
    `optimizer.uses_adamw(variable)` tells which step a variable takes.

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value to
            use. The learning rate. A float is kept in a variable, so it can be changed later
            (`optimizer.learning_rate = 0.01`). Defaults to `0.001`.
            The AdamW step uses `learning_rate * adam_lr_ratio`.
        adam_beta_1: `float` in `[0, 1]`, the exponential decay rate for the 1st moment
            estimates of the AdamW variables. Defaults to `0.9`.
        adam_beta_2: `float` in `[0, 1]`, the exponential decay rate for the 2nd moment
            estimates of the AdamW variables. Defaults to `0.999`.
        adam_weight_decay: Optional `float`, the decoupled weight decay of the AdamW
            variables. Defaults to `0.004`.
        epsilon: A small constant for numerical stability of the AdamW step.
            Defaults to `1e-7`.
        weight_decay: Optional `float`, the decoupled weight decay of the Muon variables.
            Variables passed to `exclude_from_weight_decay` are not decayed at all.
            Defaults to `0.004`.
        exclude_layers: Optional list of regular expressions (not a single string); a
            variable whose path matches one (`re.search`) takes the AdamW step.
            Defaults to `None`.
        exclude_embeddings: `bool`, whether variables whose path contains "embedding"
            take the AdamW step. Defaults to `True`.
        muon_a: `float`, the first coefficient of the Newton-Schulz polynomial.
            Defaults to `3.4445`.
        muon_b: `float`, the second coefficient of the Newton-Schulz polynomial.
            Defaults to `-4.7750`.
        muon_c: `float`, the third coefficient of the Newton-Schulz polynomial.
            Defaults to `2.0315`.
        adam_lr_ratio: `float`, the AdamW learning rate relative to `learning_rate`.
            Defaults to `1`.
        momentum: `float` in `[0, 1]`, the momentum of the Muon step. Defaults to `0.95`.
        ns_steps: `int` >= 0, the number of Newton-Schulz iterations. Defaults to `5`.
        nesterov: `bool`, whether to use Nesterov-style momentum in the Muon step.
            Defaults to `True`.
        rms_rate: Optional `float`. The Muon update is scaled by
            `sqrt(max(rows, cols)) * rms_rate`, to match the update RMS of AdamW; `None`
            turns the scaling off. Defaults to `0.2`.
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
            Defaults to `"muon"`.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, or `adam_beta_1`, `adam_beta_2`
            or `momentum` is not in `[0, 1]`, `ns_steps` is not an `int` >= 0, `exclude_layers`
            is a string or holds an invalid regular expression, or `use_ema` is set with
            `ema_momentum` outside `[0, 1]`.

    References:
        Jordan et al., 2024, "Muon: An optimizer for hidden layers in neural networks";
        Liu et al., 2025, "Muon is Scalable for LLM Training" (for `rms_rate`).

    Example:
        >>> optimizer = tfkit.optimizers.Muon(learning_rate=0.01)
        >>> kernel = tf.Variable(np.ones((3, 2), "float32"), name="kernel")
        >>> bias = tf.Variable(np.zeros(2, "float32"), name="bias")
        >>> optimizer.uses_adamw(kernel), optimizer.uses_adamw(bias)
        (False, True)
        >>> _ = optimizer.apply([tf.ones((3, 2)), tf.ones(2)], [kernel, bias])
        >>> kernel.shape, np.round(bias.numpy(), 4)
        (TensorShape([3, 2]), array([-0.01, -0.01], dtype=float32))
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        adam_beta_1: float = 0.9,
        adam_beta_2: float = 0.999,
        adam_weight_decay: float | None = 0.004,
        epsilon: float = 1e-7,
        weight_decay: float | None = 0.004,
        exclude_layers: Sequence[str] | None = None,
        exclude_embeddings: bool = True,
        muon_a: float = 3.4445,
        muon_b: float = -4.7750,
        muon_c: float = 2.0315,
        adam_lr_ratio: float = 1,
        momentum: float = 0.95,
        ns_steps: int = 5,
        nesterov: bool = True,
        rms_rate: float | None = 0.2,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay, **kwargs)
        for name, value in (("adam_beta_1", adam_beta_1), ("adam_beta_2", adam_beta_2), ("momentum", momentum)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"Muon: {name} must be a float in [0, 1], got {name}={value!r}")
        if isinstance(ns_steps, bool) or not isinstance(ns_steps, int) or ns_steps < 0:
            raise ValueError(f"Muon: ns_steps must be an int >= 0, got ns_steps={ns_steps!r}")
        if isinstance(exclude_layers, str):
            raise ValueError(f"Muon: exclude_layers must be a list of patterns, got the string {exclude_layers!r}")
        patterns = list(exclude_layers or [])
        for pattern in patterns:
            try:
                re.compile(pattern)
            except (re.error, TypeError) as error:
                raise ValueError(
                    f"Muon: exclude_layers holds {pattern!r}, not a regular expression ({error})"
                ) from None
        self.adam_beta_1 = adam_beta_1
        self.adam_beta_2 = adam_beta_2
        self.epsilon = epsilon
        self.muon_a = muon_a
        self.muon_b = muon_b
        self.muon_c = muon_c
        self.adam_lr_ratio = adam_lr_ratio
        self.momentum = momentum
        self.ns_steps = ns_steps
        self.nesterov = bool(nesterov)
        self.exclude_embeddings = bool(exclude_embeddings)
        self.exclude_layers = patterns
        self.adam_weight_decay = None if adam_weight_decay is None else float(adam_weight_decay)
        self.rms_rate = rms_rate

    def uses_adamw(self, variable: Any) -> bool:
        """Whether ``variable`` takes the AdamW step (not 2-D, an embedding, or matched by ``exclude_layers``)."""
        if len(variable.shape) != 2:
            return True
        path = variable_path(variable)
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(pattern, path) for pattern in self.exclude_layers)

    def _decays(self, variable: Any) -> bool:
        return False  # Muon decays each variable itself, with the rate of its kind (update_step)

    def _decay_rate(self, variable: Any) -> float | None:
        state = self._state
        if _variable_key(variable) in state.exclude_keys:
            return None
        pattern = state.exclude_pattern
        if pattern is not None and pattern.search(getattr(variable, "name", "")) is not None:
            return None
        return self.adam_weight_decay if self.uses_adamw(variable) else self.weight_decay

    def build(self, variables: Sequence[Any]) -> None:
        if self.built:
            return
        super().build(variables)
        self._adamw: list[bool] = []
        self._decay_rates: list[float | None] = []
        self._momentums: list[tf.Variable] = []
        self._velocities: list[tf.Variable | None] = []
        for variable in variables:
            adamw = self.uses_adamw(variable)
            self._adamw.append(adamw)
            self._decay_rates.append(self._decay_rate(variable))
            self._momentums.append(self.add_variable_from_reference(variable, "momentum"))
            self._velocities.append(self.add_variable_from_reference(variable, "velocity") if adamw else None)

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        index = self.variable_index(variable)
        dtype = variable.dtype
        rate = self._decay_rates[index]
        if rate is not None:
            variable.assign_sub(variable * tf.cast(rate, dtype) * tf.cast(learning_rate, dtype))
        if self._adamw[index]:
            self._adamw_step(gradient, variable, learning_rate * self.adam_lr_ratio, index)
        else:
            self._muon_step(gradient, variable, learning_rate, index)

    def _muon_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any, index: int) -> None:
        dtype = variable.dtype
        m = self._momentums[index]
        momentum = tf.cast(self.momentum, dtype)
        m.assign_add(gradient + m * (momentum - 1.0))
        direction = gradient + momentum * m if self.nesterov else tf.convert_to_tensor(m)
        update = tf.cast(learning_rate, dtype) * newton_schulz(
            direction, self.ns_steps, self.muon_a, self.muon_b, self.muon_c
        )
        if self.rms_rate is not None:
            rows, cols = variable.shape
            update = update * (float(max(rows, cols)) ** 0.5 * self.rms_rate)
        variable.assign_sub(update)

    def _adamw_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any, index: int) -> None:
        dtype = variable.dtype

        def step_size() -> tf.Tensor:
            step = tf.cast(self.iterations + 1, dtype)
            beta_1_power = tf.pow(tf.cast(self.adam_beta_1, dtype), step)
            beta_2_power = tf.pow(tf.cast(self.adam_beta_2, dtype), step)
            return tf.cast(learning_rate, dtype) * tf.sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power)

        alpha = self.once_per_step(("muon_adam_alpha", dtype), step_size)
        m = self._momentums[index]
        v = self._velocities[index]
        m.assign_add((gradient - m) * (1.0 - self.adam_beta_1))
        v.assign_add((tf.square(gradient) - v) * (1.0 - self.adam_beta_2))
        variable.assign_sub(m * alpha / (tf.sqrt(v) + self.epsilon))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "adam_beta_1": self.adam_beta_1,
            "adam_beta_2": self.adam_beta_2,
            "epsilon": self.epsilon,
            "exclude_layers": list(self.exclude_layers),
            "muon_a": self.muon_a,
            "muon_b": self.muon_b,
            "muon_c": self.muon_c,
            "adam_lr_ratio": self.adam_lr_ratio,
            "momentum": self.momentum,
            "ns_steps": self.ns_steps,
            "nesterov": self.nesterov,
            "exclude_embeddings": self.exclude_embeddings,
            "adam_weight_decay": self.adam_weight_decay,
            "rms_rate": self.rms_rate,
        }
