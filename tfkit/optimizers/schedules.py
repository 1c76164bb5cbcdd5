"""Learning-rate schedules: ``step -> learning rate``, evaluated by the optimizer each step.

    schedule = tfkit.optimizers.schedules.CosineDecay(0.0, 1000, warmup_target=1e-3, warmup_steps=100)
    optimizer = tfkit.optimizers.Adam(learning_rate=schedule)
    schedule(50)  # -> 5e-4, halfway through the warmup

Formulas and defaults follow Keras 3. Every schedule is plain tensor math
(no Python branching on the step), so it runs eagerly, in ``tf.function``
and under XLA.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import tensorflow as tf

from tfkit.base import registry


@registry.base("schedules")
class LearningRateSchedule:
    """Base class: implement ``__call__(step)`` and ``get_config()``.

        class Halving(LearningRateSchedule):
            def __call__(self, step): return 0.1 * 0.5 ** tf.cast(step // 100, tf.float32)
            def get_config(self): return {}
    """

    def __call__(self, step: Any) -> tf.Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(step)")

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement get_config() to be saved")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "LearningRateSchedule":
        return cls(**config)

    def __repr__(self) -> str:
        try:
            arguments = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        except NotImplementedError:
            arguments = ""
        return f"{type(self).__name__}({arguments})"


def _positive(schedule: str, name: str, value: Any) -> None:
    if not value > 0:
        raise ValueError(f"{schedule}: {name} must be > 0, got {value!r}")


@registry.builtin("schedules")
class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (floored with ``staircase``)."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        _positive("ExponentialDecay", "decay_steps", decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> tf.Tensor:
        initial = tf.convert_to_tensor(self.initial_learning_rate, tf.float32)
        progress = tf.cast(step, tf.float32) / tf.cast(self.decay_steps, tf.float32)
        if self.staircase:
            progress = tf.floor(progress)
        return initial * tf.pow(tf.cast(self.decay_rate, tf.float32), progress)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


@registry.builtin("schedules")
class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` for ``boundaries[i-1] < step <= boundaries[i]``,
    ``values[-1]`` after the last boundary."""

    def __init__(
        self, boundaries: Sequence[float], values: Sequence[float], name: str = "PiecewiseConstant"
    ) -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "PiecewiseConstantDecay: expected one more value than boundaries, got "
                f"{len(boundaries)} boundaries and {len(values)} values"
            )
        if list(boundaries) != sorted(boundaries):
            raise ValueError(f"PiecewiseConstantDecay: boundaries must increase, got {list(boundaries)}")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step: Any) -> tf.Tensor:
        step = tf.cast(step, tf.float64)
        boundaries = tf.constant(self.boundaries, tf.float64)
        values = tf.constant(self.values, tf.float32)
        # How many boundaries lie strictly below step: the index of the active value.
        position = tf.reduce_sum(tf.cast(step > boundaries, tf.int32))
        return tf.gather(values, position)

    def get_config(self) -> dict[str, Any]:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


@registry.builtin("schedules")
class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, step capped at ``decay_steps``.

    With ``cycle=True`` the decay restarts: ``decay_steps`` grows to the next multiple past ``step``.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        name: str = "PolynomialDecay",
    ) -> None:
        _positive("PolynomialDecay", "decay_steps", decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step: Any) -> tf.Tensor:
        initial = tf.convert_to_tensor(self.initial_learning_rate, tf.float32)
        end = tf.cast(self.end_learning_rate, tf.float32)
        step = tf.cast(step, tf.float32)
        decay_steps = tf.cast(self.decay_steps, tf.float32)
        if self.cycle:
            multiplier = tf.where(tf.equal(step, 0.0), 1.0, tf.math.ceil(step / decay_steps))
            decay_steps = decay_steps * multiplier
        else:
            step = tf.minimum(step, decay_steps)
        fraction = step / decay_steps
        return (initial - end) * tf.pow(1.0 - fraction, tf.cast(self.power, tf.float32)) + end

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


