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
    """The learning rate schedule base class.

    You can use a learning rate schedule to modulate how the learning rate of your
    optimizer changes over time: pass an instance as an optimizer's `learning_rate`,
    and the optimizer calls it with its step counter at every step. Several built-in
    learning rate schedules are available, such as `ExponentialDecay` or
    `PiecewiseConstantDecay`. A custom learning rate schedule can be implemented by
    subclassing `LearningRateSchedule` and implementing `__call__(step)`, which takes a
    step value and returns the learning rate, and `get_config()`, which returns the
    arguments to rebuild it (`from_config` is `cls(**config)`) and is needed to save
    it. The built-in schedules are plain tensor math (no Python branching on the
    step), so they run eagerly, in `tf.function` and under XLA.

    Example:
        >>> class MyLRSchedule(tfkit.optimizers.schedules.LearningRateSchedule):
        ...     def __init__(self, initial_learning_rate):
        ...         self.initial_learning_rate = initial_learning_rate
        ...     def __call__(self, step):
        ...         return self.initial_learning_rate / tf.cast(step + 1, "float32")
        ...     def get_config(self):
        ...         return {"initial_learning_rate": self.initial_learning_rate}
        >>> schedule = MyLRSchedule(0.1)
        >>> round(float(schedule(3)), 4)
        0.025
        >>> optimizer = tfkit.optimizers.SGD(learning_rate=schedule)
        >>> round(float(optimizer.learning_rate), 4)
        0.1
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
    """A `LearningRateSchedule` that uses an exponential decay schedule.

    When training a model, it is often useful to lower the learning rate as the
    training progresses. This schedule applies an exponential decay function to an
    optimizer step, given a provided initial learning rate::

        initial_learning_rate * decay_rate ** (step / decay_steps)

    If the argument `staircase` is `True`, then `step / decay_steps` is an integer
    division and the decayed learning rate follows a staircase function.

    Args:
        initial_learning_rate: A Python `float`, the initial learning rate.
        decay_steps: A positive number, the decay period in steps (see above).
        decay_rate: A Python `float`, the decay rate.
        staircase: `bool`. If `True`, decay the learning rate at discrete intervals.
            Defaults to `False`.
        name: `str`, an optional name for the schedule, kept in its config.
            Defaults to `"ExponentialDecay"`.

    Call arguments:
        step: The optimizer step (an `int` or a scalar tensor); the optimizer passes its
            step counter.

    Call returns:
        A scalar `float32` tensor, the learning rate at `step`.

    Raises:
        ValueError: If `decay_steps` is not positive.

    Example:
        >>> schedule = tfkit.optimizers.schedules.ExponentialDecay(
        ...     initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5)
        >>> [round(float(schedule(step)), 4) for step in (0, 5, 10, 20)]
        [0.1, 0.0707, 0.05, 0.025]
        >>> optimizer = tfkit.optimizers.SGD(learning_rate=schedule)
    """

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
    """A `LearningRateSchedule` that uses a piecewise constant decay schedule.

    The learning rate is `values[0]` while `step <= boundaries[0]`, `values[i]` for
    `boundaries[i-1] < step <= boundaries[i]`, and `values[-1]` after the last
    boundary. For example, a learning rate of 1.0 for the first 100001 steps, 0.5 for
    the next 10000 steps, and 0.1 for any additional steps is
    `PiecewiseConstantDecay([100000, 110000], [1.0, 0.5, 0.1])`.

    Args:
        boundaries: A list of increasing Python numbers, the step boundaries.
        values: A list of Python numbers, the values for the intervals defined by
            `boundaries`: one more than `boundaries`.
        name: `str`, an optional name for the schedule, kept in its config.
            Defaults to `"PiecewiseConstant"`.

    Call arguments:
        step: The optimizer step (an `int` or a scalar tensor); the optimizer passes its
            step counter.

    Call returns:
        A scalar `float32` tensor, the learning rate at `step`.

    Raises:
        ValueError: If the number of elements of `values` is not one more than the
            number of elements of `boundaries`, or `boundaries` does not increase.

    Example:
        >>> schedule = tfkit.optimizers.schedules.PiecewiseConstantDecay(
        ...     boundaries=[10, 20], values=[1.0, 0.5, 0.1])
        >>> [round(float(schedule(step)), 4) for step in (0, 10, 11, 20, 21)]
        [1.0, 1.0, 0.5, 0.5, 0.1]
    """

    def __init__(self, boundaries: Sequence[float], values: Sequence[float], name: str = "PiecewiseConstant") -> None:
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
    """A `LearningRateSchedule` that uses a polynomial decay schedule.

    It is commonly observed that a monotonically decreasing learning rate, whose
    degree of change is carefully chosen, results in a better performing model. This
    schedule applies a polynomial decay function to an optimizer step, reaching
    `end_learning_rate` in `decay_steps` steps::

        step = min(step, decay_steps)
        (initial_learning_rate - end_learning_rate) * (1 - step / decay_steps) ** power
            + end_learning_rate

    If `cycle` is `True` then a multiple of `decay_steps` is used, the first one that
    is bigger than `step` (the decay restarts)::

        decay_steps = decay_steps * max(ceil(step / decay_steps), 1)

    Args:
        initial_learning_rate: A Python `float`, the initial learning rate.
        decay_steps: A positive number, the number of steps to reach
            `end_learning_rate`.
        end_learning_rate: A Python `float`, the minimal end learning rate.
            Defaults to `0.0001`.
        power: A Python `float`, the power of the polynomial. Defaults to `1.0`.
        cycle: `bool`, whether or not it should cycle beyond `decay_steps`.
            Defaults to `False`.
        name: `str`, an optional name for the schedule, kept in its config.
            Defaults to `"PolynomialDecay"`.

    Call arguments:
        step: The optimizer step (an `int` or a scalar tensor); the optimizer passes its
            step counter.

    Call returns:
        A scalar `float32` tensor, the learning rate at `step`.

    Raises:
        ValueError: If `decay_steps` is not positive.

    Example:
        >>> schedule = tfkit.optimizers.schedules.PolynomialDecay(
        ...     initial_learning_rate=0.1, decay_steps=10, end_learning_rate=0.01, power=1.0)
        >>> [round(float(schedule(step)), 4) for step in (0, 5, 10, 20)]
        [0.1, 0.055, 0.01, 0.01]
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
    """A `LearningRateSchedule` that uses an inverse time decay schedule.

    When training a model, it is often useful to lower the learning rate as the
    training progresses. This schedule applies the inverse decay function to an
    optimizer step, given a provided initial learning rate::

        initial_learning_rate / (1 + decay_rate * step / decay_steps)

    or, if `staircase` is `True`, as::

        initial_learning_rate / (1 + decay_rate * floor(step / decay_steps))

    Args:
        initial_learning_rate: A Python `float`, the initial learning rate.
        decay_steps: A positive number, how often to apply decay.
        decay_rate: A Python number, the decay rate.
        staircase: `bool`, whether to apply decay in a discrete staircase, as opposed to
            continuous, fashion. Defaults to `False`.
        name: `str`, an optional name for the schedule, kept in its config.
            Defaults to `"InverseTimeDecay"`.

    Call arguments:
        step: The optimizer step (an `int` or a scalar tensor); the optimizer passes its
            step counter.

    Call returns:
        A scalar `float32` tensor, the learning rate at `step`.

    Raises:
        ValueError: If `decay_steps` is not positive.

    Example:
        >>> schedule = tfkit.optimizers.schedules.InverseTimeDecay(
        ...     initial_learning_rate=0.1, decay_steps=10, decay_rate=1.0)
        >>> [round(float(schedule(step)), 4) for step in (0, 10, 30)]
        [0.1, 0.05, 0.025]
    """

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
    """A `LearningRateSchedule` that uses a cosine decay with optional warmup.

    See Loshchilov & Hutter, ICLR2016, "SGDR: Stochastic Gradient Descent with Warm
    Restarts". For the idea of a linear warmup of the learning rate, see Goyal et al.,
    "Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour".

    When `warmup_target` is `None` there is no warmup, and the learning rate decays
    from `initial_learning_rate` to `alpha * initial_learning_rate` over `decay_steps`::

        step = min(step, decay_steps)
        cosine_decay = 0.5 * (1 + cos(pi * step / decay_steps))
        decayed = (1 - alpha) * cosine_decay + alpha
        initial_learning_rate * decayed

    With a `warmup_target`, the learning rate first grows linearly from
    `initial_learning_rate` to `warmup_target` over `warmup_steps` steps, then decays
    from `warmup_target` to `alpha * warmup_target` over the next `decay_steps` steps
    with the same cosine, and stays there.

    Args:
        initial_learning_rate: A Python `float`, the initial learning rate (the start of
            the warmup, or of the decay when there is no warmup).
        decay_steps: A positive number, the number of steps to decay over.
        alpha: A Python `float`, the minimum learning rate value as a fraction of the
            peak learning rate (`initial_learning_rate`, or `warmup_target`).
            Defaults to `0.0`.
        name: `str`, an optional name for the schedule, kept in its config.
            Defaults to `"CosineDecay"`.
        warmup_target: Optional Python `float`, the target learning rate of the warmup
            phase; `None` means no warmup. Defaults to `None`.
        warmup_steps: A non-negative number, the number of warmup steps (used only with
            a `warmup_target`). Defaults to `0`.

    Call arguments:
        step: The optimizer step (an `int` or a scalar tensor); the optimizer passes its
            step counter.

    Call returns:
        A scalar `float32` tensor, the learning rate at `step`.

    Raises:
        ValueError: If `decay_steps` is not positive or `warmup_steps` is negative.

    Example:
        >>> schedule = tfkit.optimizers.schedules.CosineDecay(
        ...     initial_learning_rate=0.0, decay_steps=10, warmup_target=0.1, warmup_steps=10)
        >>> [round(float(schedule(step)), 4) for step in (0, 5, 10, 15, 20, 30)]
        [0.0, 0.05, 0.1, 0.05, 0.0, 0.0]
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
    """A `LearningRateSchedule` that uses a cosine decay schedule with restarts.

    See Loshchilov & Hutter, ICLR2016, "SGDR: Stochastic Gradient Descent with Warm
    Restarts". The learning rate multiplier first decays from 1 to `alpha` for
    `first_decay_steps` steps. Then, a warm restart is performed. Each new warm restart
    runs for `t_mul` times more steps and with `m_mul` times initial learning rate as
    the new learning rate: period `i` (from 0) lasts `first_decay_steps * t_mul**i`
    steps and starts from `initial_learning_rate * m_mul**i`.

    Args:
        initial_learning_rate: A Python `float`, the initial learning rate.
        first_decay_steps: A positive number, the number of steps to decay over in the
            first period.
        t_mul: A positive Python `float`, used to derive the number of iterations in the
            i-th period. Defaults to `2.0`.
        m_mul: A Python `float`, used to derive the initial learning rate of the i-th
            period. Defaults to `1.0`.
        alpha: A Python `float`, the minimum learning rate value as a fraction of the
            `initial_learning_rate`. Defaults to `0.0`.
        name: `str`, an optional name for the schedule, kept in its config.
            Defaults to `"SGDRDecay"`.

    Call arguments:
        step: The optimizer step (an `int` or a scalar tensor); the optimizer passes its
            step counter.

    Call returns:
        A scalar `float32` tensor, the learning rate at `step`.

    Raises:
        ValueError: If `first_decay_steps` or `t_mul` is not positive.

    Example:
        >>> schedule = tfkit.optimizers.schedules.CosineDecayRestarts(
        ...     initial_learning_rate=0.1, first_decay_steps=10, t_mul=1.0, m_mul=0.5)
        >>> [round(float(schedule(step)), 4) for step in (0, 5, 10, 15, 20)]
        [0.1, 0.05, 0.05, 0.025, 0.025]
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
    """Serializes a `LearningRateSchedule` into a JSON-compatible dict.

    Args:
        learning_rate_schedule: The `LearningRateSchedule` object to serialize.

    Returns:
        A `{"class_name": ..., "config": ...}` dict (with `"module"` and
        `"registered_name"` keys for a registered custom class), where `config` is the
        schedule's `get_config()`.

    Example:
        >>> schedule = tfkit.optimizers.schedules.ExponentialDecay(0.1, 1000, 0.9)
        >>> config = tfkit.optimizers.schedules.serialize(schedule)
        >>> config["class_name"]
        'ExponentialDecay'
        >>> config["config"]
        {'initial_learning_rate': 0.1, 'decay_steps': 1000, 'decay_rate': 0.9, 'staircase': False,
         'name': 'ExponentialDecay'}
    """
    return registry.to_config("schedules", learning_rate_schedule)


