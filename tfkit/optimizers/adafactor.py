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
    """Factored second moments; ``beta_2`` at step ``t`` is ``1 - t ** beta_2_decay``."""

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
        numbers = {"beta_2_decay": beta_2_decay, "epsilon_1": epsilon_1, "epsilon_2": epsilon_2,
                   "clip_threshold": clip_threshold}
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
                self._c.append(self.add_variable(shape[:-2] + shape[-1:], variable.dtype, name=f"{label}_column_moment"))
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