@registry.builtin("schedules")
class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (floored with ``staircase``)."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "InverseTimeDecay",
    ) -> None:
        _positive("InverseTimeDecay", "decay_steps", decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> tf.Tensor:
        initial = tf.convert_to_tensor(self.initial_learning_rate, tf.float32)
        progress = tf.cast(step, tf.float32) / tf.cast(self.decay_steps, tf.float32)
        if self.staircase:
            progress = tf.floor(progress)
        return initial / (1.0 + tf.cast(self.decay_rate, tf.float32) * progress)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


@registry.builtin("schedules")
class CosineDecay(LearningRateSchedule):
    """Optional linear warmup from ``initial_learning_rate`` to ``warmup_target`` over ``warmup_steps``,
    then a cosine from the peak down to ``alpha * peak`` over ``decay_steps``.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        alpha: float = 0.0,
        name: str = "CosineDecay",
        warmup_target: float | None = None,
        warmup_steps: int = 0,
    ) -> None:
        _positive("CosineDecay", "decay_steps", decay_steps)
        if warmup_steps < 0:
            raise ValueError(f"CosineDecay: warmup_steps must be >= 0, got {warmup_steps!r}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _cosine(self, step: tf.Tensor, peak: tf.Tensor) -> tf.Tensor:
        fraction = step / tf.cast(self.decay_steps, tf.float32)
        cosine = 0.5 * (1.0 + tf.cos(math.pi * fraction))
        return peak * ((1.0 - self.alpha) * cosine + self.alpha)

    def __call__(self, step: Any) -> tf.Tensor:
        initial = tf.convert_to_tensor(self.initial_learning_rate, tf.float32)
        step = tf.cast(step, tf.float32)
        decay_steps = tf.cast(self.decay_steps, tf.float32)
        if self.warmup_target is None:
            return self._cosine(tf.minimum(step, decay_steps), initial)
        target = tf.cast(self.warmup_target, tf.float32)
        warmup_steps = tf.cast(self.warmup_steps, tf.float32)
        step = tf.minimum(step, decay_steps + warmup_steps)
        # max(warmup_steps, 1) keeps the unused branch finite when there is no warmup.
        warmup = initial + (target - initial) * step / tf.maximum(warmup_steps, 1.0)
        return tf.where(step < warmup_steps, warmup, self._cosine(step - warmup_steps, target))

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


@registry.builtin("schedules")
class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): period ``i`` lasts ``first_decay_steps * t_mul ** i``
    steps and starts from ``initial_learning_rate * m_mul ** i``; each decays to ``alpha`` times its start.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        first_decay_steps: int,
        t_mul: float = 2.0,
        m_mul: float = 1.0,
        alpha: float = 0.0,
        name: str = "SGDRDecay",
    ) -> None:
        _positive("CosineDecayRestarts", "first_decay_steps", first_decay_steps)
        _positive("CosineDecayRestarts", "t_mul", t_mul)
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step: Any) -> tf.Tensor:
        initial = tf.convert_to_tensor(self.initial_learning_rate, tf.float32)
        t_mul = tf.cast(self._t_mul, tf.float32)
        fraction = tf.cast(step, tf.float32) / tf.cast(self.first_decay_steps, tf.float32)
        if self._t_mul == 1.0:
            restart = tf.floor(fraction)
            fraction = fraction - restart
        else:
            # Periods grow geometrically: find the period the step falls in, then the fraction through it.
            restart = tf.floor(tf.math.log(1.0 - fraction * (1.0 - t_mul)) / tf.math.log(t_mul))
            elapsed = (1.0 - tf.pow(t_mul, restart)) / (1.0 - t_mul)
            fraction = (fraction - elapsed) / tf.pow(t_mul, restart)
        cosine = 0.5 * tf.pow(tf.cast(self._m_mul, tf.float32), restart) * (1.0 + tf.cos(math.pi * fraction))
        alpha = tf.cast(self.alpha, tf.float32)
        return initial * ((1.0 - alpha) * cosine + alpha)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self._t_mul,
            "m_mul": self._m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict[str, Any]:
    """``{"class_name": ..., "config": ...}`` for a schedule."""
    return registry.to_config("schedules", learning_rate_schedule)


def deserialize(config: Mapping[str, Any] | str, custom_objects: Mapping[str, Any] | None = None) -> LearningRateSchedule:
    """Inverse of ``serialize``."""
    schedule = registry.resolve("schedules", config, custom_objects)
    if not isinstance(schedule, LearningRateSchedule):
        raise ValueError(f"{config!r} does not describe a learning-rate schedule; it gave {schedule!r}")
    return schedule