def deserialize(
    config: Mapping[str, Any] | str, custom_objects: Mapping[str, Any] | None = None
) -> LearningRateSchedule:
    """Instantiates a `LearningRateSchedule` object from a serialized form.

    Args:
        config: The serialized form of the `LearningRateSchedule`: a
            `{"class_name": ..., "config": ...}` dict as written by `serialize`, or the name
            of a schedule class that takes no required argument.
        custom_objects: Optional `dict` mapping names to custom schedule classes, looked
            up before the built-in ones. Defaults to `None`.

    Returns:
        A `LearningRateSchedule` object.

    Raises:
        ValueError: If `config` names an unknown class, or does not describe a
            learning-rate schedule.

    Example:
        >>> config = {"class_name": "PolynomialDecay",
        ...           "config": {"initial_learning_rate": 0.1, "decay_steps": 10}}
        >>> schedule = tfkit.optimizers.schedules.deserialize(config)
        >>> type(schedule).__name__, round(float(schedule(10)), 4)
        ('PolynomialDecay', 0.0001)
    """
    schedule = registry.resolve("schedules", config, custom_objects)
    if not isinstance(schedule, LearningRateSchedule):
        raise ValueError(f"{config!r} does not describe a learning-rate schedule; it gave {schedule!r}")
    return schedule
