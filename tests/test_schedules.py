"""tfkit.optimizers.schedules: Keras 3 formulas checked against numpy, configs and errors."""

import json
import math

import numpy as np
import pytest
import tensorflow as tf

from tfkit.optimizers import schedules

STEPS = [0, 1, 5, 10, 15, 20, 37, 100]


def values(schedule, steps=STEPS):
    return np.array([float(schedule(tf.constant(s, tf.int64))) for s in steps])


def check(schedule, formula, steps=STEPS):
    np.testing.assert_allclose(values(schedule, steps), [formula(s) for s in steps], rtol=1e-5, atol=1e-9)


def test_exponential_decay():
    check(schedules.ExponentialDecay(0.1, 10, 0.5), lambda s: 0.1 * 0.5 ** (s / 10))
    check(schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True), lambda s: 0.1 * 0.5 ** (s // 10))


def test_inverse_time_decay():
    check(schedules.InverseTimeDecay(0.2, 5, 0.5), lambda s: 0.2 / (1 + 0.5 * s / 5))
    check(schedules.InverseTimeDecay(0.2, 5, 0.5, staircase=True), lambda s: 0.2 / (1 + 0.5 * (s // 5)))


def test_piecewise_constant_decay_boundaries_belong_to_the_left_interval():
    schedule = schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    check(schedule, lambda s: 1.0 if s <= 10 else 0.5 if s <= 20 else 0.1, steps=[0, 9, 10, 11, 20, 21, 500])


def test_polynomial_decay():
    def formula(s, initial=0.1, end=0.01, power=2.0, decay=20):
        s = min(s, decay)
        return (initial - end) * (1 - s / decay) ** power + end

    check(schedules.PolynomialDecay(0.1, 20, end_learning_rate=0.01, power=2.0), formula)
    assert schedules.PolynomialDecay(0.1, 20).end_learning_rate == 0.0001


def test_polynomial_decay_cycle_restarts():
    def formula(s, initial=0.1, end=0.01, decay=20):
        steps = decay * (1 if s == 0 else math.ceil(s / decay))
        return (initial - end) * (1 - s / steps) + end

    check(schedules.PolynomialDecay(0.1, 20, end_learning_rate=0.01, cycle=True), formula)


def cosine(step, decay_steps, peak, alpha):
    step = min(step, decay_steps)
    return peak * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * step / decay_steps)) + alpha)


def test_cosine_decay():
    check(schedules.CosineDecay(0.1, 20, alpha=0.1), lambda s: cosine(s, 20, 0.1, 0.1))


def test_cosine_decay_with_linear_warmup():
    schedule = schedules.CosineDecay(0.0, 50, alpha=0.05, warmup_target=0.2, warmup_steps=10)

    def formula(s):
        if s < 10:
            return 0.2 * s / 10
        return cosine(min(s, 60) - 10, 50, 0.2, 0.05)

    check(schedule, formula, steps=[0, 1, 5, 9, 10, 11, 30, 60, 80])
    # warmup_target with no warmup steps starts the cosine at the target.
    check(schedules.CosineDecay(0.5, 10, warmup_target=0.2), lambda s: cosine(s, 10, 0.2, 0.0))


@pytest.mark.parametrize("jit", [False, True])
def test_schedules_compile_with_tensor_steps(jit):
    all_schedules = [
        schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True),
        schedules.PiecewiseConstantDecay([3, 6], [0.3, 0.2, 0.1]),
        schedules.PolynomialDecay(0.1, 10, cycle=True),
        schedules.InverseTimeDecay(0.1, 10, 0.5),
        schedules.CosineDecay(0.0, 10, warmup_target=0.1, warmup_steps=3),
    ]
    compiled = tf.function(lambda step: tf.stack([s(step) for s in all_schedules]), jit_compile=jit)
    for step in (0, 2, 4, 7, 12):
        eager = [float(s(step)) for s in all_schedules]
        np.testing.assert_allclose(compiled(tf.constant(step, tf.int64)).numpy(), eager, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize(
    "schedule",
    [
        schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True),
        schedules.PiecewiseConstantDecay([3, 6], [0.3, 0.2, 0.1]),
        schedules.PolynomialDecay(0.1, 10, end_learning_rate=0.0, power=0.5, cycle=True),
        schedules.InverseTimeDecay(0.1, 10, 0.5, staircase=True),
        schedules.CosineDecay(0.0, 10, alpha=0.2, warmup_target=0.1, warmup_steps=3),
    ],
    ids=lambda s: type(s).__name__,
)
def test_config_round_trip(schedule):
    data = json.loads(json.dumps(schedules.serialize(schedule)))
    assert data["class_name"] == type(schedule).__name__
    restored = schedules.deserialize(data)
    assert type(restored) is type(schedule) and restored.get_config() == schedule.get_config()
    np.testing.assert_allclose(values(restored), values(schedule))
    assert type(schedule).from_config(schedule.get_config()).get_config() == schedule.get_config()


def test_custom_schedule_base_class():
    class Halving(schedules.LearningRateSchedule):
        def __call__(self, step):
            return 0.8 * 0.5 ** tf.cast(step // 2, tf.float32)

        def get_config(self):
            return {}

    assert float(Halving()(5)) == pytest.approx(0.2)
    with pytest.raises(NotImplementedError, match="must implement"):
        schedules.LearningRateSchedule()(1)


def test_invalid_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="one more value than boundaries"):
        schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="boundaries must increase"):
        schedules.PiecewiseConstantDecay([5, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="decay_steps must be > 0"):
        schedules.CosineDecay(0.1, 0)
    with pytest.raises(ValueError, match="does not describe a learning-rate schedule|Unknown"):
        schedules.deserialize({"class_name": "NoSuchDecay", "config": {}})
